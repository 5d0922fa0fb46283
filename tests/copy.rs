//! Unknown words survive through attention: a generated `<unk>` copies the unknown source word
//! with the largest cross-attention weight at that step (last decoder layer, mean over heads),
//! each unknown word once, and every printed translation (the engine's `Decoding::text`, the
//! CLI) shows that word.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/random_model.rs"]
mod random_model;

use attnscope::decode::copy_source;
use attnscope::{greedy, Blocked, Mat, Model, Passed, RunOptions, SourceCopy};
use random_model::Spec;

const UNK: u32 = 3; // Spec::vocab: <pad> <bos> <eos> <unk> w4 w5 ...

/// A random model with 2 decoder layers whose generator always picks `pick` (all weights
/// zero, that bias 10: its logit wins at every step whatever the decoder computes).
fn model_that_always_picks(pick: u32, seed: u64) -> Model {
    let spec = Spec { dec_layers: 2, ..Spec::small() };
    let mut w = spec.weights(seed);
    w.get_mut("generator.weight").data.iter_mut().for_each(|v| *v = 0.0);
    let bias = &mut w.get_mut("generator.bias").data;
    bias.iter_mut().for_each(|v| *v = 0.0);
    bias[pick as usize] = 10.0;
    spec.load(&w)
}

/// (what, cross-attention rows per layer, candidates, expected (source, weight)).
type CopyCase = (&'static str, Vec<Mat>, &'static [usize], Option<(usize, f32)>);

#[test]
fn copy_source_is_the_argmax_of_the_last_layers_mean_over_heads_among_the_candidates() {
    #[rustfmt::skip]
    let cases: &[CopyCase] = &[
        // last layer rows [0.2 0.2 0.6] and [0.4 0.4 0.2]: mean [0.3 0.3 0.4] -> source 2, 0.4.
        // (The first layer would say source 1: only the last layer counts.)
        ("two layers", vec![
            Mat::from_rows(2, 3, &[0.1, 0.8, 0.1, 0.1, 0.8, 0.1]),
            Mat::from_rows(2, 3, &[0.2, 0.2, 0.6, 0.4, 0.4, 0.2]),
        ], &[0, 1, 2], Some((2, 0.4))),
        // one head 0.9 on source 0, the other 0.6 on source 1 (0.1 on 0):
        // mean [0.5, 0.35, 0.15] -> source 0, although no head's largest weight is 0.5
        ("heads disagree", vec![Mat::from_rows(2, 3, &[0.9, 0.05, 0.05, 0.1, 0.65, 0.25])], &[0, 1, 2], Some((0, 0.5))),
        // the same rows with source 0 copied already (or known): source 1, 0.35
        ("not a candidate", vec![Mat::from_rows(2, 3, &[0.9, 0.05, 0.05, 0.1, 0.65, 0.25])], &[1, 2], Some((1, 0.35))),
        // a tie: the first candidate wins
        ("tie", vec![Mat::from_rows(1, 2, &[0.5, 0.5])], &[0, 1], Some((0, 0.5))),
        ("no candidates", vec![Mat::from_rows(1, 2, &[0.5, 0.5])], &[], None),
        ("candidate past the source", vec![Mat::from_rows(1, 2, &[0.5, 0.5])], &[2], None),
        ("no layers", vec![], &[0], None),
    ];
    for (what, cross, candidates, want) in cases {
        let got = copy_source(cross, candidates).map(|c| (c.source, c.weight));
        match (got, want) {
            (Some((s, w)), Some((ws, ww))) => {
                assert_eq!(s, *ws, "{what}: source");
                assert!((w - ww).abs() < 1e-6, "{what}: weight {w} vs {ww}");
            }
            (g, w) => assert_eq!(g, *w, "{what}"),
        }
    }
}

#[test]
fn each_unknown_word_is_copied_once_the_most_attended_first() {
    for (seed, heads) in [(1, None), (2, None), (3, Some(1)), (4, Some(4))] {
        let model = model_that_always_picks(UNK, seed);
        let opts = RunOptions { heads, ..RunOptions::default() };
        // "sofa" and "zorblat" are unknown (<unk> = 3); w5, w4 are in the vocabulary
        let src = model.tokenizer.encode_src("sofa w5 zorblat w4").unwrap();
        assert_eq!(src.ids, [3, 5, 3, 4]);
        let dec = greedy(&model, &src.ids, &opts, 5).unwrap();
        let h = dec.trace.heads;
        let mut uncopied = vec![0, 2];
        let mut words = Vec::new();
        for (k, step) in dec.steps.iter().enumerate() {
            if k == 2 {
                // both unknown words printed: the generator still prefers <unk>, which is passed
                // over now (nothing left to copy; w5 and w4 are words the model knows)
                assert_eq!(step.blocked, Some(Blocked { token: UNK, why: Passed::NothingToCopy }), "seed {seed}");
                assert!(step.token != UNK && step.copy.is_none());
                break;
            }
            assert_eq!((step.token, step.blocked), (UNK, None), "the generator picks <unk>; the id stays <unk>");
            // Recompute step k from a teacher-forced pass over <bos> + the k tokens before it:
            // row k of the last decoder layer's cross-attention, mean over the run's h heads.
            let mut tgt = vec![model.tokenizer.bos];
            tgt.extend_from_slice(&dec.tokens[..k]);
            let trace = model.forward(&src.ids, &tgt, &opts).unwrap();
            let last = &trace.decoder().unwrap().layers.last().unwrap().cross_attn.as_ref().unwrap().sublayer.heads;
            assert_eq!(last.len(), h);
            let mean: Vec<f32> =
                (0..4).map(|j| last.iter().map(|hd| hd.weights[(k, j)]).sum::<f32>() / h as f32).collect();
            // of the unknown words not printed yet, the most attended (the first on ties)
            let best = uncopied.iter().copied().fold(uncopied[0], |b, j| if mean[j] > mean[b] { j } else { b });
            let SourceCopy { source, weight } =
                step.copy.unwrap_or_else(|| panic!("seed {seed}: step {k} has no copy"));
            assert_eq!(source, best, "seed {seed} heads {heads:?} step {k}: mean row {mean:?}");
            assert!((weight - mean[best]).abs() < 1e-6, "seed {seed} step {k}: weight {weight} vs {}", mean[best]);
            uncopied.retain(|&j| j != source);
            words.push(src.tokens[source].as_str());
        }
        assert!(dec.steps.len() >= 3, "seed {seed}: a third step");
        assert!(uncopied.is_empty());
        let text = dec.text(&model.tokenizer, &src.tokens);
        assert!(text.starts_with(&words.join(" ")), "seed {seed}: the text {text:?} prints the copied words first");
        for w in ["sofa", "zorblat"] {
            assert_eq!(text.matches(w).count(), 1, "seed {seed}: {w} once in {text:?}");
        }
        assert!(model.tokenizer.detokenize(&dec.tokens).starts_with("<unk> <unk>"), "detokenize alone does not copy");
    }
}

#[test]
fn a_source_without_unknown_words_gets_no_unk() {
    let model = model_that_always_picks(UNK, 1);
    let src = model.tokenizer.encode_src("w5 w4").unwrap();
    let dec = greedy(&model, &src.ids, &RunOptions::default(), 4).unwrap();
    // the known words are never printed in English in place of a translation
    assert!(dec.steps.iter().all(|s| s.token != UNK && s.copy.is_none()), "{:?}", dec.tokens);
    assert_eq!(dec.steps[0].blocked, Some(Blocked { token: UNK, why: Passed::NothingToCopy }));
}

#[test]
fn other_tokens_copy_nothing() {
    let model = model_that_always_picks(5, 1); // always w5
    let src = model.tokenizer.encode_src("sofa w5").unwrap();
    // two steps: a third w5 would be a repeat, which greedy decoding passes over
    let dec = greedy(&model, &src.ids, &RunOptions::default(), 2).unwrap();
    assert!(dec.steps.iter().all(|s| s.copy.is_none()));
    assert_eq!(dec.text(&model.tokenizer, &src.tokens), "w5 w5");
}

#[test]
fn the_cli_prints_the_copied_words_and_reports_each_copy() {
    let spec = Spec { dec_layers: 2, ..Spec::small() };
    let mut w = spec.weights(1);
    w.get_mut("generator.weight").data.iter_mut().for_each(|v| *v = 0.0);
    let bias = &mut w.get_mut("generator.bias").data;
    bias.iter_mut().for_each(|v| *v = 0.0);
    bias[UNK as usize] = 10.0;
    let path = std::env::temp_dir().join(format!("attnscope-copy-{}.safetensors", std::process::id()));
    std::fs::write(&path, spec.file(&w)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_attnscope"))
        .args(["translate", "--model", path.to_str().unwrap(), "--max-steps", "3", "Sofa w5 zorblat"])
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    // the engine's own answer, for comparison
    let model = spec.load(&w);
    let src = model.tokenizer.encode_src("Sofa w5 zorblat").unwrap();
    let dec = greedy(&model, &src.ids, &RunOptions::default(), 3).unwrap();
    assert_eq!(stdout.trim_end(), dec.text(&model.tokenizer, &src.tokens));
    assert!(!stdout.contains("<unk>"), "{stdout}");
    let copies: Vec<&str> = stderr.lines().filter(|l| l.starts_with("attnscope: copied: ")).collect();
    assert_eq!(copies.len(), dec.copies().count(), "one line per copy: {stderr}");
    assert!(copies.len() >= 2, "{stderr}");
    let (_, c) = dec.copies().next().unwrap();
    let first =
        format!("attnscope: copied: {:?} <- source {} (weight {:.2})", src.tokens[c.source], c.source, c.weight);
    assert_eq!(copies[0], first);
}
