//! Reading one note file for the index: size limit, binary and UTF-8 checks, hashing, parsing
//! and chunking, and its state record.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::chunk::{Chunk, ChunkOptions, chunk_note};
use crate::note::{Note, parse_note};
use crate::report::{Warning, WarningKind};
use crate::state::NoteState;
use crate::walk::NoteFile;

/// Files modified this close before the last scan are re-hashed on the next update.
pub(in crate::vault) const RACY_MARGIN_NS: i64 = 100_000_000;

pub(in crate::vault) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64)
}

/// The unique (case-insensitive, first seen) link targets of a note.
pub(crate) fn link_targets(note: &Note) -> Vec<String> {
    let mut seen = HashSet::new();
    note.links
        .iter()
        .map(|l| l.target.trim())
        .filter(|t| !t.is_empty() && seen.insert(t.to_lowercase()))
        .map(str::to_string)
        .collect()
}

/// What the state records for a freshly indexed note.
pub(in crate::vault) fn note_state(
    hash: String,
    f: &NoteFile,
    chunks: usize,
    note: &Note,
    warnings: Vec<Warning>,
) -> NoteState {
    NoteState {
        hash,
        size: f.size,
        mtime_ns: f.mtime_ns,
        chunks: chunks as u32,
        title: note.title.clone(),
        aliases: note.aliases.clone(),
        links: link_targets(note),
        warnings,
    }
}

/// What reading one file produced.
pub(in crate::vault) enum Loaded {
    Note {
        hash: String,
        note: Box<Note>,
        chunks: Vec<Chunk>,
        warnings: Vec<Warning>,
    },
    Same {
        hash: String,
    },
    Skipped(Warning),
}

pub(in crate::vault) struct Decoded {
    pub(in crate::vault) text: String,
    pub(in crate::vault) hash: String,
    pub(in crate::vault) warning: Option<Warning>,
}

impl Decoded {
    /// The decoding warning (if any) followed by the parser's, as warnings about `rel`.
    pub(in crate::vault) fn warnings_with(
        &self,
        rel: &str,
        parse_warnings: Vec<String>,
    ) -> Vec<Warning> {
        let mut out: Vec<Warning> = self.warning.iter().cloned().collect();
        out.extend(parse_warnings.into_iter().map(|message| Warning {
            path: rel.to_string(),
            kind: WarningKind::Frontmatter,
            message,
        }));
        out
    }
}

/// Reads a note file with the limits every surface applies: size, binary, UTF-8.
pub(in crate::vault) fn read_note_file(
    rel: &str,
    abs: &Path,
    max_bytes: u64,
) -> std::result::Result<Decoded, Warning> {
    let warn = |kind, message: String| Warning {
        path: rel.to_string(),
        kind,
        message,
    };
    let bytes = match fs::read(abs) {
        Ok(b) => b,
        Err(e) => {
            return Err(warn(
                WarningKind::Unreadable,
                format!("cannot read: {e}; skipped"),
            ));
        }
    };
    if bytes.len() as u64 > max_bytes {
        return Err(warn(
            WarningKind::TooLarge,
            format!(
                "{} bytes is over the {max_bytes}-byte note limit; skipped",
                bytes.len()
            ),
        ));
    }
    if crate::markdown::looks_binary(&bytes) {
        return Err(warn(
            WarningKind::Binary,
            "looks binary (contains NUL bytes); skipped".into(),
        ));
    }
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
    let (text, warning) = match String::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            (
                String::from_utf8_lossy(e.as_bytes()).into_owned(),
                Some(warn(
                    WarningKind::InvalidUtf8,
                    format!(
                        "invalid UTF-8 at byte {at} (line {line}); indexed with replacement characters"
                    ),
                )),
            )
        }
    };
    Ok(Decoded {
        text,
        hash,
        warning,
    })
}

pub(in crate::vault) fn load_file(
    f: &NoteFile,
    old_hash: Option<&str>,
    max_bytes: u64,
    chunking: &ChunkOptions,
) -> Loaded {
    if f.size > max_bytes {
        return Loaded::Skipped(Warning {
            path: f.rel.clone(),
            kind: WarningKind::TooLarge,
            message: format!(
                "{} bytes is over the {max_bytes}-byte note limit; skipped",
                f.size
            ),
        });
    }
    let decoded = match read_note_file(&f.rel, &f.abs, max_bytes) {
        Ok(d) => d,
        Err(w) => return Loaded::Skipped(w),
    };
    if old_hash == Some(decoded.hash.as_str()) {
        return Loaded::Same { hash: decoded.hash };
    }
    let parsed = parse_note(&f.rel, &decoded.text);
    let warnings = decoded.warnings_with(&f.rel, parsed.warnings);
    let mut chunks = chunk_note(&parsed.note, chunking);
    if chunks.is_empty() {
        // An empty note is still findable by its title, path, aliases and tags.
        let line = parsed.note.body_start_line;
        chunks.push(Chunk {
            index: 0,
            heading_trail: Vec::new(),
            headings: Vec::new(),
            sections: vec![(line, String::new())],
            text: String::new(),
            line_start: line,
            line_end: line,
        });
    }
    Loaded::Note {
        hash: decoded.hash,
        note: Box::new(parsed.note),
        chunks,
        warnings,
    }
}
