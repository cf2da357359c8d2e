//! Embedding throughput of mindex's encoder (`MINDEX_PRECISION`: int8 or f32; `MINDEX_INT8_KERNEL`
//! forces int8's kernel) on a file of texts (one JSON string per line), the same file
//! `benches/embed_vs_st.py` feeds sentence-transformers.
//!
//! `cargo bench -p mindex-benches --bench embed -- FILE [BATCH]` prints `texts/s`.

use std::time::Instant;

use anyhow::Context;
use mindex::{BertEmbedder, Embedder, embed::model_dir};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let file = args.first().context("usage: embed FILE")?;
    let texts: Vec<String> = std::fs::read_to_string(file)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let e = BertEmbedder::load(&model_dir(None))?;
    // Warm-up (page in the weights).
    e.embed(&refs[..refs.len().min(16)])?;
    let mut rates = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let v = e.embed(&refs)?;
        rates.push(texts.len() as f64 / t.elapsed().as_secs_f64());
        std::hint::black_box(v);
    }
    rates.sort_by(f64::total_cmp);
    let precision = match e.precision() {
        mindex::Precision::Int8 => format!("int8 ({})", mindex::embed::int8_kernel()?),
        p => p.to_string(),
    };
    println!(
        "mindex {precision}: {} texts, best of 3: {:.1} texts/s (median {:.1})",
        texts.len(),
        rates[2],
        rates[1]
    );
    Ok(())
}
