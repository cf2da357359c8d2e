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

/// `pub static NAME: &[(&str, &[u8])]` holding every file under `root` (none when it is absent).
fn embed(code: &mut String, name: &str, doc: &str, root: &Path) {
    let mut files = Vec::new();
    if root.is_dir() {
        collect(root, root, &mut files);
    }
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

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut code = String::new();
    embed(
        &mut code,
        "TEMPLATE_FILES",
        "Every file of the vault template (an empty, working vault)",
        &manifest.join("..").join("vault-template"),
    );
    embed(
        &mut code,
        "SAMPLE_FILES",
        "The sample notes `init --with-samples` adds on top (replacing the empty index notes)",
        &manifest.join("..").join("vault-samples"),
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("template.rs");
    std::fs::write(out, code).expect("write template.rs");
}
