//! Choosing memories: ranking by specificity and date, what a caller may recall (supersession
//! reach as a greatest fixpoint), reordering by a query's ranking, duplicates and supersession
//! targets.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::{DUPLICATE_THRESHOLD, Memory, text};

use crate::identity::Caller;

/// Ranks visible memories: live before superseded, then by specificity, newest date, newest
/// write. The sort is stable.
pub(crate) fn rank(entries: &mut [(Arc<Memory>, u32)]) {
    entries.sort_by(|(a, sa), (b, sb)| {
        a.is_superseded()
            .cmp(&b.is_superseded())
            .then(sb.cmp(sa))
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| b.session.cmp(&a.session))
    });
}

/// How a supersession claim names a memory: its title, trimmed, compared without case.
pub(crate) fn title_key(title: &str) -> String {
    title.trim().to_lowercase()
}

/// The supersession prefix of an explain reason (never used for a scope exclusion).
pub const SUPERSEDED_REASON: &str = "superseded by a memory this caller cannot see";

/// Result of [`recall_from`]: the served memories (ranked) and the withheld ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recalled {
    /// Served memories with why they are visible, ranked.
    pub visible: Vec<(Arc<Memory>, String)>,
    /// Withheld memories with why.
    pub withheld: Vec<(Arc<Memory>, String)>,
}

/// Applies visibility and the supersession fixpoint to the agent memories among `entries`, then
/// ranks what is served. Withheld memories carry their reason only with `explain` (otherwise the
/// reason is empty).
pub(crate) fn recall_from(entries: &[Arc<Memory>], caller: &Caller, explain: bool) -> Recalled {
    // A memory marked private is never recalled, as a note marked private is never served.
    let corpus: Vec<&Arc<Memory>> = entries
        .iter()
        .filter(|m| m.is_agent() && !m.private)
        .collect();
    // Resolve every superseded_by claim once, by exact case-insensitive title. Only claimed
    // titles are looked up, so a store without supersession pays nothing here.
    let claimed: HashSet<String> = corpus
        .iter()
        .flat_map(|m| m.superseded_by.iter().map(|t| title_key(t)))
        .collect();
    let mut by_title: HashMap<String, usize> = HashMap::new();
    if !claimed.is_empty() {
        for (i, m) in corpus.iter().enumerate() {
            if let Some(t) = &m.title {
                let t = title_key(t);
                if claimed.contains(&t) {
                    by_title.entry(t).or_insert(i);
                }
            }
        }
    }
    let replacements: Vec<Vec<usize>> = corpus
        .iter()
        .map(|m| {
            let mut r: Vec<usize> = m
                .superseded_by
                .iter()
                .filter_map(|t| by_title.get(&title_key(t)).copied())
                .collect();
            r.sort_unstable();
            r.dedup();
            r
        })
        .collect();
    let visible: Vec<bool> = corpus.iter().map(|m| m.visible_to(caller)).collect();
    let mut served = visible.clone();
    // Greatest fixpoint by worklist: an entry with resolved replacements stays served only while
    // at least one of them is served.
    let mut live_count: Vec<usize> = replacements
        .iter()
        .map(|r| r.iter().filter(|&&j| served[j]).count())
        .collect();
    let mut replaced_by_me: Vec<Vec<usize>> = vec![Vec::new(); corpus.len()];
    for (i, r) in replacements.iter().enumerate() {
        for &j in r {
            replaced_by_me[j].push(i);
        }
    }
    let mut work: Vec<usize> = (0..corpus.len())
        .filter(|&i| served[i] && !replacements[i].is_empty() && live_count[i] == 0)
        .collect();
    while let Some(i) = work.pop() {
        if !served[i] {
            continue;
        }
        served[i] = false;
        for &k in &replaced_by_me[i] {
            live_count[k] -= 1;
            if served[k] && live_count[k] == 0 {
                work.push(k);
            }
        }
    }
    let mut shown: Vec<(Arc<Memory>, u32)> = Vec::new();
    let mut withheld = Vec::new();
    for (i, m) in corpus.iter().enumerate() {
        if served[i] {
            shown.push(((*m).clone(), m.specificity(caller)));
        } else if !explain {
            withheld.push(((*m).clone(), String::new()));
        } else if !visible[i] {
            withheld.push(((*m).clone(), m.visibility_reason(caller)));
        } else {
            // The corrections are, by construction, memories this caller cannot see: their
            // titles are not named, only counted.
            let n = replacements[i].len();
            let why = match n {
                0 | 1 => SUPERSEDED_REASON.to_string(),
                n => format!("{SUPERSEDED_REASON} ({n} corrections)"),
            };
            withheld.push(((*m).clone(), why));
        }
    }
    rank(&mut shown);
    Recalled {
        visible: shown
            .into_iter()
            .map(|(m, _)| {
                let why = m.visibility_reason(caller);
                (m, why)
            })
            .collect(),
        withheld,
    }
}

/// Reorders `visible` by `placed` (paths in retrieval order): placed entries first in that
/// order, then every other entry in its ranked order; finally live before superseded, keeping
/// the order within each group. Nothing is dropped.
pub(crate) fn reorder(
    visible: Vec<(Arc<Memory>, String)>,
    placed: &[String],
) -> Vec<(Arc<Memory>, String)> {
    let pos: HashMap<&str, usize> = placed
        .iter()
        .enumerate()
        .rev()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let mut v: Vec<(usize, (Arc<Memory>, String))> = visible.into_iter().enumerate().collect();
    v.sort_by_key(|(i, (m, _))| match pos.get(m.path.as_str()) {
        Some(p) => (0, *p),
        None => (1, *i),
    });
    let (live, old): (Vec<_>, Vec<_>) = v
        .into_iter()
        .map(|(_, e)| e)
        .partition(|(m, _)| !m.is_superseded());
    live.into_iter().chain(old).collect()
}

/// Whether `existing` may be found a duplicate of `candidate`: an agent memory that shares a
/// reach with it (what both the words' check and the meaning's check compare).
pub(crate) fn may_duplicate(candidate: &Memory, existing: &Memory) -> bool {
    existing.is_agent() && candidate.shares_facet(existing)
}

/// Near-duplicates of `candidate` among `existing`, best first, as (index, score).
pub(crate) fn find_duplicates(
    candidate: &Memory,
    digest: &text::Digest,
    existing: &[(Arc<Memory>, Arc<text::Digest>)],
) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = existing
        .iter()
        .enumerate()
        .filter(|(_, (m, _))| may_duplicate(candidate, m))
        .map(|(i, (_, d))| (i, text::similarity(digest, d)))
        .filter(|&(_, s)| s >= DUPLICATE_THRESHOLD)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Titles (lowercased) present in `entries`, for supersession matching.
pub(crate) fn resolve_supersedes(
    claims: &[String],
    entries: &[Arc<Memory>],
) -> (Vec<Arc<Memory>>, Vec<String>) {
    let mut matched: Vec<Arc<Memory>> = Vec::new();
    let mut unmatched = Vec::new();
    let mut seen = HashSet::new();
    for c in claims {
        let want = title_key(c);
        if want.is_empty() {
            continue;
        }
        match entries
            .iter()
            .find(|m| m.is_agent() && m.title.as_deref().is_some_and(|t| title_key(t) == want))
        {
            Some(m) => {
                if seen.insert(m.path.clone()) {
                    matched.push(m.clone());
                }
            }
            None => unmatched.push(c.trim().to_string()),
        }
    }
    (matched, unmatched)
}
