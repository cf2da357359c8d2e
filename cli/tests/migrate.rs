//! `mindex init --merge` on a recorded obsidian-mind vault (tests/data/obsidian-mind-vault): the
//! agent configs are migrated to mindex with backups, nothing of the user's is lost, no sample
//! note appears, and the hooks as written into the configs then work on the recorded payloads.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

#[path = "support/run.rs"]
mod run;
use run::mindex;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/obsidian-mind-vault")
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// Every file under `root`, vault-relative, with its bytes.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let rel = e
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Every hook command of a hooks config, by event.
fn commands(config: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, groups) in config["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                out.push((event.clone(), h["command"].as_str().unwrap().to_string()));
            }
        }
    }
    out
}

/// Runs a hook command exactly as the agent would: through the shell, in the vault, with the
/// agent's project variable, the recorded payload on stdin.
fn run_hook(command: &str, vault: &Path, var: &str, payload: &Value) -> String {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(vault)
        .env_remove("MINDEX_VAULT")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("CODEX_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env(var, vault)
        .env("MINDEX_HOOK_NO_REFRESH", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{command}");
    assert!(
        out.stderr.is_empty(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn an_obsidian_mind_vault_migrates_and_then_works() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    copy_dir(&data(), &vault);
    let before = files(&vault);
    let vs = vault.to_str().unwrap();

    let out = mindex(&["init", "--merge", vs]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    for said in [
        "changed .claude/settings.json (original kept as .claude/settings.json.pre-mindex)",
        "changed .mcp.json",
        "changed .codex/hooks.json",
        "changed .gemini/settings.json",
        "removed SessionStart hook `node",
        "obsidian-mind's Node hook",
        "removed MCP server `qmd`",
        "+ added Stop hook",
        "kept vault-manifest.json",
        "kept AGENTS.md",
        "kept .claude/scripts/",
    ] {
        assert!(text.contains(said), "{said:?} missing from:\n{text}");
    }

    // Nothing of the user's is lost: every original file is byte for byte there, or backed up.
    let migrated = [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".gemini/settings.json",
        ".mcp.json",
    ];
    for (rel, bytes) in &before {
        let kept_at = if migrated.contains(&rel.as_str()) {
            vault.join(format!("{rel}.pre-mindex"))
        } else {
            vault.join(rel)
        };
        assert_eq!(&fs::read(&kept_at).unwrap(), bytes, "{rel}");
    }

    // The configs call mindex and keep the user's own entries.
    let claude = json(&vault.join(".claude/settings.json"));
    assert_eq!(claude["permissions"]["allow"][0], "Bash(git log:*)");
    let hooks = commands(&claude);
    assert!(
        hooks.iter().all(|(_, c)| !c.contains(".claude/scripts/")),
        "{hooks:?}"
    );
    assert!(
        hooks
            .iter()
            .any(|(e, c)| e == "PostToolUse" && c == "~/bin/notify-on-write.sh")
    );
    for (event, name) in [
        ("SessionStart", "session-start"),
        ("UserPromptSubmit", "user-prompt"),
        ("PostToolUse", "post-tool"),
        ("PreCompact", "pre-compact"),
        ("Stop", "stop"),
    ] {
        let n = hooks
            .iter()
            .filter(|(e, c)| e == event && c.ends_with(&format!("hook {name}")))
            .count();
        assert_eq!(n, 1, "{event}: {hooks:?}");
    }
    let mcp = json(&vault.join(".mcp.json"));
    assert!(mcp["mcpServers"]["qmd"].is_null());
    assert_eq!(
        mcp["mcpServers"]["linear"]["env"]["LINEAR_API_KEY"],
        "${LINEAR_API_KEY}"
    );
    assert_eq!(mcp["mcpServers"]["mindex"]["args"][0], "mcp");
    let gemini = json(&vault.join(".gemini/settings.json"));
    assert_eq!(gemini["theme"], "GitHub");
    assert!(gemini["mcpServers"]["qmd"].is_null() && gemini["mcpServers"]["mindex"].is_object());
    assert!(commands(&gemini).iter().all(|(_, c)| c.contains("mindex")));
    // The binary is not on a standard PATH here: the configs name it absolutely.
    let bin = fs::canonicalize(env!("CARGO_BIN_EXE_mindex")).unwrap();
    assert_eq!(
        mcp["mcpServers"]["mindex"]["command"],
        bin.to_str().unwrap()
    );
    assert!(
        fs::read_to_string(vault.join(".codex/config.toml"))
            .unwrap()
            .contains(bin.to_str().unwrap())
    );

    // No sample note: the user's people are the only people.
    let people: Vec<String> = fs::read_dir(vault.join("org/people"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(people, ["Dana Ruiz.md"]);
    for (rel, bytes) in files(&vault) {
        let t = String::from_utf8_lossy(&bytes);
        assert!(
            !t.contains("Alice Chen") && !t.contains("Checkout outage"),
            "{rel}"
        );
    }

    // A second migration changes nothing.
    let again = mindex(&["init", "--merge", "--json", vs]);
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["changed"], serde_json::json!([]), "{again}");

    // The vault then works: the user's real incident answers the user's question.
    assert!(mindex(&["update", "--vault", vs, "-q"]).status.success());
    let s = mindex(&[
        "search",
        "--vault",
        vs,
        "--json",
        "how did we fix the outage",
    ]);
    let s: Value = serde_json::from_slice(&s.stdout).unwrap();
    let first = s["results"][0]["path"].as_str().unwrap_or("");
    assert_eq!(first, "work/incidents/2026-09-02 Login outage.md", "{s}");

    // The user's manifest keeps work/meetings/ from agents: health says so, naming it (finding 3).
    let h = mindex(&[
        "health",
        "--vault",
        vs,
        "--json",
        "--caller",
        "identity-api",
    ]);
    let h: Value = serde_json::from_slice(&h.stdout).unwrap();
    let warnings = h["warnings"].to_string();
    assert!(
        warnings.contains("work/meetings/ (1)") && warnings.contains("user_content_roots"),
        "{warnings}"
    );
    // expand of a note the owner can read but agents cannot says so (get works).
    assert!(mindex(&["get", "--vault", vs, "Home"]).status.success());
    let e = mindex(&["expand", "--vault", vs, "Home"]);
    let err = String::from_utf8_lossy(&e.stderr);
    assert!(
        !e.status.success()
            && err.contains("Home.md is in the vault but outside the folders exposed to agents"),
        "{err}"
    );

    // The hooks, run as each agent's migrated config writes them, on the recorded payloads.
    let transcript = dir.path().join("t.jsonl");
    fs::write(&transcript, "{}\n").unwrap();
    let payloads: Value = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks/payloads.json"),
        )
        .unwrap()
        .replace("@VAULT@", vs)
        .replace("@TRANSCRIPT@", transcript.to_str().unwrap()),
    )
    .unwrap();
    for (agent, config, var) in [
        ("claude", ".claude/settings.json", "CLAUDE_PROJECT_DIR"),
        ("codex", ".codex/hooks.json", "CODEX_PROJECT_DIR"),
        ("gemini", ".gemini/settings.json", "GEMINI_PROJECT_DIR"),
    ] {
        for (_, command) in commands(&json(&vault.join(config))) {
            let Some(event) = command
                .rsplit(" hook ")
                .next()
                .filter(|_| command.contains(" hook "))
            else {
                continue; // the user's own hook
            };
            let Some(payload) = payloads[agent].get(event) else {
                continue;
            };
            let out = run_hook(&command, &vault, var, payload);
            if event == "session-start" {
                let v: Value =
                    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{agent}: {e}: {out}"));
                let ctx = v["hookSpecificOutput"]["additionalContext"]
                    .as_str()
                    .unwrap_or_default();
                assert!(
                    ctx.contains("Move session storage off the single Redis node"),
                    "{agent}: {ctx}"
                );
                assert!(!ctx.contains("(empty vault)"), "{agent}: {ctx}");
            } else if !out.is_empty() {
                serde_json::from_str::<Value>(&out)
                    .unwrap_or_else(|e| panic!("{agent} {event}: {e}: {out}"));
            }
        }
    }
}
