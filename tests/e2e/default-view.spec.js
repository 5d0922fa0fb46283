// The view a reader sees first must show what its controls do: on the default sentence and the
// default map, the scaling switch and a W_Q drag each visibly change the weights.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, cellPoint, typeSentence } from "./fixtures.js";

/** The largest absolute difference between two equally shaped tables of numbers. */
function maxChange(a, b) {
  let worst = 0;
  a.forEach((row, i) => row.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - b[i][j])))));
  return worst;
}

/** The layer and head the page opened on (1-based, as the selects show them). */
async function shownHead(page) {
  const layer = Number(await page.getByRole("combobox", { name: "Layer", exact: true }).inputValue()) + 1;
  const head = Number(await page.getByRole("combobox", { name: "Head", exact: true }).inputValue()) + 1;
  return { layer, head };
}

test("default view: turning scaling off moves a shown weight by at least 0.05", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const { layer, head } = await shownHead(page);
  const name = heatmapName("encoder", layer, head);
  const before = await readTable(page, name);
  // not a saturated map: some weights sit between 0.05 and 0.95
  expect(before.values.flat().filter((v) => v > 0.05 && v < 0.95).length).toBeGreaterThanOrEqual(5);
  await page.getByRole("checkbox", { name: "Divide scores by √d_k" }).uncheck();
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(before.text);
  const after = await readTable(page, name);
  const change = maxChange(before.values, after.values);
  console.log(`default view encoder layer ${layer} head ${head}: scaling off changes a weight by ${change.toFixed(3)}`);
  expect(change).toBeGreaterThanOrEqual(0.05);
  await shot(page, testInfo, "default-scaling-off");
  expectClean(watch);
});

test("default view: dragging a W_Q cell moves a shown weight by at least 0.05", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const { layer, head } = await shownHead(page);
  const name = heatmapName("encoder", layer, head);
  const before = await readTable(page, name);
  const wq = page.getByRole("slider", { name: new RegExp(`^W_Q cells of encoder self-attention, layer ${layer}, head ${head}`) });
  await wq.scrollIntoViewIfNeeded();
  const title = await page.locator(".qk-q .qk-title").textContent(); // "W_Q (query): 16 × 64"
  const [, rows, cols] = title.match(/(\d+) × (\d+)/).map(Number);
  const { x, y } = await cellPoint(wq, 2, 5, rows, cols);
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(x, y - i * 6);
  await page.mouse.up();
  // the table fills when the page is idle, and may first hold a frame from the middle of the drag:
  // wait for the drag's end to reach it
  let change = 0;
  await expect
    .poll(async () => (change = maxChange(before.values, (await readTable(page, name)).values)), { timeout: 10_000 })
    .toBeGreaterThanOrEqual(0.05);
  console.log(`default view encoder layer ${layer} head ${head}: one W_Q drag changes a weight by ${change.toFixed(3)}`);
  await shot(page, testInfo, "default-wq-drag");
  expectClean(watch);
});

test("default view: turning the decoder mask off brings decoder self-attention on screen, weight above the diagonal", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await page.getByRole("checkbox", { name: "Causal mask in the decoder" }).uncheck();
  await expect(page.getByRole("radio", { name: "Decoder self-attention (no mask)" })).toBeChecked();
  const { layer, head } = await shownHead(page);
  const t = await readTable(page, heatmapName("decoder_self", layer, head));
  let above = 0;
  t.values.forEach((row, i) => row.forEach((v, j) => j > i && (above = Math.max(above, v))));
  expect(above).toBeGreaterThanOrEqual(0.05);
  await shot(page, testInfo, "default-mask-off");
  expectClean(watch);
});

/** Whether a box lies wholly inside the viewport. */
const inViewport = (b, vp) => !!b && b.x >= 0 && b.y >= 0 && b.x + b.width <= vp.width && b.y + b.height <= vp.height;

test.describe("on a laptop (1366 × 800)", () => {
  test.use({ viewport: { width: 1366, height: 800 } });

  test("item 6: a switch used in the sidebar shows the translation it made right there, and says whether it changed", async ({ page, watch }, testInfo) => {
    await openApp(page, "?debug=1");
    const vp = page.viewportSize();
    const translation = page.locator("#translation");
    const nowText = page.locator('[data-test="now-text"]');
    const flag = page.locator('[data-test="now-flag"]');
    const engineText = () => page.evaluate(() => window.attnscope.session.cur.tr.text);
    const before = await engineText();
    await expect(translation).toHaveText(before);
    await expect(nowText).toHaveText(before);
    await expect(flag).toBeHidden(); // nothing changed yet

    // the reader scrolls the sidebar to positional encoding and turns it off
    const pe = page.locator("#opt-pe");
    await pe.scrollIntoViewIfNeeded();
    await pe.uncheck();
    await expect.poll(engineText).not.toBe(before);
    const after = await engineText();
    await expect(translation).toHaveText(after);
    // the translation itself is out of view, above the switches (the sidebar scrolled on its own)
    const side = await page.locator(".side").boundingBox();
    const tb = await translation.boundingBox();
    expect(tb.y + tb.height <= side.y || !inViewport(tb, vp)).toBe(true);
    // the line in the controls card shows the new one, on screen and covered by nothing
    await expect(nowText).toHaveText(after);
    const nb = await nowText.boundingBox();
    expect(inViewport(nb, vp), JSON.stringify(nb)).toBe(true);
    expect(inViewport(await pe.boundingBox(), vp)).toBe(true); // beside the switch just used
    const onTop = await page.evaluate(({ x, y }) => !!document.elementFromPoint(x, y)?.closest('[data-test="now-text"]'), { x: nb.x + Math.min(nb.width / 2, 20), y: nb.y + nb.height / 2 });
    expect(onTop).toBe(true);
    // and says it changed, with what it was
    await expect(flag).toBeVisible();
    await expect(flag).toHaveText(`Changed by what you just did. Before: “${before}”`);
    expect(inViewport(await flag.boundingBox(), vp)).toBe(true);
    await shot(page, testInfo, "laptop-pe-off");

    // a change that leaves the translation as it is says so (what the engine gave decides)
    const run = await page.evaluateHandle(() => window.attnscope.session.cur);
    await page.locator("#opt-scale").uncheck();
    await expect.poll(() => page.evaluate((r) => window.attnscope.session.cur !== r, run)).toBe(true); // the new run is in
    const third = await engineText();
    await expect(nowText).toHaveText(third);
    await expect(flag).toHaveText(third === after ? "Not changed by what you just did." : `Changed by what you just did. Before: “${after}”`);

    // in Korean, the same line
    await page.getByRole("button", { name: "한국어" }).click();
    await expect(nowText).toHaveText(third);
    await expect(page.locator("#translation-now .now-label")).toHaveText("지금 번역:");
    await expect(flag).toHaveText(third === after ? "방금 바꾼 것으로는 달라지지 않았습니다." : `방금 바꾼 것 때문에 달라졌습니다. 바뀌기 전: “${after}”`);
    await page.getByRole("button", { name: "English" }).click();

    // a new sentence is not a change of the switches: the line follows it, with no flag
    await typeSentence(page, "my brother reads a book");
    await expect.poll(engineText).not.toBe(third);
    await expect(nowText).toHaveText(await engineText());
    await expect(flag).toBeHidden();
    expectClean(watch);
  });
});
