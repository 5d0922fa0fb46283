// One panel of the lab on its own, with the controls its author chose: what an <iframe> shows
// in embed mode (embed.js, index.html?embed=1) and what <attnscope-panel> renders in its shadow
// DOM (attnscope-panel.js).
//
//   const panel = mountPanel(container, { state, panel: "qk", controls: ["layer", "head"] });
//   panel.update({ head: 2 });          // a state patch (sentence, options, edits, lang, ...)
//   panel.configure({ panel, controls }) // another panel or other controls, same engine
//
// Each panel has its own engine (its own Lab: sentence, options and W_Q/W_K edits), so several
// panels on one page never interfere; they share the compiled module and the model bytes
// (runtime.js, engine.js). The views are the lab's own (heatmap.js, weighted_average.js,
// decoding.js, qk_editor.js) and what they show comes from core.js, as in the lab. Text comes
// from i18n.js in the panel's own language (a page may hold an English and a Korean panel).

import * as S from "./state.js";
import * as C from "./core.js";
import { Engine, EngineBroken } from "./engine.js";
import { ASSET, pageHref } from "./runtime.js";
import { translate, detectLang } from "./i18n.js";
import { Heatmap } from "./heatmap.js";
import { WeightedAverage } from "./weighted_average.js";
import { Decoding } from "./decoding.js";
import { QKEditor } from "./qk_editor.js";
import { paintLegend } from "./colors.js";
import { el, fmt, setText, setLiveText } from "./dom.js";
import { applyEdits, encodeEdits } from "./edits.js";
import * as X from "./export.js";

export const PANELS = ["heatmap", "weighted", "decoding", "qk", "order"];

/** Controls a panel can offer (`controls=` in the URL, `controls` attribute of the element). */
export const CONTROLS = ["sentence", "stack", "layer", "head", "show", "mask", "encmask", "scale", "pe", "heads", "tables", "export"];

/** Controls when none are named. */
export const DEFAULT_CONTROLS = {
  heatmap: ["stack", "layer", "head"],
  weighted: ["stack", "layer", "head"],
  decoding: ["layer", "head"],
  qk: ["stack", "layer", "head"],
  order: ["pe", "layer", "head"],
};

// controls that mean nothing for a panel (decoding shows cross-attention, order the encoder)
const NOT_FOR = {
  weighted: ["show", "export"],
  decoding: ["stack", "show", "export"],
  order: ["stack", "show", "export"],
};

/** <attnscope-panel> attributes -> the lab's URL parameters (state.js): one parser for both. */
export const STATE_ATTRS = {
  sentence: "s",
  query: "q",
  stack: "stack",
  layer: "layer",
  head: "head",
  show: "show",
  step: "step",
  heads: "heads",
  mask: "mask",
  encmask: "encmask",
  scale: "scale",
  pe: "pe",
  tables: "tables",
  lang: "lang",
  qk: "qk",
};

const CHECKS = { mask: ["causalDecoder", "opt.mask"], encmask: ["causalEncoder", "opt.encmask"], scale: ["scale", "opt.scale"], pe: ["positional", "opt.pe"], tables: ["tables", "opt.tables"] };
const OPTION_KEYS = ["causalDecoder", "causalEncoder", "scale", "positional", "heads"];

export function parsePanel(value) {
  return PANELS.includes(value) ? value : "heatmap";
}

/** The controls named in `value` ("mask,scale heads"), known ones only; null/undefined = defaults. */
export function parseControls(value, panel) {
  const list = value === null || value === undefined ? DEFAULT_CONTROLS[panel] : String(value).split(/[\s,]+/);
  const not = NOT_FOR[panel] || [];
  return [...new Set(list.filter((c) => CONTROLS.includes(c) && !not.includes(c)))];
}

let uidCounter = 0;

class Panel {
  constructor(container, { state, panel, controls, onState, onReady, linkOut = true }) {
    this.container = container;
    this.state = state;
    this.panel = parsePanel(panel);
    this.controls = parseControls(controls, this.panel);
    this.onState = onState || (() => {});
    this.onReady = onReady || (() => {});
    this.linkOut = linkOut;
    this.lang = state.lang || detectLang(globalThis.navigator?.language);
    this.t = (key, params) => translate(this.lang, key, params);
    this.uid = `ap${(uidCounter += 1)}`;
    this.engine = null;
    this.info = null;
    this.cur = null;
    this.pair = null;
    this.lastGood = null;
    this.qkRange = new Map();
    this.pending = new Map();
    this.raf = 0;
    this.endTimer = 0;
    this.typing = 0;
    this.build();
    this.loaded = this.load();
  }

  // -------------------------------------------------------------------------------------------
  // DOM

  build() {
    const t = this.t;
    this.root = el("div", "ap", { "data-panel": this.panel, "data-ready": "0", lang: this.lang });
    this.titleEl = el("h2", "ap-title", { id: `${this.uid}-title` });
    this.root.setAttribute("role", "region");
    this.root.setAttribute("aria-labelledby", this.titleEl.id);
    this.sentenceEl = el("p", "ap-sentence");
    this.controlsEl = el("div", "ap-controls");
    this.status = el("p", "ap-status", { role: "status" });
    this.error = el("p", "notice peek ap-error", { role: "alert" });
    this.error.hidden = true;
    this.note = el("p", "notice warn ap-note");
    this.note.hidden = true;
    this.body = el("div", "ap-body");
    this.foot = el("p", "ap-foot");
    this.root.append(this.titleEl, this.sentenceEl, this.controlsEl, this.status, this.error, this.note, this.body, this.foot);
    this.container.append(this.root);
    this.buildControls();
    this.buildViews();
    this.setStatus(t("status.loading"));
  }

  buildViews() {
    const t = this.t;
    const v = (this.views = {});
    this.body.replaceChildren();
    this.root.dataset.panel = this.panel;
    const box = (cls = "") => {
      const d = el("div", cls);
      this.body.append(d);
      return d;
    };
    const legend = () => {
      const wrap = box("legend");
      const canvas = el("canvas", "", { "aria-hidden": "true" });
      const text = el("span", "legend-text");
      wrap.append(canvas, text);
      return { canvas, text };
    };
    if (this.panel === "heatmap" || this.panel === "qk") {
      v.axis = box("axis-note");
      v.axis.append(el("span", "role-query"), el("span", "role-key"));
      v.main = new Heatmap(box("ap-heatmap"), { onSelectRow: (r) => this.select({ query: r }), t, maxHeight: this.panel === "qk" ? 320 : 560 });
      v.legend = legend();
      v.stats = box("hint ap-stats");
    }
    if (this.panel === "qk") {
      v.qk = new QKEditor(box("ap-qk"), {
        onEdit: (m, values, phase) => this.onBlockEdit(m, values, phase),
        onIdentity: () => this.identity(),
        onReset: () => this.resetEdits(),
        t,
      });
      v.qkLegend = legend();
    }
    if (this.panel === "weighted") v.wavg = new WeightedAverage(box("ap-wavg"), { onSelectQuery: (q) => this.select({ query: q }), t });
    if (this.panel === "decoding") v.dec = new Decoding(box("ap-decoding"), { onStep: (k) => this.select({ step: k }), t });
    if (this.panel === "order") {
      const grid = box("order");
      v.pairTitles = [];
      v.pair = [0, 1].map(() => {
        const col = el("div", "order-col");
        const title = el("h3", "sub");
        const inner = el("div");
        col.append(title, inner);
        grid.append(col);
        v.pairTitles.push(title);
        return new Heatmap(inner, { maxCell: 30, t });
      });
      v.verdict = box("notice");
      v.verdict.setAttribute("role", "status");
      v.most = box("hint order-most");
      v.mostText = el("span");
      v.mostBtn = el("button", "btn btn-small", { type: "button" });
      v.most.append(v.mostText, " ", v.mostBtn);
      v.most.hidden = true;
    }
  }

  /** The chosen controls, each with a visible label. */
  buildControls() {
    const c = (this.ctl = {});
    this.controlsEl.replaceChildren();
    this.controlsEl.hidden = this.controls.length === 0;
    const id = (name) => `${this.uid}-${name}`;
    const labelled = (name, field, cls = "ap-field") => {
      const wrap = el("div", cls);
      const label = el("label", "", { for: id(name) });
      wrap.append(label, field);
      this.controlsEl.append(wrap);
      return label;
    };
    for (const name of this.controls) {
      if (name === "sentence") {
        const ta = el("textarea", "ap-sentence-box", { id: id(name), rows: 2, spellcheck: "false", autocomplete: "off", autocapitalize: "off" });
        ta.addEventListener("input", () => {
          this.state = S.update(this.state, { sentence: ta.value });
          clearTimeout(this.typing);
          this.typing = setTimeout(() => this.retranslate({ keepStep: false }), 350);
        });
        ta.addEventListener("keydown", (e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            clearTimeout(this.typing);
            this.state = S.update(this.state, { sentence: ta.value });
            this.retranslate({ keepStep: false });
          }
        });
        c.sentence = { field: ta, label: labelled(name, ta, "ap-field ap-field-wide"), key: "sentence.label" };
      } else if (name === "stack" || name === "layer" || name === "head" || name === "show" || name === "heads") {
        const sel = el("select", "", { id: id(name) });
        sel.addEventListener("change", () => {
          if (name === "stack") this.select({ stack: sel.value });
          else if (name === "show") this.select({ show: sel.value });
          else if (name === "heads") {
            const h = Number(sel.value);
            this.setOption({ heads: h === this.info?.nhead ? null : h });
          } else this.select({ [name]: Number(sel.value) });
        });
        const key = { stack: "attn.which", layer: "attn.layer", head: "attn.head", show: "attn.show", heads: "opt.heads" }[name];
        c[name] = { field: sel, label: labelled(name, sel), key };
      } else if (CHECKS[name]) {
        const [field, key] = CHECKS[name];
        const box = el("input", "", { type: "checkbox", id: id(name) });
        const wrap = el("div", "ap-check control-row");
        const label = el("label", "", { for: id(name) });
        wrap.append(box, label);
        this.controlsEl.append(wrap);
        box.addEventListener("change", () => {
          if (field === "tables") {
            this.state = S.update(this.state, { tables: box.checked });
            this.showTables();
            this.emit();
          } else {
            this.setOption({ [field]: box.checked });
          }
        });
        c[name] = { field: box, label, key, stateKey: field };
      } else if (name === "export") {
        const wrap = el("div", "ap-export");
        this.controlsEl.append(wrap);
        c.export = { row: X.exportRow(wrap, (format) => this.exportAs(format)) };
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Rendering

  setStatus(text) {
    this.status.textContent = text;
    this.status.hidden = !text;
  }

  showError(e) {
    const t = this.t;
    let msg;
    if (typeof e === "string") msg = e;
    else if (e instanceof EngineBroken) msg = t("error.broken");
    else if (e instanceof WebAssembly.RuntimeError) msg = t("error.panic", { message: e.message });
    else msg = t("error.engine", { message: e?.message || String(e) });
    this.error.textContent = msg;
    this.error.hidden = false;
  }

  clearError() {
    this.error.hidden = true;
  }

  guard(fn) {
    try {
      return fn();
    } catch (e) {
      this.showError(e);
      return undefined;
    }
  }

  heads() {
    return C.headsOf(this.cur, this.state, this.info);
  }

  renderControls() {
    const t = this.t;
    const s = this.state;
    const c = this.ctl;
    for (const k of Object.keys(c)) if (c[k].key) setText(c[k].label, t(c[k].key));
    if (c.sentence && c.sentence.field.value !== s.sentence && this.root.getRootNode().activeElement !== c.sentence.field) c.sentence.field.value = s.sentence;
    for (const name of Object.keys(CHECKS)) if (c[name]) c[name].field.checked = !!s[c[name].stateKey];
    const fill = (entry, items, value) => {
      if (!entry) return;
      const sel = entry.field;
      const same = sel.options.length === items.length && items.every(([v, text], i) => sel.options[i].value === String(v) && sel.options[i].textContent === text);
      if (!same) sel.replaceChildren(...items.map(([v, text]) => el("option", "", { value: v }, text)));
      sel.value = String(value);
    };
    fill(c.stack, S.STACKS.map((x) => [x, t(`stack.${x}`)]), s.stack);
    fill(c.show, S.SHOWS.map((x) => [x, t(`show.${x}`)]), s.show);
    if (this.info) {
      const stack = this.panel === "decoding" ? "decoder_cross" : this.panel === "order" ? "encoder" : s.stack;
      const count = (n) => Array.from({ length: n }, (_, i) => [i, String(i + 1)]);
      fill(c.layer, count(C.layersOf(this.info, stack)), Math.min(s.layer, C.layersOf(this.info, stack) - 1));
      fill(c.head, count(this.heads()), s.head);
      fill(
        c.heads,
        this.info.headChoices.map((n) => [n, t("opt.heads.option", { h: n, dk: this.info.dModel / n }) + (n === this.info.nhead ? ` ${t("opt.heads.trained")}` : "")]),
        this.heads(),
      );
    }
    if (c.export) c.export.row.retext(t);
  }

  renderHead() {
    const t = this.t;
    const s = this.state;
    let title = t(`panel.${this.panel}`);
    if ((this.panel === "heatmap" || this.panel === "qk" || this.panel === "weighted") && this.cur) {
      title = C.heatmapTitle(s, C.heatmapLabel(t, s.stack, s.layer, s.head), t);
    }
    setText(this.titleEl, title);
    this.sentenceEl.replaceChildren();
    if (this.cur && this.panel !== "order") {
      const tr = this.cur.tr.text || t("translation.nothing");
      this.sentenceEl.append(el("span", "ap-src", { lang: "en" }, `“${this.lastGood ?? s.sentence}”`), " → ", el("span", "ap-tr", { lang: "ko" }, tr));
    }
    this.foot.replaceChildren();
    if (this.linkOut && this.cur) {
      const a = el("a", "ap-open", { href: this.labLink(), target: "_blank", rel: "noopener" }, t("panel.open"));
      this.foot.append(a);
    }
    this.foot.hidden = !this.foot.firstChild;
  }

  /** The lab with this panel's state. */
  labLink() {
    // the site root (the folder above js/); the single-file build is one page: its own URL
    const base = globalThis.ATTNSCOPE_INLINE ? location.href : new URL("../", import.meta.url);
    const q = new URLSearchParams(S.toQuery(S.update(this.state, { lang: this.lang }), ""));
    return new URL(pageHref("lab", q), base).href;
  }

  showTables() {
    for (const v of [this.views.main, this.views.wavg, this.views.dec, ...(this.views.pair || [])]) if (v) v.showTable(this.state.tables);
  }

  renderMain(live) {
    const t = this.t;
    const v = this.views;
    const d = C.heatmapData(this.cur, this.state, t);
    v.main.setData(d, live);
    setLiveText(v.stats, C.peakText(d.weights, t), live);
    if (!live) {
      const legend = C.legendOf(this.cur, this.state, t);
      paintLegend(v.legend.canvas, legend.kind, 160, 12);
      v.legend.text.textContent = legend.text;
    }
  }

  render() {
    if (!this.cur) return;
    const t = this.t;
    const s = this.state;
    const v = this.views;
    this.renderHead();
    this.renderControls();
    if (this.editsRejected) this.noteEdits({ rejected: this.editsRejected });
    if (v.axis) {
      setText(v.axis.children[0], t("attn.rows"));
      setText(v.axis.children[1], t("attn.cols"));
    }
    if (v.main) this.renderMain(false);
    if (v.qk) {
      const d = this.guard(() => C.qkData(this.engine, s, this.heads(), this.qkRange, t));
      if (d) {
        v.qk.setData(d);
        paintLegend(v.qkLegend.canvas, "div", 160, 12);
        v.qkLegend.text.textContent = t("legend.qk", { r: fmt(v.qk.range, 2) });
      }
    }
    if (v.wavg) v.wavg.setData(C.averageData(this.cur, s, t));
    if (v.dec) {
      const d = C.decodingData(this.cur, s, this.info);
      if (d) v.dec.setData(d);
    }
    if (v.pair && this.pair) {
      const d = C.pairData(this.pair, s, this.info, t);
      v.pair.forEach((h, i) => {
        v.pairTitles[i].textContent = d.maps[i].title;
        h.setData(d.maps[i]);
      });
      v.verdict.textContent = d.verdict.text;
      v.verdict.classList.toggle("good", d.verdict.same);
      v.most.hidden = !d.best;
      if (d.best) {
        v.mostText.textContent = d.best.text;
        v.mostBtn.textContent = d.best.button;
        v.mostBtn.onclick = () => this.select({ layer: d.best.layer, head: d.best.head });
      }
    }
    this.showTables();
  }

  emit() {
    this.onState(this.state);
  }

  // -------------------------------------------------------------------------------------------
  // Engine

  async load() {
    const t = this.t;
    const engine = new Engine(ASSET.model);
    try {
      await engine.load();
      this.info = engine.info();
    } catch (e) {
      this.setStatus("");
      this.showError(t("error.load", { url: ASSET.model, message: e.message }));
      this.root.dataset.ready = "error";
      return;
    }
    this.engine = engine;
    this.setStatus("");
    const conf = this.guard(() => C.configure(engine, this.state, this.info, applyEdits));
    if (conf) {
      this.state = conf.state;
      this.noteEdits(conf.edits);
    }
    await this.retranslate({ keepStep: true });
    if (!this.cur) {
      // the sentence given was not usable: show the seed sentence rather than nothing
      this.state = S.update(this.state, { sentence: S.SEED_SENTENCE });
      await this.retranslate({ keepStep: true });
    }
    if (this.cur) this.onReady();
  }

  noteEdits(edits) {
    this.editsRejected = edits.rejected;
    this.note.hidden = edits.rejected === 0;
    if (edits.rejected) this.note.textContent = this.t("link.badEdits", { n: edits.rejected });
  }

  async ensureEngine() {
    if (!this.engine) return false;
    if (!this.engine.broken) return true;
    try {
      await this.engine.recover();
      return true;
    } catch (e) {
      this.showError(e);
      return false;
    }
  }

  async retranslate({ keepStep = true } = {}) {
    if (!(await this.ensureEngine())) return;
    const text = this.state.sentence;
    if (!text.trim()) {
      this.note.textContent = this.t(this.cur ? "input.emptyKeep" : "input.empty");
      this.note.hidden = false;
      return;
    }
    this.note.hidden = !this.editsRejected;
    try {
      const out = C.translateRun(this.engine, text, { withPair: this.panel === "order", lastGood: this.lastGood, cur: this.cur });
      if (out.pair) this.pair = out.pair;
      this.lastGood = text;
      this.cur = out.cur;
      this.clearError();
    } catch (e) {
      this.showError(e);
      if (e.pair) this.pair = e.pair;
      if (e.cur) this.cur = e.cur;
      if (this.engine.broken || !this.cur) return;
    }
    if (!keepStep) this.state = S.update(this.state, { step: 0 });
    this.state = S.update(S.clampToModel(this.state, this.info), { edits: encodeEdits(this.engine, this.info) });
    this.render();
    this.root.dataset.ready = "1";
    this.emit();
  }

  select(patch) {
    if (!this.cur) return;
    this.guard(() => C.syncDecoder(this.engine, this.cur));
    const stackChanged = patch.stack !== undefined && patch.stack !== this.state.stack;
    this.state = S.clampToModel(S.update(this.state, patch), this.info);
    if (stackChanged && patch.query === undefined) this.state = S.update(this.state, { query: null });
    this.render();
    this.emit();
  }

  async setOption(patch) {
    if (!(await this.ensureEngine())) return;
    const ok = this.guard(() => (this.engine.setOptions(C.engineOptions(patch, this.info)), true));
    if (!ok) {
      this.renderControls();
      return;
    }
    this.state = S.update(this.state, patch);
    await this.retranslate();
  }

  onBlockEdit(matrix, values, phase) {
    if (!this.cur) return;
    this.pending.set(matrix, values);
    if (!this.raf) this.raf = requestAnimationFrame(() => this.frame());
    if (phase === "end") {
      clearTimeout(this.endTimer);
      this.endTimer = setTimeout(() => this.retranslate(), 400);
    }
  }

  frame() {
    this.raf = 0;
    if (!this.engine || this.engine.broken) {
      this.pending.clear();
      this.ensureEngine().then((ok) => ok && this.retranslate());
      return;
    }
    const ok = this.guard(() => (C.runBlocks(this.engine, this.cur, this.state, this.pending), true));
    this.pending.clear();
    this.views.qk.flush();
    if (!ok) return;
    this.renderMain(true);
    this.views.qk.setEditCount(this.engine.edits.size);
  }

  async identity() {
    if (!(await this.ensureEngine()) || !this.cur) return;
    if (this.guard(() => (C.setIdentity(this.engine, this.state, this.info, this.heads()), true))) await this.retranslate();
  }

  async resetEdits() {
    if (!(await this.ensureEngine()) || !this.cur) return;
    if (this.guard(() => (this.engine.resetBlocks(), true))) await this.retranslate();
  }

  /** Download the heatmap (export.js); returns the file name. */
  exportAs(format) {
    const t = this.t;
    if (!this.cur || !this.views.main) return null;
    const map = { ...C.exportMap(this.cur, this.state, t), link: this.labLink() };
    const v = this.views;
    return X.saveMap(format, map, {
      png: { canvas: v.main.canvas, legendCanvas: v.legend.canvas, title: this.titleEl.textContent, legendText: v.legend.text.textContent },
      corner: t("table.queryKey"),
      legend: t("export.legend"),
    });
  }

  // -------------------------------------------------------------------------------------------
  // From outside

  /** Apply a state patch from outside (the element's attributes): re-run what it affects. */
  async update(patch) {
    await this.loaded;
    const prev = this.state;
    const next = S.update(prev, patch);
    if ("lang" in patch) {
      this.lang = next.lang || detectLang(globalThis.navigator?.language);
      this.root.lang = this.lang;
    }
    if (!this.engine) {
      this.state = next;
      return;
    }
    const options = {};
    for (const k of OPTION_KEYS) if (k in patch && patch[k] !== prev[k]) options[k] = patch[k];
    this.state = S.clampToModel(next, this.info);
    if (Object.keys(options).length && !this.guard(() => (this.engine.setOptions(C.engineOptions(options, this.info)), true))) return;
    if ("edits" in patch) {
      const done = this.guard(() => {
        this.engine.resetBlocks();
        return applyEdits(this.engine, patch.edits, this.info);
      });
      if (done) this.noteEdits(done);
    }
    const rerun = "sentence" in patch || "edits" in patch || Object.keys(options).length > 0;
    if (rerun) await this.retranslate({ keepStep: !("sentence" in patch) });
    else this.select({});
  }

  /** Another panel kind or other controls: rebuild the DOM, keep the engine and its run. */
  configure({ panel, controls }) {
    this.panel = parsePanel(panel);
    this.controls = parseControls(controls, this.panel);
    this.buildControls();
    this.buildViews();
    if (this.panel === "order" && !this.pair && this.cur) this.retranslate();
    else this.render();
  }
}

/** Mount one panel into `container` (an element or a shadow root); returns its controller. */
export function mountPanel(container, opts) {
  return new Panel(container, opts);
}
