//! The whole model: source embeddings and encoder, target embeddings and decoder, generator.

use alloc::vec::Vec;

use crate::attention::MultiHeadAttention;
use crate::config::{Config, RunOptions, Stack};
use crate::decoder::{Decoder, DecoderBody, DecoderCache};
use crate::encoder::Encoder;
use crate::error::input_err;
use crate::tokenizer::Tokenizer;
use crate::trace::{DecoderTrace, EncoderTrace, Mat, Trace};
use crate::Error;
use crate::Result;

/// NaN or infinity in `m` means the weights (or edits) overflowed f32: an error, never a
/// silent NaN downstream.
pub(crate) fn finite(what: &str, m: &Mat) -> Result<()> {
    finite_values(what, m.as_slice())
}

/// [`finite`] for values in any layout.
pub(crate) fn finite_values(what: &str, values: &[f32]) -> Result<()> {
    // a reduction without an early exit, so that it vectorises
    if !values.iter().fold(false, |bad, v| bad | !v.is_finite()) {
        Ok(())
    } else {
        Err(Error::Numeric(alloc::format!("{what} overflowed to NaN or infinity: the weights or edits are too large")))
    }
}

/// A loaded encoder-decoder Transformer. Build one with [`Model::from_safetensors`].
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Hyper-parameters and vocabularies from the file.
    pub config: Config,
    /// Source side.
    pub encoder: Encoder,
    /// Target side and generator.
    pub decoder: Decoder,
    /// Words to ids and back for this model's vocabularies.
    pub tokenizer: Tokenizer,
}

impl Model {
    /// One forward pass with teacher forcing: source ids `(S)` and decoder input ids `(T)`
    /// (usually `<bos>` + a prefix of the translation) -> the full [`Trace`].
    pub fn forward(&self, src: &[u32], tgt: &[u32], opts: &RunOptions) -> Result<Trace> {
        let h = opts.heads_for(&self.config)?;
        let encoder = self.encode(src, opts)?;
        let decoder = self.decode(tgt, &encoder, opts)?;
        Ok(Trace { heads: h, encoder, decoder })
    }

    /// Only the logits `(T, V)`, row-major, of [`Model::forward`] (the same arithmetic, the
    /// same numbers): what a caller needs that draws nothing (a benchmark, a check against
    /// another runtime). Keeps no intermediate and skips the `(T, V)` softmax.
    pub fn logits(&self, src: &[u32], tgt: &[u32], opts: &RunOptions) -> Result<alloc::vec::Vec<f32>> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        self.check_ids("source", src, self.config.src_vocab.len())?;
        self.check_ids("target", tgt, self.config.tgt_vocab.len())?;
        let memory = Mat(self.encoder.memory(src, h, opts));
        finite("the encoder memory", &memory)?;
        let logits = self.decoder.logits(tgt, &memory, h, opts); // (T, V), row-major
        finite_values("the logits", &logits)?;
        Ok(logits)
    }

    /// The encoder alone: source ids `(S)` -> memory `(S, d_model)` and its intermediates.
    pub fn encode(&self, src: &[u32], opts: &RunOptions) -> Result<EncoderTrace> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        self.check_ids("source", src, self.config.src_vocab.len())?;
        let trace = self.encoder.forward(src, h, opts);
        finite("the encoder memory", &trace.memory)?;
        Ok(trace)
    }

    /// The decoder alone, over an encoder's memory: target ids `(T)` -> probabilities `(T, V)`.
    pub fn decode(&self, tgt: &[u32], encoder: &EncoderTrace, opts: &RunOptions) -> Result<DecoderTrace> {
        self.finish_decode(self.decode_body(tgt, encoder, opts)?)
    }

    /// The start of an incremental greedy decoding over `encoder`'s memory (see
    /// [`DecoderCache`]; the causal decoder only): then [`Model::decode_step`] per token.
    pub fn decode_cache(&self, encoder: &EncoderTrace, opts: &RunOptions) -> Result<DecoderCache> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        self.check_memory(&encoder.memory)?;
        if !opts.causal_decoder {
            return Err(input_err!("a decoding step reuses earlier keys only with the causal mask on"));
        }
        Ok(self.decoder.cache(&encoder.memory, h, opts))
    }

    /// The decoder on one more token (`id`, after those in `cache`): the final LayerNorm's row
    /// `(1, d_model)` and each layer's cross-attention weights `(h, S)`.
    pub fn decode_step(&self, id: u32, cache: &mut DecoderCache, opts: &RunOptions) -> Result<(Mat, Vec<Mat>)> {
        let h = opts.heads_for(&self.config)?;
        self.check_ids("target", &[id], self.config.tgt_vocab.len())?;
        if cache.len >= self.config.max_len {
            return Err(input_err!("the decoder input would pass max_len = {}", self.config.max_len));
        }
        let (row, cross) = self.decoder.step(id, cache, h, opts);
        let row = Mat(row);
        finite("the decoder output", &row)?;
        Ok((row, cross))
    }

    /// [`Model::decode`] up to the generator (then [`Model::finish_decode`]).
    pub fn decode_body(&self, tgt: &[u32], encoder: &EncoderTrace, opts: &RunOptions) -> Result<DecoderBody> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        self.check_ids("target", tgt, self.config.tgt_vocab.len())?;
        self.check_memory(&encoder.memory)?;
        let body = self.decoder.body(tgt, &encoder.memory, h, opts);
        finite("the decoder output", &body.output)?;
        Ok(body)
    }

    /// The generator over a [`Model::decode_body`]: the [`DecoderTrace`] of [`Model::decode`].
    pub fn finish_decode(&self, body: DecoderBody) -> Result<DecoderTrace> {
        let trace = self.decoder.generate(body); // (T, d_model) -> logits and probs (T, V)
        finite("the logits", &trace.logits)?;
        Ok(trace)
    }

    /// The generator alone: the decoder output `(T, d_model)` -> logits `(T, V)` (the numbers
    /// of [`Model::forward`]'s `decoder.logits`), an error if they overflow `f32`.
    pub fn generate(&self, output: &Mat) -> Result<Mat> {
        let logits = Mat(self.decoder.generator.forward(output)); // (T, d_model) x (d_model, V) -> (T, V)
        finite("the logits", &logits)?;
        Ok(logits)
    }

    /// The multi-head attention of `stack` at `layer`.
    pub fn attention(&self, stack: Stack, layer: usize) -> Result<&MultiHeadAttention> {
        let found = match stack {
            Stack::Encoder => self.encoder.layers.get(layer).map(|l| &l.self_attn),
            Stack::DecoderSelf => self.decoder.layers.get(layer).map(|l| &l.self_attn),
            Stack::DecoderCross => self.decoder.layers.get(layer).map(|l| &l.cross_attn),
        };
        found.ok_or_else(|| input_err!("{stack:?} has no layer {layer}"))
    }

    /// A memory this model's decoder can read: `(S >= 1, d_model)`.
    fn check_memory(&self, memory: &Mat) -> Result<()> {
        if memory.nrows() == 0 || memory.ncols() != self.config.d_model {
            return Err(input_err!(
                "the memory is {:?}; this model needs (S >= 1, d_model = {})",
                memory.shape(),
                self.config.d_model
            ));
        }
        Ok(())
    }

    /// `ids` non-empty, at most `max_len`, each below `vocab`; `side` names them in the error.
    pub(crate) fn check_ids(&self, side: &str, ids: &[u32], vocab: usize) -> Result<()> {
        if ids.is_empty() {
            return Err(input_err!("the {side} is empty: give at least one token"));
        }
        if ids.len() > self.config.max_len {
            return Err(input_err!(
                "the {side} has {} tokens; this model reads at most max_len = {}",
                ids.len(),
                self.config.max_len
            ));
        }
        if let Some(bad) = ids.iter().find(|&&id| id as usize >= vocab) {
            return Err(input_err!("{side} id {bad} is outside the vocabulary (0..{vocab})"));
        }
        Ok(())
    }
}
