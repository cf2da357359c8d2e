//! Cross-encoder reranking: a BERT sequence-classification model reads (query, passage) pairs and
//! scores their relevance. Loaded from a folder like the embedder (`config.json`,
//! `tokenizer.json`, `model.safetensors`), e.g. a user's ms-marco-MiniLM-L-6-v2.

use std::path::{Path, PathBuf};

use candle_core::Device;
use tokenizers::Tokenizer;

use crate::embed::encoder::{ClassifierHead, Encoder, Pool};
use crate::embed::{Precision, check_model_dir, load_config, load_tokenizer, load_weights};
use crate::error::{Error, Result};

/// Scores (query, passage) pairs; higher is more relevant. Implementations are `Send + Sync`.
pub trait Reranker: Send + Sync {
    /// One score in `[0, 1]` per passage.
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>>;
}

/// A BERT cross-encoder (`BertForSequenceClassification` weights).
pub struct CrossEncoder {
    encoder: Encoder,
    head: ClassifierHead,
    labels: usize,
    tokenizer: Tokenizer,
    dir: PathBuf,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder")
            .field("dir", &self.dir)
            .field("labels", &self.labels)
            .finish_non_exhaustive()
    }
}

fn err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Model {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

impl CrossEncoder {
    /// Loads a sequence-classification model folder. Weights may be stored with the usual
    /// `bert.` prefix (Hugging Face `BertForSequenceClassification`) or without it. It runs in
    /// f32: int8 is measured for the embedder only.
    pub fn load(dir: &Path) -> Result<Self> {
        check_model_dir(dir)?;
        let config = load_config(dir)?;
        let labels = config.id2label.as_ref().map_or(1, |m| m.len().max(1));
        let vb = load_weights(dir, &Device::Cpu)?;
        let base = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb.clone()
        };
        let encoder = Encoder::load(&base, &config, Precision::F32).map_err(|e| err(dir, e))?;
        let head = ClassifierHead::load(&base.pp("pooler"), &vb.pp("classifier"), &config, labels)
            .map_err(|e| err(dir, e))?;
        Ok(CrossEncoder {
            encoder,
            head,
            labels,
            tokenizer: load_tokenizer(dir, config.max_position_embeddings.min(512))?,
            dir: dir.to_path_buf(),
        })
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Reranker for CrossEncoder {
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        let pairs: Vec<(String, String)> = passages
            .iter()
            .map(|p| (query.to_string(), p.to_string()))
            .collect();
        let encodings = self
            .tokenizer
            .encode_batch(pairs, true)
            .map_err(|e| err(&self.dir.join("tokenizer.json"), e))?;
        let mut order: Vec<usize> = (0..passages.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut out = vec![0f32; passages.len()];
        for group in order.chunks(16) {
            let texts: Vec<(&[u32], &[u32])> = group
                .iter()
                .map(|&i| (encodings[i].get_ids(), encodings[i].get_type_ids()))
                .collect();
            let cls = self
                .encoder
                .encode(&texts, Pool::Cls)
                .map_err(|e| err(&self.dir, e))?;
            for (&i, cls) in group.iter().zip(cls) {
                let row = self.head.forward(&cls);
                out[i] = if self.labels == 1 {
                    sigmoid(row[0])
                } else {
                    // Probability of the last label ("relevant") under a softmax.
                    let m = row.iter().copied().fold(f32::MIN, f32::max);
                    let z: f32 = row.iter().map(|x| (x - m).exp()).sum();
                    (row[row.len() - 1] - m).exp() / z
                };
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::HashMap;

    use candle_core::{DType, Device, Tensor};
    use tokenizers::models::wordpiece::WordPiece;
    use tokenizers::normalizers::BertNormalizer;
    use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
    use tokenizers::processors::template::TemplateProcessing;

    const WORDS: &[&str] = &[
        "the",
        "pool",
        "connection",
        "outage",
        "rollback",
        "flag",
        "deploy",
        "database",
        "retry",
        "storm",
        "checkout",
        "ledger",
        "alice",
        "patterns",
        "how",
        "do",
        "we",
        "undo",
        "a",
        "change",
    ];

    /// Writes a tiny random-weight BERT (hidden 8, 2 layers) with a WordPiece tokenizer to `dir`;
    /// with `head`, as a `BertForSequenceClassification` checkpoint (`bert.` prefix + classifier).
    pub(crate) fn write_tiny_bert(dir: &Path, head: bool, seed: u64) {
        std::fs::create_dir_all(dir).unwrap();
        let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        vocab.extend(WORDS.iter().map(|s| s.to_string()));
        let vocab_file = dir.join("vocab.txt");
        std::fs::write(&vocab_file, vocab.join("\n") + "\n").unwrap();
        let wp = WordPiece::from_file(vocab_file.to_str().unwrap())
            .unk_token("[UNK]".into())
            .build()
            .unwrap();
        let mut tok = Tokenizer::new(wp);
        let _ = tok.with_normalizer(Some(BertNormalizer::default()));
        let _ = tok.with_pre_tokenizer(Some(BertPreTokenizer));
        tok.with_post_processor(Some(
            TemplateProcessing::builder()
                .try_single("[CLS] $A [SEP]")
                .unwrap()
                .try_pair("[CLS] $A [SEP] $B:1 [SEP]:1")
                .unwrap()
                .special_tokens(vec![("[CLS]", 2), ("[SEP]", 3)])
                .build()
                .unwrap(),
        ));
        tok.save(dir.join("tokenizer.json"), false).unwrap();
        let (h, layers, inter, vocab_size, max_pos) =
            (8usize, 2usize, 16usize, vocab.len(), 64usize);
        let config = serde_json::json!({
            "vocab_size": vocab_size, "hidden_size": h, "num_hidden_layers": layers,
            "num_attention_heads": 2, "intermediate_size": inter, "max_position_embeddings": max_pos,
            "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu",
            "id2label": {"0": "LABEL_0"}
        });
        std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
        let dev = Device::Cpu;
        let p = if head { "bert." } else { "" };
        let mut t: HashMap<String, Tensor> = HashMap::new();
        // Deterministic uniform(-0.5, 0.5) weights from the seed (candle's CPU RNG cannot be seeded).
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut rand = |name: String, shape: &[usize]| {
            let n: usize = shape.iter().product();
            let data: Vec<f32> = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                })
                .collect();
            t.insert(name, Tensor::from_vec(data, shape, &dev).unwrap());
        };
        rand(
            format!("{p}embeddings.word_embeddings.weight"),
            &[vocab_size, h],
        );
        rand(
            format!("{p}embeddings.position_embeddings.weight"),
            &[max_pos, h],
        );
        rand(
            format!("{p}embeddings.token_type_embeddings.weight"),
            &[2, h],
        );
        let mut linear = |name: String, o: usize, i: usize| {
            rand(format!("{name}.weight"), &[o, i]);
            rand(format!("{name}.bias"), &[o]);
        };
        for l in 0..layers {
            let b = format!("{p}encoder.layer.{l}");
            for n in [
                "attention.self.query",
                "attention.self.key",
                "attention.self.value",
                "attention.output.dense",
            ] {
                linear(format!("{b}.{n}"), h, h);
            }
            linear(format!("{b}.intermediate.dense"), inter, h);
            linear(format!("{b}.output.dense"), h, inter);
        }
        if head {
            linear("bert.pooler.dense".into(), h, h);
            linear("classifier".into(), 1, h);
        }
        let mut norms = vec![format!("{p}embeddings.LayerNorm")];
        for l in 0..layers {
            norms.push(format!("{p}encoder.layer.{l}.attention.output.LayerNorm"));
            norms.push(format!("{p}encoder.layer.{l}.output.LayerNorm"));
        }
        for n in norms {
            t.insert(
                format!("{n}.weight"),
                Tensor::ones(h, DType::F32, &dev).unwrap(),
            );
            t.insert(
                format!("{n}.bias"),
                Tensor::zeros(h, DType::F32, &dev).unwrap(),
            );
        }
        candle_core::safetensors::save(&t, dir.join("model.safetensors")).unwrap();
    }

    #[test]
    fn tiny_cross_encoder_scores_pairs() {
        let dir = tempfile::tempdir().unwrap();
        write_tiny_bert(dir.path(), true, 3);
        let ce = CrossEncoder::load(dir.path()).unwrap();
        let passages = [
            "the pool connection storm",
            "alice ledger",
            "rollback flag deploy",
            "zzz unknown words",
        ];
        let a = ce.score("connection pool", &passages).unwrap();
        assert_eq!(a.len(), 4);
        assert!(a.iter().all(|s| (0.0..=1.0).contains(s)), "{a:?}");
        // Batching and order do not change a score; different passages score differently.
        let b = ce
            .score("connection pool", &[passages[2], passages[0]])
            .unwrap();
        assert!(
            (a[2] - b[0]).abs() < 1e-5 && (a[0] - b[1]).abs() < 1e-5,
            "{a:?} {b:?}"
        );
        assert!(a.windows(2).any(|w| (w[0] - w[1]).abs() > 1e-6));
    }

    #[test]
    fn tiny_embedder_loads_without_prefix_and_normalises() {
        use crate::embed::{BertEmbedder, Embedder};
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("tiny");
        write_tiny_bert(&model, false, 5);
        let e = BertEmbedder::load(&model).unwrap();
        assert_eq!(e.dim(), 8);
        assert!(e.model_id().starts_with("tiny@"));
        let v = e
            .embed(&["the pool", "rollback flag deploy database", ""])
            .unwrap();
        for x in &v {
            let n: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
            assert!((n - 1.0).abs() < 1e-4, "{n}");
        }
        // A different model (other weights) has another id.
        let other = dir.path().join("tiny2");
        write_tiny_bert(&other, false, 6);
        assert_ne!(BertEmbedder::load(&other).unwrap().model_id(), e.model_id());
    }

    #[test]
    fn query_with_reranker_explains_every_stage() {
        use crate::query::{QueryOptions, Stage, SubQuery};
        use crate::vault::{NoProgress, Vault, VaultOptions};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("v");
        crate::init::init_vault(&root, &crate::init::InitOptions::with_samples()).unwrap();
        let v = Vault::open(&root, VaultOptions::default()).unwrap();
        v.update(&NoProgress).unwrap();
        let model = dir.path().join("ce");
        write_tiny_bert(&model, true, 9);
        let ce = CrossEncoder::load(&model).unwrap();
        let opts = QueryOptions {
            explain: true,
            limit: 5,
            ..QueryOptions::default()
        };
        let plain = v
            .query(None, &[SubQuery::lex("the connection pool")], &opts)
            .unwrap();
        let r = v
            .query_reranked(
                None,
                Some(&ce),
                &[SubQuery::lex("the connection pool")],
                &opts,
            )
            .unwrap();
        assert_eq!(r.used, vec![Stage::Lex, Stage::Rerank]);
        assert_eq!(r.hits.len(), plain.hits.len().min(5));
        // Ordered by the blended score; the relevance stays the match strength.
        for w in r.hits.windows(2) {
            let final_of = |h: &crate::QueryHit| h.explain.as_ref().unwrap().final_score.unwrap();
            assert!(final_of(&w[0]) >= final_of(&w[1]));
        }
        // A note's relevance is its evidence, whatever the reranker made of its place.
        let deep = v
            .query(
                None,
                &[SubQuery::lex("the connection pool")],
                &QueryOptions {
                    limit: 50,
                    ..opts.clone()
                },
            )
            .unwrap();
        for h in &r.hits {
            let same = deep.hits.iter().find(|p| p.hit.path == h.hit.path).unwrap();
            assert_eq!(h.hit.score, same.hit.score, "{}", h.hit.path);
        }
        for h in &r.hits {
            let e = h.explain.as_ref().unwrap();
            let (rs, fs) = (e.rerank_score.unwrap(), e.final_score.unwrap());
            let expect = opts.rerank_weight / e.fused_rank as f32 + (1.0 - opts.rerank_weight) * rs;
            assert!((fs - expect).abs() < 1e-6);
        }
    }
}
