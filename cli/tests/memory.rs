//! The memory, graph and exposure commands of the `mindex` binary, run as real processes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn mindex(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(args)
        .env_remove("MINDEX_VAULT")
        .env_remove("MINDEX_INDEX_DIR")
        .env_remove("MINDEX_CALLER")
        .current_dir(cwd)
        .output()
        .expect("run mindex")
}

struct Fixture {
    _dir: tempfile::TempDir,
    vault: PathBuf,
    /// A folder outside the vault to run from.
    outside: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        let outside = dir.path().join("elsewhere");
        fs::create_dir_all(&outside).unwrap();
        let out = mindex(
            &["init", "--with-samples", vault.to_str().unwrap()],
            dir.path(),
        );
        assert!(out.status.success());
        // The atlas project's own note declares its platforms.
        fs::write(
            vault.join("work/active/atlas.md"),
            "---\ndescription: The atlas app\nplatforms: [ios]\n---\n# atlas\n\nThe mobile app. See [[Payments Migration]].\n",
        )
        .unwrap();
        let f = Fixture {
            _dir: dir,
            vault,
            outside,
        };
        f.ok(&["update"]);
        f
    }

    fn vs(&self) -> &str {
        self.vault.to_str().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        let mut all = vec!["--vault", self.vs()];
        all.extend_from_slice(args);
        mindex(&all, &self.outside)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_str(&self.ok(&a)).unwrap()
    }

    fn memory_files(&self) -> Vec<String> {
        let mut v = Vec::new();
        let root = self.vault.join("memories");
        let mut stack = vec![root.clone()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    v.push(
                        p.strip_prefix(&root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
        v.sort();
        v
    }
}

const BODY: &str = "Dependencies listed as externals are not bundled, so a patch release of them reaches users without a rebuild of ours.";

#[test]
fn remember_is_searchable_at_once_refuses_duplicates_and_supersedes() {
    let f = Fixture::new();
    let r = f.json(&[
        "remember",
        "--caller",
        "atlas",
        "--title",
        "tsup externals decide what a patch can fix",
        "--body",
        BODY,
        "--confidence",
        "inferred",
    ]);
    assert_eq!(r["recorded"], true);
    assert_eq!(r["indexed"], true);
    let path = r["path"].as_str().unwrap().to_string();
    assert!(
        path.starts_with("memories/")
            && path.ends_with(" tsup externals decide what a patch can fix.md")
    );
    assert_eq!(r["projects"], serde_json::json!(["atlas"]));
    // A capture's `source:` marks it as one; `via:` says which surface wrote it (finding 8).
    let written = fs::read_to_string(f.vault.join(&path)).unwrap();
    assert!(
        written.contains("\nsource: mcp-capture\nvia: cli\n"),
        "{written}"
    );
    // Searchable as soon as `remember` returned, with no `update` in between.
    let s = f.json(&["search", "externals bundled"]);
    assert_eq!(s["results"][0]["path"], path.as_str());

    // The same lesson again is refused with exit status 3 and nothing is written.
    let out = f.run(&[
        "remember",
        "--caller",
        "atlas",
        "--title",
        "tsup externals decide what a patch can fix",
        "--body",
        BODY,
        "--confidence",
        "inferred",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["refusal"]["kind"], "duplicate");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("near-identical memory already exists")
    );
    // In the command line's words (issue 17 finding 8), not the MCP arguments'.
    let said = r["message"].as_str().unwrap();
    assert!(
        said.contains("rerun with --supersedes \"") && said.contains("rerun with --force"),
        "{said}"
    );
    assert!(
        !said.contains("pass supersedes") && !said.contains("force: true"),
        "{said}"
    );
    assert_eq!(f.memory_files().len(), 1);

    // A narrower correction supersedes it: both are kept, the old one back-linked.
    let r = f.json(&[
        "remember", "--caller", "atlas", "--title", "On iOS the externals are bundled anyway",
        "--body", "The iOS build inlines every dependency, so an upstream patch only reaches iOS users after our own release.",
        "--scope", "platform", "--platforms", "ios", "--confidence", "verified",
        "--verification", "Read the iOS bundle manifest.",
        "--supersedes", "TSUP externals decide what a patch can fix",
    ]);
    assert_eq!(
        r["superseded"],
        serde_json::json!(["tsup externals decide what a patch can fix"])
    );
    let old = fs::read_to_string(f.vault.join(&path)).unwrap();
    assert!(
        old.contains("superseded_by: [\"On iOS the externals are bundled anyway\"]"),
        "{old}"
    );
    assert_eq!(f.memory_files().len(), 2);

    // atlas (ios, from its note) sees the correction first, then the original.
    let rc = f.json(&["recall", "--caller", "atlas"]);
    let titles: Vec<&str> = rc["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "On iOS the externals are bundled anyway",
            "tsup externals decide what a patch can fix"
        ]
    );
    assert!(rc["memories"][1]["superseded_by"].as_array().unwrap().len() == 1);
    // harbor sees neither; explain says why without naming the withheld titles.
    let rc = f.json(&["recall", "--caller", "harbor", "--explain"]);
    assert_eq!(rc["memories"].as_array().unwrap().len(), 0);
    assert_eq!(rc["withheld"], 2);
    let text = f.ok(&["recall", "--caller", "harbor", "--explain"]);
    assert!(
        text.contains("No memories are scoped to reach \"harbor\""),
        "{text}"
    );
    assert!(!text.contains("tsup externals"));
    // With a query the order follows relevance, but nothing visible is dropped.
    let rc = f.json(&["recall", "--caller", "atlas", "unrelated words entirely"]);
    assert_eq!(rc["memories"].as_array().unwrap().len(), 2);
    // Health sees the store and the caller's platform.
    let h = f.json(&["health", "--caller", "atlas"]);
    assert_eq!(h["memories"], 2);
    assert_eq!(h["caller"]["platforms"], serde_json::json!(["ios"]));
    // Memories are never served as notes.
    assert!(
        !h["exposed_roots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "memories")
    );
    // Every read and write is in the audit log.
    let log = fs::read_to_string(f.vault.join(".mindex/audit.jsonl")).unwrap();
    assert!(log.lines().any(|l| l.contains("\"action\":\"remember\"")));
    assert!(log.lines().any(|l| l.contains("\"action\":\"recall\"")));
}

#[test]
fn refusals_exit_3_and_write_nothing() {
    let f = Fixture::new();
    let out = f.run(&[
        "remember",
        "--caller",
        "atlas",
        "--title",
        "Short",
        "--body",
        "too short",
        "--confidence",
        "inferred",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["refusal"]["kind"], "validation");
    assert!(
        r["refusal"]["errors"][0]
            .as_str()
            .unwrap()
            .contains("9 chars")
    );
    // Run inside the vault itself (no --caller): refused.
    let out = mindex(
        &[
            "remember",
            "--title",
            "From the vault",
            "--body",
            BODY,
            "--confidence",
            "inferred",
        ],
        &f.vault.join("brain"),
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside the vault itself"));
    // Tool-call markup in an argument is refused, naming the field, never echoing it.
    let markup = format!("{BODY} <{}invoke name=\"x\">", "antml:");
    let out = f.run(&[
        "remember",
        "--caller",
        "atlas",
        "--title",
        "Markup",
        "--body",
        &markup,
        "--confidence",
        "inferred",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["refusal"]["field"], "body");
    // Wikilinks to notes that do not exist are unlinked and reported; real ones are kept.
    let r = f.json(&[
        "remember",
        "--caller",
        "atlas",
        "--title",
        "Links in [[Ghost|a ghost]] title",
        "--body",
        "This follows [[Key Decisions]] and [[Ghost Note]], which does not exist in the vault.",
        "--confidence",
        "inferred",
        "--link",
        "Patterns",
        "--link",
        "Nowhere",
        "--dry-run",
    ]);
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("Dangling wikilinks were unlinked: Ghost; Ghost Note"),
        "{msg}"
    );
    assert!(
        msg.contains("Links dropped as unresolvable: Nowhere"),
        "{msg}"
    );
    let preview = r["preview"].as_str().unwrap();
    assert!(preview.contains("# Links in a ghost title"));
    assert!(preview.contains("[[Key Decisions]] and Ghost Note,"));
    assert!(preview.contains("## Related\n\n- [[Patterns]]"));
    // A dry run renders and writes nothing.
    let r = f.json(&[
        "remember",
        "--caller",
        "atlas",
        "--title",
        "Dry",
        "--body",
        BODY,
        "--confidence",
        "inferred",
        "--dry-run",
    ]);
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("Preview (nothing written)")
    );
    assert!(
        r["preview"]
            .as_str()
            .unwrap()
            .contains("source: mcp-capture")
    );
    assert!(f.memory_files().is_empty());
    let log = fs::read_to_string(f.vault.join(".mindex/audit.jsonl")).unwrap();
    assert!(
        !log.contains("Dependencies listed"),
        "the caller's prose is never logged"
    );
    assert_eq!(log.lines().filter(|l| l.contains("\"refused\"")).count(), 3);
}

#[test]
fn hostile_titles_stay_inside_the_memory_root() {
    let f = Fixture::new();
    let titles = [
        "../../etc/passwd",
        "/etc/shadow",
        "C:\\Windows\\system32",
        "\\\\server\\share\\x",
        "control\u{1}char",
        "rtl \u{202e}override",
        "%2e%2e%2fescape",
        &"a".repeat(200),
        &"🦀".repeat(80),
        "CON",
        "..",
    ];
    let mut written = 0;
    for (i, t) in titles.iter().enumerate() {
        let body = format!("{BODY} Variant number {i} of the hostile title set, {t}.");
        let out = f.run(&[
            "remember",
            "--caller",
            "atlas",
            "--title",
            t,
            "--body",
            &body,
            "--confidence",
            "inferred",
            "--force",
            "--json",
        ]);
        if out.status.success() {
            written += 1;
            let r: Value = serde_json::from_slice(&out.stdout).unwrap();
            let p = r["path"].as_str().unwrap();
            let abs = fs::canonicalize(f.vault.join(p)).unwrap();
            assert!(
                abs.starts_with(fs::canonicalize(f.vault.join("memories")).unwrap()),
                "{t:?} -> {p}"
            );
            assert_eq!(Path::new(p).components().count(), 4, "{p}");
        }
    }
    assert!(written >= 8, "{written}");
    assert!(f.memory_files().iter().all(|m| m.ends_with(".md")));
}

#[test]
fn eight_processes_writing_the_same_title_get_eight_files() {
    let f = Fixture::new();
    let children: Vec<_> = (0..8)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_mindex"))
                .args([
                    "--vault", f.vs(), "remember", "--caller", "atlas", "--json", "--force",
                    "--title", "Concurrent writers share one title",
                    "--body", &format!("Writer {i} found that concurrent writers must never overwrite each other's memory files."),
                    "--confidence", "inferred",
                ])
                .current_dir(&f.outside)
                .env_remove("MINDEX_VAULT")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut paths = std::collections::HashSet::new();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        paths.insert(r["path"].as_str().unwrap().to_string());
    }
    assert_eq!(paths.len(), 8);
    let files = f.memory_files();
    assert_eq!(files.len(), 8, "{files:?}");
    assert!(
        files
            .iter()
            .all(|p| p.ends_with(".md") && !p.contains(".tmp"))
    );
    assert!(files.iter().any(|p| p.ends_with("title (8).md")));
    // Every one is recalled and searchable.
    let rc = f.json(&["recall", "--caller", "atlas"]);
    assert_eq!(rc["memories"].as_array().unwrap().len(), 8);
    let s = f.json(&["search", "--limit", "20", "concurrent writers overwrite"]);
    let found: std::collections::HashSet<&str> = s["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    for p in &paths {
        assert!(found.contains(p.as_str()), "{p} not searchable");
    }
}

#[test]
fn record_work_files_inside_exposed_roots_only() {
    let f = Fixture::new();
    let r = f.json(&[
        "record-work",
        "--caller",
        "atlas",
        "--title",
        "Add the archive command",
        "--summary",
        "Added an archive command that moves finished work notes.",
        "--folder",
        "brain",
        "--informed-by",
        "Gotchas",
        "--informed-by",
        "Ghost Note",
    ]);
    let p = r["path"].as_str().unwrap();
    assert!(
        p.starts_with("brain/") && p.ends_with(" Add the archive command.md"),
        "{p}"
    );
    let text = fs::read_to_string(f.vault.join(p)).unwrap();
    assert!(text.contains("source_repo: 'atlas'"));
    assert!(text.contains("- [[Gotchas]]"));
    assert!(text.contains("- Ghost Note _(no note yet)_"));
    // A second one with the same title takes -2.
    let r2 = f.json(&[
        "record-work",
        "--caller",
        "atlas",
        "--title",
        "Add the archive command",
        "--summary",
        "Again.",
        "--folder",
        "brain",
    ]);
    assert!(
        r2["path"]
            .as_str()
            .unwrap()
            .ends_with(" Add the archive command-2.md")
    );
    let before = fs::read_dir(f.vault.join("work")).unwrap().count();
    for (folder, why) in [
        ("drafts", "not inside an exposed root"),
        ("work/secrets", "not inside an exposed root"),
        ("brain/../work", "traversal"),
        ("brain/../../elsewhere", "traversal"),
        ("memories", "not inside an exposed root"),
    ] {
        let out = f.run(&[
            "record-work",
            "--caller",
            "atlas",
            "--title",
            "T",
            "--summary",
            "S",
            "--folder",
            folder,
        ]);
        assert_eq!(out.status.code(), Some(3), "{folder}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(why),
            "{folder}"
        );
    }
    assert_eq!(fs::read_dir(f.vault.join("work")).unwrap().count(), before);
    assert!(!f.vault.join("work/secrets").exists());
    // Inside a multi-segment root is fine; no folder goes to the inbox; a dry run writes nothing.
    let r = f.json(&[
        "record-work",
        "--caller",
        "atlas",
        "--title",
        "T",
        "--summary",
        "S",
        "--folder",
        "work/active/notes",
    ]);
    assert!(
        r["path"]
            .as_str()
            .unwrap()
            .starts_with("work/active/notes/")
    );
    let r = f.json(&[
        "record-work",
        "--caller",
        "zephyr",
        "--title",
        "Decide",
        "--summary",
        "S",
        "--decision-record",
        "--dry-run",
    ]);
    assert_eq!(r["path"], "inbox/Decision - Decide.md");
    assert!(!f.vault.join("inbox/Decision - Decide.md").exists());
    // No projects/atlas/: beside the project's own note (work/active/atlas.md).
    let r = f.json(&[
        "record-work",
        "--caller",
        "atlas",
        "--title",
        "Decide",
        "--summary",
        "S",
        "--decision-record",
        "--dry-run",
    ]);
    assert_eq!(r["path"], "work/active/Decision - Decide.md");
    assert_eq!(r["route"], "caller-identity");
    assert!(!f.vault.join("work/active/Decision - Decide.md").exists());
    fs::create_dir_all(f.vault.join("projects/Atlas")).unwrap();
    let r = f.json(&[
        "record-work",
        "--caller",
        "atlas",
        "--title",
        "Decide",
        "--summary",
        "S",
        "--decision-record",
    ]);
    assert_eq!(r["path"], "projects/Atlas/decisions/Decision - Decide.md");
    assert_eq!(r["route"], "caller-identity");
}

#[test]
fn expand_audit_and_exposure() {
    let f = Fixture::new();
    let e = f.json(&["expand", "Key Decisions"]);
    assert_eq!(e["path"], "brain/Key Decisions.md");
    let out: Vec<&str> = e["links_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["label"].as_str().unwrap())
        .collect();
    assert!(
        out.contains(&"Payments Migration") && out.contains(&"Patterns"),
        "{out:?}"
    );
    let from: Vec<&str> = e["linked_from"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert!(
        from.contains(&"work/active/Payments Migration.md"),
        "{from:?}"
    );
    // Home.md is not exposed: it never appears, not even as a backlink.
    assert!(!from.iter().any(|p| p.starts_with("Home")));
    // Loose spellings resolve; unknown names suggest.
    assert_eq!(
        f.json(&["expand", "key-decisions"])["path"],
        "brain/Key Decisions.md"
    );
    assert_eq!(
        f.json(&["expand", "vault://note/brain/Key%20Decisions.md"])["path"],
        "brain/Key Decisions.md"
    );
    let out = f.run(&["expand", "Home"]);
    assert!(
        !out.status.success(),
        "Home.md is outside the exposed roots"
    );
    // A private note is never expanded.
    fs::write(
        f.vault.join("brain/Secret.md"),
        "---\ntags: [private]\n---\n# Secret\n",
    )
    .unwrap();
    assert!(!f.run(&["expand", "Secret"]).status.success());

    // Audit: a broken link and an orphan.
    fs::write(
        f.vault.join("work/active/Lonely.md"),
        "# Lonely\n\nSee [[Nowhere Note]] and ![[diagram.png]].\n",
    )
    .unwrap();
    f.ok(&["update"]);
    let a = f.json(&["audit"]);
    let broken: Vec<(&str, &str)> = a["broken"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["from"].as_str().unwrap(), b["target"].as_str().unwrap()))
        .collect();
    assert!(
        broken.contains(&("work/active/Lonely.md", "Nowhere Note")),
        "{broken:?}"
    );
    assert!(!broken.iter().any(|(_, t)| t.ends_with(".png")));
    let orphans: Vec<&str> = a["orphans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert!(orphans.contains(&"work/active/Lonely.md"));
    assert!(!orphans.contains(&"brain/Key Decisions.md"));
}

#[test]
fn promoted_memories_serve_the_promoted_text() {
    let f = Fixture::new();
    fs::write(
        f.vault.join("brain/Gotchas - Promoted.md"),
        "---\ndescription: promoted lessons\n---\n# Gotchas - Promoted\n\nRetries must reuse the idempotency key of the first attempt. ^om-corrected\n\nAn unrelated paragraph.\n",
    )
    .unwrap();
    let write = |title: &str, marker: &str| {
        let r = f.json(&[
            "remember",
            "--caller",
            "atlas",
            "--title",
            title,
            "--body",
            &format!("{title}: the capture body says something stale about retries and keys."),
            "--confidence",
            "inferred",
            "--force",
        ]);
        let rel = r["path"].as_str().unwrap().to_string();
        let p = f.vault.join(&rel);
        let text = fs::read_to_string(&p).unwrap();
        fs::write(
            &p,
            text.replacen(
                "confidence:",
                &format!("promoted: \"{marker}\"\nconfidence:"),
                1,
            ),
        )
        .unwrap();
        rel
    };
    let served = write("Served one", "brain/Gotchas - Promoted#^om-corrected");
    let outside = write("Outside one", "drafts/Sarah#^x");
    let bare = write("Bare one", "brain/Gotchas - Promoted");
    let stale = write("Stale one", "brain/Gotchas - Promoted#^om-gone");
    // A private note inside an exposed root, and a missing one: an agent gets one answer for
    // both, so a marker cannot tell it whether a hidden note exists.
    fs::write(
        f.vault.join("brain/Private Target.md"),
        "---\nprivate: true\n---\n# Private Target\n\nPRIVATEBLOCK text. ^sec1\n",
    )
    .unwrap();
    let private = write("Private one", "brain/Private Target#^sec1");
    let missing = write("Missing one", "brain/Missing Target#^sec1");
    let rc = f.json(&["recall", "--caller", "atlas"]);
    let by_path = |p: &str| {
        rc["memories"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["path"] == p)
            .unwrap()
            .clone()
    };
    assert_eq!(by_path(&served)["promotion"]["status"], "served");
    assert!(
        by_path(&served)["promotion"]["text"]
            .as_str()
            .unwrap()
            .contains("reuse the idempotency key")
    );
    assert_eq!(by_path(&outside)["promotion"]["status"], "not_exposed");
    assert_eq!(by_path(&private)["promotion"]["status"], "not_exposed");
    assert_eq!(by_path(&missing)["promotion"]["status"], "not_exposed");
    assert!(!rc.to_string().contains("PRIVATEBLOCK"));
    assert_eq!(by_path(&bare)["promotion"]["status"], "no_anchor");
    assert_eq!(by_path(&stale)["promotion"]["status"], "stale_anchor");
    let text = f.ok(&["recall", "--caller", "atlas"]);
    assert!(
        text.contains("promoted text from brain/Gotchas - Promoted#^om-corrected"),
        "{text}"
    );
    assert!(text.contains("Retries must reuse the idempotency key of the first attempt."));
    assert!(
        !text.contains("Served one: the capture body"),
        "the stale body is never shown when served"
    );
    assert!(text.contains("which agents may not read (capture body shown)"));
    assert!(text.contains("no anchor; capture body shown"));
    assert!(text.contains("anchor ^om-gone STALE"));
    assert!(text.contains("The promoted note wins on any conflict"));
    // Health warns about the broken ones (naming the capture), never about the bare marker.
    let h = f.json(&["health", "--caller", "atlas"]);
    assert_eq!(h["promotions_served"], 1);
    assert_eq!(h["promotions_named_only"], 1);
    let warnings = h["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains(&stale))
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains(&outside))
    );
    assert!(!warnings.iter().any(|w| w.as_str().unwrap().contains(&bare)));
    assert!(
        f.ok(&["health", "--caller", "atlas"])
            .contains("Promotions: 1 servable, 1 named only (add an anchor")
    );
}

/// Runs `mindex --vault V args` from outside the vault with `stdin` piped in.
fn with_stdin(f: &Fixture, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .arg("--vault")
        .arg(&f.vault)
        .args(args)
        .env_remove("MINDEX_VAULT")
        .env_remove("MINDEX_INDEX_DIR")
        .env_remove("MINDEX_CALLER")
        .current_dir(&f.outside)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn oversized_memories_and_work_notes_are_refused_with_the_limit() {
    let f = Fixture::new();
    let body = BODY.repeat(20 * 1024 * 1024 / BODY.len());
    let out = with_stdin(
        &f,
        &[
            "remember",
            "--caller",
            "atlas",
            "--title",
            "Externals",
            "--body",
            "-",
            "--confidence",
            "inferred",
            "--json",
        ],
        body.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["refusal"]["kind"], "validation");
    let e = r["refusal"]["errors"][0].as_str().unwrap();
    assert!(
        e.starts_with(&format!(
            "body is {} bytes; the limit is 32768 bytes (32 KiB).",
            body.len()
        )),
        "{e}"
    );
    assert!(f.memory_files().is_empty(), "nothing written");

    let summary = "Moved the ledger. ".repeat(300 * 1024 / 18);
    let out = with_stdin(
        &f,
        &[
            "record-work",
            "--caller",
            "atlas",
            "--title",
            "Ledger move",
            "--summary",
            "-",
        ],
        summary.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("(largest field: summary, ")
            && err.contains("the limit for one note is 262144 bytes (256 KiB)"),
        "{err}"
    );
    assert!(!f.vault.join("projects").exists());
    let filed = fs::read_dir(f.vault.join("inbox"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".md"))
        .count();
    assert_eq!(filed, 0);
}
