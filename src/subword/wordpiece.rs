//! WordPiece as BERT uses it (Devlin et al. 2019, arXiv:1810.04805, section 3 and the released
//! `tokenization.py`), exactly as Hugging Face `tokenizers` runs it (`BertNormalizer`,
//! `BertPreTokenizer`, `models::WordPiece`, `decoders::WordPiece`).
//!
//! 1. Clean: drop U+0000, U+FFFD and control characters (general category Cc, Cf, Co, Cs, except
//!    tab, newline and carriage return); every whitespace character (tab, newline, CR and the
//!    Unicode `White_Space` property) becomes a space.
//! 2. CJK: a CJK ideograph (the Unified Ideographs blocks and extensions A-F, the compatibility
//!    ideographs) gets a space on each side, so it is a word of its own (`split_chinese`).
//! 3. Accents (`strip_accents`, by default as `lowercase`): canonical decomposition ([`nfd`]), then
//!    nonspacing marks (Mn) are dropped: `café` -> `cafe`.
//! 4. Lowercase (`lowercase`): each character's Unicode lowercase mapping, one character at a
//!    time (so `Σ` is always `σ`, never the final `ς`).
//! 5. Words: split on whitespace, then every punctuation character is a word of its own, where
//!    punctuation is a Unicode P* category or ASCII 33-47, 58-64, 91-96, 123-126 (`$`, `+`, `<`,
//!    `^`, `` ` `` and `~` too).
//! 6. Pieces, per word (Wu et al. 2016, arXiv:1609.08144, greedy longest-match-first): a word of
//!    more than `max_chars_per_word` characters is one unknown token; otherwise take the longest
//!    prefix in the vocabulary, then the longest continuation (spelled `##` + rest) from where it
//!    ended, and so on. If some position has no match, the whole word is one unknown token.
//!
//! Decoding joins tokens with spaces, except that a token starting with `##` glues to the one
//! before it (prefix removed); with `decoder_cleanup` a token `.`, `?`, `!`, `,` glues too.

use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;
use unicode_normalization::char::{canonical_combining_class, decompose_canonical};
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

use super::{Piece, SubwordConfig};
use crate::error::format_err;
use crate::Result;

/// The settings of a WordPiece tokenizer (see the module docs).
#[derive(Debug, Clone)]
pub struct WordPiece {
    lowercase: bool,
    strip_accents: bool,
    split_chinese: bool,
    prefix: String,
    max_chars: usize,
    decoder_cleanup: bool,
    clean_up_spaces: bool,
}

/// A BERT control character: general category Cc, Cf, Co or Cs, except tab, newline, CR.
pub fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        c.general_category(),
        GeneralCategory::Control | GeneralCategory::Format | GeneralCategory::PrivateUse | GeneralCategory::Surrogate
    )
}

/// BERT whitespace: tab, newline, CR or the Unicode `White_Space` property.
pub fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// BERT punctuation: a Unicode P* category or ASCII 33-47, 58-64, 91-96, 123-126.
pub fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.general_category_group() == GeneralCategoryGroup::Punctuation
}

/// A CJK ideograph as BERT's `_is_chinese_char` defines it.
pub fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

impl WordPiece {
    pub(super) fn new(cfg: &SubwordConfig) -> Result<WordPiece> {
        let SubwordConfig::WordPiece {
            lowercase,
            strip_accents,
            split_chinese,
            continuing_prefix,
            max_chars_per_word,
            decoder_cleanup,
            clean_up_spaces,
        } = cfg
        else {
            return Err(format_err!("WordPiece tokenizer built from another kind of configuration"));
        };
        if *max_chars_per_word == 0 {
            return Err(format_err!("WordPiece tokenizer: max_chars_per_word must be at least 1"));
        }
        Ok(WordPiece {
            lowercase: *lowercase,
            strip_accents: strip_accents.unwrap_or(*lowercase),
            split_chinese: *split_chinese,
            prefix: continuing_prefix.clone(),
            max_chars: *max_chars_per_word,
            decoder_cleanup: *decoder_cleanup,
            clean_up_spaces: *clean_up_spaces,
        })
    }

    /// Steps 1-4 of the module docs: the normalised text.
    pub fn normalize(&self, text: &str) -> String {
        let mut s = String::with_capacity(text.len());
        for c in text.chars() {
            if c == '\0' || c == '\u{FFFD}' || is_control(c) {
                continue;
            }
            let c = if is_whitespace(c) { ' ' } else { c };
            if self.split_chinese && is_chinese_char(c) {
                s.push(' ');
                s.push(c);
                s.push(' ');
            } else {
                s.push(c);
            }
        }
        if self.strip_accents {
            s = nfd(&s).into_iter().filter(|&c| c.general_category() != GeneralCategory::NonspacingMark).collect();
        }
        if self.lowercase {
            let mut low = String::with_capacity(s.len());
            for c in s.chars() {
                low.extend(c.to_lowercase());
            }
            s = low;
        }
        s
    }

    /// `longest`: the byte length of the longest vocabulary token (no match can be longer, so
    /// the search for one starts there: the same result in linear time on huge words).
    pub(super) fn encode(
        &self,
        text: &str,
        ids: &HashMap<String, u32>,
        unk: u32,
        longest: usize,
        out: &mut Vec<Piece>,
    ) {
        let norm = self.normalize(text);
        for chunk in norm.split(is_whitespace) {
            let mut start = 0;
            for (i, c) in chunk.char_indices() {
                if is_punctuation(c) {
                    if start < i {
                        self.word(&chunk[start..i], ids, unk, longest, out);
                    }
                    let end = i + c.len_utf8();
                    self.word(&chunk[i..end], ids, unk, longest, out);
                    start = end;
                }
            }
            if start < chunk.len() {
                self.word(&chunk[start..], ids, unk, longest, out);
            }
        }
    }

    /// Step 6: one word's pieces.
    fn word(&self, word: &str, ids: &HashMap<String, u32>, unk: u32, longest: usize, out: &mut Vec<Piece>) {
        let unknown = |out: &mut Vec<Piece>| out.push(Piece { id: unk, text: String::from(word), known: false });
        if word.chars().count() > self.max_chars {
            return unknown(out);
        }
        let first = out.len();
        let mut key = String::new();
        let mut start = 0;
        while start < word.len() {
            // the longest candidate that could be a token, cut back to a char boundary
            let room = longest.saturating_sub(if start > 0 { self.prefix.len() } else { 0 });
            let mut end = word.len().min(start.saturating_add(room));
            while !word.is_char_boundary(end) {
                end -= 1;
            }
            let mut found = None;
            while start < end {
                key.clear();
                if start > 0 {
                    key.push_str(&self.prefix);
                }
                key.push_str(&word[start..end]);
                if let Some(&id) = ids.get(key.as_str()) {
                    found = Some(id);
                    break;
                }
                // back off one character
                end = word[..end].char_indices().next_back().map_or(start, |(i, _)| i);
            }
            let Some(id) = found else {
                out.truncate(first);
                return unknown(out);
            };
            out.push(Piece { id, text: key.clone(), known: true });
            start = end;
        }
    }

    pub(super) fn decode(&self, tokens: &[&str]) -> String {
        let mut s = String::new();
        for (i, t) in tokens.iter().enumerate() {
            let piece = if i == 0 {
                String::from(*t)
            } else if let Some(rest) = t.strip_prefix(self.prefix.as_str()) {
                String::from(rest)
            } else {
                alloc::format!(" {t}")
            };
            if self.decoder_cleanup {
                s.push_str(&cleanup(&piece));
            } else {
                s.push_str(&piece);
            }
        }
        if self.clean_up_spaces {
            s = super::clean_up_tokenization(&s);
        }
        s
    }
}

/// Canonical decomposition (NFD, Unicode Standard Annex #15): every character fully decomposed,
/// then each run of non-starters (canonical combining class > 0) stably sorted by class. Written
/// here over `unicode-normalization`'s per-character tables because its `nfd()` iterator costs
/// about 70 KB more of wasm for the same result.
pub fn nfd(s: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::with_capacity(s.len());
    for c in s.chars() {
        decompose_canonical(c, |d| out.push(d));
    }
    let mut i = 0;
    while i < out.len() {
        if canonical_combining_class(out[i]) == 0 {
            i += 1;
            continue;
        }
        let start = i;
        while i < out.len() && canonical_combining_class(out[i]) != 0 {
            i += 1;
        }
        out[start..i].sort_by_key(|&c| canonical_combining_class(c)); // stable
    }
    out
}

/// `tokenizers::decoders::wordpiece::cleanup`, applied to one token (with its leading space):
/// transformers' clean-up with `" do not"` -> `" don't"` after `" 'm"`.
fn cleanup(token: &str) -> String {
    let (before, after) = super::CLEAN_UP.split_at(7); // up to and including " 'm"
    let pairs: Vec<(&str, &str)> =
        before.iter().copied().chain([(" do not", " don't")]).chain(after.iter().copied()).collect();
    super::replace_all(token, &pairs)
}
