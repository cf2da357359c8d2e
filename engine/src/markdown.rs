//! Markdown as the engine reads it, for code outside the engine (the agent surfaces, tools):
//! a note's frontmatter fields, its body, its privacy, a bounded head of a file.
//!
//! Everything here goes through the engine's one frontmatter reader (the note parser's), so a
//! field, a body or a privacy verdict read by a hook is the one the index and the exposure
//! policy read.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

pub(crate) mod blocks;
pub(crate) mod frontmatter;
pub(crate) mod marker;
pub use frontmatter::{HAND_FILED_SOURCE, MEMORY_SOURCE, REASON_SOURCE};

/// The parsed leading frontmatter of `text`: `None` without a block, or for a block that never
/// closes or is not a YAML mapping.
pub fn frontmatter(text: &str) -> Option<Map<String, Value>> {
    frontmatter::parse_text(text).ok().flatten()
}

/// A frontmatter field of `text` as a trimmed, non-empty string (a string, number or boolean;
/// the key matched case-insensitively). `None` when absent, empty, a list or a map.
pub fn frontmatter_str(text: &str, key: &str) -> Option<String> {
    let map = frontmatter(text)?;
    let s = match frontmatter::get_ci(&map, key)? {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

/// The text after the leading frontmatter block (all of `text` without one), never starting
/// with a byte-order mark.
pub fn body(text: &str) -> &str {
    match frontmatter::block(text) {
        Some(b) if b.closed => &text[b.body_offset..],
        _ => text.strip_prefix('\u{feff}').unwrap_or(text),
    }
}

/// Whether a file name (or path) ends in `.md`, in any case: what counts as a note.
pub fn is_markdown_name(name: &str) -> bool {
    name.len() > 3
        && name.is_char_boundary(name.len() - 3)
        && name[name.len() - 3..].eq_ignore_ascii_case(".md")
}

/// Characters of a note re-read when its frontmatter does not close within a short head: what
/// privacy is judged on.
pub(crate) const LONG_HEAD_CHARS: usize = 64_000;

/// Whether a note's whole text is withheld from agents, judged on its first 64,000 characters:
/// private, an agent memory or reasoning record, or a frontmatter that does not close or parse
/// (`crate::exposure::note_verdict` judges a file the same way).
pub(crate) fn text_withheld(text: &str) -> bool {
    !matches!(
        frontmatter::privacy(whole_lines_head(text, LONG_HEAD_CHARS)),
        frontmatter::Privacy::Public
    )
}

/// The first `chars` characters of a regular file, decoded lossily; `None` when unreadable.
/// Never reads more than `4 × chars` bytes.
pub fn read_head(path: &Path, chars: usize) -> Option<String> {
    head_of(&open_regular(path)?, chars)
}

/// Opens `path` (through symlinks) for reading when it is a regular file: checked before the
/// open, so a FIFO or a device is never opened, and on the open handle, so what is read is the
/// file that was checked.
pub(crate) fn open_regular(path: &Path) -> Option<File> {
    if !fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = File::open(path).ok()?;
    file.metadata().ok()?.is_file().then_some(file)
}

/// The first `chars` characters of an open file, read from its start, decoded lossily.
pub(crate) fn head_of(file: &File, chars: usize) -> Option<String> {
    use std::io::{Seek, SeekFrom};
    let mut reader = file;
    reader.seek(SeekFrom::Start(0)).ok()?;
    let mut bytes = Vec::new();
    reader
        .take((chars * 4) as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    Some(whole_lines_head(&text, chars).to_string())
}

/// The first `chars` characters of `text`, without the last line when the cut falls inside it:
/// a line cut short is not judged (a cut after the `---` of a `------` rule must not read as the
/// frontmatter closing).
pub(crate) fn whole_lines_head(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((cut, _)) => {
            let head = &text[..cut];
            match head.rfind('\n') {
                Some(end) if !text[cut..].starts_with('\n') => &head[..=end],
                _ => head,
            }
        }
        None => text,
    }
}

/// Whether bytes look binary the way the index judges a file (a NUL byte in the first 8 KiB):
/// such a file is never indexed, and never served to an agent either.
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(BINARY_PROBE)].contains(&0)
}

/// How many leading bytes [`looks_binary`] looks at.
const BINARY_PROBE: usize = 8192;

/// [`looks_binary`] on the first bytes of an open file (read from its start); a file that
/// cannot be read counts as binary.
pub(crate) fn file_looks_binary(file: &File) -> bool {
    use std::io::{Seek, SeekFrom};
    let mut reader = file;
    let mut bytes = Vec::with_capacity(BINARY_PROBE);
    reader.seek(SeekFrom::Start(0)).is_err()
        || reader
            .take(BINARY_PROBE as u64)
            .read_to_end(&mut bytes)
            .is_err()
        || looks_binary(&bytes)
}

/// The note a memory's `promoted:` value names and whether it names a block or heading in it
/// (`<note>#^id`, `<note>#Heading`) or only the note: `(note, anchored)`. `None` for a value
/// that is not a marker.
pub fn promotion_marker(value: &str) -> Option<(String, bool)> {
    marker::parse_marker(value).map(|m| (m.note, m.anchor.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_head_ends_at_its_last_whole_line() {
        let text = "---\ntitle: x\n------------\nprivate: true\n---\n";
        // Cut right after the first three dashes of the rule: that line is not judged.
        let cut = "---\ntitle: x\n---".chars().count();
        assert_eq!(whole_lines_head(text, cut), "---\ntitle: x\n");
        // A cut at the end of a line keeps it.
        let cut = "---\ntitle: x".chars().count();
        assert_eq!(whole_lines_head(text, cut), "---\ntitle: x");
        assert_eq!(whole_lines_head(text, 1000), text);
        assert!(looks_binary(b"p\0r\0i\0"));
        assert!(!looks_binary("plain \u{e4} text".as_bytes()));
    }

    #[test]
    fn fields_body_and_markers() {
        let text = "---\nstatus: active\nrank: 3\ntags: [a, b]\nempty: ''\n---\n# Title\n\nbody\n";
        assert_eq!(frontmatter_str(text, "Status").as_deref(), Some("active"));
        assert_eq!(frontmatter_str(text, "rank").as_deref(), Some("3"));
        assert_eq!(frontmatter_str(text, "tags"), None);
        assert_eq!(frontmatter_str(text, "empty"), None);
        assert_eq!(body(text), "# Title\n\nbody\n");
        assert_eq!(body("no block\n"), "no block\n");
        assert_eq!(frontmatter_str("---\nstatus: x\n", "status"), None);
        assert_eq!(
            promotion_marker("brain/Patterns#^abc"),
            Some(("brain/Patterns.md".to_string(), true))
        );
        assert_eq!(
            promotion_marker("brain/Patterns.md"),
            Some(("brain/Patterns.md".to_string(), false))
        );
        assert_eq!(promotion_marker("  "), None);
    }
}
