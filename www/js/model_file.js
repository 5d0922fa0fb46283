// What a model file is before the engine reads it: a safetensors file (an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte range, then the
// tensors) whose `__metadata__.attnscope` holds the model's configuration (train/convert.py and
// train/train.py write it; src/config.rs reads it). Checked here, in the page, so that a file the
// reader opens gets a message that says what is wrong with it (not a safetensors file, no
// attnscope metadata, cut short) before the engine sees it; the engine checks the rest (every
// tensor's shape, naming the tensor).

/** The largest header a model file may have (the demo model's is about 120 KB: its vocabularies). */
const MAX_HEADER = 64 * 1024 * 1024;

/**
 * What the page knows of a model file from its header alone.
 * @typedef {object} ModelFile
 * @property {Record<string, any>} config    the parsed `__metadata__.attnscope`
 * @property {Record<string, string>} about  the file's other `__metadata__` fields (its own description)
 * @property {boolean} subword               whether its tokenizer needs the engine's subword build
 * @property {number} tensors                how many tensors it holds
 * @property {number} params                 how many numbers they hold (the parameters)
 * @property {number} bytes                  the file's size
 */

/** A reason a file cannot be opened: `key` names the message (i18n.js `open.error.*`). */
export class ModelFileError extends Error {
  /** @param {string} key @param {Record<string, string | number>} [params] */
  constructor(key, params = {}) {
    super(key);
    this.key = key;
    this.params = params;
  }
}

/**
 * Read a model file's header, or throw a ModelFileError: "notSafetensors" (no header a
 * safetensors file has), "noMetadata" (a safetensors file without attnscope's configuration),
 * "badMetadata" (that configuration is not JSON), "truncated" (a tensor's bytes lie past the
 * end of the file).
 * @param {Uint8Array} bytes @returns {ModelFile}
 */
export function readModelFile(bytes) {
  if (bytes.length < 10) throw new ModelFileError("notSafetensors");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  if (!(n >= 2 && n <= MAX_HEADER) || bytes[8] !== 0x7b /* { */) throw new ModelFileError("notSafetensors");
  if (8 + n > bytes.length) throw new ModelFileError("truncated", { have: bytes.length, need: 8 + n });
  /** @type {Record<string, any>} */
  let header;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(8, 8 + n)));
  } catch {
    throw new ModelFileError("notSafetensors");
  }
  if (!header || typeof header !== "object" || Array.isArray(header)) throw new ModelFileError("notSafetensors");
  const meta = header.__metadata__ || {};
  let end = 0;
  let tensors = 0;
  let params = 0;
  for (const [name, t] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const offsets = t && t.data_offsets;
    if (!Array.isArray(offsets) || offsets.length !== 2) throw new ModelFileError("notSafetensors");
    end = Math.max(end, Number(offsets[1]));
    tensors += 1;
    if (Array.isArray(t.shape)) params += t.shape.reduce((a, b) => a * Number(b), 1);
  }
  if (8 + n + end > bytes.length) throw new ModelFileError("truncated", { have: bytes.length, need: 8 + n + end });
  if (typeof meta.attnscope !== "string") throw new ModelFileError("noMetadata", { tensors });
  let config;
  try {
    config = JSON.parse(meta.attnscope);
  } catch {
    throw new ModelFileError("badMetadata");
  }
  if (!config || typeof config !== "object") throw new ModelFileError("badMetadata");
  /** @type {Record<string, string>} */
  const about = {};
  for (const [k, v] of Object.entries(meta)) if (k !== "attnscope" && typeof v === "string") about[k] = v;
  const tok = config.tokenizer || {};
  return { config, about, subword: !!(tok.subword || tok.target_subword), tensors, params, bytes: bytes.length };
}
