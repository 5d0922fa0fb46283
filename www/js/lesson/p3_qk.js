// Panel 3: query and key matrices. The sentence's GloVe vectors projected onto their two
// principal axes (Words.project().points), 2x2 W_Q and W_K with a slider per entry, presets,
// and a query arrow that can be dragged. attend(points, W_Q, W_K, d_k = 2) gives every word's
// row of weights and its output (the weighted average of the points), redrawn while dragging.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, s, attrs, fmt, row, svgPoint, slider, formula, setFormula, readouts, HeatTable, message, newId, button, keepTextSize } from "./ui.js";
import { wordVectors, labels, defaultWord, sentenceBox, showVectorStatus, liveTry, positionSelect, keyCheckbox, panelOf, controls, engineError, figureText } from "./shared.js";
import { readMarks } from "./p2_words.js";
import { ROLE } from "../colors.js";

const I2 = [1, 0, 0, 1];
const LIM = 3;

function rotScale(theta, k) {
  const c = Math.cos(theta) * k;
  const sn = Math.sin(theta) * k;
  return [c, -sn, sn, c];
}

const round2 = (v) => Math.round(Math.min(LIM, Math.max(-LIM, v)) * 100) / 100;

/** The plane's side, in its own units (its viewBox). */
const SZ = 480;

/** How much two boxes {x, y, w, h} overlap (their common area). */
function overlap(a, b) {
  return Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
}

/**
 * Put each label next to its point: `items` [{el (an SVG text on the page), x, y, r (the
 * point's radius), away (a first spot to try, or null)}], in order of importance. Each label is
 * measured as drawn (getBBox: its font is the page's, scaled by keepTextSize), then goes to the
 * first of its spots (away, right, left, above, below its point, then right and left of it a
 * line up or down, two lines, ...) that lies in the plane and covers neither a label placed
 * before it nor a `hard` box, and among those the one covering the least of the `soft` boxes.
 * A label moved off its point gets a leader line (into `leaders`).
 * @param {{el: SVGTextElement, x: number, y: number, r: number, away: number[] | null}[]} items
 * @param {{x: number, y: number, w: number, h: number}[]} hard
 * @param {{x: number, y: number, w: number, h: number}[]} soft
 * @param {SVGGElement} leaders
 */
export function placeLabels(items, hard, soft, leaders) {
  const sizes = items.map(({ el }) => {
    let b = null;
    try {
      b = el.getBBox();
    } catch {
      /* not laid out */
    }
    if (b && b.width > 0) return { w: b.width, asc: -b.y, h: b.height };
    // not on screen yet: an estimate at the CSS size (12 units, CJK twice as wide)
    const w = [...el.textContent].reduce((acc, ch) => acc + (ch.charCodeAt(0) > 0x2e80 ? 12 : 7), 0);
    return { w, asc: 11, h: 15 };
  });
  const placed = hard.map((b) => ({ x: b.x - 1, y: b.y - 1, w: b.w + 2, h: b.h + 2 }));
  const lines = [];
  items.forEach((it, i) => {
    const { w, asc, h: hgt } = sizes[i];
    const mid = asc - hgt / 2; // baseline offset that centres the label on a point
    const near = [
      [it.x + it.r + 3, it.y + mid],
      [it.x - it.r - 3 - w, it.y + mid],
      [it.x - w / 2, it.y - it.r - 2 - (hgt - asc)],
      [it.x - w / 2, it.y + it.r + 2 + asc],
    ];
    const spots = it.away ? [[it.away[0] - (it.away[0] < it.x ? w : 0), it.away[1] + mid], ...near] : near;
    const adjacent = spots.length;
    for (let k = 1; k <= 8; k++) {
      for (const dy of [k * (hgt + 1), -k * (hgt + 1)]) spots.push([it.x + it.r + 3, it.y + mid + dy], [it.x - it.r - 3 - w, it.y + mid + dy]);
    }
    let best = null;
    spots.forEach(([x, y], k) => {
      const box = { x, y: y - asc, w, h: hgt };
      if (box.x < 1 || box.y < 1 || box.x + w > SZ - 1 || box.y + hgt > SZ - 1) return;
      const cost = 1e6 * placed.reduce((acc, p) => acc + overlap(box, p), 0) + 0.2 * soft.reduce((acc, p) => acc + overlap(box, p), 0) + 20 * k;
      if (!best || cost < best.cost) best = { x, y, box, cost, k };
    });
    if (!best) best = { x: Math.max(1, Math.min(SZ - w - 1, it.x)), y: Math.max(asc + 1, Math.min(SZ - 1, it.y)), box: null, cost: 0, k: 0 };
    it.el.setAttribute("x", best.x.toFixed(1));
    it.el.setAttribute("y", best.y.toFixed(1));
    const box = best.box || { x: best.x, y: best.y - asc, w, h: hgt };
    placed.push({ x: box.x - 1, y: box.y - 1, w: box.w + 2, h: box.h + 2 });
    if (best.k >= adjacent) {
      const lx = Math.max(box.x, Math.min(box.x + box.w, it.x));
      const ly = Math.max(box.y, Math.min(box.y + box.h, it.y));
      lines.push(s("line", { x1: it.x, y1: it.y, x2: lx, y2: ly, class: "leader" }));
    }
  });
  leaders.replaceChildren(...lines);
}

export function panel3(ctx) {
  const { engine } = ctx;
  const id = newId("p3");
  let wq = state.nums("p3.wq", I2, 4, -LIM, LIM);
  let wk = state.nums("p3.wk", I2, 4, -LIM, LIM);
  let word = state.int("p3.word", 0, 0, 999) - 1;
  let wv = null;
  let last = null; // last attend result

  const sent = sentenceBox(ctx, "words", () => {
    word = -1;
    state.put("p3.word", null, null);
    render();
  });
  ctx.shared.addEventListener("marks", () => render());

  const wordSel = positionSelect({ id: `${id}-word`, label: t("p3.wordLabel"), key: "p3.word", test: "p3-word", onChange: (i) => { word = i; render(); } });
  const scaleBox = keyCheckbox({ id: `${id}-scale`, label: t("p3.scaleLabel"), key: "p3.scale", def: true, onChange: () => render(), test: "p3-scale" });

  // --- matrix sliders
  const mk = (name, which) => {
    const cells = [];
    const grid = h("div", { class: `matrix matrix-${which}`, role: "group", "aria-label": t(`p3.${which}Group`) });
    for (let r = 0; r < 2; r++) {
      for (let c = 0; c < 2; c++) {
        const k = r * 2 + c;
        const sl = slider({
          id: `${id}-${which}${k}`,
          label: `${name}[${r + 1},${c + 1}]`,
          min: -LIM,
          max: LIM,
          step: 0.05,
          value: (which === "wq" ? wq : wk)[k],
          format: (v) => fmt(v, 2),
          onInput: (v) => {
            (which === "wq" ? wq : wk)[k] = v;
            saveMatrices();
            render(true);
          },
          test: `p3-${which}-${r}${c}`,
        });
        cells.push(sl);
        grid.append(sl.root);
      }
    }
    return { cells, grid };
  };
  const qSl = mk("W_Q", "wq");
  const kSl = mk("W_K", "wk");

  function saveMatrices() {
    state.put("p3.wq", state.numsText(wq), state.numsText(I2));
    state.put("p3.wk", state.numsText(wk), state.numsText(I2));
  }

  function setMatrices(q, k) {
    wq = q.map(round2);
    wk = k.map(round2);
    qSl.cells.forEach((c, i) => c.set(wq[i]));
    kSl.cells.forEach((c, i) => c.set(wk[i]));
    saveMatrices();
    render();
  }

  const presetMsg = message();
  const presets = h(
    "div",
    { class: "presets", role: "group", "aria-label": t("p3.presets") },
    button({ text: t("p3.presetIdentity"), cls: "btn btn-small", test: "p3-preset-identity", onClick: () => setMatrices(I2, I2) }),
    button({ text: t("p3.presetToward"), cls: "btn btn-small", test: "p3-preset-toward", onClick: () => towardMarked() }),
    button({ text: t("p3.presetZero"), cls: "btn btn-small", test: "p3-preset-zero", onClick: () => setMatrices([0, 0, 0, 0], I2) }),
    button({ text: t("p3.presetSharp"), cls: "btn btn-small", test: "p3-preset-sharp", onClick: () => setMatrices(wq.map((v) => v * 2), wk) }),
  );

  /** K = I, and W_Q a rotation (and stretch) that turns the selected word toward the marked words. */
  function towardMarked() {
    if (!wv || wv.error) return;
    const P = wv.points.data;
    const marks = readMarks(wv.tokens).filter((j) => j !== word);
    if (!marks.length) {
      presetMsg.show("warn", t("p3.noMarks"));
      return;
    }
    let tx = 0;
    let ty = 0;
    for (const j of marks) {
      tx += P[j * 2];
      ty += P[j * 2 + 1];
    }
    tx /= marks.length;
    ty /= marks.length;
    const ax = P[word * 2];
    const ay = P[word * 2 + 1];
    if (Math.hypot(ax, ay) < 1e-6 || Math.hypot(tx, ty) < 1e-6) {
      presetMsg.show("warn", t("p3.zeroVector"));
      return;
    }
    presetMsg.show("info", t("p3.towardDone", { words: marks.map((j) => wv.tokens[j]).join(", ") }));
    const theta = Math.atan2(ty, tx) - Math.atan2(ay, ax);
    setMatrices(rotScale(theta, 1.5), I2);
  }

  // --- the plane
  const svg = s("svg", { class: "plot p3-plot", viewBox: `0 0 ${SZ} ${SZ}`, role: "group", "aria-labelledby": `${id}-plane` });
  const planeLabel = h("p", { id: `${id}-plane`, class: "sr-only", text: t("p3.planeLabel") });
  const layer = s("g");
  const qHandle = s("circle", {
    r: 9,
    class: "q-handle",
    tabindex: 0,
    role: "slider",
    "aria-roledescription": t("p3.handleRole"),
    "aria-label": t("p3.handleLabel"),
    "data-test": "p3-qhandle",
  });
  svg.append(layer, qHandle);
  let redraw = null; // the last plane drawn, to lay its labels out again at another text size
  keepTextSize(svg, () => redraw && redraw());
  let R = 4; // half-width of the view in data units
  const toS = (x, y) => [SZ / 2 + (x / R) * (SZ / 2 - 24), SZ / 2 - (y / R) * (SZ / 2 - 24)];
  const fromS = (sx, sy) => [((sx - SZ / 2) / (SZ / 2 - 24)) * R, (-(sy - SZ / 2) / (SZ / 2 - 24)) * R];

  /** Dragging the query's tip: W_Q becomes the rotation + stretch that sends x to the tip. */
  function aimQuery(tx, ty) {
    const P = wv.points.data;
    const ax = P[word * 2];
    const ay = P[word * 2 + 1];
    const len = Math.hypot(ax, ay);
    if (len < 1e-6) return;
    const theta = Math.atan2(ty, tx) - Math.atan2(ay, ax);
    const k = Math.min(LIM * 0.99, Math.hypot(tx, ty) / len);
    wq = rotScale(theta, k).map(round2);
    qSl.cells.forEach((c, i) => c.set(wq[i]));
    saveMatrices();
    render(true);
  }
  let dragging = false;
  qHandle.addEventListener("pointerdown", (e) => {
    dragging = true;
    qHandle.setPointerCapture(e.pointerId);
    e.preventDefault();
    qHandle.focus({ preventScroll: true });
  });
  qHandle.addEventListener("pointermove", (e) => {
    if (!dragging) return;
    const p = svgPoint(svg, e) || { x: SZ / 2, y: SZ / 2 };
    aimQuery(...fromS(p.x, p.y));
  });
  qHandle.addEventListener("pointerup", () => (dragging = false));
  qHandle.addEventListener("pointercancel", () => (dragging = false));
  qHandle.addEventListener("keydown", (e) => {
    if (!last) return;
    const q = row(last.q, word);
    let [x, y] = [q[0], q[1]];
    const ang = Math.atan2(y, x);
    const len = Math.hypot(x, y);
    switch (e.key) {
      case "ArrowLeft": [x, y] = [len * Math.cos(ang + 0.087), len * Math.sin(ang + 0.087)]; break;
      case "ArrowRight": [x, y] = [len * Math.cos(ang - 0.087), len * Math.sin(ang - 0.087)]; break;
      case "ArrowUp": [x, y] = [x * 1.1, y * 1.1]; break;
      case "ArrowDown": [x, y] = [x / 1.1, y / 1.1]; break;
      default: return;
    }
    e.preventDefault();
    aimQuery(x, y);
  });

  const heat = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p3.rowHeader"), onRow: (r) => wordSel.pick(r), test: "p3-weights" });
  const scoreRow = new HeatTable({ kind: "div", digits: 2, rowHeader: "", test: "p3-scores" });
  const nums = readouts([
    { key: "x", label: t("p3.rX"), test: "p3-x" },
    { key: "q", label: t("p3.rQ"), test: "p3-q" },
    { key: "out", label: t("p3.rOut"), test: "p3-out" },
    { key: "top", label: t("p3.rTop"), test: "p3-top" },
    { key: "params", label: t("p3.rParams"), test: "p3-params" },
  ]);
  const msg = message();
  const tryBox = liveTry(ctx, "words", "p3-try-seed");
  const formulaEl = formula(t("p3.formula"), "p3-formula");

  let named = []; // the columns the instruction names (updateTry)
  let revealed = ""; // ... last scrolled into view, with the sentence they were for

  /**
   * The instruction: on a sentence with "friend" and "emma", the lecture's; otherwise it names
   * the selected word and the word whose 2-D vector points most away from it (the projection is
   * the engine's), so that turning the query toward it visibly raises its weight, and offers the
   * lecture's sentence back.
   */
  function updateTry(names) {
    const toks = wv.tokens;
    if (toks.includes("friend") && toks.includes("emma")) {
      tryBox.set(t("p3.try"));
      named = [toks.indexOf("emma")];
      return;
    }
    const P = wv.points.data;
    const ax = P[word * 2];
    const ay = P[word * 2 + 1];
    const la = Math.hypot(ax, ay);
    let target = -1;
    let best = Infinity;
    for (let j = 0; j < toks.length; j++) {
      const lj = Math.hypot(P[j * 2], P[j * 2 + 1]);
      if (j === word || lj < 1e-6 || la < 1e-6) continue;
      const cos = (ax * P[j * 2] + ay * P[j * 2 + 1]) / (la * lj);
      if (cos < best) {
        best = cos;
        target = j;
      }
    }
    tryBox.set(target < 0 ? t("p3.tryNone") : t("p3.tryOwn", { word: names[word], target: names[target] }), true);
    named = target < 0 ? [] : [target];
  }

  function render(live = false) {
    if (!ctx.loaded) return;
    if (!live || !wv) {
      wv = wordVectors(engine, ctx.shared.words);
      if (!wv.error) {
        let m = 0.5;
        const P = wv.points.data;
        for (const v of P) m = Math.max(m, Math.abs(v));
        R = m * 1.35;
      }
    }
    if (!showVectorStatus(ctx, sent, wv)) return;
    const { tokens, n } = wv;
    const names = labels(tokens);
    if (word < 0 || word >= n) word = defaultWord(tokens);
    wordSel.setTokens(names, word);
    const scale = scaleBox.value;
    let a;
    try {
      a = engine.attend(wv.points.data, n, 2, wq, wk, 2, scale, false);
    } catch (e) {
      engineError(ctx, msg, e);
      return;
    }
    msg.clear();
    last = a;
    if (!live) updateTry(names);
    redraw = () => drawPlane(a, names);
    setFormula(formulaEl, t(scale ? "p3.formula" : "p3.formulaNoScale"));
    drawPlane(a, names);
    heat.update({
      label: t("p3.heatLabel"),
      rows: names,
      cols: names,
      data: a.weights.data,
      nr: n,
      nc: n,
      selected: word,
    });
    scoreRow.update({
      label: t(scale ? "p3.scoreLabel" : "p3.scoreLabelNoScale", { word: names[word] }),
      rows: [t(scale ? "p3.scoreRow" : "p3.scoreRowNoScale", { word: names[word] })],
      cols: names,
      data: Array.from(row(a.logits, word)),
      nr: 1,
      nc: n,
    });
    // the word the instruction names, in view where the tables scroll (a phone)
    if (!live && `${names.join(" ")}|${named}` !== revealed) {
      revealed = `${names.join(" ")}|${named}`;
      heat.reveal(named);
      scoreRow.reveal(named);
    }
    const x = row(wv.points, word);
    const q = row(a.q, word);
    const out = row(a.output, word);
    const w = row(a.weights, word);
    const order = Array.from(w.keys()).sort((i, j) => w[j] - w[i]).slice(0, 3);
    nums.set("x", `(${fmt(x[0], 2)}, ${fmt(x[1], 2)})`);
    nums.set("q", `(${fmt(q[0], 2)}, ${fmt(q[1], 2)})`);
    nums.set("out", `(${fmt(out[0], 2)}, ${fmt(out[1], 2)})`);
    nums.set("top", order.map((j) => `${names[j]} ${fmt(w[j], 2)}`).join(" · "));
    nums.set("params", t("p3.paramsText"), 8);
  }

  function drawPlane(a, names) {
    const n = names.length;
    const P = wv.points.data;
    const K = a.k.data;
    const w = row(a.weights, word);
    const q = row(a.q, word);
    const out = row(a.output, word);
    const marks = new Set(readMarks(wv.tokens));
    const kids = [];
    const [ox, oy] = toS(0, 0);
    kids.push(s("line", { x1: 0, x2: SZ, y1: oy, y2: oy, class: "axis-zero" }), s("line", { x1: ox, x2: ox, y1: 0, y2: SZ, class: "axis-zero" }));
    kids.push(s("text", { x: SZ - 4, y: oy - 6, class: "tick", "text-anchor": "end", text: t("p3.axis1") }));
    kids.push(s("text", { x: ox + 6, y: 14, class: "tick", text: t("p3.axis2") }));
    // word vectors (also the values): arrows from the origin, dots sized by weight
    for (let j = 0; j < n; j++) {
      const [x, y] = toS(P[j * 2], P[j * 2 + 1]);
      kids.push(s("line", { x1: ox, y1: oy, x2: x, y2: y, class: "vec-arrow" }));
    }
    // keys
    for (let j = 0; j < n; j++) {
      const [x, y] = toS(K[j * 2], K[j * 2 + 1]);
      kids.push(s("circle", { cx: x, cy: y, r: 5, class: "key-ring", stroke: ROLE.key }));
    }
    const dots = [];
    for (let j = 0; j < n; j++) {
      const [x, y] = toS(P[j * 2], P[j * 2 + 1]);
      const r = 3 + 13 * Math.sqrt(Math.max(0, w[j]));
      dots.push({ x, y, r, el: s("circle", { cx: x, cy: y, r: r.toFixed(2), class: j === word ? "word-dot word-dot-sel" : "word-dot", "fill-opacity": (0.25 + 0.6 * Math.sqrt(w[j])).toFixed(3) }) });
    }
    kids.push(...dots.map((d) => d.el));
    const [qx, qy] = toS(q[0], q[1]);
    const [outx, outy] = toS(out[0], out[1]);
    // output of the selected word
    kids.push(s("line", { x1: ox, y1: oy, x2: outx, y2: outy, class: "out-arrow" }));
    kids.push(s("path", { d: `M ${outx} ${outy - 8} L ${outx + 8} ${outy} L ${outx} ${outy + 8} L ${outx - 8} ${outy} Z`, class: "out-diamond" }));
    // query of the selected word
    kids.push(s("line", { x1: ox, y1: oy, x2: qx, y2: qy, class: "q-arrow", stroke: ROLE.query }));
    // The labels, the selected word's query and output first (they matter most), then every
    // word's name and weight, each put where it covers no label before it (placeLabels).
    const leaders = s("g");
    const texts = s("g");
    kids.push(leaders, texts);
    layer.replaceChildren(...kids);
    const away = (x, y, gap) => {
      const dx = x - ox;
      const dy = y - oy;
      const len = Math.hypot(dx, dy) || 1;
      return [x + (dx / len) * gap, y + (dy / len) * gap];
    };
    const items = [
      { el: s("text", { class: "q-label", fill: ROLE.query, text: t("p3.qLabel", { word: names[word] }) }), x: qx, y: qy, r: 11, away: away(qx, qy, 14) },
      { el: s("text", { class: "out-label", text: t("p3.outLabel", { word: names[word] }) }), x: outx, y: outy, r: 10, away: away(outx, outy, 14) },
      ...dots.map((d, j) => ({
        el: s("text", { class: `word-label${j === word ? " word-label-sel" : ""}${marks.has(j) ? " word-label-marked" : ""}`, text: `${names[j]} ${fmt(w[j], 2)}` }),
        x: d.x,
        y: d.y,
        r: d.r,
        away: null,
      })),
    ];
    texts.replaceChildren(...items.map((it) => it.el));
    // what a label should not cover: the handle and the diamond; the dots, if it can help it
    const hard = [{ x: qx - 11, y: qy - 11, w: 22, h: 22 }, { x: outx - 9, y: outy - 9, w: 18, h: 18 }];
    const soft = dots.map((d) => ({ x: d.x - d.r, y: d.y - d.r, w: 2 * d.r, h: 2 * d.r }));
    placeLabels(items, hard, soft, leaders);
    layer.replaceChildren(...kids);
    attrs(qHandle, { cx: qx, cy: qy, fill: ROLE.query });
    qHandle.setAttribute("aria-valuetext", t("p3.handleText", { x: fmt(q[0], 2), y: fmt(q[1], 2) }));
  }

  const panel = panelOf(
    ctx,
    "p3",
    figureText(ctx, "p", "p3.plane"),
    sent.root,
    tryBox.root,
    controls(wordSel.root, scaleBox.root),
    h(
      "div",
      { class: "p3-layout" },
      h("div", { class: "p3-left" }, planeLabel, h("div", { class: "plot-wrap" }, svg), h("p", { class: "legend", text: t("p3.legend") })),
      h(
        "div",
        { class: "p3-right" },
        h("h3", { text: t("p3.matricesTitle") }),
        h("p", { class: "ctl-caption", text: "W_Q" }),
        qSl.grid,
        h("p", { class: "ctl-caption", text: "W_K" }),
        kSl.grid,
        presets,
        presetMsg.root,
      ),
    ),
    formulaEl,
    msg.root,
    nums.root,
    scoreRow.root,
    h("h3", { text: t("p3.allTitle") }),
    h("p", { text: t("p3.all") }),
    heat.root,
    h("p", { text: t("p3.caveat") }),
  );
  ctx.ready(render);
  return panel;
}
