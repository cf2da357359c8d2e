//! Embeds `../vault-template` (and the sample notes in `../vault-samples`) into the library so
//! `init` works from any installed binary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, root: &Path, out: &mut Vec<(String, PathBuf)>) {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read vault-template")
        .flatten()
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if path.is_dir() {
            collect(&path, root, out);
        } else {
            let rel = path
                .strip_prefix(root)
                .expect("inside template")
                .to_string_lossy()
                .replace('\\', "/");
            println!("cargo:rerun-if-changed={}", path.display());
            out.push((rel, path));
        }
    }
}

/// `pub static NAME: &[(&str, &[u8])]` holding every file under `root` (none when it is absent)
/// and the `extra` (vault-relative path, file) pairs.
fn embed(code: &mut String, name: &str, doc: &str, root: &Path, extra: Vec<(String, PathBuf)>) {
    let mut files = Vec::new();
    if root.is_dir() {
        collect(root, root, &mut files);
    }
    files.extend(extra);
    writeln!(
        code,
        "/// {doc}: (vault-relative path, contents).\npub static {name}: &[(&str, &[u8])] = &["
    )
    .expect("write to string");
    for (rel, path) in files {
        writeln!(
            code,
            "    ({rel:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .expect("write to string");
    }
    code.push_str("];\n");
}

/// One workflow of `../workflows/`: its name, frontmatter values and prompt.
struct Workflow {
    name: String,
    description: String,
    argument_hint: String,
    allowed_tools: String,
    body: String,
}

fn read_workflow(path: &Path) -> Workflow {
    let text = std::fs::read_to_string(path).expect("read workflow");
    let name = path
        .file_stem()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    let rest = text
        .strip_prefix("---\n")
        .unwrap_or_else(|| panic!("{}: starts with a --- frontmatter block", path.display()));
    let (head, body) = rest
        .split_once("\n---\n")
        .unwrap_or_else(|| panic!("{}: frontmatter never closes", path.display()));
    let field = |key: &str| -> String {
        head.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}:")))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| panic!("{}: no {key}", path.display()))
    };
    let body = body.trim_start_matches('\n').to_string();
    assert!(
        !body.contains('\\') && !body.contains("\"\"\""),
        "{}: the prompt must hold no backslash or triple quote (it becomes a TOML string)",
        path.display()
    );
    Workflow {
        description: field("description"),
        argument_hint: field("argument-hint"),
        allowed_tools: field("allowed-tools"),
        body,
        name,
    }
}

/// A YAML double-quoted (JSON) string.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The three agents' files of every workflow, written under `out`: (vault-relative path, file).
fn workflows(src: &Path, out: &Path) -> Vec<(String, PathBuf)> {
    println!("cargo:rerun-if-changed={}", src.display());
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(src) {
        Ok(rd) => rd.flatten().map(|e| e.path()).collect(),
        Err(_) => return Vec::new(),
    };
    paths.retain(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("README.md"));
    paths.sort();
    let mut files = Vec::new();
    for p in paths {
        println!("cargo:rerun-if-changed={}", p.display());
        let w = read_workflow(&p);
        let with_arguments = w.body.replace("{{args}}", "$ARGUMENTS");
        let generated = [
            (
                format!(".claude/commands/{}.md", w.name),
                format!(
                    "---\ndescription: {}\nargument-hint: {}\nallowed-tools: {}\n---\n{with_arguments}",
                    quoted(&w.description),
                    quoted(&w.argument_hint),
                    quoted(&w.allowed_tools)
                ),
            ),
            (
                format!(".codex/prompts/{}.md", w.name),
                format!(
                    "---\ndescription: {}\nargument-hint: {}\n---\n{with_arguments}",
                    quoted(&w.description),
                    quoted(&w.argument_hint)
                ),
            ),
            (
                format!(".gemini/commands/{}.toml", w.name),
                format!(
                    "description = {}\nprompt = \"\"\"\n{}\"\"\"\n",
                    quoted(&w.description),
                    w.body
                ),
            ),
        ];
        for (rel, text) in generated {
            let path = out.join(rel.replace('/', "__"));
            std::fs::write(&path, text).expect("write a generated command");
            files.push((rel, path));
        }
    }
    files
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    let generated = workflows(&manifest.join("..").join("workflows"), &out_dir);
    let mut code = String::new();
    embed(
        &mut code,
        "TEMPLATE_FILES",
        "Every file of the vault template (an empty, working vault), with the agents' commands generated from `workflows/`",
        &manifest.join("..").join("vault-template"),
        generated,
    );
    embed(
        &mut code,
        "SAMPLE_FILES",
        "The sample notes `init --with-samples` adds on top (replacing the empty index notes)",
        &manifest.join("..").join("vault-samples"),
        Vec::new(),
    );
    std::fs::write(out_dir.join("template.rs"), code).expect("write template.rs");
}
