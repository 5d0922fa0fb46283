// One panel of the lab on its own, with the controls its author chose: what an <iframe> shows
// in embed mode (embed.js, index.html?embed=1) and what <attnscope-panel> renders in its shadow
// DOM (attnscope-panel.js).
//
//   const panel = mountPanel(container, { state, panel: "qk", controls: ["layer", "head"] });
//   panel.update({ head: 2 });          // a state patch (sentence, options, edits, lang, ...)
//   panel.configure({ panel, controls }) // another panel or other controls, same engine
//
// The views are the lab's own panels (panels/*.js) on a session of their own (session.js: its
// own sentence, options and W_Q/W_K edits), so several panels on one page never interfere; they
// share the compiled module and the model bytes. This file adds only the frame around them: a
// title, the sentence and its translation, the chosen controls (controls.js), messages and a
// link to the lab. Text comes in the panel's own language (a page may hold an English and a
// Korean panel).

import * as S from "./state.js";
import * as C from "./core.js";
import { Session } from "./session.js";
import { pageHref } from "./runtime.js";
import { el, setText, setLanguage } from "./dom.js";
import { CONTROLS, controlsPanel } from "./controls.js";
import { heatmapPanel, weightedPanel, dotPanel, decodingPanel, qkPanel, orderPanel, gridPanel, importancePanel } from "./panels/index.js";

export { CONTROLS };

/** What each embeddable panel mounts: [view, options] in order. */
const LAYOUT = {
  heatmap: [[heatmapPanel, {}]],
  weighted: [[weightedPanel, {}]],
  dot: [[dotPanel, {}]],
  decoding: [[decodingPanel, {}]],
  qk: [
    [heatmapPanel, { maxHeight: 320 }],
    [qkPanel, {}],
  ],
  order: [[orderPanel, { always: true }]],
  heads: [
    [gridPanel, {}],
    [importancePanel, {}],
  ],
};

export const PANELS = Object.keys(LAYOUT);

/** Controls when none are named. */
export const DEFAULT_CONTROLS = {
  heatmap: ["stack", "layer", "head"],
  weighted: ["stack", "layer", "head"],
  dot: ["stack", "layer", "head"],
  decoding: ["layer", "head"],
  qk: ["stack", "layer", "head"],
  order: ["pe", "layer", "head"],
  heads: ["stack"],
};

// controls that mean nothing for a panel (decoding shows cross-attention, order the encoder)
const NOT_FOR = {
  weighted: ["show", "export"],
  dot: ["show", "export"],
  decoding: ["stack", "show", "export"],
  order: ["stack", "show", "export"],
  heads: ["show", "export"],
};

// the attention a panel shows whatever the state says
const FIXED_STACK = { decoding: "decoder_cross", order: "encoder" };

export function parsePanel(value) {
  return PANELS.includes(value) ? value : "heatmap";
}

/** The controls named in `value` ("mask,scale heads"), known ones only; null/undefined = defaults. */
export function parseControls(value, panel) {
  const list = value === null || value === undefined ? DEFAULT_CONTROLS[panel] : String(value).split(/[\s,]+/);
  const not = NOT_FOR[panel] || [];
  return [...new Set(list.filter((c) => CONTROLS.includes(c) && !not.includes(c)))];
}

class EmbeddedPanel {
  // `heading`: the title's level, "h2" (a panel on someone's page) or "h1" (the embed page's own
  // title); the views' sub-titles are one level below.
  constructor(container, { state, panel, controls, onState, onReady, heading = "h2" }) {
    this.heading = heading === "h1" ? "h1" : "h2";
    this.panel = parsePanel(panel);
    this.controls = parseControls(controls, this.panel);
    this.inputNote = null;
    this.session = new Session({
      state,
      onState: (s) => {
        this.renderHead();
        (onState || (() => {}))(s);
      },
      onRun: () => {
        this.renderHead();
        // ready once the panel has drawn, even when out of view (session.render's `defer`)
        this.session.rendered.then(() => (this.root.dataset.ready = "1"));
      },
      onError: (msg) => {
        this.error.hidden = !msg;
        if (msg) this.error.textContent = msg;
      },
      onStatus: (text) => {
        this.status.textContent = text;
        this.status.hidden = !text;
      },
      onInput: (text) => {
        this.inputNote = text;
        this.renderNote();
      },
      onRejectedEdits: () => this.renderNote(),
    });
    this.build(container);
    this.loaded = this.session.load().then(async (ok) => {
      if (!ok && !this.session.cur) this.root.dataset.ready = "error";
      await this.session.rendered;
      if (ok) (onReady || (() => {}))();
    });
  }

  get state() {
    return this.session.state;
  }

  get lang() {
    return this.session.lang;
  }

  build(container) {
    const t = this.session.t;
    this.root = el("div", "ap", { "data-panel": this.panel, "data-ready": "0", lang: this.lang, role: "region" });
    this.titleEl = el(this.heading, "ap-title", { id: `${this.session.uid}-title` });
    this.root.setAttribute("aria-labelledby", this.titleEl.id);
    this.sentenceEl = el("p", "ap-sentence");
    this.controlsEl = el("div", "ap-controls");
    this.status = el("p", "ap-status", { role: "status" });
    this.error = el("p", "notice peek ap-error", { role: "alert" });
    this.note = el("p", "notice warn ap-note");
    this.body = el("div", "ap-body");
    this.foot = el("p", "ap-foot");
    this.error.hidden = this.note.hidden = true;
    this.root.append(this.titleEl, this.sentenceEl, this.controlsEl, this.status, this.error, this.note, this.body, this.foot);
    container.append(this.root);
    this.mountViews();
    setText(this.titleEl, t(`panel.${this.panel}`));
  }

  /** Mount the panel's views and controls (again, after configure). */
  mountViews() {
    const session = this.session;
    session.unmountAll();
    this.root.dataset.panel = this.panel;
    this.controlsEl.replaceChildren();
    this.body.replaceChildren();
    const controls = session.mount(controlsPanel, this.controlsEl, { names: this.controls, stack: FIXED_STACK[this.panel] });
    if (!session.cur) controls.render();
    const exportLink = this.controls.includes("export") ? () => this.labLink() : null;
    for (const [def, opts] of LAYOUT[this.panel]) {
      const box = el("div", `ap-${def.name}`);
      this.body.append(box);
      const subheading = this.heading === "h1" ? "h2" : "h3";
      session.mount(def, box, def === heatmapPanel ? { ...opts, exportLink, subheading } : { ...opts, subheading });
    }
    session.showTables();
  }

  renderNote() {
    const rejected = this.session.rejectedEdits;
    const text = this.inputNote || (rejected ? this.session.t("link.badEdits", { n: rejected }) : null);
    this.note.hidden = !text;
    if (text) this.note.textContent = text;
  }

  renderHead() {
    const { t, state: s, cur } = this.session;
    let title = t(`panel.${this.panel}`);
    if ((this.panel === "heatmap" || this.panel === "qk" || this.panel === "weighted" || this.panel === "dot") && cur) {
      // the heatmap's own label: "rollout through layer 2 (all heads)" in the rollout view
      let label = C.heatmapLabel(t, s.stack, s.layer, s.head);
      try {
        if (this.panel === "heatmap") label = C.heatmapData(cur, s, t, this.session.engine).label;
      } catch {
        /* the engine failed: the map's own render reports it */
      }
      title = C.heatmapTitle(s, label, t);
    }
    setText(this.titleEl, title);
    this.root.lang = this.lang;
    this.sentenceEl.replaceChildren();
    if (cur && this.panel !== "order") {
      const tr = cur.tr?.text || t("translation.nothing");
      const { source, target } = this.session.engine.languages;
      const [from, to] = [el("span", "ap-src", {}, `“${this.session.lastGood ?? s.sentence}”`), el("span", "ap-tr", {}, tr)];
      setLanguage(from, source);
      setLanguage(to, target);
      this.sentenceEl.append(from, " → ", to);
    }
    this.foot.replaceChildren();
    // every embed links to the lab, an iframe's too (its snippet allows the new tab: share.js)
    if (cur) this.foot.append(el("a", "ap-open", { href: this.labLink(), target: "_blank", rel: "noopener" }, t("panel.open")));
    this.foot.hidden = !this.foot.firstChild;
  }

  /** The lab with this panel's state. */
  labLink() {
    // the site root (the folder above js/); the single-file build is one page: its own URL
    const base = globalThis.ATTNSCOPE_INLINE ? location.href : new URL("../", import.meta.url);
    return new URL(pageHref("lab", null, S.toQuery(S.update(this.state, { lang: this.lang }), "")), base).href;
  }

  /** Apply a state patch from outside (the element's attributes): re-run what it affects. */
  async update(patch) {
    await this.loaded;
    await this.session.update(patch);
    this.renderHead();
  }

  /** Another panel kind or other controls: rebuild the DOM, keep the engine and its run. */
  configure({ panel, controls }) {
    this.panel = parsePanel(panel);
    this.controls = parseControls(controls, this.panel);
    this.mountViews();
    if (this.session.needsPair() && !this.session.pair && this.session.cur) this.session.retranslate({ keepStep: true });
    else this.session.render();
    this.renderHead();
  }
}

/** Mount one panel into `container` (an element or a shadow root); returns its controller. */
export function mountPanel(container, opts) {
  return new EmbeddedPanel(container, opts);
}
