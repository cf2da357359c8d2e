//! The audit log: one JSON line per agent-facing read or write, rotated at 5 MiB.
