// The dot-product panel (section 4b): the numbers behind one attention weight, checked against
// the engine's trace (?debug=1) and the heatmap's table.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, filled, watchRetranslations, editsSettled } from "./fixtures.js";

/** The panel's table as the page holds it: per dimension q_i[d], k_j[d], their product; then the score, the scaled score and the weight. */
async function readDot(page) {
  const table = await filled(page.getByRole("table", { name: /^Dot product of q / }));
  return table.evaluate((t) => {
    const rows = [...t.tBodies[0].rows];
    const dims = rows.filter((r) => r.dataset.kind === "dim");
    const col = (c) => dims.map((r) => Number(r.cells[c].dataset.value));
    const last = (kind) => rows.find((r) => r.dataset.kind === kind).cells[3];
    return {
      name: t.getAttribute("aria-label"),
      q: col(1),
      k: col(2),
      products: col(3),
      score: Number(last("score").dataset.value),
      logit: Number(last("logit").dataset.value),
      logitText: last("logit").textContent,
      weight: Number(last("weight").dataset.value),
      weightText: last("weight").textContent,
      highlighted: dims.findIndex((r) => r.classList.contains("selected")),
    };
  });
}

/** The selected head's q_i, k_j, score, scaled score and weight of cell (i, j), and row i's weights, from the engine's trace. */
async function engineCell(page, i, j) {
  return page.evaluate(([i, j]) => {
    const { session } = window.attnscope;
    const s = session.state;
    const tr = session.cur.trace;
    const site = s.stack === "encoder" ? tr.encoder.layers[s.layer].self_attn : s.stack === "decoder_self" ? tr.decoder.layers[s.layer].self_attn : tr.decoder.layers[s.layer].cross_attn;
    const h = site.sublayer.heads[s.head];
    const rowOf = (m, r) => Array.from(m.data.subarray(r * m.cols, (r + 1) * m.cols));
    return { q: rowOf(h.q, i), k: rowOf(h.k, j), score: h.scores.data[i * h.scores.cols + j], logit: h.logits.data[i * h.logits.cols + j], weight: h.weights.data[i * h.weights.cols + j], weights: rowOf(h.weights, i) };
  }, [i, j]);
}

/** The panel shows cell (i, j): its table is the engine's q_i, k_j and score, the products add up to the score, and its weight is the heatmap table's. */
async function expectCell(page, i, j, stack = "encoder") {
  const sel = (name) => page.getByRole("combobox", { name, exact: true });
  await expect(sel("Query i")).toHaveValue(String(i));
  await expect(sel("Key j")).toHaveValue(String(j));
  const map = await readTable(page, heatmapName(stack));
  await expect.poll(async () => (await readDot(page)).name).toContain(`q “${map.rows[i]}” and k “${map.cols[j]}”`);
  const dot = await readDot(page);
  const eng = await engineCell(page, i, j);
  expect(dot.q).toEqual(eng.q);
  expect(dot.k).toEqual(eng.k);
  expect(dot.products).toHaveLength(eng.q.length);
  expect(dot.score).toBe(eng.score);
  expect(Math.abs(dot.products.reduce((a, b) => a + b, 0) - eng.score)).toBeLessThan(1e-4);
  expect(dot.logit).toBe(eng.logit);
  expect(dot.weight).toBe(eng.weight);
  expect(dot.weightText).toBe(map.text[i][j]);
  // the steps shown say the same numbers, rounded
  const shown = async (step, re) => Number((await page.locator(`[data-test="${step}"]`).textContent()).match(re)[1].replace("−", "-"));
  expect(Math.abs((await shown("dot-sum", /= (−?[\d.]+)\.$/)) - eng.score)).toBeLessThanOrEqual(0.0005 + 1e-9);
  if (eng.logit !== -Infinity) expect(Math.abs((await shown("dot-softmax", /= ([\d.]+)\.$/)) - eng.weight)).toBeLessThanOrEqual(0.00005 + 1e-9);
  return { dot, eng };
}

/** A small seeded generator (the seed is in the test's annotations, to repeat a failure). */
function lcg(seed) {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x % n;
  };
}

test("on the seed sentence, three cells: the panel's sum is the engine's score, its products add up to it, its weight is the heatmap's", async ({ page, watch }, testInfo) => {
  const seed = Number(process.env.DOT_SEED || Date.now() % 1e6);
  testInfo.annotations.push({ type: "seed", description: String(seed) });
  const rand = lcg(seed);
  await openApp(page, "?debug=1");
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  const n = (await readTable(page, heatmapName("encoder"))).rows.length;
  expect(n).toBeGreaterThan(5);
  // by default: the last word, and the key it gives the largest weight
  const last = await engineCell(page, n - 1, 0);
  const top = last.weights.indexOf(Math.max(...last.weights));
  await expectCell(page, n - 1, top);

  // 1: on the heatmap, with the keys alone: walk to the cell, Enter picks its row and its key
  let [i, j] = [rand(n - 1), rand(n)];
  const canvas = page.locator("#heatmap-main canvas");
  await canvas.focus();
  for (let r = n - 1; r > i; r--) await page.keyboard.press("ArrowUp");
  for (let c = 0; c < j; c++) await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Enter");
  await expectCell(page, i, j);

  // 2: the query from the weighted-average panel, the key from this panel
  [i, j] = [rand(n), rand(n)];
  await page.getByRole("combobox", { name: "Query word" }).selectOption(String(i));
  await page.getByRole("combobox", { name: "Key j", exact: true }).selectOption(String(j));
  await expectCell(page, i, j);

  // 3: both from this panel; the key chosen stays when the query changes
  [i, j] = [rand(n), rand(n)];
  await page.getByRole("combobox", { name: "Key j", exact: true }).selectOption(String(j));
  await page.getByRole("combobox", { name: "Query i", exact: true }).selectOption(String(i));
  await expectCell(page, i, j);
  await page.locator("#sec-dot").scrollIntoViewIfNeeded();
  await shot(page, testInfo, "dot");
  expectClean(watch);
});

test("a W_Q edit: the panel marks the edited row's dimension, follows the drag live, only q_i[d] moves, and every number is the engine's", async ({ page, watch }) => {
  // tall enough for the W_Q grid and this panel together: a live panel repaints during a drag when on screen
  await page.setViewportSize({ width: 1280, height: 4800 });
  await openApp(page, "?debug=1");
  await watchRetranslations(page);
  const n = (await readTable(page, heatmapName("encoder"))).rows.length;
  const [i, j] = [n - 1, 2];
  await page.getByRole("combobox", { name: "Key j", exact: true }).selectOption(String(j));
  const before = (await expectCell(page, i, j)).dot;
  // W_Q's row 4 (PageDown moves down a row): the head's dimension 4
  const wq = page.getByRole("slider", { name: /^W_Q cells of encoder self-attention, layer 1, head 1/ });
  await wq.focus();
  for (let r = 0; r < 3; r++) await page.keyboard.press("PageDown");
  await expect(wq).toHaveAttribute("aria-valuetext", /^row 4 of /);
  await expect(page.locator('[data-test="dot-dim"]')).toBeVisible();
  await expect(page.locator('[data-test="dot-dim"]')).toHaveText(/^Dimension 4, /);
  await expect.poll(async () => (await readDot(page)).highlighted).toBe(3);
  expect(await page.locator("#sec-dot").evaluate((e) => e.getBoundingClientRect().bottom <= innerHeight)).toBe(true);
  // the key held down: live edits, no re-translation yet, and the panel already shows the new score
  const sum = page.locator('[data-test="dot-sum"]');
  const shown = await sum.textContent();
  await page.keyboard.down("ArrowUp");
  await expect(sum).not.toHaveText(shown);
  expect(await page.evaluate(() => window.__retranslated.length)).toBe(0);
  await page.keyboard.up("ArrowUp");
  for (let k = 0; k < 7; k++) await page.keyboard.press("ArrowUp");
  await editsSettled(page);
  await expect(page.getByRole("status").filter({ hasText: "Edited blocks in force" })).toBeVisible();
  const { dot: after } = await expectCell(page, i, j);
  expect(after.q[3]).not.toBe(before.q[3]);
  // W_Q's row 4 makes q[4] alone: the other dimensions of q_i, and all of k_j, stay
  expect(after.q.filter((_, d) => d !== 3)).toEqual(before.q.filter((_, d) => d !== 3));
  expect(after.k).toEqual(before.k);
  expect(after.score).not.toBe(before.score);
  // leaving the grid clears the mark
  await page.getByRole("combobox", { name: "Key j", exact: true }).focus();
  await expect(page.locator('[data-test="dot-dim"]')).toBeHidden();
  expectClean(watch);
});

test("a masked cell's score is −∞ before the softmax and its weight 0; with scaling off the scaled score is the raw score", async ({ page, watch }) => {
  await openApp(page, "?debug=1&stack=decoder_self&scale=0");
  await page.getByRole("combobox", { name: "Query i", exact: true }).selectOption("0");
  await page.getByRole("combobox", { name: "Key j", exact: true }).selectOption("2");
  const { dot, eng } = await expectCell(page, 0, 2, "decoder_self");
  expect(eng.logit).toBe(-Infinity);
  expect(eng.weight).toBe(0);
  expect(dot.logitText).toBe("masked (−∞)");
  await expect(page.locator('[data-test="dot-scale"]')).toContainText("Masked");
  await page.getByRole("combobox", { name: "Key j", exact: true }).selectOption("0");
  const open = await expectCell(page, 0, 0, "decoder_self");
  expect(open.eng.logit).toBe(open.eng.score);
  await expect(page.locator('[data-test="dot-scale"]')).toContainText("Not divided by √d_k");
  expectClean(watch);
});
