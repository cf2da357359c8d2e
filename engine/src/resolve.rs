//! The one name resolver: what a person or an agent typed (`work/Note.md`, `work/Note`, `Note`,
//! a path suffix, `vault://note/work/My-Note.md`, `my note`) to one vault-relative path, chosen
//! among the notes the asker may see, with close names suggested when nothing matches.
//!
//! Every surface resolves through `resolve_among`: the owner's view ([`crate::Vault::resolve`])
//! over the walked vault, the agent's view ([`crate::Scoped::resolve`]) over the notes the
//! exposure policy serves. So `get`, `multi_get`, `expand` and resources read the same name the
//! same way, and a note the asker may not see never matches, never makes a name ambiguous and is
//! never suggested.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::identity::percent_decode;

/// What a wikilink target names among a set of notes ([`LinkResolver::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkTarget {
    /// An attachment (a target with a short extension other than `.md`): not a note.
    Attachment,
    /// The notes it names, by their index in the set, ascending (none: a broken link).
    Notes(Vec<usize>),
}

/// The one rule wikilink targets follow, for every caller (the link graph, `expand`): a target
/// with a `/` names the notes whose path, without case and `.md`, equals it or ends with
/// `/<target>`; a bare name names the notes whose file name (without `.md`) or one of whose
/// aliases equals it, without case. `\` is read as `/`, `.md` is optional.
#[derive(Debug, Clone)]
pub(crate) struct LinkResolver {
    by_name: HashMap<String, Vec<usize>>,
    /// Each note's path, lowercased, without `.md`.
    paths: Vec<String>,
}

impl LinkResolver {
    /// A resolver over `notes`: each note's vault-relative path and its aliases, in the order
    /// the indices of [`LinkTarget::Notes`] refer to.
    pub(crate) fn new<'a>(notes: impl IntoIterator<Item = (&'a str, &'a [String])>) -> Self {
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut paths = Vec::new();
        for (i, (rel, aliases)) in notes.into_iter().enumerate() {
            let mut names = vec![crate::note::file_stem(rel).to_lowercase()];
            names.extend(aliases.iter().map(|a| a.trim().to_lowercase()));
            names.sort();
            names.dedup();
            for n in names.into_iter().filter(|n| !n.is_empty()) {
                by_name.entry(n).or_default().push(i);
            }
            let lower = rel.to_lowercase();
            paths.push(lower.strip_suffix(".md").unwrap_or(&lower).to_string());
        }
        LinkResolver { by_name, paths }
    }

    /// What `target` (a wikilink's target as written, without `#heading` or `|label`) names.
    pub(crate) fn resolve(&self, target: &str) -> LinkTarget {
        let lower = target.trim().replace('\\', "/").to_lowercase();
        let has_ext = std::path::Path::new(&lower)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e != "md" && e.len() <= 5 && !e.contains(' '));
        if has_ext {
            return LinkTarget::Attachment;
        }
        let want = lower.strip_suffix(".md").unwrap_or(&lower);
        let found = if want.contains('/') {
            let suffix = format!("/{want}");
            self.paths
                .iter()
                .enumerate()
                .filter(|(_, p)| *p == want || p.ends_with(&suffix))
                .map(|(i, _)| i)
                .collect()
        } else {
            self.by_name.get(want).cloned().unwrap_or_default()
        };
        LinkTarget::Notes(found)
    }

    /// The first note `target` names (`None` for an attachment or a broken link).
    pub(crate) fn first(&self, target: &str) -> Option<usize> {
        match self.resolve(target) {
            LinkTarget::Notes(found) => found.first().copied(),
            LinkTarget::Attachment => None,
        }
    }
}

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

/// `vault://note/<rel>` with each segment percent-encoded: the URI `resolve_among` reads back.
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

    #[test]
    fn wikilinks_resolve_by_name_alias_or_path_suffix_one_rule() {
        let notes: Vec<(String, Vec<String>)> = vec![
            ("work/Payments Migration.md".into(), vec!["PM".into()]),
            ("brain/Gotchas.md".into(), Vec::new()),
            ("archive/brain/Gotchas.md".into(), Vec::new()),
        ];
        let r = LinkResolver::new(notes.iter().map(|(p, a)| (p.as_str(), &a[..])));
        assert_eq!(r.resolve("payments migration"), LinkTarget::Notes(vec![0]));
        assert_eq!(r.resolve("pm"), LinkTarget::Notes(vec![0]), "aliases count");
        assert_eq!(r.resolve("Gotchas.md"), LinkTarget::Notes(vec![1, 2]));
        assert_eq!(r.first("Gotchas"), Some(1));
        assert_eq!(
            r.resolve("archive\\brain/gotchas"),
            LinkTarget::Notes(vec![2])
        );
        assert_eq!(r.resolve("brain/Gotchas"), LinkTarget::Notes(vec![1, 2]));
        assert_eq!(r.resolve("rain/Gotchas"), LinkTarget::Notes(vec![]));
        assert_eq!(r.resolve("diagram.png"), LinkTarget::Attachment);
        assert_eq!(r.first("diagram.png"), None);
        assert_eq!(r.resolve("Missing"), LinkTarget::Notes(vec![]));
    }

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
