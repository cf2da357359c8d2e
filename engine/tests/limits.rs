//! Size limits of the agent writes (`remember`, `record_work`) and the truth of `indexed`.

use std::fs;
use std::path::Path;

use mindex::{
    Caller, MemoryInput, NoProgress, Refusal, Vault, VaultOptions, WorkInput, init::init_vault,
    memory::MAX_MEMORY_BODY_BYTES, memory::MAX_MEMORY_FIELD_BYTES, vault::MAX_WORK_NOTE_BYTES,
};

fn vault(opts: VaultOptions) -> (tempfile::TempDir, Vault) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("vault");
    init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
    let v = Vault::open(&root, opts).unwrap();
    v.update(&NoProgress).unwrap();
    (d, v)
}

/// Notes (`.md` files) under `dir`, at any depth.
fn files_under(dir: &Path) -> usize {
    let Ok(rd) = fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            if e.file_type().unwrap().is_dir() {
                files_under(&e.path())
            } else {
                usize::from(e.path().extension().is_some_and(|x| x == "md"))
            }
        })
        .sum()
}

/// Distinct sentences, so the duplicate scan and the contract rules see ordinary prose.
fn prose(bytes: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            "Step {i} of the ledger migration kept row {} locked while the batch ran. ",
            i * 7
        ));
        i += 1;
    }
    s.truncate(bytes);
    s
}

fn lesson(body: String) -> MemoryInput {
    MemoryInput {
        title: "Ledger batches hold row locks".into(),
        body,
        confidence: "inferred".into(),
        scope: Some("general".into()),
        ..MemoryInput::default()
    }
}

#[test]
fn an_oversized_memory_is_refused_naming_the_field_its_size_and_the_limit() {
    let (_d, v) = vault(VaultOptions::default());
    let who = Caller::named("atlas").unwrap();
    let big = 20 << 20;
    let r = v.scoped(&who).remember(&lesson(prose(big)), None).unwrap();
    assert!(!r.recorded, "{}", r.message);
    let Some(Refusal::Validation { errors }) = &r.refusal else {
        panic!("{r:?}")
    };
    assert_eq!(
        errors[0],
        format!(
            "body is {big} bytes; the limit is {MAX_MEMORY_BODY_BYTES} bytes (32 KiB). A memory is one lesson: state it briefly, or record long material as a note with record_work."
        )
    );
    assert!(
        r.message.contains("body is 20971520 bytes"),
        "{}",
        r.message
    );
    assert_eq!(
        files_under(&v.root().join("memories")),
        0,
        "nothing written"
    );

    // Every other field has its own limit, named the same way.
    let mut input = lesson(prose(500));
    input.verification = Some("v".repeat(MAX_MEMORY_FIELD_BYTES + 1));
    input.links = vec!["x".repeat(3000), "y".repeat(3000)];
    let r = v.scoped(&who).remember(&input, None).unwrap();
    let Some(Refusal::Validation { errors }) = &r.refusal else {
        panic!("{r:?}")
    };
    assert!(
        errors.contains(&"verification is 4097 bytes; the limit is 4096 bytes (4 KiB).".into()),
        "{errors:?}"
    );
    assert!(
        errors.contains(&"links is 6000 bytes; the limit is 4096 bytes (4 KiB).".into()),
        "{errors:?}"
    );

    // A body at the limit is a memory like any other.
    let r = v
        .scoped(&who)
        .remember(&lesson(prose(MAX_MEMORY_BODY_BYTES)), None)
        .unwrap();
    assert!(r.recorded && r.indexed, "{}", r.message);
}

#[test]
fn an_oversized_work_note_is_refused_naming_the_largest_field_and_the_limit() {
    let (_d, v) = vault(VaultOptions::default());
    let who = Caller::named("atlas").unwrap();
    let input = WorkInput {
        title: "Moved the ledger".into(),
        summary: "Moved the ledger to Postgres.".into(),
        changes: vec![prose(200_000), prose(100_000)],
        ..WorkInput::default()
    };
    let r = v.scoped(&who).record_work(&input).unwrap();
    assert!(!r.recorded);
    assert!(
        matches!(r.refusal, Some(mindex::Refusal::Validation { .. })),
        "{:?}",
        r.refusal
    );
    let why = &r.message;
    assert!(
        why.starts_with("Not recorded: the input is 300045 bytes (largest field: changes, 300000 bytes); the limit for one note is 262144 bytes (256 KiB)."),
        "{why}"
    );
    assert_eq!(MAX_WORK_NOTE_BYTES, 256 * 1024);
    assert_eq!(files_under(&v.root().join("projects")), 0);
    assert_eq!(files_under(&v.root().join("inbox")), 0);
}

#[test]
fn a_write_the_index_skips_does_not_report_indexed() {
    // An index that skips notes over 2,000 bytes.
    let (_d, v) = vault(VaultOptions {
        max_note_bytes: 2000,
        ..VaultOptions::default()
    });
    let who = Caller::named("atlas").unwrap();
    let r = v.scoped(&who).remember(&lesson(prose(3000)), None).unwrap();
    assert!(r.recorded, "{}", r.message);
    assert!(!r.indexed, "the index skipped it: {}", r.message);
    assert!(
        r.message
            .contains("NOTE: not indexed: the index skipped it"),
        "{}",
        r.message
    );
    let small = v
        .scoped(&who)
        .remember(
            &MemoryInput {
                title: "Small lessons index".into(),
                ..lesson(prose(300))
            },
            None,
        )
        .unwrap();
    assert!(small.recorded && small.indexed, "{}", small.message);

    let input = WorkInput {
        title: "Moved the ledger".into(),
        summary: prose(3000),
        ..WorkInput::default()
    };
    let r = v.scoped(&who).record_work(&input).unwrap();
    assert!(r.recorded);
    assert!(!r.indexed, "{}", r.message);
    assert!(
        r.message
            .contains("NOTE: not indexed: the index skipped it"),
        "{}",
        r.message
    );
}
