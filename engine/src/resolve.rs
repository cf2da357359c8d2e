//! The one name resolver: what a person or an agent typed (`work/Note.md`, `work/Note`, `Note`,
//! a path suffix, `vault://note/work/My-Note.md`, `my note`) to one vault-relative path, chosen
//! among the notes the asker may see, with close names suggested when nothing matches.
//!
//! Every surface resolves through [`resolve_among`]: the owner's view ([`crate::Vault::resolve`])
//! over the walked vault, the agent's view ([`crate::Scoped::resolve`]) over the notes the
//! exposure policy serves. So `get`, `multi_get`, `expand` and resources read the same name the
//! same way, and a note the asker may not see never matches, never makes a name ambiguous and is
//! never suggested.

use crate::error::{Error, Result};
use crate::identity::percent_decode;

/// The URI prefix of a note resource.
pub const NOTE_URI_PREFIX: &str = "vault://note/";

/// Resolves `spec` to a vault-relative path, in this order:
/// 1. a `vault://note/` URI is percent-decoded to its path;
/// 2. the path itself, or with `.md` added, when `is_note` accepts it;
/// 3. among `files` (called at most once), the note whose path equals the spec or ends with
///    `/<spec>` (case-insensitive, `.md` optional): one match wins, several are ambiguous;
/// 4. the same comparison on loose names (each segment lowercased without spaces, `-` and `_`,
///    so `My-Note`, `my_note` and `My Note` agree): one match wins, several are ambiguous.
///
/// Errors name `arg`: empty, absolute or `..` specs and ambiguous names are
/// [`Error::InvalidArgument`]; no match is [`Error::NoteNotFound`] with up to five suggestions
/// (paths whose file name contains, is contained in, or is a few edits from the one asked for).
pub(crate) fn resolve_among(
    spec: &str,
    arg: &str,
    is_note: impl Fn(&str) -> bool,
    files: impl FnOnce() -> Result<Vec<String>>,
) -> Result<String> {
    let trimmed = spec.trim();
    let decoded;
    let s = match trimmed.strip_prefix(NOTE_URI_PREFIX) {
        Some(rest) => {
            decoded = percent_decode(rest);
            decoded.as_str()
        }
        None => trimmed,
    };
    let s = s.replace('\\', "/");
    let s = s.trim_start_matches("./");
    if s.is_empty() {
        return Err(Error::invalid(
            arg,
            "empty: give a vault-relative path or a note name",
        ));
    }
    if s.starts_with('/') || s.split('/').any(|seg| seg == "..") {
        return Err(Error::invalid(
            arg,
            format!("{s:?} must be a path inside the vault, relative to its root, without `..`"),
        ));
    }
    let with_md = if s.to_lowercase().ends_with(".md") {
        s.to_string()
    } else {
        format!("{s}.md")
    };
    for cand in [s, with_md.as_str()] {
        if is_note(cand) {
            return Ok(cand.to_string());
        }
    }
    let files = files()?;
    let want = with_md.to_lowercase();
    let suffix = format!("/{want}");
    let exact: Vec<&String> = files
        .iter()
        .filter(|f| {
            let l = f.to_lowercase();
            l == want || l.ends_with(&suffix)
        })
        .collect();
    if let Some(one) = single(spec, arg, &exact)? {
        return Ok(one);
    }
    let key = loose_segments(&want);
    if !key.iter().all(String::is_empty) {
        let loose: Vec<&String> = files
            .iter()
            .filter(|f| loose_segments(f).ends_with(&key))
            .collect();
        if let Some(one) = single(spec, arg, &loose)? {
            return Ok(one);
        }
    }
    Err(Error::NoteNotFound {
        path: s.to_string(),
        suggestions: suggestions(&want, &files),
    })
}

/// The one match, none, or an ambiguity error listing them.
fn single(spec: &str, arg: &str, matches: &[&String]) -> Result<Option<String>> {
    match matches {
        [] => Ok(None),
        [one] => Ok(Some((*one).clone())),
        many => Err(Error::invalid(
            arg,
            format!(
                "\"{}\" matches {} notes: {}. Pass the path to choose one.",
                spec.trim(),
                many.len(),
                many.iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// A path's segments as loose names: lowercased, without spaces, `-` and `_`, the last one
/// without `.md`.
fn loose_segments(path: &str) -> Vec<String> {
    let lower = path.to_lowercase();
    let lower = lower.strip_suffix(".md").unwrap_or(&lower);
    lower
        .split('/')
        .map(|seg| {
            seg.chars()
                .filter(|c| !matches!(c, ' ' | '_' | '-'))
                .collect()
        })
        .collect()
}

/// Up to five paths whose file name is close to the one asked for, closest first.
fn suggestions(want: &str, files: &[String]) -> Vec<String> {
    let want_stem = crate::note::file_stem(want).to_lowercase();
    if want_stem.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &str)> = files
        .iter()
        .filter_map(|f| {
            let stem = crate::note::file_stem(f).to_lowercase();
            let d = if stem.contains(&want_stem) || want_stem.contains(&stem) {
                0
            } else {
                edit_distance(&stem, &want_stem)
            };
            (d <= (want_stem.chars().count() / 3).max(2)).then_some((d, f.as_str()))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(5)
        .map(|(_, p)| p.to_string())
        .collect()
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `vault://note/<rel>` with each segment percent-encoded: the URI [`resolve_among`] reads back.
pub fn note_uri(rel: &str) -> String {
    let enc: Vec<String> = rel
        .split('/')
        .map(|seg| {
            let mut o = String::new();
            for b in seg.bytes() {
                if b.is_ascii_alphanumeric() || b"-._~()'!*,;@&=+$".contains(&b) {
                    o.push(b as char);
                } else {
                    o.push_str(&format!("%{b:02X}"));
                }
            }
            o
        })
        .collect();
    format!("{NOTE_URI_PREFIX}{}", enc.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Vec<String> {
        [
            "Home.md",
            "brain/Patterns.md",
            "work/active/My Note.md",
            "work/archive/My Note.md",
            "brain/Dup.md",
            "org/people/Ada Lovelace.md",
        ]
        .map(String::from)
        .to_vec()
    }

    fn resolve(spec: &str) -> Result<String> {
        let all = files();
        resolve_among(spec, "path", |c| all.iter().any(|f| f == c), || Ok(files()))
    }

    #[test]
    fn paths_names_suffixes_uris_and_loose_names_resolve_alike() {
        for (spec, want) in [
            ("Home", "Home.md"),
            ("home", "Home.md"),
            ("brain/Patterns.md", "brain/Patterns.md"),
            ("./brain/Patterns", "brain/Patterns.md"),
            ("Patterns", "brain/Patterns.md"),
            ("active/My Note", "work/active/My Note.md"),
            ("work/active/My-Note.md", "work/active/My Note.md"),
            (
                "vault://note/work/active/My%20Note.md",
                "work/active/My Note.md",
            ),
            (
                "vault://note/work/archive/My-Note.md",
                "work/archive/My Note.md",
            ),
            ("ada-lovelace", "org/people/Ada Lovelace.md"),
            ("brain\\Dup", "brain/Dup.md"),
        ] {
            assert_eq!(resolve(spec).unwrap(), want, "{spec}");
        }
        assert_eq!(
            resolve(&note_uri("work/active/My Note.md")).unwrap(),
            "work/active/My Note.md"
        );
    }

    #[test]
    fn ambiguous_missing_and_outside_names_are_errors_naming_the_argument() {
        let e = resolve("My Note").unwrap_err();
        assert!(
            matches!(&e, Error::InvalidArgument { name, detail } if name == "path"
                && detail.contains("matches 2 notes") && detail.contains("work/archive/My Note.md")),
            "{e}"
        );
        match resolve("Patern").unwrap_err() {
            Error::NoteNotFound { suggestions, .. } => {
                assert_eq!(suggestions, vec!["brain/Patterns.md"])
            }
            e => panic!("{e}"),
        }
        for bad in ["", "  ", "/etc/passwd", "../x", "brain/../../x"] {
            assert!(
                matches!(resolve(bad), Err(Error::InvalidArgument { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_note_left_out_of_the_list_never_matches_nor_makes_a_name_ambiguous() {
        let visible: Vec<String> = files()
            .into_iter()
            .filter(|f| !f.starts_with("work/archive"))
            .collect();
        let r = resolve_among(
            "My Note",
            "path",
            |c| visible.iter().any(|f| f == c),
            || Ok(visible.clone()),
        );
        assert_eq!(r.unwrap(), "work/active/My Note.md");
        let r = resolve_among("archive/My Note", "path", |_| false, || Ok(visible.clone()));
        assert!(matches!(r, Err(Error::NoteNotFound { .. })));
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
