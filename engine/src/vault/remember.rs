//! `remember`: the memory-writing pipeline, step by step (vault-itself refusal, markup guard,
//! wikilink neutralising, validation, duplicate scan, supersession targets, the write, back-links,
//! indexing, audit), and its outcome.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use super::agent::AgentContext;
use super::{Refusal, Surface, Vault};
use crate::audit::AuditAction;
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::identity::Caller;
use crate::lexical::SearchOptions;
use crate::memory::store::SupersedeMark;
use crate::memory::text::{self, Digest, FieldValue};
use crate::memory::{
    Memory, MemoryInput, Now, Scope, Validated, find_duplicates, may_duplicate, recall_from,
    render, resolve_supersedes, validate,
};

/// The outcome of [`Scoped::remember`](crate::Scoped::remember).
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

impl Vault {
    /// Records a memory for `caller`, or says why not (see [`Refusal`]). Refusals are `Ok`;
    /// `Err` means the write itself failed (and nothing was left half-written).
    ///
    /// The pipeline, one named step each: [`refuse_vault_itself`] → [`refuse_oversized`] →
    /// [`refuse_markup`] → [`neutralise_wikilinks`] → [`validated`] → [`visible_memories`] →
    /// [`refuse_duplicate`] → plan (links, supersession targets, rendering) → dry run or
    /// [`Vault::write_memory`] (write, back-links, index, audit) → the message.
    ///
    /// With `model` (when the vault has vectors for it) a memory that says what a visible one
    /// already says, in other words, is refused too, naming it: its text's cosine to that
    /// memory is at least [`MEANING_DUPLICATE_THRESHOLD`].
    pub(crate) fn remember_with(
        &self,
        caller: &Caller,
        input: &MemoryInput,
        model: Option<&dyn Embedder>,
    ) -> Result<Remembered> {
        let ctx = self.agent();
        let log = self.audit_log();
        let refuse = |reason: Value, refusal: Refusal, message: String| {
            let mut detail = json!({"tool": "remember"});
            if let (Some(d), Value::Object(r)) = (detail.as_object_mut(), reason) {
                d.extend(r);
            }
            log.append(AuditAction::Refused, caller.project.as_deref(), detail);
            refused(refusal, message)
        };
        if let Some(r) = refuse_vault_itself(caller, &refuse) {
            return Ok(r);
        }
        if let Some(r) = refuse_oversized(input, &refuse) {
            return Ok(r);
        }
        if let Some(r) = refuse_markup(input, &refuse) {
            return Ok(r);
        }
        let (inp, names, unlinked) = neutralise_wikilinks(&ctx, input);
        let v = match validated(&inp, caller, &refuse) {
            Ok(v) => v,
            Err(r) => return Ok(*r),
        };
        let existing = visible_memories(&ctx, caller);
        if !input.force
            && let Some(r) = refuse_duplicate(&v, &existing)
        {
            return Ok(r);
        }
        if !input.force
            && let Some(model) = model
            && let Some(r) = self.refuse_paraphrase(&v, &existing, model)?
        {
            return Ok(r);
        }
        // Plan: related notes, supersession targets, the file's text.
        let now = Now::current();
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
        let not_indexed =
            self.write_memory(&ctx, caller, &v, &now, &rendered, &targets, &mut out)?;
        out.message = recorded_message(&out, &v, not_indexed.as_deref());
        Ok(out)
    }

    /// Writes the memory, back-links the memories it supersedes, indexes what it touched and
    /// audits the write; fills `out` with what happened and returns why the index does not hold
    /// the memory yet, when it does not.
    #[expect(
        clippy::too_many_arguments,
        reason = "the pipeline's state at its write step"
    )]
    fn write_memory(
        &self,
        ctx: &AgentContext,
        caller: &Caller,
        v: &Validated,
        now: &Now,
        rendered: &str,
        targets: &[Arc<Memory>],
        out: &mut Remembered,
    ) -> Result<Option<String>> {
        let rel = ctx
            .store
            .write(now.local, &text::slugify(&v.title), rendered)?;
        let mut touched = vec![rel.clone()];
        for t in targets {
            let title = t.title.clone().unwrap_or_default();
            match ctx.store.mark_superseded(&t.path, &v.title) {
                SupersedeMark::Marked => {
                    touched.push(t.path.clone());
                    out.superseded.push(title);
                }
                SupersedeMark::AlreadyPresent => out.superseded.push(title),
                SupersedeMark::Refused(why) => out.supersede_failures.push(why),
            }
        }
        let not_indexed = self
            .index_written(&touched, &rel)
            .err()
            .map(|e| e.to_string());
        out.indexed = not_indexed.is_none();
        out.recorded = true;
        out.path = Some(rel.clone());
        self.audit_log().append(
            AuditAction::Remember,
            caller.project.as_deref(),
            json!({"rel": rel, "scope": v.scope.as_str(), "projects": v.projects, "indexed": out.indexed}),
        );
        Ok(not_indexed)
    }
}

/// Step 1: a session running inside the vault itself writes no memories.
fn refuse_vault_itself(
    caller: &Caller,
    refuse: &impl Fn(Value, Refusal, String) -> Remembered,
) -> Option<Remembered> {
    caller.is_vault.then(|| {
        refuse(
            json!({"reason": "session is the vault itself"}),
            Refusal::VaultItself,
            "Refused: this session is running inside the vault itself.\nMemories are written from the repository they were learned in, so their reach names that project. Run this from that repository (or pass --caller NAME), or edit the vault's notes directly.".to_string(),
        )
    })
}

/// Step 2: sizes first, so nothing reads an oversized input further.
fn refuse_oversized(
    input: &MemoryInput,
    refuse: &impl Fn(Value, Refusal, String) -> Remembered,
) -> Option<Remembered> {
    let too_big = crate::memory::size_errors(input);
    (!too_big.is_empty()).then(|| {
        let message = format!("Refused:\n- {}", too_big.join("\n- "));
        refuse(
            json!({"reason": "size", "errors": too_big.len()}),
            Refusal::Validation { errors: too_big },
            message,
        )
    })
}

/// Step 3: tool-call markup in any argument (a sign the caller's arguments were mangled).
fn refuse_markup(
    input: &MemoryInput,
    refuse: &impl Fn(Value, Refusal, String) -> Remembered,
) -> Option<Remembered> {
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
    let hit = text::find_markup(&fields)?;
    let keys: Vec<&str> = fields
        .iter()
        .filter(|(_, v)| match v {
            FieldValue::Text(t) => !t.is_empty(),
            FieldValue::List(l) => !l.is_empty(),
        })
        .map(|(k, _)| *k)
        .collect();
    let message = text::markup_refusal(&hit, &keys);
    Some(refuse(
        json!({"reason": "tool-call markup", "field": hit.field, "offset": hit.offset,
               "trailing": hit.trailing}),
        Refusal::Markup {
            field: hit.field,
            offset: hit.offset,
            item: hit.item,
            trailing: hit.trailing,
        },
        message,
    ))
}

/// Step 4: wikilinks to notes the caller cannot see become plain text. Returns the input with
/// its title and body rewritten, the visible notes' names (for `links`), and what was unlinked.
/// The names need an enumeration of the vault, paid only when there is a link to resolve.
fn neutralise_wikilinks(
    ctx: &AgentContext,
    input: &MemoryInput,
) -> (MemoryInput, HashSet<String>, Vec<String>) {
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
    (inp, names, unlinked)
}

/// Step 5: the memory contract (every input error in one pass).
fn validated(
    input: &MemoryInput,
    caller: &Caller,
    refuse: &impl Fn(Value, Refusal, String) -> Remembered,
) -> std::result::Result<Validated, Box<Remembered>> {
    validate(input, caller.project.as_deref()).map_err(|errors| {
        let message = format!("Refused:\n- {}", errors.join("\n- "));
        Box::new(refuse(
            json!({"reason": "validation", "errors": errors.len()}),
            Refusal::Validation { errors },
            message,
        ))
    })
}

/// Step 6: the memories this caller can see, with their similarity digests. Only these may be
/// matched, named or superseded: a memory hidden from the caller is neither a duplicate it is
/// told about nor a target it may mark.
fn visible_memories(ctx: &AgentContext, caller: &Caller) -> Vec<(Arc<Memory>, Arc<Digest>)> {
    let (existing, _) = ctx.store.all_with_digests();
    let entries: Vec<Arc<Memory>> = existing.iter().map(|(m, _)| m.clone()).collect();
    let seen: HashSet<String> = recall_from(&entries, caller, false)
        .visible
        .into_iter()
        .map(|(m, _)| m.path.clone())
        .collect();
    existing
        .into_iter()
        .filter(|(m, _)| seen.contains(&m.path))
        .collect()
}

/// Step 7: a near-identical visible memory refuses the write (unless `force`).
fn refuse_duplicate(v: &Validated, existing: &[(Arc<Memory>, Arc<Digest>)]) -> Option<Remembered> {
    let candidate = candidate_of(v);
    let digest = Digest::new(&v.title, &v.body);
    let &(i, score) = find_duplicates(&candidate, &digest, existing).first()?;
    Some(duplicate_of(&existing[i].0, score, false))
}

/// The refusal of a memory that duplicates `m` (`score`: the words' similarity, or with
/// `by_meaning` the cosine), naming it.
fn duplicate_of(m: &Memory, score: f64, by_meaning: bool) -> Remembered {
    let title = m.title.clone().unwrap_or_default();
    let refusal = Refusal::Duplicate {
        score,
        title: title.clone(),
        path: m.path.clone(),
        by_meaning,
    };
    let how = if by_meaning {
        format!(
            "a memory that says the same already exists (meaning {}% alike)",
            (score * 100.0).round()
        )
    } else {
        format!(
            "a near-identical memory already exists ({}% similar)",
            (score * 100.0).round()
        )
    };
    let message = format!(
        "Not recorded: {how}.\n  {title}\n  {}\n{}",
        m.path,
        refusal.advice(Surface::Mcp).unwrap_or_default()
    );
    refused(refusal, message)
}

/// Cosine (all-MiniLM-L6-v2) between a new memory's text and a visible memory at or above which
/// the new one is refused as saying the same thing. Measured: paraphrases of one lesson score
/// 0.75–0.95 against it, different lessons on the same subject 0.34–0.52 (benches/README.md).
pub const MEANING_DUPLICATE_THRESHOLD: f32 = 0.70;

impl Vault {
    /// Step 7b: with vectors, a visible memory whose meaning is the new one's refuses the write
    /// (unless `force`). The candidates are the memories step 7 compares (agent memories sharing
    /// a reach with the new one, visible to the caller); the new text is embedded once and
    /// compared with the nearest chunks of the vault. No vectors, no index: no check (the
    /// words' check has run).
    fn refuse_paraphrase(
        &self,
        v: &Validated,
        existing: &[(Arc<Memory>, Arc<Digest>)],
        model: &dyn Embedder,
    ) -> Result<Option<Remembered>> {
        let candidate = candidate_of(v);
        let peers: Vec<&Memory> = existing
            .iter()
            .map(|(m, _)| m.as_ref())
            .filter(|m| may_duplicate(&candidate, m))
            .collect();
        if peers.is_empty() {
            return Ok(None);
        }
        let store = match self.vector_store(model) {
            Ok(s) => s,
            Err(Error::VectorsMissing { .. } | Error::IndexMissing { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let text = format!("{}\n\n{}", v.title, v.body);
        let opts = SearchOptions {
            limit: 200,
            all_chunks: false,
        };
        let hits = match self.vector_hits(model, &store, &text, &opts) {
            Ok(h) => h,
            Err(Error::IndexMissing { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some((m, cosine)) = hits.iter().find_map(|h| {
            let m = peers.iter().find(|m| m.path == h.path)?;
            (h.score >= MEANING_DUPLICATE_THRESHOLD).then_some((*m, h.score))
        }) else {
            return Ok(None);
        };
        Ok(Some(duplicate_of(m, f64::from(cosine), true)))
    }
}

/// The new memory as the duplicate checks see it: its reach, nothing else.
fn candidate_of(v: &Validated) -> Memory {
    Memory {
        scope: v.scope.as_str().to_string(),
        projects: v.projects.clone(),
        platforms: v.platforms.clone(),
        source: Some(crate::memory::MEMORY_SOURCE.to_string()),
        ..Memory::parse("", "")
    }
}

/// The last step: what was recorded, as text.
fn recorded_message(out: &Remembered, v: &Validated, not_indexed: Option<&str>) -> String {
    let rel = out.path.as_deref().unwrap_or_default();
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
    if let Some(why) = not_indexed {
        msg.push_str(&format!("\n\nNOTE: not indexed: {why}. This memory may not be findable by query yet (the next `mindex update` retries)."));
    }
    msg
}

impl Remembered {
    pub(super) fn append_details(&self, msg: &mut String) {
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

pub(super) fn refused(refusal: Refusal, message: String) -> Remembered {
    Remembered {
        refusal: Some(refusal),
        message,
        ..Remembered::default()
    }
}
