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
use crate::feed_forward::activate;
use crate::linear::Linear;
use crate::norm::LayerNorm;

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
        hidden.as_mut_slice().iter_mut().for_each(|v| *v = activate(self.activation, *v));
        self.generator.forward(&self.norm.forward(&hidden)) // (S, d_model) x (d_model, V) -> (S, V)
    }
}
