// W_Q/W_K edits in the URL (the `qk` parameter): compact, exact, and checked before use.
//
//   qk     = block ("*" block)*
//   block  = stack "." layer "." head "." matrix "." body        layer, head: 1-based
//   stack  = "e" (encoder) | "s" (decoder self-attention) | "c" (cross-attention)
//   matrix = "q" | "k"
//   body   = "I"                  the identity preset (ones on the block's diagonal)
//          | "d" base64url        every value: the block as little-endian float32 bytes
//          | cell ("_" cell)*     only the cells that differ from the trained weights:
//            cell = index "." value, index = row * d_model + column (0-based), value = the
//            shortest decimal that reads back as the same float32 (".25", "-1.5", "3e-7")
//
// e.g. `qk=e.1.2.q.37.0.4125_38.-.1*c.2.1.k.I`. Every character is one URLSearchParams
// leaves as it is. The encoder writes the shorter of the cell list and the dense form for each
// block; the values are exact, so a link reproduces the very same weights. A parameter that
// does not parse, or names a block or value the model cannot have, is ignored block by block
// and reported (the page shows a notice); nothing from it ever reaches the DOM.

const STACK_CODE = { encoder: "e", decoder_self: "s", decoder_cross: "c" };
const CODE_STACK = { e: "encoder", s: "decoder_self", c: "decoder_cross" };
const MAX_BLOCKS = 4096;
const MAX_ABS = 64; // the editor keeps cells within ±8; trained weights are far smaller

/** The shortest decimal string that reads back (as float32) as the float32 `v`. */
export function f32String(v) {
  if (v === 0) return "0";
  if (!Number.isFinite(v)) return String(v);
  let s = String(v);
  for (let p = 1; p <= 9; p++) {
    const c = v.toPrecision(p);
    if (Math.fround(Number(c)) === v) {
      s = String(Number(c));
      break;
    }
  }
  return s.replace(/^(-?)0\./, "$1.");
}

function toBase64url(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

function isIdentity(values, rows, cols) {
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) if (values[r * cols + c] !== (r === c ? 1 : 0)) return false;
  }
  return true;
}

/** The block body: "I", the changed cells, or every value, whichever is shortest. */
function encodeBody(values, trained, rows, cols) {
  if (isIdentity(values, rows, cols)) return "I";
  const cells = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] !== trained[i]) cells.push(`${i}.${f32String(values[i])}`);
  }
  const sparse = cells.join("_");
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  const dense = `d${toBase64url(bytes)}`;
  return sparse.length <= dense.length ? sparse : dense;
}

/**
 * The `qk` parameter for the engine's edits ("" when there are none). Blocks equal to the
 * trained weights are left out.
 */
export function encodeEdits(engine, info) {
  const heads = engine.options.heads ?? info.nhead;
  const rows = info.dModel / heads;
  const cols = info.dModel;
  const out = [];
  const keys = [...engine.edits.keys()].sort();
  for (const key of keys) {
    const [stack, layer, head, m] = key.split("/");
    const values = engine.edits.get(key);
    let trained;
    try {
      trained = engine.trained(stack, Number(layer), Number(head), m);
    } catch {
      trained = new Float32Array(values.length).fill(NaN); // unknown: every cell counts as changed
    }
    const body = encodeBody(values, trained, rows, cols);
    if (body === "") continue;
    out.push(`${STACK_CODE[stack]}.${Number(layer) + 1}.${Number(head) + 1}.${m}.${body}`);
  }
  return out.join("*");
}

/** One block of the parameter, checked against the model: {stack, layer, head, m, values} or null. */
function decodeBlock(text, base, shape) {
  const m = /^([esc])\.(\d{1,4})\.(\d{1,4})\.([qk])\.(.*)$/s.exec(text);
  if (!m) return null;
  const stack = CODE_STACK[m[1]];
  const layer = Number(m[2]) - 1;
  const head = Number(m[3]) - 1;
  const matrix = m[4];
  const body = m[5];
  const layers = stack === "encoder" ? shape.encoderLayers : shape.decoderLayers;
  if (layer < 0 || layer >= layers || head < 0 || head >= shape.heads) return null;
  const { rows, cols } = shape;
  const n = rows * cols;
  let values;
  if (body === "I") {
    values = new Float32Array(n);
    for (let i = 0; i < Math.min(rows, cols); i++) values[i * cols + i] = 1;
  } else if (body.startsWith("d")) {
    const bytes = fromBase64url(body.slice(1));
    if (!bytes || bytes.length !== n * 4) return null;
    const view = new DataView(bytes.buffer);
    values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = view.getFloat32(i * 4, true);
  } else {
    const trained = base(stack, layer, head, matrix);
    if (!trained || trained.length !== n) return null;
    values = Float32Array.from(trained);
    const cells = body.split("_");
    if (cells.length > n) return null;
    for (const cell of cells) {
      const c = /^(\d{1,7})\.(-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d{1,3})?)$/.exec(cell);
      if (!c) return null;
      const i = Number(c[1]);
      if (i >= n) return null;
      values[i] = Number(c[2]);
    }
  }
  for (const v of values) if (!Number.isFinite(v) || Math.abs(v) > MAX_ABS) return null;
  return { stack, layer, head, m: matrix, values };
}

/**
 * Apply the edits of a `qk` parameter to the engine (after its options are set, before a run).
 * Returns {applied, rejected}: how many blocks were set, and how many were ignored because they
 * did not parse or did not fit this model (the page shows a notice when `rejected > 0`).
 */
export function applyEdits(engine, text, info) {
  const result = { applied: 0, rejected: 0 };
  if (typeof text !== "string" || text === "") return result;
  const parts = text.split("*");
  if (parts.length > MAX_BLOCKS) return { applied: 0, rejected: parts.length };
  const heads = engine.options.heads ?? info.nhead;
  const shape = {
    heads,
    rows: info.dModel / heads,
    cols: info.dModel,
    encoderLayers: info.encoderLayers,
    decoderLayers: info.decoderLayers,
  };
  const base = (stack, layer, head, m) => {
    try {
      return engine.trained(stack, layer, head, m);
    } catch {
      return null;
    }
  };
  const seen = new Set();
  for (const part of parts) {
    const b = decodeBlock(part, base, shape);
    const key = b && `${b.stack}/${b.layer}/${b.head}/${b.m}`;
    if (!b || seen.has(key)) {
      result.rejected += 1;
      continue;
    }
    seen.add(key);
    try {
      engine.setBlock(b.stack, b.layer, b.head, b.m, b.values);
      result.applied += 1;
    } catch {
      result.rejected += 1;
    }
  }
  return result;
}
