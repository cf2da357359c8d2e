//! Snippets: a chunk's markdown as clean, readable text with the query's words highlighted.
//!
//! - Markdown is read, not shown: heading marks, list bullets, task boxes, quote marks, emphasis,
//!   backticks, code fences, tables rules and HTML tags are dropped; a wikilink shows as its
//!   display text (`[[Note#Heading|text]]` → `text`, `[[Note#Heading]]` → `Note > Heading`) and a
//!   link `[text](url)` as its text, so no snippet starts or ends inside one.
//! - Highlights cover whole words: a match on part of an identifier (`sync` in
//!   `LEDGER_SYNC_MAX_CONNS`) highlights the identifier; neighbouring CJK matches form one run.
//! - The window (about [`SNIPPET_CHARS`] characters, cut at spaces, `…` where cut) is the one
//!   holding the most distinct query words.
//!
//! Matching uses the index's own analyzer, so a highlighted word is exactly a word that scored.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::tokenizer;
use crate::markdown::blocks::{FenceLine, Fences, unquoted};
use crate::note::WIKILINK;

/// Target snippet length, in characters.
pub(crate) const SNIPPET_CHARS: usize = 220;

/// A snippet and where its first highlight is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Snippet {
    /// Clean text, highlights wrapped in `**`, whitespace collapsed.
    pub text: String,
    /// The chunk line (0-based, from the chunk's first line) of the first highlight, if any.
    pub first_match_line: Option<usize>,
}

static MDLINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)").expect("static regex"));
static HTML_TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"</?[A-Za-z][A-Za-z0-9]*[^<>\n]*>").expect("static regex"));
static LINE_MARKS: LazyLock<Regex> = LazyLock::new(|| {
    // Quote marks, then a heading mark or a list bullet / number, then a task box.
    Regex::new(r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+]|\d{1,3}[.)])\s+)?(?:\[[ xX\-/>]\]\s+)?")
        .expect("static regex")
});
static EMPHASIS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\*\*|__|~~|==|`").expect("static regex"));
static RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[-*_]\s*){3,}$|^\s*\|?[\s:|-]*-{3,}[\s:|-]*$").expect("static regex")
});

/// One markdown line as it reads (see the module docs). `fences` tracks code fences.
fn clean_line(line: &str, fences: &mut Fences) -> String {
    match fences.step(line) {
        FenceLine::Opens | FenceLine::Closes => return String::new(),
        FenceLine::Inside => return unquoted(line).trim_end().to_string(),
        FenceLine::Text => {}
    }
    let t = line.trim_start();
    // Each pass only where its mark can be (most lines are plain prose).
    let first = t.chars().next().unwrap_or(' ');
    if matches!(first, '-' | '*' | '_' | '|' | ':') && RULE.is_match(line) {
        return String::new();
    }
    let mut rest = std::borrow::Cow::Borrowed(line);
    if matches!(first, '#' | '>' | '-' | '*' | '+') || first.is_ascii_digit() {
        rest = std::borrow::Cow::Owned(LINE_MARKS.replace(line, "").into_owned());
    }
    if !rest.contains('[') && !rest.contains('<') && !rest.contains(['*', '_', '~', '=', '`']) {
        let plain = rest.trim();
        if !plain.starts_with('|') {
            return plain.to_string();
        }
    }
    let rest = WIKILINK.replace_all(&rest, |c: &regex::Captures<'_>| {
        if let Some(d) = c.get(4).filter(|d| !d.as_str().trim().is_empty()) {
            return d.as_str().trim().to_string();
        }
        let target = c.get(2).map_or("", |m| m.as_str()).trim();
        let target = target.rsplit('/').next().unwrap_or(target);
        match c.get(3).map(|h| h.as_str().trim().trim_start_matches('^')) {
            Some(h) if !h.is_empty() && !target.is_empty() => format!("{target} > {h}"),
            Some(h) if !h.is_empty() => h.to_string(),
            _ => target.to_string(),
        }
    });
    let rest = MDLINK.replace_all(&rest, "$1");
    let rest = HTML_TAG.replace_all(&rest, " ");
    let rest = EMPHASIS.replace_all(&rest, "");
    let rest = rest.trim();
    // Table rows: cells separated by spaces.
    if rest.starts_with('|') {
        return rest
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect::<Vec<_>>()
            .join(" · ");
    }
    rest.to_string()
}

/// The chunk's text as it reads, one output line per input line (so line numbers carry over).
pub(crate) fn clean_markdown(text: &str) -> String {
    let mut fences = Fences::default();
    text.lines()
        .map(|l| clean_line(l, &mut fences))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The analyzed terms a query highlights: the query's own words as the index analyzes them, the
/// whole forms of its identifiers, and for CJK the character pairs (a single character only when
/// the query's CJK run is that one character).
pub(crate) fn query_terms(query: &str) -> HashSet<String> {
    let words = tokenizer::cjk_query_words(query);
    let mut terms: HashSet<String> = super::analyze(&words, false)
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    terms.extend(super::identifier_terms(query));
    let pairs: Vec<String> = terms
        .iter()
        .filter(|t| t.chars().count() == 2 && t.chars().all(tokenizer::is_cjk))
        .cloned()
        .collect();
    terms.retain(|t| {
        let mut cs = t.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) if tokenizer::is_cjk(c) => !pairs.iter().any(|p| p.contains(c)),
            _ => true,
        }
    });
    terms
}

/// Builds the snippet of `body` (a chunk's markdown) for the analyzed query `terms`.
pub(crate) fn snippet(body: &str, terms: &HashSet<String>) -> Snippet {
    let clean = clean_markdown(body);
    // Matched tokens, widened to the whole identifier they are part of.
    let (tokens, wholes) = super::fields::analyze_for_highlights(&clean, |t| terms.contains(t));
    let mut ranges: Vec<(Range<usize>, String)> = Vec::new();
    for (term, span) in tokens {
        let span = wholes
            .iter()
            .find(|w| w.start <= span.start && span.end <= w.end)
            .cloned()
            .unwrap_or(span);
        ranges.push((span, term));
    }
    ranges.sort_by_key(|(r, _)| (r.start, r.end));
    let mut merged: Vec<(Range<usize>, HashSet<String>)> = Vec::new();
    for (r, term) in ranges {
        match merged.last_mut() {
            // Overlapping, touching, or apart by spaces only: one highlight (`**connection
            // pool**`, a CJK run).
            Some((last, ts))
                if r.start <= last.end
                    || (clean[last.end..r.start]
                        .chars()
                        .all(|c| c == ' ' || c == '\t')) =>
            {
                last.end = last.end.max(r.end);
                ts.insert(term);
            }
            _ => merged.push((r, HashSet::from([term]))),
        }
    }
    let first_match_line = merged
        .first()
        .map(|(r, _)| clean[..r.start].matches('\n').count());
    let window = best_window(&clean, &merged);
    let mut out = String::new();
    if window.start > 0 {
        out.push('…');
    }
    let mut at = window.start;
    for (r, _) in merged
        .iter()
        .filter(|(r, _)| r.start >= window.start && r.end <= window.end)
    {
        out.push_str(&clean[at..r.start]);
        out.push_str("**");
        out.push_str(&clean[r.start..r.end]);
        out.push_str("**");
        at = r.end;
    }
    out.push_str(&clean[at..window.end]);
    if window.end < clean.len() {
        out.push('…');
    }
    Snippet {
        text: out.split_whitespace().collect::<Vec<_>>().join(" "),
        first_match_line,
    }
}

/// The byte range of `text` to show: about [`SNIPPET_CHARS`] characters holding the most distinct
/// matched terms (the earliest such window), cut at whitespace and never through a highlight.
fn best_window(text: &str, hits: &[(Range<usize>, HashSet<String>)]) -> Range<usize> {
    let budget = char_offset(text, 0, SNIPPET_CHARS);
    if budget >= text.len() {
        return 0..text.len();
    }
    let mut best = (0usize, 0usize); // (distinct terms, start)
    for (i, (r, _)) in hits.iter().enumerate() {
        // Start a little before the match, for context.
        let start = back_chars(text, r.start, 30);
        let end = char_offset(text, start, SNIPPET_CHARS);
        let mut seen: HashSet<&String> = HashSet::new();
        for (h, ts) in &hits[i..] {
            if h.end > end {
                break;
            }
            seen.extend(ts.iter());
        }
        if seen.len() > best.0 {
            best = (seen.len(), start);
        }
    }
    let mut start = best.1;
    // Cut at whitespace: back to the start of the word, unless that is the text's start.
    if start > 0 {
        match text[..start].rfind(char::is_whitespace) {
            Some(ws) if start - ws <= 40 => {
                start = ws + text[ws..].chars().next().map_or(1, char::len_utf8)
            }
            _ => {}
        }
        // Never inside a highlight.
        if let Some((h, _)) = hits.iter().find(|(h, _)| h.start < start && start < h.end) {
            start = h.start;
        }
    }
    let mut end = char_offset(text, start, SNIPPET_CHARS);
    if end < text.len() {
        if let Some(ws) = text[start..end].rfind(char::is_whitespace)
            && ws > 0
        {
            end = start + ws;
        }
        if let Some((h, _)) = hits.iter().find(|(h, _)| h.start < end && end < h.end) {
            end = if h.start > start { h.start } else { h.end };
        }
    }
    start..end
}

/// The byte offset `n` characters after `from` (or the end).
fn char_offset(text: &str, from: usize, n: usize) -> usize {
    text[from..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| from + i)
}

/// The byte offset `n` characters before `at` (or 0).
fn back_chars(text: &str, at: usize, n: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snip(body: &str, query: &str) -> String {
        snippet(body, &query_terms(query)).text
    }

    #[test]
    fn markdown_reads_as_text() {
        let body = "# Decision\n\n## Context\n\n- [ ] ship the **connection pool** fix, see [[Gotchas#Connection pool]]\n- [x] read [[Decision - Postgres for Sessions|the session decision]]\n> quoted `LEDGER_SYNC_MAX_CONNS`\n\n```rust\nlet x = 1;\n```\n| a | b |\n|---|---|\n| c | d |\n";
        let clean = clean_markdown(body);
        assert_eq!(
            clean.lines().collect::<Vec<_>>(),
            vec![
                "Decision",
                "",
                "Context",
                "",
                "ship the connection pool fix, see Gotchas > Connection pool",
                "read the session decision",
                "quoted LEDGER_SYNC_MAX_CONNS",
                "",
                "",
                "let x = 1;",
                "",
                "a · b",
                "",
                "c · d",
            ]
        );
    }

    #[test]
    fn wikilinks_are_never_cut_or_highlighted_inside_markup() {
        let s = snip(
            "See [[Decision - Postgres for Sessions]] for why sessions moved.",
            "decision session",
        );
        assert_eq!(
            s,
            "See **Decision** - Postgres for **Sessions** for why **sessions** moved."
        );
        // Neighbouring matches read as one highlight.
        assert_eq!(
            snip("the connection pool ran dry", "pool connection"),
            "the **connection pool** ran dry"
        );
        assert!(!s.contains("[["));
    }

    #[test]
    fn identifiers_are_highlighted_whole() {
        let s = snip(
            "Raise LEDGER_SYNC_MAX_CONNS to 64 and restart retryWithBackoff.",
            "LEDGER_SYNC_MAX_CONNS",
        );
        assert_eq!(
            s,
            "Raise **LEDGER_SYNC_MAX_CONNS** to 64 and restart retryWithBackoff."
        );
        let s = snip("Raise LEDGER_SYNC_MAX_CONNS to 64.", "sync");
        assert_eq!(s, "Raise **LEDGER_SYNC_MAX_CONNS** to 64.");
        let s = snip("Ticket OPS-2291 is closed; OPS-2290 too.", "OPS-2291");
        assert!(s.contains("**OPS-2291**"), "{s}");
    }

    #[test]
    fn cjk_highlights_the_matched_run() {
        let s = snip(
            "本番環境へのデプロイ手順を説明します。東京リージョンを使う。",
            "デプロイ手順",
        );
        assert!(s.contains("**デプロイ手順**"), "{s}");
        // No single-character highlights elsewhere (手 or 順 alone).
        assert_eq!(s.matches("**").count(), 2, "{s}");
    }

    #[test]
    fn the_window_holds_the_most_query_words() {
        let filler = "lorem ipsum dolor sit amet ".repeat(20);
        let body = format!(
            "{filler}\n\nThe fix was to raise the pool size and add a retry budget.\n\n{filler}"
        );
        let s = snip(&body, "fix pool retry");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(
            s.contains("**fix**") && s.contains("**pool**") && s.contains("**retry**"),
            "{s}"
        );
        assert!(
            s.replace("**", "").chars().count() <= SNIPPET_CHARS + 2,
            "{s}"
        );
        let sn = snippet(&body, &query_terms("fix pool retry"));
        assert_eq!(sn.first_match_line, Some(2));
    }

    #[test]
    fn no_match_gives_the_lead() {
        let s = snip("## Notes\n\n- first point\n- second point", "zebra");
        assert_eq!(s, "Notes first point second point");
    }
}
