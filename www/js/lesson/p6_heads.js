// Panel 6: multi-head attention on the trained translator. Each head's weights side by side
// (encoder self-attention or decoder cross-attention, one layer), how much the heads overlap,
// and the same trained weights re-split into other head counts (setOptions({heads})), with the
// translation and its confidence measured for each.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, fmt, row, select, setFormula, tryThis, HeatTable, message, newId, scrollBox } from "./ui.js";
import { labels, sentenceBox, translateWithNotes, keySelect, positionSelect, panelOf, controls, needsModel, figureText, figureFormula } from "./shared.js";

const KINDS = ["cross", "enc"];
const MAX_SHOWN = 8;

/** Mean over rows of sum_j min(a_ij, b_ij): 1 when two heads attend identically, 0 when never to the same place. */
function overlap(a, b) {
  let total = 0;
  for (let i = 0; i < a.rows; i++) {
    const ra = row(a, i);
    const rb = row(b, i);
    let s = 0;
    for (let j = 0; j < ra.length; j++) s += Math.min(ra[j], rb[j]);
    total += s;
  }
  return total / a.rows;
}

/** Mean probability the model gave to each token it chose (greedy: the top candidate). */
function confidence(tr) {
  if (!tr.steps.length) return 0;
  return tr.steps.reduce((acc, st) => acc + st.prob, 0) / tr.steps.length;
}

/**
 * Token edit distance (Levenshtein) from `base` to `b`: the fewest tokens to insert, delete or
 * replace, with one shortest script of edits: {distance, ops: [{op: "=" | "-" | "+" | "~", a, b}]}
 * ("~" replaces token a of `base` by token b).
 */
export function tokenEdits(base, b) {
  const n = base.length;
  const m = b.length;
  const D = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      D[i][j] = Math.min(D[i - 1][j] + 1, D[i][j - 1] + 1, D[i - 1][j - 1] + (base[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  const ops = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && base[i - 1] === b[j - 1] && D[i][j] === D[i - 1][j - 1]) {
      ops.push({ op: "=", a: base[i - 1] });
      i -= 1;
      j -= 1;
    } else if (i > 0 && j > 0 && D[i][j] === D[i - 1][j - 1] + 1) {
      ops.push({ op: "~", a: base[i - 1], b: b[j - 1] });
      i -= 1;
      j -= 1;
    } else if (i > 0 && D[i][j] === D[i - 1][j] + 1) {
      ops.push({ op: "-", a: base[i - 1] });
      i -= 1;
    } else {
      ops.push({ op: "+", b: b[j - 1] });
      j -= 1;
    }
  }
  return { distance: D[n][m], ops: ops.reverse() };
}

/** A target token as readers see it: the glue marker "+" dropped ("+는" -> "는"). */
const shownToken = (tok) => (tok.length > 1 && tok.startsWith("+") ? tok.slice(1) : tok);

/** Most edits listed in a row (a translation that went astray would fill the table). */
const MAX_EDITS = 8;

/** The edits as marked text: "−dropped", "+added", "old → new". */
function diffView(ops) {
  const kids = [];
  const edits = ops.filter((o) => o.op !== "=");
  for (const o of edits.slice(0, MAX_EDITS)) {
    if (kids.length) kids.push(" ");
    if (o.op === "-") kids.push(h("del", { text: `−${shownToken(o.a)}` }));
    else if (o.op === "+") kids.push(h("ins", { text: `+${shownToken(o.b)}` }));
    else kids.push(h("span", { class: "diff-sub" }, h("del", { text: shownToken(o.a) }), " → ", h("ins", { text: shownToken(o.b) })));
  }
  if (edits.length > MAX_EDITS) kids.push(" ", t("p6.moreEdits", { n: edits.length - MAX_EDITS }));
  return kids.length ? kids : [t("p6.same")];
}

export function panel6(ctx) {
  const { engine } = ctx;
  const id = newId("p6");
  let kind = state.str("p6.kind", "cross");
  if (!KINDS.includes(kind)) kind = "cross";
  let layer = state.int("p6.layer", 0, 0, 16) - 1; // -1 = last layer
  let heads = state.int("p6.heads", 0, 0, 4096); // 0 = as trained

  const sent = sentenceBox(ctx, "model", () => render());
  const kindSel = keySelect({
    id: `${id}-kind`,
    label: t("p6.kindLabel"),
    key: "p6.kind",
    def: "cross",
    options: KINDS.map((k) => ({ value: k, text: t(`p6.kind.${k}`) })),
    value: kind,
    onChange: (v) => {
      kind = v;
      render();
    },
    test: "p6-kind",
  });
  const layerSel = positionSelect({ id: `${id}-layer`, label: t("ui.layer"), key: "p6.layer", def: 0, onChange: (i) => { layer = i; render(); } });
  const headsSel = select({
    id: `${id}-heads`,
    label: t("p6.headsLabel"),
    options: [],
    value: 0,
    onChange: (v) => {
      heads = Number(v);
      state.put("p6.heads", heads === engine.info.nhead ? 0 : heads, 0);
      render();
    },
    test: "p6-heads",
  });
  const msg = message();
  const grid = h("div", { class: "head-grid", "data-test": "p6-grid" });
  const gridNote = h("p", { class: "note" });
  const overlapTable = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p6.overlapHeader"), test: "p6-overlap" });
  const splitTable = h("table", { class: "numtable splits", role: "table", "data-test": "p6-splits" });
  const translation = h("span", { class: "translation", lang: "ko", "data-test": "p6-translation" });
  const formulaEl = figureFormula(ctx, "p6.formula", "p6-formula");

  function render() {
    if (!ctx.loaded) return;
    const text = ctx.shared.model;
    const info = engine.info;
    if (info) {
      if (!heads || !info.headChoices.includes(heads)) heads = info.nhead;
      headsSel.setOptions(
        info.headChoices.map((hc) => ({ value: hc, text: hc === info.nhead ? t("p6.headsTrained", { h: hc }) : String(hc) })),
        heads,
      );
    }
    const res = translateWithNotes(ctx, engine, sent, msg, text, { heads });
    if (!res) return;
    setFormula(formulaEl, t("p6.formula", { d: info.dModel, h: heads, dk: info.dModel / heads }));
    const trace = res.tr.trace;
    const layers = kind === "enc" ? trace.encoder.layers : trace.decoder.layers;
    if (layer < 0 || layer >= layers.length) layer = layers.length - 1;
    layerSel.setCount(layers.length, layer);
    const att = kind === "enc" ? layers[layer].self_attn : layers[layer].cross_attn;
    const src = labels(res.src.tokens);
    // Cross-attention rows: the step that wrote each token (its query is the token before it).
    const rowsNames = kind === "enc" ? src : labels(res.tr.tokens.slice(0, res.tr.decoder_tokens.length).map((x) => `→ ${x}`));
    translation.textContent = res.tr.text;

    const shown = att.sublayer.heads.slice(0, MAX_SHOWN);
    grid.replaceChildren(
      ...shown.map((hd, k) => {
        const table = new HeatTable({ kind: "seq", digits: 2, rowHeader: "", compact: true, test: `p6-head-${k}` });
        table.update({
          label: t(kind === "enc" ? "p6.headLabelEnc" : "p6.headLabelCross", { head: k + 1, layer: layer + 1 }),
          rows: rowsNames,
          cols: src,
          data: hd.weights.data,
          nr: hd.weights.rows,
          nc: hd.weights.cols,
        });
        // What this head looks at most, summed over its rows.
        const colSum = new Float32Array(hd.weights.cols);
        for (let i = 0; i < hd.weights.rows; i++) row(hd.weights, i).forEach((v, j) => (colSum[j] += v));
        const order = Array.from(colSum.keys()).sort((a, b) => colSum[b] - colSum[a]).slice(0, 2);
        const summary = t("p6.headSummary", { words: order.map((j) => src[j]).join(", ") });
        return h("figure", { class: "head-card" }, h("figcaption", { text: t("p6.headTitle", { head: k + 1 }) }), table.root, h("p", { class: "note", text: summary }));
      }),
    );
    gridNote.textContent = att.sublayer.heads.length > MAX_SHOWN ? t("p6.moreHeads", { shown: MAX_SHOWN, all: att.sublayer.heads.length }) : "";

    const H = att.sublayer.heads.length;
    const hs = Math.min(H, MAX_SHOWN);
    const ov = [];
    for (let a = 0; a < hs; a++) for (let b = 0; b < hs; b++) ov.push(overlap(att.sublayer.heads[a].weights, att.sublayer.heads[b].weights));
    const hn = Array.from({ length: hs }, (_, k) => t("p6.headTitle", { head: k + 1 }));
    overlapTable.update({ label: t("p6.overlapLabel", { layer: layer + 1 }), rows: hn, cols: hn, data: ov, nr: hs, nc: hs });

    renderSplits(text, info);
  }

  /** The same trained weights split into every allowed head count: translation and confidence. */
  function renderSplits(text, info) {
    const head = h("tr", {},
      h("th", { scope: "col", text: t("p6.colHeads") }),
      h("th", { scope: "col", text: t("p6.colTranslation") }),
      h("th", { scope: "col", text: t("p6.colConf") }),
      h("th", { scope: "col", text: t("p6.colEdits") }),
      h("th", { scope: "col", text: t("p6.colDiff") }));
    const body = h("tbody");
    let base;
    try {
      base = engine.translateText(text, { heads: info.nhead }).tr;
    } catch (e) {
      ctx.onEngineError(e);
      return;
    }
    for (const hc of info.headChoices) {
      let tr;
      try {
        tr = engine.translateText(text, { heads: hc }).tr;
      } catch (e) {
        body.append(h("tr", {}, h("th", { scope: "row", text: String(hc) }), h("td", { colspan: 4, text: e.message })));
        ctx.onEngineError(e);
        continue;
      }
      const conf = confidence(tr);
      const ed = tokenEdits(base.tokens, tr.tokens);
      const trEl = h("tr", { class: hc === heads ? "selected" : "" },
        h("th", { scope: "row", text: hc === info.nhead ? t("p6.headsTrained", { h: hc }) : String(hc) }),
        h("td", { lang: "ko", class: "ko-text", text: tr.text }),
        h("td", { text: fmt(conf, 3), dataset: { value: String(conf) } }),
        h("td", { text: String(ed.distance), dataset: { value: String(ed.distance) } }),
        h("td", { lang: "ko", class: "ko-text diff" }, ...diffView(ed.ops)));
      body.append(trEl);
    }
    splitTable.setAttribute("aria-label", t("p6.splitLabel"));
    splitTable.replaceChildren(h("caption", { text: t("p6.splitLabel") }), h("thead", {}, head), body);
  }

  const panel = panelOf(
    ctx,
    "p6",
    figureText(ctx, "p", "p6.how", { "data-test": "p6-how" }),
    msg.root,
    needsModel(
      sent.root,
      tryThis(t("p6.try")),
      controls(kindSel.root, layerSel.root, headsSel.root),
      formulaEl,
      h("p", {}, h("strong", { text: t("p6.translation") }), " ", translation),
      grid,
      gridNote,
      h("h3", { text: t("p6.overlapTitle") }),
      h("p", { text: t("p6.overlap") }),
      overlapTable.root,
      h("h3", { text: t("p6.splitTitle") }),
      figureText(ctx, "p", "p6.split", { "data-test": "p6-split-text" }),
      scrollBox(h("div", { class: "table-scroll" }, splitTable))),
    h("p", { text: t("p6.outro") }),
  );
  ctx.ready(render);
  return panel;
}
