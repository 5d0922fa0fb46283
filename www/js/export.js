// Export one attention map: PNG (the canvas as shown), SVG (drawn from the weights, with token
// labels and a legend), CSV and JSON (the weights). Used by the lab and the embeddable panels.
//
// The map is `{stack, layer, head, rows: [query tokens], cols: [key tokens], weights: Mat,
// label, sentence?, link?}` (layer and head 0-based, as in the page state). A gradient × input
// map (core.exportMap) has `show: "saliency"`, `signed: true` and its rows' `outputs`: its
// values are signed, drawn on a diverging scale, and it belongs to no layer or head. Numbers are
// written as the shortest decimals that read back as the same float32, so nothing is lost.

import { seqColor, seqDark, divColor, divDark, INK } from "./colors.js";
import { FONT, fmtCell } from "./dom.js";
import { ASSET, assetBytes } from "./runtime.js";
import { f32String } from "./edits.js";

const STACK_FILE = { encoder: "encoder", decoder_self: "decoder-self", decoder_cross: "cross" };

/** "attnscope-cross-l2-h1.csv"; a gradient × input map, of the whole model: "attnscope-cross-saliency.csv" */
export function exportName(map, ext) {
  const which = map.show === "saliency" ? "saliency" : `l${map.layer + 1}-h${map.head + 1}`;
  return `attnscope-${STACK_FILE[map.stack] || "attention"}-${which}.${ext}`;
}

/** The largest magnitude of a map's finite values (a signed map's colour scale), 1 when all are 0. */
function maxAbs(W) {
  let r = 0;
  for (const v of W.data) if (Number.isFinite(v)) r = Math.max(r, Math.abs(v));
  return r || 1;
}

// ---------------------------------------------------------------------------------------------
// CSV

/**
 * One CSV cell of text. A cell starting with = + - @ (or a tab or carriage return) would be read
 * as a formula by a spreadsheet: an apostrophe in front keeps it text. Then RFC 4180 quoting.
 */
export function csvText(s) {
  let v = String(s);
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** Header row: the corner, then the key tokens; then one row per query token with its weights. */
export function toCSV(map, corner = "query \\ key") {
  const W = map.weights;
  const lines = [[corner, ...map.cols].map(csvText).join(",")];
  for (let r = 0; r < W.rows; r++) {
    const cells = [csvText(map.rows[r])];
    for (let c = 0; c < W.cols; c++) cells.push(f32String(W.data[r * W.cols + c]));
    lines.push(cells.join(","));
  }
  // a byte-order mark so that spreadsheets read the Korean tokens as UTF-8
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

// ---------------------------------------------------------------------------------------------
// JSON

export function toJSON(map) {
  const W = map.weights;
  const weights = [];
  for (let r = 0; r < W.rows; r++) {
    const row = [];
    for (let c = 0; c < W.cols; c++) row.push(Number(f32String(W.data[r * W.cols + c])));
    weights.push(row);
  }
  if (map.show === "saliency") {
    // (d log p(outputs[r]) / d e_s) · e_s: the whole model's, no layer or head
    const out = { stack: map.stack, show: "saliency", query_tokens: map.rows, key_tokens: map.cols, output_tokens: map.outputs, saliency: weights };
    if (map.sentence !== undefined) out.sentence = map.sentence;
    if (map.link !== undefined) out.link = map.link;
    return `${JSON.stringify(out, null, 1)}\n`;
  }
  const out = {
    stack: map.stack,
    layer: map.layer + 1,
    head: map.head + 1,
    query_tokens: map.rows,
    key_tokens: map.cols,
    weights,
  };
  if (map.sentence !== undefined) out.sentence = map.sentence;
  if (map.link !== undefined) out.link = map.link;
  return `${JSON.stringify(out, null, 1)}\n`;
}

// ---------------------------------------------------------------------------------------------
// SVG

/** Text for XML: the five special characters escaped, characters XML 1.0 forbids replaced. */
export function xmlText(s) {
  return String(s)
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

let measureCtx = null;
function textWidth(s, font = FONT) {
  if (!measureCtx) measureCtx = document.createElement("canvas").getContext("2d");
  measureCtx.font = font;
  return measureCtx.measureText(s).width;
}

/**
 * A standalone SVG picture of the weights: the title, key tokens on top (rotated), query tokens
 * on the left, one square per weight (with its value inside and as a tooltip), and a legend.
 * `text` = {legend: "attention weight", low: "0", high: "1", koreanFont: base64 WOFF2 to embed}.
 */
export function toSVG(map, text = {}) {
  const W = map.weights;
  const m = W.rows;
  const n = W.cols;
  // a signed map (gradient × input): diverging, -range olive .. 0 white .. +range purple
  const range = map.signed ? maxAbs(W) : 1;
  const colour = map.signed ? (v) => divColor(v, range) : seqColor;
  const dark = map.signed ? (v) => divDark(v, range) : seqDark;
  const cell = 30;
  const pad = 12;
  const titleH = 26;
  const rowW = Math.ceil(Math.min(160, Math.max(24, ...map.rows.map((s) => textWidth(s))))) + 10;
  const colH = Math.ceil(Math.min(160, Math.max(24, ...map.cols.map((s) => textWidth(s))))) + 10;
  const x0 = pad + rowW;
  const y0 = pad + titleH + colH;
  const legendY = y0 + m * cell + 18;
  const titleFont = `bold ${FONT.replace("12px", "14px")}`;
  const width = Math.ceil(Math.max(x0 + n * cell + pad, pad + textWidth(map.label || "", titleFont) + 8 + pad, pad + 360));
  const height = legendY + 46;
  const font = `font-family="system-ui, -apple-system, Segoe UI, Roboto, Noto Sans KR, attnscope Korean, sans-serif"`;
  const out = [];
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ${font} font-size="12">`);
  out.push(`<title>${xmlText(map.label || "attention weights")}</title>`);
  // Korean labels stay readable where no Korean font is installed: the site's subset travels along
  if (text.koreanFont) {
    out.push(`<defs><style>@font-face{font-family:"attnscope Korean";src:url(data:font/woff2;base64,${text.koreanFont}) format("woff2");unicode-range:U+1100-11FF,U+3130-318F,U+AC00-D7A3}</style></defs>`);
  }
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${pad}" y="${pad + 14}" font-size="14" font-weight="bold" fill="#1f1f27">${xmlText(map.label || "")}</text>`);
  // key tokens, rotated, above their columns
  out.push('<g fill="#005a8c" class="keys">');
  for (let c = 0; c < n; c++) {
    const x = x0 + c * cell + cell / 2 + 4;
    out.push(`<text transform="translate(${x} ${y0 - 6}) rotate(-90)">${xmlText(map.cols[c])}</text>`);
  }
  out.push("</g>");
  // query tokens, right-aligned, left of their rows
  out.push('<g fill="#a34400" text-anchor="end" class="queries">');
  for (let r = 0; r < m; r++) out.push(`<text x="${x0 - 6}" y="${y0 + r * cell + cell / 2 + 4}">${xmlText(map.rows[r])}</text>`);
  out.push("</g>");
  // the weights
  out.push('<g stroke="#e4e4ea" stroke-width="1" class="cells">');
  for (let r = 0; r < m; r++) {
    for (let c = 0; c < n; c++) {
      const v = W.data[r * n + c];
      const tip = `${map.rows[r]} → ${map.cols[c]}: ${f32String(v)}`;
      out.push(`<rect x="${x0 + c * cell}" y="${y0 + r * cell}" width="${cell}" height="${cell}" fill="${colour(v)}"><title>${xmlText(tip)}</title></rect>`);
    }
  }
  out.push("</g>");
  out.push('<g font-size="10" text-anchor="middle" class="values">');
  for (let r = 0; r < m; r++) {
    for (let c = 0; c < n; c++) {
      const v = W.data[r * n + c];
      const s = map.signed ? fmtCell(v) : v < 0.005 ? "" : v.toFixed(2).replace(/^0/, "");
      if (!s) continue;
      out.push(`<text x="${x0 + c * cell + cell / 2}" y="${y0 + r * cell + cell / 2 + 3.5}" fill="${dark(v) ? "#ffffff" : INK}">${s}</text>`);
    }
  }
  out.push("</g>");
  // legend: the colour ramp from 0 to 1 (a signed map's from -range to +range)
  const stops = [];
  for (let i = 0; i <= 8; i++) stops.push(`<stop offset="${i / 8}" stop-color="${map.signed ? divColor((i / 8) * 2 - 1, 1) : seqColor(i / 8)}"/>`);
  out.push(`<defs><linearGradient id="attnscope-ramp">${stops.join("")}</linearGradient></defs>`);
  out.push(`<rect x="${pad}" y="${legendY}" width="160" height="12" fill="url(#attnscope-ramp)" stroke="#9a9aa5"/>`);
  const low = map.signed ? `−${f32String(range)}` : "0";
  const high = map.signed ? `+${f32String(range)}` : "1";
  out.push(`<text x="${pad}" y="${legendY + 26}" fill="#575766">${xmlText(text.low ?? low)}</text>`);
  if (map.signed) out.push(`<text x="${pad + 80}" y="${legendY + 26}" fill="#575766" text-anchor="middle">0</text>`);
  out.push(`<text x="${pad + 160}" y="${legendY + 26}" fill="#575766" text-anchor="end">${xmlText(text.high ?? high)}</text>`);
  out.push(`<text x="${pad + 172}" y="${legendY + 10}" fill="#575766">${xmlText(text.legend ?? "attention weight")}</text>`);
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// PNG

function wrap(g, text, maxW) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (line && g.measureText(next).width > maxW) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * The map as shown on screen: its title, the heatmap canvas and the legend (bar and text),
 * on white, at the canvas's own pixel density. Resolves to a PNG Blob.
 */
export function toPNG({ canvas, legendCanvas, title, legendText }) {
  const cssW = parseFloat(canvas.style.width) || canvas.width;
  const cssH = parseFloat(canvas.style.height) || canvas.height;
  const dpr = canvas.width / cssW || 1;
  const pad = 12;
  const titleFont = `bold ${FONT.replace("12px", "14px")}`;
  const measure = document.createElement("canvas").getContext("2d");
  measure.font = titleFont;
  const width = Math.ceil(Math.max(cssW + 2 * pad, 360, title ? measure.measureText(title).width + 2 * pad + 4 : 0));
  measure.font = FONT;
  const legendLines = legendText ? wrap(measure, legendText, width - 2 * pad) : [];
  const titleH = title ? 26 : 0;
  const legendH = legendCanvas ? 20 : 0;
  const height = pad + titleH + cssH + 10 + legendH + legendLines.length * 16 + pad;
  const out = document.createElement("canvas");
  out.width = Math.round(width * dpr);
  out.height = Math.round(height * dpr);
  const g = out.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.fillStyle = "#ffffff";
  g.fillRect(0, 0, width, height);
  let y = pad;
  if (title) {
    g.font = titleFont;
    g.fillStyle = "#1f1f27";
    g.textBaseline = "top";
    g.fillText(title, pad, y + 2);
    y += titleH;
  }
  g.drawImage(canvas, pad, y, cssW, cssH);
  y += cssH + 10;
  if (legendCanvas) {
    const lw = parseFloat(legendCanvas.style.width) || legendCanvas.width;
    const lh = parseFloat(legendCanvas.style.height) || legendCanvas.height;
    g.drawImage(legendCanvas, pad, y, lw, lh);
    y += legendH;
  }
  g.font = FONT;
  g.fillStyle = "#575766";
  g.textBaseline = "top";
  for (const line of legendLines) {
    g.fillText(line, pad, y);
    y += 16;
  }
  return new Promise((resolve, reject) => {
    out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the browser could not encode the PNG"))), "image/png");
  });
}

// ---------------------------------------------------------------------------------------------

/** Save a Blob under a file name: a blob URL on an <a download>, clicked. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.hidden = true;
  (document.body || document.documentElement).append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

export const FORMATS = ["png", "svg", "csv", "json"];

/** The Korean font as base64, when the map has Korean labels (null otherwise, or if unavailable). */
async function koreanFontFor(map) {
  const korean = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/u;
  if (![map.label, ...map.rows, ...map.cols].some((s) => korean.test(String(s)))) return null;
  try {
    const bytes = await assetBytes(ASSET.koreanFont);
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(bin);
  } catch {
    return null; // the SVG then names the font families only
  }
}

/**
 * Make and download one format of a map. `png` = the parts toPNG draws (canvas, legend, ...);
 * `corner` = the CSV's corner cell; `legend` = the SVG legend's caption. Returns the file name.
 * @param {string} format
 * @param {object} map
 * @param {{png?: any, corner?: string, legend?: string}} [o]
 * @returns {Promise<string>}
 */
export async function saveMap(format, map, { png, corner, legend } = {}) {
  const name = exportName(map, format);
  let blob;
  if (format === "png") blob = await toPNG(png);
  else if (format === "csv") blob = new Blob([toCSV(map, corner)], { type: "text/csv;charset=utf-8" });
  else if (format === "svg") blob = new Blob([toSVG(map, { legend, koreanFont: await koreanFontFor(map) })], { type: "image/svg+xml" });
  else blob = new Blob([toJSON(map)], { type: "application/json" });
  download(blob, name);
  return name;
}

/**
 * The row of download buttons ("Download this map: PNG SVG CSV JSON" and a status line) in
 * `container`; `onSave(format)` makes the file and returns its name. `retext(t)` sets the words;
 * `clear()` removes the status line (when the map it names is no longer shown).
 */
export function exportRow(container, onSave) {
  const label = document.createElement("span");
  label.className = "export-label";
  const done = document.createElement("span");
  done.className = "export-status";
  done.setAttribute("role", "status");
  const buttons = FORMATS.map((f) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "btn btn-small";
    b.dataset.format = f;
    b.textContent = f.toUpperCase();
    return b;
  });
  /** @type {import("./core.js").Translate} */
  let t = (k) => k;
  for (const b of buttons) {
    b.addEventListener("click", async () => {
      try {
        const name = await onSave(b.dataset.format);
        if (name) done.textContent = t("export.done", { name });
      } catch (e) {
        done.textContent = t("export.failed", { message: e?.message || String(e) });
      }
    });
  }
  container.classList.add("export-row");
  container.replaceChildren(label, ...buttons, done);
  return {
    clear() {
      done.textContent = "";
    },
    retext(tr) {
      t = tr;
      label.textContent = t("export.label");
      for (const b of buttons) b.setAttribute("aria-label", t("export.as", { fmt: b.textContent }));
    },
  };
}
