//! Greedy generation: start from `<bos>`, run the decoder on the prefix, append the most
//! probable next token, repeat until `<eos>` or the length limit, keeping every step.
//!
//! One rule keeps a small model from looping on inputs unlike anything it was trained on (a
//! single word, a string of unrelated words): a token that would make the same token, or the
//! same pair of tokens, come three times in a row is not taken; the most probable token that
//! does not is taken instead, and the step records the one it passed over ([`Step::blocked`]).
//! A `<unk>` counts as the source word it copies: three unknown words in a row are no repeat,
//! the same unknown word three times is.
//! It is the narrowest form of the "no repeated n-gram" constraint of common generation
//! libraries, and on well-formed sentences it never fires.
//!
//! Unknown words survive through attention (the classic attention-based copy, e.g. Luong et
//! al. 2015, "Addressing the Rare Word Problem in Neural Machine Translation"): when a step
//! chooses the target `<unk>`, the unknown source word (a source `<unk>`) with the largest
//! cross-attention weight at that step, in the LAST decoder layer and averaged over the heads,
//! is recorded in [`Step::copy`]. The token stays `<unk>` in [`Decoding::tokens`]; only the
//! printed text ([`Decoding::text`]) shows the copied source token instead. Each unknown word
//! is copied once: the candidates are the unknown words not copied yet, and when none is left
//! (or the source has none) the target `<unk>` is not taken ([`Passed::NothingToCopy`]), so a
//! translation never prints an unknown word twice, nor a known English word the model meant to
//! translate. A decoder-only model has no source: its `<unk>` prints as `<unk>`.

use alloc::string::String;

use alloc::vec::Vec;
use core::ops::Range;

use crate::attention::softmax_rows;
use crate::config::RunOptions;
use crate::decoder::DecoderBody;
use crate::model::Model;
use crate::tokenizer::Tokenizer;
use crate::trace::{DecoderTrace, EncoderTrace, Mat, Trace};
use crate::Result;

/// One generation step.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Step {
    /// The token chosen: the arg-max of `probs`, unless that would repeat (see `blocked`).
    pub token: u32,
    /// The next-token distribution over the target vocabulary, `(V)`.
    pub probs: Vec<f32>,
    /// The cross-attention row of the newest position, per decoder layer: `(h, S)`, row `i`
    /// is head `i`'s weights over the source tokens when this token was chosen.
    pub cross: Vec<Mat>,
    /// When `token` is the target `<unk>`: the source word it stands for (see the module docs).
    pub copy: Option<SourceCopy>,
    /// The arg-max of `probs` when it was not taken, and why; `token` is then the most probable
    /// token that may be taken.
    pub blocked: Option<Blocked>,
}

/// A step's arg-max that was passed over ([`Step::blocked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Blocked {
    /// The token.
    pub token: u32,
    /// Why it was not taken.
    pub why: Passed,
}

/// Why a step's arg-max was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Passed {
    /// It would have made a token, or a pair of tokens, come three times in a row ([`repeats`]).
    Repeat,
    /// It is the target `<unk>`, and every unknown source word has been copied already (or the
    /// source has none): see the module docs.
    NothingToCopy,
}

/// Whether appending `next` to `prefix` makes its last three tokens equal (`a a a`) or its
/// last six a pair three times (`a b a b a b`).
pub fn repeats<T: PartialEq>(prefix: &[T], next: T) -> bool {
    let n = prefix.len();
    let triple = n >= 2 && prefix[n - 1] == next && prefix[n - 2] == next;
    let pairs = n >= 5
        && next == prefix[n - 2]
        && next == prefix[n - 4]
        && prefix[n - 1] == prefix[n - 3]
        && prefix[n - 1] == prefix[n - 5];
    triple || pairs
}

/// What a generated token counts as for [`repeats`]: its id, or for a copied `<unk>` the source
/// position it copies.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Printed {
    Token(u32),
    Copied(usize),
}

/// The most probable token that is not `banned` (the `<unk>` with nothing left to copy) and whose
/// choice does not [`repeat`](repeats) what was printed before (`printed(token)` says what a
/// token would print), and the arg-max if that was passed over. At most three tokens can be
/// ruled out at one step (the banned one, the one completing a triple and the one completing a
/// pair), so this looks at most four times; the replacement is never one of `never` (`<bos>`,
/// `<pad>`: tokens the decoder is not trained to write).
fn choose(
    probs: &[f32],
    prefix: &[Printed],
    printed: impl Fn(u32) -> Printed,
    never: &[u32],
    banned: Option<u32>,
) -> (u32, Option<Blocked>) {
    let top = argmax(probs);
    let mut ruled_out: Vec<u32> = never.to_vec();
    let mut token = top;
    let mut why = None; // the arg-max's reason
    loop {
        let reason = if Some(token) == banned {
            Passed::NothingToCopy
        } else if repeats(prefix, printed(token)) {
            Passed::Repeat
        } else {
            break;
        };
        why.get_or_insert(reason);
        if ruled_out.len() >= never.len() + 3 {
            break;
        }
        ruled_out.push(token);
        let mut best: Option<u32> = None;
        for (i, p) in probs.iter().enumerate() {
            let i = i as u32;
            if !ruled_out.contains(&i) && best.is_none_or(|b| *p > probs[b as usize]) {
                best = Some(i);
            }
        }
        match best {
            Some(b) => token = b,
            None => break, // a vocabulary of one to three tokens: nothing else to take
        }
    }
    let blocked = why.filter(|_| token != top).map(|why| Blocked { token: top, why });
    (token, blocked)
}

/// A source token copied into the translation in place of a generated `<unk>`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SourceCopy {
    /// Index into the source tokens (`Encoded::tokens`) of the copied word.
    pub source: usize,
    /// Its cross-attention weight at this step: last decoder layer, mean over the heads.
    pub weight: f32,
}

/// The source position a generated `<unk>` copies, from the step's cross-attention rows
/// (`(h, S)` per decoder layer): of the `candidates` (source positions, in order), the one
/// with the largest mean over heads of the last layer's row (the first on ties). `None`
/// without layers, heads or candidates; candidates past the source are ignored.
pub fn copy_source(cross: &[Mat], candidates: &[usize]) -> Option<SourceCopy> {
    let last = cross.last()?; // (h, S)
    if last.nrows() == 0 {
        return None;
    }
    let mean = |j: usize| last.column(j).sum() / last.nrows() as f32;
    let mut best: Option<SourceCopy> = None;
    for &j in candidates.iter().filter(|&&j| j < last.ncols()) {
        let weight = mean(j);
        if best.is_none_or(|b| weight > b.weight) {
            best = Some(SourceCopy { source: j, weight });
        }
    }
    best
}

/// The result of [`greedy`] (`D` = [`DecoderBody`]: of [`greedy_body`], whose final pass
/// stops before the generator).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Decoding<D = DecoderTrace> {
    /// Generated ids, ending in `<eos>` unless the length limit stopped generation.
    pub tokens: Vec<u32>,
    /// One entry per generated token.
    pub steps: Vec<Step>,
    /// The last step's full trace: decoder input `<bos>` + every generated token but the last.
    pub trace: Trace<D>,
}

impl<D> Decoding<D> {
    /// The translation as text ([`Tokenizer::detokenize`]), with each copied `<unk>` printed
    /// as the source token it copies: `source[copy.source]`, where `source` is the tokens the
    /// decoding was run on (`Encoded::tokens`).
    ///
    /// [`Tokenizer::detokenize`]: crate::tokenizer::Tokenizer::detokenize
    pub fn text(&self, tokenizer: &Tokenizer, source: &[String]) -> String {
        self.text_spans(tokenizer, source).0
    }

    /// [`Decoding::text`] and, per generated token, the byte range of the text it printed
    /// (`None` for `<eos>`): where a copied word is, for a page that marks it.
    pub fn text_spans(&self, tokenizer: &Tokenizer, source: &[String]) -> (String, Vec<Option<Range<usize>>>) {
        tokenizer.detokenize_spans(&self.tokens, |i| {
            let c = self.steps.get(i)?.copy?;
            source.get(c.source).map(String::as_str)
        })
    }

    /// The steps that copied a source word: `(step index, copy)`.
    pub fn copies(&self) -> impl Iterator<Item = (usize, SourceCopy)> + '_ {
        self.steps.iter().enumerate().filter_map(|(i, s)| Some((i, s.copy?)))
    }
}

/// Greedy decoding of `src` for at most `max_steps` tokens (capped so that the decoder input
/// stays within `max_len`).
///
/// With the causal mask on, row `t` of the final trace's probabilities equals step `t`'s
/// distribution; with it off, earlier positions see later tokens and the two differ (the
/// final trace "peeks at the future"), which is why every step is kept.
pub fn greedy(model: &Model, src: &[u32], opts: &RunOptions, max_steps: usize) -> Result<Decoding> {
    let Decoding { tokens, steps, trace } = greedy_body(model, src, opts, max_steps)?;
    let decoder = trace.decoder.map(|body| model.finish_decode(body)).transpose()?; // (T, d_model) -> logits (T, V)
    Ok(Decoding { tokens, steps, trace: Trace { heads: trace.heads, encoder: trace.encoder, decoder } })
}

/// Greedy continuation by a decoder-only model (GPT): `prompt` ids `(n >= 1)` are the
/// decoder's first inputs, then each step appends the most probable next token (with the
/// repeat rule of [`greedy`]) until `<eos>` or `max_steps` tokens. The decoder input of the
/// final trace is the prompt and every generated token but the last.
pub fn generate(model: &Model, prompt: &[u32], opts: &RunOptions, max_steps: usize) -> Result<Decoding> {
    if model.encoder.is_some() {
        return Err(crate::error::input_err!(
            "generate continues a text with a decoder-only model; translate this one"
        ));
    }
    let Decoding { tokens, steps, trace } = run_greedy(model, None, prompt, opts, max_steps)?;
    let decoder = trace.decoder.map(|body| model.finish_decode(body)).transpose()?; // (T, d_model) -> logits (T, V)
    Ok(Decoding { tokens, steps, trace: Trace { heads: trace.heads, encoder: trace.encoder, decoder } })
}

/// [`greedy`] without the generator of the final pass: its `(T, V)` logits, most of that pass
/// and rows that the steps' distributions already give (with the causal mask), are left to a
/// caller that shows them (the page computes them only when read).
pub fn greedy_body(model: &Model, src: &[u32], opts: &RunOptions, max_steps: usize) -> Result<Decoding<DecoderBody>> {
    model.decoder_stack()?;
    let encoder = model.encode(src, opts)?;
    let unknown: Vec<usize> = (0..src.len()).filter(|&j| src[j] == model.tokenizer.src_unk()).collect();
    run_greedy(model, Some((encoder, unknown)), &[model.tokenizer.bos], opts, max_steps)
}

/// Greedy decoding after `start` (`<bos>`, or a decoder-only model's prompt), over the
/// encoder's memory when the model has one (with the positions of the source's unknown words,
/// which `<unk>` copies).
fn run_greedy(
    model: &Model,
    source: Option<(EncoderTrace, Vec<usize>)>,
    start: &[u32],
    opts: &RunOptions,
    max_steps: usize,
) -> Result<Decoding<DecoderBody>> {
    let (encoder, mut uncopied) = match source {
        Some((e, unknown)) => (Some(e), Some(unknown)),
        None => (None, None),
    };
    let h = opts.heads_for(&model.config)?;
    model.check_ids("target", start, model.config.tgt_vocab.len())?;
    let max_steps = max_steps.clamp(1, model.config.max_len.saturating_sub(start.len() - 1).max(1));
    let src_len = encoder.as_ref().map_or(0, |e| e.memory.nrows());
    let mut tgt = start.to_vec();
    let mut steps = Vec::new();
    let unk = model.tokenizer.tgt_unk();
    let mut printed: Vec<Printed> = Vec::new(); // what each generated token prints as
    let never: Vec<u32> = [Some(model.tokenizer.bos), model.tokenizer.pad()].into_iter().flatten().collect();
    // with the causal mask a step runs only its new token through the decoder (the others'
    // keys and values are kept); without it every step reruns the whole prefix
    let mut cache = if opts.causal_decoder { Some(model.decode_cache(encoder.as_ref(), opts)?) } else { None };
    if let Some(cache) = cache.as_mut() {
        for &id in &start[..start.len() - 1] {
            model.decode_step(id, cache, opts)?; // the prompt before its last token
        }
    }
    loop {
        let (row, cross, body) = match cache.as_mut() {
            Some(cache) => {
                let (row, cross) = model.decode_step(tgt[tgt.len() - 1], cache, opts)?;
                (row, cross, None)
            }
            None => {
                let body = model.decode_body(&tgt, encoder.as_ref(), opts)?;
                let last = body.output.nrows() - 1;
                let cross = body
                    .layers
                    .iter()
                    .filter_map(|l| l.cross_attn.as_ref())
                    .map(|c| {
                        let heads = &c.sublayer.heads;
                        Mat(nalgebra::DMatrix::from_fn(heads.len(), src_len, |i, j| heads[i].weights[(last, j)]))
                    })
                    .collect();
                (Mat(body.output.rows(last, 1).into_owned()), cross, Some(body))
            }
        };
        // this step needs the last row's distribution only: (1, d_model) -> (1, V)
        let logits = model.generate(&row)?;
        let probs = softmax_rows(&logits).as_slice().to_vec(); // one row: storage order is column order
                                                               // a translation's <unk> copies an unknown source word not copied yet, or is not taken
        let unk_copy = uncopied.as_deref().and_then(|c| copy_source(&cross, c));
        let banned = unk.filter(|_| uncopied.is_some() && unk_copy.is_none());
        let as_printed = |t: u32| match unk_copy {
            Some(c) if Some(t) == unk => Printed::Copied(c.source),
            _ => Printed::Token(t),
        };
        let (token, blocked) = choose(&probs, &printed, as_printed, &never, banned);
        printed.push(as_printed(token));
        let copy = if Some(token) == unk { unk_copy } else { None };
        if let (Some(c), Some(left)) = (copy, uncopied.as_mut()) {
            left.retain(|&j| j != c.source);
        }
        steps.push(Step { token, probs, cross, copy, blocked });
        if token == model.tokenizer.eos || steps.len() >= max_steps {
            let tokens = steps.iter().map(|s| s.token).collect();
            // the trace: one pass over the whole decoder input, up to the generator
            let decoder = match body {
                Some(body) => body,
                None => model.decode_body(&tgt, encoder.as_ref(), opts)?,
            };
            return Ok(Decoding { tokens, steps, trace: Trace { heads: h, encoder, decoder: Some(decoder) } });
        }
        tgt.push(token);
    }
}

/// Indices of the `k` largest values, largest first, the lower index first on ties (what a
/// stable sort by decreasing value would start with), in one pass: a step reports its top
/// candidates out of the whole target vocabulary.
pub fn top_k(values: &[f32], k: usize) -> Vec<usize> {
    let mut top: Vec<usize> = Vec::with_capacity(k + 1);
    for (i, &v) in values.iter().enumerate() {
        if k == 0 || (top.len() == k && values[top[k - 1]].total_cmp(&v).is_ge()) {
            continue;
        }
        let at = top.iter().position(|&j| values[j].total_cmp(&v).is_lt()).unwrap_or(top.len());
        top.insert(at, i);
        top.truncate(k);
    }
    top
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
