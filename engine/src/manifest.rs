//! `vault-manifest.json`: the fields the engine reads, parsed tolerantly.
//!
//! A missing file, a file that is not JSON and JSON that is not an object all read as an empty
//! manifest, so every field falls back to its default. Nothing here ever fails.

#![allow(
    dead_code,
    reason = "wired into the vault by the memory work alongside"
)]

use std::fs;
use std::path::Path;

use serde_json::{Map, Value};

/// The manifest's file name at the vault root.
pub const MANIFEST_FILE_NAME: &str = "vault-manifest.json";

/// The memory root used when the manifest declares none, or declares an unsafe one.
pub const DEFAULT_MEMORY_ROOT: &str = "memories";

/// The inbox folder used when the manifest's `mcp_inbox` is absent or unsafe.
const DEFAULT_INBOX: &str = "inbox";

/// The parsed top-level object of `vault-manifest.json` (empty when the file is missing or unusable).
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    fields: Map<String, Value>,
    /// The `infrastructure` entries, trimmed and non-empty: read once, matched per file.
    infrastructure: Vec<String>,
}

impl Manifest {
    /// Reads `<vault_root>/vault-manifest.json`. Never fails: problems give an empty manifest.
    pub fn load(vault_root: &Path) -> Manifest {
        let Ok(text) = fs::read_to_string(vault_root.join(MANIFEST_FILE_NAME)) else {
            return Manifest::default();
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        match serde_json::from_str::<Value>(text) {
            Ok(v) => Manifest::from_json(v),
            Err(_) => Manifest::default(),
        }
    }

    /// Builds a manifest from parsed JSON; anything but an object gives an empty manifest.
    pub fn from_json(v: Value) -> Manifest {
        match v {
            Value::Object(fields) => {
                let mut m = Manifest {
                    fields,
                    infrastructure: Vec::new(),
                };
                m.infrastructure = m
                    .strings("infrastructure")
                    .iter()
                    .map(|e| e.trim().to_string())
                    .filter(|e| !e.is_empty())
                    .collect();
                m
            }
            _ => Manifest::default(),
        }
    }

    /// The raw value of a top-level field.
    pub fn value(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// The string entries of an array field, in order; non-string entries are skipped.
    ///
    /// A field holding a single string counts as a one-entry list. Entries are returned as
    /// written (not trimmed); a missing field or any other type gives an empty list.
    pub fn strings(&self, key: &str) -> Vec<String> {
        match self.fields.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            Some(Value::String(s)) => vec![s.clone()],
            _ => Vec::new(),
        }
    }

    /// A string field, trimmed; `None` when it is missing, not a string, or blank.
    pub fn string(&self, key: &str) -> Option<String> {
        let s = self.fields.get(key)?.as_str()?.trim();
        (!s.is_empty()).then(|| s.to_string())
    }

    /// The declared memory root made safe by [`safe_memory_root`].
    pub fn memory_root(&self) -> String {
        safe_memory_root(self.fields.get("memory_root").and_then(Value::as_str))
    }

    /// Whether the vault-relative path `rel` is infrastructure by the manifest's
    /// `infrastructure` list (the vault's machinery, not its notes: never listed, counted as an
    /// orphan or flagged by hygiene). An entry without `/` names root-level files (`*` globs:
    /// `README.*.md`); `dir/**` is everything below `dir`; any other entry is a path whose
    /// segments may hold `*` globs.
    pub fn is_infrastructure(&self, rel: &str) -> bool {
        self.infrastructure
            .iter()
            .any(|e| infrastructure_matches(e, rel))
    }

    /// The `mcp_inbox` folder when it is one safe segment, else `"inbox"`.
    pub fn inbox(&self) -> String {
        match self.string("mcp_inbox") {
            Some(s) if is_safe_segment(&s) => s,
            _ => DEFAULT_INBOX.to_string(),
        }
    }
}

/// Whether one `infrastructure` entry covers `rel` (see [`Manifest::is_infrastructure`]).
fn infrastructure_matches(entry: &str, rel: &str) -> bool {
    if let Some(dir) = entry.strip_suffix("/**") {
        return rel
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'));
    }
    let (want, have): (Vec<&str>, Vec<&str>) =
        (entry.split('/').collect(), rel.split('/').collect());
    want.len() == have.len() && want.iter().zip(&have).all(|(w, h)| glob(w, h))
}

/// `*`-only glob matching of one path segment (case-sensitive).
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// The memory root a manifest may declare: one trimmed path segment of ASCII letters, digits,
/// `_`, `.` and `-`, other than `.` and `..`. Anything else (paths, drive letters, shell
/// metacharacters, blanks, a missing value) gives [`DEFAULT_MEMORY_ROOT`].
pub fn safe_memory_root(declared: Option<&str>) -> String {
    match declared.map(str::trim) {
        Some(s) if is_safe_segment(s) => s.to_string(),
        _ => DEFAULT_MEMORY_ROOT.to_string(),
    }
}

/// `^[\w.-]+$` with ASCII `\w`, and not `.` or `..`.
fn is_safe_segment(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("README.*.md", "README.ja.md"));
        assert!(!glob("README.*.md", "README.md"));
        assert!(glob("*", "x") && glob("a*c*e", "abcde"));
    }

    #[test]
    fn infrastructure_entries_cover_root_names_folders_and_paths() {
        let m = Manifest::from_json(serde_json::json!({"infrastructure": [
            "CLAUDE.md", "README.*.md", "templates/**", ".claude/**", "brain/Skills.md",
            "bases/*.base", " ", ""
        ]}));
        for yes in [
            "CLAUDE.md",
            "README.de.md",
            "templates/Decision.md",
            "templates/deep/x.md",
            ".claude/settings.json",
            "brain/Skills.md",
            "bases/Tasks.base",
        ] {
            assert!(m.is_infrastructure(yes), "{yes}");
        }
        for no in [
            "work/CLAUDE.md",
            "README.md",
            "templates",
            "templatesX/a.md",
            "brain/Skills2.md",
            "bases/deep/Tasks.base",
            "claude.md",
        ] {
            assert!(!m.is_infrastructure(no), "{no}");
        }
        assert!(!Manifest::from_json(serde_json::json!({})).is_infrastructure("CLAUDE.md"));
    }
    use serde_json::json;

    #[test]
    fn load_is_empty_when_missing_broken_or_not_an_object() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::load(dir.path());
        assert!(m.strings("user_content_roots").is_empty());
        assert_eq!(m.memory_root(), "memories");

        fs::write(dir.path().join(MANIFEST_FILE_NAME), "{ not json").unwrap();
        assert!(Manifest::load(dir.path()).value("x").is_none());

        fs::write(
            dir.path().join(MANIFEST_FILE_NAME),
            r#"["memory_root", "x"]"#,
        )
        .unwrap();
        let m = Manifest::load(dir.path());
        assert!(m.fields.is_empty());
        assert_eq!(m.memory_root(), "memories");

        fs::write(dir.path().join(MANIFEST_FILE_NAME), "null").unwrap();
        assert!(Manifest::load(dir.path()).fields.is_empty());
    }

    #[test]
    fn load_reads_fields_and_tolerates_a_bom() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(MANIFEST_FILE_NAME),
            "\u{feff}{\"memory_root\": \"recall\", \"mcp_exposed_roots\": [\"brain\", 3, \"work/active/\"]}",
        )
        .unwrap();
        let m = Manifest::load(dir.path());
        assert_eq!(m.memory_root(), "recall");
        assert_eq!(m.strings("mcp_exposed_roots"), ["brain", "work/active/"]);
    }

    #[test]
    fn strings_skip_non_strings_and_accept_a_lone_string() {
        let m = Manifest::from_json(json!({
            "list": ["a", null, 1, {"b": 2}, " c ", ["d"]],
            "lone": "only",
            "num": 5,
            "obj": {"a": "b"},
        }));
        assert_eq!(m.strings("list"), ["a", " c "]);
        assert_eq!(m.strings("lone"), ["only"]);
        assert!(m.strings("num").is_empty());
        assert!(m.strings("obj").is_empty());
        assert!(m.strings("missing").is_empty());
    }

    #[test]
    fn string_is_trimmed_and_blank_is_none() {
        let m = Manifest::from_json(json!({
            "qmd_index": "  vault-x ",
            "blank": "   ",
            "empty": "",
            "num": 1,
        }));
        assert_eq!(m.string("qmd_index").as_deref(), Some("vault-x"));
        assert_eq!(m.string("blank"), None);
        assert_eq!(m.string("empty"), None);
        assert_eq!(m.string("num"), None);
        assert_eq!(m.string("missing"), None);
    }

    #[test]
    fn safe_memory_root_accepts_only_one_safe_segment() {
        assert_eq!(safe_memory_root(Some("memories")), "memories");
        assert_eq!(safe_memory_root(Some("  recall  ")), "recall");
        assert_eq!(safe_memory_root(Some("my.mem-2_x")), "my.mem-2_x");
        for bad in [
            "../x",
            "a/b",
            "a\\b",
            "/abs",
            "C:\\Windows",
            "",
            "   ",
            "mem;rm -rf",
            ".",
            "..",
            " .. ",
            "with space",
            "日本",
        ] {
            assert_eq!(safe_memory_root(Some(bad)), "memories", "{bad:?}");
        }
        assert_eq!(safe_memory_root(None), "memories");
    }

    #[test]
    fn memory_root_of_a_non_string_falls_back() {
        for v in [json!(5), json!(["recall"]), json!(null), json!({"a": 1})] {
            let m = Manifest::from_json(json!({ "memory_root": v }));
            assert_eq!(m.memory_root(), "memories");
        }
        let m = Manifest::from_json(json!({"memory_root": "../escape"}));
        assert_eq!(m.memory_root(), "memories");
    }

    #[test]
    fn inbox_defaults_unless_safe() {
        let inbox = |v: Value| Manifest::from_json(json!({ "mcp_inbox": v })).inbox();
        assert_eq!(inbox(json!("drop")), "drop");
        assert_eq!(inbox(json!(" drop.box ")), "drop.box");
        assert_eq!(inbox(json!("a/b")), "inbox");
        assert_eq!(inbox(json!("..")), "inbox");
        assert_eq!(inbox(json!(".")), "inbox");
        assert_eq!(inbox(json!("")), "inbox");
        assert_eq!(inbox(json!(7)), "inbox");
        assert_eq!(Manifest::default().inbox(), "inbox");
    }
}
