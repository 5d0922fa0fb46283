//! The encoder stack (paper section 3.1, left half of figure 1): `N` identical layers of
//! self-attention then feed-forward, each wrapped in "Add & Norm", and (as
//! `torch.nn.Transformer` always adds; BERT and Marian do not) a final LayerNorm whose output is
//! the memory.

use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::attention::{AttentionBackward, Edits, MultiHeadAttention};
use crate::config::{RunOptions, Stack};
use crate::feed_forward::{FeedForward, FfnGrad};
use crate::norm::{
    add_norm, final_norm, final_norm_backward, residual, residual_backward, AddNorm, BlockGrad, LayerNorm, NormGrad,
};
use crate::positional::{EmbeddingGrad, Embeddings};
use crate::trace::{EncoderLayerTrace, EncoderTrace, Mat};

/// `torch.nn.TransformerEncoderLayer`.
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderLayer {
    /// `self_attn`.
    pub self_attn: MultiHeadAttention,
    /// `linear1`, `linear2`.
    pub ffn: FeedForward,
    /// `norm1` (around self-attention).
    pub norm1: LayerNorm,
    /// `norm2` (around the feed-forward).
    pub norm2: LayerNorm,
}

/// The source embeddings, the layers and the final norm.
#[derive(Debug, Clone, PartialEq)]
pub struct Encoder {
    /// `src_embed`, positional table.
    pub embed: Embeddings,
    /// `transformer.encoder.layers`.
    pub layers: Vec<EncoderLayer>,
    /// `transformer.encoder.norm` (`None` for models without a final norm: BERT, Marian).
    pub norm: Option<LayerNorm>,
    /// Post-norm (`false`, the paper) or pre-norm.
    pub norm_first: bool,
}

impl Encoder {
    /// Source ids `(S)` -> every intermediate, ending in the memory `(S, d_model)`.
    pub fn forward(&self, src: &[u32], h: usize, opts: &RunOptions) -> EncoderTrace {
        let embed = self.embed.forward(src, opts.positional);
        let mut x: DMatrix<f32> = embed.input.0.clone(); // (S, d_model)
        let mut layers = Vec::with_capacity(self.layers.len());
        for (l, layer) in self.layers.iter().enumerate() {
            let trace = layer.forward(&x, h, opts, self.norm_first, &edits_for(opts, Stack::Encoder, l));
            x = trace.ffn.output().0.clone();
            layers.push(trace);
        }
        let memory = Mat(final_norm(self.norm.as_ref(), opts, x));
        EncoderTrace { embed, layers, memory, logits: None }
    }
}

impl EncoderLayer {
    /// One layer, every intermediate kept: `x` `(S, d_model)` -> its trace, whose
    /// `ffn.output()` `(S, d_model)` is the next layer's input. `edits` are this layer's Q/K
    /// overrides and knocked-out heads. [`Encoder::forward`] and [`crate::incremental::Session`] both call this, so a
    /// layer recomputed alone gives the very bits of a full pass.
    pub fn forward(
        &self,
        x: &DMatrix<f32>,
        h: usize,
        opts: &RunOptions,
        norm_first: bool,
        edits: &Edits,
    ) -> EncoderLayerTrace {
        let wiring = AddNorm::new(norm_first, opts);
        let self_attn = residual(x, &self.norm1, wiring, |x| {
            self.self_attn.forward(x, x, h, opts.scale, opts.causal_encoder, edits)
        });
        let ffn = residual(self_attn.output(), &self.norm2, wiring, |x| self.ffn.forward(x));
        EncoderLayerTrace { self_attn, ffn }
    }
}

impl Encoder {
    /// The memory `(S, d_model)` of [`Encoder::forward`] alone, nothing else kept.
    pub(crate) fn memory(&self, src: &[u32], h: usize, opts: &RunOptions) -> DMatrix<f32> {
        let mut x = self.embed.forward(src, opts.positional).input.0; // (S, d_model)
        let wiring = AddNorm::new(self.norm_first, opts);
        for (l, layer) in self.layers.iter().enumerate() {
            let edits = edits_for(opts, Stack::Encoder, l);
            x = add_norm(&x, &layer.norm1, wiring, |x| {
                layer.self_attn.output(x, x, h, opts.scale, opts.causal_encoder, &edits)
            });
            x = add_norm(&x, &layer.norm2, wiring, |x| layer.ffn.forward(x).1);
        }
        final_norm(self.norm.as_ref(), opts, x)
    }
}

impl EncoderLayer {
    /// The gradient through [`EncoderLayer::forward`]: its input `x` `(S, d_model)`, its trace,
    /// and the gradient `dy` `(S, d_model)` of its output -> every gradient of the layer, the
    /// input's among them (`self_attn.d_input`).
    pub fn backward(
        &self,
        x: &DMatrix<f32>,
        trace: &EncoderLayerTrace,
        opts: &RunOptions,
        norm_first: bool,
        edits: &Edits,
        dy: &DMatrix<f32>,
    ) -> EncoderLayerGrad {
        let wiring = AddNorm::new(norm_first, opts);
        let ffn = residual_backward(trace.self_attn.output(), &trace.ffn, &self.norm2, wiring, dy, |x, t, d| {
            self.ffn.backward(x, t, d)
        });
        let self_attn = residual_backward(x, &trace.self_attn, &self.norm1, wiring, &ffn.d_input, |x, t, d| {
            let b = self.self_attn.backward(x, x, t, d, opts.scale, edits);
            (&b.dx_q + &b.dx_kv, b)
        });
        EncoderLayerGrad { self_attn, ffn }
    }
}

/// The gradients of one encoder layer (the mirror of [`EncoderLayerTrace`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderLayerGrad {
    /// Self-attention and `norm1`.
    pub self_attn: BlockGrad<AttentionBackward>,
    /// Feed-forward and `norm2`.
    pub ffn: BlockGrad<FfnGrad>,
}

/// The gradients of the encoder (the mirror of [`EncoderTrace`]).
#[derive(Debug, Clone, PartialEq)]
pub struct EncoderGrad {
    /// Of the source embeddings.
    pub embed: EmbeddingGrad,
    /// One entry per layer.
    pub layers: Vec<EncoderLayerGrad>,
    /// Of the final norm (`None` without one, or with LayerNorms off).
    pub norm: Option<NormGrad>,
}

impl Encoder {
    /// The gradient through [`Encoder::forward`]: its trace and the gradient `d_memory`
    /// `(S, d_model)` of the memory -> every gradient of the encoder, last layer first.
    pub fn backward(&self, trace: &EncoderTrace, opts: &RunOptions, d_memory: DMatrix<f32>) -> EncoderGrad {
        let input = |l: usize| if l == 0 { &trace.embed.input } else { trace.layers[l - 1].ffn.output() };
        let last = input(self.layers.len());
        let (mut dy, norm) = final_norm_backward(self.norm.as_ref(), opts, last, d_memory); // (S, d_model)
        let mut layers = Vec::with_capacity(self.layers.len());
        for (l, layer) in self.layers.iter().enumerate().rev() {
            let edits = edits_for(opts, Stack::Encoder, l);
            let grad = layer.backward(input(l), &trace.layers[l], opts, self.norm_first, &edits, &dy);
            dy = grad.self_attn.d_input.clone();
            layers.push(grad);
        }
        layers.reverse();
        let embed = self.embed.backward(&trace.embed, 0, opts.positional, &dy);
        EncoderGrad { embed, layers, norm }
    }
}

/// The overrides and knocked-out heads of `opts` aimed at layer `layer` of `stack`.
pub(crate) fn edits_for(opts: &RunOptions, stack: Stack, layer: usize) -> Edits<'_> {
    let overrides = opts.overrides.iter().filter(|o| o.stack == stack && o.layer == layer).collect();
    let mut knock_out: alloc::vec::Vec<usize> =
        opts.knock_out.iter().filter(|k| k.stack == stack && k.layer == layer).map(|k| k.head).collect();
    knock_out.sort_unstable();
    knock_out.dedup();
    Edits { overrides, knock_out }
}
