//! Any byte string given to `Model::from_safetensors` must give `Ok` or `Err`, never a panic,
//! an abort or an absurd allocation; a model that loads must run a short forward pass and a
//! few greedy steps (with its own and with re-split heads) without panicking.
#![no_main]

use attnscope::{greedy, Model, RunOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(model) = Model::from_safetensors(data) else { return };
    let cfg = &model.config;
    // Short ids that exist in both vocabularies (both are non-empty after validation).
    let src: Vec<u32> = (0..3u32).map(|i| i % cfg.src_vocab.len() as u32).collect();
    let tgt = [model.tokenizer.bos, (cfg.tgt_vocab.len() as u32).saturating_sub(1)];
    let n = cfg.max_len.min(src.len());
    let opts = RunOptions::default();
    let trace = model.forward(&src[..n], &tgt[..cfg.max_len.min(2)], &opts);
    assert!(trace.is_ok(), "forward on valid ids failed: {:?}", trace.err());
    let _ = greedy(&model, &src[..n], &opts, 3).expect("greedy on valid ids");
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
        };
        model.forward(&src[..n], &tgt[..1], &opts).expect("forward with re-split heads");
    }
});
