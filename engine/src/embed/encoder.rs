//! The BERT encoder the embedder runs: token ids → contextual token vectors → one vector per text.
//!
//! Texts of a batch are laid end to end (no padding): the dense layers run over all their tokens
//! at once, attention runs per text. Dense layers use int8 weights (quantised once at load) or f32
//! ([`Precision`]); attention, layer norms and GELU stay in f32. Work buffers live per thread and
//! are reused across layers and batches, so a batch allocates nothing once the first has run.

use std::cell::RefCell;

use candle_nn::VarBuilder;

use super::BertConfig;
use super::kernels::{
    QMatrix, QRows, Strided, add_layer_norm, gelu, matmul_f32, matmul_i8, matmul_strided, softmax,
};

/// How the encoder's dense layers compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// 8-bit integer weights and activations (scaled per output and per token), f32 elsewhere.
    /// Faster than f32 where the CPU has a vector int8 kernel (AVX-512 VNNI, AVX-VNNI, AVX2,
    /// Arm's dot product), several times with VNNI; vectors within cosine 0.995 of f32.
    Int8,
    /// 32-bit floats throughout: the reference.
    F32,
}

impl Precision {
    /// The default for this machine: int8 when its product runs on a vector kernel (AVX-512
    /// VNNI, AVX-VNNI, AVX2 or Arm's dot product; `$MINDEX_INT8_KERNEL=portable` says no), else
    /// f32.
    pub fn auto() -> Precision {
        if super::kernels::int8_fast() {
            Precision::Int8
        } else {
            Precision::F32
        }
    }

    /// `int8` or `f32`.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Int8 => "int8",
            Precision::F32 => "f32",
        }
    }
}

impl std::str::FromStr for Precision {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> Result<Precision, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "int8" | "i8" => Ok(Precision::Int8),
            "f32" | "fp32" => Ok(Precision::F32),
            other => Err(crate::error::Error::InvalidArgument {
                name: "precision".into(),
                detail: format!("unknown precision {other:?} (expected int8 or f32)"),
            }),
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

enum Weights {
    Int8(QMatrix),
    F32(Vec<f32>),
}

/// A dense layer `y = x·Wᵀ + b`.
struct Dense {
    weights: Weights,
    bias: Vec<f32>,
    outputs: usize,
    inputs: usize,
}

fn tensor(vb: &VarBuilder, shape: &[usize], name: &str) -> candle_core::Result<Vec<f32>> {
    vb.get(shape, name)?.flatten_all()?.to_vec1::<f32>()
}

impl Dense {
    /// Loads one or more layers reading the same input, fused into one (Q, K and V).
    fn load(
        parts: &[VarBuilder],
        outputs: usize,
        inputs: usize,
        p: Precision,
    ) -> candle_core::Result<Dense> {
        let mut w = Vec::with_capacity(parts.len() * outputs * inputs);
        let mut bias = Vec::with_capacity(parts.len() * outputs);
        for vb in parts {
            w.extend(tensor(vb, &[outputs, inputs], "weight")?);
            bias.extend(tensor(vb, &[outputs], "bias")?);
        }
        let outputs = outputs * parts.len();
        let weights = match p {
            Precision::Int8 => Weights::Int8(QMatrix::new(&w, outputs, inputs)),
            Precision::F32 => Weights::F32(w),
        };
        Ok(Dense {
            weights,
            bias,
            outputs,
            inputs,
        })
    }

    /// `y[rows × outputs]` from `x[rows × inputs]`; `q` is the scratch for quantised rows.
    fn forward(&self, x: &[f32], rows: usize, q: &mut QRows, y: &mut Vec<f32>) {
        y.resize(rows * self.outputs, 0.0);
        match &self.weights {
            Weights::Int8(w) => {
                debug_assert_eq!(w.inputs(), self.inputs);
                q.quantize(x, rows, self.inputs);
                matmul_i8(q, w, &self.bias, y);
            }
            Weights::F32(w) => matmul_f32(x, w, &self.bias, rows, self.outputs, self.inputs, y),
        }
    }
}

struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl Norm {
    fn load(vb: &VarBuilder, h: usize, eps: f64) -> candle_core::Result<Norm> {
        Ok(Norm {
            gamma: tensor(vb, &[h], "weight")?,
            beta: tensor(vb, &[h], "bias")?,
            eps: eps as f32,
        })
    }

    /// Each row of `x` becomes `LayerNorm(x + residual)` (`residual` empty: plain norm).
    fn apply(&self, x: &mut [f32], residual: &[f32]) {
        let h = self.gamma.len();
        for (i, row) in x.chunks_exact_mut(h).enumerate() {
            let r = if residual.is_empty() {
                &[][..]
            } else {
                &residual[i * h..(i + 1) * h]
            };
            add_layer_norm(row, r, &self.gamma, &self.beta, self.eps);
        }
    }
}

struct Layer {
    qkv: Dense,
    attn_out: Dense,
    attn_norm: Norm,
    inter: Dense,
    out: Dense,
    out_norm: Norm,
}

/// Per-thread work buffers, grown to the largest batch seen and then reused.
#[derive(Default)]
struct Scratch {
    x: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    inter: Vec<f32>,
    scores: Vec<f32>,
    q: QRows,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// What one text's vector is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pool {
    /// Mean of the token vectors, L2-normalised (sentence embedders).
    Mean,
    /// The first (`[CLS]`) token's vector as is (cross-encoders' heads read it).
    Cls,
}

/// The encoder's weights, ready to run.
pub(crate) struct Encoder {
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embed_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    vocab: usize,
    positions: usize,
    type_vocab: usize,
    gelu_tanh: bool,
    precision: Precision,
}

impl Encoder {
    /// Loads the weights under `vb` (`embeddings.*`, `encoder.layer.N.*`, Hugging Face names).
    pub(crate) fn load(
        vb: &VarBuilder,
        c: &BertConfig,
        p: Precision,
    ) -> candle_core::Result<Encoder> {
        let h = c.hidden_size;
        if c.num_attention_heads == 0 || !h.is_multiple_of(c.num_attention_heads) {
            candle_core::bail!(
                "hidden_size {h} is not a multiple of num_attention_heads {}",
                c.num_attention_heads
            );
        }
        let e = vb.pp("embeddings");
        let layers = (0..c.num_hidden_layers)
            .map(|i| {
                let l = vb.pp("encoder").pp("layer").pp(i);
                let att = l.pp("attention");
                let s = att.pp("self");
                Ok(Layer {
                    qkv: Dense::load(&[s.pp("query"), s.pp("key"), s.pp("value")], h, h, p)?,
                    attn_out: Dense::load(&[att.pp("output").pp("dense")], h, h, p)?,
                    attn_norm: Norm::load(&att.pp("output").pp("LayerNorm"), h, c.layer_norm_eps)?,
                    inter: Dense::load(
                        &[l.pp("intermediate").pp("dense")],
                        c.intermediate_size,
                        h,
                        p,
                    )?,
                    out: Dense::load(&[l.pp("output").pp("dense")], h, c.intermediate_size, p)?,
                    out_norm: Norm::load(&l.pp("output").pp("LayerNorm"), h, c.layer_norm_eps)?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        Ok(Encoder {
            word: tensor(&e.pp("word_embeddings"), &[c.vocab_size, h], "weight")?,
            position: tensor(
                &e.pp("position_embeddings"),
                &[c.max_position_embeddings, h],
                "weight",
            )?,
            token_type: tensor(
                &e.pp("token_type_embeddings"),
                &[c.type_vocab_size, h],
                "weight",
            )?,
            embed_norm: Norm::load(&e.pp("LayerNorm"), h, c.layer_norm_eps)?,
            layers,
            hidden: h,
            heads: c.num_attention_heads,
            vocab: c.vocab_size,
            positions: c.max_position_embeddings,
            type_vocab: c.type_vocab_size,
            gelu_tanh: c.hidden_act == "gelu_new" || c.hidden_act == "gelu_pytorch_tanh",
            precision: p,
        })
    }

    pub(crate) fn precision(&self) -> Precision {
        self.precision
    }

    /// Encodes texts given as (token ids, token type ids); one vector per text, in order.
    /// Errors name the first id the model cannot read (a tokenizer that does not match it).
    pub(crate) fn encode(
        &self,
        texts: &[(&[u32], &[u32])],
        pool: Pool,
    ) -> Result<Vec<Vec<f32>>, String> {
        for (ids, types) in texts {
            if ids.len() > self.positions {
                return Err(format!(
                    "{} tokens, more than the model's {} positions",
                    ids.len(),
                    self.positions
                ));
            }
            if let Some(bad) = ids.iter().find(|&&i| i as usize >= self.vocab) {
                return Err(format!(
                    "token id {bad} outside the vocabulary of {}",
                    self.vocab
                ));
            }
            if let Some(bad) = types.iter().find(|&&i| i as usize >= self.type_vocab) {
                return Err(format!(
                    "token type {bad} outside the model's {}",
                    self.type_vocab
                ));
            }
        }
        SCRATCH.with(|s| Ok(self.run(texts, pool, &mut s.borrow_mut())))
    }

    fn run(&self, texts: &[(&[u32], &[u32])], pool: Pool, s: &mut Scratch) -> Vec<Vec<f32>> {
        let h = self.hidden;
        let dh = h / self.heads;
        let mut starts = Vec::with_capacity(texts.len());
        let mut t = 0;
        for (ids, _) in texts {
            starts.push(t);
            t += ids.len();
        }
        let Scratch {
            x,
            qkv,
            ctx,
            tmp,
            inter,
            scores,
            q,
        } = s;
        x.resize(t * h, 0.0);
        for ((ids, types), &start) in texts.iter().zip(&starts) {
            for (p, (&id, &ty)) in ids
                .iter()
                .zip(types.iter().chain(std::iter::repeat(&0)))
                .enumerate()
            {
                let row = &mut x[(start + p) * h..(start + p + 1) * h];
                let w = &self.word[id as usize * h..][..h];
                let ps = &self.position[p * h..][..h];
                let ty = &self.token_type[ty as usize * h..][..h];
                for (j, v) in row.iter_mut().enumerate() {
                    *v = w[j] + ps[j] + ty[j];
                }
            }
        }
        self.embed_norm.apply(x, &[]);
        let scale = 1.0 / (dh as f32).sqrt();
        for layer in &self.layers {
            layer.qkv.forward(x, t, q, qkv);
            ctx.resize(t * h, 0.0);
            for ((ids, _), &start) in texts.iter().zip(&starts) {
                let n = ids.len();
                scores.resize(n * n, 0.0);
                for head in 0..self.heads {
                    let col = head * dh;
                    // scores = Q·Kᵀ for this text and head, read in place from the fused rows.
                    matmul_strided(
                        n,
                        n,
                        dh,
                        Strided {
                            data: qkv,
                            offset: start * 3 * h + col,
                            rs: 3 * h,
                            cs: 1,
                        },
                        Strided {
                            data: qkv,
                            offset: start * 3 * h + h + col,
                            rs: 1,
                            cs: 3 * h,
                        },
                        scores,
                        0,
                        n,
                    );
                    for row in scores.chunks_exact_mut(n) {
                        softmax(row, scale);
                    }
                    matmul_strided(
                        n,
                        dh,
                        n,
                        Strided {
                            data: scores,
                            offset: 0,
                            rs: n,
                            cs: 1,
                        },
                        Strided {
                            data: qkv,
                            offset: start * 3 * h + 2 * h + col,
                            rs: 3 * h,
                            cs: 1,
                        },
                        ctx,
                        start * h + col,
                        h,
                    );
                }
            }
            layer.attn_out.forward(ctx, t, q, tmp);
            layer.attn_norm.apply(tmp, x);
            std::mem::swap(x, tmp);
            layer.inter.forward(x, t, q, inter);
            gelu(inter, self.gelu_tanh);
            layer.out.forward(inter, t, q, tmp);
            layer.out_norm.apply(tmp, x);
            std::mem::swap(x, tmp);
        }
        texts
            .iter()
            .zip(&starts)
            .map(|((ids, _), &start)| match pool {
                Pool::Cls => x[start * h..(start + 1) * h].to_vec(),
                Pool::Mean => {
                    let mut v = vec![0f32; h];
                    for row in x[start * h..(start + ids.len()) * h].chunks_exact(h) {
                        for (a, b) in v.iter_mut().zip(row) {
                            *a += b;
                        }
                    }
                    let norm = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-12);
                    for a in &mut v {
                        *a /= norm;
                    }
                    v
                }
            })
            .collect()
    }
}

/// A cross-encoder's head: `[CLS]` → pooler (dense + tanh) → classifier logits.
pub(crate) struct ClassifierHead {
    pooler: Dense,
    classifier: Dense,
}

impl ClassifierHead {
    /// Loads the pooler's `dense` layer (under `pooler`) and the classifier (at `classifier`).
    pub(crate) fn load(
        pooler: &VarBuilder,
        classifier: &VarBuilder,
        c: &BertConfig,
        labels: usize,
    ) -> candle_core::Result<ClassifierHead> {
        let h = c.hidden_size;
        Ok(ClassifierHead {
            pooler: Dense::load(&[pooler.pp("dense")], h, h, Precision::F32)?,
            classifier: Dense::load(std::slice::from_ref(classifier), labels, h, Precision::F32)?,
        })
    }

    /// Logits of one `[CLS]` vector.
    pub(crate) fn forward(&self, cls: &[f32]) -> Vec<f32> {
        let mut q = QRows::default();
        let mut pooled = Vec::new();
        self.pooler.forward(cls, 1, &mut q, &mut pooled);
        for v in &mut pooled {
            *v = v.tanh();
        }
        let mut logits = Vec::new();
        self.classifier.forward(&pooled, 1, &mut q, &mut logits);
        logits
    }
}
