// The wasm engine behind one small object that survives a panic.
//
// The page talks to `Lab` (src/wasm.rs) only through this wrapper. Every call may throw an
// Error with a readable message (the caller shows it); a panic inside wasm surfaces as a
// `WebAssembly.RuntimeError` ("unreachable") and leaves that instance unusable, so the wrapper
// marks itself broken, and `recover()` instantiates a fresh copy of the module and replays what
// the page had set: options, Q/K edits and the sentence.

import { ASSET, assetBytes, freshInstance, isPanic } from "./runtime.js";

export class EngineBroken extends Error {
  constructor() {
    super("the engine stopped after an internal error; it restarts on your next change");
    this.name = "EngineBroken";
  }
}

// One fetch of a model file per page, however many engines (e.g. several embedded panels) use it.
const modelBytes = new Map();
function cachedBytes(path) {
  if (!modelBytes.has(path)) {
    const p = assetBytes(path);
    p.catch(() => modelBytes.delete(path)); // let a later load retry
    modelBytes.set(path, p);
  }
  return modelBytes.get(path);
}

export class Engine {
  constructor(modelPath = ASSET.model) {
    this.modelPath = modelPath;
    this.lab = null;
    this.broken = false;
    this.bytes = null; // model file
    // What the page set, replayed after a panic.
    this.options = {};
    this.source = null;
    this.edits = new Map(); // "stack/layer/head/q|k" -> Float32Array
    this.trainedBlocks = new Map(); // same keys: the trained values of every block ever edited
  }

  /** Fetch the model, instantiate the module, build the Lab. Throws a readable Error. */
  async load() {
    this.bytes = await cachedBytes(this.modelPath);
    await this.instantiate();
  }

  async instantiate() {
    const mod = await freshInstance();
    this.lab = new mod.Lab(this.bytes);
    this.broken = false;
  }

  /** After a panic: a new instance with the same options, edits and sentence. */
  async recover() {
    if (!this.broken) return;
    await this.instantiate();
    this.lab.setOptions(this.options);
    for (const [k, values] of this.edits) {
      const [stack, layer, head, m] = k.split("/");
      this.lab.setBlock(stack, Number(layer), Number(head), m, values);
    }
    if (this.source !== null) this.lab.setSource(this.source);
  }

  call(fn) {
    if (this.broken || !this.lab) throw new EngineBroken();
    try {
      return fn(this.lab);
    } catch (e) {
      if (isPanic(e)) {
        this.broken = true;
        this.lab = null;
      }
      throw e;
    }
  }

  info() {
    return this.call((l) => l.info());
  }

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

  run() {
    return this.call((l) => l.run());
  }

  /** Whether the module has `runEncoder` (the encoder alone; older builds do not). */
  get canRunEncoder() {
    return !!this.lab && typeof this.lab.runEncoder === "function";
  }

  runEncoder() {
    return this.call((l) => l.runEncoder());
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

  /** Whether the page has edited this block. */
  hasEdit(stack, layer, head, m) {
    return this.edits.has(`${stack}/${layer}/${head}/${m}`);
  }
}
