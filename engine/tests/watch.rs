//! Watch mode against real filesystem events: every editor save pattern ends up searchable, and
//! a reader running alongside never sees the note missing.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use mindex::{
    NoProgress, SearchOptions, Vault, VaultOptions, watch::WatchEvent, watch::WatchOptions,
};

const SAVES: usize = 8;

fn note(version: usize) -> String {
    format!(
        "---\ndescription: a note edited many ways\n---\n# Target\n\nThe stabletoken stays in every version. This is ver{version}x of the note.\n"
    )
}

fn found(v: &Vault, q: &str) -> Vec<String> {
    v.search(q, &SearchOptions::default())
        .unwrap()
        .into_iter()
        .map(|h| h.path)
        .collect()
}

fn wait_for(v: &Vault, q: &str, path: Option<&str>) {
    let t = Instant::now();
    loop {
        let hits = found(v, q);
        if path.map_or(!hits.is_empty(), |p| hits.iter().any(|h| h == p)) {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{q} never became searchable ({path:?})"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

struct Harness {
    _dir: tempfile::TempDir,
    root: PathBuf,
    reader: Vault,
    stop: Arc<AtomicBool>,
    missing: Arc<AtomicUsize>,
    /// Batches the watcher applied (event-driven updates).
    updates: Arc<AtomicUsize>,
    watcher: Option<std::thread::JoinHandle<()>>,
    checker: Option<std::thread::JoinHandle<usize>>,
}

impl Harness {
    fn new() -> Harness {
        Harness::with(WatchOptions::default(), |_| {})
    }

    /// A harness whose vault `prepare` may change before the watcher starts.
    fn with(opts: WatchOptions, prepare: impl FnOnce(&Path)) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::create_dir_all(root.join("other")).unwrap();
        fs::write(root.join("notes/Target.md"), note(0)).unwrap();
        fs::write(
            root.join("other/Neighbour.md"),
            "# Neighbour\n\nUnrelated text.\n",
        )
        .unwrap();
        Vault::open(&root, VaultOptions::default())
            .unwrap()
            .update(&NoProgress)
            .unwrap();
        prepare(&root);
        let stop = Arc::new(AtomicBool::new(false));
        let updates = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel();
        let watcher = {
            let (root, stop, updates) = (root.clone(), stop.clone(), updates.clone());
            std::thread::spawn(move || {
                let v = Vault::open(&root, VaultOptions::default()).unwrap();
                v.watch(&opts, &stop, &mut |e| {
                    if let WatchEvent::Problem(p) = &e {
                        panic!("watcher problem: {p}");
                    }
                    if matches!(e, WatchEvent::Updated { .. }) {
                        updates.fetch_add(1, Ordering::Relaxed);
                    }
                    let _ = tx.send(matches!(e, WatchEvent::Started { .. }));
                })
                .unwrap();
            })
        };
        while !rx.recv_timeout(Duration::from_secs(20)).unwrap() {}
        let missing = Arc::new(AtomicUsize::new(0));
        let checker = {
            let (root, stop, missing) = (root.clone(), stop.clone(), missing.clone());
            std::thread::spawn(move || {
                let v = Vault::open(&root, VaultOptions::default()).unwrap();
                let mut checks = 0;
                while !stop.load(Ordering::Relaxed) {
                    if found(&v, "stabletoken").is_empty() {
                        missing.fetch_add(1, Ordering::Relaxed);
                    }
                    checks += 1;
                }
                checks
            })
        };
        let reader = Vault::open(&root, VaultOptions::default()).unwrap();
        Harness {
            _dir: dir,
            root,
            reader,
            stop,
            missing,
            updates,
            watcher: Some(watcher),
            checker: Some(checker),
        }
    }

    fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.watcher.take().unwrap().join().expect("watcher thread");
        let checks = self.checker.take().unwrap().join().expect("checker thread");
        assert!(checks > 100, "the reader ran ({checks} checks)");
        assert_eq!(
            self.missing.load(Ordering::Relaxed),
            0,
            "the note was missing for a reader"
        );
    }
}

/// Saves `version` into `path` as the named editor would.
fn save(pattern: &str, path: &Path, version: usize) {
    let dir = path.parent().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    match pattern {
        "in-place" => fs::write(path, note(version)).unwrap(),
        "temp-then-rename" => {
            let tmp = dir.join(format!(".{name}.tmp"));
            fs::write(&tmp, note(version)).unwrap();
            fs::rename(&tmp, path).unwrap();
        }
        "delete-then-create" => {
            fs::remove_file(path).unwrap();
            std::thread::sleep(Duration::from_millis(1));
            fs::write(path, note(version)).unwrap();
        }
        "backup-then-write" => {
            let backup = dir.join(format!("{name}~"));
            fs::rename(path, &backup).unwrap();
            fs::write(path, note(version)).unwrap();
            fs::remove_file(&backup).unwrap();
        }
        other => panic!("unknown pattern {other}"),
    }
}

#[test]
fn every_editor_save_pattern_is_indexed_and_never_drops_the_note() {
    let h = Harness::new();
    let path = h.root.join("notes/Target.md");
    let mut version = 0;
    for pattern in [
        "in-place",
        "temp-then-rename",
        "delete-then-create",
        "backup-then-write",
    ] {
        for _ in 0..SAVES {
            version += 1;
            save(pattern, &path, version);
            wait_for(
                &h.reader,
                &format!("ver{version}x"),
                Some("notes/Target.md"),
            );
        }
    }
    // A burst of saves costs one update, not one per save.
    std::thread::sleep(Duration::from_millis(300));
    let before = h.updates.load(Ordering::Relaxed);
    for _ in 0..20 {
        version += 1;
        fs::write(&path, note(version)).unwrap();
    }
    wait_for(
        &h.reader,
        &format!("ver{version}x"),
        Some("notes/Target.md"),
    );
    std::thread::sleep(Duration::from_millis(300));
    let burst = h.updates.load(Ordering::Relaxed) - before;
    assert!(
        (1..=3).contains(&burst),
        "20 saves in a burst took {burst} updates"
    );
    h.finish();
}

#[test]
fn moves_and_folder_renames_keep_the_note() {
    let h = Harness::new();
    // Moves between folders.
    let (a, b) = (
        h.root.join("notes/Target.md"),
        h.root.join("other/Target.md"),
    );
    for i in 0..SAVES {
        let (from, to, rel) = if i % 2 == 0 {
            (&a, &b, "other/Target.md")
        } else {
            (&b, &a, "notes/Target.md")
        };
        fs::rename(from, to).unwrap();
        wait_for(&h.reader, "stabletoken", Some(rel));
    }
    // Whole-folder renames (the note's folder, with a neighbour inside).
    let (d1, d2) = (h.root.join("notes"), h.root.join("renamed"));
    for i in 0..SAVES {
        let (from, to, rel) = if i % 2 == 0 {
            (&d1, &d2, "renamed/Target.md")
        } else {
            (&d2, &d1, "notes/Target.md")
        };
        fs::rename(from, to).unwrap();
        wait_for(&h.reader, "stabletoken", Some(rel));
    }
    // An edit inside a renamed folder is still seen (the new folder is watched).
    fs::rename(&d1, &d2).unwrap();
    wait_for(&h.reader, "stabletoken", Some("renamed/Target.md"));
    fs::write(d2.join("Target.md"), note(999)).unwrap();
    wait_for(&h.reader, "ver999x", Some("renamed/Target.md"));
    h.finish();
}

fn set_mtime(path: &Path, t: std::time::SystemTime) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// Changes made before the watcher starts are indexed by its first update; an edit that keeps the
/// file's size and mtime (which no stat comparison can see) is found by the periodic re-hash.
#[test]
fn a_late_start_and_a_silent_edit_are_caught() {
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    let silent = |token: &str| format!("# Silent\n\nThe {token} is here.\n");
    let opts = WatchOptions {
        reconcile_every: Duration::from_millis(500),
        ..WatchOptions::default()
    };
    let h = Harness::with(opts, |root| {
        fs::write(
            root.join("notes/Late.md"),
            "# Late\n\nWritten before the watcher: latetoken.\n",
        )
        .unwrap();
    });
    wait_for(&h.reader, "latetoken", Some("notes/Late.md"));

    let p = h.root.join("notes/Silent.md");
    fs::write(&p, silent("firsttokn")).unwrap();
    set_mtime(&p, old);
    wait_for(&h.reader, "firsttokn", Some("notes/Silent.md"));
    // Same length, mtime put back: size and mtime both unchanged.
    fs::write(&p, silent("seconddtk")).unwrap();
    set_mtime(&p, old);
    wait_for(&h.reader, "seconddtk", Some("notes/Silent.md"));
    assert!(found(&h.reader, "firsttokn").is_empty());
    h.finish();
}

/// A watched vault moved away: the watcher stops with a clear error instead of running on, and
/// nothing (no `.mindex/`, no vault folder) is recreated at the old path; a handle still open
/// on the old path refuses to update rather than build an empty index there.
#[test]
fn a_moved_vault_stops_the_watcher_and_nothing_is_recreated_at_the_old_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    fs::create_dir_all(root.join("notes")).unwrap();
    fs::write(root.join("notes/Target.md"), note(0)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let watcher = {
        let (root, stop) = (root.clone(), stop.clone());
        std::thread::spawn(move || {
            let v = Vault::open(&root, VaultOptions::default()).unwrap();
            let r = v.watch(&WatchOptions::default(), &stop, &mut |e| {
                if matches!(e, WatchEvent::Started { .. }) {
                    let _ = tx.send(());
                }
            });
            (v, r)
        })
    };
    rx.recv_timeout(Duration::from_secs(20)).expect("started");
    let moved = dir.path().join("moved-vault");
    fs::rename(&root, &moved).unwrap();
    // Edits at the new place keep coming; the watcher must not follow them to the old path.
    fs::write(moved.join("notes/Target.md"), note(1)).unwrap();
    let t = Instant::now();
    while !watcher.is_finished() {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the watcher kept running after the move"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let (v, r) = watcher.join().unwrap();
    let e = r.expect_err("the watcher stops with an error");
    assert!(matches!(e, mindex::Error::VaultNotFound { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains(&root.display().to_string()) && msg.contains("moved"),
        "{msg}"
    );
    assert!(!root.exists(), "nothing recreated at the old path");
    // The handle on the old path refuses to update, and still creates nothing.
    let e = v.update(&NoProgress).unwrap_err();
    assert!(matches!(e, mindex::Error::VaultNotFound { .. }), "{e:?}");
    assert!(!root.exists());
    stop.store(true, Ordering::Relaxed);
    assert!(
        moved.join(".mindex").is_dir(),
        "the index moved with the vault"
    );
}

/// Events of a vectors-keeping watcher ([`Vault::watch_with`]) running on its own thread.
struct VectorWatch {
    stop: Arc<AtomicBool>,
    events: mpsc::Receiver<String>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl VectorWatch {
    /// Starts watching `root`, loading the model with `load`; returns once the first update ran.
    fn start(
        root: &Path,
        load: impl Fn() -> mindex::Result<Box<dyn mindex::Embedder>> + Send + Sync + 'static,
    ) -> VectorWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, events) = mpsc::channel();
        let handle = {
            let (root, stop) = (root.to_path_buf(), stop.clone());
            std::thread::spawn(move || {
                let v = Vault::open(&root, VaultOptions::default()).unwrap();
                v.watch_with(&WatchOptions::default(), Some(&load), &stop, &mut |e| {
                    let line = match &e {
                        WatchEvent::Problem(p) => panic!("watcher problem: {p}"),
                        WatchEvent::Started { .. } => "started".to_string(),
                        WatchEvent::Updated { report, .. } => format!(
                            "updated {}",
                            report
                                .changes
                                .added
                                .iter()
                                .chain(&report.changes.modified)
                                .cloned()
                                .collect::<Vec<_>>()
                                .join(",")
                        ),
                        WatchEvent::Embedded { report, .. } => {
                            format!("embedded {}", report.embedded)
                        }
                        _ => "other".to_string(),
                    };
                    let _ = tx.send(line);
                })
                .unwrap();
            })
        };
        let w = VectorWatch {
            stop,
            events,
            handle: Some(handle),
        };
        assert_eq!(w.next(), "started");
        w
    }

    fn next(&self) -> String {
        self.events
            .recv_timeout(Duration::from_secs(60))
            .expect("a watch event within 60 s")
    }

    /// Events up to and including the first one starting with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let e = self.next();
            let done = e.starts_with(prefix);
            seen.push(e);
            if done {
                return seen;
            }
        }
    }

    fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.take().unwrap().join().expect("watcher thread");
    }
}

/// A small vault, indexed and embedded with `e`.
fn embedded_vault(e: &dyn mindex::Embedder) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    fs::create_dir_all(root.join("notes")).unwrap();
    for (name, text) in [
        (
            "Deploys",
            "# Deploys\n\nRolling deploys go out behind a feature flag; a failed health check rolls the release back.\n",
        ),
        (
            "Payments",
            "# Payments\n\nCard payments are captured after the order ships; refunds go through the same provider.\n",
        ),
        (
            "Onboarding",
            "# Onboarding\n\nNew engineers pair with a buddy for two weeks and ship a small change on day one.\n",
        ),
    ] {
        fs::write(root.join(format!("notes/{name}.md")), text).unwrap();
    }
    let v = Vault::open(&root, VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    v.vectors().embed(e, &NoProgress).unwrap();
    (dir, root)
}

/// Polls until `cond` holds, for at most 60 s (a bound for a stuck test, not a latency target).
fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{what}: not within 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// With the real model: a note saved while the watcher runs gets its vectors without any
/// `embed`, and a query that shares no word with it finds it through the vector side.
#[test]
fn watch_embeds_a_saved_note_and_it_ranks_by_meaning() {
    let model = || -> mindex::Result<Box<dyn mindex::Embedder>> {
        Ok(Box::new(mindex::BertEmbedder::load(
            &mindex::embed::model_dir(None),
        )?))
    };
    let e = model().unwrap_or_else(|e| panic!("{e}"));
    let (_dir, root) = embedded_vault(e.as_ref());
    let w = VectorWatch::start(&root, model);
    let reader = Vault::open(&root, VaultOptions::default()).unwrap();
    assert_eq!(reader.status().unwrap().missing_vectors, Some(0));
    fs::write(
        root.join("notes/Rebalancing.md"),
        "# Consumer group rebalancing storms\n\nWhen a consumer takes longer than max.poll.interval.ms to process a batch, the broker evicts it and the whole group rebalances. Throughput collapsed during the nightly backfill because every rebalance paused all partitions.\n",
    )
    .unwrap();
    let seen = w.until("embedded");
    // The lexical update came first; the embedding followed it.
    assert!(
        seen.iter()
            .position(|e| e.contains("notes/Rebalancing.md"))
            .is_some_and(|i| i + 1 < seen.len()),
        "{seen:?}"
    );
    assert_eq!(seen.last().unwrap(), "embedded 1", "{seen:?}");
    let st = reader.status().unwrap();
    assert_eq!((st.notes, st.missing_vectors), (4, Some(0)));
    // Not one word of the query is in the note: only its vector can rank it.
    let q = "why did message readers stall on the overnight job";
    let lexical = reader
        .search(q, &SearchOptions::default())
        .unwrap()
        .into_iter()
        .map(|h| h.path)
        .collect::<Vec<_>>();
    assert!(
        !lexical.contains(&"notes/Rebalancing.md".to_string()),
        "{lexical:?}"
    );
    let r = reader
        .query(
            Some(e.as_ref()),
            &mindex::SubQuery::hybrid(q),
            &mindex::QueryOptions {
                explain: true,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(r.notices.is_empty(), "{:?}", r.notices);
    assert_eq!(r.missing_vectors, Some(0));
    let top = &r.hits[0];
    assert_eq!(top.hit.path, "notes/Rebalancing.md", "{:?}", r.hits);
    let explain = top.explain.as_ref().expect("explain");
    assert!(
        explain
            .sources
            .iter()
            .any(|s| s.kind == mindex::SubQueryKind::Vec && s.rank == 1),
        "{explain:?}"
    );
    w.finish();
}

/// A model that blocks inside `embed` until the test opens its gate.
struct GatedEmbedder {
    gate: std::sync::Mutex<mpsc::Receiver<()>>,
    calls: Arc<AtomicUsize>,
}

impl mindex::Embedder for GatedEmbedder {
    fn model_id(&self) -> &str {
        "gated@1"
    }
    fn dim(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> mindex::Result<Vec<Vec<f32>>> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let _ = self.gate.lock().unwrap().recv();
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = [0.1f32; 8];
                v[t.len() % 8] = 1.0;
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

/// Embedding never holds up the index: while the model is stuck embedding one save, the next
/// saves are still searchable within one update each; once it is released, every chunk gets its
/// vector. Without vectors in the vault, the model is never loaded.
#[test]
fn embedding_in_the_background_never_delays_the_lexical_update() {
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    let calls = Arc::new(AtomicUsize::new(0));
    let gated = GatedEmbedder {
        gate: std::sync::Mutex::new(gate_rx),
        calls: calls.clone(),
    };
    // Vectors for the gated model, made with the gate open for the three notes' one call.
    gate_tx.send(()).unwrap();
    let (_dir, root) = embedded_vault(&gated);
    let loaded = Arc::new(AtomicUsize::new(0));
    let slot = std::sync::Mutex::new(Some(gated));
    let w = {
        let loaded = loaded.clone();
        VectorWatch::start(&root, move || {
            loaded.fetch_add(1, Ordering::Relaxed);
            Ok(Box::new(slot.lock().unwrap().take().expect("loaded once")) as Box<_>)
        })
    };
    let reader = Vault::open(&root, VaultOptions::default()).unwrap();
    fs::write(root.join("notes/First.md"), "# First\n\nfirsttoken here.\n").unwrap();
    w.until("updated notes/First.md");
    eventually("the embedding round started", || {
        calls.load(Ordering::Relaxed) == 2
    });
    // The model is now blocked inside embed; saves go on being indexed.
    for i in 0..3 {
        let name = format!("notes/Later{i}.md");
        fs::write(
            root.join(&name),
            format!("# Later {i}\n\nlatertoken{i} here.\n"),
        )
        .unwrap();
        w.until(&format!("updated {name}"));
        assert_eq!(found(&reader, &format!("latertoken{i}")), vec![name]);
    }
    assert_eq!(
        calls.load(Ordering::Relaxed),
        2,
        "still the one blocked call"
    );
    let st = reader.status().unwrap();
    assert_eq!(
        st.missing_vectors,
        Some(4),
        "First and the three Later notes"
    );
    // Release the model: the blocked round (First), then one round for the rest.
    for _ in 0..8 {
        gate_tx.send(()).unwrap();
    }
    eventually("every chunk has a vector", || {
        reader.status().unwrap().missing_vectors == Some(0)
    });
    assert_eq!(loaded.load(Ordering::Relaxed), 1);
    w.finish();

    // A vault without vectors: watching never loads the model.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.md"), "# A\n\nplain\n").unwrap();
    let loads = Arc::new(AtomicUsize::new(0));
    let w = {
        let loads = loads.clone();
        VectorWatch::start(dir.path(), move || {
            loads.fetch_add(1, Ordering::Relaxed);
            Err(mindex::Error::invalid("model", "must not be loaded"))
        })
    };
    fs::write(dir.path().join("b.md"), "# B\n\nbtoken\n").unwrap();
    w.until("updated b.md");
    let v = Vault::open(dir.path(), VaultOptions::default()).unwrap();
    assert_eq!(found(&v, "btoken"), vec!["b.md".to_string()]);
    assert_eq!(v.status().unwrap().missing_vectors, None);
    w.finish();
    assert_eq!(loads.load(Ordering::Relaxed), 0);
    assert!(v.vectors().status().is_none());
}
