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
fn bad_labels_and_overrides_are_refused_with_a_message() {
    let s = Spec::small();
    let (model, _) = s.model(8);
    let opts = RunOptions::default();
    let err = |labels: &[i64]| model.gradients(&[4, 5], &[1, 4, 5], labels, &opts).unwrap_err().to_string();
    assert!(err(&[4, 5]).contains("2 labels for 3 output positions"), "{}", err(&[4, 5]));
    assert!(err(&[4, 5, 99]).contains("outside the vocabulary"), "{}", err(&[4, 5, 99]));
    assert!(err(&[-100, -100, -1]).contains("every label is ignored"), "{}", err(&[-100, -100, -1]));
    let block = attnscope::Mat(nalgebra::DMatrix::zeros(4, 8));
    let edited = RunOptions {
        overrides: vec![attnscope::Override {
            stack: Stack::Encoder,
            layer: 0,
            head: 0,
            matrix: attnscope::QkMatrix::Q,
            block,
        }],
        ..RunOptions::default()
    };
    let e = model.gradients(&[4, 5], &[1, 4, 5], &[4, 5, 6], &edited).unwrap_err().to_string();
    assert!(e.contains("without W_Q/W_K overrides"), "{e}");
}
