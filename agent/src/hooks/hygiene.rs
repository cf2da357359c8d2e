//! The vault hygiene scan shared by session-start and Stop: drift a human would want to hear
//! about, found from the filesystem alone (no index, no subprocess).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;
use std::time::{Duration, SystemTime};

use rayon::prelude::*;
use regex::Regex;
use serde::Serialize;

use super::{is_md, strip_controls, strip_md};
use mindex::Scoped;
use mindex::manifest::Manifest;
use mindex::scoped::{MAX_READ_BYTES, Reads, TreeFile, VaultTree, VisibleText};

/// Root-level folders that are machinery, never notes.
pub(crate) const MACHINERY_DIRS: &[&str] = &[
    ".git",
    ".github",
    ".obsidian",
    ".claude",
    ".claude-plugin",
    ".codex",
    ".gemini",
    ".mindex",
    "node_modules",
];

/// A note past this size is flagged (and the post-tool hook says so).
pub(crate) const OVERSIZED_BYTES: u64 = 25_000;
/// An open-loop note must be at least this old.
const OPEN_LOOP_AGE: Duration = Duration::from_secs(14 * 86_400);
/// A meeting note waiting in the inbox at least this long counts.
const MEETING_AGE: Duration = Duration::from_secs(7 * 86_400);
/// At most this many open loops are reported.
const OPEN_LOOPS_SHOWN: usize = 5;
/// At most this many items are listed per block (the count is always exact).
const ITEMS_SHOWN: usize = 10;

const DEFAULT_OPEN_LOOP_DIRS: &[&str] = &["work/1-1", "work/meetings", "work/incidents"];
const DEFAULT_OPEN_LOOP_SECTIONS: &[&str] = &["action items", "what to watch"];

static ONE_ON_ONE_DIR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)1-?on?-?1|1-1").expect("valid regex"));
static DATED_NOTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+?) (\d{4}-\d{2}-\d{2})\.[mM][dD]$").expect("valid regex"));
static WAITING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(waiting on|watch for)\b").expect("valid regex"));
static UNCHECKED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[-*+] \[ \]").expect("valid regex"));
static LEADING_DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{4}-\d{2}-\d{2} ").expect("valid regex"));

/// Record kinds AGENTS.md names in file names (`Decision - <title>.md` in `work/active/`):
/// records filed as the vault's own rules say are no topic cluster forming.
const RECORD_KINDS: &[&str] = &["decision", "decisions"];

/// Words too common to name a topic cluster.
const CLUSTER_STOPWORDS: &[&str] = &[
    "about", "after", "again", "also", "before", "being", "between", "draft", "from", "have",
    "into", "more", "note", "notes", "only", "other", "over", "plan", "some", "than", "that",
    "their", "them", "then", "there", "these", "they", "this", "those", "through", "under",
    "until", "update", "updates", "very", "what", "when", "where", "which", "while", "with",
    "work", "your",
];

pub(crate) fn parent_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(p, _)| p)
}

pub(crate) fn name_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, n)| n)
}

/// A group of loose notes in `work/active/` that share a topic word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cluster {
    /// The shared word.
    pub token: String,
    /// The notes, vault-relative, sorted.
    pub files: Vec<String>,
}

/// A note with open items left for too long.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenLoop {
    /// The note, vault-relative.
    pub path: String,
    /// Unchecked items under the open-loop sections, plus "waiting on" / "watch for" lines.
    pub open_items: usize,
    /// Days since the note last changed.
    pub age_days: u64,
}

/// What the hygiene scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HygieneReport {
    /// Notes in `work/active/` (any depth) whose status is completed, archived or done.
    pub completed_in_active: Vec<String>,
    /// Topic clusters among the loose notes of `work/active/`, biggest first.
    pub clusters: Vec<Cluster>,
    /// Notes of at least 25,000 bytes, biggest first: (path, bytes).
    pub oversized: Vec<(String, u64)>,
    /// The oldest open loops (at most five).
    pub open_loops: Vec<OpenLoop>,
    /// Meeting notes waiting at least 7 days in `work/meetings/`: (count, oldest age in days).
    pub meetings_inbox: Option<(usize, u64)>,
    /// Memory captures without a promotion marker.
    pub memory_inbox: usize,
    /// Memory captures promoted by a bare marker (no anchor).
    pub memory_named_only: usize,
    /// The memory root scanned.
    #[serde(skip)]
    pub memory_root: String,
}

/// Scans the vault for drift, as `view` may see it: notes an agent may not see (private,
/// never-exposed names) are left out, since the report is shown to agents.
pub fn hygiene_scan(view: &Scoped<'_>, manifest: &Manifest, now: SystemTime) -> HygieneReport {
    let tree = view.tree();
    let reads = view.reads("hygiene");
    hygiene_with(view, &reads, manifest, now, &tree)
}

pub(crate) fn hygiene_with(
    view: &Scoped<'_>,
    reads: &Reads<'_, '_>,
    manifest: &Manifest,
    now: SystemTime,
    tree: &VaultTree,
) -> HygieneReport {
    let days = |d: Duration| d.as_secs() / 86_400;

    // Each finding reads its notes in parallel (at 200,000 notes, thousands of them).
    let mut completed: Vec<String> = tree
        .files_under("work/active")
        .filter(|f| is_md(&f.rel))
        .collect::<Vec<_>>()
        .into_par_iter()
        .filter(|f| {
            reads
                .note(&f.rel, 64 * 1024)
                .and_then(|n| n.field("status"))
                .is_some_and(|s| {
                    matches!(
                        s.trim().to_ascii_lowercase().as_str(),
                        "completed" | "archived" | "done"
                    )
                })
        })
        .map(|f| f.rel.clone())
        .collect();
    completed.sort();

    let loose: Vec<String> = tree
        .files_in("work/active")
        .filter(|f| is_md(&f.rel))
        .map(|f| f.rel.clone())
        .collect();
    let clusters = clusters_of(&loose);

    let mut oversized: Vec<(String, u64)> = tree
        .files()
        .iter()
        .filter(|f| is_md(&f.rel) && f.size >= OVERSIZED_BYTES)
        // The store's memories are counted, never named (their names are their titles).
        .filter(|f| !tree.in_memory_store(&f.rel))
        .filter(|f| !name_of(&f.rel).contains("Archive"))
        .filter(|f| {
            let top = f.rel.split('/').next().unwrap_or("");
            top != "templates" && !manifest.is_infrastructure(&f.rel)
        })
        .map(|f| (f.rel.clone(), f.size))
        .collect();
    oversized.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));

    let sections: Vec<String> = {
        let s = manifest.strings("open_loop_sections");
        if manifest.value("open_loop_sections").is_some() {
            s.iter()
                .map(|x| x.trim().to_lowercase())
                .filter(|x| !x.is_empty())
                .collect()
        } else {
            DEFAULT_OPEN_LOOP_SECTIONS
                .iter()
                .map(|s| s.to_string())
                .collect()
        }
    };
    let mut open_loops = Vec::new();
    for dir in open_loop_dirs(manifest) {
        let candidates: Vec<&TreeFile> = tree
            .files_under(&dir)
            .filter(|f| is_md(&f.rel))
            .filter(|f| !name_of(&f.rel).contains("Archive"))
            .filter(|f| !name_of(&f.rel).eq_ignore_ascii_case("README.md"))
            .collect();
        let candidates = if ONE_ON_ONE_DIR.is_match(name_of(&dir)) {
            latest_per_person(candidates)
        } else {
            candidates
        };
        open_loops.par_extend(candidates.into_par_iter().filter_map(|f| {
            let note = reads.note(&f.rel, MAX_READ_BYTES)?;
            // Dated by the note itself: a fresh clone or a touch does not make it new.
            let when = note_date(&f.rel, &note).unwrap_or(f.modified);
            let a = now.duration_since(when).unwrap_or_default();
            if a < OPEN_LOOP_AGE {
                return None;
            }
            let n = open_items(&note.prose_lines(), &sections);
            (n > 0).then(|| OpenLoop {
                path: f.rel.clone(),
                open_items: n,
                age_days: days(a),
            })
        }));
    }
    open_loops.sort_by(|a, b| b.age_days.cmp(&a.age_days).then(a.path.cmp(&b.path)));
    open_loops.dedup_by(|a, b| a.path == b.path);
    open_loops.truncate(OPEN_LOOPS_SHOWN);

    let waiting: Vec<u64> = tree
        .files_in("work/meetings")
        .filter(|f| is_md(&f.rel) && !name_of(&f.rel).eq_ignore_ascii_case("README.md"))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|f| {
            let when = reads
                .note(&f.rel, 4096)
                .and_then(|head| note_date(&f.rel, &head))
                .unwrap_or(f.modified);
            now.duration_since(when).unwrap_or_default()
        })
        .filter(|a| *a >= MEETING_AGE)
        .map(days)
        .collect();
    let meetings_inbox =
        (!waiting.is_empty()).then(|| (waiting.len(), waiting.iter().copied().max().unwrap_or(0)));

    let inbox = view.memory_inbox(tree);

    HygieneReport {
        completed_in_active: completed,
        clusters,
        oversized,
        open_loops,
        meetings_inbox,
        memory_inbox: inbox.unpromoted,
        memory_named_only: inbox.named_only,
        memory_root: tree.memory_root().to_string(),
    }
}

/// Per-session state of the hygiene findings the session-start briefing showed (block digests):
/// Stop leaves them out of its report to that session.
pub(crate) const BRIEFED_STATE: &str = "briefed-state.json";

/// The digest a finding (one of [`HygieneReport::blocks`]) is remembered by.
pub(crate) fn block_digest(block: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(block.as_bytes()))
}

/// A `YYYY-MM-DD` date.
static ISO_DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d{4})-(\d{2})-(\d{2})").expect("valid regex"));

/// The day a note is about: its frontmatter `date`, else a `YYYY-MM-DD` in its file name (as
/// AGENTS.md names dated notes); `None` without either, and the file's mtime stands in.
fn note_date(rel: &str, note: &VisibleText) -> Option<SystemTime> {
    let fm = note.field("date");
    [fm.as_deref(), Some(name_of(rel))]
        .into_iter()
        .flatten()
        .find_map(|s| {
            let c = ISO_DATE.captures(s)?;
            let n = |i: usize| c[i].parse::<i64>().ok();
            let (y, m, d) = (n(1)?, n(2)?, n(3)?);
            if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
                return None;
            }
            let days = u64::try_from(mindex::time::days_from_civil(y, m, d)).ok()?;
            SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(days * 86_400))
        })
}

/// The `open_loop_dirs` of the manifest that are safe relative paths (else the defaults).
fn open_loop_dirs(manifest: &Manifest) -> Vec<String> {
    if manifest.value("open_loop_dirs").is_none() {
        return DEFAULT_OPEN_LOOP_DIRS
            .iter()
            .map(|s| s.to_string())
            .collect();
    }
    manifest
        .strings("open_loop_dirs")
        .into_iter()
        .map(|d| d.trim().trim_end_matches('/').to_string())
        .filter(|d| {
            !d.is_empty()
                && !d.starts_with('/')
                && !d.contains('\\')
                && !d.contains(':')
                && d.split('/').all(|s| !s.is_empty() && s != "." && s != "..")
        })
        .collect()
}

/// Only the latest `<Person> YYYY-MM-DD.md` per person; other names pass through.
fn latest_per_person(files: Vec<&TreeFile>) -> Vec<&TreeFile> {
    let mut latest: BTreeMap<String, (String, &TreeFile)> = BTreeMap::new();
    let mut out = Vec::new();
    for f in files {
        match DATED_NOTE.captures(name_of(&f.rel)) {
            Some(c) => {
                let person = format!("{}/{}", parent_of(&f.rel), c[1].to_lowercase());
                let date = c[2].to_string();
                match latest.get(&person) {
                    Some((d, _)) if *d >= date => {}
                    _ => {
                        latest.insert(person, (date, f));
                    }
                }
            }
            None => out.push(f),
        }
    }
    out.extend(latest.into_values().map(|(_, f)| f));
    out
}

/// Unchecked boxes under an open-loop heading, plus "waiting on" / "watch for" lines.
pub(crate) fn open_items(lines: &[&str], sections: &[String]) -> usize {
    let mut in_section = false;
    let mut n = 0;
    for line in lines.iter().copied() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("##") {
            let title = trimmed.trim_start_matches('#').trim().to_lowercase();
            in_section = sections.iter().any(|s| title.starts_with(s.as_str()));
            continue;
        }
        if trimmed.starts_with("# ") {
            in_section = false;
            continue;
        }
        if (in_section && UNCHECKED.is_match(line)) || WAITING.is_match(line) {
            n += 1;
        }
    }
    n
}

/// Topic clusters among `files` (the loose notes of one folder).
pub(crate) fn clusters_of(files: &[String]) -> Vec<Cluster> {
    let n = files.len();
    if n < 4 {
        return Vec::new();
    }
    let mut by_token: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let stem = strip_md(name_of(f));
        let stem = LEADING_DATE.replace(stem, "");
        for token in stem
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|t| t.chars().count() >= 4)
            .filter(|t| !t.chars().all(|c| c.is_ascii_digit()))
            .filter(|t| !CLUSTER_STOPWORDS.contains(t) && !RECORD_KINDS.contains(t))
        {
            by_token
                .entry(token.to_string())
                .or_default()
                .insert(f.clone());
        }
    }
    let max = n / 2;
    let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut out: Vec<Cluster> = Vec::new();
    for (token, set) in by_token {
        if set.len() < 2 || set.len() > max {
            continue;
        }
        let files: Vec<String> = set.into_iter().collect();
        if seen.insert(files.clone()) {
            out.push(Cluster { token, files });
        }
    }
    out.sort_by(|a, b| {
        b.files
            .len()
            .cmp(&a.files.len())
            .then(a.token.cmp(&b.token))
    });
    out
}

impl HygieneReport {
    /// Whether nothing drifted (named-only promotions alone are not drift).
    pub fn is_empty(&self) -> bool {
        self.blocks().is_empty()
    }

    /// One block of text per kind of drift: a `⚠️` line, then items indented three spaces.
    /// Control characters (file names may hold any) are stripped, newlines and tabs aside.
    pub fn blocks(&self) -> Vec<String> {
        self.raw_blocks()
            .iter()
            .map(|b| strip_controls(b))
            .collect()
    }

    fn raw_blocks(&self) -> Vec<String> {
        let mut blocks = Vec::new();
        let list = |head: String, items: Vec<String>| {
            let total = items.len();
            let mut b = head;
            for item in items.iter().take(ITEMS_SHOWN) {
                b.push_str("\n   ");
                b.push_str(item);
            }
            if total > ITEMS_SHOWN {
                b.push_str(&format!("\n   … and {} more", total - ITEMS_SHOWN));
            }
            b
        };
        if !self.completed_in_active.is_empty() {
            blocks.push(list(
                format!(
                    "⚠️ {} finished note(s) still in work/active/ — move them to work/archive/YYYY/:",
                    self.completed_in_active.len()
                ),
                self.completed_in_active.clone(),
            ));
        }
        if !self.clusters.is_empty() {
            blocks.push(list(
                format!(
                    "⚠️ {} topic cluster(s) forming loose in work/active/ — consider a folder work/active/<Topic>/ for each (your judgement):",
                    self.clusters.len()
                ),
                self.clusters
                    .iter()
                    .map(|c| {
                        // A cluster names at most ITEMS_SHOWN notes too: a word shared by
                        // thousands of notes must not fill the agent's context.
                        let names: Vec<&str> = c
                            .files
                            .iter()
                            .take(ITEMS_SHOWN)
                            .map(|f| name_of(f))
                            .collect();
                        let more = c.files.len().saturating_sub(ITEMS_SHOWN);
                        let more = if more > 0 {
                            format!(", … and {more} more")
                        } else {
                            String::new()
                        };
                        format!("\"{}\" — {}{more}", c.token, names.join(", "))
                    })
                    .collect(),
            ));
        }
        if !self.oversized.is_empty() {
            blocks.push(list(
                format!(
                    "⚠️ {} note(s) past the 25KB organisation threshold — split them into linked notes, do not trim:",
                    self.oversized.len()
                ),
                self.oversized
                    .iter()
                    .map(|(p, b)| format!("{p} ({}KB)", (b + 500) / 1000))
                    .collect(),
            ));
        }
        if !self.open_loops.is_empty() {
            blocks.push(list(
                "⚠️ Open loops older than 14 days — close, hand off or carry each item forward:"
                    .to_string(),
                self.open_loops
                    .iter()
                    .map(|l| {
                        format!(
                            "{} — {} open item(s), {} days old",
                            l.path, l.open_items, l.age_days
                        )
                    })
                    .collect(),
            ));
        }
        if let Some((n, oldest)) = self.meetings_inbox {
            blocks.push(format!(
                "⚠️ Meetings inbox: {n} note(s) in work/meetings/ waiting 7+ days (oldest {oldest} days) — file them into work/ and org/."
            ));
        }
        if self.memory_inbox > 0 {
            let named = if self.memory_named_only > 0 {
                format!(
                    " ({} more promoted by name only — add an anchor)",
                    self.memory_named_only
                )
            } else {
                String::new()
            };
            blocks.push(format!(
                "⚠️ Memory inbox: {} capture(s) in {}/ not yet promoted{named} — COPY each lasting lesson into a brain/ note and add `promoted: \"brain/Note#^om-a1b2c3\"` to the capture. Never delete a capture.",
                self.memory_inbox, self.memory_root
            ));
        }
        blocks
    }

    /// The blocks joined by blank lines (empty when nothing drifted).
    pub fn to_text(&self) -> String {
        self.blocks().join("\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{self, File};
    use std::path::Path;

    fn write(root: &Path, rel: &str, text: &str, age_days: u64) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        let t = SystemTime::now() - Duration::from_secs(age_days * 86_400);
        File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    fn scan(root: &Path) -> HygieneReport {
        // The hooks name only what MCP serves: expose the folders these tests write in.
        let manifest = root.join("vault-manifest.json");
        if !manifest.exists() {
            fs::write(
                manifest,
                r#"{"user_content_roots": ["work/", "brain/", "reference/", "org/", "memories/"]}"#,
            )
            .unwrap();
        }
        let vault = mindex::Vault::open(root, mindex::VaultOptions::default()).unwrap();
        let view = vault.scoped(&mindex::Caller::anonymous());
        hygiene_scan(&view, &Manifest::load(root), SystemTime::now())
    }

    #[test]
    fn completed_notes_in_active_are_flagged_recursively() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "work/active/A.md",
            "---\nstatus: Done\n---\n# A\n",
            0,
        );
        write(
            d.path(),
            "work/active/sub/B.md",
            "---\nstatus: completed\n---\n",
            0,
        );
        write(
            d.path(),
            "work/active/C.md",
            "---\nstatus: archived\n---\n",
            0,
        );
        write(
            d.path(),
            "work/active/D.md",
            "---\nstatus: active\n---\n",
            0,
        );
        write(d.path(), "work/archive/E.md", "---\nstatus: done\n---\n", 0);
        let r = scan(d.path());
        assert_eq!(
            r.completed_in_active,
            [
                "work/active/A.md",
                "work/active/C.md",
                "work/active/sub/B.md"
            ]
        );
    }

    #[test]
    fn clusters_need_four_loose_files_and_a_bounded_frequency() {
        let f = |names: &[&str]| -> Vec<String> {
            names
                .iter()
                .map(|n| format!("work/active/{n}.md"))
                .collect()
        };
        assert!(clusters_of(&f(&["Billing A", "Billing B", "Other"])).is_empty());
        let c = clusters_of(&f(&[
            "2026-01-02 Billing Export",
            "Billing Retry",
            "Search Index",
            "Mobile Offline",
            "Notes about 2026",
        ]));
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].token, "billing");
        assert_eq!(c[0].files.len(), 2);
        // A token in more than half of the files is no cluster.
        let c = clusters_of(&f(&["Billing A", "Billing B", "Billing C", "Other"]));
        assert!(c.is_empty(), "{c:?}");
        // Two tokens on the same files give one cluster.
        let c = clusters_of(&f(&[
            "Ledger Billing",
            "Ledger Billing Two",
            "Alpha",
            "Beta",
        ]));
        assert_eq!(c.len(), 1, "{c:?}");
        // Decision records named as AGENTS.md asks are no topic cluster (issue 17 finding 6).
        let c = clusters_of(&f(&[
            "Decision - Postgres for Session Store",
            "Decision - SQLite for Device Storage",
            "Payments Migration",
            "Search Service",
            "Mobile Offline",
        ]));
        assert!(c.is_empty(), "{c:?}");
    }

    #[test]
    fn a_cluster_names_at_most_ten_notes_and_counts_the_rest() {
        let files: Vec<String> = (0..25)
            .map(|i| format!("work/active/Billing {i:02}.md"))
            .collect();
        let report = HygieneReport {
            clusters: vec![Cluster {
                token: "billing".into(),
                files,
            }],
            ..HygieneReport::default()
        };
        let text = report.to_text();
        assert!(text.contains("Billing 09.md, … and 15 more"), "{text}");
        assert!(!text.contains("Billing 10.md"), "{text}");
    }

    #[test]
    fn oversized_notes_exempt_archive_templates_and_infra() {
        let d = tempfile::tempdir().unwrap();
        let big = "x".repeat(25_000);
        write(d.path(), "reference/Big.md", &big, 0);
        write(d.path(), "reference/Small.md", &big[..24_999], 0);
        write(d.path(), "reference/Big Archive.md", &big, 0);
        write(d.path(), "templates/Big.md", &big, 0);
        write(d.path(), "README.md", &big, 0);
        write(
            d.path(),
            "vault-manifest.json",
            r#"{"infrastructure":["README.md"]}"#,
            0,
        );
        let r = scan(d.path());
        assert_eq!(r.oversized, [("reference/Big.md".to_string(), 25_000)]);
        assert!(r.to_text().contains("reference/Big.md (25KB)"));
    }

    #[test]
    fn open_loops_need_age_and_open_items_and_only_the_latest_one_on_one() {
        let d = tempfile::tempdir().unwrap();
        let open = "# 1:1\n## Action Items\n- [ ] send the doc\n- [x] done\n";
        write(d.path(), "work/1-1/Ana 2026-01-01.md", open, 40);
        write(
            d.path(),
            "work/1-1/Ana 2026-02-01.md",
            "## Action items\n- [x] ok\n",
            30,
        );
        write(d.path(), "work/1-1/Bo 2026-01-01.md", open, 20);
        write(d.path(), "work/incidents/Fresh.md", open, 3);
        write(
            d.path(),
            "work/incidents/Old.md",
            "We are waiting on the vendor.\n",
            15,
        );
        write(d.path(), "work/incidents/Old Archive.md", open, 90);
        write(
            d.path(),
            "work/incidents/Other.md",
            "## Notes\n- [ ] not an open loop\n",
            90,
        );
        let r = scan(d.path());
        let paths: Vec<&str> = r.open_loops.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            ["work/1-1/Bo 2026-01-01.md", "work/incidents/Old.md"]
        );
        assert_eq!(r.open_loops[0].open_items, 1);
        assert!(r.open_loops[0].age_days >= 19);
    }

    /// Issue 17 finding 6: an open loop's age is the note's own date, not the file's mtime (a
    /// fresh clone or a touch resets mtimes).
    #[test]
    fn open_loops_are_dated_from_the_note_not_the_file() {
        let d = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let day = |ago: u64| {
            let t = now - Duration::from_secs(ago * 86_400);
            mindex::time::iso_utc(
                t.duration_since(SystemTime::UNIX_EPOCH)
                    .unwrap()
                    .as_millis() as i64,
            )[..10]
                .to_string()
        };
        let open = "## Action Items\n- [ ] chase the vendor\n";
        // Written today (a fresh clone), about a day 40 days ago.
        let old = format!("---\ndate: {}\n---\n{open}", day(40));
        write(d.path(), "work/incidents/Vendor Outage.md", &old, 0);
        let named = format!("work/meetings/{} Sync.md", day(30));
        write(d.path(), &named, open, 0);
        // An old file about today.
        let fresh = format!("---\ndate: {}\n---\n{open}", day(0));
        write(d.path(), "work/incidents/Fresh Outage.md", &fresh, 90);
        let r = scan(d.path());
        let paths: Vec<&str> = r.open_loops.iter().map(|l| l.path.as_str()).collect();
        assert_eq!(
            paths,
            ["work/incidents/Vendor Outage.md", named.as_str()],
            "{paths:?}"
        );
        assert!(
            (39..=41).contains(&r.open_loops[0].age_days),
            "{:?}",
            r.open_loops
        );
        assert_eq!(r.meetings_inbox.map(|(n, _)| n), Some(1));
    }

    #[test]
    fn meetings_inbox_counts_week_old_notes_but_never_the_readme() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "work/meetings/README.md", "x", 30);
        write(d.path(), "work/meetings/Old.md", "x", 9);
        write(d.path(), "work/meetings/New.md", "x", 2);
        let r = scan(d.path());
        assert_eq!(r.meetings_inbox, Some((1, 9)));
    }

    #[test]
    fn memory_inbox_counts_unpromoted_captures_and_says_copy() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "memories/2026/12/a.md",
            "---\ntitle: a\n---\nbody\n",
            0,
        );
        write(
            d.path(),
            "memories/2026/12/b.md",
            "---\npromoted: \"brain/Gotchas#^om-b\"\n---\n",
            0,
        );
        write(
            d.path(),
            "memories/2026/12/c.md",
            "---\npromoted: brain/Gotchas\n---\n",
            0,
        );
        write(d.path(), "memories/readme.md", "x", 0);
        let r = scan(d.path());
        assert_eq!((r.memory_inbox, r.memory_named_only), (1, 1));
        let text = r.to_text();
        assert!(
            text.contains("COPY") && text.contains("Never delete"),
            "{text}"
        );
        assert!(!text.to_lowercase().contains("delete the capture"));
    }

    #[test]
    fn a_clean_vault_has_no_findings() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "work/active/A.md",
            "---\nstatus: active\n---\n",
            0,
        );
        assert!(scan(d.path()).is_empty());
        assert_eq!(scan(d.path()).to_text(), "");
    }
}
