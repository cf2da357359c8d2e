//! The BM25 index (tantivy): one document per note, and one per chunk.
//!
//! Notes are ranked by their **note document**: the whole note's text, so a note whose words are
//! spread over several sections scores as one document (term statistics and length
//! normalisation per note, as textbook BM25 does). Fields and boosts of a note document: title
//! ×0.3, aliases ×2, frontmatter description ×1.5, section headings ×1.5 (not the H1 repeating the
//! title), tags ×1.5, frontmatter scalars (`ticket`, `owner`, `status`, …) ×1, path ×1, text ×1.
//! The note's **chunk documents** (text ×1, headings ×1.5) then pick the chunk a hit shows: the
//! best-matching chunk of the note, whose snippet and line the hit reports; vectors are stored
//! per chunk. Each kind is scored with its own statistics (see [`KindStats`]).
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

mod snippet;
mod tokenizer;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::directory::error::LockError;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, Occur, Query, QueryParser, TermQuery,
};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
    Value,
};
use tantivy::{
    DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument, Term, doc,
};

use crate::chunk::Chunk;
use crate::error::{Error, Result};
use crate::note::Note;

/// `kind` of a note document.
const KIND_NOTE: u64 = 1;
/// `kind` of a chunk document.
const KIND_CHUNK: u64 = 0;

/// Schema fields, resolved once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// Both kinds: the note path (one raw term).
    path: Field,
    /// Both kinds: the first path segment (`memories` for `memories/2026/07/x.md`; empty at the
    /// root).
    folder: Field,
    /// Both kinds: [`KIND_NOTE`] or [`KIND_CHUNK`].
    kind: Field,
    // Note documents.
    path_text: Field,
    title: Field,
    aliases: Field,
    description: Field,
    note_headings: Field,
    tags: Field,
    meta: Field,
    text: Field,
    /// Identifiers' whole forms, from the text, title, headings and frontmatter.
    idents: Field,
    // Chunk documents.
    chunk_title: Field,
    headings: Field,
    trail: Field,
    sections: Field,
    body: Field,
    line_start: Field,
    line_end: Field,
    chunk: Field,
    key: Field,
}

/// Lucene's English stop words, plus the question words and pronouns agents' natural-language
/// queries are full of ("how do we …"), which otherwise match headings like "How we work".
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with", "how", "what", "why", "when", "where", "who",
    "whom", "which", "do", "does", "did", "we", "our", "us", "i", "me", "my", "you", "your", "he",
    "she", "his", "her", "its", "them", "can", "could", "should", "would", "has", "have", "had",
    "been", "were", "am", "so",
];

/// Weight of the title field. A note's title is usually its H1 too, so it is already scored in
/// the body (and was scored a third time as a heading): at 2.0 the title drowned the body. The
/// figures (nDCG@10, `benches/run-quality.sh`, same run): title 2.0 with the title H1 also in the
/// headings field gave SciFact 0.522 and Cranfield 0.325; title 0.3 without it gives 0.663 and
/// 0.369; title 0.6 was worse on both sets.
const TITLE_BOOST: f32 = 0.3;
/// Weight of the headings field, which holds a chunk's section headings except the note's title
/// (an H1 repeating the title is already scored as the title and in the body): a query naming a
/// section ("reversible rollout") finds the note that has that section before a note that
/// merely links to it. The BEIR sets have no headings but the title, so their figures do not
/// move with this weight.
const HEADINGS_BOOST: f32 = 1.5;

/// Weight of a query found word for word (as a phrase) in a note's title or an alias:
/// `ledger migration` finds the note aliased "ledger migration" before a longer note that uses
/// both words more often.
const NAME_BOOST: f32 = 2.0;
/// Queries longer than this are questions, not names: no title phrase is tried.
const MAX_NAME_WORDS: usize = 8;

/// Segments with more documents than this are left alone by the per-write merges.
const SMALL_MERGE_MAX_DOCS: usize = 2_000;

/// The text analyzer of the searchable text fields.
const ANALYZER: &str = "mindex_en";

/// The analyzer of the `idents` field.
const IDENTS_ANALYZER: &str = "mindex_idents";

/// Identifiers' whole forms ([`tokenizer::IdentTokenizer`]), lowercased, accents folded,
/// Snowball-stemmed like the text (no stop words: an identifier is never one).
fn idents_analyzer(query: bool) -> tantivy::tokenizer::TextAnalyzer {
    use tantivy::tokenizer::{
        AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer,
    };
    TextAnalyzer::builder(tokenizer::IdentTokenizer { query })
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Words split by [`tokenizer::WordTokenizer`] (every script; identifiers by their parts, and
/// with `whole_forms` also whole), long tokens dropped, lowercased, accents folded, English stop
/// words removed, Snowball-stemmed. The text fields are indexed and queried without whole forms
/// (measured: indexing them cost nDCG@10 on both dev sets, 0.683 → 0.675 SciFact, 0.375 → 0.371
/// Cranfield); those live in the `idents` field. Highlighting uses them.
fn analyzer(whole_forms: bool) -> tantivy::tokenizer::TextAnalyzer {
    use tantivy::tokenizer::{
        AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter,
        TextAnalyzer,
    };
    TextAnalyzer::builder(tokenizer::WordTokenizer { whole_forms })
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(StopWordFilter::remove(
            STOP_WORDS.iter().map(|w| w.to_string()),
        ))
        .filter(Stemmer::new(Language::English))
        .build()
}

/// Registers the indexing analyzer. Tokenizers are not stored in the index: this runs on every
/// open.
fn register_analyzer(index: &Index) {
    index.tokenizers().register(ANALYZER, analyzer(false));
    index
        .tokenizers()
        .register(IDENTS_ANALYZER, idents_analyzer(false));
}

/// The tokenizers queries are parsed with: the query form of the analyzer.
fn query_tokenizers() -> tantivy::tokenizer::TokenizerManager {
    let manager = tantivy::tokenizer::TokenizerManager::default();
    manager.register(ANALYZER, analyzer(false));
    manager.register(IDENTS_ANALYZER, idents_analyzer(true));
    manager
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let stemmed = TextFieldIndexing::default()
        .set_tokenizer(ANALYZER)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let text_stored = TextOptions::default()
        .set_indexing_options(stemmed.clone())
        .set_stored();
    let text = TextOptions::default().set_indexing_options(stemmed);
    let plain = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("default")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        path: b.add_text_field("path", STRING | STORED),
        folder: b.add_text_field("folder", STRING),
        kind: b.add_u64_field("kind", INDEXED),
        path_text: b.add_text_field("path_text", plain.clone()),
        title: b.add_text_field("title", text_stored.clone()),
        aliases: b.add_text_field("aliases", text.clone()),
        description: b.add_text_field("description", text.clone()),
        note_headings: b.add_text_field("note_headings", text.clone()),
        tags: b.add_text_field("tags", plain),
        meta: b.add_text_field("meta", text.clone()),
        text: b.add_text_field("text", text.clone()),
        idents: b.add_text_field(
            "idents",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(IDENTS_ANALYZER)
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        ),
        chunk_title: b.add_text_field("chunk_title", STORED),
        headings: b.add_text_field("headings", text),
        trail: b.add_text_field("trail", STORED),
        sections: b.add_text_field("sections", STORED),
        body: b.add_text_field("body", text_stored),
        line_start: b.add_u64_field("line_start", STORED),
        line_end: b.add_u64_field("line_end", STORED),
        chunk: b.add_u64_field("chunk", STORED | INDEXED),
        key: b.add_u64_field("key", STORED | INDEXED),
    };
    (b.build(), fields)
}

/// `text` analyzed as the index does (`whole_forms` on) or as a query is (off): each term with
/// its byte span in `text`.
pub(crate) fn analyze(text: &str, whole_forms: bool) -> Vec<(String, std::ops::Range<usize>)> {
    thread_local! {
        // Building an analyzer (stop-word set, stemmer) costs more than analyzing a chunk.
        static ANALYZERS: std::cell::RefCell<[tantivy::tokenizer::TextAnalyzer; 2]> =
            std::cell::RefCell::new([analyzer(false), analyzer(true)]);
    }
    ANALYZERS.with(|a| {
        let mut a = a.borrow_mut();
        let mut stream = a[usize::from(whole_forms)].token_stream(text);
        let mut out = Vec::new();
        while let Some(t) = stream.next() {
            out.push((t.text.clone(), t.offset_from..t.offset_to));
        }
        out
    })
}

/// The analyzed whole forms of the identifiers a query names (`OPS-2291` → `ops-2291`,
/// `LEDGER_SYNC_MAX_CONNS` → `ledger_sync_max_conn`), deduplicated in order.
pub(crate) fn identifier_terms(query: &str) -> Vec<String> {
    thread_local! {
        static IDENTS: std::cell::RefCell<tantivy::tokenizer::TextAnalyzer> =
            std::cell::RefCell::new(idents_analyzer(false));
    }
    IDENTS.with(|a| {
        let mut a = a.borrow_mut();
        let mut stream = a.token_stream(query);
        let mut out: Vec<String> = Vec::new();
        while let Some(t) = stream.next() {
            if !out.contains(&t.text) {
                out.push(t.text.clone());
            }
        }
        out
    })
}

/// Most words a query may hold besides its identifiers for them to rank first: `OPS-2291`,
/// `what happened in PAY-1043`, `how did we fix LEDGER_SYNC_MAX_CONNS exhaustion` look an
/// identifier up; a sentence that mentions one (`IL-6 signalling is required for …`) is a
/// question about more than it (measured: putting every note holding the identifier first for
/// such sentences cost SciFact nDCG@10 0.687 → 0.676).
const MAX_WORDS_BESIDE_IDENTIFIERS: usize = 2;

/// Whether `query` looks an identifier up (see [`MAX_WORDS_BESIDE_IDENTIFIERS`]).
fn names_identifiers(query: &str) -> bool {
    let mut idents = 0;
    let mut words = 0;
    for w in query.split_whitespace() {
        if !identifier_terms(w).is_empty() {
            idents += 1;
        } else if !analyze(w, false).is_empty() {
            words += 1;
        }
    }
    idents > 0 && words <= MAX_WORDS_BESIDE_IDENTIFIERS
}

/// BM25 statistics of one document kind. tantivy counts every document of the index as one
/// collection; notes and chunks are two, so each kind's scores use its own document count (a
/// field belongs to one kind only, so token totals and document frequencies are already
/// per kind). Counts include deleted documents not yet merged away, as tantivy's own do.
struct KindStats<'a> {
    searcher: &'a Searcher,
    docs: u64,
}

impl Bm25StatisticsProvider for KindStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        Bm25StatisticsProvider::total_num_tokens(self.searcher, field)
    }
    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs.max(1))
    }
    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        Ok(self.searcher.doc_freq(term)?.min(self.docs.max(1)))
    }
}

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
    /// An excerpt of the chunk, the matched words wrapped in `**`.
    pub snippet: String,
}

/// A note as ranked by its note document.
#[derive(Debug)]
struct RankedNote {
    path: String,
    title: String,
    score: f32,
    exact: bool,
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
            snippet: String::new(),
        }
    }
}

/// Options for a lexical search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// Maximum number of hits.
    pub limit: usize,
    /// Return every matching chunk instead of the best chunk per note.
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
    /// Chunk documents, every word must match.
    chunk_all: QueryParser,
    /// Chunk documents, any word may match.
    chunk_any: QueryParser,
}

impl std::fmt::Debug for Lexical {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexical")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

/// The index folder, readable even where this process may not write: readers take tantivy's
/// meta lock while they open segments, which needs a lock file; in a read-only vault (a
/// read-only mount, another user's vault) that lock is skipped, since no writer can work there
/// through this process either. Writer locks still fail, so writes report the problem.
#[derive(Debug, Clone)]
struct ReadOnlyTolerant(tantivy::directory::MmapDirectory);

impl tantivy::Directory for ReadOnlyTolerant {
    fn get_file_handle(
        &self,
        path: &Path,
    ) -> std::result::Result<
        std::sync::Arc<dyn tantivy::directory::FileHandle>,
        tantivy::directory::error::OpenReadError,
    > {
        self.0.get_file_handle(path)
    }
    fn delete(
        &self,
        path: &Path,
    ) -> std::result::Result<(), tantivy::directory::error::DeleteError> {
        self.0.delete(path)
    }
    fn exists(
        &self,
        path: &Path,
    ) -> std::result::Result<bool, tantivy::directory::error::OpenReadError> {
        self.0.exists(path)
    }
    fn open_write(
        &self,
        path: &Path,
    ) -> std::result::Result<tantivy::directory::WritePtr, tantivy::directory::error::OpenWriteError>
    {
        self.0.open_write(path)
    }
    fn atomic_read(
        &self,
        path: &Path,
    ) -> std::result::Result<Vec<u8>, tantivy::directory::error::OpenReadError> {
        self.0.atomic_read(path)
    }
    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.0.atomic_write(path, data)
    }
    fn sync_directory(&self) -> std::io::Result<()> {
        self.0.sync_directory()
    }
    fn acquire_lock(
        &self,
        lock: &tantivy::directory::Lock,
    ) -> std::result::Result<tantivy::directory::DirectoryLock, LockError> {
        match self.0.acquire_lock(lock) {
            Err(LockError::IoError(e))
                if lock.filepath == tantivy::directory::META_LOCK.filepath
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::PermissionDenied
                            | std::io::ErrorKind::ReadOnlyFilesystem
                    ) =>
            {
                Ok(tantivy::directory::DirectoryLock::from(Box::new(())))
            }
            other => other,
        }
    }
    fn watch(
        &self,
        callback: tantivy::directory::WatchCallback,
    ) -> tantivy::Result<tantivy::directory::WatchHandle> {
        self.0.watch(callback)
    }
}

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
            return Err(corrupt(
                dir,
                "index schema differs from this version of mindex",
            ));
        }
        Self::from_index(dir, index, fields)
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
        let mut chunk_any = QueryParser::new(
            index.schema(),
            vec![fields.headings, fields.body],
            query_tokenizers(),
        );
        chunk_any.set_field_boost(fields.headings, HEADINGS_BOOST);
        let mut chunk_all = chunk_any.clone();
        chunk_all.set_conjunction_by_default();
        Ok(Lexical {
            dir: dir.to_path_buf(),
            index,
            fields,
            reader,
            loaded_meta: std::sync::Mutex::new(key),
            note_all,
            note_any,
            name_phrase,
            chunk_all,
            chunk_any,
        })
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

    /// Takes the writer lock; fails with [`Error::Busy`] when another process holds it.
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

    fn open_writer(&self, threads: usize, arena_bytes: usize) -> Result<LexicalWriter> {
        let writer = self
            .index
            .writer_with_num_threads(threads, arena_bytes)
            .map_err(|e| match e {
                tantivy::TantivyError::LockFailure(LockError::LockBusy, _) => Error::Busy {
                    path: self.dir.clone(),
                },
                other => Error::from(other),
            })?;
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

    /// The statistics of note documents and of chunk documents in `searcher`.
    fn kind_stats<'a>(&self, searcher: &'a Searcher) -> Result<(KindStats<'a>, KindStats<'a>)> {
        let notes = searcher.doc_freq(&Term::from_field_u64(self.fields.kind, KIND_NOTE))?;
        let all: u64 = searcher
            .segment_readers()
            .iter()
            .map(|s| u64::from(s.max_doc()))
            .sum();
        Ok((
            KindStats {
                searcher,
                docs: notes,
            },
            KindStats {
                searcher,
                docs: all.saturating_sub(notes),
            },
        ))
    }

    /// Runs a BM25 query. Query syntax errors never fail: the query is parsed leniently.
    ///
    /// Notes are ranked by their whole text (see the module docs for the order); each hit shows
    /// the note's best-matching chunk. With `opts.all_chunks`, chunks are ranked on their own.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let Some(searcher) = self.searcher_for(query, opts.limit)? else {
            return Ok(Vec::new());
        };
        let (_, chunk_stats) = self.kind_stats(&searcher)?;
        if opts.all_chunks {
            let words = tokenizer::cjk_query_words(&tokenizer::quote_flags(query));
            let terms = snippet::query_terms(query);
            return self.chunk_hits(&searcher, &chunk_stats, &words, opts.limit, &terms);
        }
        let mut hits = self.rank_with(&searcher, query, opts.limit, None)?;
        self.fill_with(&searcher, &chunk_stats, &mut hits, query)?;
        Ok(hits)
    }

    /// [`Lexical::search`] without choosing chunks or building snippets: hits with `line_start`
    /// 0 and an empty snippet, for rankings most of which are never shown (fusion candidates,
    /// evaluation). [`Lexical::fill`] completes the ones shown.
    pub(crate) fn rank(&self, query: &str, limit: usize) -> Result<Vec<Hit>> {
        match self.searcher_for(query, limit)? {
            Some(searcher) => self.rank_with(&searcher, query, limit, None),
            None => Ok(Vec::new()),
        }
    }

    /// The paths of the notes in the top-level `folder` (e.g. `memories`) matching `query`, best
    /// first (the order of [`Lexical::search`]), at most `limit`. No snippets are built.
    pub fn paths_in_folder(&self, query: &str, limit: usize, folder: &str) -> Result<Vec<String>> {
        let Some(searcher) = self.searcher_for(query, limit)? else {
            return Ok(Vec::new());
        };
        Ok(self
            .rank_with(&searcher, query, limit, Some(folder))?
            .into_iter()
            .map(|h| h.path)
            .collect())
    }

    /// A searcher on the latest commit, or `None` when nothing can match (no room, no words).
    fn searcher_for(&self, query: &str, limit: usize) -> Result<Option<Searcher>> {
        if limit == 0 || query.trim().is_empty() {
            return Ok(None);
        }
        self.refresh()?;
        Ok(Some(self.reader.searcher()))
    }

    /// The ranking of [`Lexical::rank`] on `searcher`, optionally in one top-level folder.
    fn rank_with(
        &self,
        searcher: &Searcher,
        query: &str,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<Hit>> {
        let (note_stats, _) = self.kind_stats(searcher)?;
        Ok(self
            .rank_notes(searcher, &note_stats, query, limit, folder)?
            .into_iter()
            .map(RankedNote::into_hit)
            .collect())
    }

    /// Completes hits for display with `query`'s highlights: a hit from [`Lexical::rank`]
    /// (`line_start` 0) gets its note's best-matching chunk, and every hit without a snippet
    /// gets the snippet of its chunk. Scores and order are kept.
    pub(crate) fn fill(&self, hits: &mut [Hit], query: &str) -> Result<()> {
        if hits
            .iter()
            .all(|h| h.line_start != 0 && !h.snippet.is_empty())
        {
            return Ok(());
        }
        self.refresh()?;
        let searcher = self.reader.searcher();
        let (_, chunk_stats) = self.kind_stats(&searcher)?;
        self.fill_with(&searcher, &chunk_stats, hits, query)
    }

    fn fill_with(
        &self,
        searcher: &Searcher,
        chunk_stats: &KindStats<'_>,
        hits: &mut [Hit],
        query: &str,
    ) -> Result<()> {
        let terms = snippet::query_terms(query);
        let words = tokenizer::cjk_query_words(&tokenizer::quote_flags(query));
        let (chunk_query, _) = self.chunk_any.parse_query_lenient(&words);
        for hit in hits.iter_mut() {
            let doc = if hit.line_start == 0 {
                self.best_chunk(searcher, chunk_stats, &*chunk_query, &hit.path)?
            } else if hit.snippet.is_empty() {
                let mut found = None;
                for addr in self.docs_with_key(searcher, hit.key, 16)? {
                    let doc: TantivyDocument = searcher.doc(addr)?;
                    if text_of(&doc, self.fields.path) == hit.path {
                        found = Some(doc);
                        break;
                    }
                }
                found
            } else {
                continue;
            };
            let Some(doc) = doc else { continue };
            let full = self.hit_from_chunk(&doc, Some(&terms));
            *hit = Hit {
                path: std::mem::take(&mut hit.path),
                title: std::mem::take(&mut hit.title),
                score: hit.score,
                exact: hit.exact,
                ..full
            };
        }
        Ok(())
    }

    /// The best notes for `query`, at most `limit`, in ranking order (see the module docs),
    /// optionally only in the top-level `folder`.
    fn rank_notes(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        query: &str,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<RankedNote>> {
        let f = &self.fields;
        let words = tokenizer::cjk_query_words(&tokenizer::quote_flags(query));
        let (mut any, _) = self.note_any.parse_query_lenient(&words);
        let (mut all, _) = self.note_all.parse_query_lenient(&words);
        // A query that is a note's title or alias, word for word, names that note.
        let plain: String = words
            .chars()
            .filter(|c| {
                !matches!(
                    c,
                    '"' | '+' | ':' | '(' | ')' | '[' | ']' | '{' | '}' | '^' | '~'
                )
            })
            .collect();
        let n_words = plain.split_whitespace().count();
        if (2..=MAX_NAME_WORDS).contains(&n_words) {
            let (phrase, _) = self
                .name_phrase
                .parse_query_lenient(&format!("\"{plain}\""));
            let with_name = |q: Box<dyn Query>| -> Box<dyn Query> {
                Box::new(BooleanQuery::new(vec![
                    (Occur::Must, q),
                    (Occur::Should, phrase.box_clone()),
                ]))
            };
            any = with_name(any);
            all = with_name(all);
        }
        let mut tiers: Vec<(Box<dyn Query>, bool)> = Vec::new();
        let idents = identifier_terms(query);
        if !idents.is_empty() && names_identifiers(query) {
            // Every identifier, exactly (as a whole form, in any text field); scored by the
            // whole query.
            let mut clauses: Vec<(Occur, Box<dyn Query>)> = idents
                .iter()
                .map(|t| {
                    let q: Box<dyn Query> = Box::new(BoostQuery::new(
                        Box::new(TermQuery::new(
                            Term::from_field_text(f.idents, t),
                            IndexRecordOption::Basic,
                        )),
                        0.0,
                    ));
                    (Occur::Must, q)
                })
                .collect();
            clauses.push((Occur::Should, any.box_clone()));
            tiers.push((Box::new(BooleanQuery::new(clauses)), true));
        }
        tiers.push((all, false));
        tiers.push((any, false));
        let mut seen: HashSet<String> = HashSet::new();
        let mut out = Vec::new();
        for (q, exact) in tiers {
            let q: Box<dyn Query> = match folder {
                None => q,
                Some(folder) => {
                    let filter = TermQuery::new(
                        Term::from_field_text(f.folder, folder),
                        IndexRecordOption::Basic,
                    );
                    // The folder filter scores 0, so BM25 alone orders the notes.
                    Box::new(BooleanQuery::new(vec![
                        (Occur::Must, q),
                        (
                            Occur::Must,
                            Box::new(BoostQuery::new(Box::new(filter), 0.0)),
                        ),
                    ]))
                }
            };
            // A few more than needed, so that ties at the cut are broken by path, not by
            // where the documents sit in the index.
            let fetch = limit + seen.len() + 16;
            let top = searcher.search_with_statistics_provider(
                &*q,
                &TopDocs::with_limit(fetch).order_by_score(),
                stats,
            )?;
            let mut tier = Vec::with_capacity(top.len());
            for (score, addr) in top {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let path = text_of(&doc, f.path);
                if !seen.contains(&path) {
                    tier.push(RankedNote {
                        title: text_of(&doc, f.title),
                        path,
                        score,
                        exact,
                    });
                }
            }
            tier.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
            for n in tier {
                seen.insert(n.path.clone());
                out.push(n);
                if out.len() == limit {
                    return Ok(out);
                }
            }
        }
        Ok(out)
    }

    /// The chunk document of `path` that best matches `query` (chunk statistics); the first
    /// chunk when none matches (the note matched by its title, path or frontmatter).
    fn best_chunk(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        query: &dyn Query,
        path: &str,
    ) -> Result<Option<TantivyDocument>> {
        let f = &self.fields;
        let in_note: Box<dyn Query> = Box::new(BoostQuery::new(
            Box::new(TermQuery::new(
                Term::from_field_text(f.path, path),
                IndexRecordOption::Basic,
            )),
            0.0,
        ));
        let q = BooleanQuery::new(vec![
            (Occur::Must, query.box_clone()),
            (Occur::Must, in_note.box_clone()),
        ]);
        let top = searcher.search_with_statistics_provider(
            &q,
            &TopDocs::with_limit(8).order_by_score(),
            stats,
        )?;
        let mut best: Option<(f32, u64, TantivyDocument)> = None;
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let chunk = u64_of(&doc, f.chunk);
            if best
                .as_ref()
                .is_none_or(|(s, c, _)| score > *s || (score == *s && chunk < *c))
            {
                best = Some((score, chunk, doc));
            }
        }
        if let Some((_, _, doc)) = best {
            return Ok(Some(doc));
        }
        let first = BooleanQuery::new(vec![
            (Occur::Must, in_note),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.chunk, 0),
                    IndexRecordOption::Basic,
                )),
            ),
        ]);
        match searcher
            .search(&first, &TopDocs::with_limit(1).order_by_score())?
            .first()
        {
            Some((_, addr)) => Ok(Some(searcher.doc(*addr)?)),
            None => Ok(None),
        }
    }

    /// Chunks ranked on their own (every word first, then any), at most `limit`.
    fn chunk_hits(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        words: &str,
        limit: usize,
        terms: &HashSet<String>,
    ) -> Result<Vec<Hit>> {
        let mut seen: HashSet<(String, u64)> = HashSet::new();
        let mut hits = Vec::new();
        for parser in [&self.chunk_all, &self.chunk_any] {
            let (q, _) = parser.parse_query_lenient(words);
            let top = searcher.search_with_statistics_provider(
                &*q,
                &TopDocs::with_limit(limit + seen.len() + 16).order_by_score(),
                stats,
            )?;
            let mut tier = Vec::with_capacity(top.len());
            for (score, addr) in top {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let mut hit = self.hit_from_chunk(&doc, Some(terms));
                hit.score = score;
                if !seen.contains(&(hit.path.clone(), hit.chunk)) {
                    tier.push(hit);
                }
            }
            tier.sort_by(|a, b| {
                b.score
                    .total_cmp(&a.score)
                    .then(a.path.cmp(&b.path))
                    .then(a.chunk.cmp(&b.chunk))
            });
            for h in tier {
                seen.insert((h.path.clone(), h.chunk));
                hits.push(h);
                if hits.len() == limit {
                    return Ok(hits);
                }
            }
        }
        Ok(hits)
    }

    /// Every live chunk as (key, text to embed), one entry per distinct key.
    pub fn chunk_texts(&self) -> Result<Vec<(u64, String)>> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        let f = &self.fields;
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for segment in searcher.segment_readers() {
            let store = segment
                .get_store_reader(64)
                .map_err(|e| Error::io(&self.dir, e))?;
            for doc_id in segment.doc_ids_alive() {
                let doc: TantivyDocument = store.get(doc_id)?;
                if doc.get_first(f.key).is_none() {
                    continue; // a note document
                }
                let key = u64_of(&doc, f.key);
                if seen.insert(key) {
                    out.push((key, self.doc_embed_text(&doc)));
                }
            }
        }
        Ok(out)
    }

    /// Every distinct live chunk key, each with one live document holding it, read from the key
    /// field's term dictionary: no stored document is decompressed, so counting or diffing keys
    /// against the vector store costs little even on a large index.
    pub(crate) fn live_chunks(&self) -> Result<LiveChunks> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        let mut seen = HashSet::new();
        let mut entries = Vec::new();
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let inverted = segment.inverted_index(self.fields.key)?;
            let alive = segment.alive_bitset();
            let mut terms = inverted
                .terms()
                .stream()
                .map_err(|e| Error::io(&self.dir, e))?;
            while terms.advance() {
                // u64 terms are their value's big-endian bytes.
                let Ok(bytes) = <[u8; 8]>::try_from(terms.key()) else {
                    continue;
                };
                let key = u64::from_be_bytes(bytes);
                if seen.contains(&key) {
                    continue;
                }
                let mut postings = inverted
                    .read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)
                    .map_err(|e| Error::io(&self.dir, e))?;
                let mut doc = postings.doc();
                while doc != tantivy::TERMINATED && alive.is_some_and(|a| !a.is_alive(doc)) {
                    doc = postings.advance();
                }
                if doc != tantivy::TERMINATED {
                    seen.insert(key);
                    entries.push((key, tantivy::DocAddress::new(ord as u32, doc)));
                }
            }
        }
        Ok(LiveChunks {
            searcher,
            entries,
            text: [self.fields.chunk_title, self.fields.trail, self.fields.body],
        })
    }

    /// The embedded text (title, heading trail, body) of each chunk key found in the index.
    pub fn texts_for_keys(&self, keys: &[u64]) -> Result<Vec<Option<String>>> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        keys.iter()
            .map(
                |&key| match self.docs_with_key(&searcher, key, 1)?.first() {
                    None => Ok(None),
                    Some(addr) => {
                        let doc: TantivyDocument = searcher.doc(*addr)?;
                        Ok(Some(self.doc_embed_text(&doc)))
                    }
                },
            )
            .collect()
    }

    /// Up to `limit` live chunk documents whose content key is `key`.
    fn docs_with_key(
        &self,
        searcher: &tantivy::Searcher,
        key: u64,
        limit: usize,
    ) -> Result<Vec<tantivy::DocAddress>> {
        let q = TermQuery::new(
            Term::from_field_u64(self.fields.key, key),
            IndexRecordOption::Basic,
        );
        let top = searcher.search(&q, &TopDocs::with_limit(limit).order_by_score())?;
        Ok(top.into_iter().map(|(_, addr)| addr).collect())
    }

    /// The text a stored chunk document was (or will be) embedded as.
    fn doc_embed_text(&self, doc: &TantivyDocument) -> String {
        let f = &self.fields;
        embed_text(
            &text_of(doc, f.chunk_title),
            &text_of(doc, f.trail),
            &text_of(doc, f.body),
        )
    }

    /// Turns scored chunk keys (best first) into hits: the best chunk per note unless
    /// `opts.all_chunks`. Keys no longer in the index (deleted or changed chunks) are skipped.
    /// Snippets are left empty ([`Lexical::fill`] builds them for the hits shown).
    pub fn hits_for_keys(&self, scored: &[(u64, f32)], opts: &SearchOptions) -> Result<Vec<Hit>> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        for &(key, score) in scored {
            let mut docs = Vec::new();
            for addr in self.docs_with_key(&searcher, key, 16)? {
                docs.push(searcher.doc::<TantivyDocument>(addr)?);
            }
            // The same text in several notes: the same order whatever the index's history.
            docs.sort_by_cached_key(|d| {
                (text_of(d, self.fields.path), u64_of(d, self.fields.chunk))
            });
            for doc in docs {
                let mut hit = self.hit_from_chunk(&doc, None);
                let chunk = if opts.all_chunks { hit.chunk } else { 0 };
                if !seen.insert((hit.path.clone(), chunk)) {
                    continue;
                }
                hit.score = score;
                hits.push(hit);
                if hits.len() == opts.limit {
                    return Ok(hits);
                }
            }
        }
        Ok(hits)
    }

    /// A hit showing chunk document `doc`, its snippet built for the analyzed query `terms`
    /// (none: no snippet); the score is left at 0 for the caller.
    fn hit_from_chunk(&self, doc: &TantivyDocument, terms: Option<&HashSet<String>>) -> Hit {
        let f = &self.fields;
        let body = text_of(doc, f.body);
        let snip = match terms {
            Some(terms) => snippet::snippet(&body, terms),
            None => snippet::Snippet {
                text: String::new(),
                first_match_line: None,
            },
        };
        let line_start = u64_of(doc, f.line_start);
        let mut heading = text_of(doc, f.trail);
        let mut line = line_start;
        if let Some(offset) = snip.first_match_line {
            line += offset as u64;
            // The trail of the merged section the match is in.
            for entry in text_of(doc, f.sections).lines() {
                if let Some((l, trail)) = entry.split_once('\t')
                    && l.parse::<u64>().is_ok_and(|l| l <= line)
                {
                    heading = trail.to_string();
                }
            }
        }
        Hit {
            path: text_of(doc, f.path),
            title: text_of(doc, f.chunk_title),
            heading,
            line_start,
            line,
            line_end: u64_of(doc, f.line_end),
            chunk: u64_of(doc, f.chunk),
            key: u64_of(doc, f.key),
            score: 0.0,
            exact: false,
            snippet: snip.text,
        }
    }
}

/// The text a chunk is embedded as: its note's title and heading trail give the passage context.
pub(crate) fn embed_text(title: &str, trail: &str, body: &str) -> String {
    let mut s = String::with_capacity(title.len() + trail.len() + body.len() + 2);
    s.push_str(title);
    if !trail.is_empty() && trail != title {
        s.push('\n');
        s.push_str(trail);
    }
    s.push('\n');
    s.push_str(body);
    s
}

/// The live chunk keys of one index snapshot ([`Lexical::live_chunks`]).
pub(crate) struct LiveChunks {
    searcher: Searcher,
    /// (key, a live chunk document with that key), one per distinct key.
    entries: Vec<(u64, tantivy::DocAddress)>,
    /// The chunk title, heading trail and body fields (what [`embed_text`] joins).
    text: [Field; 3],
}

impl LiveChunks {
    /// Distinct live chunk keys.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The keys.
    pub(crate) fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.entries.iter().map(|(k, _)| *k)
    }

    /// How many keys `has` does not hold.
    pub(crate) fn count_missing(&self, has: impl Fn(u64) -> bool) -> usize {
        self.keys().filter(|k| !has(*k)).count()
    }

    /// (key, text to embed) of every chunk whose key `has` does not hold; documents are read in
    /// index order, so each stored block is decompressed once.
    pub(crate) fn texts_missing(&self, has: impl Fn(u64) -> bool) -> Result<Vec<(u64, String)>> {
        let mut want: Vec<&(u64, tantivy::DocAddress)> =
            self.entries.iter().filter(|(k, _)| !has(*k)).collect();
        want.sort_by_key(|(_, a)| (a.segment_ord, a.doc_id));
        let [title, trail, body] = self.text;
        want.into_iter()
            .map(|(key, addr)| {
                let doc: TantivyDocument = self.searcher.doc(*addr)?;
                Ok((
                    *key,
                    embed_text(
                        &text_of(&doc, title),
                        &text_of(&doc, trail),
                        &text_of(&doc, body),
                    ),
                ))
            })
            .collect()
    }
}

/// The content key of an embedded text (the vector store's key).
pub(crate) fn chunk_key(text: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

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

/// Frontmatter keys whose values are indexed in fields of their own (or are not text to find).
const NOT_META: &[&str] = &[
    "title",
    "aliases",
    "alias",
    "description",
    "tags",
    "tag",
    "cssclasses",
];

/// The frontmatter's scalar values (`ticket: OPS-2291`, `owner: Ana`, lists of scalars), one per
/// line, for the `meta` field.
fn frontmatter_scalars(fm: &serde_json::Map<String, serde_json::Value>) -> String {
    fn push(v: &serde_json::Value, out: &mut Vec<String>, depth: usize) {
        match v {
            serde_json::Value::String(s) if s.len() <= 512 => out.push(s.clone()),
            serde_json::Value::Number(n) => out.push(n.to_string()),
            serde_json::Value::Array(items) if depth == 0 => {
                for i in items.iter().take(64) {
                    push(i, out, 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in fm {
        if !NOT_META.iter().any(|n| k.eq_ignore_ascii_case(n)) {
            push(v, &mut out, 0);
        }
    }
    out.join("\n")
}

/// `line\ttrail` per merged section; empty for the usual one-section chunk.
fn sections_field(c: &Chunk) -> String {
    if c.sections.len() < 2 {
        return String::new();
    }
    c.sections
        .iter()
        .map(|(l, t)| format!("{l}\t{t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Holds the index writer lock while an update is applied.
///
/// A writer that changed something and is dropped without a successful [`Self::commit`] (an
/// error on the way, a failed commit on a full disk) rolls back and deletes the segment files
/// the uncommitted changes wrote, so a failed update leaves only the last commit's files.
pub(crate) struct LexicalWriter {
    /// `None` once a commit has consumed it.
    writer: Option<IndexWriter>,
    fields: Fields,
    dir: PathBuf,
    /// The segment files present when the writer was opened.
    before: std::collections::HashSet<String>,
    /// Whether anything was added or deleted since the writer was opened.
    dirty: std::sync::atomic::AtomicBool,
}

impl Drop for LexicalWriter {
    fn drop(&mut self) {
        self.discard();
    }
}

/// Whether a tantivy error comes from a full disk (or quota).
fn disk_full(e: &tantivy::TantivyError) -> bool {
    let text = format!("{e} {e:?}");
    text.contains("No space left on device")
        || text.contains("os error 28")
        || text.contains("Disk quota exceeded")
        || text.contains("StorageFull")
}

/// Whether the filesystem holding `dir` has (almost) no room left: tantivy reports a full disk
/// inside its worker threads only as "an index writer was killed", without the OS error.
fn no_room(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: statvfs writes into the zeroed struct given; the path is NUL-terminated.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return false;
        }
        (st.f_bavail as u64).saturating_mul(st.f_frsize as u64) < NO_ROOM_BYTES
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}

/// The names of the segment files in `dir` (`<32 hex digits>.<ext>`).
fn segment_files(dir: &Path) -> std::collections::HashSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Default::default();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| {
            n.split_once('.').is_some_and(|(stem, _)| {
                stem.len() == 32 && stem.bytes().all(|b| b.is_ascii_hexdigit())
            })
        })
        .collect()
}

/// Free space under which a failed index write is put down to a full disk (1 MiB).
const NO_ROOM_BYTES: u64 = 1 << 20;

impl LexicalWriter {
    fn mark(&self) {
        self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Rolls uncommitted changes back and deletes the files only they used.
    fn discard(&mut self) {
        if !self.dirty.swap(false, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Some(w) = self.writer.as_mut() {
            let _ = w.rollback();
            let _ = w.garbage_collect_files().wait();
            // tantivy collects only the files it registered; on a full disk a segment file can
            // be created whose registration failed. Under the writer lock, a segment file that
            // is new since the writer opened and not in the last commit is such an orphan.
            let Ok(live) = w.index().searchable_segment_ids() else {
                return;
            };
            let live: std::collections::HashSet<String> =
                live.iter().map(|id| id.uuid_string()).collect();
            for name in segment_files(&self.dir) {
                let stem = name.split_once('.').map_or(name.as_str(), |(s, _)| s);
                if !live.contains(stem) && !self.before.contains(&name) {
                    let _ = std::fs::remove_file(self.dir.join(&name));
                }
            }
        }
    }

    /// The error a failed write gives: a full disk names its cure (free space, run the update
    /// again: the index was rolled back and still answers), never `--rebuild`.
    fn failed(&self, e: tantivy::TantivyError) -> Error {
        if disk_full(&e) || no_room(&self.dir) {
            Error::Io {
                path: self.dir.clone(),
                source: std::sync::Arc::new(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "No space left on device: the update was rolled back and the index still answers as before; free disk space, then run `mindex update` again",
                )),
            }
        } else {
            Error::from(e)
        }
    }

    /// Removes every chunk of a note.
    pub fn delete_note(&self, path: &str) {
        if let Some(w) = &self.writer {
            self.mark();
            w.delete_term(Term::from_field_text(self.fields.path, path));
        }
    }

    /// Removes every document.
    pub fn delete_all(&mut self) -> Result<()> {
        self.mark();
        if let Some(w) = self.writer.as_mut() {
            w.delete_all_documents().map_err(|e| self.failed(e))?;
        }
        Ok(())
    }

    /// Adds a note: its note document and its chunks' documents (call [`Self::delete_note`]
    /// first when replacing).
    pub fn add_note(&self, note: &Note, chunks: &[Chunk]) -> Result<()> {
        let f = &self.fields;
        let aliases = note.aliases.join("\n");
        let description = note
            .frontmatter
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default();
        let tags = note.tags.join(" ");
        // The folders, and the file name unless it is the title (usually it is: then it is
        // scored as the title already, and a second copy made every title match count double).
        let stem_path = note.path.trim_end_matches(".md");
        let (dirs, stem) = stem_path.rsplit_once('/').unwrap_or(("", stem_path));
        let path_text = if stem.trim().eq_ignore_ascii_case(note.title.trim()) {
            dirs.replace(['/', '-', '_'], " ")
        } else {
            stem_path.replace(['/', '-', '_'], " ")
        };
        let folder = note.path.split_once('/').map_or("", |(top, _)| top);
        let meta = frontmatter_scalars(&note.frontmatter);
        let not_title = |h: &&String| !h.trim().eq_ignore_ascii_case(note.title.trim());
        let Some(w) = &self.writer else {
            return Ok(());
        };
        self.mark();
        w.add_document(doc!(
            f.path => note.path.as_str(),
            f.folder => folder,
            f.kind => KIND_NOTE,
            f.path_text => path_text.as_str(),
            f.title => note.title.as_str(),
            f.aliases => aliases.as_str(),
            f.description => description,
            f.note_headings => note
                .headings
                .iter()
                .map(|h| &h.text)
                .filter(not_title)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
            f.tags => tags.as_str(),
            f.meta => meta.as_str(),
            f.text => note.body.as_str(),
            f.idents => tokenizer::identifier_words(&[&note.title, &aliases, &meta, &note.body]),
        ))
        .map_err(|e| self.failed(e))?;
        for c in chunks {
            w.add_document(doc!(
                f.path => note.path.as_str(),
                f.folder => folder,
                f.kind => KIND_CHUNK,
                f.chunk_title => note.title.as_str(),
                f.headings => c
                    .headings
                    .iter()
                    .filter(not_title)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
                f.trail => c.heading(),
                f.sections => sections_field(c),
                f.body => c.text.as_str(),
                f.line_start => c.line_start as u64,
                f.line_end => c.line_end as u64,
                f.chunk => c.index as u64,
                f.key => chunk_key(&embed_text(&note.title, &c.heading(), &c.text)),
            ))
            .map_err(|e| self.failed(e))?;
        }
        Ok(())
    }

    /// Commits every change atomically and waits for merges to settle.
    /// A failed commit is rolled back and its files deleted (see the type's docs).
    pub fn commit(mut self) -> Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        if let Err(e) = w.commit() {
            let err = self.failed(e);
            self.discard();
            return Err(err);
        }
        self.dirty
            .store(false, std::sync::atomic::Ordering::Relaxed);
        // A commit makes a segment; the merge policy schedules merges of similar-sized ones.
        // Dropping the writer would cancel them, and a store written a few notes at a time would
        // pile up one segment per write (every search pays per segment), so wait for them.
        let Some(w) = self.writer.take() else {
            return Ok(());
        };
        w.wait_merging_threads().map_err(|e| self.failed(e))?;
        Ok(())
    }
}
