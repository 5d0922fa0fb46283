// The attention heatmap of the selected stack, layer and head: its title, the query/key axis
// note, the map (heatmap.js), the colour legend, how peaked the rows are, and (optional) the
// download row and the pronoun hint (explain.js).
//
//   session.mount(heatmapPanel, container, { heading: "h3", exportLink: (state) => url, explain: true })
//
// Options: `heading` (the title's element, null = no title: an embed's chrome shows it),
// `maxHeight` (CSS px), `exportLink` (a function of the state; with it, the download row),
// `explain` (the pronoun hint), `mini` (a small copy beside the W_Q/W_K editor: the map and its
// title only, no table), `ids` (element ids for the lab's page: `{title, map, legend,
// legendText, stats, export}`), `onCell(i, j)` (a cell clicked, or Enter / Space on it: the lab
// shows that weight's dot product).

import * as C from "../core.js";
import { Heatmap } from "../heatmap.js";
import { paintLegend, legendBox } from "../colors.js";
import { el, setText, setLiveText } from "../dom.js";
import { exportRow, saveMap } from "../export.js";
import { pronounHint } from "../explain.js";

/** @satisfies {import("../session.js").PanelDef} */
export const heatmapPanel = {
  name: "heatmap",
  uses: ["stack", "layer", "head", "query", "show", "lang", "causalDecoder", "causalEncoder"],
  live: true,
  mount(container, session, opts = {}) {
    const ids = opts.ids || {};
    const t = session.t;
    const add = (node) => (container.append(node), node);
    const title = opts.heading ? add(el(opts.heading, "sub heatmap-title", ids.title ? { id: ids.title } : {})) : null;
    const hint = opts.explain ? add(el("p", "try", { "data-test": "pronoun-hint" })) : null;
    if (hint) hint.hidden = true;
    const axis = add(el("div", "axis-note"));
    axis.append(el("span", "role-query"), el("span", "role-key"));
    const map = new Heatmap(add(el("div", "", ids.map ? { id: ids.map } : {})), {
      onSelectRow: (r) => session.select({ query: r }),
      onSelectCell: opts.onCell,
      t,
      ...(opts.maxHeight ? { maxHeight: opts.maxHeight } : {}),
      ...(opts.mini ? { table: false, maxCell: 14 } : {}),
    });
    const { canvas: legend, text: legendText } = legendBox(opts.mini ? el("div") : container, { canvas: ids.legend, text: ids.legendText });
    const stats = opts.mini ? el("p") : add(el("p", "hint", ids.stats ? { id: ids.stats } : {}));
    let row = null;
    if (opts.exportLink) {
      row = exportRow(add(el("div", "", ids.export ? { id: ids.export } : {})), (format) => {
        if (!session.cur) return null;
        session.syncDecoder();
        const m = { ...C.exportMap(session.cur, session.state, t, session.engine), link: opts.exportLink(session.state) };
        const png = { canvas: map.canvas, legendCanvas: legend, title: title?.textContent || m.label, legendText: legendText.textContent };
        if (m.signed) return saveMap(format, m, { png, corner: t("table.saliency"), legend: t("export.legendSaliency") });
        return saveMap(format, m, { png, corner: t("table.queryKey"), legend: t("export.legend") });
      });
    }

    // the pronoun hint; "Show me" opens the head it names and leaves the keyboard on the map
    function renderHint() {
      const h = pronounHint(session.cur, session.state, t);
      hint.hidden = !h;
      if (!h) return;
      const parts = [el("span", "", {}, h.text)];
      if (h.select) {
        const btn = el("button", "btn btn-small", { type: "button" }, t("try.show"));
        btn.addEventListener("click", () => {
          session.select(h.select);
          map.canvas.focus();
        });
        parts.push(" ", btn);
      }
      hint.replaceChildren(...parts);
    }

    // a download's "Saved …" line belongs to the map it saved
    let shown = "";

    return {
      map,
      legend,
      render(live) {
        const { cur, state } = session;
        const d = C.heatmapData(cur, state, t, session.engine, live);
        if (title) setText(title, C.heatmapTitle(state, d.label, t));
        map.setData(d, live);
        // gradient × input: what it is beside the weights, and its formula for the row selected
        if (!opts.mini) setLiveText(stats, d.show === "saliency" ? C.saliencyNote(d, t) : C.peakText(d.weights, t, state.show), live);
        if (live) return;
        // gradient × input's rows are outputs and its columns inputs, not queries and keys
        const axes = d.show === "saliency" ? ".saliency" : "";
        setText(axis.children[0], t(`attn.rows${axes}`));
        setText(axis.children[1], t(`attn.cols${axes}`));
        const l = C.legendOf(cur, state, t, d);
        paintLegend(legend, l.kind, 160, 12);
        legendText.textContent = l.text;
        row?.retext(t);
        const key = `${state.stack}/${state.layer}/${state.head}/${state.show}`;
        if (key !== shown) row?.clear();
        shown = key;
        if (hint) renderHint();
      },
      tables(on) {
        map.showTable(on);
      },
    };
  },
};
