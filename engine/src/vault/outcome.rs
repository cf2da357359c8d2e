//! The outcome every agent-facing action shares: [`Refusal`] (why nothing happened) and the
//! [`Outcome`] trait, so a surface reports `remember`, `record_work` and `reason` one way.

use serde::Serialize;

/// Why a write (`remember`, `record_work`) or a `reason` session did not happen. Refusals are
/// outcomes (`Ok`), never errors: nothing was written, and the outcome's message says what to do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// The caller is the vault itself.
    VaultItself,
    /// An argument contains tool-call markup (a sign the caller's arguments were mangled).
    Markup {
        /// The field.
        field: String,
        /// Byte offset of the markup in the field (or list item).
        offset: usize,
        /// 1-based list item, for list fields.
        item: Option<usize>,
        /// Whether the markup only trails the real content.
        trailing: bool,
    },
    /// The input breaks the memory contract.
    Validation {
        /// Every problem found.
        errors: Vec<String>,
    },
    /// A near-identical memory exists (pass `force`, or supersede it).
    Duplicate {
        /// Similarity, 0 to 1: of the words (the contract's measure), or with `by_meaning` the
        /// cosine of the two texts' embeddings.
        score: f64,
        /// The existing memory's title.
        title: String,
        /// Its vault-relative path.
        path: String,
        /// The memories say the same in other words (found by the embedding model).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        by_meaning: bool,
    },
    /// The destination folder is not one the caller may write to (outside the exposed roots, a
    /// traversal, or a way out of its root).
    Placement {
        /// The folder as given.
        folder: String,
    },
    /// The vault cannot serve the request as it is set up (no folder exposed to agents, a view
    /// too big to build, the seed search failing).
    Unavailable {
        /// A short machine-readable reason (`no_roots`, `view_too_big`, ...).
        reason: String,
    },
}

pub use crate::surface::Surface;

impl Refusal {
    /// What the caller can do about this refusal, in `surface`'s words; `None` when no argument
    /// changes the answer.
    pub fn advice(&self, surface: Surface) -> Option<String> {
        match self {
            Refusal::Duplicate { title, .. } => {
                let quoted = serde_json::to_string(title).unwrap_or_default();
                let (supersede, force) = match surface {
                    Surface::Mcp | Surface::C => {
                        (format!("pass supersedes: [{quoted}]"), "pass force: true")
                    }
                    Surface::Cli => (
                        format!("rerun with --supersedes {quoted}"),
                        "rerun with --force",
                    ),
                    Surface::Python => (format!("pass supersedes=[{quoted}]"), "pass force=True"),
                };
                Some(format!(
                    "If this is a correction, {supersede} so the old one is kept and back-linked; if it is genuinely different, {force}."
                ))
            }
            _ => None,
        }
    }
}

/// What every action outcome answers: whether it was refused, and the text for people and
/// agents.
pub trait Outcome {
    /// Why nothing happened, when it was refused.
    fn refusal(&self) -> Option<&Refusal>;
    /// The outcome as text (the refusal's explanation when refused).
    fn message(&self) -> &str;
    /// [`Outcome::message`] with its advice in `surface`'s words (messages carry the MCP
    /// wording, the contract's).
    fn message_in(&self, surface: Surface) -> String {
        let message = self.message();
        let (Some(mcp), Some(theirs)) = (
            self.refusal().and_then(|r| r.advice(Surface::Mcp)),
            self.refusal().and_then(|r| r.advice(surface)),
        ) else {
            return message.to_string();
        };
        message.replace(&mcp, &theirs)
    }
    /// Whether the action was refused.
    fn refused(&self) -> bool {
        self.refusal().is_some()
    }
    /// Whether the action did what was asked (a dry run that would have does); a refused one
    /// never has, and a `reason` session may also fail after it started.
    fn ok(&self) -> bool {
        !self.refused()
    }
}

impl Outcome for super::Remembered {
    fn refusal(&self) -> Option<&Refusal> {
        self.refusal.as_ref()
    }
    fn message(&self) -> &str {
        &self.message
    }
}

impl Outcome for super::WorkRecord {
    fn refusal(&self) -> Option<&Refusal> {
        self.refusal.as_ref()
    }
    fn message(&self) -> &str {
        &self.message
    }
}

impl Outcome for super::Reasoning {
    fn refusal(&self) -> Option<&Refusal> {
        self.refusal.as_ref()
    }
    fn message(&self) -> &str {
        &self.text
    }
    fn ok(&self) -> bool {
        self.ok
    }
}
