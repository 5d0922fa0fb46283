// Hostile, empty, long, emoji and mixed-script input: a visible message, never a blank page.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, typeSentence } from "./fixtures.js";

async function expectWorking(page, sentence = "she is a great friend") {
  await typeSentence(page, sentence);
  const enc = await readTable(page, heatmapName("encoder"));
  expect(enc.cols.join(" ")).toBe(sentence);
  expect((await page.locator("#translation").textContent()).trim().length).toBeGreaterThan(0);
}

test("markup typed as a sentence is shown as text and runs nothing", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const before = await page.locator("#translation").textContent();
  const payload = "<img src=x onerror=alert(1)>";
  await typeSentence(page, payload);
  await expect(page.locator("#tokens")).toContainText("onerror");
  await expect(page.locator("#tokens .chip").first()).toHaveText("<");
  const enc = await readTable(page, heatmapName("encoder"));
  expect(enc.cols).toEqual(["<", "img", "src", "=", "x", "onerror", "=", "alert", "(", "1", ")", ">"]);
  await expect(page.getByRole("textbox", { name: "English sentence" })).toHaveValue(payload);
  // the payload has gone through everything: its translation is on screen
  await expect(page.locator("#translation")).not.toHaveText(before);
  await expect(page.locator("#translation")).not.toBeEmpty();
  await expect(page.locator("img")).toHaveCount(0);
  expect(watch.dialogs).toEqual([]);
  await shot(page, testInfo, "markup-as-text");
  // and through the URL too
  await page.goto(`/?s=${encodeURIComponent('<script>alert(2)</script><img src=x onerror=alert(3)>')}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1");
  await expect(page.locator("#tokens")).toContainText("script");
  await expect(page.locator("img")).toHaveCount(0);
  expect(await page.locator("script").count()).toBe(1);
  expectClean(watch);
});

test("empty input gives a message and the page keeps working", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await typeSentence(page, "   ");
  await expect(page.getByText("The box is empty: type an English sentence.")).toBeVisible();
  await expect(page.locator("#translation")).not.toHaveText("");
  await shot(page, testInfo, "empty");
  await expectWorking(page);
  await expect(page.getByText("The box is empty")).toBeHidden();
  expectClean(watch);
});

test("a 200-word sentence is truncated with a notice", async ({ page, watch }, testInfo) => {
  await openApp(page);
  const words = Array.from({ length: 200 }, (_, i) => ["emma", "likes", "the", "small", "dog", "and"][i % 6]).join(" ");
  await typeSentence(page, words);
  const notice = page.getByText(/longer than the model's limit of \d+ tokens/);
  await expect(notice).toBeVisible();
  const max = Number((await notice.textContent()).match(/limit of (\d+) tokens/)[1]);
  const enc = await readTable(page, heatmapName("encoder"));
  expect(enc.cols).toHaveLength(max);
  await expect(page.locator(".chip-dropped")).toHaveText(`+${200 - max} not read`);
  await shot(page, testInfo, "truncated");
  await expectWorking(page);
  await expect(notice).toBeHidden();
  expectClean(watch);
});

test("emoji and mixed-script input name the unknown words", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await typeSentence(page, "Emma likes 🍕 and 🎮");
  const unknown = page.getByText(/Not in the model's vocabulary/);
  await expect(unknown).toBeVisible();
  await expect(unknown).toContainText("🍕");
  await expect(unknown).toContainText("🎮");
  await expect(page.locator("#tokens .chip-unknown")).toHaveCount(2);
  await shot(page, testInfo, "emoji");
  await typeSentence(page, "Emma 좋아해요 games");
  await expect(unknown).toContainText("좋아해요");
  await typeSentence(page, "Emma zzqxv games");
  await expect(unknown).toContainText("zzqxv");
  await expectWorking(page);
  await expect(unknown).toBeHidden();
  expectClean(watch);
});
