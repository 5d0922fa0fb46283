//! The position-wise feed-forward network (paper section 3.3, equation 2):
//! `FFN(x) = act(x W_1^T + b_1) W_2^T + b_2`: widen to `d_ff`, bend, narrow back to `d_model`,
//! applied to every token on its own.

use nalgebra::DMatrix;

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
        match self.activation {
            Activation::Relu => hidden.as_mut_slice().iter_mut().for_each(|v| *v = if *v > 0.0 { *v } else { 0.0 }),
            act => hidden.as_mut_slice().iter_mut().for_each(|v| *v = activate(act, *v)),
        }
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
            let cdf = 0.5 * (1.0 + libm::erff(x * core::f32::consts::FRAC_1_SQRT_2));
            cdf + x * INV_SQRT_2PI * libm::expf(-0.5 * x * x)
        }
        Activation::GeluTanh => {
            const SQRT_2_OVER_PI: f32 = 0.797_884_6;
            let t = libm::tanhf(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x));
            0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * x * x)
        }
        Activation::Silu => {
            let s = 1.0 / (1.0 + libm::expf(-x));
            s * (1.0 + x * (1.0 - s))
        }
    }
}

/// ReLU `max(0, x)`, exact GELU `0.5 x (1 + erf(x / sqrt 2))`, GELU's tanh form
/// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, or SiLU `x / (1 + e^-x)`.
pub fn activate(act: Activation, x: f32) -> f32 {
    match act {
        Activation::Relu => x.max(0.0),
        Activation::Gelu => 0.5 * x * (1.0 + libm::erff(x * core::f32::consts::FRAC_1_SQRT_2)),
        Activation::GeluTanh => {
            const SQRT_2_OVER_PI: f32 = 0.797_884_6;
            0.5 * x * (1.0 + libm::tanhf(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
        }
        Activation::Silu => x / (1.0 + libm::expf(-x)),
    }
}
