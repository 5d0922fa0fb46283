//! The decoder stack (paper section 3.1, right half of figure 1): `N` layers of masked
//! self-attention, cross-attention over the encoder memory ("encoder-decoder attention",
//! section 3.2.3) and feed-forward, each wrapped in "Add & Norm"; a final LayerNorm; and the
//! generator, a linear map to the target vocabulary followed by softmax (section 3.4).
//!
//! A decoder-only model (GPT: Radford et al. 2018; GPT-2, Radford et al. 2019) is this stack
//! without the cross-attention sublayer and the encoder it reads: masked self-attention and
//! feed-forward per layer (pre-norm in GPT-2, whose final LayerNorm is `ln_f`).

use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::attention::{AttentionBackward, Edits, MultiHeadAttention};
use crate::config::{RunOptions, Stack};
use crate::encoder::edits_for;
use crate::feed_forward::{FeedForward, FfnGrad};
use crate::linear::{Linear, LinearGrad};
use crate::norm::{
    add_norm, final_norm, final_norm_backward, residual, residual_backward, AddNorm, BlockGrad, LayerNorm, NormGrad,
};
use crate::positional::{EmbeddingGrad, Embeddings};
use crate::trace::{AttentionTrace, DecoderLayerTrace, DecoderTrace, EmbeddingTrace, FfnTrace, Mat, Residual};

/// `torch.nn.TransformerDecoderLayer`; without its cross-attention, a decoder-only model's
/// layer (GPT's block: Radford et al. 2018).
#[derive(Debug, Clone, PartialEq)]
pub struct DecoderLayer {
    /// `self_attn`: the target prefix attends to itself.
    pub self_attn: MultiHeadAttention,
    /// `multihead_attn` and `norm2`: target queries over the memory's keys and values (`None`
    /// in a decoder-only model).
    pub cross: Option<CrossAttention>,
    /// `linear1`, `linear2`.
    pub ffn: FeedForward,
    /// `norm1` (self-attention), `norm3` (feed-forward).
    pub norms: [LayerNorm; 2],
}

/// A decoder layer's cross-attention ("encoder-decoder attention", section 3.2.3) and the
/// LayerNorm of its Add & Norm.
#[derive(Debug, Clone, PartialEq)]
pub struct CrossAttention {
    /// `multihead_attn`.
    pub attn: MultiHeadAttention,
    /// `norm2`.
    pub norm: LayerNorm,
}

/// The target embeddings, the layers, the final norm and the generator.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoder {
    /// `tgt_embed`, positional table.
    pub embed: Embeddings,
    /// `transformer.decoder.layers`.
    pub layers: Vec<DecoderLayer>,
    /// `transformer.decoder.norm` (`None` for a model without a final norm: Marian).
    pub norm: Option<LayerNorm>,
    /// `generator`: `d_model -> V` (`None` for a decoder-only model without its head, GPT-2's
    /// bare `GPT2Model`).
    pub generator: Option<Linear>,
    /// Post-norm (`false`, the paper) or pre-norm.
    pub norm_first: bool,
}

/// The sublayers of a decoder layer, each alone: [`Decoder::forward`] and
/// [`crate::incremental::Session`] both call these, so a sublayer recomputed alone gives the
/// very bits of a full pass. `edits` are the sublayer's Q/K overrides and knocked-out heads.
impl DecoderLayer {
    /// Masked self-attention wrapped in Add & Norm: `y` `(T, d_model)` -> trace; its
    /// `output()` `(T, d_model)` feeds [`CrossAttention::forward`] (in a decoder-only model,
    /// [`DecoderLayer::feed_forward`]).
    pub fn self_attention(
        &self,
        y: &DMatrix<f32>,
        h: usize,
        opts: &RunOptions,
        norm_first: bool,
        edits: &Edits,
    ) -> Residual<AttentionTrace> {
        residual(y, &self.norms[0], AddNorm::new(norm_first, opts), |y| {
            self.self_attn.forward(y, y, h, opts.scale, opts.causal_decoder, edits)
        })
    }

    /// The feed-forward wrapped in Add & Norm: `(T, d_model)` -> trace; its `output()`
    /// `(T, d_model)` is the layer's output.
    pub fn feed_forward(&self, y: &DMatrix<f32>, opts: &RunOptions, norm_first: bool) -> Residual<FfnTrace> {
        residual(y, &self.norms[1], AddNorm::new(norm_first, opts), |y| self.ffn.forward(y))
    }
}

impl CrossAttention {
    /// Cross-attention over `memory` `(S, d_model)` wrapped in Add & Norm: `y` `(T, d_model)`
    /// -> trace with `(T, S)` weights per head; its `output()` `(T, d_model)` feeds
    /// [`DecoderLayer::feed_forward`].
    pub fn forward(
        &self,
        y: &DMatrix<f32>,
        memory: &DMatrix<f32>,
        h: usize,
        opts: &RunOptions,
        norm_first: bool,
        edits: &Edits,
    ) -> Residual<AttentionTrace> {
        residual(y, &self.norm, AddNorm::new(norm_first, opts), |y| {
            self.attn.forward(y, memory, h, opts.scale, false, edits)
        })
    }
}

/// Greedy decoding's running state (the causal decoder's "KV cache"): for every layer, the
/// self-attention keys and values of the tokens so far and the cross-attention keys and values
/// of the memory, so that a step runs only its new token through the layers. Only with the
/// causal mask: without it, an earlier token's keys change whenever a token is added.
#[derive(Debug, Clone)]
pub struct DecoderCache {
    /// Per layer: self-attention `K`, `V` `(t, d_model)`, cross-attention `K`, `V` `(S, d_model)`.
    layers: Vec<[DMatrix<f32>; 4]>,
    /// Tokens so far (`t`).
    pub(crate) len: usize,
}

/// `m` `(n, d)` with `row` `(1, d)` under it.
fn append_row(m: &mut DMatrix<f32>, row: &DMatrix<f32>) {
    let n = m.nrows();
    *m = core::mem::replace(m, DMatrix::zeros(0, 0)).insert_row(n, 0.0);
    m.row_mut(n).copy_from(row);
}

/// A decoder pass up to the generator: what [`Decoder::forward`] traces before the logits.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DecoderBody {
    /// Target embeddings.
    pub embed: EmbeddingTrace,
    /// One entry per decoder layer.
    pub layers: Vec<DecoderLayerTrace>,
    /// Last layer output after the final LayerNorm, `(T, d_model)`.
    pub output: Mat,
}

impl crate::trace::DecoderLayers for DecoderBody {
    fn layers(&self) -> &[DecoderLayerTrace] {
        &self.layers
    }
}

impl Decoder {
    /// Target ids `(T)` and the memory `(S, d_model)` (`None` for a decoder-only model) ->
    /// every intermediate, ending in the next-token logits `(T, V)`.
    pub fn forward(&self, tgt: &[u32], memory: Option<&DMatrix<f32>>, h: usize, opts: &RunOptions) -> DecoderTrace {
        self.generate(self.body(tgt, memory, h, opts))
    }

    /// [`Decoder::forward`] without the generator: greedy decoding needs only the last row's
    /// logits at each step, and the `(T, V)` product is most of a short pass.
    pub fn body(&self, tgt: &[u32], memory: Option<&DMatrix<f32>>, h: usize, opts: &RunOptions) -> DecoderBody {
        let embed = self.embed.forward(tgt, opts.positional);
        let mut y: DMatrix<f32> = embed.input.0.clone(); // (T, d_model)
        let mut layers = Vec::with_capacity(self.layers.len());
        for (l, layer) in self.layers.iter().enumerate() {
            let nf = self.norm_first;
            let self_attn = layer.self_attention(&y, h, opts, nf, &edits_for(opts, Stack::DecoderSelf, l));
            let cross_attn = match (&layer.cross, memory) {
                (Some(cross), Some(memory)) => {
                    let edits = edits_for(opts, Stack::DecoderCross, l);
                    Some(cross.forward(self_attn.output(), memory, h, opts, nf, &edits))
                }
                _ => None,
            };
            let ffn = layer.feed_forward(cross_attn.as_ref().unwrap_or(&self_attn).output(), opts, nf);
            y = ffn.output().0.clone();
            layers.push(DecoderLayerTrace { self_attn, cross_attn, ffn });
        }
        let output = Mat(final_norm(self.norm.as_ref(), opts, y)); // (T, d_model)
        DecoderBody { embed, layers, output }
    }

    /// The generator over a body's output: logits `(T, V)` (their row softmax is
    /// [`DecoderTrace::probs`]); `(T, 0)` for a model without a generator.
    pub fn generate(&self, body: DecoderBody) -> DecoderTrace {
        let DecoderBody { embed, layers, output } = body;
        let logits = match &self.generator {
            Some(generator) => generator.forward(&output), // (T, d_model) x (d_model, V) -> (T, V)
            None => DMatrix::zeros(output.nrows(), 0),
        };
        DecoderTrace { embed, layers, output, logits: Mat(logits) }
    }

    /// The cache before the first token of a greedy decoding over `memory` `(S, d_model)`
    /// (`None` for a decoder-only model): every layer's cross-attention keys and values.
    pub fn cache(&self, memory: Option<&DMatrix<f32>>, h: usize, opts: &RunOptions) -> DecoderCache {
        let d = self.embed.table_t.nrows();
        let layers = self
            .layers
            .iter()
            .enumerate()
            .map(|(l, layer)| {
                let (mk, mv) = match (&layer.cross, memory) {
                    (Some(cross), Some(memory)) => {
                        cross.attn.keys_values(memory, h, &edits_for(opts, Stack::DecoderCross, l))
                    }
                    _ => (DMatrix::zeros(0, d), DMatrix::zeros(0, d)),
                };
                [DMatrix::zeros(0, d), DMatrix::zeros(0, d), mk, mv] // (0 | S, d_model)
            })
            .collect();
        DecoderCache { layers, len: 0 }
    }

    /// One token more: `id`, at the next position, through every layer against the cache,
    /// whose self-attention keys and values it joins. Returns the final LayerNorm's row
    /// `(1, d_model)` (the generator's input) and each layer's cross-attention weights
    /// `(h, S)` (none in a decoder-only model): the last rows of a causal [`Decoder::forward`]
    /// over every token so far.
    pub fn step(&self, id: u32, cache: &mut DecoderCache, h: usize, opts: &RunOptions) -> (DMatrix<f32>, Vec<Mat>) {
        let mut y = self.embed.forward_from(&[id], cache.len, opts.positional).input.0; // (1, d_model)
        let wiring = AddNorm::new(self.norm_first, opts);
        let mut cross = Vec::with_capacity(self.layers.len());
        for (l, (layer, [k, v, mk, mv])) in self.layers.iter().zip(&mut cache.layers).enumerate() {
            let [n1, n3] = &layer.norms;
            let self_edits = edits_for(opts, Stack::DecoderSelf, l);
            y = add_norm(&y, n1, wiring, |x| {
                let (k_new, v_new) = layer.self_attn.keys_values(x, h, &self_edits); // (1, d_model)
                append_row(k, &k_new);
                append_row(v, &v_new);
                layer.self_attn.attend_one(x, k, v, h, opts.scale, &self_edits).0
            });
            if let Some(c) = &layer.cross {
                let cross_edits = edits_for(opts, Stack::DecoderCross, l);
                y = add_norm(&y, &c.norm, wiring, |x| {
                    let (out, weights) = c.attn.attend_one(x, mk, mv, h, opts.scale, &cross_edits);
                    cross.push(Mat(weights));
                    out
                });
            }
            y = add_norm(&y, n3, wiring, |x| layer.ffn.forward(x).1);
        }
        cache.len += 1;
        (final_norm(self.norm.as_ref(), opts, y), cross)
    }

    /// The logits `(T, V)` of [`Decoder::forward`] alone, row-major, nothing else kept.
    pub(crate) fn logits(&self, tgt: &[u32], memory: Option<&DMatrix<f32>>, h: usize, opts: &RunOptions) -> Vec<f32> {
        let mut y = self.embed.forward(tgt, opts.positional).input.0; // (T, d_model)
        let wiring = AddNorm::new(self.norm_first, opts);
        for (l, layer) in self.layers.iter().enumerate() {
            let [n1, n3] = &layer.norms;
            let self_edits = edits_for(opts, Stack::DecoderSelf, l);
            y = add_norm(&y, n1, wiring, |y| {
                layer.self_attn.output(y, y, h, opts.scale, opts.causal_decoder, &self_edits)
            });
            if let (Some(c), Some(memory)) = (&layer.cross, memory) {
                let cross_edits = edits_for(opts, Stack::DecoderCross, l);
                y = add_norm(&y, &c.norm, wiring, |y| c.attn.output(y, memory, h, opts.scale, false, &cross_edits));
            }
            y = add_norm(&y, n3, wiring, |y| layer.ffn.forward(y).1);
        }
        let y = final_norm(self.norm.as_ref(), opts, y);
        self.generator.as_ref().map_or_else(Vec::new, |g| g.forward_row_major(&y))
        // (T, d_model) x (d_model, V) -> (T, V)
    }
}

impl DecoderLayer {
    /// The gradient through one decoder layer: its input `y` `(T, d_model)`, its trace, the
    /// memory `(S, d_model)` its cross-attention read (`None` in a decoder-only model), and
    /// the gradient `dy` `(T, d_model)` of its output -> every gradient of the layer; the
    /// memory's share is the cross-attention's `dx_kv`. `edits` are its self- and
    /// cross-attention's.
    #[allow(clippy::too_many_arguments)]
    pub fn backward(
        &self,
        y: &DMatrix<f32>,
        trace: &DecoderLayerTrace,
        memory: Option<&DMatrix<f32>>,
        opts: &RunOptions,
        norm_first: bool,
        edits: [&Edits; 2],
        dy: &DMatrix<f32>,
    ) -> DecoderLayerGrad {
        let wiring = AddNorm::new(norm_first, opts);
        let [n1, n3] = &self.norms;
        let before_ffn = trace.cross_attn.as_ref().unwrap_or(&trace.self_attn).output();
        let ffn = residual_backward(before_ffn, &trace.ffn, n3, wiring, dy, |x, t, d| self.ffn.backward(x, t, d));
        let (cross_attn, d_self_out) = match (&self.cross, &trace.cross_attn, memory) {
            (Some(cross), Some(t), Some(memory)) => {
                let grad =
                    residual_backward(trace.self_attn.output(), t, &cross.norm, wiring, &ffn.d_input, |x, t, d| {
                        let b = cross.attn.backward(x, memory, t, d, opts.scale, edits[1]);
                        (b.dx_q.clone(), b)
                    });
                let d = grad.d_input.clone();
                (Some(grad), d)
            }
            _ => (None, ffn.d_input.clone()),
        };
        let self_attn = residual_backward(y, &trace.self_attn, n1, wiring, &d_self_out, |x, t, d| {
            let b = self.self_attn.backward(x, x, t, d, opts.scale, edits[0]);
            (&b.dx_q + &b.dx_kv, b)
        });
        DecoderLayerGrad { self_attn, cross_attn, ffn }
    }
}

/// The gradients of one decoder layer (the mirror of [`DecoderLayerTrace`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DecoderLayerGrad {
    /// Masked self-attention and `norm1`.
    pub self_attn: BlockGrad<AttentionBackward>,
    /// Cross-attention and `norm2` (`None` in a decoder-only model).
    pub cross_attn: Option<BlockGrad<AttentionBackward>>,
    /// Feed-forward and `norm3`.
    pub ffn: BlockGrad<FfnGrad>,
}

/// The gradients of the decoder (the mirror of [`DecoderTrace`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DecoderGrad {
    /// Of the target embeddings.
    pub embed: EmbeddingGrad,
    /// One entry per layer.
    pub layers: Vec<DecoderLayerGrad>,
    /// Of the final norm (`None` without one, or with LayerNorms off).
    pub norm: Option<NormGrad>,
    /// Of the generator.
    pub generator: Option<LinearGrad>,
    /// Of the memory, summed over the layers' cross-attentions, `(S, d_model)` (`None` in a
    /// decoder-only model): where the encoder's backward starts.
    pub d_memory: Option<DMatrix<f32>>,
}

impl Decoder {
    /// The gradient through [`Decoder::forward`]: its trace, the memory it read, and the
    /// gradient `d_logits` `(T, V)` of the generator's output -> every gradient of the decoder,
    /// last layer first, and the memory's.
    pub fn backward(
        &self,
        trace: &DecoderTrace,
        memory: Option<&DMatrix<f32>>,
        opts: &RunOptions,
        d_logits: &DMatrix<f32>,
    ) -> DecoderGrad {
        let (d_output, generator) = match &self.generator {
            Some(g) => {
                let (d, grad) = g.backward(&trace.output, d_logits); // (T, d_model)
                (d, Some(grad))
            }
            None => (DMatrix::zeros(trace.output.nrows(), trace.output.ncols()), None),
        };
        let input = |l: usize| if l == 0 { &trace.embed.input } else { trace.layers[l - 1].ffn.output() };
        let (mut dy, norm) = final_norm_backward(self.norm.as_ref(), opts, input(self.layers.len()), d_output);
        let mut d_memory = memory.map(|m| DMatrix::zeros(m.nrows(), m.ncols())); // (S, d_model)
        let mut layers = Vec::with_capacity(self.layers.len());
        for (l, layer) in self.layers.iter().enumerate().rev() {
            let edits = [edits_for(opts, Stack::DecoderSelf, l), edits_for(opts, Stack::DecoderCross, l)];
            let grad =
                layer.backward(input(l), &trace.layers[l], memory, opts, self.norm_first, [&edits[0], &edits[1]], &dy);
            if let (Some(d), Some(cross)) = (d_memory.as_mut(), &grad.cross_attn) {
                *d += &cross.sublayer.dx_kv;
            }
            dy = grad.self_attn.d_input.clone();
            layers.push(grad);
        }
        layers.reverse();
        let embed = self.embed.backward(&trace.embed, 0, opts.positional, &dy);
        DecoderGrad { embed, layers, norm, generator, d_memory }
    }
}
