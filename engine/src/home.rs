//! Places in the user's home this engine must know about without reading them: the folders
//! the coding agents keep session transcripts in (the hooks copy from them; `reason` hides
//! them) and mindex's own configuration folder (the `serve` tokens file).

use std::fs;
use std::path::PathBuf;

/// The folders the agents keep session transcripts in, canonical, for this user: Claude Code's
/// `$CLAUDE_CONFIG_DIR/projects` and `~/.claude/projects`, Codex's `$CODEX_HOME/sessions` and
/// `~/.codex/sessions`, Gemini CLI's `~/.gemini/tmp`. Folders that do not exist are left out.
pub fn transcript_roots() -> Vec<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let mut roots = Vec::new();
    if let Some(c) = var("CLAUDE_CONFIG_DIR") {
        roots.push(c.join("projects"));
    }
    if let Some(c) = var("CODEX_HOME") {
        roots.push(c.join("sessions"));
    }
    if let Some(home) = var("HOME") {
        roots.push(home.join(".claude/projects"));
        roots.push(home.join(".codex/sessions"));
        roots.push(home.join(".gemini/tmp"));
    }
    let mut out: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| fs::canonicalize(r).ok())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// mindex's configuration folder: `$XDG_CONFIG_HOME/mindex`, else `~/.config/mindex`; `None`
/// without either variable.
pub fn config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("mindex"))
}
