//! Writing the index: `LexicalWriter` (one commit per update) and the documents it adds.

use std::path::{Path, PathBuf};

use super::pick::ChunkSpans;
use super::{Fields, KIND_CHUNK, KIND_NOTE, KIND_WITHHELD, chunk_key, embed_text, tokenizer};
use tantivy::{IndexWriter, Term, doc};

use crate::chunk::Chunk;
use crate::error::{Error, Result};
use crate::note::Note;

/// Frontmatter keys whose values are indexed in fields of their own (or are not text to find).
pub(super) const NOT_META: &[&str] = &[
    "title",
    "aliases",
    "alias",
    "description",
    "tags",
    "tag",
    "cssclasses",
];

/// The frontmatter's scalar values (`ticket: OPS-2291`, `owner: Ana`, lists of scalars), one per
/// line, for the `meta` field.
pub(super) fn frontmatter_scalars(fm: &serde_json::Map<String, serde_json::Value>) -> String {
    fn push(v: &serde_json::Value, out: &mut Vec<String>, depth: usize) {
        match v {
            serde_json::Value::String(s) if s.len() <= 512 => out.push(s.clone()),
            serde_json::Value::Number(n) => out.push(n.to_string()),
            serde_json::Value::Array(items) if depth == 0 => {
                for i in items.iter().take(64) {
                    push(i, out, 1);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (k, v) in fm {
        if !NOT_META.iter().any(|n| k.eq_ignore_ascii_case(n)) {
            push(v, &mut out, 0);
        }
    }
    out.join("\n")
}

/// `line\ttrail` per merged section; empty for the usual one-section chunk.
pub(super) fn sections_field(c: &Chunk) -> String {
    if c.sections.len() < 2 {
        return String::new();
    }
    c.sections
        .iter()
        .map(|(l, t)| format!("{l}\t{t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A note's index documents, made by [`LexicalWriter::prepare`].
pub(crate) struct NoteDocuments(Vec<tantivy::TantivyDocument>);

/// Holds the index writer lock while an update is applied.
///
/// A writer that changed something and is dropped without a successful [`Self::commit`] (an
/// error on the way, a failed commit on a full disk) rolls back and deletes the segment files
/// the uncommitted changes wrote, so a failed update leaves only the last commit's files.
pub(crate) struct LexicalWriter {
    /// `None` once a commit has consumed it.
    pub(super) writer: Option<IndexWriter>,
    pub(super) fields: Fields,
    pub(super) dir: PathBuf,
    /// The segment files present when the writer was opened.
    pub(super) before: std::collections::HashSet<String>,
    /// Whether anything was added or deleted since the writer was opened.
    pub(super) dirty: std::sync::atomic::AtomicBool,
}

impl Drop for LexicalWriter {
    fn drop(&mut self) {
        self.discard();
    }
}

/// Whether a tantivy error comes from a full disk (or quota).
pub(super) fn disk_full(e: &tantivy::TantivyError) -> bool {
    let text = format!("{e} {e:?}");
    text.contains("No space left on device")
        || text.contains("os error 28")
        || text.contains("Disk quota exceeded")
        || text.contains("StorageFull")
}

/// Whether the filesystem holding `dir` has (almost) no room left: tantivy reports a full disk
/// inside its worker threads only as "an index writer was killed", without the OS error.
pub(super) fn no_room(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: statvfs writes into the zeroed struct given; the path is NUL-terminated.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return false;
        }
        (st.f_bavail as u64).saturating_mul(st.f_frsize as u64) < NO_ROOM_BYTES
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}

/// The names of the segment files in `dir` (`<32 hex digits>.<ext>`).
pub(super) fn segment_files(dir: &Path) -> std::collections::HashSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Default::default();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| {
            n.split_once('.').is_some_and(|(stem, _)| {
                stem.len() == 32 && stem.bytes().all(|b| b.is_ascii_hexdigit())
            })
        })
        .collect()
}

/// Free space under which a failed index write is put down to a full disk (1 MiB).
#[cfg(unix)]
pub(super) const NO_ROOM_BYTES: u64 = 1 << 20;

impl LexicalWriter {
    fn mark(&self) {
        self.dirty.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Rolls uncommitted changes back and deletes the files only they used.
    fn discard(&mut self) {
        if !self.dirty.swap(false, std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        if let Some(w) = self.writer.as_mut() {
            let _ = w.rollback();
            let _ = w.garbage_collect_files().wait();
            // tantivy collects only the files it registered; on a full disk a segment file can
            // be created whose registration failed. Under the writer lock, a segment file that
            // is new since the writer opened and not in the last commit is such an orphan.
            let Ok(live) = w.index().searchable_segment_ids() else {
                return;
            };
            let live: std::collections::HashSet<String> =
                live.iter().map(|id| id.uuid_string()).collect();
            for name in segment_files(&self.dir) {
                let stem = name.split_once('.').map_or(name.as_str(), |(s, _)| s);
                if !live.contains(stem) && !self.before.contains(&name) {
                    let _ = std::fs::remove_file(self.dir.join(&name));
                }
            }
        }
    }

    /// The error a failed write gives: a full disk names its cure (free space, run the update
    /// again: the index was rolled back and still answers), never `--rebuild`.
    fn failed(&self, e: tantivy::TantivyError) -> Error {
        if disk_full(&e) || no_room(&self.dir) {
            Error::Io {
                path: self.dir.clone(),
                source: std::sync::Arc::new(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "No space left on device: the update was rolled back and the index still answers as before; free disk space, then run `mindex update` again",
                )),
            }
        } else {
            Error::from(e)
        }
    }

    /// Removes every chunk of a note.
    pub fn delete_note(&self, path: &str) {
        if let Some(w) = &self.writer {
            self.mark();
            w.delete_term(Term::from_field_text(self.fields.path, path));
        }
    }

    /// Removes every document.
    pub fn delete_all(&mut self) -> Result<()> {
        self.mark();
        if let Some(w) = self.writer.as_mut() {
            w.delete_all_documents().map_err(|e| self.failed(e))?;
        }
        Ok(())
    }

    /// Adds a note: its note document and its chunks' documents (call [`Self::delete_note`]
    /// first when replacing).
    pub fn add_note(&self, note: &Note, chunks: &[Chunk]) -> Result<()> {
        self.add_prepared(self.prepare(note, chunks))
    }

    /// Adds the documents [`Self::prepare`] made.
    pub(crate) fn add_prepared(&self, docs: NoteDocuments) -> Result<()> {
        let Some(w) = &self.writer else {
            return Ok(());
        };
        self.mark();
        for d in docs.0 {
            w.add_document(d).map_err(|e| self.failed(e))?;
        }
        Ok(())
    }

    /// A note's documents, made without the writer (from any thread: a full build makes them
    /// in parallel, and only adds them in order).
    pub(crate) fn prepare(&self, note: &Note, chunks: &[Chunk]) -> NoteDocuments {
        let f = &self.fields;
        let aliases = note.aliases.join("\n");
        let description = note
            .frontmatter
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default();
        let tags = note.tags.join(" ");
        // The folders, and the file name unless it is the title (usually it is: then it is
        // scored as the title already, and a second copy made every title match count double).
        let stem_path = note.path.trim_end_matches(".md");
        let (dirs, stem) = stem_path.rsplit_once('/').unwrap_or(("", stem_path));
        let path_text = if stem.trim().eq_ignore_ascii_case(note.title.trim()) {
            dirs.replace(['/', '-', '_'], " ")
        } else {
            stem_path.replace(['/', '-', '_'], " ")
        };
        let folder = note.path.split_once('/').map_or("", |(top, _)| top);
        let meta = frontmatter_scalars(&note.frontmatter);
        let not_title = |h: &&String| !h.trim().eq_ignore_ascii_case(note.title.trim());
        let mut docs = Vec::with_capacity(chunks.len() + 2);
        docs.push(doc!(
            f.path => note.path.as_str(),
            f.folder => folder,
            f.kind => KIND_NOTE,
            f.path_text => path_text.as_str(),
            f.title => note.title.as_str(),
            f.aliases => aliases.as_str(),
            f.description => description,
            f.note_headings => note
                .headings
                .iter()
                .map(|h| &h.text)
                .filter(not_title)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
            f.tags => tags.as_str(),
            f.meta => meta.as_str(),
            f.text => note.body.as_str(),
            f.idents => tokenizer::identifier_words(&[&note.title, &aliases, &meta, &note.body]),
            f.spans => ChunkSpans::of(note, chunks).to_bytes(),
        ));
        if note.withheld {
            docs.push(doc!(
                f.path => note.path.as_str(),
                f.kind => KIND_WITHHELD,
            ));
        }
        for c in chunks {
            docs.push(doc!(
                f.path => note.path.as_str(),
                f.folder => folder,
                f.kind => KIND_CHUNK,
                f.chunk_title => note.title.as_str(),
                f.trail => c.heading(),
                f.sections => sections_field(c),
                f.body => c.text.as_str(),
                f.line_start => c.line_start as u64,
                f.line_end => c.line_end as u64,
                f.chunk => c.index as u64,
                f.key => chunk_key(&embed_text(&note.title, &c.heading(), &c.text)),
            ));
        }
        NoteDocuments(docs)
    }

    /// Commits every change atomically and waits for merges to settle.
    /// A failed commit is rolled back and its files deleted (see the type's docs).
    pub fn commit(mut self) -> Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        if let Err(e) = w.commit() {
            let err = self.failed(e);
            self.discard();
            return Err(err);
        }
        self.dirty
            .store(false, std::sync::atomic::Ordering::Relaxed);
        // A commit makes a segment; the merge policy schedules merges of similar-sized ones.
        // Dropping the writer would cancel them, and a store written a few notes at a time would
        // pile up one segment per write (every search pays per segment), so wait for them.
        let Some(w) = self.writer.take() else {
            return Ok(());
        };
        w.wait_merging_threads().map_err(|e| self.failed(e))?;
        Ok(())
    }
}
