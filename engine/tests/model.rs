//! Tests with the real embedding model (installed by `scripts/setup-model.sh`, which
//! `scripts/test.sh` runs first). They fail, with the install hint, when the model is missing.

use mindex::{BertEmbedder, Embedder, model_dir};

fn embedder() -> BertEmbedder {
    let dir = model_dir(None);
    BertEmbedder::load(&dir).unwrap_or_else(|e| panic!("{e}"))
}

fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum();
    let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    dot / (na * nb)
}

#[test]
fn reference_embeddings_match_sentence_transformers() {
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("data/reference.json")).expect("reference.json parses");
    let sentences: Vec<&str> = fixture["sentences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let expected: Vec<Vec<f32>> = fixture["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect())
        .collect();
    let e = embedder();
    assert_eq!(e.dim(), 384);
    assert_eq!(e.max_tokens(), fixture["max_seq_length"].as_u64().unwrap() as usize);
    let got = e.embed(&sentences).unwrap();
    let mut worst = 1.0f64;
    for (i, (g, x)) in got.iter().zip(&expected).enumerate() {
        let c = cosine(g, x);
        worst = worst.min(c);
        assert!(c >= 0.999, "sentence {i} ({:?}): cosine {c}", sentences[i]);
        let norm: f64 = g.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "not unit length: {norm}");
    }
    eprintln!("worst cosine against sentence-transformers: {worst:.7}");
    // Batching and order do not change a vector.
    let single = e.embed(&[sentences[3]]).unwrap();
    assert!(cosine(&single[0], &got[3]) > 0.99999);
}

#[test]
fn model_id_names_the_model_and_its_weights() {
    let e = embedder();
    assert!(e.model_id().starts_with("all-MiniLM-L6-v2@"), "{}", e.model_id());
    assert_eq!(e.model_id(), embedder().model_id());
}

#[test]
fn missing_model_says_how_to_install_it() {
    let dir = tempfile::tempdir().unwrap();
    let err = BertEmbedder::load(dir.path()).unwrap_err();
    assert_eq!(err.code(), mindex::ErrorCode::ModelMissing);
    assert!(err.to_string().contains("setup-model.sh"), "{err}");
}
