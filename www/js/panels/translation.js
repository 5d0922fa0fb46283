// What the model read and what it wrote: the source tokens (unknown ones marked, and what a
// too-long sentence lost), the Korean translation with each word copied through cross-attention
// marked and explained (a tooltip on hover and focus), and a line about the run.
//
// Options: `ids` (true on the lab's page: the elements get their fixed ids, #tokens,
// #translation, ...; `for` names the sentence box the output belongs to).

import { el, setLanguage } from "../dom.js";
import { copyTip } from "../decoding.js";

/** The copy records of a translation (steps that printed a source word for <unk>), in text order. */
export function copiesOf(tr) {
  return tr.steps.flatMap((s, step) => (s.copy ? [{ ...s.copy, step }] : [])).sort((a, b) => a.start - b.start);
}

/** @satisfies {import("../session.js").PanelDef} */
export const translationPanel = {
  name: "translation",
  uses: ["lang"],
  needs: ["translation"],
  mount(container, session, opts = {}) {
    const t = session.t;
    const id = (name) => (opts.ids ? { id: name } : {});
    const tokensTitle = el("h3", "sub");
    const tokens = el("p", "tokens", id("tokens"));
    const unknown = el("p", "notice warn", id("notice-unknown"));
    const trunc = el("p", "notice warn", id("notice-trunc"));
    const outTitle = el("h3", "sub");
    const wrap = el("div", "translation-wrap");
    const out = el("output", "translation", { ...id("translation"), ...(opts.for ? { for: opts.for } : {}) });
    const tip = el("div", "copy-tip", { role: "tooltip", ...id("copy-tip") });
    const descs = el("div", "", id("copy-descs"));
    const meta = el("p", "hint", id("translation-meta"));
    unknown.hidden = trunc.hidden = tip.hidden = descs.hidden = true;
    wrap.append(out, tip);
    container.append(tokensTitle, tokens, unknown, trunc, outTitle, wrap, descs, meta);

    const showTip = (span) => {
      tip.textContent = span.dataset.tip;
      tip.hidden = false;
      const left = Math.max(0, Math.min(span.offsetLeft, wrap.clientWidth - tip.offsetWidth));
      tip.style.left = `${left}px`;
      tip.style.top = `${span.offsetTop + span.offsetHeight + 4}px`;
    };
    const hideTip = () => {
      tip.hidden = true;
    };
    const copiedOf = (e) => e.target.closest?.(".copied");
    out.addEventListener("mouseover", (e) => copiedOf(e) && showTip(copiedOf(e)));
    out.addEventListener("mouseout", (e) => copiedOf(e) && out.getRootNode().activeElement !== copiedOf(e) && hideTip());
    out.addEventListener("focusin", (e) => copiedOf(e) && showTip(copiedOf(e)));
    out.addEventListener("focusout", hideTip);
    container.addEventListener("keydown", (e) => e.key === "Escape" && hideTip());

    // the translation, each copied word a focusable span described by "copied from 'sofa' by
    // cross-attention, weight 0.83"
    function renderTranslation(tr) {
      hideTip();
      const text = tr.text;
      if (!text) {
        out.textContent = t("translation.nothing");
        descs.replaceChildren();
        return;
      }
      const parts = [];
      const notes = [];
      let at = 0;
      for (const c of copiesOf(tr)) {
        if (c.start < at || c.end > text.length) continue;
        const descId = `${opts.ids ? "" : `${session.uid}-`}copy-desc-${c.step}`;
        notes.push(el("span", "", { id: descId }, copyTip(c, t)));
        const copied = el("span", "copied", { tabindex: 0, "aria-describedby": descId, "data-tip": copyTip(c, t) }, text.slice(c.start, c.end));
        setLanguage(copied, session.engine.languages.source);
        parts.push(text.slice(at, c.start), copied);
        at = c.end;
      }
      parts.push(text.slice(at));
      out.replaceChildren(...parts);
      descs.replaceChildren(...notes);
    }

    return {
      render() {
        const { cur, engine, info } = session;
        const { src, tr } = cur;
        setLanguage(out, engine.languages.target);
        setLanguage(tokens, engine.languages.source);
        tokensTitle.textContent = t("sentence.tokens");
        outTitle.textContent = t("sentence.output");
        const unk = new Set(src.unknown);
        const chips = src.tokens.map((tok, i) => {
          const c = el("span", unk.has(i) ? "chip chip-unknown" : "chip", {}, tok);
          if (unk.has(i)) c.title = t("notice.unknownChip");
          return c;
        });
        if (src.dropped > 0) chips.push(el("span", "chip chip-dropped", {}, t("notice.droppedChip", { n: src.dropped })));
        tokens.replaceChildren(...chips);
        unknown.hidden = !src.unknown.length;
        if (src.unknown.length) {
          const words = [...new Set(src.unknown.map((i) => src.tokens[i]))].map((w) => `“${w}”`).join(", ");
          unknown.textContent = t("notice.unknown", { words, n: src.unknown.length });
        }
        trunc.hidden = !(src.dropped > 0);
        if (src.dropped > 0) trunc.textContent = t("notice.trunc", { max: info.maxLen, n: src.dropped });
        renderTranslation(tr);
        const lines = [t("translation.meta", { n: tr.tokens.length })];
        const copied = copiesOf(tr);
        if (copied.length) lines.push(t("translation.copied", { n: copied.length, words: copied.map((c) => `“${c.word}”`).join(", ") }));
        if (!tr.finished) lines.push(t("translation.unfinished"));
        if (engine.edits.size > 0) lines.push(t("translation.edited"));
        meta.textContent = lines.join(" ");
      },
    };
  },
};
