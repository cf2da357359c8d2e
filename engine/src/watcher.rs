//! Asking a running watcher instead of walking the vault: the watcher's client, below the vault
//! (an update asks here; `watch` serves the requests).
//!
//! A watcher that has brought the index up to date holds an exclusive lock on
//! `<index>/watch/lock` for as long as it watches. While it does, [`crate::Vault::update`] does
//! not walk the vault: it drops a request file (`<id>.sync`) into `<index>/watch/` and waits for
//! the watcher's answer (`<id>.done`, the report of an update). The request is itself a
//! filesystem event, queued by the kernel behind every change made before it, so by the time the
//! watcher reads it, it has read every earlier change too: it applies them (only the paths they
//! name, no walk) and answers. The answer covers everything on disk before the request, which is
//! what an update promises. (Watchman's "cookie" files work the same way.)
//!
//! Nothing here can make an update wrong, only slower: when no watcher holds the lock, when it
//! stops while the request waits, when it answers with an error, or when no answer comes within
//! [`WRITER_WAIT`](crate::vault::WRITER_WAIT), the update walks the vault itself.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::report::UpdateReport;

/// The folder of the lock, requests and answers, inside the index folder.
pub(crate) fn folder(index_dir: &Path) -> PathBuf {
    index_dir.join("watch")
}

const REQUEST: &str = "sync";
const ANSWER: &str = "done";

/// The watcher's answer to one request.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Answer {
    /// The update that covered the request.
    pub report: Option<UpdateReport>,
    /// Why there is no report (the requester then walks the vault itself).
    pub error: Option<String>,
}

/// The watcher's side: the lock, held while it watches.
pub(crate) struct Serving {
    dir: PathBuf,
    _lock: fs::File,
}

impl Serving {
    /// Takes the lock; `None` when another watcher holds it (that one answers) or the folder
    /// cannot be made (then updates simply walk). Requests left by requesters that died are
    /// removed.
    pub(crate) fn start(index_dir: &Path) -> Option<Serving> {
        let dir = folder(index_dir);
        fs::create_dir_all(&dir).ok()?;
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("lock"))
            .ok()?;
        lock.try_lock().ok()?;
        if let Ok(entries) = fs::read_dir(&dir) {
            for e in entries.flatten() {
                let p = e.path();
                let ext = p.extension().and_then(|x| x.to_str());
                if matches!(ext, Some(REQUEST) | Some(ANSWER) | Some("tmp")) {
                    let _ = fs::remove_file(&p);
                }
            }
        }
        Some(Serving { dir, _lock: lock })
    }

    /// Whether `path` (from a filesystem event) is a request to this watcher.
    pub(crate) fn is_request(&self, path: &Path) -> bool {
        path.parent() == Some(self.dir.as_path()) && path.extension().is_some_and(|x| x == REQUEST)
    }

    /// Answers a request (written whole, then renamed into place); a request whose requester
    /// has gone (its file removed) gets no answer.
    pub(crate) fn answer(&self, request: &Path, answer: &Answer) {
        if !request.exists() {
            return;
        }
        let done = request.with_extension(ANSWER);
        let tmp = request.with_extension("tmp");
        let Ok(json) = serde_json::to_vec(answer) else {
            return;
        };
        if fs::write(&tmp, json).is_ok() && fs::rename(&tmp, &done).is_err() {
            let _ = fs::remove_file(&tmp);
        }
    }
}

/// Whether a watcher holds the lock of `dir`.
fn watched(dir: &Path) -> bool {
    let Ok(lock) = fs::File::open(dir.join("lock")) else {
        return false;
    };
    matches!(lock.try_lock_shared(), Err(fs::TryLockError::WouldBlock))
}

/// The requester's side: the report of an update made by the running watcher, or `None` when
/// there is none to ask (or it did not answer): the caller then walks the vault itself.
pub(crate) fn ask(index_dir: &Path, wait: Duration) -> Option<UpdateReport> {
    let dir = folder(index_dir);
    if !watched(&dir) {
        return None;
    }
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seq = SEQ.fetch_add(1, Ordering::Relaxed);
    let id = format!("{}-{nanos}-{seq}", std::process::id());
    let request = dir.join(format!("{id}.{REQUEST}"));
    let done = request.with_extension(ANSWER);
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&request)
        .ok()?;
    let cleanup = || {
        let _ = fs::remove_file(&request);
        let _ = fs::remove_file(&done);
    };
    let t0 = Instant::now();
    let deadline = t0 + wait;
    let mut checked = Instant::now();
    let answer = loop {
        match fs::read(&done) {
            Ok(bytes) => break serde_json::from_slice::<Answer>(&bytes).ok(),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(_) => break None,
        }
        if Instant::now() >= deadline {
            break None;
        }
        // A watcher that stopped answers nothing: stop waiting for it.
        if checked.elapsed() >= Duration::from_millis(50) {
            if !watched(&dir) {
                break None;
            }
            checked = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    cleanup();
    let mut report = answer.and_then(|a| a.report)?;
    report.by_watcher = true;
    report.elapsed_ms = t0.elapsed().as_millis() as u64;
    Some(report)
}
