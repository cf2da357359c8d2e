//! Markdown blocks, line by line: the one reading of fences, headings, block ids and block
//! boundaries that the note parser (headings, links and tags outside code), the chunker, the
//! snippet cleaner and promoted-lesson serving (`note#^id`, `note#Heading`) all share, so a line
//! is code, a heading or a block boundary for every one of them alike.
//!
//! The rules are CommonMark's where they matter here: a fence is a run of three or more
//! backticks or tildes (a backtick fence's info string holds no backtick), closed by a run of
//! the same character at least as long with nothing after it, at the same blockquote depth, or
//! by the end of the blockquote it opened in; an ATX heading is one to six `#` followed by a
//! blank or the end of the line, its closing `#`s and a trailing ` ^id` not part of its text.

use std::collections::HashMap;
use std::ops::Range;

/// The note body's lines, without line ends (frontmatter and a byte-order mark removed).
pub(crate) fn body_lines(md: &str) -> Vec<String> {
    super::body(md)
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
        .collect()
}

/// What a line is to the fences around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FenceLine {
    /// Opens a fenced code block.
    Opens,
    /// Inside an open fenced code block.
    Inside,
    /// Closes the open fenced code block.
    Closes,
    /// Outside any fence: text to read as markdown.
    Text,
}

/// An open fence.
#[derive(Debug, Clone, Copy)]
struct Open {
    ch: u8,
    len: usize,
    depth: usize,
}

/// Follows fenced code blocks through a text, one line at a time.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fences {
    open: Option<Open>,
}

impl Fences {
    /// What `line` (without its line end) is, given the lines before it.
    pub(crate) fn step(&mut self, line: &str) -> FenceLine {
        let (depth, content) = quote_split(line);
        if let Some(f) = self.open {
            if depth >= f.depth {
                if depth == f.depth
                    && content.bytes().take_while(|&b| b == f.ch).count() >= f.len
                    && content.trim_start_matches(f.ch as char).trim().is_empty()
                {
                    self.open = None;
                    return FenceLine::Closes;
                }
                return FenceLine::Inside;
            }
            // The blockquote the fence opened in has ended, and the fence with it.
            self.open = None;
        }
        match fence_open(content) {
            Some((ch, len)) => {
                self.open = Some(Open { ch, len, depth });
                FenceLine::Opens
            }
            None => FenceLine::Text,
        }
    }

    /// Whether `line` is code: a fence line or a line inside a fence.
    pub(crate) fn is_code(&mut self, line: &str) -> bool {
        self.step(line) != FenceLine::Text
    }
}

/// A line without its blockquote marks and leading blanks.
pub(crate) fn unquoted(line: &str) -> &str {
    quote_split(line).1
}

/// The level and text of a heading line outside code (`None` for other lines and for a heading
/// with no text).
pub(crate) fn heading(line: &str) -> Option<(u8, String)> {
    let (level, text) = heading_of(line)?;
    (!text.is_empty()).then(|| (level as u8, text.to_string()))
}

/// Whether `s` is a block id: `[A-Za-z0-9][A-Za-z0-9_-]*`.
fn is_id(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Splits a line into its blockquote depth and its content (leading blanks removed).
fn quote_split(line: &str) -> (usize, &str) {
    let mut rest = line;
    let mut depth = 0;
    loop {
        let trimmed = rest.trim_start_matches([' ', '\t']);
        match trimmed.strip_prefix('>') {
            Some(after) => {
                depth += 1;
                rest = after;
            }
            None => return (depth, trimmed),
        }
    }
}

/// The id of a line that holds only `^id` (indentation, `>` and `|` scaffolding allowed).
fn alone_id(line: &str) -> Option<&str> {
    let inner = line
        .trim_start_matches(|c: char| c.is_whitespace() || c == '>' || c == '|')
        .trim_end_matches(|c: char| c.is_whitespace() || c == '|');
    inner.strip_prefix('^').filter(|id| is_id(id))
}

/// A trailing ` ^id` after other text: the id and the byte length of the line without it.
fn trailing_id(line: &str) -> Option<(&str, usize)> {
    let trimmed = line.trim_end();
    let caret = trimmed.rfind('^')?;
    let id = &trimmed[caret + 1..];
    let before = &trimmed[..caret];
    if !is_id(id) || !before.ends_with(char::is_whitespace) || before.trim().is_empty() {
        return None;
    }
    Some((id, before.trim_end().len()))
}

/// The character and length of a fence opening (``` or ~~~, three or more).
fn fence_open(content: &str) -> Option<(u8, usize)> {
    let ch = *content.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = content.bytes().take_while(|&b| b == ch).count();
    // A backtick fence's info string may not contain a backtick (that is inline code).
    if len < 3 || (ch == b'`' && content[len..].contains('`')) {
        return None;
    }
    Some((ch, len))
}

/// The level and text of an ATX heading (`#` to `######` followed by a blank or the end).
fn heading_of(content: &str) -> Option<(usize, &str)> {
    let level = content.bytes().take_while(|&b| b == b'#').count();
    let rest = &content[level..];
    if level == 0 || level > 6 || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut text = rest.trim();
    if let Some((_, cut)) = trailing_id(text) {
        text = text[..cut].trim_end();
    }
    // An optional closing sequence of `#`s.
    let unclosed = text.trim_end_matches('#');
    if unclosed.len() < text.len() && (unclosed.is_empty() || unclosed.ends_with([' ', '\t'])) {
        text = unclosed.trim_end();
    }
    Some((level, text))
}

/// Whether the content is a thematic rule (three or more `-`, `*` or `_`, blanks between).
fn is_rule(content: &str) -> bool {
    let marks: Vec<char> = content
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t'))
        .collect();
    marks.len() >= 3 && matches!(marks[0], '-' | '*' | '_') && marks.iter().all(|&c| c == marks[0])
}

/// Whether the content starts a bullet item (`-`, `*` or `+` followed by a blank or the end).
fn is_bullet(content: &str) -> bool {
    let mut chars = content.chars();
    matches!(chars.next(), Some('-' | '*' | '+')) && matches!(chars.next(), None | Some(' ' | '\t'))
}

/// Whether the content starts an ordered item (`1.` or `1)` followed by a blank or the end).
fn is_ordered(content: &str) -> bool {
    let digits = content.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &content.as_bytes()[digits..];
    (1..=9).contains(&digits)
        && matches!(rest.first(), Some(b'.' | b')'))
        && matches!(rest.get(1), None | Some(b' ' | b'\t'))
}

/// Whether the content starts an HTML block (`<tag`, `</tag` or `<!`).
fn is_html(content: &str) -> bool {
    let b = content.as_bytes();
    b.first() == Some(&b'<')
        && b.get(1)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'/' || *c == b'!')
}

/// What a body line contributes to the served text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    /// Served as written.
    Plain,
    /// Served up to this byte (a trailing `^id` removed).
    Cut(usize),
    /// A line holding only an id: never served.
    Alone,
}

/// A heading outside fences and blockquotes.
#[derive(Debug, Clone)]
pub(crate) struct Heading {
    pub(crate) line: usize,
    pub(crate) level: usize,
    /// Normalised text (trimmed, lowercased, whitespace collapsed).
    pub(crate) key: String,
}

/// A note body split into blocks.
#[derive(Debug, Default)]
pub(crate) struct Segments {
    pub(crate) marks: Vec<Mark>,
    /// Line ranges of the blocks, in order.
    pub(crate) blocks: Vec<Range<usize>>,
    /// First occurrence of each id: its block and whether the id ends its line in the block.
    pub(crate) ids: HashMap<String, (usize, bool)>,
    pub(crate) headings: Vec<Heading>,
}

/// The block a run of lines is being added to.
#[derive(Debug, Clone, Copy)]
struct Run {
    block: usize,
    depth: usize,
    table: bool,
}

/// Trimmed, lowercased, whitespace collapsed.
pub(crate) fn normalise(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

pub(crate) fn segment<S: AsRef<str>>(lines: &[S]) -> Segments {
    let mut seg = Segments {
        marks: vec![Mark::Plain; lines.len()],
        ..Segments::default()
    };
    let mut fences = Fences::default();
    let mut fence_block: Option<usize> = None;
    let mut open: Option<Run> = None;
    let mut last: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let line = line.as_ref();
        match fences.step(line) {
            FenceLine::Inside | FenceLine::Closes => {
                if let Some(block) = fence_block {
                    seg.blocks[block].end = i + 1;
                }
                continue;
            }
            FenceLine::Opens => {
                seg.blocks.push(i..i + 1);
                let block = seg.blocks.len() - 1;
                fence_block = Some(block);
                open = None;
                last = Some(block);
                continue;
            }
            FenceLine::Text => fence_block = None,
        }
        let (depth, content) = quote_split(line);
        if content.trim().is_empty() {
            open = None;
            continue;
        }
        if let Some(id) = alone_id(line) {
            seg.marks[i] = Mark::Alone;
            if let Some(block) = open.map(|o| o.block).or(last) {
                seg.ids.entry(id.to_owned()).or_insert((block, false));
            }
            open = None;
            continue;
        }
        let heading = heading_of(content);
        let single = heading.is_some() || is_rule(content);
        let table = content.starts_with('|');
        let starts =
            single || table || is_bullet(content) || is_ordered(content) || is_html(content);
        let block = match open {
            Some(o) if o.depth == depth && (!starts || (table && o.table)) => {
                seg.blocks[o.block].end = i + 1;
                o.block
            }
            _ => {
                seg.blocks.push(i..i + 1);
                let block = seg.blocks.len() - 1;
                open = Some(Run {
                    block,
                    depth,
                    table,
                });
                block
            }
        };
        last = Some(block);
        if let Some((id, cut)) = trailing_id(line) {
            seg.marks[i] = Mark::Cut(cut);
            seg.ids.entry(id.to_owned()).or_insert((block, true));
        }
        if let Some((level, text)) = heading
            && depth == 0
        {
            seg.headings.push(Heading {
                line: i,
                level,
                key: normalise(text),
            });
        }
        if single {
            open = None;
        }
    }
    seg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<FenceLine> {
        let mut fences = Fences::default();
        text.lines().map(|l| fences.step(l)).collect()
    }

    #[test]
    fn fences_close_only_on_a_run_as_long_of_the_same_character() {
        use FenceLine::*;
        assert_eq!(
            kinds("````md\n```\n~~~\n````\ntext"),
            [Opens, Inside, Inside, Closes, Text]
        );
        // An info string is not a closing run; a backtick in a backtick info string is inline code.
        assert_eq!(kinds("```js\n```js\n```"), [Opens, Inside, Closes]);
        assert_eq!(kinds("``` a`b ```\n# h"), [Text, Text]);
        assert_eq!(kinds("~~\n``\ntext"), [Text, Text, Text]);
        // Indented fences and tilde fences count; an unclosed fence runs to the end.
        assert_eq!(kinds("  ~~~\n# not a heading"), [Opens, Inside]);
    }

    #[test]
    fn a_fence_in_a_blockquote_ends_with_the_blockquote() {
        use FenceLine::*;
        assert_eq!(
            kinds("> ```\n> code\n> ```\n# h"),
            [Opens, Inside, Closes, Text]
        );
        assert_eq!(
            kinds("> ```\n> code\n\n# real heading"),
            [Opens, Inside, Text, Text]
        );
        // A quoted run does not close a fence opened outside the quote.
        assert_eq!(kinds("```\n> ```\n```"), [Opens, Inside, Closes]);
        assert_eq!(unquoted(">  > code"), "code");
    }

    #[test]
    fn headings_lose_closing_hashes_and_block_ids() {
        assert_eq!(heading("## Setup ##"), Some((2, "Setup".into())));
        assert_eq!(heading("### Setup ^step-1"), Some((3, "Setup".into())));
        assert_eq!(heading("#\tTabbed"), Some((1, "Tabbed".into())));
        assert_eq!(heading("## C#"), Some((2, "C#".into())));
        for not in ["#hashtag", "####### seven", "##", "   ", "text # no"] {
            assert_eq!(heading(not), None, "{not:?}");
        }
    }

    #[test]
    fn segments_find_ids_blocks_and_headings_outside_code() {
        let lines: Vec<&str> =
            "## One\npara a\npara b ^pid\n\n```\n## not\n^nope\n```\n- item\n^lid"
                .lines()
                .collect();
        let seg = segment(&lines);
        assert_eq!(seg.headings.len(), 1);
        assert_eq!(seg.headings[0].key, "one");
        assert_eq!(seg.marks[2], Mark::Cut("para b".len()));
        assert_eq!(seg.marks[9], Mark::Alone);
        let (pid, at_end) = seg.ids["pid"];
        assert_eq!((seg.blocks[pid].clone(), at_end), (1..3, true));
        let (lid, at_end) = seg.ids["lid"];
        assert_eq!((seg.blocks[lid].clone(), at_end), (8..9, false));
        assert!(!seg.ids.contains_key("nope"));
    }
}
