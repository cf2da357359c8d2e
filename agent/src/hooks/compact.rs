//! pre-compact: back the session transcript up to `thinking/session-logs/` before the agent
//! compacts the conversation, keeping a bounded number of backups.

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::{HookContext, HookOutcome, LocalTime, Payload};

/// How many transcript backups are kept.
pub const KEEP_BACKUPS: usize = 30;

/// Where the backups go, vault-relative.
pub const SESSION_LOGS: &str = "thinking/session-logs";

pub use mindex::home::transcript_roots;

/// The real path of `given` when it is an agent's transcript: an absolute path without `..`,
/// naming a `.jsonl` (or Gemini's `.json`) regular file whose real path, symlinks resolved, lies
/// under one of `roots` (canonical folders, see [`transcript_roots`]). Anything else (a path
/// into the vault, `/etc/…`, `../../`, a symlink out of the agent's folder) is refused, saying
/// why.
pub fn accept_transcript(given: &str, roots: &[PathBuf]) -> Result<PathBuf, String> {
    let p = Path::new(given);
    if !p.is_absolute() {
        return Err("not an absolute path".into());
    }
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err("the path has `..`".into());
    }
    let ext_ok = |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("jsonl") || e.eq_ignore_ascii_case("json"))
    };
    if !ext_ok(p) {
        return Err("not a .jsonl transcript".into());
    }
    let real = fs::canonicalize(p).map_err(|e| e.to_string())?;
    if !ext_ok(&real) {
        return Err("its real path is not a .jsonl transcript".into());
    }
    if !roots.iter().any(|r| real.starts_with(r)) {
        return Err(format!(
            "{} is not under an agent's transcript folder",
            real.display()
        ));
    }
    if !fs::metadata(&real).map_err(|e| e.to_string())?.is_file() {
        return Err("not a regular file".into());
    }
    Ok(real)
}

pub(crate) fn run(p: &Payload, ctx: &HookContext, out: &mut HookOutcome) {
    if p.is_null() {
        return;
    }
    out.refresh = true;
    let Some(transcript) = p.string(&["transcript_path", "transcriptPath"]) else {
        return;
    };
    let trigger: String = p
        .string(&["trigger"])
        .unwrap_or("unknown")
        .chars()
        .take(32)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let source = match accept_transcript(transcript, &ctx.transcript_roots) {
        Ok(s) => s,
        Err(why) => {
            out.debug
                .push(format!("transcript {transcript:?} refused: {why}"));
            return;
        }
    };
    let dir = ctx.root.join(SESSION_LOGS);
    let stem = format!("session_{trigger}_{}", LocalTime::of(ctx.now).stamp());
    if let Err(e) = backup(&source, &dir, &stem) {
        out.debug
            .push(format!("transcript backup of {}: {e}", source.display()));
        return;
    }
    prune(&dir, KEEP_BACKUPS);
}

/// How many names a backup tries (`stem.jsonl`, `stem-2.jsonl`, …).
const NAME_ATTEMPTS: usize = 100;

/// Copies `source` to `dir/<stem>.jsonl` (or `<stem>-2.jsonl`, … when taken: a backup never
/// replaces another) through a temp file and an exclusive rename (never a half copy). Returns
/// the name used.
fn backup(source: &Path, dir: &Path, stem: &str) -> std::io::Result<String> {
    let mut from = fs::File::open(source)?;
    if !from.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    std::io::copy(&mut from, tmp.as_file_mut())?;
    for n in 1..=NAME_ATTEMPTS {
        let name = if n == 1 {
            format!("{stem}.jsonl")
        } else {
            format!("{stem}-{n}.jsonl")
        };
        match tmp.persist_noclobber(dir.join(&name)) {
            Ok(_) => return Ok(name),
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => tmp = e.file,
            Err(e) => return Err(e.error),
        }
    }
    Err(std::io::Error::other(format!(
        "{NAME_ATTEMPTS} backups named {stem} already"
    )))
}

/// The `session_*.jsonl` backups in `dir`, newest first (by mtime, then name); none when the
/// folder is missing.
pub fn list_backups(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("session_") && n.ends_with(".jsonl")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    found.into_iter().map(|(_, p)| p).collect()
}

/// Deletes all but the `keep` newest backups; returns how many were deleted.
pub fn prune(dir: &Path, keep: usize) -> usize {
    list_backups(dir)
        .into_iter()
        .skip(keep)
        .filter(|p| fs::remove_file(p).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn only_an_agents_transcript_is_accepted() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        let projects = home.join(".claude/projects/p");
        fs::create_dir_all(&projects).unwrap();
        let t = projects.join("s.jsonl");
        fs::write(&t, "{}\n").unwrap();
        fs::write(d.path().join("outside.jsonl"), "{}\n").unwrap();
        fs::write(projects.join("notes.txt"), "x").unwrap();
        std::os::unix::fs::symlink(d.path().join("outside.jsonl"), projects.join("link.jsonl"))
            .unwrap();
        fs::create_dir_all(projects.join("dir.jsonl")).unwrap();
        let roots = vec![fs::canonicalize(home.join(".claude/projects")).unwrap()];
        let real = fs::canonicalize(&t).unwrap();
        assert_eq!(accept_transcript(t.to_str().unwrap(), &roots), Ok(real));
        let cases = [
            ("s.jsonl".to_string(), "not an absolute path"),
            ("../../../etc/hostname".to_string(), "not an absolute path"),
            (format!("{}/../p/s.jsonl", projects.display()), "`..`"),
            ("/etc/hostname".to_string(), "not a .jsonl"),
            (format!("{}/notes.txt", projects.display()), "not a .jsonl"),
            (
                format!("{}/link.jsonl", projects.display()),
                "not under an agent's",
            ),
            (
                format!("{}/outside.jsonl", d.path().display()),
                "not under an agent's",
            ),
            (
                format!("{}/dir.jsonl", projects.display()),
                "not a regular file",
            ),
            (
                format!("{}/missing.jsonl", projects.display()),
                "No such file",
            ),
        ];
        for (given, why) in cases {
            let e = accept_transcript(&given, &roots).unwrap_err();
            assert!(e.contains(why), "{given}: {e}");
        }
        assert!(
            accept_transcript(t.to_str().unwrap(), &[]).is_err(),
            "no roots, nothing"
        );
    }

    #[test]
    fn two_backups_in_one_second_never_overwrite_each_other() {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("t.jsonl");
        let logs = d.path().join("logs");
        let mut names = Vec::new();
        for i in 0..3 {
            fs::write(&src, format!("{{\"n\":{i}}}\n")).unwrap();
            names.push(backup(&src, &logs, "session_manual_20261203_101010").unwrap());
        }
        assert_eq!(
            names,
            [
                "session_manual_20261203_101010.jsonl",
                "session_manual_20261203_101010-2.jsonl",
                "session_manual_20261203_101010-3.jsonl"
            ]
        );
        for (i, n) in names.iter().enumerate() {
            assert_eq!(
                fs::read_to_string(logs.join(n)).unwrap(),
                format!("{{\"n\":{i}}}\n")
            );
        }
        assert_eq!(fs::read_dir(&logs).unwrap().count(), 3, "no temp left");
    }

    #[test]
    fn prune_keeps_the_newest_and_ignores_other_files() {
        let d = tempfile::tempdir().unwrap();
        assert!(list_backups(&d.path().join("missing")).is_empty());
        for i in 0..5u64 {
            let p = d
                .path()
                .join(format!("session_auto_2026120{i}_000000.jsonl"));
            fs::write(&p, "{}").unwrap();
            let t = SystemTime::now() - Duration::from_secs(100 - i);
            fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        fs::write(d.path().join("notes.md"), "x").unwrap();
        let all = list_backups(d.path());
        assert_eq!(all.len(), 5);
        assert!(
            all[0].to_string_lossy().contains("20261204"),
            "newest first"
        );
        assert_eq!(prune(d.path(), 9), 0, "retain >= count is a no-op");
        assert_eq!(prune(d.path(), 2), 3);
        let left: Vec<String> = list_backups(d.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            left,
            [
                "session_auto_20261204_000000.jsonl",
                "session_auto_20261203_000000.jsonl"
            ]
        );
        assert!(d.path().join("notes.md").exists());
    }
}
