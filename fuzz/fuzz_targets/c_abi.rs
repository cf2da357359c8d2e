//! The C ABI's string and pointer inputs: arbitrary bytes (invalid UTF-8 included) as every
//! string argument, NULL handles and NULL out-parameters. Errors are expected; crashes are not.
#![no_main]

use std::ptr;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

// The C ABI's own source, compiled into the target (the library itself is a cdylib/staticlib).
#[path = "../../ffi/src/lib.rs"]
#[allow(dead_code, unused_imports, reason = "only part of the ABI is driven here")]
mod ffi;
use ffi::*;

struct Handle(*mut mindex_vault);
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

fn vault() -> *mut mindex_vault {
    static V: OnceLock<(tempfile::TempDir, Handle)> = OnceLock::new();
    V.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        let p = root.to_str().unwrap().as_bytes();
        let mut v = ptr::null_mut();
        let e = unsafe { mindex_vault_create(p.as_ptr(), p.len(), &mut v) };
        assert!(e.is_null());
        let mut report = ptr::null_mut();
        let e = unsafe { mindex_vault_update(v, &mut report) };
        assert!(e.is_null());
        unsafe { mindex_string_free(report) };
        (d, Handle(v))
    })
    .1
    .0
}

fn check(e: *mut mindex_error) {
    if !e.is_null() {
        let msg = unsafe { mindex_error_message(e) };
        assert!(!msg.is_null());
        unsafe { mindex_error_free(e) };
    }
}

fuzz_target!(|data: &[u8]| {
    let v = vault();
    let (p, n) = (data.as_ptr(), data.len());
    let mut results = ptr::null_mut();
    check(unsafe { mindex_vault_search(v, p, n, 5, &mut results) });
    unsafe { mindex_results_free(results) };
    let mut s = ptr::null_mut();
    check(unsafe { mindex_vault_get(v, p, n, &mut s) });
    unsafe { mindex_string_free(s) };
    // NULL handles and out-parameters are refused, never dereferenced.
    check(unsafe { mindex_vault_search(ptr::null(), p, n, 5, &mut results) });
    check(unsafe { mindex_vault_search(v, p, n, 5, ptr::null_mut()) });
    check(unsafe { mindex_vault_search(v, ptr::null(), n, 5, &mut results) });
    unsafe { mindex_results_free(results) };
    let mut s2 = ptr::null_mut();
    check(unsafe { mindex_vault_remember(v, p, n, p, n, std::ptr::null(), &mut s2) });
    unsafe { mindex_string_free(s2) };
});
