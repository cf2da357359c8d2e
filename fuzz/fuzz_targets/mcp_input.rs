//! The MCP server's input path: any line of bytes as a JSON-RPC message, one server for the
//! whole run (so state carried between messages is fuzzed too).
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use mindex::{NoProgress, Vault, VaultOptions};
use mindex_agent::{McpOptions, McpServer};

fn server() -> &'static Arc<McpServer> {
    static S: OnceLock<(tempfile::TempDir, Arc<McpServer>)> = OnceLock::new();
    &S.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        mindex::init::init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
        let v = Vault::open(&root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let opts = McpOptions {
            identity_timeout: Duration::from_millis(1),
            use_vectors: false,
            ..McpOptions::default()
        };
        let s = McpServer::new(v, opts, |line: &str| {
            // Every answer is one line of valid JSON.
            assert!(!line.contains('\n'));
            serde_json::from_str::<serde_json::Value>(line).expect("the server writes JSON");
        });
        (d, s)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    if let Some(h) = server().handle_line(&line) {
        // Workers catch panics and answer -32603; the fuzzer checks every answer is valid JSON.
        h.wait();
    }
});
