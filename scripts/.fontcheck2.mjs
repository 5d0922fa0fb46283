import { chromium } from "@playwright/test";
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 200 } });
await page.addInitScript(() => {
  window.__log = [];
  document.fonts.addEventListener("loading", () => window.__log.push(["loading", performance.now()]));
  document.fonts.addEventListener("loadingdone", (e) => window.__log.push(["done", performance.now(), e.fontfaces.map((f) => f.family)]));
  new MutationObserver(() => { const b = document.querySelector('.lang-btn[lang="ko"]'); if (b && b.textContent && !window.__set) { window.__set = performance.now(); window.__log.push(["text", performance.now()]); } }).observe(document, { subtree: true, childList: true, characterData: true });
});
await page.goto(process.argv[2]);
await page.waitForTimeout(3000);
console.log(JSON.stringify(await page.evaluate(() => window.__log)));
await browser.close();
