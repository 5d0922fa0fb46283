// The page's UI state: every field listed once, with its type, default and name in the URL.
//
// Pure module: no DOM, no engine. The page keeps one state object, changes it with `update`,
// and mirrors it into the query string with `toQuery` (history.replaceState), so any view can
// be shared, reloaded or embedded. Indices are 0-based here and 1-based in the URL, because
// readers see "layer 1, head 1".

export const SEED_SENTENCE = "Emma hates games, but she's a great friend";

/** The three attentions of an encoder-decoder Transformer (the engine's `stack` names). */
export const STACKS = ["encoder", "decoder_self", "decoder_cross"];

/** What the main heatmap colours by. */
export const SHOWS = ["weights", "scores", "logits"];

/** The two sentences of the word-order experiment (same words, swapped roles). */
export const ORDER_PAIR = ["the brother carried the sister", "the sister carried the brother"];

/**
 * Every field: `key` in the state object, `param` in the URL, `type`, `def` (default).
 * Types: "string"; "enum" (one of `values`); "index" (integer >= 0, 1-based in the URL);
 * "index?" (same, or null = "pick for me"); "count?" (integer >= 1 or null = the model's own);
 * "bool" (0/1 in the URL); "edits" (the W_Q/W_K edits, encoded by edits.js; checked, and a
 * notice shown, when they are applied to the model).
 */
export const FIELDS = [
  { key: "sentence", param: "s", type: "string", def: SEED_SENTENCE },
  { key: "stack", param: "stack", type: "enum", values: STACKS, def: "encoder" },
  { key: "layer", param: "layer", type: "index", def: 0 },
  { key: "head", param: "head", type: "index", def: 0 },
  { key: "query", param: "q", type: "index?", def: null }, // null = the last token
  { key: "show", param: "show", type: "enum", values: SHOWS, def: "weights" },
  { key: "step", param: "step", type: "index", def: 0 },
  { key: "heads", param: "heads", type: "count?", def: null }, // null = as trained
  { key: "causalDecoder", param: "mask", type: "bool", def: true },
  { key: "causalEncoder", param: "encmask", type: "bool", def: false },
  { key: "scale", param: "scale", type: "bool", def: true },
  { key: "positional", param: "pe", type: "bool", def: true },
  { key: "tables", param: "tables", type: "bool", def: false },
  { key: "pair", param: "pair", type: "bool", def: false },
  { key: "lang", param: "lang", type: "enum", values: ["", "en", "ko"], def: "" }, // "" = browser
  { key: "edits", param: "qk", type: "edits", def: "" }, // "" = the trained weights
];

const BY_KEY = new Map(FIELDS.map((f) => [f.key, f]));

/** A fresh state holding every default. */
export function defaults() {
  const s = {};
  for (const f of FIELDS) s[f.key] = f.def;
  return s;
}

function parseValue(f, raw) {
  switch (f.type) {
    case "string":
      return raw.slice(0, 5000);
    case "edits":
      return raw.slice(0, 200000);
    case "enum":
      return f.values.includes(raw) ? raw : undefined;
    case "bool":
      return raw === "1" || raw === "true" ? true : raw === "0" || raw === "false" ? false : undefined;
    case "index":
    case "index?": {
      const n = Number(raw);
      return Number.isInteger(n) && n >= 1 && n <= 100000 ? n - 1 : undefined;
    }
    case "count?": {
      const n = Number(raw);
      return Number.isInteger(n) && n >= 1 && n <= 100000 ? n : undefined;
    }
    default:
      return undefined;
  }
}

function formatValue(f, v) {
  switch (f.type) {
    case "bool":
      return v ? "1" : "0";
    case "index":
    case "index?":
      return String(v + 1);
    default:
      return String(v);
  }
}

/** State from a query string ("?s=...&layer=2"); unknown or invalid values keep the default. */
export function fromQuery(search) {
  const s = defaults();
  const params = new URLSearchParams(search);
  for (const f of FIELDS) {
    if (!params.has(f.param)) continue;
    const v = parseValue(f, params.get(f.param));
    if (v !== undefined) s[f.key] = v;
  }
  return s;
}

/**
 * The query string of a state: only the fields that differ from their default, so the URL of
 * the initial page stays clean. Parameters this module does not own (e.g. `bench`) are kept.
 */
export function toQuery(state, previousSearch = "") {
  const params = new URLSearchParams(previousSearch);
  for (const f of FIELDS) {
    params.delete(f.param);
    const v = state[f.key];
    if (v === f.def || v === null || v === undefined) continue;
    params.set(f.param, formatValue(f, v));
  }
  const q = params.toString();
  return q ? `?${q}` : "";
}

/** A new state with `patch` applied; keys that are not fields are rejected (typos fail loudly). */
export function update(state, patch) {
  for (const k of Object.keys(patch)) {
    if (!BY_KEY.has(k)) throw new Error(`unknown state field ${k}`);
  }
  return { ...state, ...patch };
}

/** Clamp indices to the current model and run (e.g. after the head count or sentence changed). */
export function clampToModel(state, info) {
  const s = { ...state };
  if (s.heads !== null && !info.headChoices.includes(s.heads)) s.heads = null;
  const heads = s.heads ?? info.nhead;
  const layers = s.stack === "encoder" ? info.encoderLayers : info.decoderLayers;
  s.layer = Math.min(s.layer, layers - 1);
  s.head = Math.min(s.head, heads - 1);
  return s;
}
