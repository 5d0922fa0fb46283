// The Korean interface.
import { test, expect, openApp, shot, expectClean, urlState } from "./fixtures.js";
import { TABLES } from "../../www/js/i18n.js";
import { TERMS, AVOID_IN_LAB } from "../../www/js/glossary.js";

test("?lang=ko shows Korean labels, and the switch goes back to English", async ({ page, watch }, testInfo) => {
  await openApp(page, "?lang=ko");
  await expect(page.locator("html")).toHaveAttribute("lang", "ko");
  await expect(page.getByRole("textbox", { name: "영어 문장" })).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "디코더 인과 마스크" })).toBeChecked();
  await expect(page.getByRole("checkbox", { name: "점수를 √d_k로 나누기" })).toBeChecked();
  await expect(page.getByRole("combobox", { name: "헤드 수" })).toBeVisible();
  await expect(page.getByRole("slider", { name: "디코딩 단계" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "셀프 어텐션은 가중평균이다" })).toBeVisible();
  await expect(page.getByRole("table", { name: "인코더 셀프 어텐션 가중치, 1층 1번 헤드", exact: true })).toHaveCount(1);
  await expect(page.getByRole("button", { name: "1층 2번 헤드", exact: true })).toBeVisible();
  await shot(page, testInfo, "korean");

  await page.getByRole("button", { name: "English" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("textbox", { name: "English sentence" })).toBeVisible();
  await expect(page.getByRole("table", { name: "encoder self-attention weights, layer 1, head 1", exact: true })).toHaveCount(1);
  await expect.poll(() => urlState(page.url()).get("lang")).toBe("en");
  expectClean(watch);
});

test("the browser language picks Korean when no ?lang is given", async ({ browser }) => {
  const context = await browser.newContext({ locale: "ko-KR" });
  const page = await context.newPage();
  if (process.env.ATTNSCOPE_MODEL) {
    const fs = await import("node:fs");
    const body = fs.readFileSync(process.env.ATTNSCOPE_MODEL);
    await page.route("**/models/en-ko.safetensors", (r) => r.fulfill({ body, contentType: "application/octet-stream" }));
  }
  await openApp(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "ko");
  await expect(page.getByRole("heading", { name: "어텐션: 누가 누구를 보는가" })).toBeVisible();
  await context.close();
});

test("item 10: the Korean lab calls a map 지도 (the glossary's word) everywhere, never 히트맵", async ({ page, watch }) => {
  expect(TERMS.map).toBe("지도");
  expect(AVOID_IN_LAB).toContain("히트맵");
  for (const [key, value] of Object.entries(TABLES.ko)) for (const bad of AVOID_IN_LAB) expect(value, `ko ${key} uses “${bad}”`).not.toContain(bad);
  // the names a reader meets: the tables switch, the embeddable panels
  expect(TABLES.ko["opt.tables"]).toBe(`${TERMS.map}를 표로 보기`);
  expect(TABLES.ko["panel.heatmap"]).toBe(`어텐션 ${TERMS.map}`);
  expect(TABLES.ko["panel.qk"]).toBe(`W_Q/W_K 편집기와 ${TERMS.map}`);
  await openApp(page, "?lang=ko");
  await expect(page.getByRole("checkbox", { name: "지도를 표로 보기" })).toBeVisible();
  await expect(page.locator("body")).not.toContainText("히트맵");
  await page.getByRole("button", { name: TABLES.ko["share.embed"] }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("combobox").first().locator("option", { hasText: "어텐션 지도" })).toHaveCount(1);
  await expect(dialog).not.toContainText("히트맵");
  expectClean(watch);
});
