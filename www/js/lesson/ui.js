// Small building blocks for the lesson panels: elements, labelled controls, number formats,
// heat tables (a heatmap that is also its own accessible table), bar charts, canvas matrices.
// Text always enters the page through textContent (never parsed as HTML).

import { seqColor, divColor, seqDark, divDark } from "../colors.js";
import { fmt } from "../dom.js";
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
 * and it is a group named by its content; otherwise it is a plain box and no tab stop.
 */
export function scrollBox(box) {
  const content = box.firstElementChild;
  if (!content.id) content.id = newId("scrolled");
  const update = () => {
    const scrolls = box.scrollWidth > box.clientWidth + 1;
    if (scrolls === box.hasAttribute("tabindex")) return;
    if (scrolls) {
      box.tabIndex = 0;
      box.setAttribute("role", "group");
      box.setAttribute("aria-labelledby", content.id);
    } else {
      for (const a of ["tabindex", "role", "aria-labelledby"]) box.removeAttribute(a);
    }
  };
  const watch = new ResizeObserver(update);
  watch.observe(box);
  watch.observe(content);
  return box;
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
    const dd = h("dd", { "data-test": test });
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
    this.caption = h("caption");
    this.root = scrollBox(h("div", { class: "heat-wrap" }, this.table));
    this.shape = "";
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
    this.caption.textContent = d.label;
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
 * Vertical bars over token labels (decorative: the numbers are in a table next to it).
 * `update({values, labels, highlight: Set of indices, max})`.
 */
export class Bars {
  constructor({ color = "#54278f", height = 120 } = {}) {
    this.color = color;
    this.height = height;
    this.svg = s("svg", { class: "bars", "aria-hidden": "true", focusable: "false" });
    this.root = h("div", { class: "bars-wrap" }, this.svg);
  }

  update({ values, labels, highlight = new Set(), max = 1 }) {
    const n = values.length;
    const bw = Math.max(18, Math.min(56, Math.floor(640 / Math.max(1, n))));
    const W = n * bw + 8;
    const H = this.height;
    const top = 16;
    const base = H - 34;
    attrs(this.svg, { viewBox: `0 0 ${W} ${H}`, width: W, height: H });
    const kids = [];
    kids.push(s("line", { x1: 0, x2: W, y1: base + 0.5, y2: base + 0.5, class: "bars-axis" }));
    for (let i = 0; i < n; i++) {
      const v = Math.max(0, values[i]);
      const hgt = (v / max) * (base - top);
      const x = 4 + i * bw;
      kids.push(s("rect", { x: x + 3, y: base - hgt, width: bw - 6, height: Math.max(0, hgt), fill: this.color, class: highlight.has(i) ? "bar bar-hl" : "bar" }));
      kids.push(s("text", { x: x + bw / 2, y: base - hgt - 4, class: "bars-num", "text-anchor": "middle", text: fmt(values[i], 2) }));
      kids.push(s("text", { x: x + bw / 2, y: base + 14, class: highlight.has(i) ? "bars-label bars-label-hl" : "bars-label", "text-anchor": "middle", text: clip(labels[i], bw) }));
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
  table.append(h("caption", { text: label }));
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
