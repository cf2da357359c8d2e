//! Warnings and reports returned by vault operations.

use serde::{Deserialize, Serialize};

/// What kind of problem a [`Warning`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WarningKind {
    /// The file could not be read (permissions, vanished, I/O error).
    Unreadable,
    /// The file is not valid UTF-8; it was indexed with replacement characters.
    InvalidUtf8,
    /// The file looks binary (contains NUL bytes); it was skipped.
    Binary,
    /// The file is larger than the configured limit; it was skipped.
    TooLarge,
    /// The frontmatter is malformed or never closes; the note was indexed anyway.
    Frontmatter,
    /// A symlink leads back into a folder already walked; it was skipped.
    SymlinkLoop,
    /// A symlink points outside the vault, or nowhere; it was not followed.
    SymlinkOutside,
    /// A `.md` entry that is not a regular file (FIFO, socket, device); it was skipped.
    NotAFile,
    /// A vault configuration file (such as `.obsidian/app.json`) could not be used.
    Config,
}

/// A problem with one file, reported without stopping the operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// Vault-relative path of the file concerned.
    pub path: String,
    /// The kind of problem.
    pub kind: WarningKind,
    /// A human-readable explanation.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// A note renamed (or moved) with unchanged content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rename {
    /// The old vault-relative path.
    pub from: String,
    /// The new vault-relative path.
    pub to: String,
}

/// What an update changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    /// Notes new to the index.
    pub added: Vec<String>,
    /// Notes whose content changed.
    pub modified: Vec<String>,
    /// Notes gone from the vault.
    pub removed: Vec<String>,
    /// Notes moved with the same content.
    pub renamed: Vec<Rename>,
}

/// How many notes changed, by kind: [`Changes`] counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeCounts {
    /// Notes added.
    pub added: usize,
    /// Notes modified.
    pub modified: usize,
    /// Notes removed.
    pub removed: usize,
    /// Notes renamed.
    pub renamed: usize,
}

impl ChangeCounts {
    /// All kinds together.
    pub fn total(&self) -> usize {
        self.added + self.modified + self.removed + self.renamed
    }
}

impl Changes {
    /// Total number of notes changed.
    pub fn len(&self) -> usize {
        self.added.len() + self.modified.len() + self.removed.len() + self.renamed.len()
    }

    /// How many notes of each kind changed.
    pub fn counts(&self) -> ChangeCounts {
        ChangeCounts {
            added: self.added.len(),
            modified: self.modified.len(),
            removed: self.removed.len(),
            renamed: self.renamed.len(),
        }
    }

    /// The first `max` paths of each kind.
    pub fn first(&self, max: usize) -> Changes {
        let cut = |v: &[String]| v.iter().take(max).cloned().collect();
        Changes {
            added: cut(&self.added),
            modified: cut(&self.modified),
            removed: cut(&self.removed),
            renamed: self.renamed.iter().take(max).cloned().collect(),
        }
    }

    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The result of [`crate::Vault::update`].
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct UpdateReport {
    /// What changed.
    pub changes: Changes,
    /// Notes whose content was unchanged (including those only touched).
    pub unchanged: usize,
    /// Notes in the index after the update.
    pub notes: usize,
    /// Chunks in the index after the update.
    pub chunks: usize,
    /// Problems found; none stopped the update.
    pub warnings: Vec<Warning>,
    /// Whether the whole index was rebuilt (first run, or format change).
    pub rebuilt: bool,
    /// Wall time of the update in milliseconds.
    pub elapsed_ms: u64,
    /// Whether a running watcher made the update (the vault was not walked: the watcher's
    /// events named what changed).
    #[serde(default)]
    pub by_watcher: bool,
}
