// What a model that does not translate gives: a decoder-only (GPT-style) model's next token, a
// masked-LM (BERT-style) model's guesses for each mask token. The decoding panel's counterpart
// for those families (the lab mounts both; the session shows the one the model has).
//
// Next token: the last position's logits z (the trace's `decoder.logits`, from the engine) turned
// into probabilities p_i = exp(z_i / T) / sum_j exp(z_j / T), then kept to the k most probable and
// renormalised (top-k sampling). With T = 1 and every token kept these are the engine's own
// `decoder.probs`. "Sample" draws one token from that distribution and appends it to the text.
// Masked token: Lab.fill's candidates for each mask token of the text (engine probabilities).
//
// Options: `onText(text)`, how the page puts the appended text in (the lab: its sentence box).

import { el, fmt, setLanguage, setText } from "../dom.js";
import { probBars } from "../decoding.js";

/**
 * The next-token distribution of the last position: temperature `T`, the `k` most probable kept.
 * @param {import("../core.js").Matrix} logits  `(T, V)` @param {string[]} vocab @param {number} T @param {number} k
 * @returns {{token: string, id: number, prob: number}[]}  most probable first
 */
export function nextTokens(logits, vocab, T, k) {
  const V = logits.cols;
  const z = logits.data.subarray((logits.rows - 1) * V, logits.rows * V);
  let max = -Infinity;
  for (const v of z) if (v > max) max = v;
  const p = new Float64Array(V);
  let sum = 0;
  for (let i = 0; i < V; i++) sum += p[i] = Math.exp((z[i] - max) / T);
  const order = Array.from({ length: V }, (_, i) => i).sort((a, b) => p[b] - p[a]);
  const kept = order.slice(0, Math.max(1, Math.min(k, V)));
  const keptSum = kept.reduce((s, i) => s + p[i], 0) || sum;
  return kept.map((i) => ({ token: vocab[i] ?? `#${i}`, id: i, prob: p[i] / keptSum }));
}

/**
 * The text a token adds when appended: byte-level BPE's Ġ and SentencePiece's ▁ are a space,
 * WordPiece's ## joins the word before, a word-level token is a new word.
 * @param {string} token
 */
export function tokenText(token) {
  if (token.startsWith("##")) return token.slice(2);
  if (/^[Ġ▁]/u.test(token)) return ` ${token.slice(1)}`;
  if (/^[\p{L}\p{N}<]/u.test(token)) return ` ${token}`;
  return token;
}

const TEMPERATURES = [0.2, 0.5, 0.8, 1, 1.5, 2];
const TOP_K = [1, 3, 5, 10];

/** @satisfies {import("../session.js").PanelDef} */
export const predictionPanel = {
  name: "prediction",
  uses: ["lang"],
  needs: ["next_token|masked_token"],
  mount(container, session, opts = {}) {
    const t = session.t;
    const uid = session.uid;
    const title = el(opts.heading || "h3", "sub");
    const lead = el("p", "hint");
    const knobs = el("div", "selectors pred-knobs");
    const tLabel = el("label", "", { for: `${uid}-pred-t` });
    const tSel = el("select", "", { id: `${uid}-pred-t` });
    const kLabel = el("label", "", { for: `${uid}-pred-k` });
    const kSel = el("select", "", { id: `${uid}-pred-k` });
    for (const v of TEMPERATURES) tSel.append(el("option", "", { value: v }, String(v)));
    for (const v of TOP_K) kSel.append(el("option", "", { value: v }, String(v)));
    tSel.value = "1";
    kSel.value = "10";
    const sample = el("button", "btn btn-small", { type: "button" });
    const best = el("button", "btn btn-small", { type: "button" });
    const tWrap = el("div", "sel");
    tWrap.append(tLabel, tSel);
    const kWrap = el("div", "sel");
    kWrap.append(kLabel, kSel);
    knobs.append(tWrap, kWrap, best, sample);
    const formula = el("p", "formula");
    const lists = el("div", "pred-lists", { "data-test": "prediction" });
    const note = el("p", "hint", { role: "status" });
    container.append(title, lead, knobs, formula, lists, note);

    /** @type {{token: string, id: number, prob: number}[]} */
    let shown = [];
    // `onText`: the page's own way to put a new text in (the lab's sentence box); else the session's
    const putText = opts.onText || ((text) => session.setSentence(text));
    const append = (token) => putText(session.state.sentence.replace(/\s+$/u, "") + tokenText(token));
    tSel.addEventListener("change", () => view.render());
    kSel.addEventListener("change", () => view.render());
    best.addEventListener("click", () => shown.length && append(shown[0].token));
    sample.addEventListener("click", () => {
      let r = Math.random();
      const pick = shown.find((c) => (r -= c.prob) <= 0) ?? shown[shown.length - 1];
      if (pick) append(pick.token);
    });

    function renderNext() {
      const { cur, info } = session;
      const T = Number(tSel.value);
      const k = Number(kSel.value);
      setText(title, t("pred.next.title"));
      setText(lead, t("pred.next.lead"));
      setText(tLabel, t("pred.temperature"));
      setText(kLabel, t("pred.topk"));
      setText(best, t("pred.best"));
      setText(sample, t("pred.sample"));
      setText(formula, t("pred.formula", { T: fmt(T, 1), k }));
      const logits = cur.trace.decoder?.logits;
      if (!logits || !logits.rows) {
        shown = [];
        lists.replaceChildren();
        return;
      }
      shown = nextTokens(logits, info.srcVocab, T, k);
      const after = cur.decoderTokens[cur.decoderTokens.length - 1] ?? "";
      const ol = el("ol", "dec-bars", { "aria-label": t("pred.next.list", { token: after }) });
      ol.append(...probBars(shown, shown[0]?.token ?? null));
      lists.replaceChildren(el("p", "dec-sub", {}, t("pred.next.after", { token: after })), ol);
      setText(note, "");
    }

    function renderMasked() {
      const { cur, engine } = session;
      knobs.hidden = formula.hidden = true;
      const mask = engine.file?.config.specials?.mask ?? "[MASK]";
      setText(title, t("pred.mask.title"));
      setText(lead, t("pred.mask.lead", { mask }));
      const fill = cur.fill ?? [];
      const rows = fill.map((m) => {
        const box = el("div", "pred-mask");
        const ol = el("ol", "dec-bars", { "aria-label": t("pred.mask.list", { n: m.position + 1 }) });
        ol.append(...probBars(m.candidates, m.candidates[0]?.token ?? null));
        box.append(el("p", "dec-sub", {}, t("pred.mask.at", { n: m.position + 1, mask })), ol);
        return box;
      });
      lists.replaceChildren(...rows);
      setText(note, fill.length ? "" : t("pred.mask.none", { mask }));
    }

    const view = {
      render() {
        if (!session.cur || !session.info) return;
        const next = session.info.output === "next_token";
        knobs.hidden = formula.hidden = !next;
        // the tokens are in the language the model writes (a GPT's is its text's)
        const { source, target } = session.engine.languages;
        setLanguage(lists, next ? target || source : source);
        if (next) renderNext();
        else renderMasked();
      },
    };
    return view;
  },
};
