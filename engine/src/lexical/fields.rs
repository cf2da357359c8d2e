//! The index's schema and analyzers: fields and boosts, the English analyzer and the identifier
//! analyzer, query-side analysis, and per-kind BM25 statistics ([`KindStats`]).

use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, Searcher, Term};

use super::tokenizer;

/// `kind` of a note document.
pub(super) const KIND_NOTE: u64 = 1;
/// `kind` of a chunk document.
pub(super) const KIND_CHUNK: u64 = 0;
/// `kind` of a marker document (a path and this kind, nothing else): the note at that path was
/// withheld from agents when it was indexed ([`crate::Note::withheld`]).
pub(super) const KIND_WITHHELD: u64 = 2;

/// Schema fields, resolved once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields {
    /// Both kinds: the note path (one raw term).
    pub(super) path: Field,
    /// Both kinds: the first path segment (`memories` for `memories/2026/07/x.md`; empty at the
    /// root).
    pub(super) folder: Field,
    /// [`KIND_NOTE`], [`KIND_CHUNK`] or [`KIND_WITHHELD`].
    pub(super) kind: Field,
    // Note documents.
    pub(super) path_text: Field,
    pub(super) title: Field,
    pub(super) aliases: Field,
    pub(super) description: Field,
    pub(super) note_headings: Field,
    pub(super) tags: Field,
    pub(super) meta: Field,
    pub(super) text: Field,
    /// Identifiers' whole forms, from the text, title, headings and frontmatter.
    pub(super) idents: Field,
    /// Where the note's chunks sit in `text` ([`super::pick::ChunkSpans`]), stored.
    pub(super) spans: Field,
    // Chunk documents: stored, not indexed (but for `chunk` and `key`).
    pub(super) chunk_title: Field,
    pub(super) trail: Field,
    pub(super) sections: Field,
    pub(super) body: Field,
    pub(super) line_start: Field,
    pub(super) line_end: Field,
    pub(super) chunk: Field,
    pub(super) key: Field,
}

/// Lucene's English stop words, plus the question words and pronouns agents' natural-language
/// queries are full of ("how do we …"), which otherwise match headings like "How we work".
pub(super) const STOP_WORDS: &[&str] = &[
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
pub(super) const TITLE_BOOST: f32 = 0.3;
/// Weight of the headings field, which holds a note's section headings except its title
/// (an H1 repeating the title is already scored as the title and in the body): a query naming a
/// section ("reversible rollout") finds the note that has that section before a note that
/// merely links to it. The BEIR sets have no headings but the title, so their figures do not
/// move with this weight.
pub(super) const HEADINGS_BOOST: f32 = 1.5;

/// Weight of a query found word for word (as a phrase) in a note's title or an alias:
/// `ledger migration` finds the note aliased "ledger migration" before a longer note that uses
/// both words more often.
pub(super) const NAME_BOOST: f32 = 2.0;
/// Queries longer than this are questions, not names: no title phrase is tried.
pub(super) const MAX_NAME_WORDS: usize = 8;

/// Segments with more documents than this are left alone by the per-write merges.
pub(super) const SMALL_MERGE_MAX_DOCS: usize = 2_000;

/// The text analyzer of the searchable text fields.
pub(super) const ANALYZER: &str = "mindex_en";

/// The analyzer of the `idents` field.
pub(super) const IDENTS_ANALYZER: &str = "mindex_idents";

/// Identifiers' whole forms ([`tokenizer::IdentTokenizer`]), lowercased, accents folded,
/// Snowball-stemmed like the text (no stop words: an identifier is never one).
pub(super) fn idents_analyzer(query: bool) -> tantivy::tokenizer::TextAnalyzer {
    use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, RemoveLongFilter, TextAnalyzer};
    TextAnalyzer::builder(tokenizer::IdentTokenizer { query })
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(super::stem::CachedStemmer::default())
        .build()
}

/// Words split by [`tokenizer::WordTokenizer`] (every script; identifiers by their parts, and
/// with `whole_forms` also whole), long tokens dropped, lowercased, accents folded, English stop
/// words removed, Snowball-stemmed. The text fields are indexed and queried without whole forms
/// (measured: indexing them cost nDCG@10 on both dev sets, 0.683 → 0.675 SciFact, 0.375 → 0.371
/// Cranfield); those live in the `idents` field. Highlighting uses them.
pub(super) fn analyzer(whole_forms: bool) -> tantivy::tokenizer::TextAnalyzer {
    use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, RemoveLongFilter, TextAnalyzer};
    TextAnalyzer::builder(tokenizer::WordTokenizer { whole_forms })
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(super::stem::CachedStemmer::without(STOP_WORDS))
        .build()
}

/// An analyzed term and its byte span in the text.
pub(crate) type SpannedTerm = (String, std::ops::Range<usize>);

/// [`analyzer`] with whole forms and without the stop-word filter: every word of a text, so
/// that a whole form still sits right before its first part (for [`analyze_for_highlights`]).
fn highlight_analyzer() -> tantivy::tokenizer::TextAnalyzer {
    use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, RemoveLongFilter, TextAnalyzer};
    TextAnalyzer::builder(tokenizer::WordTokenizer { whole_forms: true })
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(super::stem::CachedStemmer::default())
        .build()
}

/// `text` analyzed once for highlighting: the terms `keep` accepts, each with its byte span
/// (stop words are analyzed too: they match no query term, whose stop words are removed), and
/// the spans of the identifiers' whole forms (a whole form comes right before its first part, at
/// the same position and start, and ends later), which a highlight widens to.
pub(crate) fn analyze_for_highlights(
    text: &str,
    keep: impl Fn(&str) -> bool,
) -> (Vec<SpannedTerm>, Vec<std::ops::Range<usize>>) {
    thread_local! {
        static HIGHLIGHT: std::cell::RefCell<tantivy::tokenizer::TextAnalyzer> =
            std::cell::RefCell::new(highlight_analyzer());
    }
    HIGHLIGHT.with(|a| {
        let mut a = a.borrow_mut();
        let mut stream = a.token_stream(text);
        let mut terms: Vec<SpannedTerm> = Vec::new();
        let mut wholes = Vec::new();
        let mut last: Option<(usize, std::ops::Range<usize>)> = None;
        while let Some(t) = stream.next() {
            let span = t.offset_from..t.offset_to;
            if let Some((position, whole)) = &last
                && *position == t.position
                && whole.start == span.start
                && whole.end > span.end
            {
                wholes.push(whole.clone());
            }
            last = Some((t.position, span.clone()));
            if keep(&t.text) {
                terms.push((t.text.clone(), span));
            }
        }
        (terms, wholes)
    })
}

/// Registers the indexing analyzer. Tokenizers are not stored in the index: this runs on every
/// open.
pub(super) fn register_analyzer(index: &Index) {
    index.tokenizers().register(ANALYZER, analyzer(false));
    index
        .tokenizers()
        .register(IDENTS_ANALYZER, idents_analyzer(false));
}

/// The tokenizers queries are parsed with: the query form of the analyzer.
pub(super) fn query_tokenizers() -> tantivy::tokenizer::TokenizerManager {
    let manager = tantivy::tokenizer::TokenizerManager::default();
    manager.register(ANALYZER, analyzer(false));
    manager.register(IDENTS_ANALYZER, idents_analyzer(true));
    manager
}

pub(super) fn schema() -> (Schema, Fields) {
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
        // A fast column too: ranking reads the path of each candidate note from it, not from
        // the compressed document store.
        path: b.add_text_field("path", STRING | STORED | FAST),
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
        spans: b.add_bytes_field("spans", STORED),
        chunk_title: b.add_text_field("chunk_title", STORED),
        trail: b.add_text_field("trail", STORED),
        sections: b.add_text_field("sections", STORED),
        body: b.add_text_field("body", STORED),
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
pub(super) const MAX_WORDS_BESIDE_IDENTIFIERS: usize = 2;

/// Most words a question may hold besides an unmistakable identifier of code or operations
/// (see [`code_identifier`]) for it to still look the identifier up: "is it safe to deploy
/// ledger v2.4.7 again?" asks about the notes that hold `v2.4.7`, never about one that does not.
pub(super) const MAX_WORDS_BESIDE_CODE_IDENTIFIERS: usize = 10;

/// Whether `query` looks an identifier up (see [`MAX_WORDS_BESIDE_IDENTIFIERS`] and
/// [`MAX_WORDS_BESIDE_CODE_IDENTIFIERS`]).
pub(super) fn names_identifiers(query: &str) -> bool {
    let mut idents = 0;
    let mut code = false;
    let mut words = 0;
    for w in query.split_whitespace() {
        if !identifier_terms(w).is_empty() {
            idents += 1;
            code |= code_identifier(w);
        } else if !analyze(w, false).is_empty() {
            words += 1;
        }
    }
    idents > 0
        && (words <= MAX_WORDS_BESIDE_IDENTIFIERS
            || (code && words <= MAX_WORDS_BESIDE_CODE_IDENTIFIERS))
}

/// An identifier no prose word looks like: a version (`v2.4.7`, `1.18.3`), a path or dotted
/// key (`services/ledger/sync.rs`, `payments.retry.max_attempts`), a constant or variable with
/// `_`, a command-line flag, or a ticket (`PAY-1042`: letters, a hyphen, three digits or more).
/// A short hyphenated term (`IL-6`, `COX-2`) is a word of science as often as a ticket.
pub(super) fn code_identifier(word: &str) -> bool {
    let w = word.trim_matches(|c: char| !c.is_alphanumeric() && !"-_./\\".contains(c));
    let w = w.trim_end_matches(['.', '-']);
    if w.starts_with("--") || w.contains('_') {
        return true;
    }
    // A path: two separators or more, or a file name with an extension (`mg/kg` and
    // `CD4+/CD8+` are words of science, `src/sync.rs` is a path).
    let separators = w.matches(['/', '\\']).count();
    if separators >= 2
        || (separators == 1
            && w.rsplit(['/', '\\'])
                .next()
                .and_then(|name| name.rsplit_once('.'))
                .is_some_and(|(_, ext)| !ext.is_empty() && ext.chars().all(char::is_alphanumeric)))
    {
        return true;
    }
    let dots = w.matches('.').count();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let version = w.strip_prefix(['v', 'V']).unwrap_or(w);
    if dots >= 1 && version.split('.').all(digits) && (dots >= 2 || version.len() < w.len()) {
        return true;
    }
    if dots >= 1
        && w.split('.')
            .all(|p| p.len() >= 2 && p.chars().next().is_some_and(char::is_alphabetic))
    {
        return true;
    }
    match w.split_once('-') {
        Some((a, b)) => {
            a.len() >= 2 && a.chars().all(|c| c.is_ascii_alphabetic()) && b.len() >= 3 && digits(b)
        }
        None => false,
    }
}

/// BM25 statistics of one document kind. tantivy counts every document of the index as one
/// collection; notes and chunks are two, so each kind's scores use its own document count (a
/// field belongs to one kind only, so token totals and document frequencies are already
/// per kind). Counts include deleted documents not yet merged away, as tantivy's own do.
pub(super) struct KindStats<'a> {
    pub(super) searcher: &'a Searcher,
    pub(super) docs: u64,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_identifiers_are_told_from_words_of_science() {
        for w in [
            "v2.4.7",
            "1.18.3",
            "v2.4?",
            "services/ledger/src/sync.rs",
            "src/sync.rs",
            "payments.retry.max_attempts",
            "LEDGER_SYNC_MAX_CONNS",
            "--max-inflight",
            "PAY-1042",
            "`OPS-229`,",
        ] {
            assert!(code_identifier(w), "{w}");
        }
        for w in [
            "IL-6",
            "COX-2",
            "IL-17",
            "0.05",
            "3.14",
            "long-term",
            "ledger",
            "e.g.",
            "mg/kg",
            "CD4+/CD8+",
        ] {
            assert!(!code_identifier(w), "{w}");
        }
    }

    #[test]
    fn a_question_naming_a_code_identifier_looks_it_up() {
        assert!(names_identifiers(
            "is it safe to deploy ledger v2.4.7 again?"
        ));
        assert!(names_identifiers("what happened in PAY-1043"));
        assert!(!names_identifiers(
            "IL-6 signalling is required for the differentiation of T helper cells"
        ));
    }
}
