//! Ranking: `search`, `rank` and `fill` — notes ranked by their note documents (exact tier, all
//! words, any word; BM25; ties by path), then the best chunk of each shown note.

use std::collections::HashSet;

use super::tokenizer::{Syntax, parser_words};
use super::{
    Hit, KindStats, Lexical, MAX_NAME_WORDS, RankedNote, SearchOptions, best_first,
    identifier_terms, live_docs, names_identifiers, path_at, path_columns, snippet, text_of,
    u64_of,
};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
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
        let (_, chunk_stats) = self.kind_stats(&searcher)?;
        if opts.all_chunks {
            let words = parser_words(query, Syntax::Full);
            let terms = snippet::query_terms(query);
            return self.chunk_hits(&searcher, &chunk_stats, &words, opts.limit, &terms);
        }
        let mut hits = self.rank_with(&searcher, query, Syntax::Full, opts.limit, None)?;
        self.fill_with(&searcher, &chunk_stats, &mut hits, query, Syntax::Full)?;
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
        let (note_stats, _) = self.kind_stats(searcher)?;
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
        let (_, chunk_stats) = self.kind_stats(&searcher)?;
        self.fill_with(&searcher, &chunk_stats, hits, query, syntax)
    }

    pub(super) fn fill_with(
        &self,
        searcher: &Searcher,
        chunk_stats: &KindStats<'_>,
        hits: &mut [Hit],
        query: &str,
        syntax: Syntax,
    ) -> Result<()> {
        let terms = snippet::query_terms(query);
        let words = parser_words(query, syntax);
        let (chunk_query, _) = self.chunk_any.parse_query_lenient(&words);
        // The chunk query's clauses weighed once (their BM25 statistics), for every hit.
        let clauses = ChunkClauses::new(searcher, chunk_stats, &*chunk_query)?;
        for hit in hits.iter_mut() {
            let doc = if hit.line_start == 0 {
                self.best_chunk(
                    searcher,
                    chunk_stats,
                    &*chunk_query,
                    clauses.as_ref(),
                    &hit.path,
                )?
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
        for (i, (q, exact)) in tiers.into_iter().enumerate() {
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

    /// The chunk document of `path` that best matches `query` (chunk statistics); the first
    /// chunk when none matches (the note matched by its title, path or frontmatter).
    pub(super) fn best_chunk(
        &self,
        searcher: &Searcher,
        stats: &KindStats<'_>,
        query: &dyn Query,
        clauses: Option<&ChunkClauses>,
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
        let top = match clauses {
            Some(clauses) => self.score_note_chunks(searcher, clauses, path)?,
            None => {
                let q = BooleanQuery::new(vec![
                    (Occur::Must, query.box_clone()),
                    (Occur::Must, in_note.box_clone()),
                ]);
                searcher.search_with_statistics_provider(
                    &q,
                    &TopDocs::with_limit(8).order_by_score(),
                    stats,
                )?
            }
        };
        let mut best: Option<(f32, u64, TantivyDocument)> = None;
        for (score, addr) in top {
            // Best first: only chunks tied with the best are read (the lowest one wins).
            if best.as_ref().is_some_and(|(s, _, _)| score < *s) {
                break;
            }
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

    /// The documents of `path` that the flat union `clauses` matches, with their scores, best
    /// first (ties in index order), at most 8: what `Must(union) + Must(path)` finds, without
    /// building the union over the whole index for a handful of documents. Each clause's scorer
    /// is moved to the note's documents only (a seek on its postings).
    fn score_note_chunks(
        &self,
        searcher: &Searcher,
        clauses: &ChunkClauses,
        path: &str,
    ) -> Result<Vec<(f32, tantivy::DocAddress)>> {
        use tantivy::DocSet;
        let term = Term::from_field_text(self.fields.path, path);
        let mut found = Vec::new();
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let docs = live_docs(reader, &term)?;
            if docs.is_empty() {
                continue;
            }
            let mut scorers = clauses
                .0
                .iter()
                .map(|w| w.scorer(reader, 1.0))
                .collect::<tantivy::Result<Vec<_>>>()?;
            for doc in docs {
                let mut score = 0.0f32;
                let mut matched = false;
                for s in scorers.iter_mut() {
                    if s.doc() < doc {
                        s.seek(doc);
                    }
                    if s.doc() == doc {
                        score += s.score();
                        matched = true;
                    }
                }
                if matched {
                    found.push((
                        score,
                        tantivy::DocAddress {
                            segment_ord: ord as u32,
                            doc_id: doc,
                        },
                    ));
                }
            }
        }
        best_first(&mut found);
        found.truncate(8);
        Ok(found)
    }

    /// Chunks ranked on their own (every word first, then any), at most `limit`.
    pub(super) fn chunk_hits(
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
            let need = limit - hits.len();
            let mut tier: Vec<Hit> = Vec::with_capacity(need.min(top.len()));
            for (score, addr) in top {
                // As in `rank_notes`: past the last chunk needed, only ties can still enter.
                if tier.len() >= need && tier.last().is_some_and(|h| score < h.score) {
                    break;
                }
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
}

/// The clauses of a flat union ([`flat_union`]) weighed once: BM25 statistics are read per
/// term, so a query filling ten hits weighs its terms once, not ten times.
pub(super) struct ChunkClauses(Vec<Box<dyn tantivy::query::Weight>>);

impl ChunkClauses {
    /// `None` when `query` is not a flat union of its leaves ([`flat_union`]).
    fn new(searcher: &Searcher, stats: &KindStats<'_>, query: &dyn Query) -> Result<Option<Self>> {
        use tantivy::query::EnableScoring;
        let Some(union) = flat_union(query) else {
            return Ok(None);
        };
        let scoring = EnableScoring::enabled_from_statistics_provider(stats, searcher);
        let weights = union
            .clauses()
            .iter()
            .map(|(_, q)| q.weight(scoring))
            .collect::<tantivy::Result<_>>()?;
        Ok(Some(ChunkClauses(weights)))
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

    /// The fast paths answer what the plain queries answer: the best chunks of a note (scores
    /// and order) and the any-word tier with the name phrase's bonus.
    #[test]
    fn the_fast_paths_score_as_the_plain_queries_do() {
        use crate::{NoProgress, Vault, VaultOptions};
        let d = tempfile::tempdir().unwrap();
        for i in 0..40 {
            let body: String = (0..6)
                .map(|s| {
                    format!(
                        "## Part {s}\n\nThe checkout latency {} during the ledger backfill {}.\n\n",
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
        let searcher = lex.reader.searcher();
        let (note_stats, chunk_stats) = lex.kind_stats(&searcher).unwrap();
        for words in ["checkout latency", "latency rose again", "backfill"] {
            // The chunk pick.
            let (q, _) = lex.chunk_any.parse_query_lenient(words);
            let clauses = ChunkClauses::new(&searcher, &chunk_stats, &*q)
                .unwrap()
                .unwrap();
            for i in [0, 7, 13] {
                let path = format!("Note {i}.md");
                let fast = lex.score_note_chunks(&searcher, &clauses, &path).unwrap();
                let in_note: Box<dyn Query> = Box::new(BoostQuery::new(
                    Box::new(TermQuery::new(
                        Term::from_field_text(lex.fields.path, &path),
                        IndexRecordOption::Basic,
                    )),
                    0.0,
                ));
                let plain =
                    BooleanQuery::new(vec![(Occur::Must, q.box_clone()), (Occur::Must, in_note)]);
                let want = searcher
                    .search_with_statistics_provider(
                        &plain,
                        &TopDocs::with_limit(8).order_by_score(),
                        &chunk_stats,
                    )
                    .unwrap();
                assert_eq!(fast.len(), want.len(), "{words} {path}");
                for ((fs, fa), (ws, wa)) in fast.iter().zip(&want) {
                    assert!(
                        (fs - ws).abs() <= 1e-5 * ws.abs(),
                        "{words} {path}: {fs} vs {ws}"
                    );
                    if (fs - ws).abs() > 0.0 {
                        continue;
                    }
                    assert_eq!(fa, wa, "{words} {path}");
                }
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
