//! `y = x W^T + b`, laid out as `torch.nn.Linear`.

use nalgebra::{DMatrix, RowDVector};

/// A linear map from `d_in` to `d_out` features.
#[derive(Debug, Clone, PartialEq)]
pub struct Linear {
    /// `W^T`, stored transposed once at load so a forward pass is one product: `(d_in, d_out)`.
    pub w_t: DMatrix<f32>,
    /// `b`, `(1, d_out)`.
    pub b: RowDVector<f32>,
}

impl Linear {
    /// From PyTorch's `weight` `(d_out, d_in)` and `bias` `(d_out)`.
    pub fn from_torch(weight: DMatrix<f32>, bias: RowDVector<f32>) -> Linear {
        Linear { w_t: weight.transpose(), b: bias }
    }

    /// `(n, d_in) x (d_in, d_out) + (1, d_out) -> (n, d_out)`
    pub fn forward(&self, x: &DMatrix<f32>) -> DMatrix<f32> {
        affine(x, &self.w_t, &self.b)
    }
}

/// `x w_t + b` for a weight already transposed: `(n, i) x (i, o) + (1, o) -> (n, o)`.
pub fn affine(x: &DMatrix<f32>, w_t: &DMatrix<f32>, b: &RowDVector<f32>) -> DMatrix<f32> {
    let mut y = x * w_t;
    // column-major: column j is contiguous and gets the one value b_j
    let n = y.nrows().max(1);
    for (col, &b_j) in y.as_mut_slice().chunks_exact_mut(n).zip(b.iter()) {
        col.iter_mut().for_each(|v| *v += b_j);
    }
    y
}
