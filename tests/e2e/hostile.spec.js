// Hostile input (issue 12): numbers at the edges in every numeric URL field, a 1 MB fragment,
// right-to-left overrides and mixed scripts, and 10,000 rapid W_Q edits with the engine's wasm
// memory measured before and after. The page must stay up, say what it did, and run nothing.
import { test, expect, openApp, expectClean, SLOW } from "./fixtures.js";

const EDGE = ["NaN", "Infinity", "-Infinity", "1e308", "-0", "-1", "0", "99999999999", "1e3", "0x10", "", " 2"];
const NUMERIC = ["layer", "head", "q", "step", "heads"];

test("numbers at the edges in every numeric field, query or fragment: a working view, no error", async ({ page, watch }) => {
  test.setTimeout(120_000 * SLOW); // 24 page loads
  for (const v of EDGE) {
    const fields = NUMERIC.map((k) => `${k}=${encodeURIComponent(v)}`).join("&");
    for (const url of [`/?${fields}&stack=decoder_cross`, `/#${fields}&stack=decoder_self`]) {
      await page.goto("about:blank");
      await openApp(page, url.slice(1));
      // the selectors hold values the model has
      const layer = Number(await page.getByRole("combobox", { name: "Layer", exact: true }).inputValue());
      const head = Number(await page.getByRole("combobox", { name: "Head", exact: true }).inputValue());
      expect(layer >= 0 && layer < 2 && head >= 0 && head < 64, `${url}: layer ${layer} head ${head}`).toBe(true);
      await expect(page.locator("#translation")).not.toBeEmpty();
    }
  }
  expect(watch.dialogs).toEqual([]);
  expectClean(watch);
});

test("a 1 MB fragment opens: the sentence is cut to the model's limit with a notice", async ({ page, watch }) => {
  const huge = `s=${encodeURIComponent("the cat sat on the mat ".repeat(45_000)).slice(0, 1_000_000)}`;
  await openApp(page, `#${huge}`);
  await expect(page.locator("#notice-trunc")).toBeVisible();
  await expect(page.locator("#translation")).not.toBeEmpty();
  expectClean(watch);
});

test("right-to-left overrides and mixed scripts are shown as text, with their unknown words named", async ({ page, watch }) => {
  const s = "\u202Eevil\u202C Emma \u0645\u0631\u062d\u0628\u0627 \u4f60\u597d likes 사랑 <img src=x onerror=alert(1)>";
  await openApp(page, `#s=${encodeURIComponent(s)}`);
  await expect(page.locator("#notice-unknown")).toBeVisible();
  await expect(page.locator("#translation")).not.toBeEmpty();
  // the notice names every word outside the model's vocabulary (the engine's tokenizer says which)
  const unknown = await page.evaluate(async (text) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    const src = e.lab.tokenize(text);
    return [...new Set(Array.from(src.unknown, (i) => src.tokens[i]))];
  }, s);
  expect(unknown.length).toBeGreaterThan(3);
  for (const w of unknown) await expect(page.locator("#notice-unknown"), w).toContainText(`“${w}”`);
  expect(await page.locator("img[src=x]").count()).toBe(0);
  expect(watch.dialogs).toEqual([]);
  expectClean(watch);
});

test("10,000 rapid W_Q edits, twice: the page keeps up and the second batch adds nothing to the engine's memory", async ({ page, watch }) => {
  test.setTimeout(180_000 * SLOW);
  await openApp(page, "?debug=1");
  const grid = page.getByRole("slider", { name: /^W_Q cells of encoder self-attention, layer 1, head 1/ });
  await grid.scrollIntoViewIfNeeded();
  const before = await page.evaluate(() => window.attnscope.engine.memoryBytes);
  // a batch of 10,000 edits that net to no change, then the drag's end, up to the re-translation
  // it starts (what the batch stands for is over then); returns the engine's memory after it
  const batch = () =>
    page.evaluate(async () => {
      const session = window.attnscope.session;
      const canvas = document.querySelector(".qk-q .qk-canvas");
      for (let i = 0; i < 10_000; i++) {
        canvas.dispatchEvent(new KeyboardEvent("keydown", { key: i % 2 ? "ArrowUp" : "ArrowDown", bubbles: true }));
        // let a frame run now and then, so the engine runs as it does under a real drag
        if (i % 100 === 99) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      }
      const retranslate = session.retranslate;
      const done = new Promise((resolve) => {
        session.retranslate = async (...args) => {
          session.retranslate = retranslate;
          try {
            return await retranslate.apply(session, args);
          } finally {
            resolve();
          }
        };
      });
      canvas.dispatchEvent(new KeyboardEvent("keyup", { key: "ArrowUp", bubbles: true }));
      await done;
      return window.attnscope.engine.memoryBytes;
    });
  const first = await batch();
  const second = await batch();
  expect(before).toBeGreaterThan(0);
  test.info().annotations.push({ type: "wasm memory", description: `${before} bytes before, grew by ${first - before} bytes over the first 10,000 edits and by ${second - first} over the next 10,000` });
  expect(first - before).toBeLessThanOrEqual(8 * 1024 * 1024);
  // the first batch may warm the allocator up; the second finds everything it needs: no growth
  // beyond one 64 KiB wasm page
  expect(second - first, "growth over the second 10,000 edits").toBeLessThanOrEqual(64 * 1024);
  await expect(page.getByText(/Edited blocks in force: 1/)).toBeVisible();
  await expect(page.locator("#translation")).not.toBeEmpty();
  expectClean(watch);
});
