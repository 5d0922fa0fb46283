// Panel 10: what attention weights do not tell you. Three experiments on the trained translator,
// each "predict, run, explain": the reader commits to a guess, the engine computes the answer on
// the shared translator sentence, and the explanation states what the numbers on screen show.
//   1. the most-attended cross-attention head vs the most important head (knock-out ranking,
//      Lab.headImportance), with the translation without each;
//   2. a big weight on a short value vector (Lab.valueWeighted, Kobayashi et al. 2020): a row
//      where the key with the largest weight is not the key that adds the most;
//   3. a word's layer-1 map vs its attention rollout through the encoder (Lab.rollout, Abnar &
//      Zuidema 2020).
// Every case is searched for at run time on the current sentence (nothing is fixed for one
// model), and every explanation has a variant for "the search found no such case". Then a short
// sourced text on what attention maps can and cannot show.

import { lessonT as t } from "../i18n.js";
import * as state from "../state.js";
import { h, button, readouts, HeatTable, numberTable, message, newId, formula, fmt, scrollBox, argmax } from "./ui.js";
import { labels, sentenceBox, translateWithNotes, defaultWord, keySelect, panelOf, controls, needsModel, engineError, figures } from "./shared.js";

/** The part of the lab (index.html) that holds its grid of every head with their knock-out switches. */
export const LAB_HEADS = "headgrid";

const STACK_OF = { e: "encoder", s: "decoder_self", c: "decoder_cross" };

/** "c1h4" -> "cross-attention, layer 1, head 4" in the page's language. */
function headName(name) {
  const m = /^([esc])(\d+)h(\d+)$/.exec(name);
  if (!m) return name;
  return t("p10.headName", { stack: t(`p10.stack.${m[1]}`), layer: m[2], head: m[3] });
}

/** A token the translator writes that is a word (not a glued ending, punctuation or a special). */
function isWord(tok) {
  return !tok.startsWith("+") && !/^<.*>$/.test(tok) && /[\p{L}\p{N}]/u.test(tok);
}

/**
 * The row of the cross-attention maps the first experiment looks at: the step that writes a
 * word the second time (the lecture's sentence: the second 엠마, written for "she"), else the
 * step that writes the first word. Returns {row, tok, repeat}.
 */
export function focusRow(tokens, rows) {
  for (let i = 0; i < rows; i++) {
    if (isWord(tokens[i]) && tokens.slice(0, i).includes(tokens[i])) return { row: i, tok: tokens[i], repeat: true };
  }
  const i = Math.max(0, tokens.slice(0, rows).findIndex(isWord));
  return { row: i, tok: tokens[i], repeat: false };
}

/** Cross-attention heads of a trace: [{name, weights}] in layer, head order. */
function crossHeads(trace) {
  const out = [];
  trace.decoder.layers.forEach((l, li) => l.cross_attn.sublayer.heads.forEach((hd, hi) => out.push({ name: `c${li + 1}h${hi + 1}`, weights: hd.weights })));
  return out;
}

export function panel10(ctx) {
  const { engine } = ctx;
  const id = newId("p10");
  const msg = message();
  const sent = sentenceBox(ctx, "model", () => {
    for (const e of experiments) e.reset();
    render();
  });
  const translation = h("span", { class: "translation", lang: "ko", "data-test": "p10-translation" });

  /** Translate the shared sentence on the engine and call fn(lab, src, tr) on that state. */
  function analyse(fn) {
    const text = ctx.shared.model;
    return engine.call((lab) => {
      const src = lab.setSource(text);
      lab.setOptions(engine.fullOptions({}));
      const tr = lab.translate();
      return fn(lab, src, tr);
    });
  }

  /**
   * One experiment: a question with two answers (radio buttons), a run button (enabled once a
   * guess is chosen), and a result area filled by `compute()` -> {answer, nodes, explain}.
   */
  function experiment(n, { title, setup, question, choices, compute }) {
    const guessKey = `p10.g${n}`;
    const ranKey = `p10.r${n}`;
    let guess = state.str(guessKey, "", 20);
    if (!choices.some((c) => c.value === guess)) guess = "";
    const legend = h("legend", { text: question() });
    const fs = h("fieldset", { class: "guess", "data-test": `p10-e${n}-guess` }, legend);
    const name = `${id}-g${n}`;
    const radios = choices.map((c) => {
      const rid = `${name}-${c.value}`;
      const input = h("input", { type: "radio", name, id: rid, value: c.value, "data-test": `p10-e${n}-guess-${c.value}` });
      input.checked = c.value === guess;
      input.addEventListener("change", () => {
        guess = c.value;
        state.put(guessKey, guess, "");
        runBtn.disabled = false;
        hint.hidden = true;
        if (!result.hidden) showVerdict();
      });
      fs.append(h("div", { class: "guess-choice" }, input, h("label", { for: rid, text: c.text })));
      return input;
    });
    const runBtn = button({ text: t("p10.run"), cls: "btn btn-primary", test: `p10-e${n}-run`, onClick: () => run() });
    runBtn.disabled = !guess;
    const hint = h("span", { class: "note", text: t("p10.guessFirst") });
    hint.hidden = !!guess;
    const verdict = h("p", { class: "verdict", "data-test": `p10-e${n}-verdict`, role: "status" });
    const explain = h("p", { class: "explain", "data-test": `p10-e${n}-explain` });
    const nodes = h("div", { class: "exp-numbers" });
    const result = h("div", { class: "exp-result", "data-test": `p10-e${n}-result` }, h("h4", { text: t("p10.resultTitle") }), nodes, verdict, h("h4", { text: t("p10.explainTitle") }), explain);
    result.hidden = true;
    let answer = null;

    function showVerdict() {
      const picked = choices.find((c) => c.value === guess);
      const truth = choices.find((c) => c.value === answer);
      verdict.dataset.answer = answer;
      verdict.dataset.guess = guess;
      verdict.className = `verdict ${guess === answer ? "verdict-right" : "verdict-wrong"}`;
      verdict.textContent = t(guess === answer ? "p10.right" : "p10.wrong", { guess: picked ? picked.text : "?", answer: truth.text });
    }

    function run() {
      if (!guess) return;
      if (!engine.hasLab || !ctx.shared.model.trim()) return;
      let out;
      try {
        out = compute();
      } catch (e) {
        engineError(ctx, msg, e);
        return;
      }
      if (!out) return;
      answer = out.answer;
      nodes.replaceChildren(...out.nodes);
      explain.textContent = out.explain;
      result.hidden = false;
      showVerdict();
      state.put(ranKey, 1, 0);
    }

    const root = h(
      "section",
      { class: "experiment", "aria-labelledby": `${id}-e${n}-h`, "data-test": `p10-e${n}` },
      h("h3", { id: `${id}-e${n}-h`, text: title }),
      setup,
      fs,
      controls(runBtn, hint),
      result,
    );
    return {
      root,
      n,
      /** The sentence changed: the old result no longer holds. */
      reset() {
        result.hidden = true;
        state.put(ranKey, null, 0);
      },
      refresh() {
        legend.textContent = question();
        for (const r of radios) r.checked = r.value === guess;
      },
      /** After a rebuild (language switch, reload): show the result again if it had been run. */
      restore() {
        if (guess && state.int(ranKey, 0, 0, 1) === 1) run();
      },
    };
  }

  // --- experiment 1: most-attended head vs most important head ------------------------------
  const e1Setup = h("p", { "data-test": "p10-e1-setup" });
  const e1 = experiment(1, {
    title: t("p10.e1Title"),
    setup: h("div", {}, h("p", { text: t("p10.e1Intro") }), e1Setup),
    question: () => t("p10.e1Q"),
    choices: [
      { value: "same", text: t("p10.e1Same") },
      { value: "diff", text: t("p10.e1Diff") },
    ],
    compute: () => {
      const text = ctx.shared.model;
      const a = analyse((lab, src, tr) => ({ src, tr, imp: lab.headImportance() }));
      const S = a.src.tokens.length;
      const heads = crossHeads(a.tr.trace);
      const rows = heads[0].weights.rows;
      const f = focusRow(a.tr.tokens, rows);
      const sum = new Float64Array(S);
      for (const hd of heads) for (let j = 0; j < S; j++) sum[j] += hd.weights.data[f.row * S + j];
      const col = argmax(sum);
      const word = a.src.tokens[col];
      const w = heads.map((hd) => hd.weights.data[f.row * S + col]);
      const att = heads[argmax(w)].name;
      const imp = a.imp;
      const idx = (name) => imp.heads.indexOf(name);
      const top = imp.heads[imp.ranking[0]];
      const rankOf = (name) => Array.from(imp.ranking).indexOf(idx(name)) + 1;
      const dAtt = imp.delta[idx(att)];
      const dTop = imp.delta[idx(top)];
      const wAtt = w[heads.findIndex((hd) => hd.name === att)];
      const topCross = heads.findIndex((hd) => hd.name === top);
      const without = (name) => engine.translateText(text, { knockOut: [name] }).tr.text;
      const base = a.tr.text;
      const same = att === top;

      const nums = readouts([
        { key: "att", label: t("p10.e1Att", { tok: f.tok, word }), test: "p10-e1-att" },
        { key: "attDelta", label: t("p10.e1AttDelta"), test: "p10-e1-att-delta" },
        { key: "rank", label: t("p10.e1Rank"), test: "p10-e1-att-rank" },
        { key: "top", label: t("p10.e1Top"), test: "p10-e1-top" },
        { key: "topDelta", label: t("p10.e1TopDelta"), test: "p10-e1-top-delta" },
      ]);
      nums.set("att", `${headName(att)}: ${fmt(wAtt, 2)}`, wAtt);
      nums.set("attDelta", fmt(dAtt, 2), dAtt);
      nums.set("rank", t("p10.rankOf", { r: rankOf(att), n: imp.heads.length }), rankOf(att));
      nums.set("top", headName(top));
      nums.set("topDelta", fmt(dTop, 2), dTop);
      nums.root.querySelector('[data-test="p10-e1-att"]').dataset.head = att;
      nums.root.querySelector('[data-test="p10-e1-top"]').dataset.head = top;

      const line = (label, txt, test) =>
        h("li", { "data-test": test }, h("span", { class: "tr-label", text: label }), " ", h("span", { lang: "ko", class: "ko-text", text: txt }),
          txt === base ? "" : h("span", { class: "note", text: ` ${t("p10.changed")}` }));
      const lines = h("ul", { class: "tr-lines" },
        line(t("p10.e1Base"), base, "p10-e1-base"),
        line(t("p10.e1Without", { head: headName(att) }), without(att), "p10-e1-without-att"));
      if (!same) lines.append(line(t("p10.e1Without", { head: headName(top) }), without(top), "p10-e1-without-top"));

      const table = numberTable({
        label: t("p10.e1Table", { tok: f.tok, word }),
        rows: heads.map((hd) => headName(hd.name)),
        cols: [t("p10.e1ColWeight"), t("p10.e1ColDelta"), t("p10.e1ColRank")],
        data: heads.flatMap((hd, k) => [w[k], imp.delta[idx(hd.name)], rankOf(hd.name)]),
        nr: heads.length,
        nc: 3,
        digits: 2,
        rowHeader: t("p10.colHead"),
        test: "p10-e1-table",
      });
      table.querySelectorAll("tbody td:nth-child(4)").forEach((td) => (td.textContent = String(Number(td.dataset.value))));

      const p = { a: headName(att), b: headName(top), wa: fmt(wAtt, 2), da: fmt(dAtt, 2), db: fmt(dTop, 2), ra: rankOf(att), n: imp.heads.length, tok: f.tok, word };
      let explain;
      if (same) explain = t("p10.e1ExplainSame", p);
      else if (topCross >= 0) explain = t("p10.e1ExplainDiff", { ...p, wb: fmt(w[topCross], 2) });
      else explain = t("p10.e1ExplainDiffOther", p);
      explain += ` ${t("p10.e1Moral")}`;
      return { answer: same ? "same" : "diff", nodes: [nums.root, lines, scrollBox(h("div", { class: "table-scroll" }, table))], explain };
    },
  });

  // --- experiment 2: a big weight on a short value vector -------------------------------------
  const e2 = experiment(2, {
    title: t("p10.e2Title"),
    setup: h("div", {}, h("p", { text: t("p10.e2Intro") }), formula(t("p10.e2Formula"))),
    question: () => t("p10.e2Q"),
    choices: [
      { value: "yes", text: t("p10.e2Yes") },
      { value: "no", text: t("p10.e2No") },
    ],
    compute: () => {
      const a = analyse((lab, src, tr) => {
        const trace = tr.trace;
        const found = [];
        let rowsSearched = 0;
        const stacks = [
          ["encoder", trace.encoder.layers.map((l) => l.self_attn)],
          ["decoder_self", trace.decoder.layers.map((l) => l.self_attn)],
          ["decoder_cross", trace.decoder.layers.map((l) => l.cross_attn)],
        ];
        for (const [stack, layers] of stacks) {
          layers.forEach((att, li) => {
            const vw = lab.valueWeighted(stack, li);
            att.sublayer.heads.forEach((hd, hi) => {
              const W = hd.weights;
              const { norms, value_norms: vn } = vw[hi];
              for (let i = 0; i < W.rows; i++) {
                rowsSearched += 1;
                const wr = W.data.subarray(i * W.cols, (i + 1) * W.cols);
                const cr = norms.data.subarray(i * W.cols, (i + 1) * W.cols);
                const j = argmax(wr);
                const k = argmax(cr);
                if (j !== k && wr[j] > wr[k] && cr[k] > cr[j]) {
                  found.push({ stack, layer: li, head: hi, i, j, k, w: Float32Array.from(wr), c: Float32Array.from(cr), v: Float32Array.from(vn.data) });
                }
              }
            });
          });
        }
        return { src, tr, found, rowsSearched };
      });
      const nums = readouts([
        { key: "count", label: t("p10.e2Count"), test: "p10-e2-count" },
        { key: "where", label: t("p10.e2Where"), test: "p10-e2-where" },
      ]);
      nums.set("count", t("p10.countOf", { m: a.found.length, n: a.rowsSearched }), a.found.length);
      if (!a.found.length) {
        nums.set("where", "—");
        return { answer: "yes", nodes: [nums.root], explain: t("p10.e2ExplainNone", { n: a.rowsSearched }) };
      }
      // the most striking case: the largest gap between the two weights
      const c = a.found.reduce((best, x) => (x.w[x.j] - x.w[x.k] > best.w[best.j] - best.w[best.k] ? x : best));
      const src = labels(a.src.tokens);
      const dec = labels(a.tr.decoder_tokens);
      const qNames = c.stack === "encoder" ? src : dec;
      const kNames = c.stack === "decoder_cross" ? src : c.stack === "encoder" ? src : dec;
      const name = `${c.stack[0] === "e" ? "e" : c.stack === "decoder_self" ? "s" : "c"}${c.layer + 1}h${c.head + 1}`;
      nums.set("where", t("p10.e2WhereText", { head: headName(name), q: qNames[c.i] }), c.i);
      nums.root.querySelector('[data-test="p10-e2-where"]').dataset.head = name;
      const pair = numberTable({
        label: t("p10.e2PairLabel", { head: headName(name), q: qNames[c.i] }),
        rows: [t("p10.e2Big", { k: kNames[c.j] }), t("p10.e2Large", { k: kNames[c.k] })],
        cols: [t("p10.colWeight"), t("p10.colLength"), t("p10.colContrib")],
        data: [c.w[c.j], c.v[c.j], c.c[c.j], c.w[c.k], c.v[c.k], c.c[c.k]],
        nr: 2,
        nc: 3,
        digits: 3,
        rowHeader: t("p10.colKey"),
        test: "p10-e2-pair",
      });
      const full = numberTable({
        label: t("p10.e2RowLabel", { head: headName(name), q: qNames[c.i] }),
        rows: [t("p10.colWeight"), t("p10.colLength"), t("p10.colContrib")],
        cols: kNames,
        data: [...c.w, ...c.v, ...c.c],
        nr: 3,
        nc: kNames.length,
        digits: 2,
        rowHeader: t("p10.colMeasure"),
        test: "p10-e2-row",
      });
      const explain = t("p10.e2Explain", {
        head: headName(name),
        q: qNames[c.i],
        kj: kNames[c.j],
        kk: kNames[c.k],
        wj: fmt(c.w[c.j], 3),
        wk: fmt(c.w[c.k], 3),
        vj: fmt(c.v[c.j], 3),
        vk: fmt(c.v[c.k], 3),
        cj: fmt(c.c[c.j], 3),
        ck: fmt(c.c[c.k], 3),
        m: a.found.length,
        n: a.rowsSearched,
      });
      return {
        answer: "no",
        nodes: [nums.root, scrollBox(h("div", { class: "table-scroll" }, pair)), scrollBox(h("div", { class: "table-scroll" }, full))],
        explain,
      };
    },
  });

  // --- experiment 3: layer-1 map vs rollout -----------------------------------------------------
  let word = state.int("p10.w", -1, -1, 999);
  let srcTokens = [];
  // 0-based in the URL, -1 = the default word
  const wordSel = keySelect({
    id: `${id}-word`,
    label: t("p10.e3Word"),
    key: "p10.w",
    def: -1,
    options: [],
    value: 0,
    test: "p10-e3-word",
    onChange: (v) => {
      word = Number(v);
      e3.reset();
      e3.refresh();
    },
  });
  const wordName = () => labels(srcTokens)[word] ?? "?";
  const e3 = experiment(3, {
    title: t("p10.e3Title"),
    setup: h("div", {}, h("p", { text: t("p10.e3Intro") }), formula(t("p10.e3Formula")), controls(wordSel.root)),
    question: () => t("p10.e3Q", { w: wordName(), L: figures(engine).encL }),
    choices: [
      { value: "same", text: t("p10.e3Same") },
      { value: "diff", text: t("p10.e3Diff") },
    ],
    compute: () => {
      const a = analyse((lab, src, tr) => ({ src, tr, ro: lab.rollout() }));
      const S = a.src.tokens.length;
      const names = labels(a.src.tokens);
      const i = Math.min(Math.max(0, word), S - 1);
      const q = names[i];
      const L = a.ro.encoder.length;
      const heads1 = a.tr.trace.encoder.layers[0].self_attn.sublayer.heads;
      const rowsOf = heads1.map((hd) => Array.from(hd.weights.data.subarray(i * S, (i + 1) * S)));
      const mean = Array.from({ length: S }, (_, j) => rowsOf.reduce((s, r) => s + r[j], 0) / rowsOf.length);
      const roll = Array.from(a.ro.encoder[L - 1].data.subarray(i * S, (i + 1) * S));
      const table = new HeatTable({ kind: "seq", digits: 2, rowHeader: "", test: "p10-e3-table" });
      table.update({
        label: t("p10.e3TableLabel", { w: q, L }),
        rows: [...heads1.map((_, k) => t("p10.e3RowHead", { head: k + 1 })), t("p10.e3RowMean"), t("p10.e3RowRollout", { L })],
        cols: names,
        data: [...rowsOf.flat(), ...mean, ...roll],
        nr: heads1.length + 2,
        nc: S,
        selected: heads1.length,
      });
      const nums = readouts([
        { key: "raw", label: t("p10.e3Raw"), test: "p10-e3-raw" },
        { key: "roll", label: t("p10.e3Roll", { L }), test: "p10-e3-roll" },
        { key: "self", label: t("p10.e3Self", { w: q }), test: "p10-e3-self" },
      ]);
      if (S < 2) {
        nums.set("self", fmt(roll[i], 2), roll[i]);
        return { answer: "same", nodes: [nums.root, table.root], explain: t("p10.e3ExplainOne") };
      }
      const others = (r) => argmax(r.map((v, j) => (j === i ? -Infinity : v)));
      const k1 = others(mean);
      const k2 = others(roll);
      nums.set("raw", `“${names[k1]}”: ${fmt(mean[k1], 2)}`, mean[k1]);
      nums.set("roll", `“${names[k2]}”: ${fmt(roll[k2], 2)}`, roll[k2]);
      nums.set("self", fmt(roll[i], 2), roll[i]);
      nums.root.querySelector('[data-test="p10-e3-raw"]').dataset.word = String(k1);
      nums.root.querySelector('[data-test="p10-e3-roll"]').dataset.word = String(k2);
      const p = { w: q, L, k1: names[k1], k2: names[k2], a: fmt(mean[k1], 2), a2: fmt(roll[k1], 2), b: fmt(roll[k2], 2), b1: fmt(mean[k2], 2), self: fmt(roll[i], 2) };
      const explain = `${t(k1 === k2 ? "p10.e3ExplainSame" : "p10.e3ExplainDiff", p)} ${t("p10.e3Caveat", p)}`;
      return { answer: k1 === k2 ? "same" : "diff", nodes: [nums.root, table.root], explain };
    },
  });

  const experiments = [e1, e2, e3];

  // the lab opened on its grid of every head, where any set of heads can be knocked out
  const knockOutHref = (text) => ctx.labHref(text, { at: LAB_HEADS });
  const labLink = h("a", { class: "btn btn-primary", href: knockOutHref(ctx.shared.model), "data-test": "p10-lab-link", text: t("p10.openLab") });

  function render() {
    if (!ctx.loaded) return;
    const text = ctx.shared.model;
    labLink.href = knockOutHref(text);
    const res = translateWithNotes(ctx, engine, sent, msg, text, {});
    if (!res) {
      translation.textContent = "";
      return;
    }
    translation.textContent = res.tr.text;
    // experiment 1's row and word, shown before the guess
    const heads = crossHeads(res.tr.trace);
    const S = res.src.tokens.length;
    const f = focusRow(res.tr.tokens, heads[0].weights.rows);
    const sum = new Float64Array(S);
    for (const hd of heads) for (let j = 0; j < S; j++) sum[j] += hd.weights.data[f.row * S + j];
    const col = argmax(sum);
    e1Setup.textContent = t(f.repeat ? "p10.e1FocusRepeat" : "p10.e1FocusFirst", { tok: f.tok, word: res.src.tokens[col], n: heads.length });
    // experiment 3's word choice
    srcTokens = res.src.tokens;
    if (word < 0 || word >= S) word = defaultWord(srcTokens);
    wordSel.setOptions(labels(srcTokens).map((x, k) => ({ value: k, text: x })), word);
    for (const e of experiments) e.refresh();
  }

  const refs = h("ol", { class: "refs", "data-test": "p10-refs" }, ...["p10.ref1", "p10.ref2", "p10.ref3"].map((k) => h("li", { lang: "en", text: t(k) })));
  const panel = panelOf(
    ctx,
    "p10",
    sent.root,
    msg.root,
    needsModel(
      h("p", {}, h("strong", { text: t("p10.translation") }), " ", translation),
      e1.root,
      e2.root,
      e3.root),
    h("h3", { text: t("p10.mapsTitle") }),
    h("p", { text: t("p10.maps1") }),
    h("p", { text: t("p10.maps2") }),
    h("p", { text: t("p10.maps3") }),
    h("p", { text: t("p10.maps4") }),
    h("p", { text: t("p10.maps5") }),
    h("h4", { text: t("p10.refsTitle") }),
    refs,
    h("p", { class: "lab-cta" }, labLink),
  );
  ctx.ready(() => {
    render();
    for (const e of experiments) e.restore();
  });
  return panel;
}
