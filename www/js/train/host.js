// The page's handle on the training run: the same messages (ops.js) sent to a Web Worker
// (worker.js), or, where no worker can start, answered on the page's own thread.
//
//   const host = new TrainerHost();
//   const { defaults, tasks } = await host.call("defaults");
//   await host.call("reset", { setup });
//   const { reports } = await host.call("train", { steps: 10 });   // rejects with the engine's message

import { assetUrl } from "../runtime.js";

export class TrainerHost {
  constructor() {
    /** Whether training runs in a worker (false: on the page's thread). */
    this.inWorker = false;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {Map<number, {msg: {op: string, [k: string]: any}, resolve: (v: any) => void, reject: (e: Error) => void}>} */
    this.waiting = new Map();
    this.next = 1;
    /** @type {Promise<(msg: {op: string, [k: string]: any}) => Promise<Record<string, any>>> | null} */
    this.local = null;
    // the single file has no worker script to start: the page's thread
    if (!globalThis.ATTNSCOPE_INLINE && typeof Worker === "function") {
      try {
        this.worker = new Worker(assetUrl("js/train/worker.js"), { type: "module" });
        this.inWorker = true;
        this.worker.addEventListener("message", (e) => this.answer(e.data));
        // a worker that fails to load (a module worker refused) hands its work to the page
        this.worker.addEventListener("error", () => this.fallBack());
      } catch {
        this.worker = null;
      }
    }
  }

  /** @param {Record<string, any>} msg */
  answer(msg) {
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg);
  }

  fallBack() {
    this.worker?.terminate();
    this.worker = null;
    this.inWorker = false;
    // what the worker had not answered runs here instead
    const pending = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of pending) this.runHere(w.msg).then(w.resolve, w.reject);
  }

  /** @param {{op: string, [k: string]: any}} msg */
  runHere(msg) {
    this.local ??= import("./ops.js").then((m) => m.handle);
    return this.local.then((handle) => handle(msg)).then((answer) => {
      if (answer.error) throw new Error(answer.error);
      return answer;
    });
  }

  /**
   * Send `op` with its arguments; resolves with the answer, rejects with the engine's message.
   * @param {string} op @param {Record<string, any>} [args]
   * @returns {Promise<Record<string, any>>}
   */
  call(op, args = {}) {
    const msg = { id: this.next++, op, ...args };
    if (!this.worker) return this.runHere(msg);
    return new Promise((resolve, reject) => {
      this.waiting.set(msg.id, { msg, resolve, reject });
      this.worker.postMessage(msg);
    });
  }
}
