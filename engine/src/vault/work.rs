//! `record_work`: filing a note (or decision record) about work a session did, inside the
//! vault's exposed roots, the caller's project folder, or the inbox.

use std::fs;
use std::path::Path;

use serde_json::json;

use super::{Refusal, Vault};
use serde::Serialize;

use super::agent::AgentContext;
use crate::error::Result;
use crate::identity::Caller;
use crate::memory::store::claim_file;
use crate::memory::text::{self, FieldValue};

/// Names tried for one work note (`stem.md`, `stem-2.md` …).
const WORK_CLAIM_ATTEMPTS: usize = 500;
/// The largest note `record_work` writes, in UTF-8 bytes (256 KiB), counted over all input
/// fields and again over the rendered note: a work log of a long session is a few KiB, so this
/// is far above any real one, yet a pasted build log or file dump is refused (naming the largest
/// field, the size and this limit) instead of filling the vault and every search.
pub const MAX_WORK_NOTE_BYTES: usize = 256 * 1024;

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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
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
    pub refusal: Option<Refusal>,
    /// The outcome as text.
    pub message: String,
}

impl Vault {
    /// Files a record of work done (a note or a decision) inside the vault: in `folder` when it
    /// lies inside an exposed root, else the caller's `projects/<name>/` folder, else the inbox.
    /// Refusals write nothing; an existing file is never modified.
    pub fn record_work(&self, caller: &Caller, input: &WorkInput) -> Result<WorkRecord> {
        record_work(self, &self.agent(), caller, input)
    }
}

fn refusal(refusal: Refusal, message: String) -> WorkRecord {
    WorkRecord {
        message,
        refusal: Some(refusal),
        ..WorkRecord::default()
    }
}

/// A refusal of the input itself (one problem).
fn invalid(message: &str) -> WorkRecord {
    let errors = vec![message.trim_start_matches("Not recorded: ").to_string()];
    refusal(Refusal::Validation { errors }, message.to_string())
}

/// A refusal of the destination folder.
fn misplaced(folder: &str, message: String) -> WorkRecord {
    let folder = folder.to_string();
    refusal(Refusal::Placement { folder }, message)
}

fn flatten(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The caller's folder under `projects/`: exact name, then case-insensitive, then a prefix
/// match either way; the real folder casing is kept.
fn project_dir_for(vault: &Path, project: Option<&str>) -> Option<String> {
    let p = project?.to_lowercase();
    let mut dirs: Vec<String> = fs::read_dir(vault.join("projects"))
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    dirs.sort();
    if let Some(d) = dirs.iter().find(|d| **d == p) {
        return Some(d.clone());
    }
    if let Some(d) = dirs.iter().find(|d| d.to_lowercase() == p) {
        return Some(d.clone());
    }
    dirs.into_iter().find(|d| {
        let l = d.to_lowercase();
        l.starts_with(&p) || p.starts_with(&l)
    })
}

pub(super) fn record_work(
    vault: &Vault,
    ctx: &AgentContext,
    caller: &Caller,
    input: &WorkInput,
) -> Result<WorkRecord> {
    let log = vault.audit_log();
    let who = caller.project.as_deref();
    let opt = |o: &Option<String>| o.clone().unwrap_or_default();
    let (verification, folder) = (opt(&input.verification), opt(&input.folder));
    let sizes = [
        ("title", input.title.len()),
        ("summary", input.summary.len()),
        ("changes", input.changes.iter().map(String::len).sum()),
        ("decisions", input.decisions.iter().map(String::len).sum()),
        ("learned", input.learned.iter().map(String::len).sum()),
        ("open", input.open.iter().map(String::len).sum()),
        (
            "informed_by",
            input.informed_by.iter().map(String::len).sum(),
        ),
        ("verification", verification.len()),
        ("folder", folder.len()),
    ];
    let total: usize = sizes.iter().map(|(_, n)| n).sum();
    if total > MAX_WORK_NOTE_BYTES {
        let (field, largest) = sizes
            .iter()
            .max_by_key(|(_, n)| *n)
            .copied()
            .unwrap_or(("", 0));
        log.append(
            crate::audit::AuditAction::Refused,
            who,
            json!({"tool": "record_work", "reason": "size", "bytes": total, "field": field}),
        );
        return Ok(invalid(&format!(
            "Not recorded: the input is {total} bytes (largest field: {field}, {largest} bytes); the limit for one note is {MAX_WORK_NOTE_BYTES} bytes ({} KiB). Summarise, and link to long material instead of pasting it.",
            MAX_WORK_NOTE_BYTES / 1024
        )));
    }
    let fields: Vec<(&str, FieldValue<'_>)> = vec![
        ("title", FieldValue::Text(&input.title)),
        ("summary", FieldValue::Text(&input.summary)),
        ("changes", FieldValue::List(&input.changes)),
        ("decisions", FieldValue::List(&input.decisions)),
        ("learned", FieldValue::List(&input.learned)),
        ("open", FieldValue::List(&input.open)),
        ("informed_by", FieldValue::List(&input.informed_by)),
        ("verification", FieldValue::Text(&verification)),
        ("folder", FieldValue::Text(&folder)),
    ];
    if let Some(hit) = text::find_markup(&fields) {
        let keys: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
        log.append(
            crate::audit::AuditAction::Refused,
            who,
            json!({"tool": "record_work", "reason": "tool-call markup", "field": hit.field,
                   "offset": hit.offset, "trailing": hit.trailing}),
        );
        let message = text::markup_refusal(&hit, &keys);
        let refused = Refusal::Markup {
            field: hit.field,
            offset: hit.offset,
            item: hit.item,
            trailing: hit.trailing,
        };
        return Ok(refusal(refused, message));
    }
    let title = flatten(&input.title);
    let summary = input.summary.trim();
    if title.is_empty() || summary.is_empty() {
        return Ok(invalid("Not recorded: title and summary are both required"));
    }
    // Named as AGENTS.md names notes: the title as written (filesystem-safe, as memories are).
    let slug = text::slugify(&title);
    if slug.is_empty() {
        return Ok(invalid("Not recorded: title produces an empty filename"));
    }
    // Where the note goes.
    let ex = &ctx.exposure;
    let (dest_rel, route, project) = if !folder.trim().is_empty() {
        let f = folder.trim().replace('\\', "/");
        let f = f.trim_matches('/').to_string();
        if f.split('/').any(|s| s == ".." || s == ".") {
            return Ok(misplaced(
                &folder,
                format!("refused: \"{folder}\" contains a traversal segment"),
            ));
        }
        // A folder lies inside a root, or is the folder of a shallow root (`brain/*.md`) whose
        // pattern admits the note.
        let Some(root) = ex
            .matched_root(&f)
            .or_else(|| ex.matched_root(&format!("{f}/{slug}.md")))
            .map(str::to_string)
        else {
            return Ok(misplaced(
                &folder,
                format!(
                    "refused: \"{f}\" is not inside an exposed root (allowed: {})",
                    ex.roots().join(", ")
                ),
            ));
        };
        // The folder, resolved as far as it exists, must stay inside the matched root.
        let root_real = fs::canonicalize(vault.root.join(crate::exposure::root_folder(&root))).ok();
        let mut probe = vault.root.join(&f);
        let mut rest = Vec::new();
        let real = loop {
            match fs::canonicalize(&probe) {
                Ok(r) => break Some(r),
                Err(_) => match (probe.parent(), probe.file_name()) {
                    (Some(p), Some(n)) if p.starts_with(&vault.root) => {
                        rest.push(n.to_os_string());
                        probe = p.to_path_buf();
                    }
                    _ => break None,
                },
            }
        };
        let inside = match (real, root_real) {
            (Some(r), Some(root_r)) => r.starts_with(&root_r),
            // The root does not exist yet: the folder is created under it.
            (Some(r), None) => r.starts_with(&vault.root),
            _ => false,
        };
        if !inside {
            return Ok(misplaced(
                &folder,
                format!("refused: \"{f}\" escapes the \"{root}\" root"),
            ));
        }
        (f, "caller", None)
    } else if let Some(dir) = project_dir_for(&vault.root, who) {
        let sub = match input.kind {
            WorkKind::Decision => "decisions",
            WorkKind::Note => "notes",
        };
        (
            format!("projects/{dir}/{sub}"),
            "caller-identity",
            Some(dir),
        )
    } else {
        (ctx.manifest.inbox(), "fallback", None)
    };
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let iso = crate::time::iso_utc(now_ms);
    let date = &iso[..10];
    let stem = match input.kind {
        WorkKind::Decision => {
            let bare = slug
                .strip_prefix("Decision")
                .or_else(|| slug.strip_prefix("decision"))
                .map(|r| r.trim_start_matches([' ', '-', '_']))
                .filter(|r| !r.is_empty())
                .unwrap_or(&slug);
            format!("Decision - {bare}")
        }
        WorkKind::Note => format!("{date} {slug}"),
    };
    let names = ex.resolvable_names(&ex.visible_files());
    let rendered = render(
        &title,
        summary,
        input,
        date,
        &iso,
        caller.label(),
        route,
        project.as_deref(),
        &names,
    );
    if rendered.len() > MAX_WORK_NOTE_BYTES {
        return Ok(invalid(&format!(
            "Not recorded: the rendered note is {} bytes; the limit for one note is {MAX_WORK_NOTE_BYTES} bytes ({} KiB). Summarise, and link to long material instead of pasting it.",
            rendered.len(),
            MAX_WORK_NOTE_BYTES / 1024
        )));
    }
    if input.dry_run {
        let preview: String = rendered.chars().take(600).collect();
        return Ok(WorkRecord {
            path: Some(format!("{dest_rel}/{stem}.md")),
            route: Some(route.to_string()),
            message: format!(
                "Preview (nothing written) → {dest_rel}/{stem}.md\nRouting: {route}\n\n{preview}"
            ),
            preview: Some(preview),
            ..WorkRecord::default()
        });
    }
    let dest = vault.root.join(&dest_rel);
    fs::create_dir_all(&dest).map_err(|e| crate::Error::io(&dest, e))?;
    let name = claim_file(
        &dest,
        rendered.as_bytes(),
        |n| {
            if n == 1 {
                format!("{stem}.md")
            } else {
                format!("{stem}-{n}.md")
            }
        },
        WORK_CLAIM_ATTEMPTS,
        "too many work notes with this title",
    )?;
    let rel = format!("{dest_rel}/{name}");
    let not_indexed = vault.index_written(std::slice::from_ref(&rel), &rel).err();
    let indexed = not_indexed.is_none();
    log.append(
        crate::audit::AuditAction::RecordWork,
        who,
        json!({"path": rel, "routed": route, "indexed": indexed}),
    );
    let mut message = format!("Recorded: {rel}\nRouting: {route}");
    if let Some(why) = &not_indexed {
        message.push_str(&format!(
            "\n\nNOTE: not indexed: {why}. This note may not be findable by query yet."
        ));
    }
    Ok(WorkRecord {
        recorded: true,
        path: Some(rel),
        route: Some(route.to_string()),
        indexed,
        message,
        ..WorkRecord::default()
    })
}

#[expect(
    clippy::too_many_arguments,
    reason = "one call site; the parts of one note"
)]
fn render(
    title: &str,
    summary: &str,
    input: &WorkInput,
    date: &str,
    iso: &str,
    caller: &str,
    route: &str,
    project: Option<&str>,
    names: &std::collections::HashSet<String>,
) -> String {
    let mut s = String::from("---\n");
    s.push_str(&format!("date: {date}\n"));
    s.push_str(&format!(
        "description: {}\n",
        text::yaml_single_quoted(&text::clamp_description(&flatten(summary), 150))
    ));
    s.push_str(&format!(
        "aliases:\n  - {}\n",
        text::yaml_single_quoted(title)
    ));
    let tag = match input.kind {
        WorkKind::Decision => "decision",
        WorkKind::Note => "project-note",
    };
    s.push_str(&format!("tags:\n  - {tag}\n"));
    if let Some(p) = project {
        s.push_str(&format!("project: {}\n", text::yaml_single_quoted(p)));
    }
    s.push_str(&format!(
        "source_repo: {}\n",
        text::yaml_single_quoted(caller)
    ));
    s.push_str("---\n\n");
    s.push_str(&format!("# {title}\n\n{summary}\n"));
    let list = |s: &mut String, head: &str, items: &[String]| {
        let items: Vec<&str> = items
            .iter()
            .map(|i| i.trim())
            .filter(|i| !i.is_empty())
            .collect();
        if !items.is_empty() {
            s.push_str(&format!("\n## {head}\n\n"));
            for i in items {
                s.push_str(&format!("- {i}\n"));
            }
        }
    };
    list(&mut s, "What changed", &input.changes);
    list(&mut s, "Decisions", &input.decisions);
    list(&mut s, "Learned", &input.learned);
    if let Some(v) = input.verification.as_deref().map(str::trim)
        && !v.is_empty()
    {
        s.push_str(&format!("\n## Verification\n\n{v}\n"));
    }
    list(&mut s, "Open", &input.open);
    let mut related = Vec::new();
    if let Some(p) = project
        && names.contains(&p.to_lowercase())
    {
        related.push(format!("- [[{p}]]"));
    }
    for i in input
        .informed_by
        .iter()
        .map(|i| i.trim())
        .filter(|i| !i.is_empty())
    {
        if names.contains(&i.to_lowercase()) {
            related.push(format!("- [[{i}]]"));
        } else {
            related.push(format!("- {i} _(no note yet)_"));
        }
    }
    if !related.is_empty() {
        s.push_str("\n## Related\n\n");
        s.push_str(&related.join("\n"));
        s.push('\n');
    }
    s.push_str(&format!(
        "\n_Recorded {iso} from `{caller}` via mindex (routing: {route})._\n"
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_folders_match_exactly_then_loosely() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(
            project_dir_for(d.path(), Some("atlas")),
            None,
            "no projects/ folder"
        );
        for p in ["Pocket", "atlas", "Atlas-Web"] {
            fs::create_dir_all(d.path().join("projects").join(p)).unwrap();
        }
        assert_eq!(
            project_dir_for(d.path(), Some("atlas")).as_deref(),
            Some("atlas")
        );
        assert_eq!(
            project_dir_for(d.path(), Some("pocket")).as_deref(),
            Some("Pocket")
        );
        assert_eq!(
            project_dir_for(d.path(), Some("poc")).as_deref(),
            Some("Pocket")
        );
        assert_eq!(
            project_dir_for(d.path(), Some("pocket-ios")).as_deref(),
            Some("Pocket")
        );
        assert_eq!(project_dir_for(d.path(), None), None, "anonymous");
        assert_eq!(project_dir_for(d.path(), Some("zzz")), None);
    }
}
