// Panel 11 of the lesson, "BERT and GPT: one half each" (issue 26): one sentence through an
// encoder-only model (the translator's own encoder, then MiniLM once the reader loads it) and
// through the decoder-only Tiny GPT, side by side. Checked against the engines themselves
// (?debug=1: window.attnscope.halves.{gpt, bert}, the panel's own Engine instances):
// both maps on screen in English and Korean, the causal mask (nothing above the GPT's diagonal,
// weight above the encoder's), the next-token list equal to the engine's top 5, a predicted word
// appended (the GPT's earlier rows unchanged), and "Load MiniLM": its size first, a progress bar,
// then WordPiece tokens with [CLS] first; axe finds nothing in the panel with both models loaded.
//   E2E_ROOT=dist npx playwright test tests/e2e/lesson-halves.spec.js
import fs from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test, expect, recordProgress, expectClean } from "./fixtures.js";
import { STRINGS } from "../../www/js/lesson/strings.js";

const SEED = "Emma hates games, but she's a great friend";
const WWW = path.join(path.dirname(new URL(import.meta.url).pathname), "../../www");

async function openLesson(page, query = "") {
  await page.goto(`/lesson.html${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
}

/** A heat table: its name, row and column names, exact values (data-value) and masked cells. */
async function readHeat(locator) {
  await expect(locator).toHaveCount(1);
  return locator.evaluate((t) => ({
    name: t.getAttribute("aria-label"),
    cols: [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent),
    rows: [...t.tBodies[0].rows].map((r) => r.cells[0].textContent),
    values: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.dataset.value))),
    masked: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => c.classList.contains("masked"))),
  }));
}

/** The largest weight above the diagonal (a row's weight on later positions). */
const aboveMax = (m) => m.values.reduce((mx, r, i) => Math.max(mx, ...r.slice(i + 1), 0), 0);

/** What the engine itself gives for `text`: Tiny GPT's tokens and its five most probable next tokens (last row of trace.decoder.probs). */
function gptTruth(page, text) {
  return page.evaluate((text) => {
    const e = window.attnscope.halves.gpt;
    const src = e.setSource(text);
    const P = e.run().trace.decoder.probs; // (T, V)
    const last = Array.from(P.data.subarray((P.rows - 1) * P.cols));
    const top = last.map((p, k) => [p, k]).sort((a, b) => b[0] - a[0]).slice(0, 5);
    return { tokens: src.tokens, next: top.map(([p, k]) => ({ token: e.info.srcVocab[k], value: String(p) })) };
  }, text);
}

/** The next-token list on screen: token and exact probability of each item. */
const shownNext = (p11) =>
  p11.locator('[data-test="p11-next"] li').evaluateAll((lis) => lis.map((li) => ({ token: li.querySelector(".bar-token").textContent, value: li.dataset.value })));

for (const lang of ["en", "ko"]) {
  test(`panel 11 (${lang}): the encoder-only map has weight above the diagonal, Tiny GPT's has none (masked, exactly 0), and its next-token list is the engine's top 5`, async ({ page, watch }, testInfo) => {
    const S = STRINGS[lang];
    await openLesson(page, `?debug=1&lang=${lang}`);
    const p11 = page.locator("#p11");
    await expect(p11.getByRole("heading", { level: 2 })).toContainText(S["p11.title"]);
    // Tiny GPT waits until the reader nears the panel
    expect(watch.requests.some((u) => u.endsWith("/models/tiny-gpt.safetensors"))).toBe(false);
    expect(watch.requests.some((u) => u.endsWith("/models/minilm-l6.safetensors"))).toBe(false);
    await p11.scrollIntoViewIfNeeded();
    const decMap = p11.locator('table[data-test="p11-dec-map"]');
    await expect(decMap).toBeVisible({ timeout: 30_000 });
    expect(watch.requests.some((u) => u.endsWith("/models/tiny-gpt.safetensors"))).toBe(true);
    await expect(p11.getByRole("textbox", { name: S["p11.box"] })).toHaveValue(SEED);

    // the encoder half (the translator's encoder, MiniLM not loaded): no mask, weight above the diagonal
    const enc = await readHeat(p11.locator('table[data-test="p11-enc-map"]'));
    expect(enc.rows).toEqual(enc.cols);
    expect(enc.masked.flat().some(Boolean)).toBe(false);
    expect(aboveMax(enc)).toBeGreaterThan(0.01);
    expect(Number(await p11.locator('[data-test="p11-enc-map-above"]').getAttribute("data-value"))).toBeGreaterThan(0.01);

    // the decoder half: Tiny GPT's tokens, every cell after the row's word masked and exactly 0
    const truth = await gptTruth(page, SEED);
    const dec = await readHeat(decMap);
    expect(dec.cols).toEqual(truth.tokens);
    expect(dec.rows).toEqual(truth.tokens);
    dec.masked.forEach((r, i) => r.forEach((m, j) => expect(m, `cell ${i},${j}`).toBe(j > i)));
    expect(aboveMax(dec)).toBe(0);
    for (const r of dec.values) expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    expect(Number(await p11.locator('[data-test="p11-dec-map-above"]').getAttribute("data-value"))).toBe(0);
    // the followed word ("she"): nothing after it in any head of the GPT, something in the encoder's
    expect(Number(await p11.locator('[data-test="p11-dec-map-ahead"]').getAttribute("data-value"))).toBe(0);
    expect(Number(await p11.locator('[data-test="p11-enc-map-ahead"]').getAttribute("data-value"))).toBeGreaterThan(0.01);
    await expect(p11.locator('[data-test="p11-dec-map-word"]').locator("option:checked")).toContainText("she");

    // generating: the five tokens and probabilities the engine gives, in its order
    expect(await shownNext(p11)).toEqual(truth.next);
    await expect(p11.locator('[data-test="p11-next-title"]')).toContainText(truth.tokens[truth.tokens.length - 1]);

    // add the most probable token: one more row and column; the earlier rows are unchanged (causal)
    const top = truth.next[0].token;
    await p11.locator('[data-test="p11-append"]').click();
    const box = p11.getByRole("textbox", { name: S["p11.box"] });
    await expect.poll(() => box.inputValue()).not.toBe(SEED);
    const longer = await box.inputValue();
    expect(longer.startsWith(SEED)).toBe(true);
    const truth2 = await gptTruth(page, longer);
    expect(truth2.tokens.slice(0, truth.tokens.length)).toEqual(truth.tokens);
    expect(truth2.tokens[truth.tokens.length]).toBe(top);
    await expect(decMap.locator("tbody tr")).toHaveCount(truth.tokens.length + 1);
    const dec2 = await readHeat(decMap);
    // the causal mask: the earlier rows do not see the new token. Equal up to float rounding (the
    // relaxed-SIMD build's fused multiply-adds group a longer sequence's sums differently)
    const drift = Math.max(...dec.values.map((r, i) => Math.max(...r.map((v, j) => Math.abs(v - dec2.values[i][j])))));
    expect(drift).toBeLessThan(1e-6);
    expect(await shownNext(p11)).toEqual(truth2.next);

    await p11.screenshot({ path: testInfo.outputPath(`lesson-${lang}-p11.png`) });
    expectClean(watch);
  });
}

test("panel 11: “Load MiniLM” says its size, downloads with a progress bar, and the encoder map becomes MiniLM's, WordPiece tokens from [CLS]; the translator's encoder can come back", async ({ page, watch }) => {
  test.setTimeout(120_000);
  // every value the progress bars are given
  await recordProgress(page, "p11-bert-progress");
  await openLesson(page, "?debug=1#p11");
  const p11 = page.locator("#p11");
  await p11.scrollIntoViewIfNeeded();
  const encMap = p11.locator('table[data-test="p11-enc-map"]');
  const before = await readHeat(encMap);
  expect(before.cols[0]).not.toBe("[CLS]");

  const file = "models/minilm-l6.safetensors";
  const size = fs.statSync(path.join(WWW, file)).size;
  const load = p11.getByRole("button", { name: /^Load MiniLM/ });
  await expect(load).toHaveText(`Load MiniLM (${(size / 1e6).toFixed(1)} MB)`);
  expect(watch.requests.some((u) => u.endsWith(file))).toBe(false); // not before it is asked for
  await load.click();
  await expect(p11.locator('[data-test="p11-enc-about"]')).toContainText("all-MiniLM-L6-v2", { timeout: 60_000 });
  const progress = await page.evaluate(() => window.__progress);
  expect(progress.filter((v) => v > 0 && v < 1).length, "the bar moved between 0 and 1").toBeGreaterThan(0);
  expect(progress[progress.length - 1]).toBe(1);
  await expect(load).toBeHidden();

  // the map is MiniLM's now: its WordPiece tokens, [CLS] first and [SEP] last, as the engine has them
  const tokens = await page.evaluate((s) => window.attnscope.halves.bert.tokenize(s).tokens, SEED);
  expect(tokens[0]).toBe("[CLS]");
  await expect(encMap.locator("thead th.col-label").first()).toHaveText("[CLS]");
  const bert = await readHeat(encMap);
  expect(bert.cols).toEqual(tokens);
  expect(bert.cols[bert.cols.length - 1]).toBe("[SEP]");
  expect(bert.masked.flat().some(Boolean)).toBe(false);
  expect(aboveMax(bert)).toBeGreaterThan(0.01);
  // 6 layers of 12 heads to choose from
  await expect(p11.locator('[data-test="p11-enc-map-layer"] option')).toHaveCount(6);
  await expect(p11.locator('[data-test="p11-enc-map-head"] option')).toHaveCount(12);
  // the weights shown are the engine's, for the head shown
  const [layer, head] = await Promise.all(["layer", "head"].map((k) => p11.locator(`[data-test="p11-enc-map-${k}"]`).inputValue()));
  const engineRow = await page.evaluate(
    ({ s, layer, head }) => {
      const e = window.attnscope.halves.bert;
      e.setSource(s);
      return Array.from(e.run().trace.encoder.layers[layer].self_attn.sublayer.heads[head].weights.data.subarray(0, e.tokenize(s).tokens.length));
    },
    { s: SEED, layer: Number(layer), head: Number(head) },
  );
  expect(bert.values[0]).toEqual(engineRow);

  // back to the translator's encoder, and to MiniLM again (no second download)
  const which = p11.getByRole("combobox", { name: "Encoder-only model shown" });
  await which.selectOption("translator");
  await expect(encMap.locator("thead th.col-label").first()).not.toHaveText("[CLS]");
  await which.selectOption("bert");
  await expect(encMap.locator("thead th.col-label").first()).toHaveText("[CLS]");
  expect(watch.requests.filter((u) => u.endsWith(file)).length).toBe(1);
  expectClean(watch);
});

test.describe("axe", () => {
  test.use({ bypassCSP: true }); // the server's strict CSP would refuse axe's injected script
  test("panel 11 with Tiny GPT and MiniLM loaded: axe-core finds nothing (WCAG 2.1 A and AA, best practices)", async ({ page }) => {
    test.setTimeout(120_000);
    await openLesson(page, "?debug=1#p11");
    const p11 = page.locator("#p11");
    await p11.scrollIntoViewIfNeeded();
    await expect(p11.locator('table[data-test="p11-dec-map"]')).toBeVisible({ timeout: 30_000 });
    await p11.getByRole("button", { name: /^Load MiniLM/ }).click();
    await expect(p11.getByRole("combobox", { name: "Encoder-only model shown" })).toBeVisible({ timeout: 60_000 });
    const { violations } = await new AxeBuilder({ page }).include("#p11").withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
    expect(violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" >> ")}`))).toEqual([]);
  });
});
