//! The template's agent commands (generated from `workflows/` into Claude Code, Codex and Gemini
//! CLI formats): each parses in its agent's format, the three sets match, every `mindex` command
//! a workflow names exists with the flags it uses, and every path it names exists in a new vault.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

#[path = "support/run.rs"]
mod run;
use run::mindex;

const AGENTS: [(&str, &str); 3] = [
    (".claude/commands", "md"),
    (".codex/prompts", "md"),
    (".gemini/commands", "toml"),
];

fn names(dir: &Path, ext: &str) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect()
}

/// Every file name under `dir`, lowercased.
fn walk_names(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_names(&p));
        } else {
            out.insert(e.file_name().to_string_lossy().to_lowercase());
        }
    }
    out
}

/// The text between backticks.
fn spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn every_agent_gets_the_same_commands_and_each_parses() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    mindex::init::init_vault(&v, &mindex::init::InitOptions::default()).unwrap();
    let sets: Vec<BTreeSet<String>> = AGENTS
        .iter()
        .map(|(d, ext)| names(&v.join(d), ext))
        .collect();
    assert!(sets[0].len() >= 4, "{:?}", sets[0]);
    for want in ["wrap-up", "incident-capture", "vault-audit", "prep-1on1"] {
        assert!(sets[0].contains(want), "{want}: {:?}", sets[0]);
    }
    assert!(sets.windows(2).all(|w| w[0] == w[1]), "{sets:?}");

    for name in &sets[0] {
        for (d, ext) in &AGENTS[..2] {
            let text = fs::read_to_string(v.join(d).join(format!("{name}.{ext}"))).unwrap();
            let fm = frontmatter_of(&text)
                .unwrap_or_else(|| panic!("{d}/{name}: frontmatter does not parse"));
            for key in ["description", "argument-hint"] {
                assert!(
                    fm.get(key)
                        .and_then(|x| x.as_str())
                        .is_some_and(|s| !s.is_empty()),
                    "{d}/{name}: {key}"
                );
            }
            if d.starts_with(".claude") {
                let tools = fm["allowed-tools"].as_str().unwrap();
                assert!(tools.contains("Bash(mindex "), "{tools}");
            }
            assert!(
                text.contains("$ARGUMENTS") && !text.contains("{{args}}"),
                "{d}/{name}"
            );
        }
        // Gemini reads TOML: parsed by Python's tomllib, the reference reader.
        let toml = v.join(".gemini/commands").join(format!("{name}.toml"));
        let out = Command::new("python3")
            .args([
                "-c",
                "import sys, tomllib; d = tomllib.load(open(sys.argv[1], 'rb')); \
                 assert d['description'] and '{{args}}' in d['prompt'], d",
            ])
            .arg(&toml)
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}: {}",
            toml.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Checks every `mindex` command (with its flags) and every vault path `text` names, and the
/// `Bash(mindex …:*)` tools of its `tools_line`; returns how many of each were checked.
fn check_names(name: &str, text: &str, tools_line: &str, v: &Path) -> (usize, usize) {
    let mut checked = (0, 0);
    let tools: Vec<String> = tools_line
        .split("Bash(mindex ")
        .skip(1)
        .map(|t| format!("mindex {}", t.split(':').next().unwrap()))
        .collect();
    // Wikilinks outside code spans name notes of a new vault.
    for outside in text.split('`').step_by(2) {
        for link in outside
            .split("[[")
            .skip(1)
            .filter_map(|l| l.split_once("]]"))
        {
            let target = link.0.split(['|', '#']).next().unwrap_or_default().trim();
            let found = walk_names(v).contains(&format!("{}.md", target.to_lowercase()));
            assert!(found, "{name}: [[{target}]] names no note of a new vault");
            checked.1 += 1;
        }
    }
    for span in spans(text).into_iter().chain(tools) {
        if let Some(rest) = span.strip_prefix("mindex ") {
            let words: Vec<&str> = rest.split(' ').collect();
            let help = mindex(&[words[0], "--help"]);
            assert!(help.status.success(), "{name}: `{span}`: no such command");
            let help = String::from_utf8_lossy(&help.stdout).into_owned();
            for flag in words.iter().filter(|w| w.starts_with("--")) {
                assert!(help.contains(*flag), "{name}: `{span}`: no {flag}");
            }
            checked.0 += 1;
        } else if (span.ends_with(".md") || (span.contains('/') && !span.contains(' ')))
            && !span.contains(['<', '{', '$', '*', '"', '('])
            && !span.contains("YYYY")
            && !span.starts_with("~/")
        {
            assert!(
                v.join(&span).exists(),
                "{name}: `{span}` is not in a new vault"
            );
            checked.1 += 1;
        }
    }
    checked
}

#[test]
fn every_command_and_path_a_workflow_names_exists() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    mindex::init::init_vault(&v, &mindex::init::InitOptions::default()).unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workflows");
    let mut checked = (0, 0);
    for e in fs::read_dir(&src).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "md") || p.ends_with("README.md") {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let tools = text
            .lines()
            .find_map(|l| l.strip_prefix("allowed-tools:"))
            .unwrap();
        let (c, n) = check_names(&name, &text, tools, &v);
        checked = (checked.0 + c, checked.1 + n);
    }
    assert!(checked.0 >= 20 && checked.1 >= 10, "{checked:?}");
}

/// The subagents (`.claude/agents/*.md`, Claude Code's format): each parses, is named as its
/// file, says when to use it, has a narrow tool list (`mindex` subcommands and file tools, never
/// an unrestricted shell), and names only commands and paths that exist.
#[test]
fn every_subagent_parses_and_has_a_narrow_tool_list() {
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v");
    mindex::init::init_vault(&v, &mindex::init::InitOptions::default()).unwrap();
    let agents = names(&v.join(".claude/agents"), "md");
    assert!(agents.len() >= 5, "{agents:?}");
    for a in &agents {
        let text = fs::read_to_string(v.join(".claude/agents").join(format!("{a}.md"))).unwrap();
        let fm = frontmatter_of(&text).unwrap_or_else(|| panic!("{a}: frontmatter does not parse"));
        assert_eq!(fm["name"].as_str(), Some(a.as_str()));
        assert!(
            fm["description"]
                .as_str()
                .is_some_and(|d| d.contains("Use ")),
            "{a}"
        );
        let tools = fm["tools"].as_str().unwrap();
        for t in tools.split(", ") {
            let allowed = ["Read", "Edit", "Write"].contains(&t) || t.starts_with("Bash(mindex ");
            assert!(allowed, "{a}: tool {t} is not a narrow one");
        }
        let (c, _) = check_names(a, &text, tools, &v);
        assert!(c >= 3, "{a}");
    }
}

/// The frontmatter of `text` as the engine's note reader parses it; `None` when it is missing,
/// does not close or does not parse.
fn frontmatter_of(text: &str) -> Option<serde_json::Map<String, serde_json::Value>> {
    let parsed = mindex::parse_note("command.md", text);
    (parsed.warnings.is_empty() && !parsed.note.frontmatter.is_empty())
        .then_some(parsed.note.frontmatter)
}
