//! Unit tests of the memory contract: validation, rendering, visibility, supersession, ranking,
//! the store's files and cache.

use std::fs;
use std::sync::Arc;

use super::store::{MemoryStore, SupersedeMark};
use super::*;

fn input(title: &str, body: &str, confidence: &str) -> MemoryInput {
    MemoryInput {
        title: title.into(),
        body: body.into(),
        confidence: confidence.into(),
        ..MemoryInput::default()
    }
}

const BODY: &str = "The tsup externals list decides which dependencies a patch release can fix.";

fn errors(r: std::result::Result<Validated, Vec<String>>) -> Vec<String> {
    r.expect_err("should be refused")
}

#[test]
fn empty_input_reports_every_missing_field() {
    let e = errors(validate(&MemoryInput::default(), Some("atlas")));
    assert!(e.len() >= 3, "{e:?}");
    assert!(e.iter().any(|m| m.contains("title is required")));
    assert!(e.iter().any(|m| m.contains("body is required")));
    assert!(e.iter().any(|m| m.contains("confidence must be one of")));
    // From JSON too, including null and non-object input.
    for v in [
        serde_json::Value::Null,
        serde_json::json!({}),
        serde_json::json!(42),
    ] {
        let e = errors(validate(&MemoryInput::from_json(&v), None));
        assert!(e.len() >= 3, "{v}: {e:?}");
    }
}

#[test]
fn short_body_states_its_length() {
    let e = errors(validate(
        &input("A title", "8 chars!", "inferred"),
        Some("atlas"),
    ));
    assert!(e.iter().any(|m| m.contains("8 chars")), "{e:?}");
}

#[test]
fn bad_confidence_and_scope_are_refused() {
    let e = errors(validate(&input("T", BODY, "pretty sure"), Some("atlas")));
    assert!(e.iter().any(|m| m.contains("confidence")));
    let mut i = input("T", BODY, "inferred");
    i.scope = Some("universe".into());
    let e = errors(validate(&i, Some("atlas")));
    assert!(e.iter().any(|m| m.contains("scope must be one of")));
}

#[test]
fn list_fields_must_be_arrays_of_slugs() {
    let v = serde_json::json!({"title": "T", "body": BODY, "confidence": "inferred", "projects": "pocket"});
    let e = errors(validate(&MemoryInput::from_json(&v), Some("atlas")));
    assert!(e.iter().any(|m| m.contains("multi-valued")), "{e:?}");
    for bad in [
        serde_json::json!("../etc"),
        serde_json::json!("a/b"),
        serde_json::json!("has space"),
        serde_json::json!("semi;colon"),
        serde_json::json!(""),
        serde_json::json!(42),
        serde_json::Value::Null,
        serde_json::json!({}),
    ] {
        let v = serde_json::json!({"title": "T", "body": BODY, "confidence": "inferred", "projects": [bad.clone()]});
        let e = errors(validate(&MemoryInput::from_json(&v), Some("atlas")));
        assert!(e.iter().any(|m| m.contains("simple slugs")), "{bad}: {e:?}");
    }
}

#[test]
fn titles_without_filename_characters_are_refused() {
    for t in ["...", "///", "   ", "***"] {
        let e = errors(validate(&input(t, BODY, "inferred"), Some("atlas")));
        assert!(!e.is_empty(), "{t:?}");
    }
}

#[test]
fn transcripts_are_refused_but_a_quoted_line_is_fine() {
    let log = "User: why?\nAssistant: because.\nUser: and then?\nAssistant: it broke on deploy.";
    let e = errors(validate(
        &input("Deploy chat", log, "inferred"),
        Some("atlas"),
    ));
    assert!(e.iter().any(|m| m.contains("transcript")), "{e:?}");
    let quoted =
        "The error said:\nUser: permission denied\nwhich means the token had no write scope.";
    assert!(validate(&input("Token scope", quoted, "inferred"), Some("atlas")).is_ok());
    // An exchange written on one or two lines is a transcript too (issue 39).
    for inline in [
        "User: can you fix it? Assistant: I changed the retry to use the first attempt's key.",
        "Human: why does checkout fail?\nAI: the ledger rejects the second charge with the same key.",
        "We talked it through (user: \"is it safe?\" assistant: \"only with the idempotency key\").",
    ] {
        let e = errors(validate(&input("Chat", inline, "inferred"), Some("atlas")));
        assert!(
            e.iter().any(|m| m.contains("transcript")),
            "{inline}: {e:?}"
        );
    }
    // One side quoted, or the word in prose, is not an exchange.
    for fine in [
        "The login page tells the user: your session expired, sign in again, which users misread.",
        "Retries reuse the idempotency key. The assistant: section of the runbook explains it.",
    ] {
        assert!(
            validate(&input("Prose", fine, "inferred"), Some("atlas")).is_ok(),
            "{fine}"
        );
    }
}

#[test]
fn recurrence_claims_are_capped_to_inferred() {
    for body in [
        "The nightly build always breaks on Windows when the cache is cold.",
        "The sync worker never recovers from a partial write to the queue.",
        "Every time the cache is cold the first request times out at the proxy.",
        "This keeps happening after each deploy of the payments service to prod.",
    ] {
        let v = validate(&input("Recurring failure", body, "verified"), Some("atlas")).unwrap();
        assert_eq!(v.flags, vec!["generalised"], "{body}");
        assert_eq!(v.confidence, Confidence::Inferred);
        assert_eq!(v.claimed_confidence, Some(Confidence::Verified));
        assert!(render(&v, &fixed_now(), &[]).contains("claimed_confidence: verified"));
    }
    let v = validate(
        &input(
            "Patch reach",
            "Consumers pin the old minor, so the patch never reaches them until they bump.",
            "verified",
        ),
        Some("atlas"),
    )
    .unwrap();
    assert!(v.flags.is_empty());
    assert!(
        validate(
            &input(
                "Build failure",
                "On 2026-07-26 the build failed because the lockfile drifted.",
                "verified"
            ),
            Some("atlas")
        )
        .is_ok()
    );
}

#[test]
fn undated_volatile_numbers_are_flagged() {
    let v = validate(
        &input(
            "Repo popularity",
            "The upstream repository has 3974 stars and 480 forks overall.",
            "verified",
        ),
        Some("atlas"),
    )
    .unwrap();
    assert_eq!(v.flags, vec!["volatile"]);
    assert_eq!(v.confidence, Confidence::Inferred);
    let v = validate(
        &input(
            "Repo popularity",
            "The upstream repository has 3974 stars as of 2026-07-26 overall.",
            "verified",
        ),
        Some("atlas"),
    )
    .unwrap();
    assert!(v.flags.is_empty());
}

#[test]
fn warnings_never_block() {
    let v = validate(&input("Checked claim", BODY, "verified"), Some("atlas")).unwrap();
    assert!(v.warnings.iter().any(|w| w.contains("verified")));
    let mut i = input("Everywhere", BODY, "inferred");
    i.scope = Some("general".into());
    let v = validate(&i, Some("atlas")).unwrap();
    assert!(v.warnings.iter().any(|w| w.contains("generality")));
    i.generality = Some("Holds for every bundler that reads externals.".into());
    let v = validate(&i, Some("atlas")).unwrap();
    assert!(!v.warnings.iter().any(|w| w.contains("generality")));
    assert_eq!(
        v.generality.as_deref(),
        Some("Holds for every bundler that reads externals.")
    );
    let long = "word ".repeat(3000);
    let v = validate(&input("Long", &long, "inferred"), Some("atlas")).unwrap();
    assert!(v.warnings.iter().any(|w| w.contains("atomic")));
}

#[test]
fn scope_is_narrowed_never_widened() {
    let mut i = input("Narrowed", BODY, "inferred");
    i.scope = Some("general".into());
    i.projects = vec!["alpha".into()];
    let v = validate(&i, Some("atlas")).unwrap();
    assert_eq!(v.scope, Scope::Project);
    assert_eq!(v.projects, vec!["alpha"]);
    assert_eq!(v.claimed_scope, Some(Scope::General));
    assert!(!v.warnings.iter().any(|w| w.contains("generality")));
    assert!(render(&v, &fixed_now(), &[]).contains("claimed_scope: general"));
    for origin in [Some("pocket"), None] {
        let mut i = input("General", BODY, "inferred");
        i.scope = Some("general".into());
        let v = validate(&i, origin).unwrap();
        assert_eq!(v.scope, Scope::General);
        assert!(v.projects.is_empty());
        assert_eq!(v.claimed_scope, None);
    }
    // Project never becomes general; platform passes through.
    for origin in [Some("pocket"), None] {
        for projects in [vec![], vec!["x".to_string()]] {
            let mut i = input("P", BODY, "inferred");
            i.scope = Some("project".into());
            i.projects = projects;
            if let Ok(v) = validate(&i, origin) {
                assert_eq!(v.scope, Scope::Project);
            }
        }
    }
    let mut i = input("Plat", BODY, "inferred");
    i.scope = Some("platform".into());
    i.platforms = vec!["ios".into()];
    let v = validate(&i, Some("atlas")).unwrap();
    assert_eq!(v.scope, Scope::Platform);
    assert!(v.projects.is_empty());
}

#[test]
fn a_memory_that_reaches_nobody_is_refused() {
    let e = errors(validate(&input("Lost", BODY, "inferred"), None));
    assert!(
        e[0].contains("reach nobody") && e[0].contains("general"),
        "{e:?}"
    );
    let v = validate(&input("Found", BODY, "inferred"), Some("atlas")).unwrap();
    assert_eq!(v.projects, vec!["atlas"]);
    let mut i = input("Found", BODY, "inferred");
    i.projects = vec!["atlas".into()];
    assert!(validate(&i, None).is_ok());
    let mut i = input("Plat", BODY, "inferred");
    i.scope = Some("platform".into());
    let e = errors(validate(&i, Some("atlas")));
    assert!(e[0].contains("reach nobody"));
    // Every accepted memory reaches someone.
    for scope in [None, Some("general"), Some("platform"), Some("project")] {
        for origin in [None, Some("atlas")] {
            for (pr, pl) in [
                (vec![], vec![]),
                (vec!["a".to_string()], vec![]),
                (vec![], vec!["ios".to_string()]),
            ] {
                let mut i = input("Reach", BODY, "inferred");
                i.scope = scope.map(str::to_string);
                i.projects = pr;
                i.platforms = pl;
                if let Ok(v) = validate(&i, origin) {
                    assert!(
                        v.scope == Scope::General
                            || !v.projects.is_empty()
                            || !v.platforms.is_empty()
                    );
                }
            }
        }
    }
}

fn fixed_now() -> Now {
    Now {
        unix_ms: 1_785_067_331_000, // 2026-07-26T12:02:11Z
        local: (2026, 7, 26),
    }
}

#[test]
fn rendered_memory_has_the_contract_frontmatter() {
    let mut i = input(
        "tsup externals decide what a patch can fix",
        "Body with \"quotes\", colons: here\nand a second line that is long enough.",
        "inferred",
    );
    i.projects = vec!["pocket".into(), "obsidian-mind".into()];
    i.platforms = vec!["ios".into()];
    i.verification = Some("Read the bundle.".into());
    let v = validate(&i, Some("atlas")).unwrap();
    let md = render(&v, &fixed_now(), &[]);
    for want in [
        "date: 2026-07-26\n",
        "source: mcp-capture\n",
        "origin: \"atlas\"\n",
        "scope: project\n",
        "projects: [\"pocket\", \"obsidian-mind\"]\n",
        "platforms: [\"ios\"]\n",
        "confidence: inferred\n",
        "tags: [memory]\n",
        "## How this is known",
    ] {
        assert!(md.contains(want), "missing {want:?} in\n{md}");
    }
    assert!(!md.contains("## Related"));
    assert_eq!(md.lines().filter(|l| *l == "---").count(), 2);
    let fm = md.split("---\n").nth(1).unwrap();
    for line in fm.lines() {
        let (k, val) = line.split_once(": ").unwrap();
        if ["description", "origin", "session"].contains(&k) {
            let s: String = serde_json::from_str(val).unwrap();
            assert!(!s.contains('\n'), "{k}");
        }
    }
    assert!(md.contains("session: \"2026-07-26T12:02:11.000Z\""));
    // The title equals its slug: no alias. A longer title gets one that round-trips.
    assert!(!md.contains("aliases:"));
    let mut i = input("Why \"quotes\": a/b?", BODY, "inferred");
    i.projects = vec!["atlas".into()];
    let md = render(
        &validate(&i, None).unwrap(),
        &fixed_now(),
        &["pocket".into()],
    );
    let m = Memory::parse("x.md", &md);
    assert_eq!(m.title.as_deref(), Some("Why \"quotes\": a/b?"));
    assert!(
        md.contains("aliases: [\"Why \\\"quotes\\\": a/b?\"]"),
        "{md}"
    );
    assert!(md.contains("## Related\n\n- [[pocket]]"));
    assert_eq!(m.scope, "project");
    assert_eq!(m.projects, vec!["atlas"]);
    assert!(m.is_agent());
}

fn mem(name: &str, scope: &str, projects: &[&str], platforms: &[&str], date: &str) -> Memory {
    Memory {
        path: format!("memories/2026/07/{name}.md"),
        title: Some(name.to_string()),
        body: format!("{name} body"),
        source: Some(MEMORY_SOURCE.into()),
        date: Some(date.into()),
        session: Some(format!("{date}T00:00:00.000Z")),
        scope: scope.into(),
        projects: projects.iter().map(|s| s.to_string()).collect(),
        platforms: platforms.iter().map(|s| s.to_string()).collect(),
        ..Memory::parse("", "")
    }
}

fn caller(project: Option<&str>, platforms: &[&str]) -> Caller {
    Caller {
        project: project.map(str::to_string),
        platforms: platforms.iter().map(|s| s.to_string()).collect(),
        ..Caller::anonymous()
    }
}

fn fixtures() -> Vec<Arc<Memory>> {
    vec![
        mem("M1", "project", &["atlas"], &[], "2026-07-20"),
        mem("M2", "project", &["atlas", "atlas-api"], &[], "2026-07-19"),
        mem("M3", "platform", &[], &["ios"], "2026-07-18"),
        mem("M4", "project", &["harbor"], &[], "2026-07-17"),
        mem("M5", "general", &[], &[], "2026-07-16"),
        mem("M6", "project", &["beacon"], &[], "2026-07-15"),
        mem("M7", "project", &["atlas"], &["ios"], "2026-07-14"),
        mem("M8", "platform", &[], &["iOS", "android"], "2026-07-13"),
    ]
    .into_iter()
    .map(Arc::new)
    .collect()
}

fn names(r: &[(Arc<Memory>, String)]) -> Vec<String> {
    let mut v: Vec<String> = r.iter().map(|(m, _)| m.title.clone().unwrap()).collect();
    v.sort();
    v
}

#[test]
fn precision_matrix() {
    let f = fixtures();
    let cases: [(Caller, &[&str]); 6] = [
        (
            caller(Some("atlas"), &["ios"]),
            &["M1", "M2", "M3", "M5", "M7", "M8"],
        ),
        (caller(Some("beacon"), &["IOS"]), &["M3", "M5", "M6", "M8"]),
        (caller(Some("harbor"), &["web"]), &["M4", "M5"]),
        (caller(Some("atlas-api"), &[]), &["M2", "M5"]),
        (caller(Some("drifter"), &["android"]), &["M5", "M8"]),
        (caller(None, &[]), &["M5"]),
    ];
    let mut reached = std::collections::HashSet::new();
    for (c, want) in &cases {
        let r = recall_from(&f, c, true);
        assert_eq!(names(&r.visible), *want, "{:?}", c.project);
        assert_ne!(r.visible.len(), f.len());
        reached.extend(names(&r.visible));
        if c.project.as_deref() == Some("beacon") {
            assert_eq!(names(&r.withheld), ["M1", "M2", "M4", "M7"]);
        }
    }
    assert_eq!(reached.len(), 8, "every fixture reaches someone");
    // Ranking: own project first (one project beats two), newest first on ties.
    let r = recall_from(&f, &caller(Some("atlas"), &["ios"]), true);
    let order: Vec<&str> = r
        .visible
        .iter()
        .map(|(m, _)| m.title.as_deref().unwrap())
        .collect();
    assert_eq!(order, ["M1", "M7", "M2", "M3", "M8", "M5"]);
}

#[test]
fn explain_reasons() {
    let f = fixtures();
    let anon = recall_from(&f, &caller(None, &[]), true);
    assert!(anon.withheld.iter().all(|(_, w)| w.contains("no identity")));
    let b = recall_from(&f, &caller(Some("beacon"), &["ios"]), true);
    let why: Vec<&str> = b.visible.iter().map(|(_, w)| w.as_str()).collect();
    assert!(why.contains(&"general scope reaches every caller"));
    assert!(why.contains(&"explicitly lists project \"beacon\""));
    assert!(
        why.iter()
            .any(|w| w.starts_with("platform scope overlaps caller platforms [ios]"))
    );
    assert!(
        b.withheld
            .iter()
            .all(|(_, w)| w.starts_with("no facet matches caller (project=\"beacon\""))
    );
}

#[test]
fn malformed_facets_never_panic_and_no_facets_means_invisible() {
    let weird = Memory::parse(
        "memories/2026/07/w.md",
        "---\nsource: mcp-capture\nscope: 42\nprojects: atlas\nplatforms: {x}\n---\n# W\nbody",
    );
    let bare = Memory::parse(
        "memories/2026/07/b.md",
        "---\nsource: mcp-capture\n---\n# B\nbody",
    );
    let f = vec![Arc::new(weird), Arc::new(bare)];
    for c in [
        caller(Some("atlas"), &["ios"]),
        caller(None, &[]),
        caller(Some(""), &[""]),
    ] {
        let r = recall_from(&f, &c, true);
        assert!(
            r.visible
                .iter()
                .all(|(m, _)| m.title.as_deref() != Some("B"))
        );
    }
    // A scalar `projects` is promoted to a list.
    let r = recall_from(&f, &caller(Some("atlas"), &[]), true);
    assert_eq!(names(&r.visible), ["W"]);
}

#[test]
fn only_agent_sources_are_recalled() {
    let mut human = mem("Human", "general", &[], &[], "2026-07-01");
    human.source = None;
    let mut other = mem("Other", "general", &[], &[], "2026-07-01");
    other.source = Some("clipper".into());
    let mut hand = mem("Hand", "general", &[], &[], "2026-07-01");
    hand.source = Some(HAND_FILED_SOURCE.into());
    let f: Vec<Arc<Memory>> = [human, other, hand].into_iter().map(Arc::new).collect();
    assert_eq!(
        names(&recall_from(&f, &caller(None, &[]), true).visible),
        ["Hand"]
    );
}

fn supersede(m: &mut Memory, by: &[&str]) {
    m.superseded_by = by.iter().map(|s| s.to_string()).collect();
}

#[test]
fn supersession_reach_is_a_fixpoint() {
    // A general memory corrected by an ios-only one.
    let mut old = mem("Old lesson", "general", &[], &[], "2026-07-30");
    supersede(&mut old, &["iOS correction"]);
    let fix = mem("iOS correction", "platform", &[], &["ios"], "2026-07-01");
    let f: Vec<Arc<Memory>> = [old, fix].into_iter().map(Arc::new).collect();
    let h = recall_from(&f, &caller(Some("harbor"), &["web"]), true);
    assert!(h.visible.is_empty());
    let (_, why) = &h.withheld[0];
    // The correction is invisible to harbor, so its title is never named.
    assert_eq!(why, SUPERSEDED_REASON);
    assert!(!why.contains("iOS correction"), "{why}");
    assert!(!why.contains("scope"));
    let scope_withheld = &h.withheld[1].1;
    assert!(!scope_withheld.starts_with(SUPERSEDED_REASON));
    // Atlas sees both; the correction first although the original is newer.
    let a = recall_from(&f, &caller(Some("atlas"), &["ios"]), true);
    let order: Vec<&str> = a
        .visible
        .iter()
        .map(|(m, _)| m.title.as_deref().unwrap())
        .collect();
    assert_eq!(order, ["iOS correction", "Old lesson"]);

    // An unresolvable claim leaves the memory visible.
    let mut lone = mem("Lone", "general", &[], &[], "2026-07-01");
    supersede(&mut lone, &["Nothing by this title"]);
    assert_eq!(
        names(&recall_from(&[Arc::new(lone)], &caller(None, &[]), true).visible),
        ["Lone"]
    );

    // Chain A -> B -> C where C is ios-only.
    let mut a = mem("A", "general", &[], &[], "2026-07-01");
    supersede(&mut a, &["B"]);
    let mut b = mem("B", "general", &[], &[], "2026-07-02");
    supersede(&mut b, &["C"]);
    let c = mem("C", "platform", &[], &["ios"], "2026-07-03");
    let f: Vec<Arc<Memory>> = [a, b, c].into_iter().map(Arc::new).collect();
    assert!(
        recall_from(&f, &caller(Some("harbor"), &["web"]), true)
            .visible
            .is_empty()
    );
    assert_eq!(
        recall_from(&f, &caller(Some("atlas"), &["ios"]), true)
            .visible
            .len(),
        3
    );

    // An 8-link chain retires all the way back, or is fully served.
    let mut chain = Vec::new();
    for i in 0..8 {
        let last = i == 7;
        let mut m = if last {
            mem(&format!("L{i}"), "platform", &[], &["ios"], "2026-07-01")
        } else {
            mem(&format!("L{i}"), "general", &[], &[], "2026-07-01")
        };
        if !last {
            supersede(&mut m, &[&format!("L{}", i + 1)]);
        }
        chain.push(Arc::new(m));
    }
    assert!(
        recall_from(&chain, &caller(Some("harbor"), &["web"]), true)
            .visible
            .is_empty()
    );
    assert_eq!(
        recall_from(&chain, &caller(Some("atlas"), &["ios"]), true)
            .visible
            .len(),
        8
    );

    // A cycle keeps both.
    let mut x = mem("X", "general", &[], &[], "2026-07-01");
    supersede(&mut x, &["Y"]);
    let mut y = mem("Y", "general", &[], &[], "2026-07-01");
    supersede(&mut y, &["X"]);
    let f: Vec<Arc<Memory>> = [x, y].into_iter().map(Arc::new).collect();
    assert_eq!(recall_from(&f, &caller(None, &[]), true).visible.len(), 2);
}

#[test]
fn long_chains_resolve_in_linear_passes() {
    // 2000 links: the worklist fixpoint touches each edge once.
    let n = 2000;
    let chain: Vec<Arc<Memory>> = (0..n)
        .map(|i| {
            let mut m = if i == n - 1 {
                mem(&format!("C{i}"), "platform", &[], &["ios"], "2026-07-01")
            } else {
                mem(&format!("C{i}"), "general", &[], &[], "2026-07-01")
            };
            if i + 1 < n {
                supersede(&mut m, &[&format!("C{}", i + 1)]);
            }
            Arc::new(m)
        })
        .collect();
    assert!(
        recall_from(&chain, &caller(Some("harbor"), &["web"]), true)
            .visible
            .is_empty()
    );
    assert_eq!(
        recall_from(&chain, &caller(Some("atlas"), &["ios"]), true)
            .visible
            .len(),
        n
    );
}

#[test]
fn specificity_orders_own_project_platform_general() {
    let c = caller(Some("atlas"), &["ios"]);
    let one = mem("one", "project", &["atlas"], &[], "2026-01-01");
    let four = mem(
        "four",
        "project",
        &["atlas", "b", "c", "d"],
        &[],
        "2026-01-01",
    );
    let plat = mem("plat", "platform", &[], &["ios"], "2026-01-01");
    let gen_ = mem("gen", "general", &[], &[], "2026-01-01");
    assert!(one.specificity(&c) > four.specificity(&c));
    assert!(four.specificity(&c) > plat.specificity(&c));
    assert!(plat.specificity(&c) > gen_.specificity(&c));
    // A superseded memory ranks below a live one even when newer.
    let mut newer = mem("newer", "project", &["atlas"], &[], "2026-12-01");
    supersede(&mut newer, &["Nothing"]);
    let mut v = vec![(Arc::new(newer), 99), (Arc::new(gen_), 10)];
    rank(&mut v);
    assert_eq!(v[0].0.title.as_deref(), Some("gen"));
}

#[test]
fn reorder_places_retrieved_first_and_keeps_everything() {
    let f = fixtures();
    let r = recall_from(&f, &caller(Some("atlas"), &["ios"]), true);
    let placed = vec![
        "memories/2026/07/M8.md".to_string(),
        "memories/2026/07/M2.md".to_string(),
        "memories/2026/07/M4.md".to_string(), // not visible: ignored
    ];
    let out = reorder(r.visible, &placed);
    let order: Vec<&str> = out
        .iter()
        .map(|(m, _)| m.title.as_deref().unwrap())
        .collect();
    assert_eq!(order, ["M8", "M2", "M1", "M7", "M3", "M5"]);
    // Live before superseded, never across.
    let mut s = mem("S", "general", &[], &[], "2026-07-01");
    supersede(&mut s, &["M5"]);
    let mut f = fixtures();
    f.push(Arc::new(s));
    let r = recall_from(&f, &caller(Some("atlas"), &["ios"]), true);
    let out = reorder(r.visible, &["memories/2026/07/S.md".to_string()]);
    assert_eq!(out.last().unwrap().0.title.as_deref(), Some("S"));
}

#[test]
fn duplicates_are_facet_gated() {
    let mk = |scope: &str, projects: &[&str], platforms: &[&str]| {
        let mut m = mem("Same title here", scope, projects, platforms, "2026-07-01");
        m.body = BODY.to_string();
        let d = text::Digest::new("Same title here", BODY);
        (Arc::new(m), Arc::new(d))
    };
    let existing = vec![mk("project", &["atlas"], &[])];
    let (cand, d) = mk("project", &["harbor"], &[]);
    assert!(find_duplicates(&cand, &d, &existing).is_empty());
    let (cand, d) = mk("general", &[], &[]);
    assert_eq!(find_duplicates(&cand, &d, &existing).len(), 1);
    let (cand, d) = mk("platform", &["atlas"], &["ios"]);
    assert_eq!(
        find_duplicates(&cand, &d, &existing).len(),
        1,
        "shared project across scopes"
    );
    let existing = vec![mk("platform", &[], &["ios"])];
    let (cand, d) = mk("platform", &[], &["IOS"]);
    assert_eq!(find_duplicates(&cand, &d, &existing).len(), 1);
    let (cand, d) = mk("platform", &[], &["web"]);
    assert!(find_duplicates(&cand, &d, &existing).is_empty());
}

#[test]
fn supersede_claims_match_exact_titles_only() {
    let f = vec![Arc::new(mem(
        "The Old Lesson",
        "general",
        &[],
        &[],
        "2026-07-01",
    ))];
    let (m, u) = resolve_supersedes(&["  the old lesson ".into()], &f);
    assert_eq!(m.len(), 1);
    assert!(u.is_empty());
    let (m, u) = resolve_supersedes(&["The Old".into(), "".into(), "  ".into()], &f);
    assert!(m.is_empty());
    assert_eq!(u, ["The Old"]);
}

fn store() -> (tempfile::TempDir, MemoryStore) {
    let d = tempfile::tempdir().unwrap();
    let s = MemoryStore::new(d.path(), "memories", d.path().join(".mindex/memory.lock"));
    (d, s)
}

#[test]
fn writes_claim_distinct_names_and_leave_no_temp_files() {
    let (d, s) = store();
    let a = s.write((2026, 1, 5), "x", "first").unwrap();
    assert_eq!(a, "memories/2026/01/2026-01-05 x.md");
    let b = s.write((2026, 1, 5), "x", "second").unwrap();
    assert_eq!(b, "memories/2026/01/2026-01-05 x (2).md");
    assert_eq!(fs::read_to_string(d.path().join(&a)).unwrap(), "first");
    let names: Vec<String> = fs::read_dir(d.path().join("memories/2026/01"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|n| n.ends_with(".md")));
    let c = s.write((2026, 12, 31), "x", "third").unwrap();
    assert_eq!(c, "memories/2026/12/2026-12-31 x.md");
}

#[test]
fn the_parse_cache_rereads_only_changed_files() {
    let (d, s) = store();
    let v = validate(&input("Cache one", BODY, "inferred"), Some("atlas")).unwrap();
    let a = s
        .write((2026, 7, 1), "cache one", &render(&v, &fixed_now(), &[]))
        .unwrap();
    s.write(
        (2026, 7, 1),
        "cache two",
        "---\ntitle: human\n---\n# Human note\n",
    )
    .unwrap();
    let (all, st) = s.all();
    assert_eq!((st.hits, st.misses, st.size), (0, 2, 2));
    assert_eq!(all.len(), 2, "human notes are returned too");
    let (_, st) = s.all();
    assert_eq!((st.hits, st.misses), (2, 0));
    // An edit that keeps the size and mtime is still seen (ctime and inode change).
    let p = d.path().join(&a);
    let meta = fs::metadata(&p).unwrap();
    let text = fs::read_to_string(&p)
        .unwrap()
        .replace("Cache one", "Cache 1ne");
    fs::write(&p, &text).unwrap();
    let f = fs::File::options().write(true).open(&p).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    let (all, st) = s.all();
    assert_eq!(st.misses, 1);
    assert!(all.iter().any(|m| m.title.as_deref() == Some("Cache 1ne")));
    // Invalidate forces a re-read; deleted files disappear; new ones appear.
    s.invalidate(&a);
    assert_eq!(s.all().1.misses, 1);
    fs::remove_file(&p).unwrap();
    s.write(
        (2026, 8, 1),
        "later",
        "---\nsource: mcp-capture\n---\n# Later\n",
    )
    .unwrap();
    let (all, st) = s.all();
    assert_eq!(st.size, 2);
    assert!(all.iter().any(|m| m.title.as_deref() == Some("Later")));
    // A symlinked year folder is walked.
    #[cfg(unix)]
    {
        let elsewhere = d.path().join("elsewhere/03");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("linked.md"), "# Linked\n").unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), d.path().join("memories/2025"))
            .unwrap();
        assert!(
            s.all()
                .0
                .iter()
                .any(|m| m.title.as_deref() == Some("Linked"))
        );
    }
}

/// A human appends a line every ~0.5 ms (open, append, close, like `echo >>`) while the memory
/// is superseded again and again: every line and every back-link must be in the file at the end.
#[test]
fn supersession_never_loses_a_concurrent_human_edit() {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (d, s) = store();
    let v = validate(&input("Old title", BODY, "inferred"), Some("atlas")).unwrap();
    let rel = s
        .write((2026, 7, 1), "old title", &render(&v, &fixed_now(), &[]))
        .unwrap();
    let abs = d.path().join(&rel);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (abs, stop) = (abs.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let mut f = fs::OpenOptions::new().append(true).open(&abs).unwrap();
                f.write_all(format!("human line {n}\n").as_bytes()).unwrap();
                drop(f);
                n += 1;
                std::thread::sleep(std::time::Duration::from_micros(500));
            }
            n
        })
    };
    let mut marked = Vec::new();
    let mut refused = 0;
    for i in 0..150 {
        let title = format!("Correction {i}");
        match s.mark_superseded(&rel, &title) {
            SupersedeMark::Marked => marked.push(title),
            SupersedeMark::Refused(why) => {
                assert!(why.contains("kept changing"), "{why}");
                refused += 1;
            }
            SupersedeMark::AlreadyPresent => panic!("{title} already present"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let lines = writer.join().unwrap();
    let text = fs::read_to_string(&abs).unwrap();
    let missing: Vec<usize> = (0..lines)
        .filter(|n| !text.contains(&format!("human line {n}\n")))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {lines} human lines lost: {missing:?}",
        missing.len()
    );
    let m = Memory::parse(&rel, &text);
    assert_eq!(m.superseded_by, marked, "every back-link kept");
    eprintln!(
        "{lines} human lines, {} back-links, {refused} refused, 0 lost",
        marked.len()
    );
    assert!(lines > 200, "the writer ran throughout ({lines} lines)");
    // How many supersessions land between the human's edits depends on the machine's speed and
    // load (a refusal says so and loses nothing); some must land for the test to mean anything.
    assert!(!marked.is_empty(), "all {refused} refused");
}

#[test]
fn supersession_marks_only_engine_memories() {
    let (d, s) = store();
    let v = validate(&input("Old title", BODY, "inferred"), Some("atlas")).unwrap();
    let rel = s
        .write((2026, 7, 1), "old title", &render(&v, &fixed_now(), &[]))
        .unwrap();
    assert_eq!(
        s.mark_superseded(&rel, "New, with comma"),
        SupersedeMark::Marked
    );
    assert_eq!(
        s.mark_superseded(&rel, "Second \"quoted\""),
        SupersedeMark::Marked
    );
    assert_eq!(
        s.mark_superseded(&rel, "New, with comma"),
        SupersedeMark::AlreadyPresent
    );
    let m = Memory::parse(&rel, &fs::read_to_string(d.path().join(&rel)).unwrap());
    assert_eq!(m.superseded_by, ["New, with comma", "Second \"quoted\""]);
    assert_eq!(m.body, v.body, "the body is unchanged");
    // Human notes are refused byte for byte.
    let human = "---\ntitle: x\nsource: clipper\n---\n# Human\n";
    let hrel = s.write((2026, 7, 1), "human", human).unwrap();
    match s.mark_superseded(&hrel, "New") {
        SupersedeMark::Refused(why) => assert!(why.contains("refusing to modify")),
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_to_string(d.path().join(&hrel)).unwrap(), human);
    assert!(matches!(
        s.mark_superseded("memories/nope.md", "x"),
        SupersedeMark::Refused(_)
    ));
}

#[test]
fn the_contract_path_and_a_custom_root() {
    let (d, s) = store();
    let title = "tsup externals decide what a patch can fix";
    let rel = s.write((2026, 7, 26), &text::slugify(title), "x").unwrap();
    assert_eq!(
        rel,
        "memories/2026/07/2026-07-26 tsup externals decide what a patch can fix.md"
    );
    let custom = MemoryStore::new(d.path(), "recall", d.path().join(".mindex/memory.lock"));
    let rel = custom.write((2026, 1, 5), "x", "x").unwrap();
    assert_eq!(rel, "recall/2026/01/2026-01-05 x.md");
    assert!(d.path().join(&rel).is_file());
}

#[test]
fn the_cache_serves_what_the_disk_holds() {
    let (d, s) = store();
    for (i, t) in ["One lesson title", "Two lesson title"].iter().enumerate() {
        let mut inp = input(t, BODY, "inferred");
        inp.projects = vec![format!("p{i}")];
        let v = validate(&inp, None).unwrap();
        s.write(
            (2026, 7, 1 + i as u32),
            &text::slugify(t),
            &render(&v, &fixed_now(), &[]),
        )
        .unwrap();
    }
    s.all();
    let (cached, st) = s.all();
    assert_eq!(st.hits, 2);
    for m in cached {
        let disk = Memory::parse(
            &m.path,
            &fs::read_to_string(d.path().join(&m.path)).unwrap(),
        );
        assert_eq!(*m, disk);
    }
}
