//! Watch mode: filesystem events drive debounced incremental updates.
//!
//! The events are a change feed: each batch runs the ordinary incremental update, scoped to the
//! paths the batch's events named (those notes, and folders taken whole: a folder moved in or
//! out is one event). The update compares them with the index (size and mtime, then content
//! hash) and applies everything in one commit, without walking the vault. So every editor's save
//! pattern — write in place, write a temp file and rename it over, delete then create, rename to
//! a backup then write, moves between folders, whole-folder renames — ends in the same state as a
//! manual update, a moved note keeps its identity (rename detection by content hash, across the
//! batch's paths), and a reader sees the note before or after the save, never missing. The whole
//! vault is walked instead when the events cannot be trusted to name everything: a queue
//! overflow, a change to the ignore filters (`.obsidian/app.json`), a path that is not UTF-8, or
//! a vault whose last whole walk followed a symlink (a note then has two paths, one event).
//!
//! While it watches, the watcher also answers other processes' updates (`watcher.rs`, below the vault): an
//! update asks it instead of walking the vault, which is what keeps `mindex update` and the
//! hooks' refresh fast in a large vault.
//!
//! - a batch closes only after the events have been quiet for the debounce (default 40 ms), so
//!   the two halves of one save land in one update;
//! - when a note was removed in the batch and is still missing, the batch waits a little longer
//!   (the removal grace, default 250 ms) for the file to come back, as delete-then-create and
//!   rename-to-backup editors do;
//! - a burst of saves costs one update (the batch is capped by `max_delay`, default 1 s, so a
//!   long burst still refreshes the index regularly);
//! - missed events (queue overflow, a watcher that started late, a filesystem without events)
//!   are caught by an update on start and a periodic reconciliation (default every 60 s) that
//!   re-hashes every file ([`Vault::update_verified`]), so even an edit that kept a file's size
//!   and mtime is found;
//! - the vault folder itself is checked before every update and at least every 100 ms: when it
//!   is gone or another folder stands at its path (it was moved, deleted or replaced), the
//!   watcher stops with [`Error::VaultNotFound`] rather than index the wrong folder or recreate
//!   an empty index at the old path.
//!
//! With [`Vault::watch_with`] the watcher also keeps vectors current: after every update that
//! changed notes (and once on start) a background thread runs [`Vectors::refresh`](crate::Vectors::refresh) — the
//! same embedding path as `mindex embed` and the hooks' refresh — when the vault has vectors for
//! the model. The update never waits for it: the lexical commit lands first, the embedding
//! follows on its own thread (a rayon pool of its own at lowered priority, so the next update's
//! parallel parse is not queued behind inference), and saves that arrive meanwhile are embedded
//! in the next round. Nothing is embedded in a vault without vectors: the first `embed` is the
//! user's.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::report::UpdateReport;
use crate::vault::{EmbedReport, NoProgress, Scope, Updated, Vault};

use crate::watcher as sync;

/// Passes the embedding thread's events on to the watcher's callback.
type Drain<'a> = &'a dyn Fn(&mut dyn FnMut(WatchEvent));

/// Loads the embedding model for [`Vault::watch_with`]; called on the embedding thread, only
/// once the vault has vectors (and again after a failure, at the next change).
pub type EmbedderLoader<'a> = &'a (dyn Fn() -> Result<Box<dyn Embedder>> + Sync);

/// How the watcher batches events.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// Quiet time that closes a batch.
    pub debounce: Duration,
    /// A batch is applied at the latest this long after its first event.
    pub max_delay: Duration,
    /// Extra wait when a note removed in the batch is still missing.
    pub removal_grace: Duration,
    /// A full incremental update runs at least this often, events or not.
    pub reconcile_every: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            debounce: Duration::from_millis(40),
            max_delay: Duration::from_secs(1),
            removal_grace: Duration::from_millis(250),
            reconcile_every: Duration::from_secs(60),
        }
    }
}

/// What the watcher did.
#[derive(Debug)]
pub enum WatchEvent {
    /// The watcher is running (after its first update).
    Started {
        /// The first update's report.
        report: UpdateReport,
    },
    /// A batch of events was applied.
    Updated {
        /// The update's report.
        report: UpdateReport,
        /// Filesystem events in the batch.
        events: usize,
        /// From the batch's first event to the end of its commit.
        latency: Duration,
    },
    /// The periodic reconciliation ran (reported only when it changed something).
    Reconciled {
        /// The update's report.
        report: UpdateReport,
    },
    /// The event queue overflowed; a full update followed.
    Rescanned,
    /// New and changed chunks were embedded after an update ([`Vault::watch_with`]); reported
    /// only when something was embedded or dropped.
    Embedded {
        /// The embedding run's report.
        report: EmbedReport,
        /// From the first update it follows (the commit that made the chunks findable) to the
        /// vectors being stored.
        latency: Duration,
    },
    /// Something failed; the watcher goes on (another writer busy, a vanished folder, …).
    Problem(Error),
}

/// One relevant filesystem event.
#[derive(Default)]
struct Seen {
    /// Notes the event took away (deleted, or renamed from).
    removed_md: Vec<PathBuf>,
    /// Notes the event brought (created, or renamed to).
    created_md: Vec<PathBuf>,
    /// Every vault-relative path it names (notes, folders, other files): the change feed.
    paths: Vec<String>,
    /// Only a walk of the whole vault is sure to see what it changed: events were lost, the
    /// ignore filters changed, or a path is not UTF-8.
    whole: bool,
    /// Requests from updates in other processes (see [`sync`]).
    requests: Vec<PathBuf>,
}

/// Which folder stands at the vault's path: device and inode (the path alone elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RootIdentity {
    dev: u64,
    ino: u64,
}

impl RootIdentity {
    fn of(root: &Path) -> Option<RootIdentity> {
        let m = std::fs::metadata(root)
            .ok()
            .filter(std::fs::Metadata::is_dir)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            Some(RootIdentity {
                dev: m.dev(),
                ino: m.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            Some(RootIdentity { dev: 0, ino: 0 })
        }
    }
}

fn vanished(root: &Path) -> Error {
    Error::VaultNotFound {
        path: root.to_path_buf(),
        detail: "the vault folder was moved, deleted or replaced while it was watched; watching stopped (start `mindex watch` again at its new location)".into(),
    }
}

impl Vault {
    /// Watches the vault until `stop` is set, keeping the index current; `on` hears every batch.
    /// Returns [`Error::VaultNotFound`] when the vault folder is moved, deleted or replaced.
    pub fn watch(
        &self,
        opts: &WatchOptions,
        stop: &AtomicBool,
        on: &mut dyn FnMut(WatchEvent),
    ) -> Result<()> {
        self.watch_with(opts, None, stop, on)
    }

    /// [`Vault::watch`] that also keeps vectors current (see the module docs): `embedder` loads
    /// the model, on the embedding thread, the first time an update finds vectors for it.
    /// [`WatchEvent::Embedded`] reports each embedding round; a model that cannot be loaded, or
    /// vectors of another model, are reported once as [`WatchEvent::Problem`].
    pub fn watch_with(
        &self,
        opts: &WatchOptions,
        embedder: Option<EmbedderLoader<'_>>,
        stop: &AtomicBool,
        on: &mut dyn FnMut(WatchEvent),
    ) -> Result<()> {
        let Some(load) = embedder else {
            return self.watch_loop(opts, stop, on, &|| {}, &|_| {});
        };
        let kicks = Kicks::default();
        let (tx, rx) = mpsc::channel::<WatchEvent>();
        std::thread::scope(|scope| {
            let worker = scope.spawn(|| self.embed_worker(load, &kicks, tx));
            let r = self.watch_loop(opts, stop, on, &|| kicks.kick(), &|on| {
                for ev in rx.try_iter() {
                    on(ev);
                }
            });
            kicks.close();
            let _ = worker.join();
            for ev in rx.try_iter() {
                on(ev);
            }
            r
        })
    }

    /// The watcher proper: `kick` is called after every update that changed notes (and after
    /// the first), `drain` at least every 100 ms to pass on the embedding thread's events.
    fn watch_loop(
        &self,
        opts: &WatchOptions,
        stop: &AtomicBool,
        on: &mut dyn FnMut(WatchEvent),
        kick: &dyn Fn(),
        drain: Drain<'_>,
    ) -> Result<()> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let mut watcher = notify::recommended_watcher(move |ev| {
            let _ = tx.send(ev);
        })
        .map_err(|e| Error::invalid("watch", format!("cannot watch the vault: {e}")))?;
        // The folder of other processes' requests exists before the vault is watched, so the
        // watch covers it from the start (a folder made later is watched only once its own
        // creation event has been read, and a request in it before that would go unseen).
        let requests = sync::folder(self.index_dir());
        if self.root().is_dir() {
            let _ = std::fs::create_dir_all(&requests);
        }
        watcher
            .watch(self.root(), RecursiveMode::Recursive)
            .map_err(|e| {
                Error::invalid(
                    "watch",
                    format!("cannot watch {}: {e}", self.root().display()),
                )
            })?;
        let identity = RootIdentity::of(self.root()).ok_or_else(|| vanished(self.root()))?;
        let intact = || -> Result<()> {
            if RootIdentity::of(self.root()) == Some(identity) {
                Ok(())
            } else {
                Err(vanished(self.root()))
            }
        };
        let first = self.update_retrying(stop, false, Scope::All)?;
        // Whether every note has one path only, so the changed paths are all an update needs
        // to look at; otherwise every batch walks the whole vault.
        let mut feed = !first.links;
        // Now the index is current: answer other processes' updates (see `sync`), from before
        // `Started` is reported. The folder of requests is watched like the vault (on its own
        // when the index lies outside the vault).
        if !self.index_dir().starts_with(self.root()) {
            let _ = watcher.watch(&requests, RecursiveMode::NonRecursive);
        }
        let mut serving = sync::Serving::start(self.index_dir());
        let mut serving_tried = Instant::now();
        on(WatchEvent::Started {
            report: first.report,
        });
        // Chunks left without vectors while nothing watched are embedded too.
        kick();
        let mut last_update = Instant::now();
        while !stop.load(Ordering::Relaxed) {
            drain(on);
            intact()?;
            // The lock may have been busy (another watcher, or an update looking at it).
            if serving.is_none() && serving_tried.elapsed() >= Duration::from_secs(1) {
                serving = sync::Serving::start(self.index_dir());
                serving_tried = Instant::now();
            }
            let until_reconcile = opts
                .reconcile_every
                .saturating_sub(last_update.elapsed())
                .min(Duration::from_millis(100));
            let first = match rx.recv_timeout(until_reconcile) {
                Ok(ev) => ev,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if last_update.elapsed() >= opts.reconcile_every {
                        intact()?;
                        match self.update_retrying(stop, true, Scope::All) {
                            Ok(done) => {
                                feed = !done.links;
                                if !done.report.changes.is_empty() {
                                    kick();
                                    on(WatchEvent::Reconciled {
                                        report: done.report,
                                    })
                                }
                            }
                            Err(e) => on(WatchEvent::Problem(e)),
                        }
                        last_update = Instant::now();
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let started = Instant::now();
            let mut events = 0;
            let mut batch = Seen::default();
            let mut next = Some(first);
            // The quiet spell counts from the last relevant event: readers opening index files
            // (a search, a status) raise events too, and must not hold a save back until
            // max_delay.
            let mut last_relevant = started;
            // Close the batch after a quiet spell, or at max_delay, or at once when an update
            // asks: every change made before its request is already in the batch.
            loop {
                match next.take() {
                    Some(Ok(ev)) => {
                        if let Some(seen) = self.relevant(&ev, serving.as_ref()) {
                            if seen.requests.is_empty() {
                                last_relevant = Instant::now();
                                events += 1;
                            }
                            batch.removed_md.extend(seen.removed_md);
                            batch.created_md.extend(seen.created_md);
                            batch.paths.extend(seen.paths);
                            batch.whole |= seen.whole;
                            batch.requests.extend(seen.requests);
                        }
                    }
                    Some(Err(e)) => on(WatchEvent::Problem(Error::invalid(
                        "watch",
                        format!("watcher error: {e}"),
                    ))),
                    None => {}
                }
                if !batch.requests.is_empty() {
                    // Take what is already queued, then answer.
                    match rx.try_recv() {
                        Ok(ev) => {
                            next = Some(ev);
                            continue;
                        }
                        Err(_) => break,
                    }
                }
                // A note still missing that no new note in the batch accounts for (as a move
                // does) may be the first half of a delete-then-create: wait for it.
                let missing = batch.removed_md.iter().filter(|p| !p.exists()).count();
                let arrived = batch.created_md.iter().filter(|p| p.exists()).count();
                let quiet = if missing > arrived {
                    opts.removal_grace
                } else {
                    opts.debounce
                };
                let left = opts.max_delay.saturating_sub(started.elapsed());
                let wait = quiet.saturating_sub(last_relevant.elapsed());
                if left.is_zero() || wait.is_zero() {
                    break;
                }
                match rx.recv_timeout(wait.min(left)) {
                    Ok(ev) => next = Some(ev),
                    Err(_) => break,
                }
            }
            if events == 0 && batch.requests.is_empty() {
                continue;
            }
            let answer = |result: std::result::Result<&UpdateReport, &Error>| {
                if let Some(s) = &serving {
                    let answer = sync::Answer {
                        report: result.ok().cloned(),
                        error: result.err().map(Error::to_string),
                    };
                    for request in &batch.requests {
                        s.answer(request, &answer);
                    }
                }
            };
            if let Err(e) = intact() {
                answer(Err(&e));
                return Err(e);
            }
            let rescan = batch.whole;
            if rescan {
                on(WatchEvent::Rescanned);
            }
            batch.paths.sort();
            batch.paths.dedup();
            let scope = if feed && !rescan {
                Scope::Paths(&batch.paths)
            } else {
                Scope::All
            };
            match self.update_retrying(stop, rescan, scope) {
                Ok(done) => {
                    answer(Ok(&done.report));
                    feed = if done.whole {
                        !done.links
                    } else {
                        feed && !done.links
                    };
                    if !done.report.changes.is_empty() {
                        kick();
                    }
                    if events > 0 {
                        on(WatchEvent::Updated {
                            report: done.report,
                            events,
                            latency: started.elapsed(),
                        })
                    }
                }
                Err(e) => {
                    answer(Err(&e));
                    on(WatchEvent::Problem(e))
                }
            }
            last_update = Instant::now();
        }
        drop(watcher);
        Ok(())
    }

    /// The embedding thread of [`Vault::watch_with`]: waits for a kick, then embeds what the
    /// updates since the last round left without vectors, until the watcher closes `kicks`.
    fn embed_worker(&self, load: EmbedderLoader<'_>, kicks: &Kicks, tx: mpsc::Sender<WatchEvent>) {
        let pool = rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("mindex-embed-{i}"))
            .start_handler(|_| lower_priority())
            .build();
        let pool = match pool {
            Ok(p) => p,
            Err(e) => {
                let _ = tx.send(WatchEvent::Problem(Error::invalid(
                    "watch",
                    format!("vectors are not kept current: no embedding threads ({e})"),
                )));
                return;
            }
        };
        lower_priority();
        let mut model: Option<Box<dyn Embedder>> = None;
        let mut told = false;
        while let Some(since) = kicks.wait() {
            // Nothing to do (and no model to load) in a vault without vectors.
            let Some(vs) = self.vectors().status() else {
                continue;
            };
            if model.is_none() {
                match load() {
                    Ok(m) => model = Some(m),
                    Err(e) => {
                        if !std::mem::replace(&mut told, true) {
                            let _ = tx.send(WatchEvent::Problem(e));
                        }
                        continue;
                    }
                }
            }
            let Some(m) = model.as_deref() else { continue };
            match pool.install(|| self.refresh_vectors_until(m, Some(&kicks.closed))) {
                Ok(Some(report)) => {
                    if report.embedded > 0 || report.dropped > 0 {
                        let _ = tx.send(WatchEvent::Embedded {
                            report,
                            latency: since.elapsed(),
                        });
                    }
                }
                Ok(None) => {
                    if !std::mem::replace(&mut told, true) {
                        let _ = tx.send(WatchEvent::Problem(Error::VectorsMissing {
                            path: self.vectors_dir(),
                            model_id: format!(
                                "{} (the stored vectors are {}'s; watching keeps them as they are)",
                                m.model_id(),
                                vs.model_id
                            ),
                        }));
                    }
                }
                Err(Error::Busy { .. }) => {
                    // Another process is embedding (`mindex embed`, a hook's refresh): try
                    // again shortly, since it may have listed the chunks before this update.
                    kicks.kick_after(since, Duration::from_millis(500));
                }
                Err(e) => {
                    let _ = tx.send(WatchEvent::Problem(e));
                }
            }
        }
    }

    /// An update, retried while another process holds the index writer (bounded).
    fn update_retrying(&self, stop: &AtomicBool, verify: bool, scope: Scope) -> Result<Updated> {
        let deadline = Instant::now() + crate::vault::WRITER_WAIT;
        loop {
            match self.update_in(&NoProgress, verify, scope) {
                Err(Error::Busy { .. })
                    if Instant::now() < deadline && !stop.load(Ordering::Relaxed) =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => return other,
            }
        }
    }

    /// What an event can change in the index: nothing inside the index folder, `.git/` or any
    /// other hidden path (but `.obsidian/app.json`, the ignore filters), nothing for a mere read
    /// or metadata access; requests from other processes' updates are picked out (`serving`).
    fn relevant(&self, ev: &notify::Event, serving: Option<&sync::Serving>) -> Option<Seen> {
        if matches!(ev.kind, EventKind::Access(_)) {
            return None;
        }
        let mut seen = Seen {
            whole: ev.need_rescan(),
            ..Seen::default()
        };
        if let Some(s) = serving
            && matches!(ev.kind, EventKind::Create(_))
        {
            seen.requests = ev
                .paths
                .iter()
                .filter(|p| s.is_request(p))
                .cloned()
                .collect();
        }
        let paths: Vec<&PathBuf> = ev.paths.iter().filter(|p| !self.is_machinery(p)).collect();
        for p in &paths {
            let Some(rel) = p.strip_prefix(self.root()).ok().and_then(|r| r.to_str()) else {
                seen.whole = true;
                continue;
            };
            let rel = rel.replace(std::path::MAIN_SEPARATOR, "/");
            if rel.is_empty() || rel == ".obsidian" || rel == ".obsidian/app.json" {
                seen.whole = true;
            } else if !rel.split('/').any(|c| c.starts_with('.')) {
                seen.paths.push(rel);
            }
        }
        if seen.paths.is_empty() && !seen.whole && seen.requests.is_empty() {
            return None;
        }
        use notify::event::{ModifyKind, RenameMode};
        let md: Vec<PathBuf> = paths
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("md")))
            .map(|p| (*p).clone())
            .collect();
        (seen.removed_md, seen.created_md) = match ev.kind {
            EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(RenameMode::From)) => {
                (md, Vec::new())
            }
            EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(RenameMode::To)) => {
                (Vec::new(), md)
            }
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => {
                // paths = [from, to]
                let is_md = |p: &&PathBuf| md.contains(p);
                (
                    ev.paths
                        .first()
                        .filter(is_md)
                        .cloned()
                        .into_iter()
                        .collect(),
                    ev.paths.get(1).filter(is_md).cloned().into_iter().collect(),
                )
            }
            EventKind::Modify(ModifyKind::Name(_)) => md.into_iter().partition(|p| !p.exists()),
            _ => (Vec::new(), Vec::new()),
        };
        Some(seen)
    }

    fn is_machinery(&self, p: &Path) -> bool {
        if p.starts_with(self.index_dir()) {
            return true;
        }
        let Ok(rel) = p.strip_prefix(self.root()) else {
            return true;
        };
        rel.components()
            .next()
            .is_some_and(|c| c.as_os_str() == ".git")
    }
}

/// Requests for an embedding round, from the watcher to the embedding thread.
#[derive(Default)]
struct Kicks {
    /// Since when a round has been wanted (the first unserved kick).
    pending: Mutex<Option<Instant>>,
    wake: Condvar,
    /// Set when the watcher stops; also cancels a round between batches.
    closed: AtomicBool,
}

impl Kicks {
    fn kick(&self) {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        p.get_or_insert_with(Instant::now);
        self.wake.notify_one();
    }

    /// Asks for another round no sooner than `delay` from now, keeping `since`.
    fn kick_after(&self, since: Instant, delay: Duration) {
        let deadline = Instant::now() + delay;
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        while !self.closed.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            p = self
                .wake
                .wait_timeout(p, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let at = p.map_or(since, |t| t.min(since));
        *p = Some(at);
    }

    /// Waits for a kick and takes it: `Some(since)`, or `None` once closed.
    fn wait(&self) -> Option<Instant> {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.closed.load(Ordering::Relaxed) {
                return None;
            }
            if let Some(since) = p.take() {
                return Some(since);
            }
            p = self.wake.wait(p).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn close(&self) {
        let _p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        self.closed.store(true, Ordering::Relaxed);
        self.wake.notify_all();
    }
}

/// Lowers the calling thread's scheduling priority (Linux: nice 10, per thread), so background
/// embedding yields the cores to searches and updates.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its integer arguments; on Linux the nice value is per
    // thread, and gettid names the calling thread.
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}
