// The lesson's access to the Rust engine (pkg/attnscope.js, compiled to WebAssembly).
//
// Three things are loaded independently so that one missing piece never blanks the page:
// the module itself (needed by every panel), the GloVe vectors (panels 2-5) and the trained
// translator (panels 5-9). A panic inside wasm leaves that instance unusable; `call` notices
// (WebAssembly.RuntimeError), and `recover()` starts a fresh instance from the same bytes.

import { ASSET, assetBytes, freshInstance, isPanic, wasmModule } from "../runtime.js";

function reason(e) {
  return e && e.message ? e.message : String(e);
}

export class Engine {
  constructor() {
    this.mod = null;
    this.words = null;
    this.lab = null;
    this.info = null;
    this.wordsBytes = null;
    this.labBytes = null;
    this.errors = { wasm: null, words: null, lab: null };
    this.broken = false;
    this.cache = new Map();
  }

  async load() {
    const [wasm, words, lab] = await Promise.allSettled([wasmModule(), assetBytes(ASSET.words), assetBytes(ASSET.model)]);
    if (wasm.status === "rejected") {
      this.errors.wasm = reason(wasm.reason);
      return;
    }
    if (words.status === "fulfilled") this.wordsBytes = words.value;
    else this.errors.words = reason(words.reason);
    if (lab.status === "fulfilled") this.labBytes = lab.value;
    else this.errors.lab = reason(lab.reason);
    await this.instantiate();
  }

  async instantiate() {
    try {
      this.mod = await freshInstance();
    } catch (e) {
      this.errors.wasm = reason(e);
      this.mod = null;
      return;
    }
    this.cache.clear();
    if (this.wordsBytes) {
      try {
        this.words = new this.mod.Words(this.wordsBytes);
        this.errors.words = null;
      } catch (e) {
        this.errors.words = reason(e);
      }
    }
    if (this.labBytes) {
      try {
        this.lab = new this.mod.Lab(this.labBytes);
        this.info = this.lab.info();
        this.errors.lab = null;
      } catch (e) {
        this.errors.lab = reason(e);
        this.lab = null;
      }
    }
    this.broken = false;
  }

  get ready() {
    return !!this.mod && !this.broken;
  }

  /** Run `fn(mod)`; a panic marks the instance broken (call `recover`). Other errors pass through. */
  call(fn) {
    if (!this.ready) throw new Error("engine not ready");
    try {
      return fn(this.mod);
    } catch (e) {
      if (isPanic(e)) {
        this.broken = true;
        this.words = null;
        this.lab = null;
      }
      throw e;
    }
  }

  async recover() {
    if (this.broken) await this.instantiate();
  }

  // --- the exports ---------------------------------------------------------------------------

  kernelSmooth(xs, ys, x0, width) {
    return this.call((m) => m.kernelSmooth(Float32Array.from(xs), Float32Array.from(ys), x0, width));
  }

  attend(x, n, d, wq, wk, dk, scale, causal) {
    return this.call((m) => m.attend(Float32Array.from(x), n, d, Float32Array.from(wq), Float32Array.from(wk), dk, scale, causal));
  }

  sinusoidalTable(n, d) {
    return this.call((m) => m.sinusoidalTable(n, d));
  }

  project(text) {
    if (!this.words) throw new Error("no word vectors");
    return this.call(() => this.words.project(text));
  }

  get hasWords() {
    return !!this.words;
  }

  get hasLab() {
    return !!this.lab;
  }

  /** Options for a run, every field set (so panels never inherit each other's switches). */
  fullOptions(o = {}) {
    return {
      heads: o.heads ?? this.info.nhead,
      scale: o.scale ?? true,
      causalDecoder: o.causalDecoder ?? true,
      causalEncoder: o.causalEncoder ?? false,
      positional: o.positional ?? true,
    };
  }

  /**
   * Translate `text` with options `o`: {src, tr} where src = setSource's answer and tr =
   * translate()'s (text, tokens, decoder_tokens, steps, trace). With `runOpts`, the decoder
   * input of that translation is run once more under `{...o, ...runOpts}` and the result is
   * {src, tr, run}. Results are cached by sentence and options.
   */
  translate(text, o = {}, runOpts = null) {
    if (!this.lab) throw new Error("no translator");
    const opts = this.fullOptions(o);
    const key = JSON.stringify([text, opts, runOpts]);
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const out = this.call(() => {
      const src = this.lab.setSource(text);
      this.lab.setOptions(opts);
      const tr = this.lab.translate();
      let run = null;
      if (runOpts) {
        this.lab.setOptions(this.fullOptions({ ...opts, ...runOpts }));
        run = this.lab.run();
        this.lab.setOptions(opts);
      }
      return { src, tr, run };
    });
    this.cache.set(key, out);
    while (this.cache.size > 40) this.cache.delete(this.cache.keys().next().value);
    return out;
  }
}
