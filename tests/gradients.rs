//! The engine's gradients (src/gradients.rs and each layer's `backward`) against central finite
//! differences of its own loss, on random models, for the run options PyTorch has no flag for
//! (`residual` and `layer_norm` off) and the others; and the named gradients against the model
//! file's tensor names. Exactness against PyTorch autograd is `tests/grad_parity.rs`.

#[path = "support/random_model.rs"]
mod random_model;

use attnscope::gradients::Tensor;
use attnscope::{HeadRef, Model, RunOptions, Stack};
use random_model::{Rng, Spec};

/// The loss of `model` on one fixed example.
fn loss(model: &Model, ex: &Example, opts: &RunOptions) -> f64 {
    model.gradients(&ex.src, &ex.tgt, &ex.labels, opts).expect("gradients").1.loss as f64
}

struct Example {
    src: Vec<u32>,
    tgt: Vec<u32>,
    labels: Vec<i64>,
}

fn example(spec: &Spec, rng: &mut Rng) -> Example {
    let src = (0..5).map(|_| rng.below(spec.src_vocab) as u32).collect();
    let tgt: Vec<u32> = (0..4).map(|_| rng.below(spec.tgt_vocab) as u32).collect();
    // one position ignored, as PyTorch's ignore_index
    let labels = (0..tgt.len()).map(|t| if t == 2 { -100 } else { rng.below(spec.tgt_vocab) as i64 }).collect();
    Example { src, tgt, labels }
}

/// For a few entries of every parameter (the largest gradient and two random ones), the
/// engine's gradient against `(L(w + e) - L(w - e)) / 2e`. The loss is f32: `e = 1e-2`, and a
/// tolerance of `2e-3 + 3%` covers its rounding and the `e^2` term, far below the size of the
/// mistakes it is there to catch (a missing term, a transposed product, a wrong sign).
fn check(spec: &Spec, opts: &RunOptions, seed: u64) {
    let (model, weights) = spec.model(seed);
    let mut rng = Rng::new(seed + 1);
    let ex = example(spec, &mut rng);
    let (_, grads) = model.gradients(&ex.src, &ex.tgt, &ex.labels, opts).expect("gradients");
    let named: Vec<Tensor> = grads.tensors(&model);
    let names: Vec<&str> = named.iter().map(|t| t.name.as_str()).collect();
    let file: Vec<&str> = weights.0.keys().map(|k| k.as_str()).collect();
    assert_eq!(names, file, "the gradients' names are the model file's tensor names");
    let eps = 1e-2f32;
    let mut checked = 0;
    for t in &named {
        assert_eq!(t.shape, weights.get(&t.name).shape, "{}: shape", t.name);
        let largest = (0..t.data.len()).max_by(|&a, &b| t.data[a].abs().total_cmp(&t.data[b].abs())).unwrap();
        for i in [largest, rng.below(t.data.len()), rng.below(t.data.len())] {
            let at = |delta: f32| {
                let mut w = weights.clone();
                w.get_mut(&t.name).data[i] += delta;
                loss(&spec.load(&w), &ex, opts)
            };
            let fd = (at(eps) - at(-eps)) / (2.0 * eps as f64);
            let g = t.data[i] as f64;
            assert!(
                (fd - g).abs() <= 2e-3 + 0.03 * g.abs(),
                "{:?} {opts:?}: d loss / d {}[{i}] = {g} by backprop, {fd} by finite differences",
                spec,
                t.name
            );
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} entries checked");
}

fn spec(norm_first: bool, activation: &'static str, positional: &'static str) -> Spec {
    Spec { norm_first, activation, positional, enc_layers: 2, dec_layers: 2, ..Spec::small() }
}

#[test]
fn post_norm_relu_sinusoidal() {
    check(&spec(false, "relu", "sinusoidal"), &RunOptions::default(), 1);
}

#[test]
fn pre_norm_gelu_learned() {
    check(&spec(true, "gelu", "learned"), &RunOptions::default(), 2);
}

#[test]
fn run_options_heads_scale_masks_positions_knock_out() {
    let opts = RunOptions {
        heads: Some(4),
        scale: false,
        causal_decoder: false,
        causal_encoder: true,
        positional: false,
        knock_out: vec![HeadRef { stack: Stack::DecoderCross, layer: 1, head: 2 }],
        ..RunOptions::default()
    };
    check(&spec(false, "gelu", "learned"), &opts, 3);
}

#[test]
fn residual_off() {
    for norm_first in [false, true] {
        check(&spec(norm_first, "relu", "sinusoidal"), &RunOptions { residual: false, ..RunOptions::default() }, 4);
    }
}

#[test]
fn layer_norm_off() {
    for norm_first in [false, true] {
        check(&spec(norm_first, "gelu", "learned"), &RunOptions { layer_norm: false, ..RunOptions::default() }, 5);
    }
}

/// The switches change the forward pass itself (so a test of their gradients tests something),
/// and the defaults are the paper's model.
#[test]
fn the_training_switches_change_the_forward_pass() {
    let s = spec(false, "relu", "sinusoidal");
    let (model, _) = s.model(6);
    let ex = example(&s, &mut Rng::new(7));
    let run = |opts: RunOptions| model.logits(&ex.src, &ex.tgt, &opts).unwrap();
    let base = run(RunOptions::default());
    assert_ne!(base, run(RunOptions { residual: false, ..RunOptions::default() }));
    assert_ne!(base, run(RunOptions { layer_norm: false, ..RunOptions::default() }));
}

#[test]
fn bad_labels_are_refused_with_a_message() {
    let s = Spec::small();
    let (model, _) = s.model(8);
    let opts = RunOptions::default();
    let err = |labels: &[i64]| model.gradients(&[4, 5], &[1, 4, 5], labels, &opts).unwrap_err().to_string();
    assert!(err(&[4, 5]).contains("2 labels for 3 output positions"), "{}", err(&[4, 5]));
    assert!(err(&[4, 5, 99]).contains("outside the vocabulary"), "{}", err(&[4, 5, 99]));
    assert!(err(&[-100, -100, -1]).contains("every label is ignored"), "{}", err(&[-100, -100, -1]));
}

/// With a W_Q and a W_K block replaced (the lab's editor), the pass runs on the edited blocks:
/// the trained weights they replace get gradient 0 and everything else is exact.
#[test]
fn overrides_are_honoured() {
    let s = spec(true, "relu", "sinusoidal");
    let mut rng = Rng::new(9);
    let block = |rng: &mut Rng| attnscope::Mat(nalgebra::DMatrix::from_fn(4, 8, |_, _| rng.uniform(0.35)));
    let opts = RunOptions {
        overrides: vec![
            attnscope::Override {
                stack: Stack::Encoder,
                layer: 1,
                head: 0,
                matrix: attnscope::QkMatrix::Q,
                block: block(&mut rng),
            },
            attnscope::Override {
                stack: Stack::DecoderCross,
                layer: 0,
                head: 1,
                matrix: attnscope::QkMatrix::K,
                block: block(&mut rng),
            },
        ],
        ..RunOptions::default()
    };
    check(&s, &opts, 10);
}

/// Gradient x input (analysis::saliency) is the derivative of log p(label) along each input
/// embedding: scaling token s's embedding by (1 + e) moves log p by about e times its entry.
#[test]
fn saliency_is_the_derivative_along_each_embedding() {
    let s = spec(false, "gelu", "sinusoidal");
    let (model, weights) = s.model(11);
    let (src, tgt) = (vec![4u32, 5, 6, 7, 8], vec![1u32, 4, 6, 9]); // distinct source ids: one table row each
    let labels = vec![4i64, 6, 9, 2];
    let opts = RunOptions::default();
    let sal = attnscope::analysis::saliency(&model, &src, &tgt, &labels, &opts).unwrap();
    let source = sal.source.unwrap();
    assert_eq!(source.shape(), (4, 5));
    let log_p = |m: &Model, r: usize| {
        let logits = m.logits(&src, &tgt, &opts).unwrap();
        let v = s.tgt_vocab;
        let row = &logits[r * v..(r + 1) * v];
        let max = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64;
        let sum: f64 = row.iter().map(|&z| (z as f64 - max).exp()).sum();
        row[labels[r] as usize] as f64 - max - sum.ln()
    };
    let eps = 1e-2f32;
    for (col, &id) in src.iter().enumerate() {
        let scaled = |k: f32| {
            let mut w = weights.clone();
            let t = w.get_mut("src_embed.weight");
            let d = t.shape[1];
            t.data[id as usize * d..(id as usize + 1) * d].iter_mut().for_each(|v| *v *= k);
            s.load(&w)
        };
        let (up, down) = (scaled(1.0 + eps), scaled(1.0 - eps));
        for r in 0..labels.len() {
            let fd = (log_p(&up, r) - log_p(&down, r)) / (2.0 * eps as f64);
            let got = source[(r, col)] as f64;
            assert!((fd - got).abs() <= 2e-3 + 0.03 * got.abs(), "row {r}, source {col}: {got} vs {fd}");
        }
    }
}
