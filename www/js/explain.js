// Sentences that explain what is on screen, and that must stay true on any sentence a reader
// types. Pure functions of a run and the state: no DOM, no engine.
//
// The pronoun hint. A pronoun that attends to the word it stands for is the lecture's point,
// and the trained model has heads that do it; but a head may equally put its weight on a verb.
// So the hint claims "a word it could refer to" only for a word that agrees with the pronoun
// (referents.js, generated from the lexicon: she -> a woman's name or a person noun that can be
// female; it -> a thing, animal or place; they -> a plural noun or a person). Otherwise it says
// only what it sees, and only for the head on screen.

import { REFERENTS } from "./referents.js";

const GROUP = Object.fromEntries(Object.entries(REFERENTS).map(([k, v]) => [k, new Set(v.split(" "))]));

/** Which words each pronoun can stand for (unions of the groups above). */
const AGREES = {
  she: ["female"],
  her: ["female"],
  hers: ["female"],
  herself: ["female"],
  he: ["male"],
  him: ["male"],
  his: ["male"],
  himself: ["male"],
  it: ["thing"],
  its: ["thing"],
  itself: ["thing"],
  they: ["plural", "person"],
  them: ["plural", "person"],
  their: ["plural", "person"],
  themselves: ["plural", "person"],
};

/** Whether `word` (a lowercase token) could be what `pronoun` refers to. */
export function couldReferTo(pronoun, word) {
  const groups = AGREES[pronoun];
  return !!groups && groups.some((g) => GROUP[g].has(word));
}

export function isPronoun(token) {
  return token in AGREES;
}

const SEEN_FROM = 0.2; // a referent named must take at least this share of the pronoun's row
const STRONG = 0.5; // a word that is no referent is named only when it takes at least this

/** The word a row looks at most, other than the query itself: {j, v}. */
function topOf(h, i, n) {
  let top = { j: -1, v: -1 };
  for (let j = 0; j < n; j++) {
    const v = h.weights.data[i * h.weights.cols + j];
    if (j !== i && v > top.v) top = { j, v };
  }
  return top;
}

/**
 * The pronoun hint for the encoder view, or null. Returns `{text, select}`: `select` is the
 * state patch that shows the head it describes (null when it is already on screen). None in
 * the rollout and gradient × input views: the hint speaks of one head's weights, and those maps
 * mix every head.
 * First choice: a head (any encoder layer) where a pronoun looks mostly at a word it could refer
 * to, the strongest such. Failing that, on the head shown, the word a pronoun looks at most,
 * described as what it is: not a referent.
 */
export function pronounHint(cur, state, t) {
  if (!cur || state.stack !== "encoder" || state.show === "rollout" || state.show === "saliency") return null;
  const toks = cur.src.tokens;
  const n = toks.length;
  const layers = cur.trace.encoder.layers;
  let best = null;
  toks.forEach((pron, i) => {
    if (!isPronoun(pron)) return;
    layers.forEach((l, li) =>
      l.self_attn.sublayer.heads.forEach((h, hi) => {
        const { j, v } = topOf(h, i, n);
        if (v >= SEEN_FROM && couldReferTo(pron, toks[j]) && (!best || v > best.v)) best = { v, i, j, layer: li, head: hi };
      }),
    );
  });
  const pct = (v) => Math.round(v * 100);
  if (best) {
    const here = best.layer === state.layer && best.head === state.head;
    const vars = { layer: best.layer + 1, head: best.head + 1, pron: toks[best.i], word: toks[best.j], p: pct(best.v) };
    return {
      text: t(here ? "try.pronounHere" : "try.pronoun", vars),
      select: here && state.query === best.i ? null : { layer: best.layer, head: best.head, query: best.i },
    };
  }
  // no head looks mostly at a possible referent: say what the head on screen does, nothing more
  const h = layers[state.layer]?.self_attn.sublayer.heads[state.head];
  if (!h) return null;
  let top = null;
  toks.forEach((pron, i) => {
    if (!isPronoun(pron)) return;
    const { j, v } = topOf(h, i, n);
    if (v >= STRONG && /^\p{L}/u.test(toks[j]) && (!top || v > top.v)) top = { v, i, j };
  });
  if (!top) return null;
  return {
    text: t("try.pronounOther", { layer: state.layer + 1, head: state.head + 1, pron: toks[top.i], word: toks[top.j], p: pct(top.v) }),
    select: null,
  };
}
