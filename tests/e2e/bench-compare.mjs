#!/usr/bin/env node
// attnscope vs onnxruntime-web on the committed demo model, or on the pretrained MiniLM, in one
// headless Chromium (not a test: prints figures).
//
//   make bench-compare          (exports the ONNX models and the ids first, then runs this twice)
//   BENCH_FAMILY=minilm node tests/e2e/bench-compare.mjs   (MiniLM: see below)
//   BENCH_RUNS=400 BENCH_WARMUP=50 node tests/e2e/bench-compare.mjs
//   BENCH_BASELINE_PKG=/path/to/old/pkg node tests/e2e/bench-compare.mjs   (+ an older build of
//       the engine, interleaved in the same rounds: before/after in one machine state)
//   BENCH_WASM=pkg/attnscope_subword_bg.wasm ...   another engine build of pkg/ than the page's
//
// Needs: pkg/ (scripts/build-wasm.sh), target/bench/en-ko.onnx and target/bench/ids.json
// (train/export_onnx.py --ids), and the npm devDependency onnxruntime-web (never part of the
// site). Serves the repository from a throwaway Node server (cross-origin isolated, so that
// performance.now() has microsecond resolution; both engines run on one thread), and times,
// at each length, on exactly the ids of ids.json:
//   bare   Lab.logits(src, tgt): the engine's forward pass, the logits copied to a Float32Array
//   run    Lab.setIds(src, tgt) + Lab.run(): a forward pass with the full trace built as JS
//          objects, the encoder cache cleared (what the page pays when the sentence or an
//          encoder weight changes)
//   recycled  the same as run, on a second Lab that hands back its last trace first
//          (Lab.recycleTrace): the trace is written into the last one's memory, not fresh
//          buffers (what a loop that runs every frame and keeps only the newest trace pays)
//   frame  the same as a frame of a drag (Lab.run given the page's matrix maker, engine.js),
//          then every head's weights, logits, values and output read (more than any frame
//          draws: the all-heads grid reads the weights of one stack, the selected head the rest)
//   ort    onnxruntime-web (wasm, SIMD, 1 thread) InferenceSession.run: logits only
// with BENCH_WARMUP warm-up rounds (20) then BENCH_RUNS rounds (200), the three engines
// interleaved in each round (the order rotates). Before timing, the logits of `bare` and
// `ort` must agree to 1e-4 (max |diff|). Prints medians and p95 in ms and the ratios to
// onnxruntime-web: of the medians, and [in brackets] the median of the per-round ratios, which
// a loaded machine disturbs less.
//
// BENCH_FAMILY=minilm: www/models/minilm-l6.safetensors (all-MiniLM-L6-v2, int8, encoder-only,
// no head) in the subword build pkg/attnscope_subword_bg.wasm (the one the page loads for it:
// WordPiece), against target/bench/minilm.onnx and target/bench/minilm-ids.json (train/
// export_onnx.py --minilm: transformers' BertModel holding the file's weights dequantised as the
// engine does, last hidden state out), at 32 and 128 tokens ([CLS], everyday sentences, [SEP]).
// A model without a head has no bare forward in the engine's API (Lab.logits says so: there
// are no logits), so `bare` gives way to
//   hidden Lab.setIds(src, []) + Lab.run(maker) with only trace.encoder.memory (S, d_model) read:
//          the cheapest way to the last hidden state (every matrix left in wasm memory but that)
// and run / frame are as above (encoder only), ort returns the hidden state (S, d_model). Before
// timing, run's trace.encoder.memory and hidden's must agree with ort's to 1e-4.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PORT = Number(process.env.BENCH_PORT || 8125);
const RUNS = Number(process.env.BENCH_RUNS || 200);
const WARMUP = Number(process.env.BENCH_WARMUP || 20);
const FAMILY = process.env.BENCH_FAMILY || "demo";
if (!["demo", "minilm"].includes(FAMILY)) throw new Error(`bench-compare: BENCH_FAMILY is demo or minilm, not ${FAMILY}`);
const MINILM = FAMILY === "minilm";
const ONNX = process.env.BENCH_ONNX || (MINILM ? "target/bench/minilm.onnx" : "target/bench/en-ko.onnx");
const IDS = process.env.BENCH_IDS || (MINILM ? "target/bench/minilm-ids.json" : "target/bench/ids.json");
const MODEL = process.env.ATTNSCOPE_MODEL || (MINILM ? "www/models/minilm-l6.safetensors" : "www/models/en-ko.safetensors");
const TOL = 1e-4;
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
const PAGE = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench-compare</title><body>bench-compare</body>`;

for (const f of [ONNX, IDS, "pkg/attnscope.js", "node_modules/onnxruntime-web/dist/ort.wasm.min.mjs"]) {
  if (!fs.existsSync(path.resolve(ROOT, f))) throw new Error(`bench-compare: ${f} is missing (run make bench-compare)`);
}

// Only the files the benchmark needs, from the repository.
const BASELINE = process.env.BENCH_BASELINE_PKG;
const ALLOWED = { "/pkg/": "pkg/", "/js/": "www/js/", "/ort/": "node_modules/onnxruntime-web/dist/", ...(BASELINE ? { "/base/": path.resolve(BASELINE) + "/" } : {}) };
const FILES = { "/model.safetensors": MODEL, "/model.onnx": ONNX, "/ids.json": IDS };
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split("?")[0]);
  let file = FILES[url];
  for (const [prefix, dir] of Object.entries(ALLOWED)) if (url.startsWith(prefix)) file = dir + path.basename(url);
  const headers = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp", "Cache-Control": "no-cache" };
  if (url === "/") return res.writeHead(200, { ...headers, "Content-Type": "text/html" }).end(PAGE);
  if (!file || !fs.existsSync(path.resolve(ROOT, file))) return res.writeHead(404, headers).end();
  res.writeHead(200, { ...headers, "Content-Type": TYPES[path.extname(file)] || "application/octet-stream" });
  fs.createReadStream(path.resolve(ROOT, file)).pipe(res);
});
await new Promise((r) => server.listen(PORT, "127.0.0.1", r));

let browser;
try {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${PORT}/`);

  const result = await page.evaluate(
    async ({ RUNS, WARMUP, TOL, BASELINE, MINILM, WASM }) => {
      // the build of the engine the page loads in this browser (www/js/runtime.js)
      const { wasmPath } = await import("/js/runtime.js");
      const { frameMatrixMaker } = await import("/js/engine.js");
      // "pkg/attnscope_relaxed_bg.wasm" where relaxed SIMD runs; MiniLM's WordPiece: the subword build
      const wasm = WASM || wasmPath(MINILM);
      const ours = await import("/pkg/attnscope.js");
      await ours.default({ module_or_path: `/${wasm}` });
      const ort = await import("/ort/ort.wasm.min.mjs");
      ort.env.wasm.wasmPaths = "/ort/";
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.simd = true;
      const bytes = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
      const lab = new ours.Lab(await bytes("/model.safetensors"));
      // its own Lab: in the rounds' rotating order, another engine's run would come between
      const reuse = new ours.Lab(await bytes("/model.safetensors"));
      const recycled = (src, tgt) => {
        reuse.recycleTrace();
        reuse.setIds(src, tgt);
        return reuse.run();
      };
      const maker = frameMatrixMaker({ lab, guarded: (f) => f() }, lab);
      const session = await ort.InferenceSession.create(await bytes("/model.onnx"), { executionProviders: ["wasm"], graphOptimizationLevel: "all" });
      const ids = await (await fetch("/ids.json")).json();
      let base = null;
      if (BASELINE) {
        const old = await import("/base/attnscope.js");
        const has = async (u) => (await fetch(u, { method: "HEAD" })).ok;
        const oldWasm = `/base/${wasm.split("/").pop()}`;
        await old.default(await has(oldWasm) ? { module_or_path: oldWasm } : undefined);
        base = new old.Lab(await bytes("/model.safetensors"));
      }

      const q = (s, p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
      const out = { wasm, simd: lab.info().simd, crossOriginIsolated, ortVersion: ort.env.versions?.web ?? "?", rows: [] };
      if (MINILM) {
        try {
          lab.logits(Uint32Array.from(ids[Object.keys(ids)[0]].src), new Uint32Array(0));
          out.bare = "Lab.logits ran";
        } catch (e) {
          out.bare = `Lab.logits: ${e.message}`;
        }
      }
      for (const n of Object.keys(ids).map(Number).sort((a, b) => a - b)) {
        if (MINILM) {
          out.rows.push(await encoderRow(Uint32Array.from(ids[n].src)));
          continue;
        }
        const src = Uint32Array.from(ids[n].src);
        const tgt = Uint32Array.from(ids[n].tgt);
        const feeds = () => ({
          src: new ort.Tensor("int64", BigInt64Array.from(ids[n].src, BigInt), [1, src.length]),
          tgt: new ort.Tensor("int64", BigInt64Array.from(ids[n].tgt, BigInt), [1, tgt.length]),
        });
        const engines = {
          bare: async () => lab.logits(src, tgt),
          run: async () => {
            lab.setIds(src, tgt);
            return lab.run();
          },
          recycled: async () => recycled(src, tgt),
          frame: async () => {
            lab.setIds(src, tgt);
            const { trace } = lab.run(maker);
            let n = 0;
            const attentions = [...trace.encoder.layers.map((l) => l.self_attn), ...trace.decoder.layers.flatMap((l) => [l.self_attn, l.cross_attn])];
            for (const a of attentions) for (const h of a.sublayer.heads) n += h.weights.data.length + h.logits.data.length + h.v.data.length + h.output.data.length;
            return n;
          },
          ort: async () => (await session.run(feeds())).logits.data,
        };
        if (base) {
          engines["base bare"] = async () => base.logits(src, tgt);
          engines["base run"] = async () => {
            base.setIds(src, tgt);
            return base.run();
          };
        }
        // the two engines' logits agree
        const a = await engines.bare();
        const b = await engines.ort();
        let diff = a.length === b.length ? 0 : Infinity;
        for (let i = 0; i < a.length && diff !== Infinity; i++) diff = Math.max(diff, Math.abs(a[i] - b[i]));
        const trace = (await engines.run()).trace;
        await engines.recycled();
        const again = (await engines.recycled()).trace; // written into the memory of the one before
        let diffRun = 0;
        for (const t of [trace.decoder.logits.data, again.decoder.logits.data]) for (let i = 0; i < a.length; i++) diffRun = Math.max(diffRun, Math.abs(a[i] - t[i]));
        const row = { tokens: `${src.length}+${tgt.length}`, output: `logits ${tgt.length}x${a.length / tgt.length}`, maxAbsDiff: diff, agree: diff <= TOL && diffRun <= TOL };
        out.rows.push(await timed(row, engines));
      }
      return out;

      // MiniLM (encoder only, no head): the ids (S) -> the last hidden state (S, d_model)
      async function encoderRow(src) {
        const none = new Uint32Array(0);
        const feeds = () => ({ input_ids: new ort.Tensor("int64", BigInt64Array.from(src, BigInt), [1, src.length]) });
        const engines = {
          hidden: async () => {
            lab.setIds(src, none);
            return lab.run(maker).trace.encoder.memory.data;
          },
          run: async () => {
            lab.setIds(src, none);
            return lab.run();
          },
          recycled: async () => recycled(src, none),
          frame: async () => {
            lab.setIds(src, none);
            const { trace } = lab.run(maker);
            let n = 0;
            for (const l of trace.encoder.layers) for (const h of l.self_attn.sublayer.heads) n += h.weights.data.length + h.logits.data.length + h.v.data.length + h.output.data.length;
            return n;
          },
          ort: async () => (await session.run(feeds())).hidden.data,
        };
        if (base) {
          const baseMaker = frameMatrixMaker({ lab: base, guarded: (f) => f() }, base);
          engines["base hidden"] = async () => {
            base.setIds(src, none);
            return base.run(baseMaker).trace.encoder.memory.data;
          };
          engines["base run"] = async () => {
            base.setIds(src, none);
            return base.run();
          };
        }
        const b = await engines.ort();
        const diffTo = (a) => (a.length === b.length ? a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0) : Infinity);
        const memory = (await engines.run()).trace.encoder.memory;
        await engines.recycled();
        const diff = Math.max(diffTo(memory.data), diffTo((await engines.recycled()).trace.encoder.memory.data));
        const diffHidden = diffTo(await engines.hidden());
        const row = { tokens: `${src.length}`, output: `hidden ${memory.rows}x${memory.cols}`, maxAbsDiff: Math.max(diff, diffHidden), agree: diff <= TOL && diffHidden <= TOL };
        return timed(row, engines);
      }

      // WARMUP + RUNS rounds of every engine, interleaved (the order rotates) -> row + timings
      async function timed(row, engines) {
        const names = Object.keys(engines);
        const times = Object.fromEntries(names.map((k) => [k, []]));
        for (let r = 0; r < WARMUP + RUNS; r++) {
          for (let j = 0; j < names.length; j++) {
            const k = names[(r + j) % names.length];
            const t0 = performance.now();
            await engines[k]();
            const dt = performance.now() - t0;
            if (r >= WARMUP) times[k].push(dt);
          }
        }
        for (const k of names) {
          const s = times[k].sort((x, y) => x - y);
          row[k] = { median: q(s, 0.5), p95: q(s, 0.95) };
        }
        // ratio of medians, and the median of per-round ratios (the engines ran back to back
        // in each round): the second is less disturbed by a slow patch on a loaded machine
        for (const k of names) {
          row[k].ratio = row[k].median / row.ort.median;
          row[k].paired = q(times[k].map((t, i) => t / times.ort[i]).sort((x, y) => x - y), 0.5);
        }
        return row;
      }
    },
    { RUNS, WARMUP, TOL, BASELINE: Boolean(BASELINE), MINILM, WASM: process.env.BENCH_WASM || "" },
  );

  const f = (x) => x.toFixed(3);
  console.log(`bench-compare: ${MODEL}, attnscope (${result.wasm}, ${result.simd}) vs onnxruntime-web ${result.ortVersion} (wasm, SIMD, 1 thread), headless Chromium, crossOriginIsolated=${result.crossOriginIsolated}`);
  console.log(`${WARMUP} warm-up + ${RUNS} interleaved rounds; ms: median (p95); ratio to onnxruntime-web: of the medians [median of per-round ratios]`);
  if (MINILM) {
    console.log(`no bare forward for a model without a head (${result.bare})`);
    console.log("hidden = Lab.setIds + Lab.run(maker), only the last hidden state read, run = Lab.setIds + Lab.run (full trace as JS objects), recycled = the same after Lab.recycleTrace (into the last trace's memory), frame = the same as a drag frame, every head's weights, logits, v and output read, ort = onnxruntime-web, last hidden state only");
  } else {
    console.log("bare = Lab.logits (logits only), run = Lab.setIds + Lab.run (full trace as JS objects, encoder not cached), recycled = the same after Lab.recycleTrace (into the last trace's memory), frame = the same as a drag frame, every head's weights, logits, v and output read, ort = onnxruntime-web, logits only");
  }
  for (const r of result.rows) {
    console.log(`${r.tokens} tokens, ${r.output}, max |attnscope - ort| = ${r.maxAbsDiff.toExponential(1)}`);
    for (const k of Object.keys(r).filter((k) => r[k] && r[k].median !== undefined)) {
      const ratio = k === "ort" ? "" : `   ${r[k].ratio.toFixed(2)} [${r[k].paired.toFixed(2)}] x ORT`;
      console.log(`  ${k.padEnd(10)} ${f(r[k].median).padStart(7)} (${f(r[k].p95)})${ratio}`);
    }
  }
  if (errors.length) console.log("page errors:", errors);
  const bad = result.rows.filter((r) => !r.agree);
  if (bad.length) {
    console.error(`bench-compare: ${MINILM ? "hidden states" : "logits"} differ by more than ${TOL} at ${bad.map((r) => r.tokens).join(", ")}`);
    process.exitCode = 1;
  }
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify(result, null, 2));
} finally {
  if (browser) await browser.close();
  server.close();
}
