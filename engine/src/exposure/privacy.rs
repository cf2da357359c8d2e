//! Privacy verdicts for many files at once ([`Exposure::withheld_from_agents_all`]), with the
//! verdicts on notes kept in a cache so that a vault of 200,000 notes is not re-read and
//! re-parsed each time an agent session starts.
//!
//! Judging a note private means reading its head and parsing its frontmatter
//! ([`note_is_private`](super::note_is_private)); for every note of a big vault that is seconds. The cache
//! (`privacy.cache` in the index folder) keeps, per note, the verdict and the file's stat when
//! it was judged: size, mtime, inode change time (ctime), inode and device. A verdict is reused
//! only when the file's stat now is equal in all five, so the file is the same inode, unchanged:
//! every write, truncation, rename onto the path or `touch` moves ctime, and no user tool can
//! set ctime back (unlike mtime). A verdict is stored only for a file whose ctime is at least
//! [`SETTLE_NS`] older than the scan that stated it: a change in the same clock tick as the
//! stat could otherwise leave ctime equal (the "racy" case git knows), and such a file is
//! simply judged again next time.
//!
//! The cache is a hint that can only be missing or stale in the safe direction: a file that is
//! missing, cut short, of another format or engine version, or whose checksum fails, is read as
//! empty, and every note is judged from its bytes. Where the platform has no ctime or inode
//! (not Unix), nothing is cached.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rayon::prelude::*;

use super::{Exposure, RealPaths, note_verdict};
use crate::markdown::frontmatter::Privacy;
use crate::walk::FileStat;

/// The cache file in the index folder.
pub const PRIVACY_CACHE_FILE: &str = "privacy.cache";

/// Bumped whenever what makes a note private changes, so verdicts of the old rules are dropped.
const FORMAT: u32 = 1;

const MAGIC: &[u8; 8] = b"MXPRIVC\n";

/// How much older than the scan a file's ctime must be for its verdict to be kept.
pub const SETTLE_NS: i64 = 1_000_000_000;

/// One cached verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    rel: String,
    stat: FileStat,
    /// What the note's head said: [`Privacy::Public`], [`Privacy::Private`] or
    /// [`Privacy::Capture`].
    verdict: Privacy,
}

/// A file to judge, as a walk listed it.
#[derive(Debug, Clone, Copy)]
pub struct ListedFile<'a> {
    /// Vault-relative, `/`-separated.
    pub rel: &'a str,
    /// Its stat when it was listed (a followed symlink's target's); `None` when unknown.
    pub stat: Option<FileStat>,
    /// Whether the walk reached it through a symlink (the file's own, or a folder's above it),
    /// or may have: its real path is then judged as well as the path it was listed under.
    pub through_link: bool,
}

impl Exposure {
    /// Whether each of `files` is withheld from every agent, as
    /// [`Exposure::withheld_from_agents`] says: a never-exposed name, a markdown note marked
    /// private ([`note_is_private`](super::note_is_private)), or, for a file reached through a symlink, a real path
    /// that is never exposed, hidden, outside the vault, not markdown where the link is, or in
    /// the memory store when the link is not. Judged in parallel, in the order given.
    ///
    /// With `index_dir` (an existing folder), verdicts on notes come from and go to its
    /// `privacy.cache` (see the module docs): a note whose stat is unchanged since it was last
    /// judged is not read again. A verdict is kept only when the file read is the file listed
    /// (equal stats). `scanned_at` is when the stats were taken (before the first).
    pub fn withheld_from_agents_all(
        &self,
        files: &[ListedFile<'_>],
        index_dir: Option<&Path>,
        scanned_at: SystemTime,
    ) -> Vec<bool> {
        let cache_path = index_dir
            .filter(|d| d.is_dir())
            .map(|d| d.join(PRIVACY_CACHE_FILE));
        let cached = cache_path.as_deref().map(load).unwrap_or_default();
        let scanned_ns = scanned_at
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64);
        let reals = files
            .iter()
            .any(|f| f.through_link)
            .then(|| RealPaths::new(&self.vault_root, &self.memory_roots, &[]));
        // (withheld, the verdict to keep for a note, whether it came from the cache)
        let judged: Vec<(bool, Option<Entry>, bool)> = files
            .par_iter()
            .map(|f| {
                let rel = f.rel;
                if self.is_never_exposed(rel) {
                    return (true, None, false);
                }
                if let Some(reals) = &reals
                    && f.through_link
                    && self.withheld_by_real_path(reals, rel)
                {
                    return (true, None, false);
                }
                if !crate::markdown::is_markdown_name(super::last_segment(rel)) {
                    return (false, None, false);
                }
                let settled = f.stat.filter(|st| {
                    st.has_identity() && st.ctime_ns < scanned_ns.saturating_sub(SETTLE_NS)
                });
                // A memory outside the store is withheld like a private note; the store's own
                // are kept (they are only counted, never listed).
                let withheld = |verdict: Privacy| match verdict {
                    Privacy::Public => false,
                    Privacy::Capture => !crate::walk::is_within(rel, &self.memory_root),
                    Privacy::Private | Privacy::Unclosed => true,
                };
                if let Some(st) = f.stat.filter(FileStat::has_identity)
                    && let Ok(i) = cached.binary_search_by(|e| e.rel.as_str().cmp(rel))
                    && cached[i].stat == st
                {
                    let verdict = cached[i].verdict;
                    let keep = settled.map(|stat| Entry {
                        rel: rel.to_string(),
                        stat,
                        verdict,
                    });
                    return (withheld(verdict), keep, true);
                }
                let (verdict, read) = note_verdict(&self.vault_root.join(rel));
                // Kept only when the file read is the one listed: a path re-pointed or
                // replaced between the listing and the read is judged again next time.
                let keep = settled
                    .filter(|stat| read.as_ref() == Some(stat))
                    .map(|stat| Entry {
                        rel: rel.to_string(),
                        stat,
                        verdict,
                    });
                (withheld(verdict), keep, false)
            })
            .collect();
        if let Some(path) = cache_path {
            let all_hits = judged.iter().filter(|j| j.2).count() == cached.len()
                && judged.iter().all(|j| j.1.is_none() || j.2);
            if !all_hits {
                let mut keep: Vec<Entry> = judged.iter().filter_map(|j| j.1.clone()).collect();
                keep.sort_by(|a, b| a.rel.cmp(&b.rel));
                keep.dedup_by(|a, b| a.rel == b.rel);
                // A cache that cannot be written only costs the next scan its reads.
                let _ = crate::atomic::write_replace(&path, &encode(&keep));
            }
        }
        judged.into_iter().map(|j| j.0).collect()
    }
}

impl Exposure {
    /// Whether the file at `rel`, reached through a symlink, is withheld by where it really is
    /// ([`Exposure::real_path_denied`] below the vault's real path; the memory store only when
    /// the listed path is not in it). Fail closed: a path that does not resolve inside the
    /// vault is withheld.
    fn withheld_by_real_path(&self, reals: &RealPaths, rel: &str) -> bool {
        let Some(vault) = reals.vault(&self.vault_root) else {
            return true;
        };
        let Ok(real) = std::fs::canonicalize(self.vault_root.join(rel)) else {
            return true;
        };
        let Ok(inside) = real.strip_prefix(vault) else {
            return true;
        };
        let listed_in_memory = self.memory_root.is_empty()
            || self
                .memory_roots
                .iter()
                .any(|m| crate::walk::is_within(rel, m));
        let memory: &[PathBuf] = if listed_in_memory { &[] } else { &reals.memory };
        let markdown = crate::markdown::is_markdown_name(super::last_segment(rel));
        self.real_path_denied(&real, inside, markdown, memory)
            .is_some()
    }
}

/// How many verdicts [`note_verdict_settled`] keeps in memory before starting afresh.
const MEMO_CAP: usize = 1 << 16;

/// Verdicts on notes already judged by this process, by real path, with the file's stat then.
static MEMO: std::sync::LazyLock<std::sync::RwLock<HashMap<PathBuf, (FileStat, Privacy)>>> =
    std::sync::LazyLock::new(Default::default);

/// [`note_verdict`](super::note_verdict) for a long-lived process (the MCP servers check
/// every hit they return): a verdict is reused while the file's stat (one `stat`) is equal in
/// size, mtime, ctime, inode and device, under the rules of the on-disk cache (kept only for a
/// file settled [`SETTLE_NS`] before it was judged, and only when the file read is the file
/// stated). A file that cannot be stated is private.
pub(crate) fn note_verdict_settled(path: &Path) -> Privacy {
    let Ok(meta) = std::fs::metadata(path) else {
        return Privacy::Private;
    };
    let stat = FileStat::of(&meta);
    if !stat.has_identity() {
        return note_verdict(path).0;
    }
    let memo = |m: &HashMap<PathBuf, (FileStat, Privacy)>| {
        m.get(path).filter(|(s, _)| *s == stat).map(|(_, p)| *p)
    };
    if let Some(verdict) = memo(&MEMO.read().unwrap_or_else(|e| e.into_inner())) {
        return verdict;
    }
    let (verdict, read) = note_verdict(path);
    let now_ns = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64);
    if read == Some(stat) && stat.ctime_ns < now_ns.saturating_sub(SETTLE_NS) {
        let mut m = MEMO.write().unwrap_or_else(|e| e.into_inner());
        if m.len() >= MEMO_CAP {
            m.clear();
        }
        m.insert(path.to_path_buf(), (stat, verdict));
    }
    verdict
}

/// The engine version, so that any release drops the verdicts of the one before.
fn version_tag() -> &'static [u8] {
    // The engine version, and the cache's own layout (2: a verdict byte that can say
    // "memory").
    concat!(env!("CARGO_PKG_VERSION"), "+2").as_bytes()
}

fn encode(entries: &[Entry]) -> Vec<u8> {
    let mut body = Vec::with_capacity(entries.len() * 80);
    for e in entries {
        body.extend_from_slice(&(e.rel.len() as u32).to_le_bytes());
        body.extend_from_slice(e.rel.as_bytes());
        body.extend_from_slice(&e.stat.size.to_le_bytes());
        body.extend_from_slice(&e.stat.mtime_ns.to_le_bytes());
        body.extend_from_slice(&e.stat.ctime_ns.to_le_bytes());
        body.extend_from_slice(&e.stat.ino.to_le_bytes());
        body.extend_from_slice(&e.stat.dev.to_le_bytes());
        body.push(match e.verdict {
            Privacy::Public => 0,
            Privacy::Private | Privacy::Unclosed => 1,
            Privacy::Capture => 2,
        });
    }
    let tag = version_tag();
    let mut out = Vec::with_capacity(body.len() + 40 + tag.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(tag.len() as u32).to_le_bytes());
    out.extend_from_slice(tag);
    out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// The cached verdicts, sorted by path; empty when the file is missing or not a whole cache of
/// this format and version.
fn load(path: &Path) -> Vec<Entry> {
    std::fs::read(path)
        .ok()
        .and_then(|b| decode(&b))
        .unwrap_or_default()
}

fn decode(b: &[u8]) -> Option<Vec<Entry>> {
    let mut r = Reader { b, at: 0 };
    if r.take(8)? != MAGIC || r.u32()? != FORMAT {
        return None;
    }
    let tag_len = r.u32()? as usize;
    if r.take(tag_len)? != version_tag() {
        return None;
    }
    let count = r.u64()?;
    let sum = r.u64()?;
    if xxhash_rust::xxh3::xxh3_64(&b[r.at..]) != sum {
        return None;
    }
    let mut out = Vec::with_capacity(count.min(1 << 24) as usize);
    for _ in 0..count {
        let len = r.u32()? as usize;
        let rel = std::str::from_utf8(r.take(len)?).ok()?.to_string();
        let stat = FileStat {
            size: r.u64()?,
            mtime_ns: r.u64()? as i64,
            ctime_ns: r.u64()? as i64,
            ino: r.u64()?,
            dev: r.u64()?,
        };
        let verdict = match r.take(1)?[0] {
            0 => Privacy::Public,
            1 => Privacy::Private,
            2 => Privacy::Capture,
            _ => return None,
        };
        out.push(Entry { rel, stat, verdict });
    }
    let sorted = out.windows(2).all(|w| w[0].rel < w[1].rel);
    (r.at == b.len() && sorted).then_some(out)
}

/// Little-endian reads that answer `None` past the end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::walk::stat_all;
    use std::fs;
    use std::path::PathBuf;
    use std::time::Duration;

    fn policy(root: &Path) -> Exposure {
        Exposure::with_roots(
            root,
            vec!["notes".into()],
            vec!["secrets.md".into()],
            "memories",
        )
    }

    /// Stats `rels` under `root` as a hook's scan does.
    fn stats(root: &Path, rels: &[&str]) -> Vec<Option<FileStat>> {
        let paths: Vec<(PathBuf, Option<FileStat>)> =
            rels.iter().map(|r| (root.join(r), None)).collect();
        stat_all(&paths).into_iter().map(|s| s.ok()).collect()
    }

    fn judge(ex: &Exposure, root: &Path, index: &Path, rels: &[&str], at: SystemTime) -> Vec<bool> {
        let st = stats(root, rels);
        let files: Vec<ListedFile> = rels
            .iter()
            .zip(st)
            .map(|(rel, stat)| ListedFile {
                rel,
                stat,
                through_link: false,
            })
            .collect();
        ex.withheld_from_agents_all(&files, Some(index), at)
    }

    /// Sets a file's mtime back to what it was, as `touch -r` or a tool keeping mtimes does.
    fn set_mtime(path: &Path, mtime: SystemTime) {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(mtime).unwrap();
    }

    #[test]
    fn verdicts_are_reused_only_for_unchanged_files_and_never_go_stale() {
        let vault = tempfile::tempdir().unwrap();
        let index = tempfile::tempdir().unwrap();
        let root = vault.path();
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::write(root.join("notes/open.md"), "---\ntitle: Open\n---\nbody\n").unwrap();
        fs::write(
            root.join("notes/closed.md"),
            "---\nprivate: true\n---\nbody\n",
        )
        .unwrap();
        fs::write(root.join("notes/secrets.md"), "plain\n").unwrap();
        fs::write(root.join("notes/data.csv"), "a,b\n").unwrap();
        let rels = [
            "notes/closed.md",
            "notes/data.csv",
            "notes/open.md",
            "notes/secrets.md",
        ];
        let ex = policy(root);
        // Files changed within the settle time are judged but not kept.
        let now = SystemTime::now();
        assert_eq!(
            judge(&ex, root, index.path(), &rels, now),
            [true, false, false, true]
        );
        assert!(load(&index.path().join(PRIVACY_CACHE_FILE)).is_empty());
        // Judged a while later: kept, and a second judging agrees.
        let later = now + Duration::from_secs(5);
        assert_eq!(
            judge(&ex, root, index.path(), &rels, later),
            [true, false, false, true]
        );
        let cached = load(&index.path().join(PRIVACY_CACHE_FILE));
        let names: Vec<&str> = cached.iter().map(|e| e.rel.as_str()).collect();
        assert_eq!(names, ["notes/closed.md", "notes/open.md"]);
        assert_eq!(
            judge(&ex, root, index.path(), &rels, later),
            [true, false, false, true]
        );

        // The cache is used: a verdict planted for an unchanged file is what comes back.
        let mut planted = cached.clone();
        planted[1].verdict = Privacy::Private;
        crate::atomic::write_replace(&index.path().join(PRIVACY_CACHE_FILE), &encode(&planted))
            .unwrap();
        assert!(judge(&ex, root, index.path(), &rels, later)[2]);
        crate::atomic::write_replace(&index.path().join(PRIVACY_CACHE_FILE), &encode(&cached))
            .unwrap();

        // An edit to private with the same size and the old mtime put back is still seen:
        // ctime moved.
        let open = root.join("notes/open.md");
        let before = fs::metadata(&open).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let size = fs::metadata(&open).unwrap().len();
        fs::write(&open, "---\nprivate: ok\n---\nbody\n").unwrap();
        assert_eq!(fs::metadata(&open).unwrap().len(), size);
        set_mtime(&open, before);
        let later = SystemTime::now() + Duration::from_secs(5);
        assert_eq!(
            judge(&ex, root, index.path(), &rels, later),
            [true, false, true, true]
        );
        // A file replaced by another (a rename over it) is judged afresh.
        fs::write(root.join("notes/new.md"), "---\ntitle: Open\n---\nbody\n").unwrap();
        fs::rename(root.join("notes/new.md"), root.join("notes/closed.md")).unwrap();
        assert_eq!(
            judge(&ex, root, index.path(), &rels, later),
            [false, false, true, true]
        );
    }

    fn listed<'a>(rels: &[&'a str], stats: &[Option<FileStat>], link: bool) -> Vec<ListedFile<'a>> {
        rels.iter()
            .zip(stats)
            .map(|(rel, stat)| ListedFile {
                rel,
                stat: *stat,
                through_link: link,
            })
            .collect()
    }

    #[test]
    fn a_verdict_is_kept_only_for_the_file_that_was_listed() {
        // The folder is swapped for another between the listing and the read, then swapped
        // back: the private note comes back with the very stat that was listed.
        let vault = tempfile::tempdir().unwrap();
        let index = tempfile::tempdir().unwrap();
        let root = vault.path();
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::write(root.join("notes/a.md"), "---\nprivate: true\n---\nsecret\n").unwrap();
        let ex = policy(root);
        let rels = ["notes/a.md"];
        let st = stats(root, &rels);
        let later = SystemTime::now() + Duration::from_secs(5);
        fs::rename(root.join("notes"), root.join("notes.old")).unwrap();
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::write(root.join("notes/a.md"), "---\ntitle: public\n---\nplain\n").unwrap();
        let files = listed(&rels, &st, false);
        assert_eq!(
            ex.withheld_from_agents_all(&files, Some(index.path()), later),
            [false]
        );
        assert!(load(&index.path().join(PRIVACY_CACHE_FILE)).is_empty());
        fs::remove_dir_all(root.join("notes")).unwrap();
        fs::rename(root.join("notes.old"), root.join("notes")).unwrap();
        assert_eq!(stats(root, &rels), st);
        assert_eq!(
            ex.withheld_from_agents_all(&files, Some(index.path()), later),
            [true]
        );
    }

    #[test]
    fn a_file_reached_through_a_symlink_is_judged_where_it_really_is() {
        use std::os::unix::fs::symlink;
        let vault = tempfile::tempdir().unwrap();
        let root = vault.path();
        for dir in ["notes", "memories/projb", ".hidden", "real"] {
            fs::create_dir_all(root.join(dir)).unwrap();
        }
        fs::write(root.join("secrets.md"), "plain words\n").unwrap();
        fs::write(root.join("memories/projb/m.md"), "a lesson\n").unwrap();
        fs::write(root.join(".hidden/h.md"), "hidden\n").unwrap();
        fs::write(root.join("data.csv"), "a,b\n").unwrap();
        fs::write(root.join("real/ok.md"), "fine\n").unwrap();
        symlink(root.join("secrets.md"), root.join("notes/plan.md")).unwrap();
        symlink(root.join("memories/projb/m.md"), root.join("notes/m.md")).unwrap();
        symlink(root.join(".hidden/h.md"), root.join("notes/h.md")).unwrap();
        symlink(root.join("data.csv"), root.join("notes/data.md")).unwrap();
        symlink(root.join("nowhere.md"), root.join("notes/broken.md")).unwrap();
        symlink(root.join("real"), root.join("notes/linked")).unwrap();
        let rels = [
            "notes/plan.md",
            "notes/m.md",
            "notes/h.md",
            "notes/data.md",
            "notes/broken.md",
            "notes/linked/ok.md",
            "memories/projb/m.md",
        ];
        let ex = policy(root);
        let none = vec![None; rels.len()];
        let at = SystemTime::now();
        assert_eq!(
            ex.withheld_from_agents_all(&listed(&rels, &none, true), None, at),
            [true, true, true, true, true, false, false]
        );
        // Judged by the listed path alone, the links would pass (so the flag is what holds).
        assert_eq!(
            ex.withheld_from_agents_all(&listed(&rels[..4], &none[..4], false), None, at),
            [false, false, false, false]
        );
        assert!(ex.withheld_from_agents("notes/plan.md"));
        assert!(!ex.withheld_from_agents("notes/linked/ok.md"));
    }

    #[test]
    fn the_in_memory_verdicts_are_used_only_while_the_stat_is_unchanged() {
        let vault = tempfile::tempdir().unwrap();
        let note = vault.path().join("n.md");
        fs::write(&note, "---\ntitle: open\n---\nbody\n").unwrap();
        assert_eq!(note_verdict_settled(&note), Privacy::Public);
        // Just written: not settled, so not kept.
        assert!(!MEMO.read().unwrap().contains_key(&note));
        // A verdict planted for the file's present stat is what comes back (the memo is used).
        let stat = FileStat::of(&fs::metadata(&note).unwrap());
        MEMO.write()
            .unwrap()
            .insert(note.clone(), (stat, Privacy::Private));
        assert_eq!(note_verdict_settled(&note), Privacy::Private);
        // An edit to public with the same size and the old mtime moves ctime: judged again.
        let mtime = fs::metadata(&note).unwrap().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        fs::write(&note, "---\ntitle: shut\n---\nbody\n").unwrap();
        set_mtime(&note, mtime);
        assert_eq!(note_verdict_settled(&note), Privacy::Public);
        fs::write(&note, "---\nprivate: yes\n---\nbody\n").unwrap();
        assert_eq!(note_verdict_settled(&note), Privacy::Private);
        fs::remove_file(&note).unwrap();
        assert_eq!(
            note_verdict_settled(&note),
            Privacy::Private,
            "a missing note is withheld"
        );
    }

    #[test]
    fn a_damaged_or_foreign_cache_is_read_as_empty() {
        let e = Entry {
            rel: "a.md".into(),
            stat: FileStat {
                size: 1,
                mtime_ns: 2,
                ctime_ns: 3,
                ino: 4,
                dev: 5,
            },
            verdict: Privacy::Private,
        };
        let good = encode(std::slice::from_ref(&e));
        assert_eq!(decode(&good), Some(vec![e.clone()]));
        for cut in 0..good.len() {
            assert_eq!(decode(&good[..cut]), None, "cut at {cut}");
        }
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() = 0;
        assert_eq!(decode(&flipped), None);
        let mut other = good.clone();
        other[8] ^= 1;
        assert_eq!(decode(&other), None);
        let mut longer = good;
        longer.push(0);
        assert_eq!(decode(&longer), None);
    }
}
