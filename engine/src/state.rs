//! The index state file (`state.json` in the index folder): what was indexed, from which file
//! version, and what the last update did. Written atomically (temp file, fsync, rename) after the
//! tantivy commit, so a crash between the two only makes the next update redo some work.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::chunk::ChunkOptions;
use crate::error::{Error, Result};
use crate::report::{Changes, Warning};

/// Bumped whenever the index layout or what goes into it changes; a mismatch rebuilds.
pub(crate) const FORMAT_VERSION: u32 = 5;

/// What the index holds for one note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NoteState {
    /// xxh3-128 of the file bytes, hex.
    pub hash: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub chunks: u32,
    pub title: String,
    /// Frontmatter aliases (for link resolution).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// Wikilink and embed targets as written, unique case-insensitively, first seen first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// Problems found when the note was parsed (re-reported by every update until fixed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// A file that was looked at and skipped (binary, too large, unreadable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SkippedState {
    pub size: u64,
    pub mtime_ns: i64,
    pub warning: Warning,
}

/// Summary of the last update, for `status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastUpdate {
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_unix_ms: u64,
    /// How long it took.
    pub elapsed_ms: u64,
    /// What it changed.
    pub changes: Changes,
    /// Whether it rebuilt the whole index.
    pub rebuilt: bool,
    /// How many warnings it reported.
    pub warnings: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct IndexState {
    pub format: u32,
    pub chunking: ChunkOptions,
    pub max_note_bytes: u64,
    /// When the walk of the last update started (ns since epoch): files with an mtime at or after
    /// it may have changed again within the clock's resolution and are re-hashed next time.
    pub scanned_at_ns: i64,
    pub notes: BTreeMap<String, NoteState>,
    #[serde(default)]
    pub skipped: BTreeMap<String, SkippedState>,
    #[serde(default)]
    pub last_update: Option<LastUpdate>,
}

impl IndexState {
    pub fn new(chunking: ChunkOptions, max_note_bytes: u64) -> Self {
        IndexState {
            format: FORMAT_VERSION,
            chunking,
            max_note_bytes,
            scanned_at_ns: 0,
            notes: BTreeMap::new(),
            skipped: BTreeMap::new(),
            last_update: None,
        }
    }

    /// Loads the state; `Ok(None)` when there is none yet.
    pub fn load(path: &Path) -> Result<Option<Self>> {
        match fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| Error::Corrupt {
                    path: path.to_path_buf(),
                    detail: e.to_string(),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    /// Writes the state atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let bytes = serde_json::to_vec(self).map_err(|e| Error::invalid("state", e.to_string()))?;
        crate::atomic::write_replace(path, &bytes)
    }
}
