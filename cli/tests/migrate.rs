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
        "changed AGENTS.md (original kept as AGENTS.md.pre-mindex)",
        "Left on the old system:",
        "  - .claude/scripts/: obsidian-mind's Node hooks",
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
        let backup = vault.join(format!("{rel}.pre-mindex"));
        let kept_at = if migrated.contains(&rel.as_str()) || backup.exists() {
            backup
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

/// The agent-facing files of a vault: what an agent reads as instructions or tools.
fn agent_facing(vault: &Path) -> Vec<(String, String)> {
    files(vault)
        .into_iter()
        .filter(|(rel, _)| {
            !rel.contains(".pre-mindex")
                && (["CLAUDE.md", "AGENTS.md", "GEMINI.md", ".mcp.json"].contains(&rel.as_str())
                    || [
                        ".claude/agents/",
                        ".claude/commands/",
                        ".claude/skills/",
                        ".gemini/",
                        ".codex/",
                    ]
                    .iter()
                    .any(|d| rel.starts_with(d))
                    || rel == ".claude/settings.json")
        })
        .map(|(rel, b)| (rel, String::from_utf8_lossy(&b).into_owned()))
        .collect()
}

fn git(root: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap()
}

/// Runs `bin` (a mindex binary) with `home` as the home folder.
fn run_as(bin: &Path, home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(bin)
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_CACHE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("MINDEX_VAULT")
        .env_remove("MINDEX_INDEX_DIR")
        .output()
        .unwrap()
}

/// A recorded obsidian-mind release (`tests/data/obsidian-mind-<v>`), a git repository in the
/// vault's folder as obsidian-mind vaults are, and a home whose agents' user-level configs
/// register the `om` server (as the release's README tells its users to).
fn release_vault(version: &str, dir: &Path) -> (PathBuf, PathBuf) {
    let vault = dir.join("vault");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/obsidian-mind-{version}")),
        &vault,
    );
    assert!(git(&vault, &["init", "-q"]).status.success());
    assert!(git(&vault, &["add", "-A"]).status.success());
    assert!(git(&vault, &["commit", "-qm", "vault"]).status.success());
    let home = dir.join("home");
    fs::create_dir_all(home.join(".codex")).unwrap();
    fs::create_dir_all(home.join(".cache/qmd")).unwrap();
    let om = serde_json::json!({"type": "stdio", "command": "node",
        "args": [vault.join(".claude/scripts/om-mcp.mjs")]});
    fs::write(
        home.join(".claude.json"),
        serde_json::json!({"numStartups": 7, "mcpServers": {"om": om, "github": {"command": "gh-mcp"}},
            "projects": {"/code/atlas": {"mcpServers": {"om": om}, "allowedTools": []}}})
        .to_string(),
    )
    .unwrap();
    fs::write(
        home.join(".codex/config.toml"),
        format!(
            "model = \"o4\"\n\n[mcp_servers.om]\ncommand = \"node\"\nargs = [\"{}\"]\n",
            vault.join(".claude/scripts/om-mcp.mjs").display()
        ),
    )
    .unwrap();
    // qmd names its index after the manifest's `qmd_index` (v7), else the vault's folder (v8).
    let index = if version == "7.0.1" {
        "obsidian-mind"
    } else {
        "vault"
    };
    fs::write(home.join(format!(".cache/qmd/{index}.sqlite")), "qmd index").unwrap();
    (vault, home)
}

/// Issue 38: after `init --merge` of a real obsidian-mind release (recorded excerpts of v7.0.1
/// and v8.3.5), no agent-facing file calls qmd or the om server, mindex's subagents are in
/// place, the old command names run mindex's, the user's own text is kept byte for byte, the
/// index stays out of git, what is left of the old system is named, the user-level servers
/// are named and then migrated, and the user's notes are found.
#[test]
fn an_obsidian_mind_release_moves_to_mindex_in_one_command() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mindex"));
    let old = regex::Regex::new(r"(?i)qmd|mcp__om__|om-mcp").unwrap();
    for version in ["7.0.1", "8.3.5"] {
        let dir = tempfile::tempdir().unwrap();
        let (vault, home) = release_vault(version, dir.path());
        let vs = vault.to_str().unwrap();
        let claude_before = fs::read_to_string(vault.join("CLAUDE.md")).unwrap();
        let user_section = &claude_before[claude_before.find("## My team conventions").unwrap()..];
        let out = run_as(&bin, &home, &["init", "--merge", "--json", vs]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();

        // Nothing agent-facing is left on qmd or om.
        for (rel, text) in agent_facing(&vault) {
            let hits: Vec<&str> = text.lines().filter(|l| old.is_match(l)).collect();
            assert!(hits.is_empty(), "{version} {rel}: {hits:?}");
        }
        // Every rewritten file was backed up first, byte for byte the original.
        for c in report["changed"].as_array().unwrap() {
            let backup = vault.join(c["backup"].as_str().unwrap());
            assert!(backup.is_file(), "{version}: {c}");
        }
        let claude = fs::read_to_string(vault.join("CLAUDE.md")).unwrap();
        assert_eq!(
            fs::read_to_string(vault.join("CLAUDE.md.pre-mindex")).unwrap(),
            claude_before
        );
        assert!(
            claude.ends_with(user_section),
            "{version}: the user's section: {claude}"
        );
        assert!(claude.contains("mindex"), "{claude}");
        // mindex's own subagent replaced obsidian-mind's unedited one.
        let loader = fs::read_to_string(vault.join(".claude/agents/context-loader.md")).unwrap();
        assert!(loader.contains("mindex get"), "{loader}");
        // One command set: the old names run mindex's commands; an edited one is rewritten.
        let dump = fs::read_to_string(vault.join(".claude/commands/om-dump.md")).unwrap();
        assert!(dump.contains(".claude/commands/dump.md"), "{dump}");
        assert!(vault.join(".claude/commands/dump.md").is_file());
        let meeting = fs::read_to_string(vault.join(".claude/commands/om-meeting.md")).unwrap();
        assert!(
            meeting.contains("Also check #team-meetings in Slack."),
            "{meeting}"
        );
        assert!(meeting.contains("mindex query"), "{meeting}");
        // Gemini's and Codex's commands call the binary by its path (their agents run them with
        // their own PATH, which may lack it); Claude Code's get its folder on PATH at session
        // start.
        let bin_s = fs::canonicalize(&bin)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        for rel in [".gemini/commands/dump.toml", ".codex/prompts/dump.md"] {
            let t = fs::read_to_string(vault.join(rel)).unwrap();
            assert!(t.contains(&format!("`{bin_s} search")), "{rel}: {t}");
        }
        // The qmd skill is gone (backed up); other skills stay.
        assert!(!vault.join(".claude/skills/qmd/SKILL.md").exists());
        assert!(
            vault
                .join(".claude/skills/qmd/SKILL.md.pre-mindex")
                .is_file()
        );
        assert!(
            vault
                .join(".claude/skills/obsidian-markdown/SKILL.md")
                .is_file()
        );
        // The index stays out of git.
        assert!(
            git(&vault, &["check-ignore", "-q", ".mindex/audit.jsonl"])
                .status
                .success(),
            "{version}: {}",
            fs::read_to_string(vault.join(".gitignore")).unwrap()
        );
        // What is left of the old system is named.
        let left = report["left"].to_string();
        for named in [".scripts/qmd-bootstrap.ts", ".claude/scripts/", ".sqlite"] {
            assert!(left.contains(named), "{version}: {named} in {left}");
        }
        // The user-level `om` servers are named with the command that migrates them, untouched.
        let users = report["user_configs"].as_array().unwrap();
        assert_eq!(users.len(), 3, "{version}: {users:?}");
        assert!(
            users.iter().all(|u| u["migrated"] == false
                && u["how"].as_str().unwrap().contains("mindex mcp --vault"))
        );
        assert!(
            fs::read_to_string(home.join(".claude.json"))
                .unwrap()
                .contains("om-mcp.mjs")
        );
        // The text report says all of it.
        let text = run_as(&bin, &home, &["init", "--merge", vs]);
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(
            text.contains("Left on the old system:") && text.contains("--user-configs"),
            "{text}"
        );

        // A second merge changes nothing in the vault.
        let again = run_as(&bin, &home, &["init", "--merge", "--json", vs]);
        let again: Value = serde_json::from_slice(&again.stdout).unwrap();
        assert_eq!(
            again["changed"],
            serde_json::json!([]),
            "{version}: {again}"
        );

        // --user-configs migrates them, with backups, keeping everything else.
        let out = run_as(
            &bin,
            &home,
            &["init", "--merge", "--user-configs", "--json", vs],
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(
            report["user_configs"]
                .as_array()
                .unwrap()
                .iter()
                .all(|u| u["migrated"] == true),
            "{report}"
        );
        let cj: Value =
            serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
        assert!(
            cj["mcpServers"]["om"].is_null() && cj["mcpServers"]["github"].is_object(),
            "{cj}"
        );
        assert_eq!(
            cj["mcpServers"]["mindex"]["args"],
            serde_json::json!(["mcp", "--vault", vs])
        );
        assert_eq!(
            cj["projects"]["/code/atlas"]["mcpServers"]["mindex"]["args"][0],
            "mcp"
        );
        assert_eq!(cj["numStartups"], 7);
        assert!(home.join(".claude.json.pre-mindex").is_file());
        let codex = fs::read_to_string(home.join(".codex/config.toml")).unwrap();
        assert!(
            codex.contains("model = \"o4\"")
                && codex.contains("[mcp_servers.mindex]")
                && !codex.contains("om-mcp"),
            "{codex}"
        );

        // The user's notes are found; the private one is not served to agents.
        assert!(
            run_as(&bin, &home, &["update", "-q", "--vault", vs])
                .status
                .success()
        );
        let s = run_as(
            &bin,
            &home,
            &[
                "search",
                "--json",
                "--vault",
                vs,
                "ledger books each charge once",
            ],
        );
        let s: Value = serde_json::from_slice(&s.stdout).unwrap();
        assert_eq!(
            s["results"][0]["path"], "work/active/Payments Ledger.md",
            "{s}"
        );
    }
}

/// Issue 38, finding 4: a moved binary. The configs name the binary that ran `init`; once it
/// is gone, `health` and `status` name the stale path, and a merge run with the new binary
/// repairs every config that names it.
#[test]
fn a_moved_binary_is_named_by_health_and_repaired_by_a_second_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (vault, home) = release_vault("8.3.5", dir.path());
    let vs = vault.to_str().unwrap();
    let old_bin = dir.path().join("old/target/release/mindex");
    let new_bin = dir.path().join("new/bin/mindex");
    for b in [&old_bin, &new_bin] {
        fs::create_dir_all(b.parent().unwrap()).unwrap();
        fs::copy(env!("CARGO_BIN_EXE_mindex"), b).unwrap();
    }
    assert!(
        run_as(&old_bin, &home, &["init", "--merge", "-q", vs])
            .status
            .success()
    );
    let old_path = fs::canonicalize(&old_bin).unwrap();
    let old_s = old_path.to_str().unwrap().to_string();
    assert!(
        fs::read_to_string(vault.join(".mcp.json"))
            .unwrap()
            .contains(&old_s)
    );
    fs::remove_dir_all(dir.path().join("old")).unwrap();

    let h = run_as(&new_bin, &home, &["health", "--json", "--vault", vs]);
    let h: Value = serde_json::from_slice(&h.stdout).unwrap();
    assert!(h["warnings"].to_string().contains(&old_s), "{h}");
    // The session-start briefing says so too.
    let mut child = Command::new(&new_bin)
        .args(["hook", "session-start"])
        .current_dir(&vault)
        .env("HOME", &home)
        .env_remove("MINDEX_VAULT")
        .env("MINDEX_HOOK_NO_REFRESH", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(b"{}");
    let brief = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        brief.contains("Agent Configs (broken)") && brief.contains(&old_s),
        "{brief}"
    );
    let st = run_as(&new_bin, &home, &["status", "--vault", vs]);
    let st =
        String::from_utf8_lossy(&st.stdout).into_owned() + &String::from_utf8_lossy(&st.stderr);
    assert!(st.contains(&old_s), "{st}");

    let out = run_as(&new_bin, &home, &["init", "--merge", "--json", vs]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let changed: Vec<&str> = report["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    for config in [
        ".claude/settings.json",
        ".mcp.json",
        ".codex/hooks.json",
        ".codex/config.toml",
        ".gemini/settings.json",
    ] {
        assert!(changed.contains(&config), "{config} not repaired: {report}");
        let text = fs::read_to_string(vault.join(config)).unwrap();
        assert!(!text.contains(&old_s), "{config}: {text}");
    }
    let new_s = fs::canonicalize(&new_bin)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        fs::read_to_string(vault.join(".mcp.json"))
            .unwrap()
            .contains(&new_s)
    );
    let h = run_as(&new_bin, &home, &["health", "--json", "--vault", vs]);
    let h: Value = serde_json::from_slice(&h.stdout).unwrap();
    assert!(
        !h["warnings"].to_string().contains("which does not exist"),
        "{h}"
    );
}
