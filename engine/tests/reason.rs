//! `reason` against real processes: stand-in agent CLIs written by the test, run by the engine.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mindex::{Caller, NoProgress, ReasonOptions, Vault, VaultOptions, init_vault};

fn vault() -> (tempfile::TempDir, Vault) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("vault");
    init_vault(&root, false).unwrap();
    let v = Vault::open(&root, VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    (d, v)
}

/// Writes an executable shell script that records its argv and cwd, then runs `body`.
fn stand_in(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    let script = format!(
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"{log}.argv\"\npwd > \"{log}.cwd\"\n{body}\n",
        log = dir.join(name).display()
    );
    fs::write(&p, script).unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    p
}

fn argv(script: &Path) -> Vec<String> {
    let raw = fs::read(format!("{}.argv", script.display())).unwrap();
    raw.split(|b| *b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

fn opts(cmd: &Path, timeout_s: u64) -> ReasonOptions {
    ReasonOptions {
        command: Some(cmd.to_path_buf()),
        timeout: Some(Duration::from_secs(timeout_s)),
    }
}

const SUCCESS: &str = r#"cat <<'EOF'
{"type":"result","subtype":"success","is_error":false,"result":"The ledger moved to Postgres for multi-row transactions [vault: brain/Key Decisions.md].","num_turns":2,"total_cost_usd":0.0123,"modelUsage":{"claude-test-1":{"inputTokens":10}},"terminal_reason":"completed"}
EOF"#;

#[test]
fn a_successful_session_answers_with_its_footer_and_a_record() {
    let (d, v) = vault();
    let cmd = stand_in(d.path(), "agent-ok", SUCCESS);
    let who = Caller::named("atlas").unwrap();
    let r = v
        .reason(
            &who,
            "Why did payments move to the new ledger?",
            None,
            &opts(&cmd, 60),
        )
        .unwrap();
    assert!(r.ok, "{}", r.text);
    assert!(
        r.text.starts_with("The ledger moved to Postgres"),
        "{}",
        r.text
    );
    assert!(
        r.text
            .contains("---\nReasoned over the vault in 2 turn(s), "),
        "{}",
        r.text
    );
    assert!(r.text.contains("Reported cost $0.0123."));
    assert!(
        r.text.contains("Model: claude-test-1 (your CLI default"),
        "{}",
        r.text
    );
    let record = r.record.clone().unwrap();
    assert!(r.text.contains(&format!("Full record: {record}")));
    let rec = fs::read_to_string(v.root().join(&record)).unwrap();
    assert!(
        rec.contains("source: mcp-reason") && rec.contains("confidence: inferred"),
        "{rec}"
    );
    assert!(!r.evidence.is_empty(), "the seed search found evidence");

    let args = argv(&cmd);
    assert_eq!(args[0], "-p");
    let prompt = &args[1];
    assert!(prompt.starts_with("Why did payments move to the new ledger?"));
    assert!(prompt.contains("Read ONLY within these folders") && prompt.contains("`brain/`"));
    assert!(prompt.contains("Never read `memories/`"), "{prompt}");
    assert!(prompt.contains("<evidence>") && prompt.contains("</evidence>"));
    assert!(prompt.contains("[inferred]"), "the epistemic markers rule");
    for flag in [
        "--output-format",
        "--strict-mcp-config",
        "--mcp-config",
        "--tools",
    ] {
        assert!(args.iter().any(|a| a == flag), "{flag}: {args:?}");
    }
    assert!(!args.iter().any(|a| a.starts_with("--permission-mode")));
    assert!(
        !args.iter().any(|a| a == "--model"),
        "no pin: the CLI default"
    );
    let i = args.iter().position(|a| a == "--tools").unwrap();
    assert_eq!(args[i + 1], "Read,Grep,Glob");
    let i = args.iter().position(|a| a == "--mcp-config").unwrap();
    let cfg: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&args[i + 1]).unwrap()).unwrap();
    assert_eq!(cfg, serde_json::json!({"mcpServers": {}}));
    let cwd = fs::read_to_string(format!("{}.cwd", cmd.display())).unwrap();
    assert_eq!(Path::new(cwd.trim()), fs::canonicalize(v.root()).unwrap());

    let audit = fs::read_to_string(v.index_dir().join("audit.jsonl")).unwrap();
    let line = audit.lines().find(|l| l.contains("\"reason\"")).unwrap();
    let e: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(e["turns"], 2);
    assert_eq!(e["model_used"], "claude-test-1");
    assert_eq!(e["caller"], "atlas");
}

#[test]
fn a_pinned_model_is_passed_and_a_different_one_is_called_out() {
    let (d, v) = vault();
    let manifest = v.root().join("vault-manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&manifest).unwrap()).unwrap();
    m["reason"] = serde_json::json!({"model": "claude-pinned-9"});
    fs::write(&manifest, m.to_string()).unwrap();
    let v = Vault::open(v.root(), VaultOptions::default()).unwrap();
    let cmd = stand_in(d.path(), "agent-pin", SUCCESS);
    let r = v
        .reason(
            &Caller::named("atlas").unwrap(),
            "ledger?",
            None,
            &opts(&cmd, 60),
        )
        .unwrap();
    let args = argv(&cmd);
    let i = args.iter().position(|a| a == "--model").unwrap();
    assert_eq!(args[i + 1], "claude-pinned-9");
    assert!(
        r.text
            .contains("⚠ Model: claude-test-1 — NOT the pinned claude-pinned-9"),
        "{}",
        r.text
    );

    m["reason"] = serde_json::json!({"model": "sonnet"});
    fs::write(&manifest, m.to_string()).unwrap();
    let v = Vault::open(v.root(), VaultOptions::default()).unwrap();
    v.reason(
        &Caller::named("atlas").unwrap(),
        "ledger?",
        None,
        &opts(&cmd, 60),
    )
    .unwrap();
    assert!(
        !argv(&cmd).iter().any(|a| a == "--model"),
        "an alias means the CLI default"
    );
}

#[test]
fn a_timeout_kills_the_session_and_its_children_and_returns_nothing_partial() {
    let (d, v) = vault();
    let pid_file = d.path().join("grandchild.pid");
    let cmd = stand_in(
        d.path(),
        "agent-slow",
        &format!(
            "sleep 60 &\necho $! > \"{}\"\necho '{{\"result\":\"partial\"' \nwait",
            pid_file.display()
        ),
    );
    let r = v
        .reason(
            &Caller::named("atlas").unwrap(),
            "ledger?",
            None,
            &opts(&cmd, 1),
        )
        .unwrap();
    assert!(!r.ok);
    assert_eq!(r.terminal, "timeout");
    assert!(
        r.text
            .starts_with("Not run: no answer — it ended early (timeout) after 0 turn(s)."),
        "{}",
        r.text
    );
    assert!(!r.text.contains("partial"));
    assert!(
        r.text.contains("Seed evidence:"),
        "the seed is returned instead: {}",
        r.text
    );
    assert!(r.record.is_none());
    let pid: i32 = fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The whole process group was killed: the grandchild is gone (or a zombie being reaped).
    let gone = || {
        let status = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        status.is_empty() || status.contains(") Z ")
    };
    // SIGKILL is delivered at once but the exit is asynchronous: give the kernel a moment.
    for _ in 0..200 {
        if gone() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(gone(), "grandchild {pid} still runs");
}

#[test]
fn early_ends_spawn_errors_and_garbage_are_refused_by_name() {
    let (d, v) = vault();
    let who = Caller::named("atlas").unwrap();
    let early = stand_in(
        d.path(),
        "agent-early",
        r#"echo '{"is_error":true,"result":"","num_turns":1,"terminal_reason":"max_turns"}'"#,
    );
    let r = v.reason(&who, "ledger?", None, &opts(&early, 60)).unwrap();
    assert!(!r.ok);
    assert!(
        r.text
            .starts_with("Not run: no answer — it ended early (max_turns) after 1 turn(s)."),
        "{}",
        r.text
    );
    assert!(
        !v.root().join("thinking/reasoning").exists(),
        "nothing recorded"
    );

    let r = v
        .reason(
            &who,
            "ledger?",
            None,
            &opts(Path::new("/nonexistent/agent"), 60),
        )
        .unwrap();
    assert_eq!(r.terminal, "spawn_error");
    assert!(
        r.text
            .starts_with("Not run: the reasoning session could not start"),
        "{}",
        r.text
    );
    assert!(r.text.contains("MINDEX_REASON_BIN"));

    let garbage = stand_in(
        d.path(),
        "agent-garbage",
        "echo 'model overloaded' >&2\necho 'not json'",
    );
    let r = v
        .reason(&who, "ledger?", None, &opts(&garbage, 60))
        .unwrap();
    assert_eq!(r.terminal, "unparseable");
    assert!(r.text.contains("model overloaded"), "{}", r.text);

    let r = v.reason(&who, "   ", None, &opts(&early, 60)).unwrap();
    assert!(r.text.starts_with("Not run: no question given."));
}

#[test]
fn a_vault_exposing_nothing_is_refused() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("note.md"), "# A note\n").unwrap();
    // The only declared root is the memory root, which is never exposed: nothing is left.
    fs::write(
        d.path().join("vault-manifest.json"),
        r#"{"mcp_exposed_roots": ["memories"]}"#,
    )
    .unwrap();
    let v = Vault::open(d.path(), VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    let cmd = stand_in(d.path(), "agent", SUCCESS);
    let r = v
        .reason(
            &Caller::named("atlas").unwrap(),
            "anything?",
            None,
            &opts(&cmd, 60),
        )
        .unwrap();
    assert!(!r.ok);
    assert!(r.text.contains("mcp_exposed_roots"), "{}", r.text);
    assert!(
        !Path::new(&format!("{}.argv", cmd.display())).exists(),
        "nothing spawned"
    );
}
