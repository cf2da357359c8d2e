//! `remember`: the memory-writing pipeline, step by step (vault-itself refusal, markup guard,
//! wikilink neutralising, validation, duplicate scan, supersession targets, the write, back-links,
//! indexing, audit), and its outcome.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Serialize;
use serde_json::json;

use super::{Refusal, Vault};
use crate::error::Result;
use crate::identity::Caller;
use crate::memory::store::SupersedeMark;
use crate::memory::text::{self, Digest, FieldValue};
use crate::memory::{
    Memory, MemoryInput, Now, Scope, find_duplicates, recall_from, render, resolve_supersedes,
    validate,
};

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

impl Vault {
    /// Records a memory for `caller`, or says why not (see [`Refusal`]). Refusals are `Ok`;
    /// `Err` means the write itself failed (and nothing was left half-written).
    pub fn remember(&self, caller: &Caller, input: &MemoryInput) -> Result<Remembered> {
        let ctx = self.agent();
        let log = self.audit_log();
        let who = caller.project.as_deref();
        if caller.is_vault {
            log.append(
                crate::audit::AuditAction::Refused,
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
                crate::audit::AuditAction::Refused,
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
                crate::audit::AuditAction::Refused,
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
                    crate::audit::AuditAction::Refused,
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
                SupersedeMark::Marked => {
                    touched.push(t.path.clone());
                    out.superseded.push(title);
                }
                SupersedeMark::AlreadyPresent => out.superseded.push(title),
                SupersedeMark::Refused(why) => out.supersede_failures.push(why),
            }
        }
        let not_indexed = self.index_written(&touched, &rel).err();
        out.indexed = not_indexed.is_none();
        out.recorded = true;
        out.path = Some(rel.clone());
        log.append(
            crate::audit::AuditAction::Remember,
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
