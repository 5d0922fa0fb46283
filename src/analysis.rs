//! Beyond raw attention weights: what a head does to the translation, how much each key really
//! adds to a query's output, and which input words reach a position through the layers.
//!
//! A weight `w_ij = softmax(q_i k_j^T / sqrt(d_k))` says how much of value `v_j` query `i`
//! averages, not how much it matters: very different weights can give the same output (Jain &
//! Wallace 2019, "Attention is not Explanation", NAACL), the weight multiplies a vector whose
//! size matters as much as the weight (Kobayashi et al. 2020), and residual connections and
//! stacked layers mix the tokens further (Abnar & Zuidema 2020). Three measures, each computed
//! from a run's [`Trace`] (or its stages) on demand, never during a run:
//!
//! * [`head_importance`]: **ablation.** For a source sentence and its translation `y`, the
//!   teacher-forced log-probability `log p(y | x) = sum_t log softmax(logits_t)[y_t]` with each
//!   head knocked out alone ([`crate::RunOptions::knock_out`]: its output replaced by zeros
//!   before `out_proj`, Michel et al. 2019, "Are Sixteen Heads Really Better than One?",
//!   NeurIPS), minus the same with no extra head knocked out. One bare forward pass per head
//!   (the encoder's memory is computed once for every decoder head).
//! * [`value_weighted`]: **norm-based analysis** (Kobayashi, Kuribayashi, Yokoi & Inui 2020,
//!   "Attention is Not Only a Weight: Analyzing Transformers with Vector Norms", EMNLP,
//!   arXiv:2004.10102, section 3). Head `h`'s output is `sum_j w_ij f(x_j)` with
//!   `f(x_j) = v_j W_O^(h)`, `W_O^(h)` the head's `(d_k, d_model)` rows of `W_O^T`, so key `j`
//!   adds the vector `w_ij f(x_j)` to query `i`'s output; its norm `||w_ij f(x_j)|| =
//!   w_ij ||f(x_j)||` is the contribution. The bias `b_O` belongs to no key and is left out.
//! * [`rollout`]: **attention rollout** (Abnar & Zuidema 2020, "Quantifying Attention Flow in
//!   Transformers", ACL, arXiv:2005.00928, section 3): per layer, the mean over heads `A` plus
//!   the identity for the residual connection, `A' = 0.5 A + 0.5 I`, rows renormalised to 1,
//!   multiplied through the layers: `R_l = A'_l R_(l-1)`, `R_0 = I`. Row `i` of `R_l` spreads
//!   position `i` after layer `l` over the input tokens. The feed-forward and the norms, which
//!   act on each position alone, are left out, as in the paper.
//!
//! * [`saliency`]: **gradient x input** (Shrikumar et al. 2016, "Not Just a Black Box",
//!   arXiv:1605.01713; Denil, Demiraj & de Freitas 2014): for an output position `t` and the
//!   token `y_t` it predicts, how much `log p(y_t)` changes with each input token's embedding
//!   `e_s`: `(d log p(y_t) / d e_s) . e_s`, the gradient from the engine's backward pass
//!   ([`crate::gradients`]), one pass per position. Unlike the three above it follows every
//!   path through the model (feed-forward, norms, every head and layer), and it can be
//!   negative: a word whose embedding lowers the prediction.
//!
//! ## Rollout through the decoder (our formula)
//! Abnar & Zuidema define rollout for one stack of self-attention. For the decoder we follow
//! the same two rules (mean over heads, half the flow through the residual) and, as Chefer,
//! Gur & Wolf 2021 ("Generic Attention-model Explainability for Interpreting Bi-Modal and
//! Encoder-Decoder Transformers", ICCV, arXiv:2103.15679) do for their relevancy maps, route
//! cross-attention into the source words through the encoder's own rollout. A decoder
//! position's flow is one row of `D = [D_tt | D_ts]`, `(T, T + S)`: how much comes from each
//! decoder input token (`D_tt`, `(T, T)`) and from each source word (`D_ts`, `(T, S)`);
//! each row of `D` sums to 1. Starting from `D = [I | 0]`, decoder layer `l`:
//!
//! ```text
//! self-attention:  D  <-  A'_self D                              A'_self = rownorm(0.5 A + 0.5 I), (T, T)
//! cross-attention: D  <-  rownorm([0.5 D_tt | 0.5 D_ts + 0.5 A_cross R_enc])
//! ```
//!
//! where `A_cross` `(T, S)` is the layer's mean cross-attention over the heads and `R_enc`
//! `(S, S)` the rollout of the whole encoder (the memory that cross-attention reads): position
//! `i` keeps half of what it had through the residual and takes half from the memory rows it
//! attends to, each of which carries its own mix of source words.
//!
//! Knocked-out heads carry nothing: their value-weighted norms are zero, and the rollout means
//! are over the heads kept (a layer with every head knocked out is the residual alone, `A' = I`).

use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::attention::MultiHeadAttention;
use crate::config::{HeadRef, RunOptions, Stack};
use crate::decode::top_k;
use crate::incremental::Staged;
use crate::model::{finite, finite_values};
use crate::trace::{AttentionTrace, HeadTrace, Mat, Trace};
use crate::{Model, Result};

// ------------------------------------------------------------------------------------------
// head importance (ablation)

/// One head's effect on the translation when it alone is knocked out.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeadImportance {
    /// The head.
    pub head: HeadRef,
    /// `log p(y | x)` with it knocked out.
    pub log_prob: f32,
    /// `log_prob - base`: negative when the translation becomes less likely without the head.
    /// Exactly 0 for a head already knocked out in the options.
    pub delta: f32,
}

/// The result of [`head_importance`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Importance {
    /// `log p(y | x)` with the options as given.
    pub base: f32,
    /// Every head of the model, in [`crate::Config::all_heads`] order.
    pub heads: Vec<HeadImportance>,
    /// Indices into `heads`, the most important first: by `delta` ascending (the largest drop
    /// of the log-probability first), ties in `heads` order.
    pub ranking: Vec<usize>,
}

/// Teacher-forced `log p(y | x) = sum_t log softmax(logits_t)[y_t]` of `translation` `y`
/// (generated ids, `<eos>` included when produced) given source ids `src`: the decoder reads
/// `<bos> + y[..n-1]`. In f64 from the f32 logits.
pub fn log_prob(model: &Model, src: &[u32], translation: &[u32], opts: &RunOptions) -> Result<f32> {
    let (tgt, memory) = prepare(model, src, translation, opts)?;
    let h = opts.heads_for(&model.config)?;
    translation_log_prob(model, memory.as_ref(), &tgt, translation, h, opts)
}

/// For every head of the model, `log p(y | x)` when that head alone is knocked out on top of
/// `opts` (its Q/K edits, masks and knock-outs stay in force), against the same without it:
/// one forward pass per head. See the module docs.
pub fn head_importance(model: &Model, src: &[u32], translation: &[u32], opts: &RunOptions) -> Result<Importance> {
    let (tgt, memory) = prepare(model, src, translation, opts)?;
    let h = opts.heads_for(&model.config)?;
    let base = translation_log_prob(model, memory.as_ref(), &tgt, translation, h, opts)?;
    let mut heads = Vec::new();
    for head in model.config.all_heads(h) {
        let log_prob = if opts.knock_out.contains(&head) {
            base
        } else {
            let mut knocked = opts.clone();
            knocked.knock_out.push(head);
            let memory = match head.stack {
                crate::Stack::Encoder => Some(encoder_memory(model, src, h, &knocked)?), // (S, d_model)
                _ => memory.clone(), // the decoder's heads do not change the memory
            };
            translation_log_prob(model, memory.as_ref(), &tgt, translation, h, &knocked)?
        };
        heads.push(HeadImportance { head, log_prob, delta: log_prob - base });
    }
    // the largest drop first, ties in head order (negating reverses f32's total order)
    let drops: Vec<f32> = heads.iter().map(|h| -h.delta).collect();
    let ranking = top_k(&drops, heads.len());
    Ok(Importance { base, heads, ranking })
}

/// Checks, the decoder input `<bos> + y[..n-1]`, and the memory `(S, d_model)` under `opts`
/// (none for a decoder-only model, which reads `<bos> + y[..n-1]` alone; `src` is then empty).
fn prepare(model: &Model, src: &[u32], translation: &[u32], opts: &RunOptions) -> Result<(Vec<u32>, Option<Mat>)> {
    let h = opts.heads_for(&model.config)?;
    opts.validate(&model.config)?;
    if model.decoder_stack()?.generator.is_none() {
        return Err(crate::error::input_err!("this model has no output head: no probabilities to score"));
    }
    model.check_ids("translation", translation, model.config.tgt_vocab.len())?;
    let mut tgt = alloc::vec![model.tokenizer.bos];
    tgt.extend_from_slice(&translation[..translation.len() - 1]);
    let memory = match model.encoder {
        Some(_) => Some(encoder_memory(model, src, h, opts)?),
        None => None,
    };
    Ok((tgt, memory))
}

/// The encoder's memory `(S, d_model)` of `src` under `opts`, checked.
fn encoder_memory(model: &Model, src: &[u32], h: usize, opts: &RunOptions) -> Result<Mat> {
    model.check_ids("source", src, model.config.src_vocab.len())?;
    let memory = Mat(model.encoder_stack()?.memory(src, h, opts)); // (S, d_model)
    finite("the encoder memory", &memory)?;
    Ok(memory)
}

/// `sum_t log softmax(logits_t)[y_t]` over the decoder's logits `(T, V)` for input `tgt`.
fn translation_log_prob(
    model: &Model,
    memory: Option<&Mat>,
    tgt: &[u32],
    translation: &[u32],
    h: usize,
    opts: &RunOptions,
) -> Result<f32> {
    let logits = model.decoder_stack()?.logits(tgt, memory.map(|m| &m.0), h, opts); // (T, V), row-major
    finite_values("the logits", &logits)?;
    let v = model.config.tgt_vocab.len();
    let mut total = 0.0f64;
    for (row, &y) in logits.chunks_exact(v).zip(translation) {
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m }) as f64;
        let sum: f64 = row.iter().map(|&v| libm::exp(v as f64 - max)).sum();
        total += row[y as usize] as f64 - max - libm::log(sum);
    }
    Ok(total as f32)
}

// ------------------------------------------------------------------------------------------
// value-weighted attention (Kobayashi et al. 2020)

/// One head's contributions after the output projection (Kobayashi et al. 2020).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ValueWeighted {
    /// `||f(x_j)|| = ||v_j W_O^(h)||` per key, `(1, T_k)`: the size of what key `j` adds per
    /// unit of weight.
    pub value_norms: Mat,
    /// `||w_ij f(x_j)|| = w_ij ||f(x_j)||`, `(T_q, T_k)`, the same shape as the weights.
    pub norms: Mat,
    /// `norms` with each row divided by its sum (a row summing to 0 stays 0), `(T_q, T_k)`:
    /// comparable with the weights, whose rows also sum to 1.
    pub normalized: Mat,
}

/// Head `index`'s [`ValueWeighted`] from its trace and the attention's `W_O`. A knocked-out
/// head adds nothing to the output: all zeros.
pub fn value_weighted(head: &HeadTrace, mha: &MultiHeadAttention, index: usize) -> ValueWeighted {
    let (t_q, t_k) = head.weights.shape();
    let d_k = head.v.ncols();
    let w_o = mha.w_o.w_t().rows(index * d_k, d_k); // W_O^(h): (d_k, d_model)
    let f = &head.v.0 * w_o; // (T_k, d_k) x (d_k, d_model) -> (T_k, d_model)
    let keep = if head.knocked_out { 0.0 } else { 1.0 };
    let value_norms = DMatrix::from_fn(1, t_k, |_, j| keep * f.row(j).norm()); // (1, T_k)
    let norms = DMatrix::from_fn(t_q, t_k, |i, j| head.weights[(i, j)] * value_norms[(0, j)]); // (T_q, T_k)
    let mut normalized = norms.clone(); // (T_q, T_k)
    normalize_rows(&mut normalized);
    ValueWeighted { value_norms: Mat(value_norms), norms: Mat(norms), normalized: Mat(normalized) }
}

/// [`value_weighted`] of every head of one attention, in head order.
pub fn value_weighted_heads(attn: &AttentionTrace, mha: &MultiHeadAttention) -> Vec<ValueWeighted> {
    attn.heads.iter().enumerate().map(|(i, head)| value_weighted(head, mha, i)).collect()
}

// ------------------------------------------------------------------------------------------
// attention rollout (Abnar & Zuidema 2020)

/// Attention rollout of a run, layer by layer (see the module docs for the formulas).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rollout {
    /// `R_l` after each encoder layer, `(S, S)`: row `i` over the source tokens; rows sum to 1.
    pub encoder: Vec<Mat>,
    /// `D_tt` after each decoder layer, `(T, T)`: each decoder position over the decoder input
    /// tokens.
    pub decoder_self: Vec<Mat>,
    /// `D_ts` after each decoder layer, `(T, S)`: each decoder position over the source words.
    /// A row of `D_tt` and the same row of `D_ts` sum to 1 together.
    pub cross: Vec<Mat>,
}

/// The rollout of a run from its attentions: `encoder` one per encoder layer, `decoder` the
/// `(self-attention, cross-attention)` of each decoder layer (no cross-attention in a
/// decoder-only model). Only the weights and `knocked_out` of the heads are read.
pub fn rollout(encoder: &[&AttentionTrace], decoder: &[(&AttentionTrace, Option<&AttentionTrace>)]) -> Rollout {
    let s = encoder.first().map_or(0, |a| a.heads.first().map_or(0, |h| h.weights.nrows()));
    let mut r = DMatrix::<f32>::identity(s, s); // R_0 = I, (S, S)
    let mut enc = Vec::with_capacity(encoder.len());
    for attn in encoder {
        r = with_residual(mean_heads(attn)) * r; // (S, S) x (S, S) -> (S, S)
        enc.push(Mat(r.clone()));
    }
    let t = decoder.first().map_or(0, |(a, _)| a.heads.first().map_or(0, |h| h.weights.nrows()));
    let s = decoder.first().and_then(|(_, c)| *c).map_or(s, |c| c.heads.first().map_or(s, |h| h.weights.ncols()));
    if enc.is_empty() {
        r = DMatrix::identity(s, s);
    }
    let mut d_tt = DMatrix::<f32>::identity(t, t); // (T, T)
    let mut d_ts = DMatrix::<f32>::zeros(t, s); // (T, S)
    let (mut dec_self, mut cross) = (Vec::new(), Vec::new());
    for (self_attn, cross_attn) in decoder {
        let a = with_residual(mean_heads(self_attn)); // (T, T)
        d_tt = &a * d_tt; // (T, T) x (T, T) -> (T, T)
        d_ts = &a * d_ts; // (T, T) x (T, S) -> (T, S)
        if let Some(cross_attn) = cross_attn.filter(|c| c.heads.iter().any(|h| !h.knocked_out)) {
            let reach = mean_heads(cross_attn) * &r; // (T, S) x (S, S) -> (T, S)
            d_tt *= 0.5;
            d_ts = d_ts * 0.5 + reach * 0.5;
            for i in 0..t {
                let sum = d_tt.row(i).sum() + d_ts.row(i).sum();
                if sum > 0.0 {
                    d_tt.row_mut(i).unscale_mut(sum);
                    d_ts.row_mut(i).unscale_mut(sum);
                }
            }
        } // no cross-attention, or every cross head knocked out: the residual alone, D unchanged
        dec_self.push(Mat(d_tt.clone()));
        cross.push(Mat(d_ts.clone()));
    }
    Rollout { encoder: enc, decoder_self: dec_self, cross }
}

/// [`rollout`] of a whole [`Trace`].
pub fn trace_rollout(trace: &Trace) -> Rollout {
    let enc = trace.site(Stack::Encoder);
    let dec: Vec<(&AttentionTrace, Option<&AttentionTrace>)> = trace
        .decoder
        .iter()
        .flat_map(|d| &d.layers)
        .map(|l| (&l.self_attn.sublayer, l.cross_attn.as_ref().map(|c| &c.sublayer)))
        .collect();
    rollout(&enc, &dec)
}

/// [`rollout`] of an incremental run's stages (the same numbers as [`trace_rollout`]).
pub fn staged_rollout(staged: &Staged) -> Rollout {
    let enc: Vec<&AttentionTrace> =
        staged.encoder.iter().flat_map(|e| &e.layers).map(|l| &l.self_attn.sublayer).collect();
    let dec: Vec<(&AttentionTrace, Option<&AttentionTrace>)> = staged
        .decoder
        .iter()
        .flat_map(|d| &d.layers)
        .map(|l| (&l.self_attn.sublayer, l.cross_attn.as_ref().map(|c| &c.sublayer)))
        .collect();
    rollout(&enc, &dec)
}

/// The mean of the weights `(T_q, T_k)` over the heads that are not knocked out (zeros if none).
pub fn mean_heads(attn: &AttentionTrace) -> DMatrix<f32> {
    let (t_q, t_k) = attn.heads.first().map_or((0, 0), |h| h.weights.shape());
    let mut sum = DMatrix::<f32>::zeros(t_q, t_k); // (T_q, T_k)
    let mut n = 0;
    for head in attn.heads.iter().filter(|h| !h.knocked_out) {
        sum += &head.weights.0;
        n += 1;
    }
    if n > 0 {
        sum /= n as f32;
    }
    sum
}

/// `rownorm(0.5 A + 0.5 I)` for a square `A` `(T, T)`: the residual connection's share.
pub fn with_residual(a: DMatrix<f32>) -> DMatrix<f32> {
    let t = a.nrows();
    let mut m = a * 0.5 + DMatrix::<f32>::identity(t, t) * 0.5; // (T, T)
    normalize_rows(&mut m);
    m
}

/// Divide each row by its sum; a row summing to 0 (or less) is left as it is.
fn normalize_rows(m: &mut DMatrix<f32>) {
    for mut row in m.row_iter_mut() {
        let sum = row.sum();
        if sum > 0.0 {
            row /= sum;
        }
    }
}

// ------------------------------------------------------------------------------------------
// gradient x input

/// The result of [`saliency`]: one row per output position, one column per input token.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Saliency {
    /// Over the source tokens, `(R, S)` (a model with an encoder).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub source: Option<Mat>,
    /// Over the decoder's input tokens, `(R, T)` (a model with a decoder).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub target: Option<Mat>,
}

/// Gradient x input (see the module docs) for every output row `r` (the decoder's `T`, or an
/// encoder-only model's `S`) whose label `labels[r]` is not negative: entry `(r, s)` is
/// `(d log p(labels[r]) / d e_s) . e_s` for input token `s`'s embedding `e_s` (scaled, with its
/// token type, before positions are added). Rows of a negative label are zeros.
pub fn saliency(model: &Model, src: &[u32], tgt: &[u32], labels: &[i64], opts: &RunOptions) -> Result<Saliency> {
    let rows = labels.len();
    let mut source = model.encoder.as_ref().map(|_| DMatrix::zeros(rows, src.len())); // (R, S)
    let mut target = model.decoder.as_ref().map(|_| DMatrix::zeros(rows, tgt.len())); // (R, T)
    for (r, &label) in labels.iter().enumerate() {
        if label < 0 {
            continue;
        }
        let mut one: Vec<i64> = alloc::vec![-100; rows];
        one[r] = label;
        let (trace, grads) = model.gradients(src, tgt, &one, opts)?; // loss = -log p(label)
        let dot = |g: &Mat, e: &Mat, out: &mut DMatrix<f32>| {
            for s in 0..e.nrows() {
                out[(r, s)] = -g.row(s).dot(&e.row(s)); // d log p = -d loss
            }
        };
        if let (Some(out), Some(g), Some(t)) = (source.as_mut(), &grads.encoder, &trace.encoder) {
            dot(&g.embed.embedding, &t.embed.embedding, out);
        }
        if let (Some(out), Some(g), Some(t)) = (target.as_mut(), &grads.decoder, &trace.decoder) {
            dot(&g.embed.embedding, &t.embed.embedding, out);
        }
    }
    let source = source.map(Mat);
    let target = target.map(Mat);
    for m in source.iter().chain(&target) {
        finite("the saliency", m)?;
    }
    Ok(Saliency { source, target })
}
