// The guided lesson: eleven live panels (nine in the order of the two source texts, then what
// attention weights do not tell you, then the encoder and decoder apart: BERT and GPT), each computing its numbers with the Rust engine. This module builds the page frame (header, language switch,
// contents) and the panels, and rebuilds them when the language changes; the panels' state
// lives in the URL (../state.js, prefixed keys), so a rebuild loses nothing. Text comes from
// ../i18n.js (the lesson's namespace, strings.js); the engine is ../engine.js, as in the lab.

import { pageHref } from "../runtime.js";
import { registerServiceWorker } from "../offline.js";
import { lessonT as t, setLang as setLanguage, getLang as lang, startLang, addStrings, LANGS } from "../i18n.js";
import { STRINGS } from "./strings.js";
import * as state from "../state.js";
import { h, button } from "./ui.js";
import { Engine } from "../engine.js";
import { SEED } from "./shared.js";
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

/** Shared sentences: panels 2-5 read `p2.s` (word vectors), panels 6, 8, 9, 10 read `p6.s` (translator). */
class Shared extends EventTarget {
  constructor() {
    super();
    this.words = state.str("p2.s", SEED);
    this.model = state.str("p6.s", SEED);
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

export function labHref(sentence) {
  const q = new URLSearchParams();
  if (sentence) q.set("s", sentence);
  if (state.has("lang")) q.set("lang", lang());
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

function build() {
  document.title = t("page.docTitle");
  buildHeader();
  shared = new Shared();
  const ctx = { engine, shared, labHref, onEngineError };
  const built = [];
  const sections = [];
  PANELS.forEach((make, i) => {
    const id = `p${i + 1}`;
    try {
      const p = make(ctx);
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
  const footer = h("footer", { class: "lesson-footer" }, h("p", { text: t("page.footer") }), h("p", {}, h("a", { href: labHref(shared.model), text: t("page.toLab") })));
  root.replaceChildren(buildIntro(), buildToc(built), ...sections, footer);
  root.classList.toggle("no-model", !engine.hasLab);
  root.setAttribute("aria-busy", "false");
  document.body.dataset.ready = "1";
  // Keep the top link carrying the translator's sentence.
  shared.addEventListener("model", () => {
    const a = /** @type {HTMLAnchorElement | null} */ (document.getElementById("lab-link-top"));
    if (a) a.href = labHref(shared.model);
  });
  /** @type {HTMLAnchorElement} */ (document.getElementById("lab-link-top")).href = labHref(shared.model);
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

async function main() {
  setLang(startLang(location.search, navigator.language));
  buildHeader();
  status.textContent = t("status.loading");
  root.setAttribute("aria-busy", "true");
  await engine.load();
  status.textContent = "";
  if (engine.errors.wasm) {
    status.textContent = t("err.wasm", { msg: engine.errors.wasm });
    status.classList.add("msg", "msg-error");
    return;
  }
  build();
  if (location.hash) {
    const target = document.getElementById(location.hash.slice(1));
    if (target) target.scrollIntoView();
  }
}

const started = main().catch((e) => {
  console.error(e);
  status.textContent = t("err.wasm", { msg: e.message || String(e) });
});
registerServiceWorker(started); // once the panels are built
