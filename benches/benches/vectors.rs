//! Vector search at scale: HNSW against the exact scan, on the same store, in one run.
//!
//! `cargo bench -p mindex-benches --bench vectors` (env `MINDEX_BENCH_VECTORS`, default 100000).
//! The vectors are synthetic but shaped like sentence embeddings: 384-d, unit length, drawn around
//! 2,000 cluster centres (uniformly random vectors, with no structure, are the worst case for any
//! graph index and not what a vault produces). Queries are fresh draws from the same clusters.

use std::time::Instant;

use mindex::{vector::VectorStore, vector::VectorWriter};
use mindex_benches::{Rng, percentile};

const DIM: usize = 384;

fn gauss(rng: &mut Rng) -> f32 {
    // Box-Muller.
    let u1 = rng.unit().max(1e-12);
    let u2 = rng.unit();
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn main() -> anyhow::Result<()> {
    let n: usize = std::env::var("MINDEX_BENCH_VECTORS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut rng = Rng::new(1);
    // Points per cluster grow with the store (as a vault's topics fill up): 2,000 centres by default.
    let clusters: usize = std::env::var("MINDEX_BENCH_CLUSTERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let centres: Vec<Vec<f32>> = (0..clusters)
        .map(|_| unit((0..DIM).map(|_| gauss(&mut rng)).collect()))
        .collect();
    // Noise of 0.06 per dimension puts a point at cosine ~0.6-0.7 from its centre, like related passages.
    let draw = |rng: &mut Rng| -> Vec<f32> {
        let c = &centres[rng.below(centres.len())];
        unit(c.iter().map(|x| x + 0.06 * gauss(rng)).collect())
    };
    let vectors: Vec<Vec<f32>> = (0..n).map(|_| draw(&mut rng)).collect();
    let added: Vec<Vec<f32>> = (0..1000).map(|_| draw(&mut rng)).collect();
    let queries: Vec<Vec<f32>> = (0..300).map(|_| draw(&mut rng)).collect();

    let dir = tempfile::tempdir()?;
    let vdir = dir.path().join("vectors");
    let mut w = VectorWriter::open(&vdir, "bench", DIM)?;
    let keys: Vec<u64> = (0..n as u64).collect();
    w.append(&keys, &vectors)?;
    let t = Instant::now();
    w.ensure_index(0, &|_, _| {})?;
    let build_s = t.elapsed().as_secs_f64();
    drop(w);
    let t = Instant::now();
    let store = VectorStore::open(&vdir, "bench")?.expect("store");
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    assert!(store.is_approximate());

    let mut exact_ms = Vec::new();
    let mut truths = Vec::new();
    for q in &queries {
        let t = Instant::now();
        let exact = store.search_exact(q, 10);
        exact_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        truths.push(
            exact
                .iter()
                .map(|e| e.0)
                .collect::<std::collections::HashSet<u64>>(),
        );
    }
    exact_ms.sort_by(f64::total_cmp);
    let mut rows = Vec::new();
    let efs: Vec<usize> = std::env::var("MINDEX_BENCH_EF")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![16, 32, 64, 128]);
    for ef in efs {
        let mut ann_ms = Vec::new();
        let mut found = 0usize;
        let mut lost = 0usize;
        for (q, truth) in queries.iter().zip(&truths) {
            let t = Instant::now();
            let approx = store.search_with_ef(q, 10, ef);
            ann_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let hits = approx.iter().filter(|a| truth.contains(&a.0)).count();
            found += hits;
            lost += usize::from(hits == 0);
        }
        ann_ms.sort_by(f64::total_cmp);
        rows.push((ef, ann_ms, found as f64 / (10 * queries.len()) as f64, lost));
    }
    drop(store);
    // Extending the graph with 1,000 more vectors.
    let mut w = VectorWriter::open(&vdir, "bench", DIM)?;
    w.append(&(n as u64..n as u64 + 1000).collect::<Vec<u64>>(), &added)?;
    let t = Instant::now();
    assert!(w.extend_index(&|_, _| {})?);
    let extend_s = t.elapsed().as_secs_f64();
    drop(w);
    let store = VectorStore::open(&vdir, "bench")?.expect("store");
    let mut found = 0usize;
    for q in &added[..100] {
        let exact: std::collections::HashSet<u64> =
            store.search_exact(q, 10).iter().map(|e| e.0).collect();
        found += store
            .search(q, 10)
            .iter()
            .filter(|a| exact.contains(&a.0))
            .count();
    }
    let extend_recall = found as f64 / 1000.0;
    println!(
        "\n### Vector search: {n} × {DIM} (clustered synthetic, {clusters} centres), {} queries, top 10\n",
        queries.len()
    );
    println!(
        "HNSW build: {build_s:.1} s (M {}, ef_construction {}, {} threads); reopen (graph memory-mapped): {open_ms:.2} ms; \
         adding 1,000 vectors to the graph: {extend_s:.2} s (recall@10 {extend_recall:.3} on 100 of them as queries, ef {})\n",
        mindex::vector::GRAPH_M,
        mindex::vector::GRAPH_EF_CONSTRUCTION,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        mindex::vector::DEFAULT_EF_SEARCH,
    );
    println!(
        "| search | p50 | p95 | recall@10 vs exact | queries with none of their 10 | p50 vs exact |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| exact scan (baseline) | {:.2} ms | {:.2} ms | 1.000 | 0 | 1.0× |",
        percentile(&exact_ms, 50.0),
        percentile(&exact_ms, 95.0)
    );
    for (ef, ann_ms, recall, lost) in &rows {
        println!(
            "| HNSW (ef {ef}) | {:.2} ms | {:.2} ms | {recall:.3} | {lost} | {:.1}× faster |",
            percentile(ann_ms, 50.0),
            percentile(ann_ms, 95.0),
            percentile(&exact_ms, 50.0) / percentile(ann_ms, 50.0)
        );
    }
    Ok(())
}
