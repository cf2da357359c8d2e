//! session-start: the briefing injected at the top of a session, held under the hook output cap.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::hygiene::{hygiene_with, name_of, parent_of};
use super::{
    HookContext, HookOutcome, Outside, Payload, hook_output, is_md, one_line, strip_controls,
    strip_md,
};
use mindex::Scoped;
use mindex::manifest::Manifest;
use mindex::scoped::{MAX_READ_BYTES, Reads, TreeFile, VaultTree};

/// Claude Code shows a hook's context inline only up to this many characters; past it the
/// session gets a file path and a short preview. Every session-start answer stays under it.
pub const HOOK_CAP_CHARS: usize = 10_000;

/// The briefing's size ceiling: the cap minus the JSON envelope and room for the meter. Any
/// budget, set or unset, is clamped to it.
pub const SESSION_BUDGET_CAP: usize = 9_000;

/// The listing folds a folder with more notes than this when the manifest sets nothing.
pub const DEFAULT_COLLAPSE_THRESHOLD: usize = 12;

const TRUNCATION_MARK: &str = "… [cut here: truncated to fit the hook output cap]";

static OPEN_TASK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*- \[ \]").expect("valid regex"));
static BULLET_WITH_TEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[-*+] +\S").expect("valid regex"));

/// What a session-start injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InjectionMode {
    /// Everything (startup, clear, anything unknown).
    Full,
    /// Only the volatile sections: the static bulk is already in the conversation (resume,
    /// compact).
    Pointer,
}

impl InjectionMode {
    /// `resume` and `compact` give [`InjectionMode::Pointer`]; anything else (a missing or
    /// non-string source included) gives [`InjectionMode::Full`].
    pub fn from_source(source: Option<&Value>) -> InjectionMode {
        match source.and_then(Value::as_str) {
            Some("resume" | "compact") => InjectionMode::Pointer,
            _ => InjectionMode::Full,
        }
    }
}

/// One section of the briefing.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    /// `### …` header, or none for the leading `## Session Context`.
    pub(crate) header: Option<&'static str>,
    pub(crate) body: String,
    /// Higher is surrendered first when over budget.
    pub(crate) priority: u8,
    /// What replaces the body when surrendered; `None` never degrades.
    pub(crate) fallback: Option<&'static str>,
}

impl Section {
    fn new(header: &'static str, body: String) -> Section {
        Section {
            header: Some(header),
            body,
            priority: 0,
            fallback: None,
        }
    }

    fn degrades(mut self, priority: u8, fallback: &'static str) -> Section {
        self.priority = priority;
        self.fallback = Some(fallback);
        self
    }

    fn never_degrades(mut self, priority: u8) -> Section {
        self.priority = priority;
        self
    }
}

pub(crate) fn run(p: &Payload, ctx: &HookContext, out: &mut HookOutcome) {
    let mode = InjectionMode::from_source(p.field(&["source", "session_source"]));
    if let Some(env_file) = &ctx.env_file {
        match format_env_export("MINDEX_VAULT", &ctx.root.to_string_lossy()) {
            Some(mut line) => {
                // The vault's commands run `mindex`: when the binary running this hook is not
                // on the session's PATH (an agent started from a desktop), put its folder there.
                if let Some(dir) = path_addition() {
                    line.push_str(&format!(
                        "export PATH='{}':\"$PATH\"\n",
                        dir.replace('\'', r"'\''")
                    ));
                }
                use std::io::Write as _;
                let r = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(env_file)
                    .and_then(|mut f| f.write_all(line.as_bytes()));
                if let Err(e) = r {
                    out.debug
                        .push(format!("env file {}: {e}", env_file.display()));
                }
            }
            None => out.debug.push("env export refused".into()),
        }
    }
    let manifest = ctx.manifest();
    let outside = ctx.outside(p);
    let Some(vault) = ctx.vault() else {
        out.debug
            .push(format!("vault {}: cannot be opened", ctx.root.display()));
        return;
    };
    let caller = outside
        .as_ref()
        .map_or_else(mindex::Caller::anonymous, |o| o.caller.clone());
    let view = vault.scoped(&caller);
    let (mut sections, hygiene) = sections(ctx, &view, &manifest, mode, outside.as_ref());
    // Every text comes from files anyone could have written: no control characters reach the
    // agent (newlines and tabs aside).
    for s in &mut sections {
        s.body = strip_controls(&s.body);
    }
    let budget = parse_budget(manifest.value("eager_layer_budget_bytes"));
    let text = fit(sections, budget);
    // The findings the briefing showed: Stop does not repeat them to this session.
    if let Some(session) = p.session_id() {
        let shown = hygiene.iter().filter(|b| text.contains(b.as_str()));
        let digests: Vec<String> = shown.map(|b| super::hygiene::block_digest(b)).collect();
        if !digests.is_empty() {
            let path = ctx.state_dir.join(super::hygiene::BRIEFED_STATE);
            let state = super::state::SessionState::load(&path).record(session, digests, ctx.now);
            if let Err(e) = state.save(&path, ctx.now) {
                out.debug
                    .push(format!("briefing state {}: {e}", path.display()));
            }
        }
    }
    out.stdout = hook_output(&p.event_name(super::HookEvent::SessionStart), &text, &[]);
}

/// The folder of the running `mindex` when no folder of `PATH` holds an executable named
/// `mindex` (`None` when one does, or the executable's folder cannot be told).
fn path_addition() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    let name = exe.file_name()?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|p| p.join(name).is_file()) {
        return None;
    }
    Some(dir.to_string_lossy().into_owned())
}

/// `export NAME='value'\n` with POSIX single quoting; `None` for a name that is not an
/// identifier.
pub(crate) fn format_env_export(name: &str, value: &str) -> Option<String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !first_ok || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some(format!(
        "export {name}='{}'\n",
        value.replace('\'', r"'\''")
    ))
}

/// `eager_layer_budget_bytes` when it is a positive integer; anything else is no budget.
pub(crate) fn parse_budget(v: Option<&Value>) -> Option<usize> {
    v?.as_u64()
        .filter(|b| *b > 0)
        .and_then(|b| usize::try_from(b).ok())
}

/// The size a text counts for: the larger of its UTF-8 bytes and its JSON-escaped length.
pub(crate) fn size_of(text: &str) -> usize {
    let escaped = serde_json::to_string(text).map_or(text.len(), |s| s.len() - 2);
    text.len().max(escaped)
}

fn render(sections: &[Section]) -> String {
    let mut out = String::new();
    for s in sections {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        if let Some(h) = s.header {
            out.push_str(h);
            out.push('\n');
        }
        out.push_str(&s.body);
    }
    out
}

fn kb(bytes: usize) -> String {
    format!("{:.1}", bytes as f64 / 1000.0)
}

/// Renders the sections within the budget (clamped to [`SESSION_BUDGET_CAP`]), degrading the
/// highest-priority sections first, and appends the meter line.
pub(crate) fn fit(mut sections: Vec<Section>, budget: Option<usize>) -> String {
    let limit = budget.unwrap_or(SESSION_BUDGET_CAP).min(SESSION_BUDGET_CAP);
    let mut text = render(&sections);
    let mut collapsed: Vec<String> = Vec::new();
    if size_of(&text) > limit {
        let mut order: Vec<usize> = (0..sections.len())
            .filter(|&i| sections[i].fallback.is_some_and(|f| f != sections[i].body))
            .collect();
        order.sort_by(|&a, &b| {
            sections[b]
                .priority
                .cmp(&sections[a].priority)
                .then(a.cmp(&b))
        });
        for i in order {
            let s = &mut sections[i];
            s.body = s.fallback.unwrap_or_default().to_string();
            collapsed.push(
                s.header
                    .unwrap_or_default()
                    .trim_start_matches('#')
                    .trim()
                    .to_string(),
            );
            text = render(&sections);
            if size_of(&text) <= limit {
                break;
            }
        }
    }
    let mut truncated = false;
    if size_of(&text) > SESSION_BUDGET_CAP {
        truncated = true;
        let room = SESSION_BUDGET_CAP - size_of(TRUNCATION_MARK) - 1;
        let mut kept = String::new();
        for line in text.lines() {
            if size_of(&kept) + size_of(line) + 1 > room {
                break;
            }
            kept.push_str(line);
            kept.push('\n');
        }
        kept.push_str(TRUNCATION_MARK);
        text = kept;
    }
    let mut meter = format!("_context injected: {}kB", kb(text.len()));
    match budget {
        Some(b) if b > SESSION_BUDGET_CAP => {
            let _ = write!(
                meter,
                " / {}kB budget (set {}kB, clamped to the hook output cap)",
                kb(SESSION_BUDGET_CAP),
                kb(b)
            );
        }
        Some(b) => {
            let _ = write!(meter, " / {}kB budget", kb(b));
        }
        None if !collapsed.is_empty() || truncated => {
            let _ = write!(meter, " / {}kB hook cap", kb(SESSION_BUDGET_CAP));
        }
        None => {}
    }
    if !collapsed.is_empty() {
        let _ = write!(meter, " — collapsed: {}", collapsed.join(", "));
    }
    if truncated {
        meter.push_str(" — truncated to fit the hook output cap");
    }
    meter.push('_');
    format!("{text}\n\n{meter}")
}

/// The briefing's sections, and the hygiene findings among them (as [`super::hygiene::HygieneReport::blocks`]).
/// A session working outside the vault (`outside`: a code repository) is told where the vault
/// is, gets the listing as vault paths (no `./`, which would read as its own folder) and only
/// its own project's open tasks.
fn sections(
    ctx: &HookContext,
    view: &Scoped<'_>,
    manifest: &Manifest,
    mode: InjectionMode,
    outside: Option<&Outside>,
) -> (Vec<Section>, Vec<String>) {
    let root = &ctx.root;
    // Only what an agent may see: private notes and never-exposed names are left out of every
    // section, and the memory store's files out of every listing.
    let tree = view.tree();
    let reads = view.reads("session-start");
    let mut listed = tree.without_under(tree.memory_root());
    let mut head = String::from("## Session Context");
    if let Some(o) = outside {
        let _ = write!(
            head,
            "\nThis session works in {}, outside the vault. Paths are relative to the vault at {}, \
             not to this folder: read them there or through mindex (`mindex get <path>`, or the \
             MCP tools), and file notes there (`mindex record-work`), never in this folder.",
            o.dir.display(),
            root.display()
        );
    }
    let mut out = vec![Section {
        header: None,
        body: head,
        priority: 0,
        fallback: None,
    }];
    out.push(Section::new(
        "### Date",
        super::LocalTime::of(ctx.now).date_line(),
    ));
    if mode == InjectionMode::Pointer {
        out.push(Section::new(
            "### Context Pointer",
            "Resumed or compacted session: the static briefing (North Star, brain topics, vault file \
             listing) is earlier in this conversation. Re-read brain/North Star.md, list brain/, or \
             `mindex search` the vault on demand. Only what changes is repeated below."
                .into(),
        ));
    }
    if mode == InjectionMode::Full {
        out.push(
            Section::new(
                "### North Star (current goals)",
                north_star(root, &tree, &reads),
            )
            .degrades(30, "(Over budget — re-read brain/North Star.md on demand.)"),
        );
        out.push(
            Section::new(
                "### Brain Topics (read on demand)",
                brain_topics(&listed, &reads),
            )
            .degrades(40, "(Over budget — list brain/ on demand.)"),
        );
    }
    out.push(
        Section::new("### Recent Changes (last 48h)", recent_changes(view, &tree))
            .degrades(20, "(Over budget — run git log on demand.)"),
    );
    out.push(
        Section::new(
            "### Open Tasks",
            open_tasks(root, manifest, &listed, &reads, outside.map(|o| &o.caller)),
        )
        .never_degrades(10),
    );
    out.push(Section::new("### Active Work", active_work(&listed)).never_degrades(10));
    if mode == InjectionMode::Full {
        let threshold = manifest
            .value("listing_collapse_threshold")
            .and_then(Value::as_u64)
            .filter(|t| *t > 0)
            .map_or(DEFAULT_COLLAPSE_THRESHOLD, |t| t as usize);
        // The vault's machinery (the manifest's `infrastructure`: agent configs, templates,
        // bases, the manifest) is not a note: it stays out of the listing.
        listed.retain_files(|f| !manifest.is_infrastructure(&f.rel));
        out.push(
            Section::new(
                "### Vault File Listing",
                listing(
                    &listed,
                    threshold,
                    if outside.is_some() { "" } else { "./" },
                ),
            )
            .degrades(
                50,
                "(Over budget — Glob or `mindex search` the vault on demand.)",
            ),
        );
    }
    // A config naming a binary that is gone: every hook and the MCP server fail silently.
    let stale = mindex::init::stale_binaries(root);
    if !stale.is_empty() {
        let lines: Vec<String> = stale.iter().map(|b| format!("- {}", b.warning())).collect();
        out.push(Section::new("### Agent Configs (broken)", lines.join("\n")).never_degrades(5));
    }
    if !ctx.indexed() {
        out.push(Section::new(
            "### Search Index",
            "(not built yet — run `mindex update` in the vault; search, recall and the MCP server need it)"
                .into(),
        ));
    }
    let hygiene = hygiene_with(view, &reads, manifest, ctx.now, &tree);
    if !hygiene.is_empty() {
        out.push(
            Section::new("### Vault Hygiene (drift detected)", hygiene.to_text()).never_degrades(5),
        );
    }
    (out, hygiene.blocks())
}

/// The North Star's current goals, when agents may see the note (`tree` holds only what they
/// may: [`Scoped::tree`]); the text printed is judged again, as read.
fn north_star(root: &Path, tree: &VaultTree, reads: &Reads<'_, '_>) -> String {
    const REL: &str = "brain/North Star.md";
    let path = root.join(REL);
    if !path.is_file() {
        return "(not found)".into();
    }
    let withheld = "(withheld: the note is private)";
    if !tree.files_in("brain").any(|f| f.rel == REL) {
        return withheld.into();
    }
    // Missing, unreadable or made private since the scan: the same answer.
    let Some(note) = reads.note(REL, MAX_READ_BYTES) else {
        return withheld.into();
    };
    let lines = note
        .lines_from_heading("Current Focus")
        .unwrap_or_else(|| note.body().lines().collect());
    let kept: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.starts_with("- ~~"))
        .collect();
    let hidden = lines.len() - kept.len();
    let mut kept: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
    while kept.first().is_some_and(|l| l.trim().is_empty()) {
        kept.remove(0);
    }
    if hidden > 0 && !kept.is_empty() {
        kept.insert(
            1,
            format!("_({hidden} completed item(s) hidden — full history in brain/North Star.md)_"),
        );
    }
    kept.truncate(30);
    let s = kept.join("\n").trim_end().to_string();
    if s.is_empty() { "(empty)".into() } else { s }
}

fn brain_topics(tree: &VaultTree, reads: &Reads<'_, '_>) -> String {
    let mut lines = Vec::new();
    for f in tree.files_in("brain").filter(|f| is_md(&f.rel)) {
        let name = strip_md(name_of(&f.rel));
        if name == "North Star" || name == "Memories" {
            continue;
        }
        // Judged again as read: a note made private since the scan stays out.
        let Some(note) = reads.note(&f.rel, 64 * 1024) else {
            continue;
        };
        let description = note
            .field("description")
            .unwrap_or_else(|| "(no description)".into());
        let body = note.body();
        // Empty: nothing but headings (the contract counts bullets only; prose counts here too).
        let has_text = body.lines().any(|l| {
            let t = l.trim();
            BULLET_WITH_TEXT.is_match(l) || (!t.is_empty() && !t.starts_with('#'))
        });
        let empty = if has_text { "" } else { " (empty)" };
        lines.push(format!(
            "- [[{}]] — {}{empty}",
            one_line(name),
            one_line(&description)
        ));
    }
    if lines.is_empty() {
        "(none)".into()
    } else {
        lines.join("\n")
    }
}

/// The vault's commits of the last 48 hours an agent may be told of ([`Scoped::recent_commits`]:
/// at most 15, 5 s at most; a commit touching or naming a note agents may not see is counted,
/// never shown).
fn recent_changes(view: &Scoped<'_>, tree: &VaultTree) -> String {
    const NONE: &str = "(no git history)";
    let Some(commits) = view.recent_commits(tree, "48 hours ago", 15) else {
        return NONE.into();
    };
    let mut lines: Vec<String> = commits.shown.iter().map(|s| one_line(s)).collect();
    if commits.hidden > 0 {
        lines.push(format!(
            "({} commit(s) touching or naming notes agents may not see not shown)",
            commits.hidden
        ));
    }
    if lines.is_empty() {
        NONE.into()
    } else {
        lines.join("\n")
    }
}

/// The open tasks (`- [ ]`) of the notes a session works on, at most 10. Inside the vault:
/// the notes directly in `work/active/` and at the vault's top level. From a code repository
/// (`project`: the caller), only that project's: every note under its `projects/<name>/`
/// folder (matched as `record_work` matches it, [`mindex::Caller::project_folder`]) and the
/// notes under `work/active/` whose frontmatter `project:` (or `projects:`) names it
/// ([`mindex::Caller::owns_note`]); other projects' tasks are not shown.
fn open_tasks(
    root: &Path,
    manifest: &Manifest,
    tree: &VaultTree,
    reads: &Reads<'_, '_>,
    project: Option<&mindex::Caller>,
) -> String {
    const MAX: usize = 10;
    let folder = project
        .and_then(|c| c.project_folder(root))
        .map(|d| format!("projects/{d}"));
    // Each source, and whether its frontmatter must name the caller's project.
    let sources: Vec<(&TreeFile, bool)> = match project {
        None => tree
            .files_in("work/active")
            .chain(
                tree.files_in("")
                    .filter(|f| !manifest.is_infrastructure(&f.rel)),
            )
            .map(|f| (f, false))
            .collect(),
        Some(caller) => {
            let Some(name) = caller.project.as_deref() else {
                return "(no project identified for this folder: name it in a `.mindex-project` \
                        file at the repository's root; other projects' tasks are not shown)"
                    .into();
            };
            let mut own: Vec<_> = folder
                .iter()
                .flat_map(|d| tree.files_under(d))
                .map(|f| (f, false))
                .collect();
            own.extend(tree.files_under("work/active").map(|f| (f, true)));
            if own.is_empty() {
                return format!("(no open tasks for project {})", one_line(name));
            }
            own
        }
    };
    let sources = sources.into_iter().filter(|(f, _)| is_md(&f.rel));
    let mut out = String::new();
    let mut total = 0;
    for (f, owned) in sources {
        if total >= MAX {
            break;
        }
        let Some(note) = reads.note(&f.rel, 1 << 20) else {
            continue;
        };
        if owned && !project.is_some_and(|c| note.frontmatter().is_some_and(|m| c.owns_note(&m))) {
            continue;
        }
        let tasks: Vec<&str> = note
            .text
            .lines()
            .filter(|l| OPEN_TASK.is_match(l))
            .take(MAX - total)
            .collect();
        if tasks.is_empty() {
            continue;
        }
        total += tasks.len();
        let _ = writeln!(out, "{}:", one_line(&f.rel));
        for t in tasks {
            let _ = writeln!(out, "  {}", t.trim());
        }
    }
    match project.and_then(|c| c.project.as_deref()) {
        Some(name) if out.is_empty() => format!("(no open tasks for project {})", one_line(name)),
        Some(name) => format!(
            "(project {} only: its projects/ folder, and work/active/ notes whose `project:` names it)\n{}",
            one_line(name),
            out.trim_end()
        ),
        None if out.is_empty() => "(no open tasks)".into(),
        None => out.trim_end().to_string(),
    }
}

fn active_work(tree: &VaultTree) -> String {
    const MAX: usize = 10;
    let mut items: Vec<String> = tree
        .files_in("work/active")
        .filter(|f| is_md(&f.rel))
        .map(|f| one_line(strip_md(name_of(&f.rel))))
        .collect();
    for d in tree.dirs() {
        if parent_of(d) == "work/active" {
            let n = tree.files_under(d).filter(|f| is_md(&f.rel)).count();
            items.push(format!("{}/ ({n} notes)", one_line(name_of(d))));
        }
    }
    if items.is_empty() {
        return "(none)".into();
    }
    let more = items.len().saturating_sub(MAX);
    let mut lines: Vec<String> = items
        .into_iter()
        .take(MAX)
        .map(|i| format!("- {i}"))
        .collect();
    if more > 0 {
        lines.push(format!("- … and {more} more in work/active/"));
    }
    lines.join("\n")
}

/// The vault's files as `<prefix>path` lines (`./path` inside the vault; bare vault paths for a
/// session elsewhere, which `./` would send to its own folder), sorted, with big flat folders
/// (and `work/archive`) folded to one count line.
pub(crate) fn listing(tree: &VaultTree, threshold: usize, prefix: &str) -> String {
    let skip_top = |rel: &str| {
        let top = rel.split('/').next().unwrap_or("");
        top == "thinking" || super::hygiene::MACHINERY_DIRS.contains(&top)
    };
    let has_subdirs = |d: &str| {
        let prefix = format!("{d}/");
        tree.dirs()
            .range(prefix.clone()..)
            .next()
            .is_some_and(|x| x.starts_with(&prefix))
    };
    let md_in = |d: &str| tree.files_in(d).filter(|f| is_md(&f.rel)).count();
    let mut collapsed: Vec<(String, usize)> = Vec::new();
    for d in tree.dirs() {
        if skip_top(d)
            || collapsed
                .iter()
                .any(|(c, _)| d.starts_with(&format!("{c}/")))
        {
            continue;
        }
        if d == "work/archive" {
            let n = tree.files_under(d).filter(|f| is_md(&f.rel)).count();
            collapsed.push((d.clone(), n));
        } else if !has_subdirs(d) && md_in(d) > threshold {
            collapsed.push((d.clone(), md_in(d)));
        }
    }
    let mut lines: Vec<String> = Vec::new();
    for f in tree.files() {
        if skip_top(&f.rel) {
            continue;
        }
        if collapsed.iter().any(|(c, _)| {
            f.rel.starts_with(c.as_str()) && f.rel.as_bytes().get(c.len()) == Some(&b'/')
        }) {
            continue;
        }
        lines.push(format!("{prefix}{}", one_line(&f.rel)));
    }
    for (d, n) in &collapsed {
        lines.push(format!(
            "{prefix}{}/ — {n} notes (listing collapsed — Glob or `mindex search` on demand)",
            one_line(d)
        ));
    }
    lines.sort();
    if lines.is_empty() {
        "(empty vault)".into()
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sec(
        header: &'static str,
        body: &str,
        priority: u8,
        fallback: Option<&'static str>,
    ) -> Section {
        Section {
            header: Some(header),
            body: body.into(),
            priority,
            fallback,
        }
    }

    #[test]
    fn budget_parsing_accepts_only_positive_integers() {
        assert_eq!(parse_budget(Some(&json!(40000))), Some(40000));
        for bad in [
            json!(0),
            json!(-1),
            json!("40000"),
            json!(1.5),
            json!({}),
            Value::Null,
        ] {
            assert_eq!(parse_budget(Some(&bad)), None, "{bad}");
        }
        assert_eq!(parse_budget(None), None);
    }

    #[test]
    fn modes() {
        for s in ["resume", "compact"] {
            assert_eq!(
                InjectionMode::from_source(Some(&json!(s))),
                InjectionMode::Pointer
            );
        }
        for s in [json!("startup"), json!("clear"), Value::Null, json!(42)] {
            assert_eq!(InjectionMode::from_source(Some(&s)), InjectionMode::Full);
        }
        assert_eq!(InjectionMode::from_source(None), InjectionMode::Full);
    }

    #[test]
    fn env_export_quotes_and_refuses_bad_names() {
        assert_eq!(
            format_env_export("MINDEX_VAULT", "/v/it's").unwrap(),
            "export MINDEX_VAULT='/v/it'\\''s'\n"
        );
        assert!(format_env_export("1X", "v").is_none());
        assert!(format_env_export("A-B", "v").is_none());
    }

    #[test]
    fn sizes_count_utf8_and_escaping() {
        assert_eq!(size_of("日本語版"), 12);
        assert_eq!(size_of("a\"b"), 4);
        assert_eq!(size_of("\u{1}"), 6);
    }

    #[test]
    fn degradation_goes_highest_priority_first_and_stops_when_it_fits() {
        let big = "x".repeat(300);
        let secs = vec![
            sec("### A", &big, 20, Some("(a)")),
            sec("### B", &big, 50, Some("(b)")),
            sec("### C", &big, 40, Some("(c)")),
            sec("### D", "keep", 10, None),
        ];
        let out = fit(secs, Some(600));
        assert!(
            out.contains("### B\n(b)") && out.contains("### C\n(c)"),
            "{out}"
        );
        assert!(
            out.contains(&format!("### A\n{big}")),
            "A fits after two collapses"
        );
        assert!(out.ends_with("/ 0.6kB budget — collapsed: B, C_"), "{out}");
        // A section without a fallback never degrades, even under an impossible budget.
        let out = fit(vec![sec("### D", &big, 10, None)], Some(10));
        assert!(out.contains(&big));
        assert!(out.ends_with(" / 0.0kB budget_"), "{out}");
        // No budget and small: the short meter.
        let out = fit(vec![sec("### D", "small", 10, None)], None);
        let meter = out.lines().last().unwrap();
        assert!(
            Regex::new(r"^_context injected: \d+\.\dkB_$")
                .unwrap()
                .is_match(meter),
            "{meter}"
        );
    }

    #[test]
    fn huge_budgets_are_clamped_and_never_degrading_text_is_cut_under_the_cap() {
        let out = fit(vec![sec("### D", "small", 10, None)], Some(5_000_000));
        assert!(
            out.ends_with("/ 9.0kB budget (set 5000.0kB, clamped to the hook output cap)_"),
            "{out}"
        );
        let lines: String = (0..2000).map(|i| format!("- [ ] task {i}\n")).collect();
        let out = fit(vec![sec("### Open Tasks", &lines, 10, None)], None);
        assert!(size_of(&out) < HOOK_CAP_CHARS - 200, "{}", size_of(&out));
        assert!(out.contains(TRUNCATION_MARK));
        let meter = out.lines().last().unwrap();
        assert!(
            meter.ends_with("— truncated to fit the hook output cap_"),
            "{meter}"
        );
    }

    fn tree_of(files: &[&str], dirs: &[&str]) -> VaultTree {
        VaultTree::new(
            files
                .iter()
                .map(|r| TreeFile::new(*r, 1, std::time::SystemTime::UNIX_EPOCH))
                .collect(),
            dirs.iter().map(|d| d.to_string()).collect(),
            "memories",
        )
    }

    #[test]
    fn listing_collapses_big_flat_folders_archive_and_skips_thinking() {
        let people: Vec<String> = (0..13).map(|i| format!("people/P{i:02}.md")).collect();
        let mut files: Vec<&str> = people.iter().map(String::as_str).collect();
        files.extend([
            "work/archive/2025/Old.md",
            "thinking/x.md",
            "Home.md",
            "team/A.MD",
        ]);
        let tree = tree_of(
            &files,
            &[
                "people",
                "work",
                "work/archive",
                "work/archive/2025",
                "thinking",
                "team",
            ],
        );
        let out = listing(&tree, 12, "./");
        assert!(
            out.contains("./people/ — 13 notes (listing collapsed"),
            "{out}"
        );
        assert!(out.contains("./work/archive/ — 1 notes"), "{out}");
        assert!(out.contains("./team/A.MD") && out.contains("./Home.md"));
        assert!(!out.contains("thinking"));
        // 12 notes under threshold 12 stay expanded.
        let tree = tree_of(&files[1..], &["people"]);
        assert!(!listing(&tree, 12, "./").contains("collapsed"));
        assert!(listing(&tree, 2, "./").contains("./people/ — 12 notes"));
        // Outside the vault: vault paths, no `./`.
        let out = listing(&tree, 2, "");
        assert!(out.contains("\npeople/ — 12 notes"), "{out}");
        assert!(out.lines().all(|l| !l.starts_with("./")), "{out}");
    }
}
