#!/usr/bin/env node
// Build the offline editions of the site from www/ and pkg/ (run scripts/build-wasm.sh first):
//
//   dist/                 the complete static site: pages, js (each page's modules also as one
//                         bundle, js/lab.bundle.js and js/lesson.bundle.js), css, wasm, model
//                         and vectors.
//                         Works from any static host with no network under the strict CSP
//                         `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'` (no inline
//                         script, no eval). Each page gets <meta name="attnscope-sw">, which tells
//                         www/js/offline.js to register dist/sw.js, so repeat visits work offline.
//   dist/sw.js            the service worker: precaches every file of the site, cache-first.
//   dist/attnscope.html   ONE self-contained file (lab and lesson, wasm, model, vectors inlined)
//                         that works when opened from disk (file://): for a USB stick or e-mail.
//
// Usage: node scripts/build-dist.mjs   (make dist)

import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { SITE_MODELS } from "../www/js/models.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const WWW = join(ROOT, "www");
const PKG = join(ROOT, "pkg");
const DIST = join(ROOT, "dist");

function fail(message) {
  console.error(`build-dist: ${message}`);
  process.exit(1);
}

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const posix = (path) => path.split(sep).join("/");

const ENGINE = ["attnscope.js", "attnscope_bg.wasm", "attnscope_relaxed_bg.wasm", "attnscope_subword_bg.wasm", "attnscope_relaxed_subword_bg.wasm"]; // www/js/runtime.js picks a build
for (const need of [...ENGINE.map((f) => join(PKG, f)), join(WWW, "models/en-ko.safetensors")]) {
  if (!existsSync(need)) fail(`${relative(ROOT, need)} is missing (run scripts/build-wasm.sh)`);
}

// 1. The static site.
rmSync(DIST, { recursive: true, force: true });
cpSync(WWW, DIST, { recursive: true });
mkdirSync(join(DIST, "pkg"), { recursive: true });
for (const f of ENGINE) cpSync(join(PKG, f), join(DIST, "pkg", f));

// Each page's JavaScript as one file (the modules stay beside it, for embeds and tests): a
// browser otherwise fetches the ~40 modules of the lab one level of imports at a time. The
// bundles sit in js/, where the modules that resolve URLs from import.meta.url live.
const ESBUILD = { bundle: true, format: "esm", minify: true, target: "es2022", logLevel: "warning" }; // also the single file's
const BUNDLES = {
  "index.html": ["js/main.js", "js/lab.bundle.js"],
  "lesson.html": ["js/lesson/main.js", "js/lesson.bundle.js"],
  "train.html": ["js/train/main.js", "js/train.bundle.js"],
};
for (const [page, [entry, out]] of Object.entries(BUNDLES)) {
  await build({ ...ESBUILD, entryPoints: [join(DIST, entry)], outfile: join(DIST, out) });
  const html = readFileSync(join(DIST, page), "utf8");
  const tag = `<script type="module" src="${entry}"></script>`;
  if (!html.includes(tag)) fail(`${page} does not load ${entry} with ${tag}`);
  writeFileSync(join(DIST, page), html.replace(tag, `<script type="module" src="${out}"></script>`));
}

const SW_META = '<meta name="attnscope-sw" content="sw.js">';
const pages = walk(DIST).filter((f) => f.endsWith(".html"));
for (const page of pages) {
  const html = readFileSync(page, "utf8");
  if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(html)) fail(`${posix(relative(DIST, page))} has an inline script (the CSP forbids it)`);
  const depth = posix(relative(DIST, page)).split("/").length - 1;
  const meta = depth === 0 ? SW_META : SW_META.replace('"sw.js"', `"${"../".repeat(depth)}sw.js"`);
  writeFileSync(page, html.replace(/<head>/i, `<head>\n  ${meta}`));
}

// 2. The service worker: every file, versioned by a hash of all their contents. The models that
// download only when a reader chooses them (www/js/models.js) are not precached: "Keep for
// offline use" caches them on request (sw.template.js answers from that cache too).
const ON_DEMAND = new Set(SITE_MODELS.filter((m) => m.onDemand).map((m) => m.path));
// their sizes, which the page says before a download (models.js modelSize): measured here, from the files
const sizes = Object.fromEntries([...ON_DEMAND].filter((f) => existsSync(join(DIST, f))).map((f) => [f, statSync(join(DIST, f)).size]));
writeFileSync(join(DIST, "models/sizes.json"), JSON.stringify(sizes));
const files = walk(DIST).map((f) => posix(relative(DIST, f))).sort();
const hash = createHash("sha256");
for (const f of files) hash.update(f).update(readFileSync(join(DIST, f)));
const version = hash.digest("hex").slice(0, 16);
const swTemplate = readFileSync(join(ROOT, "scripts/sw.template.js"), "utf8");
writeFileSync(
  join(DIST, "sw.js"),
  swTemplate
    .replace("__VERSION__", JSON.stringify(`attnscope-${version}`))
    .replace("__FILES__", JSON.stringify(["./", ...files.filter((f) => !ON_DEMAND.has(f))], null, 1)),
);

// 3. The single file: both pages' bodies as <template>s, CSS and bundled JS inline, assets as base64.
function body(file) {
  const html = readFileSync(join(WWW, file), "utf8");
  const m = html.match(/<body[^>]*>([\s\S]*)<\/body>/i);
  if (!m) fail(`${file} has no <body>`);
  return m[1].replace(/<script[^>]*><\/script>/gi, "");
}
function stylesheets(file) {
  const html = readFileSync(join(WWW, file), "utf8");
  return [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
}
// the Korean font (css/fonts.css) travels inside the CSS as a data: URL
const css = [...new Set([...stylesheets("index.html"), ...stylesheets("lesson.html"), ...stylesheets("train.html")])]
  .map((href) => readFileSync(join(WWW, href), "utf8"))
  .join("\n")
  .replace(/url\(\.\.\/fonts\/([\w.-]+\.woff2)\)/g, (_, f) => `url(data:font/woff2;base64,${readFileSync(join(WWW, "fonts", f)).toString("base64")})`);

const bundle = await build({
  stdin: {
    contents: `
      const asked = new URLSearchParams(location.search).get("page");
      const page = asked === "lesson" || asked === "train" ? asked : "lab";
      document.body.append(document.getElementById("page-" + page).content.cloneNode(true));
      document.documentElement.dataset.page = page;
      if (page === "train") document.body.classList.add("train-page");
      if (page === "lesson") import("./www/js/lesson/main.js");
      else if (page === "train") import("./www/js/train/main.js");
      else import("./www/js/main.js");
    `,
    resolveDir: ROOT,
    sourcefile: "single-file-entry.js",
  },
  ...ESBUILD,
  write: false,
});
const script = bundle.outputFiles[0].text.replace(/<\/script/gi, "<\\/script");

const inline = {
  "pkg/attnscope.js": readFileSync(join(PKG, "attnscope.js"), "utf8"),
  "pkg/attnscope_bg.wasm": readFileSync(join(PKG, "attnscope_bg.wasm")).toString("base64"),
  "models/en-ko.safetensors": readFileSync(join(WWW, "models/en-ko.safetensors")).toString("base64"),
  "fonts/noto-sans-kr-400.woff2": readFileSync(join(WWW, "fonts/noto-sans-kr-400.woff2")).toString("base64"), // SVG downloads
};
if (existsSync(join(WWW, "models/glove-50d.safetensors"))) {
  inline["models/glove-50d.safetensors"] = readFileSync(join(WWW, "models/glove-50d.safetensors")).toString("base64");
}
const single = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>attnscope</title>
<link rel="icon" href="data:,">
<style>
${css}
</style>
<script>globalThis.ATTNSCOPE_INLINE = ${JSON.stringify(inline).replace(/<\/script/gi, "<\\/script")};</script>
</head>
<body>
<template id="page-lab">${body("index.html")}</template>
<template id="page-lesson">${body("lesson.html")}</template>
<template id="page-train">${body("train.html")}</template>
<script type="module">${script}</script>
</body>
</html>
`;
writeFileSync(join(DIST, "attnscope.html"), single);

// 4. What a reader downloads, by kind (raw and gzipped), for the README's size figures.
const kb = (n) => `${Math.round(n / 1024)} KB`;
const weigh = (list) => {
  const bytes = list.map((f) => readFileSync(join(DIST, f)));
  const raw = bytes.reduce((a, b) => a + b.length, 0);
  const gz = bytes.reduce((a, b) => a + gzipSync(b, { level: 9 }).length, 0);
  return `${kb(raw)} (${kb(gz)} gzipped)`;
};
// what a page itself loads: its HTML, its stylesheets, its script (the bundle) and the glue
const pageCode = (page) => {
  const html = readFileSync(join(DIST, page), "utf8");
  const refs = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">|<script type="module" src="([^"]+)">/g)].map((m) => m[1] || m[2]);
  return [page, ...refs, "pkg/attnscope.js"];
};
console.log(`build-dist: dist/ ${files.length} files, service worker ${version}`);
console.log(`  lab: HTML, CSS, JS bundle and glue:   ${weigh(pageCode("index.html"))}`);
console.log(`  lesson: HTML, CSS, JS bundle and glue: ${weigh(pageCode("lesson.html"))}`);
console.log(`  playground: HTML, CSS, JS bundle, glue: ${weigh(pageCode("train.html"))}`);
console.log(`  engine pkg/attnscope_bg.wasm:         ${weigh(["pkg/attnscope_bg.wasm"])}`);
console.log(`  or pkg/attnscope_relaxed_bg.wasm:     ${weigh(["pkg/attnscope_relaxed_bg.wasm"])} (where relaxed SIMD runs)`);
console.log(`  or pkg/attnscope_subword_bg.wasm:     ${weigh(["pkg/attnscope_subword_bg.wasm"])} (for an opened model with a subword tokenizer)`);
console.log(`  demo model models/en-ko.safetensors:  ${weigh(["models/en-ko.safetensors"])}`);
console.log(`  word vectors (lesson; lab on demand): ${weigh(["models/glove-50d.safetensors"])}`);
console.log(`  single file attnscope.html:           ${kb(statSync(join(DIST, "attnscope.html")).size)}`);
for (const f of ON_DEMAND) if (existsSync(join(DIST, f))) console.log(`  on demand (not precached) ${f}: ${kb(statSync(join(DIST, f)).size)}`);
