// Greedy decoding step by step: the prefix, the candidates and their probabilities, the
// cross-attention of the selected layer and head at that step (decoding.js).

import * as C from "../core.js";
import { Decoding } from "../decoding.js";

/** @satisfies {import("../session.js").PanelDef} */
export const decodingPanel = {
  name: "decoding",
  uses: ["step", "layer", "head", "lang"],
  needs: ["translation"],
  // `subheading`: the element of the view's sub-titles (default h3, under the lab's h2)
  mount(container, session, opts = {}) {
    const view = new Decoding(container, { onStep: (k) => session.select({ step: k }), t: session.t, heading: opts.subheading });
    return {
      render() {
        const d = C.decodingData(session.cur, session.state, session.info, session.engine?.file);
        if (d) view.setData({ ...d, languages: session.engine.languages });
      },
      tables(on) {
        view.showTable(on);
      },
    };
  },
};
