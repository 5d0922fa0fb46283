// The wasm engine behind one small object that survives a panic: the only wrapper, for the lab,
// the embeds and the lesson.
//
//   new Engine()                                     // the lab and each embed: the translator
//   new Engine({ bytes, name })                      // a model file the reader opened
//   new Engine({ words: true, tolerant: true })      // the lesson: + GloVe vectors, never throws
//
// The page talks to the wasm exports (src/wasm.rs: `Lab`, `Words`, and the free functions) only
// through this wrapper. Every call may throw an Error with a readable message (the caller shows
// it); a panic inside wasm surfaces as a `WebAssembly.RuntimeError` ("unreachable") and leaves
// that instance unusable, so the wrapper marks itself broken, and `recover()` instantiates a
// fresh copy of the module and replays what the page had set: options, Q/K edits and the
// sentence. The two ways of loading are options, not two wrappers:
// - `tolerant`: loading never throws; a part that could not load (the module, the word vectors,
//   the translator) is named in `errors`, so a page can show everything that did load.
// - `words`: also load the GloVe word vectors (`project`).

import { readModelFile } from "./model_file.js";
import { ASSET, assetBytes, freshInstance, isPanic, warmUp, wasmMemoryBytes } from "./runtime.js";

// The shapes the wasm module returns (src/wasm.rs, src/trace.rs). The bindings' own types
// (pkg/attnscope.d.ts, written by wasm-bindgen) type these results `any`: the shapes are here.

/** @typedef {import("./state.js").StackName} StackName */
/** @typedef {import("pkg/attnscope.js").Lab} Lab  the wasm-bindgen class (pkg/attnscope.d.ts) */
/** @typedef {import("pkg/attnscope.js").Words} Words */
/** @typedef {import("./runtime.js").Glue} Glue */

/**
 * A matrix: `data` row-major, `rows * cols` values. In a frame's run (`run({frame: true})`)
 * `data` is a getter that copies the values out of wasm memory on first read.
 * @typedef {object} Matrix
 * @property {number} rows
 * @property {number} cols
 * @property {Float32Array} data
 */

/**
 * One head of one attention: its projections, scores q·k, scaled and masked scores (`logits`),
 * softmax `weights` (query rows x key columns) and output.
 * @typedef {object} HeadTrace
 * @property {Matrix} q
 * @property {Matrix} k
 * @property {Matrix} v
 * @property {Matrix} scores
 * @property {Matrix} logits
 * @property {Matrix} weights
 * @property {Matrix} output
 * @property {boolean} knocked_out
 */

/**
 * @typedef {object} AttentionTrace
 * @property {HeadTrace[]} heads
 * @property {Matrix} concat
 * @property {Matrix} output
 */

/**
 * A sublayer with its residual connection and LayerNorm ("Add & Norm").
 * @template T
 * @typedef {object} Residual
 * @property {T} sublayer
 * @property {Matrix} sum
 * @property {Matrix} norm
 * @property {boolean} norm_first
 */

/** @typedef {{hidden: Matrix, output: Matrix}} FfnTrace */

/**
 * @typedef {object} EncoderLayerTrace
 * @property {Residual<AttentionTrace>} self_attn
 * @property {Residual<FfnTrace>} ffn
 */

/**
 * @typedef {object} DecoderLayerTrace
 * @property {Residual<AttentionTrace>} self_attn
 * @property {Residual<AttentionTrace>} [cross_attn]  absent in a decoder-only model
 * @property {Residual<FfnTrace>} ffn
 */

/**
 * @typedef {object} EmbeddingTrace
 * @property {number[]} ids
 * @property {Matrix} embedding
 * @property {Matrix} positional
 * @property {Matrix | null} before_norm
 * @property {Matrix} input
 */

/**
 * @typedef {object} EncoderTrace
 * @property {EmbeddingTrace} embed
 * @property {EncoderLayerTrace[]} layers
 * @property {Matrix} memory
 * @property {Matrix} [logits]   an encoder-only (masked-LM) model's, computed when first read
 * @property {Matrix} [probs]
 */

/**
 * @typedef {object} DecoderTrace
 * @property {EmbeddingTrace} embed
 * @property {DecoderLayerTrace[]} layers
 * @property {Matrix} output
 * @property {Matrix} logits   (T, V), computed when first read
 * @property {Matrix} probs    (T, V), computed when first read
 */

/**
 * Every intermediate of one forward pass (Lab.run's `trace`; runEncoder's has no decoder). Only
 * the stacks a model has are present: the page's translator has both.
 * @typedef {object} Trace
 * @property {number} heads   heads per attention in this run
 * @property {EncoderTrace} [encoder]
 * @property {DecoderTrace} [decoder]
 */

/**
 * Lab.setSource's answer (and Lab.tokenize's, `dropped` 0).
 * @typedef {object} Source
 * @property {string[]} tokens
 * @property {number[]} ids
 * @property {number[]} unknown   positions of the words outside the source vocabulary
 * @property {number} dropped     tokens cut because the sentence was longer than `maxLen`
 */

/**
 * A generated `<unk>` that copies a source word; `text.slice(start, end)` prints it.
 * @typedef {object} Copy
 * @property {number} source   index into the source tokens
 * @property {number} weight   mean cross-attention weight on it (last decoder layer)
 * @property {string} word
 * @property {number} start
 * @property {number} end
 */

/**
 * One step of greedy decoding.
 * @typedef {object} Step
 * @property {string} token
 * @property {number} prob
 * @property {string | null} blocked   the most probable token when it was passed over
 * @property {"repeat" | "copied" | null} blockedWhy   why: it would repeat, or it is an `<unk>` with
 *   every unknown source word copied already (each is printed once)
 * @property {{token: string, prob: number}[]} top
 * @property {Matrix[]} cross   the cross-attention weights of each layer, one row per head
 * @property {Copy | null} copy
 * @property {number | null} start   where `text` prints the token: `text.slice(start, end)`; null
 *   for `<eos>` (a jamo ending composed into the syllable before it covers that syllable too)
 * @property {number | null} end
 */

/**
 * Lab.translate's answer.
 * @typedef {object} Translation
 * @property {string} text
 * @property {string[]} tokens           generated, `<eos>` included when produced
 * @property {string[]} decoder_tokens   `<bos>` + every generated token but the last
 * @property {boolean} finished
 * @property {Step[]} steps
 * @property {Trace} trace
 */

/** Lab.fill's answer, per mask token of the text: its position and the model's guesses. @typedef {{position: number, candidates: {token: string, prob: number}[]}} MaskGuess */

/** Lab.run's answer. @typedef {{decoder_tokens: string[], trace: Trace}} RunOut */

/**
 * Lab.info(): the model's family and shape.
 * @typedef {object} ModelInfo
 * @property {"encoder_decoder" | "encoder_only" | "decoder_only"} architecture
 * @property {Site[]} sites      the attentions it has, in trace order
 * @property {"translation" | "next_token" | "masked_token" | "none"} output  what its head gives
 * @property {"source" | "target"} text   the sequence the reader's text becomes
 * @property {number} dModel
 * @property {number} nhead
 * @property {number} encoderLayers
 * @property {number} decoderLayers
 * @property {number} dimFeedforward
 * @property {number} maxLen
 * @property {string} positional
 * @property {boolean} normFirst
 * @property {number} layerNormEps
 * @property {number[]} headChoices
 * @property {string} simd
 * @property {string[]} srcVocab
 */

/**
 * One attention site of a model (Lab.info().sites).
 * @typedef {object} Site
 * @property {StackName} stack   "encoder", "decoder_self" or "decoder_cross"
 * @property {"encoder" | "decoder_self" | "cross"} id
 * @property {string} letter     of its head names ("e", "s", "c")
 * @property {string} label
 * @property {number} layers
 * @property {number} heads      per layer, as trained
 * @property {"source" | "target"} rows
 * @property {"source" | "target"} cols
 * @property {boolean} causal     masked by default
 */

/**
 * Lab.setOptions's argument: every field optional (missing = unchanged).
 * @typedef {object} EngineOptions
 * @property {number} [heads]
 * @property {boolean} [scale]
 * @property {boolean} [causalDecoder]
 * @property {boolean} [causalEncoder]
 * @property {boolean} [positional]
 * @property {string[]} [knockOut]   "e1h2", "s2h1", "c2h3"; [] = every head on
 * @property {boolean} [residual]    the training switches (the playground's models): residual
 * @property {boolean} [layerNorm]   connections and LayerNorm on (default) or off
 */

/**
 * Lab.headImportance's answer: one entry per head, `ranking` most important first.
 * @typedef {{base: number, heads: string[], log_prob: Float32Array, delta: Float32Array, ranking: Uint32Array}} HeadImportance
 */

/** Lab.valueWeighted's answer, per head. @typedef {{value_norms: Matrix, norms: Matrix, normalized: Matrix}} ValueWeighted */

/** Lab.rollout's answer: one cumulative map per layer. @typedef {{encoder: Matrix[], decoder_self: Matrix[], cross: Matrix[]}} Rollout */

/**
 * Lab.saliency's answer, gradient × input of the current run: one row per output position (the
 * decoder's T, an encoder-only model's S). `source[r][s]` = (d log p(tokens[r]) / d e_s) · e_s
 * over the source tokens (a model with an encoder), `target` the same over the decoder's input
 * tokens (a model with a decoder); `tokens[r]`, row r's most probable output token.
 * @typedef {{source?: Matrix, target?: Matrix, tokens: string[]}} Saliency
 */

export class EngineBroken extends Error {
  constructor() {
    super("the engine stopped after an internal error; it restarts on your next change");
    this.name = "EngineBroken";
  }
}

// One fetch of each asset per page, however many engines (e.g. several embedded panels) use it.
/** @type {Map<string, Promise<Uint8Array>>} */
const assetCache = new Map();
/** @param {string} path */
function cachedBytes(path) {
  if (!assetCache.has(path)) {
    const p = assetBytes(path);
    p.catch(() => assetCache.delete(path)); // let a later load retry
    assetCache.set(path, p);
  }
  return assetCache.get(path);
}

/**
 * The matrix maker of a frame (Lab.run's argument): `{rows, cols, key}` whose `data`
 * (row-major Float32Array) is copied out of this engine's wasm memory on first read, then kept
 * as an own property. A key belongs to one Lab: after a restart (recover) it reads nothing.
 * @param {Engine} engine
 * @param {Lab} lab
 * @returns {MatrixMaker}
 */
export function frameMatrixMaker(engine, lab) {
  /** @implements {Matrix} */
  class FrameMatrix {
    /** @param {number} rows @param {number} cols @param {number} key */
    constructor(rows, cols, key) {
      this.rows = rows;
      this.cols = cols;
      this.key = key;
    }

    /** @returns {Float32Array} */
    get data() {
      if (engine.lab !== lab) throw new Error("this matrix belongs to an engine that has since restarted");
      const data = engine.guarded(() => lab.matrix(this.key));
      Object.defineProperty(this, "data", { value: data, enumerable: true });
      return data;
    }
  }
  return (rows, cols, key) => new FrameMatrix(rows, cols, key);
}

/** @typedef {(rows: number, cols: number, key: number) => Matrix} MatrixMaker */

/** @param {any} e */
function reason(e) {
  return e && e.message ? e.message : String(e);
}

/**
 * translateText's answer: setSource's and translate()'s, and with `runOpts` one more run.
 * @typedef {{src: Source, tr: Translation, run: RunOut | null}} TextRun
 */

export class Engine {
  /**
   * `bytes`: a model file already in memory (one the reader opened), instead of fetching `model`;
   * `name` names it (the demo model's is its path).
   * @param {{model?: string, bytes?: Uint8Array | null, name?: string, words?: boolean, tolerant?: boolean}} [o]
   */
  constructor({ model = ASSET.model, bytes = null, name = "", words = false, tolerant = false } = {}) {
    this.paths = { model, words: words ? ASSET.words : null };
    /** The model's name: the file's for one the reader opened, "" for the demo model. */
    this.name = bytes ? name : "";
    this.given = bytes;
    /** Whether the model's tokenizer needs the engine build with the subword tokenizers. */
    this.subword = false;
    /** What the model file's header says (model_file.js), once loaded; null when unreadable. @type {import("./model_file.js").ModelFile | null} */
    this.file = null;
    this.tolerant = tolerant;
    /** @type {Glue | null} */
    this.mod = null;
    /** @type {Lab | null} */
    this.lab = null;
    /** @type {Words | null} */
    this.words = null;
    /** @type {ModelInfo | null} */
    this.info = null; // the model's description (Lab.info()), once loaded
    /** @type {MatrixMaker | null} */
    this.frameMatrix = null; // the matrix maker of a frame (`run({frame: true})`)
    this.broken = false;
    /** @type {{model: Uint8Array | null, words: Uint8Array | null}} */
    this.bytes = { model: null, words: null };
    /** @type {{wasm: string | null, words: string | null, lab: string | null}} */
    this.errors = { wasm: null, words: null, lab: null };
    // What the page set, replayed after a panic.
    /** @type {EngineOptions} */
    this.options = {};
    /** @type {string | null} */
    this.source = null;
    /** @type {Map<string, Float32Array>} */
    this.edits = new Map(); // "stack/layer/head/q|k" -> Float32Array
    /** @type {Map<string, Float32Array>} */
    this.trainedBlocks = new Map(); // same keys: the trained values of every block ever edited
    /** @type {Map<string, TextRun>} */
    this.cache = new Map(); // translateText results
  }

  /** Fetch the assets, instantiate the module, build the Lab. Throws a readable Error unless tolerant. */
  async load() {
    // the engine's fetch and compile (once per page) go on while the model downloads
    warmUp();
    const modelBytes = this.given ? Promise.resolve(this.given) : cachedBytes(this.paths.model);
    const [model, words] = await Promise.allSettled([modelBytes, this.paths.words ? cachedBytes(this.paths.words) : Promise.resolve(null)]);
    if (model.status === "fulfilled") {
      this.bytes.model = model.value;
      // a file the reader opened is checked for a clear message (open_model.js); here, what
      // the card shows and which engine build it needs
      try {
        this.file = readModelFile(model.value);
        this.subword = this.file.subword;
      } catch (e) {
        if (this.given) throw e;
      }
    } else if (this.tolerant) this.errors.lab = reason(model.reason);
    else throw model.reason;
    if (words.status === "fulfilled") this.bytes.words = words.value;
    else this.errors.words = reason(words.reason);
    await this.instantiate();
  }

  async instantiate() {
    this.cache.clear();
    this.lab = this.words = null;
    try {
      this.mod = await freshInstance(this.subword);
    } catch (e) {
      this.mod = null;
      if (!this.tolerant) throw e;
      this.errors.wasm = reason(e);
      return;
    }
    if (this.bytes.words) {
      try {
        this.words = new this.mod.Words(this.bytes.words);
        this.errors.words = null;
      } catch (e) {
        this.errors.words = reason(e);
      }
    }
    if (this.bytes.model) {
      try {
        this.lab = new this.mod.Lab(this.bytes.model);
        this.frameMatrix = frameMatrixMaker(this, this.lab);
        this.info = this.lab.info();
        this.errors.lab = null;
      } catch (e) {
        if (!this.tolerant) throw e;
        this.errors.lab = reason(e);
      }
    }
    this.broken = false;
  }

  /**
   * The same model with other weights, on this instance (the training playground's refresh,
   * several times a second: a new instance each time would pile up module copies): a new Lab
   * from `bytes`, set up as the old one was (options, W_Q/W_K edits, sentence). A file that is
   * not a model throws, and the old Lab stays.
   * @param {Uint8Array} bytes
   */
  reweigh(bytes) {
    const lab = this.callModule((m) => new m.Lab(bytes));
    const file = readModelFile(bytes);
    this.lab?.free();
    this.lab = lab;
    this.bytes.model = bytes;
    this.file = file;
    this.frameMatrix = frameMatrixMaker(this, lab);
    this.info = lab.info();
    this.cache.clear();
    this.guarded(() => this.replay(lab));
  }

  /** Set `lab` up as the page had set the last one: options, W_Q/W_K edits, sentence. @param {Lab} lab */
  replay(lab) {
    lab.setOptions(this.options);
    for (const [k, values] of this.edits) {
      const [stack, layer, head, m] = k.split("/");
      lab.setBlock(stack, Number(layer), Number(head), m, values);
    }
    if (this.source !== null) lab.setSource(this.source);
  }

  /** After a panic: a new instance with the same options, edits and sentence. */
  async recover() {
    if (!this.broken) return;
    await this.instantiate();
    if (this.lab) this.replay(this.lab);
  }

  get ready() {
    return !!this.mod && !this.broken;
  }

  /**
   * The languages of the model's text, from its file's description fields `source_language`
   * and `target_language` (BCP 47 tags; train/attnscope_model.py writes them): "" where the
   * file does not say.
   * @returns {{source: string, target: string}}
   */
  get languages() {
    const about = this.file?.about ?? {};
    return { source: about.source_language ?? "", target: about.target_language ?? "" };
  }

  /** The wasm memory this engine's instance has grown to, in bytes. */
  get memoryBytes() {
    return this.mod ? wasmMemoryBytes(this.mod) : 0;
  }

  get hasLab() {
    return !!this.lab;
  }

  get hasWords() {
    return !!this.words;
  }

  /**
   * Run `fn(lab)`; a panic marks the instance broken (call `recover`). Other errors pass through.
   * @template T
   * @param {(lab: Lab) => T} fn
   * @returns {T}
   */
  call(fn) {
    if (this.broken || !this.lab) throw new EngineBroken();
    return this.guarded(() => fn(this.lab));
  }

  /** @template T @param {() => T} fn @returns {T} */
  guarded(fn) {
    try {
      return fn();
    } catch (e) {
      if (isPanic(e)) {
        this.broken = true;
        this.lab = this.words = null;
      }
      throw e;
    }
  }

  /**
   * Run `fn(module)` (the free functions: attend, kernelSmooth, sinusoidalTable).
   * @template T
   * @param {(mod: Glue) => T} fn
   * @returns {T}
   */
  callModule(fn) {
    if (!this.ready) throw new Error("engine not ready");
    return this.guarded(() => fn(this.mod));
  }

  // --- the translator, one sentence at a time (the lab, an embed) ------------------------------

  /** @param {string} text @returns {Source} */
  setSource(text) {
    const out = this.call((l) => l.setSource(text));
    this.source = text;
    return out;
  }

  /**
   * Change run options. What a change keeps is the engine's rule, written once (src/wasm.rs
   * `set_options`: a new head count drops the W_Q/W_K edits and the knock-outs); the copies kept
   * here to replay after a panic follow what the engine then holds.
   * @param {EngineOptions} patch
   */
  setOptions(patch) {
    const heads = this.options.heads ?? this.info?.nhead;
    this.call((l) => l.setOptions(patch));
    this.options = { ...this.options, ...patch, knockOut: this.call((l) => l.knockedOut()) };
    if ((this.options.heads ?? this.info?.nhead) !== heads) this.trainedBlocks.clear(); // blocks of another shape now
    if (this.call((l) => l.editCount()) === 0) this.edits.clear();
  }

  /** @returns {Translation} */
  translate() {
    return this.call((l) => l.translate());
  }

  /** Tokens and unknown words of `text` without changing the sentence (null on older builds). @param {string} text @returns {Source | null} */
  tokenize(text) {
    return this.call((l) => (typeof l.tokenize === "function" ? l.tokenize(text) : null));
  }

  /**
   * One forward pass (Lab.run). With `frame`, for a frame of a drag: each matrix of a recomputed
   * stage copies its values out of wasm memory when its `data` is first read, so a frame pays
   * only for what it draws. Read a frame's matrices before the next run: once a later run has
   * recomputed their stage, reading them throws (never an old number).
   * @param {{frame?: boolean}} [o]
   * @returns {RunOut}
   */
  run({ frame = false } = {}) {
    return this.call((l) => l.run(frame ? this.frameMatrix : undefined));
  }

  /** A masked-LM model's `k` best guesses for each mask token of the text (Lab.fill), from the current run. @param {number} k @returns {MaskGuess[]} */
  fill(k) {
    return this.call((l) => l.fill(k));
  }

  /** Whether the module has `runEncoder` (the encoder alone; older builds do not). */
  get canRunEncoder() {
    return !!this.lab && typeof this.lab.runEncoder === "function";
  }

  /**
   * The encoder alone (Lab.runEncoder); `frame` as for `run`. With `through` (a 0-based layer)
   * no later layer is recomputed: `staleFrom` names the first layer left as the last run had it
   * (it, the layers after it and the memory), null when every layer is current.
   * @param {{frame?: boolean, through?: number}} [o]
   * @returns {{heads: number, encoder: EncoderTrace, staleFrom: number | null}}
   */
  runEncoder({ frame = false, through } = {}) {
    return this.call((l) => l.runEncoder(frame ? this.frameMatrix : undefined, through));
  }

  /** A W_Q or W_K block of one head, (d_k, d_model). @param {StackName} stack @param {number} layer @param {number} head @param {"q" | "k"} m @returns {Matrix} */
  block(stack, layer, head, m) {
    return this.call((l) => l.block(stack, layer, head, m));
  }

  /** @param {StackName} stack @param {number} layer @param {number} head @param {"q" | "k"} m @param {Float32Array} values */
  setBlock(stack, layer, head, m, values) {
    const key = `${stack}/${layer}/${head}/${m}`;
    if (!this.trainedBlocks.has(key) && !this.edits.has(key)) {
      const trained = this.call((l) => l.block(stack, layer, head, m));
      this.trainedBlocks.set(key, Float32Array.from(trained.data));
    }
    this.call((l) => l.setBlock(stack, layer, head, m, values));
    this.edits.set(key, Float32Array.from(values));
  }

  /**
   * The trained values of a block (whether or not it is edited now), row-major.
   * @param {StackName} stack @param {number} layer @param {number} head @param {"q" | "k"} m
   * @returns {Float32Array}
   */
  trained(stack, layer, head, m) {
    const key = `${stack}/${layer}/${head}/${m}`;
    if (this.trainedBlocks.has(key)) return this.trainedBlocks.get(key);
    if (this.edits.has(key)) throw new Error(`the trained values of ${key} are unknown`);
    return this.block(stack, layer, head, m).data;
  }

  resetBlocks() {
    this.call((l) => l.resetBlocks());
    this.edits.clear();
  }

  /** @returns {number} */
  editCount() {
    return this.call((l) => l.editCount());
  }

  /** For each head, how much the translation's log-probability drops without it (analysis.rs). @returns {HeadImportance} */
  headImportance() {
    return this.call((l) => l.headImportance());
  }

  /** Per head of one attention: {value_norms, norms, normalized} (Kobayashi et al. 2020). @param {StackName} stack @param {number} layer @returns {ValueWeighted[]} */
  valueWeighted(stack, layer) {
    return this.call((l) => l.valueWeighted(stack, layer));
  }

  /** Attention rollout per stack and layer: {encoder, decoder_self, cross} (Abnar & Zuidema 2020). @returns {Rollout} */
  rollout() {
    return this.call((l) => l.rollout());
  }

  /**
   * Gradient × input of the current run (Shrikumar et al. 2016): how much each input token's
   * embedding moves the log-probability of each output row's most probable token, through the
   * whole model. One backward pass per output row: call when shown, and keep the answer.
   * @returns {Saliency}
   */
  saliency() {
    return this.call((l) => l.saliency());
  }

  /** Whether the page has edited this block. @param {StackName} stack @param {number} layer @param {number} head @param {"q" | "k"} m */
  hasEdit(stack, layer, head, m) {
    return this.edits.has(`${stack}/${layer}/${head}/${m}`);
  }

  // --- many figures on one instance (the lesson) -----------------------------------------------

  /** Options for a run, every field set (so figures never inherit each other's switches). @param {EngineOptions} [o] @returns {Required<EngineOptions>} */
  fullOptions(o = {}) {
    return {
      heads: o.heads ?? this.info.nhead,
      scale: o.scale ?? true,
      causalDecoder: o.causalDecoder ?? true,
      causalEncoder: o.causalEncoder ?? false,
      positional: o.positional ?? true,
      knockOut: o.knockOut ?? [], // every field set: a figure's knock-outs never reach the next one
      residual: o.residual ?? true,
      layerNorm: o.layerNorm ?? true,
    };
  }

  /**
   * Translate `text` with options `o`: {src, tr} where src = setSource's answer and tr =
   * translate()'s (text, tokens, decoder_tokens, steps, trace). With `runOpts`, the decoder
   * input of that translation is run once more under `{...o, ...runOpts}` and the result is
   * {src, tr, run}. Results are cached by sentence and options. Not for an engine that also
   * keeps W_Q/W_K edits: it sets the source and options each time.
   * @param {string} text
   * @param {EngineOptions} [o]
   * @param {EngineOptions | null} [runOpts]
   * @returns {TextRun}
   */
  translateText(text, o = {}, runOpts = null) {
    if (!this.lab) throw new Error("no translator");
    const opts = this.fullOptions(o);
    const key = JSON.stringify([text, opts, runOpts]);
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const out = this.call((lab) => {
      const src = lab.setSource(text);
      lab.setOptions(opts);
      const tr = lab.translate();
      let run = null;
      if (runOpts) {
        lab.setOptions(this.fullOptions({ ...opts, ...runOpts }));
        run = lab.run();
        lab.setOptions(opts);
      }
      return { src, tr, run };
    });
    this.cache.set(key, out);
    while (this.cache.size > 40) this.cache.delete(this.cache.keys().next().value);
    return out;
  }

  kernelSmooth(xs, ys, x0, width) {
    return this.callModule((m) => m.kernelSmooth(Float32Array.from(xs), Float32Array.from(ys), x0, width));
  }

  attend(x, n, d, wq, wk, dk, scale, causal) {
    return this.callModule((m) => m.attend(Float32Array.from(x), n, d, Float32Array.from(wq), Float32Array.from(wk), dk, scale, causal));
  }

  /** The gradient through attend()'s head, given the gradient of a loss with respect to its output
   * `dOut` (n, d), row-major: `{weights, scores, q, k, v}`, each that loss's gradient. */
  attendBackward(x, n, d, wq, wk, dk, scale, causal, dOut) {
    return this.callModule((m) =>
      m.attendBackward(Float32Array.from(x), n, d, Float32Array.from(wq), Float32Array.from(wk), dk, scale, causal, Float32Array.from(dOut)),
    );
  }

  /** One training step of a fresh model for `setup` (see the wasm Trainer's fields): its report,
   * `{step, loss, accuracy, gradNorms: [{layer, norm}], saturated}`, measured by the engine. */
  firstStep(setup) {
    return this.callModule((m) => {
      const trainer = new m.Trainer(setup);
      try {
        return trainer.train(1)[0];
      } finally {
        trainer.free();
      }
    });
  }

  sinusoidalTable(n, d) {
    return this.callModule((m) => m.sinusoidalTable(n, d));
  }

  project(text) {
    if (!this.words) throw new Error("no word vectors");
    return this.guarded(() => this.words.project(text));
  }

  /** How many numbers each word vector has (Words.dim), or null without the word vectors. @returns {number | null} */
  get wordDim() {
    return this.words ? this.guarded(() => this.words.dim()) : null;
  }
}
