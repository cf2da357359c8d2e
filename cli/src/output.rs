//! Printing results: human text, or one JSON document with `--json`.

use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use mindex::{
    Hit, QueryResult, Status, SubQuery, UpdateReport, Warning, init::InitReport, report::Changes,
    vault::EmbedReport, vault::MultiGetItem, vault::NoteText,
};
use serde::Serialize;

/// Writes to stdout; a closed pipe (`mindex get x | head`) is not an error.
fn emit(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn emit_json<T: Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut s = serde_json::to_string_pretty(value)?;
    s.push('\n');
    emit(&s)
}

fn warn_all(warnings: &[Warning]) {
    let mut stderr = std::io::stderr().lock();
    for w in warnings {
        let _ = writeln!(stderr, "warning: {w}");
    }
}

/// Prints an error on stderr (and as JSON on stdout with `--json`).
/// One line per watcher event: human text on stderr-free stdout, or one JSON object per line.
pub fn watch_event(json: bool, e: &mindex::watch::WatchEvent) {
    use mindex::watch::WatchEvent as W;
    let line = match e {
        W::Started { report } => {
            if json {
                serde_json::json!({"event": "started", "notes": report.notes, "changes": report.changes})
                    .to_string()
            } else {
                format!(
                    "watching: {} notes indexed ({} changed on start); Ctrl-C stops",
                    report.notes,
                    report.changes.len()
                )
            }
        }
        W::Updated {
            report,
            events,
            latency,
        } => {
            if json {
                serde_json::json!({"event": "updated", "events": events, "latency_ms": latency.as_millis() as u64,
                    "changes": report.changes, "notes": report.notes})
                .to_string()
            } else {
                let c = &report.changes;
                let mut parts = Vec::new();
                for (n, what) in [
                    (c.added.len(), "added"),
                    (c.modified.len(), "modified"),
                    (c.removed.len(), "removed"),
                    (c.renamed.len(), "renamed"),
                ] {
                    if n > 0 {
                        parts.push(format!("{n} {what}"));
                    }
                }
                if parts.is_empty() {
                    parts.push("no note changed".into());
                }
                format!(
                    "updated in {} ms: {}",
                    latency.as_millis(),
                    parts.join(", ")
                )
            }
        }
        W::Reconciled { report } => {
            if json {
                serde_json::json!({"event": "reconciled", "changes": report.changes}).to_string()
            } else {
                format!(
                    "reconciled: {} change(s) the events missed",
                    report.changes.len()
                )
            }
        }
        W::Embedded { report, latency } => {
            if json {
                serde_json::json!({"event": "embedded", "embedded": report.embedded,
                    "dropped": report.dropped, "vectors": report.vectors, "chunks": report.chunks,
                    "latency_ms": latency.as_millis() as u64})
                .to_string()
            } else {
                format!(
                    "embedded {} in {} ms ({} vectors for {} chunks)",
                    plural(report.embedded, "chunk", "chunks"),
                    latency.as_millis(),
                    report.vectors,
                    report.chunks
                )
            }
        }
        W::Rescanned => {
            if json {
                serde_json::json!({"event": "rescanned"}).to_string()
            } else {
                "event queue overflowed: rescanned the vault".into()
            }
        }
        W::Problem(err) => {
            if json {
                serde_json::json!({"event": "problem", "error": {"code": err.code() as i32, "message": err.to_string()}})
                    .to_string()
            } else {
                eprintln!("warning: {err}");
                return;
            }
        }
    };
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    // A closed stdout (the reader went away) must not kill the watcher.
    let _ = writeln!(out, "{line}").and_then(|()| out.flush());
}

/// `mindex embed`'s estimate of a long run, before the rest of it: "embedding 5,183 chunks: about
/// 2 min at ~40 chunks/s on this machine (measured on 120 of them)".
pub fn estimate_line(e: &mindex::vault::EmbedEstimate) -> String {
    format!(
        "embedding {} chunks: about {} at ~{:.0} chunks/s on this machine (measured on {} of them)",
        thousands(e.chunks),
        duration_words(e.remaining_s),
        e.chunks_per_s,
        e.sampled
    )
}

/// 5183 → "5,183".
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rough duration: "40 s", "2 min", "1 h 5 min".
fn duration_words(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s < 90 {
        format!("{} s", s.max(1))
    } else if s < 90 * 60 {
        format!("{} min", (s + 30) / 60)
    } else {
        let m = (s + 30) / 60;
        format!("{} h {} min", m / 60, m % 60)
    }
}

pub fn error(json: bool, e: &anyhow::Error) {
    let engine = e.downcast_ref::<mindex::Error>();
    if json {
        let body = serde_json::json!({
            "error": {
                "code": engine.map_or(0, |e| e.code() as u32),
                "message": e.to_string(),
                "suggestions": match engine {
                    Some(mindex::Error::NoteNotFound { suggestions, .. }) => suggestions.clone(),
                    _ => Vec::new(),
                },
            }
        });
        let _ = emit(&format!("{body}\n"));
    }
    let mut msg = format!("error: {e}");
    if let Some(mindex::Error::NoteNotFound { suggestions, .. }) = engine
        && !suggestions.is_empty()
    {
        let _ = write!(msg, "\n  did you mean: {}", suggestions.join(", "));
    }
    eprintln!("{msg}");
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn summary(c: &Changes) -> String {
    summary_of(c.counts())
}

fn summary_of(c: mindex::report::ChangeCounts) -> String {
    let mut parts = Vec::new();
    for (n, what) in [
        (c.added, "added"),
        (c.modified, "modified"),
        (c.removed, "removed"),
        (c.renamed, "renamed"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    if parts.is_empty() {
        "no changes".to_string()
    } else {
        parts.join(", ")
    }
}

/// Lists changed paths, at most `max` per kind, and how many more each kind changed
/// (`counts`: the lists may have been cut before).
fn list_changes(out: &mut String, c: &Changes, counts: mindex::report::ChangeCounts, max: usize) {
    let mut list = |sign: &str, items: Vec<String>, count: usize| {
        for p in items.iter().take(max) {
            let _ = writeln!(out, "  {sign} {p}");
        }
        let shown = items.len().min(max);
        if count > shown {
            let _ = writeln!(out, "  {sign} … and {} more", count - shown);
        }
    };
    list("+", c.added.clone(), counts.added);
    list("~", c.modified.clone(), counts.modified);
    list("-", c.removed.clone(), counts.removed);
    list(
        ">",
        c.renamed
            .iter()
            .map(|r| format!("{} -> {}", r.from, r.to))
            .collect(),
        counts.renamed,
    );
}

fn human_bytes(n: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < units.len() {
        v /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// `YYYY-MM-DD HH:MM:SS UTC` from milliseconds since the epoch (the engine's calendar).
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let rem = secs % 86_400;
    let (y, m, d) = mindex::time::civil_date((secs / 86_400) as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn ago(ms: u64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let s = now.saturating_sub(ms) / 1000;
    match s {
        0..60 => format!("{s} s ago"),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

pub struct Out {
    json: bool,
    color: bool,
}

impl Out {
    pub fn new(json: bool) -> Self {
        Out {
            json,
            color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn bold(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn dim(&self, s: &str) -> String {
        if self.color {
            format!("\x1b[2m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    pub fn init(&self, r: &InitReport) -> anyhow::Result<()> {
        if self.json {
            return emit_json(r);
        }
        emit(&r.to_text())
    }

    pub fn update(&self, r: &UpdateReport) -> anyhow::Result<()> {
        warn_all(&r.warnings);
        if self.json {
            return emit_json(r);
        }
        let mut s = format!(
            "{} {} ({}){} in {} ms: {}{}.\n",
            if r.rebuilt {
                "Built index of"
            } else {
                "Updated index of"
            },
            plural(r.notes, "note", "notes"),
            plural(r.chunks, "chunk", "chunks"),
            if r.by_watcher {
                " by the running watcher"
            } else {
                ""
            },
            r.elapsed_ms,
            summary(&r.changes),
            if r.warnings.is_empty() {
                String::new()
            } else {
                format!(", {}", plural(r.warnings.len(), "warning", "warnings"))
            }
        );
        if !r.rebuilt {
            list_changes(&mut s, &r.changes, r.changes.counts(), 20);
        }
        if let Some(tip) = watch_tip(r) {
            s.push_str(tip);
        }
        emit(&s)
    }

    pub fn embed(&self, r: &EmbedReport) -> anyhow::Result<()> {
        if self.json {
            return emit_json(r);
        }
        let rate = if r.elapsed_ms > 0 {
            r.embedded as f64 * 1000.0 / r.elapsed_ms as f64
        } else {
            0.0
        };
        let mut s = format!(
            "Embedded {} in {:.1} s ({rate:.0} chunks/s); {} already embedded; {} vectors for {}.\n",
            plural(r.embedded, "chunk", "chunks"),
            r.elapsed_ms as f64 / 1000.0,
            r.reused,
            r.vectors,
            r.model_id
        );
        if let Some(e) = &r.estimate {
            let _ = writeln!(
                s,
                "Estimated {} at the start (from {} chunks at ~{:.0} chunks/s).",
                duration_words(e.remaining_s + e.sampled as f64 / e.chunks_per_s),
                e.sampled,
                e.chunks_per_s
            );
        }
        if r.graph_built {
            let _ = writeln!(
                s,
                "Built the approximate-neighbour graph over {} vectors.",
                r.vectors
            );
        }
        if r.dropped > 0 {
            let _ = writeln!(
                s,
                "Dropped {} of chunks no longer in the index.",
                plural(r.dropped, "vector", "vectors")
            );
        }
        emit(&s)
    }

    pub fn eval(&self, r: &mindex::eval::EvalReport) -> anyhow::Result<()> {
        if self.json {
            return emit_json(r);
        }
        let mut s = format!(
            "{} documents, {} judged queries; index {:.1} s, embed {:.1} s; hybrid: RRF k {}, weights lex {} vec {}\n\n| mode | nDCG@10 | MRR@10 | recall@100 | top-1 best | ms/query |\n|---|---|---|---|---|---|\n",
            r.documents,
            r.judged_queries,
            r.index_seconds,
            r.embed_seconds,
            r.fusion.rrf_k,
            r.fusion.lex_weight,
            r.fusion.vec_weight
        );
        for m in &r.scores {
            let mode = match (&m.mode, &r.run_file) {
                (mindex::eval::EvalMode::Run, Some(f)) => format!("run ({f})"),
                (mode, _) => format!("{mode:?}").to_lowercase(),
            };
            let _ = writeln!(
                s,
                "| {} | {:.4} | {:.4} | {:.4} | {:.3} | {:.2} |",
                mode, m.ndcg_at_10, m.mrr_at_10, m.recall_at_100, m.top1_best, m.ms_per_query
            );
        }
        if r.scores.iter().any(|m| !m.by_category.is_empty()) {
            s.push_str("\n| category | queries | mode | nDCG@10 | MRR@10 | top-1 best |\n|---|---|---|---|---|---|\n");
            let mut cats: Vec<&str> = r
                .scores
                .iter()
                .flat_map(|m| m.by_category.iter().map(|c| c.category.as_str()))
                .collect();
            cats.sort_unstable();
            cats.dedup();
            for cat in cats {
                for m in &r.scores {
                    if let Some(c) = m.by_category.iter().find(|c| c.category == cat) {
                        let _ = writeln!(
                            s,
                            "| {} | {} | {} | {:.4} | {:.4} | {:.3} |",
                            cat,
                            c.queries,
                            format!("{:?}", m.mode).to_lowercase(),
                            c.ndcg_at_10,
                            c.mrr_at_10,
                            c.top1_best
                        );
                    }
                }
            }
        }
        for m in &r.scores {
            if let Some(c) = &m.relevance {
                let _ = write!(
                    s,
                    "\nrelevance of the first hit ({}): on-topic ≥ 0.5 for {:.1}% (median {:.2})",
                    format!("{:?}", m.mode).to_lowercase(),
                    c.on_topic_at_least_half * 100.0,
                    c.on_topic_median
                );
                if let (Some(under), Some(max)) = (c.off_topic_under_half, c.off_topic_max) {
                    let _ = write!(
                        s,
                        "; off-topic < 0.5 for {:.1}% of {} (highest {:.2})",
                        under * 100.0,
                        c.off_topic_queries,
                        max
                    );
                }
                s.push('\n');
            }
        }
        emit(&s)
    }

    pub fn query(&self, subs: &[SubQuery], r: &QueryResult) -> anyhow::Result<()> {
        for n in &r.notices {
            eprintln!("note: {n}");
        }
        if self.json {
            return emit_json(&serde_json::json!({
                "subqueries": subs,
                "used": r.used,
                "notices": r.notices,
                "missing_vectors": r.missing_vectors,
                "results": r.hits,
            }));
        }
        if r.hits.is_empty() {
            eprintln!("no results");
            return Ok(());
        }
        let hits: Vec<Hit> = r.hits.iter().map(|h| h.hit.clone()).collect();
        let mut s = String::new();
        self.hits_text(&hits, "relevance", &mut s, |i, s| {
            if let Some(e) = &r.hits[i].explain {
                let parts: Vec<String> = e
                    .sources
                    .iter()
                    .map(|src| {
                        format!(
                            "{}#{} \"{}\" rank {} score {:.3} (+{:.4})",
                            match src.kind {
                                mindex::SubQueryKind::Lex => "lex",
                                mindex::SubQueryKind::Vec => "vec",
                            },
                            src.subquery,
                            subs.get(src.subquery).map_or("", |q| q.text.as_str()),
                            src.rank,
                            src.score,
                            src.contribution
                        )
                    })
                    .collect();
                let mut line = format!(
                    "fused rank {} score {:.4} = {}",
                    e.fused_rank,
                    e.fused_score,
                    parts.join(" + ")
                );
                if e.bonus > 0.0 {
                    let _ = write!(line, " + top-rank bonus {:.2}", e.bonus);
                }
                if let (Some(r), Some(f)) = (e.rerank_score, e.final_score) {
                    let _ = write!(line, "; rerank {r:.3} -> final {f:.4}");
                }
                let _ = writeln!(s, "    {}", self.dim(&line));
            }
        });
        emit(&s)
    }

    /// `label` names the hits' score (`bm25`, `cosine`).
    pub fn search(&self, query: &str, hits: &[Hit], label: &str) -> anyhow::Result<()> {
        if self.json {
            return emit_json(&serde_json::json!({ "query": query, "results": hits }));
        }
        if hits.is_empty() {
            eprintln!("no results for {query:?}");
            return Ok(());
        }
        let mut s = String::new();
        self.hits_text(hits, label, &mut s, |_, _| {});
        emit(&s)
    }

    /// A write's outcome: its message on stdout, or on stderr when it was refused.
    pub fn write_outcome<T: Serialize + mindex::Outcome>(&self, r: &T) -> anyhow::Result<()> {
        let message = r.message_in(mindex::vault::Surface::Cli);
        if self.json {
            let mut v = serde_json::to_value(r)?;
            if v.get("message").is_some() {
                v["message"] = message.into();
            }
            return emit_json(&v);
        }
        if !r.ok() {
            eprintln!("{message}");
            return Ok(());
        }
        emit(&format!("{message}\n"))
    }

    pub fn recall(&self, r: &mindex::Recall) -> anyhow::Result<()> {
        if self.json {
            return emit_json(r);
        }
        for n in &r.notices {
            eprintln!("note: {n}");
        }
        emit(&r.to_text())
    }

    pub fn expand(&self, e: &mindex::vault::Expansion) -> anyhow::Result<()> {
        if self.json {
            return emit_json(e);
        }
        emit(&e.to_text())
    }

    pub fn audit(&self, a: &mindex::vault::GraphAudit) -> anyhow::Result<()> {
        if self.json {
            return emit_json(a);
        }
        emit(&a.to_text())
    }

    pub fn health(&self, h: &mindex::vault::Health) -> anyhow::Result<()> {
        if self.json {
            return emit_json(h);
        }
        emit(&h.to_text())
    }

    /// `label` names the score: `bm25`, `cosine` or `relevance` (fused, in [0, 1]).
    fn hits_text(
        &self,
        hits: &[Hit],
        label: &str,
        s: &mut String,
        mut extra: impl FnMut(usize, &mut String),
    ) {
        for (i, h) in hits.iter().enumerate() {
            let _ = writeln!(
                s,
                "{:>2}. {}  {}",
                i + 1,
                self.bold(&h.title),
                self.dim(&format!(
                    "{}:{}-{}  {label} {}{}",
                    h.path,
                    h.line_start,
                    h.line_end,
                    fmt_score(h.score),
                    if h.exact { "  exact match" } else { "" }
                ))
            );
            if !h.heading.is_empty() {
                let _ = writeln!(s, "    § {}", h.heading);
            }
            let snippet = if self.color {
                // `**word**` → bold; the markers alternate open/close.
                let mut out = String::new();
                for (k, part) in h.snippet.split("**").enumerate() {
                    if k % 2 == 1 {
                        out.push_str(&self.bold(part));
                    } else {
                        out.push_str(part);
                    }
                }
                out
            } else {
                h.snippet.clone()
            };
            let _ = writeln!(s, "    {snippet}");
            extra(i, s);
        }
    }

    pub fn get(&self, n: &NoteText) -> anyhow::Result<()> {
        warn_all(&n.warnings);
        if self.json {
            return emit_json(n);
        }
        let mut s = n.text.clone();
        if !s.is_empty() && !s.ends_with('\n') {
            s.push('\n');
        }
        emit(&s)
    }

    pub fn multi_get(&self, pattern: &str, items: &[MultiGetItem]) -> anyhow::Result<()> {
        if self.json {
            // An object like every other command's (the MCP tool's `items` too).
            return emit_json(&serde_json::json!({"pattern": pattern, "items": items}));
        }
        let mut s = String::new();
        for item in items {
            // The engine's text; the CLI only styles the header line.
            let text = item.to_text(mindex::vault::Surface::Cli);
            let (head, rest) = text.split_once('\n').unwrap_or((&text, ""));
            let head = match item {
                MultiGetItem::Ok(_) => self.bold(head),
                MultiGetItem::Skipped { .. } => self.dim(head),
            };
            let _ = writeln!(s, "{head}");
            s.push_str(rest);
        }
        if items.is_empty() {
            eprintln!("no notes matched");
        }
        emit(&s)
    }

    pub fn status(&self, st: &Status) -> anyhow::Result<()> {
        if self.json {
            return emit_json(st);
        }
        let mut s = String::new();
        let _ = writeln!(s, "Vault:        {}", st.vault.display());
        let _ = writeln!(
            s,
            "Index:        {} ({})",
            st.index_dir.display(),
            human_bytes(st.index_bytes)
        );
        if !st.indexed {
            let _ = writeln!(s, "Notes:        not indexed yet: run `mindex update`");
        } else {
            let _ = writeln!(
                s,
                "Notes:        {} ({})",
                st.notes,
                plural(st.chunks, "chunk", "chunks")
            );
        }
        if let Some(u) = &st.last_update {
            let _ = writeln!(
                s,
                "Last update:  {} ({}), took {} ms: {}{}",
                utc(u.finished_unix_ms),
                ago(u.finished_unix_ms),
                u.elapsed_ms,
                if u.rebuilt { "full build, " } else { "" },
                summary_of(u.counts())
            );
            if !u.rebuilt {
                list_changes(&mut s, &u.changes, u.counts(), 10);
            }
        }
        if !st.damaged.is_empty() {
            let _ = writeln!(
                s,
                "DAMAGED:      {} — run `mindex update --rebuild` (the vault is intact; the index is rebuilt from it)",
                if st.verified {
                    plural(
                        st.damaged.len(),
                        "index file is missing or fails its checksum",
                        "index files are missing or fail their checksum",
                    )
                } else {
                    plural(
                        st.damaged.len(),
                        "index file is missing or empty",
                        "index files are missing or empty",
                    )
                }
            );
            for d in st.damaged.iter().take(5) {
                let _ = writeln!(s, "              {d}");
            }
        }
        if st.outdated {
            let _ = writeln!(
                s,
                "OUTDATED:     the index was built by another version of mindex — run `mindex update` (it rebuilds the index from the vault)"
            );
        }
        if st.indexed && st.damaged.is_empty() && !st.outdated {
            let _ = writeln!(
                s,
                "Index files:  {}",
                if st.verified {
                    "all present, every checksum verified"
                } else {
                    "all present (checksums not read; `mindex status --verify` reads them)"
                }
            );
        }
        if st.pending.is_empty() {
            let _ = writeln!(s, "Pending:      none, the index is up to date");
        } else {
            let _ = writeln!(
                s,
                "Pending:      {} (run `mindex update`)",
                summary(&st.pending)
            );
            list_changes(&mut s, &st.pending, st.pending.counts(), 10);
        }
        match &st.vectors {
            Some(v) => {
                let _ = writeln!(
                    s,
                    "Vectors:      {} ({}-d, model {})",
                    v.count, v.dim, v.model_id
                );
                if let Some(m) = st.missing_vectors.filter(|m| *m > 0) {
                    let _ = writeln!(
                        s,
                        "              {} no vector yet: run `mindex embed` (or keep `mindex watch` running)",
                        plural(m, "chunk has", "chunks have")
                    );
                }
            }
            None => {
                let _ = writeln!(
                    s,
                    "Vectors:      none yet: run `mindex embed` for semantic search"
                );
            }
        }
        if !st.warnings.is_empty() {
            let _ = writeln!(s, "Warnings:     {}", st.warnings.len());
            for w in st.warnings.iter().take(10) {
                let _ = writeln!(s, "  ! {w}");
            }
            if st.warnings.len() > 10 {
                let _ = writeln!(s, "  ! … and {} more (see --json)", st.warnings.len() - 10);
            }
        }
        for b in &st.stale_binaries {
            let _ = writeln!(s, "Agent config: ! {}", b.warning());
        }
        emit(&s)
    }
}

/// Scores with about four significant digits (BM25 ~10, cosine ~0.5, RRF ~0.03).
fn fmt_score(s: f32) -> String {
    if s.abs() >= 10.0 {
        format!("{s:.2}")
    } else if s.abs() >= 0.1 {
        format!("{s:.3}")
    } else {
        format!("{s:.4}")
    }
}

/// An update that walked a big vault says how not to: a running watcher answers in tens of ms.
fn watch_tip(r: &UpdateReport) -> Option<&'static str> {
    (!r.by_watcher && !r.rebuilt && r.elapsed_ms >= WALK_TIP_MS).then_some(
        "Tip: this update walked the whole vault. With `mindex watch` running (or `mindex mcp --watch` / `mindex serve --watch`), updates apply only what changed and take tens of ms.\n",
    )
}

/// How long a walking update takes before the CLI suggests a watcher.
const WALK_TIP_MS: u64 = 300;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formats_known_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_796_215_200_000), "2026-12-02 12:40:00 UTC");
    }

    #[test]
    fn estimates_read_plainly() {
        assert_eq!(thousands(5183), "5,183");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(duration_words(0.2), "1 s");
        assert_eq!(duration_words(42.4), "42 s");
        assert_eq!(duration_words(130.0), "2 min");
        assert_eq!(duration_words(3900.0), "65 min");
        assert_eq!(duration_words(7500.0), "2 h 5 min");
        let e = mindex::vault::EmbedEstimate::measured(5183, 5183, 120, 120, 120, 3.0);
        assert_eq!(
            estimate_line(&e),
            "embedding 5,183 chunks: about 2 min at ~40 chunks/s on this machine (measured on 120 of them)"
        );
    }

    #[test]
    fn a_slow_walking_update_suggests_a_watcher() {
        let mut r = UpdateReport {
            elapsed_ms: WALK_TIP_MS,
            ..UpdateReport::default()
        };
        assert!(watch_tip(&r).is_some_and(|t| t.contains("mindex watch")));
        r.by_watcher = true;
        assert_eq!(watch_tip(&r), None);
        r.by_watcher = false;
        r.elapsed_ms = WALK_TIP_MS - 1;
        assert_eq!(watch_tip(&r), None);
        r.elapsed_ms = 90_000;
        r.rebuilt = true;
        assert_eq!(watch_tip(&r), None);
    }

    #[test]
    fn bytes_are_human() {
        assert_eq!(human_bytes(10), "10 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
