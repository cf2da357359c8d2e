//! Where memories live and whom they reach: the caller's platforms (from its project note) and
//! the memory root (configured, or discovered where the memories are).

use std::fs;
use std::path::Path;

use serde::Serialize;

use super::{
    PROBE_CHARS, SKIP_DIRS, WALK_DEPTH, clean_memory_root, head_frontmatter, is_agent_capture,
    last_segment, name_key, starts_with_segments, walk_markdown,
};
use crate::markdown::frontmatter;

/// The `platforms` of the caller's project note.
///
/// The project note is the first `<project>.md` (case-insensitive; the vault walked in name
/// order, skipping dot entries, `node_modules` and the memory root) that a person wrote and that
/// declares `platforms` in its frontmatter (read as a head, parsed by [`crate::markdown::frontmatter`]),
/// as a list or a lone string, and is not private. Notes agents write (`source_repo:` from `record_work`, `source:`
/// from memories) and notes without the key are passed over, so no agent write can add, change
/// or cancel a project's platforms. No project or no such note gives an empty list.
pub fn caller_platforms(vault_root: &Path, memory_root: &str, project: &str) -> Vec<String> {
    caller_platforms_among(vault_root, memory_root, &[], project, None)
}

/// [`caller_platforms`], passing over notes whose name is in `never_expose` (lowercased, as
/// [`Exposure::never_expose`] gives them) and looking only at `candidates` (vault-relative paths of the notes named
/// `<project>.md`, e.g. from the index, in path order) when given, instead of walking the vault:
/// what a long-lived server does on every call, whatever the vault's size.
pub fn caller_platforms_among(
    vault_root: &Path,
    memory_root: &str,
    never_expose: &[String],
    project: &str,
    candidates: Option<&[String]>,
) -> Vec<String> {
    let project = project.trim();
    if project.is_empty() || project.contains(['/', '\\']) {
        return Vec::new();
    }
    let wanted = format!("{project}.md").to_lowercase();
    let mem_root = clean_memory_root(memory_root);
    let mem: Vec<&str> = mem_root.split('/').collect();
    let mut items = Vec::new();
    let mut visit = |rel: &str, abs: &Path| -> bool {
        let segs: Vec<&str> = rel.split('/').collect();
        let name = last_segment(rel).to_lowercase();
        let never_exposed = never_expose.contains(&name_key(last_segment(rel)));
        // A never-exposed name is passed over like a private note: its platforms would reach
        // agents that may not read it.
        if starts_with_segments(&segs, &mem) || name != wanted || never_exposed {
            return false;
        }
        let Ok(Some(map)) = head_frontmatter(abs) else {
            return false;
        };
        // A private project note is passed over: its platforms would reach agents (in health,
        // in recall's reasons) that may not read it.
        let by_agent = ["source_repo", "source"]
            .iter()
            .any(|k| frontmatter::get_ci(&map, k).is_some())
            || frontmatter::marks_private(&map);
        match frontmatter::get_ci(&map, "platforms") {
            Some(v) if !by_agent => {
                items = frontmatter::string_list(Some(v), false);
                true
            }
            _ => false,
        }
    };
    match candidates {
        Some(list) => {
            for rel in list {
                let hidden = rel
                    .split('/')
                    .any(|seg| seg.starts_with('.') || SKIP_DIRS.contains(&seg));
                if !hidden && visit(rel, &vault_root.join(rel)) {
                    break;
                }
            }
        }
        None => walk_markdown(vault_root, usize::MAX, &mut visit),
    }
    items
}

/// Where the agent memories of a vault actually live.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryRootInfo {
    /// The top-level folder holding the most agent memories, or the configured root.
    pub root: String,
    /// `"configured"` when `root` is the configured root, else `"discovered"`.
    pub source: &'static str,
    /// Agent memories found under `root`.
    pub memories: usize,
    /// Whether `root` differs from the configured root.
    pub healed: bool,
    /// Every top-level folder holding agent memories, with its count, when there are several
    /// (empty otherwise), in the order first met.
    pub split: Vec<(String, usize)>,
}

/// Finds the memory root by content: walks the vault to depth 4 (skipping dot entries and
/// `node_modules`, not following symlinks), counts notes whose leading frontmatter (probed in
/// the first 800 characters) has a `source: mcp-capture` line (the value may be quoted), and
/// groups them by top-level folder. Notes at the vault root and human notes never move the root.
pub fn discover_memory_root(vault_root: &Path, configured: &str) -> MemoryRootInfo {
    discover_memory_root_among(vault_root, configured, None)
}

/// [`discover_memory_root`] that probes only `candidates` (vault-relative paths: a superset of
/// the captures, such as an index lookup of `mcp-capture` gives) instead of every note, so its
/// cost follows the captures, not the vault. The walk's rules still apply to each candidate:
/// at most [`WALK_DEPTH`] folders deep, no hidden or `node_modules` folder, no symlink on the
/// way.
pub fn discover_memory_root_among(
    vault_root: &Path,
    configured: &str,
    candidates: Option<&[String]>,
) -> MemoryRootInfo {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut probe = |rel: &str, abs: &Path| {
        let Some((top, _)) = rel.split_once('/') else {
            return false;
        };
        if crate::markdown::read_head(abs, PROBE_CHARS).is_some_and(|head| is_agent_capture(&head))
        {
            match counts.iter_mut().find(|(r, _)| r == top) {
                Some((_, n)) => *n += 1,
                None => counts.push((top.to_string(), 1)),
            }
        }
        false
    };
    match candidates {
        None => walk_markdown(vault_root, WALK_DEPTH, &mut probe),
        Some(rels) => {
            for rel in rels {
                let segs: Vec<&str> = rel.split('/').collect();
                let walked = segs.len() <= WALK_DEPTH + 1
                    && !segs
                        .iter()
                        .any(|seg| seg.starts_with('.') || SKIP_DIRS.contains(seg));
                if !walked || !crate::markdown::is_markdown_name(segs[segs.len() - 1]) {
                    continue;
                }
                // The walk does not follow symlinks: nothing on the way may be one.
                let mut at = vault_root.to_path_buf();
                let linked = segs.iter().any(|seg| {
                    at.push(seg);
                    !fs::symlink_metadata(&at).is_ok_and(|m| m.is_dir() || m.is_file())
                });
                if !linked {
                    probe(rel, &at);
                }
            }
        }
    }
    let Some((root, memories)) = counts
        .iter()
        .fold(None::<&(String, usize)>, |best, c| match best {
            Some(b) if b.1 >= c.1 => Some(b),
            _ => Some(c),
        })
        .cloned()
    else {
        return MemoryRootInfo {
            root: configured.to_string(),
            source: "configured",
            memories: 0,
            healed: false,
            split: Vec::new(),
        };
    };
    let healed = root != configured;
    MemoryRootInfo {
        source: if healed { "discovered" } else { "configured" },
        healed,
        memories,
        split: if counts.len() > 1 { counts } else { Vec::new() },
        root,
    }
}
