//! [`Vault`]: the handle every surface uses — update the index, search it, read notes, report status.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Serialize;

use crate::chunk::{Chunk, ChunkOptions, chunk_note};
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::lexical::{Hit, Lexical, SearchOptions};
use crate::note::{Note, parse_note};
use crate::query::{QueryHit, QueryOptions, QueryResult, SubQuery, SubQueryKind, blend, fuse};
use crate::report::{Changes, Rename, UpdateReport, Warning, WarningKind};
use crate::rerank::Reranker;
use crate::state::{FORMAT_VERSION, IndexState, LastUpdate, NoteState, SkippedState};
use crate::vector::{VectorStore, VectorWriter};
use crate::walk::{IgnoreFilters, NoteFile, walk_vault};

pub(crate) mod agent;
mod pending;
mod reason;
mod render;
mod work;

pub use reason::{REASON_TIMEOUT, REASON_VIEW_CAP, ReasonOptions, Reasoning, ScopedHits};
pub use work::MAX_WORK_NOTE_BYTES;

pub use agent::{
    BrokenLink, Expansion, GraphAudit, Health, LinkedNote, Recall, RecallOptions, RecallRanking,
    RecalledMemory, Refusal, Remembered, WorkInput, WorkKind, WorkRecord,
};

/// Name of the default index folder inside a vault.
pub const INDEX_DIR_NAME: &str = ".mindex";
/// The file that marks a folder as a vault root.
pub const MANIFEST_FILE: &str = "vault-manifest.json";
/// Default limit on the size of one note; larger files are skipped with a warning.
pub const DEFAULT_MAX_NOTE_BYTES: u64 = 4 * 1024 * 1024;
/// Default [`VaultOptions::hnsw_threshold`]. Below it the exact scan is both exact and fast (about
/// 3 ms at 100,000 vectors on 2 cores) and costs nothing to open; the graph pays off for larger
/// stores and for long-lived processes that load it once (loading takes a few hundred ms).
pub const DEFAULT_HNSW_THRESHOLD: usize = 200_000;
/// Files modified this close before the last scan are re-hashed on the next update.
const RACY_MARGIN_NS: i64 = 100_000_000;

/// Options for opening a [`Vault`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VaultOptions {
    /// Where the index lives; `<vault>/.mindex` when `None`.
    pub index_dir: Option<PathBuf>,
    /// How notes are cut into chunks. Changing it rebuilds the index on the next update.
    pub chunking: ChunkOptions,
    /// Notes larger than this are skipped with a warning.
    pub max_note_bytes: u64,
    /// From this many vectors on, `embed` builds an approximate-neighbour graph (HNSW) and vector
    /// searches use it; below it they scan every vector exactly.
    pub hnsw_threshold: usize,
}

impl Default for VaultOptions {
    fn default() -> Self {
        VaultOptions {
            index_dir: None,
            chunking: ChunkOptions::default(),
            max_note_bytes: DEFAULT_MAX_NOTE_BYTES,
            hnsw_threshold: DEFAULT_HNSW_THRESHOLD,
        }
    }
}

/// Receives progress of long operations. Every method has an empty default.
pub trait Progress: Sync {
    /// A phase starts with `total` steps.
    fn start(&self, _phase: &str, _total: u64) {}
    /// `n` more steps are done.
    fn advance(&self, _n: u64) {}
    /// The phase is over.
    fn finish(&self) {}
    /// [`Vault::embed`] measured a sample of a large run and estimates the rest (called once,
    /// after `start` and the sample's `advance`, before the rest is embedded).
    fn estimate(&self, _estimate: &EmbedEstimate) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

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

/// From this many chunks to embed on, [`Vault::embed`] first embeds a sample spread over the
/// run's text lengths, times it and reports an estimate ([`Progress::estimate`]).
pub const EMBED_ESTIMATE_MIN_CHUNKS: usize = 500;
/// Characters of text the estimate's sample holds at least: enough inference batches (about 16k
/// tokens, eight 2,048-token batches) that every core stays busy as in the full run; a smaller
/// sample measured 20-25% slow on two cores (its last batch leaves a core idle).
const EMBED_SAMPLE_CHARS: usize = 64_000;

/// The estimate of a large [`Vault::embed`], from a sample timed on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EmbedEstimate {
    /// Chunks to embed in this run (sample included).
    pub chunks: usize,
    /// Chunks of the timed sample (embedded and kept).
    pub sampled: usize,
    /// Measured rate: chunks per second over the timed part of the sample.
    pub chunks_per_s: f64,
    /// Estimated seconds for the rest, at that rate.
    pub remaining_s: f64,
}

impl EmbedEstimate {
    /// The estimate for a run of `chunks` chunks holding `chars` characters of text, of which
    /// `sampled` chunks are done; `timed_chars` of the sample's text took `secs` seconds (the rest
    /// of the sample warmed the model up). Time follows the text's length, not the chunk count,
    /// so the rest is priced by its characters; the rate shown is the chunks per second that
    /// implies for the rest.
    pub fn measured(
        chunks: usize,
        chars: usize,
        sampled: usize,
        sampled_chars: usize,
        timed_chars: usize,
        secs: f64,
    ) -> EmbedEstimate {
        let chars_per_s = timed_chars.max(1) as f64 / secs.max(1e-6);
        let rest = chunks.saturating_sub(sampled);
        let remaining_s = chars.saturating_sub(sampled_chars) as f64 / chars_per_s;
        EmbedEstimate {
            chunks,
            sampled,
            chunks_per_s: if remaining_s > 0.0 {
                rest as f64 / remaining_s
            } else {
                0.0
            },
            remaining_s,
        }
    }
}

/// Strata of the estimate's sample.
const EMBED_SAMPLE_STRATA: usize = 8;

/// Indices of the estimate's sample in `todo` (sorted by text length), ascending: a run of
/// neighbours from the middle of each of [`EMBED_SAMPLE_STRATA`] equal slices of the run, so the
/// sample's lengths follow the run's and each run batches like the real one (similar lengths
/// together; single texts spread over all lengths measured 20% slow with the padded encoder of
/// the time). At least [`EMBED_SAMPLE_CHARS`] of text (and 32 chunks), never more than a tenth
/// of the run. Empty below [`EMBED_ESTIMATE_MIN_CHUNKS`].
fn estimate_sample(todo: &[(u64, String)]) -> Vec<usize> {
    let n = todo.len();
    if n < EMBED_ESTIMATE_MIN_CHUNKS {
        return Vec::new();
    }
    let chars: usize = todo.iter().map(|(_, t)| t.len()).sum();
    let avg = (chars / n).max(1);
    let want = EMBED_SAMPLE_CHARS.div_ceil(avg).clamp(32, n / 10);
    let per = want / EMBED_SAMPLE_STRATA;
    let slice = n / EMBED_SAMPLE_STRATA;
    (0..EMBED_SAMPLE_STRATA)
        .flat_map(|k| {
            let start = k * slice + (slice - per) / 2;
            start..start + per
        })
        .collect()
}

/// What [`Vault::embed`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EmbedReport {
    /// The model's id (name and weights fingerprint).
    pub model_id: String,
    /// Distinct chunk texts in the index.
    pub chunks: usize,
    /// Chunks embedded now.
    pub embedded: usize,
    /// Chunks whose vector was already stored (same model, same text).
    pub reused: usize,
    /// Stale vectors dropped by compaction.
    pub dropped: usize,
    /// Whether the approximate-neighbour graph was (re)built.
    pub graph_built: bool,
    /// Vectors in the store afterwards.
    pub vectors: usize,
    /// Wall time in milliseconds.
    pub elapsed_ms: u64,
    /// The estimate made from a timed sample, for runs of at least
    /// [`EMBED_ESTIMATE_MIN_CHUNKS`] chunks.
    pub estimate: Option<EmbedEstimate>,
}

/// The vector store as [`Vault::status`] sees it.
#[derive(Debug, Clone, Serialize)]
pub struct VectorStatus {
    /// The model the vectors belong to.
    pub model_id: String,
    /// Vector dimension.
    pub dim: usize,
    /// Number of vectors (including any of chunks deleted since the last `embed`).
    pub count: usize,
    /// Vectors covered by the approximate-neighbour graph (0 = exact scan only).
    pub graph_rows: usize,
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
    /// Index files that fail their checksum, or why the index cannot be read at all; empty when
    /// the index is sound. Anything here means `mindex update --rebuild`.
    pub damaged: Vec<String>,
    /// Distinct chunks of the index without a vector for the store's model (`None` without
    /// vectors or without an index): they rank only lexically until `embed` (or `watch`) runs.
    pub missing_vectors: Option<usize>,
}

/// How much of the index has vectors ([`Vault::vector_coverage`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VectorCoverage {
    /// Distinct chunk texts in the index.
    pub chunks: usize,
    /// Those without a vector for the store's model.
    pub missing: usize,
}

impl VectorCoverage {
    /// The notice shown while chunks lack vectors (`None` when none do).
    pub fn notice(&self) -> Option<String> {
        (self.missing > 0).then(|| {
            format!(
                "{} of {} chunks {} no vector yet (semantic ranking misses them): run `mindex embed`, or keep `mindex watch` running",
                self.missing,
                self.chunks,
                if self.missing == 1 { "has" } else { "have" }
            )
        })
    }
}

/// A vault: a folder of markdown notes and its index.
///
/// `Vault` is `Send + Sync`; share one per process. Searches run concurrently; an update takes the
/// index's writer lock, so a second concurrent update (in any process) fails with [`Error::Busy`].
#[derive(Debug)]
pub struct Vault {
    root: PathBuf,
    index_dir: PathBuf,
    options: VaultOptions,
    lexical: Mutex<Option<Arc<Lexical>>>,
    agent: Mutex<Option<Arc<agent::AgentContext>>>,
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

/// The unique (case-insensitive, first seen) link targets of a note.
pub(crate) fn link_targets(note: &Note) -> Vec<String> {
    let mut seen = HashSet::new();
    note.links
        .iter()
        .map(|l| l.target.trim())
        .filter(|t| !t.is_empty() && seen.insert(t.to_lowercase()))
        .map(str::to_string)
        .collect()
}

/// What the state records for a freshly indexed note.
fn note_state(
    hash: String,
    f: &NoteFile,
    chunks: usize,
    note: &Note,
    warnings: Vec<Warning>,
) -> NoteState {
    NoteState {
        hash,
        size: f.size,
        mtime_ns: f.mtime_ns,
        chunks: chunks as u32,
        title: note.title.clone(),
        aliases: note.aliases.clone(),
        links: link_targets(note),
        warnings,
    }
}

/// How long an engine write (a memory, a work record) waits for another process's index writer
/// before it gives up indexing (the file is written either way; the next update indexes it).
pub const WRITER_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Finds the vault containing `start`: the nearest ancestor (or `start` itself) holding a
/// `vault-manifest.json`.
pub fn find_vault_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join(MANIFEST_FILE).is_file())
        .map(Path::to_path_buf)
}

/// Splits `path:LINE` into the path and the line; a path without a numeric suffix has no line.
pub fn parse_get_spec(spec: &str) -> (&str, Option<usize>) {
    if let Some((path, line)) = spec.rsplit_once(':')
        && !path.is_empty()
        && let Ok(n) = line.parse::<usize>()
    {
        return (path, Some(n.max(1)));
    }
    (spec, None)
}

/// What reading one file produced.
enum Loaded {
    Note {
        hash: String,
        note: Box<Note>,
        chunks: Vec<Chunk>,
        warnings: Vec<Warning>,
    },
    Same {
        hash: String,
    },
    Skipped(Warning),
}

struct Decoded {
    text: String,
    hash: String,
    warning: Option<Warning>,
}

impl Decoded {
    /// The decoding warning (if any) followed by the parser's, as warnings about `rel`.
    fn warnings_with(&self, rel: &str, parse_warnings: Vec<String>) -> Vec<Warning> {
        let mut out: Vec<Warning> = self.warning.iter().cloned().collect();
        out.extend(parse_warnings.into_iter().map(|message| Warning {
            path: rel.to_string(),
            kind: WarningKind::Frontmatter,
            message,
        }));
        out
    }
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

/// Reads a note file with the limits every surface applies: size, binary, UTF-8.
fn read_note_file(rel: &str, abs: &Path, max_bytes: u64) -> std::result::Result<Decoded, Warning> {
    let warn = |kind, message: String| Warning {
        path: rel.to_string(),
        kind,
        message,
    };
    let bytes = match fs::read(abs) {
        Ok(b) => b,
        Err(e) => {
            return Err(warn(
                WarningKind::Unreadable,
                format!("cannot read: {e}; skipped"),
            ));
        }
    };
    if bytes.len() as u64 > max_bytes {
        return Err(warn(
            WarningKind::TooLarge,
            format!(
                "{} bytes is over the {max_bytes}-byte note limit; skipped",
                bytes.len()
            ),
        ));
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(warn(
            WarningKind::Binary,
            "looks binary (contains NUL bytes); skipped".into(),
        ));
    }
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
    let (text, warning) = match String::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            (
                String::from_utf8_lossy(e.as_bytes()).into_owned(),
                Some(warn(
                    WarningKind::InvalidUtf8,
                    format!(
                        "invalid UTF-8 at byte {at} (line {line}); indexed with replacement characters"
                    ),
                )),
            )
        }
    };
    Ok(Decoded {
        text,
        hash,
        warning,
    })
}

fn load_file(
    f: &NoteFile,
    old_hash: Option<&str>,
    max_bytes: u64,
    chunking: &ChunkOptions,
) -> Loaded {
    if f.size > max_bytes {
        return Loaded::Skipped(Warning {
            path: f.rel.clone(),
            kind: WarningKind::TooLarge,
            message: format!(
                "{} bytes is over the {max_bytes}-byte note limit; skipped",
                f.size
            ),
        });
    }
    let decoded = match read_note_file(&f.rel, &f.abs, max_bytes) {
        Ok(d) => d,
        Err(w) => return Loaded::Skipped(w),
    };
    if old_hash == Some(decoded.hash.as_str()) {
        return Loaded::Same { hash: decoded.hash };
    }
    let parsed = parse_note(&f.rel, &decoded.text);
    let warnings = decoded.warnings_with(&f.rel, parsed.warnings);
    let mut chunks = chunk_note(&parsed.note, chunking);
    if chunks.is_empty() {
        // An empty note is still findable by its title, path, aliases and tags.
        let line = parsed.note.body_start_line;
        chunks.push(Chunk {
            index: 0,
            heading_trail: Vec::new(),
            headings: Vec::new(),
            sections: vec![(line, String::new())],
            text: String::new(),
            line_start: line,
            line_end: line,
        });
    }
    Loaded::Note {
        hash: decoded.hash,
        note: Box::new(parsed.note),
        chunks,
        warnings,
    }
}

fn dir_size(dir: &Path) -> u64 {
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
    /// Opens the vault rooted at `root`. Nothing is created until [`Vault::update`].
    pub fn open(root: impl AsRef<Path>, options: VaultOptions) -> Result<Vault> {
        let given = root.as_ref();
        let root = fs::canonicalize(given).map_err(|e| Error::VaultNotFound {
            path: given.to_path_buf(),
            detail: e.to_string(),
        })?;
        if !root.is_dir() {
            return Err(Error::VaultNotFound {
                path: given.to_path_buf(),
                detail: "not a folder".into(),
            });
        }
        let index_dir = match &options.index_dir {
            Some(d) if d.is_absolute() => d.clone(),
            Some(d) => std::env::current_dir()
                .map_err(|e| Error::io(d, e))?
                .join(d),
            None => root.join(INDEX_DIR_NAME),
        };
        Ok(Vault {
            root,
            index_dir,
            options,
            lexical: Mutex::new(None),
            agent: Mutex::new(None),
        })
    }

    /// The vault root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The options this vault was opened with.
    pub fn options(&self) -> &VaultOptions {
        &self.options
    }

    /// The index folder.
    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    /// The vector store folder (`<index>/vectors`).
    pub fn vectors_dir(&self) -> PathBuf {
        self.index_dir.join("vectors")
    }

    fn lexical_dir(&self) -> PathBuf {
        self.index_dir.join("lexical")
    }

    fn state_path(&self) -> PathBuf {
        self.index_dir.join("state.json")
    }

    pub(crate) fn lexical(&self) -> Result<Arc<Lexical>> {
        let mut slot = self.lexical.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = slot.as_ref() {
            return Ok(l.clone());
        }
        let l = Arc::new(Lexical::open(&self.lexical_dir())?);
        *slot = Some(l.clone());
        Ok(l)
    }

    /// Opens the index for writing, creating (or, when incompatible, recreating) it.
    fn lexical_for_update(&self) -> Result<(Arc<Lexical>, bool)> {
        match self.lexical() {
            Ok(l) => Ok((l, false)),
            Err(Error::IndexMissing { .. }) => {
                let l = Arc::new(Lexical::create(&self.lexical_dir())?);
                *self.lexical.lock().unwrap_or_else(|e| e.into_inner()) = Some(l.clone());
                Ok((l, true))
            }
            Err(Error::Corrupt { .. }) => {
                let dir = self.lexical_dir();
                fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
                let l = Arc::new(Lexical::create(&dir)?);
                *self.lexical.lock().unwrap_or_else(|e| e.into_inner()) = Some(l.clone());
                Ok((l, true))
            }
            Err(e) => Err(e),
        }
    }

    /// Brings the index up to date with the notes on disk.
    ///
    /// Only files whose size or mtime changed are read, and only those whose content hash changed
    /// are re-parsed and re-indexed. Deleted notes disappear; a moved note is reported as a rename.
    /// Problem files become warnings and never stop the update. The vault itself is never written.
    pub fn update(&self, progress: &dyn Progress) -> Result<UpdateReport> {
        self.update_with(progress, false)
    }

    /// [`Vault::update`] that also reads and hashes every file whose size and mtime look
    /// unchanged, catching edits that kept both (a restored mtime, a coarse clock, a copy tool).
    /// Notes whose hash matches are still not re-indexed.
    pub fn update_verified(&self, progress: &dyn Progress) -> Result<UpdateReport> {
        self.update_with(progress, true)
    }

    /// Rebuilds the index from the vault alone: the lexical index and its state are removed (under
    /// the index's writer lock: [`Error::Busy`] while another process writes) and every note is
    /// read and indexed again. Vectors are a cache keyed by chunk text: readable ones are kept and
    /// reused, unreadable ones are dropped (run `embed` again). The vault is never written.
    pub fn rebuild(&self, progress: &dyn Progress) -> Result<UpdateReport> {
        let lexical = self.lexical_dir();
        // Hold tantivy's own writer lock while the old index goes, so no writer in another
        // process is working in it; the index is removed whole, since any file of it may be the
        // damaged one.
        let guard = if lexical.is_dir() {
            let lock_path = lexical.join(".tantivy-writer.lock");
            let f = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock_path)
                .map_err(|e| Error::io(&lock_path, e))?;
            match f.try_lock() {
                Ok(()) => Some(f),
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(Error::Busy { path: lexical });
                }
                Err(fs::TryLockError::Error(e)) => return Err(Error::io(&lock_path, e)),
            }
        } else {
            None
        };
        *self.lexical.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let state = self.state_path();
        match fs::remove_file(&state) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(&state, e)),
        }
        if lexical.is_dir() {
            fs::remove_dir_all(&lexical).map_err(|e| Error::io(&lexical, e))?;
        }
        drop(guard);
        let vectors = self.vectors_dir();
        let readable = match self.vector_status() {
            Some(vs) => VectorStore::open(&vectors, &vs.model_id).is_ok(),
            None => !vectors.join("meta.json").exists(),
        };
        if !readable {
            fs::remove_dir_all(&vectors).map_err(|e| Error::io(&vectors, e))?;
        }
        self.update(progress)
    }

    /// Creates the index folder, but never the vault around it: when the vault folder is gone
    /// (moved or deleted while this handle was open) this fails with
    /// [`Error::VaultNotFound`] instead of leaving an empty vault with an index at the old path.
    fn ensure_index_dir(&self) -> Result<()> {
        if !self.root.is_dir() {
            return Err(Error::VaultNotFound {
                path: self.root.clone(),
                detail: "the vault folder is gone (moved or deleted); open it at its new location"
                    .into(),
            });
        }
        fs::create_dir_all(&self.index_dir).map_err(|e| Error::io(&self.index_dir, e))
    }

    fn update_with(&self, progress: &dyn Progress, verify: bool) -> Result<UpdateReport> {
        let t0 = Instant::now();
        self.ensure_index_dir()?;
        let (lexical, created) = self.lexical_for_update()?;
        let mut writer = lexical.writer()?;
        // The state is read under the writer lock so that concurrent updates serialise cleanly.
        let mut warnings = Vec::new();
        let old = match IndexState::load(&self.state_path()) {
            Ok(Some(s))
                if !created
                    && s.format == FORMAT_VERSION
                    && s.chunking == self.options.chunking
                    && s.max_note_bytes == self.options.max_note_bytes =>
            {
                Some(s)
            }
            Ok(_) => None,
            Err(Error::Corrupt { detail, .. }) => {
                warnings.push(Warning {
                    path: format!("{}/state.json", self.index_dir.display()),
                    kind: WarningKind::Config,
                    message: format!("index state unreadable ({detail}); rebuilding the index"),
                });
                None
            }
            Err(e) => return Err(e),
        };
        let rebuilt = old.is_none();
        let old = old
            .unwrap_or_else(|| IndexState::new(self.options.chunking, self.options.max_note_bytes));
        // Notes engine writers queued before the walk are on disk, so the walk indexes them:
        // their tickets are settled by this commit.
        let settled = pending::list(&self.index_dir);
        let scanned_at_ns = now_ns();
        let (files, walk_warnings) = walk_vault(&self.root, Some(&self.index_dir))?;
        warnings.extend(walk_warnings);

        let mut next = IndexState::new(self.options.chunking, self.options.max_note_bytes);
        next.scanned_at_ns = scanned_at_ns;
        // Decide which files must be read.
        let mut to_read = Vec::new();
        for f in &files {
            // A file modified within the clock's resolution of the last scan may have changed again
            // without its mtime moving: such "racily clean" files are hashed again.
            let clean = |size: u64, mtime: i64| {
                !verify
                    && size == f.size
                    && mtime == f.mtime_ns
                    && mtime < old.scanned_at_ns - RACY_MARGIN_NS
            };
            if let Some(ns) = old.notes.get(&f.rel)
                && clean(ns.size, ns.mtime_ns)
            {
                next.notes.insert(f.rel.clone(), ns.clone());
            } else if let Some(sk) = old.skipped.get(&f.rel)
                && clean(sk.size, sk.mtime_ns)
            {
                next.skipped.insert(f.rel.clone(), sk.clone());
            } else {
                to_read.push(f);
            }
        }

        progress.start("indexing", to_read.len() as u64);
        let max = self.options.max_note_bytes;
        let chunking = self.options.chunking;
        let loaded: Vec<(&NoteFile, Loaded)> = to_read
            .par_iter()
            .map(|f| {
                let old_hash = old.notes.get(&f.rel).map(|n| n.hash.as_str());
                let l = load_file(f, old_hash, max, &chunking);
                progress.advance(1);
                (*f, l)
            })
            .collect();
        progress.finish();

        let mut changes = Changes::default();
        let mut fresh: Vec<(Box<Note>, Vec<Chunk>)> = Vec::new();
        for (f, l) in loaded {
            match l {
                Loaded::Same { hash } => {
                    let mut ns = old.notes[&f.rel].clone();
                    ns.hash = hash;
                    ns.size = f.size;
                    ns.mtime_ns = f.mtime_ns;
                    next.notes.insert(f.rel.clone(), ns);
                }
                Loaded::Skipped(w) => {
                    next.skipped.insert(
                        f.rel.clone(),
                        SkippedState {
                            size: f.size,
                            mtime_ns: f.mtime_ns,
                            warning: w,
                        },
                    );
                }
                Loaded::Note {
                    hash,
                    note,
                    chunks,
                    warnings: note_warnings,
                } => {
                    if old.notes.contains_key(&f.rel) {
                        changes.modified.push(f.rel.clone());
                    } else {
                        changes.added.push(f.rel.clone());
                    }
                    next.notes.insert(
                        f.rel.clone(),
                        note_state(hash, f, chunks.len(), &note, note_warnings),
                    );
                    fresh.push((note, chunks));
                }
            }
        }
        changes.removed = old
            .notes
            .keys()
            .filter(|p| !next.notes.contains_key(*p))
            .cloned()
            .collect();
        // A removed note whose exact content reappears under a new path was renamed.
        let mut by_hash: HashMap<&str, Vec<&String>> = HashMap::new();
        for p in &changes.removed {
            by_hash
                .entry(old.notes[p].hash.as_str())
                .or_default()
                .push(p);
        }
        let mut renamed_from = HashSet::new();
        let mut renamed_to = HashSet::new();
        for p in &changes.added {
            if let Some(froms) = by_hash.get_mut(next.notes[p].hash.as_str())
                && let Some(from) = froms.pop()
            {
                changes.renamed.push(Rename {
                    from: from.clone(),
                    to: p.clone(),
                });
                renamed_from.insert(from.clone());
                renamed_to.insert(p.clone());
            }
        }
        changes.added.retain(|p| !renamed_to.contains(p));
        changes.removed.retain(|p| !renamed_from.contains(p));

        // Apply everything in one commit.
        if rebuilt {
            writer.delete_all()?;
        } else {
            for p in changes
                .removed
                .iter()
                .chain(renamed_from.iter())
                .chain(fresh.iter().map(|(n, _)| &n.path))
            {
                writer.delete_note(p);
            }
        }
        for (note, chunks) in &fresh {
            writer.add_note(note, chunks)?;
        }
        let touched_index =
            rebuilt || !fresh.is_empty() || !changes.removed.is_empty() || !renamed_from.is_empty();
        if touched_index {
            writer.commit()?;
        } else {
            drop(writer);
        }

        for ns in next.notes.values() {
            warnings.extend(ns.warnings.iter().cloned());
        }
        warnings.extend(next.skipped.values().map(|s| s.warning.clone()));
        warnings.sort_by(|a, b| a.path.cmp(&b.path));
        let elapsed_ms = t0.elapsed().as_millis() as u64;
        let chunks = next.notes.values().map(|n| n.chunks as usize).sum();
        next.last_update = Some(LastUpdate {
            finished_unix_ms: (now_ns() / 1_000_000) as u64,
            elapsed_ms,
            changes: changes.clone(),
            rebuilt,
            warnings: warnings.len(),
        });
        next.save(&self.state_path())?;
        pending::remove(&settled);
        Ok(UpdateReport {
            unchanged: next.notes.len() - fresh.len(),
            notes: next.notes.len(),
            chunks,
            changes,
            warnings,
            rebuilt,
            elapsed_ms,
        })
    }

    /// Indexes the given notes now: used after the engine writes a note, so the note is
    /// searchable as soon as the write returns. Without an index (or with an incompatible one)
    /// this runs a full [`Vault::update`].
    ///
    /// Writers in many processes coordinate through `<index>/pending/`: the request is first
    /// recorded there as a ticket; whichever process holds the index writer indexes every pending
    /// ticket in one commit and then removes them. So a caller either takes the writer and
    /// commits everyone's notes, or sees its ticket taken by the holder and returns: it never
    /// queues behind each commit in turn. A ticket outlives a crash and is indexed by the next
    /// writer; after [`WRITER_WAIT`] the call fails with [`Error::Busy`], its ticket left for
    /// the next writer (the note itself is already on disk).
    pub(crate) fn index_now(&self, rels: &[String]) -> Result<()> {
        self.ensure_index_dir()?;
        let (lexical, created) = self.lexical_for_update()?;
        if created {
            return self.update(&NoProgress).map(|_| ());
        }
        let ticket = pending::enqueue(&self.index_dir, rels)?;
        let deadline = Instant::now() + WRITER_WAIT;
        let writer = loop {
            match lexical.small_writer() {
                Ok(w) => break w,
                Err(Error::Busy { .. }) => {
                    if !ticket.exists() {
                        // The holder indexed it and committed.
                        return Ok(());
                    }
                    if Instant::now() >= deadline {
                        return Err(Error::Busy {
                            path: self.lexical_dir(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Err(e) => return Err(e),
            }
        };
        let mut state = match IndexState::load(&self.state_path()) {
            Ok(Some(s))
                if s.format == FORMAT_VERSION
                    && s.chunking == self.options.chunking
                    && s.max_note_bytes == self.options.max_note_bytes =>
            {
                s
            }
            _ => {
                drop(writer);
                return self.update(&NoProgress).map(|_| ());
            }
        };
        let tickets = pending::list(&self.index_dir);
        let mut all: Vec<String> = rels.to_vec();
        for t in &tickets {
            all.extend(t.rels.iter().cloned());
        }
        all.sort();
        all.dedup();
        for rel in &all {
            self.reindex_one(&writer, &mut state, rel)?;
        }
        writer.commit()?;
        state.save(&self.state_path())?;
        pending::remove(&tickets);
        let _ = fs::remove_file(&ticket);
        Ok(())
    }

    /// [`Vault::index_now`], then whether `written` is really in the index: `Err` says why not
    /// (the index could not be refreshed, or it skipped the file, e.g. over `max_note_bytes`),
    /// so a write never reports `indexed: true` for a note search cannot find.
    pub(crate) fn index_written(
        &self,
        rels: &[String],
        written: &str,
    ) -> std::result::Result<(), String> {
        self.index_now(rels)
            .map_err(|e| format!("the search index could not be refreshed ({e})"))?;
        match IndexState::load(&self.state_path()) {
            Ok(Some(s)) if s.notes.contains_key(written) => Ok(()),
            Ok(Some(s)) => Err(match s.skipped.get(written) {
                Some(sk) => format!("the index skipped it: {}", sk.warning.message),
                None => "the index does not hold it yet".to_string(),
            }),
            Ok(None) => Err("there is no index state".to_string()),
            Err(e) => Err(format!("the index state could not be read ({e})")),
        }
    }

    /// Replaces one note in the index (or removes it when it is gone), keeping `state` in step.
    fn reindex_one(
        &self,
        writer: &crate::lexical::LexicalWriter,
        state: &mut IndexState,
        rel: &str,
    ) -> Result<()> {
        let abs = self.root.join(rel);
        writer.delete_note(rel);
        state.notes.remove(rel);
        state.skipped.remove(rel);
        let Ok(meta) = fs::metadata(&abs) else {
            return Ok(());
        };
        let f = NoteFile {
            rel: rel.to_string(),
            abs,
            size: meta.len(),
            mtime_ns: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64),
        };
        match load_file(
            &f,
            None,
            self.options.max_note_bytes,
            &self.options.chunking,
        ) {
            Loaded::Note {
                hash,
                note,
                chunks,
                warnings,
            } => {
                writer.add_note(&note, &chunks)?;
                state.notes.insert(
                    rel.to_string(),
                    note_state(hash, &f, chunks.len(), &note, warnings),
                );
            }
            Loaded::Skipped(w) => {
                state.skipped.insert(
                    rel.to_string(),
                    SkippedState {
                        size: f.size,
                        mtime_ns: f.mtime_ns,
                        warning: w,
                    },
                );
            }
            Loaded::Same { .. } => {}
        }
        Ok(())
    }

    /// The index state (what is indexed), if there is an index.
    pub(crate) fn state(&self) -> Result<Option<IndexState>> {
        IndexState::load(&self.state_path())
    }

    /// BM25 search; the best chunk per note unless `opts.all_chunks`.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        self.lexical()?.search(query, opts)
    }

    /// Checks a vault-relative path and returns its absolute path when it names a visible note.
    fn visible_note(&self, rel: &str, filters: &IgnoreFilters) -> Option<PathBuf> {
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
    fn read_note(
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

    /// Reports what is indexed, what the last update did, and what changed on disk since.
    pub fn status(&self) -> Result<Status> {
        let state = match IndexState::load(&self.state_path()) {
            Ok(s) => s,
            Err(Error::Corrupt { .. }) => None,
            Err(e) => return Err(e),
        };
        let indexed = state.is_some() && self.lexical_dir().join("meta.json").exists();
        let (files, walk_warnings) = walk_vault(&self.root, Some(&self.index_dir))?;
        let mut pending = Changes::default();
        let mut warnings = walk_warnings;
        let empty = BTreeMap::new();
        let (notes, skipped) = state
            .as_ref()
            .map_or((&empty, None), |s| (&s.notes, Some(&s.skipped)));
        let mut on_disk = HashSet::new();
        for f in &files {
            on_disk.insert(f.rel.as_str());
            match notes.get(&f.rel) {
                Some(ns) if ns.size == f.size && ns.mtime_ns == f.mtime_ns => {}
                Some(_) => pending.modified.push(f.rel.clone()),
                None if skipped.is_some_and(|s| s.contains_key(&f.rel)) => {}
                None => pending.added.push(f.rel.clone()),
            }
        }
        pending.removed = notes
            .keys()
            .filter(|p| !on_disk.contains(p.as_str()))
            .cloned()
            .collect();
        if let Some(s) = &state {
            warnings.extend(s.notes.values().flat_map(|n| n.warnings.iter().cloned()));
            warnings.extend(s.skipped.values().map(|k| k.warning.clone()));
        }
        warnings.sort_by(|a, b| a.path.cmp(&b.path));
        let damaged = if indexed {
            match Lexical::open(&self.lexical_dir()).and_then(|l| l.damaged_files()) {
                Ok(files) => files,
                Err(e) => vec![e.to_string()],
            }
        } else {
            Vec::new()
        };
        let missing_vectors = if indexed && damaged.is_empty() {
            self.vector_coverage().ok().flatten().map(|c| c.missing)
        } else {
            None
        };
        Ok(Status {
            damaged,
            missing_vectors,
            vault: self.root.clone(),
            index_dir: self.index_dir.clone(),
            indexed,
            notes: notes.len(),
            chunks: notes.values().map(|n| n.chunks as usize).sum(),
            index_bytes: if self.index_dir.exists() {
                dir_size(&self.index_dir)
            } else {
                0
            },
            last_update: state.and_then(|s| s.last_update),
            pending,
            warnings,
            vectors: self.vector_status(),
        })
    }

    /// The vector store's summary, if `embed` ever ran (reads one small file; unlike
    /// [`Vault::status`] it does not walk the vault).
    pub fn vector_status(&self) -> Option<VectorStatus> {
        fs::read(self.vectors_dir().join("meta.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .map(|m| VectorStatus {
                model_id: m["model_id"].as_str().unwrap_or_default().to_string(),
                dim: m["dim"].as_u64().unwrap_or(0) as usize,
                count: m["count"].as_u64().unwrap_or(0) as usize,
                graph_rows: m["hnsw"]["rows"].as_u64().unwrap_or(0) as usize,
            })
    }

    /// Every distinct chunk in the index as (content key, text to embed): what [`Vault::embed`]
    /// feeds the embedder, for callers that compute vectors themselves.
    pub fn chunk_texts(&self) -> Result<Vec<(u64, String)>> {
        self.lexical()?.chunk_texts()
    }

    /// How many distinct chunks of the index lack a vector for the store's model; `None` when
    /// there are no vectors (or no index). Reads the key term dictionary and the store's keys, not
    /// the chunks' text.
    pub fn vector_coverage(&self) -> Result<Option<VectorCoverage>> {
        let Some(vs) = self.vector_status() else {
            return Ok(None);
        };
        let store = match VectorStore::open(&self.vectors_dir(), &vs.model_id)? {
            Some(s) => s,
            None => return Ok(None),
        };
        match self.coverage_of(&store) {
            Ok(c) => Ok(Some(c)),
            Err(Error::IndexMissing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn coverage_of(&self, store: &VectorStore) -> Result<VectorCoverage> {
        let live = self.lexical()?.live_chunks()?;
        let stored: HashSet<u64> = store.keys().iter().copied().collect();
        Ok(VectorCoverage {
            chunks: live.len(),
            missing: live.count_missing(|k| stored.contains(&k)),
        })
    }

    /// Embeds every chunk of the index that has no vector for this model yet.
    ///
    /// Vectors are keyed by (model id, chunk text), so unchanged chunks are never embedded twice
    /// and a different model starts over. Work is saved every batch: an interrupted run keeps what
    /// it finished. Vectors of chunks gone from the index are dropped when they exceed a fifth.
    /// A run of at least [`EMBED_ESTIMATE_MIN_CHUNKS`] chunks first embeds a sample spread over
    /// its text lengths, times it and reports the estimate ([`Progress::estimate`]).
    ///
    /// This is the one embedding path: `mindex embed`, the hooks' refresh and `watch` (through
    /// [`Vault::refresh_vectors`]) all run it.
    pub fn embed(&self, embedder: &dyn Embedder, progress: &dyn Progress) -> Result<EmbedReport> {
        self.embed_until(embedder, progress, None)
    }

    /// [`Vault::embed`] when this vault already has vectors for `embedder`'s model; `None`
    /// (nothing done, nothing created) otherwise: the first `embed` is the user's choice, and a
    /// store of another model is never replaced behind their back. What the hooks' refresh and
    /// `watch` run after each update.
    pub fn refresh_vectors(&self, embedder: &dyn Embedder) -> Result<Option<EmbedReport>> {
        self.refresh_vectors_until(embedder, None)
    }

    pub(crate) fn refresh_vectors_until(
        &self,
        embedder: &dyn Embedder,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<Option<EmbedReport>> {
        match self.vector_status() {
            Some(v) if v.model_id == embedder.model_id() && v.dim == embedder.dim() => {
                self.embed_until(embedder, &NoProgress, cancel).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// [`Vault::embed`], stopping between batches once `cancel` is set (what was embedded is kept).
    fn embed_until(
        &self,
        embedder: &dyn Embedder,
        progress: &dyn Progress,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<EmbedReport> {
        let cancelled = || cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed));
        let t0 = Instant::now();
        let lexical = self.lexical()?;
        let dir = self.vectors_dir();
        let mut writer = VectorWriter::open(&dir, embedder.model_id(), embedder.dim())?;
        let stored: HashSet<u64> = match VectorStore::open(&dir, embedder.model_id())? {
            Some(s) => s.keys().iter().copied().collect(),
            None => HashSet::new(),
        };
        let live = lexical.live_chunks()?;
        let mut todo = live.texts_missing(|k| stored.contains(&k))?;
        // Similar lengths together: less padding per batch.
        todo.sort_by_key(|(_, t)| t.len());
        let total = todo.len();
        progress.start("embedding", total as u64);
        let mut done = 0usize;
        let mut embed_group = |group: &[&(u64, String)]| -> Result<()> {
            let strs: Vec<&str> = group.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = embedder.embed(&strs)?;
            let keys: Vec<u64> = group.iter().map(|(k, _)| *k).collect();
            writer.append(&keys, &vectors)?;
            progress.advance(group.len() as u64);
            done += group.len();
            Ok(())
        };
        let sample = estimate_sample(&todo);
        let mut estimate = None;
        if !sample.is_empty() {
            // A few texts of each stratum warm the model up untimed (weights paged in, buffers
            // grown: one-off costs the rest of the run does not pay); the rest is timed.
            let per = sample.len() / EMBED_SAMPLE_STRATA;
            let warming = |j: usize| j % per < per.div_ceil(8);
            let pick = |warm: bool| -> Vec<&(u64, String)> {
                sample
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| warming(*j) == warm)
                    .map(|(_, &i)| &todo[i])
                    .collect()
            };
            let (warm, timed) = (pick(true), pick(false));
            embed_group(&warm)?;
            let t = Instant::now();
            embed_group(&timed)?;
            let chars = |g: &[&(u64, String)]| g.iter().map(|(_, t)| t.len()).sum::<usize>();
            let e = EmbedEstimate::measured(
                total,
                todo.iter().map(|(_, t)| t.len()).sum(),
                sample.len(),
                chars(&warm) + chars(&timed),
                chars(&timed),
                t.elapsed().as_secs_f64(),
            );
            progress.estimate(&e);
            estimate = Some(e);
        }
        let in_sample: HashSet<usize> = sample.into_iter().collect();
        let rest: Vec<&(u64, String)> = todo
            .iter()
            .enumerate()
            .filter(|(i, _)| !in_sample.contains(i))
            .map(|(_, c)| c)
            .collect();
        for group in rest.chunks(256) {
            if cancelled() {
                break;
            }
            embed_group(group)?;
        }
        progress.finish();
        let keep: HashSet<u64> = live.keys().collect();
        let stale = stored.iter().filter(|k| !keep.contains(k)).count();
        let dropped = if !cancelled() && stale * 5 > writer.len() {
            writer.compact(&keep)?
        } else {
            0
        };
        let graph_built = if cancelled() {
            false
        } else {
            writer.ensure_index(self.options.hnsw_threshold)?
        };
        Ok(EmbedReport {
            model_id: embedder.model_id().to_string(),
            chunks: live.len(),
            embedded: done,
            reused: live.len() - total,
            dropped,
            graph_built,
            vectors: writer.len(),
            elapsed_ms: t0.elapsed().as_millis() as u64,
            estimate,
        })
    }

    /// Opens the vector store for `embedder`'s model, or says what to do.
    fn vector_store(&self, embedder: &dyn Embedder) -> Result<VectorStore> {
        match VectorStore::open(&self.vectors_dir(), embedder.model_id())? {
            Some(s) if !s.is_empty() => Ok(s),
            _ => Err(Error::VectorsMissing {
                path: self.vectors_dir(),
                model_id: embedder.model_id().to_string(),
            }),
        }
    }

    fn vector_hits(
        &self,
        embedder: &dyn Embedder,
        store: &VectorStore,
        text: &str,
        opts: &SearchOptions,
    ) -> Result<Vec<Hit>> {
        let q = embedder.embed(&[text])?.pop().unwrap_or_default();
        // Several chunks of one note (and stale vectors) share the top: look deeper than `limit`.
        let scored = store.search(&q, opts.limit.saturating_mul(8).max(64));
        self.lexical()?.hits_for_keys(&scored, opts)
    }

    /// Vector-only search: the notes whose chunks are closest to the query's embedding.
    pub fn vsearch(
        &self,
        embedder: &dyn Embedder,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<Vec<Hit>> {
        let store = self.vector_store(embedder)?;
        if opts.limit == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut hits = self.vector_hits(embedder, &store, query, opts)?;
        self.lexical()?.fill(&mut hits, query)?;
        Ok(hits)
    }

    /// Completes fused hits for display: each with the chunk and snippet of the sub-query that
    /// ranked it best (see [`Lexical::fill`]).
    fn fill_query_hits(
        &self,
        hits: &mut [QueryHit],
        subqueries: &[SubQuery],
        lists: &[(usize, SubQueryKind, f32, Vec<Hit>)],
    ) -> Result<()> {
        let lexical = self.lexical()?;
        let texts: Vec<&str> = hits
            .iter()
            .map(|h| {
                lists
                    .iter()
                    .filter_map(|(sub, _, _, l)| {
                        l.iter()
                            .position(|x| x.path == h.hit.path)
                            .map(|r| (r, *sub))
                    })
                    .min()
                    .map_or("", |(_, sub)| subqueries[sub].text.as_str())
            })
            .collect();
        // One fill per distinct text (a plain hybrid query has one): the query is parsed and
        // analyzed once, not once per hit.
        let mut distinct = texts.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for text in distinct {
            let at: Vec<usize> = (0..hits.len()).filter(|&i| texts[i] == text).collect();
            let mut group: Vec<Hit> = at.iter().map(|&i| hits[i].hit.clone()).collect();
            lexical.fill(&mut group, text)?;
            for (i, h) in at.into_iter().zip(group) {
                hits[i].hit = h;
            }
        }
        Ok(())
    }

    /// Hybrid query: runs every sub-query and fuses the rankings (weighted RRF).
    ///
    /// Without an embedder, or without vectors for its model, vector sub-queries are skipped with
    /// a notice and the lexical ranking is returned; it is never silently empty.
    pub fn query(
        &self,
        embedder: Option<&dyn Embedder>,
        subqueries: &[SubQuery],
        opts: &QueryOptions,
    ) -> Result<QueryResult> {
        self.query_reranked(embedder, None, subqueries, opts)
    }

    /// [`Vault::query`], then the cross-encoder `reranker` rescores the first
    /// `opts.rerank_candidates` fused hits and the order is blended (see [`QueryOptions`]).
    pub fn query_reranked(
        &self,
        embedder: Option<&dyn Embedder>,
        reranker: Option<&dyn Reranker>,
        subqueries: &[SubQuery],
        opts: &QueryOptions,
    ) -> Result<QueryResult> {
        let mut notices = Vec::new();
        let mut missing_vectors = None;
        let mut used = Vec::new();
        let mut lists = Vec::new();
        let per = SearchOptions {
            limit: opts.candidates.max(opts.limit),
            all_chunks: false,
        };
        let store = match embedder {
            None => None,
            Some(e) if subqueries.iter().any(|q| q.kind == SubQueryKind::Vec) => {
                match self.vector_store(e) {
                    Ok(s) => {
                        let coverage = self.coverage_of(&s)?;
                        notices.extend(coverage.notice());
                        missing_vectors = Some(coverage.missing);
                        Some(s)
                    }
                    Err(err @ Error::VectorsMissing { .. }) => {
                        notices.push(format!(
                            "{err}; vector sub-queries skipped, lexical ranking only"
                        ));
                        None
                    }
                    Err(err) => return Err(err),
                }
            }
            Some(_) => None,
        };
        for (i, sq) in subqueries.iter().enumerate() {
            if sq.text.trim().is_empty() {
                continue;
            }
            let hits = match (sq.kind, embedder, &store) {
                (SubQueryKind::Lex, _, _) => self.lexical()?.rank(&sq.text, per.limit)?,
                (SubQueryKind::Vec, Some(e), Some(s)) => self.vector_hits(e, s, &sq.text, &per)?,
                (SubQueryKind::Vec | SubQueryKind::Rerank, _, _) => continue,
            };
            if !used.contains(&sq.kind) {
                used.push(sq.kind);
            }
            lists.push((i, sq.kind, sq.weight, hits));
        }
        if embedder.is_none() && subqueries.iter().any(|q| q.kind == SubQueryKind::Vec) {
            notices.push(
                "no embedding model loaded; vector sub-queries skipped, lexical ranking only"
                    .to_string(),
            );
        }
        let Some(reranker) = reranker else {
            let mut hits = fuse(&lists, opts);
            self.fill_query_hits(&mut hits, subqueries, &lists)?;
            return Ok(QueryResult {
                hits,
                used,
                notices,
                missing_vectors,
            });
        };
        // Rerank a deeper fused list, then cut to the limit.
        let deep = QueryOptions {
            limit: opts.limit.max(opts.rerank_candidates),
            ..opts.clone()
        };
        let mut hits = fuse(&lists, &deep);
        let n = opts.rerank_candidates.min(hits.len());
        self.fill_query_hits(&mut hits[..n], subqueries, &lists)?;
        let keys: Vec<u64> = hits[..n].iter().map(|h| h.hit.key).collect();
        let texts: Vec<String> = self
            .lexical()?
            .texts_for_keys(&keys)?
            .into_iter()
            .zip(&hits[..n])
            .map(|(t, h)| t.unwrap_or_else(|| format!("{}\n{}", h.hit.title, h.hit.snippet)))
            .collect();
        let query_text = subqueries
            .iter()
            .map(|q| q.text.as_str())
            .find(|t| !t.trim().is_empty())
            .unwrap_or("");
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scores = reranker.score(query_text, &refs)?;
        blend(&mut hits, &scores, opts.rerank_weight);
        hits.truncate(opts.limit);
        if !used.is_empty() {
            used.push(SubQueryKind::Rerank);
        }
        Ok(QueryResult {
            hits,
            used,
            notices,
            missing_vectors,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stand-in for a model: words hashed into 64 dimensions, normalised. It
    /// records the size of every `embed` call.
    struct FakeEmbedder {
        id: String,
        calls: Mutex<Vec<usize>>,
    }

    impl FakeEmbedder {
        fn new(id: &str) -> FakeEmbedder {
            FakeEmbedder {
                id: id.to_string(),
                calls: Mutex::new(Vec::new()),
            }
        }
        fn calls(&self) -> Vec<usize> {
            self.calls.lock().unwrap().clone()
        }
    }

    impl Embedder for FakeEmbedder {
        fn model_id(&self) -> &str {
            &self.id
        }
        fn dim(&self) -> usize {
            64
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            self.calls.lock().unwrap().push(texts.len());
            Ok(texts
                .iter()
                .map(|t| {
                    let mut v = vec![0f32; 64];
                    for w in t.split_whitespace() {
                        v[(xxhash_rust::xxh3::xxh3_64(w.to_lowercase().as_bytes()) % 64)
                            as usize] += 1.0;
                    }
                    v[0] += 0.01;
                    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                    v.iter().map(|x| x / n).collect()
                })
                .collect())
        }
    }

    fn vault_with(notes: &[(&str, String)]) -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in notes {
            let p = dir.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        (dir, v)
    }

    fn hybrid(v: &Vault, e: &dyn Embedder, q: &str) -> QueryResult {
        v.query(Some(e), &SubQuery::hybrid(q), &QueryOptions::default())
            .unwrap()
    }

    #[test]
    fn live_chunk_keys_match_the_stored_chunks_after_edits_and_deletes() {
        let (dir, v) = vault_with(&[
            ("a.md", "# A\n\nalpha text about pools\n".into()),
            ("b.md", "# B\n\nbeta text about queues\n".into()),
            ("c.md", "# C\n\ngamma text\n".into()),
        ]);
        fs::write(dir.path().join("a.md"), "# A\n\nalpha edited\n").unwrap();
        fs::remove_file(dir.path().join("c.md")).unwrap();
        v.update(&NoProgress).unwrap();
        let mut want = v.chunk_texts().unwrap();
        want.sort();
        let live = v.lexical().unwrap().live_chunks().unwrap();
        let mut got = live.texts_missing(|_| false).unwrap();
        got.sort();
        assert_eq!(got, want);
        assert_eq!(live.len(), 2);
        assert!(got.iter().any(|(_, t)| t.contains("alpha edited")));
        assert!(!got.iter().any(|(_, t)| t.contains("gamma")));
        let first = want[0].0;
        assert_eq!(live.count_missing(|k| k == first), 1);
        assert_eq!(
            live.texts_missing(|k| k == first).unwrap(),
            vec![want[1].clone()]
        );
    }

    #[test]
    fn chunks_without_vectors_are_counted_everywhere_until_embedded() {
        let (dir, v) = vault_with(&[
            (
                "pools.md",
                "# Pools\n\nconnection pool exhaustion under load\n".into(),
            ),
            (
                "queues.md",
                "# Queues\n\nconsumer lag on the orders queue\n".into(),
            ),
        ]);
        let e = FakeEmbedder::new("fake@1");
        // No vectors: nothing to count, and nothing is said about missing ones.
        assert_eq!(v.vector_coverage().unwrap(), None);
        assert_eq!(v.status().unwrap().missing_vectors, None);
        assert_eq!(hybrid(&v, &e, "pool").missing_vectors, None);
        let r = v.embed(&e, &NoProgress).unwrap();
        assert_eq!((r.embedded, r.chunks, r.estimate), (2, 2, None));
        assert_eq!(
            v.vector_coverage().unwrap(),
            Some(VectorCoverage {
                chunks: 2,
                missing: 0
            })
        );
        // A note saved after the embed.
        fs::write(
            dir.path().join("dns.md"),
            "# DNS\n\nresolver timeouts on build agents\n",
        )
        .unwrap();
        v.update(&NoProgress).unwrap();
        assert_eq!(
            v.vector_coverage().unwrap(),
            Some(VectorCoverage {
                chunks: 3,
                missing: 1
            })
        );
        assert_eq!(v.status().unwrap().missing_vectors, Some(1));
        let q = hybrid(&v, &e, "resolver timeouts");
        assert_eq!(q.missing_vectors, Some(1));
        assert!(
            q.notices
                .iter()
                .any(|n| n.starts_with("1 of 3 chunks has no vector yet")),
            "{:?}",
            q.notices
        );
        let caller = crate::Caller::named("proj").unwrap();
        let h = v.health(&caller).unwrap();
        assert_eq!(h.missing_vectors, Some(1));
        assert!(
            h.warnings.iter().any(|w| w.contains("1 of 3 chunks")),
            "{:?}",
            h.warnings
        );
        assert!(h.to_text().contains("1 chunk without one yet"));
        // The refresh (what watch and the hooks run) embeds just the new chunk.
        let r = v.refresh_vectors(&e).unwrap().expect("vectors exist");
        assert_eq!((r.embedded, r.reused), (1, 2));
        assert_eq!(e.calls().last(), Some(&1));
        assert_eq!(v.status().unwrap().missing_vectors, Some(0));
        let q = hybrid(&v, &e, "resolver timeouts");
        assert_eq!(q.missing_vectors, Some(0));
        assert!(q.notices.is_empty(), "{:?}", q.notices);
        assert!(q.used.contains(&SubQueryKind::Vec));
        let h = v.health(&caller).unwrap();
        assert_eq!(h.missing_vectors, Some(0));
        assert!(!h.warnings.iter().any(|w| w.contains("no vector")));
    }

    #[test]
    fn refresh_never_starts_a_store_nor_replaces_another_models() {
        let (_dir, v) = vault_with(&[("a.md", "# A\n\nsome text\n".into())]);
        let a = FakeEmbedder::new("fake@a");
        assert!(v.refresh_vectors(&a).unwrap().is_none());
        assert!(v.vector_status().is_none(), "no store may appear");
        assert!(a.calls().is_empty());
        v.embed(&a, &NoProgress).unwrap();
        let b = FakeEmbedder::new("fake@b");
        assert!(v.refresh_vectors(&b).unwrap().is_none());
        assert!(b.calls().is_empty());
        let vs = v.vector_status().unwrap();
        assert_eq!((vs.model_id.as_str(), vs.count), ("fake@a", 1));
    }

    /// Records what [`Vault::embed`] reports, in order.
    #[derive(Default)]
    struct Recorder {
        log: Mutex<Vec<String>>,
        estimates: Mutex<Vec<(u64, EmbedEstimate)>>,
        advanced: std::sync::atomic::AtomicU64,
    }

    impl Progress for Recorder {
        fn start(&self, phase: &str, total: u64) {
            self.log
                .lock()
                .unwrap()
                .push(format!("start {phase} {total}"));
        }
        fn advance(&self, n: u64) {
            self.advanced
                .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
        fn estimate(&self, e: &EmbedEstimate) {
            let done = self.advanced.load(std::sync::atomic::Ordering::Relaxed);
            self.estimates.lock().unwrap().push((done, *e));
            self.log.lock().unwrap().push("estimate".into());
        }
        fn finish(&self) {
            self.log.lock().unwrap().push("finish".into());
        }
    }

    #[test]
    fn a_large_embed_estimates_from_a_timed_sample_before_the_rest() {
        let n = EMBED_ESTIMATE_MIN_CHUNKS + 20;
        let notes: Vec<(String, String)> = (0..n)
            .map(|i| {
                let words = "word ".repeat(1 + i % 40);
                (
                    format!("n/{i:04}.md"),
                    format!("# Note {i}\n\n{words}{i}\n"),
                )
            })
            .collect();
        let refs: Vec<(&str, String)> =
            notes.iter().map(|(p, t)| (p.as_str(), t.clone())).collect();
        let (_dir, v) = vault_with(&refs);
        let e = FakeEmbedder::new("fake@1");
        let rec = Recorder::default();
        let r = v.embed(&e, &rec).unwrap();
        assert_eq!(r.embedded, n);
        let est = rec.estimates.lock().unwrap().clone();
        assert_eq!(est.len(), 1, "one estimate");
        let (done_then, e1) = est[0];
        // Told after the sample and before anything else was embedded.
        assert_eq!(done_then as usize, e1.sampled);
        // A warm-up call (an eighth of each stratum), then the timed rest of the sample.
        let warm = EMBED_SAMPLE_STRATA * (e1.sampled / EMBED_SAMPLE_STRATA).div_ceil(8);
        assert_eq!(e.calls()[..2], [warm, e1.sampled - warm]);
        assert!(e1.sampled >= 32 && e1.sampled <= n / 10, "{e1:?}");
        assert_eq!(e1.chunks, n);
        assert!(e1.chunks_per_s > 0.0 && e1.remaining_s > 0.0);
        let expect = (n - e1.sampled) as f64 / e1.chunks_per_s;
        assert!((e1.remaining_s - expect).abs() < 1e-9 * expect.max(1.0));
        assert_eq!(r.estimate, Some(e1));
        assert_eq!(
            *rec.log.lock().unwrap(),
            vec![
                format!("start embedding {n}"),
                "estimate".into(),
                "finish".into()
            ]
        );
        // Every chunk was embedded exactly once, sample included.
        assert_eq!(e.calls().iter().sum::<usize>(), n);
        assert_eq!(v.vector_coverage().unwrap().unwrap().missing, 0);
        // A small run makes no estimate.
        let again = v.embed(&e, &Recorder::default()).unwrap();
        assert_eq!((again.embedded, again.estimate), (0, None));
    }

    #[test]
    fn the_estimate_sample_spans_the_lengths() {
        let todo: Vec<(u64, String)> = (0..1000u64)
            .map(|i| (i, "x".repeat(i as usize + 1)))
            .collect();
        let s = estimate_sample(&todo);
        assert!(s.len() >= 32 && s.len() <= 104, "{}", s.len());
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        // One run of neighbours in the middle of each eighth of the lengths.
        let per = s.len() / EMBED_SAMPLE_STRATA;
        assert_eq!(s.len(), per * EMBED_SAMPLE_STRATA);
        for (k, run) in s.chunks(per).enumerate() {
            assert!(run.windows(2).all(|w| w[1] == w[0] + 1), "{run:?}");
            let mid = (run[0] + run[per - 1]) / 2;
            assert!(mid.abs_diff(k * 125 + 62) <= 1, "stratum {k}: {run:?}");
        }
        // Short texts: more of them, capped at a tenth (in whole strata).
        let short: Vec<(u64, String)> = (0..600u64).map(|i| (i, "ab".into())).collect();
        assert_eq!(estimate_sample(&short).len(), 56);
        assert!(estimate_sample(&short[..499]).is_empty());
        // 100 of 1,000 chunks done; 800 of their 1,000 characters took 2 s: 400 chars/s, and
        // the other 9,000 characters take 22.5 s, 900 chunks at 40 chunks/s.
        let m = EmbedEstimate::measured(1000, 10_000, 100, 1_000, 800, 2.0);
        assert_eq!((m.chunks_per_s, m.remaining_s), (40.0, 22.5));
    }

    #[test]
    fn get_spec_parsing() {
        assert_eq!(parse_get_spec("a/b.md"), ("a/b.md", None));
        assert_eq!(parse_get_spec("a/b.md:12"), ("a/b.md", Some(12)));
        assert_eq!(parse_get_spec("a/b.md:0"), ("a/b.md", Some(1)));
        assert_eq!(parse_get_spec("a:b.md"), ("a:b.md", None));
        assert_eq!(parse_get_spec(":12"), (":12", None));
    }

    #[test]
    fn finds_vault_root_upwards() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(MANIFEST_FILE), "{}").unwrap();
        fs::create_dir_all(dir.path().join("a/b")).unwrap();
        assert_eq!(
            find_vault_root(&dir.path().join("a/b")).unwrap(),
            dir.path()
        );
        let other = tempfile::tempdir().unwrap();
        assert!(
            find_vault_root(other.path()).is_none()
                || find_vault_root(other.path()) != Some(other.path().into())
        );
    }
}
