//! Whole-or-nothing file writes, in one place: a reader (in this process or another) sees the
//! old file or the new one, never a mix, and a crash leaves one of them.
//!
//! [`write_replace`] writes a temp file beside the target, syncs it, renames it over the target
//! and syncs the folder. The index state, the vector store's `meta.json`, the hooks' session
//! state and saved Stop reports are written through it. (Memories are created by exclusive
//! hard link and their back-links re-checked before the rename, in `memory/store.rs`; index
//! requests are claimed by unique names, in `vault/pending.rs`.)

use std::fs;
use std::io::Write as _;
use std::path::Path;

use crate::error::{Error, Result};

/// Replaces `path` with `bytes` atomically (see the module docs), creating its folder if needed.
/// Errors name the file or folder that failed.
pub fn write_replace(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?;
    tmp.write_all(bytes).map_err(|e| Error::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| Error::io(tmp.path(), e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_creates_the_folder_and_leaves_no_temp_file() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("a/b/state.json");
        write_replace(&path, b"one").unwrap();
        write_replace(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["state.json"]);
    }

    #[test]
    fn a_failure_names_the_path_and_leaves_what_was_there() {
        let d = tempfile::tempdir().unwrap();
        let blocker = d.path().join("blocker");
        fs::write(&blocker, "x").unwrap();
        let e = write_replace(&blocker.join("state.json"), b"new").unwrap_err();
        assert!(e.to_string().contains("blocker"), "{e}");
        // A folder where the file should go: the rename fails, the folder keeps its content and
        // no temp file is left behind.
        let dir = d.path().join("state.json");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("keep"), "k").unwrap();
        let e = write_replace(&dir, b"new").unwrap_err();
        assert!(e.to_string().contains("state.json"), "{e}");
        assert_eq!(fs::read(dir.join("keep")).unwrap(), b"k");
        let mut names: Vec<_> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["blocker", "state.json"]);
    }
}
