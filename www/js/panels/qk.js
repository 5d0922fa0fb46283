// The W_Q and W_K blocks of the selected head, editable by dragging (qk_editor.js), with their
// colour legend. Edits go to the session (one run per animation frame); Identity and Reset too.
// `onCell(matrix, row)`: the row (a d_k dimension) of the cell being edited, null when none
// (the lab marks that dimension in the dot-product panel); `why`: the link to that panel, for
// the editor's line on why a drag may barely move the map.

import * as C from "../core.js";
import { QKEditor } from "../qk_editor.js";
import { paintLegend, legendBox } from "../colors.js";
import { fmt } from "../dom.js";

/** @satisfies {import("../session.js").PanelDef} */
export const qkPanel = {
  name: "qk",
  uses: ["stack", "layer", "head", "heads", "lang"],
  live: true,
  // `subheading`: the element of the two grids' titles (default h3, under the lab's h2)
  mount(container, session, opts = {}) {
    const editor = new QKEditor(container, {
      heading: opts.subheading,
      onEdit: (m, values, phase) => session.edit(m, values, phase),
      onIdentity: () => session.identity(),
      onReset: () => session.resetEdits(),
      onInput: (e) => session.benchInput(e),
      onCell: opts.onCell,
      why: opts.why,
      t: session.t,
    });
    const { canvas: legend, text: legendText } = legendBox(container);
    return {
      render(live) {
        const { engine, state } = session;
        if (live) {
          // the dragged grid repaints itself; only its edit count changes
          editor.flush();
          editor.setEditCount(engine.edits.size);
          return;
        }
        const d = session.guard(() => C.qkData(engine, state, session.heads(), session.qkRange, session.t));
        if (!d) return;
        editor.setData(d);
        paintLegend(legend, "div", 160, 12);
        legendText.textContent = session.t("legend.qk", { r: fmt(editor.range, 2) });
      },
    };
  },
};
