//! The frontmatter subset memories are written in (§A.10 / §A.7): reading it line by line, and
//! the in-place list edit supersession back-links use.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use super::{json_str, pattern};
use regex::Regex;

// ---------------------------------------------------------------------------------------------
// §A.10 / §A.7 frontmatter subset
// ---------------------------------------------------------------------------------------------

/// A frontmatter value of the subset memories are written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FmValue {
    /// A bare, single-quoted or double-quoted scalar, unquoted.
    Scalar(String),
    /// An inline `[...]` list, each entry unquoted.
    List(Vec<String>),
}

/// Byte positions of a leading frontmatter block.
#[derive(Debug, Clone, Copy)]
pub(super) struct FmSpan {
    /// First byte inside the block (just after the opening fence line).
    pub(super) inside_start: usize,
    /// End of the inside text (before the line break that precedes the closing fence).
    pub(super) inside_end: usize,
    /// First byte of the closing fence line.
    pub(super) close_start: usize,
    /// First byte after the closing fence line (its line break included).
    pub(super) after: usize,
    /// Whether the opening fence line ends with `\r\n`.
    pub(super) crlf: bool,
}

/// Whether a line (without its `\n`) is a `---` fence, tolerating `\r` and trailing blanks.
pub(super) fn is_fence(line: &str) -> bool {
    line.trim_end_matches(['\r', ' ', '\t']) == "---"
}

/// Locates the leading `---` … `---` block of `md`, after an optional byte-order mark.
pub(super) fn fm_span(md: &str) -> Option<FmSpan> {
    let start = if md.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let open_nl = start + md[start..].find('\n')?;
    if !is_fence(&md[start..open_nl]) {
        return None;
    }
    let crlf = md[start..open_nl].ends_with('\r');
    let inside_start = open_nl + 1;
    let mut pos = inside_start;
    loop {
        let line_end = md[pos..].find('\n').map_or(md.len(), |i| pos + i);
        if is_fence(&md[pos..line_end]) {
            let inside_end = if pos == inside_start {
                pos
            } else if md[..pos - 1].ends_with('\r') {
                pos - 2
            } else {
                pos - 1
            };
            let after = if line_end < md.len() {
                line_end + 1
            } else {
                md.len()
            };
            return Some(FmSpan {
                inside_start,
                inside_end,
                close_start: pos,
                after,
                crlf,
            });
        }
        if line_end >= md.len() {
            return None;
        }
        pos = line_end + 1;
    }
}

/// The text inside the leading `---` block of `md` and the byte offset just after its closing
/// fence line. A leading byte-order mark and `\r\n` line ends are tolerated; a block that never
/// closes counts as no block.
pub(crate) fn frontmatter_block(md: &str) -> Option<(&str, usize)> {
    fm_span(md).map(|s| (&md[s.inside_start..s.inside_end], s.after))
}

/// Removes one layer of quoting from a scalar or list entry: `"…"` is JSON-parsed (falling back
/// to stripping the quotes), `'…'` is stripped with `''` read as `'`, anything else is kept.
pub(super) fn unquote(v: &str) -> String {
    if v.len() >= 2 && v.starts_with('"') && v.ends_with('"') {
        return serde_json::from_str::<String>(v).unwrap_or_else(|_| v[1..v.len() - 1].to_owned());
    }
    if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') {
        return v[1..v.len() - 1].replace("''", "'");
    }
    v.to_owned()
}

/// Splits the inside of an inline list (`a, "b, c", 'd'`) into unquoted entries. Commas inside
/// quotes are content, a backslash escape inside double quotes is kept with its entry (so `\"`
/// stays inside), and blank entries are skipped.
pub(crate) fn split_inline_list(inner: &str) -> Vec<String> {
    fn finish(raw: &mut String, out: &mut Vec<String>) {
        let entry = raw.trim();
        if !entry.is_empty() {
            out.push(unquote(entry));
        }
        raw.clear();
    }
    let mut out = Vec::new();
    let mut raw = String::new();
    let mut quote: Option<char> = None;
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        raw.push(c);
        match quote {
            Some('"') => {
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        raw.push(next);
                    }
                } else if c == '"' {
                    quote = None;
                }
            }
            Some(q) => {
                if c == q {
                    // `''` inside a single-quoted entry is an escaped quote, not the end.
                    match chars.next_if_eq(&q) {
                        Some(next) => raw.push(next),
                        None => quote = None,
                    }
                }
            }
            None => match c {
                ',' => {
                    raw.pop();
                    finish(&mut raw, &mut out);
                }
                '"' | '\'' if raw.trim_start().len() == c.len_utf8() => quote = Some(c),
                _ => {}
            },
        }
    }
    finish(&mut raw, &mut out);
    out
}

/// A `key: value` frontmatter line of the subset.
pub(super) static FM_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$"));

/// Parses one frontmatter value of the subset.
pub(super) fn parse_value(v: &str) -> FmValue {
    if let Some(inner) = v.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        FmValue::List(split_inline_list(inner))
    } else {
        FmValue::Scalar(unquote(v))
    }
}

/// Reads the frontmatter subset memories are written in (§A.10): one `key: value` per line
/// (key `^[A-Za-z_][\w-]*`), empty values skipped, `[...]` as a quote-aware list, `"…"`
/// JSON-parsed, `'…'` stripped. No frontmatter gives an empty map; a repeated key keeps its
/// last value.
pub(crate) fn parse_frontmatter(md: &str) -> BTreeMap<String, FmValue> {
    let mut out = BTreeMap::new();
    let Some((inside, _)) = frontmatter_block(md) else {
        return out;
    };
    for line in inside.lines() {
        let Some(caps) = FM_LINE.captures(line.trim_end_matches(['\r', ' ', '\t'])) else {
            continue;
        };
        let value = caps.get(2).map_or("", |m| m.as_str().trim());
        if value.is_empty() {
            continue;
        }
        out.insert(caps[1].to_owned(), parse_value(value));
    }
    out
}

/// Result of [`add_to_frontmatter_list`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FmEdit {
    /// The edited markdown.
    Changed(String),
    /// The value was already in the list; nothing to write.
    AlreadyPresent,
    /// The file has no frontmatter block; it is left alone.
    NoFrontmatter,
}

/// One line inside a frontmatter block, by byte range in the whole document.
#[derive(Debug, Clone, Copy)]
pub(super) struct FmLine {
    /// First byte of the line.
    start: usize,
    /// End of the line's content (before `\r\n` / `\n`).
    end: usize,
    /// First byte of the next line.
    next: usize,
}

/// The lines inside a frontmatter block.
pub(super) fn fm_lines(md: &str, span: FmSpan) -> Vec<FmLine> {
    let mut lines = Vec::new();
    let mut pos = span.inside_start;
    while pos < span.close_start {
        let nl = md[pos..span.close_start]
            .find('\n')
            .map_or(span.close_start, |i| pos + i);
        let end = if md[pos..nl].ends_with('\r') {
            nl - 1
        } else {
            nl
        };
        let next = (nl + 1).min(span.close_start);
        lines.push(FmLine {
            start: pos,
            end,
            next,
        });
        if nl >= span.close_start {
            break;
        }
        pos = nl + 1;
    }
    lines
}

/// Adds `value` to the list under `key` in the frontmatter of `md` (§A.7 addToFrontmatterList):
/// a missing key gets a `key: ["value"]` line at the end of the block, an inline list gets
/// `, "value"` before its `]`, a scalar becomes a two-item list, a block list gets one more
/// `- "value"` item. A value already present changes nothing. Every other byte (other keys,
/// their order, the body) is kept as it was; values are JSON-quoted by [`json_str`].
pub(crate) fn add_to_frontmatter_list(md: &str, key: &str, value: &str) -> FmEdit {
    let Some(span) = fm_span(md) else {
        return FmEdit::NoFrontmatter;
    };
    let eol = if span.crlf { "\r\n" } else { "\n" };
    let quoted = json_str(value);
    let lines = fm_lines(md, span);
    let splice = |at: std::ops::Range<usize>, with: &str| {
        let mut s = String::with_capacity(md.len() + with.len());
        s.push_str(&md[..at.start]);
        s.push_str(with);
        s.push_str(&md[at.end..]);
        FmEdit::Changed(s)
    };
    let found = lines.iter().enumerate().find(|(_, l)| {
        md[l.start..l.end]
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
    });
    let Some((idx, line)) = found else {
        let insert = format!("{key}: [{quoted}]{eol}");
        return splice(span.close_start..span.close_start, &insert);
    };
    let value_start = line.start + key.len() + 1;
    let text = &md[value_start..line.end];
    let lead = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let (v_start, v_end) = (value_start + lead, value_start + lead + trimmed.len());

    if let Some(inner) = trimmed.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if split_inline_list(inner).iter().any(|e| e == value) {
            return FmEdit::AlreadyPresent;
        }
        if inner.trim().is_empty() {
            return splice(v_start..v_end, &format!("[{quoted}]"));
        }
        let close = v_end - 1;
        return splice(close..close, &format!(", {quoted}"));
    }
    if !trimmed.is_empty() {
        let existing = unquote(trimmed);
        if existing == value {
            return FmEdit::AlreadyPresent;
        }
        let list = format!("[{}, {quoted}]", json_str(&existing));
        return splice(v_start..v_end, &list);
    }
    // Empty value: a block list may follow (`- item` lines).
    let mut last_item: Option<(FmLine, &str)> = None;
    for l in &lines[idx + 1..] {
        let content = &md[l.start..l.end];
        let body = content.trim_start();
        let Some(item) = body.strip_prefix('-') else {
            break;
        };
        if !(item.is_empty() || item.starts_with([' ', '\t'])) {
            break;
        }
        if unquote(item.trim()) == value {
            return FmEdit::AlreadyPresent;
        }
        last_item = Some((*l, &content[..content.len() - body.len()]));
    }
    match last_item {
        // Every line inside the block ends with a line break (the closing fence follows one),
        // so the new item goes at the start of the next line.
        Some((l, indent)) => splice(l.next..l.next, &format!("{indent}- {quoted}{eol}")),
        None => splice(line.start..line.end, &format!("{key}: [{quoted}]")),
    }
}
