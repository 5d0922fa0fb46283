//! Token embeddings (paper section 3.4) and positional encoding (section 3.5).
//!
//! Attention compares every token with every other and has no notion of order: without
//! positional encoding "the brother carried the sister" and "the sister carried the brother"
//! produce the same attention weights. Adding a position-dependent vector to each embedding
//! puts the order into the data.

use alloc::vec::Vec;
use nalgebra::{DMatrix, RowDVector};

use crate::norm::LayerNorm;
use crate::trace::{EmbeddingTrace, Mat};

/// `PE(pos, 2i) = sin(pos / 10000^(2i/d_model))`, `PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))`,
/// `(max_len, d_model)`. Computed in `f64` and rounded once, like the PyTorch exporter.
pub fn sinusoidal(max_len: usize, d_model: usize) -> DMatrix<f32> {
    // 10000^(2i/d_model) once per column, not once per cell: the same f64 divisor either way
    let divisor: Vec<f64> = (0..d_model).map(|j| libm::pow(10000.0, (j - j % 2) as f64 / d_model as f64)).collect();
    DMatrix::from_fn(max_len, d_model, |pos, j| {
        let angle = pos as f64 / divisor[j];
        (if j % 2 == 0 { libm::sin(angle) } else { libm::cos(angle) }) as f32
    })
}

/// One side's embedding table and positional table.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    /// The embedding table transposed, `(d_model, vocab)`: column `id` is the token's vector,
    /// contiguous (the file's row-major `(vocab, d_model)` taken as it is, without reordering).
    pub table_t: DMatrix<f32>,
    /// `(max_len, d_model)`: the sinusoidal or learned encodings; `None` for `positional: none`.
    pub positions: Option<DMatrix<f32>>,
    /// `sqrt(d_model)` when the model scales embeddings, else 1.
    pub scale: f32,
    /// Token type 0's embedding `(1, d_model)`, added to every token (BERT's segment A); `None`
    /// for models without token types.
    pub token_type: Option<RowDVector<f32>>,
    /// The LayerNorm applied to the sum (BERT); `None` for most models.
    pub norm: Option<LayerNorm>,
}

impl Embeddings {
    /// ids `(n)` -> `embedding * scale + PE[0..n]`, `(n, d_model)` (with a token type, plus
    /// its row; with a norm, `LN` of that sum). `positional: false` drops PE.
    /// Ids and `n` are checked by the caller ([`crate::Model`]).
    pub fn forward(&self, ids: &[u32], positional: bool) -> EmbeddingTrace {
        self.forward_from(ids, 0, positional)
    }

    /// [`Embeddings::forward`] of tokens that stand at positions `first..first + n` (a decoding
    /// step adds one token after the others).
    pub fn forward_from(&self, ids: &[u32], first: usize, positional: bool) -> EmbeddingTrace {
        let (n, d) = (ids.len(), self.table_t.nrows());
        let typed = |j: usize| self.token_type.as_ref().map_or(0.0, |row| row[j]);
        let embedding = DMatrix::from_fn(n, d, |t, j| self.table_t[(j, ids[t] as usize)] * self.scale + typed(j)); // (n, d_model)
        let pe = match (&self.positions, positional) {
            (Some(table), true) => table.rows(first, n).into_owned(),
            _ => DMatrix::zeros(n, d),
        };
        let sum = &embedding + &pe; // (n, d_model)
        let (input, before_norm) = match &self.norm {
            Some(norm) => (norm.forward(&sum), Some(Mat(sum))),
            None => (sum, None),
        };
        EmbeddingTrace {
            ids: Vec::from(ids),
            embedding: Mat(embedding),
            positional: Mat(pe),
            before_norm,
            input: Mat(input),
        }
    }
}
