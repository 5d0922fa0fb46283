//! How long the page waits: `Model::forward` (every intermediate kept) and the bare forward.
//!
//! * `demo/forward/N+N` and `demo/logits/N+N` (`Model::logits`: no probabilities softmax, only
//!   the logits returned): the committed demo model, `www/models/en-ko.safetensors` (whatever
//!   is committed: shapes and vocabularies are read from the file), at 8, 32 and 64 source +
//!   target tokens, with the ids of `train/export_onnx.py` (`ids_for`), so that
//!   `train/export_onnx.py --time` (onnxruntime, CPU, 1 thread) times the same work;
//! * `forward/N+N`: a random model of the demo's shape (d_model 64, 4 heads, 2 + 2 layers,
//!   d_ff 256, vocabularies of 500, built in code) at 8+8 to 64+64: a small vocabulary
//!   flatters the generator and its softmax, so this one is optimistic;
//! * `demo/greedy/...`: the demo model's greedy translation of two sentences a reader might
//!   type (9 and 32 source tokens), with the page's step limit: what a new sentence waits for;
//! * greedy decoding of a 12-token source on the random model;
//! * `families/bert/N tokens`, `families/gpt2/N tokens`: random BERT-shaped (all-MiniLM-L6-v2's
//!   shape) and GPT-2-small-shaped models, a traced forward pass at 32 and 128 tokens.
//!
//! Run: `cargo bench --bench forward -- --warm-up-time 1 --measurement-time 3` (glibc set to keep
//! freed memory: see `keep_freed_memory`)
//! (`ATTNSCOPE_MODEL=/path/model.safetensors` times another model file as `demo`)

#[path = "../tests/support/random_model.rs"]
mod random_model;

use std::hint::black_box;

use attnscope::{greedy, Model, RunOptions};
use criterion::{criterion_group, BenchmarkId, Criterion};
use random_model::{family_file, Family, Spec};

/// `n` ids spread over the vocabulary, skipping the 4 specials; `first` replaces id 0.
fn ids(n: usize, stride: usize, first: Option<u32>) -> Vec<u32> {
    (0..n)
        .map(|i| match (i, first) {
            (0, Some(id)) => id,
            _ => 4 + ((i * stride) % 496) as u32,
        })
        .collect()
}

/// The rule of `train/export_onnx.py` `ids_for`: `n` source ids and `<bos>` + `n - 1` target ids,
/// spread over each vocabulary past the 4 specials.
fn demo_ids(model: &Model, n: usize) -> (Vec<u32>, Vec<u32>) {
    let (sv, tv) = (model.config.src_vocab.len(), model.config.tgt_vocab.len());
    let src = (0..n).map(|i| (4 + (i * 37) % (sv - 4)) as u32).collect();
    let tgt = (0..n).map(|i| if i == 0 { model.tokenizer.bos } else { (4 + (i * 53) % (tv - 4)) as u32 }).collect();
    (src, tgt)
}

fn demo(c: &mut Criterion) {
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/www/models/en-ko.safetensors");
    let path = std::env::var("ATTNSCOPE_MODEL").unwrap_or_else(|_| default.into());
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let model = Model::from_safetensors(&bytes).expect("load the demo model");
    let opts = RunOptions::default();
    let mut group = c.benchmark_group("demo");
    for n in [8, 32, 64] {
        let (src, tgt) = demo_ids(&model, n);
        let ids = (src, tgt);
        group.bench_with_input(BenchmarkId::new("forward", format!("{n}+{n}")), &ids, |b, (src, tgt)| {
            b.iter(|| model.forward(black_box(src), black_box(tgt), &opts).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("logits", format!("{n}+{n}")), &ids, |b, (src, tgt)| {
            b.iter(|| model.logits(black_box(src), black_box(tgt), &opts).unwrap())
        });
    }
    // the page's default sentence, and the 32-token one of `make bench-page`
    for text in [
        "Emma hates games, but she's a great friend",
        "My mother doesn't give the farmer my sweet rice at the old hospital because the mother usually carries the big umbrella with the young daughter at the quiet farm today.",
    ] {
        let src = model.tokenizer.encode_src(text).expect("a sentence").ids;
        let label = format!("{} tokens", src.len());
        group.bench_with_input(BenchmarkId::new("greedy", label), &src, |b, src| {
            b.iter(|| greedy(&model, black_box(src), &opts, model.config.max_len).unwrap())
        });
    }
    group.finish();
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

/// BERT-shaped (6 layers, d_model 384, 12 heads, the 30,522-token vocabulary of
/// all-MiniLM-L6-v2, MLM head) and GPT-2-shaped (12 layers, d_model 768, 12 heads, 50,257
/// tokens: GPT-2 small) random models, a forward pass with every intermediate kept (and the MLM
/// or LM logits) at 32 and 128 tokens.
fn families(c: &mut Criterion) {
    let mut group = c.benchmark_group("families");
    group.sample_size(10);
    for (name, family, d, layers, vocab) in
        [("bert", Family::Bert, 384, 6, 30_522), ("gpt2", Family::Gpt2, 768, 12, 50_257)]
    {
        let model = Model::from_safetensors(&family_file(family, d, 12, layers, vocab, 512, 2019)).unwrap();
        let opts = RunOptions::default();
        for n in [32, 128] {
            let text = ids(n, 97, None).into_iter().map(|i| i * 61 % vocab as u32).collect::<Vec<u32>>();
            let (src, tgt) = if matches!(family, Family::Bert) { (text, vec![]) } else { (vec![], text) };
            group.bench_with_input(BenchmarkId::new(name, format!("{n} tokens")), &(src, tgt), |b, (src, tgt)| {
                b.iter(|| model.forward(black_box(src), black_box(tgt), &opts).unwrap())
            });
        }
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

/// One training step of the playground's default model (issue 27): 1 layer, 2 heads, d_model
/// 32, a batch of 16 reversals of length 8, forward + backward + Adam.
fn train_step(c: &mut Criterion) {
    use attnscope::tasks::{Task, TaskSpec};
    use attnscope::training::{Optimizer, Setup, Trainer};
    let setup = Setup {
        task: TaskSpec::new(Task::Reverse, 8, 8).unwrap(),
        layers: 1,
        heads: 2,
        d_model: 32,
        optimizer: Optimizer::Adam { lr: 3e-3 },
        batch: 16,
        seed: 1,
        opts: attnscope::RunOptions::default(),
    };
    let mut trainer = Trainer::new(setup).unwrap();
    c.bench_function("train_step/reverse8_d32_batch16", |b| b.iter(|| trainer.step().unwrap()));
}

criterion_group!(benches, demo, forward, decode, families, train_step);

/// Keep freed memory in the process, as a program that runs pass after pass should: glibc
/// otherwise hands the large `(T, V)` buffers of every trace back to the system and page-faults
/// them in again on the next pass (`Model::forward` at 64 + 64: about 7 ms instead of 3.5).
/// The same as `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=268435456`;
/// `BENCH_GLIBC_DEFAULT=1` measures glibc's defaults instead.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("BENCH_GLIBC_DEFAULT").is_none() {
        // SAFETY: plain allocator settings, made before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        }
    }
}

fn main() {
    keep_freed_memory();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
