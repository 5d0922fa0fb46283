// Beyond raw weights (issue 11): head knock-out from the all-heads grid, the head-importance
// ranking, value-weighted and rollout maps, value norms in the weighted average.
import { test, expect, openApp, readTable, heatmapName, urlState, expectClean, shot } from "./fixtures.js";

const SEED_TR = "엠마는 게임을 싫어하지만, 엠마는 훌륭한 친구이다.";

// heads as readers read them: "c1h2" (the engine's name) -> "cross-attention layer 1 head 2"
const STACK_WORDS = { e: "encoder self-attention", s: "decoder self-attention", c: "cross-attention" };
const inWords = (code) => {
  const [, st, layer, head] = code.match(/^([esc])(\d+)h(\d+)$/);
  return `${STACK_WORDS[st]} layer ${layer} head ${head}`;
};
const HEAD_WORDS = "(?:encoder self-attention|decoder self-attention|cross-attention) layer \\d+ head \\d+";

test("knocking out a head changes the maps and the translation; restore brings the exact numbers back; the link keeps it", async ({ page, watch }) => {
  await openApp(page, "?debug=1#stack=decoder_cross&layer=2&head=2");
  const name = heatmapName("decoder_cross", 2, 2);
  await expect(page.locator("#translation")).toHaveText(SEED_TR);
  const before = await readTable(page, name);
  // the head this translation depends on most (the engine's ranking), to be sure it changes
  const top = await page.evaluate(() => {
    const r = window.attnscope.engine.headImportance();
    return r.heads[r.ranking[0]];
  });
  const [, stack, layer, head] = top.match(/^([esc])(\d+)h(\d+)$/);
  const stackName = { e: "encoder self-attention", s: "decoder self-attention", c: "cross-attention" }[stack];
  if (stack !== "c") await page.getByRole("radio", { name: { e: "Encoder self-attention", s: /^Decoder self-attention/ }[stack] }).check();
  const toggle = page.getByRole("button", { name: `Knock out ${stackName} layer ${layer} head ${head}` });
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(page.locator("#translation")).not.toHaveText(SEED_TR);
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ value: "1" });
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ value: "1" });
  const knocked = await readTable(page, name);
  expect(knocked.text).not.toEqual(before.text);
  await expect.poll(() => urlState(page.url()).get("ko")).toBe(top);

  // a fresh load of the link: the same head off, the same translation
  const tr = await page.locator("#translation").textContent();
  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.locator("#translation")).toHaveText(tr);
  await expect.poll(() => urlState(page.url()).get("ko")).toBe(top);

  // restore: every number as before
  await page.getByRole("button", { name: "Restore all heads" }).click();
  await expect(page.locator("#translation")).toHaveText(SEED_TR);
  expect((await readTable(page, name)).text).toEqual(before.text);
  await expect.poll(() => urlState(page.url()).get("ko")).toBe(null);
  expectClean(watch);
});

test("Which heads matter? ranks every head by the drop in the translation's log-probability", async ({ page }) => {
  await openApp(page, "?debug=1");
  await page.getByRole("button", { name: "Rank the heads" }).click();
  const grid = page.locator('[data-test="importance"] .imp-cell');
  await expect(grid).toHaveCount(24, { timeout: 30_000 });
  const status = page.locator("#importance [role=status]");
  await expect(status).toContainText("Most important:");
  // the heads in words, each with its drop said as a drop (a positive number) or a rise
  const change = new RegExp(`(${HEAD_WORDS}) \\((drops|rises) by (\\d+\\.\\d+)\\)`, "g");
  const first = (await status.textContent()).match(new RegExp(`Most important: (${HEAD_WORDS}) \\((drops|rises) by (\\d+\\.\\d+)\\)`));
  expect(first).not.toBeNull();
  expect(first[2]).toBe("drops");
  expect(Number(first[3])).toBeGreaterThan(0);
  // every head's cell shows its change (title "cross-attention layer 2 head 1: the log-probability
  // drops by 0.53"; the cell "H1 0.53"), and the heads named first, in order, are those with the
  // largest drops: no head drops more than any of them. d: the change, negative for a drop.
  const signed = (verb, d) => (verb === "drops" ? -Number(d) : Number(d));
  const cells = (await grid.evaluateAll((cs) => cs.map((c) => ({ title: c.title, text: c.textContent })))).map(({ title, text }) => {
    const m = title.match(new RegExp(`^(${HEAD_WORDS}): the log-probability (drops|rises) by (\\d+\\.\\d+)$`));
    expect(m, title).not.toBeNull();
    const d = signed(m[2], m[3]);
    // the cell's number is the drop: -d
    expect(text, title).toBe(`H${m[1].match(/head (\d+)$/)[1]} ${(-d).toFixed(2).replace("-", "−").replace(/^−0\.00$/, "0.00")}`);
    return { head: m[1], d };
  });
  expect(new Set(cells.map((c) => c.head)).size).toBe(24);
  const named = [...(await status.textContent()).matchAll(change)].map((m) => ({ head: m[1], d: signed(m[2], m[3]) }));
  expect(named.length).toBe(3);
  for (let i = 1; i < named.length; i++) expect(named[i].d, "ranked by the drop").toBeGreaterThanOrEqual(named[i - 1].d);
  const others = cells.filter((c) => !named.some((n) => n.head === c.head));
  for (const n of named) {
    expect(cells.find((c) => c.head === n.head)?.d, n.head).toBe(n.d);
    for (const o of others) expect(o.d, `${o.head} drops more than ${n.head}`).toBeGreaterThanOrEqual(n.d);
  }
  // the changes are the engine's, head by head
  const engine = await page.evaluate(() => {
    const out = window.attnscope.engine.headImportance();
    return Array.from(out.heads, (h, i) => [h, Number(out.delta[i].toFixed(2))]);
  });
  expect(cells.map((c) => [c.head, Object.is(c.d, -0) ? 0 : c.d]).sort()).toEqual(engine.map(([h, d]) => [inWords(h), Object.is(d, -0) ? 0 : d]).sort());
  // no code left on the panel
  await expect(page.locator("#importance")).not.toContainText(/\b[esc]\d+h\d+\b/);
  await expect(page.locator("#importance .imp-top button")).toHaveText(named.map((n) => `Knock out ${n.head}`));
  // its button knocks that head out
  const code = engine.find(([h]) => inWords(h) === first[1])[0];
  await page.getByRole("button", { name: `Knock out ${first[1]}`, exact: true }).click();
  await expect.poll(() => urlState(page.url()).get("ko")).toBe(code);
  await expect(grid).toHaveCount(0); // the ranking belonged to the previous translation
});

test("the knock-out toggles name their attention; the count names every head that is off, of any stack; the map's title marks it", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1");
  const count = page.locator("#headgrid .knock-count");
  const title = page.locator("#heatmap-title");
  const enc = page.getByRole("group", { name: "Heads of encoder self-attention:" });
  await expect(enc).toBeVisible();
  await expect(enc).toContainText("Heads of encoder self-attention:");
  const toggle = enc.getByRole("group", { name: "encoder self-attention, layer 1" }).getByRole("button", { name: "Knock out encoder self-attention layer 1 head 1" });
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await expect(count).toHaveText("1 head off: encoder self-attention layer 1 head 1.");
  // the main map of that head says it is off, as the engine's trace does; another head's does not
  const off = () => page.evaluate(() => {
    const s = window.attnscope.state;
    const l = window.attnscope.session.cur.trace.encoder.layers[s.layer];
    return l.self_attn.sublayer.heads[s.head].knocked_out;
  });
  expect(await off()).toBe(true);
  await expect(title).toHaveText("encoder self-attention weights, layer 1, head 1 (switched off)");
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ label: "2" });
  expect(await off()).toBe(false);
  await expect(title).toHaveText("encoder self-attention weights, layer 1, head 2");

  // cross-attention: its own toggles, none pressed, and the count still names the encoder's head
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  const cross = page.getByRole("group", { name: "Heads of cross-attention:" });
  await expect(cross).toBeVisible();
  await expect(enc).toHaveCount(0);
  await expect(cross.locator("button[aria-pressed=true]")).toHaveCount(0);
  await expect(count).toHaveText("1 head off: encoder self-attention layer 1 head 1.");
  await cross.getByRole("button", { name: "Knock out cross-attention layer 2 head 3" }).click();
  await expect(count).toHaveText("2 heads off: encoder self-attention layer 1 head 1, cross-attention layer 2 head 3.");
  await expect.poll(() => urlState(page.url()).get("ko")).toBe("c2h3,e1h1");
  await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ label: "2" });
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ label: "3" });
  await expect(title).toHaveText("cross-attention weights, layer 2, head 3 (switched off)");
  await shot(page, testInfo, "knocked-out-two-stacks");

  // in Korean
  await page.goto("about:blank");
  await openApp(page, "#lang=ko&ko=e1h1");
  await expect(page.locator("#headgrid .knock-count")).toHaveText("꺼진 헤드 1개: 인코더 셀프 어텐션 1층 1번 헤드.");
  await expect(page.getByRole("group", { name: "인코더 셀프 어텐션의 헤드:" })).toBeVisible();
  await expect(page.locator("#heatmap-title")).toHaveText("인코더 셀프 어텐션 가중치, 1층 1번 헤드 (꺼짐)");
  expectClean(watch);
});

test.describe("on a phone (390 × 844, touch)", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  for (const lang of ["en", "ko"]) {
    test(`Which heads matter? fits the screen (${lang}): the ranking never widens the page`, async ({ page }, testInfo) => {
      await openApp(page, `#lang=${lang}`);
      const width = () => page.evaluate(() => document.documentElement.scrollWidth);
      expect(await width()).toBeLessThanOrEqual(390);
      await page.getByRole("button", { name: lang === "en" ? "Rank the heads" : "헤드 순위 매기기" }).click();
      const cells = page.locator('[data-test="importance"] .imp-cell');
      await expect(cells).toHaveCount(24, { timeout: 30_000 });
      await expect(page.locator("#importance .imp-top button")).toHaveCount(3);
      expect(await width()).toBeLessThanOrEqual(390);
      // every cell and button of the ranking is inside the screen's width
      const right = await page.locator("#importance .imp-cell, #importance .imp-top button, #importance .imp-row").evaluateAll((es) => Math.max(...es.map((e) => e.getBoundingClientRect().right)));
      expect(right).toBeLessThanOrEqual(390);
      await page.locator("#importance").scrollIntoViewIfNeeded();
      await shot(page, testInfo, `importance-phone-${lang}`);
    });
  }
});

test("Colour by value-weighted contributions and rollout: maps whose rows are shares, different from the weights", async ({ page }) => {
  await openApp(page, "#tables=1");
  const weights = await readTable(page, heatmapName("encoder", 1, 1));
  const show = page.getByRole("combobox", { name: "Colour by" });
  await show.selectOption("value");
  await expect(page.locator("#formula-show")).toContainText("‖ w_ij · v_j W_O^(h) ‖");
  const value = await readTable(page, "encoder self-attention value-weighted contributions, layer 1, head 1");
  for (const r of value.values) expect(Math.abs(r.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-4);
  expect(value.text).not.toEqual(weights.text);
  await show.selectOption("rollout");
  const rollout = await readTable(page, "encoder self-attention rollout through layer 1 (all heads)");
  for (const r of rollout.values) expect(Math.abs(r.reduce((a, b) => a + b, 0) - 1)).toBeLessThan(1e-4);
  // the weighted average names each big term's weight, value length and contribution
  await expect(page.locator(".wavg-norms")).toContainText(/× \d+\.\d+ = \d+\.\d+/);
});

test("another head count drops the knock-outs and the W_Q/W_K edits, as the engine does (the rule lives in the engine); the page, the URL and a restart after a panic follow it", async ({ page }) => {
  await openApp(page, "?debug=1#ko=e1h2");
  await expect.poll(() => page.evaluate(() => window.attnscope.engine.options.knockOut)).toEqual(["e1h2"]);
  await page.getByRole("combobox", { name: "Number of heads" }).selectOption("8");
  await expect.poll(() => urlState(page.url()).get("ko")).toBe(null);
  const after = await page.evaluate(() => ({ engine: window.attnscope.engine.lab.knockedOut(), state: window.attnscope.state.knockOut, copy: window.attnscope.engine.options.knockOut }));
  expect(after).toEqual({ engine: [], state: "", copy: [] });
  // the same head count again keeps a knock-out made under it
  await page.evaluate(() => window.attnscope.session.toggleHead("e1h3"));
  await page.getByRole("combobox", { name: "Number of heads" }).selectOption("8");
  await expect.poll(() => page.evaluate(() => window.attnscope.engine.lab.knockedOut())).toEqual(["e1h3"]);
  expect(await page.evaluate(() => window.attnscope.state.knockOut)).toBe("e1h3");
});
