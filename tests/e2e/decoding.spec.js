// Stepping through greedy decoding.
import { test, expect, openApp, shot, expectClean, urlState } from "./fixtures.js";

async function readStep(page) {
  return {
    chosen: await page.locator(".dec-chosen").textContent(),
    bars: await page.locator(".dec-bars li").allTextContents(),
    widths: await page.locator(".dec-bars .bar-fill").evaluateAll((es) => es.map((e) => e.style.width)),
    prefix: await page.locator(".dec-prefix").textContent(),
  };
}

test("stepping through decoding changes the chosen token and the bars", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const slider = page.getByRole("slider", { name: "Decoding step" });
  await expect(slider).toHaveValue("1");
  const steps = Number(await slider.getAttribute("max"));
  expect(steps).toBeGreaterThan(1);
  const first = await readStep(page);
  expect(first.bars).toHaveLength(5);
  await expect(page.getByRole("button", { name: "◀ Previous step" })).toBeDisabled();

  await page.getByRole("button", { name: "Next step ▶" }).click();
  await expect(slider).toHaveValue("2");
  const second = await readStep(page);
  expect(second.bars).not.toEqual(first.bars);
  expect(second.chosen).not.toEqual(first.chosen); // "Chosen: “tok” (p%)" differs in token or probability
  expect(second.prefix.length).toBeGreaterThan(first.prefix.length);
  await expect(page.getByRole("table", { name: /^cross-attention weights, layer 1, step 2/ })).toHaveCount(1);

  // keyboard on the slider: End jumps to the last step
  await slider.focus();
  await page.keyboard.press("End");
  await expect(slider).toHaveValue(String(steps));
  await expect(page.getByRole("button", { name: "Next step ▶" })).toBeDisabled();
  const last = await readStep(page);
  expect(last.chosen).not.toEqual(second.chosen);
  await page.getByRole("button", { name: "◀ Previous step" }).click();
  await expect(slider).toHaveValue(String(steps - 1));
  await expect.poll(() => urlState(page.url()).get("step")).toBe(String(steps - 1));
  await shot(page, testInfo, "decoding");
  expectClean(watch);
});
