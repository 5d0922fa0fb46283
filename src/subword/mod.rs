//! Subword tokenizers that travel in the model file and agree exactly with Hugging Face.
//!
//! A model converted from Hugging Face carries its tokenizer as data: the vocabulary (the model's
//! `src_vocab` / `tgt_vocab`, index = id) and a [`SubwordConfig`] stored at metadata
//! `tokenizer.subword` (written by `train/convert_tokenizer.py`). [`Subword::new`] checks that
//! data and [`Subword::encode`] / [`Subword::decode`] run it, natively and in wasm (`no_std` +
//! `alloc`). Three algorithms, each as Hugging Face runs it:
//!
//! - **WordPiece** ([`wordpiece`]; BERT, Devlin et al. 2019, arXiv:1810.04805; the WordPiece
//!   model of Schuster & Nakajima 2012, "Japanese and Korean voice search", and Wu et al. 2016,
//!   arXiv:1609.08144): BERT's basic tokenizer (clean the text, split CJK ideographs, strip
//!   accents, lowercase, split on whitespace and punctuation), then greedy longest-match-first
//!   pieces with a `##` continuation prefix.
//! - **Byte-level BPE** ([`bpe`]; GPT-2, Radford et al. 2019; byte-pair encoding for subwords:
//!   Sennrich et al. 2016, arXiv:1508.07909): GPT-2's pre-tokenizer regex, UTF-8 bytes mapped to
//!   printable characters, then merges applied by rank.
//! - **Unigram** ([`unigram`]; SentencePiece, Kudo & Richardson 2018, arXiv:1808.06226; the
//!   unigram language model of Kudo 2018, arXiv:1804.10959): SentencePiece's normaliser (its
//!   precompiled character map, whitespace handling, the `▁` prefix), then the Viterbi
//!   segmentation that maximises the sum of piece scores. Marian's tokenizer.
//!
//! [`Subword::encode`] never adds special tokens (`[CLS]`, `</s>`): the engine adds those from
//! the model's `tokenizer.source_prefix` / `source_suffix`. Special tokens written inside the
//! text (`"[CLS]"`, `"<|endoftext|>"`) are not recognised as such: they are tokenised as text
//! (Hugging Face would match them as added tokens).
//!
//! Nothing here panics on any text or any stored data: bad data is an [`Error::Format`]
//! naming the problem, found by [`Subword::new`].
//!
//! [`Error::Format`]: crate::Error::Format

use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use crate::error::format_err;
use crate::Result;

pub mod bpe;
pub mod unigram;
pub mod wordpiece;

fn default_true() -> bool {
    true
}
fn default_prefix() -> String {
    String::from("##")
}
fn default_max_chars() -> usize {
    100
}
fn default_unk_piece() -> String {
    String::from("<unk>")
}

/// How a subword tokenizer splits text: the JSON object stored at metadata `tokenizer.subword`,
/// tagged by `kind` (`"word_piece"`, `"bpe"`, `"unigram"`). Fields with a default may be left
/// out. Example (WordPiece, BERT uncased):
///
/// ```json
/// {"kind": "word_piece", "lowercase": true, "strip_accents": null, "split_chinese": true,
///  "continuing_prefix": "##", "max_chars_per_word": 100, "decoder_cleanup": true,
///  "clean_up_spaces": false}
/// ```
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SubwordConfig {
    /// BERT's WordPiece (Hugging Face `BertNormalizer` + `BertPreTokenizer` + `WordPiece`).
    WordPiece {
        /// Lowercase the text (`do_lower_case`; default true).
        #[serde(default = "default_true")]
        lowercase: bool,
        /// Strip accents (NFD, then drop nonspacing marks); `None` (default): as `lowercase`.
        #[serde(default)]
        strip_accents: Option<bool>,
        /// Put spaces around CJK ideographs (`tokenize_chinese_chars`; default true).
        #[serde(default = "default_true")]
        split_chinese: bool,
        /// Prefix of a piece that continues a word (default `"##"`).
        #[serde(default = "default_prefix")]
        continuing_prefix: String,
        /// A word with more characters than this is one unknown token (default 100).
        #[serde(default = "default_max_chars")]
        max_chars_per_word: usize,
        /// Decoding: Hugging Face's WordPiece decoder `cleanup` (default true): a token ".",
        /// "?", "!" or "," glues to the word before it.
        #[serde(default = "default_true")]
        decoder_cleanup: bool,
        /// Decoding: `clean_up_tokenization_spaces` of `tokenizer_config.json` (default false).
        #[serde(default)]
        clean_up_spaces: bool,
    },
    /// GPT-2's byte-level BPE (Hugging Face `ByteLevel` pre-tokenizer and decoder + `BPE`).
    Bpe {
        /// The merges in rank order, each two tokens separated by one space (`"Ġ t"`).
        merges: Vec<String>,
        /// Put a space before text that does not start with one (default false).
        #[serde(default)]
        add_prefix_space: bool,
    },
    /// SentencePiece unigram (Marian's `source.spm` / `target.spm`).
    Unigram {
        /// The model's normal pieces with their scores (log probabilities), in model order.
        /// Control and unknown pieces are left out; the ids come from the vocabulary.
        pieces: Vec<(String, f32)>,
        /// The model's unknown piece (default `"<unk>"`); the Viterbi's unknown score is the
        /// lowest piece score minus 10, as in SentencePiece.
        #[serde(default = "default_unk_piece")]
        unk_piece: String,
        /// The normaliser's precompiled character map (`normalizer_spec.precompiled_charsmap`,
        /// standard base64); `None`: no character mapping (SentencePiece's `identity`).
        #[serde(default)]
        charsmap: Option<String>,
        /// Prefix the text with `▁` (default true).
        #[serde(default = "default_true")]
        add_dummy_prefix: bool,
        /// Drop leading and trailing whitespace and collapse runs of it (default true).
        #[serde(default = "default_true")]
        remove_extra_whitespaces: bool,
        /// Write spaces as `▁` (default true).
        #[serde(default = "default_true")]
        escape_whitespaces: bool,
        /// Decoding: tokens printed as they are, followed by a space, instead of as pieces
        /// (`MarianTokenizer`'s special tokens: `</s>`, `<unk>`, `<pad>`).
        #[serde(default)]
        special_tokens: Vec<String>,
        /// Decoding: `clean_up_tokenization_spaces` of `tokenizer_config.json` (default false).
        #[serde(default)]
        clean_up_spaces: bool,
        /// Marian's target-language code: text starting `>>xx<<` gives the token `>>xx<<` (looked
        /// up in the vocabulary) and the rest is encoded as usual (default false).
        #[serde(default)]
        language_code: bool,
    },
}

/// One token of an encoded text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Piece {
    /// Its id in the vocabulary (the unknown token's id when `known` is false).
    pub id: u32,
    /// The vocabulary token (`"##ing"`, `"Ġworld"`, `"▁hello"`) or, when unknown, the text that
    /// was not found (a word, a character run).
    pub text: String,
    /// False when the text was mapped to the unknown token.
    pub known: bool,
}

/// A ready subword tokenizer: a [`SubwordConfig`] checked against its vocabulary.
#[derive(Debug, Clone)]
pub struct Subword {
    vocab: Vec<String>,
    ids: HashMap<String, u32>,
    unk: Option<u32>,
    /// byte length of the longest token
    longest: usize,
    algo: Algo,
}

#[derive(Debug, Clone)]
enum Algo {
    WordPiece(wordpiece::WordPiece),
    Bpe(alloc::boxed::Box<bpe::Bpe>),
    Unigram(unigram::Unigram),
}

impl Subword {
    /// Check `cfg` against `vocab` (token by id) and build the tokenizer. `unk` is the unknown
    /// token (the model's `specials.unk`); WordPiece and unigram need it, byte-level BPE uses it
    /// only for a byte whose symbol is missing from the vocabulary (without it such a byte is
    /// dropped, as Hugging Face does). Every problem is an `Error::Format` naming it: an empty
    /// vocabulary, a repeated token, an `unk` not in the vocabulary, a merge naming unknown
    /// tokens, a non-finite score, a malformed character map.
    pub fn new(cfg: &SubwordConfig, vocab: &[String], unk: Option<&str>) -> Result<Subword> {
        if vocab.is_empty() {
            return Err(format_err!("subword tokenizer: the vocabulary is empty"));
        }
        if vocab.len() > u32::MAX as usize {
            return Err(format_err!("subword tokenizer: the vocabulary has more than 2^32 tokens"));
        }
        let mut ids = HashMap::with_capacity(vocab.len());
        for (i, t) in vocab.iter().enumerate() {
            if ids.insert(t.clone(), i as u32).is_some() {
                return Err(format_err!("subword tokenizer: the vocabulary repeats the token {t:?}"));
            }
        }
        let unk = match unk {
            None => None,
            Some(u) => match ids.get(u) {
                Some(&id) => Some(id),
                None => return Err(format_err!("subword tokenizer: the unknown token {u:?} is not in the vocabulary")),
            },
        };
        let algo = match cfg {
            SubwordConfig::WordPiece { .. } => {
                if unk.is_none() {
                    return Err(format_err!("WordPiece tokenizer: no unknown token given"));
                }
                Algo::WordPiece(wordpiece::WordPiece::new(cfg)?)
            }
            SubwordConfig::Bpe { merges, add_prefix_space } => {
                Algo::Bpe(alloc::boxed::Box::new(bpe::Bpe::new(merges, *add_prefix_space, &ids)?))
            }
            SubwordConfig::Unigram { .. } => {
                if unk.is_none() {
                    return Err(format_err!("unigram tokenizer: no unknown token given"));
                }
                Algo::Unigram(unigram::Unigram::new(cfg)?)
            }
        };
        let longest = vocab.iter().map(String::len).max().unwrap_or(0);
        Ok(Subword { vocab: vocab.to_vec(), ids, unk, longest, algo })
    }

    /// Split `text` into vocabulary pieces, as Hugging Face's tokenizer does without special
    /// tokens (`tokenizer(text, add_special_tokens=False)`). Empty or whitespace-only text
    /// gives no piece.
    pub fn encode(&self, text: &str) -> Vec<Piece> {
        let mut out = Vec::new();
        match &self.algo {
            Algo::WordPiece(w) => w.encode(text, &self.ids, self.unk.unwrap_or(0), self.longest, &mut out),
            Algo::Bpe(b) => b.encode(text, &self.vocab, self.unk, &mut out),
            Algo::Unigram(u) => u.encode(text, &self.ids, self.unk.unwrap_or(0), &mut out),
        }
        out
    }

    /// The ids of [`Subword::encode`].
    pub fn encode_ids(&self, text: &str) -> Vec<u32> {
        self.encode(text).into_iter().map(|p| p.id).collect()
    }

    /// Text from ids, as Hugging Face's `decode(ids, skip_special_tokens=False)`: WordPiece
    /// joins with spaces and glues `##` pieces; byte-level BPE turns the symbols back into bytes
    /// and reads them as UTF-8 (invalid sequences become U+FFFD); unigram writes `▁` as a space
    /// and trims. Ids past the vocabulary are skipped.
    pub fn decode(&self, ids: &[u32]) -> String {
        let tokens: Vec<&str> = ids.iter().filter_map(|&i| self.vocab.get(i as usize)).map(String::as_str).collect();
        match &self.algo {
            Algo::WordPiece(w) => w.decode(&tokens),
            Algo::Bpe(b) => b.decode(&tokens),
            Algo::Unigram(u) => u.decode(&tokens),
        }
    }

    /// The id of a vocabulary token.
    pub fn id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// The vocabulary (token by id).
    pub fn vocab(&self) -> &[String] {
        &self.vocab
    }
}

/// `clean_up_tokenization` of Hugging Face transformers (`clean_up_tokenization_spaces`).
pub(crate) fn clean_up_tokenization(text: &str) -> String {
    replace_all(text, CLEAN_UP)
}

/// The spaces `clean_up_tokenization` removes, in its order (WordPiece's decoder adds
/// `(" do not", " don't")` after `" 'm"`).
pub(crate) const CLEAN_UP: &[(&str, &str)] = &[
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
];

/// `text` with each `(from, to)` replaced everywhere, one pair after the other.
pub(crate) fn replace_all(text: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = String::from(text);
    for (from, to) in pairs {
        if s.contains(from) {
            s = s.replace(from, to);
        }
    }
    s
}
