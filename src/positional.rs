//! Token embeddings (paper section 3.4) and positional encoding (section 3.5).
//!
//! Attention compares every token with every other and has no notion of order: without
//! positional encoding "the brother carried the sister" and "the sister carried the brother"
//! produce the same attention weights. Adding a position-dependent vector to each embedding
//! puts the order into the data.

use alloc::vec::Vec;
use nalgebra::{DMatrix, RowDVector};

use crate::norm::{LayerNorm, NormGrad};
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

impl Embeddings {
    /// The gradient through [`Embeddings::forward_from`]: its trace (of tokens at positions
    /// `first..`), whether positions were added, and the gradient `d_input` `(n, d_model)` of
    /// the first layer's input -> the gradients of the tables.
    ///
    /// `input = LN?(table[id] * scale + type_0 + PE[pos])`: each row's gradient (through the
    /// LayerNorm if there is one) goes to its token's column of the table times `scale`, to
    /// its position's row of the positional table, and to the token-type row.
    pub fn backward(
        &self,
        trace: &EmbeddingTrace,
        first: usize,
        positional: bool,
        d_input: &DMatrix<f32>,
    ) -> EmbeddingGrad {
        let (d_sum, norm) = match (&self.norm, &trace.before_norm) {
            (Some(norm), Some(sum)) => {
                let (dx, grad) = norm.backward(sum, d_input);
                (dx, Some(grad))
            }
            _ => (d_input.clone(), None),
        }; // (n, d_model)
        let mut table_t = DMatrix::zeros(self.table_t.nrows(), self.table_t.ncols()); // (d_model, vocab)
        for (t, &id) in trace.ids.iter().enumerate() {
            let mut column = table_t.column_mut(id as usize);
            column.iter_mut().zip(d_sum.row(t).iter()).for_each(|(g, &d)| *g += d * self.scale);
        }
        let positions = match (&self.positions, positional) {
            (Some(table), true) => {
                let mut grad = DMatrix::zeros(table.nrows(), table.ncols()); // (max_len, d_model)
                grad.rows_mut(first, d_sum.nrows()).copy_from(&d_sum);
                Some(grad)
            }
            _ => None,
        };
        let token_type = self.token_type.as_ref().map(|_| d_sum.row_sum());
        EmbeddingGrad { embedding: Mat(d_sum), table_t, positions, token_type, norm }
    }
}

/// The gradients of one side's [`Embeddings`].
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingGrad {
    /// Of the trace's `embedding` (the scaled token vectors plus the token type, before
    /// positions are added), `(n, d_model)`: times that embedding, summed over a row, it is
    /// the "gradient x input" saliency of the token.
    pub embedding: Mat,
    /// Of the embedding table, transposed like it, `(d_model, vocab)`.
    pub table_t: DMatrix<f32>,
    /// Of the positional table `(max_len, d_model)` (`None` when positions were not added; a
    /// parameter only where the table is learned).
    pub positions: Option<DMatrix<f32>>,
    /// Of token type 0's row, `(1, d_model)`, for a model with token types.
    pub token_type: Option<RowDVector<f32>>,
    /// Of the embedding LayerNorm, for a model with one.
    pub norm: Option<NormGrad>,
}
