// Panel 8: one encoder block on the live model's numbers for a chosen token: the input, the
// attention output, Add (the residual sum), Norm (LayerNorm), the feed-forward network widened
// to d_ff with ReLU (how many units are exactly zero), narrowed back, Add and Norm again. Mean and
// variance are computed here from the engine's vectors; every vector is the engine's trace,
// except the standardised sum (s - mean) / sqrt(var + eps), LayerNorm's first step, which this
// page computes from the engine's sum to show what the learned gamma and beta then change.

import { lessonT as t, getLang } from "../i18n.js";
import { pageHref } from "../runtime.js";
import * as state from "../state.js";
import { h, fmt, row, formula, tryThis, paintMatrix, numberTable, details, message, newId, HeatTable, scrollBox } from "./ui.js";
import { labels, sentenceBox, defaultWord, translateWithNotes, positionSelect, panelOf, controls, needsModel, figures, figureText, figureFormula } from "./shared.js";

function stats(v) {
  let mean = 0;
  for (const x of v) mean += x;
  mean /= v.length;
  let vr = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const x of v) {
    vr += (x - mean) * (x - mean);
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  return { mean, variance: vr / v.length, min, max };
}

/** LayerNorm before its learned scale and shift: (v - mean) / sqrt(variance + eps), with the
 * model's eps (the engine's info.layerNormEps). */
export function standardise(v, eps) {
  const { mean, variance } = stats(v);
  const k = 1 / Math.sqrt(variance + eps);
  return Float32Array.from(v, (x) => (x - mean) * k);
}

export function panel8(ctx) {
  const { engine } = ctx;
  const id = newId("p8");
  let tok = state.int("p8.tok", 0, 0, 999) - 1;
  let layer = state.int("p8.layer", 1, 1, 16) - 1;

  const sent = sentenceBox(ctx, "model", () => {
    tok = -1;
    state.put("p8.tok", null, null);
    render();
  });
  const tokSel = positionSelect({ id: `${id}-tok`, label: t("p8.tokLabel"), key: "p8.tok", test: "p8-token", onChange: (i) => { tok = i; render(); } });
  const layerSel = positionSelect({ id: `${id}-layer`, label: t("p8.layerLabel"), key: "p8.layer", def: 1, onChange: (i) => { layer = i; render(); } });
  const msg = message();
  const flow = h("ol", { class: "flow", "data-test": "p8-flow" });
  const alt = h("div");
  const across = new HeatTable({ kind: "div", digits: 3, rowHeader: t("p8.tokHeader"), test: "p8-across" });
  const acrossText = h("p", { "data-test": "p8-across-text" });
  // Why the residual path matters, measured: the gradient norm of each layer's weights on the first
  // training step of a fresh 6 + 6-layer model (the playground's task "reverse"), with and without
  // the residual connections; the engine's backward pass, the same seed for both.
  const grads = new HeatTable({ kind: "div", digits: 3, rowHeader: "", test: "p8-grads" });
  const gradsText = h("p", { "data-test": "p8-grads-text" });
  function renderGrads() {
    try {
      const setup = { task: "reverse", length: 6, layers: 6, heads: 2, dModel: 32, seed: 1 };
      const on = engine.firstStep({ ...setup, residual: true }).gradNorms;
      const off = engine.firstStep({ ...setup, residual: false }).gradNorms;
      const label = (/** @type {string} */ name) => {
        const [stack, k] = name.split(" ");
        return t(stack === "encoder" ? "p8.gEnc" : "p8.gDec", { k });
      };
      grads.update({
        label: t("p8.gradsLabel"),
        rows: [t("p8.gOn"), t("p8.gOff")],
        cols: on.map((g) => label(g.layer)),
        data: [...on.map((g) => g.norm), ...off.map((g) => g.norm)],
        nr: 2,
        nc: on.length,
        plain: () => true,
      });
      const dec = (list) => list.filter((g) => g.layer.startsWith("decoder"));
      const lowest = (list) => Math.min(...dec(list).slice(0, -1).map((g) => g.norm));
      gradsText.textContent = t("p8.gradsText", { on: fmt(lowest(on), 2), off: lowest(off).toExponential(1) });
    } catch (e) {
      gradsText.textContent = String(e instanceof Error ? e.message : e);
    }
  }

  /** @param {{key: string, title: string, note: string, vec: Float32Array | number[], check?: string}} o */
  function stage({ key, title, note, vec, check }) {
    const st = stats(vec);
    const canvas = h("canvas", { class: "strip", role: "img", "aria-label": t("p8.stripLabel", { title, n: vec.length }) });
    paintMatrix(canvas, vec, 1, vec.length, { cell: vec.length > 100 ? 3 : 8, cellH: 22 });
    const facts = [
      h("span", { text: t("p8.dims", { n: vec.length }) }),
      h("span", { "data-test": `p8-${key}-mean`, "data-value": String(st.mean), text: `${t("p8.mean")} ${fmt(st.mean, 3)}` }),
      h("span", { "data-test": `p8-${key}-var`, "data-value": String(st.variance), text: `${t("p8.variance")} ${fmt(st.variance, 3)}` }),
      h("span", { text: `${t("p8.range")} ${fmt(st.min, 2)} … ${fmt(st.max, 2)}` }),
    ];
    if (check) facts.push(check);
    return h("li", { class: `stage stage-${key}`, "data-test": `p8-stage-${key}` },
      h("h3", { class: "stage-title", text: title }),
      h("p", { class: "stage-note", text: note }),
      scrollBox(h("div", { class: "strip-scroll" }, canvas)),
      h("p", { class: "stage-facts" }, ...facts));
  }

  function render() {
    if (!ctx.loaded) return;
    const text = ctx.shared.model;
    const res = translateWithNotes(ctx, engine, sent, msg, text, {});
    if (!res) return;
    const enc = res.tr.trace.encoder;
    const names = labels(res.src.tokens);
    const n = names.length;
    if (tok < 0 || tok >= n) tok = defaultWord(res.src.tokens);
    layer = Math.min(layer, enc.layers.length - 1);
    tokSel.setTokens(names, tok);
    layerSel.setCount(enc.layers.length, layer);

    const L = enc.layers[layer];
    const prev = layer === 0 ? enc.embed.input : enc.layers[layer - 1].ffn.norm_first ? enc.layers[layer - 1].ffn.sum : enc.layers[layer - 1].ffn.norm;
    const postNorm = !L.self_attn.norm_first;
    const x = row(prev, tok);
    const attnOut = row(L.self_attn.sublayer.output, tok);
    const sum1 = row(L.self_attn.sum, tok);
    const norm1 = row(L.self_attn.norm, tok);
    const hidden = row(L.ffn.sublayer.hidden, tok);
    const ffnOut = row(L.ffn.sublayer.output, tok);
    const sum2 = row(L.ffn.sum, tok);
    const norm2 = row(L.ffn.norm, tok);
    const d = x.length;
    const dff = hidden.length;
    const eps = engine.info.layerNormEps;

    // Add is addition: how far the engine's sum is from x + sublayer(x), computed here.
    const ffnIn = postNorm ? norm1 : sum1;
    let err1 = 0;
    let err2 = 0;
    for (let k = 0; k < d; k++) {
      err1 = Math.max(err1, Math.abs(sum1[k] - (x[k] + attnOut[k])));
      err2 = Math.max(err2, Math.abs(sum2[k] - (ffnIn[k] + ffnOut[k])));
    }
    let zeros = 0;
    for (const v of hidden) if (v === 0) zeros += 1;
    const check = (err, key) => h("span", { class: "check", "data-test": `p8-${key}-check`, "data-value": String(err), text: t("p8.addCheck", { e: err.toExponential(1) }) });
    const zeroText = h("span", { class: "check", "data-test": "p8-zeros", "data-value": String(zeros), text: t("p8.zeros", { k: zeros, n: dff, p: fmt((100 * zeros) / dff, 0) }) });

    flow.replaceChildren(
      stage({ key: "x", title: t("p8.sX", { layer: layer + 1 }), note: layer === 0 ? t("p8.nX0", figures(engine)) : t("p8.nX"), vec: x }),
      stage({ key: "attn", title: t("p8.sAttn"), note: t("p8.nAttn"), vec: attnOut }),
      stage({ key: "sum1", title: t("p8.sSum1"), note: t("p8.nSum"), vec: sum1, check: check(err1, "sum1") }),
      stage({ key: "norm1z", title: t("p8.sNormZ"), note: t("p8.nNormZ", figures(engine)), vec: standardise(sum1, eps) }),
      stage({ key: "norm1", title: t("p8.sNorm1"), note: t("p8.nNorm", { d }), vec: norm1 }),
      stage({ key: "hidden", title: t("p8.sHidden", { dff }), note: t("p8.nHidden", { d, dff }), vec: hidden, check: zeroText }),
      stage({ key: "ffn", title: t("p8.sFfn", { d }), note: t("p8.nFfn"), vec: ffnOut }),
      stage({ key: "sum2", title: t("p8.sSum2"), note: t("p8.nSum"), vec: sum2, check: check(err2, "sum2") }),
      stage({ key: "norm2z", title: t("p8.sNormZ"), note: t("p8.nNormZ", figures(engine)), vec: standardise(sum2, eps) }),
      stage({ key: "norm2", title: t("p8.sNorm2"), note: t("p8.nNorm2", { d }), vec: norm2 }),
    );
    const stripRows = [t("p8.sX", { layer: layer + 1 }), t("p8.sAttn"), t("p8.sSum1"), t("p8.sNorm1"), t("p8.sFfn", { d }), t("p8.sSum2"), t("p8.sNorm2")];
    const stripData = new Float32Array(7 * d);
    [x, attnOut, sum1, norm1, ffnOut, sum2, norm2].forEach((v, r) => stripData.set(v, r * d));
    alt.replaceChildren(
      details(
        t("ui.showNumbers"),
        h("div", {},
          numberTable({ label: t("p8.tableLabel", { word: names[tok], d }), rows: stripRows, cols: Array.from({ length: d }, (_, k) => String(k + 1)), data: stripData, nr: 7, nc: d, digits: 3 }),
          numberTable({ label: t("p8.hiddenTable", { word: names[tok], dff }), rows: [t("p8.sHidden", { dff })], cols: Array.from({ length: dff }, (_, k) => String(k + 1)), data: hidden, nr: 1, nc: dff, digits: 3 })),
      ),
    );

    // Every token at the first LayerNorm: the sum going in, standardised, and after gamma and beta.
    const acrossData = [];
    const range = { before: [Infinity, -Infinity], after: [Infinity, -Infinity] };
    const widen = (r, v) => {
      r[0] = Math.min(r[0], v);
      r[1] = Math.max(r[1], v);
    };
    for (let i = 0; i < n; i++) {
      const a = stats(row(L.self_attn.sum, i));
      const z = stats(standardise(row(L.self_attn.sum, i), eps));
      const b = stats(row(L.self_attn.norm, i));
      acrossData.push(a.mean, a.variance, z.mean, z.variance, b.mean, b.variance);
      widen(range.before, a.variance);
      widen(range.after, b.variance);
    }
    acrossText.textContent = t("p8.across", {
      blo: fmt(range.before[0], 2),
      bhi: fmt(range.before[1], 2),
      lo: fmt(range.after[0], 2),
      hi: fmt(range.after[1], 2),
    });
    across.update({
      label: t("p8.acrossLabel", { layer: layer + 1 }),
      rows: names,
      cols: [t("p8.cMeanBefore"), t("p8.cVarBefore"), t("p8.cMeanZ"), t("p8.cVarZ"), t("p8.cMeanAfter"), t("p8.cVarAfter")],
      data: acrossData,
      nr: n,
      nc: 6,
      selected: tok,
      plain: () => true, // plain numbers: the table is for reading, not a map
    });
  }

  const panel = panelOf(
    ctx,
    "p8",
    figureText(ctx, "p", "p8.ffn", { "data-test": "p8-ffn-text" }),
    h("p", { text: t("p8.addnorm") }),
    figureFormula(ctx, "p8.formulaFfn", "p8-formula-ffn"),
    formula(t("p8.formulaAdd")),
    formula(t("p8.formulaNorm")),
    msg.root,
    needsModel(
      sent.root,
      tryThis(t("p8.try")),
      controls(tokSel.root, layerSel.root),
      flow,
      alt,
      h("h3", { text: t("p8.acrossTitle") }),
      acrossText,
      across.root),
    figureText(ctx, "p", "p8.outro", { "data-test": "p8-outro" }),
    h("h3", { text: t("p8.gradsTitle") }),
    h("p", { text: t("p8.grads") }),
    grads.root,
    gradsText,
    h("p", {}, [h("a", { href: pageHref("train", { layers: "4", residual: "0", steps: "150", ...(state.has("lang") ? { lang: getLang() } : {}) }), "data-test": "p8-train-link", text: t("p8.trainLink") })]),
  );
  ctx.ready(() => {
    render();
    renderGrads();
  });
  return panel;
}
