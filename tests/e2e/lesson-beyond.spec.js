// Panel 10 of the lesson, "What attention weights do not tell you": three predict → run → explain
// experiments on the trained translator (knock-out importance vs the most-attended head, a big
// weight on a short value vector, a layer-1 map vs attention rollout), in English and Korean.
// The numbers on screen are checked against a fresh engine in the same page (engine.js), so
// the test holds for a retrained model: it recomputes every case the panel searched for.
import { test, expect, expectClean } from "./fixtures.js";

const SEED = "Emma hates games, but she's a great friend";

async function openLesson(page, query = "") {
  await page.goto(`/lesson.html${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
}

/** Warnings too: a missing string in the lesson's table is a console warning. */
function watchWarnings(page) {
  const warnings = [];
  page.on("console", (m) => {
    if (m.type() === "warning") warnings.push(m.text());
  });
  return warnings;
}

const exp = (page, n) => page.locator(`[data-test="p10-e${n}"]`);

/** Guess, check the result stays hidden until run, run, and return the verdict's answer. */
async function predictRun(page, n, guess) {
  const e = exp(page, n);
  const run = e.locator(`[data-test="p10-e${n}-run"]`);
  const result = e.locator(`[data-test="p10-e${n}-result"]`);
  await expect(result).toBeHidden();
  await expect(run).toBeDisabled(); // predict first
  await e.locator(`[data-test="p10-e${n}-guess-${guess}"]`).check();
  await expect(run).toBeEnabled();
  await expect(result).toBeHidden(); // a guess alone computes nothing
  await run.click();
  await expect(result).toBeVisible();
  const verdict = e.locator(`[data-test="p10-e${n}-verdict"]`);
  await expect(verdict).toHaveAttribute("data-guess", guess);
  await expect(e.locator(`[data-test="p10-e${n}-explain"]`)).not.toHaveText("");
  return verdict.getAttribute("data-answer");
}

/** What a fresh engine in the page says about the lecture's sentence. */
async function engineTruth(page, word) {
  return page.evaluate(async ({ text, word }) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    const lab = e.lab;
    const src = lab.setSource(text);
    lab.setOptions(e.fullOptions({}));
    const tr = lab.translate();
    const S = src.tokens.length;
    const imp = lab.headImportance();
    const heads = [];
    tr.trace.decoder.layers.forEach((l, li) => l.cross_attn.sublayer.heads.forEach((hd, hi) => heads.push({ name: `c${li + 1}h${hi + 1}`, w: Array.from(hd.weights.data), rows: hd.weights.rows })));
    // experiment 1's row: the step that writes a word the second time
    const isWord = (t) => !t.startsWith("+") && !/^<.*>$/.test(t) && /[\p{L}\p{N}]/u.test(t);
    let row = -1;
    for (let i = 0; i < heads[0].rows && row < 0; i++) if (isWord(tr.tokens[i]) && tr.tokens.slice(0, i).includes(tr.tokens[i])) row = i;
    const sum = new Array(S).fill(0);
    for (const hd of heads) for (let j = 0; j < S; j++) sum[j] += hd.w[row * S + j];
    const col = sum.indexOf(Math.max(...sum));
    const weights = heads.map((hd) => hd.w[row * S + col]);
    const att = heads[weights.indexOf(Math.max(...weights))].name;
    const top = imp.heads[imp.ranking[0]];
    const delta = Object.fromEntries(imp.heads.map((h, i) => [h, imp.delta[i]]));
    const value = {};
    for (const stack of ["encoder", "decoder_self", "decoder_cross"]) for (let l = 0; l < 2; l++) value[`${stack}/${l}`] = lab.valueWeighted(stack, l);
    const ro = lab.rollout();
    const L = ro.encoder.length;
    const i = src.tokens.indexOf(word);
    const rollRow = Array.from(ro.encoder[L - 1].data.slice(i * S, (i + 1) * S));
    const l1 = tr.trace.encoder.layers[0].self_attn.sublayer.heads.map((hd) => Array.from(hd.weights.data.slice(i * S, (i + 1) * S)));
    const without = {};
    for (const h of [att, top]) {
      lab.setOptions({ knockOut: [h] });
      without[h] = lab.translate().text;
    }
    lab.setOptions({ knockOut: [] });
    // every weight matrix of the run, for experiment 2
    const weightsOf = {};
    tr.trace.encoder.layers.forEach((l, li) => l.self_attn.sublayer.heads.forEach((hd, hi) => (weightsOf[`e${li + 1}h${hi + 1}`] = { data: Array.from(hd.weights.data), cols: hd.weights.cols })));
    tr.trace.decoder.layers.forEach((l, li) => {
      l.self_attn.sublayer.heads.forEach((hd, hi) => (weightsOf[`s${li + 1}h${hi + 1}`] = { data: Array.from(hd.weights.data), cols: hd.weights.cols }));
      l.cross_attn.sublayer.heads.forEach((hd, hi) => (weightsOf[`c${li + 1}h${hi + 1}`] = { data: Array.from(hd.weights.data), cols: hd.weights.cols }));
    });
    const valueOf = {};
    for (const [k, v] of Object.entries(value)) {
      const [stack, l] = k.split("/");
      const letter = { encoder: "e", decoder_self: "s", decoder_cross: "c" }[stack];
      v.forEach((hv, hi) => (valueOf[`${letter}${Number(l) + 1}h${hi + 1}`] = { v: Array.from(hv.value_norms.data), c: Array.from(hv.norms.data), cols: hv.norms.cols }));
    }
    return { text: tr.text, tok: tr.tokens[row], word: src.tokens[col], att, attWeight: Math.max(...weights), top, delta, ranking: Array.from(imp.ranking).map((k) => imp.heads[k]), without, rollRow, l1, L, weightsOf, valueOf, tokens: src.tokens };
  }, { text: SEED, word });
}

for (const lang of ["en", "ko"]) {
  test(`panel 10 (${lang}): predict, run, explain, with the engine's numbers`, async ({ page, watch }, testInfo) => {
    const warnings = watchWarnings(page);
    await openLesson(page, `?lang=${lang}#p10`);
    const p10 = page.locator("#p10");
    await expect(p10.getByRole("heading", { level: 2 })).toHaveText(lang === "en" ? "10What attention weights do not tell you" : "10어텐션 가중치가 말해 주지 않는 것");
    await expect(page.locator("section.panel")).toHaveCount(11); // panel 11 (BERT and GPT) follows
    await expect(page.getByRole("navigation").getByRole("link", { name: lang === "en" ? "What attention weights do not tell you" : "어텐션 가중치가 말해 주지 않는 것" })).toHaveCount(1);
    const truth = await engineTruth(page, "friend");

    // --- experiment 1: the most-attended head is not (necessarily) the most important one
    await expect(exp(page, 1).locator('[data-test="p10-e1-setup"]')).toContainText(truth.tok);
    await expect(exp(page, 1).locator('[data-test="p10-e1-setup"]')).toContainText(truth.word);
    const a1 = await predictRun(page, 1, "same");
    expect(a1).toBe(truth.att === truth.top ? "same" : "diff");
    const att = p10.locator('[data-test="p10-e1-att"]');
    await expect(att).toHaveAttribute("data-head", truth.att);
    expect(Number(await att.getAttribute("data-value"))).toBeCloseTo(truth.attWeight, 6);
    await expect(p10.locator('[data-test="p10-e1-top"]')).toHaveAttribute("data-head", truth.top);
    expect(Number(await p10.locator('[data-test="p10-e1-top-delta"]').getAttribute("data-value"))).toBeCloseTo(truth.delta[truth.top], 5);
    expect(Number(await p10.locator('[data-test="p10-e1-att-delta"]').getAttribute("data-value"))).toBeCloseTo(truth.delta[truth.att], 5);
    expect(Number(await p10.locator('[data-test="p10-e1-att-rank"]').getAttribute("data-value"))).toBe(truth.ranking.indexOf(truth.att) + 1);
    await expect(p10.locator('[data-test="p10-e1-base"]')).toContainText(truth.text);
    await expect(p10.locator('[data-test="p10-e1-without-att"]')).toContainText(truth.without[truth.att]);
    if (truth.att !== truth.top) await expect(p10.locator('[data-test="p10-e1-without-top"]')).toContainText(truth.without[truth.top]);
    // the explanation quotes the numbers on screen
    const ex1 = await p10.locator('[data-test="p10-e1-explain"]').textContent();
    expect(ex1).toContain(truth.attWeight.toFixed(2));
    expect(ex1).toContain(Math.abs(truth.delta[truth.top]).toFixed(2));
    // knocking heads out here never leaks into the other panels
    await expect(page.locator('[data-test="p9-translation"]')).toHaveText(truth.text);

    // --- experiment 2: a big weight on a short value vector
    const a2 = await predictRun(page, 2, "yes");
    const where = p10.locator('[data-test="p10-e2-where"]');
    // every row of every head, from the engine's weights and value-weighted norms: a row counts
    // where its largest weight is not its largest contribution
    const argmax = (r) => r.reduce((b, v, j) => (v > r[b] ? j : b), 0);
    const found = [];
    let rows = 0;
    for (const [head, W] of Object.entries(truth.weightsOf)) {
      const V = truth.valueOf[head];
      expect(V, head).toBeDefined();
      for (let i = 0; i < W.data.length / W.cols; i++) {
        rows += 1;
        const wr = W.data.slice(i * W.cols, (i + 1) * W.cols);
        const cr = V.c.slice(i * V.cols, (i + 1) * V.cols);
        const [j, k] = [argmax(wr), argmax(cr)];
        if (j !== k && wr[j] > wr[k] && cr[k] > cr[j]) found.push({ head, i, gap: wr[j] - wr[k] });
      }
    }
    expect(rows).toBeGreaterThan(0);
    expect(a2).toBe(found.length > 0 ? "no" : "yes");
    const count = p10.locator('[data-test="p10-e2-count"]');
    expect(Number(await count.getAttribute("data-value"))).toBe(found.length);
    await expect(count).toContainText(String(rows));
    if (a2 === "no") {
      const head = await where.getAttribute("data-head");
      const i = Number(await where.getAttribute("data-value"));
      // the case shown is the most striking one: the largest gap between the two weights
      const best = found.reduce((b, x) => (x.gap > b.gap ? x : b));
      expect({ head, i }).toEqual({ head: best.head, i: best.i });
      const W = truth.weightsOf[head];
      const V = truth.valueOf[head];
      const pair = await p10.locator('[data-test="p10-e2-pair"]').evaluate((t) => [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.dataset.value))));
      const [[wj, vj, cj], [wk, vk, ck]] = pair;
      expect(wj).toBeGreaterThan(wk); // the bigger weight...
      expect(cj).toBeLessThan(ck); // ...adds less
      const row = W.data.slice(i * W.cols, (i + 1) * W.cols);
      const j = row.indexOf(Math.max(...row));
      const crow = V.c.slice(i * V.cols, (i + 1) * V.cols);
      const k = crow.indexOf(Math.max(...crow));
      expect(wj).toBeCloseTo(row[j], 6);
      expect(wk).toBeCloseTo(row[k], 6);
      expect(vj).toBeCloseTo(V.v[j], 5);
      expect(vk).toBeCloseTo(V.v[k], 5);
      expect(cj).toBeCloseTo(crow[j], 5);
      expect(ck).toBeCloseTo(crow[k], 5);
      await expect(p10.locator('[data-test="p10-e2-verdict"]')).toHaveClass(/verdict-wrong/);
    }

    // --- experiment 3: layer 1 vs rollout for "friend" (the panel's default word)
    await expect(p10.locator('[data-test="p10-e3-word"] option:checked')).toHaveText("friend");
    const a3 = await predictRun(page, 3, "diff");
    const table = await p10.locator('[data-test="p10-e3-table"]').evaluate((t) => [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.dataset.value))));
    const rollout = table[table.length - 1];
    const mean = table[table.length - 2];
    truth.rollRow.forEach((v, j) => expect(rollout[j]).toBeCloseTo(v, 6));
    truth.l1.forEach((r, h) => r.forEach((v, j) => expect(table[h][j]).toBeCloseTo(v, 6)));
    mean.forEach((v, j) => expect(v).toBeCloseTo(truth.l1.reduce((s, r) => s + r[j], 0) / truth.l1.length, 6));
    const i = truth.tokens.indexOf("friend");
    const other = (r) => r.map((v, j) => (j === i ? -1 : v)).reduce((b, v, j, a) => (v > a[b] ? j : b), 0);
    expect(Number(await p10.locator('[data-test="p10-e3-raw"]').getAttribute("data-word"))).toBe(other(mean));
    expect(Number(await p10.locator('[data-test="p10-e3-roll"]').getAttribute("data-word"))).toBe(other(truth.rollRow));
    expect(a3).toBe(other(mean) === other(truth.rollRow) ? "same" : "diff");
    expect(Number(await p10.locator('[data-test="p10-e3-self"]').getAttribute("data-value"))).toBeCloseTo(truth.rollRow[i], 6);

    // the sources
    const refs = await p10.locator('[data-test="p10-refs"] li').allTextContents();
    expect(refs.join(" ")).toContain("Attention is not Explanation");
    expect(refs.join(" ")).toContain("Attention is Not Only a Weight");
    expect(refs.join(" ")).toContain("Quantifying Attention Flow in Transformers");
    if (lang === "ko") {
      await expect(p10.locator('[data-test="p10-e1-explain"]')).toContainText("헤드");
      await expect(p10).not.toContainText("레이어");
    }
    await p10.screenshot({ path: testInfo.outputPath(`lesson-beyond-${lang}.png`) });
    expect(warnings, "console warnings").toEqual([]);
    expectClean(watch);
  });
}

test("panel 10: guesses and results survive a reload and a language switch; a new sentence asks again", async ({ page, watch }) => {
  await openLesson(page, "#p10");
  await predictRun(page, 1, "diff");
  await expect.poll(() => new URL(page.url()).searchParams.get("p10.g1")).toBe("diff");
  await expect.poll(() => new URL(page.url()).searchParams.get("p10.r1")).toBe("1");
  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(exp(page, 1).locator('[data-test="p10-e1-result"]')).toBeVisible();
  await expect(exp(page, 1).locator('[data-test="p10-e1-guess-diff"]')).toBeChecked();
  await page.getByRole("button", { name: "한국어" }).click();
  await expect(exp(page, 1).locator('[data-test="p10-e1-result"]')).toBeVisible();
  await expect(exp(page, 1).locator('[data-test="p10-e1-verdict"]')).toContainText("엔진");
  await page.getByRole("button", { name: "English" }).click();
  // the reader's own sentence: the old result is hidden until run again
  const box = page.locator("#p10").getByRole("textbox", { name: "Sentence for the translator" });
  await box.fill("my brother reads a book every night");
  await box.press("Enter");
  await expect(exp(page, 1).locator('[data-test="p10-e1-result"]')).toBeHidden();
  await exp(page, 1).locator('[data-test="p10-e1-run"]').click();
  await expect(exp(page, 1).locator('[data-test="p10-e1-result"]')).toBeVisible();
  await expect(exp(page, 1).locator('[data-test="p10-e1-setup"]')).toContainText(/first word|second time/);
  for (const n of [2, 3]) {
    await exp(page, n).locator(`[data-test="p10-e${n}-guess-${n === 2 ? "no" : "same"}"]`).check();
    await exp(page, n).locator(`[data-test="p10-e${n}-run"]`).click();
    await expect(exp(page, n).locator(`[data-test="p10-e${n}-explain"]`)).not.toHaveText("");
  }
  expectClean(watch);
});

test.describe("accessibility", () => {
  test.use({ bypassCSP: true }); // the server's CSP would refuse axe's injected script
  for (const lang of ["en", "ko"]) {
    test(`axe finds nothing in panel 10 with every experiment run (${lang})`, async ({ page, watch }) => {
      const { default: AxeBuilder } = await import("@axe-core/playwright");
      await openLesson(page, `?lang=${lang}#p10`);
      for (const [n, g] of [[1, "diff"], [2, "no"], [3, "same"]]) await predictRun(page, n, g);
      const { violations } = await new AxeBuilder({ page }).include("#p10").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
      expect(violations.flatMap((v) => v.nodes.map((x) => `${v.id}: ${x.target.join(" ")}`))).toEqual([]);
      expectClean(watch);
    });
  }
});
