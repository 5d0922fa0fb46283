//! Replays the fuzzing inputs worth keeping through the fuzz targets' own checks
//! (`fuzz/checks/*.rs`, the bodies of the cargo-fuzz targets): every file of
//! `fuzz/regressions/<target>/` (inputs that once failed, kept once fixed) and of the seed
//! corpora (`fuzz/seeds/<target>/`, and the parity and family models for `load_model`). Runs on stable with
//! `cargo test`; the campaigns themselves are `make fuzz` (nightly + cargo-fuzz).
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/checks/load_model.rs"]
mod load_model;
#[path = "../fuzz/checks/load_vectors.rs"]
mod load_vectors;
#[path = "support/tiny_tokenizer.rs"]
mod tiny_tokenizer;
#[path = "../fuzz/checks/tokenizer.rs"]
mod tokenizer;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    out.retain(|p| p.file_name().is_some_and(|n| n != ".gitkeep" && n != "README.md"));
    out.sort();
    out
}

/// Run `check` on every input of `target`'s regression and seed directories (plus `extra`);
/// returns how many ran. A panic fails the test naming the file.
fn replay(target: &str, check: fn(&[u8]), extra: Vec<PathBuf>) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut inputs = files(&root.join("regressions").join(target));
    inputs.extend(files(&root.join("seeds").join(target)));
    inputs.extend(extra);
    let mut failed = Vec::new();
    for path in &inputs {
        let data = std::fs::read(path).unwrap();
        if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(failed.is_empty(), "{target}: the fuzz check fails on {failed:?}");
    inputs.len()
}

#[test]
fn load_model_regressions_and_seeds() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let models = [files(&fixtures.join("parity")), files(&fixtures.join("families"))]
        .concat()
        .into_iter()
        .filter(|p| {
            p.to_string_lossy().ends_with(".safetensors") && !p.to_string_lossy().ends_with(".expected.safetensors")
        })
        .collect::<Vec<_>>();
    assert!(models.len() >= 30, "parity and family models present ({})", models.len());
    replay("load_model", load_model::check, models);
}

#[test]
fn load_vectors_regressions_and_seeds() {
    assert!(replay("load_vectors", load_vectors::check, Vec::new()) > 0);
}

#[test]
fn tokenizer_regressions_and_seeds() {
    assert!(replay("tokenizer", tokenizer::check, Vec::new()) > 0);
}

/// Finding of the first `load_model` campaign (after about 1,000 runs from the parity models):
/// a parity model with a few mutated bytes still holds only finite weights, so it loads, but
/// some are so large that the logits overflow. The engine reports `Error::Numeric` (as it
/// promises: overflow is an error, never silent NaN); the old fuzz target wanted `Ok` and
/// aborted. The target now accepts `Ok` or `Error::Numeric` from a run, nothing else.
#[test]
fn a_model_whose_finite_weights_overflow_loads_and_its_run_reports_numeric() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions/load_model/overflowing-weights-forward-numeric-error");
    let model = attnscope::Model::from_safetensors(&std::fs::read(path).unwrap()).expect("finite weights load");
    let src = [0u32, 1 % model.config.src_vocab.len() as u32];
    let tgt = [model.tokenizer.bos];
    match model.forward(&src, &tgt, &attnscope::RunOptions::default()) {
        Err(attnscope::Error::Numeric(msg)) => assert!(msg.contains("overflowed"), "{msg}"),
        other => panic!("expected Error::Numeric, got {:?}", other.map(|_| "a trace")),
    }
}

/// Finding of the first `tokenizer` campaign (after about 229,000 runs): with `compose_jamo`,
/// a jamo can compose into the last syllable of a token printed before an empty glue token
/// (먹어, "", ㅆ다 -> 먹었다). The engine does what its docs say (the composed syllable is covered
/// by both spans; the empty token gets an empty span); the target's check looked for the
/// overlap only at the next printing token and failed. The check now looks at every later one.
/// Input: `fuzz/regressions/tokenizer/jamo-composed-across-an-empty-glue-token`.
#[test]
fn a_jamo_composes_across_an_empty_glue_token() {
    let glue = serde_json::json!({"glue": ["", "ㅆ다"], "compose_jamo": true});
    let tok = tiny_tokenizer::tokenizer(&[], &["먹어", "", "ㅆ다"], glue);
    let (out, spans) = tok.detokenize_spans(&[4, 5, 6], |_| None);
    assert_eq!(out, "먹었다");
    // 먹어 wrote bytes 0..6; the empty token nothing at 6; ㅆ다 composed into 어 (bytes 3..6).
    assert_eq!(spans, [Some(0..6), Some(6..6), Some(3..9)]);
}
