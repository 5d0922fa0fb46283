#!/usr/bin/env node
// The training playground's speed in headless Chromium (not a test: prints figures).
//
//   make bench-train            (builds dist/ first)
//   BENCH_RUNS=5 BENCH_PORT=8125 node tests/e2e/bench-train.mjs
//   BENCH_QUERY="layers=4" ...  another preset (the playground's URL parameters)
//
// For each run, a fresh page of train.html with the preset (default: the playground's own,
// reverse of length 8, 1 layer, 2 heads, d_model 32, batch 16) and `steps=300`: it trains to step
// 300 in its Web Worker while drawing, as a reader sees it. Printed, as JSON (median, min, max
// over the runs):
//   stepsPerSecond    the page's own figure: training steps per second of the worker's
//                     Trainer.train calls (the step's forward, backward and Adam update)
//   wallStepsPerSecond  300 steps over the wall time from Play to step 300, everything
//                     included (held-out evaluation every 25 steps, the panels following the
//                     model, the curves)
//   solvedStep, solvedTrainingSeconds, solvedWallSeconds   when held-out accuracy first
//                     reached 95%: the step, the training time the page reports, and the wall
//                     time from Play
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PORT = Number(process.env.BENCH_PORT || 8125);
const RUNS = Number(process.env.BENCH_RUNS || 3);
const STEPS = 300;
const QUERY = process.env.BENCH_QUERY || "";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"];

async function waitForServer(url, ms = 15000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not start on ${url}`);
}

function summary(values) {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const r = (x) => Math.round(x * 100) / 100;
  return s.length ? { median: r(s[Math.floor((s.length - 1) / 2)]), min: r(s[0]), max: r(s[s.length - 1]) } : null;
}

const server = spawn("python3", ["scripts/serve.py", "dist"], { cwd: ROOT, env: { ...process.env, PORT: String(PORT), QUIET: "1" }, stdio: ["ignore", "ignore", "inherit"] });
let browser;
try {
  const base = `http://127.0.0.1:${PORT}/`;
  await waitForServer(base);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}train.html?${QUERY ? `${QUERY}&` : ""}steps=${STEPS}`, { waitUntil: "load" });
    // the link plays by itself once step 0 is shown: time from there
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    const t0 = Date.now();
    let solvedWall = NaN;
    const status = page.locator('[data-test="run-status"]');
    while (true) {
      const [step, solved] = await Promise.all([status.getAttribute("data-step"), page.locator('[data-test="solved"]').getAttribute("data-solved-step")]);
      if (solved && Number.isNaN(solvedWall)) solvedWall = (Date.now() - t0) / 1000;
      if (Number(step) >= STEPS) break;
      if (Date.now() - t0 > 300000) throw new Error("the run did not reach its step in 5 minutes");
      await page.waitForTimeout(20);
    }
    const wall = (Date.now() - t0) / 1000;
    const rate = Number(await page.locator('[data-test="speed"]').getAttribute("data-rate"));
    const solvedText = await page.locator('[data-test="solved"]').textContent();
    const m = solvedText.match(/step (\d+), after ([\d.]+) s/);
    runs.push({ rate, wallRate: STEPS / wall, solvedStep: m ? Number(m[1]) : NaN, solvedTraining: m ? Number(m[2]) : NaN, solvedWall });
    await page.close();
  }
  console.log(
    JSON.stringify(
      {
        preset: QUERY || "default (reverse, length 8, 1 layer, 2 heads, d_model 32, batch 16, Adam 3e-3, seed 1)",
        runs: RUNS,
        steps: STEPS,
        stepsPerSecond: summary(runs.map((r) => r.rate)),
        wallStepsPerSecond: summary(runs.map((r) => r.wallRate)),
        solvedStep: summary(runs.map((r) => r.solvedStep)),
        solvedTrainingSeconds: summary(runs.map((r) => r.solvedTraining)),
        solvedWallSeconds: summary(runs.map((r) => r.solvedWall)),
      },
      null,
      2,
    ),
  );
} finally {
  await browser?.close();
  server.kill();
}
