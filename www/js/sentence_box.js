// The lab's sentence box marks the words the model does not know while the reader types.
//
// - Inline: a mirror of the text sits under the (transparent) textarea, with the same font,
//   padding and wrapping; each unknown word is a <mark> there, so it shows a wavy underline
//   exactly under the word typed. The mirror is decoration only (aria-hidden).
// - For everyone, screen readers included: a list right under the box, one entry per unknown
//   word ("unknown word: sofa"), with in-vocabulary neighbours as buttons ("Replace 'sofa'
//   with 'couch'"); the textarea is aria-invalid and described by a summary of the words.
//
// Which tokens are unknown comes from the engine's tokenizer (`Lab.tokenize`, which does not
// touch the lab's sentence); the neighbours from suggest.js (loaded on the first unknown word).
// Updates run at most once per animation frame.

import { el } from "./dom.js";

/**
 * Where each token is in `text`: `[start, end]` string indices, or null when it cannot be
 * found (the tokenizer lowercases, reads ’ as ' and may split a word in two: "she's" -> "she"
 * "'s"; tokens are searched in order, each after the previous one).
 */
export function tokenSpans(text, tokens) {
  const plain = text.replace(/\u2019/g, "'");
  const lower = plain.toLowerCase();
  const sameLength = lower.length === plain.length; // else lowercase indices would drift
  let at = 0;
  return tokens.map((tok) => {
    let i = plain.indexOf(tok, at);
    const j = sameLength ? lower.indexOf(tok, at) : -1;
    if (i < 0 || (j >= 0 && j < i)) i = j;
    if (i < 0) return null;
    at = i + tok.length;
    return [i, i + tok.length];
  });
}

/** `word` written like `original`: "Couch" for a capitalised "Sofa", else as is. */
function matchCase(word, original) {
  const first = original.charAt(0);
  return first !== first.toLowerCase() && first === first.toUpperCase() ? word.charAt(0).toUpperCase() + word.slice(1) : word;
}

export class SentenceBox {
  /**
   * `textarea`; `marks`: the mirror element under it; `list`: the element for the unknown words
   * and suggestions; `summary`: the element describing the textarea (its id is in the textarea's
   * aria-describedby). `tokenize(text)` -> {tokens, unknown} or null (no model yet);
   * `suggestions()` -> a suggest.js Suggestions or null; `onReplace(text)` after a replacement.
   * @param {object} o
   * @param {HTMLTextAreaElement} o.textarea
   * @param {HTMLElement} o.marks
   * @param {HTMLElement} o.list
   * @param {HTMLElement} o.summary
   * @param {(text: string) => import("./engine.js").Source | null} o.tokenize
   * @param {() => import("./suggest.js").Suggestions | null} o.suggestions
   * @param {(text: string) => void} o.onReplace
   * @param {import("./core.js").Translate} o.t
   */
  constructor({ textarea, marks, list, summary, tokenize, suggestions, onReplace, t }) {
    // one assignment each (not Object.assign) so that the type checker knows the fields
    this.textarea = textarea;
    this.marks = marks;
    this.list = list;
    this.summary = summary;
    this.tokenize = tokenize;
    this.suggestions = suggestions;
    this.onReplace = onReplace;
    this.t = t;
    this.raf = 0;
    this.shown = null; // {text, tokens, unknown, spans} of the last render
    textarea.addEventListener("scroll", () => this.syncScroll());
    new ResizeObserver(() => this.syncBox()).observe(textarea);
  }

  /** Re-mark on the next animation frame (call on every input). */
  update() {
    if (!this.raf) this.raf = requestAnimationFrame(() => this.render());
  }

  /** Re-mark now (after a language switch, a new model, a translation). */
  render() {
    if (this.raf) cancelAnimationFrame(this.raf);
    this.raf = 0;
    const text = this.textarea.value;
    const tok = (text.trim() && this.tokenize(text)) || { tokens: [], unknown: [] };
    const spans = tokenSpans(text, tok.tokens);
    this.shown = { text, tokens: tok.tokens, unknown: tok.unknown, spans };
    this.renderMarks();
    this.renderList();
  }

  /** The unknown words once each, in order of appearance: [{word, spans: [[s, e], ...]}]. */
  unknownWords() {
    const byWord = new Map();
    if (!this.shown) return [];
    for (const i of this.shown.unknown) {
      const word = this.shown.tokens[i];
      if (!byWord.has(word)) byWord.set(word, { word, spans: [] });
      if (this.shown.spans[i]) byWord.get(word).spans.push(this.shown.spans[i]);
    }
    return [...byWord.values()];
  }

  renderMarks() {
    const { text, unknown, spans } = this.shown;
    const parts = [];
    let at = 0;
    for (const i of unknown) {
      const span = spans[i];
      if (!span || span[0] < at) continue;
      parts.push(text.slice(at, span[0]), el("mark", "unknown-mark", {}, text.slice(span[0], span[1])));
      at = span[1];
    }
    // a final newline needs a character after it to take up its line, as in the textarea
    parts.push(`${text.slice(at)}\u200b`);
    this.marks.replaceChildren(...parts);
    this.syncBox();
  }

  renderList() {
    const t = this.t;
    const words = this.unknownWords();
    const ta = this.textarea;
    if (!words.length) {
      this.list.hidden = true;
      this.list.replaceChildren();
      this.summary.textContent = "";
      ta.removeAttribute("aria-invalid");
      return;
    }
    ta.setAttribute("aria-invalid", "true");
    this.summary.textContent = t(words.length === 1 ? "unknown.summary" : "unknown.summaryMany", { words: words.map((w) => w.word).join(", ") });
    const sugg = this.suggestions();
    if (sugg && !sugg.ready && !sugg.error) {
      sugg.load().then(
        () => this.renderList(),
        () => this.renderList(),
      );
    }
    const items = words.map(({ word, spans }) => {
      const li = el("li", "unknown-item");
      const label = el("span", "unknown-label");
      label.append(`${t("unknown.word")} `, el("span", "unknown-token", { lang: "en" }, word));
      li.append(label);
      const original = spans.length ? this.shown.text.slice(spans[0][0], spans[0][1]) : word;
      if (!sugg || (!sugg.ready && !sugg.error)) {
        li.append(el("span", "unknown-none", {}, t("unknown.loading")));
        return li;
      }
      const near = spans.length ? sugg.nearest(word) : [];
      if (!near.length) {
        li.append(el("span", "unknown-none", {}, t("unknown.none")));
        return li;
      }
      const group = el("span", "unknown-suggestions", { role: "group", "aria-label": t("unknown.group", { word }) });
      group.append(el("span", "unknown-try", { "aria-hidden": "true" }, t("unknown.try")));
      for (const n of near) {
        const replacement = matchCase(n.word, original);
        const b = el("button", "btn btn-small suggestion", { type: "button", lang: "en", "aria-label": t("unknown.replace", { word, with: n.word }) }, replacement);
        b.title = t("unknown.cosine", { c: n.cosine.toFixed(2) });
        b.addEventListener("click", () => this.replace(word, n.word));
        group.append(b);
      }
      li.append(group);
      return li;
    });
    this.list.replaceChildren(el("ul", "unknown-list", {}, undefined));
    /** @type {HTMLElement} */ (this.list.firstChild).append(...items);
    this.list.hidden = false;
  }

  /**
   * Replace every occurrence of the unknown token `word` by `replacement` (capitalised like the
   * original), keep the caret where it was relative to the text around it, and hand the new
   * text to `onReplace`. Focus returns to the box (the suggestion buttons go away).
   */
  replace(word, replacement) {
    const ta = this.textarea;
    const { text } = this.shown;
    if (ta.value !== text) this.render(); // typed since the last frame: use the current text
    const spans = this.unknownWords().find((w) => w.word === word)?.spans || [];
    if (!spans.length) return;
    let caret = ta.selectionStart ?? text.length;
    let out = this.shown.text;
    let newCaret = caret;
    for (const [s, e] of [...spans].reverse()) {
      const put = matchCase(replacement, out.slice(s, e));
      out = out.slice(0, s) + put + out.slice(e);
      if (caret >= e) newCaret += put.length - (e - s);
      else if (caret > s) newCaret = s + put.length;
    }
    caret = Math.max(0, Math.min(out.length, newCaret));
    ta.value = out;
    ta.focus();
    ta.setSelectionRange(caret, caret);
    this.render();
    this.onReplace(out);
  }

  /** The mirror follows the textarea's size, scrollbar and scroll position. */
  syncBox() {
    const ta = this.textarea;
    const cs = getComputedStyle(ta);
    const border = parseFloat(cs.borderLeftWidth) + parseFloat(cs.borderRightWidth);
    const scrollbar = Math.max(0, ta.offsetWidth - ta.clientWidth - border);
    this.marks.style.paddingRight = `calc(${cs.paddingRight} + ${scrollbar}px)`;
    this.marks.style.height = `${ta.offsetHeight}px`;
    this.syncScroll();
  }

  syncScroll() {
    this.marks.scrollTop = this.textarea.scrollTop;
    this.marks.scrollLeft = this.textarea.scrollLeft;
  }
}
