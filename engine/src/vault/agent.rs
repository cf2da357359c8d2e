//! The agent-facing operations of a [`Vault`]: remember, recall, record work, expand a note,
//! audit the link graph, health. Every one applies the exposure policy and writes the audit log.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;

use super::Vault;
use crate::audit::AuditLog;
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::exposure::{Exposure, MemoryRootInfo, RootsSource, discover_memory_root};
use crate::identity::Caller;
use crate::lexical::SearchOptions;
use crate::manifest::Manifest;
use crate::memory::promoted::{Promotion, Resolver};
use crate::memory::store::{CacheStats, Mark, MemoryStore};
use crate::memory::text::{self, Digest, FieldValue};
use crate::memory::{
    Memory, MemoryInput, Now, Scope, find_duplicates, recall_from, render, reorder,
    resolve_supersedes, validate,
};
use crate::query::QueryOptions;

/// What the agent surfaces share for one manifest version: the policy and the memory store.
#[derive(Debug)]
pub(crate) struct AgentContext {
    manifest_key: Option<(u64, std::time::SystemTime)>,
    pub manifest: Manifest,
    pub memory_root: MemoryRootInfo,
    pub exposure: Exposure,
    pub store: Arc<MemoryStore>,
}

/// Why a memory was not recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// The caller is the vault itself.
    VaultItself,
    /// An argument contains tool-call markup (a sign the caller's arguments were mangled).
    Markup {
        /// The field.
        field: String,
        /// Byte offset of the markup in the field (or list item).
        offset: usize,
        /// 1-based list item, for list fields.
        item: Option<usize>,
        /// Whether the markup only trails the real content.
        trailing: bool,
    },
    /// The input breaks the memory contract.
    Validation {
        /// Every problem found.
        errors: Vec<String>,
    },
    /// A near-identical memory exists (pass `force`, or supersede it).
    Duplicate {
        /// Similarity, 0 to 1.
        score: f64,
        /// The existing memory's title.
        title: String,
        /// Its vault-relative path.
        path: String,
    },
}

/// The outcome of [`Vault::remember`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Remembered {
    /// Whether a file was written.
    pub recorded: bool,
    /// Vault-relative path of the new memory.
    pub path: Option<String>,
    /// The scope after narrowing.
    pub scope: Option<Scope>,
    /// Projects reached.
    pub projects: Vec<String>,
    /// Platforms reached.
    pub platforms: Vec<String>,
    /// Titles of the memories marked as superseded by this one.
    pub superseded: Vec<String>,
    /// `supersedes` claims that matched no memory.
    pub supersedes_unmatched: Vec<String>,
    /// Supersession back-links that could not be written, with why.
    pub supersede_failures: Vec<String>,
    /// `links` entries that name no visible note.
    pub links_dropped: Vec<String>,
    /// Wikilinks in the title or body that named no visible note (now plain text).
    pub wikilinks_unlinked: Vec<String>,
    /// Warnings (none blocks the write).
    pub warnings: Vec<String>,
    /// Whether the lexical index already holds the new memory.
    pub indexed: bool,
    /// For a dry run: the rendered note.
    pub preview: Option<String>,
    /// Why nothing was recorded.
    pub refusal: Option<Refusal>,
    /// The outcome as text, for people and agents.
    pub message: String,
}

/// Options for [`Vault::recall`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallOptions {
    /// Orders memories by relevance to this text (never filters them out).
    pub query: Option<String>,
    /// Memories returned (default 20).
    pub limit: usize,
    /// Attach why each memory is visible, and summarise what was withheld.
    pub explain: bool,
}

impl Default for RecallOptions {
    fn default() -> Self {
        RecallOptions {
            query: None,
            limit: crate::memory::DEFAULT_RECALL_LIMIT,
            explain: false,
        }
    }
}

/// How recall ordered the memories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RecallRanking {
    /// Specificity, then date (no query).
    Declared,
    /// BM25 over the memories, then the rest.
    Lexical,
    /// Hybrid BM25 + vectors, then the rest.
    Hybrid,
}

/// One recalled memory.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecalledMemory {
    /// The memory.
    #[serde(flatten)]
    pub memory: Memory,
    /// Why the caller sees it (with `explain`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Where its lesson was promoted to, resolved (`promoted:` marker present). When the
    /// promoted text is served, it is the authoritative version of the lesson.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promotion: Option<Promotion>,
}

impl RecalledMemory {
    /// The text to show: the promoted note's text when it is served, else the capture body.
    pub fn text(&self) -> &str {
        match &self.promotion {
            Some(Promotion::Served { text, .. }) => text,
            _ => &self.memory.body,
        }
    }
}

/// The outcome of [`Vault::recall`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recall {
    /// The caller's project (`None` = anonymous).
    pub caller: Option<String>,
    /// Memories, best first.
    pub memories: Vec<RecalledMemory>,
    /// Memories visible to the caller in all (before the limit).
    pub visible: usize,
    /// Memories withheld from the caller.
    pub withheld: usize,
    /// The distinct reasons for withholding (with `explain`); titles are never listed.
    pub withheld_reasons: Vec<String>,
    /// How the memories were ordered.
    pub ranking: RecallRanking,
    /// Things the caller should know (no vectors yet, …).
    pub notices: Vec<String>,
    /// What the parse cache did.
    pub cache: CacheStats,
}

/// A note named in [`Expansion`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkedNote {
    /// The note's label (file name without `.md`).
    pub label: String,
    /// Vault-relative path.
    pub path: String,
}

/// The outcome of [`Vault::expand`]: a note and its visible neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expansion {
    /// Vault-relative path.
    pub path: String,
    /// File name without `.md`.
    pub label: String,
    /// The exposed root it is under.
    pub scope: String,
    /// Frontmatter `description`.
    pub description: Option<String>,
    /// Visible notes it links to.
    pub links_out: Vec<LinkedNote>,
    /// Link targets not shown (outside the caller's scope, or missing).
    pub links_out_hidden: usize,
    /// Visible notes linking to it.
    pub linked_from: Vec<LinkedNote>,
}

/// A wikilink whose target resolves to nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenLink {
    /// The linking note.
    pub from: String,
    /// The target as written.
    pub target: String,
}

/// The outcome of [`Vault::graph_audit`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphAudit {
    /// Notes checked (the index, memories excluded).
    pub notes: usize,
    /// Notes nothing links to.
    pub orphans: Vec<String>,
    /// Links to notes that do not exist.
    pub broken: Vec<BrokenLink>,
}

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

/// Whether a note is a decision record or an ordinary note, for [`WorkInput`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkKind {
    /// A dated work note.
    #[default]
    Note,
    /// A decision record (no date prefix).
    Decision,
}

/// What [`Vault::record_work`] files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkInput {
    /// The note's title.
    pub title: String,
    /// What was done, in a paragraph.
    pub summary: String,
    /// What changed.
    pub changes: Vec<String>,
    /// Decisions made.
    pub decisions: Vec<String>,
    /// What was learned.
    pub learned: Vec<String>,
    /// What is still open.
    pub open: Vec<String>,
    /// Notes that informed the work.
    pub informed_by: Vec<String>,
    /// How the work was verified.
    pub verification: Option<String>,
    /// A folder inside an exposed root (else the caller's project folder, else the inbox).
    pub folder: Option<String>,
    /// Note or decision.
    pub kind: WorkKind,
    /// Render, write nothing.
    pub dry_run: bool,
}

impl WorkInput {
    /// Reads the input from JSON arguments (`title`, `summary`, `changes`, `decisions`,
    /// `learned`, `open`, `informed_by`, `verification`, `folder`, `kind`, `dry_run`); missing
    /// or mistyped fields are left empty (the call then refuses with a clear reason).
    pub fn from_json(v: &serde_json::Value) -> WorkInput {
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let list = |k: &str| -> Vec<String> {
            v.get(k)
                .and_then(|x| x.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|i| i.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        WorkInput {
            title: s("title").unwrap_or_default(),
            summary: s("summary").unwrap_or_default(),
            changes: list("changes"),
            decisions: list("decisions"),
            learned: list("learned"),
            open: list("open"),
            informed_by: list("informed_by"),
            verification: s("verification"),
            folder: s("folder"),
            kind: if s("kind").as_deref() == Some("decision") {
                WorkKind::Decision
            } else {
                WorkKind::Note
            },
            dry_run: v.get("dry_run").and_then(|x| x.as_bool()) == Some(true),
        }
    }
}

/// The outcome of [`Vault::record_work`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct WorkRecord {
    /// Whether a file was written.
    pub recorded: bool,
    /// Vault-relative path (planned, for a dry run).
    pub path: Option<String>,
    /// `caller` (the given folder), `caller-identity` (the caller's project folder) or
    /// `fallback` (the inbox).
    pub route: Option<String>,
    /// Whether the index already holds the note.
    pub indexed: bool,
    /// For a dry run: the start of the rendered note.
    pub preview: Option<String>,
    /// Why nothing was written.
    pub refusal: Option<String>,
    /// The outcome as text.
    pub message: String,
}

const MEMORY_LOCK: &str = "memory.lock";
/// Links of one note `expand` considers (the first ones, in note order): bounds the work of a
/// note made of hundreds of thousands of links.
pub(crate) const EXPAND_MAX_LINKS: usize = 10_000;

impl Vault {
    /// The policy and store for the current manifest (re-read when the manifest changes).
    pub(crate) fn agent(&self) -> Arc<AgentContext> {
        let key = fs::metadata(self.root.join(crate::MANIFEST_FILE))
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

    /// Fills in the caller's platforms from its project's own note in the vault.
    pub fn identify(&self, mut caller: Caller) -> Caller {
        if let Some(p) = &caller.project {
            let ctx = self.agent();
            caller.platforms =
                crate::exposure::caller_platforms(&self.root, &ctx.memory_root.root, p);
        }
        caller.identified = true;
        caller
    }

    /// Every memory file in the store (agent memories and anything else filed there), from the
    /// parse cache.
    pub fn memories(&self) -> Vec<Arc<Memory>> {
        self.agent().store.all().0
    }

    /// Records a memory for `caller`, or says why not (see [`Refusal`]). Refusals are `Ok`;
    /// `Err` means the write itself failed (and nothing was left half-written).
    pub fn remember(&self, caller: &Caller, input: &MemoryInput) -> Result<Remembered> {
        let ctx = self.agent();
        let log = self.audit_log();
        let who = caller.project.as_deref();
        if caller.is_vault {
            log.append(
                "refused",
                who,
                json!({"tool": "remember", "reason": "session is the vault itself"}),
            );
            return Ok(refused(
                Refusal::VaultItself,
                "Refused: this session is running inside the vault itself.\nMemories are written from the repository they were learned in, so their reach names that project. Run this from that repository (or pass --caller NAME), or edit the vault's notes directly.".to_string(),
            ));
        }
        // Sizes first: nothing reads an oversized input further.
        let too_big = crate::memory::size_errors(input);
        if !too_big.is_empty() {
            log.append(
                "refused",
                who,
                json!({"tool": "remember", "reason": "size", "errors": too_big.len()}),
            );
            let message = format!("Refused:\n- {}", too_big.join("\n- "));
            return Ok(refused(Refusal::Validation { errors: too_big }, message));
        }
        let opt = |o: &Option<String>| o.clone().unwrap_or_default();
        let (verification, generality, scope) = (
            opt(&input.verification),
            opt(&input.generality),
            opt(&input.scope),
        );
        let fields: Vec<(&str, FieldValue<'_>)> = vec![
            ("title", FieldValue::Text(&input.title)),
            ("body", FieldValue::Text(&input.body)),
            ("confidence", FieldValue::Text(&input.confidence)),
            ("verification", FieldValue::Text(&verification)),
            ("scope", FieldValue::Text(&scope)),
            ("generality", FieldValue::Text(&generality)),
            ("projects", FieldValue::List(&input.projects)),
            ("platforms", FieldValue::List(&input.platforms)),
            ("links", FieldValue::List(&input.links)),
            ("supersedes", FieldValue::List(&input.supersedes)),
        ];
        if let Some(hit) = text::find_markup(&fields) {
            let keys: Vec<&str> = fields
                .iter()
                .filter(|(_, v)| match v {
                    FieldValue::Text(t) => !t.is_empty(),
                    FieldValue::List(l) => !l.is_empty(),
                })
                .map(|(k, _)| *k)
                .collect();
            log.append(
                "refused",
                who,
                json!({"tool": "remember", "reason": "tool-call markup", "field": hit.field,
                       "offset": hit.offset, "trailing": hit.trailing}),
            );
            let message = text::markup_refusal(&hit, &keys);
            return Ok(refused(
                Refusal::Markup {
                    field: hit.field,
                    offset: hit.offset,
                    item: hit.item,
                    trailing: hit.trailing,
                },
                message,
            ));
        }
        // Wikilink resolution needs every visible note's names: an enumeration of the vault,
        // paid only when the memory has wikilinks or links to resolve.
        let needs_names =
            !input.links.is_empty() || input.title.contains("[[") || input.body.contains("[[");
        let names = if needs_names {
            ctx.exposure.resolvable_names(&ctx.exposure.visible_files())
        } else {
            Default::default()
        };
        let mut unlinked = Vec::new();
        let mut inp = input.clone();
        inp.title = text::neutralize_wikilinks(&input.title, &names, &mut unlinked);
        inp.body = text::neutralize_wikilinks(&input.body, &names, &mut unlinked);
        let v = match validate(&inp, who) {
            Ok(v) => v,
            Err(errors) => {
                log.append(
                    "refused",
                    who,
                    json!({"tool": "remember", "reason": "validation", "errors": errors.len()}),
                );
                let message = format!("Refused:\n- {}", errors.join("\n- "));
                return Ok(refused(Refusal::Validation { errors }, message));
            }
        };
        let now = Now::current();
        let candidate = Memory {
            scope: v.scope.as_str().to_string(),
            projects: v.projects.clone(),
            platforms: v.platforms.clone(),
            source: Some(crate::memory::MEMORY_SOURCE.to_string()),
            ..Memory::parse("", "")
        };
        // Only memories this caller can see may be matched, named or superseded: a memory
        // hidden from it is neither a duplicate it is told about nor a target it may mark.
        let (existing, _) = ctx.store.all_with_digests();
        let seen: HashSet<String> = {
            let entries: Vec<Arc<Memory>> = existing.iter().map(|(m, _)| m.clone()).collect();
            recall_from(&entries, caller, false)
                .visible
                .into_iter()
                .map(|(m, _)| m.path.clone())
                .collect()
        };
        let existing: Vec<_> = existing
            .into_iter()
            .filter(|(m, _)| seen.contains(&m.path))
            .collect();
        if !input.force {
            let digest = Digest::new(&v.title, &v.body);
            if let Some(&(i, score)) = find_duplicates(&candidate, &digest, &existing).first() {
                let m = &existing[i].0;
                let title = m.title.clone().unwrap_or_default();
                let message = format!(
                    "Not recorded: a near-identical memory already exists ({}% similar).\n  {title}\n  {}\nIf this is a correction, pass supersedes: [{}] so the old one is kept and back-linked; if it is genuinely different, pass force: true.",
                    (score * 100.0).round(),
                    m.path,
                    text::json_str(&title)
                );
                return Ok(refused(
                    Refusal::Duplicate {
                        score,
                        title,
                        path: m.path.clone(),
                    },
                    message,
                ));
            }
        }
        let (related, links_dropped) = text::resolve_links(&input.links, &names);
        let entries: Vec<Arc<Memory>> = existing.iter().map(|(m, _)| m.clone()).collect();
        let (targets, unmatched) = resolve_supersedes(&input.supersedes, &entries);
        let rendered = render(&v, &now, &related);
        let mut out = Remembered {
            scope: Some(v.scope),
            projects: v.projects.clone(),
            platforms: v.platforms.clone(),
            supersedes_unmatched: unmatched,
            links_dropped,
            wikilinks_unlinked: unlinked,
            warnings: v.warnings.clone(),
            ..Remembered::default()
        };
        if input.dry_run {
            let mut msg = format!("Preview (nothing written):\n\n{rendered}");
            out.append_details(&mut msg);
            out.preview = Some(rendered);
            out.message = msg;
            return Ok(out);
        }
        let rel = ctx
            .store
            .write(now.local, &text::slugify(&v.title), &rendered)?;
        let mut touched = vec![rel.clone()];
        for t in &targets {
            let title = t.title.clone().unwrap_or_default();
            match ctx.store.mark_superseded(&t.path, &v.title) {
                Mark::Marked => {
                    touched.push(t.path.clone());
                    out.superseded.push(title);
                }
                Mark::AlreadyPresent => out.superseded.push(title),
                Mark::Refused(why) => out.supersede_failures.push(why),
            }
        }
        let not_indexed = self.index_written(&touched, &rel).err();
        out.indexed = not_indexed.is_none();
        out.recorded = true;
        out.path = Some(rel.clone());
        log.append(
            "remember",
            who,
            json!({"rel": rel, "scope": v.scope.as_str(), "projects": v.projects, "indexed": out.indexed}),
        );
        let mut msg = format!("Recorded: {rel}\nScope: {}", v.scope.as_str());
        if !v.projects.is_empty() {
            msg.push_str(&format!(" → {}", v.projects.join(", ")));
        } else if !v.platforms.is_empty() {
            msg.push_str(&format!(" → {}", v.platforms.join(", ")));
        }
        if !out.superseded.is_empty() {
            msg.push_str(&format!(
                "\nSuperseded: {} (kept and back-linked)",
                out.superseded.join("; ")
            ));
        }
        for f in &out.supersede_failures {
            msg.push_str(&format!("\nNot back-linked: {f}"));
        }
        out.append_details(&mut msg);
        if let Some(why) = &not_indexed {
            msg.push_str(&format!("\n\nNOTE: not indexed: {why}. This memory may not be findable by query yet (the next `mindex update` retries)."));
        }
        out.message = msg;
        Ok(out)
    }

    /// The memories `caller` may see, best first. With a query, the engine's search (hybrid
    /// when `embedder` is given and vectors exist, else BM25) orders them; memories it did not
    /// place follow, so nothing visible is ever missing. Live memories always come before
    /// superseded ones.
    pub fn recall(
        &self,
        caller: &Caller,
        opts: &RecallOptions,
        embedder: Option<&dyn Embedder>,
    ) -> Result<Recall> {
        let ctx = self.agent();
        let (entries, cache) = ctx.store.all();
        let r = recall_from(&entries, caller, opts.explain);
        let visible_n = r.visible.len();
        let mut ranking = RecallRanking::Declared;
        let mut notices = Vec::new();
        let mut ordered = r.visible;
        let q = opts.query.as_deref().map(str::trim).unwrap_or("");
        if !q.is_empty() && ordered.len() > 1 {
            let (placed, how) =
                self.retrieve_memories(&ctx, q, opts.limit, embedder, &mut notices)?;
            ranking = how;
            ordered = reorder(ordered, &placed);
        }
        let mut reasons: Vec<String> = Vec::new();
        if opts.explain {
            for (_, why) in &r.withheld {
                if !reasons.contains(why) {
                    reasons.push(why.clone());
                }
            }
        }
        let mut resolver = Resolver::new(&ctx.exposure);
        let memories: Vec<RecalledMemory> = ordered
            .into_iter()
            .take(opts.limit)
            .map(|(m, why)| RecalledMemory {
                promotion: m.promoted.as_deref().map(|raw| resolver.resolve(raw)),
                memory: (*m).clone(),
                why: opts.explain.then_some(why),
            })
            .collect();
        let promoted: Vec<serde_json::Value> = memories
            .iter()
            .filter_map(|m| {
                let p = m.promotion.as_ref()?;
                Some(json!({"rel": m.memory.path, "status": serde_json::to_value(p).ok()?["status"]}))
            })
            .collect();
        let mut detail =
            json!({"query": opts.query, "returned": memories.len(), "project": caller.project});
        if !promoted.is_empty() {
            detail["promoted"] = json!(promoted.iter().take(25).collect::<Vec<_>>());
            if promoted.len() > 25 {
                detail["promoted_omitted"] = json!(promoted.len() - 25);
            }
        }
        self.audit_log()
            .append("recall", caller.project.as_deref(), detail);
        Ok(Recall {
            caller: caller.project.clone(),
            memories,
            visible: visible_n,
            withheld: r.withheld.len(),
            withheld_reasons: reasons,
            ranking,
            notices,
            cache,
        })
    }

    /// Memory paths in retrieval order for `q`.
    fn retrieve_memories(
        &self,
        ctx: &AgentContext,
        q: &str,
        limit: usize,
        embedder: Option<&dyn Embedder>,
        notices: &mut Vec<String>,
    ) -> Result<(Vec<String>, RecallRanking)> {
        let prefix = format!("{}/", ctx.store.root());
        let per = SearchOptions {
            limit: (limit * 3).max(50),
            all_chunks: false,
        };
        let lexical = match self.lexical() {
            Ok(l) => l,
            Err(Error::IndexMissing { .. }) => {
                notices.push(
                    "no index yet: memories are in declared order (run `mindex update`)".into(),
                );
                return Ok((Vec::new(), RecallRanking::Declared));
            }
            Err(e) => return Err(e),
        };
        let lex = lexical.paths_in_folder(q, per.limit, ctx.store.root())?;
        let mut lists: Vec<(f32, Vec<String>)> = vec![(1.0, lex)];
        let mut how = RecallRanking::Lexical;
        if let Some(e) = embedder {
            match self.vector_store(e) {
                Ok(store) => {
                    let deep = SearchOptions {
                        limit: per.limit * 4,
                        all_chunks: false,
                    };
                    let hits = self.vector_hits(e, &store, q, &deep)?;
                    let paths: Vec<String> = hits
                        .into_iter()
                        .map(|h| h.path)
                        .filter(|p| p.starts_with(&prefix))
                        .take(per.limit)
                        .collect();
                    lists.push((crate::query::DEFAULT_VEC_WEIGHT, paths));
                    how = RecallRanking::Hybrid;
                }
                Err(Error::VectorsMissing { .. }) => notices
                    .push("no vectors yet: memories ordered by BM25 (run `mindex embed`)".into()),
                Err(err) => return Err(err),
            }
        }
        // Weighted reciprocal rank fusion (k = 60) over the ranked path lists.
        let k = QueryOptions::default().rrf_k;
        let mut score: HashMap<String, f32> = HashMap::new();
        for (w, list) in &lists {
            for (rank, p) in list.iter().enumerate() {
                *score.entry(p.clone()).or_default() += w / (k + rank as f32 + 1.0);
            }
        }
        let mut fused: Vec<(String, f32)> = score.into_iter().collect();
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok((fused.into_iter().map(|(p, _)| p).collect(), how))
    }

    /// Files a record of work done (a note or a decision) inside the vault: in `folder` when it
    /// lies inside an exposed root, else the caller's `projects/<name>/` folder, else the inbox.
    /// Refusals write nothing; an existing file is never modified.
    pub fn record_work(&self, caller: &Caller, input: &WorkInput) -> Result<WorkRecord> {
        crate::vault::work::record_work(self, &self.agent(), caller, input)
    }

    /// A note and its visible neighbourhood, as an anonymous agent caller sees it
    /// ([`crate::Scoped::expand`]).
    pub fn expand(&self, note: &str) -> Result<Expansion> {
        self.scoped(&Caller::anonymous()).expand(note)
    }

    /// Orphans (notes nothing links to) and broken links (targets that name no note) over the
    /// whole index, memories excluded. Links to attachments (a target with a non-markdown
    /// extension) are not checked.
    pub fn graph_audit(&self) -> Result<GraphAudit> {
        let state = self.state()?.ok_or_else(|| Error::IndexMissing {
            path: self.index_dir.clone(),
        })?;
        let mem_prefix = format!("{}/", self.agent().store.root());
        let notes: Vec<(&String, &crate::state::NoteState)> = state
            .notes
            .iter()
            .filter(|(p, _)| !p.starts_with(&mem_prefix))
            .collect();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, (p, ns)) in notes.iter().enumerate() {
            by_name
                .entry(crate::note::file_stem(p).to_lowercase())
                .or_default()
                .push(i);
            for a in &ns.aliases {
                by_name.entry(a.to_lowercase()).or_default().push(i);
            }
        }
        let mut inbound = vec![0usize; notes.len()];
        let mut broken = Vec::new();
        for (i, (p, ns)) in notes.iter().enumerate() {
            for t in &ns.links {
                let t = t.trim().replace('\\', "/");
                let lower = t.to_lowercase();
                let has_ext = std::path::Path::new(&lower)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| e != "md" && e.len() <= 5 && !e.contains(' '));
                if has_ext {
                    continue;
                }
                let lower = lower.trim_end_matches(".md").to_string();
                let found: Vec<usize> = if lower.contains('/') {
                    notes
                        .iter()
                        .enumerate()
                        .filter(|(_, (q, _))| {
                            let q = q.to_lowercase();
                            let q = q.trim_end_matches(".md");
                            q == lower || q.ends_with(&format!("/{lower}"))
                        })
                        .map(|(j, _)| j)
                        .collect()
                } else {
                    by_name.get(&lower).cloned().unwrap_or_default()
                };
                if found.is_empty() {
                    broken.push(BrokenLink {
                        from: (*p).clone(),
                        target: t.clone(),
                    });
                }
                for j in found {
                    if j != i {
                        inbound[j] += 1;
                    }
                }
            }
        }
        let orphans = notes
            .iter()
            .enumerate()
            .filter(|(i, _)| inbound[*i] == 0)
            .map(|(_, (p, _))| (*p).clone())
            .collect();
        Ok(GraphAudit {
            notes: notes.len(),
            orphans,
            broken,
        })
    }

    /// What an agent session sees of this vault: caller, memory root, store, exposed roots,
    /// index, with warnings for anything that degrades retrieval.
    /// The caller is identified here (its platforms read from its project's note).
    pub fn health(&self, caller: &Caller) -> Result<Health> {
        self.health_inner(self.scoped(caller).caller(), false)
    }

    /// [`Vault::health`] as served to an agent: warnings and notes name only memories the
    /// caller may recall (and the projects those reach); the rest are counted, never named.
    pub fn health_as_agent(&self, caller: &Caller) -> Result<Health> {
        self.health_inner(caller, true)
    }

    fn health_inner(&self, caller: &Caller, agent_view: bool) -> Result<Health> {
        let ctx = self.agent();
        let (entries, parsed) = ctx.store.all();
        let agent: Vec<&Arc<Memory>> = entries.iter().filter(|m| m.is_agent()).collect();
        let mut warnings = Vec::new();
        let mut notes = Vec::new();
        let mr = &ctx.memory_root;
        if mr.healed {
            warnings.push(format!(
                "Memories are in \"{}/\" but the manifest says \"{}\": the store is read from where they are; set memory_root in vault-manifest.json to silence this.",
                mr.root,
                ctx.manifest.memory_root()
            ));
        }
        if mr.split.len() > 1 {
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
        let vectors = self.vector_status().map(|v| v.count);
        if vectors.is_none() {
            notes.push(
                "No vectors yet: recall and search are lexical until `mindex embed` runs.".into(),
            );
        }
        let coverage = self.vector_coverage().ok().flatten();
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
        // Agents see memory files (whose names are their titles) only when they may recall them.
        let nameable: HashSet<&str> = agent
            .iter()
            .filter(|m| !agent_view || m.visible_to(caller))
            .map(|m| m.path.as_str())
            .collect();
        let mut unnamed = 0usize;
        for (rel, p) in &pa.broken {
            if !nameable.contains(rel.as_str()) {
                unnamed += 1;
                continue;
            }
            let why = match p {
                Promotion::StaleAnchor { note, anchor, .. } => {
                    format!("anchor {anchor} no longer resolves in {note}")
                }
                Promotion::NotExposed { note } => format!("{note} is outside the exposed roots"),
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
            memory_root: mr.clone(),
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

impl Remembered {
    fn append_details(&self, msg: &mut String) {
        if !self.supersedes_unmatched.is_empty() {
            msg.push_str(&format!(
                "\nSupersedes NOT matched: {}",
                self.supersedes_unmatched.join("; ")
            ));
        }
        if !self.links_dropped.is_empty() {
            msg.push_str(&format!(
                "\nLinks dropped as unresolvable: {}",
                self.links_dropped.join("; ")
            ));
        }
        if !self.wikilinks_unlinked.is_empty() {
            msg.push_str(&format!(
                "\nDangling wikilinks were unlinked: {}",
                self.wikilinks_unlinked.join("; ")
            ));
        }
        if !self.warnings.is_empty() {
            msg.push_str("\n\nWarnings:");
            for w in &self.warnings {
                msg.push_str("\n- ");
                msg.push_str(w);
            }
        }
    }
}

fn refused(refusal: Refusal, message: String) -> Remembered {
    Remembered {
        refusal: Some(refusal),
        message,
        ..Remembered::default()
    }
}
