#!/usr/bin/env node
// The engine's first calls in a fresh page, two builds side by side in one headless Chromium
// (not a test: prints figures).
//
//   node scripts/bench-load.mjs OLD_PKG_DIR [NEW_PKG_DIR=pkg]      e.g. scripts/build-wasm.sh of an older commit
//   BENCH_RUNS=20 BENCH_SENTENCE="..." node scripts/bench-load.mjs ...
//
// A cold start runs the engine's first calls before V8 has optimised any of its code: the
// model file's loading (`new Lab`) and the first translation take two to three times what
// they take later. This times exactly those, with nothing else of the page around them. Each
// load is a fresh browser context (nothing cached) that fetches the build's glue and the
// browser's engine build (relaxed SIMD where the browser has it, as js/runtime.js picks),
// instantiates it, then times `new Lab(model bytes)` and `setSource` + `translate` of the
// sentence, then the median of 20 more translations (warm). BENCH_RUNS (16) loads per build,
// alternating which goes first; prints the medians per build and their ratio new / old.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const [oldDir, newDir = "pkg"] = process.argv.slice(2);
if (!oldDir) {
  console.error("usage: node scripts/bench-load.mjs OLD_PKG_DIR [NEW_PKG_DIR]");
  process.exit(2);
}
const RUNS = Number(process.env.BENCH_RUNS || 16);
const SENTENCE = process.env.BENCH_SENTENCE || "Emma hates games, but she's a great friend";
const dirs = { old: path.resolve(oldDir), new: path.resolve(ROOT, newDir) };
const model = fs.readFileSync(path.join(ROOT, "www/models/en-ko.safetensors"));

// / an empty page, /old/... and /new/... serve each build's files, /js/runtime.js the page's, /model the
// committed demo model
const server = http.createServer((req, res) => {
  const [, which, file] = req.url.split("?")[0].split("/");
  if (!which) return res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>load</title>");
  if (which === "model") return res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(model);
  const dir = which === "js" ? path.join(ROOT, "www/js") : dirs[which];
  const full = dir && path.join(dir, path.basename(file || ""));
  if (!file || !full || !fs.existsSync(full)) return res.writeHead(404).end();
  const type = full.endsWith(".wasm") ? "application/wasm" : full.endsWith(".js") ? "text/javascript" : "text/html";
  res.writeHead(200, { "Content-Type": type }).end(fs.readFileSync(full));
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox"] });
try {
  const times = { old: { lab: [], translate: [], warm: [] }, new: { lab: [], translate: [], warm: [] } };
  for (let r = 0; r < RUNS; r++) {
    for (const k of r % 2 ? ["new", "old"] : ["old", "new"]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${base}/`); // an empty page: an origin to run in
      const t = await page.evaluate(
        async ({ k, sentence }) => {
          const m = await import(`/${k}/attnscope.js`);
          const wasm = (await import("/js/runtime.js")).wasmPath().split("/").pop(); // the page's pick
          const [bytes] = await Promise.all([fetch("/model").then((r) => r.arrayBuffer()), m.default({ module_or_path: fetch(`/${k}/${wasm}`) })]);
          let t0 = performance.now();
          const lab = new m.Lab(new Uint8Array(bytes));
          const labMs = performance.now() - t0;
          t0 = performance.now();
          lab.setSource(sentence);
          lab.translate();
          const translateMs = performance.now() - t0;
          // then warm: the median of 20 more (V8 has optimised the hot code by then)
          const warm = [];
          for (let i = 0; i < 20; i++) {
            t0 = performance.now();
            lab.translate();
            warm.push(performance.now() - t0);
          }
          return { lab: labMs, translate: translateMs, warm: warm.sort((a, b) => a - b)[10], wasm };
        },
        { k, sentence: SENTENCE },
      );
      times[k].lab.push(t.lab);
      times[k].translate.push(t.translate);
      times[k].warm.push(t.warm);
      if (r === 0 && k === "old") console.log(`engine build: ${t.wasm}`);
      await context.close();
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(`${RUNS} fresh pages per build, medians in ms (old -> new, ratio new / old):`);
  for (const what of ["lab", "translate", "warm"]) {
    const o = median(times.old[what]);
    const n = median(times.new[what]);
    const label = { lab: "first new Lab(model)", translate: "first translate", warm: "translate, warm" }[what];
    console.log(`  ${label.padEnd(22)} ${o.toFixed(1).padStart(6)} -> ${n.toFixed(1).padStart(6)}   ${(n / o).toFixed(2)}`);
  }
} finally {
  await browser.close();
  server.close();
}
