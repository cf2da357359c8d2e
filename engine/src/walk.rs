//! Walking a vault: which files are notes.
//!
//! Skipped: every entry whose name starts with `.` (so `.obsidian/`, `.git/`, `.mindex/`), the
//! index folder wherever it is, and paths matched by `.obsidian/app.json` `userIgnoreFilters`.
//! Symlinks are followed only when their target lies inside the vault; a symlink back into a
//! folder already walked is reported as a loop and skipped.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use regex::Regex;

use crate::report::{Warning, WarningKind};

/// A note file found by the walk.
#[derive(Debug, Clone)]
pub struct NoteFile {
    /// Vault-relative path with `/` separators.
    pub rel: String,
    /// Absolute path (through any in-vault symlink).
    pub abs: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
}

/// Obsidian's "Excluded files" (`userIgnoreFilters`): path prefixes, or `/regex/`.
#[derive(Debug, Default, Clone)]
pub struct IgnoreFilters {
    prefixes: Vec<String>,
    regexes: Vec<Regex>,
}

impl IgnoreFilters {
    /// Reads `.obsidian/app.json` under `root`; problems become warnings.
    pub fn load(root: &Path, warnings: &mut Vec<Warning>) -> Self {
        let path = root.join(".obsidian").join("app.json");
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Self::default(),
            Err(e) => {
                warnings.push(config_warning(format!(
                    "cannot read: {e}; no ignore filters applied"
                )));
                return Self::default();
            }
        };
        let value: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                warnings.push(config_warning(format!(
                    "invalid JSON: {e}; no ignore filters applied"
                )));
                return Self::default();
            }
        };
        let mut filters = Vec::new();
        if let Some(items) = value.get("userIgnoreFilters").and_then(|v| v.as_array()) {
            for item in items {
                if let Some(s) = item.as_str() {
                    filters.push(s.to_string());
                }
            }
        }
        Self::from_patterns(&filters, warnings)
    }

    /// Builds filters from Obsidian-style patterns.
    pub fn from_patterns(patterns: &[String], warnings: &mut Vec<Warning>) -> Self {
        let mut out = Self::default();
        for p in patterns {
            let p = p.trim();
            if p.len() > 2 && p.starts_with('/') && p.ends_with('/') {
                match Regex::new(&p[1..p.len() - 1]) {
                    Ok(r) => out.regexes.push(r),
                    Err(e) => warnings.push(config_warning(format!(
                        "ignore filter {p:?} is not a valid regex: {e}"
                    ))),
                }
            } else {
                let p = p.trim_start_matches("./").trim_matches('/');
                if !p.is_empty() {
                    out.prefixes.push(p.to_lowercase());
                }
            }
        }
        out
    }

    /// Whether a vault-relative path (file or folder) is excluded.
    pub fn is_ignored(&self, rel: &str) -> bool {
        let lower = rel.to_lowercase();
        self.prefixes.iter().any(|p| {
            lower == *p
                || (lower.starts_with(p.as_str()) && lower.as_bytes().get(p.len()) == Some(&b'/'))
        }) || self.regexes.iter().any(|r| r.is_match(rel))
    }
}

fn config_warning(message: String) -> Warning {
    Warning {
        path: ".obsidian/app.json".to_string(),
        kind: WarningKind::Config,
        message,
    }
}

fn join_rel(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}/{name}")
    }
}

fn is_markdown(name: &str) -> bool {
    name.len() > 3 && name[name.len() - 3..].eq_ignore_ascii_case(".md")
}

fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

/// Walks `root` and returns every note file, sorted by path, plus the warnings found.
///
/// `skip_dir` is a folder never walked into (the index folder), compared after canonicalising.
pub fn walk_vault(
    root: &Path,
    skip_dir: Option<&Path>,
) -> crate::Result<(Vec<NoteFile>, Vec<Warning>)> {
    let root_canon = fs::canonicalize(root).map_err(|e| crate::Error::VaultNotFound {
        path: root.to_path_buf(),
        detail: e.to_string(),
    })?;
    if !root_canon.is_dir() {
        return Err(crate::Error::VaultNotFound {
            path: root.to_path_buf(),
            detail: "not a folder".into(),
        });
    }
    let skip_canon = skip_dir.and_then(|d| fs::canonicalize(d).ok());
    let mut warnings = Vec::new();
    let filters = IgnoreFilters::load(&root_canon, &mut warnings);
    let mut files = Vec::new();
    let mut visited: HashSet<PathBuf> = HashSet::new();
    visited.insert(root_canon.clone());
    // (vault-relative folder, its real path, the path to read it through)
    let mut stack: Vec<(String, PathBuf, PathBuf)> =
        vec![(String::new(), root_canon.clone(), root.to_path_buf())];

    while let Some((rel_dir, canon_dir, dir)) = stack.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                warnings.push(Warning {
                    path: if rel_dir.is_empty() {
                        ".".into()
                    } else {
                        rel_dir.clone()
                    },
                    kind: WarningKind::Unreadable,
                    message: format!("cannot list folder: {e}"),
                });
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    warnings.push(Warning {
                        path: rel_dir.clone(),
                        kind: WarningKind::Unreadable,
                        message: format!("cannot read folder entry: {e}"),
                    });
                    continue;
                }
            };
            let name_os = entry.file_name();
            let Some(name) = name_os.to_str() else {
                warnings.push(Warning {
                    path: join_rel(&rel_dir, &name_os.to_string_lossy()),
                    kind: WarningKind::InvalidUtf8,
                    message: "file name is not valid UTF-8; skipped".into(),
                });
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let rel = join_rel(&rel_dir, name);
            if filters.is_ignored(&rel) {
                continue;
            }
            let path = entry.path();
            let Ok(ftype) = entry.file_type() else {
                warnings.push(Warning {
                    path: rel,
                    kind: WarningKind::Unreadable,
                    message: "cannot read file type".into(),
                });
                continue;
            };
            let (canon, meta) = if ftype.is_symlink() {
                let target = match fs::canonicalize(&path) {
                    Ok(t) => t,
                    Err(e) => {
                        if is_markdown(name) || path.is_dir() {
                            warnings.push(Warning {
                                path: rel,
                                kind: if e.raw_os_error() == Some(40) {
                                    WarningKind::SymlinkLoop
                                } else {
                                    WarningKind::SymlinkOutside
                                },
                                message: format!("symlink cannot be resolved ({e}); not followed"),
                            });
                        }
                        continue;
                    }
                };
                if !target.starts_with(&root_canon) {
                    if is_markdown(name) || target.is_dir() {
                        warnings.push(Warning {
                            path: rel,
                            kind: WarningKind::SymlinkOutside,
                            message: format!(
                                "symlink points outside the vault ({}); not followed",
                                target.display()
                            ),
                        });
                    }
                    continue;
                }
                match fs::metadata(&target) {
                    Ok(m) => (target, m),
                    Err(e) => {
                        warnings.push(Warning {
                            path: rel,
                            kind: WarningKind::Unreadable,
                            message: format!("cannot stat symlink target: {e}"),
                        });
                        continue;
                    }
                }
            } else {
                match entry.metadata() {
                    Ok(m) => (canon_dir.join(name), m),
                    Err(e) => {
                        warnings.push(Warning {
                            path: rel,
                            kind: WarningKind::Unreadable,
                            message: format!("cannot stat: {e}"),
                        });
                        continue;
                    }
                }
            };
            if meta.is_dir() {
                if skip_canon.as_deref() == Some(canon.as_path()) {
                    continue;
                }
                if !visited.insert(canon.clone()) {
                    warnings.push(Warning {
                        path: rel,
                        kind: WarningKind::SymlinkLoop,
                        message: format!(
                            "symlink loop: {} is already walked; skipped",
                            canon.display()
                        ),
                    });
                    continue;
                }
                stack.push((rel, canon, path));
            } else if is_markdown(name) {
                if !meta.is_file() {
                    warnings.push(Warning {
                        path: rel,
                        kind: WarningKind::NotAFile,
                        message: "not a regular file; skipped".into(),
                    });
                    continue;
                }
                files.push(NoteFile {
                    rel,
                    abs: path,
                    size: meta.len(),
                    mtime_ns: mtime_ns(&meta),
                });
            }
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((files, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[NoteFile]) -> Vec<&str> {
        files.iter().map(|f| f.rel.as_str()).collect()
    }

    #[test]
    fn skips_dot_folders_index_and_non_markdown() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir_all(r.join(".obsidian")).unwrap();
        fs::create_dir_all(r.join(".git")).unwrap();
        fs::create_dir_all(r.join("idx")).unwrap();
        fs::create_dir_all(r.join("a/b")).unwrap();
        fs::write(r.join(".git/x.md"), "x").unwrap();
        fs::write(r.join("idx/x.md"), "x").unwrap();
        fs::write(r.join("a/b/Note.md"), "x").unwrap();
        fs::write(r.join("a/Upper.MD"), "x").unwrap();
        fs::write(r.join("a/pic.png"), "x").unwrap();
        fs::write(r.join(".hidden.md"), "x").unwrap();
        let (files, warnings) = walk_vault(r, Some(&r.join("idx"))).unwrap();
        assert_eq!(names(&files), vec!["a/Upper.MD", "a/b/Note.md"]);
        assert!(warnings.is_empty());
    }

    #[test]
    fn user_ignore_filters() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir_all(r.join(".obsidian")).unwrap();
        fs::write(
            r.join(".obsidian/app.json"),
            r#"{"userIgnoreFilters":["templates/","Archive","/secret-\\d+/"]}"#,
        )
        .unwrap();
        for p in [
            "templates/T.md",
            "Archive/old.md",
            "Archived/keep.md",
            "x/secret-12.md",
            "x/ok.md",
        ] {
            let full = r.join(p);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, "x").unwrap();
        }
        let (files, warnings) = walk_vault(r, None).unwrap();
        assert_eq!(names(&files), vec!["Archived/keep.md", "x/ok.md"]);
        assert!(warnings.is_empty());
    }

    #[test]
    fn bad_app_json_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir_all(r.join(".obsidian")).unwrap();
        fs::write(r.join(".obsidian/app.json"), "{not json").unwrap();
        fs::write(r.join("n.md"), "x").unwrap();
        let (files, warnings) = walk_vault(r, None).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].kind, WarningKind::Config);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_inside_followed_outside_and_loops_not() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "x").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir_all(r.join("real")).unwrap();
        fs::write(r.join("real/n.md"), "x").unwrap();
        symlink(r.join("real"), r.join("linked")).unwrap();
        symlink(r, r.join("real/loop")).unwrap();
        symlink(outside.path(), r.join("out")).unwrap();
        symlink(outside.path().join("secret.md"), r.join("secret.md")).unwrap();
        symlink(r.join("nowhere.md"), r.join("broken.md")).unwrap();
        let (files, warnings) = walk_vault(r, None).unwrap();
        // `real` and `linked` are the same folder: whichever is walked second is the loop.
        let got = names(&files);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0] == "real/n.md" || got[0] == "linked/n.md");
        let kinds: Vec<(String, WarningKind)> =
            warnings.iter().map(|w| (w.path.clone(), w.kind)).collect();
        assert!(
            kinds.contains(&("out".into(), WarningKind::SymlinkOutside)),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("secret.md".into(), WarningKind::SymlinkOutside)),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("broken.md".into(), WarningKind::SymlinkOutside)),
            "{kinds:?}"
        );
        assert!(
            kinds.iter().any(|(_, k)| *k == WarningKind::SymlinkLoop),
            "{kinds:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn fifo_named_md_is_skipped_with_warning() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let fifo = r.join("pipe.md");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !status.map(|s| s.success()).unwrap_or(false) {
            panic!("mkfifo is needed for this test");
        }
        let (files, warnings) = walk_vault(r, None).unwrap();
        assert!(files.is_empty());
        assert_eq!(warnings[0].kind, WarningKind::NotAFile);
        assert_eq!(warnings[0].path, "pipe.md");
    }

    #[test]
    fn missing_root_is_an_error() {
        let err = walk_vault(Path::new("/definitely/not/here"), None).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::VaultNotFound);
    }
}
