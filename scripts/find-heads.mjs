#!/usr/bin/env node
// Heads a reader can find in a model, found by measurement: for every head of every encoder
// layer, how much of a query's attention goes where a pattern says, averaged over a committed
// sentence set, run by the engine itself (pkg/, the subword build) in Node. The lab's guide
// (www/js/panels/heads_guide.js) states each pattern's best head with its measure and value, and
// the average head's, from the file this writes.
//
//   node scripts/find-heads.mjs        # www/models/minilm-l6.safetensors -> www/models/minilm-heads.json
//
// Patterns (w = one head's weights, row i = query i, T tokens, [CLS] first and [SEP] last):
//   previous     mean over i >= 1 of w[i][i-1]           the word before
//   next         mean over i <= T-2 of w[i][i+1]         the word after
//   cls          mean over i of w[i][0]                  the opening [CLS] (a "sink": nothing to read)
//   sep          mean over i of w[i][T-1]                the closing [SEP] (another sink)
//   punctuation  mean over i of the weight on the sentence's punctuation tokens
//   coreference  over tests/data/coref-en.tsv: w[pronoun][antecedent], the noun a pronoun stands for
//                (its first WordPiece when the vocabulary splits it: ji ##su)
// Sentences: the first 100 of tests/data/everyday-en.txt (written apart from every model), and
// the 20 coreference sentences.

import fs from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MODEL = process.argv[2] || "www/models/minilm-l6.safetensors";
const OUT = process.argv[3] || MODEL.replace(/\.safetensors$/, "-heads.json").replace(/-l6-heads/, "-heads");
const N = 100;

const glue = await import(join(ROOT, "pkg/attnscope.js"));
await glue.default({ module_or_path: fs.readFileSync(join(ROOT, "pkg/attnscope_subword_bg.wasm")) });
const lab = new glue.Lab(fs.readFileSync(join(ROOT, MODEL)));
const info = lab.info();
const site = info.sites.find((s) => s.stack === "encoder");
if (!site) throw new Error(`${MODEL} has no encoder`);
const { layers, heads } = site;

/** Every head's weights for one text: [layer][head] = {rows, cols, data}. */
function attention(text) {
  const src = lab.setSource(text);
  const trace = lab.run().trace;
  return { tokens: src.tokens, maps: trace.encoder.layers.map((l) => l.self_attn.sublayer.heads.map((h) => h.weights)) };
}

/** sums[l][h] += value of `measure` for every head; counts once per call. */
function accumulate(sums, maps, measure) {
  maps.forEach((row, l) => row.forEach((w, h) => (sums[l][h] += measure(w))));
}

const zeros = () => Array.from({ length: layers }, () => new Array(heads).fill(0));
const at = (w, i, j) => w.data[i * w.cols + j];
const isPunct = (tok) => /^[^\p{L}\p{N}\[\]]+$/u.test(tok);

const everyday = fs.readFileSync(join(ROOT, "tests/data/everyday-en.txt"), "utf8").split("\n").map((s) => s.trim()).filter(Boolean).slice(0, N);
const patterns = { previous: zeros(), next: zeros(), cls: zeros(), sep: zeros(), punctuation: zeros() };
let withPunct = 0;
for (const text of everyday) {
  const { tokens, maps } = attention(text);
  const T = tokens.length;
  const punct = tokens.map((t, j) => (isPunct(t) ? j : -1)).filter((j) => j >= 0);
  const mean = (f, from, to) => (w) => {
    let s = 0;
    for (let i = from; i < to; i++) s += f(w, i);
    return s / (to - from);
  };
  accumulate(patterns.previous, maps, mean((w, i) => at(w, i, i - 1), 1, T));
  accumulate(patterns.next, maps, mean((w, i) => at(w, i, i + 1), 0, T - 1));
  accumulate(patterns.cls, maps, mean((w, i) => at(w, i, 0), 0, T));
  accumulate(patterns.sep, maps, mean((w, i) => at(w, i, T - 1), 0, T));
  if (punct.length) {
    withPunct += 1;
    accumulate(patterns.punctuation, maps, mean((w, i) => punct.reduce((s, j) => s + at(w, i, j), 0), 0, T));
  }
}
const counts = { previous: everyday.length, next: everyday.length, cls: everyday.length, sep: everyday.length, punctuation: withPunct };

const coref = fs.readFileSync(join(ROOT, "tests/data/coref-en.tsv"), "utf8").split("\n").slice(1).filter(Boolean).map((l) => l.split("\t"));
patterns.coreference = zeros();
counts.coreference = 0;
for (const [text, pronoun, antecedent] of coref) {
  const { tokens, maps } = attention(text);
  // a name the vocabulary splits (ji ##su) counts from its first piece
  const piece = (word) => lab.tokenize(word).tokens.find((t) => !/^\[.*\]$/.test(t));
  const i = tokens.indexOf(piece(pronoun));
  const j = tokens.indexOf(piece(antecedent));
  if (i < 0 || j < 0) throw new Error(`${text}: no token ${i < 0 ? pronoun : antecedent} in ${tokens.join(" ")}`);
  counts.coreference += 1;
  accumulate(patterns.coreference, maps, (w) => at(w, i, j));
}

const out = { model: MODEL.replace(/^www\//, ""), sentences: { everyday: `tests/data/everyday-en.txt (first ${everyday.length})`, coreference: `tests/data/coref-en.tsv (${coref.length})` }, patterns: [] };
for (const [name, sums] of Object.entries(patterns)) {
  const n = counts[name];
  let best = { layer: 0, head: 0, value: -1 };
  let all = 0;
  sums.forEach((row, l) =>
    row.forEach((s, h) => {
      all += s / n;
      if (s / n > best.value) best = { layer: l, head: h, value: s / n };
    }),
  );
  out.patterns.push({ pattern: name, stack: "encoder", layer: best.layer, head: best.head, value: Number(best.value.toFixed(4)), average: Number((all / (layers * heads)).toFixed(4)), sentences: n });
}
fs.writeFileSync(join(ROOT, OUT), `${JSON.stringify(out, null, 1)}\n`);
for (const p of out.patterns) console.log(`${p.pattern.padEnd(12)} layer ${p.layer + 1} head ${p.head + 1}: ${p.value} (average head ${p.average}; ${p.sentences} sentences)`);
console.log(`wrote ${OUT}`);
