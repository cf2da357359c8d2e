//! The one frontmatter reader: where a note's leading YAML block starts and ends, what it
//! parses to, and whether it marks the note private.
//!
//! Every part of the engine that looks at a note's frontmatter (the note parser, the exposure
//! policy's privacy check, aliases for link resolution, a project's platforms) goes through this
//! module, so a note can never be private for one surface and public for another.
//!
//! A block opens with a first line that is exactly `---` (a byte-order mark and trailing
//! whitespace allowed) and closes at the next line that is `---` or `...`.

use serde_json::{Map, Value};

/// The leading frontmatter block of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block<'a> {
    /// The lines between the fences (to the end of the text when the block never closes).
    pub yaml: &'a str,
    /// Whether a closing `---` (or `...`) line was found.
    pub closed: bool,
    /// Byte offset in the text where the body starts (after the closing fence line).
    pub body_offset: usize,
    /// 1-based line number of the body's first line.
    pub body_start_line: usize,
}

/// Finds the leading frontmatter block; `None` when the text does not open with one.
pub(crate) fn block(text: &str) -> Option<Block<'_>> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let first_end = text[bom..].find('\n').map_or(text.len(), |i| bom + i);
    if text[bom..first_end].trim_end() != "---" {
        return None;
    }
    let start = (first_end + 1).min(text.len());
    let mut offset = start;
    let mut line_no = 2;
    for line in text[start..].split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            return Some(Block {
                yaml: &text[start..offset],
                closed: true,
                body_offset: offset + line.len(),
                body_start_line: line_no + 1,
            });
        }
        offset += line.len();
        line_no += 1;
    }
    Some(Block {
        yaml: &text[start..],
        closed: false,
        body_offset: text.len(),
        body_start_line: line_no,
    })
}

/// Parses a frontmatter block's YAML into a JSON map (empty for an empty block or `null`).
///
/// Errors (not YAML, not a key: value mapping, duplicate keys, values JSON cannot hold) are
/// returned as a sentence for a warning.
pub(crate) fn parse(yaml: &str) -> Result<Map<String, Value>, String> {
    if yaml.trim().is_empty() {
        return Ok(Map::new());
    }
    let value: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())?;
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

/// The parsed frontmatter of a whole text: `Ok(None)` without a block, an error for a block
/// that never closes or does not parse.
pub(crate) fn parse_text(text: &str) -> Result<Option<Map<String, Value>>, String> {
    match block(text) {
        None => Ok(None),
        Some(b) if !b.closed => Err("frontmatter never closes".to_string()),
        Some(b) => parse(b.yaml).map(Some),
    }
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
        .filter(|(k, _)| k.trim().eq_ignore_ascii_case("private"))
        .any(|(_, v)| !plainly_false(v));
    flagged
        || ["tags", "tag"].iter().any(|key| {
            map.iter()
                .filter(|(k, _)| k.trim().eq_ignore_ascii_case(key))
                .any(|(_, v)| {
                    string_list(Some(v), true)
                        .iter()
                        .any(|t| t.trim_start_matches('#').eq_ignore_ascii_case("private"))
                })
        })
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
}

/// Judges privacy on a head of a note (its first characters).
pub(crate) fn privacy(head: &str) -> Privacy {
    match block(head) {
        None => Privacy::Public,
        Some(b) if !b.closed => Privacy::Unclosed,
        Some(b) => match parse(b.yaml) {
            Ok(map) if !marks_private(&map) => Privacy::Public,
            _ => Privacy::Private,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
