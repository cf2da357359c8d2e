//! The engine's layers, checked: every `crate::` path in a top-level module's code (comments and
//! `#[cfg(test)]` modules left out) names a module of a lower layer, as drawn in ARCHITECTURE.md's
//! "Engine layers" block. So the modules form no import cycle, and the drawing stays true: a new
//! module, or an import upward, fails here naming the file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// `crate::` edges of one top-level module: (target module, "file:line").
type Edges = BTreeMap<String, Vec<(String, String)>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules (files and folders under `src/`), test-only ones left out.
fn modules() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in fs::read_dir(src()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let module = name.strip_suffix(".rs").unwrap_or(&name).to_string();
        if module != "lib" && !module.ends_with("tests") {
            out.insert(module);
        }
    }
    out
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The module names a `crate::` path at `rest` (just past `crate::`) starts with: one name, or
/// each name at the top of a `{…}` group.
fn named(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    let mut names = Vec::new();
    let mut depth = 0;
    let mut start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => start = true,
            c if start && !c.is_whitespace() => {
                names.push(ident(&group[i..]));
                start = false;
            }
            _ => {}
        }
    }
    names
}

fn edges(modules: &BTreeSet<String>) -> Edges {
    let mut all = Vec::new();
    files(&src(), &mut all);
    let mut out: Edges = BTreeMap::new();
    for path in all {
        let rel = path.strip_prefix(src()).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if !modules.contains(&top) || rel.to_string_lossy().ends_with("tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            // A test module ends what the layer rules cover (tests may reach anywhere).
            if t == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .take(3)
                    .any(|l| l.trim_start().starts_with("mod ") || l.contains(" mod "))
            {
                break;
            }
            if t.starts_with("//") {
                continue;
            }
            let code = line.split("//").next().unwrap_or("");
            let mut at = 0;
            while let Some(k) = code[at..].find("crate::") {
                let from = at + k + "crate::".len();
                // `mindex::crate::` cannot occur; `$crate::` (macros) is not a module edge.
                let macro_path = code[..at + k].ends_with('$');
                if !macro_path {
                    for name in named(&code[from..]) {
                        if name != top && modules.contains(&name) {
                            out.entry(top.clone())
                                .or_default()
                                .push((name, format!("{}:{}", rel.display(), i + 1)));
                        }
                    }
                }
                at = from;
            }
        }
    }
    out
}

/// The layers drawn in ARCHITECTURE.md, bottom first: the lines `layer N: a b c` of the block
/// after the "Engine layers" heading.
fn drawn_layers() -> BTreeMap<String, usize> {
    let doc = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ARCHITECTURE.md"))
        .unwrap();
    let section = doc
        .split("### Engine layers")
        .nth(1)
        .expect("ARCHITECTURE.md has an \"### Engine layers\" section");
    let mut layers = BTreeMap::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let Some(rest) = line.trim().strip_prefix("layer ") else {
            continue;
        };
        let (n, names) = rest.split_once(':').expect("layer N: modules");
        let n: usize = n.trim().parse().expect("a layer number");
        for name in names.split_whitespace() {
            assert!(
                layers.insert(name.to_string(), n).is_none(),
                "ARCHITECTURE.md draws {name} twice"
            );
        }
    }
    layers
}

#[test]
fn every_import_goes_down_a_layer() {
    let modules = modules();
    let layers = drawn_layers();
    let undrawn: Vec<&String> = modules
        .iter()
        .filter(|m| !layers.contains_key(*m))
        .collect();
    assert!(
        undrawn.is_empty(),
        "modules missing from ARCHITECTURE.md's engine layers: {undrawn:?}"
    );
    let gone: Vec<&String> = layers.keys().filter(|m| !modules.contains(*m)).collect();
    assert!(
        gone.is_empty(),
        "ARCHITECTURE.md draws modules that do not exist: {gone:?}"
    );
    let mut upward = Vec::new();
    for (from, to) in edges(&modules) {
        for (target, at) in to {
            if layers[&target] >= layers[&from] {
                upward.push(format!(
                    "{at}: {from} (layer {}) uses {target} (layer {})",
                    layers[&from], layers[&target]
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that do not go down a layer:\n{}",
        upward.join("\n")
    );
}

#[test]
fn the_parser_sees_groups_and_paths() {
    assert_eq!(named("exposure::note_is_private(x)"), vec!["exposure"]);
    assert_eq!(
        named("{memory::{Memory, Scope}, vault::Surface, note};"),
        vec!["memory", "vault", "note"]
    );
    // And the check has something to check: the vault imports several layers below it.
    let e = edges(&modules());
    let vault: BTreeSet<&str> = e["vault"].iter().map(|(t, _)| t.as_str()).collect();
    assert!(
        vault.contains("lexical") && vault.contains("memory"),
        "{vault:?}"
    );
}
