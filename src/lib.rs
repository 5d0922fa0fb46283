//! # attnscope: a Transformer you can watch
//!
//! A complete encoder-decoder Transformer (Vaswani et al. 2017, "Attention Is All You Need",
//! arXiv:1706.03762) written to agree with PyTorch's `torch.nn.Transformer` to 1e-4, small enough
//! to run in a web page (`no_std` + `alloc`, all linear algebra through [`nalgebra`]), and built
//! to *show* its work: [`Model::forward`] returns a [`Trace`] holding every intermediate tensor,
//! so a page can draw the attention weights and the weighted averages they produce.
//!
//! ## Glossary (the paper's symbols, used as names throughout)
//! | symbol    | meaning                                                         |
//! |-----------|-----------------------------------------------------------------|
//! | `d_model` | width of every token vector between sublayers (paper: 512)      |
//! | `h`       | number of attention heads in a run                              |
//! | `d_k`     | width of one head's queries, keys and values: `d_model / h`     |
//! | `d_ff`    | width of the feed-forward hidden layer (`dim_feedforward`)      |
//! | `S`       | source length (tokens fed to the encoder)                       |
//! | `T`       | target length (tokens fed to the decoder: `<bos>` + prefix)     |
//! | `V`       | target vocabulary size                                          |
//! | `memory`  | the encoder output `(S, d_model)` that cross-attention reads    |
//!
//! Matrices hold one token per row: a sentence of `T` tokens is a `(T, d_model)` matrix, and a
//! linear layer computes `y = x W^T + b` exactly as `torch.nn.Linear` does.
//!
//! ## Module map, in the paper's order
//! - [`weighted_average`]: before attention, kernel smoothing as a softmax-weighted average.
//! - [`config`]: the model's hyper-parameters and the per-run options (scaling, masks, heads).
//! - [`positional`]: token embeddings and positional encoding (section 3.4, 3.5).
//! - [`attention`]: scaled dot-product and multi-head attention (section 3.2).
//! - [`feed_forward`]: the position-wise feed-forward network (section 3.3).
//! - [`norm`]: layer normalisation and the residual "Add & Norm" connection (section 3.1).
//! - [`encoder`], [`decoder`]: the two stacks (section 3.1).
//! - [`head`]: the output heads: the generator, BERT's masked-language-model head.
//! - [`model`]: embeddings + stacks + head: the whole forward pass, for the three families
//!   (encoder-decoder, encoder-only, decoder-only; [`config::Architecture`]).
//! - [`gradients`]: learning: the cross-entropy loss and its exact gradients, every layer's
//!   backward beside its forward.
//! - [`incremental`]: a [`incremental::Session`] reruns only the stages a change changes.
//! - [`decode`]: greedy generation, one token at a time (translation; a decoder-only model's
//!   continuation).
//! - [`fill`]: masked-token prediction with an encoder-only model.
//! - [`analysis`]: beyond raw weights: head importance by knock-out, value-weighted attention
//!   (Kobayashi et al. 2020), attention rollout (Abnar & Zuidema 2020).
//! - [`tasks`], [`training`]: toy tasks with a known right attention pattern, and a tiny
//!   Transformer trained on them from scratch with Adam or SGD (the training playground).
//! - [`tokenizer`]: words to ids and back.
//! - [`format`](mod@format): loading a PyTorch-compatible `.safetensors` model file.
//! - [`trace`]: every intermediate of a forward pass, with shapes.
//! - [`vectors`]: a compact table of real word vectors (GloVe) for the self-attention lessons.
//! - `wasm` (feature `wasm`, target wasm32): the only module that knows about JavaScript.
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub mod analysis;
pub mod attention;
pub mod config;
pub mod decode;
pub mod decoder;
pub mod encoder;
mod error;
pub mod feed_forward;
pub mod fill;
pub mod format;
pub mod gradients;
pub mod head;
pub mod incremental;
pub mod linear;
pub mod model;
pub mod norm;
pub mod positional;
#[cfg(feature = "reference")]
pub mod reference;
#[cfg(feature = "subword")]
pub mod subword;
pub mod tasks;
pub mod tokenizer;
pub mod trace;
pub mod training;
pub mod vectors;
#[cfg(all(feature = "wasm", target_arch = "wasm32"))]
pub mod wasm;
pub mod weighted_average;

pub use config::{
    Activation, Architecture, Config, HeadRef, Matrix as QkMatrix, Override, Positional, RunOptions, Site, Stack,
};
pub use decode::{greedy, Blocked, Decoding, Passed, SourceCopy, Step};
pub use error::Error;
pub use model::Model;
pub use tokenizer::{Encoded, Tokenizer};
pub use trace::{Mat, Trace};
pub use vectors::WordVectors;

/// Without `std`, a wasm32 `cdylib` still needs an allocator and a panic handler: `dlmalloc`
/// (the allocator std itself uses on wasm32) and a trap.
#[cfg(all(not(feature = "std"), target_arch = "wasm32"))]
mod no_std_runtime {
    #[global_allocator]
    static ALLOC: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        core::arch::wasm32::unreachable()
    }
}

/// Result type of every fallible call in this crate.
pub type Result<T> = core::result::Result<T, Error>;
