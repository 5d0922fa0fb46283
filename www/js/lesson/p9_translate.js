// Panel 9: the whole translator. Encoder, decoder and cross-attention summarised on the live
// model (shapes from the trace, the translation, the cross-attention of one layer and head), the
// lab's own decoding panel (each step: the prefix, the candidates and their probabilities, where
// cross-attention looked; panels/decoding.js on a session of its own), a link to the full lab
// carrying the sentence, and why attention replaced the RNN: path length and sequential steps for
// the current sentence.

import { lessonT as t, getLang } from "../i18n.js";
import * as state from "../state.js";
import { Session } from "../session.js";
import { decodingPanel } from "../panels/index.js";
import { h, s, slider, button, formula, readouts, HeatTable, message, newId, scrollBox, PENDING } from "./ui.js";
import { labels, sentenceBox, translateWithNotes, liveTry, isSeed, positionSelect, panelOf, controls, needsModel, figures } from "./shared.js";
import { ROLE } from "../colors.js";

export function panel9(ctx) {
  const { engine } = ctx;
  const id = newId("p9");
  let layer = state.int("p9.layer", 0, 0, 16) - 1; // -1 = last
  let head = state.int("p9.head", 1, 1, 64) - 1;
  let step = state.int("p9.t", 0, 0, 999); // 0 = the end

  const sent = sentenceBox(ctx, "model", () => {
    step = 0;
    state.put("p9.t", null, null);
    render();
  });
  const layerSel = positionSelect({ id: `${id}-layer`, label: t("ui.layer"), key: "p9.layer", def: 0, onChange: (i) => { layer = i; render(); } });
  const headSel = positionSelect({ id: `${id}-head`, label: t("ui.head"), key: "p9.head", def: 1, onChange: (i) => { head = i; render(); } });
  const msg = message();
  const roles = h("table", { class: "numtable roles", role: "table", "aria-label": t("p9.rolesLabel"), "data-test": "p9-roles" });
  const translation = h("p", { class: "translation big", lang: "ko", "data-test": "p9-translation" });
  // how many candidates each step lists: the engine's (a step's `top`)
  const genText = h("p", { "data-test": "p9-gen", text: t("p9.gen", { k: PENDING }) });
  // the lab's decoding panel, mounted here: one view, written once
  const decoding = h("div", { class: "p9-decoding", "data-test": "p9-decoding" });
  const session = new Session({
    state: state.update(state.defaults(), { sentence: ctx.shared.model, stack: "decoder_cross", lang: getLang() }),
    // without the translator the panel already says so (translateWithNotes): the decoding
    // panel's own failure to load it is the same news, not a second message
    onError: (m) => m && engine.hasLab && msg.show("warn", m),
  });
  /** @type {Promise<unknown>} */
  let loaded = Promise.resolve(); // the decoding panel's own engine: loaded after the page's (ready)
  const cross = new HeatTable({ kind: "seq", digits: 2, rowHeader: t("p9.rowHeader"), test: "p9-cross" });
  // The last part of the instruction is about the lecture's sentence: on another sentence it
  // says so and offers that sentence back.
  const tryBox = liveTry(ctx, "model", "p9-try-seed");
  const updateTry = () => {
    const seed = isSeed(ctx, "model");
    tryBox.set(`${t("p9.try")} ${t(seed ? "p9.trySeed" : "p9.tryOwn")}`, !seed);
  };
  ctx.shared.addEventListener("model", updateTry);
  updateTry();
  const labLink = h("a", { class: "btn btn-primary lab-open", href: "index.html", "data-test": "p9-lab-link", text: t("p9.openLab") });

  // --- RNN vs attention
  const rnnSvg = s("svg", { class: "plot p9-rnn", role: "img" });
  const rnnBox = h("div", { class: "plot-wrap rnn-wrap" }, rnnSvg);
  let rnnWidth = 0; // the box's width the diagram was drawn for
  new ResizeObserver(() => {
    if (nTokens && rnnBox.clientWidth !== rnnWidth) drawRnn();
  }).observe(rnnBox);
  const tSlider = slider({
    id: `${id}-t`,
    label: t("p9.tLabel"),
    min: 1,
    max: 2,
    step: 1,
    value: 1,
    format: (v) => String(v),
    onInput: (v) => {
      step = v;
      state.put("p9.t", v, 0);
      stopPlay();
      drawRnn();
    },
    test: "p9-t",
  });
  let timer = 0;
  const playBtn = button({ text: t("p9.play"), cls: "btn btn-small", test: "p9-play", onClick: () => (timer ? stopPlay() : startPlay()) });
  function startPlay() {
    step = 1;
    playBtn.textContent = t("p9.stop");
    drawRnn();
    timer = setInterval(() => {
      if (step >= nTokens) {
        stopPlay();
        return;
      }
      step += 1;
      drawRnn();
    }, 450);
  }
  function stopPlay() {
    clearInterval(timer);
    timer = 0;
    playBtn.textContent = t("p9.play");
  }
  const rnnNums = readouts([
    { key: "n", label: t("p9.rN"), test: "p9-n" },
    { key: "path", label: t("p9.rPath"), test: "p9-path" },
    { key: "seq", label: t("p9.rSeq"), test: "p9-seq" },
    { key: "now", label: t("p9.rNow"), test: "p9-now" },
  ]);
  let nTokens = 0;
  let tokenNames = [];

  /**
   * The diagram at its size in CSS pixels (never shrunk: its labels stay readable), as wide as
   * the panel when the words fit, else wider, in a box that scrolls. On a narrow screen the row
   * names give way (each row's line of text starts with it) and the words' labels take two
   * staggered lines.
   */
  function drawRnn() {
    const n = nTokens;
    if (!n) return;
    const cur = Math.min(Math.max(1, step || n), n);
    tSlider.input.max = String(n);
    tSlider.set(cur);
    rnnWidth = rnnBox.clientWidth;
    const avail = rnnWidth || 720;
    const narrow = avail < 480;
    const left = narrow ? 20 : 90;
    const gap = Math.max(28, Math.min(64, Math.floor((avail - left - 24) / Math.max(1, n - 1))));
    const stagger = gap < 50;
    const W = Math.max(avail, left + gap * (n - 1) + 24);
    const arcMax = Math.min(90, 16 + gap * (n - 1) * 0.18);
    const yR = 44;
    const yA = yR + 40 + 22 + (stagger ? 14 : 0) + arcMax + 12;
    const H = yA + 36 + (stagger ? 14 : 0);
    rnnSvg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    rnnSvg.setAttribute("width", String(W));
    rnnSvg.setAttribute("height", String(H));
    const kids = [];
    const x = (i) => left + i * gap;
    if (!narrow) {
      kids.push(s("text", { x: 4, y: yR + 4, class: "row-title", text: t("p9.rnnRow") }));
      kids.push(s("text", { x: 4, y: yA + 4, class: "row-title", text: t("p9.attRow") }));
    }
    // RNN: a chain; at time cur only the first cur states exist.
    for (let i = 0; i < n - 1; i++) {
      kids.push(s("line", { x1: x(i) + 9, x2: x(i + 1) - 9, y1: yR, y2: yR, class: i + 1 < cur ? "chain on" : "chain" }));
    }
    // Attention: every word linked to every other in one step; drawn from word 1 to each other word.
    const span = Math.max(1, x(n - 1) - x(0));
    for (let j = 1; j < n; j++) {
      const mid = (x(0) + x(j)) / 2;
      const hgt = 8 + ((x(j) - x(0)) / span) * arcMax;
      kids.push(s("path", { d: `M ${x(0)} ${yA - 9} Q ${mid} ${yA - 9 - 2 * hgt} ${x(j)} ${yA - 9}`, class: j === n - 1 ? "arc arc-far" : "arc", stroke: ROLE.key }));
    }
    for (let i = 0; i < n; i++) {
      const done = i < cur;
      kids.push(s("circle", { cx: x(i), cy: yR, r: 9, class: done ? "node on" : "node" }));
      kids.push(s("circle", { cx: x(i), cy: yA, r: 9, class: "node on" }));
      // a label gets the width between its neighbours (two gaps when staggered), at 7 px a letter
      const room = Math.max(2, Math.floor(((stagger ? 2 : 1) * gap - 6) / 7));
      const lbl = tokenNames[i].length > room ? `${tokenNames[i].slice(0, room - 1)}…` : tokenNames[i];
      const low = stagger && i % 2 === 1 ? 14 : 0;
      kids.push(s("text", { x: x(i), y: yR + 26 + low, class: "node-label", "text-anchor": "middle", text: lbl }));
      kids.push(s("text", { x: x(i), y: yA + 26 + low, class: "node-label", "text-anchor": "middle", text: lbl }));
    }
    kids.push(s("text", { x: x(0) - (narrow ? 10 : 0), y: yR - 18, class: "tick", text: t("p9.rnnNow", { k: cur, n }) }));
    kids.push(s("text", { x: x(0) - (narrow ? 10 : 0), y: yA - 9 - arcMax - 16, class: "tick", text: t("p9.attNow", { n }) }));
    rnnSvg.replaceChildren(...kids);
    rnnSvg.setAttribute("aria-label", t("p9.rnnLabel", { n, k: cur }));
    rnnNums.set("n", String(n), n);
    rnnNums.set("path", t("p9.pathText", { r: n - 1, a: 1 }), n - 1);
    rnnNums.set("seq", t("p9.seqText", { r: n, a: 1 }), n);
    rnnNums.set("now", t("p9.nowText", { r: cur, n, a: n }), cur);
  }

  function render() {
    if (!ctx.loaded) return;
    const text = ctx.shared.model;
    labLink.href = ctx.labHref(text);
    // Without the translator, the RNN comparison still works from the word-vector tokenizer.
    if (!engine.hasLab && engine.hasWords && text.trim()) {
      try {
        tokenNames = engine.project(text).tokens;
        nTokens = tokenNames.length;
        drawRnn();
      } catch (e) {
        ctx.onEngineError(e);
      }
    }
    const res = translateWithNotes(ctx, engine, sent, msg, text, {});
    if (!res) return;
    const tr = res.tr;
    const trace = tr.trace;
    const S = res.src.tokens.length;
    const T = tr.decoder_tokens.length;
    translation.textContent = tr.text;
    if (!tr.finished) translation.append(h("span", { class: "note", text: ` ${t("p9.unfinished", figures(engine))}` }));
    if (tr.steps.length) genText.textContent = t("p9.gen", { k: tr.steps[0].top.length });

    // Who sees what, with the live shapes.
    const rowsDef = [
      [t("p9.encSelf"), t("p9.encSees"), `${S} × ${S}`, t("p9.noMask")],
      [t("p9.decSelf"), t("p9.decSees"), `${T} × ${T}`, t("p9.causal")],
      [t("p9.cross"), t("p9.crossSees"), `${T} × ${S}`, t("p9.noMask")],
    ];
    roles.replaceChildren(
      h("caption", { text: t("p9.rolesLabel") }),
      h("thead", {}, h("tr", {}, ...[t("p9.cAttention"), t("p9.cSees"), t("p9.cShape"), t("p9.cMask")].map((c) => h("th", { scope: "col", text: c })))),
      h("tbody", {}, ...rowsDef.map((r) => h("tr", {}, h("th", { scope: "row", text: r[0] }), ...r.slice(1).map((c) => h("td", { text: c }))))),
    );

    const L = trace.decoder.layers.length;
    const H = trace.heads;
    if (layer < 0 || layer >= L) layer = L - 1;
    head = Math.min(head, H - 1);
    layerSel.setCount(L, layer);
    loaded.then(() => session.update({ sentence: text, layer, head }));
    headSel.setCount(H, head);
    const hd = trace.decoder.layers[layer].cross_attn.sublayer.heads[head];
    const produced = labels(tr.tokens.slice(0, hd.weights.rows).map((x) => `→ ${x}`));
    cross.update({
      label: t("p9.crossLabel", { layer: layer + 1, head: head + 1 }),
      rows: produced,
      cols: labels(res.src.tokens),
      data: hd.weights.data,
      nr: hd.weights.rows,
      nc: hd.weights.cols,
    });

    tokenNames = res.src.tokens;
    nTokens = S;
    drawRnn();
  }

  const panel = panelOf(
    ctx,
    "p9",
    sent.root,
    msg.root,
    needsModel(
      roles,
      h("p", { text: t("p9.roles") }),
      h("h3", { text: t("p9.genTitle") }),
      genText,
      translation,
      decoding,
      tryBox.root,
      controls(layerSel.root, headSel.root),
      formula(t("p9.formula")),
      cross.root),
    h("p", { class: "lab-cta" }, labLink),
    h("h3", { text: t("p9.rnnTitle") }),
    h("p", { text: t("p9.rnn") }),
    controls(tSlider.root, playBtn),
    scrollBox(rnnBox),
    rnnNums.root,
    h("p", { text: t("p9.outro") }),
  );
  ctx.ready(() => {
    session.mount(decodingPanel, decoding);
    loaded = session.load();
    render();
  });
  return panel;
}
