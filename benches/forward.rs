//! How long the page waits: `Model::forward` on a model of the demo's shape (d_model 64,
//! 4 heads, 2 + 2 layers, d_ff 256, vocabularies of 500, sinusoidal positions, random weights
//! built in code) at source + target lengths 8+8 to 64+64, and greedy decoding of a 12-token
//! source.
//!
//! Run: `cargo bench --bench forward -- --warm-up-time 1 --measurement-time 3`

#[path = "../tests/support/random_model.rs"]
mod random_model;

use std::hint::black_box;

use attnscope::{greedy, RunOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use random_model::Spec;

/// `n` ids spread over the vocabulary, skipping the 4 specials; `first` replaces id 0.
fn ids(n: usize, stride: usize, first: Option<u32>) -> Vec<u32> {
    (0..n)
        .map(|i| match (i, first) {
            (0, Some(id)) => id,
            _ => 4 + ((i * stride) % 496) as u32,
        })
        .collect()
}

fn forward(c: &mut Criterion) {
    let spec = Spec::demo();
    let (model, _) = spec.model(2017);
    let opts = RunOptions::default();
    let mut group = c.benchmark_group("forward");
    for n in [8, 16, 32, 64] {
        let src = ids(n, 37, None);
        let tgt = ids(n, 53, Some(model.tokenizer.bos)); // <bos> + a prefix
        group.bench_with_input(BenchmarkId::from_parameter(format!("{n}+{n}")), &(src, tgt), |b, (src, tgt)| {
            b.iter(|| model.forward(black_box(src), black_box(tgt), &opts).unwrap())
        });
    }
    group.finish();
}

fn decode(c: &mut Criterion) {
    let spec = Spec::demo();
    let (model, _) = spec.model(2017);
    let opts = RunOptions::default();
    let src = ids(12, 41, None);
    let mut group = c.benchmark_group("greedy");
    group.sample_size(10);
    // A typical translation length, and the page's limit (max_len steps, as src/wasm.rs asks
    // for) that a random model, which rarely says <eos>, runs into.
    for steps in [16, spec.max_len] {
        let produced = greedy(&model, &src, &opts, steps).unwrap().tokens.len();
        let label = format!("12-token source, {steps} steps max ({produced} generated)");
        group.bench_function(label, |b| b.iter(|| greedy(&model, black_box(&src), &opts, steps).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, forward, decode);
criterion_main!(benches);
