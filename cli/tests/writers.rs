//! Many processes, one vault: six `mindex mcp` servers (one per consuming repository) remember
//! and search at once. Nothing may be lost, every memory must be searchable from its writer as
//! soon as `remember` returns, and every server must recall everyone's memories at the end.

use std::path::Path;
use std::sync::{Arc, Barrier};

use serde_json::json;

#[path = "support/mcp_client.rs"]
#[allow(dead_code, reason = "each test file uses part of the client")]
mod mcp_client;
use mcp_client::Client;

/// A body of 16 pseudo-random made-up words (from 400), so no two lessons are near-duplicates.
fn body(p: usize, i: usize) -> String {
    const SYL: &[&str] = &[
        "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "bo", "da", "fi", "gu", "he",
        "ja", "ko", "le", "mo", "ny",
    ];
    let mut x = (p as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (i as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let mut words = Vec::new();
    for _ in 0..16 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        words.push(format!(
            "{}{}{}",
            SYL[(x % 20) as usize],
            SYL[(x / 20 % 20) as usize],
            SYL[(x / 400 % 20) as usize]
        ));
    }
    format!("Token w{p}x{i}q: {}.", words.join(" "))
}

#[test]
fn six_servers_remember_and_search_concurrently_and_lose_nothing() {
    const PROCS: usize = 6;
    const EACH: usize = 8;
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    mindex::init::init_vault(&vault, &mindex::init::InitOptions::with_samples()).unwrap();
    let v = mindex::Vault::open(&vault, mindex::VaultOptions::default()).unwrap();
    v.update(&mindex::NoProgress).unwrap();

    let start = Arc::new(Barrier::new(PROCS));
    let done = Arc::new(Barrier::new(PROCS));
    let mut handles = Vec::new();
    for p in 0..PROCS {
        let repo = dir.path().join(format!("repo{p}"));
        std::fs::create_dir_all(&repo).unwrap();
        let vault = vault.clone();
        let (start, done) = (start.clone(), done.clone());
        handles.push(std::thread::spawn(move || {
            let mut c = Client::start(&vault, &repo);
            start.wait();
            for i in 0..EACH {
                let title = format!("Writer {p} lesson {i}");
                let (text, _, err) = c.call(
                    "remember",
                    json!({"title": title, "body": body(p, i), "confidence": "verified",
                           "verification": "the concurrency test", "scope": "general",
                           "generality": "it is a test fact that holds in every repository"}),
                );
                assert!(!err && text.starts_with("Recorded:"), "{title}: {text}");
                // Searchable from its writer as soon as remember returns.
                let (text, s, err) =
                    c.call("recall", json!({"query": format!("w{p}x{i}q"), "limit": 3}));
                assert!(!err, "{text}");
                assert_eq!(s["memories"][0]["title"], title, "{text}");
                let (_, _, err) = c.call("search", json!({"query": "connection pool", "limit": 3}));
                assert!(!err);
            }
            done.wait();
            // Every server recalls everyone's memories.
            let (text, s, err) = c.call("recall", json!({"limit": 500}));
            assert!(!err, "{text}");
            let titles: Vec<String> = s["memories"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["title"].as_str().unwrap().to_string())
                .collect();
            for q in 0..PROCS {
                for i in 0..EACH {
                    let t = format!("Writer {q} lesson {i}");
                    assert!(titles.contains(&t), "server {p} misses {t}");
                }
            }
            // And finds them by query through the index.
            let (_, s, _) = c.call(
                "recall",
                json!({"query": format!("w{}x{}q", (p + 1) % PROCS, EACH - 1), "limit": 1}),
            );
            assert_eq!(
                s["memories"][0]["title"],
                format!("Writer {} lesson {}", (p + 1) % PROCS, EACH - 1)
            );
        }));
    }
    for h in handles {
        h.join().expect("a server thread failed");
    }
    let memories = walk_md(&vault.join("memories"));
    assert_eq!(memories, PROCS * EACH, "exactly one file per remember");
    let pending = vault.join(".mindex/pending");
    let left = std::fs::read_dir(&pending).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "every index request was settled");
}

fn walk_md(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            n += walk_md(&p);
        } else if p.extension().is_some_and(|x| x == "md") {
            n += 1;
        }
    }
    n
}

/// `mindex mcp --watch`: a note saved while the server runs is found by its next searches.
#[test]
fn an_mcp_server_with_watch_sees_edits() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    mindex::init::init_vault(&vault, &mindex::init::InitOptions::with_samples()).unwrap();
    let v = mindex::Vault::open(&vault, mindex::VaultOptions::default()).unwrap();
    v.update(&mindex::NoProgress).unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let mut c = Client::start_with(&vault, &repo, &["--watch"]);
    c.call("health", json!({}));
    std::fs::write(
        vault.join("reference/Watched Note.md"),
        "---\ndescription: written while the server runs\ntags: [x]\n---\n# Watched\n\nThe quokkafjord token.\n",
    )
    .unwrap();
    let t = std::time::Instant::now();
    loop {
        let (_, s, err) = c.call("search", json!({"query": "quokkafjord", "limit": 3}));
        assert!(!err);
        if s["results"][0]["path"] == "reference/Watched Note.md" {
            break;
        }
        assert!(
            t.elapsed() < std::time::Duration::from_secs(20),
            "never indexed: {s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
