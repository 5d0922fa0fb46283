// The training playground (train.html): a tiny encoder-decoder trained from scratch on a toy
// task (src/tasks.rs, src/training.rs), in a Web Worker (host.js, ops.js), while the page
// draws what it measures: learning curves, the gradient norm per layer, the share of saturated
// softmax rows, and the model's attention as it is now, in the lab's own panels (a Session on
// the trainer's model file, re-weighed a few times a second: session.js `reweigh`).
//
//   controls ──► setup ──► worker: reset / train(n) / evaluate / file ──► reports
//                  │                                                       │
//                  └──► URL (setup.js: task, model, seed; steps=N)        ▼
//                                            curves, norms, status, snapshots, panels
//
// The run is the engine's: the same setup and seed give the same losses, whether it trains in
// chunks, in a worker or on the page (a seeded stream of examples, src/wasm.rs Trainer).

import { addStrings, namespaceT, setLang as setLanguage, getLang, startLang, translate, LANGS } from "../i18n.js";
import * as S from "../state.js";
import { Session } from "../session.js";
import { controlsPanel } from "../controls.js";
import { gridPanel, heatmapPanel } from "../panels/index.js";
import { el, setText, fmt, sizeCanvas, paintCells, whenKoreanFont } from "../dom.js";
import { seqRGBA } from "../colors.js";
import { pageHref } from "../runtime.js";
import { registerServiceWorker } from "../offline.js";
import { STRINGS } from "./strings.js";
import { TrainerHost } from "./host.js";
import { drawCurves, drawNorms, SERIES } from "./charts.js";
import { FIELDS, fromParams, toParams } from "./setup.js";

addStrings("train", STRINGS);

/** Held-out accuracy is measured every this many steps, on this many examples of this seed. */
const EVAL_EVERY = 25;
const EVAL_N = 64;
const EVAL_SEED = 424242;
/** The accuracy that counts as solved. */
const SOLVED = 0.95;
/** The panels follow the model at most this often while it trains (ms). */
const VIEW_MS = 250;
/** The "Try these" links: pairs one switch apart (the defaults for the rest). */
const TRIES = [
  ["scaleOn", "heads=1&d=128&steps=300"],
  ["scaleOff", "heads=1&d=128&scale=0&steps=300"],
  ["residualOn", "layers=4&steps=150"],
  ["residualOff", "layers=4&residual=0&steps=150"],
];
/** Steps at which the strip keeps a snapshot of the model (then every doubling). */
const FIRST_SNAPS = [0, 10, 25, 50, 100];

/** The playground's own strings (namespace "train", strings.js). */
const trainT = namespaceT("train");

const header = document.getElementById("train-header");
const status = document.getElementById("train-status");
const root = document.getElementById("train");

const host = new TrainerHost();
const params = S.locationParams();
setLang(startLang(params.toString(), navigator.language));

/** The run: its setup, what it has measured, and the page's view of it. */
const run = {
  /** @type {import("./setup.js").Setup | null} */
  defaults: null,
  /** @type {string[]} */
  tasks: [],
  /** @type {import("./setup.js").Setup | null} */
  setup: null,
  until: 0,
  step: 0,
  playing: false,
  generation: 0, // a reset starts a new one: a loop of an older one stops
  trainMs: 0,
  rate: 0, // steps per second of training, smoothed
  /** @type {{step: number[], loss: number[], acc: number[], sat: number[], heldStep: number[], held: number[]}} */
  series: { step: [], loss: [], acc: [], sat: [], heldStep: [], held: [] },
  /** @type {{layer: string, norm: number}[]} */
  norms: [],
  /** @type {{step: number, seconds: number, acc: number} | null} */
  solved: null,
  /** @type {{step: number, bytes: Uint8Array, trace: any, stack: string}[]} */
  snapshots: [],
  /** @type {number | null} the snapshot shown instead of the latest model */
  viewing: null,
  lastView: 0,
  viewKey: "", // the setup whose model the panels show
  exampleSeed: 1,
  /** @type {{source: string, target: string} | null} */
  example: null,
};

// Everything that talks to the trainer runs one at a time, in order (a reset never interleaves
// with a step of the run it replaces).
/** @type {Promise<unknown>} */
let lock = Promise.resolve();
/** @template T @param {() => Promise<T>} fn @returns {Promise<T>} */
function exclusive(fn) {
  const p = lock.then(fn);
  lock = p.catch(() => {});
  return p;
}

/** Every element the page updates, rebuilt with the language. */
let ui = /** @type {Record<string, any>} */ ({});

/** @param {string} l */
function setLang(l) {
  setLanguage(l);
  document.documentElement.lang = getLang();
  document.documentElement.classList.toggle("lang-ko", getLang() === "ko");
  document.title = trainT("page.docTitle");
}

// The attention panels: one session on the trainer's model (opened at the first view).
const session = new Session({
  state: S.update(S.fromQuery(pick(params, ["stack", "layer", "head", "tables", "lang"]).toString()), { stack: "decoder_cross" }),
  lang: getLang(),
  onRun: () => renderOutput(),
  onError: (msg) => {
    ui.viewError.hidden = !msg;
    if (msg) ui.viewError.textContent = msg;
  },
  onState: () => writeUrl(),
});
// the view params win over the default site (decoder_cross) when the link names one
if (params.has("stack")) session.state = S.update(session.state, { stack: S.fromQuery(`stack=${params.get("stack")}`).stack });

/** @param {URLSearchParams} p @param {string[]} keys */
function pick(p, keys) {
  const out = new URLSearchParams();
  for (const k of keys) if (p.has(k)) out.set(k, p.get(k));
  return out;
}

// ---------------------------------------------------------------------------------------------
// The page

function build() {
  const group = el("div", "lang-switch", { role: "group", "aria-labelledby": "lang-label" });
  group.append(el("span", "lang-label", { id: "lang-label" }, trainT("lang.label")));
  for (const l of LANGS) {
    const b = el("button", "lang-btn", { type: "button", lang: l, "aria-pressed": String(l === getLang()), "data-test": `lang-${l}` }, translate(l, `lang.${l}`));
    b.addEventListener("click", () => switchLang(l));
    group.append(b);
  }
  const brand = el("div", "brand");
  brand.append(el("p", "kicker", {}, trainT("page.kicker")), el("h1", "", {}, trainT("page.title")));
  const links = el("nav", "train-links");
  links.append(el("a", "lesson-link", { href: pageHref("lesson", langParam()) }, trainT("page.toLesson")), el("a", "lesson-link", { href: pageHref("lab", langParam()) }, trainT("page.toLab")));
  header.replaceChildren(brand, links, group);

  ui = {};
  const side = el("aside", "side");
  const views = el("div", "views");
  root.replaceChildren(el("p", "lead train-lede", {}, trainT("page.lede")), el("div", "layout train-layout"));
  root.lastElementChild.append(side, views);

  // controls
  ui.runCard = card(side, "run", trainT("run.group"));
  const buttons = el("div", "train-buttons", { role: "group", "aria-label": trainT("run.group") });
  ui.play = button(buttons, "", "play", () => (run.playing ? pause() : play()));
  ui.step = button(buttons, trainT("run.step"), "step", () => stepOnce());
  ui.reset = button(buttons, trainT("run.reset"), "reset", () => reset(readControls()));
  ui.runCard.append(buttons);
  ui.runStatus = el("p", "train-status-line", { "data-test": "run-status", "aria-live": "off" });
  ui.speed = el("p", "hint", { "data-test": "speed" });
  ui.solved = el("p", "hint train-solved", { "data-test": "solved", role: "status" });
  ui.untilNote = el("p", "hint", { "data-test": "until" });
  ui.runError = el("p", "notice peek", { role: "alert", hidden: true });
  ui.badNote = el("p", "notice warn", { hidden: true, "data-test": "bad-params" });
  ui.share = el("button", "btn btn-small", { type: "button", "data-test": "share" }, trainT("run.share"));
  ui.shareStatus = el("p", "hint", { role: "status" });
  ui.share.addEventListener("click", shareLink);
  ui.runCard.append(ui.runStatus, ui.speed, ui.solved, ui.untilNote, ui.runError, ui.badNote, ui.share, ui.shareStatus);

  // experiments in pairs: the seed article's two claims about learning, one switch apart
  const tryCard = card(side, "try", trainT("try.title"));
  tryCard.append(el("p", "hint", {}, trainT("try.about")));
  const tries = el("ul", "train-tries");
  for (const [key, query] of TRIES) {
    const li = el("li");
    li.append(el("a", "", { href: pageHref("train", new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(query)), ...Object.fromEntries(langParam()) })), "data-test": `try-${key}` }, trainT(`try.${key}`)));
    tries.append(li);
  }
  tryCard.append(tries);

  const taskCard = card(side, "task", trainT("task.title"));
  ui.task = select(taskCard, "task", trainT("task.label"), run.tasks.map((id) => [id, trainT(`task.${id}`)]));
  ui.taskAbout = el("p", "hint", { "data-test": "task-about" });
  taskCard.append(ui.taskAbout);
  ui.length = range(taskCard, "length", trainT("task.length"));
  ui.lengthNote = el("p", "hint");
  taskCard.append(ui.lengthNote);
  ui.symbols = range(taskCard, "symbols", trainT("task.symbols"));

  const modelCard = card(side, "model", trainT("model.title"));
  ui.layers = range(modelCard, "layers", trainT("model.layers"));
  ui.heads = select(modelCard, "heads", trainT("model.heads"), choices("heads"));
  ui.dModel = select(modelCard, "dModel", trainT("model.dModel"), choices("dModel"));
  ui.scale = check(modelCard, "scale", trainT("model.scale"));
  ui.residual = check(modelCard, "residual", trainT("model.residual"));
  ui.layerNorm = check(modelCard, "layerNorm", trainT("model.layerNorm"));

  const optCard = card(side, "opt", trainT("opt.title"));
  ui.optimizer = select(optCard, "optimizer", trainT("opt.optimizer"), choices("optimizer").map(([v]) => [v, trainT(`opt.${v}`)]));
  ui.lr = select(optCard, "lr", trainT("opt.lr"), choices("lr"));
  ui.batch = select(optCard, "batch", trainT("opt.batch"), choices("batch"));
  ui.seed = range(optCard, "seed", trainT("opt.seed"), true);
  optCard.append(el("p", "hint", {}, trainT("opt.resetNote")));

  // curves and norms
  const curves = card(views, "curves", trainT("curves.title"));
  ui.curvesAbout = el("p", "hint", {}, trainT("curves.about", { every: EVAL_EVERY, n: EVAL_N }));
  const legend = el("ul", "train-legend");
  for (const [k, key] of [["loss", "curves.loss"], ["acc", "curves.acc"], ["held", "curves.held"], ["sat", "curves.sat"]]) {
    const li = el("li");
    // the swatch in the chart's own colour (charts.js SERIES), dashed like its line for the saturated share
    const swatch = el("span", `swatch${k === "sat" ? " swatch-dashed" : ""}`, { "aria-hidden": "true" });
    swatch.style.setProperty("--swatch", SERIES[k]);
    li.append(swatch, trainT(key));
    legend.append(li);
  }
  ui.lossCanvas = el("canvas", "train-canvas", { role: "img", "data-test": "loss-chart" });
  ui.accCanvas = el("canvas", "train-canvas", { role: "img", "data-test": "acc-chart" });
  ui.curvesTable = el("table", "train-table", { "data-test": "curves-table" });
  const details = el("details", "train-numbers");
  details.append(el("summary", "", {}, trainT("curves.tableCaption")), ui.curvesTable);
  curves.append(ui.curvesAbout, legend, ui.lossCanvas, ui.accCanvas, details);

  const norms = card(views, "norms", trainT("norms.title"));
  ui.normsCanvas = el("canvas", "train-canvas", { role: "img", "data-test": "norms-chart" });
  ui.normsTable = el("table", "train-table sr-only", { "data-test": "norms-table" });
  norms.append(el("p", "hint", {}, trainT("norms.about")), ui.normsCanvas, ui.normsTable);

  // the model's attention
  const view = card(views, "view", trainT("view.title"));
  view.append(el("p", "hint", {}, trainT("view.about")));
  const inputRow = el("div", "train-input");
  ui.input = el("input", "train-input-box", { type: "text", id: "train-input", spellcheck: "false", autocomplete: "off", "aria-describedby": "train-input-hint", "data-test": "input" });
  const label = el("label", "field-label", { for: "train-input" }, trainT("view.input"));
  ui.another = el("button", "btn btn-small", { type: "button", "data-test": "another" }, trainT("view.another"));
  ui.another.addEventListener("click", () => newExample());
  let typing = 0;
  ui.input.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => setInput(ui.input.value, null), 300);
  });
  inputRow.append(ui.input, ui.another);
  ui.inputHint = el("p", "hint", { id: "train-input-hint" }, trainT("view.inputHint"));
  ui.unknown = el("p", "notice warn", { hidden: true, "data-test": "unknown" });
  ui.expected = el("p", "train-expected", { "data-test": "expected" });
  ui.output = el("p", "train-output", { "data-test": "output", "aria-live": "polite" });
  ui.viewing = el("div", "notice train-viewing", { hidden: true, "data-test": "viewing" });
  ui.viewError = el("p", "notice peek", { role: "alert", hidden: true });
  ui.controls = el("div", "ap-controls train-view-controls");
  ui.grid = el("div", "train-grid");
  ui.heatmap = el("div", "train-heatmap");
  const snaps = el("section", "train-snaps", { "aria-labelledby": "snaps-h" });
  snaps.append(el("h3", "sub", { id: "snaps-h" }, trainT("view.snapshots")), el("p", "hint", {}, trainT("view.snapshotsAbout")));
  ui.snaps = el("div", "train-snap-strip", { role: "group", "aria-labelledby": "snaps-h", "data-test": "snapshots" });
  snaps.append(ui.snaps);
  view.append(label, inputRow, ui.inputHint, ui.unknown, ui.expected, ui.output, ui.viewing, ui.viewError, ui.controls, snaps, ui.grid, ui.heatmap);

  session.unmountAll();
  session.mount(controlsPanel, ui.controls, { names: ["stack", "layer", "head", "tables"] });
  session.mount(gridPanel, ui.grid, { subheading: "h3" });
  session.mount(heatmapPanel, ui.heatmap, { subheading: "h3", maxHeight: 360 });
  session.showTables();

  for (const f of FIELDS) {
    const c = ui[f.key];
    c?.addEventListener("change", () => onControl());
  }
  showSetup();
  renderAll();
}

/** @param {HTMLElement} parent @param {string} id @param {string} title */
function card(parent, id, title) {
  const sec = el("section", "card", { id: `card-${id}`, "aria-labelledby": `h-${id}` });
  sec.append(el("h2", "", { id: `h-${id}` }, title));
  parent.append(sec);
  return sec;
}

function button(parent, text, test, onClick) {
  const b = el("button", "btn", { type: "button", "data-test": test }, text);
  b.addEventListener("click", onClick);
  parent.append(b);
  return b;
}

/** @param {keyof import("./setup.js").Setup} key @returns {[string|number, string][]} */
function choices(key) {
  return FIELDS.find((f) => f.key === key).choices.map((c) => [c, String(c)]);
}

function field(parent, id, text, control) {
  const row = el("div", "train-field");
  row.append(el("label", "", { for: `ctl-${id}` }, text), control);
  parent.append(row);
  return control;
}

function select(parent, id, text, items) {
  const sel = el("select", "", { id: `ctl-${id}`, "data-setup": id });
  sel.append(...items.map(([v, label]) => el("option", "", { value: String(v) }, label)));
  return field(parent, id, text, sel);
}

function range(parent, id, text, number = false) {
  const f = FIELDS.find((x) => x.key === id);
  const input = el("input", "", { id: `ctl-${id}`, type: number ? "number" : "range", min: String(f.range[0]), max: String(f.range[1]), step: "1", "data-setup": id });
  const out = el("output", "train-value", { for: `ctl-${id}`, "aria-hidden": "true" });
  const box = el("span", "train-range");
  box.append(input, number ? "" : out);
  field(parent, id, text, box);
  if (!number) input.addEventListener("input", () => (out.textContent = input.value));
  return input;
}

function check(parent, id, text) {
  const row = el("div", "train-check");
  const box = el("input", "", { id: `ctl-${id}`, type: "checkbox", "data-setup": id });
  row.append(box, el("label", "", { for: `ctl-${id}` }, text));
  parent.append(row);
  return box;
}

/** Put the setup into the controls. */
function showSetup() {
  const s = run.setup;
  if (!s) return;
  for (const f of FIELDS) {
    const c = ui[f.key];
    if (!c) continue;
    if (f.bool) c.checked = s[f.key];
    else c.value = String(s[f.key]);
    if (c.type === "range") c.nextElementSibling.textContent = c.value;
  }
  const coref = s.task === "coref";
  ui.length.disabled = ui.symbols.disabled = coref;
  setText(ui.lengthNote, coref ? trainT("task.fixedLength") : "");
  setText(ui.taskAbout, trainT(`task.about.${s.task}`));
}

/** The setup the controls describe. @returns {import("./setup.js").Setup} */
function readControls() {
  /** @type {Record<string, any>} */
  const s = { ...run.setup };
  for (const f of FIELDS) {
    const c = ui[f.key];
    if (!c) continue;
    if (f.bool) s[f.key] = c.checked;
    else if (f.task || f.key === "optimizer") s[f.key] = c.value;
    else s[f.key] = Number(c.value);
  }
  return /** @type {import("./setup.js").Setup} */ (s);
}

function onControl() {
  const next = readControls();
  const wasPlaying = run.playing;
  run.until = 0;
  reset(next).then(() => wasPlaying && play());
}

function switchLang(l) {
  setLang(l);
  session.setLang(getLang());
  const p = new URLSearchParams(location.search);
  p.set("lang", getLang());
  S.replaceQuery(`?${p}`, "");
  build();
  whenKoreanFont(() => renderCharts());
}

function langParam() {
  const p = new URLSearchParams();
  if (params.has("lang") || getLang() !== startLang("", navigator.language)) p.set("lang", getLang());
  return p;
}

// ---------------------------------------------------------------------------------------------
// The run

/**
 * A new run of `setup` from step 0 (its first snapshot and held-out accuracy included).
 * @param {import("./setup.js").Setup} setup
 */
function reset(setup) {
  run.generation += 1;
  run.playing = false;
  return exclusive(() => resetNow(setup));
}

/** @param {import("./setup.js").Setup} setup */
async function resetNow(setup) {
  try {
    await host.call("reset", { setup });
  } catch (e) {
    showError(e);
    return;
  }
  Object.assign(run, {
    setup,
    step: 0,
    trainMs: 0,
    rate: 0,
    series: { step: [], loss: [], acc: [], sat: [], heldStep: [], held: [] },
    norms: [],
    solved: null,
    snapshots: [],
    viewing: null,
  });
  ui.runError.hidden = true;
  showSetup();
  writeUrl();
  await evaluate();
  await pickExample(run.exampleSeed, true);
  await refreshView(true);
  renderAll();
}

/** Train `n` steps (one message) and take in their reports. */
async function trainSteps(n) {
  const gen = run.generation;
  const out = await host.call("train", { steps: n });
  if (gen !== run.generation) return false;
  for (const r of out.reports) {
    run.series.step.push(r.step);
    run.series.loss.push(r.loss);
    run.series.acc.push(r.accuracy);
    run.series.sat.push(r.saturated);
    run.norms = r.gradNorms;
  }
  run.step = out.step;
  run.trainMs += out.ms;
  const rate = (1000 * n) / Math.max(out.ms, 1e-3);
  run.rate = run.rate ? 0.8 * run.rate + 0.2 * rate : rate;
  return true;
}

async function evaluate() {
  const { accuracy } = await host.call("evaluate", { n: EVAL_N, seed: EVAL_SEED });
  run.series.heldStep.push(run.step);
  run.series.held.push(accuracy);
  if (!run.solved && accuracy >= SOLVED) run.solved = { step: run.step, seconds: run.trainMs / 1000, acc: accuracy };
}

/** The next step at which the loop must stop to measure or keep something. */
function nextStop() {
  const s = run.step;
  let next = (Math.floor(s / EVAL_EVERY) + 1) * EVAL_EVERY;
  const snap = snapSteps(s);
  if (snap) next = Math.min(next, snap);
  if (run.until && run.until > s) next = Math.min(next, run.until);
  return next;
}

/** The first snapshot step after `s`: 10, 25, 50, 100, then 200, 400, ... */
function snapSteps(s) {
  const hit = FIRST_SNAPS.find((x) => x > s);
  if (hit !== undefined) return hit;
  let x = 200;
  while (x <= s) x *= 2;
  return x;
}

/** Whether step `s` is one the strip keeps (0 and the steps snapSteps lists). @param {number} s */
function isSnapStep(s) {
  return snapSteps(s - 1) === s;
}

function play() {
  if (run.playing || !run.setup) return;
  if (run.until && run.step >= run.until) run.until = 0; // played past the link's stop
  run.playing = true;
  run.viewing = null;
  renderButtons();
  const gen = run.generation;
  // the status line says whether a loop is still at work (a paused one finishes its chunk)
  ui.runStatus.dataset.running = "true";
  loop(gen)
    .catch((e) => showError(e))
    .finally(() => {
      if (gen === run.generation) {
        run.playing = false;
        renderAll();
      }
      if (gen === run.generation || !run.playing) ui.runStatus.dataset.running = "false";
    });
}

function pause() {
  run.playing = false;
  renderButtons();
}

/** @param {number} gen */
async function loop(gen) {
  while (run.playing && gen === run.generation) {
    const more = await exclusive(async () => {
      if (!run.playing || gen !== run.generation) return false;
      // chunks of about 40 ms, so that the curves move smoothly and Pause answers at once
      const chunk = Math.max(1, Math.min(50, Math.round((run.rate || 50) * 0.04)));
      const n = Math.max(1, Math.min(chunk, nextStop() - run.step));
      if (!(await trainSteps(n))) return false;
      await afterSteps();
      if (run.until && run.step >= run.until) run.playing = false;
      renderRun();
      return true;
    });
    if (!more) break;
    if (!host.inWorker) await new Promise((r) => setTimeout(r, 0)); // let the page draw
  }
  if (gen === run.generation) await exclusive(() => refreshView(false));
}

async function afterSteps() {
  if (run.step % EVAL_EVERY === 0) await evaluate();
  if (isSnapStep(run.step)) await refreshView(true);
  else if (performance.now() - run.lastView > VIEW_MS) await refreshView(false);
}

async function stepOnce() {
  if (run.playing || !run.setup) return;
  run.viewing = null;
  await exclusive(async () => {
    if (await trainSteps(1)) {
      await afterSteps();
      await refreshView(false);
    }
  }).catch((e) => showError(e));
  renderAll();
}

// ---------------------------------------------------------------------------------------------
// The model's attention

/** Show the model as it is now (the panels), and keep a snapshot when `snapshot`. */
async function refreshView(snapshot) {
  if (run.viewing !== null && !snapshot) return;
  const gen = run.generation;
  const { bytes } = await host.call("file");
  if (gen !== run.generation) return;
  run.lastView = performance.now();
  await show(bytes);
  if (snapshot && session.cur) {
    run.snapshots = run.snapshots.filter((x) => x.step !== run.step);
    run.snapshots.push({ step: run.step, bytes, trace: session.cur.trace, stack: session.state.stack });
    renderSnapshots();
  }
}

/**
 * Show a model file of the run in the panels: a new run's first file opens afresh (its shape
 * and switches may differ; the selection stays where the model has it), a later one of the
 * same run only re-weighs the model shown.
 * @param {Uint8Array} bytes
 */
async function show(bytes) {
  const s = run.setup;
  const key = JSON.stringify(s);
  if (session.engine && run.viewKey === key) {
    await session.reweigh(bytes);
    return;
  }
  const { stack, layer, head } = session.state;
  session.state = S.update(session.state, { sentence: run.example?.source ?? session.state.sentence, scale: s.scale });
  try {
    await session.open(bytes, "playground");
  } catch (e) {
    showError(e);
    return;
  }
  run.viewKey = key;
  // the training switches are run options too: the model is shown as it was trained
  session.guard(() => session.engine.setOptions({ residual: s.residual, layerNorm: s.layerNorm }));
  await session.retranslate({ keepStep: true });
  const sel = S.clampToModel(S.update(session.state, { stack, layer, head }), session.info);
  session.select({ stack: sel.stack, layer: sel.layer, head: sel.head });
}

/** A new example from the task (its own stream: the run does not change). */
async function newExample() {
  run.exampleSeed += 1;
  await exclusive(() => pickExample(run.exampleSeed, false));
}

/** @param {number} seed @param {boolean} quiet  no re-run (a reset refreshes the view itself) */
async function pickExample(seed, quiet) {
  const { example } = await host.call("example", { seed });
  run.example = example;
  ui.input.value = example.source;
  if (!quiet) await setInput(example.source, example.target);
}

/** The reader's input (or an example's): re-run the panels on it. @param {string} text @param {string | null} target */
async function setInput(text, target) {
  if (target === null) {
    // the task's rule (the engine's, src/tasks.rs) says what the right output is, if any
    const { target: right } = await exclusive(() => host.call("answer", { source: text }));
    run.example = { source: text, target: right };
  }
  const known = new Set(session.info?.srcVocab ?? []);
  const unknown = text.toLowerCase().split(/\s+/).filter((w) => w && !known.has(w));
  ui.unknown.hidden = !unknown.length || !known.size;
  if (unknown.length && known.size) {
    const vocab = [...known].filter((w) => !w.startsWith("<")).join(" ");
    setText(ui.unknown, trainT("view.unknown", { words: unknown.join(" "), vocab }));
  }
  await session.setSentence(text);
  renderOutput();
}

function renderOutput() {
  if (!ui.output) return;
  const out = session.cur?.tr?.text ?? "";
  const target = run.example?.target ?? null;
  ui.expected.hidden = target === null;
  // the labels in the page's font, the symbols in monospace (it has no Korean)
  if (target !== null) ui.expected.replaceChildren(`${trainT("view.expected")} `, el("code", "", {}, target));
  const right = target !== null && out.trim() === target.trim();
  ui.output.replaceChildren(`${trainT("view.output")} `, el("code", "", {}, out || "—"));
  if (target !== null) ui.output.append(` (${trainT(right ? "view.right" : "view.wrong")})`);
  ui.output.dataset.right = String(right);
  renderSnapshots();
}

function renderSnapshots() {
  if (!ui.snaps) return;
  const { stack, layer, head } = session.state;
  ui.snaps.replaceChildren();
  for (const snap of run.snapshots) {
    const b = el("button", "train-snap", { type: "button", "aria-pressed": String(run.viewing === snap.step), "data-step": String(snap.step) });
    const canvas = el("canvas", "", { "aria-hidden": "true" });
    const w = snapWeights(snap.trace, stack, layer, head);
    if (w) {
      const g = sizeCanvas(canvas, 56, 56);
      paintCells(g, w, 0, 0, 56, 56, seqRGBA);
    }
    b.append(canvas, el("span", "", {}, trainT("view.snapshot", { step: snap.step })));
    b.addEventListener("click", () => viewSnapshot(snap.step));
    ui.snaps.append(b);
  }
  ui.viewing.hidden = run.viewing === null;
  if (run.viewing !== null) {
    const back = el("button", "btn btn-small", { type: "button", "data-test": "live" }, trainT("view.live"));
    back.addEventListener("click", () => viewSnapshot(null));
    ui.viewing.replaceChildren(el("span", "", {}, trainT("view.viewing", { step: run.viewing })), " ", back);
  }
}

/** The weights of one head in a trace (null when the trace has no such head). */
function snapWeights(trace, stack, layer, head) {
  const side = stack === "encoder" ? trace?.encoder : trace?.decoder;
  const l = side?.layers?.[layer];
  const attn = stack === "encoder" ? l?.self_attn : stack === "decoder_self" ? l?.self_attn : l?.cross_attn;
  return attn?.sublayer?.heads?.[head]?.weights ?? null;
}

/** Show the model of snapshot `step` (training pauses), or the latest (null). @param {number | null} step */
async function viewSnapshot(step) {
  pause();
  await exclusive(async () => {
    if (step === null) {
      run.viewing = null;
      await refreshView(false);
    } else {
      const snap = run.snapshots.find((x) => x.step === step);
      if (!snap) return;
      run.viewing = step;
      await show(snap.bytes);
    }
  });
  renderSnapshots();
}

// ---------------------------------------------------------------------------------------------
// Drawing what the run measured

function renderAll() {
  renderButtons();
  renderRun();
  renderSnapshots();
}

function renderButtons() {
  if (!ui.play) return;
  setText(ui.play, trainT(run.playing ? "run.pause" : "run.play"));
  ui.play.setAttribute("aria-pressed", String(run.playing));
  ui.step.disabled = run.playing;
}

function renderRun() {
  if (!ui.runStatus) return;
  const sr = run.series;
  const n = sr.step.length;
  const held = sr.held.length ? sr.held[sr.held.length - 1] : null;
  setText(ui.runStatus, n ? trainT("run.status", { step: run.step, loss: fmt(sr.loss[n - 1], 3), acc: held === null ? "—" : pct(held) }) : trainT("run.statusStart"));
  ui.runStatus.dataset.step = String(run.step);
  ui.runStatus.dataset.loss = n ? String(sr.loss[n - 1]) : "";
  ui.runStatus.dataset.held = held === null ? "" : String(held);
  ui.runStatus.dataset.saturated = n ? String(sr.sat[n - 1]) : "";
  const rateKey = host.inWorker ? "run.speedWorker" : "run.speedMain";
  setText(ui.speed, run.rate ? trainT(rateKey, { rate: Math.round(run.rate) }) : "");
  ui.speed.dataset.rate = String(run.rate);
  const solved = run.solved;
  setText(ui.solved, solved ? trainT("run.solved", { acc: pct(solved.acc), step: solved.step, seconds: solved.seconds.toFixed(1) }) : trainT("run.notSolved"));
  ui.solved.dataset.solvedStep = solved ? String(solved.step) : "";
  setText(ui.untilNote, run.until ? trainT("run.until", { n: run.until }) : "");
  renderCharts();
}

function pct(v) {
  return `${(100 * v).toFixed(1)}%`;
}

function renderCharts() {
  if (!ui.lossCanvas) return;
  const sr = run.series;
  const width = Math.max(240, Math.min(720, ui.lossCanvas.parentElement.clientWidth - 4 || 600));
  drawCurves(ui.lossCanvas, { steps: sr.step, lines: [{ values: sr.loss, colour: SERIES.loss }], log: true, width, height: 150, yLabel: trainT("curves.loss") });
  drawCurves(ui.accCanvas, {
    steps: sr.step,
    lines: [
      { values: sr.acc, colour: SERIES.acc },
      { values: sr.sat, colour: SERIES.sat, dash: true },
      { values: sr.held, steps: sr.heldStep, colour: SERIES.held },
    ],
    width,
    height: 130,
    yLabel: "",
  });
  const n = sr.step.length;
  const last = (a) => (a.length ? a[a.length - 1] : null);
  ui.lossCanvas.setAttribute("aria-label", n ? `${trainT("curves.loss")}: ${fmt(sr.loss[0], 3)} → ${fmt(sr.loss[n - 1], 3)}` : trainT("curves.none"));
  ui.accCanvas.setAttribute("aria-label", last(sr.held) === null ? trainT("curves.none") : `${trainT("curves.held")}: ${pct(last(sr.held))}; ${trainT("curves.sat")}: ${n ? pct(sr.sat[n - 1]) : "—"}`);
  // the numbers: the held-out measurements and the last steps
  const rows = [];
  for (let i = Math.max(0, sr.heldStep.length - 8); i < sr.heldStep.length; i += 1) {
    const s = sr.heldStep[i];
    const k = s - 1; // report index of step s (steps count from 1)
    rows.push([s, k >= 0 && k < n ? fmt(sr.loss[k], 4) : "—", k >= 0 && k < n ? pct(sr.acc[k]) : "—", pct(sr.held[i]), k >= 0 && k < n ? pct(sr.sat[k]) : "—"]);
  }
  const head = el("tr");
  for (const h of [trainT("curves.colStep"), trainT("curves.loss"), trainT("curves.acc"), trainT("curves.held"), trainT("curves.sat")]) head.append(el("th", "", { scope: "col" }, h));
  const body = rows.map((r) => {
    const tr = el("tr");
    r.forEach((v, i) => tr.append(el(i ? "td" : "th", "", i ? {} : { scope: "row" }, String(v))));
    return tr;
  });
  ui.curvesTable.replaceChildren(el("thead", "", {}), el("tbody", "", {}));
  ui.curvesTable.firstChild.append(head);
  ui.curvesTable.lastChild.append(...body);

  const labelled = run.norms.map((x) => {
    const [stack, num] = x.layer.split(" ");
    return { ...x, label: trainT("norms.layer", { stack: trainT(`norms.${stack}`), n: num }) };
  });
  drawNorms(ui.normsCanvas, labelled, width);
  ui.normsCanvas.setAttribute("aria-label", labelled.map((x) => `${x.label}: ${x.norm.toExponential(2)}`).join("; ") || trainT("curves.none"));
  ui.normsTable.replaceChildren(
    ...labelled.map((x) => {
      const tr = el("tr", "", { "data-layer": x.layer, "data-norm": String(x.norm) });
      tr.append(el("th", "", { scope: "row" }, x.label), el("td", "", {}, x.norm.toExponential(3)));
      return tr;
    }),
  );
}

function showError(e) {
  run.playing = false;
  ui.runError.hidden = false;
  setText(ui.runError, trainT("run.error", { msg: e?.message || String(e) }));
  renderButtons();
}

// ---------------------------------------------------------------------------------------------
// The URL: the setup (setup.js), the step a shared link trains to, the view's selection

function writeUrl() {
  if (!run.setup || !run.defaults) return;
  const p = toParams(run.setup, run.defaults, run.until, new URLSearchParams(location.search));
  const view = new URLSearchParams(S.toQuery(session.state));
  for (const k of ["stack", "layer", "head", "tables"]) {
    p.delete(k);
    if (view.has(k)) p.set(k, view.get(k));
  }
  if (session.state.stack === "encoder") p.set("stack", "encoder"); // the playground's default is decoder_cross
  else if (session.state.stack === "decoder_cross") p.delete("stack");
  const q = p.toString();
  S.replaceQuery(q ? `?${q}` : "", "");
}

async function shareLink() {
  const p = toParams(run.setup, run.defaults, run.step || run.until, new URLSearchParams(location.search));
  const url = `${location.origin}${location.pathname}?${p}`;
  try {
    await navigator.clipboard.writeText(url);
    setText(ui.shareStatus, trainT("run.copied", { n: run.step || run.until }));
  } catch {
    ui.shareStatus.replaceChildren(trainT("run.copyFailed"), " ", el("input", "", { type: "text", readonly: "", value: url }));
  }
}

// ---------------------------------------------------------------------------------------------
// Start

async function start() {
  setText(status, trainT("run.loading"));
  let answer;
  try {
    answer = await host.call("defaults");
  } catch (e) {
    setText(status, "");
    root.replaceChildren(el("p", "notice peek", { role: "alert" }, trainT("run.error", { msg: e.message })));
    root.removeAttribute("aria-busy");
    return;
  }
  run.defaults = answer.defaults;
  run.tasks = answer.tasks;
  const { setup, until, bad } = fromParams(params, run.defaults, run.tasks);
  run.setup = setup;
  run.until = until;
  build();
  if (bad.length) {
    ui.badNote.hidden = false;
    setText(ui.badNote, bad.map((b) => trainT("bad.param", b)).join(" "));
  }
  await reset(setup);
  run.until = until;
  setText(status, "");
  root.removeAttribute("aria-busy");
  document.body.dataset.ready = "1";
  renderAll();
  writeUrl();
  if (until) play();
  registerServiceWorker();
}

start();
