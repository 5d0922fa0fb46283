// The wasm engine behind one small object that survives a panic: the only wrapper, for the lab,
// the embeds and the lesson.
//
//   new Engine()                                     // the lab and each embed: the translator
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

import { ASSET, assetBytes, freshInstance, isPanic, warmUp, wasmMemoryBytes } from "./runtime.js";

export class EngineBroken extends Error {
  constructor() {
    super("the engine stopped after an internal error; it restarts on your next change");
    this.name = "EngineBroken";
  }
}

// One fetch of each asset per page, however many engines (e.g. several embedded panels) use it.
const assetCache = new Map();
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
 */
export function frameMatrixMaker(engine, lab) {
  class FrameMatrix {
    constructor(rows, cols, key) {
      this.rows = rows;
      this.cols = cols;
      this.key = key;
    }

    get data() {
      if (engine.lab !== lab) throw new Error("this matrix belongs to an engine that has since restarted");
      const data = engine.guarded(() => lab.matrix(this.key));
      Object.defineProperty(this, "data", { value: data, enumerable: true });
      return data;
    }
  }
  return (rows, cols, key) => new FrameMatrix(rows, cols, key);
}

function reason(e) {
  return e && e.message ? e.message : String(e);
}

export class Engine {
  constructor({ model = ASSET.model, words = false, tolerant = false } = {}) {
    this.paths = { model, words: words ? ASSET.words : null };
    this.tolerant = tolerant;
    this.mod = null;
    this.lab = null;
    this.words = null;
    this.info = null; // the model's description (Lab.info()), once loaded
    this.frameMatrix = null; // the matrix maker of a frame (`run({frame: true})`)
    this.broken = false;
    this.bytes = { model: null, words: null };
    this.errors = { wasm: null, words: null, lab: null };
    // What the page set, replayed after a panic.
    this.options = {};
    this.source = null;
    this.edits = new Map(); // "stack/layer/head/q|k" -> Float32Array
    this.trainedBlocks = new Map(); // same keys: the trained values of every block ever edited
    this.cache = new Map(); // translateText results
  }

  /** Fetch the assets, instantiate the module, build the Lab. Throws a readable Error unless tolerant. */
  async load() {
    // the engine's fetch and compile (once per page) go on while the model downloads
    warmUp();
    const [model, words] = await Promise.allSettled([cachedBytes(this.paths.model), this.paths.words ? cachedBytes(this.paths.words) : Promise.resolve(null)]);
    if (model.status === "fulfilled") this.bytes.model = model.value;
    else if (this.tolerant) this.errors.lab = reason(model.reason);
    else throw model.reason;
    if (words.status === "fulfilled") this.bytes.words = words.value;
    else this.errors.words = reason(words.reason);
    await this.instantiate();
  }

  async instantiate() {
    this.cache.clear();
    this.lab = this.words = null;
    try {
      this.mod = await freshInstance();
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

  /** After a panic: a new instance with the same options, edits and sentence. */
  async recover() {
    if (!this.broken) return;
    await this.instantiate();
    if (!this.lab) return;
    this.lab.setOptions(this.options);
    for (const [k, values] of this.edits) {
      const [stack, layer, head, m] = k.split("/");
      this.lab.setBlock(stack, Number(layer), Number(head), m, values);
    }
    if (this.source !== null) this.lab.setSource(this.source);
  }

  get ready() {
    return !!this.mod && !this.broken;
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

  /** Run `fn(lab)`; a panic marks the instance broken (call `recover`). Other errors pass through. */
  call(fn) {
    if (this.broken || !this.lab) throw new EngineBroken();
    return this.guarded(() => fn(this.lab));
  }

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

  /** Run `fn(module)` (the free functions: attend, kernelSmooth, sinusoidalTable). */
  callModule(fn) {
    if (!this.ready) throw new Error("engine not ready");
    return this.guarded(() => fn(this.mod));
  }

  // --- the translator, one sentence at a time (the lab, an embed) ------------------------------

  setSource(text) {
    const out = this.call((l) => l.setSource(text));
    this.source = text;
    return out;
  }

  setOptions(patch) {
    this.call((l) => l.setOptions(patch));
    if (patch.heads !== undefined && patch.heads !== this.options.heads) {
      this.edits.clear();
      this.trainedBlocks.clear(); // the blocks have another shape now
    }
    this.options = { ...this.options, ...patch };
  }

  translate() {
    return this.call((l) => l.translate());
  }

  /** Tokens and unknown words of `text` without changing the sentence (null on older builds). */
  tokenize(text) {
    return this.call((l) => (typeof l.tokenize === "function" ? l.tokenize(text) : null));
  }

  /**
   * One forward pass (Lab.run). With `frame`, for a frame of a drag: each matrix of a recomputed
   * stage copies its values out of wasm memory when its `data` is first read, so a frame pays
   * only for what it draws. Read a frame's matrices before the next run: once a later run has
   * recomputed their stage, reading them throws (never an old number).
   */
  run({ frame = false } = {}) {
    return this.call((l) => l.run(frame ? this.frameMatrix : undefined));
  }

  /** Whether the module has `runEncoder` (the encoder alone; older builds do not). */
  get canRunEncoder() {
    return !!this.lab && typeof this.lab.runEncoder === "function";
  }

  /** The encoder alone (Lab.runEncoder); `frame` as for `run`. */
  runEncoder({ frame = false } = {}) {
    return this.call((l) => l.runEncoder(frame ? this.frameMatrix : undefined));
  }

  block(stack, layer, head, m) {
    return this.call((l) => l.block(stack, layer, head, m));
  }

  setBlock(stack, layer, head, m, values) {
    const key = `${stack}/${layer}/${head}/${m}`;
    if (!this.trainedBlocks.has(key) && !this.edits.has(key)) {
      const trained = this.call((l) => l.block(stack, layer, head, m));
      this.trainedBlocks.set(key, Float32Array.from(trained.data));
    }
    this.call((l) => l.setBlock(stack, layer, head, m, values));
    this.edits.set(key, Float32Array.from(values));
  }

  /** The trained values of a block (whether or not it is edited now), row-major. */
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

  editCount() {
    return this.call((l) => l.editCount());
  }

  /** For each head, how much the translation's log-probability drops without it (analysis.rs). */
  headImportance() {
    return this.call((l) => l.headImportance());
  }

  /** Per head of one attention: {value_norms, norms, normalized} (Kobayashi et al. 2020). */
  valueWeighted(stack, layer) {
    return this.call((l) => l.valueWeighted(stack, layer));
  }

  /** Attention rollout per stack and layer: {encoder, decoder_self, cross} (Abnar & Zuidema 2020). */
  rollout() {
    return this.call((l) => l.rollout());
  }

  /** Whether the page has edited this block. */
  hasEdit(stack, layer, head, m) {
    return this.edits.has(`${stack}/${layer}/${head}/${m}`);
  }

  // --- many figures on one instance (the lesson) -----------------------------------------------

  /** Options for a run, every field set (so figures never inherit each other's switches). */
  fullOptions(o = {}) {
    return {
      heads: o.heads ?? this.info.nhead,
      scale: o.scale ?? true,
      causalDecoder: o.causalDecoder ?? true,
      causalEncoder: o.causalEncoder ?? false,
      positional: o.positional ?? true,
      knockOut: o.knockOut ?? [], // every field set: a figure's knock-outs never reach the next one
    };
  }

  /**
   * Translate `text` with options `o`: {src, tr} where src = setSource's answer and tr =
   * translate()'s (text, tokens, decoder_tokens, steps, trace). With `runOpts`, the decoder
   * input of that translation is run once more under `{...o, ...runOpts}` and the result is
   * {src, tr, run}. Results are cached by sentence and options. Not for an engine that also
   * keeps W_Q/W_K edits: it sets the source and options each time.
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

  sinusoidalTable(n, d) {
    return this.callModule((m) => m.sinusoidalTable(n, d));
  }

  project(text) {
    if (!this.words) throw new Error("no word vectors");
    return this.guarded(() => this.words.project(text));
  }
}
