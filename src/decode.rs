//! Greedy generation: start from `<bos>`, run the decoder on the prefix, append the most
//! probable next token, repeat until `<eos>` or the length limit, keeping every step.

use alloc::vec;
use alloc::vec::Vec;

use crate::config::RunOptions;
use crate::model::Model;
use crate::trace::{Mat, Trace};
use crate::Result;

/// One generation step.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Step {
    /// The token chosen (the arg-max of `probs`).
    pub token: u32,
    /// The next-token distribution over the target vocabulary, `(V)`.
    pub probs: Vec<f32>,
    /// The cross-attention row of the newest position, per decoder layer: `(h, S)`, row `i`
    /// is head `i`'s weights over the source tokens when this token was chosen.
    pub cross: Vec<Mat>,
}

/// The result of [`greedy`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Decoding {
    /// Generated ids, ending in `<eos>` unless the length limit stopped generation.
    pub tokens: Vec<u32>,
    /// One entry per generated token.
    pub steps: Vec<Step>,
    /// The last step's full trace: decoder input `<bos>` + every generated token but the last.
    pub trace: Trace,
}

/// Greedy decoding of `src` for at most `max_steps` tokens (capped so that the decoder input
/// stays within `max_len`).
///
/// With the causal mask on, row `t` of the final trace's probabilities equals step `t`'s
/// distribution; with it off, earlier positions see later tokens and the two differ (the
/// final trace "peeks at the future"), which is why every step is kept.
pub fn greedy(model: &Model, src: &[u32], opts: &RunOptions, max_steps: usize) -> Result<Decoding> {
    let h = opts.heads_for(&model.config)?;
    let encoder = model.encode(src, opts)?;
    let max_steps = max_steps.clamp(1, model.config.max_len);
    let mut tgt = vec![model.tokenizer.bos];
    let mut steps = Vec::new();
    loop {
        let dec = model.decode(&tgt, &encoder, opts)?;
        let last = dec.probs.nrows() - 1;
        let probs = dec.probs.row_vec(last);
        let token = argmax(&probs);
        let cross = dec
            .layers
            .iter()
            .map(|l| {
                let heads = &l.cross_attn.sublayer.heads;
                Mat(nalgebra::DMatrix::from_fn(heads.len(), src.len(), |i, j| heads[i].weights[(last, j)]))
            })
            .collect();
        steps.push(Step { token, probs, cross });
        if token == model.tokenizer.eos || steps.len() >= max_steps {
            let tokens = steps.iter().map(|s| s.token).collect();
            return Ok(Decoding { tokens, steps, trace: Trace { heads: h, encoder, decoder: dec } });
        }
        tgt.push(token);
    }
}

/// Index of the largest value (the first one on ties).
pub fn argmax(values: &[f32]) -> u32 {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if *v > values[best] {
            best = i;
        }
    }
    best as u32
}
