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

test("a glue token's step says what its “+” means and which token it is written onto", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1");
  // the steps and the glue marker, from the engine and the model file
  const { tokens, marker, jamo } = await page.evaluate(() => {
    const tok = window.attnscope.engine.file.config.tokenizer;
    return { tokens: window.attnscope.session.cur.tr.steps.map((s) => s.token), marker: tok.glue_prefix, jamo: tok.compose_jamo };
  });
  expect(marker).toBeTruthy();
  const isGlue = (t) => t.length > marker.length && t.startsWith(marker);
  const startsJamo = (t) => /^[\u3131-\u314e]/u.test(t.slice(marker.length));
  const plain = tokens.findIndex((t) => !isGlue(t));
  const glued = tokens.findIndex((t, k) => k > 0 && isGlue(t) && !startsJamo(t));
  const consonant = tokens.findIndex((t, k) => k > 0 && isGlue(t) && startsJamo(t));
  expect(plain, tokens.join(" ")).toBeGreaterThanOrEqual(0);
  expect(glued, tokens.join(" ")).toBeGreaterThan(0);
  expect(consonant, tokens.join(" ")).toBeGreaterThan(0);
  expect(jamo).toBe(true);
  const slider = page.getByRole("slider", { name: "Decoding step" });
  const note = page.locator(".dec-glue");
  const go = async (k) => {
    await slider.fill(String(k + 1));
    await expect(page.locator(".dec-position")).toHaveText(`step ${k + 1} of ${tokens.length}: ${tokens[k]}`);
  };
  await go(plain);
  await expect(note).toBeHidden();
  await go(glued);
  await expect(note).toHaveText(`“${tokens[glued]}” is a glue token: the “${marker}” means it is written onto the end of the token before it (“${tokens[glued - 1]}”) with no space, as a Korean particle or ending is.`);
  await go(consonant);
  const c = tokens[consonant];
  await expect(note).toHaveText(
    `“${c}” is a glue token: the “${marker}” means it is written onto the end of the token before it (“${tokens[consonant - 1]}”) with no space, and its first letter, ${c.slice(marker.length)[0]}, becomes the final consonant (받침) of that syllable when it has none (하 + ㅆ → 했).`,
  );
  await shot(page, testInfo, "decoding-glue");
  // in Korean
  await page.goto("about:blank");
  await openApp(page, `#lang=ko&step=${consonant + 1}`);
  const esc = (x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  await expect(page.locator(".dec-glue")).toHaveText(new RegExp(`^“${esc(c)}”[은는] 붙는 토큰입니다\\. 앞의 “${esc(marker)}” 표시는 이 토큰을 앞 토큰\\(“${esc(tokens[consonant - 1])}”\\) 끝에`));
  expectClean(watch);
});
