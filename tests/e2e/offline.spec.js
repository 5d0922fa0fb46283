// The offline editions (scripts/build-dist.mjs; `make dist` first):
//  - dist/ served with the strict CSP header while every request to another origin is blocked;
//  - the single file dist/attnscope.html opened from disk (file://), lab and lesson;
//  - a second visit to the served site after the server has stopped (service worker).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { test, expect } from "./fixtures.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DIST = path.join(ROOT, "dist");
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
// dist/ servers of their own, next to the suite's (E2E_PORT, default 8123: ports 8191-8193), so
// that two suites on one machine with different E2E_PORTs do not meet here
const PORT = Number(process.env.E2E_PORT || 8123) + 68;

test.beforeAll(() => {
  for (const f of ["index.html", "lesson.html", "sw.js", "attnscope.html", "pkg/attnscope_bg.wasm"]) {
    if (!fs.existsSync(path.join(DIST, f))) throw new Error(`dist/${f} is missing: run make dist`);
  }
});

/** Serve dist/ on a port of its own (scripts/serve.py, which sends the CSP); resolves once listening. */
function serveDist(port) {
  const proc = spawn("python3", ["scripts/serve.py", "dist"], { cwd: ROOT, env: { ...process.env, PORT: String(port), QUIET: "1" } });
  return new Promise((resolve, reject) => {
    proc.stdout.on("data", (d) => {
      if (String(d).includes("serving")) resolve(proc);
    });
    proc.on("exit", (code) => reject(new Error(`serve.py exited with ${code}`)));
  });
}

function stop(proc) {
  return new Promise((resolve) => {
    proc.removeAllListeners("exit");
    proc.on("exit", resolve);
    proc.kill();
  });
}

/** Console errors, uncaught exceptions and requests leaving `origin` (null: any non-file URL). */
function watch(page, origin) {
  const w = { errors: [], foreign: [] };
  page.on("console", (m) => m.type() === "error" && w.errors.push(m.text()));
  page.on("pageerror", (e) => w.errors.push(e.message));
  page.on("request", (r) => {
    const url = r.url();
    if (url.startsWith("data:") || url.startsWith("blob:")) return;
    if (origin === null ? !url.startsWith("file:") : new URL(url).origin !== origin) w.foreign.push(url);
  });
  return w;
}

/** The lesson has built its panels (its ready signal) and they show the engine's numbers. */
async function lessonWorks(page) {
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.locator("h2").first()).toBeVisible();
  await expect(page.locator("[data-test=p1-sum]")).toHaveAttribute("data-value", /^-?\d/);
  await expect(page.locator("[data-test=p9-translation]")).not.toHaveText(/^\s*$/);
}

async function labWorks(page) {
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.locator("#translation")).not.toHaveText("");
  await expect(page.getByRole("table", { name: "encoder self-attention weights, layer 1, head 1", exact: true })).toHaveCount(1);
}

/** A first visit to the lab, then a reload once the service worker has installed (precached everything) and controls the page. */
async function controlledVisit(page, origin) {
  await page.goto(`${origin}/`);
  await labWorks(page);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await page.reload();
  await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
}

test("the built site works under the strict CSP with every other origin blocked", async ({ page }, testInfo) => {
  const proc = await serveDist(PORT);
  try {
    const origin = `http://127.0.0.1:${PORT}`;
    await page.route("**/*", (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
    const w = watch(page, origin);
    const res = await page.goto(`${origin}/`);
    expect(res.headers()["content-security-policy"]).toContain(CSP);
    await labWorks(page);
    await page.screenshot({ path: testInfo.outputPath("dist-lab.png"), fullPage: true });
    await page.goto(`${origin}/lesson.html`);
    await lessonWorks(page);
    // the playground trains in its worker under the same policy
    await page.goto(`${origin}/train.html?steps=30`);
    await expect(page.locator('[data-test="run-status"]')).toHaveAttribute("data-step", "30", { timeout: 30_000 });
    await expect(page.locator('[data-test="speed"]')).toContainText("background worker");
    expect(w.errors, "console errors (a CSP violation is one)").toEqual([]);
    expect(w.foreign, "requests to another origin").toEqual([]);
  } finally {
    await stop(proc);
  }
});

test("the single file works from disk: lab and lesson, nothing fetched", async ({ page }, testInfo) => {
  const url = pathToFileURL(path.join(DIST, "attnscope.html")).href;
  const w = watch(page, null);
  await page.goto(url);
  await labWorks(page);
  await page.screenshot({ path: testInfo.outputPath("single-file-lab.png"), fullPage: true });
  expect(await page.locator("#lesson-link").getAttribute("href")).toMatch(/^\?.*page=lesson/);
  // the lab's link to the lesson stays inside the single file
  await page.goto(`${url}?page=lesson`);
  await expect(page.locator("html")).toHaveAttribute("data-page", "lesson");
  await lessonWorks(page);
  await page.screenshot({ path: testInfo.outputPath("single-file-lesson.png"), fullPage: true });
  const lab = page.getByRole("link", { name: /lab/i }).first();
  expect(await lab.getAttribute("href")).toMatch(/^\?.*page=lab/);
  // the playground too: no worker script to start from a file, so it trains on the page's thread
  await page.goto(`${url}?page=train&steps=30`);
  await expect(page.locator('[data-test="run-status"]')).toHaveAttribute("data-step", "30", { timeout: 30_000 });
  await expect(page.locator('[data-test="speed"]')).toContainText("on the page's own thread");
  await page.screenshot({ path: testInfo.outputPath("single-file-train.png"), fullPage: true });
  expect(w.errors).toEqual([]);
  expect(w.foreign, "the single file fetches nothing").toEqual([]);
});

test("on a first visit the service worker registers (and starts its downloads) only once the first translation is on screen", async ({ page }) => {
  const origin = `http://127.0.0.1:${PORT + 2}`;
  const proc = await serveDist(PORT + 2);
  try {
    await page.addInitScript(() => {
      const container = navigator.serviceWorker;
      const register = container.register.bind(container);
      container.register = (...args) => {
        window.__swRegisteredAt = performance.now();
        return register(...args);
      };
    });
    await page.goto(`${origin}/`);
    await labWorks(page);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    const t = await page.evaluate(() => {
      const end = (suffix) => performance.getEntriesByType("resource").find((r) => r.name.endsWith(suffix))?.responseEnd;
      const shown = performance.getEntriesByName("attnscope-first-translation")[0]?.startTime;
      return { sw: window.__swRegisteredAt, model: end("/models/en-ko.safetensors"), wasm: end("_bg.wasm"), shown };
    });
    expect(t.sw, "the worker registered").toBeGreaterThan(0);
    expect(t.shown, "the first translation was shown before").toBeLessThan(t.sw);
    expect(t.model, "the model arrived before").toBeLessThan(t.sw);
    expect(t.wasm, "the engine arrived before").toBeLessThan(t.sw);
  } finally {
    await stop(proc);
  }
});

test("a second visit works with the server stopped", async ({ page }) => {
  const origin = `http://127.0.0.1:${PORT + 1}`;
  const proc = await serveDist(PORT + 1);
  let stopped = false;
  try {
    await controlledVisit(page, origin);
    await stop(proc);
    stopped = true;
    await expect(page.request.get(`${origin}/`).catch(() => "down")).resolves.toBe("down");
    await page.goto(`${origin}/?s=${encodeURIComponent("the sister carried the brother")}`);
    await labWorks(page);
    await page.goto(`${origin}/lesson.html`);
    await lessonWorks(page);
  } finally {
    if (!stopped) await stop(proc);
  }
});

test("a model kept for offline use (Keep for offline use) opens with the server stopped; one not kept says it cannot download", async ({ page }) => {
  const origin = `http://127.0.0.1:${PORT + 2}`;
  const proc = await serveDist(PORT + 2);
  let stopped = false;
  try {
    await controlledVisit(page, origin);
    await labWorks(page);
    const status = page.locator("#open-status");
    await page.getByRole("radio", { name: "Tiny GPT (trained here, next word)" }).check();
    await expect(status).toContainText("Showing Tiny GPT", { timeout: 30_000 });
    await page.getByRole("button", { name: "Keep for offline use" }).click();
    await expect(status).toContainText("Tiny GPT (trained here, next word) is kept");
    await expect(page.locator(".model-option", { hasText: "Tiny GPT" })).toContainText("kept for offline use");

    await stop(proc);
    stopped = true;
    await page.goto(`${origin}/`);
    await labWorks(page);
    await page.getByRole("radio", { name: "Tiny GPT (trained here, next word)" }).check();
    await expect(status).toContainText("Showing Tiny GPT", { timeout: 30_000 });
    await expect(page.locator('[data-test="prediction"] .bar-row').first()).toBeVisible();
    // MiniLM was never kept: offline, it says so, and the model shown stays (its radio button
    // goes back to Tiny GPT at once: a click, not check(), which would wait for it to stay on)
    await page.getByRole("radio", { name: "MiniLM (pretrained, any English)" }).click();
    await expect(status).toContainText("MiniLM (pretrained, any English) could not be downloaded");
    await expect(page.locator('[data-test="prediction"] .bar-row').first()).toBeVisible();
    await expect(page.getByRole("radio", { name: "Tiny GPT (trained here, next word)" })).toBeChecked();
  } finally {
    if (!stopped) await stop(proc);
  }
});
