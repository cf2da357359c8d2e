//! The index state (`state.bin` in the index folder, and its journal `state.log`): what was
//! indexed, from which file version, and what the last update did. Written after the tantivy
//! commit, so a crash between the two only makes the next update redo some work.
//!
//! Its cost must not grow with the vault on the hot paths (a no-op update, a one-note update, a
//! `remember`), so:
//! - `state.bin` is read through a memory map as a [`StateView`]: a small header, then one
//!   fixed-size record per file, sorted by path (size, mtime, chunk count, flags, and where its
//!   path and its details are), then the paths, then each file's details as JSON (title,
//!   aliases, links, hash, warnings). Deciding what changed touches only the records and paths;
//!   the details of a file are parsed only when it changed or carries warnings.
//! - A change to a few notes appends one JSON line per changed note (and one for the update's
//!   summary) to the journal, fsynced, and only rewrites `state.bin` (temp file, fsync, rename,
//!   then the journal removed) when the journal outgrows a quarter of it. Every journal line
//!   carries the generation of the `state.bin` it applies to, so lines left from before a
//!   rewrite are ignored, whichever order a reader meets the two files in; a line cut short by
//!   a crash is ignored, and cut off before the next append.

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkOptions;
use crate::error::{Error, Result};
use crate::report::{ChangeCounts, Changes, Warning};

/// Bumped whenever the index layout or what goes into it changes; a mismatch rebuilds.
pub(crate) const FORMAT_VERSION: u32 = 9;

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

/// The paths of each kind a [`LastUpdate`] keeps. A full build changes every note: listing them
/// all would make the state's header grow with the vault, and every update parses it.
pub const LAST_UPDATE_PATHS: usize = 100;

impl LastUpdate {
    /// The summary of an update that changed `changes` (its lists cut to [`LAST_UPDATE_PATHS`]).
    pub(crate) fn new(
        finished_unix_ms: u64,
        elapsed_ms: u64,
        changes: &Changes,
        rebuilt: bool,
        warnings: usize,
    ) -> LastUpdate {
        let listed = changes.first(LAST_UPDATE_PATHS);
        let counts = (listed.len() < changes.len()).then(|| changes.counts());
        LastUpdate {
            finished_unix_ms,
            elapsed_ms,
            changes: listed,
            counts,
            rebuilt,
            warnings,
        }
    }

    /// How many notes of each kind it changed (listed or not).
    pub fn counts(&self) -> ChangeCounts {
        self.counts.unwrap_or_else(|| self.changes.counts())
    }
}

/// Summary of the last update, for `status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastUpdate {
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_unix_ms: u64,
    /// How long it took.
    pub elapsed_ms: u64,
    /// What it changed: at most `LAST_UPDATE_PATHS` paths of each kind (see `counts`).
    pub changes: Changes,
    /// How many notes of each kind it changed, when `changes` lists only the first ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<ChangeCounts>,
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

/// The state of one file: indexed as a note, or looked at and skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    Note(NoteState),
    Skipped(SkippedState),
}

impl Entry {
    fn stat(&self) -> Stat {
        match self {
            Entry::Note(n) => Stat {
                size: n.size,
                mtime_ns: n.mtime_ns,
                chunks: n.chunks,
                skipped: false,
                warned: !n.warnings.is_empty(),
            },
            Entry::Skipped(s) => Stat {
                size: s.size,
                mtime_ns: s.mtime_ns,
                chunks: 0,
                skipped: true,
                warned: true,
            },
        }
    }

    /// The warnings this file is re-reported with by every update until it is fixed.
    pub fn warnings(&self) -> Vec<Warning> {
        match self {
            Entry::Note(n) => n.warnings.clone(),
            Entry::Skipped(s) => vec![s.warning.clone()],
        }
    }
}

/// What deciding whether a file changed needs, read from its fixed-size record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub size: u64,
    pub mtime_ns: i64,
    pub chunks: u32,
    /// Looked at and skipped (not a note).
    pub skipped: bool,
    /// Carries warnings (always true for a skipped file).
    pub warned: bool,
}

/// One file of a [`StateView`]: a record of `state.bin`, or a journal line over it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Old<'a> {
    Base(usize),
    Journal(&'a Entry),
}

/// Everything in `state.bin` but the files.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Head {
    format: u32,
    chunking: ChunkOptions,
    max_note_bytes: u64,
    scanned_at_ns: i64,
    last_update: Option<LastUpdate>,
    generation: u64,
    count: usize,
}

const MAGIC: &[u8; 8] = b"MXSTATE\x01";
/// size u64 · mtime i64 · chunks u32 · flags u32 · path offset u64 · path length u32 ·
/// details length u32 · details offset u64.
const RECORD: usize = 48;
const FLAG_SKIPPED: u32 = 1;
const FLAG_WARNED: u32 = 2;

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4]))
}

/// A read view of the index state: `state.bin` memory-mapped, with its journal applied over
/// it. Opening it validates the records (bounds, UTF-8 paths, order) but parses no file's
/// details; [`StateView::entry`] parses one.
pub(crate) struct StateView {
    path: PathBuf,
    map: Option<memmap2::Mmap>,
    head: Head,
    /// Byte offsets of the records, the paths and the details.
    recs: usize,
    paths: usize,
    details: usize,
    /// Journal lines of this generation, last one per path (`None`: gone).
    overlay: BTreeMap<String, Option<Entry>>,
}

impl std::fmt::Debug for StateView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateView")
            .field("path", &self.path)
            .field("count", &self.head.count)
            .field("journal", &self.overlay.len())
            .finish_non_exhaustive()
    }
}

impl StateView {
    /// A view of no files (before the first update).
    pub fn empty(path: &Path, chunking: ChunkOptions, max_note_bytes: u64) -> Self {
        StateView {
            path: path.to_path_buf(),
            map: None,
            head: Head {
                format: FORMAT_VERSION,
                chunking,
                max_note_bytes,
                scanned_at_ns: 0,
                last_update: None,
                generation: 0,
                count: 0,
            },
            recs: 0,
            paths: 0,
            details: 0,
            overlay: BTreeMap::new(),
        }
    }

    /// Opens the state (`state.bin`, then its journal); `Ok(None)` when there is none yet.
    pub fn open(path: &Path) -> Result<Option<Self>> {
        let journal = journal_path(path);
        let mut tries = 0;
        loop {
            let before = identity(path);
            let file = match fs::File::open(path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Error::io(path, e)),
            };
            // SAFETY: `state.bin` is only ever replaced by a rename, never written in place, so
            // the mapped file does not change under the map.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
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
            let mut view = Self::parse(path, map)?;
            view.replay(&log, &journal)?;
            return Ok(Some(view));
        }
    }

    fn parse(path: &Path, map: memmap2::Mmap) -> Result<Self> {
        let bad = |detail: &str| corrupt(path, detail);
        let b: &[u8] = &map;
        if b.len() < 16 || &b[..8] != MAGIC {
            return Err(bad("not a mindex state file (wrong magic)"));
        }
        let head_len = usize::try_from(le_u64(b, 8)).map_err(|_| bad("header length"))?;
        let head_end = 16usize
            .checked_add(head_len)
            .filter(|&e| e <= b.len())
            .ok_or_else(|| bad("header runs past the end"))?;
        let head: Head = serde_json::from_slice(&b[16..head_end])
            .map_err(|e| corrupt(path, format!("header: {e}")))?;
        let recs = head_end;
        let paths = head
            .count
            .checked_mul(RECORD)
            .and_then(|n| n.checked_add(recs))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| bad("records run past the end"))?;
        let mut view = StateView {
            path: path.to_path_buf(),
            map: None,
            head,
            recs,
            paths,
            details: paths,
            overlay: BTreeMap::new(),
        };
        // The details follow the paths; every record must point inside its section, at a
        // UTF-8 path, in strictly increasing order.
        let mut paths_len = 0u64;
        for i in 0..view.head.count {
            let r = recs + i * RECORD;
            paths_len = paths_len.max(le_u64(b, r + 24) + le_u32(b, r + 32) as u64);
        }
        view.details = usize::try_from(paths_len)
            .ok()
            .and_then(|n| n.checked_add(paths))
            .filter(|&e| e <= b.len())
            .ok_or_else(|| bad("paths run past the end"))?;
        let details_len = (b.len() - view.details) as u64;
        let mut prev: Option<&str> = None;
        for i in 0..view.head.count {
            let r = recs + i * RECORD;
            let (off, len) = (le_u64(b, r + 40), le_u32(b, r + 36) as u64);
            if off.checked_add(len).is_none_or(|e| e > details_len) {
                return Err(bad("a record's details run past the end"));
            }
            let at = paths + le_u64(b, r + 24) as usize;
            let rel = std::str::from_utf8(&b[at..at + le_u32(b, r + 32) as usize])
                .map_err(|_| bad("a path is not UTF-8"))?;
            if prev.is_some_and(|p| p >= rel) {
                return Err(bad("paths out of order"));
            }
            prev = Some(rel);
        }
        view.map = Some(map);
        Ok(view)
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
            if l.g != self.head.generation {
                continue;
            }
            if let Some(rel) = l.rel {
                let entry = match (l.note, l.skipped) {
                    (Some(n), _) => Some(Entry::Note(n)),
                    (None, Some(s)) => Some(Entry::Skipped(s)),
                    (None, None) => None,
                };
                self.overlay.insert(rel, entry);
            }
            if let Some(sum) = l.summary {
                self.head.scanned_at_ns = sum.scanned_at_ns;
                self.head.last_update = sum.last_update;
            }
        }
        Ok(())
    }

    /// Whether the index was built with this format and these options (otherwise it is rebuilt).
    pub fn compatible(&self, chunking: &ChunkOptions, max_note_bytes: u64) -> bool {
        self.head.format == FORMAT_VERSION
            && self.head.chunking == *chunking
            && self.head.max_note_bytes == max_note_bytes
    }

    pub fn generation(&self) -> u64 {
        self.head.generation
    }

    /// When the walk of the last update started (see [`IndexState::scanned_at_ns`]).
    pub fn scanned_at_ns(&self) -> i64 {
        self.head.scanned_at_ns
    }

    pub fn last_update(&self) -> Option<&LastUpdate> {
        self.head.last_update.as_ref()
    }

    fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    fn rel(&self, i: usize) -> &str {
        let b = self.bytes();
        let r = self.recs + i * RECORD;
        let at = self.paths + le_u64(b, r + 24) as usize;
        std::str::from_utf8(&b[at..at + le_u32(b, r + 32) as usize]).unwrap_or_default()
    }

    /// The file's record (its size, mtime, chunks and flags), without parsing its details.
    pub fn stat(&self, old: Old<'_>) -> Stat {
        match old {
            Old::Journal(e) => e.stat(),
            Old::Base(i) => {
                let b = self.bytes();
                let r = self.recs + i * RECORD;
                let flags = le_u32(b, r + 20);
                Stat {
                    size: le_u64(b, r),
                    mtime_ns: le_u64(b, r + 8) as i64,
                    chunks: le_u32(b, r + 16),
                    skipped: flags & FLAG_SKIPPED != 0,
                    warned: flags & FLAG_WARNED != 0,
                }
            }
        }
    }

    /// The file's whole state, its details parsed.
    pub fn entry(&self, old: Old<'_>) -> Result<Entry> {
        let i = match old {
            Old::Journal(e) => return Ok(e.clone()),
            Old::Base(i) => i,
        };
        let b = self.bytes();
        let r = self.recs + i * RECORD;
        let at = self.details + le_u64(b, r + 40) as usize;
        let json = &b[at..at + le_u32(b, r + 36) as usize];
        let detail = |e: serde_json::Error| corrupt(&self.path, format!("{}: {e}", self.rel(i)));
        Ok(if le_u32(b, r + 20) & FLAG_SKIPPED != 0 {
            Entry::Skipped(serde_json::from_slice(json).map_err(detail)?)
        } else {
            Entry::Note(serde_json::from_slice(json).map_err(detail)?)
        })
    }

    /// The state of one file, by vault-relative path.
    pub fn get(&self, rel: &str) -> Option<Old<'_>> {
        if let Some(e) = self.overlay.get(rel) {
            return e.as_ref().map(Old::Journal);
        }
        let (mut lo, mut hi) = (0, self.head.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.rel(mid).cmp(rel) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(Old::Base(mid)),
            }
        }
        None
    }

    /// Every file, in path order (byte order, as the walk sorts).
    pub fn iter(&self) -> impl Iterator<Item = (&str, Old<'_>)> + '_ {
        let mut base = (0..self.head.count).peekable();
        let mut over = self.overlay.iter().peekable();
        std::iter::from_fn(move || {
            loop {
                let b = base.peek().map(|&i| (self.rel(i), i));
                let o = over.peek().map(|(k, v)| (k.as_str(), v));
                let take_over = match (b, o) {
                    (None, None) => return None,
                    (Some(_), None) => false,
                    (None, Some(_)) => true,
                    (Some((br, _)), Some((or, _))) => {
                        if br == or {
                            base.next();
                        }
                        br >= or
                    }
                };
                if take_over {
                    let (k, v) = over.next()?;
                    if let Some(e) = v {
                        return Some((k.as_str(), Old::Journal(e)));
                    }
                } else {
                    let i = base.next()?;
                    return Some((self.rel(i), Old::Base(i)));
                }
            }
        })
    }

    /// The whole state, every file's details parsed.
    pub fn into_full(self) -> Result<IndexState> {
        let mut s = IndexState::new(self.head.chunking, self.head.max_note_bytes);
        s.format = self.head.format;
        s.scanned_at_ns = self.head.scanned_at_ns;
        s.last_update = self.head.last_update.clone();
        s.generation = self.head.generation;
        for (rel, old) in self.iter() {
            match self.entry(old)? {
                Entry::Note(n) => {
                    s.notes.insert(rel.to_string(), n);
                }
                Entry::Skipped(k) => {
                    s.skipped.insert(rel.to_string(), k);
                }
            }
        }
        Ok(s)
    }
}

fn corrupt(path: &Path, detail: impl Into<String>) -> Error {
    Error::Corrupt {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

/// Records what the index now holds for the files `changes` names (`None`: gone) and, when
/// given, the update's summary, on top of the state of generation `generation` at `path`:
/// appends to the journal, or (when the journal would outgrow its share, or there is no state
/// yet) rewrites the whole state. Returns the generation now on disk. Callers hold the index's
/// writer lock.
pub(crate) fn record_changes(
    path: &Path,
    generation: u64,
    changes: &[(String, Option<Entry>)],
    summary: Option<(i64, Option<LastUpdate>)>,
) -> Result<u64> {
    let fold = |path: &Path| -> Result<u64> {
        let mut full = IndexState::load(path)?.ok_or_else(|| corrupt(path, "state is gone"))?;
        for (rel, e) in changes {
            full.notes.remove(rel);
            full.skipped.remove(rel);
            match e {
                Some(Entry::Note(n)) => {
                    full.notes.insert(rel.clone(), n.clone());
                }
                Some(Entry::Skipped(k)) => {
                    full.skipped.insert(rel.clone(), k.clone());
                }
                None => {}
            }
        }
        if let Some((scanned, last)) = &summary {
            full.scanned_at_ns = *scanned;
            full.last_update = last.clone();
        }
        full.save(path)?;
        Ok(full.generation)
    };
    let base = match fs::metadata(path) {
        Ok(m) if generation != 0 => m.len(),
        _ => return fold(path),
    };
    let mut bytes = Vec::new();
    let mut push = |line: &JournalLine| -> Result<()> {
        serde_json::to_writer(&mut bytes, line)
            .map_err(|e| Error::invalid("state", e.to_string()))?;
        bytes.push(b'\n');
        Ok(())
    };
    for (rel, e) in changes {
        let (note, skipped) = match e {
            Some(Entry::Note(n)) => (Some(n.clone()), None),
            Some(Entry::Skipped(k)) => (None, Some(k.clone())),
            None => (None, None),
        };
        push(&JournalLine {
            g: generation,
            rel: Some(rel.clone()),
            note,
            skipped,
            summary: None,
        })?;
    }
    if let Some((scanned_at_ns, last_update)) = &summary {
        push(&JournalLine {
            g: generation,
            rel: None,
            note: None,
            skipped: None,
            summary: Some(Summary {
                scanned_at_ns: *scanned_at_ns,
                last_update: last_update.clone(),
            }),
        })?;
    }
    if bytes.is_empty() {
        return Ok(generation);
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
        return fold(path);
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
    f.sync_data().map_err(io)?;
    Ok(generation)
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

    /// Loads the whole state (`state.bin`, then its journal), every file's details parsed;
    /// `Ok(None)` when there is none yet.
    pub fn load(path: &Path) -> Result<Option<Self>> {
        StateView::open(path)?.map(StateView::into_full).transpose()
    }

    /// Writes the whole state atomically under a new generation, then drops the journal.
    pub fn save(&mut self, path: &Path) -> Result<()> {
        self.generation = new_generation();
        // One entry per path, in path order (a path both noted and skipped is a note).
        let mut files: BTreeMap<&String, Entry> = self
            .skipped
            .iter()
            .map(|(k, v)| (k, Entry::Skipped(v.clone())))
            .collect();
        files.extend(self.notes.iter().map(|(k, v)| (k, Entry::Note(v.clone()))));
        let head = Head {
            format: self.format,
            chunking: self.chunking,
            max_note_bytes: self.max_note_bytes,
            scanned_at_ns: self.scanned_at_ns,
            last_update: self.last_update.clone(),
            generation: self.generation,
            count: files.len(),
        };
        let head_bytes =
            serde_json::to_vec(&head).map_err(|e| Error::invalid("state", e.to_string()))?;
        let mut recs = Vec::with_capacity(files.len() * RECORD);
        let mut paths = Vec::new();
        let mut details = Vec::new();
        for (rel, e) in &files {
            let st = e.stat();
            let d0 = details.len();
            match e {
                Entry::Note(n) => serde_json::to_writer(&mut details, n),
                Entry::Skipped(s) => serde_json::to_writer(&mut details, s),
            }
            .map_err(|e| Error::invalid("state", e.to_string()))?;
            let flags =
                if st.skipped { FLAG_SKIPPED } else { 0 } | if st.warned { FLAG_WARNED } else { 0 };
            recs.extend_from_slice(&st.size.to_le_bytes());
            recs.extend_from_slice(&st.mtime_ns.to_le_bytes());
            recs.extend_from_slice(&st.chunks.to_le_bytes());
            recs.extend_from_slice(&flags.to_le_bytes());
            recs.extend_from_slice(&(paths.len() as u64).to_le_bytes());
            recs.extend_from_slice(&(rel.len() as u32).to_le_bytes());
            recs.extend_from_slice(&((details.len() - d0) as u32).to_le_bytes());
            recs.extend_from_slice(&(d0 as u64).to_le_bytes());
            paths.extend_from_slice(rel.as_bytes());
        }
        let mut bytes =
            Vec::with_capacity(16 + head_bytes.len() + recs.len() + paths.len() + details.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(head_bytes.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&head_bytes);
        bytes.extend_from_slice(&recs);
        bytes.extend_from_slice(&paths);
        bytes.extend_from_slice(&details);
        crate::atomic::write_replace(path, &bytes)?;
        let journal = journal_path(path);
        match fs::remove_file(&journal) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::io(&journal, e)),
        }
    }

    /// Saves a state that differs from the one on disk (of generation `self.generation`) only
    /// in the files `rels` and, when `summary`, the update summary (`scanned_at_ns`,
    /// `last_update`); see [`record_changes`].
    #[cfg(test)]
    pub fn save_changes<'a>(
        &mut self,
        path: &Path,
        rels: impl IntoIterator<Item = &'a str>,
        summary: bool,
    ) -> Result<()> {
        let changes: Vec<(String, Option<Entry>)> = rels
            .into_iter()
            .map(|rel| {
                let e = match (self.notes.get(rel), self.skipped.get(rel)) {
                    (Some(n), _) => Some(Entry::Note(n.clone())),
                    (None, Some(s)) => Some(Entry::Skipped(s.clone())),
                    (None, None) => None,
                };
                (rel.to_string(), e)
            })
            .collect();
        let summary = summary.then(|| (self.scanned_at_ns, self.last_update.clone()));
        self.generation = record_changes(path, self.generation, &changes, summary)?;
        Ok(())
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
        let mut rels: Vec<String> = (0..3_000).map(|i| format!("bulk{i}.md")).collect();
        rels.push("a.md".into());
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
    fn the_view_merges_the_journal_and_parses_details_on_demand() {
        let d = tempfile::tempdir().unwrap();
        let (path, mut s) = base(d.path(), 50);
        let warning = Warning {
            path: "bin.md".into(),
            kind: crate::report::WarningKind::Binary,
            message: "looks binary".into(),
        };
        s.skipped.insert(
            "bin.md".into(),
            SkippedState {
                size: 3,
                mtime_ns: 4,
                warning: warning.clone(),
            },
        );
        s.save(&path).unwrap();
        s.notes.insert("n00003.md".into(), note("changed"));
        s.notes.remove("n00004.md");
        s.notes.insert("a.md".into(), note("first"));
        s.notes.insert("zz.md".into(), note("last"));
        s.save_changes(&path, ["n00003.md", "n00004.md", "a.md", "zz.md"], false)
            .unwrap();
        let v = StateView::open(&path).unwrap().unwrap();
        let rels: Vec<&str> = v.iter().map(|(r, _)| r).collect();
        let mut expected: Vec<&str> = s
            .notes
            .keys()
            .chain(s.skipped.keys())
            .map(String::as_str)
            .collect();
        expected.sort();
        assert_eq!(rels, expected);
        let bin = v.get("bin.md").unwrap();
        assert!(v.stat(bin).skipped && v.stat(bin).warned);
        assert_eq!(v.entry(bin).unwrap().warnings(), vec![warning]);
        let changed = v.get("n00003.md").unwrap();
        assert!(matches!(changed, Old::Journal(_)));
        assert_eq!(v.entry(changed).unwrap(), Entry::Note(note("changed")));
        assert!(v.get("n00004.md").is_none() && v.get("nope.md").is_none());
        let kept = v.get("n00010.md").unwrap();
        assert!(matches!(kept, Old::Base(_)));
        assert_eq!(v.stat(kept).chunks, 1);
        assert_eq!(v.entry(kept).unwrap(), Entry::Note(note("h10")));
        assert_eq!(v.into_full().unwrap().notes, s.notes);
    }

    #[test]
    fn a_damaged_state_file_is_corrupt_not_a_panic() {
        let d = tempfile::tempdir().unwrap();
        let (path, _) = base(d.path(), 20);
        let bytes = fs::read(&path).unwrap();
        for cut in [0, 5, 15, 16, 40, bytes.len() / 2, bytes.len() - 1] {
            fs::write(&path, &bytes[..cut]).unwrap();
            let r = StateView::open(&path);
            assert!(
                matches!(r, Err(Error::Corrupt { .. })),
                "cut at {cut}: {r:?}"
            );
        }
        // Paths out of order (two swapped bytes in the first path).
        let mut swapped = bytes.clone();
        let at = swapped.windows(9).position(|w| w == b"n00000.md").unwrap();
        swapped[at + 5] = b'9';
        fs::write(&path, &swapped).unwrap();
        let err = StateView::open(&path).unwrap_err().to_string();
        assert!(err.contains("order"), "{err}");
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
