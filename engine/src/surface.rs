//! The surfaces an agent action is reported on (MCP, the CLI, Python, C): a leaf, so the memory
//! contract below the vault can record which surface wrote a memory.

/// The surface an outcome is reported on: advice names that surface's own arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// MCP tool arguments (`supersedes: [...]`, `force: true`): the messages' default.
    Mcp,
    /// The `mindex` command line (`--supersedes "..."`, `--force`).
    Cli,
    /// The Python binding's keyword arguments (`supersedes=[...]`, `force=True`).
    Python,
    /// The C ABI (JSON arguments, as MCP's).
    C,
}

impl Surface {
    /// The surface's name as a memory's `via:` records it: `mcp`, `cli`, `python`, `c`.
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Mcp => "mcp",
            Surface::Cli => "cli",
            Surface::Python => "python",
            Surface::C => "c",
        }
    }
}
