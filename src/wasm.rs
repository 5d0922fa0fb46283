//! The JavaScript API: the only module that knows about the web.
//!
//! One [`Lab`] handle owns a loaded model in wasm memory, the current sentence, run options and
//! Q/K edits; JavaScript sets these and asks for a run. Results cross as plain JS objects built
//! by `serde-wasm-bindgen`, in which every matrix is `{rows, cols, data: Float32Array}` (row-major)
//! rather than nested arrays. Every export returns `Result<_, JsError>`: the page shows the message.
//!
//! [`Lab::run`] and [`Lab::run_encoder`] are incremental (see [`crate::incremental`]): after a
//! Q/K edit, only the stages from the edited sublayer on are recomputed, and the JS objects of
//! the unchanged stages are the very objects an earlier result returned (treat every result as
//! read-only). `trace.decoder.logits` and `.probs` of `run()` and `translate()`, `(T, V)` each
//! and the largest part of a run, are computed when first read (enumerable getters;
//! `JSON.stringify` and spreading read them as usual). A frame of a drag asks for less: given a
//! matrix maker, `run` and `runEncoder` leave the values of every matrix in wasm memory until
//! the page reads them with [`Lab::matrix`] (see [`Lab::run`]; `www/js/engine.js` makes such
//! matrices). `runEncoder(maker, layer)` stops after that layer and says which later layers it
//! left as they were (`staleFrom`), so that a large model's drag can paint the dragged layer
//! within the frame and catch up over the next ones. A loop that keeps only its newest trace
//! can hand the last one's memory back ([`Lab::recycle_trace`]) instead of having the browser
//! allocate a new trace's worth every run.
//!
//! ```js
//! import init, { Lab } from "./pkg/attnscope.js";
//! await init();
//! const lab = new Lab(new Uint8Array(await (await fetch("models/en-ko.safetensors")).arrayBuffer()));
//! lab.setSource("Emma hates games, but she's a great friend");
//! const { text, steps, trace } = lab.translate();   // greedy decoding + the full trace
//! lab.setBlock("encoder", 0, 1, "q", edited);         // a W_Q block, (d_k, d_model) row-major
//! const trace2 = lab.run();                           // same sentence, edited weights
//! const frame = lab.run((rows, cols, key) => ({ rows, cols, key })); // values left in wasm:
//! lab.matrix(frame.trace.encoder.memory.key);         // Float32Array, until a run replaces it
//! lab.runEncoder(maker, 0).staleFrom;                 // 1: layer 0 redone, the rest as before
//! lab.recycleTrace(); lab.run();                      // into trace2's memory (trace2 now reads it)
//! lab.setOptions({ knockOut: ["e1h2", "c2h3"] });     // heads whose output becomes zeros
//! const { heads, delta, ranking } = lab.headImportance(); // each head knocked out alone
//! const vw = lab.valueWeighted("decoder_cross", 1);   // per head: ||w_ij v_j W_O^(h)||
//! const { encoder, decoder_self, cross } = lab.rollout(); // attention rollout, per layer
//!
//! // any family: info() says what the model is and has
//! const bert = new Lab(bertBytes);                     // encoder-only (BERT, MiniLM)
//! const { architecture, sites, output, text } = bert.info(); // "encoder_only", [{id: "encoder", ...}], "masked_token", "source"
//! bert.setSource("the [MASK] sat on the mat");
//! bert.run().trace.encoder.probs;                      // (S, V), made when read
//! bert.fill(5);                                        // [{position, candidates: [{token, prob}]}]
//! const gpt = new Lab(gptBytes);                       // decoder-only (GPT-2): the text is the decoder's input
//! gpt.setSource("Once upon a time");
//! gpt.generate(20);                                    // {text, tokens, steps, trace}, like translate()
//! ```
//!
//! The analyses ([`Lab::head_importance`], [`Lab::value_weighted`], [`Lab::rollout`]; see
//! [`crate::analysis`]) are computed only when called, from the current run, so a frame of a
//! W_Q/W_K drag never pays for them.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use js_sys::{Array, Function, Object, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::analysis::{head_importance, staged_rollout, value_weighted_heads};
use crate::attention::softmax_rows;
use crate::config::{HeadRef, Matrix, Override, RunOptions, Stack};
use crate::decode::{greedy_body, top_k, Passed, Step};
use crate::incremental::{Session, Staged, StagedDecoder, StagedEncoder};
use crate::tokenizer::{split_words, Encoded};
use crate::trace::{AttentionTrace, EmbeddingTrace, EncoderLayerTrace, FfnTrace, Mat, Residual, Trace};
use crate::vectors::WordVectors;
use crate::Model;

/// Install the panic hook once, when the module starts.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A [`Mat`] crosses to JavaScript as `{rows, cols, data: Float32Array}` (row-major), or, while
/// [`Lab::run`] converts a stage for a frame, as whatever the page's matrix maker makes of
/// `(rows, cols, key)` (see `Framing`). Otherwise its `data` is a view of the one
/// `Float32Array` that holds every matrix of that [`to_js`] conversion (see `Batch`): every
/// conversion goes through [`to_js`].
impl Serialize for Mat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        if let Some(made) = FRAMING.with(|f| f.borrow_mut().as_mut().map(|f| f.make(self))) {
            return Preserved(made.map_err(S::Error::custom)?).serialize(s);
        }
        let made = BATCH.with(|b| {
            let mut b = b.borrow_mut();
            b.active.then(|| b.add(self))
        });
        let made = made.ok_or_else(|| S::Error::custom("a matrix crosses to JavaScript only inside to_js"))?;
        Preserved(made.map_err(|e| S::Error::custom(alloc::format!("{e:?}")))?).serialize(s)
    }
}

/// The matrices of one [`to_js`] conversion, copied out together: their row-major values end
/// to end in wasm memory, then one `Float32Array` of them all, each matrix's `data` a view of
/// its part. A fresh JS buffer costs far more than the copy into it (its memory is new to
/// the process), and one large one costs less than hundreds of small ones: a third less for
/// MiniLM's 128-token trace in Chromium.
struct Batch {
    /// Inside a [`to_js`] (the outermost one owns the batch).
    active: bool,
    /// Every matrix's values so far, row-major, end to end: the first `used` (the rest is room
    /// kept from earlier batches).
    values: Vec<f32>,
    used: usize,
    /// Each matrix's JS object, and where its values start.
    parts: Vec<(Object, usize)>,
    /// The buffer the last [`Batch::finish`] filled (whole, not only the part used), for the
    /// [`Slot`] that shows it to keep: what [`Lab::recycle_trace`] hands back.
    made: Option<js_sys::Float32Array>,
    /// Buffers of traces handed back by [`Lab::recycle_trace`], for the next batches to fill
    /// instead of new ones; emptied when the run that follows ends.
    pool: Vec<js_sys::Float32Array>,
}

impl Batch {
    /// `{rows, cols}` for `m`, its values appended; `data` comes in [`Batch::finish`].
    fn add(&mut self, m: &Mat) -> Result<JsValue, JsValue> {
        let (start, end) = (self.used, self.used + m.len());
        if self.values.len() < end {
            self.values.resize(end, 0.0); // zeroed once, when the batch outgrows every earlier one
        }
        m.write_row_major(&mut self.values[start..end]);
        self.used = end;
        let o = Object::new();
        KEYS.with(|[rows, cols, _]| {
            Reflect::set(&o, rows, &JsValue::from(m.nrows() as u32))?;
            Reflect::set(&o, cols, &JsValue::from(m.ncols() as u32))
        })?;
        self.parts.push((o.clone(), start));
        Ok(o.into())
    }

    /// One `Float32Array` of every value, each object's `data` its part of it: the smallest
    /// recycled buffer that holds them, else a new one. The batch is empty and inactive after,
    /// whatever happens.
    fn finish(&mut self) -> Result<(), JsValue> {
        self.active = false;
        let parts = core::mem::take(&mut self.parts);
        let end = core::mem::take(&mut self.used);
        let fits = (end > 0).then(|| {
            let fit = self.pool.iter().enumerate().filter(|(_, b)| b.length() as usize >= end);
            fit.min_by_key(|(_, b)| b.length()).map(|(i, _)| i)
        });
        let (buffer, all) = match fits.flatten() {
            Some(i) => {
                let buffer = self.pool.swap_remove(i);
                let all = buffer.subarray(0, end as u32);
                all.copy_from(&self.values[..end]);
                (buffer, all)
            }
            None => {
                let all = js_sys::Float32Array::from(&self.values[..end]);
                (all.clone(), all)
            }
        };
        self.made = (end > 0).then_some(buffer);
        KEYS.with(|[_, _, data]| {
            for (i, (o, start)) in parts.iter().enumerate() {
                let stop = parts.get(i + 1).map_or(end, |p| p.1);
                Reflect::set(o, data, &all.subarray(*start as u32, stop as u32))?;
            }
            Ok(())
        })
    }
}

struct Preserved(JsValue);
impl Serialize for Preserved {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde_wasm_bindgen::preserve::serialize(&self.0, s)
    }
}

/// `None` crosses as `null` (not `undefined`), so that every field is present. The matrices
/// inside share one buffer (`Batch`), unless a frame's maker makes them.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let ser = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true).serialize_missing_as_null(true);
    let outer = BATCH.with(|b| !core::mem::replace(&mut b.borrow_mut().active, true));
    if !outer {
        return Ok(value.serialize(&ser)?);
    }
    let js = value.serialize(&ser);
    BATCH.with(|b| b.borrow_mut().finish()).map_err(js_err)?;
    Ok(js?)
}

fn err(e: crate::Error) -> JsError {
    JsError::new(&alloc::format!("{e}"))
}

/// Options a page sets; every field optional (missing = unchanged).
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct OptionsIn {
    heads: Option<usize>,
    scale: Option<bool>,
    causal_decoder: Option<bool>,
    causal_encoder: Option<bool>,
    positional: Option<bool>,
    /// Heads written `e1h2`, `s2h1`, `c2h3` (1-based); replaces the knocked-out set.
    knock_out: Option<Vec<String>>,
    /// The training switches ([`RunOptions::residual`], [`RunOptions::layer_norm`]).
    residual: Option<bool>,
    layer_norm: Option<bool>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Info {
    /// `encoder_decoder`, `encoder_only` or `decoder_only`.
    architecture: crate::config::Architecture,
    /// The attention sites, as data: `[{stack, id, letter, label, layers, heads, rows, cols,
    /// causal}]` (see [`crate::config::Site`]).
    sites: Vec<crate::config::Site>,
    /// What the model's head gives: `translation`, `next_token`, `masked_token` or `none`.
    output: &'static str,
    /// The token sequence the reader's text becomes: `source` (a model with an encoder) or
    /// `target` (a decoder-only model).
    text: crate::config::Sequence,
    d_model: usize,
    nhead: usize,
    encoder_layers: usize,
    decoder_layers: usize,
    dim_feedforward: usize,
    max_len: usize,
    positional: crate::Positional,
    norm_first: bool,
    /// LayerNorm's epsilon: `(x - mean) / sqrt(var + eps)`.
    layer_norm_eps: f32,
    head_choices: Vec<usize>,
    /// The SIMD instructions this build of the engine uses: `"relaxed-simd"` (simd128 and
    /// fused multiply-add), `"simd128"` or `"none"`.
    simd: &'static str,
}

#[derive(Serialize)]
struct Source<'a> {
    tokens: &'a [String],
    ids: &'a [u32],
    unknown: &'a [usize],
    /// Tokens dropped because the sentence was longer than `max_len`.
    dropped: usize,
}

#[derive(Serialize)]
struct Candidate<'a> {
    token: &'a str,
    prob: f32,
}

#[derive(Serialize)]
struct StepOut<'a> {
    token: &'a str,
    /// The chosen token's probability.
    prob: f32,
    /// The most probable token when it was passed over, else `null`.
    blocked: Option<&'a str>,
    /// Why: `"repeat"` (it would repeat, [`Passed::Repeat`]) or `"copied"` (an `<unk>` with no
    /// unknown word left to copy, [`Passed::NothingToCopy`]); `null` when `blocked` is.
    #[serde(rename = "blockedWhy")]
    blocked_why: Option<&'static str>,
    top: Vec<Candidate<'a>>,
    cross: &'a [Mat],
    /// A generated `<unk>` copies a source word: `{source, weight, word}`, else `null`.
    copy: Option<CopyOut<'a>>,
    /// Where `text` prints this step's token: UTF-16 offsets, `text.slice(start, end)`; `null`
    /// for a token that prints nothing (`<eos>`). A glue token whose jamo composed with the
    /// syllable before it (하 + ㄴ -> 한) covers that syllable too, so spans may overlap.
    start: Option<usize>,
    end: Option<usize>,
}

#[derive(Serialize)]
struct CopyOut<'a> {
    /// Index into the source tokens.
    source: usize,
    /// Mean cross-attention weight (last decoder layer) on it at this step.
    weight: f32,
    /// The source token, as tokenised.
    word: &'a str,
    /// Where `text` prints it: UTF-16 offsets (JavaScript string indices), `text.slice(start, end)`.
    start: usize,
    end: usize,
}

/// A greedy decoding for JavaScript: [`Lab::translate`]'s (`D` = [`crate::decoder::DecoderBody`]) or
/// [`Lab::generate`]'s.
#[derive(Serialize)]
struct Decoded<'a, D: Serialize> {
    /// The translation, or a decoder-only model's continuation.
    text: String,
    /// Generated tokens, `<eos>` included when produced.
    tokens: Vec<&'a str>,
    /// The decoder input of the trace: `<bos>` (or the prompt) + every generated token but the
    /// last.
    decoder_tokens: Vec<&'a str>,
    finished: bool,
    steps: Vec<StepOut<'a>>,
    trace: &'a Trace<D>,
}

/// One mask of [`Lab::fill`].
#[derive(Serialize)]
struct MaskOut<'a> {
    position: usize,
    candidates: Vec<Candidate<'a>>,
}

/// How many next-token candidates each decoding step reports.
const TOP_K: usize = 5;

/// The attention lab: a model plus the current sentence, options and Q/K edits.
#[wasm_bindgen]
pub struct Lab {
    model: Rc<Model>,
    source: Encoded,
    dropped: usize,
    /// Decoder input for [`Lab::run`]: `<bos>` + the translation but its last token.
    target: Vec<u32>,
    /// The last [`Lab::translate`]'s tokens (`<eos>` included when produced), for
    /// [`Lab::head_importance`]; empty until a translation.
    translation: Vec<u32>,
    opts: RunOptions,
    /// The last run's stages, reused where the next run's inputs did not change.
    session: RefCell<Session>,
    /// The JavaScript objects of those stages.
    shown: RefCell<Shown>,
}

#[wasm_bindgen]
impl Lab {
    /// Load a model file (the bytes of a `.safetensors` file).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<Lab, JsError> {
        let model = Model::from_safetensors(bytes).map_err(err)?;
        // an encoder-decoder's decoder starts from <bos>; a decoder-only model reads the text
        let target = if model.encoder.is_some() && model.decoder.is_some() {
            alloc::vec![model.tokenizer.bos]
        } else {
            Vec::new()
        };
        Ok(Lab {
            session: RefCell::new(Session::new()),
            shown: RefCell::new(Shown::default()),
            model: Rc::new(model),
            source: Encoded { tokens: Vec::new(), ids: Vec::new(), unknown: Vec::new() },
            dropped: 0,
            target,
            translation: Vec::new(),
            opts: RunOptions::default(),
        })
    }

    /// The model's shape and the head counts a run may use.
    pub fn info(&self) -> Result<JsValue, JsError> {
        let c = &self.model.config;
        let arch = c.architecture;
        let output = match (arch, c.head, &self.model.mlm) {
            (crate::config::Architecture::EncoderDecoder, _, _) => "translation",
            (crate::config::Architecture::DecoderOnly, crate::config::Head::Lm, _) => "next_token",
            (crate::config::Architecture::EncoderOnly, _, Some(_)) => "masked_token",
            _ => "none",
        };
        let text = if arch.has_encoder() { crate::config::Sequence::Source } else { crate::config::Sequence::Target };
        let info = to_js(&Info {
            architecture: arch,
            sites: c.sites(),
            output,
            text,
            d_model: c.d_model,
            nhead: c.nhead,
            encoder_layers: c.num_encoder_layers,
            decoder_layers: c.num_decoder_layers,
            dim_feedforward: c.dim_feedforward,
            max_len: c.max_len,
            positional: c.positional,
            norm_first: c.norm_first,
            layer_norm_eps: c.layer_norm_eps,
            head_choices: c.head_choices(),
            simd: if cfg!(target_feature = "relaxed-simd") {
                "relaxed-simd"
            } else if cfg!(target_feature = "simd128") {
                "simd128"
            } else {
                "none"
            },
        })?;
        // `srcVocab`, the words of the reader's text (the source's; a decoder-only model's
        // target): one JSON text parsed by the browser (thousands of strings crossing one at a
        // time took tens of milliseconds at start)
        let vocab = if arch.has_encoder() { &c.src_vocab } else { &c.tgt_vocab };
        let words = serde_json::to_string(vocab).map_err(|e| JsError::new(&alloc::format!("{e}")))?;
        let vocab = js_sys::JSON::parse(&words).map_err(js_err)?;
        Reflect::set(&info, &JsValue::from_str("srcVocab"), &vocab).map_err(js_err)?;
        Ok(info)
    }

    /// Tokenise a new sentence: the source of a model with an encoder, the decoder's input
    /// of a decoder-only model (`info().text` says which); longer than `max_len` tokens is
    /// truncated and reported in `dropped`. Returns `{tokens, ids, unknown, dropped}`.
    #[wasm_bindgen(js_name = setSource)]
    pub fn set_source(&mut self, text: &str) -> Result<JsValue, JsError> {
        let mut enc = self.encode_text(text).map_err(err)?;
        let max = self.model.config.max_len;
        let dropped = enc.tokens.len().saturating_sub(max);
        enc.tokens.truncate(max);
        enc.ids.truncate(max);
        enc.unknown.retain(|&i| i < max);
        self.dropped = dropped;
        self.translation.clear();
        if self.model.encoder.is_some() {
            self.source = enc;
            self.target.truncate(usize::from(self.model.decoder.is_some()));
        } else {
            self.target = enc.ids.clone();
            self.source = enc;
        }
        to_js(&Source { tokens: &self.source.tokens, ids: &self.source.ids, unknown: &self.source.unknown, dropped })
    }

    /// Tokenise `text` with the model's tokenizer without changing the lab's sentence:
    /// `{tokens, ids, unknown}` (positions of the words outside the source vocabulary), for
    /// marking unknown words while the reader types. Empty text gives no tokens (not an error).
    pub fn tokenize(&self, text: &str) -> Result<JsValue, JsError> {
        let enc =
            self.encode_text(text).unwrap_or(Encoded { tokens: Vec::new(), ids: Vec::new(), unknown: Vec::new() });
        to_js(&Source { tokens: &enc.tokens, ids: &enc.ids, unknown: &enc.unknown, dropped: 0 })
    }

    /// Change run options: `{heads, scale, causalDecoder, causalEncoder, positional,
    /// knockOut, residual, layerNorm}`, each optional. `knockOut` is the whole set of knocked-out heads, written
    /// `"e1h2"` (encoder layer 1 head 2), `"s2h1"` (decoder self-attention), `"c2h3"`
    /// (cross-attention), counted from 1; `[]` restores every head. A knocked-out head's output
    /// is replaced by zeros before `out_proj`; translate() and run() honour it, and its heads in
    /// the trace carry `knocked_out: true`. A head count other than the one in force clears the
    /// Q/K edits (their blocks change shape) and the knock-outs (unless `knockOut` is given with
    /// it). Nothing changes
    /// when any option is invalid.
    #[wasm_bindgen(js_name = setOptions)]
    pub fn set_options(&mut self, options: JsValue) -> Result<(), JsError> {
        let o: OptionsIn = serde_wasm_bindgen::from_value(options)?;
        let mut next = self.opts.clone();
        if let Some(h) = o.heads {
            // the count in force (the model's nhead until one is set): setting it again keeps the edits
            if Some(h) != next.heads_for(&self.model.config).ok() {
                next.overrides.clear();
                next.knock_out.clear();
            }
            next.heads = Some(h);
        }
        next.scale = o.scale.unwrap_or(next.scale);
        next.causal_decoder = o.causal_decoder.unwrap_or(next.causal_decoder);
        next.causal_encoder = o.causal_encoder.unwrap_or(next.causal_encoder);
        next.positional = o.positional.unwrap_or(next.positional);
        next.residual = o.residual.unwrap_or(next.residual);
        next.layer_norm = o.layer_norm.unwrap_or(next.layer_norm);
        if let Some(heads) = o.knock_out {
            next.knock_out = heads.iter().map(|t| HeadRef::parse(t)).collect::<crate::Result<_>>().map_err(err)?;
        }
        next.validate(&self.model.config).map_err(err)?;
        self.opts = next;
        Ok(())
    }

    /// The knocked-out heads in force, as `["e1h2", ...]` (sorted: encoder, decoder
    /// self-attention, cross-attention; by layer, then head).
    #[wasm_bindgen(js_name = knockedOut)]
    pub fn knocked_out(&self) -> Result<JsValue, JsError> {
        let mut heads = self.opts.knock_out.clone();
        heads.sort_unstable(); // equal names are the same head
        heads.dedup();
        let names: Vec<String> = heads.iter().map(|k| alloc::format!("{k}")).collect();
        to_js(&names)
    }

    /// The current `(d_k, d_model)` block of `W_Q` (`matrix = "q"`) or `W_K` (`"k"`) of one head
    /// of one attention (`stack = "encoder" | "decoder_self" | "decoder_cross"`): the edit if
    /// there is one, else the trained weights.
    pub fn block(&self, stack: &str, layer: usize, head: usize, matrix: &str) -> Result<JsValue, JsError> {
        let (stack, matrix) = parse_names(stack, matrix)?;
        if let Some(o) = self.find(stack, layer, head, matrix) {
            return to_js(&o.block);
        }
        let h = self.opts.heads_for(&self.model.config).map_err(err)?;
        if head >= h {
            return Err(JsError::new(&alloc::format!("head {head} does not exist with {h} heads")));
        }
        let attn = self.model.attention(stack, layer).map_err(err)?;
        to_js(&Mat(attn.block(matrix, head, self.model.config.d_model / h)))
    }

    /// Replace a `W_Q`/`W_K` block for the following runs; `values` is `(d_k, d_model)` row-major.
    #[wasm_bindgen(js_name = setBlock)]
    pub fn set_block(
        &mut self,
        stack: &str,
        layer: usize,
        head: usize,
        matrix: &str,
        values: &[f32],
    ) -> Result<(), JsError> {
        let (stack, matrix) = parse_names(stack, matrix)?;
        let d = self.model.config.d_model;
        let d_k = d / self.opts.heads_for(&self.model.config).map_err(err)?;
        if values.len() != d_k * d {
            return Err(JsError::new(&alloc::format!(
                "a block has {d_k} x {d} = {} values, got {}",
                d_k * d,
                values.len()
            )));
        }
        let edit = Override { stack, layer, head, matrix, block: Mat::from_rows(d_k, d, values) };
        let mut next = self.opts.clone();
        next.overrides.retain(|o| !(o.stack == stack && o.layer == layer && o.head == head && o.matrix == matrix));
        next.overrides.push(edit);
        next.validate(&self.model.config).map_err(err)?;
        self.opts = next;
        Ok(())
    }

    /// Drop every Q/K edit (back to the trained weights).
    #[wasm_bindgen(js_name = resetBlocks)]
    pub fn reset_blocks(&mut self) -> Result<(), JsError> {
        self.opts.overrides.clear();
        Ok(())
    }

    /// Number of Q/K edits in force.
    #[wasm_bindgen(js_name = editCount)]
    pub fn edit_count(&self) -> Result<usize, JsError> {
        Ok(self.opts.overrides.len())
    }

    /// Greedy translation of the current source with the current options and edits. Returns
    /// `{text, tokens, decoder_tokens, finished, steps: [{token, prob, top: [{token, prob}], cross,
    /// copy, start, end}], trace}` (`trace.decoder.logits` and `.probs` made when first read, as in
    /// [`Lab::run`]) and makes its decoder input the one [`Lab::run`] uses. A step that
    /// generated `<unk>` has `copy: {source, weight, word, start, end}` (the source token
    /// cross-attention copies; `text.slice(start, end)` is where `text` prints it in place of
    /// `<unk>`), every other step `copy: null`.
    pub fn translate(&mut self) -> Result<JsValue, JsError> {
        self.need_source()?;
        if self.model.config.architecture != crate::config::Architecture::EncoderDecoder {
            return Err(JsError::new("translate needs an encoder-decoder model"));
        }
        // the final pass without its generator: the (T, V) logits are made if JavaScript reads them
        let dec = greedy_body(&self.model, &self.source.ids, &self.opts, self.model.config.max_len).map_err(err)?;
        let body = dec.trace.decoder().map_err(err)?;
        self.target = body.embed.ids.clone();
        self.translation = dec.tokens.clone();
        let tok = &self.model.tokenizer;
        let src = &self.source.tokens;
        let (text, spans) = dec.text_spans(tok, src);
        // byte offsets -> UTF-16 offsets, the indices of a JavaScript string
        let utf16 = |byte: usize| text[..byte].encode_utf16().count();
        let steps = dec
            .steps
            .iter()
            .zip(&spans)
            .map(|(s, span)| step_out(&self.model, s, src, span.as_ref().map(|r| (utf16(r.start), utf16(r.end)))))
            .collect();
        let out = to_js(&Decoded {
            text,
            tokens: dec.tokens.iter().map(|&t| tok.tgt_token(t)).collect(),
            decoder_tokens: self.target.iter().map(|&t| tok.tgt_token(t)).collect(),
            finished: dec.tokens.last() == Some(&tok.eos),
            steps,
            trace: &dec.trace,
        })?;
        // the trace's (T, V) logits and probabilities: getters, as in `run()`
        let decoder = Reflect::get(
            &Reflect::get(&out, &JsValue::from_str("trace")).map_err(js_err)?,
            &JsValue::from_str("decoder"),
        )
        .map_err(js_err)?;
        let output = dec.trace.decoder.map(|d| d.output).ok_or_else(|| JsError::new("no decoder output"))?;
        Generated::attach(&decoder, Rc::clone(&self.model), Head::Generator(Rc::new(output)))?;
        Ok(out)
    }

    /// Continue the text with a decoder-only model, greedily, for at most `steps` tokens (the
    /// repeat rule of [`crate::decode`]). Returns `{text, tokens, decoder_tokens, finished,
    /// steps: [{token, prob, blocked, top: [{token, prob}]}], trace}` like [`Lab::translate`]
    /// (`text` is the continuation), and makes the prompt and every generated token but the
    /// last the decoder input [`Lab::run`] uses.
    pub fn generate(&mut self, steps: usize) -> Result<JsValue, JsError> {
        self.need_source()?;
        let prompt = self.source.ids.clone();
        let dec = crate::decode::generate(&self.model, &prompt, &self.opts, steps).map_err(err)?;
        self.target = dec.trace.decoder().map_err(err)?.embed.ids.clone();
        let tok = &self.model.tokenizer;
        let steps_out = dec.steps.iter().map(|s| step_out(&self.model, s, &[], None)).collect();
        to_js(&Decoded {
            text: tok.detokenize(&dec.tokens),
            tokens: dec.tokens.iter().map(|&t| tok.tgt_token(t)).collect(),
            decoder_tokens: self.target.iter().map(|&t| tok.tgt_token(t)).collect(),
            finished: dec.tokens.last() == Some(&tok.eos),
            steps: steps_out,
            trace: &dec.trace,
        })
    }

    /// The masked-language model's guesses for every mask token of the current source:
    /// `[{position, candidates: [{token, prob}]}]` (its `k` most probable tokens, most probable
    /// first), from the current run (options, edits and knock-outs in force).
    pub fn fill(&self, k: usize) -> Result<JsValue, JsError> {
        let mask = self.model.tokenizer.mask().ok_or_else(|| JsError::new("this model has no mask token"))?;
        let positions: Vec<usize> = (0..self.source.ids.len()).filter(|&i| self.source.ids[i] == mask).collect();
        let staged = self.staged()?;
        let encoder = staged.encoder.as_ref().ok_or_else(|| JsError::new("this model has no encoder"))?;
        let logits = encoder
            .logits(&self.model)
            .map_err(err)?
            .ok_or_else(|| JsError::new("this model has no masked-LM head"))?;
        let vocab = &self.model.config.src_vocab;
        let masks: Vec<MaskOut> = crate::fill::predict(&logits, &positions, k)
            .into_iter()
            .map(|m| MaskOut {
                position: m.position,
                candidates: m
                    .candidates
                    .iter()
                    .map(|&(id, prob)| Candidate { token: vocab.get(id as usize).map_or("?", String::as_str), prob })
                    .collect(),
            })
            .collect();
        to_js(&masks)
    }

    /// One forward pass over the current source and decoder input (from the last
    /// [`Lab::translate`]) with the current options and edits: `{decoder_tokens, trace}`.
    /// Incremental: only the stages whose inputs changed since the last run are recomputed,
    /// and unchanged stages come back as the same JS objects; `trace.decoder.logits` and
    /// `.probs` are computed when first read (see the module docs).
    ///
    /// With `matrix`, a function `(rows, cols, key) => object`, the run is a frame: each matrix
    /// of a recomputed stage is what `matrix` makes, its values left in wasm memory until
    /// [`Lab::matrix`]`(key)` copies them out (the page's maker does that on the first read of
    /// `data`). A key reads only while its stage is current: a later run that recomputes the
    /// stage makes it an error. Without `matrix` every matrix holds its copy, readable forever.
    pub fn run(&self, matrix: Option<Function>) -> Result<JsValue, JsError> {
        let out = self.run_now(matrix);
        BATCH.with(|b| b.borrow_mut().pool.clear()); // recycled buffers this run did not need
        out
    }

    /// Hand back the memory of every trace this lab's runs returned so far: the next
    /// [`Lab::run`] or [`Lab::run_encoder`] without a maker writes its matrices into those
    /// buffers, overwriting them, instead of asking the browser for new memory (a fresh buffer
    /// costs several times the copy into it: for MiniLM's 128-token trace, about 26 MB, some
    /// 25 ms against 4 ms in Chromium). Call it when the earlier traces are no longer read, as
    /// a loop that runs every frame would; the next run converts every stage afresh (none
    /// comes back as an earlier run's object) and a trace read after it shows the new values.
    #[wasm_bindgen(js_name = recycleTrace)]
    pub fn recycle_trace(&self) {
        self.shown.borrow_mut().recycle();
    }

    /// The values of a frame's matrix (see [`Lab::run`]), row-major, while its stage is current.
    pub fn matrix(&self, key: f64) -> Result<js_sys::Float32Array, JsError> {
        let shown = self.shown.borrow();
        let found = (key >= 0.0 && key.fract() == 0.0).then(|| shown.matrix(key as u64)).flatten();
        let m = found.ok_or_else(|| {
            JsError::new("this matrix belongs to an earlier run (a frame's matrices read only until the next run recomputes them)")
        })?;
        Ok(js_sys::Float32Array::from(m.row_major().as_slice()))
    }

    /// Make token ids the source and the decoder input, as [`Lab::set_source`] and
    /// [`Lab::translate`] would (source tokens are the vocabulary's words): for benchmarks and
    /// checks that must feed the engine exactly these ids. Starts the incremental session
    /// afresh, so that the next [`Lab::run`] computes (and converts) everything.
    #[wasm_bindgen(js_name = setIds)]
    pub fn set_ids(&mut self, src: &[u32], tgt: &[u32]) -> Result<(), JsError> {
        let c = &self.model.config;
        let sides = [
            ("source", src, c.src_vocab.len(), c.architecture.has_encoder()),
            ("target", tgt, c.tgt_vocab.len(), c.architecture.has_decoder()),
        ];
        for (side, ids, vocab, has) in sides {
            if !has && !ids.is_empty() {
                return Err(JsError::new(&alloc::format!("this model reads no {side}: give no {side} ids")));
            }
            if has && (ids.is_empty() || ids.len() > c.max_len || ids.iter().any(|&id| id as usize >= vocab)) {
                return Err(JsError::new(&alloc::format!("{side} ids: give 1..={} ids below {vocab}", c.max_len)));
            }
        }
        let vocab = if c.architecture.has_encoder() { &c.src_vocab } else { &c.tgt_vocab };
        let text = if c.architecture.has_encoder() { src } else { tgt };
        let tokens = text.iter().map(|&id| vocab[id as usize].clone()).collect();
        self.source = Encoded { tokens, ids: text.to_vec(), unknown: Vec::new() };
        self.dropped = 0;
        self.target = tgt.to_vec();
        self.translation.clear();
        *self.session.borrow_mut() = Session::new();
        self.shown.borrow_mut().restart();
        Ok(())
    }

    /// The bare forward pass: source ids `(S)` and decoder input ids `(T)` -> logits `(T, V)`
    /// row-major, with the current options and edits, and nothing else crossing to JavaScript.
    pub fn logits(&self, src: &[u32], tgt: &[u32]) -> Result<js_sys::Float32Array, JsError> {
        let logits = self.model.logits(src, tgt, &self.opts).map_err(err)?;
        Ok(js_sys::Float32Array::from(logits.as_slice()))
    }

    /// The encoder alone over the current source with the current options and edits:
    /// `{heads, encoder}` (the `trace.encoder` of [`Lab::run`]). For redrawing encoder
    /// attention while an encoder W_Q/W_K cell is dragged, without running the decoder.
    /// Incremental like [`Lab::run`], and a frame like it when given `matrix`.
    ///
    /// With `through` (a 0-based layer), no layer after it is recomputed: where one would need
    /// it, that layer, every later one and the memory are the last run's, and `staleFrom`
    /// names the first of them (else `null`); a later run catches up (see
    /// [`crate::incremental::Session::encode_through`]). So a drag of a large model's first
    /// layer can paint that layer within the frame and the layers after it in the next frames.
    #[wasm_bindgen(js_name = runEncoder)]
    pub fn run_encoder(&self, matrix: Option<Function>, through: Option<u32>) -> Result<JsValue, JsError> {
        self.need_source()?;
        let heads = self.opts.heads_for(&self.model.config).map_err(err)?;
        self.model.encoder_stack().map_err(err)?;
        let mut session = self.session.borrow_mut();
        let (ids, opts) = (&self.source.ids, &self.opts);
        let encoder = match through {
            Some(last) => session.encode_through(&self.model, ids, opts, last as usize),
            None => session.encode(&self.model, ids, opts),
        };
        let encoder = encoder.map_err(err)?;
        let stale_from = encoder.stale_from.map_or(JsValue::NULL, |l| JsValue::from(l as u32));
        let shown = self.shown.borrow_mut().encoder(&encoder, &self.model, matrix.as_ref());
        BATCH.with(|b| b.borrow_mut().pool.clear());
        obj(&[("heads", heads.into()), ("encoder", shown?), ("staleFrom", stale_from)])
    }

    /// Which heads the current translation depends on (see [`crate::analysis::head_importance`]):
    /// for every head, `log p(translation | source)` teacher-forced with that head knocked out
    /// on top of the current options, against the same without it. One forward pass per head.
    /// Needs a [`Lab::translate`] since the last `setSource`. Returns `{base, heads: ["e1h1",
    /// ...], log_prob: Float32Array, delta: Float32Array, ranking: Uint32Array}`: `heads` lists
    /// every head (encoder layers, decoder self-attention layers, cross-attention layers; heads
    /// in order within a layer), `log_prob[i]` and `delta[i] = log_prob[i] - base` belong to
    /// `heads[i]` (negative: the translation is less likely without it; 0 for a head already
    /// knocked out), and `ranking` holds indices into `heads`, the largest drop first.
    #[wasm_bindgen(js_name = headImportance)]
    pub fn head_importance(&self) -> Result<JsValue, JsError> {
        self.need_source()?;
        // an encoder-decoder's translation given its source; a decoder-only model's text
        let (src, sequence): (&[u32], &[u32]) = match self.model.config.architecture {
            crate::config::Architecture::DecoderOnly => (&[], &self.target),
            _ => (&self.source.ids, &self.translation),
        };
        if sequence.is_empty() {
            return Err(JsError::new("no translation yet: call translate first"));
        }
        let imp = head_importance(&self.model, src, sequence, &self.opts).map_err(err)?;
        let names: Vec<String> = imp.heads.iter().map(|h| alloc::format!("{}", h.head)).collect();
        let log_prob: Vec<f32> = imp.heads.iter().map(|h| h.log_prob).collect();
        let delta: Vec<f32> = imp.heads.iter().map(|h| h.delta).collect();
        let ranking: Vec<u32> = imp.ranking.iter().map(|&i| i as u32).collect();
        obj(&[
            ("base", imp.base.into()),
            ("heads", to_js(&names)?),
            ("log_prob", js_sys::Float32Array::from(log_prob.as_slice()).into()),
            ("delta", js_sys::Float32Array::from(delta.as_slice()).into()),
            ("ranking", js_sys::Uint32Array::from(ranking.as_slice()).into()),
        ])
    }

    /// Value-weighted attention (Kobayashi et al. 2020; see [`crate::analysis::value_weighted`])
    /// of every head of one attention (`stack = "encoder" | "decoder_self" | "decoder_cross"`,
    /// `layer` from 0) in the current run ([`Lab::run`]'s sentence, decoder input, options):
    /// `[{value_norms: (1, T_k), norms: (T_q, T_k), normalized: (T_q, T_k)}]`, one per head, each
    /// a `{rows, cols, data: Float32Array}`. `value_norms[j] = ||v_j W_O^(h)||`, `norms[i][j] =
    /// weight[i][j] * value_norms[j]`, `normalized` = `norms` with rows summing to 1; all zeros
    /// for a knocked-out head. Computed on call only (reuses the run's stages).
    #[wasm_bindgen(js_name = valueWeighted)]
    pub fn value_weighted(&self, stack: &str, layer: usize) -> Result<JsValue, JsError> {
        let stack = parse_stack(stack)?;
        let mha = self.model.attention(stack, layer).map_err(err)?;
        let staged = self.staged()?;
        let attn = staged.attention(stack, layer).ok_or_else(|| JsError::new("no such layer"))?;
        to_js(&value_weighted_heads(attn, mha))
    }

    /// Attention rollout (Abnar & Zuidema 2020; the decoder's path through cross-attention
    /// into the source words is documented in [`crate::analysis`]) of the current run:
    /// `{encoder: [(S, S)], decoder_self: [(T, T)], cross: [(T, S)]}`, one matrix per layer,
    /// cumulative (the last is the whole stack). Encoder rows sum to 1; a decoder row of
    /// `decoder_self` and the same row of `cross` sum to 1 together. Knocked-out heads are left
    /// out of the head means. Computed on call only (reuses the run's stages).
    pub fn rollout(&self) -> Result<JsValue, JsError> {
        to_js(&staged_rollout(&self.staged()?))
    }

    /// Gradient x input of the current run (see [`crate::analysis::saliency`]): for every
    /// output position, its most probable token (the decoder's next token; an encoder-only
    /// model's masked-LM guess) and how much `log p` of that token changes with each input
    /// token's embedding: `{source: (R, S), target: (R, T), tokens: [R strings]}`, the sides the
    /// model has. One backward pass per position: computed on call only.
    pub fn saliency(&self) -> Result<JsValue, JsError> {
        self.need_source()?;
        let src: &[u32] = if self.model.encoder.is_some() { &self.source.ids } else { &[] };
        let tgt: &[u32] = if self.model.decoder.is_some() { &self.target } else { &[] };
        let logits = self.model.logits(src, tgt, &self.opts).map_err(err)?; // (R, V) row-major
        let vocab = self.model.config.output_vocab();
        let v = vocab.len();
        let labels: Vec<i64> = logits
            .chunks_exact(v.max(1))
            .map(|row| (0..v).max_by(|&a, &b| row[a].total_cmp(&row[b])).unwrap_or(0) as i64)
            .collect();
        let sal = crate::analysis::saliency(&self.model, src, tgt, &labels, &self.opts).map_err(err)?;
        #[derive(Serialize)]
        struct Out {
            #[serde(skip_serializing_if = "Option::is_none")]
            source: Option<Mat>,
            #[serde(skip_serializing_if = "Option::is_none")]
            target: Option<Mat>,
            tokens: Vec<String>,
        }
        let tokens = labels.iter().map(|&l| vocab[l as usize].clone()).collect();
        to_js(&Out { source: sal.source, target: sal.target, tokens })
    }
}

impl Lab {
    /// [`Lab::run`]'s pass and conversion.
    fn run_now(&self, matrix: Option<Function>) -> Result<JsValue, JsError> {
        let staged = self.staged()?;
        let mut shown = self.shown.borrow_mut();
        let make = matrix.as_ref();
        let mut fields = alloc::vec![("heads", JsValue::from(staged.heads))];
        if let Some(encoder) = &staged.encoder {
            fields.push(("encoder", shown.encoder(encoder, &self.model, make)?));
        }
        if let Some(decoder) = &staged.decoder {
            fields.push(("decoder", shown.decoder(decoder, &self.model, make)?));
        }
        let trace = obj(&fields)?;
        let tok = &self.model.tokenizer;
        let tokens: Vec<&str> = self.target.iter().map(|&t| tok.tgt_token(t)).collect();
        obj(&[("decoder_tokens", to_js(&tokens)?), ("trace", trace)])
    }

    /// The current run's stages (incremental: nothing is recomputed when nothing changed).
    fn staged(&self) -> Result<Staged, JsError> {
        self.need_source()?;
        let src: &[u32] = if self.model.encoder.is_some() { &self.source.ids } else { &[] };
        self.session.borrow_mut().run(&self.model, src, &self.target, &self.opts).map_err(err)
    }

    /// The reader's text in tokens: the source of a model with an encoder, else the target.
    fn encode_text(&self, text: &str) -> crate::Result<Encoded> {
        match self.model.encoder {
            Some(_) => self.model.tokenizer.encode_src(text),
            None => self.model.tokenizer.encode_tgt(text),
        }
    }

    fn need_source(&self) -> Result<(), JsError> {
        if self.source.ids.is_empty() {
            return Err(JsError::new("no sentence yet: call setSource first"));
        }
        Ok(())
    }

    fn find(&self, stack: Stack, layer: usize, head: usize, matrix: Matrix) -> Option<&Override> {
        self.opts
            .overrides
            .iter()
            .find(|o| o.stack == stack && o.layer == layer && o.head == head && o.matrix == matrix)
    }
}

/// One step for JavaScript; `span` = where the translation text prints this step's token.
fn step_out<'a>(model: &'a Model, s: &'a Step, src: &'a [String], span: Option<(usize, usize)>) -> StepOut<'a> {
    let top = top_k(&s.probs, TOP_K)
        .iter()
        .map(|&i| Candidate { token: model.tokenizer.tgt_token(i as u32), prob: s.probs[i] })
        .collect();
    let copy = s.copy.and_then(|c| {
        let (start, end) = span?;
        Some(CopyOut { source: c.source, weight: c.weight, word: src.get(c.source)?, start, end })
    });
    StepOut {
        token: model.tokenizer.tgt_token(s.token),
        prob: s.probs[s.token as usize],
        blocked: s.blocked.map(|b| model.tokenizer.tgt_token(b.token)),
        blocked_why: s.blocked.map(|b| match b.why {
            Passed::Repeat => "repeat",
            Passed::NothingToCopy => "copied",
        }),
        top,
        cross: &s.cross,
        copy,
        start: span.map(|(start, _)| start),
        end: span.map(|(_, end)| end),
    }
}

fn parse_names(stack: &str, matrix: &str) -> Result<(Stack, Matrix), JsError> {
    let stack = parse_stack(stack)?;
    let matrix = match matrix {
        "q" => Matrix::Q,
        "k" => Matrix::K,
        other => return Err(JsError::new(&alloc::format!("unknown matrix {other:?}: use q or k"))),
    };
    Ok((stack, matrix))
}

fn parse_stack(stack: &str) -> Result<Stack, JsError> {
    Ok(match stack {
        "encoder" => Stack::Encoder,
        "decoder_self" => Stack::DecoderSelf,
        "decoder_cross" => Stack::DecoderCross,
        other => {
            return Err(JsError::new(&alloc::format!(
                "unknown stack {other:?}: use encoder, decoder_self or decoder_cross"
            )))
        }
    })
}

/// A plain JS object with these properties, in this order.
fn obj(fields: &[(&str, JsValue)]) -> Result<JsValue, JsError> {
    let o = Object::new();
    for (key, value) in fields {
        Reflect::set(&o, &JsValue::from_str(key), value).map_err(js_err)?;
    }
    Ok(o.into())
}

fn js_err(e: JsValue) -> JsError {
    JsError::new(&e.as_string().unwrap_or_else(|| String::from("a JavaScript call failed")))
}

/// A frame's matrices ([`Lab::run`] given a matrix maker): while a stage is converted, each
/// [`Mat`] becomes `make(rows, cols, key)` instead of a copy, and its address is kept, so that
/// [`Lab::matrix`] can copy the values out when the page first reads them. A frame of a W_Q/W_K
/// drag then copies only what it draws: at 64 tokens the whole trace is about 2.5 MB, and a new
/// `Float32Array` costs the browser about as much per byte as the forward pass itself.
struct Framing {
    make: Function,
    /// The key of the stage's first matrix; the next ones count on from it.
    first: u64,
    mats: Vec<*const Mat>,
}

impl Framing {
    fn make(&mut self, m: &Mat) -> Result<JsValue, String> {
        let key = self.first + self.mats.len() as u64;
        self.mats.push(m);
        let (rows, cols) = (m.nrows() as f64, m.ncols() as f64);
        self.make
            .call3(&JsValue::UNDEFINED, &rows.into(), &cols.into(), &(key as f64).into())
            .map_err(|e| e.as_string().unwrap_or_else(|| String::from("the matrix maker failed")))
    }
}

std::thread_local! {
    /// Set only while [`Slot::get`] converts a stage for a frame (serde gives a
    /// [`Serialize`] impl no other way to reach it).
    static FRAMING: RefCell<Option<Framing>> = const { RefCell::new(None) };
    /// Set only inside [`to_js`] (its matrices' values, copied out together).
    /// A batched matrix's keys, made once (a new JS string per use cost more than the copy of a
    /// small matrix).
    static KEYS: [JsValue; 3] = ["rows", "cols", "data"].map(JsValue::from_str);
    static BATCH: RefCell<Batch> = const {
        RefCell::new(Batch { active: false, values: Vec::new(), used: 0, parts: Vec::new(), made: None, pool: Vec::new() })
    };
}

/// One stage's JS object, kept while the stage is the same `Rc` (the session reused it).
struct Slot<T> {
    /// The stage, its JS object, and whether that object holds copies (else frame matrices).
    shown: Option<(Rc<T>, JsValue, bool)>,
    /// The keys of the stage's frame matrices: `first + i` is `mats[i]`, an address inside the
    /// stage `shown` holds. Dropped with that stage.
    keys: Option<(u64, Vec<*const Mat>)>,
    /// The buffer of the copies `shown` holds (see `Batch`), for [`Lab::recycle_trace`].
    buffer: Option<js_sys::Float32Array>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot { shown: None, keys: None, buffer: None }
    }
}

impl<T: Serialize> Slot<T> {
    /// The stage's JS object: copies (`make` = None), or frame matrices made by `make`, keyed
    /// from `next_key` on. An object of copies serves a frame too.
    fn get(&mut self, stage: &Rc<T>, make: Option<&Function>, next_key: &mut u64) -> Result<JsValue, JsError> {
        if let Some((seen, js, copied)) = &self.shown {
            if Rc::ptr_eq(seen, stage) {
                if *copied || make.is_some() {
                    return Ok(js.clone());
                }
            } else {
                self.keys = None; // the matrices they name are about to go
            }
        }
        let js = match make {
            None => {
                let js = to_js(&**stage)?;
                self.buffer = BATCH.with(|b| b.borrow_mut().made.take());
                js
            }
            Some(make) => {
                let framing = Framing { make: make.clone(), first: *next_key, mats: Vec::new() };
                FRAMING.with(|f| *f.borrow_mut() = Some(framing));
                let js = to_js(&**stage);
                let framing = FRAMING.with(|f| f.borrow_mut().take()).ok_or_else(|| JsError::new("framing lost"))?;
                let js = js?;
                *next_key += framing.mats.len() as u64;
                self.keys = Some((framing.first, framing.mats));
                self.buffer = None;
                js
            }
        };
        self.shown = Some((Rc::clone(stage), js.clone(), make.is_none()));
        Ok(js)
    }

    /// The frame matrix with this key, if it belongs to this slot's current stage.
    fn matrix(&self, key: u64) -> Option<&Mat> {
        let (first, mats) = self.keys.as_ref()?;
        let ptr = *mats.get(usize::try_from(key.checked_sub(*first)?).ok()?)?;
        // SAFETY: `ptr` was taken from `&Mat` inside the stage `self.shown` holds an `Rc` of
        // (the keys are dropped before that `Rc` is replaced). A stage is never mutated while
        // shared, so the matrix is alive and unchanged for as long as `&self` is borrowed.
        Some(unsafe { &*ptr })
    }
}

/// The JS objects of the last results' stages, so that a run converts only recomputed stages,
/// and the whole `encoder` / `decoder` objects when every stage in them is unchanged (with
/// whether those objects hold copies).
#[derive(Default)]
struct Shown {
    /// The next frame matrix's key: never reused by a [`Lab`], so a stale key cannot name
    /// another matrix.
    next_key: u64,
    enc_embed: Slot<EmbeddingTrace>,
    enc_layers: Vec<Slot<EncoderLayerTrace>>,
    memory: Slot<Mat>,
    encoder: Option<(StagedEncoder, JsValue, bool)>,
    dec_embed: Slot<EmbeddingTrace>,
    dec_layers: Vec<[Slot<Residual<AttentionTrace>>; 2]>,
    dec_ffn: Vec<Slot<Residual<FfnTrace>>>,
    output: Slot<Mat>,
    decoder: Option<(StagedDecoder, JsValue, bool)>,
}

impl Shown {
    /// Forget every stage (the keys go on counting).
    fn restart(&mut self) {
        *self = Shown { next_key: self.next_key, ..Shown::default() };
    }

    /// Forget every stage, and give the buffers of their copies to the next conversions.
    fn recycle(&mut self) {
        let slots = (self.enc_layers.iter_mut().map(|s| &mut s.buffer))
            .chain(self.dec_layers.iter_mut().flatten().map(|s| &mut s.buffer))
            .chain(self.dec_ffn.iter_mut().map(|s| &mut s.buffer))
            .chain([
                &mut self.enc_embed.buffer,
                &mut self.memory.buffer,
                &mut self.dec_embed.buffer,
                &mut self.output.buffer,
            ]);
        let buffers: Vec<_> = slots.filter_map(Option::take).collect();
        BATCH.with(|b| b.borrow_mut().pool.extend(buffers));
        self.restart();
    }

    /// The frame matrix with this key, while its stage is the current one.
    fn matrix(&self, key: u64) -> Option<&Mat> {
        self.enc_embed
            .matrix(key)
            .or_else(|| self.enc_layers.iter().find_map(|s| s.matrix(key)))
            .or_else(|| self.memory.matrix(key))
            .or_else(|| self.dec_embed.matrix(key))
            .or_else(|| self.dec_layers.iter().flatten().find_map(|s| s.matrix(key)))
            .or_else(|| self.dec_ffn.iter().find_map(|s| s.matrix(key)))
            .or_else(|| self.output.matrix(key))
    }

    /// `{embed, layers, memory}`, as `EncoderTrace` serialises; for a masked-language model
    /// also `logits` and `probs` `(S, V)`, getters that run its head on first read.
    fn encoder(&mut self, enc: &StagedEncoder, model: &Rc<Model>, make: Option<&Function>) -> Result<JsValue, JsError> {
        if let Some((seen, js, copied)) = &self.encoder {
            let same = Rc::ptr_eq(&seen.embed, &enc.embed)
                && Rc::ptr_eq(&seen.memory, &enc.memory)
                && seen.layers.len() == enc.layers.len()
                && seen.layers.iter().zip(&enc.layers).all(|(a, b)| Rc::ptr_eq(a, b));
            if same && (*copied || make.is_some()) {
                return Ok(js.clone());
            }
        }
        let key = &mut self.next_key;
        self.enc_layers.resize_with(enc.layers.len(), Slot::default);
        let layers = Array::new();
        for (slot, layer) in self.enc_layers.iter_mut().zip(&enc.layers) {
            layers.push(&slot.get(layer, make, key)?);
        }
        let js = obj(&[
            ("embed", self.enc_embed.get(&enc.embed, make, key)?),
            ("layers", layers.into()),
            ("memory", self.memory.get(&enc.memory, make, key)?),
        ])?;
        if model.mlm.is_some() {
            Generated::attach(&js, Rc::clone(model), Head::Mlm(Rc::clone(&enc.memory)))?;
        }
        self.encoder = Some((enc.clone(), js.clone(), make.is_none()));
        Ok(js)
    }

    /// `{embed, layers, output, logits, probs}`, as `DecoderTrace` serialises, with `logits`
    /// and `probs` as getters that run the generator on first read ([`Generated`]).
    fn decoder(&mut self, dec: &StagedDecoder, model: &Rc<Model>, make: Option<&Function>) -> Result<JsValue, JsError> {
        if let Some((seen, js, copied)) = &self.decoder {
            let same = Rc::ptr_eq(&seen.embed, &dec.embed)
                && Rc::ptr_eq(&seen.output, &dec.output)
                && seen.layers.len() == dec.layers.len()
                && seen.layers.iter().zip(&dec.layers).all(|(a, b)| {
                    Rc::ptr_eq(&a.self_attn, &b.self_attn)
                        && match (&a.cross_attn, &b.cross_attn) {
                            (Some(x), Some(y)) => Rc::ptr_eq(x, y),
                            (None, None) => true,
                            _ => false,
                        }
                        && Rc::ptr_eq(&a.ffn, &b.ffn)
                });
            if same && (*copied || make.is_some()) {
                return Ok(js.clone());
            }
        }
        let key = &mut self.next_key;
        self.dec_layers.resize_with(dec.layers.len(), Default::default);
        self.dec_ffn.resize_with(dec.layers.len(), Slot::default);
        let layers = Array::new();
        for ((slots, ffn), layer) in self.dec_layers.iter_mut().zip(self.dec_ffn.iter_mut()).zip(&dec.layers) {
            let mut fields = alloc::vec![("self_attn", slots[0].get(&layer.self_attn, make, key)?)];
            if let Some(cross) = &layer.cross_attn {
                fields.push(("cross_attn", slots[1].get(cross, make, key)?));
            }
            fields.push(("ffn", ffn.get(&layer.ffn, make, key)?));
            layers.push(&obj(&fields)?);
        }
        let js = obj(&[
            ("embed", self.dec_embed.get(&dec.embed, make, key)?),
            ("layers", layers.into()),
            ("output", self.output.get(&dec.output, make, key)?),
        ])?;
        if model.decoder_stack().map_err(err)?.generator.is_some() {
            Generated::attach(&js, Rc::clone(model), Head::Generator(Rc::clone(&dec.output)))?;
        }
        self.decoder = Some((dec.clone(), js.clone(), make.is_none()));
        Ok(js)
    }
}

/// The generator's output of one [`Lab::run`] or [`Lab::translate`], made into JavaScript
/// matrices when JavaScript first reads `trace.decoder.logits` or `trace.decoder.probs` (the
/// getters call these methods), then kept: a frame that only draws attention, or a page that
/// only shows a translation's steps, never pays for the `(T, V)` copies. Not meant to be called
/// directly.
#[wasm_bindgen]
pub struct Generated {
    model: Rc<Model>,
    state: Generation,
}

/// The head a [`Generated`] runs, and the vectors it runs on.
enum Head {
    /// The generator over the decoder output `(T, d_model)`.
    Generator(Rc<Mat>),
    /// The masked-LM head over the encoder's memory `(S, d_model)`.
    Mlm(Rc<Mat>),
}

/// Where a [`Generated`] stands.
enum Generation {
    /// Not read yet: the head and the vectors it will run on.
    Pending(Head),
    /// `{rows, cols, data}` of the logits and of the probabilities (they live on in JavaScript).
    Made(JsValue, JsValue),
}

impl Generated {
    /// Defines `logits` and `probs` on the JS object `decoder` as enumerable getters over a new
    /// `Generated`.
    fn attach(decoder: &JsValue, model: Rc<Model>, head: Head) -> Result<(), JsError> {
        let generated: JsValue = Generated { model, state: Generation::Pending(head) }.into();
        for name in ["logits", "probs"] {
            let method: Function = Reflect::get(&generated, &JsValue::from_str(name))
                .map_err(js_err)?
                .dyn_into()
                .map_err(|_| JsError::new("Generated has no method"))?;
            let descriptor = obj(&[
                ("get", method.bind0(&generated).into()),
                ("enumerable", JsValue::TRUE),
                ("configurable", JsValue::TRUE),
            ])?;
            Object::define_property(
                decoder.unchecked_ref::<Object>(),
                &JsValue::from_str(name),
                descriptor.unchecked_ref::<Object>(),
            );
        }
        Ok(())
    }
}

#[wasm_bindgen]
impl Generated {
    /// `trace.decoder.logits`, `(T, V)`.
    pub fn logits(&mut self) -> Result<JsValue, JsError> {
        Ok(self.make()?.0)
    }

    /// `trace.decoder.probs`: `softmax(logits)` by row, `(T, V)`.
    pub fn probs(&mut self) -> Result<JsValue, JsError> {
        Ok(self.make()?.1)
    }

    fn make(&mut self) -> Result<(JsValue, JsValue), JsError> {
        if let Generation::Pending(head) = &self.state {
            // an error (overflowing logits) leaves it pending: a later read says so again
            let logits = match head {
                Head::Generator(output) => self.model.generate(output).map_err(err)?, // (T, d_model) -> (T, V)
                Head::Mlm(memory) => {
                    let mlm = self.model.mlm.as_ref().ok_or_else(|| JsError::new("no masked-LM head"))?;
                    let logits = Mat(mlm.forward(memory)); // (S, d_model) -> (S, V)
                    crate::model::finite("the logits", &logits).map_err(err)?;
                    logits
                }
            };
            let probs = Mat(softmax_rows(&logits)); // (T, V), rows sum to 1
            self.state = Generation::Made(to_js(&logits)?, to_js(&probs)?);
        }
        match &self.state {
            Generation::Made(logits, probs) => Ok((logits.clone(), probs.clone())),
            Generation::Pending(_) => Err(JsError::new("the logits were not made")),
        }
    }
}

/// Real English word vectors (GloVe) for the lessons that start from raw word vectors, and
/// for suggesting in-vocabulary neighbours of a word the model does not know.
#[wasm_bindgen]
pub struct Words {
    table: WordVectors,
    /// The words [`Words::nearest`] chooses from (see [`Words::set_candidates`]).
    candidates: Vec<String>,
}

#[derive(Serialize)]
struct WordsOut {
    tokens: Vec<String>,
    /// `(n, dim)`; rows of unknown words are zeros.
    vectors: Mat,
    unknown: Vec<usize>,
}

#[wasm_bindgen]
impl Words {
    /// Load a vectors file.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<Words, JsError> {
        Ok(Words { table: WordVectors::from_safetensors(bytes).map_err(err)?, candidates: Vec::new() })
    }

    /// Split `text` like the translator does and look every token up:
    /// `{tokens, vectors: (n, dim), unknown}`.
    pub fn lookup(&self, text: &str) -> Result<JsValue, JsError> {
        let tokens = split_words(text, true, true);
        if tokens.is_empty() {
            return Err(JsError::new("the sentence is empty"));
        }
        let (rows, unknown) = self.table.lookup(&tokens);
        let flat: Vec<f32> = rows.concat();
        to_js(&WordsOut { vectors: Mat::from_rows(tokens.len(), self.table.dim, &flat), tokens, unknown })
    }

    /// Like [`Words::lookup`], plus the vectors projected onto their two principal axes:
    /// `{tokens, vectors: (n, dim), unknown, points: (n, 2), axes: (2, dim)}`.
    pub fn project(&self, text: &str) -> Result<JsValue, JsError> {
        let tokens = split_words(text, true, true);
        if tokens.is_empty() {
            return Err(JsError::new("the sentence is empty"));
        }
        let (rows, unknown) = self.table.lookup(&tokens);
        let vectors = Mat::from_rows(tokens.len(), self.table.dim, &rows.concat());
        let (points, axes) = crate::vectors::pca2(&vectors);
        to_js(&Projected { tokens, vectors, unknown, points: Mat(points), axes: Mat(axes) })
    }

    /// Vector width.
    pub fn dim(&self) -> Result<usize, JsError> {
        Ok(self.table.dim)
    }

    /// The words [`Words::nearest`] may suggest (e.g. a model's source vocabulary, from
    /// `Lab.info().srcVocab`): an array of strings, set once. Returns how many have a vector.
    #[wasm_bindgen(js_name = setCandidates)]
    pub fn set_candidates(&mut self, words: JsValue) -> Result<usize, JsError> {
        let words: Vec<String> = serde_wasm_bindgen::from_value(words)
            .map_err(|e| JsError::new(&alloc::format!("setCandidates needs an array of strings: {e}")))?;
        let with_vectors = words.iter().filter(|w| self.table.get(w).is_some()).count();
        self.candidates = words;
        Ok(with_vectors)
    }

    /// The `k` candidates nearest to `word` by cosine of their GloVe vectors, best first:
    /// `[{word, cosine}]`. Empty when `word` has no vector (or no candidate has one); `word`
    /// itself is never suggested. `word` is looked up as given (GloVe is lowercase).
    pub fn nearest(&self, word: &str, k: usize) -> Result<JsValue, JsError> {
        to_js(&self.table.nearest(word, &self.candidates, k))
    }

    /// Whether `word` has a vector.
    pub fn has(&self, word: &str) -> Result<bool, JsError> {
        Ok(self.table.get(word).is_some())
    }
}

#[derive(Serialize)]
struct Projected {
    tokens: Vec<String>,
    vectors: Mat,
    unknown: Vec<usize>,
    points: Mat,
    axes: Mat,
}

fn matrix(name: &str, data: &[f32], rows: usize, cols: usize) -> Result<Mat, JsError> {
    if rows == 0 || cols == 0 || data.len() != rows * cols {
        return Err(JsError::new(&alloc::format!(
            "{name}: {} values do not make a {rows} x {cols} matrix",
            data.len()
        )));
    }
    if data.iter().any(|v| !v.is_finite()) {
        return Err(JsError::new(&alloc::format!("{name} holds a value that is not a finite number")));
    }
    Ok(Mat::from_rows(rows, cols, data))
}

/// Single-head self-attention on raw vectors (the lessons before the trained model):
/// `x` `(n, d)`, `w_q` and `w_k` `(d_k, d)`, values = `x`. Returns the head's trace
/// `{q, k, v, scores, logits, weights, output}`.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub fn attend(
    x: &[f32],
    n: usize,
    d: usize,
    w_q: &[f32],
    w_k: &[f32],
    d_k: usize,
    scale: bool,
    causal: bool,
) -> Result<JsValue, JsError> {
    let x = matrix("x", x, n, d)?;
    let w_q = matrix("W_Q", w_q, d_k, d)?;
    let w_k = matrix("W_K", w_k, d_k, d)?;
    to_js(&crate::attention::self_attention(&x, &w_q, &w_k, scale, causal))
}

/// The gradient through [`attend`]'s head (see [`crate::attention::scaled_dot_product_backward`]):
/// the same inputs and `d_output` `(n, d)` row-major, the gradient of a loss with respect to the
/// head's output. Returns `{weights, scores, q, k, v}`, each the loss's gradient with respect to
/// that tensor (`scores` before scaling and masking).
#[wasm_bindgen(js_name = attendBackward)]
#[allow(clippy::too_many_arguments)]
pub fn attend_backward(
    x: &[f32],
    n: usize,
    d: usize,
    w_q: &[f32],
    w_k: &[f32],
    d_k: usize,
    scale: bool,
    causal: bool,
    d_output: &[f32],
) -> Result<JsValue, JsError> {
    let x = matrix("x", x, n, d)?;
    let (w_q, w_k) = (matrix("W_Q", w_q, d_k, d)?, matrix("W_K", w_k, d_k, d)?);
    let head = crate::attention::self_attention(&x, &w_q, &w_k, scale, causal);
    let d_output = matrix("d_output", d_output, n, d)?;
    let g = crate::attention::scaled_dot_product_backward(&head, &d_output, scale);
    #[derive(Serialize)]
    struct Out {
        weights: Mat,
        scores: Mat,
        q: Mat,
        k: Mat,
        v: Mat,
    }
    to_js(&Out { weights: g.weights, scores: g.scores, q: Mat(g.q), k: Mat(g.k), v: Mat(g.v) })
}

/// Kernel smoothing of 1-D data at `x0`: `{logits, weights, value}` (see `weighted_average`).
#[wasm_bindgen(js_name = kernelSmooth)]
pub fn kernel_smooth(xs: &[f32], ys: &[f32], x0: f32, width: f32) -> Result<JsValue, JsError> {
    if xs.is_empty() || xs.len() != ys.len() || !(width.is_finite() && width > 0.0) || !x0.is_finite() {
        return Err(JsError::new("kernelSmooth needs as many xs as ys, a finite x0 and a positive width"));
    }
    to_js(&crate::weighted_average::kernel_smooth(xs, ys, x0, width))
}

/// The sinusoidal positional-encoding table `(n, d)` (paper section 3.5), for drawing.
#[wasm_bindgen(js_name = sinusoidalTable)]
pub fn sinusoidal_table(n: usize, d: usize) -> Result<JsValue, JsError> {
    if n == 0 || d == 0 || n > 4096 || d > 4096 {
        return Err(JsError::new("sinusoidalTable: n and d must be in 1..=4096"));
    }
    to_js(&Mat(crate::positional::sinusoidal(n, d)))
}

/// What a training run is made from (every field optional; the defaults are the
/// playground's: reverse, length 8, 8 symbols, 1 layer, 2 heads, d_model 32, Adam at 3e-3,
/// batch 16, seed 1, scaling, residuals and LayerNorms on).
#[derive(Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
struct SetupIn {
    task: String,
    length: usize,
    symbols: usize,
    layers: usize,
    heads: usize,
    d_model: usize,
    /// `adam` or `sgd`.
    optimizer: String,
    /// f64 here (f32 in the optimiser) so that 3e-3 reaches JavaScript as 0.003
    lr: f64,
    batch: usize,
    seed: u32,
    scale: bool,
    residual: bool,
    layer_norm: bool,
}

impl Default for SetupIn {
    fn default() -> Self {
        SetupIn {
            task: String::from("reverse"),
            length: 8,
            symbols: 8,
            layers: 1,
            heads: 2,
            d_model: 32,
            optimizer: String::from("adam"),
            lr: 3e-3,
            batch: 16,
            seed: 1,
            scale: true,
            residual: true,
            layer_norm: true,
        }
    }
}

/// One step's report for JavaScript.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TrainingStep {
    step: usize,
    loss: f32,
    accuracy: f32,
    /// `[{layer: "encoder 1", norm}, ...]`
    grad_norms: Vec<LayerGradNorm>,
    saturated: f32,
}

#[derive(Serialize)]
struct LayerGradNorm {
    layer: String,
    norm: f32,
}

/// A tiny encoder-decoder trained from scratch in wasm memory (see [`crate::training`]): the
/// training playground runs it in a Web Worker.
///
/// ```js
/// const t = new Trainer({ task: "reverse", length: 8, layers: 1, heads: 2, dModel: 32 });
/// const reports = t.train(10);          // ten steps: [{step, loss, accuracy, gradNorms, saturated}]
/// t.evaluate(64, 99);                   // held-out teacher-forced token accuracy
/// const lab = new Lab(t.file());        // the model as it is now, in the lab's panels
/// const { source, target } = t.example(7); // an example of the task (its own stream, seed 7)
/// ```
#[wasm_bindgen]
pub struct Trainer {
    inner: crate::training::Trainer,
}

#[wasm_bindgen]
impl Trainer {
    /// A fresh model for the setup (see `SetupIn`'s fields); a clear error for a bad one.
    #[wasm_bindgen(constructor)]
    pub fn new(setup: JsValue) -> Result<Trainer, JsError> {
        use crate::training::{Optimizer, Setup};
        let s: SetupIn = if setup.is_undefined() || setup.is_null() {
            SetupIn::default()
        } else {
            serde_wasm_bindgen::from_value(setup)?
        };
        let task = crate::tasks::Task::parse(&s.task).map_err(err)?;
        let optimizer = match s.optimizer.as_str() {
            "adam" => Optimizer::Adam { lr: s.lr as f32 },
            "sgd" => Optimizer::Sgd { lr: s.lr as f32 },
            other => return Err(JsError::new(&alloc::format!("unknown optimizer {other:?}: choose adam or sgd"))),
        };
        let setup = Setup {
            task: crate::tasks::TaskSpec::new(task, s.length, s.symbols).map_err(err)?,
            layers: s.layers,
            heads: s.heads,
            d_model: s.d_model,
            optimizer,
            batch: s.batch,
            seed: s.seed as u64,
            opts: RunOptions {
                scale: s.scale,
                residual: s.residual,
                layer_norm: s.layer_norm,
                ..RunOptions::default()
            },
        };
        Ok(Trainer { inner: crate::training::Trainer::new(setup).map_err(err)? })
    }

    /// `steps` training steps (1 to 10,000): each one's report, in order.
    pub fn train(&mut self, steps: usize) -> Result<JsValue, JsError> {
        if !(1..=10_000).contains(&steps) {
            return Err(JsError::new("train: give 1 to 10000 steps"));
        }
        let mut out = Vec::with_capacity(steps);
        for _ in 0..steps {
            let r = self.inner.step().map_err(err)?;
            let grad_norms = r.grad_norms.into_iter().map(|(layer, norm)| LayerGradNorm { layer, norm }).collect();
            out.push(TrainingStep {
                step: r.step,
                loss: r.loss,
                accuracy: r.accuracy,
                grad_norms,
                saturated: r.saturated,
            });
        }
        to_js(&out)
    }

    /// Teacher-forced token accuracy on `n` examples (1 to 4096) of a stream seeded by `seed`.
    pub fn evaluate(&self, n: usize, seed: u32) -> Result<f32, JsError> {
        if !(1..=4096).contains(&n) {
            return Err(JsError::new("evaluate: give 1 to 4096 examples"));
        }
        self.inner.evaluate(n, seed as u64).map_err(err)
    }

    /// The model file of the weights as they are now (open it with `new Lab(bytes)`).
    pub fn file(&self) -> Result<Vec<u8>, JsError> {
        self.inner.file().map_err(err)
    }

    /// An example of the task from a stream seeded by `seed`, apart from the training stream
    /// (showing one never changes the run): `{src, tgt, labels}` ids and `source`, `target`
    /// (the source's and the expected output's tokens, space-separated).
    pub fn example(&self, seed: u32) -> Result<JsValue, JsError> {
        let ex = self.inner.sample(seed as u64);
        let vocab = self.inner.setup.task.vocab();
        let words = |ids: &mut dyn Iterator<Item = usize>| ids.map(|i| vocab[i].as_str()).collect::<Vec<_>>().join(" ");
        let source = words(&mut ex.src.iter().map(|&i| i as usize));
        let target = words(&mut ex.tgt.iter().skip(1).map(|&i| i as usize));
        #[derive(Serialize)]
        struct Out {
            src: Vec<u32>,
            tgt: Vec<u32>,
            labels: Vec<i64>,
            source: String,
            target: String,
        }
        to_js(&Out { src: ex.src, tgt: ex.tgt, labels: ex.labels, source, target })
    }

    /// The task's right output for a typed source (its symbols separated by spaces) as text,
    /// or `null` when the words are not the task's or its rule has no answer for them.
    pub fn answer(&self, source: &str) -> Option<String> {
        let task = &self.inner.setup.task;
        let vocab = task.vocab();
        let ids: Option<Vec<u32>> = source
            .split_whitespace()
            .map(|w| vocab.iter().position(|v| v.eq_ignore_ascii_case(w)).map(|i| i as u32))
            .collect();
        let out = task.answer(&ids?)?;
        Some(out.iter().map(|&i| vocab[i as usize].as_str()).collect::<Vec<_>>().join(" "))
    }

    /// Steps taken so far.
    #[wasm_bindgen(getter)]
    pub fn step(&self) -> usize {
        self.inner.step
    }
}

/// The setup a `new Trainer({})` gets: every field of `SetupIn` at its default (the
/// playground's controls start from these).
#[wasm_bindgen(js_name = trainingDefaults)]
pub fn training_defaults() -> Result<JsValue, JsError> {
    to_js(&SetupIn::default())
}

/// The toy tasks' names, in the order the playground lists them.
#[wasm_bindgen(js_name = trainingTasks)]
pub fn training_tasks() -> Vec<String> {
    crate::tasks::Task::ALL.iter().map(|t| String::from(t.id())).collect()
}
