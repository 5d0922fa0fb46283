//! Words to ids and back, for the vocabularies stored in the model file.
//!
//! Source (English) text: lowercased (setting `lowercase`), `’` read as `'`, split on
//! whitespace; inside a chunk, runs of letters and digits (with apostrophes between letters)
//! are words and every other character is a token of its own; then contractions are split
//! (setting `contractions`): a word ending in `n't` gives `[stem, "n't"]` ("don't" -> "do"
//! "n't"), any other word with an apostrophe gives `[before, "'" + after]` ("she's" -> "she"
//! "'s"). Words outside the vocabulary map to `<unk>` and are reported, never dropped.
//!
//! Target (Korean) text splits on whitespace. A translation is printed by joining target
//! tokens with spaces, except that tokens listed in the `glue` setting (particles, endings,
//! punctuation) attach to the token before them.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::config::{Config, TokenizerConfig};
use crate::error::input_err;
use crate::Result;

/// A tokenised sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Encoded {
    /// The tokens as split (before vocabulary lookup).
    pub tokens: Vec<String>,
    /// Their ids; unknown tokens get the `<unk>` id.
    pub ids: Vec<u32>,
    /// Positions (into `tokens`) of the tokens that are not in the vocabulary.
    pub unknown: Vec<usize>,
}

/// The vocabularies and settings of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct Tokenizer {
    settings: TokenizerConfig,
    src: BTreeMap<String, u32>,
    tgt: BTreeMap<String, u32>,
    tgt_vocab: Vec<String>,
    src_unk: u32,
    tgt_unk: Option<u32>,
    pad: Option<u32>,
    /// Id of `<bos>` in the target vocabulary.
    pub bos: u32,
    /// Id of `<eos>` in the target vocabulary.
    pub eos: u32,
}

/// Split English text into tokens (see the module docs for the rules).
pub fn split_words(text: &str, lowercase: bool, contractions: bool) -> Vec<String> {
    let text = text.replace('\u{2019}', "'");
    let text = if lowercase { text.to_lowercase() } else { text };
    let mut out = Vec::new();
    for chunk in text.split_whitespace() {
        let chars: Vec<char> = chunk.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let inside = |k: usize| {
                chars[k].is_alphanumeric()
                    || (chars[k] == '\''
                        && k > 0
                        && k + 1 < chars.len()
                        && chars[k - 1].is_alphanumeric()
                        && chars[k + 1].is_alphanumeric())
            };
            if chars[i].is_alphanumeric() {
                let start = i;
                while i < chars.len() && inside(i) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                push_word(word, contractions, &mut out);
            } else {
                // A symbol, with what belongs to it: variation selectors, skin tones, keycaps,
                // and zero-width-joined emoji ("❤️", "👍🏽", "👩‍💻" stay one token each).
                let start = i;
                i += 1;
                while i < chars.len() && (is_modifier(chars[i]) || chars[i - 1] == '\u{200D}') {
                    i += 1;
                }
                out.push(chars[start..i].iter().collect());
            }
        }
    }
    out
}

fn is_modifier(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{200D}' | '\u{20E3}' | '\u{1F3FB}'..='\u{1F3FF}' | '\u{E0020}'..='\u{E007F}')
}

fn push_word(word: String, contractions: bool, out: &mut Vec<String>) {
    if contractions {
        if word.len() > 3 && word.ends_with("n't") {
            out.push(word[..word.len() - 3].to_string());
            out.push("n't".to_string());
            return;
        }
        if let Some(pos) = word.find('\'') {
            out.push(word[..pos].to_string());
            out.push(word[pos..].to_string());
            return;
        }
    }
    out.push(word);
}

fn index(vocab: &[String]) -> BTreeMap<String, u32> {
    let mut map = BTreeMap::new();
    for (i, w) in vocab.iter().enumerate() {
        map.entry(w.clone()).or_insert(i as u32); // first occurrence wins
    }
    map
}

impl Tokenizer {
    /// Build from a validated config (the special tokens are known to be present).
    pub fn new(cfg: &Config) -> Tokenizer {
        let src = index(&cfg.src_vocab);
        let tgt = index(&cfg.tgt_vocab);
        let s = &cfg.specials;
        Tokenizer {
            settings: cfg.tokenizer.clone(),
            src_unk: src.get(&s.unk).copied().unwrap_or(0),
            tgt_unk: tgt.get(&s.unk).copied(),
            pad: tgt.get(&s.pad).copied(),
            bos: tgt.get(&s.bos).copied().unwrap_or(0),
            eos: tgt.get(&s.eos).copied().unwrap_or(0),
            src,
            tgt,
            tgt_vocab: cfg.tgt_vocab.clone(),
        }
    }

    /// Split English text into tokens with this model's settings.
    pub fn split(&self, text: &str) -> Vec<String> {
        split_words(text, self.settings.lowercase, self.settings.contractions)
    }

    /// Tokenise source text. Empty text (no tokens) is an error; unknown words are reported.
    pub fn encode_src(&self, text: &str) -> Result<Encoded> {
        let tokens = self.split(text);
        if tokens.is_empty() {
            return Err(input_err!("the source text is empty"));
        }
        let mut unknown = Vec::new();
        let ids = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| {
                self.src.get(t).copied().unwrap_or_else(|| {
                    unknown.push(i);
                    self.src_unk
                })
            })
            .collect();
        Ok(Encoded { tokens, ids, unknown })
    }

    /// Tokenise target text (whitespace-separated target tokens). Unknown tokens map to
    /// `<unk>` if the target vocabulary has one, else they are an error.
    pub fn encode_tgt(&self, text: &str) -> Result<Encoded> {
        let tokens: Vec<String> = text.split_whitespace().map(String::from).collect();
        if tokens.is_empty() {
            return Err(input_err!("the target text is empty"));
        }
        let mut unknown = Vec::new();
        let mut ids = Vec::with_capacity(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            match (self.tgt.get(t), self.tgt_unk) {
                (Some(&id), _) => ids.push(id),
                (None, Some(unk)) => {
                    unknown.push(i);
                    ids.push(unk)
                }
                (None, None) => return Err(input_err!("target token {t:?} is not in the vocabulary")),
            }
        }
        Ok(Encoded { tokens, ids, unknown })
    }

    /// The target token of an id (`"?"` outside the vocabulary).
    pub fn tgt_token(&self, id: u32) -> &str {
        self.tgt_vocab.get(id as usize).map_or("?", String::as_str)
    }

    /// Print target ids as text: `<bos>`/`<eos>`/`<pad>` dropped, glue tokens attached to the previous one.
    pub fn detokenize(&self, ids: &[u32]) -> String {
        let mut out = String::new();
        for &id in ids.iter().filter(|&&id| id != self.bos && id != self.eos && Some(id) != self.pad) {
            let tok = self.tgt_token(id);
            if !out.is_empty() && !self.settings.glue.iter().any(|g| g == tok) {
                out.push(' ');
            }
            out.push_str(tok);
        }
        out
    }
}
