//! The agents' user-level configs: obsidian-mind tells its users to register its `om` server
//! once for every repository (`claude mcp add --scope user om …`, which writes
//! `~/.claude.json`), and Codex and Gemini CLI keep user-level servers too. After a merge that
//! leaves them, every code repository keeps asking the old server (and qmd's stale index).
//! With [`InitOptions::user_configs`] they are replaced by `mindex mcp --vault <vault>` (each
//! file copied to `<file>.pre-mindex` first); without it the report names each one and the
//! command that migrates it.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::{InitOptions, InitReport, merge_toml, replaced_server, server_text};
use crate::error::{Error, Result};

/// An obsidian-mind (`om`) or qmd MCP server in an agent's user-level config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UserConfig {
    /// The config file.
    pub file: PathBuf,
    /// The entry: `mcpServers.om`, `projects["/code/atlas"].mcpServers.om`, `mcp_servers.om`.
    pub entry: String,
    /// What it ran.
    pub was: String,
    /// Whether this merge replaced it by `mindex mcp --vault <vault>`.
    pub migrated: bool,
    /// Where the file's original is, when it was migrated.
    pub backup: Option<PathBuf>,
    /// What migrates it by hand (when it was not migrated).
    pub how: String,
}

/// Finds (and with `options.user_configs` migrates) the user-level servers under `home`.
pub(super) fn user_configs(
    home: &Path,
    vault: &Path,
    options: &InitOptions,
    report: &mut InitReport,
) -> Result<()> {
    let binary = options.binary.as_ref().map_or_else(
        || "mindex".to_string(),
        |b| b.to_string_lossy().into_owned(),
    );
    let vault_s = vault.to_string_lossy().into_owned();
    let ours = serde_json::json!({
        "type": "stdio",
        "command": binary,
        "args": ["mcp", "--vault", vault_s],
    });
    let quoted = |s: &str| {
        if s.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
            format!("'{}'", s.replace('\'', "'\\''"))
        } else {
            s.to_string()
        }
    };
    let (qb, qv) = (quoted(&binary), quoted(&vault_s));
    let again = format!("or: mindex init --merge --user-configs {qv}");

    // Claude Code: user scope and each project's local scope in ~/.claude.json.
    let claude = std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|c| !c.is_empty() && options.home.is_none())
        .map_or_else(
            || home.join(".claude.json"),
            |c| PathBuf::from(c).join(".claude.json"),
        );
    if let Some(mut doc) = read_json(&claude) {
        let mut found = Vec::new();
        if let Some(servers) = doc.get_mut("mcpServers").and_then(Value::as_object_mut) {
            take_old(servers, &ours, options.user_configs, &mut found, |name| {
                (
                    format!("mcpServers.{name}"),
                    format!(
                        "claude mcp remove --scope user {name} && claude mcp add --scope user mindex -- {qb} mcp --vault {qv} ({again})"
                    ),
                )
            });
        }
        if let Some(projects) = doc.get_mut("projects").and_then(Value::as_object_mut) {
            for (project, cfg) in projects.iter_mut() {
                let Some(servers) = cfg.get_mut("mcpServers").and_then(Value::as_object_mut) else {
                    continue;
                };
                let qp = quoted(project);
                take_old(servers, &ours, options.user_configs, &mut found, |name| {
                    (
                        format!("projects[{project:?}].mcpServers.{name}"),
                        format!(
                            "cd {qp} && claude mcp remove {name} && claude mcp add mindex -- {qb} mcp --vault {qv} ({again})"
                        ),
                    )
                });
            }
        }
        finish(&claude, &doc, found, options.user_configs, report)?;
    }

    // Gemini CLI: ~/.gemini/settings.json.
    let gemini = home.join(".gemini/settings.json");
    if let Some(mut doc) = read_json(&gemini) {
        let mut found = Vec::new();
        if let Some(servers) = doc.get_mut("mcpServers").and_then(Value::as_object_mut) {
            let ours = serde_json::json!({"command": binary, "args": ["mcp", "--vault", vault_s]});
            take_old(servers, &ours, options.user_configs, &mut found, |name| {
                (
                    format!("mcpServers.{name}"),
                    format!(
                        "gemini mcp remove --scope user {name} && gemini mcp add --scope user mindex {qb} mcp --vault {qv} ({again})"
                    ),
                )
            });
        }
        finish(&gemini, &doc, found, options.user_configs, report)?;
    }

    // Codex: ~/.codex/config.toml (or $CODEX_HOME).
    let codex = std::env::var_os("CODEX_HOME")
        .filter(|c| !c.is_empty() && options.home.is_none())
        .map_or_else(|| home.join(".codex"), PathBuf::from)
        .join("config.toml");
    if let Ok(text) = fs::read_to_string(&codex) {
        let ours = format!(
            "[mcp_servers.mindex]\ncommand = {}\nargs = [\"mcp\", \"--vault\", {}]\n",
            super::toml_string(&binary),
            super::toml_string(&vault_s)
        );
        let (after, removed, _) = merge_toml(&text, &ours);
        let found: Vec<UserConfig> = removed
            .iter()
            .filter_map(|r| {
                let name = r.strip_prefix("MCP server `")?.split('`').next()?;
                Some(UserConfig {
                    file: codex.clone(),
                    entry: format!("mcp_servers.{name}"),
                    was: r.split_once(": ").map_or("", |x| x.1).to_string(),
                    migrated: options.user_configs,
                    backup: None,
                    how: format!(
                        "codex mcp remove {name} && codex mcp add mindex -- {qb} mcp --vault {qv} ({again})"
                    ),
                })
            })
            .collect();
        if !found.is_empty() {
            let backup = if options.user_configs {
                Some(write_with_backup(&codex, &text, after.as_bytes())?)
            } else {
                None
            };
            report
                .user_configs
                .extend(found.into_iter().map(|u| UserConfig {
                    backup: backup.clone(),
                    ..u
                }));
        }
    }
    Ok(())
}

/// Moves the old servers out of `servers` (when `migrate`, ours goes in as `mindex`, unless a
/// mindex server is there already), recording each in `found` with the entry name and the
/// command that migrates it by hand (`describe`).
fn take_old(
    servers: &mut Map<String, Value>,
    ours: &Value,
    migrate: bool,
    found: &mut Vec<UserConfig>,
    describe: impl Fn(&str) -> (String, String),
) {
    let old: Vec<String> = servers
        .iter()
        .filter(|(_, spec)| replaced_server(spec).is_some())
        .map(|(name, _)| name.clone())
        .collect();
    for name in &old {
        let (entry, how) = describe(name);
        found.push(UserConfig {
            file: PathBuf::new(),
            entry,
            was: server_text(&servers[name]),
            migrated: migrate,
            backup: None,
            how,
        });
        if migrate {
            servers.remove(name);
        }
    }
    if migrate && !old.is_empty() && !servers.contains_key("mindex") {
        servers.insert("mindex".to_string(), ours.clone());
    }
}

fn read_json(path: &Path) -> Option<Value> {
    let text = fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Records `found` for `file`, writing `doc` there first (with a backup) when migrating.
fn finish(
    file: &Path,
    doc: &Value,
    found: Vec<UserConfig>,
    migrate: bool,
    report: &mut InitReport,
) -> Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    let backup = if migrate {
        let before = fs::read_to_string(file).map_err(|e| Error::io(file, e))?;
        let text = serde_json::to_string_pretty(doc)
            .map_err(|e| Error::invalid("json", e.to_string()))?
            + "\n";
        Some(write_with_backup(file, &before, text.as_bytes())?)
    } else {
        None
    };
    report
        .user_configs
        .extend(found.into_iter().map(|u| UserConfig {
            file: file.to_path_buf(),
            backup: backup.clone(),
            ..u
        }));
    Ok(())
}

/// Copies `file` (whose text is `before`) to `<file>.pre-mindex` (or `.pre-mindex.N`), created
/// exclusively (never through a link planted at the name) with the file's permissions, then
/// replaces it with `after` atomically; a `file` that is a link (dotfiles kept elsewhere) is
/// written where it points, so the link stays. Answers the backup's path.
fn write_with_backup(file: &Path, before: &str, after: &[u8]) -> Result<PathBuf> {
    use std::io::Write as _;
    let _ = before;
    let real = fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = real.parent().unwrap_or(Path::new("."));
    let bytes = fs::read(&real).map_err(|e| Error::io(&real, e))?;
    let perms = fs::metadata(&real)
        .map_err(|e| Error::io(&real, e))?
        .permissions();
    for n in 0.. {
        let backup = dir.join(if n == 0 {
            format!("{name}.pre-mindex")
        } else {
            format!("{name}.pre-mindex.{n}")
        });
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&backup)
        {
            Ok(mut f) => {
                f.write_all(&bytes)
                    .and_then(|()| f.sync_all())
                    .map_err(|e| Error::io(&backup, e))?;
                fs::set_permissions(&backup, perms).map_err(|e| Error::io(&backup, e))?;
                crate::atomic::write_replace(&real, after)?;
                return Ok(backup);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io(&backup, e)),
        }
    }
    unreachable!("an unbounded range ends only by returning")
}
