//! Before attention: a weighted average (the first lesson of the seed lecture).
//!
//! Smoothing noisy 1-D data `(x_i, y_i)` around a point of interest `x0` with a bell-shaped
//! kernel gives every point a weight `exp(-(x_i - x0)^2 / (2 width^2))`, normalised to sum to 1,
//! and averages the `y_i` with those weights. The normalisation *is* a softmax over the logits
//! `-(x_i - x0)^2 / (2 width^2)`: attention keeps this recipe and only changes where the logits
//! come from (query-key dot products instead of distances).

use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::attention::softmax_rows;

/// The kernel logits `-(x_i - x0)^2 / (2 width^2)`, their softmax (the weights) and the
/// weighted average of `ys`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Smoothed {
    /// `-(x_i - x0)^2 / (2 width^2)`, one per point.
    pub logits: Vec<f32>,
    /// `softmax(logits)`: non-negative, sum to 1.
    pub weights: Vec<f32>,
    /// `sum_i weights_i * y_i`.
    pub value: f32,
}

/// Kernel-smooth `ys` at `x0`. `width` must be positive; `xs` and `ys` have the same length.
pub fn kernel_smooth(xs: &[f32], ys: &[f32], x0: f32, width: f32) -> Smoothed {
    let logits: Vec<f32> = xs.iter().map(|x| -(x - x0) * (x - x0) / (2.0 * width * width)).collect();
    let weights: Vec<f32> = softmax_rows(&DMatrix::from_row_slice(1, logits.len(), &logits)).iter().copied().collect();
    let value = weights.iter().zip(ys).map(|(w, y)| w * y).sum();
    Smoothed { logits, weights, value }
}
