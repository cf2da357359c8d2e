//! Pure text functions of the memory store: slugs, descriptions, wikilinks and titles here; one
//! submodule per other subject (`similarity`, `rules` for the contract rules, `guard` for the sanitiser and the markup guard).
//!
//! Nothing here touches the disk or the clock: every function maps strings to strings (or to
//! small values), so the store, the server and the tests can share one definition of each rule.
//! Lengths and offsets are counted in Unicode scalar values (`char`s) unless a doc says bytes.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use unicode_normalization::UnicodeNormalization;

mod guard;
mod rules;
mod similarity;

pub(crate) use crate::markdown::frontmatter::json_str;
pub(crate) use guard::*;
pub(crate) use rules::*;
pub(crate) use similarity::*;

/// Longest filename slug a memory title is cut to, in characters.
pub(crate) const SLUG_MAX: usize = 60;

/// Cut point of [`describe`]: longer derived descriptions are clipped to this many characters.
const DESCRIPTION_MAX: usize = 150;

/// A clipped description breaks at its last space only when that space sits past this index.
const DESCRIPTION_BREAK_AFTER: usize = 100;

/// A first sentence becomes the description only when its stop sits past this index.
const FIRST_SENTENCE_MIN: usize = 40;

/// Compiles one of this module's fixed patterns.
fn pattern(src: &str) -> Regex {
    Regex::new(src).expect("static regex of memory::text")
}

// ---------------------------------------------------------------------------------------------
// Small shared helpers
// ---------------------------------------------------------------------------------------------

/// Whitespace as JavaScript's `\s` sees it: Unicode white space plus the byte-order mark.
fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

/// Collapses every whitespace run to one space and trims both ends.
pub(crate) fn flatten_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_js_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The first `n` characters of `s` (all of `s` when it is shorter).
fn prefix_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Number of characters of `s` before byte offset `byte`.
fn char_index(s: &str, byte: usize) -> usize {
    s[..byte].chars().count()
}

// ---------------------------------------------------------------------------------------------
// §A.2 slugify
// ---------------------------------------------------------------------------------------------

/// Runs of two or more dots (step 5 of [`slugify`]).
static DOT_RUN: LazyLock<Regex> = LazyLock::new(|| pattern(r"\.{2,}"));

/// Whether `stem` is a device name Windows reserves (CON, PRN, AUX, NUL, COM1–9, LPT1–9).
fn is_reserved_device(stem: &str) -> bool {
    let upper = stem.to_ascii_uppercase();
    match upper.as_str() {
        "CON" | "PRN" | "AUX" | "NUL" => true,
        _ => {
            let b = upper.as_bytes();
            b.len() == 4
                && (upper.starts_with("COM") || upper.starts_with("LPT"))
                && (b'1'..=b'9').contains(&b[3])
        }
    }
}

/// Turns a memory title into the filename stem used after the date (§A.2): compatibility
/// decomposition without combining accents, filesystem-hostile characters and dot runs become
/// spaces, whitespace collapses, the result is cut to [`SLUG_MAX`] characters (at a word
/// boundary when one sits past 60 % of the cap), loses trailing dots and spaces, and a Windows
/// device name gets a `_` prefix. An empty result means the title is unusable as a filename.
pub(crate) fn slugify(title: &str) -> String {
    let mut spaced = String::with_capacity(title.len());
    for c in title.nfkd() {
        if ('\u{300}'..='\u{36f}').contains(&c) {
            continue;
        }
        let c = match c {
            '<' | '>' | ':' | '"' | '|' | '?' | '*' | '/' | '\\' | '[' | ']' => ' ',
            c if u32::from(c) < 0x20 => ' ',
            c => c,
        };
        spaced.push(c);
    }
    let undotted = DOT_RUN.replace_all(&spaced, " ");
    let mut slug = flatten_whitespace(&undotted);
    if slug.chars().count() > SLUG_MAX {
        let mut cut = prefix_chars(&slug, SLUG_MAX).to_owned();
        if let Some(pos) = cut.rfind(' ')
            && char_index(&cut, pos) * 10 > SLUG_MAX * 6
        {
            cut.truncate(pos);
        }
        slug = cut.trim_matches(is_js_space).to_owned();
    }
    let slug = slug.trim_end_matches(['.', ' ']);
    if is_reserved_device(slug) {
        format!("_{slug}")
    } else {
        slug.to_owned()
    }
}

/// Whether `s` is a non-empty run of ASCII letters, digits, `_`, `.` and `-` (the shape
/// project and platform names must have; JavaScript's `^[\w.-]+$`).
pub(crate) fn is_simple_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

// ---------------------------------------------------------------------------------------------
// §A.3 description and JSON quoting
// ---------------------------------------------------------------------------------------------

/// Derives a memory's frontmatter description from its body (§A.3): the first sentence when it
/// ends past character 40, else the whole flattened body; anything over 150 characters is cut
/// (at the last space when it sits past character 100) and ends with `…`.
pub(crate) fn describe(body: &str) -> String {
    let flat = flatten_whitespace(body);
    let chars: Vec<char> = flat.chars().collect();
    let stop = chars
        .windows(2)
        .position(|w| matches!(w[0], '.' | '!' | '?') && is_js_space(w[1]));
    let end = match stop {
        Some(i) if i > FIRST_SENTENCE_MIN => i + 1,
        _ => chars.len(),
    };
    if end <= DESCRIPTION_MAX {
        return chars[..end].iter().collect();
    }
    let mut cut = &chars[..DESCRIPTION_MAX];
    if let Some(space) = cut.iter().rposition(|&c| c == ' ')
        && space > DESCRIPTION_BREAK_AFTER
    {
        cut = &cut[..space];
    }
    let text: String = cut.iter().collect();
    format!("{}…", text.trim_end_matches(is_js_space))
}

// ---------------------------------------------------------------------------------------------
// §A.5 links
// ---------------------------------------------------------------------------------------------

/// `[[target]]`, `[[target#anchor]]`, `[[target|alias]]` and `[[target#anchor|alias]]`.
static WIKILINK: LazyLock<Regex> =
    LazyLock::new(|| pattern(r"\[\[([^\[\]|#\n]+)(#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]"));

/// Unlinks wikilinks whose target is not resolvable (§A.5). `resolvable` holds lowercased
/// names. A resolvable link is kept exactly as written; any other becomes its alias text (or its
/// target text when there is no alias) and its target is appended to `dropped` once.
pub(crate) fn neutralize_wikilinks(
    text: &str,
    resolvable: &HashSet<String>,
    dropped: &mut Vec<String>,
) -> String {
    WIKILINK
        .replace_all(text, |caps: &regex::Captures<'_>| {
            let whole = &caps[0];
            let target = caps[1].trim();
            if target.is_empty() || resolvable.contains(&target.to_lowercase()) {
                return whole.to_owned();
            }
            if !dropped.iter().any(|d| d == target) {
                dropped.push(target.to_owned());
            }
            match caps.get(3).map(|m| m.as_str().trim()) {
                Some(alias) if !alias.is_empty() => alias.to_owned(),
                _ => target.to_owned(),
            }
        })
        .into_owned()
}

/// Splits the `links` argument into resolved and dropped names (§A.5). Entries are trimmed,
/// blanks skipped, case-variant duplicates collapse to their first spelling, and an entry whose
/// lowercase form is in `resolvable` is kept in the caller's casing.
pub(crate) fn resolve_links(
    links: &[String],
    resolvable: &HashSet<String>,
) -> (Vec<String>, Vec<String>) {
    let mut seen = HashSet::new();
    let mut resolved = Vec::new();
    let mut dropped = Vec::new();
    for link in links {
        let link = link.trim();
        if link.is_empty() {
            continue;
        }
        let key = link.to_lowercase();
        if !seen.insert(key.clone()) {
            continue;
        }
        if resolvable.contains(&key) {
            resolved.push(link.to_owned());
        } else {
            dropped.push(link.to_owned());
        }
    }
    (resolved, dropped)
}

/// A level-one heading line (`# Title`).
static H1: LazyLock<Regex> = LazyLock::new(|| pattern(r"(?m)^#[ \t]+(.*\S.*)$"));

/// Title and body of a memory file (§A.10 parseMemory): the title is the first `# ` heading after
/// the frontmatter, trimmed; the body is what remains once the frontmatter block and that heading
/// line are removed, trimmed.
pub(crate) fn memory_title_body(md: &str) -> (Option<String>, String) {
    let rest = match crate::markdown::frontmatter::inside_and_after(md) {
        Some((_, after)) => &md[after..],
        None => md.strip_prefix('\u{feff}').unwrap_or(md),
    };
    match H1.captures(rest) {
        Some(caps) => {
            let whole = caps.get(0).map_or(0..0, |m| m.range());
            let title = caps[1].trim_matches(is_js_space).to_owned();
            let body = format!("{}{}", &rest[..whole.start], &rest[whole.end..]);
            (Some(title), body.trim_matches(is_js_space).to_owned())
        }
        None => (None, rest.trim_matches(is_js_space).to_owned()),
    }
}

// ---------------------------------------------------------------------------------------------
// §B.4 record_work (its file names use [`slugify`], as memories do)
// ---------------------------------------------------------------------------------------------

/// Clamps a `record_work` description to `max` characters (§B.4 step 6): whitespace flattened;
/// when too long, cut to `max - 1`, broken at the last space if it sits past 60 % of `max`,
/// trailing separators (whitespace `, ; : . – — -`) stripped, and `…` appended.
pub(crate) fn clamp_description(s: &str, max: usize) -> String {
    let flat = flatten_whitespace(s);
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut = prefix_chars(&flat, max.saturating_sub(1));
    if let Some(space) = cut.rfind(' ')
        && char_index(cut, space) * 10 > max * 6
    {
        cut = &cut[..space];
    }
    let cut = cut.trim_end_matches(|c: char| is_js_space(c) || ",;:.–—-".contains(c));
    format!("{cut}…")
}

/// A YAML single-quoted scalar: `'` around, each `'` inside doubled, nothing else escaped (a
/// backslash stays literal). Line breaks are the caller's to flatten first.
pub(crate) fn yaml_single_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::{Component, Path};

    fn set(items: &[&str]) -> HashSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    /// Asserts the filename properties every non-empty slug must have (§A.2, E.2 #8/#12).
    fn assert_safe_slug(title: &str, slug: &str) {
        assert!(!slug.contains('/'), "{title:?} -> {slug:?}");
        assert!(!slug.contains('\\'), "{title:?} -> {slug:?}");
        assert!(!slug.contains(".."), "{title:?} -> {slug:?}");
        assert!(
            !slug.ends_with('.') && !slug.ends_with(' '),
            "{title:?} -> {slug:?}"
        );
        assert!(
            !slug.chars().any(|c| u32::from(c) < 0x20),
            "{title:?} -> {slug:?}"
        );
        assert!(
            slug.chars().count() <= SLUG_MAX + 1,
            "{title:?} -> {slug:?}"
        );
    }

    /// Joins a slug the way the store names files and checks it stays one segment below the
    /// month folder (E.2 #11).
    fn assert_stays_inside(slug: &str) {
        let base = Path::new("/vault/memories/2026/07");
        let full = base.join(format!("2026-07-26 {slug}.md"));
        assert!(full.starts_with("/vault/memories/"), "{full:?}");
        let rel = full.strip_prefix(base).expect("below base");
        let comps: Vec<Component<'_>> = rel.components().collect();
        assert_eq!(comps.len(), 1, "{full:?}");
        assert!(matches!(comps[0], Component::Normal(_)), "{full:?}");
    }

    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    // ----- §A.2 slugify -----

    #[test]
    fn slug_keeps_a_plain_title() {
        let t = "tsup externals decide what a patch can fix";
        assert_eq!(slugify(t), t);
        assert_eq!(slugify("  x  "), "x");
    }

    #[test]
    fn slug_replaces_hostile_characters() {
        assert_eq!(slugify("a<b>c:d\"e|f?g*h"), "a b c d e f g h");
        assert_eq!(slugify("a/b\\c[d]e"), "a b c d e");
        assert_eq!(slugify("v1..2...3"), "v1 2 3");
        assert_eq!(slugify("a.b"), "a.b");
        assert_eq!(slugify("end with dots..."), "end with dots");
        assert_eq!(slugify("end with dot. "), "end with dot");
        assert_eq!(
            slugify("line one\nline two\r\n\tthree"),
            "line one line two three"
        );
        assert_eq!(slugify("nul\u{0}byte"), "nul byte");
    }

    #[test]
    fn slug_is_capped_and_breaks_at_a_word() {
        let title = "the quick brown fox jumps over the lazy dog and keeps running far away";
        let slug = slugify(title);
        assert!(slug.chars().count() <= SLUG_MAX);
        assert!(title.starts_with(&slug));
        assert_eq!(
            &title[slug.len()..slug.len() + 1],
            " ",
            "breaks at a word: {slug:?}"
        );
        assert_eq!(
            slug,
            "the quick brown fox jumps over the lazy dog and keeps"
        );
        assert_eq!(slugify(&"a".repeat(500)), "a".repeat(60));
        // The last space before the cap sits at index 10 (< 36): cut hard at 60.
        let hard = format!("short word {}", "x".repeat(80));
        assert_eq!(slugify(&hard).chars().count(), 60);
        // Unicode counted by characters.
        let emoji = "😀".repeat(80);
        assert_eq!(slugify(&emoji), "😀".repeat(60));
    }

    #[test]
    fn slug_prefixes_reserved_device_names() {
        for name in [
            "CON", "con", "PRN", "AUX", "NUL", "COM1", "LPT9", "com9", "Lpt1",
        ] {
            assert_eq!(slugify(name), format!("_{name}"), "{name}");
        }
        for name in ["CONSOLE", "COM0", "LPT10", "COM", "nul byte"] {
            assert!(!slugify(name).starts_with('_'), "{name}");
        }
    }

    #[test]
    fn slug_keeps_unicode_letters() {
        assert_eq!(slugify("日本語のメモ"), "日本語のメモ");
        assert_eq!(slugify("café déjà vu"), "cafe deja vu");
        assert_eq!(slugify("Ｆｕｌｌｗｉｄｔｈ／ｓｌａｓｈ"), "Fullwidth slash");
        assert_eq!(slugify("ellipsis… here"), "ellipsis here");
    }

    #[test]
    fn slug_is_empty_for_unusable_titles() {
        for t in [
            "...", "///", "   ", "***", ".", "..", "", "\n\t", "[]", "?*<>",
        ] {
            assert_eq!(slugify(t), "", "{t:?}");
        }
    }

    #[test]
    fn hostile_titles_stay_inside_the_store() {
        let hostile = vec![
            String::from("../../etc/passwd"),
            String::from("..\\..\\windows\\system32"),
            String::from("/etc/passwd"),
            String::from("C:\\Windows\\System32\\cmd.exe"),
            String::from("\\\\server\\share\\file"),
            String::from("nul\u{0}in the middle"),
            String::from("\u{202e}gpj.exe"),
            String::from("%2e%2e%2f%2e%2e%2fetc"),
            "a".repeat(500),
            "🔥".repeat(80),
            String::from(".."),
            String::from("."),
            String::from("a/../../b"),
            String::from("./."),
        ];
        for title in &hostile {
            let slug = slugify(title);
            if slug.is_empty() {
                continue;
            }
            assert_safe_slug(title, &slug);
            assert_stays_inside(&slug);
        }
        assert_eq!(slugify("../../etc/passwd"), "etc passwd");
    }

    #[test]
    fn four_hundred_random_titles_give_safe_slugs() {
        const ALPHABET: &[&str] = &[
            "a", "b", "Z", "0", "7", " ", " ", "  ", ".", "..", "/", "\\", ":", "*", "?", "\"",
            "<", ">", "|", "[", "]", "\n", "\t", "\u{0}", "\u{1f}", "é", "ß", "日", "😀", "-", "_",
            "%", "é", "word", "…", "\u{202e}", "CON", "ﬁ",
        ];
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        let mut usable = 0;
        for _ in 0..400 {
            let pieces = rng.below(40);
            let title: String = (0..pieces)
                .map(|_| ALPHABET[rng.below(ALPHABET.len())])
                .collect();
            let slug = slugify(&title);
            if slug.is_empty() {
                continue;
            }
            usable += 1;
            assert_safe_slug(&title, &slug);
            assert_stays_inside(&slug);
        }
        assert!(usable > 100, "only {usable} usable slugs");
    }

    #[test]
    fn simple_slug_shape() {
        for ok in ["pocket", "obsidian-mind", "a.b_c", "ios", "A1"] {
            assert!(is_simple_slug(ok), "{ok}");
        }
        for bad in [
            "../etc",
            "a/b",
            "has space",
            "semi;colon",
            "",
            "café",
            "a\\b",
        ] {
            assert!(!is_simple_slug(bad), "{bad}");
        }
    }

    // ----- §A.3 description and quoting -----

    #[test]
    fn description_takes_a_long_first_sentence() {
        let body = "The bundler inlines every workspace package it can see. Later text is ignored \
                    here. And more.";
        assert_eq!(
            describe(body),
            "The bundler inlines every workspace package it can see."
        );
    }

    #[test]
    fn description_ignores_a_short_first_sentence_and_later_stops() {
        // First stop at index 8 (<= 40): the whole flattened body is taken.
        let body = "Short.  Then a\nsecond sentence that is long enough. Third.";
        assert_eq!(
            describe(body),
            "Short. Then a second sentence that is long enough. Third."
        );
        assert_eq!(describe("no stop at all"), "no stop at all");
        assert_eq!(describe("ends with a stop."), "ends with a stop.");
    }

    #[test]
    fn description_is_clipped_with_an_ellipsis() {
        let word = "lorem ";
        let body = word.repeat(60);
        let d = describe(&body);
        assert!(d.ends_with('…'), "{d}");
        assert!(d.chars().count() <= 152, "{}", d.chars().count());
        assert!(!d.contains("  "));
        // No space at all: cut at 150 exactly.
        let d = describe(&"x".repeat(400));
        assert_eq!(d, format!("{}…", "x".repeat(150)));
        // Last space before 150 sits at index <= 100: cut hard at 150.
        let body = format!("{} {}", "a".repeat(90), "b".repeat(200));
        let d = describe(&body);
        assert_eq!(d.chars().count(), 151);
        // A long first sentence is clipped too.
        let body = format!("{}. tail", "word ".repeat(50));
        let d = describe(&body);
        assert!(d.chars().count() <= 152 && d.ends_with('…'), "{d}");
    }

    #[test]
    fn description_length_bound_over_many_bodies() {
        let mut rng = XorShift(42);
        let words = [
            "alpha",
            "beta.",
            "gamma!",
            "delta?",
            "x",
            "日本語",
            "\n\n",
            "quote\"",
            "a:b",
        ];
        for _ in 0..300 {
            let n = rng.below(120);
            let body: Vec<&str> = (0..n).map(|_| words[rng.below(words.len())]).collect();
            let d = describe(&body.join(" "));
            assert!(d.chars().count() <= 152, "{d:?}");
            assert!(!d.contains('\n'));
        }
    }

    #[test]
    fn json_strings_parse_as_json_and_yaml_on_one_line() {
        let samples = [
            "plain",
            "has \"quotes\" and: colons",
            "line one\nline two\r\nthree",
            "tab\there",
            "back\\slash",
            "- looks like a list",
            "# looks like a comment",
            "null",
            "",
            "nel\u{85}ls\u{2028}ps\u{2029}del\u{7f}bom\u{feff}",
            "日本語 😀",
            "ctrl \u{1}\u{8}\u{c}",
        ];
        for s in samples {
            let q = json_str(s);
            assert!(!q.contains('\n') && !q.contains('\r'), "{q}");
            assert!(!q.contains('\u{2028}') && !q.contains('\u{85}'), "{q}");
            let back: String = serde_json::from_str(&q).expect("json");
            assert_eq!(back, s);
            let doc = format!("description: {q}\n");
            let yaml: BTreeMap<String, String> = serde_yaml_ng::from_str(&doc).expect("yaml");
            assert_eq!(yaml["description"], s, "{doc}");
        }
    }

    #[test]
    fn a_title_alias_round_trips_through_the_frontmatter() {
        let title = "Why \"tsup\" externals: what a patch/fix can't reach, [really]";
        assert_ne!(slugify(title), title);
        let md = format!("---\naliases: [{}]\n---\n\n# x\n", json_str(title));
        assert_eq!(
            crate::markdown::frontmatter::parse_subset(&md).get("aliases"),
            Some(&crate::markdown::frontmatter::FmValue::List(vec![
                title.to_owned()
            ]))
        );
    }

    // ----- §A.4 contract rules -----

    fn markers(body: &str) -> Vec<&'static str> {
        contract_rules(body).iter().map(|h| h.marker).collect()
    }

    #[test]
    fn recurrence_claims_are_flagged_generalised() {
        for body in [
            "The release script always breaks on Windows when the path has spaces in it.",
            "The store never recovers from a partial write unless the temp file is removed.",
            "Every time the cache is cold the first query takes ten seconds to answer.",
            "This keeps happening after every rebase of the feature branch onto main.",
            "It keeps on failing in CI when the runner image is updated.",
            "A recurring timeout in the sync job when the network is slow.",
            "The upload consistently fails for files above two gigabytes on this host.",
            "It ALWAYS crashes on launch when the locale is Turkish.",
        ] {
            let hits = contract_rules(body);
            assert_eq!(hits.len(), 1, "{body}");
            assert_eq!(hits[0].id, "recurrence");
            assert_eq!(hits[0].marker, "generalised");
            assert!(!hits[0].reject);
            assert!(!hits[0].message.is_empty());
        }
    }

    #[test]
    fn non_recurrence_bodies_are_not_flagged() {
        for body in [
            "tsup externals are not bundled, so the patch never reaches them at runtime.",
            "On 2026-07-26 the build failed because the lockfile was stale.",
            "It always does that. Then it breaks the next build.",
            format!("It never {} fails.", "quietly ".repeat(6)).as_str(),
            "The hangar door is always open for visitors during the day.",
        ] {
            assert!(markers(body).is_empty(), "{body}: {:?}", markers(body));
        }
    }

    #[test]
    fn undated_counts_are_flagged_volatile() {
        let hits = contract_rules("The library has 3974 stars and 480 forks on GitHub today.");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "undated-volatile");
        assert_eq!(hits[0].marker, "volatile");
        assert!(!hits[0].reject);
        assert_eq!(
            markers("It gets 1,200,000 downloads a week."),
            vec!["volatile"]
        );
        assert_eq!(markers("About 12k users rely on it."), Vec::<&str>::new());
        assert!(markers("The library has 3974 stars as of 2026-07-26 on GitHub.").is_empty());
        assert!(markers("As of this spring it had 3974 stars.").is_empty());
        assert!(markers("Measured 2026-07-26: 3974 stars.").is_empty());
        assert!(markers("It has many stars and forks.").is_empty());
    }

    #[test]
    fn transcripts_are_rejected_and_a_quote_is_not() {
        let log = "User: why does the build fail?\nAssistant: the lockfile is stale.\n\
                   User: how do I fix it?\nAssistant: run npm install and commit it.";
        let hits = contract_rules(log);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].id, "transcript");
        assert_eq!(hits[0].marker, "transcript");
        assert!(hits[0].reject);
        assert!(hits[0].message.starts_with("body looks like a transcript"));
        let mixed = "human: a\n  AI : b\nsystem: c\nassistant:d";
        assert!(contract_rules(mixed).iter().any(|h| h.reject));
        let quote = "The error surfaced when a tester wrote\nUser: the app froze\nand the \
                     lockfile turned out to be stale, which explains it.";
        assert!(contract_rules(quote).is_empty());
        // Under the contract's four lines, an exchange of both sides is still a transcript
        // (issue 39); turns of one side only are quotes.
        let three = "User: a\nAssistant: b\nUser: c\nThe rest is prose about it.";
        assert!(contract_rules(three).iter().any(|h| h.reject));
        let one_side = "User: a\nUser: b\nUser: c\nThe rest is prose about it.";
        assert!(contract_rules(one_side).is_empty());
    }

    // ----- §A.5 links -----

    #[test]
    fn resolve_links_keeps_resolvable_names() {
        let names = set(&["pocket", "obsidian-mind"]);
        assert_eq!(
            resolve_links(&strings(&["pocket", "Ghost Note"]), &names),
            (strings(&["pocket"]), strings(&["Ghost Note"]))
        );
        assert_eq!(
            resolve_links(&strings(&["POCKET"]), &names),
            (strings(&["POCKET"]), vec![])
        );
        assert_eq!(
            resolve_links(
                &strings(&["Pocket", "pocket", " POCKET ", "ghost", "GHOST"]),
                &names
            ),
            (strings(&["Pocket"]), strings(&["ghost"]))
        );
        assert_eq!(
            resolve_links(&strings(&["", "  "]), &names),
            (vec![], vec![])
        );
        assert_eq!(resolve_links(&[], &names), (vec![], vec![]));
    }

    #[test]
    fn dangling_wikilinks_are_unlinked() {
        let names = set(&["pocket"]);
        let mut dropped = Vec::new();
        let out = neutralize_wikilinks(
            "See [[Ghost]], [[Ghost|shown]], [[pocket]] and [[Pocket#Setup|the setup]] and \
             [[Other#Part]].",
            &names,
            &mut dropped,
        );
        assert_eq!(
            out,
            "See Ghost, shown, [[pocket]] and [[Pocket#Setup|the setup]] and Other."
        );
        assert_eq!(dropped, strings(&["Ghost", "Other"]));
        let title = neutralize_wikilinks("About [[Ghost]]", &names, &mut dropped);
        assert_eq!(title, "About Ghost");
        assert_eq!(dropped, strings(&["Ghost", "Other"]));
        assert_eq!(
            neutralize_wikilinks("no links [x] [[", &names, &mut dropped),
            "no links [x] [["
        );
    }

    // ----- §A.6 similarity -----

    #[test]
    fn stem_folds_plurals_only() {
        for (from, to) in [
            ("patches", "patch"),
            ("externals", "external"),
            ("resolves", "resolve"),
            ("dependencies", "dependency"),
            ("boxes", "box"),
            ("wishes", "wish"),
            ("node_modules", "node_module"),
        ] {
            assert_eq!(stem(from), to, "{from}");
        }
        for same in ["class", "https", "ios", "css", "bus", "is", "address"] {
            assert_eq!(stem(same), same, "{same}");
        }
    }

    #[test]
    fn tokens_drop_stopwords_and_punctuation() {
        assert_eq!(tokens("node_modules"), set(&["node_module"]));
        assert_eq!(tokens("bump to 0.1.5 now"), set(&["bump", "0.1.5", "now"]));
        assert!(tokens("").is_empty());
        assert!(tokens("### *** ---").is_empty());
        assert!(tokens("the and of is are was you we they what which").is_empty());
        let t = tokens("**Patches** to `tsup` [externals](x) > resolves ~dependencies~ #tag");
        assert_eq!(
            t,
            set(&["patch", "tsup", "external", "resolve", "dependency", "tag"])
        );
        for tok in tokens("## [[Link]] (a) `code` *em* ~x~ > quote, done; ok! 日本語 café") {
            assert!(
                tok.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._/-".contains(c)),
                "{tok}"
            );
            assert!(tok.len() > 1);
        }
    }

    #[test]
    fn jaccard_edge_cases() {
        assert_eq!(jaccard(&set(&[]), &set(&[])), 1.0);
        assert_eq!(jaccard(&set(&[]), &set(&["a"])), 0.0);
        assert_eq!(jaccard(&set(&["a"]), &set(&[])), 0.0);
        assert_eq!(jaccard(&set(&["a", "b"]), &set(&["b", "c"])), 1.0 / 3.0);
        assert_eq!(jaccard(&set(&["a", "b"]), &set(&["a", "b"])), 1.0);
    }

    const TITLE: &str = "tsup externals decide what a patch can fix";
    const BODY: &str = "When a dependency is listed in tsup externals it is not bundled into \
                        dist, so a patch-package fix to that dependency reaches consumers only \
                        through their own install; a bundled copy never sees the patch.";

    #[test]
    fn similarity_calibration() {
        let a = Digest::new(TITLE, BODY);
        assert_eq!(similarity(&a, &a), 1.0);

        let restated = Digest::new(
            "tsup externals decide what a patch can fix",
            "When a dependency is listed in tsup externals it is not bundled into dist, so a \
             patch-package fix to that dependency reaches consumers only through their install; \
             bundled copies never see the patch.",
        );
        assert!(
            similarity(&a, &restated) >= 0.75,
            "{}",
            similarity(&a, &restated)
        );

        let different = Digest::new(
            "tsup noExternal inlines workspace packages into the bundle",
            "Listing a workspace package under tsup noExternal copies its source into dist, so \
             edits to that package need a rebuild of every consumer before they show up.",
        );
        let s = similarity(&a, &different);
        assert!(s < 0.75, "{s}");

        let unrelated = Digest::new(
            "Safari keeps service workers alive across reloads",
            "On iOS the service worker survives a hard reload, so a stale worker keeps serving \
             cached HTML until every tab of the site is closed.",
        );
        let s = similarity(&a, &unrelated);
        assert!(s < 0.2, "{s}");
    }

    #[test]
    fn title_weighs_more_than_body() {
        let a = Digest::new(TITLE, BODY);
        let same_title = Digest::new(
            TITLE,
            "Cold caches make the first query slow on every laptop we measured.",
        );
        let same_body = Digest::new("Safari keeps service workers alive across reloads", BODY);
        assert!(similarity(&a, &same_title) > similarity(&a, &same_body));
    }

    // ----- §A.7 / §A.10 frontmatter -----

    const MEMORY: &str = "---\ndate: 2026-07-26\ndescription: \"x\"\nsource: mcp-capture\n\
                          projects: [\"pocket\"]\n---\n\n# Old lesson\n\nBody with ---\n\
                          superseded_by: [\"not me\"]\n";

    #[test]
    fn memory_title_and_body() {
        assert_eq!(
            memory_title_body(MEMORY),
            (
                Some(String::from("Old lesson")),
                String::from("Body with ---\nsuperseded_by: [\"not me\"]")
            )
        );
        assert_eq!(
            memory_title_body("# Title  \nbody line\n## Sub\nmore"),
            (
                Some(String::from("Title")),
                String::from("body line\n## Sub\nmore")
            )
        );
        assert_eq!(
            memory_title_body("---\na: 1\n---\nno heading here\n"),
            (None, String::from("no heading here"))
        );
        assert_eq!(
            memory_title_body("---\r\na: 1\r\n---\r\n\r\n# T\r\n\r\nBody.\r\n"),
            (Some(String::from("T")), String::from("Body."))
        );
        assert_eq!(memory_title_body(""), (None, String::new()));
    }

    #[test]
    fn record_work_description_clamp() {
        assert_eq!(clamp_description("short\n  text", 150), "short text");
        let long = "word ".repeat(60);
        let d = clamp_description(&long, 150);
        assert!(d.chars().count() <= 150, "{}", d.chars().count());
        assert!(d.ends_with("word…"), "{d}");
        let d = clamp_description(&"x".repeat(200), 150);
        assert_eq!(d, format!("{}…", "x".repeat(149)));
        let d = clamp_description(&format!("{}, — nextpart", "y".repeat(140)), 150);
        assert_eq!(d, format!("{}…", "y".repeat(140)));
    }

    #[test]
    fn single_quoted_description_stays_parseable() {
        assert_eq!(yaml_single_quoted("it's \"fine\""), "'it''s \"fine\"'");
        assert_eq!(yaml_single_quoted("a\\b"), "'a\\b'");
        for raw in [
            "it's \"fine\": really",
            "back\\slash \\n stays",
            "line one\nline two 'quoted'",
            "# not a comment",
            "- not a list",
        ] {
            let flat = clamp_description(raw, 150);
            let doc = format!(
                "description: {}\naliases:\n  - {}\n",
                yaml_single_quoted(&flat),
                yaml_single_quoted(&flat)
            );
            let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&doc).expect("yaml");
            assert_eq!(v["description"].as_str(), Some(flat.as_str()), "{doc}");
            assert_eq!(v["aliases"][0].as_str(), Some(flat.as_str()), "{doc}");
        }
    }

    // ----- §B.7 sanitize -----

    #[test]
    fn sanitize_replaces_local_paths() {
        assert_eq!(
            sanitize("cannot open C:\\Users\\bob\\vault\\x.md now"),
            "cannot open <path> now"
        );
        assert_eq!(
            sanitize("at D:/dev/atlas/src (line 3)"),
            "at <path> (line 3)"
        );
        assert_eq!(
            sanitize("read /home/alice/vault/x.md failed"),
            "read <path> failed"
        );
        assert_eq!(sanitize("'/Users/bob/notes'"), "'<path>'");
        assert_eq!(
            sanitize("/users/x and /root/.config/qmd"),
            "<path> and <path>"
        );
        assert_eq!(
            sanitize("share \\\\server\\share\\x.md gone"),
            "share <path> gone"
        );
        assert_eq!(sanitize("uri file:///home/x/atlas"), "uri file://<path>");
        assert_eq!(sanitize("(C:\\x)"), "(<path>)");
        assert_eq!(
            sanitize("`/home/a` then \"C:\\b\" then \\\\c\\d"),
            "`<path>` then \"<path>\" then <path>"
        );
    }

    #[test]
    fn sanitize_keeps_vault_paths_and_text() {
        for keep in [
            "vault://note/work/Secret.md",
            "not found: brain/Gotchas.md",
            "work/home/x.md and notes/root/y.md",
            "ratio 3:1 and a:b",
            "https://example.com/home/x",
            "no paths here",
        ] {
            assert_eq!(sanitize(keep), keep);
        }
    }

    // ----- §B.8 markup guard -----

    fn arg_open(name: &str) -> String {
        format!("<{TAG_ARG} name=\"{name}\">")
    }

    #[test]
    fn markup_inside_a_field_is_found() {
        let body = format!("The fix works.{}more text</{TAG_ARG}>", arg_open("tags"));
        let hit = find_markup(&[
            ("title", FieldValue::Text("clean title")),
            ("body", FieldValue::Text(&body)),
        ])
        .expect("hit");
        assert_eq!(hit.field, "body");
        assert_eq!(hit.item, None);
        assert_eq!(hit.offset, "The fix works.".len());
        assert_eq!(hit.matched, format!("<{TAG_ARG} name="));
        assert_eq!(hit.len, body.chars().count());
        assert!(!hit.trailing);
    }

    #[test]
    fn markup_in_list_items_and_namespaced_tags() {
        let items = strings(&["fine", "also fine"]);
        let bad = vec![
            String::from("ok"),
            format!("x <{TAG_NS}{TAG_CALL} name=\"y\">"),
        ];
        let hit = find_markup(&[
            ("what_changed", FieldValue::List(&items)),
            ("decisions", FieldValue::List(&bad)),
        ])
        .expect("hit");
        assert_eq!(hit.field, "decisions");
        assert_eq!(hit.item, Some(2));
        assert_eq!(hit.offset, 2);
        assert_eq!(hit.matched, format!("<{TAG_NS}{TAG_CALL}"));

        let variants = [
            format!("<{TAG_CALL}>"),
            format!("</{TAG_CALL}>"),
            format!("<{TAG_BATCH}>"),
            format!("</{TAG_NS}{TAG_BATCH}>"),
            format!("<{}>", TAG_BATCH.to_uppercase()),
            format!("<{TAG_ARG}\n  NAME=\"x\">"),
        ];
        for v in &variants {
            let text = format!("summary {v} tail");
            assert!(
                find_markup(&[("summary", FieldValue::Text(&text))]).is_some(),
                "{v}"
            );
        }
    }

    #[test]
    fn ordinary_angle_brackets_pass() {
        for clean in [
            "<details><summary>More</summary>text</details>",
            "if a < b and c > d then swap",
            "Vec<String> -> Option<u8>",
            format!("<{TAG_CALL}r> and <{TAG_ARG}s> and <{TAG_ARG}>").as_str(),
            format!("<{}> tag", TAG_NS.trim_end_matches(':')).as_str(),
        ] {
            assert_eq!(
                find_markup(&[("body", FieldValue::Text(clean))]),
                None,
                "{clean}"
            );
        }
        assert_eq!(find_markup(&[]), None);
    }

    #[test]
    fn trailing_closers_versus_embedded_content() {
        let tail = format!("The lesson is complete.\n</{TAG_ARG}>\n</{TAG_NS}{TAG_CALL}>\n");
        let hit = find_markup(&[("body", FieldValue::Text(&tail))]).expect("hit");
        assert!(hit.trailing);
        let only = format!("done</{TAG_CALL}>");
        assert!(
            find_markup(&[("body", FieldValue::Text(&only))])
                .expect("hit")
                .trailing
        );
        let embedded = format!("done</{TAG_CALL}> and then the next field's text");
        assert!(
            !find_markup(&[("body", FieldValue::Text(&embedded))])
                .expect("hit")
                .trailing
        );
        let opener_then_closer = format!("a {} b</{TAG_ARG}>", arg_open("x"));
        assert!(
            !find_markup(&[("body", FieldValue::Text(&opener_then_closer))])
                .expect("hit")
                .trailing
        );
    }

    #[test]
    fn offset_indexes_the_match_in_characters() {
        let text = format!("日本語 😀 prose {} rest", arg_open("k"));
        let hit = find_markup(&[("body", FieldValue::Text(&text))]).expect("hit");
        let at: String = text
            .chars()
            .skip(hit.offset)
            .take(hit.matched.chars().count())
            .collect();
        assert_eq!(at, hit.matched);
        assert_eq!(hit.len, text.chars().count());
    }

    #[test]
    fn refusal_names_keys_and_length_never_the_value() {
        let secret = "TOP-SECRET-PROSE";
        let body = format!("{secret} {}{secret}", arg_open("x"));
        let hit = find_markup(&[("body", FieldValue::Text(&body))]).expect("hit");
        let text = markup_refusal(&hit, &["title", "body", "confidence"]);
        assert!(
            text.starts_with("Refused: \"body\" contains tool-call markup"),
            "{text}"
        );
        assert!(
            text.contains(&format!("at offset {} of \"body\"", secret.len() + 1)),
            "{text}"
        );
        assert!(text.contains(&format!(
            "which is {} characters long",
            body.chars().count()
        )));
        assert!(
            text.contains("Fields received: title, body, confidence."),
            "{text}"
        );
        assert!(text.contains("swallowed the field after it"), "{text}");
        assert!(!text.contains(secret), "{text}");
        assert!(text.ends_with("Nothing was written."), "{text}");

        let items = vec![format!("ok</{TAG_CALL}>")];
        let hit = find_markup(&[("open", FieldValue::List(&items))]).expect("hit");
        let text = markup_refusal(&hit, &["open"]);
        assert!(text.contains("of item 1 of \"open\""), "{text}");
        assert!(text.contains("Check the field list first"), "{text}");
        assert!(!text.contains("swallowed"), "{text}");
        assert!(text.ends_with("Nothing was written."));
    }
}
