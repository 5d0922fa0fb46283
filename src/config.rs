//! The model's hyper-parameters (fixed by the model file) and the options of one run (changed
//! per call, no reload: scaling, causal masks, positional encoding, number of heads, Q/K edits,
//! knocked-out heads).

use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;

use crate::error::{format_err, input_err};
use crate::trace::Mat;
use crate::Result;

/// Activation of the feed-forward hidden layer (`torch.nn.Transformer(activation=...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// `max(0, x)`, the paper's choice (equation 2).
    Relu,
    /// `x * Phi(x)` with the exact erf form, `0.5 x (1 + erf(x / sqrt 2))`.
    Gelu,
}

/// How token positions enter the model (paper section 3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(rename_all = "lowercase")]
pub enum Positional {
    /// `PE(pos, 2i) = sin(pos / 10000^(2i/d_model))`, `PE(pos, 2i+1) = cos(...)`.
    Sinusoidal,
    /// A trained `(max_len, d_model)` table per side: `src_pos.weight`, `tgt_pos.weight`.
    Learned,
    /// No positional information: attention then cannot tell word order apart.
    None,
}

/// The special tokens, as strings of the vocabularies.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Specials {
    /// Padding (never produced by attnscope; kept for PyTorch compatibility).
    pub pad: String,
    /// Begin-of-sentence: the first decoder input.
    pub bos: String,
    /// End-of-sentence: generation stops when it is produced.
    pub eos: String,
    /// Stands for every word outside the vocabulary.
    pub unk: String,
}

impl Default for Specials {
    fn default() -> Self {
        Specials { pad: "<pad>".into(), bos: "<bos>".into(), eos: "<eos>".into(), unk: "<unk>".into() }
    }
}

/// Tokeniser settings stored in the model file; every field is optional in the file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(default)]
pub struct TokenizerConfig {
    /// Lowercase the source text before lookup. Default `true`.
    pub lowercase: bool,
    /// Split English contractions: "she's" -> "she" "'s", "don't" -> "do" "n't". Default `true`.
    pub contractions: bool,
    /// Target tokens written without a space before them when a translation is printed
    /// (Korean particles and endings, punctuation). Default: none.
    pub glue: Vec<String>,
    /// Merge a glue token that starts with a Hangul compatibility jamo consonant into the
    /// syllable before it as its final consonant (가 + ㅆ다 -> 갔다); see [`crate::tokenizer`].
    /// Default `false`.
    pub compose_jamo: bool,
    /// A target token that starts with this marker is a glue token too, printed without the
    /// marker (`+는`, `+ㄴ다`): the marker tells a suffix from a word written the same way
    /// (the particle `+이` vs the determiner `이` "this"). Default: empty (no marker).
    pub glue_prefix: String,
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            lowercase: true,
            contractions: true,
            glue: Vec::new(),
            compose_jamo: false,
            glue_prefix: String::new(),
        }
    }
}

/// Everything the model file's `__metadata__["attnscope"]` JSON object holds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Version of the file format; this crate reads `1`.
    pub format: u32,
    /// Width of every token vector, `d_model` (paper: 512).
    pub d_model: usize,
    /// Number of heads the model was trained with (paper: 8). A run may re-split into others.
    pub nhead: usize,
    /// Encoder layers, `N` (paper: 6).
    pub num_encoder_layers: usize,
    /// Decoder layers, `N` (paper: 6).
    pub num_decoder_layers: usize,
    /// Feed-forward hidden width, `d_ff` (paper: 2048 = 4 d_model).
    pub dim_feedforward: usize,
    /// Feed-forward activation.
    pub activation: Activation,
    /// `false`: post-norm `LN(x + Sublayer(x))` (paper); `true`: pre-norm `x + Sublayer(LN(x))`.
    pub norm_first: bool,
    /// Added to the variance inside LayerNorm's square root (PyTorch default 1e-5).
    pub layer_norm_eps: f32,
    /// Positional encoding kind.
    pub positional: Positional,
    /// Longest sequence the positional tables cover (and the longest input accepted).
    pub max_len: usize,
    /// Multiply token embeddings by `sqrt(d_model)` (paper section 3.4).
    pub scale_embedding: bool,
    /// Source tokens; index = id.
    pub src_vocab: Vec<String>,
    /// Target tokens; index = id.
    pub tgt_vocab: Vec<String>,
    /// Special token strings.
    #[serde(default)]
    pub specials: Specials,
    /// Tokeniser settings (defaults documented on [`TokenizerConfig`]).
    #[serde(default)]
    pub tokenizer: TokenizerConfig,
}

/// Upper bounds that keep a hostile file from asking for absurd allocations.
pub const LIMITS: Limits =
    Limits { d_model: 4096, layers: 64, dim_feedforward: 65536, vocab: 1 << 20, max_len: 1 << 16 };

/// See [`LIMITS`].
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct Limits {
    pub d_model: usize,
    pub layers: usize,
    pub dim_feedforward: usize,
    pub vocab: usize,
    pub max_len: usize,
}

impl Config {
    /// Parse and check the metadata JSON.
    pub fn from_json(json: &str) -> Result<Config> {
        let cfg: Config =
            serde_json::from_str(json).map_err(|e| format_err!("metadata \"attnscope\" is not a valid config: {e}"))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Every dimension sane and consistent; the special tokens present in both vocabularies.
    pub fn validate(&self) -> Result<()> {
        let l = LIMITS;
        let check = |name: &str, v: usize, max: usize| {
            if v == 0 || v > max {
                Err(format_err!("{name} = {v} is outside 1..={max}"))
            } else {
                Ok(())
            }
        };
        if self.format != 1 {
            return Err(format_err!("format {} is not supported (this build reads format 1)", self.format));
        }
        check("d_model", self.d_model, l.d_model)?;
        check("nhead", self.nhead, self.d_model)?;
        check("num_encoder_layers", self.num_encoder_layers, l.layers)?;
        check("num_decoder_layers", self.num_decoder_layers, l.layers)?;
        check("dim_feedforward", self.dim_feedforward, l.dim_feedforward)?;
        check("max_len", self.max_len, l.max_len)?;
        check("src_vocab size", self.src_vocab.len(), l.vocab)?;
        check("tgt_vocab size", self.tgt_vocab.len(), l.vocab)?;
        if self.d_model % self.nhead != 0 {
            return Err(format_err!("nhead = {} does not divide d_model = {}", self.nhead, self.d_model));
        }
        if !(self.layer_norm_eps.is_finite() && self.layer_norm_eps > 0.0) {
            return Err(format_err!("layer_norm_eps = {} must be a positive number", self.layer_norm_eps));
        }
        let s = &self.specials;
        for tok in [&s.bos, &s.eos] {
            if !self.tgt_vocab.contains(tok) {
                return Err(format_err!("special token {tok:?} is missing from tgt_vocab"));
            }
        }
        if !self.src_vocab.contains(&s.unk) {
            return Err(format_err!("special token {:?} is missing from src_vocab", s.unk));
        }
        Ok(())
    }

    /// The head counts a run may use: every divisor of `d_model`, ascending.
    pub fn head_choices(&self) -> Vec<usize> {
        (1..=self.d_model).filter(|h| self.d_model % h == 0).collect()
    }

    /// The number of layers holding attention `stack`.
    pub fn layers(&self, stack: Stack) -> usize {
        match stack {
            Stack::Encoder => self.num_encoder_layers,
            Stack::DecoderSelf | Stack::DecoderCross => self.num_decoder_layers,
        }
    }

    /// Every head of the model under `h` heads per attention, in the order encoder layers,
    /// decoder self-attention layers, cross-attention layers, and by head within a layer.
    pub fn all_heads(&self, h: usize) -> Vec<HeadRef> {
        [Stack::Encoder, Stack::DecoderSelf, Stack::DecoderCross]
            .into_iter()
            .flat_map(|stack| {
                (0..self.layers(stack)).flat_map(move |layer| (0..h).map(move |head| HeadRef { stack, layer, head }))
            })
            .collect()
    }
}

/// Which attention of the model an [`Override`] replaces a block of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(rename_all = "snake_case")]
pub enum Stack {
    /// Encoder self-attention.
    Encoder,
    /// Decoder (masked) self-attention.
    DecoderSelf,
    /// Decoder cross-attention over the encoder memory.
    DecoderCross,
}

/// Which projection an [`Override`] replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(rename_all = "lowercase")]
pub enum Matrix {
    /// The query projection `W_Q`.
    Q,
    /// The key projection `W_K`.
    K,
}

/// Replace head `head`'s block of `W_Q` or `W_K` in one attention for one run.
///
/// The block is `(d_k, d_model)` in PyTorch's `(out, in)` layout: rows `head*d_k..(head+1)*d_k`
/// of the query (or key) third of `in_proj_weight`, where `d_k = d_model / h` for the run's `h`.
/// Biases are not replaced.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// The attention.
    pub stack: Stack,
    /// Layer index in that stack, from 0.
    pub layer: usize,
    /// Head index under the run's `h`, from 0.
    pub head: usize,
    /// `W_Q` or `W_K`.
    pub matrix: Matrix,
    /// The new block, `(d_k, d_model)`.
    pub block: Mat,
}

/// One head of one attention of the model, every index from 0 (under the run's `h`).
///
/// Written `e1h2` (encoder layer 1, head 2), `s2h1` (decoder self-attention), `c2h3` (decoder
/// cross-attention): stack letter, then layer and head counted from 1, as the CLI's
/// `--knock-out` and the page's `knockOut` take them ([`HeadRef::parse`], `Display`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct HeadRef {
    /// The attention.
    pub stack: Stack,
    /// Layer index in that stack, from 0.
    pub layer: usize,
    /// Head index under the run's `h`, from 0.
    pub head: usize,
}

impl HeadRef {
    /// Parse one head written `e1h2` / `s2h1` / `c2h3` (1-based layer and head).
    pub fn parse(text: &str) -> Result<HeadRef> {
        let bad = || input_err!("{text:?} is not a head: write stack e|s|c, layer, 'h', head, from 1 (e.g. e1h2)");
        let t = text.trim();
        let stack = match t.as_bytes().first() {
            Some(b'e' | b'E') => Stack::Encoder,
            Some(b's' | b'S') => Stack::DecoderSelf,
            Some(b'c' | b'C') => Stack::DecoderCross,
            _ => return Err(bad()),
        };
        let (layer, head) = t[1..].split_once(['h', 'H']).ok_or_else(bad)?;
        let one_based = |n: &str| n.parse::<usize>().ok().filter(|&n| n >= 1).map(|n| n - 1).ok_or_else(bad);
        Ok(HeadRef { stack, layer: one_based(layer)?, head: one_based(head)? })
    }

    /// Parse a comma-separated list, `e1h2,s2h1,c2h3` (spaces allowed; empty text = none).
    pub fn parse_list(text: &str) -> Result<Vec<HeadRef>> {
        text.split(',').map(str::trim).filter(|p| !p.is_empty()).map(HeadRef::parse).collect()
    }
}

impl core::fmt::Display for HeadRef {
    /// `e1h2`: the form [`HeadRef::parse`] reads.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let letter = match self.stack {
            Stack::Encoder => 'e',
            Stack::DecoderSelf => 's',
            Stack::DecoderCross => 'c',
        };
        write!(f, "{letter}{}h{}", self.layer + 1, self.head + 1)
    }
}

/// Options of one forward pass. `Default` is the paper's model as trained.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// Heads to split the trained projections into; `None` = the model's `nhead`.
    pub heads: Option<usize>,
    /// Divide scores by `sqrt(d_k)` (equation 1). Default `true`.
    pub scale: bool,
    /// Causal mask on the decoder self-attention. Default `true`.
    pub causal_decoder: bool,
    /// Causal mask on the encoder self-attention. Default `false`.
    pub causal_encoder: bool,
    /// Add positional encoding to the embeddings. Default `true`.
    pub positional: bool,
    /// Replaced `W_Q` / `W_K` blocks.
    pub overrides: Vec<Override>,
    /// Knocked-out heads (ablation): each one's output is replaced by zeros before `out_proj`,
    /// the standard head mask (`head_mask` in common libraries; Michel et al. 2019, "Are Sixteen
    /// Heads Really Better than One?"). Its weights are still computed and traced. Default none.
    pub knock_out: Vec<HeadRef>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            heads: None,
            scale: true,
            causal_decoder: true,
            causal_encoder: false,
            positional: true,
            overrides: Vec::new(),
            knock_out: Vec::new(),
        }
    }
}

impl RunOptions {
    /// The run's head count `h`, checked to divide `d_model`.
    pub fn heads_for(&self, cfg: &Config) -> Result<usize> {
        let h = self.heads.unwrap_or(cfg.nhead);
        if h == 0 || cfg.d_model % h != 0 {
            return Err(input_err!(
                "{h} heads do not divide d_model = {}; choose one of {:?}",
                cfg.d_model,
                cfg.head_choices()
            ));
        }
        Ok(h)
    }

    /// Every override and knock-out names an existing layer and head, and every override has
    /// the `(d_k, d_model)` shape.
    pub fn validate(&self, cfg: &Config) -> Result<()> {
        let h = self.heads_for(cfg)?;
        let d_k = cfg.d_model / h;
        for k in &self.knock_out {
            if k.layer >= cfg.layers(k.stack) {
                return Err(input_err!("knock-out {k}: {:?} has {} layers", k.stack, cfg.layers(k.stack)));
            }
            if k.head >= h {
                return Err(input_err!("knock-out {k}: this run has {h} heads"));
            }
        }
        for o in &self.overrides {
            let layers = cfg.layers(o.stack);
            if o.layer >= layers {
                return Err(input_err!("override of {:?} layer {}: the stack has {layers} layers", o.stack, o.layer));
            }
            if o.head >= h {
                return Err(input_err!("override of head {}: this run has {h} heads", o.head));
            }
            if o.block.shape() != (d_k, cfg.d_model) {
                return Err(input_err!(
                    "override block is {:?}, expected (d_k, d_model) = ({d_k}, {})",
                    o.block.shape(),
                    cfg.d_model
                ));
            }
            if o.block.iter().any(|v| !v.is_finite()) {
                return Err(input_err!("override block holds a value that is not a finite number"));
            }
        }
        Ok(())
    }
}
