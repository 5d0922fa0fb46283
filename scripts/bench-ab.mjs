#!/usr/bin/env node
// Two builds of the engine, interleaved in one Node process (not a test: prints figures).
//
//   node scripts/bench-ab.mjs OLD_PKG_DIR [NEW_PKG_DIR=pkg]        Lab.logits (the bare pass)
//   BENCH_WHAT=run node scripts/bench-ab.mjs OLD_PKG_DIR           Lab.setIds + Lab.run (full trace)
//   BENCH_WHAT=translate node scripts/bench-ab.mjs OLD_PKG_DIR     Lab.translate (greedy + its trace) of
//                                                                  sentences of 10, 32 and 64 tokens
//
// Both builds load the committed demo model and run the ids of target/bench/ids.json
// (train/export_onnx.py --ids, as make bench-compare writes them) at 8, 32 and 64 tokens:
// 20 warm-up rounds, then BENCH_RUNS (200) rounds alternating which build goes first. Prints the
// medians, their ratio new / old, and whether the two builds' logits are bit-identical.
import fs from "node:fs";
import path from "node:path";

const [oldDir, newDir = "pkg"] = process.argv.slice(2);
if (!oldDir) throw new Error("usage: node scripts/bench-ab.mjs OLD_PKG_DIR [NEW_PKG_DIR]");
const RUNS = Number(process.env.BENCH_RUNS || 200);
const WHAT = process.env.BENCH_WHAT || "logits";
const model = fs.readFileSync("www/models/en-ko.safetensors");
const ids = JSON.parse(fs.readFileSync("target/bench/ids.json", "utf8"));

async function load(dir) {
  const abs = path.resolve(dir);
  const m = await import(path.join(abs, "attnscope.js"));
  m.initSync({ module: fs.readFileSync(path.join(abs, "attnscope_bg.wasm")) });
  return new m.Lab(model);
}
const labs = { old: await load(oldDir), new: await load(newDir) };
const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
// the sentences of `make bench-page` (32 and 64 tokens) and the page's default (10)
const SENTENCE_32 = "My mother doesn't give the farmer my sweet rice at the old hospital because the mother usually carries the big umbrella with the young daughter at the quiet farm today.";
const SENTENCES = {
  8: "Emma hates games, but she's a great friend",
  32: SENTENCE_32,
  64: SENTENCE_32.replace(/\.$/, "") + " and my father doesn't give the teacher his old books at the new school because the teacher often reads the long letters from the kind friends at the big park again.",
};
for (const n of [8, 32, 64]) {
  const src = Uint32Array.from(ids[n].src);
  const tgt = Uint32Array.from(ids[n].tgt);
  if (WHAT === "translate") for (const k in labs) labs[k].setSource(SENTENCES[n]);
  const once = (lab) => (WHAT === "run" ? (lab.setIds(src, tgt), lab.run()) : WHAT === "translate" ? lab.translate() : lab.logits(src, tgt));
  for (let i = 0; i < 20; i++) for (const k in labs) once(labs[k]);
  const ms = { old: [], new: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const k of i % 2 ? ["old", "new"] : ["new", "old"]) {
      const t0 = performance.now();
      once(labs[k]);
      ms[k].push(performance.now() - t0);
    }
  }
  const a = labs.old.logits(src, tgt);
  const b = labs.new.logits(src, tgt);
  const same = a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  const [mo, mn] = [median(ms.old), median(ms.new)];
  const what = WHAT === "translate" ? `translate (${labs.new.setSource(SENTENCES[n]).tokens.length} tokens)` : `${WHAT} ${n}+${n}`;
  console.log(`${what}: old ${mo.toFixed(3)} ms, new ${mn.toFixed(3)} ms, new / old ${(mn / mo).toFixed(3)}, logits (${n}+${n}) bit-identical: ${same}`);
}
