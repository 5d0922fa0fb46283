//! Toy tasks whose right attention pattern is known in advance, for watching a tiny
//! Transformer learn (the training playground, `www/train.html`): to copy a sequence its
//! cross-attention must learn the diagonal, to reverse it the anti-diagonal, to sort it to
//! find each next-smallest symbol, to answer "which token follows the marker" to look one
//! past the marker, and to resolve "A likes B . she" to look at the one name that agrees.
//!
//! Examples are made from a seeded stream ([`oorandom::Rand32`]), so a run is reproducible.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::input_err;
use crate::Result;

/// The specials every task vocabulary starts with (the ids the model config expects).
const SPECIALS: [&str; 4] = ["<pad>", "<bos>", "<eos>", "<unk>"];
/// `<bos>`, `<eos>`: the decoder input starts with one, the labels end with the other.
const BOS: u32 = 1;
const EOS: u32 = 2;
/// The coreference task's names (the first half female, the second male), verbs, pronouns.
const FEMALE: [&str; 4] = ["ann", "eve", "mia", "zoe"];
const MALE: [&str; 4] = ["bob", "tom", "sam", "max"];
const VERBS: [&str; 3] = ["likes", "sees", "helps"];

/// Which toy task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// The target is the source.
    Copy,
    /// The target is the source backwards.
    Reverse,
    /// The target is the source's symbols in alphabetical order.
    Sort,
    /// The source holds one marker `#`; the target is the symbol right after it.
    AfterMarker,
    /// `A likes B . she` -> the one of `A`, `B` the pronoun agrees with.
    Coreference,
}

impl Task {
    /// Every task, in the order the page lists them.
    pub const ALL: [Task; 5] = [Task::Copy, Task::Reverse, Task::Sort, Task::AfterMarker, Task::Coreference];

    /// The task's name in URLs and the CLI: `copy`, `reverse`, `sort`, `after-marker`, `coref`.
    pub fn id(self) -> &'static str {
        match self {
            Task::Copy => "copy",
            Task::Reverse => "reverse",
            Task::Sort => "sort",
            Task::AfterMarker => "after-marker",
            Task::Coreference => "coref",
        }
    }

    /// The task named `id` (see [`Task::id`]).
    pub fn parse(id: &str) -> Result<Task> {
        Task::ALL.into_iter().find(|t| t.id() == id).ok_or_else(|| {
            let names: Vec<&str> = Task::ALL.iter().map(|t| t.id()).collect();
            input_err!("unknown task {id:?}: choose one of {}", names.join(", "))
        })
    }
}

/// A task with its sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSpec {
    /// Which task.
    pub task: Task,
    /// Source length (symbols; the coreference task's sentences are always 5 tokens).
    pub length: usize,
    /// Distinct symbols `a`, `b`, ... (2 to 26).
    pub symbols: usize,
}

/// One training example: source ids `(S)`, decoder input `<bos> + target` `(T)`, and the
/// labels `target + <eos>` `(T)` the decoder should predict at each position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    /// Source ids.
    pub src: Vec<u32>,
    /// Decoder input ids.
    pub tgt: Vec<u32>,
    /// One label per decoder position.
    pub labels: Vec<i64>,
}

impl TaskSpec {
    /// Checked sizes: a length of 1 to 32, 2 to 26 symbols.
    pub fn new(task: Task, length: usize, symbols: usize) -> Result<TaskSpec> {
        if !(1..=32).contains(&length) {
            return Err(input_err!("a sequence length of {length}: choose 1 to 32"));
        }
        if !(2..=26).contains(&symbols) {
            return Err(input_err!("{symbols} symbols: choose 2 to 26"));
        }
        if task == Task::AfterMarker && length < 2 {
            return Err(input_err!(
                "the marker task needs a length of at least 2 (the marker and the symbol after it)"
            ));
        }
        Ok(TaskSpec { task, length, symbols })
    }

    /// The vocabulary, the same for source and target: the specials, then the task's tokens.
    pub fn vocab(&self) -> Vec<String> {
        let mut v: Vec<String> = SPECIALS.iter().map(|s| s.to_string()).collect();
        match self.task {
            Task::Coreference => {
                v.extend(FEMALE.iter().chain(&MALE).chain(&VERBS).map(|s| s.to_string()));
                v.extend([".", "she", "he"].map(String::from));
            }
            _ => {
                v.extend((0..self.symbols).map(|i| char::from(b'a' + i as u8).to_string()));
                if self.task == Task::AfterMarker {
                    v.push("#".to_string());
                }
            }
        }
        v
    }

    /// The longest source and decoder input this task makes (for the model's `max_len`).
    pub fn max_len(&self) -> usize {
        self.length.max(5) + 1
    }

    /// One example drawn from `rng`.
    pub fn example(&self, rng: &mut oorandom::Rand32) -> Example {
        let first = SPECIALS.len() as u32;
        let pick = |rng: &mut oorandom::Rand32, n: usize| rng.rand_range(0..n as u32);
        let src: Vec<u32> = match self.task {
            Task::Coreference => {
                let id = |word: &str| self.vocab().iter().position(|w| w == word).expect("a task word") as u32;
                let (f, m) = (FEMALE[pick(rng, 4) as usize], MALE[pick(rng, 4) as usize]);
                let (a, b) = if pick(rng, 2) == 0 { (f, m) } else { (m, f) };
                let she = pick(rng, 2) == 0;
                let verb = VERBS[pick(rng, 3) as usize];
                [a, verb, b, ".", if she { "she" } else { "he" }].iter().map(|w| id(w)).collect()
            }
            _ => {
                let mut src: Vec<u32> = (0..self.length).map(|_| first + pick(rng, self.symbols)).collect();
                if self.task == Task::AfterMarker {
                    let at = pick(rng, self.length - 1) as usize; // the marker, never last
                    src[at] = first + self.symbols as u32; // "#"
                }
                src
            }
        };
        let target = self.answer(&src).expect("a generated source has an answer");
        let tgt = core::iter::once(BOS).chain(target.iter().copied()).collect();
        let labels = target.iter().map(|&t| t as i64).chain(core::iter::once(EOS as i64)).collect();
        Example { src, tgt, labels }
    }

    /// The right output for a source (ids of [`TaskSpec::vocab`]), the task's rule: the source
    /// itself, backwards, sorted, the symbol after the one marker, or the one name that agrees
    /// with the final pronoun. `None` when the rule has no answer for it (no marker or two, a
    /// marker last; no pronoun at the end, or not exactly one name that agrees with it).
    pub fn answer(&self, src: &[u32]) -> Option<Vec<u32>> {
        let vocab = self.vocab();
        match self.task {
            Task::Copy => Some(src.to_vec()),
            Task::Reverse => Some(src.iter().rev().copied().collect()),
            Task::Sort => {
                let mut s = src.to_vec();
                s.sort_unstable();
                Some(s)
            }
            Task::AfterMarker => {
                let marker = (SPECIALS.len() + self.symbols) as u32; // "#"
                let at: Vec<usize> = src.iter().enumerate().filter(|(_, &t)| t == marker).map(|(i, _)| i).collect();
                match at[..] {
                    [i] if i + 1 < src.len() => Some(alloc::vec![src[i + 1]]),
                    _ => None,
                }
            }
            Task::Coreference => {
                let word = |t: &u32| vocab.get(*t as usize).map(String::as_str);
                let names: &[&str] = match src.last().and_then(word) {
                    Some("she") => &FEMALE,
                    Some("he") => &MALE,
                    _ => return None,
                };
                let agree: Vec<u32> =
                    src.iter().copied().filter(|t| word(t).is_some_and(|w| names.contains(&w))).collect();
                match agree[..] {
                    [one] => Some(alloc::vec![one]),
                    _ => None,
                }
            }
        }
    }
}
