//! Which mindex binary the vault's agent configs call, and whether it can run here: a config
//! that names a binary by a path that is gone (`cargo clean`, a reinstall elsewhere) makes
//! every hook and the MCP server fail silently, so `health`, `status` and the session-start
//! briefing say so, and `init --merge` run with the new binary repairs it.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::{AGENT_CONFIGS, hook_program, is_mindex_server, toml_tables, toml_value, unquoted};

/// A mindex binary an agent config of the vault names that cannot run here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StaleBinary {
    /// The config, vault-relative (`.claude/settings.json`).
    pub config: String,
    /// The binary as the config names it.
    pub binary: String,
}

impl StaleBinary {
    /// One line for a warning: what is wrong and how to repair it.
    pub fn warning(&self) -> String {
        let how =
            "run `mindex init --merge <vault>` with the mindex you use now to repair every config";
        if self.binary.contains(['/', '\\']) {
            format!(
                "{} calls mindex at {}, which does not exist: its hooks and MCP server fail; {how}",
                self.config, self.binary
            )
        } else {
            format!(
                "{} calls `{}`, which is not on this PATH: its hooks and MCP server fail where agents see the same PATH; {how}",
                self.config, self.binary
            )
        }
    }
}

/// The mindex binaries the vault's agent configs name that cannot run here (a path that is
/// not an executable file, or a bare name not on `PATH`), once per config and binary.
pub fn stale_binaries(vault_root: &Path) -> Vec<StaleBinary> {
    let mut out: Vec<StaleBinary> = Vec::new();
    for rel in AGENT_CONFIGS {
        let Ok(text) = std::fs::read_to_string(vault_root.join(rel)) else {
            continue;
        };
        for binary in binaries_in(rel, &text) {
            let stale = StaleBinary {
                config: rel.to_string(),
                binary,
            };
            if !runs(&stale.binary) && !out.contains(&stale) {
                out.push(stale);
            }
        }
    }
    out
}

/// The mindex programs a config names: hook commands' programs and MCP servers' commands.
fn binaries_in(rel: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    if rel.ends_with(".toml") {
        for t in toml_tables(text) {
            let body = t.body.to_lowercase();
            if !(body.contains("mindex") && body.contains("\"mcp\"")) {
                continue;
            }
            for line in t.body.lines() {
                if let Some(rest) = line
                    .trim()
                    .strip_prefix("command")
                    .and_then(|r| r.trim_start().strip_prefix('='))
                    && let Some(v) = toml_value::parse(rest.trim())
                {
                    found.push(v.0);
                }
            }
        }
        return found;
    }
    let Ok(doc) = serde_json::from_str::<Value>(text) else {
        return found;
    };
    for groups in doc["hooks"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
    {
        for h in groups
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
        {
            if let Some((program, _)) = hook_program(h["command"].as_str().unwrap_or("")) {
                found.push(unquoted(program));
            }
        }
    }
    for spec in doc["mcpServers"]
        .as_object()
        .into_iter()
        .flat_map(|m| m.values())
    {
        if is_mindex_server(spec)
            && let Some(c) = spec["command"].as_str()
        {
            found.push(c.to_string());
        }
    }
    found
}

/// Whether `program` runs here: a path names an executable file; a bare name is found on
/// `PATH`.
pub(super) fn runs(program: &str) -> bool {
    let p = Path::new(program);
    if p.components().count() > 1 {
        return executable(p);
    }
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            executable(&dir.join(program))
                || (cfg!(windows) && executable(&dir.join(format!("{program}.exe"))))
        })
    })
}

fn executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_naming_a_missing_binary_is_stale_and_a_present_one_is_not() {
        let d = tempfile::tempdir().unwrap();
        let bin = d.path().join("bin/mindex");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let gone = d.path().join("old/target/release/mindex");
        let claude = serde_json::json!({"hooks": {"SessionStart": [{"hooks": [
            {"type": "command", "command": format!("'{}' hook session-start", gone.display())},
            {"type": "command", "command": format!("{} hook stop", bin.display())},
            {"type": "command", "command": "~/bin/notify.sh"}
        ]}]}});
        std::fs::create_dir_all(d.path().join(".claude")).unwrap();
        std::fs::write(d.path().join(".claude/settings.json"), claude.to_string()).unwrap();
        std::fs::write(
            d.path().join(".mcp.json"),
            serde_json::json!({"mcpServers": {"mindex": {"command": gone, "args": ["mcp"]}}})
                .to_string(),
        )
        .unwrap();
        std::fs::create_dir_all(d.path().join(".codex")).unwrap();
        std::fs::write(
            d.path().join(".codex/config.toml"),
            format!(
                "[mcp_servers.mindex]\ncommand = \"{}\"\nargs = [\"mcp\"]\n",
                bin.display()
            ),
        )
        .unwrap();
        let stale = stale_binaries(d.path());
        let gone = gone.display().to_string();
        assert_eq!(
            stale,
            [
                StaleBinary {
                    config: ".claude/settings.json".into(),
                    binary: gone.clone()
                },
                StaleBinary {
                    config: ".mcp.json".into(),
                    binary: gone.clone()
                },
            ]
        );
        assert!(
            stale[0].warning().contains("does not exist"),
            "{}",
            stale[0].warning()
        );
    }
}
