// All heads of the selected stack at a glance (heatmap.js HeadGrid): one small map per head,
// a row per layer; clicking one selects it.

import * as C from "../core.js";
import { HeadGrid } from "../heatmap.js";

export const gridPanel = {
  name: "grid",
  uses: ["stack", "layer", "head", "lang"],
  live: true,
  mount(container, session) {
    const grid = new HeadGrid(container, { onSelect: (layer, head) => session.select({ layer, head }), t: session.t });
    return {
      render(live) {
        grid.setData(C.gridData(session.cur, session.state, session.info), live);
      },
    };
  },
};
