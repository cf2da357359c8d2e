//! The one frontmatter reader and editor: where a note's leading YAML block starts and ends,
//! what it parses to, whether it marks the note private, and the line-level subset memories are
//! written in (read line by line, and edited in place without touching any other byte).
//!
//! Every part of the engine that looks at a note's frontmatter (the note parser, the exposure
//! policy's privacy check, aliases for link resolution, a project's platforms, the memory store)
//! goes through this module's one block locator, so a note can never be private for one surface
//! and public for another, nor have a block for one reader and none for another.
//!
//! A block opens with a first line that is exactly `---` (a byte-order mark and trailing
//! whitespace allowed) and closes at the next line that is `---` or `...`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

/// `source:` stamped on every memory the engine writes.
pub const MEMORY_SOURCE: &str = "mcp-capture";
/// `source:` of a capture filed by hand after the engine refused it.
pub const HAND_FILED_SOURCE: &str = "hand-filed";
/// The `source` of a reasoning record: it holds one caller's question, so it is never served
/// to agents as a note (`Privacy::Capture`).
pub const REASON_SOURCE: &str = "mcp-reason";

/// The leading frontmatter block of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block<'a> {
    /// The lines between the fences (to the end of the text when the block never closes).
    pub yaml: &'a str,
    /// Byte offset in the text where `yaml` starts (just after the opening fence line).
    pub yaml_start: usize,
    /// Byte offset of the closing fence line (the text's length when the block never closes).
    pub close_start: usize,
    /// Whether the opening fence line ends with `\r\n`.
    pub crlf: bool,
    /// Whether a closing `---` (or `...`) line was found.
    pub closed: bool,
    /// Byte offset in the text where the body starts (after the closing fence line).
    pub body_offset: usize,
    /// 1-based line number of the body's first line.
    pub body_start_line: usize,
    /// When the block closed at a `...` line and a `---` line follows later: the lines between
    /// the two. Obsidian reads a block to its `---`, so these lines are frontmatter to a
    /// person; whether they mark the note private is judged too ([`privacy`], [`parse_text`]).
    pub dots_tail: Option<&'a str>,
}

/// Characters a person cannot see (zero-width spaces and joiners, direction marks, the soft
/// hyphen, word joiners, the byte-order mark): ignored before a fence and in a key.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{061c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2060}'..='\u{2064}'
            | '\u{feff}'
    )
}

/// The lines of `text` from byte `from`: `(start, content end, next start)`, a line ending at
/// `\n`, `\r\n` or a lone `\r` (old Mac files), so a fence is found whatever the line endings.
fn lines_from(text: &str, from: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = from;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(bytes.len(), |i| start + i);
        let next = match bytes.get(end) {
            Some(b'\r') if bytes.get(end + 1) == Some(&b'\n') => end + 2,
            Some(_) => end + 1,
            None => end,
        };
        at = next;
        Some((start, end, next))
    })
}

/// Whether a line is a `---` fence (trailing whitespace allowed).
fn is_dashes(line: &str) -> bool {
    line.trim_end() == "---"
}

/// Finds the leading frontmatter block; `None` when the text does not open with one.
///
/// The opening `---` is the first line (after a byte-order mark), or, displaced, the first
/// line that is not blank after blank lines or zero-width characters a person cannot see
/// (zero-width characters before the fence count as nothing too). A displaced block counts only
/// when it closes and parses as a mapping: then the person plainly wrote frontmatter, and it is
/// read (a `private: true` in it withholds the note), where Obsidian would show it as text.
pub(crate) fn block(text: &str) -> Option<Block<'_>> {
    let mut displaced = false;
    let mut fence = None;
    for (start, end, next) in lines_from(text, 0) {
        let line = &text[start..end];
        let line = if start == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if line.contains(is_invisible) {
            displaced = true;
        }
        let visible = line.trim_matches(|c: char| c.is_whitespace() || is_invisible(c));
        if visible == "---"
            && !line
                .trim_start_matches(is_invisible)
                .starts_with(char::is_whitespace)
        {
            fence = Some((end, next));
            break;
        }
        if !visible.is_empty() {
            return None;
        }
        displaced = true;
    }
    let (fence_end, start) = fence?;
    let crlf = text.as_bytes().get(fence_end) == Some(&b'\r')
        && text.as_bytes().get(fence_end + 1) == Some(&b'\n');
    let line_of = |offset: usize| {
        1 + text[..offset].bytes().filter(|&b| b == b'\n').count() + lone_crs(&text[..offset])
    };
    let mut found = None;
    for (ls, le, next) in lines_from(text, start) {
        let trimmed = text[ls..le].trim_end();
        if trimmed == "---" || trimmed == "..." {
            found = Some((ls, next, trimmed == "..."));
            break;
        }
    }
    let b = match found {
        Some((close_start, body_offset, dots)) => Block {
            yaml: &text[start..close_start],
            yaml_start: start,
            close_start,
            crlf,
            closed: true,
            body_offset,
            body_start_line: line_of(body_offset),
            dots_tail: if dots {
                lines_from(text, body_offset)
                    .find(|&(ls, le, _)| is_dashes(&text[ls..le]))
                    .map(|(ls, _, _)| &text[body_offset..ls])
            } else {
                None
            },
        },
        None => Block {
            yaml: &text[start..],
            yaml_start: start,
            close_start: text.len(),
            crlf,
            closed: false,
            body_offset: text.len(),
            body_start_line: line_of(text.len()),
            dots_tail: None,
        },
    };
    if displaced && (!b.closed || parse(b.yaml).is_err()) {
        return None;
    }
    Some(b)
}

/// How many lone `\r` line breaks (not followed by `\n`) `text` holds.
fn lone_crs(text: &str) -> usize {
    let b = text.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n'))
        .count()
}

/// A frontmatter line that marks a note private however the rest of its block reads: a
/// `private:` key (invisible characters ignored) with a value that is not plainly false, or a
/// `tags:` line whose value starts with `#private` (which YAML reads as a comment).
fn private_line(line: &str) -> bool {
    static KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:private|tags?)\s*:\s*(.*?)\s*$").expect("static regex")
    });
    let visible: String = line.chars().filter(|c| !is_invisible(*c)).collect();
    let Some(c) = KEY.captures(&visible) else {
        return false;
    };
    let key = visible.trim_start().to_ascii_lowercase();
    let value = c.get(1).map_or("", |m| m.as_str());
    if key.starts_with("private") {
        // The value as YAML reads it alone (`0.0`, `~`, `"off"`), else as text.
        let v = parse(&format!("v: {value}"))
            .ok()
            .and_then(|m| m.get("v").cloned())
            .unwrap_or_else(|| Value::String(value.to_string()));
        !plainly_false(&v)
    } else {
        let v = value
            .trim_start_matches(['[', '"', '\''])
            .to_ascii_lowercase();
        v.starts_with("#private")
    }
}

/// Frontmatter a person plainly wrote that the YAML reading misses, judged line by line (fail
/// closed): a displaced block (see [`block`]) that closes but does not parse, the lines after a
/// `...` close up to the `---` Obsidian closes at whether or not they parse, and a `tags:
/// #private` line (a YAML comment) in any block.
pub(crate) fn loosely_private(text: &str) -> bool {
    let region = |start: usize| -> Option<&str> {
        let (ls, _, _) = lines_from(text, start).find(|&(ls, le, _)| {
            let t = text[ls..le].trim_end();
            t == "---" || t == "..."
        })?;
        Some(&text[start..ls])
    };
    // The opening fence: the first line, or displaced after blank and invisible lines.
    let mut yaml_start = None;
    for (start, end, next) in lines_from(text, 0) {
        let line = text[start..end].trim_matches(|c: char| c.is_whitespace() || is_invisible(c));
        if line == "---" {
            yaml_start = Some(next);
            break;
        }
        if !line.is_empty() {
            break;
        }
    }
    let Some(start) = yaml_start else {
        return false;
    };
    let Some(yaml) = region(start) else {
        return false;
    };
    if yaml.lines().any(private_line) {
        return true;
    }
    // After a `...` close, the lines up to a later `---`.
    let close = start + yaml.len();
    let close_line_end = lines_from(text, close)
        .next()
        .map_or(text.len(), |(_, _, n)| n);
    if text[close..close_line_end].trim_end() == "..." {
        let tail_end = lines_from(text, close_line_end)
            .find(|&(ls, le, _)| is_dashes(&text[ls..le]))
            .map(|(ls, _, _)| ls);
        if let Some(end) = tail_end
            && text[close_line_end..end].lines().any(private_line)
        {
            return true;
        }
    }
    false
}

/// Whether a head of a note may hold frontmatter past its end that decides privacy: a block
/// opening after blank or invisible lines that does not close within it, or a block closed
/// by `...` whose `---` is not within it. The exposure policy then reads the longer head.
pub(crate) fn wants_longer_head(head: &str) -> bool {
    let mut opened = None;
    for (start, end, next) in lines_from(head, 0) {
        let line = head[start..end].trim_matches(|c: char| c.is_whitespace() || is_invisible(c));
        if line == "---" {
            opened = Some(next);
            break;
        }
        if !line.is_empty() {
            return false;
        }
    }
    let Some(start) = opened else {
        return false;
    };
    match lines_from(head, start).find(|&(ls, le, _)| {
        let t = head[ls..le].trim_end();
        t == "---" || t == "..."
    }) {
        None => true,
        Some((ls, le, next)) => {
            head[ls..le].trim_end() == "..."
                && !lines_from(head, next).any(|(a, b, _)| is_dashes(&head[a..b]))
        }
    }
}

/// Whether the lines after a block closed by `...` (up to a later `---`: see
/// [`Block::dots_tail`]) parse as a mapping that marks the note private.
fn tail_marks_private(b: &Block<'_>) -> bool {
    b.dots_tail
        .is_some_and(|tail| parse(tail).is_ok_and(|map| marks_private(&map)))
}

/// Parses a frontmatter block's YAML into a JSON map (empty for an empty block or `null`).
///
/// Merge keys (`<<`) are applied. Errors (not YAML, not a key: value mapping, duplicate keys, a
/// malformed merge, values JSON cannot hold) are returned as a sentence for a warning.
pub(crate) fn parse(yaml: &str) -> Result<Map<String, Value>, String> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    let mut value: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())?;
    // Merge keys (`<<: {private: true}`, `<<: *anchor`) are YAML's way of writing keys: a
    // note's fields are what they say after the merge, as other YAML readers see them.
    value.apply_merge().map_err(|e| e.to_string())?;
    finite_or_text(&mut value);
    let value = match value {
        serde_yaml_ng::Value::Null => return Ok(Map::new()),
        serde_yaml_ng::Value::Mapping(_) => value,
        _ => return Err("frontmatter is not a key: value mapping".to_string()),
    };
    match serde_json::to_value(&value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("frontmatter is not a key: value mapping".to_string()),
        Err(e) => Err(format!("frontmatter cannot be represented: {e}")),
    }
}

/// Non-finite floats (`.inf`, `-.Inf`, `.nan`) have no JSON form (they would become `null`,
/// which reads as "not set"): they are kept as their text, so `private: .inf` is not plainly
/// false and withholds the note.
fn finite_or_text(value: &mut serde_yaml_ng::Value) {
    use serde_yaml_ng::Value as Y;
    match value {
        Y::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| !f.is_finite()) {
                *value = Y::String(f.to_string());
            }
        }
        Y::Sequence(items) => items.iter_mut().for_each(finite_or_text),
        Y::Mapping(map) => map.iter_mut().for_each(|(_, v)| finite_or_text(v)),
        Y::Tagged(t) => finite_or_text(&mut t.value),
        Y::Null | Y::Bool(_) | Y::String(_) => {}
    }
}

/// The parsed frontmatter of a whole text: `Ok(None)` without a block, an error for a block
/// that never closes or does not parse. When lines after a `...` close (up to a later `---`,
/// where Obsidian ends the block) mark the note private, the map says `private: true`.
pub(crate) fn parse_text(text: &str) -> Result<Option<Map<String, Value>>, String> {
    let mut parsed = match block(text) {
        None => None,
        Some(b) if !b.closed => return Err("frontmatter never closes".to_string()),
        Some(b) => {
            let mut map = parse(b.yaml)?;
            if tail_marks_private(&b) {
                map.insert("private".to_string(), Value::Bool(true));
            }
            Some(map)
        }
    };
    if loosely_private(text) {
        parsed
            .get_or_insert_with(Map::new)
            .insert("private".to_string(), Value::Bool(true));
    }
    Ok(parsed)
}

/// A field that may be a string (comma-separated, and space-separated too with
/// `split_spaces`), a number or a list of those, as trimmed non-empty strings.
pub(crate) fn string_list(value: Option<&Value>, split_spaces: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |s: &str| {
        let pieces: Vec<&str> = if split_spaces {
            s.split([',', ' ']).collect()
        } else {
            s.split(',').collect()
        };
        out.extend(
            pieces
                .into_iter()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_string),
        );
    };
    match value {
        Some(Value::String(s)) => push(s),
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_string()),
                    Value::Number(n) => out.push(n.to_string()),
                    _ => {}
                }
            }
        }
        Some(Value::Number(n)) => out.push(n.to_string()),
        _ => {}
    }
    out
}

/// The value of `key` in a map, matching the key case-insensitively (first match in the map's
/// order), so `Private:` and `private:` mean the same.
pub(crate) fn get_ci<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.iter()
        .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
}

/// Whether a parsed frontmatter marks its note private.
///
/// Any `private` key (any case) whose value is not plainly false makes the note private: only
/// `false`, `null`/empty, `0` and the strings `false`, `no`, `n`, `off`, `0` (any case) leave it
/// public, so `true`, `"true"`, `yes`, `on`, `1` and anything unexpected all withhold it.
/// A `private` item in `tags` or `tag` (a list, or a comma- or space-separated string, `#`
/// allowed) does too.
pub(crate) fn marks_private(map: &Map<String, Value>) -> bool {
    let flagged = map
        .iter()
        .filter(|(k, _)| visible_key(k).eq_ignore_ascii_case("private"))
        .any(|(_, v)| !plainly_false(v));
    flagged
        || ["tags", "tag"].iter().any(|key| {
            map.iter()
                .filter(|(k, _)| k.trim().eq_ignore_ascii_case(key))
                .any(|(_, v)| {
                    string_list(Some(v), true)
                        .iter()
                        .any(|t| is_private_tag(t.trim_start_matches('#')))
                })
        })
}

/// A key as a person reads it: trimmed, without characters they cannot see.
fn visible_key(k: &str) -> String {
    k.chars()
        .filter(|c| !is_invisible(*c))
        .collect::<String>()
        .trim()
        .to_string()
}

/// `private`, or a tag nested under it (`private/hr`: Obsidian reads it as a child of
/// `#private`), in any case.
fn is_private_tag(tag: &str) -> bool {
    let top = tag.split('/').next().unwrap_or(tag);
    top.trim().eq_ignore_ascii_case("private")
}

fn plainly_false(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => matches!(
            s.trim().to_ascii_lowercase().as_str(),
            "" | "false" | "no" | "n" | "off" | "0"
        ),
        Value::Array(_) | Value::Object(_) => false,
    }
}

/// What a head of a note says about its privacy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Privacy {
    /// No frontmatter, or one that parses and does not mark the note.
    Public,
    /// Marked private, or a frontmatter that cannot be parsed (fail closed).
    Private,
    /// The block opens but does not close within the text: read more before deciding.
    Unclosed,
    /// Not private, but an agent memory (`source: mcp-capture` or `hand-filed`): it carries a
    /// scope, so it is served only through recall, wherever it lies, never as a note. A
    /// `reason` record (`source: mcp-reason`: one caller's question and its answer) is kept
    /// from agents the same way.
    Capture,
}

/// Judges privacy on a head of a note (its first characters).
pub(crate) fn privacy(head: &str) -> Privacy {
    match strict_privacy(head) {
        Privacy::Public | Privacy::Capture if loosely_private(head) => Privacy::Private,
        verdict => verdict,
    }
}

fn strict_privacy(head: &str) -> Privacy {
    match block(head) {
        None => Privacy::Public,
        Some(b) if !b.closed => Privacy::Unclosed,
        Some(b) if tail_marks_private(&b) => Privacy::Private,
        Some(b) => match parse(b.yaml) {
            Ok(map) => privacy_of(&map),
            Err(_) => Privacy::Private,
        },
    }
}

/// What a parsed frontmatter says: [`Privacy::Private`] when [`marks_private`], else
/// [`Privacy::Capture`] for an agent memory, else [`Privacy::Public`].
pub(crate) fn privacy_of(map: &Map<String, Value>) -> Privacy {
    let capture = || {
        map.iter()
            .filter(|(k, _)| k.trim().eq_ignore_ascii_case("source"))
            .any(|(_, v)| {
                v.as_str().is_some_and(|s| {
                    [MEMORY_SOURCE, HAND_FILED_SOURCE, REASON_SOURCE]
                        .iter()
                        .any(|m| s.trim().eq_ignore_ascii_case(m))
                })
            })
    };
    if marks_private(map) {
        Privacy::Private
    } else if capture() {
        Privacy::Capture
    } else {
        Privacy::Public
    }
}

// ---------------------------------------------------------------------------------------------
// The line-level subset memories are written in (§A.10 / §A.7)
// ---------------------------------------------------------------------------------------------

/// A frontmatter value of the subset memories are written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FmValue {
    /// A bare, single-quoted or double-quoted scalar, unquoted.
    Scalar(String),
    /// An inline `[...]` list, each entry unquoted.
    List(Vec<String>),
}

/// The leading block of `md` when it closes (a block that never closes counts as none here: an
/// edit must not write into a body it cannot tell from the frontmatter).
fn closed_block(md: &str) -> Option<Block<'_>> {
    block(md).filter(|b| b.closed)
}

/// The text inside the leading block of `md` (without the line break before the closing fence)
/// and the byte offset just after its closing fence line; `None` without a closed block.
pub(crate) fn inside_and_after(md: &str) -> Option<(&str, usize)> {
    closed_block(md).map(|b| {
        let inside = b.yaml.strip_suffix('\n').unwrap_or(b.yaml);
        let inside = inside.strip_suffix('\r').unwrap_or(inside);
        (inside, b.body_offset)
    })
}

/// Removes one layer of quoting from a scalar or list entry: `"…"` is JSON-parsed (falling back
/// to stripping the quotes), `'…'` is stripped with `''` read as `'`, anything else is kept.
fn unquote(v: &str) -> String {
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
static FM_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*))?$").expect("static regex")
});

/// Parses one frontmatter value of the subset.
fn parse_value(v: &str) -> FmValue {
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
pub(crate) fn parse_subset(md: &str) -> BTreeMap<String, FmValue> {
    let mut out = BTreeMap::new();
    let Some((inside, _)) = inside_and_after(md) else {
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

/// Result of [`add_to_list`].
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
struct FmLine {
    /// First byte of the line.
    start: usize,
    /// End of the line's content (before `\r\n` / `\n`).
    end: usize,
    /// First byte of the next line.
    next: usize,
}

/// The lines inside a frontmatter block.
fn fm_lines(md: &str, span: &Block<'_>) -> Vec<FmLine> {
    let mut lines = Vec::new();
    let mut pos = span.yaml_start;
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
pub(crate) fn add_to_list(md: &str, key: &str, value: &str) -> FmEdit {
    let Some(span) = closed_block(md) else {
        return FmEdit::NoFrontmatter;
    };
    let eol = if span.crlf { "\r\n" } else { "\n" };
    let quoted = json_str(value);
    let lines = fm_lines(md, &span);
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

/// Characters a YAML double-quoted scalar may not hold raw (JSON leaves them unescaped).
fn needs_yaml_escape(c: char) -> bool {
    matches!(
        c,
        '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}

/// JSON-encodes `s` as a quoted string. The result is also a valid YAML double-quoted scalar and
/// never contains a raw line break, so it can sit on one frontmatter line.
pub(crate) fn json_str(s: &str) -> String {
    let raw = serde_json::to_string(s).unwrap_or_else(|_| String::from("\"\""));
    if !raw.chars().any(needs_yaml_escape) {
        return raw;
    }
    let mut out = String::with_capacity(raw.len() + 12);
    for c in raw.chars() {
        if needs_yaml_escape(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    const MEMORY: &str = "---\ndate: 2026-07-26\ndescription: \"x\"\nsource: mcp-capture\n\
                          projects: [\"pocket\"]\n---\n\n# Old lesson\n\nBody with ---\n\
                          superseded_by: [\"not me\"]\n";

    #[test]
    fn blocks_open_on_the_first_line_and_close_at_a_fence() {
        let b = block("---\na: 1\n---\nbody\n").unwrap();
        assert_eq!((b.yaml, b.closed, b.body_start_line), ("a: 1\n", true, 4));
        assert_eq!(&"---\na: 1\n---\nbody\n"[b.body_offset..], "body\n");
        let b = block("\u{feff}---\r\na: 1\r\n...\r\nx").unwrap();
        assert_eq!((b.yaml, b.closed), ("a: 1\r\n", true));
        assert!(block("# t\n---\na: 1\n---\n").is_none());
        assert!(block("").is_none());
        let b = block("---\na: 1\n").unwrap();
        assert!(!b.closed);
        assert_eq!(b.yaml, "a: 1\n");
    }

    #[test]
    fn every_spelling_a_person_means_as_private_is_private() {
        for fm in [
            "private: true",
            "Private: TRUE",
            "private:  true",
            "\"private\": true",
            "private:\n  true",
            "{private: true, title: X}",
            "private: \"true\"",
            "private: yes",
            "private: Yes",
            "private: on",
            "private: 1",
            "private: 'y'",
            "PRIVATE: maybe",
            "private: [true]",
            "tags: [work, private]",
            "tags: \"#private\"",
            "tags: work private",
            "tags:\n  - work\n  - Private",
            "Tag: private",
            // Non-finite floats have no JSON form; they must not read as null ("not set").
            "private: .inf",
            "private: +.Inf",
            "private: -.INF",
            "private: .nan",
            "private: .NaN",
            "private: [.nan]",
            "private: !!float .inf",
            // A tag nested under `private` (Obsidian: a child of #private).
            "tags: [private/hr]",
            "tags: \"#Private/HR\"",
            "tags: work private/people/reviews",
            // Not a mapping, not YAML, duplicate keys: fail closed.
            "private",
            "private:\ntrue",
            "title: a: b",
            "private: false\nprivate: true",
        ] {
            let text = format!("---\n{fm}\n---\nbody\n");
            assert_eq!(privacy(&text), Privacy::Private, "{fm:?}");
        }
    }

    #[test]
    fn frontmatter_a_person_plainly_wrote_is_read_however_it_is_laid_out() {
        // A `...` line ends YAML, but Obsidian reads on to the `---`: a `private: true` there
        // withholds the note on every path (the verdict and the parsed map).
        let dots = "---\ntitle: Layoffs\n...\nprivate: true\n---\nbody\n";
        assert_eq!(privacy(dots), Privacy::Private);
        assert_eq!(
            parse_text(dots).unwrap().unwrap().get("private"),
            Some(&Value::Bool(true))
        );
        // ... but a `---` rule later in a body is not a reason to withhold a note.
        let rule = "---\ntitle: x\n...\nSome text.\n\n---\nMore.\n";
        assert_eq!(privacy(rule), Privacy::Public);
        // Blank lines, or zero-width characters, before the opening fence.
        for lead in [
            "\n",
            "\n\n",
            "  \n",
            "\u{200b}",
            "\u{200b}\n",
            "\u{feff}\u{2060}",
            "\r\n",
        ] {
            let text = format!("{lead}---\nprivate: true\n---\nbody\n");
            assert_eq!(privacy(&text), Privacy::Private, "{lead:?}");
            let b = block(&text).expect("displaced block");
            assert_eq!(&text[b.body_offset..], "body\n", "{lead:?}");
        }
        // A displaced fence that is a rule (no mapping follows, or it never closes) is text.
        assert_eq!(privacy("\n---\nJust a rule.\n---\n"), Privacy::Public);
        assert_eq!(privacy("\n---\nprivate: true\n"), Privacy::Public);
        assert!(block("\n---\nJust a rule.\n").is_none());
        assert!(block("text\n---\nprivate: true\n---\n").is_none());
        assert!(block(" ---\nprivate: true\n---\n").is_none());
        // Old Mac line endings (a lone CR).
        let cr = "---\rprivate: true\r---\rbody\r";
        assert_eq!(privacy(cr), Privacy::Private);
        let b = block(cr).unwrap();
        assert_eq!((b.closed, b.body_start_line), (true, 4));
        assert_eq!(&cr[b.body_offset..], "body\r");
        assert_eq!(privacy("---\rtitle: x\r---\rbody"), Privacy::Public);
        // Found by a review: what the YAML reading misses, read line by line (fail closed).
        for text in [
            // A displaced block that does not parse.
            "\n---\ntitle: Layoffs: Q3\nprivate: true\n---\nbody\n",
            // A `...` tail that does not parse.
            "---\ntitle: x\n...\nprivate: true\nand a prose line: here\n---\nbody\n",
            // Invisible characters: a left-to-right mark before the fence, a soft hyphen on
            // the blank line, a zero-width space inside the key.
            "\u{200e}---\nprivate: true\n---\nbody\n",
            "\u{00ad}\n---\nprivate: true\n---\nbody\n",
            "---\npri\u{200b}vate: true\n---\nbody\n",
            // `#private` after `tags:` is a YAML comment.
            "---\ntags: #private\n---\nbody\n",
        ] {
            assert_eq!(privacy(text), Privacy::Private, "{text:?}");
            assert_eq!(
                parse_text(text)
                    .ok()
                    .flatten()
                    .and_then(|m| m.get("private").cloned()),
                Some(Value::Bool(true)),
                "{text:?}"
            );
        }
        assert_eq!(
            privacy("\n---\nJust a rule: with a colon.\n---\n"),
            Privacy::Public
        );
        // A head that may hold the deciding lines past its end asks for a longer read.
        assert!(wants_longer_head("\n---\ntitle: x\nmore: y\n"));
        assert!(wants_longer_head("---\ntitle: x\n...\nstill frontmatter\n"));
        assert!(!wants_longer_head("---\ntitle: x\n...\ntail\n---\nbody"));
        assert!(!wants_longer_head("# Title\n---\n"));
    }

    #[test]
    fn plainly_false_values_and_other_keys_stay_public() {
        for fm in [
            "private: false",
            "Private: FALSE",
            "private: no",
            "private: \"off\"",
            "private: 0",
            "private:",
            "private: ~",
            "tags: [work, privacy]",
            "tags: [privately, hr/private]",
            "private: 0.0",
            "description: private notes on x",
            "title: x",
            "",
        ] {
            let text = format!("---\n{fm}\n---\nThis is private.\nprivate: true\n");
            assert_eq!(privacy(&text), Privacy::Public, "{fm:?}");
        }
        assert_eq!(privacy("no frontmatter\nprivate: true\n"), Privacy::Public);
        assert_eq!(privacy("---\nprivate: false\n"), Privacy::Unclosed);
    }

    #[test]
    fn string_lists_take_strings_numbers_and_lists() {
        let v: Value = serde_json::json!(["a", " b ", 3, true, ""]);
        assert_eq!(string_list(Some(&v), false), ["a", "b", "3"]);
        let v: Value = serde_json::json!("a, b c");
        assert_eq!(string_list(Some(&v), true), ["a", "b", "c"]);
        assert_eq!(string_list(Some(&v), false), ["a", "b c"]);
        assert!(string_list(None, true).is_empty());
    }

    #[test]
    fn inside_and_after_finds_the_leading_fence() {
        let (inside, after) = inside_and_after("---\na: 1\nb: 2\n---\nbody").expect("block");
        assert_eq!(inside, "a: 1\nb: 2");
        assert_eq!(after, "---\na: 1\nb: 2\n---\n".len());
        let (inside, after) =
            inside_and_after("\u{feff}---\r\na: 1\r\n---\r\n# T\r\n").expect("bom");
        assert_eq!(inside, "a: 1");
        assert_eq!(after, "\u{feff}---\r\na: 1\r\n---\r\n".len());
        assert_eq!(inside_and_after("---\n---\n"), Some(("", 8)));
        assert_eq!(inside_and_after("---\na: 1\n---"), Some(("a: 1", 12)));
        assert_eq!(inside_and_after("# no frontmatter\n---\n"), None);
        assert_eq!(inside_and_after("---\na: 1\nnever closed\n"), None);
        assert_eq!(inside_and_after(""), None);
        assert_eq!(inside_and_after(" ---\na\n---\n"), None);
    }

    #[test]
    fn parse_subset_reads_the_subset() {
        let md = "---\ndate: 2026-07-26\ndescription: \"say \\\"hi\\\": now\"\nprojects: []\n\
                  tags: [memory]\nplatforms: ['ios', \"web\"]\nempty:\nquoted: 'it''s'\n\
                  superseded_by: [\"one, with comma\", \"two, also\"]\n\
                  escaped: [\"say \\\"a, b\\\" ok\", \"z\"]\n  indented: skipped\n\
                  9bad: skipped\nscope: general\n---\n# T\n";
        let fm = parse_subset(md);
        let scalar = |s: &str| FmValue::Scalar(s.to_owned());
        let list = |v: &[&str]| FmValue::List(strings(v));
        assert_eq!(fm.get("date"), Some(&scalar("2026-07-26")));
        assert_eq!(fm.get("description"), Some(&scalar("say \"hi\": now")));
        assert_eq!(fm.get("projects"), Some(&list(&[])));
        assert_eq!(fm.get("tags"), Some(&list(&["memory"])));
        assert_eq!(fm.get("platforms"), Some(&list(&["ios", "web"])));
        assert_eq!(fm.get("empty"), None);
        assert_eq!(fm.get("quoted"), Some(&scalar("it's")));
        assert_eq!(
            fm.get("superseded_by"),
            Some(&list(&["one, with comma", "two, also"]))
        );
        assert_eq!(fm.get("escaped"), Some(&list(&["say \"a, b\" ok", "z"])));
        assert_eq!(fm.get("indented"), None);
        assert_eq!(fm.get("9bad"), None);
        assert_eq!(fm.get("scope"), Some(&scalar("general")));
        assert_eq!(fm.len(), 9);
        assert!(parse_subset("").is_empty());
        assert!(parse_subset("# just a note\n\nsource: mcp-capture\n").is_empty());
        let crlf = parse_subset("---\r\nsource: mcp-capture\r\nprojects: [\"a\"]\r\n---\r\n");
        assert_eq!(crlf.get("source"), Some(&scalar("mcp-capture")));
        assert_eq!(crlf.get("projects"), Some(&list(&["a"])));
        // A broken JSON string falls back to stripping the quotes.
        let broken = parse_subset("---\na: \"bad \\q\"\n---\n");
        assert_eq!(broken.get("a"), Some(&scalar("bad \\q")));
    }

    #[test]
    fn split_inline_list_is_quote_aware() {
        assert_eq!(split_inline_list(""), Vec::<String>::new());
        assert_eq!(split_inline_list("  "), Vec::<String>::new());
        assert_eq!(split_inline_list("a, b ,c"), strings(&["a", "b", "c"]));
        assert_eq!(
            split_inline_list(r#""x, y", 'p, q', "a\"b, c", plain"#),
            strings(&["x, y", "p, q", "a\"b, c", "plain"])
        );
        assert_eq!(split_inline_list("it's, fine"), strings(&["it's", "fine"]));
        assert_eq!(
            split_inline_list("'it''s, ok', b"),
            strings(&["it's, ok", "b"])
        );
        assert_eq!(
            split_inline_list(r#""back\\slash", "u\u00e9""#),
            strings(&["back\\slash", "ué"])
        );
    }

    #[test]
    fn add_to_list_appends_and_extends() {
        let FmEdit::Changed(once) = add_to_list(MEMORY, "superseded_by", "New Title") else {
            panic!("expected a change");
        };
        let expected = MEMORY.replacen(
            "projects: [\"pocket\"]\n---\n",
            "projects: [\"pocket\"]\nsuperseded_by: [\"New Title\"]\n---\n",
            1,
        );
        assert_eq!(once, expected);
        assert_eq!(once.matches("\n---\n").count(), 1, "body fence untouched");
        assert!(once.ends_with("Body with ---\nsuperseded_by: [\"not me\"]\n"));

        let FmEdit::Changed(twice) = add_to_list(&once, "superseded_by", "Second") else {
            panic!("expected a change");
        };
        assert!(
            twice.contains("superseded_by: [\"New Title\", \"Second\"]\n---\n"),
            "{twice}"
        );
        assert_eq!(
            parse_subset(&twice).get("superseded_by"),
            Some(&FmValue::List(strings(&["New Title", "Second"])))
        );
        fn body(md: &str) -> &str {
            &md[inside_and_after(md).expect("block").1..]
        }
        assert_eq!(body(&twice), body(MEMORY));
        assert_eq!(
            add_to_list(&twice, "superseded_by", "New Title"),
            FmEdit::AlreadyPresent
        );
        assert_eq!(
            add_to_list(&twice, "superseded_by", "Second"),
            FmEdit::AlreadyPresent
        );
        // Other keys are byte-identical and in order.
        let keys: Vec<&str> = twice.lines().take(7).collect();
        assert_eq!(
            keys,
            vec![
                "---",
                "date: 2026-07-26",
                "description: \"x\"",
                "source: mcp-capture",
                "projects: [\"pocket\"]",
                "superseded_by: [\"New Title\", \"Second\"]",
                "---"
            ]
        );
    }

    #[test]
    fn add_to_list_without_frontmatter_changes_nothing() {
        let md = "# A human note\n\nsuperseded_by: nothing here\n";
        assert_eq!(add_to_list(md, "superseded_by", "X"), FmEdit::NoFrontmatter);
        assert_eq!(
            add_to_list("---\nnever: closed\n", "superseded_by", "X"),
            FmEdit::NoFrontmatter
        );
    }

    #[test]
    fn awkward_values_keep_the_list_parseable() {
        let quotes = "He said \"stop\": then \\ left";
        let comma = "Fix A, then B";
        let FmEdit::Changed(md) = add_to_list(MEMORY, "superseded_by", quotes) else {
            panic!("expected a change");
        };
        let FmEdit::Changed(md) = add_to_list(&md, "superseded_by", comma) else {
            panic!("expected a change");
        };
        let line = md
            .lines()
            .find(|l| l.starts_with("superseded_by: "))
            .expect("line");
        let json: Vec<String> =
            serde_json::from_str(line.trim_start_matches("superseded_by: ")).expect("json list");
        assert_eq!(json, strings(&[quotes, comma]));
        assert_eq!(
            parse_subset(&md).get("superseded_by"),
            Some(&FmValue::List(strings(&[quotes, comma])))
        );
        let yaml: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(inside_and_after(&md).expect("block").0).expect("yaml");
        assert_eq!(yaml["superseded_by"][1].as_str(), Some(comma));
        assert_eq!(
            add_to_list(&md, "superseded_by", comma),
            FmEdit::AlreadyPresent
        );
    }

    #[test]
    fn add_to_list_other_shapes() {
        // Empty inline list.
        let md = "---\nsuperseded_by: []\nx: 1\n---\nbody\n";
        assert_eq!(
            add_to_list(md, "superseded_by", "T"),
            FmEdit::Changed(String::from(
                "---\nsuperseded_by: [\"T\"]\nx: 1\n---\nbody\n"
            ))
        );
        // Scalar becomes a list.
        let md = "---\nsuperseded_by: \"A\"\n---\n";
        assert_eq!(
            add_to_list(md, "superseded_by", "B"),
            FmEdit::Changed(String::from("---\nsuperseded_by: [\"A\", \"B\"]\n---\n"))
        );
        assert_eq!(
            add_to_list(md, "superseded_by", "A"),
            FmEdit::AlreadyPresent
        );
        // Block list gets one more item.
        let md = "---\nsuperseded_by:\n  - \"A\"\nz: 2\n---\n";
        assert_eq!(
            add_to_list(md, "superseded_by", "B"),
            FmEdit::Changed(String::from(
                "---\nsuperseded_by:\n  - \"A\"\n  - \"B\"\nz: 2\n---\n"
            ))
        );
        assert_eq!(
            add_to_list(md, "superseded_by", "A"),
            FmEdit::AlreadyPresent
        );
        // Empty key with no items.
        let md = "---\nsuperseded_by:\nz: 2\n---\n";
        assert_eq!(
            add_to_list(md, "superseded_by", "B"),
            FmEdit::Changed(String::from("---\nsuperseded_by: [\"B\"]\nz: 2\n---\n"))
        );
        // Empty frontmatter, CRLF and BOM.
        assert_eq!(
            add_to_list("---\n---\n", "k", "v"),
            FmEdit::Changed(String::from("---\nk: [\"v\"]\n---\n"))
        );
        let md = "\u{feff}---\r\nsource: mcp-capture\r\n---\r\n# T\r\n";
        assert_eq!(
            add_to_list(md, "superseded_by", "N"),
            FmEdit::Changed(String::from(
                "\u{feff}---\r\nsource: mcp-capture\r\nsuperseded_by: [\"N\"]\r\n---\r\n# T\r\n"
            ))
        );
        // A key that merely starts with the same letters is a different key.
        let md = "---\nsuperseded_by_x: [\"A\"]\n---\n";
        assert_eq!(
            add_to_list(md, "superseded_by", "A"),
            FmEdit::Changed(String::from(
                "---\nsuperseded_by_x: [\"A\"]\nsuperseded_by: [\"A\"]\n---\n"
            ))
        );
    }
}
