// Panel 5: masking. attend(..., causal) on the GloVe vectors shows the lower-triangular pattern
// (exact zeros above the diagonal), and the trained translator's decoder self-attention on its
// own output shows the same mask learned with, and what happens when it is lifted.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, fmt, button, formula, setFormula, tryThis, readouts, HeatTable, message, newId } from "./ui.js";
import { wordVectors, labels, sentenceBox, showVectorStatus, translateWithNotes, positionSelect, keyCheckbox, panelOf, controls, needsModel, engineError } from "./shared.js";
import { identity } from "./p2_words.js";

export function panel5(ctx) {
  const { engine } = ctx;
  const id = newId("p5");
  let layer = state.int("p5.layer", 1, 1, 16) - 1;
  let head = state.int("p5.head", 1, 1, 64) - 1;

  // Two sentences meet in this panel: the word-vector example and the trained decoder's. Each
  // box says what it drives and which other panels share it (sentenceBox counts them).
  const sent = sentenceBox(ctx, "words", () => render(), { label: "p5.wordsBox", hint: "p5.wordsHint" });
  const causalBox = keyCheckbox({
    id: `${id}-causal`,
    label: t("p5.causalLabel"),
    key: "p5.causal",
    def: true,
    onChange: () => {
      render();
      renderModel();
    },
    test: "p5-causal",
  });
  const heat = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p5.rowHeader"), test: "p5-weights" });
  const nums = readouts([
    { key: "above", label: t("p5.rAbove"), test: "p5-above" },
    { key: "first", label: t("p5.rFirst"), test: "p5-first" },
    { key: "rows", label: t("p5.rRows"), test: "p5-rows" },
  ]);
  const msg = message();

  // --- the trained decoder
  const modelMsg = message();
  const decHeat = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p5.rowHeader"), test: "p5-decoder" });
  const modelNums = readouts([
    { key: "tr", label: t("p5.rTranslation"), test: "p5-translation" },
    { key: "above", label: t("p5.rAboveModel"), test: "p5-decoder-above" },
  ]);
  const layerSel = positionSelect({ id: `${id}-layer`, label: t("ui.layer"), key: "p5.layer", def: 1, onChange: (i) => { layer = i; renderModel(); } });
  const headSel = positionSelect({ id: `${id}-head`, label: t("ui.head"), key: "p5.head", def: 1, onChange: (i) => { head = i; renderModel(); } });
  const useWords = button({ text: t("p5.useWords"), cls: "btn btn-small", test: "p5-use-words", onClick: () => ctx.shared.setModel(ctx.shared.words) });
  const modelSent = sentenceBox(ctx, "model", () => renderModel(), { label: "p5.modelBox", hint: "p5.modelHint", tools: [useWords] });
  const formulaEl = formula(t("p5.formula"), "p5-formula");

  function above(weights, n, m) {
    let sum = 0;
    let max = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < m; j++) {
        sum += weights[i * m + j];
        max = Math.max(max, weights[i * m + j]);
      }
    }
    return { sum, max };
  }

  function render() {
    if (!ctx.loaded) return;
    useWords.hidden = ctx.shared.model.trim() === ctx.shared.words.trim();
    const wv = wordVectors(engine, ctx.shared.words);
    if (!showVectorStatus(ctx, sent, wv)) return;
    const { tokens, n, d } = wv;
    const names = labels(tokens);
    const causal = causalBox.value;
    let a;
    try {
      const I = identity(d);
      a = engine.attend(wv.vectors.data, n, d, I, I, d, true, causal);
    } catch (e) {
      engineError(ctx, msg, e);
      return;
    }
    msg.clear();
    setFormula(formulaEl, t(causal ? "p5.formula" : "p5.formulaOpen"));
    nums.label("first", t(causal ? "p5.rFirst" : "p5.rFirstOpen"));
    const masked = Array.from(a.logits.data, (v) => v === -Infinity);
    heat.update({ label: causal ? t("p5.heatLabelCausal") : t("p5.heatLabelOpen"), rows: names, cols: names, data: a.weights.data, nr: n, nc: n, masked });
    const ab = above(a.weights.data, n, n);
    nums.set("above", fmt(ab.sum, 6), ab.sum);
    nums.set("first", `${names[0]} → ${names[0]}: ${fmt(a.weights.data[0], 3)}`, a.weights.data[0]);
    let ok = 0;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < n; j++) sum += a.weights.data[i * n + j];
      if (Math.abs(sum - 1) < 1e-4) ok += 1;
    }
    nums.set("rows", t("p5.rowsText", { k: ok, n }), ok);
  }

  function renderModel() {
    if (!ctx.loaded) return;
    useWords.hidden = ctx.shared.model.trim() === ctx.shared.words.trim();
    const text = ctx.shared.model;
    const causal = causalBox.value;
    const res = translateWithNotes(ctx, engine, modelSent, modelMsg, text, {}, { causalDecoder: causal });
    if (!res) return;
    const trace = res.run.trace;
    const L = trace.decoder.layers.length;
    const H = trace.heads;
    layer = Math.min(layer, L - 1);
    head = Math.min(head, H - 1);
    layerSel.setCount(L, layer);
    headSel.setCount(H, head);
    const hd = trace.decoder.layers[layer].self_attn.sublayer.heads[head];
    const toks = labels(res.run.decoder_tokens);
    const masked = Array.from(hd.logits.data, (v) => v === -Infinity);
    decHeat.update({
      label: t(causal ? "p5.decLabel" : "p5.decLabelOpen", { layer: layer + 1, head: head + 1 }),
      rows: toks,
      cols: toks,
      data: hd.weights.data,
      nr: hd.weights.rows,
      nc: hd.weights.cols,
      masked,
    });
    const ab = above(hd.weights.data, hd.weights.rows, hd.weights.cols);
    modelNums.set("tr", res.tr.text);
    modelNums.set("above", fmt(ab.sum, 6), ab.sum);
  }

  const panel = panelOf(
    ctx,
    "p5",
    h("p", { text: t("p5.how") }),
    sent.root,
    tryThis(t("p5.try")),
    controls(causalBox.root),
    formulaEl,
    msg.root,
    heat.root,
    nums.root,
    h("h3", { text: t("p5.modelTitle") }),
    h("p", { text: t("p5.model") }),
    modelMsg.root,
    needsModel(modelSent.root, controls(layerSel.root, headSel.root), modelNums.root, decHeat.root),
    h("p", { text: t("p5.outro") }),
  );
  ctx.ready(() => {
    render();
    renderModel();
  });
  return panel;
}
