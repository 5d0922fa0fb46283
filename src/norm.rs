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
        let d = x.ncols();
        // Column-major storage: the transpose makes each token's row contiguous.
        let mut t = x.transpose(); // (d, n)
        for mut col in t.column_iter_mut() {
            let row = col.as_mut_slice();
            let mean = row.iter().sum::<f32>() / d as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
            let inv = 1.0 / libm::sqrtf(var + self.eps);
            for (j, v) in row.iter_mut().enumerate() {
                *v = (*v - mean) * inv * self.gamma[j] + self.beta[j];
            }
        }
        t.transpose()
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
