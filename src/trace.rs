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
        let mut out = alloc::vec![0.0; self.len()];
        self.write_row_major(&mut out);
        out
    }

    /// Writes the values in row-major order into `out`, which holds exactly `rows * cols`.
    ///
    /// Column `j` of the column-major storage is column `j` of the result: four columns at a
    /// time, so that each row of the result gets four neighbours in one go (one column at a
    /// time wrote every value to a new cache line), and in the wasm builds four rows of them
    /// at once, a 4 x 4 block turned in SIMD registers.
    pub fn write_row_major(&self, out: &mut [f32]) {
        let (rows, cols) = self.shape();
        assert_eq!(out.len(), rows * cols, "a ({rows}, {cols}) matrix into {} values", out.len());
        if rows == 0 || cols == 0 {
            return;
        }
        let data = self.as_slice();
        let mut groups = data.chunks_exact(4 * rows);
        for (g, group) in (&mut groups).enumerate() {
            let (c0, rest) = group.split_at(rows);
            let (c1, rest) = rest.split_at(rows);
            let (c2, c3) = rest.split_at(rows);
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            let done = {
                for (b, block) in out.chunks_exact_mut(4 * cols).enumerate() {
                    let i = 4 * b;
                    let block = &mut block[4 * g..]; // rows i..i + 4 of the result, from column 4g
                    let (r0, rest) = block.split_at_mut(cols);
                    let (r1, rest) = rest.split_at_mut(cols);
                    let (r2, r3) = rest.split_at_mut(cols);
                    let t = turn4([&c0[i..i + 4], &c1[i..i + 4], &c2[i..i + 4], &c3[i..i + 4]]);
                    for (r, row) in [r0, r1, r2, r3].into_iter().zip(t) {
                        r[..4].copy_from_slice(&row);
                    }
                }
                rows - rows % 4 // the rows the blocks wrote
            };
            #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
            let done = 0;
            for (i, row) in out.chunks_exact_mut(cols).enumerate().skip(done) {
                row[4 * g..4 * g + 4].copy_from_slice(&[c0[i], c1[i], c2[i], c3[i]]);
            }
        }
        let done = 4 * (cols / 4);
        for (j, col) in groups.remainder().chunks_exact(rows).enumerate() {
            for (i, &v) in col.iter().enumerate() {
                out[i * cols + done + j] = v;
            }
        }
    }

    /// Row `i` as a vector.
    pub fn row_vec(&self, i: usize) -> Vec<f32> {
        self.0.row(i).iter().copied().collect()
    }
}

/// Four columns of four values each -> the four rows they make (a 4 x 4 transpose), in
/// SIMD registers: interleave lanes pairwise, then halves.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn turn4(cols: [&[f32]; 4]) -> [[f32; 4]; 4] {
    use core::arch::wasm32::{i32x4_shuffle, i64x2_shuffle, v128};
    let v = cols.map(|c| {
        let c: [f32; 4] = c.try_into().expect("four values");
        // SAFETY: v128 and [f32; 4] are 16 plain bytes
        unsafe { core::mem::transmute::<[f32; 4], v128>(c) }
    });
    let ab_lo = i32x4_shuffle::<0, 4, 1, 5>(v[0], v[1]); // a0 b0 a1 b1
    let ab_hi = i32x4_shuffle::<2, 6, 3, 7>(v[0], v[1]); // a2 b2 a3 b3
    let cd_lo = i32x4_shuffle::<0, 4, 1, 5>(v[2], v[3]); // c0 d0 c1 d1
    let cd_hi = i32x4_shuffle::<2, 6, 3, 7>(v[2], v[3]); // c2 d2 c3 d3
    let rows = [
        i64x2_shuffle::<0, 2>(ab_lo, cd_lo), // a0 b0 c0 d0
        i64x2_shuffle::<1, 3>(ab_lo, cd_lo), // a1 b1 c1 d1
        i64x2_shuffle::<0, 2>(ab_hi, cd_hi),
        i64x2_shuffle::<1, 3>(ab_hi, cd_hi),
    ];
    // SAFETY: as above
    rows.map(|r| unsafe { core::mem::transmute::<v128, [f32; 4]>(r) })
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
    /// Cross-attention: target queries, source keys and values, `(T, S)` weights per head
    /// (`None` in a decoder-only model).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub cross_attn: Option<Residual<AttentionTrace>>,
    /// Feed-forward.
    pub ffn: Residual<FfnTrace>,
}

/// Token ids turned into the first layer's input.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct EmbeddingTrace {
    /// The ids, length `n`.
    pub ids: Vec<u32>,
    /// Token embeddings, times `sqrt(d_model)` when the model scales them, plus token type
    /// 0's embedding when it has token types (BERT), `(n, d_model)`.
    pub embedding: Mat,
    /// The positional encoding added, `(n, d_model)` (zeros when off or `none`).
    pub positional: Mat,
    /// `embedding + positional` before the embedding LayerNorm, `(n, d_model)`: only for
    /// models that normalise their embeddings (BERT).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub before_norm: Option<Mat>,
    /// `embedding + positional` (normalised, for a model with an embedding LayerNorm),
    /// `(n, d_model)`: the first layer's input.
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
    /// The memory: last layer output after the encoder's final LayerNorm (if the model has
    /// one), `(S, d_model)`.
    pub memory: Mat,
    /// An encoder-only model's masked-language-model logits, `(S, V)`: row `i` scores the
    /// token at position `i` (`None` for other models).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub logits: Option<Mat>,
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

/// A whole forward pass: encoder, decoder, generator; a stack the model does not have is
/// `None` (and left out of JSON). (`D` = [`DecoderBody`](crate::decoder::DecoderBody): the
/// same pass without the generator.)
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Trace<D = DecoderTrace> {
    /// Heads `h` used in this run.
    pub heads: usize,
    /// The encoder (encoder-decoder and encoder-only models).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub encoder: Option<EncoderTrace>,
    /// The decoder (encoder-decoder and decoder-only models).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub decoder: Option<D>,
}

impl<D> Trace<D> {
    /// The encoder's trace, or an error naming what this model lacks.
    pub fn encoder(&self) -> crate::Result<&EncoderTrace> {
        self.encoder.as_ref().ok_or_else(|| crate::error::input_err!("this model has no encoder"))
    }

    /// The decoder's trace, or an error naming what this model lacks.
    pub fn decoder(&self) -> crate::Result<&D> {
        self.decoder.as_ref().ok_or_else(|| crate::error::input_err!("this model has no decoder"))
    }
}

impl AttentionSites for EncoderLayerTrace {
    fn site(&self, stack: crate::config::Stack) -> Option<&AttentionTrace> {
        (stack == crate::config::Stack::Encoder).then_some(&self.self_attn.sublayer)
    }
}

impl AttentionSites for DecoderLayerTrace {
    fn site(&self, stack: crate::config::Stack) -> Option<&AttentionTrace> {
        match stack {
            crate::config::Stack::DecoderSelf => Some(&self.self_attn.sublayer),
            crate::config::Stack::DecoderCross => self.cross_attn.as_ref().map(|r| &r.sublayer),
            crate::config::Stack::Encoder => None,
        }
    }
}

/// A layer's attention at one site, if the layer holds that site.
pub trait AttentionSites {
    /// The attention of `stack` in this layer.
    fn site(&self, stack: crate::config::Stack) -> Option<&AttentionTrace>;
}

impl<D: DecoderLayers> Trace<D> {
    /// Every layer's attention at `stack`, in layer order: one accessor for every site (empty
    /// when the model has no such attention).
    pub fn site(&self, stack: crate::config::Stack) -> Vec<&AttentionTrace> {
        match stack {
            crate::config::Stack::Encoder => {
                self.encoder.iter().flat_map(|e| e.layers.iter().filter_map(|l| l.site(stack))).collect()
            }
            _ => self.decoder.iter().flat_map(|d| d.layers().iter().filter_map(|l| l.site(stack))).collect(),
        }
    }

    /// One head's trace: `stack`, `layer` and `head` from 0.
    pub fn head(&self, stack: crate::config::Stack, layer: usize, head: usize) -> Option<&HeadTrace> {
        self.site(stack).get(layer)?.heads.get(head)
    }
}

/// A decoder pass, with or without its generator: its layers.
pub trait DecoderLayers {
    /// The decoder's layers, in order.
    fn layers(&self) -> &[DecoderLayerTrace];
}

impl DecoderLayers for DecoderTrace {
    fn layers(&self) -> &[DecoderLayerTrace] {
        &self.layers
    }
}
