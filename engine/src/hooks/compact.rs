//! pre-compact: back the session transcript up to `thinking/session-logs/` before the agent
//! compacts the conversation, keeping a bounded number of backups.

use std::fs;
use std::path::{Path, PathBuf};

use super::{HookContext, HookOutcome, LocalTime, Payload};

/// How many transcript backups are kept.
pub const KEEP_BACKUPS: usize = 30;

/// Where the backups go, vault-relative.
pub const SESSION_LOGS: &str = "thinking/session-logs";

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
    let source = ctx.root.join(transcript);
    let dir = ctx.root.join(SESSION_LOGS);
    let name = format!("session_{trigger}_{}.jsonl", LocalTime::of(ctx.now).stamp());
    if let Err(e) = backup(&source, &dir, &name) {
        out.debug
            .push(format!("transcript backup of {}: {e}", source.display()));
        return;
    }
    prune(&dir, KEEP_BACKUPS);
}

/// Copies `source` to `dir/name` through a temp file and a rename (never a half copy).
fn backup(source: &Path, dir: &Path, name: &str) -> std::io::Result<()> {
    if !fs::metadata(source)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    fs::create_dir_all(dir)?;
    let tmp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(dir)?;
    fs::copy(source, tmp.path())?;
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
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
