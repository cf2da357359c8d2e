//! Whole-process latency of `mindex query` (hybrid) and `mindex vsearch` on a 10,000-note vault,
//! model load included.
//!
//! Embedding the vault's ~63,000 chunks with the real model would take over an hour on 2 cores, so
//! this bench fills the vector store with deterministic pseudo-embeddings (unit vectors derived
//! from each chunk's key) under the real model's id: the query path — model load, query
//! embedding, vector scan, BM25, fusion, hit lookup — is the real one; only the stored vectors'
//! values are synthetic, which does not change the work done. Quality is measured by `mindex eval`.
//!
//! `cargo build --release -p mindex-cli && cargo bench -p mindex-benches --bench query`

use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use mindex::{
    BertEmbedder, Embedder, NoProgress, Vault, VaultOptions, embed::model_dir, vector::VectorWriter,
};
use mindex_benches::{Rng, generate_vault, mindex_bin, percentile};

/// The real model's id over vectors already stored: `embed` finds nothing to embed.
struct Stored {
    id: String,
    dim: usize,
}

impl Embedder for Stored {
    fn model_id(&self) -> &str {
        &self.id
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn embed(&self, texts: &[&str]) -> mindex::Result<Vec<Vec<f32>>> {
        Err(mindex::Error::invalid(
            "embed",
            format!("{} texts without a stored vector", texts.len()),
        ))
    }
}

fn main() -> anyhow::Result<()> {
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 10_000);
    let bin = mindex_bin()?;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    let g = generate_vault(&root, notes, 42)?;
    let vault = Vault::open(&root, VaultOptions::default())?;
    vault.update(&NoProgress)?;
    let embedder = BertEmbedder::load(&model_dir(None))?;
    let chunks = vault.vectors().chunk_texts()?;
    let mut w = VectorWriter::open(&vault.vectors_dir(), embedder.model_id(), embedder.dim())?;
    let mut keys = Vec::with_capacity(chunks.len());
    let mut vecs = Vec::with_capacity(chunks.len());
    for (k, _) in &chunks {
        let mut r = Rng::new(*k);
        let v: Vec<f32> = (0..embedder.dim()).map(|_| r.unit() as f32 - 0.5).collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        keys.push(*k);
        vecs.push(v.into_iter().map(|x| x / n).collect());
    }
    w.append(&keys, &vecs)?;
    drop(w);
    // What `mindex embed` leaves behind: nothing is left to embed, so this builds the graph (from
    // the default threshold on) and records the coverage, as a real run's last step does.
    let t = Instant::now();
    let report = vault.vectors().embed(
        &Stored {
            id: embedder.model_id().to_string(),
            dim: embedder.dim(),
        },
        &NoProgress,
    )?;
    if report.embedded != 0 {
        bail!("{} chunks had no pseudo-embedding", report.embedded);
    }
    let graph = report.graph_built;
    eprintln!(
        "{} vectors; graph: {} ({:.1} s)",
        keys.len(),
        if graph { "built" } else { "none" },
        t.elapsed().as_secs_f64()
    );
    let root_s = root.to_str().context("utf-8")?.to_string();
    let mut qrng = Rng::new(3);
    let queries: Vec<String> = (0..30)
        .map(|_| {
            (0..3)
                .map(|_| g.vocabulary[qrng.below(2000)].clone())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let run = |cmd: &str| -> anyhow::Result<Vec<f64>> {
        // Warm the page cache once.
        Command::new(&bin)
            .args([cmd, "--vault", &root_s, &queries[0]])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        let mut t = Vec::new();
        for q in &queries {
            let start = Instant::now();
            let out = Command::new(&bin)
                .args([cmd, "--vault", &root_s, "-n", "10", q])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .output()?;
            t.push(start.elapsed().as_secs_f64() * 1000.0);
            if !out.status.success() {
                bail!(
                    "mindex {cmd} failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            if cmd == "query" && !out.stderr.is_empty() {
                bail!("query degraded: {}", String::from_utf8_lossy(&out.stderr));
            }
        }
        t.sort_by(f64::total_cmp);
        Ok(t)
    };
    let query = run("query")?;
    let vsearch = run("vsearch")?;
    let search = run("search")?;
    println!(
        "\n### Query latency: {notes} notes, {} chunks with vectors ({}), whole process, model load included\n",
        chunks.len(),
        if graph { "HNSW graph" } else { "exact scan" }
    );
    println!("| command | runs | p50 | p95 |");
    println!("|---|---|---|---|");
    for (name, t) in [
        ("`mindex query` (hybrid: BM25 + vector, RRF)", &query),
        ("`mindex vsearch`", &vsearch),
        ("`mindex search` (BM25, baseline)", &search),
    ] {
        println!(
            "| {name} | {} | {:.1} ms | {:.1} ms |",
            t.len(),
            percentile(t, 50.0),
            percentile(t, 95.0)
        );
    }
    Ok(())
}
