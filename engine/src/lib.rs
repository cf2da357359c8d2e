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
//! - [`Note`] / [`parse_note`]: frontmatter, title, aliases, tags, headings, wikilinks, body.
//! - [`Chunk`] / [`chunk_note`]: heading-aware pieces of a note with their line ranges.
//! - [`Hit`]: the best chunk of a matching note, with a highlighted snippet.
//! - [`Warning`]: a problem with one file; it never stops an update.
//! - [`Error::code`]: stable numeric codes shared with the C and Python bindings.

#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod atomic;
mod audit;
mod chunk;
mod embed;
mod error;
mod eval;
mod exposure;
mod identity;
mod init;
mod lexical;
mod manifest;
pub mod markdown;
mod memory;
mod note;
mod query;
mod report;
mod rerank;
mod resolve;
pub mod scoped;
mod state;
pub mod time;
mod vault;
mod vector;
pub mod walk;
mod watch;

pub use audit::{AuditAction, AuditLog};
pub use chunk::{Chunk, ChunkOptions, chunk_note};
pub use embed::{BertEmbedder, DEFAULT_MODEL, Embedder, Precision, model_dir, models_home};
pub use error::{Error, ErrorCode, Result};
pub use eval::{EvalFiles, EvalFusion, EvalMode, EvalReport, EvalScores, evaluate};
pub use exposure::{
    Denied, Exposure, MemoryRootInfo, RootsSource, VisibleFile, discover_memory_root,
};
pub use identity::{Caller, CallerSource};
pub use init::{InitReport, TEMPLATE_FILES, init_vault};
pub use lexical::{Hit, SearchOptions};
pub use manifest::Manifest;
pub use memory::promoted::{AnchorKind, Promotion};
pub use memory::store::CacheStats;
pub use memory::{
    Confidence, DEFAULT_RECALL_LIMIT, DUPLICATE_THRESHOLD, HAND_FILED_SOURCE,
    MAX_MEMORY_BODY_BYTES, MAX_MEMORY_FIELD_BYTES, MEMORY_SOURCE, Memory, MemoryInput,
    RELATED_THRESHOLD, SUPERSEDED_REASON, Scope,
};
pub use note::{Heading, Link, Note, Parsed, file_stem, parse_note};
pub use query::{
    DEFAULT_VEC_WEIGHT, Explain, Fusion, QueryHit, QueryOptions, QueryResult, SourceRank, Stage,
    SubQuery, SubQueryKind,
};
pub use report::{Changes, Rename, UpdateReport, Warning, WarningKind};
pub use rerank::{CrossEncoder, Reranker};
pub use resolve::note_uri;
pub use scoped::{
    AgentMultiGet, AgentNote, AgentStatus, MAX_READ_BYTES, Resource, Scoped, not_visible,
};
pub use state::LastUpdate;
pub use vault::{
    BrokenLink, DEFAULT_HNSW_THRESHOLD, DEFAULT_MAX_NOTE_BYTES, EMBED_ESTIMATE_MIN_CHUNKS,
    EmbedEstimate, EmbedReport, Expansion, GraphAudit, Health, INDEX_DIR_NAME, LinkedNote,
    MANIFEST_FILE, MAX_WORK_NOTE_BYTES, MultiGetItem, NoProgress, NoteText, Progress,
    REASON_TIMEOUT, REASON_VIEW_CAP, ReasonOptions, Reasoning, Recall, RecallOptions,
    RecallRanking, RecalledMemory, Refusal, Remembered, ScopedHits, Status, Vault, VaultOptions,
    VectorCoverage, VectorStatus, WRITER_WAIT, WorkInput, WorkKind, WorkRecord, find_vault_root,
    parse_get_spec,
};
pub use vector::{DEFAULT_EF_SEARCH, VectorStore, VectorWriter};
pub use walk::{IgnoreFilters, NoteFile, walk_vault};
pub use watch::{EmbedderLoader, WatchEvent, WatchOptions};

/// The version of this library.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
