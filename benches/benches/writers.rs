//! Many writers, one vault: `remember` latency measured by the clients of six `mindex mcp`
//! servers writing at once (one per consuming repository), against one server writing alone in
//! the same run. Every memory is checked recallable from every server at the end.
//!
//! Run with `benches/run-writers.sh` (or build `mindex-cli` in release and `cargo bench -p
//! mindex-benches --bench writers`). Environment: `MINDEX_BENCH_NOTES` (default 1000 notes beside
//! the template), `MINDEX_BENCH_WRITERS` (default 6), `MINDEX_BENCH_RUNS` (remembers per writer,
//! default 40).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use anyhow::{Context, bail};
use mindex::{NoProgress, Vault, VaultOptions, init::init_vault};
use mindex_benches::{generate_vault, mindex_bin, percentile};
use serde_json::{Value, json};

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: i64,
}

impl Client {
    fn start(bin: &Path, vault: &Path, repo: &Path) -> anyhow::Result<Client> {
        let mut child = Command::new(bin)
            .args(["mcp", "--no-vectors", "--vault"])
            .arg(vault)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().context("stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("stdout")?);
        let mut c = Client {
            child,
            stdin,
            stdout,
            next: 1,
        };
        c.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {"roots": {}},
                       "clientInfo": {"name": "bench", "version": "1"}}}))?;
        c.recv()?;
        c.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        let roots = c.recv()?;
        c.send(json!({"jsonrpc": "2.0", "id": roots["id"],
            "result": {"roots": [{"uri": format!("file://{}", repo.display())}]}}))?;
        Ok(c)
    }
    fn send(&mut self, v: Value) -> anyhow::Result<()> {
        writeln!(self.stdin, "{v}")?;
        self.stdin.flush()?;
        Ok(())
    }
    fn recv(&mut self) -> anyhow::Result<Value> {
        let mut line = String::new();
        if self.stdout.read_line(&mut line)? == 0 {
            bail!("server closed");
        }
        Ok(serde_json::from_str(&line)?)
    }
    fn call(&mut self, name: &str, args: Value) -> anyhow::Result<Value> {
        let id = self.next;
        self.next += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": args}}))?;
        loop {
            let m = self.recv()?;
            if m["id"] == json!(id) {
                if m.get("error").is_some() || m["result"]["isError"] == json!(true) {
                    bail!("{name} failed: {m}");
                }
                return Ok(m["result"].clone());
            }
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn body(tag: &str, p: usize, i: usize) -> String {
    const SYL: &[&str] = &[
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "da", "fi", "gu", "he",
        "ja", "ko", "le", "mo", "ny",
    ];
    let mut x = (p as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (i as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9)
        ^ tag.len() as u64;
    let words: Vec<String> = (0..16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!(
                "{}{}{}",
                SYL[(x % 20) as usize],
                SYL[(x / 20 % 20) as usize],
                SYL[(x / 400 % 20) as usize]
            )
        })
        .collect();
    format!("Token {tag}w{p}x{i}q: {}.", words.join(" "))
}

/// `writers` servers each remembering `runs` times at once; returns sorted latencies (ms).
fn round(
    bin: &Path,
    vault: &Path,
    tmp: &Path,
    tag: &str,
    writers: usize,
    runs: usize,
) -> anyhow::Result<Vec<f64>> {
    let start = Arc::new(Barrier::new(writers));
    let mut handles = Vec::new();
    for p in 0..writers {
        let repo = tmp.join(format!("{tag}repo{p}"));
        std::fs::create_dir_all(&repo)?;
        let (bin, vault, tag, start) = (
            bin.to_path_buf(),
            vault.to_path_buf(),
            tag.to_string(),
            start.clone(),
        );
        handles.push(std::thread::spawn(move || -> anyhow::Result<Vec<f64>> {
            let mut c = Client::start(&bin, &vault, &repo)?;
            c.call("health", json!({}))?; // identity settled before timing
            start.wait();
            let mut times = Vec::new();
            for i in 0..runs {
                let t = Instant::now();
                let r = c.call(
                    "remember",
                    json!({"title": format!("{tag} writer {p} lesson {i}"), "body": body(&tag, p, i),
                           "confidence": "verified", "verification": "bench", "scope": "general",
                           "generality": "a benchmark fact that holds in every repository"}),
                )?;
                times.push(t.elapsed().as_secs_f64() * 1000.0);
                let text = r["content"][0]["text"].as_str().unwrap_or_default();
                if !text.starts_with("Recorded:") {
                    bail!("not recorded: {text}");
                }
            }
            Ok(times)
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(
            h.join()
                .map_err(|_| anyhow::anyhow!("writer thread panicked"))??,
        );
    }
    all.sort_by(f64::total_cmp);
    Ok(all)
}

fn main() -> anyhow::Result<()> {
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 1000);
    let writers = mindex_benches::env_usize("MINDEX_BENCH_WRITERS", 6);
    let runs = mindex_benches::env_usize("MINDEX_BENCH_RUNS", 40);
    let bin = mindex_bin()?;
    let dir = tempfile::tempdir()?;
    let vault = dir.path().join("vault");
    init_vault(&vault, &mindex::init::InitOptions::with_samples())?;
    generate_vault(&vault.join("reference").join("generated"), notes, 3)?;
    Vault::open(&vault, VaultOptions::default())?.update(&NoProgress)?;

    let alone = round(&bin, &vault, dir.path(), "solo", 1, runs)?;
    let many = round(&bin, &vault, dir.path(), "many", writers, runs)?;

    // Every memory is recalled by a fresh server.
    let repo = dir.path().join("checker");
    std::fs::create_dir_all(&repo)?;
    let mut c = Client::start(&bin, &vault, &repo)?;
    let r = c.call("recall", json!({"limit": 100000}))?;
    let n = r["structuredContent"]["memories"]
        .as_array()
        .map_or(0, Vec::len);
    let expected = runs * (writers + 1);
    println!(
        "\n`remember` through `mindex mcp`, {notes} generated notes + the sample vault, measured by each client\n"
    );
    println!("| writers at once | remembers | p50 | p95 | p99 | max |");
    println!("|---|---|---|---|---|---|");
    for (label, t) in [("1 (baseline)", &alone), (&*format!("{writers}"), &many)] {
        println!(
            "| {label} | {} | {:.1} ms | {:.1} ms | {:.1} ms | {:.1} ms |",
            t.len(),
            percentile(t, 50.0),
            percentile(t, 95.0),
            percentile(t, 99.0),
            t[t.len() - 1]
        );
    }
    println!(
        "\nrecalled afterwards by another server: {n} of {expected} memories ({}); p99 with {writers} writers {:.1} ms (target < 250 ms: {})",
        if n == expected {
            "none lost"
        } else {
            "LOST SOME"
        },
        percentile(&many, 99.0),
        if percentile(&many, 99.0) < 250.0 {
            "met"
        } else {
            "MISSED"
        }
    );
    if n != expected {
        bail!("lost memories");
    }
    Ok(())
}
