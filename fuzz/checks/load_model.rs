//! The `load_model` property (every model family), shared by the cargo-fuzz target and `tests/fuzz_regressions.rs`:
//! any byte string given to `Model::from_safetensors` gives `Ok` or `Err`, never a panic, an
//! abort or an absurd allocation; a model that loads runs a short forward pass and a few greedy
//! steps (with its own and with re-split heads) without panicking, each giving `Ok` or
//! `Err(Error::Numeric)`: the loader accepts any finite weights, and weights large enough to
//! overflow f32 (1e30, say) are reported by the run, not by the loader (the first campaign's
//! finding: the old target wanted `Ok` there).

use attnscope::config::Head;
use attnscope::decode::generate;
use attnscope::{greedy, Architecture, Error, Model, RunOptions};

/// `Ok`, or the overflow error a model with huge finite weights gives; anything else fails.
fn ok_or_overflow<T>(what: &str, r: Result<T, Error>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(Error::Numeric(_)) => None,
        Err(e) => panic!("{what} on valid ids failed: {e}"),
    }
}

pub fn check(data: &[u8]) {
    let Ok(model) = Model::from_safetensors(data) else { return };
    let cfg = &model.config;
    let arch = cfg.architecture;
    // Short ids of each side the model has (its vocabularies are non-empty after validation).
    let src: Vec<u32> = if arch.has_encoder() {
        (0..3u32).map(|i| i % cfg.src_vocab.len() as u32).take(cfg.max_len).collect()
    } else {
        Vec::new()
    };
    let tgt: Vec<u32> = if arch.has_decoder() {
        [model.tokenizer.bos, (cfg.tgt_vocab.len() as u32).saturating_sub(1)]
            .into_iter()
            .take(cfg.max_len.min(2))
            .collect()
    } else {
        Vec::new()
    };
    let opts = RunOptions::default();
    let trace = model.forward(&src, &tgt, &opts);
    if ok_or_overflow("forward", trace).is_none() {
        return; // overflowed: every other run of these weights may too
    }
    match arch {
        Architecture::EncoderDecoder => {
            ok_or_overflow("greedy", greedy(&model, &src, &opts, 3));
        }
        Architecture::DecoderOnly if cfg.head == Head::Lm => {
            ok_or_overflow("generate", generate(&model, &tgt, &opts, 3));
        }
        _ => {}
    }
    // Every head count the config allows, plus the option flags flipped.
    for h in cfg.head_choices().into_iter().take(4) {
        let opts = RunOptions {
            heads: Some(h),
            scale: false,
            causal_decoder: false,
            causal_encoder: true,
            positional: false,
            overrides: Vec::new(),
            knock_out: Vec::new(),
            residual: false,
            layer_norm: false,
        };
        ok_or_overflow("forward with re-split heads", model.forward(&src, &tgt[..tgt.len().min(1)], &opts));
    }
}
