//! Lexical search in every script, and code-like identifiers, against a real index on disk.

use std::fs;
use std::path::Path;

use mindex::{NoProgress, SearchOptions, Vault, VaultOptions};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn paths(v: &Vault, q: &str) -> Vec<String> {
    v.search(q, &SearchOptions::default())
        .unwrap()
        .into_iter()
        .map(|h| h.path)
        .collect()
}

fn vault() -> (tempfile::TempDir, Vault) {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(
        r,
        "zh/部署.md",
        "# 部署流程\n\n我们决定使用蓝绿部署，以便在出现故障时快速回滚。数据库迁移必须向后兼容。\n",
    );
    write(
        r,
        "ja/障害.md",
        "# 障害対応\n\n東京リージョンで障害が発生しました。原因はコネクションプールの枯渇です。\n",
    );
    write(
        r,
        "ko/회의.md",
        "# 회의록\n\n결제 시스템 마이그레이션 일정을 결정했습니다. 다음 주에 배포합니다.\n",
    );
    write(
        r,
        "mixed/Release.md",
        "# Release notes\n\nThe hotfix `deploy-v2.4.7-hotfix` fixed 東京 latency. See src/billing/retry_policy.rs and the RetryPolicy class; call get_user_name() only once.\n",
    );
    write(
        r,
        "fr/Café.md",
        "# Café crème\n\nLe résumé de la réunion: déploiement à Montréal.\n",
    );
    write(
        r,
        "en/Plain.md",
        "# Plain English\n\nConnection pools run dry under retry storms; tokyo is a region name here.\n",
    );
    let v = Vault::open(r, VaultOptions::default()).unwrap();
    v.update(&NoProgress).unwrap();
    (d, v)
}

#[test]
fn chinese_japanese_korean_are_found_without_spaces() {
    let (_d, v) = vault();
    assert_eq!(paths(&v, "蓝绿部署")[0], "zh/部署.md");
    assert_eq!(paths(&v, "回滚")[0], "zh/部署.md");
    assert_eq!(paths(&v, "数据库迁移")[0], "zh/部署.md");
    assert_eq!(paths(&v, "コネクションプール")[0], "ja/障害.md");
    assert_eq!(paths(&v, "障害")[0], "ja/障害.md");
    assert_eq!(
        paths(&v, "東京リージョンの障害")[0],
        "ja/障害.md",
        "a query sentence shares pairs"
    );
    assert_eq!(paths(&v, "마이그레이션")[0], "ko/회의.md");
    assert_eq!(paths(&v, "배포")[0], "ko/회의.md");
    // A single character still finds its notes.
    assert!(paths(&v, "枯").contains(&"ja/障害.md".to_string()));
    // Unrelated CJK text finds nothing.
    assert!(paths(&v, "天气不错").is_empty());
}

#[test]
fn mixed_script_and_accents() {
    let (_d, v) = vault();
    let tokyo = paths(&v, "東京");
    assert!(
        tokyo.contains(&"ja/障害.md".to_string())
            && tokyo.contains(&"mixed/Release.md".to_string()),
        "{tokyo:?}"
    );
    assert_eq!(paths(&v, "東京 latency")[0], "mixed/Release.md");
    assert_eq!(paths(&v, "cafe creme")[0], "fr/Café.md");
    assert_eq!(paths(&v, "Montreal deploiement")[0], "fr/Café.md");
    assert_eq!(paths(&v, "résumé")[0], "fr/Café.md");
    // Full-width Latin reads as ASCII.
    assert_eq!(paths(&v, "ｈｏｔｆｉｘ")[0], "mixed/Release.md");
}

#[test]
fn identifiers_by_whole_form_and_by_parts() {
    let (_d, v) = vault();
    for q in [
        "deploy-v2.4.7-hotfix",
        "v2.4.7",
        "hotfix",
        "retry_policy",
        "retry_policy.rs",
        "src/billing/retry_policy.rs",
        "billing",
        "RetryPolicy",
        "retrypolicy",
        "get_user_name",
        "getUserName",
        "user name",
    ] {
        assert_eq!(
            paths(&v, q).first().map(String::as_str),
            Some("mixed/Release.md"),
            "{q}"
        );
    }
    // An identifier's parts are a phrase: another version of the same tag is not a hit.
    assert!(paths(&v, "deploy-v9.9.9-hotfix").is_empty());
}
