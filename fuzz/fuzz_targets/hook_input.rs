//! The hooks' stdin path: any bytes as the agent's payload, for every event, on the sample vault.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mindex_agent::hooks::{HookContext, HookEvent, run_hook};

fn root() -> &'static std::path::Path {
    static R: OnceLock<(tempfile::TempDir, std::path::PathBuf)> = OnceLock::new();
    &R.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        mindex::init::init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
        (d, root)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    let ctx = HookContext::new(root());
    for ev in HookEvent::ALL {
        let out = run_hook(ev, data, &ctx);
        if !out.stdout.is_empty() {
            serde_json::from_str::<serde_json::Value>(&out.stdout).expect("hooks print JSON");
        }
    }
});
