// "Heads to find": for a site model that has a guide (models.js `heads`: MiniLM's), the heads
// that do something a reader can see (the word before, the word after, the [CLS] and [SEP] sinks,
// punctuation, the noun a pronoun stands for), each with the measure and its value over a
// committed sentence set and the average head's, as scripts/find-heads.mjs measured them with the
// engine; "Show me" selects the head. Hidden for a model without a guide.

import { el, fmt, setText } from "../dom.js";
import { assetUrl } from "../runtime.js";
import { siteModel } from "../models.js";

/**
 * One entry of a guide file (scripts/find-heads.mjs).
 * @typedef {{pattern: string, stack: import("../state.js").StackName, layer: number, head: number, value: number, average: number, sentences: number}} GuideEntry
 */

/** @type {Map<string, Promise<{patterns: GuideEntry[]} | null>>} */
const guides = new Map(); // guide path -> its contents (null when it cannot be read)

/** @satisfies {import("../session.js").PanelDef} */
export const headsGuidePanel = {
  name: "heads-guide",
  uses: ["lang", "stack", "layer", "head"],
  // `onShow`: after "Show me" selected a head (the lab scrolls its map into view)
  mount(container, session, opts = {}) {
    const t = session.t;
    const title = el(opts.heading || "h3", "sub");
    const lead = el("p", "hint");
    const list = el("ul", "guide-list", { "data-test": "heads-guide" });
    container.append(title, lead, list);
    container.hidden = true;
    /** @type {{patterns: GuideEntry[]} | null} */
    let guide = null;
    let shownFor = "";

    function draw() {
      container.hidden = !guide;
      if (!guide) return;
      setText(title, t("guide.title"));
      setText(lead, t("guide.lead"));
      const s = session.state;
      list.replaceChildren(
        ...guide.patterns.map((g) => {
          const vars = { layer: g.layer + 1, head: g.head + 1, value: fmt(g.value, 2), average: fmt(g.average, 2), n: g.sentences };
          const here = s.stack === g.stack && s.layer === g.layer && s.head === g.head;
          const button = el("button", "btn btn-small", { type: "button", "aria-pressed": String(here), "aria-label": t("guide.showLabel", { ...vars, what: t(`guide.${g.pattern}.name`) }) }, t("guide.show"));
          button.addEventListener("click", () => {
            session.select({ stack: g.stack, layer: g.layer, head: g.head, show: "weights" });
            opts.onShow?.();
          });
          const li = el("li", here ? "guide-item here" : "guide-item", { "data-pattern": g.pattern });
          li.append(el("strong", "", {}, `${t(`guide.${g.pattern}.name`)}: `), t(`guide.${g.pattern}`, vars), " ", button);
          return li;
        }),
      );
    }

    return {
      render() {
        const path = siteModel(session.modelName)?.heads ?? "";
        if (path !== shownFor) {
          shownFor = path;
          guide = null;
          if (path) {
            if (!guides.has(path)) {
              guides.set(
                path,
                fetch(assetUrl(path))
                  .then((r) => (r.ok ? r.json() : null))
                  .catch(() => null),
              );
            }
            guides.get(path).then((g) => {
              if (shownFor !== path) return; // another model came meanwhile
              guide = g;
              draw();
            });
          }
        }
        draw();
      },
    };
  },
};
