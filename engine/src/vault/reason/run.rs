//! Running the reasoning agent: its environment (an allow-list), its program found on `PATH`,
//! its output bounded in size and time, its process group killed on timeout, and what the
//! sandbox hides from it (`secret_covers`).

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use super::sandbox;
use super::{STDERR_CAP, STDOUT_CAP};

/// What the spawned session gave.
pub(super) struct Run {
    pub(super) spawn_error: Option<String>,
    pub(super) timed_out: bool,
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: String,
    /// `namespaces`, `view`, or empty when nothing started.
    pub(super) isolation: &'static str,
}

/// Runs `command args` in `cwd` in its own process group, killing the group past `timeout`.
///
/// The session first runs with `hidden.0` covered by its own mount namespace (Linux); when the
/// kernel refuses, it runs again with the view alone. Its environment is the allow-listed one
/// of [`agent_env`] (plus the variables `pass_on` names), without any value naming a path of
/// `hidden.1`; `PWD` names `cwd`.
pub(super) fn run_bounded(
    command: &Path,
    args: &[String],
    cwd: &Path,
    hidden: (&[(PathBuf, bool)], &[PathBuf]),
    pass_on: &[String],
    isolation_required: bool,
    timeout: Duration,
) -> Run {
    let (hidden, secret_names) = hidden;
    // Only Linux covers the hidden paths (its namespaces); elsewhere `reason` refuses first.
    #[cfg(not(target_os = "linux"))]
    let _ = hidden;
    let make = || {
        let mut cmd = Command::new(command);
        cmd.args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        agent_env(&mut cmd, secret_names, pass_on, cwd);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt as _;
            cmd.process_group(0);
        }
        cmd
    };
    let mut spawned = Err(std::io::Error::other("not tried"));
    let mut isolation = "view";
    #[cfg(target_os = "linux")]
    {
        let paths: Vec<(&Path, bool)> = hidden.iter().map(|(p, d)| (p.as_path(), *d)).collect();
        if let Some(hide) = sandbox::Hide::new(&paths) {
            let mut cmd = make();
            hide.apply(&mut cmd);
            spawned = cmd.spawn();
            isolation = "namespaces";
        }
    }
    if spawned.is_err() && isolation_required {
        // Secrets named by the caller (a server's tokens file) are hidden only by the
        // namespaces: without them the session does not run.
        let why = spawned
            .err()
            .map_or_else(String::new, |e| format!(" ({e})"));
        return Run {
            spawn_error: Some(format!(
                "{}: this system refused the namespaces that hide the server's tokens file from the session{why}; `reason` runs only isolated here",
                command.display()
            )),
            timed_out: false,
            stdout: Vec::new(),
            stderr: String::new(),
            isolation: "",
        };
    }
    if spawned.is_err() {
        isolation = "view";
        spawned = make().spawn();
    }
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return Run {
                spawn_error: Some(format!("{}: {e}", command.display())),
                timed_out: false,
                stdout: Vec::new(),
                stderr: String::new(),
                isolation: "",
            };
        }
    };
    let read_capped = |mut r: Box<dyn std::io::Read + Send>, cap: usize| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 64 * 1024];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let room = cap.saturating_sub(kept.len());
                        kept.extend_from_slice(&buf[..n.min(room)]);
                    }
                }
            }
            kept
        })
    };
    let out_t = child
        .stdout
        .take()
        .map(|s| read_capped(Box::new(s), STDOUT_CAP));
    let err_t = child
        .stderr
        .take()
        .map(|s| read_capped(Box::new(s), STDERR_CAP * 4));
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                timed_out = true;
                kill_group(&mut child);
                let _ = child.wait();
                break;
            }
        }
    }
    // The group is gone or finished; make sure no straggler keeps the pipes open.
    if timed_out {
        kill_group(&mut child);
    }
    let stdout = out_t.and_then(|t| t.join().ok()).unwrap_or_default();
    let stderr_bytes = err_t.and_then(|t| t.join().ok()).unwrap_or_default();
    let stderr: String = String::from_utf8_lossy(&stderr_bytes)
        .chars()
        .take(STDERR_CAP)
        .collect();
    Run {
        spawn_error: None,
        timed_out,
        stdout,
        stderr,
        isolation,
    }
}

/// Variables an agent CLI needs, passed on by name: where it finds programs, its home and
/// locale, temporary folders, proxies and certificates to reach its model, and its own
/// credentials and settings (`ANTHROPIC_*`, `CLAUDE_*`; Windows' system variables).
const AGENT_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "TMPDIR",
    "TMP",
    "TEMP",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "SYSTEMROOT",
    "SYSTEMDRIVE",
    "WINDIR",
    "USERPROFILE",
    "APPDATA",
    "LOCALAPPDATA",
    "COMSPEC",
    "PATHEXT",
];

/// Prefixes of variables passed on: the agent's own credentials and settings, and the locale.
const AGENT_ENV_PREFIXES: &[&str] = &["ANTHROPIC_", "CLAUDE_", "LC_"];

/// Whether the variable `name` reaches the agent: allow-listed ([`AGENT_ENV`],
/// [`AGENT_ENV_PREFIXES`]) or named by the manifest's `reason.env`, and never one of mindex's
/// own (`MINDEX_*`: the vault, the tokens file, the caller).
pub(super) fn passes_on(name: &str, pass_on: &[String]) -> bool {
    !name.to_ascii_uppercase().starts_with("MINDEX_")
        && (AGENT_ENV.contains(&name)
            || AGENT_ENV_PREFIXES.iter().any(|p| name.starts_with(p))
            || pass_on.iter().any(|p| p == name))
}

/// The session's environment: only the variables [`passes_on`] admits, and of those none
/// whose value names a hidden path (the vault's location, a tokens file, is not the session's
/// business); `PATH` only loses the entries inside one. `PWD` names `cwd`.
pub(super) fn agent_env(cmd: &mut Command, hidden: &[PathBuf], pass_on: &[String], cwd: &Path) {
    let names_hidden = |v: &str| {
        hidden
            .iter()
            .any(|h| !h.as_os_str().is_empty() && v.contains(&*h.to_string_lossy()))
    };
    cmd.env_clear();
    for (k, v) in std::env::vars_os() {
        let Some(name) = k.to_str() else { continue };
        if !passes_on(name, pass_on) {
            continue;
        }
        let text = v.to_string_lossy();
        if !names_hidden(&text) {
            cmd.env(&k, &v);
        } else if name == "PATH" {
            let kept: Vec<PathBuf> = std::env::split_paths(&v)
                .filter(|p| !hidden.iter().any(|h| p.starts_with(h)))
                .collect();
            if let Ok(p) = std::env::join_paths(kept) {
                cmd.env("PATH", p);
            }
        }
    }
    cmd.env("PWD", cwd);
}

/// Where `command` runs from: itself when it names a path, else the first match on `PATH`.
pub(super) fn find_program(command: &Path) -> Option<PathBuf> {
    if command.components().count() > 1 {
        return fs::canonicalize(command).ok();
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
        .and_then(|p| fs::canonicalize(p).ok())
}

/// What covers each secret file: `(path, true)` for its folder (a scratch tmpfs), or, when
/// the folder is `/` or holds the home or a path of `keep` (the view, the agent's binary),
/// `(path, false)` for the file and each sibling whose name starts with its name (backups,
/// temporary copies). A secret that does not exist yet is still covered through its folder.
pub(super) fn secret_covers(secrets: &[PathBuf], keep: &[&Path]) -> Vec<(PathBuf, bool)> {
    let mut named: Vec<PathBuf> = secrets.to_vec();
    if let Some(p) = std::env::var_os(crate::home::SERVE_TOKENS_VAR).filter(|p| !p.is_empty()) {
        named.push(PathBuf::from(p));
    }
    // A secret reached through a link (dotfiles managed by stow or chezmoi) is covered where it
    // really is too: covering the link's folder leaves the file readable by its real path.
    let real: Vec<PathBuf> = named
        .iter()
        .filter_map(|p| fs::canonicalize(p).ok())
        .filter(|r| !named.contains(r))
        .collect();
    named.extend(real);
    // Folders an agent CLI needs whole (its login and settings): a secret inside one is
    // covered alone, never the folder.
    let agent_homes: Vec<PathBuf> = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| {
            [".claude", ".codex", ".gemini", ".config"]
                .iter()
                .map(|d| PathBuf::from(&h).join(d))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .chain(std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from))
        .filter_map(|d| fs::canonicalize(d).ok())
        .collect();
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .and_then(|h| fs::canonicalize(h).ok());
    let mut out = Vec::new();
    for secret in named {
        let Some(name) = secret.file_name().map(|n| n.to_os_string()) else {
            continue;
        };
        let Some(folder) = secret
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(
                || std::env::current_dir().ok(),
                |p| fs::canonicalize(p).ok(),
            )
        else {
            continue;
        };
        let holds = |p: &Path| p.starts_with(&folder);
        // `/`, a folder right under it (`/etc`), the home or a folder holding it, a folder
        // holding the view or the agent's binary, or an agent's own folder: too wide to cover.
        let too_wide = folder.components().count() <= 2
            || home.as_deref().is_some_and(holds)
            || keep.iter().any(|k| holds(k))
            || agent_homes.iter().any(|d| folder.starts_with(d));
        if !too_wide {
            out.push((folder, true));
            continue;
        }
        let Ok(entries) = fs::read_dir(&folder) else {
            continue;
        };
        // The file and its copies: backups and editors' swap, undo and lock files
        // (`name.bak`, `.name.swp`, `#name#`, `.#name`, `name~`).
        let base = name.to_string_lossy().into_owned();
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            let copy = n.starts_with(&base)
                || n.strip_prefix('.').is_some_and(|r| r.starts_with(&base))
                || n.strip_prefix('#').is_some_and(|r| r.starts_with(&base))
                || n.strip_prefix(".#").is_some_and(|r| r.starts_with(&base));
            // Only regular files are covered (by `/dev/null`); a link's target is covered
            // by its own real path above.
            if copy && e.file_type().is_ok_and(|t| t.is_file()) {
                out.push((e.path(), false));
            }
        }
    }
    out
}

pub(super) fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        if let Ok(pid) = libc::pid_t::try_from(child.id()) {
            // SAFETY: plain syscall; a negative pid addresses the child's process group.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}
