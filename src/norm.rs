//! Layer normalisation (Ba et al. 2016) and the "Add & Norm" residual connection
//! (paper section 3.1: `LayerNorm(x + Sublayer(x))`).

use nalgebra::{DMatrix, RowDVector};

use crate::config::RunOptions;
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

    /// The gradient through [`LayerNorm::forward`]: its input `x` `(n, d)` and the gradient
    /// `dy` `(n, d)` of its output -> `dx` `(n, d)` and the gradients of `gamma` and `beta`.
    ///
    /// With `x̂ = (x - mean) / sqrt(var + eps)` per row and `y = x̂ * gamma + beta`:
    /// `dgamma = sum_rows(dy * x̂)`, `dbeta = sum_rows(dy)`, and, with `g = dy * gamma`,
    /// `dx = (g - mean(g) - x̂ * mean(g * x̂)) / sqrt(var + eps)` (each mean over the row's `d`
    /// features: the mean and the variance depend on every feature of the row).
    pub fn backward(&self, x: &DMatrix<f32>, dy: &DMatrix<f32>) -> (DMatrix<f32>, NormGrad) {
        let (n, d) = x.shape();
        let mut grad = NormGrad { gamma: RowDVector::zeros(d), beta: RowDVector::zeros(d) };
        if n == 0 {
            return (x.clone(), grad);
        }
        // Column-major storage, as in forward: one accumulator per row, down each column.
        let xc: alloc::vec::Vec<&[f32]> = x.as_slice().chunks_exact(n).collect();
        let dyc: alloc::vec::Vec<&[f32]> = dy.as_slice().chunks_exact(n).collect();
        let mut mean = alloc::vec![0.0f32; n];
        xc.iter().for_each(|col| mean.iter_mut().zip(*col).for_each(|(m, &v)| *m += v));
        mean.iter_mut().for_each(|m| *m /= d as f32);
        let mut var = alloc::vec![0.0f32; n];
        xc.iter().for_each(|col| var.iter_mut().zip(*col).zip(&mean).for_each(|((s, &v), &m)| *s += (v - m) * (v - m)));
        let inv: alloc::vec::Vec<f32> = var.iter().map(|&s| 1.0 / libm::sqrtf(s / d as f32 + self.eps)).collect();
        let (mut g_mean, mut gx_mean) = (alloc::vec![0.0f32; n], alloc::vec![0.0f32; n]);
        for (j, (col, dcol)) in xc.iter().zip(&dyc).enumerate() {
            let g = self.gamma[j];
            let (mut dg, mut db) = (0.0f32, 0.0f32);
            for i in 0..n {
                let x_hat = (col[i] - mean[i]) * inv[i];
                g_mean[i] += dcol[i] * g;
                gx_mean[i] += dcol[i] * g * x_hat;
                dg += dcol[i] * x_hat;
                db += dcol[i];
            }
            grad.gamma[j] = dg;
            grad.beta[j] = db;
        }
        g_mean.iter_mut().chain(gx_mean.iter_mut()).for_each(|v| *v /= d as f32);
        let mut dx = DMatrix::zeros(n, d); // (n, d)
        for (j, out) in dx.as_mut_slice().chunks_exact_mut(n).enumerate() {
            let g = self.gamma[j];
            for i in 0..n {
                let x_hat = (xc[j][i] - mean[i]) * inv[i];
                out[i] = (dyc[j][i] * g - g_mean[i] - x_hat * gx_mean[i]) * inv[i];
            }
        }
        (dx, grad)
    }

    /// `forward`, or `x` itself when `on` is false (the `layer_norm: false` run option).
    fn apply(&self, x: &DMatrix<f32>, on: bool) -> DMatrix<f32> {
        if on {
            self.forward(x)
        } else {
            x.clone()
        }
    }

    /// `backward`, or `dy` itself (and no parameter gradient) when `on` is false.
    fn backward_if(&self, on: bool, x: &DMatrix<f32>, dy: &DMatrix<f32>) -> (DMatrix<f32>, Option<NormGrad>) {
        if on {
            let (dx, grad) = self.backward(x, dy);
            (dx, Some(grad))
        } else {
            (dy.clone(), None)
        }
    }
}

/// The gradients of a [`LayerNorm`]'s parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct NormGrad {
    /// Of `gamma` (`weight`), `(1, d_model)`.
    pub gamma: RowDVector<f32>,
    /// Of `beta` (`bias`), `(1, d_model)`.
    pub beta: RowDVector<f32>,
}

/// How a sublayer is wired into its "Add & Norm": the model's choice of post-norm (the paper)
/// or pre-norm, and the run's two training-lesson switches ([`RunOptions::residual`],
/// [`RunOptions::layer_norm`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddNorm {
    /// `LN` before the sublayer (pre-norm) instead of after the sum (post-norm).
    pub norm_first: bool,
    /// The residual connection `x + ...` is there.
    pub residual: bool,
    /// The LayerNorm is there (else the identity).
    pub layer_norm: bool,
}

impl AddNorm {
    /// The wiring of a stack with `norm_first` under `opts`.
    pub fn new(norm_first: bool, opts: &RunOptions) -> AddNorm {
        AddNorm { norm_first, residual: opts.residual, layer_norm: opts.layer_norm }
    }

    /// `x + out` with the residual on, `out` without.
    fn add(self, x: &DMatrix<f32>, out: DMatrix<f32>) -> DMatrix<f32> {
        if self.residual {
            out + x
        } else {
            out
        }
    }
}

/// Wrap `sublayer` in a residual connection and `norm`, post-norm (the paper) or pre-norm, as
/// `wiring` says.
///
/// `sublayer` maps its `(n, d)` input to its trace and its `(n, d)` output.
pub fn residual<S>(
    x: &DMatrix<f32>,
    norm: &LayerNorm,
    wiring: AddNorm,
    sublayer: impl FnOnce(&DMatrix<f32>) -> (S, DMatrix<f32>),
) -> Residual<S> {
    let norm_first = wiring.norm_first;
    if norm_first {
        // x + Sublayer(LN(x))
        let normed = norm.apply(x, wiring.layer_norm);
        let (trace, out) = sublayer(&normed);
        Residual { sublayer: trace, sum: Mat(wiring.add(x, out)), norm: Mat(normed), norm_first }
    } else {
        // LN(x + Sublayer(x))
        let (trace, out) = sublayer(x);
        let sum = wiring.add(x, out);
        let normed = norm.apply(&sum, wiring.layer_norm);
        Residual { sublayer: trace, sum: Mat(sum), norm: Mat(normed), norm_first }
    }
}

/// [`residual`] without the trace: post-norm `LN(x + Sublayer(x))`, pre-norm
/// `x + Sublayer(LN(x))`, `(n, d) -> (n, d)`.
pub fn add_norm(
    x: &DMatrix<f32>,
    norm: &LayerNorm,
    wiring: AddNorm,
    sublayer: impl FnOnce(&DMatrix<f32>) -> DMatrix<f32>,
) -> DMatrix<f32> {
    if wiring.norm_first {
        wiring.add(x, sublayer(&norm.apply(x, wiring.layer_norm)))
    } else {
        norm.apply(&wiring.add(x, sublayer(x)), wiring.layer_norm)
    }
}

/// The gradient through [`residual`]: the block's input `x` `(n, d)`, its trace, and the
/// gradient `dy` `(n, d)` of its [`Residual::output`] -> the gradient of `x`, of the
/// LayerNorm's parameters, and what the sublayer's own backward returned. `sublayer` is that
/// backward: its input, its trace and the gradient of its output -> the gradient of its input
/// and its own gradients.
///
/// Post-norm `y = LN(x + f(x))`: `ds = LN'(dy)`, `dx = ds + f'(ds)`. Pre-norm
/// `y = x + f(LN(x))`: `dx = dy + LN'(f'(dy))`. The `+ ds`, `+ dy` terms are the residual path
/// (He et al. 2016): the gradient reaches `x` unchanged whatever the sublayer does to it.
pub fn residual_backward<S, G>(
    x: &DMatrix<f32>,
    trace: &Residual<S>,
    norm: &LayerNorm,
    wiring: AddNorm,
    dy: &DMatrix<f32>,
    sublayer: impl FnOnce(&DMatrix<f32>, &S, &DMatrix<f32>) -> (DMatrix<f32>, G),
) -> BlockGrad<G> {
    if wiring.norm_first {
        let (d_normed, inner) = sublayer(&trace.norm, &trace.sublayer, dy); // (n, d)
        let (dx, grad) = norm.backward_if(wiring.layer_norm, x, &d_normed);
        BlockGrad { sublayer: inner, norm: grad, d_input: if wiring.residual { dx + dy } else { dx } }
    } else {
        let (d_sum, grad) = norm.backward_if(wiring.layer_norm, &trace.sum, dy); // (n, d)
        let (dx, inner) = sublayer(x, &trace.sublayer, &d_sum);
        BlockGrad { sublayer: inner, norm: grad, d_input: if wiring.residual { dx + d_sum } else { dx } }
    }
}

/// The gradients of one Add & Norm block (the mirror of [`Residual`]).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockGrad<G> {
    /// The sublayer's own gradients.
    pub sublayer: G,
    /// Of the LayerNorm's parameters (`None` when the run had it off).
    pub norm: Option<NormGrad>,
    /// Of the block's input, `(n, d_model)`: how the loss changes with what entered the block.
    pub d_input: DMatrix<f32>,
}

/// A stack's final LayerNorm when it has one (`torch.nn.Transformer`, GPT-2's `ln_f`) and the
/// run keeps LayerNorms, else `x` unchanged (BERT, Marian): `(n, d) -> (n, d)`.
pub fn final_norm(norm: Option<&LayerNorm>, opts: &RunOptions, x: DMatrix<f32>) -> DMatrix<f32> {
    match norm {
        Some(norm) if opts.layer_norm => norm.forward(&x),
        _ => x,
    }
}

/// The gradient through [`final_norm`]: its input `x` and the gradient `dy` of its output ->
/// `dx` and the norm's parameter gradients (`None` when it was the identity).
pub fn final_norm_backward(
    norm: Option<&LayerNorm>,
    opts: &RunOptions,
    x: &DMatrix<f32>,
    dy: DMatrix<f32>,
) -> (DMatrix<f32>, Option<NormGrad>) {
    match norm {
        Some(norm) if opts.layer_norm => {
            let (dx, grad) = norm.backward(x, &dy);
            (dx, Some(grad))
        }
        _ => (dy, None),
    }
}
