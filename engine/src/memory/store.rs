//! Memory files on disk: listing the store, the parse cache, exclusive-create writes and
//! supersession back-links.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::Serialize;

use super::text::Digest;
use super::{MEMORY_SOURCE, Memory};
use crate::error::{Error, Result};
use crate::markdown::frontmatter::{self, FmEdit, FmValue};

/// A memory with its similarity digest.
pub(crate) type Digested = (Arc<Memory>, Arc<Digest>);

/// What the last `MemoryStore::all` call did with its cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Files whose cached parse was reused (size, mtime, ctime and inode unchanged).
    pub hits: usize,
    /// Files read and parsed.
    pub misses: usize,
    /// Files that could not be read again, served from an older parse.
    pub stale: usize,
    /// Entries returned.
    pub size: usize,
}

/// Identity of one version of a file. `ctime` changes on every write and cannot be set back by
/// tools such as `touch`, so together with size, mtime and inode it tells a rewritten file from
/// an unchanged one without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileKey {
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
}

impl FileKey {
    fn of(m: &fs::Metadata) -> FileKey {
        let ns = |t: io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128)
        };
        #[cfg(unix)]
        let (ctime_ns, ino) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
                m.ino(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, ino) = (0, 0);
        FileKey {
            len: m.len(),
            mtime_ns: ns(m.modified()),
            ctime_ns,
            ino,
        }
    }
}

#[derive(Debug, Clone)]
struct Cached {
    key: FileKey,
    memory: Arc<Memory>,
    digest: Arc<Digest>,
}

/// The memory store under `<vault>/<root>/YYYY/MM/`, with a parse cache.
#[derive(Debug)]
pub(crate) struct MemoryStore {
    vault: PathBuf,
    root: String,
    lock_path: PathBuf,
    cache: Mutex<HashMap<String, Cached>>,
}

static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// Outcome of marking a memory superseded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SupersedeMark {
    /// The back-link was written.
    Marked,
    /// The back-link was already there.
    AlreadyPresent,
    /// Not marked, and why (the file is left unchanged).
    Refused(String),
}

impl MemoryStore {
    /// A store rooted at `<vault>/<root>`; `lock_path` serialises supersession edits across
    /// processes.
    pub fn new(vault: &Path, root: &str, lock_path: PathBuf) -> MemoryStore {
        MemoryStore {
            vault: vault.to_path_buf(),
            root: root.to_string(),
            lock_path,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The root folder, vault-relative.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Every `root/<year>/<month>/*.md` file as (vault-relative path, absolute path). Symlinked
    /// year or month folders are walked; broken links are skipped.
    /// Each file's metadata is read while its folder is open (a `fstatat` relative to the folder,
    /// following the file when it is a symlink), which halves the cost of a warm listing.
    fn list(&self) -> Vec<(String, PathBuf, io::Result<fs::Metadata>)> {
        let base = self.vault.join(&self.root);
        let dirs = |p: &Path| -> Vec<(String, PathBuf)> {
            let Ok(rd) = fs::read_dir(p) else {
                return Vec::new();
            };
            let mut v: Vec<(String, PathBuf)> = rd
                .flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter(|e| fs::metadata(e.path()).is_ok_and(|m| m.is_dir()))
                .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .collect();
            v.sort();
            v
        };
        let months: Vec<(String, PathBuf)> = dirs(&base)
            .into_iter()
            .flat_map(|(y, yp)| {
                dirs(&yp)
                    .into_iter()
                    .map(move |(m, mp)| (format!("{y}/{m}"), mp))
            })
            .collect();
        let mut out: Vec<(String, PathBuf, io::Result<fs::Metadata>)> = months
            .par_iter()
            .flat_map_iter(|(ym, mp)| {
                let mut v = Vec::new();
                if let Ok(rd) = fs::read_dir(mp) {
                    for e in rd.flatten() {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if name.starts_with('.') || !name.to_lowercase().ends_with(".md") {
                            continue;
                        }
                        let meta = match e.file_type() {
                            Ok(t) if t.is_symlink() => fs::metadata(e.path()),
                            _ => e.metadata(),
                        };
                        v.push((format!("{}/{ym}/{name}", self.root), e.path(), meta));
                    }
                }
                v
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Every file in the store, parsed (human notes too; callers filter with
    /// [`Memory::is_agent`]). Unchanged files are served from the cache.
    pub fn all(&self) -> (Vec<Arc<Memory>>, CacheStats) {
        let (entries, stats) = self.all_with_digests();
        (entries.into_iter().map(|(m, _)| m).collect(), stats)
    }

    /// [`MemoryStore::all`] plus each memory's similarity digest.
    pub fn all_with_digests(&self) -> (Vec<Digested>, CacheStats) {
        let files = self.list();
        // The lock is held through the (parallel, read-only) stat pass: writers only invalidate.
        let mut guard = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let old: &HashMap<String, Cached> = &guard;
        enum Got {
            Hit(Cached),
            Miss(Cached),
            Stale(Cached),
            Gone,
        }
        let got: Vec<(String, Got)> = files
            .par_iter()
            .map(|(rel, abs, meta)| {
                let prev = old.get(rel);
                let g = match meta {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Got::Gone,
                    Err(_) => prev.cloned().map_or(Got::Gone, Got::Stale),
                    Ok(m) => {
                        let key = FileKey::of(m);
                        match prev {
                            Some(c) if c.key == key => Got::Hit(c.clone()),
                            _ => match fs::read(abs) {
                                Ok(bytes) => {
                                    let md = String::from_utf8_lossy(&bytes);
                                    let memory = Memory::parse(rel, &md);
                                    let digest = Digest::new(
                                        memory.title.as_deref().unwrap_or(""),
                                        &memory.body,
                                    );
                                    Got::Miss(Cached {
                                        key,
                                        memory: Arc::new(memory),
                                        digest: Arc::new(digest),
                                    })
                                }
                                Err(_) => prev.cloned().map_or(Got::Gone, Got::Stale),
                            },
                        }
                    }
                };
                (rel.clone(), g)
            })
            .collect();
        let mut stats = CacheStats::default();
        let unchanged = got.len() == old.len() && got.iter().all(|(_, g)| matches!(g, Got::Hit(_)));
        let mut next = HashMap::with_capacity(if unchanged { 0 } else { got.len() });
        let mut out = Vec::with_capacity(got.len());
        for (rel, g) in got {
            let c = match g {
                Got::Hit(c) => {
                    stats.hits += 1;
                    c
                }
                Got::Miss(c) => {
                    stats.misses += 1;
                    c
                }
                Got::Stale(c) => {
                    stats.stale += 1;
                    c
                }
                Got::Gone => continue,
            };
            out.push((c.memory.clone(), c.digest.clone()));
            if !unchanged {
                next.insert(rel, c);
            }
        }
        stats.size = out.len();
        // Rebuilt only when something changed, so deleted files are evicted.
        if !unchanged {
            *guard = next;
        }
        (out, stats)
    }

    /// Forgets the cached parse of one file (called after every write to it).
    pub fn invalidate(&self, rel: &str) {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(rel);
    }

    /// Writes a new memory as `<root>/YYYY/MM/YYYY-MM-DD <slug>.md` (then ` (2)`, ` (3)` …) and
    /// returns its vault-relative path. An existing file is never overwritten.
    pub fn write(&self, date: (i64, u32, u32), slug: &str, content: &str) -> Result<String> {
        let (y, m, d) = date;
        let dir_rel = format!("{}/{y:04}/{m:02}", self.root);
        let dir = self.vault.join(&dir_rel);
        fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let stem = format!("{y:04}-{m:02}-{d:02} {slug}");
        let name = claim_file(
            &dir,
            content.as_bytes(),
            |n| {
                if n == 1 {
                    format!("{stem}.md")
                } else {
                    format!("{stem} ({n}).md")
                }
            },
            super::CLAIM_ATTEMPTS,
            "too many same-titled memories on one day",
        )?;
        let rel = format!("{dir_rel}/{name}");
        self.invalidate(&rel);
        Ok(rel)
    }

    /// Adds `new_title` to the `superseded_by` list of the memory at `rel`. Only engine-written
    /// memories (`source: mcp-capture`) are ever modified; the edit is atomic (temp file and
    /// rename) and serialised across processes by the store lock, so no back-link is lost.
    ///
    /// A human (or any tool that ignores the lock) may be editing the file at the same time, so
    /// no edit of theirs is ever dropped: right before the rename the file must still be the
    /// version read (same inode, size, mtime and ctime, same bytes), else the edit starts over
    /// on the new version; and after the rename the replaced file is watched for
    /// [`LATE_WRITE_GRACE`], because a writer that opened it just before writes into it rather
    /// than into the new file: appended bytes are appended to the new file, and a rewrite puts
    /// the writer's version back and starts over. After [`MARK_ATTEMPTS`] rounds of changes the
    /// back-link is refused, every edit kept.
    pub fn mark_superseded(&self, rel: &str, new_title: &str) -> SupersedeMark {
        let abs = self.vault.join(rel);
        let _lock = match lock_file(&self.lock_path) {
            Ok(l) => l,
            Err(e) => return SupersedeMark::Refused(format!("cannot lock the memory store: {e}")),
        };
        for _ in 0..MARK_ATTEMPTS {
            match mark_once(&abs, rel, new_title) {
                Ok(m) => {
                    if m == SupersedeMark::Marked {
                        self.invalidate(rel);
                    }
                    return m;
                }
                Err(Changed) => {
                    self.invalidate(rel);
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        }
        SupersedeMark::Refused(format!(
            "{rel} kept changing while its back-link was written (someone is editing it): not back-linked, every edit kept; supersede it again once the edit is done"
        ))
    }
}

/// How many times a back-link is tried while the memory keeps changing under it.
pub(crate) const MARK_ATTEMPTS: usize = 10;

/// How long the file a back-link replaced is watched for writes of editors that opened it just
/// before the rename (their bytes land in the replaced file, not the new one).
pub(crate) const LATE_WRITE_GRACE: std::time::Duration = std::time::Duration::from_millis(5);

/// The file changed under a back-link; start over.
struct Changed;

fn read_from_start(f: &mut File) -> io::Result<Vec<u8>> {
    use std::io::{Read as _, Seek as _};
    f.seek(io::SeekFrom::Start(0))?;
    let mut out = Vec::new();
    f.read_to_end(&mut out)?;
    Ok(out)
}

/// One round of [`MemoryStore::mark_superseded`] (the store lock held).
fn mark_once(
    abs: &Path,
    rel: &str,
    new_title: &str,
) -> std::result::Result<SupersedeMark, Changed> {
    let cannot_read = || SupersedeMark::Refused(format!("cannot read {rel}"));
    let Ok(mut old) = File::open(abs) else {
        return Ok(cannot_read());
    };
    let Ok(key) = old.metadata().map(|m| FileKey::of(&m)) else {
        return Ok(cannot_read());
    };
    let Ok(read) = read_from_start(&mut old) else {
        return Ok(cannot_read());
    };
    let Ok(md) = String::from_utf8(read) else {
        return Ok(SupersedeMark::Refused(format!(
            "refusing to modify {rel}: not UTF-8 text"
        )));
    };
    match frontmatter::parse_subset(&md).get("source") {
        Some(FmValue::Scalar(s)) if s == MEMORY_SOURCE => {}
        _ => {
            return Ok(SupersedeMark::Refused(format!(
                "refusing to modify {rel}: not an agent-written memory (source is not {MEMORY_SOURCE})"
            )));
        }
    }
    let next = match frontmatter::add_to_list(&md, "superseded_by", new_title) {
        FmEdit::Changed(s) => s,
        FmEdit::AlreadyPresent => return Ok(SupersedeMark::AlreadyPresent),
        FmEdit::NoFrontmatter => {
            return Ok(SupersedeMark::Refused(format!(
                "refusing to modify {rel}: no frontmatter"
            )));
        }
    };
    let dir = abs.parent().unwrap_or(Path::new("."));
    let tmp = temp_path(dir);
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(next.as_bytes())?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Ok(SupersedeMark::Refused(format!("cannot write {rel}: {e}")));
    }
    // Right before the rename: still the version read?
    let unchanged = fs::metadata(abs).is_ok_and(|m| FileKey::of(&m) == key)
        && read_from_start(&mut old).is_ok_and(|b| b == md.as_bytes());
    if !unchanged {
        let _ = fs::remove_file(&tmp);
        return Err(Changed);
    }
    if let Err(e) = fs::rename(&tmp, abs) {
        let _ = fs::remove_file(&tmp);
        return Ok(SupersedeMark::Refused(format!("cannot write {rel}: {e}")));
    }
    sync_dir(dir);
    // Writes of editors that opened the replaced file before the rename.
    let mut seen = md.into_bytes();
    let mut ours = next.into_bytes();
    for _ in 0..MARK_ATTEMPTS {
        std::thread::sleep(LATE_WRITE_GRACE);
        let Ok(late) = read_from_start(&mut old) else {
            break;
        };
        if late == seen {
            return Ok(SupersedeMark::Marked);
        }
        if let Some(extra) = late.strip_prefix(seen.as_slice()) {
            // Appended: the same bytes go to the end of the new file.
            let appended = OpenOptions::new()
                .append(true)
                .open(abs)
                .and_then(|mut f| f.write_all(extra).and_then(|()| f.sync_all()));
            if let Err(e) = appended {
                return Ok(SupersedeMark::Refused(format!(
                    "{rel} changed while its back-link was written and the change could not be carried over ({e}); the edit is in no file now, please redo it"
                )));
            }
            ours.extend_from_slice(extra);
            seen = late;
        } else {
            // Rewritten: the writer's version wins, plus whatever was appended to the new
            // file since; then the back-link starts over on top of it.
            let current = fs::read(abs).unwrap_or_default();
            if let Some(added) = current.strip_prefix(ours.as_slice()) {
                let mut restored = late;
                restored.extend_from_slice(added);
                if let Err(e) = replace_file(abs, &restored) {
                    return Ok(SupersedeMark::Refused(format!(
                        "{rel} was rewritten while its back-link was written and could not be restored ({e})"
                    )));
                }
            }
            return Err(Changed);
        }
    }
    Ok(SupersedeMark::Marked)
}

/// Takes an exclusive lock on `path` (created if missing), blocking until it is free.
pub(crate) fn lock_file(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    f.lock()?;
    Ok(f)
}

fn temp_path(dir: &Path) -> PathBuf {
    let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".mindex-{}-{seq}.tmp", std::process::id()))
}

/// Removes the temp files of writers that died before cleaning up (killed between the temp write
/// and the link): a temp whose process is gone, or (where that cannot be told) older than an hour.
fn sweep_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let Some(rest) = name
            .strip_prefix(".mindex-")
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let pid: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let stale = match pid {
            Some(p) if p == std::process::id() => false,
            #[cfg(target_os = "linux")]
            Some(p) => !Path::new(&format!("/proc/{p}")).exists(),
            _ => e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| m.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(3600)),
        };
        if stale {
            let _ = fs::remove_file(e.path());
        }
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Writes `content` to a new file in `dir` named by `name_for(1)`, `name_for(2)` … (first free
/// name wins) and returns the name. The content is written and synced to a temp file first and
/// then hard-linked into place, which fails rather than overwrite: a reader never sees a
/// half-written file under the final name, and no temp file is left behind.
pub(crate) fn claim_file(
    dir: &Path,
    content: &[u8],
    name_for: impl Fn(usize) -> String,
    attempts: usize,
    exhausted: &str,
) -> Result<String> {
    sweep_stale_temps(dir);
    let tmp = temp_path(dir);
    let write_tmp = || -> io::Result<()> {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(content)?;
        f.sync_all()
    };
    if let Err(e) = write_tmp() {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(&tmp, e));
    }
    let result = (|| {
        for n in 1..=attempts {
            let name = name_for(n);
            let target = dir.join(&name);
            match place(&tmp, &target, content) {
                Ok(()) => return Ok(name),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io(&target, e)),
            }
        }
        Err(Error::invalid("title", exhausted))
    })();
    let _ = fs::remove_file(&tmp);
    sync_dir(dir);
    result
}

/// Puts `tmp`'s content at `target` unless `target` exists: a hard link where the filesystem
/// has them, else an exclusive create and write.
fn place(tmp: &Path, target: &Path, content: &[u8]) -> io::Result<()> {
    match fs::hard_link(tmp, target) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(target)?;
            let r = f.write_all(content).and_then(|()| f.sync_all());
            if r.is_err() {
                let _ = fs::remove_file(target);
            }
            r
        }
    }
}

/// Replaces `path`'s content atomically (temp file in the same folder, fsync, rename).
pub(crate) fn replace_file(path: &Path, content: &[u8]) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = temp_path(dir);
    let r = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(content)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if r.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    sync_dir(dir);
    r
}
