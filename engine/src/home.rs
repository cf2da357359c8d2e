//! Places in the user's home this engine must know about without reading them: the folders
//! the coding agents keep session transcripts in (the hooks copy from them; `reason` hides
//! them), mindex's own configuration folder (the `serve` tokens file), and where editors and
//! other tools keep copies of notes the user opened (`reason` hides those too).

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

/// The variable naming the `serve` tokens file (`mindex serve --tokens` reads it too):
/// `reason` hides the file it names wherever it lies.
pub const SERVE_TOKENS_VAR: &str = "MINDEX_SERVE_TOKENS";

/// Places in the home where editors, Obsidian and other tools keep copies of, or digests of,
/// the files the user opened, canonical, for this user; those that do not exist are left out.
/// `reason` hides them from its session, since a private note's text outlives the note there:
///
/// - Obsidian's app data (its cache of every vault's headings, links, tags and frontmatter),
///   also as a Flatpak or Snap;
/// - the local history and unsaved-edit backups of VS Code, VSCodium and Cursor;
/// - Vim's and Neovim's swap, undo, backup and state folders, and `~/.viminfo` (registers);
/// - Emacs' auto-save lists;
/// - the desktop trash (a deleted note, whole);
/// - QMD's index (every note's text), for vaults that used it before mindex;
/// - shell, Python and `less` histories (commands quoting note text).
///
/// Folders answer `(path, true)`, single files `(path, false)`.
pub fn note_copies() -> Vec<(PathBuf, bool)> {
    note_copies_with(|k| std::env::var_os(k))
}

/// [`note_copies`] with the environment read through `var`.
fn note_copies_with(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Vec<(PathBuf, bool)> {
    let var = |k: &str| var(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    let Some(home) = var("HOME") else {
        return Vec::new();
    };
    let config = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
    let data = var("XDG_DATA_HOME").unwrap_or_else(|| home.join(".local/share"));
    let state = var("XDG_STATE_HOME").unwrap_or_else(|| home.join(".local/state"));
    let cache = var("XDG_CACHE_HOME").unwrap_or_else(|| home.join(".cache"));
    let mut folders = vec![
        config.join("obsidian"),
        home.join(".var/app/md.obsidian.Obsidian"),
        home.join("snap/obsidian"),
        state.join("nvim"),
        state.join("vim"),
        data.join("nvim/swap"),
        cache.join("vim"),
        cache.join("nvim"),
        home.join(".vim/swap"),
        home.join(".vim/undo"),
        home.join(".vim/backup"),
        home.join(".emacs.d/auto-save-list"),
        config.join("emacs/auto-save-list"),
        data.join("Trash"),
        cache.join("qmd"),
    ];
    for editor in ["Code", "Code - OSS", "VSCodium", "Cursor"] {
        folders.push(config.join(editor).join("User/History"));
        folders.push(config.join(editor).join("Backups"));
    }
    let files = [
        home.join(".viminfo"),
        home.join(".bash_history"),
        home.join(".zsh_history"),
        home.join(".histfile"),
        data.join("fish/fish_history"),
        home.join(".python_history"),
        home.join(".lesshst"),
    ];
    let wanted = folders
        .iter()
        .map(|p| (p, true))
        .chain(files.iter().map(|p| (p, false)));
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    for (p, want_dir) in wanted {
        let Ok(real) = fs::canonicalize(p) else {
            continue;
        };
        let Ok(meta) = fs::metadata(&real) else {
            continue;
        };
        if (want_dir && meta.is_dir()) || (!want_dir && meta.is_file()) {
            out.push((real, want_dir));
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_copies_finds_each_kind_that_exists_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let home = fs::canonicalize(dir.path()).unwrap();
        for d in [
            ".config/obsidian",
            ".config/Code/User/History",
            ".local/state/nvim",
            ".local/share/Trash",
            "cache/qmd",
        ] {
            fs::create_dir_all(home.join(d)).unwrap();
        }
        fs::write(home.join(".bash_history"), "cat secret\n").unwrap();
        // A folder where a file is expected (and the reverse) is left out.
        fs::create_dir_all(home.join(".viminfo")).unwrap();
        fs::write(home.join(".vim"), "").unwrap();
        let cache = home.join("cache");
        let got = note_copies_with(|k| match k {
            "HOME" => Some(home.clone().into_os_string()),
            "XDG_CACHE_HOME" => Some(cache.clone().into_os_string()),
            _ => None,
        });
        let rel: Vec<(String, bool)> = got
            .iter()
            .map(|(p, d)| {
                let r = p
                    .strip_prefix(&home)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                (r, *d)
            })
            .collect();
        let mut want = vec![
            (".bash_history".to_string(), false),
            ("cache/qmd".into(), true),
            (".config/Code/User/History".into(), true),
            (".config/obsidian".into(), true),
            (".local/share/Trash".into(), true),
            (".local/state/nvim".into(), true),
        ];
        want.sort();
        assert_eq!(rel, want);
        assert!(note_copies_with(|_| None).is_empty());
    }
}
