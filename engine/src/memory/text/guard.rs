//! What keeps local paths and mangled tool calls out of memories and answers: the sanitiser
//! (§B.7) and the tool-call markup guard.

use std::sync::LazyLock;

use super::{char_index, flatten_whitespace, pattern};
use regex::Regex;

// ---------------------------------------------------------------------------------------------
// §B.7 sanitising
// ---------------------------------------------------------------------------------------------

/// Windows drive paths (`X:\…`, `X:/…`) not preceded by a letter (so `vault://` survives).
pub(super) static DRIVE_PATH: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"(^|[^A-Za-z])[A-Za-z]:[\\/][^\s'"`)]*"#));

/// UNC paths (`\\server\share…`) starting a backslash run that no word character precedes.
pub(super) static UNC_PATH: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"(^|[^A-Za-z0-9_\\])\\\\[^\s'"`)]+"#));

/// Home and root directories of Unix-like systems, when they start an absolute path (not the
/// middle of a vault-relative one such as `work/home/x.md`).
pub(super) static HOME_PATH: LazyLock<Regex> =
    LazyLock::new(|| pattern(r#"(^|[^A-Za-z0-9_.\-])/(?:home|Users|users|root)/[^\s'"`)]*"#));

/// Replaces local absolute paths in a message with `<path>` (§B.7): Windows drive paths, UNC
/// paths and `/home/`, `/Users/`, `/users/`, `/root/` paths, each up to whitespace, a quote, a
/// backtick or `)`. Vault-relative paths and `vault://` URIs are left alone.
pub(crate) fn sanitize(message: &str) -> String {
    let s = DRIVE_PATH.replace_all(message, "${1}<path>");
    let s = UNC_PATH.replace_all(&s, "${1}<path>");
    let s = HOME_PATH.replace_all(&s, "${1}<path>");
    s.into_owned()
}

// ---------------------------------------------------------------------------------------------
// §B.8 tool-call markup guard
// ---------------------------------------------------------------------------------------------

/// Namespace prefix of tool-call tags, assembled so the literal tag never appears in source.
pub(super) const TAG_NS: &str = concat!("ant", "ml:");
/// Name of the tag that opens one tool call.
pub(super) const TAG_CALL: &str = concat!("in", "voke");
/// Name of the tag that wraps a batch of tool calls.
pub(super) const TAG_BATCH: &str = concat!("function", "_calls");
/// Name of the tag that carries one argument.
pub(super) const TAG_ARG: &str = concat!("para", "meter");

/// Any tool-call markup: an argument tag with a `name=` attribute, or a call or batch tag
/// (opening or closing, with or without the namespace).
pub(super) static MARKUP: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)<{TAG_ARG}\s+name=|</?(?:{TAG_NS})?(?:{TAG_CALL}|{TAG_BATCH})\b"
    ))
});

/// One or more closing tool-call tags at the very end of a text, with surrounding whitespace.
pub(super) static TRAILING_CLOSERS: LazyLock<Regex> = LazyLock::new(|| {
    pattern(&format!(
        r"(?i)(?:\s*</(?:{TAG_NS})?(?:{TAG_CALL}|{TAG_BATCH}|{TAG_ARG})\s*>)+\s*$"
    ))
});

/// Where tool-call markup was found in a write tool's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MarkupHit {
    /// Argument name.
    pub(crate) field: String,
    /// The matched markup text.
    pub(crate) matched: String,
    /// Character offset of the match inside the scanned text (the item, for a list).
    pub(crate) offset: usize,
    /// 1-based item number when the argument is a list.
    pub(crate) item: Option<usize>,
    /// Length in characters of the scanned text (the item, for a list).
    pub(crate) len: usize,
    /// True when only closing tags (and whitespace) end the text and removing them removes all
    /// markup: the call was closed early rather than a later field swallowed.
    pub(crate) trailing: bool,
}

/// An argument value the markup guard scans.
#[derive(Debug, Clone, Copy)]
pub(crate) enum FieldValue<'a> {
    /// A string argument.
    Text(&'a str),
    /// A list argument; each item is scanned as a string.
    List(&'a [String]),
}

/// Scans one text for markup.
pub(super) fn scan_markup(field: &str, text: &str, item: Option<usize>) -> Option<MarkupHit> {
    let m = MARKUP.find(text)?;
    let trailing = match TRAILING_CLOSERS.find(text) {
        Some(closers) => !MARKUP.is_match(&text[..closers.start()]),
        None => false,
    };
    Some(MarkupHit {
        field: field.to_owned(),
        matched: m.as_str().to_owned(),
        offset: char_index(text, m.start()),
        item,
        len: text.chars().count(),
        trailing,
    })
}

/// Finds the first tool-call markup in the arguments of a write tool (§B.8), scanning fields in
/// order and list items in order. Ordinary angle brackets and HTML such as `<details>` pass.
pub(crate) fn find_markup(fields: &[(&str, FieldValue<'_>)]) -> Option<MarkupHit> {
    fields.iter().find_map(|(field, value)| match value {
        FieldValue::Text(text) => scan_markup(field, text, None),
        FieldValue::List(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, text)| scan_markup(field, text, Some(i + 1))),
    })
}

/// The refusal text for a markup hit (§B.8). It names the field, the match, its offset and the
/// field's length, lists the argument keys received (never a value), diagnoses a trailing or an
/// embedded hit, and ends with `Nothing was written.`
pub(crate) fn markup_refusal(hit: &MarkupHit, keys: &[&str]) -> String {
    let site = match hit.item {
        Some(k) => format!("item {k} of \"{}\"", hit.field),
        None => format!("\"{}\"", hit.field),
    };
    let keys = if keys.is_empty() {
        String::from("(none)")
    } else {
        keys.join(", ")
    };
    let diagnosis = if hit.trailing {
        "The markup is only closing tags at the end of the field: the call was closed around its \
         own arguments. Check the field list first: a field you meant to send may be missing, \
         and this field carries the tail of the call."
    } else {
        "The markup sits inside the text with content after it: this field most likely \
         swallowed the field after it. Send each argument as its own field, with no tool-call \
         tags inside any value."
    };
    format!(
        "Refused: \"{field}\" contains tool-call markup, which means the arguments were mangled \
         while the call was assembled.\n\
         Found \"{matched}\" at offset {offset} of {site}, which is {len} characters long.\n\
         Fields received: {keys}.\n\
         {diagnosis}\n\
         Nothing was written.",
        field = hit.field,
        matched = flatten_whitespace(&hit.matched),
        offset = hit.offset,
        len = hit.len,
    )
}
