//! `attnscope`: run a model file from the command line.
//!
//! * `attnscope forward`: one teacher-forced forward pass, printed as one JSON object with the
//!   tokens, the memory, the decoder output, the logits and every attention weight.
//! * `attnscope translate`: greedy translation, one line per input text; a generated `<unk>`
//!   prints as the source word cross-attention copies, reported on stderr.
//! * `attnscope importance`: greedy translation, then every head's effect on its
//!   log-probability when knocked out alone, most important first.
//! * `attnscope generate`: a decoder-only model (GPT-2) continues a text, greedily.
//! * `attnscope fill`: an encoder-only model (BERT) predicts its `[MASK]` tokens.
//! * `attnscope confidence`: greedy translation of a reference set (`tests/data/everyday-en-ko.tsv`),
//!   the probability threshold below which the page marks a token as unsure, chosen on the dev
//!   half and reported on both, as JSON.
//! * `attnscope info`: the model's configuration (without the vocabularies) and its attention
//!   sites as JSON.
//!
//! Errors are one line on stderr, `attnscope: error: ...`, with exit code 2 when the command
//! line asks for something impossible (bad flags, bad ids, ids outside the vocabulary, a head
//! count that does not divide `d_model`, empty text) and 1 when a file cannot be read or is not
//! a valid model. Output to a closed pipe (`attnscope ... | head -1`) ends the program quietly.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use attnscope::analysis::head_importance;
use attnscope::reference;
use attnscope::trace::HeadTrace;
use attnscope::{Architecture, Error, HeadRef, Model, RunOptions, Stack};
use clap::{Args, Parser, Subcommand};
use serde::Serialize;

/// Exit code of a command line that asks for something impossible.
const EXIT_USAGE: u8 = 2;
/// Exit code of a failure to read a file or to load a model.
const EXIT_RUNTIME: u8 = 1;

#[derive(Parser, Debug)]
#[command(
    name = "attnscope",
    version,
    about = "Run an attnscope Transformer model file: a forward pass with every attention weight, \
             greedy translation, the configuration",
    after_help = "Exit codes: 0 success, 1 a file cannot be read or is not a valid model, \
                  2 the command line asks for something impossible \
                  (bad flags, bad ids, empty text, heads not dividing d_model)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// One teacher-forced forward pass with every attention weight, printed as one JSON object.
    ///
    /// The object holds: src_tokens, tgt_tokens (the tokens used), src_ids, tgt_ids, unknown
    /// (source words not in the vocabulary, fed as <unk>), heads, encoder_output [S][d],
    /// decoder_output [T][d] (after the final norms), logits [T][V] (an encoder-only model's
    /// masked-LM head: [S][V]), and attention {encoder [L][H][S][S], decoder_self
    /// [L][H][T][T], cross [L][H][T][S]}: only what the model has (an encoder-only model has
    /// no decoder, a decoder-only model no encoder and no cross-attention).
    ///
    /// A model with an encoder reads --src or --src-ids; one with a decoder --tgt or --tgt-ids.
    /// An encoder-decoder's decoder input is <bos> followed by the --tgt tokens; a decoder-only
    /// model's is the --tgt text tokenised, without <bos>; --tgt-ids are used verbatim.
    Forward(ForwardArgs),
    /// Continue each TEXT with a decoder-only model (GPT-2), greedily, one line per TEXT.
    Generate(GenerateArgs),
    /// Predict the [MASK] tokens of TEXT with an encoder-only model's masked-LM head (BERT):
    /// one line per mask, its top candidates with their probabilities.
    Fill(FillArgs),
    /// Greedy translation of each TEXT, one line per TEXT; unknown words are reported on stderr.
    ///
    /// A generated <unk> prints as the source word that received the most cross-attention at
    /// that step (last decoder layer, mean over heads); each such copy is reported on stderr as
    /// `attnscope: copied: "sofa" <- source 6 (weight 0.83)` (source token index from 0).
    Translate(TranslateArgs),
    /// Which heads the translation depends on: each head knocked out alone, ranked.
    ///
    /// Translates TEXT greedily (with the run options, --knock-out included), then for every
    /// head runs the translation teacher-forced with that head knocked out as well and prints
    /// the change of log p(translation | source), the largest drop first: one line per head,
    /// `rank head delta log_prob` (heads written e1h2, s2h1, c2h3), after a line with the
    /// translation and its log-probability. --json prints one JSON object instead.
    Importance(ImportanceArgs),
    /// The model's configuration (without the vocabularies) and its attention sites, as JSON.
    Info(InfoArgs),
    /// Where the model is unsure: the threshold p* below which the page marks a token.
    ///
    /// Translates every sentence of SET (the reference set's format: `id<TAB>split<TAB>en<TAB>ko`,
    /// split dev or heldout, ` | ` between accepted translations) greedily, marks it right when
    /// it equals an accepted translation after normalising spaces and final punctuation, and
    /// keeps its lowest printed-token probability. p* (0.01 steps) is the largest for which
    /// "some token below p*" flags at most 5% of the right sentences of the dev half (a mark
    /// should rarely sit on a right translation). Prints one JSON object: {model, set, criterion, unsure_below, stored (the
    /// file's own unsure_below field, or null), dev, heldout: {sentences, right, wrong,
    /// wrong_flagged, right_flagged, wrong_flagged_share, right_flagged_share,
    /// balanced_accuracy}}.
    Confidence(ConfidenceArgs),
    /// The loss of one teacher-forced pass and its gradient with respect to every parameter,
    /// as one JSON object: {"loss": x, "grads": {NAME: nested arrays}}, NAME as in the model
    /// file. The loss is the mean over the labelled positions t of the cross-entropy of
    /// logits[t] against labels[t] (the decoder's rows; an encoder-only model's masked-LM rows).
    Grad(GradArgs),
}

#[derive(Args, Debug)]
struct GradArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    /// Source token ids (a model with an encoder), comma-separated.
    #[arg(long, value_name = "IDS", value_parser = parse_ids)]
    src_ids: Option<Ids>,
    /// Decoder input ids (a model with a decoder), comma-separated, used verbatim.
    #[arg(long, value_name = "IDS", value_parser = parse_ids)]
    tgt_ids: Option<Ids>,
    /// One label per output row, comma-separated; a negative label (-100) is ignored. Write
    /// `--labels=-100,5` when the list starts with a negative number.
    #[arg(long, value_name = "IDS", value_parser = parse_labels, allow_hyphen_values = true)]
    labels: Labels,
    #[command(flatten)]
    run: RunFlags,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
}

/// A comma-separated list of labels, e.g. `-100,4,5`.
#[derive(Debug, Clone)]
struct Labels(Vec<i64>);

/// Parse `-100,4,5`.
fn parse_labels(s: &str) -> Result<Labels, String> {
    if s.trim().is_empty() {
        return Err("no labels given (expected a comma-separated list such as 4,5,-100)".into());
    }
    s.split(',')
        .map(|part| {
            let part = part.trim();
            part.parse::<i64>().map_err(|_| format!("{part:?} is not a label (an integer; -100 = ignored)"))
        })
        .collect::<Result<Vec<i64>, String>>()
        .map(Labels)
}

/// The per-run options shared by `forward` and `translate` (see `attnscope::RunOptions`).
#[derive(Args, Debug, Clone)]
struct RunFlags {
    /// Split the trained projections into N heads (a divisor of d_model; default: the model's nhead).
    #[arg(long, value_name = "N")]
    heads: Option<usize>,
    /// Do not divide the attention scores by sqrt(d_k).
    #[arg(long)]
    no_scale: bool,
    /// Remove the causal mask of the decoder self-attention (positions see later tokens).
    #[arg(long)]
    no_causal_mask: bool,
    /// Put a causal mask on the encoder self-attention.
    #[arg(long)]
    causal_encoder: bool,
    /// Do not add positional encoding to the embeddings.
    #[arg(long)]
    no_positional: bool,
    /// Knock out heads: their output is replaced by zeros before out_proj. A comma-separated
    /// list of stack (e encoder, s decoder self-attention, c cross-attention), layer and head,
    /// counted from 1: e1h2,s2h1,c2h3.
    #[arg(long, value_name = "HEADS", value_parser = parse_heads)]
    knock_out: Option<Heads>,
    /// Drop the residual connections of every Add & Norm (a training-lesson switch).
    #[arg(long)]
    no_residual: bool,
    /// Make every Add & Norm LayerNorm and the stacks' final LayerNorms the identity.
    #[arg(long)]
    no_layer_norm: bool,
}

/// A list of heads, e.g. `e1h2,c2h3`.
#[derive(Debug, Clone)]
struct Heads(Vec<HeadRef>);

/// Parse `e1h2,s2h1,c2h3` (see [`HeadRef::parse`]).
fn parse_heads(s: &str) -> Result<Heads, String> {
    HeadRef::parse_list(s).map(Heads).map_err(|e| match e {
        Error::Input(m) | Error::Format(m) | Error::Numeric(m) => m,
    })
}

impl RunFlags {
    /// The engine's options for these flags.
    fn options(&self) -> RunOptions {
        RunOptions {
            heads: self.heads,
            scale: !self.no_scale,
            causal_decoder: !self.no_causal_mask,
            causal_encoder: self.causal_encoder,
            positional: !self.no_positional,
            overrides: Vec::new(),
            knock_out: self.knock_out.clone().map(|k| k.0).unwrap_or_default(),
            residual: !self.no_residual,
            layer_norm: !self.no_layer_norm,
        }
    }
}

/// A comma-separated list of token ids, e.g. `3,4,5`.
#[derive(Debug, Clone)]
struct Ids(Vec<u32>);

/// Parse `3,4,5` (spaces around the commas allowed) into ids.
fn parse_ids(s: &str) -> Result<Ids, String> {
    if s.trim().is_empty() {
        return Err("no ids given (expected a comma-separated list such as 3,4,5)".into());
    }
    s.split(',')
        .map(|part| {
            let part = part.trim();
            part.parse::<u32>().map_err(|_| format!("{part:?} is not a token id (a non-negative integer)"))
        })
        .collect::<Result<Vec<u32>, String>>()
        .map(Ids)
}

#[derive(Args, Debug)]
struct ForwardArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    #[command(flatten)]
    src: SrcInput,
    #[command(flatten)]
    tgt: TgtInput,
    #[command(flatten)]
    run: RunFlags,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
}

/// The source sentence, as text or as ids (at most one; required by a model with an encoder).
#[derive(Args, Debug)]
#[group(required = false, multiple = false)]
struct SrcInput {
    /// Source text, tokenised with the model's tokenizer (unknown words become <unk>).
    #[arg(long, value_name = "TEXT")]
    src: Option<String>,
    /// Source token ids, comma-separated (e.g. 3,4,5), used verbatim.
    #[arg(long, value_name = "IDS", value_parser = parse_ids)]
    src_ids: Option<Ids>,
}

/// The decoder input, as target tokens or as ids (at most one; required by a model with a
/// decoder).
#[derive(Args, Debug)]
#[group(required = false, multiple = false)]
struct TgtInput {
    /// Target tokens separated by whitespace (e.g. a prefix of the translation); the decoder
    /// input is <bos> followed by these tokens.
    #[arg(long, value_name = "TEXT")]
    tgt: Option<String>,
    /// Decoder input ids, comma-separated (e.g. 1,6), used verbatim (no <bos> is added).
    #[arg(long, value_name = "IDS", value_parser = parse_ids)]
    tgt_ids: Option<Ids>,
}

#[derive(Args, Debug)]
struct TranslateArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    #[command(flatten)]
    run: RunFlags,
    /// Stop after this many generated tokens (default and upper bound: the model's max_len).
    #[arg(long, value_name = "N")]
    max_steps: Option<usize>,
    /// The sentences to translate, one output line each.
    #[arg(value_name = "TEXT", required = true)]
    texts: Vec<String>,
}

#[derive(Args, Debug)]
struct ConfidenceArgs {
    /// The model file (.safetensors): an encoder-decoder.
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    /// The reference set (.tsv), e.g. tests/data/everyday-en-ko.tsv.
    #[arg(long, value_name = "SET")]
    set: PathBuf,
    /// Indent the JSON.
    #[arg(long)]
    pretty: bool,
}

#[derive(Args, Debug)]
struct ImportanceArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    #[command(flatten)]
    run: RunFlags,
    /// Print one JSON object: {translation, tokens, base, heads: [{head, log_prob, delta}]
    /// most important first}.
    #[arg(long)]
    json: bool,
    /// The sentence to translate.
    #[arg(value_name = "TEXT")]
    text: String,
}

#[derive(Args, Debug)]
struct GenerateArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    #[command(flatten)]
    run: RunFlags,
    /// Stop after this many generated tokens (default 20; at most what max_len leaves).
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_steps: usize,
    /// The texts to continue, one output line each.
    #[arg(value_name = "TEXT", required = true)]
    texts: Vec<String>,
}

#[derive(Args, Debug)]
struct FillArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
    #[command(flatten)]
    run: RunFlags,
    /// Candidates printed per mask.
    #[arg(long, value_name = "K", default_value_t = 5)]
    top_k: usize,
    /// Print one JSON object: {tokens, masks: [{position, candidates: [{token, id, prob}]}]}.
    #[arg(long)]
    json: bool,
    /// The text, with the model's mask token (e.g. [MASK]) where a word is hidden.
    #[arg(value_name = "TEXT")]
    text: String,
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// The model file (.safetensors).
    #[arg(long, value_name = "FILE")]
    model: PathBuf,
}

/// Why the program stops early.
#[derive(Debug)]
enum Failure {
    /// A one-line message and an exit code.
    Message(String, u8),
    /// stdout was closed by the reader: stop quietly.
    ClosedPipe,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match e {
            Error::Input(_) => EXIT_USAGE,
            Error::Format(_) | Error::Numeric(_) => EXIT_RUNTIME,
        };
        Failure::Message(e.to_string(), code)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::ClosedPipe
        } else {
            Failure::Message(format!("cannot write the output: {e}"), EXIT_RUNTIME)
        }
    }
}

/// Read and load a model file.
fn load(path: &Path) -> Result<Model, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::Message(format!("cannot read model file {:?}: {e}", path.display()), EXIT_RUNTIME))?;
    Model::from_safetensors(&bytes).map_err(|e| Failure::Message(format!("{}: {e}", path.display()), EXIT_RUNTIME))
}

/// A matrix as nested rows.
fn rows(m: &attnscope::Mat) -> Vec<Vec<f32>> {
    (0..m.nrows()).map(|i| m.row_vec(i)).collect()
}

/// One attention of every layer: `[L][H][T_q][T_k]`.
fn weights<'a>(layers: impl Iterator<Item = &'a Vec<HeadTrace>>) -> Weights {
    layers.map(|heads| heads.iter().map(|h| rows(&h.weights)).collect()).collect()
}

/// One attention of every layer, `[L][H][T_q][T_k]`.
type Weights = Vec<Vec<Vec<Vec<f32>>>>;

/// The `attention` object of `forward`'s output: one entry per site the model has.
#[derive(Serialize)]
struct AttentionOut {
    /// `[L_enc][H][S][S]`
    #[serde(skip_serializing_if = "Option::is_none")]
    encoder: Option<Weights>,
    /// `[L_dec][H][T][T]`
    #[serde(skip_serializing_if = "Option::is_none")]
    decoder_self: Option<Weights>,
    /// `[L_dec][H][T][S]`
    #[serde(skip_serializing_if = "Option::is_none")]
    cross: Option<Weights>,
}

/// `forward`'s output.
#[derive(Serialize)]
struct ForwardOut {
    src_tokens: Vec<String>,
    tgt_tokens: Vec<String>,
    src_ids: Vec<u32>,
    tgt_ids: Vec<u32>,
    /// Source tokens that are not in the vocabulary (they were fed as `<unk>`).
    unknown: Vec<String>,
    heads: usize,
    /// `[S][d_model]`
    #[serde(skip_serializing_if = "Option::is_none")]
    encoder_output: Option<Vec<Vec<f32>>>,
    /// `[T][d_model]`
    #[serde(skip_serializing_if = "Option::is_none")]
    decoder_output: Option<Vec<Vec<f32>>>,
    /// `[T][V]` (an encoder-only model's masked-LM logits: `[S][V]`)
    #[serde(skip_serializing_if = "Option::is_none")]
    logits: Option<Vec<Vec<f32>>>,
    attention: AttentionOut,
}

/// The vocabulary entry of each id (`"?"` outside the vocabulary; the engine rejects those).
fn tokens_of(vocab: &[String], ids: &[u32]) -> Vec<String> {
    ids.iter().map(|&id| vocab.get(id as usize).cloned().unwrap_or_else(|| "?".into())).collect()
}

/// Write a warning line on stderr (never fails: a closed stderr is ignored).
fn warn(msg: &str) {
    let _ = writeln!(io::stderr(), "attnscope: warning: {msg}");
}

/// Write an informational line on stderr (never fails).
fn note(msg: &str) {
    let _ = writeln!(io::stderr(), "attnscope: {msg}");
}

fn forward(args: ForwardArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    let tok = &model.tokenizer;
    let cfg = &model.config;

    let arch = cfg.architecture;
    let given_src = args.src.src.is_some() || args.src.src_ids.is_some();
    let given_tgt = args.tgt.tgt.is_some() || args.tgt.tgt_ids.is_some();
    if arch.has_encoder() != given_src {
        let need =
            if arch.has_encoder() { "needs --src or --src-ids" } else { "reads no source: drop --src/--src-ids" };
        return Err(Failure::Message(format!("this {arch:?} model {need}"), EXIT_USAGE));
    }
    if arch.has_decoder() != given_tgt {
        let need =
            if arch.has_decoder() { "needs --tgt or --tgt-ids" } else { "reads no target: drop --tgt/--tgt-ids" };
        return Err(Failure::Message(format!("this {arch:?} model {need}"), EXIT_USAGE));
    }
    let (src_tokens, src_ids, unknown) = match (&args.src.src, &args.src.src_ids) {
        (Some(text), _) => {
            let enc = tok.encode_src(text)?;
            let unknown = enc.unknown.iter().map(|&i| enc.tokens[i].clone()).collect();
            (enc.tokens, enc.ids, unknown)
        }
        (None, Some(Ids(ids))) => (tokens_of(&cfg.src_vocab, ids), ids.clone(), Vec::new()),
        (None, None) => (Vec::new(), Vec::new(), Vec::new()),
    };
    let (tgt_tokens, tgt_ids) = match (&args.tgt.tgt, &args.tgt.tgt_ids) {
        (Some(text), _) => {
            let enc = tok.encode_tgt(text)?;
            for &i in &enc.unknown {
                warn(&format!(
                    "target token {:?} is not in the vocabulary; fed as {:?}",
                    enc.tokens[i], cfg.specials.unk
                ));
            }
            // an encoder-decoder's decoder starts from <bos>; a decoder-only model reads the text
            let (mut tokens, mut ids) =
                if arch.has_encoder() { (vec![cfg.specials.bos.clone()], vec![tok.bos]) } else { (vec![], vec![]) };
            tokens.extend(enc.tokens);
            ids.extend(enc.ids);
            (tokens, ids)
        }
        (None, Some(Ids(ids))) => (tokens_of(&cfg.tgt_vocab, ids), ids.clone()),
        (None, None) => (Vec::new(), Vec::new()),
    };

    let trace = model.forward(&src_ids, &tgt_ids, &args.run.options())?;
    let site = |stack: Stack| {
        let layers = trace.site(stack);
        (!layers.is_empty()).then(|| weights(layers.iter().map(|a| &a.heads)))
    };
    let logits = match (&trace.decoder, &trace.encoder) {
        (Some(d), _) => (d.logits.ncols() > 0).then(|| rows(&d.logits)),
        (None, Some(e)) => e.logits.as_ref().map(rows),
        (None, None) => None,
    };
    let out = ForwardOut {
        src_tokens,
        tgt_tokens,
        src_ids,
        tgt_ids,
        unknown,
        heads: trace.heads,
        encoder_output: trace.encoder.as_ref().map(|e| rows(&e.memory)),
        decoder_output: trace.decoder.as_ref().map(|d| rows(&d.output)),
        logits,
        attention: AttentionOut {
            encoder: site(Stack::Encoder),
            decoder_self: site(Stack::DecoderSelf),
            cross: site(Stack::DecoderCross),
        },
    };
    print_json(&out, args.pretty)
}

/// Serialise `value` and print it as one line (or indented) on stdout.
fn print_json<T: Serialize>(value: &T, pretty: bool) -> Result<(), Failure> {
    let text = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) }
        .map_err(|e| Failure::Message(format!("cannot serialise the output: {e}"), EXIT_RUNTIME))?;
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// A usage error unless `model` is of `arch`: `what` the command needs, what this model is, and
/// the command that fits it.
fn need(model: &Model, arch: Architecture, what: &str) -> Result<(), Failure> {
    let has = model.config.architecture;
    if has == arch {
        return Ok(());
    }
    let instead = match has {
        Architecture::EncoderDecoder => "translate",
        Architecture::DecoderOnly => "generate",
        Architecture::EncoderOnly => "fill",
    };
    Err(Failure::Message(format!("{what}; this is a {has:?} model (try '{instead}')"), EXIT_USAGE))
}

fn translate(args: TranslateArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    need(&model, Architecture::EncoderDecoder, "translate needs an encoder-decoder")?;
    let opts = args.run.options();
    // Everything that can be wrong with the input is found before the first line is printed.
    opts.validate(&model.config)?;
    let encoded = args.texts.iter().map(|t| model.tokenizer.encode_src(t)).collect::<Result<Vec<_>, Error>>()?;
    let max_steps = args.max_steps.unwrap_or(model.config.max_len);
    let mut out = io::stdout().lock();
    for (text, enc) in args.texts.iter().zip(&encoded) {
        if !enc.unknown.is_empty() {
            let words: Vec<&str> = enc.unknown.iter().map(|&i| enc.tokens[i].as_str()).collect();
            warn(&format!("unknown words in {text:?}, read as {:?}: {}", model.config.specials.unk, words.join(" ")));
        }
        let decoding = attnscope::greedy(&model, &enc.ids, &opts, max_steps)?;
        for (_, c) in decoding.copies() {
            note(&format!("copied: {:?} <- source {} (weight {:.2})", enc.tokens[c.source], c.source, c.weight));
        }
        writeln!(out, "{}", decoding.text(&model.tokenizer, &enc.tokens))?;
    }
    out.flush()?;
    Ok(())
}

fn confidence(args: ConfidenceArgs) -> Result<(), Failure> {
    let path = &args.model;
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::Message(format!("cannot read model file {:?}: {e}", path.display()), EXIT_RUNTIME))?;
    let model = Model::from_safetensors(&bytes)
        .map_err(|e| Failure::Message(format!("{}: {e}", path.display()), EXIT_RUNTIME))?;
    need(&model, Architecture::EncoderDecoder, "confidence translates, it needs an encoder-decoder")?;
    let text = std::fs::read_to_string(&args.set).map_err(|e| {
        Failure::Message(format!("cannot read reference set {:?}: {e}", args.set.display()), EXIT_RUNTIME)
    })?;
    let set =
        reference::parse(&text).map_err(|e| Failure::Message(format!("{}: {e}", args.set.display()), EXIT_RUNTIME))?;
    let (c, _) = reference::measure_confidence(&model, &set)?;
    let stored = reference::description_field(&bytes, "unsure_below")?;
    print_json(
        &serde_json::json!({
            "model": args.model.display().to_string(),
            "set": args.set.display().to_string(),
            "criterion": c.criterion,
            "unsure_below": c.unsure_below,
            "stored": stored,
            "dev": c.dev,
            "heldout": c.heldout,
        }),
        args.pretty,
    )
}

/// One head of `importance`'s JSON output.
#[derive(Serialize)]
struct RankedHead {
    head: String,
    log_prob: f32,
    delta: f32,
}

/// `importance --json`'s output.
#[derive(Serialize)]
struct ImportanceOut {
    translation: String,
    tokens: Vec<String>,
    base: f32,
    heads: Vec<RankedHead>,
}

fn importance(args: ImportanceArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    let opts = args.run.options();
    opts.validate(&model.config)?;
    let enc = model.tokenizer.encode_src(&args.text)?;
    let decoding = attnscope::greedy(&model, &enc.ids, &opts, model.config.max_len)?;
    let result = head_importance(&model, &enc.ids, &decoding.tokens, &opts)?;
    let translation = decoding.text(&model.tokenizer, &enc.tokens);
    let ranked = result.ranking.iter().map(|&i| &result.heads[i]);
    let mut out = io::stdout().lock();
    if args.json {
        let heads =
            ranked.map(|h| RankedHead { head: h.head.to_string(), log_prob: h.log_prob, delta: h.delta }).collect();
        let tokens = decoding.tokens.iter().map(|&t| model.tokenizer.tgt_token(t).to_string()).collect();
        drop(out);
        return print_json(&ImportanceOut { translation, tokens, base: result.base, heads }, false);
    }
    writeln!(out, "{translation}\tlog p = {:.4}", result.base)?;
    writeln!(out, "rank\thead\tdelta\tlog_prob")?;
    for (rank, h) in ranked.enumerate() {
        writeln!(out, "{}\t{}\t{:.4}\t{:.4}", rank + 1, h.head, h.delta, h.log_prob)?;
    }
    out.flush()?;
    Ok(())
}

fn generate(args: GenerateArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    need(&model, Architecture::DecoderOnly, "generate continues a text with a decoder-only model")?;
    let opts = args.run.options();
    opts.validate(&model.config)?;
    let prompts = args.texts.iter().map(|t| model.tokenizer.encode_tgt(t)).collect::<Result<Vec<_>, Error>>()?;
    let mut out = io::stdout().lock();
    for (text, enc) in args.texts.iter().zip(&prompts) {
        if !enc.unknown.is_empty() {
            let words: Vec<&str> = enc.unknown.iter().map(|&i| enc.tokens[i].as_str()).collect();
            warn(&format!("unknown tokens in {text:?}: {}", words.join(" ")));
        }
        let decoding = attnscope::decode::generate(&model, &enc.ids, &opts, args.max_steps)?;
        writeln!(out, "{}", model.tokenizer.detokenize(&decoding.tokens))?;
    }
    out.flush()?;
    Ok(())
}

/// One candidate for a masked position.
#[derive(Serialize)]
struct Candidate {
    token: String,
    id: u32,
    prob: f32,
}

/// One masked position and its candidates, most probable first.
#[derive(Serialize)]
struct Filled {
    position: usize,
    candidates: Vec<Candidate>,
}

/// `fill --json`'s output.
#[derive(Serialize)]
struct FillOut {
    tokens: Vec<String>,
    masks: Vec<Filled>,
}

fn fill(args: FillArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    let opts = args.run.options();
    opts.validate(&model.config)?;
    let prediction = attnscope::fill::fill_masks(&model, &args.text, &opts, args.top_k)?;
    let vocab = &model.config.src_vocab;
    let masks: Vec<Filled> = prediction
        .masks
        .iter()
        .map(|m| Filled {
            position: m.position,
            candidates: m
                .candidates
                .iter()
                .map(|&(id, prob)| Candidate { token: tokens_of(vocab, &[id]).remove(0), id, prob })
                .collect(),
        })
        .collect();
    if args.json {
        return print_json(&FillOut { tokens: prediction.encoded.tokens, masks }, false);
    }
    let mut out = io::stdout().lock();
    for m in &masks {
        let list: Vec<String> = m.candidates.iter().map(|c| format!("{} ({:.3})", c.token, c.prob)).collect();
        writeln!(out, "{}\t{}", m.position, list.join("  "))?;
    }
    out.flush()?;
    Ok(())
}

fn info(args: InfoArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    let cfg = &model.config;
    let mut value = serde_json::to_value(cfg)
        .map_err(|e| Failure::Message(format!("cannot serialise the config: {e}"), EXIT_RUNTIME))?;
    if let Some(obj) = value.as_object_mut() {
        obj.remove("src_vocab");
        obj.remove("tgt_vocab");
        obj.insert("src_vocab_size".into(), cfg.src_vocab.len().into());
        obj.insert("tgt_vocab_size".into(), cfg.tgt_vocab.len().into());
        obj.insert("head_choices".into(), cfg.head_choices().into());
        let sites = serde_json::to_value(cfg.sites())
            .map_err(|e| Failure::Message(format!("cannot serialise the sites: {e}"), EXIT_RUNTIME))?;
        obj.insert("sites".into(), sites);
    }
    print_json(&value, true)
}

fn grad(args: GradArgs) -> Result<(), Failure> {
    let model = load(&args.model)?;
    let src = args.src_ids.map(|i| i.0).unwrap_or_default();
    let tgt = args.tgt_ids.map(|i| i.0).unwrap_or_default();
    let (_, grads) = model.gradients(&src, &tgt, &args.labels.0, &args.run.options())?;
    let nested = |shape: &[usize], data: &[f32]| -> serde_json::Value {
        fn build(shape: &[usize], data: &[f32]) -> serde_json::Value {
            match shape {
                [] => data.first().copied().unwrap_or(0.0).into(),
                [_] => data.iter().map(|&v| serde_json::Value::from(v)).collect(),
                [n, rest @ ..] => {
                    let step = rest.iter().product::<usize>();
                    (0..*n).map(|i| build(rest, &data[i * step..(i + 1) * step])).collect()
                }
            }
        }
        build(shape, data)
    };
    let tensors: serde_json::Map<String, serde_json::Value> =
        grads.tensors(&model).into_iter().map(|t| (t.name, nested(&t.shape, &t.data))).collect();
    print_json(&serde_json::json!({ "loss": grads.loss, "grads": tensors }), args.pretty)
}

/// Collapse clap's multi-line error into one line: its message and the lines that belong to
/// it, without the usage block, tips and the "--help" hint.
fn one_line_clap_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if line.is_empty() || line.starts_with("tip:") {
            continue;
        }
        parts.push(line.strip_prefix("error:").unwrap_or(line).trim().to_string());
    }
    parts.join(" ")
}

fn main() -> ExitCode {
    // A bug in the engine should still end in one line, not a backtrace dump.
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("unknown cause");
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let msg = msg.replace('\n', " ");
        let _ = writeln!(io::stderr(), "attnscope: error: internal error{at}: {msg} (please report this bug)");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = write!(io::stdout(), "{}", e.render());
                return ExitCode::SUCCESS;
            }
            let msg = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                "no command given; run 'attnscope --help' (commands: forward, translate, generate, fill, importance, info, grad, confidence)".to_string()
            } else {
                one_line_clap_error(&e)
            };
            let _ = writeln!(io::stderr(), "attnscope: error: {msg}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let result = match cli.command {
        Command::Forward(a) => forward(a),
        Command::Translate(a) => translate(a),
        Command::Importance(a) => importance(a),
        Command::Generate(a) => generate(a),
        Command::Fill(a) => fill(a),
        Command::Info(a) => info(a),
        Command::Confidence(a) => confidence(a),
        Command::Grad(a) => grad(a),
    };
    match result {
        Ok(()) | Err(Failure::ClosedPipe) => ExitCode::SUCCESS,
        Err(Failure::Message(msg, code)) => {
            let msg = msg.replace('\n', " ");
            let _ = writeln!(io::stderr(), "attnscope: error: {msg}");
            ExitCode::from(code)
        }
    }
}
