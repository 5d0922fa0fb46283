// Attention views and the live controls: typing, masks, scaling, heads.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, urlState } from "./fixtures.js";

const rowMax = (values) => values.map((r) => Math.max(...r));

test("typing a new sentence updates the translation and the heatmaps", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const before = await readTable(page, heatmapName("encoder"));
  const translationBefore = await page.locator("#translation").textContent();
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  const crossBefore = await readTable(page, heatmapName("decoder_cross"));

  const box = page.getByRole("textbox", { name: "English sentence" });
  await box.fill("the teacher found the small dog in the park");
  // live: no Enter needed
  await expect(page.locator("#tokens")).toContainText("teacher");
  const cross = await readTable(page, heatmapName("decoder_cross"));
  expect(cross.cols).toEqual(["the", "teacher", "found", "the", "small", "dog", "in", "the", "park"]);
  await page.getByRole("radio", { name: "Encoder self-attention" }).check();
  const after = await readTable(page, heatmapName("encoder"));
  expect(after.rows).toEqual(cross.cols);
  // both maps are the new sentence's weights: those of a fresh engine on it (the tables print 7
  // significant digits), not the old sentence's nor any other head's
  expect(crossBefore.cols).not.toEqual(cross.cols);
  expect(before.cols).not.toEqual(after.cols);
  const truth = await page.evaluate(async (text) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    e.lab.setSource(text);
    e.lab.setOptions(e.fullOptions({}));
    const tr = e.lab.translate().trace;
    const rows = (w) => Array.from({ length: w.rows }, (_, i) => Array.from(w.data.slice(i * w.cols, (i + 1) * w.cols)));
    return { encoder: rows(tr.encoder.layers[0].self_attn.sublayer.heads[0].weights), cross: rows(tr.decoder.layers[0].cross_attn.sublayer.heads[0].weights) };
  }, "the teacher found the small dog in the park");
  for (const [what, got, want] of [["encoder", after.values, truth.encoder], ["cross", cross.values, truth.cross]]) {
    expect(got.length, what).toBe(want.length);
    const worst = Math.max(...want.flatMap((r, i) => r.map((v, j) => Math.abs(v - got[i][j]))));
    expect(worst, `${what}: the table against the engine`).toBeLessThanOrEqual(1e-6);
  }
  const translation = (await page.locator("#translation").textContent()).trim();
  expect(translation.length).toBeGreaterThan(0);
  expect(translation).not.toBe(translationBefore.trim());
  // every row of weights sums to 1
  for (const r of after.values) expect(Math.abs(r.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-4);
  await shot(page, testInfo, "new-sentence");
  expectClean(watch);
});

test("decoder mask: above the diagonal is exactly 0 with the mask, and not without", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await page.getByRole("radio", { name: "Decoder self-attention (masked)" }).check();
  const name = heatmapName("decoder_self");
  const masked = await readTable(page, name);
  const T = masked.rows.length;
  expect(T).toBeGreaterThan(1);
  expect(masked.cols).toEqual(masked.rows);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) expect(masked.text[i][j], `row ${i} col ${j}`).toBe("0");

  await page.getByRole("checkbox", { name: "Causal mask in the decoder" }).uncheck();
  await expect(page.getByText("Mask off: the decoder is peeking at the future", { exact: false })).toBeVisible();
  await expect
    .poll(async () => {
      const t = await readTable(page, name);
      let above = 0;
      for (let i = 0; i < t.rows.length; i++) for (let j = i + 1; j < t.rows.length; j++) if (t.values[i][j] > 0) above++;
      return above;
    })
    .toBeGreaterThan(0);
  await shot(page, testInfo, "decoder-mask-off");

  // and the encoder mask makes the encoder map lower-triangular
  await page.getByRole("checkbox", { name: "Causal mask in the encoder too" }).check();
  await page.getByRole("radio", { name: "Encoder self-attention" }).check();
  await expect
    .poll(async () => {
      const t = await readTable(page, heatmapName("encoder"));
      for (let i = 0; i < t.rows.length; i++) for (let j = i + 1; j < t.rows.length; j++) if (t.text[i][j] !== "0") return false;
      return true;
    })
    .toBe(true);
  expectClean(watch);
});

test("turning scaling off changes the weights and sharpens every row", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const name = heatmapName("encoder", 2, 1);
  await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ label: "2" });
  const scaled = await readTable(page, name);
  await page.getByRole("checkbox", { name: "Divide scores by √d_k" }).uncheck();
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(scaled.text);
  const unscaled = await readTable(page, name);
  const a = rowMax(scaled.values);
  const b = rowMax(unscaled.values);
  // softmax of larger logits: every row's top weight grows (or stays at 1)
  for (let i = 0; i < a.length; i++) expect(b[i]).toBeGreaterThanOrEqual(a[i] - 1e-6);
  expect(b.reduce((x, y) => x + y) / b.length).toBeGreaterThan(a.reduce((x, y) => x + y) / a.length);
  await expect(page.locator("#formula-scale")).toHaveClass(/off/);
  await shot(page, testInfo, "scaling-off");
  expectClean(watch);
});

test("changing the number of heads changes the head panels", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const heads = page.getByRole("combobox", { name: "Number of heads" });
  const options = await heads.locator("option").evaluateAll((os) => os.map((o) => Number(o.value)));
  const trained = Number(await heads.inputValue());
  const thumbs = page.getByRole("button", { name: /^Layer \d+, head \d+$/ });
  const layers = await page.getByRole("combobox", { name: "Layer", exact: true }).locator("option").count();
  await expect(thumbs).toHaveCount(layers * trained);
  // only divisors of d_model are offered
  const dModel = Number((await page.locator("#model-info").textContent()).match(/d_model = (\d+)/)[1]);
  for (const h of options) expect(dModel % h, `${h} heads`).toBe(0);
  const other = options.find((h) => h !== trained && h <= 8 && h > 1) ?? options.find((h) => h !== trained);
  await heads.selectOption(String(other));
  await expect(thumbs).toHaveCount(layers * other);
  await expect(page.getByRole("combobox", { name: "Head", exact: true }).locator("option")).toHaveCount(other);
  await expect.poll(() => urlState(page.url()).get("heads")).toBe(String(other));
  // click a small map: it becomes the big one
  await page.getByRole("button", { name: `Layer 2, head ${other}` }).click();
  await expect(page.getByRole("table", { name: heatmapName("encoder", 2, other), exact: true })).toHaveCount(1);
  await expect(page.getByRole("button", { name: `Layer 2, head ${other}` })).toHaveAttribute("aria-pressed", "true");
  await shot(page, testInfo, `heads-${other}`);
  expectClean(watch);
});

test("a focused heatmap cell reads out its raw score, scaled/masked score and weight", async ({ page, watch }) => {
  await openApp(page, "?stack=decoder_self&layer=1&head=1");
  const table = await readTable(page, heatmapName("decoder_self"));
  const canvas = page.locator("#heatmap-main canvas");
  const readout = page.locator("#heatmap-main .heatmap-readout");
  await canvas.focus();
  // row 1 (first query): Home, then one to the right is key 2, above the diagonal: masked
  for (let i = 0; i < table.rows.length; i++) await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Home");
  await expect(readout).toContainText("raw score q·k");
  await expect(readout).toContainText("weight");
  await expect(readout).toContainText(`${table.rows[0]} → ${table.cols[0]}`);
  await page.keyboard.press("ArrowRight");
  await expect(readout).toContainText("masked (−∞)");
  await expect(readout).toContainText(`${table.rows[0]} → ${table.cols[1]}`);
  // below the diagonal: a scaled score and the same weight the table holds (4 decimals)
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Home");
  await expect(readout).toContainText("scaled/masked");
  await expect(readout).toContainText(table.values[1][0].toFixed(4));
  expectClean(watch);
});

test("rollout: the lead, the pronoun note and the head selector follow the colour mode", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1#layer=2");
  const hint = page.locator('[data-test="pronoun-hint"]');
  const head = page.getByRole("combobox", { name: "Head", exact: true });
  const lead = page.locator("#sec-attention .lead");
  const note = page.locator("#head-note");
  // the weights: the seed sentence's pronoun note speaks of a head; the lead of weights
  await expect(hint).toBeVisible();
  await expect(hint).toContainText(/head/);
  await expect(lead).toContainText("A row's colours are that word's attention weights");
  await expect(head).toBeEnabled();
  await expect(note).toBeHidden();

  await page.getByRole("combobox", { name: "Colour by" }).selectOption("rollout");
  const name = "encoder self-attention rollout through layer 2 (all heads)";
  await expect(page.locator("#heatmap-title")).toHaveText(name);
  // no note about one head over a map of every head; the lead says what the colours are now
  await expect(hint).toBeHidden();
  await expect(lead).not.toContainText("attention weights");
  await expect(lead).toContainText("rollout combines every head of every layer up to this one");
  // the head selector is off, and says why
  await expect(head).toBeDisabled();
  await expect(note).toBeVisible();
  await expect(note).toHaveText(/^Rollout averages all the heads of each layer, so this map has no head to choose/);
  await expect(head).toHaveAccessibleDescription(/^Rollout averages all the heads/);
  // and the map is the engine's rollout, not a head's weights
  const table = await readTable(page, name);
  const truth = await page.evaluate(() => {
    const m = window.attnscope.engine.rollout().encoder[1];
    return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols)));
  });
  const worst = Math.max(...truth.flatMap((r, i) => r.map((v, j) => Math.abs(v - table.values[i][j]))));
  expect(worst).toBeLessThanOrEqual(1e-6);
  await shot(page, testInfo, "rollout-note");

  // another mode brings the head back: the value-weighted map is one head's
  await page.getByRole("combobox", { name: "Colour by" }).selectOption("value");
  await expect(head).toBeEnabled();
  await expect(note).toBeHidden();
  await expect(head).not.toHaveAttribute("aria-describedby");
  await expect(lead).toContainText("value vector");
  await expect(hint).toBeVisible();
  await page.getByRole("combobox", { name: "Colour by" }).selectOption("weights");
  await expect(lead).toContainText("A row's colours are that word's attention weights");

  // in Korean, from a link straight into the rollout view
  await page.goto("about:blank");
  await openApp(page, "#lang=ko&show=rollout&layer=2");
  const headKo = page.getByRole("combobox", { name: "헤드", exact: true });
  await expect(headKo).toBeDisabled();
  await expect(page.locator("#head-note")).toHaveText(/^롤아웃은 층마다 모든 헤드를 평균하므로/);
  await expect(page.locator("#sec-attention .lead")).toContainText("롤아웃은 이 층까지 모든 층의 모든 헤드를");
  await expect(page.locator('[data-test="pronoun-hint"]')).toBeHidden();
  expectClean(watch);
});

test("rollout: the peak line and the all-heads grid speak of the rollout, not of one head", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1#layer=2");
  const stats = page.locator("#attn-stats");
  const grid = page.locator("#headgrid");
  const note = grid.locator('[data-test="grid-rollout"]');
  const colour = page.getByRole("combobox", { name: "Colour by" });
  /** The mean of each row's largest entry of a matrix the engine gives, to 2 decimals (as the page writes it). */
  const peakOf = (which) => page.evaluate(({ kind, layer, head }) => {
    const e = window.attnscope.engine;
    const m = kind === "rollout" ? e.rollout().encoder[layer] : e.valueWeighted("encoder", layer)[head].normalized;
    let sum = 0;
    for (let r = 0; r < m.rows; r++) sum += Math.max(...m.data.slice(r * m.cols, (r + 1) * m.cols));
    return (sum / m.rows).toFixed(2);
  }, which);
  // one head's weights: its thumbnail is pressed, the peak is of its weights
  await expect(grid.getByRole("button", { name: "Layer 2, head 1" })).toHaveAttribute("aria-pressed", "true");
  await expect(stats).toContainText("the strongest key in a row takes");
  await expect(note).toBeHidden();

  await colour.selectOption("rollout");
  // the peak of the engine's rollout, in the rollout's words
  const peak = await peakOf({ kind: "rollout", layer: 1 });
  await expect(stats).toContainText(`the input word a row draws on most makes up ${peak} of it, through all heads of the layers so far`);
  await expect(stats).not.toContainText("weight");
  // no head is pressed: the map combines every head of layers 1 and 2, framed, and a note says so
  const heads = await page.evaluate(() => window.attnscope.session.heads());
  await expect(grid.locator('button[aria-pressed="true"]')).toHaveCount(0);
  await expect(grid.locator(".thumb.in-map")).toHaveCount(2 * heads);
  await expect(note).toHaveText("The map above is the rollout: it combines every head of layers 1 to 2 (framed here), so no head is selected. Click one to see that head's own weights.");
  await shot(page, testInfo, "rollout-grid");
  // through layer 1: its heads only
  await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption("0");
  await expect(grid.locator(".thumb.in-map")).toHaveCount(heads);
  await expect(note).toContainText("every head of layer 1 (framed here)");
  await expect(stats).toContainText(`makes up ${await peakOf({ kind: "rollout", layer: 0 })} of it`);
  // a click on a head opens that head's own weights
  await grid.getByRole("button", { name: "Layer 2, head 3" }).click();
  await expect(colour).toHaveValue("weights");
  await expect(page.locator("#heatmap-title")).toHaveText("encoder self-attention weights, layer 2, head 3");
  await expect(grid.getByRole("button", { name: "Layer 2, head 3" })).toHaveAttribute("aria-pressed", "true");
  await expect(grid.locator(".thumb.in-map")).toHaveCount(0);
  await expect(note).toBeHidden();
  // the value-weighted view is one head's: its peak in the words of contributions
  await colour.selectOption("value");
  await expect(stats).toContainText(`the key that contributes most to a row gives ${await peakOf({ kind: "value", layer: 1, head: 2 })} of its contributions`);
  await expect(grid.getByRole("button", { name: "Layer 2, head 3" })).toHaveAttribute("aria-pressed", "true");

  // in Korean
  await page.goto("about:blank");
  await openApp(page, "?debug=1#lang=ko&show=rollout&layer=2");
  await expect(page.locator('#headgrid [data-test="grid-rollout"]')).toHaveText(/^위의 지도는 롤아웃입니다\. 1층부터 2층까지의 모든 헤드/);
  await expect(page.locator("#attn-stats")).toContainText(`입력 단어가 평균 ${await peakOf({ kind: "rollout", layer: 1 })}`);
  await expect(page.locator('#headgrid button[aria-pressed="true"]')).toHaveCount(0);
  expectClean(watch);
});

test("the dashed diagonal is drawn only on a masked map, and the legend speaks of hatching and the diagonal only there", async ({ page, watch }) => {
  // count the dashed strokes drawn on the main map's canvas (the diagonal is its only one)
  await page.addInitScript(() => {
    window.__dashes = 0;
    const set = CanvasRenderingContext2D.prototype.setLineDash;
    CanvasRenderingContext2D.prototype.setLineDash = function (segments) {
      if (segments.length && this.canvas.closest?.("#heatmap-main")) window.__dashes += 1;
      return set.call(this, segments);
    };
  });
  await openApp(page, "?debug=1");
  const legend = page.locator("#legend-text");
  const dashes = () => page.evaluate(() => window.__dashes);
  const reset = () => page.evaluate(() => (window.__dashes = 0));
  /** Whether the engine's scaled scores of the map shown hide any cell. */
  const masked = () => page.evaluate(() => {
    const { session } = window.attnscope;
    const s = session.state;
    const l = session.cur.trace[s.stack === "encoder" ? "encoder" : "decoder"].layers[s.layer];
    const a = s.stack === "encoder" ? l.self_attn : s.stack === "decoder_self" ? l.self_attn : l.cross_attn;
    return Array.from(a.sublayer.heads[s.head].logits.data).some((v) => v === -Infinity);
  });
  const name = heatmapName("encoder");
  // the encoder reads both ways: nothing masked, no diagonal, no word of hatching
  expect(await masked()).toBe(false);
  expect(await dashes()).toBe(0);
  await expect(legend).toHaveText("Attention weight from 0 (white) to 1 (dark purple).");
  // its causal mask on: hatched cells, the diagonal, and the legend says what both are
  const open = await readTable(page, name);
  await page.getByRole("checkbox", { name: "Causal mask in the encoder too" }).check();
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(open.text);
  expect(await masked()).toBe(true);
  expect(await dashes()).toBeGreaterThan(0);
  await expect(legend).toHaveText("Attention weight from 0 (white) to 1 (dark purple). Hatched cells are masked; the dashed line is the diagonal (each word with itself), the mask's edge.");
  // the same in Korean
  await page.getByRole("button", { name: "한국어" }).click();
  await expect(legend).toHaveText("어텐션 가중치: 0(흰색)부터 1(진한 보라)까지. 빗금 친 칸은 마스크된 칸이고, 점선은 마스크의 경계인 대각선(각 단어와 자기 자신)입니다.");
  await page.getByRole("button", { name: "English" }).click();
  // off again: gone again
  await page.getByRole("checkbox", { name: "Causal mask in the encoder too" }).uncheck();
  await expect.poll(async () => (await readTable(page, name)).text).toEqual(open.text);
  await reset();
  await page.getByRole("combobox", { name: "Colour by" }).selectOption("scores"); // a repaint of the map
  await expect(legend).not.toContainText("Hatched");
  expect(await dashes()).toBe(0);
  // decoder self-attention is masked as trained: the diagonal and the words are there
  await page.getByRole("radio", { name: "Decoder self-attention (masked)" }).check();
  expect(await masked()).toBe(true);
  await expect(legend).toContainText("Hatched cells are masked; the dashed line is the diagonal");
  expect(await dashes()).toBeGreaterThan(0);
  // cross-attention has no mask: neither
  await reset();
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  expect(await masked()).toBe(false);
  await expect(legend).not.toContainText("Hatched");
  expect(await dashes()).toBe(0);
  expectClean(watch);
});

test("an embed in the rollout view: the title names the rollout, the head selector is off and says why", async ({ page, watch }) => {
  await page.goto("/index.html?embed=1&panel=heatmap&controls=layer,head,show&layer=2&show=rollout");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.getByRole("heading", { name: "encoder self-attention rollout through layer 2 (all heads)" })).toBeVisible();
  const head = page.getByRole("combobox", { name: "Head", exact: true });
  await expect(head).toBeDisabled();
  await expect(head).toHaveAccessibleDescription(/^Rollout averages all the heads/);
  await page.getByRole("combobox", { name: "Colour by" }).selectOption("weights");
  await expect(head).toBeEnabled();
  await expect(page.getByRole("heading", { name: "encoder self-attention weights, layer 2, head 1" })).toBeVisible();
  expectClean(watch);
});
