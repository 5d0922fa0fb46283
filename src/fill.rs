//! Masked-token prediction with an encoder-only model (BERT's pre-training task, Devlin et al.
//! 2019, section 3.1 "Masked LM"): hide a word behind `[MASK]`, run the encoder, and read the
//! masked-language-model head's distribution at that position. Every token sees every other
//! (no causal mask), so the guess uses the words on both sides.

use alloc::vec::Vec;

use crate::attention::softmax_rows;
use crate::config::RunOptions;
use crate::decode::top_k;
use crate::error::input_err;
use crate::model::Model;
use crate::tokenizer::Encoded;
use crate::trace::{Mat, Trace};
use crate::Result;

/// One masked position and the model's guesses for it.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MaskPrediction {
    /// Index of the mask in the source tokens.
    pub position: usize,
    /// `(token id, probability)`, most probable first.
    pub candidates: Vec<(u32, f32)>,
}

/// The result of [`fill_masks`].
#[derive(Debug, Clone, PartialEq)]
pub struct Filled {
    /// The tokenised text (masks included).
    pub encoded: Encoded,
    /// One entry per mask, in text order.
    pub masks: Vec<MaskPrediction>,
    /// The forward pass: its encoder holds the attention and the `(S, V)` logits.
    pub trace: Trace,
}

/// Tokenise `text`, run the encoder, and give each mask's `k` most probable tokens.
pub fn fill_masks(model: &Model, text: &str, opts: &RunOptions, k: usize) -> Result<Filled> {
    if model.mlm.is_none() {
        return Err(input_err!("fill needs an encoder-only model with its masked-LM head (head: \"mlm\")"));
    }
    let mask = model.tokenizer.mask().ok_or_else(|| input_err!("this model names no mask token (specials.mask)"))?;
    let encoded = model.tokenizer.encode_src(text)?;
    let positions: Vec<usize> = (0..encoded.ids.len()).filter(|&i| encoded.ids[i] == mask).collect();
    if positions.is_empty() {
        let name = model.config.specials.mask.as_deref().unwrap_or("[MASK]");
        return Err(input_err!("the text has no {name}: write it where a word is hidden"));
    }
    let trace = model.forward(&encoded.ids, &[], opts)?;
    let logits = trace.encoder()?.logits.as_ref().ok_or_else(|| input_err!("the model gave no logits"))?; // (S, V)
    let masks = predict(logits, &positions, k);
    Ok(Filled { encoded, masks, trace })
}

/// The `k` most probable tokens at each of `positions`, from the masked-LM logits `(S, V)`.
pub fn predict(logits: &Mat, positions: &[usize], k: usize) -> Vec<MaskPrediction> {
    positions
        .iter()
        .map(|&position| {
            let probs = softmax_rows(&logits.rows(position, 1).into_owned()); // (1, V)
            let row = probs.as_slice(); // one row: storage order is column order
            let candidates = top_k(row, k).into_iter().map(|id| (id as u32, row[id])).collect();
            MaskPrediction { position, candidates }
        })
        .collect()
}
