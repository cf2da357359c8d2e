//! `mindex mcp` answering `search` on a 10,000-note vault, measured by the client: a real
//! process on pipes, the MCP handshake (initialize, initialized, roots), then `search` tool calls
//! one after another, each timed from writing the request to reading its response.
//!
//! Run with `benches/run-mcp.sh` (or build `mindex-cli` in release and `cargo bench -p
//! mindex-benches --bench mcp`). Environment: `MINDEX_BENCH_NOTES` (default 10000). The baseline
//! in the same run is `mindex search` as a whole process per query (what a hook or a shell-out
//! pays).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use mindex::{NoProgress, Vault, VaultOptions};
use mindex_benches::{Rng, generate_vault, mindex_bin, percentile};
use serde_json::{Value, json};

fn main() -> anyhow::Result<()> {
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 10_000);
    let bin = mindex_bin()?;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    let g = generate_vault(&root, notes, 42)?;
    // Expose the generated folders (the default roots need the template's layout).
    std::fs::write(
        root.join("vault-manifest.json"),
        r#"{"mcp_exposed_roots": ["work", "brain", "org", "reference", "perf"]}"#,
    )?;
    Vault::open(&root, VaultOptions::default())?.update(&NoProgress)?;
    let repo = dir.path().join("atlas");
    std::fs::create_dir_all(&repo)?;

    let mut child = Command::new(&bin)
        .args(["mcp", "--no-vectors", "--vault"])
        .arg(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("start mindex mcp")?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().context("stdout")?);
    let mut send = |v: Value| -> anyhow::Result<()> {
        writeln!(stdin, "{v}")?;
        stdin.flush()?;
        Ok(())
    };
    let mut recv = || -> anyhow::Result<Value> {
        let mut line = String::new();
        if stdout.read_line(&mut line)? == 0 {
            bail!("the server closed its output");
        }
        Ok(serde_json::from_str(&line)?)
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                   "clientInfo": {"name": "bench", "version": "1"}}}))?;
    recv()?;
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let roots = recv()?;
    send(json!({"jsonrpc": "2.0", "id": roots["id"],
        "result": {"roots": [{"uri": format!("file://{}", repo.display())}]}}))?;
    let mut rng = Rng::new(9);
    let queries: Vec<String> = (0..220)
        .map(|_| {
            let a = &g.vocabulary[40 + rng.below(2000)];
            let b = &g.vocabulary[40 + rng.below(2000)];
            format!("{a} {b}")
        })
        .collect();
    let mut times = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        let t = Instant::now();
        send(
            json!({"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": q, "limit": 5}}}),
        )?;
        let r = loop {
            let m = recv()?;
            if m.get("id") == Some(&json!(100 + i)) {
                break m;
            }
        };
        if r.get("error").is_some() {
            bail!("search failed: {r}");
        }
        if i >= 20 {
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    // The request closure holds stdin; end the server directly.
    let _ = child.kill();
    let _ = child.wait();
    times.sort_by(f64::total_cmp);

    // Baseline: one `mindex search` process per query.
    let mut procs = Vec::new();
    for q in queries.iter().take(40) {
        let t = Instant::now();
        let st = Command::new(&bin)
            .args(["search", "-n", "5", "--vault"])
            .arg(&root)
            .arg(q)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        if !st.success() && st.code() != Some(1) {
            bail!("mindex search failed");
        }
        procs.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    procs.sort_by(f64::total_cmp);
    let p50 = percentile(&times, 50.0);
    println!("\n`mindex mcp` on {notes} notes, measured by the client over pipes\n");
    println!("| call | runs | p50 | p95 | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| `search` tool call (limit 5, exposure-filtered) | {} | {p50:.2} ms | {:.2} ms | < 20 ms ({}) |",
        times.len(),
        percentile(&times, 95.0),
        if p50 < 20.0 { "met" } else { "MISSED" }
    );
    println!(
        "| `mindex search` process per query (baseline) | {} | {:.2} ms | {:.2} ms | — |",
        procs.len(),
        percentile(&procs, 50.0),
        percentile(&procs, 95.0)
    );
    Ok(())
}
