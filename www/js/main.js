// The page: wires the state, the engine and the views together.
//
// Flow: a change of sentence or option -> engine.setSource/setOptions + translate() -> render
// every view. A drag on a W_Q/W_K cell -> the new block is queued and one requestAnimationFrame
// callback per frame sends it (setBlock), runs the engine once (run(), or runEncoder() when an
// encoder head is edited: nothing on screen needs the decoder then) and repaints the heatmap,
// the head grid, the weighted average and the edited grid; letting go re-translates, which
// brings the translation, the decoding steps and the tables up to date.

import { t, setLang, detectLang, applyI18n } from "./i18n.js";
import * as S from "./state.js";
import { Engine, EngineBroken } from "./engine.js";
import { ASSET, pageHref } from "./runtime.js";
import { registerServiceWorker } from "./offline.js";
import { Heatmap, HeadGrid } from "./heatmap.js";
import { WeightedAverage } from "./weighted_average.js";
import { Decoding } from "./decoding.js";
import { QKEditor } from "./qk_editor.js";
import { paintLegend } from "./colors.js";
import { el, fmt, setText, setLiveText } from "./dom.js";

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
    history.replaceState(null, "", `${location.pathname}${q}${location.hash}`);
  }, 150);
}

function setState(patch) {
  state = S.update(state, patch);
  if (info) state = S.clampToModel(state, info);
  syncURL();
}

function heads() {
  return cur?.trace.heads ?? state.heads ?? info?.nhead ?? 1;
}

function layersOf(stack) {
  return stack === "encoder" ? info.encoderLayers : info.decoderLayers;
}

function attentionOf(trace, stack, layer) {
  if (stack === "encoder") return trace.encoder.layers[layer].self_attn.sublayer;
  const l = trace.decoder.layers[layer];
  return stack === "decoder_self" ? l.self_attn.sublayer : l.cross_attn.sublayer;
}

function tokensOf(stack) {
  const src = cur.src.tokens;
  const dec = cur.decoderTokens;
  if (stack === "encoder") return { rows: src, cols: src };
  if (stack === "decoder_self") return { rows: dec, cols: dec };
  return { rows: dec, cols: src };
}

function queryRow(nrows) {
  const q = state.query ?? nrows - 1;
  return Math.max(0, Math.min(nrows - 1, q));
}

function heatmapLabel(stack, layer, head) {
  return t("label.heatmap", { stack: t(`stackName.${stack}`), layer: layer + 1, head: head + 1 });
}

// ---------------------------------------------------------------------------------------------
// Rendering

function renderSentence() {
  const ta = $("sentence");
  if (ta.value !== state.sentence) ta.value = state.sentence;
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
  $("translation").textContent = tr.text || t("translation.nothing");
  const meta = [t("translation.meta", { n: tr.tokens.length })];
  if (!tr.finished) meta.push(t("translation.unfinished"));
  if (engine && engine.edits.size > 0) meta.push(t("translation.edited"));
  $("translation-meta").textContent = meta.join(" ");
}

function renderControls() {
  $("opt-mask").checked = state.causalDecoder;
  $("opt-encmask").checked = state.causalEncoder;
  $("opt-scale").checked = state.scale;
  $("opt-pe").checked = state.positional;
  $("opt-pe-2").checked = state.positional;
  $("opt-tables").checked = state.tables;
  $("peek-note").hidden = state.causalDecoder;
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
  $("stack-about").textContent = t(`stack.${state.stack}.about`);
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
  const seq = state.show === "weights";
  paintLegend($("legend-main"), seq ? "seq" : "div", 160, 12);
  if (seq) {
    $("legend-text").textContent = t("legend.weights");
  } else {
    const h = attentionOf(cur.trace, state.stack, state.layer).heads[state.head];
    const m = state.show === "scores" ? h.scores : h.logits;
    let r = 0;
    for (const v of m.data) if (Number.isFinite(v)) r = Math.max(r, Math.abs(v));
    $("legend-text").textContent = t("legend.scores", { r: fmt(r, 2), what: t(`show.${state.show}`) });
  }
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
  const { stack, layer, head } = state;
  const a = attentionOf(cur.trace, stack, layer);
  const h = a.heads[head];
  const { rows, cols } = tokensOf(stack);
  const q = queryRow(rows.length);
  const label = heatmapLabel(stack, layer, head);
  setText($("heatmap-title"), state.show === "weights" ? label : `${label} · ${t("attn.coloured", { what: t(`show.${state.show}`) })}`);
  views.main.setData(
    { weights: h.weights, scores: h.scores, logits: h.logits, rows, cols, selectedRow: q, label, show: state.show, diagonal: stack !== "decoder_cross" },
    live,
  );
  const L = layersOf(stack);
  const layers = [];
  for (let l = 0; l < L; l++) layers.push(attentionOf(cur.trace, stack, l).heads.map((x) => x.weights));
  views.grid.setData({ layers, selected: { layer, head } }, live);

  // how peaked the rows are: the mean of each row's largest weight (1 = one token takes all)
  const W = h.weights;
  let sum = 0;
  for (let r = 0; r < W.rows; r++) {
    let m = 0;
    for (let c = 0; c < W.cols; c++) m = Math.max(m, W.data[r * W.cols + c]);
    sum += m;
  }
  setLiveText($("attn-stats"), t("attn.peak", { p: fmt(sum / W.rows, 2) }), live);
  if (!live) {
    renderLegend();
    renderTryThis();
  }
}

function renderAverage(live) {
  if (!cur) return;
  const { stack, layer, head } = state;
  const h = attentionOf(cur.trace, stack, layer).heads[head];
  const { rows, cols } = tokensOf(stack);
  views.wavg.setData(
    {
      queryTokens: rows,
      keyTokens: cols,
      query: queryRow(rows.length),
      weights: h.weights,
      v: h.v,
      output: h.output,
      label: heatmapLabel(stack, layer, head),
    },
    live,
  );
}

const qkRange = new Map();

function renderQK() {
  if (!cur || !engine) return;
  const { stack, layer, head } = state;
  const q = guard(() => engine.block(stack, layer, head, "q"));
  const k = guard(() => engine.block(stack, layer, head, "k"));
  if (!q || !k) return;
  // one colour scale per head, taken from the trained weights, so edits never re-colour the rest
  const key = `${heads()}/${stack}/${layer}/${head}`;
  const edited = engine.hasEdit(stack, layer, head, "q") || engine.hasEdit(stack, layer, head, "k");
  if (!qkRange.has(key) && !edited) {
    let r = 0.05;
    for (const x of q.data) r = Math.max(r, Math.abs(x));
    for (const x of k.data) r = Math.max(r, Math.abs(x));
    qkRange.set(key, r);
  }
  views.qk.setData({
    q,
    k,
    range: qkRange.get(key),
    ctx: { stackName: t(`stackName.${stack}`), layer: layer + 1, head: head + 1 },
    editCount: engine.edits.size,
  });
  paintLegend($("legend-qk"), "div", 160, 12);
  $("legend-qk-text").textContent = t("legend.qk", { r: fmt(views.qk.range, 2) });
}

function renderDecoding() {
  if (!cur) return;
  const steps = cur.tr.steps;
  if (!steps.length) return;
  const step = Math.min(state.step, steps.length - 1);
  views.dec.setData({
    steps,
    srcTokens: cur.src.tokens,
    step,
    layer: Math.min(state.layer, info.decoderLayers - 1),
    head: state.head,
  });
}

/** Token positions of B matching A's tokens (first unused occurrence): the reordering. */
function matchTokens(a, b) {
  const used = new Set();
  return a.map((tok) => {
    const j = b.findIndex((x, k) => x === tok && !used.has(k));
    used.add(j);
    return j;
  });
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
  const layer = Math.min(state.layer, info.encoderLayers - 1);
  const head = state.head;
  const ws = [];
  [views.pairA, views.pairB].forEach((v, i) => {
    const p = pair[i];
    const w = p.trace.encoder.layers[layer].self_attn.sublayer.heads[head].weights;
    ws.push(w);
    $(i === 0 ? "order-a-title" : "order-b-title").textContent = `“${p.sentence}”`;
    v.setData({
      weights: w,
      rows: p.tokens,
      cols: p.tokens,
      selectedRow: null,
      label: t("label.pair", { stack: t("stackName.encoder"), layer: layer + 1, head: head + 1, sentence: p.sentence }),
      show: "weights",
    });
  });
  // compare A with B after reordering B's tokens into A's order
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
  verdict.textContent = t(same ? "order.same" : "order.differ", { d: fmtD(diff), pe: t(state.positional ? "order.peOn" : "order.peOff") });
  verdict.classList.toggle("good", same);
  verdict.hidden = false;
  // where word order matters most: the head whose two maps differ the most
  const most = $("order-most");
  let best = null;
  pair[0].trace.encoder.layers.forEach((l, li) =>
    l.self_attn.sublayer.heads.forEach((h, hi) => {
      const d = compare(h.weights, pair[1].trace.encoder.layers[li].self_attn.sublayer.heads[hi].weights);
      if (!best || d > best.d) best = { layer: li, head: hi, d };
    }),
  );
  const showBest = state.positional && best && best.d > 1e-3 && (best.layer !== layer || best.head !== head);
  most.hidden = !showBest;
  if (showBest) {
    $("order-most-text").textContent = t("order.most", { layer: best.layer + 1, head: best.head + 1, d: fmtD(best.d) });
    const btn = $("order-most-btn");
    btn.textContent = t("order.mostShow", { layer: best.layer + 1, head: best.head + 1 });
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
    vocab: info.srcVocab.filter((w) => !/^<.*>$/.test(w)).length,
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
  if (cur?.decoderStale && engine && !engine.broken) {
    const out = guard(() => engine.run());
    if (out) cur.trace = out.trace;
    cur.decoderStale = false;
  }
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
    if (state.pair) {
      pair = S.ORDER_PAIR.map((sentence) => {
        const src = engine.setSource(sentence);
        return { sentence, tokens: src.tokens, trace: engine.run().trace };
      });
    }
    const src = engine.setSource(text);
    const tr = engine.translate();
    lastGood = text;
    cur = { src, tr, trace: tr.trace, decoderTokens: tr.decoder_tokens };
    clearError();
  } catch (e) {
    showError(e);
    // a panic: the engine restarts on the next input; the panels keep the last results
    if (engine.broken) return;
    // the lab may hold a pair sentence now: put the last good sentence back
    if (lastGood !== null) {
      try {
        engine.setSource(lastGood);
        const tr = engine.translate();
        cur = { ...cur, tr, trace: tr.trace, decoderTokens: tr.decoder_tokens };
      } catch {
        /* the banner already shows the first error */
      }
    }
    if (!cur) return;
  }
  if (!keepStep) state = S.update(state, { step: 0 });
  state = S.clampToModel(state, info);
  syncURL();
  renderAll();
}

let typingTimer = 0;
function onSentenceInput() {
  setState({ sentence: $("sentence").value });
  clearTimeout(typingTimer);
  typingTimer = setTimeout(() => retranslate(), 350);
}

function engineOptions(patch) {
  const o = {};
  if ("causalDecoder" in patch) o.causalDecoder = patch.causalDecoder;
  if ("causalEncoder" in patch) o.causalEncoder = patch.causalEncoder;
  if ("scale" in patch) o.scale = patch.scale;
  if ("positional" in patch) o.positional = patch.positional;
  if ("heads" in patch) o.heads = patch.heads ?? info.nhead;
  return o;
}

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
  const { stack, layer, head } = state;
  const ok = guard(() => {
    for (const [m, values] of pendingBlocks) engine.setBlock(stack, layer, head, m, values);
    pendingBlocks.clear();
    if (stack === "encoder" && engine.canRunEncoder) {
      // only encoder attention is on screen: run the encoder alone; the decoder catches up
      // (syncDecoder) before anything shows it, and when the drag ends (retranslate)
      const out = engine.runEncoder();
      cur.trace = { ...cur.trace, heads: out.heads, encoder: out.encoder };
      cur.decoderStale = true;
    } else {
      cur.trace = engine.run().trace;
      cur.decoderStale = false;
    }
    return true;
  });
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

function identity(rows, cols) {
  const a = new Float32Array(rows * cols);
  for (let i = 0; i < Math.min(rows, cols); i++) a[i * cols + i] = 1;
  return a;
}

async function applyIdentity() {
  if (!(await ensureEngine()) || !cur) return;
  const { stack, layer, head } = state;
  const dk = info.dModel / heads();
  const ok = guard(() => {
    engine.setBlock(stack, layer, head, "q", identity(dk, info.dModel));
    engine.setBlock(stack, layer, head, "k", identity(dk, info.dModel));
    return true;
  });
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
  $("banner-close").addEventListener("click", clearError);
  $("opt-mask").addEventListener("change", (e) => setOption({ causalDecoder: e.target.checked }));
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
  $("sentence").value = state.sentence;
  setStatus(t("status.loading"));
  engine = new Engine(ASSET.model);
  try {
    await engine.load();
    info = engine.info();
  } catch (e) {
    setStatus("");
    showError(t("error.load", { url: ASSET.model, message: e.message }));
    document.body.dataset.ready = "error";
    return;
  }
  setStatus("");
  state = S.clampToModel(state, info);
  const opts = engineOptions({
    causalDecoder: state.causalDecoder,
    causalEncoder: state.causalEncoder,
    scale: state.scale,
    positional: state.positional,
    heads: state.heads,
  });
  if (!guard(() => (engine.setOptions(opts), true))) {
    state = S.update(state, { heads: null });
    guard(() => engine.setOptions({ ...opts, heads: info.nhead }));
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

boot();
registerServiceWorker();
