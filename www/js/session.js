// One page state over one engine, and the panels that show it: the only orchestrator.
//
//   text ──► tokens ──► engine run ──► trace ──► panels (render)
//     ▲                                              │
//     └──────── state ◄── events (select, edit, step, option, sentence) ◄──┘
//
// A Session holds the UI state (state.js), one engine (engine.js: a wasm `Lab` that survives a
// panic), the current run `cur = {src, tr, trace, decoderTokens, decoderStale?}` and, when a
// mounted panel needs it, the word-order pair. Panels (panels/*.js) are mounted into any
// container; they read the run and the state, and raise events by calling the session's
// actions (`select`, `setOption`, `edit`, ...), never each other. After every action the
// session re-renders the panels that use what changed, and reports the new state (`onState`:
// the URL of the lab or of an embed, the event of <attnscope-panel>).
//
// The lab (main.js) mounts many panels on one session; an embed (embed.js, attnscope-panel.js
// through panel.js) mounts one; several embeds on one page each have their own session (their
// own sentence, options and W_Q/W_K edits) and share the compiled module and the model bytes.
//
// A W_Q/W_K drag is queued (`edit`) and run once per animation frame: setBlock, one run (the
// encoder alone for an encoder head: nothing live needs the decoder), then only the panels that
// declare `live` and are on screen repaint; a live panel scrolled out of view is marked stale
// and repaints when it comes back into view. Letting go re-translates, which brings everything
// else up to date. The first run of a page renders the panels on screen first and the others
// in the tasks right after (`render`'s `defer`), so the first translation shows sooner.

import * as S from "./state.js";
import * as C from "./core.js";
import { Engine, EngineBroken } from "./engine.js";
import { ASSET } from "./runtime.js";
import { translate, detectLang } from "./i18n.js";
import { applyEdits, encodeEdits } from "./edits.js";
import { watchVisibility, whenKoreanFont } from "./dom.js";

let uidCounter = 0;

const OPTION_KEYS = ["causalDecoder", "causalEncoder", "scale", "positional", "heads", "knockOut"];

/** @typedef {import("./state.js").State} State */
/** @typedef {import("./core.js").Run} Run */

/**
 * What a panel's `mount` returns: `render(live)` repaints it from the session (`live`: a drag
 * frame), `tables(on)` shows its tables instead of its maps. A panel may add more (the lab reads
 * them), hence the type parameter of PanelDef.
 * @typedef {object} PanelView
 * @property {(live?: boolean) => void} render
 * @property {(on: boolean) => void} [tables]
 */

/**
 * @template {PanelView} [V=PanelView]
 * @typedef {object} PanelDef  one view (panels/*.js)
 * @property {string} name
 * @property {(keyof State)[]} uses     state keys whose change re-renders it (a new run always does)
 * @property {boolean} [live]    repainted on every frame of a W_Q/W_K drag
 * @property {string[]} [needs]  what the model must have for it to show (core.supports: "sites",
 *   a stack such as "decoder_cross", an output such as "translation"; "a|b" for either); a model
 *   without it hides the panel (its container, or `opts.section` when given) instead of breaking it
 * @property {(state: State, opts: any) => boolean} [needsPair]  wants the word-order pair
 * @property {(container: HTMLElement, session: Session, opts?: any) => V} mount
 */

/**
 * A mounted panel; `stale`: skipped while off screen, by a drag frame ("live") or a deferred
 * render ("full").
 * `on`: the model has what the panel needs (otherwise it is hidden and never rendered).
 * @typedef {{def: PanelDef, view: PanelView, opts: any, container: HTMLElement, on: boolean, visible: () => boolean, stale: boolean | "live" | "full"}} Mounted
 */

/**
 * Frame timings of W_Q/W_K drags (?bench, tests/e2e/bench-drag.mjs).
 * `caughtUp`: for each time the encoder layers a drag left old all became current again, the ms
 * since the last input (`lastInput`, performance.now()).
 * @typedef {{parts: Record<string, number>[], pending: {handler: number, stamp: number}[], samples: object[], caughtUp: number[], lastInput?: number}} Bench
 */

export class Session {
  /**
   * @param {object} o
   * @param {State} o.state            the starting state (state.js)
   * @param {string} [o.lang]           the panels' language ("" or missing = the browser's)
   * @param {(state: State) => void} [o.onState]      after every change of state
   * @param {(session: Session) => void} [o.onRun]      after every new run (translate), for page chrome
   * @param {(text: string|null) => void} [o.onError]   an error message, or null to clear it
   * @param {(text: string) => void} [o.onStatus]      loading / restarting, "" when done
   * @param {(text: string|null) => void} [o.onInput]  a note about the sentence (empty box)
   * @param {(n: number) => void} [o.onRejectedEdits]  W_Q/W_K blocks of the state that did not fit
   * @param {Bench} [o.bench]          frame timings are pushed here (?bench, bench-drag.mjs)
   */
  constructor(o) {
    this.state = o.state;
    this.lang = o.lang || o.state.lang || detectLang(globalThis.navigator?.language);
    /** @type {import("./core.js").Translate} */
    this.t = (key, params) => translate(this.lang, key, params);
    this.hooks = o;
    this.uid = `s${(uidCounter += 1)}`; // a prefix for element ids, unique on the page
    this.bench = o.bench || null;
    /** Engine work (ms) a drag frame spends on layers after the dragged one (catchUp); the rest of a 16.7 ms frame is for painting. */
    this.catchUpBudgetMs = 8;
    /** How long the pointer rests before the layers after a dragged one catch up (ms). */
    this.catchUpDelayMs = 100;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.catchUpTimer = undefined;
    /** @type {Engine | null} */
    this.engine = null;
    /** @type {import("./engine.js").ModelInfo | null} */
    this.info = null;
    /** @type {Run | null} */
    this.cur = null;
    /** @type {import("./core.js").PairEntry[] | null} */
    this.pair = null;
    /** @type {string | null} */
    this.lastGood = null; // the last sentence the engine accepted (the source of `cur`)
    this.rejectedEdits = 0;
    /** @type {Mounted[]} */
    this.mounted = []; // [{def, view, opts}]
    /** @type {Promise<void>} */
    this.rendered = Promise.resolve(); // settles when a deferred render (render's `defer`) is done
    /** @type {Map<"q" | "k", Float32Array>} */
    this.pending = new Map(); // W_Q/W_K blocks queued for the next frame
    this.raf = 0;
    /** @type {ReturnType<typeof setTimeout> | 0} */
    this.endTimer = 0;
    /** @type {Map<string, number>} */
    this.qkRange = new Map(); // each head's colour scale (core.qkData)
  }

  // -------------------------------------------------------------------------------------------
  // Panels

  /**
   * Mount a panel; it renders at once when there is a run. Returns its view.
   * @template {PanelView} V
   * @param {PanelDef<V>} def
   * @param {HTMLElement} container
   * @param {object} [opts]  the panel's options
   * @returns {V}
   */
  mount(def, container, opts = {}) {
    const view = def.mount(container, this, opts);
    // stale: skipped while off screen, by a drag frame ("live") or a deferred render ("full");
    // it repaints when it comes into view
    /** @type {Mounted} */
    const entry = { def, view, opts, container, on: true, visible: () => true, stale: false };
    this.mounted.push(entry);
    this.applyNeeds(entry);
    if (typeof IntersectionObserver === "function" && container instanceof Element) {
      const catchUp = () => entry.stale && entry.on && this.cur && this.mounted.includes(entry) && this.renderEntry(entry, entry.stale === "live");
      entry.visible = watchVisibility(container, catchUp);
    }
    if (this.cur && entry.on) this.renderEntry(entry, false);
    return view;
  }

  /**
   * Show a panel only when the model has what it needs (PanelDef.needs): a GPT has no
   * translation or cross-attention panel. Before a model is known every panel is on.
   * @param {Mounted} e
   */
  applyNeeds(e) {
    e.on = !this.info || C.supports(this.info, e.def.needs);
    const box = e.opts.section || (e.def.needs ? e.container : null);
    if (box && "hidden" in box) box.hidden = !e.on;
  }

  /** Remove every panel (their DOM belongs to the caller's containers). */
  unmountAll() {
    this.mounted = [];
  }

  /** @param {Mounted} e @param {boolean} live */
  renderEntry(e, live) {
    e.stale = false;
    try {
      e.view.render(live);
    } catch (err) {
      this.error(err);
    }
  }

  /**
   * Re-render the panels that use one of `keys` (all of them when `keys` is null). With `defer`,
   * the panels out of view render in the tasks that follow, one per task, so that what is on
   * screen paints first (the page's first translation); `this.rendered` resolves when all have.
   * @param {string[] | null} [keys]
   * @param {{defer?: boolean}} [o]
   */
  render(keys = null, { defer = false } = {}) {
    if (!this.cur) return;
    const later = [];
    for (const e of this.mounted) {
      if (!e.on || (keys !== null && !e.def.uses.some((k) => keys.includes(k)))) continue;
      if (defer && !e.visible()) {
        e.stale = "full";
        later.push(e);
      } else this.renderEntry(e, false);
    }
    if (!later.length) return;
    this.rendered = new Promise((/** @type {(v?: void) => void} */ done) => {
      const next = () => {
        const e = later.shift();
        if (!e) return done();
        if (e.stale && e.on && this.cur && this.mounted.includes(e)) this.renderEntry(e, false);
        setTimeout(next, 0);
      };
      setTimeout(next, 0);
    });
  }

  /** Show or hide every panel's tables. */
  showTables() {
    for (const e of this.mounted) if (e.on) e.view.tables?.(this.state.tables);
  }

  needsPair() {
    return this.mounted.some((e) => e.on && e.def.needsPair?.(this.state, e.opts));
  }

  // -------------------------------------------------------------------------------------------
  // Messages

  /** @param {any} e  an Error, a message, or anything thrown @returns {string} */
  errorText(e) {
    const t = this.t;
    if (typeof e === "string") return e;
    if (e instanceof EngineBroken) return t("error.broken");
    if (e instanceof WebAssembly.RuntimeError) return t("error.panic", { message: e.message });
    return t("error.engine", { message: e?.message || String(e) });
  }

  /** @param {any} e */
  error(e) {
    this.hooks.onError?.(this.errorText(e));
  }

  /** Run `fn`; on an error show it and return `undefined`. @template T @param {() => T} fn @returns {T | undefined} */
  guard(fn) {
    try {
      return fn();
    } catch (e) {
      this.error(e);
      return undefined;
    }
  }

  /** @param {string} lang */
  setLang(lang) {
    this.lang = lang || detectLang(globalThis.navigator?.language);
  }

  // -------------------------------------------------------------------------------------------
  // State

  /** Change the state (no engine call); clamps to the model and reports it. @param {Partial<State>} patch */
  setState(patch) {
    this.state = S.update(this.state, patch);
    if (this.info) this.state = S.clampToModel(this.state, this.info);
    this.hooks.onState?.(this.state);
  }

  heads() {
    return C.headsOf(this.cur, this.state, this.info);
  }

  // -------------------------------------------------------------------------------------------
  // Engine

  /** Load the model, apply the state's options and edits, translate. Resolves when shown. */
  async load() {
    const t = this.t;
    this.hooks.onStatus?.(t("status.loading"));
    const engine = new Engine();
    try {
      await engine.load();
    } catch (e) {
      this.hooks.onStatus?.("");
      this.hooks.onError?.(t("error.load", { url: ASSET.model, message: e.message }));
      return false;
    }
    this.hooks.onStatus?.("");
    return this.start(engine);
  }

  /**
   * Show another model: a file the reader opened (`bytes`, named `name`), or the demo model
   * again (no bytes). The engine is built first; when that fails the current model stays on
   * screen and the error is thrown (engine.js's message: a tensor of the wrong shape, a
   * tokenizer this build lacks). The W_Q/W_K edits, knock-outs, head count and selection belong
   * to the old model and go; the sentence and the switches stay.
   * @param {Uint8Array | null} bytes @param {string} [name]
   */
  async open(bytes, name = "") {
    const engine = bytes ? new Engine({ bytes, name }) : new Engine();
    await engine.load();
    this.cur = null;
    this.pair = null;
    this.lastGood = null;
    this.qkRange.clear();
    this.state = S.update(this.state, { edits: "", knockOut: "", heads: null, layer: 0, head: 0, query: null, step: 0, stack: "encoder" });
    return this.start(engine);
  }

  /**
   * The model shown, with new weights of the same shape (the training playground, as it
   * learns): the selection, sentence, options and edits stay; everything re-renders.
   * @param {Uint8Array} bytes
   */
  async reweigh(bytes) {
    if (!(await this.ensureEngine())) return false;
    if (!this.guard(() => (this.engine.reweigh(bytes), true))) return false;
    this.info = this.engine.info;
    await this.retranslate({ keepStep: true });
    return !!this.cur;
  }

  /** The name of the model shown: the opened file's, "" for the demo model. */
  get modelName() {
    return this.engine?.name ?? "";
  }

  /** Make `engine` the session's, show what its model has, set it up from the state and run it. @param {Engine} engine */
  async start(engine) {
    this.engine = engine;
    this.info = engine.info;
    this.state = S.update(S.clampToModel(this.state, this.info), { model: engine.name });
    for (const e of this.mounted) this.applyNeeds(e);
    const conf = this.guard(() => C.configure(engine, this.state, this.info, applyEdits));
    if (conf) {
      this.state = conf.state;
      this.noteEdits(conf.edits);
    }
    await this.retranslate({ keepStep: true });
    if (!this.cur) {
      // the sentence given was not usable: show the seed sentence rather than nothing, and keep
      // what was typed in the state (the box still shows it)
      const typed = this.state.sentence;
      this.state = S.update(this.state, { sentence: engine.name ? C.sampleText(this.info, engine.file) : S.SEED_SENTENCE });
      await this.retranslate({ keepStep: true });
      this.state = S.update(this.state, { sentence: typed });
    }
    // the maps' Korean labels are drawn on canvas: again once the page's Korean font is in
    whenKoreanFont(() => this.render(null, { defer: true }));
    return !!this.cur;
  }

  /** @param {{rejected: number}} edits */
  noteEdits(edits) {
    this.rejectedEdits = edits.rejected;
    this.hooks.onRejectedEdits?.(edits.rejected);
  }

  /** Before acting on input: a panicked engine is rebuilt (and its settings replayed). */
  async ensureEngine() {
    if (!this.engine) return false;
    if (!this.engine.broken) return true;
    this.hooks.onStatus?.(this.t("status.restart"));
    try {
      await this.engine.recover();
      this.hooks.onStatus?.("");
      return true;
    } catch (e) {
      this.hooks.onStatus?.("");
      this.error(e);
      return false;
    }
  }

  /** Tokens and unknown words of `text`, or null (no engine yet, or it refuses). @param {string} text */
  tokenize(text) {
    if (!this.engine || this.engine.broken || !this.info) return null;
    try {
      return this.engine.tokenize(text);
    } catch {
      return null; // the translation reports the problem
    }
  }

  /** Tokenise, translate and render everything (the word-order pair too when a panel needs it). @param {{keepStep?: boolean}} [o] */
  async retranslate({ keepStep = false } = {}) {
    if (!(await this.ensureEngine())) return;
    const text = this.state.sentence;
    if (!text.trim()) {
      this.hooks.onInput?.(this.t(this.cur ? "input.emptyKeep" : "input.empty"));
      return;
    }
    this.hooks.onInput?.(null);
    const first = !this.cur; // the page's first run: what is on screen renders first
    try {
      const out = C.translateRun(this.engine, text, { withPair: this.needsPair(), lastGood: this.lastGood, cur: this.cur });
      if (out.pair) this.pair = out.pair;
      this.lastGood = text;
      this.cur = out.cur;
      this.hooks.onError?.(null);
    } catch (e) {
      this.error(e);
      if (e.pair) this.pair = e.pair;
      if (e.cur) this.cur = e.cur;
      // a panic: the engine restarts on the next input; the panels keep the last results
      if (this.engine.broken || !this.cur) return;
    }
    if (!keepStep) this.state = S.update(this.state, { step: 0 });
    // the W_Q/W_K edits in force go into the state (and the URL) too
    this.state = S.update(S.clampToModel(this.state, this.info), { edits: encodeEdits(this.engine, this.info) });
    this.hooks.onState?.(this.state);
    this.render(null, { defer: first });
    this.showTables();
    this.hooks.onRun?.(this);
  }

  /** After encoder-only frames: run the whole model once so that the decoder views are current. */
  syncDecoder() {
    if (!this.guard(() => (C.syncDecoder(this.engine, this.cur), true)) && this.cur) this.cur.decoderStale = false;
  }

  // -------------------------------------------------------------------------------------------
  // Events from the panels and the page's controls

  /** A selection (stack, layer, head, query, step, show): no new run. @param {Partial<State>} patch */
  select(patch) {
    if (!this.cur) return;
    this.syncDecoder();
    const keys = Object.keys(patch);
    if (patch.stack !== undefined && patch.stack !== this.state.stack && patch.query === undefined) patch = { ...patch, query: null };
    this.setState(patch);
    this.render(keys.includes("stack") ? null : keys);
  }

  /** A switch of the engine (mask, scale, positional encoding, heads): run again. @param {Partial<State>} patch */
  async setOption(patch) {
    if (!(await this.ensureEngine())) return false;
    const ok = this.guard(() => (this.engine.setOptions(C.engineOptions(patch, this.info)), true));
    if (!ok) {
      this.render(Object.keys(patch)); // the controls show the state again
      return false;
    }
    // the knock-outs the engine holds now (another head count drops them: the engine's rule)
    this.setState({ ...patch, knockOut: [...this.engine.options.knockOut].sort().join(",") });
    await this.retranslate({ keepStep: true });
    return true;
  }

  /** Switch one head off or back on ("e1h2"), or every head back on (null). @param {string | null} name */
  async toggleHead(name) {
    const now = new Set(this.state.knockOut ? this.state.knockOut.split(",") : []);
    if (name === null) now.clear();
    else if (now.has(name)) now.delete(name);
    else now.add(name);
    return this.setOption({ knockOut: [...now].sort().join(",") });
  }

  /** A new sentence: translate it now. @param {string} text */
  async setSentence(text) {
    this.setState({ sentence: text, query: null });
    await this.retranslate();
  }

  /** Tables instead of maps (or back). @param {boolean} on */
  setTables(on) {
    this.setState({ tables: on });
    this.showTables();
  }

  /** The word-order pair on or off (the lab's section 6). @param {boolean} on */
  async setPair(on) {
    this.setState({ pair: on });
    await this.retranslate({ keepStep: true });
  }

  /**
   * A W_Q/W_K block of the selected head changed (phase "end": the drag is over).
   * @param {"q" | "k"} matrix @param {Float32Array} values @param {string} [phase]
   */
  edit(matrix, values, phase) {
    if (!this.cur) return;
    this.pending.set(matrix, values);
    if (!this.raf) this.raf = requestAnimationFrame(() => this.frame());
    if (phase === "end") {
      clearTimeout(this.endTimer);
      this.endTimer = setTimeout(() => this.retranslate({ keepStep: true }), 400);
    }
  }

  frame() {
    this.raf = 0;
    const t0 = performance.now();
    if (!this.engine || this.engine.broken) {
      this.pending.clear();
      this.ensureEngine().then((ok) => ok && this.retranslate({ keepStep: true }));
      return;
    }
    // an encoder edit runs the encoder alone, through the dragged layer; the later layers catch
    // up while this frame has time and in the frames after (catchUp), the decoder before
    // anything shows it (syncDecoder) and when the drag ends (retranslate)
    const cur = this.cur;
    const input = this.pending.size > 0;
    if (!cur || (!input && cur.encoderStaleFrom == null)) return; // a catch-up frame after a new run
    const ok = this.guard(() => {
      if (input) C.runBlocks(this.engine, cur, this.state, this.pending);
      this.catchUp(t0, input);
      return true;
    });
    this.pending.clear();
    if (!ok) return;
    if (cur.encoderStaleFrom != null) {
      // the rest once the pointer has rested catchUpDelayMs (a frame without input never waits
      // for one that computes layers the next input makes old again), then frame by frame
      clearTimeout(this.catchUpTimer);
      const next = () => this.raf || (this.raf = requestAnimationFrame(() => this.frame()));
      if (input) this.catchUpTimer = setTimeout(next, this.catchUpDelayMs);
      else next();
    }
    /** @type {Record<string, number>} */
    const parts = { run: performance.now() - t0 };
    for (const e of this.mounted) {
      if (!e.def.live || !e.on) continue;
      if (!e.visible()) {
        if (e.stale !== "full") e.stale = "live"; // repainted when it scrolls into view (mount's watchVisibility)
        continue;
      }
      const t1 = performance.now();
      this.renderEntry(e, true);
      parts[e.def.name] = (parts[e.def.name] || 0) + performance.now() - t1;
    }
    if (this.bench && input) {
      this.bench.parts.push(parts);
      this.benchFrame(t0);
    }
  }

  /**
   * Recompute encoder layers a frame left old (C.catchUpEncoder), one at a time, while the frame
   * that began at `t0` can take another as long as the last one took: a drag of a large model's
   * first layer paints that layer now and the rest over the next frames, not all in one late
   * frame. After an input, only when all of them fit; a frame without input (`input` false)
   * recomputes one layer at least.
   * @param {number} t0 @param {boolean} input
   */
  catchUp(t0, input) {
    const cur = this.cur;
    if (!cur || cur.encoderStaleFrom == null) return;
    let layerMs = input ? performance.now() - t0 : 0; // the first estimate: the dragged layer's
    // after an input, all the rest or none: a part would be made old again by the next input
    const rest = C.layersOf(this.info, "encoder") - cur.encoderStaleFrom;
    if (input && performance.now() - t0 + rest * layerMs > this.catchUpBudgetMs) return;
    let first = !input;
    while (cur.encoderStaleFrom != null && (first || performance.now() - t0 + layerMs <= this.catchUpBudgetMs)) {
      first = false;
      const t1 = performance.now();
      C.catchUpEncoder(this.engine, cur);
      layerMs = performance.now() - t1;
    }
    if (cur.encoderStaleFrom == null && this.bench) this.bench.caughtUp.push(performance.now() - (this.bench.lastInput ?? 0));
  }

  /** The identity preset for the selected head (W_Q = W_K = I). */
  async identity() {
    if (!(await this.ensureEngine()) || !this.cur) return;
    if (this.guard(() => (C.setIdentity(this.engine, this.state, this.info, this.heads()), true))) await this.retranslate({ keepStep: true });
  }

  /** Back to the trained W_Q/W_K everywhere. */
  async resetEdits() {
    if (!(await this.ensureEngine()) || !this.cur) return;
    if (this.guard(() => (this.engine.resetBlocks(), true))) await this.retranslate({ keepStep: true });
  }

  /** Apply a state patch from outside (an element's attributes): re-run what it affects. @param {Partial<State>} patch */
  async update(patch) {
    const prev = this.state;
    const next = S.update(prev, patch);
    if ("lang" in patch) this.setLang(next.lang);
    if (!this.engine) {
      this.state = next;
      return;
    }
    /** @type {Record<string, any>} */
    const options = {};
    for (const k of OPTION_KEYS) if (k in patch && patch[k] !== prev[k]) options[k] = patch[k];
    this.state = S.clampToModel(next, this.info);
    if (Object.keys(options).length) {
      if (!this.guard(() => (this.engine.setOptions(C.engineOptions(options, this.info)), true))) return;
      this.state = S.update(this.state, { knockOut: [...this.engine.options.knockOut].sort().join(",") }); // as the engine holds them
    }
    if ("edits" in patch) {
      const done = this.guard(() => {
        this.engine.resetBlocks();
        return applyEdits(this.engine, patch.edits, this.info);
      });
      if (done) this.noteEdits(done);
    }
    const rerun = "sentence" in patch || "edits" in patch || Object.keys(options).length > 0 || ("pair" in patch && this.needsPair() && !this.pair);
    if (rerun) await this.retranslate({ keepStep: !("sentence" in patch) });
    else {
      this.syncDecoder();
      this.render();
      this.showTables();
      this.hooks.onState?.(this.state);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Benchmark hooks (?bench): input-to-paint latency of W_Q/W_K drags.

  /** A pointer event reached the editor (called by the W_Q/W_K panel). @param {Event} e */
  benchInput(e) {
    if (!this.bench) return;
    this.bench.pending.push({ handler: performance.now(), stamp: e.timeStamp });
    this.bench.lastInput = performance.now();
    performance.mark("attnscope-input");
  }

  /** @param {number} t0 */
  benchFrame(t0) {
    const bench = this.bench;
    if (!bench.pending.length) return;
    const done = performance.now();
    const list = bench.pending.splice(0);
    performance.measure("attnscope-frame", { start: t0, end: done });
    // A message posted now is handled after this frame's style, layout and paint.
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      const after = performance.now();
      for (const p of list) {
        bench.samples.push({ toRafEnd: done - p.handler, toPainted: after - p.handler, fromEventStamp: after - p.stamp, work: done - t0 });
      }
      ch.port1.close();
    };
    ch.port2.postMessage(0);
  }
}
