//! `mindex-statfloor DIR`: the least work any walking update has to do, as a baseline for the
//! update benches. Lists every folder under DIR (dot entries skipped, as mindex does), then
//! `fstatat`s every `.md` file relative to its folder's handle on all cores, and prints how many
//! files it stated. No index, no state, no ranking: what is left is the kernel's listing and
//! name lookup, which a walking `mindex update` cannot avoid (it must see every edit).

use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Every folder (as an open handle) with the names of its `.md` files.
fn list(dir: &Path, out: &mut Vec<(std::fs::File, Vec<CString>)>) -> std::io::Result<()> {
    let mut names = Vec::new();
    let mut subdirs: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name.as_bytes().first() == Some(&b'.') {
            continue;
        }
        let ft = entry.file_type()?;
        if ft.is_dir() {
            subdirs.push(entry.path());
        } else if ft.is_file() && name.as_bytes().ends_with(b".md") {
            names.push(CString::new(name.as_bytes()).expect("no NUL in a file name"));
        }
    }
    out.push((std::fs::File::open(dir)?, names));
    for d in subdirs {
        list(&d, out)?;
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .ok_or_else(|| std::io::Error::other("usage: mindex-statfloor DIR"))?;
    let mut folders = Vec::new();
    list(&dir, &mut folders)?;
    let jobs: Vec<(&std::fs::File, &CString)> = folders
        .iter()
        .flat_map(|(d, names)| names.iter().map(move |n| (d, n)))
        .collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = jobs.len().div_ceil(threads).max(1);
    let stated: usize = std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    let mut ok = 0;
                    for (d, name) in part {
                        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
                        // SAFETY: an open folder, a NUL-terminated name, a buffer of the right type.
                        let rc = unsafe {
                            libc::fstatat(
                                d.as_raw_fd(),
                                name.as_ptr(),
                                st.as_mut_ptr(),
                                libc::AT_SYMLINK_NOFOLLOW,
                            )
                        };
                        ok += usize::from(rc == 0);
                    }
                    ok
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
    });
    println!("{stated}");
    Ok(())
}
