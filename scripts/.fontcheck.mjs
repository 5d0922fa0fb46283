import { chromium } from "@playwright/test";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 200 } });
await page.goto(process.argv[2]);
await page.waitForTimeout(3000);
console.log(await page.evaluate(() => {
  const b = document.querySelector('.lang-btn[lang="ko"]');
  const c = document.createElement("canvas").getContext("2d");
  const w = (f) => { c.font = f; return c.measureText("한국어").width; };
  return { btnWidth: b.getBoundingClientRect().width, sys: w('15px system-ui'), ours: w('15px "attnscope Korean"'), stack: w(`15px ${getComputedStyle(b).fontFamily}`), tofu: w('15px sans-serif') };
}));
await page.evaluate(() => { const b = document.querySelector('.lang-btn[lang="ko"]');  });
await page.waitForTimeout(500);
await page.screenshot({ path: `/tmp/head2.png` });
await browser.close();
