//! The position-wise feed-forward network (paper section 3.3, equation 2):
//! `FFN(x) = act(x W_1^T + b_1) W_2^T + b_2`: widen to `d_ff`, bend, narrow back to `d_model`,
//! applied to every token on its own.

use nalgebra::DMatrix;

use crate::attention::fast_exp;
use crate::config::Activation;
use crate::linear::{Linear, LinearGrad};
use crate::trace::{FfnTrace, Mat};

/// `linear1`, activation, `linear2` of a `torch.nn.TransformerEncoderLayer`/`DecoderLayer`.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedForward {
    /// `linear1`: `d_model -> d_ff`.
    pub widen: Linear,
    /// `linear2`: `d_ff -> d_model`.
    pub narrow: Linear,
    /// ReLU, GELU (exact or tanh) or SiLU.
    pub activation: Activation,
}

impl FeedForward {
    /// `(T, d_model) -> (T, d_model)`
    pub fn forward(&self, x: &DMatrix<f32>) -> (FfnTrace, DMatrix<f32>) {
        let mut hidden = self.widen.forward(x); // (T, d_ff)
        activate_all(self.activation, hidden.as_mut_slice());
        let output = self.narrow.forward(&hidden); // (T, d_ff) x (d_ff, d_model) -> (T, d_model)
        (FfnTrace { hidden: Mat(hidden), output: Mat(output.clone()) }, output)
    }
}

impl FeedForward {
    /// The gradient through [`FeedForward::forward`]: its input `x` `(T, d_model)` and the
    /// gradient `dy` `(T, d_model)` of its output -> `dx` `(T, d_model)` and the gradients of
    /// `linear1` and `linear2`. The hidden layer before the activation is recomputed from `x`
    /// (the trace keeps it after; ReLU's slope is read from its output).
    pub fn backward(&self, x: &DMatrix<f32>, trace: &FfnTrace, dy: &DMatrix<f32>) -> (DMatrix<f32>, FfnGrad) {
        let (mut d_hidden, narrow) = self.narrow.backward(&trace.hidden, dy); // (T, d_ff)
        if self.activation == Activation::Relu {
            // ReLU's slope is 1 exactly where its output is positive
            d_hidden.iter_mut().zip(trace.hidden.iter()).for_each(|(g, &h)| *g = if h > 0.0 { *g } else { 0.0 });
        } else {
            let before = self.widen.forward(x); // (T, d_ff), before the activation
            d_hidden.iter_mut().zip(before.iter()).for_each(|(g, &z)| *g *= activate_slope(self.activation, z));
        }
        let (dx, widen) = self.widen.backward(x, &d_hidden); // (T, d_model)
        (dx, FfnGrad { widen, narrow })
    }
}

/// The gradients of a [`FeedForward`]'s two linear maps.
#[derive(Debug, Clone, PartialEq)]
pub struct FfnGrad {
    /// Of `linear1`.
    pub widen: LinearGrad,
    /// Of `linear2`.
    pub narrow: LinearGrad,
}

/// The derivative of [`activate`] at `x`: ReLU's step (0 at 0, as PyTorch), GELU's
/// `Phi(x) + x phi(x)`, the tanh form's derivative, SiLU's `s (1 + x (1 - s))` with
/// `s = sigmoid(x)`.
pub fn activate_slope(act: Activation, x: f32) -> f32 {
    match act {
        Activation::Relu => {
            if x > 0.0 {
                1.0
            } else {
                0.0
            }
        }
        Activation::Gelu => {
            const INV_SQRT_2PI: f32 = 0.398_942_3;
            let cdf = 0.5 * (1.0 + fast_erf(x * core::f32::consts::FRAC_1_SQRT_2));
            cdf + x * INV_SQRT_2PI * fast_exp(-0.5 * x * x)
        }
        Activation::GeluTanh => {
            const SQRT_2_OVER_PI: f32 = 0.797_884_6;
            let t = fast_tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x));
            0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * x * x)
        }
        Activation::Silu => {
            let s = 1.0 / (1.0 + fast_exp(-x));
            s * (1.0 + x * (1.0 - s))
        }
    }
}

/// ReLU `max(0, x)`, exact GELU `0.5 x (1 + erf(x / sqrt 2))`, GELU's tanh form
/// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, or SiLU `x / (1 + e^-x)`.
///
/// `erf`, `tanh` and `e^x` are [`fast_erf`], [`fast_tanh`] and [`fast_exp`]: branch-free, so
/// that [`activate_all`]'s loop over a `(T, d_ff)` hidden layer vectorises (libm's scalar
/// `erff` was a sixth of MiniLM's forward pass in Chromium).
#[inline(always)]
pub fn activate(act: Activation, x: f32) -> f32 {
    match act {
        Activation::Relu => x.max(0.0),
        Activation::Gelu => 0.5 * x * (1.0 + fast_erf(x * core::f32::consts::FRAC_1_SQRT_2)),
        Activation::GeluTanh => {
            const SQRT_2_OVER_PI: f32 = 0.797_884_6;
            0.5 * x * (1.0 + fast_tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
        }
        Activation::Silu => x / (1.0 + fast_exp(-x)),
    }
}

/// [`activate`] on every value, one loop per activation (the `match` outside, so each loop
/// vectorises).
pub fn activate_all(act: Activation, values: &mut [f32]) {
    match act {
        Activation::Relu => values.iter_mut().for_each(|v| *v = if *v > 0.0 { *v } else { 0.0 }),
        Activation::Gelu => values.iter_mut().for_each(|v| *v = activate(Activation::Gelu, *v)),
        Activation::GeluTanh => values.iter_mut().for_each(|v| *v = activate(Activation::GeluTanh, *v)),
        Activation::Silu => values.iter_mut().for_each(|v| *v = activate(Activation::Silu, *v)),
    }
}

/// `erf(x)` in f32 without a libm call, branch-free: for `|x| >= 0.5`, Abramowitz & Stegun,
/// *Handbook of Mathematical Functions* (1964), formula 7.1.26, `erf(a) = 1 - t (a_1 + t (a_2 +
/// ... + t a_5)) e^(-a^2)` with `t = 1 / (1 + p a)` for `a = |x|` (their error bound 1.5e-7),
/// with the sign of `x`; below, where that difference from 1 would cancel, erf's Taylor series
/// `2/sqrt(pi) sum_n (-1)^n x^(2n+1) / (n! (2n+1))` to `n = 6` (the next term is under 2e-8).
/// Both are computed and one chosen, so a loop of it vectorises. Absolute error at most 5e-7
/// against `f64` `erf` (a dense sweep in `tests/hand.rs`); `erf(+-inf) = +-1`, NaN gives NaN.
#[inline(always)]
pub fn fast_erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [0.254_829_6, -0.284_496_74, 1.421_413_7, -1.453_152_1, 1.061_405_4];
    // 2/sqrt(pi) (-1)^n / (n! (2n + 1)), n = 0..=6
    const T: f32 = core::f32::consts::FRAC_2_SQRT_PI;
    const C: [f32; 7] = [T, -T / 3.0, T / 10.0, -T / 42.0, T / 216.0, -T / 1320.0, T / 9360.0];
    let a = x.abs();
    let t = 1.0 / (1.0 + P * a);
    let poly = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))));
    let far = (1.0 - poly * fast_exp(-a * a)).copysign(x);
    let x2 = x * x;
    let near = x * (C[0] + x2 * (C[1] + x2 * (C[2] + x2 * (C[3] + x2 * (C[4] + x2 * (C[5] + x2 * C[6]))))));
    if a < 0.5 {
        near
    } else {
        far
    }
}

/// `tanh(x)` in f32 without a libm call, branch-free: `1 - 2 / (1 + e^(2|x|))` with the sign
/// of `x` ([`fast_exp`]). Absolute error at most 3e-7 against `f64` `tanh` (`tests/hand.rs`);
/// `tanh(+-inf) = +-1`, NaN gives NaN.
#[inline(always)]
pub fn fast_tanh(x: f32) -> f32 {
    (1.0 - 2.0 / (1.0 + fast_exp(2.0 * x.abs()))).copysign(x)
}
