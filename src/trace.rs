//! Every intermediate of a forward pass, returned rather than hidden in layer state.
//!
//! Shapes use the glossary of the crate root: `S` source tokens, `T` target tokens,
//! `h` heads, `d_k = d_model / h`, `V` target vocabulary. Each matrix holds one token per row.
//!
//! With the `serde` feature every type here serialises; a [`Mat`] becomes
//! `{"rows": r, "cols": c, "data": [row-major values]}`, and masked scores (`-inf`) become
//! `null` in JSON.

use alloc::vec::Vec;
use core::ops::{Deref, DerefMut};
use nalgebra::DMatrix;

/// A dense `f32` matrix, one token per row (a thin wrapper over [`nalgebra::DMatrix`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Mat(pub DMatrix<f32>);

impl Mat {
    /// Build from row-major values. `data.len()` must equal `rows * cols`.
    pub fn from_rows(rows: usize, cols: usize, data: &[f32]) -> Mat {
        Mat(DMatrix::from_row_slice(rows, cols, data))
    }

    /// The values in row-major order (the order JavaScript and PyTorch use).
    pub fn row_major(&self) -> Vec<f32> {
        let (rows, cols) = self.shape();
        let mut out = Vec::new();
        if rows == 0 || cols == 0 {
            return out;
        }
        // column j of the column-major storage is column j of the row-major result: a plain
        // loop (nalgebra's generic transpose was 15% of a wasm Lab.run())
        let data = self.as_slice();
        out.resize(rows * cols, 0.0);
        for (j, col) in data.chunks_exact(rows).enumerate() {
            for (i, &v) in col.iter().enumerate() {
                out[i * cols + j] = v;
            }
        }
        out
    }

    /// Row `i` as a vector.
    pub fn row_vec(&self, i: usize) -> Vec<f32> {
        self.0.row(i).iter().copied().collect()
    }
}

impl Deref for Mat {
    type Target = DMatrix<f32>;
    fn deref(&self) -> &DMatrix<f32> {
        &self.0
    }
}

impl DerefMut for Mat {
    fn deref_mut(&mut self) -> &mut DMatrix<f32> {
        &mut self.0
    }
}

impl From<DMatrix<f32>> for Mat {
    fn from(m: DMatrix<f32>) -> Mat {
        Mat(m)
    }
}

/// Off wasm: `{"rows", "cols", "data": [row-major]}`. On wasm the JS bindings (`src/wasm.rs`)
/// serialise `data` as a `Float32Array` instead.
#[cfg(all(feature = "serde", not(all(feature = "wasm", target_arch = "wasm32"))))]
impl serde::Serialize for Mat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Mat", 3)?;
        st.serialize_field("rows", &self.nrows())?;
        st.serialize_field("cols", &self.ncols())?;
        st.serialize_field("data", &self.row_major())?;
        st.end()
    }
}

/// One head of one attention: the equation `softmax(Q K^T / sqrt(d_k)) V`, step by step.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeadTrace {
    /// Queries `(T_q, d_k)`: `x_q W_Q^T + b_Q`, this head's columns.
    pub q: Mat,
    /// Keys `(T_k, d_k)`.
    pub k: Mat,
    /// Values `(T_k, d_k)`.
    pub v: Mat,
    /// Raw scores `Q K^T`, `(T_q, T_k)`.
    pub scores: Mat,
    /// Scores after scaling by `1/sqrt(d_k)` (when on) and masking (`-inf` where masked),
    /// `(T_q, T_k)`: the softmax input.
    pub logits: Mat,
    /// Attention weights `softmax(logits)` by row, `(T_q, T_k)`; each row sums to 1.
    pub weights: Mat,
    /// The weighted average of the values, `weights V`, `(T_q, d_k)`.
    pub output: Mat,
    /// The head is knocked out in this run ([`crate::RunOptions::knock_out`]): everything above
    /// is what it computes, but `out_proj` reads zeros in its place (its columns of
    /// [`AttentionTrace::concat`] are zero).
    pub knocked_out: bool,
}

/// One multi-head attention (paper section 3.2.2).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AttentionTrace {
    /// One entry per head, `h` in all.
    pub heads: Vec<HeadTrace>,
    /// The heads' outputs side by side, `(T_q, d_model)`; zeros in a knocked-out head's columns.
    pub concat: Mat,
    /// `concat W_O^T + b_O`, `(T_q, d_model)`.
    pub output: Mat,
}

/// The position-wise feed-forward network (section 3.3): widen, activate, narrow.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FfnTrace {
    /// Hidden activations after ReLU/GELU, `(T, d_ff)`.
    pub hidden: Mat,
    /// Output, `(T, d_model)`.
    pub output: Mat,
}

/// A sublayer wrapped in its residual connection and LayerNorm ("Add & Norm").
///
/// Post-norm (paper, `norm_first = false`): `sum = x + Sublayer(x)`, `norm = LN(sum)`, and the
/// layer continues with `norm`. Pre-norm (`norm_first = true`): `norm = LN(x)`,
/// `sum = x + Sublayer(norm)`, and the layer continues with `sum`. See [`Residual::output`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Residual<S> {
    /// What the sublayer computed.
    pub sublayer: S,
    /// The residual sum, `(T, d_model)`.
    pub sum: Mat,
    /// The LayerNorm output, `(T, d_model)`.
    pub norm: Mat,
    /// Whether `norm` came before the sublayer (pre-norm) or after the sum (post-norm).
    pub norm_first: bool,
}

impl<S> Residual<S> {
    /// What the next sublayer receives: `norm` (post-norm) or `sum` (pre-norm).
    pub fn output(&self) -> &Mat {
        if self.norm_first {
            &self.sum
        } else {
            &self.norm
        }
    }
}

/// One encoder layer: self-attention, then feed-forward.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EncoderLayerTrace {
    /// Self-attention over the source, `(S, S)` weights per head.
    pub self_attn: Residual<AttentionTrace>,
    /// Feed-forward.
    pub ffn: Residual<FfnTrace>,
}

/// One decoder layer: masked self-attention, cross-attention over the memory, feed-forward.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DecoderLayerTrace {
    /// Masked self-attention over the target prefix, `(T, T)` weights per head.
    pub self_attn: Residual<AttentionTrace>,
    /// Cross-attention: target queries, source keys and values, `(T, S)` weights per head.
    pub cross_attn: Residual<AttentionTrace>,
    /// Feed-forward.
    pub ffn: Residual<FfnTrace>,
}

/// Token ids turned into the first layer's input.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EmbeddingTrace {
    /// The ids, length `n`.
    pub ids: Vec<u32>,
    /// Token embeddings, times `sqrt(d_model)` when the model scales them, `(n, d_model)`.
    pub embedding: Mat,
    /// The positional encoding added, `(n, d_model)` (zeros when off or `none`).
    pub positional: Mat,
    /// `embedding + positional`, `(n, d_model)`: the first layer's input.
    pub input: Mat,
}

/// The encoder's work on a source sentence.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EncoderTrace {
    /// Source embeddings.
    pub embed: EmbeddingTrace,
    /// One entry per encoder layer.
    pub layers: Vec<EncoderLayerTrace>,
    /// The memory: last layer output after the encoder's final LayerNorm, `(S, d_model)`.
    pub memory: Mat,
}

/// The decoder's work on a target prefix, given the memory.
///
/// The next-token probabilities are [`DecoderTrace::probs`], computed from the logits when
/// asked: a pass that only looks at attention does not pay for a `(T, V)` softmax.
#[derive(Debug, Clone, PartialEq)]
pub struct DecoderTrace {
    /// Target embeddings.
    pub embed: EmbeddingTrace,
    /// One entry per decoder layer.
    pub layers: Vec<DecoderLayerTrace>,
    /// Last layer output after the decoder's final LayerNorm, `(T, d_model)`.
    pub output: Mat,
    /// Generator output, `(T, V)`: row `t` scores the token that follows position `t`.
    pub logits: Mat,
}

impl DecoderTrace {
    /// The next-token probabilities, `softmax(logits)` by row, `(T, V)` (paper section 3.4).
    pub fn probs(&self) -> Mat {
        Mat(crate::attention::softmax_rows(&self.logits))
    }
}

/// `{embed, layers, output, logits, probs}`, `probs` computed now. On wasm the JavaScript
/// bindings (`src/wasm.rs`) leave `logits` and `probs` out and add them as getters that make
/// them when first read.
#[cfg(feature = "serde")]
impl serde::Serialize for DecoderTrace {
    fn serialize<S: serde::Serializer>(&self, s: S) -> core::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("DecoderTrace", 5)?;
        st.serialize_field("embed", &self.embed)?;
        st.serialize_field("layers", &self.layers)?;
        st.serialize_field("output", &self.output)?;
        st.serialize_field("logits", &self.logits)?;
        st.serialize_field("probs", &self.probs())?;
        st.end()
    }
}

/// A whole forward pass: encoder, decoder, generator. (`D` =
/// [`DecoderBody`](crate::decoder::DecoderBody): the same pass without the generator.)
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Trace<D = DecoderTrace> {
    /// Heads `h` used in this run.
    pub heads: usize,
    /// The encoder.
    pub encoder: EncoderTrace,
    /// The decoder.
    pub decoder: D,
}
