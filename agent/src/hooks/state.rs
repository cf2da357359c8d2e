//! Per-session hook state: `{"<session_id>": {"seen": [..sorted..], "updated": "<iso>"}}`.
//!
//! Used for the once-per-session dedupe of prompt hints and Stop reports. Self-pruning: entries
//! older than [`MAX_AGE`] or with an unparseable stamp are dropped, and at most [`MAX_SESSIONS`] of
//! the most recently updated are kept. Every read problem gives an empty state (fail open: show),
//! and write problems are reported to the caller, which decides.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

/// Entries older than this are dropped.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(7 * 86_400);
/// At most this many sessions are kept.
pub(crate) const MAX_SESSIONS: usize = 200;

/// One session's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) seen: BTreeSet<String>,
    pub(crate) updated_ms: i64,
}

/// The state of every session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionState {
    pub(crate) sessions: BTreeMap<String, Entry>,
}

impl SessionState {
    /// Parses the state file's text; malformed text gives an empty state, malformed entries and
    /// non-string `seen` members are dropped.
    pub(crate) fn parse(text: &str) -> SessionState {
        let mut out = SessionState::default();
        let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) else {
            return out;
        };
        for (id, v) in map {
            let Some(obj) = v.as_object() else { continue };
            let Some(updated_ms) = obj
                .get("updated")
                .and_then(Value::as_str)
                .and_then(mindex::time::parse_iso_utc)
            else {
                continue;
            };
            let seen = match obj.get("seen") {
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect(),
                _ => continue,
            };
            out.sessions.insert(id, Entry { seen, updated_ms });
        }
        out
    }

    /// Reads the state at `path`; any problem gives an empty state.
    pub(crate) fn load(path: &Path) -> SessionState {
        fs::read_to_string(path)
            .map(|t| SessionState::parse(&t))
            .unwrap_or_default()
    }

    /// What `session` has already seen.
    pub(crate) fn seen(&self, session: &str) -> Option<&BTreeSet<String>> {
        self.sessions.get(session).map(|e| &e.seen)
    }

    /// A new state with `values` merged into `session`'s seen set and its stamp set to `now`
    /// (`self` is left as it was).
    pub(crate) fn record<I: IntoIterator<Item = String>>(
        &self,
        session: &str,
        values: I,
        now: SystemTime,
    ) -> SessionState {
        let mut seen = self.seen(session).cloned().unwrap_or_default();
        seen.extend(values);
        self.replace(session, seen, now)
    }

    /// A new state with `session`'s seen set replaced by `values`.
    pub(crate) fn replace<I: IntoIterator<Item = String>>(
        &self,
        session: &str,
        values: I,
        now: SystemTime,
    ) -> SessionState {
        let mut next = self.clone();
        next.sessions.insert(
            session.to_string(),
            Entry {
                seen: values.into_iter().collect(),
                updated_ms: unix_ms(now),
            },
        );
        next
    }

    /// Drops entries older than [`MAX_AGE`] and keeps the [`MAX_SESSIONS`] newest.
    pub(crate) fn prune(&self, now: SystemTime) -> SessionState {
        let cutoff = unix_ms(now) - MAX_AGE.as_millis() as i64;
        let mut live: Vec<(&String, &Entry)> = self
            .sessions
            .iter()
            .filter(|(_, e)| e.updated_ms >= cutoff)
            .collect();
        live.sort_by(|a, b| b.1.updated_ms.cmp(&a.1.updated_ms).then(a.0.cmp(b.0)));
        live.truncate(MAX_SESSIONS);
        SessionState {
            sessions: live
                .into_iter()
                .map(|(k, e)| (k.clone(), e.clone()))
                .collect(),
        }
    }

    /// The JSON text of the state.
    pub(crate) fn to_json(&self) -> String {
        let mut map = Map::new();
        for (id, e) in &self.sessions {
            map.insert(
                id.clone(),
                json!({"seen": e.seen, "updated": mindex::time::iso_utc(e.updated_ms)}),
            );
        }
        Value::Object(map).to_string()
    }

    /// Prunes and writes the state to `path` through a temp file and a rename.
    pub(crate) fn save(&self, path: &Path, now: SystemTime) -> std::io::Result<()> {
        write_replace(path, self.prune(now).to_json().as_bytes())
    }
}

/// Writes `bytes` to `path` through a temp file in the same folder and a rename, so readers see
/// the old or the new file. Not fsynced: hook state is a convenience, not data.
/// [`mindex::atomic::write_replace`], as the hooks' I/O result.
pub(crate) fn write_replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    mindex::atomic::write_replace(path, bytes).map_err(std::io::Error::other)
}

pub(crate) fn unix_ms(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: i64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(ms as u64)
    }

    #[test]
    fn malformed_state_is_empty_and_bad_entries_are_dropped() {
        for bad in ["", "{", "[]", "null", "42"] {
            assert_eq!(SessionState::parse(bad), SessionState::default());
        }
        let s = SessionState::parse(
            r#"{"a":{"seen":["x",3,"y"],"updated":"2026-12-01T00:00:00.000Z"},
                "b":{"seen":["x"],"updated":"not a date"},
                "c":{"seen":"x","updated":"2026-12-01T00:00:00.000Z"},
                "d":7}"#,
        );
        assert_eq!(s.sessions.len(), 1);
        assert_eq!(
            s.seen("a").unwrap().iter().collect::<Vec<_>>(),
            vec!["x", "y"]
        );
    }

    #[test]
    fn record_merges_sorted_without_mutating_and_prune_bounds() {
        let now = at(1_796_293_230_000);
        let s = SessionState::default().record("s", ["b".into(), "a".into()], now);
        let t = s.record("s", ["c".into(), "a".into()], now);
        assert_eq!(s.seen("s").unwrap().len(), 2, "input left alone");
        assert_eq!(
            t.seen("s").unwrap().iter().cloned().collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        let json = t.to_json();
        assert!(json.contains(r#""seen":["a","b","c"]"#), "{json}");
        assert_eq!(SessionState::parse(&json), t);

        let mut many = SessionState::default();
        for i in 0..250 {
            many = many.record(&format!("s{i:03}"), ["x".into()], at(1_796_293_230_000 + i));
        }
        let old = many.record("old", ["x".into()], at(1_796_293_230_000 - 8 * 86_400_000));
        let pruned = old.prune(now);
        assert_eq!(pruned.sessions.len(), MAX_SESSIONS);
        assert!(pruned.seen("old").is_none() && pruned.seen("s249").is_some());
        assert!(pruned.seen("s000").is_none(), "the oldest go first");
    }
}
