// The lab: a layout of panels (panels/*.js) over one session (session.js), plus what only the
// full page has: the sentence box with its unknown-word suggestions and example sentences, the
// language buttons, sharing, and the URL that mirrors the state.
//
//   sentence box ─► session ─► translation · translation now · controls · heatmap · head grid ·
//                                W_Q/W_K · weighted average · dot product · decoding · word order
//
// Every view and the engine steps behind it live in the panels and the session, shared with the
// embeddable panels (panel.js: ?embed=1 and <attnscope-panel>).

import { t, setLang, getLang, detectLang, applyI18n, modelKey } from "./i18n.js";
import * as S from "./state.js";
import { Session } from "./session.js";
import { pageHref } from "./runtime.js";
import { registerServiceWorker } from "./offline.js";
import { el, fmtCount, setLanguage, warmCanvasFonts } from "./dom.js";
import * as P from "./panels/index.js";
import { setupShare, linkFor } from "./share.js";
import { startEmbed } from "./embed.js";
import { SentenceBox } from "./sentence_box.js";
import { Suggestions, isWord } from "./suggest.js";
import { EXAMPLES, exampleLabel } from "./examples.js";
import { setupOpenModel } from "./open_model.js";
import { siteModel, modelLabel } from "./models.js";
import * as C from "./core.js";

const params = S.locationParams(); // the query string and the fragment (state.js)
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------------------------------------
// The session, and what the page shows of its messages

function note(id, text) {
  $(id).hidden = !text;
  if (text) $(id).textContent = text;
}

const bench = params.has("bench") ? { pending: [], samples: [], parts: [], caughtUp: [] } : null;
if (bench) /** @type {any} */ (window).__attnscopeBench = bench;

const initial = S.fromLocation();
const session = new Session({
  state: initial,
  lang: initial.lang || detectLang(navigator.language),
  bench,
  onState: S.mirror,
  onRun: () => {
    renderModelInfo();
    // navigation to the first translation on screen: make bench-page reports it (cold start)
    if (!performance.getEntriesByName("attnscope-first-translation").length) performance.mark("attnscope-first-translation");
    // ready once the panels out of view have drawn too (session.render's `defer`)
    session.rendered.then(() => (document.body.dataset.ready = "1"));
  },
  onError: (msg) => {
    $("banner").hidden = !msg;
    if (msg) $("banner-text").textContent = msg;
  },
  onStatus: (text) => ($("status").textContent = text),
  onInput: (text) => note("notice-input", text),
  onRejectedEdits: (n) => note("notice-link", n ? t("link.badEdits", { n }) : null),
});

/** Neighbours of unknown words from the GloVe vectors, loaded on first need (suggest.js). */
let suggestions = null;
let box = null;
let orderView = null;
/** The dot-product panel: a heatmap cell picks its key, a W_Q/W_K cell marks its dimension. */
let dotView = null;

// ---------------------------------------------------------------------------------------------
// The layout

function mountPanels() {
  session.mount(P.translationPanel, $("translation-panel"), { ids: true, for: "sentence" });
  // the translation again where the switches are, kept in view while they are used
  session.mount(P.nowPanel, $("translation-now"));
  session.mount(P.cardPanel, $("model-card"), { heading: "h3" });
  session.mount(P.controlsPanel, document.querySelector("main"), { bind: true, followMask: true }).render();
  session.mount(P.heatmapPanel, $("attention-map"), {
    explain: true,
    heading: "h3",
    exportLink: linkFor,
    ids: { title: "heatmap-title", map: "heatmap-main", legend: "legend-main", legendText: "legend-text", stats: "attn-stats", export: "export-main" },
    onCell: (r, c) => dotView?.selectKey(c),
  });
  session.mount(P.gridPanel, $("headgrid"));
  session.mount(P.importancePanel, $("importance"));
  session.mount(P.headsGuidePanel, $("heads-guide"), { onShow: () => $("attention-map").scrollIntoView({ behavior: "smooth", block: "start" }) });
  // the edited head's map stays on screen beside the W_Q/W_K grids while a cell is dragged
  session.mount(P.heatmapPanel, $("qk-map"), { mini: true, heading: "h3", maxHeight: 200, onCell: (r, c) => dotView?.selectKey(c) });
  session.mount(P.qkPanel, $("qk"), { onCell: (m, d) => dotView?.highlight(d), why: "#sec-dot" });
  session.mount(P.weightedPanel, $("wavg"));
  dotView = session.mount(P.dotPanel, $("dot"));
  session.mount(P.decodingPanel, $("decoding"), { section: $("sec-decoding") });
  session.mount(P.predictionPanel, $("prediction"), { section: $("sec-predict"), onText: translateNow });
  orderView = session.mount(P.orderPanel, $("order-panel"), { section: $("sec-order") });
}

// ---------------------------------------------------------------------------------------------
// The sentence box, its hint and the example sentences

let typingTimer = 0;
function translateNow(text) {
  clearTimeout(typingTimer);
  /** @type {HTMLTextAreaElement} */ ($("sentence")).value = text;
  box.render();
  session.setSentence(text);
}

function setupSentence() {
  const ta = /** @type {HTMLTextAreaElement} */ ($("sentence"));
  box = new SentenceBox({
    textarea: ta,
    marks: $("sentence-marks"),
    list: $("sentence-unknown"),
    summary: $("sentence-unknown-summary"),
    tokenize: (text) => session.tokenize(text),
    suggestions: () => suggestions,
    onReplace: translateNow,
    t,
  });
  ta.value = session.state.sentence;
  ta.addEventListener("input", () => {
    session.setState({ sentence: ta.value });
    box.update();
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => session.retranslate(), 350);
  });
  ta.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      translateNow(ta.value);
    }
  });
  $("btn-seed").addEventListener("click", () => translateNow(S.SEED_SENTENCE));
  const tryList = $("try-list");
  const clearPreview = () => {
    if (!tryList.contains(document.activeElement)) $("try-preview").textContent = "";
  };
  tryList.addEventListener("mouseleave", clearPreview);
  tryList.addEventListener("focusout", () => setTimeout(clearPreview, 0));
}

/** How many entries of the model's source vocabulary are words: counted once per model. */
let known = { info: null, n: 0 };
function knownWords() {
  if (known.info !== session.info) known = { info: session.info, n: session.info.srcVocab.filter(isWord).length };
  return known.n;
}

/** The hint under the box: how to use it, and what the model knows (counted from the model). */
function renderHint() {
  const out = session.info?.output ?? "translation";
  let text = t(out === "translation" ? "sentence.hint" : `sentence.hint.${out}`);
  if (session.info) {
    text += ` ${t(out === "translation" ? "sentence.knows" : "sentence.knowsTokens", { n: fmtCount(out === "translation" ? knownWords() : session.info.srcVocab.length) })}`;
  }
  $("sentence-hint").textContent = text;
}

/** "Try these": one button per example sentence (examples.js). */
function renderExamples() {
  const lang = getLang();
  const preview = $("try-preview");
  const buttons = EXAMPLES.map((ex) => {
    const label = exampleLabel(ex, lang);
    const b = el("button", "btn btn-small", { type: "button", "aria-label": t("examples.button", { label, sentence: ex.text }) }, label);
    b.addEventListener("click", () => translateNow(ex.text));
    const show = () => {
      preview.textContent = `“${ex.text}”`;
    };
    b.addEventListener("mouseenter", show);
    b.addEventListener("focus", show);
    return b;
  });
  $("try-list").replaceChildren(...buttons);
}

function renderModelInfo() {
  const info = session.info;
  if (!info) return;
  if (session.modelName) {
    const key = siteModel(session.modelName) ? "foot.modelSite" : "foot.modelOpened";
    $("model-info").textContent = t(key, { name: modelLabel(session.modelName, t), arch: t(`card.arch.${info.architecture}`) });
    return;
  }
  $("model-info").textContent = t("foot.model", {
    d: info.dModel,
    h: info.nhead,
    enc: info.encoderLayers,
    dec: info.decoderLayers,
    ff: info.dimFeedforward,
    max: info.maxLen,
    vocab: knownWords(), // the same count as the hint's
  });
}

// ---------------------------------------------------------------------------------------------
// What the page shows of the model: only what it has

/**
 * Show the page's static parts a model has (`data-needs="encoder"`, core.supports) and word
 * the family's labels (`data-i18n-family="key"`: `key` for the translator, `key.<output>` for a
 * model with another output), then the permalink's note about the model it was made with.
 */
function renderForModel() {
  const info = session.info;
  if (!info) return;
  for (const e of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-needs]"))) e.hidden = !C.supports(info, e.dataset.needs.split(" "));
  for (const e of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-i18n-family]"))) {
    e.dataset.i18n = modelKey(e.dataset.i18nFamily, info);
  }
  applyI18n(document);
  setLanguage($("sentence"), session.engine.languages.source);
  // a permalink made with another model: the site's own comes with one click, a file is the reader's
  const wanted = linkedModel;
  const other = wanted !== null && wanted !== session.modelName;
  const site = other ? siteModel(wanted) : undefined;
  const key = !other ? null : site ? "link.siteModel" : wanted ? "link.otherModel" : "link.demoModel";
  $("notice-model-box").hidden = !key;
  if (key) $("notice-model").textContent = t(key, { name: site ? t(site.label) : wanted, shown: modelLabel(session.modelName, t) });
  const load = /** @type {HTMLButtonElement} */ ($("btn-linked-model"));
  load.hidden = !site;
  if (site) load.textContent = t("link.loadModel", { name: t(site.label) });
  models?.render();
}

/** The model a permalink was made with (its `model` field), null when the page was not opened from one. */
const linkedModel = params.has("model") ? initial.model : null;
/** The lab's model chooser (open_model.js). @type {ReturnType<typeof setupOpenModel> | null} */
let models = null;

// ---------------------------------------------------------------------------------------------
// Language, sharing, the word-order buttons

function applyLanguage(lang) {
  setLang(lang);
  session.setLang(lang);
  document.documentElement.lang = lang;
  document.title = t("app.title");
  applyI18n(document);
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll(".lang-btn"))) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
  const lesson = /** @type {HTMLAnchorElement | null} */ (document.getElementById("lesson-link"));
  if (lesson) lesson.href = pageHref("lesson", { lang });
  const train = /** @type {HTMLAnchorElement | null} */ (document.getElementById("train-link"));
  if (train) train.href = pageHref("train", { lang });
}

function wire() {
  $("banner-close").addEventListener("click", () => ($("banner").hidden = true));
  setupShare({ getState: () => session.state, getLang, t });
  // opening the comparison shows the head where word order matters most
  const openPair = async () => {
    await session.setPair(true);
    const most = orderView.mostHead();
    const s = session.state;
    if (most && !(s.stack === "encoder" && s.layer === most.layer && s.head === most.head)) session.select({ stack: "encoder", layer: most.layer, head: most.head });
    $("sec-order").scrollIntoView({ behavior: "smooth", block: "start" });
  };
  $("btn-pair").addEventListener("click", openPair);
  $("btn-pair-2").addEventListener("click", openPair);
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll(".lang-btn"))) {
    b.addEventListener("click", () => {
      session.setState({ lang: b.dataset.lang });
      applyLanguage(b.dataset.lang);
      renderHint();
      renderExamples();
      box.render();
      renderModelInfo();
      renderForModel();
      session.render();
    });
  }
  models = setupOpenModel({
    session,
    t,
    buttons: [/** @type {HTMLButtonElement} */ ($("btn-open-model")), /** @type {HTMLButtonElement} */ ($("btn-open-model-2"))],
    input: /** @type {HTMLInputElement} */ ($("model-file")),
    demo: /** @type {HTMLButtonElement} */ ($("btn-demo-model")),
    progress: /** @type {HTMLProgressElement} */ ($("open-progress")),
    status: $("open-status"),
    dropZone: document.body,
    choices: $("model-options"),
    keepButton: /** @type {HTMLButtonElement} */ ($("btn-keep")),
    onOpened: () => {
      suggestions = session.info ? new Suggestions(session.info.srcVocab) : null;
      /** @type {HTMLTextAreaElement} */ ($("sentence")).value = session.state.sentence;
      box.update();
      renderHint();
      renderForModel();
    },
  });
  $("btn-linked-model").addEventListener("click", () => linkedModel !== null && models?.choose(linkedModel));
}

async function boot() {
  applyLanguage(session.lang);
  mountPanels();
  setupSentence();
  wire();
  renderHint();
  renderExamples();
  const loading = session.load(); // the model and the engine download from here on
  warmCanvasFonts();
  await loading;
  if (session.info) {
    suggestions = new Suggestions(session.info.srcVocab);
    renderHint();
    renderForModel();
  }
  if (!session.cur) document.body.dataset.ready = "error";
  if (params.has("debug")) /** @type {any} */ (window).attnscope = { session, get engine() { return session.engine; }, get state() { return session.state; } };
}

// ?embed=1: one panel for an <iframe> (embed.js); otherwise the whole lab
const started = params.get("embed") === "1" ? startEmbed(params).loaded : boot();
registerServiceWorker(started); // once the first translation is on screen
