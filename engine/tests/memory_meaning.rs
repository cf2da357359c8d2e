//! The memory guard by meaning, with the real embedding model: a paraphrase of a visible memory
//! is refused naming it; a different lesson on the same subject, a forced write and a memory
//! the caller cannot see are not.

use mindex::{
    BertEmbedder, Caller, Embedder, MemoryInput, NoProgress, Refusal, Vault, VaultOptions,
    embed::model_dir, init::init_vault,
};

fn lesson(title: &str, body: &str, scope: &str, projects: &[&str]) -> MemoryInput {
    MemoryInput {
        title: title.into(),
        body: body.into(),
        confidence: "verified".into(),
        verification: Some("seen in the acquirer's letter".into()),
        scope: Some(scope.into()),
        projects: projects.iter().map(|p| p.to_string()).collect(),
        ..MemoryInput::default()
    }
}

#[test]
fn a_paraphrase_of_a_visible_memory_is_refused_by_meaning() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("vault");
    init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
    let v = Vault::open(&root, VaultOptions::default()).unwrap();
    let model = BertEmbedder::load(&model_dir(None)).unwrap_or_else(|e| panic!("{e}"));
    let m: Option<&dyn Embedder> = Some(&model);
    let atlas = Caller::named("atlas").unwrap();
    let view = v.scoped(&atlas);
    let first = view
        .remember(
            &lesson(
                "Do not auto-retry do-not-honor declines",
                "Card declines with reason do_not_honor must never be retried automatically; \
                 the issuer treats repeated attempts as abuse and the acquirer warned us.",
                "general",
                &[],
            ),
            m,
        )
        .unwrap();
    assert!(first.recorded, "{}", first.message);
    let secret = view
        .remember(
            &lesson(
                "Ledger builds need sccache",
                "Building the ledger without sccache takes 25 minutes on CI; always enable the \
                 sccache wrapper in the build image or the pipeline times out.",
                "project",
                &["atlas"],
            ),
            m,
        )
        .unwrap();
    assert!(secret.recorded, "{}", secret.message);
    v.update(&NoProgress).unwrap();
    v.vectors().embed(&model, &NoProgress).unwrap();

    // Other words, same lesson: refused, naming the memory, the words' check having passed.
    let paraphrase = lesson(
        "Never automatically re-attempt do_not_honor card declines",
        "If a card is declined as do not honor, don't let the system retry it on its own: \
         issuers see repeated tries as abuse and our acquirer complained.",
        "general",
        &[],
    );
    // Without the model only the words are compared, and they differ: a dry run passes.
    let words_only = view
        .remember(
            &MemoryInput {
                dry_run: true,
                ..paraphrase.clone()
            },
            None,
        )
        .unwrap();
    assert!(
        words_only.refusal.is_none() && words_only.preview.is_some(),
        "{}",
        words_only.message
    );
    let r = view.remember(&paraphrase, m).unwrap();
    assert!(!r.recorded, "{}", r.message);
    match &r.refusal {
        Some(Refusal::Duplicate {
            score,
            path,
            by_meaning,
            ..
        }) => {
            assert!(*by_meaning && *score >= 0.70, "{r:?}");
            assert_eq!(Some(path), first.path.as_ref());
        }
        other => panic!("{other:?}"),
    }
    assert!(
        r.message
            .contains("Do not auto-retry do-not-honor declines"),
        "{}",
        r.message
    );
    // The same subject, another lesson: recorded.
    let other = view
        .remember(
            &lesson(
                "Idempotency keys must be sent on every payment retry",
                "Every retried payment request must reuse the original idempotency key or the \
                 customer may be charged twice.",
                "general",
                &[],
            ),
            m,
        )
        .unwrap();
    assert!(other.recorded, "{}", other.message);
    // Forced: recorded.
    let forced = view
        .remember(
            &MemoryInput {
                force: true,
                ..lesson(
                    "Do-not-honor declines are never retried",
                    "Automatic retries of do_not_honor declines get us flagged by the issuer; \
                     the acquirer already sent a warning.",
                    "general",
                    &[],
                )
            },
            m,
        )
        .unwrap();
    assert!(forced.recorded, "{}", forced.message);
    // A memory the caller cannot see is never named: another project paraphrasing atlas's
    // project memory records its own.
    let rigel = Caller::named("rigel").unwrap();
    let theirs = v
        .scoped(&rigel)
        .remember(
            &lesson(
                "Enable sccache for ledger CI builds",
                "Ledger CI builds take about 25 minutes without the sccache compiler cache and \
                 hit the pipeline timeout; keep sccache on in the build image.",
                "project",
                &["rigel"],
            ),
            m,
        )
        .unwrap();
    assert!(theirs.recorded, "{}", theirs.message);
}
