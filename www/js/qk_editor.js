// The W_Q / W_K editor: one head's (d_k x d_model) blocks as grids of cells on canvas.
//
// Drag a cell up or down (mouse or pen: pointer events) to change its value, or focus the grid
// and use the keys: Up/Down change the value, Left/Right and PageUp/PageDown move to another
// cell, Home/End jump to the first/last column. On a touch screen a swipe scrolls the page as
// anywhere else; a tap selects a cell and opens a large editor for it (its name and value, -
// and + buttons, a slider), because a finger cannot aim at, or drag, a 5-pixel cell. The editor only changes its own copy
// of the block and calls `onEdit(matrix, values, phase)` ("live" while changing, "end" when
// the change is over); the page coalesces the live calls into one engine run per frame.
// `onCell(matrix, row)` names the row of the cell being edited (a d_k dimension of the head:
// W_Q's row d makes q[d], W_K's row d makes k[d]) when one is picked, and null when the grid
// loses the focus. `why` (a link, the lab's "#sec-dot"): a line above the grids says why a drag
// may barely move the map, and points to the dot-product view that marks the dimension.

import { divRGBA, ROLE } from "./colors.js";
import { el, fmt, sizeCanvas, setText, setLiveText, paintCells, watchVisibility, watchWidth } from "./dom.js";
import { t as defaultT } from "./i18n.js";

const MATRICES = ["q", "k"];

class MatrixGrid {
  constructor(container, matrix, editor) {
    this.matrix = matrix;
    this.editor = editor;
    const uid = Math.random().toString(36).slice(2, 8);
    this.root = el("div", `qk-matrix qk-${matrix}`);
    this.title = el(editor.heading, `qk-title role-${matrix === "q" ? "query" : "key"}`, { id: `qk-title-${matrix}-${uid}` });
    this.help = el("p", "qk-help sr-only", { id: `qk-help-${matrix}-${uid}` });
    this.scroller = el("div", "qk-scroll");
    this.canvas = el("canvas", "qk-canvas", {
      tabindex: 0,
      role: "slider",
      "aria-describedby": this.help.id,
      "aria-valuemin": -8,
      "aria-valuemax": 8,
    });
    this.readout = el("p", "qk-readout");
    this.scroller.append(this.canvas);
    this.root.append(this.title, this.help, this.scroller, this.readout);
    container.append(this.root);

    this.values = null; // Float32Array, row-major (d_k, d_model)
    this.rows = 0;
    this.cols = 0;
    this.range = 1;
    this.active = { r: 0, c: 0 };
    this.drag = null;
    this.layout = null;

    this.canvas.addEventListener("pointerdown", (e) => this.onDown(e));
    this.canvas.addEventListener("pointermove", (e) => this.onMove(e));
    this.canvas.addEventListener("pointerup", (e) => this.onUp(e));
    this.canvas.addEventListener("pointercancel", (e) => this.onUp(e));
    this.canvas.addEventListener("keydown", (e) => this.onKey(e));
    this.canvas.addEventListener("keyup", (e) => {
      if (e.key === "ArrowUp" || e.key === "ArrowDown") this.editor.emit(this.matrix, "end");
    });
    this.canvas.addEventListener("focus", () => {
      this.draw();
      this.chosen();
    });
    this.canvas.addEventListener("blur", () => {
      this.draw();
      this.editor.onCell(this.matrix, null);
    });
  }

  /** Tell the page which row (d_k dimension) the selected cell is on. */
  chosen() {
    this.editor.onCell(this.matrix, this.active.r);
  }

  set(mat, range) {
    this.rows = mat.rows;
    this.cols = mat.cols;
    this.values = Float32Array.from(mat.data);
    this.range = range;
    this.active = { r: Math.min(this.active.r, this.rows - 1), c: Math.min(this.active.c, this.cols - 1) };
  }

  texts(ctx) {
    const name = this.matrix === "q" ? "W_Q" : "W_K";
    this.title.textContent = this.editor.t(this.matrix === "q" ? "qk.titleQ" : "qk.titleK", { dk: this.rows, d: this.cols });
    this.canvas.setAttribute("aria-label", this.editor.t("qk.sliderLabel", { name, ...ctx }));
    this.help.textContent = this.editor.t("qk.keys");
    this.updateAria();
  }

  /** Slider value for assistive technology and the readout; `live` = during a pointer drag. */
  updateAria(live = false) {
    const { r, c } = this.active;
    const v = this.values ? this.values[r * this.cols + c] : 0;
    this.canvas.setAttribute("aria-valuenow", v.toFixed(4));
    const text = this.editor.t("qk.cell", { r: r + 1, c: c + 1, rows: this.rows, cols: this.cols, v: fmt(v, 3) });
    this.canvas.setAttribute("aria-valuetext", text);
    setLiveText(this.readout, `${this.matrix === "q" ? "W_Q" : "W_K"}[${r + 1}, ${c + 1}] = ${fmt(v, 3)}`, live);
  }

  computeLayout(width) {
    const cell = Math.max(4, Math.min(14, Math.floor((width - 2) / this.cols)));
    const cellH = Math.max(cell, Math.min(14, Math.floor(360 / this.rows)));
    return { cell, cellH, w: cell * this.cols + 2, h: cellH * this.rows + 2 };
  }

  draw(live = false) {
    if (!this.values) return;
    if (live && !this.editor.isVisible()) {
      this.editor.stale = true;
      return;
    }
    const L = (this.layout = this.computeLayout(this.editor.width));
    const g = sizeCanvas(this.canvas, L.w, L.h);
    const { cell, cellH } = L;
    g.clearRect(0, 0, L.w, L.h);
    const range = this.range;
    paintCells(g, { rows: this.rows, cols: this.cols, data: this.values }, 1, 1, cell * this.cols, cellH * this.rows, (v, px, o) => divRGBA(v, range, px, o));
    // the block's diagonal (i == j), where the identity preset puts its ones
    g.strokeStyle = "rgba(40,40,50,0.18)";
    g.lineWidth = 1;
    g.beginPath();
    const n = Math.min(this.rows, this.cols);
    g.moveTo(1, 1);
    g.lineTo(1 + n * cell, 1 + n * cellH);
    g.stroke();
    g.strokeStyle = "#9a9aa5";
    g.strokeRect(0.5, 0.5, L.w - 1, L.h - 1);
    const { r, c } = this.active;
    const focused = this.canvas.matches(":focus") || this.drag;
    g.strokeStyle = focused ? "#111118" : ROLE[this.matrix === "q" ? "query" : "key"];
    g.lineWidth = 2;
    g.strokeRect(1 + c * cell - 1, 1 + r * cellH - 1, cell + 2, cellH + 2);
  }

  cellAt(e) {
    const L = this.layout;
    if (!L) return null;
    const rect = this.canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - rect.left - 1) / L.cell);
    const r = Math.floor((e.clientY - rect.top - 1) / L.cellH);
    if (c < 0 || r < 0 || c >= this.cols || r >= this.rows) return null;
    return { r, c };
  }

  onDown(e) {
    const cell = this.cellAt(e);
    if (!cell) return;
    if (e.pointerType === "touch") {
      // maybe a tap, maybe the start of a scroll: decided when the finger lifts
      this.touch = { id: e.pointerId, x: e.clientX, y: e.clientY, cell };
      return;
    }
    e.preventDefault();
    this.canvas.focus({ preventScroll: true });
    try {
      this.canvas.setPointerCapture(e.pointerId);
    } catch {
      /* a synthetic or already-released pointer: the drag still follows this element */
    }
    this.active = cell;
    this.drag = { id: e.pointerId, y: e.clientY, v: this.values[cell.r * this.cols + cell.c] };
    this.updateAria();
    this.draw();
    this.chosen();
  }

  onMove(e) {
    if (this.touch && e.pointerId === this.touch.id && Math.hypot(e.clientX - this.touch.x, e.clientY - this.touch.y) > 8) this.touch = null;
    if (!this.drag || e.pointerId !== this.drag.id) return;
    this.editor.markInput(e);
    // one cell height of movement is a small step; the whole range takes about 120 px
    const perPx = (this.range / 60) * (e.shiftKey ? 0.2 : 1);
    this.setValue(this.drag.v + (this.drag.y - e.clientY) * perPx, "live");
  }

  onUp(e) {
    if (this.touch && e.pointerId === this.touch.id) {
      const { cell } = this.touch;
      this.touch = null;
      if (e.type === "pointerup") {
        this.active = cell;
        this.updateAria();
        this.draw();
        this.chosen();
        this.editor.openTouch(this);
      }
      return;
    }
    if (!this.drag || e.pointerId !== this.drag.id) return;
    this.drag = null;
    this.updateAria();
    this.draw();
    this.editor.emit(this.matrix, "end");
  }

  setValue(v, phase) {
    const { r, c } = this.active;
    const clamped = Math.max(-8, Math.min(8, v));
    this.values[r * this.cols + c] = clamped;
    this.updateAria(!!this.drag);
    this.editor.emit(this.matrix, phase);
    this.editor.syncTouch(this);
  }

  /** The selected cell: {name: "W_Q[3, 17]", value}. */
  selected() {
    const { r, c } = this.active;
    return { name: `${this.matrix === "q" ? "W_Q" : "W_K"}[${r + 1}, ${c + 1}]`, value: this.values[r * this.cols + c] };
  }

  onKey(e) {
    if (!this.values) return;
    let { r, c } = this.active;
    const step = (this.range / 10) * (e.shiftKey ? 0.1 : 1);
    const v = this.values[r * this.cols + c];
    switch (e.key) {
      case "ArrowUp":
        e.preventDefault();
        this.editor.markInput(e);
        this.setValue(v + step, "live");
        return;
      case "ArrowDown":
        e.preventDefault();
        this.editor.markInput(e);
        this.setValue(v - step, "live");
        return;
      case "ArrowLeft": c = Math.max(0, c - 1); break;
      case "ArrowRight": c = Math.min(this.cols - 1, c + 1); break;
      case "PageUp": r = Math.max(0, r - 1); break;
      case "PageDown": r = Math.min(this.rows - 1, r + 1); break;
      case "Home": c = 0; break;
      case "End": c = this.cols - 1; break;
      default:
        return;
    }
    e.preventDefault();
    this.active = { r, c };
    this.updateAria();
    this.draw();
    this.chosen();
  }
}

/** Both blocks of the selected head plus the presets. */
export class QKEditor {
  /** `heading`: the element of the two grids' titles (default h3); `onCell`, `why`: see the top. */
  constructor(container, { onEdit, onIdentity, onReset, onInput, onCell = null, why = "", t, heading = "h3" }) {
    this.onEdit = onEdit;
    /** @type {(matrix: string, row: number | null) => void} */
    this.onCell = onCell || (() => {});
    this.heading = heading;
    this.t = t || defaultT;
    this.onInput = onInput || (() => {});
    this.root = el("div", "qk");
    this.head = el("p", "qk-context");
    const presets = el("div", "qk-presets");
    this.identityBtn = el("button", "btn", { type: "button" });
    this.resetBtn = el("button", "btn", { type: "button" });
    this.edits = el("span", "qk-edits", { role: "status" });
    this.identityBtn.addEventListener("click", () => onIdentity());
    this.resetBtn.addEventListener("click", () => onReset());
    presets.append(this.identityBtn, this.resetBtn, this.edits);
    const grids = el("div", "qk-grids");
    this.buildTouch();
    // why a drag may move the map little, and where that shows (the lab's dot-product view)
    this.why = why ? el("p", "hint qk-why", { "data-test": "qk-why" }) : null;
    this.whyText = el("span");
    this.whyLink = el("a", "", { href: why });
    this.why?.append(this.whyText, " ", this.whyLink);
    this.root.append(this.head, presets, this.touchBar, ...(this.why ? [this.why] : []), grids);
    container.append(this.root);
    this.grids = { q: new MatrixGrid(grids, "q", this), k: new MatrixGrid(grids, "k", this) };
    this.width = 600;
    this.ctx = null;
    watchWidth(grids, (w) => {
      this.width = w;
      this.draw();
    }, this.width);
    this.stale = false;
    this.isVisible = watchVisibility(grids, () => {
      if (this.stale) {
        this.stale = false;
        this.draw();
      }
    });
  }

  /** The large editor of one cell, for touch screens (opened by a tap on a cell). */
  buildTouch() {
    const bar = (this.touchBar = el("div", "qk-touch", { role: "group" }));
    bar.hidden = true;
    this.touchName = el("span", "qk-touch-name");
    this.touchValue = el("output", "qk-touch-value");
    this.touchMinus = el("button", "btn qk-touch-step", { type: "button" }, "−");
    this.touchPlus = el("button", "btn qk-touch-step", { type: "button" }, "+");
    this.touchSlider = el("input", "qk-touch-slider", { type: "range", min: -8, max: 8, step: 0.001 });
    this.touchDone = el("button", "btn btn-small", { type: "button" });
    const step = (sign) => {
      const g = this.touchGrid;
      if (g) g.setValue(g.selected().value + (sign * g.range) / 10, "end");
    };
    this.touchMinus.addEventListener("click", () => step(-1));
    this.touchPlus.addEventListener("click", () => step(1));
    this.touchSlider.addEventListener("input", () => this.touchGrid?.setValue(Number(this.touchSlider.value), "live"));
    this.touchSlider.addEventListener("change", () => this.touchGrid && this.emit(this.touchGrid.matrix, "end"));
    this.touchDone.addEventListener("click", () => {
      bar.hidden = true;
      this.touchGrid?.canvas.focus({ preventScroll: true });
    });
    const row = el("div", "qk-touch-row");
    row.append(this.touchMinus, this.touchSlider, this.touchPlus);
    const top = el("div", "qk-touch-top");
    top.append(this.touchName, el("span", "", {}, " = "), this.touchValue, " ", this.touchDone);
    bar.append(top, row);
  }

  openTouch(grid) {
    this.touchGrid = grid;
    this.touchBar.hidden = false;
    this.syncTouch(grid);
    this.touchBar.scrollIntoView({ block: "nearest" });
  }

  /** The touch editor shows the selected cell of `grid` (when it is the one open). */
  syncTouch(grid) {
    if (this.touchBar.hidden || grid !== this.touchGrid) return;
    const { name, value } = grid.selected();
    const t = this.t;
    this.touchName.textContent = name;
    this.touchValue.textContent = fmt(value, 3);
    this.touchSlider.min = String(Math.max(-8, -3 * grid.range));
    this.touchSlider.max = String(Math.min(8, 3 * grid.range));
    this.touchSlider.step = String(grid.range / 100);
    this.touchSlider.value = String(value);
    this.touchBar.setAttribute("aria-label", t("qk.touchGroup", { name }));
    this.touchSlider.setAttribute("aria-label", t("qk.touchSlider", { name }));
    this.touchMinus.setAttribute("aria-label", t("qk.touchMinus", { name }));
    this.touchPlus.setAttribute("aria-label", t("qk.touchPlus", { name }));
    this.touchDone.textContent = t("qk.touchDone");
  }

  /** d = {q: Mat, k: Mat, range?, ctx: {stackName, layer, head}, editCount} */
  setData(d) {
    this.ctx = d.ctx;
    // colour range: given by the page (trained weights), else the larger entry of the blocks;
    // both blocks share it and one legend
    let range = d.range || 0.05;
    if (!d.range) {
      for (const x of d.q.data) range = Math.max(range, Math.abs(x));
      for (const x of d.k.data) range = Math.max(range, Math.abs(x));
    }
    this.range = range;
    this.grids.q.set(d.q, range);
    this.grids.k.set(d.k, range);
    this.texts(d.editCount);
    this.draw();
    if (this.touchGrid) this.syncTouch(this.touchGrid);
  }

  texts(editCount) {
    this.head.textContent = this.t("qk.context", this.ctx);
    this.identityBtn.textContent = this.t("qk.identity");
    this.resetBtn.textContent = this.t("qk.reset");
    if (this.why) {
      setText(this.whyText, this.t("qk.why"));
      setText(this.whyLink, this.t("qk.whyLink"));
    }
    this.setEditCount(editCount);
    for (const m of MATRICES) this.grids[m].texts(this.ctx);
  }

  setEditCount(n) {
    setText(this.edits, n > 0 ? this.t("qk.edits", { n }) : this.t("qk.noEdits"));
  }

  draw() {
    for (const m of MATRICES) this.grids[m].draw();
  }

  values(m) {
    return this.grids[m].values;
  }

  /** Called by a grid: mark it for the next frame's redraw and tell the page. */
  emit(matrix, phase) {
    this.grids[matrix].dirty = true;
    if (phase === "end") this.flush();
    this.onEdit(matrix, this.grids[matrix].values, phase);
  }

  /** Redraw the grids changed since the last frame (the page calls this once per frame). */
  flush() {
    for (const m of MATRICES) {
      if (this.grids[m].dirty) {
        this.grids[m].dirty = false;
        this.grids[m].draw(true);
      }
    }
  }

  markInput(e) {
    this.onInput(e);
  }
}
