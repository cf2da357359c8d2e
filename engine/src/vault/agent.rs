//! What the agent-facing operations of a [`Vault`] share for one manifest version
//! ([`AgentContext`]: the manifest, the memory root, the exposure policy, the memory store), the
//! audit log, and caller identification. The operations themselves have a module each
//! (`remember`, `recall`, `work`, `graph`, `health`, `reason`).

use std::fs;
use std::sync::Arc;

use super::Vault;
use crate::audit::AuditLog;
use crate::exposure::{Exposure, MemoryRootInfo, discover_memory_root};
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
        let memory_root = discover_memory_root(&self.root, &configured);
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
    pub fn exposure(&self) -> Exposure {
        self.agent().exposure.clone()
    }

    /// The audit log (`<index>/audit.jsonl`).
    pub fn audit_log(&self) -> AuditLog {
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
