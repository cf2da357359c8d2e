//! # mindex
//!
//! A local search-and-memory engine for AI coding agents, over an Obsidian-style markdown vault.
//!
//! ```no_run
//! use mindex::{NoProgress, SearchOptions, Vault, VaultOptions};
//!
//! # fn main() -> mindex::Result<()> {
//! let vault = Vault::open("my-vault", VaultOptions::default())?;
//! let report = vault.update(&NoProgress)?; // incremental: only changed notes are re-indexed
//! println!("{} notes, {} changed", report.notes, report.changes.len());
//! for hit in vault.search("deploy rollback", &SearchOptions { limit: 5, ..Default::default() })? {
//!     println!("{} ({}:{}-{}) {}", hit.title, hit.path, hit.line_start, hit.line_end, hit.snippet);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Core concepts
//! - [`Vault`]: a folder of notes plus its index (by default in `<vault>/.mindex/`).
//! - [`Scoped`] (from [`Vault::scoped`]): the vault as one agent may see it; every agent surface
//!   reads through it, so exposure and the audit log live in one place.
//! - [`Note`] / [`parse_note`]: frontmatter, title, aliases, tags, headings, wikilinks, body.
//! - [`chunk::Chunk`] / [`chunk::chunk_note`]: heading-aware pieces of a note with their line
//!   ranges.
//! - [`Hit`]: the best chunk of a matching note, with a highlighted snippet.
//! - [`Warning`]: a problem with one file; it never stops an update.
//! - [`Error::code`]: stable numeric codes shared with the C and Python bindings.

#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod atomic;
pub mod audit;
pub mod chunk;
pub mod embed;
mod error;
pub mod eval;
pub(crate) mod exposure;
pub mod home;
mod identity;
pub mod init;
mod lexical;
#[cfg(test)]
mod linear_tests;
pub mod manifest;
pub(crate) mod markdown;
pub mod memory;
pub mod note;
pub mod query;
pub mod report;
pub mod rerank;
pub mod resolve;
pub mod scoped;
mod simd;
mod state;
mod surface;
pub mod time;
pub mod vault;
pub mod vector;
pub(crate) mod walk;
pub mod watch;
mod watcher;

// The handles and the types every caller meets; the rest lives in the public modules above.
pub use embed::{BertEmbedder, Embedder, Precision};
pub use error::{Error, ErrorCode, Result};
pub use identity::{Caller, CallerSource, IdentifiedBy};
pub use lexical::{Hit, SearchOptions};
pub use memory::{Confidence, Memory, MemoryInput, Scope};
pub use note::{Note, parse_note};
pub use query::{QueryHit, QueryOptions, QueryResult, Stage, SubQuery, SubQueryKind};
pub use report::{UpdateReport, Warning, WarningKind};
pub use scoped::Scoped;
pub use vault::{
    NoProgress, Outcome, Progress, ReasonOptions, Reasoning, Recall, RecallOptions, Refusal,
    Remembered, Status, StatusOptions, Vault, VaultOptions, Vectors, WorkInput, WorkKind,
    WorkRecord,
};
pub use walk::FileStat;

/// The version of this library.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
