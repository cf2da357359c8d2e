//! `recall`: the memories a caller may see, ranked by a query when one is given.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::json;

use super::Vault;
use super::agent::AgentContext;
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::identity::Caller;
use crate::lexical::SearchOptions;
use crate::memory::promoted::{Promotion, Resolver};
use crate::memory::store::CacheStats;
use crate::memory::{Memory, recall_from, reorder, title_key};
use crate::query::QueryOptions;

/// Options for [`Scoped::recall`](crate::Scoped::recall).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallOptions {
    /// Orders memories by relevance to this text (never filters them out).
    pub query: Option<String>,
    /// Memories returned (default 20).
    pub limit: usize,
    /// Attach why each memory is visible, and summarise what was withheld.
    pub explain: bool,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            query: None,
            limit: crate::memory::DEFAULT_RECALL_LIMIT,
            explain: false,
        }
    }
}

/// How recall ordered the memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecallRanking {
    /// Specificity, then date (no query).
    Declared,
    /// BM25 over the memories, then the rest.
    Lexical,
    /// Hybrid BM25 + vectors, then the rest.
    Hybrid,
}

/// One recalled memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecalledMemory {
    /// The memory.
    #[serde(flatten)]
    pub memory: Memory,
    /// Why the caller sees it (with `explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Who wrote it, when that is not the caller: its `origin` project, `a person (hand-filed)`
    /// for a hand-filed memory without one, else `unknown`. The text names it ("written by
    /// atlas") so an agent never reads another project's lesson as its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
    /// Corrections of this memory the caller is not served, counted (their titles are left out
    /// of `superseded_by`).
    #[serde(skip_serializing_if = "is_zero")]
    pub superseded_unseen: usize,
    /// Where its lesson was promoted to, resolved (`promoted:` marker present). When the
    /// promoted text is served, it is the authoritative version of the lesson.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promotion: Option<Promotion>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl RecalledMemory {
    /// The text to show: the promoted note's text when it is served, else the capture body.
    pub fn text(&self) -> &str {
        match &self.promotion {
            Some(Promotion::Served { text, .. }) => text,
            _ => &self.memory.body,
        }
    }
}

/// Who wrote `m`, when it was not `caller` (see [`RecalledMemory::written_by`]).
fn written_by(m: &Memory, caller: &Caller) -> Option<String> {
    let origin = m.origin.as_deref().map(str::trim).filter(|o| !o.is_empty());
    match (origin, caller.project.as_deref()) {
        (Some(o), Some(p)) if o.eq_ignore_ascii_case(p.trim()) => None,
        (Some(o), _) => Some(o.to_string()),
        (None, _)
            if m.source.as_deref().is_some_and(|s| {
                s.trim()
                    .eq_ignore_ascii_case(crate::memory::HAND_FILED_SOURCE)
            }) =>
        {
            Some("a person (hand-filed)".to_string())
        }
        (None, _) => Some("unknown".to_string()),
    }
}

/// The outcome of [`Scoped::recall`](crate::Scoped::recall).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recall {
    /// The caller's project (`None` = anonymous).
    pub caller: Option<String>,
    /// Memories, best first.
    pub memories: Vec<RecalledMemory>,
    /// Memories visible to the caller in all (before the limit).
    pub visible: usize,
    /// Memories withheld from the caller.
    pub withheld: usize,
    /// The distinct reasons for withholding (with `explain`); titles are never listed.
    pub withheld_reasons: Vec<String>,
    /// How the memories were ordered.
    pub ranking: RecallRanking,
    /// Things the caller should know (no vectors yet, …).
    pub notices: Vec<String>,
    /// What the parse cache did.
    pub cache: CacheStats,
}

impl Vault {
    /// The memories `caller` may see, best first. With a query, the engine's search (hybrid
    /// when `embedder` is given and vectors exist, else BM25) orders them; memories it did not
    /// place follow, so nothing visible is ever missing. Live memories always come before
    /// superseded ones.
    pub(crate) fn recall(
        &self,
        caller: &Caller,
        opts: &RecallOptions,
        embedder: Option<&dyn Embedder>,
    ) -> Result<Recall> {
        let ctx = self.agent();
        let (entries, cache) = ctx.store.all();
        let r = recall_from(&entries, caller, opts.explain);
        let visible_n = r.visible.len();
        let mut ranking = RecallRanking::Declared;
        let mut notices = Vec::new();
        let mut ordered = r.visible;
        let q = opts.query.as_deref().map(str::trim).unwrap_or("");
        if !q.is_empty() && ordered.len() > 1 {
            let (placed, how) =
                self.retrieve_memories(&ctx, q, opts.limit, embedder, &mut notices)?;
            ranking = how;
            ordered = reorder(ordered, &placed);
        }
        let mut reasons: Vec<String> = Vec::new();
        if opts.explain {
            for (_, why) in &r.withheld {
                if !reasons.contains(why) {
                    reasons.push(why.clone());
                }
            }
        }
        // A correction is named only when this caller is served it: the titles of the others
        // are counted, never shown.
        let served: HashSet<String> = ordered
            .iter()
            .filter_map(|(m, _)| m.title.as_deref().map(title_key))
            .collect();
        let mut resolver = Resolver::new(&ctx.exposure);
        let memories: Vec<RecalledMemory> = ordered
            .into_iter()
            .take(opts.limit)
            .map(|(m, why)| {
                let mut memory = (*m).clone();
                let claimed = memory.superseded_by.len();
                memory
                    .superseded_by
                    .retain(|t| served.contains(&title_key(t)));
                RecalledMemory {
                    written_by: written_by(&memory, caller),
                    promotion: m
                        .promoted
                        .as_deref()
                        .map(|raw| resolver.resolve(raw).seen_by_agent()),
                    superseded_unseen: claimed - memory.superseded_by.len(),
                    memory,
                    why: opts.explain.then_some(why),
                }
            })
            .collect();
        let promoted: Vec<serde_json::Value> = memories
            .iter()
            .filter_map(|m| {
                let p = m.promotion.as_ref()?;
                Some(json!({"rel": m.memory.path, "status": serde_json::to_value(p).ok()?["status"]}))
            })
            .collect();
        let mut detail =
            json!({"query": opts.query, "returned": memories.len(), "project": caller.project});
        if !promoted.is_empty() {
            detail["promoted"] = json!(promoted.iter().take(25).collect::<Vec<_>>());
            if promoted.len() > 25 {
                detail["promoted_omitted"] = json!(promoted.len() - 25);
            }
        }
        self.audit_log().append(
            crate::audit::AuditAction::Recall,
            caller.project.as_deref(),
            detail,
        );
        Ok(Recall {
            caller: caller.project.clone(),
            memories,
            visible: visible_n,
            withheld: r.withheld.len(),
            withheld_reasons: reasons,
            ranking,
            notices,
            cache,
        })
    }

    /// Memory paths in retrieval order for `q`.
    pub(super) fn retrieve_memories(
        &self,
        ctx: &AgentContext,
        q: &str,
        limit: usize,
        embedder: Option<&dyn Embedder>,
        notices: &mut Vec<String>,
    ) -> Result<(Vec<String>, RecallRanking)> {
        let prefix = format!("{}/", ctx.store.root());
        let per = SearchOptions {
            limit: (limit * 3).max(50),
            all_chunks: false,
        };
        let lexical = match self.lexical() {
            Ok(l) => l,
            Err(Error::IndexMissing { .. }) => {
                notices.push(
                    "no index yet: memories are in declared order (run `mindex update`)".into(),
                );
                return Ok((Vec::new(), RecallRanking::Declared));
            }
            Err(e) => return Err(e),
        };
        let lex = lexical.paths_in_folder(q, per.limit, ctx.store.root())?;
        let mut lists: Vec<(f32, Vec<String>)> = vec![(1.0, lex)];
        let mut how = RecallRanking::Lexical;
        if let Some(e) = embedder {
            match self.vector_store(e) {
                Ok(store) => {
                    let deep = SearchOptions {
                        limit: per.limit * 4,
                        all_chunks: false,
                    };
                    let hits = self.vector_hits(e, &store, q, &deep)?;
                    let paths = memories_by_meaning(hits, &prefix, per.limit);
                    lists.push((crate::query::DEFAULT_VEC_WEIGHT, paths));
                    how = RecallRanking::Hybrid;
                }
                Err(Error::VectorsMissing { .. }) => notices
                    .push("no vectors yet: memories ordered by BM25 (run `mindex embed`)".into()),
                Err(err) => return Err(err),
            }
        }
        // Weighted reciprocal rank fusion (k = 60) over the ranked path lists.
        let k = QueryOptions::default().rrf_k;
        let mut score: HashMap<String, f32> = HashMap::new();
        for (w, list) in &lists {
            for (rank, p) in list.iter().enumerate() {
                *score.entry(p.clone()).or_default() += w / (k + rank as f32 + 1.0);
            }
        }
        let mut fused: Vec<(String, f32)> = score.into_iter().collect();
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok((fused.into_iter().map(|(p, _)| p).collect(), how))
    }
}

/// The memories (notes under `prefix`) among vector `hits`, best first, at most `limit`, leaving
/// out those whose cosine is no evidence of a match ([`crate::query::COSINE_NONE`]): the vector
/// ranking weighs twice the words', so an unrelated memory that merely came closest must not
/// outrank the memory the query's words find.
fn memories_by_meaning(hits: Vec<crate::lexical::Hit>, prefix: &str, limit: usize) -> Vec<String> {
    hits.into_iter()
        .filter(|h| h.path.starts_with(prefix) && h.score > crate::query::COSINE_NONE)
        .map(|h| h.path)
        .take(limit)
        .collect()
}

#[cfg(test)]
mod meaning_tests {
    use super::memories_by_meaning;
    use crate::query::tests::hit;

    #[test]
    fn weak_meaning_orders_no_memory() {
        let hits = vec![
            hit("brain/Retry policy.md", 0.71),
            hit("memories/2026/01/unrelated.md", 0.21),
            hit("memories/2026/02/related.md", 0.45),
            hit("memories/2026/03/close.md", 0.62),
        ];
        assert_eq!(
            memories_by_meaning(hits.clone(), "memories/", 10),
            vec!["memories/2026/02/related.md", "memories/2026/03/close.md"]
        );
        assert_eq!(
            memories_by_meaning(hits, "memories/", 1),
            vec!["memories/2026/02/related.md"]
        );
    }
}
