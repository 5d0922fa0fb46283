// Loading the Rust engine, shared by every page: the bytes of an asset, the compiled
// WebAssembly module (compiled once) and a fresh instance of wasm-bindgen's JS glue.
//
// Assets come from the server, relative to the site root (the folder above js/), or, in the
// single-file build (scripts/build-dist.mjs), from base64 strings inlined in the document as
// `globalThis.ATTNSCOPE_INLINE[path]`. A panic inside wasm leaves an instance unusable, and the
// glue refuses to initialise twice, so recovery imports a new copy of the glue: each
// generation gets its own module URL (or its own blob URL when inlined).

/**
 * wasm-bindgen's JS glue, `pkg/attnscope.js` on the site (typed by pkg/attnscope.d.ts, which
 * jsconfig.json maps "pkg/attnscope.js" to): `{ default: init, Lab, Words, attend, ... }`.
 * @typedef {typeof import("pkg/attnscope.js")} Glue
 */

const ROOT = new URL("../", import.meta.url);
const GLUE = "pkg/attnscope.js";
const WASM = "pkg/attnscope_bg.wasm";
// The same engine built with relaxed SIMD (fused multiply-add in the matrix kernels, about 15%
// faster; scripts/build-wasm.sh): loaded where the browser has it, except in the single file,
// which carries only the build every browser runs.
const WASM_RELAXED = "pkg/attnscope_relaxed_bg.wasm";
// The engine with the subword tokenizers (WordPiece, byte-level BPE, SentencePiece), for a model
// file that needs them (a converted BERT, GPT-2 or Marian): loaded only then. Not in the single
// file, whose engine is the plain build.
const WASM_SUBWORD = "pkg/attnscope_subword_bg.wasm";
const WASM_RELAXED_SUBWORD = "pkg/attnscope_relaxed_subword_bg.wasm"; // both, where relaxed SIMD runs

/** A module whose one function uses `f32x4.relaxed_madd`: it validates where relaxed SIMD runs. */
const V128_ZERO = [0xfd, 0x0c, ...new Array(16).fill(0)];
const RELAXED_PROBE = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
  ...[0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b], // types: () -> v128
  ...[0x03, 0x02, 0x01, 0x00], // one function of that type
  ...[0x0a, 0x3d, 0x01, 0x3b, 0x00, ...V128_ZERO, ...V128_ZERO, ...V128_ZERO, 0xfd, 0x85, 0x02, 0x0b], // relaxed_madd(0, 0, 0)
]);

/**
 * Which engine build this browser loads: `pkg/attnscope_relaxed_bg.wasm` or
 * `pkg/attnscope_bg.wasm`; with `subword`, the same choice among the builds with the subword
 * tokenizers (`pkg/attnscope_relaxed_subword_bg.wasm` or `pkg/attnscope_subword_bg.wasm`).
 * @param {boolean} [subword]
 */
export function wasmPath(subword = false) {
  if (inlined(WASM) !== null) return subword ? WASM_SUBWORD : WASM;
  try {
    if (WebAssembly.validate(RELAXED_PROBE)) return subword ? WASM_RELAXED_SUBWORD : WASM_RELAXED;
    return subword ? WASM_SUBWORD : WASM;
  } catch {
    return subword ? WASM_SUBWORD : WASM;
  }
}

/** Paths of the assets, relative to the site root. */
export const ASSET = {
  model: "models/en-ko.safetensors",
  words: "models/glove-50d.safetensors",
  koreanFont: "fonts/noto-sans-kr-400.woff2", // css/fonts.css; embedded in SVG downloads
};

/** The URL of a site file (a path relative to the site's root, as ASSET's). @param {string} path */
export function assetUrl(path) {
  return new URL(path, ROOT).href;
}

function inlined(path) {
  const table = globalThis.ATTNSCOPE_INLINE;
  return table && Object.prototype.hasOwnProperty.call(table, path) ? table[path] : null;
}

function decodeBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i += 1) out[i] = bin.charCodeAt(i);
  return out;
}

/** The bytes of an asset; throws an Error naming the file when it cannot be had. @param {string} path @returns {Promise<Uint8Array<ArrayBuffer>>} */
export async function assetBytes(path) {
  const inline = inlined(path);
  if (inline !== null) return decodeBase64(inline);
  const url = new URL(path, ROOT);
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`${path}: ${e.message}`);
  }
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** @type {Map<string, Promise<WebAssembly.Module>>} */
const compiled = new Map(); // path -> the compiled module

/**
 * The compiled engine module (fetched and compiled on the first call only). From a server it
 * compiles while it downloads (`compileStreaming`), which also lets the browser keep the
 * optimised machine code with the cached file for the next visit; inlined, or where streaming
 * is refused (a server sending another MIME type), from the bytes.
 */
export function wasmModule(subword = false) {
  const path = wasmPath(subword);
  if (!compiled.has(path)) {
    if (subword && globalThis.ATTNSCOPE_INLINE && inlined(path) === null) {
      return Promise.reject(new Error("this model needs the engine's subword tokenizers, which the single-file edition does not carry: open it on the site (make serve, or any static copy of dist/)"));
    }
    const fromBytes = () => assetBytes(path).then((bytes) => WebAssembly.compile(bytes));
    const streaming = inlined(path) === null && typeof WebAssembly.compileStreaming === "function";
    const p = streaming ? WebAssembly.compileStreaming(fetch(new URL(path, ROOT))).catch(fromBytes) : fromBytes();
    p.catch(() => compiled.delete(path)); // let a later call retry
    compiled.set(path, p);
  }
  return compiled.get(path);
}

let generation = 0;

/** A new, initialised instance of the glue: `{ Lab, Words, attend, ... }`; `subword`: of the build with the subword tokenizers. @param {boolean} [subword] @returns {Promise<Glue>} */
export async function freshInstance(subword = false) {
  const n = generation;
  generation += 1;
  const [mod, module] = await Promise.all([import(glueUrl(n)), wasmModule(subword)]);
  instances.set(mod, await mod.default({ module_or_path: module }));
  return mod;
}

/** Where instance `n` imports the glue from: its own module URL, or a blob when inlined. */
function glueUrl(n) {
  const source = inlined(GLUE);
  if (source !== null) return URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  return new URL(GLUE, ROOT).href + (n === 0 ? "" : `?instance=${n}`);
}

/** Start fetching and compiling the engine (and its glue) now; errors wait for freshInstance. */
export function warmUp() {
  wasmModule().catch(() => {});
  if (inlined(GLUE) === null) import(glueUrl(0)).catch(() => {});
}

const instances = new WeakMap(); // glue module -> its instance's exports

/** Bytes of wasm memory an instance (freshInstance's module) has grown to (tests, benchmarks). @param {Glue} mod */
export function wasmMemoryBytes(mod) {
  return instances.get(mod)?.memory?.buffer.byteLength ?? 0;
}

/** Whether an error is a panic (or trap) inside wasm: the instance is then unusable. */
export function isPanic(e) {
  return e instanceof WebAssembly.RuntimeError;
}

/**
 * A link to one of the site's pages ("lab", "lesson" or "train") with query parameters, and with
 * `fragment` parameters after `#` (the lab's state: state.js). On a server that is
 * `index.html?...#...` / `lesson.html?...` / `train.html?...`; in the single-file build the pages live in one
 * document, chosen by `?page=`.
 * @param {"lab" | "lesson" | "train"} page
 * @param {URLSearchParams | Record<string, string> | null} [params]
 * @param {string | URLSearchParams | null} [fragment]
 * @returns {string}
 */
export function pageHref(page, params = new URLSearchParams(), fragment = null) {
  const q = new URLSearchParams(params ?? undefined);
  let file = page === "lesson" ? "lesson.html" : page === "train" ? "train.html" : "index.html";
  if (globalThis.ATTNSCOPE_INLINE) {
    file = "";
    q.set("page", page);
  }
  const qs = q.toString();
  const hash = fragment ? new URLSearchParams(fragment).toString() : "";
  return `${file}${qs ? `?${qs}` : ""}${hash ? `#${hash}` : ""}` || "?";
}
