//! The vault's file tree as one caller may see it ([`Scoped::tree`]) and bounded, audited reads
//! of its notes ([`Scoped::reads`]): what the lifecycle hooks build their briefings and hygiene
//! reports from, so they never walk the vault, judge privacy or parse markdown themselves.

use std::collections::{BTreeSet, HashSet};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value, json};

use super::Scoped;
use crate::audit::AuditAction;
use crate::exposure::{ListedFile, name_key, open_visible};
use crate::manifest::Manifest;
use crate::markdown::{self, blocks, blocks::Fences};
use crate::walk::{FileStat, Walk, is_within, stat_while_walking};

/// Deepest folder level a tree scan enters.
const MAX_DEPTH: usize = 64;
/// Paths an audit line of [`Reads`] names (the count is always exact).
const AUDITED_PATHS: usize = 50;

/// Whether `rel` lies in the memory store at `memory_root` (none when it is empty).
fn in_store(memory_root: &str, rel: &str) -> bool {
    !memory_root.is_empty() && is_within(rel, memory_root)
}

/// One file of a [`VaultTree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    /// Vault-relative, `/`-separated.
    pub rel: String,
    /// Size in bytes when the tree was scanned (a followed symlink's target's).
    pub size: u64,
    /// Last modification when the tree was scanned.
    pub modified: SystemTime,
    /// Whether the walk reached it through a symlink (its own or a folder's above it).
    through_link: bool,
    /// Its stat when scanned (keys the privacy cache).
    stat: Option<FileStat>,
}

impl TreeFile {
    /// A file as given (for trees built by hand, see [`VaultTree::new`]).
    pub fn new(rel: impl Into<String>, size: u64, modified: SystemTime) -> TreeFile {
        TreeFile {
            rel: rel.into(),
            size,
            modified,
            through_link: false,
            stat: None,
        }
    }

    fn from_stat(rel: String, stat: FileStat, through_link: bool) -> TreeFile {
        TreeFile {
            rel,
            size: stat.size,
            modified: SystemTime::UNIX_EPOCH + Duration::from_nanos(stat.mtime_ns.max(0) as u64),
            through_link,
            stat: Some(stat),
        }
    }
}

/// The vault's files and folders as one caller may be told of them ([`Scoped::tree`]).
///
/// Found by the engine's walker: dot entries (so the index) and `node_modules` skipped,
/// symlinks followed only inside the vault, each real folder entered once, at most 64 levels
/// deep. Left out: notes marked private, never-exposed names, files reached through a link
/// whose real path is withheld, and everything outside the exposed roots except the memory
/// store (whose files are counted by the hooks, never named) and the manifest's
/// infrastructure that is not private (agent manuals, templates: told of, never listed).
#[derive(Debug, Clone)]
pub struct VaultTree {
    /// Sorted by path.
    files: Vec<TreeFile>,
    /// Every folder, vault-relative (the root not included).
    dirs: BTreeSet<String>,
    /// Where the agent memories live, as the engine finds it.
    memory_root: String,
    /// When the scan began (before the first stat).
    scanned_at: SystemTime,
    /// The files left out whose names may not be told (vault-relative, sorted).
    withheld: Vec<String>,
    /// The manifest the tree was judged under (its infrastructure patterns).
    manifest: Manifest,
}

impl VaultTree {
    /// A tree as given, withholding nothing (for tests and tools that list a tree already
    /// judged). `files` need not be sorted.
    pub fn new(mut files: Vec<TreeFile>, dirs: BTreeSet<String>, memory_root: &str) -> VaultTree {
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        VaultTree {
            files,
            dirs,
            memory_root: memory_root.to_string(),
            scanned_at: SystemTime::UNIX_EPOCH,
            withheld: Vec::new(),
            manifest: Manifest::default(),
        }
    }

    /// The files, sorted by path.
    pub fn files(&self) -> &[TreeFile] {
        &self.files
    }

    /// Every folder, vault-relative, sorted (the root not included).
    pub fn dirs(&self) -> &BTreeSet<String> {
        &self.dirs
    }

    /// Where the agent memories live (vault-relative; empty when the vault has none).
    pub fn memory_root(&self) -> &str {
        &self.memory_root
    }

    /// When the scan began.
    pub fn scanned_at(&self) -> SystemTime {
        self.scanned_at
    }

    /// Whether `text` names a withheld file: its name without `.md`, in any case and composed
    /// (NFC), as a whole word (a commit subject "vault backup: Secret Merger.md"; "Plan" does
    /// not make "planning" a mention). The memory store's files count as withheld here: their
    /// names are their titles.
    pub fn names_withheld(&self, text: &str) -> bool {
        let text = name_key(text);
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        let memories = self
            .files_under(&self.memory_root)
            .filter(|_| !self.memory_root.is_empty())
            .map(|f| &f.rel);
        self.withheld.iter().chain(memories).any(|rel| {
            let file = rel.rsplit_once('/').map_or(rel.as_str(), |(_, n)| n);
            let stem = if markdown::is_markdown_name(file) {
                &file[..file.len() - 3]
            } else {
                file
            };
            let name = name_key(stem);
            !name.is_empty()
                && text.match_indices(&name).any(|(at, _)| {
                    !word(text[..at].chars().next_back())
                        && !word(text[at + name.len()..].chars().next())
                })
        })
    }

    /// Whether the vault-relative `rel` is a file of this tree outside the memory store.
    pub fn shows(&self, rel: &str) -> bool {
        !self.in_memory_store(rel)
            && self
                .files
                .binary_search_by(|f| f.rel.as_str().cmp(rel))
                .is_ok()
    }

    /// Whether an agent may be told of `rel` (a path named by git history, say, that may be
    /// gone): a file [`VaultTree::shows`], or the manifest's infrastructure that was not
    /// withheld (a private draft under `templates/` is).
    pub fn tells_of(&self, rel: &str) -> bool {
        self.shows(rel)
            || (self.manifest.is_infrastructure(rel)
                && self
                    .withheld
                    .binary_search_by(|w| w.as_str().cmp(rel))
                    .is_err())
    }

    /// Whether `rel` lies in the memory store.
    pub fn in_memory_store(&self, rel: &str) -> bool {
        in_store(&self.memory_root, rel)
    }

    /// This tree without `dir` and everything under it.
    pub fn without_under(&self, dir: &str) -> VaultTree {
        let inside = |rel: &str| is_within(rel, dir);
        VaultTree {
            files: self
                .files
                .iter()
                .filter(|f| !inside(&f.rel))
                .cloned()
                .collect(),
            dirs: self.dirs.iter().filter(|d| !inside(d)).cloned().collect(),
            ..self.clone()
        }
    }

    /// Keeps only the files `keep` accepts.
    pub fn retain_files(&mut self, keep: impl FnMut(&TreeFile) -> bool) {
        self.files.retain(keep);
    }

    /// The files directly inside `dir` (vault-relative, no trailing slash; `""` for the root).
    pub fn files_in<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a TreeFile> {
        let near = if dir.is_empty() {
            &self.files[..]
        } else {
            self.under(dir)
        };
        near.iter()
            .filter(move |f| f.rel.rsplit_once('/').map_or("", |(p, _)| p) == dir)
    }

    /// The files anywhere under `dir` (none for the root).
    pub fn files_under<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a TreeFile> {
        self.under(dir).iter()
    }

    /// The run of `files` (sorted by path) under `dir`, found by binary search, so per-folder
    /// counts cost no pass over the whole vault.
    fn under(&self, dir: &str) -> &[TreeFile] {
        if dir.is_empty() {
            return &[];
        }
        let prefix = format!("{dir}/");
        let start = self
            .files
            .partition_point(|f| f.rel.as_str() < prefix.as_str());
        let len = self.files[start..].partition_point(|f| f.rel.starts_with(&prefix));
        &self.files[start..start + len]
    }

    /// Every file and folder under `root`, nothing judged.
    fn scan(root: &std::path::Path) -> VaultTree {
        let mut tree = VaultTree::new(Vec::new(), BTreeSet::new(), "");
        tree.scanned_at = SystemTime::now();
        let mut walk = Walk::new(root)
            .max_depth(MAX_DEPTH)
            .skip_names(&["node_modules"]);
        if let Ok(real) = std::fs::canonicalize(root) {
            walk = walk.follow_symlinks_within(real);
        }
        let dirs = &mut tree.dirs;
        // Followed symlinks to folders, and the files reached through a symlink.
        let mut linked_dirs: Vec<String> = Vec::new();
        let mut linked: HashSet<String> = HashSet::new();
        // A stat per file is most of the scan: stated in parallel while the walk goes on.
        let (listed, _) = stat_while_walking(&walk, &mut |e| {
            let via_link =
                e.target_stat().is_some() || linked_dirs.iter().any(|d| is_within(e.rel, d));
            if e.is_dir {
                dirs.insert(e.rel.to_string());
                if via_link {
                    linked_dirs.push(e.rel.to_string());
                }
                None
            } else {
                if via_link {
                    linked.insert(e.rel.to_string());
                }
                Some(e.rel.to_string())
            }
        });
        for (rel, _, st) in listed {
            if let Ok(stat) = st {
                let through_link = linked.contains(&rel);
                tree.files
                    .push(TreeFile::from_stat(rel, stat, through_link));
            }
        }
        tree.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        tree
    }
}

/// A note read by [`Reads::note`]: its text (at most the bytes asked for) and the engine's
/// markdown reader over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibleText {
    /// The vault-relative path.
    pub rel: String,
    /// The text read (lossily decoded).
    pub text: String,
    /// Whether `text` holds only the head of the file.
    pub truncated: bool,
}

impl VisibleText {
    /// The parsed frontmatter (`None` without one, or when it does not close or parse).
    pub fn frontmatter(&self) -> Option<Map<String, Value>> {
        markdown::frontmatter(&self.text)
    }

    /// A frontmatter field as a trimmed, non-empty string (a string, number or boolean; the key
    /// matched without case).
    pub fn field(&self, key: &str) -> Option<String> {
        markdown::frontmatter_str(&self.text, key)
    }

    /// The text after the frontmatter.
    pub fn body(&self) -> &str {
        markdown::body(&self.text)
    }

    /// The body's lines from the first heading whose text starts with `heading` (any level,
    /// without case) to the end of the body; headings inside code fences do not count. `None`
    /// when no heading matches.
    pub fn lines_from_heading(&self, heading: &str) -> Option<Vec<&str>> {
        let want = heading.to_lowercase();
        let mut fences = Fences::default();
        let lines: Vec<&str> = self.body().lines().collect();
        let start = lines.iter().position(|l| {
            !fences.is_code(l)
                && blocks::heading(l).is_some_and(|(_, t)| t.to_lowercase().starts_with(&want))
        })?;
        Some(lines[start..].to_vec())
    }

    /// The body's lines that are outside code fences.
    pub fn prose_lines(&self) -> Vec<&str> {
        let mut fences = Fences::default();
        self.body().lines().filter(|l| !fences.is_code(l)).collect()
    }
}

/// Bounded reads of visible notes for one purpose (a hook, say), made from [`Scoped::reads`]:
/// each note is read from one open file checked against the policy, and the notes read are
/// written to the audit log in one line when the reads end (where the vault has an index
/// folder, which holds the log). Shareable across threads.
#[derive(Debug)]
pub struct Reads<'s, 'v> {
    view: &'s Scoped<'v>,
    purpose: String,
    read: Mutex<Vec<String>>,
}

impl Reads<'_, '_> {
    /// The note at the vault-relative `rel` when this view may read it, at most `max_bytes`
    /// of it; `None` when it is missing, hidden, private or unreadable (the same answer).
    pub fn note(&self, rel: &str, max_bytes: usize) -> Option<VisibleText> {
        let opened = open_visible(&self.view.ctx.exposure, rel, max_bytes).ok()?;
        self.read
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(rel.to_string());
        Some(VisibleText {
            rel: opened.rel,
            text: opened.text,
            truncated: opened.truncated,
        })
    }

    /// How many notes were read so far.
    pub fn count(&self) -> usize {
        self.read.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

impl Drop for Reads<'_, '_> {
    fn drop(&mut self) {
        let mut paths = std::mem::take(self.read.get_mut().unwrap_or_else(|e| e.into_inner()));
        if paths.is_empty() || !self.view.vault.index_dir().is_dir() {
            return;
        }
        paths.sort();
        paths.dedup();
        let notes = paths.len();
        paths.truncate(AUDITED_PATHS);
        self.view.log().append(
            AuditAction::Read,
            self.view.who(),
            json!({"purpose": self.purpose, "notes": notes, "paths": paths}),
        );
    }
}

/// How the memory store's captures stand: what the hooks report as the memory inbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryInbox {
    /// Captures without a promotion marker.
    pub unpromoted: usize,
    /// Captures promoted by a bare marker (naming a note, no block or heading).
    pub named_only: usize,
}

impl<'v> Scoped<'v> {
    /// The vault's file tree as this view may be told of it ([`VaultTree`] says what is left
    /// out). Privacy verdicts come from and go to the index folder's cache when it exists.
    pub fn tree(&self) -> VaultTree {
        let root = self.vault.root();
        let index_dir = self.vault.index_dir();
        let ex = &self.ctx.exposure;
        let manifest = &self.ctx.manifest;
        let mut tree = VaultTree::scan(root);
        tree.memory_root = ex.memory_root().to_string();
        tree.manifest = manifest.clone();
        let files: Vec<ListedFile> = tree
            .files
            .iter()
            .map(|f| ListedFile {
                rel: &f.rel,
                stat: f.stat,
                through_link: f.through_link,
            })
            .collect();
        let hidden = ex.withheld_from_agents_all(&files, Some(index_dir), tree.scanned_at);
        let memory_root = tree.memory_root.clone();
        let mut withheld = Vec::new();
        let mut i = 0;
        tree.files.retain(|f| {
            i += 1;
            let hidden = hidden[i - 1];
            // Outside the exposed roots is nothing an agent is told of; the memory root stays
            // (its captures are counted), and the vault's machinery is left out without its
            // name counting as secret.
            let outside = !in_store(&memory_root, &f.rel) && ex.matched_root(&f.rel).is_none();
            if hidden || (outside && !manifest.is_infrastructure(&f.rel)) {
                withheld.push(f.rel.clone());
            }
            !hidden && !outside
        });
        // A folder that held only withheld files is not shown either (its name may tell).
        let mut emptied: BTreeSet<String> = BTreeSet::new();
        for rel in &withheld {
            let mut at = rel.as_str();
            while let Some((dir, _)) = at.rsplit_once('/') {
                if tree.under(dir).is_empty() {
                    emptied.insert(dir.to_string());
                }
                at = dir;
            }
        }
        tree.dirs.retain(|d| !emptied.contains(d));
        withheld.sort();
        tree.withheld = withheld;
        tree
    }

    /// The visible markdown notes directly inside the vault-relative folder `dir`, sorted: one
    /// folder listed and judged, not the whole vault.
    pub fn notes_in(&self, dir: &str) -> Vec<String> {
        let ex = &self.ctx.exposure;
        let Ok(entries) = std::fs::read_dir(self.vault.root().join(dir)) else {
            return Vec::new();
        };
        let mut listed: Vec<String> = entries
            .flatten()
            .filter_map(|e| {
                std::fs::metadata(e.path()).ok().filter(|m| m.is_file())?;
                let name = e.file_name().to_str()?.to_string();
                (markdown::is_markdown_name(&name) && !name.starts_with('.')).then(|| {
                    if dir.is_empty() {
                        name
                    } else {
                        format!("{dir}/{name}")
                    }
                })
            })
            .collect();
        listed.sort();
        let files: Vec<ListedFile> = listed
            .iter()
            .map(|rel| ListedFile {
                rel,
                stat: None,
                // Judged by their real paths too.
                through_link: true,
            })
            .collect();
        let hidden = ex.withheld_from_agents_all(&files, None, SystemTime::now());
        listed
            .into_iter()
            .zip(hidden)
            .filter(|(rel, hidden)| !hidden && ex.matched_root(rel).is_some())
            .map(|(rel, _)| rel)
            .collect()
    }

    /// Reads for `purpose` (a hook's name, say), audited together when the [`Reads`] ends.
    pub fn reads(&self, purpose: &str) -> Reads<'_, 'v> {
        Reads {
            view: self,
            purpose: purpose.to_string(),
            read: Mutex::new(Vec::new()),
        }
    }

    /// The memory store's inbox among the captures of `tree`: each capture's `promoted:` marker
    /// read from its head. Memories are counted, never named or shown.
    pub fn memory_inbox(&self, tree: &VaultTree) -> MemoryInbox {
        use rayon::prelude::*;
        let root = self.vault.root();
        let markers: Vec<Option<bool>> = tree
            .files_under(&tree.memory_root)
            .filter(|f| {
                let name = f.rel.rsplit_once('/').map_or(f.rel.as_str(), |(_, n)| n);
                markdown::is_markdown_name(name) && !name.eq_ignore_ascii_case("readme.md")
            })
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|f| {
                markdown::read_head(&root.join(&f.rel), 64 * 1024)
                    .and_then(|head| markdown::frontmatter_str(&head, "promoted"))
                    .and_then(|value| markdown::promotion_marker(&value))
                    .map(|(_, anchored)| anchored)
            })
            .collect();
        MemoryInbox {
            unpromoted: markers.iter().filter(|m| m.is_none()).count(),
            named_only: markers.iter().filter(|m| **m == Some(false)).count(),
        }
    }
}

/// The commits [`Scoped::recent_commits`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecentCommits {
    /// `<short hash> <subject>` of each commit an agent may be told of, newest first.
    pub shown: Vec<String>,
    /// Commits left out: one touched a file the agent may not be told of, or its subject names
    /// a withheld note.
    pub hidden: usize,
}

/// How long `git log` may run for [`Scoped::recent_commits`].
const GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl Scoped<'_> {
    /// `git log --since=<since> --no-merges` of the vault's folder, at most `max` commits, run
    /// for at most 5 s: each commit shown only when every file it touched in the vault is one
    /// `tree` tells of ([`VaultTree::tells_of`]: a note of the tree, or machinery that is not
    /// private) and its subject names no withheld note ([`VaultTree::names_withheld`]); the
    /// others counted, never shown (a commit that touched only a private note says what the
    /// note says; a rename lists both names, so a note moved out of a hidden folder is not
    /// shown). `None` when the vault is in no git repository, or git fails or is too slow.
    pub fn recent_commits(
        &self,
        tree: &VaultTree,
        since: &str,
        max: usize,
    ) -> Option<RecentCommits> {
        use std::io::Read as _;
        use std::process::{Command, Stdio};
        let root = self.vault.root();
        if !root.ancestors().any(|a| a.join(".git").exists()) {
            return None;
        }
        let mut child = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "core.quotePath=false", "log"])
            .arg(format!("--since={since}"))
            .args(["--no-merges", "-n"])
            .arg(max.to_string())
            .args([
                "--format=%x1e%h %s",
                "--name-only",
                "--no-renames",
                "--relative",
                "--",
                ".",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        // Read while waiting: a full pipe must not stall git past the deadline.
        let reader = child.stdout.take().map(|mut s| {
            std::thread::spawn(move || {
                let mut out = String::new();
                let _ = s.read_to_string(&mut out);
                out
            })
        });
        let deadline = std::time::Instant::now() + GIT_TIMEOUT;
        loop {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => break,
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(1))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return None;
                }
            }
        }
        let stdout = reader.and_then(|r| r.join().ok()).unwrap_or_default();
        let mut out = RecentCommits::default();
        for commit in stdout
            .split('\u{1e}')
            .filter(|c| !c.trim().is_empty())
            .take(max)
        {
            let mut parts = commit.lines();
            let subject = parts.next().unwrap_or_default().trim();
            let mut files = parts.map(str::trim).filter(|f| !f.is_empty());
            if files.all(|f| tree.tells_of(f)) && !tree.names_withheld(subject) {
                out.shown.push(subject.to_string());
            } else {
                out.hidden += 1;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_withheld_matches_whole_words_composed_and_without_case() {
        let mut tree = VaultTree::new(
            vec![TreeFile::new("memories/plan.md", 1, SystemTime::UNIX_EPOCH)],
            BTreeSet::new(),
            "memories",
        );
        tree.withheld = vec![
            "work/active/Secret Merger.md".into(),
            "work/Geha\u{308}lter.md".into(),
        ];
        assert!(tree.names_withheld("Update Geh\u{e4}lter numbers"));
        assert!(tree.names_withheld("Update GEHA\u{308}LTER numbers"));
        assert!(tree.names_withheld("a1b2 vault backup: work/active/secret merger.md"));
        assert!(tree.names_withheld("Plan: rework"));
        assert!(tree.names_withheld("edit brain/plan.md"));
        assert!(!tree.names_withheld("planning the sprint"));
        assert!(!tree.names_withheld("secret mergers"));
    }

    #[test]
    fn headings_inside_code_fences_do_not_count() {
        let note = VisibleText {
            rel: "brain/North Star.md".into(),
            text: "---\ntitle: x\n---\n# North Star\n## Current Focus\n- a\n```\n## not a heading\n```\n### Sub\n- b\n## Later\n- c\n".into(),
            truncated: false,
        };
        let s = note.lines_from_heading("current focus").unwrap();
        assert_eq!(s.first(), Some(&"## Current Focus"));
        assert!(s.contains(&"## not a heading"));
        assert!(s.contains(&"- c"));
        assert!(note.lines_from_heading("not a heading").is_none());
        assert!(note.lines_from_heading("missing").is_none());
        assert!(!note.prose_lines().contains(&"## not a heading"));
        assert_eq!(note.field("TITLE").as_deref(), Some("x"));
    }

    #[test]
    fn in_memory_store_needs_a_memory_root() {
        let tree = VaultTree::new(Vec::new(), BTreeSet::new(), "");
        assert!(!tree.in_memory_store("anything.md"));
        let tree = VaultTree::new(Vec::new(), BTreeSet::new(), "memories");
        assert!(tree.in_memory_store("memories/a.md"));
        assert!(!tree.in_memory_store("memories-old/a.md"));
    }

    /// A vault of one public note, one private note and one memory, indexed or not.
    fn vault(indexed: bool) -> (tempfile::TempDir, crate::Vault) {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w(
            "vault-manifest.json",
            r#"{"user_content_roots": ["work/", "brain/"], "memory_root": "memories",
                "infrastructure": ["vault-manifest.json", "templates/**"]}"#,
        );
        w(
            "work/Plan.md",
            "---\nstatus: active\n---\n# Plan\n- [ ] ship\n",
        );
        w(
            "work/Secret Merger.md",
            "---\nprivate: true\n---\n# Merger\n",
        );
        w("brain/only/Hidden.md", "---\nprivate: true\n---\nx\n");
        w(
            "memories/Retry safety.md",
            "---\ntype: memory\n---\nlesson\n",
        );
        w("templates/Decision.md", "# Decision\n");
        w("templates/Draft.md", "---\nprivate: true\n---\nx\n");
        if indexed {
            std::fs::create_dir_all(d.path().join(".mindex")).unwrap();
        }
        let v = crate::Vault::open(d.path(), crate::VaultOptions::default()).unwrap();
        (d, v)
    }

    #[test]
    fn the_tree_leaves_out_private_notes_and_the_folders_they_alone_fill() {
        let (_d, v) = vault(false);
        let view = v.scoped(&crate::Caller::anonymous());
        let tree = view.tree();
        let rels: Vec<&str> = tree.files().iter().map(|f| f.rel.as_str()).collect();
        assert!(rels.contains(&"work/Plan.md"), "{rels:?}");
        assert!(
            !rels
                .iter()
                .any(|r| r.contains("Secret") || r.contains("Hidden"))
        );
        assert!(!tree.dirs().contains("brain/only"), "{:?}", tree.dirs());
        assert!(tree.names_withheld("vault backup: work/Secret Merger.md"));
        // The memory store's files are counted, never shown or named.
        assert!(!tree.shows("memories/Retry safety.md"));
        assert!(tree.names_withheld("edit Retry safety"));
        assert!(tree.shows("work/Plan.md"));
        // The machinery is told of (a commit touching it), never listed; unless private.
        assert!(!tree.shows("templates/Decision.md"));
        assert!(tree.tells_of("templates/Decision.md"));
        assert!(tree.tells_of("vault-manifest.json"));
        assert!(!tree.tells_of("templates/Draft.md"));
        assert!(!tree.tells_of("work/Secret Merger.md"));
        assert_eq!(view.notes_in("work"), ["work/Plan.md"]);
    }

    #[test]
    fn reads_serve_only_visible_notes_and_are_audited_once_where_the_log_lives() {
        let (d, v) = vault(true);
        let view = v.scoped(&crate::Caller::named("atlas").unwrap());
        {
            let reads = view.reads("session-start");
            let plan = reads.note("work/Plan.md", 64 * 1024).unwrap();
            assert_eq!(plan.field("status").as_deref(), Some("active"));
            assert!(plan.body().starts_with("# Plan"));
            assert!(reads.note("work/Secret Merger.md", 64 * 1024).is_none());
            assert!(reads.note("memories/Retry safety.md", 64 * 1024).is_none());
            assert!(reads.note("../outside.md", 64 * 1024).is_none());
            assert_eq!(reads.count(), 1);
        }
        let log = std::fs::read_to_string(d.path().join(".mindex/audit.jsonl")).unwrap();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), 1, "{log}");
        let line: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(line["action"], "read");
        assert_eq!(line["purpose"], "session-start");
        assert_eq!(line["notes"], 1);
        assert_eq!(line["paths"], json!(["work/Plan.md"]));
        assert!(!log.contains("Secret"));

        // A vault never indexed gets no index folder from a hook's reads.
        let (d, v) = vault(false);
        let view = v.scoped(&crate::Caller::anonymous());
        assert!(view.reads("stop").note("work/Plan.md", 100).is_some());
        assert!(!d.path().join(".mindex").exists());
    }

    #[test]
    fn recent_commits_show_only_what_an_agent_may_be_told_of() {
        let (d, v) = vault(false);
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .arg("-C")
                .arg(d.path())
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        let view = v.scoped(&crate::Caller::anonymous());
        // Not a repository yet: no history.
        assert_eq!(view.recent_commits(&view.tree(), "48 hours ago", 15), None);
        git(&["init", "-q"]);
        let commit = |files: &[&str], subject: &str| {
            let mut add = vec!["add", "--"];
            add.extend_from_slice(files);
            git(&add);
            git(&["commit", "-q", "-m", subject]);
        };
        commit(&["work/Plan.md"], "plan the launch");
        commit(&["work/Secret Merger.md"], "draft");
        commit(&["templates/Decision.md"], "template tweak");
        commit(&["vault-manifest.json"], "about the Secret Merger");
        let tree = view.tree();
        let found = view.recent_commits(&tree, "48 hours ago", 15).unwrap();
        let subjects: Vec<&str> = found
            .shown
            .iter()
            .map(|s| s.split_once(' ').unwrap().1)
            .collect();
        assert_eq!(subjects, ["template tweak", "plan the launch"], "{found:?}");
        assert_eq!(found.hidden, 2);
        // At most `max` commits are read.
        let one = view.recent_commits(&tree, "48 hours ago", 1).unwrap();
        assert_eq!(one.shown.len() + one.hidden, 1);
    }
}
