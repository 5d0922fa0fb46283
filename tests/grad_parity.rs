//! The engine's gradients against PyTorch autograd (float64): the fixtures of
//! `train/make_grad_fixtures.py` (tests/fixtures/grads/, train/FIXTURES.md), each a committed model
//! file, a run's options (including the training switches `residual` and `layer_norm`), inputs and
//! labels, and the reference loss and gradients: of every parameter, of every head's attention
//! weights and raw scores, and of the token embeddings. Each must agree within 1e-4 of the largest
//! magnitude of its tensor.

mod common;

use std::path::PathBuf;

use attnscope::{Model, Stack};
use common::{max_diff, Expected};

fn grads_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/grads")
}

/// `|got - want|` at most 1e-4 of `want`'s scale (its largest magnitude, at least 1e-3).
fn close(what: &str, got: &[f32], want: &[f32]) -> f32 {
    let scale = want.iter().fold(1e-3f32, |m, v| m.max(v.abs()));
    let rel = max_diff(what, got, want) / scale;
    assert!(rel <= 1e-4, "{what}: differs from autograd by {rel:.2e} of its scale {scale:.3e}");
    rel
}

/// One fixture: its name, the reference tensors, the model it was made with, the run.
struct Case {
    name: String,
    fx: Expected,
    model: Model,
    opts: attnscope::RunOptions,
    src: Vec<u32>,
    tgt: Vec<u32>,
    labels: Vec<i64>,
}

/// Every fixture of tests/fixtures/grads/, by name.
fn cases() -> Vec<Case> {
    let mut names: Vec<String> = std::fs::read_dir(grads_dir())
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".safetensors").map(String::from))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let fx = Expected { bytes: std::fs::read(grads_dir().join(format!("{name}.safetensors"))).unwrap() };
            let (_, meta) = safetensors::SafeTensors::read_metadata(&fx.bytes).unwrap();
            let model_file = meta.metadata().as_ref().unwrap()["model"].clone();
            let bytes =
                std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(&model_file))
                    .unwrap();
            let model = Model::from_safetensors(&bytes).unwrap();
            let opts = fx.options();
            let ids = |side: &str| if fx.has(side) { fx.ids(side) } else { vec![] };
            let (src, tgt) = (ids("src_ids"), ids("tgt_ids"));
            let labels: Vec<i64> = fx.tensor("labels").data.iter().map(|&v| v as i64).collect();
            Case { name, fx, model, opts, src, tgt, labels }
        })
        .collect()
}

#[test]
fn gradients_match_pytorch_autograd() {
    let cases = cases();
    assert!(cases.len() >= 10, "only {} gradient fixtures", cases.len());
    let mut worst = 0.0f32;
    for Case { name, fx, model, opts, src, tgt, labels } in &cases {
        let (_, grads) = model.gradients(src, tgt, labels, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        worst = worst.max(close(&format!("{name}: loss"), &[grads.loss], &fx.tensor("loss").data));

        // every parameter, and nothing else
        let tensors = grads.tensors(model);
        let want_names: Vec<String> = {
            let st = safetensors::SafeTensors::deserialize(&fx.bytes).unwrap();
            let mut n: Vec<String> =
                st.names().into_iter().filter_map(|n| n.strip_prefix("grad.").map(String::from)).collect();
            n.sort();
            n
        };
        let got_names: Vec<String> = tensors.iter().map(|t| t.name.clone()).collect();
        assert_eq!(got_names, want_names, "{name}: the parameters with a gradient");
        for t in &tensors {
            let want = fx.tensor(&format!("grad.{}", t.name));
            assert_eq!(t.shape, want.shape, "{name}: {} shape", t.name);
            worst = worst.max(close(&format!("{name}: {}", t.name), &t.data, &want.data));
        }

        // every head's weights and raw scores, (L, H, T_q, T_k) row-major
        let sites = [(Stack::Encoder, "encoder"), (Stack::DecoderSelf, "decoder_self"), (Stack::DecoderCross, "cross")];
        for (stack, key) in sites {
            for kind in ["weights", "scores"] {
                let tensor = format!("d{kind}.{key}");
                if !fx.has(&tensor) {
                    continue;
                }
                let mut got = Vec::new();
                let layers: Vec<&attnscope::attention::AttentionBackward> = match stack {
                    Stack::Encoder => {
                        grads.encoder.as_ref().unwrap().layers.iter().map(|l| &l.self_attn.sublayer).collect()
                    }
                    Stack::DecoderSelf => {
                        grads.decoder.as_ref().unwrap().layers.iter().map(|l| &l.self_attn.sublayer).collect()
                    }
                    Stack::DecoderCross => grads
                        .decoder
                        .as_ref()
                        .unwrap()
                        .layers
                        .iter()
                        .map(|l| &l.cross_attn.as_ref().unwrap().sublayer)
                        .collect(),
                };
                for layer in layers {
                    for head in &layer.heads {
                        got.extend(if kind == "weights" { head.weights.row_major() } else { head.scores.row_major() });
                    }
                }
                worst = worst.max(close(&format!("{name}: {tensor}"), &got, &fx.tensor(&tensor).data));
            }
        }

        // the token embeddings (gradient x input's gradient)
        for (side, g) in
            [("src", grads.encoder.as_ref().map(|e| &e.embed)), ("tgt", grads.decoder.as_ref().map(|d| &d.embed))]
        {
            if let Some(g) = g {
                let want = fx.tensor(&format!("dembedding.{side}"));
                worst = worst.max(close(&format!("{name}: dembedding.{side}"), &g.embedding.row_major(), &want.data));
            }
        }
    }
    eprintln!("{} gradient fixtures; largest difference {worst:.2e} of a tensor's scale", cases.len());
}

/// Gradient x input (`analysis::saliency`, the lab's "colour by" choice) against autograd: the
/// fixtures' loss is the mean of `-log p(label_r)` over the `n` labelled rows, so summed over
/// the rows, the saliency `(d log p_r / d e_s) . e_s` with the fixture's labels must equal
/// `-n (dL/de_s) . e_s`, PyTorch's embedding gradient (`dembedding.*`) dotted with the engine's
/// embeddings. Within 1e-4 of the scale on every fixture.
#[test]
fn gradient_x_input_agrees_with_autograd() {
    let mut checked = 0;
    for Case { name, fx, model, opts, src, tgt, labels } in &cases() {
        let n = labels.iter().filter(|&&l| l >= 0).count() as f32;
        let sal = attnscope::analysis::saliency(model, src, tgt, labels, opts).unwrap();
        let trace = model.forward(src, tgt, opts).unwrap();
        let sides = [
            ("src", sal.source.as_ref(), trace.encoder.as_ref().map(|e| &e.embed.embedding)),
            ("tgt", sal.target.as_ref(), trace.decoder.as_ref().map(|d| &d.embed.embedding)),
        ];
        for (side, got, embedding) in sides {
            let (Some(got), Some(e)) = (got, embedding) else { continue };
            let g = fx.tensor(&format!("dembedding.{side}")); // (S, d) row-major
            let d = e.ncols();
            let want: Vec<f32> =
                (0..e.nrows()).map(|s| -n * (0..d).map(|k| g.data[s * d + k] * e[(s, k)]).sum::<f32>()).collect();
            let summed: Vec<f32> = (0..got.ncols()).map(|s| got.column(s).sum()).collect();
            close(&format!("{name}: saliency over the {side} summed over rows"), &summed, &want);
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} saliency maps checked");
}
