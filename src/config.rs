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
    /// `x * Phi(x)` with the exact erf form, `0.5 x (1 + erf(x / sqrt 2))` (BERT's `gelu`).
    Gelu,
    /// GELU's tanh approximation, `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` (GPT-2's
    /// `gelu_new`; Hendrycks & Gimpel 2016).
    #[serde(rename = "gelu_tanh")]
    GeluTanh,
    /// `x * sigmoid(x)` (Marian's `swish`; Ramachandran et al. 2017).
    Silu,
}

/// Which stacks a model file holds (metadata `architecture`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(rename_all = "snake_case")]
pub enum Architecture {
    /// Encoder and decoder with cross-attention (the paper; Marian): translation.
    #[default]
    EncoderDecoder,
    /// The encoder alone (BERT, Devlin et al. 2019): every token sees every other.
    EncoderOnly,
    /// The decoder alone, without cross-attention (GPT, Radford et al. 2018): each token sees
    /// itself and the tokens before it.
    DecoderOnly,
}

impl Architecture {
    /// Whether the model has an encoder stack (and reads a source).
    pub fn has_encoder(self) -> bool {
        self != Architecture::DecoderOnly
    }

    /// Whether the model has a decoder stack (and reads a target).
    pub fn has_decoder(self) -> bool {
        self != Architecture::EncoderOnly
    }
}

/// What the last layer feeds (metadata `head`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[serde(rename_all = "lowercase")]
pub enum Head {
    /// The generator, a linear map to the vocabulary (paper section 3.4).
    #[default]
    Lm,
    /// BERT's masked-language-model head: dense `d_model -> d_model`, the activation, a
    /// LayerNorm, then the linear map to the vocabulary.
    Mlm,
    /// None: the model gives hidden states only (an encoder-only model without its MLM head).
    None,
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
    /// The masked-language model's `[MASK]` (encoder-only models with an MLM head).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<String>,
}

impl Default for Specials {
    fn default() -> Self {
        Specials { pad: "<pad>".into(), bos: "<bos>".into(), eos: "<eos>".into(), unk: "<unk>".into(), mask: None }
    }
}

/// Tokeniser settings stored in the model file; every field is optional in the file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// Tokens put before every tokenised source text (BERT: `["[CLS]"]`). Default none.
    pub source_prefix: Vec<String>,
    /// Tokens put after every tokenised source text (BERT: `["[SEP]"]`, Marian: `["</s>"]`).
    /// Default none.
    pub source_suffix: Vec<String>,
    /// A subword tokenizer (WordPiece, byte-level BPE, SentencePiece unigram; see
    /// [`crate::subword`]) for the model's text, instead of the word tokenizer above. Default
    /// none.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub subword: Option<SubwordSpec>,
    /// The target side's own subword tokenizer where it differs from the source's (Marian's
    /// `target.spm`). Default: `subword`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub target_subword: Option<SubwordSpec>,
}

/// A subword tokenizer's settings: [`crate::subword::SubwordConfig`], or, in a build without
/// the `subword` feature, the JSON as it is (such a build refuses a model that needs one).
#[cfg(feature = "subword")]
pub type SubwordSpec = crate::subword::SubwordConfig;
/// A subword tokenizer's settings: [`crate::subword::SubwordConfig`], or, in a build without
/// the `subword` feature, the JSON as it is (such a build refuses a model that needs one).
#[cfg(not(feature = "subword"))]
pub type SubwordSpec = serde_json::Value;

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            lowercase: true,
            contractions: true,
            glue: Vec::new(),
            compose_jamo: false,
            glue_prefix: String::new(),
            source_prefix: Vec::new(),
            source_suffix: Vec::new(),
            subword: None,
            target_subword: None,
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
    /// Which stacks the file holds. Default: encoder and decoder.
    #[serde(default)]
    pub architecture: Architecture,
    /// Width of every token vector, `d_model` (paper: 512).
    pub d_model: usize,
    /// Number of heads the model was trained with (paper: 8). A run may re-split into others.
    pub nhead: usize,
    /// Encoder layers, `N` (paper: 6); 0 for a decoder-only model.
    #[serde(default)]
    pub num_encoder_layers: usize,
    /// Decoder layers, `N` (paper: 6); 0 for an encoder-only model.
    #[serde(default)]
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
    /// A LayerNorm right after the embeddings, `{src,tgt}_embed_norm` (BERT). Default `false`.
    #[serde(default)]
    pub embed_norm: bool,
    /// Token-type ("segment") embeddings `src_type.weight` `(n, d_model)`, type 0 added to every
    /// source token (BERT: 2). Default 0: none.
    #[serde(default)]
    pub type_vocab_size: usize,
    /// Each stack ends with a LayerNorm, `transformer.{encoder,decoder}.norm` (as
    /// `torch.nn.Transformer` always adds; GPT-2's `ln_f`). Default `true`; BERT and Marian have
    /// none.
    #[serde(default = "yes")]
    pub final_norm: bool,
    /// What the last layer feeds. Default: the generator.
    #[serde(default)]
    pub head: Head,
    /// The generator's weight is the output side's embedding table (Press & Wolf 2017), and the
    /// file has no `generator.weight`. Default `false`.
    #[serde(default)]
    pub tie_embeddings: bool,
    /// The generator adds a bias, `generator.bias` `(V)`. Default `true`.
    #[serde(default = "yes")]
    pub logits_bias: bool,
    /// Source tokens; index = id. Empty for a decoder-only model.
    #[serde(default)]
    pub src_vocab: Vec<String>,
    /// Target tokens; index = id. Empty for an encoder-only model (its MLM head predicts
    /// source tokens).
    #[serde(default)]
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

    /// Every dimension sane and consistent for the architecture; the special tokens present
    /// in the vocabularies that use them.
    pub fn validate(&self) -> Result<()> {
        let l = LIMITS;
        let check = |name: &str, v: usize, max: usize| {
            if v == 0 || v > max {
                Err(format_err!("{name} = {v} is outside 1..={max}"))
            } else {
                Ok(())
            }
        };
        let absent = |name: &str, v: usize| {
            if v != 0 {
                Err(format_err!("{name} = {v}, but a {:?} model has none", self.architecture))
            } else {
                Ok(())
            }
        };
        if self.format != 1 {
            return Err(format_err!("format {} is not supported (this build reads format 1)", self.format));
        }
        check("d_model", self.d_model, l.d_model)?;
        check("nhead", self.nhead, self.d_model)?;
        let arch = self.architecture;
        if arch.has_encoder() {
            check("num_encoder_layers", self.num_encoder_layers, l.layers)?;
            check("src_vocab size", self.src_vocab.len(), l.vocab)?;
        } else {
            absent("num_encoder_layers", self.num_encoder_layers)?;
            absent("src_vocab size", self.src_vocab.len())?;
        }
        if arch.has_decoder() {
            check("num_decoder_layers", self.num_decoder_layers, l.layers)?;
            check("tgt_vocab size", self.tgt_vocab.len(), l.vocab)?;
        } else {
            absent("num_decoder_layers", self.num_decoder_layers)?;
            absent("tgt_vocab size", self.tgt_vocab.len())?;
        }
        check("dim_feedforward", self.dim_feedforward, l.dim_feedforward)?;
        check("max_len", self.max_len, l.max_len)?;
        if self.type_vocab_size > l.vocab || (self.type_vocab_size > 0 && !arch.has_encoder()) {
            return Err(format_err!(
                "type_vocab_size = {} needs an encoder and at most {}",
                self.type_vocab_size,
                l.vocab
            ));
        }
        if self.d_model % self.nhead != 0 {
            return Err(format_err!("nhead = {} does not divide d_model = {}", self.nhead, self.d_model));
        }
        if !(self.layer_norm_eps.is_finite() && self.layer_norm_eps > 0.0) {
            return Err(format_err!("layer_norm_eps = {} must be a positive number", self.layer_norm_eps));
        }
        match (arch, self.head) {
            (Architecture::EncoderDecoder, Head::Lm) | (Architecture::EncoderOnly, _) => {}
            (Architecture::DecoderOnly, Head::Lm | Head::None) => {}
            (_, head) => return Err(format_err!("head {head:?} does not fit a {arch:?} model")),
        }
        let s = &self.specials;
        let need = |tok: &str, vocab: &[String], name: &str| {
            if vocab.iter().any(|t| t == tok) {
                Ok(())
            } else {
                Err(format_err!("special token {tok:?} is missing from {name}"))
            }
        };
        if arch.has_decoder() {
            need(&s.bos, &self.tgt_vocab, "tgt_vocab")?;
            need(&s.eos, &self.tgt_vocab, "tgt_vocab")?;
        }
        if arch.has_encoder() {
            need(&s.unk, &self.src_vocab, "src_vocab")?;
        }
        if let Some(mask) = &s.mask {
            need(mask, self.output_vocab(), "the output vocabulary")?;
        }
        let t = &self.tokenizer;
        for tok in t.source_prefix.iter().chain(&t.source_suffix) {
            need(tok, &self.src_vocab, "src_vocab (tokenizer.source_prefix/suffix)")?;
        }
        Ok(())
    }

    /// The vocabulary the model's head predicts over: the target's, or for an encoder-only
    /// model the source's.
    pub fn output_vocab(&self) -> &[String] {
        if self.architecture.has_decoder() {
            &self.tgt_vocab
        } else {
            &self.src_vocab
        }
    }

    /// The head counts a run may use: every divisor of `d_model`, ascending.
    pub fn head_choices(&self) -> Vec<usize> {
        (1..=self.d_model).filter(|h| self.d_model % h == 0).collect()
    }

    /// The number of layers holding attention `stack` (0 when the model has no such attention).
    pub fn layers(&self, stack: Stack) -> usize {
        match stack {
            Stack::Encoder => self.num_encoder_layers,
            Stack::DecoderSelf => self.num_decoder_layers,
            Stack::DecoderCross if self.architecture == Architecture::EncoderDecoder => self.num_decoder_layers,
            Stack::DecoderCross => 0,
        }
    }

    /// The model's attention sites, in the order encoder, decoder self-attention,
    /// cross-attention: only those it has (BERT one, GPT-2 one, an encoder-decoder three).
    pub fn sites(&self) -> Vec<Site> {
        Stack::ALL
            .into_iter()
            .filter(|&stack| self.layers(stack) > 0)
            .map(|stack| Site::new(stack, self.layers(stack), self.nhead))
            .collect()
    }

    /// Every head of the model under `h` heads per attention, site by site ([`Config::sites`]),
    /// then by layer, then by head within a layer.
    pub fn all_heads(&self, h: usize) -> Vec<HeadRef> {
        self.sites()
            .into_iter()
            .flat_map(|site| {
                (0..site.layers)
                    .flat_map(move |layer| (0..h).map(move |head| HeadRef { stack: site.stack, layer, head }))
            })
            .collect()
    }
}

fn yes() -> bool {
    true
}

/// Which attention of the model: an attention *site*. A model reports those it has
/// ([`Config::sites`]); every per-attention notion (the trace, W_Q/W_K edits, knock-outs, head
/// names, analyses) is addressed by site, layer and head.
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

/// The token sequence an attention's rows or columns belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Sequence {
    /// The encoder's input tokens (`S`).
    Source,
    /// The decoder's input tokens (`T`).
    Target,
}

impl Stack {
    /// Every site a model may have, in trace order.
    pub const ALL: [Stack; 3] = [Stack::Encoder, Stack::DecoderSelf, Stack::DecoderCross];

    /// Its id in JSON and in the CLI's `attention` object: `encoder`, `decoder_self`, `cross`.
    pub fn id(self) -> &'static str {
        match self {
            Stack::Encoder => "encoder",
            Stack::DecoderSelf => "decoder_self",
            Stack::DecoderCross => "cross",
        }
    }

    /// The letter that starts its head names ([`HeadRef`]): `e`, `s`, `c`.
    pub fn letter(self) -> char {
        match self {
            Stack::Encoder => 'e',
            Stack::DecoderSelf => 's',
            Stack::DecoderCross => 'c',
        }
    }

    /// The site a head name's letter stands for (either case).
    pub fn from_letter(c: char) -> Option<Stack> {
        Stack::ALL.into_iter().find(|s| s.letter() == c.to_ascii_lowercase())
    }
}

/// One attention site of a model, described as data: what a page or the CLI needs to show it
/// without knowing the model's family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Site {
    /// Which attention.
    pub stack: Stack,
    /// `encoder`, `decoder_self` or `cross` ([`Stack::id`]).
    pub id: &'static str,
    /// The letter of its head names ([`Stack::letter`]).
    pub letter: char,
    /// In words, for people.
    pub label: &'static str,
    /// Layers holding it.
    pub layers: usize,
    /// Heads per layer, as trained.
    pub heads: usize,
    /// The sequence its rows (queries) belong to.
    pub rows: Sequence,
    /// The sequence its columns (keys and values) belong to.
    pub cols: Sequence,
    /// Whether it is causally masked by default (the run options can change it).
    pub causal: bool,
}

impl Site {
    fn new(stack: Stack, layers: usize, heads: usize) -> Site {
        let (label, rows, cols, causal) = match stack {
            Stack::Encoder => ("encoder self-attention", Sequence::Source, Sequence::Source, false),
            Stack::DecoderSelf => ("decoder self-attention (masked)", Sequence::Target, Sequence::Target, true),
            Stack::DecoderCross => ("cross-attention", Sequence::Target, Sequence::Source, false),
        };
        Site { stack, id: stack.id(), letter: stack.letter(), label, layers, heads, rows, cols, causal }
    }
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
        let stack = t.chars().next().and_then(Stack::from_letter).ok_or_else(bad)?;
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
        write!(f, "{}{}h{}", self.stack.letter(), self.layer + 1, self.head + 1)
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
    /// The residual connections of every Add & Norm (section 3.1). Default `true`. A switch
    /// for the training lesson (issue 27): off, a sublayer's output replaces its input
    /// (`LN(Sublayer(x))` post-norm, `Sublayer(LN(x))` pre-norm), as in a network without
    /// residuals (He et al. 2016), so that a reader can watch a deep stack's gradients fade.
    pub residual: bool,
    /// The LayerNorms of every Add & Norm and the stacks' final LayerNorms. Default `true`. Off,
    /// each is the identity (a training-lesson switch like `residual`; an embedding LayerNorm
    /// and a masked-LM head's own LayerNorm stay).
    pub layer_norm: bool,
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
            residual: true,
            layer_norm: true,
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
        let has = |stack: Stack, what: &dyn core::fmt::Display| {
            if cfg.layers(stack) == 0 {
                Err(input_err!("{what}: this {:?} model has no {}", cfg.architecture, stack.id()))
            } else {
                Ok(())
            }
        };
        for k in &self.knock_out {
            has(k.stack, k)?;
            if k.layer >= cfg.layers(k.stack) {
                return Err(input_err!("knock-out {k}: {:?} has {} layers", k.stack, cfg.layers(k.stack)));
            }
            if k.head >= h {
                return Err(input_err!("knock-out {k}: this run has {h} heads"));
            }
        }
        for o in &self.overrides {
            has(o.stack, &"an override")?;
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
