//! Lifecycle hooks for coding agents (Claude Code, Codex, Gemini CLI): what `mindex hook <event>`
//! prints for each event.
//!
//! A hook reads the agent's JSON payload, looks at the vault on disk, and answers with the JSON
//! envelope the agents take. Hooks never fail the agent's turn: a vault problem, a malformed
//! payload or an unwritable state file all end in a quiet, valid answer (empty output, or `{}` for
//! a repeated Stop), and what went wrong is kept in [`HookOutcome::debug`] for `MINDEX_HOOK_DEBUG`.
//!
//! Events, under every agent's name for them:
//!
//! | [`HookEvent`] | Claude Code | Codex | Gemini CLI |
//! |---|---|---|---|
//! | `SessionStart` | SessionStart | SessionStart | SessionStart |
//! | `UserPrompt` | UserPromptSubmit | UserPromptSubmit | BeforeAgent |
//! | `PostTool` | PostToolUse | PostToolUse | AfterTool |
//! | `PreCompact` | PreCompact | — | PreCompress |
//! | `Stop` | Stop | Stop | SessionEnd |
//!
//! Hooks branch on the event and on field meaning, never on which agent sent the payload: every
//! spelling of a field (`session_id`/`sessionId`, `stop_hook_active`/`stopHookActive`, …) is read.

mod classify;
mod compact;
mod hygiene;
mod session;
mod state;
mod stop;
mod validate;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use mindex::manifest::Manifest;
use mindex::vault::INDEX_DIR_NAME;

pub use classify::{SIGNALS, Signal, classify};
pub use compact::{
    KEEP_BACKUPS, SESSION_LOGS, accept_transcript, list_backups, prune as prune_backups,
    transcript_roots,
};
pub use hygiene::{Cluster, OpenLoop};
pub use hygiene::{HygieneReport, hygiene_scan};
pub use mindex::time::LocalTime;
pub use mindex::time::iso_utc_now as iso_now;
pub use session::{HOOK_CAP_CHARS, InjectionMode, SESSION_BUDGET_CAP};
pub use stop::CHECKLIST;
pub use validate::{MONOLITH_BYTES, PolicyResult};

/// How long the debounced background refresh waits between two runs.
pub const REFRESH_DEBOUNCE: Duration = Duration::from_secs(30);

/// A lifecycle event, whatever the agent calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// A session starts, resumes, is cleared or compacted: print the briefing.
    SessionStart,
    /// The user sent a prompt: routing hints and the saved Stop report.
    UserPrompt,
    /// A tool wrote a file: checks on `.md` writes.
    PostTool,
    /// The conversation is about to be compacted: back the transcript up.
    PreCompact,
    /// The agent finished a response (or the session ended): checklist and hygiene findings.
    Stop,
}

impl HookEvent {
    /// Every event, in lifecycle order.
    pub const ALL: [HookEvent; 5] = [
        HookEvent::SessionStart,
        HookEvent::UserPrompt,
        HookEvent::PostTool,
        HookEvent::PreCompact,
        HookEvent::Stop,
    ];

    /// Parses an event name: the CLI's kebab-case name (`session-start`, `user-prompt`,
    /// `post-tool`, `pre-compact`, `stop`) or any agent's own name (`SessionStart`,
    /// `UserPromptSubmit`, `BeforeAgent`, `PostToolUse`, `AfterTool`, `PreCompact`,
    /// `PreCompress`, `Stop`, `SessionEnd`), case-insensitively.
    pub fn parse(name: &str) -> Option<HookEvent> {
        let key: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        Some(match key.as_str() {
            "sessionstart" => HookEvent::SessionStart,
            "userprompt" | "userpromptsubmit" | "beforeagent" | "prompt" => HookEvent::UserPrompt,
            "posttool" | "posttooluse" | "aftertool" | "validatewrite" => HookEvent::PostTool,
            "precompact" | "precompress" => HookEvent::PreCompact,
            "stop" | "sessionend" => HookEvent::Stop,
            _ => return None,
        })
    }

    /// The CLI name: `session-start`, `user-prompt`, `post-tool`, `pre-compact` or `stop`.
    pub fn cli_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::UserPrompt => "user-prompt",
            HookEvent::PostTool => "post-tool",
            HookEvent::PreCompact => "pre-compact",
            HookEvent::Stop => "stop",
        }
    }

    /// The event name echoed in `hookSpecificOutput.hookEventName` when the payload gives none.
    pub fn default_agent_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPrompt => "UserPromptSubmit",
            HookEvent::PostTool => "PostToolUse",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Stop => "Stop",
        }
    }
}

/// Where a hook runs: the vault, the clock, and where hook state is kept.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// The vault root (the agent's project folder).
    pub root: PathBuf,
    /// The vault's index folder: `<root>/.mindex` by default, or the `--index` /
    /// `MINDEX_INDEX_DIR` the user chose ([`HookContext::with_index_dir`]).
    pub index_dir: PathBuf,
    /// Per-session hook state (hint dedupe, Stop dedupe, saved reports, refresh sentinel);
    /// `<index_dir>/hooks`.
    pub state_dir: PathBuf,
    /// "Now", for ages, dates and file names.
    pub now: SystemTime,
    /// The agent's environment file (Claude Code's `CLAUDE_ENV_FILE`): session-start appends
    /// `export MINDEX_VAULT='<root>'` to it.
    pub env_file: Option<PathBuf>,
    /// The folders agents keep their session transcripts in: pre-compact backs up only a
    /// transcript under one of them ([`compact::transcript_roots`] by default).
    pub transcript_roots: Vec<PathBuf>,
    /// The folder the agent works in when its payload does not say (`cwd`): the CLI sets the
    /// agent's project folder (`CLAUDE_PROJECT_DIR`, …), else its own working folder. `None`
    /// (the default) counts as inside the vault.
    pub workdir: Option<PathBuf>,
    /// The caller's project as the user named it (`--caller` / `MINDEX_CALLER`), for a session
    /// outside the vault; else it is the working folder's ([`mindex::Caller::from_cwd`]).
    pub caller: Option<String>,
}

impl HookContext {
    /// A context for the vault at `root`, now, with its index at `<root>/.mindex`, state under
    /// `<root>/.mindex/hooks` and the agents' transcript folders of this user
    /// ([`compact::transcript_roots`]).
    pub fn new(root: impl Into<PathBuf>) -> HookContext {
        let root = root.into();
        let index_dir = root.join(INDEX_DIR_NAME);
        HookContext {
            state_dir: index_dir.join("hooks"),
            index_dir,
            root,
            now: SystemTime::now(),
            env_file: None,
            transcript_roots: compact::transcript_roots(),
            workdir: None,
            caller: None,
        }
    }

    /// The same context with the index (and the hook state beside it) in `index_dir`.
    pub fn with_index_dir(mut self, index_dir: impl Into<PathBuf>) -> HookContext {
        self.index_dir = index_dir.into();
        self.state_dir = self.index_dir.join("hooks");
        self
    }

    /// Whether the vault's index has been built (`state.json`: by a version before `state.bin`;
    /// the refresh's update rebuilds it).
    fn indexed(&self) -> bool {
        ["state.bin", "state.json"]
            .iter()
            .any(|f| self.index_dir.join(f).is_file())
    }

    fn manifest(&self) -> Manifest {
        Manifest::load(&self.root)
    }

    /// The vault on this context's index folder (cheap: nothing is read until asked). Hooks see
    /// the vault only through its agent view ([`mindex::Vault::scoped`]).
    pub(crate) fn vault(&self) -> Option<mindex::Vault> {
        let opts = mindex::VaultOptions {
            index_dir: Some(self.index_dir.clone()),
            ..mindex::VaultOptions::default()
        };
        mindex::Vault::open(&self.root, opts).ok()
    }

    /// Where the agent works, when that is outside the vault: a code repository whose vault
    /// came from `--vault` / `MINDEX_VAULT`. The folder is the payload's `cwd` (an absolute
    /// path), else [`HookContext::workdir`]; it is outside when, both resolved through
    /// symlinks, it is not the vault or inside it. `None` inside the vault or when nothing
    /// says where the agent works: the hooks then speak as they always did.
    pub(crate) fn outside(&self, p: &Payload) -> Option<Outside> {
        let dir = p
            .string(&["cwd", "working_directory", "workingDirectory"])
            .map(PathBuf::from)
            .filter(|d| d.is_absolute())
            .or_else(|| self.workdir.clone())?;
        let real = |d: &Path| std::fs::canonicalize(d).unwrap_or_else(|_| d.to_path_buf());
        if real(&dir).starts_with(real(&self.root)) {
            return None;
        }
        let caller = self
            .caller
            .as_deref()
            .and_then(|c| mindex::Caller::named(c).ok())
            .unwrap_or_else(|| mindex::Caller::from_cwd(&dir, &self.root));
        Some(Outside { dir, caller })
    }
}

/// A session working outside the vault ([`HookContext::outside`]): paths it is told are the
/// vault's, and its project is the working repository's.
#[derive(Debug, Clone)]
pub(crate) struct Outside {
    /// The folder the agent works in.
    pub(crate) dir: PathBuf,
    /// Who the session is: `--caller` / `MINDEX_CALLER`, else the working repository (as
    /// `mindex record-work` run there identifies it).
    pub(crate) caller: mindex::Caller,
}

/// What a hook answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookOutcome {
    /// What to print on stdout (possibly empty: then print nothing).
    pub stdout: String,
    /// Whether the search index should be refreshed in the background (debounced by the caller
    /// with [`claim_refresh`]).
    pub refresh: bool,
    /// What went wrong quietly, for `MINDEX_HOOK_DEBUG=1`; never shown to the agent.
    pub debug: Vec<String>,
}

/// Runs one hook on the raw bytes of the agent's stdin payload. Never fails and never panics on
/// any input: empty, malformed or non-UTF-8 payloads are treated as an empty payload.
pub fn run_hook(event: HookEvent, input: &[u8], ctx: &HookContext) -> HookOutcome {
    let payload = Payload::parse(input);
    let mut out = HookOutcome::default();
    match event {
        HookEvent::SessionStart => session::run(&payload, ctx, &mut out),
        HookEvent::UserPrompt => classify::run(&payload, ctx, &mut out),
        HookEvent::PostTool => validate::run(&payload, ctx, &mut out),
        HookEvent::PreCompact => compact::run(&payload, ctx, &mut out),
        HookEvent::Stop => stop::run(&payload, ctx, &mut out),
    }
    out
}

/// Claims the debounced background refresh: `true` (and the sentinel touched) when the last
/// claim is older than [`REFRESH_DEBOUNCE`] or in the future, or there was none. Only vaults with
/// an index are refreshed; a vault that was never indexed is left alone.
pub fn claim_refresh(ctx: &HookContext) -> bool {
    if !ctx.indexed() {
        return false;
    }
    let sentinel = ctx.state_dir.join("refresh-sentinel");
    if let Ok(modified) = std::fs::metadata(&sentinel).and_then(|m| m.modified())
        && let Ok(age) = ctx.now.duration_since(modified)
        && age < REFRESH_DEBOUNCE
    {
        return false;
    }
    if std::fs::create_dir_all(&ctx.state_dir).is_err() {
        return false;
    }
    std::fs::File::create(&sentinel)
        .and_then(|f| f.set_modified(ctx.now))
        .is_ok()
}

/// The agent's payload: a JSON object, or nothing.
#[derive(Debug, Clone, Default)]
pub(crate) struct Payload {
    value: Option<Value>,
}

impl Payload {
    pub(crate) fn parse(input: &[u8]) -> Payload {
        let value = std::str::from_utf8(input)
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(s.trim_start_matches('\u{feff}')).ok())
            .filter(Value::is_object);
        Payload { value }
    }

    pub(crate) fn is_null(&self) -> bool {
        self.value.is_none()
    }

    /// The first of `names` present at the top level.
    pub(crate) fn field(&self, names: &[&str]) -> Option<&Value> {
        let obj = self.value.as_ref()?.as_object()?;
        names.iter().find_map(|n| obj.get(*n))
    }

    /// The first of `names` holding a non-empty string.
    pub(crate) fn string(&self, names: &[&str]) -> Option<&str> {
        let obj = self.value.as_ref()?.as_object()?;
        names.iter().find_map(|n| {
            obj.get(*n)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
    }

    pub(crate) fn session_id(&self) -> Option<&str> {
        self.string(&["session_id", "sessionId", "session"])
    }

    pub(crate) fn event_name(&self, event: HookEvent) -> String {
        self.string(&["hook_event_name", "hookEventName", "event"])
            .unwrap_or(event.default_agent_name())
            .to_string()
    }
}

/// `{"hookSpecificOutput":{"hookEventName":…,"additionalContext":…[,"policyResults":…]}}`.
pub(crate) fn hook_output(event_name: &str, context: &str, policies: &[PolicyResult]) -> String {
    let mut inner = json!({"hookEventName": event_name, "additionalContext": context});
    if !policies.is_empty() {
        inner["policyResults"] = serde_json::to_value(policies).unwrap_or(Value::Null);
    }
    json!({"hookSpecificOutput": inner}).to_string()
}

/// `{"systemMessage": msg}`.
pub(crate) fn system_message(msg: &str) -> String {
    json!({"systemMessage": msg}).to_string()
}

/// A vault-relative path with `/` separators, or `None` when `path` is not inside `root`.
pub(crate) fn rel_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

pub(crate) use mindex::note::is_markdown_name as is_md;

/// `text` without control characters (C0, DEL, C1: ESC, BEL, carriage returns, …), newlines
/// and tabs kept: what a hook prints comes from files anyone could have written, and must not
/// drive the terminal or the agent's renderer.
pub(crate) fn strip_controls(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

/// A vault-relative path on one line: newlines and carriage returns in a file name shown as
/// `\n` and `\r`.
pub(crate) fn one_line(rel: &str) -> String {
    rel.replace('\r', "\\r").replace('\n', "\\n")
}

/// The name without a case-insensitive `.md`.
pub(crate) fn strip_md(name: &str) -> &str {
    if is_md(name) {
        &name[..name.len() - 3]
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_of_every_agent_parse() {
        for (name, ev) in [
            ("session-start", HookEvent::SessionStart),
            ("SessionStart", HookEvent::SessionStart),
            ("user-prompt", HookEvent::UserPrompt),
            ("UserPromptSubmit", HookEvent::UserPrompt),
            ("BeforeAgent", HookEvent::UserPrompt),
            ("post-tool", HookEvent::PostTool),
            ("PostToolUse", HookEvent::PostTool),
            ("AfterTool", HookEvent::PostTool),
            ("pre-compact", HookEvent::PreCompact),
            ("PreCompress", HookEvent::PreCompact),
            ("stop", HookEvent::Stop),
            ("SessionEnd", HookEvent::Stop),
        ] {
            assert_eq!(HookEvent::parse(name), Some(ev), "{name}");
        }
        assert_eq!(HookEvent::parse("teardown"), None);
        for ev in HookEvent::ALL {
            assert_eq!(HookEvent::parse(ev.cli_name()), Some(ev));
        }
    }

    #[test]
    fn payload_tolerates_anything() {
        for bad in [
            &b""[..],
            b"{",
            b"null",
            b"42",
            b"[1]",
            b"\xff\xfe",
            b"\"s\"",
        ] {
            assert!(Payload::parse(bad).is_null());
        }
        let p = Payload::parse(br#"{"sessionId":"abc","hookEventName":"BeforeAgent"}"#);
        assert_eq!(p.session_id(), Some("abc"));
        assert_eq!(p.event_name(HookEvent::UserPrompt), "BeforeAgent");
    }

    #[test]
    fn md_names() {
        assert!(is_md("a.md") && is_md("B.MD") && !is_md("md") && !is_md("a.mdx"));
        assert_eq!(strip_md("Note.MD"), "Note");
    }

    #[test]
    fn refresh_is_debounced_and_needs_an_index() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = HookContext::new(dir.path());
        assert!(!claim_refresh(&ctx), "no index: no refresh");
        std::fs::create_dir_all(dir.path().join(".mindex")).unwrap();
        std::fs::write(dir.path().join(".mindex/state.bin"), "{}").unwrap();
        assert!(claim_refresh(&ctx));
        assert!(!claim_refresh(&ctx), "debounced");
        ctx.now += Duration::from_secs(31);
        assert!(claim_refresh(&ctx));
        // A sentinel from the future does not debounce.
        ctx.now -= Duration::from_secs(3600);
        assert!(claim_refresh(&ctx));
    }
}
