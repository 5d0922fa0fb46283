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
//! punctuation) attach to the token before them, and so do tokens that start with the
//! `glue_prefix` marker (printed without it: `+는` -> 는), which lets a suffix and a word that
//! are written alike stay two tokens. `<bos>`, `<eos>` and `<pad>` never print.
//!
//! ## Jamo composition (setting `compose_jamo`, default off)
//!
//! A Korean ending may begin with a consonant that belongs in the previous syllable as its final
//! consonant (받침): the past tense 었/았 is 어/아 + ㅆ, the adnominal 큰 is 크 + ㄴ. With
//! `compose_jamo` on, the target vocabulary may hold such endings as glue tokens starting with a
//! Hangul compatibility jamo, and printing composes them. The rule, exactly:
//!
//! 1. Only a glue token (listed, or marked by `glue_prefix`, which is removed first) is considered, and only when something was printed before
//!    it (a glue token first in the sentence prints as is).
//! 2. Its first character `j` must be a compatibility jamo consonant, U+3131..=U+314E, that can
//!    be a final consonant: every one except ㄸ (U+3138), ㅃ (U+3143) and ㅉ (U+3149). Its
//!    final-consonant index `T` (1..=27) is the position in the standard order
//!    ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄹ ㄺ ㄻ ㄼ ㄽ ㄾ ㄿ ㅀ ㅁ ㅂ ㅄ ㅅ ㅆ ㅇ ㅈ ㅊ ㅋ ㅌ ㅍ ㅎ (ㄱ = 1, ㄴ = 4,
//!    ㄹ = 8, ㅁ = 16, ㅂ = 17, ㅅ = 19, ㅆ = 20, ㅎ = 27).
//! 3. The last character printed so far, `s`, must be a precomposed Hangul syllable
//!    (U+AC00..=U+D7A3) without a final consonant: `(s - 0xAC00) % 28 == 0`.
//! 4. Then `s` is replaced by the syllable `s + T` and the rest of the token (after `j`) is
//!    appended: 가 (U+AC00) + ㅆ다 -> 갔 (U+AC00 + 20 = U+AC14) 다 = 갔다.
//!
//! Otherwise the token is printed unchanged, glued as usual (먹 + ㄴ -> 먹ㄴ: 먹 already has a
//! final consonant). Examples: 가 + ㄴ다 -> 간다, 크 + ㄴ -> 큰, 먹어 + ㅆ다 -> 먹었다, 하 + ㄹ -> 할.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Range;

use crate::config::{Config, TokenizerConfig};
use crate::error::input_err;
#[cfg(feature = "subword")]
use crate::subword::Subword;
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
#[derive(Debug, Clone)]
pub struct Tokenizer {
    settings: TokenizerConfig,
    src: WordIndex,
    tgt: WordIndex,
    tgt_vocab: Vec<String>,
    src_unk: u32,
    /// The mask token of a masked-language model and its source id.
    mask: Option<(String, u32)>,
    tgt_unk: Option<u32>,
    pad: Option<u32>,
    /// Id of `<bos>` in the target vocabulary.
    pub bos: u32,
    /// Id of `<eos>` in the target vocabulary.
    pub eos: u32,
    /// The source side's subword tokenizer, when the model carries one.
    #[cfg(feature = "subword")]
    src_subword: Option<Subword>,
    /// The target side's subword tokenizer (`target_subword`, else `subword`).
    #[cfg(feature = "subword")]
    tgt_subword: Option<Subword>,
}

/// `PartialEq` for [`Tokenizer`]: the same settings and vocabularies make the same tokenizer.
impl PartialEq for Tokenizer {
    fn eq(&self, other: &Tokenizer) -> bool {
        self.settings == other.settings && self.src == other.src && self.tgt == other.tgt
    }
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

/// Each word of a vocabulary to its position, the first one where a word is listed twice.
pub(crate) type WordIndex = hashbrown::HashMap<String, u32>;

/// The [`WordIndex`] of `words`. A hash map: a sorted one spent most of a browser's first
/// loading of the demo model (about 13,000 words) comparing strings.
pub(crate) fn word_index(words: &[String]) -> WordIndex {
    let mut map = WordIndex::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        map.entry(w.clone()).or_insert(i as u32); // first occurrence wins
    }
    map
}

impl Tokenizer {
    /// Build from a validated config (the special tokens are known to be present). An error
    /// when its subword tokenizer's data is broken (or, in a build without the `subword`
    /// feature, when it has one).
    pub fn new(cfg: &Config) -> Result<Tokenizer> {
        let src = word_index(&cfg.src_vocab);
        let tgt = word_index(&cfg.tgt_vocab);
        let s = &cfg.specials;
        let t = &cfg.tokenizer;
        #[cfg(not(feature = "subword"))]
        if t.subword.is_some() || t.target_subword.is_some() {
            return Err(crate::error::format_err!("this build has no subword tokenizers (cargo feature \"subword\")"));
        }
        #[cfg(feature = "subword")]
        let side = |spec: Option<&crate::config::SubwordSpec>, vocab: &[String]| -> Result<Option<Subword>> {
            match spec {
                Some(spec) if !vocab.is_empty() => Ok(Some(Subword::new(
                    spec,
                    vocab,
                    Some(s.unk.as_str()).filter(|u| vocab.contains(&alloc::string::String::from(*u))),
                )?)),
                _ => Ok(None),
            }
        };
        Ok(Tokenizer {
            #[cfg(feature = "subword")]
            src_subword: side(t.subword.as_ref(), &cfg.src_vocab)?,
            #[cfg(feature = "subword")]
            tgt_subword: side(t.target_subword.as_ref().or(t.subword.as_ref()), &cfg.tgt_vocab)?,
            settings: cfg.tokenizer.clone(),
            src_unk: src.get(&s.unk).copied().unwrap_or(0),
            mask: s.mask.as_ref().and_then(|m| Some((m.clone(), src.get(m).copied()?))),
            tgt_unk: tgt.get(&s.unk).copied(),
            pad: tgt.get(&s.pad).copied(),
            bos: tgt.get(&s.bos).copied().unwrap_or(0),
            eos: tgt.get(&s.eos).copied().unwrap_or(0),
            src,
            tgt,
            tgt_vocab: cfg.tgt_vocab.clone(),
        })
    }

    /// `text` in source tokens: the subword tokenizer's pieces, or the word tokenizer's words
    /// looked up; `(token, id, known)` each.
    fn src_pieces(&self, text: &str) -> Vec<(String, u32, bool)> {
        #[cfg(feature = "subword")]
        if let Some(sub) = &self.src_subword {
            return sub.encode(text).into_iter().map(|p| (p.text, p.id, p.known)).collect();
        }
        self.split(text)
            .into_iter()
            .map(|w| match self.src.get(&w) {
                Some(&id) => (w, id, true),
                None => (w, self.src_unk, false),
            })
            .collect()
    }

    /// Split English text into tokens with this model's settings.
    pub fn split(&self, text: &str) -> Vec<String> {
        split_words(text, self.settings.lowercase, self.settings.contractions)
    }

    /// Tokenise source text, with the `source_prefix` and `source_suffix` tokens around it
    /// (BERT's `[CLS]` ... `[SEP]`). Empty text (no tokens) is an error; unknown words are
    /// reported.
    pub fn encode_src(&self, text: &str) -> Result<Encoded> {
        // the mask token (BERT's [MASK]) is never split: the text around it is
        let pieces: Vec<(String, u32, bool)> = match &self.mask {
            Some((mask, mask_id)) => {
                let mut pieces = Vec::new();
                for (i, part) in text.split(mask.as_str()).enumerate() {
                    if i > 0 {
                        pieces.push((mask.clone(), *mask_id, true));
                    }
                    pieces.extend(self.src_pieces(part));
                }
                pieces
            }
            None => self.src_pieces(text),
        };
        if pieces.is_empty() {
            return Err(input_err!("the source text is empty"));
        }
        let s = &self.settings;
        let special = |t: &String| (t.clone(), self.src.get(t).copied().unwrap_or(self.src_unk), true);
        let all: Vec<(String, u32, bool)> =
            s.source_prefix.iter().map(special).chain(pieces).chain(s.source_suffix.iter().map(special)).collect();
        let unknown = (0..all.len()).filter(|&i| !all[i].2).collect();
        let (tokens, ids) = all.into_iter().map(|(t, id, _)| (t, id)).unzip();
        Ok(Encoded { tokens, ids, unknown })
    }

    /// The source id of the masked-language model's mask token, if the model has one.
    pub fn mask(&self) -> Option<u32> {
        self.mask.as_ref().map(|m| m.1)
    }

    /// Tokenise target text (whitespace-separated target tokens). Unknown tokens map to
    /// `<unk>` if the target vocabulary has one, else they are an error.
    pub fn encode_tgt(&self, text: &str) -> Result<Encoded> {
        #[cfg(feature = "subword")]
        if let Some(sub) = &self.tgt_subword {
            let pieces = sub.encode(text);
            if pieces.is_empty() {
                return Err(input_err!("the target text is empty"));
            }
            let unknown = (0..pieces.len()).filter(|&i| !pieces[i].known).collect();
            let (tokens, ids) = pieces.into_iter().map(|p| (p.text, p.id)).unzip();
            return Ok(Encoded { tokens, ids, unknown });
        }
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

    /// Id of the target vocabulary's `<pad>`, if it has one.
    pub fn pad(&self) -> Option<u32> {
        self.pad
    }

    /// Id of the source vocabulary's `<unk>`: every unknown source word's id.
    pub fn src_unk(&self) -> u32 {
        self.src_unk
    }

    /// Id of the target vocabulary's `<unk>`, if it has one.
    pub fn tgt_unk(&self) -> Option<u32> {
        self.tgt_unk
    }

    /// Print target ids as text: `<bos>`/`<eos>`/`<pad>` dropped, glue tokens attached to the
    /// previous one (composing jamo when `compose_jamo` is on; see the module docs).
    pub fn detokenize(&self, ids: &[u32]) -> String {
        self.detokenize_with(ids, |_| None)
    }

    /// [`Tokenizer::detokenize`], except that the token at position `i` of `ids` prints as
    /// `text(i)` when that is `Some` (a copied source word in place of `<unk>`). Whether it is
    /// glued still depends on the vocabulary token.
    pub fn detokenize_with<'a>(&self, ids: &[u32], text: impl Fn(usize) -> Option<&'a str>) -> String {
        self.detokenize_spans(ids, text).0
    }

    /// [`Tokenizer::detokenize_with`], also telling where each position of `ids` was printed:
    /// the byte range of the output it wrote, `None` for a token that prints nothing (`<bos>`,
    /// `<eos>`, `<pad>`). A jamo composed into the syllable before it covers that syllable.
    pub fn detokenize_spans<'a>(
        &self,
        ids: &[u32],
        text: impl Fn(usize) -> Option<&'a str>,
    ) -> (String, Vec<Option<Range<usize>>>) {
        #[cfg(feature = "subword")]
        if let Some(sub) = &self.tgt_subword {
            return self.subword_spans(sub, ids);
        }
        let mut out = String::new();
        let mut spans = Vec::with_capacity(ids.len());
        for (i, &id) in ids.iter().enumerate() {
            if id == self.bos || id == self.eos || Some(id) == self.pad {
                spans.push(None);
                continue;
            }
            let tok = self.tgt_token(id);
            let marker = &self.settings.glue_prefix;
            let (glued, body) = match tok.strip_prefix(marker.as_str()) {
                Some(rest) if !marker.is_empty() && !rest.is_empty() => (true, rest),
                _ => (self.settings.glue.iter().any(|g| g == tok), tok),
            };
            let shown = text(i).unwrap_or(body);
            if !out.is_empty() && !glued {
                out.push(' ');
            }
            let mut start = out.len();
            let last = out.chars().next_back().map_or(0, char::len_utf8);
            if !out.is_empty() && glued && self.settings.compose_jamo && compose_final(&mut out, shown) {
                start -= last; // the composed syllable belongs to this token too
            } else {
                out.push_str(shown);
            }
            spans.push(Some(start..out.len()));
        }
        (out, spans)
    }
}

#[cfg(feature = "subword")]
impl Tokenizer {
    /// [`Tokenizer::detokenize_spans`] through a subword tokenizer: the specials dropped, the
    /// rest decoded as Hugging Face does; token `i` covers what decoding the first `i + 1`
    /// tokens added to the text (`None` when it added nothing).
    fn subword_spans(&self, sub: &Subword, ids: &[u32]) -> (String, Vec<Option<Range<usize>>>) {
        let mut kept = Vec::with_capacity(ids.len());
        let mut spans = Vec::with_capacity(ids.len());
        let mut end = 0;
        for &id in ids {
            if id == self.bos || id == self.eos || Some(id) == self.pad {
                spans.push(None);
                continue;
            }
            kept.push(id);
            let text = sub.decode(&kept);
            let start = end.min(text.len());
            end = text.len();
            spans.push((end > start).then_some(start..end));
        }
        (sub.decode(&kept), spans)
    }
}

/// The final-consonant index `T` (1..=27) of a Hangul compatibility jamo consonant, or `None`
/// for every other character (and for ㄸ, ㅃ, ㅉ, which are never final).
pub fn final_index(j: char) -> Option<u32> {
    // U+3131 ㄱ .. U+314E ㅎ, in code point order; 0 = cannot be a final consonant
    #[rustfmt::skip]
    const T: [u32; 30] = [
        1, 2, 3, 4, 5, 6, 7, 0, 8, 9, 10, 11, 12, 13, 14, 15, // ㄱ ㄲ ㄳ ㄴ ㄵ ㄶ ㄷ ㄸ ㄹ ㄺ .. ㅀ
        16, 17, 0, 18, 19, 20, 21, 22, 0, 23, 24, 25, 26, 27, // ㅁ ㅂ ㅃ ㅄ ㅅ ㅆ ㅇ ㅈ ㅉ ㅊ ㅋ ㅌ ㅍ ㅎ
    ];
    let k = (j as u32).checked_sub(0x3131)?;
    T.get(k as usize).copied().filter(|&t| t > 0)
}

/// If `token` starts with a jamo that can be a final consonant and `out` ends with a Hangul
/// syllable without one, put it there and append the rest of `token`; `false` (and `out`
/// unchanged) otherwise.
fn compose_final(out: &mut String, token: &str) -> bool {
    let mut chars = token.chars();
    let Some(t) = chars.next().and_then(final_index) else { return false };
    let Some(last) = out.chars().next_back() else { return false };
    let s = last as u32;
    if !(0xAC00..=0xD7A3).contains(&s) || (s - 0xAC00) % 28 != 0 {
        return false;
    }
    let Some(composed) = char::from_u32(s + t) else { return false };
    out.pop();
    out.push(composed);
    out.push_str(chars.as_str());
    true
}
