//! `vault-manifest.json`: the fields the engine reads, parsed tolerantly.
