//! The `subword` property, shared by the cargo-fuzz target and `tests/subword.rs`: a subword
//! tokenizer built from arbitrary JSON, then run on arbitrary text. Never a panic, and:
//! - `Subword::new` either fails with `Error::Format` or gives a tokenizer;
//! - every piece's id is inside the vocabulary; a known piece's text is its vocabulary token; an
//!   unknown piece has the unknown token's id and non-empty text;
//! - `decode` of the ids (and of ids past the vocabulary) returns.
//!
//! Input layout: the bytes before the first 0xFF (never in UTF-8) are JSON, either
//! `{"subword": SubwordConfig, "vocab": [...], "unk": "..."}` or a bare `SubwordConfig` used with
//! a small built-in vocabulary; the bytes after it are the text (lossy UTF-8).

use attnscope::subword::{Subword, SubwordConfig};

const VOCAB: &[&str] =
    &["[UNK]", "<unk>", "</s>", "a", "b", "ab", "##b", "##a", "▁", "▁a", "▁ab", "Ġ", "Ġa", "Ġab", "'s", "中", "!", " "];

#[derive(serde::Deserialize)]
struct Wrapped {
    subword: SubwordConfig,
    vocab: Vec<String>,
    unk: Option<String>,
}

pub fn check(data: &[u8]) {
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let (json, text) = (&data[..split], data.get(split + 1..).unwrap_or(&[]));
    let text = String::from_utf8_lossy(text);
    let (cfg, vocab, unk) = if let Ok(w) = serde_json::from_slice::<Wrapped>(json) {
        (w.subword, w.vocab, w.unk)
    } else if let Ok(cfg) = serde_json::from_slice::<SubwordConfig>(json) {
        let unk = match cfg {
            SubwordConfig::WordPiece { .. } => Some("[UNK]"),
            SubwordConfig::Unigram { .. } => Some("<unk>"),
            SubwordConfig::Bpe { .. } => None,
        };
        (cfg, VOCAB.iter().map(|s| s.to_string()).collect(), unk.map(String::from))
    } else {
        return;
    };
    let sw = match Subword::new(&cfg, &vocab, unk.as_deref()) {
        Ok(sw) => sw,
        Err(e) => {
            assert!(matches!(e, attnscope::Error::Format(_)), "not a format error: {e:?}");
            return;
        }
    };
    let unk_id = unk.as_deref().and_then(|u| sw.id(u));
    let pieces = sw.encode(&text);
    for p in &pieces {
        let token = vocab.get(p.id as usize).expect("id outside the vocabulary");
        if p.known {
            assert_eq!(&p.text, token, "a known piece's text is its token");
        } else {
            assert_eq!(Some(p.id), unk_id, "an unknown piece has the unknown id");
            assert!(!p.text.is_empty(), "an unknown piece has text");
        }
    }
    let mut ids: Vec<u32> = pieces.iter().map(|p| p.id).collect();
    let _ = sw.decode(&ids);
    ids.push(u32::MAX);
    let _ = sw.decode(&ids);
}
