//! The output heads: what turns the last layer's vectors into scores over a vocabulary.
//!
//! * The generator (paper section 3.4): a linear map `d_model -> V`, whose softmax is the
//!   next-token distribution; it lives in [`crate::decoder::Decoder`]. Its weight may be the
//!   embedding table itself ("weight tying", Press & Wolf 2017: GPT-2, Marian, BERT).
//! * [`MlmHead`]: BERT's masked-language-model head (Devlin et al. 2019, section 3.1, "Task
//!   #1"): a dense layer, the activation and a LayerNorm transform each token's vector, then
//!   the generator scores every vocabulary token for that position; at a `[MASK]` position the
//!   arg-max is the model's guess for the hidden word.

use nalgebra::DMatrix;

use crate::config::Activation;
use crate::feed_forward::{activate, activate_all, activate_slope};
use crate::linear::{Linear, LinearGrad};
use crate::norm::{LayerNorm, NormGrad};

/// `cls.predictions` of a `BertForMaskedLM`: `transform.dense`, the activation,
/// `transform.LayerNorm`, then `decoder` (with `bias`).
#[derive(Debug, Clone, PartialEq)]
pub struct MlmHead {
    /// `mlm.dense`: `d_model -> d_model`.
    pub dense: Linear,
    /// The model's activation (BERT: GELU).
    pub activation: Activation,
    /// `mlm.norm`.
    pub norm: LayerNorm,
    /// `generator`: `d_model -> V`.
    pub generator: Linear,
}

impl MlmHead {
    /// The encoder's output `(S, d_model)` -> logits `(S, V)`.
    pub fn forward(&self, x: &DMatrix<f32>) -> DMatrix<f32> {
        let mut hidden = self.dense.forward(x); // (S, d_model) x (d_model, d_model) -> (S, d_model)
        activate_all(self.activation, hidden.as_mut_slice());
        self.generator.forward(&self.norm.forward(&hidden)) // (S, d_model) x (d_model, V) -> (S, V)
    }
}

impl MlmHead {
    /// The gradient through [`MlmHead::forward`]: the encoder's output `x` `(S, d_model)` and
    /// the gradient `d_logits` `(S, V)` -> the gradient of `x` and of the head's parameters
    /// (the intermediates recomputed from `x`).
    pub fn backward(&self, x: &DMatrix<f32>, d_logits: &DMatrix<f32>) -> (DMatrix<f32>, MlmGrad) {
        let before = self.dense.forward(x); // (S, d_model), before the activation
        let hidden = before.map(|v| activate(self.activation, v)); // (S, d_model)
        let normed = self.norm.forward(&hidden); // (S, d_model)
        let (d_normed, generator) = self.generator.backward(&normed, d_logits); // (S, d_model)
        let (mut d_hidden, norm) = self.norm.backward(&hidden, &d_normed);
        d_hidden.iter_mut().zip(before.iter()).for_each(|(g, &z)| *g *= activate_slope(self.activation, z));
        let (dx, dense) = self.dense.backward(x, &d_hidden);
        (dx, MlmGrad { dense, norm, generator })
    }
}

/// The gradients of an [`MlmHead`]'s parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct MlmGrad {
    /// Of `mlm.dense`.
    pub dense: LinearGrad,
    /// Of `mlm.norm`.
    pub norm: NormGrad,
    /// Of the generator (with tied embeddings, added to the table's gradient).
    pub generator: LinearGrad,
}
