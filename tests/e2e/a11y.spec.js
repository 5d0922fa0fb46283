// Accessibility: axe-core (WCAG 2.0/2.1 A and AA, and best practices) finds nothing on any page,
// in either language, in each embed panel, before and after the main interactions; every control
// of the lab is reachable with the keyboard alone; with forced colours the maps keep their values.
import fs from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { test, expect, openApp, shot, expectClean, heatmapName, typeSentence, cellPoint, filled, SLOW } from "./fixtures.js";

// The server's strict CSP would refuse axe's injected script.
test.use({ bypassCSP: true });

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

/** axe-core's violations on the page (its frames and shadow roots included), one line per node. */
async function violations(page) {
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" >> ")}: ${n.failureSummary.replace(/\s+/g, " ").slice(0, 240)}`));
}

async function expectNoViolations(page, testInfo, name) {
  const found = await violations(page);
  await shot(page, testInfo, name);
  if (process.env.A11Y_LOG) fs.appendFileSync(process.env.A11Y_LOG, JSON.stringify({ name, found }) + "\n");
  // soft: one test reports every state it audits
  expect.soft(found, `axe-core violations: ${name}`).toEqual([]);
}

async function openLesson(page, query = "") {
  await page.goto(`/lesson.html${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
}

test("axe: the lab, by default and after a translation", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await expectNoViolations(page, testInfo, "lab-default");
  await typeSentence(page, "my brother reads a book every night");
  await expect(page.getByRole("table", { name: heatmapName("encoder"), exact: true }).locator("thead th")).toHaveCount(8);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1");
  await expectNoViolations(page, testInfo, "lab-translated");
  expectClean(watch);
});

test("axe: the lab after a W_Q drag, with tables shown, and with the Embed this dialog open", async ({ page, watch }, testInfo) => {
  test.setTimeout(120_000 * SLOW); // several axe passes
  await openApp(page);
  const wq = page.getByRole("slider", { name: /^W_Q cells of / });
  await wq.scrollIntoViewIfNeeded();
  const [, rows, cols] = (await page.locator(".qk-q .qk-title").textContent()).match(/(\d+) × (\d+)/).map(Number);
  const p = await cellPoint(wq, 1, 3, rows, cols);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(p.x, p.y - i * 6);
  await page.mouse.up();
  await expect(page.getByRole("status").filter({ hasText: "Edited blocks in force" })).toBeVisible();
  await expectNoViolations(page, testInfo, "lab-dragged");

  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  await expectNoViolations(page, testInfo, "lab-tables");

  await page.getByRole("button", { name: "Embed this" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  await expect(dialog).toBeVisible();
  await expect(dialog.locator(".embed-preview .ap")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expectNoViolations(page, testInfo, "lab-embed-dialog");
  expectClean(watch);
});

test("axe: the lab in Korean", async ({ page, watch }, testInfo) => {
  await openApp(page, "?lang=ko&tables=1");
  await expectNoViolations(page, testInfo, "lab-ko");
  expectClean(watch);
});

for (const lang of ["en", "ko"]) {
  test(`axe: the lesson (${lang})`, async ({ page }, testInfo) => {
    test.setTimeout(120_000 * SLOW); // axe over the whole lesson: half a minute on one core
    await openLesson(page, lang === "ko" ? "?lang=ko" : "");
    await expectNoViolations(page, testInfo, `lesson-${lang}`);
  });
}

// On a phone, wide tables and strips scroll sideways: each such box must be reachable.
test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  test("axe: the lesson and the lab at a phone's width", async ({ page }, testInfo) => {
    test.setTimeout(120_000 * SLOW);
    await openLesson(page);
    await expectNoViolations(page, testInfo, "lesson-phone");
    await openApp(page, "?tables=1");
    await expectNoViolations(page, testInfo, "lab-phone");
  });
});

test("axe: the training playground, at step 0 and trained, in English and Korean, at a phone's width too", async ({ page, watch }, testInfo) => {
  test.setTimeout(120_000 * SLOW); // several axe passes
  for (const [lang, width] of [["en", 1280], ["ko", 1280], ["en", 390]]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/train.html?lang=${lang}`);
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
    await expectNoViolations(page, testInfo, `train-${lang}-${width}-start`);
    await page.goto(`/train.html?lang=${lang}&steps=60`);
    await expect(page.locator('[data-test="run-status"]')).toHaveAttribute("data-step", "60", { timeout: 30_000 });
    await page.locator(".train-view-controls").getByRole("checkbox").check(); // the maps as tables
    await expectNoViolations(page, testInfo, `train-${lang}-${width}-trained`);
  }
  expectClean(watch);
});

test("axe: the course-notes example (a sandboxed iframe and two custom elements)", async ({ page }, testInfo) => {
  await page.goto("/examples/course-notes.html");
  await expect(page.frameLocator("iframe.panel-frame").locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.locator("#panel-qk").getByRole("slider", { name: /^W_Q cells of / })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("#panel-decoding").getByRole("slider", { name: "디코딩 단계" })).toBeVisible({ timeout: 30_000 });
  await expectNoViolations(page, testInfo, "course-notes");
});

for (const panel of ["qk", "decoding", "heatmap", "weighted", "dot", "order"]) {
  test(`axe: an embed panel (${panel})`, async ({ page, watch }, testInfo) => {
    await page.goto(`/index.html?embed=1&panel=${panel}&controls=sentence,stack,layer,head,show,mask,scale,tables,export`);
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
    await expectNoViolations(page, testInfo, `embed-${panel}`);
    expectClean(watch);
  });
}

test("keyboard alone: Tab reaches every control of the lab, each on screen, and the arrow keys read a heatmap's cells", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await page.getByRole("button", { name: "Compare the two sentences" }).click(); // opens the word-order maps too
  await expect(page.locator("#order-panel canvas").first()).toBeVisible();
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  // every element that takes the focus notes it, with its box at that moment
  await page.evaluate(() => {
    window.__stops = [];
    document.addEventListener("focusin", (e) => {
      const r = e.target.getBoundingClientRect();
      e.target.dataset.kbSeen = "1";
      window.__stops.push({ what: `${e.target.tagName.toLowerCase()}#${e.target.id}.${e.target.className}`, w: r.width, h: r.height });
    });
  });
  // from the first stop (the skip link) round to it again
  await page.locator("a.skip").focus();
  for (let i = 0; i < 400; i++) {
    await page.keyboard.press("Tab");
    const done = await page.evaluate(() => window.__stops.length > 1 && document.activeElement === document.querySelector("a.skip"));
    if (done) break;
  }
  const stops = await page.evaluate(() => window.__stops);
  expect(stops.length).toBeGreaterThan(30);
  // no invisible tab stop (a focusable element hidden for screen readers only, or a 0-size box)
  expect(stops.filter((s) => !(s.w > 4 && s.h > 4)).map((s) => s.what), "tab stops without a visible box").toEqual([]);

  const controls = [
    page.getByRole("link", { name: "Skip to" }),
    page.getByRole("textbox", { name: "English sentence" }),
    page.getByRole("checkbox", { name: "Causal mask in the decoder" }),
    page.getByRole("checkbox", { name: "Causal mask in the encoder too" }),
    page.getByRole("checkbox", { name: "Divide scores by √d_k" }),
    page.getByRole("checkbox", { name: "Positional encoding", exact: true }),
    page.getByRole("checkbox", { name: "Show heatmaps as tables" }),
    page.getByRole("combobox", { name: "Number of heads" }),
    page.getByRole("radio", { checked: true }),
    page.locator("#sel-layer"),
    page.locator("#sel-head"),
    page.locator("#sel-show"),
    page.locator("#heatmap-main canvas"),
    page.locator("#heatmap-main .table-wrap"),
    page.getByRole("button", { name: "Layer 2, head 4" }),
    page.getByRole("slider", { name: /^W_Q cells of / }),
    page.getByRole("slider", { name: /^W_K cells of / }),
    page.getByRole("button", { name: "Identity (W_Q = W_K = I)" }),
    page.getByRole("button", { name: "Reset all edits" }),
    page.getByRole("combobox", { name: "Query word" }),
    page.locator("#wavg .table-wrap"),
    page.getByRole("combobox", { name: "Key j", exact: true }),
    page.locator("#dot .table-wrap"),
    page.getByRole("slider", { name: "Decoding step" }),
    page.getByRole("button", { name: "Next step ▶" }),
    page.locator("#decoding .heatmap-canvas"),
    page.locator("#order-panel .heatmap-canvas"),
    page.getByRole("button", { name: "Copy link" }),
    page.getByRole("button", { name: "Embed this" }),
    page.getByRole("button", { name: "한국어" }),
    page.getByRole("link", { name: /^Guided lesson/ }),
  ];
  const missed = [];
  for (const c of controls) {
    await expect(c.first()).toBeAttached();
    const seen = await c.evaluateAll((els) => els.some((e) => e.dataset.kbSeen === "1"));
    if (!seen) missed.push(c.toString());
  }
  expect(missed, "controls Tab never reached").toEqual([]);

  // a heatmap's cells with the keys alone: the readout names the pair and its weight
  const canvas = page.locator("#heatmap-main canvas");
  await canvas.focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  const readout = page.locator("#heatmap-main .heatmap-readout");
  await expect(readout).toHaveText(/ → .* weight \d/);
  // "friend → hates · raw score q·k −7.219 · scaled/masked −1.805 · weight 0.0001": the table's cell
  const [, from, to, w] = (await readout.textContent()).match(/^(.+?) → (.+?) · .* weight ([\d.]+)/);
  const cellValue = await (await filled(page.locator("#heatmap-main table"))).evaluate((t, [from, to]) => {
    const c = [...t.tHead.rows[0].cells].findIndex((th) => th.textContent === to);
    const row = [...t.tBodies[0].rows].find((tr) => tr.cells[0].textContent === from);
    return Number(row.cells[c].textContent);
  }, [from, to]);
  expect(Math.abs(cellValue - Number(w))).toBeLessThan(1e-4);
  await shot(page, testInfo, "keyboard-readout");
  expectClean(watch);
});

test("forced colours (high contrast): the maps keep their numbers, on the canvas and in the tables", async ({ page, watch }, testInfo) => {
  await page.emulateMedia({ forcedColors: "active" });
  await openApp(page, "?s=she+is+a+great+friend");
  expect(await page.evaluate(() => matchMedia("(forced-colors: active)").matches)).toBe(true);
  // the canvas is not repainted by the system colours: its cells and their numbers stay
  const canvas = page.locator("#heatmap-main canvas");
  const ink = await canvas.evaluate((c) => {
    const g = c.getContext("2d");
    const px = g.getImageData(0, 0, c.width, c.height).data;
    let black = 0, white = 0, purple = 0;
    for (let i = 0; i < px.length; i += 4) {
      const [r, gg, b] = [px[i], px[i + 1], px[i + 2]];
      if (r + gg + b < 60) black++;
      else if (r > 240 && gg > 240 && b > 240) white++;
      else if (b > r && b > gg) purple++;
    }
    return { black, white, purple };
  });
  expect(ink.purple, "coloured cells").toBeGreaterThan(1000);
  expect(ink.black, "dark numbers and labels").toBeGreaterThan(100);
  // the table alternative, shown: numbers in system colours, readable against their background
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  const table = page.getByRole("table", { name: heatmapName("encoder"), exact: true });
  await expect(table).toBeVisible();
  const cell = table.locator("tbody td").first();
  await expect(cell).toHaveText(/^\d/);
  const { color, bg } = await cell.evaluate((td) => ({ color: getComputedStyle(td).color, bg: getComputedStyle(td).backgroundColor }));
  expect(color).not.toBe(bg);
  // what is chosen stays marked: the selected attention tab, the selected row
  const tabBg = await page.locator(".stack-tabs .tab span").evaluateAll((spans) => spans.map((s) => getComputedStyle(s).backgroundColor));
  const checked = await page.locator(".stack-tabs .tab input").evaluateAll((inputs) => inputs.findIndex((i) => i.checked));
  expect(new Set(tabBg).size, `tab backgrounds ${tabBg}`).toBe(2);
  expect(tabBg.filter((b) => b === tabBg[checked])).toHaveLength(1);
  const rowBg = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => getComputedStyle(tr.cells[1]).backgroundColor));
  expect(new Set(rowBg).size, "the selected row stands out").toBe(2);
  await shot(page, testInfo, "forced-colours-lab");

  // the lesson's coloured tables: their numbers stay text in the system's colours
  await page.goto("/lesson.html");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  const heat = page.locator('table[data-test="p2-scores"] td').first();
  await heat.scrollIntoViewIfNeeded();
  const h = await heat.evaluate((td) => ({ text: td.textContent, color: getComputedStyle(td).color, bg: getComputedStyle(td).backgroundColor }));
  expect(h.text).toMatch(/\d/);
  expect(h.color).not.toBe(h.bg);
  const heatBg = await page.locator('table[data-test="p2-scores"] td').evaluateAll((tds) => tds.map((td) => getComputedStyle(td).backgroundColor));
  expect(new Set(heatBg).size, "a heat table keeps its colours (its data)").toBeGreaterThan(3);
  await shot(page, testInfo, "forced-colours-lesson");
  expectClean(watch);
});

/** Idle callbacks wait in `window.__idle` for the test to run them. */
const holdIdle = (page) =>
  page.addInitScript(() => {
    window.__idle = [];
    window.requestIdleCallback = (f) => window.__idle.push(f);
  });

/** Run the page's held idle callbacks, and those they queue, until none is left. */
const drainIdle = (page) =>
  page.evaluate(() => {
    while (window.__idle.length) window.__idle.splice(0).forEach((f) => f());
  });

test("a new sentence paints its maps first; each screen-reader table says it is busy until the page is idle, then holds the new numbers", async ({ page, watch }) => {
  await holdIdle(page);
  await openApp(page);
  await drainIdle(page);
  const table = page.getByRole("table", { name: heatmapName("encoder"), exact: true });
  await expect(table).not.toHaveAttribute("aria-busy", "true");
  await expect(table.locator("thead th.col-key")).toHaveCount(10);

  await typeSentence(page, "my brother reads a book every night");
  // the map shows the new sentence (its canvas is described with it) while the table waits
  await expect(page.locator("#translation")).not.toHaveText("");
  await expect(table).toHaveAttribute("aria-busy", "true");
  await expect(table.locator("thead th.col-key")).toHaveCount(10); // still the old sentence's
  const pending = await page.evaluate(() => window.__idle.length);
  expect(pending).toBeGreaterThan(0);

  await drainIdle(page);
  await expect(table).not.toHaveAttribute("aria-busy", "true");
  await expect(table.locator("thead th.col-key")).toHaveText(["my", "brother", "reads", "a", "book", "every", "night"]);
  // the numbers are the engine's: each row of weights sums to 1
  const sums = await table.evaluate((t) => [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).reduce((s, c) => s + Number(c.textContent), 0)));
  expect(sums).toHaveLength(7);
  for (const s of sums) expect(Math.abs(s - 1)).toBeLessThan(1e-5);
  expectClean(watch);
});


test("a long sentence's table fills a few rows per idle callback and stays busy until its last row", async ({ page, watch }) => {
  await holdIdle(page);
  await openApp(page);
  await drainIdle(page);
  // 32 tokens: a 32 x 32 map, more cells than one idle callback writes (dom.TABLE_CHUNK)
  const words = "my mother does n't give the farmer my sweet rice at the old hospital because the mother usually carries the big umbrella with the young daughter at the quiet farm today .".split(" ");
  await typeSentence(page, "My mother doesn't give the farmer my sweet rice at the old hospital because the mother usually carries the big umbrella with the young daughter at the quiet farm today.");
  const table = page.getByRole("table", { name: heatmapName("encoder"), exact: true });
  await expect(table).toHaveAttribute("aria-busy", "true");
  await expect.poll(() => page.evaluate(() => window.__idle.length)).toBeGreaterThan(0);

  // one round of the callbacks queued now: the table has its new header and some of its rows
  await page.evaluate(() => window.__idle.splice(0).forEach((f) => f()));
  await expect(table).toHaveAttribute("aria-busy", "true");
  await expect(table.locator("thead th.col-key")).toHaveText(words);
  const partial = await table.locator("tbody tr").count();
  expect(partial).toBeGreaterThan(0);
  expect(partial).toBeLessThan(words.length);

  await drainIdle(page);
  await expect(table).not.toHaveAttribute("aria-busy", "true");
  const sums = await table.evaluate((t) => [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).reduce((s, c) => s + Number(c.textContent), 0)));
  expect(sums).toHaveLength(words.length);
  for (const s of sums) expect(Math.abs(s - 1)).toBeLessThan(1e-5);
  expectClean(watch);
});
