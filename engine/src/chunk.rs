//! Heading-aware chunking.
//!
//! A note is cut into sections at its headings. Each section becomes one chunk when it fits the
//! size budget; a larger section is split at paragraph (else line) boundaries with an overlap
//! between consecutive pieces. A chunk only spans several sections when they are tiny (shorter
//! than [`ChunkOptions::min_chars`]) and still fit the budget together. Every chunk keeps its
//! heading trail (`Project > Context`) and its 1-based, inclusive file line range.

use serde::Serialize;

use crate::markdown::blocks::heading;
use crate::note::{Note, for_each_line};

/// Chunking parameters, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ChunkOptions {
    /// Target maximum size of a chunk.
    pub max_chars: usize,
    /// Overlap carried from the end of one piece into the next when a section is split.
    pub overlap_chars: usize,
    /// Sections shorter than this may share a chunk with their neighbours.
    pub min_chars: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        // ~1000 chars is ~250 word pieces: it fits all-MiniLM-L6-v2's 256-token window.
        ChunkOptions {
            max_chars: 1000,
            overlap_chars: 150,
            min_chars: 200,
        }
    }
}

/// One chunk of a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    /// Position of the chunk in its note, from 0.
    pub index: usize,
    /// The headings above the chunk's first line, outermost first.
    pub heading_trail: Vec<String>,
    /// The text of every heading inside the chunk.
    pub headings: Vec<String>,
    /// Where each section merged into this chunk starts: (file line, heading trail joined with
    /// ` > `). One entry unless tiny sections were merged.
    pub sections: Vec<(usize, String)>,
    /// The chunk's text.
    pub text: String,
    /// First file line (1-based).
    pub line_start: usize,
    /// Last file line (1-based, inclusive).
    pub line_end: usize,
}

impl Chunk {
    /// The heading trail joined with ` > `, empty before the first heading.
    pub fn heading(&self) -> String {
        self.heading_trail.join(" > ")
    }
}

struct Line<'a> {
    no: usize,
    text: &'a str,
}

struct Section<'a> {
    trail: Vec<String>,
    headings: Vec<String>,
    lines: Vec<Line<'a>>,
}

impl Section<'_> {
    fn chars(&self) -> usize {
        self.lines.iter().map(|l| l.text.chars().count() + 1).sum()
    }
}

fn sections(note: &Note) -> Vec<Section<'_>> {
    let mut out: Vec<Section<'_>> = Vec::new();
    let mut stack: Vec<(u8, String)> = Vec::new();
    let mut current = Section {
        trail: Vec::new(),
        headings: Vec::new(),
        lines: Vec::new(),
    };
    for_each_line(&note.body, note.body_start_line, |no, text, in_code| {
        if !in_code && let Some((level, htext)) = heading(text) {
            if !current.lines.is_empty() {
                let trail = stack.iter().map(|(_, t)| t.clone()).collect();
                out.push(std::mem::replace(
                    &mut current,
                    Section {
                        trail,
                        headings: Vec::new(),
                        lines: Vec::new(),
                    },
                ));
            }
            while stack.last().is_some_and(|(l, _)| *l >= level) {
                stack.pop();
            }
            stack.push((level, htext.clone()));
            current.trail = stack.iter().map(|(_, t)| t.clone()).collect();
            current.headings.push(htext);
        }
        current.lines.push(Line { no, text });
    });
    if !current.lines.is_empty() {
        out.push(current);
    }
    // Sections of blank lines only carry nothing worth a chunk.
    out.retain(|s| s.lines.iter().any(|l| !l.text.trim().is_empty()));
    out
}

/// Whether some line is neither blank nor a heading.
fn has_content(text: &str) -> bool {
    text.lines()
        .any(|l| !l.trim().is_empty() && heading(l).is_none())
}

fn join(lines: &[Line<'_>]) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(l.text);
    }
    s
}

fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Splits one over-budget line into pieces of at most `max` chars, on char boundaries, preferring
/// a space near the end of each piece.
fn split_long_line(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while char_len(rest) > max {
        let hard = rest.char_indices().nth(max).map_or(rest.len(), |(i, _)| i);
        let cut = rest[..hard]
            .rfind(' ')
            .filter(|&i| i > hard / 2)
            .map_or(hard, |i| i + 1);
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// Splits the lines of an over-budget section into pieces with overlap.
fn split_section(lines: &[Line<'_>], opts: &ChunkOptions) -> Vec<(String, usize, usize)> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        // Grow the window while it fits.
        let mut end = start;
        let mut size = 0;
        while end < lines.len() {
            let add = char_len(lines[end].text) + 1;
            if end > start && size + add > opts.max_chars {
                break;
            }
            size += add;
            end += 1;
        }
        // A single line over budget: hard split it.
        if end == start + 1 && size > opts.max_chars + 1 {
            for part in split_long_line(lines[start].text, opts.max_chars) {
                pieces.push((part.to_string(), lines[start].no, lines[start].no));
            }
            start += 1;
            continue;
        }
        // Prefer to end at a blank line in the second half of the window.
        if end < lines.len() {
            let mut acc = 0;
            let mut best = None;
            for (i, l) in lines.iter().enumerate().take(end).skip(start) {
                acc += char_len(l.text) + 1;
                if l.text.trim().is_empty() && acc >= opts.max_chars / 2 && i + 1 > start {
                    best = Some(i + 1);
                }
            }
            if let Some(b) = best {
                end = b;
            }
        }
        let window = &lines[start..end];
        pieces.push((join(window), window[0].no, window[window.len() - 1].no));
        if end >= lines.len() {
            break;
        }
        // Step back over whole lines for the overlap, but always make progress.
        let mut next = end;
        let mut overlap = 0;
        while next > start + 1 {
            let add = char_len(lines[next - 1].text) + 1;
            if overlap + add > opts.overlap_chars {
                break;
            }
            overlap += add;
            next -= 1;
        }
        start = next;
    }
    pieces
}

/// Cuts a parsed note into chunks.
pub fn chunk_note(note: &Note, opts: &ChunkOptions) -> Vec<Chunk> {
    let max = opts.max_chars.max(1);
    let mut chunks: Vec<Chunk> = Vec::new();
    // A chunk still open for merging tiny sections into.
    let mut open: Option<Chunk> = None;
    let flush = |c: Chunk, chunks: &mut Vec<Chunk>| {
        if !c.text.trim().is_empty() {
            chunks.push(c);
        }
    };
    for section in sections(note) {
        let size = section.chars();
        let lines = &section.lines;
        if size <= max + 1 {
            let text = join(lines);
            let (first, last) = (lines[0].no, lines[lines.len() - 1].no);
            if let Some(c) = open.as_mut() {
                let c_size = char_len(&c.text);
                if (c_size < opts.min_chars || size < opts.min_chars) && c_size + 1 + size <= max {
                    // A chunk holding only headings so far takes the trail of its first content.
                    if has_content(&c.text) {
                        c.sections.push((first, section.trail.join(" > ")));
                    } else {
                        c.heading_trail = section.trail.clone();
                        c.sections = vec![(c.line_start, section.trail.join(" > "))];
                    }
                    c.text.push('\n');
                    c.text.push_str(&text);
                    c.line_end = last;
                    c.headings.extend(section.headings.iter().cloned());
                    continue;
                }
            }
            if let Some(c) = open.take() {
                flush(c, &mut chunks);
            }
            open = Some(Chunk {
                index: 0,
                heading_trail: section.trail.clone(),
                headings: section.headings.clone(),
                sections: vec![(first, section.trail.join(" > "))],
                text,
                line_start: first,
                line_end: last,
            });
        } else {
            if let Some(c) = open.take() {
                flush(c, &mut chunks);
            }
            for (i, (text, first, last)) in split_section(lines, opts).into_iter().enumerate() {
                flush(
                    Chunk {
                        index: 0,
                        heading_trail: section.trail.clone(),
                        headings: if i == 0 {
                            section.headings.clone()
                        } else {
                            Vec::new()
                        },
                        sections: vec![(first, section.trail.join(" > "))],
                        text,
                        line_start: first,
                        line_end: last,
                    },
                    &mut chunks,
                );
            }
        }
    }
    if let Some(c) = open.take() {
        flush(c, &mut chunks);
    }
    for (i, c) in chunks.iter_mut().enumerate() {
        c.index = i;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::parse_note;

    fn chunks(text: &str, opts: ChunkOptions) -> Vec<Chunk> {
        chunk_note(&parse_note("n.md", text).note, &opts)
    }

    fn para(words: usize, seed: &str) -> String {
        (0..words)
            .map(|i| format!("{seed}{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn chunks_never_cross_a_heading_between_big_sections() {
        let a = para(60, "alpha");
        let b = para(60, "beta");
        let text = format!("# A\n{a}\n## B\n{b}\n");
        let opts = ChunkOptions {
            max_chars: 2000,
            overlap_chars: 100,
            min_chars: 200,
        };
        let cs = chunks(&text, opts);
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[0].heading_trail, vec!["A"]);
        assert_eq!((cs[0].line_start, cs[0].line_end), (1, 2));
        assert_eq!(cs[1].heading_trail, vec!["A", "B"]);
        assert_eq!(cs[1].heading(), "A > B");
        assert_eq!((cs[1].line_start, cs[1].line_end), (3, 4));
        assert!(!cs[0].text.contains("beta"));
    }

    #[test]
    fn tiny_sections_merge() {
        let text = "# T\nshort\n## S1\ntiny one\n## S2\ntiny two\n";
        let cs = chunks(text, ChunkOptions::default());
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].headings, vec!["T", "S1", "S2"]);
        assert_eq!((cs[0].line_start, cs[0].line_end), (1, 6));
        assert_eq!(cs[0].heading_trail, vec!["T"]);
        assert_eq!(
            cs[0].sections,
            vec![
                (1, "T".to_string()),
                (3, "T > S1".to_string()),
                (5, "T > S2".to_string())
            ]
        );
    }

    #[test]
    fn heading_only_chunk_takes_the_trail_of_its_first_content() {
        let text = "# Title

## Sub
the content
";
        let cs = chunks(text, ChunkOptions::default());
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].heading_trail, vec!["Title", "Sub"]);
        assert_eq!(cs[0].line_start, 1);
    }

    #[test]
    fn big_section_splits_within_budget_with_overlap_and_line_ranges() {
        let mut text = String::from("---\ntitle: x\n---\n# Big\n");
        for i in 0..40 {
            text.push_str(&format!("line {i} {}\n", para(8, "w")));
            if i % 5 == 4 {
                text.push('\n');
            }
        }
        let opts = ChunkOptions {
            max_chars: 500,
            overlap_chars: 120,
            min_chars: 100,
        };
        let cs = chunks(&text, opts);
        assert!(cs.len() > 3, "{}", cs.len());
        for w in cs.windows(2) {
            assert!(w[0].text.chars().count() <= 501, "{}", w[0].text.len());
            // Overlap: the next chunk starts at or before the previous one ends, and moves forward.
            assert!(w[1].line_start <= w[0].line_end + 1);
            assert!(w[1].line_start > w[0].line_start);
            assert_eq!(w[1].heading_trail, vec!["Big"]);
        }
        assert_eq!(cs[0].line_start, 4);
        // Every chunk's text is exactly its line range of the file.
        let file_lines: Vec<&str> = text.lines().collect();
        for c in &cs {
            assert_eq!(c.text, file_lines[c.line_start - 1..c.line_end].join("\n"));
        }
        assert_eq!(cs.last().unwrap().line_end, file_lines.len());
    }

    #[test]
    fn long_single_line_is_hard_split() {
        let text = format!("# H\n{}\n", "x".repeat(2500));
        let opts = ChunkOptions {
            max_chars: 1000,
            overlap_chars: 100,
            min_chars: 100,
        };
        let cs = chunks(&text, opts);
        assert!(cs.iter().all(|c| c.text.chars().count() <= 1000));
        assert_eq!(cs.iter().filter(|c| c.line_start == 2).count(), 3);
    }

    #[test]
    fn multibyte_text_never_splits_inside_a_char() {
        let text = format!("# H\n{}\n", "é漢".repeat(900));
        let cs = chunks(&text, ChunkOptions::default());
        assert!(cs.len() >= 2);
        // No character lost or broken: the pieces of the hard-split line are the line.
        let joined: String = cs
            .iter()
            .filter(|c| c.line_start == 2)
            .map(|c| c.text.as_str())
            .collect();
        assert_eq!(joined, "é漢".repeat(900));
        assert!(cs.iter().all(|c| c.text.chars().count() <= 1000));
    }

    #[test]
    fn empty_and_blank_notes_have_no_chunks() {
        assert!(chunks("", ChunkOptions::default()).is_empty());
        assert!(chunks("\n\n  \n", ChunkOptions::default()).is_empty());
        assert!(chunks("---\ntitle: t\n---\n", ChunkOptions::default()).is_empty());
    }

    #[test]
    fn headings_in_code_blocks_do_not_split() {
        let text = "# Real\n```\n# comment in code\n```\n";
        let cs = chunks(text, ChunkOptions::default());
        assert_eq!(cs.len(), 1);
        assert_eq!(cs[0].headings, vec!["Real"]);
    }
}
