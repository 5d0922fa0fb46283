// Attention heatmaps: one large map with token labels, hover/focus details and a table
// alternative (`Heatmap`), and the layer x head overview of small maps (`HeadGrid`).
//
// Both take data plus a container and draw on canvas; neither knows about the engine.
// Data: `weights` (rows = queries, cols = keys, each row sums to 1), optionally `scores`
// (raw Q K^T) and `logits` (scaled and masked, -Infinity where masked), as Mats
// `{rows, cols, data: Float32Array}`. With `show: "saliency"`, `weights` holds signed values
// (gradient × input), drawn on the diverging scale of their largest magnitude.

import { ROLE, ROLE_TEXT, GRID, MASKED, BACKGROUND, INK, seqRGBA, divRGBA, seqDark, divDark } from "./colors.js";
import { el, fillTableLater, fmt, fmtExact, fmtCell, sizeCanvas, fitText, setAttr, paintGate, paintCells, FONT, FONT_SMALL, FONT_BOLD, watchWidth, tableBox } from "./dom.js";
import { t as defaultT } from "./i18n.js";

let hatch = null;
function maskedPattern(g) {
  if (!hatch) {
    const c = document.createElement("canvas");
    c.width = 6;
    c.height = 6;
    const p = c.getContext("2d");
    p.fillStyle = "#f3f3f6";
    p.fillRect(0, 0, 6, 6);
    p.strokeStyle = MASKED;
    p.lineWidth = 1;
    p.beginPath();
    p.moveTo(0, 6);
    p.lineTo(6, 0);
    p.stroke();
    hatch = c;
  }
  return g.createPattern(hatch, "repeat");
}

function maxAbsFinite(mat) {
  let m = 0;
  for (const v of mat.data) if (Number.isFinite(v) && Math.abs(v) > m) m = Math.abs(v);
  return m || 1;
}

/**
 * A heatmap with token labels. Options: `onSelectRow(i)` (click / keys pick a query row),
 * `onSelectCell(i, j)` (a click, or Enter / Space, on a cell: its query row and key column),
 * `rowRole` / `colRole` (identity colours of the labels: "query", "key", or null),
 * `maxCell` (largest cell in CSS px), `t` (the translator: a panel can speak its own language).
 */
export class Heatmap {
  /**
   * @param {HTMLElement} container
   * @param {object} [opts]
   * @param {(row: number) => void} [opts.onSelectRow]
   * @param {(row: number, col: number) => void} [opts.onSelectCell]
   * @param {string | null} [opts.rowRole]
   * @param {string | null} [opts.colRole]
   * @param {number} [opts.maxCell]
   * @param {number} [opts.minCell]
   * @param {number} [opts.maxHeight]
   * @param {boolean} [opts.table]  false: no table of the numbers (a mini-map)
   * @param {import("./core.js").Translate} [opts.t]
   */
  constructor(container, opts = {}) {
    this.opts = { rowRole: "query", colRole: "key", maxCell: 34, minCell: 9, maxHeight: 560, ...opts };
    this.t = this.opts.t || defaultT;
    this.root = el("div", "heatmap");
    this.scroller = el("div", "heatmap-scroll");
    // focusable picture: arrow keys walk the cells (read out below); the table holds the numbers
    this.canvas = el("canvas", "heatmap-canvas", { tabindex: 0, role: "img" });
    this.tip = el("div", "heatmap-tip", { "aria-hidden": "true" });
    this.tip.hidden = true;
    const rid = `hm-readout-${Math.random().toString(36).slice(2, 8)}`;
    this.readout = el("p", "heatmap-readout", { "aria-live": "polite", id: rid });
    this.canvas.setAttribute("aria-describedby", rid);
    this.tableWrap = el("div", "table-wrap sr-only");
    this.table = el("table", "data-table");
    this.tableWrap.append(this.table);
    this.scroller.append(this.canvas, this.tip);
    // `table: false` (a second, smaller copy of a map): no table, the main map has it
    this.root.append(this.scroller, this.readout, ...(this.opts.table === false ? [] : [this.tableWrap]));
    container.append(this.root);

    this.data = null;
    this.width = 600;
    this.cursor = null; // {r, c} from keyboard / hover
    this.hover = null;
    this.tableTimer = 0;
    this.tableShape = "";
    this.layout = null;

    this.canvas.addEventListener("pointermove", (e) => this.onPointer(e));
    this.canvas.addEventListener("pointerleave", () => {
      this.hover = null;
      this.tip.hidden = true;
      this.draw();
    });
    this.canvas.addEventListener("click", (e) => {
      const cell = this.cellAt(e);
      if (cell && this.opts.onSelectRow) this.opts.onSelectRow(cell.r);
      if (cell) this.opts.onSelectCell?.(cell.r, cell.c);
      if (cell) this.setCursor(cell, true);
    });
    this.canvas.addEventListener("keydown", (e) => this.onKey(e));
    this.canvas.addEventListener("focus", () => {
      if (!this.data) return;
      if (!this.cursor) this.cursor = { r: this.data.selectedRow ?? 0, c: 0 };
      this.setCursor(this.cursor, true);
    });
    this.canvas.addEventListener("blur", () => this.draw());
    watchWidth(this.root, (w) => {
      this.width = w;
      this.draw();
    }, this.width);
    this.gate = paintGate(this.root, () => this.draw());
  }

  /** Show/hide the table for sighted readers (it is always there for screen readers). */
  showTable(visible) {
    this.tableShown = visible;
    tableBox(this.tableWrap, visible, this.data?.label);
  }

  /**
   * d = {weights, scores?, logits?, rows: [tokens], cols: [tokens], selectedRow, label, show,
   *      rowHeader?, colHeader?}. `live` = part of a drag: the table refresh waits for a pause.
   */
  setData(d, live = false) {
    this.data = d;
    if (this.cursor && (this.cursor.r >= d.weights.rows || this.cursor.c >= d.weights.cols)) this.cursor = null;
    setAttr(this.canvas, "aria-label", `${d.label}. ${this.t("heatmap.keys")}`);
    this.draw(live);
    if (this.cursor && this.canvas.matches(":focus")) this.describe(this.cursor, false);
    fillTableLater(this, live ? 120 : 0);
  }

  computeLayout() {
    const d = this.data;
    const g = this.canvas.getContext("2d");
    g.font = FONT;
    let rw = 0;
    for (const s of d.rows) rw = Math.max(rw, g.measureText(s).width);
    let ch = 0;
    for (const s of d.cols) ch = Math.max(ch, g.measureText(s).width);
    g.font = FONT_BOLD;
    let rwb = 0;
    for (const s of d.rows) rwb = Math.max(rwb, g.measureText(s).width);
    g.font = FONT;
    const n = d.weights.cols;
    const m = d.weights.rows;
    const fitCell = (rowLabelW) => {
      const avail = Math.max(120, this.width - rowLabelW - 8);
      // as wide as the panel allows, but never taller than maxHeight (the Q/K editor sits below)
      const fit = Math.min(Math.floor(avail / n), Math.floor(this.opts.maxHeight / m));
      return Math.max(this.opts.minCell, Math.min(this.opts.maxCell, fit));
    };
    let cell = fitCell(Math.min(110, Math.ceil(Math.max(rw, rwb)) + 16));
    // labels shrink with small cells so that rows never overlap (12px down to 8px)
    const px = cell >= 13 ? 12 : Math.max(8, cell - 1);
    const k = px / 12;
    const rowLabelW = Math.min(110, Math.ceil(Math.max(rw, rwb) * k) + 16);
    const colLabelH = Math.min(96, Math.ceil(ch * k) + 12);
    cell = fitCell(rowLabelW);
    const font = FONT.replace("12px", `${px}px`);
    return { rowLabelW, colLabelH, cell, n, m, font, fontBold: `bold ${font}`, w: rowLabelW + cell * n + 8, h: colLabelH + cell * m + 6 };
  }

  /**
   * Repaint. `live` (during a drag): a map out of view waits until it scrolls into view, and
   * when the labels, the selected row and the size are those of the last paint, only the cell
   * area is repainted (measuring and drawing the labels is most of a small map's cost).
   */
  draw(live = false) {
    const d = this.data;
    if (!d || !this.gate.now(live)) return;
    const key = [this.width, d.weights.rows, d.weights.cols, d.selectedRow, this.opts.rowRole, this.opts.colRole, ...d.rows, "\u0000", ...d.cols].join("\u0001");
    const same = live && this.layout && key === this.labelsKey;
    const L = same ? this.layout : (this.layout = this.computeLayout());
    this.labelsKey = key;
    const { rowLabelW: x0, colLabelH: y0, cell, n, m } = L;
    const g = sizeCanvas(this.canvas, L.w, L.h);
    g.fillStyle = BACKGROUND;
    // the whole canvas, or the cells with their outer grid lines and selection marks
    if (same) g.fillRect(x0, y0, n * cell + 2, m * cell + 2);
    else g.fillRect(0, 0, L.w, L.h);
    this.drawCells(g, L);
    if (!same) this.drawLabels(g, L);
    const sel = d.selectedRow;
    // selected query row
    if (sel !== null && sel !== undefined && sel < m) {
      g.strokeStyle = ROLE[this.opts.rowRole || "output"];
      g.lineWidth = 2;
      g.strokeRect(x0 + 1, y0 + sel * cell + 1, n * cell - 2, cell - 2);
    }
    const mark = this.hover || (this.canvas.matches(":focus") ? this.cursor : null);
    if (mark) {
      g.strokeStyle = "#111118";
      g.lineWidth = 2;
      g.strokeRect(x0 + mark.c * cell + 1, y0 + mark.r * cell + 1, cell - 2, cell - 2);
    }
  }

  /** The cells: colours, masked hatching, grid, diagonal, and numbers inside large cells. */
  drawCells(g, L) {
    const d = this.data;
    const { rowLabelW: x0, colLabelH: y0, cell, n, m } = L;
    const show = d.show || "weights";
    const W = d.weights.data;
    const signed = show === "saliency";
    const S = show === "scores" && d.scores ? d.scores : show === "logits" && d.logits ? d.logits : signed ? d.weights : null;
    const range = S ? maxAbsFinite(S) : 1;
    const logits = d.logits ? d.logits.data : null;
    if (S) paintCells(g, S, x0, y0, n * cell, m * cell, (v, px, o) => divRGBA(Number.isFinite(v) ? v : 0, range, px, o));
    else paintCells(g, d.weights, x0, y0, n * cell, m * cell, seqRGBA);
    // masked cells: one hatched path
    if (logits) {
      let any = false;
      g.beginPath();
      for (let i = 0; i < logits.length; i++) {
        if (logits[i] === -Infinity) {
          any = true;
          g.rect(x0 + (i % n) * cell, y0 + Math.floor(i / n) * cell, cell, cell);
        }
      }
      if (any) {
        g.fillStyle = maskedPattern(g);
        g.fill();
      }
    }
    // cell grid
    g.strokeStyle = GRID;
    g.lineWidth = 1;
    g.beginPath();
    for (let c = 0; c <= n; c++) {
      g.moveTo(x0 + c * cell + 0.5, y0);
      g.lineTo(x0 + c * cell + 0.5, y0 + m * cell);
    }
    for (let r = 0; r <= m; r++) {
      g.moveTo(x0, y0 + r * cell + 0.5);
      g.lineTo(x0 + n * cell, y0 + r * cell + 0.5);
    }
    g.stroke();

    // the diagonal (a word attending to itself), when the data asks for it: core.heatmapData
    // does where a causal mask is on, whose edge it is (everything above it is hidden)
    if (d.diagonal && n === m) {
      g.save();
      g.strokeStyle = "rgba(60, 60, 72, 0.45)";
      g.setLineDash([3, 3]);
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(x0 + n * cell, y0 + m * cell);
      g.stroke();
      g.restore();
    }

    // numbers inside large cells
    if (cell >= 30) {
      g.font = FONT_SMALL;
      g.textAlign = "center";
      g.textBaseline = "middle";
      for (let r = 0; r < m; r++) {
        for (let c = 0; c < n; c++) {
          const i = r * n + c;
          if (logits && logits[i] === -Infinity) continue;
          const v = S ? S.data[i] : W[i];
          if (!S && v < 0.005) continue; // keep empty cells quiet
          const dark = S ? divDark(v, range) : seqDark(v);
          g.fillStyle = dark ? "#ffffff" : INK;
          const txt = signed ? fmtCell(v) : S ? (Math.abs(v) >= 10 ? v.toFixed(0) : v.toFixed(1)) : v.toFixed(2).replace(/^0/, "");
          if (!txt) continue;
          g.fillText(txt, x0 + c * cell + cell / 2, y0 + r * cell + cell / 2);
        }
      }
    }
  }

  /** Row labels (queries) left with the selected row's arrow, column labels (keys) on top. */
  drawLabels(g, L) {
    const d = this.data;
    const { rowLabelW: x0, colLabelH: y0, cell, n, m } = L;
    g.font = L.font;
    g.textBaseline = "middle";
    g.textAlign = "right";
    const sel = d.selectedRow;
    for (let r = 0; r < m; r++) {
      const isSel = r === sel;
      g.font = isSel ? L.fontBold : L.font;
      g.fillStyle = this.opts.rowRole ? ROLE_TEXT[this.opts.rowRole] : "#33333d";
      g.fillText(fitText(g, d.rows[r], x0 - 10), x0 - 7, y0 + r * cell + cell / 2);
      if (isSel) {
        g.fillStyle = ROLE[this.opts.rowRole || "output"];
        g.beginPath();
        const cy = y0 + r * cell + cell / 2;
        g.moveTo(x0 - 1, cy);
        g.lineTo(x0 - 6 + 1, cy - 4);
        g.lineTo(x0 - 6 + 1, cy + 4);
        g.fill();
      }
    }
    g.font = L.font;
    g.save();
    g.textAlign = "left";
    g.fillStyle = this.opts.colRole ? ROLE_TEXT[this.opts.colRole] : "#33333d";
    for (let c = 0; c < n; c++) {
      g.save();
      g.translate(x0 + c * cell + cell / 2, y0 - 6);
      g.rotate(-Math.PI / 2);
      g.fillText(fitText(g, d.cols[c], y0 - 10), 0, 0);
      g.restore();
    }
    g.restore();
  }

  cellAt(e) {
    const L = this.layout;
    if (!L) return null;
    const rect = this.canvas.getBoundingClientRect();
    const x = e.clientX - rect.left - L.rowLabelW;
    const y = e.clientY - rect.top - L.colLabelH;
    const c = Math.floor(x / L.cell);
    const r = Math.floor(y / L.cell);
    if (x < 0 || y < 0 || c >= L.n || r >= L.m) return null;
    return { r, c };
  }

  onPointer(e) {
    const cell = this.cellAt(e);
    if (!cell) {
      if (this.hover) {
        this.hover = null;
        this.tip.hidden = true;
        this.draw();
      }
      return;
    }
    if (!this.hover || this.hover.r !== cell.r || this.hover.c !== cell.c) {
      this.hover = cell;
      this.draw();
    }
    this.showTip(cell);
  }

  /** The words of one cell: query -> key, raw score, scaled/masked score, weight. */
  cellText(cell) {
    const d = this.data;
    const i = cell.r * d.weights.cols + cell.c;
    const parts = [`${d.rows[cell.r]} → ${d.cols[cell.c]}`];
    if (d.outputs) parts.push(this.t("cell.output", { token: d.outputs[cell.r] }));
    if (d.scores) parts.push(`${this.t("cell.raw")} ${fmt(d.scores.data[i])}`);
    if (d.logits) {
      const l = d.logits.data[i];
      parts.push(l === -Infinity ? this.t("cell.masked") : `${this.t("cell.scaled")} ${fmt(l)}`);
    }
    parts.push(`${d.valueName ?? this.t("cell.weight")} ${fmt(d.weights.data[i], 4)}`);
    return parts;
  }

  showTip(cell) {
    const L = this.layout;
    const lines = this.cellText(cell);
    this.tip.replaceChildren(...lines.map((s, k) => el("div", k === 0 ? "tip-head" : "", {}, s)));
    this.tip.hidden = false;
    // beside the cell, on whichever side has room inside the panel
    let x = L.rowLabelW + (cell.c + 1) * L.cell + 8;
    const y = L.colLabelH + cell.r * L.cell;
    if (x + 215 > Math.max(this.width, L.w)) x = Math.max(0, L.rowLabelW + cell.c * L.cell - 218);
    this.tip.style.transform = `translate(${x}px, ${y}px)`;
  }

  describe(cell, withTip) {
    this.readout.textContent = this.cellText(cell).join(" · ");
    if (withTip) this.showTip(cell);
  }

  setCursor(cell, announce) {
    this.cursor = cell;
    this.draw();
    if (announce) this.describe(cell, true);
  }

  onKey(e) {
    const d = this.data;
    if (!d) return;
    const cur = this.cursor || { r: d.selectedRow ?? 0, c: 0 };
    let { r, c } = cur;
    switch (e.key) {
      case "ArrowUp": r = Math.max(0, r - 1); break;
      case "ArrowDown": r = Math.min(d.weights.rows - 1, r + 1); break;
      case "ArrowLeft": c = Math.max(0, c - 1); break;
      case "ArrowRight": c = Math.min(d.weights.cols - 1, c + 1); break;
      case "Home": c = 0; break;
      case "End": c = d.weights.cols - 1; break;
      case "Enter":
      case " ":
        if (this.opts.onSelectRow) this.opts.onSelectRow(r);
        this.opts.onSelectCell?.(r, c);
        e.preventDefault();
        return;
      case "Escape":
        this.tip.hidden = true;
        return;
      default:
        return;
    }
    e.preventDefault();
    const rowChanged = r !== cur.r;
    this.setCursor({ r, c }, true);
    if (rowChanged && this.opts.onSelectRow) this.opts.onSelectRow(r);
  }

  /** The screen-reader table, a row at a time: a generator of cells written (dom.fillTableLater). */
  *renderTable() {
    const d = this.data;
    if (!d || this.opts.table === false) return;
    const m = d.weights.rows;
    const n = d.weights.cols;
    const shape = `${m}x${n}|${d.rows.join("\u0001")}|${d.cols.join("\u0001")}|${d.rowHeader}`;
    this.table.setAttribute("aria-label", d.label);
    if (this.tableShown) tableBox(this.tableWrap, true, d.label);
    // a new shape builds the rows as it goes; the shape is known only once the last is there
    const build = shape !== this.tableShape;
    if (build) {
      this.tableShape = null;
      const head = el("thead");
      const hr = el("tr");
      hr.append(el("th", "corner", { scope: "col" }, d.rowHeader || this.t("table.queryKey")));
      for (const s of d.cols) hr.append(el("th", "col-key", { scope: "col" }, s));
      head.append(hr);
      this.table.replaceChildren(el("caption", "", {}, d.label), head, el("tbody"));
    } else {
      this.table.caption.textContent = d.label;
    }
    const body = this.table.tBodies[0];
    const W = d.weights.data;
    for (let r = 0; r < m; r++) {
      let tr = body.rows[r];
      if (build) {
        tr = el("tr");
        tr.append(el("th", "row-query", { scope: "row" }, d.rows[r]));
        for (let c = 0; c < n; c++) tr.append(el("td"));
        body.append(tr);
      }
      const cells = tr.cells;
      for (let c = 0; c < n; c++) {
        const s = fmtExact(W[r * n + c]);
        if (cells[c + 1].textContent !== s) cells[c + 1].textContent = s;
      }
      tr.classList.toggle("selected", r === d.selectedRow);
      yield n;
    }
    this.tableShape = shape;
  }
}

/**
 * The layer x head overview: one small map per head, rows = layers. Clicking a map selects
 * that layer and head (`onSelect(layer, head)`). All maps are painted on one canvas under a
 * grid of transparent buttons (one canvas to update per frame, however many heads).
 */
export class HeadGrid {
  constructor(container, { onSelect, t }) {
    this.onSelect = onSelect;
    this.t = t || defaultT;
    this.root = el("div", "headgrid");
    this.canvas = el("canvas", "headgrid-canvas", { "aria-hidden": "true" });
    container.append(this.root);
    this.shape = "";
    this.buttons = [];
    this.rects = null; // button boxes relative to the grid, measured after layout changes
    this.data = null;
    new ResizeObserver(() => {
      this.rects = null;
      this.draw();
    }).observe(this.root);
    this.gate = paintGate(this.root, () => this.draw());
    /** @type {{rects: any, mats: any[][], off: boolean[][]} | null} what the canvas shows */
    this.drawn = null;
  }

  /**
   * d = {layers: [[Mat per head]], selected: {layer, head} | null, within?: number | null,
   * off?: [[bool per head]]}: `selected` is pressed; `within` (the rollout view, no head
   * selected) frames every head of the first `within` layers, those its map combines. `live` as
   * in Heatmap.draw.
   */
  setData(d, live = false) {
    this.data = d;
    const L = d.layers.length;
    const H = d.layers[0]?.length || 0;
    const m0 = d.layers[0]?.[0];
    const aspect = m0 ? `${m0.cols} / ${m0.rows}` : "1";
    const shape = `${L}x${H}|${aspect}|${this.t("grid.layer", { n: 1 })}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.buttons = [];
      this.rects = null;
      this.root.style.gridTemplateColumns = `auto repeat(${H}, minmax(44px, 72px))`;
      const kids = [this.canvas, el("span", "headgrid-corner")];
      for (let h = 0; h < H; h++) kids.push(el("span", "headgrid-col", {}, this.t("grid.head", { n: h + 1 })));
      for (let l = 0; l < L; l++) {
        kids.push(el("span", "headgrid-row", {}, this.t("grid.layer", { n: l + 1 })));
        const row = [];
        for (let h = 0; h < H; h++) {
          const b = el("button", "thumb", { type: "button", "aria-label": this.t("grid.thumb", { layer: l + 1, head: h + 1 }) });
          b.style.aspectRatio = aspect;
          b.addEventListener("click", () => this.onSelect(l, h));
          kids.push(b);
          row.push(b);
        }
        this.buttons.push(row);
      }
      this.root.replaceChildren(...kids);
    }
    for (let l = 0; l < L; l++) {
      for (let h = 0; h < H; h++) {
        const on = !!d.selected && l === d.selected.layer && h === d.selected.head;
        setAttr(this.buttons[l][h], "aria-pressed", String(on));
        this.buttons[l][h].classList.toggle("in-map", d.within != null && l < d.within);
        // veiled while older than the edits (the layers after a dragged one catch up after it)
        this.buttons[l][h].classList.toggle("stale", d.stale != null && l >= d.stale);
      }
    }
    this.draw(live);
  }

  draw(live = false) {
    const d = this.data;
    if (!d || !this.gate.now(live)) return;
    if (!this.rects) {
      // layout read: only after the grid changed shape or size, never per frame otherwise
      this.rects = this.buttons.map((row) => row.map((b) => ({ x: b.offsetLeft, y: b.offsetTop, w: b.offsetWidth, h: b.offsetHeight })));
      // the canvas covers the buttons (not scrollWidth: the canvas itself would count)
      let w = 1;
      let h = 1;
      for (const row of this.rects) for (const r of row) {
        w = Math.max(w, r.x + r.w);
        h = Math.max(h, r.y + r.h);
      }
      this.size = { w, h };
    }
    const before = `${this.canvas.width}x${this.canvas.height}`;
    const g = sizeCanvas(this.canvas, this.size.w, this.size.h);
    // only the maps that changed since the last paint (an edit in layer 6 leaves layers 1 - 5
    // as they were: the same matrix objects); everything after a resize or relayout
    const full = !this.drawn || this.drawn.rects !== this.rects || before !== `${this.canvas.width}x${this.canvas.height}`;
    if (full) {
      g.clearRect(0, 0, this.size.w, this.size.h);
      this.drawn = { rects: this.rects, mats: [], off: [] };
    }
    const drawn = this.drawn;
    const pad = 5; // inside the button's border and padding
    for (let l = 0; l < d.layers.length; l++) {
      drawn.mats[l] ||= [];
      drawn.off[l] ||= [];
      for (let h = 0; h < d.layers[l].length; h++) {
        const r = this.rects[l]?.[h];
        if (!r) continue;
        const off = !!d.off?.[l]?.[h];
        if (drawn.mats[l][h] === d.layers[l][h] && drawn.off[l][h] === off) continue;
        drawn.mats[l][h] = d.layers[l][h];
        drawn.off[l][h] = off;
        if (!full) g.clearRect(r.x, r.y, r.w, r.h);
        paintCells(g, d.layers[l][h], r.x + pad, r.y + pad, r.w - 2 * pad, r.h - 2 * pad, seqRGBA);
        if (off) {
          // a knocked-out head: still computed (its map is what it would attend to), but its
          // output is dropped; veiled and struck through
          g.fillStyle = "rgba(255,255,255,0.72)";
          g.fillRect(r.x + pad, r.y + pad, r.w - 2 * pad, r.h - 2 * pad);
          g.strokeStyle = "#b3261e";
          g.lineWidth = 2;
          g.beginPath();
          g.moveTo(r.x + pad, r.y + r.h - pad);
          g.lineTo(r.x + r.w - pad, r.y + pad);
          g.stroke();
        }
      }
    }
  }
}
