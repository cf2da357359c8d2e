//! What a scoped call answers: the read caps, the answer types ([`AgentNote`],
//! [`AgentMultiGet`], [`Resource`], [`AgentStatus`]), and the wording every surface shares for a
//! name that matches no visible note and for paths scrubbed out of messages.

use std::fs;
use std::path::Path;
use std::sync::LazyLock;

use serde::Serialize;

use crate::report::{Rename, Warning};
use crate::vault::{MultiGetItem, NoteText, VectorStatus};

/// The most bytes of one note served to an agent; a larger note is served up to here and marked
/// truncated ([`TRUNCATED_MARKER`]).
pub const MAX_READ_BYTES: usize = 1024 * 1024;
/// The most note text one `get` serves: a longer note (or line range) is served a page at a
/// time, whole lines, with the line to continue from ([`AgentNote::next_from_line`]). A page
/// holds a few thousand words, a fair share of a model's context.
pub const AGENT_PAGE_BYTES: usize = 32 * 1024;
/// The most note text one `multi_get` serves in all (each note also at most one page); notes
/// past it are listed as skipped, to be read with `get`.
pub const MAX_MULTI_GET_BYTES: usize = 64 * 1024;
/// The most notes one `multi_get` lists.
pub const MAX_MULTI_GET_NOTES: usize = 200;
/// How the line appended to a truncated read starts.
pub const TRUNCATED_MARKER: &str = "[mindex: truncated";

/// A note as an agent reads it ([`Scoped::get`](crate::Scoped::get), [`Scoped::read_uri`](crate::Scoped::read_uri)).
#[derive(Debug, Clone, Serialize)]
pub struct AgentNote {
    /// The note (or the lines asked for); a truncated read ends with the truncation line.
    #[serde(flatten)]
    pub note: NoteText,
    /// Whether only the first [`MAX_READ_BYTES`] of the file were read.
    pub truncated: bool,
    /// The file's size in bytes.
    pub bytes: u64,
    /// Where the next page starts, when this one stopped before the lines asked for
    /// ([`AGENT_PAGE_BYTES`]): pass it as `from_line` to continue.
    pub next_from_line: Option<usize>,
}

/// What [`Scoped::multi_get`](crate::Scoped::multi_get) served.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AgentMultiGet {
    /// The notes read or skipped, in pattern order.
    pub items: Vec<MultiGetItem>,
    /// Why each name that matched no visible note did not ([`not_visible`], or the ambiguity).
    pub unmatched: Vec<String>,
    /// Matches past the [`MAX_MULTI_GET_NOTES`]-note limit, not listed.
    pub not_listed: usize,
}

/// A note offered as a resource ([`Scoped::resources`](crate::Scoped::resources)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resource {
    /// `vault://note/<path>`, each segment percent-encoded ([`note_uri`](crate::resolve::note_uri)).
    pub uri: String,
    /// `<root>: <label>`, or the label for a note at the top of its root.
    pub name: String,
    /// The frontmatter `description` (200 characters at most), else `Vault note`.
    pub description: String,
}

/// Changes as an agent may see them: visible notes named, the rest counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AgentChanges {
    /// Visible notes new to the index.
    pub added: Vec<String>,
    /// Visible notes whose content changed.
    pub modified: Vec<String>,
    /// Always empty: a removed note cannot be checked any more, so it is only counted.
    pub removed: Vec<String>,
    /// Moves from and to visible paths.
    pub renamed: Vec<Rename>,
    /// Every change, shown or not.
    pub count: usize,
}

/// The last update as an agent may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentUpdate {
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_unix_ms: u64,
    /// How long it took.
    pub elapsed_ms: u64,
    /// Whether it rebuilt the whole index.
    pub rebuilt: bool,
    /// How many warnings it reported.
    pub warnings: usize,
    /// What it changed.
    pub changes: AgentChanges,
}

/// [`Vault::status`](crate::Vault::status) as an agent may see it
/// ([`Scoped::status`](crate::Scoped::status)).
#[derive(Debug, Clone, Serialize)]
pub struct AgentStatus {
    /// Whether an index exists.
    pub indexed: bool,
    /// Notes in the index.
    pub notes: usize,
    /// Chunks in the index.
    pub chunks: usize,
    /// Bytes on disk used by the index folder.
    pub index_bytes: u64,
    /// The last update, if any.
    pub last_update: Option<AgentUpdate>,
    /// Changes on disk since the last update.
    pub pending: AgentChanges,
    /// Problems with visible notes (messages without absolute paths).
    pub warnings: Vec<Warning>,
    /// The vector store, if `embed` ever ran.
    pub vectors: Option<VectorStatus>,
    /// Chunks without a vector.
    pub missing_vectors: Option<usize>,
    /// Damaged index files, named relative to the vault.
    pub damaged: Vec<String>,
    /// Changes and warnings not named because the caller may not read them.
    pub not_shown: usize,
    /// What `not_shown` counts, for the agent reading this.
    pub note: &'static str,
}

/// The one answer for a name that matches no visible note, whether it is missing or hidden.
pub fn not_visible(spec: &str) -> String {
    format!(
        "No visible note matches \"{}\" (it may not exist, or lie outside the folders this vault exposes).",
        clip(spec)
    )
}

/// At most 200 characters of what a caller sent, with `…` when cut: for quoting it back in an
/// answer or the audit log.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

/// Absolute POSIX paths of two segments or more (`/a/b…`) that start a word: not after a
/// letter, digit, `.`, `:`, `/` or `>` (the end of `<vault>`), so `vault://…`, `https://…` and
/// `brain/x.md` are left alone.
static ABSOLUTE_PATH: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r#"(^|[^A-Za-z0-9_.:/>\-])/[^\s'"`)\]},;/]+/[^\s'"`)\]},;]*"#)
        .expect("static regex of scoped")
});

/// `message` with `vault` (as given and canonical) replaced by `<vault>` and any other absolute
/// path by `<path>` (drive, UNC and home paths included).
pub fn scrub_paths(message: &str, vault: &Path) -> String {
    let mut s = message.to_string();
    let mut roots = vec![vault.to_string_lossy().into_owned()];
    if let Ok(real) = fs::canonicalize(vault) {
        roots.push(real.to_string_lossy().into_owned());
    }
    roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
    for r in roots {
        if r.len() > 1 {
            s = s.replace(&r, "<vault>");
        }
    }
    let s = crate::memory::text::sanitize(&s);
    ABSOLUTE_PATH.replace_all(&s, "${1}<path>").into_owned()
}

impl AgentStatus {
    /// The status as text for an agent: index size, freshness, pending changes, vectors and
    /// problems, one line each.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        if !self.indexed {
            s.push_str("Index: not built yet (run `mindex update` in the vault).\n");
            return s;
        }
        let _ = writeln!(
            s,
            "Index: {} notes, {} chunks, {:.1} MiB",
            self.notes,
            self.chunks,
            self.index_bytes as f64 / (1024.0 * 1024.0)
        );
        if let Some(u) = &self.last_update {
            let when = crate::time::iso_utc(u.finished_unix_ms as i64);
            let _ = writeln!(
                s,
                "Last update: {when} ({} ms{}, {} change(s), {} warning(s))",
                u.elapsed_ms,
                if u.rebuilt { ", full rebuild" } else { "" },
                u.changes.count,
                u.warnings
            );
        }
        let p = &self.pending;
        if p.count == 0 {
            s.push_str("Pending: none (the index matches the notes on disk)\n");
        } else {
            let _ = writeln!(s, "Pending: {} change(s) since the last update", p.count);
            for (label, list) in [("added", &p.added), ("modified", &p.modified)] {
                if !list.is_empty() {
                    let _ = writeln!(s, "  {label}: {}", list.join(", "));
                }
            }
            for r in &p.renamed {
                let _ = writeln!(s, "  renamed: {} -> {}", r.from, r.to);
            }
        }
        match (&self.vectors, self.missing_vectors) {
            (Some(v), missing) => {
                let _ = write!(
                    s,
                    "Vectors: {} ({} dims, model {})",
                    v.count, v.dim, v.model_id
                );
                match missing {
                    Some(0) | None => s.push('\n'),
                    Some(m) => {
                        let _ = writeln!(s, "; {m} chunk(s) without one until the next embed");
                    }
                }
            }
            (None, _) => {
                s.push_str("Vectors: none (search ranks by words only until `mindex embed` runs)\n")
            }
        }
        for d in &self.damaged {
            let _ = writeln!(s, "Damaged index file: {d} (run `mindex update --rebuild`)");
        }
        for w in &self.warnings {
            let _ = writeln!(s, "Warning: {}: {}", w.path, w.message);
        }
        if self.not_shown > 0 {
            let _ = writeln!(s, "Not shown: {} ({})", self.not_shown, self.note);
        }
        s
    }
}

/// A decision record the vault holds ([`super::Scoped::decisions_about`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DecisionRef {
    /// Vault-relative path.
    pub path: String,
    /// The file name without `.md` (what a wikilink names).
    pub label: String,
    /// Frontmatter `status` (`proposed`, `accepted`, `superseded`, ...).
    pub status: Option<String>,
}
