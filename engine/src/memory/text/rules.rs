//! Contract rules (§A.4) a memory body is checked against: recurrence claims, undated counts,
//! transcripts.

use std::sync::LazyLock;

use super::pattern;
use regex::Regex;

// ---------------------------------------------------------------------------------------------
// §A.4 contract rules
// ---------------------------------------------------------------------------------------------

/// One contract rule that fired on a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleHit {
    /// Rule id: `recurrence`, `undated-volatile` or `transcript`.
    pub(crate) id: &'static str,
    /// Marker written to `flags:` (`generalised`, `volatile`) or `transcript` for the reject rule.
    pub(crate) marker: &'static str,
    /// True when the rule refuses the write instead of flagging it.
    pub(crate) reject: bool,
    /// Human-readable explanation, used as a warning (flags) or a refusal (reject).
    pub(crate) message: String,
}

/// Verbs whose recurrence claims make a memory "generalised".
pub(super) const RECUR_VERBS: &str = "breaks?|broke|fail(?:s|ed)?|crash(?:es|ed)?|hangs?|errors?|happens?|\
                           recovers?|work(?:s|ed)?";

/// The `recurrence` rule: claims that something always, never or repeatedly happens.
pub(super) static RECURRENCE: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)\b(?:always|never)\b[^.!?]{{0,40}}\b(?:{RECUR_VERBS})\b|\bevery\s+time\b|\bkeeps?\s+(?:on\s+)?(?:happening|breaking|failing|crashing)\b|\brecurring\b|\bconsistently\s+(?:{RECUR_VERBS})\b"
    ))
});

/// A count of something that changes over time (stars, forks, downloads …).
pub(super) static VOLATILE_COUNT: LazyLock<Regex> = LazyLock::new(|| {
    pattern(
        r"(?i)\b[0-9][0-9,._]*\s*(?:stars?|forks?|downloads?|users?|subscribers?|followers?|commits?)\b",
    )
});

/// A date anchor that makes a volatile count acceptable.
pub(super) static DATE_ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)\bas\s+of\b|[0-9]{4}-[0-9]{2}-[0-9]{2}"));

/// A line that starts like a chat turn (`User:`, `assistant :` …).
pub(super) static TRANSCRIPT_LINE: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"(?i)^\s*(?:user|assistant|human|ai|system)\s*:"));

/// Lines of chat turns from which a body counts as a transcript.
pub(super) const TRANSCRIPT_LINES: usize = 4;

/// A chat turn's speaker anywhere in a line (`… User: can you fix it? Assistant: sure …`): the
/// speaker's name after the start or a space, quote or bracket, then `:` and a space.
static INLINE_TURN: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"(?i)(?:^|[\s"'(\[>*])(user|human|assistant|ai)\s*:\s"#));

/// Whether a body holds an exchange written inline: turns of both sides (a person: `User:` /
/// `Human:`; the model: `Assistant:` / `AI:`), at least two in all. One quoted `User:` line is
/// not an exchange.
fn inline_exchange(body: &str) -> Option<usize> {
    let (mut person, mut model) = (0, 0);
    for c in INLINE_TURN.captures_iter(body) {
        match c[1].to_ascii_lowercase().as_str() {
            "user" | "human" => person += 1,
            _ => model += 1,
        }
    }
    (person > 0 && model > 0).then_some(person + model)
}

/// Runs the contract rules of §A.4 over a memory body, in the order recurrence (flag
/// `generalised`), undated-volatile (flag `volatile`), transcript (reject).
pub(crate) fn contract_rules(body: &str) -> Vec<RuleHit> {
    let mut hits = Vec::new();
    if RECURRENCE.is_match(body) {
        hits.push(RuleHit {
            id: "recurrence",
            marker: "generalised",
            reject: false,
            message: String::from(
                "The body claims a recurrence (always / never / every time / keeps happening). \
                 One observation does not make a pattern, so the memory is flagged generalised \
                 and a verified claim is recorded as inferred.",
            ),
        });
    }
    if VOLATILE_COUNT.is_match(body) && !DATE_ANCHOR.is_match(body) {
        hits.push(RuleHit {
            id: "undated-volatile",
            marker: "volatile",
            reject: false,
            message: String::from(
                "The body quotes a count that drifts (stars, forks, downloads, users, commits…) \
                 without a date, so the memory is flagged volatile. Anchor it with \"as of \
                 YYYY-MM-DD\".",
            ),
        });
    }
    let lines = body.lines().filter(|l| TRANSCRIPT_LINE.is_match(l)).count();
    // The contract's rule (four lines of turns), and an exchange written on fewer lines.
    let turns = if lines >= TRANSCRIPT_LINES {
        Some(lines)
    } else {
        inline_exchange(body)
    };
    if let Some(turns) = turns {
        hits.push(RuleHit {
            id: "transcript",
            marker: "transcript",
            reject: true,
            message: format!(
                "body looks like a transcript. A memory is a conclusion, not a log: {turns} chat turns \
                 (User:/Assistant:…). State what was learned in your own words."
            ),
        });
    }
    hits
}
