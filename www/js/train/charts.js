// The playground's live charts, drawn on canvas from the numbers the trainer reports: the
// learning curves (loss on a log scale; accuracies and the saturated share on 0..1) and the
// gradient norm per layer (bars on a log scale). Each canvas has a text alternative that the
// caller fills (a table of the numbers).

import { sizeCanvas, FONT_SMALL } from "../dom.js";

/** Colours of the series (the legend's swatches too: main.js). */
export const SERIES = { loss: "#1f5fbf", acc: "#8a8a8a", held: "#0a7d32", sat: "#c2410c" };

/**
 * One chart of series against the step. `log`: a log-scale y axis (the loss), else 0..1.
 * @param {HTMLCanvasElement} canvas
 * @param {{steps: number[], lines: {values: number[], colour: string, steps?: number[], dash?: boolean}[], log?: boolean, width: number, height: number, yLabel: string}} o
 */
export function drawCurves(canvas, { steps, lines, log = false, width, height, yLabel }) {
  const g = sizeCanvas(canvas, width, height);
  const pad = { l: 40, r: 8, t: 8, b: 18 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  g.clearRect(0, 0, width, height);
  g.font = FONT_SMALL;
  const last = steps.length ? steps[steps.length - 1] : 1;
  const xMax = Math.max(10, last);
  let lo = 0;
  let hi = 1;
  if (log) {
    const all = lines.flatMap((l) => l.values).filter((v) => v > 0 && Number.isFinite(v));
    lo = Math.log10(Math.max(1e-4, Math.min(...all, 1)));
    hi = Math.log10(Math.max(...all, 1));
    lo = Math.floor(lo);
    hi = Math.ceil(hi + 1e-9);
    if (hi <= lo) hi = lo + 1;
  }
  const y = (v) => {
    const u = log ? (Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo) : v;
    return pad.t + h * (1 - Math.min(1, Math.max(0, u)));
  };
  const x = (s) => pad.l + (w * s) / xMax;
  // axes and ticks
  g.strokeStyle = "#d0d0d8";
  g.fillStyle = "#555";
  g.lineWidth = 1;
  g.textAlign = "right";
  g.textBaseline = "middle";
  const ticks = log ? Array.from({ length: hi - lo + 1 }, (_, i) => 10 ** (lo + i)) : [0, 0.5, 1];
  for (const v of ticks) {
    g.beginPath();
    g.moveTo(pad.l, y(v) + 0.5);
    g.lineTo(pad.l + w, y(v) + 0.5);
    g.stroke();
    g.fillText(log ? formatTick(v) : `${Math.round(v * 100)}%`, pad.l - 4, y(v));
  }
  g.textAlign = "center";
  g.textBaseline = "top";
  for (const s of [0, Math.round(xMax / 2), xMax]) g.fillText(String(s), Math.min(x(s), pad.l + w - 10), pad.t + h + 4);
  g.save();
  g.translate(10, pad.t + h / 2);
  g.rotate(-Math.PI / 2);
  g.textBaseline = "middle";
  g.fillText(yLabel, 0, 0);
  g.restore();
  // the series: at most one point per pixel column
  for (const line of lines) {
    const xs = line.steps || steps;
    const n = line.values.length;
    if (!n) continue;
    const stride = Math.max(1, Math.floor(n / w));
    g.strokeStyle = line.colour;
    g.lineWidth = 1.5;
    g.setLineDash(line.dash ? [4, 3] : []);
    g.beginPath();
    for (let i = 0; i < n; i += stride) {
      const px = x(xs[i]);
      const py = y(line.values[i]);
      if (i === 0) g.moveTo(px, py);
      else g.lineTo(px, py);
    }
    g.lineTo(x(xs[n - 1]), y(line.values[n - 1]));
    g.stroke();
  }
  g.setLineDash([]);
}

function formatTick(v) {
  return v >= 1 ? String(v) : v.toExponential(0).replace("e-", "e−");
}

/**
 * The gradient norm per layer as horizontal bars on a log scale from 1e-8 to the largest.
 * @param {HTMLCanvasElement} canvas
 * @param {{layer: string, label: string, norm: number}[]} norms
 * @param {number} width
 */
export function drawNorms(canvas, norms, width) {
  const rowH = 18;
  const labelW = 110;
  const height = Math.max(rowH, norms.length * rowH) + 4;
  const g = sizeCanvas(canvas, width, height);
  g.clearRect(0, 0, width, height);
  g.font = FONT_SMALL;
  const top = Math.max(1e-8, ...norms.map((n) => n.norm));
  const hi = Math.ceil(Math.log10(top) + 1e-9);
  const lo = -8;
  const barW = width - labelW - 70;
  norms.forEach((n, i) => {
    const yy = 2 + i * rowH;
    g.fillStyle = "#333";
    g.textAlign = "left";
    g.textBaseline = "middle";
    g.fillText(n.label, 0, yy + rowH / 2);
    const u = n.norm > 0 ? (Math.log10(n.norm) - lo) / (hi - lo) : 0;
    g.fillStyle = n.layer.startsWith("encoder") ? "#6b8fd6" : "#d08a4a";
    g.fillRect(labelW, yy + 3, Math.max(1, barW * Math.min(1, Math.max(0, u))), rowH - 6);
    g.fillStyle = "#333";
    g.fillText(n.norm === 0 ? "0" : n.norm.toExponential(1), labelW + barW + 6, yy + rowH / 2);
  });
}
