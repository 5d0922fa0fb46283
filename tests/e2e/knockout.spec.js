// Beyond raw weights (issue 11): head knock-out from the all-heads grid, the head-importance
// ranking, value-weighted and rollout maps, value norms in the weighted average.
import { test, expect, openApp, readTable, heatmapName, urlState, expectClean } from "./fixtures.js";

const SEED_TR = "엠마는 게임을 싫어하지만, 엠마는 훌륭한 친구이다.";

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
  const first = (await status.textContent()).match(/Most important: ([esc]\d+h\d+) \((−?\d+\.\d+)\)/);
  expect(first).not.toBeNull();
  expect(Number(first[2].replace("−", "-"))).toBeLessThan(0);
  // every head's cell shows its change (title "c2h1: −0.53"), and the heads named first, in
  // order, are those with the largest drops: no head drops more than any of them
  const num = (s) => Number(s.replace("−", "-"));
  const cells = (await grid.evaluateAll((cs) => cs.map((c) => c.title))).map((t) => t.split(": ")).map(([head, d]) => ({ head, d: num(d) }));
  expect(new Set(cells.map((c) => c.head)).size).toBe(24);
  const named = [...(await status.textContent()).matchAll(/([esc]\d+h\d+) \((−?\d+\.\d+)\)/g)].map((m) => ({ head: m[1], d: num(m[2]) }));
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
  expect(cells.map((c) => [c.head, c.d]).sort()).toEqual(engine.map(([h, d]) => [h, Object.is(d, -0) ? 0 : d]).sort());
  await expect(page.locator("#importance .imp-top button")).toHaveText(named.map((n) => `Knock out ${n.head}`));
  // its button knocks that head out
  await page.getByRole("button", { name: `Knock out ${first[1]}` }).click();
  await expect.poll(() => urlState(page.url()).get("ko")).toBe(first[1]);
  await expect(grid).toHaveCount(0); // the ranking belonged to the previous translation
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
