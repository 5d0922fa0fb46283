// Which model the lab shows. The site's own (models.js: the translator, and MiniLM, downloaded
// only when chosen, with its size said first and a progress bar), or "Open a model…": a model
// file from the reader's disk, by the file picker or dropped anywhere on the page, read in the
// browser (it is never uploaded: there is no server to send it to), checked (model_file.js),
// then shown by the session (session.open). While a file is read or downloaded a progress bar
// says how far; anything wrong gets a message that says what, and the model shown stays.
// "Back to the demo model" opens the translator again.

import { readModelFile, ModelFileError } from "./model_file.js";
import { el, fmtCount } from "./dom.js";
import { SITE_MODELS, siteModel, modelLabel, canDownload, modelSize, isKept, keep, download, mb } from "./models.js";

/**
 * The largest file this device is asked to open: the engine copies the weights into wasm memory
 * (at most 4 GB, and the browser's tab far less on a small device), so about a quarter of the
 * device's memory where the browser tells it (navigator.deviceMemory, in GB), at most 1 GB.
 */
export function largestFile() {
  const gb = Number(/** @type {any} */ (globalThis.navigator)?.deviceMemory) || 4;
  return Math.min(1024 ** 3, (gb * 1024 ** 3) / 4);
}

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
 * @param {HTMLElement} o.choices             where the site's models are offered (radio buttons)
 * @param {HTMLButtonElement} o.keepButton    "Keep for offline use" (a downloaded site model)
 * @param {() => void} o.onOpened             after another model is on screen
 */
export function setupOpenModel({ session, t, buttons, input, demo, progress, status, dropZone, choices, keepButton, onOpened }) {
  let busy = false;
  /** @type {Map<string, number | null>} */
  const sizes = new Map(); // site model id -> its file's size (HEAD), once asked
  /** @type {{id: string, bytes: Uint8Array} | null} */
  let downloaded = null; // the last on-demand model fetched, for "Keep for offline use"
  const say = (text, error = false) => {
    status.textContent = text;
    status.classList.toggle("warn", error);
    status.hidden = !text;
  };

  /** @param {Uint8Array | null} bytes @param {string} name */
  async function show(bytes, name) {
    say(t("open.starting", { name: modelLabel(name, t) }));
    try {
      await session.open(bytes, name);
    } catch (e) {
      say(t("open.error.engine", { name: modelLabel(name, t), message: e?.message || String(e) }), true);
      return;
    }
    say(bytes ? t("open.done", { name: modelLabel(name, t) }) : "");
    demo.hidden = !bytes;
    renderChoices();
    onOpened();
  }

  // --- the site's models -------------------------------------------------------------------

  const offered = SITE_MODELS.filter((m) => !m.onDemand || canDownload());
  const radios = offered.map((m) => {
    const input = el("input", "", { type: "radio", name: `${session.uid}-model`, value: m.id, id: `${session.uid}-model-${m.id || "demo"}` });
    const label = el("label", "", { for: input.id });
    const about = el("span", "hint model-about");
    const row = el("div", "control-row model-option");
    row.append(input, label, about);
    choices.append(row);
    input.addEventListener("change", () => input.checked && choose(m.id));
    return { m, input, label, about };
  });

  /** The radios, their names and sizes, as the model shown and the kept copies are. */
  async function renderChoices() {
    for (const r of radios) {
      r.label.textContent = t(r.m.label);
      r.input.checked = r.m.id === session.modelName;
      if (!r.m.onDemand) {
        r.about.textContent = "";
        continue;
      }
      if (!sizes.has(r.m.id)) sizes.set(r.m.id, await modelSize(r.m));
      const size = sizes.get(r.m.id);
      const kept = await isKept(r.m);
      r.about.textContent = kept ? t("models.kept") : size ? t("models.size", { mb: mb(size) }) : t("models.sizeUnknown");
    }
    const m = siteModel(session.modelName);
    keepButton.hidden = !(m?.onDemand && downloaded?.id === m.id);
  }

  /** @param {string} id */
  async function choose(id) {
    if (busy || id === session.modelName) return renderChoices();
    const m = siteModel(id);
    if (!m) return;
    busy = true;
    try {
      if (!m.onDemand) return await show(null, "");
      progress.hidden = false;
      progress.value = 0;
      const size = sizes.get(id);
      say(t("models.downloading", { name: t(m.label), mb: size ? mb(size) : "?" }));
      let bytes;
      try {
        bytes = await download(m, (f) => (progress.value = f));
      } catch (e) {
        say(t("models.error", { name: t(m.label), message: e?.message || String(e) }), true);
        renderChoices();
        return;
      } finally {
        progress.hidden = true;
      }
      downloaded = { id, bytes };
      await show(bytes, id);
    } finally {
      busy = false;
    }
  }

  keepButton.addEventListener("click", async () => {
    const m = downloaded && siteModel(downloaded.id);
    if (!m) return;
    const ok = await keep(m, downloaded.bytes);
    say(t(ok ? "models.keptDone" : "models.keepFailed", { name: t(m.label) }), !ok);
    if (ok) downloaded = null;
    renderChoices();
  });

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
  renderChoices();
  return { open, choose, render: renderChoices };
}
