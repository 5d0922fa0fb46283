// "Open a model…": a model file from the reader's disk, by the file picker or dropped anywhere on
// the page, read in the browser (it is never uploaded: there is no server to send it to), checked
// (model_file.js), then shown by the session (session.open). While a large file is read a
// progress bar says how far; anything wrong gets a message that says what, and the model shown
// stays. "Back to the demo model" opens the demo model again.

import { readModelFile, ModelFileError } from "./model_file.js";
import { fmtCount } from "./dom.js";

/**
 * The largest file this device is asked to open: the engine copies the weights into wasm memory
 * (at most 4 GB, and the browser's tab far less on a small device), so about a quarter of the
 * device's memory where the browser tells it (navigator.deviceMemory, in GB), at most 1 GB.
 */
export function largestFile() {
  const gb = Number(/** @type {any} */ (globalThis.navigator)?.deviceMemory) || 4;
  return Math.min(1024 ** 3, (gb * 1024 ** 3) / 4);
}

/** @param {number} bytes */
const mb = (bytes) => fmtCount(Math.max(0.1, Math.round(bytes / 1024 / 102.4) / 10));

/**
 * Read a File with progress (`onProgress(fraction)`).
 * @param {File} file @param {(f: number) => void} onProgress @returns {Promise<Uint8Array>}
 */
function readFile(file, onProgress) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    r.onload = () => resolve(new Uint8Array(/** @type {ArrayBuffer} */ (r.result)));
    r.onerror = () => reject(r.error || new Error("the file could not be read"));
    r.readAsArrayBuffer(file);
  });
}

/**
 * Wire the lab's model controls.
 * @param {object} o
 * @param {import("./session.js").Session} o.session
 * @param {import("./core.js").Translate} o.t
 * @param {HTMLButtonElement[]} o.buttons   each opens the file picker
 * @param {HTMLInputElement} o.input          the hidden <input type="file">
 * @param {HTMLButtonElement} o.demo          "Back to the demo model"
 * @param {HTMLProgressElement} o.progress
 * @param {HTMLElement} o.status              what is happening, or what went wrong
 * @param {HTMLElement} o.dropZone            where a dropped file is taken (the page)
 * @param {() => void} o.onOpened             after another model is on screen
 */
export function setupOpenModel({ session, t, buttons, input, demo, progress, status, dropZone, onOpened }) {
  let busy = false;
  const say = (text, error = false) => {
    status.textContent = text;
    status.classList.toggle("warn", error);
    status.hidden = !text;
  };

  /** @param {Uint8Array | null} bytes @param {string} name */
  async function show(bytes, name) {
    say(t("open.starting", { name: name || t("open.demoName") }));
    try {
      await session.open(bytes, name);
    } catch (e) {
      say(t("open.error.engine", { name, message: e?.message || String(e) }), true);
      return;
    }
    say(bytes ? t("open.done", { name }) : "");
    demo.hidden = !bytes;
    onOpened();
  }

  /** @param {File} file */
  async function open(file) {
    if (busy) return;
    busy = true;
    try {
      const max = largestFile();
      if (file.size > max) {
        say(t("open.error.tooLarge", { name: file.name, mb: mb(file.size), max: mb(max) }), true);
        return;
      }
      progress.hidden = false;
      progress.value = 0;
      say(t("open.reading", { name: file.name, mb: mb(file.size) }));
      let bytes;
      try {
        bytes = await readFile(file, (f) => (progress.value = f));
      } catch (e) {
        say(t("open.error.read", { name: file.name, message: e?.message || String(e) }), true);
        return;
      } finally {
        progress.hidden = true;
      }
      try {
        readModelFile(bytes);
      } catch (e) {
        if (!(e instanceof ModelFileError)) throw e;
        say(t(`open.error.${e.key}`, { name: file.name, ...e.params }), true);
        return;
      }
      await show(bytes, file.name);
    } finally {
      busy = false;
    }
  }

  for (const b of buttons) b.addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const file = input.files?.[0];
    input.value = ""; // the same file again is a new change
    if (file) open(file);
  });
  demo.addEventListener("click", async () => {
    if (busy) return;
    busy = true;
    try {
      await show(null, "");
    } finally {
      busy = false;
    }
  });

  // a file dragged over the page: the page says it takes it; dropped, it opens
  const hasFiles = (/** @type {DragEvent} */ e) => !!e.dataTransfer && [...e.dataTransfer.types].includes("Files");
  let depth = 0;
  dropZone.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    depth += 1;
    dropZone.classList.add("dropping");
  });
  dropZone.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (!depth) dropZone.classList.remove("dropping");
  });
  dropZone.addEventListener("dragover", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
  });
  dropZone.addEventListener("drop", (e) => {
    depth = 0;
    dropZone.classList.remove("dropping");
    const file = e.dataTransfer?.files?.[0];
    if (!file) return;
    e.preventDefault();
    open(file);
  });
  return { open };
}
