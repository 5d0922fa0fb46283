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
