// Shared test fixtures: a page that records every request, failure and console error, and
// helpers that read the page the way a screen reader does (roles, names, tables).
import fs from "node:fs";
import { test as base, expect } from "@playwright/test";

export { expect };

/** Development only: serve this file as models/en-ko.safetensors (see playwright.config.js). */
const MODEL_OVERRIDE = process.env.ATTNSCOPE_MODEL;

/**
 * E2E_CPU_THROTTLE=N (e.g. 4): every page of every test runs with Chromium's CPU slowed N times
 * (CDP Emulation.setCPUThrottlingRate), as on a slow or busy machine; unset or 1: full speed.
 */
const CPU_THROTTLE = Number(process.env.E2E_CPU_THROTTLE || 1);
/** How many times slower than full speed pages run: a test's own time limit is multiplied by it. */
export const SLOW = Math.max(1, CPU_THROTTLE);
const throttled = new WeakMap();

/** Slow `page`'s CPU by CPU_THROTTLE (once per page; resolves when the rate is set). */
export function throttle(page) {
  if (!(CPU_THROTTLE > 1)) return Promise.resolve();
  if (!throttled.has(page)) {
    throttled.set(
      page,
      page
        .context()
        .newCDPSession(page)
        .then((s) => s.send("Emulation.setCPUThrottlingRate", { rate: CPU_THROTTLE })),
    );
  }
  return throttled.get(page);
}

/** Throttle every page `context` makes: newPage resolves once its page is slowed; popups too. */
function throttleContext(context) {
  const newPage = context.newPage.bind(context);
  context.newPage = async (...args) => {
    const page = await newPage(...args);
    await throttle(page);
    return page;
  };
  context.on("page", (p) => throttle(p).catch(() => {}));
  return context;
}

export const test = base.extend({
  // (worker-wide, automatic) contexts made by the `context` fixture or by a test itself
  // (browser.newContext, browser.newPage) throttle their pages when E2E_CPU_THROTTLE is set
  cpuThrottle: [
    async ({ browser }, use) => {
      if (CPU_THROTTLE > 1 && !browser.__throttled) {
        browser.__throttled = true;
        const newContext = browser.newContext.bind(browser);
        browser.newContext = async (...args) => throttleContext(await newContext(...args));
      }
      await use(CPU_THROTTLE);
    },
    { scope: "worker", auto: true },
  ],
  watch: async ({ page, baseURL }, use) => {
    const w = { origin: new URL(baseURL).origin, requests: [], failed: [], consoleErrors: [], pageErrors: [], dialogs: [] };
    page.on("request", (r) => w.requests.push(r.url()));
    page.on("requestfailed", (r) => w.failed.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => {
      if (r.status() >= 400) w.failed.push(`${r.url()} HTTP ${r.status()}`);
    });
    page.on("console", (m) => {
      if (m.type() === "error") w.consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => w.pageErrors.push(e.message));
    page.on("dialog", (d) => {
      w.dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
    if (MODEL_OVERRIDE) {
      const body = fs.readFileSync(MODEL_OVERRIDE);
      await page.route("**/models/en-ko.safetensors", (r) => r.fulfill({ body, contentType: "application/octet-stream" }));
    }
    await use(w);
  },
});

/**
 * The parameters of a page URL: its query string, then its fragment (which wins). The lab keeps
 * its state in the fragment and still reads the older ?-form (www/js/state.js).
 */
export function urlState(url) {
  const u = new URL(url);
  const out = new URLSearchParams(u.search);
  for (const [k, v] of new URLSearchParams(u.hash.slice(1))) out.set(k, v);
  return out;
}

/** The view part of a URL (query string and fragment), to open it again with openApp. */
export function viewOf(url) {
  const u = new URL(url);
  return `${u.search || "?"}${u.hash}`;
}

/** A safetensors file's header and the bytes after it. @param {Buffer} bytes */
export function splitHeader(bytes) {
  const n = Number(bytes.readBigUInt64LE(0));
  return { header: JSON.parse(bytes.subarray(8, 8 + n).toString("utf8")), body: bytes.subarray(8 + n) };
}

/** A safetensors file from a header and tensor bytes. @param {object} header @param {Buffer} body */
export function joinHeader(header, body) {
  const json = Buffer.from(JSON.stringify(header), "utf8");
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, json, body]);
}

/** Open the page (with an optional query string) and wait until the first translation is shown. */
export async function openApp(page, query = "") {
  await page.goto(`/${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
}

/**
 * From the next navigation on, record every value a progress bar is given in
 * `window.__progress` (only the bar whose data-test is `only`, when given): a download's
 * progress, which finishes too fast to watch.
 */
export function recordProgress(page, only = null) {
  return page.addInitScript((only) => {
    window.__progress = [];
    const desc = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, "value");
    Object.defineProperty(HTMLProgressElement.prototype, "value", {
      get() {
        return desc.get.call(this);
      },
      set(v) {
        if (only === null || this.dataset.test === only) window.__progress.push(v);
        desc.set.call(this, v);
      },
    });
  }, only);
}

/** Save a named screenshot of the whole page into this test's output folder (test-results/). */
export async function shot(page, testInfo, name) {
  await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
}

/**
 * `table` (a locator of one table) once the page has filled it: maps fill their tables when the
 * page is idle (dom.fillTableLater) and mark them `aria-busy` until then.
 */
export async function filled(table) {
  await expect(table).toHaveCount(1);
  await expect(table).not.toHaveAttribute("aria-busy", "true");
  return table;
}

/**
 * Read an accessible table by its name: column headers, row headers and the numbers.
 * `exact` matches the whole name (the main heatmap's name is a prefix of the pair tables').
 */
export async function readTable(page, name, exact = true) {
  const table = await filled(page.getByRole("table", { name, exact }));
  return table.evaluate((t) => ({
    cols: [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent),
    rows: [...t.tBodies[0].rows].map((r) => r.cells[0].textContent),
    text: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => c.textContent)),
    values: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.textContent))),
  }));
}

/** The main heatmap's table name for a stack (as shown to readers, 1-based). */
export function heatmapName(stack, layer = 1, head = 1) {
  const names = { encoder: "encoder self-attention", decoder_self: "decoder self-attention", decoder_cross: "cross-attention" };
  return `${names[stack]} weights, layer ${layer}, head ${head}`;
}

/** Type a sentence into the box and press Enter (translate at once); wait for the tokens. */
export async function typeSentence(page, text) {
  const box = page.getByRole("textbox", { name: "English sentence" });
  await box.fill(text);
  await box.press("Enter");
}

/** Every page-level problem recorded so far must be empty, and no request left the origin. */
export function expectClean(w) {
  const foreign = w.requests.filter((u) => !u.startsWith("data:") && new URL(u).origin !== w.origin);
  expect(foreign, "requests to another origin").toEqual([]);
  expect(w.pageErrors, "uncaught exceptions").toEqual([]);
  expect(w.consoleErrors, "console errors").toEqual([]);
  expect(w.failed, "failed requests").toEqual([]);
  expect(w.dialogs, "dialogs").toEqual([]);
}

/**
 * (Pages opened with ?debug=1.) From now on, note when a W_Q/W_K edit ends (an arrow key's
 * keyup or a pointerup: the editor's "end") and when each re-translation starts and finishes.
 */
export async function watchRetranslations(page) {
  await page.evaluate(() => {
    const session = window.attnscope.session;
    if (window.__retranslated) return;
    window.__lastEditEnd = 0;
    window.__retranslated = [];
    addEventListener("pointerup", () => (window.__lastEditEnd = performance.now()), true);
    addEventListener("keyup", (e) => (e.key === "ArrowUp" || e.key === "ArrowDown") && (window.__lastEditEnd = performance.now()), true);
    const retranslate = session.retranslate;
    session.retranslate = async function (...args) {
      const start = performance.now();
      try {
        return await retranslate.apply(this, args);
      } finally {
        window.__retranslated.push(start);
      }
    };
  });
}

/** After watchRetranslations: wait for the re-translation the last edit's end started (it runs
 * after a pause, www/js/session.js edit) to finish: what the page shows is then settled. */
export async function editsSettled(page) {
  await page.waitForFunction(() => window.__retranslated.some((t) => t > window.__lastEditEnd), null, { timeout: 30_000 });
}

/** Centre of cell (r, c) of a matrix canvas, from its bounding box and its shape. */
export async function cellPoint(canvas, r, c, rows, cols) {
  const box = await canvas.boundingBox();
  return { x: box.x + 1 + ((c + 0.5) * (box.width - 2)) / cols, y: box.y + 1 + ((r + 0.5) * (box.height - 2)) / rows };
}
