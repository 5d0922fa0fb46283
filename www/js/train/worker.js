// The training playground's Web Worker: the model trains here while the page draws
// (see ops.js for the messages).

import { handle } from "./ops.js";

globalThis.addEventListener("message", async (/** @type {MessageEvent} */ e) => {
  const answer = await handle(e.data);
  const transfer = answer.bytes ? [answer.bytes.buffer] : [];
  globalThis.postMessage(answer, { transfer });
});
