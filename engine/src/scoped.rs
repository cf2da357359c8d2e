//! The agent's view of a vault: one caller, and every read, search, listing and write it makes
//! filtered by the exposure policy and written to the audit log, here and nowhere else.
//!
//! [`Vault::scoped`] identifies the caller (its platforms, from its project's note) and returns a
//! [`Scoped`] handle. The MCP server, the hooks, the C ABI and the Python binding serve agents
//! only through it, so the promise "a note the caller may not see never reaches it" is kept in
//! one place (the audit log bounds what it records of long inputs itself):
//! - names resolve among visible notes only ([`Scoped::resolve`]); a hidden note is never named,
//!   never makes a name ambiguous and gets the answer a missing one gets ([`not_visible`]);
//! - a note is read from one open file checked against the policy
//!   (`exposure::open_visible`), at most [`MAX_READ_BYTES`] of it;
//! - search results are filtered after ranking, never the query ([`Scoped::query`]);
//! - status and health name only what the caller may read, and no absolute path
//!   ([`Scoped::scrub`]).

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use serde_json::json;

use crate::audit::{AuditAction, AuditLog};
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::exposure::{OpenedNote, VisibleFile, open_visible};
use crate::identity::Caller;
use crate::memory::MemoryInput;
use crate::query::SubQuery;
use crate::report::{Changes, Rename, Warning};
use crate::resolve::{LinkResolver, NOTE_URI_PREFIX, note_uri, resolve_among};
use crate::vault::agent::{AgentContext, EXPAND_MAX_LINKS};

mod answers;
pub mod docs;
mod tree;
use crate::vault::{
    Expansion, Health, LinkedNote, MultiGetItem, ReasonOptions, Reasoning, Recall, RecallOptions,
    Remembered, ScopedHits, Vault, WorkInput, WorkRecord,
};
pub use answers::*;
pub use tree::{MemoryInbox, Reads, RecentCommits, TreeFile, VaultTree, VisibleText};

/// One caller's view of a vault (see the module docs). Cheap to make: one per call is fine.
#[derive(Debug)]
pub struct Scoped<'v> {
    vault: &'v Vault,
    caller: Caller,
    ctx: Arc<AgentContext>,
}

impl Vault {
    /// The view of this vault `caller` is served: the caller is identified here (its platforms
    /// read from its project's note) unless [`Vault::identify`] already did, so no surface can
    /// forget to, and a server holding an identified caller does not walk the vault per call.
    pub fn scoped(&self, caller: &Caller) -> Scoped<'_> {
        let caller = if caller.identified {
            caller.clone()
        } else {
            self.identify(caller.clone())
        };
        Scoped {
            vault: self,
            caller,
            ctx: self.agent(),
        }
    }
}

impl<'v> Scoped<'v> {
    /// The identified caller.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    fn who(&self) -> Option<&str> {
        self.caller.project.as_deref()
    }

    fn log(&self) -> AuditLog {
        self.vault.audit_log()
    }

    /// `message` as an agent may read it: no absolute path ([`scrub_paths`]).
    pub fn scrub(&self, message: &str) -> String {
        scrub_paths(message, self.vault.root())
    }

    /// Every note this view serves, sorted by path.
    pub(crate) fn visible_files(&self) -> Vec<VisibleFile> {
        self.ctx.exposure.visible_files()
    }

    /// Resolves a path, name, path suffix, loose name or `vault://note/` URI among the visible
    /// notes only ([`crate::resolve`] has the rules). A hidden note is [`Error::NoteNotFound`],
    /// like a missing one, and is never suggested.
    pub fn resolve(&self, spec: &str) -> Result<String> {
        self.resolve_in(spec, "path", &mut None)
    }

    /// [`Scoped::resolve`] naming `arg` in its errors, walking the visible notes at most once
    /// across calls that share `visible`.
    fn resolve_in(
        &self,
        spec: &str,
        arg: &str,
        visible: &mut Option<Vec<VisibleFile>>,
    ) -> Result<String> {
        let ex = &self.ctx.exposure;
        resolve_among(
            spec,
            arg,
            |cand| ex.may_read(cand).is_ok(),
            || {
                let files = visible.get_or_insert_with(|| ex.visible_files());
                Ok(files.iter().map(|f| f.rel.clone()).collect())
            },
        )
    }

    /// Reads a visible note (all of it, or `max_lines` lines from `from_line`, 1-based), a page
    /// of at most [`AGENT_PAGE_BYTES`] at a time (see [`AgentNote::next_from_line`]), from at
    /// most the first [`MAX_READ_BYTES`] of the file. Audited as `get`; a name that reaches no visible note is audited
    /// as `resource_denied` and answered [`Error::NoteNotFound`] (render it with
    /// [`not_visible`]).
    pub fn get(
        &self,
        spec: &str,
        from_line: Option<usize>,
        max_lines: Option<usize>,
    ) -> Result<AgentNote> {
        let read = self
            .resolve(spec)
            .and_then(|rel| self.open(&rel, spec).map_err(Error::from));
        match read {
            Ok(opened) => {
                let note = agent_note(&opened, from_line, max_lines, Some(AGENT_PAGE_BYTES));
                self.log().append(
                    AuditAction::Get,
                    self.who(),
                    json!({"path": note.note.path, "truncated": note.truncated}),
                );
                Ok(note)
            }
            Err(e) => {
                self.log().append(
                    AuditAction::ResourceDenied,
                    self.who(),
                    json!({"uri": spec, "tool": "get"}),
                );
                Err(e)
            }
        }
    }

    /// Reads a note by its `vault://note/<path>` URI (or any form [`Scoped::resolve`] takes after
    /// the prefix). Audited as `resource_read` with the canonical URI (and the one asked for when
    /// it differs); anything that reaches no visible note as `resource_denied`.
    pub fn read_uri(&self, uri: &str) -> Result<(String, AgentNote)> {
        let found = if uri.starts_with(NOTE_URI_PREFIX) {
            self.resolve(uri)
                .and_then(|rel| self.open(&rel, uri).map_err(Error::from))
        } else {
            Err(Error::NoteNotFound {
                path: clip(uri),
                suggestions: Vec::new(),
            })
        };
        let opened = match found {
            Ok(o) => o,
            Err(e) => {
                self.log()
                    .append(AuditAction::ResourceDenied, self.who(), json!({"uri": uri}));
                return Err(e);
            }
        };
        let canonical = note_uri(&opened.rel);
        let mut detail = json!({"uri": canonical});
        if canonical != uri {
            detail["from"] = json!(uri);
        }
        if opened.truncated {
            detail["truncated"] = json!(true);
        }
        self.log()
            .append(AuditAction::ResourceRead, self.who(), detail);
        Ok((canonical, agent_note(&opened, None, None, None)))
    }

    /// Opens a resolved note once, checked against the policy; a denial reads as not found.
    fn open(&self, rel: &str, spec: &str) -> std::result::Result<OpenedNote, NotVisible> {
        open_visible(&self.ctx.exposure, rel, MAX_READ_BYTES).map_err(|_| NotVisible(clip(spec)))
    }

    /// Reads every visible note matching `patterns`: comma-separated globs (matched against the
    /// visible notes) or names ([`Scoped::resolve`]). At most [`MAX_MULTI_GET_NOTES`] notes and
    /// [`MAX_MULTI_GET_BYTES`] of text in all (each note at most one page, cut at whole lines:
    /// its `line_end` below `total_lines` says so); a note over `max_bytes`, or past the total,
    /// is listed as skipped.
    /// Audited as `multi_get`.
    pub fn multi_get(&self, patterns: &str, max_bytes: Option<u64>) -> Result<AgentMultiGet> {
        let ex = &self.ctx.exposure;
        let pats: Vec<&str> = patterns
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        if pats.is_empty() {
            return Err(Error::invalid(
                "pattern",
                "empty: give globs or note names, comma-separated",
            ));
        }
        let mut visible: Option<Vec<VisibleFile>> = None;
        let mut paths: Vec<String> = Vec::new();
        let mut unmatched = Vec::new();
        for pat in pats {
            if pat.contains(['*', '?', '[', '{']) {
                let glob = globset::GlobBuilder::new(pat)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| {
                        Error::invalid("pattern", format!("{:?} is not a glob: {e}", clip(pat)))
                    })?
                    .compile_matcher();
                let files = visible.get_or_insert_with(|| ex.visible_files());
                paths.extend(
                    files
                        .iter()
                        .filter(|f| glob.is_match(&f.rel))
                        .map(|f| f.rel.clone()),
                );
            } else {
                match self.resolve_in(pat, "pattern", &mut visible) {
                    Ok(rel) => paths.push(rel),
                    Err(Error::NoteNotFound { .. }) => unmatched.push(not_visible(pat)),
                    Err(Error::InvalidArgument { detail, .. }) => unmatched.push(detail),
                    Err(e) => return Err(e),
                }
            }
        }
        let mut seen = HashSet::new();
        paths.retain(|p| seen.insert(p.clone()));
        let not_listed = paths.len().saturating_sub(MAX_MULTI_GET_NOTES);
        paths.truncate(MAX_MULTI_GET_NOTES);
        let limit = max_bytes.unwrap_or(u64::MAX);
        let mut served = 0usize;
        let mut items = Vec::new();
        for p in paths {
            // A note that stopped being visible since it matched is left out, as if hidden.
            let Ok(opened) = open_visible(ex, &p, MAX_READ_BYTES) else {
                continue;
            };
            if opened.size > limit {
                items.push(MultiGetItem::Skipped {
                    path: p,
                    reason: format!("{} bytes is over max_bytes {limit}", opened.size),
                });
                continue;
            }
            let room = MAX_MULTI_GET_BYTES.saturating_sub(served);
            if room < MULTI_GET_MIN_ROOM.min(opened.text.len().max(1)) {
                items.push(MultiGetItem::Skipped {
                    path: p,
                    reason: format!(
                        "this answer already holds {served} bytes of notes; the {MAX_MULTI_GET_BYTES}-byte multi_get limit leaves no room: read it with get"
                    ),
                });
                continue;
            }
            let page = agent_note(&opened, None, None, Some(room.min(AGENT_PAGE_BYTES)));
            served += page.note.text.len();
            items.push(MultiGetItem::Ok(page.note));
        }
        self.log().append(
            AuditAction::MultiGet,
            self.who(),
            json!({"pattern": patterns, "returned": items.len()}),
        );
        Ok(AgentMultiGet {
            items,
            unmatched,
            not_listed,
        })
    }

    /// The visible notes as resources, with their frontmatter `description` read from a head of
    /// each (never the whole file). Audited as `resources_list`.
    pub fn resources(&self) -> Vec<Resource> {
        let root = self.vault.root();
        let listed: Vec<Resource> = self
            .visible_files()
            .into_iter()
            .map(|f| {
                let description = crate::markdown::read_head(&root.join(&f.rel), 8192)
                    .and_then(|head| crate::markdown::frontmatter_str(&head, "description"))
                    .map(|d| d.chars().take(200).collect())
                    .unwrap_or_else(|| "Vault note".to_string());
                let name = if f.scope == f.label {
                    f.label.clone()
                } else {
                    format!("{}: {}", f.scope, f.label)
                };
                Resource {
                    uri: note_uri(&f.rel),
                    name,
                    description,
                }
            })
            .collect();
        self.log().append(
            AuditAction::ResourcesList,
            self.who(),
            json!({"listed": listed.len()}),
        );
        listed
    }

    /// A hybrid search for `text` (lexical only without `model`), audited as `search`.
    pub fn search(
        &self,
        model: Option<&dyn Embedder>,
        text: &str,
        limit: usize,
    ) -> Result<ScopedHits> {
        self.run(AuditAction::Search, model, &SubQuery::hybrid(text), limit)
    }

    /// The decision records among the visible notes that `text` is about, best first, at most
    /// `limit`: a lexical search for the text (its first 500 characters) keeping notes named
    /// `Decision - …` or tagged `decision` whose matched words include at least two distinct
    /// ones (or an exact identifier). The prompt hook names them when a message announces a
    /// decision, so a new one that replaces an old one is filed as its supersession. Audited as
    /// `search`; empty without an index.
    pub fn decisions_about(&self, text: &str, limit: usize) -> Result<Vec<DecisionRef>> {
        let text: String = text.chars().take(500).collect();
        let hits = match self.search(None, &text, 30) {
            Ok(h) => h.hits,
            Err(Error::IndexMissing { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out = Vec::new();
        for h in hits.into_iter().map(|q| q.hit) {
            let stem = crate::note::file_stem(&h.path).to_string();
            let head = crate::markdown::read_head(&self.vault.root().join(&h.path), 4_000);
            let tagged = head
                .as_deref()
                .and_then(crate::markdown::frontmatter)
                .and_then(|fm| fm.get("tags").cloned())
                .is_some_and(|t| t.to_string().to_lowercase().contains("\"decision\""));
            if !(tagged || stem.to_lowercase().starts_with("decision")) {
                continue;
            }
            let matched: HashSet<String> = h
                .snippet
                .split("**")
                .skip(1)
                .step_by(2)
                .map(str::to_lowercase)
                .collect();
            if matched.len() < 2 && !h.exact {
                continue;
            }
            let status = head
                .as_deref()
                .and_then(|t| crate::markdown::frontmatter_str(t, "status"));
            out.push(DecisionRef {
                path: h.path,
                label: stem,
                status,
            });
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }

    /// Typed sub-queries, audited as `query`: ranked over the whole index, then only hits in
    /// notes the caller may read are kept (the vault's filtered query).
    pub fn query(
        &self,
        model: Option<&dyn Embedder>,
        subs: &[SubQuery],
        limit: usize,
    ) -> Result<ScopedHits> {
        self.run(AuditAction::Query, model, subs, limit)
    }

    fn run(
        &self,
        action: AuditAction,
        model: Option<&dyn Embedder>,
        subs: &[SubQuery],
        limit: usize,
    ) -> Result<ScopedHits> {
        let r = self.vault.scoped_query(model, subs, limit)?;
        // Each distinct text once: a hybrid query's lex and vec halves share theirs.
        let mut texts: Vec<&str> = Vec::new();
        for sub in subs {
            if !texts.contains(&sub.text.as_str()) {
                texts.push(&sub.text);
            }
        }
        self.log().append(
            action,
            self.who(),
            json!({"query": texts.join(" | "), "withheld": r.withheld,
                   "total": r.total, "returned": r.hits.len()}),
        );
        Ok(r)
    }

    /// A visible note and its visible neighbourhood: links out (visible ones named, others
    /// counted) and the visible notes linking to it. `note` is anything [`Scoped::resolve`]
    /// takes. Audited as `expand`, found or not.
    ///
    /// Bounded whatever the vault holds: a note over the index's size limit
    /// ([`crate::VaultOptions::max_note_bytes`]) is never read or parsed (as the seed it is
    /// refused, as a neighbour it contributes no links), and at most 10,000 links of each note
    /// are considered.
    pub fn expand(&self, note: &str) -> Result<Expansion> {
        let r = self.expand_inner(note);
        let found = match &r {
            Ok(e) => json!({"note": note, "found": e.path, "hidden": e.links_out_hidden}),
            Err(_) => json!({"note": note, "found": null}),
        };
        self.log().append(AuditAction::Expand, self.who(), found);
        r
    }

    fn expand_inner(&self, note: &str) -> Result<Expansion> {
        let vault = self.vault;
        let mut cache = None;
        let rel = self.resolve_in(note, "note", &mut cache)?;
        let visible = cache.unwrap_or_else(|| self.visible_files());
        let Some(seed) = visible.iter().position(|f| f.rel == rel) else {
            return Err(Error::NoteNotFound {
                path: clip(note),
                suggestions: Vec::new(),
            });
        };
        let state = vault.state().ok().flatten();
        let max_bytes = vault.options().max_note_bytes;
        // The state's links are those of the file as indexed: used only while the file is
        // still that file (same size and mtime), else read from disk, so a note's links from
        // when it was withheld (private, or another file behind a symlink) never show.
        let links_of = |f: &VisibleFile| -> Vec<String> {
            let path = vault.root().join(&f.rel);
            if let Some(ns) = state.as_ref().and_then(|s| s.notes.get(&f.rel))
                && fs::metadata(&path)
                    .is_ok_and(|m| crate::walk::FileStat::of(&m).is_version(ns.size, ns.mtime_ns))
            {
                return ns.links.iter().take(EXPAND_MAX_LINKS).cloned().collect();
            }
            read_links(&path, &f.rel, max_bytes)
        };
        let target = &visible[seed];
        let size = fs::metadata(vault.root().join(&target.rel)).map_or(0, |m| m.len());
        if size > max_bytes {
            return Err(Error::invalid(
                "note",
                format!(
                    "{} is {size} bytes, over the {max_bytes}-byte note limit of the index: it is not indexed and its links are not read",
                    target.rel
                ),
            ));
        }
        // The link graph's one rule ([`LinkResolver`]), over the visible notes, with the
        // aliases the index holds for them.
        let no_aliases: Vec<String> = Vec::new();
        let links = LinkResolver::new(visible.iter().map(|f| {
            let aliases = state
                .as_ref()
                .and_then(|s| s.notes.get(&f.rel))
                .map_or(&no_aliases[..], |ns| &ns.aliases[..]);
            (f.rel.as_str(), aliases)
        }));
        let link_target = |t: &str| links.first(t);
        let mut links_out = Vec::new();
        let mut hidden = 0;
        let mut seen = HashSet::new();
        for t in links_of(target) {
            match link_target(&t) {
                Some(i) if seen.insert(i) => links_out.push(LinkedNote {
                    label: visible[i].label.clone(),
                    path: visible[i].rel.clone(),
                }),
                Some(_) => {}
                None => hidden += 1,
            }
        }
        let linked_from: Vec<LinkedNote> = visible
            .iter()
            .enumerate()
            .filter(|&(i, f)| i != seed && links_of(f).iter().any(|t| link_target(t) == Some(seed)))
            .map(|(_, f)| LinkedNote {
                label: f.label.clone(),
                path: f.rel.clone(),
            })
            .collect();
        let description = crate::markdown::read_head(&vault.root().join(&target.rel), 64_000)
            .and_then(|t| crate::markdown::frontmatter_str(&t, "description"));
        Ok(Expansion {
            path: target.rel.clone(),
            label: target.label.clone(),
            scope: target.scope.clone(),
            description,
            links_out,
            links_out_hidden: hidden,
            linked_from,
        })
    }

    /// [`Vault::status`] as the caller may see it: no absolute path (damaged index files named
    /// relative to the vault); changed, pending and warned-about notes named only when the
    /// caller may read them; removed notes, memory files and everything hidden only counted, in
    /// `not_shown`. Audited as `status`.
    pub fn status(&self) -> Result<AgentStatus> {
        let st = self.vault.status()?;
        let ex = &self.ctx.exposure;
        let check = ex.read_check();
        let lexical = self.vault.lexical().ok();
        let indexed_withheld = |rel: &str| {
            lexical
                .as_ref()
                .is_none_or(|l| l.indexed_withheld(rel).unwrap_or(true))
        };
        let mut not_shown = 0usize;
        let mut changes = |c: &Changes| -> AgentChanges {
            let mut keep = |paths: &[String]| -> Vec<String> {
                let shown: Vec<String> = paths
                    .iter()
                    .filter(|p| check.may_read(p).is_ok())
                    .cloned()
                    .collect();
                not_shown += paths.len() - shown.len();
                shown
            };
            let added = keep(&c.added);
            let modified = keep(&c.modified);
            not_shown += c.removed.len();
            let renamed: Vec<Rename> = c
                .renamed
                .iter()
                .filter(|r| {
                    check.may_read(&r.to).is_ok()
                        && ex.path_admitted(&r.from)
                        && !indexed_withheld(&r.to)
                })
                .cloned()
                .collect();
            not_shown += c.renamed.len() - renamed.len();
            AgentChanges {
                added,
                modified,
                removed: Vec::new(),
                renamed,
                count: c.len(),
            }
        };
        // Paths the state did not keep (past its cap) are counted, never shown.
        let unlisted = st
            .last_update
            .as_ref()
            .map_or(0, |u| u.counts().total() - u.changes.len());
        let last_update = st.last_update.as_ref().map(|u| {
            let mut listed = changes(&u.changes);
            listed.count += unlisted;
            AgentUpdate {
                finished_unix_ms: u.finished_unix_ms,
                elapsed_ms: u.elapsed_ms,
                rebuilt: u.rebuilt,
                warnings: u.warnings,
                changes: listed,
            }
        });
        let pending = changes(&st.pending);
        not_shown += unlisted;
        let warnings: Vec<Warning> = st
            .warnings
            .iter()
            // A warning about the text as indexed while it was withheld says what it held.
            .filter(|w| check.may_read(&w.path).is_ok() && !indexed_withheld(&w.path))
            .map(|w| Warning {
                message: self.scrub(&w.message),
                ..w.clone()
            })
            .collect();
        not_shown += st.warnings.len() - warnings.len();
        let status = AgentStatus {
            indexed: st.indexed,
            notes: st.notes,
            chunks: st.chunks,
            index_bytes: st.index_bytes,
            last_update,
            pending,
            warnings,
            vectors: st.vectors,
            missing_vectors: st.missing_vectors,
            damaged: st.damaged.iter().map(|d| self.scrub(d)).collect(),
            not_shown,
            note: "Only notes this session may read are named; removed notes, memory files and notes outside the exposed roots are counted in not_shown.",
        };
        self.log().append(
            AuditAction::Status,
            self.who(),
            json!({"not_shown": not_shown, "notes": st.notes}),
        );
        Ok(status)
    }

    /// What this caller's session sees of the vault ([`Vault::health`]), as served to it:
    /// memories it may not recall are counted, never named, and no absolute path (the vault is
    /// `<vault>`, the caller's folder left out). Audited as `health`.
    pub fn health(&self) -> Result<Health> {
        let mut h = self.vault.health_as_agent(&self.caller)?;
        h.vault = std::path::PathBuf::from("<vault>");
        h.caller.dir = None;
        h.warnings = h.warnings.iter().map(|w| self.scrub(w)).collect();
        h.notes = h.notes.iter().map(|w| self.scrub(w)).collect();
        self.log()
            .append(AuditAction::Health, self.who(), json!({"ok": h.ok}));
        Ok(h)
    }

    /// The memories this caller may recall, best first (live before superseded; ordered by the
    /// engine's search when there is a query).
    pub fn recall(&self, opts: &RecallOptions, model: Option<&dyn Embedder>) -> Result<Recall> {
        self.vault.recall(&self.caller, opts, model)
    }

    /// Records a memory for this caller, or says why not ([`Refusal`](crate::Refusal)): with
    /// `model`, a paraphrase of a memory the caller can see is refused too.
    pub fn remember(
        &self,
        input: &MemoryInput,
        model: Option<&dyn Embedder>,
    ) -> Result<Remembered> {
        self.vault.remember_with(&self.caller, input, model)
    }

    /// Records a work note for this caller.
    pub fn record_work(&self, input: &WorkInput) -> Result<WorkRecord> {
        self.vault.record_work(&self.caller, input)
    }

    /// Answers a question with a read-only agent session over what this caller may read
    /// (see `vault/reason.rs`).
    pub fn reason(
        &self,
        question: &str,
        model: Option<&dyn Embedder>,
        opts: &ReasonOptions,
    ) -> Result<Reasoning> {
        self.vault.reason(&self.caller, question, model, opts)
    }
}

/// A note could not be opened for the caller: served as not found.
struct NotVisible(String);

impl From<NotVisible> for Error {
    fn from(n: NotVisible) -> Error {
        Error::NoteNotFound {
            path: n.0,
            suggestions: Vec::new(),
        }
    }
}

/// The least room a note gets in a `multi_get` answer before it is skipped instead.
const MULTI_GET_MIN_ROOM: usize = 1024;

/// The note as served: parsed from the text read, at most `page` bytes of the lines asked for
/// (whole lines; a single longer line is cut at a character boundary) with the line to continue
/// from, and the truncation line appended when the page reaches the end of a read cut at
/// [`MAX_READ_BYTES`].
fn agent_note(
    opened: &OpenedNote,
    from_line: Option<usize>,
    max_lines: Option<usize>,
    page: Option<usize>,
) -> AgentNote {
    let mut note =
        crate::vault::note_text(opened.rel.clone(), &opened.text, None, from_line, max_lines);
    let mut next_from_line = None;
    if let Some(page) = page
        && note.text.len() > page
    {
        let mut cut = page;
        while !note.text.is_char_boundary(cut) {
            cut -= 1;
        }
        match note.text[..cut].rfind('\n') {
            Some(nl) => {
                note.line_end = note.line_start + note.text[..nl].matches('\n').count();
                note.text.truncate(nl);
            }
            // One line longer than the page: its start is served, the page ends with it.
            None => {
                note.line_end = note.line_start;
                note.text.truncate(cut);
            }
        }
        next_from_line = (note.line_end < note.total_lines).then_some(note.line_end + 1);
    }
    if opened.truncated && next_from_line.is_none() {
        note.text.push_str(&format!(
            "\n\n{TRUNCATED_MARKER}: served the first {MAX_READ_BYTES} bytes (the 1 MiB read limit) of {}; the rest of this note is not served to agents]",
            opened.size
        ));
    }
    AgentNote {
        note,
        truncated: opened.truncated,
        bytes: opened.size,
        next_from_line,
    }
}

/// The link targets of a note that is not in the index: read only when within `max_bytes`
/// (never more than that, even if the file grew since the size check), the first
/// [`EXPAND_MAX_LINKS`] kept.
fn read_links(path: &Path, rel: &str, max_bytes: u64) -> Vec<String> {
    use std::io::Read as _;
    if fs::metadata(path).map_or(true, |m| m.len() > max_bytes) {
        return Vec::new();
    }
    let Ok(file) = fs::File::open(path) else {
        return Vec::new();
    };
    let mut text = String::new();
    if file.take(max_bytes).read_to_string(&mut text).is_err() {
        return Vec::new();
    }
    let mut links = crate::vault::link_targets(&crate::note::parse_note(rel, &text).note);
    links.truncate(EXPAND_MAX_LINKS);
    links
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NoProgress, VaultOptions, init::init_vault};

    fn vault() -> (tempfile::TempDir, Vault) {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        init_vault(&root, &crate::init::InitOptions::with_samples()).unwrap();
        fs::write(
            root.join("work/active/My Note.md"),
            "---\ndescription: the one to find\n---\n# My Note\n\nSee [[Patterns]].\n",
        )
        .unwrap();
        fs::write(
            root.join("brain/Patterns.md"),
            "# Patterns\n\n[[My Note]]\n",
        )
        .unwrap();
        fs::create_dir_all(root.join("drafts")).unwrap();
        fs::write(root.join("drafts/Hidden Note.md"), "# Hidden\n\nSECRET\n").unwrap();
        let v = Vault::open(&root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        (d, v)
    }

    #[test]
    fn get_expand_and_resources_resolve_a_name_alike() {
        let (_d, v) = vault();
        let view = v.scoped(&Caller::anonymous());
        for spec in [
            "My Note",
            "my-note",
            "active/My Note",
            "work/active/My Note.md",
            "vault://note/work/active/My-Note.md",
            "vault://note/work/active/My%20Note.md",
        ] {
            assert_eq!(
                view.get(spec, None, None).unwrap().note.path,
                "work/active/My Note.md",
                "get {spec}"
            );
            assert_eq!(
                view.expand(spec).unwrap().path,
                "work/active/My Note.md",
                "expand {spec}"
            );
            let m = view.multi_get(spec, None).unwrap();
            assert!(
                matches!(&m.items[..], [MultiGetItem::Ok(n)] if n.path == "work/active/My Note.md"),
                "multi_get {spec}: {m:?}"
            );
            if spec.starts_with(NOTE_URI_PREFIX) {
                assert_eq!(
                    view.read_uri(spec).unwrap().0,
                    note_uri("work/active/My Note.md")
                );
            }
        }
        let listed = view.resources();
        let r = listed
            .iter()
            .find(|r| r.uri == note_uri("work/active/My Note.md"))
            .unwrap();
        assert_eq!(r.description, "the one to find");
        assert_eq!(
            view.read_uri(&r.uri).unwrap().1.note.path,
            "work/active/My Note.md"
        );
    }

    #[test]
    fn a_hidden_note_is_missing_to_every_read_and_never_suggested() {
        let (_d, v) = vault();
        let view = v.scoped(&Caller::anonymous());
        for spec in [
            "Hidden Note",
            "hidden-note",
            "drafts/Hidden Note.md",
            "vault://note/drafts/Hidden%20Note.md",
        ] {
            assert!(
                matches!(view.get(spec, None, None), Err(Error::NoteNotFound { .. })),
                "{spec}"
            );
            match view.expand(spec) {
                Err(Error::NoteNotFound { suggestions, .. }) => {
                    assert!(suggestions.iter().all(|s| !s.contains("drafts")), "{spec}")
                }
                other => panic!("{spec}: {other:?}"),
            }
            assert!(view.read_uri(spec).is_err(), "{spec}");
            let m = view.multi_get(spec, None).unwrap();
            assert!(
                m.items.is_empty() && m.unmatched == [not_visible(spec)],
                "{spec}"
            );
        }
        assert!(!view.resources().iter().any(|r| r.uri.contains("drafts")));
        // A hidden note is never searched for an agent: no hit, no candidate; the owner's
        // audit log records that one was passed over.
        let hits = view.search(None, "SECRET", 5).unwrap();
        assert!(hits.hits.is_empty() && hits.total == 0 && hits.withheld > 0);
        let audit = fs::read_to_string(v.index_dir().join("audit.jsonl")).unwrap();
        assert!(
            audit.contains("\"resource_denied\"") && audit.contains("\"withheld\""),
            "{audit}"
        );
    }

    #[test]
    fn a_query_naming_fields_or_ranges_never_singles_out_a_hidden_note() {
        let (_d, v) = vault();
        let hidden = "drafts/Zq.md";
        fs::write(v.root().join(hidden), "# Zqx\n\nzqx plumage\n").unwrap();
        v.update(&NoProgress).unwrap();
        let view = v.scoped(&Caller::anonymous());
        // Under the owner's full syntax each query matches the hidden note: a field pins it, a
        // range, regex or prefix lists the index's terms. Read as words, each requires a word
        // the hidden note does not hold (the field's name), so nothing is counted.
        let attacks = [
            "+path:\"drafts/Zq.md\" +zqx",
            "+title:zqx +plumage",
            "+text:[pluma TO plumb} +zqx",
            "+text:/plum.*/ +zqx",
            "+text:\"plum\"* +zqx",
            "+path:>drafts +zqx",
            "+path:IN [\"drafts/Zq.md\"] +zqx",
        ];
        for q in attacks {
            let owner = v.search(q, &crate::SearchOptions::default()).unwrap();
            assert!(
                owner.iter().any(|h| h.path == hidden),
                "the owner's syntax finds it: {q}"
            );
            for r in [
                view.search(None, q, 5).unwrap(),
                view.query(None, &[SubQuery::lex(q)], 5).unwrap(),
            ] {
                assert_eq!((r.withheld, r.total), (0, 0), "{q}: {r:?}");
            }
        }
        // Plain words do not reach it either; only the owner's audit log counts it.
        let r = view.search(None, "zqx", 5).unwrap();
        assert_eq!((r.withheld, r.total), (1, 0), "{r:?}");
    }

    #[test]
    fn hidden_notes_take_no_part_in_an_agents_search() {
        let (_d, v) = vault();
        fs::write(
            v.root().join("drafts/Layoff Plan.md"),
            "# Layoff Plan\n\nThe password is hunter2; the quokka team is cut.\n",
        )
        .unwrap();
        fs::write(
            v.root().join("work/active/Roadmap.md"),
            "# Roadmap\n\nThe quokka team ships the ledger.\n",
        )
        .unwrap();
        v.update(&NoProgress).unwrap();
        let view = v.scoped(&Caller::anonymous());
        let answer = |q: &str| {
            let r = view.search(None, q, 5).unwrap();
            let hits: Vec<(String, u32)> = r
                .hits
                .iter()
                .map(|h| (h.hit.path.clone(), (h.hit.score * 1e4) as u32))
                .collect();
            (hits, r.total)
        };
        // A word only the hidden note holds answers exactly as a word no note holds: the
        // agent cannot test what the hidden note says.
        assert_eq!(
            answer("+\"layoff plan\" +hunter2"),
            answer("+\"layoff plan\" +hunter3")
        );
        assert_eq!(answer("hunter2"), (Vec::new(), 0));
        // A visible note ranks first, with the same relevance, whether or not the hidden note
        // also matches (it outranks the visible one in the owner's ranking).
        let owner = v
            .search("quokka hunter2", &crate::SearchOptions::default())
            .unwrap();
        assert_eq!(owner[0].path, "drafts/Layoff Plan.md");
        let (with_hidden, _) = answer("quokka hunter2");
        let (plain, _) = answer("quokka hunter3");
        assert_eq!(with_hidden[0].0, "work/active/Roadmap.md");
        assert_eq!(with_hidden[0], plain[0], "{with_hidden:?} {plain:?}");
        // Relevance is match strength: the note holds one of the two words.
        assert!(
            with_hidden[0].1 < answer("quokka").0[0].1,
            "{with_hidden:?}"
        );
    }

    #[test]
    fn a_note_indexed_while_private_is_no_candidate_until_indexed_again() {
        let (_d, v) = vault();
        let rel = "work/active/Turned.md";
        fs::write(
            v.root().join(rel),
            "---\nprivate: true\n---\n# Turned\n\nwombatword\n",
        )
        .unwrap();
        fs::write(
            v.root().join("work/active/Plain.md"),
            "# Plain\n\nwombatword too\n",
        )
        .unwrap();
        v.update(&NoProgress).unwrap();
        // Public on disk now, but its indexed text is the private one until the next update.
        fs::write(v.root().join(rel), "# Turned\n\nwombatword\n").unwrap();
        let view = v.scoped(&Caller::anonymous());
        let r = view.search(None, "wombatword", 5).unwrap();
        let paths: Vec<&str> = r.hits.iter().map(|h| h.hit.path.as_str()).collect();
        assert_eq!(paths, ["work/active/Plain.md"]);
        assert_eq!(r.total, 1, "{r:?}");
        v.update(&NoProgress).unwrap();
        let r = view.search(None, "wombatword", 5).unwrap();
        assert_eq!(r.total, 2, "{r:?}");
    }

    #[test]
    fn the_view_identifies_the_caller_so_no_surface_can_forget() {
        let (_d, v) = vault();
        fs::write(
            v.root().join("work/active/atlas.md"),
            "---\nplatforms: [ios, web]\n---\n# Atlas\n",
        )
        .unwrap();
        // The project note is looked up in the index (a term lookup, not a walk of the vault).
        v.update(&crate::NoProgress).unwrap();
        let named = Caller::named("atlas").unwrap();
        assert!(named.platforms.is_empty());
        let view = v.scoped(&named);
        assert_eq!(view.caller().platforms, ["ios", "web"]);
        // An identified caller is taken as it is (a server identifies once per session).
        let again = v.scoped(view.caller());
        assert_eq!(again.caller(), view.caller());
        assert_eq!(v.health(&named).unwrap().caller.platforms, ["ios", "web"]);
    }
}
