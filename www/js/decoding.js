// Decoding step by step: at each greedy step, the prefix the decoder saw, the five most
// probable next tokens as bars, the token chosen, and the cross-attention row over the source
// tokens (every head of one decoder layer) that was computed while choosing it. A step that
// wrote <unk> and copied a source word through cross-attention (the engine's `copy` record) is
// marked like the copied word in the translation. A glue token ("+ㅆ", the model's glue marker
// first) gets a line on what the marker means.

import { el, fmt, setLanguage } from "./dom.js";
import { Heatmap } from "./heatmap.js";
import { t as defaultT } from "./i18n.js";

/** What a copied word says on hover and focus: "copied from 'sofa' by cross-attention, weight 0.83". */
export function copyTip(copy, t) {
  return t("copy.tip", { word: copy.word, w: fmt(copy.weight, 2) });
}

export class Decoding {
  /** `heading`: the element of its three sub-titles (one level below the section it sits in). */
  constructor(container, { onStep, t, heading = "h3" }) {
    this.onStep = onStep;
    this.t = t || defaultT;
    this.root = el("div", "decoding");
    const uid = Math.random().toString(36).slice(2, 8);

    const nav = el("div", "dec-nav");
    this.prev = el("button", "btn", { type: "button" });
    this.next = el("button", "btn", { type: "button" });
    this.sliderLabel = el("label", "dec-slider-label", { for: `dec-step-${uid}` });
    this.slider = el("input", "dec-slider", { type: "range", id: `dec-step-${uid}`, min: 1, max: 1, step: 1, value: 1 });
    this.position = el("span", "dec-position", { "aria-hidden": "true" });
    this.prev.addEventListener("click", () => this.go(this.step - 1));
    this.next.addEventListener("click", () => this.go(this.step + 1));
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value) - 1));
    nav.append(this.sliderLabel, this.prev, this.slider, this.next, this.position);

    this.prefixTitle = el(heading, "dec-sub");
    this.prefix = el("p", "dec-prefix");
    this.barsTitle = el(heading, "dec-sub");
    this.bars = el("ol", "dec-bars");
    this.chosen = el("p", "dec-chosen", { role: "status" });
    this.copy = el("p", "dec-copy", { hidden: true });
    this.glue = el("p", "hint dec-glue", { hidden: true });
    this.crossTitle = el(heading, "dec-sub");
    const crossBox = el("div", "dec-cross");
    this.cross = new Heatmap(crossBox, { rowRole: null, colRole: "key", maxCell: 30, minCell: 12, t: this.t });

    const cols = el("div", "dec-cols");
    const left = el("div", "dec-col");
    left.append(this.prefixTitle, this.prefix, this.barsTitle, this.bars, this.chosen, this.glue, this.copy);
    const right = el("div", "dec-col");
    right.append(this.crossTitle, crossBox);
    cols.append(left, right);
    this.root.append(nav, cols);
    container.append(this.root);
    this.step = 0;
    this.data = null;
    /** @type {{source: string, target: string}} */
    this.languages = { source: "", target: "" };
  }

  copyText(c) {
    return copyTip(c, this.t);
  }

  /** A token chip; a copied <unk> shows the source word it copies, marked as copied. */
  chip(step, cls) {
    if (!step.copy) return el("span", cls, {}, step.token);
    const tip = this.copyText(step.copy);
    const c = el("span", `${cls} copied`, { title: tip }, step.copy.word);
    setLanguage(c, this.languages.source);
    c.append(el("span", "sr-only", {}, ` (${step.token}: ${tip})`));
    return c;
  }

  showTable(visible) {
    this.cross.showTable(visible);
  }

  go(k) {
    if (!this.data) return;
    const n = this.data.steps.length;
    const s = Math.max(0, Math.min(n - 1, k));
    if (s !== this.step) this.onStep(s);
  }

  /**
   * The note on a glue token: what its marker means, and the token it is written onto (the
   * previous step's, as the prefix shows it). `glue`: {marker, composeJamo} (core.decodingData).
   */
  glueText(steps, k, glue) {
    const token = steps[k].token;
    if (!glue?.marker || token.length <= glue.marker.length || !token.startsWith(glue.marker)) return null;
    const body = token.slice(glue.marker.length);
    const before = steps[k - 1];
    if (!before) return this.t("dec.glueFirst", { token });
    // a consonant that can be a final one (all of U+3131..U+314E but ㄸ ㅃ ㅉ: src/tokenizer.rs)
    const jamo = glue.composeJamo && /^[\u3131-\u314e]/u.test(body) && !"ㄸㅃㅉ".includes(body[0]);
    const vars = { token, marker: glue.marker, prev: before.copy ? before.copy.word : before.token, jamo: body[0] };
    return this.t(jamo ? "dec.glueJamo" : "dec.glue", vars);
  }

  /** d = {steps, srcTokens, step, layer, head, glue, languages: {source, target} (engine.languages)} */
  setData(d) {
    this.data = d;
    this.languages = d.languages;
    setLanguage(this.prefix, d.languages.target);
    setLanguage(this.bars, d.languages.target);
    const n = d.steps.length;
    this.step = Math.max(0, Math.min(n - 1, d.step));
    const st = d.steps[this.step];

    this.prev.textContent = this.t("dec.prev");
    this.next.textContent = this.t("dec.next");
    this.sliderLabel.textContent = this.t("dec.slider");
    this.slider.max = String(n);
    this.slider.value = String(this.step + 1);
    const shown = st.copy ? `${st.token} → ${st.copy.word}` : st.token; // a copy step says what it printed
    this.slider.setAttribute("aria-valuetext", this.t("dec.position", { k: this.step + 1, n, token: shown }));
    this.position.textContent = this.t("dec.position", { k: this.step + 1, n, token: shown });
    this.prev.disabled = this.step === 0;
    this.next.disabled = this.step >= n - 1;

    this.prefixTitle.textContent = this.t("dec.prefix");
    const chips = [el("span", "chip chip-special", {}, "<bos>")];
    for (let k = 0; k < this.step; k++) chips.push(this.chip(d.steps[k], "chip"));
    chips.push(el("span", "chip-arrow", { "aria-hidden": "true" }, "→"));
    chips.push(this.chip(st, "chip chip-chosen"));
    this.prefix.replaceChildren(...chips);

    this.barsTitle.textContent = this.t("dec.top");
    this.bars.replaceChildren(...probBars(st.top, st.token));
    this.chosen.textContent = this.t("dec.chosen", { token: st.token, p: fmt(st.prob * 100, 1) });
    if (st.blocked) {
      const why = st.blockedWhy === "copied" ? "dec.blockedCopied" : "dec.blocked";
      this.chosen.textContent += ` ${this.t(why, { token: st.blocked })}`;
    }
    const glue = this.glueText(d.steps, this.step, d.glue);
    this.glue.hidden = !glue;
    this.glue.textContent = glue ?? "";
    this.copy.hidden = !st.copy;
    if (st.copy) {
      const tip = this.copyText(st.copy);
      const where = this.t("dec.copyLayer", { layer: st.cross.length });
      const word = el("span", "copied", { title: tip }, st.copy.word);
      setLanguage(word, d.languages.source);
      this.copy.replaceChildren(`${this.t("dec.copy")} `, word, ` (${tip}; ${where})`);
    } else {
      this.copy.replaceChildren();
    }

    const layer = Math.min(d.layer, st.cross.length - 1);
    this.crossTitle.textContent = this.t("dec.cross", { layer: layer + 1 });
    const mat = st.cross[layer];
    const heads = Array.from({ length: mat.rows }, (_, h) => this.t("grid.head", { n: h + 1 }));
    this.cross.setData({
      weights: mat,
      rows: heads,
      cols: d.srcTokens,
      selectedRow: Math.min(d.head, mat.rows - 1),
      label: this.t("dec.crossLabel", { layer: layer + 1, k: this.step + 1, token: st.token }),
      rowHeader: this.t("table.headKey"),
    });
  }
}

/**
 * Probability bars, one list item per candidate (a token and its probability), the `chosen`
 * token's in bold: the decoding steps' and the predictions' (panels/prediction.js).
 * @param {{token: string, prob: number}[]} candidates @param {string | null} chosen
 */
export function probBars(candidates, chosen) {
  return candidates.map((c) => {
    const li = el("li", c.token === chosen ? "bar-row chosen" : "bar-row");
    const name = el("span", "bar-token", {}, c.token);
    const track = el("span", "bar-track", { "aria-hidden": "true" });
    const fill = el("span", "bar-fill");
    fill.style.width = `${Math.max(0.5, c.prob * 100).toFixed(2)}%`;
    track.append(fill);
    const pct = el("span", "bar-prob", {}, `${fmt(c.prob * 100, 1)}%`);
    li.append(name, track, pct);
    return li;
  });
}
