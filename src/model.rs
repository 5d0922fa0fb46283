//! The whole model: source embeddings and encoder, target embeddings and decoder, output head;
//! an encoder-only model (BERT) has no decoder, a decoder-only model (GPT-2) no encoder.

use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::attention::MultiHeadAttention;
use crate::config::{Architecture, Config, RunOptions, Stack};
use crate::decoder::{Decoder, DecoderBody, DecoderCache};
use crate::encoder::Encoder;
use crate::error::input_err;
use crate::head::MlmHead;
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

/// The error of asking a model without an output head (`head: "none"`) for scores.
fn no_head() -> Error {
    input_err!("this model has no output head: it gives hidden states only")
}

/// A loaded Transformer: an encoder-decoder (the paper; Marian), an encoder alone (BERT) or
/// a decoder alone (GPT-2), as its [`Config::architecture`] says. Build one with
/// [`Model::from_safetensors`].
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Hyper-parameters and vocabularies from the file.
    pub config: Config,
    /// Source side (`None` in a decoder-only model).
    pub encoder: Option<Encoder>,
    /// Target side and generator (`None` in an encoder-only model).
    pub decoder: Option<Decoder>,
    /// An encoder-only model's masked-language-model head (`head: "mlm"`).
    pub mlm: Option<MlmHead>,
    /// Words to ids and back for this model's vocabularies.
    pub tokenizer: Tokenizer,
}

impl Model {
    /// One forward pass with teacher forcing: source ids `(S)` and decoder input ids `(T)`
    /// (usually `<bos>` + a prefix of the translation) -> the full [`Trace`]. A decoder-only
    /// model reads no source (`src` empty), an encoder-only model no target (`tgt` empty).
    pub fn forward(&self, src: &[u32], tgt: &[u32], opts: &RunOptions) -> Result<Trace> {
        let h = opts.heads_for(&self.config)?;
        self.check_sides(src, tgt)?;
        let encoder = match self.encoder {
            Some(_) => Some(self.encode(src, opts)?),
            None => None,
        };
        let decoder = match self.decoder {
            Some(_) => Some(self.decode(tgt, encoder.as_ref(), opts)?),
            None => None,
        };
        Ok(Trace { heads: h, encoder, decoder })
    }

    /// Only the logits, row-major, of [`Model::forward`] (the same arithmetic, the same
    /// numbers): the decoder's `(T, V)`, or an encoder-only model's masked-LM `(S, V)`. What a
    /// caller needs that draws nothing (a benchmark, a check against another runtime). Keeps
    /// no intermediate and skips the `(T, V)` softmax.
    pub fn logits(&self, src: &[u32], tgt: &[u32], opts: &RunOptions) -> Result<Vec<f32>> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        self.check_sides(src, tgt)?;
        let memory = match &self.encoder {
            Some(encoder) => {
                self.check_ids("source", src, self.config.src_vocab.len())?;
                let memory = Mat(encoder.memory(src, h, opts));
                finite("the encoder memory", &memory)?;
                Some(memory)
            }
            None => None,
        };
        let logits = match (&self.decoder, &self.mlm, &memory) {
            (Some(decoder), _, _) if decoder.generator.is_some() => {
                self.check_ids("target", tgt, self.config.tgt_vocab.len())?;
                decoder.logits(tgt, memory.as_ref().map(|m| &m.0), h, opts) // (T, V), row-major
            }
            (None, Some(mlm), Some(memory)) => Mat(mlm.forward(memory)).row_major(), // (S, V)
            _ => return Err(no_head()),
        };
        finite_values("the logits", &logits)?;
        Ok(logits)
    }

    /// The encoder alone: source ids `(S)` -> memory `(S, d_model)` and its intermediates (and
    /// for a masked-language model, its logits).
    pub fn encode(&self, src: &[u32], opts: &RunOptions) -> Result<EncoderTrace> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        let encoder = self.encoder_stack()?;
        self.check_ids("source", src, self.config.src_vocab.len())?;
        let mut trace = encoder.forward(src, h, opts);
        finite("the encoder memory", &trace.memory)?;
        if let Some(mlm) = &self.mlm {
            let logits = Mat(mlm.forward(&trace.memory)); // (S, d_model) -> (S, V)
            finite("the logits", &logits)?;
            trace.logits = Some(logits);
        }
        Ok(trace)
    }

    /// The decoder alone, over an encoder's memory (`None` for a decoder-only model): target
    /// ids `(T)` -> logits `(T, V)` and every intermediate.
    pub fn decode(&self, tgt: &[u32], encoder: Option<&EncoderTrace>, opts: &RunOptions) -> Result<DecoderTrace> {
        self.finish_decode(self.decode_body(tgt, encoder, opts)?)
    }

    /// The start of an incremental greedy decoding over `encoder`'s memory (see
    /// [`DecoderCache`]; the causal decoder only): then [`Model::decode_step`] per token.
    pub fn decode_cache(&self, encoder: Option<&EncoderTrace>, opts: &RunOptions) -> Result<DecoderCache> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        let memory = self.check_memory(encoder)?;
        if !opts.causal_decoder {
            return Err(input_err!("a decoding step reuses earlier keys only with the causal mask on"));
        }
        Ok(self.decoder_stack()?.cache(memory, h, opts))
    }

    /// The decoder on one more token (`id`, after those in `cache`): the final LayerNorm's row
    /// `(1, d_model)` and each layer's cross-attention weights `(h, S)`.
    pub fn decode_step(&self, id: u32, cache: &mut DecoderCache, opts: &RunOptions) -> Result<(Mat, Vec<Mat>)> {
        let h = opts.heads_for(&self.config)?;
        self.check_ids("target", &[id], self.config.tgt_vocab.len())?;
        if cache.len >= self.config.max_len {
            return Err(input_err!("the decoder input would pass max_len = {}", self.config.max_len));
        }
        let (row, cross) = self.decoder_stack()?.step(id, cache, h, opts);
        let row = Mat(row);
        finite("the decoder output", &row)?;
        Ok((row, cross))
    }

    /// [`Model::decode`] up to the generator (then [`Model::finish_decode`]).
    pub fn decode_body(&self, tgt: &[u32], encoder: Option<&EncoderTrace>, opts: &RunOptions) -> Result<DecoderBody> {
        let h = opts.heads_for(&self.config)?;
        opts.validate(&self.config)?;
        let decoder = self.decoder_stack()?;
        self.check_ids("target", tgt, self.config.tgt_vocab.len())?;
        let memory = self.check_memory(encoder)?;
        let body = decoder.body(tgt, memory, h, opts);
        finite("the decoder output", &body.output)?;
        Ok(body)
    }

    /// The generator over a [`Model::decode_body`]: the [`DecoderTrace`] of [`Model::decode`].
    pub fn finish_decode(&self, body: DecoderBody) -> Result<DecoderTrace> {
        let trace = self.decoder_stack()?.generate(body); // (T, d_model) -> logits and probs (T, V)
        finite("the logits", &trace.logits)?;
        Ok(trace)
    }

    /// The generator alone: the decoder output `(T, d_model)` -> logits `(T, V)` (the numbers
    /// of [`Model::forward`]'s `decoder.logits`), an error if they overflow `f32`.
    pub fn generate(&self, output: &Mat) -> Result<Mat> {
        let generator = self.decoder_stack()?.generator.as_ref().ok_or_else(no_head)?;
        let logits = Mat(generator.forward(output)); // (T, d_model) x (d_model, V) -> (T, V)
        finite("the logits", &logits)?;
        Ok(logits)
    }

    /// The encoder stack, or an error for a decoder-only model.
    pub fn encoder_stack(&self) -> Result<&Encoder> {
        self.encoder.as_ref().ok_or_else(|| input_err!("this decoder-only model has no encoder"))
    }

    /// The decoder stack, or an error for an encoder-only model.
    pub fn decoder_stack(&self) -> Result<&Decoder> {
        self.decoder.as_ref().ok_or_else(|| input_err!("this encoder-only model has no decoder"))
    }

    /// The multi-head attention of `stack` at `layer`.
    pub fn attention(&self, stack: Stack, layer: usize) -> Result<&MultiHeadAttention> {
        let found = match stack {
            Stack::Encoder => self.encoder.as_ref().and_then(|e| e.layers.get(layer)).map(|l| &l.self_attn),
            Stack::DecoderSelf => self.decoder.as_ref().and_then(|d| d.layers.get(layer)).map(|l| &l.self_attn),
            Stack::DecoderCross => {
                self.decoder.as_ref().and_then(|d| d.layers.get(layer)).and_then(|l| l.cross.as_ref()).map(|c| &c.attn)
            }
        };
        found.ok_or_else(|| input_err!("this model has no {} attention at layer {layer}", stack.id()))
    }

    /// A source for a model with an encoder, a target for one with a decoder, nothing else.
    fn check_sides(&self, src: &[u32], tgt: &[u32]) -> Result<()> {
        if self.encoder.is_none() && !src.is_empty() {
            return Err(input_err!("this decoder-only model reads no source: give the text as the target"));
        }
        if self.decoder.is_none() && !tgt.is_empty() {
            return Err(input_err!("this encoder-only model reads no target: give the text as the source"));
        }
        Ok(())
    }

    /// The memory this model's decoder reads: `(S >= 1, d_model)` for an encoder-decoder, none
    /// for a decoder-only model.
    fn check_memory<'a>(&self, encoder: Option<&'a EncoderTrace>) -> Result<Option<&'a DMatrix<f32>>> {
        match (self.config.architecture, encoder) {
            (Architecture::EncoderDecoder, Some(e)) => {
                let memory = &e.memory;
                if memory.nrows() == 0 || memory.ncols() != self.config.d_model {
                    return Err(input_err!(
                        "the memory is {:?}; this model needs (S >= 1, d_model = {})",
                        memory.shape(),
                        self.config.d_model
                    ));
                }
                Ok(Some(&memory.0))
            }
            (Architecture::EncoderDecoder, None) => {
                Err(input_err!("this encoder-decoder model needs the encoder's memory"))
            }
            _ => Ok(None),
        }
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
