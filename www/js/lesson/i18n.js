// The lesson's language: every visible word comes from strings.js through t().
//
// The language is ?lang=ko|en, else the browser's (navigator.language), else English.

import { STRINGS } from "./strings.js";
import { LANGS, detectLang, fill } from "../i18n.js";

export { LANGS };
let current = "en";

/** The language the page should start in. */
export function detect(search, navLang) {
  const q = new URLSearchParams(search).get("lang");
  return LANGS.includes(q) ? q : detectLang(navLang);
}

export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : "en";
  document.documentElement.lang = current;
  document.documentElement.classList.toggle("lang-ko", current === "ko");
}

export function lang() {
  return current;
}

/**
 * The string `key` in the current language with `{name}` placeholders filled from `vars`.
 * A missing key shows itself (so a gap is visible, never silently blank) and warns once.
 */
const warned = new Set();
export function t(key, vars) {
  let s = STRINGS[current][key];
  if (s === undefined) s = STRINGS.en[key];
  if (s === undefined) {
    if (!warned.has(key)) {
      warned.add(key);
      console.warn(`lesson: no string for ${key}`);
    }
    return key;
  }
  return fill(s, vars);
}
