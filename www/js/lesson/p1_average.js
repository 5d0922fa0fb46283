// Panel 1: a weighted average in one dimension. Noisy data (a seeded generator: data, not model
// numbers), a point of interest x0 that can be dragged (pointer or keys), a bell-shaped kernel
// of adjustable width. The weights, their logits and the smoothed value are the engine's
// kernelSmooth; the smoothed curve is kernelSmooth evaluated at many x0.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, s, attrs, fmt, svgPoint, slider, formula, tryThis, readouts, HeatTable, message, newId, keepTextSize } from "./ui.js";
import { keySlider, panelOf, controls, engineError } from "./shared.js";
import { ROLE } from "../colors.js";

const N = 40;
const XMAX = 10;
const DEF_X0 = 6.2;
const DEF_W = 0.8;

/** mulberry32: a small seeded generator, so every reader sees the same noisy data. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

function makeData() {
  const r = rng(20240611);
  const xs = [];
  for (let i = 0; i < N; i++) xs.push(((i + 0.15 + 0.7 * r()) / N) * XMAX);
  const ys = xs.map((x) => {
    const u = Math.max(1e-9, r());
    const v = r();
    const noise = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return 1.1 * Math.sin(0.8 * x) + 0.45 * Math.sin(2.1 * x + 1) + 0.45 * noise;
  });
  return { xs: Float32Array.from(xs), ys: Float32Array.from(ys) };
}

// Plot geometry (SVG user units).
const W = 680;
const PL = 44;
const PR = 16;
const TOP = 14;
const YH = 210; // data area height
const WT = 250; // top of the weight strip
const WH = 70; // weight strip height
const H = WT + WH + 58; // below the weights: the x axis's numbers, then the handle
const YMIN = -3;
const YMAX = 3;
const px = (x) => PL + (x / XMAX) * (W - PL - PR);
const py = (y) => TOP + ((YMAX - y) / (YMAX - YMIN)) * YH;
const xOf = (sx) => ((sx - PL) / (W - PL - PR)) * XMAX;

export function panel1(ctx) {
  const { engine } = ctx;
  const data = makeData();
  let x0 = state.num("p1.x0", DEF_X0, 0, XMAX);
  const grid = Float32Array.from({ length: 161 }, (_, i) => (i / 160) * XMAX);

  const msg = message();
  const id = newId("p1");

  // --- controls
  const xSlider = slider({
    id: `${id}-x0`,
    label: t("p1.x0Label"),
    min: 0,
    max: XMAX,
    step: 0.05,
    value: x0,
    format: (v) => fmt(v, 2),
    onInput: (v) => setX0(v),
    test: "p1-x0",
  });
  const wSlider = keySlider({
    id: `${id}-w`,
    label: t("p1.widthLabel"),
    key: "p1.w",
    def: DEF_W,
    min: 0.1,
    max: 3,
    step: 0.05,
    format: (v) => `σ = ${fmt(v, 2)}`,
    onChange: () => {
      curve = null;
      render();
    },
    test: "p1-width",
  });

  // --- the plot
  const svg = s("svg", { class: "plot p1-plot", viewBox: `0 0 ${W} ${H}`, role: "group", "aria-labelledby": `${id}-plot-label` });
  const plotLabel = h("p", { id: `${id}-plot-label`, class: "sr-only", text: t("p1.plotLabel") });
  const axes = s("g", { class: "axes", "aria-hidden": "true" });
  axes.append(
    s("line", { x1: PL, x2: W - PR, y1: py(0), y2: py(0), class: "axis-zero" }),
    s("line", { x1: PL, x2: W - PR, y1: WT + WH + 0.5, y2: WT + WH + 0.5, class: "axis" }),
  );
  for (let x = 0; x <= XMAX; x += 2) {
    // hung from just under the axis, so that a larger font (keepTextSize) grows away from it
    axes.append(s("text", { x: px(x), y: WT + WH + 6, class: "tick", "dominant-baseline": "hanging", "text-anchor": "middle", text: String(x) }));
    axes.append(s("line", { x1: px(x), x2: px(x), y1: WT + WH, y2: WT + WH + 4, class: "axis" }));
  }
  axes.append(
    s("text", { x: 4, y: TOP + 10, class: "axis-title", text: "y" }),
    s("text", { x: 4, y: WT + 10, class: "axis-title", text: t("p1.weightAxis") }),
  );
  const bell = s("path", { class: "bell", "aria-hidden": "true" });
  const bars = s("g", { class: "wbars", "aria-hidden": "true" });
  const curvePath = s("path", { class: "smooth", "aria-hidden": "true" });
  const dots = s("g", { class: "dots", "aria-hidden": "true" });
  const circles = [];
  const wbars = [];
  for (let i = 0; i < N; i++) {
    const c = s("circle", { cx: px(data.xs[i]), cy: py(data.ys[i]), r: 3 });
    circles.push(c);
    dots.append(c);
    const b = s("rect", { x: px(data.xs[i]) - 2.5, width: 5, y: WT + WH, height: 0 });
    wbars.push(b);
    bars.append(b);
  }
  const vline = s("line", { class: "x0-line", y1: TOP, y2: WT + WH, "aria-hidden": "true" });
  const yhatDot = s("circle", { class: "yhat", r: 6, "aria-hidden": "true" });
  const handle = s("g", {
    class: "handle",
    tabindex: 0,
    role: "slider",
    "aria-label": t("p1.handleLabel"),
    "aria-valuemin": 0,
    "aria-valuemax": XMAX,
    "data-test": "p1-handle",
  });
  const handleShape = s("path", { d: "M -9 6 L 0 -7 L 9 6 Z", class: "handle-shape" });
  const handleText = s("text", { class: "handle-text", x: 12, y: 6, text: "x₀" });
  handle.append(s("rect", { x: -14, y: -12, width: 44, height: 22, class: "handle-hit" }), handleShape, handleText);
  svg.append(axes, bell, bars, curvePath, dots, vline, yhatDot, handle);
  handle.setAttribute("transform", `translate(${px(x0).toFixed(2)},${WT + WH + 40})`); // where it is while the engine loads
  keepTextSize(svg); // the axis's numbers stay readable where the plot shrinks to a phone's width

  // Pointer: drag the handle, or press anywhere on the plot to move x0 there.
  let dragging = false;
  const toX = (e) => {
    const p = svgPoint(svg, e);
    return p ? xOf(p.x) : x0;
  };
  svg.addEventListener("pointerdown", (e) => {
    dragging = true;
    svg.setPointerCapture(e.pointerId);
    setX0(toX(e));
    handle.focus({ preventScroll: true });
    e.preventDefault();
  });
  svg.addEventListener("pointermove", (e) => {
    if (dragging) setX0(toX(e));
  });
  const stop = () => {
    dragging = false;
  };
  svg.addEventListener("pointerup", stop);
  svg.addEventListener("pointercancel", stop);
  handle.addEventListener("keydown", (e) => {
    const step = { ArrowLeft: -0.1, ArrowDown: -0.1, ArrowRight: 0.1, ArrowUp: 0.1, PageDown: -1, PageUp: 1 }[e.key];
    if (step !== undefined) setX0(x0 + step);
    else if (e.key === "Home") setX0(0);
    else if (e.key === "End") setX0(XMAX);
    else return;
    e.preventDefault();
  });

  function setX0(v) {
    x0 = Math.round(Math.min(XMAX, Math.max(0, v)) * 100) / 100;
    state.put("p1.x0", x0, DEF_X0);
    xSlider.set(x0);
    render();
  }

  // --- numbers
  const nums = readouts([
    { key: "x0", label: t("p1.rX0"), test: "p1-x0-value" },
    { key: "value", label: t("p1.rValue"), test: "p1-value" },
    { key: "sum", label: t("p1.rSum"), test: "p1-sum" },
    { key: "max", label: t("p1.rMax"), test: "p1-max" },
    { key: "count", label: t("p1.rCount"), test: "p1-count" },
  ]);
  const top = new HeatTable({ kind: "seq", digits: 4, rowHeader: t("p1.colPoint"), test: "p1-table" });
  top.table.classList.add("p1-table");

  let curve = null; // the smoothed curve for the current width
  function render() {
    if (!ctx.loaded) return;
    const width = wSlider.value;
    let res;
    try {
      res = engine.kernelSmooth(data.xs, data.ys, x0, width);
      if (!curve) {
        curve = Array.from(grid, (g) => engine.kernelSmooth(data.xs, data.ys, g, width).value);
        curvePath.setAttribute("d", curve.map((v, i) => `${i ? "L" : "M"}${px(grid[i]).toFixed(1)},${py(Math.max(YMIN, Math.min(YMAX, v))).toFixed(1)}`).join(""));
      }
      // The bell: the same kernel evaluated on a fine grid, drawn to the height of the largest weight.
      const fine = engine.kernelSmooth(grid, grid, x0, width).weights;
      const wmax = Math.max(...res.weights);
      const fmax = Math.max(...fine);
      const scale = (WH - 6) / Math.max(wmax, 1e-9);
      attrs(bell, {
        d: `M${px(0)},${WT + WH}` + fine.map((v, i) => `L${px(grid[i]).toFixed(1)},${(WT + WH - (v / fmax) * wmax * scale).toFixed(1)}`).join("") + `L${px(XMAX)},${WT + WH}Z`,
      });
      msg.clear();
      draw(res, scale);
    } catch (e) {
      engineError(ctx, msg, e);
    }
  }

  function draw(res, scale) {
    const w = res.weights;
    let sum = 0;
    let max = 0;
    for (const v of w) {
      sum += v;
      max = Math.max(max, v);
    }
    for (let i = 0; i < N; i++) {
      const f = Math.sqrt(w[i] / max);
      attrs(circles[i], { r: (2.5 + 5.5 * f).toFixed(2), "fill-opacity": (0.18 + 0.82 * f).toFixed(3) });
      const bh = w[i] * scale;
      attrs(wbars[i], { y: (WT + WH - bh).toFixed(2), height: bh.toFixed(2) });
    }
    attrs(vline, { x1: px(x0), x2: px(x0) });
    attrs(yhatDot, { cx: px(x0), cy: py(Math.max(YMIN, Math.min(YMAX, res.value))) });
    handle.setAttribute("transform", `translate(${px(x0).toFixed(2)},${WT + WH + 40})`);
    handle.setAttribute("aria-valuenow", String(x0));
    handle.setAttribute("aria-valuetext", t("p1.handleText", { x: fmt(x0, 2), y: fmt(res.value, 3) }));

    // How many of the largest weights it takes to reach 90% of the total.
    const order = Array.from(w.keys()).sort((a, b) => w[b] - w[a]);
    let acc = 0;
    let count = 0;
    for (const i of order) {
      acc += w[i];
      count += 1;
      if (acc >= 0.9 * sum) break;
    }
    nums.set("x0", fmt(x0, 2), x0);
    nums.set("value", fmt(res.value, 4), res.value);
    nums.set("sum", fmt(sum, 6), sum);
    nums.set("max", fmt(max, 4), max);
    nums.set("count", t("p1.countText", { k: count, n: N }), count);

    const k = Math.min(6, N);
    const pick = order.slice(0, k).sort((a, b) => a - b);
    const cols = [t("p1.colX"), t("p1.colY"), t("p1.colLogit"), t("p1.colW"), t("p1.colWY")];
    const vals = [];
    for (const i of pick) vals.push(data.xs[i], data.ys[i], res.logits[i], w[i], w[i] * data.ys[i]);
    top.update({
      label: t("p1.tableLabel", { k }),
      rows: pick.map((i) => `#${i + 1}`),
      cols,
      data: vals,
      nr: pick.length,
      nc: cols.length,
      kind: "seq",
      plain: (r, c) => c !== 3, // only the weight column is a heat colour
    });
  }

  const panel = panelOf(
    ctx,
    "p1",
    h("p", { text: t("p1.kernel") }),
    tryThis(t("p1.try")),
    controls(xSlider.root, wSlider.root),
    plotLabel,
    h("div", { class: "plot-wrap" }, svg),
    h("p", { class: "legend" },
      h("span", { class: "key key-dot" }), t("p1.legendDots"), " ",
      h("span", { class: "key key-curve" }), t("p1.legendCurve"), " ",
      h("span", { class: "key key-bell" }), t("p1.legendBell")),
    msg.root,
    formula(t("p1.formula")),
    nums.root,
    top.root,
    h("h3", { text: t("p1.softmaxTitle") }),
    h("p", { text: t("p1.softmax") }),
    formula(t("p1.formulaSoftmax")),
    h("p", { text: t("p1.bridge") }),
  );
  // Colour identity for the handle (query colour: it plays the role of the query later).
  handleShape.setAttribute("fill", ROLE.query);
  ctx.ready(render);
  return panel;
}
