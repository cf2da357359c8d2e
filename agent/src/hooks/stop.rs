//! stop: the end-of-response checklist and hygiene findings, shown once per session and again
//! only when they change; the full report is handed to the next prompt.

use std::fs;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::hygiene::{BRIEFED_STATE, block_digest, hygiene_scan};
use super::state::{MAX_AGE, SessionState, write_replace};
use super::{HookContext, HookEvent, HookOutcome, Payload, system_message};

/// The checklist every Stop report starts with.
pub const CHECKLIST: &str = "Session end checklist:\n\
- Archive completed projects? (work/active/ -> work/archive/YYYY/)\n\
- Update indexes? (work/Index.md, brain/Memories.md, org/People & Context.md, perf/Brag Doc.md)\n\
- New notes linked? (orphans are bugs)\n\
- Run `mindex audit` if many notes were created/modified";

const HYGIENE_HEADER: &str = "Vault Hygiene (drift detected):";

pub(crate) fn run(p: &Payload, ctx: &HookContext, out: &mut HookOutcome) {
    let reentry = p.field(&["stop_hook_active", "stopHookActive"]) == Some(&Value::Bool(true));
    if reentry {
        out.stdout = "{}".into();
        return;
    }
    out.refresh = true;
    let hygiene = match ctx.vault() {
        Some(vault) => hygiene_scan(
            &vault.scoped(&mindex::Caller::anonymous()),
            &ctx.manifest(),
            ctx.now,
        ),
        None => Default::default(),
    };
    let mut blocks = hygiene.blocks();
    // What this session's briefing already showed is not repeated.
    if let Some(session) = p.session_id() {
        let briefed = SessionState::load(&ctx.state_dir.join(BRIEFED_STATE));
        if let Some(seen) = briefed.seen(session) {
            blocks.retain(|b| !seen.contains(&block_digest(b)));
        }
    }
    let full = if blocks.is_empty() {
        CHECKLIST.to_string()
    } else {
        format!("{CHECKLIST}\n\n{HYGIENE_HEADER}\n{}", blocks.join("\n\n"))
    };
    let Some(session) = p.session_id() else {
        // No session: no next prompt to hand anything to, and nothing to dedupe on.
        out.stdout = system_message(&full);
        return;
    };
    let path = ctx.state_dir.join("stop-state.json");
    let state = SessionState::load(&path);
    let digest = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(full.as_bytes()));
    if state.seen(session).is_some_and(|s| s.contains(&digest)) {
        out.stdout = "{}".into();
        return;
    }
    if let Err(e) = state
        .replace(session, [digest], ctx.now)
        .save(&path, ctx.now)
    {
        out.debug
            .push(format!("stop state {}: {e}", path.display()));
    }
    let session_end = p
        .event_name(HookEvent::Stop)
        .eq_ignore_ascii_case("SessionEnd");
    if blocks.is_empty() || session_end {
        out.stdout = system_message(&full);
        return;
    }
    match save_report(ctx, session, &full) {
        Ok(()) => {
            let mut summary = format!(
                "{CHECKLIST}\n\n{HYGIENE_HEADER} (the full report goes to your next prompt)"
            );
            for b in &blocks {
                summary.push_str("\n- ");
                summary.push_str(
                    b.lines()
                        .next()
                        .unwrap_or_default()
                        .trim_start_matches("⚠️ "),
                );
            }
            out.stdout = system_message(&summary);
        }
        Err(e) => {
            out.debug.push(format!("stop report: {e}"));
            out.stdout = system_message(&full);
        }
    }
}

fn reports_dir(ctx: &HookContext) -> PathBuf {
    ctx.state_dir.join("reports")
}

fn report_path(ctx: &HookContext, session: &str) -> PathBuf {
    reports_dir(ctx).join(format!(
        "{:016x}.md",
        xxhash_rust::xxh3::xxh3_64(session.as_bytes())
    ))
}

/// Saves the full report for `session` (atomically; the newest wins) and prunes week-old ones.
fn save_report(ctx: &HookContext, session: &str, text: &str) -> std::io::Result<()> {
    write_replace(&report_path(ctx, session), text.as_bytes())?;
    if let Ok(entries) = fs::read_dir(reports_dir(ctx)) {
        for e in entries.flatten() {
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| ctx.now.duration_since(m).ok())
                .is_some_and(|age| age > MAX_AGE);
            if old {
                let _ = fs::remove_file(e.path());
            }
        }
    }
    Ok(())
}

/// Takes the report saved for `session`, if any: claimed by a rename so that it is delivered
/// once even when two prompts race; a week-old report is dropped.
pub(crate) fn claim_report(
    ctx: &HookContext,
    session: &str,
    debug: &mut Vec<String>,
) -> Option<String> {
    let path = report_path(ctx, session);
    let claimed = path.with_extension(format!(
        "claimed-{}-{}",
        std::process::id(),
        super::state::unix_ms(ctx.now)
    ));
    fs::rename(&path, &claimed).ok()?;
    let age = fs::metadata(&claimed)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|m| ctx.now.duration_since(m).ok())
        .unwrap_or(Duration::ZERO);
    let text = fs::read_to_string(&claimed);
    if let Err(e) = fs::remove_file(&claimed) {
        debug.push(format!("claimed report {}: {e}", claimed.display()));
    }
    let text = text.ok()?;
    if age > MAX_AGE || text.trim().is_empty() {
        return None;
    }
    // Judged again as handed on: a note made private (or a memory) since the report was
    // saved is not named.
    let vault = ctx.vault()?;
    let tree = vault.scoped(&mindex::Caller::anonymous()).tree();
    let lines: Vec<&str> = text.lines().collect();
    let kept: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !tree.names_withheld(l))
        .collect();
    let mut text = kept.join("\n");
    if kept.len() < lines.len() {
        text.push_str(&format!(
            "\n({} line(s) naming notes withheld since the report was saved are left out)",
            lines.len() - kept.len()
        ));
    }
    Some(truncate_chars(&text, 6_000))
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!(
            "{}\n… (report cut; run `mindex audit` / `mindex health` for all of it)",
            &s[..i]
        ),
        None => s.to_string(),
    }
}
