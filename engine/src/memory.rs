//! The scoped memory store: memories as markdown files under the vault's memory root, each with
//! a declared reach (general / platform / project lists), a confidence, supersession back-links
//! and near-duplicate refusal.
//!
//! This module holds the pure parts (validation, rendering, reading, visibility, ranking);
//! `store` holds the files (exclusive-create writes, the parse cache, supersession edits).

mod input;
pub(crate) mod promoted;
mod select;
pub(crate) mod store;
pub(crate) mod text;

use serde::Serialize;

use crate::identity::Caller;
use crate::markdown::frontmatter::{self, FmValue};

pub use input::MemoryInput;
pub(crate) use input::*;
pub use promoted::{AnchorKind, Promotion};
pub use select::SUPERSEDED_REASON;
pub(crate) use select::*;
pub use store::CacheStats;

pub use crate::markdown::{HAND_FILED_SOURCE, MEMORY_SOURCE};
/// Similarity at or above which a new memory is refused as a near-duplicate.
pub const DUPLICATE_THRESHOLD: f64 = 0.75;
/// Similarity at or above which two memories are related (computed, not surfaced).
pub const RELATED_THRESHOLD: f64 = 0.35;
/// A memory body needs at least this many characters (after trimming).
pub const MIN_BODY_CHARS: usize = 40;
/// Longest title accepted.
pub const MAX_TITLE_CHARS: usize = 200;
/// Bodies longer than this get a warning (never a refusal).
pub const BODY_WARN_CHARS: usize = 8000;
/// The largest memory body accepted, in UTF-8 bytes (32 KiB): four times the size that already
/// draws a "split it" warning ([`BODY_WARN_CHARS`]), far above any real lesson. Every recall
/// serves the bodies it returns, so one oversized memory (a pasted log, a whole file) would cost
/// every caller; it is refused instead, naming the field, its size and this limit.
pub const MAX_MEMORY_BODY_BYTES: usize = 32 * 1024;
/// The largest value of any other memory field, in UTF-8 bytes (4 KiB): the title, the
/// verification and generality texts, and each list (`projects`, `platforms`, `links`,
/// `supersedes`) counted over all its items.
pub const MAX_MEMORY_FIELD_BYTES: usize = 4 * 1024;
/// Names tried for one memory before giving up (`title.md`, `title (2).md` …).
pub(crate) const CLAIM_ATTEMPTS: usize = 50;
/// Default number of memories `recall` returns.
pub const DEFAULT_RECALL_LIMIT: usize = 20;

/// How far a memory reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every caller, including anonymous ones.
    General,
    /// Callers whose platforms overlap the memory's.
    Platform,
    /// The listed projects only.
    Project,
}

impl Scope {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::General => "general",
            Scope::Platform => "platform",
            Scope::Project => "project",
        }
    }

    /// Parses a scope name (case-insensitive).
    pub fn parse(s: &str) -> Option<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "general" => Some(Scope::General),
            "platform" => Some(Scope::Platform),
            "project" => Some(Scope::Project),
            _ => None,
        }
    }
}

/// How well a memory's claim is established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Checked (say how in `verification`).
    Verified,
    /// Reasoned from evidence, not checked.
    Inferred,
    /// Reported or guessed.
    Unverified,
}

impl Confidence {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Verified => "verified",
            Confidence::Inferred => "inferred",
            Confidence::Unverified => "unverified",
        }
    }

    /// Parses a confidence name (case-insensitive).
    pub fn parse(s: &str) -> Option<Confidence> {
        match s.trim().to_ascii_lowercase().as_str() {
            "verified" => Some(Confidence::Verified),
            "inferred" => Some(Confidence::Inferred),
            "unverified" => Some(Confidence::Unverified),
            _ => None,
        }
    }
}

/// A memory as read from disk, with the reader-side defaults applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Memory {
    /// Vault-relative path.
    pub path: String,
    /// The first `# ` heading.
    pub title: Option<String>,
    /// The text after the frontmatter and the title line.
    pub body: String,
    /// Frontmatter `description`.
    pub description: Option<String>,
    /// `mcp-capture` (engine-written), `hand-filed`, or anything else (not a memory).
    pub source: Option<String>,
    /// The project that wrote it.
    pub origin: Option<String>,
    /// Local date written (`YYYY-MM-DD`).
    pub date: Option<String>,
    /// UTC timestamp written.
    pub session: Option<String>,
    /// Declared scope, lowercased (`project` when absent).
    pub scope: String,
    /// Projects reached.
    pub projects: Vec<String>,
    /// Platforms reached.
    pub platforms: Vec<String>,
    /// `verified`, `inferred` or `unverified` (`unverified` when absent).
    pub confidence: String,
    /// The confidence claimed before a rule capped it.
    pub claimed_confidence: Option<String>,
    /// The scope claimed before it was narrowed.
    pub claimed_scope: Option<String>,
    /// Rule markers (`generalised`, `volatile`).
    pub flags: Vec<String>,
    /// Titles of the memories that correct this one.
    pub superseded_by: Vec<String>,
    /// Where the lesson was promoted to in the vault's notes (`note#^id` or `note#Heading`).
    pub promoted: Option<String>,
    /// Whether its frontmatter marks it private (as a note's would): never recalled.
    #[serde(skip)]
    pub private: bool,
}

impl Memory {
    /// Parses a memory file (any markdown file parses; non-memories have another `source`).
    pub(crate) fn parse(rel: &str, md: &str) -> Memory {
        let fm = frontmatter::parse_subset(md);
        let scalar = |k: &str| match fm.get(k) {
            Some(FmValue::Scalar(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        let list = |k: &str| match fm.get(k) {
            Some(FmValue::List(v)) => v.iter().filter(|s| !s.is_empty()).cloned().collect(),
            Some(FmValue::Scalar(s)) if !s.is_empty() => vec![s.clone()],
            _ => Vec::new(),
        };
        let (title, body) = text::memory_title_body(md);
        Memory {
            path: rel.to_string(),
            title,
            body,
            description: scalar("description"),
            source: scalar("source"),
            origin: scalar("origin"),
            date: scalar("date"),
            session: scalar("session"),
            scope: scalar("scope")
                .map(|s| s.to_lowercase())
                .unwrap_or_else(|| "project".to_string()),
            projects: list("projects"),
            platforms: list("platforms"),
            confidence: scalar("confidence")
                .map(|s| s.to_lowercase())
                .unwrap_or_else(|| "unverified".to_string()),
            claimed_confidence: scalar("claimed_confidence"),
            claimed_scope: scalar("claimed_scope"),
            flags: list("flags"),
            superseded_by: list("superseded_by"),
            promoted: scalar("promoted"),
            private: matches!(
                frontmatter::parse_text(md),
                Ok(Some(map)) if frontmatter::marks_private(&map)
            ),
        }
    }

    /// Whether this is an agent memory (`source` is `mcp-capture` or `hand-filed`).
    pub fn is_agent(&self) -> bool {
        matches!(
            self.source.as_deref(),
            Some(MEMORY_SOURCE) | Some(HAND_FILED_SOURCE)
        )
    }

    /// Whether another memory corrects this one.
    pub fn is_superseded(&self) -> bool {
        !self.superseded_by.is_empty()
    }

    fn lists(&self, list: &[String], name: &str) -> bool {
        list.iter().any(|p| p.eq_ignore_ascii_case(name))
    }

    /// Whether `caller` may see this memory (ignoring supersession).
    pub fn visible_to(&self, caller: &Caller) -> bool {
        if self.scope == "general" {
            return true;
        }
        if let Some(p) = &caller.project
            && self.lists(&self.projects, p)
        {
            return true;
        }
        self.scope == "platform"
            && caller
                .platforms
                .iter()
                .any(|p| self.lists(&self.platforms, p))
    }

    /// Why `caller` sees (or does not see) this memory, ignoring supersession.
    pub fn visibility_reason(&self, caller: &Caller) -> String {
        if self.scope == "general" {
            return "general scope reaches every caller".to_string();
        }
        if let Some(p) = &caller.project
            && self.lists(&self.projects, p)
        {
            return format!("explicitly lists project \"{p}\"");
        }
        if self.scope == "platform" {
            let shared: Vec<&str> = caller
                .platforms
                .iter()
                .filter(|p| self.lists(&self.platforms, p))
                .map(String::as_str)
                .collect();
            if !shared.is_empty() {
                return format!(
                    "platform scope overlaps caller platforms [{}]",
                    shared.join(", ")
                );
            }
        }
        match &caller.project {
            None => "caller has no identity; only general memories are visible".to_string(),
            Some(p) => format!(
                "no facet matches caller (project=\"{p}\", platforms=[{}])",
                caller.platforms.join(", ")
            ),
        }
    }

    /// How specifically this memory targets `caller` (higher ranks first).
    pub(crate) fn specificity(&self, caller: &Caller) -> u32 {
        if let Some(p) = &caller.project
            && self.lists(&self.projects, p)
        {
            return 100 - (self.projects.len().min(20) as u32);
        }
        match self.scope.as_str() {
            "platform" => 50,
            "general" => 10,
            _ => 0,
        }
    }

    /// Whether two memories can be near-duplicates of each other (they share a reach).
    pub(crate) fn shares_facet(&self, other: &Memory) -> bool {
        if self.scope == "general" || other.scope == "general" {
            return true;
        }
        if self
            .projects
            .iter()
            .any(|p| other.lists(&other.projects, p))
        {
            return true;
        }
        self.scope == "platform"
            && other.scope == "platform"
            && self
                .platforms
                .iter()
                .any(|p| other.lists(&other.platforms, p))
    }
}

#[cfg(test)]
mod tests;
