//! The index state (`state.json` in the index folder, and its journal `state.log`): what was
//! indexed, from which file version, and what the last update did. Written after the tantivy
//! commit, so a crash between the two only makes the next update redo some work.
//!
//! A change to a few notes must not rewrite the state of all of them (at 10,000 notes the file
//! is 6 MB): [`IndexState::save_changes`] appends one JSON line per changed note (and one for
//! the update's summary) to the journal, fsynced, and only rewrites `state.json` (temp file,
//! fsync, rename, then the journal removed) when the journal outgrows a quarter of it. Every
//! journal line carries the generation of the `state.json` it applies to, so lines left from
//! before a rewrite are ignored, whichever order a reader meets the two files in; a line cut
//! short by a crash is ignored, and cut off before the next append.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkOptions;
use crate::error::{Error, Result};
use crate::report::{Changes, Warning};

/// Bumped whenever the index layout or what goes into it changes; a mismatch rebuilds.
pub(crate) const FORMAT_VERSION: u32 = 5;

/// What the index holds for one note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NoteState {
    /// xxh3-128 of the file bytes, hex.
    pub hash: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub chunks: u32,
    pub title: String,
    /// Frontmatter aliases (for link resolution).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Wikilink and embed targets as written, unique case-insensitively, first seen first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// Problems found when the note was parsed (re-reported by every update until fixed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// A file that was looked at and skipped (binary, too large, unreadable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SkippedState {
    pub size: u64,
    pub mtime_ns: i64,
    pub warning: Warning,
}

/// Summary of the last update, for `status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastUpdate {
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_unix_ms: u64,
    /// How long it took.
    pub elapsed_ms: u64,
    /// What it changed.
    pub changes: Changes,
    /// Whether it rebuilt the whole index.
    pub rebuilt: bool,
    /// How many warnings it reported.
    pub warnings: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct IndexState {
    pub format: u32,
    pub chunking: ChunkOptions,
    pub max_note_bytes: u64,
    /// When the walk of the last update started (ns since epoch): files with an mtime at or after
    /// it may have changed again within the clock's resolution and are re-hashed next time.
    pub scanned_at_ns: i64,
    pub notes: BTreeMap<String, NoteState>,
    #[serde(default)]
    pub skipped: BTreeMap<String, SkippedState>,
    #[serde(default)]
    pub last_update: Option<LastUpdate>,
    /// Names this `state.json`: journal lines carry it (a fresh one at every rewrite).
    #[serde(default)]
    pub generation: u64,
}

/// One journal line: a note's new state (`None`: gone), or the summary of an update.
#[derive(Debug, Serialize, Deserialize)]
struct JournalLine {
    g: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<NoteState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    skipped: Option<SkippedState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<Summary>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Summary {
    scanned_at_ns: i64,
    last_update: Option<LastUpdate>,
}

/// The journal beside a state file.
pub(crate) fn journal_path(state: &Path) -> PathBuf {
    state.with_extension("log")
}

/// The journal is folded into `state.json` past this share of its size (and this floor).
const JOURNAL_SHARE: u64 = 4;
const JOURNAL_FLOOR: u64 = 256 * 1024;

/// (inode, length, mtime) of a file, to notice it was replaced while being read.
fn identity(path: &Path) -> Option<(u64, u64, Option<std::time::SystemTime>)> {
    let m = fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((ino, m.len(), m.modified().ok()))
}

fn new_generation() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (t ^ ((std::process::id() as u64) << 40)).max(1)
}

impl IndexState {
    pub fn new(chunking: ChunkOptions, max_note_bytes: u64) -> Self {
        IndexState {
            format: FORMAT_VERSION,
            chunking,
            max_note_bytes,
            scanned_at_ns: 0,
            notes: BTreeMap::new(),
            skipped: BTreeMap::new(),
            last_update: None,
            generation: 0,
        }
    }

    /// Loads the state (`state.json`, then its journal); `Ok(None)` when there is none yet.
    pub fn load(path: &Path) -> Result<Option<Self>> {
        let journal = journal_path(path);
        let mut tries = 0;
        loop {
            let before = identity(path);
            let mut state: IndexState = match fs::read(path) {
                Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt {
                    path: path.to_path_buf(),
                    detail: e.to_string(),
                })?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Error::io(path, e)),
            };
            let log = match fs::read(&journal) {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(Error::io(&journal, e)),
            };
            // Rewritten meanwhile: the journal read may belong to the newer file.
            tries += 1;
            if identity(path) != before && tries < 5 {
                continue;
            }
            state.replay(&log, &journal)?;
            return Ok(Some(state));
        }
    }

    /// Applies the complete journal lines of this generation.
    fn replay(&mut self, log: &[u8], journal: &Path) -> Result<()> {
        let complete = match log.iter().rposition(|&b| b == b'\n') {
            Some(end) => &log[..=end],
            None => return Ok(()),
        };
        for (n, line) in complete.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let l: JournalLine = serde_json::from_slice(line).map_err(|e| Error::Corrupt {
                path: journal.to_path_buf(),
                detail: format!("line {}: {e}", n + 1),
            })?;
            if l.g != self.generation {
                continue;
            }
            if let Some(rel) = l.rel {
                match l.note {
                    Some(ns) => self.notes.insert(rel.clone(), ns),
                    None => self.notes.remove(&rel),
                };
                match l.skipped {
                    Some(sk) => self.skipped.insert(rel, sk),
                    None => self.skipped.remove(&rel),
                };
            }
            if let Some(sum) = l.summary {
                self.scanned_at_ns = sum.scanned_at_ns;
                self.last_update = sum.last_update;
            }
        }
        Ok(())
    }

    /// Writes the whole state atomically under a new generation, then drops the journal.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        self.generation = new_generation();
        let bytes = serde_json::to_vec(self).map_err(|e| Error::invalid("state", e.to_string()))?;
        crate::atomic::write_replace(path, &bytes)?;
        let journal = journal_path(path);
        match fs::remove_file(&journal) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(&journal, e)),
        }
    }

    /// Saves a state that differs from the one on disk (of generation `self.generation`) only
    /// in the notes `rels` and, when `summary`, the update summary (`scanned_at_ns`,
    /// `last_update`): appends their lines to the journal, or rewrites the whole file when the
    /// journal would outgrow its share. Callers hold the index's writer lock, so no other
    /// writer appends meanwhile.
    pub fn save_changes<'a>(
        &mut self,
        path: &Path,
        rels: impl IntoIterator<Item = &'a str>,
        summary: bool,
    ) -> Result<()> {
        let base = match fs::metadata(path) {
            Ok(m) if self.generation != 0 => m.len(),
            _ => return self.save(path),
        };
        let mut bytes = Vec::new();
        let mut push = |line: &JournalLine| -> Result<()> {
            serde_json::to_writer(&mut bytes, line)
                .map_err(|e| Error::invalid("state", e.to_string()))?;
            bytes.push(b'\n');
            Ok(())
        };
        for rel in rels {
            push(&JournalLine {
                g: self.generation,
                rel: Some(rel.to_string()),
                note: self.notes.get(rel).cloned(),
                skipped: self.skipped.get(rel).cloned(),
                summary: None,
            })?;
        }
        if summary {
            push(&JournalLine {
                g: self.generation,
                rel: None,
                note: None,
                skipped: None,
                summary: Some(Summary {
                    scanned_at_ns: self.scanned_at_ns,
                    last_update: self.last_update.clone(),
                }),
            })?;
        }
        if bytes.is_empty() {
            return Ok(());
        }
        let journal = journal_path(path);
        let mut f = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&journal)
            .map_err(|e| Error::io(&journal, e))?;
        let len = f.metadata().map_err(|e| Error::io(&journal, e))?.len();
        if len + bytes.len() as u64 > JOURNAL_FLOOR.max(base / JOURNAL_SHARE) {
            drop(f);
            return self.save(path);
        }
        let io = |e| Error::io(&journal, e);
        // A line cut short by a crash is dropped before anything follows it.
        if len > 0 {
            let mut last = [0u8; 1];
            f.seek(SeekFrom::Start(len - 1)).map_err(io)?;
            f.read_exact(&mut last).map_err(io)?;
            if last[0] != b'\n' {
                let mut all = Vec::new();
                f.seek(SeekFrom::Start(0)).map_err(io)?;
                f.read_to_end(&mut all).map_err(io)?;
                let keep = all.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                f.set_len(keep as u64).map_err(io)?;
            }
        }
        f.seek(SeekFrom::End(0)).map_err(io)?;
        f.write_all(&bytes).map_err(io)?;
        f.sync_data().map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(hash: &str) -> NoteState {
        NoteState {
            hash: hash.into(),
            size: 1,
            mtime_ns: 1,
            chunks: 1,
            title: hash.into(),
            aliases: Vec::new(),
            links: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn base(dir: &Path, n: usize) -> (PathBuf, IndexState) {
        let path = dir.join("state.json");
        let mut s = IndexState::new(ChunkOptions::default(), 1 << 20);
        for i in 0..n {
            s.notes
                .insert(format!("n{i:05}.md"), note(&format!("h{i}")));
        }
        s.save(&path).unwrap();
        (path, s)
    }

    #[test]
    fn changes_go_to_the_journal_and_come_back_on_load() {
        let d = tempfile::tempdir().unwrap();
        let (path, mut s) = base(d.path(), 2_000);
        let size = fs::metadata(&path).unwrap().len();
        s.notes.insert("n00001.md".into(), note("changed"));
        s.notes.remove("n00002.md");
        s.notes.insert("new.md".into(), note("new"));
        s.scanned_at_ns = 42;
        s.save_changes(&path, ["n00001.md", "n00002.md", "new.md"], true)
            .unwrap();
        // state.json is untouched; the journal holds four lines.
        assert_eq!(fs::metadata(&path).unwrap().len(), size);
        let log = fs::read_to_string(journal_path(&path)).unwrap();
        assert_eq!(log.lines().count(), 4);
        let back = IndexState::load(&path).unwrap().unwrap();
        assert_eq!(back.notes, s.notes);
        assert_eq!(back.scanned_at_ns, 42);
    }

    #[test]
    fn a_cut_line_is_ignored_and_dropped_before_the_next_append() {
        let d = tempfile::tempdir().unwrap();
        let (path, mut s) = base(d.path(), 100);
        s.notes.insert("a.md".into(), note("a"));
        s.save_changes(&path, ["a.md"], false).unwrap();
        let journal = journal_path(&path);
        let mut f = fs::OpenOptions::new().append(true).open(&journal).unwrap();
        f.write_all(br#"{"g":1,"rel":"b.md","no"#).unwrap();
        drop(f);
        let back = IndexState::load(&path).unwrap().unwrap();
        assert!(back.notes.contains_key("a.md") && !back.notes.contains_key("b.md"));
        s.notes.insert("c.md".into(), note("c"));
        s.save_changes(&path, ["c.md"], false).unwrap();
        let back = IndexState::load(&path).unwrap().unwrap();
        assert_eq!(back.notes, s.notes);
        assert!(
            !fs::read_to_string(&journal)
                .unwrap()
                .contains(r#""rel":"b.md""#)
        );
    }

    #[test]
    fn a_rewrite_folds_the_journal_in_and_stale_lines_never_apply() {
        let d = tempfile::tempdir().unwrap();
        let (path, mut s) = base(d.path(), 10);
        let journal = journal_path(&path);
        let first = s.generation;
        s.notes.insert("a.md".into(), note("old"));
        s.save_changes(&path, ["a.md"], false).unwrap();
        let stale = fs::read(&journal).unwrap();
        // Past the journal's share the whole file is rewritten and the journal goes.
        for i in 0..3_000 {
            s.notes.insert(format!("bulk{i}.md"), note("x"));
        }
        let rels: Vec<String> = (0..3_000).map(|i| format!("bulk{i}.md")).collect();
        s.notes.insert("a.md".into(), note("new"));
        s.save_changes(&path, rels.iter().map(String::as_str), false)
            .unwrap();
        assert!(!journal.exists());
        assert_ne!(s.generation, first);
        // A journal of the previous generation (a reader racing the rewrite) changes nothing.
        fs::write(&journal, stale).unwrap();
        let back = IndexState::load(&path).unwrap().unwrap();
        assert_eq!(back.notes["a.md"].hash, "new");
        assert_eq!(back.notes.len(), s.notes.len());
    }

    #[test]
    fn a_garbled_journal_line_is_named() {
        let d = tempfile::tempdir().unwrap();
        let (path, _) = base(d.path(), 3);
        fs::write(journal_path(&path), "{not json}\n").unwrap();
        let err = IndexState::load(&path).unwrap_err().to_string();
        assert!(err.contains("state.log") && err.contains("line 1"), "{err}");
    }
}
