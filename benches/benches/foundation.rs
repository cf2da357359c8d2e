//! Foundation benchmarks: full index build, incremental update, BM25 query latency.
//!
//! Run with `benches/run.sh` (or `cargo build --release -p mindex-cli && cargo bench -p mindex-benches`).
//! Whole-process figures run the release `mindex` binary (found next to this bench, or from
//! `$MINDEX_BIN`); the baseline is `grep -rli WORD` over the same vault, measured in the same run.
//! Environment: `MINDEX_BENCH_NOTES` (default 10000).

use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use mindex::{NoProgress, SearchOptions, Vault, VaultOptions};
use mindex_benches::{Rng, generate_vault, mindex_bin, percentile};

/// Runs a command `n` times and returns sorted wall times in ms.
fn time_runs(n: usize, mut make: impl FnMut(usize) -> Command) -> anyhow::Result<Vec<f64>> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let mut cmd = make(i);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        let t = Instant::now();
        let status = cmd.status()?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if !status.success() && status.code() != Some(1) {
            bail!("{cmd:?} failed: {status}");
        }
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

fn row(name: &str, times: &[f64], target: Option<f64>) -> String {
    let p50 = percentile(times, 50.0);
    let p95 = percentile(times, 95.0);
    let t = target.map_or("—".to_string(), |t| {
        format!("{t} ms ({})", if p50 <= t { "met" } else { "MISSED" })
    });
    format!(
        "| {name} | {} | {p50:.2} ms | {p95:.2} ms | {t} |",
        times.len()
    )
}

fn main() -> anyhow::Result<()> {
    // `cargo bench` passes `--bench`; ignore arguments.
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 10_000);
    let bin = mindex_bin()?;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    let t = Instant::now();
    let g = generate_vault(&root, notes, 42)?;
    eprintln!(
        "generated {} notes, {:.1} MiB in {:.1} s",
        notes,
        g.bytes as f64 / 1048576.0,
        t.elapsed().as_secs_f64()
    );
    let root_s = root.to_str().context("utf-8 path")?.to_string();
    let mut rows = Vec::new();

    // Full build, whole process, 3 runs from scratch (`MINDEX_BENCH_BUILD_RUNS`: fewer at scale).
    let build_runs = mindex_benches::env_usize("MINDEX_BENCH_BUILD_RUNS", 3).max(1);
    let full = time_runs(build_runs, |_| {
        let _ = std::fs::remove_dir_all(root.join(".mindex"));
        let mut c = Command::new(&bin);
        c.args(["update", "-q", "--vault", &root_s]);
        c
    })?;
    rows.push(row(
        &format!("full index build, {notes} notes (`mindex update`, from scratch)"),
        &full,
        Some(10_000.0),
    ));
    let build_rss = children_peak_rss_mib();

    // Settle racily-clean files, then no-op and one-note incremental updates.
    std::thread::sleep(std::time::Duration::from_millis(200));
    Command::new(&bin)
        .args(["update", "-q", "--vault", &root_s])
        .stdout(Stdio::null())
        .status()?;
    let update = || {
        let mut c = Command::new(&bin);
        c.args(["update", "-q", "--vault", &root_s]);
        c
    };
    let noop = time_runs(10, |_| update())?;
    // The floor under any walking update: list every folder and stat every note, nothing else.
    let floor = time_runs(10, |_| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mindex-statfloor"));
        c.arg(&root);
        c
    })?;
    let mut rng = Rng::new(7);
    let edit_targets: Vec<String> = (0..15)
        .map(|_| g.notes[rng.below(g.notes.len())].clone())
        .collect();
    // Appends a line to one of the notes, then updates: `label` tells the edits of runs apart.
    let edit_then_update = |label: &str, i: usize| {
        let p = root.join(&edit_targets[i]);
        let mut text = std::fs::read_to_string(&p).expect("read note");
        text.push_str(&format!("\nEdited {label}, run {i}.\n"));
        std::fs::write(&p, text).expect("write note");
        update()
    };
    let incr = time_runs(15, |i| edit_then_update("in the bench", i))?;
    // Check the claim behind the figure: one edit → exactly one note changed.
    let p = root.join(&edit_targets[0]);
    std::fs::write(&p, std::fs::read_to_string(&p)? + "\nOne more edit.\n")?;
    let out = Command::new(&bin)
        .args(["update", "--json", "--vault", &root_s])
        .output()?;
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let changed = report["changes"]["modified"].as_array().map_or(0, Vec::len);
    if changed != 1 {
        bail!(
            "expected exactly one modified note, got {}",
            report["changes"]
        );
    }
    rows.push(row(
        "incremental update after editing one note (whole process)",
        &incr,
        Some(300.0),
    ));
    rows.push(row("no-op update (whole process)", &noop, Some(150.0)));
    rows.push(row(
        "baseline: list every folder and stat every note (`mindex-statfloor`, whole process)",
        &floor,
        None,
    ));

    // The same two updates while `mindex watch` runs: `update` asks the watcher, which applies
    // the paths its events named, instead of walking the vault.
    let mut watcher = Command::new(&bin)
        .args(["watch", "--json", "--vault", &root_s])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    // Kept open until the watcher stops: it reports every batch on stdout.
    let mut watch_out = std::io::BufReader::new(watcher.stdout.take().context("watch stdout")?);
    let mut first = String::new();
    std::io::BufRead::read_line(&mut watch_out, &mut first)?;
    if !first.contains("\"started\"") {
        bail!("mindex watch did not start: {first}");
    }
    let watched_noop = time_runs(10, |_| update())?;
    let watched_incr = time_runs(15, |i| edit_then_update("while watched", i))?;
    std::fs::write(
        &p,
        std::fs::read_to_string(&p)? + "\nOne more watched edit.\n",
    )?;
    let out = Command::new(&bin)
        .args(["update", "--json", "--vault", &root_s])
        .output()?;
    let _ = watcher.kill();
    let _ = watcher.wait();
    drop(watch_out);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let changed = report["changes"]["modified"].as_array().map_or(0, Vec::len);
    if report["by_watcher"] != true || changed != 1 {
        bail!("expected the watcher to report one modified note, got {report}");
    }
    rows.push(row(
        "incremental update after editing one note, `mindex watch` running (whole process)",
        &watched_incr,
        Some(300.0),
    ));
    rows.push(row(
        "no-op update, `mindex watch` running (whole process)",
        &watched_noop,
        Some(150.0),
    ));

    // Queries: 1-3 words from the mid-frequency vocabulary.
    let mut qrng = Rng::new(11);
    let queries: Vec<String> = (0..200)
        .map(|_| {
            let n = 1 + qrng.below(3);
            (0..n)
                .map(|_| g.vocabulary[qrng.below(2000)].clone())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let search = time_runs(40, |i| {
        let mut c = Command::new(&bin);
        c.args(["search", "--vault", &root_s, "-n", "10", &queries[i]]);
        c
    })?;
    rows.push(row(
        "`mindex search` (whole process, 10 hits)",
        &search,
        Some(30.0),
    ));
    let search_json = time_runs(40, |i| {
        let mut c = Command::new(&bin);
        c.args([
            "search",
            "--json",
            "--vault",
            &root_s,
            "-n",
            "10",
            &queries[i],
        ]);
        c
    })?;
    rows.push(row(
        "`mindex search --json` (whole process, 10 hits)",
        &search_json,
        Some(30.0),
    ));
    let grep = time_runs(40, |i| {
        let word = queries[i].split(' ').next().unwrap_or("x").to_string();
        let mut c = Command::new("grep");
        c.args(["-rli", "--include=*.md", &word, &root_s]);
        c
    })?;
    rows.push(row(
        "baseline: `grep -rli WORD` over the vault (no ranking)",
        &grep,
        None,
    ));

    // In-engine BM25 query (index opened once, snippets included).
    let vault = Vault::open(&root, VaultOptions::default())?;
    vault.update(&NoProgress)?;
    for q in queries.iter().take(20) {
        vault.search(q, &SearchOptions::default())?;
    }
    let mut engine = Vec::new();
    for _ in 0..5 {
        for q in &queries {
            let t = Instant::now();
            let hits = vault.search(q, &SearchOptions::default())?;
            engine.push(t.elapsed().as_secs_f64() * 1000.0);
            std::hint::black_box(hits);
        }
    }
    engine.sort_by(f64::total_cmp);
    rows.push(row(
        "BM25 query inside the engine (`Vault::search`, 10 hits + snippets)",
        &engine,
        Some(1.0),
    ));

    let st = vault.status()?;
    println!(
        "\n### Foundation bench: {notes} notes, {:.1} MiB of markdown, {} chunks, index {:.1} MiB",
        g.bytes as f64 / 1048576.0,
        st.chunks,
        st.index_bytes as f64 / 1048576.0
    );
    println!(
        "\nPeak RSS: {build_rss:.0} MiB (the full build); {:.0} MiB over every process of the run.",
        children_peak_rss_mib()
    );
    println!(
        "\nMachine: {} cores. Binary: {}\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        bin.display()
    );
    println!("| measure | runs | p50 | p95 | target |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        println!("{r}");
    }
    let floor50 = percentile(&floor, 50.0);
    println!(
        "\nWalking updates vs the list-and-stat floor (p50): no-op {:.2}×, one-note {:.2}×.",
        percentile(&noop, 50.0) / floor50,
        percentile(&incr, 50.0) / floor50
    );
    let ratio = percentile(&grep, 50.0) / percentile(&search, 50.0);
    println!(
        "\n`mindex search` p50 vs `grep -rli` p50: {ratio:.1}× faster (ranked, with snippets, vs unranked file list)."
    );
    Ok(())
}

/// The largest resident set of any child process waited for so far, in MiB.
fn children_peak_rss_mib() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) } != 0 {
        return f64::NAN;
    }
    u.ru_maxrss as f64 / 1024.0 // kilobytes on Linux
}
