// Small building blocks for the lesson panels: elements, labelled controls, number formats,
// heat tables (a heatmap that is also its own accessible table), bar charts, canvas matrices.
// Text always enters the page through textContent (never parsed as HTML).

import { seqColor, divColor, seqDark, divDark } from "../colors.js";
import { fmt, whenKoreanFont } from "../dom.js";
import { lessonT as t } from "../i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Create an element. `props`: `class`, `text`, `on` ({event: handler}), `style` (object, set
 * through the CSSOM), `dataset` (object); anything else becomes an attribute. `kids` are
 * nodes or strings (strings become text nodes).
 */
export function h(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  applyProps(e, props);
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}

/** An SVG element (same props as `h`). */
export function s(tag, props = {}, ...kids) {
  const e = document.createElementNS(SVG_NS, tag);
  applyProps(e, props);
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}

function applyProps(e, props) {
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.setAttribute("class", v);
    else if (k === "text") e.textContent = v;
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
    else if (k === "style") Object.assign(e.style, v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
}

/** Set several SVG/HTML attributes at once. */
export function attrs(e, a) {
  for (const [k, v] of Object.entries(a)) e.setAttribute(k, String(v));
  return e;
}

export { fmt };

/** Where a number of the engine will go while it loads. */
export const PENDING = "…";

/**
 * Where a pointer event falls in `svg`'s own units (its viewBox), or null while the SVG is not
 * laid out. @param {SVGSVGElement} svg @param {PointerEvent} e
 */
export function svgPoint(svg, e) {
  const m = svg.getScreenCTM();
  if (!m) return null;
  const pt = svg.createSVGPoint();
  pt.x = e.clientX;
  pt.y = e.clientY;
  return pt.matrixTransform(m.inverse());
}

/** Row `i` of a Mat {rows, cols, data}. */
export function row(mat, i) {
  return mat.data.subarray(i * mat.cols, (i + 1) * mat.cols);
}

let uid = 0;
export function newId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * A box that scrolls sideways when what it holds (a table, a canvas with an aria-label) is wider
 * than the screen: while it does, the keyboard can focus it, to scroll it with the arrow keys,
 * and it is a group named by its content; otherwise it is a plain box and no tab stop. While it
 * scrolls, a line above it says so (and, at its right end, that the rest is to the left) and a
 * fade marks its right edge while more lies beyond it; `--visible-w` on the box is its visible
 * width (for a caption that must stay in view, lesson.css). Returns the frame holding the box:
 * put that on the page.
 * @param {HTMLElement} box
 * @returns {HTMLElement}
 */
export function scrollBox(box) {
  const content = box.firstElementChild;
  if (!content.id) content.id = newId("scrolled");
  const hint = h("p", { class: "scroll-hint", "aria-hidden": "true", text: t("ui.scrollHint") });
  const fade = h("span", { class: "scroll-fade", "aria-hidden": "true" });
  const frame = h("div", { class: "scroll-frame" }, hint, h("div", { class: "scroll-area" }, box, fade));
  const edges = () => {
    const more = box.scrollLeft < box.scrollWidth - box.clientWidth - 1;
    frame.classList.toggle("more-right", more);
    const text = t(more || box.scrollLeft < 1 ? "ui.scrollHint" : "ui.scrollHintBack");
    if (hint.textContent !== text) hint.textContent = text;
  };
  const update = () => {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    frame.classList.toggle("scrolls", scrolls);
    box.style.setProperty("--visible-w", `${box.clientWidth}px`);
    edges();
    if (scrolls === box.hasAttribute("tabindex")) return;
    if (scrolls) {
      box.tabIndex = 0;
      box.setAttribute("role", "group");
      box.setAttribute("aria-labelledby", content.id);
    } else {
      for (const a of ["tabindex", "role", "aria-labelledby"]) box.removeAttribute(a);
    }
  };
  box.addEventListener("scroll", edges, { passive: true });
  const watch = new ResizeObserver(update);
  watch.observe(box);
  watch.observe(content);
  return frame;
}

/**
 * Scroll `box` (a scrollBox's box) the least that brings the horizontal span [left, right] of
 * its content (in the content's pixels) into view, right of `keep` pixels that stay on screen
 * (a sticky column) and clear of the edge's fade.
 * @param {HTMLElement} box @param {number} left @param {number} right @param {number} [keep]
 */
export function revealSpan(box, left, right, keep = 0) {
  if (box.scrollWidth <= box.clientWidth + 1) return;
  const fade = 32;
  let to = box.scrollLeft;
  if (right - to > box.clientWidth - fade) to = right - box.clientWidth + fade;
  if (left - to < keep) to = left - keep;
  box.scrollLeft = Math.max(0, to);
}

/**
 * Keep an SVG's chart text at its size in CSS pixels however much the SVG is shrunk to fit the
 * screen: `--k` on the SVG is how many of its units one CSS pixel takes (at least 1), and the
 * lesson's chart text multiplies its font size by it (lesson.css). `redraw` runs when `--k`
 * changes, for labels laid out by their size. Returns a function that measures and sets `--k`
 * now and returns it.
 * @param {SVGSVGElement} svg @param {() => void} [redraw]
 */
export function keepTextSize(svg, redraw) {
  let k = 1;
  const measure = () => {
    const m = svg.getScreenCTM(); // CSS pixels per unit, as drawn (border and aspect ratio included)
    const next = m && m.a > 0 ? Math.max(1, 1 / m.a) : 1;
    if (Math.abs(next - k) > 0.005 || !svg.style.getPropertyValue("--k")) {
      k = next;
      svg.style.setProperty("--k", String(Math.ceil(k * 1000) / 1000)); // rounded up: never below the CSS size
    }
    return k;
  };
  new ResizeObserver(() => {
    const before = k;
    if (Math.abs(measure() - before) > 0.005 && redraw) redraw();
  }).observe(svg);
  // Chromium keeps SVG text drawn while the page's Korean font was on its way in the fallback
  // font (boxes, without a Korean font on the machine) until the text's size changes: when the
  // font arrives, the size changes by a hair
  whenKoreanFont(() => {
    k += 0.001;
    svg.style.setProperty("--k", String(Math.ceil(k * 1000) / 1000));
  });
  return measure;
}

/** A message line: kind "warn" | "error" | "info". Hidden while empty. */
export function message() {
  const p = h("p", { class: "msg", role: "status", "aria-live": "polite" });
  p.hidden = true;
  return {
    root: p,
    show(kind, text) {
      p.className = `msg msg-${kind}`;
      p.textContent = text;
      p.hidden = !text;
    },
    clear() {
      p.textContent = "";
      p.hidden = true;
    },
  };
}

/**
 * A labelled range input with its value shown next to it.
 * @param {{id: string, label: string, min: number, max: number, step: number, value: number, format?: (v: number) => string, onInput: (v: number) => void, test?: string}} o
 */
export function slider({ id, label, min, max, step, value, format = (v) => fmt(v, 2), onInput, test }) {
  const input = h("input", { type: "range", id, min, max, step, value, "data-test": test });
  const out = h("output", { for: id, class: "ctl-value", "aria-hidden": "true" });
  const show = () => {
    const v = Number(input.value);
    out.textContent = format(v);
    input.setAttribute("aria-valuetext", format(v));
  };
  show();
  input.addEventListener("input", () => {
    show();
    onInput(Number(input.value));
  });
  const root = h("div", { class: "ctl ctl-slider" }, h("label", { for: id, text: label }), input, out);
  return {
    root,
    input,
    set(v) {
      input.value = String(v);
      show();
    },
  };
}

/**
 * A labelled checkbox.
 * @param {{id: string, label: string, checked: boolean, onChange: (v: boolean) => void, test?: string}} o
 */
export function checkbox({ id, label, checked, onChange, test }) {
  const input = h("input", { type: "checkbox", id, "data-test": test });
  input.checked = !!checked;
  input.addEventListener("change", () => onChange(input.checked));
  const root = h("div", { class: "ctl ctl-check" }, input, h("label", { for: id, text: label }));
  return { root, input };
}

/**
 * A labelled select (role combobox). `options`: [{value, text}].
 * @param {{id: string, label: string, options: {value: any, text: string}[], value: any, onChange: (v: any) => void, test?: string}} o
 */
export function select({ id, label, options, value, onChange, test }) {
  const input = h("select", { id, "data-test": test });
  const root = h("div", { class: "ctl ctl-select" }, h("label", { for: id, text: label }), input);
  const api = {
    root,
    input,
    setOptions(opts, v) {
      const same =
        input.options.length === opts.length &&
        opts.every((o, i) => input.options[i].value === String(o.value) && input.options[i].textContent === o.text);
      if (!same) input.replaceChildren(...opts.map((o) => h("option", { value: o.value, text: o.text })));
      input.value = String(v);
    },
  };
  api.setOptions(options, value);
  input.addEventListener("change", () => onChange(input.value));
  return api;
}

/**
 * A labelled one-line text box; `onInput` fires after a short pause in typing.
 * @param {{id: string, label: string, value: string, onInput: (v: string) => void, hint?: string, test?: string}} o
 */
export function textbox({ id, label, value, onInput, hint, test }) {
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h("input", {
    type: "text",
    id,
    value,
    spellcheck: "false",
    autocomplete: "off",
    autocapitalize: "off",
    maxlength: 400,
    "aria-describedby": hintId,
    "data-test": test,
  });
  let timer = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => onInput(input.value), 250);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      clearTimeout(timer);
      onInput(input.value);
    }
  });
  const root = h(
    "div",
    { class: "ctl ctl-text" },
    h("label", { for: id, text: label }),
    input,
    hint ? h("p", { id: hintId, class: "hint", text: hint }) : null,
  );
  return {
    root,
    input,
    set(v) {
      if (document.activeElement !== input && input.value !== v) input.value = v;
    },
  };
}

/** A button. @param {{text: string, onClick: () => void, cls?: string, test?: string, pressed?: boolean}} o */
export function button({ text, onClick, cls = "btn", test, pressed }) {
  const b = h("button", { type: "button", class: cls, text, "data-test": test });
  if (pressed !== undefined) b.setAttribute("aria-pressed", String(pressed));
  b.addEventListener("click", onClick);
  return b;
}

/** A formula line (set in the strings table: mathematics is text too). */
export function formula(text, test) {
  return h("p", { class: "formula", "data-test": test }, h("span", { class: "formula-tag", text: t("ui.formula") }), h("span", { class: "formula-body", text }));
}

/** Change a formula line's text (formulas follow the panel's switches). */
export function setFormula(el, text) {
  const body = el.querySelector(".formula-body");
  if (body.textContent !== text) body.textContent = text;
}

/** A "try this" box. */
export function tryThis(text) {
  return h("p", { class: "try" }, h("strong", { text: t("ui.try") }), " ", text);
}

/** A key/value list of live numbers; `set(key, text, value)` keeps data-value exact for tests. */
export function readouts(items) {
  const dl = h("dl", { class: "readouts" });
  const cells = {};
  const names = {};
  for (const { key, label, test } of items) {
    const dd = h("dd", { "data-test": test, text: PENDING }); // until the engine's number comes
    const dt = h("dt", { text: label });
    cells[key] = dd;
    names[key] = dt;
    dl.append(h("div", { class: "readout" }, dt, dd));
  }
  return {
    root: dl,
    /** Rename a readout (its label follows the panel's switches). */
    label(key, text) {
      if (names[key].textContent !== text) names[key].textContent = text;
    },
    set(key, text, value) {
      const dd = cells[key];
      dd.textContent = text;
      if (value !== undefined) dd.dataset.value = String(value);
    },
  };
}

/**
 * A heatmap drawn as an HTML table: the coloured cells and the accessible table are one thing.
 * kind "seq" (weights 0..1) or "div" (signed, symmetric range).
 */
export class HeatTable {
  /** @param {{kind?: "seq" | "div", digits?: number, onRow?: (row: number) => void, rowHeader?: string, test?: string, compact?: boolean}} [o] */
  constructor({ kind = "seq", digits = 2, onRow, rowHeader = "", test, compact = false } = {}) {
    this.kind = kind;
    this.digits = digits;
    this.onRow = onRow;
    this.rowHeader = rowHeader;
    this.table = h("table", { class: `heat${compact ? " heat-compact" : ""}`, role: "table", "data-test": test });
    this.captionText = h("span", { class: "cap" }); // stays in view while the table scrolls
    this.caption = h("caption", {}, this.captionText);
    this.box = h("div", { class: "heat-wrap" }, this.table);
    this.root = scrollBox(this.box);
    this.shape = "";
    /** @type {number[]} the columns last revealed: kept in view when the table's width changes (a font that arrives late) */
    this.revealed = [];
    new ResizeObserver(() => this.revealed.length && this.scrollTo(this.revealed)).observe(this.table);
    // once the reader scrolls the box, where it stands is theirs
    for (const type of ["pointerdown", "wheel", "touchstart", "keydown"]) this.box.addEventListener(type, () => (this.revealed = []), { passive: true });
  }

  /** Scroll the table (if it scrolls) so that the columns `cols` (0-based) are in view, right of the row names, now and after its width changes. @param {number[]} cols */
  reveal(cols) {
    this.revealed = cols;
    this.scrollTo(cols);
  }

  /** @param {number[]} cols */
  scrollTo(cols) {
    const head = this.table.tHead?.rows[0]?.cells;
    if (!head || !cols.length) return;
    const b = this.box.getBoundingClientRect();
    const spans = cols.filter((c) => head[c + 1]).map((c) => head[c + 1].getBoundingClientRect());
    if (!spans.length) return;
    const x = (v) => v - b.left + this.box.scrollLeft;
    revealSpan(this.box, x(Math.min(...spans.map((r) => r.left))), x(Math.max(...spans.map((r) => r.right))), head[0].getBoundingClientRect().width);
  }

  /**
   * d = {label, rows: [names], cols: [names], data (row-major), nr, nc, selected (row index),
   *      masked (optional row-major booleans), range (for "div"), rowRole, colRole,
   *      plain (optional (row, col) => true for a cell of plain numbers, not heat-coloured)}
   */
  update(d) {
    const shape = `${d.nr}x${d.nc}|${d.rows.join("\u0001")}|${d.cols.join("\u0001")}|${this.rowHeader}`;
    this.table.setAttribute("aria-label", d.label);
    if (shape !== this.shape) {
      this.shape = shape;
      const head = h("thead");
      // a header cell with no text is an empty header to a screen reader: then a plain cell
      const hr = h("tr", {}, this.rowHeader ? h("th", { class: "corner", scope: "col", text: this.rowHeader }) : h("td", { class: "corner" }));
      for (const c of d.cols) hr.append(h("th", { scope: "col", class: "col-label", text: c }));
      head.append(hr);
      const body = h("tbody");
      for (let r = 0; r < d.nr; r++) {
        const name = d.rows[r];
        const th = h("th", { scope: "row", class: "row-label" });
        if (this.onRow) {
          const rr = r;
          th.append(h("button", { type: "button", class: "row-btn", text: name, on: { click: () => this.onRow(rr) } }));
        } else th.textContent = name;
        const tr = h("tr", {}, th);
        for (let c = 0; c < d.nc; c++) tr.append(h("td"));
        body.append(tr);
      }
      this.table.replaceChildren(this.caption, head, body);
    }
    if (this.captionText.textContent !== d.label) this.captionText.textContent = d.label;
    const rows = this.table.tBodies[0].rows;
    let range = d.range;
    if (this.kind === "div" && !range) {
      range = 1e-9;
      for (const v of d.data) if (Number.isFinite(v)) range = Math.max(range, Math.abs(v));
    }
    for (let r = 0; r < d.nr; r++) {
      const tr = rows[r];
      tr.classList.toggle("selected", r === d.selected);
      const btn = tr.cells[0].firstElementChild;
      if (btn) btn.setAttribute("aria-pressed", String(r === d.selected));
      for (let c = 0; c < d.nc; c++) {
        const v = d.data[r * d.nc + c];
        const td = tr.cells[c + 1];
        const masked = d.masked ? d.masked[r * d.nc + c] : false;
        td.dataset.value = String(v);
        td.classList.toggle("masked", !!masked);
        const txt = Number.isFinite(v) ? fmt(v, this.digits) : fmt(v);
        if (td.textContent !== txt) td.textContent = txt;
        let bg;
        let dark;
        if (masked || (d.plain && d.plain(r, c))) {
          bg = "";
          dark = false;
        } else if (this.kind === "seq") {
          bg = seqColor(v);
          dark = seqDark(v);
        } else {
          bg = Number.isFinite(v) ? divColor(v, range) : "";
          dark = Number.isFinite(v) && divDark(v, range);
        }
        td.style.backgroundColor = bg;
        td.classList.toggle("on-dark", dark);
      }
    }
  }
}

/**
 * Vertical bars over token labels (decorative: the numbers are in a table next to it), as wide
 * as the space they have: on a narrow screen the labels take two staggered rows, and if the
 * bars still do not fit, the chart shrinks with its text kept at its size (keepTextSize).
 * `update({values, labels, highlight: Set of indices, max})`.
 */
export class Bars {
  constructor({ color = "#54278f", height = 120 } = {}) {
    this.color = color;
    this.height = height;
    this.svg = s("svg", { class: "bars", "aria-hidden": "true", focusable: "false" });
    this.root = h("div", { class: "bars-wrap" }, this.svg);
    this.textScale = keepTextSize(this.svg);
    this.last = null;
    this.width = 0;
    new ResizeObserver(() => {
      if (this.last && this.root.clientWidth !== this.width) this.draw();
    }).observe(this.root);
  }

  update(d) {
    this.last = d;
    this.draw();
  }

  draw() {
    const { values, labels, highlight = new Set(), max = 1 } = this.last;
    const n = values.length;
    this.width = this.root.clientWidth;
    const avail = this.width || 648;
    const bw = Math.max(18, Math.min(56, Math.floor((avail - 8) / Math.max(1, n))));
    const stagger = bw < 48; // each label gets the width of two bars
    const W = n * bw + 8;
    const top = 16;
    const base = this.height - 34;
    const H = this.height + (stagger ? 14 : 0);
    attrs(this.svg, { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
    const k = this.textScale();
    const kids = [];
    kids.push(s("line", { x1: 0, x2: W, y1: base + 0.5, y2: base + 0.5, class: "bars-axis" }));
    for (let i = 0; i < n; i++) {
      const v = Math.max(0, values[i]);
      const hgt = (v / max) * (base - top);
      const x = 4 + i * bw;
      const low = stagger && i % 2 === 1;
      kids.push(s("rect", { x: x + 3, y: base - hgt, width: bw - 6, height: Math.max(0, hgt), fill: this.color, class: highlight.has(i) ? "bar bar-hl" : "bar" }));
      kids.push(s("text", { x: x + bw / 2, y: base - hgt - 4, class: "bars-num", "text-anchor": "middle", text: fmt(values[i], 2) }));
      if (low) kids.push(s("line", { x1: x + bw / 2, x2: x + bw / 2, y1: base + 2, y2: base + 18, class: "bars-tick" }));
      kids.push(s("text", { x: x + bw / 2, y: base + 14 + (low ? 14 : 0), class: highlight.has(i) ? "bars-label bars-label-hl" : "bars-label", "text-anchor": "middle", text: clip(labels[i], (stagger ? 2 * bw - 4 : bw) / k) }));
    }
    this.svg.replaceChildren(...kids);
  }
}

function clip(text, px) {
  const max = Math.max(2, Math.floor(px / 7));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Paint a matrix on a canvas, one cell per value (diverging colours, symmetric range).
 * Returns the range used.
 * @param {HTMLCanvasElement} canvas
 * @param {Iterable<number> & ArrayLike<number>} data
 * @param {number} nr
 * @param {number} nc
 * @param {{cell?: number, cellH?: number, range?: number, kind?: "seq" | "div"}} [o]
 */
export function paintMatrix(canvas, data, nr, nc, { cell = 8, cellH, range, kind = "div" } = {}) {
  const ch = cellH || cell;
  const dpr = window.devicePixelRatio || 1;
  const w = nc * cell;
  const hh = nr * ch;
  canvas.width = Math.max(1, Math.round(w * dpr));
  canvas.height = Math.max(1, Math.round(hh * dpr));
  canvas.style.width = `${w}px`;
  canvas.style.height = `${hh}px`;
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  let rg = range;
  if (!rg) {
    rg = 1e-9;
    for (const v of data) if (Number.isFinite(v)) rg = Math.max(rg, Math.abs(v));
  }
  for (let r = 0; r < nr; r++) {
    for (let c = 0; c < nc; c++) {
      const v = data[r * nc + c];
      g.fillStyle = kind === "seq" ? seqColor(v) : divColor(v, rg);
      g.fillRect(c * cell, r * ch, cell, ch);
    }
  }
  return rg;
}

/**
 * A plain numeric table (inside a <details> for large matrices).
 * @param {{label: string, rows: string[], cols: string[], data: ArrayLike<number>, nr: number, nc: number, digits?: number, rowHeader?: string, test?: string}} o
 */
export function numberTable({ label, rows, cols, data, nr, nc, digits = 3, rowHeader = "", test }) {
  const table = h("table", { class: "numtable", role: "table", "aria-label": label, "data-test": test });
  table.append(h("caption", {}, h("span", { class: "cap", text: label })));
  const hr = h("tr", {}, h("th", { scope: "col", text: rowHeader }));
  for (const c of cols) hr.append(h("th", { scope: "col", text: c }));
  const body = h("tbody");
  for (let r = 0; r < nr; r++) {
    const tr = h("tr", {}, h("th", { scope: "row", text: rows[r] }));
    for (let c = 0; c < nc; c++) {
      const v = data[r * nc + c];
      tr.append(h("td", { text: fmt(v, digits), dataset: { value: String(v) } }));
    }
    body.append(tr);
  }
  table.append(h("thead", {}, hr), body);
  return table;
}

/** A disclosure holding a table alternative. */
export function details(summary, content) {
  return h("details", { class: "alt" }, h("summary", { text: summary }), content);
}

/** Index of the largest value. */
export function argmax(a) {
  let k = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[k]) k = i;
  return k;
}
