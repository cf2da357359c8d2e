//! Reliability against real processes: a damaged index is detected and rebuilt from the vault;
//! `update` and `remember` killed with SIGKILL at many points leave a consistent vault and index.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/run.rs"]
mod run;
use run::mindex;

/// Never a panic (exit 101) or a signal, whatever happened to the index.
fn no_crash(out: &Output, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code().is_some()
            && out.status.code() != Some(101)
            && !stderr.contains("panicked"),
        "{what}: crashed ({:?}): {stderr}",
        out.status
    );
}

/// Queries whose answers do not depend on how ties are broken: words only a few notes share, and
/// tokens unique to one generated note.
const QUERIES: &[&str] = &[
    "connection pool exhausted",
    "alice chen",
    "north star",
    "idempotency",
    "n17tok",
    "n777tok",
    "n1299tok",
];

/// The `field` of every hit `command` (`search`, `vsearch`) returns for `q` (at most `n`), sorted:
/// answers compared without depending on how ties are broken.
fn sorted_hits(
    command: &str,
    n: &str,
    field: &str,
    vault: &Path,
    index: Option<&Path>,
    q: &str,
) -> Vec<String> {
    let mut args = vec![
        command,
        "--json",
        "-n",
        n,
        "--vault",
        vault.to_str().unwrap(),
    ];
    if let Some(i) = index {
        args.extend(["--index", i.to_str().unwrap()]);
    }
    args.push(q);
    let out = mindex(&args);
    // 4: nothing matched (an answer too).
    assert!(
        matches!(out.status.code(), Some(0 | 4)),
        "{command} {q}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut p: Vec<String> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h[field].as_str().unwrap().to_string())
        .collect();
    p.sort();
    p
}

/// The set of paths `search` returns for `q` (up to 200), sorted.
fn paths_for(vault: &Path, index: Option<&Path>, q: &str) -> Vec<String> {
    sorted_hits("search", "200", "path", vault, index, q)
}

fn results(vault: &Path, index: Option<&Path>) -> Vec<Vec<String>> {
    QUERIES.iter().map(|q| paths_for(vault, index, q)).collect()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let t = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &t);
        } else {
            fs::copy(&p, &t).unwrap();
        }
    }
}

fn files_if_any(dir: &Path) -> Vec<PathBuf> {
    if dir.exists() { files(dir) } else { Vec::new() }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// A vault of the sample notes plus `n` generated ones.
fn big_vault(root: &Path, n: usize) {
    mindex::init::init_vault(root, &mindex::init::InitOptions::with_samples()).unwrap();
    let words = [
        "lorem", "quartz", "harbor", "ledger", "retry", "cache", "shard", "replica", "latency",
        "queue", "schema", "deploy", "rollback", "index", "tenant", "token", "batch", "stream",
    ];
    for i in 0..n {
        let mut body = String::new();
        for k in 0..120 {
            body.push_str(words[(i * 7 + k * 13 + k * k) % words.len()]);
            body.push(if k % 17 == 16 { '\n' } else { ' ' });
        }
        let p = root.join(format!("reference/gen/{:02}/Note {i}.md", i % 40));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(
            p,
            format!("---\ndescription: generated note {i}\ntags: [gen]\n---\n# Note {i}\n\n## Part\nn{i}tok {body}\n"),
        )
        .unwrap();
    }
}

#[test]
fn a_damaged_index_is_detected_and_rebuilt_from_the_vault() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    big_vault(&vault, 300);
    let vs = vault.to_str().unwrap();
    assert!(mindex(&["update", "-q", "--vault", vs]).status.success());
    let clean = results(&vault, None);
    assert!(!clean[0].is_empty());
    let index = vault.join(".mindex");
    let pristine = dir.path().join("pristine");
    copy_dir(&index, &pristine);

    let targets: Vec<PathBuf> = files(&pristine)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.ends_with(".lock") && !name.starts_with('.')
        })
        .collect();
    assert!(targets.len() >= 5, "{targets:?}");
    let mut detected = 0;
    let mut cases = 0;
    for target in &targets {
        let rel = target.strip_prefix(&pristine).unwrap();
        for damage in ["truncate", "garble", "empty"] {
            fs::remove_dir_all(&index).unwrap();
            copy_dir(&pristine, &index);
            let p = index.join(rel);
            let bytes = fs::read(&p).unwrap();
            let damaged = match damage {
                "truncate" => bytes[..bytes.len() / 2].to_vec(),
                "garble" => {
                    let mut b = bytes.clone();
                    let mid = b.len() / 2;
                    for x in b.iter_mut().skip(mid.saturating_sub(16)).take(64) {
                        *x ^= 0xA5;
                    }
                    b
                }
                _ => Vec::new(),
            };
            fs::write(&p, damaged).unwrap();
            cases += 1;
            let what = format!("{damage} {}", rel.display());
            // Reading a damaged index: a clear error or correct answers, never a crash.
            let out = mindex(&["search", "--json", "--vault", vs, QUERIES[0]]);
            no_crash(&out, &what);
            if !out.status.success() {
                let e: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
                let msg = e["error"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    msg.contains("update --rebuild") || msg.contains("mindex update"),
                    "{what}: the error says how to recover: {msg}"
                );
            }
            let st = mindex(&["status", "--verify", "--json", "--vault", vs]);
            no_crash(&st, &what);
            let flagged = st.status.success() && {
                let v: Value = serde_json::from_slice(&st.stdout).unwrap();
                !v["damaged"].as_array().unwrap().is_empty() || v["indexed"] == false
            };
            // Detected: a search error naming the cure, or `status` flags it, or the damage
            // did not change a single answer.
            assert!(
                !out.status.success() || flagged || results(&vault, None) == clean,
                "{what}: undetected damage changed the answers"
            );
            if flagged || !out.status.success() {
                detected += 1;
            }
            // The vault alone rebuilds it.
            let r = mindex(&["update", "--rebuild", "-q", "--vault", vs]);
            no_crash(&r, &what);
            assert!(
                r.status.success(),
                "{what}: rebuild failed: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            assert_eq!(
                results(&vault, None),
                clean,
                "{what}: results after the rebuild"
            );
        }
    }
    assert!(
        detected * 2 > cases,
        "damage detected in only {detected} of {cases} cases"
    );
    eprintln!("damage cases: {cases}, detected: {detected}");
}

#[test]
fn a_killed_update_leaves_an_index_that_opens_tells_the_truth_and_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    big_vault(&vault, 1500);
    let vs = vault.to_str().unwrap();
    // The reference: a clean build in a separate index folder.
    let reference = dir.path().join("reference-index");
    let t = Instant::now();
    assert!(
        mindex(&[
            "update",
            "-q",
            "--vault",
            vs,
            "--index",
            reference.to_str().unwrap()
        ])
        .status
        .success()
    );
    let full = t.elapsed();
    let clean = results(&vault, Some(&reference));
    let rounds = 10;
    for k in 0..rounds {
        let incremental = k % 2 == 1;
        let mut revised = Vec::new();
        if incremental {
            // Change a slice of notes, then kill the update that indexes them.
            for i in (k * 37..1500).step_by(9).take(150) {
                let rel = format!("reference/gen/{:02}/Note {i}.md", i % 40);
                let p = vault.join(&rel);
                let mut text = fs::read_to_string(&p).unwrap();
                text.push_str(&format!("\nrev{k}mark.\n"));
                fs::write(&p, text).unwrap();
                revised.push(rel);
            }
            revised.sort();
        } else {
            let _ = fs::remove_dir_all(vault.join(".mindex"));
        }
        let delay = full.mul_f64((k as f64 + 0.5) / rounds as f64);
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(["update", "-q", "--vault", vs])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let what = format!("round {k} (killed after {delay:?})");
        let st = mindex(&["status", "--verify", "--json", "--vault", vs]);
        no_crash(&st, &what);
        if st.status.success() {
            let s: Value = serde_json::from_slice(&st.stdout).unwrap();
            // Truthful: whatever the kill left undone is reported as pending (or not indexed).
            assert!(s["indexed"].is_boolean(), "{what}: {s}");
        }
        let again = mindex(&["update", "-q", "--vault", vs]);
        assert!(
            again.status.success(),
            "{what}: rerun failed: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        let st: Value =
            serde_json::from_slice(&mindex(&["status", "--json", "--vault", vs]).stdout).unwrap();
        assert_eq!(st["indexed"], true, "{what}");
        let pending = &st["pending"];
        for key in ["added", "modified", "removed"] {
            assert_eq!(
                pending[key].as_array().map_or(0, Vec::len),
                0,
                "{what}: {st}"
            );
        }
        // Exactly the revised notes carry this round's mark: nothing stale, nothing lost.
        if incremental {
            assert_eq!(
                paths_for(&vault, None, &format!("rev{k}mark")),
                revised,
                "{what}"
            );
        }
        let clean_now = clean.clone();
        assert_eq!(
            results(&vault, None),
            clean_now,
            "{what}: results differ from a clean build"
        );
    }
    eprintln!(
        "killed update: {rounds} rounds on 1,500 notes (full build {full:?}), all consistent"
    );
}

#[test]
fn a_killed_remember_leaves_the_memory_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    mindex::init::init_vault(&vault, &mindex::init::InitOptions::with_samples()).unwrap();
    let vs = vault.to_str().unwrap();
    assert!(mindex(&["update", "-q", "--vault", vs]).status.success());
    let mut written = 0;
    for k in 0..24u64 {
        let body = format!(
            "Round {k} checks that a killed write leaves nothing torn: marker{k}end is the last word of this body, so a whole file ends with it. marker{k}end"
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args([
                "remember",
                "-q",
                "--vault",
                vs,
                "--caller",
                "atlas",
                "--confidence",
                "inferred",
                "--force",
            ])
            .args(["--title", &format!("Killed write {k}"), "--body", &body])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(k * 3));
        let _ = child.kill();
        let _ = child.wait();
        for p in files_if_any(&vault.join("memories"))
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .contains(&format!("Killed write {k}"))
            })
        {
            let text = fs::read_to_string(&p).unwrap();
            assert!(
                text.contains(&format!("marker{k}end")) && text.starts_with("---\n"),
                "round {k}: a torn memory: {text}"
            );
            written += 1;
        }
    }
    // Every memory that exists is whole, and an update indexes them all.
    assert!(mindex(&["update", "-q", "--vault", vs]).status.success());
    let r = mindex(&[
        "recall", "--json", "-n", "100", "--vault", vs, "--caller", "atlas",
    ]);
    let v: Value = serde_json::from_slice(&r.stdout).unwrap();
    let recalled = v["memories"].as_array().unwrap().len();
    assert_eq!(recalled, written, "every whole memory is recalled");
    eprintln!("killed remember: 24 rounds, {written} memories whole, 0 torn");
    // Temp files of killed writers do not outlive the next write.
    let ok = mindex(&[
        "remember",
        "-q",
        "--vault",
        vs,
        "--caller",
        "atlas",
        "--confidence",
        "inferred",
        "--force",
        "--title",
        "After the kills",
        "--body",
        "A later write sweeps the temp files that killed writers left behind.",
    ]);
    assert!(ok.status.success());
    let temps: Vec<PathBuf> = files(&vault.join("memories"))
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temps.is_empty(), "{temps:?}");
}

/// Four processes search and query in a loop while a fifth updates and remembers: every answer is
/// whole (valid JSON, every hit a real note, the stable note always found), nothing fails, and
/// every memory written is recalled afterwards.
#[test]
fn readers_and_a_writer_under_load() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    big_vault(&vault, 400);
    let vs = vault.to_str().unwrap().to_string();
    assert!(mindex(&["update", "-q", "--vault", &vs]).status.success());
    let stop = Arc::new(AtomicBool::new(false));
    let mut readers = Vec::new();
    for r in 0..4 {
        let (vs, stop, vault) = (vs.clone(), stop.clone(), vault.clone());
        readers.push(std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let args: Vec<&str> = if (n + r) % 2 == 0 {
                    vec![
                        "search",
                        "--json",
                        "-n",
                        "10",
                        "--vault",
                        &vs,
                        "connection pool exhausted",
                    ]
                } else {
                    vec![
                        "query",
                        "--json",
                        "-n",
                        "10",
                        "--vault",
                        &vs,
                        "--lex",
                        "connection pool exhausted",
                    ]
                };
                let out = mindex(&args);
                assert!(
                    out.status.success(),
                    "reader {r}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let v: Value = serde_json::from_slice(&out.stdout).expect("whole JSON");
                let hits = v["results"].as_array().expect("hits");
                let paths: Vec<&str> = hits
                    .iter()
                    .map(|h| h["path"].as_str().or(h["hit"]["path"].as_str()).unwrap())
                    .collect();
                assert!(
                    paths.contains(&"brain/Gotchas.md"),
                    "reader {r}: the stable note went missing: {paths:?}"
                );
                for p in paths {
                    assert!(
                        vault.join(p).is_file(),
                        "reader {r}: a hit for a note that does not exist: {p}"
                    );
                }
                n += 1;
            }
            n
        }));
    }
    let mut titles = Vec::new();
    let t = Instant::now();
    let mut k = 0;
    while t.elapsed() < Duration::from_secs(6) {
        for i in (k * 11..400).step_by(23).take(15) {
            let p = vault.join(format!("reference/gen/{:02}/Note {i}.md", i % 40));
            let mut text = fs::read_to_string(&p).unwrap();
            text.push_str(&format!("\nload{k}mark\n"));
            fs::write(&p, text).unwrap();
        }
        let u = mindex(&["update", "-q", "--vault", &vs]);
        assert!(
            u.status.success(),
            "update: {}",
            String::from_utf8_lossy(&u.stderr)
        );
        let title = format!("Load lesson {k}");
        let body = format!(
            "Under load number {k} the writer records marker load{k}lesson so recall can find it later."
        );
        let r = mindex(&[
            "remember",
            "-q",
            "--vault",
            &vs,
            "--caller",
            "atlas",
            "--confidence",
            "inferred",
            "--force",
            "--title",
            &title,
            "--body",
            &body,
        ]);
        assert!(
            r.status.success(),
            "remember: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        titles.push(title);
        k += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let reads: usize = readers
        .into_iter()
        .map(|h| h.join().expect("a reader failed"))
        .sum();
    assert!(reads >= 8 && k >= 2, "{reads} reads, {k} writes");
    let r = mindex(&[
        "recall", "--json", "-n", "1000", "--vault", &vs, "--caller", "atlas",
    ]);
    let v: Value = serde_json::from_slice(&r.stdout).unwrap();
    let recalled: Vec<&str> = v["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["title"].as_str().unwrap())
        .collect();
    for t in &titles {
        assert!(recalled.contains(&t.as_str()), "{t} was not recalled");
    }
    eprintln!("under load: {reads} reads by 4 processes, {k} update+remember rounds, 0 errors");
}

/// Two `update`s at once: one runs, the other waits a second at most for the writer, then runs
/// or says the index is busy; neither damages the index.
#[test]
fn two_concurrent_updates_never_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    big_vault(&vault, 800);
    let vs = vault.to_str().unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(["update", "--json", "--vault", vs])
            .env_remove("MINDEX_VAULT")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut busy = 0;
    for round in 0..4 {
        if round > 0 {
            for i in (round * 3..800).step_by(7) {
                let p = vault.join(format!("reference/gen/{:02}/Note {i}.md", i % 40));
                let mut text = fs::read_to_string(&p).unwrap();
                text.push_str(&format!("\nround{round}edit\n"));
                fs::write(&p, text).unwrap();
            }
        }
        let (a, b) = (spawn(), spawn());
        for out in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
            no_crash(&out, "concurrent update");
            if !out.status.success() {
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(
                    v["error"]["code"], 14,
                    "only `busy` may stop an update: {v}"
                );
                busy += 1;
            }
        }
        let again = mindex(&["update", "-q", "--vault", vs]);
        assert!(again.status.success());
        let st: Value =
            serde_json::from_slice(&mindex(&["status", "--json", "--vault", vs]).stdout).unwrap();
        assert!(st["damaged"].as_array().unwrap().is_empty(), "{st}");
        assert_eq!(st["pending"]["modified"].as_array().unwrap().len(), 0);
        if round > 0 {
            let hits = paths_for(&vault, None, &format!("round{round}edit"));
            assert_eq!(
                hits.len(),
                (round * 3..800).step_by(7).count().min(200),
                "round {round}"
            );
        }
    }
    eprintln!("two concurrent updates, 4 rounds: {busy} reported busy, 0 corrupt");
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A small tmpfs mounted by the test, unmounted on drop.
struct Tmpfs(PathBuf);
impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        fs::create_dir_all(at).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}
impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Writes fail with a clear error on a full disk, nothing half-written remains, the old index
/// keeps answering, and everything works again once there is room.
#[test]
fn a_full_disk_fails_writes_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let Some(disk) = Tmpfs::mount(&dir.path().join("disk"), "6m") else {
        eprintln!(
            "SKIPPED: this machine cannot mount a tmpfs (needs root): full-disk test not run"
        );
        return;
    };
    let vault = disk.0.join("vault");
    mindex::init::init_vault(&vault, &mindex::init::InitOptions::with_samples()).unwrap();
    let vs = vault.to_str().unwrap();
    assert!(mindex(&["update", "-q", "--vault", vs]).status.success());
    let before = paths_for(&vault, None, "connection pool exhausted");
    let index_files_before = files(&vault.join(".mindex/lexical"));
    // Notes the next update must index, written while there is still room: enough distinct
    // words that their segment does not fit in the room left below.
    fs::write(
        vault.join("reference/New.md"),
        "# New\n\nA quokkaledger note written before the disk filled up.\n",
    )
    .unwrap();
    let mut seed = 7u64;
    for n in 0..30 {
        let mut text = format!("# Bulk {n}\n\n");
        for _ in 0..2500 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.push_str(&format!("w{:x} ", seed >> 40));
        }
        fs::write(vault.join(format!("reference/Bulk {n}.md")), text).unwrap();
    }
    // Fill the disk.
    let filler = disk.0.join("filler");
    {
        use std::io::Write;
        let mut f = fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 * 1024];
        while f.write_all(&block).is_ok() {}
        let _ = f.sync_all();
    }
    let memories_before = files_if_any(&vault.join("memories")).len();
    let r = mindex(&[
        "remember",
        "--json",
        "--vault",
        vs,
        "--caller",
        "atlas",
        "--confidence",
        "inferred",
        "--title",
        "Written on a full disk",
        "--body",
        "This lesson is written while the disk is full, so the write must fail cleanly and leave nothing behind.",
    ]);
    no_crash(&r, "remember on a full disk");
    assert!(
        !r.status.success(),
        "remember cannot succeed on a full disk"
    );
    let e: Value = serde_json::from_slice(&r.stdout).unwrap();
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(
        msg.to_lowercase().contains("no space"),
        "a clear error: {msg}"
    );
    let after: Vec<PathBuf> = files_if_any(&vault.join("memories"));
    assert_eq!(
        after.len(),
        memories_before,
        "nothing half-written: {after:?}"
    );
    // An update that needs room fails clearly, naming the real cure; it is rolled back (no
    // orphaned segment files, though it ran out of room half-way through writing them); the
    // old index still answers.
    {
        let f = fs::OpenOptions::new().write(true).open(&filler).unwrap();
        let len = f.metadata().unwrap().len();
        f.set_len(len.saturating_sub(192 * 1024)).unwrap();
    }
    let u = mindex(&["update", "--json", "--vault", vs]);
    no_crash(&u, "update on a full disk");
    assert!(
        !u.status.success(),
        "an update cannot commit on a full disk"
    );
    let e: Value = serde_json::from_slice(&u.stdout).unwrap();
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("No space left on device")
            && msg.contains("free disk space, then run `mindex update` again")
            && !msg.contains("--rebuild"),
        "the error names the cure: {msg}"
    );
    assert_eq!(
        files(&vault.join(".mindex/lexical")),
        index_files_before,
        "the failed update left no segment files behind"
    );
    assert_eq!(paths_for(&vault, None, "connection pool exhausted"), before);
    let st: Value =
        serde_json::from_slice(&mindex(&["status", "--json", "--vault", vs]).stdout).unwrap();
    assert!(st["damaged"].as_array().unwrap().is_empty(), "{st}");
    // Room again: everything works.
    fs::remove_file(&filler).unwrap();
    let u = mindex(&["update", "-q", "--vault", vs]);
    assert!(
        u.status.success(),
        "the rerun with room: {}",
        String::from_utf8_lossy(&u.stderr)
    );
    assert_eq!(
        paths_for(&vault, None, "quokkaledger"),
        ["reference/New.md"],
        "the rerun indexed the note"
    );
    let r = mindex(&[
        "remember",
        "-q",
        "--vault",
        vs,
        "--caller",
        "atlas",
        "--confidence",
        "inferred",
        "--title",
        "Written after the disk was freed",
        "--body",
        "Once there is room again the same write succeeds and the memory is whole and searchable.",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let st: Value =
        serde_json::from_slice(&mindex(&["status", "--json", "--vault", vs]).stdout).unwrap();
    assert!(st["damaged"].as_array().unwrap().is_empty(), "{st}");
}

/// A vault the user cannot write: searches work, writes fail with an error naming the path, and
/// nothing is written.
#[test]
fn a_read_only_vault_refuses_writes_clearly() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    mindex::init::init_vault(&vault, &mindex::init::InitOptions::with_samples()).unwrap();
    let vs = vault.to_str().unwrap();
    assert!(mindex(&["update", "-q", "--vault", vs]).status.success());
    // World-readable, writable by nobody but root; the test then runs mindex as `nobody` (root
    // ignores permissions) or, when not root, takes write permission away from everyone.
    let bin_path = dir.path().join("mindex");
    fs::copy(env!("CARGO_BIN_EXE_mindex"), &bin_path).unwrap();
    let mode = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    mode(dir.path(), 0o755);
    mode(&bin_path, 0o755);
    for p in files(&vault) {
        mode(&p, 0o444);
    }
    let mut dirs = vec![vault.clone()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            }
        }
        mode(&d, 0o555);
    }
    let run = |args: &[&str]| -> Output {
        let mut c = if is_root() {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(&bin_path);
            c
        } else {
            Command::new(&bin_path)
        };
        c.args(args)
            .env_remove("MINDEX_VAULT")
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap()
    };
    let s = run(&[
        "search",
        "--json",
        "--vault",
        vs,
        "connection pool exhausted",
    ]);
    assert!(
        s.status.success(),
        "reading works: {}",
        String::from_utf8_lossy(&s.stderr)
    );
    let r = run(&[
        "remember",
        "--json",
        "--vault",
        vs,
        "--caller",
        "atlas",
        "--confidence",
        "inferred",
        "--title",
        "Read only",
        "--body",
        "A lesson written into a vault nobody may write must fail with a clear error.",
    ]);
    no_crash(&r, "remember in a read-only vault");
    assert!(!r.status.success());
    let e: Value = serde_json::from_slice(&r.stdout).unwrap();
    let msg = e["error"]["message"].as_str().unwrap().to_lowercase();
    assert!(
        msg.contains("permission denied") || msg.contains("read-only"),
        "{msg}"
    );
    assert!(
        msg.contains(&vault.to_string_lossy().to_lowercase()),
        "the error names the path: {msg}"
    );
    assert!(!vault.join("memories").exists(), "nothing written");
    let w = run(&[
        "record-work",
        "--json",
        "--vault",
        vs,
        "--caller",
        "atlas",
        "--title",
        "Nope",
        "--summary",
        "Cannot be written.",
        "--folder",
        "reference",
    ]);
    no_crash(&w, "record-work in a read-only vault");
    assert!(
        !w.status.success() || String::from_utf8_lossy(&w.stdout).contains("\"recorded\":false")
    );
    // Give the folders back so the temp dir can be removed.
    let mut dirs = vec![vault.clone()];
    while let Some(d) = dirs.pop() {
        mode(&d, 0o755);
        for e in fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            }
        }
    }
}

/// `embed` killed at many points: the vector store still opens, a rerun completes, and vector
/// search answers as after an uninterrupted embed.
#[test]
fn a_killed_embed_leaves_vectors_that_open_and_a_rerun_completes() {
    let model = mindex::embed::model_dir(None);
    if !model.join("model.safetensors").exists() {
        eprintln!(
            "SKIPPED: no embedding model at {} (scripts/setup-model.sh installs it)",
            model.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    fs::create_dir_all(vault.join("notes")).unwrap();
    let topics = [
        "database failover",
        "payment retries",
        "mobile offline sync",
        "search latency",
        "hiring plan",
        "incident review",
        "cache invalidation",
        "schema migration",
    ];
    for i in 0..240 {
        let t = topics[i % topics.len()];
        fs::write(
            vault.join(format!("notes/N{i:03}.md")),
            format!("# Note {i}\n\nA short note about {t}, variant {i}.\n"),
        )
        .unwrap();
    }
    let vs = vault.to_str().unwrap();
    assert!(mindex(&["update", "-q", "--vault", vs]).status.success());
    let queries = [
        "how do we fail over the database",
        "what happens when a payment is retried",
        "phone works without network",
    ];
    let vsearch = |index: Option<&Path>| -> Vec<Vec<String>> {
        queries
            .iter()
            .map(|q| sorted_hits("vsearch", "3", "title", &vault, index, q))
            .collect()
    };
    // The reference: an uninterrupted embed into a copy of the index.
    let reference = dir.path().join("reference");
    copy_dir(&vault.join(".mindex"), &reference);
    let t = Instant::now();
    assert!(
        mindex(&[
            "embed",
            "-q",
            "--vault",
            vs,
            "--index",
            reference.to_str().unwrap()
        ])
        .status
        .success()
    );
    let full = t.elapsed();
    let clean = vsearch(Some(&reference));
    for k in 0..6u32 {
        let _ = fs::remove_dir_all(vault.join(".mindex/vectors"));
        let delay = full.mul_f64((f64::from(k) + 0.5) / 6.0);
        let mut child = Command::new(env!("CARGO_BIN_EXE_mindex"))
            .args(["embed", "-q", "--vault", vs])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let what = format!("round {k} (killed after {delay:?})");
        let st = mindex(&["status", "--verify", "--json", "--vault", vs]);
        no_crash(&st, &what);
        assert!(
            st.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&st.stderr)
        );
        let again = mindex(&["embed", "--json", "--vault", vs]);
        assert!(
            again.status.success(),
            "{what}: rerun: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(
            vsearch(None),
            clean,
            "{what}: vector answers differ from an uninterrupted embed"
        );
    }
    eprintln!("killed embed: 6 rounds on 240 notes (full embed {full:?}), all consistent");
}
