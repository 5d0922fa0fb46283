// What the model read and what it wrote: the source tokens (unknown ones marked, and what a
// too-long sentence lost), the Korean translation with each word copied through cross-attention
// and each token the model was unsure of (its step probability below the model file's
// `unsure_below`) marked and explained (a tooltip on hover and focus), and a line about the run.
//
// Options: `ids` (true on the lab's page: the elements get their fixed ids, #tokens,
// #translation, ...; `for` names the sentence box the output belongs to).

import { el, fmt, setLanguage } from "../dom.js";
import { copyTip } from "../decoding.js";

/** The copy records of a translation (steps that printed a source word for <unk>), in text order. */
export function copiesOf(tr) {
  return tr.steps.flatMap((s, step) => (s.copy ? [{ ...s.copy, step }] : [])).sort((a, b) => a.start - b.start);
}

/**
 * The probability below which a generated token is marked as unsure: the model file's
 * description field `unsure_below` (for the demo model, measured on the everyday reference set
 * by `attnscope confidence`), or null when the file has none (no marks).
 * @param {{file?: {about?: Record<string, string>} | null}} engine @returns {number | null}
 */
export function unsureBelow(engine) {
  const v = engine.file?.about?.unsure_below;
  const x = typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(x) && x > 0 && x <= 1 ? x : null;
}

/** `p` with two decimals, or more where two would round it up to the threshold (0.835 < 0.84). */
export function fmtUnsure(p, below) {
  let d = 2;
  while (d < 4 && Number(p.toFixed(d)) >= below) d += 1;
  return fmt(p, d);
}

/**
 * The marked stretches of a translation's text, in text order: each step that copied a source
 * word, and each step whose token's probability is below `below` (none when null), by the
 * text range its token prints (`step.start`..`step.end`); ranges that overlap (a jamo ending
 * composed into the syllable before it) are one stretch.
 * @param {import("../engine.js").Translation} tr @param {number | null} below
 * @returns {{start: number, end: number, items: {step: number, copy: any, prob: number | null}[]}[]}
 */
export function marksOf(tr, below) {
  const items = [];
  tr.steps.forEach((s, step) => {
    const unsure = below !== null && s.start != null && s.end != null && s.end > s.start && s.prob < below;
    if (!s.copy && !unsure) return;
    const start = s.copy ? s.copy.start : s.start;
    const end = s.copy ? s.copy.end : s.end;
    items.push({ start, end, step, copy: s.copy ? { ...s.copy, step } : null, prob: unsure ? s.prob : null });
  });
  items.sort((a, b) => a.start - b.start || a.step - b.step);
  const marks = [];
  for (const { start, end, ...item } of items) {
    const last = marks[marks.length - 1];
    if (last && start < last.end) {
      last.end = Math.max(last.end, end);
      last.items.push(item);
    } else marks.push({ start, end, items: [item] });
  }
  return marks;
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
    // what the dotted underline means, with the model file's threshold
    const unsureHint = el("p", "hint", id("translation-unsure"));
    unknown.hidden = trunc.hidden = tip.hidden = descs.hidden = unsureHint.hidden = true;
    wrap.append(out, tip);
    container.append(tokensTitle, tokens, unknown, trunc, outTitle, wrap, descs, unsureHint, meta);

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
    const copiedOf = (e) => e.target.closest?.(".copied, .unsure");
    out.addEventListener("mouseover", (e) => copiedOf(e) && showTip(copiedOf(e)));
    out.addEventListener("mouseout", (e) => copiedOf(e) && out.getRootNode().activeElement !== copiedOf(e) && hideTip());
    out.addEventListener("focusin", (e) => copiedOf(e) && showTip(copiedOf(e)));
    out.addEventListener("focusout", hideTip);
    container.addEventListener("keydown", (e) => e.key === "Escape" && hideTip());

    // the translation, each copied word a focusable span described by "copied from 'sofa' by
    // cross-attention, weight 0.83", each unsure token one described by "The model was unsure
    // here: p = 0.31"
    function renderTranslation(tr, below) {
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
      for (const m of marksOf(tr, below)) {
        if (m.start < at || m.end > text.length) continue;
        const ids = [];
        const tips = [];
        for (const item of m.items) {
          const kind = item.copy ? "copy" : "unsure";
          const descId = `${opts.ids ? "" : `${session.uid}-`}${kind}-desc-${item.step}`;
          const tipText = item.copy ? copyTip(item.copy, t) : t("translation.unsureTip", { p: fmtUnsure(item.prob ?? 0, below ?? 1) });
          notes.push(el("span", "", { id: descId }, tipText));
          ids.push(descId);
          tips.push(tipText);
          // a copied word that the model was also unsure of says both
          if (item.copy && item.prob !== null) {
            const unsureId = `${opts.ids ? "" : `${session.uid}-`}unsure-desc-${item.step}`;
            const unsureText = t("translation.unsureTip", { p: fmtUnsure(item.prob, below ?? 1) });
            notes.push(el("span", "", { id: unsureId }, unsureText));
            ids.push(unsureId);
            tips.push(unsureText);
          }
        }
        const copied = m.items.some((i) => i.copy);
        const unsure = m.items.some((i) => i.prob !== null);
        const cls = [copied && "copied", unsure && "unsure"].filter(Boolean).join(" ");
        const span = el("span", cls, { tabindex: 0, "aria-describedby": ids.join(" "), "data-tip": tips.join("\n") }, text.slice(m.start, m.end));
        if (copied) setLanguage(span, session.engine.languages.source);
        if (unsure) span.dataset.prob = m.items.filter((i) => i.prob !== null).map((i) => String(i.prob)).join(" ");
        parts.push(text.slice(at, m.start), span);
        at = m.end;
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
        const below = unsureBelow(engine);
        renderTranslation(tr, below);
        unsureHint.hidden = below === null || !tr.text;
        if (below !== null) unsureHint.textContent = t("translation.unsureHint", { p: fmt(below, 2) });
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
