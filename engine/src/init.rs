//! Creating a new vault from the bundled template (`vault-template/` in the repository), and
//! migrating an existing one (`merge`): the agent configs it recognises are rewritten to call
//! mindex, with a backup, and everything else the user wrote is kept.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};

include!(concat!(env!("OUT_DIR"), "/template.rs"));

mod binaries;
mod configs;
use configs::{
    hook_program, merge_json, merge_toml, repair_reason, toml_string, toml_tables, toml_value,
    unquoted,
};
mod shipped;
mod text;
mod user;

pub use binaries::{StaleBinary, stale_binaries};
pub use user::UserConfig;

/// How [`init_vault`] writes.
#[derive(Debug, Clone, Default)]
pub struct InitOptions {
    /// Write into a non-empty folder: add the missing template files and migrate the agent
    /// configs found there; never overwrite anything else.
    pub merge: bool,
    /// Also write the sample notes (made-up people, projects and an incident) that the quick
    /// start and the tests search. Never for a real vault.
    pub with_samples: bool,
    /// The `mindex` binary the agent configs call: `None` writes the bare name `mindex` (found
    /// on PATH); a path is written as is (see [`agent_binary`]). A merge also repairs every
    /// config of the vault that calls another (a moved or missing) mindex binary.
    pub binary: Option<PathBuf>,
    /// Also migrate the agents' user-level configs (merge only): Claude Code's `~/.claude.json`
    /// (user scope and every project's local scope), Codex's `~/.codex/config.toml`, Gemini
    /// CLI's `~/.gemini/settings.json`; their obsidian-mind (`om`) and qmd MCP servers are
    /// replaced by `mindex mcp --vault <vault>`, each file copied to `<file>.pre-mindex`
    /// first. Without it, the report names each such entry and how to migrate it.
    pub user_configs: bool,
    /// The home folder holding those user-level configs (default: `$HOME`).
    pub home: Option<PathBuf>,
}

impl InitOptions {
    /// A new vault holding the sample notes (the quick start, tests and benches).
    pub fn with_samples() -> InitOptions {
        InitOptions {
            with_samples: true,
            ..InitOptions::default()
        }
    }
}

/// A file [`init_vault`] left as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kept {
    /// Vault-relative path.
    pub path: String,
    /// Why it was not written.
    pub why: String,
}

/// An agent config [`init_vault`] rewrote (merge only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Changed {
    /// Vault-relative path.
    pub path: String,
    /// Where the original is now, vault-relative.
    pub backup: String,
    /// Entries taken out, each with what replaces it.
    pub removed: Vec<String>,
    /// Entries added.
    pub added: Vec<String>,
}

/// What [`init_vault`] did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InitReport {
    /// The vault root.
    pub vault: PathBuf,
    /// Files written, vault-relative.
    pub created: Vec<String>,
    /// Agent configs rewritten to call mindex (merge only).
    pub changed: Vec<Changed>,
    /// Files left alone, and why.
    pub kept: Vec<Kept>,
    /// What is left on the old system (obsidian-mind's Node scripts, qmd's index, text that
    /// still mentions qmd after the migration), each with what to do about it (merge only).
    pub left: Vec<Kept>,
    /// MCP servers of obsidian-mind (`om`) or qmd in the agents' user-level configs: migrated
    /// (with `user_configs`) or named with the command that migrates them (merge only).
    pub user_configs: Vec<UserConfig>,
    /// Whether the sample notes were written.
    pub samples: bool,
}

impl InitReport {
    /// The report as text: what was written, changed (with backups), kept, what is left on
    /// the old system, the user-level configs, and what to run next.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut s = format!(
            "{} vault at {} ({} written{}, {} kept{}).\n",
            if self.changed.is_empty() && self.kept.is_empty() {
                "Created"
            } else {
                "Merged the template into the"
            },
            self.vault.display(),
            plural(self.created.len(), "file", "files"),
            if self.samples {
                ", with the sample notes"
            } else {
                ""
            },
            self.kept.len(),
            if self.changed.is_empty() {
                String::new()
            } else {
                format!(", {} migrated", plural(self.changed.len(), "file", "files"))
            },
        );
        for c in &self.changed {
            let _ = writeln!(s, "changed {} (original kept as {}):", c.path, c.backup);
            for x in &c.removed {
                let _ = writeln!(s, "  - removed {x}");
            }
            for x in &c.added {
                let _ = writeln!(s, "  + added {x}");
            }
        }
        // Template files already present are one line; every other kept file says why.
        let plain = "a file is already there; init never overwrites one";
        let ordinary = self.kept.iter().filter(|k| k.why == plain).count();
        for k in self.kept.iter().filter(|k| k.why != plain) {
            let _ = writeln!(s, "kept {}: {}", k.path, k.why);
        }
        if ordinary > 0 {
            let _ = writeln!(
                s,
                "kept {} already there (init never overwrites a file)",
                plural(ordinary, "template file", "template files")
            );
        }
        if !self.left.is_empty() {
            let _ = writeln!(s, "Left on the old system:");
            for k in &self.left {
                let _ = writeln!(s, "  - {}: {}", k.path, k.why);
            }
        }
        let (done, todo): (Vec<&UserConfig>, Vec<&UserConfig>) =
            self.user_configs.iter().partition(|u| u.migrated);
        if !done.is_empty() {
            let _ = writeln!(
                s,
                "Migrated the agents' user-level MCP servers to `mindex mcp`:"
            );
            for u in done {
                let backup = u
                    .backup
                    .as_ref()
                    .map(|b| format!(" (original kept as {})", b.display()))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "  - {} {} ({}){backup}",
                    u.file.display(),
                    u.entry,
                    u.was
                );
            }
        }
        if !todo.is_empty() {
            let _ = writeln!(
                s,
                "Code repositories still reach the old server through the agents' user-level configs (run init --merge --user-configs to migrate them all, with backups):"
            );
            for u in todo {
                let _ = writeln!(
                    s,
                    "  - {} {} ({}): {}",
                    u.file.display(),
                    u.entry,
                    u.was,
                    u.how
                );
            }
        }
        let _ = writeln!(
            s,
            "Next: mindex update --vault {0:?} && mindex search --vault {0:?} \"words\"",
            self.vault
        );
        s
    }
}

/// The agent configs the template ships: hook wiring and MCP server entries.
const AGENT_CONFIGS: [&str; 5] = [
    ".claude/settings.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".mcp.json",
];

/// obsidian-mind's hook scripts (run with node from `.claude/scripts/`).
const OBSIDIAN_MIND_HOOKS: [&str; 6] = [
    "session-start.ts",
    "classify-message.ts",
    "validate-write.ts",
    "pre-compact.ts",
    "stop-checklist.ts",
    "personalize",
];

/// Folders a binary may live in and still be found by agents started from a desktop (whose
/// PATH is the system's, without the user's shell profile).
const STANDARD_BIN_DIRS: [&str; 6] = [
    "/usr/local/bin",
    "/usr/bin",
    "/bin",
    "/opt/homebrew/bin",
    "/opt/local/bin",
    "/usr/sbin",
];

/// The binary path agent configs should call for the running executable `exe`: `None` (the bare
/// name `mindex`) when it lives in a standard system folder, else its absolute path, because
/// agents launched from a desktop do not see `~/.cargo/bin` or a build folder on their PATH.
pub fn agent_binary(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    if STANDARD_BIN_DIRS.iter().any(|d| dir == Path::new(d)) {
        None
    } else {
        Some(fs::canonicalize(exe).unwrap_or_else(|_| exe.to_path_buf()))
    }
}

/// Creates a vault at `dest` from the bundled template.
///
/// `dest` must not exist or be an empty folder, unless `options.merge` is set: then the template
/// files missing from `dest` are written, and the agent configs found there (Claude Code, Codex,
/// Gemini hooks and MCP servers) are migrated: entries of obsidian-mind's Node hooks and of
/// another search server (qmd) are replaced by mindex's, the user's own entries are kept, and
/// the original file is copied to `<file>.pre-mindex` first. No other existing file is ever
/// overwritten.
pub fn init_vault(dest: &Path, options: &InitOptions) -> Result<InitReport> {
    if dest.exists() {
        if !dest.is_dir() {
            return Err(Error::invalid(
                "dir",
                format!("{} exists and is not a folder", dest.display()),
            ));
        }
        let non_empty = fs::read_dir(dest)
            .map_err(|e| Error::io(dest, e))?
            .next()
            .is_some();
        if non_empty && !options.merge {
            return Err(Error::invalid(
                "dir",
                format!(
                    "{} is not empty; pass merge (CLI: --merge) to add the missing template files and migrate its agent configs",
                    dest.display()
                ),
            ));
        }
    }
    fs::create_dir_all(dest).map_err(|e| Error::io(dest, e))?;
    let mut report = InitReport {
        vault: fs::canonicalize(dest).map_err(|e| Error::io(dest, e))?,
        samples: options.with_samples,
        ..InitReport::default()
    };
    for (rel, bytes) in files(options.with_samples) {
        let path = dest.join(rel);
        let bytes = if AGENT_CONFIGS.contains(&rel) {
            with_binary(rel, bytes, options.binary.as_deref())
        } else if is_path_blind_command(rel) {
            command_with_binary(rel, bytes, options.binary.as_deref())
        } else {
            bytes.to_vec()
        };
        // An empty folder's placeholder, only where the folder is new.
        if rel.ends_with("/.gitkeep") && path.parent().is_some_and(Path::exists) {
            continue;
        }
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(&bytes).map_err(|e| Error::io(&path, e))?;
                report.created.push(rel.to_string());
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if AGENT_CONFIGS.contains(&rel) {
                    migrate(dest, rel, &bytes, &mut report)?;
                } else if is_path_blind_command(rel)
                    && repair_command(dest, rel, &bytes, &mut report)?
                {
                    // Repaired, or already calling this binary.
                } else {
                    report.kept.push(Kept {
                        path: rel.to_string(),
                        why: kept_why(rel).to_string(),
                    });
                }
            }
            Err(e) => return Err(Error::io(&path, e)),
        }
    }
    if options.merge {
        let template = |rel: &str| {
            files(false)
                .into_iter()
                .find(|(r, _)| *r == rel)
                .map(|(_, b)| b.to_vec())
        };
        text::migrate_text(dest, &template, &mut report)?;
        ignore_index(dest, &mut report)?;
        migrate_local_settings(dest, &mut report)?;
        left_behind(dest, &mut report);
        let home = options.home.clone().or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from)
        });
        if let Some(home) = home {
            user::user_configs(&home, &report.vault.clone(), options, &mut report)?;
        }
    }
    Ok(report)
}

/// The line [`ignore_index`] makes sure `.gitignore` has.
const IGNORE_INDEX: &str = ".mindex/";

/// Keeps the index out of git: a vault's `.gitignore` (obsidian-mind vaults are git
/// repositories) gets `.mindex/` when no line ignores it yet; the index holds the audit log of
/// every agent query. The original is copied to `.gitignore.pre-mindex` first.
fn ignore_index(dest: &Path, report: &mut InitReport) -> Result<()> {
    let rel = ".gitignore";
    let path = dest.join(rel);
    let Ok(text) = fs::read_to_string(&path) else {
        return Ok(());
    };
    let ignored = text.lines().any(|l| {
        matches!(
            l.trim(),
            ".mindex" | ".mindex/" | "/.mindex" | "/.mindex/" | ".mindex/*" | "/.mindex/*"
        )
    });
    if ignored {
        return Ok(());
    }
    let backup = back_up(dest, rel)?;
    let mut after = text.clone();
    if !after.is_empty() && !after.ends_with('\n') {
        after.push('\n');
    }
    after.push_str("\n# mindex index, hook state and audit log (rebuilt by `mindex update`)\n");
    after.push_str(IGNORE_INDEX);
    after.push('\n');
    crate::atomic::write_replace(&path, after.as_bytes())?;
    report.kept.retain(|k| k.path != rel);
    report.changed.push(Changed {
        path: rel.to_string(),
        backup,
        removed: Vec::new(),
        added: vec![format!(
            "`{IGNORE_INDEX}`: the index and its audit log of every agent query stay out of git"
        )],
    });
    Ok(())
}

/// Claude Code's per-machine project settings (`.claude/settings.local.json`): the MCP servers
/// approved by name (`enabledMcpjsonServers`) and the tools allowed (`permissions`) that name
/// qmd or `om` are renamed to mindex's.
fn migrate_local_settings(dest: &Path, report: &mut InitReport) -> Result<()> {
    let rel = ".claude/settings.local.json";
    let path = dest.join(rel);
    let Ok(before) = fs::read_to_string(&path) else {
        return Ok(());
    };
    let Ok(mut doc) = serde_json::from_str::<Value>(&before) else {
        if text::mentions_old_system(&before) {
            report.left.push(Kept {
                path: rel.to_string(),
                why: "not valid JSON, and it names qmd or om: fix it, then run init --merge again"
                    .to_string(),
            });
        }
        return Ok(());
    };
    let mut removed = Vec::new();
    rename_tools(&mut doc, &mut removed);
    if removed.is_empty() {
        return Ok(());
    }
    let backup = back_up(dest, rel)?;
    let text = serde_json::to_string_pretty(&doc)
        .map_err(|e| Error::invalid("json", e.to_string()))?
        + "\n";
    crate::atomic::write_replace(&path, text.as_bytes())?;
    report.changed.push(Changed {
        path: rel.to_string(),
        backup,
        removed,
        added: vec!["the same permissions and approvals for mindex's tools".to_string()],
    });
    Ok(())
}

/// Renames qmd's and `om`'s tools and servers to mindex's in a Claude Code settings document:
/// `permissions.{allow,deny,ask}` entries `mcp__qmd__*`/`mcp__om__*` and `enabledMcpjsonServers`
/// / `disabledMcpjsonServers` names `qmd`/`om`. What was renamed is pushed to `removed`.
fn rename_tools(doc: &mut Value, removed: &mut Vec<String>) {
    for list in ["allow", "deny", "ask"] {
        if let Some(entries) = doc
            .pointer_mut(&format!("/permissions/{list}"))
            .and_then(Value::as_array_mut)
        {
            for e in entries.iter_mut() {
                if let Some(s) = e.as_str()
                    && (s.starts_with("mcp__qmd") || s.starts_with("mcp__om__") || s == "mcp__om")
                {
                    let new = text::rewrite_line(s);
                    removed.push(format!("permission `{s}` (now `{new}`)"));
                    *e = Value::from(new);
                }
            }
            let mut seen = std::collections::HashSet::new();
            entries.retain(|e| seen.insert(e.clone()));
        }
    }
    for key in ["enabledMcpjsonServers", "disabledMcpjsonServers"] {
        if let Some(names) = doc.get_mut(key).and_then(Value::as_array_mut) {
            for n in names.iter_mut() {
                if matches!(n.as_str(), Some("qmd" | "om")) {
                    removed.push(format!(
                        "{key} `{}` (now `mindex`)",
                        n.as_str().unwrap_or("")
                    ));
                    *n = Value::from("mindex");
                }
            }
            let mut seen = std::collections::HashSet::new();
            names.retain(|e| seen.insert(e.clone()));
        }
    }
}

/// Names what is left of the old system, with what to do about it.
fn left_behind(dest: &Path, report: &mut InitReport) {
    let mut push = |path: &str, why: &str| {
        report.kept.retain(|k| k.path != path);
        report.left.push(Kept {
            path: path.to_string(),
            why: why.to_string(),
        });
    };
    if dest.join(".claude/scripts").is_dir() {
        push(
            ".claude/scripts/",
            "obsidian-mind's Node hooks and servers (qmd and om); nothing mindex wrote calls them. \
             Delete the folder once no entry of yours needs it",
        );
    }
    for rel in [".scripts/qmd-bootstrap.ts", "scripts/qmd-bootstrap.ts"] {
        if dest.join(rel).is_file() {
            push(
                rel,
                "qmd's index bootstrap; mindex builds its own index (`mindex update`, `mindex embed`). Delete it",
            );
        }
    }
    if dest.join(".shardmind").is_dir() {
        push(
            ".shardmind/",
            "ShardMind's install state of obsidian-mind: a later `shardmind update` would bring \
             obsidian-mind's qmd files back over the migrated ones. Do not run it on this vault; \
             delete the folder once you are settled on mindex",
        );
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .map(|c| c.join("qmd"));
    if let Some(cache) = cache.filter(|c| c.is_dir()) {
        let manifest = crate::manifest::Manifest::load(dest);
        // The manifest's `qmd_index`, else the vault folder's name as a slug (obsidian-mind v8).
        let mut names: Vec<String> = manifest
            .value("qmd_index")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
            .map(str::to_string)
            .into_iter()
            .collect();
        if let Some(folder) = report.vault.file_name() {
            names.push(folder.to_string_lossy().to_lowercase().replace(' ', "-"));
        }
        names.dedup();
        for name in names {
            let index = cache.join(format!("{name}.sqlite"));
            if index.is_file() {
                push(
                    &index.display().to_string(),
                    "qmd's index of this vault (every note's text, outside the vault): nothing \
                     reads it any more. Delete it (or `qmd collection remove` this vault's collection)",
                );
            }
        }
    }
}

/// The files to write: the template, with the sample notes on top when asked (a sample file
/// replaces the template's empty version of the same note).
fn files(with_samples: bool) -> Vec<(&'static str, &'static [u8])> {
    let mut out: Vec<(&str, &[u8])> = TEMPLATE_FILES.to_vec();
    if with_samples {
        for (rel, bytes) in SAMPLE_FILES {
            match out.iter_mut().find(|(r, _)| r == rel) {
                Some(slot) => slot.1 = bytes,
                None => out.push((rel, bytes)),
            }
        }
    }
    out
}

fn kept_why(rel: &str) -> &'static str {
    match rel {
        "vault-manifest.json" => {
            "the vault's own manifest, kept as it is: mindex reads the same keys (roots, inbox, \
             infrastructure, budgets) and falls back to its defaults for the ones it lacks"
        }
        "AGENTS.md" | "CLAUDE.md" | "GEMINI.md" => {
            "your agent manual, kept as it is: it names neither qmd nor obsidian-mind's server"
        }
        _ => "a file is already there; init never overwrites one",
    }
}

/// The template's agent config, calling `binary` instead of the bare name `mindex`.
fn with_binary(rel: &str, bytes: &[u8], binary: Option<&Path>) -> Vec<u8> {
    let Some(binary) = binary else {
        return bytes.to_vec();
    };
    let text = String::from_utf8_lossy(bytes);
    let raw = binary.to_string_lossy();
    let out = if rel.ends_with(".toml") {
        let quoted = raw.replace('\\', "\\\\").replace('"', "\\\"");
        text.replace("command = \"mindex\"", &format!("command = \"{quoted}\""))
    } else {
        // Hook commands go through a shell; the MCP command is run as is.
        let shell = shell_word(&raw, cfg!(windows));
        let json_str = |s: &str| {
            let q = serde_json::to_string(s).unwrap_or_default();
            q[1..q.len() - 1].to_string()
        };
        text.replace(
            "\"command\": \"mindex hook ",
            &format!("\"command\": \"{} hook ", json_str(&shell)),
        )
        .replace(
            "\"command\": \"mindex\"",
            &format!("\"command\": \"{}\"", json_str(&raw)),
        )
    };
    out.into_bytes()
}

/// A program path as one word for the shell that runs hook commands. On Unix it is
/// single-quoted when it holds a space or a character the shell reads. On Windows, where
/// agents run hooks through Git Bash, cmd or PowerShell, it is written with forward slashes,
/// which all three read as a path (a backslash is an escape to Git Bash), and double-quoted
/// when it holds a space.
fn shell_word(raw: &str, windows: bool) -> String {
    if windows {
        let p = raw.replace('\\', "/");
        if p.contains(char::is_whitespace) {
            format!("\"{p}\"")
        } else {
            p
        }
    } else if raw.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
        format!("'{}'", raw.replace('\'', "'\\''"))
    } else {
        raw.to_string()
    }
}

/// Gemini CLI's and Codex's commands: unlike Claude Code (whose session-start hook puts the
/// binary's folder on the session's `PATH`), these agents run a command's `mindex …` with
/// their own `PATH`, so the commands name the binary the configs call.
fn is_path_blind_command(rel: &str) -> bool {
    (rel.starts_with(".gemini/commands/") && rel.ends_with(".toml"))
        || (rel.starts_with(".codex/prompts/") && rel.ends_with(".md"))
}

/// A Gemini or Codex command calling `binary` wherever the template says `` `mindex ``.
fn command_with_binary(rel: &str, bytes: &[u8], binary: Option<&Path>) -> Vec<u8> {
    let Some(binary) = binary else {
        return bytes.to_vec();
    };
    let mut raw = binary.to_string_lossy().into_owned();
    if rel.ends_with(".toml") {
        // Inside a TOML basic string a backslash starts an escape.
        raw = raw.replace('\\', "\\\\");
    }
    String::from_utf8_lossy(bytes)
        .replace("`mindex ", &format!("`{raw} "))
        .into_bytes()
}

/// A Gemini or Codex command of the template already in the vault, calling another mindex
/// binary than `ours` and otherwise unedited, is pointed at ours (with a backup). `true` when
/// it was, or when it already calls ours.
fn repair_command(dest: &Path, rel: &str, ours: &[u8], report: &mut InitReport) -> Result<bool> {
    static PROGRAM: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"`([^`\s]*mindex(?:\.exe)?) ").expect("static regex")
    });
    let path = dest.join(rel);
    let Ok(theirs) = fs::read_to_string(&path) else {
        return Ok(false);
    };
    let ours = String::from_utf8_lossy(ours);
    if theirs == ours {
        report.kept.push(Kept {
            path: rel.to_string(),
            why: kept_why(rel).to_string(),
        });
        return Ok(true);
    }
    let programs: std::collections::BTreeSet<&str> = PROGRAM
        .captures_iter(&theirs)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    let [old] = programs.into_iter().collect::<Vec<_>>()[..] else {
        return Ok(false);
    };
    let ours_program = PROGRAM
        .captures(&ours)
        .and_then(|c| c.get(1))
        .map_or("mindex", |m| m.as_str());
    if old == ours_program
        || theirs.replace(&format!("`{old} "), &format!("`{ours_program} ")) != ours
    {
        return Ok(false);
    }
    let backup = back_up(dest, rel)?;
    crate::atomic::write_replace(&path, ours.as_bytes())?;
    report.changed.push(Changed {
        path: rel.to_string(),
        backup,
        removed: vec![format!("calls to {old}: {}", repair_reason(old))],
        added: vec![format!("calls to {ours_program}")],
    });
    Ok(true)
}

/// Why a hook command is replaced, when it is one mindex takes over.
fn replaced_hook(command: &str) -> Option<&'static str> {
    let c = command.to_lowercase();
    if c.contains("qmd") {
        Some("a qmd index refresh; mindex keeps its own index current")
    } else if c.contains(".claude/scripts/") && OBSIDIAN_MIND_HOOKS.iter().any(|h| c.contains(h)) {
        Some("obsidian-mind's Node hook; `mindex hook` does its job")
    } else {
        None
    }
}

/// Why an MCP server entry is replaced, when it is one mindex takes over.
fn replaced_server(spec: &Value) -> Option<&'static str> {
    let text = server_text(spec);
    if text.contains("om-mcp") {
        Some("obsidian-mind's MCP server; `mindex mcp` serves the same tools")
    } else if text.contains("qmd") {
        Some("the qmd search server; `mindex mcp` answers search and query itself")
    } else {
        None
    }
}

/// A server entry's command and arguments, lowercased.
fn server_text(spec: &Value) -> String {
    let mut text = spec["command"].as_str().unwrap_or("").to_lowercase();
    for a in spec["args"].as_array().into_iter().flatten() {
        text.push(' ');
        text.push_str(&a.as_str().unwrap_or("").to_lowercase());
    }
    text
}

/// A hook command as the user would recognise it: the script it runs when it runs one from
/// `.claude/scripts/`, else the whole command.
fn short_command(command: &str) -> String {
    match command.find(".claude/scripts/") {
        Some(at) => {
            let rest = &command[at..];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                .unwrap_or(rest.len());
            format!("node {}", &rest[..end])
        }
        None => command.to_string(),
    }
}

fn is_mindex_hook(command: &str) -> bool {
    command.contains("mindex hook ") || command.contains("mindex' hook ")
}

fn is_mindex_server(spec: &Value) -> bool {
    let cmd = spec["command"].as_str().unwrap_or("");
    let bin = cmd.rsplit(['/', '\\']).next().unwrap_or(cmd);
    (bin == "mindex" || bin == "mindex.exe")
        && spec["args"].as_array().and_then(|a| a.first()) == Some(&Value::from("mcp"))
}

/// Rewrites an existing agent config so it calls mindex, backing the original up first.
fn migrate(dest: &Path, rel: &str, ours: &[u8], report: &mut InitReport) -> Result<()> {
    let path = dest.join(rel);
    let before = fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let ours = String::from_utf8_lossy(ours);
    let merged = if rel.ends_with(".toml") {
        Ok(merge_toml(&before, &ours))
    } else {
        merge_json(&before, &ours)
    };
    let (after, removed, added) = match merged {
        Ok(m) => m,
        Err(why) => {
            report.kept.push(Kept {
                path: rel.to_string(),
                why: format!(
                    "{why}; mindex's entries were not added: fix it, then run init --merge again"
                ),
            });
            return Ok(());
        }
    };
    if removed.is_empty() && added.is_empty() {
        report.kept.push(Kept {
            path: rel.to_string(),
            why: "already calls mindex".to_string(),
        });
        return Ok(());
    }
    let backup = back_up(dest, rel)?;
    crate::atomic::write_replace(&path, after.as_bytes())?;
    report.changed.push(Changed {
        path: rel.to_string(),
        backup,
        removed,
        added,
    });
    Ok(())
}

/// Copies `dest/rel` to its backup ([`free_backup`]) and answers the backup's vault-relative
/// path. The backup is created exclusively (never written through a link planted at its name,
/// never over another backup) and keeps the original's permissions.
fn back_up(dest: &Path, rel: &str) -> Result<String> {
    let path = dest.join(rel);
    let bytes = fs::read(&path).map_err(|e| Error::io(&path, e))?;
    let perms = fs::metadata(&path)
        .map_err(|e| Error::io(&path, e))?
        .permissions();
    loop {
        let backup = free_backup(dest, rel);
        let backup_path = dest.join(&backup);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&backup_path)
        {
            Ok(mut f) => {
                f.write_all(&bytes)
                    .and_then(|()| f.sync_all())
                    .map_err(|e| Error::io(&backup_path, e))?;
                fs::set_permissions(&backup_path, perms).map_err(|e| Error::io(&backup_path, e))?;
                return Ok(backup);
            }
            // Taken since it was looked at: the next name.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Error::io(&backup_path, e)),
        }
    }
}

/// `<rel>.pre-mindex`, or the first `<rel>.pre-mindex.N` not taken (by anything, a link to
/// nothing included).
fn free_backup(dest: &Path, rel: &str) -> String {
    let taken = |b: &str| dest.join(b).symlink_metadata().is_ok();
    let first = format!("{rel}.pre-mindex");
    if !taken(&first) {
        return first;
    }
    (1..)
        .map(|n| format!("{first}.{n}"))
        .find(|b| !taken(b))
        .unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merge() -> InitOptions {
        InitOptions {
            merge: true,
            // Never the real home: no user-level config is read or written by these tests.
            home: Some(std::env::temp_dir().join("mindex-init-tests-no-home")),
            ..InitOptions::default()
        }
    }

    #[test]
    fn template_has_manifest_and_notes() {
        assert!(
            TEMPLATE_FILES
                .iter()
                .any(|(p, _)| *p == "vault-manifest.json")
        );
        assert!(
            SAMPLE_FILES
                .iter()
                .filter(|(p, _)| p.ends_with(".md"))
                .count()
                >= 5
        );
    }

    #[test]
    fn init_refuses_non_empty_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v");
        let r = init_vault(&v, &InitOptions::default()).unwrap();
        assert_eq!(r.created.len(), TEMPLATE_FILES.len());
        fs::write(v.join("Home.md"), "mine").unwrap();
        let err = init_vault(&v, &InitOptions::default()).unwrap_err();
        assert!(err.to_string().contains("not empty"));
        let r = init_vault(&v, &merge()).unwrap();
        assert!(r.created.is_empty() && r.changed.is_empty(), "{r:?}");
        assert!(
            r.kept.iter().all(|k| k.why.contains("never overwrites")
                || k.why.contains("already calls mindex")
                || k.why.contains("manifest")
                || k.why.contains("manual")),
            "{r:?}"
        );
        assert_eq!(fs::read_to_string(v.join("Home.md")).unwrap(), "mine");
    }

    /// Finding 1 of issue 17: a real vault gets no made-up people, projects or incidents.
    #[test]
    fn samples_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        init_vault(&plain, &InitOptions::default()).unwrap();
        assert!(!plain.join("org/people/Alice Chen.md").exists());
        assert!(
            !plain
                .join("work/incidents/2026-03-14 Checkout outage.md")
                .exists()
        );
        assert!(plain.join("work/active").is_dir() && plain.join("inbox").is_dir());
        let north = fs::read_to_string(plain.join("brain/North Star.md")).unwrap();
        assert!(!north.contains("payments"), "{north}");
        for (rel, _) in TEMPLATE_FILES {
            let text = String::from_utf8_lossy(&fs::read(plain.join(rel)).unwrap()).into_owned();
            for sample in [
                "Alice Chen",
                "Payments Migration",
                "Checkout outage",
                "Bilal",
            ] {
                assert!(!text.contains(sample), "{rel} names the sample {sample}");
            }
        }
        let samples = dir.path().join("samples");
        let r = init_vault(&samples, &InitOptions::with_samples()).unwrap();
        assert!(r.samples);
        assert!(samples.join("org/people/Alice Chen.md").exists());
        let north = fs::read_to_string(samples.join("brain/North Star.md")).unwrap();
        assert!(north.contains("payments"), "{north}");
    }

    /// Finding 3 of issue 17: every content folder AGENTS.md's folder map names is one agents
    /// can read with the shipped manifest (templates, bases and memories are the stated
    /// exceptions), and the folders the template writes exist.
    #[test]
    fn the_manual_and_the_manifest_agree_on_what_agents_read() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v");
        init_vault(&v, &InitOptions::default()).unwrap();
        let manual = fs::read_to_string(v.join("AGENTS.md")).unwrap();
        let folders: Vec<String> = manual
            .lines()
            .filter(|l| l.starts_with("| `"))
            .flat_map(|l| {
                l.split('|')
                    .nth(1)
                    .unwrap_or("")
                    .split(',')
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .map(|c| c.trim().trim_matches('`').to_string())
            .filter(|c| c.ends_with('/'))
            .collect();
        assert!(folders.len() >= 12, "{folders:?}");
        let manifest = crate::manifest::Manifest::load(&v);
        let exposure = crate::exposure::Exposure::resolve(&v, &manifest, &manifest.memory_root());
        for f in &folders {
            let f = f.replace("YYYY/", "2026/");
            let probe = format!("{f}Probe Note.md");
            let readable = {
                fs::create_dir_all(v.join(&f)).unwrap();
                fs::write(v.join(&probe), "---\ndescription: probe\n---\nx\n").unwrap();
                crate::exposure::Exposure::resolve(&v, &manifest, &manifest.memory_root())
                    .may_read(&probe)
                    .is_ok()
            };
            let exception = ["templates/", "bases/", "memories/"].contains(&f.as_str());
            assert_eq!(
                readable, !exception,
                "{f}: AGENTS.md and the manifest disagree"
            );
        }
        // The inbox record_work files into exists from the start and is readable.
        assert!(
            exposure.roots().iter().any(|r| r == "inbox"),
            "{:?}",
            exposure.roots()
        );
        // Every note the template writes (its manuals and templates aside) is readable by
        // agents: `health` has no hidden folder to warn about in a new vault.
        for (rel, _) in TEMPLATE_FILES {
            if rel.ends_with(".md") && !rel.starts_with('.') && !manifest.is_infrastructure(rel) {
                assert!(
                    exposure.may_read(rel).is_ok(),
                    "{rel} is hidden from agents"
                );
            }
        }
    }

    /// Issue 19: a merge adds the commands and subagents a vault lacks and never overwrites one
    /// the user edited.
    #[test]
    fn merge_adds_missing_commands_and_keeps_edited_ones() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v");
        fs::create_dir_all(v.join(".claude/commands")).unwrap();
        fs::write(v.join(".claude/commands/wrap-up.md"), "my own wrap-up\n").unwrap();
        let r = init_vault(&v, &merge()).unwrap();
        assert_eq!(
            fs::read_to_string(v.join(".claude/commands/wrap-up.md")).unwrap(),
            "my own wrap-up\n"
        );
        assert!(
            r.kept
                .iter()
                .any(|k| k.path == ".claude/commands/wrap-up.md")
        );
        for rel in [
            ".claude/commands/standup.md",
            ".gemini/commands/wrap-up.toml",
            ".codex/prompts/wrap-up.md",
            ".claude/agents/context-loader.md",
        ] {
            assert!(r.created.iter().any(|c| c == rel), "{rel}");
        }
    }

    #[test]
    fn agent_configs_call_the_binary_given() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v");
        let bin = PathBuf::from("/home/u/my tools/mindex");
        let opts = InitOptions {
            binary: Some(bin.clone()),
            ..InitOptions::default()
        };
        init_vault(&v, &opts).unwrap();
        let claude: Value =
            serde_json::from_str(&fs::read_to_string(v.join(".claude/settings.json")).unwrap())
                .unwrap();
        assert_eq!(
            claude["hooks"]["Stop"][0]["hooks"][0]["command"],
            "'/home/u/my tools/mindex' hook stop"
        );
        let mcp: Value =
            serde_json::from_str(&fs::read_to_string(v.join(".mcp.json")).unwrap()).unwrap();
        assert_eq!(
            mcp["mcpServers"]["mindex"]["command"],
            "/home/u/my tools/mindex"
        );
        let toml = fs::read_to_string(v.join(".codex/config.toml")).unwrap();
        assert!(
            toml.contains("command = \"/home/u/my tools/mindex\""),
            "{toml}"
        );
        assert_eq!(agent_binary(Path::new("/usr/local/bin/mindex")), None);
        assert!(agent_binary(Path::new("/home/u/.cargo/bin/mindex")).is_some());
    }

    #[test]
    fn merge_replaces_obsidian_mind_and_qmd_and_keeps_the_users_entries() {
        let theirs = r#"{
  "permissions": {"allow": ["Bash(git status)"]},
  "hooks": {
    "SessionStart": [{"matcher": "startup|resume", "hooks": [
      {"type": "command", "command": "node --experimental-strip-types \"${CLAUDE_PROJECT_DIR:-.}/.claude/scripts/session-start.ts\""},
      {"type": "command", "command": "~/bin/my-own-hook.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "node \"${CLAUDE_PROJECT_DIR:-.}/.claude/scripts/stop-checklist.ts\""}]}]
  }
}"#;
        let ours = String::from_utf8_lossy(
            TEMPLATE_FILES
                .iter()
                .find(|(p, _)| *p == ".claude/settings.json")
                .unwrap()
                .1,
        );
        let (text, removed, added) = merge_json(theirs, &ours).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["permissions"]["allow"][0], "Bash(git status)");
        let start = v["hooks"]["SessionStart"].to_string();
        assert!(
            start.contains("my-own-hook.sh") && start.contains("mindex hook session-start"),
            "{start}"
        );
        assert!(
            !text.contains("session-start.ts") && !text.contains("stop-checklist.ts"),
            "{text}"
        );
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(
            added.iter().any(|a| a.contains("mindex hook stop")),
            "{added:?}"
        );
        // Merging again changes nothing.
        let (_, removed, added) = merge_json(&text, &ours).unwrap();
        assert!(
            removed.is_empty() && added.is_empty(),
            "{removed:?} {added:?}"
        );

        let mcp = r#"{"mcpServers": {"qmd": {"command": "node", "args": [".claude/scripts/qmd-mcp.mjs"]},
            "github": {"command": "gh-mcp", "args": []}}}"#;
        let ours = String::from_utf8_lossy(
            TEMPLATE_FILES
                .iter()
                .find(|(p, _)| *p == ".mcp.json")
                .unwrap()
                .1,
        );
        let (text, removed, added) = merge_json(mcp, &ours).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(
            v["mcpServers"]["qmd"].is_null() && v["mcpServers"]["github"]["command"] == "gh-mcp"
        );
        assert_eq!(v["mcpServers"]["mindex"]["args"][0], "mcp");
        assert_eq!((removed.len(), added.len()), (1, 1));
        assert!(
            merge_json("{not json", &ours)
                .unwrap_err()
                .contains("not valid JSON")
        );
    }

    #[test]
    fn toml_merge_keeps_comments_and_other_servers() {
        let theirs = "# my codex settings\nmodel = \"o4\"\n\n[mcp_servers.qmd]\ncommand = \"qmd\"\nargs = [\"mcp\"]\n\n[mcp_servers.qmd.env]\nX = \"1\"\n\n[mcp_servers.linear]\ncommand = \"linear-mcp\"\n";
        let ours = "# ours\n\n[mcp_servers.mindex]\ncommand = \"mindex\"\nargs = [\"mcp\"]\n";
        let (out, removed, added) = merge_toml(theirs, ours);
        assert!(
            out.starts_with("# my codex settings\nmodel = \"o4\"\n"),
            "{out}"
        );
        assert!(
            !out.contains("qmd") && out.contains("[mcp_servers.linear]"),
            "{out}"
        );
        assert!(
            out.contains("[mcp_servers.mindex]\ncommand = \"mindex\"\nargs = [\"mcp\"]\n"),
            "{out}"
        );
        assert_eq!((removed.len(), added.len()), (1, 1), "{removed:?}");
        let (again, removed, added) = merge_toml(&out, ours);
        assert_eq!(again, out);
        assert!(removed.is_empty() && added.is_empty());
    }

    #[test]
    fn hook_programs_are_one_shell_word_on_every_platform() {
        assert_eq!(shell_word("/usr/x/mindex", false), "/usr/x/mindex");
        assert_eq!(
            shell_word("/a b/it's/mindex", false),
            "'/a b/it'\\''s/mindex'"
        );
        assert_eq!(
            shell_word(r"C:\Users\me\.cargo\bin\mindex.exe", true),
            "C:/Users/me/.cargo/bin/mindex.exe"
        );
        assert_eq!(
            shell_word(r"C:\Program Files\mindex\mindex.exe", true),
            "\"C:/Program Files/mindex/mindex.exe\""
        );
        // Each reads back as the program it names.
        for w in ["'/a b/mindex'", "\"C:/Program Files/mindex.exe\""] {
            assert!(hook_program(&format!("{w} hook stop")).is_some(), "{w}");
        }
    }

    #[test]
    fn merge_backs_up_before_rewriting() {
        let dir = tempfile::tempdir().unwrap();
        let v = dir.path().join("v");
        fs::create_dir_all(v.join(".claude/scripts")).unwrap();
        let old = r#"{"mcpServers": {"om": {"command": "node", "args": ["/v/.claude/scripts/om-mcp.mjs"]}}}"#;
        fs::write(v.join(".mcp.json"), old).unwrap();
        let r = init_vault(&v, &merge()).unwrap();
        let c = r.changed.iter().find(|c| c.path == ".mcp.json").unwrap();
        assert_eq!(c.backup, ".mcp.json.pre-mindex");
        assert_eq!(fs::read_to_string(v.join(&c.backup)).unwrap(), old);
        assert!(
            fs::read_to_string(v.join(".mcp.json"))
                .unwrap()
                .contains("\"mindex\"")
        );
        assert!(r.left.iter().any(|k| k.path == ".claude/scripts/"));
        // A second migration keeps the first backup.
        fs::write(v.join(".mcp.json"), old).unwrap();
        let r = init_vault(&v, &merge()).unwrap();
        assert_eq!(r.changed[0].backup, ".mcp.json.pre-mindex.1");
        // A link planted at the next backup's name is never written through.
        #[cfg(unix)]
        {
            let outside = dir.path().join("outside.txt");
            std::os::unix::fs::symlink(&outside, v.join(".mcp.json.pre-mindex.2")).unwrap();
            fs::write(v.join(".mcp.json"), old).unwrap();
            let r = init_vault(&v, &merge()).unwrap();
            assert_eq!(r.changed[0].backup, ".mcp.json.pre-mindex.3");
            assert!(!outside.exists());
        }
    }
}
