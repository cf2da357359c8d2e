//! Memory store benchmarks: recall and the pre-write duplicate scan over a large store.
//!
//! Run with `benches/run-memory.sh` (or `cargo bench -p mindex-benches --bench memory`).
//! Environment: `MINDEX_BENCH_MEMORIES` (default 5000), `MINDEX_BENCH_NOTES` (default 1000).
//!
//! Warm figures reuse one [`Vault`] (a long-lived process: the MCP server, a Python or C host),
//! so unchanged memory files are served from the parse cache. The baseline, measured in the same
//! run, is the same call on a fresh handle: every memory file is listed, read and parsed again,
//! which is what a store without a parse cache pays on every call.

use std::time::Instant;

use mindex::{Caller, MemoryInput, NoProgress, RecallOptions, Vault, VaultOptions};
use mindex_benches::{generate_memories, generate_vault, percentile};

fn time<T>(n: usize, mut f: impl FnMut(usize) -> T) -> Vec<f64> {
    let mut v: Vec<f64> = (0..n)
        .map(|i| {
            let t = Instant::now();
            std::hint::black_box(f(i));
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

fn row(name: &str, t: &[f64], target: Option<f64>) -> String {
    let p50 = percentile(t, 50.0);
    let target = target.map_or("—".to_string(), |x| {
        format!("{x} ms ({})", if p50 <= x { "met" } else { "MISSED" })
    });
    format!(
        "| {name} | {} | {p50:.2} ms | {:.2} ms | {target} |",
        t.len(),
        percentile(t, 95.0)
    )
}

fn main() -> anyhow::Result<()> {
    let memories = mindex_benches::env_usize("MINDEX_BENCH_MEMORIES", 5000);
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 1000);
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    let g = generate_vault(&root, notes, 7)?;
    generate_memories(&root, memories, 40, &g.vocabulary, 11)?;
    let open = || Vault::open(&root, VaultOptions::default());
    let t = Instant::now();
    let report = open()?.update(&NoProgress)?;
    eprintln!(
        "{} notes + {memories} memories indexed in {:.1} s",
        notes,
        t.elapsed().as_secs_f64()
    );
    assert!(report.notes >= notes + memories);
    let caller = Caller::named("proj3")?;
    let vault = open()?;
    let all = RecallOptions::default();
    let first = vault.scoped(&caller).recall(&all, None)?;
    eprintln!(
        "caller proj3 sees {} of {} memories ({} withheld)",
        first.visible, memories, first.withheld
    );
    let query = RecallOptions {
        query: Some(format!("{} {}", g.vocabulary[40], g.vocabulary[55])),
        ..RecallOptions::default()
    };
    let warm_list = time(50, |_| vault.memories().len());
    eprintln!(
        "store listing (stat + cache) p50 {:.2} ms",
        percentile(&warm_list, 50.0)
    );
    let warm_recall = time(50, |_| {
        vault.scoped(&caller).recall(&all, None).map(|r| r.visible)
    });
    let warm_hits = vault.scoped(&caller).recall(&all, None)?.cache;
    assert_eq!(warm_hits.misses, 0, "warm recall re-parsed files");
    let cold_recall = time(10, |_| {
        open().and_then(|v| v.scoped(&caller).recall(&all, None).map(|r| r.visible))
    });
    let warm_query = time(50, |_| {
        vault
            .scoped(&caller)
            .recall(&query, None)
            .map(|r| r.visible)
    });

    let input = |i: usize| {
        MemoryInput {
        title: format!("Benchmark lesson about queue retries number {i}"),
        body: "Retries on the payment queue must be idempotent, because the broker redelivers after a visibility timeout.".into(),
        confidence: "inferred".into(),
        dry_run: true,
        ..MemoryInput::default()
    }
    };
    let warm_scan = time(30, |i| {
        vault
            .scoped(&caller)
            .remember(&input(i), None)
            .map(|r| r.preview.is_some())
    });
    let cold_scan = time(10, |i| {
        open().and_then(|v| {
            v.scoped(&caller)
                .remember(&input(i), None)
                .map(|r| r.preview.is_some())
        })
    });
    let writes = time(20, |i| {
        let mut inp = input(i);
        inp.dry_run = false;
        inp.title = format!("Written lesson {i} about broker redelivery");
        inp.body = format!("{} Case {i}.", inp.body);
        inp.force = true;
        vault
            .scoped(&caller)
            .remember(&inp, None)
            .map(|r| r.indexed)
    });

    let ratio = |cold: &[f64], warm: &[f64]| percentile(cold, 50.0) / percentile(warm, 50.0);
    println!("\nMemory store: {memories} memories (+{notes} notes), 2 cores\n");
    println!("| operation | runs | p50 | p95 | target |");
    println!("|---|---|---|---|---|");
    println!(
        "{}",
        row("recall, warm (parse cache)", &warm_recall, Some(20.0))
    );
    println!(
        "{}",
        row(
            "recall, cold handle (baseline: re-parse every file)",
            &cold_recall,
            None
        )
    );
    println!(
        "{}",
        row("recall with a query (BM25), warm", &warm_query, Some(20.0))
    );
    println!(
        "{}",
        row(
            "remember --dry-run: validate + duplicate scan + render, warm",
            &warm_scan,
            Some(50.0)
        )
    );
    println!(
        "{}",
        row(
            "remember --dry-run, cold handle (baseline)",
            &cold_scan,
            None
        )
    );
    println!("{}", row("remember, written and indexed", &writes, None));
    println!(
        "\nwarm recall is {:.1}x faster than re-parsing; warm duplicate scan {:.1}x",
        ratio(&cold_recall, &warm_recall),
        ratio(&cold_scan, &warm_scan)
    );
    Ok(())
}
