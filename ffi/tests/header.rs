//! The committed header `ffi/include/mindex.h` is what cbindgen generates from the sources.
//! `MINDEX_BLESS=1 cargo test -p mindex-ffi --test header` rewrites it.

use std::path::Path;

#[test]
fn header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen")
        .write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = crate_dir.join("include/mindex.h");
    if std::env::var_os("MINDEX_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "ffi/include/mindex.h is stale: run `MINDEX_BLESS=1 cargo test -p mindex-ffi --test header` and commit it"
    );
}
