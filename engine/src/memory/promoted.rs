//! Promoted markers: a memory's `promoted: "<note>[#^id | #Heading]"` points at the vault note
//! its lesson was copied into, and recall serves that note's text instead of the capture body.
//!
//! This module parses markers, finds the block or section a marker names (through the one
//! markdown block reader, [`crate::markdown::blocks`]), serves a block or a section
//! under the line and character caps, and resolves a marker against the exposure policy with a
//! per-call cache of note contents keyed on the note's resolved path.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::exposure::{Denied, Exposure};
use crate::markdown::blocks::{Mark, Segments, body_lines, normalise, segment};
pub use crate::markdown::marker::AnchorKind;
use crate::markdown::marker::{Marker, parse_marker};

/// Most lines served from one block or section (after trimming blank edges).
pub(crate) const SERVE_MAX_LINES: usize = 40;
/// Most characters served from one block or section; longer text is cut and ends with `…`.
pub(crate) const SERVE_MAX_CHARS: usize = 8000;

/// Text served for an anchor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Served {
    /// The block's or section's lines, joined with `\n`.
    pub text: String,
    /// Whether the line or the character cap cut the text.
    pub truncated: bool,
}

/// Outcome of resolving one memory's `promoted:` marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Promotion {
    /// A bare marker naming a note without an anchor: named, never served.
    NoAnchor {
        /// The note named (vault-relative, ending in `.md`).
        note: String,
    },
    /// The exposure policy refuses the note: outside the exposed roots, traversal, an absolute
    /// path, the memory root, a never-exposed name, a private note or a symlink escape. Agents
    /// (recall, their health) are also told this of a missing or unreadable note
    /// (`Promotion::seen_by_agent`).
    NotExposed {
        /// The note named (vault-relative, ending in `.md`).
        note: String,
    },
    /// The note lies inside an exposed root but is missing, a directory or could not be read.
    Unreadable {
        /// The note named (vault-relative, ending in `.md`).
        note: String,
    },
    /// The note was read but the block id or heading no longer resolves in it.
    StaleAnchor {
        /// The note named (vault-relative, ending in `.md`).
        note: String,
        /// Whether the anchor was a block id or a heading.
        kind: AnchorKind,
        /// The block id (without `^`) or the heading text, as written in the marker.
        anchor: String,
    },
    /// The anchored text was served.
    Served {
        /// The note named (vault-relative, ending in `.md`).
        note: String,
        /// Whether the anchor was a block id or a heading.
        kind: AnchorKind,
        /// The block id (without `^`) or the heading text, as written in the marker.
        anchor: String,
        /// The served lines, id tokens removed, within the 40-line and 8000-character caps.
        text: String,
        /// Whether a cap cut the text.
        truncated: bool,
    },
    /// A marker was present but did not parse (empty, no note, or a control character).
    Unparsed {
        /// The marker as written.
        raw: String,
    },
}

impl Promotion {
    /// The outcome as an agent is told it: a note it may not read and a note that is missing
    /// (or unreadable) get one answer, [`Promotion::NotExposed`], so a marker cannot be used
    /// to tell whether a hidden note exists.
    pub(crate) fn seen_by_agent(self) -> Promotion {
        match self {
            Promotion::Unreadable { note } => Promotion::NotExposed { note },
            other => other,
        }
    }

    /// Whether the promoted text was served.
    pub fn is_served(&self) -> bool {
        matches!(self, Promotion::Served { .. })
    }

    /// Whether the marker points nowhere servable: a stale anchor, a refused or unreadable
    /// note, or a marker that did not parse. A bare marker is not broken.
    pub fn is_broken(&self) -> bool {
        matches!(
            self,
            Promotion::StaleAnchor { .. }
                | Promotion::NotExposed { .. }
                | Promotion::Unreadable { .. }
                | Promotion::Unparsed { .. }
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Serving
// ---------------------------------------------------------------------------------------------

/// The served lines of `range`: id tokens removed, alone-id lines dropped.
fn served_lines<'l, S: AsRef<str>>(
    lines: &'l [S],
    seg: &Segments,
    range: Range<usize>,
) -> Vec<&'l str> {
    range
        .filter_map(|i| {
            let line = lines[i].as_ref();
            match seg.marks[i] {
                Mark::Plain => Some(line),
                Mark::Cut(cut) => Some(&line[..cut]),
                Mark::Alone => None,
            }
        })
        .collect()
}

fn trim_blank_edges(mut lines: &[&str]) -> Vec<String> {
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines = &lines[1..];
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines = &lines[..lines.len() - 1];
    }
    lines.iter().map(|l| (*l).to_owned()).collect()
}

/// Applies the caps: blank edges trimmed, at most [`SERVE_MAX_LINES`] lines (the last ones when
/// `from_tail`), then at most [`SERVE_MAX_CHARS`] characters followed by `…`.
fn capped(lines: &[&str], from_tail: bool) -> Served {
    let mut kept = trim_blank_edges(lines);
    let mut truncated = false;
    if kept.len() > SERVE_MAX_LINES {
        truncated = true;
        kept = if from_tail {
            kept.split_off(kept.len() - SERVE_MAX_LINES)
        } else {
            kept.truncate(SERVE_MAX_LINES);
            kept
        };
        let refs: Vec<&str> = kept.iter().map(String::as_str).collect();
        kept = trim_blank_edges(&refs);
    }
    let mut text = kept.join("\n");
    if let Some((cut, _)) = text.char_indices().nth(SERVE_MAX_CHARS) {
        text.truncate(cut);
        text.push('…');
        truncated = true;
    }
    Served { text, truncated }
}

fn block_in<S: AsRef<str>>(lines: &[S], id: &str) -> Option<Served> {
    let seg = segment(lines);
    let &(block, at_end) = seg.ids.get(id)?;
    let range = seg.blocks[block].clone();
    Some(capped(&served_lines(lines, &seg, range), at_end))
}

fn section_in<S: AsRef<str>>(lines: &[S], heading: &str) -> Option<Served> {
    let key = normalise(heading);
    if key.is_empty() {
        return None;
    }
    let seg = segment(lines);
    let at = seg
        .headings
        .iter()
        .position(|h| h.level >= 2 && h.key == key)?;
    let found = &seg.headings[at];
    let end = seg.headings[at + 1..]
        .iter()
        .find(|h| h.level <= found.level)
        .map_or(lines.len(), |h| h.line);
    Some(capped(&served_lines(lines, &seg, found.line..end), false))
}

/// The block carrying `^id` in a note (the whole file; BOM and frontmatter are skipped).
///
/// The first occurrence of the id wins, whether it trails a line or stands alone below the
/// block. Ids inside fences and frontmatter do not count, and the id is looked up literally.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the resolver serves through the line-based helpers; tests use these"
    )
)]
pub(crate) fn serve_block(note_text: &str, id: &str) -> Option<Served> {
    block_in(&body_lines(note_text), id)
}

/// The section under the first heading of level 2 or deeper whose normalised text equals
/// `heading`'s, up to the next heading of the same or a higher level (deeper ones included).
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "the resolver serves through the line-based helpers; tests use these"
    )
)]
pub(crate) fn serve_section(note_text: &str, heading: &str) -> Option<Served> {
    section_in(&body_lines(note_text), heading)
}

// ---------------------------------------------------------------------------------------------
// Resolution
// ---------------------------------------------------------------------------------------------

/// The note path inside the vault, reading `\` as `/` and dropping empty and `.` segments.
fn note_path(vault: &Path, note: &str) -> PathBuf {
    note.split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .fold(vault.to_path_buf(), |p, s| p.join(s))
}

/// The broken promotions and the tallies health reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PromotionAudit {
    /// Captures whose promoted text is served.
    pub served: Vec<String>,
    /// Captures with a bare marker (no anchor).
    pub named_only: Vec<String>,
    /// Captures whose marker was present but did not parse.
    pub unparsed: Vec<String>,
    /// Captures whose promotion is stale, not exposed or unreadable, with the outcome.
    pub broken: Vec<(String, Promotion)>,
}

/// Resolves markers against the exposure policy, reading each note at most once per call.
#[derive(Debug)]
pub(crate) struct Resolver<'a> {
    exposure: &'a Exposure,
    /// Body lines of each note read, keyed on its vault-relative path; why not, when the
    /// policy refused it or the read failed.
    cache: HashMap<String, Result<Vec<String>, Denied>>,
    /// Notes read from disk.
    reads: usize,
}

impl<'a> Resolver<'a> {
    /// A resolver with an empty cache.
    pub(crate) fn new(exposure: &'a Exposure) -> Self {
        Resolver {
            exposure,
            cache: HashMap::new(),
            reads: 0,
        }
    }

    /// How many notes were read from disk.
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "the resolver serves through the line-based helpers; tests use these"
        )
    )]
    pub(crate) fn reads(&self) -> usize {
        self.reads
    }

    /// Resolves one raw `promoted:` value.
    pub(crate) fn resolve(&mut self, raw: &str) -> Promotion {
        let Some(Marker { note, kind, anchor }) = parse_marker(raw) else {
            return Promotion::Unparsed {
                raw: raw.to_owned(),
            };
        };
        let Some(anchor) = anchor else {
            return Promotion::NoAnchor { note };
        };
        // Traversal, absolute paths and paths outside every root are refused before anything
        // on disk is looked at, so the answer never depends on what exists there.
        let Some(root) = self.exposure.matched_root(&note) else {
            return Promotion::NotExposed { note };
        };
        // The note is checked, opened once and read from that one open file (a file swapped
        // in between is refused), at most as much as the index would read of it.
        // One read per note however the marker spells its path (`\`, `./`).
        let key: String = note
            .split(['/', '\\'])
            .filter(|s| !s.is_empty() && *s != ".")
            .collect::<Vec<_>>()
            .join("/");
        let lines = match self.cache.entry(key) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                let read = crate::exposure::open_visible(
                    self.exposure,
                    e.key(),
                    crate::note::DEFAULT_MAX_NOTE_BYTES as usize,
                )
                .map(|opened| body_lines(&opened.text));
                self.reads += usize::from(read.is_ok());
                e.insert(read)
            }
        };
        let lines = match lines {
            Ok(lines) => lines,
            Err(denied) => {
                let denied = *denied;
                return if self.unreadable(&note, root, denied) {
                    Promotion::Unreadable { note }
                } else {
                    Promotion::NotExposed { note }
                };
            }
        };
        let served = match kind {
            AnchorKind::Block => block_in(lines, &anchor),
            AnchorKind::Heading => section_in(lines, &anchor),
            AnchorKind::Note => None,
        };
        match served {
            Some(Served { text, truncated }) => Promotion::Served {
                note,
                kind,
                anchor,
                text,
                truncated,
            },
            None => Promotion::StaleAnchor { note, kind, anchor },
        }
    }

    /// Whether a refused in-root note is missing or a directory (rather than withheld).
    fn unreadable(&self, note: &str, root: &str, denied: Denied) -> bool {
        let vault = self.exposure.vault_root();
        match denied {
            Denied::Missing => {
                let Ok(root_real) = fs::canonicalize(vault.join(root)) else {
                    return true;
                };
                // The deepest part of the path that exists must still lie inside the root, so a
                // symlink out of the root tells nothing about what exists outside it.
                let path = note_path(vault, note);
                for part in path.ancestors() {
                    if fs::symlink_metadata(part).is_ok() {
                        return fs::canonicalize(part)
                            .is_ok_and(|real| real.starts_with(&root_real));
                    }
                }
                false
            }
            // The policy already checked containment; an unreadable directory reads as private.
            Denied::Private => note_path(vault, note).is_dir(),
            _ => false,
        }
    }

    /// Resolves the markers of `captures` (capture path, raw marker) for health.
    pub(crate) fn audit<'m, I>(&mut self, captures: I) -> PromotionAudit
    where
        I: IntoIterator<Item = (&'m str, &'m str)>,
    {
        let mut audit = PromotionAudit::default();
        for (capture, raw) in captures {
            let outcome = self.resolve(raw);
            match outcome {
                Promotion::Served { .. } => audit.served.push(capture.to_owned()),
                Promotion::NoAnchor { .. } => audit.named_only.push(capture.to_owned()),
                Promotion::Unparsed { .. } => audit.unparsed.push(capture.to_owned()),
                Promotion::NotExposed { .. }
                | Promotion::Unreadable { .. }
                | Promotion::StaleAnchor { .. } => audit.broken.push((capture.to_owned(), outcome)),
            }
        }
        audit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// A vault exposing `brain` and `work/active`, never exposing `SOUL.md`.
    fn vault() -> (tempfile::TempDir, Exposure) {
        let dir = tempfile::tempdir().unwrap();
        let exposure = Exposure::with_roots(
            dir.path(),
            strings(&["brain", "work/active"]),
            strings(&["SOUL.md"]),
            "memories",
        );
        (dir, exposure)
    }

    fn block(text: &str, id: &str) -> Option<String> {
        serve_block(text, id).map(|s| s.text)
    }

    fn numbered(n: usize, prefix: &str) -> String {
        (1..=n)
            .map(|i| format!("{prefix} line {i}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    // ---- parsing (#72) -----------------------------------------------------------------------

    #[test]
    fn markers_parse_into_note_block_and_heading_anchors() {
        assert_eq!(
            parse_marker("brain/Gotchas#^om-a1b2c3"),
            Some(Marker {
                note: "brain/Gotchas.md".into(),
                kind: AnchorKind::Block,
                anchor: Some("om-a1b2c3".into()),
            })
        );
        assert_eq!(
            parse_marker("brain/Gotchas.md#^om-a1b2c3").unwrap().note,
            "brain/Gotchas.md"
        );
        assert_eq!(
            parse_marker("  brain/Gotchas#Connection  pools ").unwrap(),
            Marker {
                note: "brain/Gotchas.md".into(),
                kind: AnchorKind::Heading,
                anchor: Some("Connection  pools".into()),
            }
        );
        // Split at the first `#` only.
        assert_eq!(
            parse_marker("brain/X#C# and F#").unwrap().anchor.as_deref(),
            Some("C# and F#")
        );
        for bare in [
            "brain/Gotchas",
            "brain/Gotchas#",
            "brain/Gotchas#^",
            "brain/Gotchas#^  ",
        ] {
            assert_eq!(
                parse_marker(bare),
                Some(Marker {
                    note: "brain/Gotchas.md".into(),
                    kind: AnchorKind::Note,
                    anchor: None,
                }),
                "{bare:?}"
            );
        }
    }

    #[test]
    fn markers_with_controls_or_no_note_do_not_parse() {
        for bad in [
            "brain/Gotchas#^om-a\n\n## FORGED",
            "brain/Gotchas\n",
            "brain/Go\ttchas#^x",
            "brain/Gotchas#^x\u{0}",
            "brain/Gotchas#^x\u{7f}",
            "brain/Gotchas#^x\u{85}",
            "brain/Gotchas#^x\u{9f}",
            "",
            "   ",
            "#^om-a1",
            "  #Heading",
        ] {
            assert_eq!(parse_marker(bad), None, "{bad:?}");
        }
        // U+00A0 is not a control character.
        assert!(parse_marker("brain/Gotchas#^x\u{a0}").is_some());
    }

    // ---- blocks (#73-75, #131) ---------------------------------------------------------------

    #[test]
    fn a_trailing_id_serves_its_line_without_the_id() {
        let note = "# Gotchas\n\nIntro paragraph.\n\nThe corrected lesson. ^om-a1b2c3\n\nAfter.\n";
        let served = serve_block(note, "om-a1b2c3").unwrap();
        assert_eq!(served.text, "The corrected lesson.");
        assert!(!served.truncated);
        // A paragraph carries its id on the last line and serves all its lines.
        let note = "Intro.\n\nFirst line\nsecond line ^om-p\n\nAfter.";
        assert_eq!(block(note, "om-p").unwrap(), "First line\nsecond line");
    }

    #[test]
    fn an_alone_id_serves_the_paragraph_above() {
        let note = "Intro.\n\nThe paragraph\nabove it.\n^om-alone\n\nAfter.\n";
        assert_eq!(block(note, "om-alone").unwrap(), "The paragraph\nabove it.");
        // Indented, after a blank line, or in a quote.
        let note = "Intro.\n\nThe paragraph above.\n\n    ^om-ind\n\nAfter.\n";
        assert_eq!(block(note, "om-ind").unwrap(), "The paragraph above.");
        let note = "Intro.\n\n> quoted line one\n> quoted line two\n> ^om-q\n\nAfter.\n";
        assert_eq!(
            block(note, "om-q").unwrap(),
            "> quoted line one\n> quoted line two"
        );
        // A table, its alone id with pipe scaffolding.
        let note = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| ^om-t |\n\nAfter.";
        assert_eq!(
            block(note, "om-t").unwrap(),
            "| a | b |\n|---|---|\n| 1 | 2 |"
        );
        // A fenced block, its id on the line after the closing fence.
        let note = "Intro.\n\n```sh\nrm -rf build\n```\n^om-code\n\nAfter.";
        assert_eq!(block(note, "om-code").unwrap(), "```sh\nrm -rf build\n```");
        // An id alone closes the block: the next line starts another one.
        let note = "Above.\n^om-a\nBelow. ^om-b";
        assert_eq!(block(note, "om-a").unwrap(), "Above.");
        assert_eq!(block(note, "om-b").unwrap(), "Below.");
    }

    #[test]
    fn ids_in_frontmatter_fences_or_by_prefix_or_pattern_serve_nothing() {
        let body = "Body text. ^om-abcdef\n";
        // Missing.
        assert_eq!(serve_block(body, "om-zzz"), None);
        // Frontmatter, with and without a byte-order mark.
        let fm = "---\ntitle: decoy ^om-fm\nnote: x\n^om-fm2\n---\nBody. ^om-body\n";
        assert_eq!(serve_block(fm, "om-fm"), None);
        assert_eq!(serve_block(fm, "om-fm2"), None);
        assert_eq!(block(fm, "om-body").unwrap(), "Body.");
        let bom = format!("\u{feff}{fm}");
        assert_eq!(serve_block(&bom, "om-fm"), None);
        assert_eq!(serve_block(&bom, "om-fm2"), None);
        assert_eq!(block(&bom, "om-body").unwrap(), "Body.");
        // A BOM without frontmatter is still dropped.
        assert_eq!(block("\u{feff}Text. ^om-x\n", "om-x").unwrap(), "Text.");
        // Fences: backticks, tildes, a longer fence that a shorter one does not close.
        for fenced in [
            "```\ninside ^om-f\n```\n",
            "~~~md\ninside ^om-f\n~~~\n",
            "````\n```\ninside ^om-f\n```\n````\n",
            "Para.\n```\nPara two.\n^om-f\n```\n",
            "> ```\n> inside ^om-f\n> ```\n",
            "```\nnever closed\ninside ^om-f\n",
        ] {
            assert_eq!(serve_block(fenced, "om-f"), None, "{fenced:?}");
        }
        // A tilde line does not close a backtick fence.
        assert_eq!(serve_block("```\n~~~\ninside ^om-f\n```\n", "om-f"), None);
        // Prefix ids and patterns are looked up literally.
        assert_eq!(serve_block(body, "om-abc"), None);
        assert_eq!(serve_block(body, "om-abcdef-x"), None);
        assert_eq!(serve_block(body, ".*"), None);
        assert_eq!(serve_block("Text. ^om-abc\n", "om-a.c"), None);
        assert_eq!(serve_block("Text. ^om-abc\n", "om-a"), None);
        assert_eq!(block(body, "om-abcdef").unwrap(), "Body text.");
        // Not an id: no blank before the caret, or a character outside the id set.
        assert_eq!(serve_block("x^om-a\n", "om-a"), None);
        assert_eq!(serve_block("x ^-om\n", "-om"), None);
        assert_eq!(serve_block("x ^om.a\n", "om.a"), None);
    }

    #[test]
    fn the_first_duplicate_id_wins_in_both_forms() {
        let trailing = "First copy. ^om-dup\n\nSecond copy. ^om-dup\n";
        assert_eq!(block(trailing, "om-dup").unwrap(), "First copy.");
        let alone = "First copy.\n^om-dup\n\nSecond copy.\n^om-dup\n";
        assert_eq!(block(alone, "om-dup").unwrap(), "First copy.");
        let mixed = "First copy.\n^om-dup\n\nSecond copy. ^om-dup\n";
        assert_eq!(block(mixed, "om-dup").unwrap(), "First copy.");
        let mixed = "First copy. ^om-dup\n\nSecond copy.\n^om-dup\n";
        assert_eq!(block(mixed, "om-dup").unwrap(), "First copy.");
    }

    #[test]
    fn list_items_and_quotes_stay_separate_blocks() {
        // A multi-line bullet anchored at its end serves both lines, not its siblings (#131).
        let note = "- sibling before\n- first line of the item\n  second line of the item ^om-ml\n- sibling after\n";
        let served = serve_block(note, "om-ml").unwrap();
        assert_eq!(
            served.text,
            "- first line of the item\n  second line of the item"
        );
        assert!(!served.truncated);
        // An ordered item serves itself only.
        let note = "1. one\n2. two ^om-two\n3) three\n";
        assert_eq!(block(note, "om-two").unwrap(), "2. two");
        // A nested item is its own block.
        let note = "- parent\n  - child ^om-child\n- next\n";
        assert_eq!(block(note, "om-child").unwrap(), "  - child");
        // A paragraph does not absorb a following blockquote, list, heading, table or HTML.
        for after in [
            "> quoted",
            "- item",
            "* item",
            "+ item",
            "## Heading",
            "| a |",
            "<div>",
            "---",
            "9. nine",
        ] {
            let note = format!("Para one\npara two ^om-p\n{after}\nmore");
            assert_eq!(
                block(&note, "om-p").unwrap(),
                "Para one\npara two",
                "{after:?}"
            );
        }
        // A quote does not absorb the paragraph after it, nor a deeper quote.
        let note = "> quoted ^om-q\n>> deeper\nplain\n";
        assert_eq!(block(note, "om-q").unwrap(), "> quoted");
        // Emphasis and tags are not starters.
        let note = "Para\n**bold** line\n#tag line ^om-e\n";
        assert_eq!(
            block(note, "om-e").unwrap(),
            "Para\n**bold** line\n#tag line"
        );
    }

    #[test]
    fn a_fenced_decoy_never_wins() {
        let note = "```md\nDecoy text. ^om-real\n```\n\nReal text. ^om-real\n";
        assert_eq!(block(note, "om-real").unwrap(), "Real text.");
        let note = "~~~\nDecoy.\n^om-real\n~~~\n\nReal.\n^om-real\n";
        assert_eq!(block(note, "om-real").unwrap(), "Real.");
    }

    // ---- sections (#76) ----------------------------------------------------------------------

    #[test]
    fn a_section_runs_to_the_next_same_or_higher_heading() {
        let note = "# Top\n\n## Pools\n\nUse a pool.\n\n### Sizing\n\nTen per core.\n\n## Timeouts\n\nThirty seconds.\n";
        let served = serve_section(note, "Pools").unwrap();
        assert_eq!(
            served.text,
            "## Pools\n\nUse a pool.\n\n### Sizing\n\nTen per core."
        );
        assert!(!served.truncated);
        // Normalised match: case and whitespace.
        assert_eq!(serve_section(note, "  POOLS ").unwrap(), served);
        assert_eq!(
            serve_section(note, "timeouts").unwrap().text,
            "## Timeouts\n\nThirty seconds."
        );
        // A deeper heading is served up to its next sibling or ancestor.
        assert_eq!(
            serve_section(note, "Sizing").unwrap().text,
            "### Sizing\n\nTen per core."
        );
        // A higher heading ends it too.
        let note = "## A\n\ntext a\n\n#### Deep\n\ndeep text\n\n### B\n\nb text\n";
        assert_eq!(
            serve_section(note, "Deep").unwrap().text,
            "#### Deep\n\ndeep text"
        );
        assert_eq!(serve_section(note, "Missing"), None);
        assert_eq!(serve_section(note, "   "), None);
        // A closing `#` sequence and multiple blanks are ignored.
        assert_eq!(
            serve_section("##   Many   words ##\nx\n", "many words")
                .unwrap()
                .text,
            "##   Many   words ##\nx"
        );
    }

    #[test]
    fn a_deepened_heading_still_resolves() {
        let before = "## Lesson\n\nbody\n\n## Next\n";
        let after = "### Lesson\n\nbody\n\n## Next\n";
        assert_eq!(
            serve_section(before, "Lesson").unwrap().text,
            "## Lesson\n\nbody"
        );
        assert_eq!(
            serve_section(after, "Lesson").unwrap().text,
            "### Lesson\n\nbody"
        );
    }

    #[test]
    fn level_one_headings_are_skipped() {
        let note = "# Huge Topic\n\nintro\n\n## Other\n\nother text\n";
        assert_eq!(serve_section(note, "Huge Topic"), None);
        let note = "# Huge Topic\n\nintro\n\n## Huge Topic\n\nthe reachable part\n\n## Other\n";
        assert_eq!(
            serve_section(note, "Huge Topic").unwrap().text,
            "## Huge Topic\n\nthe reachable part"
        );
        // An H1 does not end an H2 match either way: the next H1 ends it.
        let note = "## Part\n\ntext\n\n# New Top\n\nelsewhere\n";
        assert_eq!(serve_section(note, "Part").unwrap().text, "## Part\n\ntext");
    }

    #[test]
    fn headings_in_fences_quotes_and_frontmatter_do_not_count() {
        let note = "---\ntitle: x\n---\n## Real\n\n```\n## Fake\n```\n\nstill real\n\n## Next\n";
        assert_eq!(
            serve_section(note, "Real").unwrap().text,
            "## Real\n\n```\n## Fake\n```\n\nstill real"
        );
        assert_eq!(serve_section(note, "Fake"), None);
        assert_eq!(serve_section("> ## Quoted\n> text\n", "Quoted"), None);
        assert_eq!(serve_section("---\n## FM\n---\nbody\n", "FM"), None);
        // Ids in a section are removed.
        let note = "## S\n\nline one ^om-1\nline two\n^om-2\n";
        assert_eq!(
            serve_section(note, "S").unwrap().text,
            "## S\n\nline one\nline two"
        );
    }

    // ---- caps (#77) --------------------------------------------------------------------------

    #[test]
    fn a_long_section_is_capped_at_forty_lines_from_the_head() {
        let note = format!("## Long\n{}\n## After\n", numbered(300, "content"));
        let served = serve_section(&note, "Long").unwrap();
        assert!(served.truncated);
        let lines: Vec<&str> = served.text.lines().collect();
        assert!(lines.len() <= 40, "{}", lines.len());
        assert_eq!(lines[0], "## Long");
        assert!(!served.text.contains("content line 300"));
    }

    #[test]
    fn sections_of_38_and_39_content_lines_are_not_truncated() {
        for n in [38, 39] {
            let note = format!("## Section\n{}\n\n## After\n", numbered(n, "content"));
            let served = serve_section(&note, "Section").unwrap();
            assert!(!served.truncated, "{n}");
            assert_eq!(served.text.lines().count(), n + 1, "{n}");
            assert!(served.text.ends_with(&format!("content line {n}")));
        }
        // One more line than the cap allows is truncated.
        let note = format!("## Section\n{}\n", numbered(40, "content"));
        assert!(serve_section(&note, "Section").unwrap().truncated);
    }

    #[test]
    fn a_huge_single_line_is_capped_in_characters() {
        let line = "x".repeat(240_000);
        let served = serve_block(&format!("{line} ^om-huge\n"), "om-huge").unwrap();
        assert!(served.truncated);
        assert!(served.text.chars().count() <= 8_100);
        assert!(served.text.ends_with('…'));
        let served = serve_section(&format!("## Huge\n{line}\n"), "Huge").unwrap();
        assert!(served.truncated);
        assert!(served.text.chars().count() <= 8_100);
        // Exactly at the cap: kept whole.
        let line = "é".repeat(SERVE_MAX_CHARS);
        let served = serve_block(&format!("{line}\n^om-fit\n"), "om-fit").unwrap();
        assert!(!served.truncated);
        assert_eq!(served.text, line);
    }

    #[test]
    fn a_long_block_is_capped_from_the_id_end() {
        let para = numbered(300, "para");
        // Trailing id: the id's end of the block is kept.
        let served = serve_block(&format!("{para} ^om-tail\n"), "om-tail").unwrap();
        assert!(served.truncated);
        assert_eq!(served.text.lines().count(), 40);
        assert!(served.text.ends_with("para line 300"));
        assert!(!served.text.contains("para line 1\n"));
        // Alone id: the head is kept.
        let served = serve_block(&format!("{para}\n^om-head\n"), "om-head").unwrap();
        assert!(served.truncated);
        assert_eq!(served.text.lines().count(), 40);
        assert!(served.text.starts_with("para line 1\n"));
        // Blank edges are trimmed before the cap (a fence keeps blank lines inside).
        let fenced = format!("```\n\n{}\n\n```\n^om-f\n", numbered(35, "code"));
        let served = serve_block(&fenced, "om-f").unwrap();
        assert!(!served.truncated);
        assert_eq!(served.text.lines().count(), 39);
        let section = format!("## S\n{}\n\n\n\n## T\n", numbered(39, "text"));
        let served = serve_section(&section, "S").unwrap();
        assert!(!served.truncated, "{served:?}");
        assert!(served.text.ends_with("text line 39"));
    }

    // ---- resolution (#78-80, #128-131) -------------------------------------------------------

    const GOTCHAS: &str = "---\ntags: [brain]\n---\n# Gotchas - Promoted\n\n## Pools\n\nStale text.\n\nThe corrected lesson. ^om-corrected\n\n## Bare\n\nbare text\n";

    #[test]
    fn an_anchored_marker_serves_the_note_text() {
        let (dir, exposure) = vault();
        write(dir.path(), "brain/Gotchas - Promoted.md", GOTCHAS);
        let mut resolver = Resolver::new(&exposure);
        assert_eq!(
            resolver.resolve("brain/Gotchas - Promoted#^om-corrected"),
            Promotion::Served {
                note: "brain/Gotchas - Promoted.md".into(),
                kind: AnchorKind::Block,
                anchor: "om-corrected".into(),
                text: "The corrected lesson.".into(),
                truncated: false,
            }
        );
        let section = resolver.resolve("brain/Gotchas - Promoted.md#Bare");
        assert!(section.is_served());
        assert!(!section.is_broken());
        assert!(
            matches!(&section, Promotion::Served { text, kind: AnchorKind::Heading, .. } if text == "## Bare\n\nbare text")
        );
        assert_eq!(
            resolver.resolve("brain/Gotchas - Promoted#^om-gone"),
            Promotion::StaleAnchor {
                note: "brain/Gotchas - Promoted.md".into(),
                kind: AnchorKind::Block,
                anchor: "om-gone".into(),
            }
        );
        assert_eq!(
            resolver.resolve("brain/Gotchas - Promoted#Gotchas - Promoted"),
            Promotion::StaleAnchor {
                note: "brain/Gotchas - Promoted.md".into(),
                kind: AnchorKind::Heading,
                anchor: "Gotchas - Promoted".into(),
            }
        );
        // Windows separators and a `./` are read as the same note.
        assert!(
            resolver
                .resolve("brain\\Gotchas - Promoted#^om-corrected")
                .is_served()
        );
        assert!(
            resolver
                .resolve("./brain/Gotchas - Promoted#^om-corrected")
                .is_served()
        );
        assert_eq!(resolver.reads(), 1);
    }

    #[test]
    fn bare_and_unparsed_markers_touch_nothing() {
        let (_dir, exposure) = vault();
        let mut resolver = Resolver::new(&exposure);
        // A bare marker is named even when the note does not exist.
        let bare = resolver.resolve("brain/Nowhere");
        assert_eq!(
            bare,
            Promotion::NoAnchor {
                note: "brain/Nowhere.md".into()
            }
        );
        assert!(!bare.is_broken() && !bare.is_served());
        let unparsed = resolver.resolve("brain/X#^a\n## FORGED");
        assert_eq!(
            unparsed,
            Promotion::Unparsed {
                raw: "brain/X#^a\n## FORGED".into()
            }
        );
        assert!(unparsed.is_broken());
        assert_eq!(resolver.reads(), 0);
    }

    #[test]
    fn refused_targets_are_not_exposed() {
        let (dir, exposure) = vault();
        let v = dir.path();
        let text = "Secret lesson. ^om-x\n\n## Sec\n\nsecret\n";
        write(v, "brain/SOUL.md", text);
        write(v, "brain/soul.md", text);
        write(
            v,
            "brain/Private.md",
            &format!("---\nprivate: true\n---\n{text}"),
        );
        write(
            v,
            "brain/Tagged.md",
            &format!("---\ntags: [private]\n---\n{text}"),
        );
        write(v, "brain/.hidden/Note.md", text);
        write(v, "work/Secret.md", text);
        write(v, "work/secrets/Note.md", text);
        write(v, "work/active-secrets/Note.md", text);
        write(v, "people/Sarah.md", text);
        write(v, "memories/capture.md", text);
        write(v, "brain/memories/capture.md", text);
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "Out.md", text);
        let out_abs = outside.path().join("Out.md");
        let out_str = out_abs.to_string_lossy().into_owned();
        let mut resolver = Resolver::new(&exposure);
        let mut markers = vec![
            "brain/SOUL#^om-x".to_owned(),
            "brain/soul.md#^om-x".to_owned(),
            "brain/Private#^om-x".to_owned(),
            "brain/Tagged#Sec".to_owned(),
            "brain/.hidden/Note#^om-x".to_owned(),
            "work/Secret#^om-x".to_owned(),
            "work/secrets/Note#^om-x".to_owned(),
            "work/active-secrets/Note#^om-x".to_owned(),
            "people/Sarah#^om-x".to_owned(),
            "memories/capture#^om-x".to_owned(),
            "brain/../work/Secret#^om-x".to_owned(),
            "work/active/../../people/Sarah#^om-x".to_owned(),
            "brain\\..\\people\\Sarah#^om-x".to_owned(),
            format!("{out_str}#^om-x"),
            "\\\\server\\share\\brain\\Note#^om-x".to_owned(),
            "//server/share/brain/Note#^om-x".to_owned(),
            "C:/vault/brain/Note#^om-x".to_owned(),
            "c:brain/Note#^om-x".to_owned(),
        ];
        #[cfg(unix)]
        {
            fs::create_dir_all(v.join("work/active")).unwrap();
            std::os::unix::fs::symlink(&out_abs, v.join("brain/Link.md")).unwrap();
            std::os::unix::fs::symlink(outside.path(), v.join("brain/linkdir")).unwrap();
            std::os::unix::fs::symlink(v.join("work/Secret.md"), v.join("work/active/Hop.md"))
                .unwrap();
            markers.push("brain/Link#^om-x".to_owned());
            markers.push("brain/linkdir/Out#^om-x".to_owned());
            markers.push("work/active/Hop#^om-x".to_owned());
        }
        for marker in &markers {
            let got = resolver.resolve(marker);
            assert!(
                matches!(got, Promotion::NotExposed { .. }),
                "{marker}: {got:?}"
            );
            assert!(got.is_broken());
        }
        // Nothing refused was read.
        assert_eq!(resolver.reads(), 0);
        // A memory root nested under an exposed root is refused as well.
        let nested = Exposure::with_roots(v, strings(&["brain"]), Vec::new(), "brain/memories");
        let mut resolver = Resolver::new(&nested);
        assert!(matches!(
            resolver.resolve("brain/memories/capture#^om-x"),
            Promotion::NotExposed { .. }
        ));
    }

    #[test]
    fn missing_notes_are_unreadable_and_traversal_tells_nothing() {
        let (dir, exposure) = vault();
        let v = dir.path();
        fs::create_dir_all(v.join("brain/Folder.md")).unwrap();
        write(v, "brain/Gotchas.md", GOTCHAS);
        let mut resolver = Resolver::new(&exposure);
        for marker in [
            "brain/Missing#^om-x",
            "brain/deeper/Missing#Heading",
            "work/active/Missing#^om-x",
            "brain/Folder#^om-x",
        ] {
            let got = resolver.resolve(marker);
            assert!(
                matches!(got, Promotion::Unreadable { .. }),
                "{marker}: {got:?}"
            );
            assert!(got.is_broken());
        }
        // A case variant is another file on Linux, never this one's content.
        #[cfg(target_os = "linux")]
        assert!(matches!(
            resolver.resolve("brain/gotchas#^om-corrected"),
            Promotion::Unreadable { .. }
        ));
        // The same status whether or not something exists at the traversed path.
        let parent = v.parent().unwrap();
        let name = v.file_name().unwrap().to_string_lossy().into_owned();
        let existing = tempfile::tempdir_in(parent).unwrap();
        write(existing.path(), "Real.md", "Real. ^om-x\n");
        let existing_name = existing
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let real = resolver.resolve(&format!("brain/../../{existing_name}/Real#^om-x"));
        let fake = resolver.resolve(&format!("brain/../../{name}-nothing/Fake#^om-x"));
        assert!(matches!(real, Promotion::NotExposed { .. }), "{real:?}");
        assert!(matches!(fake, Promotion::NotExposed { .. }), "{fake:?}");
        #[cfg(unix)]
        {
            // Through a directory link out of the root, present and absent files look alike.
            std::os::unix::fs::symlink(existing.path(), v.join("brain/out")).unwrap();
            let present = resolver.resolve("brain/out/Real#^om-x");
            let absent = resolver.resolve("brain/out/Absent#^om-x");
            assert!(
                matches!(present, Promotion::NotExposed { .. }),
                "{present:?}"
            );
            assert!(matches!(absent, Promotion::NotExposed { .. }), "{absent:?}");
            // A link that stays inside its root is served.
            std::os::unix::fs::symlink(v.join("brain/Gotchas.md"), v.join("brain/Alias.md"))
                .unwrap();
            assert!(resolver.resolve("brain/Alias#^om-corrected").is_served());
        }
    }

    #[test]
    fn many_markers_to_one_note_read_it_once() {
        let (dir, exposure) = vault();
        write(dir.path(), "brain/Gotchas - Promoted.md", GOTCHAS);
        let mut resolver = Resolver::new(&exposure);
        let started = std::time::Instant::now();
        for i in 0..120 {
            let marker = if i % 2 == 0 {
                "brain/Gotchas - Promoted#^om-corrected"
            } else {
                "brain/Gotchas - Promoted.md#^om-corrected"
            };
            match resolver.resolve(marker) {
                Promotion::Served { text, .. } => assert_eq!(text, "The corrected lesson."),
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(resolver.reads(), 1);
        assert_eq!(resolver.cache.len(), 1);
        assert!(started.elapsed().as_secs() < 20);
        // A second note is a second read; a fresh resolver starts over.
        write(dir.path(), "work/active/Other.md", "Other. ^om-o\n");
        assert!(resolver.resolve("work/active/Other#^om-o").is_served());
        assert_eq!(resolver.reads(), 2);
        let mut fresh = Resolver::new(&exposure);
        assert!(
            fresh
                .resolve("brain/Gotchas - Promoted#^om-corrected")
                .is_served()
        );
        assert_eq!(fresh.reads(), 1);
    }

    #[test]
    fn the_audit_sorts_captures_for_health() {
        let (dir, exposure) = vault();
        write(dir.path(), "brain/Gotchas.md", GOTCHAS);
        let mut resolver = Resolver::new(&exposure);
        let audit = resolver.audit([
            ("memories/a.md", "brain/Gotchas#^om-corrected"),
            ("memories/b.md", "brain/Gotchas"),
            ("memories/c.md", "brain/Gotchas#^om-gone"),
            ("memories/d.md", "work/Secret#^om-x"),
            ("memories/e.md", "brain/Missing#Pools"),
            ("memories/f.md", "   "),
            ("memories/g.md", "brain/Gotchas#Pools"),
        ]);
        assert_eq!(audit.served, strings(&["memories/a.md", "memories/g.md"]));
        assert_eq!(audit.named_only, strings(&["memories/b.md"]));
        assert_eq!(audit.unparsed, strings(&["memories/f.md"]));
        let broken: Vec<(&str, &str)> = audit
            .broken
            .iter()
            .map(|(capture, outcome)| {
                let status = match outcome {
                    Promotion::StaleAnchor { .. } => "stale",
                    Promotion::NotExposed { .. } => "not-exposed",
                    Promotion::Unreadable { .. } => "unreadable",
                    _ => "other",
                };
                (capture.as_str(), status)
            })
            .collect();
        assert_eq!(
            broken,
            [
                ("memories/c.md", "stale"),
                ("memories/d.md", "not-exposed"),
                ("memories/e.md", "unreadable"),
            ]
        );
        assert_eq!(resolver.reads(), 1);
    }

    #[test]
    fn outcomes_serialise_with_a_status_tag() {
        let stale = Promotion::StaleAnchor {
            note: "brain/G.md".into(),
            kind: AnchorKind::Block,
            anchor: "om-gone".into(),
        };
        assert_eq!(
            serde_json::to_value(&stale).unwrap(),
            serde_json::json!({"status": "stale_anchor", "note": "brain/G.md", "kind": "block", "anchor": "om-gone"})
        );
        let served = Promotion::Served {
            note: "brain/G.md".into(),
            kind: AnchorKind::Heading,
            anchor: "Pools".into(),
            text: "## Pools".into(),
            truncated: true,
        };
        assert_eq!(
            serde_json::to_value(&served).unwrap(),
            serde_json::json!({"status": "served", "note": "brain/G.md", "kind": "heading", "anchor": "Pools", "text": "## Pools", "truncated": true})
        );
        assert_eq!(
            serde_json::to_value(Promotion::NotExposed {
                note: "x.md".into()
            })
            .unwrap(),
            serde_json::json!({"status": "not_exposed", "note": "x.md"})
        );
        assert_eq!(
            serde_json::to_value(Promotion::Unparsed { raw: "".into() }).unwrap(),
            serde_json::json!({"status": "unparsed", "raw": ""})
        );
    }
}
