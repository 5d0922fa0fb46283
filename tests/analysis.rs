//! Head knock-out, head importance, value-weighted attention and rollout (`src/analysis.rs`).
//!
//! Knock-out parity with PyTorch (heads masked by zeroing their columns of `out_proj`) is part of
//! `tests/parity.rs` (the `knock_out_*` fixtures); here: the knock-outs matter in those
//! fixtures, value norms and rollout against the numpy references of
//! `train/analysis_reference.py` (1e-5), rollout rows sum to 1, a layer with every head knocked
//! out is the residual path alone (by hand), and head importance agrees with full passes.
#![cfg(not(target_arch = "wasm32"))]

mod common;
#[path = "support/random_model.rs"]
mod random_model;

use attnscope::analysis::{head_importance, log_prob, rollout, trace_rollout, value_weighted_heads, Rollout};
use attnscope::trace::AttentionTrace;
use attnscope::{greedy, HeadRef, Mat, Model, RunOptions, Stack, Trace};
use common::*;
use random_model::Spec;

const TOL: f32 = 1e-5;

/// The fixtures written with value-weighted and rollout references.
fn analysis_fixtures() -> Vec<String> {
    let names: Vec<String> = fixture_names().into_iter().filter(|n| Expected::load(n).has("rollout.encoder")).collect();
    assert!(names.len() >= 2, "only {names:?} hold analysis references");
    names
}

fn run_fixture(name: &str) -> (Model, RunOptions, Trace, Expected) {
    let model = load_model(name);
    let exp = Expected::load(name);
    let opts = exp.options();
    let trace = model.forward(&exp.ids("src_ids"), &exp.ids("tgt_ids"), &opts).unwrap();
    (model, opts, trace, exp)
}

/// One attention of every layer of a trace, with the model's attention of that layer.
fn attentions<'a>(model: &'a Model, trace: &'a Trace, stack: Stack) -> Vec<(&'a AttentionTrace, Stack, usize)> {
    let layers: Vec<&AttentionTrace> = match stack {
        Stack::Encoder => trace.encoder().unwrap().layers.iter().map(|l| &l.self_attn.sublayer).collect(),
        Stack::DecoderSelf => trace.decoder().unwrap().layers.iter().map(|l| &l.self_attn.sublayer).collect(),
        Stack::DecoderCross => {
            trace.decoder().unwrap().layers.iter().map(|l| &l.cross_attn.as_ref().unwrap().sublayer).collect()
        }
    };
    let _ = model;
    layers.into_iter().enumerate().map(|(l, a)| (a, stack, l)).collect()
}

#[test]
fn knock_outs_matter_in_the_knock_out_fixtures() {
    // The expectations were computed with heads masked: running without the knock-outs must
    // disagree, so the parity of tests/parity.rs really exercises the knock-out path.
    for name in fixture_names().into_iter().filter(|n| n.starts_with("knock_out")) {
        let (model, mut opts, _, exp) = run_fixture(&name);
        assert!(!opts.knock_out.is_empty(), "{name} knocks nothing out");
        opts.knock_out.clear();
        let trace = model.forward(&exp.ids("src_ids"), &exp.ids("tgt_ids"), &opts).unwrap();
        let d = max_diff(&name, &trace.decoder().unwrap().logits.row_major(), &exp.tensor("logits").data);
        assert!(d > 1e-2, "{name}: dropping the knock-outs changed the logits by only {d}");
    }
}

#[test]
fn value_weighted_norms_match_the_numpy_reference() {
    let mut report = Vec::new();
    for name in analysis_fixtures() {
        let (model, _, trace, exp) = run_fixture(&name);
        let mut worst: f32 = 0.0;
        for (stack, key) in
            [(Stack::Encoder, "encoder"), (Stack::DecoderSelf, "decoder_self"), (Stack::DecoderCross, "cross")]
        {
            let vw: Vec<_> = attentions(&model, &trace, stack)
                .into_iter()
                .flat_map(|(attn, stack, l)| value_weighted_heads(attn, model.attention(stack, l).unwrap()))
                .collect();
            for part in ["value_norms", "norms", "normalized"] {
                let got: Vec<f32> = vw
                    .iter()
                    .flat_map(|v| match part {
                        "value_norms" => v.value_norms.row_major(),
                        "norms" => v.norms.row_major(),
                        _ => v.normalized.row_major(),
                    })
                    .collect();
                let what = format!("vw.{part}.{key}");
                let d = max_diff(&format!("{name} {what}"), &got, &exp.tensor(&what).data);
                assert!(d <= TOL, "{name}: {what} differs from numpy by {d:e} (> {TOL:e})");
                worst = worst.max(d);
            }
        }
        report.push(format!("{name}: value-weighted max |diff| {worst:.2e}"));
    }
    println!("{}", report.join("\n"));
}

fn flat(ms: &[Mat]) -> Vec<f32> {
    ms.iter().flat_map(|m| m.row_major()).collect()
}

#[test]
fn rollout_matches_the_numpy_reference() {
    let mut report = Vec::new();
    for name in analysis_fixtures() {
        let (_, _, trace, exp) = run_fixture(&name);
        let r = trace_rollout(&trace);
        let mut worst: f32 = 0.0;
        for (what, got) in
            [("rollout.encoder", &r.encoder), ("rollout.decoder_self", &r.decoder_self), ("rollout.cross", &r.cross)]
        {
            let d = max_diff(&format!("{name} {what}"), &flat(got), &exp.tensor(what).data);
            assert!(d <= TOL, "{name}: {what} differs from numpy by {d:e} (> {TOL:e})");
            worst = worst.max(d);
        }
        report.push(format!("{name}: rollout max |diff| {worst:.2e}"));
    }
    println!("{}", report.join("\n"));
}

/// Encoder rows sum to 1; a decoder row of `decoder_self` plus the same row of `cross` too.
fn assert_rows_sum_to_one(what: &str, r: &Rollout) {
    for (l, m) in r.encoder.iter().enumerate() {
        for (i, row) in m.row_iter().enumerate() {
            assert!((row.sum() - 1.0).abs() < 1e-5, "{what}: encoder layer {l} row {i} sums to {}", row.sum());
        }
    }
    for (l, (tt, ts)) in r.decoder_self.iter().zip(&r.cross).enumerate() {
        for i in 0..tt.nrows() {
            let sum = tt.row(i).sum() + ts.row(i).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{what}: decoder layer {l} row {i} sums to {sum}");
        }
    }
}

#[test]
fn rollout_rows_sum_to_one_on_every_fixture_and_random_models() {
    for name in fixture_names() {
        let (_, _, trace, _) = run_fixture(&name);
        assert_rows_sum_to_one(&name, &trace_rollout(&trace));
    }
    for seed in 0..20u64 {
        let spec = Spec { enc_layers: 1 + (seed % 3) as usize, dec_layers: 1 + (seed % 2) as usize, ..Spec::small() };
        let (model, _) = spec.model(seed);
        let knock_out =
            if seed % 2 == 0 { vec![HeadRef { stack: Stack::DecoderCross, layer: 0, head: 1 }] } else { vec![] };
        let opts = RunOptions { knock_out, causal_encoder: seed % 3 == 0, ..RunOptions::default() };
        let trace = model.forward(&[4, 5, 6, 7, 8][..1 + (seed % 5) as usize], &[1, 4, 5, 6], &opts).unwrap();
        assert_rows_sum_to_one(&format!("random model {seed}"), &trace_rollout(&trace));
    }
}

#[test]
fn rollout_by_hand_on_one_layer_of_two_tokens() {
    // One encoder layer, S = 2, two heads with weights [[1, 0], [0.5, 0.5]] and [[0, 1], [0.5, 0.5]]:
    // mean [[0.5, 0.5], [0.5, 0.5]]; 0.5 A + 0.5 I = [[0.75, 0.25], [0.25, 0.75]] (rows sum to 1).
    let spec = Spec { enc_layers: 1, dec_layers: 1, ..Spec::small() };
    let (model, _) = spec.model(3);
    let mut trace = model.forward(&[4, 5], &[1, 4], &RunOptions::default()).unwrap();
    let heads = &mut trace.encoder.as_mut().unwrap().layers[0].self_attn.sublayer.heads;
    heads[0].weights = Mat::from_rows(2, 2, &[1.0, 0.0, 0.5, 0.5]);
    heads[1].weights = Mat::from_rows(2, 2, &[0.0, 1.0, 0.5, 0.5]);
    let r = trace_rollout(&trace);
    assert_eq!(r.encoder[0].row_major(), vec![0.75, 0.25, 0.25, 0.75]);
    // knocking out head 1 leaves head 0: 0.5 [[1, 0], [0.5, 0.5]] + 0.5 I = [[1, 0], [0.25, 0.75]]
    trace.encoder.as_mut().unwrap().layers[0].self_attn.sublayer.heads[1].knocked_out = true;
    assert_eq!(trace_rollout(&trace).encoder[0].row_major(), vec![1.0, 0.0, 0.25, 0.75]);
    // both knocked out: the residual alone, the identity
    trace.encoder.as_mut().unwrap().layers[0].self_attn.sublayer.heads[0].knocked_out = true;
    assert_eq!(trace_rollout(&trace).encoder[0].row_major(), vec![1.0, 0.0, 0.0, 1.0]);
    // no layers at all: nothing to roll out
    assert!(rollout(&[], &[]).encoder.is_empty());
}

#[test]
fn a_layer_with_every_head_knocked_out_is_the_residual_path_alone() {
    // Post-norm: sum = x + MHA(x), and with every head's output zeroed MHA(x) = 0 W_O^T + b_O,
    // so the sum is x + b_O exactly, row by row; the heads' weights are still traced.
    let spec = Spec { enc_layers: 2, dec_layers: 1, nhead: 2, d_model: 8, ..Spec::small() };
    let (model, _) = spec.model(11);
    let all = |stack, layer| (0..2).map(move |head| HeadRef { stack, layer, head });
    let opts = RunOptions { knock_out: all(Stack::Encoder, 1).collect(), ..RunOptions::default() };
    let trace = model.forward(&[4, 5, 6], &[1, 4], &opts).unwrap();
    let layer = &trace.encoder().unwrap().layers[1].self_attn;
    let x = trace.encoder().unwrap().layers[0].ffn.output(); // the layer's input, (S, d_model)
    let b_o = &model.attention(Stack::Encoder, 1).unwrap().w_o.b(); // (1, d_model)
    assert!(layer.sublayer.concat.iter().all(|&v| v == 0.0), "concat of knocked-out heads is zeros");
    for i in 0..3 {
        for j in 0..8 {
            assert_eq!(layer.sublayer.output[(i, j)], b_o[j], "MHA output ({i}, {j}) is b_O");
            assert_eq!(layer.sum[(i, j)], x[(i, j)] + b_o[j], "residual sum ({i}, {j}) is x + b_O");
        }
    }
    for head in &layer.sublayer.heads {
        assert!(head.knocked_out);
        assert!(head.weights.row_iter().all(|r| (r.sum() - 1.0).abs() < 1e-5), "weights still computed");
    }
    // the other layer's heads are untouched and unflagged
    assert!(trace.encoder().unwrap().layers[0].self_attn.sublayer.heads.iter().all(|h| !h.knocked_out));
    let plain = model.forward(&[4, 5, 6], &[1, 4], &RunOptions::default()).unwrap();
    assert_eq!(plain.encoder().unwrap().layers[0], trace.encoder().unwrap().layers[0]);
    assert_ne!(plain.encoder().unwrap().memory, trace.encoder().unwrap().memory);
}

#[test]
fn greedy_translation_honours_knock_outs() {
    let spec = Spec { enc_layers: 1, dec_layers: 2, ..Spec::small() };
    let (model, _) = spec.model(5);
    let heads: Vec<HeadRef> = model.config.all_heads(2);
    assert_eq!(heads.len(), 2 * (1 + 2 + 2));
    let plain = greedy(&model, &[4, 5, 6], &RunOptions::default(), 6).unwrap();
    let opts = RunOptions { knock_out: heads.clone(), ..RunOptions::default() };
    let knocked = greedy(&model, &[4, 5, 6], &opts, 6).unwrap();
    let flags = knocked
        .trace
        .decoder()
        .unwrap()
        .layers
        .iter()
        .flat_map(|l| l.cross_attn.as_ref().unwrap().sublayer.heads.iter().map(|h| h.knocked_out));
    assert!(flags.into_iter().all(|k| k));
    // every attention gone: each step's distribution no longer depends on the source
    let other = greedy(&model, &[7, 8], &opts, 6).unwrap();
    assert_eq!(knocked.steps[0].probs, other.steps[0].probs);
    assert_ne!(plain.steps[0].probs, knocked.steps[0].probs);
}

#[test]
fn head_importance_agrees_with_full_passes() {
    let spec = Spec { enc_layers: 2, dec_layers: 2, nhead: 2, d_model: 8, ..Spec::small() };
    let (model, _) = spec.model(21);
    let src = [4, 5, 6, 7];
    let translation = [5, 6, 2];
    // one head already knocked out: it scores exactly 0
    let already = HeadRef { stack: Stack::DecoderSelf, layer: 1, head: 0 };
    let opts = RunOptions { knock_out: vec![already], ..RunOptions::default() };
    let imp = head_importance(&model, &src, &translation, &opts).unwrap();
    assert_eq!(imp.heads.len(), 2 * (2 + 2 + 2));
    // log p from the traced pass's probabilities, by hand
    let by_hand = |opts: &RunOptions| -> f32 {
        let trace = model.forward(&src, &[1, 5, 6], opts).unwrap();
        translation.iter().enumerate().map(|(t, &y)| trace.decoder().unwrap().probs()[(t, y as usize)].ln()).sum()
    };
    assert!((imp.base - by_hand(&opts)).abs() < 1e-4, "base {} vs {}", imp.base, by_hand(&opts));
    assert!((imp.base - log_prob(&model, &src, &translation, &opts).unwrap()).abs() == 0.0);
    for h in &imp.heads {
        if h.head == already {
            assert_eq!(h.delta, 0.0);
            continue;
        }
        let mut with = opts.clone();
        with.knock_out.push(h.head);
        let want = by_hand(&with);
        assert!((h.log_prob - want).abs() < 1e-4, "{}: {} vs {want}", h.head, h.log_prob);
        assert!((h.delta - (h.log_prob - imp.base)).abs() < 1e-6);
    }
    // the ranking is a permutation, by delta ascending
    let mut seen = imp.ranking.clone();
    seen.sort();
    assert_eq!(seen, (0..imp.heads.len()).collect::<Vec<_>>());
    assert!(imp.ranking.windows(2).all(|w| imp.heads[w[0]].delta <= imp.heads[w[1]].delta));
    assert!(imp.heads.iter().any(|h| h.delta != 0.0), "some head must matter");
    // bad input is an error, not a panic
    assert!(head_importance(&model, &src, &[], &opts).is_err());
    assert!(head_importance(&model, &src, &[99], &opts).is_err());
    let bad = RunOptions { knock_out: vec![HeadRef { stack: Stack::Encoder, layer: 2, head: 0 }], ..opts };
    assert!(head_importance(&model, &src, &translation, &bad).is_err());
}

#[test]
fn value_weighted_is_the_weight_times_the_norm_and_zero_when_knocked_out() {
    let (model, _) = Spec::small().model(9);
    let opts =
        RunOptions { knock_out: vec![HeadRef { stack: Stack::Encoder, layer: 0, head: 1 }], ..RunOptions::default() };
    let trace = model.forward(&[4, 5, 6], &[1, 4], &opts).unwrap();
    let attn = &trace.encoder().unwrap().layers[0].self_attn.sublayer;
    let mha = model.attention(Stack::Encoder, 0).unwrap();
    let vw = value_weighted_heads(attn, mha);
    // head 0, key j: ||v_j W_O^(0)|| by hand from the (d_model, d_model) W_O^T, d_k = 4
    let v = &attn.heads[0].v;
    for j in 0..3 {
        let f: Vec<f32> = (0..8).map(|c| (0..4).map(|k| v[(j, k)] * mha.w_o.w_t()[(k, c)]).sum()).collect();
        let norm = f.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((vw[0].value_norms[(0, j)] - norm).abs() < 1e-5, "key {j}");
        for i in 0..3 {
            let want = attn.heads[0].weights[(i, j)] * norm;
            assert!((vw[0].norms[(i, j)] - want).abs() < 1e-6);
        }
    }
    assert!(vw[0].normalized.row_iter().all(|r| (r.sum() - 1.0).abs() < 1e-5));
    assert!(vw[1].norms.iter().chain(vw[1].normalized.iter()).all(|&x| x == 0.0), "knocked-out head adds nothing");
}

#[test]
fn heads_are_written_and_read_as_e1h2() {
    let cases = [
        ("e1h2", Some(HeadRef { stack: Stack::Encoder, layer: 0, head: 1 })),
        ("s2h1", Some(HeadRef { stack: Stack::DecoderSelf, layer: 1, head: 0 })),
        (" C10H3 ", Some(HeadRef { stack: Stack::DecoderCross, layer: 9, head: 2 })),
        ("e0h1", None),
        ("e1h0", None),
        ("x1h1", None),
        ("e1", None),
        ("e1h", None),
        ("eh1", None),
        ("e1h2h3", None),
        ("", None),
        ("é1h1", None),
    ];
    for (text, want) in cases {
        assert_eq!(HeadRef::parse(text).ok(), want, "{text:?}");
        if let Some(h) = want {
            assert_eq!(HeadRef::parse(&h.to_string()).unwrap(), h, "{text:?} round trip");
        }
    }
    let list = HeadRef::parse_list("e1h2, s2h1,c2h3,").unwrap();
    assert_eq!(list.iter().map(|h| h.to_string()).collect::<Vec<_>>(), ["e1h2", "s2h1", "c2h3"]);
    assert!(HeadRef::parse_list("").unwrap().is_empty());
    assert!(HeadRef::parse_list("e1h2,zz").is_err());
}
