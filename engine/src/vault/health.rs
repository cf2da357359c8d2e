//! `health`: what an agent session sees of the vault, with warnings for what degrades
//! retrieval.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use super::Vault;
use crate::error::Result;
use crate::exposure::{MemoryRootInfo, RootsSource};
use crate::identity::Caller;
use crate::memory::Memory;
use crate::memory::promoted::{Promotion, Resolver};
use crate::memory::store::CacheStats;

/// The outcome of [`Vault::health`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Health {
    /// The vault root.
    pub vault: std::path::PathBuf,
    /// Who is asking.
    pub caller: Caller,
    /// Where memories live and how that was decided.
    pub memory_root: MemoryRootInfo,
    /// Agent memories in the store.
    pub memories: usize,
    /// Files parsed from the store (and how many came from an older parse).
    pub parsed: CacheStats,
    /// Folders agents may read.
    pub exposed_roots: Vec<String>,
    /// Where those roots came from.
    pub roots_source: RootsSource,
    /// Notes in the index (`None` without an index).
    pub indexed_notes: Option<usize>,
    /// Vectors stored (`None` before `embed`).
    pub vectors: Option<usize>,
    /// Distinct chunks of the index without a vector (`None` without vectors); see
    /// [`crate::Status::missing_vectors`].
    pub missing_vectors: Option<usize>,
    /// Memories whose promoted text is served.
    pub promotions_served: usize,
    /// Memories promoted to a note without an anchor (named, not served).
    pub promotions_named_only: usize,
    /// Problems worth fixing.
    pub warnings: Vec<String>,
    /// Facts worth knowing (never problems).
    pub notes: Vec<String>,
    /// No warnings.
    pub ok: bool,
}

impl Vault {
    /// What an agent session sees of this vault: caller, memory root, store, exposed roots,
    /// index, with warnings for anything that degrades retrieval.
    /// The caller is identified here (its platforms read from its project's note).
    pub fn health(&self, caller: &Caller) -> Result<Health> {
        self.health_inner(self.scoped(caller).caller(), false)
    }

    /// [`Vault::health`] as served to an agent: warnings and notes name only memories the
    /// caller may recall (and the projects those reach); the rest are counted, never named.
    pub(crate) fn health_as_agent(&self, caller: &Caller) -> Result<Health> {
        self.health_inner(caller, true)
    }

    pub(super) fn health_inner(&self, caller: &Caller, agent_view: bool) -> Result<Health> {
        let ctx = self.agent();
        let (entries, parsed) = ctx.store.all();
        let agent: Vec<&Arc<Memory>> = entries.iter().filter(|m| m.is_agent()).collect();
        let mut warnings = Vec::new();
        let mut notes = Vec::new();
        // The owner is told which path is gone; an agent only that its hooks' binary is.
        for b in crate::init::stale_binaries(&self.root) {
            warnings.push(if agent_view {
                format!(
                    "{} calls a mindex binary that cannot run here: the hooks and MCP server it configures fail. Tell the user to run `mindex init --merge` on the vault with the mindex they use now.",
                    b.config
                )
            } else {
                b.warning()
            });
        }
        let mr = &ctx.memory_root;
        if mr.healed {
            warnings.push(format!(
                "Memories are in \"{}/\" but the manifest says \"{}\": the store is read from where they are, and both folders are withheld from agents as notes; set memory_root in vault-manifest.json to silence this.",
                mr.root,
                ctx.manifest.memory_root()
            ));
        }
        if mr.split.len() > 1 && agent_view {
            // The other folders may lie outside what the agent may see: counted, not named.
            let (folders, captures) = mr
                .split
                .iter()
                .filter(|(r, _)| *r != mr.root)
                .fold((0, 0), |(f, c), (_, n)| (f + 1, c + n));
            warnings.push(format!(
                "Captures are split: {captures} capture(s) lie in {folders} other folder(s); retrieval only sees \"{}/\".",
                mr.root
            ));
        } else if mr.split.len() > 1 {
            let parts: Vec<String> = mr
                .split
                .iter()
                .map(|(r, n)| format!("{r}/ ({n})"))
                .collect();
            warnings.push(format!(
                "Captures are split across {}: retrieval only sees \"{}/\".",
                parts.join(", "),
                mr.root
            ));
        }
        if parsed.stale > 0 {
            warnings.push(format!(
                "{} memory file(s) could not be re-read and were served from an older parse: check permissions.",
                parsed.stale
            ));
        }
        let state = self.state().ok().flatten();
        if state.is_none() {
            warnings
                .push("No index yet: run `mindex update` so search and recall can rank.".into());
        }
        if let Some(st) = &state {
            warnings.extend(hidden_folders(&ctx, st.notes.keys(), agent_view));
        }
        let vectors = self.vectors().status().map(|v| v.count);
        if vectors.is_none() {
            notes.push(
                "No vectors yet: recall and search are lexical until `mindex embed` runs.".into(),
            );
        }
        let coverage = self.vectors().coverage().ok().flatten();
        if let Some(c) = coverage.filter(|c| c.missing > 0) {
            warnings.push(format!(
                "{} of {} chunks {} no vector yet: notes saved since the last `mindex embed` rank lexically only; run `mindex embed` (or keep `mindex watch` / `mindex mcp --watch` running, which embeds changes as they land).",
                c.missing,
                c.chunks,
                if c.missing == 1 { "has" } else { "have" }
            ));
        }
        // Promotions: served, named only, broken (stale, not exposed, unreadable, unparsed).
        let mut resolver = Resolver::new(&ctx.exposure);
        let pa = resolver.audit(
            agent
                .iter()
                .filter_map(|m| Some((m.path.as_str(), m.promoted.as_deref()?))),
        );
        // Agents see memory files (whose names are their titles) only when recall serves them
        // (in scope, and not retired by a correction they cannot see).
        let served: HashSet<String> = if agent_view {
            crate::memory::recall_from(&entries, caller, false)
                .visible
                .into_iter()
                .map(|(m, _)| m.path.clone())
                .collect()
        } else {
            HashSet::new()
        };
        let nameable: HashSet<&str> = agent
            .iter()
            .filter(|m| !agent_view || served.contains(&m.path))
            .map(|m| m.path.as_str())
            .collect();
        let mut unnamed = 0usize;
        for (rel, p) in &pa.broken {
            if !nameable.contains(rel.as_str()) {
                unnamed += 1;
                continue;
            }
            let p = if agent_view {
                p.clone().seen_by_agent()
            } else {
                p.clone()
            };
            let why = match p {
                Promotion::StaleAnchor { note, anchor, .. } => {
                    format!("anchor {anchor} no longer resolves in {note}")
                }
                Promotion::NotExposed { note } if agent_view => {
                    format!("{note} is not a note agents may read")
                }
                Promotion::NotExposed { note } => {
                    format!("{note} is private, never exposed or outside the exposed roots")
                }
                Promotion::Unreadable { note } => format!("{note} is missing or unreadable"),
                _ => "broken".to_string(),
            };
            warnings.push(format!(
                "Promotion of {rel} is broken: {why}; recall shows the capture body."
            ));
        }
        for rel in &pa.unparsed {
            if !nameable.contains(rel.as_str()) {
                unnamed += 1;
                continue;
            }
            warnings.push(format!("{rel} has a promoted: marker that cannot be read."));
        }
        if unnamed > 0 {
            warnings.push(format!(
                "{unnamed} memory file(s) this caller cannot recall have a broken or unreadable promoted: marker; run `mindex health` in the vault to see them."
            ));
        }
        if !pa.named_only.is_empty() {
            notes.push(format!(
                "{} promoted to a note without an anchor: add #^id or #Heading to the marker so recall can serve the promoted text.",
                if pa.named_only.len() == 1 { "1 memory is".to_string() } else { format!("{} memories are", pa.named_only.len()) }
            ));
        }
        // Projects named by memories that have no note here (normal for other repositories).
        let visible = ctx.exposure.visible_files();
        let mut known: HashSet<String> = visible.iter().map(|f| f.label.to_lowercase()).collect();
        if let Some(p) = &caller.project {
            known.insert(p.to_lowercase());
        }
        let mut orphan_projects: HashMap<String, usize> = HashMap::new();
        for m in agent.iter().filter(|m| nameable.contains(m.path.as_str())) {
            for p in &m.projects {
                if !known.contains(&p.to_lowercase()) {
                    *orphan_projects.entry(p.clone()).or_default() += 1;
                }
            }
        }
        let mut orphan_projects: Vec<(String, usize)> = orphan_projects.into_iter().collect();
        orphan_projects.sort();
        for (p, n) in orphan_projects {
            notes.push(format!(
                "{n} {} scoped to \"{p}\", which has no note here. Normal if that repository has no project note in the vault.",
                if n == 1 { "memory" } else { "memories" }
            ));
        }
        Ok(Health {
            vault: self.root.clone(),
            caller: caller.clone(),
            memory_root: MemoryRootInfo {
                // An agent is told how many folders hold captures (the warning), not which.
                split: if agent_view {
                    Vec::new()
                } else {
                    mr.split.clone()
                },
                ..mr.clone()
            },
            memories: agent.len(),
            parsed,
            exposed_roots: ctx.exposure.roots().to_vec(),
            roots_source: ctx.exposure.source(),
            indexed_notes: state.map(|s| s.notes.len()),
            vectors,
            missing_vectors: coverage.map(|c| c.missing),
            promotions_served: pa.served.len(),
            promotions_named_only: pa.named_only.len(),
            ok: warnings.is_empty(),
            warnings,
            notes,
        })
    }
}

/// Folders listed in a hidden-folders warning before the rest are counted.
const HIDDEN_FOLDERS_NAMED: usize = 6;

/// A warning when indexed notes lie outside every exposed root (a template folder the manifest
/// does not expose, say): agents can neither search nor read them. The vault's own view names
/// the folders and how to expose them; an agent's view only counts them.
fn hidden_folders<'a>(
    ctx: &super::agent::AgentContext,
    notes: impl Iterator<Item = &'a String>,
    agent_view: bool,
) -> Option<String> {
    let mem_prefix = format!("{}/", ctx.memory_root.root);
    let mut folders: std::collections::BTreeMap<String, usize> = Default::default();
    for rel in notes {
        if rel.starts_with(&mem_prefix) || ctx.manifest.is_infrastructure(rel) {
            continue;
        }
        if ctx.exposure.may_read(rel) == Err(crate::exposure::Denied::OutsideRoots) {
            let folder = rel
                .rsplit_once('/')
                .map_or("(vault root)".to_string(), |(f, _)| format!("{f}/"));
            *folders.entry(folder).or_default() += 1;
        }
    }
    let total: usize = folders.values().sum();
    if total == 0 {
        return None;
    }
    let notes = if total == 1 {
        "1 note".to_string()
    } else {
        format!("{total} notes")
    };
    if agent_view {
        return Some(format!(
            "{notes} of the vault lie outside the folders agents may read: search and get never return them. Run `mindex health` in the vault to see which folders."
        ));
    }
    let mut named: Vec<String> = folders
        .iter()
        .take(HIDDEN_FOLDERS_NAMED)
        .map(|(f, n)| format!("{f} ({n})"))
        .collect();
    if folders.len() > HIDDEN_FOLDERS_NAMED {
        named.push(format!(
            "and {} more folders",
            folders.len() - HIDDEN_FOLDERS_NAMED
        ));
    }
    Some(format!(
        "{notes} lie outside the exposed roots, so agents (MCP, hooks) can neither search nor read them: {}. To expose a folder, add it (e.g. \"{}\") to `user_content_roots` (or `mcp_exposed_roots`) in vault-manifest.json.",
        named.join(", "),
        folders
            .keys()
            .next()
            .map(String::as_str)
            .unwrap_or_default()
    ))
}
