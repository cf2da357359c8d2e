//! # mindex-agent
//!
//! The agent surfaces of mindex, outside the engine so the compiler keeps them thin: they see
//! only the engine's public API.
//!
//! - [`mcp`]: the MCP server (`mindex mcp`): JSON-RPC over a line transport, identity from the
//!   client's roots, a bounded worker pool; every tool goes through the engine's scoped agent
//!   view ([`mindex::Scoped`]), which applies the exposure policy and writes the audit log.
//! - [`serve`]: the same server over Streamable HTTP (`mindex serve`): one process for a team,
//!   bearer tokens naming each caller, sessions sharing one [`mcp::Backend`].
//! - [`hooks`]: the lifecycle hooks (`mindex hook <event>`) for Claude Code, Codex and Gemini CLI.

#![warn(missing_docs)]

pub mod hooks;
pub mod mcp;
pub mod serve;

pub use mcp::{
    BUSY, Backend, IDENTITY_TIMEOUT, IDENTITY_UNKNOWN, INSTRUCTIONS, MAX_MESSAGE_BYTES,
    MAX_QUERY_CHARS, McpOptions, McpServer, PROTOCOL_VERSIONS, Ticket,
};
