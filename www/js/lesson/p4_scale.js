// Panel 4: scaling. The GloVe vectors (50-d, W_Q = W_K = I) multiplied by a length factor; with
// scaling off the scores grow with the square of that factor and the softmax piles nearly all the
// weight on one word; dividing by sqrt(d_k) (attend's `scale`) spreads it again. The learning signal
// is measured by the engine (attendBackward): how much of a loss's gradient at the weights gets
// through the softmax to the scores, with scaling off and on.

import { lessonT as t, getLang } from "../i18n.js";
import { pageHref } from "../runtime.js";
import * as state from "../state.js";
import { h, fmt, row, formula, setFormula, tryThis, readouts, HeatTable, Bars, message, newId, argmax } from "./ui.js";
import { wordVectors, labels, defaultWord, sentenceBox, showVectorStatus, positionSelect, keySlider, keyCheckbox, panelOf, controls, engineError, figures, figureText } from "./shared.js";
import { identity } from "./p2_words.js";

const DEF_LEN = 1;

export function panel4(ctx) {
  const { engine } = ctx;
  const id = newId("p4");
  let word = state.int("p4.word", 0, 0, 999) - 1;

  const sent = sentenceBox(ctx, "words", () => {
    word = -1;
    state.put("p4.word", null, null);
    render();
  });
  const wordSel = positionSelect({ id: `${id}-word`, label: t("p4.wordLabel"), key: "p4.word", test: "p4-word", onChange: (i) => { word = i; render(); } });
  const lenSlider = keySlider({
    id: `${id}-len`,
    label: t("p4.lenLabel"),
    key: "p4.len",
    def: DEF_LEN,
    min: 0.25,
    max: 3,
    step: 0.05,
    format: (v) => `× ${fmt(v, 2)}`,
    onChange: render,
    test: "p4-len",
  });
  const scaleBox = keyCheckbox({ id: `${id}-scale`, label: t("p4.scaleLabel"), key: "p4.scale", def: false, onChange: render, test: "p4-scale" });

  const bars = new Bars({ height: 150 });
  const rowTable = new HeatTable({ kind: "seq", digits: 3, rowHeader: "", test: "p4-row" });
  const heat = new HeatTable({
    kind: "seq",
    digits: 2,
    rowHeader: t("p4.rowHeader"),
    compact: true,
    onRow: (r) => wordSel.pick(r),
    test: "p4-weights",
  });
  const nums = readouts([
    { key: "max", label: t("p4.rMax"), test: "p4-max" },
    { key: "score", label: t("p4.rScore"), test: "p4-score" },
    { key: "sqrt", label: t("p4.rSqrt"), test: "p4-sqrt" },
    { key: "sat", label: t("p4.rSat"), test: "p4-sat" },
    { key: "signal", label: t("p4.rSignal"), test: "p4-signal" },
  ]);
  const sweep = new HeatTable({ kind: "div", digits: 2, rowHeader: "", test: "p4-sweep" });
  const msg = message();
  const formulaEl = formula(t("p4.formulaNoScale"), "p4-formula");

  function render() {
    if (!ctx.loaded) return;
    const len = lenSlider.value;
    const scale = scaleBox.value;
    setFormula(formulaEl, t(scale ? "p4.formula" : "p4.formulaNoScale", figures(engine)));
    const wv = wordVectors(engine, ctx.shared.words);
    if (!showVectorStatus(ctx, sent, wv)) return;
    const { tokens, n, d } = wv;
    const names = labels(tokens);
    if (word < 0 || word >= n) word = defaultWord(tokens);
    wordSel.setTokens(names, word);
    let a;
    try {
      const x = Float32Array.from(wv.vectors.data, (v) => v * len);
      const I = identity(d);
      a = engine.attend(x, n, d, I, I, d, scale, false);
    } catch (e) {
      engineError(ctx, msg, e);
      return;
    }
    msg.clear();
    const w = row(a.weights, word);
    const sc = row(a.scores, word);
    const top = argmax(w);
    bars.update({ values: Array.from(w), labels: names, highlight: new Set([top]), max: 1 });
    rowTable.update({
      label: t("p4.rowLabel", { word: names[word] }),
      rows: [t("p4.rowScores"), t("p4.rowLogits"), t("p4.rowWeights")],
      cols: names,
      data: [...sc, ...row(a.logits, word), ...w],
      nr: 3,
      nc: n,
      plain: (r) => r < 2, // scores and logits are plain numbers; only the weights row is a heat colour
    });
    heat.update({ label: t("p4.heatLabel"), rows: names, cols: names, data: a.weights.data, nr: n, nc: n, selected: word });
    let maxScore = -Infinity;
    for (const v of sc) maxScore = Math.max(maxScore, v);
    let saturated = 0;
    for (let i = 0; i < n; i++) {
      let m = 0;
      for (const v of row(a.weights, i)) m = Math.max(m, v);
      if (m > 0.99) saturated += 1;
    }
    nums.set("max", `${fmt(w[top], 3)} (${names[top]})`, w[top]);
    nums.set("score", fmt(maxScore, 2), maxScore);
    nums.set("sqrt", scale ? t("p4.sqrtOn", { d, s: fmt(Math.sqrt(d), 3) }) : t("p4.sqrtOff"));
    nums.set("sat", t("p4.satText", { k: saturated, n }), saturated);
    // The learning signal, measured: a loss that pulls this row's output toward another word's
    // vector (L = ½ |out − x_target|²); the share of its gradient at the row's weights that the
    // softmax passes on to the row's scores, |∂L/∂scores| ÷ |∂L/∂weights|.
    const target = word === 0 ? Math.min(1, n - 1) : 0;
    const signal = (stretch, on) => {
      const xs = Float32Array.from(wv.vectors.data, (v) => v * stretch);
      const I = identity(d);
      const fw = engine.attend(xs, n, d, I, I, d, on, false);
      const dOut = new Float32Array(n * d);
      for (let j = 0; j < d; j++) dOut[word * d + j] = fw.output.data[word * d + j] - xs[target * d + j];
      const g = engine.attendBackward(xs, n, d, I, I, d, on, false, dOut);
      const norm = (v) => Math.hypot(...v);
      const atWeights = norm(row(g.weights, word));
      return atWeights > 0 ? norm(row(g.scores, word)) / atWeights : 0;
    };
    let now;
    let table;
    try {
      now = signal(len, scale);
      const stretches = [0.5, 1, 1.5, 2, 3];
      table = [...stretches.map((c) => 100 * signal(c, false)), ...stretches.map((c) => 100 * signal(c, true))];
      sweep.update({
        label: t("p4.sweepLabel", { word: names[word], target: names[target] }),
        rows: [t("p4.sweepOff"), t("p4.sweepOn")],
        cols: stretches.map((c) => `× ${fmt(c, 1)}`),
        data: table,
        nr: 2,
        nc: stretches.length,
        plain: () => true,
      });
    } catch (e) {
      engineError(ctx, msg, e);
      return;
    }
    nums.set("signal", t("p4.signalText", { v: fmt(100 * now, 2), target: names[target] }), now);
  }

  const panel = panelOf(
    ctx,
    "p4",
    figureText(ctx, "p", "p4.why"),
    sent.root,
    tryThis(t("p4.try")),
    controls(wordSel.root, lenSlider.root, scaleBox.root),
    formulaEl,
    msg.root,
    bars.root,
    nums.root,
    rowTable.root,
    h("p", { text: t("p4.slope") }),
    sweep.root,
    h("p", {}, [h("a", { href: pageHref("train", { heads: "1", d: "128", scale: "0", steps: "300", ...(state.has("lang") ? { lang: getLang() } : {}) }), "data-test": "p4-train-link", text: t("p4.trainLink") })]),
    h("h3", { text: t("p4.allTitle") }),
    heat.root,
    h("p", { text: t("p4.outro") }),
  );
  ctx.ready(render);
  return panel;
}
