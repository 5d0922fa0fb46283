// Pieces several panels share: the lecture's sentence, the figures the lesson states about its
// models (the engine's), the word-vector lookup with its messages, the sentence text boxes bound
// to one shared sentence, token pickers, controls bound to a panel's URL key, engine errors, and
// the frame of what a panel returns.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { fmtCount } from "../dom.js";
import { isWord } from "../suggest.js";
import { h, textbox, button, message, newId, select, slider, checkbox, formula, setFormula, PENDING } from "./ui.js";

/** The example sentence of the lecture (panels 2-9 start from it). */
export const SEED = "Emma hates games, but she's a great friend";

/** Most tokens a word-vector panel draws (the engine takes more; the page stays readable). */
export const MAX_WORDS = 24;

const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/**
 * A power of ten as written in a formula (1e-5 -> "10⁻⁵"), to the precision of the model's
 * float32 numbers (the engine's 1e-5 is 9.99999974e-6); any other number as it is.
 * @param {number} v
 */
export function powerOfTen(v) {
  const e = Math.round(Math.log10(v));
  if (!(v > 0) || Math.abs(10 ** e - v) > 1e-6 * v) return String(v);
  return `10${[...String(e)].map((c) => SUPERSCRIPT[c]).join("")}`;
}

/** English words of a vocabulary, counted as the lab counts them (suggest.js isWord), once per model. */
const wordCounts = new WeakMap();

/**
 * The figures the lesson states about its models, every one the engine's, for the strings'
 * placeholders: of the translator (Lab.info()): `d` (d_model), `h` (heads), `dk` (d_model / h),
 * `dff`, `encL` and `decL` (layers), `maxLen` (the longest sentence it reads and writes, in
 * tokens), `eps` (LayerNorm's ε, written 10⁻⁵), `words` (the English words it knows, as the lab
 * counts them: 7,797); of the word vectors (Words.dim): `gd`. Each is "…" while the engine
 * loads and "?" when the part that has it did not load.
 * @param {import("../engine.js").Engine} engine
 * @returns {Record<string, string | number>}
 */
export function figures(engine) {
  const none = engine.mod ? "?" : PENDING;
  const info = engine.info;
  const gd = engine.wordDim;
  const out = { d: none, h: none, dk: none, dff: none, encL: none, decL: none, maxLen: none, eps: none, words: none, gd: gd ?? none };
  if (!info) return out;
  if (!wordCounts.has(info)) wordCounts.set(info, info.srcVocab.filter(isWord).length);
  return {
    ...out,
    d: info.dModel,
    h: info.nhead,
    dk: info.dModel / info.nhead,
    dff: info.dimFeedforward,
    encL: info.encoderLayers,
    decL: info.decoderLayers,
    maxLen: info.maxLen,
    eps: powerOfTen(info.layerNormEps),
    words: fmtCount(wordCounts.get(info)),
  };
}

/**
 * Write the string `key` with the models' figures (and `extra`) through `set`: now, with "…"
 * for each figure until the engine has loaded, and again once it has.
 * @param {{engine: any, ready: (fn: () => void) => void}} ctx
 * @param {string} key
 * @param {(text: string) => void} set
 * @param {Record<string, string | number>} [extra]
 */
export function withFigures(ctx, key, set, extra = {}) {
  const fill = () => set(t(key, { ...figures(ctx.engine), ...extra }));
  fill();
  ctx.ready(fill);
}

/**
 * An element whose text is the string `key` with the models' figures and `extra` (withFigures).
 * @param {any} ctx @param {string} tag @param {string} key @param {Record<string, any>} [props] @param {Record<string, string | number>} [extra]
 */
export function figureText(ctx, tag, key, props = {}, extra = {}) {
  const el = h(tag, props);
  withFigures(ctx, key, (text) => (el.textContent = text), extra);
  return el;
}

/** A formula line holding the models' figures (withFigures). @param {any} ctx @param {string} key @param {string} [test] */
export function figureFormula(ctx, key, test) {
  const el = formula("", test);
  withFigures(ctx, key, (text) => setFormula(el, text));
  return el;
}

/** Panel numbers as the strings list them: runs of three or more as a range ("2–5"), the rest one by one ("5, 6 and 8–10"). @param {number[]} nums */
export function panelList(nums) {
  const runs = [];
  for (const n of [...nums].sort((a, b) => a - b)) {
    const last = runs[runs.length - 1];
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  const parts = runs.flatMap(([a, b]) => (b - a >= 2 ? [`${a}–${b}`] : a === b ? [String(a)] : [String(a), String(b)]));
  if (parts.length < 2) return parts.join("");
  return t("ui.list", { items: parts.slice(0, -1).join(", "), last: parts[parts.length - 1] });
}

/**
 * The GloVe vectors of `text` with their 2-D projection, or {error}. Adds `warning` for
 * unknown words and truncation. The numbers are the engine's (Words.project).
 */
export function wordVectors(engine, text) {
  if (!engine.hasWords) return { error: t("err.words", { msg: engine.errors.words || "?" }) };
  if (!text.trim()) return { error: t("err.empty") };
  let p;
  try {
    p = engine.project(text);
  } catch (e) {
    return { error: e instanceof WebAssembly.RuntimeError ? t("err.panic") : t("err.engine", { msg: e.message }), panic: e };
  }
  let warning = "";
  if (p.tokens.length > MAX_WORDS) {
    const cut = p.tokens.slice(0, MAX_WORDS).join(" ");
    try {
      p = engine.project(cut);
    } catch (e) {
      return { error: t("err.engine", { msg: e.message }), panic: e };
    }
    warning = t("warn.long", { n: MAX_WORDS });
  }
  if (p.unknown.length === p.tokens.length) return { error: t("err.allUnknown", { words: p.tokens.join(" ") }) };
  if (p.unknown.length) {
    const words = p.unknown.map((i) => p.tokens[i]).join(", ");
    warning = `${warning ? `${warning} ` : ""}${t("warn.unknown", { words })}`;
  }
  return { ...p, n: p.tokens.length, d: p.vectors.cols, warning };
}

/** Token labels that stay unique in a table ("the", "the²"). */
export function labels(tokens) {
  const seen = new Map();
  return tokens.map((tok) => {
    const k = (seen.get(tok) || 0) + 1;
    seen.set(tok, k);
    return k === 1 ? tok : `${tok} (${k})`;
  });
}

/** The word a panel starts on: "friend" if present, else the last token. */
export function defaultWord(tokens) {
  const i = tokens.indexOf("friend");
  return i >= 0 ? i : tokens.length - 1;
}

/**
 * What a panel function gives main.js: its id ("p4"), its title (the strings' `p4.title`) and
 * its body: the introduction (`p4.intro`, with the models' figures: withFigures), then `kids`.
 * @param {any} ctx
 * @param {string} id
 * @param {...(Node | string | null)} kids
 */
export function panelOf(ctx, id, ...kids) {
  return { id, title: t(`${id}.title`), body: h("div", { class: "panel-body" }, figureText(ctx, "p", `${id}.intro`, { class: "panel-intro" }), ...kids) };
}

/** A row of controls. @param {...(Node | null)} kids */
export function controls(...kids) {
  return h("div", { class: "controls" }, ...kids);
}

/**
 * The part of a panel that needs the trained translator (hidden while the page has none:
 * lesson.css, `.no-model`). @param {...(Node | string | null)} kids
 */
export function needsModel(...kids) {
  return h("div", { class: "needs-model" }, ...kids);
}

/** An engine call failed: say so in `msg` and hand the error to the page's recovery. */
export function engineError(ctx, msg, e) {
  msg.show("error", t("err.engine", { msg: e.message }));
  ctx.onEngineError(e);
}

// Controls bound to a key of the panel's URL state (state.put: a value equal to `def` leaves
// the URL). A change writes the key, then calls `onChange` with the new value.

/**
 * A select whose option value is stored under `key` as it is.
 * @param {{id: string, label: string, key: string, def: any, options: {value: any, text: string}[], value: any, onChange: (v: string) => void, test?: string}} o
 */
export function keySelect({ key, def, onChange, ...o }) {
  return select({
    ...o,
    onChange: (v) => {
      state.put(key, v, def);
      onChange(v);
    },
  });
}

/**
 * A select of positions (a token, a layer, a head): options are 0-based, the URL 1-based. The
 * panel keeps the index (it may reset or clamp it); `pick(i)` does what choosing option i does
 * (for other ways to choose: a table row).
 * @param {{id: string, label: string, key: string, def?: number | null, onChange: (i: number) => void, test?: string}} o
 */
export function positionSelect({ id, label, key, def = null, onChange, test }) {
  const pick = (i) => {
    state.put(key, i + 1, def);
    onChange(i);
  };
  const sel = select({ id, label, options: [], value: 0, onChange: (v) => pick(Number(v)), test });
  return {
    ...sel,
    pick,
    /** Options "1. word", "2. word", ... for the token labels `names`; `i` selected. @param {string[]} names @param {number} i */
    setTokens: (names, i) => sel.setOptions(names.map((nm, k) => ({ value: k, text: `${k + 1}. ${nm}` })), i),
    /** Options 1 .. n (layers, heads); `i` selected. @param {number} n @param {number} i */
    setCount: (n, i) => sel.setOptions(Array.from({ length: n }, (_, k) => ({ value: k, text: String(k + 1) })), i),
  };
}

/**
 * A slider over [min, max] stored under `key`: it starts from the URL (else `def`) and
 * `value` is its number (the one last chosen, as the URL has it).
 * @param {{id: string, label: string, key: string, def: number, min: number, max: number, step: number, format?: (v: number) => string, onChange: (v: number) => void, test?: string}} o
 */
export function keySlider({ key, def, onChange, ...o }) {
  let value = state.num(key, def, o.min, o.max);
  const sl = slider({
    ...o,
    value,
    onInput: (v) => {
      value = v;
      state.put(key, v, def);
      onChange(v);
    },
  });
  return {
    ...sl,
    get value() {
      return value;
    },
    set(v) {
      value = v;
      sl.set(v);
    },
  };
}

/**
 * A checkbox stored under `key` as 1 or 0, `def` without it; `value` is whether it is checked.
 * @param {{id: string, label: string, key: string, def: boolean, onChange: (v: boolean) => void, test?: string}} o
 */
export function keyCheckbox({ key, def, onChange, ...o }) {
  const box = checkbox({
    ...o,
    checked: state.bool(key, def),
    onChange: (v) => {
      state.put(key, v ? 1 : 0, def ? 1 : 0);
      onChange(v);
    },
  });
  return {
    ...box,
    get value() {
      return box.input.checked;
    },
  };
}

/**
 * A text box bound to one of the shared sentences (`which` = "words" | "model"): typing in any
 * of its copies updates every panel that reads it. Its label and hint are the strings `label`
 * and `hint` (by default the shared ones), with `{panels}`: every panel that shows a box bound
 * to this sentence, and `{others}`: those but this one (filled once every panel is built).
 * Returns {root, msg, get}.
 * @param {{shared: any, panel: number}} ctx  a lesson panel's context (main.js)
 * @param {"words" | "model"} which
 * @param {() => void} onChange
 * @param {{label?: string, hint?: string, tools?: HTMLElement[]}} [o]  string keys
 */
export function sentenceBox(ctx, which, onChange, { label, hint, tools = [] } = {}) {
  const id = newId(`sent-${which}`);
  const get = () => (which === "words" ? ctx.shared.words : ctx.shared.model);
  const setShared = (v) => (which === "words" ? ctx.shared.setWords(v) : ctx.shared.setModel(v));
  const labelKey = label || (which === "words" ? "ui.sentenceWords" : "ui.sentenceModel");
  const hintKey = hint || (which === "words" ? "ui.sentenceWordsHint" : "ui.sentenceModelHint");
  ctx.shared.use(which, ctx.panel);
  const names = () => {
    const all = ctx.shared.panels(which);
    return { panels: panelList(all), others: panelList(all.filter((n) => n !== ctx.panel)) };
  };
  const box = textbox({
    id,
    label: t(labelKey, names()),
    value: get(),
    hint: t(hintKey, names()),
    onInput: (v) => setShared(v),
    test: `sentence-${which}`,
  });
  ctx.shared.addEventListener("built", () => {
    box.root.querySelector("label").textContent = t(labelKey, names());
    box.root.querySelector(".hint").textContent = t(hintKey, names());
  });
  const seed = button({ text: t("ui.seed"), cls: "btn btn-small", onClick: () => {
    box.input.value = SEED;
    setShared(SEED);
  } });
  const msg = message();
  const root = h("div", { class: "sentence-row" }, box.root, h("div", { class: "sentence-tools" }, seed, ...tools), msg.root);
  ctx.shared.addEventListener(which, () => {
    box.set(get());
    onChange();
  });
  return { root, msg, get };
}

/**
 * A "Try this" box whose text follows the shared sentence (`which` = "words" | "model"):
 * `set(text, offerSeed)` shows `text` and, when `offerSeed`, a "Back to the lecture's sentence"
 * button right inside the box, for instructions that only hold on the lecture's sentence.
 */
export function liveTry(ctx, which, test) {
  const text = h("span", { class: "try-text" });
  const back = button({
    text: t("ui.seed"),
    cls: "btn btn-small try-seed",
    test,
    onClick: () => (which === "words" ? ctx.shared.setWords(SEED) : ctx.shared.setModel(SEED)),
  });
  back.hidden = true;
  const root = h("p", { class: "try" }, h("strong", { text: t("ui.try") }), " ", text, " ", back);
  return {
    root,
    set(s, offerSeed = false) {
      if (text.textContent !== s) text.textContent = s;
      back.hidden = !offerSeed;
    },
  };
}

/** Whether the shared sentence `which` is the lecture's. */
export function isSeed(ctx, which) {
  return (which === "words" ? ctx.shared.words : ctx.shared.model).trim() === SEED;
}

/**
 * Show what `wordVectors` said about the shared sentence under its box (`sent.msg`): an error
 * (and a panic handed to the page's recovery) or a warning. Returns whether the vectors are usable.
 */
export function showVectorStatus(ctx, sent, wv) {
  if (wv.error) {
    sent.msg.show("error", wv.error);
    if (wv.panic) ctx.onEngineError(wv.panic);
    return false;
  }
  sent.msg.show(wv.warning ? "warn" : "", wv.warning);
  return true;
}

/**
 * Translate `text` with the lab's run options `options` (and `extra`, see engine.translate):
 * a missing translator or an engine error goes to `msg` (and the page's recovery), empty text,
 * unknown or cut words to `sent.msg`. Returns the result, or null when there is none.
 */
export function translateWithNotes(ctx, engine, sent, msg, text, options = {}, extra = undefined) {
  if (!engine.hasLab) {
    msg.show("warn", t("err.lab", { msg: engine.errors.lab || "?" }));
    return null;
  }
  if (!text.trim()) {
    sent.msg.show("error", t("err.empty"));
    return null;
  }
  let res;
  try {
    res = engine.translateText(text, options, extra);
  } catch (e) {
    engineError(ctx, msg, e);
    return null;
  }
  msg.clear();
  const { unknown, tokens, dropped } = res.src;
  const notes = [
    unknown.length ? t("warn.unk", { words: unknown.map((i) => tokens[i]).join(", ") }) : "",
    dropped ? t("warn.dropped", { ...figures(engine), n: dropped }) : "",
  ].filter(Boolean);
  sent.msg.show(notes.length ? "warn" : "", notes.join(" "));
  return res;
}
