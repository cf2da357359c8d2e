//! A BERT encoder in candle: embeddings, self-attention layers, and (for cross-encoders) the pooler
//! and classification head. Weight names follow the Hugging Face `BertModel` layout; a prefix
//! (`bert.` in sequence-classification checkpoints) is handled by the caller's `VarBuilder`.

use candle_core::{D, DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The fields of `config.json` the encoder needs.
#[derive(Debug, Clone, Deserialize)]
pub struct BertConfig {
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

struct Embeddings {
    word: Embedding,
    position: Embedding,
    token_type: Embedding,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(vb: VarBuilder, c: &BertConfig) -> Result<Self> {
        Ok(Embeddings {
            word: embedding(c.vocab_size, c.hidden_size, vb.pp("word_embeddings"))?,
            position: embedding(
                c.max_position_embeddings,
                c.hidden_size,
                vb.pp("position_embeddings"),
            )?,
            token_type: embedding(
                c.type_vocab_size,
                c.hidden_size,
                vb.pp("token_type_embeddings"),
            )?,
            norm: layer_norm(c.hidden_size, c.layer_norm_eps, vb.pp("LayerNorm"))?,
        })
    }

    fn forward(&self, ids: &Tensor, type_ids: &Tensor) -> Result<Tensor> {
        let (_, t) = ids.dims2()?;
        let positions = Tensor::arange(0u32, t as u32, ids.device())?;
        let x = self
            .word
            .forward(ids)?
            .broadcast_add(&self.position.forward(&positions)?)?
            .add(&self.token_type.forward(type_ids)?)?;
        self.norm.forward(&x)
    }
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attn_out: Linear,
    attn_norm: LayerNorm,
    inter: Linear,
    out: Linear,
    out_norm: LayerNorm,
    heads: usize,
    head_dim: usize,
    gelu_tanh: bool,
}

impl Layer {
    fn load(vb: VarBuilder, c: &BertConfig) -> Result<Self> {
        let h = c.hidden_size;
        let att = vb.pp("attention");
        Ok(Layer {
            query: linear(h, h, att.pp("self").pp("query"))?,
            key: linear(h, h, att.pp("self").pp("key"))?,
            value: linear(h, h, att.pp("self").pp("value"))?,
            attn_out: linear(h, h, att.pp("output").pp("dense"))?,
            attn_norm: layer_norm(h, c.layer_norm_eps, att.pp("output").pp("LayerNorm"))?,
            inter: linear(h, c.intermediate_size, vb.pp("intermediate").pp("dense"))?,
            out: linear(c.intermediate_size, h, vb.pp("output").pp("dense"))?,
            out_norm: layer_norm(h, c.layer_norm_eps, vb.pp("output").pp("LayerNorm"))?,
            heads: c.num_attention_heads,
            head_dim: h / c.num_attention_heads,
            gelu_tanh: c.hidden_act == "gelu_new" || c.hidden_act == "gelu_pytorch_tanh",
        })
    }

    /// `x`: (batch, tokens, hidden); `bias`: (batch, 1, 1, tokens) additive mask.
    fn forward(&self, x: &Tensor, bias: &Tensor) -> Result<Tensor> {
        let (b, t, h) = x.dims3()?;
        let split = |y: Tensor| -> Result<Tensor> {
            y.reshape((b, t, self.heads, self.head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split(self.query.forward(x)?)?;
        let k = split(self.key.forward(x)?)?;
        let v = split(self.value.forward(x)?)?;
        let scale = 1.0 / (self.head_dim as f64).sqrt();
        let scores = (q.matmul(&k.t()?)? * scale)?.broadcast_add(bias)?;
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let ctx = probs.matmul(&v)?.transpose(1, 2)?.reshape((b, t, h))?;
        let a = self
            .attn_norm
            .forward(&(self.attn_out.forward(&ctx)? + x)?)?;
        let i = self.inter.forward(&a)?;
        let i = if self.gelu_tanh {
            i.gelu()?
        } else {
            i.gelu_erf()?
        };
        self.out_norm.forward(&(self.out.forward(&i)? + a)?)
    }
}

/// The BERT encoder: token ids → contextual token vectors.
pub struct Bert {
    embeddings: Embeddings,
    layers: Vec<Layer>,
}

impl Bert {
    /// Loads from a `VarBuilder` positioned at the model root (`embeddings.*`, `encoder.*`).
    pub fn load(vb: VarBuilder, c: &BertConfig) -> Result<Self> {
        let embeddings = Embeddings::load(vb.pp("embeddings"), c)?;
        let layers = (0..c.num_hidden_layers)
            .map(|i| Layer::load(vb.pp("encoder").pp("layer").pp(i), c))
            .collect::<Result<Vec<_>>>()?;
        Ok(Bert { embeddings, layers })
    }

    /// `ids`, `type_ids`, `mask`: (batch, tokens) u32; returns (batch, tokens, hidden).
    pub fn forward(&self, ids: &Tensor, type_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, t) = mask.dims2()?;
        // 0 where attended, a large negative number on padding.
        let bias = ((mask.to_dtype(DType::F32)? - 1.0)? * 1e9)?.reshape((b, 1, 1, t))?;
        let mut x = self.embeddings.forward(ids, type_ids)?;
        for layer in &self.layers {
            x = layer.forward(&x, &bias)?;
        }
        Ok(x)
    }
}

/// Mean of the token vectors over the attention mask, then L2 normalisation.
pub fn mean_pool_normalize(hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
    let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
    let summed = hidden.broadcast_mul(&m)?.sum(1)?;
    let counts = m.sum(1)?.clamp(1e-9, f64::MAX)?;
    let mean = summed.broadcast_div(&counts)?;
    let norm = mean
        .sqr()?
        .sum_keepdim(D::Minus1)?
        .sqrt()?
        .clamp(1e-12, f64::MAX)?;
    mean.broadcast_div(&norm)
}

/// A cross-encoder head: `[CLS]` → dense + tanh (pooler) → linear classifier.
pub struct ClassifierHead {
    pooler: Linear,
    classifier: Linear,
}

impl ClassifierHead {
    /// Loads the pooler's `dense` layer (from `pooler_vb`) and the `classifier` (from `head_vb`).
    pub fn load(
        pooler_vb: VarBuilder,
        head_vb: VarBuilder,
        c: &BertConfig,
        labels: usize,
    ) -> Result<Self> {
        Ok(ClassifierHead {
            pooler: linear(c.hidden_size, c.hidden_size, pooler_vb.pp("dense"))?,
            classifier: linear(c.hidden_size, labels, head_vb)?,
        })
    }

    /// (batch, tokens, hidden) → (batch, labels) logits.
    pub fn forward(&self, hidden: &Tensor) -> Result<Tensor> {
        let cls = hidden.narrow(1, 0, 1)?.squeeze(1)?;
        let pooled = self.pooler.forward(&cls)?.tanh()?;
        self.classifier.forward(&pooled)
    }
}
