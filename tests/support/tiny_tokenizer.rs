//! A tokenizer over tiny vocabularies, for tests of tokenising and printing (no weights).

use attnscope::{Config, Tokenizer};

/// The four specials (`<pad> <bos> <eos> <unk>`) followed by `words`.
fn vocab(words: &[&str]) -> Vec<String> {
    ["<pad>", "<bos>", "<eos>", "<unk>"].iter().chain(words).map(|w| w.to_string()).collect()
}

/// A 4-wide model configuration with these vocabularies (after the specials) and this
/// `tokenizer` section, e.g. `json!({"glue": ["."], "compose_jamo": true})`.
pub fn tokenizer(src: &[&str], tgt: &[&str], tokenizer: serde_json::Value) -> Tokenizer {
    let config = serde_json::json!({
        "format": 1, "d_model": 4, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
        "dim_feedforward": 8, "activation": "relu", "norm_first": false, "layer_norm_eps": 1e-5,
        "positional": "sinusoidal", "max_len": 8, "scale_embedding": true,
        "src_vocab": vocab(src), "tgt_vocab": vocab(tgt), "tokenizer": tokenizer,
    });
    Tokenizer::new(&Config::from_json(&config.to_string()).expect("the test config is valid"))
        .expect("the test tokenizer builds")
}
