// Positional encoding and word order: the brother/sister pair.
import { test, expect, openApp, shot, expectClean, readTable } from "./fixtures.js";

const A = "the brother carried the sister";
const B = "the sister carried the brother";

/** Largest |W_A[i][j] - W_B[pi(i)][pi(j)]| with pi lining B's tokens up with A's. */
function diffAfterReorder(a, b) {
  const used = new Set();
  const pi = a.rows.map((tok) => {
    const j = b.rows.findIndex((x, k) => x === tok && !used.has(k));
    used.add(j);
    return j;
  });
  expect(pi.every((j) => j >= 0)).toBe(true);
  let d = 0;
  for (let i = 0; i < pi.length; i++) for (let j = 0; j < pi.length; j++) d = Math.max(d, Math.abs(a.values[i][j] - b.values[pi[i]][pi[j]]));
  return d;
}

/** The largest reordered difference over every layer and head, and where it is. */
async function scanHeads(page, name) {
  const layers = await page.getByRole("combobox", { name: "Layer", exact: true }).locator("option").count();
  const heads = await page.getByRole("combobox", { name: "Head", exact: true }).locator("option").count();
  const out = [];
  for (let l = 1; l <= layers; l++) {
    await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ label: String(l) });
    for (let h = 1; h <= heads; h++) {
      await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ label: String(h) });
      out.push({ l, h, d: diffAfterReorder(await readTable(page, name(A, l, h)), await readTable(page, name(B, l, h))) });
    }
  }
  return out;
}

test("without positional encoding the pair's encoder weights are identical up to word order", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await page.getByRole("button", { name: "Compare the two sentences" }).click();
  const name = (s, layer = 1, head = 1) => `encoder self-attention weights, layer ${layer}, head ${head}: ${s}`;
  // the comparison opens on the head where word order matters most, and says that it differs
  await expect(page.getByText(/Positional encoding on: the two maps differ/)).toBeVisible();
  const shown = async (label) => Number(await page.getByRole("combobox", { name: label, exact: true }).inputValue()) + 1;
  await expect(page.getByRole("table", { name: name(A, await shown("Layer"), await shown("Head")), exact: true })).toHaveCount(1);

  // with positional encoding, word order changes the encoder's attention (somewhere)
  const withPE = await scanHeads(page, name);
  expect(Math.max(...withPE.map((x) => x.d))).toBeGreaterThan(1e-3);
  await expect(page.getByText(/Positional encoding on: the two maps differ/)).toBeVisible();
  await shot(page, testInfo, "pair-pe-on");

  await page.getByRole("checkbox", { name: "Positional encoding", exact: true }).uncheck();
  await expect(page.getByText(/Positional encoding off: identical up to the word order/)).toBeVisible();
  const withoutPE = await scanHeads(page, name);
  for (const x of withoutPE) expect(x.d, `layer ${x.l} head ${x.h}`).toBeLessThan(1e-5);
  await shot(page, testInfo, "pair-pe-off");

  // back on; the switch in the pair panel is the same option as the one in Live controls
  await page.getByRole("checkbox", { name: /Positional encoding \(the same switch/ }).check();
  await expect(page.getByRole("checkbox", { name: "Positional encoding", exact: true })).toBeChecked();
  const again = await scanHeads(page, name);
  expect(Math.max(...again.map((x) => x.d))).toBeGreaterThan(1e-3);
  // the main sentence is untouched by the comparison
  await expect(page.getByRole("textbox", { name: "English sentence" })).toHaveValue("Emma hates games, but she's a great friend");
  expectClean(watch);
});
