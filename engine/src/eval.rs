//! The quality harness: index a BEIR-format collection (`corpus.jsonl`, `queries.jsonl`,
//! `qrels.tsv`) as a vault of one note per document, run every judged query, and report
//! nDCG@10, MRR@10 and recall@100 per retrieval mode.
//!
//! Gains are the judgment grades as given (linear gain, as in trec_eval's `ndcg_cut`); grades ≤ 0
//! count as not relevant.

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::lexical::SearchOptions;
use crate::query::{QueryOptions, SubQuery};
use crate::vault::{Progress, Vault, VaultOptions};

/// A retrieval mode to evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalMode {
    /// BM25 only (`search`).
    Bm25,
    /// Vectors only (`vsearch`).
    Vector,
    /// Lexical + vector fused (`query`).
    Hybrid,
    /// A ranking computed elsewhere and read from a TREC run file (the reference baselines),
    /// scored by the same metric code.
    Run,
}

/// Figures for one mode.
#[derive(Debug, Clone, Serialize)]
pub struct EvalScores {
    /// The mode.
    pub mode: EvalMode,
    /// Judged queries run.
    pub queries: usize,
    /// Mean nDCG@10.
    pub ndcg_at_10: f64,
    /// Mean reciprocal rank of the first relevant document within the top 10.
    pub mrr_at_10: f64,
    /// Mean fraction of relevant documents found in the top 100.
    pub recall_at_100: f64,
    /// Mean wall time per query, in milliseconds (inside the engine).
    pub ms_per_query: f64,
    /// Fraction of queries whose first hit is a document of the query's highest grade.
    pub top1_best: f64,
    /// The same figures per query `category` (a field of `queries.jsonl`), when queries have one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_category: Vec<CategoryScores>,
    /// Whether the first hit's relevance means match strength (hybrid mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<RelevanceCheck>,
}

/// The relevance ([`crate::query::relevance`]) of each query's first hit: judged queries are on
/// topic, the queries of `offtopic.jsonl` beside `queries.jsonl` (when there is one) are
/// questions the collection cannot answer.
#[derive(Debug, Clone, Serialize)]
pub struct RelevanceCheck {
    /// Fraction of judged queries whose first hit has relevance ≥ 0.5.
    pub on_topic_at_least_half: f64,
    /// Median relevance of the judged queries' first hits.
    pub on_topic_median: f64,
    /// Off-topic queries run.
    pub off_topic_queries: usize,
    /// Fraction of off-topic queries whose first hit (if any) has relevance < 0.5 (none without
    /// off-topic queries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off_topic_under_half: Option<f64>,
    /// The highest relevance of an off-topic query's first hit (0 when none returned a hit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off_topic_max: Option<f64>,
}

impl RelevanceCheck {
    fn of(on_topic: &[f32], off_topic: &[f32]) -> RelevanceCheck {
        let share = |v: &[f32], f: &dyn Fn(f32) -> bool| {
            v.iter().filter(|x| f(**x)).count() as f64 / v.len().max(1) as f64
        };
        let mut sorted = on_topic.to_vec();
        sorted.sort_by(f32::total_cmp);
        RelevanceCheck {
            on_topic_at_least_half: share(on_topic, &|x| x >= 0.5),
            on_topic_median: sorted.get(sorted.len() / 2).map_or(0.0, |&x| f64::from(x)),
            off_topic_queries: off_topic.len(),
            off_topic_under_half: (!off_topic.is_empty()).then(|| share(off_topic, &|x| x < 0.5)),
            off_topic_max: (!off_topic.is_empty())
                .then(|| off_topic.iter().fold(0.0, |m: f64, &x| m.max(f64::from(x)))),
        }
    }
}

/// Figures for the queries of one category.
#[derive(Debug, Clone, Serialize)]
pub struct CategoryScores {
    /// The category.
    pub category: String,
    /// Judged queries in it.
    pub queries: usize,
    /// Mean nDCG@10.
    pub ndcg_at_10: f64,
    /// Mean reciprocal rank within the top 10.
    pub mrr_at_10: f64,
    /// Fraction whose first hit is a document of the query's highest grade.
    pub top1_best: f64,
}

/// The three files of a BEIR-format collection.
#[derive(Debug, Clone, Copy)]
pub struct EvalFiles<'a> {
    /// `corpus.jsonl`: `{"_id", "title", "text"}` per line.
    pub corpus: &'a Path,
    /// `queries.jsonl`: `{"_id", "text"}` per line.
    pub queries: &'a Path,
    /// `qrels.tsv`: `query-id`, `corpus-id`, `score`, tab-separated, with a header.
    pub qrels: &'a Path,
}

/// Fusion parameters for the hybrid mode.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct EvalFusion {
    /// The fusion method.
    pub method: crate::query::Fusion,
    /// RRF constant.
    pub rrf_k: f32,
    /// Weight of the lexical list.
    pub lex_weight: f32,
    /// Weight of the vector list.
    pub vec_weight: f32,
}

impl Default for EvalFusion {
    fn default() -> Self {
        let q = QueryOptions::default();
        EvalFusion {
            method: q.fusion,
            rrf_k: q.rrf_k,
            lex_weight: 1.0,
            vec_weight: crate::query::DEFAULT_VEC_WEIGHT,
        }
    }
}

/// The collection evaluated.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// Documents indexed.
    pub documents: usize,
    /// Queries with at least one judgment.
    pub judged_queries: usize,
    /// One entry per mode run.
    pub scores: Vec<EvalScores>,
    /// The fusion parameters of the hybrid mode.
    pub fusion: EvalFusion,
    /// Seconds spent indexing (update) and embedding.
    pub index_seconds: f64,
    /// Seconds spent embedding (0 without a model).
    pub embed_seconds: f64,
    /// The run file scored as the `run` row, when one was given.
    pub run_file: Option<String>,
}

fn read_jsonl(path: &Path) -> Result<Vec<serde_json::Value>> {
    let f = fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.map_err(|e| Error::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        out.push(serde_json::from_str(&line).map_err(|e| {
            Error::invalid(
                path.display().to_string(),
                format!("line {}: not JSON: {e}", i + 1),
            )
        })?);
    }
    Ok(out)
}

/// `qrels.tsv`: `query-id corpus-id score` with a header line.
fn read_qrels(path: &Path) -> Result<HashMap<String, HashMap<String, f64>>> {
    let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut out: HashMap<String, HashMap<String, f64>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            if line.trim().is_empty() {
                continue;
            }
            return Err(Error::invalid(
                path.display().to_string(),
                format!("line {}: expected 3 tab-separated columns", i + 1),
            ));
        }
        let Ok(score) = cols[2].trim().parse::<f64>() else {
            if i == 0 {
                continue; // header
            }
            return Err(Error::invalid(
                path.display().to_string(),
                format!("line {}: score {:?} is not a number", i + 1, cols[2]),
            ));
        };
        out.entry(cols[0].trim().to_string())
            .or_default()
            .insert(cols[1].trim().to_string(), score);
    }
    Ok(out)
}

/// A BEIR `_id` as a string (some collections write numbers).
fn beir_id(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A file name for a document id (ids may hold any characters).
fn note_name(id: &str) -> String {
    let mut s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    // Keep distinct ids distinct after sanitising.
    if s != id {
        s.push_str(&format!(
            "-{:x}",
            xxhash_rust::xxh3::xxh3_64(id.as_bytes()) & 0xffff_ffff
        ));
    }
    s
}

/// Whether a document id is a relative `.md` path inside the collection (no `..`, no hidden or
/// empty segments, no backslashes).
fn is_vault_path(id: &str) -> bool {
    id.ends_with(".md")
        && !id.starts_with('/')
        && !id.contains('\\')
        && id
            .split('/')
            .all(|s| !s.is_empty() && !s.starts_with('.') && s != "..")
}

/// nDCG@k with linear gains.
fn ndcg(ranked: &[String], judged: &HashMap<String, f64>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| judged.get(d).copied().unwrap_or(0.0).max(0.0) / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<f64> = judged.values().copied().filter(|g| *g > 0.0).collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, g)| g / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

fn mrr(ranked: &[String], judged: &HashMap<String, f64>, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|d| judged.get(d).is_some_and(|g| *g > 0.0))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

fn recall(ranked: &[String], judged: &HashMap<String, f64>, k: usize) -> f64 {
    let relevant = judged.values().filter(|g| **g > 0.0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| judged.get(*d).is_some_and(|g| *g > 0.0))
        .count();
    found as f64 / relevant as f64
}

/// A TREC run file (`qid Q0 docid rank score tag`, whitespace-separated, one line per retrieved
/// document) as each query's document ids, in the order of their scores (ties by rank).
fn read_run(path: &Path) -> Result<HashMap<String, Vec<String>>> {
    let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut rows: HashMap<String, Vec<(f64, usize, String)>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.is_empty() {
            continue;
        }
        let bad = |what: &str| {
            Error::invalid(
                path.display().to_string(),
                format!(
                    "line {}: {what} (expected `qid Q0 docid rank score tag`)",
                    i + 1
                ),
            )
        };
        if cols.len() < 5 {
            return Err(bad("fewer than 5 columns"));
        }
        // A document id holding spaces (a vault path) spans several columns: with a tag, the
        // last three columns are rank, score and tag.
        let (doc, rank, score) = if cols.len() > 6 {
            let n = cols.len();
            (cols[2..n - 3].join(" "), cols[n - 3], cols[n - 2])
        } else {
            (cols[2].to_string(), cols[3], cols[4])
        };
        let rank: usize = rank.parse().map_err(|_| bad("rank is not a number"))?;
        let score: f64 = score.parse().map_err(|_| bad("score is not a number"))?;
        rows.entry(cols[0].to_string())
            .or_default()
            .push((score, rank, doc));
    }
    Ok(rows
        .into_iter()
        .map(|(q, mut docs)| {
            docs.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            (q, docs.into_iter().map(|(_, _, d)| d).collect())
        })
        .collect())
}

/// Mean metrics over the judged queries for rankings given per query id.
/// A judged query: id, text, category (possibly empty), judgments.
type Judged<'a> = (String, String, String, &'a HashMap<String, f64>);

fn score_rankings(
    mode: EvalMode,
    judged: &[Judged<'_>],
    off_topic: &[f32],
    mut ranked_for: impl FnMut(&str, &str) -> Result<Ranked>,
    progress: &dyn Progress,
) -> Result<EvalScores> {
    let mut tops = Vec::new();
    let mut sums = [0f64; 4];
    let mut cats: std::collections::BTreeMap<&str, (usize, [f64; 3])> = Default::default();
    let t = Instant::now();
    progress.start(&format!("{mode:?}").to_lowercase(), judged.len() as u64);
    for (id, text, category, judgments) in judged {
        let (ranked, top) = ranked_for(id, text)?;
        tops.extend(top);
        let best = judgments.values().copied().fold(f64::MIN, f64::max);
        let figures = [
            ndcg(&ranked, judgments, 10),
            mrr(&ranked, judgments, 10),
            f64::from(u8::from(
                ranked
                    .first()
                    .and_then(|d| judgments.get(d))
                    .is_some_and(|g| *g >= best && *g > 0.0),
            )),
        ];
        sums[0] += figures[0];
        sums[1] += figures[1];
        sums[2] += recall(&ranked, judgments, 100);
        sums[3] += figures[2];
        if !category.is_empty() {
            let c = cats.entry(category.as_str()).or_default();
            c.0 += 1;
            for (acc, f) in c.1.iter_mut().zip(figures) {
                *acc += f;
            }
        }
        progress.advance(1);
    }
    progress.finish();
    let n = judged.len().max(1) as f64;
    Ok(EvalScores {
        mode,
        queries: judged.len(),
        ndcg_at_10: sums[0] / n,
        mrr_at_10: sums[1] / n,
        recall_at_100: sums[2] / n,
        ms_per_query: t.elapsed().as_secs_f64() * 1000.0 / n,
        top1_best: sums[3] / n,
        by_category: cats
            .into_iter()
            .map(|(category, (count, f))| {
                let m = count.max(1) as f64;
                CategoryScores {
                    category: category.to_string(),
                    queries: count,
                    ndcg_at_10: f[0] / m,
                    mrr_at_10: f[1] / m,
                    top1_best: f[2] / m,
                }
            })
            .collect(),
        relevance: (!tops.is_empty()).then(|| RelevanceCheck::of(&tops, off_topic)),
    })
}

/// A query's ranking (collection ids, best first) and its first hit's relevance, where the mode
/// gives one.
type Ranked = (Vec<String>, Option<f32>);

/// Runs the harness. `work_dir` must be an empty (or missing) folder: the vault is written there.
/// Vector and hybrid modes need `embedder`. With `run`, a TREC run file computed elsewhere (a
/// reference baseline) is scored too, as the `run` row, with the same metric code.
pub fn evaluate(
    files: &EvalFiles<'_>,
    modes: &[EvalMode],
    embedder: Option<&dyn Embedder>,
    fusion: &EvalFusion,
    work_dir: &Path,
    run: Option<&Path>,
    progress: &dyn Progress,
) -> Result<EvalReport> {
    let run_rankings = run.map(read_run).transpose()?;
    let modes: Vec<EvalMode> = modes
        .iter()
        .copied()
        .filter(|m| *m != EvalMode::Run)
        .collect();
    if modes.iter().any(|m| *m != EvalMode::Bm25) && embedder.is_none() {
        return Err(Error::invalid(
            "mode",
            "vector and hybrid modes need an embedding model",
        ));
    }
    let docs = read_jsonl(files.corpus)?;
    let qs = read_jsonl(files.queries)?;
    let judgments = read_qrels(files.qrels)?;
    fs::create_dir_all(work_dir).map_err(|e| Error::io(work_dir, e))?;
    let mut id_of: HashMap<String, String> = HashMap::new();
    for d in &docs {
        let id = beir_id(&d["_id"]);
        let title = d["title"].as_str().unwrap_or("").trim();
        let text = d["text"].as_str().unwrap_or("");
        // A document whose id is a vault path is a whole note (frontmatter and all), written
        // at that path: collections of real vaults keep their folders and frontmatter.
        let (rel, body) = if is_vault_path(&id) {
            (id.clone(), format!("{text}\n"))
        } else {
            let mut body = String::new();
            if !title.is_empty() {
                body.push_str(&format!("# {}\n\n", title.replace('\n', " ")));
            }
            body.push_str(text);
            body.push('\n');
            (format!("{}.md", note_name(&id)), body)
        };
        let path = work_dir.join(&rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        if fs::read_to_string(&path).ok().as_deref() != Some(body.as_str()) {
            fs::write(&path, body).map_err(|e| Error::io(&path, e))?;
        }
        id_of.insert(rel, id);
    }
    let t = Instant::now();
    let vault = Vault::open(work_dir, VaultOptions::default())?;
    vault.update(progress)?;
    let index_seconds = t.elapsed().as_secs_f64();
    let t = Instant::now();
    if let Some(e) = embedder
        && modes.iter().any(|m| *m != EvalMode::Bm25)
    {
        vault.vectors().embed(e, progress)?;
    }
    let embed_seconds = if embedder.is_some() {
        t.elapsed().as_secs_f64()
    } else {
        0.0
    };

    let judged: Vec<Judged<'_>> = qs
        .iter()
        .filter_map(|q| {
            let id = beir_id(&q["_id"]);
            let text = q["text"].as_str()?.to_string();
            let category = q["category"].as_str().unwrap_or_default().to_string();
            judgments.get(&id).map(|j| (id, text, category, j))
        })
        .collect();
    // Questions the collection cannot answer: `offtopic.jsonl` beside the queries.
    let off_topic: Vec<String> = match files.queries.parent().map(|d| d.join("offtopic.jsonl")) {
        Some(p) if p.is_file() => read_jsonl(&p)?
            .iter()
            .filter_map(|q| q["text"].as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let mut scores = Vec::new();
    if let Some(runs) = &run_rankings {
        scores.push(score_rankings(
            EvalMode::Run,
            &judged,
            &[],
            |id, _| Ok((runs.get(id).cloned().unwrap_or_default(), None)),
            progress,
        )?);
    }
    for &mode in &modes {
        let opts = SearchOptions {
            limit: 100,
            all_chunks: false,
        };
        let ranked_for = |_: &str, text: &str| -> Result<Ranked> {
            let mut top = None;
            let paths: Vec<String> = match mode {
                EvalMode::Bm25 => vault
                    .lexical()?
                    .rank(text, crate::lexical::Syntax::Full, opts.limit)?
                    .into_iter()
                    .map(|h| h.path)
                    .collect(),
                EvalMode::Vector => vault
                    .vectors()
                    .search(embedder.expect("checked above"), text, &opts)?
                    .into_iter()
                    .map(|h| h.path)
                    .collect(),
                EvalMode::Hybrid => {
                    let qo = QueryOptions {
                        limit: 100,
                        candidates: 100,
                        rrf_k: fusion.rrf_k,
                        fusion: fusion.method,
                        ..QueryOptions::default()
                    };
                    let mut subs = SubQuery::hybrid(text);
                    subs[0].weight = fusion.lex_weight;
                    subs[1].weight = fusion.vec_weight;
                    let hits = vault.query(embedder, &subs, &qo)?.hits;
                    top = Some(hits.first().map_or(0.0, |h| h.hit.score));
                    hits.into_iter().map(|h| h.hit.path).collect()
                }
                EvalMode::Run => Vec::new(),
            };
            let ids = paths
                .into_iter()
                .filter_map(|p| id_of.get(&p).cloned())
                .collect();
            Ok((ids, top))
        };
        let off: Vec<f32> = match mode {
            EvalMode::Hybrid => off_topic
                .iter()
                .map(|text| Ok(ranked_for("", text)?.1.unwrap_or(0.0)))
                .collect::<Result<_>>()?,
            _ => Vec::new(),
        };
        scores.push(score_rankings(mode, &judged, &off, &ranked_for, progress)?);
    }
    Ok(EvalReport {
        documents: docs.len(),
        judged_queries: judged.len(),
        scores,
        fusion: *fusion,
        index_seconds,
        embed_seconds,
        run_file: run.map(|p| p.display().to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(pairs: &[(&str, f64)]) -> HashMap<String, f64> {
        pairs.iter().map(|(d, g)| (d.to_string(), *g)).collect()
    }

    fn r(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn run_files_may_name_documents_with_spaces() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.run");
        fs::write(
            &p,
            "q1 Q0 work/a b.md 2 1.5 ref\nq1 Q0 c.md 1 2.0 ref\nq2 Q0 d.md 1 1.0\n",
        )
        .unwrap();
        let runs = read_run(&p).unwrap();
        assert_eq!(
            runs["q1"],
            vec!["c.md".to_string(), "work/a b.md".to_string()]
        );
        assert_eq!(runs["q2"], vec!["d.md".to_string()]);
    }

    #[test]
    fn metrics_on_known_cases() {
        let judged = j(&[("a", 1.0), ("b", 1.0)]);
        assert!((ndcg(&r(&["a", "b", "c"]), &judged, 10) - 1.0).abs() < 1e-12);
        assert_eq!(ndcg(&r(&["x", "y"]), &judged, 10), 0.0);
        // One relevant at rank 2 of two relevant: (1/log2(3)) / (1 + 1/log2(3)).
        let expect = (1.0 / 3f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((ndcg(&r(&["x", "a"]), &judged, 10) - expect).abs() < 1e-12);
        assert_eq!(mrr(&r(&["x", "y", "b"]), &judged, 10), 1.0 / 3.0);
        assert_eq!(mrr(&r(&["x"]), &judged, 10), 0.0);
        assert_eq!(recall(&r(&["a", "x"]), &judged, 100), 0.5);
        // Graded: the higher grade first is ideal.
        let graded = j(&[("a", 3.0), ("b", 1.0), ("n", 0.0)]);
        assert!((ndcg(&r(&["a", "b"]), &graded, 10) - 1.0).abs() < 1e-12);
        assert!(ndcg(&r(&["b", "a"]), &graded, 10) < 1.0);
    }

    #[test]
    fn note_names_stay_distinct() {
        assert_eq!(note_name("12345"), "12345");
        assert_ne!(note_name("a/b"), note_name("a_b"));
        assert_ne!(note_name("a/b"), note_name("a:b"));
    }

    #[test]
    fn bm25_eval_on_a_tiny_collection() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(
            d.join("corpus.jsonl"),
            r#"{"_id":"d1","title":"Apples","text":"Apples are red fruit that grow on trees."}
{"_id":"d2","title":"Rockets","text":"Rockets burn fuel to reach orbit."}
{"_id":"d3","title":"Oranges","text":"Oranges are citrus fruit."}
"#,
        )
        .unwrap();
        fs::write(d.join("queries.jsonl"), "{\"_id\":\"q1\",\"text\":\"red apples\"}\n{\"_id\":\"q2\",\"text\":\"orbit fuel\"}\n{\"_id\":\"q3\",\"text\":\"unjudged\"}\n").unwrap();
        fs::write(
            d.join("qrels.tsv"),
            "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\n",
        )
        .unwrap();
        let (c, q, j) = (
            d.join("corpus.jsonl"),
            d.join("queries.jsonl"),
            d.join("qrels.tsv"),
        );
        let files = EvalFiles {
            corpus: &c,
            queries: &q,
            qrels: &j,
        };
        let r = evaluate(
            &files,
            &[EvalMode::Bm25],
            None,
            &EvalFusion::default(),
            &d.join("vault"),
            None,
            &crate::vault::NoProgress,
        )
        .unwrap();
        assert_eq!(r.documents, 3);
        assert_eq!(r.judged_queries, 2);
        assert_eq!(r.scores[0].queries, 2);
        assert!(
            (r.scores[0].ndcg_at_10 - 1.0).abs() < 1e-9,
            "{:?}",
            r.scores
        );
        assert!((r.scores[0].mrr_at_10 - 1.0).abs() < 1e-9);
        // Vector modes without a model are refused up front.
        let e = evaluate(
            &files,
            &[EvalMode::Hybrid],
            None,
            &EvalFusion::default(),
            &d.join("vault2"),
            None,
            &crate::vault::NoProgress,
        )
        .unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::InvalidArgument);
        // A run file is scored by the same code: q1 perfect, q2 finds d2 second; q3 unjudged.
        fs::write(
            d.join("ref.run"),
            "q1 Q0 d1 1 9.5 ref\nq1 Q0 d3 2 1.0 ref\nq2 Q0 d2 2 2.0 ref\nq2 Q0 d3 1 3.0 ref\nq3 Q0 d1 1 1 ref\n",
        )
        .unwrap();
        let r = evaluate(
            &files,
            &[EvalMode::Bm25],
            None,
            &EvalFusion::default(),
            &d.join("vault3"),
            Some(&d.join("ref.run")),
            &crate::vault::NoProgress,
        )
        .unwrap();
        assert_eq!(r.scores[0].mode, EvalMode::Run);
        assert!(
            (r.scores[0].mrr_at_10 - 0.75).abs() < 1e-9,
            "{:?}",
            r.scores
        );
        let q2 = 1.0 / 3f64.log2();
        assert!(((r.scores[0].ndcg_at_10 - (1.0 + q2) / 2.0).abs()) < 1e-9);
        assert_eq!(r.scores[1].mode, EvalMode::Bm25);
        fs::write(d.join("bad.run"), "q1 Q0 d1 first 1 ref\n").unwrap();
        let e = evaluate(
            &files,
            &[EvalMode::Bm25],
            None,
            &EvalFusion::default(),
            &d.join("vault4"),
            Some(&d.join("bad.run")),
            &crate::vault::NoProgress,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("line 1: rank is not a number"),
            "{e}"
        );
    }
}
