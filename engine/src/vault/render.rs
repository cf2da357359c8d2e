//! Plain-text renderings of agent-facing results, shared by the CLI and the MCP server.

use std::fmt::Write as _;

use super::{Expansion, GraphAudit, Health, Recall};
use crate::memory::promoted::{AnchorKind, Promotion};

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A promotion's status in a few words.
pub(crate) fn promotion_status(p: &Promotion) -> &'static str {
    match p {
        Promotion::Served { .. } => "served",
        Promotion::NoAnchor { .. } => "no anchor",
        Promotion::NotExposed { .. } => "outside the exposed roots",
        Promotion::Unreadable { .. } => "unreadable",
        Promotion::StaleAnchor { .. } => "stale anchor",
        Promotion::Unparsed { .. } => "unreadable marker",
    }
}

/// The facet a recalled memory shows for its promotion.
pub(crate) fn promotion_facet(p: &Promotion) -> String {
    let note = |n: &str| n.trim_end_matches(".md").to_string();
    match p {
        Promotion::Served {
            note: n,
            kind,
            anchor,
            truncated,
            ..
        } => {
            let sep = if *kind == AnchorKind::Block {
                "#^"
            } else {
                "#"
            };
            format!(
                "promoted text from {}{sep}{anchor}{}",
                note(n),
                if *truncated {
                    " (TRUNCATED to the served cap)"
                } else {
                    ""
                }
            )
        }
        Promotion::NoAnchor { note: n } => {
            format!("promoted to {} (no anchor; capture body shown)", note(n))
        }
        Promotion::StaleAnchor {
            note: n,
            kind,
            anchor,
        } => {
            let sep = if *kind == AnchorKind::Block { "^" } else { "#" };
            format!(
                "promoted to {}, anchor {sep}{anchor} STALE (capture body shown)",
                note(n)
            )
        }
        Promotion::NotExposed { note: n } => format!(
            "promoted to {}, which agents may not read (capture body shown)",
            note(n)
        ),
        Promotion::Unreadable { note: n } => {
            format!("promoted to {}, unreadable (capture body shown)", note(n))
        }
        Promotion::Unparsed { .. } => {
            "promoted, but the marker is unreadable (capture body shown)".to_string()
        }
    }
}

/// A memory body's line as `Recall::to_text` prints it (see there).
fn body_line(line: &str) -> String {
    let t = line.trim_start();
    let hashes = t.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t']) {
        return format!("{}{}", "#".repeat((hashes + 3).min(6)), &t[hashes..]);
    }
    let bare: String = t.chars().filter(|c| !c.is_whitespace()).collect();
    let rule = bare.len() >= 3
        && ['-', '*', '_', '=']
            .iter()
            .any(|r| bare.chars().all(|c| c == *r));
    let facets = ["(verified", "(inferred", "(unverified"]
        .iter()
        .any(|f| t.to_ascii_lowercase().starts_with(f));
    if rule || facets {
        format!("\\{t}")
    } else {
        line.to_string()
    }
}

impl Recall {
    /// The memories as text: one `## title` entry each (path, facets, body with its headings
    /// demoted), then what could not be served and what was withheld.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        if self.memories.is_empty() {
            match &self.caller {
            Some(p) => {
                let _ = write!(s, "No memories are scoped to reach \"{p}\".");
            }
            None => s.push_str(
                "This session has no identity (no project), so only general-scope memories are visible — and there are none.",
            ),
        }
            s.push_str(" Call health if you expected something here.\n");
        }
        for (i, m) in self.memories.iter().enumerate() {
            if i > 0 {
                s.push_str("\n---\n\n");
            }
            let mm = &m.memory;
            let mut facets = vec![mm.confidence.clone()];
            if let Some(w) = &m.written_by {
                facets.push(format!("written by {w}"));
            }
            if !mm.projects.is_empty() {
                facets.push(format!("projects: {}", mm.projects.join(", ")));
            }
            if !mm.platforms.is_empty() {
                facets.push(format!("platforms: {}", mm.platforms.join(", ")));
            }
            if let Some(d) = &mm.date {
                facets.push(format!("as of {d}"));
            }
            let mut by = mm.superseded_by.clone();
            match m.superseded_unseen {
                0 => {}
                1 => by.push("a correction not shown".to_string()),
                n => by.push(format!("{n} corrections not shown")),
            }
            if !by.is_empty() {
                facets.push(format!("SUPERSEDED by {}", by.join("; ")));
            }
            if let Some(p) = &m.promotion {
                facets.push(promotion_facet(p));
            }
            if let Some(w) = &m.why {
                facets.push(format!("why: {w}"));
            }
            let _ = writeln!(
                s,
                "## {}\n{}\n({})\n",
                mm.title.as_deref().unwrap_or("(untitled)"),
                &mm.path,
                facets.join(" · ")
            );
            // A body never draws an entry's structure: headings are demoted so `##` only ever
            // marks an entry, and a rule or a line shaped like an entry's facets is escaped, so
            // no memory can pose as another (one "written by" nobody).
            for line in m.text().lines() {
                let _ = writeln!(s, "{}", body_line(line));
            }
        }
        let unserved: Vec<&str> = self
            .memories
            .iter()
            .filter_map(|m| m.promotion.as_ref())
            .filter(|p| !p.is_served())
            .map(promotion_status)
            .collect();
        if !unserved.is_empty() {
            let _ = writeln!(
                s,
                "\n{} of these {} been promoted into the vault's notes but could not be served here ({}); the capture body is shown. The promoted note wins on any conflict: read it directly.",
                unserved.len(),
                if unserved.len() == 1 { "has" } else { "have" },
                unserved.join(", ")
            );
        }
        if self.withheld > 0 && !self.withheld_reasons.is_empty() {
            let _ = writeln!(
                s,
                "\n{} withheld. Reasons: {}",
                plural(self.withheld, "memory", "memories"),
                self.withheld_reasons.join("; ")
            );
        }
        s
    }
}

impl Expansion {
    /// The note and its neighbourhood as text.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# {}  ({})", &self.label, self.scope);
        let _ = writeln!(s, "{}", self.description.as_deref().unwrap_or("Vault note"));
        let _ = write!(s, "\n## Links out ({} visible", self.links_out.len());
        if self.links_out_hidden > 0 {
            // One count for both: telling a missing target from a hidden one would say the
            // hidden one exists.
            let _ = write!(
                s,
                ", {} not visible: missing, or outside the folders you can read",
                self.links_out_hidden
            );
        }
        s.push_str(")\n");
        if self.links_out.is_empty() {
            s.push_str("- (none visible)\n");
        }
        for l in &self.links_out {
            let _ = writeln!(s, "- {}  {}", l.label, &l.path);
        }
        let _ = writeln!(s, "\n## Linked from ({})", self.linked_from.len());
        if self.linked_from.is_empty() {
            s.push_str("- (none visible)\n");
        }
        for l in &self.linked_from {
            let _ = writeln!(s, "- {}  {}", l.label, &l.path);
        }
        s
    }
}

impl GraphAudit {
    /// Orphans and broken links as text.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} checked: {} orphaned, {}.",
            plural(self.notes, "note", "notes"),
            self.orphans.len(),
            plural(self.broken.len(), "broken link", "broken links")
        );
        if !self.orphans.is_empty() {
            s.push_str("\nOrphans (nothing links to them):\n");
            for o in &self.orphans {
                let _ = writeln!(s, "- {o}");
            }
        }
        if !self.broken.is_empty() {
            s.push_str("\nBroken links:\n");
            for b in &self.broken {
                let _ = writeln!(s, "- {} → [[{}]]", b.from, b.target);
            }
        }
        s
    }
}

impl Health {
    /// One line per fact, then warnings and notes.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "Vault: {}", self.vault.display());
        let by = match self.caller.identified_by {
            crate::IdentifiedBy::Roots => Some("from the MCP client's roots"),
            crate::IdentifiedBy::WorkingRepository => Some("from the working repository"),
            crate::IdentifiedBy::Token => Some("from the bearer token"),
            crate::IdentifiedBy::Given | crate::IdentifiedBy::Nothing => None,
        };
        match &self.caller.project {
            Some(p) => {
                let from = match self.caller.source {
                    _ if self.caller.identified_by == crate::IdentifiedBy::Token => {
                        "the server's tokens file"
                    }
                    crate::CallerSource::Explicit => "given with --caller",
                    crate::CallerSource::Declared => "its .mindex-project file",
                    _ => "its folder name",
                };
                match by {
                    Some(by) => {
                        let _ = writeln!(s, "Caller: {p} ({by}, named by {from})");
                    }
                    None => {
                        let _ = writeln!(s, "Caller: {p} ({from})");
                    }
                }
            }
            None => s.push_str(
                "Caller: ANONYMOUS (no MCP roots, no --caller, no working repository — only general-scope memories are visible)\n",
            ),
        }
        if self.caller.platforms.is_empty() {
            s.push_str("Platforms: (none declared)\n");
        } else {
            let _ = writeln!(s, "Platforms: {}", self.caller.platforms.join(", "));
        }
        let _ = writeln!(
            s,
            "Memory root: {}/ ({}, {})",
            self.memory_root.root,
            plural(self.memories, "memory", "memories"),
            self.memory_root.source
        );
        let _ = write!(
            s,
            "Parsed store: {}",
            plural(self.parsed.size, "entry", "entries")
        );
        if self.parsed.stale > 0 {
            let _ = write!(
                s,
                " ({} served from an older parse — check permissions)",
                self.parsed.stale
            );
        }
        s.push('\n');
        let _ = writeln!(
            s,
            "Exposed roots: {} [{}]",
            self.exposed_roots.join(", "),
            serde_json::to_value(self.roots_source)
                .unwrap_or_default()
                .as_str()
                .unwrap_or_default()
        );
        let _ = writeln!(
            s,
            "Search index: {} · {}",
            self.indexed_notes
                .map_or("none yet".to_string(), |n| plural(n, "note", "notes")),
            match (self.vectors, self.missing_vectors) {
                (None, _) => "no vectors (lexical only)".to_string(),
                (Some(n), Some(m)) if m > 0 => format!(
                    "{} ({} without one yet)",
                    plural(n, "vector", "vectors"),
                    plural(m, "chunk", "chunks")
                ),
                (Some(n), _) => plural(n, "vector", "vectors"),
            }
        );
        if self.promotions_served + self.promotions_named_only > 0 {
            let _ = write!(
                s,
                "Promotions: {} servable, {} named only",
                self.promotions_served, self.promotions_named_only
            );
            if self.promotions_named_only > 0 {
                s.push_str(
                    " (add an anchor — #^id or #Heading — so recall serves the promoted text)",
                );
            }
            s.push('\n');
        }
        if self.warnings.is_empty() {
            s.push_str("\nNo warnings.\n");
        } else {
            s.push_str("\nWarnings:\n");
            for w in &self.warnings {
                let _ = writeln!(s, "- {w}");
            }
        }
        if !self.notes.is_empty() {
            s.push_str("\nNotes:\n");
            for n in &self.notes {
                let _ = writeln!(s, "- {n}");
            }
        }
        s
    }
}
