//! The exposure policy: which notes exist for, and may be read by, an agent surface.
//!
//! A note is served only when all of these hold:
//! 1. its vault-relative path lies under an exposed root, matched on whole segments and
//!    case-insensitively (`work/active` does not admit `work/active-secrets`);
//! 2. its file name is not on the never-expose list (case-insensitive, whole name);
//! 3. it is not private (a `private` tag item or `private: true` in its frontmatter, an
//!    unreadable file, or a frontmatter block that never closes);
//! 4. it is not under the memory root, which is removed from the roots whatever the manifest says;
//! 5. after resolving symlinks it still lies inside the real path of the root it matched.
//!
//! [`Exposure::visible_files`] enumerates exactly the notes [`Exposure::may_read`] admits, so
//! listing, search scoping and reads agree.

#![allow(
    dead_code,
    reason = "wired into the vault by the memory work alongside"
)]

mod open;
mod privacy;
pub use open::{OpenedNote, open_visible};
pub use privacy::ListedFile;
mod reach;
pub use reach::{MemoryRootInfo, caller_platforms_among, discover_memory_root_among};
#[cfg(test)]
pub(crate) use reach::{caller_platforms, discover_memory_root};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::manifest::{DEFAULT_MEMORY_ROOT, Manifest};
use crate::markdown::frontmatter::{self, Privacy};
use crate::walk::{Step, Walk};

/// Characters of a note read to judge privacy and to find aliases.
const HEAD_CHARS: usize = 1200;
use crate::markdown::LONG_HEAD_CHARS;
/// Characters read to find the `source:` line of a memory.
const PROBE_CHARS: usize = 800;
/// Folder depth walked below each root, and by memory-root discovery.
const WALK_DEPTH: usize = 4;
/// Roots used when the manifest neither declares nor derives any.
const FALLBACK_ROOTS: [&str; 2] = ["brain", "reference"];
/// Folders never walked by whole-vault walks (besides every dot entry).
const SKIP_DIRS: [&str; 1] = ["node_modules"];

/// Where the exposed roots came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RootsSource {
    /// Declared in `mcp_exposed_roots` (or handed in by the caller).
    Manifest,
    /// Derived from `user_content_roots`, keeping folders that exist.
    Derived,
    /// Neither gave a root: `brain` and `reference`.
    Fallback,
}

/// Why a note may not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Denied {
    /// The path is absolute, a drive or UNC path, or has a `..` segment.
    Traversal,
    /// The path is not under an exposed root (or passes through a hidden folder).
    OutsideRoots,
    /// The file name is on the never-expose list.
    NeverExposed,
    /// The note is marked private, is unreadable, or its frontmatter never closes.
    Private,
    /// The path is under the memory root.
    MemoryRoot,
    /// A symlink leads outside the root the path matched.
    Escapes,
    /// No such file (or a broken symlink).
    Missing,
    /// The path is not a markdown (`.md`) file.
    NotMarkdown,
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Denied::Traversal => "path leaves the vault",
            Denied::OutsideRoots => "not under an exposed root",
            Denied::NeverExposed => "file name is never exposed",
            Denied::Private => "note is private",
            Denied::MemoryRoot => "memories are read through recall, not as notes",
            Denied::Escapes => "symlink leads outside its exposed root",
            Denied::Missing => "no such note",
            Denied::NotMarkdown => "not a markdown note",
        })
    }
}

/// A note an agent surface may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VisibleFile {
    /// Vault-relative path with `/` separators, case and spaces as on disk.
    pub rel: String,
    /// The file name without `.md`.
    pub label: String,
    /// The exposed root the path matched.
    pub scope: String,
}

/// The resolved exposure policy of one vault.
#[derive(Debug, Clone)]
pub struct Exposure {
    vault_root: PathBuf,
    roots: Vec<String>,
    source: RootsSource,
    never_expose: Vec<String>,
    memory_root: String,
    /// Every folder withheld as a memory store: `memory_root` first, then the manifest's
    /// configured root when the store was found elsewhere.
    memory_roots: Vec<String>,
}

impl Exposure {
    /// Resolves the policy from the manifest.
    ///
    /// Roots are, in order of preference: the cleaned `mcp_exposed_roots` when the manifest
    /// declares any entry (not checked on disk; an explicit list that cleans to nothing exposes
    /// nothing rather than widening to the derived roots); else the cleaned
    /// `user_content_roots` that exist as folders; else `brain` and `reference`, keeping those
    /// present (or both when neither is). The derived and fallback roots also hold the
    /// manifest's inbox (`mcp_inbox`, where `record_work` files) when it exists, so an agent
    /// finds what it filed. `memory_root` (the store, where it was found) and the manifest's
    /// configured memory root, with everything under them, are always removed.
    /// `mcp_never_expose` gives the withheld file names.
    pub fn resolve(vault_root: &Path, manifest: &Manifest, memory_root: &str) -> Exposure {
        let vault = canonical_or_given(vault_root);
        let memory_root = clean_memory_root(memory_root);
        let mut memory_roots = vec![memory_root.clone()];
        let configured = clean_memory_root(&manifest.memory_root());
        if !configured.eq_ignore_ascii_case(&memory_root) {
            memory_roots.push(configured);
        }
        let declared_raw = manifest.strings("mcp_exposed_roots");
        let (roots, source) = if declared_raw.iter().any(|r| !r.trim().is_empty()) {
            (
                without_memory(clean_roots(&declared_raw), &memory_roots),
                RootsSource::Manifest,
            )
        } else {
            let derived: Vec<String> = without_memory(
                clean_roots(&manifest.strings("user_content_roots")),
                &memory_roots,
            )
            .into_iter()
            .filter(|r| vault.join(root_folder(r)).is_dir())
            .collect();
            if !derived.is_empty() {
                (derived, RootsSource::Derived)
            } else {
                let all: Vec<String> = without_memory(
                    FALLBACK_ROOTS.iter().map(|s| s.to_string()).collect(),
                    &memory_roots,
                );
                let present: Vec<String> = all
                    .iter()
                    .filter(|r| vault.join(r).is_dir())
                    .cloned()
                    .collect();
                (
                    if present.is_empty() { all } else { present },
                    RootsSource::Fallback,
                )
            }
        };
        // The inbox `record_work` files into is readable back, unless the manifest lists the
        // roots itself (then that list is the whole word).
        let mut roots = roots;
        let inbox = manifest.inbox();
        if source != RootsSource::Manifest
            && vault.join(&inbox).is_dir()
            && !roots.iter().any(|r| r.eq_ignore_ascii_case(&inbox))
            && !memory_roots.iter().any(|m| is_within_ci(&inbox, m))
        {
            roots.push(inbox);
        }
        Exposure {
            vault_root: vault,
            roots,
            source,
            never_expose: clean_never_expose(&manifest.strings("mcp_never_expose")),
            memory_root,
            memory_roots,
        }
    }

    /// A hand-built policy (source [`RootsSource::Manifest`]): the roots are cleaned like
    /// manifest roots and the memory root is still removed.
    pub fn with_roots(
        vault_root: &Path,
        roots: Vec<String>,
        never_expose: Vec<String>,
        memory_root: &str,
    ) -> Exposure {
        let memory_root = clean_memory_root(memory_root);
        let memory_roots = vec![memory_root.clone()];
        Exposure {
            vault_root: canonical_or_given(vault_root),
            roots: without_memory(clean_roots(&roots), &memory_roots),
            source: RootsSource::Manifest,
            never_expose: clean_never_expose(&never_expose),
            memory_root,
            memory_roots,
        }
    }

    /// The vault root (canonical when it exists).
    pub fn vault_root(&self) -> &Path {
        &self.vault_root
    }

    /// The exposed roots, vault-relative, without the memory root.
    pub fn roots(&self) -> &[String] {
        &self.roots
    }

    /// Where the roots came from.
    pub fn source(&self) -> RootsSource {
        self.source
    }

    /// The memory root (where the store is) this policy withholds.
    pub fn memory_root(&self) -> &str {
        &self.memory_root
    }

    /// Every folder this policy withholds as a memory store: [`Exposure::memory_root`], and
    /// the manifest's configured root when the store was found elsewhere.
    pub fn memory_roots(&self) -> &[String] {
        &self.memory_roots
    }

    /// The never-expose file names, composed (NFC) and lowercased.
    pub fn never_expose(&self) -> &[String] {
        &self.never_expose
    }

    /// The exposed root a vault-relative path lies under (whole segments, case-insensitive;
    /// the most specific root when several match). `None` for an empty path, a path with `..`,
    /// an absolute path, or a path under the memory root.
    pub fn matched_root(&self, rel: &str) -> Option<&str> {
        let segs = rel_segments(rel).ok()?;
        if self.under_memory_root(&segs) {
            return None;
        }
        self.match_segments(&segs)
    }

    /// Whether a file name (or the last segment of a path, `\` read as `/`) is never exposed.
    pub fn is_never_exposed(&self, rel: &str) -> bool {
        if self.never_expose.is_empty() {
            return false;
        }
        let name = name_key(last_segment(rel));
        !name.is_empty() && self.never_expose.contains(&name)
    }

    /// Whether a file is withheld from every agent, the vault's own session included (the
    /// hooks' briefing and Stop report): a never-exposed name, or a markdown note marked
    /// private. Unlike [`Exposure::may_read`], the exposed roots do not matter here.
    pub fn withheld_from_agents(&self, rel: &str) -> bool {
        let file = ListedFile {
            rel,
            stat: None,
            through_link: true,
        };
        self.withheld_from_agents_all(&[file], None, std::time::SystemTime::now())[0]
    }

    /// Checks all five conditions for a vault-relative path and returns the note's real
    /// (symlink-resolved) absolute path.
    ///
    /// Refuses absolute, drive and UNC paths, `..` segments, hidden segments and non-`.md` paths.
    pub fn may_read(&self, rel: &str) -> Result<PathBuf, Denied> {
        self.read_check().may_read(rel)
    }

    /// [`Exposure::may_read`] for a batch of paths (a search's hits): the vault's real paths
    /// are resolved once for the batch, each root on its first use, not once per path. A check
    /// is meant to live for one answer: a folder replaced by a link afterwards is seen by the
    /// next one.
    pub(crate) fn read_check(&self) -> ReadCheck<'_> {
        ReadCheck {
            exposure: self,
            reals: RealPaths::new(&self.vault_root, &self.memory_roots, &[]),
        }
    }

    /// Every note the policy serves, sorted by path.
    ///
    /// Each root is walked to depth 4, skipping dot entries. A symlink is followed only when
    /// its real path lies inside the root's real path; broken links are skipped. Private and
    /// never-exposed notes are left out, and every file listed passes [`Exposure::may_read`].
    pub fn visible_files(&self) -> Vec<VisibleFile> {
        let mut candidates: BTreeMap<String, ()> = BTreeMap::new();
        for root in &self.roots {
            let folder = root_folder(root);
            let Ok(root_real) = fs::canonicalize(self.vault_root.join(folder)) else {
                continue;
            };
            // A shallow root (`brain/*.md`) is walked one folder deep; `check` applies its pattern.
            let depth = if folder.len() < root.len() {
                0
            } else {
                WALK_DEPTH
            };
            walk_root(&self.vault_root, folder, &root_real, depth, &mut |rel| {
                candidates.insert(rel, ());
            });
        }
        let reals = RealPaths::new(&self.vault_root, &self.memory_roots, &self.roots);
        let rels: Vec<String> = candidates.into_keys().collect();
        rels.into_par_iter()
            .filter_map(|rel| {
                self.check(&rel, &reals).ok()?;
                let scope = self.matched_root(&rel)?.to_string();
                let name = last_segment(&rel);
                let label = name[..name.len() - 3].to_string();
                Some(VisibleFile { rel, label, scope })
            })
            .collect()
    }

    /// The names a memory may link to: every visible file's label plus the `aliases` (or
    /// `alias`) of its frontmatter read as a head ([`head_frontmatter`]), all lowercased. An unreadable file still contributes its label.
    pub fn resolvable_names(&self, files: &[VisibleFile]) -> HashSet<String> {
        files
            .par_iter()
            .flat_map_iter(|f| {
                let mut names = vec![f.label.to_lowercase()];
                if let Ok(Some(map)) = head_frontmatter(&self.vault_root.join(&f.rel)) {
                    for key in ["aliases", "alias"] {
                        names.extend(
                            frontmatter::string_list(map.get(key), false)
                                .into_iter()
                                .map(|a| a.to_lowercase()),
                        );
                    }
                }
                names.into_iter().filter(|n| !n.is_empty())
            })
            .collect()
    }

    /// Whether the rules that look only at the path admit `rel` (a markdown name, not in a
    /// memory store, under a root, no hidden segment below it, not never-exposed): what may
    /// be said of a path that is gone, such as where a renamed note came from.
    pub fn path_admitted(&self, rel: &str) -> bool {
        self.path_rules(rel).is_ok()
    }

    /// The path-only rules of [`Exposure::check`]; answers the path's segments and its root.
    fn path_rules<'r>(&self, rel: &'r str) -> Result<(Vec<&'r str>, &str), Denied> {
        let segs = rel_segments(rel)?;
        let name = *segs.last().ok_or(Denied::Missing)?;
        if !crate::markdown::is_markdown_name(name) {
            return Err(Denied::NotMarkdown);
        }
        if self.under_memory_root(&segs) {
            return Err(Denied::MemoryRoot);
        }
        let root = self.match_segments(&segs).ok_or(Denied::OutsideRoots)?;
        // Hidden entries below the root are never walked, so never served either.
        if segs[root_folder(root).split('/').count()..]
            .iter()
            .any(|s| s.starts_with('.'))
        {
            return Err(Denied::OutsideRoots);
        }
        if self.is_never_exposed(name) {
            return Err(Denied::NeverExposed);
        }
        Ok((segs, root))
    }

    fn check(&self, rel: &str, reals: &RealPaths) -> Result<PathBuf, Denied> {
        let (segs, root) = self.path_rules(rel)?;
        let root_real = reals.root(&self.vault_root, root).ok_or(Denied::Missing)?;
        let folder = root_folder(root);
        let depth = if folder.is_empty() {
            0
        } else {
            folder.split('/').count()
        };
        let real = match segs
            .get(depth..)
            .and_then(|rest| real_below(&root_real, rest))
        {
            Some(real) => real,
            None => fs::canonicalize(self.vault_root.join(segs.join("/")))
                .map_err(|_| Denied::Missing)?,
        };
        let inside = real.strip_prefix(&root_real).map_err(|_| Denied::Escapes)?;
        // The target must itself be a visible note: not hidden, markdown, not never-exposed,
        // not in the memory store.
        if let Some(denied) = self.real_path_denied(&real, inside, true, &reals.memory) {
            return Err(denied);
        }
        match privacy::note_verdict_settled(&real) {
            Privacy::Public => {}
            Privacy::Capture => return Err(Denied::MemoryRoot),
            Privacy::Private | Privacy::Unclosed => return Err(Denied::Private),
        }
        Ok(real)
    }

    /// Why the file whose symlink-resolved path is `real` is withheld by where it really is
    /// (`inside`: the part of `real` below the folder it must stay in): a hidden segment there,
    /// a real name that is not markdown (when `markdown` is asked), a never-exposed real name,
    /// or a real path in a memory store (`memory`, their real paths). One rule for
    /// [`Exposure::may_read`] and for the hooks' verdicts on files reached through links.
    fn real_path_denied(
        &self,
        real: &Path,
        inside: &Path,
        markdown: bool,
        memory: &[PathBuf],
    ) -> Option<Denied> {
        if inside
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            return Some(Denied::OutsideRoots);
        }
        let real_name = real
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if markdown && !crate::markdown::is_markdown_name(&real_name) {
            return Some(Denied::NotMarkdown);
        }
        if self.is_never_exposed(&real_name) {
            return Some(Denied::NeverExposed);
        }
        if memory.iter().any(|m| real.starts_with(m)) {
            return Some(Denied::MemoryRoot);
        }
        None
    }

    fn under_memory_root(&self, segs: &[&str]) -> bool {
        self.memory_roots.iter().any(|m| {
            let mem: Vec<&str> = m.split('/').collect();
            starts_with_segments(segs, &mem)
        })
    }

    fn match_segments(&self, segs: &[&str]) -> Option<&str> {
        self.roots
            .iter()
            .filter(|root| {
                let folder = root_folder(root);
                let mut depth = 0;
                for part in folder.split('/') {
                    if !segs.get(depth).is_some_and(|seg| same_name(seg, part)) {
                        return false;
                    }
                    depth += 1;
                }
                match root.get(folder.len() + 1..) {
                    // Shallow: exactly one segment below the folder, matching the pattern.
                    Some(pattern) => {
                        segs.len() == depth + 1 && wildcard_match(pattern, segs[depth])
                    }
                    None => true,
                }
            })
            .max_by_key(|root| root.split('/').count())
            .map(String::as_str)
    }
}

/// A batch of [`Exposure::may_read`] checks ([`Exposure::read_check`]).
pub(crate) struct ReadCheck<'e> {
    exposure: &'e Exposure,
    reals: RealPaths,
}

impl ReadCheck<'_> {
    /// [`Exposure::may_read`], with the batch's real paths.
    pub(crate) fn may_read(&self, rel: &str) -> Result<PathBuf, Denied> {
        self.exposure.check(rel, &self.reals)
    }
}

/// Real paths of the vault, the roots and the memory roots, resolved once per batch of checks.
#[derive(Debug)]
struct RealPaths {
    /// The vault's, resolved on first use ([`RealPaths::vault`]).
    vault: std::sync::OnceLock<Option<PathBuf>>,
    roots: HashMap<String, Option<PathBuf>>,
    /// Roots not resolved up front, each resolved on its first lookup in this batch.
    later: std::sync::Mutex<HashMap<String, Option<PathBuf>>>,
    memory: Vec<PathBuf>,
}

impl RealPaths {
    /// Resolves `roots` up front; other roots are resolved on each lookup.
    fn new(vault: &Path, memory_roots: &[String], roots: &[String]) -> RealPaths {
        RealPaths {
            vault: std::sync::OnceLock::new(),
            roots: roots
                .iter()
                .map(|r| (r.clone(), fs::canonicalize(vault.join(root_folder(r))).ok()))
                .collect(),
            later: Default::default(),
            memory: memory_roots
                .iter()
                .filter_map(|m| fs::canonicalize(vault.join(m)).ok())
                .collect(),
        }
    }

    /// The vault's real path (`vault` is the vault root these paths were made for).
    fn vault(&self, vault: &Path) -> Option<&Path> {
        self.vault
            .get_or_init(|| fs::canonicalize(vault).ok())
            .as_deref()
    }

    fn root(&self, vault: &Path, root: &str) -> Option<PathBuf> {
        if let Some(real) = self.roots.get(root) {
            return real.clone();
        }
        let mut later = self.later.lock().unwrap_or_else(|e| e.into_inner());
        later
            .entry(root.to_string())
            .or_insert_with(|| fs::canonicalize(vault.join(root_folder(root))).ok())
            .clone()
    }
}

/// The real path of `rest` below the real folder `root_real`, when no entry on the way is a
/// symbolic link (one `lstat` per segment): what `canonicalize` answers then, without resolving
/// every folder above the vault again. `None` when an entry is a link, is missing or is not a
/// plain name: the caller resolves the whole path instead. Linux only (elsewhere the real path
/// may differ in case or form from the name asked, so it is always resolved).
fn real_below(root_real: &Path, rest: &[&str]) -> Option<PathBuf> {
    if !cfg!(target_os = "linux") || rest.is_empty() {
        return None;
    }
    let mut real = root_real.to_path_buf();
    for seg in rest {
        if seg.is_empty() || *seg == "." || *seg == ".." || seg.contains('/') {
            return None;
        }
        real.push(seg);
        if fs::symlink_metadata(&real).ok()?.file_type().is_symlink() {
            return None;
        }
    }
    Some(real)
}

/// Cleans root entries from the manifest.
///
/// Trims; drops a leading `./`; reads `\` as `/`; strips edge slashes; drops entries with `.` or
/// `..` segments. An entry without a glob is kept as a path prefix. A glob in the last segment
/// of a multi-segment entry without a trailing slash (`brain/*.md`) is kept as a *shallow* root:
/// it admits the notes directly in that folder whose names match the pattern, never its
/// subfolders (a `*` stays in one folder); a trailing `**` (`notes/**`) is the folder itself,
/// with everything below it; a folder glob (`perf/h*-*/`, `a/*/b`) or a leading glob
/// (`*/x`, `*.md`) is dropped.
/// Duplicates (case-insensitive) are removed, keeping the first.
pub fn clean_roots(entries: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for entry in entries {
        let mut s = entry.trim().replace('\\', "/");
        while let Some(rest) = s.strip_prefix("./") {
            s = rest.to_string();
        }
        let folder_only = s.ends_with('/');
        let segs: Vec<&str> = s.split('/').filter(|seg| !seg.is_empty()).collect();
        if segs.is_empty() || segs.iter().any(|seg| *seg == "." || *seg == "..") {
            continue;
        }
        let cleaned = match segs.iter().position(|seg| is_glob(seg)) {
            None => segs.join("/"),
            Some(i) if i > 0 && i == segs.len() - 1 && segs[i] == "**" => segs[..i].join("/"),
            Some(i) if i > 0 && i == segs.len() - 1 && !folder_only => segs.join("/"),
            Some(_) => continue,
        };
        if !out
            .iter()
            .any(|r| r.to_lowercase() == cleaned.to_lowercase())
        {
            out.push(cleaned);
        }
    }
    out
}

/// Whether a head window marks a note private, or as an agent memory: either way it is not
/// served as a note.
///
/// Only a leading frontmatter block counts (a note without one is public, and a `---` rule in
/// the body is not frontmatter). The block is parsed as YAML by the same parser the index uses
/// ([`crate::markdown::frontmatter`]): a `private` key (any case) with any value but a plainly false one,
/// or a `private` tag, marks the note; a block that does not parse is private (fail closed), and
/// so is one that opens but does not close within the window ([`note_is_private`] re-reads a
/// longer window before deciding). A `source: mcp-capture` (or `hand-filed`) marks an agent memory, which only
/// recall serves, under its scope, wherever the file lies.
pub fn is_private(head: &str) -> bool {
    !matches!(frontmatter::privacy(head), Privacy::Public)
}

/// Whether the note at `path` must be withheld as private.
///
/// Judged on [`head_frontmatter`]: withheld when marked private, when the frontmatter does not
/// parse or does not close within 64,000 characters, and when the path is not a readable
/// regular file.
pub fn note_is_private(path: &Path) -> bool {
    note_privacy(path).0
}

/// [`note_is_private`], with the stat of the file the verdict was read from (taken on the open
/// handle before reading; `None` when it could not be opened), so a caller can tell whether the
/// file it judged is the one it listed.
pub(crate) fn note_privacy(path: &Path) -> (bool, Option<crate::walk::FileStat>) {
    let (verdict, stat) = note_verdict(path);
    (verdict == Privacy::Private, stat)
}

/// What the note at `path` says about serving it ([`Privacy::Public`], [`Privacy::Private`] or
/// [`Privacy::Capture`]; a file that cannot be read or parsed is private), with the stat of
/// the file the verdict was read from, as [`note_privacy`].
pub(crate) fn note_verdict(path: &Path) -> (Privacy, Option<crate::walk::FileStat>) {
    let Some(file) = crate::markdown::open_regular(path) else {
        return (Privacy::Private, None);
    };
    let Ok(meta) = file.metadata() else {
        return (Privacy::Private, None);
    };
    let verdict = match head_frontmatter_of(&file) {
        Ok(None) => Privacy::Public,
        Ok(Some(map)) => frontmatter::privacy_of(&map),
        Err(()) => Privacy::Private,
    };
    (verdict, Some(crate::walk::FileStat::of(&meta)))
}

/// The parsed frontmatter of the note at `path`, read as a head: the first 1200 characters,
/// or the first 64,000 when the block does not close in the shorter read. `Ok(None)` for a
/// note without frontmatter; `Err` for an unreadable file or a block that does not close or
/// parse.
pub(crate) fn head_frontmatter(
    path: &Path,
) -> Result<Option<serde_json::Map<String, serde_json::Value>>, ()> {
    head_frontmatter_of(&crate::markdown::open_regular(path).ok_or(())?)
}

/// [`head_frontmatter`] of an open file (both reads from the one handle).
fn head_frontmatter_of(
    file: &std::fs::File,
) -> Result<Option<serde_json::Map<String, serde_json::Value>>, ()> {
    let head = crate::markdown::head_of(file, HEAD_CHARS).ok_or(())?;
    let head = match frontmatter::privacy(&head) {
        Privacy::Unclosed => crate::markdown::head_of(file, LONG_HEAD_CHARS).ok_or(())?,
        _ if frontmatter::wants_longer_head(&head) => {
            crate::markdown::head_of(file, LONG_HEAD_CHARS).ok_or(())?
        }
        _ => head,
    };
    // A binary file (UTF-16, say) cannot be judged: withheld, as the index skips it (judged
    // on the same first 8 KiB).
    if crate::markdown::file_looks_binary(file) {
        return Err(());
    }
    frontmatter::parse_text(&head).map_err(|_| ())
}

// ---- helpers -----------------------------------------------------------------------------------

fn canonical_or_given(p: &Path) -> PathBuf {
    fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The memory root as `/`-separated segments; anything unusable becomes the default.
fn clean_memory_root(memory_root: &str) -> String {
    let s = memory_root.trim().replace('\\', "/");
    let segs: Vec<&str> = s
        .split('/')
        .filter(|seg| !seg.is_empty() && *seg != ".")
        .collect();
    if segs.is_empty() || segs.contains(&"..") {
        DEFAULT_MEMORY_ROOT.to_string()
    } else {
        segs.join("/")
    }
}

fn without_memory(roots: Vec<String>, memory_roots: &[String]) -> Vec<String> {
    roots
        .into_iter()
        .filter(|r| !memory_roots.iter().any(|m| is_within_ci(r, m)))
        .collect()
}

/// Whether `rel` is `folder` or lies below it (whole segments, any case).
fn is_within_ci(rel: &str, folder: &str) -> bool {
    let segs: Vec<&str> = rel.split('/').collect();
    let folder: Vec<&str> = folder.split('/').collect();
    starts_with_segments(&segs, &folder)
}

/// How file names are compared with the never-expose list: composed (NFC, as a name synced
/// from macOS may be decomposed), then lowercased.
pub fn name_key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    if name.is_ascii() {
        // ASCII is its own composed form.
        return name.to_ascii_lowercase();
    }
    name.nfc().collect::<String>().to_lowercase()
}

fn clean_never_expose(entries: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in entries {
        let name = name_key(last_segment(e.trim()).trim());
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Whether `path` starts with all of `prefix`, segment by segment, ignoring case.
fn starts_with_segments(path: &[&str], prefix: &[&str]) -> bool {
    path.len() >= prefix.len() && path.iter().zip(prefix).all(|(a, b)| same_name(a, b))
}

/// Whether two path segments are equal ignoring case (as `str::to_lowercase` compares them;
/// ASCII without allocating).
fn same_name(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    a.to_lowercase() == b.to_lowercase()
}

/// A vault-relative path as segments (`\` read as `/`, empty and `.` segments dropped).
fn rel_segments(rel: &str) -> Result<Vec<&str>, Denied> {
    if rel.contains('\0') {
        return Err(Denied::Traversal);
    }
    let bytes = rel.as_bytes();
    if rel.starts_with(['/', '\\']) {
        return Err(Denied::Traversal); // absolute or UNC
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(Denied::Traversal); // drive path, or a drive-relative one
    }
    let segs: Vec<&str> = rel
        .split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    if segs.contains(&"..") {
        return Err(Denied::Traversal);
    }
    if segs.is_empty() {
        return Err(Denied::Missing);
    }
    Ok(segs)
}

fn last_segment(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn is_glob(seg: &str) -> bool {
    seg.contains(['*', '?', '[', ']', '{', '}'])
}

/// The folder of a cleaned root: the root itself, or for a shallow root (`brain/*.md`) the
/// folder before its name pattern.
pub(crate) fn root_folder(root: &str) -> &str {
    match root.rsplit_once('/') {
        Some((folder, last)) if is_glob(last) => folder,
        _ => root,
    }
}

/// Whether a file name matches a shallow root's pattern, case-insensitively: `*` is any run of
/// characters and `?` one character; a class (`[ab]`) or alternatives (`{a,b}`) are read as
/// glob syntax, and a pattern that is not valid glob syntax matches nothing.
fn wildcard_match(pattern: &str, name: &str) -> bool {
    if pattern.contains(['[', ']', '{', '}']) {
        return globset::GlobBuilder::new(pattern)
            .case_insensitive(true)
            .literal_separator(true)
            .build()
            .is_ok_and(|g| g.compile_matcher().is_match(name));
    }
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let n: Vec<char> = name.to_lowercase().chars().collect();
    // Iterative matcher with backtracking to the last `*`.
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Walks one exposed root's folder to `max_depth`, following symlinks only inside the root's
/// real path, and reports the vault-relative path of every `.md` file.
fn walk_root(
    vault: &Path,
    root: &str,
    root_real: &Path,
    max_depth: usize,
    found: &mut dyn FnMut(String),
) {
    Walk::new(vault)
        .start_at(root)
        .max_depth(max_depth)
        .follow_symlinks_within(root_real.to_path_buf())
        .run(&mut |e| {
            // A `\` in a name would read as a separator in the policy checks.
            if e.name.contains('\\') {
                return Step::Skip;
            }
            if !e.is_dir && crate::markdown::is_markdown_name(e.name) {
                found(e.rel.to_string());
            }
            Step::Continue
        });
}

/// Walks the vault to `max_depth` in name order without following symlinks, skipping dot
/// entries and `node_modules`; calls `visit(rel, abs)` for each `.md` file until it returns true.
fn walk_markdown(vault: &Path, max_depth: usize, visit: &mut dyn FnMut(&str, &Path) -> bool) {
    Walk::new(vault)
        .max_depth(max_depth)
        .skip_names(&SKIP_DIRS)
        .run(&mut |e| {
            if !e.is_dir && crate::markdown::is_markdown_name(e.name) && visit(e.rel, e.path) {
                return Step::Stop;
            }
            Step::Continue
        });
}

/// Whether a head's leading frontmatter (within the head) has a `source: mcp-capture` line.
fn is_agent_capture(head: &str) -> bool {
    let Some(fm) = frontmatter::block(head) else {
        return false;
    };
    fm.yaml.lines().any(|line| {
        let Some(value) = line.trim_end().strip_prefix("source:") else {
            return false;
        };
        matches!(
            value.trim(),
            "mcp-capture" | "\"mcp-capture\"" | "'mcp-capture'"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Below a real folder, a path without links is its own real path; a link anywhere on the
    /// way, a missing entry or a dotted segment leaves it to `canonicalize`.
    #[cfg(target_os = "linux")]
    #[test]
    fn real_below_is_canonicalize_without_links() {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        fs::create_dir_all(root.join("brain/deep")).unwrap();
        fs::write(root.join("brain/deep/a.md"), "a").unwrap();
        std::os::unix::fs::symlink(root.join("brain/deep"), root.join("brain/link")).unwrap();
        let got = real_below(&root, &["brain", "deep", "a.md"]).unwrap();
        assert_eq!(got, fs::canonicalize(root.join("brain/deep/a.md")).unwrap());
        assert_eq!(real_below(&root, &["brain", "link", "a.md"]), None);
        assert_eq!(real_below(&root, &["brain", "deep", "gone.md"]), None);
        assert_eq!(real_below(&root, &["brain", "..", "brain"]), None);
        assert_eq!(real_below(&root, &[]), None);
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn rels(files: &[VisibleFile]) -> Vec<&str> {
        files.iter().map(|f| f.rel.as_str()).collect()
    }

    fn policy(vault: &Path, roots: &[&str]) -> Exposure {
        Exposure::with_roots(vault, strings(roots), Vec::new(), "memories")
    }

    const SHIPPED_CONTENT_ROOTS: [&str; 13] = [
        "work/active/",
        "work/archive/",
        "work/incidents/",
        "work/1-1/",
        "org/people/",
        "org/teams/",
        "perf/brag/",
        "perf/evidence/",
        "perf/h*-*/",
        "perf/competencies/*.md",
        "brain/*.md",
        "reference/",
        "memories/",
    ];

    // ---- root cleaning and choosing -------------------------------------------------------

    #[test]
    fn clean_roots_drops_traversal_and_keeps_prefixes() {
        let got = clean_roots(&strings(&[
            "..",
            "../escape",
            "work/../x",
            "work/active",
            " ./brain/ ",
            "brain",
            "BRAIN/",
            "/reference/",
            "a\\b",
            "",
            "   ",
        ]));
        assert_eq!(got, ["work/active", "brain", "reference", "a/b"]);
    }

    #[test]
    fn clean_roots_turns_file_globs_into_folders_and_drops_folder_globs() {
        let got = clean_roots(&strings(&[
            "brain/*.md",
            "perf/competencies/*.md",
            "perf/h*-*/",
            "*/anything",
            "*.md",
            "a/*/b",
            "notes/**",
        ]));
        assert_eq!(got, ["brain/*.md", "perf/competencies/*.md", "notes"]);
        assert!(!clean_roots(&strings(&["perf/h*-*/"])).contains(&"perf".to_string()));
        let shipped = clean_roots(&strings(&SHIPPED_CONTENT_ROOTS));
        assert_eq!(
            shipped,
            [
                "work/active",
                "work/archive",
                "work/incidents",
                "work/1-1",
                "org/people",
                "org/teams",
                "perf/brag",
                "perf/evidence",
                "perf/competencies/*.md",
                "brain/*.md",
                "reference",
                "memories",
            ]
        );
    }

    #[test]
    fn a_path_that_is_gone_is_admitted_by_the_path_rules_only() {
        let dir = tempfile::tempdir().unwrap();
        let e = Exposure::with_roots(
            dir.path(),
            strings(&["work/active"]),
            strings(&["SOUL.md"]),
            "memories",
        );
        assert!(e.path_admitted("work/active/Gone.md"));
        assert!(!e.path_admitted("work/active/soul.md"), "never exposed");
        assert!(!e.path_admitted("work/active/.drafts/Gone.md"), "hidden");
        assert!(
            !e.path_admitted("work/archive/Gone.md"),
            "outside the roots"
        );
        assert!(!e.path_admitted("memories/Gone.md"), "a memory");
        assert!(!e.path_admitted("work/active/../x.md"));
        // Names are compared composed: a decomposed name synced from macOS still matches.
        let e = Exposure::with_roots(
            dir.path(),
            strings(&["brain"]),
            strings(&["Geh\u{e4}lter.md"]),
            "memories",
        );
        assert!(e.is_never_exposed("brain/Geha\u{308}lter.md"));
        assert!(e.is_never_exposed("brain/GEH\u{c4}LTER.md"));
    }

    #[test]
    fn a_file_the_index_skips_as_binary_is_never_served() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        // Plain frontmatter, then a NUL past the head but inside the index's 8 KiB probe.
        let mut bytes = b"---\ntitle: x\n---\n# X\n\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'a', 6_000));
        bytes.push(0);
        fs::create_dir_all(v.join("brain")).unwrap();
        fs::write(v.join("brain/Late.md"), &bytes).unwrap();
        write(v, "brain/Text.md", "---\ntitle: y\n---\n# Y\n");
        let e = policy(v, &["brain"]);
        assert_eq!(e.may_read("brain/Late.md"), Err(Denied::Private));
        assert!(e.may_read("brain/Text.md").is_ok());
        assert_eq!(rels(&e.visible_files()), ["brain/Text.md"]);
    }

    #[test]
    fn a_file_glob_root_stays_in_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "brain/Top.md", "# top\n");
        write(v, "brain/Secret.md", "# secret\n");
        write(v, "brain/deep/Secret.md", "# deep\n");
        write(v, "brain/a/b/Deeper.md", "# deeper\n");
        write(v, "reference/x/Deep.md", "# ref\n");
        write(v, "plans/Plan.md", "# plan\n");
        write(v, "plans/Other.txt.md", "# other\n");
        let e = policy(v, &["brain/*.md", "reference/", "plans/P*.md"]);
        assert_eq!(
            rels(&e.visible_files()),
            [
                "brain/Secret.md",
                "brain/Top.md",
                "plans/Plan.md",
                "reference/x/Deep.md"
            ]
        );
        assert!(e.may_read("brain/Top.md").is_ok());
        assert_eq!(
            e.may_read("brain/deep/Secret.md"),
            Err(Denied::OutsideRoots)
        );
        assert_eq!(e.may_read("brain/a/b/Deeper.md"), Err(Denied::OutsideRoots));
        assert_eq!(e.may_read("plans/Other.txt.md"), Err(Denied::OutsideRoots));
        // A batch check answers as each path's own check does.
        let check = e.read_check();
        for rel in [
            "brain/Top.md",
            "brain/deep/Secret.md",
            "brain/a/b/Deeper.md",
            "plans/Other.txt.md",
            "plans/Plan.md",
            "reference/x/Deep.md",
            "reference/x/Gone.md",
            "../brain/Top.md",
        ] {
            assert_eq!(check.may_read(rel), e.may_read(rel), "{rel}");
        }
        assert_eq!(e.matched_root("BRAIN/top.md"), Some("brain/*.md"));
        assert_eq!(e.matched_root("brain/deep/Secret.md"), None);
        assert!(wildcard_match("*.md", "A.MD"));
        assert!(wildcard_match("a*b?.md", "axxbc.md"));
        assert!(!wildcard_match("a*b?.md", "axxb.md"));
        // Classes and alternatives are glob syntax, never "every name".
        assert!(wildcard_match("{Patterns,Gotchas}.md", "gotchas.md"));
        assert!(!wildcard_match("{Patterns,Gotchas}.md", "Salary.md"));
        assert!(wildcard_match("[PG]*.md", "Patterns.md"));
        assert!(!wildcard_match("[PG]*.md", "Salary.md"));
        assert!(!wildcard_match("{broken.md", "{broken.md"));
        let e = policy(v, &["brain/{Top,Gone}.md"]);
        assert_eq!(rels(&e.visible_files()), ["brain/Top.md"]);
        assert_eq!(e.may_read("brain/Secret.md"), Err(Denied::OutsideRoots));
        assert_eq!(root_folder("brain/*.md"), "brain");
        assert_eq!(root_folder("work/active"), "work/active");
    }

    #[test]
    fn an_explicit_declaration_wins_and_is_not_checked_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("brain")).unwrap();
        let m = Manifest::from_json(json!({
            "mcp_exposed_roots": ["..", "../escape", "work/active", "ghost"],
            "user_content_roots": ["brain/"],
        }));
        let e = Exposure::resolve(dir.path(), &m, "memories");
        assert_eq!(e.source(), RootsSource::Manifest);
        assert_eq!(e.roots(), ["work/active", "ghost"]);
        assert_eq!(e.memory_root(), "memories");
    }

    #[test]
    fn an_explicit_declaration_that_cleans_to_nothing_exposes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "brain/a.md", "# a\n");
        write(dir.path(), "memories/2026/07/m.md", "# m\n");
        let m = Manifest::from_json(json!({"mcp_exposed_roots": ["../x", "memories/"]}));
        let e = Exposure::resolve(dir.path(), &m, "memories");
        assert_eq!(e.source(), RootsSource::Manifest);
        assert!(e.roots().is_empty());
        assert!(e.visible_files().is_empty());
        assert_eq!(e.may_read("brain/a.md"), Err(Denied::OutsideRoots));
    }

    #[test]
    fn roots_derive_from_user_content_roots_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        for d in [
            "work/active",
            "work/archive",
            "brain",
            "perf/h1-2026",
            "perf/competencies",
            "memories",
            "journal",
            "org/people",
        ] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let m = Manifest::from_json(json!({ "user_content_roots": SHIPPED_CONTENT_ROOTS }));
        let e = Exposure::resolve(dir.path(), &m, "memories");
        assert_eq!(e.source(), RootsSource::Derived);
        assert_eq!(
            e.roots(),
            [
                "work/active",
                "work/archive",
                "org/people",
                "perf/competencies/*.md",
                "brain/*.md"
            ]
        );
        assert!(!e.roots().contains(&"work/1-1".to_string()));
        assert!(
            !e.roots()
                .iter()
                .any(|r| r == "perf" || r == "memories" || r == "journal")
        );
    }

    #[test]
    fn without_keys_the_fallback_keeps_what_exists() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["brain", "work", "people", "journal"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let e = Exposure::resolve(dir.path(), &Manifest::default(), "memories");
        assert_eq!(e.source(), RootsSource::Fallback);
        assert_eq!(e.roots(), ["brain"]);
        assert!(e.never_expose().is_empty(), "never-expose ships empty");

        let empty = tempfile::tempdir().unwrap();
        let e = Exposure::resolve(empty.path(), &Manifest::default(), "memories");
        assert_eq!(e.source(), RootsSource::Fallback);
        assert_eq!(e.roots(), ["brain", "reference"]);

        // Declared content roots that are all missing also fall back.
        let m = Manifest::from_json(json!({"user_content_roots": ["work/active/", "memories/"]}));
        fs::create_dir_all(empty.path().join("memories")).unwrap();
        let e = Exposure::resolve(empty.path(), &m, "memories");
        assert_eq!(e.source(), RootsSource::Fallback);
        assert_eq!(e.roots(), ["brain", "reference"]);
    }

    // ---- the memory root ------------------------------------------------------------------

    #[test]
    fn the_memory_root_is_never_exposed() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(
            v,
            "memories/2026/07/2026-07-26 m.md",
            "---\nsource: mcp-capture\n---\n# m\n",
        );
        write(v, "memories/top.md", "# top\n");
        write(v, "recall/2026/07/r.md", "# r\n");
        write(v, "brain/a.md", "# a\n");

        let derived =
            Manifest::from_json(json!({"user_content_roots": ["memories/", "brain/*.md"]}));
        let explicit = Manifest::from_json(json!({
            "mcp_exposed_roots": ["memories", "./Memories/2026", "brain", "recall/"]
        }));
        for m in [&derived, &explicit] {
            let e = Exposure::resolve(v, m, "memories");
            assert!(
                !e.roots()
                    .iter()
                    .any(|r| r.to_lowercase().starts_with("memories"))
            );
            assert!(
                rels(&e.visible_files())
                    .iter()
                    .all(|r| !r.starts_with("memories"))
            );
            assert_eq!(e.may_read("memories/top.md"), Err(Denied::MemoryRoot));
            assert_eq!(
                e.may_read("memories/2026/07/2026-07-26 m.md"),
                Err(Denied::MemoryRoot)
            );
            assert_eq!(e.may_read("MEMORIES/top.md"), Err(Denied::MemoryRoot));
            assert_eq!(e.matched_root("memories/top.md"), None);
        }
        // With the default root, `recall` is an ordinary folder.
        let e = Exposure::resolve(v, &explicit, "memories");
        assert!(e.may_read("recall/2026/07/r.md").is_ok());

        // A renamed root follows: `recall` is withheld, even when named explicitly; the
        // configured root (`memories` by default) stays withheld too, so memories left there
        // are never served as notes.
        let e = Exposure::resolve(v, &explicit, "recall");
        assert_eq!(e.roots(), ["brain"]);
        assert_eq!(e.memory_roots(), ["recall", "memories"]);
        assert_eq!(e.may_read("memories/top.md"), Err(Denied::MemoryRoot));
        assert_eq!(e.may_read("recall/2026/07/r.md"), Err(Denied::MemoryRoot));
        assert!(
            !rels(&e.visible_files())
                .iter()
                .any(|r| r.starts_with("recall"))
        );

        // A hand-built policy too.
        let e = policy(v, &["memories", "memories/2026", "brain"]);
        assert_eq!(e.roots(), ["brain"]);
        assert_eq!(rels(&e.visible_files()), ["brain/a.md"]);
        assert_eq!(e.may_read("memories/top.md"), Err(Denied::MemoryRoot));
    }

    #[test]
    fn a_root_above_the_memory_root_still_withholds_it() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "work/notes/a.md", "# a\n");
        write(v, "work/mem/m.md", "# m\n");
        let e = Exposure::with_roots(v, strings(&["work"]), Vec::new(), "work/mem");
        assert_eq!(rels(&e.visible_files()), ["work/notes/a.md"]);
        assert_eq!(e.may_read("work/mem/m.md"), Err(Denied::MemoryRoot));
        assert_eq!(e.may_read("Work/Mem/m.md"), Err(Denied::MemoryRoot));
        #[cfg(unix)]
        {
            // A link to the memory folder that stays inside the root is still the memory root.
            std::os::unix::fs::symlink(v.join("work/mem"), v.join("work/other")).unwrap();
            assert_eq!(e.may_read("work/other/m.md"), Err(Denied::MemoryRoot));
            assert_eq!(rels(&e.visible_files()), ["work/notes/a.md"]);
        }
    }

    // ---- matching -------------------------------------------------------------------------

    #[test]
    fn roots_match_whole_segments_case_insensitively() {
        let dir = tempfile::tempdir().unwrap();
        let e = policy(dir.path(), &["brain", "work/active", "work/active/deep"]);
        assert_eq!(e.matched_root("work/brain/Secret.md"), None);
        assert_eq!(e.matched_root(""), None);
        assert_eq!(e.matched_root("work/active-secrets/x.md"), None);
        assert_eq!(e.matched_root("work/activex.md"), None);
        assert_eq!(e.matched_root("brainstorm/x.md"), None);
        assert_eq!(e.matched_root("brain/x.md"), Some("brain"));
        assert_eq!(e.matched_root("Brain/Sub/x.md"), Some("brain"));
        assert_eq!(e.matched_root("WORK/Active/x.md"), Some("work/active"));
        assert_eq!(e.matched_root("work\\active\\x.md"), Some("work/active"));
        assert_eq!(
            e.matched_root("work/active/deep/x.md"),
            Some("work/active/deep")
        );
        assert_eq!(e.matched_root("brain/../work/x.md"), None);
        assert_eq!(e.matched_root("/brain/x.md"), None);
        assert_eq!(e.matched_root("memories/x.md"), None);
    }

    #[test]
    fn a_sibling_root_prefix_admits_nothing_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "work/active/x.md", "# x\n");
        write(v, "work/active-secrets/s.md", "# s\n");
        write(v, "work/brain/Secret.md", "# s\n");
        let e = policy(v, &["work/active", "brain"]);
        assert_eq!(rels(&e.visible_files()), ["work/active/x.md"]);
        assert_eq!(
            e.may_read("work/active-secrets/s.md"),
            Err(Denied::OutsideRoots)
        );
        assert_eq!(
            e.may_read("work/brain/Secret.md"),
            Err(Denied::OutsideRoots)
        );
    }

    #[test]
    fn may_read_refuses_unsafe_paths() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "brain/a.md", "# a\n");
        write(v, "brain/b.txt", "b\n");
        write(v, "brain/.hidden/h.md", "# h\n");
        write(v, "brain/.dot.md", "# d\n");
        let e = policy(v, &["brain"]);
        for bad in [
            "/etc/passwd.md",
            "C:\\Windows\\x.md",
            "c:/x.md",
            "C:x.md",
            "\\\\server\\share\\x.md",
            "//server/share/x.md",
            "../x.md",
            "brain/../brain/a.md",
            "brain\\..\\..\\x.md",
            "brain/a\0.md",
        ] {
            assert_eq!(e.may_read(bad), Err(Denied::Traversal), "{bad:?}");
        }
        assert_eq!(e.may_read("brain/b.txt"), Err(Denied::NotMarkdown));
        assert_eq!(e.may_read("brain"), Err(Denied::NotMarkdown));
        assert_eq!(e.may_read(""), Err(Denied::Missing));
        assert_eq!(e.may_read("brain/nothere.md"), Err(Denied::Missing));
        assert_eq!(e.may_read("brain/.hidden/h.md"), Err(Denied::OutsideRoots));
        assert_eq!(e.may_read("brain/.dot.md"), Err(Denied::OutsideRoots));
        let real = e.may_read("brain/a.md").unwrap();
        assert!(real.is_absolute());
        assert_eq!(real, fs::canonicalize(v.join("brain/a.md")).unwrap());
        assert_eq!(
            e.may_read("./brain/A.MD").is_ok(),
            v.join("brain/A.MD").exists()
        );
        assert_eq!(
            Denied::Escapes.to_string(),
            "symlink leads outside its exposed root"
        );
        assert_eq!(
            serde_json::to_value(Denied::OutsideRoots).unwrap(),
            "outside_roots"
        );
        assert_eq!(
            serde_json::to_value(RootsSource::Derived).unwrap(),
            "derived"
        );
    }

    // ---- never-expose ---------------------------------------------------------------------

    #[test]
    fn never_expose_matches_whole_file_names_in_any_case() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        let m = Manifest::from_json(json!({
            "mcp_exposed_roots": ["brain"],
            "mcp_never_expose": ["SOUL.md", " My Private Notes.md ", 7],
        }));
        let by_manifest = Exposure::resolve(v, &m, "memories");
        let by_hand = Exposure::with_roots(
            v,
            strings(&["brain"]),
            strings(&["SOUL.md", "My Private Notes.md"]),
            "memories",
        );
        for e in [&by_manifest, &by_hand] {
            for name in [
                "SOUL.md",
                "soul.md",
                "Soul.md",
                "SoUl.MD",
                "brain/SOUL.md",
                "brain\\SOUL.md",
            ] {
                assert!(e.is_never_exposed(name), "{name}");
            }
            assert!(e.is_never_exposed("brain/my private notes.md"));
            assert!(!e.is_never_exposed("SOULFUL.md"));
            assert!(!e.is_never_exposed("brain/SOUL.md.bak"));
            assert!(!e.is_never_exposed("xSOUL.md"));
        }

        write(v, "brain/SOUL.md", "# soul\n");
        write(v, "brain/sub/soul.md", "# soul\n");
        write(v, "brain/SOULFUL.md", "# soulful\n");
        write(v, "brain/My Private Notes.md", "# p\n");
        write(v, "brain/Open Notes.md", "# o\n");
        for e in [&by_manifest, &by_hand] {
            assert_eq!(
                rels(&e.visible_files()),
                ["brain/Open Notes.md", "brain/SOULFUL.md"]
            );
            assert_eq!(e.may_read("brain/SOUL.md"), Err(Denied::NeverExposed));
            assert_eq!(e.may_read("brain/sub/soul.md"), Err(Denied::NeverExposed));
            assert_eq!(e.may_read("brain\\SOUL.md"), Err(Denied::NeverExposed));
            assert_eq!(
                e.may_read("brain/My Private Notes.md"),
                Err(Denied::NeverExposed)
            );
            assert!(e.may_read("brain/SOULFUL.md").is_ok());
            assert!(e.may_read("brain/Open Notes.md").is_ok());
        }
    }

    // ---- privacy --------------------------------------------------------------------------

    #[test]
    fn private_markers_in_the_head() {
        assert!(is_private("---\ntags:\n  - work\n  - private\n---\nbody\n"));
        assert!(is_private("---\ntags:\n- private\n---\n"));
        assert!(is_private("---\nprivate\n---\n"));
        assert!(is_private("---\ntags: [work, private]\n---\n"));
        assert!(is_private("---\ntags: \"private\"\n---\n"));
        assert!(is_private("---\nprivate: true\n---\n"));
        assert!(is_private("---\r\nprivate: true\r\n---\r\n"));
        assert!(is_private("\u{feff}---\nPrivate: True\n---\n"));
        assert!(!is_private("---\nprivate: false\n---\n"));
        assert!(!is_private("---\ntags: [work, privacy]\n---\n"));
        assert!(!is_private("---\ndescription: private notes on x\n---\n"));
        assert!(!is_private(
            "---\ntitle: x\n---\nThis is private, keep it quiet.\nprivate\n- private\n"
        ));
        assert!(!is_private("no frontmatter\nprivate: true\n- private\n"));
        assert!(!is_private("# Title\n\n---\n\nprivate: true\n---\n"));
        assert!(!is_private(""));
        // An unclosed block in the window is withheld until a longer read says otherwise.
        assert!(is_private("---\ntitle: x\naliases:\n  - a\n"));
        // Merge keys write the keys they merge; a malformed merge does not parse.
        assert!(is_private("---\n<<: {private: true}\n---\n"));
        assert!(is_private("---\nbase: &b {private: true}\n<<: *b\n---\n"));
        assert!(is_private(
            "---\n<<: [{title: x}, {tags: [private]}]\n---\n"
        ));
        assert!(is_private("---\n<<: 5\n---\n"));
        assert!(!is_private("---\n<<: {title: x}\n---\n"));
        assert!(!is_private(
            "---\nprivate: false\n<<: {private: true}\n---\n"
        ));
    }

    #[test]
    fn private_and_unreadable_notes_are_withheld() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "brain/tag.md", "---\ntags:\n  - private\n---\n# t\n");
        write(v, "brain/flag.md", "---\nprivate: true\n---\n# f\n");
        write(v, "brain/inline.md", "---\ntags: [a, private]\n---\n# i\n");
        write(
            v,
            "brain/prose.md",
            "---\ntags: [a]\n---\nThis is private, really private.\n",
        );
        write(v, "brain/plain.md", "Just text with private in it.\n");
        // Unreadable: a folder named like a note, and a dangling link.
        fs::create_dir_all(v.join("brain/folder.md")).unwrap();
        assert!(note_is_private(&v.join("brain/folder.md")));
        assert!(note_is_private(&v.join("brain/missing.md")));
        let e = policy(v, &["brain"]);
        assert_eq!(
            rels(&e.visible_files()),
            ["brain/plain.md", "brain/prose.md"]
        );
        for rel in [
            "brain/tag.md",
            "brain/flag.md",
            "brain/inline.md",
            "brain/folder.md",
        ] {
            assert_eq!(e.may_read(rel), Err(Denied::Private), "{rel}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(v.join("brain/gone.md"), v.join("brain/dangling.md"))
                .unwrap();
            assert!(note_is_private(&v.join("brain/dangling.md")));
            assert_eq!(e.may_read("brain/dangling.md"), Err(Denied::Missing));
        }
    }

    #[test]
    fn long_frontmatter_is_judged_on_a_longer_read() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        let aliases: String = (0..200)
            .map(|i| format!("  - alias number {i}\n"))
            .collect();
        assert!(aliases.len() > 3 * HEAD_CHARS);
        let late_marker = format!("---\naliases:\n{aliases}private: true\n---\n# late\n");
        let late_tag = format!("---\naliases:\n{aliases}tags:\n  - private\n---\n# late\n");
        let long_public = format!("---\naliases:\n{aliases}---\n# public\n");
        let runaway: String = format!(
            "---\naliases:\n{}",
            (0..5000)
                .map(|i| format!("  - alias-name-{i}\n"))
                .collect::<String>()
        );
        assert!(runaway.len() > LONG_HEAD_CHARS);
        write(v, "brain/late.md", &late_marker);
        write(v, "brain/late-tag.md", &late_tag);
        write(v, "brain/long.md", &long_public);
        write(v, "brain/runaway.md", &runaway);
        write(v, "brain/rule.md", "# Title\n\ntext\n\n---\n\nmore\n");
        write(v, "brain/rule-first.md", "Intro\n---\nprivate: true\n---\n");
        assert!(note_is_private(&v.join("brain/late.md")));
        assert!(note_is_private(&v.join("brain/late-tag.md")));
        assert!(!note_is_private(&v.join("brain/long.md")));
        assert!(note_is_private(&v.join("brain/runaway.md")));
        assert!(!note_is_private(&v.join("brain/rule.md")));
        let e = policy(v, &["brain"]);
        assert_eq!(
            rels(&e.visible_files()),
            ["brain/long.md", "brain/rule-first.md", "brain/rule.md"]
        );
        assert_eq!(e.may_read("brain/runaway.md"), Err(Denied::Private));
        assert_eq!(e.may_read("brain/late.md"), Err(Denied::Private));
    }

    // ---- enumeration and symlinks ---------------------------------------------------------

    #[test]
    fn visible_files_walk_each_root_to_depth_four() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "brain/Top Note.md", "# t\n");
        write(v, "brain/a/b/c/d/deep.md", "# d\n");
        write(v, "brain/a/b/c/d/e/too-deep.md", "# d\n");
        write(v, "brain/.obsidian/x.md", "# x\n");
        write(v, "brain/.secret.md", "# s\n");
        write(v, "brain/image.png", "png");
        write(v, "brain/UPPER.MD", "# u\n");
        write(v, "work/active/p.md", "# p\n");
        write(v, "work/active/deep/q.md", "# q\n");
        write(v, "work/other.md", "# o\n");
        let e = policy(v, &["work/active", "brain", "work/active/deep", "ghost"]);
        let files = e.visible_files();
        assert_eq!(
            rels(&files),
            [
                "brain/Top Note.md",
                "brain/UPPER.MD",
                "brain/a/b/c/d/deep.md",
                "work/active/deep/q.md",
                "work/active/p.md",
            ]
        );
        assert_eq!(files[0].label, "Top Note");
        assert_eq!(files[0].scope, "brain");
        assert_eq!(files[1].label, "UPPER");
        assert_eq!(files[3].scope, "work/active/deep");
        assert_eq!(files[4].scope, "work/active");
        for f in &files {
            assert!(e.may_read(&f.rel).is_ok(), "{}", f.rel);
        }
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_followed_only_inside_their_root() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "secret.md", "# secret\n");
        write(outside.path(), "dir/inner.md", "# inner\n");
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "brain/real.md", "# real\n");
        write(v, "brain/sub/target.md", "# target\n");
        write(v, "work/1-1/Sarah.md", "# sarah\n");
        write(v, "work/active/x.md", "# x\n");
        symlink(outside.path().join("secret.md"), v.join("brain/out.md")).unwrap();
        symlink(outside.path().join("dir"), v.join("brain/outdir")).unwrap();
        symlink(v.join("brain/sub/target.md"), v.join("brain/inside.md")).unwrap();
        symlink(v.join("brain/sub"), v.join("brain/subdir-link")).unwrap();
        symlink(v.join("brain"), v.join("brain/sub/loop")).unwrap();
        symlink(v.join("brain/nowhere.md"), v.join("brain/broken.md")).unwrap();
        symlink(v.join("work/1-1/Sarah.md"), v.join("work/active/sarah.md")).unwrap();
        symlink(v.join("brain/real.md"), v.join("brain/note-to-text.txt")).unwrap();
        symlink(
            v.join("brain/sub/target.md"),
            v.join("brain/hidden-target.md"),
        )
        .unwrap();

        let e = policy(v, &["brain", "work/active"]);
        let files = rels(&e.visible_files())
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>();
        assert_eq!(
            files,
            [
                "brain/hidden-target.md",
                "brain/inside.md",
                "brain/real.md",
                "brain/sub/target.md",
                "work/active/x.md",
            ]
        );
        // `brain/subdir-link` is `brain/sub` again: each real folder is walked once.
        // The walk itself never enters a folder outside the root.
        let mut walked = Vec::new();
        let brain_real = fs::canonicalize(v.join("brain")).unwrap();
        walk_root(
            e.vault_root(),
            "brain",
            &brain_real,
            WALK_DEPTH,
            &mut |rel| walked.push(rel),
        );
        assert!(
            !walked.iter().any(|r| r.starts_with("brain/out")),
            "{walked:?}"
        );
        assert!(walked.contains(&"brain/inside.md".to_string()));
        assert_eq!(e.may_read("brain/out.md"), Err(Denied::Escapes));
        assert_eq!(e.may_read("brain/outdir/inner.md"), Err(Denied::Escapes));
        assert_eq!(e.may_read("work/active/sarah.md"), Err(Denied::Escapes));
        assert_eq!(e.may_read("work/1-1/Sarah.md"), Err(Denied::OutsideRoots));
        assert_eq!(e.may_read("brain/broken.md"), Err(Denied::Missing));
        assert_eq!(
            e.may_read("brain/inside.md").unwrap(),
            fs::canonicalize(v.join("brain/sub/target.md")).unwrap()
        );
        // A `.md` link whose target is hidden inside the root is not served.
        fs::rename(
            v.join("brain/sub/target.md"),
            v.join("brain/sub/.target.md"),
        )
        .unwrap();
        fs::remove_file(v.join("brain/hidden-target.md")).unwrap();
        symlink(
            v.join("brain/sub/.target.md"),
            v.join("brain/hidden-target.md"),
        )
        .unwrap();
        assert_eq!(
            e.may_read("brain/hidden-target.md"),
            Err(Denied::OutsideRoots)
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_root_is_contained_by_its_own_real_path() {
        use std::os::unix::fs::symlink;
        let elsewhere = tempfile::tempdir().unwrap();
        write(elsewhere.path(), "shared/n.md", "# n\n");
        write(elsewhere.path(), "private/p.md", "# p\n");
        symlink(
            elsewhere.path().join("private/p.md"),
            elsewhere.path().join("shared/p.md"),
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        symlink(
            elsewhere.path().join("shared"),
            dir.path().join("reference"),
        )
        .unwrap();
        let e = policy(dir.path(), &["reference"]);
        assert_eq!(rels(&e.visible_files()), ["reference/n.md"]);
        assert!(e.may_read("reference/n.md").is_ok());
        assert_eq!(e.may_read("reference/p.md"), Err(Denied::Escapes));
    }

    // ---- names ----------------------------------------------------------------------------

    #[test]
    fn resolvable_names_take_labels_and_head_aliases() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(
            v,
            "brain/Deploy Runbook.md",
            "---\naliases:\n  - Rollback Guide\n  - 'it''s here'\n  - \"say \\\"hi\\\"\"\ntags: [x]\n---\n# r\n",
        );
        write(
            v,
            "brain/Inline.md",
            "---\naliases: [One, \"Two, Three\", 'Four']\n---\n",
        );
        write(v, "brain/Lone.md", "---\naliases: Solo\n---\n");
        write(v, "brain/Body.md", "# body\naliases: [not, these]\n");
        let pad = "x".repeat(HEAD_CHARS);
        write(
            v,
            "brain/Late.md",
            &format!("---\ndescription: {pad}\naliases: [too late]\n---\n"),
        );
        let e = policy(v, &["brain"]);
        let mut files = e.visible_files();
        files.push(VisibleFile {
            rel: "brain/Vanished.md".into(),
            label: "Vanished".into(),
            scope: "brain".into(),
        });
        let names = e.resolvable_names(&files);
        let mut sorted: Vec<&str> = names.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            [
                "body",
                "deploy runbook",
                "four",
                "inline",
                "it's here",
                "late",
                "lone",
                "one",
                "rollback guide",
                "say \"hi\"",
                "solo",
                // A frontmatter longer than the first read is read whole (up to 64,000 chars).
                "too late",
                "two, three",
                "vanished",
            ]
        );
    }

    #[test]
    fn caller_platforms_come_from_the_project_note_anywhere_in_the_vault() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(
            v,
            "memories/2026/atlas.md",
            "---\nplatforms: [memory-copy]\n---\n",
        );
        write(v, ".archive/atlas.md", "---\nplatforms: [hidden]\n---\n");
        write(
            v,
            "node_modules/pkg/Atlas.md",
            "---\nplatforms: [dep]\n---\n",
        );
        write(
            v,
            "work/a/b/c/d/e/f/Atlas.md",
            "---\ntitle: Atlas\nplatforms:\n  - ios\n  - android\n---\n# Atlas\n",
        );
        write(v, "work/single/Pocket.md", "---\nplatforms: web\n---\n");
        write(v, "work/none/Bare.md", "---\ntitle: bare\n---\n");
        write(
            v,
            "work/broken/Odd.md",
            "---\nplatforms: [ios, mac]\ntitle: [unclosed\n---\n",
        );
        assert_eq!(caller_platforms(v, "memories", "atlas"), ["ios", "android"]);
        assert_eq!(
            caller_platforms(v, "memories", " ATLAS "),
            ["ios", "android"]
        );
        assert_eq!(caller_platforms(v, "memories", "pocket"), ["web"]);
        // One parser everywhere: a frontmatter that does not parse gives nothing.
        assert!(caller_platforms(v, "memories", "odd").is_empty());
        assert!(caller_platforms(v, "memories", "bare").is_empty());
        assert!(caller_platforms(v, "memories", "nobody").is_empty());
        assert!(caller_platforms(v, "memories", "").is_empty());
        assert!(caller_platforms(v, "memories", "work/single/pocket").is_empty());
        // The memory root is skipped whatever it is called.
        fs::remove_file(v.join("work/a/b/c/d/e/f/Atlas.md")).unwrap();
        assert!(caller_platforms(v, "memories", "atlas").is_empty());
        assert_eq!(caller_platforms(v, "recall", "atlas"), ["memory-copy"]);
    }

    #[test]
    fn no_agent_note_can_shadow_a_projects_platforms() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(
            v,
            "work/active/Beacon.md",
            "---\nplatforms: [ios]\n---\n# Beacon\n",
        );
        // Earlier in name order: what record_work writes, a capture filed by hand, a note
        // that merely shares the name.
        write(
            v,
            "inbox/beacon.md",
            "---\ndate: 2026-12-03\naliases:\n  - 'Beacon'\nsource_repo: 'evil'\nplatforms: [evil]\n---\n# Beacon\n",
        );
        write(
            v,
            "brain/Beacon.md",
            "---\nsource: mcp-capture\nplatforms: [web]\n---\n",
        );
        write(v, "archive/beacon.md", "---\ntitle: old beacon\n---\n");
        write(v, "a/beacon.md", "no frontmatter at all\n");
        assert_eq!(caller_platforms(v, "memories", "beacon"), ["ios"]);
    }

    // ---- memory-root discovery ------------------------------------------------------------

    fn capture(quote: &str) -> String {
        format!("---\ndate: 2026-07-26\nsource: {quote}mcp-capture{quote}\n---\n# m\n")
    }

    #[test]
    fn discovery_without_captures_keeps_the_configured_root() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        for i in 0..5 {
            write(
                v,
                &format!("notes/n{i}.md"),
                "---\nsource: human\n---\n# n\n",
            );
        }
        write(v, "notes/body.md", "# x\n\nsource: mcp-capture\n");
        write(v, "root-capture.md", &capture(""));
        let info = discover_memory_root(v, "memories");
        assert_eq!(
            info,
            MemoryRootInfo {
                root: "memories".into(),
                source: "configured",
                memories: 0,
                healed: false,
                split: Vec::new(),
            }
        );
        let missing = discover_memory_root(&v.join("nope"), "recall");
        assert_eq!((missing.root.as_str(), missing.memories), ("recall", 0));
    }

    #[test]
    fn discovery_heals_to_where_the_captures_are() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "recall/2026/07/a.md", &capture(""));
        write(v, "recall/2026/07/b.md", &capture("\""));
        write(v, "recall/2026/08/c.md", &capture("'"));
        for i in 0..10 {
            write(v, &format!("memories/human{i}.md"), "# a human note\n");
        }
        write(v, ".hidden/x/y.md", &capture(""));
        write(v, "node_modules/m.md", &capture(""));
        write(v, "deep/a/b/c/d/e/x.md", &capture(""));
        let info = discover_memory_root(v, "memories");
        assert_eq!(info.root, "recall");
        assert_eq!(info.source, "discovered");
        assert!(info.healed);
        assert_eq!(info.memories, 3);
        assert!(info.split.is_empty());

        let same = discover_memory_root(v, "recall");
        assert_eq!(
            (same.source, same.healed, same.memories),
            ("configured", false, 3)
        );
    }

    #[test]
    fn discovery_reports_a_split_store() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path();
        write(v, "memories/2026/07/a.md", &capture(""));
        write(v, "archive/old/b.md", &capture(""));
        write(v, "archive/old/c.md", &capture(""));
        write(v, "memories/2026/07/d.md", &capture(""));
        write(v, "zeta/e.md", &capture(""));
        let info = discover_memory_root(v, "memories");
        // A tie goes to the folder met first.
        assert_eq!(info.root, "archive");
        assert!(info.healed);
        assert_eq!(info.memories, 2);
        assert_eq!(
            info.split,
            [
                ("archive".to_string(), 2),
                ("memories".to_string(), 2),
                ("zeta".to_string(), 1)
            ]
        );
        write(v, "memories/2026/08/f.md", &capture(""));
        let info = discover_memory_root(v, "memories");
        assert_eq!(
            (info.root.as_str(), info.source, info.healed, info.memories),
            ("memories", "configured", false, 3)
        );
        assert_eq!(info.split.len(), 3);
        let json = serde_json::to_value(&info).unwrap();
        assert_eq!(json["split"][0], json!(["archive", 2]));
    }

    #[test]
    fn the_capture_probe_reads_only_the_leading_block() {
        assert!(is_agent_capture(&capture("")));
        assert!(is_agent_capture("---\nsource: \"mcp-capture\"  \n---\n"));
        assert!(!is_agent_capture("---\nsource: mcp-captured\n---\n"));
        assert!(!is_agent_capture("---\nsource: hand-filed\n---\n"));
        assert!(!is_agent_capture("# t\n---\nsource: mcp-capture\n---\n"));
        assert!(!is_agent_capture(
            "---\ntitle: x\n---\nsource: mcp-capture\n"
        ));
        let dir = tempfile::tempdir().unwrap();
        let pad = "x".repeat(PROBE_CHARS);
        write(
            dir.path(),
            "m/late.md",
            &format!("---\nd: {pad}\nsource: mcp-capture\n---\n"),
        );
        assert_eq!(discover_memory_root(dir.path(), "memories").memories, 0);
    }
}
