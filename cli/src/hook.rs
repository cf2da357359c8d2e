//! `mindex hook <event>`: the agents' lifecycle hooks. All logic is in `mindex_agent::hooks`; this reads
//! stdin, finds the vault, prints the answer and starts the debounced background refresh.
//!
//! A hook never fails the agent's turn: whatever happens, it exits 0, and writes nothing to stderr
//! unless `MINDEX_HOOK_DEBUG=1`.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mindex_agent::hooks::{HookContext, HookEvent, claim_refresh, run_hook};

/// How long a hook waits for the agent's payload on stdin.
const STDIN_WAIT: Duration = Duration::from_secs(2);

fn debug_on() -> bool {
    ["MINDEX_HOOK_DEBUG", "HOOK_DEBUG"]
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| v == "1"))
}

fn debug(msg: &str) {
    if debug_on() {
        eprintln!("[hook-debug {}] {msg}", mindex_agent::hooks::iso_now());
    }
}

/// The vault a hook works on, and why: `--vault` / `MINDEX_VAULT` when given (the user's word
/// wins); else the vault holding the agent's project folder (`CLAUDE_PROJECT_DIR`,
/// `CODEX_PROJECT_DIR`, `GEMINI_PROJECT_DIR`; empty counts as unset); else the vault holding the
/// current folder. `None` when there is none: a code repository that is not a vault gets no
/// briefing about itself.
fn hook_root(vault: Option<&Path>) -> Option<(PathBuf, String)> {
    if let Some(v) = vault {
        return Some((v.to_path_buf(), "--vault / MINDEX_VAULT".to_string()));
    }
    if let Some((key, dir)) = &agent_project_dir() {
        if let Some(root) = mindex::vault::find_vault_root(dir) {
            return Some((root, format!("{key} is inside this vault")));
        }
        debug(&format!(
            "{key}={} is not inside a vault (no {} or .obsidian/ there or above)",
            dir.display(),
            mindex::vault::MANIFEST_FILE
        ));
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    mindex::vault::find_vault_root(&cwd)
        .map(|root| (root, "the current folder is inside this vault".to_string()))
}

/// The agent's project folder and the variable that gave it: `CLAUDE_PROJECT_DIR`,
/// `CODEX_PROJECT_DIR` or `GEMINI_PROJECT_DIR` (empty counts as unset).
fn agent_project_dir() -> Option<(&'static str, PathBuf)> {
    [
        "CLAUDE_PROJECT_DIR",
        "CODEX_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
    ]
    .into_iter()
    .find_map(|key| {
        std::env::var_os(key)
            .filter(|v| !v.is_empty())
            .map(|v| (key, PathBuf::from(v)))
    })
}

/// [`hook_root`], with the choice (or its absence) said in debug output.
fn chosen_root(vault: Option<&Path>) -> Option<PathBuf> {
    match hook_root(vault) {
        Some((root, why)) => {
            debug(&format!("vault {} ({why})", root.display()));
            Some(root)
        }
        None => {
            debug("no vault: pass --vault DIR or set MINDEX_VAULT; answering with nothing");
            None
        }
    }
}

/// The payload on stdin: skipped on a terminal, abandoned after [`STDIN_WAIT`].
fn read_payload() -> Vec<u8> {
    if std::io::stdin().is_terminal() {
        return Vec::new();
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::stdin().lock().read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx.recv_timeout(STDIN_WAIT).unwrap_or_else(|_| {
        debug("no payload within 2 s; going on without one");
        Vec::new()
    })
}

/// Runs the hook for `event` and always returns success. `index` is the user's `--index` /
/// `MINDEX_INDEX_DIR` (default: `<vault>/.mindex`); `caller` the user's `--caller` /
/// `MINDEX_CALLER` (who a session outside the vault is).
pub fn run(
    event: &str,
    vault: Option<&Path>,
    index: Option<&Path>,
    caller: Option<&str>,
) -> ExitCode {
    if !debug_on() {
        // A panic must not print a backtrace into the agent's transcript.
        std::panic::set_hook(Box::new(|_| {}));
    }
    if event == "refresh" {
        if let Some(root) = chosen_root(vault) {
            refresh(&root, index);
        }
        return ExitCode::SUCCESS;
    }
    // Read the payload first, whatever the event: an agent writing to a hook that never reads
    // would see a broken pipe.
    let input = read_payload();
    let Some(ev) = HookEvent::parse(event) else {
        debug(&format!(
            "unknown event {event:?}; expected one of session-start, user-prompt, post-tool, pre-compact, stop"
        ));
        return ExitCode::SUCCESS;
    };
    let Some(root) = chosen_root(vault) else {
        return ExitCode::SUCCESS;
    };
    let mut ctx = HookContext::new(root.clone());
    if let Some(index) = index {
        ctx = ctx.with_index_dir(index);
    }
    // Where the agent works when its payload does not say: its project folder, else this
    // process's folder. Outside the vault, the hooks speak in vault paths.
    ctx.workdir = agent_project_dir()
        .map(|(_, dir)| dir)
        .or_else(|| std::env::current_dir().ok());
    ctx.caller = caller.map(str::to_string);
    if ev == HookEvent::SessionStart {
        ctx.env_file = std::env::var_os("CLAUDE_ENV_FILE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
    }
    let outcome = match std::panic::catch_unwind(|| run_hook(ev, &input, &ctx)) {
        Ok(o) => o,
        Err(_) => {
            debug("the hook panicked; answering with nothing");
            return ExitCode::SUCCESS;
        }
    };
    if !outcome.stdout.is_empty() {
        // A closed stdout is the agent's business; never an error here.
        let mut out = std::io::stdout().lock();
        let _ = out
            .write_all(outcome.stdout.as_bytes())
            .and_then(|()| out.flush());
    }
    for d in &outcome.debug {
        debug(d);
    }
    let refresh_off = std::env::var_os("MINDEX_HOOK_NO_REFRESH").is_some_and(|v| v == "1");
    if outcome.refresh && !refresh_off && claim_refresh(&ctx) {
        spawn_refresh(&root, index);
    }
    ExitCode::SUCCESS
}

/// Starts `mindex hook refresh` detached: its own process group, no stdio, not waited for.
fn spawn_refresh(root: &Path, index: Option<&Path>) {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut cmd = Command::new(exe);
    cmd.arg("hook")
        .arg("refresh")
        .arg("--vault")
        .arg(root)
        .args(
            index
                .map(|i| [std::ffi::OsStr::new("--index"), i.as_os_str()])
                .into_iter()
                .flatten(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
    match cmd.spawn() {
        Ok(_) => debug("background refresh started"),
        Err(e) => debug(&format!("background refresh did not start: {e}")),
    }
}

/// The background refresh: bring the index up to date, then embed new chunks when the vault
/// already has vectors and the model is installed. Another writer at work is not an error.
fn refresh(root: &Path, index: Option<&Path>) {
    let options = mindex::VaultOptions {
        index_dir: index.map(Path::to_path_buf),
        ..mindex::VaultOptions::default()
    };
    let vault = match mindex::Vault::open(root, options) {
        Ok(v) => v,
        Err(e) => return debug(&format!("refresh: {e}")),
    };
    if let Err(e) = vault.update(&mindex::NoProgress) {
        return debug(&format!("refresh update: {e}"));
    }
    // The model is loaded only when there are vectors to keep current; the engine embeds only
    // when they are this model's (the same path `mindex embed` and `mindex watch` take).
    match vault.vectors().model(None) {
        Ok(Some(model)) => match vault.vectors().refresh(&model) {
            Ok(Some(_)) => {}
            Ok(None) => debug("refresh embed skipped: the vectors belong to another model"),
            Err(e) => debug(&format!("refresh embed: {e}")),
        },
        Ok(None) => {}
        Err(e) => debug(&format!("refresh embed skipped: {e}")),
    }
}
