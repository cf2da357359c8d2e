//! post-tool: checks on a `.md` file an agent just wrote — frontmatter, wikilinks, ticket-ID
//! links, memories written to an agent's private memory folder, oversized notes and topic
//! clusters forming.

use std::path::PathBuf;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use super::hygiene::{clusters_of, name_of, parent_of};
use super::{HookContext, HookEvent, HookOutcome, Payload, hook_output, is_md, rel_path};

/// A note at least this big is past the organisation threshold.
pub const MONOLITH_BYTES: u64 = super::hygiene::OVERSIZED_BYTES;

static TICKET_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\[[A-Z]{2,10}-\d+(\\\||&#124;|\||\]\])").expect("valid regex"));
static PATCH_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\*\*\* (?:Add File|Update File|Move to): (.+?)\s*$").expect("valid regex")
});

/// A machine-readable finding, beside the text the agent reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyResult {
    /// Which rule: `memory-location`, `phantom-edge`, `organization-threshold`, `topic-cluster`.
    pub policy_id: &'static str,
    /// The file, vault-relative (or as given, outside the vault).
    pub path: String,
    /// What the file is: `misplaced-memory`, `ticket-id-wikilink`, `oversized-note`,
    /// `ungrouped-cluster`.
    pub classification: &'static str,
    /// Where it should go, when there is one place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_target: Option<String>,
    /// `warn` (fix it) or `flag` (consider it).
    pub action: &'static str,
}

const SKIPPED_NAMES: &[&str] = &[
    "README.md",
    "CHANGELOG.md",
    "CONTRIBUTING.md",
    "ARCHITECTURE.md",
    "CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
];
const SKIPPED_PARTS: &[&str] = &[
    ".claude/",
    ".codex/",
    ".gemini/",
    ".github/",
    ".obsidian/",
    ".mindex/",
    "templates/",
    "thinking/",
];

/// Tools that only read (Claude Code, Codex, Gemini CLI): a call to one writes nothing, so
/// there is nothing to check. Agents configured without a `Write|Edit` matcher send them too.
const READ_ONLY_TOOLS: &[&str] = &[
    "read",
    "grep",
    "glob",
    "ls",
    "notebookread",
    "webfetch",
    "websearch",
    "read_file",
    "read_many_files",
    "list_directory",
    "glob_files",
    "search_file_content",
    "google_web_search",
    "web_fetch",
    "view_image",
];

pub(crate) fn run(p: &Payload, ctx: &HookContext, out: &mut HookOutcome) {
    let tool = p
        .string(&["tool_name", "toolName", "tool"])
        .unwrap_or_default()
        .to_ascii_lowercase();
    if READ_ONLY_TOOLS.contains(&tool.as_str()) {
        return;
    }
    let paths = written_paths(p);
    let mut blocks = Vec::new();
    let mut policies = Vec::new();
    for raw in &paths {
        let unified = raw.replace('\\', "/");
        if is_md(&unified)
            && !["/.git/", "/.obsidian/", "/node_modules/"]
                .iter()
                .any(|m| unified.contains(m))
        {
            out.refresh = true;
        }
        check(ctx, raw, &mut blocks, &mut policies);
    }
    if !blocks.is_empty() {
        out.stdout = hook_output(
            &p.event_name(HookEvent::PostTool),
            &blocks.join("\n\n"),
            &policies,
        );
    }
}

/// Every file a tool call wrote, under every agent's spelling: `tool_input.file_path` (Claude
/// Code, Gemini), `path`, `filePath`, `absolute_path`, `notebook_path`, the files of a
/// `MultiEdit`, and the `*** Add File:` / `*** Update File:` lines of a Codex `apply_patch`.
pub(crate) fn written_paths(p: &Payload) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s.trim();
        if !s.is_empty() && !out.iter().any(|x| x == s) {
            out.push(s.to_string());
        }
    };
    let input = p.field(&["tool_input", "toolInput", "input", "tool_args"]);
    let mut objects: Vec<&Value> = Vec::new();
    if let Some(v) = input {
        objects.push(v);
        if let Some(edits) = v.get("edits").and_then(Value::as_array) {
            objects.extend(edits.iter());
        }
    }
    for o in &objects {
        for key in [
            "file_path",
            "path",
            "filePath",
            "absolute_path",
            "notebook_path",
        ] {
            if let Some(s) = o.get(key).and_then(Value::as_str) {
                push(s);
            }
        }
    }
    if let Some(s) = p.string(&["file_path", "filePath"]) {
        push(s);
    }
    // Codex apply_patch: the patch text, as a string or an argv list.
    let mut patch_texts: Vec<String> = Vec::new();
    for o in &objects {
        for key in ["command", "patch", "input", "cmd"] {
            match o.get(key) {
                Some(Value::String(s)) => patch_texts.push(s.clone()),
                Some(Value::Array(a)) => {
                    patch_texts.extend(a.iter().filter_map(Value::as_str).map(str::to_string));
                }
                _ => {}
            }
        }
    }
    if let Some(Value::String(s)) = input {
        patch_texts.push(s.clone());
    }
    for t in patch_texts {
        for c in PATCH_FILE.captures_iter(&t) {
            push(&c[1]);
        }
    }
    out
}

/// Normalises `.` and `..` lexically, keeping a leading root or drive.
fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts
                    .last()
                    .is_some_and(|l| *l != ".." && !l.ends_with(':'))
                {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

/// Whether a path is inside an agent's private memory folder (`…/.claude/…/memory/…`), other
/// than its `MEMORY.md` index.
pub(crate) fn is_private_memory(path: &str) -> bool {
    let n = normalize(&path.replace('\\', "/"));
    let padded = format!("/{n}");
    padded.contains("/.claude/") && padded.contains("/memory/") && name_of(&n) != "MEMORY.md"
}

fn check(ctx: &HookContext, raw: &str, blocks: &mut Vec<String>, policies: &mut Vec<PolicyResult>) {
    let given = PathBuf::from(raw);
    let joined = if given.is_absolute() {
        given
    } else {
        ctx.root.join(given)
    };
    let real = std::fs::canonicalize(&joined).ok();
    if is_private_memory(raw)
        || real
            .as_ref()
            .is_some_and(|r| is_private_memory(&r.to_string_lossy()))
    {
        blocks.push(format!(
            "⚠ `{raw}` is in the agent's private memory folder: no other session, agent or repository will ever see it. \
             Put the knowledge in the vault instead:\n\
             - a trap that cost time → brain/Gotchas.md\n\
             - a way of working that works → brain/Patterns.md\n\
             - a decision and its why → brain/Key Decisions.md\n\
             - a lesson for future sessions → `mindex remember` (listed in brain/Memories.md)\n\
             - anything else → a new brain/<Topic>.md linked from the closest note"
        ));
        policies.push(PolicyResult {
            policy_id: "memory-location",
            path: raw.to_string(),
            classification: "misplaced-memory",
            suggested_target: Some("brain/".into()),
            action: "warn",
        });
        return;
    }
    let root = std::fs::canonicalize(&ctx.root).unwrap_or_else(|_| ctx.root.clone());
    let abs = real.unwrap_or_else(|| PathBuf::from(normalize(&joined.to_string_lossy())));
    let Some(rel) = rel_path(&root, &abs).or_else(|| rel_path(&ctx.root, &abs)) else {
        return;
    };
    if should_skip(&rel) {
        return;
    }
    let Ok(bytes) = std::fs::read(&abs) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes);
    let (warnings, tickets) = validate_content(&text);
    if !warnings.is_empty() {
        let mut b = format!("Vault hygiene warnings for `{}`:", name_of(&rel));
        for w in &warnings {
            b.push_str("\n  - ");
            b.push_str(w);
        }
        b.push_str("\nFix these before moving on.");
        blocks.push(b);
    }
    if tickets > 0 {
        policies.push(PolicyResult {
            policy_id: "phantom-edge",
            path: rel.clone(),
            classification: "ticket-id-wikilink",
            suggested_target: None,
            action: "warn",
        });
    }
    let size = bytes.len() as u64;
    if size >= MONOLITH_BYTES && !name_of(&rel).contains("Archive") {
        blocks.push(format!(
            "📐 `{rel}` is now {}KB — past the 25KB organisation threshold. Do NOT trim it: SPLIT it into \
             linked notes, one topic each, and keep a short hub note that links them.",
            (size + 500) / 1000
        ));
        policies.push(PolicyResult {
            policy_id: "organization-threshold",
            path: rel.clone(),
            classification: "oversized-note",
            suggested_target: None,
            action: "flag",
        });
    }
    if parent_of(&rel) == "work/active" {
        // Only the loose notes of work/active matter: that one folder, listed and judged by
        // the agent view (siblings an agent may not see are never named).
        let loose = match ctx.vault() {
            Some(vault) => vault
                .scoped(&mindex::Caller::anonymous())
                .notes_in("work/active"),
            None => Vec::new(),
        };
        if let Some(c) = clusters_of(&loose)
            .into_iter()
            .find(|c| c.files.contains(&rel))
        {
            let siblings: Vec<&str> = c
                .files
                .iter()
                .filter(|f| **f != rel)
                .map(|f| name_of(f))
                .collect();
            let topic = capitalise(&c.token);
            blocks.push(format!(
                "🗂 `{rel}` joins {} loose sibling(s) in work/active/ sharing \"{}\": {}. The vault's convention \
                 groups a topic's notes in a folder (work/active/{topic}/) — your judgement: a shared word is \
                 not always a shared topic.",
                siblings.len(),
                c.token,
                siblings.join(", ")
            ));
            policies.push(PolicyResult {
                policy_id: "topic-cluster",
                path: rel.clone(),
                classification: "ungrouped-cluster",
                suggested_target: Some(format!("work/active/{topic}/")),
                action: "flag",
            });
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// Files the checks leave alone: not markdown, project docs, machinery and scratch folders.
pub(crate) fn should_skip(rel: &str) -> bool {
    let unified = rel.replace('\\', "/");
    let name = name_of(&unified);
    !is_md(&unified)
        || SKIPPED_NAMES.contains(&name)
        || (name.starts_with("README.") && is_md(name))
        || SKIPPED_PARTS
            .iter()
            .any(|p| unified.starts_with(p) || unified.contains(&format!("/{p}")))
}

/// The convention warnings for a note's text, and its count of ticket-ID wikilinks.
pub(crate) fn validate_content(text: &str) -> (Vec<String>, usize) {
    let mut w = Vec::new();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Read as the index reads it: the engine's note parser.
    let parsed = mindex::parse_note("note.md", text);
    let note = &parsed.note;
    if !text.starts_with("---") {
        w.push("Missing YAML frontmatter".to_string());
    } else if !parsed.warnings.is_empty() {
        // A frontmatter that does not close or parse: agents are not served the note.
        w.extend(parsed.warnings.iter().map(|m| format!("Frontmatter: {m}")));
    } else {
        let has = |k: &str| {
            note.frontmatter
                .keys()
                .any(|key| key.eq_ignore_ascii_case(k))
        };
        if !has("tags") && !has("tag") {
            w.push("Missing `tags` in frontmatter".into());
        }
        if !has("description") {
            w.push(
                "Missing `description` in frontmatter (~150 chars required by vault convention)"
                    .into(),
            );
        }
        if !has("date") {
            w.push("Missing `date` in frontmatter".into());
        }
    }
    if text.chars().count() > 300 && note.links.is_empty() {
        w.push(
            "No [[wikilinks]] found — every note must link to at least one other note (vault convention)"
                .into(),
        );
    }
    let tickets = TICKET_LINK.find_iter(text).count();
    if tickets > 0 {
        w.push(format!(
            "{tickets} ticket-ID wikilink(s) (e.g. [[PROJ-123]]) — ticket IDs are plain text or tracker links, \
             never wikilinks: a wikilink to a ticket is an edge to a note that will never exist"
        ));
    }
    (w, tickets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_memory_paths() {
        for p in [
            "/home/u/.claude/projects/x/memory/notes.md",
            r"C:\Users\u\.claude\projects\x\memory\notes.md",
            "/home/u/.claude/projects/x/other/../memory/notes.md",
            "/home/u/.claude/projects/x/memory/./sub/a.md",
        ] {
            assert!(is_private_memory(p), "{p}");
        }
        for p in [
            "/home/u/.claude/projects/x/memory/MEMORY.md",
            "/home/u/.claude/projects/x/notes.md",
            "/home/u/vault/memory/notes.md",
            "/home/u/vault/memories/2026/a.md",
            "/home/u/.claude/projects/x/memory/../notes.md",
        ] {
            assert!(!is_private_memory(p), "{p}");
        }
    }

    #[test]
    fn skip_rules() {
        for p in [
            "a.txt",
            "README.md",
            "README.ja.md",
            "CHANGELOG.md",
            "work/AGENTS.md",
            ".claude/x.md",
            "templates/Work Note.md",
            "thinking/idea.md",
            r".claude\x.md",
        ] {
            assert!(should_skip(p), "{p}");
        }
        for p in ["work/active/A.md", "brain/Gotchas.MD", "readme-notes.md"] {
            assert!(!should_skip(p), "{p}");
        }
    }

    #[test]
    fn content_checks() {
        let (w, _) = validate_content("# no frontmatter");
        assert_eq!(w, ["Missing YAML frontmatter"]);
        let (w, _) = validate_content("---\ntitle: x\n---\nbody");
        assert_eq!(w.len(), 3, "{w:?}");
        // Keys are the parsed frontmatter's, not substrings ("hashtags:" is no `tags`).
        let (w, _) = validate_content("---\nhashtags: [a]\ndescription: d\ndate: x\n---\nbody");
        assert_eq!(w, ["Missing `tags` in frontmatter"]);
        // A frontmatter the index cannot read is said so: agents are not served the note.
        let (w, _) = validate_content("---\ntags: [a\n---\nbody");
        assert!(
            w[0].starts_with("Frontmatter: malformed frontmatter"),
            "{w:?}"
        );
        let (w, _) = validate_content("---\ntags: [a]\nbody");
        assert!(w[0].contains("never closes"), "{w:?}");
        // A link inside a code block is no link.
        let fenced = format!(
            "---\ndate: 2026-01-01\ndescription: d\ntags: [a]\n---\n{}\n```\n[[Home]]\n```\n",
            "word ".repeat(80)
        );
        assert!(validate_content(&fenced).0[0].starts_with("No [[wikilinks]]"));
        let long = format!(
            "---\ndate: 2026-01-01\ndescription: d\ntags: [a]\n---\n{}",
            "word ".repeat(80)
        );
        let (w, _) = validate_content(&long);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("No [[wikilinks]]"));
        let ok = format!("{long} [[Home]]");
        assert!(validate_content(&ok).0.is_empty());
        let (w, n) = validate_content(
            "---\ndate: x\ndescription: d\ntags: []\n---\nSee [[PROJ-123]] and [[AB-1|x]] and [[Home]].",
        );
        assert_eq!(n, 2);
        assert!(w[0].starts_with("2 ticket-ID wikilink(s)"), "{w:?}");
    }

    #[test]
    fn codex_patch_and_multi_edit_paths_are_read() {
        let p = Payload::parse(
            br#"{"tool_input":{"command":["apply_patch","*** Begin Patch\n*** Add File: work/active/A.md\n+x\n*** Update File: brain/B.md\n*** End Patch"]}}"#,
        );
        assert_eq!(written_paths(&p), ["work/active/A.md", "brain/B.md"]);
        let p = Payload::parse(
            br#"{"tool_input":{"file_path":"/v/a.md","edits":[{"file_path":"/v/b.md"}]}}"#,
        );
        assert_eq!(written_paths(&p), ["/v/a.md", "/v/b.md"]);
        let p = Payload::parse(br#"{"toolInput":{"filePath":"x.md"}}"#);
        assert_eq!(written_paths(&p), ["x.md"]);
        assert!(written_paths(&Payload::parse(br#"{"tool_input":null}"#)).is_empty());
    }
}
