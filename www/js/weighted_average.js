// The weighted average made visible: for one query token i, every key/value token j with its
// weight w_ij, its value vector v_j, the term w_ij * v_j, and the head output as their sum.
//
// The weights, value vectors and output are the engine's numbers (from the trace); the only
// arithmetic done here is the product w_ij * v_j of each term, which is what the panel shows.

import { ROLE, ROLE_TEXT, GRID, seqColor } from "./colors.js";
import { el, fillTableLater, fmt, fmtExact, sizeCanvas, fitText, row, setText, setLiveText, setAttr, paintGate, FONT, FONT_SMALL, FONT_BOLD, watchWidth, tableBox } from "./dom.js";
import { t as defaultT } from "./i18n.js";

export class WeightedAverage {
  constructor(container, { onSelectQuery, t }) {
    this.onSelectQuery = onSelectQuery;
    this.t = t || defaultT;
    this.root = el("div", "wavg");
    const top = el("div", "wavg-top");
    const id = `wavg-q-${Math.random().toString(36).slice(2, 8)}`;
    this.qLabel = el("label", "", { for: id });
    this.qSelect = el("select", "", { id });
    this.qSelect.addEventListener("change", () => this.onSelectQuery(Number(this.qSelect.value)));
    top.append(this.qLabel, this.qSelect);
    this.formula = el("p", "formula wavg-formula");
    this.terms = el("p", "wavg-terms");
    this.norms = el("p", "wavg-norms hint");
    this.scroller = el("div", "wavg-scroll");
    this.canvas = el("canvas", "wavg-canvas", { role: "img" });
    this.scroller.append(this.canvas);
    this.tableWrap = el("div", "table-wrap sr-only");
    this.table = el("table", "data-table wavg-table");
    this.tableWrap.append(this.table);
    this.root.append(top, this.formula, this.terms, this.norms, this.scroller, this.tableWrap);
    container.append(this.root);
    this.width = 600;
    this.data = null;
    this.tableTimer = 0;
    this.tableShape = "";
    watchWidth(this.root, (w) => {
      this.width = w;
      this.draw();
    }, this.width);
    this.gate = paintGate(this.root, () => this.draw());
  }

  /** Language changed: rebuild the typeset formula. */
  retext() {
    this.formulaFor = null;
  }

  showTable(visible) {
    this.tableShown = visible;
    tableBox(this.tableWrap, visible, this.table.getAttribute("aria-label") || "");
  }

  /**
   * d = {queryTokens, keyTokens, query (row index), weights (Mat T_q x T_k), v (Mat T_k x d_k),
   *      output (Mat T_q x d_k), label}
   */
  setData(d, live = false) {
    this.data = d;
    this.renderControls(live);
    this.draw(live);
    fillTableLater(this, live ? 120 : 0);
  }

  renderControls(live = false) {
    const d = this.data;
    setText(this.qLabel, this.t("wavg.query"));
    const opts = d.queryTokens.map((s, i) => `${i + 1}. ${s}`);
    const same = this.qSelect.options.length === opts.length && opts.every((s, i) => this.qSelect.options[i].textContent === s);
    if (!same) this.qSelect.replaceChildren(...opts.map((s, i) => el("option", "", { value: i }, s)));
    if (this.qSelect.value !== String(d.query)) this.qSelect.value = String(d.query);

    // output_i = sum_j w_ij v_j, typeset with the query token as i
    const q = d.queryTokens[d.query];
    if (this.formulaFor !== q) {
      this.formulaFor = q;
      const sub = (s) => el("sub", "", {}, s);
      const v = (cls, s) => el("var", cls, {}, s);
      this.formula.replaceChildren(
        v("role-output", "output"), sub(q), " = ",
        el("span", "big-op", {}, "Σ"), sub("j"), " ",
        v("role-weight", "w"), sub(`${q}, j`), " ",
        v("role-value", "v"), sub("j"),
      );
    }
    // the largest terms with their live weights
    const w = row(d.weights, d.query);
    const order = Array.from(w.keys()).sort((a, b) => w[b] - w[a]);
    const top = order.slice(0, 3).map((j) => `${fmt(w[j], 2)} · v(${d.keyTokens[j]})`);
    const rest = order.length - 3;
    setLiveText(this.terms, `= ${top.join(" + ")}${rest > 0 ? ` + … ${this.t("wavg.more", { n: rest })}` : ""}`, live);
    // a weight times the length of what it weighs (after W_O): a big weight on a short vector
    // is a small contribution
    this.norms.hidden = !d.valueNorms;
    if (d.valueNorms) {
      const nv = d.valueNorms;
      const parts = order.slice(0, 3).map((j) => this.t("wavg.normTerm", { word: d.keyTokens[j], w: fmt(w[j], 2), n: fmt(nv[j], 2), c: fmt(w[j] * nv[j], 2) }));
      setLiveText(this.norms, `${this.t("wavg.norms")} ${parts.join("; ")}`, live);
    }
    setAttr(this.canvas, "aria-label", this.t("wavg.canvas", { query: q }));
  }

  /** Repaint; during a drag (`live`) only when in view. */
  draw(live = false) {
    const d = this.data;
    if (!d || !this.gate.now(live)) return;
    const T = d.keyTokens.length;
    const dk = d.v.cols;
    const w = row(d.weights, d.query);
    const out = row(d.output, d.query);
    // Two scales: the value vectors, and the terms together with their sum (so that the sum
    // row can be compared bar by bar with the terms above it).
    let vRange = 1e-9;
    for (const x of d.v.data) vRange = Math.max(vRange, Math.abs(x));
    let tRange = 1e-9;
    for (let j = 0; j < T; j++) {
      const vj = row(d.v, j);
      for (let k = 0; k < dk; k++) tRange = Math.max(tRange, Math.abs(w[j] * vj[k]));
    }
    // the sum row is three rows tall: it can hold a sum up to 3x the largest term on this scale
    const SUM_ROWS = 3;
    for (const x of out) tRange = Math.max(tRange, Math.abs(x) / SUM_ROWS);

    const W = Math.max(320, this.width);
    const rowH = T > 40 ? 12 : T > 20 ? 15 : T > 12 ? 19 : 23;
    const headH = 30;
    const labelW = Math.min(96, Math.max(56, Math.floor(W * 0.14)));
    const weightW = 92;
    const gap = 14;
    const stripW = Math.floor((W - labelW - weightW - 3 * gap - 4) / 2);
    const xw = labelW + gap;
    const xv = xw + weightW + gap;
    const xc = xv + stripW + gap;
    const H = headH + T * rowH + 10 + SUM_ROWS * rowH + 8;
    const g = sizeCanvas(this.canvas, W, H);
    g.clearRect(0, 0, W, H);

    // column headers
    g.font = FONT_BOLD;
    g.textBaseline = "middle";
    g.textAlign = "left";
    g.fillStyle = ROLE_TEXT.key;
    g.fillText(fitText(g, this.t("wavg.colKey"), labelW), 0, headH / 2);
    g.fillStyle = ROLE_TEXT.weight;
    g.fillText(fitText(g, this.t("wavg.colWeight"), weightW), xw, headH / 2);
    g.fillStyle = ROLE_TEXT.value;
    g.fillText(fitText(g, this.t("wavg.colValue"), stripW), xv, headH / 2);
    g.fillText(fitText(g, this.t("wavg.colTerm"), stripW), xc, headH / 2);

    const bar = dk > 0 ? stripW / dk : stripW;
    // bars on one scale: `range` is half a row's height; a taller strip (rows > 1) has room
    // for larger values at the same pixels per unit
    const strip = (x, y, vec, scale, range, color, rows = 1) => {
      const mid = y + (rows * rowH) / 2;
      const unit = rowH / 2 - 1;
      const limit = (rows * rowH) / 2 - 1;
      g.fillStyle = color;
      for (let k = 0; k < dk; k++) {
        const hgt = Math.max(-limit, Math.min(limit, ((vec[k] * scale) / range) * unit));
        const bx = x + k * bar;
        const bw = Math.max(1, bar - (bar > 3 ? 1 : 0));
        if (hgt >= 0) g.fillRect(bx, mid - hgt, bw, hgt);
        else g.fillRect(bx, mid, bw, -hgt);
      }
      g.fillStyle = GRID;
      g.fillRect(x, mid, stripW, 1);
    };

    for (let j = 0; j < T; j++) {
      const y = headH + j * rowH;
      const wj = w[j];
      // the row tinted by its weight, as in the heatmap
      g.fillStyle = seqColor(wj * 0.3);
      g.fillRect(0, y, W, rowH - 1);
      g.font = FONT;
      g.fillStyle = ROLE_TEXT.key;
      g.textAlign = "right";
      g.fillText(fitText(g, d.keyTokens[j], labelW - 4), labelW, y + rowH / 2);
      g.textAlign = "left";
      g.fillStyle = ROLE.weight;
      g.fillRect(xw, y + 3, Math.max(1, wj * 46), rowH - 7);
      g.fillStyle = "#2b2b33";
      g.font = FONT_SMALL;
      g.fillText(fmt(wj, 3), xw + 50, y + rowH / 2);
      const vj = row(d.v, j);
      strip(xv, y, vj, 1, vRange, ROLE.value);
      strip(xc, y, vj, wj, tRange, ROLE.value);
    }
    // the sum: the engine's head output for this query
    const ys = headH + T * rowH + 6;
    g.fillStyle = "#2b2b33";
    g.fillRect(xc, ys - 3, stripW, 1);
    g.font = FONT_BOLD;
    g.textAlign = "right";
    g.fillStyle = ROLE_TEXT.output;
    g.fillText(fitText(g, this.t("wavg.sumRow"), xc - gap - 4), xc - gap, ys + (SUM_ROWS * rowH) / 2);
    g.textAlign = "left";
    strip(xc, ys, out, 1, tRange, ROLE.output, SUM_ROWS);
  }

  /** The screen-reader table, a row at a time: a generator of cells written (dom.fillTableLater). */
  *renderTable() {
    const d = this.data;
    if (!d) return;
    const T = d.keyTokens.length;
    const dk = d.v.cols;
    const q = d.queryTokens[d.query];
    const shape = `${T}x${dk}|${d.keyTokens.join("\u0001")}|${this.t("wavg.colKey")}`;
    const label = this.t("wavg.table", { query: q, label: d.label });
    // a new shape builds the rows as it goes; the shape is known only once the last is there
    const build = shape !== this.tableShape;
    if (build) {
      this.tableShape = null;
      const head = el("thead");
      const hr = el("tr");
      hr.append(el("th", "", { scope: "col" }, this.t("wavg.colKey")), el("th", "", { scope: "col" }, this.t("wavg.colWeight")));
      for (let k = 0; k < dk; k++) hr.append(el("th", "", { scope: "col" }, `${this.t("wavg.dim")} ${k + 1}`));
      head.append(hr);
      this.table.replaceChildren(el("caption"), head, el("tbody"));
    }
    this.table.setAttribute("aria-label", label);
    this.table.caption.textContent = label;
    if (this.tableShown) tableBox(this.tableWrap, true, label);
    const body = this.table.tBodies[0];
    // one row: its head, the weight and dk numbers `(j) -> value`
    const line = (r, kind, className, head, weight, value) => {
      let tr = body.rows[r];
      if (build) {
        tr = el("tr", className, { "data-kind": kind });
        tr.append(el("th", "", { scope: "row" }, head), el("td", "weight"));
        for (let k = 0; k < dk; k++) tr.append(el("td"));
        body.append(tr);
      }
      const cells = tr.cells;
      cells[1].textContent = weight;
      for (let k = 0; k < dk; k++) {
        const x = value(k);
        cells[k + 2].textContent = fmtExact(x);
        cells[k + 2].dataset.value = String(x);
      }
      return dk + 2;
    };
    const w = row(d.weights, d.query);
    for (let j = 0; j < T; j++) {
      const vj = row(d.v, j);
      yield line(j, "term", "", d.keyTokens[j], fmtExact(w[j]), (k) => w[j] * vj[k]); // the one product this panel computes
    }
    const out = row(d.output, d.query);
    yield line(T, "output", "sum", this.t("wavg.sumRow"), "", (k) => out[k]);
    this.tableShape = shape;
  }
}
