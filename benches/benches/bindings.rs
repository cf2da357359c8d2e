//! Per-call overhead of the C and Python layers over the Rust call, for a search returning
//! 10 hits, all three measured in one run on the same vault (short notes, so the search is
//! cheap and the layers' own cost is not lost in its noise).
//!
//! Run with `benches/run-bindings.sh` (it builds `libmindex.so` and the wheel first). Each
//! layer runs `BLOCKS` blocks of `CALLS` searches after a warm-up block; the figure is the
//! median over blocks of the mean time per call. Rust: `Vault::search` (returning `Vec<Hit>`).
//! C: `mindex_vault_search` + `mindex_results_get` for every hit + `mindex_results_free`.
//! Python: `Vault.search` returning typed `Hit` objects, each `path` read; and the same
//! searches run inside one binding call, to separate the interpreter from the engine.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, bail};
use mindex::{NoProgress, SearchOptions, Vault, VaultOptions};

const BLOCKS: usize = 11;
/// Rust, C and Python take turns this many times; overheads are per-round differences.
const ROUNDS: usize = 7;
const CALLS: usize = 300;
const LIMIT: usize = 10;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn target_dir() -> PathBuf {
    // target/release/deps/bindings-<hash> → target/release
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    // Small notes, so the search itself is cheap and the layers' own cost stands out of the
    // noise: 200 notes, 40 of them about checkout latency.
    std::fs::create_dir_all(root.join("work"))?;
    std::fs::write(root.join("vault-manifest.json"), "{}")?;
    for i in 0..200 {
        let topic = if i % 5 == 0 {
            "checkout latency"
        } else {
            "quarterly planning"
        };
        std::fs::write(
            root.join(format!("work/Note {i}.md")),
            format!(
                "# Note {i}\n\nA short note about {topic}, number {i}, with a follow-up owner.\n"
            ),
        )?;
    }
    Vault::open(&root, VaultOptions::default())?.update(&NoProgress)?;
    let query = "checkout latency";
    let vault = Vault::open(&root, VaultOptions::default())?;
    let opts = SearchOptions {
        limit: LIMIT,
        all_chunks: false,
    };
    let n = vault.search(query, &opts)?.len();
    if n != LIMIT {
        bail!("the bench query returns {n} hits, not {LIMIT}");
    }
    let rust_block = || -> anyhow::Result<f64> {
        let mut per = Vec::new();
        for b in 0..=BLOCKS {
            let t = Instant::now();
            for _ in 0..CALLS {
                std::hint::black_box(vault.search(query, &opts)?);
            }
            if b > 0 {
                per.push(t.elapsed().as_secs_f64() * 1e6 / CALLS as f64);
            }
        }
        Ok(median(per))
    };

    // C.
    let lib = target_dir();
    if !lib.join("libmindex.so").exists() {
        bail!(
            "{} has no libmindex.so: run `cargo build --release -p mindex-ffi` (benches/run-bindings.sh does)",
            lib.display()
        );
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.path().join("search_bench");
    let status = Command::new("cc")
        .args(["-O2", "-std=c99"])
        .arg("-I")
        .arg(manifest.join("../ffi/include"))
        .arg(manifest.join("c/search_bench.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lmindex")
        .status()
        .context("run cc")?;
    if !status.success() {
        bail!("compiling the C bench failed");
    }
    let run = |cmd: &mut Command, what: &str| -> anyhow::Result<Vec<f64>> {
        cmd.arg(&root)
            .arg(query)
            .arg(LIMIT.to_string())
            .arg(BLOCKS.to_string())
            .arg(CALLS.to_string());
        let out = cmd
            .output()
            .with_context(|| format!("run the {what} bench"))?;
        if !out.status.success() {
            bail!(
                "{what} bench (for Python, set MINDEX_BENCH_PYTHON to a venv with the wheel): {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        String::from_utf8(out.stdout)?
            .split_whitespace()
            .map(|x| x.parse::<f64>().context("bench output"))
            .collect()
    };
    let python = std::env::var("MINDEX_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    let (mut rs, mut cs, mut ps, mut pis) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut c_layer, mut p_layer) = (Vec::new(), Vec::new());
    let (mut c_over, mut p_over) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let r = rust_block()?;
        let cv = run(&mut Command::new(&exe), "C")?;
        let c = cv[0];
        c_layer.push(cv[1]);
        let p = run(
            Command::new(&python).arg(manifest.join("bindings.py")),
            "Python",
        )?;
        p_layer.push(p[2]);
        let r2 = rust_block()?;
        let base = (r + r2) / 2.0;
        rs.push(base);
        cs.push(c);
        ps.push(p[0]);
        pis.push(p[1]);
        c_over.push(c - base);
        p_over.push(p[0] - base);
    }
    let (rust, c_us, py_us, py_inner) = (median(rs), median(cs), median(ps), median(pis));
    let spread = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        format!("{:+.1} … {:+.1}", v[0], v[v.len() - 1])
    };
    let (c_range, p_range) = (spread(&c_over), spread(&p_over));
    let (c_over, p_over) = (median(c_over), median(p_over));
    let (c_layer, p_layer) = (median(c_layer), median(p_layer));

    println!(
        "\nSearch returning {LIMIT} hits (short notes, 200-note vault); {ROUNDS} rounds, each layer the median over {BLOCKS} blocks of {CALLS} calls; overhead = median over rounds of (layer - Rust in the same round)\n"
    );
    println!(
        "| layer | whole call | vs Rust, across processes (range over rounds) | the layer's own cost, in-process | target |"
    );
    println!("|---|---|---|---|---|");
    println!("| Rust `Vault::search` | {rust:.1} µs | — | — | — |");
    let verdict = |o: f64| if o < 10.0 { "met" } else { "MISSED" };
    println!(
        "| C `mindex_vault_search` + get × 10 + free | {c_us:.1} µs | {c_over:+.1} µs ({c_range}) | {c_layer:.2} µs | < 10 µs ({}) |",
        verdict(c_layer)
    );
    println!(
        "| Python `Vault.search` → 10 `Hit` objects | {py_us:.1} µs | {p_over:+.1} µs ({p_range}) | {p_layer:.2} µs | < 10 µs ({}) |",
        verdict(p_layer)
    );
    println!(
        "| Python, the same searches inside one call | {py_inner:.1} µs | {:+.1} µs | — | — |",
        py_inner - rust
    );
    println!(
        "\nThe in-process column is the layer alone: for C, a call that does no engine work (limit 0)\nplus reading 10 hits; for Python, `Vault.search` minus the same searches run inside one\nbinding call, in interleaved blocks of one process. The cross-process column also carries the\nnoise between processes."
    );
    Ok(())
}
