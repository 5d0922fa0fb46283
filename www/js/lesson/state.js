// Each panel's state lives in the query string (prefixed keys: p1.x0, p3.wq, ...), mirrored
// with history.replaceState so that any view can be copied and shared. Values that equal their
// default are left out, so the plain page keeps a clean URL.

const params = new URLSearchParams(location.search);
let timer = 0;

function flush() {
  const q = params.toString();
  history.replaceState(history.state, "", `${location.pathname}${q ? `?${q}` : ""}${location.hash}`);
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(flush, 120);
}

/** Write `key` (removed when the value equals `def`). */
export function put(key, value, def) {
  const s = value === null || value === undefined ? null : String(value);
  if (s === null || s === String(def)) params.delete(key);
  else params.set(key, s);
  schedule();
}

export function has(key) {
  return params.has(key);
}

/** Apply pending changes now (before navigating away or in tests). */
export function sync() {
  clearTimeout(timer);
  flush();
}

export function str(key, def, maxLen = 500) {
  const v = params.get(key);
  return v === null ? def : v.slice(0, maxLen);
}

export function num(key, def, min, max) {
  const v = params.get(key);
  if (v === null || v.trim() === "") return def;
  const n = Number(v);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : def;
}

export function int(key, def, min, max) {
  const n = num(key, def, min, max);
  return Number.isInteger(n) ? n : Math.round(n);
}

export function bool(key, def) {
  const v = params.get(key);
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  return def;
}

/** A list of `count` numbers ("1,0,0,1"); anything malformed gives the default. */
export function nums(key, def, count, min, max) {
  const v = params.get(key);
  if (v === null) return def.slice();
  const parts = v.split(",").map(Number);
  if (parts.length !== count || parts.some((x) => !Number.isFinite(x))) return def.slice();
  return parts.map((x) => Math.min(max, Math.max(min, x)));
}

/** The shortest decimal that round-trips the 2-decimal slider values we store. */
export function numsText(list) {
  return list.map((x) => String(Math.round(x * 1000) / 1000)).join(",");
}
