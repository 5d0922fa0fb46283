// Word order and positional encoding: the encoder maps of the selected layer and head for two
// sentences with the same words in another order, whether they are the same once the words are
// lined up, and the head where order matters most (core.js pairData).
//
// Options: `always` (an embed: the pair is always computed; the lab computes it once the reader
// opens the comparison, state.pair).

import * as C from "../core.js";
import { Heatmap } from "../heatmap.js";
import { el } from "../dom.js";

/** @satisfies {import("../session.js").PanelDef} */
export const orderPanel = {
  name: "order",
  uses: ["layer", "head", "positional", "pair", "lang"],
  needs: ["encoder"],
  needsPair: (state, opts) => !!opts.always || state.pair,
  mount(container, session, opts = {}) {
    const t = session.t;
    container.classList.add("order-panel"); // lays out by its own width (style.css)
    const grid = el("div", "order");
    const titles = [];
    const maps = [0, 1].map(() => {
      const col = el("div", "order-col");
      const title = el(opts.subheading || "h3", "sub");
      const inner = el("div");
      col.append(title, inner);
      grid.append(col);
      titles.push(title);
      return new Heatmap(inner, { maxCell: 30, t });
    });
    const verdict = el("p", "notice", { role: "status" });
    const most = el("p", "hint order-most");
    const mostText = el("span");
    const mostBtn = el("button", "btn btn-small", { type: "button" });
    most.append(mostText, " ", mostBtn);
    container.append(grid, verdict, most);
    let best = null;
    mostBtn.addEventListener("click", () => best && session.select({ stack: "encoder", layer: best.layer, head: best.head }));
    const view = {
      /** The head where word order matters most, or null (for the lab's "compare" button). */
      mostHead: () => (session.pair ? C.pairData(session.pair, session.state, session.info, t).most : null),
      render() {
        const open = !!session.pair && orderPanel.needsPair(session.state, opts);
        for (const e of [grid, verdict]) e.hidden = !open;
        most.hidden = true;
        if (!open) return;
        const d = C.pairData(session.pair, session.state, session.info, t);
        maps.forEach((m, i) => {
          titles[i].textContent = d.maps[i].title;
          m.setData(d.maps[i]);
        });
        verdict.textContent = d.verdict.text;
        verdict.classList.toggle("good", d.verdict.same);
        best = d.best;
        most.hidden = !best;
        if (best) {
          mostText.textContent = best.text;
          mostBtn.textContent = best.button;
        }
      },
      tables(on) {
        for (const m of maps) m.showTable(on);
      },
    };
    return view;
  },
};
