//! Running the `mindex` binary from process tests (`#[path = "support/run.rs"] mod run;`): the
//! environment that would point it elsewhere (vault, index folder, backtraces) removed.

use std::process::{Command, Output};

pub fn mindex(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args(args)
        .env_remove("MINDEX_VAULT")
        .env_remove("MINDEX_INDEX_DIR")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run mindex")
}
