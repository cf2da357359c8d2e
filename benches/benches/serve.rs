//! `mindex serve` under load: 50 concurrent MCP clients over Streamable HTTP on loopback, each
//! its own keep-alive connection and session, calling `search` (and every 10th call `remember`
//! with a lesson of its own) for a bounded time: first back to back (closed loop, no think time:
//! the server's throughput, and latency at saturation), then paced, each client one call per
//! `MINDEX_BENCH_PACE_MS` (500) on a fixed schedule (latency at a load below saturation, counted
//! from each call's scheduled time). Reports p50/p99 per tool, errors of any kind
//! (HTTP status, JSON-RPC error, tool error, server busy) and lessons lost (written by a client,
//! answered as stored, yet not on disk exactly once afterwards). The baseline in the same run is
//! one client alone on the same server (no contention).
//!
//! Run with `benches/run-serve.sh` (or build `mindex-cli` in release and `cargo bench -p
//! mindex-benches --bench serve`). Environment: `MINDEX_BENCH_NOTES` (default 10000),
//! `MINDEX_BENCH_CLIENTS` (50), `MINDEX_BENCH_SECONDS` (20, each phase),
//! `MINDEX_BENCH_PACE_MS` (500), `MINDEX_BENCH_WRITE_EVERY` (10: every 10th call is a
//! `remember`; 0: searches only).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use mindex::{NoProgress, Vault, VaultOptions};
use mindex_benches::{Rng, generate_vault, mindex_bin, percentile};
use serde_json::{Value, json};

/// One keep-alive HTTP/1.1 connection speaking MCP to `mindex serve`.
struct Client {
    stream: BufReader<TcpStream>,
    port: u16,
    token: String,
    session: Option<String>,
}

impl Client {
    fn connect(port: u16, token: &str) -> anyhow::Result<Client> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        let mut c = Client {
            stream: BufReader::new(s),
            port,
            token: token.to_string(),
            session: None,
        };
        let (status, session, body) = c.post(&json!({"jsonrpc": "2.0", "id": 1,
            "method": "initialize", "params": {"protocolVersion": "2025-06-18",
            "capabilities": {}, "clientInfo": {"name": "load", "version": "1"}}}))?;
        if status != 200 {
            bail!("initialize: HTTP {status}: {body}");
        }
        c.session = Some(session.context("no Mcp-Session-Id")?);
        let (status, _, _) =
            c.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        if status != 202 {
            bail!("initialized: HTTP {status}");
        }
        Ok(c)
    }

    /// Sends one message; returns the status, the session header and the body.
    fn post(&mut self, msg: &Value) -> anyhow::Result<(u16, Option<String>, String)> {
        let body = msg.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {}\r\n",
            self.port,
            self.token,
            body.len()
        );
        if let Some(s) = &self.session {
            head.push_str(&format!("Mcp-Session-Id: {s}\r\n"));
        }
        head.push_str("\r\n");
        let w = self.stream.get_mut();
        w.write_all(head.as_bytes())?;
        w.write_all(body.as_bytes())?;
        w.flush()?;
        let mut line = String::new();
        self.stream.read_line(&mut line)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .with_context(|| format!("bad status line {line:?}"))?;
        let mut length = 0usize;
        let mut session = None;
        loop {
            line.clear();
            if self.stream.read_line(&mut line)? == 0 {
                bail!("connection closed");
            }
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                let k = k.trim().to_ascii_lowercase();
                if k == "content-length" {
                    length = v.trim().parse()?;
                } else if k == "mcp-session-id" {
                    session = Some(v.trim().to_string());
                }
            }
        }
        let mut buf = vec![0u8; length];
        self.stream.read_exact(&mut buf)?;
        Ok((status, session, String::from_utf8_lossy(&buf).into_owned()))
    }

    /// Calls a tool; `Ok(true)` when it answered a result that is no error.
    fn call(&mut self, id: u64, tool: &str, args: Value) -> anyhow::Result<bool> {
        let (status, _, body) = self.post(&json!({"jsonrpc": "2.0", "id": id,
            "method": "tools/call", "params": {"name": tool, "arguments": args}}))?;
        let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        Ok(status == 200 && v.get("error").is_none() && v["result"]["isError"] != json!(true))
    }
}

#[derive(Default)]
struct Tally {
    search_ms: Vec<f64>,
    remember_ms: Vec<f64>,
    errors: Vec<String>,
    lessons: Vec<String>,
    /// How long opening the session took (initialize, initialized).
    connect_ms: f64,
}

/// One client's calls until `until`: back to back, or with `pace` one call per interval on a
/// fixed schedule (a random phase per client). A paced call's latency counts from its scheduled
/// time, so a server that falls behind is charged for the wait (no coordinated omission).
fn run_client(
    port: u16,
    token: &str,
    n: usize,
    queries: &[String],
    until: Instant,
    pace: Option<Duration>,
) -> Tally {
    let mut t = Tally::default();
    let opening = Instant::now();
    let connected = Client::connect(port, token);
    t.connect_ms = opening.elapsed().as_secs_f64() * 1e3;
    let mut c = match connected {
        Ok(c) => c,
        Err(e) => {
            t.errors.push(format!("client {n}: {e}"));
            return t;
        }
    };
    let mut rng = Rng::new(1000 + n as u64);
    let write_every = mindex_benches::env_usize("MINDEX_BENCH_WRITE_EVERY", 10) as u64;
    let mut i = 0u64;
    let first = Instant::now()
        + pace.map_or(Duration::ZERO, |p| {
            p.mul_f64(rng.below(1000) as f64 / 1000.0)
        });
    while Instant::now() < until {
        let scheduled = match pace {
            Some(p) => first + p * (i as u32),
            None => Instant::now(),
        };
        if scheduled >= until {
            break;
        }
        if let Some(wait) = scheduled.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        i += 1;
        let (tool, args, title) = if write_every > 0 && i.is_multiple_of(write_every) {
            let title = format!("Load lesson {n}-{i}");
            let words: Vec<String> = (0..12).map(|j| format!("w{n}x{i}y{j}")).collect();
            (
                "remember",
                json!({"title": title, "confidence": "inferred",
                       "body": format!("Lesson {n}-{i} from a concurrent client: {}.", words.join(" "))}),
                Some(format!("Lesson {n}-{i} from a concurrent client")),
            )
        } else {
            let q = &queries[rng.below(queries.len())];
            ("search", json!({"query": q, "limit": 5}), None)
        };
        let start = scheduled;
        match c.call(10 + i, tool, args) {
            Ok(true) => {
                let ms = start.elapsed().as_secs_f64() * 1e3;
                if let Some(marker) = title {
                    t.remember_ms.push(ms);
                    t.lessons.push(marker);
                } else {
                    t.search_ms.push(ms);
                }
            }
            Ok(false) => t.errors.push(format!("client {n} {tool}: an error answer")),
            Err(e) => {
                t.errors.push(format!("client {n} {tool}: {e}"));
                return t;
            }
        }
    }
    t
}

fn summary(name: &str, v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "| {name} | {} | {:.2} ms | {:.2} ms | {:.2} ms |",
        v.len(),
        percentile(v, 50.0),
        percentile(v, 99.0),
        v.last().copied().unwrap_or(0.0)
    )
}

fn main() -> anyhow::Result<()> {
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 10_000);
    let clients = mindex_benches::env_usize("MINDEX_BENCH_CLIENTS", 50);
    let seconds = mindex_benches::env_usize("MINDEX_BENCH_SECONDS", 20) as u64;
    let bin = mindex_bin()?;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    let g = generate_vault(&root, notes, 42)?;
    std::fs::write(
        root.join("vault-manifest.json"),
        r#"{"mcp_exposed_roots": ["work", "brain", "org", "reference", "perf"]}"#,
    )?;
    Vault::open(&root, VaultOptions::default())?.update(&NoProgress)?;
    let tokens = dir.path().join("config").join("serve-tokens");
    let out = Command::new(&bin)
        .args(["serve", "--add-token", "atlas", "--tokens"])
        .arg(&tokens)
        .output()?;
    if !out.status.success() {
        bail!("add-token: {}", String::from_utf8_lossy(&out.stderr));
    }
    let token = String::from_utf8(out.stdout)?.trim().to_string();

    let mut child = Command::new(&bin)
        .args(["serve", "--no-vectors", "--bind", "127.0.0.1:0", "--vault"])
        .arg(&root)
        .arg("--tokens")
        .arg(&tokens)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .context("start mindex serve")?;
    let mut err = BufReader::new(child.stderr.take().context("stderr")?);
    let mut first = String::new();
    err.read_line(&mut first)?;
    let port: u16 = first
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .and_then(|p| p.parse().ok())
        .with_context(|| format!("no address in {first:?}"))?;
    let stderr_rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = err.read_to_string(&mut rest);
        rest
    });

    let mut rng = Rng::new(9);
    let queries: Vec<String> = (0..500)
        .map(|_| {
            let a = &g.vocabulary[40 + rng.below(2000)];
            let b = &g.vocabulary[40 + rng.below(2000)];
            format!("{a} {b}")
        })
        .collect();

    // Baseline: one client alone, a few seconds.
    let alone = run_client(
        port,
        &token,
        999,
        &queries,
        Instant::now() + Duration::from_secs(5),
        None,
    );
    let phase = |pace: Option<Duration>, first_client: usize| -> (Vec<Tally>, f64) {
        let started = Instant::now();
        let until = started + Duration::from_secs(seconds);
        let tallies: Vec<Tally> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..clients)
                .map(|n| {
                    let (q, tk) = (&queries, &token);
                    s.spawn(move || run_client(port, tk, first_client + n, q, until, pace))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        (tallies, started.elapsed().as_secs_f64())
    };
    // Saturated: every client calls back to back (closed loop, no think time).
    let (tallies, wall) = phase(None, 0);
    // Paced: every client calls once every `pace_ms` (an agent between two thoughts).
    let pace_ms = mindex_benches::env_usize("MINDEX_BENCH_PACE_MS", 500) as u64;
    let (paced, paced_wall) = phase(Some(Duration::from_millis(pace_ms)), clients);

    // SIGTERM: a graceful stop exits 0.
    let pid = child.id() as i32;
    let killed = Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status()?;
    let code = child.wait()?;
    let log = stderr_rest.join().unwrap_or_default();

    let mut search: Vec<f64> = tallies.iter().flat_map(|t| t.search_ms.clone()).collect();
    let mut remember: Vec<f64> = tallies.iter().flat_map(|t| t.remember_ms.clone()).collect();
    let mut paced_search: Vec<f64> = paced.iter().flat_map(|t| t.search_ms.clone()).collect();
    let mut paced_remember: Vec<f64> = paced.iter().flat_map(|t| t.remember_ms.clone()).collect();
    let errors: Vec<&String> = tallies
        .iter()
        .chain(&paced)
        .flat_map(|t| &t.errors)
        .collect();
    let lessons: Vec<&String> = tallies
        .iter()
        .chain(&paced)
        .flat_map(|t| &t.lessons)
        .chain(&alone.lessons)
        .collect();
    // Lost: a lesson the server answered as stored whose text is not on disk exactly once.
    let mut texts = Vec::new();
    for e in walk(&root.join("memories")) {
        texts.push(std::fs::read_to_string(e)?);
    }
    let lost = lessons
        .iter()
        .filter(|marker| texts.iter().filter(|t| t.contains(marker.as_str())).count() != 1)
        .count();

    println!(
        "mindex serve, {notes}-note vault, {clients} concurrent clients for {seconds} s on loopback (2-core machine)"
    );
    println!("| calls | n | p50 | p99 | max |");
    println!("|---|---|---|---|---|");
    let mut alone_search = alone.search_ms.clone();
    println!(
        "{}",
        summary("baseline: `search`, one client alone", &mut alone_search)
    );
    println!(
        "{}",
        summary(&format!("`search`, {clients} clients"), &mut search)
    );
    println!(
        "{}",
        summary(&format!("`remember`, {clients} clients"), &mut remember)
    );
    println!(
        "{}",
        summary(
            &format!("`search`, {clients} clients, each one call per {pace_ms} ms"),
            &mut paced_search
        )
    );
    println!(
        "{}",
        summary(
            &format!("`remember`, {clients} clients, each one call per {pace_ms} ms"),
            &mut paced_remember
        )
    );
    println!(
        "throughput {:.0} calls/s back to back, {:.0} calls/s paced; errors {} (+{} alone); \
         lessons answered stored {}, lost {lost}; SIGTERM {} -> exit {:?}",
        (search.len() + remember.len()) as f64 / wall,
        (paced_search.len() + paced_remember.len()) as f64 / paced_wall,
        errors.len(),
        alone.errors.len(),
        lessons.len(),
        if killed.success() { "sent" } else { "failed" },
        code.code()
    );
    // Little's law check: in a closed loop the clients are in calls nearly all the phase.
    let in_calls: f64 = search.iter().chain(&remember).sum::<f64>() / 1e3;
    println!(
        "back to back: the clients were in calls {:.0}% of the phase ({in_calls:.0} of {:.0} client-seconds, wall {wall:.1} s)",
        100.0 * in_calls / (wall * clients as f64),
        wall * clients as f64
    );
    let mut connects: Vec<f64> = tallies.iter().map(|t| t.connect_ms).collect();
    println!(
        "{}",
        summary("back to back: opening a session", &mut connects)
    );
    if std::env::var_os("MINDEX_BENCH_DEBUG").is_some() {
        println!("connects: {connects:?}");
    }
    for e in errors.iter().take(5) {
        println!("  error: {e}");
    }
    if let Some(last) = log.lines().last() {
        println!("server: {last}");
    }
    if !errors.is_empty() || lost > 0 || code.code() != Some(0) {
        bail!("the load test failed: errors, lost lessons or an unclean stop");
    }
    Ok(())
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
    out
}
