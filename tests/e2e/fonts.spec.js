// Korean type without a Korean font (issue 12): the site ships a subset of Noto Sans KR
// (www/fonts/, made by scripts/korean-font.py) holding every Korean character it can show, the
// pages use it where the system has no Korean font, and SVG downloads carry it.
import fs from "node:fs";
import * as fontkit from "fontkit";
import { test, expect, openApp, heatmapName } from "./fixtures.js";
import { koreanChars } from "../../scripts/korean-chars.mjs";

const FONT = "www/fonts/noto-sans-kr-400.woff2";

test("the font holds every Korean character of the model's vocabulary and of the Korean text, in under 150 KB", () => {
  const font = fontkit.openSync(FONT);
  const missing = [...koreanChars()].filter((c) => !font.hasGlyphForCodePoint(c.codePointAt(0)));
  expect(missing.join(""), "run python3 scripts/korean-font.py").toBe("");
  expect(fs.statSync(FONT).size).toBeLessThan(150 * 1024);
  expect(fs.readFileSync("www/fonts/OFL.txt", "utf8")).toContain("SIL Open Font License");
});

test("Korean text is drawn with the site's font: a map's Korean labels have its glyphs' advances, not the boxes of a missing font", async ({ page }) => {
  const font = fontkit.openSync(FONT);
  // every Hangul-only label a canvas draws, measured as drawn: its text, the context's font, its
  // width, and whether the page's Korean font had loaded by then
  await page.addInitScript(() => {
    window.__labels = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      if (/^[\uac00-\ud7a3]+$/u.test(text)) {
        const loaded = [...document.fonts].some((f) => f.family.includes("attnscope Korean") && f.status === "loaded");
        window.__labels.push({ text, font: this.font, width: this.measureText(text).width, loaded });
      }
      return fill.call(this, text, ...rest);
    };
  });
  await openApp(page, "?lang=ko#stack=decoder_cross&layer=2&head=1"); // the map's rows are Korean tokens
  // once the page's Korean font has loaded, the map draws (or draws again) its labels
  await expect.poll(() => page.evaluate(() => window.__labels.filter((l) => l.loaded).length), { timeout: 30_000 }).toBeGreaterThan(0);
  const labels = await page.evaluate(() => window.__labels.filter((l) => l.loaded));
  for (const l of labels) {
    const px = Number(/(\d+(?:\.\d+)?)px/.exec(l.font)?.[1]);
    expect(px, l.font).toBeGreaterThan(0);
    const want = [...l.text].reduce((w, c) => w + font.glyphForCodePoint(c.codePointAt(0)).advanceWidth, 0) * (px / font.unitsPerEm);
    // every glyph has the advance the font gives it: the browser drew this font, not a fallback
    expect(Math.abs(l.width - want), `${l.text} in ${l.font}: ${l.width} px, the font's advances ${want} px`).toBeLessThan(0.5);
  }
});

test("Korean words on English pages are drawn with glyphs, not the boxes of a font without Hangul", async ({ page }) => {
  // the language switch's 한국어 on each page: its width as laid out equals the width of the
  // same text in the element's own font list as a canvas resolves it (Hangul from a Korean font)
  for (const url of ["/", "/lesson.html", "/train.html"]) {
    await page.goto(url);
    const b = page.locator('.lang-btn[lang="ko"]');
    await expect(b).toHaveText("한국어");
    await page.evaluate(() => document.fonts.ready);
    const w = await b.evaluate((e) => {
      const r = document.createRange();
      r.selectNodeContents(e);
      const style = getComputedStyle(e);
      const g = document.createElement("canvas").getContext("2d");
      g.font = `${style.fontSize} ${style.fontFamily}`;
      return { laidOut: r.getBoundingClientRect().width, drawn: g.measureText(e.textContent).width };
    });
    expect(Math.abs(w.laidOut - w.drawn), `${url}: ${JSON.stringify(w)}`).toBeLessThan(1);
  }
});

test("an SVG download with Korean labels carries the Korean font", async ({ page }) => {
  await openApp(page, "#stack=decoder_cross&layer=2&head=1");
  await expect(page.getByRole("table", { name: heatmapName("decoder_cross", 2, 1), exact: true })).toHaveCount(1);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the map as SVG", exact: true }).click()]);
  const svg = fs.readFileSync(await dl.path(), "utf8");
  expect(svg).toMatch(/@font-face\{font-family:"attnscope Korean";src:url\(data:font\/woff2;base64,[A-Za-z0-9+/=]{1000,}\)/);
  expect(svg).toMatch(/[\uac00-\ud7a3]/u);
});

test("maps that drew their Korean labels before the page's Korean font arrived draw them again when it does", async ({ page }) => {
  // this machine has no Korean font before the page's own in the font list: the maps ask for it
  let release;
  const held = new Promise((r) => (release = r));
  await page.route("**/fonts/noto-sans-kr-400.woff2", async (route) => {
    await held;
    await route.continue();
  });
  await page.addInitScript(() => {
    window.__hangul = []; // when a canvas drew Hangul
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      if (/[\uac00-\ud7a3]/u.test(text)) window.__hangul.push(performance.now());
      return fill.call(this, text, ...rest);
    };
  });
  // (the load event waits for the font: no openApp)
  await page.goto("/#stack=decoder_cross&layer=2&head=1", { waitUntil: "domcontentloaded" }); // the map's rows are Korean tokens
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect.poll(() => page.evaluate(() => window.__hangul.length)).toBeGreaterThan(0);
  const korean = () => page.evaluate(() => [...document.fonts].find((f) => f.family.includes("attnscope Korean"))?.status);
  expect(await korean()).toBe("loading"); // held back: the labels were drawn with a fallback
  const before = await page.evaluate(() => performance.now());
  // A fixed window on purpose: what is checked is that nothing happens while the font is held,
  // and no event marks "nothing happened"; a slow machine only makes this check easier to pass.
  await page.waitForTimeout(300);
  expect(await page.evaluate((t) => window.__hangul.filter((x) => x > t).length, before), "nothing redraws while it is held").toBe(0);
  release();
  await expect.poll(korean).toBe("loaded");
  await expect.poll(() => page.evaluate((t) => window.__hangul.filter((x) => x > t).length, before)).toBeGreaterThan(0);
});

test("where a font named before the page's own has Hangul, the page's Korean font is never fetched", async ({ page }) => {
  // stands for a system Korean font: a face called "Noto Sans KR" (ahead of the page's own font
  // in every font list), made from bytes, so that it is in before anything is drawn
  let fetched = 0;
  await page.route("**/fonts/noto-sans-kr-400.woff2", (route) => {
    fetched += 1;
    return route.continue();
  });
  await page.addInitScript((bytes) => {
    document.fonts.add(new FontFace("Noto Sans KR", new Uint8Array(bytes).buffer));
    window.__hangul = 0;
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      if (/[\uac00-\ud7a3]/u.test(text)) window.__hangul += 1;
      return fill.call(this, text, ...rest);
    };
  }, [...fs.readFileSync(FONT)]);
  await openApp(page, "#stack=decoder_cross&layer=2&head=1");
  await expect.poll(() => page.evaluate(() => window.__hangul)).toBeGreaterThan(0); // Korean labels drawn
  // drawing text starts the load of any font face it needs at once: once the frame is painted,
  // every load it asked for is in document.fonts, and fonts.ready waits for them
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate(() => document.fonts.ready.then(() => true));
  expect(await page.evaluate(() => [...document.fonts].find((f) => f.family.includes("attnscope Korean"))?.status)).toBe("unloaded");
  expect(fetched).toBe(0);
});
