// A training run's setup and where it lives: the page's controls and its URL
// (train.html?task=reverse&layers=4&residual=0&steps=300). The defaults are the engine's
// (`trainingDefaults()` of src/wasm.rs, read once through the worker): this file owns only the
// choices the page offers and the URL's parameter names.

/**
 * What `new Trainer(setup)` takes (src/wasm.rs SetupIn).
 * @typedef {object} Setup
 * @property {string} task
 * @property {number} length
 * @property {number} symbols
 * @property {number} layers
 * @property {number} heads
 * @property {number} dModel
 * @property {string} optimizer
 * @property {number} lr
 * @property {number} batch
 * @property {number} seed
 * @property {boolean} scale
 * @property {boolean} residual
 * @property {boolean} layerNorm
 */

/**
 * Each field: its URL parameter and the values the page offers (`range`: [min, max] integers;
 * `choices`: a list; `bool`: a switch; the task's list comes from the engine).
 * @type {{key: keyof Setup, param: string, range?: [number, number], choices?: (number|string)[], bool?: boolean, task?: boolean}[]}
 */
export const FIELDS = [
  { key: "task", param: "task", task: true },
  { key: "length", param: "length", range: [2, 16] },
  { key: "symbols", param: "symbols", range: [2, 26] },
  { key: "layers", param: "layers", range: [1, 6] },
  // every head count offered divides every d_model offered
  { key: "heads", param: "heads", choices: [1, 2, 4, 8] },
  { key: "dModel", param: "d", choices: [8, 16, 32, 64, 128] },
  { key: "optimizer", param: "opt", choices: ["adam", "sgd"] },
  { key: "lr", param: "lr", choices: [0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1] },
  { key: "batch", param: "batch", choices: [1, 4, 8, 16, 32, 64] },
  { key: "seed", param: "seed", range: [1, 99999] },
  { key: "scale", param: "scale", bool: true },
  { key: "residual", param: "residual", bool: true },
  { key: "layerNorm", param: "ln", bool: true },
];

/** The step a link trains to and pauses at: `steps=N` (1 to this). */
export const MAX_UNTIL = 100000;

/**
 * One field's value from its URL text, or undefined when it is not one the page offers.
 * @param {typeof FIELDS[number]} f @param {string} text @param {string[]} tasks
 */
function parseField(f, text, tasks) {
  if (f.task) return tasks.includes(text) ? text : undefined;
  if (f.bool) return text === "1" || text === "true" ? true : text === "0" || text === "false" ? false : undefined;
  if (f.range) {
    const n = Number(text);
    return Number.isInteger(n) && n >= f.range[0] && n <= f.range[1] ? n : undefined;
  }
  const hit = f.choices.find((c) => String(c) === text || (typeof c === "number" && Number(text) === c));
  return hit;
}

/**
 * The setup a URL asks for, on top of the engine's defaults: `{setup, until, bad}`, where
 * `until` is the step to train to and pause at (0: none) and `bad` lists the parameters whose
 * value the page does not offer (they keep the default; the page says so).
 * @param {URLSearchParams} params @param {Setup} defaults @param {string[]} tasks
 * @returns {{setup: Setup, until: number, bad: {name: string, value: string}[]}}
 */
export function fromParams(params, defaults, tasks) {
  const setup = { ...defaults };
  const bad = [];
  for (const f of FIELDS) {
    if (!params.has(f.param)) continue;
    const text = params.get(f.param);
    const v = parseField(f, text, tasks);
    if (v === undefined) bad.push({ name: f.param, value: text.slice(0, 40) });
    else setup[f.key] = /** @type {never} */ (v);
  }
  let until = 0;
  if (params.has("steps")) {
    const n = Number(params.get("steps"));
    if (Number.isInteger(n) && n >= 1 && n <= MAX_UNTIL) until = n;
    else bad.push({ name: "steps", value: params.get("steps").slice(0, 40) });
  }
  return { setup, until, bad };
}

/**
 * The URL parameters of a setup: only what differs from the defaults, then `steps` when given;
 * parameters this file does not own (the view's, `lang`) are kept from `previous`.
 * @param {Setup} setup @param {Setup} defaults @param {number} until @param {URLSearchParams} [previous]
 */
export function toParams(setup, defaults, until, previous = new URLSearchParams()) {
  const out = new URLSearchParams(previous);
  for (const f of FIELDS) {
    out.delete(f.param);
    if (setup[f.key] === defaults[f.key]) continue;
    out.set(f.param, f.bool ? (setup[f.key] ? "1" : "0") : String(setup[f.key]));
  }
  out.delete("steps");
  if (until) out.set("steps", String(until));
  return out;
}

/** Whether two setups make the same run (every field equal). @param {Setup} a @param {Setup} b */
export function sameSetup(a, b) {
  return FIELDS.every((f) => a[f.key] === b[f.key]);
}
