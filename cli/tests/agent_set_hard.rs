//! The harder agent set (`benches/agent-set-hard`, BEIR layout: a realistic engineer's vault
//! with many notes per subject, scaffolding as distractors, questions without the notes' words)
//! as a quality floor: the real `mindex eval` process over it with the real embedding model.
//!
//! The floors are the figures measured when the set was written (benches/README.md) less a
//! margin: a ranking change that loses more fails here. Issue 39's goals for this set (templates
//! never first, identifiers first) are not met yet, so they are not asserted.

#[path = "support/run.rs"]
mod run;

use std::path::PathBuf;

use serde_json::Value;

/// nDCG@10 floors (measured 0.639 / 0.633, less 0.03).
const FLOOR_BM25: f64 = 0.60;
const FLOOR_HYBRID: f64 = 0.60;
/// Shares of first hits on the right side of 0.5 (measured 0.946 and 0.962, benches/README.md).
const FLOOR_ON_TOPIC: f64 = 0.90;
const FLOOR_OFF_TOPIC: f64 = 0.90;

#[test]
fn the_hard_agent_set_holds_its_floor() {
    let set = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../benches/agent-set-hard");
    let arg = |f: &str| set.join(f).display().to_string();
    let (corpus, queries, qrels) = (arg("corpus.jsonl"), arg("queries.jsonl"), arg("qrels.tsv"));
    let out = run::mindex(&[
        "eval",
        "-q",
        "--json",
        "--mode",
        "all",
        "--corpus",
        &corpus,
        "--queries",
        &queries,
        "--qrels",
        &qrels,
    ]);
    assert!(
        out.status.success(),
        "mindex eval failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["judged_queries"].as_u64().unwrap() >= 150,
        "{report}"
    );
    let scores = |mode: &str| {
        report["scores"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mode"] == mode)
            .unwrap_or_else(|| panic!("no {mode} in {report}"))
    };
    let ndcg = |mode: &str| scores(mode)["ndcg_at_10"].as_f64().unwrap();
    let (bm25, hybrid) = (ndcg("bm25"), ndcg("hybrid"));
    eprintln!(
        "hard agent set nDCG@10: bm25 {bm25:.4}, vector {:.4}, hybrid {hybrid:.4}",
        ndcg("vector")
    );
    assert!(
        bm25 >= FLOOR_BM25,
        "bm25 {bm25:.4} below its floor {FLOOR_BM25}"
    );
    assert!(
        hybrid >= FLOOR_HYBRID,
        "hybrid {hybrid:.4} below its floor {FLOOR_HYBRID}"
    );
    // Relevance means match strength: on-topic questions' first hits reach 0.5, questions the
    // vault cannot answer (offtopic.jsonl: ten far from it, sixteen in its trade) stay under.
    let rel = &scores("hybrid")["relevance"];
    eprintln!("hard agent set, first hit's relevance: {rel}");
    let share = |k: &str| rel[k].as_f64().unwrap_or_else(|| panic!("no {k} in {rel}"));
    assert!(rel["off_topic_queries"].as_u64() >= Some(26), "{rel}");
    assert!(share("on_topic_at_least_half") >= FLOOR_ON_TOPIC, "{rel}");
    assert!(share("off_topic_under_half") >= FLOOR_OFF_TOPIC, "{rel}");
}
