//! Keeping the index current: `update` (incremental), `update_verified`, `rebuild`, and the
//! synchronous indexing of engine writes (`index_now`, `index_written`), with the file loading
//! every read shares (size limit, binary and UTF-8 checks, hashing).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Instant, UNIX_EPOCH};

use rayon::prelude::*;

use super::{NoProgress, Progress, Vault, WRITER_WAIT, pending};
use crate::error::{Error, Result};
use crate::lexical::{Lexical, NoteDocuments};
use crate::report::{Changes, Rename, UpdateReport, Warning, WarningKind};
use crate::state::{
    Entry, IndexState, LastUpdate, NoteState, Old, SkippedState, StateView, record_changes,
};
use crate::vector::VectorStore;
use crate::walk::{NoteFile, is_within, walk_notes};

mod files;
pub(crate) use files::link_targets;
pub(super) use files::{Loaded, RACY_MARGIN_NS, load_file, note_state, now_ns, read_note_file};

/// The file that serialises creating the lexical index (`<index>/create.lock`).
const CREATE_LOCK: &str = "create.lock";

/// tantivy's own writer lock of the index in `lexical`, held (without waiting) while the index
/// is removed, so no writer in another process is working in it; [`Error::Busy`] when one is.
fn take_writer_lock(lexical: &Path) -> Result<fs::File> {
    let lock_path = lexical.join(".tantivy-writer.lock");
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| Error::io(&lock_path, e))?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        Err(fs::TryLockError::WouldBlock) => Err(Error::Busy {
            path: lexical.to_path_buf(),
        }),
        Err(fs::TryLockError::Error(e)) => Err(Error::io(&lock_path, e)),
    }
}

/// A file read for an update: a note's index documents and state (made in parallel), an
/// unchanged note's hash, or why it was skipped.
enum Read {
    Note {
        state: NoteState,
        docs: NoteDocuments,
    },
    Same {
        hash: String,
    },
    Skipped(Warning),
}

impl Vault {
    /// Opens the index for writing, creating (or, when incompatible, recreating) it.
    ///
    /// Creating is serialised across processes by `<index>/create.lock`: two updates starting
    /// on a vault without an index (two agent sessions at once) would otherwise both create it,
    /// and the later one would fail ("index already exists") or remove the index the other was
    /// still writing. Under the lock the index is looked at again; the process that finds it
    /// made goes on to the writer lock like any other update (and may be told `Busy`).
    pub(super) fn lexical_for_update(&self) -> Result<(Arc<Lexical>, bool)> {
        match self.lexical() {
            Ok(l) => return Ok((l, false)),
            Err(Error::IndexMissing { .. } | Error::Corrupt { .. }) => {}
            Err(e) => return Err(e),
        }
        fs::create_dir_all(&self.index_dir).map_err(|e| Error::io(&self.index_dir, e))?;
        let lock_path = self.index_dir.join(CREATE_LOCK);
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| Error::io(&lock_path, e))?;
        // Creating an index takes milliseconds: waiting is right here.
        lock.lock().map_err(|e| Error::io(&lock_path, e))?;
        let dir = self.lexical_dir();
        let created = match Lexical::open(&dir) {
            Ok(l) => return Ok((self.keep_lexical(Arc::new(l)), false)),
            Err(Error::IndexMissing { .. }) => Lexical::create(&dir)?,
            Err(Error::Corrupt { .. }) => {
                // Another process may still write into an index it can read (another version
                // of mindex): its writer lock says so, and this update is then `Busy`.
                let _writer = take_writer_lock(&dir)?;
                fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
                Lexical::create(&dir)?
            }
            Err(e) => return Err(e),
        };
        drop(lock);
        Ok((self.keep_lexical(Arc::new(created)), true))
    }

    fn keep_lexical(&self, l: Arc<Lexical>) -> Arc<Lexical> {
        l.set_manifest(crate::manifest::Manifest::load(&self.root));
        *self.lexical.lock().unwrap_or_else(|e| e.into_inner()) = Some(l.clone());
        l
    }

    /// Brings the index up to date with the notes on disk.
    ///
    /// Only files whose size or mtime changed are read, and only those whose content hash changed
    /// are re-parsed and re-indexed. Deleted notes disappear; a moved note is reported as a rename.
    /// Problem files become warnings and never stop the update. The vault itself is never written.
    ///
    /// While a watcher keeps this index current (`mindex watch`, or a server started with
    /// `--watch`), the update asks it instead of walking the vault: the watcher applies every
    /// change made before the request (only the paths its events name) and answers with the
    /// report; when it does not answer, the update walks the vault itself.
    pub fn update(&self, progress: &dyn Progress) -> Result<UpdateReport> {
        if let Some(report) = crate::watcher::ask(&self.index_dir, WRITER_WAIT) {
            return Ok(report);
        }
        self.update_with(progress, false)
    }

    /// [`Vault::update`] that also reads and hashes every file whose size and mtime look
    /// unchanged, catching edits that kept both (a restored mtime, a coarse clock, a copy tool).
    /// Notes whose hash matches are still not re-indexed.
    pub fn update_verified(&self, progress: &dyn Progress) -> Result<UpdateReport> {
        self.update_with(progress, true)
    }

    /// Rebuilds the index from the vault alone: the lexical index and its state are removed (under
    /// the index's writer lock: [`Error::Busy`] while another process writes) and every note is
    /// read and indexed again. Vectors are a cache keyed by chunk text: readable ones are kept and
    /// reused, unreadable ones are dropped (run `embed` again). The vault is never written.
    pub fn rebuild(&self, progress: &dyn Progress) -> Result<UpdateReport> {
        let lexical = self.lexical_dir();
        // Hold tantivy's own writer lock while the old index goes, so no writer in another
        // process is working in it; the index is removed whole, since any file of it may be the
        // damaged one.
        let guard = if lexical.is_dir() {
            Some(take_writer_lock(&lexical)?)
        } else {
            None
        };
        *self.lexical.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let state = self.state_path();
        // `state.json` is the state of an index before `state.bin` (format 5 and older).
        let legacy = self.index_dir.join("state.json");
        for file in [crate::state::journal_path(&state), state, legacy] {
            match fs::remove_file(&file) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&file, e)),
            }
        }
        if lexical.is_dir() {
            fs::remove_dir_all(&lexical).map_err(|e| Error::io(&lexical, e))?;
        }
        drop(guard);
        let vectors = self.vectors_dir();
        let readable = match self.vectors().status() {
            Some(vs) => VectorStore::open(&vectors, &vs.model_id).is_ok(),
            None => !vectors.join("meta.json").exists(),
        };
        if !readable {
            fs::remove_dir_all(&vectors).map_err(|e| Error::io(&vectors, e))?;
        }
        self.update_with(progress, false)
    }

    /// Creates the index folder, but never the vault around it: when the vault folder is gone
    /// (moved or deleted while this handle was open) this fails with
    /// [`Error::VaultNotFound`] instead of leaving an empty vault with an index at the old path.
    pub(super) fn ensure_index_dir(&self) -> Result<()> {
        if !self.root.is_dir() {
            return Err(Error::VaultNotFound {
                path: self.root.clone(),
                detail: "the vault folder is gone (moved or deleted); open it at its new location"
                    .into(),
            });
        }
        fs::create_dir_all(&self.index_dir).map_err(|e| Error::io(&self.index_dir, e))
    }

    pub(super) fn update_with(
        &self,
        progress: &dyn Progress,
        verify: bool,
    ) -> Result<UpdateReport> {
        self.update_in(progress, verify, Scope::All)
            .map(|u| u.report)
    }

    /// The update proper, of the whole vault or of the paths a change feed names (see
    /// [`Scope`]); a scoped update that cannot be complete (no state yet, a symlink among the
    /// paths) walks the whole vault instead, and says so.
    pub(crate) fn update_in(
        &self,
        progress: &dyn Progress,
        verify: bool,
        scope: Scope<'_>,
    ) -> Result<Updated> {
        let t0 = Instant::now();
        self.ensure_index_dir()?;
        let (lexical, created) = self.lexical_for_update()?;
        // A few paths from a change feed take the writer of engine writes: cheaper to open,
        // and its merges only fold small segments, so no edit waits for a big merge.
        let mut writer = match scope {
            Scope::Paths(p) if p.len() <= SMALL_SCOPE && !created => lexical.small_writer()?,
            _ => lexical.writer()?,
        };
        // The state is read under the writer lock so that concurrent updates serialise cleanly.
        let mut warnings = Vec::new();
        let path = self.state_path();
        let (chunking, max) = (self.options.chunking, self.options.max_note_bytes);
        let old = match StateView::open(&path) {
            Ok(Some(s)) if !created && s.compatible(&chunking, max) => Some(s),
            Ok(_) => None,
            Err(Error::Corrupt { detail, .. }) => {
                warnings.push(Warning {
                    path: path.display().to_string(),
                    kind: WarningKind::Config,
                    message: format!("index state unreadable ({detail}); rebuilding the index"),
                });
                None
            }
            Err(e) => return Err(e),
        };
        let rebuilt = old.is_none();
        let old = old.unwrap_or_else(|| StateView::empty(&path, chunking, max));
        // Notes engine writers queued before the walk are on disk, so the walk indexes them:
        // their tickets are settled by this commit.
        let settled = pending::list(&self.index_dir);
        let scanned_at_ns = now_ns();
        let mut scoped: Option<Vec<String>> = match scope {
            Scope::Paths(paths) if !rebuilt => {
                let mut all = paths.to_vec();
                all.extend(settled.iter().flat_map(|t| t.rels.iter().cloned()));
                all.sort();
                all.dedup();
                Some(all)
            }
            _ => None,
        };
        let index_dir = Some(self.index_dir.as_path());
        let walked = match &scoped {
            Some(paths) => walk_notes(&self.root, index_dir, Some(paths))?,
            None => None,
        };
        let walked = match walked {
            Some(w) => w,
            None => {
                scoped = None;
                walk_notes(&self.root, index_dir, None)?
                    .expect("a walk of the whole vault always answers")
            }
        };
        let links = walked.links;
        let files = walked.files;
        warnings.extend(walked.warnings);

        // Decide which files must be read: a merge of two path-sorted lists, touching only the
        // fixed-size records of the state (the details of a file are parsed when it changed).
        let in_scope = scoped.as_ref().map(|paths| {
            // Most of the state lies outside the scope: a few paths are compared directly, more
            // are looked up by each folder above the entry.
            let set: Option<HashSet<&str>> =
                (paths.len() > 16).then(|| paths.iter().map(String::as_str).collect());
            move |rel: &str| match &set {
                None => paths.iter().any(|p| is_within(rel, p)),
                Some(set) => {
                    set.contains(rel)
                        || rel
                            .match_indices('/')
                            .any(|(at, _)| set.contains(&rel[..at]))
                }
            }
        });
        let plan = plan(
            &old,
            &files,
            verify,
            true,
            in_scope.as_ref().map(|f| f as &dyn Fn(&str) -> bool),
        );
        warnings.extend(plan.warnings);

        progress.start("indexing", plan.to_read.len() as u64);
        // Read, parsed, chunked and made into index documents in parallel; added in order.
        let loaded: Vec<(&NoteFile, Option<Entry>, Read)> = plan
            .to_read
            .par_iter()
            .map(|&(f, o)| {
                let before = o.map(|o| old.entry(o)).transpose();
                let l = match &before {
                    Ok(b) => {
                        let old_hash = match b {
                            Some(Entry::Note(n)) => Some(n.hash.as_str()),
                            _ => None,
                        };
                        load_file(f, old_hash, max, &chunking)
                    }
                    Err(_) => load_file(f, None, max, &chunking),
                };
                // The note and its chunks are dropped here: only their documents and state
                // are kept until the commit.
                let read = match l {
                    Loaded::Note {
                        hash,
                        note,
                        chunks,
                        warnings,
                    } => Read::Note {
                        docs: writer.prepare(&note, &chunks),
                        state: note_state(hash, f, chunks.len(), &note, warnings),
                    },
                    Loaded::Same { hash } => Read::Same { hash },
                    Loaded::Skipped(w) => Read::Skipped(w),
                };
                progress.advance(1);
                (f, before.ok().flatten(), read)
            })
            .collect();
        progress.finish();

        let mut changes = Changes::default();
        let mut changed: Vec<(String, Option<Entry>)> = Vec::new();
        let mut fresh: Vec<(String, NoteDocuments)> = Vec::new();
        let mut notes = plan.clean_notes;
        let mut chunks = plan.clean_chunks;
        let mut added_hash: Vec<(String, String)> = Vec::new();
        for (f, before, read) in loaded {
            let entry = match read {
                Read::Same { hash } => match before.clone() {
                    Some(Entry::Note(mut ns)) => {
                        ns.hash = hash;
                        ns.size = f.size;
                        ns.mtime_ns = f.mtime_ns;
                        Entry::Note(ns)
                    }
                    _ => unreachable!("an unchanged hash comes from a note's state"),
                },
                Read::Skipped(w) => Entry::Skipped(SkippedState {
                    size: f.size,
                    mtime_ns: f.mtime_ns,
                    warning: w,
                }),
                Read::Note { state, docs } => {
                    if matches!(before, Some(Entry::Note(_))) {
                        changes.modified.push(f.rel.clone());
                    } else {
                        changes.added.push(f.rel.clone());
                        added_hash.push((f.rel.clone(), state.hash.clone()));
                    }
                    fresh.push((f.rel.clone(), docs));
                    Entry::Note(state)
                }
            };
            if let Entry::Note(ns) = &entry {
                notes += 1;
                chunks += ns.chunks as usize;
            }
            warnings.extend(entry.warnings());
            if before.as_ref() != Some(&entry) {
                changed.push((f.rel.clone(), Some(entry)));
            }
        }
        // A removed note whose exact content reappears under a new path was renamed.
        let mut by_hash: HashMap<String, Vec<String>> = HashMap::new();
        for (rel, o) in &plan.removed {
            changed.push((rel.to_string(), None));
            match old.entry(*o) {
                Ok(Entry::Note(ns)) => {
                    changes.removed.push(rel.to_string());
                    by_hash.entry(ns.hash).or_default().push(rel.to_string());
                }
                Ok(Entry::Skipped(_)) => {}
                // Unreadable details: removed from the index all the same.
                Err(_) => changes.removed.push(rel.to_string()),
            }
        }
        let mut renamed_from = HashSet::new();
        let mut renamed_to = HashSet::new();
        for (p, hash) in &added_hash {
            if let Some(froms) = by_hash.get_mut(hash)
                && let Some(from) = froms.pop()
            {
                changes.renamed.push(Rename {
                    from: from.clone(),
                    to: p.clone(),
                });
                renamed_from.insert(from);
                renamed_to.insert(p.clone());
            }
        }
        changes.added.retain(|p| !renamed_to.contains(p));
        changes.removed.retain(|p| !renamed_from.contains(p));

        // Apply everything in one commit.
        if rebuilt {
            writer.delete_all()?;
        } else {
            for p in changes
                .removed
                .iter()
                .chain(renamed_from.iter())
                .chain(fresh.iter().map(|(path, _)| path))
            {
                writer.delete_note(p);
            }
        }
        let fresh_notes = fresh.len();
        let added = fresh_notes > 0;
        for (_, docs) in fresh {
            writer.add_prepared(docs)?;
        }
        let touched_index =
            rebuilt || added || !changes.removed.is_empty() || !renamed_from.is_empty();
        if touched_index {
            writer.commit()?;
        } else {
            drop(writer);
        }

        warnings.sort_by(|a, b| a.path.cmp(&b.path));
        let elapsed_ms = t0.elapsed().as_millis() as u64;
        let last_update = Some(LastUpdate::new(
            (now_ns() / 1_000_000) as u64,
            elapsed_ms,
            &changes,
            rebuilt,
            warnings.len(),
        ));
        if rebuilt {
            let mut next = IndexState::new(chunking, max);
            next.scanned_at_ns = scanned_at_ns;
            next.last_update = last_update;
            for (rel, e) in changed {
                match e {
                    Some(Entry::Note(n)) => next.notes.insert(rel, n).map(drop),
                    Some(Entry::Skipped(k)) => next.skipped.insert(rel, k).map(drop),
                    None => None,
                };
            }
            next.save(&path)?;
            // The state of an index before `state.bin` (format 5 and older).
            let _ = fs::remove_file(self.index_dir.join("state.json"));
        } else {
            // Only what changed goes to disk: a no-op update writes one summary line. A scoped
            // update stats only its paths, so the time of the last whole scan stands.
            let scanned = if scoped.is_some() {
                old.scanned_at_ns()
            } else {
                scanned_at_ns
            };
            record_changes(
                &path,
                old.generation(),
                &changed,
                Some((scanned, last_update)),
            )?;
        }
        pending::remove(&settled);
        let report = UpdateReport {
            unchanged: notes - fresh_notes,
            notes,
            chunks,
            changes,
            warnings,
            rebuilt,
            elapsed_ms,
            by_watcher: false,
        };
        Ok(Updated {
            report,
            whole: scoped.is_none(),
            links,
        })
    }

    /// Indexes the given notes now: used after the engine writes a note, so the note is
    /// searchable as soon as the write returns. Without an index (or with an incompatible one)
    /// this runs a full [`Vault::update`].
    ///
    /// Writers in many processes coordinate through `<index>/pending/`: the request is first
    /// recorded there as a ticket; whichever process holds the index writer indexes every pending
    /// ticket in one commit and then removes them. So a caller either takes the writer and
    /// commits everyone's notes, or sees its ticket taken by the holder and returns: it never
    /// queues behind each commit in turn. A ticket outlives a crash and is indexed by the next
    /// writer; after [`WRITER_WAIT`] the call fails with [`Error::Busy`], its ticket left for
    /// the next writer (the note itself is already on disk).
    pub(crate) fn index_now(&self, rels: &[String]) -> Result<()> {
        self.ensure_index_dir()?;
        let (lexical, created) = self.lexical_for_update()?;
        if created {
            return self.update(&NoProgress).map(|_| ());
        }
        let ticket = pending::enqueue(&self.index_dir, rels)?;
        let deadline = Instant::now() + WRITER_WAIT;
        let writer = loop {
            match lexical.small_writer() {
                Ok(w) => break w,
                Err(Error::Busy { .. }) => {
                    if !ticket.exists() {
                        // The holder indexed it and committed.
                        return Ok(());
                    }
                    if Instant::now() >= deadline {
                        return Err(Error::Busy {
                            path: self.lexical_dir(),
                        });
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                Err(e) => return Err(e),
            }
        };
        let generation = match StateView::open(&self.state_path()) {
            Ok(Some(s)) if s.compatible(&self.options.chunking, self.options.max_note_bytes) => {
                s.generation()
            }
            _ => {
                drop(writer);
                return self.update(&NoProgress).map(|_| ());
            }
        };
        let tickets = pending::list(&self.index_dir);
        let mut all: Vec<String> = rels.to_vec();
        for t in &tickets {
            all.extend(t.rels.iter().cloned());
        }
        all.sort();
        all.dedup();
        let mut changed = Vec::with_capacity(all.len());
        for rel in all {
            let entry = self.reindex_one(&writer, &rel)?;
            changed.push((rel, entry));
        }
        writer.commit()?;
        record_changes(&self.state_path(), generation, &changed, None)?;
        pending::remove(&tickets);
        let _ = fs::remove_file(&ticket);
        Ok(())
    }

    /// [`Vault::index_now`], then whether `written` is really in the index: `Err` says why not
    /// (the index could not be refreshed, or it skipped the file, e.g. over `max_note_bytes`),
    /// so a write never reports `indexed: true` for a note search cannot find.
    pub(crate) fn index_written(
        &self,
        rels: &[String],
        written: &str,
    ) -> std::result::Result<(), String> {
        self.index_now(rels)
            .map_err(|e| format!("the search index could not be refreshed ({e})"))?;
        let view = match StateView::open(&self.state_path()) {
            Ok(Some(v)) => v,
            Ok(None) => return Err("there is no index state".to_string()),
            Err(e) => return Err(format!("the index state could not be read ({e})")),
        };
        match view.get(written).map(|o| view.entry(o)) {
            Some(Ok(Entry::Note(_))) => Ok(()),
            Some(Ok(Entry::Skipped(sk))) => {
                Err(format!("the index skipped it: {}", sk.warning.message))
            }
            Some(Err(e)) => Err(format!("the index state could not be read ({e})")),
            None => Err("the index does not hold it yet".to_string()),
        }
    }

    /// Replaces one note in the index (or removes it when it is gone); returns what the state
    /// now holds for it.
    pub(super) fn reindex_one(
        &self,
        writer: &crate::lexical::LexicalWriter,
        rel: &str,
    ) -> Result<Option<Entry>> {
        let abs = self.root.join(rel);
        writer.delete_note(rel);
        let Ok(meta) = fs::metadata(&abs) else {
            return Ok(None);
        };
        let f = NoteFile {
            rel: rel.to_string(),
            abs,
            size: meta.len(),
            mtime_ns: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64),
        };
        match load_file(
            &f,
            None,
            self.options.max_note_bytes,
            &self.options.chunking,
        ) {
            Loaded::Note {
                hash,
                note,
                chunks,
                warnings,
            } => {
                writer.add_note(&note, &chunks)?;
                Ok(Some(Entry::Note(note_state(
                    hash,
                    &f,
                    chunks.len(),
                    &note,
                    warnings,
                ))))
            }
            Loaded::Skipped(w) => Ok(Some(Entry::Skipped(SkippedState {
                size: f.size,
                mtime_ns: f.mtime_ns,
                warning: w,
            }))),
            Loaded::Same { .. } => unreachable!("no previous hash was given"),
        }
    }
}

/// Up to this many paths, a scoped update writes with the small writer.
const SMALL_SCOPE: usize = 256;

/// Which files an update looks at.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// Every file: the vault is walked.
    All,
    /// Only these vault-relative paths (note files, or folders taken whole), as a change feed
    /// names them; every other file in the state is taken as unchanged.
    Paths(&'a [String]),
}

/// What [`Vault::update_in`] did.
#[derive(Debug)]
pub(crate) struct Updated {
    pub report: UpdateReport,
    /// Whether the whole vault was walked.
    pub whole: bool,
    /// Whether the walk followed a symlink (a change feed is then not enough: see
    /// [`crate::walk::Walked::links`]).
    pub links: bool,
}

/// What an update must do, decided from the walk and the state's records alone.
pub(super) struct Plan<'f, 's> {
    /// Files to read (with their previous state, when they had one).
    pub to_read: Vec<(&'f NoteFile, Option<Old<'s>>)>,
    /// Files in the state that are gone from the vault.
    pub removed: Vec<(&'s str, Old<'s>)>,
    pub clean_notes: usize,
    pub clean_chunks: usize,
    /// The warnings of unchanged files (re-reported until they are fixed).
    pub warnings: Vec<Warning>,
}

/// Compares the walk (sorted by path) with the state (sorted the same way) in one merge.
///
/// A file is clean when its size and mtime match the state's and its mtime is older than the
/// last scan by more than the clock's resolution ([`RACY_MARGIN_NS`]): one modified within it
/// may have changed again without its mtime moving ("racily clean"), so it is read again
/// (unless `racy` is false: `status` reports what visibly changed). `verify` reads every file.
/// With `in_scope`, `files` holds only the paths it accepts, and a state entry it rejects is
/// clean (a change feed said nothing changed there).
pub(super) fn plan<'f, 's>(
    old: &'s StateView,
    files: &'f [NoteFile],
    verify: bool,
    racy: bool,
    in_scope: Option<&dyn Fn(&str) -> bool>,
) -> Plan<'f, 's> {
    let mut p = Plan {
        to_read: Vec::new(),
        removed: Vec::new(),
        clean_notes: 0,
        clean_chunks: 0,
        warnings: Vec::new(),
    };
    let limit = if racy {
        old.scanned_at_ns() - RACY_MARGIN_NS
    } else {
        i64::MAX
    };
    // A state entry the walk did not list: gone, unless it lies outside the scope.
    let unlisted = |p: &mut Plan<'f, 's>, rel: &'s str, o: Old<'s>| {
        if in_scope.is_none_or(|f| f(rel)) {
            p.removed.push((rel, o));
            return;
        }
        let st = old.stat(o);
        if st.warned
            && let Ok(e) = old.entry(o)
        {
            p.warnings.extend(e.warnings());
        }
        if !st.skipped {
            p.clean_notes += 1;
            p.clean_chunks += st.chunks as usize;
        }
    };
    let mut state = old.iter().peekable();
    for f in files {
        while let Some(&(rel, o)) = state.peek() {
            if rel >= f.rel.as_str() {
                break;
            }
            unlisted(&mut p, rel, o);
            state.next();
        }
        let prev = match state.peek() {
            Some(&(rel, o)) if rel == f.rel => {
                state.next();
                Some(o)
            }
            _ => None,
        };
        let Some(o) = prev else {
            p.to_read.push((f, None));
            continue;
        };
        let st = old.stat(o);
        let clean =
            !verify && st.size == f.size && st.mtime_ns == f.mtime_ns && st.mtime_ns < limit;
        if !clean {
            p.to_read.push((f, Some(o)));
            continue;
        }
        if st.warned {
            match old.entry(o) {
                Ok(e) => p.warnings.extend(e.warnings()),
                // Its details are unreadable: index the file again, which rewrites them.
                Err(_) => {
                    p.to_read.push((f, None));
                    continue;
                }
            }
        }
        if !st.skipped {
            p.clean_notes += 1;
            p.clean_chunks += st.chunks as usize;
        }
    }
    for (rel, o) in state {
        unlisted(&mut p, rel, o);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SearchOptions, VaultOptions};

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn paths(v: &Vault, q: &str) -> Vec<String> {
        let mut out: Vec<String> = v
            .search(q, &SearchOptions::default())
            .unwrap()
            .into_iter()
            .map(|h| h.path)
            .collect();
        out.sort();
        out
    }

    fn scoped(v: &Vault, rels: &[&str]) -> Updated {
        let rels: Vec<String> = rels.iter().map(|s| s.to_string()).collect();
        v.update_in(&NoProgress, false, Scope::Paths(&rels))
            .unwrap()
    }

    /// Two updates starting at once on a vault without an index (two agent sessions): both
    /// get the one index, neither fails with "index already exists" nor removes the other's.
    #[test]
    fn two_updates_creating_the_index_at_once_share_it() {
        for round in 0..40 {
            let d = tempfile::tempdir().unwrap();
            write(d.path(), "n.md", "# N\n\nhello\n");
            let barrier = std::sync::Barrier::new(2);
            let results: Vec<Result<bool>> = std::thread::scope(|s| {
                let open = || {
                    let v = Vault::open(d.path(), VaultOptions::default()).unwrap();
                    barrier.wait();
                    v.lexical_for_update().map(|(_, created)| created)
                };
                let a = s.spawn(open);
                let b = s.spawn(open);
                vec![a.join().unwrap(), b.join().unwrap()]
            });
            let created: Vec<bool> = results
                .into_iter()
                .map(|r| r.unwrap_or_else(|e| panic!("round {round}: {e}")))
                .collect();
            assert_eq!(
                created.iter().filter(|c| **c).count(),
                1,
                "round {round}: one of them creates the index"
            );
            let v = Vault::open(d.path(), VaultOptions::default()).unwrap();
            v.update(&NoProgress).unwrap();
            assert_eq!(paths(&v, "hello"), ["n.md"]);
        }
    }

    /// An index written by another version of mindex (another schema) is reported as
    /// outdated, not damaged, and the next update rebuilds it.
    #[test]
    fn an_index_of_another_version_is_outdated_and_rebuilt_by_update() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "a/note.md", "# Note\n\nzebraword\n");
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let lexical = v.lexical_dir();
        drop(v);
        fs::remove_dir_all(&lexical).unwrap();
        fs::create_dir_all(&lexical).unwrap();
        let mut b = tantivy::schema::Schema::builder();
        b.add_text_field("path", tantivy::schema::STRING | tantivy::schema::STORED);
        tantivy::Index::create_in_dir(&lexical, b.build()).unwrap();
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        let st = v.status().unwrap();
        assert!(st.outdated, "{st:?}");
        assert!(st.damaged.is_empty(), "{:?}", st.damaged);
        let err = v
            .search("zebraword", &SearchOptions::default())
            .unwrap_err();
        assert!(
            err.to_string().contains("another version of mindex"),
            "{err}"
        );
        v.update(&NoProgress).unwrap();
        assert_eq!(paths(&v, "zebraword"), ["a/note.md"]);
        let st = v.status().unwrap();
        assert!(!st.outdated && st.damaged.is_empty());
    }

    /// A change feed's paths are all a scoped update reads: notes, folders taken whole (added,
    /// removed, renamed), renames found by content across them; a change it was not told of
    /// waits for the next whole walk, and the totals and warnings are the whole vault's.
    #[test]
    fn a_scoped_update_applies_the_named_paths_and_only_those() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "a/edit.md", "# Edit\n\nfirstword\n");
        write(r, "b/gone.md", "# Gone\n\ngoneword\n");
        write(r, "b/deep/gone2.md", "# Gone2\n\ngoneword\n");
        write(
            r,
            "c/moved.md",
            "# Moved\n\nmovedword in a note long enough to be itself\n",
        );
        write(r, "d/quiet.md", "# Quiet\n\nquietword\n");
        write(
            r,
            "w/bad.md",
            "---\ntitle: [unclosed\n---\n# Bad\n\nbadword\n",
        );
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        let first = v.update(&NoProgress).unwrap();
        assert_eq!(first.notes, 6);
        let warned = first.warnings.len();
        assert!(warned > 0, "the broken frontmatter is reported");

        write(r, "a/edit.md", "# Edit\n\nsecondword, and longer now\n");
        fs::remove_dir_all(r.join("b")).unwrap();
        fs::create_dir_all(r.join("e")).unwrap();
        fs::rename(r.join("c/moved.md"), r.join("e/moved.md")).unwrap();
        write(r, "new/sub/fresh.md", "# Fresh\n\nfreshword\n");
        write(r, "new/.hidden.md", "# Hidden\n\nhiddenword\n");
        // Not named by the feed: invisible to the scoped update.
        write(r, "d/quiet.md", "# Quiet\n\nloudword, longer than before\n");

        let done = scoped(&v, &["a/edit.md", "b", "c/moved.md", "e/moved.md", "new"]);
        assert!(!done.whole && !done.links);
        let ch = &done.report.changes;
        assert_eq!(ch.modified, vec!["a/edit.md"]);
        assert_eq!(ch.added, vec!["new/sub/fresh.md"]);
        let mut removed = ch.removed.clone();
        removed.sort();
        assert_eq!(removed, vec!["b/deep/gone2.md", "b/gone.md"]);
        assert_eq!(ch.renamed.len(), 1);
        assert_eq!(
            (ch.renamed[0].from.as_str(), ch.renamed[0].to.as_str()),
            ("c/moved.md", "e/moved.md")
        );
        assert_eq!(done.report.notes, 5, "the totals are the whole vault's");
        assert_eq!(
            done.report.warnings.len(),
            warned,
            "{:?}",
            done.report.warnings
        );
        assert_eq!(paths(&v, "secondword"), vec!["a/edit.md"]);
        assert!(paths(&v, "goneword").is_empty());
        assert_eq!(paths(&v, "freshword"), vec!["new/sub/fresh.md"]);
        assert!(paths(&v, "hiddenword").is_empty());
        assert!(paths(&v, "loudword").is_empty(), "not named, not read");

        // The next whole walk finds what the feed did not name.
        let whole = v.update_in(&NoProgress, false, Scope::All).unwrap();
        assert!(whole.whole);
        assert_eq!(whole.report.changes.modified, vec!["d/quiet.md"]);
        assert_eq!(paths(&v, "loudword"), vec!["d/quiet.md"]);
    }

    /// The state keeps the first paths of a big update and counts the rest, so its header stays
    /// small however many notes one update changed; `status` still reports every one.
    #[test]
    fn the_last_update_lists_a_few_paths_and_counts_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let n = crate::state::LAST_UPDATE_PATHS + 20;
        for i in 0..n {
            write(r, &format!("n/{i:04}.md"), &format!("# N{i}\n\nword{i}\n"));
        }
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        assert_eq!(v.update(&NoProgress).unwrap().changes.added.len(), n);
        let last = v.status().unwrap().last_update.unwrap();
        assert_eq!(last.changes.added.len(), crate::state::LAST_UPDATE_PATHS);
        assert_eq!(last.counts().added, n);
        // A small update lists everything, and needs no counts.
        write(r, "n/0000.md", "# N0\n\nchanged\n");
        v.update(&NoProgress).unwrap();
        let last = v.status().unwrap().last_update.unwrap();
        assert_eq!(last.changes.modified, vec!["n/0000.md"]);
        assert_eq!(last.counts, None);
        assert_eq!(last.counts().modified, 1);
    }

    /// A symlink among the named paths: only a whole walk resolves it, so one runs.
    #[cfg(unix)]
    #[test]
    fn a_symlink_in_scope_makes_the_update_walk_the_whole_vault() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "real/n.md", "# N\n\nlinkedword\n");
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        let first = v.update_in(&NoProgress, false, Scope::All).unwrap();
        assert!(!first.links);
        std::os::unix::fs::symlink(r.join("real"), r.join("alias")).unwrap();
        let done = scoped(&v, &["alias"]);
        assert!(done.whole && done.links, "{:?}", done.report);
        // (The walk enters the real folder once, through the first path in name order.)
        assert_eq!(paths(&v, "linkedword"), vec!["alias/n.md"]);
    }

    /// Without an index state there is nothing to compare a few paths with: the whole vault is
    /// walked and indexed.
    #[test]
    fn a_scoped_update_of_a_new_index_builds_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "x/one.md", "# One\n\noneword\n");
        write(r, "y/two.md", "# Two\n\ntwoword\n");
        let v = Vault::open(r, VaultOptions::default()).unwrap();
        let done = scoped(&v, &["x/one.md"]);
        assert!(done.whole && done.report.rebuilt);
        assert_eq!(done.report.notes, 2);
    }
}
