// The W_Q / W_K editor and the weighted-average panel.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, cellPoint, watchRetranslations, editsSettled } from "./fixtures.js";

/** The weighted-average table: every term row w_ij * v_j and the engine's output row. */
async function readAverage(page) {
  const table = page.getByRole("table", { name: /^Weighted average for/ });
  await expect(table).toHaveCount(1);
  return table.evaluate((t) => {
    const nums = (tr) => [...tr.cells].slice(2).map((c) => Number(c.dataset.value));
    const rows = [...t.tBodies[0].rows];
    return {
      keys: rows.filter((r) => r.dataset.kind === "term").map((r) => r.cells[0].textContent),
      weights: rows.filter((r) => r.dataset.kind === "term").map((r) => Number(r.cells[1].textContent)),
      terms: rows.filter((r) => r.dataset.kind === "term").map(nums),
      output: nums(rows.find((r) => r.dataset.kind === "output")),
    };
  });
}

function expectSumIsOutput(avg) {
  const dk = avg.output.length;
  expect(dk).toBeGreaterThan(0);
  let worst = 0;
  for (let k = 0; k < dk; k++) {
    const sum = avg.terms.reduce((s, row) => s + row[k], 0);
    worst = Math.max(worst, Math.abs(sum - avg.output[k]));
  }
  expect(worst).toBeLessThan(1e-5);
  expect(Math.abs(avg.weights.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-5);
}

async function expectSumIsOutputEventually(page) {
  await expect.poll(async () => {
    try {
      expectSumIsOutput(await readAverage(page));
      return true;
    } catch {
      return false;
    }
  }).toBe(true);
}


test("dragging a W_Q cell changes the weights live; arrow keys too; reset restores them", async ({ page, watch }, testInfo) => {
  // A head whose weights are not all 0 or 1: a saturated softmax would hide a small edit.
  let layer = 1;
  let head = 1;
  search: for (layer of [1, 2]) {
    for (head of [1, 2, 3, 4]) {
      await openApp(page, `?stack=encoder&layer=${layer}&head=${head}`);
      const values = (await readTable(page, heatmapName("encoder", layer, head))).values.flat();
      if (values.filter((v) => v > 0.02 && v < 0.98).length >= 5) break search;
    }
  }
  const name = heatmapName("encoder", layer, head);
  const original = await readTable(page, name);
  const wq = page.getByRole("slider", { name: new RegExp(`^W_Q cells of encoder self-attention, layer ${layer}, head ${head}`) });
  await wq.scrollIntoViewIfNeeded();
  const title = await page.locator(".qk-q .qk-title").textContent(); // "W_Q (query): 16 × 64"
  const [, rows, cols] = title.match(/(\d+) × (\d+)/).map(Number);
  const p = await cellPoint(wq, 2, 5, rows, cols);
  const valueBefore = Number(await wq.getAttribute("aria-valuenow"));
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(p.x, p.y - i * 6);
  // while the button is still down, the weights have already changed (live): the mini-map beside
  // the grids repaints every frame; the attention map, off screen here, repaints as soon as it
  // scrolls into view (the drag has not ended: no re-translation has run)
  await page.locator("#attention-map").evaluate((e) => e.scrollIntoView({ block: "center" }));
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(original.text);
  await page.mouse.up();
  expect(Number(await wq.getAttribute("aria-valuenow"))).toBeGreaterThan(valueBefore);
  await expect(page.getByRole("status").filter({ hasText: "Edited blocks in force" })).toBeVisible();
  await shot(page, testInfo, "after-drag");
  const dragged = await readTable(page, name);
  expectSumIsOutput(await readAverage(page));

  // keyboard: focus the W_K grid, move to a cell, raise it
  const wk = page.getByRole("slider", { name: new RegExp(`^W_K cells of encoder self-attention, layer ${layer}, head ${head}`) });
  await wk.focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("PageDown");
  const kBefore = Number(await wk.getAttribute("aria-valuenow"));
  for (let i = 0; i < 8; i++) await page.keyboard.press("ArrowUp");
  await expect(wk).toHaveAttribute("aria-valuetext", /^row 2 of \d+, column 2 of \d+/);
  expect(Number(await wk.getAttribute("aria-valuenow"))).toBeGreaterThan(kBefore);
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(dragged.text);
  // and on W_Q too
  await wq.focus();
  const afterK = await readTable(page, name);
  for (let i = 0; i < 8; i++) await page.keyboard.press("ArrowDown");
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(afterK.text);

  await page.getByRole("button", { name: "Reset all edits" }).click();
  await expect.poll(async () => (await readTable(page, name)).text).toEqual(original.text);
  await expect(page.getByText("No edits: trained weights")).toBeVisible();
  expectSumIsOutput(await readAverage(page));
  expectClean(watch);
});

test("on a touch screen, a tap on a cross-attention W_Q cell opens its editor, and its buttons change the cross-attention weights", async ({ page, watch }, testInfo) => {
  await openApp(page, "?stack=decoder_cross&layer=2&head=2");
  const name = heatmapName("decoder_cross", 2, 2);
  const original = await readTable(page, name);
  const wq = page.getByRole("slider", { name: /^W_Q cells of cross-attention, layer 2, head 2/ });
  await wq.scrollIntoViewIfNeeded();
  const box = await wq.boundingBox();
  const x = box.x + box.width * 0.4;
  const y = box.y + 20;
  // pointer events as a finger sends them: a move of the finger is a scroll, not an edit
  const touch = (type, dy) => wq.dispatchEvent(type, { pointerId: 7, pointerType: "touch", isPrimary: true, clientX: x, clientY: y - dy, buttons: type === "pointerup" ? 0 : 1 });
  await touch("pointerdown", 0);
  for (let i = 1; i <= 12; i++) await touch("pointermove", i * 10);
  await touch("pointercancel", 120);
  await expect(page.getByText("No edits: trained weights")).toBeVisible();
  // a tap opens the one-cell editor
  await touch("pointerdown", 0);
  await touch("pointerup", 0);
  const editor = page.getByRole("group", { name: /^Edit W_Q\[\d+, \d+\]$/ });
  await expect(editor).toBeVisible();
  for (let i = 0; i < 4; i++) await editor.getByRole("button", { name: /^Increase W_Q/ }).click();
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(original.text);
  await expectSumIsOutputEventually(page);
  await shot(page, testInfo, "touch-edit-cross");
  expectClean(watch);
});

test("identity preset puts ones on the block diagonal", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const name = heatmapName("encoder");
  const original = await readTable(page, name);
  await page.getByRole("button", { name: "Identity (W_Q = W_K = I)" }).click();
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(original.text);
  const wq = page.getByRole("slider", { name: /^W_Q cells/ });
  await wq.focus();
  await page.keyboard.press("Home");
  await expect(wq).toHaveAttribute("aria-valuenow", "1.0000");
  await page.keyboard.press("ArrowRight");
  await expect(wq).toHaveAttribute("aria-valuenow", "0.0000");
  await page.keyboard.press("PageDown");
  await expect(wq).toHaveAttribute("aria-valuenow", "1.0000");
  await shot(page, testInfo, "identity");
  expectClean(watch);
});

test("the weighted-average panel's sum equals the engine's head output", async ({ page, watch }, testInfo) => {
  await openApp(page);
  // encoder, the default query (the last word)
  let avg = await readAverage(page);
  expect(avg.keys).toContain("friend");
  expectSumIsOutput(avg);
  // another query chosen from the list
  await page.getByRole("combobox", { name: "Query word" }).selectOption({ label: "1. emma" });
  avg = await readAverage(page);
  expectSumIsOutput(avg);
  await expect(page.locator(".wavg-formula")).toContainText("emma");
  // cross-attention, layer 2, head 2: keys are source words, queries are Korean positions
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ label: "2" });
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ label: "2" });
  avg = await readAverage(page);
  expect(avg.keys).toEqual(["emma", "hates", "games", ",", "but", "she", "'s", "a", "great", "friend"]);
  expectSumIsOutput(avg);
  // the arrow keys on the heatmap pick the query row: two rows up
  const query = page.getByRole("combobox", { name: "Query word" });
  const row = () => query.evaluate((s) => s.selectedIndex);
  const before = await row();
  expect(before).toBeGreaterThanOrEqual(2);
  const canvas = page.locator("#heatmap-main canvas");
  await canvas.focus();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("ArrowUp");
  await expect.poll(row).toBe(before - 2);
  avg = await readAverage(page);
  expectSumIsOutput(avg);
  await shot(page, testInfo, "weighted-average-cross");
  expectClean(watch);
});

test("during a drag the maps repaint only their cells, and what they show is exactly a full repaint", async ({ page, watch }) => {
  // tall enough for the attention map, the all-heads grid and the W_Q grid together
  await page.setViewportSize({ width: 1400, height: 2300 });
  await openApp(page, "?stack=encoder&layer=1&head=1");
  const wq = page.getByRole("slider", { name: /^W_Q cells of encoder self-attention, layer 1, head 1/ });
  const title = await page.locator(".qk-q .qk-title").textContent();
  const [, rows, cols] = title.match(/(\d+) × (\d+)/).map(Number);
  await page.evaluate(() => window.scrollTo(0, document.querySelector("#heatmap-main canvas").getBoundingClientRect().top + scrollY - 20));
  const maps = page.locator("#heatmap-main canvas, #sec-qk canvas.heatmap-canvas");
  await expect(maps).toHaveCount(2);
  const pixels = () => maps.evaluateAll((cs) => cs.map((c) => c.toDataURL()));
  const before = await pixels();
  const p = await cellPoint(wq, 2, 5, rows, cols);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(p.x, p.y - i * 8);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const live = await pixels();
  // the button is still down: a blur repaints each map in full from the same data
  await maps.evaluateAll((cs) => cs.forEach((c) => c.dispatchEvent(new Event("blur"))));
  const full = await pixels();
  await page.mouse.up();
  expect(live[0]).not.toEqual(before[0]);
  expect(live[1]).not.toEqual(before[1]);
  expect(live).toEqual(full);
  expectClean(watch);
});

/** Whether two boxes overlap (by more than a pixel's rounding). */
const overlaps = (a, b) => a.x < b.x + b.width - 1 && b.x < a.x + a.width - 1 && a.y < b.y + b.height - 1 && b.y < a.y + a.height - 1;

test("item 9: the W_Q/W_K editor's map stays in view beside the grids and covers none of their rows; a line near them points to 4b", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const vp = page.viewportSize();
  const map = page.locator("#qk-map");
  const titleQ = page.locator(".qk-q .qk-title");
  const wq = page.getByRole("slider", { name: /^W_Q cells of encoder self-attention, layer 1, head 1/ });
  const wk = page.getByRole("slider", { name: /^W_K cells of encoder self-attention, layer 1, head 1/ });
  const [, rows, cols] = (await titleQ.textContent()).match(/(\d+) × (\d+)/).map(Number);

  // W_K scrolled into view (its last row at the bottom of the window): W_Q's title and first row
  // are on screen too, and nothing lies over them
  await wk.evaluate((e) => e.scrollIntoView({ block: "end" }));
  const m = await map.boundingBox();
  const tq = await titleQ.boundingBox();
  const first = await cellPoint(wq, 0, Math.floor(cols / 2), rows, cols);
  expect(m.y).toBeGreaterThanOrEqual(0); // the map is in view
  expect(overlaps(m, tq)).toBe(false);
  const q = await wq.boundingBox();
  expect(overlaps(m, { x: q.x, y: q.y, width: q.width, height: q.height / rows })).toBe(false);
  const hit = await page.evaluate(
    ({ t, r }) => {
      const at = (p) => document.elementFromPoint(p.x, p.y);
      return { title: at(t)?.closest(".qk-title")?.className ?? null, row: at(r)?.closest(".qk-q") ? at(r).tagName : null };
    },
    { t: { x: tq.x + 10, y: tq.y + tq.height / 2 }, r: first },
  );
  expect(hit.title).toContain("role-query"); // the W_Q title itself
  expect(hit.row).toBe("CANVAS"); // the W_Q grid's first row
  await page.screenshot({ path: testInfo.outputPath("qk-wk-in-view.png") });

  // and at every scroll position through the section, the map never lies over a grid, and stays in
  // view while the grids are
  const top = await page.evaluate(() => document.getElementById("sec-qk").getBoundingClientRect().top + scrollY);
  const bottom = await page.evaluate(() => document.getElementById("sec-qk").getBoundingClientRect().bottom + scrollY);
  for (let y = top; y < bottom; y += 90) {
    await page.evaluate((y) => scrollTo(0, y), y);
    const [mb, qb, kb] = await Promise.all([map.boundingBox(), wq.boundingBox(), wk.boundingBox()]);
    expect(overlaps(mb, qb), `at ${y}: the map over W_Q`).toBe(false);
    expect(overlaps(mb, kb), `at ${y}: the map over W_K`).toBe(false);
    const gridsOnScreen = kb.y < vp.height && qb.y + qb.height > 0 && kb.y + kb.height > mb.height + 8;
    if (gridsOnScreen) expect(mb.y, `at ${y}: the map in view`).toBeGreaterThanOrEqual(0);
  }

  // why a drag may move the map little: a line near the grids, linking to the dot-product view
  const why = page.locator('#sec-qk [data-test="qk-why"]');
  await why.scrollIntoViewIfNeeded();
  await expect(why).toBeVisible();
  await expect(why).toContainText("Map barely moved? A cell in row d changes only q[d] (W_Q) or k[d] (W_K)");
  const link = why.getByRole("link", { name: "See 4b, dimension by dimension ↓" });
  await expect(link).toHaveAttribute("href", "#sec-dot");
  // near the editor: between its buttons and the W_Q grid
  const wb = await why.boundingBox();
  expect(wb.y + wb.height).toBeLessThanOrEqual((await titleQ.boundingBox()).y + 1);
  await link.click();
  await expect(page.locator("#h-dot")).toBeInViewport();
  // which it keeps: a W_Q cell of row 3 picked marks dimension 3 there
  await wq.focus();
  await page.keyboard.press("PageDown");
  await page.keyboard.press("PageDown");
  await expect(page.locator('[data-test="dot-dim"]')).toContainText("Dimension 3");
  // in Korean
  await page.getByRole("button", { name: "한국어" }).click();
  await expect(why).toContainText("지도가 거의 안 움직였나요?");
  await expect(why.getByRole("link", { name: "4b에서 차원별로 보기 ↓" })).toHaveAttribute("href", "#sec-dot");
  expectClean(watch);
});

/**
 * Scroll until the all-heads grid and W_Q cell (2, 5) of encoder head 1 in `layer` are both on
 * screen (the page may still scroll itself while it settles: until it stays); the grid's canvas
 * and the point to drag.
 */
async function gridAndEditorOnScreen(page, layer, viewport) {
  const wq = page.getByRole("slider", { name: new RegExp(`^W_Q cells of encoder self-attention, layer ${layer}, head 1`) });
  const title = await page.locator(".qk-q .qk-title").textContent();
  const [, rows, cols] = title.match(/(\d+) × (\d+)/).map(Number);
  const grid = page.locator("#headgrid canvas");
  await expect
    .poll(async () => {
      await page.evaluate(() => window.scrollTo(0, document.querySelector("#heatmap-main canvas").getBoundingClientRect().top + scrollY - 20));
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const p = await cellPoint(wq, 2, 5, rows, cols);
      const onCanvas = await wq.evaluate((c, { x, y }) => document.elementFromPoint(x, y) === c, p);
      const gridBox = await grid.boundingBox();
      return onCanvas && gridBox !== null && gridBox.y >= 0 && gridBox.y + gridBox.height <= viewport.height;
    })
    .toBe(true);
  return { grid, p: await cellPoint(wq, 2, 5, rows, cols) };
}

/**
 * A fresh page at `page`'s URL draws exactly `expected` in its all-heads grid. The address bar
 * follows the state 150 ms after a change (state.js mirror): wait for the edit in it first.
 */
async function expectFreshGrid(page, viewport, expected) {
  await expect.poll(() => page.url()).toContain("qk=e.");
  const fresh = await page.context().newPage();
  await fresh.setViewportSize(viewport);
  await fresh.goto(page.url());
  await expect(fresh.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await fresh.locator("#headgrid").scrollIntoViewIfNeeded();
  // it may still be settling (its first paint, then the edits from the URL)
  await expect.poll(() => fresh.locator("#headgrid canvas").evaluate((c) => c.toDataURL()), { timeout: 15_000 }).toEqual(expected);
  await fresh.close();
}

test("after a drag, the all-heads grid (repainted map by map) shows exactly what a fresh page with the same edit draws", async ({ page, watch }) => {
  const viewport = { width: 1400, height: 2300 };
  await page.setViewportSize(viewport);
  await openApp(page, "?debug=1&stack=encoder&layer=2&head=1");
  await watchRetranslations(page);
  const { grid, p } = await gridAndEditorOnScreen(page, 2, viewport);
  const before = await grid.evaluate((c) => c.toDataURL());
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(p.x, p.y - i * 8);
  await page.mouse.up();
  await editsSettled(page);
  const after = await grid.evaluate((c) => c.toDataURL());
  expect(after).not.toEqual(before);
  // the same state in a page of its own, which paints every map from scratch
  await expectFreshGrid(page, viewport, after);
  expectClean(watch);
});

test("a drag of layer 1 paints layer 1 at once; layer 2 is veiled, with a note, until it catches up while the pointer rests; then the grid is a fresh page's", async ({ page, watch }) => {
  const viewport = { width: 1400, height: 2300 };
  await page.setViewportSize(viewport);
  await openApp(page, "?debug=1&stack=encoder&layer=1&head=1");
  await watchRetranslations(page);
  // no time within a drag frame for the layers after the dragged one: they catch up in frames
  // of their own (the demo model is small enough to catch up within the frame otherwise)
  await page.evaluate(() => {
    window.attnscope.session.catchUpBudgetMs = 0;
    const grid = document.querySelector("#headgrid");
    window.__veiled = [];
    new MutationObserver(() => {
      const stale = [...grid.querySelectorAll(".thumb.stale")].map((b) => b.getAttribute("aria-label"));
      if (stale.length) window.__veiled.push({ stale, note: grid.querySelector('[data-test="grid-stale"]').textContent });
    }).observe(grid, { subtree: true, attributes: true, attributeFilter: ["class"] });
  });
  const { grid, p } = await gridAndEditorOnScreen(page, 1, viewport);
  const heads = await page.locator("#headgrid .thumb").count();
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  for (let i = 1; i <= 12; i++) await page.mouse.move(p.x, p.y - i * 8);
  // the pointer rests, still down: the next frames bring layer 2 up to date
  await expect(page.locator("#headgrid .thumb.stale")).toHaveCount(0);
  await expect(page.locator('#headgrid [data-test="grid-stale"]')).toHaveText("\u00a0");
  const veiled = await page.evaluate(() => window.__veiled);
  expect(veiled.length, "layer 2 was veiled during the drag").toBeGreaterThan(0);
  for (const v of veiled) {
    expect(v.stale).toEqual(Array.from({ length: heads / 2 }, (_, h) => `Layer 2, head ${h + 1}`));
    expect(v.note).toBe("Veiled: layer 2 still shows the edit before; it catches up when the drag pauses.");
  }
  const rested = await grid.evaluate((c) => c.toDataURL());
  await page.mouse.up();
  await editsSettled(page);
  expect(await grid.evaluate((c) => c.toDataURL()), "the run after the drag changes nothing the frames drew").toEqual(rested);
  // the same state in a page of its own, which paints every map from scratch
  await expectFreshGrid(page, viewport, rested);
  expectClean(watch);
});
