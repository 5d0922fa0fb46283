// Panel 7: word order. Two sentences with the same words in a different order run through the
// trained encoder with positional encoding on or off: without it, self-attention cannot tell
// them apart (the weights are the same after matching the words, and so is the translation).
// Then the sinusoidal table itself (sinusoidalTable) and a note on learned encodings.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, fmt, textbox, formula, setFormula, tryThis, readouts, HeatTable, paintMatrix, numberTable, details, message, newId, scrollBox } from "./ui.js";
import { labels, keyCheckbox, positionSelect, panelOf, controls, needsModel, engineError, figureText } from "./shared.js";

const DEF_A = "the brother carried the sister";
const DEF_B = "the sister carried the brother";
const PE_ROWS = 32;

/** For each position of `a`, a position of `b` holding the same token (null if the words differ). */
export function matchWords(a, b) {
  if (a.length !== b.length) return null;
  const used = new Array(b.length).fill(false);
  const perm = [];
  for (const tok of a) {
    const j = b.findIndex((x, k) => !used[k] && x === tok);
    if (j < 0) return null;
    used[j] = true;
    perm.push(j);
  }
  return perm;
}

/** max |a[i][j] - b[perm[i]][perm[j]]|: how far B's attention is from A's once the words are matched. */
function maxDiff(a, b, perm) {
  const n = perm.length;
  let d = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) d = Math.max(d, Math.abs(a.data[i * n + j] - b.data[perm[i] * n + perm[j]]));
  return d;
}

export function panel7(ctx) {
  const { engine } = ctx;
  const id = newId("p7");
  let sa = state.str("p7.a", DEF_A);
  let sb = state.str("p7.b", DEF_B);
  let layer = state.int("p7.layer", 1, 1, 16) - 1;
  let head = state.int("p7.head", 1, 1, 64) - 1;
  let chosen = state.has("p7.layer") || state.has("p7.head"); // else pick the head where order matters most

  const boxA = textbox({ id: `${id}-a`, label: t("p7.aLabel"), value: sa, test: "p7-a", onInput: (v) => { sa = v; state.put("p7.a", v, DEF_A); render(); } });
  const boxB = textbox({ id: `${id}-b`, label: t("p7.bLabel"), value: sb, test: "p7-b", onInput: (v) => { sb = v; state.put("p7.b", v, DEF_B); render(); } });
  const grid = new HeatTable({ kind: "seq", digits: 3, rowHeader: "", test: "p7-grid" });
  const peBox = keyCheckbox({ id: `${id}-pe`, label: t("p7.peLabel"), key: "p7.pe", def: true, onChange: render, test: "p7-pe" });
  const layerSel = positionSelect({ id: `${id}-layer`, label: t("ui.layer"), key: "p7.layer", onChange: (i) => { layer = i; chosen = true; render(); } });
  const headSel = positionSelect({ id: `${id}-head`, label: t("ui.head"), key: "p7.head", onChange: (i) => { head = i; chosen = true; render(); } });
  const heatA = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p7.rowHeader"), compact: true, test: "p7-heat-a" });
  const heatB = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p7.rowHeader"), compact: true, test: "p7-heat-b" });
  const heatBA = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p7.rowHeader"), compact: true, test: "p7-heat-b-matched" });
  const nums = readouts([
    { key: "diff", label: t("p7.rDiff"), test: "p7-diff" },
    { key: "ta", label: t("p7.rTa"), test: "p7-ta" },
    { key: "tb", label: t("p7.rTb"), test: "p7-tb" },
  ]);
  const msg = message();
  const formulaEl = formula(t("p7.formula"), "p7-formula");

  function render() {
    if (!ctx.loaded) return;
    const pe = peBox.value;
    setFormula(formulaEl, t(pe ? "p7.formula" : "p7.formulaNoPE"));
    if (!engine.hasLab) {
      msg.show("warn", t("err.lab", { msg: engine.errors.lab || "?" }));
      return;
    }
    if (!sa.trim() || !sb.trim()) {
      msg.show("error", t("err.empty"));
      return;
    }
    let ra;
    let rb;
    try {
      ra = engine.translateText(sa, { positional: pe });
      rb = engine.translateText(sb, { positional: pe });
    } catch (e) {
      engineError(ctx, msg, e);
      return;
    }
    const unk = [...ra.src.unknown.map((i) => ra.src.tokens[i]), ...rb.src.unknown.map((i) => rb.src.tokens[i])];
    const perm = matchWords(ra.src.tokens, rb.src.tokens);
    msg.show(
      !perm ? "warn" : unk.length ? "warn" : "",
      [!perm ? t("p7.notSameWords") : "", unk.length ? t("warn.unk", { words: [...new Set(unk)].join(", ") }) : ""].filter(Boolean).join(" "),
    );
    const L = ra.tr.trace.encoder.layers.length;
    const H = ra.tr.trace.heads;
    // Largest difference after matching the words, for every layer and head.
    const diffs = (x, y) => {
      const out = [];
      for (let l = 0; l < L; l++) {
        for (let hh = 0; hh < H; hh++) {
          const a = x.tr.trace.encoder.layers[l].self_attn.sublayer.heads[hh].weights;
          const b = y.tr.trace.encoder.layers[l].self_attn.sublayer.heads[hh].weights;
          out.push(perm ? maxDiff(a, b, perm) : NaN);
        }
      }
      return out;
    };
    if (perm && !chosen) {
      // Start on the head where word order matters most (measured with the encoding on).
      const on = diffs(engine.translateText(sa, { positional: true }), engine.translateText(sb, { positional: true }));
      let k = 0;
      for (let i = 1; i < on.length; i++) if (on[i] > on[k]) k = i;
      layer = Math.floor(k / H);
      head = k % H;
      chosen = true;
    }
    layer = Math.min(layer, L - 1);
    head = Math.min(head, H - 1);
    layerSel.setCount(L, layer);
    headSel.setCount(H, head);
    if (perm) {
      grid.root.hidden = false;
      grid.update({
        label: t("p7.gridLabel", { pe: pe ? t("p7.on") : t("p7.off") }),
        rows: Array.from({ length: L }, (_, i) => t("p7.layerN", { n: i + 1 })),
        cols: Array.from({ length: H }, (_, i) => t("p7.headN", { n: i + 1 })),
        data: diffs(ra, rb),
        nr: L,
        nc: H,
        selected: layer,
      });
    } else grid.root.hidden = true;
    const wa = ra.tr.trace.encoder.layers[layer].self_attn.sublayer.heads[head].weights;
    const wb = rb.tr.trace.encoder.layers[layer].self_attn.sublayer.heads[head].weights;
    const na = labels(ra.src.tokens);
    const nb = labels(rb.src.tokens);
    const tag = pe ? t("p7.on") : t("p7.off");
    heatA.update({ label: t("p7.heatA", { pe: tag, layer: layer + 1, head: head + 1 }), rows: na, cols: na, data: wa.data, nr: wa.rows, nc: wa.cols });
    heatB.update({ label: t("p7.heatB", { pe: tag, layer: layer + 1, head: head + 1 }), rows: nb, cols: nb, data: wb.data, nr: wb.rows, nc: wb.cols });
    if (perm) {
      const n = perm.length;
      const m = new Float32Array(n * n);
      let diff = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          m[i * n + j] = wb.data[perm[i] * n + perm[j]];
          diff = Math.max(diff, Math.abs(m[i * n + j] - wa.data[i * n + j]));
        }
      }
      heatBA.update({ label: t("p7.heatBA", { pe: tag }), rows: na, cols: na, data: m, nr: n, nc: n });
      heatBA.root.hidden = false;
      nums.set("diff", fmt(diff, 6), diff);
    } else {
      heatBA.root.hidden = true;
      nums.set("diff", "—");
    }
    nums.set("ta", ra.tr.text);
    nums.set("tb", rb.tr.text);
  }

  // --- the sinusoidal table
  const peCanvas = h("canvas", { class: "pe-canvas", role: "img" });
  const peAlt = h("div");
  const peMsg = message();
  function renderPE() {
    if (!engine.hasLab) return; // the table is the translator's, d_model wide (render says it is missing)
    const d = engine.info.dModel;
    let m;
    try {
      m = engine.sinusoidalTable(PE_ROWS, d);
    } catch (e) {
      engineError(ctx, peMsg, e);
      return;
    }
    paintMatrix(peCanvas, m.data, m.rows, m.cols, { cell: 8, cellH: 8, range: 1 });
    peCanvas.setAttribute("aria-label", t("p7.peCanvas", { n: m.rows, d: m.cols }));
    peAlt.replaceChildren(
      details(
        t("ui.showNumbers"),
        numberTable({
          label: t("p7.peTable", { n: m.rows, d: m.cols }),
          rows: Array.from({ length: m.rows }, (_, i) => t("p7.pos", { i: i + 1 })),
          cols: Array.from({ length: m.cols }, (_, k) => String(k + 1)),
          data: m.data,
          nr: m.rows,
          nc: m.cols,
          digits: 2,
          test: "p7-pe-table",
        }),
      ),
    );
  }

  const panel = panelOf(
    ctx,
    "p7",
    h("p", { text: t("p7.how") }),
    msg.root,
    needsModel(
      h("div", { class: "controls controls-wide" }, boxA.root, boxB.root),
      tryThis(t("p7.try")),
      controls(peBox.root, layerSel.root, headSel.root),
      formulaEl,
      nums.root,
      h("div", { class: "side-by-side" }, heatA.root, heatB.root, heatBA.root),
      h("p", { text: t("p7.explain") }),
      h("p", { text: t("p7.grid") }),
      grid.root),
    h("h3", { text: t("p7.peTitle") }),
    h("p", { text: t("p7.pe") }),
    formula(t("p7.formulaPE")),
    needsModel(
      h("div", { class: "pe-view" }, figureText(ctx, "p", "p7.peAxes", { class: "axis-note", "data-test": "p7-pe-axes" }, { n: PE_ROWS }), scrollBox(h("div", { class: "pe-scroll" }, peCanvas))),
      peMsg.root,
      peAlt),
    h("p", { text: t("p7.learned") }),
  );
  ctx.ready(() => {
    render();
    renderPE();
  });
  return panel;
}
