// The weighted average behind one query row: each key's value vector times its weight, and
// their sum, the head's output (weighted_average.js).

import * as C from "../core.js";
import { WeightedAverage } from "../weighted_average.js";

export const weightedPanel = {
  name: "weighted",
  uses: ["stack", "layer", "head", "query", "lang"],
  live: true,
  mount(container, session) {
    const view = new WeightedAverage(container, { onSelectQuery: (q) => session.select({ query: q }), t: session.t });
    return {
      render(live) {
        view.setData(C.averageData(session.cur, session.state, session.t, session.engine), live);
      },
      tables(on) {
        view.showTable(on);
      },
    };
  },
};
