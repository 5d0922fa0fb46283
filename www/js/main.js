// The page: wires the state, the engine and the views together.
//
// Flow: a change of sentence or option -> engine.setSource/setOptions + translate() -> render
// every view. A drag on a W_Q/W_K cell -> the new block is queued and one requestAnimationFrame
// callback per frame sends it (setBlock), runs the engine once (run(), or runEncoder() when an
// encoder head is edited: nothing on screen needs the decoder then) and repaints the heatmap,
// the head grid, the weighted average and the edited grid; letting go re-translates, which
// brings the translation, the decoding steps and the tables up to date.
// What each view shows and the engine steps behind it live in core.js, shared with the
// embeddable panels (panel.js: ?embed=1 and <attnscope-panel>); sharing and downloads are in
// share.js and export.js; the W_Q/W_K edits travel in the URL as edits.js encodes them.

import { t, setLang, getLang, detectLang, applyI18n } from "./i18n.js";
import * as S from "./state.js";
import { Engine, EngineBroken } from "./engine.js";
import { ASSET, pageHref } from "./runtime.js";
import { registerServiceWorker } from "./offline.js";
import { Heatmap, HeadGrid } from "./heatmap.js";
import { WeightedAverage } from "./weighted_average.js";
import { Decoding, copyTip } from "./decoding.js";
import { QKEditor } from "./qk_editor.js";
import { paintLegend } from "./colors.js";
import { el, fmt, setText, setLiveText } from "./dom.js";
import * as C from "./core.js";
import { encodeEdits, applyEdits } from "./edits.js";
import { exportRow, saveMap } from "./export.js";
import { setupShare, linkFor } from "./share.js";
import { startEmbed } from "./embed.js";
import { SentenceBox } from "./sentence_box.js";
import { Suggestions, isWord } from "./suggest.js";
import { EXAMPLES, exampleLabel } from "./examples.js";

const params = new URLSearchParams(location.search);
const BENCH = params.has("bench");

const $ = (id) => document.getElementById(id);

let state = S.fromQuery(location.search);
let info = null;
let engine = null;
/** The current run: {src, tr (translate() result), trace, decoderTokens}. */
let cur = null;
/** The word-order pair: [{sentence, tokens, trace}, ...] or null. */
let pair = null;
/** The last sentence the engine accepted (the lab's source whenever `cur` is set). */
let lastGood = null;
/** The sentence box's inline marks of unknown words (sentence_box.js). */
let box = null;
/** Neighbours of unknown words from the GloVe vectors, loaded on first need (suggest.js). */
let suggestions = null;

// ---------------------------------------------------------------------------------------------
// Views

const views = {};

function buildViews() {
  views.main = new Heatmap($("heatmap-main"), { onSelectRow: (r) => select({ query: r }) });
  views.grid = new HeadGrid($("headgrid"), { onSelect: (layer, head) => select({ layer, head }) });
  views.wavg = new WeightedAverage($("wavg"), { onSelectQuery: (q) => select({ query: q }) });
  views.qk = new QKEditor($("qk"), {
    onEdit: onBlockEdit,
    onIdentity: applyIdentity,
    onReset: resetEdits,
    onInput: benchInput,
  });
  views.dec = new Decoding($("decoding"), { onStep: (k) => select({ step: k }) });
  views.pairA = new Heatmap($("order-a"), { maxCell: 30 });
  views.pairB = new Heatmap($("order-b"), { maxCell: 30 });
  views.exportRow = exportRow($("export-main"), exportMain);
  box = new SentenceBox({
    textarea: $("sentence"),
    marks: $("sentence-marks"),
    list: $("sentence-unknown"),
    summary: $("sentence-unknown-summary"),
    tokenize: (text) => {
      if (!engine || engine.broken || !info) return null;
      try {
        return engine.tokenize(text);
      } catch {
        return null; // the translation reports the problem
      }
    },
    suggestions: () => suggestions,
    onReplace: (text) => {
      clearTimeout(typingTimer);
      setState({ sentence: text });
      retranslate();
    },
    t,
  });
}

/** Download the main heatmap (export.js); returns the file name. */
function exportMain(format) {
  if (!cur) return null;
  syncDecoder();
  const map = { ...C.exportMap(cur, state, t), link: linkFor(state) };
  const png = { canvas: views.main.canvas, legendCanvas: $("legend-main"), title: $("heatmap-title").textContent, legendText: $("legend-text").textContent };
  return saveMap(format, map, { png, corner: t("table.queryKey"), legend: t("export.legend") });
}

// ---------------------------------------------------------------------------------------------
// Messages

function showError(e) {
  const msg = typeof e === "string" ? e : e instanceof EngineBroken ? t("error.broken") : t("error.engine", { message: e?.message || String(e) });
  if (e instanceof WebAssembly.RuntimeError) $("banner-text").textContent = t("error.panic", { message: e.message });
  else $("banner-text").textContent = msg;
  $("banner").hidden = false;
}

function clearError() {
  $("banner").hidden = true;
}

function setStatus(text) {
  $("status").textContent = text;
}

/** Run `fn`; on an error show it and return `undefined`. */
function guard(fn) {
  try {
    return fn();
  } catch (e) {
    showError(e);
    return undefined;
  }
}

/** Before acting on input: a panicked engine is rebuilt (and its state replayed). */
async function ensureEngine() {
  if (!engine) return false;
  if (!engine.broken) return true;
  setStatus(t("status.restart"));
  try {
    await engine.recover();
    setStatus("");
    return true;
  } catch (e) {
    showError(e);
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// State and URL

let urlTimer = 0;
function syncURL() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const q = S.toQuery(state, location.search);
    try {
      history.replaceState(null, "", `${location.pathname}${q}${location.hash}`);
    } catch {
      /* an opaque origin (sandboxed frame) may refuse: the page works the same */
    }
  }, 150);
}

function setState(patch) {
  state = S.update(state, patch);
  if (info) state = S.clampToModel(state, info);
  syncURL();
}

// what the views show comes from core.js (shared with the embeddable panels)
const heads = () => C.headsOf(cur, state, info);
const layersOf = (stack) => C.layersOf(info, stack);
const queryRow = (nrows) => C.queryRow(state, nrows);

// ---------------------------------------------------------------------------------------------
// Rendering

function renderSentence() {
  const ta = $("sentence");
  if (ta.value !== state.sentence) ta.value = state.sentence;
  box.update();
  if (!cur) return;
  const { src, tr } = cur;
  const unknown = new Set(src.unknown);
  const chips = src.tokens.map((tok, i) => {
    const c = el("span", unknown.has(i) ? "chip chip-unknown" : "chip", {}, tok);
    if (unknown.has(i)) c.title = t("notice.unknownChip");
    return c;
  });
  if (src.dropped > 0) chips.push(el("span", "chip chip-dropped", {}, t("notice.droppedChip", { n: src.dropped })));
  $("tokens").replaceChildren(...chips);

  const un = $("notice-unknown");
  if (src.unknown.length) {
    const words = [...new Set(src.unknown.map((i) => src.tokens[i]))].map((w) => `“${w}”`).join(", ");
    un.textContent = t("notice.unknown", { words, n: src.unknown.length });
    un.hidden = false;
  } else {
    un.hidden = true;
  }
  const tn = $("notice-trunc");
  if (src.dropped > 0) {
    tn.textContent = t("notice.trunc", { max: info.maxLen, n: src.dropped });
    tn.hidden = false;
  } else {
    tn.hidden = true;
  }
  renderTranslation(tr);
  const meta = [t("translation.meta", { n: tr.tokens.length })];
  const copied = copiesOf(tr);
  if (copied.length) meta.push(t("translation.copied", { n: copied.length, words: copied.map((c) => `“${c.word}”`).join(", ") }));
  if (!tr.finished) meta.push(t("translation.unfinished"));
  if (engine && engine.edits.size > 0) meta.push(t("translation.edited"));
  $("translation-meta").textContent = meta.join(" ");
}

/** The copy records of a translation (steps that printed a source word for <unk>), in text order. */
function copiesOf(tr) {
  return tr.steps.flatMap((s, step) => (s.copy ? [{ ...s.copy, step }] : [])).sort((a, b) => a.start - b.start);
}

const copyText = (c) => copyTip(c, t);

/**
 * The translation, with each copied word marked: a focusable span described by
 * "copied from 'sofa' by cross-attention, weight 0.83" (a tooltip on hover and focus).
 */
function renderTranslation(tr) {
  hideCopyTip();
  const out = $("translation");
  const text = tr.text;
  const descs = [];
  const parts = [];
  let at = 0;
  if (!text) {
    out.textContent = t("translation.nothing");
    $("copy-descs").replaceChildren();
    return;
  }
  for (const c of copiesOf(tr)) {
    if (c.start < at || c.end > text.length) continue;
    const id = `copy-desc-${c.step}`;
    descs.push(el("span", "", { id }, copyText(c)));
    parts.push(text.slice(at, c.start), el("span", "copied", { tabindex: 0, lang: "en", "aria-describedby": id, "data-tip": copyText(c) }, text.slice(c.start, c.end)));
    at = c.end;
  }
  parts.push(text.slice(at));
  out.replaceChildren(...parts);
  $("copy-descs").replaceChildren(...descs);
}

function showCopyTip(span) {
  const tip = $("copy-tip");
  tip.textContent = span.dataset.tip;
  tip.hidden = false;
  const wrap = tip.parentElement;
  const left = Math.max(0, Math.min(span.offsetLeft, wrap.clientWidth - tip.offsetWidth));
  tip.style.left = `${left}px`;
  tip.style.top = `${span.offsetTop + span.offsetHeight + 4}px`;
}

function hideCopyTip() {
  $("copy-tip").hidden = true;
}

/** The hint under the box: how to use it, and what the model knows (counted from the model). */
function renderHint() {
  let text = t("sentence.hint");
  if (info) {
    const n = info.srcVocab.filter(isWord).length;
    text += ` ${t("sentence.knows", { n: n.toLocaleString(getLang() === "ko" ? "ko-KR" : "en-US") })}`;
  }
  $("sentence-hint").textContent = text;
}

/** "Try these": one button per example sentence (examples.js). */
function renderExamples() {
  const lang = getLang();
  const preview = $("try-preview");
  const buttons = EXAMPLES.map((ex) => {
    const label = exampleLabel(ex, lang);
    const b = el("button", "btn btn-small", { type: "button", "aria-label": t("examples.button", { label, sentence: ex.text }) }, label);
    b.addEventListener("click", () => {
      clearTimeout(typingTimer);
      setState({ sentence: ex.text, query: null });
      $("sentence").value = ex.text;
      box.render();
      retranslate();
    });
    const show = () => {
      preview.textContent = `“${ex.text}”`;
    };
    b.addEventListener("mouseenter", show);
    b.addEventListener("focus", show);
    return b;
  });
  $("try-list").replaceChildren(...buttons);
}

/** How many W_Q/W_K blocks of the page's link could not be used (a notice when > 0). */
let linkEditsRejected = 0;
function renderLinkNotice() {
  const note = $("notice-link");
  note.hidden = linkEditsRejected === 0;
  if (linkEditsRejected) note.textContent = t("link.badEdits", { n: linkEditsRejected });
}

function renderControls() {
  $("opt-mask").checked = state.causalDecoder;
  $("opt-encmask").checked = state.causalEncoder;
  $("opt-scale").checked = state.scale;
  $("opt-pe").checked = state.positional;
  $("opt-pe-2").checked = state.positional;
  $("opt-tables").checked = state.tables;
  $("peek-note").hidden = state.causalDecoder;
  views.exportRow?.retext(t);
  renderLinkNotice();
  if (!info) return;
  const h = heads();
  const dk = info.dModel / h;
  $("hint-scale").textContent = t("opt.scale.hint", { dk, root: fmt(Math.sqrt(dk), 2).replace(/\.?0+$/, "") });
  $("hint-heads").textContent = t("opt.heads.hint", { trained: info.nhead, d: info.dModel });
  const sel = $("opt-heads");
  const opts = info.headChoices.map((n) => {
    const label = t("opt.heads.option", { h: n, dk: info.dModel / n }) + (n === info.nhead ? ` ${t("opt.heads.trained")}` : "");
    return el("option", "", { value: n }, label);
  });
  sel.replaceChildren(...opts);
  sel.value = String(h);
  $("formula-scale").classList.toggle("off", !state.scale);
  $("formula-mask").hidden = !(state.stack === "decoder_self" ? state.causalDecoder : state.stack === "encoder" ? state.causalEncoder : false);
}

function renderSelectors() {
  for (const r of document.querySelectorAll('input[name="stack"]')) r.checked = r.value === state.stack;
  // the decoder self-attention's name and hint say whether its mask is on
  const open = state.causalDecoder ? "" : ".open";
  document.querySelector('input[name="stack"][value="decoder_self"] + span').textContent = t(`stack.decoder_self${open}`);
  $("stack-about").textContent = t(`stack.${state.stack}${state.stack === "decoder_self" ? open : ""}.about`);
  if (!info) return;
  const fill = (sel, n, value) => {
    if (sel.options.length !== n) sel.replaceChildren(...Array.from({ length: n }, (_, i) => el("option", "", { value: i }, String(i + 1))));
    sel.value = String(value);
  };
  fill($("sel-layer"), layersOf(state.stack), state.layer);
  fill($("sel-head"), heads(), state.head);
  const show = $("sel-show");
  show.replaceChildren(...S.SHOWS.map((s) => el("option", "", { value: s }, t(`show.${s}`))));
  show.value = state.show;
}

function renderLegend() {
  const legend = C.legendOf(cur, state, t);
  paintLegend($("legend-main"), legend.kind, 160, 12);
  $("legend-text").textContent = legend.text;
}

// The lecture's point, found live in the trained model: a pronoun attending to the word it
// refers to. Searched in every encoder head; shown when some head is clearly doing it.
const PRONOUNS = new Set(["she", "he", "it", "they", "her", "him", "them", "his", "its", "their"]);
const FUNCTION_WORDS = new Set(["a", "an", "the", "and", "but", "so", "or", "because", "'s", "n't", "not", "is", "are", "was", "were", "be", "to", "of", "in", "at", "with", "on", "my", "your", "our"]);

function renderTryThis() {
  const box = $("attn-try");
  box.hidden = true;
  if (!cur || state.stack !== "encoder") return;
  const toks = cur.src.tokens;
  let best = null;
  toks.forEach((pron, i) => {
    if (!PRONOUNS.has(pron)) return;
    cur.trace.encoder.layers.forEach((l, li) =>
      l.self_attn.sublayer.heads.forEach((h, hi) => {
        for (let j = 0; j < i; j++) {
          const w = toks[j];
          if (PRONOUNS.has(w) || FUNCTION_WORDS.has(w) || !/^\p{L}/u.test(w)) continue;
          const v = h.weights.data[i * h.weights.cols + j];
          if (v >= 0.5 && (!best || v > best.v)) best = { v, i, j, layer: li, head: hi };
        }
      }),
    );
  });
  if (!best) return;
  if (best.layer === state.layer && best.head === state.head && queryRow(toks.length) === best.i) return;
  $("attn-try-text").textContent = t("try.pronoun", { layer: best.layer + 1, head: best.head + 1, pron: toks[best.i], word: toks[best.j], p: Math.round(best.v * 100) });
  const btn = $("attn-try-btn");
  btn.textContent = t("try.show");
  btn.onclick = () => select({ layer: best.layer, head: best.head, query: best.i });
  box.hidden = false;
}

function renderAttention(live) {
  if (!cur) return;
  const d = C.heatmapData(cur, state, t);
  setText($("heatmap-title"), C.heatmapTitle(state, d.label, t));
  views.main.setData(d, live);
  views.grid.setData(C.gridData(cur, state, info), live);
  setLiveText($("attn-stats"), C.peakText(d.weights, t), live);
  if (!live) {
    renderLegend();
    renderTryThis();
  }
}

function renderAverage(live) {
  if (!cur) return;
  views.wavg.setData(C.averageData(cur, state, t), live);
}

const qkRange = new Map();

function renderQK() {
  if (!cur || !engine) return;
  const d = guard(() => C.qkData(engine, state, heads(), qkRange, t));
  if (!d) return;
  views.qk.setData(d);
  paintLegend($("legend-qk"), "div", 160, 12);
  $("legend-qk-text").textContent = t("legend.qk", { r: fmt(views.qk.range, 2) });
}

function renderDecoding() {
  if (!cur) return;
  const d = C.decodingData(cur, state, info);
  if (d) views.dec.setData(d);
}

function renderPair() {
  const box = $("order");
  const verdict = $("order-verdict");
  if (!state.pair || !pair) {
    box.hidden = true;
    verdict.hidden = true;
    $("order-most").hidden = true;
    return;
  }
  box.hidden = false;
  const d = C.pairData(pair, state, info, t);
  [views.pairA, views.pairB].forEach((v, i) => {
    $(i === 0 ? "order-a-title" : "order-b-title").textContent = d.maps[i].title;
    v.setData(d.maps[i]);
  });
  verdict.textContent = d.verdict.text;
  verdict.classList.toggle("good", d.verdict.same);
  verdict.hidden = false;
  // where word order matters most: the head whose two maps differ the most
  const most = $("order-most");
  const best = d.best;
  most.hidden = !best;
  if (best) {
    $("order-most-text").textContent = best.text;
    const btn = $("order-most-btn");
    btn.textContent = best.button;
    btn.onclick = () => select({ stack: "encoder", layer: best.layer, head: best.head });
  }
}

function renderTablesToggle() {
  for (const v of [views.main, views.wavg, views.dec, views.pairA, views.pairB]) v.showTable(state.tables);
}

function renderModelInfo() {
  if (!info) return;
  $("model-info").textContent = t("foot.model", {
    d: info.dModel,
    h: info.nhead,
    enc: info.encoderLayers,
    dec: info.decoderLayers,
    ff: info.dimFeedforward,
    max: info.maxLen,
    vocab: info.srcVocab.filter(isWord).length, // the same count as the hint's
  });
}

function renderAll() {
  renderSentence();
  renderControls();
  renderSelectors();
  renderAttention(false);
  renderAverage(false);
  renderQK();
  renderDecoding();
  renderPair();
  renderTablesToggle();
  renderModelInfo();
  document.body.dataset.ready = cur ? "1" : "0";
}

/** After a selection change (stack, layer, head, query, step, show): no engine call. */
function renderSelection() {
  renderControls();
  renderSelectors();
  renderAttention(false);
  renderAverage(false);
  renderQK();
  renderDecoding();
  renderPair();
}

// ---------------------------------------------------------------------------------------------
// Actions

/** After encoder-only frames: run the whole model once so decoder views are current. */
function syncDecoder() {
  if (!guard(() => (C.syncDecoder(engine, cur), true)) && cur) cur.decoderStale = false;
}

function select(patch) {
  if (!cur) return;
  syncDecoder();
  const stackChanged = patch.stack !== undefined && patch.stack !== state.stack;
  setState(patch);
  if (stackChanged && patch.query === undefined) setState({ query: null });
  if (patch.step !== undefined && Object.keys(patch).length === 1) {
    renderDecoding();
    return;
  }
  if (patch.query !== undefined && Object.keys(patch).length === 1) {
    renderAttention(false);
    renderAverage(false);
    return;
  }
  renderSelection();
}

/** Tokenise, translate and render; the word-order pair too when it is open. */
async function retranslate({ keepStep = false } = {}) {
  if (!(await ensureEngine())) return;
  const text = state.sentence;
  const inputNote = $("notice-input");
  if (!text.trim()) {
    inputNote.textContent = cur ? t("input.emptyKeep") : t("input.empty");
    inputNote.hidden = false;
    return;
  }
  inputNote.hidden = true;
  try {
    const out = C.translateRun(engine, text, { withPair: state.pair, lastGood, cur });
    if (out.pair) pair = out.pair;
    lastGood = text;
    cur = out.cur;
    clearError();
  } catch (e) {
    showError(e);
    if (e.pair) pair = e.pair;
    if (e.cur) cur = e.cur;
    // a panic: the engine restarts on the next input; the panels keep the last results
    if (engine.broken || !cur) return;
  }
  if (!keepStep) state = S.update(state, { step: 0 });
  // the W_Q/W_K edits in force go into the URL too
  state = S.update(S.clampToModel(state, info), { edits: encodeEdits(engine, info) });
  syncURL();
  renderAll();
}

let typingTimer = 0;
function onSentenceInput() {
  setState({ sentence: $("sentence").value });
  box.update();
  clearTimeout(typingTimer);
  typingTimer = setTimeout(() => retranslate(), 350);
}

const engineOptions = (patch) => C.engineOptions(patch, info);

async function setOption(patch) {
  if (!(await ensureEngine())) return;
  const ok = guard(() => {
    engine.setOptions(engineOptions(patch));
    return true;
  });
  if (!ok) {
    renderControls();
    return;
  }
  setState(patch);
  await retranslate({ keepStep: true });
}

// Q/K edits: queued by the editor, sent and run once per animation frame.
const pendingBlocks = new Map();
let rafId = 0;
let endTimer = 0;

function onBlockEdit(matrix, values, phase) {
  if (!cur) return;
  pendingBlocks.set(matrix, values);
  if (!rafId) rafId = requestAnimationFrame(frame);
  if (phase === "end") {
    clearTimeout(endTimer);
    endTimer = setTimeout(() => retranslate({ keepStep: true }), 400);
  }
}

function frame() {
  rafId = 0;
  const t0 = performance.now();
  if (!engine || engine.broken) {
    pendingBlocks.clear();
    ensureEngine().then((ok) => ok && retranslate({ keepStep: true }));
    return;
  }
  // an encoder edit runs the encoder alone; the decoder catches up (syncDecoder) before
  // anything shows it, and when the drag ends (retranslate)
  const ok = guard(() => (C.runBlocks(engine, cur, state, pendingBlocks), true));
  pendingBlocks.clear();
  const t1 = performance.now();
  views.qk.flush();
  if (!ok) return;
  const t2 = performance.now();
  renderAttention(true);
  const t3 = performance.now();
  renderAverage(true);
  views.qk.setEditCount(engine.edits.size);
  if (bench) bench.parts.push({ run: t1 - t0, qk: t2 - t1, attention: t3 - t2, average: performance.now() - t3 });
  benchFrame(t0);
}

async function applyIdentity() {
  if (!(await ensureEngine()) || !cur) return;
  const ok = guard(() => (C.setIdentity(engine, state, info, heads()), true));
  if (ok) await retranslate({ keepStep: true });
}

async function resetEdits() {
  if (!(await ensureEngine()) || !cur) return;
  if (guard(() => (engine.resetBlocks(), true))) await retranslate({ keepStep: true });
}

// ---------------------------------------------------------------------------------------------
// Benchmark hooks (?bench): input-to-paint latency of W_Q/W_K drags.

const bench = BENCH ? { pending: [], samples: [], parts: [] } : null;
if (bench) window.__attnscopeBench = bench;

function benchInput(e) {
  if (!bench) return;
  bench.pending.push({ handler: performance.now(), stamp: e.timeStamp });
  performance.mark("attnscope-input");
}

function benchFrame(t0) {
  if (!bench || !bench.pending.length) return;
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

// ---------------------------------------------------------------------------------------------
// Language

function applyLanguage(lang) {
  setLang(lang);
  document.documentElement.lang = lang;
  document.title = t("app.title");
  applyI18n(document);
  for (const b of document.querySelectorAll(".lang-btn")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
  const lesson = document.getElementById("lesson-link");
  if (lesson) lesson.href = pageHref("lesson", { lang });
}

// ---------------------------------------------------------------------------------------------
// Boot

function wire() {
  const ta = $("sentence");
  ta.addEventListener("input", onSentenceInput);
  ta.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      clearTimeout(typingTimer);
      setState({ sentence: ta.value });
      retranslate();
    }
  });
  $("btn-seed").addEventListener("click", () => {
    setState({ sentence: S.SEED_SENTENCE, query: null });
    retranslate();
  });
  const tr = $("translation");
  const copiedOf = (e) => e.target.closest?.(".copied");
  tr.addEventListener("mouseover", (e) => copiedOf(e) && showCopyTip(copiedOf(e)));
  tr.addEventListener("mouseout", (e) => copiedOf(e) && document.activeElement !== copiedOf(e) && hideCopyTip());
  tr.addEventListener("focusin", (e) => copiedOf(e) && showCopyTip(copiedOf(e)));
  tr.addEventListener("focusout", hideCopyTip);
  document.addEventListener("keydown", (e) => e.key === "Escape" && hideCopyTip());
  const tryList = $("try-list");
  const clearPreview = () => {
    if (!tryList.contains(document.activeElement)) $("try-preview").textContent = "";
  };
  tryList.addEventListener("mouseleave", clearPreview);
  tryList.addEventListener("focusout", () => setTimeout(clearPreview, 0));
  $("banner-close").addEventListener("click", clearError);
  setupShare({ getState: () => state, getLang, t });
  // The decoder mask changes nothing the encoder's map shows (the default view): toggled there, it
  // brings decoder self-attention on screen, where the triangle opens. (Every other view shows
  // the change: cross-attention reads the decoder's states; the encoder mask reaches them all.)
  $("opt-mask").addEventListener("change", async (e) => {
    await setOption({ causalDecoder: e.target.checked });
    if (cur && state.stack === "encoder") select({ stack: "decoder_self" });
  });
  $("opt-encmask").addEventListener("change", (e) => setOption({ causalEncoder: e.target.checked }));
  $("opt-scale").addEventListener("change", (e) => setOption({ scale: e.target.checked }));
  $("opt-pe").addEventListener("change", (e) => setOption({ positional: e.target.checked }));
  $("opt-pe-2").addEventListener("change", (e) => setOption({ positional: e.target.checked }));
  $("opt-heads").addEventListener("change", (e) => {
    const h = Number(e.target.value);
    setOption({ heads: h === info.nhead ? null : h });
  });
  $("opt-tables").addEventListener("change", (e) => {
    setState({ tables: e.target.checked });
    renderTablesToggle();
  });
  for (const r of document.querySelectorAll('input[name="stack"]')) {
    r.addEventListener("change", () => r.checked && select({ stack: r.value }));
  }
  $("sel-layer").addEventListener("change", (e) => select({ layer: Number(e.target.value) }));
  $("sel-head").addEventListener("change", (e) => select({ head: Number(e.target.value) }));
  $("sel-show").addEventListener("change", (e) => select({ show: e.target.value }));
  const openPair = async () => {
    setState({ pair: true });
    await retranslate({ keepStep: true });
    $("sec-order").scrollIntoView({ behavior: "smooth", block: "start" });
  };
  $("btn-pair").addEventListener("click", openPair);
  $("btn-pair-2").addEventListener("click", openPair);
  for (const b of document.querySelectorAll(".lang-btn")) {
    b.addEventListener("click", () => {
      setState({ lang: b.dataset.lang });
      applyLanguage(b.dataset.lang);
      renderHint();
      renderExamples();
      box.render();
      if (cur) renderAll();
      else renderControls();
    });
  }
}

async function boot() {
  applyLanguage(state.lang || detectLang(navigator.language));
  buildViews();
  wire();
  renderControls();
  renderSelectors();
  renderHint();
  renderExamples();
  $("sentence").value = state.sentence;
  setStatus(t("status.loading"));
  engine = new Engine(ASSET.model);
  try {
    await engine.load();
    info = engine.info();
    suggestions = new Suggestions(info.srcVocab);
    renderHint();
  } catch (e) {
    setStatus("");
    showError(t("error.load", { url: ASSET.model, message: e.message }));
    document.body.dataset.ready = "error";
    return;
  }
  setStatus("");
  const conf = guard(() => C.configure(engine, state, info, applyEdits));
  if (conf) {
    state = conf.state;
    // a link whose W_Q/W_K edits do not fit (mangled, or made for another model): say so
    linkEditsRejected = conf.edits.rejected;
    renderLinkNotice();
  }
  await retranslate({ keepStep: true });
  if (!cur) {
    // the sentence from the URL was not usable: fall back to the seed so the page is never blank
    const typed = state.sentence;
    state = S.update(state, { sentence: S.SEED_SENTENCE });
    await retranslate({ keepStep: true });
    state = S.update(state, { sentence: typed });
    $("sentence").value = typed;
  }
  if (params.has("debug")) window.attnscope = { engine, get state() { return state; } };
}

// ?embed=1: one panel for an <iframe> (embed.js); otherwise the whole lab
if (params.get("embed") === "1") startEmbed(params);
else boot();
registerServiceWorker();
