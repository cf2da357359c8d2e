//! The link graph: `expand` (a note's visible neighbourhood, through the scoped view) and
//! `graph_audit` (orphans and broken links).

use serde::Serialize;

use super::Vault;
use crate::error::{Error, Result};
use crate::identity::Caller;
use crate::resolve::{LinkResolver, LinkTarget};

/// A note named in [`Expansion`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkedNote {
    /// The note's label (file name without `.md`).
    pub label: String,
    /// Vault-relative path.
    pub path: String,
}

/// The outcome of [`Vault::expand`]: a note and its visible neighbourhood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expansion {
    /// Vault-relative path.
    pub path: String,
    /// File name without `.md`.
    pub label: String,
    /// The exposed root it is under.
    pub scope: String,
    /// Frontmatter `description`.
    pub description: Option<String>,
    /// Visible notes it links to.
    pub links_out: Vec<LinkedNote>,
    /// Link targets not shown (outside the caller's scope, or missing).
    pub links_out_hidden: usize,
    /// Visible notes linking to it.
    pub linked_from: Vec<LinkedNote>,
}

/// A wikilink whose target resolves to nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenLink {
    /// The linking note.
    pub from: String,
    /// The target as written.
    pub target: String,
}

/// The outcome of [`Vault::graph_audit`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GraphAudit {
    /// Notes checked (the index, memories excluded).
    pub notes: usize,
    /// Notes nothing links to.
    pub orphans: Vec<String>,
    /// Links to notes that do not exist.
    pub broken: Vec<BrokenLink>,
}

impl Vault {
    /// A note and its visible neighbourhood, as an anonymous agent caller sees it
    /// ([`crate::Scoped::expand`]).
    ///
    /// A note that exists but lies outside the exposed roots is an error that says so (the
    /// vault's owner may know what an agent may not): `get` reads it, `expand` does not.
    pub fn expand(&self, note: &str) -> Result<Expansion> {
        match self.scoped(&Caller::anonymous()).expand(note) {
            Err(Error::NoteNotFound { .. }) if self.resolve(note).is_ok() => {
                let rel = self.resolve(note)?;
                let roots = self.agent().exposure.roots().join(", ");
                Err(Error::invalid(
                    "note",
                    format!(
                        "{rel} is in the vault but outside the folders exposed to agents ({roots}): expand shows the link graph as an agent sees it. `mindex get` reads the note; to expose it, add its folder to `user_content_roots` (or `mcp_exposed_roots`) in vault-manifest.json"
                    ),
                ))
            }
            r => r,
        }
    }

    /// Orphans (notes nothing links to) and broken links (targets that name no note) over the
    /// whole index, memories excluded. Links to attachments (a target with a non-markdown
    /// extension) are not checked. The manifest's `infrastructure` files (agent manuals,
    /// templates, the home page) are never orphans: nothing is meant to link to them.
    pub fn graph_audit(&self) -> Result<GraphAudit> {
        let state = self.state()?.ok_or_else(|| Error::IndexMissing {
            path: self.index_dir.clone(),
        })?;
        let mem_prefix = format!("{}/", self.agent().store.root());
        let notes: Vec<(&String, &crate::state::NoteState)> = state
            .notes
            .iter()
            .filter(|(p, _)| !p.starts_with(&mem_prefix))
            .collect();
        let links = LinkResolver::new(notes.iter().map(|(p, ns)| (p.as_str(), &ns.aliases[..])));
        let mut inbound = vec![0usize; notes.len()];
        let mut broken = Vec::new();
        for (i, (p, ns)) in notes.iter().enumerate() {
            for t in &ns.links {
                let LinkTarget::Notes(found) = links.resolve(t) else {
                    continue;
                };
                if found.is_empty() {
                    broken.push(BrokenLink {
                        from: (*p).clone(),
                        target: t.trim().replace('\\', "/"),
                    });
                }
                for j in found {
                    if j != i {
                        inbound[j] += 1;
                    }
                }
            }
        }
        let ctx = self.agent();
        let orphans = notes
            .iter()
            .enumerate()
            .filter(|(i, (p, _))| inbound[*i] == 0 && !ctx.manifest.is_infrastructure(p))
            .map(|(_, (p, _))| (*p).clone())
            .collect();
        Ok(GraphAudit {
            notes: notes.len(),
            orphans,
            broken,
        })
    }
}
