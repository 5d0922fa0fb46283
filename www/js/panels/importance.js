// "Which heads matter?": for the current sentence and translation, how much the translation's
// log-probability (teacher-forced) drops when each head alone is knocked out, one run per head
// (Lab.headImportance, src/analysis.rs). Big weights and importance are different things (Jain &
// Wallace 2019; Michel et al. 2019, "Are Sixteen Heads Really Better than One?"). Computed on
// demand; the result belongs to the translation it was computed for and goes with a new run.
// The engine gives each head's change of the log-probability (`delta`, negative when it drops);
// the page shows the drop, -delta, so that the most important head has the biggest number, and
// names the heads in words ("cross-attention layer 1 head 2"), not by their codes ("c1h2").

import * as C from "../core.js";
import { seqColor, seqDark, INK } from "../colors.js";
import { el, fmt, setText } from "../dom.js";

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

    /** Head i's change in words: `drop` when the log-probability drops (or stays), `rise` when it rises. */
    function change(i, drop, rise) {
      const d = result.out.delta[i];
      return t(d > 0 ? rise : drop, { head: C.headWords(t, result.out.heads[i]), d: fmt(Math.abs(d), 2) });
    }

    function show() {
      const { out } = result;
      const drops = Array.from(out.delta, (d) => Math.max(0, -d));
      const max = Math.max(1e-9, ...drops);
      // one row per stack and layer, one cell per head ("H2 12.40": the head, its drop)
      /** @type {Map<string, {label: string, cells: {i: number, head: number}[]}>} */
      const rows = new Map();
      out.heads.forEach((name, i) => {
        const h = C.parseHeadName(name);
        if (!h) return;
        const key = `${h.stack}/${h.layer}`;
        if (!rows.has(key)) rows.set(key, { label: t("grid.stackLayer", { stack: t(`stackName.${h.stack}`), n: h.layer + 1 }), cells: [] });
        rows.get(key).cells.push({ i, head: h.head });
      });
      const heads = Math.max(...[...rows.values()].map((r) => r.cells.length));
      table.style.setProperty("--heads", String(heads)); // the columns: views.css
      const cells = [];
      for (const row of rows.values()) {
        cells.push(el("span", "imp-row", {}, row.label));
        for (const { i, head } of row.cells) {
          const v = drops[i] / max;
          const c = el("span", "imp-cell", { title: change(i, "imp.cell", "imp.cellRise") }, `H${head + 1} ${fmt(-out.delta[i], 2)}`);
          c.style.background = seqColor(v);
          c.style.color = seqDark(v) ? "#ffffff" : INK;
          cells.push(c);
        }
      }
      table.replaceChildren(...cells);
      const best = Array.from(out.ranking).slice(0, 3);
      setText(status, `${t("imp.done", { base: fmt(out.base, 2), top: best.map((i) => change(i, "imp.topDrop", "imp.topRise")).join(", ") })} (${t("imp.cost", { n: out.heads.length, ms: fmt(result.ms, 0) })})`);
      top.replaceChildren(
        ...best.map((i) => {
          const b = el("button", "btn btn-small", { type: "button" }, t("imp.knock", { head: C.headWords(t, out.heads[i]) }));
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
