// The Korean characters the site can show: what www/fonts/ must hold (scripts/korean-font.py
// subsets the font to them; tests/e2e/fonts.spec.js checks the committed font against them).
//
//   node scripts/korean-chars.mjs     prints them
//
// Every Hangul syllable and letter of the demo model's Korean vocabulary (a translation is made of
// its tokens), every syllable a glued final consonant (+ㄴ, +ㄹ, +ㅆ ...) can make of a vocabulary
// syllable that has none (the tokenizer composes them: 가 + ㄴ -> 간), and every Hangul character
// in the pages and their scripts (the Korean interface and lesson).
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/gu;
const FINALS = "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ";

/** The target vocabulary of a model file (its metadata, see README "Model file format"). */
function targetVocab(path) {
  const raw = readFileSync(path);
  const n = Number(raw.readBigUInt64LE(0));
  const header = JSON.parse(raw.subarray(8, 8 + n).toString("utf8"));
  return JSON.parse(header.__metadata__.attnscope).tgt_vocab;
}

export function koreanChars(root = ROOT) {
  const chars = new Set();
  const add = (text) => {
    for (const c of text.match(HANGUL) ?? []) chars.add(c);
  };
  const vocab = targetVocab(join(root, "www/models/en-ko.safetensors"));
  vocab.forEach(add);
  const glued = vocab.filter((t) => t.length === 2 && t[0] === "+" && FINALS.includes(t[1])).map((t) => t[1]);
  for (const c of [...chars]) {
    const o = c.codePointAt(0) - 0xac00;
    if (o >= 0 && o < 11172 && o % 28 === 0) for (const f of glued) chars.add(String.fromCodePoint(0xac00 + o + FINALS.indexOf(f) + 1));
  }
  for (const dir of ["www", "www/js", "www/js/lesson", "www/js/panels", "www/js/train", "www/examples"]) {
    for (const f of readdirSync(join(root, dir))) if (/\.(js|html)$/.test(f)) add(readFileSync(join(root, dir, f), "utf8"));
  }
  return chars;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write([...koreanChars()].sort().join(""));
