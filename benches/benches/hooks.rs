//! `mindex hook <event>` whole-process wall time, as an agent pays it: spawn, write the agent's
//! JSON payload on stdin, read the answer, wait for exit.
//!
//! Run with `benches/run-hooks.sh` (or build `mindex-cli` in release and `cargo bench -p
//! mindex-benches --bench hooks`). Vaults: the bundled sample vault (`mindex init`), and a
//! generated one of `MINDEX_BENCH_NOTES` notes (default 1000) for scale. Runs per event:
//! `MINDEX_BENCH_RUNS` (default 60). The background refresh is off (`MINDEX_HOOK_NO_REFRESH=1`):
//! it is debounced to once per 30 s and runs detached, so it is not part of an invocation.
//!
//! The payloads carry no `session_id`, so nothing is deduplicated away: every run does the full
//! work and prints its full answer (hints, checklist).
//!
//! Baseline in the same run: a Node.js process that reads the same payload, parses it and prints
//! `{}` — the floor of a hook that starts a Node process per event, as the peer's do (theirs also
//! load their scripts and do the work).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use mindex::{NoProgress, Vault, VaultOptions, init::init_vault};
use mindex_benches::{generate_vault, mindex_bin, percentile};
use serde_json::{Value, json};

fn payloads(vault: &Path, transcript: &Path) -> Vec<(&'static str, Value)> {
    let v = vault.display().to_string();
    vec![
        (
            "session-start",
            json!({"cwd": v, "hook_event_name": "SessionStart", "source": "startup"}),
        ),
        (
            "user-prompt",
            json!({"cwd": v, "hook_event_name": "UserPromptSubmit",
                   "prompt": "We decided to move the ledger to Postgres; Alice told me finance agreed and we shipped the first slice."}),
        ),
        (
            "post-tool",
            json!({"cwd": v, "hook_event_name": "PostToolUse", "tool_name": "Write",
                   "tool_input": {"file_path": format!("{v}/work/active/Payments Migration.md")}}),
        ),
        (
            "pre-compact",
            json!({"cwd": v, "hook_event_name": "PreCompact", "trigger": "auto",
                   "transcript_path": transcript}),
        ),
        (
            "stop",
            json!({"cwd": v, "hook_event_name": "Stop", "stop_hook_active": false}),
        ),
    ]
}

/// Runs `cmd` with `stdin` `runs` times; returns sorted wall times in ms and the last stdout.
fn measure(
    mut make: impl FnMut() -> Command,
    stdin: &[u8],
    runs: usize,
) -> anyhow::Result<(Vec<f64>, Vec<u8>)> {
    let mut times = Vec::with_capacity(runs);
    let mut last = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let mut child = make()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("spawn")?;
        child.stdin.take().context("stdin")?.write_all(stdin)?;
        let out = child.wait_with_output()?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if !out.status.success() {
            bail!("exit {:?}", out.status);
        }
        last = out.stdout;
    }
    times.sort_by(f64::total_cmp);
    Ok((times, last))
}

fn bench_vault(
    label: &str,
    root: &Path,
    runs: usize,
    bin: &Path,
    node: bool,
) -> anyhow::Result<()> {
    let transcript = root.parent().context("parent")?.join("transcript.jsonl");
    std::fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":\"hello\"}\n".repeat(200),
    )?;
    println!("\n{label}");
    println!(
        "{:<14} {:>9} {:>9} {:>9} {:>12}",
        "event", "p50 ms", "p95 ms", "max ms", "output"
    );
    let mut node_p50 = Vec::new();
    let mut ours_p50 = Vec::new();
    for (event, payload) in payloads(root, &transcript) {
        let stdin = payload.to_string();
        let (t, out) = measure(
            || {
                let mut c = Command::new(bin);
                c.args(["hook", event])
                    .env("CLAUDE_PROJECT_DIR", root)
                    .env("MINDEX_HOOK_NO_REFRESH", "1")
                    .env_remove("MINDEX_HOOK_DEBUG");
                c
            },
            stdin.as_bytes(),
            runs,
        )?;
        if event == "session-start" && out.len() >= 10_000 {
            bail!(
                "session-start output {} bytes is over the hook cap",
                out.len()
            );
        }
        println!(
            "{event:<14} {:>9.2} {:>9.2} {:>9.2} {:>10} B",
            percentile(&t, 50.0),
            percentile(&t, 95.0),
            t[t.len() - 1],
            out.len()
        );
        ours_p50.push(percentile(&t, 50.0));
        if node {
            let (n, _) = measure(
                || {
                    let mut c = Command::new("node");
                    c.args([
                        "-e",
                        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{JSON.parse(s);process.stdout.write('{}')})",
                    ]);
                    c
                },
                stdin.as_bytes(),
                runs,
            )?;
            node_p50.push(percentile(&n, 50.0));
        }
    }
    let worst = ours_p50.iter().copied().fold(0.0, f64::max);
    println!("slowest event p50: {worst:.2} ms (target < 30 ms)");
    if node {
        let n = node_p50.iter().sum::<f64>() / node_p50.len() as f64;
        let o = ours_p50.iter().sum::<f64>() / ours_p50.len() as f64;
        println!(
            "baseline: `node -e` reading and parsing the same payload: {n:.2} ms p50 (mean over events); mindex hook {o:.2} ms: {:.1}x faster",
            n / o
        );
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let runs = mindex_benches::env_usize("MINDEX_BENCH_RUNS", 60);
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 1000);
    let bin = mindex_bin()?;
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node {
        println!("node not found: the baseline is skipped");
    }
    let dir = tempfile::tempdir()?;
    let sample = dir.path().join("sample").join("vault");
    init_vault(&sample, &mindex::init::InitOptions::with_samples())?;
    Vault::open(&sample, VaultOptions::default())?.update(&NoProgress)?;
    bench_vault("sample vault (mindex init)", &sample, runs, &bin, node)?;

    let big = dir.path().join("big").join("vault");
    generate_vault(&big, notes, 7)?;
    Vault::open(&big, VaultOptions::default())?.update(&NoProgress)?;
    bench_vault(
        &format!("generated vault, {notes} notes"),
        &big,
        runs,
        &bin,
        false,
    )?;
    Ok(())
}
