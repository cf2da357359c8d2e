//! Walking a vault: the one walker ([`Walk`]) every listing uses, and which files are notes.
//!
//! [`walk_vault`] (indexing) skips every entry whose name starts with `.` (so `.obsidian/`,
//! `.git/`, `.mindex/`), the index folder wherever it is, and paths matched by
//! `.obsidian/app.json` `userIgnoreFilters`. Symlinks are followed only when their target lies
//! inside the vault; a symlink back into a folder already walked is reported as a loop and
//! skipped. The exposure policy's root listing, memory-root discovery and the hooks' tree walk
//! with the same [`Walk`], configured for their own depth and symlink rule.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
#[cfg(not(unix))]
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
        self.prefixes.iter().any(|p| is_within(&lower, p))
            || self.regexes.iter().any(|r| r.is_match(rel))
    }
}

/// Whether the vault-relative path `rel` is `dir` or lies under it (whole segments: `notes-old`
/// is not under `notes`).
pub fn is_within(rel: &str, dir: &str) -> bool {
    rel.starts_with(dir) && (rel.len() == dir.len() || rel.as_bytes()[dir.len()] == b'/')
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
        return name.to_string();
    }
    let mut rel = String::with_capacity(parent.len() + 1 + name.len());
    rel.push_str(parent);
    rel.push('/');
    rel.push_str(name);
    rel
}

#[cfg(not(unix))]
fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

/// What a walk does after visiting an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Go on (into the folder, when the entry is one).
    Continue,
    /// Do not enter this folder (same as `Continue` for a file).
    Skip,
    /// End the walk.
    Stop,
}

/// One folder or regular file met by a [`Walk`].
pub struct WalkEntry<'a> {
    /// Path relative to the walk's root, `/`-separated.
    pub rel: &'a str,
    /// The file name.
    pub name: &'a str,
    /// The path to read it through (a symlink's own path, not its target).
    pub path: &'a Path,
    /// Whether it is a folder (a followed symlink reports its target's kind).
    pub is_dir: bool,
    target_meta: Option<&'a fs::Metadata>,
}

impl std::fmt::Debug for WalkEntry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkEntry")
            .field("rel", &self.rel)
            .field("is_dir", &self.is_dir)
            .finish_non_exhaustive()
    }
}

impl WalkEntry<'_> {
    /// A followed symlink's target's stat (read by the walk); `None` for any other entry (which
    /// [`stat_while_walking`] then stats itself).
    pub fn target_stat(&self) -> Option<FileStat> {
        self.target_meta.map(FileStat::of)
    }
}

/// The one vault walker, with options. Every walk skips entries whose name starts with `.`,
/// names that are not UTF-8 (with a warning), and anything but folders and regular files;
/// visits each folder's entries in name order, depth first; and enters each real folder at
/// most once, so a symlink loop ends (with a warning).
///
/// Symlinks are not followed unless [`Walk::follow_symlinks_within`] names the real folder
/// their target must lie inside; a link elsewhere, or one that cannot be resolved, is skipped
/// with a warning when it looks like a note or a folder.
#[derive(Debug, Clone)]
pub struct Walk<'a> {
    root: &'a Path,
    start: &'a str,
    max_depth: usize,
    within: Option<PathBuf>,
    skip_dir: Option<PathBuf>,
    skip_names: &'a [&'a str],
    filters: Option<&'a IgnoreFilters>,
}

impl<'a> Walk<'a> {
    /// A walk of everything under `root`, at any depth, not following symlinks.
    pub fn new(root: &'a Path) -> Self {
        Walk {
            root,
            start: "",
            max_depth: usize::MAX,
            within: None,
            skip_dir: None,
            skip_names: &[],
            filters: None,
        }
    }

    /// Starts at the folder `rel` under the root (entries keep root-relative paths).
    pub fn start_at(mut self, rel: &'a str) -> Self {
        self.start = rel;
        self
    }

    /// Enters at most `depth` folder levels below the start (0: the start folder only).
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// Follows a symlink when its real target lies inside `boundary` (a canonical path).
    pub fn follow_symlinks_within(mut self, boundary: PathBuf) -> Self {
        self.within = Some(boundary);
        self
    }

    /// Never enters this folder (compared by real path), such as the index folder.
    pub fn skip_dir(mut self, dir: Option<&Path>) -> Self {
        self.skip_dir = dir.and_then(|d| fs::canonicalize(d).ok());
        self
    }

    /// Never enters folders with these names, at any depth.
    pub fn skip_names(mut self, names: &'a [&'a str]) -> Self {
        self.skip_names = names;
        self
    }

    /// Leaves out the paths Obsidian's "Excluded files" match.
    pub fn ignore(mut self, filters: &'a IgnoreFilters) -> Self {
        self.filters = Some(filters);
        self
    }

    /// Walks, calling `visit` for each folder and regular file; returns the warnings met.
    pub fn run(&self, visit: &mut dyn FnMut(&WalkEntry) -> Step) -> Vec<Warning> {
        let dir = if self.start.is_empty() {
            self.root.to_path_buf()
        } else {
            self.root.join(self.start)
        };
        let Ok(real) = fs::canonicalize(&dir) else {
            return Vec::new();
        };
        let mut pass = Pass {
            seen: HashSet::from([real.clone()]),
            warnings: Vec::new(),
            visit,
        };
        self.folder(&mut pass, self.start, &dir, &real, 0);
        pass.warnings
    }

    /// Walks one folder; returns true when the visitor stopped the walk.
    fn folder(
        &self,
        pass: &mut Pass<'_>,
        rel_dir: &str,
        dir: &Path,
        real_dir: &Path,
        depth: usize,
    ) -> bool {
        let warn = |pass: &mut Pass<'_>, path: String, kind, message: String| {
            pass.warnings.push(Warning {
                path,
                kind,
                message,
            })
        };
        let entries = match fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                let path = if rel_dir.is_empty() { "." } else { rel_dir };
                warn(
                    pass,
                    path.into(),
                    WarningKind::Unreadable,
                    format!("cannot list folder: {e}"),
                );
                return false;
            }
        };
        let mut named: Vec<(String, fs::DirEntry)> = Vec::new();
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    warn(
                        pass,
                        rel_dir.to_string(),
                        WarningKind::Unreadable,
                        format!("cannot read folder entry: {e}"),
                    );
                    continue;
                }
            };
            match entry.file_name().into_string() {
                Ok(name) if name.starts_with('.') => {}
                Ok(name) => named.push((name, entry)),
                Err(name) => warn(
                    pass,
                    join_rel(rel_dir, &name.to_string_lossy()),
                    WarningKind::InvalidUtf8,
                    "file name is not valid UTF-8; skipped".into(),
                ),
            }
        }
        // Names in a folder are unique, so an unstable sort gives the one order.
        named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, entry) in &named {
            let rel = join_rel(rel_dir, name);
            if self.filters.is_some_and(|f| f.is_ignored(&rel)) {
                continue;
            }
            let Ok(ftype) = entry.file_type() else {
                warn(
                    pass,
                    rel,
                    WarningKind::Unreadable,
                    "cannot read file type".into(),
                );
                continue;
            };
            let path = entry.path();
            let looks_like_note = crate::markdown::is_markdown_name(name);
            let (real, target_meta) = if ftype.is_symlink() {
                let Some(boundary) = &self.within else {
                    continue;
                };
                let target = match fs::canonicalize(&path) {
                    Ok(t) => t,
                    Err(e) => {
                        if looks_like_note || path.is_dir() {
                            let kind = if e.raw_os_error() == Some(40) {
                                WarningKind::SymlinkLoop
                            } else {
                                WarningKind::SymlinkOutside
                            };
                            let message = format!("symlink cannot be resolved ({e}); not followed");
                            warn(pass, rel, kind, message);
                        }
                        continue;
                    }
                };
                if !target.starts_with(boundary) {
                    if looks_like_note || target.is_dir() {
                        let message = format!(
                            "symlink points outside the vault ({}); not followed",
                            target.display()
                        );
                        warn(pass, rel, WarningKind::SymlinkOutside, message);
                    }
                    continue;
                }
                match fs::metadata(&target) {
                    Ok(m) => (target, Some(m)),
                    Err(e) => {
                        let message = format!("cannot stat symlink target: {e}");
                        warn(pass, rel, WarningKind::Unreadable, message);
                        continue;
                    }
                }
            } else if ftype.is_dir() {
                (real_dir.join(name), None)
            } else {
                // Only folders need their real path (to enter each once).
                (PathBuf::new(), None)
            };
            let (is_dir, is_file) = match &target_meta {
                Some(m) => (m.is_dir(), m.is_file()),
                None => (ftype.is_dir(), ftype.is_file()),
            };
            if !is_dir && !is_file {
                if looks_like_note {
                    let message = "not a regular file; skipped".to_string();
                    warn(pass, rel, WarningKind::NotAFile, message);
                }
                continue;
            }
            if is_dir {
                if depth >= self.max_depth
                    || self.skip_names.contains(&name.as_str())
                    || self.skip_dir.as_deref() == Some(real.as_path())
                {
                    continue;
                }
                if !pass.seen.insert(real.clone()) {
                    let message = format!(
                        "symlink loop: {} is already walked; skipped",
                        real.display()
                    );
                    warn(pass, rel, WarningKind::SymlinkLoop, message);
                    continue;
                }
            }
            let step = (pass.visit)(&WalkEntry {
                rel: &rel,
                name,
                path: &path,
                is_dir,
                target_meta: target_meta.as_ref(),
            });
            match step {
                Step::Stop => return true,
                Step::Skip => {}
                Step::Continue if is_dir => {
                    if self.folder(pass, &rel, &path, &real, depth + 1) {
                        return true;
                    }
                }
                Step::Continue => {}
            }
        }
        false
    }
}

/// What one [`Walk::run`] carries through the folders.
struct Pass<'v> {
    /// Real folders already walked (each is walked once).
    seen: HashSet<PathBuf>,
    warnings: Vec<Warning>,
    visit: &'v mut dyn FnMut(&WalkEntry) -> Step,
}

/// Walks `root` and returns every note file, sorted by path, plus the warnings found.
///
/// `skip_dir` is a folder never walked into (the index folder), compared after canonicalising.
pub fn walk_vault(
    root: &Path,
    skip_dir: Option<&Path>,
) -> crate::Result<(Vec<NoteFile>, Vec<Warning>)> {
    let w = walk_notes(root, skip_dir, None)?;
    let w = w.expect("a walk of the whole vault always answers");
    Ok((w.files, w.warnings))
}

/// What [`walk_notes`] found.
pub(crate) struct Walked {
    /// The notes, sorted by path.
    pub files: Vec<NoteFile>,
    /// Problems met, sorted by path.
    pub warnings: Vec<Warning>,
    /// Whether a symlink was followed: a note is then reachable through more than one path, so
    /// a change at one path says nothing of the others and only a whole walk is complete.
    pub links: bool,
}

/// The walk of [`walk_vault`], of the whole vault (`scope` `None`) or only of the given
/// vault-relative paths: a note file is listed when it is one, a folder walked whole, a path
/// that is gone (or hidden, ignored, inside the index folder) lists nothing. A scoped walk
/// answers `None` when a path in it is a symlink (only a whole walk resolves those).
pub(crate) fn walk_notes(
    root: &Path,
    skip_dir: Option<&Path>,
    scope: Option<&[String]>,
) -> crate::Result<Option<Walked>> {
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
    let mut warnings = Vec::new();
    let filters = IgnoreFilters::load(&root_canon, &mut warnings);
    // Most of a no-op update is one stat per note: the notes are stated in parallel
    // ([`stat_all`]), while the walk goes on when it is a whole walk.
    let mut found: Vec<(String, PathBuf, Option<FileStat>)> = Vec::new();
    let mut links = false;
    let walk = Walk::new(root)
        .follow_symlinks_within(root_canon.clone())
        .skip_dir(skip_dir)
        .ignore(&filters);
    let stated = match scope {
        None => {
            let (listed, walk_warnings) = stat_while_walking(&walk, &mut |e| {
                links |= e.target_meta.is_some();
                (!e.is_dir && crate::markdown::is_markdown_name(e.name)).then(|| e.rel.to_string())
            });
            warnings.extend(walk_warnings);
            let mut stated = Vec::with_capacity(listed.len());
            for (rel, path, st) in listed {
                found.push((rel, path, None));
                stated.push(st);
            }
            stated
        }
        Some(paths) => {
            let mut visit = |e: &WalkEntry| {
                links |= e.target_meta.is_some();
                if !e.is_dir && crate::markdown::is_markdown_name(e.name) {
                    found.push((e.rel.to_string(), e.path.to_path_buf(), e.target_stat()));
                }
                Step::Continue
            };
            let mut direct = Vec::new();
            let skip_real = skip_dir.and_then(|d| fs::canonicalize(d).ok());
            for rel in paths {
                let hidden =
                    rel.is_empty() || rel.split('/').any(|c| c.is_empty() || c.starts_with('.'));
                if hidden || filters.is_ignored(rel) || ancestors_ignored(&filters, rel) {
                    continue;
                }
                let abs = root.join(rel);
                if skip_real
                    .as_deref()
                    .is_some_and(|s| root_canon.join(rel).starts_with(s))
                {
                    continue;
                }
                let meta = match fs::symlink_metadata(&abs) {
                    Ok(m) => m,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) => {
                        warnings.push(Warning {
                            path: rel.clone(),
                            kind: WarningKind::Unreadable,
                            message: format!("cannot stat: {e}"),
                        });
                        continue;
                    }
                };
                if meta.file_type().is_symlink() {
                    return Ok(None);
                }
                if meta.is_dir() {
                    warnings.extend(walk.clone().start_at(rel).run(&mut visit));
                } else if meta.is_file() {
                    let name = rel.rsplit('/').next().unwrap_or(rel);
                    if crate::markdown::is_markdown_name(name) {
                        direct.push((rel.clone(), abs, None));
                    }
                }
            }
            found.extend(direct);
            found.sort_by(|a, b| a.0.cmp(&b.0));
            found.dedup_by(|a, b| a.0 == b.0);
            let to_stat: Vec<(PathBuf, Option<FileStat>)> =
                found.iter().map(|(_, p, st)| (p.clone(), *st)).collect();
            stat_all(&to_stat)
        }
    };
    let mut files = Vec::with_capacity(found.len());
    for ((rel, abs, _), st) in found.into_iter().zip(stated) {
        match st {
            Ok(st) => files.push(NoteFile {
                rel,
                abs,
                size: st.size,
                mtime_ns: st.mtime_ns,
            }),
            Err(err) => warnings.push(Warning {
                path: rel,
                kind: WarningKind::Unreadable,
                message: format!("cannot stat: {err}"),
            }),
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Some(Walked {
        files,
        warnings,
        links,
    }))
}

/// A file picked by [`stat_while_walking`]: its key, its path and its stat.
pub type StatedFile = (String, PathBuf, std::io::Result<FileStat>);

/// Runs `walk` and stats, in parallel while it goes on, the files `pick` names (it answers the
/// key to keep, e.g. the vault-relative path, or `None` to pass a file or folder by): the walk
/// lists on one thread while the others stat what it has listed so far ([`stat_all`]). Answers
/// each picked file with its path and stat, in walk order, and the walk's warnings.
pub fn stat_while_walking(
    walk: &Walk<'_>,
    pick: &mut (dyn FnMut(&WalkEntry) -> Option<String> + Send),
) -> (Vec<StatedFile>, Vec<Warning>) {
    let mut keys: Vec<String> = Vec::new();
    let mut batch: Vec<(PathBuf, Option<FileStat>)> = Vec::with_capacity(STAT_BATCH);
    type Part = (
        usize,
        Vec<(PathBuf, Option<FileStat>)>,
        Vec<std::io::Result<FileStat>>,
    );
    let done: std::sync::Mutex<Vec<Part>> = std::sync::Mutex::new(Vec::new());
    let warnings = rayon::scope(|s| {
        let done = &done;
        // Hands the batch listed so far (its paths moved, not copied) to a stat thread.
        let send = |batch: &mut Vec<(PathBuf, Option<FileStat>)>, at: usize| {
            let batch = std::mem::replace(batch, Vec::with_capacity(STAT_BATCH));
            s.spawn(move |_| {
                let stats = stat_all(&batch);
                done.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((at, batch, stats));
            });
        };
        let warnings = walk.run(&mut |e| {
            if let Some(key) = pick(e) {
                keys.push(key);
                batch.push((e.path.to_path_buf(), e.target_stat()));
                if batch.len() >= STAT_BATCH {
                    send(&mut batch, keys.len() - STAT_BATCH);
                }
            }
            Step::Continue
        });
        if !batch.is_empty() {
            let at = keys.len() - batch.len();
            send(&mut batch, at);
        }
        warnings
    });
    let mut parts = done.into_inner().unwrap_or_else(|e| e.into_inner());
    parts.sort_by_key(|(at, _, _)| *at);
    let stated = parts
        .into_iter()
        .flat_map(|(_, batch, stats)| batch.into_iter().zip(stats));
    let listed = keys
        .into_iter()
        .zip(stated)
        .map(|(key, ((path, _), st))| (key, path, st))
        .collect();
    (listed, warnings)
}

/// Whether a folder above `rel` is excluded by the filters (a whole walk never enters it).
fn ancestors_ignored(filters: &IgnoreFilters, rel: &str) -> bool {
    rel.match_indices('/')
        .any(|(at, _)| filters.is_ignored(&rel[..at]))
}

/// A file's identity and version as one `stat` gives it: enough to tell, later, that the file
/// has not changed since. `ctime_ns` (the inode's change time) moves with every write, rename
/// onto the path and metadata change, and no user tool can set it back, unlike `mtime_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ns since the Unix epoch.
    pub mtime_ns: i64,
    /// Inode change time, ns since the Unix epoch (0 where the platform has none).
    pub ctime_ns: i64,
    /// Inode number (0 where the platform has none).
    pub ino: u64,
    /// Device number (0 where the platform has none).
    pub dev: u64,
}

impl FileStat {
    /// The stat of `meta`.
    pub fn of(meta: &fs::Metadata) -> FileStat {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileStat {
                size: meta.len(),
                mtime_ns: epoch_ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: epoch_ns(meta.ctime(), meta.ctime_nsec()),
                ino: meta.ino(),
                dev: meta.dev(),
            }
        }
        #[cfg(not(unix))]
        FileStat {
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            ctime_ns: 0,
            ino: 0,
            dev: 0,
        }
    }

    /// Whether this is the version of a file recorded as `size` bytes modified at `mtime_ns`
    /// (what the index state keeps of each note).
    pub fn is_version(&self, size: u64, mtime_ns: i64) -> bool {
        self.size == size && self.mtime_ns == mtime_ns
    }

    /// Whether the platform gives an inode change time (and identity), so that an equal stat
    /// later means an unchanged file.
    pub fn has_identity(&self) -> bool {
        cfg!(unix) && self.ctime_ns != 0
    }
}

/// How many listed notes a whole walk hands to the stat threads at a time.
const STAT_BATCH: usize = 512;

/// Seconds and nanoseconds since the epoch as ns, clamped to `0..=i64::MAX`.
#[cfg(unix)]
fn epoch_ns(secs: i64, nsec: i64) -> i64 {
    (secs as i128 * 1_000_000_000 + nsec as i128).clamp(0, i64::MAX as i128) as i64
}

/// Stats files in parallel: each path with `None` is read with `lstat` (a regular file found by
/// a walk), relative to an open handle on its folder (no path lookup per file), in batches of
/// one folder's files; a `Some` (a followed symlink's target's, [`WalkEntry::target_stat`]) is
/// taken as it is. Answers in the order given.
pub(crate) fn stat_all(files: &[(PathBuf, Option<FileStat>)]) -> Vec<std::io::Result<FileStat>> {
    use rayon::prelude::*;
    // Runs of files in the same folder (a walk lists a folder's files together), cut to
    // batches small enough to spread over the threads.
    let mut batches: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    let mut start_parent = files.first().and_then(|f| f.0.parent());
    for i in 1..=files.len() {
        if i == files.len()
            || i - start >= 256
            || files[i].1.is_some()
            || files[start].1.is_some()
            || files[i].0.parent() != start_parent
        {
            batches.push(start..i);
            start = i;
            start_parent = files.get(i).and_then(|f| f.0.parent());
        }
    }
    let per_batch: Vec<Vec<std::io::Result<FileStat>>> = batches
        .into_par_iter()
        .map(|range| {
            let batch = &files[range];
            if let [(_, Some(stat))] = batch {
                return vec![Ok(*stat)];
            }
            stat_in_folder(batch)
        })
        .collect();
    per_batch.into_iter().flatten().collect()
}

/// Stats files of one folder relative to a handle on it (no path lookup per file).
#[cfg(target_os = "linux")]
fn stat_in_folder(batch: &[(PathBuf, Option<FileStat>)]) -> Vec<std::io::Result<FileStat>> {
    use std::ffi::CStr;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let by_path = |p: &Path| fs::symlink_metadata(p).map(|m| FileStat::of(&m));
    let dir = batch[0].0.parent().and_then(|d| fs::File::open(d).ok());
    let Some(dir) = dir else {
        return batch.iter().map(|(p, _)| by_path(p)).collect();
    };
    // One buffer for the NUL-terminated names of the whole batch.
    let mut name_buf: Vec<u8> = Vec::with_capacity(256);
    batch
        .iter()
        .map(|(path, _)| {
            let Some(name) = path.file_name().map(|n| n.as_bytes()) else {
                return by_path(path);
            };
            name_buf.clear();
            name_buf.extend_from_slice(name);
            name_buf.push(0);
            let Ok(name) = CStr::from_bytes_with_nul(&name_buf) else {
                return by_path(path);
            };
            let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
            // SAFETY: a valid folder descriptor, a NUL-terminated name and a buffer of the
            // right type; `st` is read only when the call succeeded.
            let rc = unsafe {
                libc::fstatat(
                    dir.as_raw_fd(),
                    name.as_ptr(),
                    st.as_mut_ptr(),
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            };
            if rc != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: fstatat succeeded, so it filled `st`.
            let st = unsafe { st.assume_init() };
            Ok(FileStat {
                size: st.st_size as u64,
                mtime_ns: epoch_ns(st.st_mtime, st.st_mtime_nsec),
                ctime_ns: epoch_ns(st.st_ctime, st.st_ctime_nsec),
                ino: st.st_ino,
                dev: st.st_dev,
            })
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
fn stat_in_folder(batch: &[(PathBuf, Option<FileStat>)]) -> Vec<std::io::Result<FileStat>> {
    batch
        .iter()
        .map(|(p, _)| fs::symlink_metadata(p).map(|m| FileStat::of(&m)))
        .collect()
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

    /// The stats come back from many batches, stated while the walk goes on: each note must
    /// get its own (a size that is its number of bytes), in folders of every size, with a
    /// followed symlink's target among them.
    #[test]
    fn every_note_gets_its_own_stat_across_many_batches() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let mut want = Vec::new();
        for (folder, n) in [
            ("big", 1300),
            ("a/small", 3),
            ("mid", STAT_BATCH + 1),
            ("", 7),
        ] {
            fs::create_dir_all(r.join(folder)).unwrap();
            for i in 0..n {
                let rel = if folder.is_empty() {
                    format!("n{i:04}.md")
                } else {
                    format!("{folder}/n{i:04}.md")
                };
                let size = (rel.len() * 7 + i) % 997 + 1;
                fs::write(r.join(&rel), "x".repeat(size)).unwrap();
                want.push((rel, size as u64));
            }
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(r.join("big/n0005.md"), r.join("mid/link.md")).unwrap();
            want.push(("mid/link.md".into(), want[5].1));
        }
        want.sort();
        let (files, warnings) = walk_vault(r, None).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let got: Vec<(String, u64)> = files.iter().map(|f| (f.rel.clone(), f.size)).collect();
        assert_eq!(got, want);
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

    #[cfg(unix)]
    #[test]
    fn walk_options_depth_start_names_symlinks_and_stop() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for p in [
            "a/one.md",
            "a/b/two.md",
            "a/b/c/three.md",
            "a/node_modules/x.md",
            "z.md",
        ] {
            let full = r.join(p);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, "x").unwrap();
        }
        symlink(r.join("a/b"), r.join("a/link")).unwrap();
        let collect = |walk: Walk| {
            let mut seen = Vec::new();
            walk.run(&mut |e| {
                seen.push(format!("{}{}", e.rel, if e.is_dir { "/" } else { "" }));
                Step::Continue
            });
            seen
        };
        // Name order, depth first; symlinks not followed by default; skipped names.
        assert_eq!(
            collect(Walk::new(r).skip_names(&["node_modules"])),
            [
                "a/",
                "a/b/",
                "a/b/c/",
                "a/b/c/three.md",
                "a/b/two.md",
                "a/one.md",
                "z.md"
            ]
        );
        // Start folder and depth: 1 level below `a`.
        assert_eq!(
            collect(Walk::new(r).start_at("a").max_depth(1)),
            [
                "a/b/",
                "a/b/two.md",
                "a/node_modules/",
                "a/node_modules/x.md",
                "a/one.md"
            ]
        );
        // Following symlinks inside the root still enters each real folder once.
        let followed = collect(Walk::new(r).follow_symlinks_within(fs::canonicalize(r).unwrap()));
        assert!(followed.contains(&"a/b/two.md".to_string()), "{followed:?}");
        assert!(
            !followed.iter().any(|p| p.starts_with("a/link")),
            "{followed:?}"
        );
        // Stop ends the walk at once.
        let mut first = None;
        Walk::new(r).run(&mut |e| {
            if e.is_dir {
                return Step::Continue;
            }
            first = Some(e.rel.to_string());
            Step::Stop
        });
        assert_eq!(first.as_deref(), Some("a/b/c/three.md"));
    }

    #[test]
    fn missing_root_is_an_error() {
        let err = walk_vault(Path::new("/definitely/not/here"), None).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::VaultNotFound);
    }
}
