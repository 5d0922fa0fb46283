// Colour maps and identity colours, one meaning each, used by every view.
//
// - Identity colours (Okabe-Ito, safe for the common colour-vision deficiencies): query,
//   key and value keep one colour on every panel (labels, strips, outlines).
// - Weights (0..1) use a sequential single-hue purple ramp whose 0 is the panel background:
//   darker = more attention.
// - Signed values (raw scores, W_Q / W_K cells) use a diverging map: olive for negative,
//   white for 0, the same purple for positive (a larger score means more weight after softmax).
//   Olive/purple stays distinguishable along the blue-yellow axis that dichromats keep.

export const ROLE = {
  query: "#d55e00",
  key: "#0072b2",
  value: "#009e73",
  output: "#3b3b3b",
  weight: "#54278f",
};

/** Darker versions of the identity colours for text on white (contrast >= 4.5:1). */
export const ROLE_TEXT = {
  query: "#a34400",
  key: "#005a8c",
  value: "#006b4e",
  output: "#2b2b2b",
  weight: "#54278f",
};

export const BACKGROUND = "#ffffff";
export const GRID = "#e4e4ea";
export const MASKED = "#c9c9cf";

function hex(c) {
  return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)];
}

// Stops from 0 (background) to 1 (strongest).
const PURPLE = ["#ffffff", "#efedf5", "#dadaeb", "#bcbddc", "#9e9ac8", "#807dba", "#6a51a3", "#54278f", "#3f007d"].map(hex);
const OLIVE = ["#ffffff", "#f6ecc6", "#ead48c", "#d2b14f", "#b08d24", "#86690f", "#5c4800"].map(hex);

function lut(stops, n = 256) {
  const out = new Uint8ClampedArray(n * 3);
  for (let i = 0; i < n; i++) {
    const x = (i / (n - 1)) * (stops.length - 1);
    const a = Math.min(Math.floor(x), stops.length - 2);
    const f = x - a;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(stops[a][c] + (stops[a + 1][c] - stops[a][c]) * f);
  }
  return out;
}

const SEQ = lut(PURPLE);
const NEG = lut(OLIVE);
const CSS_SEQ = Array.from({ length: 256 }, (_, i) => `rgb(${SEQ[i * 3]},${SEQ[i * 3 + 1]},${SEQ[i * 3 + 2]})`);
const CSS_NEG = Array.from({ length: 256 }, (_, i) => `rgb(${NEG[i * 3]},${NEG[i * 3 + 1]},${NEG[i * 3 + 2]})`);

function index(x) {
  if (!(x > 0)) return 0; // also NaN
  return x >= 1 ? 255 : Math.round(x * 255);
}

/** CSS colour of a weight in [0, 1]. */
export function seqColor(w) {
  return CSS_SEQ[index(w)];
}

/** CSS colour of a signed value on a symmetric range [-range, range]. */
export function divColor(v, range) {
  const x = range > 0 ? v / range : 0;
  return x >= 0 ? CSS_SEQ[index(x)] : CSS_NEG[index(-x)];
}

/** Write the RGBA of a weight into `px` at byte offset `o` (for ImageData thumbnails). */
export function seqRGBA(w, px, o) {
  const i = index(w) * 3;
  px[o] = SEQ[i];
  px[o + 1] = SEQ[i + 1];
  px[o + 2] = SEQ[i + 2];
  px[o + 3] = 255;
}

/** Write the RGBA of a signed value on [-range, range] into `px` at byte offset `o`. */
export function divRGBA(v, range, px, o) {
  const x = range > 0 ? v / range : 0;
  const lut = x >= 0 ? SEQ : NEG;
  const i = index(x >= 0 ? x : -x) * 3;
  px[o] = lut[i];
  px[o + 1] = lut[i + 1];
  px[o + 2] = lut[i + 2];
  px[o + 3] = 255;
}

// Text on a coloured cell: white on a dark cell, INK on a light one, chosen by the cell's own
// colour. With pure black as INK, every colour of both ramps gives one of the two at least
// 4.58:1 (WCAG AA asks 4.5:1): white up to a relative luminance of 0.179, black from there.
export const INK = "#000000";
const DARK_BELOW = 0.179;

function luminance(lut) {
  const lin = (c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return Float32Array.from({ length: lut.length / 3 }, (_, i) => 0.2126 * lin(lut[i * 3] / 255) + 0.7152 * lin(lut[i * 3 + 1] / 255) + 0.0722 * lin(lut[i * 3 + 2] / 255));
}
const SEQ_L = luminance(SEQ);
const NEG_L = luminance(NEG);

/** True when text on top of this weight's colour should be white (else INK). */
export function seqDark(w) {
  return SEQ_L[index(w)] < DARK_BELOW;
}

/** True when text on top of this signed value's colour (range [-range, range]) should be white. */
export function divDark(v, range) {
  const x = range > 0 ? v / range : 0;
  return (x >= 0 ? SEQ_L : NEG_L)[index(x >= 0 ? x : -x)] < DARK_BELOW;
}

/** Paint a horizontal legend bar on a canvas: sequential (0..1) or diverging (-r..r). */
export function paintLegend(canvas, kind, width, height) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  for (let x = 0; x < width; x++) {
    const f = x / (width - 1);
    g.fillStyle = kind === "seq" ? seqColor(f) : divColor(f * 2 - 1, 1);
    g.fillRect(x, 0, 1, height);
  }
  g.strokeStyle = "#9a9aa5";
  g.lineWidth = 1;
  g.strokeRect(0.5, 0.5, width - 1, height - 1);
}

/** A colour legend (a small canvas and its text) appended to `container`: `{canvas, text}`. */
export function legendBox(container, ids = {}) {
  const box = document.createElement("div");
  box.className = "legend";
  const canvas = document.createElement("canvas");
  canvas.setAttribute("aria-hidden", "true");
  if (ids.canvas) canvas.id = ids.canvas;
  const text = document.createElement("span");
  text.className = "legend-text";
  if (ids.text) text.id = ids.text;
  box.append(canvas, text);
  container.append(box);
  return { canvas, text };
}
