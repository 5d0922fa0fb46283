// Why a weight is what it is: the dot product behind one attention weight, dimension by
// dimension (the idea of BertViz's neuron view). For the selected head, query i (the state's
// query row) and key j (this panel's own choice: the row's largest weight until one is picked),
// it draws q_i and k_j as two rows of d_k coloured cells and their products q_i[d] * k_j[d] as
// bars, then lists the steps from there to the weight: the sum of the products (the engine's
// raw score s_ij), the scaling by 1/sqrt(d_k) and the mask (the engine's logit), and the
// softmax over row i (the engine's weight). A table holds the same numbers (tables mode).
//
// The view returned has, besides render and tables, `selectKey(j)` (the lab: a heatmap cell
// clicked) and `highlight(d)` (the lab: the row, a d_k dimension, of the W_Q/W_K cell being
// edited; null clears it). Live during a W_Q/W_K drag: d_k numbers to draw.

import * as C from "../core.js";
import { ROLE, ROLE_TEXT, GRID, INK, divColor, divDark, paintLegend, legendBox } from "../colors.js";
import { el, fillTableLater, fmt, fmtExact, sizeCanvas, fitText, setText, setLiveText, setAttr, watchWidth, tableBox, FONT_SMALL, FONT_BOLD } from "../dom.js";

/** Bar colours of a product: the ends of the diverging map (colors.js), positive and negative. */
const BAR = { pos: "#6a51a3", neg: "#86690f" };

/** @typedef {ReturnType<typeof C.dotData>} DotData */

/**
 * The options of a <select> of tokens ("3. games"), rebuilt only when they changed.
 * @param {HTMLSelectElement} sel @param {string[]} tokens @param {number} value
 */
function fillSelect(sel, tokens, value) {
  const opts = tokens.map((s, i) => `${i + 1}. ${s}`);
  const same = sel.options.length === opts.length && opts.every((s, i) => sel.options[i].textContent === s);
  if (!same) sel.replaceChildren(...opts.map((s, i) => el("option", "", { value: i }, s)));
  if (sel.value !== String(value)) sel.value = String(value);
}

/** @satisfies {import("../session.js").PanelDef} */
export const dotPanel = {
  name: "dot",
  uses: ["stack", "layer", "head", "query", "lang"],
  live: true,
  mount(container, session) {
    const t = session.t;
    const uid = session.uid;
    const root = el("div", "dot");
    const pick = el("div", "selectors dot-pick");
    const qLabel = el("label", "", { for: `${uid}-dot-q` });
    const qSel = /** @type {HTMLSelectElement} */ (el("select", "", { id: `${uid}-dot-q` }));
    const kLabel = el("label", "", { for: `${uid}-dot-k` });
    const kSel = /** @type {HTMLSelectElement} */ (el("select", "", { id: `${uid}-dot-k` }));
    const qWrap = el("div", "sel");
    qWrap.append(qLabel, qSel);
    const kWrap = el("div", "sel");
    kWrap.append(kLabel, kSel);
    pick.append(qWrap, kWrap);
    const formula = el("p", "formula dot-formula");
    const scroller = el("div", "dot-scroll");
    const canvas = el("canvas", "dot-canvas", { role: "img", "data-test": "dot-canvas" });
    scroller.append(canvas);
    const dimLine = el("p", "dot-dim", { "data-test": "dot-dim" });
    dimLine.hidden = true;
    const steps = el("ol", "dot-steps");
    const stepSum = el("li", "", { "data-test": "dot-sum" });
    const stepScale = el("li", "", { "data-test": "dot-scale" });
    const stepSoftmax = el("li", "", { "data-test": "dot-softmax" });
    steps.append(stepSum, stepScale, stepSoftmax);
    const top = el("p", "hint dot-top");
    const tableWrap = el("div", "table-wrap sr-only");
    const table = /** @type {HTMLTableElement} */ (el("table", "data-table dot-table"));
    tableWrap.append(table);
    root.append(pick, formula, scroller, dimLine, steps, top);
    container.append(root);
    const { canvas: legend, text: legendText } = legendBox(root);
    root.append(tableWrap);

    /** The key chosen here (null: the row's largest weight) and the key tokens it belongs to. */
    let key = null;
    let keysOf = "";
    /** The d_k dimension marked (the W_Q/W_K row being edited), or null. */
    let dim = null;
    /** @type {DotData | null} */
    let data = null;
    let width = 600;
    let tableShown = false;
    let formulaFor = "";

    qSel.addEventListener("change", () => session.select({ query: Number(qSel.value) }));
    kSel.addEventListener("change", () => view.selectKey(Number(kSel.value)));
    watchWidth(root, (w) => {
      width = w;
      draw();
    }, width);

    /** q_i . k_j = sum_d q_i[d] k_j[d], typeset with the two tokens. @param {string} qt @param {string} kt */
    function typeset(qt, kt) {
      const sub = (s) => el("sub", "", {}, s);
      const v = (cls, s) => el("var", cls, {}, s);
      formula.replaceChildren(
        v("", "s"), sub(`${qt}, ${kt}`), " = ",
        v("role-query", "q"), sub(qt), " · ", v("role-key", "k"), sub(kt), " = ",
        el("span", "big-op", {}, "Σ"), sub("d"), " ",
        v("role-query", "q"), sub(qt), "[d] ", v("role-key", "k"), sub(kt), "[d]",
      );
    }

    function draw() {
      const d = data;
      if (!d) return;
      const dk = d.q.length;
      const W = Math.max(320, width);
      const labelW = Math.min(110, Math.max(64, Math.floor(W * 0.16)));
      const colW = Math.max(12, Math.min(52, Math.floor((W - labelW - 4) / Math.max(1, dk))));
      const headH = 18;
      const cellH = 26;
      const gap = 8;
      const barH = 64;
      const yq = headH;
      const yk = yq + cellH + 2;
      const yp = yk + cellH + gap;
      const H = yp + barH + 4;
      const Wc = labelW + colW * dk + 2;
      const g = sizeCanvas(canvas, Wc, H);
      g.clearRect(0, 0, Wc, H);
      g.textBaseline = "middle";
      // the marked dimension: a band behind its column
      if (dim !== null && dim < dk) {
        g.fillStyle = "#ececf3";
        g.fillRect(labelW + dim * colW - 1, 0, colW + 2, H);
      }
      // column headers: the dimension numbers, 1-based
      g.font = FONT_SMALL;
      g.textAlign = "center";
      g.fillStyle = "#5a5a66";
      const every = colW >= 18 ? 1 : colW >= 10 ? 2 : 4;
      for (let c = 0; c < dk; c++) if (c % every === 0 || c === dim) g.fillText(String(c + 1), labelW + c * colW + colW / 2, headH / 2);
      // row labels
      g.font = FONT_BOLD;
      g.textAlign = "right";
      const label = (text, y, h, color) => {
        g.fillStyle = color;
        g.fillText(fitText(g, text, labelW - 8), labelW - 6, y + h / 2);
      };
      label(`q · ${d.queryTokens[d.query]}`, yq, cellH, ROLE_TEXT.query);
      label(`k · ${d.keyTokens[d.key]}`, yk, cellH, ROLE_TEXT.key);
      label(t("dot.rowP"), yp, barH, ROLE_TEXT.output);
      // q_i and k_j: one cell per dimension, on the head's colour scale, the number inside when it fits
      g.font = FONT_SMALL;
      g.textAlign = "center";
      const cells = (vec, y, role) => {
        for (let c = 0; c < dk; c++) {
          const x = labelW + c * colW;
          g.fillStyle = divColor(vec[c], d.range);
          g.fillRect(x, y, colW - 1, cellH);
          if (colW >= 34) {
            g.fillStyle = divDark(vec[c], d.range) ? "#ffffff" : INK;
            g.fillText(fmt(vec[c], 2), x + colW / 2, y + cellH / 2);
          }
        }
        g.strokeStyle = role;
        g.lineWidth = 1;
        g.strokeRect(labelW - 0.5, y - 0.5, colW * dk, cellH + 1);
      };
      cells(d.q, yq, ROLE.query);
      cells(d.k, yk, ROLE.key);
      // the products: bars up (adding to the score) and down (taking from it), on their own scale
      let pr = 1e-9;
      for (const p of d.products) pr = Math.max(pr, Math.abs(p));
      const mid = yp + barH / 2;
      const unit = barH / 2 - 2;
      for (let c = 0; c < dk; c++) {
        const p = d.products[c];
        const h = (p / pr) * unit;
        g.fillStyle = p >= 0 ? BAR.pos : BAR.neg;
        const x = labelW + c * colW + Math.max(1, colW * 0.15);
        const bw = Math.max(2, colW * 0.7 - 1);
        if (h >= 0) g.fillRect(x, mid - h, bw, Math.max(1, h));
        else g.fillRect(x, mid, bw, -h);
      }
      g.fillStyle = GRID;
      g.fillRect(labelW, mid, colW * dk, 1);
      if (dim !== null && dim < dk) {
        g.strokeStyle = "#111118";
        g.lineWidth = 2;
        g.strokeRect(labelW + dim * colW - 1, 1, colW + 1, H - 2);
      }
    }

    /** @param {boolean} live */
    function renderText(live) {
      const d = data;
      const qt = d.queryTokens[d.query];
      const kt = d.keyTokens[d.key];
      const dk = d.q.length;
      if (formulaFor !== `${qt}\u0001${kt}`) {
        formulaFor = `${qt}\u0001${kt}`;
        typeset(qt, kt);
      }
      setAttr(canvas, "aria-label", t("dot.canvas", { query: qt, key: kt, dk }));
      setLiveText(stepSum, t("dot.sum", { dk, s: fmt(d.score) }), live);
      const masked = d.logit === -Infinity;
      const scale = masked ? t("dot.masked") : d.scaled ? t("dot.scaled", { s: fmt(d.score), dk, l: fmt(d.logit) }) : t("dot.unscaled", { l: fmt(d.logit) });
      setLiveText(stepScale, scale, live);
      const soft = masked
        ? t("dot.softmaxMasked", { w: fmt(d.weight, 4) })
        : t("dot.softmax", { m: fmt(d.rowMax), top: d.keyTokens[d.topKey], sum: fmt(d.expSum), l: fmt(d.logit), e: fmt(d.expTerm, 4), w: fmt(d.weight, 4) });
      setLiveText(stepSoftmax, soft, live);
      // the dimensions that make most of the score
      const order = Array.from(d.products.keys()).sort((a, b) => Math.abs(d.products[b]) - Math.abs(d.products[a]));
      const parts = order.slice(0, 3).map((c) => t("dot.topTerm", { d: c + 1, p: `${d.products[c] >= 0 ? "+" : ""}${fmt(d.products[c], 2)}` }));
      setLiveText(top, t("dot.top", { list: parts.join(", ") }), live);
      renderDim(live);
    }

    /** @param {boolean} live */
    function renderDim(live) {
      const d = data;
      const on = !!d && dim !== null && dim < d.q.length;
      dimLine.hidden = !on;
      if (on) setLiveText(dimLine, t("dot.dim", { d: dim + 1, q: fmt(d.q[dim]), k: fmt(d.k[dim]), p: fmt(d.products[dim]) }), live);
    }

    const view = {
      table,
      tableTimer: 0,
      /** @type {{rows: Generator<number> | null} | null} */
      tableFill: null,
      /** @param {boolean} [live] */
      render(live = false) {
        const { cur, state } = session;
        if (!cur) return;
        const keys = C.tokensOf(cur, state.stack).cols.join("\u0001");
        if (keys !== keysOf) {
          keysOf = keys; // another sentence or attention: back to the row's largest weight
          key = null;
        }
        data = C.dotData(cur, state, key, t);
        if (!live) {
          setText(qLabel, t("dot.query"));
          setText(kLabel, t("dot.key"));
          fillSelect(qSel, data.queryTokens, data.query);
          paintLegend(legend, "div", 160, 12);
          legendText.textContent = t("dot.legend", { r: fmt(data.range, 2) });
          formulaFor = ""; // the language may have changed
        }
        // the largest weight of the row moves during a drag: the key list follows it
        fillSelect(kSel, data.keyTokens, data.key);
        draw();
        renderText(live);
        fillTableLater(view, live ? 120 : 0);
      },
      /** @param {boolean} on */
      tables(on) {
        tableShown = on;
        tableBox(tableWrap, on, table.getAttribute("aria-label") || "");
      },
      /** Show the weight of key `j` (of the selected query). @param {number} j */
      selectKey(j) {
        key = j;
        if (session.cur) view.render(false);
      },
      /** Mark dimension `d` (0-based), or nothing (null). @param {number | null} d */
      highlight(d) {
        if (d === dim) return;
        dim = d;
        if (!data) return;
        draw();
        renderDim(false);
        fillTableLater(view, 0);
      },
      /** The screen-reader table, a row at a time (dom.fillTableLater): d, q_i[d], k_j[d], product; then the score, logit and weight. */
      *renderTable() {
        const d = data;
        if (!d) return;
        const dk = d.q.length;
        const label = t("dot.table", { query: d.queryTokens[d.query], key: d.keyTokens[d.key], label: d.label });
        table.setAttribute("aria-label", label);
        if (tableShown) tableBox(tableWrap, true, label);
        const head = el("thead");
        const hr = el("tr");
        for (const k of ["dot.colDim", "dot.colQ", "dot.colK", "dot.colP"]) hr.append(el("th", "", { scope: "col" }, t(k)));
        head.append(hr);
        const body = el("tbody");
        /** @param {string} kind @param {string} th @param {(number | null)[]} values  null: an empty cell */
        const line = (kind, th, values) => {
          const tr = el("tr", kind === "dim" ? "" : "sum", { "data-kind": kind });
          tr.append(el("th", "", { scope: "row" }, th));
          for (const v of values) {
            const td = el("td", "", v === null ? {} : { "data-value": String(v) }, v === null ? "" : v === -Infinity ? t("cell.masked") : fmtExact(v));
            tr.append(td);
          }
          body.append(tr);
          return tr;
        };
        for (let c = 0; c < dk; c++) line("dim", String(c + 1), [d.q[c], d.k[c], d.products[c]]).classList.toggle("selected", c === dim);
        line("score", t("dot.rowScore"), [null, null, d.score]);
        line("logit", t("dot.rowLogit"), [null, null, d.logit]);
        line("weight", t("dot.rowWeight"), [null, null, d.weight]);
        table.replaceChildren(el("caption", "", {}, label), head, body);
        yield 4 * (dk + 3);
      },
    };
    return view;
  },
};
