// The guided lesson: eleven live panels (nine in the order of the two source texts, then what
// attention weights do not tell you, then the encoder and decoder apart: BERT and GPT), each computing its numbers with the Rust engine. This module builds the page frame (header, language switch,
// contents) and the panels, and rebuilds them when the language changes; the panels' state
// lives in the URL (../state.js, prefixed keys), so a rebuild loses nothing. Text comes from
// ../i18n.js (the lesson's namespace, strings.js); the engine is ../engine.js, as in the lab.
//
// Text first, numbers when they come: the panels are built (headings, prose, controls) before
// the engine has loaded, with "…" where a figure will go; each panel hands what needs the engine
// to `ctx.ready(fn)`, which runs once it has loaded (at once after that), the panels nearest the
// reader first. `body[data-ready]` says the numbers are in, `body[data-text]` that the text is.

import { pageHref } from "../runtime.js";
import { whenKoreanFont } from "../dom.js";
import { registerServiceWorker } from "../offline.js";
import { lessonT as t, setLang as setLanguage, getLang as lang, startLang, addStrings, LANGS } from "../i18n.js";
import { STRINGS } from "./strings.js";
import * as state from "../state.js";
import { h, button } from "./ui.js";
import { Engine } from "../engine.js";
import { SEED, figures } from "./shared.js";
import { panel1 } from "./p1_average.js";
import { panel2 } from "./p2_words.js";
import { panel3 } from "./p3_qk.js";
import { panel4 } from "./p4_scale.js";
import { panel5 } from "./p5_mask.js";
import { panel6 } from "./p6_heads.js";
import { panel7 } from "./p7_order.js";
import { panel8 } from "./p8_block.js";
import { panel9 } from "./p9_translate.js";
import { panel10 } from "./p10_beyond.js";
import { panel11 } from "./p11_halves.js";

const PANELS = [panel1, panel2, panel3, panel4, panel5, panel6, panel7, panel8, panel9, panel10, panel11];

addStrings("lesson", STRINGS); // the lesson's namespace of the page's one string module

// one engine for every figure: the word vectors too, and a part that fails to load is reported
// (engine.errors) while the rest of the lesson works
const engine = new Engine({ words: true, tolerant: true });

/** The page's language, and the classes that pick its fonts. */
function setLang(l) {
  setLanguage(l);
  document.documentElement.lang = lang();
  document.documentElement.classList.toggle("lang-ko", lang() === "ko");
}
const root = document.getElementById("lesson");
const header = document.getElementById("lesson-header");
const status = document.getElementById("lesson-status");

/**
 * Shared sentences: `p2.s` (word vectors) and `p6.s` (translator). The panels that show a box
 * bound to one say so (`use`), so that every box can name the others (`panels`); "built" is
 * raised once every panel of a build has said.
 */
class Shared extends EventTarget {
  constructor() {
    super();
    this.words = state.str("p2.s", SEED);
    this.model = state.str("p6.s", SEED);
    /** @type {{words: Set<number>, model: Set<number>}} */
    this.users = { words: new Set(), model: new Set() };
  }

  /** Panel `n` shows a box bound to the sentence `which`. @param {"words" | "model"} which @param {number} n */
  use(which, n) {
    this.users[which].add(n);
  }

  /** The panels that show a box bound to `which`, in order. @param {"words" | "model"} which */
  panels(which) {
    return [...this.users[which]].sort((a, b) => a - b);
  }

  setWords(text) {
    if (text === this.words) return;
    this.words = text;
    state.put("p2.s", text, SEED);
    this.dispatchEvent(new Event("words"));
  }

  setModel(text) {
    if (text === this.model) return;
    this.model = text;
    state.put("p6.s", text, SEED);
    this.dispatchEvent(new Event("model"));
  }
}

let shared = new Shared();

function buildHeader() {
  const group = h("div", { class: "lang-switch", role: "group", "aria-labelledby": "lang-label" });
  group.append(h("span", { id: "lang-label", class: "lang-label", text: t("lang.label") }));
  for (const l of LANGS) {
    const b = button({
      text: t(`lang.${l}`),
      cls: "btn lang-btn",
      pressed: l === lang(),
      test: `lang-${l}`,
      onClick: () => switchLang(l),
    });
    b.setAttribute("lang", l);
    group.append(b);
  }
  const lab = h("a", { class: "lab-link", href: labHref(), text: t("page.toLab"), id: "lab-link-top" });
  header.replaceChildren(
    h("div", { class: "brand" }, h("p", { class: "kicker", text: t("page.kicker") }), h("h1", { text: t("page.title") })),
    h("div", { class: "header-tools" }, group, lab),
  );
}

/**
 * The lab on `sentence` (in the lesson's language when the reader chose one). With `at`, the id
 * of a part of the lab ("headgrid"): the state goes in the query string, which the lab reads as
 * well (state.js, locationParams), and the fragment names that part, so the browser opens the
 * lab scrolled to it.
 * @param {string} [sentence] @param {{at?: string}} [o]
 */
export function labHref(sentence, { at } = {}) {
  const q = new URLSearchParams();
  if (sentence) q.set("s", sentence);
  if (state.has("lang")) q.set("lang", lang());
  if (at) return `${pageHref("lab", q)}#${at}`;
  return pageHref("lab", null, q); // the lab reads its state from the fragment
}

function buildIntro() {
  return h(
    "section",
    { class: "intro", "aria-labelledby": "intro-h" },
    h("h2", { id: "intro-h", class: "sr-only", text: t("page.introTitle") }),
    h("p", { class: "lede", text: t("page.lede") }),
    h("p", { text: t("page.how") }),
    h("p", { class: "sources", text: t("page.sources") }),
  );
}

function buildToc(built) {
  const ol = h("ol", { class: "toc-list" });
  for (const p of built) ol.append(h("li", {}, h("a", { href: `#${p.id}`, text: p.title })));
  return h("nav", { class: "toc", "aria-labelledby": "toc-h" }, h("h2", { id: "toc-h", text: t("page.toc") }), ol);
}

function panelFrame(p, index) {
  const sec = h("section", { id: p.id, class: "panel", "aria-labelledby": `${p.id}-h`, "data-test": `panel-${index + 1}` });
  sec.append(h("h2", { id: `${p.id}-h` }, h("span", { class: "panel-num", "aria-hidden": "true", text: String(index + 1) }), h("span", { text: p.title })));
  return sec;
}

function failedPanel(id, index, e) {
  const sec = h("section", { id, class: "panel", "aria-labelledby": `${id}-h`, "data-test": `panel-${index + 1}` });
  sec.append(h("h2", { id: `${id}-h`, text: t(`${id}.title`) }), h("p", { class: "msg msg-error", role: "alert", text: t("err.panel", { msg: e.message || String(e) }) }));
  return sec;
}

/** The engine has loaded (whatever parts of it did). */
let loaded = false;
/** A build is under way: what its panels hand to `ready` waits until they are on the page. */
let building = false;
/** What the panels of the current build run once it has: {index, fn}, in the order they asked. */
let pending = [];
/** Which build is current (a language switch rebuilds): callbacks of an older one are dropped. */
let generation = 0;

/**
 * The panels' context: the one engine, the shared sentences, links to the lab, the page's
 * recovery from an engine error, the panel's own number (`panel`), and `ready(fn)`: run `fn`
 * once the engine has loaded (at once if it has); `loaded` says whether it has.
 * @param {number} index
 */
function panelContext(index) {
  return {
    engine,
    shared,
    labHref,
    onEngineError,
    panel: index + 1,
    get loaded() {
      return loaded;
    },
    /** @param {() => void} fn */
    ready(fn) {
      if (loaded && !building) run(index, fn);
      else pending.push({ index, fn });
    },
  };
}

/** A panel's engine work: an error replaces the panel by a message, as when building fails. */
function run(index, fn) {
  try {
    fn();
  } catch (e) {
    console.error(e);
    const id = `p${index + 1}`;
    const sec = document.getElementById(id);
    if (sec) sec.replaceWith(failedPanel(id, index, e));
  }
}

function build() {
  document.title = t("page.docTitle");
  buildHeader();
  shared = new Shared();
  pending = [];
  generation += 1;
  building = true;
  const built = [];
  const sections = [];
  PANELS.forEach((make, i) => {
    const id = `p${i + 1}`;
    try {
      const p = make(panelContext(i));
      built.push(p);
      const sec = panelFrame(p, i);
      sec.append(p.body);
      sections.push(sec);
    } catch (e) {
      console.error(e);
      built.push({ id, title: t(`${id}.title`) });
      sections.push(failedPanel(id, i, e));
    }
  });
  shared.dispatchEvent(new Event("built"));
  const footerText = h("p", { "data-test": "lesson-footer-model" });
  const fillFooter = () => (footerText.textContent = t("page.footer", figures(engine)));
  fillFooter();
  pending.push({ index: -1, fn: fillFooter });
  const footer = h("footer", { class: "lesson-footer" }, footerText, h("p", {}, h("a", { href: labHref(shared.model), text: t("page.toLab") })));
  root.replaceChildren(buildIntro(), buildToc(built), ...sections, footer);
  document.body.dataset.text = "1";
  // Keep the top link carrying the translator's sentence.
  shared.addEventListener("model", () => {
    const a = /** @type {HTMLAnchorElement | null} */ (document.getElementById("lab-link-top"));
    if (a) a.href = labHref(shared.model);
  });
  /** @type {HTMLAnchorElement} */ (document.getElementById("lab-link-top")).href = labHref(shared.model);
  building = false;
  if (loaded) fill(false); // a rebuild (language, recovery): at once, as the page was
}

/**
 * Give the engine to the current build's panels: the ones nearest the reader first and, on the
 * page's first load (`progressive`), one panel per task, so that the page paints each as it fills.
 * @param {boolean} progressive
 */
async function fill(progressive) {
  const mine = generation;
  const jobs = pending;
  pending = [];
  root.classList.toggle("no-model", !engine.hasLab);
  const near = (i) => {
    const sec = i >= 0 && document.getElementById(`p${i + 1}`);
    if (!sec) return Infinity;
    const r = sec.getBoundingClientRect();
    return r.bottom < 0 ? -r.bottom : r.top > innerHeight ? r.top - innerHeight : 0;
  };
  const order = [...new Set(jobs.map((p) => p.index))].sort((a, b) => near(a) - near(b));
  for (const index of order) {
    if (mine !== generation) return;
    for (const p of jobs) if (p.index === index) run(index, p.fn);
    if (progressive) await new Promise((r) => setTimeout(r, 0));
  }
  if (mine !== generation) return;
  root.setAttribute("aria-busy", "false");
  document.body.dataset.ready = "1";
  followHash();
}

function switchLang(l) {
  const focusLang = l;
  setLang(l);
  state.put("lang", l, null);
  build();
  const b = /** @type {HTMLElement | null} */ (header.querySelector(`[data-test="lang-${focusLang}"]`));
  if (b) b.focus();
}

let recovering = false;
/** A panel saw the engine panic: restart it once and rebuild. */
async function onEngineError(e) {
  if (!(e instanceof WebAssembly.RuntimeError) || recovering) return;
  recovering = true;
  status.textContent = t("status.restart");
  await engine.recover();
  recovering = false;
  status.textContent = "";
  build();
}

// The panel a link names (#p10): the page opens on it, and stays on it while the panels above
// fill in and grow, until the reader scrolls, types or clicks.
let followingHash = false;
function followHash() {
  const id = location.hash.slice(1);
  const target = id && !id.includes("=") ? document.getElementById(id) : null;
  if (target && followingHash) target.scrollIntoView({ behavior: "instant", block: "start" });
}
function startFollowingHash() {
  if (!location.hash) return;
  followingHash = true;
  const stop = () => {
    followingHash = false;
    for (const ev of ["wheel", "touchstart", "keydown", "pointerdown"]) removeEventListener(ev, stop, true);
  };
  for (const ev of ["wheel", "touchstart", "keydown", "pointerdown"]) addEventListener(ev, stop, { capture: true, passive: true });
  addEventListener("hashchange", stop);
  new ResizeObserver(followHash).observe(root);
  followHash();
}

/**
 * Chromium keeps some text in the fallback font it was drawn with while the page's Korean font
 * (css/fonts.css) was still on its way (a heading, a label, a button: boxes, on a machine without
 * a Korean font), where the rest takes the font when it arrives. The lesson draws its text before
 * the engine loads, so most of it is drawn in that time: once the font is in, the text that was
 * on the page gets its nodes again, which draws it with the font.
 */
function redrawText() {
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const nodes = [];
  while (walk.nextNode()) if (/[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/u.test(walk.currentNode.textContent)) nodes.push(walk.currentNode);
  for (const n of nodes) n.parentNode.replaceChild(document.createTextNode(n.textContent), n);
}

async function main() {
  setLang(startLang(location.search, navigator.language));
  buildHeader();
  status.textContent = t("status.loading");
  root.setAttribute("aria-busy", "true");
  build();
  whenKoreanFont(redrawText);
  startFollowingHash();
  await engine.load();
  loaded = true;
  status.textContent = "";
  if (engine.errors.wasm) {
    status.textContent = t("err.wasm", { msg: engine.errors.wasm });
    status.classList.add("msg", "msg-error");
    root.setAttribute("aria-busy", "false");
    return;
  }
  await fill(true);
}

const started = main().catch((e) => {
  console.error(e);
  status.textContent = t("err.wasm", { msg: e.message || String(e) });
});
registerServiceWorker(started); // once the panels are built
