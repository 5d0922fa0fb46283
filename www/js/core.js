// What the lab (main.js) and the embeddable panels (panel.js) have in common: the engine steps
// behind a view (translate, run after a W_Q/W_K edit, presets) and what each view shows,
// derived from a run and the page state. No DOM here: the callers own their elements.
//
// A run is `cur = {src, tr (translate() result), trace, decoderTokens, decoderStale?}`; the
// word-order pair is `[{sentence, tokens, trace}, ...]`. `t` is the caller's translator.

import * as S from "./state.js";
import { fmt, row } from "./dom.js";

/** @typedef {import("./state.js").State} State */
/** @typedef {import("./state.js").StackName} StackName */
/** @typedef {import("./engine.js").Engine} Engine */
/** @typedef {import("./engine.js").ModelInfo} ModelInfo */
/** @typedef {import("./engine.js").Matrix} Matrix */
/** @typedef {import("./engine.js").Trace} Trace */
/** @typedef {import("./engine.js").AttentionTrace} AttentionTrace */

/**
 * The caller's translator: an i18n.js key and its parameters -> the text.
 * @typedef {(key: string, params?: Record<string, unknown>) => string} Translate
 */

/**
 * The current run of a session: the source, the translation and the trace the views show.
 * A model that does not translate has no `tr`: its run is one forward pass over the reader's
 * text, and an encoder-only masked-LM model's guesses for its mask tokens are in `fill`.
 * @typedef {object} Run
 * @property {import("./engine.js").Source} src
 * @property {import("./engine.js").Translation | null} tr   null unless the model translates
 * @property {Trace} trace                  the translation's trace, or a later frame's (runBlocks)
 * @property {string[]} decoderTokens       a decoder-only model's: the reader's text
 * @property {import("./engine.js").MaskGuess[] | null} [fill]  a masked-LM model's guesses
 * @property {boolean} [decoderStale]       the decoder half of `trace` is older (syncDecoder)
 * @property {number | null} [encoderStaleFrom]  encoder layers from this one (0-based) on, and the
 *                                          memory, are older (a drag frame stopped there: catchUpEncoder)
 */

/** One sentence of the word-order pair. @typedef {{sentence: string, tokens: string[], trace: Trace}} PairEntry */

/**
 * What Heatmap.setData draws (heatmap.js).
 * @typedef {object} HeatmapData
 * @property {Matrix} weights
 * @property {Matrix | null} [scores]
 * @property {Matrix | null} [logits]
 * @property {string[]} rows
 * @property {string[]} cols
 * @property {number | null} selectedRow
 * @property {string} label
 * @property {string} show        "weights", "scores", "logits" or "saliency" (signed, in `weights`)
 * @property {string | null} [valueName]
 * @property {boolean} [diagonal]  draw the dashed diagonal (a causal mask's edge)
 * @property {string} [title]
 * @property {string} [rowHeader]  the table's corner cell (default: "query \ key")
 * @property {string[]} [outputs]  gradient × input: each row's output token (the one explained)
 */

// ---------------------------------------------------------------------------------------------
// What a model has: its attention sites (Lab.info().sites) and what its head gives

/**
 * The features a model offers, the words panels declare in `needs` (session.js): "sites" (any
 * attention), each site's stack ("encoder", "decoder_self", "decoder_cross"), and the head's
 * output ("translation", "next_token", "masked_token" or "none").
 * @param {ModelInfo | null} info @returns {Set<string>}
 */
export function features(info) {
  const f = new Set();
  if (!info) return f;
  if (info.sites.length) f.add("sites");
  for (const s of info.sites) f.add(s.stack);
  f.add(info.output);
  return f;
}

/**
 * Whether a model has everything `needs` lists; an entry "a|b" is met by either.
 * @param {ModelInfo | null} info @param {readonly string[] | undefined} needs
 */
export function supports(info, needs) {
  if (!needs || !needs.length) return true;
  const f = features(info);
  return needs.every((n) => n.split("|").some((x) => f.has(x)));
}

/** The site of a stack, or undefined when the model has none. @param {ModelInfo} info @param {StackName} stack */
export function siteOf(info, stack) {
  return info.sites.find((s) => s.stack === stack);
}

/** @param {ModelInfo} info @param {StackName} stack @returns {number} */
export function layersOf(info, stack) {
  return siteOf(info, stack)?.layers ?? 0;
}

/** The engine's letter of each stack's head references ("e", "s", "c"; Lab.info().sites). */
const LETTERS = { encoder: "e", decoder_self: "s", decoder_cross: "c" };

/** A head's name in knock-out lists, the URL and the CLI: "e1h2" (the site's letter, layer and head 1-based; state.parseHead reads it). @param {StackName} stack @param {number} layer @param {number} head */
export function headName(stack, layer, head) {
  return `${LETTERS[stack]}${layer + 1}h${head + 1}`;
}

/** The stack a head reference names, with its 0-based layer and head, or null. @param {string} name @returns {{stack: StackName, layer: number, head: number} | null} */
export function parseHeadName(name) {
  const ref = S.parseHead(name);
  const stack = ref && /** @type {StackName | undefined} */ (Object.keys(LETTERS).find((k) => LETTERS[k] === ref.letter));
  return stack ? { stack, layer: ref.layer, head: ref.head } : null;
}

/**
 * A head in words, for readers: "cross-attention layer 1 head 2" ("교차 어텐션 1층 2번 헤드"),
 * from a head reference ("c1h2", as the engine and the URL name it); the reference itself when it
 * names no head. @param {Translate} t @param {string} name
 */
export function headWords(t, name) {
  const h = parseHeadName(name);
  return h ? t("head.name", { stack: t(`stackName.${h.stack}`), layer: h.layer + 1, head: h.head + 1 }) : name;
}

/** The state's knocked-out heads ("e1h2", ...), in the order of the stacks, layers and heads. @param {State} state @returns {string[]} */
export function knockedOutHeads(state) {
  const order = (/** @type {string} */ n) => {
    const h = parseHeadName(n);
    return h ? [S.STACKS.indexOf(h.stack), h.layer, h.head] : [S.STACKS.length, 0, 0];
  };
  const list = state.knockOut ? state.knockOut.split(",") : [];
  return list.sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  });
}

/** Whether the state knocks this head out. @param {State} state @param {StackName} stack @param {number} layer @param {number} head */
export function knockedOut(state, stack, layer, head) {
  return !!state.knockOut && state.knockOut.split(",").includes(headName(stack, layer, head));
}

/** @param {Trace} trace @param {StackName} stack @param {number} layer @returns {AttentionTrace} */
export function attentionOf(trace, stack, layer) {
  if (stack === "encoder") return trace.encoder.layers[layer].self_attn.sublayer;
  const l = trace.decoder.layers[layer];
  return stack === "decoder_self" ? l.self_attn.sublayer : l.cross_attn.sublayer;
}

/** The query (rows) and key (cols) tokens of a stack. @param {Run} cur @param {StackName} stack @returns {{rows: string[], cols: string[]}} */
export function tokensOf(cur, stack) {
  const src = cur.src.tokens;
  const dec = cur.decoderTokens;
  if (stack === "encoder") return { rows: src, cols: src };
  if (stack === "decoder_self") return { rows: dec, cols: dec };
  return { rows: dec, cols: src };
}

/** The selected query row (the last token unless one was picked). @param {State} state @param {number} nrows */
export function queryRow(state, nrows) {
  const q = state.query ?? nrows - 1;
  return Math.max(0, Math.min(nrows - 1, q));
}

/** @param {Translate} t @param {StackName} stack @param {number} layer @param {number} head */
export function heatmapLabel(t, stack, layer, head) {
  return t("label.heatmap", { stack: t(`stackName.${stack}`), layer: layer + 1, head: head + 1 });
}

/** Heads per attention in the current run. @param {Run | null} cur @param {State} state @param {ModelInfo | null} info @returns {number} */
export function headsOf(cur, state, info) {
  return cur?.trace.heads ?? state.heads ?? info?.nhead ?? 1;
}

/** The engine's run options for a state patch. @param {Partial<State>} patch @param {ModelInfo} info */
export function engineOptions(patch, info) {
  /** @type {import("./engine.js").EngineOptions} */
  const o = {};
  if ("causalDecoder" in patch) o.causalDecoder = patch.causalDecoder;
  if ("causalEncoder" in patch) o.causalEncoder = patch.causalEncoder;
  if ("scale" in patch) o.scale = patch.scale;
  if ("positional" in patch) o.positional = patch.positional;
  if ("heads" in patch) o.heads = patch.heads ?? info.nhead;
  if ("knockOut" in patch) o.knockOut = patch.knockOut ? patch.knockOut.split(",") : [];
  return o;
}

// ---------------------------------------------------------------------------------------------
// Engine steps

/**
 * Set the engine up from a state after it loaded: options (an unusable head count falls back to
 * the trained one), then the W_Q/W_K edits of `state.edits`. Returns `{state, edits}` with
 * `edits = {applied, rejected}` (see edits.js); throws only when the options cannot be set at all.
 * @template E
 * @param {Engine} engine
 * @param {State} state
 * @param {ModelInfo} info
 * @param {(engine: Engine, edits: string, info: ModelInfo) => E} applyEdits
 * @returns {{state: State, edits: E}}
 */
export function configure(engine, state, info, applyEdits) {
  let s = S.clampToModel(state, info);
  const opts = engineOptions({ causalDecoder: s.causalDecoder, causalEncoder: s.causalEncoder, scale: s.scale, positional: s.positional, heads: s.heads, knockOut: s.knockOut }, info);
  try {
    engine.setOptions(opts);
  } catch (e) {
    if (engine.broken) throw e;
    s = S.update(s, { heads: null, knockOut: "" });
    engine.setOptions({ ...opts, heads: info.nhead, knockOut: [] });
  }
  const edits = applyEdits(engine, s.edits, info);
  return { state: s, edits };
}

/**
 * Tokenise and translate `sentence` (and the word-order pair when `withPair`). Returns
 * `{cur, pair}`; throws the engine's error, after putting `lastGood` back into the engine when
 * it can (the last good sentence's run is then `error.cur`; the pair, if made, `error.pair`).
 * @param {Engine} engine
 * @param {string} sentence
 * @param {{withPair?: boolean, lastGood?: string | null, cur?: Run | null}} [o]
 * @returns {{cur: Run, pair: PairEntry[] | null}}
 */
export function translateRun(engine, sentence, { withPair = false, lastGood = null, cur = null } = {}) {
  let pair = null;
  try {
    if (withPair) {
      pair = S.ORDER_PAIR.map((s) => {
        const src = engine.setSource(s);
        return { sentence: s, tokens: src.tokens, trace: engine.run().trace };
      });
    }
    return { cur: textRun(engine, sentence), pair };
  } catch (e) {
    e.pair = pair;
    // a panic: the engine restarts on the next input; the panels keep the last results
    if (!engine.broken && lastGood !== null) {
      // the engine may hold a pair sentence now: put the last good sentence back
      try {
        e.cur = { ...cur, ...textRun(engine, lastGood) };
      } catch {
        /* the caller shows the first error */
      }
    }
    throw e;
  }
}

/**
 * The run of one text, as the model's family makes it: a translation (greedy decoding and its
 * trace), or one forward pass over the text, with a masked-LM model's guesses for its masks.
 * @param {Engine} engine @param {string} sentence @returns {Run}
 */
function textRun(engine, sentence) {
  const src = engine.setSource(sentence);
  if (engine.info.output === "translation") {
    const tr = engine.translate();
    return { src, tr, trace: tr.trace, decoderTokens: tr.decoder_tokens };
  }
  const out = engine.run();
  const fill = engine.info.output === "masked_token" ? engine.fill(PREDICTION_K) : null;
  return { src, tr: null, trace: out.trace, decoderTokens: out.decoder_tokens, fill };
}

/** How many candidates a prediction shows (the next token, a masked token). */
export const PREDICTION_K = 10;

/**
 * A text to start an opened model on when the page's sentence gives it nothing to read: five
 * words of its vocabulary, the middle one the mask token for a masked-LM model.
 * @param {ModelInfo} info @param {import("./model_file.js").ModelFile | null} file
 */
export function sampleText(info, file) {
  const specials = new Set(Object.values(file?.config.specials ?? {}));
  const words = info.srcVocab.filter((w) => !specials.has(w) && /^\p{L}{2,}$/u.test(w)).slice(0, 5);
  const mask = file?.config.specials?.mask;
  if (info.output === "masked_token" && mask) words.splice(Math.min(2, words.length), words.length > 2 ? 1 : 0, mask);
  return words.join(" ") || info.srcVocab.find((w) => !specials.has(w)) || "a";
}

/**
 * Send the edited blocks of one head (`pending`: Map matrix -> values) and run the model once.
 * When an encoder head is edited only the encoder runs (nothing needing the decoder is live);
 * `cur.decoderStale` then says the decoder half of `cur.trace` is old (see syncDecoder). The run
 * is a frame (engine.js): the views copy out only the matrices they draw, and `cur.trace` reads
 * until the next run recomputes its stages (every caller then replaces it).
 * @param {Engine} engine
 * @param {Run} cur
 * @param {{stack: StackName, layer: number, head: number}} sel
 * @param {Map<"q" | "k", Float32Array>} pending
 */
export function runBlocks(engine, cur, { stack, layer, head }, pending) {
  for (const [m, values] of pending) engine.setBlock(stack, layer, head, m, values);
  if (stack === "encoder" && engine.canRunEncoder) {
    runEncoderThrough(engine, cur, layer);
    cur.decoderStale = true;
  } else {
    cur.trace = engine.run({ frame: true }).trace;
    cur.decoderStale = false;
    cur.encoderStaleFrom = null;
  }
}

/**
 * The encoder through layer `last` only (a frame): the later layers stay as they were until
 * catchUpEncoder reaches them (`cur.encoderStaleFrom`). @param {Engine} engine @param {Run} cur @param {number} last
 */
function runEncoderThrough(engine, cur, last) {
  const out = engine.runEncoder({ frame: true, through: last });
  cur.trace = { ...cur.trace, heads: out.heads, encoder: out.encoder };
  cur.encoderStaleFrom = out.staleFrom ?? null;
}

/**
 * One more encoder layer after a frame that stopped early (runBlocks): returns whether layers
 * are still older than the edits. @param {Engine} engine @param {Run} cur
 */
export function catchUpEncoder(engine, cur) {
  if (cur.encoderStaleFrom == null) return false;
  runEncoderThrough(engine, cur, cur.encoderStaleFrom);
  return cur.encoderStaleFrom != null;
}

/** After encoder-only runs: run the whole model once so that the decoder views are current. @param {Engine | null} engine @param {Run | null} cur */
export function syncDecoder(engine, cur) {
  if (cur?.decoderStale && engine && !engine.broken) {
    const out = engine.run({ frame: true });
    cur.trace = out.trace;
    cur.decoderStale = false;
    cur.encoderStaleFrom = null;
  }
}

/** @param {number} rows @param {number} cols */
function identity(rows, cols) {
  const a = new Float32Array(rows * cols);
  for (let i = 0; i < Math.min(rows, cols); i++) a[i * cols + i] = 1;
  return a;
}

/**
 * The identity preset: W_Q = W_K = I for the selected head.
 * @param {Engine} engine @param {{stack: StackName, layer: number, head: number}} sel @param {ModelInfo} info @param {number} heads
 */
export function setIdentity(engine, { stack, layer, head }, info, heads) {
  const dk = info.dModel / heads;
  engine.setBlock(stack, layer, head, "q", identity(dk, info.dModel));
  engine.setBlock(stack, layer, head, "k", identity(dk, info.dModel));
}

// ---------------------------------------------------------------------------------------------
// What the views show

/**
 * Beyond the weights, computed by the engine when asked (never on a frame that does not show
 * them; gradient × input is saliencyData's): "value", each row's contributions
 * ||w_ij v_j W_O^(h)|| as shares of the row (Kobayashi et al. 2020, "Attention is Not Only a
 * Weight"); "rollout", the attention of all layers up to this one with the residual path,
 * 0.5 A + 0.5 I per layer, heads averaged (Abnar & Zuidema 2020; the decoder's path through
 * cross-attention: src/analysis.rs). Null for the other views.
 * @param {Engine | null} engine @param {State} state @param {Trace} trace
 * @returns {Matrix | null}
 */
function beyondWeights(engine, state, trace) {
  if (!engine || (state.show !== "value" && state.show !== "rollout")) return null;
  // one engine call per run and view, however many maps show it (the lab's map and the mini-map)
  const memo = beyondMemo.get(trace) ?? new Map();
  beyondMemo.set(trace, memo);
  const key = `${state.show}/${state.stack}/${state.layer}/${state.head}`;
  if (!memo.has(key)) {
    if (state.show === "value") memo.set(key, engine.valueWeighted(state.stack, state.layer)[state.head].normalized);
    else memo.set(key, engine.rollout()[state.stack === "decoder_cross" ? "cross" : state.stack][state.layer]);
  }
  return memo.get(key);
}
/** @type {WeakMap<Trace, Map<string, Matrix>>} */
const beyondMemo = new WeakMap(); // run trace -> computed maps

const BEYOND = new Set(["weights", "value", "rollout"]); // coloured on the weights' scale, 0 to 1

/** Views whose map is of the whole model, not of the head (or layer) selected. */
const NO_HEAD = new Set(["rollout", "saliency"]);

/** A saliency computation shorter than this (ms) is redone on a drag's frames too; a longer one waits for the drag's end. */
const CHEAP_MS = 8;
/** @type {WeakMap<Engine, {answer: import("./engine.js").Saliency, ms: number}>} */
const lastSaliency = new WeakMap(); // the engine's last gradient × input, and what it cost
/** @type {WeakMap<Trace, import("./engine.js").Saliency>} */
const saliencyMemo = new WeakMap(); // run trace -> its gradient × input

/**
 * Gradient × input of the run (Lab.saliency, Shrikumar et al. 2016) over the map's columns, one
 * engine call per run however many maps show it. It takes one backward pass per output row: on
 * the frames of a W_Q/W_K drag (`live`) a slow one is not redone, the last answer of the same
 * shape is shown (`held`), and the run after the drag computes it again. Null when the stack's
 * map has no gradient × input (state.saliencySide).
 * @param {Engine} engine @param {Run} cur @param {State} state @param {ModelInfo | null} info
 * @param {number} nrows @param {number} ncols @param {boolean} live
 * @returns {{matrix: Matrix, tokens: string[], held: boolean} | null}
 */
function saliencyData(engine, cur, state, info, nrows, ncols, live) {
  const { side } = S.saliencySide(info, state.stack);
  if (!side) return null;
  const pick = (/** @type {import("./engine.js").Saliency} */ a) => {
    const m = a[side];
    return m && m.rows === nrows && m.cols === ncols ? m : null;
  };
  let answer = saliencyMemo.get(cur.trace);
  let held = false;
  if (!answer) {
    const last = lastSaliency.get(engine);
    if (live && last && last.ms >= CHEAP_MS && pick(last.answer)) {
      answer = last.answer;
      held = true;
    } else {
      const t0 = performance.now();
      answer = engine.saliency();
      lastSaliency.set(engine, { answer, ms: performance.now() - t0 });
      saliencyMemo.set(cur.trace, answer);
    }
  }
  const matrix = pick(answer);
  if (!matrix) throw new Error(`gradient × input has no ${nrows} × ${ncols} map of the ${side} for this run`);
  return { matrix, tokens: answer.tokens, held };
}

/**
 * The main heatmap's data (Heatmap.setData). `engine` for the value-weighted, rollout and
 * gradient × input views; `live`: a frame of a W_Q/W_K drag (saliencyData).
 * @param {Run} cur @param {State} state @param {Translate} t @param {Engine | null} [engine] @param {boolean} [live]
 * @returns {HeatmapData}
 */
export function heatmapData(cur, state, t, engine = null, live = false) {
  const { stack, layer, head } = state;
  const h = attentionOf(cur.trace, stack, layer).heads[head];
  const { rows, cols } = tokensOf(cur, stack);
  if (state.show === "saliency" && engine) {
    const sal = saliencyData(engine, cur, state, engine.info, rows.length, cols.length, live);
    if (sal) {
      return {
        weights: sal.matrix,
        scores: null,
        logits: null,
        rows,
        cols,
        selectedRow: queryRow(state, rows.length),
        label: t("label.saliency", { stack: t(`stackName.${stack}`) }),
        show: "saliency",
        valueName: t("cell.saliency"),
        rowHeader: t("table.saliency"),
        outputs: sal.tokens,
        diagonal: false,
      };
    }
  }
  const other = beyondWeights(engine, state, cur.trace);
  const vars = { stack: t(`stackName.${stack}`), layer: layer + 1, head: head + 1 };
  return {
    weights: other ?? h.weights,
    scores: other ? null : h.scores,
    logits: other && state.show === "rollout" ? null : h.logits,
    rows,
    cols,
    selectedRow: queryRow(state, rows.length),
    label: other ? t(`label.${state.show}`, vars) : heatmapLabel(t, stack, layer, head),
    show: other ? "weights" : state.show === "saliency" ? "weights" : state.show,
    valueName: other ? t(`cell.${state.show}`) : null,
    // the diagonal (each word with itself) marks the edge of a causal mask, only where one is on
    diagonal: stack !== "decoder_cross" && state.show !== "rollout" && hasMasked(h.logits),
  };
}

/** Whether a map's scaled scores hide any cell (−∞: a mask is on). @param {Matrix | null | undefined} logits */
function hasMasked(logits) {
  return !!logits && logits.data.some((v) => v === -Infinity);
}

/**
 * The heatmap's title: its label, what colours it when not the weights, and whether its head is
 * switched off (knock-out; rollout's map is of every head, none of them alone).
 * @param {State} state @param {string} label @param {Translate} t
 */
export function heatmapTitle(state, label, t) {
  const title = BEYOND.has(state.show) || state.show === "saliency" ? label : `${label} · ${t("attn.coloured", { what: t(`show.${state.show}`) })}`;
  const off = !NO_HEAD.has(state.show) && knockedOut(state, state.stack, state.layer, state.head);
  return off ? `${title} ${t("attn.headOff")}` : title;
}

/**
 * The all-heads grid's data (HeadGrid.setData): `layers[l][h]` the weights of head h of layer l.
 * The head shown above is `selected`; in the rollout view no head is (its map combines every
 * head of the layers up to the selected one: `within`, their count, else null), nor in the
 * gradient × input view (`whole`: its map is of the whole model). `stale`: the first layer whose
 * maps are older than the edits (a drag frame stopped before it), else null.
 * @param {Run} cur @param {State} state @param {ModelInfo} info
 * @returns {{layers: Matrix[][], selected: {layer: number, head: number} | null, within: number | null, whole: boolean, off: boolean[][], stale: number | null}}
 */
export function gridData(cur, state, info) {
  const L = layersOf(info, state.stack);
  const layers = [];
  for (let l = 0; l < L; l++) layers.push(attentionOf(cur.trace, state.stack, l).heads.map((x) => x.weights));
  const off = layers.map((row, l) => row.map((_, h) => knockedOut(state, state.stack, l, h)));
  const rollout = state.show === "rollout";
  const whole = state.show === "saliency";
  const stale = state.stack === "encoder" ? (cur.encoderStaleFrom ?? null) : null;
  return { layers, selected: rollout || whole ? null : { layer: state.layer, head: state.head }, within: rollout ? Math.min(state.layer, L - 1) + 1 : null, whole, off, stale };
}

/**
 * How peaked the rows are: the mean of each row's largest entry (1 = one token takes all), in the
 * words of what the map shows (`show`): a head's weights, its value-weighted contributions, or the
 * rollout through all heads.
 * @param {Matrix} weights @param {Translate} t @param {string} [show]
 */
export function peakText(weights, t, show = "weights") {
  const W = weights;
  let sum = 0;
  for (let r = 0; r < W.rows; r++) {
    let m = 0;
    for (let c = 0; c < W.cols; c++) m = Math.max(m, W.data[r * W.cols + c]);
    sum += m;
  }
  return t(show === "value" || show === "rollout" ? `attn.peak.${show}` : "attn.peak", { p: fmt(sum / W.rows, 2) });
}

/**
 * The line under a gradient × input map: how it differs from the weights, and its formula for
 * the selected row, whose output token it names (`d`: heatmapData's answer for that view).
 * @param {HeatmapData} d @param {Translate} t
 */
export function saliencyNote(d, t) {
  const r = d.selectedRow ?? d.rows.length - 1;
  return t("attn.saliency.note", { row: d.rows[r], token: d.outputs?.[r] ?? "?" });
}

/**
 * The legend under the heatmap: `{kind: "seq"|"div", text}`. `d`, the map's data
 * (heatmapData), gives gradient × input's range.
 * @param {Run} cur @param {State} state @param {Translate} t @param {HeatmapData} [d]
 * @returns {{kind: "seq" | "div", text: string}}
 */
export function legendOf(cur, state, t, d) {
  if (d?.show === "saliency") {
    let r = 0;
    for (const v of d.weights.data) if (Number.isFinite(v)) r = Math.max(r, Math.abs(v));
    return { kind: "div", text: t("legend.saliency", { r: fmt(r, 3) }) };
  }
  const show = state.show === "saliency" ? "weights" : state.show; // (a map without it shows the weights)
  const h = attentionOf(cur.trace, state.stack, state.layer).heads[state.head];
  // the hatching and the dashed diagonal are explained only on a map that has them
  const masked = show !== "rollout" && hasMasked(h.logits) ? ` ${t(state.stack === "decoder_cross" ? "legend.maskedCells" : "legend.masked")}` : "";
  if (BEYOND.has(show)) return { kind: "seq", text: t(`legend.${show}`) + masked };
  const m = show === "scores" ? h.scores : h.logits;
  let r = 0;
  for (const v of m.data) if (Number.isFinite(v)) r = Math.max(r, Math.abs(v));
  return { kind: "div", text: t("legend.scores", { r: fmt(r, 2), what: t(`show.${show}`) }) + masked };
}

/**
 * The weighted-average panel's data (WeightedAverage.setData); with `engine`, the value norms.
 * @param {Run} cur @param {State} state @param {Translate} t @param {Engine | null} [engine]
 */
export function averageData(cur, state, t, engine = null) {
  const { stack, layer, head } = state;
  const h = attentionOf(cur.trace, stack, layer).heads[head];
  const { rows, cols } = tokensOf(cur, stack);
  return {
    // ||v_j W_O^(h)||: how far key j can move the output at all (Kobayashi et al. 2020)
    valueNorms: engine ? engine.valueWeighted(stack, layer)[head].value_norms.data : null,
    queryTokens: rows,
    keyTokens: cols,
    query: queryRow(state, rows.length),
    weights: h.weights,
    v: h.v,
    output: h.output,
    label: heatmapLabel(t, stack, layer, head),
  };
}

/**
 * The dot-product panel's data (panels/dot.js): why the weight of key j for query i is what it
 * is. q_i and k_j are rows of the trace's per-head q and k; `products` are q_i[d] * k_j[d], the
 * one multiplication done here (the bars); the score, the logit and the weight are the
 * engine's. For the softmax's step: the row's largest logit `rowMax` (at key `topKey`),
 * e^(logit_ij - rowMax) and the row's sum of such terms (masked keys, -Infinity, add 0).
 * `key`: the key chosen, or null for the key with the largest weight in row i. `range`: the
 * largest |q| or |k| of the head (one colour scale for every query and key).
 * @param {Run} cur @param {State} state @param {number | null} key @param {Translate} t
 */
export function dotData(cur, state, key, t) {
  const { stack, layer, head } = state;
  const h = attentionOf(cur.trace, stack, layer).heads[head];
  const { rows, cols } = tokensOf(cur, stack);
  const i = queryRow(state, rows.length);
  const w = row(h.weights, i); // (T_k)
  const l = row(h.logits, i); // (T_k), -Infinity where masked
  let j = 0;
  if (key === null) for (let c = 1; c < w.length; c++) j = w[c] > w[j] ? c : j;
  else j = Math.max(0, Math.min(w.length - 1, key));
  const q = row(h.q, i); // (d_k)
  const k = row(h.k, j); // (d_k)
  const products = Float64Array.from(q, (x, d) => x * k[d]); // (d_k)
  let rowMax = -Infinity;
  let topKey = 0;
  for (let c = 0; c < l.length; c++) if (l[c] > rowMax) [rowMax, topKey] = [l[c], c];
  let expSum = 0;
  for (const x of l) if (Number.isFinite(x)) expSum += Math.exp(x - rowMax);
  let range = 1e-9;
  for (const x of h.q.data) range = Math.max(range, Math.abs(x));
  for (const x of h.k.data) range = Math.max(range, Math.abs(x));
  return {
    queryTokens: rows,
    keyTokens: cols,
    query: i,
    key: j,
    q,
    k,
    products,
    range,
    score: h.scores.data[i * h.scores.cols + j],
    logit: l[j],
    weight: w[j],
    rowMax,
    topKey,
    expTerm: Math.exp(l[j] - rowMax),
    expSum,
    scaled: state.scale,
    label: heatmapLabel(t, stack, layer, head),
  };
}

/**
 * The W_Q/W_K editor's data (QKEditor.setData). One colour scale per head, taken from the
 * trained weights, so that edits never re-colour the rest (`ranges` caches it per head).
 * Throws the engine's error.
 * @param {Engine} engine @param {State} state @param {number} heads @param {Map<string, number>} ranges @param {Translate} t
 */
export function qkData(engine, state, heads, ranges, t) {
  const { stack, layer, head } = state;
  const q = engine.block(stack, layer, head, "q");
  const k = engine.block(stack, layer, head, "k");
  const key = `${heads}/${stack}/${layer}/${head}`;
  if (!ranges.has(key)) {
    let r = 0.05;
    try {
      for (const x of engine.trained(stack, layer, head, "q")) r = Math.max(r, Math.abs(x));
      for (const x of engine.trained(stack, layer, head, "k")) r = Math.max(r, Math.abs(x));
      ranges.set(key, r);
    } catch {
      /* trained values unknown: the editor takes the blocks' own range */
    }
  }
  return {
    q,
    k,
    range: ranges.get(key),
    ctx: { stackName: t(`stackName.${stack}`), layer: layer + 1, head: head + 1 },
    editCount: engine.edits.size,
  };
}

/**
 * The decoding panel's data (Decoding.setData), or null when nothing was decoded. `file` (the
 * model file's header, engine.file) gives the tokenizer's glue marker ("+": "+는" is written onto
 * the token before it) and whether a glued consonant joins the syllable before it (compose_jamo,
 * src/tokenizer.rs), for the note on glue tokens.
 * @param {Run} cur @param {State} state @param {ModelInfo} info @param {import("./model_file.js").ModelFile | null} [file]
 */
export function decodingData(cur, state, info, file = null) {
  const steps = cur.tr?.steps;
  if (!steps?.length) return null;
  const tok = file?.config.tokenizer ?? {};
  return {
    steps,
    srcTokens: cur.src.tokens,
    step: Math.min(state.step, steps.length - 1),
    layer: Math.min(state.layer, info.decoderLayers - 1),
    head: state.head,
    glue: { marker: typeof tok.glue_prefix === "string" ? tok.glue_prefix : "", composeJamo: !!tok.compose_jamo },
  };
}

/** Token positions of B matching A's tokens (first unused occurrence): the reordering. @param {string[]} a @param {string[]} b */
function matchTokens(a, b) {
  const used = new Set();
  return a.map((tok) => {
    const j = b.findIndex((x, k) => x === tok && !used.has(k));
    used.add(j);
    return j;
  });
}

/**
 * The word-order experiment: both encoder maps of the selected layer and head, whether they are
 * the same once B's words are put in A's order, and the head where word order matters most.
 * Returns {maps: [Heatmap data x2], verdict: {same, text}, most: {layer, head}|null (the head where
 * order matters most, when one does), best: {layer, head, text, button}|null (that head, when it is
 * not the one shown)}.
 * @param {PairEntry[]} pair @param {State} state @param {ModelInfo} info @param {Translate} t
 */
export function pairData(pair, state, info, t) {
  const layer = Math.min(state.layer, info.encoderLayers - 1);
  const head = state.head;
  const ws = pair.map((p) => p.trace.encoder.layers[layer].self_attn.sublayer.heads[head].weights);
  const maps = pair.map((p, i) => ({
    weights: ws[i],
    rows: p.tokens,
    cols: p.tokens,
    selectedRow: null,
    label: t("label.pair", { stack: t("stackName.encoder"), layer: layer + 1, head: head + 1, sentence: p.sentence }),
    show: "weights",
    title: `“${p.sentence}”`,
  }));
  const pi = matchTokens(pair[0].tokens, pair[1].tokens);
  const compare = (wa, wb) => {
    if (!pi.every((j) => j >= 0) || wa.rows !== wb.rows) return NaN;
    const n = wa.cols;
    let d = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) d = Math.max(d, Math.abs(wa.data[i * n + j] - wb.data[pi[i] * n + pi[j]]));
    return d;
  };
  const diff = compare(ws[0], ws[1]);
  const same = diff < 1e-6;
  const fmtD = (d) => (Number.isNaN(d) ? "?" : d < 1e-3 ? d.toExponential(1) : fmt(d, 3));
  let best = null;
  pair[0].trace.encoder.layers.forEach((l, li) =>
    l.self_attn.sublayer.heads.forEach((h, hi) => {
      const d = compare(h.weights, pair[1].trace.encoder.layers[li].self_attn.sublayer.heads[hi].weights);
      if (!best || d > best.d) best = { layer: li, head: hi, d };
    }),
  );
  const ordered = state.positional && best && best.d > 1e-3; // some head sees the order
  // the verdict speaks of the head shown: with positional encoding on, a head may still ignore order
  const key = !same ? "order.differ" : ordered ? "order.sameHere" : "order.same";
  const verdict = { same, text: t(key, { d: fmtD(diff), pe: t(state.positional ? "order.peOn" : "order.peOff"), layer: layer + 1, head: head + 1 }) };
  const showBest = ordered && (best.layer !== layer || best.head !== head);
  return {
    maps,
    verdict,
    most: ordered ? { layer: best.layer, head: best.head } : null,
    best: showBest
      ? {
          layer: best.layer,
          head: best.head,
          text: t("order.most", { layer: best.layer + 1, head: best.head + 1, d: fmtD(best.d) }),
          button: t("order.mostShow", { layer: best.layer + 1, head: best.head + 1 }),
        }
      : null,
  };
}

/**
 * One map for export (export.js): layer and head 0-based. A gradient × input map is `signed`
 * (diverging colours) and of no layer or head: `show: "saliency"` and its rows' `outputs` go along.
 * @typedef {object} ExportMap
 * @property {StackName} stack
 * @property {number} layer
 * @property {number} head
 * @property {string[]} rows
 * @property {string[]} cols
 * @property {Matrix} weights
 * @property {string} label
 * @property {string} [sentence]
 * @property {string} [link]
 * @property {"saliency"} [show]
 * @property {boolean} [signed]
 * @property {string[]} [outputs]
 */

/** The current map of the main heatmap, for export. @param {Run} cur @param {State} state @param {Translate} t @param {Engine | null} [engine] @returns {ExportMap} */
export function exportMap(cur, state, t, engine = null) {
  const d = heatmapData(cur, state, t, engine);
  /** @type {ExportMap} */
  const map = { stack: state.stack, layer: state.layer, head: state.head, rows: d.rows, cols: d.cols, weights: d.weights, label: d.label, sentence: state.sentence };
  return d.show === "saliency" ? { ...map, show: "saliency", signed: true, outputs: d.outputs } : map;
}
