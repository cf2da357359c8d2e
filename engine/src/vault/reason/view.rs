//! The read-only view a `reason` session runs in.
//!
//! A fresh temporary folder outside the vault (under [`std::env::temp_dir`]) holding copies of
//! exactly the notes the exposure policy serves ([`Exposure::visible_files`]), at their
//! vault-relative paths, files mode 0444 and folders 0555. The agent's working directory is the
//! view, so what it may read is decided by what was copied, not by the prompt: private notes,
//! notes outside the exposed roots, the memory store and the index are simply not there. The
//! folder is removed when the [`View`] is dropped (after the session, on every error path, and
//! while unwinding from a panic).

use std::fs;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use crate::exposure::{Exposure, is_private};

/// The most note bytes a `reason` session's view copies (64 MiB): far above a real vault's
/// exposed notes (a 10,000-note vault of 3 KB notes is 30 MB), low enough that a session never
/// fills the temporary folder. A bigger exposed vault is refused, naming this limit.
pub const REASON_VIEW_CAP: u64 = 64 << 20;

/// Why a view could not be built.
#[derive(Debug)]
pub(crate) enum ViewError {
    /// The exposed notes total more than the cap.
    TooBig { bytes: u64, limit: u64 },
    /// The temporary folder could not be written (or lies inside the vault).
    Io(String),
}

impl std::fmt::Display for ViewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ViewError::TooBig { bytes, limit } => write!(
                f,
                "the exposed notes total {} bytes ({:.1} MiB), over the {} bytes ({} MiB) a reasoning session may copy",
                bytes,
                *bytes as f64 / (1u64 << 20) as f64,
                limit,
                limit >> 20
            ),
            ViewError::Io(e) => f.write_str(e),
        }
    }
}

/// A built view; removed on drop.
#[derive(Debug)]
pub(crate) struct View {
    /// The private temporary folder (mode 0500 once built) holding `vault/` and the config.
    base: PathBuf,
    /// The agent's working directory: the copies, at their vault-relative paths.
    root: PathBuf,
    /// The isolation MCP config (`{"mcpServers":{}}`) beside the view.
    mcp_config: PathBuf,
    /// Notes copied.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
}

impl View {
    /// Copies every note `ex` serves into a fresh folder under the system temp dir.
    pub(crate) fn build(ex: &Exposure, cap: u64) -> Result<View, ViewError> {
        Self::build_in(ex, cap, &std::env::temp_dir())
    }

    /// [`View::build`] under `tmp`.
    pub(crate) fn build_in(ex: &Exposure, cap: u64, tmp: &Path) -> Result<View, ViewError> {
        // Plan first: nothing is copied when the total is over the cap.
        let mut planned: Vec<(String, PathBuf)> = Vec::new();
        let mut total: u64 = 0;
        for f in ex.visible_files() {
            let Ok(real) = ex.may_read(&f.rel) else {
                continue;
            };
            let Ok(md) = fs::metadata(&real) else {
                continue;
            };
            if !md.is_file() {
                continue;
            }
            total = total.saturating_add(md.len());
            planned.push((f.rel, real));
        }
        if total > cap {
            return Err(ViewError::TooBig {
                bytes: total,
                limit: cap,
            });
        }
        let io = |what: &str, p: &Path, e: std::io::Error| {
            ViewError::Io(format!("{what} {}: {e}", p.display()))
        };
        let base = tempfile::Builder::new()
            .prefix("mindex-reason-")
            .tempdir_in(tmp)
            .map_err(|e| io("cannot create a temporary folder in", tmp, e))?
            .keep();
        // From here on, dropping `view` removes everything written.
        let mut view = View {
            root: base.join("vault"),
            mcp_config: base.join("no-mcp.json"),
            base,
            files: 0,
            bytes: 0,
        };
        let real_base = fs::canonicalize(&view.base).unwrap_or_else(|_| view.base.clone());
        if real_base.starts_with(ex.vault_root()) {
            return Err(ViewError::Io(format!(
                "the temporary folder {} lies inside the vault; set TMPDIR to a folder outside it",
                real_base.display()
            )));
        }
        fs::create_dir(&view.root).map_err(|e| io("cannot create", &view.root, e))?;
        let mut left = cap;
        for (rel, real) in planned {
            let Ok(file) = fs::File::open(&real) else {
                continue;
            };
            let mut bytes = Vec::new();
            file.take(left.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(|e| io("cannot read", &real, e))?;
            if bytes.len() as u64 > left {
                // The notes grew since they were measured.
                return Err(ViewError::TooBig {
                    bytes: cap.saturating_add(1),
                    limit: cap,
                });
            }
            // Re-checked on the bytes copied: a note made private since the listing stays out.
            if is_private(&String::from_utf8_lossy(&bytes)) {
                continue;
            }
            let dest = view.root.join(&rel);
            if let Some(parent) = dest.parent() {
                fs::create_dir_all(parent).map_err(|e| io("cannot create", parent, e))?;
            }
            write_read_only(&dest, &bytes)?;
            left -= bytes.len() as u64;
            view.files += 1;
            view.bytes += bytes.len() as u64;
        }
        write_read_only(&view.mcp_config, br#"{"mcpServers":{}}"#)?;
        seal_dirs(&view.root).map_err(|e| io("cannot seal", &view.root, e))?;
        set_mode(&view.base, 0o500).map_err(|e| io("cannot seal", &view.base, e))?;
        Ok(view)
    }

    /// The agent's working directory.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The isolation MCP config.
    pub(crate) fn mcp_config(&self) -> &Path {
        &self.mcp_config
    }
}

impl Drop for View {
    fn drop(&mut self) {
        unseal(&self.base);
        let _ = fs::remove_dir_all(&self.base);
    }
}

fn write_read_only(dest: &Path, bytes: &[u8]) -> Result<(), ViewError> {
    let err = |e: std::io::Error| ViewError::Io(format!("cannot write {}: {e}", dest.display()));
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dest)
        .map_err(err)?;
    f.write_all(bytes).map_err(err)?;
    drop(f);
    set_mode(dest, 0o444).map_err(err)
}

fn set_mode(p: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs::set_permissions(p, fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let mut perm = fs::metadata(p)?.permissions();
        perm.set_readonly(mode & 0o200 == 0);
        fs::set_permissions(p, perm)
    }
}

/// Sets every folder under (and including) `dir` to 0555, deepest first.
fn seal_dirs(dir: &Path) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            seal_dirs(&entry.path())?;
        }
    }
    set_mode(dir, 0o555)
}

/// Makes every folder under `dir` writable again (never following symlinks) so it can be removed.
fn unseal(dir: &Path) {
    let is_dir = fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_dir());
    if !is_dir {
        return;
    }
    let _ = set_mode(dir, 0o700);
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                unseal(&entry.path());
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn vault() -> (tempfile::TempDir, Exposure) {
        let d = tempfile::tempdir().unwrap();
        let v = d.path().join("vault");
        fs::create_dir_all(v.join("brain/deep")).unwrap();
        fs::create_dir_all(v.join("thinking")).unwrap();
        fs::create_dir_all(v.join("memories/2026/01")).unwrap();
        fs::write(v.join("brain/Open.md"), "# Open\n\nOPEN-TEXT\n").unwrap();
        fs::write(v.join("brain/deep/Nested.md"), "# Nested\n\nNESTED-TEXT\n").unwrap();
        fs::write(
            v.join("brain/Secret Plan.md"),
            "---\nprivate: true\n---\n# Secret\n\nSECRET-TEXT\n",
        )
        .unwrap();
        fs::write(v.join("thinking/Outside.md"), "OUTSIDE-TEXT\n").unwrap();
        fs::write(v.join("memories/2026/01/m.md"), "MEMORY-TEXT\n").unwrap();
        let ex = Exposure::with_roots(&v, vec!["brain".into()], vec![], "memories");
        (d, ex)
    }

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn the_view_holds_exactly_the_exposed_notes_read_only_and_is_removed_on_drop() {
        let (d, ex) = vault();
        let tmp = d.path().join("tmp");
        fs::create_dir(&tmp).unwrap();
        let view = View::build_in(&ex, REASON_VIEW_CAP, &tmp).unwrap();
        let root = view.root().to_path_buf();
        assert!(!root.starts_with(d.path().join("vault")));
        let mut found = Vec::new();
        for e in walkdir(&root) {
            found.push(
                e.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        found.sort();
        assert_eq!(found, ["brain/Open.md", "brain/deep/Nested.md"]);
        assert_eq!(view.files, 2);
        assert_eq!(mode(&root.join("brain/Open.md")), 0o444);
        assert_eq!(mode(&root.join("brain/deep")), 0o555);
        assert_eq!(mode(&root), 0o555);
        assert_eq!(
            fs::read_to_string(view.mcp_config()).unwrap(),
            r#"{"mcpServers":{}}"#
        );
        drop(view);
        assert!(!root.exists(), "the view is removed");
        assert_eq!(
            fs::read_dir(&tmp).unwrap().count(),
            0,
            "nothing left in tmp"
        );
    }

    #[test]
    fn the_view_is_removed_when_a_panic_unwinds() {
        let (d, ex) = vault();
        let tmp = d.path().join("tmp");
        fs::create_dir(&tmp).unwrap();
        let r = std::panic::catch_unwind(|| {
            let _view = View::build_in(&ex, REASON_VIEW_CAP, &tmp).unwrap();
            panic!("boom");
        });
        assert!(r.is_err());
        assert_eq!(
            fs::read_dir(&tmp).unwrap().count(),
            0,
            "nothing left in tmp"
        );
    }

    #[test]
    fn a_vault_over_the_cap_is_refused_naming_the_limit_and_nothing_is_copied() {
        let (d, ex) = vault();
        let tmp = d.path().join("tmp");
        fs::create_dir(&tmp).unwrap();
        let e = View::build_in(&ex, 20, &tmp).unwrap_err();
        assert!(matches!(e, ViewError::TooBig { limit: 20, .. }), "{e:?}");
        let msg = e.to_string();
        assert!(msg.contains("over the 20 bytes"), "{msg}");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "nothing copied");
    }

    #[test]
    fn a_temp_folder_inside_the_vault_is_refused() {
        let (d, ex) = vault();
        let tmp = d.path().join("vault/brain");
        let e = View::build_in(&ex, REASON_VIEW_CAP, &tmp).unwrap_err();
        assert!(e.to_string().contains("lies inside the vault"), "{e}");
        let left: Vec<_> = fs::read_dir(&tmp)
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("mindex-reason-")
            })
            .collect();
        assert!(left.is_empty(), "removed again");
    }

    fn walkdir(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                out.extend(walkdir(&p));
            } else {
                out.push(p);
            }
        }
        out
    }
}
