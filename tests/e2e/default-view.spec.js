// The view a reader sees first must show what its controls do: on the default sentence and the
// default map, the scaling switch and a W_Q drag each visibly change the weights.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, cellPoint } from "./fixtures.js";

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
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(before.text);
  const after = await readTable(page, name);
  const change = maxChange(before.values, after.values);
  console.log(`default view encoder layer ${layer} head ${head}: one W_Q drag changes a weight by ${change.toFixed(3)}`);
  expect(change).toBeGreaterThanOrEqual(0.05);
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
