//! The engine against PyTorch's `nn.Transformer`: every fixture of `train/make_fixtures.py`
//! (models of d_model 8-96, 1-8 heads, 1-3 layers, post/pre-norm, relu/gelu, the three
//! positional kinds, F32/F16/BF16, lengths 1-40, and every run option) must agree within 1e-4
//! on the attention weights of every layer and head, the memory, the decoder output and logits.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;

const TOL: f32 = 1e-4;

#[test]
fn every_fixture_matches_pytorch() {
    let names = fixture_names();
    assert!(names.len() >= 8, "only {} fixtures found", names.len());
    let mut report = Vec::new();
    for name in &names {
        let model = load_model(name);
        let exp = Expected::load(name);
        let opts = exp.options();
        let trace =
            model.forward(&exp.ids("src_ids"), &exp.ids("tgt_ids"), &opts).unwrap_or_else(|e| panic!("{name}: {e}"));

        let mut worst: f32 = 0.0;
        let mut check = |what: &str, got: Vec<f32>| {
            let want = exp.tensor(what);
            let d = max_diff(&format!("{name} {what}"), &got, &want.data);
            assert!(d <= TOL, "{name}: {what} differs from PyTorch by {d:e} (> {TOL:e})");
            worst = worst.max(d);
        };
        check("encoder_output", trace.encoder().unwrap().memory.row_major());
        check("decoder_output", trace.decoder().unwrap().output.row_major());
        check("logits", trace.decoder().unwrap().logits.row_major());
        // the bare forward (no trace kept for the caller) gives the very same logits
        let bare = model.logits(&exp.ids("src_ids"), &exp.ids("tgt_ids"), &opts).unwrap();
        assert_eq!(
            bare,
            trace.decoder().unwrap().logits.row_major(),
            "{name}: Model::logits differs from Model::forward"
        );
        let weights = |heads: Vec<&Vec<attnscope::trace::HeadTrace>>| -> Vec<f32> {
            heads.iter().flat_map(|hs| hs.iter().flat_map(|h| h.weights.row_major())).collect()
        };
        check(
            "attn.encoder",
            weights(trace.encoder().unwrap().layers.iter().map(|l| &l.self_attn.sublayer.heads).collect()),
        );
        check(
            "attn.decoder_self",
            weights(trace.decoder().unwrap().layers.iter().map(|l| &l.self_attn.sublayer.heads).collect()),
        );
        check(
            "attn.cross",
            weights(
                trace
                    .decoder()
                    .unwrap()
                    .layers
                    .iter()
                    .map(|l| &l.cross_attn.as_ref().unwrap().sublayer.heads)
                    .collect(),
            ),
        );
        report.push(format!("{name}: max |diff| {worst:.2e}"));
    }
    println!("{}", report.join("\n"));
}

#[test]
fn a_nan_difference_fails_any_tolerance() {
    // f32::max skips NaN: folding with it alone would count a NaN weight as agreeing.
    assert_eq!(max_diff("nan", &[0.5, f32::NAN, 0.25], &[0.5, 0.1, 0.25]), f32::INFINITY);
    assert_eq!(max_diff("nan expected", &[0.5], &[f32::NAN]), f32::INFINITY);
    assert_eq!(max_diff("both NaN", &[f32::NAN], &[f32::NAN]), f32::INFINITY);
    assert_eq!(max_diff("-inf and -inf", &[f32::NEG_INFINITY], &[f32::NEG_INFINITY]), 0.0);
    assert_eq!(max_diff("-inf and 0", &[f32::NEG_INFINITY], &[0.0]), f32::INFINITY);
    assert_eq!(max_diff("finite", &[0.5, 0.25], &[0.25, 0.25]), 0.25);
}

#[test]
fn overrides_matter_in_the_override_fixture() {
    // The fixture's expectations were computed with edited W_Q/W_K blocks: running without
    // the edits must disagree, so the parity above really exercises the override path.
    let exp = Expected::load("qk_overrides");
    let model = load_model("qk_overrides");
    let mut opts = exp.options();
    assert!(!opts.overrides.is_empty());
    opts.overrides.clear();
    let trace = model.forward(&exp.ids("src_ids"), &exp.ids("tgt_ids"), &opts).unwrap();
    let d = max_diff("logits", &trace.decoder().unwrap().logits.row_major(), &exp.tensor("logits").data);
    assert!(d > 1e-2, "dropping the overrides changed the logits by only {d}");
}
