//! Byte-level BPE as GPT-2 uses it (Radford et al. 2019, "Language Models are Unsupervised
//! Multitask Learners", section 2.2; byte-pair encoding for subwords: Sennrich, Haddow & Birch
//! 2016, arXiv:1508.07909), exactly as Hugging Face `tokenizers` runs it (`ByteLevel`
//! pre-tokenizer and decoder, `models::BPE`).
//!
//! 1. With `add_prefix_space`, a space is put before text that does not start with one.
//! 2. Pre-tokens: GPT-2's regex
//!    `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`, matched
//!    leftmost-first from the start, one match after another (written here as a scanner,
//!    [`pre_tokenize`]). `\p{L}`, `\p{N}`: Unicode general categories L*, N*; `\s`: the Unicode
//!    `White_Space` property. So a run of spaces before a word leaves its last space to the word.
//! 3. Bytes: each pre-token's UTF-8 bytes become printable characters, GPT-2's `bytes_to_unicode`
//!    table: the printable bytes `!`..`~`, `¡`..`¬`, `®`..`ÿ` stand for themselves, the other 68
//!    bytes are U+0100 onwards in byte order (a space is `Ġ`, U+0120).
//! 4. Merges: start from one symbol per character; repeatedly merge the adjacent pair whose merge
//!    has the lowest rank (the leftmost such pair on a tie) until no pair has a merge. Each piece
//!    is a vocabulary token.
//!
//! Decoding concatenates the tokens, maps each character back to its byte and reads the bytes as
//! UTF-8, replacing invalid sequences with U+FFFD.

use alloc::collections::BinaryHeap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;

use hashbrown::HashMap;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use super::Piece;
use crate::error::format_err;
use crate::Result;

/// A byte-level BPE tokenizer: merge ranks over vocabulary ids.
#[derive(Debug, Clone)]
pub struct Bpe {
    /// (left id, right id) -> (rank, merged id)
    merges: HashMap<(u32, u32), (u32, u32)>,
    add_prefix_space: bool,
    /// byte -> its symbol's id, if the vocabulary has it
    byte_ids: [Option<u32>; 256],
}

/// GPT-2's `bytes_to_unicode`: the character standing for each byte.
pub fn byte_char(b: u8) -> char {
    if is_printable(b) {
        return char::from(b);
    }
    let n = (0..b).filter(|&x| !is_printable(x)).count() as u32;
    char::from_u32(256 + n).unwrap_or('\u{FFFD}')
}

/// The inverse of [`byte_char`].
pub fn char_byte(c: char) -> Option<u8> {
    let u = c as u32;
    if u < 256 {
        let b = u as u8;
        return is_printable(b).then_some(b);
    }
    // U+0100 + n stands for the n-th non-printable byte
    let mut n = u - 256;
    for b in 0..=255u8 {
        if !is_printable(b) {
            if n == 0 {
                return Some(b);
            }
            n -= 1;
        }
    }
    None
}

fn is_printable(b: u8) -> bool {
    matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF)
}

fn is_letter(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Letter
}
fn is_number(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Number
}
fn is_other(c: char) -> bool {
    !c.is_whitespace() && !is_letter(c) && !is_number(c)
}

/// GPT-2's pre-tokenizer regex (module docs, step 2) as a scanner: the matches, in order; they
/// cover the whole text.
pub fn pre_tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let len = match_at(&text[pos..]);
        out.push(&text[pos..pos + len]);
        pos += len;
    }
    out
}

/// Byte length of the regex's match at the start of non-empty `s` (always at least one char).
fn match_at(s: &str) -> usize {
    // 's|'t|'re|'ve|'m|'ll|'d
    for c in ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"] {
        if s.starts_with(c) {
            return c.len();
        }
    }
    // run of chars of a class from byte `from`
    let run = |from: usize, class: fn(char) -> bool| -> usize {
        s[from..].char_indices().find(|&(_, c)| !class(c)).map_or(s.len(), |(i, _)| from + i)
    };
    let first = s.chars().next().unwrap_or(' ');
    let after_space = if first == ' ' { s[1..].chars().next() } else { None };
    //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+
    for class in [is_letter as fn(char) -> bool, is_number, is_other] {
        if after_space.is_some_and(class) {
            return run(1, class);
        }
        if class(first) {
            return run(0, class);
        }
    }
    // \s+(?!\S) | \s+
    let end = run(0, char::is_whitespace);
    if end == s.len() {
        return end;
    }
    // followed by a non-space: give back the last whitespace char if one remains
    let last = s[..end].char_indices().next_back().map_or(0, |(i, _)| i);
    if last > 0 {
        last
    } else {
        end.max(first.len_utf8())
    }
}

impl Bpe {
    pub(super) fn new(merges: &[String], add_prefix_space: bool, ids: &HashMap<String, u32>) -> Result<Bpe> {
        let mut table = HashMap::with_capacity(merges.len());
        if merges.len() > u32::MAX as usize {
            return Err(format_err!("BPE tokenizer: too many merges"));
        }
        let mut joined = String::new();
        for (rank, m) in merges.iter().enumerate() {
            let parts: Vec<&str> = m.split(' ').collect();
            let [a, b] = parts[..] else {
                return Err(format_err!("BPE merge {rank} ({m:?}) is not two tokens separated by one space"));
            };
            let id = |t: &str| {
                ids.get(t)
                    .copied()
                    .ok_or_else(|| format_err!("BPE merge {rank} ({m:?}) names {t:?}, not in the vocabulary"))
            };
            let (ia, ib) = (id(a)?, id(b)?);
            joined.clear();
            joined.push_str(a);
            joined.push_str(b);
            let merged = id(&joined)?;
            // as Hugging Face: a repeated merge takes its last rank
            table.insert((ia, ib), (rank as u32, merged));
        }
        let mut byte_ids = [None; 256];
        let mut buf = [0u8; 4];
        for (b, slot) in byte_ids.iter_mut().enumerate() {
            *slot = ids.get(&*byte_char(b as u8).encode_utf8(&mut buf)).copied();
        }
        Ok(Bpe { merges: table, add_prefix_space, byte_ids })
    }

    pub(super) fn encode(&self, text: &str, vocab: &[String], unk: Option<u32>, out: &mut Vec<Piece>) {
        let spaced;
        let text = if self.add_prefix_space && !text.is_empty() && !text.starts_with(' ') {
            spaced = alloc::format!(" {text}");
            spaced.as_str()
        } else {
            text
        };
        let mut symbols: Vec<Sym> = Vec::new();
        let mut heap = BinaryHeap::new();
        for word in pre_tokenize(text) {
            symbols.clear();
            for &b in word.as_bytes() {
                let (id, known) = match (self.byte_ids[b as usize], unk) {
                    (Some(id), _) => (id, true),
                    (None, Some(u)) => (u, false),
                    (None, None) => continue, // as Hugging Face without an unknown token: dropped
                };
                let n = symbols.len();
                symbols.push(Sym { id, prev: n.wrapping_sub(1), next: n + 1, alive: true, known, byte: b });
            }
            if let Some(last) = symbols.last_mut() {
                last.next = usize::MAX;
            }
            self.merge(&mut symbols, &mut heap);
            for s in symbols.iter().filter(|s| s.alive) {
                let text = if s.known {
                    vocab.get(s.id as usize).cloned().unwrap_or_default()
                } else {
                    String::from(byte_char(s.byte))
                };
                out.push(Piece { id: s.id, text, known: s.known });
            }
        }
    }

    fn merge(&self, symbols: &mut [Sym], heap: &mut BinaryHeap<Reverse<(u32, usize, u32)>>) {
        heap.clear();
        for i in 0..symbols.len().saturating_sub(1) {
            if let Some(&(rank, new)) = self.merges.get(&(symbols[i].id, symbols[i + 1].id)) {
                heap.push(Reverse((rank, i, new)));
            }
        }
        while let Some(Reverse((rank, i, new))) = heap.pop() {
            let s = symbols[i];
            if !s.alive || s.next == usize::MAX {
                continue;
            }
            let right = symbols[s.next];
            if self.merges.get(&(s.id, right.id)) != Some(&(rank, new)) {
                continue; // stale: a neighbour changed since this pair was queued
            }
            symbols[i].id = new;
            symbols[i].known = true;
            symbols[i].next = right.next;
            symbols[s.next].alive = false;
            if right.next != usize::MAX {
                symbols[right.next].prev = i;
            }
            if s.prev != usize::MAX {
                if let Some(&(r, n)) = self.merges.get(&(symbols[s.prev].id, new)) {
                    heap.push(Reverse((r, s.prev, n)));
                }
            }
            if right.next != usize::MAX {
                if let Some(&(r, n)) = self.merges.get(&(new, symbols[right.next].id)) {
                    heap.push(Reverse((r, i, n)));
                }
            }
        }
    }

    pub(super) fn decode(&self, tokens: &[&str]) -> String {
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4];
        for t in tokens {
            for c in t.chars() {
                let b = if (c as u32) < 256 + 68 { char_byte(c) } else { None };
                match b {
                    Some(b) => bytes.push(b),
                    // not a byte symbol (an added token's character): its own UTF-8
                    None => bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
                }
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

#[derive(Debug, Clone, Copy)]
struct Sym {
    id: u32,
    prev: usize,
    next: usize,
    alive: bool,
    known: bool,
    byte: u8,
}
