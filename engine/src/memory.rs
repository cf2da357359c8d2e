//! The scoped memory store: memories as markdown files under the vault's memory root, each with
//! a declared reach (general / platform / project lists), a confidence, supersession back-links
//! and near-duplicate refusal.
//!
//! This module holds the pure parts (validation, rendering, reading, visibility, ranking);
//! [`store`] holds the files (exclusive-create writes, the parse cache, supersession edits).

pub(crate) mod promoted;
pub(crate) mod store;
pub(crate) mod text;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;

use crate::identity::Caller;
use text::{FmValue, RuleHit};

/// `source:` stamped on every memory the engine writes.
pub const MEMORY_SOURCE: &str = "mcp-capture";
/// `source:` of a capture filed by hand after the engine refused it.
pub const HAND_FILED_SOURCE: &str = "hand-filed";
/// Similarity at or above which a new memory is refused as a near-duplicate.
pub const DUPLICATE_THRESHOLD: f64 = 0.75;
/// Similarity at or above which two memories are related (computed, not surfaced).
pub const RELATED_THRESHOLD: f64 = 0.35;
/// A memory body needs at least this many characters (after trimming).
pub const MIN_BODY_CHARS: usize = 40;
/// Longest title accepted.
pub const MAX_TITLE_CHARS: usize = 200;
/// Bodies longer than this get a warning (never a refusal).
pub const BODY_WARN_CHARS: usize = 8000;
/// The largest memory body accepted, in UTF-8 bytes (32 KiB): four times the size that already
/// draws a "split it" warning ([`BODY_WARN_CHARS`]), far above any real lesson. Every recall
/// serves the bodies it returns, so one oversized memory (a pasted log, a whole file) would cost
/// every caller; it is refused instead, naming the field, its size and this limit.
pub const MAX_MEMORY_BODY_BYTES: usize = 32 * 1024;
/// The largest value of any other memory field, in UTF-8 bytes (4 KiB): the title, the
/// verification and generality texts, and each list (`projects`, `platforms`, `links`,
/// `supersedes`) counted over all its items.
pub const MAX_MEMORY_FIELD_BYTES: usize = 4 * 1024;
/// Names tried for one memory before giving up (`title.md`, `title (2).md` …).
pub(crate) const CLAIM_ATTEMPTS: usize = 50;
/// Default number of memories `recall` returns.
pub const DEFAULT_RECALL_LIMIT: usize = 20;

/// How far a memory reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every caller, including anonymous ones.
    General,
    /// Callers whose platforms overlap the memory's.
    Platform,
    /// The listed projects only.
    Project,
}

impl Scope {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::General => "general",
            Scope::Platform => "platform",
            Scope::Project => "project",
        }
    }

    /// Parses a scope name (case-insensitive).
    pub fn parse(s: &str) -> Option<Scope> {
        match s.trim().to_ascii_lowercase().as_str() {
            "general" => Some(Scope::General),
            "platform" => Some(Scope::Platform),
            "project" => Some(Scope::Project),
            _ => None,
        }
    }
}

/// How well a memory's claim is established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Checked (say how in `verification`).
    Verified,
    /// Reasoned from evidence, not checked.
    Inferred,
    /// Reported or guessed.
    Unverified,
}

impl Confidence {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Verified => "verified",
            Confidence::Inferred => "inferred",
            Confidence::Unverified => "unverified",
        }
    }

    /// Parses a confidence name (case-insensitive).
    pub fn parse(s: &str) -> Option<Confidence> {
        match s.trim().to_ascii_lowercase().as_str() {
            "verified" => Some(Confidence::Verified),
            "inferred" => Some(Confidence::Inferred),
            "unverified" => Some(Confidence::Unverified),
            _ => None,
        }
    }
}

/// What a caller asks to remember. Identity is not part of it: the origin always comes from the
/// [`Caller`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryInput {
    /// One line naming the lesson (at most 200 characters).
    pub title: String,
    /// The lesson itself (at least 40 characters).
    pub body: String,
    /// `verified`, `inferred` or `unverified` (required).
    pub confidence: String,
    /// How the claim was checked (rendered as "How this is known").
    pub verification: Option<String>,
    /// `general`, `platform` or `project` (default `project`).
    pub scope: Option<String>,
    /// Why a general claim holds everywhere.
    pub generality: Option<String>,
    /// Projects the memory reaches (simple names).
    pub projects: Vec<String>,
    /// Platforms the memory reaches (simple names).
    pub platforms: Vec<String>,
    /// Notes to link under "Related" (unresolvable ones are dropped and reported).
    pub links: Vec<String>,
    /// Exact titles of memories this one corrects; they are kept and back-linked.
    pub supersedes: Vec<String>,
    /// Record even when a near-duplicate exists.
    pub force: bool,
    /// Validate and render, write nothing.
    pub dry_run: bool,
    /// Problems with the shape of the input found by a surface's argument parser (a string
    /// where a list is required, a non-string list entry); reported with the validation errors.
    pub shape_errors: Vec<String>,
}

impl MemoryInput {
    /// Reads the input from JSON arguments (`title`, `body`, `confidence`, `verification`,
    /// `scope`, `generality`, `projects`, `platforms`, `links`, `supersedes`, `force`,
    /// `dry_run`). Wrong shapes become [`MemoryInput::shape_errors`], never a panic.
    pub fn from_json(v: &serde_json::Value) -> MemoryInput {
        use serde_json::Value;
        let mut input = MemoryInput::default();
        let empty = serde_json::Map::new();
        let obj = v.as_object().unwrap_or(&empty);
        let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
        input.title = s("title").unwrap_or_default();
        input.body = s("body").unwrap_or_default();
        input.confidence = s("confidence").unwrap_or_default();
        input.verification = s("verification");
        input.generality = s("generality");
        input.scope = match obj.get("scope") {
            None | Some(Value::Null) => None,
            Some(Value::String(x)) => Some(x.clone()),
            Some(other) => Some(other.to_string()),
        };
        let list = |k: &str, strict: bool, errors: &mut Vec<String>| -> Vec<String> {
            match obj.get(k) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => {
                    let mut out = Vec::new();
                    for it in items {
                        match it {
                            Value::String(x) => out.push(x.clone()),
                            other if strict => errors
                                .push(format!("{k} entries must be simple slugs; got {other}")),
                            _ => {}
                        }
                    }
                    out
                }
                Some(_) if strict => {
                    errors.push(format!(
                        "{k} must be an array (it is the multi-valued axis)"
                    ));
                    Vec::new()
                }
                Some(_) => Vec::new(),
            }
        };
        let mut errors = Vec::new();
        input.projects = list("projects", true, &mut errors);
        input.platforms = list("platforms", true, &mut errors);
        input.links = list("links", false, &mut errors);
        input.supersedes = list("supersedes", false, &mut errors);
        input.force = obj.get("force").and_then(Value::as_bool) == Some(true);
        input.dry_run = obj.get("dry_run").and_then(Value::as_bool) == Some(true);
        input.shape_errors = errors;
        input
    }
}

/// A memory that passed validation, ready to render.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Validated {
    pub title: String,
    pub body: String,
    pub verification: Option<String>,
    pub generality: Option<String>,
    pub scope: Scope,
    pub projects: Vec<String>,
    pub platforms: Vec<String>,
    pub confidence: Confidence,
    pub claimed_confidence: Option<Confidence>,
    pub claimed_scope: Option<Scope>,
    pub flags: Vec<&'static str>,
    pub origin: Option<String>,
    pub warnings: Vec<String>,
}

fn nonblank(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The size errors of a memory input, one per field over its limit ([`MAX_MEMORY_BODY_BYTES`]
/// for the body, [`MAX_MEMORY_FIELD_BYTES`] for every other field), each naming the field, its
/// size and the limit. Checked before anything else reads the input.
pub(crate) fn size_errors(input: &MemoryInput) -> Vec<String> {
    let texts = [
        ("title", input.title.len()),
        ("body", input.body.len()),
        (
            "verification",
            input.verification.as_deref().map_or(0, str::len),
        ),
        (
            "generality",
            input.generality.as_deref().map_or(0, str::len),
        ),
        ("scope", input.scope.as_deref().map_or(0, str::len)),
        ("confidence", input.confidence.len()),
    ];
    let lists = [
        ("projects", &input.projects),
        ("platforms", &input.platforms),
        ("links", &input.links),
        ("supersedes", &input.supersedes),
    ];
    let all = texts.into_iter().chain(
        lists
            .into_iter()
            .map(|(k, l)| (k, l.iter().map(String::len).sum::<usize>())),
    );
    let mut errors = Vec::new();
    for (field, bytes) in all {
        let limit = if field == "body" {
            MAX_MEMORY_BODY_BYTES
        } else {
            MAX_MEMORY_FIELD_BYTES
        };
        if bytes > limit {
            let hint = if field == "body" {
                " A memory is one lesson: state it briefly, or record long material as a note with record_work."
            } else {
                ""
            };
            errors.push(format!(
                "{field} is {bytes} bytes; the limit is {limit} bytes ({} KiB).{hint}",
                limit / 1024
            ));
        }
    }
    errors
}

/// Checks a memory against the contract: every input error is collected in one pass; then the
/// scope is narrowed (never widened), a memory that would reach nobody is refused, and a
/// confidence that a rule flagged is capped.
pub(crate) fn validate(
    input: &MemoryInput,
    origin: Option<&str>,
) -> std::result::Result<Validated, Vec<String>> {
    let mut errors = size_errors(input);
    let mut warnings = Vec::new();
    let title = input.title.trim();
    if title.is_empty() {
        errors.push("title is required".to_string());
    } else if title.chars().count() > MAX_TITLE_CHARS {
        errors.push(format!("title is too long (max {MAX_TITLE_CHARS} chars)"));
    } else if text::slugify(title).is_empty() {
        errors.push(
            "title has no characters usable in a filename (letters or digits are needed)"
                .to_string(),
        );
    }
    let body = input.body.trim();
    let body_chars = body.chars().count();
    if body.is_empty() {
        errors.push("body is required".to_string());
    } else if body_chars < MIN_BODY_CHARS {
        errors.push(format!(
            "body is {body_chars} chars; a memory needs at least {MIN_BODY_CHARS} (state the lesson and why it holds)"
        ));
    }
    let confidence = Confidence::parse(&input.confidence);
    if confidence.is_none() {
        errors.push("confidence must be one of verified | inferred | unverified".to_string());
    }
    let claimed = match input.scope.as_deref() {
        None => Some(Scope::Project),
        Some(s) if s.trim().is_empty() => Some(Scope::Project),
        Some(s) => Scope::parse(s),
    };
    if claimed.is_none() {
        errors.push("scope must be one of general | platform | project".to_string());
    }
    errors.extend(input.shape_errors.iter().cloned());
    for (field, list) in [
        ("projects", &input.projects),
        ("platforms", &input.platforms),
    ] {
        for e in list {
            if !text::is_simple_slug(e) {
                errors.push(format!(
                    "{field} entries must be simple slugs; got {}",
                    text::json_str(e)
                ));
            }
        }
    }
    let rules: Vec<RuleHit> = text::contract_rules(body);
    for r in rules.iter().filter(|r| r.reject) {
        errors.push(r.message.clone());
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let (Some(mut confidence), Some(claimed)) = (confidence, claimed) else {
        return Err(vec!["invalid input".to_string()]);
    };
    let flags: Vec<&'static str> = rules.iter().map(|r| r.marker).collect();
    for r in &rules {
        warnings.push(r.message.clone());
    }
    if body_chars > BODY_WARN_CHARS {
        warnings.push(format!(
            "body is {body_chars} chars. Memories are atomic; consider splitting it into several lessons."
        ));
    }
    let verification = nonblank(&input.verification);
    if confidence == Confidence::Verified && verification.is_none() {
        warnings
            .push("confidence is verified but no verification says how it was checked".to_string());
    }
    // Narrow the scope; never widen it.
    let mut projects: Vec<String> = input
        .projects
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect();
    let platforms: Vec<String> = input
        .platforms
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect();
    let mut scope = claimed;
    let mut claimed_scope = None;
    match claimed {
        Scope::General if !projects.is_empty() => {
            scope = Scope::Project;
            claimed_scope = Some(Scope::General);
        }
        Scope::Project if projects.is_empty() => {
            if let Some(o) = origin {
                projects.push(o.to_string());
            }
        }
        _ => {}
    }
    if scope == Scope::Project && projects.is_empty() {
        return Err(vec![
            "This memory would reach nobody: it is project-scoped, names no projects, and the caller has no identity (no MCP roots or project folder). Name the projects it applies to, or pass scope \"general\" if it holds everywhere.".to_string(),
        ]);
    }
    if scope == Scope::Platform && platforms.is_empty() {
        return Err(vec![
            "This memory would reach nobody: it is platform-scoped but names no platforms. List them in platforms, or pass scope \"general\".".to_string(),
        ]);
    }
    let generality = nonblank(&input.generality);
    if scope == Scope::General && generality.is_none() {
        warnings.push(
            "general scope without a generality: say why this holds for every project".to_string(),
        );
    }
    let mut claimed_confidence = None;
    if !flags.is_empty() && confidence == Confidence::Verified {
        confidence = Confidence::Inferred;
        claimed_confidence = Some(Confidence::Verified);
    }
    Ok(Validated {
        title: title.to_string(),
        body: body.to_string(),
        verification,
        generality,
        scope,
        projects,
        platforms,
        confidence,
        claimed_confidence,
        claimed_scope,
        flags,
        origin: origin.map(str::to_string),
        warnings,
    })
}

/// The moment a memory is written: Unix milliseconds and the local calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Now {
    pub unix_ms: i64,
    pub local: (i64, u32, u32),
}

impl Now {
    pub fn current() -> Now {
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        Now {
            unix_ms,
            local: local_date(unix_ms.div_euclid(1000)),
        }
    }

    /// `YYYY-MM-DD` of the local date.
    pub fn date(&self) -> String {
        let (y, m, d) = self.local;
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// The local calendar date of a Unix time (UTC when the local zone cannot be read).
fn local_date(secs: i64) -> (i64, u32, u32) {
    let t = crate::time::local_or_utc(secs);
    (i64::from(t.year), t.month, t.day)
}

fn json_list(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| text::json_str(s)).collect();
    format!("[{}]", inner.join(", "))
}

/// Renders a validated memory as markdown (frontmatter keys in the contract's order).
pub(crate) fn render(v: &Validated, now: &Now, related: &[String]) -> String {
    let mut s = String::from("---\n");
    let line = |s: &mut String, k: &str, v: &str| {
        s.push_str(k);
        s.push_str(": ");
        s.push_str(v);
        s.push('\n');
    };
    line(&mut s, "date", &now.date());
    line(
        &mut s,
        "description",
        &text::json_str(&text::describe(&v.body)),
    );
    line(&mut s, "tags", "[memory]");
    line(&mut s, "source", MEMORY_SOURCE);
    line(
        &mut s,
        "origin",
        &text::json_str(v.origin.as_deref().unwrap_or("unknown")),
    );
    line(
        &mut s,
        "session",
        &text::json_str(&crate::time::iso_utc(now.unix_ms)),
    );
    line(&mut s, "scope", v.scope.as_str());
    line(&mut s, "projects", &json_list(&v.projects));
    if !v.platforms.is_empty() {
        line(&mut s, "platforms", &json_list(&v.platforms));
    }
    if text::slugify(&v.title) != v.title {
        line(
            &mut s,
            "aliases",
            &json_list(std::slice::from_ref(&v.title)),
        );
    }
    line(&mut s, "confidence", v.confidence.as_str());
    if let Some(c) = v.claimed_confidence {
        line(&mut s, "claimed_confidence", c.as_str());
    }
    if !v.flags.is_empty() {
        let flags: Vec<String> = v.flags.iter().map(|f| f.to_string()).collect();
        line(&mut s, "flags", &json_list(&flags));
    }
    if let Some(c) = v.claimed_scope {
        line(&mut s, "claimed_scope", c.as_str());
    }
    s.push_str("---\n\n# ");
    s.push_str(&v.title.replace(['\n', '\r'], " "));
    s.push_str("\n\n");
    s.push_str(&v.body);
    s.push('\n');
    if let Some(x) = &v.verification {
        s.push_str("\n## How this is known\n\n");
        s.push_str(x);
        s.push('\n');
    }
    if let Some(x) = &v.generality {
        s.push_str("\n## Why this reaches everywhere\n\n");
        s.push_str(x);
        s.push('\n');
    }
    if !related.is_empty() {
        s.push_str("\n## Related\n\n");
        for r in related {
            s.push_str("- [[");
            s.push_str(r);
            s.push_str("]]\n");
        }
    }
    s
}

/// A memory as read from disk, with the reader-side defaults applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Memory {
    /// Vault-relative path.
    pub path: String,
    /// The first `# ` heading.
    pub title: Option<String>,
    /// The text after the frontmatter and the title line.
    pub body: String,
    /// Frontmatter `description`.
    pub description: Option<String>,
    /// `mcp-capture` (engine-written), `hand-filed`, or anything else (not a memory).
    pub source: Option<String>,
    /// The project that wrote it.
    pub origin: Option<String>,
    /// Local date written (`YYYY-MM-DD`).
    pub date: Option<String>,
    /// UTC timestamp written.
    pub session: Option<String>,
    /// Declared scope, lowercased (`project` when absent).
    pub scope: String,
    /// Projects reached.
    pub projects: Vec<String>,
    /// Platforms reached.
    pub platforms: Vec<String>,
    /// `verified`, `inferred` or `unverified` (`unverified` when absent).
    pub confidence: String,
    /// The confidence claimed before a rule capped it.
    pub claimed_confidence: Option<String>,
    /// The scope claimed before it was narrowed.
    pub claimed_scope: Option<String>,
    /// Rule markers (`generalised`, `volatile`).
    pub flags: Vec<String>,
    /// Titles of the memories that correct this one.
    pub superseded_by: Vec<String>,
    /// Where the lesson was promoted to in the vault's notes (`note#^id` or `note#Heading`).
    pub promoted: Option<String>,
}

impl Memory {
    /// Parses a memory file (any markdown file parses; non-memories have another `source`).
    pub(crate) fn parse(rel: &str, md: &str) -> Memory {
        let fm = text::parse_frontmatter(md);
        let scalar = |k: &str| match fm.get(k) {
            Some(FmValue::Scalar(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        let list = |k: &str| match fm.get(k) {
            Some(FmValue::List(v)) => v.iter().filter(|s| !s.is_empty()).cloned().collect(),
            Some(FmValue::Scalar(s)) if !s.is_empty() => vec![s.clone()],
            _ => Vec::new(),
        };
        let (title, body) = text::memory_title_body(md);
        Memory {
            path: rel.to_string(),
            title,
            body,
            description: scalar("description"),
            source: scalar("source"),
            origin: scalar("origin"),
            date: scalar("date"),
            session: scalar("session"),
            scope: scalar("scope")
                .map(|s| s.to_lowercase())
                .unwrap_or_else(|| "project".to_string()),
            projects: list("projects"),
            platforms: list("platforms"),
            confidence: scalar("confidence")
                .map(|s| s.to_lowercase())
                .unwrap_or_else(|| "unverified".to_string()),
            claimed_confidence: scalar("claimed_confidence"),
            claimed_scope: scalar("claimed_scope"),
            flags: list("flags"),
            superseded_by: list("superseded_by"),
            promoted: scalar("promoted"),
        }
    }

    /// Whether this is an agent memory (`source` is `mcp-capture` or `hand-filed`).
    pub fn is_agent(&self) -> bool {
        matches!(
            self.source.as_deref(),
            Some(MEMORY_SOURCE) | Some(HAND_FILED_SOURCE)
        )
    }

    /// Whether another memory corrects this one.
    pub fn is_superseded(&self) -> bool {
        !self.superseded_by.is_empty()
    }

    fn lists(&self, list: &[String], name: &str) -> bool {
        list.iter().any(|p| p.eq_ignore_ascii_case(name))
    }

    /// Whether `caller` may see this memory (ignoring supersession).
    pub fn visible_to(&self, caller: &Caller) -> bool {
        if self.scope == "general" {
            return true;
        }
        if let Some(p) = &caller.project
            && self.lists(&self.projects, p)
        {
            return true;
        }
        self.scope == "platform"
            && caller
                .platforms
                .iter()
                .any(|p| self.lists(&self.platforms, p))
    }

    /// Why `caller` sees (or does not see) this memory, ignoring supersession.
    pub fn visibility_reason(&self, caller: &Caller) -> String {
        if self.scope == "general" {
            return "general scope reaches every caller".to_string();
        }
        if let Some(p) = &caller.project
            && self.lists(&self.projects, p)
        {
            return format!("explicitly lists project \"{p}\"");
        }
        if self.scope == "platform" {
            let shared: Vec<&str> = caller
                .platforms
                .iter()
                .filter(|p| self.lists(&self.platforms, p))
                .map(String::as_str)
                .collect();
            if !shared.is_empty() {
                return format!(
                    "platform scope overlaps caller platforms [{}]",
                    shared.join(", ")
                );
            }
        }
        match &caller.project {
            None => "caller has no identity; only general memories are visible".to_string(),
            Some(p) => format!(
                "no facet matches caller (project=\"{p}\", platforms=[{}])",
                caller.platforms.join(", ")
            ),
        }
    }

    /// How specifically this memory targets `caller` (higher ranks first).
    pub(crate) fn specificity(&self, caller: &Caller) -> u32 {
        if let Some(p) = &caller.project
            && self.lists(&self.projects, p)
        {
            return 100 - (self.projects.len().min(20) as u32);
        }
        match self.scope.as_str() {
            "platform" => 50,
            "general" => 10,
            _ => 0,
        }
    }

    /// Whether two memories can be near-duplicates of each other (they share a reach).
    pub(crate) fn shares_facet(&self, other: &Memory) -> bool {
        if self.scope == "general" || other.scope == "general" {
            return true;
        }
        if self
            .projects
            .iter()
            .any(|p| other.lists(&other.projects, p))
        {
            return true;
        }
        self.scope == "platform"
            && other.scope == "platform"
            && self
                .platforms
                .iter()
                .any(|p| other.lists(&other.platforms, p))
    }
}

/// Ranks visible memories: live before superseded, then by specificity, newest date, newest
/// write. The sort is stable.
pub(crate) fn rank(entries: &mut [(Arc<Memory>, u32)]) {
    entries.sort_by(|(a, sa), (b, sb)| {
        a.is_superseded()
            .cmp(&b.is_superseded())
            .then(sb.cmp(sa))
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| b.session.cmp(&a.session))
    });
}

/// The supersession prefix of an explain reason (never used for a scope exclusion).
pub const SUPERSEDED_REASON: &str = "superseded by a memory this caller cannot see";

/// Result of [`recall_from`]: the served memories (ranked) and the withheld ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recalled {
    /// Served memories with why they are visible, ranked.
    pub visible: Vec<(Arc<Memory>, String)>,
    /// Withheld memories with why.
    pub withheld: Vec<(Arc<Memory>, String)>,
}

/// Applies visibility and the supersession fixpoint to the agent memories among `entries`, then
/// ranks what is served. Withheld memories carry their reason only with `explain` (otherwise the
/// reason is empty).
pub(crate) fn recall_from(entries: &[Arc<Memory>], caller: &Caller, explain: bool) -> Recalled {
    let corpus: Vec<&Arc<Memory>> = entries.iter().filter(|m| m.is_agent()).collect();
    // Resolve every superseded_by claim once, by exact case-insensitive title. Only claimed
    // titles are looked up, so a store without supersession pays nothing here.
    let claimed: HashSet<String> = corpus
        .iter()
        .flat_map(|m| m.superseded_by.iter().map(|t| t.trim().to_lowercase()))
        .collect();
    let mut by_title: HashMap<String, usize> = HashMap::new();
    if !claimed.is_empty() {
        for (i, m) in corpus.iter().enumerate() {
            if let Some(t) = &m.title {
                let t = t.trim().to_lowercase();
                if claimed.contains(&t) {
                    by_title.entry(t).or_insert(i);
                }
            }
        }
    }
    let replacements: Vec<Vec<usize>> = corpus
        .iter()
        .map(|m| {
            let mut r: Vec<usize> = m
                .superseded_by
                .iter()
                .filter_map(|t| by_title.get(&t.trim().to_lowercase()).copied())
                .collect();
            r.sort_unstable();
            r.dedup();
            r
        })
        .collect();
    let visible: Vec<bool> = corpus.iter().map(|m| m.visible_to(caller)).collect();
    let mut served = visible.clone();
    // Greatest fixpoint by worklist: an entry with resolved replacements stays served only while
    // at least one of them is served.
    let mut live_count: Vec<usize> = replacements
        .iter()
        .map(|r| r.iter().filter(|&&j| served[j]).count())
        .collect();
    let mut replaced_by_me: Vec<Vec<usize>> = vec![Vec::new(); corpus.len()];
    for (i, r) in replacements.iter().enumerate() {
        for &j in r {
            replaced_by_me[j].push(i);
        }
    }
    let mut work: Vec<usize> = (0..corpus.len())
        .filter(|&i| served[i] && !replacements[i].is_empty() && live_count[i] == 0)
        .collect();
    while let Some(i) = work.pop() {
        if !served[i] {
            continue;
        }
        served[i] = false;
        for &k in &replaced_by_me[i] {
            live_count[k] -= 1;
            if served[k] && live_count[k] == 0 {
                work.push(k);
            }
        }
    }
    let mut shown: Vec<(Arc<Memory>, u32)> = Vec::new();
    let mut withheld = Vec::new();
    for (i, m) in corpus.iter().enumerate() {
        if served[i] {
            shown.push(((*m).clone(), m.specificity(caller)));
        } else if !explain {
            withheld.push(((*m).clone(), String::new()));
        } else if !visible[i] {
            withheld.push(((*m).clone(), m.visibility_reason(caller)));
        } else {
            // The corrections are, by construction, memories this caller cannot see: their
            // titles are not named, only counted.
            let n = replacements[i].len();
            let why = match n {
                0 | 1 => SUPERSEDED_REASON.to_string(),
                n => format!("{SUPERSEDED_REASON} ({n} corrections)"),
            };
            withheld.push(((*m).clone(), why));
        }
    }
    rank(&mut shown);
    Recalled {
        visible: shown
            .into_iter()
            .map(|(m, _)| {
                let why = m.visibility_reason(caller);
                (m, why)
            })
            .collect(),
        withheld,
    }
}

/// Reorders `visible` by `placed` (paths in retrieval order): placed entries first in that
/// order, then every other entry in its ranked order; finally live before superseded, keeping
/// the order within each group. Nothing is dropped.
pub(crate) fn reorder(
    visible: Vec<(Arc<Memory>, String)>,
    placed: &[String],
) -> Vec<(Arc<Memory>, String)> {
    let pos: HashMap<&str, usize> = placed
        .iter()
        .enumerate()
        .rev()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let mut v: Vec<(usize, (Arc<Memory>, String))> = visible.into_iter().enumerate().collect();
    v.sort_by_key(|(i, (m, _))| match pos.get(m.path.as_str()) {
        Some(p) => (0, *p),
        None => (1, *i),
    });
    let (live, old): (Vec<_>, Vec<_>) = v
        .into_iter()
        .map(|(_, e)| e)
        .partition(|(m, _)| !m.is_superseded());
    live.into_iter().chain(old).collect()
}

/// Near-duplicates of `candidate` among `existing`, best first, as (index, score).
pub(crate) fn find_duplicates(
    candidate: &Memory,
    digest: &text::Digest,
    existing: &[(Arc<Memory>, Arc<text::Digest>)],
) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = existing
        .iter()
        .enumerate()
        .filter(|(_, (m, _))| m.is_agent() && candidate.shares_facet(m))
        .map(|(i, (_, d))| (i, text::similarity(digest, d)))
        .filter(|&(_, s)| s >= DUPLICATE_THRESHOLD)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// Titles (lowercased) present in `entries`, for supersession matching.
pub(crate) fn resolve_supersedes(
    claims: &[String],
    entries: &[Arc<Memory>],
) -> (Vec<Arc<Memory>>, Vec<String>) {
    let mut matched: Vec<Arc<Memory>> = Vec::new();
    let mut unmatched = Vec::new();
    let mut seen = HashSet::new();
    for c in claims {
        let want = c.trim().to_lowercase();
        if want.is_empty() {
            continue;
        }
        match entries.iter().find(|m| {
            m.is_agent()
                && m.title
                    .as_deref()
                    .is_some_and(|t| t.trim().to_lowercase() == want)
        }) {
            Some(m) => {
                if seen.insert(m.path.clone()) {
                    matched.push(m.clone());
                }
            }
            None => unmatched.push(c.trim().to_string()),
        }
    }
    (matched, unmatched)
}

#[cfg(test)]
mod tests;
