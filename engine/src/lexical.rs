//! The BM25 index (tantivy): one document per chunk.
//!
//! Fields and boosts: title ×0.3, aliases ×2, frontmatter description ×1.5, section headings ×1.5
//! (not the H1 repeating the title), tags ×1.5, path ×1, body ×1. Text is
//! lowercased, accent-folded, stripped of English stop words and stemmed. The note path is also kept as one raw term so a note's chunks
//! are deleted together. All changes of one update are applied in a single tantivy commit, so a
//! reader sees either the old index or the new one, never a mix.

mod tokenizer;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::directory::error::LockError;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, QueryParser, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
    Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term, doc};

use crate::chunk::Chunk;
use crate::error::{Error, Result};
use crate::note::Note;

/// Schema fields, resolved once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    path: Field,
    /// The first path segment (`memories` for `memories/2026/07/x.md`; empty at the root).
    folder: Field,
    path_text: Field,
    title: Field,
    aliases: Field,
    description: Field,
    headings: Field,
    trail: Field,
    sections: Field,
    tags: Field,
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

/// Segments with more documents than this are left alone by the per-write merges.
const SMALL_MERGE_MAX_DOCS: usize = 2_000;

/// The text analyzer of the searchable text fields.
const ANALYZER: &str = "mindex_en";

/// Words split by [`tokenizer::WordTokenizer`] (every script; identifiers by whole form and
/// parts), long tokens dropped, lowercased, accents folded, English stop words removed,
/// Snowball-stemmed. `whole_forms` is on for indexing and off for queries (see the tokenizer).
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
    index.tokenizers().register(ANALYZER, analyzer(true));
}

/// The tokenizers queries are parsed with: the query form of the analyzer.
fn query_tokenizers() -> tantivy::tokenizer::TokenizerManager {
    let manager = tantivy::tokenizer::TokenizerManager::default();
    manager.register(ANALYZER, analyzer(false));
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
        path_text: b.add_text_field("path_text", plain.clone()),
        title: b.add_text_field("title", text_stored.clone()),
        aliases: b.add_text_field("aliases", text.clone()),
        description: b.add_text_field("description", text.clone()),
        headings: b.add_text_field("headings", text),
        trail: b.add_text_field("trail", STORED),
        sections: b.add_text_field("sections", STORED),
        tags: b.add_text_field("tags", plain),
        body: b.add_text_field("body", text_stored),
        line_start: b.add_u64_field("line_start", STORED),
        line_end: b.add_u64_field("line_end", STORED),
        chunk: b.add_u64_field("chunk", STORED | INDEXED),
        key: b.add_u64_field("key", STORED | INDEXED),
    };
    (b.build(), fields)
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
    /// BM25 score (higher is better; comparable within one query only).
    pub score: f32,
    /// An excerpt of the chunk, the matched words wrapped in `**`.
    pub snippet: String,
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
    /// Every word must match (in some field).
    parser_all: QueryParser,
    /// Any word may match.
    parser_any: QueryParser,
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
        let mut parser_any = QueryParser::new(
            index.schema(),
            vec![
                fields.title,
                fields.aliases,
                fields.description,
                fields.headings,
                fields.tags,
                fields.path_text,
                fields.body,
            ],
            query_tokenizers(),
        );
        parser_any.set_field_boost(fields.title, TITLE_BOOST);
        parser_any.set_field_boost(fields.aliases, 2.0);
        parser_any.set_field_boost(fields.description, 1.5);
        parser_any.set_field_boost(fields.headings, HEADINGS_BOOST);
        parser_any.set_field_boost(fields.tags, 1.5);
        parser_any.set_field_boost(fields.path_text, 1.0);
        let mut parser_all = parser_any.clone();
        parser_all.set_conjunction_by_default();
        Ok(Lexical {
            dir: dir.to_path_buf(),
            index,
            fields,
            reader,
            loaded_meta: std::sync::Mutex::new(key),
            parser_all,
            parser_any,
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

    /// Runs a BM25 query. Query syntax errors never fail: the query is parsed leniently.
    ///
    /// Notes matching every word come first (ranked by BM25); when they are fewer than the limit,
    /// notes matching only some words follow, also by BM25.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        if opts.limit == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        self.refresh()?;
        let searcher = self.reader.searcher();
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        let query = tokenizer::cjk_query_words(query);
        for parser in [&self.parser_all, &self.parser_any] {
            let (query, _errors) = parser.parse_query_lenient(&query);
            self.collect(&searcher, &*query, opts, &mut seen, &mut hits)?;
            if hits.len() >= opts.limit {
                break;
            }
        }
        Ok(hits)
    }

    /// The paths of the notes in the top-level `folder` (e.g. `memories`) matching `query`, best
    /// first (every word matching first, then some), at most `limit`. No snippets are built.
    pub fn paths_in_folder(&self, query: &str, limit: usize, folder: &str) -> Result<Vec<String>> {
        if limit == 0 || query.trim().is_empty() {
            return Ok(Vec::new());
        }
        self.refresh()?;
        let searcher = self.reader.searcher();
        let filter = TermQuery::new(
            Term::from_field_text(self.fields.folder, folder),
            IndexRecordOption::Basic,
        );
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let query = tokenizer::cjk_query_words(query);
        for parser in [&self.parser_all, &self.parser_any] {
            let (parsed, _errors) = parser.parse_query_lenient(&query);
            // The folder filter scores 0, so BM25 alone orders the notes.
            let q = BooleanQuery::new(vec![
                (Occur::Must, parsed),
                (
                    Occur::Must,
                    Box::new(BoostQuery::new(Box::new(filter.clone()), 0.0)),
                ),
            ]);
            let top = searcher.search(&q, &TopDocs::with_limit(limit + 8).order_by_score())?;
            for (_, addr) in top {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let p = text_of(&doc, self.fields.path);
                if seen.insert(p.clone()) {
                    out.push(p);
                    if out.len() == limit {
                        return Ok(out);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Appends hits for `query` not already in `seen` until `hits` holds `opts.limit`.
    fn collect(
        &self,
        searcher: &tantivy::Searcher,
        query: &dyn tantivy::query::Query,
        opts: &SearchOptions,
        seen: &mut HashSet<(String, u64)>,
        hits: &mut Vec<Hit>,
    ) -> Result<()> {
        let mut snippets = SnippetGenerator::create(searcher, query, self.fields.body)?;
        snippets.set_max_num_chars(220);
        // Fetch more chunks than hits so that several chunks of one note still leave `limit` notes.
        let mut fetch = (opts.limit + seen.len()) * if opts.all_chunks { 1 } else { 4 };
        loop {
            let top = searcher.search(query, &TopDocs::with_limit(fetch).order_by_score())?;
            let exhausted = top.len() < fetch;
            for (score, addr) in top {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let path = text_of(&doc, self.fields.path);
                let chunk = if opts.all_chunks {
                    u64_of(&doc, self.fields.chunk)
                } else {
                    0
                };
                if !seen.insert((path.clone(), chunk)) {
                    continue;
                }
                hits.push(self.hit(&doc, path, score, &snippets));
                if hits.len() == opts.limit {
                    return Ok(());
                }
            }
            if exhausted || fetch >= 10_000 {
                return Ok(());
            }
            fetch *= 4;
        }
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
                let key = u64_of(&doc, f.key);
                if seen.insert(key) {
                    out.push((key, self.doc_embed_text(&doc)));
                }
            }
        }
        Ok(out)
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
            &text_of(doc, f.title),
            &text_of(doc, f.trail),
            &text_of(doc, f.body),
        )
    }

    /// Turns scored chunk keys (best first) into hits: the best chunk per note unless
    /// `opts.all_chunks`. Keys no longer in the index (deleted or changed chunks) are skipped.
    pub fn hits_for_keys(&self, scored: &[(u64, f32)], opts: &SearchOptions) -> Result<Vec<Hit>> {
        self.refresh()?;
        let searcher = self.reader.searcher();
        let f = &self.fields;
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        for &(key, score) in scored {
            for addr in self.docs_with_key(&searcher, key, 16)? {
                let doc: TantivyDocument = searcher.doc(addr)?;
                let path = text_of(&doc, f.path);
                let chunk = if opts.all_chunks {
                    u64_of(&doc, f.chunk)
                } else {
                    0
                };
                if !seen.insert((path.clone(), chunk)) {
                    continue;
                }
                let line_start = u64_of(&doc, f.line_start);
                hits.push(Hit {
                    title: text_of(&doc, f.title),
                    heading: text_of(&doc, f.trail),
                    line_start,
                    line_end: u64_of(&doc, f.line_end),
                    line: line_start,
                    chunk: u64_of(&doc, f.chunk),
                    key,
                    score,
                    snippet: lead(&text_of(&doc, f.body)),
                    path,
                });
                if hits.len() == opts.limit {
                    return Ok(hits);
                }
            }
        }
        Ok(hits)
    }

    fn hit(
        &self,
        doc: &TantivyDocument,
        path: String,
        score: f32,
        snippets: &SnippetGenerator,
    ) -> Hit {
        let f = &self.fields;
        let snippet = snippets.snippet_from_doc(doc);
        let line_start = u64_of(doc, f.line_start);
        let mut line = line_start;
        let mut heading = text_of(doc, f.trail);
        if let Some(first) = snippet.highlighted().iter().map(|r| r.start).min() {
            let body = text_of(doc, f.body);
            let mut at = (snippet.fragment_range().start + first).min(body.len());
            while !body.is_char_boundary(at) {
                at -= 1;
            }
            line += body.as_bytes()[..at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            // The trail of the merged section the match is in.
            for entry in text_of(doc, f.sections).lines() {
                if let Some((l, trail)) = entry.split_once('\t')
                    && l.parse::<u64>().is_ok_and(|l| l <= line)
                {
                    heading = trail.to_string();
                }
            }
        }
        let text = if snippet.fragment().is_empty() {
            lead(&text_of(doc, f.body))
        } else {
            let mut out = String::with_capacity(snippet.fragment().len() + 8);
            let frag = snippet.fragment();
            let mut at = 0;
            for r in merged_ranges(snippet.highlighted(), frag) {
                out.push_str(&frag[at..r.start]);
                out.push_str("**");
                out.push_str(&frag[r.start..r.end]);
                out.push_str("**");
                at = r.end;
            }
            out.push_str(&frag[at..]);
            out
        };
        Hit {
            path,
            title: text_of(doc, f.title),
            heading,
            line_start,
            line,
            line_end: u64_of(doc, f.line_end),
            chunk: u64_of(doc, f.chunk),
            key: u64_of(doc, f.key),
            score,
            snippet: text.split_whitespace().collect::<Vec<_>>().join(" "),
        }
    }
}

/// Highlight ranges sorted, merged and kept inside `frag` on character boundaries: a CJK pair
/// overlaps its characters, and an identifier's whole form its parts (and may run past the end of
/// a fragment cut after one of them).
fn merged_ranges(ranges: &[std::ops::Range<usize>], frag: &str) -> Vec<std::ops::Range<usize>> {
    let floor = |mut i: usize| {
        i = i.min(frag.len());
        while !frag.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let mut sorted: Vec<std::ops::Range<usize>> = ranges
        .iter()
        .map(|r| floor(r.start)..floor(r.end))
        .filter(|r| r.start < r.end)
        .collect();
    sorted.sort_by_key(|r| (r.start, r.end));
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(sorted.len());
    for r in sorted {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
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

/// The first ~220 bytes of a text, on a char boundary, whitespace collapsed.
fn lead(body: &str) -> String {
    let mut end = body.len().min(220);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    body[..end].split_whitespace().collect::<Vec<_>>().join(" ")
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

    /// Adds the chunks of a note (call [`Self::delete_note`] first when replacing).
    pub fn add_note(&self, note: &Note, chunks: &[Chunk]) -> Result<()> {
        let f = &self.fields;
        let aliases = note.aliases.join("\n");
        let description = note
            .frontmatter
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default();
        let tags = note.tags.join(" ");
        let path_text = note
            .path
            .trim_end_matches(".md")
            .replace(['/', '-', '_'], " ");
        let Some(w) = &self.writer else {
            return Ok(());
        };
        self.mark();
        for c in chunks {
            w.add_document(doc!(
                f.path => note.path.as_str(),
                f.folder => note.path.split_once('/').map_or("", |(top, _)| top),
                f.path_text => path_text.as_str(),
                f.title => note.title.as_str(),
                f.aliases => aliases.as_str(),
                f.description => description,
                f.headings => c
                    .headings
                    .iter()
                    .filter(|h| !h.trim().eq_ignore_ascii_case(note.title.trim()))
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join("\n"),
                f.trail => c.heading(),
                f.sections => sections_field(c),
                f.tags => tags.as_str(),
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
