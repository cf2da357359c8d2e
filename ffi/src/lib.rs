//! C ABI for the mindex engine.
//!
//! This crate starts small: the version and the stable error codes shared with the engine's
//! `ErrorCode`. The opaque handles (`mindex_vault`, `mindex_results`, `mindex_error`), the
//! cbindgen-generated header and the C tests come with the bindings issue.

#![expect(non_camel_case_types, reason = "C naming")]

use std::ffi::c_char;

/// Stable numeric error codes; the same numbers as the Rust `mindex::ErrorCode`.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum mindex_code {
    /// Success.
    Ok = 0,
    /// A panic was caught at the boundary.
    Panic = 1,
    /// A required pointer argument was NULL.
    NullArg = 2,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 3,
    /// An argument was invalid.
    InvalidArgument = 4,
    /// The vault folder does not exist.
    VaultNotFound = 10,
    /// The note does not exist.
    NoteNotFound = 11,
    /// No index yet: run update first.
    IndexMissing = 12,
    /// The index is corrupt or incompatible.
    Corrupt = 13,
    /// Another process is updating the index.
    Busy = 14,
    /// An I/O error.
    Io = 20,
    /// A lexical index error.
    Lexical = 21,
    /// The model folder lacks a file.
    ModelMissing = 30,
    /// The model could not be loaded or run.
    Model = 31,
    /// No vectors for the model yet: run embed.
    VectorsMissing = 32,
}

impl From<mindex::ErrorCode> for mindex_code {
    fn from(c: mindex::ErrorCode) -> Self {
        use mindex::ErrorCode as E;
        match c {
            E::Ok => mindex_code::Ok,
            E::Panic => mindex_code::Panic,
            E::NullArg => mindex_code::NullArg,
            E::InvalidUtf8 => mindex_code::InvalidUtf8,
            E::InvalidArgument => mindex_code::InvalidArgument,
            E::VaultNotFound => mindex_code::VaultNotFound,
            E::NoteNotFound => mindex_code::NoteNotFound,
            E::IndexMissing => mindex_code::IndexMissing,
            E::Corrupt => mindex_code::Corrupt,
            E::Busy => mindex_code::Busy,
            E::Io => mindex_code::Io,
            E::Lexical => mindex_code::Lexical,
            E::ModelMissing => mindex_code::ModelMissing,
            E::Model => mindex_code::Model,
            E::VectorsMissing => mindex_code::VectorsMissing,
            _ => mindex_code::InvalidArgument,
        }
    }
}

static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// The library version as a NUL-terminated string, valid for the life of the process.
#[unsafe(no_mangle)]
pub extern "C" fn mindex_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_engine() {
        use mindex::ErrorCode as E;
        for c in [
            E::Ok,
            E::Panic,
            E::NullArg,
            E::InvalidUtf8,
            E::InvalidArgument,
            E::VaultNotFound,
            E::NoteNotFound,
            E::IndexMissing,
            E::Corrupt,
            E::Busy,
            E::Io,
            E::Lexical,
            E::ModelMissing,
            E::Model,
            E::VectorsMissing,
        ] {
            assert_eq!(mindex_code::from(c) as u32, c as u32);
        }
    }

    #[test]
    fn version_is_nul_terminated() {
        let s = unsafe { std::ffi::CStr::from_ptr(mindex_version()) };
        assert_eq!(s.to_str().unwrap(), mindex::VERSION);
    }
}
