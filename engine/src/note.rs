//! Parsing one Obsidian-style markdown note: frontmatter, title, aliases, tags, headings,
//! wikilinks and body text.
//!
//! Parsing never fails: whatever is wrong with a note (malformed or unterminated frontmatter,
//! a frontmatter that is not a mapping) becomes a warning, and the note is still indexed with
//! what could be read.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::markdown::blocks::{Fences, heading};

/// Default limit on the size of one note; larger files are skipped with a warning.
pub const DEFAULT_MAX_NOTE_BYTES: u64 = 4 * 1024 * 1024;

/// A heading inside a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heading {
    /// 1 for `#`, up to 6.
    pub level: u8,
    /// The heading text, without the leading hashes.
    pub text: String,
    /// 1-based line number in the file.
    pub line: usize,
}

/// A wikilink or embed found in a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The linked note's name or path as written (`Note`, `folder/Note`).
    pub target: String,
    /// The heading or block part after `#`, if any.
    pub heading: Option<String>,
    /// The display alias after `|`, if any.
    pub alias: Option<String>,
    /// `true` for `![[embed]]`.
    pub embed: bool,
    /// 1-based line number in the file.
    pub line: usize,
}

/// A parsed note.
#[derive(Debug, Clone, Serialize)]
pub struct Note {
    /// Vault-relative path with `/` separators, e.g. `work/active/Project X.md`.
    pub path: String,
    /// Frontmatter `title` (not on a note tagged `person`, where it is a job title), else the
    /// first H1, else the file stem.
    pub title: String,
    /// Frontmatter `aliases` (or `alias`).
    pub aliases: Vec<String>,
    /// Tags from frontmatter and inline `#tags`, lowercased, without `#`, deduplicated in order.
    pub tags: Vec<String>,
    /// Every heading outside code blocks.
    pub headings: Vec<Heading>,
    /// Every wikilink and embed outside code blocks.
    pub links: Vec<Link>,
    /// The frontmatter as JSON (an empty map when absent or unreadable).
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// The note text after the frontmatter block.
    pub body: String,
    /// 1-based file line number of the first line of `body`.
    pub body_start_line: usize,
    /// Whether agents may not be served this text (`markdown::text_withheld`: marked
    /// private, an agent memory, or a frontmatter that does not close or parse). The index
    /// keeps the verdict, so a snapshot taken while a note was withheld never reaches an agent,
    /// even after the file has changed and before it is indexed again.
    pub withheld: bool,
}

/// Outcome of [`parse_note`]: the note plus anything worth warning about.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The note.
    pub note: Note,
    /// Human-readable problems found while parsing (the note is still usable).
    pub warnings: Vec<String>,
}

/// A wikilink or embed: 1 `!` (embed), 2 target, 3 heading, 4 display text.
pub(crate) static WIKILINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(!?)\[\[([^\[\]\|#\n]*)(?:#([^\[\]\|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
        .expect("static regex")
});
static INLINE_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|[\s(,;])#([\p{L}\p{N}_/\-]+)").expect("static regex"));
static INLINE_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`[^`\n]*`").expect("static regex"));

/// Tags in first-seen order, deduplicated through a set (a note of 100,000 tags must cost
/// linear time, not a scan of the list per tag).
#[derive(Default)]
struct Tags {
    order: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl Tags {
    fn push(&mut self, raw: &str) {
        let t = raw
            .trim()
            .trim_start_matches('#')
            .trim_end_matches('/')
            .to_lowercase();
        if t.is_empty() || t.chars().all(|c| c.is_ascii_digit()) {
            return;
        }
        if !self.seen.contains(&t) {
            self.seen.insert(t.clone());
            self.order.push(t);
        }
    }
}

pub use crate::markdown::is_markdown_name;

/// The stem of a vault-relative path: `a/b/Note.md` → `Note`.
pub fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

/// Calls `f(line_no, line, in_code)` for every body line; `line_no` is the 1-based file line.
pub(crate) fn for_each_line<'a>(
    body: &'a str,
    first_line: usize,
    mut f: impl FnMut(usize, &'a str, bool),
) {
    let mut fences = Fences::default();
    for (i, line) in body.lines().enumerate() {
        f(first_line + i, line, fences.is_code(line));
    }
}

/// Parses a note's text. `path` is its vault-relative path (used for the fallback title).
pub fn parse_note(path: &str, text: &str) -> Parsed {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut warnings = Vec::new();
    let (yaml, body, body_start_line) = match crate::markdown::frontmatter::block(text) {
        Some(b) if b.closed => (Some(b.yaml), &text[b.body_offset..], b.body_start_line),
        Some(_) => {
            warnings.push(
                "frontmatter opens on line 1 but never closes; the whole file is indexed as body, and agents are not served this note until it closes"
                    .to_string(),
            );
            (None, text, 1)
        }
        None => (None, text, 1),
    };
    let frontmatter = match yaml.map(crate::markdown::frontmatter::parse) {
        None => serde_json::Map::new(),
        Some(Ok(map)) => map,
        Some(Err(e)) => {
            warnings.push(format!(
                "malformed frontmatter ignored: {e}; agents are not served this note until it parses"
            ));
            serde_json::Map::new()
        }
    };

    let mut tags = Tags::default();
    for t in crate::markdown::frontmatter::string_list(
        frontmatter.get("tags").or_else(|| frontmatter.get("tag")),
        true,
    ) {
        tags.push(&t);
    }
    let aliases = crate::markdown::frontmatter::string_list(
        frontmatter
            .get("aliases")
            .or_else(|| frontmatter.get("alias")),
        false,
    );

    let mut headings = Vec::new();
    let mut links = Vec::new();
    for_each_line(body, body_start_line, |line_no, line, in_code| {
        if in_code {
            return;
        }
        if let Some((level, text)) = heading(line) {
            headings.push(Heading {
                level,
                text,
                line: line_no,
            });
        }
        let without_code = INLINE_CODE.replace_all(line, " ");
        for caps in WIKILINK.captures_iter(&without_code) {
            let target = caps.get(2).map_or("", |m| m.as_str()).trim().to_string();
            let heading = caps
                .get(3)
                .map(|m| m.as_str().trim().to_string())
                .filter(|s| !s.is_empty());
            if target.is_empty() && heading.is_none() {
                continue;
            }
            links.push(Link {
                target,
                heading,
                alias: caps
                    .get(4)
                    .map(|m| m.as_str().trim().to_string())
                    .filter(|s| !s.is_empty()),
                embed: caps.get(1).is_some_and(|m| !m.as_str().is_empty()),
                line: line_no,
            });
        }
        // Headings start with `#` but are not tags; `INLINE_TAG` needs a non-space after `#`.
        for caps in INLINE_TAG.captures_iter(&without_code) {
            if let Some(m) = caps.get(1) {
                tags.push(m.as_str());
            }
        }
    });

    let tags = tags.order;
    // A person note's `title` is a job title (the manifest's person fields): the name is the
    // note's own heading or file name.
    let person = tags.iter().any(|t| t == "person" || t == "people");
    let title = frontmatter
        .get("title")
        .filter(|_| !person)
        .and_then(|v| v.as_str())
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .or_else(|| {
            headings
                .iter()
                .find(|h| h.level == 1)
                .map(|h| h.text.clone())
        })
        .unwrap_or_else(|| file_stem(path).to_string());

    Parsed {
        note: Note {
            path: path.to_string(),
            title,
            aliases,
            tags,
            headings,
            links,
            frontmatter,
            withheld: crate::markdown::text_withheld(text),
            body: body.to_string(),
            body_start_line,
        },
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_title_aliases_tags() {
        let text = "---\ntitle: Real Title\naliases: [Alt One, \"Alt Two\"]\ntags: [brain, Work/Active]\n---\n# Heading One\nBody with #inline-tag and #123 and a [[Target Note#Section|shown]] link.\n";
        let p = parse_note("dir/File Name.md", text);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let n = p.note;
        assert_eq!(n.title, "Real Title");
        assert_eq!(n.aliases, vec!["Alt One", "Alt Two"]);
        assert_eq!(n.tags, vec!["brain", "work/active", "inline-tag"]);
        assert_eq!(n.body_start_line, 6);
        assert_eq!(
            n.headings,
            vec![Heading {
                level: 1,
                text: "Heading One".into(),
                line: 6
            }]
        );
        assert_eq!(
            n.links,
            vec![Link {
                target: "Target Note".into(),
                heading: Some("Section".into()),
                alias: Some("shown".into()),
                embed: false,
                line: 7
            }]
        );
    }

    #[test]
    fn a_persons_title_field_is_a_job_title_not_the_name() {
        let text =
            "---\ndate: 2026-01-10\ntitle: Staff Engineer\ntags: [person]\n---\nOwns the ledger.\n";
        assert_eq!(
            parse_note("org/people/Alice Chen.md", text).note.title,
            "Alice Chen"
        );
        let with_h1 = text.replace("Owns", "# Alice B. Chen\nOwns");
        assert_eq!(
            parse_note("org/people/Alice Chen.md", &with_h1).note.title,
            "Alice B. Chen"
        );
        let other = text.replace("[person]", "[work-note]");
        assert_eq!(
            parse_note("x/Alice Chen.md", &other).note.title,
            "Staff Engineer"
        );
    }

    #[test]
    fn title_falls_back_to_h1_then_stem() {
        assert_eq!(
            parse_note("a/B.md", "intro\n# The H1\n## Sub\n").note.title,
            "The H1"
        );
        assert_eq!(
            parse_note("a/Stem Name.md", "## only h2\ntext").note.title,
            "Stem Name"
        );
    }

    #[test]
    fn wikilink_forms() {
        let n = parse_note(
            "x.md",
            "[[Note]] [[Note#Heading]] [[Note|alias]] ![[embed.png]] [[#Local]]",
        )
        .note;
        let got: Vec<(String, Option<String>, Option<String>, bool)> = n
            .links
            .into_iter()
            .map(|l| (l.target, l.heading, l.alias, l.embed))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Note".into(), None, None, false),
                ("Note".into(), Some("Heading".into()), None, false),
                ("Note".into(), None, Some("alias".into()), false),
                ("embed.png".into(), None, None, true),
                ("".into(), Some("Local".into()), None, false),
            ]
        );
    }

    #[test]
    fn code_blocks_hide_headings_links_and_tags() {
        let text = "# Real\n```\n# not a heading\n[[not a link]] #nottag\n```\nafter `[[inline code]]` #yes\n";
        let n = parse_note("x.md", text).note;
        assert_eq!(n.headings.len(), 1);
        assert!(n.links.is_empty());
        assert_eq!(n.tags, vec!["yes"]);
    }

    #[test]
    fn unterminated_frontmatter_is_body_with_warning() {
        let p = parse_note("x.md", "---\ntitle: x\nno closing\n# Head\n");
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("never closes"));
        assert_eq!(p.note.title, "Head");
        assert!(p.note.body.starts_with("---"));
        assert_eq!(p.note.body_start_line, 1);
    }

    #[test]
    fn malformed_frontmatter_is_ignored_with_warning() {
        let p = parse_note("x.md", "---\ntitle: [unclosed\n---\nbody line\n");
        assert_eq!(p.warnings.len(), 1);
        assert!(
            p.warnings[0].contains("malformed frontmatter"),
            "{:?}",
            p.warnings
        );
        assert_eq!(p.note.body, "body line\n");
        assert_eq!(p.note.body_start_line, 4);
        assert_eq!(p.note.title, "x");
    }

    #[test]
    fn scalar_frontmatter_is_rejected_with_warning() {
        let p = parse_note("x.md", "---\njust a string\n---\nbody\n");
        assert_eq!(p.warnings.len(), 1);
        assert!(p.note.frontmatter.is_empty());
    }

    #[test]
    fn tags_as_string_and_bom() {
        let n = parse_note("x.md", "\u{feff}---\ntags: one, two three\n---\n").note;
        assert_eq!(n.tags, vec!["one", "two", "three"]);
    }

    #[test]
    fn empty_frontmatter_and_empty_note() {
        let n = parse_note("x.md", "---\n---\n").note;
        assert!(n.frontmatter.is_empty());
        assert_eq!(n.body, "");
        let n = parse_note("y.md", "").note;
        assert_eq!(n.title, "y");
    }

    #[test]
    fn horizontal_rule_in_body_is_not_frontmatter() {
        let n = parse_note("x.md", "text\n---\nmore\n").note;
        assert!(n.frontmatter.is_empty());
        assert_eq!(n.body_start_line, 1);
    }
}
