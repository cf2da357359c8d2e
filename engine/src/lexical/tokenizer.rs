//! The word splitter under the lexical analyzer: every script, and code-like identifiers.
//!
//! - Chinese, Japanese and Korean text has no spaces between words, so a run of CJK characters is
//!   indexed as its single characters and its overlapping character pairs (bigrams), each pair at
//!   the position of its first character. A query's CJK run is turned into its pairs by
//!   [`cjk_query_words`], so a query matches a note sharing enough of its character pairs, with no
//!   dictionary and no configuration: the script decides, per character run.
//! - Other text splits on anything that is not a letter or digit, except the identifier
//!   connectors `-`, `_`, `.`, `/` and `\` inside a word. A word holding connectors or camelCase
//!   boundaries (`deploy-v2.4.7-hotfix`, `snake_case_name`, `CamelCase`, `path/to/file.rs`) gives
//!   its parts, one position each; in the index an identifier also gives its whole form at the
//!   first part's position. Identifiers are words with `_`, `/`, `\`, a camelCase boundary, a dot
//!   next to a letter, a version's dots (`1.18.3`, `v2.4`), or a hyphen in a word holding a digit; plain hyphenated words (`long-term`)
//!   and numbers (`0.05`) are only their parts (measured: whole forms of those cost BM25 quality on
//!   the English sets). A word right after `--` is a command-line flag, an identifier however
//!   it is hyphenated (`--dry-run-ledger`). A query gives the parts only, so a typed identifier is a phrase of its parts that
//!   matches the identifier (and the same words written with other connectors), while a single
//!   lowercase word still finds the whole form (`camelcase` finds `CamelCase`).
//! - Full-width Latin letters and digits are read as their ASCII forms.
//!
//! Lowercasing, accent folding, stop words and stemming follow in the analyzer's filters.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The splitter. `whole_forms` adds identifiers' whole forms to their parts (for highlighting);
/// the index's text fields hold the parts only.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WordTokenizer {
    pub(crate) whole_forms: bool,
}

/// The `idents` field's splitter, where an identifier a query names is found exactly: in the
/// index, the identifiers' whole forms only; in a query, every word whole (an identifier's whole
/// form, or a plain word: `retrypolicy` finds `RetryPolicy`). One position each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct IdentTokenizer {
    pub(crate) query: bool,
}

/// Whether `c` belongs to a script written without spaces between words (Han, Hiragana,
/// Katakana) or indexed like one (Hangul syllables and jamo).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x309F       // Hiragana
        | 0x30A0..=0x30FF     // Katakana
        | 0x31F0..=0x31FF     // Katakana phonetic extensions
        | 0x3400..=0x4DBF     // CJK extension A
        | 0x4E00..=0x9FFF     // CJK unified ideographs
        | 0xF900..=0xFAFF     // CJK compatibility ideographs
        | 0xFF66..=0xFF9F     // half-width Katakana
        | 0x1100..=0x11FF     // Hangul jamo
        | 0x3130..=0x318F     // Hangul compatibility jamo
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0x20000..=0x2FA1F   // CJK extensions B-F and compatibility supplement
    )
}

fn is_connector(c: char) -> bool {
    matches!(c, '-' | '_' | '.' | '/' | '\\')
}

/// Full-width ASCII (U+FF01..U+FF5E) read as ASCII.
fn narrow(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// The parts of one word (connectors and camelCase boundaries), as ranges of `word`'s
/// characters, into `out` (cleared first).
fn parts(word: &[(usize, char)], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start: Option<usize> = None;
    for i in 0..word.len() {
        let c = word[i].1;
        if is_connector(c) {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
            continue;
        }
        if let Some(s) = start {
            let prev = word[i - 1].1;
            let next = word.get(i + 1).map(|x| x.1);
            // lower→Upper (camelCase), or the last capital of an acronym before a lowercase
            // letter (HTTPServer → HTTP, Server). Letters and digits stay together (v2, p99).
            let camel = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase()
                    && c.is_uppercase()
                    && next.is_some_and(char::is_lowercase));
            if camel {
                out.push((s, i));
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, word.len()));
    }
}

/// Splits `text` into tokens (see the module docs).
pub(crate) fn tokenize(text: &str, whole_forms: bool) -> Vec<Token> {
    let chars = chars_of(text);
    let mut out = Vec::new();
    scan(text, &chars, whole_forms, |from, to, range, position| {
        out.push(Token {
            offset_from: from,
            offset_to: to,
            position,
            text: chars[range].iter().map(|x| x.1).collect(),
            position_length: 1,
        })
    });
    out
}

/// `text`'s characters with their byte offsets, full-width ones read as ASCII.
fn chars_of(text: &str) -> Vec<(usize, char)> {
    let mut chars = Vec::with_capacity(text.len());
    chars.extend(text.char_indices().map(|(i, c)| (i, narrow(c))));
    chars
}

/// The token position at the start of each line of `text` (lines split at `\n`), and after its
/// last line: what [`tokenize`] gives the first token at or after that line's start. A token
/// never spans lines, so a line's tokens are the positions from its entry to the next one's.
pub(crate) fn line_positions(text: &str) -> Vec<u32> {
    let mut starts = Vec::with_capacity(text.len() / 40 + 2);
    let mut next = 0u32;
    for line in text.split('\n') {
        starts.push(next);
        next += if line.is_ascii() {
            ascii_positions(line.as_bytes())
        } else {
            let mut count = 0;
            scan(line, &chars_of(line), false, |_, _, _, position| {
                count = position as u32 + 1
            });
            count
        };
    }
    starts.push(next);
    starts
}

/// How many positions [`scan`] gives an ASCII line.
fn ascii_positions(line: &[u8]) -> u32 {
    let mut count = 0;
    scan_ascii_parts(line, |_, position| count = position as u32 + 1);
    count
}

/// The tokenizer's walk over `chars` (from [`chars_of`]): each token as (start, end, the range of
/// `chars` it reads, position), in order.
fn scan(
    text: &str,
    chars: &[(usize, char)],
    whole_forms: bool,
    mut emit: impl FnMut(usize, usize, std::ops::Range<usize>, usize),
) {
    let end_of = |i: usize| chars.get(i).map_or(text.len(), |x| x.0);
    let mut position = 0usize;
    let mut spans = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i].1;
        if is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i].1) {
                i += 1;
            }
            for (k, &(from, _)) in chars.iter().enumerate().take(i).skip(start) {
                emit(from, end_of(k + 1), k..k + 1, position);
                if k + 1 < i {
                    emit(from, end_of(k + 2), k..k + 2, position);
                }
                position += 1;
            }
            continue;
        }
        if !is_word_char(c) {
            i += 1;
            continue;
        }
        // A word: letters and digits, with connectors inside (not at its ends).
        let start = i;
        let mut j = i;
        let mut last_word_char = i;
        while j < chars.len() {
            let cj = chars[j].1;
            if is_word_char(cj) {
                last_word_char = j;
            } else if !is_connector(cj) {
                break;
            }
            j += 1;
        }
        let word = &chars[start..=last_word_char];
        parts(word, &mut spans);
        if spans.len() > 1 && whole_forms && is_identifier(chars, start, word, spans.len()) {
            emit(
                word[0].0,
                end_of(last_word_char + 1),
                start..last_word_char + 1,
                position,
            );
        }
        for &(a, b) in &spans {
            emit(word[a].0, end_of(start + b), start + a..start + b, position);
            position += 1;
        }
        i = last_word_char + 1;
    }
}

/// Whether `word` (starting at `chars[start]`, with `parts` parts) is an identifier, indexed
/// whole as well (see the module docs).
fn is_identifier(
    chars: &[(usize, char)],
    start: usize,
    word: &[(usize, char)],
    parts: usize,
) -> bool {
    word.iter().enumerate().any(|(k, x)| match x.1 {
        '_' | '/' | '\\' => true,
        // A hyphen in a code-like word (`sev-1`, `deploy-v2`), not between plain words.
        '-' => word.iter().any(|y| y.1.is_ascii_digit()),
        // A dot next to a letter (`file.rs`, `v2.4`), not inside a number (`0.05`); a
        // version (`1.18.3`, `v2.4.7`: two dots, or a `v` before the number) is one too.
        '.' => {
            word[k - 1].1.is_alphabetic()
                || word.get(k + 1).is_some_and(|y| y.1.is_alphabetic())
                || word.iter().filter(|y| y.1 == '.').count() >= 2
                || (matches!(word[0].1, 'v' | 'V') && word.get(1).is_some_and(|y| y.1.is_ascii_digit()))
        }
        _ => false,
    }) || parts > word.iter().filter(|x| is_connector(x.1)).count() + 1
        // A command-line flag (`--dry-run-ledger`): code, whatever its hyphens.
        || (start >= 2 && chars[start - 1].1 == '-' && chars[start - 2].1 == '-')
}

/// The whitespace-separated words of `texts` that may hold an identifier (a connector, or a
/// capital after a lowercase letter), joined by spaces: all the `idents` field needs to see, at a
/// fraction of the text's length (measured: tokenizing whole notes for it cost ~15% of a full
/// build).
pub(crate) fn identifier_words(texts: &[&str]) -> String {
    let mut out = String::new();
    for text in texts {
        for w in text.split_whitespace() {
            let bytes = w.as_bytes();
            let candidate = bytes
                .iter()
                .any(|b| matches!(b, b'_' | b'/' | b'\\' | b'.' | b'-'))
                || bytes
                    .windows(2)
                    .any(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase())
                || (!w.is_ascii()
                    && w.chars()
                        .any(|c| matches!(narrow(c), '_' | '/' | '\\' | '.' | '-')));
            if candidate {
                out.push_str(w);
                out.push(' ');
            }
        }
    }
    out
}

/// The whole forms' spans among tokens from `tokenize(_, true)` (highlighting finds them the
/// same way on analyzed tokens: `fields::analyze_for_highlights`): a whole form comes right before
/// its first part, at the same position and start, and ends later.
fn whole_spans_of(tokens: &[Token]) -> Vec<std::ops::Range<usize>> {
    tokens
        .windows(2)
        .filter(|w| {
            w[0].position == w[1].position
                && w[0].offset_from == w[1].offset_from
                && w[0].offset_to > w[1].offset_to
        })
        .map(|w| w[0].offset_from..w[0].offset_to)
        .collect()
}

/// How much of the query syntax a search honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// The whole syntax: phrases, `+`/`-`, fields (`title:word`), ranges and the rest. The
    /// owner's searches, who may read every note anyway.
    Full,
    /// Words and phrases in the default fields, `+`/`-` and grouping: what an agent may ask.
    /// A field name, a range, a set, a regex, a prefix or `*` would let a query single out one
    /// withheld note (`path:"…" +word`) or list the index's terms (`[a TO b]`).
    Words,
}

/// The text the query parser reads for `query`: command-line flags quoted ([`quote_flags`]),
/// CJK runs as pairs ([`cjk_query_words`]), and under [`Syntax::Words`] every structured part
/// read as plain words: a query whose parse holds anything but words and phrases in the default
/// fields has each character of the syntax (`:` `[` `]` `{` `}` `(` `)` `*` `/` `<` `>` `=` `\`
/// `^` `~` `!` and the backtick) read as a space. A plain query is left as it is, so agents
/// and the owner rank it alike.
pub(crate) fn parser_words(query: &str, syntax: Syntax) -> String {
    let words = cjk_query_words(&quote_flags(query));
    if syntax == Syntax::Full || only_words(&words) {
        return words;
    }
    let spaced: String = words
        .chars()
        .map(|c| {
            if matches!(
                c,
                ':' | '['
                    | ']'
                    | '{'
                    | '}'
                    | '('
                    | ')'
                    | '*'
                    | '/'
                    | '<'
                    | '>'
                    | '='
                    | '\\'
                    | '^'
                    | '~'
                    | '!'
                    | '`'
            ) {
                ' '
            } else {
                c
            }
        })
        .collect();
    if only_words(&spaced) {
        return spaced;
    }
    // Nothing the grammar could read as structure is left but letters, digits and spaces.
    spaced
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect()
}

/// Whether the query grammar reads `words` as words and phrases in the default fields only.
fn only_words(words: &str) -> bool {
    use tantivy::query_grammar::{UserInputAst, UserInputLeaf};
    fn plain(ast: &UserInputAst) -> bool {
        match ast {
            UserInputAst::Clause(clauses) => clauses.iter().all(|(_, a)| plain(a)),
            UserInputAst::Boost(inner, _) => plain(inner),
            UserInputAst::Leaf(leaf) => matches!(
                leaf.as_ref(),
                UserInputLeaf::Literal(l) if l.field_name.is_none() && !l.prefix
            ),
        }
    }
    plain(&tantivy::query_grammar::parse_query_lenient(words).0)
}

/// A query with each command-line flag (`--dry-run`) outside double quotes quoted, so the query
/// parser reads it as words to find, not as `-` (exclude) `-dry-run`.
pub(crate) fn quote_flags(query: &str) -> String {
    if !query.contains("--") {
        return query.to_string();
    }
    let mut quoted = false;
    let mut out = Vec::new();
    for word in query.split(' ') {
        let flag = !quoted
            && word.starts_with("--")
            && word[2..].chars().next().is_some_and(char::is_alphanumeric)
            && !word.contains('"');
        quoted ^= word.matches('"').count() % 2 == 1;
        out.push(if flag {
            format!("\"{word}\"")
        } else {
            word.to_string()
        });
    }
    out.join(" ")
}

/// A query with every CJK run outside double quotes rewritten as its overlapping character pairs
/// (`東京タワー` → `東京 京タ タワ ワー`), so that the query's words are the index's pairs.
pub(crate) fn cjk_query_words(query: &str) -> String {
    if !query.chars().any(is_cjk) {
        return query.to_string();
    }
    let mut out = String::with_capacity(query.len() * 3);
    let mut quoted = false;
    let chars: Vec<char> = query.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            quoted = !quoted;
        }
        if !quoted && is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i]) {
                i += 1;
            }
            let run = &chars[start..i];
            out.push(' ');
            if run.len() == 1 {
                out.push(run[0]);
            } else {
                for w in run.windows(2) {
                    out.push(w[0]);
                    out.push(w[1]);
                    out.push(' ');
                }
            }
            out.push(' ');
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The token stream of [`WordTokenizer`]: the text's tokens found up front, each written into
/// one reused [`Token`] as the stream advances (no allocation per token).
pub(crate) struct WordStream<'a> {
    text: &'a str,
    /// The text's characters ([`chars_of`]); empty when the tokens were found in its bytes.
    chars: Vec<(usize, char)>,
    /// (start, end, range of `chars` or of the text's bytes, position) per token.
    found: Vec<(usize, usize, std::ops::Range<usize>, usize)>,
    next: usize,
    current: Token,
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        let Some((from, to, range, position)) = self.found.get(self.next).cloned() else {
            return false;
        };
        self.next += 1;
        let t = &mut self.current;
        t.offset_from = from;
        t.offset_to = to;
        t.position = position;
        t.position_length = 1;
        t.text.clear();
        if self.chars.is_empty() {
            t.text.push_str(&self.text[range]);
        } else {
            t.text.extend(self.chars[range].iter().map(|x| x.1));
        }
        true
    }
    fn token(&self) -> &Token {
        &self.current
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

/// [`scan`] without whole forms on ASCII text, in its bytes: each part of each word (a run of
/// letters and digits, cut at camelCase boundaries as [`parts`] cuts it) at its own position.
fn scan_ascii_parts(text: &[u8], mut emit: impl FnMut(std::ops::Range<usize>, usize)) {
    let mut position = 0;
    let mut start: Option<usize> = None;
    for (i, &c) in text.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if let Some(s) = start.take() {
                emit(s..i, position);
                position += 1;
            }
            continue;
        }
        match start {
            None => start = Some(i),
            Some(s) if c.is_ascii_uppercase() => {
                let prev = text[i - 1];
                let next = text.get(i + 1).copied().unwrap_or(b' ');
                if prev.is_ascii_lowercase()
                    || (prev.is_ascii_uppercase() && next.is_ascii_lowercase())
                {
                    emit(s..i, position);
                    position += 1;
                    start = Some(i);
                }
            }
            Some(_) => {}
        }
    }
    if let Some(s) = start {
        emit(s..text.len(), position);
    }
}

/// The stream of already split tokens (the identifier tokenizer's).
pub(crate) struct TokenList {
    tokens: std::vec::IntoIter<Token>,
    current: Token,
}

impl TokenStream for TokenList {
    fn advance(&mut self) -> bool {
        match self.tokens.next() {
            Some(t) => {
                self.current = t;
                true
            }
            None => false,
        }
    }
    fn token(&self) -> &Token {
        &self.current
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        let mut found = Vec::new();
        let mut chars = Vec::new();
        if !self.whole_forms && text.is_ascii() {
            scan_ascii_parts(text.as_bytes(), |range, position| {
                found.push((range.start, range.end, range, position))
            });
        } else {
            chars = chars_of(text);
            scan(
                text,
                &chars,
                self.whole_forms,
                |from, to, range, position| found.push((from, to, range, position)),
            );
        }
        WordStream {
            text,
            chars,
            found,
            next: 0,
            current: Token::default(),
        }
    }
}

impl Tokenizer for IdentTokenizer {
    type TokenStream<'a> = TokenList;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> TokenList {
        let all = tokenize(text, true);
        let spans = whole_spans_of(&all);
        let query = self.query;
        let mut tokens: Vec<Token> = all
            .into_iter()
            .filter(|t| {
                spans.contains(&(t.offset_from..t.offset_to))
                    || (query
                        && !t.text.chars().any(is_cjk)
                        && !spans
                            .iter()
                            .any(|w| w.start <= t.offset_from && t.offset_to <= w.end))
            })
            .collect();
        tokens.dedup_by(|b, a| a.offset_from == b.offset_from && a.offset_to == b.offset_to);
        for (i, t) in tokens.iter_mut().enumerate() {
            t.position = i;
        }
        TokenList {
            tokens: tokens.into_iter(),
            current: Token::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str, whole: bool) -> Vec<(String, usize)> {
        tokenize(s, whole)
            .into_iter()
            .map(|t| (t.text, t.position))
            .collect()
    }

    fn words(s: &str, whole: bool) -> Vec<String> {
        texts(s, whole).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn flags_are_identifiers_and_quoted_for_the_parser() {
        assert_eq!(
            words("run --dry-run-ledger now", true),
            vec!["run", "dry-run-ledger", "dry", "run", "ledger", "now"]
        );
        // Without the dashes, a plain hyphenated word stays its parts.
        assert_eq!(words("dry-run", true), vec!["dry", "run"]);
        assert_eq!(
            quote_flags("use --dry-run-ledger and -x \"--kept as is\""),
            "use \"--dry-run-ledger\" and -x \"--kept as is\""
        );
        assert_eq!(quote_flags("no flags - here"), "no flags - here");
    }

    #[test]
    fn plain_words_and_offsets() {
        let t = tokenize("Hello, wörld 42!", true);
        let w: Vec<&str> = t.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(w, ["Hello", "wörld", "42"]);
        assert_eq!(
            &"Hello, wörld 42!"[t[1].offset_from..t[1].offset_to],
            "wörld"
        );
        assert_eq!(t.iter().map(|t| t.position).collect::<Vec<_>>(), [0, 1, 2]);
    }

    #[test]
    fn identifiers_give_whole_form_and_parts() {
        assert_eq!(
            texts("deploy-v2.4.7-hotfix now", true),
            [
                ("deploy-v2.4.7-hotfix".into(), 0),
                ("deploy".into(), 0),
                ("v2".into(), 1),
                ("4".into(), 2),
                ("7".into(), 3),
                ("hotfix".into(), 4),
                ("now".into(), 5),
            ]
        );
        assert_eq!(
            words("snake_case_name", true),
            ["snake_case_name", "snake", "case", "name"]
        );
        assert_eq!(words("CamelCase", true), ["CamelCase", "Camel", "Case"]);
        assert_eq!(words("HTTPServer", true), ["HTTPServer", "HTTP", "Server"]);
        assert_eq!(
            words("path/to/file.rs", true),
            ["path/to/file.rs", "path", "to", "file", "rs"]
        );
        assert_eq!(words("p99 v2 sha256", true), ["p99", "v2", "sha256"]);
        // Queries get the parts only.
        assert_eq!(words("snake_case_name", false), ["snake", "case", "name"]);
        // Plain hyphenated words and numbers are their parts only.
        assert_eq!(words("long-term 0.05", true), ["long", "term", "0", "05"]);
        // Versions are identifiers (issue 39): two dots, or a `v` before the number.
        assert_eq!(words("1.18.3", true), ["1.18.3", "1", "18", "3"]);
        assert_eq!(words("v2.4.7", true), ["v2.4.7", "v2", "4", "7"]);
        assert_eq!(words("v2.4", true), ["v2.4", "v2", "4"]);
        assert_eq!(words("3.14", true), ["3", "14"]);
        assert_eq!(words("sev-1", true), ["sev-1", "sev", "1"]);
        // Connectors at the ends are not part of the word.
        assert_eq!(
            words("end. -flag _x_ (a.b)", true),
            ["end", "flag", "x", "a.b", "a", "b"]
        );
    }

    #[test]
    fn cjk_runs_give_characters_and_pairs() {
        assert_eq!(
            texts("東京タワー", true),
            [
                ("東".into(), 0),
                ("東京".into(), 0),
                ("京".into(), 1),
                ("京タ".into(), 1),
                ("タ".into(), 2),
                ("タワ".into(), 2),
                ("ワ".into(), 3),
                ("ワー".into(), 3),
                ("ー".into(), 4),
            ]
        );
        assert_eq!(words("猫", true), ["猫"]);
        // Mixed scripts split at the script boundary.
        assert_eq!(words("Rustで書いた", true)[0], "Rust");
        assert_eq!(
            words("결정 했어", true),
            ["결", "결정", "정", "했", "했어", "어"]
        );
    }

    #[test]
    fn full_width_latin_reads_as_ascii() {
        assert_eq!(words("ＡＢＣ１２３", true), ["ABC123"]);
    }

    #[test]
    fn cjk_queries_become_pairs() {
        assert_eq!(cjk_query_words("東京タワー"), " 東京 京タ タワ ワー  ");
        assert_eq!(
            cjk_query_words("猫 and dog"),
            " 猫 and dog".replace(" 猫", " 猫 ")
        );
        assert_eq!(cjk_query_words("\"東京タワー\""), "\"東京タワー\"");
        assert_eq!(cjk_query_words("plain"), "plain");
    }

    #[test]
    fn agent_queries_are_read_as_words_only() {
        let words = |q: &str| parser_words(q, Syntax::Words);
        // Plain queries are untouched: agents and the owner rank them alike.
        for q in [
            "connection pool exhaustion",
            "\"exact phrase\" +must -not",
            "(a OR b) AND c^2",
            "use \"--dry-run\"",
            "LEDGER_SYNC_MAX_CONNS src/main.rs",
        ] {
            assert_eq!(words(q), parser_words(q, Syntax::Full), "{q}");
        }
        // Fields, ranges, sets, regexes, prefixes and `*` are not.
        for q in [
            "+path:\"work/active/Secret.md\" +quokka",
            "title:secret wombat",
            "+path:[work/active/S TO work/active/T}",
            "{a TO b]",
            ">m",
            "<=m",
            "IN [a b]",
            "/sec.*/",
            "\"secr\"*",
            "*",
            "text:*",
            "std::fs::read",
            "path\\:x:y",
        ] {
            let w = words(q);
            assert!(only_words(&w), "{q} -> {w}");
            assert_ne!(w, parser_words(q, Syntax::Full), "{q}");
        }
        assert_eq!(words("title:secret wombat"), "title secret wombat");
        assert_eq!(
            parser_words("title:secret", Syntax::Full),
            "title:secret",
            "the owner keeps the whole syntax"
        );
    }

    /// Each line's first position is what the tokens say: the first position of a token at or
    /// after the line's start (the total after the last token).
    #[test]
    fn line_positions_agree_with_the_tokens() {
        let texts = [
            "",
            "\n\n",
            "one two\nthree\n\nfour five six\n",
            "deploy-v2.4.7-hotfix and snake_case_name\n--dry-run-ledger CamelCase HTTPServer\n",
            "東京タワー に 行く\n\n한국어 텍스트\nmixed 東京 words\n",
            "  leading space\n...\n— dash — ＡＢＣ full width\n1.18.3 0.05 v2.4\ntrailing",
            "a\nb\nc",
            "getHTTPResponse XMLHttpRequest a.B c_D e-F --flag-name x\\y ABCdef aBC",
        ];
        // And strings of word characters, connectors and camelCase, made up.
        let alphabet: Vec<char> = "aZb9Y-_./\\ \n:é東京".chars().collect();
        let mut seed = 0x2545_f491_u32;
        let made: Vec<String> = (0..300)
            .map(|_| {
                (0..40)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 17;
                        seed ^= seed << 5;
                        alphabet[seed as usize % alphabet.len()]
                    })
                    .collect()
            })
            .collect();
        for text in texts.iter().copied().chain(made.iter().map(String::as_str)) {
            let tokens = tokenize(text, false);
            let got = line_positions(text);
            let mut line_start = 0;
            let lines: Vec<&str> = text.split('\n').collect();
            assert_eq!(got.len(), lines.len() + 1, "{text:?}");
            let total = tokens.last().map_or(0, |t| t.position as u32 + 1);
            for (l, line) in lines.iter().enumerate() {
                let want = tokens
                    .iter()
                    .find(|t| t.offset_from >= line_start)
                    .map_or(total, |t| t.position as u32);
                assert_eq!(got[l], want, "{text:?} line {l}");
                line_start += line.len() + 1;
            }
            assert_eq!(got[lines.len()], total, "{text:?}");
            // The stream (ASCII text is split in its bytes) gives what `tokenize` gives.
            for whole_forms in [false, true] {
                let mut t = WordTokenizer { whole_forms };
                let mut stream = t.token_stream(text);
                let mut streamed = Vec::new();
                while let Some(tok) = stream.next() {
                    streamed.push(tok.clone());
                }
                assert_eq!(
                    streamed,
                    tokenize(text, whole_forms),
                    "{text:?} {whole_forms}"
                );
            }
        }
    }
}
