#!/usr/bin/env node
// Where an engine pass spends its time in headless Chromium (not a test: prints a profile).
//
//   node scripts/profile-engine.mjs                  Lab.setIds + Lab.run at 64 + 64 tokens
//   WHAT=logits N=32 node scripts/profile-engine.mjs Lab.logits (the bare pass) at 32 + 32
//   PKG=/path/to/pkg WASM=attnscope_bg.wasm ...      another wasm-bindgen build, another file
//
// Loops the pass for 4 s after 1 s of warm-up under the Chrome DevTools sampling profiler and
// prints the milliseconds per pass and each function's share of the samples (self time). For
// function names, profile a build that keeps them: `wasm-bindgen --keep-debug` on
// target/.../attnscope.wasm into a folder of its own, without wasm-opt, then PKG=that folder.
// Needs target/bench/ids.json (make bench-compare writes it: train/export_onnx.py --ids).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PORT = Number(process.env.PORT || 8177);
const PKG = path.resolve(ROOT, process.env.PKG || "pkg");
const WASM = process.env.WASM || "attnscope_relaxed_bg.wasm";
const N = Number(process.env.N || 64);
const WHAT = process.env.WHAT || "run";
const FILES = { "/model": "www/models/en-ko.safetensors", "/ids": "target/bench/ids.json" };

const server = http.createServer((req, res) => {
  const url = req.url.split("?")[0];
  const file = FILES[url] ? path.join(ROOT, FILES[url]) : url.startsWith("/pkg/") ? path.join(PKG, path.basename(url)) : null;
  if (url === "/") return res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>profile</title>");
  if (!file || !fs.existsSync(file)) return res.writeHead(404).end();
  const type = file.endsWith(".js") ? "text/javascript" : file.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
  res.writeHead(200, { "Content-Type": type }).end(fs.readFileSync(file));
});
await new Promise((r) => server.listen(PORT, "127.0.0.1", r));
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium" });
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.evaluate(async (wasm) => {
    const m = await import("/pkg/attnscope.js");
    await m.default({ module_or_path: `/pkg/${wasm}` });
    window.lab = new m.Lab(new Uint8Array(await (await fetch("/model")).arrayBuffer()));
    window.ids = await (await fetch("/ids")).json();
  }, WASM);
  const loop = (ms) =>
    page.evaluate(
      ({ n, what, ms }) => {
        const src = Uint32Array.from(ids[n].src);
        const tgt = Uint32Array.from(ids[n].tgt);
        const t0 = performance.now();
        let k = 0;
        while (performance.now() - t0 < ms) {
          if (what === "run") {
            lab.setIds(src, tgt);
            lab.run();
          } else lab.logits(src, tgt);
          k++;
        }
        return (performance.now() - t0) / k;
      },
      { n: N, what: WHAT, ms },
    );
  await loop(1000);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  await cdp.send("Profiler.start");
  const perPass = await loop(4000);
  const { profile } = await cdp.send("Profiler.stop");
  console.log(`${WHAT} at ${N} + ${N} tokens, ${WASM}: ${perPass.toFixed(3)} ms per pass`);
  const nodes = new Map(profile.nodes.map((x) => [x.id, x]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id).callFrame;
    const name = frame.functionName || frame.url || "?";
    const dt = profile.timeDeltas[i] || 0;
    self.set(name, (self.get(name) || 0) + dt);
    total += dt;
  });
  for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${name.slice(0, 110)}`);
  }
} finally {
  await browser.close();
  server.close();
}
