//! Learning: the loss of a forward pass and its exact gradient with respect to every parameter
//! and to the intermediates the lessons show, by reverse-mode differentiation (backpropagation,
//! Rumelhart, Hinton & Williams 1986), written layer by layer beside each forward
//! ([`crate::linear::Linear::backward`], [`crate::norm::LayerNorm::backward`],
//! [`crate::attention::scaled_dot_product_backward`], ...).
//!
//! The loss is the one the paper trains with (section 5.4, without label smoothing): the mean
//! over the labelled output positions `t` of the cross-entropy of `softmax(logits[t])` against
//! the label `labels[t]`, teacher-forced (the decoder reads the reference prefix, not its own
//! guesses). The logits are the decoder's next-token scores, or an encoder-only model's
//! masked-LM scores. A negative label (PyTorch's `ignore_index = -100`) leaves its position
//! out of the mean.
//!
//! [`Gradients::tensors`] names each parameter's gradient as the model file names the
//! parameter, in its layout, so a training loop (or PyTorch) can read them side by side.

use alloc::string::String;
use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::config::{Head, Positional, RunOptions};
use crate::decoder::{DecoderGrad, DecoderLayerGrad};
use crate::encoder::{EncoderGrad, EncoderLayerGrad};
use crate::error::input_err;
pub use crate::format::Tensor;
use crate::head::MlmGrad;
use crate::linear::LinearGrad;
use crate::norm::NormGrad;
use crate::positional::EmbeddingGrad;
use crate::trace::{Mat, Trace};
use crate::{Model, Result};

/// The loss of one teacher-forced pass and the gradients of everything that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradients {
    /// The mean cross-entropy over the labelled positions (natural log).
    pub loss: f32,
    /// The positions that counted.
    pub labelled: usize,
    /// The encoder's gradients (encoder-decoder and encoder-only models).
    pub encoder: Option<EncoderGrad>,
    /// The decoder's gradients (encoder-decoder and decoder-only models).
    pub decoder: Option<DecoderGrad>,
    /// The masked-LM head's gradients (encoder-only models with that head).
    pub mlm: Option<MlmGrad>,
}

/// The mean cross-entropy of `logits` `(n, V)` against `labels` (length `n`; negative =
/// ignored) and its gradient `(n, V)`: `(softmax(logits[t]) - onehot(labels[t])) / N` on each
/// of the `N` labelled rows, zero on the others.
pub fn cross_entropy(logits: &DMatrix<f32>, labels: &[i64]) -> Result<(f32, usize, DMatrix<f32>)> {
    let (n, v) = logits.shape();
    if labels.len() != n {
        return Err(input_err!("{} labels for {n} output positions: give one per position", labels.len()));
    }
    if let Some(bad) = labels.iter().find(|&&l| l >= v as i64) {
        return Err(input_err!("label {bad} is outside the vocabulary (0..{v})"));
    }
    let count = labels.iter().filter(|&&l| l >= 0).count();
    if count == 0 {
        return Err(input_err!("every label is ignored (negative): nothing to learn from"));
    }
    let mut grad = DMatrix::zeros(n, v); // (n, V)
    let mut total = 0.0f64;
    for (t, &label) in labels.iter().enumerate() {
        if label < 0 {
            continue;
        }
        let row = logits.row(t);
        let max = row.max();
        let sum: f64 = row.iter().map(|&z| libm::exp((z - max) as f64)).sum();
        let log_sum = max as f64 + libm::log(sum);
        total += log_sum - row[label as usize] as f64;
        for j in 0..v {
            let p = libm::exp(row[j] as f64 - log_sum);
            let target = if j == label as usize { 1.0 } else { 0.0 };
            grad[(t, j)] = ((p - target) / count as f64) as f32;
        }
    }
    Ok(((total / count as f64) as f32, count, grad))
}

impl Model {
    /// One teacher-forced forward pass and its backward: source ids `(S)`, decoder input ids
    /// `(T)` (sides as in [`Model::forward`]) and one label per output row (the decoder's `T`,
    /// or an encoder-only model's `S`) -> the forward trace and the [`Gradients`].
    ///
    /// Every run option is honoured (heads, scaling, masks, positions, knock-outs, the training
    /// switches `residual` and `layer_norm`, and `W_Q`/`W_K` overrides: the pass runs with the
    /// edited blocks, whose trained weights, replaced, get gradient 0).
    pub fn gradients(&self, src: &[u32], tgt: &[u32], labels: &[i64], opts: &RunOptions) -> Result<(Trace, Gradients)> {
        let trace = self.forward(src, tgt, opts)?;
        let (mut encoder, mut decoder, mut mlm) = (None, None, None);
        let (loss, labelled, d_memory) = match (&self.decoder, &trace.decoder, &self.mlm) {
            (Some(dec), Some(t), _) => {
                if dec.generator.is_none() {
                    return Err(input_err!("this model has no output head: there is no loss to take gradients of"));
                }
                let (loss, labelled, d_logits) = cross_entropy(&t.logits, labels)?;
                let memory = trace.encoder.as_ref().map(|e| &e.memory.0);
                let grad = dec.backward(t, memory, opts, &d_logits);
                let d_memory = grad.d_memory.clone();
                decoder = Some(grad);
                (loss, labelled, d_memory)
            }
            (None, _, Some(head)) => {
                let e = trace.encoder()?;
                let logits = e.logits.as_ref().ok_or_else(|| input_err!("the masked-LM logits are missing"))?;
                let (loss, labelled, d_logits) = cross_entropy(logits, labels)?;
                let (d_memory, grad) = head.backward(&e.memory, &d_logits);
                mlm = Some(grad);
                (loss, labelled, Some(d_memory))
            }
            _ => return Err(input_err!("this model has no output head: there is no loss to take gradients of")),
        };
        if let (Some(enc), Some(t), Some(d_memory)) = (&self.encoder, &trace.encoder, d_memory) {
            encoder = Some(enc.backward(t, opts, d_memory));
        }
        Ok((trace, Gradients { loss, labelled, encoder, decoder, mlm }))
    }
}

/// Collects named gradients, adding where two parts of the model share one parameter (a
/// generator tied to an embedding table).
#[derive(Default)]
struct Named(Vec<Tensor>);

impl Named {
    fn put(&mut self, name: String, shape: Vec<usize>, data: Vec<f32>) {
        match self.0.iter_mut().find(|t| t.name == name) {
            Some(t) => t.data.iter_mut().zip(&data).for_each(|(a, b)| *a += b),
            None => self.0.push(Tensor { name, shape, data }),
        }
    }

    /// `{name}.weight` `(d_out, d_in)` and `{name}.bias` `(d_out)`: `W^T`'s column-major
    /// storage is the weight's row-major layout.
    fn linear(&mut self, name: &str, g: &LinearGrad) {
        let (d_in, d_out) = g.w_t.shape();
        self.put(alloc::format!("{name}.weight"), alloc::vec![d_out, d_in], g.w_t.as_slice().to_vec());
        self.put(alloc::format!("{name}.bias"), alloc::vec![d_out], g.b.iter().copied().collect());
    }

    /// `{name}.weight` and `{name}.bias` of a LayerNorm of width `d` (zeros when it was off).
    fn norm(&mut self, name: &str, g: Option<&NormGrad>, d: usize) {
        let row = |r: Option<&nalgebra::RowDVector<f32>>| {
            r.map_or_else(|| alloc::vec![0.0; d], |r| r.iter().copied().collect())
        };
        self.put(alloc::format!("{name}.weight"), alloc::vec![d], row(g.map(|g| &g.gamma)));
        self.put(alloc::format!("{name}.bias"), alloc::vec![d], row(g.map(|g| &g.beta)));
    }

    /// PyTorch's packed `in_proj_weight` `(3 d, d)` and `in_proj_bias` `(3 d)` (`[W_Q; W_K;
    /// W_V]`), and `out_proj`.
    fn attention(&mut self, name: &str, g: &crate::attention::AttentionGrad) {
        let d = g.q.w_t.nrows();
        let parts = [&g.q, &g.k, &g.v];
        let (mut weight, mut bias) = (Vec::with_capacity(3 * d * d), Vec::with_capacity(3 * d));
        for p in parts {
            weight.extend_from_slice(p.w_t.as_slice());
            bias.extend_from_slice(p.b.as_slice());
        }
        self.put(alloc::format!("{name}.in_proj_weight"), alloc::vec![3 * d, d], weight);
        self.put(alloc::format!("{name}.in_proj_bias"), alloc::vec![3 * d], bias);
        self.linear(&alloc::format!("{name}.out_proj"), &g.o);
    }
}

impl Gradients {
    /// Every parameter's gradient under its name in the model file, in the file's layout,
    /// sorted by name. A parameter the loss does not depend on gets zeros (a LayerNorm the run
    /// switched off, the rows of tokens that did not occur).
    pub fn tensors(&self, model: &Model) -> Vec<Tensor> {
        let c = &model.config;
        let d = c.d_model;
        let mut out = Named::default();
        let embed = |out: &mut Named, side: &str, g: &EmbeddingGrad| {
            let vocab = g.table_t.ncols();
            out.put(alloc::format!("{side}_embed.weight"), alloc::vec![vocab, d], g.table_t.as_slice().to_vec());
            if c.positional == Positional::Learned {
                let data = g
                    .positions
                    .as_ref()
                    .map_or_else(|| alloc::vec![0.0; c.max_len * d], |p| Mat(p.clone()).row_major());
                out.put(alloc::format!("{side}_pos.weight"), alloc::vec![c.max_len, d], data);
            }
            if let Some(row) = &g.token_type {
                let mut data = alloc::vec![0.0; c.type_vocab_size * d]; // (types, d_model): type 0 only
                data[..d].iter_mut().zip(row.iter()).for_each(|(a, &b)| *a = b);
                out.put("src_type.weight".into(), alloc::vec![c.type_vocab_size, d], data);
            }
            if c.embed_norm {
                out.norm(&alloc::format!("{side}_embed_norm"), g.norm.as_ref(), d);
            }
        };
        let generator = |out: &mut Named, side: &str, g: &LinearGrad| {
            if c.tie_embeddings {
                let vocab = g.w_t.ncols(); // W^T (d_model, V) is the table's (d_model, vocab) layout
                out.put(alloc::format!("{side}_embed.weight"), alloc::vec![vocab, d], g.w_t.as_slice().to_vec());
            } else {
                let (d_in, d_out) = g.w_t.shape();
                out.put("generator.weight".into(), alloc::vec![d_out, d_in], g.w_t.as_slice().to_vec());
            }
            if c.logits_bias {
                out.put("generator.bias".into(), alloc::vec![g.b.len()], g.b.iter().copied().collect());
            }
        };
        if let Some(e) = &self.encoder {
            embed(&mut out, "src", &e.embed);
            for (l, layer) in e.layers.iter().enumerate() {
                let EncoderLayerGrad { self_attn, ffn } = layer;
                let p = alloc::format!("transformer.encoder.layers.{l}");
                out.attention(&alloc::format!("{p}.self_attn"), &self_attn.sublayer.grad);
                out.linear(&alloc::format!("{p}.linear1"), &ffn.sublayer.widen);
                out.linear(&alloc::format!("{p}.linear2"), &ffn.sublayer.narrow);
                out.norm(&alloc::format!("{p}.norm1"), self_attn.norm.as_ref(), d);
                out.norm(&alloc::format!("{p}.norm2"), ffn.norm.as_ref(), d);
            }
            if c.final_norm {
                out.norm("transformer.encoder.norm", e.norm.as_ref(), d);
            }
        }
        if let Some(g) = &self.decoder {
            embed(&mut out, "tgt", &g.embed);
            for (l, layer) in g.layers.iter().enumerate() {
                let DecoderLayerGrad { self_attn, cross_attn, ffn } = layer;
                let p = alloc::format!("transformer.decoder.layers.{l}");
                out.attention(&alloc::format!("{p}.self_attn"), &self_attn.sublayer.grad);
                if let Some(cross) = cross_attn {
                    out.attention(&alloc::format!("{p}.multihead_attn"), &cross.sublayer.grad);
                    out.norm(&alloc::format!("{p}.norm2"), cross.norm.as_ref(), d);
                }
                out.linear(&alloc::format!("{p}.linear1"), &ffn.sublayer.widen);
                out.linear(&alloc::format!("{p}.linear2"), &ffn.sublayer.narrow);
                out.norm(&alloc::format!("{p}.norm1"), self_attn.norm.as_ref(), d);
                out.norm(&alloc::format!("{p}.norm3"), ffn.norm.as_ref(), d);
            }
            if c.final_norm {
                out.norm("transformer.decoder.norm", g.norm.as_ref(), d);
            }
            if let (Head::Lm, Some(gen)) = (c.head, &g.generator) {
                generator(&mut out, "tgt", gen);
            }
        }
        if let Some(m) = &self.mlm {
            out.linear("mlm.dense", &m.dense);
            out.norm("mlm.norm", Some(&m.norm), d);
            generator(&mut out, "src", &m.generator);
        }
        let mut tensors = out.0;
        tensors.sort_by(|a, b| a.name.cmp(&b.name));
        tensors
    }
}
