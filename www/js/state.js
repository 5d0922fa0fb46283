// The pages' state and its one URL codec.
//
// The lab's (and an embed's) UI state: every field listed once, with its type, default and name
// in the URL. The page keeps one state object, changes it with `update`, and mirrors it into the
// query string (`mirror`: toQuery + history.replaceState), so any view can be shared, reloaded or
// embedded. Indices are 0-based here and 1-based in the URL, because readers see "layer 1, head 1".
// The lesson keeps each panel's state under prefixed keys (p1.x0, p3.wq, ...) with the getters and
// `put` at the end of this file; both parse values with the same functions and write the address
// bar the same way. No DOM here beyond `location` and `history`; no engine.

export const SEED_SENTENCE = "Emma hates games, but she's a great friend";

/** @typedef {"encoder" | "decoder_self" | "decoder_cross"} StackName  one attention of the model */
/** @typedef {"weights" | "scores" | "logits" | "value" | "rollout" | "saliency"} ShowName  what the main map colours by */

/**
 * The UI state of the lab and of an embed: one property per entry of `FIELDS` (same defaults).
 * Indices are 0-based; null means "pick for me" / "the model's own".
 * @typedef {object} State
 * @property {string} sentence
 * @property {StackName} stack
 * @property {number} layer
 * @property {number} head
 * @property {number | null} query       the selected query row; null = the last token
 * @property {ShowName} show
 * @property {number} step               the decoding step shown
 * @property {number | null} heads       head count; null = as trained
 * @property {boolean} causalDecoder
 * @property {boolean} causalEncoder
 * @property {boolean} scale
 * @property {boolean} positional
 * @property {boolean} tables
 * @property {boolean} pair
 * @property {string} lang             "", "en" or "ko"; "" = the browser's
 * @property {string} edits              W_Q/W_K edits (edits.js); "" = the trained weights
 * @property {string} knockOut           knocked-out heads, "e1h2,c2h3"; "" = every head on
 * @property {string} model              the model file shown (its name); "" = the demo model
 */

/**
 * One field of the state: `key` in the state object, `param` in the URL (see FIELDS).
 * @typedef {object} Field
 * @property {keyof State} key
 * @property {string} param
 * @property {"string" | "enum" | "index" | "index?" | "count?" | "bool" | "edits" | "heads"} type
 * @property {readonly string[]} [values]  the allowed values of an "enum"
 * @property {any} def
 */

/** The three attentions of an encoder-decoder Transformer (the engine's `stack` names). @type {StackName[]} */
export const STACKS = ["encoder", "decoder_self", "decoder_cross"];

/** What the main heatmap colours by: the weights, raw scores q·k, scaled/masked scores, the
 * value-weighted contributions ||w_ij v_j W_O|| per row (Kobayashi et al. 2020), attention
 * rollout through the layers (Abnar & Zuidema 2020), gradient × input of the whole model
 * (Shrikumar et al. 2016; only where a map's rows are outputs: see saliencySide).
 * @type {ShowName[]} */
export const SHOWS = ["weights", "scores", "logits", "value", "rollout", "saliency"];

/** Knocked-out heads in the URL: "e1h2,s2h1,c2h3" (the site's letter, layer, head: 1-based; see parseHead). */
export const HEAD_NAME = /^([a-z])([1-9]\d?)h([1-9]\d?)$/;

/** The two sentences of the word-order experiment (same words, swapped roles). */
export const ORDER_PAIR = ["the brother carried the sister", "the sister carried the brother"];

/**
 * Every field: `key` in the state object, `param` in the URL, `type`, `def` (default).
 * Types: "string"; "enum" (one of `values`); "index" (integer >= 0, 1-based in the URL);
 * "index?" (same, or null = "pick for me"); "count?" (integer >= 1 or null = the model's own);
 * "bool" (0/1 in the URL); "edits" (the W_Q/W_K edits, encoded by edits.js; checked, and a
 * notice shown, when they are applied to the model); "heads" (knocked-out heads, "e1h2,c2h3").
 * @type {Field[]}
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
  { key: "knockOut", param: "ko", type: "heads", def: "" }, // "" = every head on
  // a permalink names the model it was made with; the page cannot open a file from a link (the
  // file is the reader's), so it says so when the name is not the model shown
  { key: "model", param: "model", type: "string", def: "" }, // "" = the demo model
];

/** @type {Map<string, Field>} */
const BY_KEY = new Map(FIELDS.map((f) => [f.key, f]));

/** A fresh state holding every default. @returns {State} */
export function defaults() {
  /** @type {Record<string, any>} */
  const s = {};
  for (const f of FIELDS) s[f.key] = f.def;
  return /** @type {State} */ (s);
}

/** "1"/"true" -> true, "0"/"false" -> false, anything else undefined. @param {string | null} raw */
function parseBool(raw) {
  return raw === "1" || raw === "true" ? true : raw === "0" || raw === "false" ? false : undefined;
}

/** A finite number, or undefined (empty and malformed text included). @param {string | null} raw */
function parseNumber(raw) {
  if (raw === null || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** @param {Field} f @param {string} raw */
function parseValue(f, raw) {
  switch (f.type) {
    case "string":
      return raw.slice(0, 5000);
    case "edits":
      return raw.slice(0, 2_000_000); // every block of every head edited fits (a URL may be 2 MB)
    case "heads": {
      // well-formed names only, sorted, each once; whether the model has them is checked later
      const names = [...new Set(raw.split(",").filter((n) => HEAD_NAME.test(n)))].sort();
      return names.join(",");
    }
    case "enum":
      return f.values.includes(raw) ? raw : undefined;
    case "bool":
      return parseBool(raw);
    case "index":
    case "index?": {
      const n = parseNumber(raw);
      return Number.isInteger(n) && n >= 1 && n <= 100000 ? n - 1 : undefined;
    }
    case "count?": {
      const n = parseNumber(raw);
      return Number.isInteger(n) && n >= 1 && n <= 100000 ? n : undefined;
    }
    default:
      return undefined;
  }
}

/** @param {Field} f @param {any} v */
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

/**
 * State from a query string ("?s=...&layer=2"); unknown or invalid values keep the default.
 * @param {string} search
 * @returns {State}
 */
export function fromQuery(search) {
  /** @type {Record<string, unknown>} */
  const s = defaults();
  const params = new URLSearchParams(search);
  for (const f of FIELDS) {
    if (!params.has(f.param)) continue;
    const v = parseValue(f, params.get(f.param));
    if (v !== undefined) s[f.key] = v;
  }
  return /** @type {State} */ (s);
}

/**
 * The query string of a state: only the fields that differ from their default, so the URL of
 * the initial page stays clean. Parameters this module does not own (e.g. `bench`) are kept.
 * @param {State} state
 * @param {string} [previousSearch]
 * @returns {string}  "?..." or ""
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

/**
 * A new state with `patch` applied; keys that are not fields are rejected (typos fail loudly).
 * @param {State} state
 * @param {Partial<State>} patch
 * @returns {State}
 */
export function update(state, patch) {
  for (const k of Object.keys(patch)) {
    if (!BY_KEY.has(k)) throw new Error(`unknown state field ${k}`);
  }
  return { ...state, ...patch };
}

/** <attnscope-panel> attributes -> the URL parameters above: one parser for both. @type {Record<string, string>} */
export const ATTRIBUTES = {
  sentence: "s",
  query: "q",
  stack: "stack",
  layer: "layer",
  head: "head",
  show: "show",
  step: "step",
  heads: "heads",
  mask: "mask",
  encmask: "encmask",
  scale: "scale",
  pe: "pe",
  tables: "tables",
  lang: "lang",
  qk: "qk",
};

/**
 * The state an element's attributes describe (`get(name)`: the attribute or null).
 * @param {(name: string) => string | null | undefined} get
 * @returns {State}
 */
export function fromAttributes(get) {
  const params = new URLSearchParams();
  for (const [attr, param] of Object.entries(ATTRIBUTES)) {
    const v = get(attr);
    if (v !== null && v !== undefined) params.set(param, String(v));
  }
  return fromQuery(params.toString());
}

/**
 * Which side of the engine's gradient × input (Lab.saliency: `source` over the source tokens,
 * `target` over the decoder's input tokens) a stack's map shows, or why it has none: the map's
 * rows must be the model's outputs. Cross-attention (rows: output positions, columns: source
 * words) shows `source`, decoder self-attention `target`, an encoder-only model's encoder (its
 * rows are its masked-LM outputs) `source`. An encoder-decoder's encoder rows are not outputs
 * ("encoder"); a model without an output head has nothing to explain ("output").
 * @param {import("./engine.js").ModelInfo | null} info @param {StackName} stack
 * @returns {{side: "source" | "target" | null, reason: "" | "encoder" | "output"}}
 */
export function saliencySide(info, stack) {
  if (info && info.output === "none") return { side: null, reason: "output" };
  if (stack === "decoder_cross") return { side: "source", reason: "" };
  if (stack === "decoder_self") return { side: "target", reason: "" };
  if (info && info.architecture === "encoder_only") return { side: "source", reason: "" };
  return { side: null, reason: "encoder" };
}

/**
 * Clamp indices to the current model and run (e.g. after the head count or sentence changed).
 * @param {State} state
 * @param {import("./engine.js").ModelInfo} info
 * @returns {State}
 */
export function clampToModel(state, info) {
  const s = { ...state };
  if (s.heads !== null && !info.headChoices.includes(s.heads)) s.heads = null;
  const heads = s.heads ?? info.nhead;
  // a stack the model does not have (an encoder in a GPT): its first attention instead
  const sites = info.sites || [];
  if (sites.length && !sites.some((x) => x.stack === s.stack)) s.stack = sites[0].stack;
  const layersOf = (stack) => sites.find((x) => x.stack === stack)?.layers ?? 0;
  const byLetter = new Map(sites.map((x) => [x.letter, x.stack]));
  // knocked-out heads this model (with this head count) does not have are dropped
  s.knockOut = s.knockOut
    .split(",")
    .filter((n) => {
      const ref = parseHead(n);
      return ref && byLetter.has(ref.letter) && ref.layer < layersOf(byLetter.get(ref.letter)) && ref.head < heads;
    })
    .join(",");
  s.layer = Math.max(0, Math.min(s.layer, layersOf(s.stack) - 1));
  s.head = Math.min(s.head, heads - 1);
  // gradient × input where the map's rows are not outputs (a translator's encoder): the weights
  if (s.show === "saliency" && !saliencySide(info, s.stack).side) s.show = "weights";
  return s;
}

/**
 * A head reference of the knock-out list, the URL and the CLI ("e1h2": the letter of the
 * engine's attention site, `Lab.info().sites[].letter`, then layer and head counted from 1)
 * read back 0-based, or null when it is not one.
 * @param {string} name @returns {{letter: string, layer: number, head: number} | null}
 */
export function parseHead(name) {
  const m = HEAD_NAME.exec(name);
  return m ? { letter: m[1], layer: Number(m[2]) - 1, head: Number(m[3]) - 1 } : null;
}

// ---------------------------------------------------------------------------------------------
// The address bar

// The lab and the embeds keep their state in the fragment (#s=...&layer=2), as TensorFlow
// Playground does: a browser never sends the fragment to the host, so nothing typed reaches its
// logs, and a link with every W_Q/W_K block edited is not refused as too long (a query string of
// that size gets "414 Request-URI Too Long"). Links of the older form (?s=...) still open the
// same view: parameters are read from both, the fragment winning. The lesson keeps its few
// parameters in the query string: its fragment names the panel to scroll to (#p3).

/**
 * The page's parameters: the query string's, then the fragment's (which win).
 * @param {{search?: string, hash?: string}} [loc]
 */
export function locationParams(loc = globalThis.location) {
  const out = new URLSearchParams(loc?.search ?? "");
  const hash = (loc?.hash ?? "").replace(/^#/, "");
  if (hash.includes("=")) for (const [k, v] of new URLSearchParams(hash)) out.set(k, v);
  return out;
}

/** The state a URL describes (query string and fragment). @param {{search?: string, hash?: string}} [loc] @returns {State} */
export function fromLocation(loc = globalThis.location) {
  return fromQuery(locationParams(loc).toString());
}

/** Put `search` ("?a=1" or "") and `hash` ("#..." or "") in the address bar, keeping the path. @param {string} search @param {string} [hash] */
export function replaceQuery(search, hash = location.hash) {
  try {
    history.replaceState(history.state, "", `${location.pathname}${search}${hash}`);
  } catch {
    /* an opaque origin (a sandboxed frame) may refuse: the page works the same */
  }
}

/** The fragment ("#s=...", or "" for the default view) that holds `state`. @param {State} state @returns {string} */
export function toFragment(state) {
  const q = toQuery(state, "");
  return q ? `#${q.slice(1)}` : "";
}

let mirrorTimer = 0;
/**
 * Mirror a state into the fragment, at most once per 150 ms. The state's fields leave the query
 * string (an old-form link becomes a new-form one); parameters we do not own there stay.
 * @param {State} state
 */
export function mirror(state) {
  clearTimeout(mirrorTimer);
  mirrorTimer = setTimeout(() => replaceQuery(toQuery(defaults(), location.search), toFragment(state)), 150);
}

// ---------------------------------------------------------------------------------------------
// A page's own parameters under prefixed keys (the lesson: p1.x0, p3.wq, ...). Values equal to
// their default are left out, so the plain page keeps a clean URL.

const params = new URLSearchParams(globalThis.location?.search ?? "");
let putTimer = 0;

function flush() {
  const q = params.toString();
  replaceQuery(q ? `?${q}` : "");
}

/** Write `key` (removed when the value equals `def`). @param {string} key @param {unknown} value @param {unknown} def */
export function put(key, value, def) {
  const v = value === null || value === undefined ? null : String(value);
  if (v === null || v === String(def)) params.delete(key);
  else params.set(key, v);
  clearTimeout(putTimer);
  putTimer = setTimeout(flush, 120);
}

/** @param {string} key */
export function has(key) {
  return params.has(key);
}

/** Apply pending changes now (before navigating away or in tests). */
export function sync() {
  clearTimeout(putTimer);
  flush();
}

/** @param {string} key @param {string} def @param {number} [maxLen] @returns {string} */
export function str(key, def, maxLen = 500) {
  const v = params.get(key);
  return v === null ? def : v.slice(0, maxLen);
}

/** @param {string} key @param {number} def @param {number} min @param {number} max @returns {number} */
export function num(key, def, min, max) {
  const n = parseNumber(params.get(key));
  return n === undefined ? def : Math.min(max, Math.max(min, n));
}

/** @param {string} key @param {number} def @param {number} min @param {number} max @returns {number} */
export function int(key, def, min, max) {
  const n = num(key, def, min, max);
  return Number.isInteger(n) ? n : Math.round(n);
}

/** @param {string} key @param {boolean} def @returns {boolean} */
export function bool(key, def) {
  return parseBool(params.get(key)) ?? def;
}

/**
 * A list of `count` numbers ("1,0,0,1"); anything malformed gives the default.
 * @param {string} key @param {number[]} def @param {number} count @param {number} min @param {number} max
 * @returns {number[]}
 */
export function nums(key, def, count, min, max) {
  const v = params.get(key);
  if (v === null) return def.slice();
  const parts = v.split(",").map(Number);
  if (parts.length !== count || parts.some((x) => !Number.isFinite(x))) return def.slice();
  return parts.map((x) => Math.min(max, Math.max(min, x)));
}

/** The shortest decimal that round-trips the 2-decimal slider values we store. @param {number[]} list */
export function numsText(list) {
  return list.map((x) => String(Math.round(x * 1000) / 1000)).join(",");
}
