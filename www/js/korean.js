// Korean particles after a filled-in value ("헤드 1을", "헤드 2를", "“친구”는", "“emma”와").
//
// A Korean particle has two forms, chosen by the sound the word before it ends with: after a
// final consonant (받침) 을 / 이 / 은 / 과 / 으로 / 아 / 이랑, after a vowel 를 / 가 / 는 / 와 /
// 로 / 야 / 랑. (으)로 is special: a final ㄹ takes 로, like a vowel (1로, read 일로; 3으로,
// read 삼으로). What counts is how the word is READ, not how it is written:
//   - Hangul: the last syllable's 받침 (Unicode arithmetic, exact).
//   - Numbers: read in Sino-Korean. The last non-zero digit decides (1 일, 2 이, 3 삼, 4 사,
//     5 오, 6 육, 7 칠, 8 팔, 9 구); trailing zeros are read as their place (10 십, 100 백,
//     1000 천, 10000 만, 10^8 억, 10^12 조); digits after a decimal point are read one by one
//     (0 영); 0 alone is 영; % is 퍼센트.
//   - English words (token names in the lesson and the lab): how they are read in Korean, by
//     the usual loanword spelling: a final m / n / ng / l is a 받침 (Tom 톰, John 존, king 킹,
//     girl 걸), as is a silent e after m / n / l (game 게임, phone 폰, smile 스마일); a final
//     p / t / k / ck after one short vowel is a 받침 (cat 캣, but 벗, book 북); everything else
//     ends in a vowel (emma 엠마, friend 프렌드, great 그레이트, games 게임스).
//   - Anything else (symbols only): unknown, and the particle is written in both forms,
//     "을(를)", as Korean style guides do.
//
// Used by i18n.js's fill(): in a string template, `{name|을}` is the value followed by the right
// form of the particle, and `{|을}` alone is the right form after the text just before it (for
// a particle after a closing quote or a unit: `“{word}”{|와}`, `{p}%{|가}`). Either form of the
// pair may be written in the template.

/** Particle pairs: [after a final consonant, after a vowel]. */
const PAIRS = [
  ["을", "를"],
  ["이", "가"],
  ["은", "는"],
  ["과", "와"],
  ["으로", "로"],
  ["아", "야"],
  ["이랑", "랑"],
  ["이나", "나"],
  ["이다", "다"],
];

const SINO_DIGIT_FINAL = { 0: "ㅇ", 1: "ㄹ", 2: "", 3: "ㅁ", 4: "", 5: "", 6: "ㄱ", 7: "ㄹ", 8: "ㄹ", 9: "" };
// Final consonant of the place word a run of trailing zeros is read as: 십 백 천 만 (십만 ...).
const PLACE_FINAL = ["", "ㅂ", "ㄱ", "ㄴ", "ㄴ", "ㅂ", "ㄱ", "ㄴ", "ㄱ", "ㅂ", "ㄱ", "ㄴ", ""];
// 10^1 십, 10^2 백, 10^3 천, 10^4 만, 10^5 십만, 10^6 백만, 10^7 천만, 10^8 억, 10^9 십억,
// 10^10 백억, 10^11 천억, 10^12 조

const JONG = ["", "ㄱ", "ㄲ", "ㄳ", "ㄴ", "ㄵ", "ㄶ", "ㄷ", "ㄹ", "ㄺ", "ㄻ", "ㄼ", "ㄽ", "ㄾ", "ㄿ", "ㅀ", "ㅁ", "ㅂ", "ㅄ", "ㅅ", "ㅆ", "ㅇ", "ㅈ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ"];

/**
 * The final consonant (받침) of how `text` is read: "" for a vowel ending, a jamo such as "ㄹ"
 * for a consonant, or null when it cannot be told.
 */
export function finalSound(text) {
  let s = String(text).trim();
  // Closing quotes, brackets and sentence punctuation are not read.
  s = s.replace(/[\s"'“”‘’»«)\]}>.,!?;:…]+$/u, "");
  if (!s) return null;
  if (s.endsWith("%")) return "";
  const last = s.codePointAt(s.length - 1);
  if (last >= 0xac00 && last <= 0xd7a3) return JONG[(last - 0xac00) % 28];
  if (/\d$/.test(s)) return numberFinal(s);
  const word = /([A-Za-z]+)$/.exec(s);
  if (word) return englishFinal(word[1].toLowerCase());
  if (last >= 0x3131 && last <= 0x314e) return String.fromCodePoint(last); // a lone consonant jamo
  return null;
}

function numberFinal(s) {
  const m = /(\d[\d,]*)(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  if (m[2] !== undefined) return SINO_DIGIT_FINAL[m[2][m[2].length - 1]];
  const digits = m[1].replace(/,/g, "");
  if (/^0+$/.test(digits)) return SINO_DIGIT_FINAL[0];
  const zeros = /0*$/.exec(digits)[0].length;
  if (zeros === 0) return SINO_DIGIT_FINAL[digits[digits.length - 1]];
  return zeros < PLACE_FINAL.length ? PLACE_FINAL[zeros] : null;
}

function englishFinal(w) {
  if (w.length === 1) {
    // Letter names: l 엘, m 엠, n 엔, r 알 end in a consonant; the others in a vowel.
    return { l: "ㄹ", m: "ㅁ", n: "ㄴ", r: "ㄹ" }[w] ?? "";
  }
  if (w.endsWith("ng")) return "ㅇ";
  const last = w[w.length - 1];
  if (last === "m") return "ㅁ";
  if (last === "n") return "ㄴ";
  if (last === "l") return "ㄹ";
  if (last === "e" && w.length > 3) {
    // A silent e: game 게임, phone 폰, smile 스마일, table 테이블 (short words keep the vowel: she 쉬).
    const prev = { m: "ㅁ", n: "ㄴ", l: "ㄹ" }[w[w.length - 2]];
    if (prev) return prev;
  }
  // p / t / k after a single short vowel: cat 캣, but 벗, book 북, back 백.
  if (/(^|[^aeiou])[aeiou]ck$/.test(w) || /(^|[^aeiou])[aeiou][ptk]$/.test(w) || /oo[kp]$/.test(w)) {
    return { p: "ㅂ", t: "ㅅ", k: "ㄱ" }[last];
  }
  return "";
}

/**
 * The form of `particle` (either form of a pair, e.g. "을" or "를", "로" or "으로") that
 * follows `text`. Unknown readings give both forms, "을(를)". A particle with no pair is
 * returned unchanged.
 */
export function particle(text, p) {
  const pair = PAIRS.find(([a, b]) => a === p || b === p);
  if (!pair) return p;
  const [cons, vowel] = pair;
  const f = finalSound(text);
  if (f === null) return cons === "으로" ? "(으)로" : `${cons}(${vowel})`;
  if (cons === "으로") return f === "" || f === "ㄹ" ? vowel : cons;
  return f === "" ? vowel : cons;
}

/** `text` followed by the right form of `p`: withParticle(1, "를") -> "1을". */
export function withParticle(text, p) {
  return `${text}${particle(text, p)}`;
}
