//! `mindex hook <event>` as the agents run it: a real process, the agent's JSON on stdin.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

use regex::Regex;
use serde_json::Value;

const EVENTS: [&str; 5] = [
    "session-start",
    "user-prompt",
    "post-tool",
    "pre-compact",
    "stop",
];

fn hook_in(vault: &Path, event: &str, stdin: &[u8], env: &[(&str, &str)]) -> Output {
    // The hooks work on a vault only: mark a bare test folder as one (Obsidian's folder).
    if !mindex::vault::is_vault_root(vault) {
        fs::create_dir_all(vault.join(".obsidian")).unwrap();
    }
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mindex"));
    cmd.args(["hook", event])
        .env_remove("MINDEX_VAULT")
        .env_remove("CODEX_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("MINDEX_HOOK_DEBUG")
        .env_remove("HOOK_DEBUG")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env("CLAUDE_PROJECT_DIR", vault)
        .env("MINDEX_HOOK_NO_REFRESH", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("run mindex hook");
    // A hook may answer before reading everything; that is not a failure.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{event}: hooks always exit 0");
    assert!(
        out.stderr.is_empty(),
        "{event}: stderr must stay empty: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn hook(vault: &Path, event: &str, payload: &Value) -> String {
    let out = hook_in(vault, event, payload.to_string().as_bytes(), &[]);
    String::from_utf8(out.stdout).unwrap()
}

/// The `additionalContext` of a hook answer.
fn context(stdout: &str) -> String {
    let v: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Runs `git` in `root` with a throwaway identity; panics when it fails.
fn git_in(root: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "git {args:?}");
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A manifest exposing the folders these tests write notes in (the briefing names only what
/// MCP would serve: nothing outside the exposed roots).
fn expose(root: &Path) {
    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"]}"#,
    );
}

fn age(root: &Path, rel: &str, days: u64) {
    let t = SystemTime::now() - Duration::from_secs(days * 86_400);
    fs::File::options()
        .write(true)
        .open(root.join(rel))
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn template_vault() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("vault");
    mindex::init::init_vault(&v, &mindex::init::InitOptions::with_samples()).unwrap();
    (dir, v)
}

fn payloads(vault: &Path, transcript: &Path) -> Value {
    let text =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks/payloads.json"))
            .unwrap()
            .replace("@VAULT@", vault.to_str().unwrap())
            .replace("@TRANSCRIPT@", transcript.to_str().unwrap());
    serde_json::from_str(&text).unwrap()
}

// ---------------------------------------------------------------------------------------------
// session-start
// ---------------------------------------------------------------------------------------------

#[test]
fn session_start_on_a_minimal_vault_has_every_header_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let out = hook(dir.path(), "session-start", &serde_json::json!({}));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let ctx = context(&out);
    let mut at = 0;
    for h in [
        "## Session Context",
        "### Date",
        "### North Star (current goals)",
        "### Brain Topics (read on demand)",
        "### Recent Changes (last 48h)",
        "### Open Tasks",
        "### Active Work",
        "### Vault File Listing",
    ] {
        let i = ctx[at..]
            .find(h)
            .unwrap_or_else(|| panic!("{h} after {at}: {ctx}"));
        at += i + h.len();
    }
    assert!(ctx.contains("### North Star (current goals)\n(not found)"));
    assert!(ctx.contains("(no open tasks)"));
    let date =
        Regex::new(r"### Date\n\d{4}-\d{2}-\d{2} \((Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\)")
            .unwrap();
    assert!(date.is_match(&ctx), "{ctx}");
}

#[test]
fn open_tasks_brain_index_and_md_case() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    expose(root);
    write(
        root,
        "work/active/project-x.md",
        "# X\n- [ ] do the thing\n- [x] finished thing\n",
    );
    write(
        root,
        "brain/Shouting.MD",
        "---\ndescription: loud\n---\n- a point\n",
    );
    write(
        root,
        "brain/North Star.md",
        "---\ndescription: x\n---\n# NS\n## Current Focus\n- ~~old goal~~\n- new goal\n",
    );
    let ctx = context(&hook(
        root,
        "session-start",
        &serde_json::json!({"source": "startup"}),
    ));
    assert!(
        ctx.contains("work/active/project-x.md:\n  - [ ] do the thing"),
        "{ctx}"
    );
    assert!(!ctx.contains("finished thing"));
    assert!(ctx.contains("- [[Shouting]] — loud"), "{ctx}");
    assert!(ctx.contains("./brain/Shouting.MD"));
    assert!(
        ctx.contains("## Current Focus\n_(1 completed item(s) hidden"),
        "{ctx}"
    );
    assert!(ctx.contains("- new goal") && !ctx.contains("old goal"));
    assert!(ctx.contains("- project-x"), "active work: {ctx}");
}

/// The briefing shows agents only what the exposure policy lets them see, and no control
/// characters: private notes (open tasks, titles, descriptions, paths), never-exposed names and
/// memory files stay out of every section, on session-start and in the Stop report.
#[test]
fn the_briefing_withholds_private_notes_and_strips_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"], "mcp_never_expose": ["salaries.md"], "memory_root": "memories"}"#,
    );
    write(
        root,
        "work/active/Secret Merger.md",
        "---\nprivate: true\nstatus: done\n---\n# Merger\n- [ ] PRIVATETASK call the bank\n",
    );
    write(
        root,
        "brain/Hidden Topic.md",
        "---\ndescription: PRIVATEDESCRIPTION\ntags: [private]\n---\n- a point\n",
    );
    write(
        root,
        "work/active/salaries.md",
        "# S\n- [ ] NEVEREXPOSEDTASK\n",
    );
    write(
        root,
        "memories/2026/01/other-projects-lesson.md",
        "---\nsource: mcp-capture\n---\n# Lesson\n",
    );
    write(
        root,
        "work/active/Public Plan.md",
        "# Plan\n- [ ] PUBLICTASK ship \u{1b}[31mred\u{7} and \u{9b}c1 \r\n",
    );
    write(
        root,
        "brain/Loud.md",
        "---\ndescription: \"bell\\a and \\e[2J escape\"\n---\n- a point\n",
    );
    write(
        root,
        "brain/North Star.md",
        "---\nprivate: true\n---\n# NS\n## Current Focus\n- PRIVATEGOAL\n",
    );
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(ctx.contains("PUBLICTASK"), "{ctx}");
    assert!(ctx.contains("./work/active/Public Plan.md"), "{ctx}");
    for hidden in [
        "PRIVATETASK",
        "Secret Merger",
        "Hidden Topic",
        "PRIVATEDESCRIPTION",
        "NEVEREXPOSEDTASK",
        "salaries",
        "other-projects-lesson",
        "PRIVATEGOAL",
    ] {
        assert!(!ctx.contains(hidden), "{hidden} shown: {ctx}");
    }
    assert!(
        ctx.contains("### North Star (current goals)\n(withheld: the note is private)"),
        "{ctx}"
    );
    assert!(
        !ctx.chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "control characters: {ctx:?}"
    );
    assert!(ctx.contains("ship [31mred and c1"), "{ctx:?}");
    assert!(ctx.contains("[[Loud]] — bell"), "{ctx:?}");

    // The Stop report shares the scan: the private finished note is not named there either.
    let stop = serde_json::json!({"session_id": "s9", "hook_event_name": "SessionEnd"});
    let out = hook(root, "stop", &stop);
    assert!(!out.contains("Secret Merger"), "{out}");
}

/// A note reached through a symlink is judged by where it really is: a link to a never-exposed
/// file or into the memory store shows nothing; the North Star obeys the never-expose list.
#[cfg(unix)]
#[test]
fn the_briefing_judges_links_by_their_targets_and_the_north_star_by_its_name() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"], "mcp_never_expose": ["salaries.md", "North Star.md"], "memory_root": "memories"}"#,
    );
    write(
        root,
        "brain/North Star.md",
        "# NS\n## Current Focus\n- NSGOAL\n",
    );
    write(root, "salaries.md", "# S\n- [ ] LINKEDTASK pay\n");
    write(
        root,
        "memories/projb/lesson.md",
        "---\nsource: mcp-capture\n---\n# Lesson\n- [ ] MEMORYTASK of another project\n",
    );
    write(root, "work/active/Fine.md", "# F\n- [ ] FINETASK ship\n");
    symlink(
        root.join("salaries.md"),
        root.join("work/active/Payroll.md"),
    )
    .unwrap();
    symlink(
        root.join("memories/projb/lesson.md"),
        root.join("work/active/Borrowed.md"),
    )
    .unwrap();
    symlink(root.join("memories/projb"), root.join("work/shared")).unwrap();
    // A folder holding only private notes is not named, nor is a commit naming one.
    write(
        root,
        "work/active/Acme Layoffs/plan.md",
        "---\nprivate: true\n---\n# P\n",
    );
    write(
        root,
        "work/active/Secret Merger.md",
        "---\nprivate: true\n---\n# M\n",
    );
    let git = |args: &[&str]| git_in(root, args);
    git(&["init", "-q"]);
    git(&["add", "work/active/Fine.md"]);
    git(&["commit", "-qm", "vault backup: Fine.md"]);
    git(&["add", "-A"]);
    git(&[
        "commit",
        "-qm",
        "vault backup: work/active/secret merger.md",
    ]);
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(ctx.contains("vault backup: Fine.md"), "{ctx}");
    assert!(
        ctx.contains("(1 commit(s) touching or naming notes agents may not see not shown)"),
        "{ctx}"
    );
    assert!(ctx.contains("FINETASK"), "{ctx}");
    for hidden in [
        "NSGOAL",
        "LINKEDTASK",
        "MEMORYTASK",
        "Payroll",
        "Borrowed",
        "work/shared/lesson",
        "Acme",
        "erger",
    ] {
        assert!(!ctx.contains(hidden), "{hidden} shown: {ctx}");
    }
    assert!(
        ctx.contains("### North Star (current goals)\n(withheld: the note is private)"),
        "{ctx}"
    );
}

/// The briefing follows MCP's rules exactly: nothing outside the exposed roots is listed or
/// read, and a commit whose files an agent may not see keeps its subject, even when the
/// subject names nothing withheld.
#[test]
fn the_briefing_names_nothing_outside_the_exposed_roots_nor_commits_of_hidden_notes() {
    let (_d, root) = template_vault();
    let root = root.as_path();
    write(
        root,
        "hr-private/Layoff list Q3.md",
        "# Layoffs\n- [ ] OUTSIDETASK tell finance\n",
    );
    write(
        root,
        "Loose Root Note.md",
        "# Loose\n- [ ] ROOTOUTSIDETASK\n",
    );
    write(
        root,
        "work/active/Osprey Reorg.md",
        "---\nprivate: true\n---\n# Osprey\nCut the team by 40 percent.\n",
    );
    write(
        root,
        "work/active/Visible Plan.md",
        "# Plan\n- [ ] VISIBLETASK\n",
    );
    let git = |args: &[&str]| git_in(root, args);
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "Initial vault"]);
    write(
        root,
        "work/active/Osprey Reorg.md",
        "---\nprivate: true\n---\n# Osprey\nCut 40.\n",
    );
    git(&["commit", "-qam", "Cut Osprey team by 40 percent"]);
    write(root, "hr-private/Layoff list Q3.md", "# Layoffs\nmore\n");
    git(&["commit", "-qam", "Q3 headcount numbers"]);
    write(
        root,
        "work/active/Visible Plan.md",
        "# Plan\n- [ ] VISIBLETASK\n- [x] done\n",
    );
    git(&["commit", "-qam", "Plan progress"]);
    // Found by a review: a private draft kept under the machinery's folders, and a note moved
    // out of a hidden folder, keep their subjects too.
    write(
        root,
        "templates/Osprey draft.md",
        "---\nprivate: true\n---\n# Draft\n",
    );
    git(&["add", "-A"]);
    git(&["commit", "-qm", "Draft: reduce payments team from 10 to 6"]);
    git(&[
        "mv",
        "hr-private/Layoff list Q3.md",
        "work/active/Staffing.md",
    ]);
    git(&["commit", "-qm", "Staffing moved"]);
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(ctx.contains("VISIBLETASK"), "{ctx}");
    assert!(ctx.contains("./work/active/Visible Plan.md"), "{ctx}");
    assert!(ctx.contains("Plan progress"), "{ctx}");
    assert!(
        ctx.contains("commit(s) touching or naming notes agents may not see not shown"),
        "{ctx}"
    );
    for hidden in [
        "hr-private",
        "Layoff",
        "OUTSIDETASK",
        "Loose Root Note",
        "ROOTOUTSIDETASK",
        "Osprey",
        "40 percent",
        "headcount",
        "Initial vault",
        "reduce payments team",
        "Staffing moved",
    ] {
        assert!(!ctx.contains(hidden), "{hidden} shown: {ctx}");
    }
    // The Stop report reads the same view.
    let stop = serde_json::json!({"session_id": "s37", "hook_event_name": "SessionEnd"});
    let out = hook(root, "stop", &stop);
    for hidden in ["hr-private", "Layoff", "Loose Root Note", "Osprey"] {
        assert!(!out.contains(hidden), "{hidden} in the Stop report: {out}");
    }
}

/// A memory is never listed or named by the briefing, wherever it lies: a capture copied out of
/// the store, a hand-filed one, and a commit subject naming a file of the store.
#[test]
fn the_briefing_never_names_a_memory_wherever_it_lies() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"], "memory_root": "memories"}"#,
    );
    let capture = |title: &str, source: &str| {
        format!(
            "---\nsource: {source}\nscope: project\nprojects: [\"alpha\"]\n---\n# {title}\n\n- [ ] TASK of {title}\n"
        )
    };
    write(
        root,
        "memories/2026/12/2026-12-07 Alpha payroll cutover.md",
        &capture("Alpha payroll cutover", "mcp-capture"),
    );
    write(
        root,
        "work/active/Kafka acquisition secret.md",
        &capture("Kafka acquisition secret", "mcp-capture"),
    );
    write(
        root,
        "work/active/Hand filed lesson.md",
        &capture("Hand filed lesson", "hand-filed"),
    );
    write(
        root,
        "work/active/Kafka retry notes.md",
        "# Kafka retry notes\n- [ ] FINETASK\n",
    );
    let git = |args: &[&str]| git_in(root, args);
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&[
        "commit",
        "-qm",
        "remember: 2026-12-07 Alpha payroll cutover.md",
    ]);
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(ctx.contains("FINETASK"), "{ctx}");
    assert!(
        ctx.contains("(1 commit(s) touching or naming notes agents may not see not shown)"),
        "{ctx}"
    );
    // An oversized memory in the store is not named among the oversized notes.
    write(
        root,
        "memories/2026/12/2026-12-07 Orion rollout confidential checklist.md",
        &format!(
            "---\nsource: mcp-capture\n---\n# Orion rollout confidential checklist\n\n{}\n",
            "step ".repeat(6_000)
        ),
    );
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    for hidden in [
        "payroll",
        "Kafka acquisition",
        "Hand filed",
        "TASK of",
        "Orion",
    ] {
        assert!(!ctx.contains(hidden), "{hidden} shown: {ctx}");
    }
    // The store's capture is still counted by the hygiene scan, not listed.
    let out = post(root, "work/active/Kafka retry notes.md");
    assert!(!out.contains("Kafka acquisition"), "{out}");
}

/// The briefing's privacy verdicts are cached by file stat (`privacy.cache` in the index
/// folder, so a big vault is not re-read each session); a note edited to private leaves the
/// briefing at once, even when the edit keeps its size and puts its mtime back.
#[test]
fn a_note_made_private_leaves_the_briefing_even_when_size_and_mtime_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    expose(root);
    let plan = "work/active/Quarter Plan.md";
    write(root, plan, "---\ntitle: abc\n---\n- [ ] OPENTASK ship it\n");
    let update = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["update", "-q", "--vault"])
        .arg(root)
        .env_remove("MINDEX_INDEX_DIR")
        .output()
        .unwrap();
    assert!(update.status.success(), "{update:?}");
    // Verdicts are kept only for files that have not changed in the last second.
    std::thread::sleep(Duration::from_millis(1200));
    for _ in 0..2 {
        let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
        assert!(
            ctx.contains("OPENTASK") && ctx.contains("Quarter Plan"),
            "{ctx}"
        );
    }
    assert!(root.join(".mindex/privacy.cache").is_file());

    let path = root.join(plan);
    let before = fs::metadata(&path).unwrap();
    fs::write(&path, "---\nprivate: 1\n---\n- [ ] OPENTASK ship it\n").unwrap();
    let f = fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
    drop(f);
    let after = fs::metadata(&path).unwrap();
    assert_eq!(after.len(), before.len());
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(
        !ctx.contains("OPENTASK") && !ctx.contains("Quarter Plan"),
        "{ctx}"
    );
}

#[test]
fn listing_collapses_big_flat_folders_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["people/", "small/", "tree/"]}"#,
    );
    for i in 0..40 {
        write(root, &format!("people/P{i:02}.md"), "x");
    }
    for i in 0..3 {
        write(root, &format!("small/S{i}.md"), "x");
    }
    for i in 0..30 {
        write(root, &format!("tree/sub{}/T{i:02}.md", i % 2), "x");
    }
    for i in 0..10 {
        write(root, &format!("tree/T{i:02}.md"), "x");
    }
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(
        ctx.contains("./people/ — 40 notes (listing collapsed"),
        "{ctx}"
    );
    assert!(ctx.contains("./small/S0.md"), "3 notes stay expanded");
    assert!(
        ctx.contains("./tree/T00.md"),
        "a folder with subfolders never collapses on size"
    );
    assert!(
        ctx.contains("./tree/sub0/ — 15 notes"),
        "leaf folders collapse"
    );

    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["people/", "small/", "tree/"], "listing_collapse_threshold": 2}"#,
    );
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    assert!(ctx.contains("./small/ — 3 notes"), "{ctx}");

    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "vault-manifest.json",
        r#"{"user_content_roots": ["f/"]}"#,
    );
    for i in 0..12 {
        write(dir.path(), &format!("f/N{i:02}.md"), "x");
    }
    let ctx = context(&hook(dir.path(), "session-start", &serde_json::json!({})));
    assert!(
        !ctx.contains("collapsed"),
        "12 notes under threshold 12 stay"
    );
    write(dir.path(), "f/N12.md", "x");
    let ctx = context(&hook(dir.path(), "session-start", &serde_json::json!({})));
    assert!(ctx.contains("./f/ — 13 notes"), "13 collapse");
}

#[test]
fn budget_meter_and_degradation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "work/active/A.md", "- [ ] task\n");
    for i in 0..5 {
        write(root, &format!("notes/N{i}.md"), "x");
    }
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    let meter = Regex::new(r"^_context injected: \d+\.\dkB_$").unwrap();
    assert!(meter.is_match(ctx.lines().last().unwrap()), "{ctx}");
    assert!(ctx.ends_with(&format!("\n\n{}", ctx.lines().last().unwrap())));

    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"], "eager_layer_budget_bytes": 400}"#,
    );
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    let last = ctx.lines().last().unwrap();
    assert!(
        last.contains(" / 0.4kB budget — collapsed: Vault File Listing"),
        "{last}"
    );
    assert!(
        ctx.contains("### Vault File Listing\n(Over budget"),
        "{ctx}"
    );
    assert!(ctx.contains("### Date\n"));
    assert!(ctx.contains("- [ ] task"), "open tasks never degrade");

    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"], "eager_layer_budget_bytes": 5000000}"#,
    );
    let ctx = context(&hook(root, "session-start", &serde_json::json!({})));
    let last = ctx.lines().last().unwrap();
    assert!(
        last.ends_with("/ 9.0kB budget (set 5000.0kB, clamped to the hook output cap)_"),
        "{last}"
    );
    assert!(!last.contains("collapsed"));
}

#[test]
fn session_start_always_fits_the_hook_cap() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Open tasks never degrade; a thousand of them still fit, cut on a line and marked.
    let tasks: String = (0..1000)
        .map(|i| format!("- [ ] task number {i} \"quoted\"\n"))
        .collect();
    for i in 0..20 {
        write(root, &format!("work/active/Project {i}.md"), &tasks);
        write(root, &format!("Root Note {i}.md"), &tasks);
    }
    for d in 0..200 {
        write(root, &format!("area{d}/sub/Note.md"), "x");
        write(
            root,
            &format!("area{d}/Note {d} with a long name to fill the listing.md"),
            "x",
        );
    }
    for source in ["startup", "resume", "compact", "clear"] {
        let out = hook(
            root,
            "session-start",
            &serde_json::json!({"source": source}),
        );
        assert!(
            out.chars().count() < 10_000,
            "{source}: {} chars",
            out.chars().count()
        );
        let ctx = context(&out);
        let last = ctx.lines().last().unwrap();
        assert!(last.starts_with("_context injected: "), "{last}");
    }
}

#[test]
fn resume_and_compact_reinject_only_the_volatile_sections() {
    let (_d, v) = template_vault();
    for source in ["resume", "compact"] {
        let ctx = context(&hook(
            &v,
            "session-start",
            &serde_json::json!({"source": source}),
        ));
        assert!(ctx.contains("### Context Pointer"), "{ctx}");
        assert!(ctx.contains("### Open Tasks") && ctx.contains("### Active Work"));
        assert!(
            !ctx.contains("### North Star") && !ctx.contains("### Vault File Listing"),
            "{ctx}"
        );
    }
    let ctx = context(&hook(
        &v,
        "session-start",
        &serde_json::json!({"source": "clear"}),
    ));
    assert!(ctx.contains("### North Star") && !ctx.contains("### Context Pointer"));
}

#[test]
fn session_start_exports_the_vault_to_the_env_file() {
    let (d, v) = template_vault();
    let env_file = d.path().join("env.sh");
    hook_in(
        &v,
        "session-start",
        b"{}",
        &[("CLAUDE_ENV_FILE", env_file.to_str().unwrap())],
    );
    let text = fs::read_to_string(&env_file).unwrap();
    // The test binary is on no PATH folder: its folder is added so the vault's commands find it.
    let bin = Path::new(env!("CARGO_BIN_EXE_mindex")).parent().unwrap();
    assert_eq!(
        text,
        format!(
            "export MINDEX_VAULT='{}'\nexport PATH='{}':\"$PATH\"\n",
            v.display(),
            bin.display()
        )
    );
    // On the PATH already: only the vault.
    fs::remove_file(&env_file).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    hook_in(
        &v,
        "session-start",
        b"{}",
        &[
            ("CLAUDE_ENV_FILE", env_file.to_str().unwrap()),
            ("PATH", &path),
        ],
    );
    let text = fs::read_to_string(&env_file).unwrap();
    assert_eq!(text, format!("export MINDEX_VAULT='{}'\n", v.display()));
}

// ---------------------------------------------------------------------------------------------
// user-prompt
// ---------------------------------------------------------------------------------------------

#[test]
fn user_prompt_classifies_and_stays_silent_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let out = hook(
        root,
        "user-prompt",
        &serde_json::json!({"prompt": "we decided to use React"}),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    assert!(context(&out).contains("DECISION"));
    assert_eq!(
        hook(
            root,
            "user-prompt",
            &serde_json::json!({"prompt": "hello world"})
        ),
        ""
    );
    for bad in [
        &b"{not json"[..],
        b"{\"prompt\": \"we deci",
        b"",
        b"{\"prompt\": 42}",
        b"{}",
    ] {
        let out = hook_in(root, "user-prompt", bad, &[]);
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(bad));
    }
    let out = hook(
        root,
        "user-prompt",
        &serde_json::json!({"prompt": "我们决定了", "hook_event_name": "BeforeAgent"}),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "BeforeAgent");
}

#[test]
fn hints_are_given_once_per_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let p = serde_json::json!({"prompt": "we decided; it shipped", "session_id": "s1"});
    let first = context(&hook(root, "user-prompt", &p));
    assert!(
        first.contains("DECISION") && first.contains("WIN") && first.contains("PROJECT UPDATE")
    );
    assert_eq!(
        hook(root, "user-prompt", &p),
        "",
        "the same hints again are dropped"
    );
    let other = serde_json::json!({"prompt": "sev1 outage and we decided", "session_id": "s1"});
    let ctx = context(&hook(root, "user-prompt", &other));
    assert!(
        ctx.contains("INCIDENT") && !ctx.contains("DECISION"),
        "{ctx}"
    );
    let s2 = serde_json::json!({"prompt": "we decided", "session_id": "s2"});
    assert!(context(&hook(root, "user-prompt", &s2)).contains("DECISION"));
    // A corrupt state file fails open: hints are shown.
    fs::write(root.join(".mindex/hooks/hint-state.json"), "garbage").unwrap();
    assert!(context(&hook(root, "user-prompt", &p)).contains("DECISION"));
}

/// Issue 17 finding 7: a decision announced in a prompt names the accepted record it would
/// supersede, found by a search of the vault; an unrelated decision names none.
#[test]
fn a_decision_prompt_names_the_record_it_would_supersede() {
    let (_d, root) = template_vault();
    write(
        &root,
        "work/active/Decision - Postgres for Session Store.md",
        "---\ndate: 2026-08-20\ndescription: Why sessions moved from Redis to Postgres\nstatus: accepted\ntags: [decision]\n---\n# Decision: Postgres for Session Store\n\nThe session store moves from the single Redis node to Postgres.\n",
    );
    let v = mindex::Vault::open(&root, mindex::VaultOptions::default()).unwrap();
    v.update(&mindex::NoProgress).unwrap();
    let p = serde_json::json!({"prompt": "we decided to move the session store to Redis", "session_id": "d1"});
    let ctx = context(&hook(&root, "user-prompt", &p));
    assert!(ctx.contains("DECISION"), "{ctx}");
    assert!(
        ctx.contains("- [[Decision - Postgres for Session Store]] (accepted): work/active/Decision - Postgres for Session Store.md"),
        "{ctx}"
    );
    assert!(ctx.contains("superseded"), "{ctx}");
    // Named again on the next decision of the session, though the DECISION hint is not.
    let again = context(&hook(&root, "user-prompt", &p));
    assert!(
        !again.contains("DECISION:") && again.contains("Postgres for Session Store"),
        "{again}"
    );
    let other = serde_json::json!({"prompt": "we decided to adopt Tailwind for the docs site", "session_id": "d2"});
    let ctx = context(&hook(&root, "user-prompt", &other));
    assert!(
        ctx.contains("DECISION") && !ctx.contains("Decisions already in the vault"),
        "{ctx}"
    );
}

// ---------------------------------------------------------------------------------------------
// post-tool
// ---------------------------------------------------------------------------------------------

fn post(root: &Path, file: &str) -> String {
    hook(
        root,
        "post-tool",
        &serde_json::json!({"tool_name": "Write", "tool_input": {"file_path": file}}),
    )
}

#[test]
fn post_tool_checks_notes_and_skips_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let r = |rel: &str| root.join(rel).to_str().unwrap().to_string();
    for (rel, text) in [
        ("notes.txt", "x"),
        ("README.md", "x"),
        ("README.ja.md", "x"),
        ("CHANGELOG.md", "x"),
        (".claude/commands/x.md", "x"),
        ("templates/T.md", "x"),
        ("thinking/idea.md", "x"),
    ] {
        write(root, rel, text);
        assert_eq!(post(root, &r(rel)), "", "{rel}");
    }
    assert_eq!(
        post(root, &format!("{}\\.claude\\x.md", root.display())),
        ""
    );
    assert_eq!(
        post(root, &r("work/missing.md")),
        "",
        "a missing file is silent"
    );
    assert_eq!(
        post(root, "/elsewhere/outside.md"),
        "",
        "outside the vault is silent"
    );

    write(root, "work/active/Bare.md", "# Bare\nno frontmatter");
    // A tool that only reads writes nothing to check (an agent without a `Write|Edit`
    // matcher sends those too).
    for (tool, input) in [
        (
            "Read",
            serde_json::json!({"file_path": r("work/active/Bare.md")}),
        ),
        (
            "Grep",
            serde_json::json!({"path": r("work/active/Bare.md"), "pattern": "x"}),
        ),
        (
            "read_file",
            serde_json::json!({"absolute_path": r("work/active/Bare.md")}),
        ),
    ] {
        let out = hook(
            root,
            "post-tool",
            &serde_json::json!({"tool_name": tool, "tool_input": input}),
        );
        assert_eq!(out, "", "{tool}");
    }
    let ctx = context(&post(root, &r("work/active/Bare.md")));
    assert!(
        ctx.contains("Vault hygiene warnings for `Bare.md`:\n  - Missing YAML frontmatter"),
        "{ctx}"
    );
    assert!(ctx.ends_with("Fix these before moving on."));

    write(
        root,
        "work/active/Half.md",
        &format!("---\ntitle: x\n---\n{}", "words ".repeat(60)),
    );
    let ctx = context(&post(root, &r("work/active/Half.md")));
    for w in [
        "Missing `tags`",
        "Missing `description`",
        "Missing `date`",
        "No [[wikilinks]]",
    ] {
        assert!(ctx.contains(w), "{w}: {ctx}");
    }

    write(
        root,
        "work/active/Good.md",
        "---\ndate: 2026-12-03\ndescription: fine\ntags: [x]\n---\nSee [[Home]].\n",
    );
    assert_eq!(
        post(root, &r("work/active/Good.md")),
        "",
        "a well-formed note is silent"
    );

    write(
        root,
        "work/active/Ticket.md",
        "---\ndate: 2026-12-03\ndescription: d\ntags: [x]\n---\nSee [[PROJ-123]].\n",
    );
    let v: Value = serde_json::from_str(&post(root, &r("work/active/Ticket.md"))).unwrap();
    let p = &v["hookSpecificOutput"]["policyResults"][0];
    assert_eq!(p["policy_id"], "phantom-edge");
    assert_eq!(p["classification"], "ticket-id-wikilink");
    assert_eq!(p["path"], "work/active/Ticket.md");

    write(
        root,
        "reference/Huge.md",
        &format!(
            "---\ndate: x\ndescription: d\ntags: [x]\n---\n[[Home]]\n{}",
            "y".repeat(26_000)
        ),
    );
    let v: Value = serde_json::from_str(&post(root, &r("reference/Huge.md"))).unwrap();
    assert!(context(&v.to_string()).contains("past the 25KB organisation threshold"));
    assert_eq!(
        v["hookSpecificOutput"]["policyResults"][0]["classification"],
        "oversized-note"
    );
    assert_eq!(
        v["hookSpecificOutput"]["policyResults"][0]["action"],
        "flag"
    );
}

#[test]
fn post_tool_guards_the_agents_private_memory_folder() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    fs::create_dir_all(&vault).unwrap();
    for p in [
        "/home/u/.claude/projects/-home-u-repo/memory/notes.md",
        r"C:\Users\u\.claude\projects\repo\memory\notes.md",
        "/home/u/.claude/projects/repo/other/../memory/notes.md",
    ] {
        let v: Value =
            serde_json::from_str(&post(&vault, p)).unwrap_or_else(|e| panic!("{p}: {e}"));
        let pr = &v["hookSpecificOutput"]["policyResults"][0];
        assert_eq!(pr["policy_id"], "memory-location", "{p}");
        assert_eq!(pr["classification"], "misplaced-memory");
        assert_eq!(pr["suggested_target"], "brain/");
        assert_eq!(pr["action"], "warn");
        assert!(context(&v.to_string()).contains("brain/Gotchas.md"));
    }
    for p in [
        "/home/u/.claude/projects/repo/memory/MEMORY.md",
        "/home/u/.claude/projects/repo/notes.md",
        "/home/u/.claude/projects/repo/memory/../notes.md",
    ] {
        assert_eq!(post(&vault, p), "", "{p}");
    }
    write(
        &vault,
        "memory/notes.md",
        "---\ndate: x\ndescription: d\ntags: [x]\n---\n[[Home]]\n",
    );
    assert_eq!(
        post(&vault, vault.join("memory/notes.md").to_str().unwrap()),
        ""
    );
}

#[test]
fn post_tool_flags_a_topic_cluster_forming() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let note = "---\ndate: x\ndescription: d\ntags: [x]\n---\n[[Home]]\n";
    for n in [
        "Billing Export",
        "Billing Retry",
        "Search Index",
        "Mobile Offline",
        "Hiring Plan",
        "Office Move",
        "Travel Booking",
        "Payments Ledger",
    ] {
        write(root, &format!("work/active/{n}.md"), note);
    }
    // Siblings an agent may not see are never named: a private note, and a link to a
    // never-exposed file.
    write(
        root,
        "vault-manifest.json",
        r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "inbox/", "thinking/"], "mcp_never_expose": ["salaries.md"]}"#,
    );
    write(
        root,
        "work/active/Billing Layoffs.md",
        "---\nprivate: true\n---\n# L\n",
    );
    write(root, "salaries.md", "# S\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        root.join("salaries.md"),
        root.join("work/active/Billing Salaries.md"),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&post(
        root,
        root.join("work/active/Billing Retry.md").to_str().unwrap(),
    ))
    .unwrap();
    let pr = &v["hookSpecificOutput"]["policyResults"][0];
    assert_eq!(pr["policy_id"], "topic-cluster");
    assert_eq!(pr["suggested_target"], "work/active/Billing/");
    let said = context(&v.to_string());
    assert!(said.contains("joins 1 loose sibling(s)"), "{said}");
    assert!(
        !said.contains("Layoffs") && !said.contains("Salaries"),
        "{said}"
    );
    assert_eq!(
        post(
            root,
            root.join("work/active/Hiring Plan.md").to_str().unwrap()
        ),
        ""
    );
}

// ---------------------------------------------------------------------------------------------
// stop
// ---------------------------------------------------------------------------------------------

#[test]
fn stop_reentry_prints_exactly_empty_braces() {
    let dir = tempfile::tempdir().unwrap();
    for p in [r#"{"stop_hook_active":true}"#, r#"{"stopHookActive":true}"#] {
        let out = hook_in(dir.path(), "stop", p.as_bytes(), &[]);
        assert_eq!(out.stdout, b"{}");
    }
    let mut answers = Vec::new();
    for p in [
        &br#"{"stop_hook_active":false}"#[..],
        br#"{"stop_hook_active":"true"}"#,
        b"{}",
        b"garbage",
        b"",
    ] {
        let out = hook_in(dir.path(), "stop", p, &[]);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with(r#"{"systemMessage":"Session end checklist:"#),
            "{text}"
        );
        assert!(!text.ends_with('\n'));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(!v["systemMessage"].as_str().unwrap().ends_with('\n'));
        answers.push(text);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
}

/// Issue 17 finding 6: findings the briefing gave a session are not repeated by its Stop;
/// findings that appear later, and other sessions, still get them.
#[test]
fn stop_does_not_repeat_what_the_briefing_showed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    expose(root);
    write(root, "work/active/Old.md", "---\nstatus: done\n---\n");
    let start = serde_json::json!({"session_id": "b1", "source": "startup"});
    let brief = context(&hook(root, "session-start", &start));
    assert!(
        brief.contains("finished note(s) still in work/active/"),
        "{brief}"
    );
    let stop = serde_json::json!({"session_id": "b1", "hook_event_name": "Stop"});
    let v: Value = serde_json::from_str(&hook(root, "stop", &stop)).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(msg.starts_with("Session end checklist:"), "{msg}");
    assert!(
        !msg.contains("Vault Hygiene") && !msg.contains("finished note(s)"),
        "{msg}"
    );
    // A new finding after the briefing is reported, alone.
    write(root, "work/meetings/2020-01-01 Old Sync.md", "x\n");
    let v: Value = serde_json::from_str(&hook(root, "stop", &stop)).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("Vault Hygiene") && !msg.contains("finished note(s)"),
        "{msg}"
    );
    // A session that was never briefed gets everything.
    let other = serde_json::json!({"session_id": "b2", "hook_event_name": "Stop"});
    let v: Value = serde_json::from_str(&hook(root, "stop", &other)).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("finished note(s)")
    );
}

/// The Stop report is judged again when the next prompt takes it: a note made private since
/// is not named.
#[test]
fn a_saved_stop_report_never_names_a_note_made_private_since() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    expose(root);
    write(
        root,
        "work/active/Quiet Merger.md",
        "---\nstatus: done\n---\n",
    );
    write(root, "work/active/Old.md", "---\nstatus: done\n---\n");
    let stop = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop"});
    assert_ne!(hook(root, "stop", &stop), "{}");
    write(
        root,
        "work/active/Quiet Merger.md",
        "---\nstatus: done\nprivate: true\n---\n",
    );
    let prompt = serde_json::json!({"session_id": "s1", "prompt": "hello there"});
    let ctx = context(&hook(root, "user-prompt", &prompt));
    assert!(ctx.contains("   work/active/Old.md"), "{ctx}");
    assert!(!ctx.contains("Quiet Merger"), "{ctx}");
    assert!(ctx.contains("left out"), "{ctx}");
}

#[test]
fn stop_report_is_shown_once_handed_to_the_next_prompt_and_again_when_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    expose(root);
    write(root, "work/active/Old.md", "---\nstatus: done\n---\n");
    let stop = serde_json::json!({"session_id": "s1", "hook_event_name": "Stop"});
    let first: Value = serde_json::from_str(&hook(root, "stop", &stop)).unwrap();
    let msg = first["systemMessage"].as_str().unwrap();
    assert!(msg.starts_with("Session end checklist:"));
    assert!(
        msg.contains("finished note(s) still in work/active/"),
        "{msg}"
    );
    assert!(
        !msg.contains("work/active/Old.md"),
        "the summary has one line per section: {msg}"
    );
    assert_eq!(
        hook(root, "stop", &stop),
        "{}",
        "the same report is not shown twice"
    );

    // The next prompt gets the full report, once.
    let prompt = serde_json::json!({"session_id": "s1", "prompt": "hello there"});
    let ctx = context(&hook(root, "user-prompt", &prompt));
    assert!(ctx.contains("deal with the user's message first"), "{ctx}");
    assert!(ctx.contains("   work/active/Old.md"), "{ctx}");
    assert_eq!(hook(root, "user-prompt", &prompt), "", "delivered once");

    // Another session sees it; a change shows it again.
    assert_ne!(
        hook(root, "stop", &serde_json::json!({"session_id": "s2"})),
        "{}"
    );
    write(root, "work/active/Older.md", "---\nstatus: archived\n---\n");
    assert_ne!(hook(root, "stop", &stop), "{}");

    // SessionEnd has no next prompt: the full report goes out at once.
    let end = serde_json::json!({"session_id": "s3", "hook_event_name": "SessionEnd"});
    let v: Value = serde_json::from_str(&hook(root, "stop", &end)).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("   work/active/Old.md")
    );
}

// ---------------------------------------------------------------------------------------------
// pre-compact
// ---------------------------------------------------------------------------------------------

#[test]
fn pre_compact_backs_the_transcript_up_and_keeps_thirty() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let logs = root.join("thinking/session-logs");
    fs::create_dir_all(&logs).unwrap();
    for i in 0..35 {
        let p = logs.join(format!("session_auto_20260101_0000{i:02}.jsonl"));
        fs::write(&p, "{}").unwrap();
        age(
            root,
            &format!("thinking/session-logs/session_auto_20260101_0000{i:02}.jsonl"),
            40 - i,
        );
    }
    // The agent's transcript lives in its own folder under the (test's) home.
    let home = dir.path().join("home");
    let transcript = home.join(".claude/projects/-vault/t.jsonl");
    fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    fs::write(&transcript, "{\"type\":\"user\"}\n").unwrap();
    let home_env = [("HOME", home.to_str().unwrap())];
    let compact = |payload: &Value| {
        let out = hook_in(
            root,
            "pre-compact",
            payload.to_string().as_bytes(),
            &home_env,
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let out = compact(&serde_json::json!({"transcript_path": transcript, "trigger": "manual"}));
    assert_eq!(out, "", "pre-compact prints nothing");
    let names: Vec<String> = fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 30, "{names:?}");
    let backup = Regex::new(r"^session_manual_\d{8}_\d{6}\.jsonl$").unwrap();
    let new: Vec<&String> = names.iter().filter(|n| backup.is_match(n)).collect();
    assert_eq!(new.len(), 1, "{names:?}");
    assert_eq!(
        fs::read_to_string(logs.join(new[0])).unwrap(),
        "{\"type\":\"user\"}\n"
    );
    assert!(
        !names.contains(&"session_auto_20260101_000000.jsonl".to_string()),
        "oldest pruned"
    );
    // No transcript, a missing transcript, no payload: quietly nothing.
    for p in [
        serde_json::json!({}),
        serde_json::json!({"transcript_path": "/nope/t.jsonl"}),
    ] {
        assert_eq!(hook(root, "pre-compact", &p), "");
    }
    assert!(hook_in(root, "pre-compact", b"", &[]).stdout.is_empty());
}

/// Only the agent's own transcript is ever copied into the vault, and a second backup in the
/// same second gets its own name.
#[test]
fn pre_compact_copies_only_the_agents_transcript_and_never_overwrites_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    fs::create_dir_all(&root).unwrap();
    let home = dir.path().join("home");
    let sessions = home.join(".claude/projects/-vault");
    fs::create_dir_all(&sessions).unwrap();
    fs::write(dir.path().join("secret.jsonl"), "SECRET-OUTSIDE\n").unwrap();
    fs::write(root.join("inside.jsonl"), "VAULT-FILE\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.jsonl"), sessions.join("link.jsonl"))
        .unwrap();
    fs::write(sessions.join("notes.txt"), "NOT-JSONL\n").unwrap();
    let home_env = [("HOME", home.to_str().unwrap())];
    let logs = root.join("thinking/session-logs");
    let sessions_s = sessions.display().to_string();
    for bad in [
        "../../../etc/hostname".to_string(),
        "/etc/hostname".to_string(),
        "inside.jsonl".to_string(),
        root.join("inside.jsonl").display().to_string(),
        dir.path().join("secret.jsonl").display().to_string(),
        format!("{sessions_s}/../../../../secret.jsonl"),
        format!("{sessions_s}/link.jsonl"),
        format!("{sessions_s}/notes.txt"),
        sessions_s.clone(),
    ] {
        let payload = serde_json::json!({"transcript_path": bad, "trigger": "auto"});
        let out = hook_in(
            &root,
            "pre-compact",
            payload.to_string().as_bytes(),
            &home_env,
        );
        assert!(out.stdout.is_empty(), "{bad}");
        assert!(
            !logs.exists() || fs::read_dir(&logs).unwrap().count() == 0,
            "{bad} was copied into the vault"
        );
    }
    // The real transcript, backed up three times within a second: three files.
    let t = sessions.join("s.jsonl");
    for i in 0..3 {
        fs::write(&t, format!("{{\"n\":{i}}}\n")).unwrap();
        let payload = serde_json::json!({"transcript_path": t, "trigger": "manual"});
        hook_in(
            &root,
            "pre-compact",
            payload.to_string().as_bytes(),
            &home_env,
        );
    }
    let mut texts: Vec<String> = fs::read_dir(&logs)
        .unwrap()
        .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    texts.sort();
    assert_eq!(texts, ["{\"n\":0}\n", "{\"n\":1}\n", "{\"n\":2}\n"]);
}

// ---------------------------------------------------------------------------------------------
// Every event, any input
// ---------------------------------------------------------------------------------------------

#[test]
fn no_input_ever_fails_a_hook() {
    let (_d, v) = template_vault();
    let inputs: [&[u8]; 8] = [
        b"",
        b"\xff\xfe\x00",
        b"[]",
        b"null",
        b"{\"tool_input\": null, \"prompt\": null}",
        b"{\"tool_input\": {\"file_path\": 7}}",
        b"{\"transcript_path\": \"../../../../etc/passwd\", \"trigger\": \"../x\"}",
        b"{\"source\": {\"nested\": [1,2]}, \"session_id\": 5}",
    ];
    for ev in EVENTS
        .iter()
        .chain(&["SessionEnd", "BeforeAgent", "no-such-event"])
    {
        for input in inputs {
            hook_in(&v, ev, input, &[]);
        }
    }
    // The agent's `..` trigger never escapes the session-logs folder.
    assert!(!v.join("thinking/x").exists());
}

// ---------------------------------------------------------------------------------------------
// The vault template, wired end to end
// ---------------------------------------------------------------------------------------------

/// (agent, config file, agent event → hook name).
type Wiring = (
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
);

fn wiring() -> Vec<Wiring> {
    vec![
        (
            "claude",
            ".claude/settings.json",
            vec![
                ("SessionStart", "session-start"),
                ("UserPromptSubmit", "user-prompt"),
                ("PostToolUse", "post-tool"),
                ("PreCompact", "pre-compact"),
                ("Stop", "stop"),
            ],
        ),
        (
            "codex",
            ".codex/hooks.json",
            vec![
                ("SessionStart", "session-start"),
                ("UserPromptSubmit", "user-prompt"),
                ("PostToolUse", "post-tool"),
                ("Stop", "stop"),
            ],
        ),
        (
            "gemini",
            ".gemini/settings.json",
            vec![
                ("SessionStart", "session-start"),
                ("BeforeAgent", "user-prompt"),
                ("AfterTool", "post-tool"),
                ("PreCompress", "pre-compact"),
                ("SessionEnd", "stop"),
            ],
        ),
    ]
}

/// The commands an agent config runs for an event, with their matchers.
fn commands(config: &Value, event: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    for group in config["hooks"][event].as_array().into_iter().flatten() {
        let matcher = group["matcher"].as_str().map(str::to_string);
        for h in group["hooks"].as_array().into_iter().flatten() {
            out.push((matcher.clone(), h["command"].as_str().unwrap().to_string()));
        }
    }
    out
}

#[test]
fn template_agent_configs_call_mindex_hook_and_wire_stop_once() {
    let (_d, v) = template_vault();
    for (agent, file, events) in wiring() {
        let config: Value = serde_json::from_str(&fs::read_to_string(v.join(file)).unwrap())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut stop_wired = 0;
        for (event, name) in &events {
            let cmds = commands(&config, event);
            assert_eq!(cmds.len(), 1, "{agent} {event}: {cmds:?}");
            let (matcher, cmd) = &cmds[0];
            assert_eq!(cmd, &format!("mindex hook {name}"), "{agent} {event}");
            if *name == "stop" {
                stop_wired += 1;
            }
            if *event == "SessionStart" {
                let m = matcher.clone().unwrap_or_default();
                for source in ["startup", "resume", "clear", "compact"] {
                    let hit = if agent == "gemini" {
                        // Gemini compares a lifecycle matcher as an exact string; "" and "*" match all.
                        m.is_empty() || m == "*" || m == source
                    } else {
                        Regex::new(&format!("^(?:{m})$")).unwrap().is_match(source)
                    };
                    assert!(hit, "{agent}: SessionStart matcher {m:?} misses {source}");
                }
            }
        }
        assert_eq!(stop_wired, 1, "{agent}");
        let all = config["hooks"].as_object().unwrap();
        let every: usize = all.keys().map(|e| commands(&config, e).len()).sum();
        assert_eq!(every, events.len(), "{agent}: no other hooks wired");
    }
    let mcp: Value =
        serde_json::from_str(&fs::read_to_string(v.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(mcp["mcpServers"]["mindex"]["command"], "mindex");
    assert_eq!(
        mcp["mcpServers"]["mindex"]["args"],
        serde_json::json!(["mcp"])
    );
}

/// Runs each agent's configured command through a shell, as the agent would, with that agent's
/// recorded payloads.
#[test]
fn recorded_agent_payloads_through_the_template_wiring() {
    let (d, v) = template_vault();
    let home = d.path().join("home");
    let transcript = home.join(".claude/projects/-vault/transcript.jsonl");
    fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    fs::write(&transcript, "{\"type\":\"user\",\"message\":\"hi\"}\n").unwrap();
    write(&v, "work/active/Ledger Cutover.md", "# Ledger Cutover\n");
    let all = payloads(&v, &transcript);
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mindex")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut stops = Vec::new();
    for (agent, file, events) in wiring() {
        let config: Value =
            serde_json::from_str(&fs::read_to_string(v.join(file)).unwrap()).unwrap();
        let project_var = format!("{}_PROJECT_DIR", agent.to_uppercase());
        for (event, name) in events {
            let (_, cmd) = commands(&config, event).remove(0);
            let payload = all[agent][name].to_string();
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(&cmd)
                .current_dir(&v)
                .env("PATH", &path)
                .env_remove("CLAUDE_PROJECT_DIR")
                .env(&project_var, &v)
                .env("MINDEX_HOOK_NO_REFRESH", "1")
                .env("HOME", &home)
                .env_remove("CLAUDE_CONFIG_DIR")
                .env_remove("CODEX_HOME")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(payload.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8(out.stdout).unwrap();
            assert_eq!(out.status.code(), Some(0), "{agent} {event}");
            assert!(
                out.stderr.is_empty(),
                "{agent} {event}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            match name {
                "session-start" => {
                    assert!(stdout.chars().count() < 10_000, "{agent}: {}", stdout.len());
                    let v: Value = serde_json::from_str(&stdout).unwrap();
                    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event);
                    assert!(context(&stdout).contains("### Open Tasks"));
                }
                "user-prompt" => {
                    let v: Value = serde_json::from_str(&stdout).unwrap();
                    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{agent}");
                    let ctx = context(&stdout);
                    assert!(
                        ctx.contains("DECISION") && ctx.contains("PERSON CONTEXT"),
                        "{agent}: {ctx}"
                    );
                }
                "post-tool" => {
                    let ctx = context(&stdout);
                    assert!(
                        ctx.contains("Ledger Cutover.md")
                            && ctx.contains("Missing YAML frontmatter"),
                        "{agent}: {ctx}"
                    );
                }
                "pre-compact" => assert_eq!(stdout, "", "{agent}"),
                "stop" => stops.push(stdout),
                _ => unreachable!(),
            }
        }
    }
    let backups = fs::read_dir(v.join("thinking/session-logs"))
        .unwrap()
        .count();
    assert!(backups >= 1, "pre-compact backed the transcript up");
    // The Stop answer is the same bytes whichever agent asked.
    assert_eq!(stops.len(), 3);
    assert!(stops.windows(2).all(|w| w[0] == w[1]), "{stops:?}");
    assert!(stops[0].starts_with(r#"{"systemMessage":"Session end checklist:"#));
}

#[test]
fn agents_md_is_under_the_instruction_file_limit() {
    let (_d, v) = template_vault();
    let n = fs::metadata(v.join("AGENTS.md")).unwrap().len();
    assert!(n < 22_000, "AGENTS.md is {n} bytes");
    assert!(
        n > 2_000,
        "AGENTS.md is the operating manual, not a stub ({n} bytes)"
    );
}

#[test]
fn template_manifest_has_every_field_the_engine_reads() {
    let (_d, v) = template_vault();
    let m: Value =
        serde_json::from_str(&fs::read_to_string(v.join("vault-manifest.json")).unwrap()).unwrap();
    for key in [
        "template",
        "version",
        "memory_root",
        "mcp_exposed_roots",
        "mcp_never_expose",
        "mcp_inbox",
        "user_content_roots",
        "open_loop_dirs",
        "open_loop_sections",
        "eager_layer_budget_bytes",
        "listing_collapse_threshold",
        "infrastructure",
    ] {
        assert!(!m[key].is_null(), "vault-manifest.json lacks {key}");
    }
    for dir in [
        "brain",
        "work/active",
        "work/archive",
        "work/incidents",
        "work/1-1",
        "work/meetings",
        "org",
        "perf",
        "reference",
        "thinking",
        "templates",
        "bases",
        "inbox",
    ] {
        assert!(v.join(dir).is_dir(), "{dir}");
    }
    for absent in ["memories", "projects"] {
        assert!(
            !v.join(absent).exists(),
            "{absent} is created on first write"
        );
    }
}

#[test]
fn template_notes_pass_their_own_write_checks() {
    let (_d, v) = template_vault();
    let mut checked = 0;
    for dir in ["brain", "work", "org", "perf", "reference"] {
        for e in walk(&v.join(dir)) {
            if e.extension().is_some_and(|x| x == "md") {
                let out = post(&v, e.to_str().unwrap());
                assert_eq!(out, "", "{}: {out}", e.display());
                checked += 1;
            }
        }
    }
    assert!(checked >= 15, "{checked}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The hooks use the index the user chose (`--index` / `MINDEX_INDEX_DIR`), not `<vault>/.mindex`:
/// the briefing knows it is built, hook state lives beside it, the refresh updates it.
#[test]
fn hooks_use_the_index_the_user_chose() {
    let (dir, v) = template_vault();
    let index = dir.path().join("index elsewhere");
    let (vs, idx) = (v.to_str().unwrap(), index.to_str().unwrap());
    let mindex = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(args)
            .env_remove("MINDEX_VAULT")
            .env_remove("MINDEX_INDEX_DIR")
            .output()
            .unwrap()
    };
    assert!(
        mindex(&["--vault", vs, "--index", idx, "update"])
            .status
            .success()
    );
    let env = [("MINDEX_INDEX_DIR", idx)];
    let out = hook_in(&v, "session-start", b"{}", &env);
    let ctx = context(&String::from_utf8(out.stdout).unwrap());
    assert!(!ctx.contains("not built yet"), "{ctx}");
    hook_in(
        &v,
        "user-prompt",
        br#"{"session_id":"s1","prompt":"we decided to move the session store to Redis"}"#,
        &env,
    );
    assert!(
        index.join("hooks").is_dir(),
        "hook state beside the chosen index"
    );

    write(
        &v,
        "inbox/Fresh note.md",
        "# Fresh note\n\nzanzibarquokka appears here.\n",
    );
    let out = mindex(&["--vault", vs, "--index", idx, "hook", "refresh"]);
    assert!(out.status.success());
    let out = mindex(&[
        "--vault",
        vs,
        "--index",
        idx,
        "search",
        "--json",
        "zanzibarquokka",
    ]);
    let found = String::from_utf8(out.stdout).unwrap();
    assert!(
        found.contains("Fresh note"),
        "the refresh updated the chosen index: {found}"
    );
    assert!(
        !v.join(".mindex").exists(),
        "nothing may build a second index inside the vault"
    );
}

/// The hooks and the engine agree on where the memories live: when the captures sit in another
/// folder than the manifest's `memory_root`, the engine follows them (`health` says
/// "discovered"), and the briefing leaves that folder out of its listing as well.
#[test]
fn hooks_and_engine_agree_on_the_memory_root() {
    let (_dir, v) = template_vault();
    for i in 0..3 {
        write(
            &v,
            &format!("recall/general/Lesson {i}.md"),
            &format!(
                "---\ntitle: Lesson {i}\nsource: mcp-capture\nconfidence: verified\nscope: general\n---\n\nlesson number {i} about retries\n"
            ),
        );
    }
    let out = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["--vault", v.to_str().unwrap(), "health", "--json"])
        .env_remove("MINDEX_VAULT")
        .env_remove("MINDEX_INDEX_DIR")
        .output()
        .unwrap();
    let health: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(health["memory_root"]["root"], "recall", "{health}");
    let ctx = context(&hook(&v, "session-start", &serde_json::json!({})));
    let listing = &ctx[ctx.find("### Vault File Listing").expect("listing")..];
    let listing = &listing[..listing[4..].find("\n###").map_or(listing.len(), |i| i + 4)];
    assert!(
        !listing.contains("Lesson"),
        "the memory folder the engine uses is not listed: {listing}"
    );
    // Hygiene counts the captures where they are.
    assert!(ctx.contains("3 capture(s) in recall/"), "{ctx}");
}

/// Issue 17 finding 5: an explicit `--vault` / `MINDEX_VAULT` wins over the agent's project
/// folder; a project that is not a vault, with no vault configured, gets no output at all; debug
/// output says which vault was chosen and why.
#[test]
fn an_explicit_vault_wins_and_a_code_repo_gets_nothing() {
    let (dir, v) = template_vault();
    let repo = dir.path().join("code-repo");
    write(&repo, "src/main.rs", "fn main() {}\n");
    fs::create_dir_all(repo.join(".git")).unwrap();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mindex"));
        cmd.args(args)
            .current_dir(&repo)
            .env_remove("MINDEX_VAULT")
            .env_remove("MINDEX_HOOK_DEBUG")
            .env_remove("CODEX_PROJECT_DIR")
            .env_remove("GEMINI_PROJECT_DIR")
            .env("CLAUDE_PROJECT_DIR", &repo)
            .env("MINDEX_HOOK_NO_REFRESH", "1")
            .stdin(Stdio::null());
        for (k, val) in env {
            cmd.env(k, val);
        }
        cmd.output().unwrap()
    };
    let vs = v.to_str().unwrap();

    // --vault and MINDEX_VAULT brief on the vault, not on the code repository.
    for (args, env) in [
        (vec!["--vault", vs, "hook", "session-start"], vec![]),
        (vec!["hook", "session-start"], vec![("MINDEX_VAULT", vs)]),
    ] {
        let out = run(&args, &env);
        assert!(out.status.success());
        let ctx = context(&String::from_utf8(out.stdout).unwrap());
        assert!(!ctx.contains("(empty vault)"), "{ctx}");
        assert!(!ctx.contains("North Star (not found)"), "{ctx}");
        assert!(ctx.contains("brain/"), "the vault's own listing: {ctx}");
    }

    // No vault anywhere: nothing on stdout, nothing on stderr, exit 0; for every event.
    for event in EVENTS {
        let out = run(&["hook", event], &[]);
        assert_eq!(out.status.code(), Some(0), "{event}");
        assert!(out.stdout.is_empty(), "{event}: {:?}", out.stdout);
        assert!(out.stderr.is_empty(), "{event}");
    }
    assert!(
        !repo.join(".mindex").exists(),
        "nothing written in the repo"
    );

    // Debug output names the choice and the reason.
    let out = run(&["hook", "session-start"], &[("MINDEX_HOOK_DEBUG", "1")]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is not inside a vault"), "{err}");
    assert!(err.contains("no vault: pass --vault DIR"), "{err}");
    let out = run(
        &["--vault", vs, "hook", "session-start"],
        &[("MINDEX_HOOK_DEBUG", "1")],
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("(--vault / MINDEX_VAULT)"), "{err}");

    // A project folder inside the vault still finds it.
    let out = run(&["hook", "session-start"], &[("CLAUDE_PROJECT_DIR", vs)]);
    let ctx = context(&String::from_utf8(out.stdout).unwrap());
    assert!(ctx.contains("brain/"), "{ctx}");
}

/// Issue 17 finding 6: the manifest's `infrastructure` (templates, bases, agent manuals, the
/// manifest itself) is honoured everywhere: it is not in the briefing's file listing and never an
/// orphan in `audit`.
#[test]
fn infrastructure_is_neither_listed_nor_an_orphan() {
    let (_dir, v) = template_vault();
    let ctx = context(&hook(&v, "session-start", &serde_json::json!({})));
    let listing = ctx
        .split("### Vault File Listing")
        .nth(1)
        .expect("a listing section");
    for infra in [
        "./templates/",
        "./bases/",
        "./vault-manifest.json",
        "./CLAUDE.md",
        "./GEMINI.md",
        "./AGENTS.md",
        "./.mcp.json",
    ] {
        assert!(!listing.contains(infra), "{infra} listed:\n{listing}");
    }
    assert!(
        listing.contains("./brain/"),
        "notes are still listed:\n{listing}"
    );

    let vs = v.to_str().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(args)
            .env_remove("MINDEX_VAULT")
            .env_remove("MINDEX_INDEX_DIR")
            .output()
            .unwrap()
    };
    assert!(run(&["--vault", vs, "update"]).status.success());
    let out = run(&["--vault", vs, "audit", "--json"]);
    assert!(out.status.success());
    let audit: Value = serde_json::from_slice(&out.stdout).unwrap();
    let orphans = audit["orphans"].as_array().unwrap();
    for infra in ["CLAUDE.md", "GEMINI.md", "AGENTS.md", "Home.md"] {
        assert!(
            !orphans.iter().any(|o| o == infra),
            "{infra} is an orphan: {orphans:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// from a code repository (issue 38 finding 7)
// ---------------------------------------------------------------------------------------------

/// A code repository named `name` beside `vault` (a git folder), and a runner of `mindex hook`
/// as an agent working there runs it: the vault from `MINDEX_VAULT`, the agent's project folder
/// and the process's folder the repository.
fn code_repo(vault: &Path, name: &str) -> PathBuf {
    let repo = vault.parent().unwrap().join(name);
    fs::create_dir_all(repo.join(".git")).unwrap();
    write(&repo, "src/main.rs", "fn main() {}\n");
    repo
}

fn hook_from(repo: &Path, vault: &Path, event: &str, payload: &Value) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(["hook", event])
        .current_dir(repo)
        .env("MINDEX_VAULT", vault)
        .env("CLAUDE_PROJECT_DIR", repo)
        .env("MINDEX_HOOK_NO_REFRESH", "1")
        .env_remove("MINDEX_CALLER")
        .env_remove("MINDEX_INDEX_DIR")
        .env_remove("CODEX_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("MINDEX_HOOK_DEBUG")
        .env_remove("HOOK_DEBUG")
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
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The briefing's section under `header`, up to the next one.
fn section<'a>(ctx: &'a str, header: &str) -> &'a str {
    let at = ctx
        .find(header)
        .unwrap_or_else(|| panic!("{header}: {ctx}"))
        + header.len();
    let rest = &ctx[at..];
    &rest[..rest.find("\n###").unwrap_or(rest.len())]
}

/// From a code repository the briefing names vault files as vault paths (no `./`, which would
/// be the repository's) under a line saying where the vault is, and lists only the open tasks
/// of the repository's own project: its `projects/<name>/` notes and the `work/active/` notes
/// whose `project:` names it. Inside the vault nothing changes.
#[test]
fn from_a_code_repository_the_briefing_speaks_in_vault_paths_and_of_its_own_project() {
    let (_d, v) = template_vault();
    write(
        &v,
        "projects/Payments/notes/Cutover.md",
        "# Cutover\n- [ ] folder task for payments\n",
    );
    write(
        &v,
        "work/active/Ledger/Ledger Plan.md",
        "---\nprojects: [ledger, payments]\n---\n# Plan\n- [ ] nested task naming payments\n",
    );
    let repo = code_repo(&v, "payments");
    let payload = serde_json::json!({"source": "startup", "cwd": repo});
    let ctx = context(&hook_from(&repo, &v, "session-start", &payload));
    let head = ctx.lines().nth(1).unwrap_or_default();
    assert!(
        head.contains(&format!(
            "Paths are relative to the vault at {}",
            v.display()
        )),
        "{ctx}"
    );
    let listing = section(&ctx, "### Vault File Listing");
    assert!(listing.contains("\nbrain/North Star.md"), "{listing}");
    assert!(listing.lines().all(|l| !l.starts_with("./")), "{listing}");
    let tasks = section(&ctx, "### Open Tasks");
    for own in [
        "Write the reconciliation job",
        "folder task for payments",
        "nested task naming payments",
    ] {
        assert!(tasks.contains(own), "{own}: {tasks}");
    }
    for other in ["iOS parity", "Alice: draft the reconciliation"] {
        assert!(!tasks.contains(other), "{other}: {tasks}");
    }
    assert!(tasks.contains("project payments only"), "{tasks}");

    // A repository whose project has no notes gets none of the others' tasks.
    let lone = code_repo(&v, "zephyr");
    let payload = serde_json::json!({"source": "startup", "cwd": lone});
    let ctx = context(&hook_from(&lone, &v, "session-start", &payload));
    let tasks = section(&ctx, "### Open Tasks");
    assert!(
        tasks.contains("(no open tasks for project zephyr)"),
        "{tasks}"
    );

    // Inside the vault: `./` paths, every task as before, no vault line.
    let ctx = context(&hook(&v, "session-start", &serde_json::json!({})));
    assert!(!ctx.contains("Paths are relative to the vault"), "{ctx}");
    assert!(
        section(&ctx, "### Vault File Listing").contains("\n./brain/North Star.md"),
        "{ctx}"
    );
    let tasks = section(&ctx, "### Open Tasks");
    assert!(
        tasks.contains("iOS parity") && tasks.contains("Write the reconciliation job"),
        "{tasks}"
    );
    // An agent whose payload says it works inside the vault is briefed as inside.
    let payload = serde_json::json!({"cwd": v.join("brain")});
    let ctx = context(&hook_from(&repo, &v, "session-start", &payload));
    assert!(!ctx.contains("Paths are relative to the vault"), "{ctx}");
}

/// From a code repository the decision hint says to record it in the vault (naming it and
/// the command that files there), not in a `work/active/` the agent would create in the
/// repository; inside the vault it reads as before.
#[test]
fn from_a_code_repository_the_decision_hint_points_into_the_vault() {
    let (_d, v) = template_vault();
    let repo = code_repo(&v, "atlas");
    let p = serde_json::json!({"prompt": "we decided to use Postgres", "cwd": repo});
    let ctx = context(&hook_from(&repo, &v, "user-prompt", &p));
    assert!(
        ctx.contains(&format!("Record it in the vault at {}", v.display())),
        "{ctx}"
    );
    assert!(
        ctx.contains("mindex record-work --decision-record"),
        "{ctx}"
    );
    assert!(
        !ctx.contains("Record it as a Decision Record in work/active/"),
        "{ctx}"
    );
    assert!(ctx.contains("not in this repository"), "{ctx}");
    let inside = context(&hook(
        &v,
        "user-prompt",
        &serde_json::json!({"prompt": "we decided to use Postgres"}),
    ));
    assert!(
        inside.contains("Record it as a Decision Record in work/active/"),
        "{inside}"
    );
    assert!(!inside.contains("in the vault at"), "{inside}");
}
