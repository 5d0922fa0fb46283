//! Random models built in code, written as real model files (`safetensors::serialize` with the
//! tensor names of `src/format.rs` and the config JSON under `__metadata__["attnscope"]`), for
//! the property tests, the loader tests and the benchmark.
//!
//! The weights are kept next to the bytes ([`Weights`]) so a test can recompute a layer by
//! hand from the very numbers the engine loaded.
#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::BTreeMap;

use attnscope::Model;
use safetensors::tensor::View;
use safetensors::Dtype;

/// SplitMix64: a tiny deterministic generator (no dependency, same numbers everywhere).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[-a, a)`.
    pub fn uniform(&mut self, a: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32; // [0, 1)
        (2.0 * unit - 1.0) * a
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The hyper-parameters of a random model (the fields of the config JSON).
#[derive(Debug, Clone)]
pub struct Spec {
    pub d_model: usize,
    pub nhead: usize,
    pub enc_layers: usize,
    pub dec_layers: usize,
    pub d_ff: usize,
    pub src_vocab: usize,
    pub tgt_vocab: usize,
    pub max_len: usize,
    /// `"sinusoidal"`, `"learned"` or `"none"`.
    pub positional: &'static str,
    /// `"relu"` or `"gelu"`.
    pub activation: &'static str,
    pub norm_first: bool,
    pub scale_embedding: bool,
}

impl Spec {
    /// The demo page's shape: d_model 64, 4 heads, 2 + 2 layers, d_ff 256, vocab 500.
    pub fn demo() -> Spec {
        Spec {
            d_model: 64,
            nhead: 4,
            enc_layers: 2,
            dec_layers: 2,
            d_ff: 256,
            src_vocab: 500,
            tgt_vocab: 500,
            max_len: 128,
            positional: "sinusoidal",
            activation: "relu",
            norm_first: false,
            scale_embedding: true,
        }
    }

    /// A model small enough to build thousands of times.
    pub fn small() -> Spec {
        Spec {
            d_model: 8,
            nhead: 2,
            enc_layers: 1,
            dec_layers: 1,
            d_ff: 12,
            src_vocab: 10,
            tgt_vocab: 11,
            max_len: 16,
            positional: "sinusoidal",
            activation: "relu",
            norm_first: false,
            scale_embedding: true,
        }
    }

    /// `["<pad>", "<bos>", "<eos>", "<unk>", "w4", ...]`, `n` entries (at least the 4 specials).
    pub fn vocab(n: usize) -> Vec<String> {
        let specials = ["<pad>", "<bos>", "<eos>", "<unk>"];
        (0..n.max(4)).map(|i| if i < 4 { specials[i].to_string() } else { format!("w{i}") }).collect()
    }

    /// The `__metadata__["attnscope"]` object.
    pub fn config(&self) -> serde_json::Value {
        serde_json::json!({
            "format": 1,
            "d_model": self.d_model,
            "nhead": self.nhead,
            "num_encoder_layers": self.enc_layers,
            "num_decoder_layers": self.dec_layers,
            "dim_feedforward": self.d_ff,
            "activation": self.activation,
            "norm_first": self.norm_first,
            "layer_norm_eps": 1e-5,
            "positional": self.positional,
            "max_len": self.max_len,
            "scale_embedding": self.scale_embedding,
            "src_vocab": Spec::vocab(self.src_vocab),
            "tgt_vocab": Spec::vocab(self.tgt_vocab),
        })
    }

    /// Every tensor the loader expects for this spec, with random values of a sane scale
    /// (PyTorch-like `U(-1/sqrt(fan_in), 1/sqrt(fan_in))` for linear maps, LayerNorm gains
    /// near 1).
    pub fn weights(&self, seed: u64) -> Weights {
        let d = self.d_model;
        let lin = |d_in: usize| 1.0 / (d_in as f32).sqrt();
        let mut f = Filler { rng: Rng::new(seed), w: Weights::default() };
        for (side, vocab) in [("src", self.src_vocab), ("tgt", self.tgt_vocab)] {
            f.put(format!("{side}_embed.weight"), vec![vocab, d], 1.0, 0.0);
            if self.positional == "learned" {
                f.put(format!("{side}_pos.weight"), vec![self.max_len, d], 0.5, 0.0);
            }
        }
        let stacks = [("encoder", self.enc_layers, 2), ("decoder", self.dec_layers, 3)];
        for (stack, layers, norms) in stacks {
            for l in 0..layers {
                let p = format!("transformer.{stack}.layers.{l}");
                f.attention(&format!("{p}.self_attn"), d);
                if stack == "decoder" {
                    f.attention(&format!("{p}.multihead_attn"), d);
                }
                f.put(format!("{p}.linear1.weight"), vec![self.d_ff, d], lin(d), 0.0);
                f.put(format!("{p}.linear1.bias"), vec![self.d_ff], 0.1, 0.0);
                f.put(format!("{p}.linear2.weight"), vec![d, self.d_ff], lin(self.d_ff), 0.0);
                f.put(format!("{p}.linear2.bias"), vec![d], 0.1, 0.0);
                for n in 1..=norms {
                    f.norm(&format!("{p}.norm{n}"), d);
                }
            }
            f.norm(&format!("transformer.{stack}.norm"), d);
        }
        f.put("generator.weight".into(), vec![self.tgt_vocab, d], lin(d), 0.0);
        f.put("generator.bias".into(), vec![self.tgt_vocab], 0.1, 0.0);
        f.w
    }

    /// The model file of these weights.
    pub fn file(&self, weights: &Weights) -> Vec<u8> {
        let raw: BTreeMap<String, Raw> = weights.0.iter().map(|(k, t)| (k.clone(), Raw::f32(t))).collect();
        serialize(&raw, Some(&self.config().to_string()))
    }

    /// A random model and the weights it was loaded from.
    pub fn model(&self, seed: u64) -> (Model, Weights) {
        let weights = self.weights(seed);
        (self.load(&weights), weights)
    }

    /// Load `weights` with this spec's config (panics with the loader's message on failure).
    pub fn load(&self, weights: &Weights) -> Model {
        Model::from_safetensors(&self.file(weights)).unwrap_or_else(|e| panic!("random model {self:?}: {e}"))
    }
}

/// A tensor of a random model: shape and row-major values.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Tensor {
    /// Element `(i, j)` of a 2-D tensor, widened to `f64`.
    pub fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.shape[1] + j] as f64
    }
}

/// Tensors by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weights(pub BTreeMap<String, Tensor>);

impl Weights {
    pub fn get(&self, name: &str) -> &Tensor {
        self.0.get(name).unwrap_or_else(|| panic!("no tensor {name}"))
    }

    pub fn get_mut(&mut self, name: &str) -> &mut Tensor {
        self.0.get_mut(name).unwrap_or_else(|| panic!("no tensor {name}"))
    }
}

/// Fills [`Weights`] with uniform random tensors.
struct Filler {
    rng: Rng,
    w: Weights,
}

impl Filler {
    /// `offset + U(-scale, scale)` for every element.
    fn put(&mut self, name: String, shape: Vec<usize>, scale: f32, offset: f32) {
        let n = shape.iter().product();
        let data = (0..n).map(|_| offset + self.rng.uniform(scale)).collect();
        self.w.0.insert(name, Tensor { shape, data });
    }

    /// A `torch.nn.MultiheadAttention`: `in_proj` `(3d, d)` = `[W_Q; W_K; W_V]`, `out_proj`.
    fn attention(&mut self, p: &str, d: usize) {
        let a = 1.0 / (d as f32).sqrt();
        self.put(format!("{p}.in_proj_weight"), vec![3 * d, d], a, 0.0);
        self.put(format!("{p}.in_proj_bias"), vec![3 * d], 0.1, 0.0);
        self.put(format!("{p}.out_proj.weight"), vec![d, d], a, 0.0);
        self.put(format!("{p}.out_proj.bias"), vec![d], 0.1, 0.0);
    }

    /// A LayerNorm: gains near 1, biases near 0.
    fn norm(&mut self, p: &str, d: usize) {
        self.put(format!("{p}.weight"), vec![d], 0.2, 1.0);
        self.put(format!("{p}.bias"), vec![d], 0.1, 0.0);
    }
}

/// A tensor as it goes into a file: any dtype, any shape, any bytes (consistent or not, so
/// tests can write broken files).
#[derive(Debug, Clone)]
pub struct Raw {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl Raw {
    pub fn f32(t: &Tensor) -> Raw {
        Raw { dtype: Dtype::F32, shape: t.shape.clone(), bytes: t.data.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }
}

impl View for &Raw {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// `safetensors::serialize` with `metadata` (if any) under the key `"attnscope"`.
pub fn serialize(tensors: &BTreeMap<String, Raw>, metadata: Option<&str>) -> Vec<u8> {
    serialize_with(tensors, metadata.map(|m| ("attnscope", m)))
}

/// `safetensors::serialize` with one metadata entry `key: value` (if any).
pub fn serialize_with(tensors: &BTreeMap<String, Raw>, entry: Option<(&str, &str)>) -> Vec<u8> {
    // The map type is the one safetensors was built with (hashbrown without its "std"
    // feature); `collect` lets the compiler name it.
    let info = entry.map(|(k, v)| [(k.to_string(), v.to_string())].into_iter().collect());
    safetensors::serialize(tensors.iter().map(|(k, v)| (k.as_str(), v)), &info).expect("serialize")
}

/// The two single-stack families in the shapes of their best-known members, built in code.
#[derive(Debug, Clone, Copy)]
pub enum Family {
    /// BERT-shaped (encoder-only): learned positions, token types, an embedding LayerNorm,
    /// post-norm layers without a final norm, GELU, the MLM head tied to the embeddings.
    Bert,
    /// GPT-2-shaped (decoder-only): learned positions, pre-norm layers with a final norm,
    /// GELU's tanh form, the language-model head tied to the embeddings, no logits bias.
    Gpt2,
}

/// A random `family` model file: `d_model`, `nhead`, `layers`, `d_ff = 4 d_model`, `vocab`
/// tokens (`w0`, `w1`, ...; `[UNK]`, `[CLS]`, `[SEP]`, `[MASK]` first for BERT, `<|endoftext|>`
/// first for GPT-2), positions up to `max_len`.
pub fn family_file(
    family: Family,
    d: usize,
    nhead: usize,
    layers: usize,
    vocab: usize,
    max_len: usize,
    seed: u64,
) -> Vec<u8> {
    let lin = |d_in: usize| 1.0 / (d_in as f32).sqrt();
    let d_ff = 4 * d;
    let mut f = Filler { rng: Rng::new(seed), w: Weights::default() };
    let (side, stack, specials): (&str, &str, &[&str]) = match family {
        Family::Bert => ("src", "encoder", &["[UNK]", "[CLS]", "[SEP]", "[MASK]"]),
        Family::Gpt2 => ("tgt", "decoder", &["<|endoftext|>"]),
    };
    f.put(format!("{side}_embed.weight"), vec![vocab, d], 0.5, 0.0);
    f.put(format!("{side}_pos.weight"), vec![max_len, d], 0.1, 0.0);
    for l in 0..layers {
        let p = format!("transformer.{stack}.layers.{l}");
        f.attention(&format!("{p}.self_attn"), d);
        f.put(format!("{p}.linear1.weight"), vec![d_ff, d], lin(d), 0.0);
        f.put(format!("{p}.linear1.bias"), vec![d_ff], 0.1, 0.0);
        f.put(format!("{p}.linear2.weight"), vec![d, d_ff], lin(d_ff), 0.0);
        f.put(format!("{p}.linear2.bias"), vec![d], 0.1, 0.0);
        let norms: &[&str] = if matches!(family, Family::Bert) { &["norm1", "norm2"] } else { &["norm1", "norm3"] };
        for n in norms {
            f.norm(&format!("{p}.{n}"), d);
        }
    }
    let words: Vec<String> =
        (0..vocab).map(|i| specials.get(i).map_or_else(|| format!("w{i}"), |s| s.to_string())).collect();
    let mut cfg = serde_json::json!({
        "format": 1, "d_model": d, "nhead": nhead, "dim_feedforward": d_ff, "max_len": max_len,
        "positional": "learned", "scale_embedding": false, "tie_embeddings": true,
    });
    match family {
        Family::Bert => {
            f.put("src_type.weight".into(), vec![2, d], 0.1, 0.0);
            f.norm("src_embed_norm", d);
            f.put("mlm.dense.weight".into(), vec![d, d], lin(d), 0.0);
            f.put("mlm.dense.bias".into(), vec![d], 0.1, 0.0);
            f.norm("mlm.norm", d);
            f.put("generator.bias".into(), vec![vocab], 0.1, 0.0);
            cfg.as_object_mut().unwrap().extend(
                serde_json::json!({
                    "architecture": "encoder_only", "num_encoder_layers": layers, "activation": "gelu",
                    "norm_first": false, "layer_norm_eps": 1e-12, "embed_norm": true, "type_vocab_size": 2,
                    "final_norm": false, "head": "mlm", "src_vocab": words,
                    "specials": {"pad": "[UNK]", "bos": "[CLS]", "eos": "[SEP]", "unk": "[UNK]", "mask": "[MASK]"},
                })
                .as_object()
                .unwrap()
                .clone(),
            );
        }
        Family::Gpt2 => {
            f.norm("transformer.decoder.norm", d);
            cfg.as_object_mut().unwrap().extend(
                serde_json::json!({
                    "architecture": "decoder_only", "num_decoder_layers": layers, "activation": "gelu_tanh",
                    "norm_first": true, "layer_norm_eps": 1e-5, "logits_bias": false, "tgt_vocab": words,
                    "specials": {"pad": "<|endoftext|>", "bos": "<|endoftext|>", "eos": "<|endoftext|>", "unk": "<|endoftext|>"},
                })
                .as_object()
                .unwrap()
                .clone(),
            );
        }
    }
    let raw: BTreeMap<String, Raw> = f.w.0.iter().map(|(k, t)| (k.clone(), Raw::f32(t))).collect();
    serialize(&raw, Some(&cfg.to_string()))
}
