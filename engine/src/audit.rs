//! The audit log: one JSON line per agent-facing read or write, rotated at 5 MiB into
//! [`AUDIT_GENERATIONS`] older generations.
//!
//! Each line holds the caller's detail fields first and then `action`, `caller` and `at`, so a
//! detail can never forge who did what or when. Every logged string is capped at
//! [`AUDIT_FIELD_CHARS`] characters (and every list at [`AUDIT_LIST_ITEMS`] items), with a marker
//! naming the original length, so one request cannot write a huge line and flush the history.
//! Logging never fails the operation it records: every error is swallowed, and nothing is created
//! on disk before the first append.

#![allow(
    dead_code,
    reason = "wired into the vault by the memory work alongside"
)]

use crate::time::iso_utc_now;
use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Size at which the live log is rotated to `<name>.1` before the next append (5 MiB).
pub const AUDIT_ROTATE_BYTES: u64 = 5 * 1024 * 1024;
/// Rotated generations kept (`<name>.1` newest … `<name>.8` oldest): with capped fields, flushing
/// the history takes 40 MiB of log lines, tens of thousands of requests.
pub const AUDIT_GENERATIONS: usize = 8;
/// Characters kept of any logged string (a query, a URI, a pattern); longer strings are cut and
/// end with a marker naming their original length.
pub const AUDIT_FIELD_CHARS: usize = 512;
/// Items kept of any logged list; a marker item says how many more there were.
pub const AUDIT_LIST_ITEMS: usize = 32;

/// Keys the log writes itself; a detail with one of these names is dropped.
const RESERVED: [&str; 3] = ["action", "caller", "at"];

/// What an audit line records: every action an agent surface can take, one name each (the
/// `action` field of the line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AuditAction {
    /// A `search` (hybrid, or lexical without a model): `search`.
    Search,
    /// A `query` of typed sub-queries: `query`.
    Query,
    /// A note read with `get`: `get`.
    Get,
    /// Notes read with `multi_get`: `multi_get`.
    MultiGet,
    /// The resource list: `resources_list`.
    ResourcesList,
    /// A note read as a resource: `resource_read`.
    ResourceRead,
    /// A read that reached no visible note (missing or hidden alike): `resource_denied`.
    ResourceDenied,
    /// An `expand` of a note's neighbourhood: `expand`.
    Expand,
    /// The index status: `status`.
    Status,
    /// The session's health: `health`.
    Health,
    /// Memories recalled: `recall`.
    Recall,
    /// A memory recorded: `remember`.
    Remember,
    /// A work note recorded: `record_work`.
    RecordWork,
    /// A reasoning session: `reason`.
    Reason,
    /// A write refused, with why: `refused`.
    Refused,
    /// Notes read for a purpose other than a tool call (a hook's briefing): `read`.
    Read,
}

impl AuditAction {
    /// Every action.
    pub const ALL: &'static [AuditAction] = &[
        AuditAction::Search,
        AuditAction::Query,
        AuditAction::Get,
        AuditAction::MultiGet,
        AuditAction::ResourcesList,
        AuditAction::ResourceRead,
        AuditAction::ResourceDenied,
        AuditAction::Expand,
        AuditAction::Status,
        AuditAction::Health,
        AuditAction::Recall,
        AuditAction::Remember,
        AuditAction::RecordWork,
        AuditAction::Reason,
        AuditAction::Refused,
        AuditAction::Read,
    ];

    /// The name written in the log.
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::Search => "search",
            AuditAction::Query => "query",
            AuditAction::Get => "get",
            AuditAction::MultiGet => "multi_get",
            AuditAction::ResourcesList => "resources_list",
            AuditAction::ResourceRead => "resource_read",
            AuditAction::ResourceDenied => "resource_denied",
            AuditAction::Expand => "expand",
            AuditAction::Status => "status",
            AuditAction::Health => "health",
            AuditAction::Recall => "recall",
            AuditAction::Remember => "remember",
            AuditAction::RecordWork => "record_work",
            AuditAction::Reason => "reason",
            AuditAction::Refused => "refused",
            AuditAction::Read => "read",
        }
    }
}

/// An append-only JSON-lines audit log with [`AUDIT_GENERATIONS`] rotated generations.
#[derive(Debug, Clone)]
pub struct AuditLog {
    path: PathBuf,
    rotate_bytes: u64,
}

impl AuditLog {
    /// A log at `path` (by convention `<index_dir>/audit.jsonl`), rotated at [`AUDIT_ROTATE_BYTES`].
    ///
    /// Nothing is created until the first [`append`](Self::append).
    pub fn new(path: PathBuf) -> AuditLog {
        AuditLog::with_rotate_bytes(path, AUDIT_ROTATE_BYTES)
    }

    /// A log with a custom rotation size (for tests).
    pub fn with_rotate_bytes(path: PathBuf, bytes: u64) -> AuditLog {
        AuditLog {
            path,
            rotate_bytes: bytes,
        }
    }

    /// The live log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The newest rotated generation (`<name>.1`).
    pub fn rotated_path(&self) -> PathBuf {
        self.generation_path(1)
    }

    /// Rotated generation `n` (`<name>.<n>`, 1 the newest, [`AUDIT_GENERATIONS`] the oldest).
    pub fn generation_path(&self, n: usize) -> PathBuf {
        let mut name = self.path.as_os_str().to_os_string();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    }

    /// Appends one line: the fields of `details` (an object; any other value is recorded under
    /// `"detail"`, and `null` adds nothing), then `action`, `caller` (`"unknown"` when `None`)
    /// and `at` (ISO-8601 UTC). Strings and lists are capped (see [`cap_value`]).
    ///
    /// The line goes out in one `write_all` on a file opened for appending, so lines from
    /// concurrent processes do not interleave. The parent folder is created when missing. Any
    /// error is swallowed.
    pub fn append(&self, action: AuditAction, caller: Option<&str>, details: Value) {
        let line = render_line(action.as_str(), caller, details, &iso_utc_now());
        let _ = self.write_line(line.as_bytes());
    }

    fn write_line(&self, line: &[u8]) -> std::io::Result<()> {
        if let Ok(meta) = fs::metadata(&self.path)
            && meta.is_file()
            && meta.len() >= self.rotate_bytes
        {
            // Shift every generation one up (the oldest falls off), then the live log becomes
            // `.1`. Another process may have rotated first; the append below still lands.
            for n in (1..AUDIT_GENERATIONS).rev() {
                let _ = fs::rename(self.generation_path(n), self.generation_path(n + 1));
            }
            let _ = fs::rename(&self.path, self.rotated_path());
        }
        let open = || {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
        };
        let mut file = match open() {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                if let Some(parent) = self.path.parent()
                    && !parent.as_os_str().is_empty()
                {
                    fs::create_dir_all(parent)?;
                }
                open()?
            }
            Err(e) => return Err(e),
        };
        file.write_all(line)
    }
}

/// One log line, newline included; the reserved keys are written last, after the details.
fn render_line(action: &str, caller: Option<&str>, details: Value, at: &str) -> String {
    let fields = match details {
        Value::Object(map) => map.into_iter().collect::<Vec<_>>(),
        Value::Null => Vec::new(),
        other => vec![("detail".to_string(), other)],
    };
    let mut out = String::from("{");
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
    for (key, value) in fields {
        if RESERVED.contains(&key.as_str()) {
            continue;
        }
        let Ok(value) = serde_json::to_string(&cap_value(value)) else {
            continue;
        };
        out.push_str(&quote(&cap_str(&key)));
        out.push(':');
        out.push_str(&value);
        out.push(',');
    }
    let caller = cap_str(caller.unwrap_or("unknown"));
    out.push_str(&format!(
        "\"action\":{},\"caller\":{},\"at\":{}}}\n",
        quote(&cap_str(action)),
        quote(&caller),
        quote(at)
    ));
    out
}

/// `s` cut to [`AUDIT_FIELD_CHARS`] characters; a cut string ends with
/// `…[truncated: N chars]`, N being its original length in characters.
pub fn cap_str(s: &str) -> String {
    match s.char_indices().nth(AUDIT_FIELD_CHARS) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…[truncated: {} chars]", &s[..cut], s.chars().count()),
    }
}

/// A value with every string capped by [`cap_str`] (object keys too) and every list cut to
/// [`AUDIT_LIST_ITEMS`] items plus a `"…[N more items]"` marker, at any depth.
pub fn cap_value(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(cap_str(&s)),
        Value::Array(items) => {
            let n = items.len();
            let mut out: Vec<Value> = items
                .into_iter()
                .take(AUDIT_LIST_ITEMS)
                .map(cap_value)
                .collect();
            if n > AUDIT_LIST_ITEMS {
                out.push(Value::String(format!(
                    "…[{} more items]",
                    n - AUDIT_LIST_ITEMS
                )));
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            let n = map.len();
            let mut out: serde_json::Map<String, Value> = map
                .into_iter()
                .take(AUDIT_LIST_ITEMS)
                .map(|(k, v)| (cap_str(&k), cap_value(v)))
                .collect();
            if n > AUDIT_LIST_ITEMS {
                out.insert(
                    "…".to_string(),
                    Value::String(format!("[{} more keys]", n - AUDIT_LIST_ITEMS)),
                );
            }
            Value::Object(out)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::iso_utc;
    use serde_json::json;

    fn lines(path: &Path) -> Vec<Value> {
        fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn iso_utc_formats_milliseconds_and_z() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_utc(1_785_067_331_000), "2026-07-26T12:02:11.000Z");
        assert_eq!(iso_utc(951_782_399_999), "2000-02-28T23:59:59.999Z");
        assert_eq!(iso_utc(951_868_800_007), "2000-03-01T00:00:00.007Z");
        assert_eq!(iso_utc(-1), "1969-12-31T23:59:59.999Z");
        let now = iso_utc_now();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
        assert!(now.as_str() > "2024-01-01", "{now}");
    }

    #[test]
    fn one_line_per_action_with_action_caller_and_at() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path().join(".mindex/audit.jsonl"));
        log.append(
            AuditAction::Search,
            Some("atlas"),
            json!({"query": "deploy", "hits": 3}),
        );
        log.append(AuditAction::Expand, None, json!({"path": "brain/x.md"}));
        let got = lines(log.path());
        assert_eq!(got.len(), 2);
        assert_eq!(got[0]["action"], "search");
        assert_eq!(got[0]["caller"], "atlas");
        assert_eq!(got[0]["query"], "deploy");
        assert_eq!(got[0]["hits"], 3);
        assert_eq!(got[1]["action"], "expand");
        assert_eq!(got[1]["caller"], "unknown");
        let at = got[1]["at"].as_str().unwrap();
        assert!(at.len() == 24 && at.ends_with('Z'), "{at}");
    }

    #[test]
    fn details_cannot_forge_reserved_keys_and_come_first() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path().join("audit.jsonl"));
        log.append(
            AuditAction::Remember,
            None,
            json!({"action": "forged", "caller": "admin", "at": "1999", "zeta": 1}),
        );
        let text = fs::read_to_string(log.path()).unwrap();
        assert_eq!(text.lines().count(), 1);
        assert!(!text.contains("forged") && !text.contains("admin") && !text.contains("1999"));
        let v: Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["action"], "remember");
        assert_eq!(v["caller"], "unknown");
        // Detail keys precede the reserved ones on the line.
        let zeta = text.find("\"zeta\"").unwrap();
        assert!(zeta < text.find("\"action\"").unwrap());
        assert!(text.find("\"action\"").unwrap() < text.find("\"caller\"").unwrap());
        assert!(text.find("\"caller\"").unwrap() < text.find("\"at\"").unwrap());
    }

    #[test]
    fn non_object_details_go_under_detail() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path().join("audit.jsonl"));
        log.append(
            AuditAction::Reason,
            Some("p"),
            json!("a note\nwith a newline"),
        );
        log.append(AuditAction::Reason, Some("p"), json!([1, 2]));
        log.append(AuditAction::Reason, Some("p"), Value::Null);
        let got = lines(log.path());
        assert_eq!(got.len(), 3);
        assert_eq!(got[0]["detail"], "a note\nwith a newline");
        assert_eq!(got[1]["detail"], json!([1, 2]));
        assert_eq!(got[2].as_object().unwrap().len(), 3);
    }

    #[test]
    fn nothing_is_created_before_the_first_append() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join(".mindex");
        let log = AuditLog::new(index.join("audit.jsonl"));
        assert_eq!(log.path(), index.join("audit.jsonl"));
        assert!(!index.exists());
        log.append(AuditAction::Search, None, json!({}));
        assert!(log.path().is_file());
        assert!(!log.rotated_path().exists());
    }

    #[test]
    fn an_unwritable_path_never_panics() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        fs::write(&file, "x").unwrap();
        // The parent is a file: neither mkdir -p nor open can succeed, even as root.
        let log = AuditLog::new(file.join("sub/audit.jsonl"));
        log.append(AuditAction::Search, Some("p"), json!({"q": 1}));
        assert_eq!(fs::read_to_string(&file).unwrap(), "x");
        // The log path is itself a folder.
        let folder = dir.path().join("folder.jsonl");
        fs::create_dir(&folder).unwrap();
        AuditLog::with_rotate_bytes(folder.clone(), 1).append(AuditAction::Search, None, json!({}));
        assert!(folder.is_dir());
    }

    #[test]
    fn rotation_keeps_eight_generations_in_order_and_the_newest_entry() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::with_rotate_bytes(dir.path().join("audit.jsonl"), 400);
        for i in 0..200 {
            log.append(
                AuditAction::Search,
                Some("p"),
                json!({"i": i, "pad": "x".repeat(40)}),
            );
            let live = fs::metadata(log.path()).unwrap().len();
            // At most one line past the cap.
            assert!(live < 400 + 200, "live log grew to {live}");
        }
        let live = lines(log.path());
        assert_eq!(live.last().unwrap()["i"], 199);
        // Generations .1 (newest) to .8 (oldest), each ending right before the next newer starts.
        let mut newer_first = live[0]["i"].as_i64().unwrap();
        for n in 1..=AUDIT_GENERATIONS {
            let g = lines(&log.generation_path(n));
            assert!(!g.is_empty(), "generation {n}");
            assert_eq!(
                g.last().unwrap()["i"].as_i64().unwrap() + 1,
                newer_first,
                "generation {n}"
            );
            newer_first = g[0]["i"].as_i64().unwrap();
        }
        assert!(!log.generation_path(AUDIT_GENERATIONS + 1).exists());
        assert!(!dir.path().join("audit.jsonl.1.1").exists());
    }

    #[test]
    fn huge_fields_are_capped_and_cannot_flush_the_history() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path().join("audit.jsonl"));
        log.append(
            AuditAction::Search,
            Some("p"),
            json!({"query": "first entry"}),
        );
        // Two reads with a 6 MB URI once erased every earlier entry.
        let uri = format!("vault://note/{}", "a".repeat(6_000_000));
        for _ in 0..2 {
            log.append(AuditAction::ResourceDenied, Some("p"), json!({"uri": uri}));
        }
        let got = lines(log.path());
        assert_eq!(got.len(), 3, "no rotation: the lines are small");
        assert_eq!(got[0]["query"], "first entry");
        let logged = got[1]["uri"].as_str().unwrap();
        assert!(
            logged.ends_with(&format!("…[truncated: {} chars]", uri.len())),
            "{}",
            &logged[logged.len() - 40..]
        );
        assert_eq!(
            logged.chars().count(),
            AUDIT_FIELD_CHARS + "…[truncated: 6000013 chars]".chars().count()
        );
        assert!(fs::metadata(log.path()).unwrap().len() < 4_000);
        // Nested strings, keys, long lists and the caller are capped too.
        let long = "q".repeat(2_000);
        let mut details = json!({"nested": {"deep": [long.clone()]},
                                 "list": (0..100).collect::<Vec<_>>()});
        details[long.as_str()] = json!(1);
        log.write_line(render_line(&long, Some(&long), details, &iso_utc_now()).as_bytes())
            .unwrap();
        let last = lines(log.path()).pop().unwrap();
        let text = last.to_string();
        assert!(text.len() < 4 * 1024, "{} bytes", text.len());
        assert!(
            last["nested"]["deep"][0]
                .as_str()
                .unwrap()
                .contains("[truncated: 2000 chars]")
        );
        assert!(
            last["caller"]
                .as_str()
                .unwrap()
                .contains("[truncated: 2000 chars]")
        );
        assert!(
            last["action"]
                .as_str()
                .unwrap()
                .contains("[truncated: 2000 chars]")
        );
        let list = last["list"].as_array().unwrap();
        assert_eq!(list.len(), AUDIT_LIST_ITEMS + 1);
        assert_eq!(list[AUDIT_LIST_ITEMS], "…[68 more items]");
        // Short values are untouched.
        assert_eq!(cap_str("deploy"), "deploy");
        assert_eq!(
            cap_str(&"é".repeat(AUDIT_FIELD_CHARS)),
            "é".repeat(AUDIT_FIELD_CHARS)
        );
    }

    #[test]
    fn every_action_has_one_snake_case_name() {
        let names: std::collections::HashSet<&str> =
            AuditAction::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(names.len(), AuditAction::ALL.len());
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        );
    }

    #[test]
    fn concurrent_appends_never_interleave() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        std::thread::scope(|s| {
            for t in 0..8 {
                let path = path.clone();
                s.spawn(move || {
                    let log = AuditLog::new(path);
                    for i in 0..50 {
                        log.append(
                            AuditAction::Search,
                            Some("p"),
                            json!({"t": t, "i": i, "pad": "y".repeat(300)}),
                        );
                    }
                });
            }
        });
        assert_eq!(lines(&path).len(), 400);
    }
}
