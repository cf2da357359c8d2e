//! Builds `ffi/tests/c/smoke.c` with the system C compiler against the built `libmindex.so`
//! and runs it: once plainly, once under valgrind's leak checker (no definite or indirect
//! leaks, no invalid reads or writes).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding the built library: the target profile folder above this test binary.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/c_api-<hash>
    let dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    assert!(
        dir.join("libmindex.so").exists() || dir.join("libmindex.dylib").exists(),
        "libmindex not built in {} (cargo builds it with the ffi crate's tests)",
        dir.display()
    );
    dir
}

fn compile(out: &Path) {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = lib_dir();
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-g"])
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/smoke.c"))
        .arg("-o")
        .arg(out)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lmindex")
        .status()
        .expect("run the C compiler (cc)");
    assert!(status.success(), "the C example failed to compile");
}

fn model_dir() -> Option<PathBuf> {
    let d = mindex::embed::model_dir(None);
    d.join("model.safetensors").exists().then_some(d)
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed\n{stdout}\n{stderr}");
    assert!(stdout.contains("ok"), "{stdout}\n{stderr}");
    stderr
}

#[test]
fn c_example_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("smoke");
    compile(&exe);
    let mut cmd = Command::new(&exe);
    cmd.arg(tmp.path().join("vault"));
    if let Some(m) = model_dir() {
        cmd.arg(m);
    }
    run(&mut cmd);
}

#[test]
fn c_example_is_leak_free_under_valgrind() {
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("smoke");
    compile(&exe);
    let stderr = run(Command::new("valgrind")
        .args([
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect",
            "--error-exitcode=99",
            "--quiet",
        ])
        .arg(&exe)
        .arg(tmp.path().join("vault")));
    assert!(!stderr.contains("definitely lost"), "{stderr}");
}
