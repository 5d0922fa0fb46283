//! Real English word vectors for the first lessons (weights by dot product before any
//! learned projection): GloVe 6B 50-d (Pennington, Socher and Manning 2014), the most frequent
//! words, stored as `int8` with one scale per row.
//!
//! File: a `.safetensors` with `vectors` I8 `(N, dim)`, `scales` F32 `(N)` (the vector of row
//! `i` is `vectors[i] * scales[i]`) and `__metadata__["attnscope_vectors"]` =
//! `{"format": 1, "dim": dim, "words": ..., "source": ..., "license": ...}`, where `words` lists
//! the N words in row order, either as a JSON array or as one string of words separated by
//! single spaces (three bytes a word smaller). `scales` may also be F16 or BF16.

use alloc::string::String;
use alloc::vec::Vec;
use safetensors::Dtype;
use serde::Deserialize;

use crate::decode::top_k;
use crate::error::format_err;
use crate::format::open;
use crate::tokenizer::{word_index, WordIndex};
use crate::Result;

#[derive(Deserialize)]
#[serde(untagged)]
enum WordList {
    Array(Vec<String>),
    Spaced(String),
}

impl WordList {
    fn into_vec(self) -> Vec<String> {
        match self {
            WordList::Array(words) => words,
            WordList::Spaced(text) => text.split(' ').map(String::from).collect(),
        }
    }
}

#[derive(Deserialize)]
struct Meta {
    format: u32,
    dim: usize,
    words: WordList,
    #[serde(default)]
    source: String,
    #[serde(default)]
    license: String,
}

/// A table of quantised word vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct WordVectors {
    /// Vector width.
    pub dim: usize,
    /// Where the vectors come from.
    pub source: String,
    /// Their licence.
    pub license: String,
    words: Vec<String>,
    index: WordIndex,
    values: Vec<i8>,
    scales: Vec<f32>,
}

impl WordVectors {
    /// Load and check a vectors file.
    pub fn from_safetensors(bytes: &[u8]) -> Result<WordVectors> {
        let (mut t, meta) = open(bytes, "attnscope_vectors")?;
        let meta: Meta = serde_json::from_str(&meta).map_err(|e| format_err!("vector metadata: {e}"))?;
        let words = meta.words.into_vec();
        if meta.format != 1 || meta.dim == 0 || meta.dim > 4096 || words.is_empty() {
            return Err(format_err!(
                "vector metadata: format {} dim {} with {} words is not supported",
                meta.format,
                meta.dim,
                words.len()
            ));
        }
        let n = words.len();
        let values: Vec<i8> = t.raw("vectors", Dtype::I8, &[n, meta.dim])?.iter().map(|&b| b as i8).collect();
        let scales = t.floats("scales", &[n])?;
        t.finish()?;
        let index = word_index(&words);
        Ok(WordVectors { dim: meta.dim, source: meta.source, license: meta.license, words, index, values, scales })
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Always false for a loaded table.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The vector of `word` (looked up as given; GloVe 6B is lowercase), or `None` if unknown.
    pub fn get(&self, word: &str) -> Option<Vec<f32>> {
        Some(self.row(*self.index.get(word)? as usize))
    }

    /// The `k` words of `candidates` whose vectors have the highest cosine with the vector of
    /// `word`, best first (ties in candidate order). `word` itself, repeated candidates and
    /// candidates without a vector are skipped; a `word` without a vector gets nothing.
    /// For "in-vocabulary neighbours": `candidates` is a model's source vocabulary.
    pub fn nearest(&self, word: &str, candidates: &[String], k: usize) -> Vec<Neighbour> {
        let Some(&w) = self.index.get(word) else { return Vec::new() };
        let w = w as usize;
        let target = self.row(w);
        let mut seen = alloc::collections::BTreeSet::from([w]);
        let found: Vec<Neighbour> = candidates
            .iter()
            .filter_map(|c| {
                let i = *self.index.get(c.as_str())? as usize;
                seen.insert(i).then(|| Neighbour { word: c.clone(), cosine: cosine(&target, &self.row(i)) })
            })
            .collect();
        let cosines: Vec<f32> = found.iter().map(|n| n.cosine).collect();
        top_k(&cosines, k).into_iter().map(|i| found[i].clone()).collect() // ties: candidate order
    }

    /// The vector of row `i`, dequantised.
    fn row(&self, i: usize) -> Vec<f32> {
        self.values[i * self.dim..(i + 1) * self.dim].iter().map(|&v| v as f32 * self.scales[i]).collect()
    }

    /// Vectors of `words`; the second list holds the positions of unknown words, whose
    /// vectors are zeros.
    pub fn lookup(&self, words: &[String]) -> (Vec<Vec<f32>>, Vec<usize>) {
        let mut unknown = Vec::new();
        let vecs = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                self.get(w).unwrap_or_else(|| {
                    unknown.push(i);
                    alloc::vec![0.0; self.dim]
                })
            })
            .collect();
        (vecs, unknown)
    }
}

/// A candidate word and its cosine similarity to the word asked about ([`WordVectors::nearest`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Neighbour {
    /// The candidate.
    pub word: String,
    /// Cosine of the two vectors, in [-1, 1].
    pub cosine: f32,
}

/// Cosine similarity of two equal-length vectors (0 when either is zero).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na = libm::sqrtf(a.iter().map(|x| x * x).sum());
    let nb = libm::sqrtf(b.iter().map(|x| x * x).sum());
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// The two principal axes of `rows` `(n, d)`: rows centred on their mean and projected onto
/// the top-2 right singular vectors, `(n, 2)`; the axes are returned too, `(2, d)`.
/// Fewer than 2 distinct rows give zeros. Each axis's sign is fixed so that its largest
/// component is positive (so the picture does not flip between runs).
pub fn pca2(rows: &nalgebra::DMatrix<f32>) -> (nalgebra::DMatrix<f32>, nalgebra::DMatrix<f32>) {
    let (n, d) = rows.shape();
    let mean = rows.row_mean(); // (1, d)
    let mut centred = rows.clone();
    for mut r in centred.row_iter_mut() {
        r -= &mean;
    }
    let mut axes = nalgebra::DMatrix::<f32>::zeros(2, d);
    if n >= 2 && d >= 2 {
        let svd = centred.clone().svd_unordered(false, true);
        if let Some(v_t) = svd.v_t {
            // the two largest singular values' axes (unordered: sorting them all is not needed)
            for (axis, &i) in top_k(svd.singular_values.as_slice(), 2).iter().enumerate() {
                let mut row = v_t.row(i).into_owned();
                let big = row.iter().copied().fold(0.0f32, |m, v| if v.abs() > m.abs() { v } else { m });
                if big < 0.0 {
                    row = -row;
                }
                axes.set_row(axis, &row);
            }
        }
    }
    (&centred * axes.transpose(), axes) // (n, d) x (d, 2) -> (n, 2)
}
