// "Which heads matter?": for the current sentence and translation, how much the translation's
// log-probability (teacher-forced) drops when each head alone is knocked out, one run per head
// (Lab.headImportance, src/analysis.rs). Big weights and importance are different things (Jain &
// Wallace 2019; Michel et al. 2019, "Are Sixteen Heads Really Better than One?"). Computed on
// demand; the result belongs to the translation it was computed for and goes with a new run.

import * as C from "../core.js";
import { seqColor, seqDark, INK } from "../colors.js";
import { el, fmt, setText } from "../dom.js";

const STACK_OF = { e: "encoder", s: "decoder_self", c: "decoder_cross" };

/** @satisfies {import("../session.js").PanelDef} */
export const importancePanel = {
  name: "importance",
  uses: ["lang", "knockOut"],
  needs: ["translation"],
  mount(container, session, opts = {}) {
    const t = session.t;
    const title = el(opts.heading || "h3", "sub");
    const lead = el("p", "hint");
    const run = el("button", "btn btn-small", { type: "button" });
    const status = el("p", "hint", { role: "status" });
    const table = el("div", "imp-grid", { "data-test": "importance" });
    const top = el("p", "imp-top");
    container.append(title, lead, run, status, table, top);
    let result = null; // {cur, out, ms}

    function show() {
      const { out } = result;
      const drops = Array.from(out.delta, (d) => Math.max(0, -d));
      const max = Math.max(1e-9, ...drops);
      // one row per stack and layer, one cell per head
      const rows = new Map();
      out.heads.forEach((name, i) => {
        const key = name.replace(/h\d+$/, "");
        if (!rows.has(key)) rows.set(key, []);
        rows.get(key).push(i);
      });
      const heads = Math.max(...[...rows.values()].map((r) => r.length));
      table.style.gridTemplateColumns = `minmax(9em, auto) repeat(${heads}, minmax(4.5em, 1fr))`;
      const cells = [];
      for (const [key, idx] of rows) {
        const m = key.match(/^([esc])(\d+)$/);
        cells.push(el("span", "imp-row", {}, `${t(`stackName.${STACK_OF[m[1]]}`)}, ${t("grid.layer", { n: Number(m[2]) })}`));
        for (const i of idx) {
          const v = drops[i] / max;
          const c = el("span", "imp-cell", { title: t("imp.cell", { head: out.heads[i], d: fmt(out.delta[i], 2) }) }, `${out.heads[i].replace(/^[esc]\d+/, "")} ${fmt(out.delta[i], 2)}`);
          c.style.background = seqColor(v);
          c.style.color = seqDark(v) ? "#ffffff" : INK;
          cells.push(c);
        }
      }
      table.replaceChildren(...cells);
      const best = Array.from(out.ranking).slice(0, 3);
      setText(status, `${t("imp.done", { base: fmt(out.base, 2), top: best.map((i) => `${out.heads[i]} (${fmt(out.delta[i], 2)})`).join(", ") })} (${t("imp.cost", { n: out.heads.length, ms: fmt(result.ms, 0) })})`);
      top.replaceChildren(
        ...best.map((i) => {
          const b = el("button", "btn btn-small", { type: "button" }, t("imp.knock", { head: out.heads[i] }));
          b.addEventListener("click", () => session.toggleHead(out.heads[i]));
          return b;
        }),
      );
    }

    run.addEventListener("click", () => {
      setText(status, t("imp.running"));
      table.replaceChildren();
      top.replaceChildren();
      // let the message paint before the runs (about one frame per head)
      requestAnimationFrame(() =>
        setTimeout(() => {
          const t0 = performance.now();
          const out = session.guard(() => session.engine.headImportance());
          if (!out) return setText(status, "");
          result = { cur: session.cur, out, ms: performance.now() - t0 };
          performance.measure("attnscope-importance", { start: t0, end: t0 + result.ms }); // bench-drag.mjs
          show();
        }, 0),
      );
    });

    return {
      render() {
        setText(title, t("imp.title"));
        setText(lead, t("imp.lead"));
        setText(run, t("imp.run"));
        if (result && result.cur !== session.cur) {
          // another translation (a new sentence, a switch, a knock-out): the ranking is stale
          result = null;
          setText(status, "");
          table.replaceChildren();
          top.replaceChildren();
        }
      },
    };
  },
};
