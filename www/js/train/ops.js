// The training run's side of the playground: one wasm `Trainer` (src/wasm.rs) and the messages
// that drive it. It runs in a Web Worker (worker.js), so that training never blocks the page;
// where a worker cannot start (the single-file edition, a browser that refuses module workers)
// host.js runs the same `handle` on the page's thread.
//
//   {op: "defaults"}            -> {defaults, tasks}       the engine's default setup, the task list
//   {op: "reset", setup}        -> {step: 0}               a fresh model (a bad setup: {error})
//   {op: "train", steps}        -> {reports, ms, step}     `ms`: the time the steps took
//   {op: "evaluate", n, seed}   -> {accuracy}              held-out, teacher-forced
//   {op: "file"}                -> {bytes}                 the model as it is now (a model file)
//   {op: "example", seed}       -> {example}               {source, target, ...} of its own stream
//   {op: "answer", source}      -> {target}                the task's right output for a typed
//                                                          source, null when it has none

import { freshInstance, isPanic } from "../runtime.js";

/** @type {import("../runtime.js").Glue | null} */
let glue = null;
/** @type {import("pkg/attnscope.js").Trainer | null} */
let trainer = null;

/**
 * Answer one message (`id` comes back with the answer). Never throws: an error is `{error}`;
 * a panic in the engine drops the instance, so the next message starts a fresh one.
 * @param {{id?: number, op: string, [k: string]: any}} msg
 * @returns {Promise<Record<string, any>>}
 */
export async function handle({ id, op, ...a }) {
  try {
    glue ??= await freshInstance();
    return { id, ...run(op, a) };
  } catch (e) {
    if (isPanic(e)) {
      glue = null;
      trainer = null;
    }
    return { id, error: e?.message || String(e) };
  }
}

/** @param {string} op @param {Record<string, any>} a */
function run(op, a) {
  if (op === "defaults") return { defaults: glue.trainingDefaults(), tasks: glue.trainingTasks() };
  if (op === "reset") {
    const next = new glue.Trainer(a.setup); // throws on a bad setup: the old run stays
    trainer?.free();
    trainer = next;
    return { step: 0 };
  }
  if (!trainer) throw new Error("no training run: reset first");
  if (op === "train") {
    const t0 = performance.now();
    const reports = trainer.train(a.steps);
    return { reports, ms: performance.now() - t0, step: trainer.step };
  }
  if (op === "evaluate") return { accuracy: trainer.evaluate(a.n, a.seed) };
  if (op === "file") return { bytes: trainer.file() };
  if (op === "example") return { example: trainer.example(a.seed) };
  if (op === "answer") return { target: trainer.answer(a.source) ?? null };
  throw new Error(`unknown message ${op}`);
}
