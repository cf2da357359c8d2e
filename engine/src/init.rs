//! Creating a new vault from the bundled template (`vault-template/` in the repository).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

include!(concat!(env!("OUT_DIR"), "/template.rs"));

/// What [`init_vault`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InitReport {
    /// The vault root.
    pub vault: PathBuf,
    /// Files written, vault-relative.
    pub created: Vec<String>,
    /// Template files left alone because a file already existed there.
    pub kept: Vec<String>,
}

/// Creates a vault at `dest` from the bundled template.
///
/// `dest` must not exist or be an empty folder, unless `merge` is set: then only the template files
/// missing from `dest` are written. An existing file is never overwritten.
pub fn init_vault(dest: &Path, merge: bool) -> Result<InitReport> {
    if dest.exists() {
        if !dest.is_dir() {
            return Err(Error::invalid(
                "dir",
                format!("{} exists and is not a folder", dest.display()),
            ));
        }
        let non_empty = fs::read_dir(dest)
            .map_err(|e| Error::io(dest, e))?
            .next()
            .is_some();
        if non_empty && !merge {
            return Err(Error::invalid(
                "dir",
                format!(
                    "{} is not empty; pass merge (CLI: --merge) to add only the missing template files",
                    dest.display()
                ),
            ));
        }
    }
    fs::create_dir_all(dest).map_err(|e| Error::io(dest, e))?;
    let mut report = InitReport {
        vault: fs::canonicalize(dest).map_err(|e| Error::io(dest, e))?,
        ..InitReport::default()
    };
    for (rel, bytes) in TEMPLATE_FILES {
        let path = dest.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(bytes).map_err(|e| Error::io(&path, e))?;
                report.created.push((*rel).to_string());
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                report.kept.push((*rel).to_string())
            }
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_has_manifest_and_notes() {
        assert!(
            TEMPLATE_FILES
                .iter()
                .any(|(p, _)| *p == "vault-manifest.json")
        );
        assert!(
            TEMPLATE_FILES
                .iter()
                .filter(|(p, _)| p.ends_with(".md"))
                .count()
                >= 5
        );
    }

    #[test]
    fn init_refuses_non_empty_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v");
        let r = init_vault(&v, false).unwrap();
        assert_eq!(r.created.len(), TEMPLATE_FILES.len());
        fs::write(v.join("Home.md"), "mine").unwrap();
        let err = init_vault(&v, false).unwrap_err();
        assert!(err.to_string().contains("not empty"));
        let r = init_vault(&v, true).unwrap();
        assert!(r.created.is_empty());
        assert_eq!(fs::read_to_string(v.join("Home.md")).unwrap(), "mine");
    }
}
