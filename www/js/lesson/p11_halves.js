// Panel 11, the finale: BERT and GPT, one half each. The seed article ends on the split of panel
// 9's two stacks: the encoder sees the whole sentence (no mask), the decoder only what came
// before (the causal mask); BERT keeps only the encoder, GPT only the decoder. Here one sentence
// (this panel's own) goes through both halves side by side:
//   - an encoder-only model: the translator's own encoder (the lesson has it already) until the
//     reader loads MiniLM (all-MiniLM-L6-v2, pretrained; on a button that says its size first,
//     with a progress bar while it downloads);
//   - the decoder-only Tiny GPT (trained here), downloaded when the panel comes near the screen
//     (or on its button, and again after a failure).
// Each half shows one layer/head's attention map (a heat table; masked cells hatched), how much a
// chosen word takes from the words before and after it, and then what the half is for: the
// encoder's view of both sides of that word (understanding), the GPT's five most probable next
// tokens for the sentence so far, with the engine's probabilities (generating). Every number is
// the engine's (the maps' weights, sums of them, trace.decoder.probs).
// The extra engines live in this module, not in the panel: a language switch rebuilds every
// panel and keeps them. With ?debug=1 they are window.attnscope.halves.{gpt, bert} (tests).

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { Engine } from "../engine.js";
import { siteModel, modelSize, download, canDownload, mb } from "../models.js";
import { probBars } from "../decoding.js";
import { tokenText } from "../panels/prediction.js";
import { h, fmt, textbox, button, readouts, HeatTable, message, newId, tryThis } from "./ui.js";
import { SEED, labels, translateWithNotes, positionSelect, panelOf, controls } from "./shared.js";

/** How many next tokens the generating half lists. */
const TOP = 5;

/**
 * A site model this panel downloads (models.js): its engine once loaded, the download under way
 * and how far it is, or why it failed; its file's size (models/sizes.json) once asked.
 * @typedef {object} Extra
 * @property {import("../models.js").SiteModel} m
 * @property {Engine | null} engine
 * @property {Promise<void> | null} loading
 * @property {number} progress   0..1 while loading
 * @property {string | null} error
 * @property {number | null | undefined} size   undefined until asked, null when unknown
 * @property {{text: string, engine: Engine, out: {src: import("../engine.js").Source, trace: import("../engine.js").Trace}} | null} last
 */

/** @param {string} id @returns {Extra} */
const extraOf = (id) => ({ m: siteModel(id), engine: null, loading: null, progress: 0, error: null, size: undefined, last: null });
const extra = { gpt: extraOf("builtin:tiny-gpt"), bert: extraOf("builtin:minilm") };
/** Whether the encoder half shows MiniLM (once loaded) or the translator's encoder. */
let showBert = true;

/** The panel on screen: `progress()` redraws the loaders, `render()` everything (a rebuild replaces them). */
let hooks = { progress: () => {}, render: () => {} };

if (typeof location !== "undefined" && new URLSearchParams(location.search).has("debug")) {
  const w = /** @type {any} */ (window);
  w.attnscope = Object.assign(w.attnscope || {}, {
    halves: {
      get gpt() {
        return extra.gpt.engine;
      },
      get bert() {
        return extra.bert.engine;
      },
    },
  });
}

/** Download a site model and build its own engine (they share the compiled module). @param {Extra} x */
function load(x) {
  if (x.engine || x.loading || !canDownload()) return;
  x.error = null;
  x.progress = 0;
  x.loading = (async () => {
    try {
      const bytes = await download(x.m, (f) => {
        x.progress = f;
        hooks.progress();
      });
      const engine = new Engine({ bytes, name: x.m.id });
      await engine.load();
      x.engine = engine;
    } catch (e) {
      x.error = e?.message || String(e);
    } finally {
      x.loading = null;
      hooks.render();
    }
  })();
  hooks.progress();
}

/** Ask for a site model's size once (the built site's models/sizes.json). @param {Extra} x */
function askSize(x) {
  if (x.size !== undefined) return;
  x.size = null;
  modelSize(x.m).then((n) => {
    x.size = n;
    hooks.progress();
  });
}

/**
 * One forward pass of an extra model over `text` (its tokens and its trace), kept while the text
 * stays the same. @param {Extra} x @param {string} text
 */
function runExtra(x, text) {
  if (x.last && x.last.text === text && x.last.engine === x.engine) return x.last.out;
  const src = x.engine.setSource(text);
  const out = { src, trace: x.engine.run().trace };
  x.last = { text, engine: x.engine, out };
  return out;
}

/**
 * Where row `i` of an attention map (n × n, row-major) puts its weight: on the keys before i,
 * on i itself, on the keys after i, and the heaviest key on each side (-1 when that side is empty).
 * @param {import("../engine.js").Matrix} W @param {number} i
 */
export function sides(W, i) {
  const n = W.cols;
  const r = W.data.subarray(i * n, (i + 1) * n);
  let before = 0;
  let after = 0;
  let bj = -1;
  let aj = -1;
  for (let j = 0; j < n; j++) {
    if (j < i) {
      before += r[j];
      if (bj < 0 || r[j] > r[bj]) bj = j;
    } else if (j > i) {
      after += r[j];
      if (aj < 0 || r[j] > r[aj]) aj = j;
    }
  }
  return { before, self: r[i], after, bj, aj, bw: bj < 0 ? 0 : r[bj], aw: aj < 0 ? 0 : r[aj] };
}

/** The sum of a map's weights above the diagonal: what the rows give to later positions. @param {import("../engine.js").Matrix} W */
function aboveDiagonal(W) {
  let sum = 0;
  for (let i = 0; i < W.rows; i++) sum += sides(W, i).after;
  return sum;
}

/**
 * The word a half follows by default: “she” where the sentence has it (the lecture's pronoun),
 * else the last token that is a word (not punctuation or [SEP]), else the last token.
 * @param {string[]} tokens
 */
function startWord(tokens) {
  const i = tokens.indexOf("she");
  if (i >= 0) return i;
  for (let k = tokens.length - 1; k >= 0; k--) if (/^(##)?[\p{L}\p{N}]/u.test(tokens[k])) return k;
  return tokens.length - 1;
}

/** A string of a size for the buttons: " (23.7 MB)", or "" while unknown. @param {number | null | undefined} n */
const sizeText = (n) => (n ? t("p11.size", { mb: mb(n) }) : "");

/**
 * One half's attention map: its layer, head and followed word (each in the URL under
 * `p11.<key>l`, `p11.<key>h`, `p11.<key>w`), the heat table (a row label picks the word) and the
 * readouts of that word's row. With `auto`, until the reader picks a layer or head, the map shows
 * the head where the followed word puts the most on the words after it.
 * @param {{key: string, test: string, auto?: boolean, onChange: () => void}} o
 */
function mapView({ key, test, auto = false, onChange }) {
  const id = newId(`p11-${key}`);
  let layer = state.int(`p11.${key}l`, 1, 1, 64) - 1;
  let head = state.int(`p11.${key}h`, 1, 1, 64) - 1;
  let word = state.int(`p11.${key}w`, 0, 0, 999) - 1; // -1: the default word
  auto = auto && !state.has(`p11.${key}l`) && !state.has(`p11.${key}h`);
  let shownTokens = null; // the tokens last drawn: another model or sentence follows its default word
  const pickLayer = (i) => { layer = i; auto = false; onChange(); };
  const pickHead = (i) => { head = i; auto = false; onChange(); };
  const layerSel = positionSelect({ id: `${id}-layer`, label: t("ui.layer"), key: `p11.${key}l`, def: 1, onChange: pickLayer, test: `${test}-layer` });
  const headSel = positionSelect({ id: `${id}-head`, label: t("ui.head"), key: `p11.${key}h`, def: 1, onChange: pickHead, test: `${test}-head` });
  const wordSel = positionSelect({ id: `${id}-word`, label: t("p11.word"), key: `p11.${key}w`, def: null, onChange: (i) => { word = i; onChange(); }, test: `${test}-word` });
  const heat = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p11.rowHeader"), compact: true, test, onRow: (r) => wordSel.pick(r) });
  const nums = readouts([
    { key: "above", label: t("p11.rAbove"), test: `${test}-above` },
    { key: "before", label: "", test: `${test}-before` },
    { key: "self", label: "", test: `${test}-self` },
    { key: "after", label: "", test: `${test}-after` },
    { key: "ahead", label: "", test: `${test}-ahead` },
  ]);
  const autoNote = h("p", { class: "note", "data-test": `${test}-auto` });
  // filled on the first drawing: a model still downloading has no empty table on the page
  const body = h("div", { class: "half-map" });
  const parts = [controls(layerSel.root, headSel.root, wordSel.root), autoNote, heat.root, nums.root];
  return {
    root: body,
    /** Show layer `l`, head `hd` (0-based), as choosing them does. @param {number} l @param {number} hd */
    pick(l, hd) {
      state.put(`p11.${key}l`, l + 1, 1);
      state.put(`p11.${key}h`, hd + 1, 1);
      layer = l;
      head = hd;
      auto = false;
      onChange();
    },
    /** The sentence changed: follow the default word again. */
    resetWord() {
      word = -1;
      state.put(`p11.${key}w`, null, null);
    },
    /**
     * Draw layer/head of `layers` (one self-attention per layer) over `tokens`; `label(layer,
     * head)` names the map. Returns the followed word's row: {name, ...sides}.
     * @param {{self_attn: {sublayer: import("../engine.js").AttentionTrace}}[]} layers
     * @param {string[]} tokens @param {(layer: number, head: number) => string} label
     */
    show(layers, tokens, label) {
      if (!body.firstChild) body.append(...parts);
      const L = layers.length;
      const H = layers[0].self_attn.sublayer.heads.length;
      const names = labels(tokens);
      const tokenKey = tokens.join("\u0001");
      if (shownTokens !== null && shownTokens !== tokenKey) {
        word = -1;
        state.put(`p11.${key}w`, null, null);
      }
      shownTokens = tokenKey;
      if (word < 0 || word >= names.length) word = startWord(tokens);
      wordSel.setTokens(names, word);
      // the head, of all layers, where the followed word puts the most on the words after it
      let best = { layer: 0, head: 0, after: -1 };
      layers.forEach((l, li) =>
        l.self_attn.sublayer.heads.forEach((hd, hi) => {
          const after = sides(hd.weights, word).after;
          if (after > best.after) best = { layer: li, head: hi, after };
        }),
      );
      if (auto) {
        layer = best.layer;
        head = best.head;
      }
      layer = Math.min(layer, L - 1);
      head = Math.min(head, H - 1);
      layerSel.setCount(L, layer);
      headSel.setCount(H, head);
      const hd = layers[layer].self_attn.sublayer.heads[head];
      const W = hd.weights; // (n, n): query rows, key columns
      heat.update({
        label: label(layer + 1, head + 1),
        rows: names,
        cols: names,
        data: W.data,
        nr: W.rows,
        nc: W.cols,
        selected: word,
        masked: Array.from(hd.logits.data, (v) => v === -Infinity),
      });
      const above = aboveDiagonal(W);
      nums.set("above", fmt(above, 6), above);
      const sd = sides(W, word);
      const w = names[word];
      nums.label("before", t("p11.rBefore", { w }));
      nums.label("self", t("p11.rSelf", { w }));
      nums.label("after", t("p11.rAfter", { w }));
      nums.label("ahead", t("p11.rAhead", { w }));
      nums.set("before", fmt(sd.before, 3), sd.before);
      nums.set("self", fmt(sd.self, 3), sd.self);
      nums.set("after", fmt(sd.after, 3), sd.after);
      nums.set("ahead", best.after > 0 ? t("p11.headAt", { layer: best.layer + 1, head: best.head + 1, v: fmt(best.after, 3) }) : t("p11.noAhead"), best.after);
      autoNote.hidden = !auto;
      autoNote.textContent = auto ? t("p11.autoHead", { w }) : "";
      return { name: w, names, layer: layer + 1, head: head + 1, best, ...sd };
    },
  };
}

/**
 * A loader for one site model: its button (with the size), a progress bar while it downloads, a
 * line that says what is happening or what went wrong.
 * @param {{x: Extra, test: string, name: string}} o
 */
function loaderView({ x, test, name }) {
  const btn = button({ text: t("p11.load", { name }), cls: "btn btn-small", test: `${test}-load`, onClick: () => load(x) });
  const bar = h("progress", { max: 1, value: 0, "aria-label": t("p11.progress", { name }), "data-test": `${test}-progress` });
  const line = h("p", { class: "note loader-status", role: "status", "data-test": `${test}-status` });
  const root = h("div", { class: "loader" }, btn, bar, line);
  return {
    root,
    /** @param {{idle: string, button: string}} text  what the line says before the download, and the button */
    update({ idle, button: label }) {
      const busy = !!x.loading;
      root.hidden = !!x.engine;
      btn.hidden = busy;
      btn.textContent = label;
      bar.hidden = !busy;
      bar.value = x.progress;
      line.textContent = busy ? t("p11.downloading", { name, size: sizeText(x.size) }) : x.error ? t("p11.loadError", { name, msg: x.error }) : idle;
      line.classList.toggle("loader-error", !busy && !!x.error);
    },
  };
}

export function panel11(ctx) {
  const { engine } = ctx;
  const id = newId("p11");
  let text = state.str("p11.s", SEED);
  const site = canDownload();

  // --- the sentence, this panel's own
  const box = textbox({
    id: `${id}-s`,
    label: t("p11.box"),
    value: text,
    hint: t("p11.boxHint"),
    onInput: (v) => setText(v),
    test: "p11-sentence",
  });
  const seed = button({ text: t("ui.seed"), cls: "btn btn-small", onClick: () => setText(SEED) });
  const sentMsg = message();
  function setText(v) {
    if (v === text) return;
    text = v;
    box.input.value = v;
    state.put("p11.s", v, SEED);
    encView.resetWord();
    decView.resetWord();
    render();
  }

  // --- the encoder half: the translator's encoder, or MiniLM once loaded
  const encAbout = h("p", { class: "note", "data-test": "p11-enc-about" });
  const encMsg = message();
  const encWarn = message();
  const encView = mapView({ key: "e", test: "p11-enc-map", auto: true, onChange: () => render() });
  const encLoader = loaderView({ x: extra.bert, test: "p11-bert", name: t("p11.miniLM") });
  const whichSel = h("select", { id: `${id}-which`, "data-test": "p11-enc-model" });
  whichSel.addEventListener("change", () => {
    showBert = whichSel.value === "bert";
    render();
  });
  const whichRow = controls(h("div", { class: "ctl ctl-select" }, h("label", { for: whichSel.id, text: t("p11.which") }), whichSel));

  // --- the decoder half: Tiny GPT
  const decAbout = h("p", { class: "note", "data-test": "p11-dec-about" });
  const decMsg = message();
  const decWarn = message();
  const decView = mapView({ key: "d", test: "p11-dec-map", onChange: () => render() });
  const decLoader = loaderView({ x: extra.gpt, test: "p11-gpt", name: t("p11.tinyGpt") });

  // --- what each half is for
  const gather = h("p", { class: "explain", "data-test": "p11-gather" });
  let ahead = { layer: 0, head: 0 };
  const aheadBtn = button({ text: t("p11.showAheadAny"), cls: "btn btn-small", test: "p11-show-ahead", onClick: () => encView.pick(ahead.layer, ahead.head) });
  const nextTitle = h("p", { class: "dec-sub", "data-test": "p11-next-title" });
  const nextList = h("ol", { class: "dec-bars", "data-test": "p11-next" });
  const appendBtn = button({ text: t("p11.appendTop"), cls: "btn btn-small", test: "p11-append", onClick: () => appendNext() });
  const nextNote = h("p", { class: "note", "data-test": "p11-next-note" });
  let next = /** @type {{token: string, prob: number}[]} */ ([]);

  function appendNext() {
    if (!next.length) return;
    setText(text.replace(/\s+$/u, "") + tokenText(next[0].token));
  }

  function showLoaders() {
    encLoader.update({ idle: t("p11.bertIdle"), button: t("p11.loadBert", { size: sizeText(extra.bert.size) }) });
    decLoader.update({ idle: t("p11.gptIdle"), button: t(extra.gpt.error ? "p11.retry" : "p11.loadGpt", { size: sizeText(extra.gpt.size) }) });
  }

  /** An extra engine stopped on an internal error: say so, restart it, draw again. @param {Extra} x @param {any} e @param {ReturnType<typeof message>} msg */
  function extraError(x, e, msg) {
    msg.show("error", e instanceof WebAssembly.RuntimeError ? t("err.panic") : t("err.engine", { msg: e?.message || String(e) }));
    if (x.engine?.broken) x.engine.recover().then(() => hooks.render());
  }

  function renderEncoder() {
    const bert = extra.bert.engine;
    whichRow.hidden = !bert;
    encView.root.hidden = true;
    if (bert && whichSel.options.length !== 2) {
      whichSel.replaceChildren(h("option", { value: "translator", text: t("p11.optTranslator") }), h("option", { value: "bert", text: t("p11.optBert") }));
    }
    const useBert = !!bert && showBert;
    whichSel.value = useBert ? "bert" : "translator";
    let tokens;
    let layers;
    let model;
    if (useBert) {
      const i = bert.info;
      encAbout.textContent = t("p11.encBert", { layers: i.encoderLayers, heads: i.nhead, vocab: i.srcVocab.length });
      try {
        const out = runExtra(extra.bert, text);
        tokens = out.src.tokens;
        layers = out.trace.encoder.layers;
        encWarn.show(out.src.dropped ? "warn" : "", out.src.dropped ? t("p11.dropped", { name: t("p11.miniLM"), n: out.src.dropped }) : "");
      } catch (e) {
        extraError(extra.bert, e, encMsg);
        return null;
      }
      encMsg.clear();
      model = t("p11.miniLM");
    } else {
      const i = engine.info;
      encAbout.textContent = i ? t("p11.encTranslator", { layers: i.encoderLayers, heads: i.nhead }) : "";
      const res = translateWithNotes(ctx, engine, { msg: encWarn }, encMsg, text, {});
      if (!res) return null;
      tokens = res.src.tokens;
      layers = res.tr.trace.encoder.layers;
      model = t("p11.modelTranslator");
    }
    encView.root.hidden = false;
    return { model, ...encView.show(layers, tokens, (layer, head) => t("p11.encMap", { model, layer, head })) };
  }

  function renderDecoder() {
    const gpt = extra.gpt.engine;
    decView.root.hidden = !gpt;
    if (!gpt) {
      decAbout.textContent = t(site ? "p11.decAboutWaiting" : "p11.noDownload");
      return null;
    }
    const i = gpt.info;
    decAbout.textContent = t("p11.decAbout", { layers: i.decoderLayers, heads: i.nhead, vocab: i.srcVocab.length, max: i.maxLen });
    let out;
    try {
      out = runExtra(extra.gpt, text);
    } catch (e) {
      extraError(extra.gpt, e, decMsg);
      return null;
    }
    decMsg.clear();
    const { src, trace } = out;
    const notes = [
      src.unknown.length ? t("p11.unknown", { n: src.unknown.length }) : "",
      src.dropped ? t("p11.dropped", { name: t("p11.tinyGpt"), n: src.dropped }) : "",
    ].filter(Boolean);
    decWarn.show(notes.length ? "warn" : "", notes.join(" "));
    const row = decView.show(trace.decoder.layers, src.tokens, (layer, head) => t("p11.decMap", { layer, head }));
    return { src, trace, row };
  }

  function renderGather(enc) {
    if (!enc) {
      gather.textContent = "";
      aheadBtn.hidden = true;
      return;
    }
    const p = { model: enc.model, layer: enc.layer, head: enc.head, w: enc.name, b: enc.names[enc.bj], a: enc.names[enc.aj], wb: fmt(enc.bw, 2), wa: fmt(enc.aw, 2) };
    const key = enc.bj >= 0 && enc.aj >= 0 ? "p11.gatherBoth" : enc.bj >= 0 ? "p11.gatherBefore" : enc.aj >= 0 ? "p11.gatherAfter" : "p11.gatherAlone";
    gather.textContent = t(key, p);
    gather.dataset.before = String(enc.bj);
    gather.dataset.after = String(enc.aj);
    ahead = enc.best;
    aheadBtn.hidden = enc.best.after <= 0 || (enc.best.layer + 1 === enc.layer && enc.best.head + 1 === enc.head);
    aheadBtn.textContent = t("p11.showAhead", { w: enc.name, layer: enc.best.layer + 1, head: enc.best.head + 1 });
  }

  function renderNext(dec) {
    if (!dec) {
      next = [];
      nextTitle.textContent = "";
      nextList.replaceChildren();
      appendBtn.hidden = true;
      nextNote.textContent = t(site ? "p11.nextWaiting" : "p11.noDownload");
      return;
    }
    const gpt = extra.gpt.engine;
    const vocab = gpt.info.srcVocab;
    const P = dec.trace.decoder.probs; // (T, V): the next token's probabilities after each position
    const last = P.data.subarray((P.rows - 1) * P.cols, P.rows * P.cols);
    const order = Array.from(last.keys()).sort((a, b) => last[b] - last[a]).slice(0, TOP);
    next = order.map((k) => ({ token: vocab[k], prob: last[k] }));
    const after = dec.src.tokens[dec.src.tokens.length - 1] ?? "";
    nextTitle.textContent = t("p11.nextTitle", { tok: after, V: vocab.length });
    nextList.setAttribute("aria-label", t("p11.nextTitle", { tok: after, V: vocab.length }));
    const items = probBars(next, next[0]?.token ?? null);
    items.forEach((li, k) => {
      li.dataset.token = next[k].token;
      li.dataset.value = String(next[k].prob);
    });
    nextList.replaceChildren(...items);
    // a special token is not text to add: the end of the text ([SEP] here) is said as such
    const specials = gpt.file?.config.specials ?? {};
    const top = next[0]?.token;
    appendBtn.hidden = !top || Object.values(specials).includes(top);
    appendBtn.textContent = top ? t("p11.append", { tok: top }) : t("p11.appendTop");
    nextNote.textContent = top && top === specials.eos ? t("p11.nextEnd", { tok: top }) : "";
  }

  function render() {
    box.set(text);
    showLoaders();
    if (!text.trim()) {
      sentMsg.show("error", t("err.empty"));
      return;
    }
    sentMsg.clear();
    labLink.href = ctx.labHref(text);
    const enc = renderEncoder();
    const dec = renderDecoder();
    renderGather(enc);
    renderNext(dec);
  }

  hooks = { progress: showLoaders, render };
  if (site) {
    askSize(extra.bert);
    askSize(extra.gpt);
  }

  const encSection = h(
    "section",
    { class: "half", "aria-labelledby": `${id}-enc-h`, "data-test": "p11-enc" },
    h("h3", { id: `${id}-enc-h`, text: t("p11.encTitle") }),
    encAbout,
    site ? encLoader.root : h("p", { class: "note", text: t("p11.noBert") }),
    whichRow,
    encMsg.root,
    encWarn.root,
    encView.root,
  );
  const decSection = h(
    "section",
    { class: "half", "aria-labelledby": `${id}-dec-h`, "data-test": "p11-dec" },
    h("h3", { id: `${id}-dec-h`, text: t("p11.decTitle") }),
    decAbout,
    site ? decLoader.root : null,
    decMsg.root,
    decWarn.root,
    decView.root,
  );
  const understand = h(
    "section",
    { class: "half", "aria-labelledby": `${id}-u-h`, "data-test": "p11-understand" },
    h("h4", { id: `${id}-u-h`, text: t("p11.understandTitle") }),
    h("p", { text: t("p11.understand") }),
    gather,
    controls(aheadBtn),
  );
  const generate = h(
    "section",
    { class: "half", "aria-labelledby": `${id}-g-h`, "data-test": "p11-generate" },
    h("h4", { id: `${id}-g-h`, text: t("p11.generateTitle") }),
    h("p", { text: t("p11.generate") }),
    nextTitle,
    nextList,
    nextNote,
    controls(appendBtn),
  );
  const labLink = h("a", { class: "btn btn-primary", href: ctx.labHref(text), "data-test": "p11-lab-link", text: t("p11.openLab") });

  const panel = panelOf(
    ctx,
    "p11",
    h("p", { text: t("p11.how") }),
    h("div", { class: "sentence-row" }, box.root, h("div", { class: "sentence-tools" }, seed), sentMsg.root),
    tryThis(t("p11.try")),
    h("div", { class: "halves", "data-test": "p11-maps" }, encSection, decSection),
    h("h3", { text: t("p11.forTitle") }),
    h("div", { class: "halves" }, understand, generate),
    h("p", { text: t("p11.outro") }),
    h("p", { class: "lab-cta" }, labLink),
  );
  // text first: the maps and numbers once the lesson's engine has loaded (main.js ctx.ready)
  showLoaders();
  ctx.ready(render);

  // Tiny GPT is small (about the translator's size): it downloads as the reader nears the panel,
  // so the finale runs when they arrive; nobody who stops earlier pays for it.
  if (site && !extra.gpt.engine) {
    const watch = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        watch.disconnect();
        load(extra.gpt);
      },
      { rootMargin: "600px 0px" },
    );
    watch.observe(panel.body);
  }
  return panel;
}
