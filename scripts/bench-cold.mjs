#!/usr/bin/env node
// Cold start of two built sites, side by side in one headless Chromium (not a test: prints figures).
//
//   node scripts/bench-cold.mjs OLD_SITE [NEW_SITE=dist]     e.g. a `make dist` of an older commit
//   BENCH_RUNS=10 BENCH_SENTENCE="..." node scripts/bench-cold.mjs ...
//
// Serves each site with scripts/serve.py on a port of its own, then loads the lab BENCH_RUNS
// times from each, alternating which site goes first, every load in a fresh browser context
// (nothing cached, no service worker) closed before the next. Prints, per site, the median and
// every value of `attnscope-first-translation` (navigation to the first translation on screen,
// the mark main.js sets), in ms, the same figure as `make bench-page`'s firstTranslationMs but
// before/after in one machine state; then the median time to `body[data-ready="1"]` (every
// panel drawn, those out of view too) and the canvas text drawn until a second after it
// (`fillText` calls: a panel drawn twice shows there).
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [oldSite, newSite = "dist"] = process.argv.slice(2);
if (!oldSite) {
  console.error("usage: node scripts/bench-cold.mjs OLD_SITE [NEW_SITE]");
  process.exit(2);
}
const RUNS = Number(process.env.BENCH_RUNS || 10);
const SENTENCE = process.env.BENCH_SENTENCE || "Emma hates games, but she's a great friend";
const sites = { old: path.resolve(oldSite), new: path.resolve(ROOT, newSite) };
const ports = { old: 8150, new: 8151 };
const servers = Object.keys(sites).map((k) =>
  spawn("python3", [path.join(ROOT, "scripts/serve.py"), sites[k]], { env: { ...process.env, PORT: String(ports[k]), QUIET: "1" }, stdio: "ignore" }),
);
let browser;
try {
  await new Promise((r) => setTimeout(r, 1000));
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  const times = { old: [], new: [] };
  const ready = { old: [], new: [] };
  const fills = { old: [], new: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const k of r % 2 ? ["new", "old"] : ["old", "new"]) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
      const page = await context.newPage();
      await page.addInitScript(() => {
        window.__fillText = 0;
        const fill = CanvasRenderingContext2D.prototype.fillText;
        CanvasRenderingContext2D.prototype.fillText = function (...args) {
          window.__fillText += 1;
          return fill.apply(this, args);
        };
        new MutationObserver((_, o) => {
          if (document.body?.dataset.ready === "1") (window.__readyAt = performance.now()), o.disconnect();
        }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
      });
      await page.goto(`http://127.0.0.1:${ports[k]}/?s=${encodeURIComponent(SENTENCE)}`);
      await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
      times[k].push(await page.evaluate(() => Math.round(performance.getEntriesByName("attnscope-first-translation")[0]?.startTime ?? NaN)));
      ready[k].push(await page.evaluate(() => Math.round(window.__readyAt)));
      await page.waitForTimeout(1000);
      fills[k].push(await page.evaluate(() => window.__fillText));
      await context.close();
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  for (const k of ["old", "new"]) console.log(`${k} (${sites[k]}): median ${median(times[k])} ms  ${JSON.stringify(times[k])}`);
  for (const k of ["old", "new"]) console.log(`${k}: every panel drawn (data-ready), median ${median(ready[k])} ms; canvas fillText calls, median ${median(fills[k])}`);
} finally {
  if (browser) await browser.close();
  for (const s of servers) s.kill();
}
