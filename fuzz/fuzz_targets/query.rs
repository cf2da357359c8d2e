//! The query path: lenient query syntax, CJK rewriting, identifier splitting and typed
//! sub-queries, against a real index of the sample vault.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mindex::{NoProgress, QueryOptions, SearchOptions, SubQuery, Vault, VaultOptions};

fn vault() -> &'static Vault {
    static V: OnceLock<(tempfile::TempDir, Vault)> = OnceLock::new();
    &V.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        mindex::init::init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
        let v = Vault::open(&root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        (d, v)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let v = vault();
    let _ = v.search(&text, &SearchOptions { limit: 5, all_chunks: data.first().is_some_and(|b| b & 1 == 1) });
    // Typed sub-queries: split the input into lex / vec parts at NUL bytes.
    let subs: Vec<SubQuery> = text
        .split('\0')
        .enumerate()
        .map(|(i, t)| if i % 2 == 0 { SubQuery::lex(t) } else { SubQuery::vec(t) })
        .collect();
    let _ = v.query(None, &subs, &QueryOptions { limit: 5, ..QueryOptions::default() });
    let _ = v.get(&text, None, Some(3));
});
