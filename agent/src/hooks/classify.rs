//! user-prompt: routing hints for what the user's message contains, and the Stop report saved at
//! the end of the previous turn. Hints only point; filing stays the agent's call.

use super::state::SessionState;
use super::{HookContext, HookEvent, HookOutcome, Payload, hook_output, stop};

/// One kind of content a prompt can carry, and where it belongs in the vault.
#[derive(Debug, Clone, Copy)]
pub struct Signal {
    /// The signal's name, contained in its message.
    pub name: &'static str,
    /// The routing hint.
    pub message: &'static str,
    /// Lowercase phrases (English, Japanese, Korean, Chinese) matched on Latin-letter boundaries
    /// (WIN and PROJECT UPDATE also match the shared delivery verbs).
    pub phrases: &'static [&'static str],
    /// A finer hint tested only when this signal matched.
    pub sub: Option<&'static Signal>,
}

const DELIVERY: &[&str] = &[
    "shipped",
    "shipping",
    "ships",
    "launched",
    "launching",
    "launches",
    "completed",
    "completing",
    "completes",
    "released",
    "releasing",
    "releases",
    "deployed",
    "deploying",
    "deploys",
];

const REVERSAL: Signal = Signal {
    name: "REVERSAL",
    message: "REVERSAL: an earlier decision changed. Update the ORIGINAL Decision Record (status: superseded, link the new record) instead of leaving two that disagree; correct any memory with `mindex remember --supersedes`.",
    phrases: &[
        "reversed",
        "superseded",
        "changed our mind",
        "rolled back the decision",
        "overturned",
        "un-decided",
    ],
    sub: None,
};

/// Every signal, in the order they are tested.
pub static SIGNALS: &[Signal] = &[
    Signal {
        name: "DECISION",
        message: "DECISION: a decision was made. Record it as a Decision Record in work/active/ (templates/Decision Record.md) and add a line to the Decisions Log in work/Index.md.",
        phrases: &[
            "decided",
            "deciding",
            "decision",
            "we chose",
            "agreed to",
            "let's go with",
            "the call is",
            "we're going with",
            "決定した",
            "決めた",
            "合意した",
            "결정했어",
            "결정했습니다",
            "합의했어",
            "决定了",
            "我们决定",
            "确定了",
            "同意",
        ],
        sub: Some(&REVERSAL),
    },
    Signal {
        name: "INCIDENT",
        message: "INCIDENT: capture it in work/incidents/ (context, root cause, resolution, timeline, impact) and link the affected project.",
        phrases: &[
            "incident",
            "outage",
            "pagerduty",
            "severity",
            "p0",
            "p1",
            "p2",
            "sev1",
            "sev2",
            "postmortem",
            "rca",
            "インシデント",
            "障害",
            "인시던트",
            "장애",
            "事件",
            "故障",
            "事后分析",
        ],
        sub: None,
    },
    Signal {
        name: "1:1 CONTENT",
        message: "1:1 CONTENT: file it as work/1-1/<Person> YYYY-MM-DD.md and update the person's note in org/people/.",
        phrases: &[
            "1:1",
            "1-1",
            "1-on-1",
            "one on one",
            "1on1",
            "catch up with",
            "sync with",
            "ワンオンワン",
            "원온원",
            "一对一",
            "单独面谈",
        ],
        sub: None,
    },
    Signal {
        name: "WIN",
        message: "WIN: add it to perf/Brag Doc.md with a link to the evidence.",
        phrases: &[
            "achieved",
            "achieving",
            "won",
            "promoted",
            "praised",
            "win",
            "kudos",
            "shoutout",
            "great feedback",
            "recognized",
            "出荷した",
            "リリースした",
            "達成した",
            "褒められた",
            "배포했어",
            "출시했어",
            "달성했어",
            "칭찬받았어",
            "发布了",
            "上线了",
            "完成了",
            "表扬",
            "认可",
        ],
        sub: None,
    },
    Signal {
        name: "ARCHITECTURE",
        message: "ARCHITECTURE: record it as a reference/ note, or as a Decision Record when a choice was made.",
        phrases: &[
            "architecture",
            "system design",
            "rfc",
            "tech spec",
            "trade-off",
            "design doc",
            "adr",
            "アーキテクチャ",
            "システム設計",
            "아키텍처",
            "시스템 설계",
            "架构",
            "系统设计",
            "技术规范",
        ],
        sub: None,
    },
    Signal {
        name: "PERSON CONTEXT",
        message: "PERSON CONTEXT: add what was learned about the person to their note in org/people/.",
        phrases: &[
            "told me",
            "said that",
            "feedback from",
            "met with",
            "talked to",
            "spoke with",
            "mentioned that",
            "mentioned the",
            "mentioned a",
            "言ってた",
            "フィードバック",
            "話した",
            "말했어",
            "피드백",
            "얘기했어",
            "언급했어",
            "说了",
            "提到",
            "反馈",
            "提及",
        ],
        sub: None,
    },
    Signal {
        name: "PROJECT UPDATE",
        message: "PROJECT UPDATE: update the project's note in work/active/, and check whether it belongs in the Brag Doc.",
        phrases: &[
            "project update",
            "sprint",
            "milestone",
            "shipped feature",
            "went live",
            "rolled out",
            "rolling out",
            "merged",
            "merging",
            "merges",
            "cut the release",
            "release cut",
            "スプリント",
            "マイルストーン",
            "マージした",
            "リリースしました",
            "스프린트",
            "마일스톤",
            "배포",
            "릴리스",
            "병합",
            "迭代",
            "里程碑",
            "发布了",
            "上线",
            "合并了",
        ],
        sub: None,
    },
];

/// Whether `text` (already lowercase) contains `phrase` with no ASCII letter right before or
/// right after it.
fn has_phrase(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(i, m)| {
        let before = text[..i].chars().next_back();
        let after = text[i + m.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphabetic())
            && !after.is_some_and(|c| c.is_ascii_alphabetic())
    })
}

fn matches(signal: &Signal, lower: &str) -> bool {
    // The delivery verbs are both a win and a project update.
    let extra: &[&str] = if matches!(signal.name, "WIN" | "PROJECT UPDATE") {
        DELIVERY
    } else {
        &[]
    };
    signal
        .phrases
        .iter()
        .chain(extra)
        .any(|p| has_phrase(lower, p))
}

/// The hint messages a prompt triggers, in table order (a sub-hint right after its parent).
pub fn classify(prompt: &str) -> Vec<&'static str> {
    let lower = prompt.to_lowercase();
    let mut out = Vec::new();
    for s in SIGNALS {
        if matches(s, &lower) {
            out.push(s.message);
            if let Some(sub) = s.sub
                && matches(sub, &lower)
            {
                out.push(sub.message);
            }
        }
    }
    out
}

pub(crate) fn run(p: &Payload, ctx: &HookContext, out: &mut HookOutcome) {
    let session = p.session_id();
    let report = session.and_then(|s| stop::claim_report(ctx, s, &mut out.debug));
    let prompt = p.string(&["prompt", "user_prompt", "userPrompt", "message"]);
    let hints = prompt.map(classify).unwrap_or_default();
    // A decision announced: name the records it may replace (every time: they depend on the
    // message, not the session).
    let decided = hints
        .iter()
        .any(|h| h.starts_with("DECISION:") || h.starts_with("REVERSAL:"));
    let related = match prompt {
        Some(text) if decided => related_decisions(ctx, text, &mut out.debug),
        _ => Vec::new(),
    };
    let hints = dedupe(ctx, session, hints, &mut out.debug);
    // From a code repository, the vault's paths would read as the repository's own.
    let outside = ctx.outside(p);
    if hints.is_empty() && report.is_none() && related.is_empty() {
        return;
    }
    let mut text = String::new();
    if let Some(r) = report {
        text.push_str(
            "Report saved at the end of your previous response (deal with the user's message first, then with this):\n",
        );
        text.push_str(&r);
        if !hints.is_empty() {
            text.push_str("\n\n");
        }
    }
    if !hints.is_empty() {
        text.push_str(
            "Content classification hints (act on these if the user's message contains relevant info):\n",
        );
        if outside.is_some() {
            text.push_str(&format!(
                "(Every path below is in the vault at {}, not in this repository: file notes there, never here.)\n",
                ctx.root.display()
            ));
        }
        for h in &hints {
            text.push_str("- ");
            match &outside {
                Some(_) if h.starts_with("DECISION:") => text.push_str(&decision_in_vault(ctx)),
                _ => text.push_str(h),
            }
            text.push('\n');
        }
        text.push_str(if outside.is_some() {
            "\nRemember: use the vault's templates, add [[wikilinks]], follow the vault's AGENTS.md conventions."
        } else {
            "\nRemember: use proper templates, add [[wikilinks]], follow AGENTS.md conventions."
        });
    }
    if !related.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(
            "Decisions already in the vault on this subject. If the new decision replaces one, set the ORIGINAL's `status: superseded`, link the two records both ways, and update the Decisions Log:\n",
        );
        for d in &related {
            let status = d.status.as_deref().unwrap_or("no status");
            text.push_str(&format!("- [[{}]] ({status}): {}\n", d.label, d.path));
        }
    }
    out.stdout = hook_output(&p.event_name(HookEvent::UserPrompt), &text, &[]);
}

/// The DECISION hint for a session outside the vault (a code repository): a record written
/// at `work/active/` there would land in the repository, so it names the vault and the command
/// that files the record in it.
fn decision_in_vault(ctx: &HookContext) -> String {
    format!(
        "DECISION: a decision was made. Record it in the vault at {}, not in this repository: \
         `mindex record-work --decision-record --title \"…\" --summary \"…\"` (or the MCP \
         `record_work` tool with kind `decision`) files the Decision Record in the vault, in this \
         project's folder; then add a line to the Decisions Log in the vault's work/Index.md.",
        ctx.root.display()
    )
}

/// The decision records the vault holds on what `prompt` is about, through the agents' view
/// of the vault (its exposure); none when the vault has no index or cannot be opened.
fn related_decisions(
    ctx: &HookContext,
    prompt: &str,
    debug: &mut Vec<String>,
) -> Vec<mindex::scoped::DecisionRef> {
    let opts = mindex::VaultOptions {
        index_dir: Some(ctx.index_dir.clone()),
        ..mindex::VaultOptions::default()
    };
    let found = mindex::Vault::open(&ctx.root, opts).and_then(|v| {
        v.scoped(&mindex::Caller::anonymous())
            .decisions_about(prompt, RELATED_DECISIONS)
    });
    found.unwrap_or_else(|e| {
        debug.push(format!("related decisions: {e}"));
        Vec::new()
    })
}

/// Decision records named with a decision hint, at most.
const RELATED_DECISIONS: usize = 3;

/// Drops hints this session was already given, and records the new ones. Without a session id
/// every hint is shown; a state that cannot be read counts as empty (show).
fn dedupe(
    ctx: &HookContext,
    session: Option<&str>,
    hints: Vec<&'static str>,
    debug: &mut Vec<String>,
) -> Vec<&'static str> {
    let Some(session) = session else { return hints };
    if hints.is_empty() {
        return hints;
    }
    let path = ctx.state_dir.join("hint-state.json");
    let state = SessionState::load(&path);
    let seen = state.seen(session).cloned().unwrap_or_default();
    let fresh: Vec<&'static str> = hints.into_iter().filter(|h| !seen.contains(*h)).collect();
    if !fresh.is_empty() {
        let next = state.record(session, fresh.iter().map(|h| h.to_string()), ctx.now);
        if let Err(e) = next.save(&path, ctx.now) {
            debug.push(format!("hint state {}: {e}", path.display()));
        }
    }
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(prompt: &str) -> Vec<&'static str> {
        let msgs = classify(prompt);
        let mut out = Vec::new();
        for s in SIGNALS.iter().chain([&REVERSAL]) {
            if msgs.contains(&s.message) {
                out.push(s.name);
            }
        }
        out
    }

    #[test]
    fn every_message_names_its_signal() {
        for s in SIGNALS.iter().chain([&REVERSAL]) {
            assert!(s.message.contains(s.name), "{}", s.name);
        }
    }

    #[test]
    fn english_signals_fire() {
        assert_eq!(names("We decided to use React"), ["DECISION"]);
        assert_eq!(
            names("We reversed the decision on Kafka"),
            ["DECISION", "REVERSAL"]
        );
        assert_eq!(names("sev1 outage last night"), ["INCIDENT"]);
        assert_eq!(names("had a 1:1 with Mei"), ["1:1 CONTENT"]);
        assert_eq!(names("we need an RFC for this"), ["ARCHITECTURE"]);
        assert_eq!(names("Bilal told me the plan slipped"), ["PERSON CONTEXT"]);
        assert_eq!(names("the sprint ends friday"), ["PROJECT UPDATE"]);
        for w in ["shipped", "deployed", "We shipped it!"] {
            assert_eq!(names(w), ["WIN", "PROJECT UPDATE"], "{w}");
        }
    }

    #[test]
    fn cjk_and_mixed_script_fire() {
        for (text, name) in [
            ("この件は決定した", "DECISION"),
            ("결정했어요", "DECISION"),
            ("我们决定用Rust", "DECISION"),
            ("昨日障害がありました", "INCIDENT"),
            ("장애 발생", "INCIDENT"),
            ("生产事件", "INCIDENT"),
            ("明日ワンオンワン", "1:1 CONTENT"),
            ("원온원 했어", "1:1 CONTENT"),
            ("今天一对一", "1:1 CONTENT"),
            ("褒められた!", "WIN"),
            ("칭찬받았어", "WIN"),
            ("老板表扬了我", "WIN"),
            ("新しいアーキテクチャ", "ARCHITECTURE"),
            ("시스템 설계 리뷰", "ARCHITECTURE"),
            ("讨论架构", "ARCHITECTURE"),
            ("フィードバックをもらった", "PERSON CONTEXT"),
            ("피드백 받음", "PERSON CONTEXT"),
            ("他提到了", "PERSON CONTEXT"),
            ("スプリント計画", "PROJECT UPDATE"),
            ("마일스톤 완료", "PROJECT UPDATE"),
            ("里程碑达成", "PROJECT UPDATE"),
            ("今日はsprint review", "PROJECT UPDATE"),
            ("本番でoutageが発生", "INCIDENT"),
        ] {
            assert!(names(text).contains(&name), "{text}: {:?}", names(text));
        }
        let both = names("新版本发布了");
        assert!(
            both.contains(&"WIN") && both.contains(&"PROJECT UPDATE"),
            "{both:?}"
        );
    }

    #[test]
    fn false_positives_fire_nothing() {
        for text in [
            "downloading",
            "hello world",
            "returns an error",
            "wonder",
            "predecisioned",
            "unshipped",
            "acknowledged",
            "普通の会話です",
            "코드 리뷰를 합시다",
            "今天天气不错",
        ] {
            assert!(classify(text).is_empty(), "{text}: {:?}", names(text));
        }
    }

    #[test]
    fn sub_hint_needs_its_parent() {
        assert!(classify("the ruling was overturned").is_empty());
        assert_eq!(names("decision overturned"), ["DECISION", "REVERSAL"]);
    }

    #[test]
    fn a_megabyte_prompt_classifies() {
        let big = "lorem ipsum dolor ".repeat(60_000) + " we decided";
        assert_eq!(names(&big), ["DECISION"]);
    }
}
