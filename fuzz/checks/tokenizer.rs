//! The `tokenizer` property, shared by the cargo-fuzz target and `tests/fuzz_regressions.rs`.
//! The tokenizer on hostile input: English tokenizing of arbitrary UTF-8 (`split_words`,
//! `encode_src`, `encode_tgt`) and Korean printing of arbitrary token sequences
//! (`detokenize_spans`: glue, the glue prefix, jamo composition) over a target vocabulary and
//! settings chosen by the fuzzer. Never a panic, and:
//! - the tokens of `split_words` are non-empty, hold no whitespace, and, concatenated, give the
//!   input's non-whitespace characters in order (after `’` -> `'` and lowercasing); no token is
//!   lost or invented;
//! - `encode_*` gives one id per token, and `unknown` lists exactly the tokens outside the
//!   vocabulary, each mapped to `<unk>`;
//! - `detokenize_spans` gives one span per id, each on char boundaries of the output, in order,
//!   and the text it covers ends with what the token printed (a composed jamo covers the
//!   syllable before it); `<bos>`, `<eos>`, `<pad>` print nothing; without `compose_jamo` the
//!   span holds exactly the token's text; `detokenize` is `detokenize_spans(.., None)`.
//!
//! Input layout: byte 0 = settings (bit 0 lowercase, 1 contractions, 2 compose_jamo,
//! 3 glue prefix "+", 4 glue prefix "ㅆ" (a jamo as marker)); the rest is split on 0xFF (never
//! in UTF-8): part 0 is the English text, the last part the target ids (one byte each, so ids
//! past the vocabulary occur too; a byte with bit 7 set is a copied source word), every part
//! between is a target-vocabulary token whose first byte says whether it is in the glue list.

use attnscope::tokenizer::split_words;
use attnscope::{Config, Tokenizer};

const BASE: &str = r#"{"format": 1, "d_model": 4, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1,
    "dim_feedforward": 8, "activation": "relu", "norm_first": false, "layer_norm_eps": 1e-5,
    "positional": "sinusoidal", "max_len": 8, "scale_embedding": true,
    "src_vocab": ["<pad>", "<bos>", "<eos>", "<unk>", "i", "go", "do", "n't", "'s", "she", "."],
    "tgt_vocab": ["<pad>", "<bos>", "<eos>", "<unk>", "가", "크", "먹어", "하", "집", "ㅆ다", "ㄴ", "+는", "."]}"#;

pub fn check(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else { return };
    let parts: Vec<&[u8]> = rest.split(|&b| b == 0xFF).collect();
    let text = String::from_utf8_lossy(parts[0]);
    let (lowercase, contractions) = (flags & 1 != 0, flags & 2 != 0);

    // English: split_words keeps every non-whitespace character, in order.
    let tokens = split_words(&text, lowercase, contractions);
    let norm = text.replace('\u{2019}', "'");
    let norm = if lowercase { norm.to_lowercase() } else { norm };
    let want: String = norm.split_whitespace().collect();
    assert!(tokens.iter().all(|t| !t.is_empty() && !t.chars().any(char::is_whitespace)), "{tokens:?}");
    assert_eq!(tokens.concat(), want, "split_words lost or invented characters");

    // A tokenizer with the fuzzer's target vocabulary and settings.
    let mut cfg = Config::from_json(BASE).expect("base config");
    cfg.tokenizer.lowercase = lowercase;
    cfg.tokenizer.contractions = contractions;
    cfg.tokenizer.compose_jamo = flags & 4 != 0;
    cfg.tokenizer.glue_prefix = match (flags >> 3) & 3 {
        1 => "+".into(),
        2 => "ㅆ".into(),
        _ => String::new(),
    };
    cfg.tokenizer.glue = vec!["ㅆ다".into(), "ㄴ".into(), ".".into()];
    let id_bytes: &[u8] = if parts.len() > 1 { parts[parts.len() - 1] } else { &[] };
    for part in parts.iter().skip(1).take(parts.len().saturating_sub(2)) {
        let Some((&glue, tok)) = part.split_first() else { continue };
        let tok = String::from_utf8_lossy(tok).into_owned();
        if glue & 1 != 0 {
            cfg.tokenizer.glue.push(tok.clone());
        }
        cfg.tgt_vocab.push(tok);
    }
    let tok = Tokenizer::new(&cfg).expect("a word tokenizer always builds");

    let src = tok.encode_src(&text);
    assert_eq!(src.is_ok(), !tokens.is_empty(), "encode_src fails exactly on empty text");
    if let Ok(enc) = src {
        assert_eq!(enc.tokens, tokens);
        assert_eq!(enc.ids.len(), enc.tokens.len());
        for (i, t) in enc.tokens.iter().enumerate() {
            let known = cfg.src_vocab.contains(t);
            assert_eq!(enc.unknown.contains(&i), !known, "unknown lists token {i} {t:?} iff unknown");
            if !known {
                assert_eq!(enc.ids[i], 3, "an unknown source word maps to <unk>");
            } else {
                assert_eq!(cfg.src_vocab[enc.ids[i] as usize], *t);
            }
        }
    }
    if let Ok(enc) = tok.encode_tgt(&text) {
        assert_eq!(enc.ids.len(), enc.tokens.len());
        for (i, t) in enc.tokens.iter().enumerate() {
            assert_eq!(tok.tgt_token(enc.ids[i]), if enc.unknown.contains(&i) { "<unk>" } else { t.as_str() });
        }
    } else {
        assert!(text.split_whitespace().next().is_none(), "encode_tgt fails only on empty text (<unk> exists)");
    }

    // Korean: printing arbitrary id sequences.
    let ids: Vec<u32> = id_bytes.iter().map(|&b| u32::from(b & 0x7F)).collect();
    let copied = |i: usize| (id_bytes[i] & 0x80 != 0).then_some("copied");
    let (out, spans) = tok.detokenize_spans(&ids, copied);
    assert_eq!(spans.len(), ids.len());
    assert_eq!(tok.detokenize(&ids), tok.detokenize_spans(&ids, |_| None).0);
    let mut end = 0;
    for (i, span) in spans.iter().enumerate() {
        let id = ids[i];
        let silent = id == tok.bos || id == tok.eos || Some(id) == tok.pad();
        let Some(span) = span else {
            assert!(silent, "only <bos>/<eos>/<pad> print nothing (position {i})");
            continue;
        };
        assert!(!silent, "<bos>/<eos>/<pad> printed at position {i}");
        let covered = out.get(span.clone()).unwrap_or_else(|| panic!("span {span:?} of {out:?} off char boundaries"));
        assert!(span.end >= end, "spans go forward: {span:?} after end {end}");
        end = span.end;
        let vocab = tok.tgt_token(id);
        let body = match vocab.strip_prefix(cfg.tokenizer.glue_prefix.as_str()) {
            Some(rest) if !cfg.tokenizer.glue_prefix.is_empty() && !rest.is_empty() => rest,
            _ => vocab,
        };
        let shown = copied(i).unwrap_or(body);
        if !cfg.tokenizer.compose_jamo {
            assert_eq!(covered, shown, "position {i}: the span holds the token's text");
        } else {
            // Composed: the first jamo went into the syllable before; the rest follows it. A
            // later token may have composed into this one's last syllable (also across tokens
            // that print nothing, such as an empty glue token): compare without it.
            let overlapped = spans[i + 1..].iter().flatten().any(|later| later.start < span.end);
            let cut = |s: &str| -> String {
                let mut c = s.chars();
                if overlapped {
                    c.next_back();
                }
                c.collect()
            };
            let (covered, shown) = (cut(covered), cut(shown));
            let mut rest = shown.chars();
            rest.next();
            assert!(covered == shown || covered.ends_with(rest.as_str()), "position {i}: {covered:?} vs {shown:?}");
        }
    }
    assert_eq!(end, out.len(), "the last span ends the output");
}
