//! The agent-facing text of a vault that used obsidian-mind: its manuals (`CLAUDE.md`,
//! `AGENTS.md`, `GEMINI.md`), `brain/Skills.md`, subagents, skills and commands told agents to
//! search with qmd and to reach the vault through the `om` MCP server. After `init --merge`
//! none of them does.
//!
//! Each file is handled by what it is:
//! - a file obsidian-mind shipped that the user never edited (its bytes hash to those of a
//!   release, v6.0 to v8.3.5: [`shipped::SHIPPED`]) is replaced by mindex's file of the same
//!   role (a manual, `brain/Skills.md`, a subagent of the same name), becomes an alias of
//!   mindex's command (`/om-dump` runs `/dump`), or goes (the qmd skill);
//! - any other file that mentions the old system is rewritten in place: a section or list item
//!   about qmd or the `om` server becomes mindex's, then tool names, commands, command names and
//!   paths are rewritten token by token; every other line stays byte for byte.
//!
//! Every file rewritten or removed is copied to `<file>.pre-mindex` first; whatever still
//! mentions the old system afterwards is named in the report, line by line.

use std::fs;
use std::path::Path;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::shipped;
use super::{Changed, InitReport, Kept, back_up};
use crate::error::{Error, Result};

/// obsidian-mind's commands and mindex's command doing the same job.
const COMMANDS: [(&str, &str); 17] = [
    ("om-standup", "standup"),
    ("om-dump", "dump"),
    ("om-wrap-up", "wrap-up"),
    ("om-weekly", "weekly"),
    ("om-capture-1on1", "capture-1on1"),
    ("om-prep-1on1", "prep-1on1"),
    ("om-meeting", "prep-meeting"),
    ("om-intake", "meeting-intake"),
    ("om-incident-capture", "incident-capture"),
    ("om-project-archive", "archive-project"),
    ("om-tidy", "tidy"),
    ("om-correct", "correct"),
    ("om-vault-audit", "vault-audit"),
    ("om-review-brief", "review-brief"),
    ("om-review-peer", "peer-review"),
    ("om-humanize", "edit-voice"),
    ("om-vault-upgrade", "import"),
];

/// obsidian-mind's subagents replaced by a mindex subagent of another name.
const RENAMED_AGENTS: [(&str, &str); 1] = [("vault-migrator", "migrator")];

/// The top-level files agents read as their manual or catalog.
const MANUALS: [&str; 4] = ["CLAUDE.md", "AGENTS.md", "GEMINI.md", "brain/Skills.md"];

/// Folders of agent-facing text, walked for `.md` and `.toml` files.
const TEXT_DIRS: [&str; 5] = [
    ".claude/agents",
    ".claude/commands",
    ".claude/skills",
    ".gemini/commands",
    ".codex/prompts",
];

/// What still ties a text to the old system: qmd in any form, the `om` server, its tools.
static OLD_SYSTEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)qmd|mcp__om__|om-mcp|`om`|\bom\s+(?:mcp\s+)?server|\bom\s+mcp\b")
        .expect("static regex")
});

/// Whether `text` mentions qmd or the `om` server anywhere.
pub(crate) fn mentions_old_system(text: &str) -> bool {
    OLD_SYSTEM.is_match(text)
}

/// `(line number, line)` of each line of `text` that still mentions the old system.
fn old_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| OLD_SYSTEM.is_match(l))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The xxh3-128 of `text` with CRLF read as LF: how [`shipped::SHIPPED`] names a file.
fn content_hash(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.replace("\r\n", "\n").as_bytes())
}

/// The obsidian-mind releases that shipped `text` at `rel` unchanged (first, last), if any.
fn shipped_as(rel: &str, text: &str) -> Option<(&'static str, &'static str)> {
    let h = content_hash(text);
    shipped::SHIPPED
        .iter()
        .find(|(p, hash, _, _)| *p == rel && *hash == h)
        .map(|(_, _, first, last)| (*first, *last))
}

/// Migrates the agent-facing text under `dest` (see the module docs). `template` gives
/// mindex's file at a vault-relative path, as `init` writes it.
pub(super) fn migrate_text(
    dest: &Path,
    template: &dyn Fn(&str) -> Option<Vec<u8>>,
    report: &mut InitReport,
) -> Result<()> {
    let mut rels: Vec<String> = MANUALS
        .iter()
        .filter(|r| dest.join(r).is_file())
        .map(|r| r.to_string())
        .collect();
    for dir in TEXT_DIRS {
        collect(dest, dir, &mut rels);
    }
    let vault = report.vault.to_string_lossy().into_owned();
    let vault_shown = if vault.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
        format!("'{}'", vault.replace('\'', "'\\''"))
    } else {
        vault
    };
    for rel in rels {
        let path = dest.join(&rel);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let name = rel
            .rsplit('/')
            .next()
            .unwrap_or(&rel)
            .trim_end_matches(".md");
        let command = rel
            .starts_with(".claude/commands/")
            .then(|| COMMANDS.iter().find(|(old, _)| *old == name))
            .flatten();
        if !mentions_old_system(&text) && command.is_none() && !rewrites_command_names(&text) {
            continue;
        }
        let shipped = shipped_as(&rel, &text);
        let action = plan(&rel, name, command.map(|c| c.1), shipped, template);
        apply(dest, &rel, &text, action, &vault_shown, report)?;
    }
    Ok(())
}

/// What happens to one file.
enum Action {
    /// Replace it with these bytes (mindex's file of the same role): what went, what came.
    Replace(Vec<u8>, String, String),
    /// Remove it (nothing of mindex's takes its place; its job is gone): what went, why.
    Remove(String, String),
    /// Rewrite it in place, keeping every line that does not mention the old system.
    Rewrite,
}

fn plan(
    rel: &str,
    name: &str,
    command: Option<&str>,
    shipped: Option<(&str, &str)>,
    template: &dyn Fn(&str) -> Option<Vec<u8>>,
) -> Action {
    if rel.starts_with(".claude/skills/qmd/") {
        // The skill is qmd from top to bottom: it goes, edited or not (the backup keeps it).
        return Action::Remove(
            match shipped {
                Some(_) => "obsidian-mind's qmd skill (unedited)".to_string(),
                None => "the qmd skill (your edits are in the backup)".to_string(),
            },
            "nothing in its place: the mindex tools and AGENTS.md do its job".to_string(),
        );
    }
    let Some((first, last)) = shipped else {
        return Action::Rewrite;
    };
    let release = if first == last {
        first.to_string()
    } else {
        format!("{first}–{last}")
    };
    let what = format!("obsidian-mind's {rel} ({release}, unedited)");
    if let Some(target) = command
        && let Some(ours) = template(&format!(".claude/commands/{target}.md"))
    {
        return Action::Replace(
            alias(name, target, &String::from_utf8_lossy(&ours)).into_bytes(),
            what,
            format!("an alias: /{name} runs mindex's /{target}"),
        );
    }
    if let Some(agent) = rel.strip_prefix(".claude/agents/") {
        let agent = agent.trim_end_matches(".md");
        if let Some((_, new)) = RENAMED_AGENTS.iter().find(|(old, _)| *old == agent) {
            return Action::Remove(
                what,
                format!("nothing in its place: mindex's `{new}` subagent does its job"),
            );
        }
    }
    if (MANUALS.contains(&rel) || rel.starts_with(".claude/agents/"))
        && let Some(ours) = template(rel)
    {
        return Action::Replace(ours, what, format!("mindex's {rel}"));
    }
    Action::Rewrite
}

fn apply(
    dest: &Path,
    rel: &str,
    text: &str,
    action: Action,
    vault_shown: &str,
    report: &mut InitReport,
) -> Result<()> {
    let path = dest.join(rel);
    let (after, removed, added): (Option<String>, Vec<String>, Vec<String>) = match action {
        Action::Replace(bytes, went, came) => (
            Some(String::from_utf8_lossy(&bytes).into_owned()),
            vec![went],
            vec![came],
        ),
        Action::Remove(went, why) => (None, vec![went], vec![why]),
        Action::Rewrite => {
            // Sections and list items are markdown's; a TOML command is rewritten token by token.
            let (out, what) = rewrite(text, rel.ends_with(".md"));
            let out = out.replace(THIS_VAULT, vault_shown);
            if out == text {
                if mentions_old_system(text) {
                    report.left.push(Kept {
                        path: rel.to_string(),
                        why: format!(
                            "still mentions qmd or the om server (line {}): edit it by hand",
                            join_lines(&old_lines(text))
                        ),
                    });
                }
                return Ok(());
            }
            let left = old_lines(&out);
            if !left.is_empty() {
                report.left.push(Kept {
                    path: rel.to_string(),
                    why: format!(
                        "rewritten, but line {} still mentions qmd or the om server: edit it by hand",
                        join_lines(&left)
                    ),
                });
            }
            (
                Some(out),
                what,
                vec!["mindex's tools, commands and paths in their place".to_string()],
            )
        }
    };
    let backup = back_up(dest, rel)?;
    match &after {
        Some(text) => crate::atomic::write_replace(&path, text.as_bytes())?,
        None => {
            fs::remove_file(&path).map_err(|e| Error::io(&path, e))?;
        }
    }
    report.kept.retain(|k| k.path != rel);
    report.changed.push(Changed {
        path: rel.to_string(),
        backup,
        removed,
        added,
    });
    Ok(())
}

/// Where the vault's path goes in the text the migration writes.
const THIS_VAULT: &str = "<this vault>";

fn join_lines(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(8).map(usize::to_string).collect();
    let more = lines.len().saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// Every `.md` or `.toml` file under `dir` (vault-relative), backups left out.
fn collect(dest: &Path, dir: &str, out: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dest.join(dir)) else {
        return;
    };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            // A link (to a folder shared with other vaults, say) is not the vault's to rewrite.
            let kind = e.file_type().ok()?;
            if kind.is_symlink() {
                return None;
            }
            Some((name, kind.is_dir()))
        })
        .collect();
    names.sort();
    for (name, is_dir) in names {
        let rel = format!("{dir}/{name}");
        if is_dir {
            if !name.starts_with('.') {
                collect(dest, &rel, out);
            }
        } else if (name.ends_with(".md") || name.ends_with(".toml"))
            && !name.contains(".pre-mindex")
        {
            out.push(rel);
        }
    }
}

/// An alias command: `/om-dump` asks the agent to run mindex's `/dump` with the same
/// arguments, with `/dump`'s description, argument hint and allowed tools.
fn alias(old: &str, target: &str, ours: &str) -> String {
    let field = |key: &str| {
        ours.lines()
            .take_while(|l| !l.is_empty())
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .map(str::to_string)
    };
    let description = field("description")
        .map(|d| d.trim_matches('"').to_string())
        .unwrap_or_else(|| format!("Runs /{target}"));
    let mut front = format!(
        "---\ndescription: {}\n",
        serde_json::to_string(&format!("{description} (old name of /{target})"))
            .unwrap_or_default()
    );
    for key in ["argument-hint", "allowed-tools"] {
        if let Some(v) = field(key) {
            front.push_str(&format!("{key}: {v}\n"));
        }
    }
    format!(
        "{front}---\n`/{old}` is the obsidian-mind name of `/{target}`. Do exactly what `.claude/commands/{target}.md` says, with these arguments:\n\n$ARGUMENTS\n"
    )
}

// ---------------------------------------------------------------------------------------------
// Rewriting in place
// ---------------------------------------------------------------------------------------------

/// mindex's search guidance, in place of obsidian-mind's qmd list item.
const SEARCH_BULLET: &str = "- **mindex**: search and memory for this vault. Search before reading files, and pick the first surface available:
  1. **`mcp__mindex__query`, `mcp__mindex__search`, `mcp__mindex__get`, `mcp__mindex__multi_get`, `mcp__mindex__status`**: the `mindex` MCP server's tools, live when they are in your tool menu. `query` mixes words and meaning; `search` finds exact words and identifiers.
  2. **`mindex query|search|vsearch|get|multi-get`**: the same from the shell, run anywhere inside the vault (no index name to pass).
  3. **Grep / Glob / Read**: only when mindex is not installed.

  The hooks keep the index current; `mindex update` refreshes it by hand and `mindex embed` adds the vectors `query` ranks by meaning.";

/// The text of a section about qmd, at heading level `level`.
fn search_section(level: usize, heading: &str) -> String {
    format!(
        "{} {heading}\n\nmindex indexes this vault (words, identifiers and meaning) and serves it to agents:\n\n- `mindex query \"<question>\"`: words and meaning together, the best first search; `mindex search \"<words>\"` for exact words and identifiers; `mindex vsearch` by meaning alone.\n- `mindex get <note>` and `mindex multi-get '<glob>'` read notes; `mindex status` says what is indexed.\n- The same as MCP tools (`mcp__mindex__query`, `mcp__mindex__get`, …) when the `mindex` server is in the tool menu.\n- The hooks keep the index current; after bulk changes run `mindex update`, then `mindex embed`.\n",
        "#".repeat(level)
    )
}

/// The text of a section about reaching the vault from other repositories (the `om`
/// server's job), at heading level `level`.
fn reach_section(level: usize, heading: &str) -> String {
    format!(
        "{} {heading}\n\nSessions in other repositories reach this vault through the `mindex` MCP server (`mindex mcp`). Register it once for every repository:\n\n- Claude Code: `claude mcp add --scope user mindex -- mindex mcp --vault <this vault>`\n- Codex: `codex mcp add mindex -- mindex mcp --vault <this vault>`\n- Gemini CLI: `gemini mcp add --scope user mindex mindex mcp --vault <this vault>`\n\nIt serves `search`, `query`, `get`, `multi_get`, `expand`, `status`, `health`, `recall`, `remember`, `record_work` and `reason`, only from the folders `vault-manifest.json` exposes (private notes never), and logs every call to `.mindex/audit.jsonl`. A session working inside the vault writes to `brain/` itself; `memories/` holds what other repositories' sessions learned, each scoped to the projects it reaches.\n",
        "#".repeat(level)
    )
}

/// Whether a heading's section is about the old system, and which replacement it gets.
fn old_section(heading: &str) -> Option<fn(usize, &str) -> String> {
    static REACH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)reaching (?:the|this) vault from another repo|`om`|\bom\b.*\bmcp\b")
            .expect("static regex")
    });
    static SEARCH: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\bqmd\b").expect("static regex"));
    if REACH.is_match(heading) {
        Some(reach_section)
    } else if SEARCH.is_match(heading) {
        Some(search_section)
    } else {
        None
    }
}

/// Whether `text` names an obsidian-mind command (`/om-dump`) that mindex renames.
fn rewrites_command_names(text: &str) -> bool {
    COMMAND_NAME.is_match(text)
}

static COMMAND_NAME: LazyLock<Regex> = LazyLock::new(|| {
    let names: Vec<&str> = COMMANDS.iter().map(|(old, _)| *old).collect();
    Regex::new(&format!(r"(/|`)({})\b", names.join("|"))).expect("static regex")
});

/// `text` rewritten to mindex, and what was replaced.
pub(crate) fn rewrite(text: &str, markdown: bool) -> (String, Vec<String>) {
    let mut what = Vec::new();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    let mut i = 0;
    // Skip the frontmatter block: only its `skills:` list is rewritten (below).
    let front_end = crate::markdown::frontmatter::block(text)
        .filter(|b| b.closed)
        .map_or(0, |b| b.body_offset);
    let mut offset = 0;
    while i < lines.len() {
        let line = lines[i];
        let in_front = offset < front_end;
        let trimmed = line.trim_start();
        if !in_front {
            if let Some(f) = &fence {
                if trimmed.starts_with(f.as_str()) {
                    fence = None;
                }
            } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(trimmed[..3].to_string());
            } else if let Some((level, heading)) = heading_of(line).filter(|_| markdown)
                && let Some(section) = old_section(heading)
            {
                // The whole section, to the next heading of its level or above.
                let mut end = i + 1;
                let mut inner_fence = false;
                while end < lines.len() {
                    let t = lines[end].trim_start();
                    if t.starts_with("```") || t.starts_with("~~~") {
                        inner_fence = !inner_fence;
                    } else if !inner_fence
                        && heading_of(lines[end]).is_some_and(|(l, _)| l <= level)
                    {
                        break;
                    }
                    end += 1;
                }
                out.push_str(&section(level, &rewrite_line(heading)));
                if end < lines.len() {
                    out.push('\n');
                }
                what.push(format!("the section \"{}\" (now mindex's)", heading.trim()));
                for l in &lines[i..end] {
                    offset += l.len();
                }
                i = end;
                continue;
            } else if markdown && is_qmd_item(line) {
                let mut end = i + 1;
                while end < lines.len()
                    && (lines[end].starts_with("  ")
                        || (lines[end].trim().is_empty()
                            && lines.get(end + 1).is_some_and(|n| n.starts_with("  "))))
                {
                    end += 1;
                }
                out.push_str(SEARCH_BULLET);
                out.push('\n');
                what.push("the qmd item of the skills list (now mindex's)".to_string());
                for l in &lines[i..end] {
                    offset += l.len();
                }
                i = end;
                continue;
            }
        }
        let new = if in_front {
            rewrite_line(&rewrite_front_line(line))
        } else {
            rewrite_line(line)
        };
        if new != line
            && what
                .last()
                .is_none_or(|w| w != "qmd and om mentions, line by line")
        {
            what.push("qmd and om mentions, line by line".to_string());
        }
        out.push_str(&new);
        offset += line.len();
        i += 1;
    }
    what.dedup();
    (out, what)
}

/// `(level, text)` of an ATX heading line.
fn heading_of(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_end_matches(['\n', '\r']);
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&hashes) && t[hashes..].starts_with(' '))
        .then(|| (hashes, t[hashes..].trim()))
}

/// A list item that introduces qmd (`- **qmd**: …`).
fn is_qmd_item(line: &str) -> bool {
    static ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)^[-*]\s+\*\*`?qmd`?\*\*").expect("static regex"));
    ITEM.is_match(line)
}

/// A frontmatter line: `skills:` loses `qmd` (the skill is gone); nothing else changes.
fn rewrite_front_line(line: &str) -> String {
    static INLINE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(\s*skills:\s*)\[(.*)\](\s*)$").expect("static regex"));
    static ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"^\s*-\s*["']?qmd["']?\s*$"#).expect("static regex"));
    let (body, end) = match line.strip_suffix('\n') {
        Some(b) => (b, "\n"),
        None => (line, ""),
    };
    if ITEM.is_match(body) {
        return String::new();
    }
    if let Some(c) = INLINE.captures(body) {
        let kept: Vec<&str> = c[2]
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty() && !s.trim_matches(['"', '\'']).eq_ignore_ascii_case("qmd"))
            .collect();
        return format!("{}[{}]{}{end}", &c[1], kept.join(", "), &c[3]);
    }
    if let Some(rest) = body.trim_start().strip_prefix("skills:")
        && rest.trim().eq_ignore_ascii_case("qmd")
    {
        return format!(
            "{}skills: []{end}",
            &body[..body.len() - body.trim_start().len()]
        );
    }
    line.to_string()
}

/// One line with every mention of the old system rewritten to mindex.
pub(crate) fn rewrite_line(line: &str) -> String {
    static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
        [
            // Registering the om server from another repository.
            (
                r#"claude mcp add(\s+--scope\s+\w+)?\s+om\s+node\s+"?[^"\s]*om-mcp\.mjs"?"#,
                "claude mcp add$1 mindex -- mindex mcp --vault <this vault>",
            ),
            (
                r#""om"\s*:\s*\{\s*"command"\s*:\s*"node"\s*,\s*"args"\s*:\s*\[\s*"[^"]*om-mcp\.mjs"\s*\]\s*\}"#,
                r#""mindex": {"command": "mindex", "args": ["mcp", "--vault", "<this vault>"]}"#,
            ),
            // The bootstrap and installation of qmd.
            (
                r#"(?:node\s+(?:--[\w=-]+\s+)*)?"?(?:\$\{?\w+(?::-[^}]*)?\}?/)?\.?scripts/qmd-bootstrap\.ts"?"#,
                "mindex update && mindex embed",
            ),
            (r"npm\s+(?:install|i)\s+-g\s+@tobilu/qmd", "mindex health"),
            (r"\[QMD\]\([^)]*\)", "mindex"),
            // The servers' scripts and files.
            (r"(?:\.claude/scripts/)?(?:om|qmd)-mcp\.(?:mjs|ts)", "mindex mcp"),
            (r"\.claude/om-mcp-audit\.jsonl(?:\.1)?", ".mindex/audit.jsonl"),
            (r"\.claude/om-reasoning/?", "thinking/reasoning/"),
            // Tools.
            (r"mcp__om__(\w+)", "mcp__mindex__$1"),
            (
                r"mcp__qmd__(query|get|multi_get|status|search)\b",
                "mcp__mindex__$1",
            ),
            (r"mcp__qmd__\w+", "mcp__mindex__query"),
            // The CLI, with or without an index name.
            (
                r#"\bqmd(?:\s+--index(?:\s+|=)(?:"[^"]*"|'[^']*'|<[^>]*>|\$\{?\w+\}?|[\w.-]+))?\s+(query|search|vsearch|get|multi-get|update|embed|status|mcp)\b"#,
                "mindex $1",
            ),
            (
                r#"\bqmd(?:\s+--index(?:\s+|=)(?:"[^"]*"|'[^']*'|<[^>]*>|\$\{?\w+\}?|[\w.-]+))?\s+doctor\b"#,
                "mindex health",
            ),
            (
                r#"\bqmd(?:\s+--index(?:\s+|=)(?:"[^"]*"|'[^']*'|<[^>]*>|\$\{?\w+\}?|[\w.-]+))?\s+collection(?:\s+\w+)?"#,
                "mindex status",
            ),
            (
                r#"\bqmd\s+--index(?:\s+|=)(?:"[^"]*"|'[^']*'|<[^>]*>|\$\{?\w+\}?|[\w.-]+)"#,
                "mindex",
            ),
            (r"(mindex multi-get[^`\n]*?)\s+-l\s+\d+", "$1"),
            (r"the\s+`qmd_index`\s+field", "the vault (mindex needs no index name)"),
            (r"`qmd_index`", "the vault"),
            // The om server, named.
            (r"`om`(\s+(?:MCP\s+)?(?:server|tools?)\b)", "`mindex`$1"),
            (r"`om`(\s+MCP\b)", "`mindex`$1"),
            (r"\bthe\s+om\s+(MCP\s+)?server\b", "the mindex ${1}server"),
            (r"\bom\s+MCP\b", "mindex MCP"),
            // Whatever names qmd is left.
            (r"\bQMD's\b", "mindex's"),
            (r"\bQMD\b", "mindex"),
            (r"(?i)\bqmd\b", "mindex"),
        ]
        .into_iter()
        .map(|(re, to)| (Regex::new(re).expect("static regex"), to))
        .collect()
    });
    let mut s = line.to_string();
    for (re, to) in RULES.iter() {
        if re.is_match(&s) {
            s = re.replace_all(&s, *to).into_owned();
        }
    }
    COMMAND_NAME
        .replace_all(&s, |c: &Captures<'_>| {
            let new = COMMANDS
                .iter()
                .find(|(old, _)| *old == &c[2])
                .map_or(&c[2], |(_, n)| n);
            format!("{}{new}", &c[1])
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_about_qmd_and_om_become_mindex_and_others_stay() {
        for (old, new) in [
            (
                "- `qmd query \"<topic>\" --json -n 15` — find notes\n",
                "- `mindex query \"<topic>\" --json -n 15` — find notes\n",
            ),
            (
                "run `qmd --index <name> query \"x\"` or `qmd --index \"$INDEX\" vsearch y`",
                "run `mindex query \"x\"` or `mindex vsearch y`",
            ),
            (
                "`qmd --index obsidian-mind multi-get \"org/people/*.md\" --json -l 40`",
                "`mindex multi-get \"org/people/*.md\" --json`",
            ),
            (
                "call `mcp__qmd__query`, then `mcp__qmd__multi_get`; `mcp__om__recall`",
                "call `mcp__mindex__query`, then `mcp__mindex__multi_get`; `mcp__mindex__recall`",
            ),
            (
                "run `node --experimental-strip-types .scripts/qmd-bootstrap.ts` once",
                "run `mindex update && mindex embed` once",
            ),
            (
                "the `om` MCP server (`.claude/scripts/om-mcp.mjs`) logs to `.claude/om-mcp-audit.jsonl`",
                "the `mindex` MCP server (`mindex mcp`) logs to `.mindex/audit.jsonl`",
            ),
            (
                "`claude mcp add --scope user om node \"/abs/vault/.claude/scripts/om-mcp.mjs\"`",
                "`claude mcp add --scope user mindex -- mindex mcp --vault <this vault>`",
            ),
            (
                "Use /om-dump, then `om-standup`; /om-self-review stays",
                "Use /dump, then `standup`; /om-self-review stays",
            ),
            (
                "Search the vault with the `om` MCP tools (qmd semantic search) first",
                "Search the vault with the `mindex` MCP tools (mindex semantic search) first",
            ),
            (
                "If QMD is unavailable, grep. (QMD when available)",
                "If mindex is unavailable, grep. (mindex when available)",
            ),
            (
                "promoted: \"brain/Gotchas#^om-a1b2c3\" and .om-project",
                "promoted: \"brain/Gotchas#^om-a1b2c3\" and .om-project",
            ),
            ("Payments use the ledger.\n", "Payments use the ledger.\n"),
        ] {
            assert_eq!(rewrite_line(old), new, "{old}");
            assert!(!mentions_old_system(new), "{new}");
        }
    }

    #[test]
    fn skills_lose_qmd_in_every_list_shape() {
        assert_eq!(
            rewrite_front_line("skills: [obsidian-markdown, qmd]\n"),
            "skills: [obsidian-markdown]\n"
        );
        assert_eq!(rewrite_front_line("skills: [qmd]"), "skills: []");
        assert_eq!(rewrite_front_line("  - qmd\n"), "");
        assert_eq!(rewrite_front_line("skills: qmd\n"), "skills: []\n");
        assert_eq!(rewrite_front_line("tools: Read\n"), "tools: Read\n");
    }

    #[test]
    fn sections_and_the_qmd_item_are_replaced_and_user_text_stays() {
        let text = "# Manual\n\n## Skills\n\n- **qmd**: Semantic search via QMD.\n  1. **`mcp__qmd__query`** first.\n  2. CLI.\n\n  Note: bootstrap.\n- **obsidian-cli**: the CLI.\n\n## Reaching the Vault From Another Repo\n\nRegister `om`:\n```json\n{\"om\": {}}\n```\n### Sub\nmore om-mcp\n## My team conventions\n\n- Ask before touching the payments ledger.\n";
        let (out, what) = rewrite(text, true);
        assert!(!mentions_old_system(&out), "{out}");
        assert!(out.contains("- **obsidian-cli**: the CLI.\n"), "{out}");
        assert!(
            out.ends_with("## My team conventions\n\n- Ask before touching the payments ledger.\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "## Reaching the Vault From Another Repo\n\nSessions in other repositories"
            )
        );
        assert!(out.contains("- **mindex**: search and memory"), "{out}");
        assert_eq!(what.len(), 2, "{what:?}");
    }

    #[test]
    fn an_alias_runs_the_mindex_command_with_its_tools() {
        let ours = "---\ndescription: \"Brain dump\"\nargument-hint: \"<text>\"\nallowed-tools: \"Bash(mindex search:*), Read\"\n---\nbody\n";
        let a = alias("om-dump", "dump", ours);
        assert!(a.starts_with("---\ndescription: \"Brain dump (old name of /dump)\"\nargument-hint: \"<text>\"\nallowed-tools: \"Bash(mindex search:*), Read\"\n---\n"), "{a}");
        assert!(
            a.contains(".claude/commands/dump.md") && a.ends_with("$ARGUMENTS\n"),
            "{a}"
        );
    }

    #[test]
    fn every_mapped_command_exists_in_the_template() {
        for (_, new) in COMMANDS {
            let rel = format!(".claude/commands/{new}.md");
            assert!(
                super::super::TEMPLATE_FILES.iter().any(|(p, _)| *p == rel),
                "{rel}"
            );
        }
        for (_, new) in RENAMED_AGENTS {
            let rel = format!(".claude/agents/{new}.md");
            assert!(
                super::super::TEMPLATE_FILES.iter().any(|(p, _)| *p == rel),
                "{rel}"
            );
        }
    }
}
