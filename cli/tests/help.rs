//! The CLI's `--help` teaches the memory commands with the words the MCP tools use
//! (`mindex::scoped::docs`): what each is for, and what every scope and confidence means.

use std::process::Command;

use mindex::scoped::docs::{health, reason, recall, record_work, remember, status};

/// `mindex <command> --help`, with whitespace runs made single spaces (clap wraps lines).
fn help(command: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mindex"))
        .args([command, "--help"])
        .env_remove("MINDEX_VAULT")
        .output()
        .expect("run mindex");
    assert!(out.status.success(), "{command} --help failed");
    flat(&String::from_utf8(out.stdout).unwrap())
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_says(command: &str, page: &str, texts: &[(&str, &str)]) {
    for (name, text) in texts {
        assert!(
            page.contains(&flat(text)),
            "`mindex {command} --help` lacks the shared text of {name}:\n{text}\n--- help ---\n{page}"
        );
    }
}

#[test]
fn memory_commands_help_carries_the_shared_words() {
    assert_says(
        "remember",
        &help("remember"),
        &[
            ("remember", remember::TOOL),
            ("title", remember::TITLE),
            ("body", remember::BODY),
            ("confidence", remember::CONFIDENCE),
            ("verification", remember::VERIFICATION),
            ("scope", remember::SCOPE),
            ("generality", remember::GENERALITY),
            ("projects", remember::PROJECTS),
            ("platforms", remember::PLATFORMS),
            ("links", remember::LINKS),
            ("supersedes", remember::SUPERSEDES),
            ("force", remember::FORCE),
            ("dry_run", remember::DRY_RUN),
        ],
    );
    assert_says(
        "recall",
        &help("recall"),
        &[
            ("recall", recall::TOOL),
            ("query", recall::QUERY),
            ("limit", recall::LIMIT),
            ("explain", recall::EXPLAIN),
        ],
    );
    assert_says(
        "record-work",
        &help("record-work"),
        &[
            ("record_work", record_work::TOOL),
            ("title", record_work::TITLE),
            ("summary", record_work::SUMMARY),
            ("changes", record_work::CHANGES),
            ("decisions", record_work::DECISIONS),
            ("learned", record_work::LEARNED),
            ("open", record_work::OPEN),
            ("informed_by", record_work::INFORMED_BY),
            ("verification", record_work::VERIFICATION),
            ("folder", record_work::FOLDER),
            ("kind", record_work::KIND),
            ("dry_run", record_work::DRY_RUN),
        ],
    );
    assert_says(
        "reason",
        &help("reason"),
        &[("reason", reason::TOOL), ("question", reason::QUESTION)],
    );
    assert_says("health", &help("health"), &[("health", health::TOOL)]);
    assert_says("status", &help("status"), &[("status", status::TOOL)]);
}

#[test]
fn every_scope_and_confidence_is_explained_in_remember_help() {
    let page = help("remember");
    for value in [
        "general",
        "platform",
        "project",
        "verified",
        "inferred",
        "unverified",
    ] {
        assert!(
            page.contains(&format!("`{value}`:")),
            "remember --help does not explain {value}"
        );
    }
}
