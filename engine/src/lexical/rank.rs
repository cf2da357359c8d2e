//! Ranking: `search`, `rank` and `fill` — notes ranked by their note documents (exact tier, all
//! words, any word; BM25; ties by path), then the best chunk of each shown note.

use std::collections::HashSet;

use super::pick::{ChunkPick, ChunkScore, ChunkSpans};
use super::tokenizer::{Syntax, parser_words};
use super::{
    Hit, KindStats, Lexical, MAX_NAME_WORDS, RankedNote, SearchOptions, best_first,
    identifier_terms, live_docs, names_identifiers, path_at, path_columns, snippet, text_of,
};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::schema::Value as _;
use tantivy::{Searcher, TantivyDocument, Term};

use crate::error::Result;

impl Lexical {
    /// Runs a BM25 query. Query syntax errors never fail: the query is parsed leniently.
    ///
    /// Notes are ranked by their whole text (see the module docs for the order); each hit shows
    /// the note's best-matching chunk. With `opts.all_chunks`, chunks are ranked on their own.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let Some(searcher) = self.searcher_for(query, opts.limit)? else {
            return Ok(Vec::new());
        };
        let stats = self.note_stats(&searcher)?;
        if opts.all_chunks {
            return self.chunk_hits(&searcher, &stats, query, opts.limit);
        }
        let mut hits = self.rank_with(&searcher, query, Syntax::Full, opts.limit, None)?;
        self.fill_with(&searcher, &stats, &mut hits, query, Syntax::Full)?;
        Ok(hits)
    }

    /// [`Lexical::search`] without choosing chunks or building snippets: hits with `line_start`
    /// 0 and an empty snippet, for rankings most of which are never shown (fusion candidates,
    /// evaluation). [`Lexical::fill`] completes the ones shown.
    pub(crate) fn rank(&self, query: &str, syntax: Syntax, limit: usize) -> Result<Vec<Hit>> {
        match self.searcher_for(query, limit)? {
            Some(searcher) => self.rank_with(&searcher, query, syntax, limit, None),
            None => Ok(Vec::new()),
        }
    }

    /// The paths of the notes in the top-level `folder` (e.g. `memories`) matching `query`, best
    /// first (the order of [`Lexical::search`]), at most `limit`. No snippets are built. The
    /// query is an agent's (`recall`): read as words only ([`Syntax::Words`]).
    pub fn paths_in_folder(&self, query: &str, limit: usize, folder: &str) -> Result<Vec<String>> {
        let Some(searcher) = self.searcher_for(query, limit)? else {
            return Ok(Vec::new());
        };
        Ok(self
            .rank_with(&searcher, query, Syntax::Words, limit, Some(folder))?
            .into_iter()
            .map(|h| h.path)
            .collect())
    }

    /// A searcher on the latest commit, or `None` when nothing can match (no room, no words).
    pub(super) fn searcher_for(&self, query: &str, limit: usize) -> Result<Option<Searcher>> {
        if limit == 0 || query.trim().is_empty() {
            return Ok(None);
        }
        self.refresh()?;
        Ok(Some(self.reader.searcher()))
    }

    /// The ranking of [`Lexical::rank`] on `searcher`, optionally in one top-level folder.
    pub(super) fn rank_with(
        &self,
        searcher: &Searcher,
        query: &str,
        syntax: Syntax,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<Hit>> {
        let note_stats = self.note_stats(searcher)?;
        Ok(self
            .rank_notes(searcher, &note_stats, query, syntax, limit, folder)?
            .into_iter()
            .map(RankedNote::into_hit)
            .collect())
    }

    /// Completes hits for display with `query`'s highlights: a hit from [`Lexical::rank`]
    /// (`line_start` 0) gets its note's best-matching chunk, and every hit without a snippet
    /// gets the snippet of its chunk. Scores and order are kept.
    pub(crate) fn fill(&self, hits: &mut [Hit], query: &str, syntax: Syntax) -> Result<()> {
        if hits
            .iter()
            .all(|h| h.line_start != 0 && !h.snippet.is_empty())
        {
            return Ok(());
        }
        self.refresh()?;
        let searcher = self.reader.searcher();
        let stats = self.note_stats(&searcher)?;
        self.fill_with(&searcher, &stats, hits, query, syntax)
    }

    pub(super) fn fill_with(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        hits: &mut [Hit],
        query: &str,
        syntax: Syntax,
    ) -> Result<()> {
        let terms = snippet::query_terms(query);
        let pick = self.chunk_pick(stats, query, syntax)?;
        for hit in hits.iter_mut() {
            let doc = if hit.line_start == 0 {
                let docs = self.path_docs(searcher, &hit.path)?;
                let best = ChunkPick::best(&self.chunk_scores(searcher, &pick, &docs)?);
                self.chunk_doc(searcher, &docs, best.unwrap_or(0))?
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
            let Some(doc) = doc else {
                // A note without chunks (an empty body): its title from its note document.
                if hit.title.is_empty() {
                    hit.title = self.note_title(searcher, &hit.path)?;
                }
                continue;
            };
            // The title comes with the chunk (every chunk document holds its note's title).
            let full = self.hit_from_chunk(&doc, Some(&terms));
            *hit = Hit {
                path: std::mem::take(&mut hit.path),
                score: hit.score,
                exact: hit.exact,
                scaffold: hit.scaffold,
                ..full
            };
        }
        Ok(())
    }

    /// The best notes for `query`, at most `limit`, in ranking order (see the module docs),
    /// optionally only in the top-level `folder`.
    pub(super) fn rank_notes(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        query: &str,
        syntax: Syntax,
        limit: usize,
        folder: Option<&str>,
    ) -> Result<Vec<RankedNote>> {
        let f = &self.fields;
        let words = parser_words(query, syntax);
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
        // The any-word tier as a flat union of its term queries (scored by block-max WAND),
        // with the name phrase's bonus merged in after ([`Lexical::top_union`]).
        let union = flat_union(&*any);
        // A one-word query's every-word tier is that word's union too.
        let union_all = flat_union(&*all);
        let mut name: Option<Box<dyn Query>> = None;
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
            name = Some(phrase);
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
        let all_tier = tiers.len();
        tiers.push((all, false));
        let any_tier = tiers.len();
        tiers.push((any, false));
        let mut seen: HashSet<String> = HashSet::new();
        let mut out = Vec::new();
        // Scaffolding (templates, agent manuals, infrastructure) waits until every note a
        // person wrote that the query finds is in.
        let mut scaffolding: Vec<RankedNote> = Vec::new();
        let paths = path_columns(searcher);
        // A query of one clause (a word, a phrase) is its own every-word tier: when that tier
        // saw every note it matches, the any-word tier could only find them again.
        let one_clause = one_clause(&words);
        let mut every_note_seen = false;
        for (i, (q, exact)) in tiers.into_iter().enumerate() {
            if i == any_tier && one_clause && every_note_seen {
                break;
            }
            let union = match i {
                _ if folder.is_some() => None,
                i if i == any_tier => union.as_ref(),
                i if i == all_tier => union_all.as_ref(),
                _ => None,
            };
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
            let top = match union {
                Some(union) => self.top_union(searcher, stats, union, name.as_deref(), fetch)?,
                None => searcher.search_with_statistics_provider(
                    &*q,
                    &TopDocs::with_limit(fetch).order_by_score(),
                    stats,
                )?,
            };
            every_note_seen = i == all_tier && top.len() < fetch;
            let need = limit - out.len();
            let mut tier = Vec::with_capacity(need.min(top.len()));
            let mut written = 0;
            for (score, addr) in top {
                // Best first: past the score of the last note needed, only ties can still
                // enter, so lower scores are not fetched from the store.
                if written >= need && tier.last().is_some_and(|n: &RankedNote| score < n.score) {
                    break;
                }
                // The path from its column; the title is filled in with the note's best chunk
                // (only the notes shown need one).
                let path = match path_at(&paths, addr) {
                    Some(path) => path,
                    None => text_of(&searcher.doc::<TantivyDocument>(addr)?, f.path),
                };
                if !seen.contains(&path) {
                    let scaffold = self.is_scaffold(&path);
                    written += usize::from(!scaffold);
                    tier.push(RankedNote {
                        title: String::new(),
                        path,
                        score,
                        exact,
                        scaffold,
                    });
                }
            }
            tier.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.path.cmp(&b.path)));
            for n in tier {
                seen.insert(n.path.clone());
                if n.scaffold {
                    scaffolding.push(n);
                    continue;
                }
                out.push(n);
                if out.len() == limit {
                    return Ok(out);
                }
            }
        }
        let room = limit - out.len();
        out.extend(scaffolding.into_iter().take(room));
        Ok(out)
    }

    /// The best `fetch` documents of `Must(union) + Should(name)` (the any-word tier) with the
    /// same scores, found faster: `union` alone, a flat union of term queries, is what tantivy
    /// scores with block-max WAND, skipping blocks of postings that cannot reach the top; the
    /// documents the name phrase matches (few: it is a phrase on titles and aliases) are scored
    /// with it separately and merged in. A document without the phrase scores `union` alone, so
    /// the best `fetch` of the whole are among the best `fetch + |phrase matches|` of `union`
    /// and the phrase matches.
    fn top_union(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        union: &dyn Query,
        name: Option<&dyn Query>,
        fetch: usize,
    ) -> Result<Vec<(f32, tantivy::DocAddress)>> {
        let named = match name {
            Some(phrase) => {
                let both = BooleanQuery::new(vec![
                    (Occur::Must, union.box_clone()),
                    (Occur::Must, phrase.box_clone()),
                ]);
                searcher.search_with_statistics_provider(
                    &both,
                    &TopDocs::with_limit(fetch).order_by_score(),
                    stats,
                )?
            }
            None => Vec::new(),
        };
        let mut top = searcher.search_with_statistics_provider(
            union,
            &TopDocs::with_limit(fetch + named.len()).order_by_score(),
            stats,
        )?;
        if !named.is_empty() {
            let boosted: HashSet<tantivy::DocAddress> = named.iter().map(|(_, a)| *a).collect();
            top.retain(|(_, a)| !boosted.contains(a));
            top.extend(named);
            best_first(&mut top);
        }
        top.truncate(fetch);
        Ok(top)
    }

    /// The title of the note at `path`, from its note document (empty when it has none).
    fn note_title(&self, searcher: &Searcher, path: &str) -> Result<String> {
        let f = &self.fields;
        let q = self.path_and_kind(path, super::KIND_NOTE);
        let top = searcher.search(&q, &TopDocs::with_limit(1).order_by_score())?;
        Ok(match top.first() {
            Some((_, addr)) => text_of(&searcher.doc::<TantivyDocument>(*addr)?, f.title),
            None => String::new(),
        })
    }

    /// The terms that pick a hit's chunk for `query`, weighed once for every hit.
    fn chunk_pick(&self, stats: &KindStats<'_>, query: &str, syntax: Syntax) -> Result<ChunkPick> {
        let (q, _) = self
            .note_text
            .parse_query_lenient(&parser_words(query, syntax));
        ChunkPick::new(stats, &*q, self.fields.text)
    }

    /// The chunks of the note whose documents are `docs` ([`Lexical::path_docs`]) that hold a
    /// term of `pick`, scored (none when the note matched by its title, path or frontmatter
    /// only).
    fn chunk_scores(
        &self,
        searcher: &Searcher,
        pick: &ChunkPick,
        docs: &PathDocs,
    ) -> Result<Vec<ChunkScore>> {
        if pick.len() == 0 {
            return Ok(Vec::new());
        }
        let kind = Term::from_field_u64(self.fields.kind, super::KIND_NOTE);
        let Some(addr) = doc_holding(searcher, docs, &kind)? else {
            return Ok(Vec::new());
        };
        let positions = pick.positions(searcher, addr)?;
        if positions.iter().all(Vec::is_empty) {
            return Ok(Vec::new());
        }
        let doc: TantivyDocument = searcher.doc(addr)?;
        let spans = doc
            .get_first(self.fields.spans)
            .and_then(|v| v.as_bytes())
            .and_then(ChunkSpans::from_bytes)
            .unwrap_or_default();
        Ok(pick.score(&spans, &positions))
    }

    /// The live documents of the note at `path` (its note, marker and chunk documents), per
    /// segment: read once per hit, for the chunk pick and the chunk shown.
    fn path_docs(&self, searcher: &Searcher, path: &str) -> Result<PathDocs> {
        let of_path = Term::from_field_text(self.fields.path, path);
        let mut out = Vec::new();
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let docs = live_docs(reader, &of_path)?;
            if !docs.is_empty() {
                out.push((ord as u32, docs));
            }
        }
        Ok(out)
    }

    /// Chunk number `chunk` among a note's documents `docs`; `None` when the note has no such
    /// chunk (an empty body has none).
    fn chunk_doc(
        &self,
        searcher: &Searcher,
        docs: &PathDocs,
        chunk: usize,
    ) -> Result<Option<TantivyDocument>> {
        let term = Term::from_field_u64(self.fields.chunk, chunk as u64);
        match doc_holding(searcher, docs, &term)? {
            Some(addr) => Ok(Some(searcher.doc(addr)?)),
            None => Ok(None),
        }
    }

    /// Chunks ranked on their own, at most `limit`: the chunks of the best notes that hold a
    /// query term, those holding every term first, then by their BM25 score (as the chunk
    /// pick scores them), ties by path and chunk.
    pub(super) fn chunk_hits(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        query: &str,
        limit: usize,
    ) -> Result<Vec<Hit>> {
        let notes = self.rank_notes(searcher, stats, query, Syntax::Full, limit, None)?;
        let pick = self.chunk_pick(stats, query, Syntax::Full)?;
        let terms = snippet::query_terms(query);
        let mut docs = Vec::with_capacity(notes.len());
        let mut chunks: Vec<(ChunkScore, usize)> = Vec::new();
        for (i, n) in notes.iter().enumerate() {
            docs.push(self.path_docs(searcher, &n.path)?);
            for s in self.chunk_scores(searcher, &pick, &docs[i])? {
                chunks.push((s, i));
            }
        }
        chunks.sort_by(|(a, na), (b, nb)| {
            (b.terms == pick.len())
                .cmp(&(a.terms == pick.len()))
                .then(b.score.total_cmp(&a.score))
                .then(notes[*na].path.cmp(&notes[*nb].path))
                .then(a.chunk.cmp(&b.chunk))
        });
        let mut hits = Vec::with_capacity(limit.min(chunks.len()));
        for (s, n) in chunks.into_iter().take(limit) {
            if let Some(doc) = self.chunk_doc(searcher, &docs[n], s.chunk)? {
                let mut hit = self.hit_from_chunk(&doc, Some(&terms));
                hit.score = s.score;
                hits.push(hit);
            }
        }
        Ok(hits)
    }
}

/// A note's live documents per segment: (segment, documents ascending).
type PathDocs = Vec<(u32, Vec<tantivy::DocId>)>;

/// The document among `docs` that also holds `term` (the note document for the note kind,
/// one chunk's for a chunk number): `term`'s postings seeked to each.
fn doc_holding(
    searcher: &Searcher,
    docs: &PathDocs,
    term: &Term,
) -> Result<Option<tantivy::DocAddress>> {
    use tantivy::DocSet as _;
    for (ord, in_segment) in docs {
        let Some(mut postings) = searcher
            .segment_reader(*ord)
            .inverted_index(term.field())?
            .read_postings(term, IndexRecordOption::Basic)
            .map_err(tantivy::TantivyError::from)?
        else {
            continue;
        };
        for &doc in in_segment {
            if postings.doc() < doc {
                postings.seek(doc);
            }
            if postings.doc() == doc {
                return Ok(Some(tantivy::DocAddress {
                    segment_ord: *ord,
                    doc_id: doc,
                }));
            }
        }
    }
    Ok(None)
}

/// Whether the query parser reads `words` as one clause (one word or one phrase, however
/// many fields it searches): its every-word and any-word queries are then the same.
fn one_clause(words: &str) -> bool {
    use tantivy::query_grammar::UserInputAst;
    match tantivy::query_grammar::parse_query_lenient(words).0 {
        UserInputAst::Leaf(_) => true,
        UserInputAst::Clause(clauses) => {
            clauses.len() == 1
                && matches!(clauses[0], (_, UserInputAst::Leaf(_)))
                && clauses[0].0 != Some(tantivy::query_grammar::Occur::MustNot)
        }
        UserInputAst::Boost(..) => false,
    }
}

/// `q` as one flat union when it is a union of unions (every clause `Should`, no minimum to
/// match; a boolean query of one clause counts as that clause) down to leaves that are not
/// unions: the same documents and the same sums, and when the leaves are term queries (boosted
/// or not, as the query parser makes them per field) tantivy scores it with block-max WAND
/// instead of visiting every posting. `None` for anything else.
pub(super) fn flat_union(q: &dyn Query) -> Option<BooleanQuery> {
    fn walk(q: &dyn Query, leaves: &mut Vec<(Occur, Box<dyn Query>)>) -> bool {
        match q.downcast_ref::<BooleanQuery>() {
            Some(b) if b.clauses().len() == 1 && b.clauses()[0].0 != Occur::MustNot => {
                walk(&*b.clauses()[0].1, leaves)
            }
            Some(b) => {
                b.get_minimum_number_should_match() <= 1
                    && b.clauses()
                        .iter()
                        .all(|(occur, c)| *occur == Occur::Should && walk(&**c, leaves))
            }
            None => {
                leaves.push((Occur::Should, q.box_clone()));
                true
            }
        }
    }
    q.downcast_ref::<BooleanQuery>()?;
    let mut leaves = Vec::new();
    (walk(q, &mut leaves) && !leaves.is_empty()).then(|| BooleanQuery::new(leaves))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::schema::{Schema, TEXT};

    fn leaf(field: tantivy::schema::Field, word: &str) -> Box<dyn Query> {
        Box::new(TermQuery::new(
            Term::from_field_text(field, word),
            IndexRecordOption::WithFreqs,
        ))
    }

    fn leaves(q: &dyn Query) -> usize {
        q.downcast_ref::<BooleanQuery>().map_or(0, |b| {
            assert!(b.clauses().iter().all(|(o, c)| *o == Occur::Should
                && c.downcast_ref::<BooleanQuery>().is_none()));
            b.clauses().len()
        })
    }

    #[test]
    fn one_word_or_one_phrase_is_one_clause() {
        for q in ["rollback", "\"ledger backfill\"", "+rollback", "v2.4.7"] {
            assert!(one_clause(q), "{q}");
        }
        for q in [
            "checkout latency",
            "-rollback",
            "a \"b c\"",
            "",
            "rollback^2",
        ] {
            assert!(!one_clause(q), "{q}");
        }
    }

    #[test]
    fn unions_of_unions_flatten_and_nothing_else_does() {
        let mut s = Schema::builder();
        let (a, b) = (s.add_text_field("a", TEXT), s.add_text_field("b", TEXT));
        let word = |w: &str| -> Box<dyn Query> {
            Box::new(BooleanQuery::union(vec![
                leaf(a, w),
                Box::new(BoostQuery::new(leaf(b, w), 2.0)),
            ]))
        };
        // Words over fields, as the query parser builds them: four leaves.
        let any = BooleanQuery::union(vec![word("x"), word("y")]);
        assert_eq!(leaves(&flat_union(&any).unwrap()), 4);
        // One clause counts as that clause (a one-word conjunction).
        let one = BooleanQuery::new(vec![(Occur::Must, word("x"))]);
        assert_eq!(leaves(&flat_union(&one).unwrap()), 2);
        // A conjunction, an exclusion or a minimum to match is not a union.
        let all = BooleanQuery::new(vec![(Occur::Must, word("x")), (Occur::Must, word("y"))]);
        assert!(flat_union(&all).is_none());
        let not = BooleanQuery::new(vec![(Occur::MustNot, word("x"))]);
        assert!(flat_union(&not).is_none());
        let mut two = BooleanQuery::union(vec![leaf(a, "x"), leaf(a, "y")]);
        two.set_minimum_number_should_match(2);
        assert!(flat_union(&two).is_none());
        // A lone term is no union to flatten.
        assert!(flat_union(&*leaf(a, "x")).is_none());
    }

    /// The fast path answers what the plain query answers (the any-word tier with the name
    /// phrase's bonus), and the chunk picked from the note's positions is the one its chunks'
    /// own text scores best.
    #[test]
    fn the_fast_paths_score_as_the_plain_queries_do() {
        use crate::{NoProgress, Vault, VaultOptions};
        let d = tempfile::tempdir().unwrap();
        for i in 0..40 {
            let body: String = (0..6)
                .map(|s| {
                    format!(
                        "## Part {s}\n\nThe checkout latency {} during the ledger backfill {}. \
                         Words that fill the section out to a chunk of its own: the queue, the \
                         dashboards, the paging rota, the review notes and the owners' list, \
                         which every section of this note repeats in the same words.\n\n",
                        if (i + s) % 3 == 0 { "rose" } else { "held" },
                        if (i * s) % 4 == 0 { "again" } else { "once" }
                    )
                })
                .collect();
            std::fs::write(
                d.path().join(format!("Note {i}.md")),
                format!("# Checkout latency {i}\n\n{body}"),
            )
            .unwrap();
        }
        let v = Vault::open(d.path(), VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let lex = v.lexical().unwrap();
        lex.refresh().unwrap();
        let searcher = lex.reader.searcher();
        assert!(searcher.num_docs() >= 40 * 4, "notes of several chunks");
        let note_stats = lex.note_stats(&searcher).unwrap();
        let mut analyzer = super::super::fields::analyzer(false);
        for words in [
            "checkout latency",
            "latency rose again",
            "backfill",
            "part 3",
        ] {
            // The chunk pick, against the chunks' own text.
            let pick = lex.chunk_pick(&note_stats, words, Syntax::Full).unwrap();
            let query_terms: Vec<String> = super::super::analyze(words, false)
                .into_iter()
                .map(|(t, _)| t)
                .collect();
            for i in [0, 7, 13] {
                let path = format!("Note {i}.md");
                let docs = lex.path_docs(&searcher, &path).unwrap();
                let scores = lex.chunk_scores(&searcher, &pick, &docs).unwrap();
                let text = std::fs::read_to_string(d.path().join(&path)).unwrap();
                let note = crate::note::parse_note(&path, &text).note;
                let chunks = crate::chunk::chunk_note(&note, &Default::default());
                // Each chunk's terms, from its own text.
                let held: Vec<usize> = chunks
                    .iter()
                    .map(|c| {
                        let mut stream = analyzer.token_stream(&c.text);
                        let mut found = HashSet::new();
                        while let Some(t) = stream.next() {
                            if query_terms.contains(&t.text) {
                                found.insert(t.text.clone());
                            }
                        }
                        found.len()
                    })
                    .collect();
                let want: Vec<usize> = (0..chunks.len()).filter(|&c| held[c] > 0).collect();
                let got: Vec<usize> = scores.iter().map(|s| s.chunk).collect();
                assert_eq!(got, want, "{words} {path}");
                for s in &scores {
                    assert_eq!(s.terms, held[s.chunk], "{words} {path}");
                }
                let best = ChunkPick::best(&scores);
                let top = scores.iter().map(|s| s.score).fold(0.0f32, f32::max);
                assert_eq!(
                    best,
                    scores.iter().find(|s| s.score == top).map(|s| s.chunk),
                    "{words} {path}"
                );
            }
            // The any-word tier with the name phrase.
            let (any, _) = lex.note_any.parse_query_lenient(words);
            let (phrase, _) = lex.name_phrase.parse_query_lenient(&format!("\"{words}\""));
            let union = flat_union(&*any).unwrap();
            let fast = lex
                .top_union(&searcher, &note_stats, &union, Some(&*phrase), 12)
                .unwrap();
            let plain = BooleanQuery::new(vec![(Occur::Must, any), (Occur::Should, phrase)]);
            let want = searcher
                .search_with_statistics_provider(
                    &plain,
                    &TopDocs::with_limit(12).order_by_score(),
                    &note_stats,
                )
                .unwrap();
            let scores =
                |h: &[(f32, tantivy::DocAddress)]| -> Vec<f32> { h.iter().map(|x| x.0).collect() };
            let (f, w) = (scores(&fast), scores(&want));
            assert_eq!(f.len(), w.len(), "{words}");
            for (a, b) in f.iter().zip(&w) {
                assert!((a - b).abs() <= 1e-5 * b.abs(), "{words}: {f:?} vs {w:?}");
            }
        }
    }
}
