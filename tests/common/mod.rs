//! Shared by the native tests: the PyTorch parity fixtures of `train/make_fixtures.py`.
#![allow(dead_code)]

use attnscope::{HeadRef, Mat, Model, Override, QkMatrix, RunOptions, Stack};
use safetensors::{Dtype, SafeTensors};
use std::path::PathBuf;

pub fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/parity")
}

/// Every fixture name, from the directory listing (so a new fixture is tested automatically).
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_dir())
        .expect("tests/fixtures/parity exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".expected.safetensors").map(String::from))
        .collect();
    names.sort();
    names
}

/// A tensor of the expected file: its shape and f32 values (ids widened from I64).
pub struct Tensor {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

pub struct Expected {
    pub bytes: Vec<u8>,
}

impl Expected {
    pub fn load(name: &str) -> Expected {
        Expected { bytes: std::fs::read(fixture_dir().join(format!("{name}.expected.safetensors"))).unwrap() }
    }

    fn st(&self) -> SafeTensors<'_> {
        SafeTensors::deserialize(&self.bytes).unwrap()
    }

    /// Whether the file holds tensor `name`.
    pub fn has(&self, name: &str) -> bool {
        self.st().tensor(name).is_ok()
    }

    pub fn tensor(&self, name: &str) -> Tensor {
        let st = self.st();
        let v = st.tensor(name).unwrap_or_else(|_| panic!("expected tensor {name}"));
        let data = match v.dtype() {
            Dtype::F32 => v.data().chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect(),
            Dtype::I64 => v.data().chunks_exact(8).map(|b| i64::from_le_bytes(b.try_into().unwrap()) as f32).collect(),
            d => panic!("unexpected dtype {d:?}"),
        };
        Tensor { shape: v.shape().to_vec(), data }
    }

    pub fn ids(&self, name: &str) -> Vec<u32> {
        self.tensor(name).data.iter().map(|&v| v as u32).collect()
    }

    pub fn options(&self) -> RunOptions {
        let (_, meta) = SafeTensors::read_metadata(&self.bytes).unwrap();
        let json = meta.metadata().as_ref().unwrap().get("options").unwrap().clone();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let overrides = v["overrides"]
            .as_array()
            .map(|a| a.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|o| {
                let t = self.tensor(o["tensor"].as_str().unwrap());
                Override {
                    stack: serde_json::from_value::<Stack>(o["stack"].clone()).unwrap(),
                    layer: o["layer"].as_u64().unwrap() as usize,
                    head: o["head"].as_u64().unwrap() as usize,
                    matrix: serde_json::from_value::<QkMatrix>(o["matrix"].clone()).unwrap(),
                    block: Mat::from_rows(t.shape[0], t.shape[1], &t.data),
                }
            })
            .collect();
        let knock_out = v["knock_out"]
            .as_array()
            .map(|a| a.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|k| HeadRef {
                stack: serde_json::from_value::<Stack>(k["stack"].clone()).unwrap(),
                layer: k["layer"].as_u64().unwrap() as usize,
                head: k["head"].as_u64().unwrap() as usize,
            })
            .collect();
        RunOptions {
            heads: Some(v["heads"].as_u64().unwrap() as usize),
            scale: v["scale"].as_bool().unwrap(),
            causal_decoder: v["causal_decoder"].as_bool().unwrap(),
            causal_encoder: v["causal_encoder"].as_bool().unwrap(),
            positional: v["positional"].as_bool().unwrap(),
            overrides,
            knock_out,
            residual: v["residual"].as_bool().unwrap_or(true),
            layer_norm: v["layer_norm"].as_bool().unwrap_or(true),
        }
    }
}

pub fn load_model(name: &str) -> Model {
    let bytes = std::fs::read(fixture_dir().join(format!("{name}.safetensors"))).unwrap();
    Model::from_safetensors(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Largest absolute difference, with a message naming the tensor on a shape mismatch. A NaN on
/// either side counts as an infinite difference (equal infinities as none): `f32::max` alone
/// skips NaN, which would let NaN weights pass any tolerance.
pub fn max_diff(what: &str, got: &[f32], want: &[f32]) -> f32 {
    assert_eq!(got.len(), want.len(), "{what}: {} values, expected {}", got.len(), want.len());
    got.iter().zip(want).map(|(&a, &b)| abs_diff(a, b)).fold(0.0, f32::max)
}

/// `|a - b|`; 0 where `a == b` (also two equal infinities), infinity where either is NaN.
pub fn abs_diff(a: f32, b: f32) -> f32 {
    if a == b {
        0.0
    } else if a.is_nan() || b.is_nan() {
        f32::INFINITY
    } else {
        (a - b).abs()
    }
}

/// The parity fixtures of `train/make_family_fixtures.py` (BERT, GPT-2, Marian from
/// `transformers`, converted by `train/convert.py`).
pub fn families_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/families")
}

/// Every fixture name in `dir` (files `NAME.expected.safetensors`), sorted.
pub fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".expected.safetensors").map(String::from))
        .collect();
    names.sort();
    names
}

impl Expected {
    /// `NAME.expected.safetensors` of `dir`.
    pub fn load_in(dir: &std::path::Path, name: &str) -> Expected {
        Expected { bytes: std::fs::read(dir.join(format!("{name}.expected.safetensors"))).unwrap() }
    }
}

/// `NAME.safetensors` of `dir` as a model.
pub fn load_model_in(dir: &std::path::Path, name: &str) -> Model {
    let bytes = std::fs::read(dir.join(format!("{name}.safetensors"))).unwrap();
    Model::from_safetensors(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}
