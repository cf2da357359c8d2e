//! Hybrid queries: lexical and vector sub-queries fused by weighted reciprocal rank fusion.
//!
//! Each sub-query yields a ranking of notes (best chunk per note). A note's fused score is
//! `Σ weight / (k + rank)` over the rankings it appears in (rank from 1, `k` = 60 by default), plus
//! a top-rank bonus (+0.05 when some list ranks it first, +0.02 for second or third), so a note
//! found by both paths beats one found by a single path at a similar rank, a retriever's confident
//! first hit is not outvoted by notes that are middling everywhere, and a note that is not
//! embedded yet still ranks through the lexical path.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::lexical::Hit;

/// Weight of the vector list against the lexical one (1) in a plain hybrid query. Measured with
/// `mindex eval` at k = 60 (nDCG@10, lex 1 : vec 1 → 2): SciFact train 0.629 → 0.654, Cranfield
/// 0.387 → 0.399; see benches/README.md.
pub const DEFAULT_VEC_WEIGHT: f32 = 2.0;

/// Which retriever a sub-query uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubQueryKind {
    /// BM25 over the tantivy index.
    Lex,
    /// Nearest neighbours of the query's embedding.
    Vec,
}

/// A stage a query ran, as [`QueryResult::used`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// BM25 over the tantivy index.
    Lex,
    /// Nearest neighbours of the query's embedding.
    Vec,
    /// The cross-encoder pass over fused candidates.
    Rerank,
}

impl From<SubQueryKind> for Stage {
    fn from(kind: SubQueryKind) -> Stage {
        match kind {
            SubQueryKind::Lex => Stage::Lex,
            SubQueryKind::Vec => Stage::Vec,
        }
    }
}

/// One typed sub-query of a hybrid query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubQuery {
    /// The retriever.
    pub kind: SubQueryKind,
    /// The query text.
    pub text: String,
    /// Its weight in the fusion (1.0 by default).
    pub weight: f32,
}

impl SubQuery {
    /// A lexical sub-query of weight 1.
    pub fn lex(text: impl Into<String>) -> Self {
        SubQuery {
            kind: SubQueryKind::Lex,
            text: text.into(),
            weight: 1.0,
        }
    }

    /// A vector sub-query of weight 1.
    pub fn vec(text: impl Into<String>) -> Self {
        SubQuery {
            kind: SubQueryKind::Vec,
            text: text.into(),
            weight: 1.0,
        }
    }

    /// The default pair for a plain query: one lexical sub-query (weight 1) and one vector
    /// sub-query (weight [`DEFAULT_VEC_WEIGHT`]).
    pub fn hybrid(text: &str) -> Vec<SubQuery> {
        let mut v = SubQuery::vec(text);
        v.weight = DEFAULT_VEC_WEIGHT;
        vec![SubQuery::lex(text), v]
    }

    /// The sub-queries of a command line: the [`SubQuery::hybrid`] pair for `query` (when
    /// given), then one lexical sub-query per `lex` text and one vector sub-query per `vec`
    /// text; `vec_weight` (when given) weighs every vector sub-query.
    pub fn assemble(
        query: Option<&str>,
        lex: &[String],
        vec: &[String],
        vec_weight: Option<f32>,
    ) -> Vec<SubQuery> {
        let mut subs = query.map(SubQuery::hybrid).unwrap_or_default();
        subs.extend(lex.iter().map(SubQuery::lex));
        subs.extend(vec.iter().map(SubQuery::vec));
        if let Some(w) = vec_weight {
            for s in subs.iter_mut().filter(|s| s.kind == SubQueryKind::Vec) {
                s.weight = w;
            }
        }
        subs
    }

    /// Whether any of `subs` needs the embedding model.
    pub fn wants_model(subs: &[SubQuery]) -> bool {
        subs.iter().any(|s| s.kind == SubQueryKind::Vec)
    }
}

/// How the sub-queries' rankings are combined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fusion {
    /// Weighted reciprocal rank fusion: `Σ weight / (k + rank)`, plus the top-rank bonus.
    #[default]
    Rrf,
    /// Score fusion: each list's scores min-max normalised to [0, 1] over its candidates, then
    /// `Σ weight × normalised score` (a convex combination when the weights sum to 1).
    MinMax,
}

/// Options of a hybrid query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryOptions {
    /// Hits returned.
    pub limit: usize,
    /// How the rankings are fused.
    pub fusion: Fusion,
    /// The RRF constant `k`.
    pub rrf_k: f32,
    /// Notes taken from each sub-query before fusion.
    pub candidates: usize,
    /// Attach an [`Explain`] to every hit.
    pub explain: bool,
    /// Added to a note's fused score when its best rank in any list is 1 (`top_bonus[0]`), or 2-3
    /// (`top_bonus[1]`): a retriever's confident first hit is not outvoted by notes that are
    /// middling in every list (which happens with vague lexical matches in small vaults).
    pub top_bonus: [f32; 2],
    /// Fused candidates the reranker reads (when a reranker is given).
    pub rerank_candidates: usize,
    /// Weight of the retrieval position against the reranker score:
    /// `final = w / fused_rank + (1 - w) × rerank_score`.
    pub rerank_weight: f32,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            limit: 10,
            fusion: Fusion::Rrf,
            rrf_k: 60.0,
            candidates: 50,
            explain: false,
            top_bonus: [0.05, 0.02],
            rerank_candidates: 30,
            rerank_weight: 0.5,
        }
    }
}

/// Where a hit came from in one sub-query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceRank {
    /// Index of the sub-query in the request.
    pub subquery: usize,
    /// Its kind.
    pub kind: SubQueryKind,
    /// Rank of the note in that sub-query's list (1 = best).
    pub rank: usize,
    /// The retriever's own score (BM25, or cosine similarity).
    pub score: f32,
    /// This source's share of the fused score: `weight / (k + rank)`.
    pub contribution: f32,
}

/// How a hit's final position was reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explain {
    /// Every sub-query that found the note.
    pub sources: Vec<SourceRank>,
    /// The fused score: RRF plus the top-rank bonus.
    pub fused_score: f32,
    /// The top-rank bonus included in `fused_score`.
    pub bonus: f32,
    /// Rank after fusion (1 = best).
    pub fused_rank: usize,
    /// The reranker's score in [0, 1], when a reranker ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank_score: Option<f32>,
    /// The blended score after reranking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_score: Option<f32>,
    /// Rank agreement in [0, 1]: the fused score over the best possible one (first in every
    /// list that returned something, plus the top-rank bonus). 1.0 means every retriever put
    /// the note first, however weakly it matches.
    pub agreement: f32,
    /// The evidence the hit's relevance is computed from ([`relevance`]).
    pub evidence: Evidence,
}

/// What a hit's relevance is computed from: the retrievers' own evidence, never its rank.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Evidence {
    /// The share of the query's distinct words (as analyzed: stop words dropped, stems) that
    /// the note holds.
    pub coverage: f32,
    /// The best cosine similarity of the note's chunks to the query, when a vector sub-query
    /// found the note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cosine: Option<f32>,
    /// The note holds every identifier the query names, exactly.
    pub exact: bool,
}

/// Cosine (all-MiniLM-L6-v2) at or below which meaning is no evidence of a match: the best
/// chunk of a note on another subject typically scores here, and off-topic questions' best hits
/// score 0.1–0.45 in a vault of the same trade.
pub const COSINE_NONE: f32 = 0.28;
/// Cosine at or above which meaning alone is a clear match.
pub const COSINE_CLEAR: f32 = 0.60;
/// Share of the query's words a note holds at or below which words are no evidence of a match.
pub const COVERAGE_NONE: f32 = 0.20;
/// Share of the query's words at or above which words alone are a clear match.
pub const COVERAGE_CLEAR: f32 = 0.80;
/// The relevance of a note holding every identifier the query names, at least.
pub const EXACT_RELEVANCE: f32 = 0.90;

/// A hit's relevance in [0, 1]: how strongly it matches, from the retrievers' evidence, the
/// same on every surface. Words and meaning are each mapped linearly between "no evidence" and
/// "a clear match" ([`COVERAGE_NONE`]..[`COVERAGE_CLEAR`] of the query's words held,
/// [`COSINE_NONE`]..[`COSINE_CLEAR`] cosine) and combined as independent evidence,
/// `1 − (1 − words)(1 − meaning)`; a note holding every identifier the query names is at least
/// [`EXACT_RELEVANCE`]. Calibrated on every dev set (benches/README.md): off-topic questions'
/// best hits stay under 0.5, on-topic ones reach it.
pub fn relevance(e: &Evidence) -> f32 {
    let ramp = |x: f32, none: f32, clear: f32| ((x - none) / (clear - none)).clamp(0.0, 1.0);
    let words = ramp(e.coverage, COVERAGE_NONE, COVERAGE_CLEAR);
    let meaning = e
        .cosine
        .filter(|c| c.is_finite())
        .map_or(0.0, |c| ramp(c, COSINE_NONE, COSINE_CLEAR));
    let both = 1.0 - (1.0 - words) * (1.0 - meaning);
    if e.exact {
        both.max(EXACT_RELEVANCE)
    } else {
        both
    }
}

/// A hit of a hybrid query. `hit.score` is its relevance in [0, 1], how strongly it matches
/// ([`relevance`]: the words it holds, its cosine, an exact identifier), not its rank: hits are
/// ordered by the fused ranking, so a later hit can match more strongly than an earlier one.
/// [`Explain`] keeps the raw stage scores, the evidence and the rank agreement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryHit {
    /// The note and chunk (from the source that ranked it best).
    #[serde(flatten)]
    pub hit: Hit,
    /// Present when [`QueryOptions::explain`] is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
    /// What `hit.score` was computed from (shown by [`Explain::evidence`]).
    #[serde(skip)]
    pub(crate) evidence: Evidence,
}

impl QueryHit {
    /// Sets the words' share of the evidence and recomputes the relevance from it.
    pub(crate) fn set_coverage(&mut self, coverage: f32) {
        self.evidence.coverage = coverage;
        self.hit.score = relevance(&self.evidence);
        if let Some(e) = self.explain.as_mut() {
            e.evidence = self.evidence;
        }
    }
}

/// The answer to a hybrid query.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryResult {
    /// Fused hits, best first.
    pub hits: Vec<QueryHit>,
    /// The stages actually run (`lex`, `vec`, then `rerank` when the cross-encoder ran).
    pub used: Vec<Stage>,
    /// Things the caller should know (no model, no vectors yet, chunks without vectors); shown
    /// once.
    pub notices: Vec<String>,
    /// Distinct chunks without a vector for the model used (`None` when no vector sub-query ran).
    pub missing_vectors: Option<usize>,
}

/// Fuses ranked lists by weighted RRF. `lists[i]` is (sub-query index, kind, weight, hits best first).
pub(crate) fn fuse(
    lists: &[(usize, SubQueryKind, f32, Vec<Hit>)],
    opts: &QueryOptions,
) -> Vec<QueryHit> {
    struct Acc {
        score: f32,
        best_rank: usize,
        best: f32,
        hit: Hit,
        sources: Vec<SourceRank>,
        exact: bool,
    }
    let mut by_path: HashMap<String, Acc> = HashMap::new();
    // The fused score of a note ranked first by every list that returned something.
    let rrf = opts.fusion == Fusion::Rrf;
    let top_bonus = if rrf { opts.top_bonus } else { [0.0, 0.0] };
    let best_possible = lists
        .iter()
        .filter(|l| !l.3.is_empty())
        .map(|l| l.2.max(0.0) / if rrf { opts.rrf_k + 1.0 } else { 1.0 })
        .sum::<f32>()
        + top_bonus[0];
    for (sub, kind, weight, hits) in lists {
        let (lo, hi) = hits.iter().fold((f32::MAX, f32::MIN), |(lo, hi), h| {
            (lo.min(h.score), hi.max(h.score))
        });
        for (i, h) in hits.iter().enumerate() {
            let rank = i + 1;
            let contribution = if rrf {
                weight / (opts.rrf_k + rank as f32)
            } else if hi - lo > f32::EPSILON {
                weight * (h.score - lo) / (hi - lo)
            } else {
                *weight
            };
            let source = SourceRank {
                subquery: *sub,
                kind: *kind,
                rank,
                score: h.score,
                contribution,
            };
            match by_path.get_mut(&h.path) {
                Some(acc) => {
                    acc.score += contribution;
                    acc.exact |= h.exact;
                    acc.best_rank = acc.best_rank.min(rank);
                    if contribution > acc.best {
                        acc.best = contribution;
                        acc.hit = h.clone();
                    }
                    acc.sources.push(source);
                }
                None => {
                    by_path.insert(
                        h.path.clone(),
                        Acc {
                            score: contribution,
                            best_rank: rank,
                            best: contribution,
                            hit: h.clone(),
                            sources: vec![source],
                            exact: h.exact,
                        },
                    );
                }
            }
        }
    }
    let mut all: Vec<Acc> = by_path.into_values().collect();
    let bonus_of = |rank: usize| match rank {
        1 => top_bonus[0],
        2 | 3 => top_bonus[1],
        _ => 0.0,
    };
    for acc in &mut all {
        acc.score += bonus_of(acc.best_rank);
    }
    // Notes holding every identifier the query names come first, the vault's scaffolding
    // (templates, agent manuals) after every note a person wrote; equal scores go by path, so
    // the order never depends on the index's history.
    all.sort_by(|a, b| {
        b.exact
            .cmp(&a.exact)
            .then(a.hit.scaffold.cmp(&b.hit.scaffold))
            .then(b.score.total_cmp(&a.score))
            .then(a.hit.path.cmp(&b.hit.path))
    });
    all.truncate(opts.limit);
    all.into_iter()
        .enumerate()
        .map(|(i, mut acc)| {
            acc.hit.exact = acc.exact;
            let agreement = if best_possible > 0.0 {
                (acc.score / best_possible).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let cosine = acc
                .sources
                .iter()
                .filter(|s| s.kind == SubQueryKind::Vec)
                .map(|s| s.score)
                .reduce(f32::max);
            // The words' share is filled in by the vault (it needs the index): until then the
            // relevance stands on the cosine and exact match alone.
            let evidence = Evidence {
                coverage: 0.0,
                cosine,
                exact: acc.exact,
            };
            acc.hit.score = relevance(&evidence);
            QueryHit {
                explain: opts.explain.then(|| Explain {
                    bonus: bonus_of(acc.best_rank),
                    sources: acc.sources,
                    fused_score: acc.score,
                    fused_rank: i + 1,
                    rerank_score: None,
                    final_score: None,
                    agreement,
                    evidence,
                }),
                evidence,
                hit: acc.hit,
            }
        })
        .collect()
}

/// Reorders the first `scores.len()` hits by `w / fused_rank + (1 - w) × score` (hits past them
/// keep their places after). `hits` must be in fused order.
pub(crate) fn blend(hits: &mut Vec<QueryHit>, scores: &[f32], weight: f32) {
    let n = scores.len().min(hits.len());
    let mut head: Vec<(f32, usize, QueryHit)> = hits
        .drain(..n)
        .enumerate()
        .map(|(i, mut h)| {
            let final_score = weight / (i + 1) as f32 + (1.0 - weight) * scores[i];
            if let Some(e) = h.explain.as_mut() {
                e.rerank_score = Some(scores[i]);
                e.final_score = Some(final_score);
            }
            (final_score, i, h)
        })
        .collect();
    head.sort_by(|a, b| {
        b.2.hit
            .exact
            .cmp(&a.2.hit.exact)
            .then(b.0.total_cmp(&a.0))
            .then(a.1.cmp(&b.1))
    });
    let tail = std::mem::take(hits);
    hits.extend(head.into_iter().map(|(_, _, h)| h));
    hits.extend(tail);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn command_line_sub_queries_assemble_in_order_with_the_vector_weight() {
        let subs = SubQuery::assemble(Some("q"), &["l".into()], &["v".into()], Some(3.0));
        let got: Vec<(SubQueryKind, &str, f32)> = subs
            .iter()
            .map(|s| (s.kind, s.text.as_str(), s.weight))
            .collect();
        assert_eq!(
            got,
            [
                (SubQueryKind::Lex, "q", 1.0),
                (SubQueryKind::Vec, "q", 3.0),
                (SubQueryKind::Lex, "l", 1.0),
                (SubQueryKind::Vec, "v", 3.0),
            ]
        );
        assert!(SubQuery::wants_model(&subs));
        let lex_only = SubQuery::assemble(None, &["l".into()], &[], None);
        assert!(!SubQuery::wants_model(&lex_only));
        assert!(SubQuery::assemble(None, &[], &[], Some(2.0)).is_empty());
        // Without a weight, the hybrid pair keeps its default vector weight.
        let default = SubQuery::assemble(Some("q"), &[], &[], None);
        assert_eq!(default[1].weight, DEFAULT_VEC_WEIGHT);
    }

    /// A hit at `path` with `score`, for ranking tests.
    pub(crate) fn hit(path: &str, score: f32) -> Hit {
        Hit {
            scaffold: false,
            path: path.into(),
            title: path.into(),
            heading: String::new(),
            line_start: 1,
            line_end: 1,
            line: 1,
            chunk: 0,
            key: 0,
            score,
            exact: false,
            snippet: String::new(),
        }
    }

    #[test]
    fn relevance_is_match_strength() {
        let r = |coverage: f32, cosine: Option<f32>, exact: bool| {
            relevance(&Evidence {
                coverage,
                cosine,
                exact,
            })
        };
        // Nothing shared: nothing, whatever the rank.
        assert_eq!(r(0.0, None, false), 0.0);
        assert_eq!(r(0.2, Some(0.2), false), 0.0);
        // An off-topic question's typical best hit: a common word, a cosine of another subject.
        assert!(r(0.25, Some(0.35), false) < 0.5);
        // Every word, or a clear meaning, is a clear match.
        assert_eq!(r(1.0, None, false), 1.0);
        assert_eq!(r(0.0, Some(0.7), false), 1.0);
        // Moderate words and moderate meaning add up as independent evidence.
        let (w, m) = (r(0.5, None, false), r(0.0, Some(0.44), false));
        assert!((r(0.5, Some(0.44), false) - (1.0 - (1.0 - w) * (1.0 - m))).abs() < 1e-6);
        assert!(r(0.5, Some(0.44), false) > w.max(m));
        // An exact identifier is a strong match on its own; NaN is no evidence.
        assert_eq!(r(0.0, None, true), EXACT_RELEVANCE);
        assert_eq!(r(0.0, Some(f32::NAN), false), 0.0);
    }

    #[test]
    fn rrf_rewards_agreement_and_keeps_single_list_order() {
        let opts = QueryOptions {
            explain: true,
            top_bonus: [0.0, 0.0],
            ..QueryOptions::default()
        };
        let lex = vec![hit("a", 9.0), hit("b", 5.0), hit("c", 1.0)];
        let vec_ = vec![hit("c", 0.9), hit("b", 0.8)];
        let fused = fuse(
            &[
                (0, SubQueryKind::Lex, 1.0, lex.clone()),
                (1, SubQueryKind::Vec, 1.0, vec_),
            ],
            &opts,
        );
        let order: Vec<&str> = fused.iter().map(|h| h.hit.path.as_str()).collect();
        // b: 1/62 + 1/62; c: 1/63 + 1/61; a: 1/61.
        assert_eq!(order, vec!["c", "b", "a"]);
        let e = fused[0].explain.as_ref().unwrap();
        assert_eq!(e.sources.len(), 2);
        assert_eq!(e.fused_rank, 1);
        assert!((e.fused_score - (1.0 / 63.0 + 1.0 / 61.0)).abs() < 1e-6);
        // Rank agreement is the fused score over the best possible one (first in both lists);
        // the relevance stands on the evidence (here the cosine, 0.9: a clear match).
        let best = 2.0 / 61.0;
        assert!((e.agreement - e.fused_score / best).abs() < 1e-6);
        assert_eq!(e.evidence.cosine, Some(0.9));
        assert_eq!(fused[0].hit.score, 1.0);

        // A single list keeps its order.
        let only = fuse(&[(0, SubQueryKind::Lex, 1.0, lex)], &opts);
        assert_eq!(
            only.iter().map(|h| h.hit.path.as_str()).collect::<Vec<_>>(),
            vec!["a", "b", "c"]
        );
    }

    #[test]
    fn blend_lets_a_confident_reranker_reorder() {
        let opts = QueryOptions {
            explain: true,
            ..QueryOptions::default()
        };
        let mut hits = fuse(
            &[(
                0,
                SubQueryKind::Lex,
                1.0,
                vec![hit("a", 3.0), hit("b", 2.0), hit("c", 1.0)],
            )],
            &opts,
        );
        blend(&mut hits, &[0.0, 1.0], 0.5);
        // a: 0.5; b: 0.25 + 0.5 = 0.75; c keeps its place after the reranked head.
        assert_eq!(
            hits.iter().map(|h| h.hit.path.as_str()).collect::<Vec<_>>(),
            vec!["b", "a", "c"]
        );
        let e = hits[0].explain.as_ref().unwrap();
        assert_eq!(e.rerank_score, Some(1.0));
        assert_eq!(e.final_score, Some(0.75));
        assert_eq!(e.fused_rank, 2);
    }

    #[test]
    fn top_rank_bonus_protects_a_confident_first_hit() {
        // "top" is first for the vector list only; "mid" is middling in both lists.
        let lists = [
            (
                0,
                SubQueryKind::Lex,
                1.0,
                vec![hit("x", 1.0), hit("mid", 1.0)],
            ),
            (
                1,
                SubQueryKind::Vec,
                2.0,
                vec![hit("top", 1.0), hit("y", 1.0), hit("mid", 1.0)],
            ),
        ];
        let plain = QueryOptions {
            top_bonus: [0.0, 0.0],
            ..QueryOptions::default()
        };
        assert_eq!(fuse(&lists, &plain)[0].hit.path, "mid");
        let with = QueryOptions {
            explain: true,
            ..QueryOptions::default()
        };
        let fused = fuse(&lists, &with);
        assert_eq!(fused[0].hit.path, "top");
        assert_eq!(fused[0].explain.as_ref().unwrap().bonus, 0.05);
    }

    #[test]
    fn exact_identifier_matches_come_first_and_ties_go_by_path() {
        let mut exact = hit("z-exact", 1.0);
        exact.exact = true;
        let opts = QueryOptions::default();
        let fused = fuse(
            &[
                (
                    0,
                    SubQueryKind::Lex,
                    1.0,
                    vec![exact.clone(), hit("b", 1.0)],
                ),
                (
                    1,
                    SubQueryKind::Vec,
                    2.0,
                    vec![hit("a", 1.0), hit("b", 1.0)],
                ),
            ],
            &opts,
        );
        // "a" is first for the heavier list and "b" is in both, but the exact match leads.
        assert_eq!(fused[0].hit.path, "z-exact");
        assert!(fused[0].hit.exact);
        assert!(fused.iter().all(|h| (0.0..=1.0).contains(&h.hit.score)));
        // Two notes with the same fused score: by path, whatever order the lists gave.
        let tied = fuse(
            &[
                (0, SubQueryKind::Lex, 1.0, vec![hit("y", 1.0)]),
                (1, SubQueryKind::Lex, 1.0, vec![hit("x", 1.0)]),
            ],
            &QueryOptions::default(),
        );
        assert_eq!(
            tied.iter().map(|h| h.hit.path.as_str()).collect::<Vec<_>>(),
            vec!["x", "y"]
        );
    }

    #[test]
    fn weights_shift_the_balance_and_limit_applies() {
        let opts = QueryOptions {
            limit: 1,
            ..QueryOptions::default()
        };
        let fused = fuse(
            &[
                (
                    0,
                    SubQueryKind::Lex,
                    1.0,
                    vec![hit("a", 1.0), hit("b", 1.0)],
                ),
                (
                    1,
                    SubQueryKind::Vec,
                    3.0,
                    vec![hit("b", 1.0), hit("a", 1.0)],
                ),
            ],
            &opts,
        );
        assert_eq!(fused.len(), 1);
        assert_eq!(fused[0].hit.path, "b");
        assert!(fused[0].explain.is_none());
    }
}
