//! Hybrid retrieval: `query` (typed sub-queries fused over note rankings) and `query_reranked`.

use super::Vault;
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::lexical::{Hit, SearchOptions, Syntax};
use crate::query::{
    QueryHit, QueryOptions, QueryResult, Stage, SubQuery, SubQueryKind, blend, fuse,
};
use crate::rerank::Reranker;
use crate::state::StateView;
use crate::walk::FileStat;

impl Vault {
    /// Completes fused hits for display: each with the chunk and snippet of the sub-query that
    /// ranked it best (see [`Lexical::fill`]).
    pub(super) fn fill_query_hits(
        &self,
        hits: &mut [QueryHit],
        subqueries: &[SubQuery],
        lists: &[(usize, SubQueryKind, f32, Vec<Hit>)],
        syntax: Syntax,
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
            lexical.fill(&mut group, text, syntax)?;
            for (i, h) in at.into_iter().zip(group) {
                hits[i].hit = h;
            }
        }
        Ok(())
    }

    /// Sets each hit's relevance from its evidence ([`crate::query::relevance`]): the share of
    /// each sub-query's words the note holds (the best over sub-queries), with the cosine and
    /// exact match fusion kept.
    fn weigh_hits(&self, hits: &mut [QueryHit], subqueries: &[SubQuery]) -> Result<()> {
        if hits.is_empty() {
            return Ok(());
        }
        let lexical = self.lexical()?;
        let paths: Vec<&str> = hits.iter().map(|h| h.hit.path.as_str()).collect();
        let mut best = vec![0f32; hits.len()];
        let mut texts: Vec<&str> = Vec::new();
        for sq in subqueries {
            if !sq.text.trim().is_empty() && !texts.contains(&sq.text.as_str()) {
                texts.push(&sq.text);
            }
        }
        for text in texts {
            for (b, c) in best.iter_mut().zip(lexical.coverage(text, &paths)?) {
                *b = b.max(c);
            }
        }
        for (h, c) in hits.iter_mut().zip(best) {
            h.set_coverage(c);
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
        let Ranked {
            lists,
            mut used,
            notices,
            missing_vectors,
        } = self.ranked_lists(embedder, subqueries, opts, Syntax::Full)?;
        let Some(reranker) = reranker else {
            let mut hits = fuse(&lists, opts);
            self.fill_query_hits(&mut hits, subqueries, &lists, Syntax::Full)?;
            self.weigh_hits(&mut hits, subqueries)?;
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
        self.fill_query_hits(&mut hits[..n], subqueries, &lists, Syntax::Full)?;
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
        self.weigh_hits(&mut hits, subqueries)?;
        if !used.is_empty() {
            used.push(Stage::Rerank);
        }
        Ok(QueryResult {
            hits,
            used,
            notices,
            missing_vectors,
        })
    }

    /// Every sub-query's ranking, before fusion: what [`Vault::query_reranked`] and
    /// [`Vault::query_kept`] fuse.
    fn ranked_lists(
        &self,
        embedder: Option<&dyn Embedder>,
        subqueries: &[SubQuery],
        opts: &QueryOptions,
        syntax: Syntax,
    ) -> Result<Ranked> {
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
                (SubQueryKind::Lex, _, _) => self.lexical()?.rank(&sq.text, syntax, per.limit)?,
                (SubQueryKind::Vec, Some(e), Some(s)) => self.vector_hits(e, s, &sq.text, &per)?,
                (SubQueryKind::Vec, _, _) => continue,
            };
            if !used.contains(&Stage::from(sq.kind)) {
                used.push(Stage::from(sq.kind));
            }
            lists.push((i, sq.kind, sq.weight, hits));
        }
        if embedder.is_none() && subqueries.iter().any(|q| q.kind == SubQueryKind::Vec) {
            notices.push(
                "no embedding model loaded; vector sub-queries skipped, lexical ranking only"
                    .to_string(),
            );
        }
        Ok(Ranked {
            lists,
            used,
            notices,
            missing_vectors,
        })
    }

    /// [`Vault::query`] over only the notes `keep` admits: an agent's search. Hidden notes take
    /// no part in it: each sub-query's ranking is cut to the notes the path rules admit and
    /// that were not withheld when indexed ([`crate::Note::withheld`]) before the rankings are
    /// fused, so neither the order nor the relevance of what the agent sees depends on a note
    /// it may not see, and nothing in the answer counts them (a count of hidden matches would
    /// answer, query by query, whether a hidden note holds a word). The fused ranking is then
    /// walked best first and only the first `limit` hits that `keep` admits (the full check:
    /// the real path, privacy as the file says now) are completed for display. A note reached
    /// through a symlink whose target is no longer the file indexed is passed over too (its
    /// indexed text is another file's). Answers the kept hits, how many hidden notes were
    /// passed over (for the owner's audit log, never for the agent), and how many candidates
    /// the agent's ranking held.
    pub(crate) fn query_kept(
        &self,
        embedder: Option<&dyn Embedder>,
        subqueries: &[SubQuery],
        opts: &QueryOptions,
        limit: usize,
        keep: &dyn Fn(&str) -> Option<std::path::PathBuf>,
    ) -> Result<(QueryResult, usize, usize)> {
        // An agent's query: words and phrases only (no fields, ranges or term lists, which
        // would single out hidden notes).
        let mut ranked = self.ranked_lists(embedder, subqueries, opts, Syntax::Words)?;
        let lexical = self.lexical()?;
        let exposure = &self.agent().exposure;
        // Notes withheld when indexed (private ones, above all), read once per commit.
        let withheld = lexical.withheld_paths()?;
        // Each candidate's verdict once, however many rankings hold it.
        let mut admitted: std::collections::HashMap<String, bool> =
            std::collections::HashMap::new();
        for (_, _, _, list) in &mut ranked.lists {
            list.retain(|h| match admitted.get(&h.path) {
                Some(&ok) => ok,
                None => {
                    let ok = exposure.path_admitted(&h.path) && !withheld.contains(&h.path);
                    admitted.insert(h.path.clone(), ok);
                    ok
                }
            });
        }
        let mut hidden = admitted.values().filter(|ok| !**ok).count();
        let fused = fuse(&ranked.lists, opts);
        let total = fused.len();
        let mut hits = Vec::with_capacity(limit.min(total));
        let vault_real = exposure.vault_root().to_path_buf();
        let mut state: Option<Option<StateView>> = None;
        let mut indexed_here = |rel: &str, real: &std::path::Path| -> bool {
            if real == vault_real.join(rel) {
                return true;
            }
            let view =
                state.get_or_insert_with(|| StateView::open(&self.state_path()).ok().flatten());
            let (Some(view), Ok(meta)) = (view.as_ref(), std::fs::metadata(real)) else {
                return false;
            };
            view.get(rel).is_some_and(|o| {
                let st = view.stat(o);
                FileStat::of(&meta).is_version(st.size, st.mtime_ns)
            })
        };
        for h in fused {
            if hits.len() >= limit {
                break;
            }
            if keep(&h.hit.path).is_some_and(|real| indexed_here(&h.hit.path, &real)) {
                hits.push(h);
            } else {
                hidden += 1;
            }
        }
        self.fill_query_hits(&mut hits, subqueries, &ranked.lists, Syntax::Words)?;
        // Filling reads the latest commit: a note made private and indexed again since it was
        // kept is judged again on what was filled, and left out.
        let before = hits.len();
        hits.retain(|h| {
            keep(&h.hit.path).is_some()
                && matches!(lexical.indexed_withheld(&h.hit.path), Ok(false))
        });
        hidden += before - hits.len();
        self.weigh_hits(&mut hits, subqueries)?;
        let result = QueryResult {
            hits,
            used: ranked.used,
            notices: ranked.notices,
            missing_vectors: ranked.missing_vectors,
        };
        Ok((result, hidden, total))
    }
}

/// The sub-queries' rankings and what was learnt running them.
struct Ranked {
    lists: Vec<(usize, SubQueryKind, f32, Vec<Hit>)>,
    used: Vec<Stage>,
    notices: Vec<String>,
    missing_vectors: Option<usize>,
}
