//! proptest strategies shared by the property tests (native only: proptest is not built for
//! wasm32, so this file is apart from `random_model.rs`, which the wasm tests include too).
//! Include both: `#[path = "support/random_model.rs"] mod random_model;` and
//! `#[path = "support/strategies.rs"] mod strategies;`.

use proptest::prelude::*;

use crate::random_model::Spec;

/// A random small spec with sequences up to `max_len`: d_model = heads * d_k (odd widths
/// included), 1-2 layers per stack, every positional kind, both norm placements, both
/// activations, embeddings scaled or not.
pub fn spec(max_len: usize) -> impl Strategy<Value = Spec> {
    (
        (1usize..=3, 1usize..=4, 1usize..=2, 1usize..=2, 1usize..=10),
        (5usize..=12, 5usize..=12, 0usize..3, any::<bool>(), any::<bool>(), any::<bool>()),
    )
        .prop_map(move |((nhead, d_k, enc, dec, d_ff), (sv, tv, pos, relu, norm_first, scale_embedding))| Spec {
            d_model: nhead * d_k,
            nhead,
            enc_layers: enc,
            dec_layers: dec,
            d_ff,
            src_vocab: sv,
            tgt_vocab: tv,
            max_len,
            positional: ["sinusoidal", "learned", "none"][pos],
            activation: if relu { "relu" } else { "gelu" },
            norm_first,
            scale_embedding,
        })
}
