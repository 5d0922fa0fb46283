// The weighted average behind one query row: each key's value vector times its weight, and
// their sum, the head's output (weighted_average.js).

import * as C from "../core.js";
import { WeightedAverage } from "../weighted_average.js";

/** @satisfies {import("../session.js").PanelDef} */
export const weightedPanel = {
  name: "weighted",
  uses: ["stack", "layer", "head", "query", "lang"],
  live: true,
  mount(container, session) {
    const view = new WeightedAverage(container, { onSelectQuery: (q) => session.select({ query: q }), t: session.t });
    let norms = null;
    return {
      render(live) {
        // ||v_j W_O|| comes from the engine once per view, not per drag frame: a W_Q/W_K drag
        // edits the head shown, and its values (x_j W_V, from the layer's input) do not move
        const d = C.averageData(session.cur, session.state, session.t, live ? null : session.engine);
        if (live) d.valueNorms = norms;
        else norms = d.valueNorms;
        view.setData(d, live);
      },
      tables(on) {
        view.showTable(on);
      },
    };
  },
};
