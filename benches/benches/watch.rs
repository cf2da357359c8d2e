//! Save-to-searchable latency with `mindex watch` running: for each editor save pattern, 100
//! saves of one note in a vault of the sample notes plus `MINDEX_BENCH_NOTES` generated ones
//! (default 1000); each save is timed from just before the editor's first filesystem call until a
//! search (a separate reader, polling every 2 ms) finds the new version. Baseline in the same run:
//! no watcher, `mindex update` run once a second by a loop (what a cron job or a polling hook
//! gives), over 20 saves.
//!
//! Run with `benches/run-watch.sh`. Environment: `MINDEX_BENCH_NOTES`, `MINDEX_BENCH_RUNS`
//! (saves per pattern, default 100).

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mindex::{NoProgress, SearchOptions, Vault, VaultOptions, init::init_vault};
use mindex_benches::{generate_vault, mindex_bin, percentile};

fn note(v: usize) -> String {
    format!(
        "---\ndescription: edited by the bench\ntags: [bench]\n---\n# Target\n\nStable text, and the marker ver{v}x for this version.\n"
    )
}

fn save(pattern: &str, path: &Path, v: usize) {
    let dir = path.parent().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    match pattern {
        "in-place" => fs::write(path, note(v)).unwrap(),
        "temp-then-rename" => {
            let tmp = dir.join(format!(".{name}.tmp"));
            fs::write(&tmp, note(v)).unwrap();
            fs::rename(&tmp, path).unwrap();
        }
        "delete-then-create" => {
            fs::remove_file(path).unwrap();
            fs::write(path, note(v)).unwrap();
        }
        "backup-then-write" => {
            let backup = dir.join(format!("{name}~"));
            fs::rename(path, &backup).unwrap();
            fs::write(path, note(v)).unwrap();
            fs::remove_file(&backup).unwrap();
        }
        _ => unreachable!(),
    }
}

fn wait(reader: &Vault, q: &str, path: &str) -> Duration {
    let t = Instant::now();
    loop {
        let hits = reader.search(q, &SearchOptions::default()).unwrap();
        if hits.iter().any(|h| h.path == path) {
            return t.elapsed();
        }
        if t.elapsed() > Duration::from_secs(30) {
            panic!("{q} never became searchable at {path}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

struct Kill(Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn row(label: &str, t: &mut [f64]) -> f64 {
    t.sort_by(f64::total_cmp);
    let p50 = percentile(t, 50.0);
    println!(
        "| {label} | {} | {p50:.1} ms | {:.1} ms | {:.1} ms |",
        t.len(),
        percentile(t, 95.0),
        t[t.len() - 1]
    );
    t[t.len() - 1]
}

fn main() -> anyhow::Result<()> {
    let notes = mindex_benches::env_usize("MINDEX_BENCH_NOTES", 1000);
    let runs = mindex_benches::env_usize("MINDEX_BENCH_RUNS", 100);
    let bin = mindex_bin()?;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("vault");
    init_vault(&root, &mindex::init::InitOptions::with_samples())?;
    generate_vault(&root.join("reference/generated"), notes, 5)?;
    fs::create_dir_all(root.join("work/moved"))?;
    fs::write(root.join("work/active/Target.md"), note(0))?;
    Vault::open(&root, VaultOptions::default())?.update(&NoProgress)?;
    let reader = Vault::open(&root, VaultOptions::default())?;

    let watcher = Kill(
        Command::new(&bin)
            .args(["watch", "--json", "--vault"])
            .arg(&root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );
    std::thread::sleep(Duration::from_millis(1500)); // its first update and watches are in place
    println!(
        "\nsave → searchable with `mindex watch` running ({notes} generated notes + the sample vault)\n"
    );
    println!("| save pattern | saves | p50 | p95 | max |");
    println!("|---|---|---|---|---|");
    let path = root.join("work/active/Target.md");
    let mut v = 0;
    let mut worst: f64 = 0.0;
    for pattern in [
        "in-place",
        "temp-then-rename",
        "delete-then-create",
        "backup-then-write",
    ] {
        let mut t = Vec::new();
        for _ in 0..runs {
            v += 1;
            let start = Instant::now();
            save(pattern, &path, v);
            let _ = wait(&reader, &format!("ver{v}x"), "work/active/Target.md");
            t.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        worst = worst.max(row(pattern, &mut t));
    }
    // Moves between folders: the note keeps its identity at its new path.
    let mut t = Vec::new();
    for i in 0..runs {
        let (from, to) = if i % 2 == 0 {
            ("work/active/Target.md", "work/moved/Target.md")
        } else {
            ("work/moved/Target.md", "work/active/Target.md")
        };
        let start = Instant::now();
        fs::rename(root.join(from), root.join(to))?;
        let _ = wait(&reader, &format!("ver{v}x"), to);
        t.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    worst = worst.max(row("move between folders", &mut t));
    // Whole-folder renames.
    let mut t = Vec::new();
    let mut at = "work/active".to_string();
    for i in 0..runs {
        let to = if i % 2 == 0 {
            "work/renamed"
        } else {
            "work/active"
        };
        let start = Instant::now();
        fs::rename(root.join(&at), root.join(to))?;
        let _ = wait(&reader, &format!("ver{v}x"), &format!("{to}/Target.md"));
        t.push(start.elapsed().as_secs_f64() * 1000.0);
        at = to.to_string();
    }
    worst = worst.max(row("whole-folder rename", &mut t));
    drop(watcher);

    // Baseline: no watcher; `mindex update` once a second.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let poller = {
        let (bin, root, stop) = (bin.clone(), root.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = Command::new(&bin)
                    .args(["update", "-q", "--vault"])
                    .arg(&root)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };
    let target = format!("{at}/Target.md");
    let mut t = Vec::new();
    for _ in 0..20 {
        v += 1;
        let start = Instant::now();
        save("in-place", &root.join(&target), v);
        let _ = wait(&reader, &format!("ver{v}x"), &target);
        t.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = poller.join();
    let mut base = t.clone();
    row(
        "baseline: no watcher, `mindex update` every second (in-place saves)",
        &mut base,
    );
    println!(
        "\nslowest save with the watcher: {worst:.1} ms (target < 500 ms: {})",
        if worst < 500.0 { "met" } else { "MISSED" }
    );
    Ok(())
}
