//! `promoted:` markers: a memory's pointer to the note (and block or heading) it was promoted
//! into. Parsed here, below the memory store, so the readers of frontmatter share one parser.

use serde::Serialize;

/// What a promoted marker's anchor addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AnchorKind {
    /// No anchor: the marker names a whole note and is never served.
    Note,
    /// A `^id` block id.
    Block,
    /// A heading's text; the section under it is served.
    Heading,
}

/// A parsed `promoted:` marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    /// The note, vault-relative as written, with `.md` appended when it was missing.
    pub note: String,
    /// What the anchor addresses.
    pub kind: AnchorKind,
    /// The block id (without `^`) or the heading text; `None` for [`AnchorKind::Note`].
    pub anchor: Option<String>,
}

/// Whether `c` is a C0 or C1 control character (or DEL).
fn is_control(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Parses a `promoted:` value: `<note>`, `<note>#^id` or `<note>#Heading`.
///
/// Refuses (gives `None`) any control character (newlines included), a value blank after
/// trimming, and an empty note part. The text is split at the first `#`; `.md` is appended to
/// the note when missing. An empty anchor or a bare `^` is no anchor.
pub(crate) fn parse_marker(raw: &str) -> Option<Marker> {
    if raw.chars().any(is_control) {
        return None;
    }
    let text = raw.trim();
    let (note, anchor) = match text.split_once('#') {
        Some((note, anchor)) => (note.trim(), anchor.trim()),
        None => (text, ""),
    };
    if note.is_empty() {
        return None;
    }
    let note = if note.to_ascii_lowercase().ends_with(".md") {
        note.to_owned()
    } else {
        format!("{note}.md")
    };
    let (kind, anchor) = match anchor.strip_prefix('^') {
        _ if anchor.is_empty() => (AnchorKind::Note, None),
        Some(id) if id.trim().is_empty() => (AnchorKind::Note, None),
        Some(id) => (AnchorKind::Block, Some(id.trim().to_owned())),
        None => (AnchorKind::Heading, Some(anchor.to_owned())),
    };
    Some(Marker { note, kind, anchor })
}
