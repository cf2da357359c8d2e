//! Agent configs merged with mindex's: hooks and MCP servers in JSON (Claude Code, Gemini CLI)
//! and TOML (Codex), obsidian-mind's entries replaced, the user's own kept, stale binaries
//! repaired.

use serde_json::{Map, Value};

use super::{
    binaries, is_mindex_hook, is_mindex_server, rename_tools, replaced_hook, replaced_server,
    server_text, short_command,
};

pub(super) type Merged = (String, Vec<String>, Vec<String>);

/// A JSON agent config (hooks and/or `mcpServers`) merged with ours.
pub(super) fn merge_json(theirs: &str, ours: &str) -> std::result::Result<Merged, String> {
    let mut doc: Value =
        serde_json::from_str(theirs).map_err(|e| format!("not valid JSON ({e})"))?;
    let ours: Value = serde_json::from_str(ours).map_err(|e| format!("template: {e}"))?;
    let (Some(doc_map), Some(ours_map)) = (doc.as_object_mut(), ours.as_object()) else {
        return Err("not a JSON object".to_string());
    };
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for (key, value) in ours_map {
        match (key.as_str(), doc_map.get_mut(key)) {
            (_, None) => {
                doc_map.insert(key.clone(), value.clone());
                added.push(match key.as_str() {
                    "hooks" => "the mindex hooks".to_string(),
                    "mcpServers" => "the mindex MCP server".to_string(),
                    _ => format!("`{key}`"),
                });
            }
            ("hooks", Some(Value::Object(events))) => {
                merge_hooks(events, value, &mut removed, &mut added)
            }
            ("mcpServers", Some(Value::Object(servers))) => {
                merge_servers(servers, value, &mut removed, &mut added)
            }
            _ => {}
        }
    }
    rename_tools(&mut doc, &mut removed);
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n";
    Ok((text, removed, added))
}

/// The program of a `<mindex> hook <event>` command and what follows `hook `, when the program
/// is a mindex binary (bare, by path, quoted for the shell).
pub(super) fn hook_program(command: &str) -> Option<(&str, &str)> {
    let at = command.find(" hook ")?;
    let program = &command[..at];
    let name = unquoted(program);
    let base = name.rsplit(['/', '\\']).next().unwrap_or(&name);
    (base == "mindex" || base == "mindex.exe").then(|| (program, &command[at + " hook ".len()..]))
}

/// A program as the shell reads it: `'a b'` (with `'\''` for a quote) or `"a b"` unquoted.
pub(super) fn unquoted(program: &str) -> String {
    let p = program.trim();
    if p.len() >= 2 && p.starts_with('\'') && p.ends_with('\'') {
        p[1..p.len() - 1].replace("'\\''", "'")
    } else if p.len() >= 2 && p.starts_with('"') && p.ends_with('"') {
        p[1..p.len() - 1].to_string()
    } else {
        p.to_string()
    }
}

/// Why a config's mindex binary `old` is replaced by this one.
pub(super) fn repair_reason(old: &str) -> &'static str {
    let old = unquoted(old);
    if binaries::runs(&old) {
        "another mindex binary than the one running this merge"
    } else {
        "which cannot be found (moved, removed by `cargo clean`, or reinstalled elsewhere)"
    }
}

pub(super) fn merge_hooks(
    events: &mut Map<String, Value>,
    ours: &Value,
    removed: &mut Vec<String>,
    added: &mut Vec<String>,
) {
    for (event, groups) in events.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                hooks.retain(|h| {
                    let cmd = h["command"].as_str().unwrap_or("");
                    match replaced_hook(cmd) {
                        Some(why) => {
                            removed.push(format!("{event} hook `{}`: {why}", short_command(cmd)));
                            false
                        }
                        None => true,
                    }
                });
            }
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|a| !a.is_empty())
        });
    }
    events.retain(|_, g| g.as_array().is_none_or(|a| !a.is_empty()));
    let Some(ours) = ours.as_object() else {
        return;
    };
    // A mindex hook calling another binary (moved, removed, reinstalled) is pointed at ours.
    let our_program = ours
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
        .find_map(|h| {
            hook_program(h["command"].as_str().unwrap_or("")).map(|(p, _)| p.to_string())
        });
    if let Some(ours_p) = &our_program {
        for (event, groups) in events.iter_mut() {
            for h in groups.as_array_mut().into_iter().flatten().flat_map(|g| {
                g.get_mut("hooks")
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
            }) {
                let Some(cmd) = h["command"].as_str().map(str::to_string) else {
                    continue;
                };
                if let Some((prog, rest)) = hook_program(&cmd)
                    && prog != ours_p
                {
                    let new = format!("{ours_p} hook {rest}");
                    removed.push(format!(
                        "{event} hook `{cmd}`: calls {}, {}",
                        unquoted(prog),
                        repair_reason(prog)
                    ));
                    added.push(format!("{event} hook `{new}`"));
                    h["command"] = Value::from(new);
                }
            }
        }
    }
    for (event, our_groups) in ours {
        let has_ours = events
            .get(event)
            .and_then(Value::as_array)
            .is_some_and(|gs| {
                gs.iter()
                    .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
                    .any(|h| is_mindex_hook(h["command"].as_str().unwrap_or("")))
            });
        if has_ours {
            continue;
        }
        let slot = events
            .entry(event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let (Some(slot), Some(new)) = (slot.as_array_mut(), our_groups.as_array()) {
            slot.extend(new.iter().cloned());
            for h in new
                .iter()
                .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
            {
                added.push(format!(
                    "{event} hook `{}`",
                    h["command"].as_str().unwrap_or("")
                ));
            }
        }
    }
}

pub(super) fn merge_servers(
    servers: &mut Map<String, Value>,
    ours: &Value,
    removed: &mut Vec<String>,
    added: &mut Vec<String>,
) {
    servers.retain(|name, spec| match replaced_server(spec) {
        Some(why) => {
            removed.push(format!("MCP server `{name}`: {why}"));
            false
        }
        None => true,
    });
    let our_command = ours
        .as_object()
        .and_then(|o| o.values().find(|v| is_mindex_server(v)))
        .and_then(|v| v["command"].as_str())
        .map(str::to_string);
    if let Some(ours_c) = &our_command {
        for (name, spec) in servers.iter_mut() {
            if !is_mindex_server(spec) {
                continue;
            }
            let old = spec["command"].as_str().unwrap_or("").to_string();
            if old != *ours_c {
                removed.push(format!(
                    "MCP server `{name}` calling {old}: {}",
                    repair_reason(&old)
                ));
                added.push(format!("MCP server `{name}` calling {ours_c}"));
                spec["command"] = Value::from(ours_c.clone());
            }
        }
    }
    if servers.values().any(is_mindex_server) {
        return;
    }
    for (name, spec) in ours.as_object().into_iter().flatten() {
        let name = if servers.contains_key(name) {
            format!("{name}-vault")
        } else {
            name.clone()
        };
        added.push(format!("MCP server `{name}` (`{}`)", server_text(spec)));
        servers.insert(name, spec.clone());
    }
}

/// Codex's `config.toml` merged with ours, line by line (the user's comments and layout stay):
/// `[mcp_servers.*]` tables that run qmd or obsidian-mind's server are dropped, ours is
/// appended when no table runs `mindex mcp`.
pub(super) fn merge_toml(theirs: &str, ours: &str) -> Merged {
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    let tables = toml_tables(theirs);
    let mut keep = vec![true; theirs.lines().count()];
    let mut has_ours = false;
    let mut repaired: Vec<(usize, String, String)> = Vec::new();
    for t in &tables {
        let Some(server) = t.server() else { continue };
        let body = t.body.to_lowercase();
        if body.contains("om-mcp") || body.contains("qmd") {
            for k in &mut keep[t.start..t.end] {
                *k = false;
            }
            if t.name == format!("mcp_servers.{server}") {
                removed.push(format!(
                    "MCP server `{server}`: {}",
                    if body.contains("om-mcp") {
                        "obsidian-mind's MCP server; `mindex mcp` serves the same tools"
                    } else {
                        "the qmd search server; `mindex mcp` answers search and query itself"
                    }
                ));
            }
        } else if body.contains("mindex") && body.contains("\"mcp\"") {
            has_ours = true;
            repair_toml_command(theirs, ours, t, &mut repaired);
        }
    }
    let mut out: String = theirs
        .lines()
        .enumerate()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(
            |((i, l), _)| match repaired.iter().find(|(at, _, _)| *at == i) {
                Some((_, old, new)) => {
                    removed.push(format!(
                        "MCP server command `{old}`: {}",
                        repair_reason(old)
                    ));
                    added.push(format!("MCP server command `{new}`"));
                    format!("command = {}\n", toml_string(new))
                }
                None => format!("{l}\n"),
            },
        )
        .collect();
    if !has_ours && let Some(t) = toml_tables(ours).into_iter().find(|t| t.server().is_some()) {
        let name = t.server().unwrap_or("mindex").to_string();
        let taken = tables.iter().any(|x| x.server() == Some(name.as_str()));
        let text: String = ours.lines().collect::<Vec<_>>()[t.start..t.end].join("\n");
        let text = if taken {
            text.replacen(
                &format!("[mcp_servers.{name}]"),
                &format!("[mcp_servers.{name}-vault]"),
                1,
            )
        } else {
            text
        };
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(text.trim_end());
        out.push('\n');
        added.push(format!(
            "MCP server `{}`",
            if taken { format!("{name}-vault") } else { name }
        ));
    }
    (out, removed, added)
}

/// The `command = "…"` line of a mindex server table `t` of `theirs` when it names another
/// binary than our table's: (line, old command, ours) is pushed to `repaired`.
pub(super) fn repair_toml_command(
    theirs: &str,
    ours: &str,
    t: &TomlTable,
    repaired: &mut Vec<(usize, String, String)>,
) {
    let command_of = |line: &str| -> Option<String> {
        let rest = line
            .trim()
            .strip_prefix("command")?
            .trim_start()
            .strip_prefix('=')?;
        let v: toml_value::Str = toml_value::parse(rest.trim())?;
        Some(v.0)
    };
    let Some(our_cmd) = ours.lines().find_map(command_of) else {
        return;
    };
    for (i, line) in theirs.lines().enumerate().take(t.end).skip(t.start) {
        if let Some(old) = command_of(line)
            && old != our_cmd
        {
            repaired.push((i, old, our_cmd.clone()));
        }
    }
}

/// A TOML basic string for `s`.
pub(super) fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Reading a TOML string value (basic `"…"` with `\\` and `\"` escapes, or literal `'…'`).
pub(super) mod toml_value {
    pub(in crate::init) struct Str(pub(in crate::init) String);

    pub(in crate::init) fn parse(v: &str) -> Option<Str> {
        if let Some(inner) = v.strip_prefix('\'') {
            return Some(Str(inner.split('\'').next()?.to_string()));
        }
        let inner = v.strip_prefix('"')?;
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return Some(Str(out)),
                '\\' => out.push(chars.next()?),
                c => out.push(c),
            }
        }
        None
    }
}

/// One `[table]` of a TOML text: its name and line range (header to before the next header).
pub(super) struct TomlTable {
    pub(super) name: String,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) body: String,
}

impl TomlTable {
    /// The server name of an `[mcp_servers.<name>]` table or one of its sub-tables.
    fn server(&self) -> Option<&str> {
        let rest = self.name.strip_prefix("mcp_servers.")?;
        Some(rest.split('.').next().unwrap_or(rest).trim_matches('"'))
    }
}

pub(super) fn toml_tables(text: &str) -> Vec<TomlTable> {
    let lines: Vec<&str> = text.lines().collect();
    let mut tables: Vec<TomlTable> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.starts_with('[') && t.ends_with(']') {
            if let Some(last) = tables.last_mut() {
                last.end = i;
            }
            tables.push(TomlTable {
                name: t.trim_matches(|c| c == '[' || c == ']').trim().to_string(),
                start: i,
                end: lines.len(),
                body: String::new(),
            });
        }
    }
    for t in &mut tables {
        t.body = lines[t.start..t.end].join("\n");
    }
    tables
}
