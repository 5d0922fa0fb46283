//! SentencePiece's unigram model (Kudo & Richardson 2018, arXiv:1808.06226; the unigram language
//! model: Kudo 2018, arXiv:1804.10959), exactly as the `sentencepiece` library encodes (Marian's
//! `source.spm` / `target.spm`, read by Hugging Face's `MarianTokenizer`).
//!
//! 1. Normalise (SentencePiece `normalizer.cc`): at each position the longest match of the
//!    precompiled character map (a Darts double-array trie over UTF-8 bytes, followed by the
//!    NUL-terminated replacement strings; for the default `nmt_nfkc` it holds NFKC plus
//!    SentencePiece's extra rules: control characters removed, every kind of space made a
//!    space) replaces the matched bytes; an unmatched character stays. With
//!    `remove_extra_whitespaces`, leading and trailing spaces are dropped and runs of spaces
//!    collapse to one; with `add_dummy_prefix` the text gets a leading space; with
//!    `escape_whitespaces` every space is written `▁` (U+2581).
//! 2. Segment (Viterbi): of all ways to cut the normalised text into pieces of the model, take
//!    the one whose scores (log probabilities) sum highest. A character that starts no
//!    one-character piece may also be taken alone as the unknown piece, scored the lowest piece
//!    score minus 10. Ties keep the path found first (the earliest start, then the shortest
//!    piece). Consecutive unknown characters are then one unknown piece.
//!
//! With `language_code` (Marian), text that starts with `>>` and has a `<<` first gives the token
//! from `>>` to the end of `<<` (a target-language code such as `>>fr<<`) before the pieces of
//! the rest, as `MarianTokenizer` does.
//!
//! 3. Ids: each piece, and each unknown run's text, is looked up in the model's vocabulary
//!    (Marian's `vocab.json`, which may hold the other side's pieces too); what is not there gets
//!    the unknown id.
//!
//! Decoding is `MarianTokenizer.decode` with this side's model: a token listed in
//! `special_tokens` is written as it is, followed by a space; the runs of other tokens between
//! them are SentencePiece's `DecodePieces` (a piece of the model loses its leading `▁` while the
//! run has written nothing yet, the unknown piece is ` ⁇ `, a token that is not a piece of the
//! model is written as it is); then every `▁` is a space and the result is trimmed. (With a
//! shared vocabulary, `MarianTokenizer.decode` decodes target ids with the *source* model by
//! default; decode with the target side's `Subword` matches `decode(ids,
//! use_source_tokenizer=False)`.)

use alloc::string::String;
use alloc::vec::Vec;

use hashbrown::HashMap;

use super::{Piece, SubwordConfig};
use crate::error::format_err;
use crate::Result;

/// SentencePiece's whitespace symbol `▁` (U+2581).
pub const SPACE: char = '\u{2581}';

/// A unigram tokenizer: the normaliser and a trie of the pieces with their scores.
#[derive(Debug, Clone)]
pub struct Unigram {
    charsmap: Option<CharsMap>,
    add_dummy_prefix: bool,
    remove_extra_whitespaces: bool,
    escape_whitespaces: bool,
    /// trie node -> score of the piece ending there
    node_score: Vec<Option<f32>>,
    /// (node, next char) -> child node; node 0 is the root
    edges: HashMap<(u32, char), u32>,
    unk_score: f32,
    unk_piece: String,
    special_tokens: Vec<String>,
    clean_up_spaces: bool,
    language_code: bool,
}

/// SentencePiece's precompiled character map: a Darts-clone double array and the replacement
/// strings it points into.
#[derive(Debug, Clone)]
struct CharsMap {
    trie: Vec<u32>,
    normalized: Vec<u8>,
}

impl CharsMap {
    /// Layout: u32 (little-endian) byte size of the trie, the trie's u32 units, the strings.
    fn parse(blob: &[u8]) -> Result<CharsMap> {
        let bad = |why: &str| format_err!("unigram tokenizer: the character map is malformed ({why})");
        let size = blob.get(..4).ok_or_else(|| bad("shorter than 4 bytes"))?;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        if size % 4 != 0 || size > blob.len() - 4 {
            return Err(bad("the trie size does not fit the data"));
        }
        let trie = blob[4..4 + size].chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        Ok(CharsMap { trie, normalized: blob[4 + size..].to_vec() })
    }

    /// The longest entry that is a prefix of `s` and ends on a char boundary: (its byte length,
    /// its replacement). A malformed entry (offset outside the strings, not UTF-8) is no match.
    fn longest<'a>(&'a self, s: &str) -> Option<(usize, &'a str)> {
        // Darts-clone unit fields
        let has_leaf = |u: u32| (u >> 8) & 1 == 1;
        let value = |u: u32| u & ((1 << 31) - 1);
        let label = |u: u32| u & ((1 << 31) | 0xFF);
        let offset = |u: u32| ((u >> 10) << ((u & (1 << 9)) >> 6)) as usize;
        let mut node = offset(*self.trie.first()?);
        let mut best = None;
        for (i, &c) in s.as_bytes().iter().enumerate() {
            node ^= c as usize;
            let Some(&unit) = self.trie.get(node) else { break };
            if label(unit) != c as u32 {
                break;
            }
            node ^= offset(unit);
            if has_leaf(unit) && s.is_char_boundary(i + 1) {
                if let Some(&leaf) = self.trie.get(node) {
                    best = Some((i + 1, value(leaf) as usize));
                }
            }
        }
        let (len, at) = best?;
        let tail = self.normalized.get(at..)?;
        let end = tail.iter().position(|&b| b == 0).unwrap_or(tail.len());
        let rep = core::str::from_utf8(&tail[..end]).ok()?;
        Some((len, rep))
    }
}

/// Standard base64 (RFC 4648, with or without `=` padding).
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (bits < 6).then_some(out)
}

/// Python's `str.isspace`, which `str.strip()` uses: `White_Space` plus U+001C..=U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1C}'..='\u{1F}')
}

impl Unigram {
    pub(super) fn new(cfg: &SubwordConfig) -> Result<Unigram> {
        let SubwordConfig::Unigram {
            pieces,
            unk_piece,
            charsmap,
            add_dummy_prefix,
            remove_extra_whitespaces,
            escape_whitespaces,
            special_tokens,
            clean_up_spaces,
            language_code,
        } = cfg
        else {
            return Err(format_err!("unigram tokenizer built from another kind of configuration"));
        };
        if pieces.is_empty() {
            return Err(format_err!("unigram tokenizer: no pieces"));
        }
        let mut node_score: Vec<Option<f32>> = alloc::vec![None];
        let mut edges: HashMap<(u32, char), u32> = HashMap::new();
        let mut min_score = f32::INFINITY;
        for (i, (piece, score)) in pieces.iter().enumerate() {
            if !score.is_finite() {
                return Err(format_err!("unigram tokenizer: piece {i} ({piece:?}) has the score {score}"));
            }
            if piece.is_empty() {
                return Err(format_err!("unigram tokenizer: piece {i} is empty"));
            }
            let mut node = 0u32;
            for c in piece.chars() {
                let next = node_score.len() as u32;
                node = *edges.entry((node, c)).or_insert_with(|| {
                    node_score.push(None);
                    next
                });
            }
            if node_score[node as usize].is_some() {
                return Err(format_err!("unigram tokenizer: the piece {piece:?} is listed twice"));
            }
            node_score[node as usize] = Some(*score);
            min_score = min_score.min(*score);
        }
        let charsmap = match charsmap {
            None => None,
            Some(b64) => {
                let blob = base64_decode(b64)
                    .ok_or_else(|| format_err!("unigram tokenizer: the character map is not valid base64"))?;
                if blob.is_empty() {
                    None
                } else {
                    Some(CharsMap::parse(&blob)?)
                }
            }
        };
        Ok(Unigram {
            charsmap,
            add_dummy_prefix: *add_dummy_prefix,
            remove_extra_whitespaces: *remove_extra_whitespaces,
            escape_whitespaces: *escape_whitespaces,
            node_score,
            edges,
            unk_score: min_score - 10.0,
            unk_piece: unk_piece.clone(),
            special_tokens: special_tokens.clone(),
            clean_up_spaces: *clean_up_spaces,
            language_code: *language_code,
        })
    }

    /// One normalisation step at the start of non-empty `s`: (replacement, bytes consumed).
    fn normalize_prefix<'a>(&'a self, s: &'a str) -> (&'a str, usize) {
        if let Some(m) = self.charsmap.as_ref().and_then(|m| m.longest(s)) {
            return (m.1, m.0);
        }
        let n = s.chars().next().map_or(s.len(), char::len_utf8);
        (&s[..n], n)
    }

    /// Step 1 of the module docs: the normalised text (empty for whitespace-only text).
    pub fn normalize(&self, text: &str) -> String {
        let mut pos = 0;
        if self.remove_extra_whitespaces {
            while pos < text.len() {
                let (rep, n) = self.normalize_prefix(&text[pos..]);
                if rep != " " {
                    break;
                }
                pos += n;
            }
        }
        let mut out = String::new();
        if pos >= text.len() {
            return out;
        }
        let space = if self.escape_whitespaces { SPACE } else { ' ' };
        if self.add_dummy_prefix {
            out.push(space);
        }
        let mut prev_space = self.remove_extra_whitespaces;
        while pos < text.len() {
            let (mut rep, n) = self.normalize_prefix(&text[pos..]);
            if prev_space && self.remove_extra_whitespaces {
                rep = rep.trim_start_matches(' ');
            }
            if !rep.is_empty() {
                for c in rep.chars() {
                    out.push(if c == ' ' { space } else { c });
                }
                prev_space = rep.ends_with(' ');
            }
            pos += n;
            if !self.remove_extra_whitespaces {
                prev_space = false;
            }
        }
        if self.remove_extra_whitespaces {
            while out.ends_with(space) {
                out.pop();
            }
        }
        out
    }

    /// Steps 2 and 3: the pieces of `text`.
    pub(super) fn encode(&self, text: &str, ids: &HashMap<String, u32>, unk: u32, out: &mut Vec<Piece>) {
        let mut text = text;
        if self.language_code && text.starts_with(">>") {
            // MarianTokenizer.remove_language_code: ">>" up to the first "<<" is one token
            if let Some(end) = text.find("<<") {
                let code = &text[..end + 2];
                let id = ids.get(code).copied();
                out.push(Piece { id: id.unwrap_or(unk), text: String::from(code), known: id.is_some() });
                text = &text[end + 2..];
            }
        }
        let norm = self.normalize(text);
        let offsets: Vec<usize> = norm.char_indices().map(|(i, _)| i).chain(core::iter::once(norm.len())).collect();
        let n = offsets.len() - 1;
        // best[e] = (score, start, is_unknown) of the best path ending at char e
        let mut best: Vec<Option<(f32, usize, bool)>> = alloc::vec![None; n + 1];
        best[0] = Some((0.0, 0, false));
        for start in 0..n {
            let Some((base, _, _)) = best[start] else { continue };
            let mut single = false;
            let mut node = 0u32;
            for (len, c) in norm[offsets[start]..].chars().enumerate() {
                let Some(&child) = self.edges.get(&(node, c)) else { break };
                node = child;
                if let Some(score) = self.node_score[node as usize] {
                    let end = start + len + 1;
                    let cand = base + score;
                    if best[end].is_none_or(|b| cand > b.0) {
                        best[end] = Some((cand, start, false));
                    }
                    single |= len == 0;
                }
            }
            if !single {
                let cand = base + self.unk_score;
                if best[start + 1].is_none_or(|b| cand > b.0) {
                    best[start + 1] = Some((cand, start, true));
                }
            }
        }
        // back from the end: (start, end, unknown) in chars
        let mut path = Vec::new();
        let mut end = n;
        while end > 0 {
            let Some((_, start, unknown)) = best[end] else { return };
            path.push((start, end, unknown));
            end = start;
        }
        path.reverse();
        let mut i = 0;
        while i < path.len() {
            let (start, mut end, unknown) = path[i];
            i += 1;
            if unknown {
                while i < path.len() && path[i].2 {
                    end = path[i].1;
                    i += 1;
                }
            }
            let text = &norm[offsets[start]..offsets[end]];
            // an unknown surface still takes its id when the vocabulary has it (Marian's
            // vocab.json holds the target model's pieces too), as MarianTokenizer looks it up
            let id = ids.get(text).copied();
            out.push(Piece { id: id.unwrap_or(unk), text: String::from(text), known: id.is_some() });
        }
    }

    pub(super) fn decode(&self, tokens: &[&str]) -> String {
        let mut out = String::new();
        let mut run: Vec<&str> = Vec::new();
        for &t in tokens {
            if self.special_tokens.iter().any(|s| s == t) {
                self.decode_run(&run, &mut out);
                run.clear();
                out.push_str(t);
                out.push(' ');
            } else {
                run.push(t);
            }
        }
        self.decode_run(&run, &mut out);
        let out = out.replace(SPACE, " ");
        let out = out.trim_matches(py_space);
        if self.clean_up_spaces {
            super::clean_up_tokenization(out)
        } else {
            String::from(out)
        }
    }

    /// Whether `piece` is one of the model's pieces.
    fn is_piece(&self, piece: &str) -> bool {
        let mut node = 0u32;
        for c in piece.chars() {
            match self.edges.get(&(node, c)) {
                Some(&n) => node = n,
                None => return false,
            }
        }
        self.node_score.get(node as usize).is_some_and(Option::is_some)
    }

    /// SentencePiece's `DecodePieces` of a run of pieces: a piece of the model loses one leading
    /// `▁` while nothing has been written yet; the unknown piece is ` ⁇ `; any other token is
    /// written as it is.
    fn decode_run(&self, run: &[&str], out: &mut String) {
        let mut s = String::new();
        for &p in run {
            if p == self.unk_piece {
                s.push_str(" \u{2047} ");
            } else if !self.is_piece(p) {
                s.push_str(p);
            } else if s.is_empty() && (self.add_dummy_prefix || self.remove_extra_whitespaces) {
                s.push_str(p.strip_prefix(SPACE).unwrap_or(p));
            } else {
                s.push_str(p);
            }
        }
        for c in s.chars() {
            out.push(if c == SPACE { ' ' } else { c });
        }
    }
}
