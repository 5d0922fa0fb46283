// Unknown words: marked in the sentence box as the reader types, with in-vocabulary neighbours
// from the GloVe vectors that replace them; "Try these" sentences; a word copied into the
// translation through cross-attention, marked and explained.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, typeSentence, urlState } from "./fixtures.js";

const BOX = { name: "English sentence" };

/** How many source-vocabulary entries of the committed model are words (not punctuation). */
function sourceWords() {
  const file = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "../../www/models/en-ko.safetensors"));
  const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString());
  return JSON.parse(header.__metadata__.attnscope).src_vocab.filter((w) => /^\p{L}[\p{L}\p{M}'-]*$/u.test(w)).length;
}

/** The entry of the unknown-words list for `word` ("unknown word: sofa ..."). */
const unknownItem = (page, word) => page.locator("#sentence-unknown").getByRole("listitem").filter({ hasText: `unknown word: ${word}` });

test("unknown words are underlined in place as you type, and the vectors load only then", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const box = page.getByRole("textbox", BOX);
  // the seed sentence is all known: nothing marked, no word vectors fetched
  await expect(box).not.toHaveAttribute("aria-invalid", "true");
  await expect(page.locator("#sentence-unknown")).toBeHidden();
  expect(watch.requests.some((u) => u.includes("glove-50d"))).toBe(false);
  // the hint says how many words the model knows, counted from the model
  await expect(page.locator("#sentence-hint")).toContainText(/The model knows about [\d,]+ words of everyday English; unknown words are underlined and copied through unchanged\./);
  await expect(page.locator("#sentence-hint")).toContainText(`knows about ${sourceWords().toLocaleString("en-US")} words`);

  // typing (no Enter): the mark follows within a frame, before the translation
  await box.fill("");
  await box.pressSequentially("Zorblat ate my");
  await expect(page.locator("#sentence-marks mark")).toHaveText(["Zorblat"]);
  await expect(box).toHaveAttribute("aria-invalid", "true");
  await expect(box).toHaveAccessibleDescription(/unknown word: zorblat/);
  const item = unknownItem(page, "zorblat");
  await expect(item).toBeVisible();
  // a word with no GloVe vector: no suggestion
  await expect(item).toContainText("no suggestion");
  expect(watch.requests.some((u) => u.endsWith("/models/glove-50d.safetensors"))).toBe(true);
  await shot(page, testInfo, "zorblat");

  // the mark sits under the word: same box as the word in the textarea's layout
  const mark = await page.locator("#sentence-marks mark").boundingBox();
  const area = await box.boundingBox();
  expect(mark.x).toBeGreaterThanOrEqual(area.x);
  expect(mark.x).toBeLessThan(area.x + 20); // the first word, after the padding
  expect(mark.y).toBeLessThan(area.y + 20);

  // fixing the word clears the marks
  await box.fill("Emma ate my sandwich");
  await expect(page.locator("#sentence-marks mark")).toHaveCount(0);
  await expect(page.locator("#sentence-unknown")).toBeHidden();
  await expect(box).not.toHaveAttribute("aria-invalid", "true");
  expectClean(watch);
});

test("a suggestion replaces an unknown word, by click or Enter, and re-translates", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const box = page.getByRole("textbox", BOX);
  // a real word that GloVe has and this model does not know (whichever model is committed)
  const words = ["sofa", "couch", "saxophone", "volcano", "referendum", "zebra", "piano", "guitar"];
  let word = null;
  let suggestion = null;
  // which of them the model does not know: its tokenizer says (a fresh engine in the page)
  const unknown = await page.evaluate(async (words) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    return words.filter((w) => {
      const src = e.lab.tokenize(`My friend likes the ${w}.`);
      return Array.from(src.unknown).some((i) => src.tokens[i] === w);
    });
  }, words);
  expect(unknown.length, `one of ${words.join(", ")} is unknown to the model`).toBeGreaterThan(0);
  for (const w of unknown) {
    await typeSentence(page, `My friend likes the ${w}.`);
    const item = unknownItem(page, w);
    await expect(item).toBeVisible();
    await expect(item).not.toContainText("looking for similar words");
    const buttons = item.getByRole("button", { name: new RegExp(`^Replace '${w}' with '`) });
    if ((await buttons.count()) === 0) continue;
    word = w;
    suggestion = buttons.first();
    break;
  }
  expect(word, `one of ${words.join(", ")} is unknown to the model and has an in-vocabulary neighbour`).not.toBeNull();
  await expect(page.locator("#sentence-marks mark")).toHaveText([word]);
  await expect(unknownItem(page, word).getByRole("group", { name: `Suggestions for “${word}”` })).toBeVisible();
  await shot(page, testInfo, "suggestions");

  const name = await suggestion.getAttribute("aria-label");
  const replacement = name.match(/with '(.+)'$/)[1];
  await expect(suggestion).toHaveText(replacement);
  // keyboard: focus the button and press Enter; the caret was at the end of the text
  await box.evaluate((e) => e.setSelectionRange(e.value.length, e.value.length));
  await suggestion.focus();
  await page.keyboard.press("Enter");
  const want = `My friend likes the ${replacement}.`;
  await expect(box).toHaveValue(want);
  await expect(box).toBeFocused();
  expect(await box.evaluate((e) => e.selectionStart)).toBe(want.length); // still at the end
  // re-translated: the encoder reads the new word
  await expect.poll(async () => (await readTable(page, heatmapName("encoder"))).cols).toContain(replacement);
  await expect(page.locator("#sentence-marks mark")).toHaveCount(0);
  await expect.poll(() => urlState(page.url()).get("s")).toBe(want);

  // a capitalised word gets a capitalised replacement, the rest of the text is kept, and a click works too
  await typeSentence(page, `${word[0].toUpperCase()}${word.slice(1)} and my friend`);
  const again = unknownItem(page, word).getByRole("button", { name: `Replace '${word}' with '${replacement}'` });
  await again.click();
  await expect(box).toHaveValue(`${replacement[0].toUpperCase()}${replacement.slice(1)} and my friend`);
  await shot(page, testInfo, "replaced");
  expectClean(watch);
});

test("every 'Try these' sentence translates without an error", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const group = page.getByRole("group", { name: "Try these" });
  const buttons = group.getByRole("button");
  const n = await buttons.count();
  expect(n).toBeGreaterThanOrEqual(10);
  for (let i = 0; i < n; i++) {
    const b = buttons.nth(i);
    const label = await b.textContent();
    const name = await b.getAttribute("aria-label");
    expect(name.startsWith(`${label}: `), `the name "${name}" starts with the visible label`).toBe(true);
    const sentence = name.slice(label.length + 2);
    await b.click();
    await expect(page.getByRole("textbox", BOX)).toHaveValue(sentence);
    const first = sentence.split(/\s+/)[0].toLowerCase().replace(/[^\p{L}']/gu, "");
    await expect.poll(async () => (await readTable(page, heatmapName("encoder"))).cols[0]).toBe(first);
    await expect(page.locator("#translation")).not.toHaveText("");
    await expect(page.getByRole("alert")).toBeHidden();
  }
  await shot(page, testInfo, "last-example");
  expectClean(watch);
});

test("a copied word is marked and explained", async ({ page, watch }, testInfo) => {
  // Fails until the committed model writes <unk> for an unknown word (translator version 2).
  await openApp(page, "?debug");
  await page.getByRole("group", { name: "Try these" }).getByRole("button", { name: /^unknown word copied: / }).click();
  const sentence = "Zorblat ate my sandwich.";
  await expect(page.getByRole("textbox", BOX)).toHaveValue(sentence);
  await expect.poll(async () => (await readTable(page, heatmapName("encoder"))).cols[0]).toBe("zorblat");
  // what the engine reports (the same Lab the page uses, same sentence and options)
  const copies = await page.evaluate(() =>
    window.attnscope.engine.translate().steps.flatMap((s, step) => (s.copy ? [{ step, word: s.copy.word, weight: s.copy.weight, source: s.copy.source }] : [])),
  );
  expect(copies.length, `the engine reports a copied word for "${sentence}" (the current model never writes <unk>)`).toBeGreaterThan(0);

  const marked = page.locator("#translation .copied");
  await expect(marked).toHaveCount(copies.length);
  const words = await page.evaluate(() => window.attnscope.engine.tokenize("Zorblat ate my sandwich.").tokens);
  for (let i = 0; i < copies.length; i++) {
    const c = copies[i];
    expect(words[c.source]).toBe(c.word);
    const tip = `copied from '${c.word}' by cross-attention, weight ${c.weight.toFixed(2)}`;
    const span = marked.nth(i);
    await expect(span).toHaveText(c.word);
    await expect(span).toHaveAccessibleDescription(tip);
    // keyboard focus shows the tooltip; so does hovering
    await span.focus();
    await expect(page.getByRole("tooltip")).toHaveText(tip);
    await page.keyboard.press("Escape");
    await expect(page.getByRole("tooltip")).toBeHidden();
    await span.hover();
    await expect(page.getByRole("tooltip")).toHaveText(tip);
  }
  await expect(page.locator("#translation")).toContainText(copies[0].word);
  await expect(page.locator("#translation-meta")).toContainText(`Copied from the source through cross-attention: “${copies[0].word}”`);
  await shot(page, testInfo, "copied");

  // the decoding panel marks the copy step
  const slider = page.getByRole("slider", { name: "Decoding step" });
  await slider.focus();
  for (let k = 0; k < copies[0].step; k++) await page.keyboard.press("ArrowRight");
  await expect(slider).toHaveValue(String(copies[0].step + 1));
  await expect(page.locator(".dec-prefix .chip-chosen.copied")).toContainText(copies[0].word);
  await expect(page.locator(".dec-copy")).toContainText(`copied from '${copies[0].word}' by cross-attention, weight ${copies[0].weight.toFixed(2)}`);
  await shot(page, testInfo, "copied-step");
  expectClean(watch);
});
