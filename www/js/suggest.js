// In-vocabulary neighbours of a word the model does not know, from the GloVe vectors
// (`Words.nearest` in src/wasm.rs): the model's source words whose vectors have the highest
// cosine with the unknown word's vector.
//
// The vectors (about 1.2 MB) are fetched the first time an unknown word appears, so the lab's
// first load stays as it was. They live in their own wasm instance: a panic there never touches
// the lab's engine (and only costs the suggestions).

import { ASSET, assetBytes, freshInstance } from "./runtime.js";

/** How many neighbours to offer, and the least cosine worth offering. */
export const SUGGEST_K = 3;
export const MIN_COSINE = 0.3;

/** A source-vocabulary entry that is a word (starts with a letter; not `<unk>`, `,` or `'s`). */
export function isWord(token) {
  return /^\p{L}[\p{L}\p{M}'-]*$/u.test(token);
}

export class Suggestions {
  /** `vocabulary`: the model's source vocabulary (`Lab.info().srcVocab`). */
  constructor(vocabulary) {
    this.candidates = vocabulary.filter(isWord);
    this.words = null;
    this.error = null;
    this.loading = null;
    this.cache = new Map();
  }

  get ready() {
    return this.words !== null;
  }

  /** Fetch the vectors and build the table (once); resolves when ready, rejects on failure. */
  load() {
    if (!this.loading) {
      this.loading = (async () => {
        const [bytes, mod] = await Promise.all([assetBytes(ASSET.words), freshInstance()]);
        const words = new mod.Words(bytes);
        words.setCandidates(this.candidates);
        this.words = words;
      })();
      this.loading.catch((e) => {
        this.error = e;
      });
    }
    return this.loading;
  }

  /**
   * Up to SUGGEST_K neighbours `[{word, cosine}]` of `token` (as tokenised: lowercase), best
   * first, each with cosine >= MIN_COSINE. Empty when the token is not a word, has no vector,
   * or the vectors are not loaded.
   */
  nearest(token) {
    if (!this.words || !/\p{L}/u.test(token)) return [];
    if (!this.cache.has(token)) {
      let found = [];
      try {
        found = this.words.nearest(token, SUGGEST_K).filter((n) => n.cosine >= MIN_COSINE);
      } catch (e) {
        this.error = e; // a panic: this instance is done; no more suggestions
        this.words = null;
      }
      this.cache.set(token, found);
    }
    return this.cache.get(token);
  }
}
