//! The scoped memory store: memories as markdown files under the vault's memory root, with a
//! declared reach, confidence, supersession and near-duplicate refusal.

pub(crate) mod text;
