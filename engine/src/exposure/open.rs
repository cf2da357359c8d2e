//! Reading a note for an agent from one open file: the path is checked, the file opened once,
//! and the opened file is then verified to be the one checked, so a symlink or file swapped in
//! between check and read is refused instead of served.
//!
//! 1. [`Exposure::may_read`] checks the path and gives the note's real path.
//! 2. The path is opened once (non-blocking, so a FIFO swapped in cannot hang the reader).
//! 3. The open file must be a regular file and the checked one: on Linux the kernel's name for
//!    the descriptor (`/proc/self/fd/N`) must equal the checked real path; elsewhere, or when
//!    `/proc` is missing, device and inode from `fstat` must equal those of the real path.
//! 4. At most `cap` bytes are read from that same descriptor, and privacy is judged on the
//!    bytes actually read ([`is_private`] over their first 64,000 characters, the window
//!    [`super::note_is_private`] re-reads), so a note edited to private in between is withheld.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

use super::{Denied, Exposure, is_private};

/// Characters of the text read that privacy is judged on: the long window of
/// [`super::note_is_private`], so both verdicts agree on an unchanged note.
const PRIVACY_CHARS: usize = 64_000;

/// A note read for an agent by [`open_visible`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenedNote {
    /// The vault-relative path asked for.
    pub rel: String,
    /// The text read (lossily decoded; a cut multi-byte character at the end is dropped).
    pub text: String,
    /// The file's size in bytes, from the open file.
    pub size: u64,
    /// Whether `text` holds only the first `cap` bytes of the file.
    pub truncated: bool,
}

/// Reads the note at `rel` for an agent: the path must pass [`Exposure::may_read`], the file is
/// opened once and verified to be the checked one, at most `cap` bytes are read from it, and
/// the bytes read must not mark the note private.
pub fn open_visible(ex: &Exposure, rel: &str, cap: usize) -> Result<OpenedNote, Denied> {
    let real = ex.may_read(rel)?;
    // The path as checked: `\` read as `/`, empty and `.` segments dropped.
    let checked = super::rel_segments(rel)?.join("/");
    let file = open_once(&ex.vault_root().join(checked)).map_err(|_| Denied::Missing)?;
    let meta = file.metadata().map_err(|_| Denied::Missing)?;
    if !meta.is_file() {
        return Err(Denied::Missing);
    }
    if !is_the_checked_file(&file, &meta, &real) {
        return Err(Denied::Escapes);
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(cap).min(cap) + 1);
    (&file)
        .take(cap as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| Denied::Private)?;
    let truncated = bytes.len() > cap;
    bytes.truncate(cap);
    // A file the index skips as binary (UTF-16, say) is not a note an agent may read: its
    // frontmatter cannot be judged.
    if crate::markdown::looks_binary(&bytes) {
        return Err(Denied::Private);
    }
    let text = decode(bytes, truncated);
    let head = crate::markdown::whole_lines_head(&text, PRIVACY_CHARS);
    if is_private(head) {
        return Err(Denied::Private);
    }
    Ok(OpenedNote {
        rel: rel.to_string(),
        text,
        size: meta.len(),
        truncated,
    })
}

/// Opens for reading without blocking on a FIFO or device and without taking a terminal.
fn open_once(path: &Path) -> std::io::Result<File> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    o.open(path)
}

/// Whether the open `file` is the file at the checked real path `real`.
fn is_the_checked_file(file: &File, meta: &Metadata, real: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Ok(opened) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            return opened == real;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = file;
        match std::fs::metadata(real) {
            Ok(at) => at.dev() == meta.dev() && at.ino() == meta.ino(),
            Err(_) => false,
        }
    }
    #[cfg(not(unix))]
    {
        // No descriptor path or inode to compare: the checked path must still resolve to
        // itself and name a file of the size read.
        let _ = file;
        std::fs::canonicalize(real).is_ok_and(|r| r == real)
            && std::fs::metadata(real).is_ok_and(|m| m.len() == meta.len())
    }
}

/// The bytes as text; when they were cut at the cap, an incomplete character at the end is
/// dropped rather than shown as a replacement character.
fn decode(mut bytes: Vec<u8>, truncated: bool) -> String {
    if truncated
        && let Err(e) = std::str::from_utf8(&bytes)
        && e.error_len().is_none()
    {
        bytes.truncate(e.valid_up_to());
    }
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn policy(vault: &Path) -> Exposure {
        Exposure::with_roots(vault, vec!["brain".into()], vec![], "memories")
    }

    #[test]
    fn reads_at_most_the_cap_and_judges_privacy_on_what_it_read() {
        let d = tempfile::tempdir().unwrap();
        let v = d.path();
        fs::create_dir_all(v.join("brain")).unwrap();
        fs::write(v.join("brain/a.md"), "# A\n\nhello é world\n").unwrap();
        let ex = policy(v);
        let n = open_visible(&ex, "brain/a.md", 1024).unwrap();
        assert_eq!(n.text, "# A\n\nhello é world\n");
        assert!(!n.truncated);
        assert_eq!(n.size, 20);
        // Cut inside the two-byte é: the half character is dropped.
        let n = open_visible(&ex, "brain/a.md", 12).unwrap();
        assert!(n.truncated);
        assert_eq!(n.text, "# A\n\nhello ");
        fs::write(v.join("brain/p.md"), "---\nprivate: true\n---\nsecret\n").unwrap();
        assert_eq!(open_visible(&ex, "brain/p.md", 1024), Err(Denied::Private));
        assert_eq!(
            open_visible(&ex, "brain/none.md", 1024),
            Err(Denied::Missing)
        );
        assert_eq!(open_visible(&ex, "../x.md", 1024), Err(Denied::Traversal));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_swapped_during_reads_never_serves_the_outside_file() {
        let d = tempfile::tempdir().unwrap();
        let v = d.path().join("vault");
        fs::create_dir_all(v.join("brain")).unwrap();
        let outside = d.path().join("outside.md");
        fs::write(&outside, "# Outside\n\nOUTSIDESECRET\n").unwrap();
        fs::write(v.join("brain/inside.md"), "# Inside\n\nfine\n").unwrap();
        let link = v.join("brain/link.md");
        std::os::unix::fs::symlink(v.join("brain/inside.md"), &link).unwrap();
        let ex = policy(&v);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (mut served, mut refused) = (0, 0);
        std::thread::scope(|s| {
            s.spawn(|| {
                let tmp = v.join("brain/.swap");
                let mut out = false;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = fs::remove_file(&tmp);
                    let target = if out {
                        outside.clone()
                    } else {
                        v.join("brain/inside.md")
                    };
                    std::os::unix::fs::symlink(&target, &tmp).unwrap();
                    fs::rename(&tmp, &link).unwrap();
                    out = !out;
                }
            });
            for _ in 0..3000 {
                match open_visible(&ex, "brain/link.md", 1024) {
                    Ok(n) => {
                        assert!(!n.text.contains("OUTSIDESECRET"), "leaked: {}", n.text);
                        served += 1;
                    }
                    Err(_) => refused += 1,
                }
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(served + refused, 3000);
        assert!(
            served > 0,
            "the inside target is served while it is in place"
        );
    }
}
