//! The BM25 index (tantivy): one document per note, and one per chunk.
//!
//! Notes are ranked by their **note document**: the whole note's text, so a note whose words are
//! spread over several sections scores as one document (term statistics and length
//! normalisation per note, as textbook BM25 does). Fields and boosts of a note document: title
//! ×0.3, aliases ×2, frontmatter description ×1.5, section headings ×1.5 (not the H1 repeating the
//! title), tags ×1.5, frontmatter scalars (`ticket`, `owner`, `status`, …) ×1, path ×1, text ×1.
//! The note's **chunk documents** are stored, not indexed (the text is indexed once): a hit shows
//! the note's best-matching chunk, picked from the positions of the query's terms in the note
//! document (`pick`), whose snippet and line the hit reports; vectors are stored per chunk. Note
//! documents are scored with their own statistics (see [`KindStats`]).
//!
//! Order of a ranking: notes holding every identifier the query names (`OPS-2291`,
//! `LEDGER_SYNC_MAX_CONNS`) exactly, then notes holding every word, then notes holding some; by
//! BM25 within each, and by path on equal scores, so the same vault gives the same ranking
//! whatever the index's history.
//!
//! Text is lowercased, accent-folded, stripped of English stop words and stemmed. The note path
//! is also kept as one raw term so a note's documents are deleted together. All changes of one
//! update are applied in a single tantivy commit, so a reader sees either the old index or the
//! new one, never a mix.

mod chunks;
mod directory;
mod fields;
mod pick;
mod rank;
mod snippet;
mod stem;
mod strength;
mod tokenizer;
mod writer;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use tantivy::directory::error::LockError;
use tantivy::query::QueryParser;
use tantivy::schema::{Field, Value};
use tantivy::{Index, IndexReader, ReloadPolicy, Searcher, TantivyDocument, Term, doc};

use crate::error::{Error, Result};

use chunks::*;
use directory::*;
use fields::*;
pub(crate) use fields::{analyze, identifier_terms};
#[cfg(test)]
pub(crate) use snippet::clean_markdown;
pub(crate) use tokenizer::Syntax;
use writer::segment_files;
pub(crate) use writer::{LexicalWriter, NoteDocuments};

/// A search hit: the best chunk of one note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Vault-relative path of the note.
    pub path: String,
    /// The note's title.
    pub title: String,
    /// The heading trail of the chunk (`A > B`), empty before the first heading.
    pub heading: String,
    /// First line of the chunk in the file (1-based).
    pub line_start: u64,
    /// Last line of the chunk (1-based, inclusive).
    pub line_end: u64,
    /// The line of the first matched word (the chunk's first line when only the title, path or
    /// tags matched): where `get PATH:LINE` should start.
    pub line: u64,
    /// The chunk's position in its note.
    pub chunk: u64,
    /// The chunk's content key (what its vector is stored under).
    #[serde(skip)]
    pub key: u64,
    /// BM25 score of the note (higher is better; comparable within one query only).
    pub score: f32,
    /// The note holds every identifier the query names (`OPS-2291`, `LEDGER_SYNC_MAX_CONNS`)
    /// exactly: such notes rank first.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// The note is the vault's scaffolding, not a note a person wrote: a template, an agent
    /// manual, an infrastructure file of the manifest (`lexical`'s `is_scaffold`). It
    /// ranks below the notes people wrote (still found when nothing else matches).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub scaffold: bool,
    /// An excerpt of the chunk, the matched words wrapped in `**`.
    pub snippet: String,
}

/// Whether `path` is scaffolding whatever the manifest says: a note under a top-level
/// `templates/` folder, or an agent manual at the vault's root (`CLAUDE.md`, `AGENTS.md`,
/// `GEMINI.md`).
pub(crate) fn scaffold_by_name(path: &str) -> bool {
    match path.split_once('/') {
        Some((top, _)) => top.eq_ignore_ascii_case("templates"),
        None => ["CLAUDE.md", "AGENTS.md", "GEMINI.md"]
            .iter()
            .any(|m| path.eq_ignore_ascii_case(m)),
    }
}

/// A note as ranked by its note document.
#[derive(Debug)]
struct RankedNote {
    path: String,
    title: String,
    score: f32,
    exact: bool,
    scaffold: bool,
}

impl RankedNote {
    /// A hit still to be [filled](Lexical::fill): `line_start` 0, no chunk, no snippet.
    fn into_hit(self) -> Hit {
        Hit {
            path: self.path,
            title: self.title,
            heading: String::new(),
            line_start: 0,
            line_end: 0,
            line: 0,
            chunk: 0,
            key: 0,
            score: self.score,
            exact: self.exact,
            scaffold: self.scaffold,
            snippet: String::new(),
        }
    }
}

/// Options for a lexical search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// Maximum number of hits.
    pub limit: usize,
    /// Return every matching chunk instead of the best chunk per note: the chunks of the best
    /// `limit` notes that hold a query word, those holding every word first, then by BM25.
    pub all_chunks: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 10,
            all_chunks: false,
        }
    }
}

/// The on-disk BM25 index.
pub(crate) struct Lexical {
    dir: PathBuf,
    index: Index,
    fields: Fields,
    reader: IndexReader,
    /// Identity of `meta.json` when the reader was last (re)loaded.
    loaded_meta: std::sync::Mutex<Option<MetaKey>>,
    /// Note documents, every word must match (in some field).
    note_all: QueryParser,
    /// Note documents, any word may match.
    note_any: QueryParser,
    /// Note documents: the query as a phrase in the title or an alias.
    name_phrase: QueryParser,
    /// Note documents' `text` field alone: the terms that pick a hit's chunk
    /// ([`pick::ChunkPick`]).
    note_text: QueryParser,
    /// The paths of the notes withheld from agents when indexed (their marker documents).
    withheld: std::sync::Mutex<WithheldCache>,
    /// The vault's manifest, for its `infrastructure` list (see [`Lexical::is_scaffold`]).
    manifest: std::sync::RwLock<Option<Arc<crate::manifest::Manifest>>>,
}

/// What [`Lexical::withheld_paths`] keeps between calls: the paths as of one searcher
/// generation, and each segment's marker documents (a segment never changes; only which of
/// its documents are alive does), so a commit of a few notes reads only its new segment.
#[derive(Default)]
struct WithheldCache {
    generation: Option<(u64, Arc<HashSet<String>>)>,
    segments: std::collections::HashMap<tantivy::index::SegmentId, Arc<Vec<(u32, String)>>>,
}

impl std::fmt::Debug for Lexical {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexical")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// Why an index written by another version of mindex cannot be read (`update` rebuilds it).
pub(crate) const OTHER_VERSION: &str = "it was built by another version of mindex";

fn corrupt(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        path: dir.to_path_buf(),
        detail: e.to_string(),
    }
}

impl Lexical {
    /// Opens the index in `dir` (memory-mapped).
    pub fn open(dir: &Path) -> Result<Self> {
        if !dir.join("meta.json").exists() {
            return Err(Error::IndexMissing {
                path: dir.to_path_buf(),
            });
        }
        let directory =
            tantivy::directory::MmapDirectory::open(dir).map_err(|e| corrupt(dir, e))?;
        let index = Index::open(ReadOnlyTolerant(directory)).map_err(|e| corrupt(dir, e))?;
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(corrupt(dir, OTHER_VERSION));
        }
        Self::from_index(dir, index, fields)
    }

    /// Gives the ranking the vault's manifest: its `infrastructure` entries are scaffolding
    /// ([`Lexical::is_scaffold`]).
    pub(crate) fn set_manifest(&self, manifest: crate::manifest::Manifest) {
        *self.manifest.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(manifest));
    }

    /// Whether the note at `path` is the vault's scaffolding rather than a note a person wrote:
    /// [`scaffold_by_name`], or an `infrastructure` entry of the manifest. Scaffolding ranks
    /// below every other note a query finds.
    pub(crate) fn is_scaffold(&self, path: &str) -> bool {
        scaffold_by_name(path)
            || self
                .manifest
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .is_some_and(|m| m.is_infrastructure(path))
    }

    /// Creates a new, empty index in `dir` (which must not hold one).
    pub fn create(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let (schema, fields) = schema();
        let index = Index::create_in_dir(dir, schema)?;
        Self::from_index(dir, index, fields)
    }

    fn from_index(dir: &Path, index: Index, fields: Fields) -> Result<Self> {
        register_analyzer(&index);
        // Taken before the reader opens: a commit in between only causes one extra reload.
        let key = meta_key(dir).ok();
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let mut note_any = QueryParser::new(
            index.schema(),
            vec![
                fields.title,
                fields.aliases,
                fields.description,
                fields.note_headings,
                fields.tags,
                fields.meta,
                fields.path_text,
                fields.text,
                fields.idents,
            ],
            query_tokenizers(),
        );
        note_any.set_field_boost(fields.title, TITLE_BOOST);
        note_any.set_field_boost(fields.aliases, 2.0);
        note_any.set_field_boost(fields.description, 1.5);
        note_any.set_field_boost(fields.note_headings, HEADINGS_BOOST);
        note_any.set_field_boost(fields.tags, 1.5);
        note_any.set_field_boost(fields.meta, 1.0);
        note_any.set_field_boost(fields.path_text, 1.0);
        let mut note_all = note_any.clone();
        note_all.set_conjunction_by_default();
        let mut name_phrase = QueryParser::new(
            index.schema(),
            vec![fields.title, fields.aliases],
            query_tokenizers(),
        );
        name_phrase.set_field_boost(fields.title, NAME_BOOST);
        name_phrase.set_field_boost(fields.aliases, NAME_BOOST);
        // The query's words in the note text alone: the terms that pick a hit's chunk.
        let note_text = QueryParser::new(index.schema(), vec![fields.text], query_tokenizers());
        Ok(Lexical {
            dir: dir.to_path_buf(),
            index,
            fields,
            reader,
            loaded_meta: std::sync::Mutex::new(key),
            note_all,
            note_any,
            name_phrase,
            note_text,
            withheld: std::sync::Mutex::new(WithheldCache::default()),
            manifest: std::sync::RwLock::new(None),
        })
    }

    /// The index files that are missing or empty (a `stat` per file, nothing read): the cheap
    /// check `status` runs by default.
    pub fn missing_files(&self) -> Result<Vec<String>> {
        let metas = self
            .index
            .searchable_segment_metas()
            .map_err(|e| corrupt(&self.dir, e))?;
        let mut out: Vec<String> = metas
            .iter()
            .flat_map(|m| {
                use tantivy::index::SegmentComponent as C;
                let mut parts = vec![
                    C::Postings,
                    C::Positions,
                    C::Terms,
                    C::Store,
                    C::FastFields,
                    C::FieldNorms,
                ];
                if m.has_deletes() {
                    parts.push(C::Delete);
                }
                parts
                    .into_iter()
                    .map(|c| self.dir.join(m.relative_path(c)))
                    .collect::<Vec<_>>()
            })
            .filter(|p| std::fs::metadata(p).map_or(true, |m| m.len() == 0))
            .map(|p| p.display().to_string())
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Whether the note at `path` was withheld from agents when it was indexed (a marker
    /// document, [`crate::Note::withheld`]) in the latest commit: its indexed text must not
    /// reach an agent even when the file on disk may be read now.
    pub(crate) fn indexed_withheld(&self, path: &str) -> Result<bool> {
        Ok(self.withheld_paths()?.contains(path))
    }

    /// Every path [`Lexical::indexed_withheld`] answers true for, as of the latest commit. Each
    /// segment's marker documents are read once (a posting list and a fast column), and the
    /// set is rebuilt from them, alive documents only, once per commit.
    pub(crate) fn withheld_paths(&self) -> Result<Arc<HashSet<String>>> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        let generation = searcher.generation().generation_id();
        let mut cache = self.withheld.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((g, set)) = cache.generation.as_ref()
            && *g == generation
        {
            return Ok(set.clone());
        }
        let mut segments = std::collections::HashMap::new();
        let mut set = HashSet::new();
        for seg in searcher.segment_readers() {
            let id = seg.segment_id();
            let markers = match cache.segments.get(&id) {
                Some(m) => m.clone(),
                None => Arc::new(self.segment_markers(seg)?),
            };
            for (doc, path) in markers.iter() {
                if seg.alive_bitset().is_none_or(|a| a.is_alive(*doc)) {
                    set.insert(path.clone());
                }
            }
            segments.insert(id, markers);
        }
        let set = Arc::new(set);
        // Segments merged away are dropped with the old map.
        *cache = WithheldCache {
            generation: Some((generation, set.clone())),
            segments,
        };
        Ok(set)
    }

    /// The marker documents of one segment, alive or not: (document, path).
    fn segment_markers(&self, seg: &tantivy::SegmentReader) -> Result<Vec<(u32, String)>> {
        use tantivy::DocSet as _;
        use tantivy::schema::IndexRecordOption;
        let term = Term::from_field_u64(self.fields.kind, KIND_WITHHELD);
        let Some(mut postings) = seg
            .inverted_index(self.fields.kind)?
            .read_postings(&term, IndexRecordOption::Basic)
            .map_err(|e| crate::Error::io(&self.dir, e))?
        else {
            return Ok(Vec::new());
        };
        let column = seg.fast_fields().str("path").ok().flatten();
        let mut store = None;
        let mut out = Vec::new();
        let mut doc = postings.doc();
        while doc != tantivy::TERMINATED {
            let mut path = String::new();
            let from_column = column.as_ref().and_then(|c| {
                let ord = c.term_ords(doc).next()?;
                c.ord_to_str(ord, &mut path).ok()?.then_some(())
            });
            if from_column.is_none() {
                // The column cannot say (an index written before it existed): the stored
                // document can.
                if store.is_none() {
                    store = Some(
                        seg.get_store_reader(1)
                            .map_err(|e| crate::Error::io(&self.dir, e))?,
                    );
                }
                if let Some(store) = &store {
                    let d: TantivyDocument = store.get(doc)?;
                    path = text_of(&d, self.fields.path);
                }
            }
            out.push((doc, path));
            doc = postings.advance();
        }
        Ok(out)
    }

    /// The documents of `kind` ([`KIND_NOTE`], [`KIND_WITHHELD`], ...) of the note at `path`.
    fn path_and_kind(&self, path: &str, kind: u64) -> tantivy::query::BooleanQuery {
        use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
        use tantivy::schema::IndexRecordOption;
        let term =
            |t: Term| -> Box<dyn Query> { Box::new(TermQuery::new(t, IndexRecordOption::Basic)) };
        BooleanQuery::new(vec![
            (
                Occur::Must,
                term(Term::from_field_u64(self.fields.kind, kind)),
            ),
            (
                Occur::Must,
                term(Term::from_field_text(self.fields.path, path)),
            ),
        ])
    }

    /// The index files whose checksum does not match their content (reads every file).
    pub fn damaged_files(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = self
            .index
            .validate_checksum()
            .map_err(|e| corrupt(&self.dir, e))?
            .into_iter()
            .map(|p| self.dir.join(p).display().to_string())
            .collect();
        out.sort();
        Ok(out)
    }

    /// Takes the writer lock; fails with [`Error::Busy`] when another process holds it (for
    /// longer than a moment: see `open_writer`).
    pub fn writer(&self) -> Result<LexicalWriter> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4);
        self.open_writer(threads, 64_000_000 * threads)
    }

    /// A writer for a handful of notes (one indexing thread, a small arena): cheaper to open,
    /// which is what the per-write path pays. Fails with [`Error::Busy`] like [`Lexical::writer`].
    pub fn small_writer(&self) -> Result<LexicalWriter> {
        let w = self.open_writer(1, 20_000_000)?;
        // Merges on this path only gather the small segments writes leave behind; big segments
        // are merged by full updates, so no single write pays for rewriting them.
        let mut policy = tantivy::merge_policy::LogMergePolicy::default();
        policy.set_max_docs_before_merge(SMALL_MERGE_MAX_DOCS);
        if let Some(iw) = &w.writer {
            iw.set_merge_policy(Box::new(policy));
        }
        Ok(w)
    }

    /// A lock held only for a moment is waited for, up to [`LOCK_GRACE`]: a writer finishing
    /// its commit, or a process another thread of this one forked, which holds a copy of the
    /// lock's descriptor until it executes its program (the `reason` sandbox sets up its
    /// namespaces in between).
    fn open_writer(&self, threads: usize, arena_bytes: usize) -> Result<LexicalWriter> {
        let deadline = std::time::Instant::now() + LOCK_GRACE;
        let writer = loop {
            match self.index.writer_with_num_threads(threads, arena_bytes) {
                Ok(w) => break w,
                Err(tantivy::TantivyError::LockFailure(LockError::LockBusy, _)) => {
                    if std::time::Instant::now() >= deadline {
                        return Err(Error::Busy {
                            path: self.dir.clone(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(other) => return Err(Error::from(other)),
            }
        };
        // A writer killed mid-update (SIGKILL, power loss) leaves the files it wrote but never
        // committed; the next writer would reuse their names (same opstamps) and fail with
        // "FileAlreadyExists". Holding the writer lock, nothing else writes: collect them first.
        let _ = writer.garbage_collect_files().wait();
        Ok(LexicalWriter {
            writer: Some(writer),
            fields: self.fields,
            before: segment_files(&self.dir),
            dir: self.dir.clone(),
            dirty: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Names the index's latest commit (its `meta.json`'s modification time, size and inode):
    /// changes with every commit, from any process.
    pub(crate) fn commit_id(&self) -> Result<String> {
        let (modified, len, ino) = meta_key(&self.dir)?;
        let ns = modified
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok(format!("{ns}-{len}-{ino}"))
    }

    /// Reloads the reader when a commit (from any process) changed `meta.json` since the last look.
    /// Reloading reopens every segment, so it is skipped when nothing changed.
    fn refresh(&self) -> Result<()> {
        let key = meta_key(&self.dir)?;
        let mut loaded = self.loaded_meta.lock().unwrap_or_else(|e| e.into_inner());
        if *loaded != Some(key) {
            self.reader.reload()?;
            *loaded = Some(key);
        }
        Ok(())
    }

    /// The statistics of note documents in `searcher` (marker and chunk documents hold none of
    /// their fields, but count as documents to tantivy).
    fn note_stats<'a>(&self, searcher: &'a Searcher) -> Result<KindStats<'a>> {
        let notes = searcher.doc_freq(&Term::from_field_u64(self.fields.kind, KIND_NOTE))?;
        Ok(KindStats {
            searcher,
            docs: notes,
        })
    }
}

/// How long taking the index writer waits for a lock held by someone else before it fails
/// with [`Error::Busy`].
const LOCK_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// `meta.json` is replaced by rename on every commit: (mtime, length, inode) identifies a version.
type MetaKey = (std::time::SystemTime, u64, u64);

fn meta_key(dir: &Path) -> Result<MetaKey> {
    let path = dir.join("meta.json");
    let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
    let modified = meta.modified().map_err(|e| Error::io(&path, e))?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = 0;
    Ok((modified, meta.len(), ino))
}

/// The live documents holding `term` in one segment, ascending (none when it holds no such
/// term): a term's postings read directly, for the handful of documents of one path.
fn live_docs(reader: &tantivy::SegmentReader, term: &Term) -> Result<Vec<tantivy::DocId>> {
    use tantivy::DocSet as _;
    let Some(mut postings) = reader
        .inverted_index(term.field())?
        .read_postings(term, tantivy::schema::IndexRecordOption::Basic)
        .map_err(tantivy::TantivyError::from)?
    else {
        return Ok(Vec::new());
    };
    let alive = reader.alive_bitset();
    let mut docs = Vec::new();
    let mut doc = postings.doc();
    while doc != tantivy::TERMINATED {
        if alive.is_none_or(|a| a.is_alive(doc)) {
            docs.push(doc);
        }
        doc = postings.advance();
    }
    Ok(docs)
}

/// Scored documents best first, ties in index order (segment, then document).
fn best_first(hits: &mut [(f32, tantivy::DocAddress)]) {
    hits.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then((a.1.segment_ord, a.1.doc_id).cmp(&(b.1.segment_ord, b.1.doc_id)))
    });
}

/// The `path` column of each segment of `searcher` (in segment order), for [`path_at`].
fn path_columns(searcher: &Searcher) -> Vec<Option<tantivy::columnar::StrColumn>> {
    searcher
        .segment_readers()
        .iter()
        .map(|s| s.fast_fields().str("path").ok().flatten())
        .collect()
}

/// The note path of the document at `addr`, read from its segment's `path` column (no stored
/// document is decompressed); `None` when the column cannot say.
fn path_at(
    columns: &[Option<tantivy::columnar::StrColumn>],
    addr: tantivy::DocAddress,
) -> Option<String> {
    let column = columns.get(addr.segment_ord as usize)?.as_ref()?;
    let ord = column.term_ords(addr.doc_id).next()?;
    let mut path = String::new();
    column.ord_to_str(ord, &mut path).ok()?.then_some(path)
}

fn text_of(doc: &TantivyDocument, field: Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

fn u64_of(doc: &TantivyDocument, field: Field) -> u64 {
    doc.get_first(field)
        .and_then(|v| v.as_u64())
        .unwrap_or_default()
}
