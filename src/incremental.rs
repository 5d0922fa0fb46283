//! Incremental forward passes: recompute only what a change changes.
//!
//! A page that lets the reader drag one cell of a `W_Q`/`W_K` block reruns the model every
//! animation frame with one thing different. A [`Session`] keeps the last run, cut into
//! stages, and on the next run recomputes a stage only when its own inputs changed or a stage
//! it reads was recomputed:
//!
//! | stage | recomputed when |
//! |---|---|
//! | encoder embeddings | the source ids, `positional`, `residual` or `layer_norm` changed |
//! | encoder layer `l` | layer `l - 1` (or the embeddings) was recomputed, or `h`, `scale`, `causal_encoder` or layer `l`'s encoder edits or knock-outs changed |
//! | memory (final norm) | any encoder layer was recomputed |
//! | decoder embeddings | the target ids, `positional`, `residual` or `layer_norm` changed |
//! | self-attention of decoder layer `l` | the sublayer before it was recomputed, or `h`, `scale`, `causal_decoder` or its edits or knock-outs changed |
//! | cross-attention of decoder layer `l` | the self-attention before it was recomputed, the memory is not the one it read, or `h`, `scale` or its edits or knock-outs changed |
//! | feed-forward of decoder layer `l`, output (final norm) | the sublayer before it was recomputed |
//!
//! An encoder-only model has only the encoder's stages, a decoder-only model only the decoder's,
//! without cross-attention.
//!
//! So a cross-attention edit in the last decoder layer reruns that sublayer, the feed-forward
//! after it and the final norm, and nothing of the encoder; so does knocking out (or restoring)
//! one of its heads. Nothing is invalidated by hand: a run compares each stage's inputs (ids,
//! options, the edits aimed at it bit for bit, the heads knocked out in it) with the
//! ones it was computed from, so any sequence of changes to the source, target, options and
//! edits is handled. Every stage is computed by the same function the full pass uses
//! ([`crate::encoder::EncoderLayer::forward`], [`crate::decoder::DecoderLayer::self_attention`],
//! ...), so an incremental run equals [`crate::Model::forward`] exactly, bit for bit
//! (`tests/incremental.rs` checks this over random sequences of changes).
//!
//! Stages are shared through [`Rc`]: a stage reused from the last run is the same `Rc` (a
//! caller that converts stages, such as the JavaScript bindings, can keep its conversion of a
//! stage while `Rc::ptr_eq` says it is unchanged). The generator's `(T, V)` logits and
//! probabilities, the largest and often unneeded part of a run, are not computed by a run:
//! [`StagedDecoder::logits`] computes them on request from the decoder output.

use alloc::rc::Rc;
use alloc::vec::Vec;
use nalgebra::DMatrix;

use crate::attention::Edits;
use crate::config::{Override, RunOptions, Stack};
use crate::encoder::edits_for;
use crate::error::input_err;
use crate::model::finite;
use crate::norm::final_norm;
use crate::trace::{
    AttentionTrace, DecoderLayerTrace, DecoderTrace, EmbeddingTrace, EncoderLayerTrace, EncoderTrace, FfnTrace, Mat,
    Residual, Trace,
};
use crate::{Model, Result};

/// The encoder's part of a run, stage by stage (the fields of [`EncoderTrace`]).
#[derive(Debug, Clone)]
pub struct StagedEncoder {
    /// Source embeddings, `(S, d_model)` each.
    pub embed: Rc<EmbeddingTrace>,
    /// One entry per encoder layer.
    pub layers: Vec<Rc<EncoderLayerTrace>>,
    /// The memory `(S, d_model)`.
    pub memory: Rc<Mat>,
    /// After [`Session::encode_through`] stopped early: the first layer that, like every layer
    /// after it and the memory, is an earlier run's, not yet recomputed for this run's inputs.
    pub stale_from: Option<usize>,
}

/// One decoder layer, sublayer by sublayer (the fields of [`DecoderLayerTrace`]).
#[derive(Debug, Clone)]
pub struct StagedDecoderLayer {
    /// Masked self-attention, `(T, T)` weights per head.
    pub self_attn: Rc<Residual<AttentionTrace>>,
    /// Cross-attention, `(T, S)` weights per head (`None` in a decoder-only model).
    pub cross_attn: Option<Rc<Residual<AttentionTrace>>>,
    /// Feed-forward.
    pub ffn: Rc<Residual<FfnTrace>>,
}

/// The decoder's part of a run up to its final norm (the generator runs on request).
#[derive(Debug, Clone)]
pub struct StagedDecoder {
    /// Target embeddings, `(T, d_model)` each.
    pub embed: Rc<EmbeddingTrace>,
    /// One entry per decoder layer.
    pub layers: Vec<StagedDecoderLayer>,
    /// Last layer output after the decoder's final LayerNorm, `(T, d_model)`.
    pub output: Rc<Mat>,
}

/// A whole run, stage by stage: [`Trace`] without the generator's `(T, V)` matrices.
#[derive(Debug, Clone)]
pub struct Staged {
    /// Heads `h` used in this run.
    pub heads: usize,
    /// The encoder (`None` in a decoder-only model).
    pub encoder: Option<StagedEncoder>,
    /// The decoder (`None` in an encoder-only model).
    pub decoder: Option<StagedDecoder>,
}

impl StagedEncoder {
    /// An encoder-only model's masked-LM logits `(S, V)` over the memory, the numbers of
    /// [`EncoderTrace::logits`] in a full pass (`None` for a model without that head). An error
    /// if they overflow `f32`.
    pub fn logits(&self, model: &Model) -> Result<Option<Mat>> {
        let Some(mlm) = &model.mlm else { return Ok(None) };
        let logits = Mat(mlm.forward(&self.memory)); // (S, d_model) -> (S, V)
        finite("the logits", &logits)?;
        Ok(Some(logits))
    }

    /// The plain [`EncoderTrace`]: a copy of every stage, plus the masked-LM logits computed now.
    pub fn to_trace(&self, model: &Model) -> Result<EncoderTrace> {
        Ok(EncoderTrace {
            embed: (*self.embed).clone(),
            layers: self.layers.iter().map(|l| (**l).clone()).collect(),
            memory: (*self.memory).clone(),
            logits: self.logits(model)?,
        })
    }
}

impl StagedDecoder {
    /// The generator over the decoder output: logits `(T, V)`, the same numbers as
    /// [`DecoderTrace::logits`] of a full pass. An error if they overflow `f32`.
    pub fn logits(&self, model: &Model) -> Result<Mat> {
        model.generate(&self.output) // (T, d_model) -> (T, V)
    }

    /// The plain [`DecoderTrace`]: a copy of every stage, plus the logits `(T, V)` computed now.
    pub fn to_trace(&self, model: &Model) -> Result<DecoderTrace> {
        let logits = match model.decoder_stack()?.generator {
            Some(_) => self.logits(model)?,
            None => Mat(DMatrix::zeros(self.output.nrows(), 0)), // a model without its head
        };
        Ok(DecoderTrace {
            embed: (*self.embed).clone(),
            layers: self
                .layers
                .iter()
                .map(|l| DecoderLayerTrace {
                    self_attn: (*l.self_attn).clone(),
                    cross_attn: l.cross_attn.as_ref().map(|c| (**c).clone()),
                    ffn: (*l.ffn).clone(),
                })
                .collect(),
            output: (*self.output).clone(),
            logits,
        })
    }
}

impl Staged {
    /// The attention `stack` of layer `layer` (its trace without the Add & Norm around it).
    pub fn attention(&self, stack: Stack, layer: usize) -> Option<&AttentionTrace> {
        match stack {
            Stack::Encoder => self.encoder.as_ref()?.layers.get(layer).map(|l| &l.self_attn.sublayer),
            Stack::DecoderSelf => self.decoder.as_ref()?.layers.get(layer).map(|l| &l.self_attn.sublayer),
            Stack::DecoderCross => Some(&self.decoder.as_ref()?.layers.get(layer)?.cross_attn.as_ref()?.sublayer),
        }
    }

    /// The plain [`Trace`], equal to [`Model::forward`]'s for the same inputs.
    pub fn to_trace(&self, model: &Model) -> Result<Trace> {
        Ok(Trace {
            heads: self.heads,
            encoder: self.encoder.as_ref().map(|e| e.to_trace(model)).transpose()?,
            decoder: self.decoder.as_ref().map(|d| d.to_trace(model)).transpose()?,
        })
    }
}

/// What a stage was computed from, besides the stage before it: ids for the embeddings, the
/// options it reads, the edits aimed at it (compared bit for bit: `-0.0` is not `0.0`) and the
/// heads knocked out in it.
#[derive(Debug, Clone, Default)]
struct Key {
    ids: Vec<u32>,
    h: usize,
    scale: bool,
    causal: bool,
    positional: bool,
    /// [`RunOptions::residual`] and [`RunOptions::layer_norm`], in the embeddings' keys: they
    /// rewire every layer after them.
    add_norm: [bool; 2],
    edits: Vec<Override>,
    /// Knocked-out heads, ascending ([`Edits::knock_out`]).
    knock_out: Vec<usize>,
    /// The memory a cross-attention read (the same `Rc`, not equal values: a stage computed
    /// from another memory is stale even when [`Session::encode`] has cached the new one since).
    memory: Option<Rc<Mat>>,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        let same_edit = |a: &Override, b: &Override| {
            (a.stack, a.layer, a.head, a.matrix) == (b.stack, b.layer, b.head, b.matrix)
                && a.block.shape() == b.block.shape()
                && a.block.iter().zip(b.block.iter()).all(|(x, y)| x.to_bits() == y.to_bits())
        };
        (&self.ids, self.h, self.scale, self.causal, self.positional, self.add_norm)
            == (&other.ids, other.h, other.scale, other.causal, other.positional, other.add_norm)
            && self.knock_out == other.knock_out
            && self.edits.len() == other.edits.len()
            && self.edits.iter().zip(&other.edits).all(|(a, b)| same_edit(a, b))
            && match (&self.memory, &other.memory) {
                (None, None) => true,
                (Some(a), Some(b)) => Rc::ptr_eq(a, b),
                _ => false,
            }
    }
}

/// A cached stage and what it was computed from.
type Slot<T> = Option<(Key, Rc<T>)>;

/// The stage in `slot` if it was computed from `key` and nothing before it was recomputed
/// (`*dirty` false); else `compute()` it, store it, and set `*dirty`.
fn stage<T>(slot: &mut Slot<T>, key: Key, dirty: &mut bool, compute: impl FnOnce() -> T) -> Rc<T> {
    if !*dirty {
        if let Some((k, value)) = slot {
            if *k == key {
                return Rc::clone(value);
            }
        }
    }
    *dirty = true;
    let value = Rc::new(compute());
    *slot = Some((key, Rc::clone(&value)));
    value
}

/// One decoder layer's cached sublayers.
#[derive(Debug, Default)]
struct DecoderSlots {
    self_attn: Slot<Residual<AttentionTrace>>,
    cross_attn: Slot<Residual<AttentionTrace>>,
    ffn: Slot<Residual<FfnTrace>>,
}

/// The last run's stages, reused by the next run where its inputs did not change (see the
/// module docs). One session serves one model: give every call the same [`Model`].
#[derive(Debug, Default)]
pub struct Session {
    enc_embed: Slot<EmbeddingTrace>,
    enc_layers: Vec<Slot<EncoderLayerTrace>>,
    memory: Slot<Mat>,
    dec_embed: Slot<EmbeddingTrace>,
    dec_layers: Vec<DecoderSlots>,
    output: Slot<Mat>,
    /// The first encoder layer an [`Session::encode_through`] left old: it and every later
    /// stage are recomputed by the next encode that reaches them, whatever their keys say.
    enc_stale_from: Option<usize>,
}

impl Session {
    /// An empty session: the first run computes everything.
    pub fn new() -> Session {
        Session::default()
    }

    /// The encoder over source ids `(S)`, reusing what the last run computed with the same
    /// inputs. Checks like [`Model::encode`]; an error leaves the session usable.
    pub fn encode(&mut self, model: &Model, src: &[u32], opts: &RunOptions) -> Result<StagedEncoder> {
        opts.validate(&model.config)?;
        self.encode_stages(model, src, opts, None)
    }

    /// [`Session::encode`] that recomputes no layer after `last` (0-based): when a layer after
    /// it would need recomputing, that layer, every later one and the memory come back as the
    /// last run's (`stale_from` names the first), and a later encode recomputes them. A page
    /// that reruns the model every frame while a cell of layer `last` is dragged can paint
    /// that layer within the frame and catch up with the rest in the frames after (raising
    /// `last` by one each time, say). Where no earlier run left a layer to show, it is
    /// computed, so the result always has every stage.
    pub fn encode_through(
        &mut self,
        model: &Model,
        src: &[u32],
        opts: &RunOptions,
        last: usize,
    ) -> Result<StagedEncoder> {
        opts.validate(&model.config)?;
        self.encode_stages(model, src, opts, Some(last))
    }

    /// [`Session::encode`] (through every layer, or through `last`) with `opts` already
    /// validated (a run validates them once).
    fn encode_stages(
        &mut self,
        model: &Model,
        src: &[u32],
        opts: &RunOptions,
        last: Option<usize>,
    ) -> Result<StagedEncoder> {
        let h = opts.heads_for(&model.config)?;
        model.check_ids("source", src, model.config.src_vocab.len())?;
        let enc = model.encoder_stack()?;
        let mut dirty = false;
        let add_norm = [opts.residual, opts.layer_norm];
        let key = Key { ids: src.to_vec(), positional: opts.positional, add_norm, ..Key::default() };
        let embed = stage(&mut self.enc_embed, key, &mut dirty, || enc.embed.forward(src, opts.positional));
        self.enc_layers.resize_with(enc.layers.len(), || None);
        let was_stale = self.enc_stale_from;
        // stop early only where every stage left unrecomputed has an earlier run's to show
        let cut = last.filter(|&last| {
            let after = self.enc_layers.get(last + 1..);
            self.memory.is_some() && after.is_some_and(|after| after.iter().all(Option::is_some))
        });
        let mut stale_from = None;
        let mut layers: Vec<Rc<EncoderLayerTrace>> = Vec::with_capacity(enc.layers.len());
        for (l, (layer, slot)) in enc.layers.iter().zip(self.enc_layers.iter_mut()).enumerate() {
            dirty |= was_stale == Some(l); // an earlier encode left this layer and the rest old
            if let (Some(last), Some((_, old))) = (cut, slot.as_ref()) {
                if l > last && (dirty || stale_from.is_some()) {
                    stale_from.get_or_insert(l);
                    layers.push(Rc::clone(old));
                    continue;
                }
            }
            let x: &DMatrix<f32> = match layers.last() {
                Some(before) => before.ffn.output(),
                None => &embed.input,
            }; // (S, d_model)
            let edits = edits_for(opts, Stack::Encoder, l);
            let key = Key { h, scale: opts.scale, causal: opts.causal_encoder, ..owned(&edits) };
            let trace = stage(slot, key, &mut dirty, || layer.forward(x, h, opts, enc.norm_first, &edits));
            layers.push(trace);
        }
        self.enc_stale_from = stale_from;
        if let (Some(_), Some((_, old))) = (stale_from, &self.memory) {
            return Ok(StagedEncoder { embed, layers, memory: Rc::clone(old), stale_from });
        }
        let last: &DMatrix<f32> = layers.last().map_or(&embed.input, |l| l.ffn.output());
        let memory = stage(&mut self.memory, Key::default(), &mut dirty, || {
            Mat(final_norm(enc.norm.as_ref(), opts, last.clone()))
        }); // (S, d_model)
        finite("the encoder memory", &memory)?;
        Ok(StagedEncoder { embed, layers, memory, stale_from: None })
    }

    /// The whole run over source ids `(S)` and decoder input ids `(T)` (a side the model lacks
    /// is empty), reusing every stage whose inputs did not change: [`Model::forward`]'s trace,
    /// stage by stage, without the generator (see [`StagedDecoder::logits`]). Checks like
    /// [`Model::forward`], except that the overflow check looks at the decoder output instead of
    /// the logits.
    pub fn run(&mut self, model: &Model, src: &[u32], tgt: &[u32], opts: &RunOptions) -> Result<Staged> {
        let h = opts.heads_for(&model.config)?;
        opts.validate(&model.config)?;
        if model.encoder.is_none() && !src.is_empty() {
            return Err(input_err!("this decoder-only model reads no source"));
        }
        if model.decoder.is_none() && !tgt.is_empty() {
            return Err(input_err!("this encoder-only model reads no target"));
        }
        let encoder = match model.encoder {
            Some(_) => Some(self.encode_stages(model, src, opts, None)?),
            None => None,
        };
        let decoder = match model.decoder {
            Some(_) => Some(self.decode(model, tgt, encoder.as_ref().map(|e| &e.memory), opts)?),
            None => None,
        };
        Ok(Staged { heads: h, encoder, decoder })
    }

    /// The decoder's stages over target ids `(T)` and, for an encoder-decoder, the memory.
    fn decode(
        &mut self,
        model: &Model,
        tgt: &[u32],
        memory: Option<&Rc<Mat>>,
        opts: &RunOptions,
    ) -> Result<StagedDecoder> {
        let h = opts.heads_for(&model.config)?;
        model.check_ids("target", tgt, model.config.tgt_vocab.len())?;
        let dec = model.decoder_stack()?;
        let nf = dec.norm_first;
        let mut dirty = false;
        let add_norm = [opts.residual, opts.layer_norm];
        let key = Key { ids: tgt.to_vec(), positional: opts.positional, add_norm, ..Key::default() };
        let embed = stage(&mut self.dec_embed, key, &mut dirty, || dec.embed.forward(tgt, opts.positional));
        self.dec_layers.resize_with(dec.layers.len(), DecoderSlots::default);
        let mut layers: Vec<StagedDecoderLayer> = Vec::with_capacity(dec.layers.len());
        for (l, (layer, slots)) in dec.layers.iter().zip(self.dec_layers.iter_mut()).enumerate() {
            let y: &DMatrix<f32> = match layers.last() {
                Some(before) => before.ffn.output(),
                None => &embed.input,
            }; // (T, d_model)
            let edits = edits_for(opts, Stack::DecoderSelf, l);
            let key = Key { h, scale: opts.scale, causal: opts.causal_decoder, ..owned(&edits) };
            let self_attn =
                stage(&mut slots.self_attn, key, &mut dirty, || layer.self_attention(y, h, opts, nf, &edits));
            let cross_attn = match (&layer.cross, memory) {
                (Some(cross), Some(memory)) => {
                    let edits = edits_for(opts, Stack::DecoderCross, l);
                    let key = Key { h, scale: opts.scale, memory: Some(Rc::clone(memory)), ..owned(&edits) };
                    Some(stage(&mut slots.cross_attn, key, &mut dirty, || {
                        cross.forward(self_attn.output(), &memory.0, h, opts, nf, &edits)
                    }))
                }
                (None, None) => None,
                _ => return Err(input_err!("the decoder's cross-attention and the memory do not match")),
            };
            let input = cross_attn.as_ref().map_or(&*self_attn, |c| &**c).output();
            let ffn = stage(&mut slots.ffn, Key::default(), &mut dirty, || layer.feed_forward(input, opts, nf));
            layers.push(StagedDecoderLayer { self_attn, cross_attn, ffn });
        }
        let y: &DMatrix<f32> = layers.last().map_or(&embed.input, |l| l.ffn.output()); // (T, d_model)
        let output =
            stage(&mut self.output, Key::default(), &mut dirty, || Mat(final_norm(dec.norm.as_ref(), opts, y.clone()))); // (T, d_model)
        finite("the decoder output", &output)?;
        Ok(StagedDecoder { embed, layers, output })
    }
}

/// A key holding `edits` (owned) and nothing else.
fn owned(edits: &Edits) -> Key {
    let overrides = edits.overrides.iter().map(|&o| o.clone()).collect();
    Key { edits: overrides, knock_out: edits.knock_out.clone(), ..Key::default() }
}
