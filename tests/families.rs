//! The engine against Hugging Face `transformers` on the three families it reads: BERT
//! (encoder-only, with and without its masked-LM head), GPT-2 (decoder-only) and Marian (an
//! encoder-decoder), random models of several shapes converted by `train/convert.py`, with
//! `transformers`' own float64 outputs as the reference (`train/make_family_fixtures.py`,
//! `train/FIXTURES-FAMILIES.md`). Every layer's hidden states, every head's attention weights,
//! the stacks' outputs and the logits must agree within 1e-4, under the run options each
//! fixture names (knock-outs, no scaling, re-split heads, no positions, a causal encoder).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use attnscope::trace::AttentionTrace;
use attnscope::{Architecture, Stack};
use common::*;

const TOL: f32 = 1e-4;

/// Largest |a - b|; a NaN on either side counts as infinite.
fn worst(what: &str, got: &[f32], want: &[f32]) -> f32 {
    assert_eq!(got.len(), want.len(), "{what}: {} values, expected {}", got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .map(|d| if d.is_nan() { f32::INFINITY } else { d })
        .fold(0.0, f32::max)
}

/// Every head's weights of every layer, `(L, H, T_q, T_k)` row-major.
fn weights(layers: &[&AttentionTrace]) -> Vec<f32> {
    layers.iter().flat_map(|a| a.heads.iter().flat_map(|h| h.weights.row_major())).collect()
}

#[test]
fn every_family_fixture_matches_transformers() {
    let dir = families_dir();
    let names = names_in(&dir);
    let mut report = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for name in &names {
        let model = load_model_in(&dir, name);
        let exp = Expected::load_in(&dir, name);
        let opts = exp.options();
        let arch = model.config.architecture;
        seen.insert(format!("{arch:?}"));
        let src = if exp.has("src_ids") { exp.ids("src_ids") } else { vec![] };
        let tgt = if exp.has("tgt_ids") { exp.ids("tgt_ids") } else { vec![] };
        let trace = model.forward(&src, &tgt, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));

        let mut max = 0.0f32;
        let mut checked = Vec::new();
        let mut check = |what: &str, got: Vec<f32>| {
            let d = worst(&format!("{name} {what}"), &got, &exp.tensor(what).data);
            assert!(d <= TOL, "{name}: {what} differs from transformers by {d:e} (> {TOL:e})");
            max = max.max(d);
            checked.push(what.to_string());
        };
        if let Some(enc) = &trace.encoder {
            check("embed.encoder", enc.embed.input.row_major());
            check("hidden.encoder", enc.layers.iter().flat_map(|l| l.ffn.output().row_major()).collect());
            check("encoder_output", enc.memory.row_major());
            check("attn.encoder", weights(&trace.site(Stack::Encoder)));
            if let Some(logits) = &enc.logits {
                check("logits", logits.row_major());
            }
        }
        if let Some(dec) = &trace.decoder {
            check("embed.decoder", dec.embed.input.row_major());
            check("hidden.decoder", dec.layers.iter().flat_map(|l| l.ffn.output().row_major()).collect());
            check("decoder_output", dec.output.row_major());
            check("attn.decoder_self", weights(&trace.site(Stack::DecoderSelf)));
            if arch == Architecture::EncoderDecoder {
                check("attn.cross", weights(&trace.site(Stack::DecoderCross)));
            }
            if dec.logits.ncols() > 0 {
                check("logits", dec.logits.row_major());
            }
        }
        // the reference holds nothing the engine left unchecked (a logits tensor for a model
        // the engine thinks has no head would be caught here)
        for t in ["logits", "attn.cross", "attn.encoder", "attn.decoder_self", "hidden.encoder", "hidden.decoder"] {
            assert_eq!(
                exp.has(t),
                checked.iter().any(|c| c == t),
                "{name}: reference tensor {t} vs what the engine gave"
            );
        }
        // the bare forward gives the very same logits
        if exp.has("logits") {
            let bare = model.logits(&src, &tgt, &opts).unwrap();
            let traced = trace
                .decoder
                .as_ref()
                .map(|d| d.logits.row_major())
                .or_else(|| trace.encoder.as_ref().and_then(|e| e.logits.as_ref()).map(|l| l.row_major()));
            assert_eq!(Some(bare), traced, "{name}: Model::logits differs from Model::forward");
        }
        report.push(format!("{name} ({arch:?}): {} tensors, max |diff| {max:.2e}", checked.len()));
    }
    println!("{}", report.join("\n"));
    assert_eq!(seen.len(), 3, "fixtures cover {seen:?}; expected all three families");
}

#[test]
fn dropping_the_run_options_breaks_agreement() {
    // The fixtures with options were computed with them: running without them must disagree,
    // so the parity above really exercises each option on each family.
    let dir = families_dir();
    let mut tried = 0;
    for name in names_in(&dir) {
        let exp = Expected::load_in(&dir, &name);
        let opts = exp.options();
        let plain = attnscope::RunOptions { heads: Some(model_heads(&dir, &name)), ..Default::default() };
        if opts == plain {
            continue;
        }
        tried += 1;
        let model = load_model_in(&dir, &name);
        let src = if exp.has("src_ids") { exp.ids("src_ids") } else { vec![] };
        let tgt = if exp.has("tgt_ids") { exp.ids("tgt_ids") } else { vec![] };
        let trace = model.forward(&src, &tgt, &plain).unwrap();
        let (what, got) = match (&trace.decoder, &trace.encoder) {
            (Some(d), _) => ("decoder_output", d.output.row_major()),
            (None, Some(e)) => ("encoder_output", e.memory.row_major()),
            _ => unreachable!(),
        };
        let d = worst(&name, &got, &exp.tensor(what).data);
        assert!(d > 1e-3, "{name}: without its options {what} still agrees ({d:e}): the options were not exercised");
    }
    assert!(tried >= 3, "only {tried} fixtures with run options");
}

/// The model's trained head count (a run without options uses it).
fn model_heads(dir: &std::path::Path, name: &str) -> usize {
    load_model_in(dir, name).config.nhead
}

#[test]
fn the_tokenizer_in_the_file_gives_the_reference_ids() {
    // The fixtures converted with their Hugging Face tokenizer carry the sentence they were run
    // on: the model file's own tokenizer must turn it into the very ids transformers was given.
    let dir = families_dir();
    let mut checked = 0;
    for name in names_in(&dir) {
        let exp = Expected::load_in(&dir, &name);
        let (_, meta) = safetensors::SafeTensors::read_metadata(&exp.bytes).unwrap();
        let Some(text) = meta.metadata().as_ref().and_then(|m| m.get("text")).cloned() else { continue };
        let model = load_model_in(&dir, &name);
        let (got, want) = match model.config.architecture {
            Architecture::DecoderOnly => (model.tokenizer.encode_tgt(&text).unwrap().ids, exp.ids("tgt_ids")),
            _ => (model.tokenizer.encode_src(&text).unwrap().ids, exp.ids("src_ids")),
        };
        assert_eq!(got, want, "{name}: {text:?}");
        checked += 1;
    }
    assert!(checked >= 2, "only {checked} fixtures carry their text");
}
