//! The position-wise feed-forward network (paper section 3.3, equation 2):
//! `FFN(x) = act(x W_1^T + b_1) W_2^T + b_2`: widen to `d_ff`, bend, narrow back to `d_model`,
//! applied to every token on its own.

use nalgebra::DMatrix;

use crate::config::Activation;
use crate::linear::Linear;
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
