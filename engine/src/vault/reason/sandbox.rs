//! Hiding the vault from a `reason` session by absolute path (Linux).
//!
//! The view ([`super::view`]) decides what the agent finds from its working directory, but an
//! agent told the vault's absolute path could still open it. Where the kernel allows
//! unprivileged namespaces, the session therefore runs in its own user, mount and PID
//! namespaces: an empty tmpfs is mounted over the vault root, over the index folder when it
//! lies outside the vault, over a git folder above the vault, and over the agents' session
//! transcripts, mindex's configuration folder and the folders where editors and tools keep
//! copies of notes ([`crate::home::note_copies`]) in the home (each a scratch the agent may
//! write to, such as its own transcript, and that vanishes with the session); the single files
//! among those (shell histories, `~/.viminfo`) are covered by `/dev/null`; a fresh `/proc`
//! shows only the session's own
//! processes (so `/proc/<pid>/root` of a process outside cannot lead back to the vault), and the
//! capability bounding set is emptied before `exec`, so the agent cannot unmount anything.
//! Everything else (the agent's binary, the rest of its home folder, the system) stays where
//! it was.
//!
//! When the kernel refuses (namespaces disabled, a container's seccomp filter), the caller falls
//! back to the view alone and says so (`isolation: "view"`).

use std::ffi::CString;
use std::path::Path;
use std::process::Command;

/// What the child needs, prepared before `fork` (no allocation happens after it).
pub(crate) struct Hide {
    /// Each path to hide, and whether it is a folder (covered by a tmpfs) or a file (covered
    /// by `/dev/null`, so it reads empty and swallows writes).
    paths: Vec<(CString, bool)>,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl Hide {
    /// Prepares hiding `paths` (absolute and existing; `true` for a folder, `false` for a
    /// file). A path inside another is left out (the outer cover hides it already). `None`
    /// when a path cannot be passed to the kernel (an interior NUL).
    pub(crate) fn new(paths: &[(&Path, bool)]) -> Option<Hide> {
        use std::os::unix::ffi::OsStrExt as _;
        let mut sorted: Vec<(&Path, bool)> = paths.to_vec();
        sorted.sort();
        sorted.dedup_by(|a, b| a.0 == b.0);
        let mut outer: Vec<(&Path, bool)> = Vec::new();
        for (p, dir) in sorted {
            if !outer.iter().any(|(o, o_dir)| *o_dir && p.starts_with(o)) {
                outer.push((p, dir));
            }
        }
        let paths = outer
            .iter()
            .map(|(p, dir)| Some((CString::new(p.as_os_str().as_bytes()).ok()?, *dir)))
            .collect::<Option<Vec<_>>>()?;
        // SAFETY: plain getters without side effects.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Some(Hide {
            paths,
            uid_map: format!("{uid} {uid} 1").into_bytes(),
            gid_map: format!("{gid} {gid} 1").into_bytes(),
        })
    }

    /// Installs the namespace set-up as the command's `pre_exec` step. When any step fails the
    /// spawn fails with that OS error, and nothing has run.
    pub(crate) fn apply(self, cmd: &mut Command) {
        use std::os::unix::process::CommandExt as _;
        // SAFETY: the closure runs between fork and exec and calls only async-signal-safe
        // system calls on data prepared before the fork; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || enter(&self));
        }
    }
}

fn last_err() -> std::io::Error {
    std::io::Error::last_os_error()
}

fn check(r: libc::c_int) -> std::io::Result<()> {
    if r == -1 { Err(last_err()) } else { Ok(()) }
}

/// Writes `bytes` to a `/proc/self` file.
fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    // SAFETY: open/write/close on a valid C string and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(last_err());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let e = last_err();
        libc::close(fd);
        if n < 0 || n as usize != bytes.len() {
            return Err(e);
        }
    }
    Ok(())
}

/// In the forked child: new namespaces, the hiding mounts, a second fork so the agent is the
/// first process of its PID namespace, a fresh `/proc`, no capabilities.
fn enter(h: &Hide) -> std::io::Result<()> {
    // SAFETY: system calls on prepared, NUL-terminated data; see `Hide::apply`.
    unsafe {
        check(libc::unshare(
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID,
        ))?;
        // `setgroups` is absent on old kernels; the gid map then needs no "deny".
        let _ = write_proc(c"/proc/self/setgroups", b"deny");
        write_proc(c"/proc/self/uid_map", &h.uid_map)?;
        write_proc(c"/proc/self/gid_map", &h.gid_map)?;
        check(libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ))?;
        for (p, dir) in &h.paths {
            if *dir {
                check(libc::mount(
                    c"none".as_ptr(),
                    p.as_ptr(),
                    c"tmpfs".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    c"size=64m,mode=0700".as_ptr().cast(),
                ))?;
            } else {
                check(libc::mount(
                    c"/dev/null".as_ptr(),
                    p.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND,
                    std::ptr::null(),
                ))?;
            }
        }
        let pid = libc::fork();
        if pid < 0 {
            return Err(last_err());
        }
        if pid > 0 {
            // The middle process only waits and passes the agent's status on. It closes every
            // descriptor beyond stdio first, above all the one the spawner reads exec errors
            // from, so the spawn returns as soon as the agent has started.
            if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
                for fd in 3..4096 {
                    libc::close(fd);
                }
            }
            let mut status: libc::c_int = 0;
            loop {
                let r = libc::waitpid(pid, &mut status, 0);
                if r == -1 && *libc::__errno_location() == libc::EINTR {
                    continue;
                }
                break;
            }
            let code = if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else if libc::WIFSIGNALED(status) {
                128 + libc::WTERMSIG(status)
            } else {
                1
            };
            libc::_exit(code);
        }
        // The agent: process 1 of the new PID namespace.
        check(libc::mount(
            c"proc".as_ptr(),
            c"/proc".as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        ))?;
        for cap in 0..64 {
            libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_inside_a_hidden_folder_is_left_to_the_outer_cover() {
        let paths = [
            (Path::new("/h/.local/share/Trash"), true),
            (Path::new("/h/.local/share/Trash/files"), true),
            (Path::new("/h/.bash_history"), false),
            (Path::new("/h/.local/share/Trash"), true),
            (Path::new("/h/.local/share/Trashcan"), true),
        ];
        let hide = Hide::new(&paths).unwrap();
        let got: Vec<(&str, bool)> = hide
            .paths
            .iter()
            .map(|(p, d)| (p.to_str().unwrap(), *d))
            .collect();
        assert_eq!(
            got,
            [
                ("/h/.bash_history", false),
                ("/h/.local/share/Trash", true),
                ("/h/.local/share/Trashcan", true),
            ]
        );
        assert!(Hide::new(&[(Path::new("/a\0b"), true)]).is_none());
    }
}
