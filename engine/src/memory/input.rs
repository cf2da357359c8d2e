//! What a caller asks to remember: `MemoryInput` (also from JSON, with shape errors), size
//! limits, validation into a `Validated` memory (every input error in one pass; scope narrowed,
//! never widened; refusal of memories that reach nobody; confidence capped when a rule flags a
//! claim), and rendering it as the markdown file.

use super::{
    BODY_WARN_CHARS, Confidence, MAX_MEMORY_BODY_BYTES, MAX_MEMORY_FIELD_BYTES, MAX_TITLE_CHARS,
    MEMORY_SOURCE, MIN_BODY_CHARS, Scope, text,
};

use super::text::RuleHit;

/// What a caller asks to remember. Identity is not part of it: the origin always comes from the
/// [`Caller`](crate::Caller).
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
    /// The surface writing it, recorded as `via:` beside `source: mcp-capture` (which marks
    /// every memory capture, whatever wrote it).
    pub via: Option<crate::surface::Surface>,
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
    pub via: Option<&'static str>,
    pub warnings: Vec<String>,
}

pub(super) fn nonblank(s: &Option<String>) -> Option<String> {
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
        via: input.via.map(crate::surface::Surface::as_str),
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
pub(super) fn local_date(secs: i64) -> (i64, u32, u32) {
    let t = crate::time::local_or_utc(secs);
    (i64::from(t.year), t.month, t.day)
}

pub(super) fn json_list(items: &[String]) -> String {
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
    if let Some(via) = v.via {
        line(&mut s, "via", via);
    }
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
