// Texts in the lab that must stay true on any sentence (issue 13): the pronoun hint claims a
// referent only for a word that agrees with the pronoun; the word-order comparison opens on a
// head where order matters and describes the head shown; "Show me" keeps the keyboard on the
// map; a download's status line names only the map on screen.
import { test, expect, openApp, typeSentence, expectClean, filled } from "./fixtures.js";

// Each sentence with the words its pronouns could stand for (names and agreeing nouns).
const PRONOUN_SENTENCES = [
  { text: "Tom gave Mary a book because she asked for it", referents: { she: ["mary"], it: ["book"] } },
  { text: "Emma called her brother after she left the school", referents: { her: ["emma"], she: ["emma"] } },
  { text: "My father is tall and he cooks every day", referents: { he: ["father"] } },
  { text: "The teacher said that she was tired", referents: { she: ["teacher"] } },
  { text: "The dog ate the bread because it was hungry", referents: { it: ["dog", "bread"] } },
  { text: "My friends visited Seoul and they loved it", referents: { they: ["friends"], it: ["seoul"] } },
];

const hint = (page) => page.locator("[data-test=pronoun-hint]");

test("the pronoun hint names a referent only when the word could be one", async ({ page, watch }) => {
  await openApp(page);
  let claims = 0;
  for (const { text, referents } of PRONOUN_SENTENCES) {
    await typeSentence(page, text);
    await expect(page.locator("#tokens .chip").first()).toHaveText(text.split(" ")[0].toLowerCase());
    if (!(await hint(page).isVisible())) continue;
    const said = await hint(page).textContent();
    const m = said.match(/“([^”]+)” (?:puts \d+% of its attention on|looks mostly at) “([^”]+)”/);
    expect(m, `a hint that names its words: ${said}`).not.toBeNull();
    const [, pron, word] = m;
    const claimsReferent = !/not a word/.test(said);
    if (claimsReferent) {
      claims += 1;
      expect(referents[pron] ?? [], `“${text}”: ${said}`).toContain(word);
    }
  }
  // the trained model does look from some pronoun to its referent
  expect(claims).toBeGreaterThan(0);
  expectClean(watch);
});

test("Show me opens the head it names, keeps its explanation and the keyboard focus", async ({ page }) => {
  await openApp(page);
  // the first sentence whose hint offers Show me (which ones do depends on the model)
  const show = hint(page).getByRole("button", { name: "Show me" });
  let offered = false;
  for (const { text } of PRONOUN_SENTENCES) {
    await typeSentence(page, text);
    await expect(page.locator("#tokens .chip").first()).toHaveText(text.split(" ")[0].toLowerCase());
    if ((offered = await show.isVisible())) break;
  }
  expect(offered, "some pronoun sentence gets a hint with Show me").toBe(true);
  // the hint names another head ("in layer 2, head 3"), or the head on screen ("In this head"),
  // whose pronoun row Show me then selects
  const before = await hint(page).textContent();
  const named = before.match(/layer (\d+), head (\d+)/);
  const layerBox = page.getByRole("combobox", { name: "Layer", exact: true });
  const headBox = page.getByRole("combobox", { name: "Head", exact: true });
  const want = named ? [Number(named[1]) - 1, Number(named[2]) - 1] : [Number(await layerBox.inputValue()), Number(await headBox.inputValue())];
  await show.click();
  await expect(layerBox).toHaveValue(String(want[0]));
  await expect(headBox).toHaveValue(String(want[1]));
  // the explanation stays (about the head now on screen), and the focus is on the map
  await expect(hint(page)).toBeVisible();
  await expect(hint(page)).toContainText("In this head");
  const focused = await page.evaluate(() => document.activeElement?.closest("#heatmap-main") !== null);
  expect(focused).toBe(true);
});

test("the word-order comparison opens on a head where order matters and describes the head shown", async ({ page }) => {
  await openApp(page);
  await page.getByRole("button", { name: "Compare the two sentences" }).click();
  const verdict = page.locator("#order-panel [role=status]");
  await expect(verdict).toContainText("Positional encoding on: the two maps differ");
  // with positional encoding on, no head is called "identical up to the word order"
  const layers = await page.getByRole("combobox", { name: "Layer", exact: true }).locator("option").count();
  const heads = await page.getByRole("combobox", { name: "Head", exact: true }).locator("option").count();
  for (let l = 0; l < layers; l++) {
    await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ value: String(l) });
    for (let h = 0; h < heads; h++) {
      await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ value: String(h) });
      const text = await verdict.textContent();
      expect(text, `layer ${l + 1} head ${h + 1}`).toMatch(/^Positional encoding on/);
      expect(text, `layer ${l + 1} head ${h + 1}`).not.toMatch(/^Positional encoding on: identical/);
      if (/does not use word order/.test(text)) expect(text).toContain(`layer ${l + 1}, head ${h + 1}`);
    }
  }
});

test("a download's status line goes when another map is shown", async ({ page }) => {
  await openApp(page);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the map as CSV", exact: true }).click()]);
  const status = page.locator("#export-main [role=status]");
  await expect(status).toContainText(dl.suggestedFilename());
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ value: "1" });
  await expect(status).toHaveText("");
});

test("while a W_Q cell is dragged on a laptop screen, the edited head's map is on screen", async ({ page }) => {
  await page.setViewportSize({ width: 1366, height: 900 });
  await openApp(page);
  const grid = page.locator(".qk-k .qk-canvas");
  await grid.scrollIntoViewIfNeeded();
  const box = await page.locator(".qk-q .qk-canvas").boundingBox();
  const mini = page.locator("#qk-map");
  const before = await mini.locator("canvas").screenshot();
  await page.mouse.move(box.x + 20, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + 20, box.y - 60, { steps: 6 });
  // the map is inside the viewport, names the edited head, and has changed
  const m = await mini.locator("canvas").boundingBox();
  expect(m.y).toBeGreaterThanOrEqual(0);
  expect(m.y + m.height).toBeLessThanOrEqual(900);
  await expect(mini.locator(".heatmap-title")).toHaveText("encoder self-attention weights, layer 1, head 1");
  expect(Buffer.compare(before, await mini.locator("canvas").screenshot())).not.toBe(0);
  await page.mouse.up();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  test("a swipe over the W_Q grid scrolls the page and edits nothing; a tap opens a large editor", async ({ page }) => {
    await openApp(page);
    const grid = page.locator(".qk-q .qk-canvas");
    await grid.scrollIntoViewIfNeeded();
    const box = await grid.boundingBox();
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    const before = await page.evaluate(() => scrollY);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x, y }] });
    for (let k = 1; k <= 8; k++) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x, y: y - k * 25 }] });
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(before + 50);
    await expect(page.getByText("No edits: trained weights")).toBeVisible();
    await expect(page.getByRole("group", { name: /^Edit W_/ })).toBeHidden();

    // a tap selects a cell and opens the editor: its name and value, big buttons (once the
    // page has stopped scrolling, so the tap lands where it aims)
    let last = -1;
    await expect.poll(async () => { const y = await page.evaluate(() => scrollY); const still = y === last; last = y; return still; }, { intervals: [300] }).toBe(true);
    await grid.scrollIntoViewIfNeeded();
    const b2 = await grid.boundingBox();
    await page.touchscreen.tap(b2.x + b2.width / 3, b2.y + b2.height / 2);
    const editor = page.getByRole("group", { name: /^Edit W_Q\[\d+, \d+\]$/ });
    await expect(editor).toBeVisible();
    const cell = (await editor.getAttribute("aria-label")).slice("Edit ".length);
    const plus = editor.getByRole("button", { name: `Increase ${cell}` });
    const size = await plus.boundingBox();
    expect(size.height).toBeGreaterThanOrEqual(40);
    const value = editor.locator("output");
    const v0 = Number((await value.textContent()).replace("−", "-"));
    await plus.tap();
    await expect.poll(async () => Number((await value.textContent()).replace("−", "-"))).toBeGreaterThan(v0);
    await expect(page.getByText("Edited blocks in force: 1")).toBeVisible();
  });
});

test("tables print the page's numbers (never exponent notation), even where scaling off leaves weights near 0", async ({ page }) => {
  await openApp(page, "?scale=0&tables=1&s=the+brother+carried+the+sister+to+school+every+day");
  const table = page.getByRole("table", { name: "encoder self-attention weights, layer 1, head 1", exact: true });
  await expect(table).toBeVisible();
  const cells = await (await filled(table)).locator("tbody td").allTextContents();
  expect(cells.length).toBeGreaterThan(50);
  for (const c of cells) expect(c).toMatch(/^-?\d+(\.\d+)?$/);
  expect(cells.some((c) => c === "0.000000")).toBe(true); // the near-zero weights are there, written plainly
});

test("the Number of heads hint says what re-splitting does (the translation may or may not change), with the model's trained head count and width", async ({ page }) => {
  await openApp(page, "?debug=1");
  const hint = page.locator("#hint-heads");
  await expect(hint).not.toContainText("breaks the trained patterns");
  await expect(hint).toContainText("whether the translation changes depends on the sentence");
  const info = await page.evaluate(() => window.attnscope.engine.info);
  await expect(hint).toContainText(`The model was trained with ${info.nhead} heads.`);
  await expect(hint).toContainText(`(d_k = ${info.dModel} / heads)`);
});
