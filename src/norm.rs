//! Layer normalisation (Ba et al. 2016) and the "Add & Norm" residual connection
//! (paper section 3.1: `LayerNorm(x + Sublayer(x))`).

use nalgebra::{DMatrix, RowDVector};

use crate::trace::{Mat, Residual};

/// `torch.nn.LayerNorm(d_model, eps)`: each row is shifted to mean 0 and scaled to variance 1
/// (the biased variance, `eps` inside the square root), then `* gamma + beta`.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerNorm {
    /// `weight`, `(1, d_model)`.
    pub gamma: RowDVector<f32>,
    /// `bias`, `(1, d_model)`.
    pub beta: RowDVector<f32>,
    /// Added to the variance.
    pub eps: f32,
}

impl LayerNorm {
    /// `(n, d) -> (n, d)`
    pub fn forward(&self, x: &DMatrix<f32>) -> DMatrix<f32> {
        let (n, d) = x.shape();
        if n == 0 {
            return x.clone();
        }
        // Column-major storage: run down each (contiguous) column, one accumulator per row.
        let cols = || x.as_slice().chunks_exact(n);
        let mut mean = alloc::vec![0.0f32; n];
        for col in cols() {
            mean.iter_mut().zip(col).for_each(|(m, &v)| *m += v);
        }
        mean.iter_mut().for_each(|m| *m /= d as f32);
        let mut var = alloc::vec![0.0f32; n];
        for col in cols() {
            var.iter_mut().zip(col).zip(&mean).for_each(|((s, &v), &m)| *s += (v - m) * (v - m));
        }
        let inv: alloc::vec::Vec<f32> = var.iter().map(|&s| 1.0 / libm::sqrtf(s / d as f32 + self.eps)).collect();
        let mut y = x.clone(); // (n, d)
        for (j, col) in y.as_mut_slice().chunks_exact_mut(n).enumerate() {
            let (g, b) = (self.gamma[j], self.beta[j]);
            col.iter_mut().zip(&mean).zip(&inv).for_each(|((v, &m), &k)| *v = (*v - m) * k * g + b);
        }
        y
    }
}

/// Wrap `sublayer` in a residual connection and `norm`, post-norm (the paper) or pre-norm.
///
/// `sublayer` maps its `(n, d)` input to its trace and its `(n, d)` output.
pub fn residual<S>(
    x: &DMatrix<f32>,
    norm: &LayerNorm,
    norm_first: bool,
    sublayer: impl FnOnce(&DMatrix<f32>) -> (S, DMatrix<f32>),
) -> Residual<S> {
    if norm_first {
        // x + Sublayer(LN(x))
        let normed = norm.forward(x);
        let (trace, out) = sublayer(&normed);
        Residual { sublayer: trace, sum: Mat(x + out), norm: Mat(normed), norm_first }
    } else {
        // LN(x + Sublayer(x))
        let (trace, out) = sublayer(x);
        let sum = x + out;
        let normed = norm.forward(&sum);
        Residual { sublayer: trace, sum: Mat(sum), norm: Mat(normed), norm_first }
    }
}

/// [`residual`] without the trace: post-norm `LN(x + Sublayer(x))`, pre-norm
/// `x + Sublayer(LN(x))`, `(n, d) -> (n, d)`.
pub fn add_norm(
    x: &DMatrix<f32>,
    norm: &LayerNorm,
    norm_first: bool,
    sublayer: impl FnOnce(&DMatrix<f32>) -> DMatrix<f32>,
) -> DMatrix<f32> {
    if norm_first {
        x + sublayer(&norm.forward(x))
    } else {
        norm.forward(&(x + sublayer(x)))
    }
}

/// A stack's final LayerNorm when it has one (`torch.nn.Transformer`, GPT-2's `ln_f`), else
/// `x` unchanged (BERT, Marian): `(n, d) -> (n, d)`.
pub fn final_norm(norm: Option<&LayerNorm>, x: DMatrix<f32>) -> DMatrix<f32> {
    match norm {
        Some(norm) => norm.forward(&x),
        None => x,
    }
}
