//! `record_work`: filing a note (or decision record) about work a session did, inside the
//! vault's exposed roots, the caller's project folder (`projects/<caller>/`, else the folder of
//! the project's own note, found by its name or its `project:` frontmatter), or the inbox.

use std::fs;
use std::path::Path;

use serde_json::json;

use super::{Refusal, Vault};
use serde::Serialize;

use super::agent::AgentContext;
use crate::error::Result;
use crate::exposure::{Exposure, VisibleFile};
use crate::identity::{Caller, project_dir_for};
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

/// What [`Scoped::record_work`](crate::Scoped::record_work) files.
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
    /// A folder inside an exposed root (else the caller's project folder, else the folder of
    /// the project's note, else the inbox).
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

/// The outcome of [`Scoped::record_work`](crate::Scoped::record_work).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct WorkRecord {
    /// Whether a file was written.
    pub recorded: bool,
    /// Vault-relative path (planned, for a dry run).
    pub path: Option<String>,
    /// `caller` (the given folder), `caller-identity` (the caller's project folder, or the
    /// folder of its project note) or `fallback` (the inbox).
    pub route: Option<String>,
    /// Whether the index already holds the note.
    pub indexed: bool,
    /// For a dry run: the start of the rendered note.
    pub preview: Option<String>,
    /// Why nothing was written.
    pub refusal: Option<Refusal>,
    /// A note of the same title (the same file name) the destination already held: the note
    /// was written beside it under the next free name (`<stem>-2.md` …), as the record_work
    /// contract has it, and the message says so (for a dry run: would be).
    pub existing: Option<String>,
    /// The outcome as text.
    pub message: String,
}

impl Vault {
    /// Files a record of work done (a note or a decision) inside the vault: in `folder` when it
    /// lies inside an exposed root; else the caller's `projects/<name>/` folder (`notes/` or
    /// `decisions/`); else, for a caller other than the vault itself, beside the project's own
    /// note: a note agents may read named `<name>.md`, or whose frontmatter `project:` (or
    /// `projects:`) names the caller, person-written, `status: active` first (its folder held
    /// to the rules a named `folder` is: inside an exposed root, no `..`, no symlink escape);
    /// else the inbox. Refusals write nothing; an existing file is never modified: the same
    /// title twice files the second note as `<stem>-2.md` (the contract's claim order), and the
    /// answer names the note that was there ([`WorkRecord::existing`]).
    pub(crate) fn record_work(&self, caller: &Caller, input: &WorkInput) -> Result<WorkRecord> {
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

/// A destination folder checked as a folder the caller names is: no `.` or `..` segment;
/// inside an exposed root (or the folder of a shallow root, `brain/*.md`, whose pattern admits
/// the note); and, resolved through symlinks as far as it exists, inside that root's real
/// folder. The folder with `/` separators and no outer slashes, or the refusal.
fn checked_folder(
    vault: &Vault,
    ex: &Exposure,
    folder: &str,
    slug: &str,
) -> std::result::Result<String, Box<WorkRecord>> {
    let f = folder.trim().replace('\\', "/");
    let f = f.trim_matches('/').to_string();
    if f.split('/').any(|s| s == ".." || s == ".") {
        return Err(Box::new(misplaced(
            folder,
            format!("refused: \"{folder}\" contains a traversal segment"),
        )));
    }
    let Some(root) = ex
        .matched_root(&f)
        .or_else(|| ex.matched_root(&format!("{f}/{slug}.md")))
        .map(str::to_string)
    else {
        return Err(Box::new(misplaced(
            folder,
            format!(
                "refused: \"{f}\" is not inside an exposed root (allowed: {})",
                ex.roots().join(", ")
            ),
        )));
    };
    // The folder, resolved as far as it exists, must stay inside the matched root.
    let root_real = fs::canonicalize(vault.root.join(crate::exposure::root_folder(&root))).ok();
    let mut probe = vault.root.join(&f);
    let real = loop {
        match fs::canonicalize(&probe) {
            Ok(r) => break Some(r),
            Err(_) => match probe.parent() {
                Some(p) if p.starts_with(&vault.root) => probe = p.to_path_buf(),
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
        return Err(Box::new(misplaced(
            folder,
            format!("refused: \"{f}\" escapes the \"{root}\" root"),
        )));
    }
    Ok(f)
}

/// The caller's project note, where `record_work` files when the vault has no
/// `projects/<caller>/` folder: among the notes agents may read (`visible`: inside an exposed
/// root, not private, not a never-exposed name, outside the memory store), a note named
/// `<project>.md`, else one whose frontmatter `project` (or `projects`) names the project
/// ([`Caller::owns_note`]); a note with `status: active` before others, then path order. A
/// note an agent wrote (`source_repo` from `record_work`, `source` from memories) is passed
/// over, so no agent write decides where a project's notes go. None for an anonymous caller
/// or the vault itself.
fn project_note<'v>(
    vault_root: &Path,
    visible: &'v [VisibleFile],
    caller: &Caller,
) -> Option<&'v VisibleFile> {
    use rayon::prelude::*;
    let project = caller.project.as_deref().filter(|_| !caller.is_vault)?;
    visible
        .par_iter()
        .filter_map(|f| {
            let map = crate::exposure::head_frontmatter(&vault_root.join(&f.rel))
                .ok()?
                .unwrap_or_default();
            let get = |k: &str| crate::markdown::frontmatter::get_ci(&map, k);
            if get("source_repo").is_some() || get("source").is_some() {
                return None;
            }
            let named = f.label.eq_ignore_ascii_case(project);
            if !named && !caller.owns_note(&map) {
                return None;
            }
            let active = get("status")
                .and_then(|v| v.as_str())
                .is_some_and(|s| s.trim().eq_ignore_ascii_case("active"));
            Some(((!named, !active, f.rel.as_str()), f))
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, f)| f)
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
    // The notes agents may read: walked once, and only when a destination was found.
    let walked = std::cell::OnceCell::new();
    let visible = || walked.get_or_init(|| ex.visible_files());
    // The project's note the destination was taken from, when it was.
    let mut beside: Option<&VisibleFile> = None;
    let (dest_rel, route, project) = if !folder.trim().is_empty() {
        match checked_folder(vault, ex, &folder, &slug) {
            Ok(f) => (f, "caller", None),
            Err(refused) => return Ok(*refused),
        }
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
    } else if let Some((note, dir)) = project_note(&vault.root, visible(), caller)
        .and_then(|n| Some((n, n.rel.rsplit_once('/')?.0)))
        .and_then(|(n, dir)| Some((n, checked_folder(vault, ex, dir, &slug).ok()?)))
    {
        // No `projects/<caller>/`: next to the project's own note, under the same rules as a
        // folder the caller names.
        beside = Some(note);
        (dir, "caller-identity", who.map(str::to_string))
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
    let names = ex.resolvable_names(visible());
    // Related links the project: its folder's name, or the note the destination came from.
    let link = beside.map_or(project.as_deref(), |n| Some(n.label.as_str()));
    let rendered = render(
        &title,
        summary,
        input,
        date,
        &iso,
        caller.label(),
        route,
        (project.as_deref(), link),
        &names,
    );
    if rendered.len() > MAX_WORK_NOTE_BYTES {
        return Ok(invalid(&format!(
            "Not recorded: the rendered note is {} bytes; the limit for one note is {MAX_WORK_NOTE_BYTES} bytes ({} KiB). Summarise, and link to long material instead of pasting it.",
            rendered.len(),
            MAX_WORK_NOTE_BYTES / 1024
        )));
    }
    let first_name = format!("{dest_rel}/{stem}.md");
    let beside_line = beside
        .map(|n| format!("\nFiled beside the project's note {n} (the vault has no projects/ folder for this project).", n = n.rel))
        .unwrap_or_default();
    if input.dry_run {
        let preview: String = rendered.chars().take(600).collect();
        // A note of this title there already: writing would take the next free name.
        let existing = vault
            .root
            .join(&first_name)
            .symlink_metadata()
            .is_ok()
            .then(|| first_name.clone());
        let mut message =
            format!("Preview (nothing written) → {first_name}\nRouting: {route}{beside_line}");
        if let Some(e) = &existing {
            message.push_str(&format!(
                "\nA note with this title already exists: {e}. Writing would file a second one beside it under the next free name ({stem}-2.md or later); to add to {e} instead, edit it."
            ));
        }
        message.push_str(&format!("\n\n{preview}"));
        return Ok(WorkRecord {
            path: Some(first_name),
            route: Some(route.to_string()),
            message,
            preview: Some(preview),
            existing,
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
    let mut message = format!("Recorded: {rel}\nRouting: {route}{beside_line}");
    // The same title twice: the contract files the second one under the next free name
    // (`stem-2.md`); the answer says so plainly, and which note was there first.
    let existing = (rel != first_name).then_some(first_name);
    if let Some(e) = &existing {
        message.push_str(&format!(
            "\n\nA note with this title already exists: {e}. This one was written beside it as {rel}, and both carry the alias '{title}'. If it is more of the same work, add it to {e} with your edit tools and delete {rel}; otherwise give it a title of its own."
        ));
    }
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
        existing,
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
    (project, link): (Option<&str>, Option<&str>),
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
    if let Some(p) = link
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

    fn vault_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Vault) {
        let d = tempfile::tempdir().unwrap();
        let mut all = vec![(
            "vault-manifest.json",
            r#"{"user_content_roots": ["work/", "brain/*.md", "reference/", "inbox/", "projects/"]}"#,
        )];
        all.extend_from_slice(files);
        for (rel, text) in all {
            let p = d.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let v = Vault::open(d.path(), crate::VaultOptions::default()).unwrap();
        (d, v)
    }

    fn work(title: &str) -> WorkInput {
        WorkInput {
            title: title.into(),
            summary: "Did the work.".into(),
            ..WorkInput::default()
        }
    }

    /// Issue 38 finding 7: from a code repository whose vault has no `projects/<caller>/`, the
    /// note goes beside the project's own note (found by its `project:` frontmatter or its
    /// name), not to the inbox; agent-written and private notes never decide it.
    #[test]
    fn without_a_project_folder_the_note_goes_beside_the_projects_note() {
        let (_d, v) = vault_with(&[
            (
                "work/active/Checkout Latency.md",
                "---\nproject: checkout\nstatus: active\n---\n# Checkout Latency\n",
            ),
            (
                "work/incidents/2026-03-14 Checkout outage.md",
                "---\nproject: checkout\nstatus: completed\n---\n# Outage\n",
            ),
            // Agent-written and private notes naming the project are passed over.
            (
                "reference/2026-01-01 earlier.md",
                "---\nproject: 'checkout'\nsource_repo: 'checkout'\nstatus: active\n---\n# E\n",
            ),
            (
                "brain/Mobile.md",
                "---\nproject: mobile\nprivate: true\nstatus: active\n---\n# M\n",
            ),
            ("reference/payments/payments.md", "# Payments\n"),
        ]);
        let checkout = Caller::named("checkout").unwrap();
        let r = v.record_work(&checkout, &work("Add a timeout")).unwrap();
        let path = r.path.clone().unwrap();
        assert!(
            path.starts_with("work/active/") && path.ends_with(" Add a timeout.md"),
            "{r:?}"
        );
        assert_eq!(r.route.as_deref(), Some("caller-identity"));
        assert!(
            r.message
                .contains("beside the project's note work/active/Checkout Latency.md"),
            "{}",
            r.message
        );
        let text = fs::read_to_string(v.root().join(&path)).unwrap();
        assert!(text.contains("project: 'checkout'"), "{text}");
        assert!(text.contains("- [[Checkout Latency]]"), "{text}");
        // A decision goes there too; a note named after the project (no frontmatter) works.
        let mut d = work("Use a circuit breaker");
        d.kind = WorkKind::Decision;
        let r = v.record_work(&checkout, &d).unwrap();
        assert_eq!(
            r.path.as_deref(),
            Some("work/active/Decision - Use a circuit breaker.md")
        );
        let r = v
            .record_work(&Caller::named("payments").unwrap(), &work("Ledger"))
            .unwrap();
        assert!(
            r.path
                .as_deref()
                .unwrap()
                .starts_with("reference/payments/"),
            "{r:?}"
        );
        // A private project note leaves the caller in the inbox; so does the vault itself.
        let r = v
            .record_work(&Caller::named("mobile").unwrap(), &work("Offline"))
            .unwrap();
        assert_eq!(r.route.as_deref(), Some("fallback"), "{r:?}");
        let itself = Caller::from_dir(v.root(), v.root());
        let r = v.record_work(&itself, &work("Tidy")).unwrap();
        assert_eq!(r.route.as_deref(), Some("fallback"), "{r:?}");
        // `projects/<caller>/` still wins.
        fs::create_dir_all(v.root().join("projects/Checkout")).unwrap();
        let r = v.record_work(&checkout, &work("Later")).unwrap();
        assert!(
            r.path
                .as_deref()
                .unwrap()
                .starts_with("projects/Checkout/notes/"),
            "{r:?}"
        );
    }

    /// The project's note is followed only where a named folder could go: a note whose folder
    /// is a symlink out of its root leaves the caller in the inbox.
    #[cfg(unix)]
    #[test]
    fn the_projects_note_folder_obeys_the_folder_rules() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(
            outside.path().join("Atlas.md"),
            "---\nproject: atlas\n---\n# Atlas\n",
        )
        .unwrap();
        let (_d, v) = vault_with(&[("work/readme.md", "# r\n")]);
        std::os::unix::fs::symlink(outside.path(), v.root().join("work/linked")).unwrap();
        let r = v
            .record_work(&Caller::named("atlas").unwrap(), &work("Escape"))
            .unwrap();
        assert_eq!(r.route.as_deref(), Some("fallback"), "{r:?}");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    /// Issue 38 finding 7: the same title twice. The contract files the second note under the
    /// next free name (`-2`); the answer says plainly that a note of that title exists, names
    /// it, and says how to proceed; a dry run warns before anything is written.
    #[test]
    fn the_same_title_twice_names_the_note_already_there() {
        let (_d, v) = vault_with(&[("work/Index.md", "# Work\n")]);
        let who = Caller::named("atlas").unwrap();
        let mut input = work("Fix the flaky test");
        input.kind = WorkKind::Decision;
        input.folder = Some("work/active".into());
        let first = v.record_work(&who, &input).unwrap();
        assert_eq!(first.existing, None);
        assert!(
            !first.message.contains("already exists"),
            "{}",
            first.message
        );
        let first = first.path.unwrap();
        input.dry_run = true;
        let dry = v.record_work(&who, &input).unwrap();
        assert_eq!(dry.existing.as_deref(), Some(first.as_str()));
        assert!(
            dry.message
                .contains(&format!("A note with this title already exists: {first}")),
            "{}",
            dry.message
        );
        input.dry_run = false;
        let second = v.record_work(&who, &input).unwrap();
        assert!(second.recorded);
        assert_eq!(
            second.path.as_deref(),
            Some("work/active/Decision - Fix the flaky test-2.md")
        );
        assert_eq!(second.existing.as_deref(), Some(first.as_str()));
        for part in [
            format!("A note with this title already exists: {first}"),
            "written beside it as work/active/Decision - Fix the flaky test-2.md".to_string(),
            "with your edit tools".to_string(),
            "a title of its own".to_string(),
        ] {
            assert!(second.message.contains(&part), "{part}: {}", second.message);
        }
        // The first note is untouched.
        let text = fs::read_to_string(v.root().join(&first)).unwrap();
        assert!(text.contains("# Fix the flaky test"));
    }
}
