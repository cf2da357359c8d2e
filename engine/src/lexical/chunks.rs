//! Chunks and their vectors' keys: the texts to embed, the live chunk keys, hits for vector
//! results.

use std::collections::HashSet;

use super::{Hit, Lexical, SearchOptions, snippet, text_of, u64_of};
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, Searcher, TantivyDocument, Term};

use crate::error::{Error, Result};

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

impl Lexical {
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
    pub(super) fn docs_with_key(
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
    pub(super) fn doc_embed_text(&self, doc: &TantivyDocument) -> String {
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
    pub(super) fn hit_from_chunk(
        &self,
        doc: &TantivyDocument,
        terms: Option<&HashSet<String>>,
    ) -> Hit {
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
        let path = text_of(doc, f.path);
        Hit {
            scaffold: self.is_scaffold(&path),
            path,
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

impl Lexical {
    /// The notes whose frontmatter values (the `meta` field) hold every word of `value`, as the
    /// field's analyzer makes them, sorted by path: a superset of the notes with that value, for
    /// a caller to confirm by reading them.
    pub(crate) fn paths_with_meta(&self, value: &str) -> Result<Vec<String>> {
        use tantivy::collector::DocSetCollector;
        use tantivy::query::{BooleanQuery, Occur, Query};
        use tantivy::tokenizer::TokenStream;

        let Some(mut analyzer) = self.index.tokenizers().get(super::fields::ANALYZER) else {
            return Ok(Vec::new());
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_u64(self.fields.kind, super::KIND_NOTE),
                IndexRecordOption::Basic,
            )),
        )];
        let mut stream = analyzer.token_stream(value);
        while stream.advance() {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(self.fields.meta, &stream.token().text),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        self.refresh()?;
        let searcher = self.reader.searcher();
        let mut out = Vec::new();
        for addr in searcher.search(&BooleanQuery::new(clauses), &DocSetCollector)? {
            let doc: TantivyDocument = searcher.doc(addr)?;
            out.push(text_of(&doc, self.fields.path));
        }
        out.sort();
        Ok(out)
    }

    /// The paths of the indexed notes whose file name is `file_name` (compared without case),
    /// sorted; `None` when the name has no word the index holds (the caller then looks on
    /// disk). A term lookup, so its cost follows the notes sharing the name's words, not the
    /// vault's size: the name's words are in the note's tokenised path, or (when the file name
    /// is the title, which the path field then leaves out) in its title.
    pub fn paths_named(&self, file_name: &str) -> Result<Option<Vec<String>>> {
        use tantivy::collector::DocSetCollector;
        use tantivy::query::{BooleanQuery, Occur, Query};
        use tantivy::tokenizer::TokenStream;

        let stem = file_name
            .strip_suffix(".md")
            .or_else(|| file_name.strip_suffix(".MD"))
            .unwrap_or(file_name);
        // Every word of the stem, as `field`'s analyzer makes them, all required.
        let all_words = |analyzer: &str, field: Field| -> Option<Box<dyn Query>> {
            let mut analyzer = self.index.tokenizers().get(analyzer)?;
            let mut words: Vec<String> = Vec::new();
            let mut stream = analyzer.token_stream(stem);
            while stream.advance() {
                let w = stream.token().text.clone();
                if !words.contains(&w) {
                    words.push(w);
                }
            }
            if words.is_empty() {
                return None;
            }
            let clauses: Vec<(Occur, Box<dyn Query>)> = words
                .iter()
                .map(|w| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(field, w),
                        IndexRecordOption::Basic,
                    ));
                    (Occur::Must, q)
                })
                .collect();
            Some(Box::new(BooleanQuery::new(clauses)))
        };
        let either: Vec<(Occur, Box<dyn Query>)> = [
            all_words("default", self.fields.path_text),
            all_words(super::fields::ANALYZER, self.fields.title),
        ]
        .into_iter()
        .flatten()
        .map(|q| (Occur::Should, q))
        .collect();
        if either.is_empty() {
            return Ok(None);
        }
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(self.fields.kind, super::KIND_NOTE),
                    IndexRecordOption::Basic,
                )) as Box<dyn Query>,
            ),
            (Occur::Must, Box::new(BooleanQuery::new(either))),
        ]);
        self.refresh()?;
        let searcher = self.reader.searcher();
        let wanted = file_name.to_lowercase();
        let mut out = Vec::new();
        for addr in searcher.search(&query, &DocSetCollector)? {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let path = text_of(&doc, self.fields.path);
            let name = path.rsplit('/').next().unwrap_or(&path);
            if name.to_lowercase() == wanted {
                out.push(path);
            }
        }
        out.sort();
        out.dedup();
        Ok(Some(out))
    }
}
