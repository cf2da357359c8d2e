//! Reading the vault as its owner: `search` (BM25), `resolve`, `get`, `multi_get`, `status`.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::update::read_note_file;
use super::{Surface, Vault, VectorStatus};
use crate::error::{Error, Result};
use crate::lexical::{Hit, Lexical, SearchOptions};
use crate::note::parse_note;
use crate::report::{Changes, Warning, WarningKind};
use crate::state::{LastUpdate, StateView};
use crate::walk::{IgnoreFilters, NoteFile, walk_vault};

/// The text of a note (or a range of its lines), read from disk.
#[derive(Debug, Clone, Serialize)]
pub struct NoteText {
    /// Vault-relative path.
    pub path: String,
    /// The note's title.
    pub title: String,
    /// Tags from frontmatter and body.
    pub tags: Vec<String>,
    /// Frontmatter as JSON.
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// The selected lines, joined with `\n`.
    pub text: String,
    /// First line returned (1-based).
    pub line_start: usize,
    /// Last line returned (1-based, inclusive; `line_start - 1` when nothing was selected).
    pub line_end: usize,
    /// Number of lines in the file.
    pub total_lines: usize,
    /// Problems found while reading (invalid UTF-8, malformed frontmatter).
    pub warnings: Vec<Warning>,
}

/// One entry of [`Vault::multi_get`].
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum MultiGetItem {
    /// The note was read.
    Ok(NoteText),
    /// The note was skipped.
    Skipped {
        /// Vault-relative path.
        path: String,
        /// Why.
        reason: String,
    },
}

impl MultiGetItem {
    /// The line that opens this item in a text answer: `==> path <==`, with why a skipped note
    /// was skipped. Every surface prints the same line (the CLI may only style it).
    pub fn header(&self) -> String {
        match self {
            MultiGetItem::Ok(n) => format!("==> {} <==", n.path),
            MultiGetItem::Skipped { path, reason } => format!("==> {path} <== skipped: {reason}"),
        }
    }

    /// For a note served in part, the line saying which lines were shown and how to read on,
    /// in `surface`'s own terms; `None` for a whole note or a skipped one.
    pub fn continuation(&self, surface: Surface) -> Option<String> {
        let MultiGetItem::Ok(n) = self else {
            return None;
        };
        if n.line_end >= n.total_lines {
            return None;
        }
        let next = n.line_end + 1;
        let how = match surface {
            Surface::Cli => format!("run `mindex get '{}:{next}'`", n.path),
            Surface::Python => format!("call get(\"{}:{next}\")", n.path),
            Surface::Mcp | Surface::C => format!("call get with from_line={next}"),
        };
        Some(format!(
            "[mindex: lines {}-{} of {} shown; {how} for the rest]",
            n.line_start, n.line_end, n.total_lines
        ))
    }

    /// The item as text on `surface`: [`MultiGetItem::header`], the note's text and
    /// [`MultiGetItem::continuation`], each ending its line, then a blank line.
    pub fn to_text(&self, surface: Surface) -> String {
        let mut s = self.header();
        s.push('\n');
        if let MultiGetItem::Ok(n) = self {
            s.push_str(&n.text);
            if !n.text.ends_with('\n') {
                s.push('\n');
            }
        }
        if let Some(c) = self.continuation(surface) {
            s.push_str(&c);
            s.push('\n');
        }
        s.push('\n');
        s
    }
}

/// How much [`Vault::status_with`] checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StatusOptions {
    /// Read every index file and verify its checksum (proportional to the index size: about a
    /// second per GiB). Without it, status only looks for missing or empty index files.
    pub verify: bool,
}

/// What [`Vault::status`] reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// The vault root.
    pub vault: PathBuf,
    /// The index folder.
    pub index_dir: PathBuf,
    /// Whether an index exists.
    pub indexed: bool,
    /// Notes in the index.
    pub notes: usize,
    /// Chunks in the index.
    pub chunks: usize,
    /// Bytes on disk used by the index folder.
    pub index_bytes: u64,
    /// The last update, if any.
    pub last_update: Option<LastUpdate>,
    /// Changes on disk since the last update, judged by size and mtime only (no hashing): a
    /// touched but unchanged note shows here and is recognised as unchanged by `update`.
    pub pending: Changes,
    /// Problems currently known (skipped files, malformed frontmatter).
    pub warnings: Vec<Warning>,
    /// The vector store, if `embed` ever ran.
    pub vectors: Option<VectorStatus>,
    /// Index files that are missing or empty (or, when [`Status::verified`], fail their
    /// checksum), or why the index cannot be read at all; empty when the index is sound.
    /// Anything here means `mindex update --rebuild`.
    pub damaged: Vec<String>,
    /// Whether the index was written by another version of mindex (not damaged: the next
    /// `mindex update` rebuilds it).
    pub outdated: bool,
    /// Whether every index file was read to verify its checksum ([`StatusOptions::verify`]);
    /// otherwise only missing and empty files were looked for, which costs no read.
    pub verified: bool,
    /// Distinct chunks of the index without a vector for the store's model (`None` without
    /// vectors or without an index): they rank only lexically until `embed` (or `watch`) runs.
    pub missing_vectors: Option<usize>,
    /// mindex binaries the vault's agent configs call that cannot run here (moved, removed):
    /// their hooks and MCP server fail until `mindex init --merge` repairs them.
    pub stale_binaries: Vec<crate::init::StaleBinary>,
}

/// A note as the read tools serve it (all of it, or `max_lines` lines from `from_line`, 1-based),
/// parsed from `text`; `warning` is a problem found while reading, listed before the parse's.
pub(crate) fn note_text(
    rel: String,
    text: &str,
    warning: Option<Warning>,
    from_line: Option<usize>,
    max_lines: Option<usize>,
) -> NoteText {
    let parsed = parse_note(&rel, text);
    let mut warnings: Vec<Warning> = warning.into_iter().collect();
    warnings.extend(parsed.warnings.into_iter().map(|message| Warning {
        path: rel.clone(),
        kind: WarningKind::Frontmatter,
        message,
    }));
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let first = (from_line.unwrap_or(1).max(1) - 1).min(total);
    let last = first
        .saturating_add(max_lines.unwrap_or(usize::MAX))
        .min(total);
    let note = parsed.note;
    NoteText {
        path: rel,
        title: note.title,
        tags: note.tags,
        frontmatter: note.frontmatter,
        text: lines[first..last].join("\n"),
        line_start: first + 1,
        line_end: last,
        total_lines: total,
        warnings,
    }
}

pub(super) fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        if let Ok(entries) = fs::read_dir(&d) {
            for e in entries.flatten() {
                match e.metadata() {
                    Ok(m) if m.is_dir() => stack.push(e.path()),
                    Ok(m) => total += m.len(),
                    Err(_) => {}
                }
            }
        }
    }
    total
}

impl Vault {
    /// BM25 search; the best chunk per note unless `opts.all_chunks`.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        self.lexical()?.search(query, opts)
    }

    /// Checks a vault-relative path and returns its absolute path when it names a visible note.
    pub(super) fn visible_note(&self, rel: &str, filters: &IgnoreFilters) -> Option<PathBuf> {
        if rel.split('/').any(|s| s.is_empty() || s.starts_with('.')) || filters.is_ignored(rel) {
            return None;
        }
        let abs = self.root.join(rel);
        let canon = fs::canonicalize(&abs).ok()?;
        if !canon.starts_with(&self.root) || canon.starts_with(&self.index_dir) || !canon.is_file()
        {
            return None;
        }
        Some(abs)
    }

    /// Resolves what a user typed (`work/Note.md`, `work/Note`, `Note`, a loose or URI form) to
    /// a vault-relative path among the vault's notes ([`crate::resolve`] has the rules).
    pub fn resolve(&self, spec: &str) -> Result<String> {
        let mut warnings = Vec::new();
        let filters = IgnoreFilters::load(&self.root, &mut warnings);
        crate::resolve::resolve_among(
            spec,
            "path",
            |cand| self.visible_note(cand, &filters).is_some(),
            || {
                let (files, _) = walk_vault(&self.root, Some(&self.index_dir))?;
                Ok(files.into_iter().map(|f| f.rel).collect())
            },
        )
    }

    /// Reads a note from disk: all of it, or `max_lines` lines from `from_line` (1-based).
    pub fn get(
        &self,
        spec: &str,
        from_line: Option<usize>,
        max_lines: Option<usize>,
    ) -> Result<NoteText> {
        let rel = self.resolve(spec)?;
        self.read_note(rel, from_line, max_lines)
    }

    /// [`Vault::get`] for a path [`Vault::resolve`] already returned.
    pub(super) fn read_note(
        &self,
        rel: String,
        from_line: Option<usize>,
        max_lines: Option<usize>,
    ) -> Result<NoteText> {
        let abs = self.root.join(&rel);
        let decoded =
            read_note_file(&rel, &abs, self.options.max_note_bytes).map_err(|w| match w.kind {
                WarningKind::Unreadable => Error::io(&abs, std::io::Error::other(w.message)),
                _ => Error::invalid("path", w.to_string()),
            })?;
        Ok(note_text(
            rel,
            &decoded.text,
            decoded.warning,
            from_line,
            max_lines,
        ))
    }

    /// Reads every note matching `patterns`: comma-separated globs (`work/**/*.md`) or note paths.
    /// Notes over `max_bytes` are listed as skipped.
    pub fn multi_get(&self, patterns: &str, max_bytes: Option<u64>) -> Result<Vec<MultiGetItem>> {
        let mut paths: Vec<String> = Vec::new();
        let mut files: Option<Vec<NoteFile>> = None;
        for pat in patterns.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if pat.contains(['*', '?', '[', '{']) {
                let glob = globset::GlobBuilder::new(pat)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| Error::invalid("pattern", format!("{pat:?}: {e}")))?
                    .compile_matcher();
                if files.is_none() {
                    files = Some(walk_vault(&self.root, Some(&self.index_dir))?.0);
                }
                for f in files.as_deref().unwrap_or_default() {
                    if glob.is_match(&f.rel) {
                        paths.push(f.rel.clone());
                    }
                }
            } else {
                paths.push(self.resolve(pat)?);
            }
        }
        if paths.is_empty() && patterns.trim().is_empty() {
            return Err(Error::invalid("pattern", "empty pattern"));
        }
        let mut seen = HashSet::new();
        paths.retain(|p| seen.insert(p.clone()));
        let limit = max_bytes.unwrap_or(u64::MAX);
        let mut out = Vec::with_capacity(paths.len());
        for p in paths {
            let size = fs::metadata(self.root.join(&p))
                .map(|m| m.len())
                .unwrap_or(0);
            if size > limit {
                out.push(MultiGetItem::Skipped {
                    path: p,
                    reason: format!("{size} bytes is over --max-bytes {limit}"),
                });
                continue;
            }
            // Every path here is already resolved: globs matched walked notes, names went through
            // `resolve`.
            match self.read_note(p.clone(), None, None) {
                Ok(t) => out.push(MultiGetItem::Ok(t)),
                Err(e) => out.push(MultiGetItem::Skipped {
                    path: p,
                    reason: e.to_string(),
                }),
            }
        }
        Ok(out)
    }

    /// Reports what is indexed, what the last update did, and what changed on disk since;
    /// index files are checked for presence only (see [`Vault::status_with`]).
    pub fn status(&self) -> Result<Status> {
        self.status_with(&StatusOptions::default())
    }

    /// [`Vault::status`], with [`StatusOptions::verify`] reading every index file to verify
    /// its checksum.
    pub fn status_with(&self, opts: &StatusOptions) -> Result<Status> {
        let view = match StateView::open(&self.state_path()) {
            Ok(s) => s,
            Err(Error::Corrupt { .. }) => None,
            Err(e) => return Err(e),
        };
        let indexed = view.is_some() && self.lexical_dir().join("meta.json").exists();
        let (files, walk_warnings) = walk_vault(&self.root, Some(&self.index_dir))?;
        let mut warnings = walk_warnings;
        let (chunking, max) = (self.options.chunking, self.options.max_note_bytes);
        let empty = StateView::empty(&self.state_path(), chunking, max);
        let state = view.as_ref().unwrap_or(&empty);
        // What an update would read: files whose size or mtime moved, new files, gone files.
        let plan = super::update::plan(state, &files, false, false, None);
        warnings.extend(plan.warnings);
        let mut pending = Changes::default();
        let (mut notes, mut chunks) = (plan.clean_notes, plan.clean_chunks);
        // A file still in the state (changed or gone) counts, and keeps its warnings, until the
        // next update; it is reported as pending when it is a note.
        let mut in_state = |o| {
            let st = state.stat(o);
            if st.warned
                && let Ok(e) = state.entry(o)
            {
                warnings.extend(e.warnings());
            }
            if !st.skipped {
                notes += 1;
                chunks += st.chunks as usize;
            }
            !st.skipped
        };
        for (f, o) in &plan.to_read {
            match o {
                None => pending.added.push(f.rel.clone()),
                Some(o) if in_state(*o) => pending.modified.push(f.rel.clone()),
                Some(_) => {}
            }
        }
        for (rel, o) in &plan.removed {
            if in_state(*o) {
                pending.removed.push(rel.to_string());
            }
        }
        warnings.sort_by(|a, b| a.path.cmp(&b.path));
        let mut outdated = false;
        let damaged = if indexed {
            let check = |l: Lexical| {
                if opts.verify {
                    l.damaged_files()
                } else {
                    l.missing_files()
                }
            };
            match Lexical::open(&self.lexical_dir()).and_then(check) {
                Ok(files) => files,
                Err(Error::Corrupt { detail, .. }) if detail == crate::lexical::OTHER_VERSION => {
                    outdated = true;
                    Vec::new()
                }
                Err(e) => vec![e.to_string()],
            }
        } else {
            Vec::new()
        };
        let missing_vectors = if indexed && damaged.is_empty() && !outdated {
            self.vectors().coverage().ok().flatten().map(|c| c.missing)
        } else {
            None
        };
        Ok(Status {
            damaged,
            outdated,
            verified: opts.verify && indexed,
            missing_vectors,
            vault: self.root.clone(),
            index_dir: self.index_dir.clone(),
            indexed,
            notes,
            chunks,
            index_bytes: if self.index_dir.exists() {
                dir_size(&self.index_dir)
            } else {
                0
            },
            last_update: view.and_then(|s| s.last_update().cloned()),
            pending,
            warnings,
            vectors: self.vectors().status(),
            stale_binaries: crate::init::stale_binaries(&self.root),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(text: &str, line_end: usize, total_lines: usize) -> MultiGetItem {
        MultiGetItem::Ok(NoteText {
            path: "work/A.md".into(),
            title: "A".into(),
            tags: Vec::new(),
            frontmatter: serde_json::Map::new(),
            text: text.into(),
            line_start: 1,
            line_end,
            total_lines,
            warnings: Vec::new(),
        })
    }

    #[test]
    fn every_surface_gets_the_same_header_and_its_own_way_to_read_on() {
        let whole = part("one\ntwo", 2, 2);
        assert_eq!(
            whole.to_text(Surface::Mcp),
            "==> work/A.md <==\none\ntwo\n\n"
        );
        assert_eq!(whole.to_text(Surface::Cli), whole.to_text(Surface::Mcp));
        let cut = part("one\n", 1, 9);
        assert_eq!(
            cut.to_text(Surface::Mcp),
            "==> work/A.md <==\none\n[mindex: lines 1-1 of 9 shown; call get with from_line=2 for the rest]\n\n"
        );
        assert!(
            cut.continuation(Surface::Cli)
                .unwrap()
                .contains("run `mindex get 'work/A.md:2'`")
        );
        let skipped = MultiGetItem::Skipped {
            path: "work/B.md".into(),
            reason: "larger than 10 bytes".into(),
        };
        assert_eq!(
            skipped.to_text(Surface::Cli),
            "==> work/B.md <== skipped: larger than 10 bytes\n\n"
        );
        assert_eq!(skipped.continuation(Surface::Mcp), None);
    }
}
