// Panel 2: words as vectors. The real GloVe vectors of the sentence (Words.project), then two
// ways to weight the words for one chosen word: by distance in the sentence (kernelSmooth on
// positions) and by raw dot product + softmax (attend with W_Q = W_K = I, d_k = 50). The reader
// marks the words that should matter and sees how much weight each rule gives them.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, fmt, row, formula, setFormula, readouts, HeatTable, paintMatrix, numberTable, details, message, newId, button, scrollBox } from "./ui.js";
import { wordVectors, labels, defaultWord, sentenceBox, showVectorStatus, liveTry, positionSelect, keySlider, keyCheckbox, panelOf, controls, engineError, figures, figureText, withFigures } from "./shared.js";

const DEF_KW = 1.5;

export function identity(d) {
  const m = new Float32Array(d * d);
  for (let i = 0; i < d; i++) m[i * d + i] = 1;
  return m;
}

/** The words a reader would mark for "friend" in the lecture's sentence: who the friend is. */
export function defaultMarks(tokens) {
  const out = [];
  tokens.forEach((tok, i) => {
    if (tok === "emma" || tok === "she") out.push(i);
  });
  return out;
}

/** The marked words of panel 2 (from the URL, else the default for the sentence). */
export function readMarks(tokens) {
  const n = tokens.length;
  const fromUrl = state.str("p2.mark", "");
  if (fromUrl === "none") return [];
  if (!fromUrl) return defaultMarks(tokens);
  return fromUrl.split(",").map((x) => Number(x) - 1).filter((i) => Number.isInteger(i) && i >= 0 && i < n);
}

/** A toggle button for one word; the tick is decoration (the state is aria-pressed). */
function chip(text, pressed, test, onClick) {
  const b = button({ text: "", cls: "chip", pressed, test, onClick });
  b.append(h("span", { class: "chip-tick", "aria-hidden": "true", text: "✓" }), h("span", { text }));
  return b;
}

export function panel2(ctx) {
  const { engine } = ctx;
  const id = newId("p2");
  let word = state.int("p2.word", 0, 0, 999) - 1; // 1-based in the URL; -1 = default
  let marks = null; // Set of indices, from the URL or the default for the sentence
  let wv = null;

  const sent = sentenceBox(ctx, "words", () => {
    word = -1;
    marks = null;
    state.put("p2.word", null, null);
    state.put("p2.mark", null, null);
    render();
  });
  const wordSel = positionSelect({ id: `${id}-word`, label: t("p2.wordLabel"), key: "p2.word", test: "p2-word", onChange: (i) => { word = i; render(); } });
  const kwSlider = keySlider({
    id: `${id}-kw`,
    label: t("p2.kwLabel"),
    key: "p2.kw",
    def: DEF_KW,
    min: 0.2,
    max: 6,
    step: 0.1,
    format: (v) => t("p2.kwText", { w: fmt(v, 1) }),
    onChange: render,
    test: "p2-kw",
  });
  const scaleBox = keyCheckbox({ id: `${id}-scale`, label: "", key: "p2.scale", def: false, onChange: render, test: "p2-scale" });
  withFigures(ctx, "p2.scaleLabel", (text) => (scaleBox.root.querySelector("label").textContent = text)); // √ of the vectors' length
  const chips = h("div", { class: "chips", role: "group", "aria-labelledby": `${id}-marks` });
  const marksLabel = h("p", { id: `${id}-marks`, class: "ctl-caption", text: t("p2.marksLabel") });

  const vecCanvas = h("canvas", { class: "vec-canvas", role: "img" });
  const vecLabels = h("div", { class: "vec-labels", "aria-hidden": "true" });
  const vecAlt = h("div");
  const vecNote = h("p", { class: "note" });

  const cmp = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p2.rowHeader"), test: "p2-weights" });
  const scores = new HeatTable({ kind: "div", digits: 1, rowHeader: t("p2.rowHeader"), test: "p2-scores" });
  const nums = readouts([
    { key: "pos", label: t("p2.rPos"), test: "p2-on-marked-pos" },
    { key: "dot", label: t("p2.rDot"), test: "p2-on-marked-dot" },
    { key: "self", label: t("p2.rSelf"), test: "p2-self" },
    { key: "params", label: t("p2.rParams"), test: "p2-params" },
  ]);
  const msg = message();
  const tryBox = liveTry(ctx, "words", "p2-try-seed");
  const formulaDot = formula(t("p2.formulaDot"), "p2-formula-dot");

  let revealed = ""; // the columns the instruction names, last scrolled into view

  function render() {
    if (!ctx.loaded) return;
    const kw = kwSlider.value;
    const scale = scaleBox.value;
    wv = wordVectors(engine, ctx.shared.words);
    if (!showVectorStatus(ctx, sent, wv)) return;
    const { tokens, n, d } = wv;
    const names = labels(tokens);
    if (word < 0 || word >= n) word = defaultWord(tokens);
    if (!marks) {
      marks = new Set(readMarks(tokens));
    }
    wordSel.setTokens(names, word);

    // Marks: one toggle per word.
    chips.replaceChildren(
      ...names.map((nm, i) =>
        chip(nm, marks.has(i), `p2-mark-${i}`, () => {
          if (marks.has(i)) marks.delete(i);
          else marks.add(i);
          const enc = (l) => l.map((x) => x + 1).join(",") || "none";
          state.put("p2.mark", enc([...marks].sort((a, b) => a - b)), enc(defaultMarks(tokens)));
          render();
          ctx.shared.dispatchEvent(new Event("marks"));
          const b = chips.querySelector(`[data-test="p2-mark-${i}"]`);
          if (b) b.focus();
        }),
      ),
    );

    // The vectors themselves.
    const range = paintMatrix(vecCanvas, wv.vectors.data, n, d, { cell: 9, cellH: 18 });
    vecCanvas.setAttribute("aria-label", t("p2.vecLabel", { n, d }));
    vecLabels.replaceChildren(...names.map((nm) => h("div", { class: "vec-label", text: nm })));
    vecAlt.replaceChildren(
      details(
        t("ui.showNumbers"),
        numberTable({
          label: t("p2.vecTable", { n, d }),
          rows: names,
          cols: Array.from({ length: d }, (_, k) => String(k + 1)),
          data: wv.vectors.data,
          nr: n,
          nc: d,
          digits: 2,
        }),
      ),
    );
    vecNote.textContent = t("p2.vecRange", { r: fmt(range, 2) });

    try {
      // Rule 1: weights by distance in the sentence (kernel smoothing on positions).
      const pos = Float32Array.from({ length: n }, (_, i) => i);
      const byPos = engine.kernelSmooth(pos, pos, word, kw).weights;
      // Rule 2: raw dot product + softmax: self-attention with W_Q = W_K = I.
      const I = identity(d);
      const a = engine.attend(wv.vectors.data, n, d, I, I, d, scale, false);
      const dot = row(a.weights, word);
      const raw = row(a.scores, word);
      const want = Array.from({ length: n }, (_, j) => (marks.size && marks.has(j) ? 1 / marks.size : 0));
      const rowsData = [...byPos, ...dot, ...want];
      cmp.update({
        label: t("p2.cmpLabel", { word: names[word] }),
        rows: [t("p2.rowPos", { w: fmt(kw, 1) }), scale ? t("p2.rowDotScaled", figures(engine)) : t("p2.rowDot"), t("p2.rowWant")],
        cols: names,
        data: rowsData,
        nr: 3,
        nc: n,
      });
      scores.update({
        label: t("p2.scoreLabel", { word: names[word] }),
        rows: [t("p2.rowScore", { word: names[word] })],
        cols: names,
        data: Array.from(raw),
        nr: 1,
        nc: n,
      });
      // The instruction names the words the distance kernel favours in this sentence (engine's weights).
      const near = Array.from(byPos.keys()).filter((j) => j !== word).sort((a, b) => byPos[b] - byPos[a]);
      tryBox.set(near.length >= 2 ? t("p2.try", { word: names[word], a: names[near[0]], b: names[near[1]] }) : t("p2.tryShort"));
      // the words the instruction names, in view where the tables scroll (a phone)
      const named = near.length >= 2 ? [word, near[0], near[1]] : [word];
      if (`${names.join(" ")}|${named}` !== revealed) {
        revealed = `${names.join(" ")}|${named}`;
        cmp.reveal(named);
        scores.reveal(named);
      }
      setFormula(formulaDot, t(scale ? "p2.formulaDotScaled" : "p2.formulaDot", figures(engine)));
      const on = (w) => [...marks].reduce((acc, j) => acc + w[j], 0);
      if (marks.size) {
        nums.set("pos", fmt(on(byPos), 3), on(byPos));
        nums.set("dot", fmt(on(dot), 3), on(dot));
      } else {
        nums.set("pos", "—");
        nums.set("dot", "—");
      }
      nums.set("self", `${fmt(dot[word], 3)} (${names[word]})`, dot[word]);
      nums.set("params", t("p2.paramsText"), 0);
      msg.clear();
    } catch (e) {
      engineError(ctx, msg, e);
    }
  }

  const panel = panelOf(
    ctx,
    "p2",
    figureText(ctx, "p", "p2.vectors"),
    sent.root,
    h("div", { class: "vec-view" }, vecLabels, scrollBox(h("div", { class: "vec-scroll" }, vecCanvas))),
    vecNote,
    vecAlt,
    h("h3", { text: t("p2.problemTitle") }),
    h("p", { text: t("p2.problem") }),
    tryBox.root,
    controls(wordSel.root, kwSlider.root, scaleBox.root),
    marksLabel,
    chips,
    formula(t("p2.formulaPos")),
    formulaDot,
    cmp.root,
    scores.root,
    msg.root,
    nums.root,
    h("p", { text: t("p2.verdict") }),
  );
  ctx.ready(render);
  return panel;
}

