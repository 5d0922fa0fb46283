// All heads of the selected stack at a glance (heatmap.js HeadGrid): one small map per head,
// a row per layer; clicking one selects it. Below, a toggle per head switches it off (head
// knock-out: its output is zeroed before W_O, src/analysis.rs) and back on; the translation and
// every map follow. Knocked-out heads are veiled in the grid and kept in the URL (state "ko").
// The toggles are of the stack shown, and say so; the count below names every head that is off,
// those of the other stacks too. In the rollout view the map above is no single head's: no head
// is pressed, the heads it combines are framed, a note says so, and a click opens that head's
// own weights. The gradient × input view is of the whole model: no head is pressed or framed, a
// note says so, and a click opens that head's weights.

import * as C from "../core.js";
import { HeadGrid } from "../heatmap.js";
import { el, setText } from "../dom.js";
import { modelKey } from "../i18n.js";

/** @satisfies {import("../session.js").PanelDef} */
export const gridPanel = {
  name: "grid",
  uses: ["stack", "layer", "head", "show", "knockOut", "heads", "lang"],
  live: true,
  mount(container, session) {
    const t = session.t;
    // in the rollout view a head has no map of its own: a click shows its weights
    const onSelect = (layer, head) => session.select(session.state.show === "rollout" || session.state.show === "saliency" ? { layer, head, show: "weights" } : { layer, head });
    const rolloutNote = el("p", "hint grid-rollout", { "data-test": "grid-rollout" });
    rolloutNote.hidden = true;
    container.append(rolloutNote);
    const grid = new HeadGrid(container, { onSelect, t });
    // while a drag keeps the layers after the dragged one from catching up (their maps are
    // veiled); its line is kept when empty, so that nothing below moves during a drag
    const staleNote = el("p", "hint grid-stale", { "data-test": "grid-stale" }, "\u00a0");
    container.append(staleNote);
    const box = el("div", "knock");
    const hint = el("p", "hint");
    const stackLabel = el("span", "knock-stack", { id: `${session.uid}-knock-stack` });
    const groups = el("div", "knock-groups", { role: "group", "aria-labelledby": stackLabel.id });
    const restore = el("button", "btn btn-small", { type: "button" });
    const count = el("span", "knock-count", { role: "status" });
    restore.addEventListener("click", () => session.toggleHead(null));
    const bar = el("p", "knock-bar");
    bar.append(restore, " ", count);
    box.append(hint, groups, bar);
    container.append(box);
    let shape = "";

    function renderToggles() {
      const { state, info } = session;
      const stack = state.stack;
      const layers = C.layersOf(info, stack);
      const heads = session.heads();
      if (shape !== `${stack}/${layers}/${heads}/${session.lang}`) {
        shape = `${stack}/${layers}/${heads}/${session.lang}`;
        const stackName = t(`stackName.${stack}`);
        setText(stackLabel, t("grid.knockStack", { stack: stackName }));
        groups.replaceChildren(
          stackLabel,
          ...Array.from({ length: layers }, (_, l) => {
            const g = el("div", "knock-layer", { role: "group", "aria-label": t("grid.stackLayer", { stack: stackName, n: l + 1 }) });
            g.append(el("span", "knock-label", { "aria-hidden": "true" }, t("grid.knockLayer", { n: l + 1 })));
            for (let h = 0; h < heads; h++) {
              const name = C.headName(stack, l, h);
              const b = el("button", "btn btn-small knock-btn", { type: "button", "data-head": name, "aria-label": t("grid.knockOne", { stack: stackName, layer: l + 1, head: h + 1 }) }, `H${h + 1}`);
              b.addEventListener("click", () => session.toggleHead(name));
              g.append(b);
            }
            return g;
          }),
        );
      }
      for (const b of groups.querySelectorAll("button")) b.setAttribute("aria-pressed", String(C.knockedOut(state, stack, ...parse(b.dataset.head))));
      // every head that is off, in words: those of the other stacks have no toggle on screen
      const off = C.knockedOutHeads(state);
      const n = off.length;
      restore.disabled = n === 0;
      setText(hint, t(modelKey("grid.knock", session.info)));
      setText(restore, t("grid.restore"));
      setText(count, n ? t(n === 1 ? "grid.offOne" : "grid.off", { n, names: off.map((x) => C.headWords(t, x)).join(", ") }) : "");
    }
    /** "e1h2" -> [layer, head], 0-based. @param {string} name @returns {[number, number]} */
    const parse = (name) => {
      const m = name.match(/^[esc](\d+)h(\d+)$/);
      return [Number(m[1]) - 1, Number(m[2]) - 1];
    };

    return {
      render(live) {
        const d = C.gridData(session.cur, session.state, session.info);
        grid.setData(d, live);
        const L = d.layers.length;
        setText(staleNote, d.stale === null ? "\u00a0" : t(d.stale === L - 1 ? "grid.staleOne" : "grid.stale", { from: d.stale + 1, to: L }));
        if (live) return;
        rolloutNote.hidden = d.within === null && !d.whole;
        if (d.within !== null) setText(rolloutNote, t(d.within === 1 ? "grid.rolloutOne" : "grid.rollout", { layer: d.within }));
        else if (d.whole) setText(rolloutNote, t("grid.saliency"));
        renderToggles();
      },
    };
  },
};
