//! What the agent-facing operations of a [`Vault`] share for one manifest version
//! ([`AgentContext`]: the manifest, the memory root, the exposure policy, the memory store), the
//! audit log, and caller identification. The operations themselves have a module each
//! (`remember`, `recall`, `work`, `graph`, `health`, `reason`).

use std::fs;
use std::sync::Arc;

use super::Vault;
use crate::audit::AuditLog;
use crate::exposure::{Exposure, MemoryRootInfo, discover_memory_root_among};
use crate::identity::Caller;
use crate::manifest::Manifest;
use crate::memory::Memory;
use crate::memory::store::MemoryStore;

/// What the agent surfaces share for one manifest version: the policy and the memory store.
#[derive(Debug)]
pub(crate) struct AgentContext {
    manifest_key: Option<(u64, std::time::SystemTime)>,
    pub manifest: Manifest,
    pub memory_root: MemoryRootInfo,
    pub exposure: Exposure,
    pub store: Arc<MemoryStore>,
}

pub(super) const MEMORY_LOCK: &str = "memory.lock";
/// Links of one note `expand` considers (the first ones, in note order): bounds the work of a
/// note made of hundreds of thousands of links.
pub(crate) const EXPAND_MAX_LINKS: usize = 10_000;

impl Vault {
    /// The policy and store for the current manifest (re-read when the manifest changes).
    pub(crate) fn agent(&self) -> Arc<AgentContext> {
        let key = fs::metadata(self.root.join(crate::vault::MANIFEST_FILE))
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        let mut slot = self.agent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = slot.as_ref()
            && c.manifest_key == key
        {
            return c.clone();
        }
        let manifest = Manifest::load(&self.root);
        let configured = manifest.memory_root();
        // The captures are found through the index when there is one (a term lookup, then each
        // candidate read): every agent call in a new process pays this, so it must not walk
        // and read the whole vault.
        let candidates = self
            .lexical()
            .ok()
            .and_then(|l| l.paths_with_meta(crate::memory::MEMORY_SOURCE).ok());
        let memory_root =
            discover_memory_root_among(&self.root, &configured, candidates.as_deref());
        let exposure = Exposure::resolve(&self.root, &manifest, &memory_root.root);
        let store = match slot.as_ref() {
            Some(c) if c.store.root() == memory_root.root => c.store.clone(),
            _ => Arc::new(MemoryStore::new(
                &self.root,
                &memory_root.root,
                self.index_dir.join(MEMORY_LOCK),
            )),
        };
        let ctx = Arc::new(AgentContext {
            manifest_key: key,
            manifest,
            memory_root,
            exposure,
            store,
        });
        *slot = Some(ctx.clone());
        ctx
    }

    /// The exposure policy agents are served under.
    pub(crate) fn exposure(&self) -> Exposure {
        self.agent().exposure.clone()
    }

    /// The audit log (`<index>/audit.jsonl`).
    pub(crate) fn audit_log(&self) -> AuditLog {
        AuditLog::new(self.index_dir.join("audit.jsonl"))
    }

    /// Fills in the caller's platforms from its project's own note in the vault. The note is
    /// looked up by name in the index when there is one (a term lookup: the cost of every agent
    /// call must not grow with the vault), else found by walking the vault.
    pub fn identify(&self, mut caller: Caller) -> Caller {
        if let Some(p) = &caller.project {
            let ctx = self.agent();
            let file_name = format!("{}.md", p.trim());
            let candidates = self
                .lexical()
                .ok()
                .and_then(|l| l.paths_named(&file_name).ok().flatten());
            caller.platforms = crate::exposure::caller_platforms_among(
                &self.root,
                &ctx.memory_root.root,
                ctx.exposure.never_expose(),
                p,
                candidates.as_deref(),
            );
        }
        caller.identified = true;
        caller
    }

    /// Every memory file in the store (agent memories and anything else filed there), from the
    /// parse cache.
    pub fn memories(&self) -> Vec<Arc<Memory>> {
        self.agent().store.all().0
    }
}

#[cfg(test)]
mod tests {
    use crate::exposure::{discover_memory_root, discover_memory_root_among};
    use crate::{NoProgress, Vault, VaultOptions};
    use std::fs;

    /// Through the index, the memory root is found among the notes whose frontmatter mentions
    /// `mcp-capture`, with the walk's rules (depth, hidden and `node_modules` folders, symlinks,
    /// the probe of the first lines): the same answer as reading every note.
    #[test]
    fn the_memory_root_from_the_index_matches_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let capture = "---\nsource: mcp-capture\nscope: general\n---\n# Lesson\n\nA lesson.\n";
        let write = |rel: &str, text: &str| {
            let p = r.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        };
        for i in 0..3 {
            write(&format!("lessons/2026/{i}.md"), capture);
        }
        for i in 0..2 {
            write(&format!("memories/{i}.md"), capture);
        }
        // Not counted by the walk, so not by the index either.
        for i in 0..4 {
            write(&format!("deep/a/b/c/d/e/{i}.md"), capture);
            write(&format!("vendor/node_modules/{i}.md"), capture);
            write(
                &format!("late/{i}.md"),
                &format!("---\n{}\nsource: mcp-capture\n---\n", "x: y\n".repeat(200)),
            );
        }
        write(
            "notes/body.md",
            "# Body\n\nsource: mcp-capture in the text only\n",
        );
        #[cfg(unix)]
        {
            fs::create_dir_all(r.join("real")).unwrap();
            for i in 0..5 {
                write(&format!("real/{i}.md"), capture);
            }
            std::os::unix::fs::symlink(r.join("real"), r.join("zlinked")).unwrap();
        }
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let candidates = v
            .lexical()
            .unwrap()
            .paths_with_meta(crate::memory::MEMORY_SOURCE)
            .unwrap();
        assert!(candidates.iter().any(|c| c.starts_with("lessons/")));
        assert!(
            !candidates.iter().any(|c| c.starts_with("notes/")),
            "{candidates:?}"
        );
        let walked = discover_memory_root(r, "memories");
        let indexed = discover_memory_root_among(r, "memories", Some(&candidates));
        assert_eq!(
            (&indexed.root, indexed.memories, &indexed.split),
            (&walked.root, walked.memories, &walked.split)
        );
        #[cfg(unix)]
        assert_eq!(indexed.root, "real");
        assert_eq!(v.agent().memory_root.root, walked.root);
    }
}
