// "Translation now": the current translation in one line, where the switches are (the lab's
// controls card, kept in view while they scroll), and whether the reader's last change changed
// it ("Changed by what you just did. Before: …", "Not changed by what you just did."). On a
// laptop the translation itself is out of view while the switches are used; this line is not.
//
//   session.mount(nowPanel, container)
//
// A run of the same sentence on the same model is a change the reader made (a switch, a head
// switched off, a W_Q/W_K edit, the head count); a new sentence or model starts afresh. The flag
// is a polite live region (the translation's own <output> already announces the new text).

import { el, setText, setLanguage } from "../dom.js";

/** @satisfies {import("../session.js").PanelDef} */
export const nowPanel = {
  name: "now",
  uses: ["lang"],
  needs: ["translation"],
  mount(container, session) {
    const t = session.t;
    const line = el("p", "now-line");
    const label = el("span", "now-label");
    const text = el("span", "now-text", { "data-test": "now-text" });
    line.append(label, " ", text);
    const flag = el("p", "now-flag", { "aria-live": "polite", "data-test": "now-flag" });
    const box = el("div", "now");
    box.append(line, flag);
    container.append(box);
    box.hidden = true;

    /** The run last shown, its sentence (on its model) and its translation. */
    let run = null;
    let source = "";
    let shown = "";
    /** What the last run did to the translation: null (a new sentence), or its text before. */
    let change = /** @type {{before: string, same: boolean} | null} */ (null);

    return {
      render() {
        const { cur, engine } = session;
        const now = cur.tr?.text ?? "";
        const fresh = cur !== run;
        if (fresh) {
          const key = `${session.modelName}\u0001${session.lastGood ?? ""}`;
          change = run && key === source ? { before: shown, same: now === shown } : null;
          run = cur;
          source = key;
          shown = now;
        }
        box.hidden = false;
        setText(label, t("now.label"));
        setText(text, now || t("translation.nothing"));
        setLanguage(text, engine.languages.target);
        box.classList.toggle("now-changed", !!change && !change.same);
        if (!change) flag.replaceChildren();
        else if (change.same) setText(flag, t("now.same"));
        else {
          const before = el("span", "now-before", {}, change.before || t("translation.nothing"));
          setLanguage(before, engine.languages.target);
          flag.replaceChildren(`${t("now.changed")} “`, before, "”");
        }
        flag.hidden = !change;
        // every change the reader makes flashes the line, whatever it did to the translation
        if (fresh && change) {
          box.classList.remove("now-flash");
          void box.offsetWidth; // restarts the animation
          box.classList.add("now-flash");
        }
      },
    };
  },
};
