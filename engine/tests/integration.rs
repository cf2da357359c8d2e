//! Integration tests against a real tantivy index on disk.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use mindex::{
    ErrorCode, NoProgress, SearchOptions, Vault, VaultOptions, WarningKind, init::init_vault,
};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn search(v: &Vault, q: &str) -> Vec<String> {
    v.search(q, &SearchOptions::default())
        .unwrap()
        .into_iter()
        .map(|h| h.path)
        .collect()
}

/// Every file under `root` except the index folder, with its bytes and mtime.
fn snapshot(root: &Path) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.file_name().unwrap() == ".mindex" {
                continue;
            }
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() {
                out.insert(
                    p.display().to_string(),
                    (fs::read(&p).unwrap(), m.modified().unwrap()),
                );
            }
        }
    }
    out
}

#[test]
fn sample_vault_update_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("v");
    init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
    let v = Vault::open(&root, VaultOptions::default()).unwrap();
    let r = v.update(&NoProgress).unwrap();
    assert!(r.rebuilt);
    assert!(r.notes >= 10, "{}", r.notes);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // templates/ is excluded by the template's .obsidian/app.json.
    assert!(!r.changes.added.iter().any(|p| p.starts_with("templates/")));

    let hits = v
        .search("connection pool exhausted", &SearchOptions::default())
        .unwrap();
    assert!(!hits.is_empty());
    let top = &hits[0];
    assert!(
        top.path.contains("Checkout outage") || top.path.contains("Gotchas"),
        "{}",
        top.path
    );
    assert!(top.snippet.contains("**"), "{}", top.snippet);
    assert!(top.line_start >= 1 && top.line_end >= top.line_start);
    assert!(top.score > 0.0);
    // One hit per note.
    let mut paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    paths.dedup();
    assert_eq!(paths.len(), hits.len());

    // Title boost: the note titled "Alice Chen" ranks first for her name.
    assert_eq!(search(&v, "alice chen")[0], "org/people/Alice Chen.md");
    // Aliases are searchable.
    assert_eq!(
        search(&v, "ledger migration")[0],
        "work/active/Payments Migration.md"
    );
    // Heading trail is reported.
    let h = v
        .search("reversible rollout", &SearchOptions::default())
        .unwrap();
    assert_eq!(h[0].path, "brain/Patterns.md");
    assert_eq!(h[0].heading, "Patterns > Reversible rollout");
    // In a chunk of merged small sections, the heading and line are those of the match.
    let h = v
        .search("circuit breaker retry storm", &SearchOptions::default())
        .unwrap();
    let g = h.iter().find(|h| h.path == "brain/Gotchas.md").unwrap();
    assert_eq!(g.heading, "Gotchas > Connection pool exhaustion");
    let text = v.get(&g.path, Some(g.line as usize), Some(1)).unwrap().text;
    assert!(
        text.to_lowercase().contains("retry storm") || text.to_lowercase().contains("circuit"),
        "{text}"
    );
    // Query syntax errors never fail.
    assert!(
        v.search("\"unbalanced AND (", &SearchOptions::default())
            .is_ok()
    );
    assert!(v.search("", &SearchOptions::default()).unwrap().is_empty());
}

#[test]
fn incremental_update_reports_exactly_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", "# Alpha\napples and oranges\n");
    write(root, "b.md", "# Beta\nbananas\n");
    write(root, "dir/c.md", "# Gamma\ncherries\n");
    let v = Vault::open(root, VaultOptions::default()).unwrap();
    assert_eq!(v.update(&NoProgress).unwrap().changes.added.len(), 3);

    // Nothing changed: nothing reported. (Re-run twice so racily-clean files settle.)
    std::thread::sleep(std::time::Duration::from_millis(150));
    v.update(&NoProgress).unwrap();
    let r = v.update(&NoProgress).unwrap();
    assert!(r.changes.is_empty(), "{:?}", r.changes);
    assert_eq!(r.unchanged, 3);

    // Edit one note.
    write(root, "a.md", "# Alpha\napples and kiwis\n");
    let r = v.update(&NoProgress).unwrap();
    assert_eq!(r.changes.modified, vec!["a.md"]);
    assert_eq!(r.changes.len(), 1);
    assert_eq!(search(&v, "kiwis"), vec!["a.md"]);
    assert!(search(&v, "oranges").is_empty());

    // Touch without changing content: not reported as changed.
    write(root, "b.md", "# Beta\nbananas\n");
    let r = v.update(&NoProgress).unwrap();
    assert!(r.changes.is_empty(), "{:?}", r.changes);

    // Rename (move) and delete.
    fs::rename(root.join("dir/c.md"), root.join("moved.md")).unwrap();
    fs::remove_file(root.join("b.md")).unwrap();
    let r = v.update(&NoProgress).unwrap();
    assert_eq!(r.changes.removed, vec!["b.md"]);
    assert_eq!(r.changes.renamed.len(), 1);
    assert_eq!(r.changes.renamed[0].from, "dir/c.md");
    assert_eq!(r.changes.renamed[0].to, "moved.md");
    assert!(r.changes.added.is_empty());
    assert!(search(&v, "bananas").is_empty());
    assert_eq!(search(&v, "cherries"), vec!["moved.md"]);
    assert_eq!(r.notes, 2);

    // A second handle (as another process would) sees the same index.
    let v2 = Vault::open(root, VaultOptions::default()).unwrap();
    assert_eq!(search(&v2, "cherries"), vec!["moved.md"]);
    let st = v2.status().unwrap();
    assert_eq!(st.notes, 2);
    assert!(st.indexed);
    assert!(st.pending.is_empty(), "{:?}", st.pending);
    assert_eq!(st.last_update.unwrap().changes.removed, vec!["b.md"]);
}

#[test]
fn status_shows_pending_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "a.md", "one");
    let v = Vault::open(root, VaultOptions::default()).unwrap();
    let st = v.status().unwrap();
    assert!(!st.indexed);
    assert_eq!(st.pending.added, vec!["a.md"]);
    v.update(&NoProgress).unwrap();
    write(root, "b.md", "two");
    let st = v.status().unwrap();
    assert_eq!(st.pending.added, vec!["b.md"]);
    assert!(st.index_bytes > 0);
}

#[test]
fn search_before_update_says_run_update() {
    let dir = tempfile::tempdir().unwrap();
    let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    let e = v.search("x", &SearchOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::IndexMissing);
    assert!(e.to_string().contains("mindex update"));
}

#[test]
fn bad_input_warns_names_the_file_and_never_stops_the_update() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "good.md", "# Good\nplain searchable zebra\n");
    fs::write(
        root.join("latin1.md"),
        b"# Caf\xe9\nzebra in latin-1 \xff\n",
    )
    .unwrap();
    fs::write(root.join("binary.md"), b"\x89PNG\r\n\x1a\n\0\0\0IHDR zebra").unwrap();
    write(
        root,
        "badyaml.md",
        "---\ntitle: [oops\n---\nzebra with bad yaml\n",
    );
    write(
        root,
        "open.md",
        "---\ntitle: never closed\nzebra open frontmatter\n",
    );
    write(root, "big.md", &"zebra ".repeat(400));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root, root.join("loop")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("outside")).unwrap();
    }
    let before = snapshot(root);
    let opts = VaultOptions {
        max_note_bytes: 1000,
        ..VaultOptions::default()
    };
    let v = Vault::open(root, opts).unwrap();
    let r = v.update(&NoProgress).unwrap();
    let kinds: BTreeMap<&str, WarningKind> = r
        .warnings
        .iter()
        .map(|w| (w.path.as_str(), w.kind))
        .collect();
    assert_eq!(
        kinds.get("latin1.md"),
        Some(&WarningKind::InvalidUtf8),
        "{kinds:?}"
    );
    assert_eq!(kinds.get("binary.md"), Some(&WarningKind::Binary));
    assert_eq!(kinds.get("badyaml.md"), Some(&WarningKind::Frontmatter));
    assert_eq!(kinds.get("open.md"), Some(&WarningKind::Frontmatter));
    assert_eq!(kinds.get("big.md"), Some(&WarningKind::TooLarge));
    #[cfg(unix)]
    {
        assert_eq!(kinds.get("loop"), Some(&WarningKind::SymlinkLoop));
        assert_eq!(kinds.get("outside"), Some(&WarningKind::SymlinkOutside));
    }
    for w in &r.warnings {
        assert!(!w.message.is_empty());
        assert!(w.to_string().starts_with(&w.path));
    }
    // The readable notes are all indexed, the unusable ones are not.
    let mut found = search(&v, "zebra");
    found.sort();
    assert_eq!(found, vec!["badyaml.md", "good.md", "latin1.md", "open.md"]);
    // Warnings are repeated by later updates while the problem lasts, without re-reading.
    let r2 = v.update(&NoProgress).unwrap();
    assert_eq!(r2.warnings.len(), r.warnings.len());
    assert!(r2.changes.is_empty());
    // Nothing in the vault was modified.
    assert_eq!(before, snapshot(root));
}

// The unreadable-file case runs as a real process under another user: cli/tests/cli.rs.

#[test]
fn empty_note_is_findable_by_title() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "Quarterly Planning.md", "");
    let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    assert_eq!(search(&v, "quarterly"), vec!["Quarterly Planning.md"]);
}

#[test]
fn get_and_multi_get() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("v");
    init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
    let v = Vault::open(&root, VaultOptions::default()).unwrap();
    let n = v.get("brain/Patterns.md", None, None).unwrap();
    assert_eq!(n.title, "Patterns");
    assert_eq!(n.line_start, 1);
    assert_eq!(n.line_end, n.total_lines);
    // By name, and from a line.
    let n = v.get("Patterns", Some(6), Some(2)).unwrap();
    assert_eq!(n.path, "brain/Patterns.md");
    assert_eq!((n.line_start, n.line_end), (6, 7));
    assert_eq!(n.text, "# Patterns\n");
    // Not found, with suggestions.
    let e = v.get("Patern", None, None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoteNotFound);
    assert!(
        matches!(e, mindex::Error::NoteNotFound { ref suggestions, .. } if suggestions[0] == "brain/Patterns.md")
    );
    let e = v.get("Pattern", None, None).unwrap_err();
    match e {
        mindex::Error::NoteNotFound { suggestions, .. } => {
            assert_eq!(suggestions, vec!["brain/Patterns.md"])
        }
        other => panic!("{other}"),
    }
    // Escapes and hidden files are refused.
    assert_eq!(
        v.get("../etc/passwd", None, None).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        v.get("/etc/passwd", None, None).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        v.get(".obsidian/app.json", None, None).unwrap_err().code(),
        ErrorCode::NoteNotFound
    );
    // Ignored folders are not served.
    assert_eq!(
        v.get("templates/Work Note.md", None, None)
            .unwrap_err()
            .code(),
        ErrorCode::NoteNotFound
    );

    let items = v.multi_get("brain/*.md", None).unwrap();
    assert_eq!(items.len(), 6);
    let items = v.multi_get("work/**/*.md, Home", Some(600)).unwrap();
    let skipped = items
        .iter()
        .filter(|i| matches!(i, mindex::vault::MultiGetItem::Skipped { .. }))
        .count();
    assert!(skipped >= 1);
    assert!(items.len() >= 5);
    assert_eq!(
        v.multi_get("[", None).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
}

#[test]
fn concurrent_update_is_refused_as_busy() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "x");
    let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    // Hold the writer lock through a second handle while updating.
    let v2 = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    struct Block<'a>(&'a Vault);
    impl mindex::Progress for Block<'_> {
        fn start(&self, _: &str, _: u64) {
            let e = self.0.update(&NoProgress).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Busy);
        }
    }
    v.update(&Block(&v2)).unwrap();
}

#[test]
fn changing_chunk_options_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "# A\nsome words\n");
    Vault::open(dir.path(), VaultOptions::default())
        .unwrap()
        .update(&NoProgress)
        .unwrap();
    let mut opts = VaultOptions::default();
    opts.chunking.max_chars = 500;
    let v = Vault::open(dir.path(), opts).unwrap();
    let r = v.update(&NoProgress).unwrap();
    assert!(r.rebuilt);
    assert_eq!(search(&v, "words"), vec!["a.md"]);
}

#[test]
fn corrupt_state_rebuilds_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "# A\nsome words\n");
    let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    fs::write(dir.path().join(".mindex/state.bin"), "{garbage").unwrap();
    let r = v.update(&NoProgress).unwrap();
    assert!(r.rebuilt);
    assert!(r.warnings.iter().any(|w| w.message.contains("rebuilding")));
    assert_eq!(search(&v, "words"), vec!["a.md"]);
}

#[test]
fn an_index_from_before_state_bin_is_rebuilt_and_its_state_json_removed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "# A\nsome words\n");
    let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    let idx = dir.path().join(".mindex");
    fs::rename(idx.join("state.bin"), idx.join("state.json")).unwrap();
    let r = v.update(&NoProgress).unwrap();
    assert!(r.rebuilt);
    assert!(idx.join("state.bin").is_file() && !idx.join("state.json").exists());
    assert_eq!(search(&v, "words"), vec!["a.md"]);
}

#[test]
fn an_open_handle_sees_later_commits_from_another_handle() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "# A\nfirst words\n");
    let writer = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    writer.update(&NoProgress).unwrap();
    let reader = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    assert_eq!(search(&reader, "first"), vec!["a.md"]);
    // Several quick commits: each must become visible to the already-open reader.
    for i in 0..5 {
        write(
            dir.path(),
            &format!("n{i}.md"),
            &format!("# N{i}\nword{i}\n"),
        );
        writer.update(&NoProgress).unwrap();
        assert_eq!(
            search(&reader, &format!("word{i}")),
            vec![format!("n{i}.md")]
        );
    }
}

/// Notes are ranked by their whole text: a note whose query words sit in different sections
/// (different chunks) beats notes holding one of them; the hit shows the chunk that matched
/// best, with a clean snippet; equal scores go by path, whatever order the index holds them in.
#[test]
fn notes_rank_by_whole_text_and_ties_go_by_path() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let filler = "Plain words about the weather and lunch plans. ".repeat(30);
    write(
        root,
        "spread.md",
        &format!(
            "# Spread\n\n## Timeline\n\nThe ledger stalled at noon.\n\n{filler}\n\n## Resolution\n\nWe raised the pool size; see [[Pool Notes#Sizing|pool sizing]].\n\n{filler}\n"
        ),
    );
    write(
        root,
        "only-ledger.md",
        "# Only ledger\n\nThe ledger, the ledger.\n",
    );
    write(root, "only-pool.md", "# Only pool\n\nA pool, a pool.\n");
    // Two notes with the same text: a tie.
    write(root, "tie-b.md", "# Same\n\nquokka marmot\n");
    write(root, "tie-a.md", "# Same\n\nquokka marmot\n");
    let v = Vault::open(root, VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    let hits = v.search("ledger pool", &SearchOptions::default()).unwrap();
    assert_eq!(hits[0].path, "spread.md", "{hits:?}");
    assert!(
        hits[0].chunk > 0,
        "the Resolution chunk shows: {:?}",
        hits[0]
    );
    assert!(
        hits[0].snippet.contains("**pool**") && hits[0].snippet.contains("sizing."),
        "{:?}",
        hits[0].snippet
    );
    assert!(!hits[0].snippet.contains("[[") && !hits[0].snippet.contains("##"));
    assert_eq!(search(&v, "quokka marmot")[..2], ["tie-a.md", "tie-b.md"]);
    // Rewrite tie-a (its documents move to a newer segment): the order holds.
    write(root, "tie-a.md", "# Same\n\nmarmot quokka\n");
    v.update(&NoProgress).unwrap();
    assert_eq!(search(&v, "quokka marmot")[..2], ["tie-a.md", "tie-b.md"]);
    // Frontmatter values are found, and an identifier looked up ranks its note first.
    write(
        root,
        "incident.md",
        "---\nticket: OPS-2291\nowner: Ana\n---\n# Outage\n\nThe sync stalled.\n",
    );
    write(
        root,
        "mention.md",
        "# Ops notes\n\nOPS 2291 and ops-2291-like tickets, ops ops 2291 2291.\n",
    );
    v.update(&NoProgress).unwrap();
    let hits = v.search("OPS-2291", &SearchOptions::default()).unwrap();
    assert_eq!(hits[0].path, "incident.md", "{hits:?}");
    assert!(hits[0].exact);
    assert!(hits.iter().skip(1).all(|h| !h.exact), "{hits:?}");
}
