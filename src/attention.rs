//! Attention (paper section 3.2): every query row takes a weighted average of the value rows,
//! with weights from how well it matches each key.
//!
//! * [`scaled_dot_product`]: equation 1, `Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V`,
//!   for one head, returning every step.
//! * [`MultiHeadAttention`]: section 3.2.2, laid out exactly as `torch.nn.MultiheadAttention`:
//!   `in_proj_weight` `(3 d_model, d_model)` holds `[W_Q; W_K; W_V]`, head `i` uses columns
//!   `i*d_k..(i+1)*d_k` of the projected `Q`, `K`, `V`, and the heads are concatenated in order
//!   before `out_proj`.
//! * [`Edits`]: what a run changes in one attention: replaced `W_Q`/`W_K` blocks, and
//!   knocked-out heads, whose output is replaced by zeros before `out_proj` (the standard head
//!   mask of Michel et al. 2019, "Are Sixteen Heads Really Better than One?", NeurIPS): the
//!   attention output is then `sum over the heads kept of head_i W_O^(i)` plus the bias `b_O`.
//!
//! ## A row with every key masked
//! A causal mask always leaves the diagonal open, so no row of a self-attention is ever fully
//! masked. Should a row of logits nevertheless be all `-inf` (it takes a caller passing such a
//! mask to [`softmax_rows`]), its weights are defined as all zeros (the weighted average of
//! nothing is the zero vector) instead of PyTorch's NaNs, so a NaN never appears silently.

use alloc::vec::Vec;
use nalgebra::{DMatrix, DMatrixView, RowDVector};

use crate::config::{Matrix, Override};
use crate::linear::{matmul, transposed_product, Linear, LinearGrad};
use crate::trace::{AttentionTrace, HeadTrace, Mat};

/// Row-wise softmax: `w_ij = exp(x_ij - max_i) / sum_j exp(x_ij - max_i)`.
///
/// `-inf` entries get weight exactly 0; a row whose every entry is `-inf` gets all zeros
/// (see module docs). A NaN anywhere in a row makes the whole row NaN: it is never mistaken
/// for a masked row, and [`crate::Model`] reports it as an error.
///
/// Works on nalgebra's column-major storage as it is, one column at a time, keeping a running
/// max and sum per row: every inner loop runs down a contiguous column and vectorises (with
/// [`fast_exp`]), and there is no transpose round trip.
pub fn softmax_rows(x: &DMatrix<f32>) -> DMatrix<f32> {
    let mut w = x.clone(); // (m, n)
    softmax_rows_mut(&mut w);
    w
}

/// [`softmax_rows`] in place.
pub fn softmax_rows_mut(w: &mut DMatrix<f32>) {
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    if std::is_x86_feature_detected!("avx2") {
        /// The same loops on 8-lane registers: each row's max, sum and scale come out in the
        /// same order, so the same bits.
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(w: &mut DMatrix<f32>) {
            softmax_in_place(w)
        }
        // SAFETY: the CPU has AVX2 (checked above).
        return unsafe { avx2(w) };
    }
    softmax_in_place(w)
}

#[inline(always)]
fn softmax_in_place(w: &mut DMatrix<f32>) {
    let m = w.nrows();
    if m == 0 {
        return;
    }
    if m == 1 {
        return softmax_row(w.as_mut_slice());
    }
    let data = w.as_mut_slice(); // column-major: chunks of m are the columns
    let mut max = alloc::vec![f32::NEG_INFINITY; m];
    let mut nan = alloc::vec![false; m];
    for col in data.chunks_exact(m) {
        for ((mx, bad), &v) in max.iter_mut().zip(nan.iter_mut()).zip(col) {
            *bad |= v.is_nan();
            // a compare and select (f32::max is a libm call on wasm); NaN is flagged above.
            // `+ 0.0` (it only turns -0 into +0, the same shift below) makes the store
            // unconditional: x86 compilers otherwise store only when v wins, with a masked
            // store that costs a quarter of the whole softmax on AMD CPUs.
            *mx = if v > *mx { v } else { *mx + 0.0 };
        }
    }
    // a fully masked row: subtract 0 (its entries stay -inf and become 0 below)
    let shift: Vec<f32> = max.iter().map(|&mx| if mx == f32::NEG_INFINITY { 0.0 } else { mx }).collect();
    let mut sum = alloc::vec![0.0f32; m];
    for col in data.chunks_exact_mut(m) {
        for ((v, &mx), s) in col.iter_mut().zip(&shift).zip(sum.iter_mut()) {
            *v = fast_exp(*v - mx); // exp(-inf) = 0
            *s += *v;
        }
    }
    let inv: Vec<f32> = (0..m)
        .map(|i| {
            if nan[i] {
                f32::NAN
            } else if max[i] == f32::NEG_INFINITY {
                0.0 // every key masked: all-zero weights
            } else {
                1.0 / sum[i]
            }
        })
        .collect();
    for col in data.chunks_exact_mut(m) {
        // NaN * anything is NaN: a row with a NaN becomes all NaN
        col.iter_mut().zip(&inv).for_each(|(v, &k)| *v *= k);
    }
}

/// The softmax of one contiguous row (a `(1, n)` matrix: a decoding step's logits over the
/// vocabulary, one head's weights for one query), where the column loops of
/// [`softmax_in_place`] would run `n` columns of one value each: eight running maxima and sums,
/// side by side, so that the loops vectorise. The rules of [`softmax_rows`]: a NaN makes the
/// row NaN (through the sum), an all `-inf` row is all zeros.
#[inline(always)]
fn softmax_row(x: &mut [f32]) {
    const LANES: usize = 8;
    let mut max = [f32::NEG_INFINITY; LANES];
    let mut tail = x.chunks_exact(LANES);
    for chunk in &mut tail {
        for (mx, &v) in max.iter_mut().zip(chunk) {
            *mx = if v > *mx { v } else { *mx + 0.0 }; // as in softmax_in_place; NaN never wins
        }
    }
    let mx = tail.remainder().iter().chain(&max).fold(f32::NEG_INFINITY, |a, &b| if b > a { b } else { a });
    if mx == f32::NEG_INFINITY {
        // every entry -inf (or NaN): zeros, or NaN if there is one
        let fill = if x.iter().any(|v| v.is_nan()) { f32::NAN } else { 0.0 };
        return x.fill(fill);
    }
    let mut sum = [0.0f32; LANES];
    let mut tail = x.chunks_exact_mut(LANES);
    for chunk in &mut tail {
        for (s, v) in sum.iter_mut().zip(chunk) {
            *v = fast_exp(*v - mx); // exp(-inf) = 0; NaN stays NaN
            *s += *v;
        }
    }
    let mut total = sum.iter().sum::<f32>();
    for v in tail.into_remainder() {
        *v = fast_exp(*v - mx);
        total += *v;
    }
    let inv = 1.0 / total; // NaN if a value was
    x.iter_mut().for_each(|v| *v *= inv);
}

/// `e^x` in f32 without a libm call, written so that a loop of it vectorises (no branch, no
/// table): Cody-Waite reduction `x = n ln 2 + r` with `|r| <= ln2 / 2`, Cephes' degree-6
/// polynomial for `e^r`, and `2^n` built in the exponent bits.
///
/// Relative error at most 2.5e-7 (about 2 ulp) against `f64` `exp` for every `x` in
/// `[-87, 88]` (checked on a dense sweep in `tests/hand.rs`), four hundred times below the
/// 1e-4 parity tolerance. `x < -87.33` (including `-inf`) gives exactly 0 (true values there
/// are below f32's normal range), `x > 88` gives `+inf` (the softmax only ever passes
/// `x - max <= 0`), NaN gives NaN.
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    const LOG2E: f32 = core::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4; // ln 2 split in two so that n * LN2_HI is exact
    const LN2_LO: f32 = -2.121_944_4e-4;
    const MAGIC: f32 = 12_582_912.0; // 1.5 * 2^23: adding it rounds to an integer
    const LO: f32 = -87.33;
    const HI: f32 = 88.0;
    let xc = x.clamp(LO, HI);
    let k = xc * LOG2E + MAGIC;
    let n = k - MAGIC; // round(x / ln 2)
    let r = xc - n * LN2_HI - n * LN2_LO;
    let p = 1.987_569_1e-4;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_5e-1;
    let p = p * r + 5.0e-1; // Cephes: 5.0000001e-1, the same f32
    let er = p * r * r + r + 1.0; // e^r
    let two_n = f32::from_bits(((k.to_bits() as i32 - MAGIC.to_bits() as i32 + 127) as u32) << 23);
    let y = er * two_n;
    if x < LO {
        0.0
    } else if x > HI {
        f32::INFINITY
    } else if x.is_nan() {
        x
    } else {
        y
    }
}

/// One head of scaled dot-product attention, every step kept.
///
/// `q` `(T_q, d_k)`, `k` and `v` `(T_k, d_k)`. `scale` divides the scores by `sqrt(d_k)`;
/// `causal` masks key `j > i` for query `i` (a query may not look at later positions).
pub fn scaled_dot_product(q: DMatrix<f32>, k: DMatrix<f32>, v: DMatrix<f32>, scale: bool, causal: bool) -> HeadTrace {
    let d_k = q.ncols() as f32;
    let scores = head_product(q.as_view(), k.transpose().as_view()); // (T_q, d_k) x (d_k, T_k) -> (T_q, T_k)
    let mut logits = scores.clone(); // (T_q, T_k)
    scale_and_mask(&mut logits, d_k, scale, causal);
    let weights = softmax_rows(&logits); // (T_q, T_k), rows sum to 1
    let output = head_product(weights.as_view(), v.as_view()); // (T_q, T_k) x (T_k, d_k) -> (T_q, d_k)
    HeadTrace {
        q: Mat(q),
        k: Mat(k),
        v: Mat(v),
        scores: Mat(scores),
        logits: Mat(logits),
        weights: Mat(weights),
        output: Mat(output),
        knocked_out: false,
    }
}

/// The gradient through one head of [`scaled_dot_product`]: the head's trace and the gradient
/// `d_output` `(T_q, d_k)` of its output -> the gradients of its weights, raw scores, `Q`, `K`
/// and `V`.
///
/// Backwards through equation 1: `output = W V` gives `dV = W^T d_output` and
/// `dW = d_output V^T`; the row softmax gives `dL_ij = W_ij (dW_ij - sum_j' W_ij' dW_ij')`
/// for its input `L`; the scaling gives `d_scores = dL / sqrt(d_k)` (when on; a masked score
/// has weight 0, so gradient 0); `scores = Q K^T` gives `dQ = d_scores K`,
/// `dK = d_scores^T Q`. A row whose weights are nearly one-hot has `dL` near zero whatever
/// `dW` is: the saturated softmax passes almost no learning signal (the reason for scaling).
pub fn scaled_dot_product_backward(head: &HeadTrace, d_output: &DMatrix<f32>, scale: bool) -> HeadGrad {
    let d_k = head.q.ncols() as f32;
    let factor = if scale { 1.0 / libm::sqrtf(d_k) } else { 1.0 };
    let w = &head.weights.0; // (T_q, T_k)
    let v = transposed_product(w, d_output); // (T_k, T_q) x (T_q, d_k) -> (T_k, d_k)
    let weights = matmul(d_output, &head.v.transpose()); // (T_q, d_k) x (d_k, T_k) -> (T_q, T_k)
    let mut scores = weights.clone(); // (T_q, T_k)
    for i in 0..w.nrows() {
        let dot = w.row(i).dot(&weights.row(i));
        for j in 0..w.ncols() {
            scores[(i, j)] = w[(i, j)] * (weights[(i, j)] - dot) * factor;
        }
    }
    let q = matmul(&scores, &head.k); // (T_q, T_k) x (T_k, d_k) -> (T_q, d_k)
    let k = transposed_product(&scores, &head.q); // (T_k, T_q) x (T_q, d_k) -> (T_k, d_k)
    HeadGrad { weights: Mat(weights), scores: Mat(scores), q, k, v }
}

/// The gradients of one head's intermediates (see [`scaled_dot_product_backward`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HeadGrad {
    /// Of the attention weights, `(T_q, T_k)`.
    pub weights: Mat,
    /// Of the raw scores `Q K^T` (before scaling and masking), `(T_q, T_k)`.
    pub scores: Mat,
    /// Of the queries, `(T_q, d_k)`.
    pub q: DMatrix<f32>,
    /// Of the keys, `(T_k, d_k)`.
    pub k: DMatrix<f32>,
    /// Of the values, `(T_k, d_k)`.
    pub v: DMatrix<f32>,
}

/// One of a head's two products, `Q K^T` `(T_q, d_k) x (d_k, T_k)` and `W V` `(T_q, T_k) x
/// (T_k, d_k)`: on nalgebra's product for a small head, and from `PACKED_FROM` multiply-adds
/// on the packed kernel of the linear maps ([`matmul`]), whose packing costs more than it
/// saves on the demo model's heads (`d_k` 16, at most 64 tokens: 10% slower forward passes in
/// Chromium) and saves a tenth of MiniLM's 128-token forward pass. The traced heads and the
/// untraced ones ([`heads_in_place`]) both run it: the same values.
fn head_product(a: DMatrixView<f32>, b: DMatrixView<f32>) -> DMatrix<f32> {
    const PACKED_FROM: usize = 100_000;
    if a.nrows() * a.ncols() * b.ncols() >= PACKED_FROM {
        matmul(&a.into_owned(), &b.into_owned())
    } else {
        a * b
    }
}

/// Scores `(T_q, T_k)` to logits in place: divided by `sqrt(d_k)` when `scale`, and with
/// `causal`, key `j > i` masked (`-inf`) for query `i`.
fn scale_and_mask(scores: &mut DMatrix<f32>, d_k: f32, scale: bool, causal: bool) {
    let factor = if scale { 1.0 / libm::sqrtf(d_k) } else { 1.0 };
    let t_q = scores.nrows();
    for (j, col) in scores.as_mut_slice().chunks_exact_mut(t_q.max(1)).enumerate() {
        col.iter_mut().for_each(|v| *v *= factor);
        if causal {
            col[..j.min(t_q)].fill(f32::NEG_INFINITY); // key j is later than queries 0..j
        }
    }
}

/// Single-head self-attention on raw vectors, as the lessons build it up: queries
/// `x W_Q^T`, keys `x W_K^T`, and the vectors themselves as values, so each output row is a
/// weighted average of the input rows. `x` `(n, d)`, `w_q` and `w_k` `(d_k, d)` (PyTorch layout).
pub fn self_attention(
    x: &DMatrix<f32>,
    w_q: &DMatrix<f32>,
    w_k: &DMatrix<f32>,
    scale: bool,
    causal: bool,
) -> HeadTrace {
    let q = x * w_q.transpose(); // (n, d) x (d, d_k) -> (n, d_k)
    let k = x * w_k.transpose(); // (n, d) x (d, d_k) -> (n, d_k)
    scaled_dot_product(q, k, x.clone(), scale, causal)
}

/// What a run changes in one multi-head attention (one stack, one layer).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Edits<'a> {
    /// Replaced `W_Q`/`W_K` blocks of this attention.
    pub overrides: Vec<&'a Override>,
    /// Knocked-out heads (indices under the run's `h`, ascending, no repeats): their output is
    /// replaced by zeros before `out_proj`.
    pub knock_out: Vec<usize>,
}

impl Edits<'_> {
    /// Whether head `head` is knocked out.
    pub fn knocked_out(&self, head: usize) -> bool {
        self.knock_out.binary_search(&head).is_ok()
    }
}

/// `torch.nn.MultiheadAttention` with the projections split out of `in_proj_weight`.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHeadAttention {
    /// `W_Q`: `d_model -> d_model` (all heads side by side).
    pub w_q: Linear,
    /// `W_K`: `d_model -> d_model`.
    pub w_k: Linear,
    /// `W_V`: `d_model -> d_model`.
    pub w_v: Linear,
    /// `W_O` (`out_proj`): `d_model -> d_model`.
    pub w_o: Linear,
}

impl MultiHeadAttention {
    /// Head `head`'s trained block of `W_Q` or `W_K` in PyTorch's layout, `(d_k, d_model)`:
    /// the matrix an [`Override`] replaces.
    pub fn block(&self, which: Matrix, head: usize, d_k: usize) -> DMatrix<f32> {
        let w_t = match which {
            Matrix::Q => self.w_q.w_t(),
            Matrix::K => self.w_k.w_t(),
        };
        w_t.columns(head * d_k, d_k).transpose() // (d_model, d_k)^T -> (d_k, d_model)
    }

    /// Queries from `x_q` `(T_q, d_model)`, keys and values from `x_kv` `(T_k, d_model)`,
    /// split into `h` heads. `edits` are the `W_Q`/`W_K` blocks replaced for this attention and
    /// its knocked-out heads: a knocked-out head is still computed and traced (with
    /// `knocked_out` set), but its columns of `concat` stay zero.
    pub fn forward(
        &self,
        x_q: &DMatrix<f32>,
        x_kv: &DMatrix<f32>,
        h: usize,
        scale: bool,
        causal: bool,
        edits: &Edits,
    ) -> (AttentionTrace, DMatrix<f32>) {
        let d_model = self.w_q.w_t().nrows();
        let d_k = d_model / h;
        let (q, k, v) = self.project(x_q, x_kv, d_k, &edits.overrides); // (T_q | T_k, d_model)

        let mut concat = DMatrix::zeros(x_q.nrows(), d_model); // (T_q, h * d_k)
        let heads: Vec<HeadTrace> = (0..h)
            .map(|i| {
                // (n, d_k): columns i*d_k.. are one contiguous block of the column-major storage
                let cols = |m: &DMatrix<f32>| {
                    let n = m.nrows();
                    DMatrix::from_column_slice(n, d_k, &m.as_slice()[i * d_k * n..(i + 1) * d_k * n])
                };
                let mut head = scaled_dot_product(cols(&q), cols(&k), cols(&v), scale, causal);
                head.knocked_out = edits.knocked_out(i);
                if !head.knocked_out {
                    concat.columns_mut(i * d_k, d_k).copy_from(&head.output.0);
                }
                head
            })
            .collect();
        let output = self.w_o.forward(&concat); // (T_q, d_model) x (d_model, d_model)
        let trace = AttentionTrace { heads, concat: Mat(concat), output: Mat(output.clone()) };
        (trace, output)
    }
}

impl MultiHeadAttention {
    /// The gradient through [`MultiHeadAttention::forward`], at the weights in force (`edits`'
    /// `W_Q`/`W_K` blocks included; an overridden block of the trained weights gets gradient
    /// 0, as it does not reach the output): its inputs `x_q` `(T_q, d_model)`
    /// and `x_kv` `(T_k, d_model)`, its trace, and the gradient `d_out` `(T_q, d_model)` of
    /// its output -> the gradients of both inputs, of the four projections, and of each head's
    /// weights and scores. A knocked-out head added nothing to the output: its gradients are
    /// zero. For self-attention (`x_q` = `x_kv`) the input's gradient is `dx_q + dx_kv`.
    pub fn backward(
        &self,
        x_q: &DMatrix<f32>,
        x_kv: &DMatrix<f32>,
        trace: &AttentionTrace,
        d_out: &DMatrix<f32>,
        scale: bool,
        edits: &Edits,
    ) -> AttentionBackward {
        let (t_q, t_k, d_model) = (x_q.nrows(), x_kv.nrows(), x_q.ncols());
        let d_k = d_model / trace.heads.len().max(1);
        let (d_concat, o) = self.w_o.backward(&trace.concat, d_out); // (T_q, d_model)
        let (mut dq, mut dk, mut dv) =
            (DMatrix::zeros(t_q, d_model), DMatrix::zeros(t_k, d_model), DMatrix::zeros(t_k, d_model));
        let heads = trace
            .heads
            .iter()
            .enumerate()
            .map(|(i, head)| {
                let d_head = if head.knocked_out {
                    DMatrix::zeros(t_q, d_k)
                } else {
                    d_concat.columns(i * d_k, d_k).into_owned()
                }; // (T_q, d_k)
                let g = scaled_dot_product_backward(head, &d_head, scale);
                dq.columns_mut(i * d_k, d_k).copy_from(&g.q);
                dk.columns_mut(i * d_k, d_k).copy_from(&g.k);
                dv.columns_mut(i * d_k, d_k).copy_from(&g.v);
                g
            })
            .collect();
        let w_q = with_blocks(&self.w_q, &edits.overrides, Matrix::Q, d_k);
        let w_k = with_blocks(&self.w_k, &edits.overrides, Matrix::K, d_k);
        let (dx_q, q) = w_q.as_ref().unwrap_or(&self.w_q).backward(x_q, &dq); // (T_q, d_model)
        let (dx_k, k) = w_k.as_ref().unwrap_or(&self.w_k).backward(x_kv, &dk); // (T_k, d_model)
        let (dx_v, v) = self.w_v.backward(x_kv, &dv); // (T_k, d_model)
                                                      // an overridden block replaces the trained one: the trained block does not reach the loss
        let (mut q, mut k) = (q, k);
        for o in &edits.overrides {
            let grad = if o.matrix == Matrix::Q { &mut q } else { &mut k };
            grad.w_t.columns_mut(o.head * d_k, d_k).fill(0.0);
        }
        AttentionBackward { dx_q, dx_kv: dx_k + dx_v, grad: AttentionGrad { q, k, v, o }, heads }
    }
}

/// What [`MultiHeadAttention::backward`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionBackward {
    /// The gradient of the queries' input, `(T_q, d_model)`.
    pub dx_q: DMatrix<f32>,
    /// The gradient of the keys' and values' input, `(T_k, d_model)`.
    pub dx_kv: DMatrix<f32>,
    /// The projections' gradients.
    pub grad: AttentionGrad,
    /// Each head's intermediates' gradients.
    pub heads: Vec<HeadGrad>,
}

/// The gradients of a [`MultiHeadAttention`]'s projections: `W_Q`, `W_K`, `W_V` (together,
/// PyTorch's `in_proj_weight` and `in_proj_bias`) and `W_O` (`out_proj`).
#[derive(Debug, Clone, PartialEq)]
pub struct AttentionGrad {
    /// Of `W_Q`.
    pub q: LinearGrad,
    /// Of `W_K`.
    pub k: LinearGrad,
    /// Of `W_V`.
    pub v: LinearGrad,
    /// Of `W_O`.
    pub o: LinearGrad,
}

impl MultiHeadAttention {
    /// [`MultiHeadAttention::forward`]'s output `(T_q, d_model)` alone, the same arithmetic
    /// with nothing kept: each head's scores become its weights in place, and the heads read
    /// `Q`, `K`, `V` in place (for [`crate::Model::logits`]).
    pub fn output(
        &self,
        x_q: &DMatrix<f32>,
        x_kv: &DMatrix<f32>,
        h: usize,
        scale: bool,
        causal: bool,
        edits: &Edits,
    ) -> DMatrix<f32> {
        let d_model = self.w_q.w_t().nrows();
        let d_k = d_model / h;
        let (q, k, v) = self.project(x_q, x_kv, d_k, &edits.overrides); // (T_q | T_k, d_model)
        self.w_o.forward(&heads_in_place(&q, &k, &v, h, scale, causal, edits, None))
    }
}

impl MultiHeadAttention {
    /// `K = x_kv W_K` and `V = x_kv W_V` `(T_k, d_model)` with the overridden heads' `W_K`
    /// blocks in force: what a decoding step reads again at every step (the memory's, for
    /// cross-attention).
    pub fn keys_values(&self, x_kv: &DMatrix<f32>, h: usize, edits: &Edits) -> (DMatrix<f32>, DMatrix<f32>) {
        let d_k = self.w_q.w_t().nrows() / h;
        (project_with(&self.w_k, x_kv, &edits.overrides, Matrix::K, d_k), self.w_v.forward(x_kv))
        // (T_k, d_model) each
    }

    /// One query row `x_q` `(1, d_model)` against keys and values already projected, `(T_k,
    /// d_model)` each, every one of them visible (a decoding step's row sees every token so
    /// far): the output row `(1, d_model)` and each head's weights `(h, T_k)`. The arithmetic
    /// of [`MultiHeadAttention::forward`] for that row.
    pub fn attend_one(
        &self,
        x_q: &DMatrix<f32>,
        k: &DMatrix<f32>,
        v: &DMatrix<f32>,
        h: usize,
        scale: bool,
        edits: &Edits,
    ) -> (DMatrix<f32>, DMatrix<f32>) {
        let d_k = self.w_q.w_t().nrows() / h;
        let q = project_with(&self.w_q, x_q, &edits.overrides, Matrix::Q, d_k); // (1, d_model)
        let mut weights = DMatrix::zeros(h, k.nrows()); // (h, T_k)
        let concat =
            heads_in_place(&q, k, v, h, scale, false, edits, Some(&mut |i, w| weights.row_mut(i).copy_from(w)));
        (self.w_o.forward(&concat), weights) // (1, d_model) x (d_model, d_model)
    }

    /// `Q = x_q W_Q`, `K = x_kv W_K`, `V = x_kv W_V` (each plus its bias), with the overridden
    /// heads' `W_Q`/`W_K` blocks in force: `(T_q, d_model)`, `(T_k, d_model)`, `(T_k, d_model)`.
    fn project(
        &self,
        x_q: &DMatrix<f32>,
        x_kv: &DMatrix<f32>,
        d_k: usize,
        overrides: &[&Override],
    ) -> (DMatrix<f32>, DMatrix<f32>, DMatrix<f32>) {
        let q = project_with(&self.w_q, x_q, overrides, Matrix::Q, d_k); // (T_q, d_model)
        let k = project_with(&self.w_k, x_kv, overrides, Matrix::K, d_k); // (T_k, d_model)
        let v = self.w_v.forward(x_kv); // (T_k, d_model)
        (q, k, v)
    }
}

/// What [`heads_in_place`] hands each head's weights `(T_q, T_k)` to, with the head's index.
type OnWeights<'a> = &'a mut dyn FnMut(usize, &DMatrix<f32>);

/// The heads of one attention over projected `q` `(T_q, d_model)`, `k` and `v` `(T_k,
/// d_model)`, each head reading its columns in place, with nothing kept but what is asked for:
/// the concatenated outputs `(T_q, h * d_k)` (zero for a knocked-out head), and, when
/// `weights` is given, each head's weights `(T_q, T_k)` passed to it, knocked-out heads' too
/// (which are computed only then). The arithmetic of [`scaled_dot_product`] per head.
#[allow(clippy::too_many_arguments)]
fn heads_in_place(
    q: &DMatrix<f32>,
    k: &DMatrix<f32>,
    v: &DMatrix<f32>,
    h: usize,
    scale: bool,
    causal: bool,
    edits: &Edits,
    mut weights: Option<OnWeights>,
) -> DMatrix<f32> {
    let (t_q, d_model) = q.shape();
    let d_k = d_model / h;
    let mut concat = DMatrix::zeros(t_q, d_model); // (T_q, h * d_k)
    for i in 0..h {
        let kept = !edits.knocked_out(i);
        if !kept && weights.is_none() {
            continue;
        }
        let k_t = k.columns(i * d_k, d_k).transpose(); // (d_k, T_k)
        let mut w = head_product(q.columns(i * d_k, d_k), k_t.as_view()); // (T_q, d_k) x (d_k, T_k) -> (T_q, T_k)
        scale_and_mask(&mut w, d_k as f32, scale, causal);
        softmax_rows_mut(&mut w); // (T_q, T_k)
        if let Some(f) = weights.as_mut() {
            f(i, &w);
        }
        if kept {
            concat.columns_mut(i * d_k, d_k).copy_from(&head_product(w.as_view(), v.columns(i * d_k, d_k)));
            // (T_q, T_k) x (T_k, d_k) -> (T_q, d_k)
        }
    }
    concat
}

/// `x W^T + b` of `linear` (`W_Q` or `W_K`, `d_model -> d_model`) with the overridden heads'
/// blocks of `which` in force, `(T, d_model)`: the trained map, then each overridden head's
/// `d_k` columns again from its block alone. Each output is the same sum in the same order as
/// in a map holding the block ([`with_blocks`]), so the values are the same, without copying
/// and repacking the whole matrix for every frame of a drag.
fn project_with(linear: &Linear, x: &DMatrix<f32>, overrides: &[&Override], which: Matrix, d_k: usize) -> DMatrix<f32> {
    let mut y = linear.forward(x); // (T, d_model)
    for o in overrides.iter().filter(|o| o.matrix == which) {
        let cols = o.head * d_k..(o.head + 1) * d_k;
        let b = RowDVector::from_row_slice(&linear.b().as_slice()[cols.clone()]);
        // PyTorch's block is (d_k, d_model) = rows of W: its transpose is W^T's columns
        let head = Linear::new(o.block.transpose(), b).forward(x); // (T, d_model) x (d_model, d_k) -> (T, d_k)
        y.columns_mut(cols.start, d_k).copy_from(&head);
    }
    y
}

/// `linear` (`W_Q` or `W_K`, `d_model -> d_model`) with the overridden heads' blocks of
/// `which` written into its weights; `None` when nothing is overridden (the trained map is
/// used as it is).
fn with_blocks(linear: &Linear, overrides: &[&Override], which: Matrix, d_k: usize) -> Option<Linear> {
    let mut edited: Option<DMatrix<f32>> = None; // W^T, (d_model, d_model)
    for o in overrides.iter().filter(|o| o.matrix == which) {
        let w_t = edited.get_or_insert_with(|| linear.w_t().clone());
        // PyTorch's block is (d_k, d_model) = rows of W; here it is columns of W^T.
        w_t.columns_mut(o.head * d_k, d_k).copy_from(&o.block.transpose());
    }
    edited.map(|w_t| Linear::new(w_t, linear.b().clone()))
}
