// The models the site itself offers, beside any file the reader opens (open_model.js): the
// translator trained here (the default, always loaded) and models that download only when the
// reader chooses them. One entry per model: its id in the state and the URL (`model=`), its file,
// the i18n key of its name. A chosen model's bytes come with progress; "Keep for offline use"
// puts them in a cache of their own, which the service worker (scripts/sw.template.js) answers
// from when the network is gone (the precache leaves these files out: build-dist.mjs ON_DEMAND).

import { ASSET, assetUrl } from "./runtime.js";

/**
 * @typedef {object} SiteModel
 * @property {string} id      the state's `model`: "" for the translator, "builtin:..." for the others
 * @property {string} path    the file, relative to the site's root
 * @property {string} label   i18n key of its name
 * @property {boolean} onDemand  downloaded only when chosen (not in the single-file edition)
 * @property {string} [heads]  its guide to heads worth finding (scripts/find-heads.mjs writes it)
 */

/** @type {SiteModel[]} */
export const SITE_MODELS = [
  { id: "", path: ASSET.model, label: "models.translator", onDemand: false },
  // sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0), int8: `make minilm` writes it
  { id: "builtin:minilm", path: "models/minilm-l6.safetensors", label: "models.minilm", onDemand: true, heads: "models/minilm-heads.json" },
  // a decoder-only language model trained here (train/train_gpt.py)
  { id: "builtin:tiny-gpt", path: "models/tiny-gpt.safetensors", label: "models.tinyGpt", onDemand: true },
];

/** The cache "Keep for offline use" writes (the service worker reads it; a new site version keeps it). */
export const KEPT_CACHE = "attnscope-kept";

/** The site model of an id, or undefined (a file the reader opened). @param {string} id */
export function siteModel(id) {
  return SITE_MODELS.find((m) => m.id === id);
}

/** A model's name for people: a site model's label, or the opened file's name in quotes. @param {string} id @param {(key: string) => string} t */
export function modelLabel(id, t) {
  const m = siteModel(id);
  return m ? t(m.label) : `“${id}”`;
}

/** Whether this page can offer on-demand models (not the single file: it carries the translator only). */
export function canDownload() {
  return !(/** @type {any} */ (globalThis).ATTNSCOPE_INLINE);
}

/** A file's size as the page says it, in decimal megabytes with one decimal, as file managers show them (the lab's chooser, the lesson's finale). @param {number} bytes */
export const mb = (bytes) => (bytes / 1e6).toFixed(1);

/** @type {Promise<Record<string, number>> | null} */
let sizes = null;

/**
 * The size of a site model's file before it downloads, in bytes, or null when unknown: the
 * built site's models/sizes.json, which scripts/build-dist.mjs measures from the files (the
 * development pages have none). Not a HEAD request: Chromium reports those as aborted.
 * @param {SiteModel} m
 */
export async function modelSize(m) {
  sizes ??= fetch(assetUrl("models/sizes.json"))
    .then((r) => (r.ok ? r.json() : {}))
    .catch(() => ({}));
  const n = Number((await sizes)[m.path]);
  return n > 0 ? n : null;
}

/** Whether a site model is kept for offline use. @param {SiteModel} m */
export async function isKept(m) {
  if (typeof caches === "undefined") return false;
  try {
    return !!(await (await caches.open(KEPT_CACHE)).match(assetUrl(m.path)));
  } catch {
    return false;
  }
}

/** Keep a site model's bytes for offline use; false where the browser refuses (no Cache API, no space). @param {SiteModel} m @param {Uint8Array} bytes */
export async function keep(m, bytes) {
  if (typeof caches === "undefined") return false;
  try {
    const headers = { "content-type": "application/octet-stream", "content-length": String(bytes.length) };
    await (await caches.open(KEPT_CACHE)).put(assetUrl(m.path), new Response(new Blob([/** @type {BlobPart} */ (bytes)]), { headers }));
    return true;
  } catch {
    return false;
  }
}

/**
 * Download a site model's file with progress (`onProgress(fraction)`, when the size is known).
 * Kept copies come first (the service worker answers from them; without one, from the cache here).
 * @param {SiteModel} m @param {(f: number) => void} onProgress @returns {Promise<Uint8Array>}
 */
export async function download(m, onProgress) {
  const url = assetUrl(m.path);
  let res = null;
  if (typeof caches !== "undefined") res = (await caches.open(KEPT_CACHE).then((c) => c.match(url)).catch(() => undefined)) ?? null;
  if (!res) res = await fetch(url);
  if (!res.ok) throw new Error(`${m.path}: HTTP ${res.status}`);
  const total = Number(res.headers.get("content-length")) || 0;
  if (!res.body || !total) return new Uint8Array(await res.arrayBuffer());
  const out = new Uint8Array(total);
  const reader = res.body.getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > total) throw new Error(`${m.path}: more bytes than its length`);
    out.set(value, at);
    at += value.length;
    onProgress(at / total);
  }
  if (at !== total) throw new Error(`${m.path}: cut short (${at} of ${total} bytes)`);
  return out;
}
