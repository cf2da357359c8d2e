//! Index requests waiting for the index writer: `<index>/pending/<ticket>`, one file per request
//! holding vault-relative paths, one per line.
//!
//! A ticket is written whole (temp file, then rename) before its writer asks for the index lock,
//! and removed only after a commit that indexed its paths. Whoever holds the writer indexes every
//! ticket it finds, so concurrent writers share one commit instead of queueing one commit each.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

const DIR: &str = "pending";

/// A ticket read from disk.
#[derive(Debug, Clone)]
pub(crate) struct Ticket {
    pub(crate) path: PathBuf,
    pub(crate) rels: Vec<String>,
}

/// Records `rels` as a new ticket; returns its path.
pub(crate) fn enqueue(index_dir: &Path, rels: &[String]) -> Result<PathBuf> {
    let dir = index_dir.join(DIR);
    fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(&dir)
        .map_err(|e| Error::io(&dir, e))?;
    tmp.write_all(rels.join("\n").as_bytes())
        .map_err(|e| Error::io(tmp.path(), e))?;
    let name = format!(
        "{}-{}-{:016x}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
        xxhash_rust::xxh3::xxh3_64(tmp.path().as_os_str().as_encoded_bytes())
    );
    let path = dir.join(name);
    tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
    Ok(path)
}

/// Every ticket waiting, oldest name first. Temp files are skipped; a ticket naming an unsafe
/// path keeps only its safe lines.
pub(crate) fn list(index_dir: &Path) -> Vec<Ticket> {
    let Ok(entries) = fs::read_dir(index_dir.join(DIR)) else {
        return Vec::new();
    };
    let mut out: Vec<Ticket> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| {
            let text = fs::read_to_string(e.path()).ok()?;
            let rels = text
                .lines()
                .map(str::trim)
                .filter(|l| is_safe_rel(l))
                .map(str::to_string)
                .collect();
            Some(Ticket {
                path: e.path(),
                rels,
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Removes settled tickets (a ticket already gone is fine).
pub(crate) fn remove(tickets: &[Ticket]) {
    for t in tickets {
        let _ = fs::remove_file(&t.path);
    }
}

/// A vault-relative path without `..`, absolute parts or empty segments.
fn is_safe_rel(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.contains('\\')
        && rel
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_round_trip_and_unsafe_lines_are_dropped() {
        let d = tempfile::tempdir().unwrap();
        let a = enqueue(d.path(), &["memories/a.md".into(), "../etc/passwd".into()]).unwrap();
        let b = enqueue(d.path(), &["brain/b.md".into()]).unwrap();
        let all = list(d.path());
        assert_eq!(all.len(), 2);
        let rels: Vec<&String> = all.iter().flat_map(|t| &t.rels).collect();
        assert_eq!(rels, ["memories/a.md", "brain/b.md"]);
        remove(&all[..1]);
        assert!(!a.exists() && b.exists());
        assert!(list(&d.path().join("nowhere")).is_empty());
    }
}
