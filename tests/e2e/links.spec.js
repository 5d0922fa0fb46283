// Links: the lab keeps its state in the URL's fragment, which no browser sends to the host, so a
// link carrying every W_Q/W_K block edited still opens (as a query string it is refused with
// "414 Request-URI Too Long"), and older ?-form links keep working.
import { test, expect, openApp, viewOf, urlState } from "./fixtures.js";

test("a link with every W_Q/W_K block of every head edited opens the same view from the server", async ({ page, browser }) => {
  await openApp(page, "?debug=1");
  const blocks = await page.evaluate(async () => {
    const { engine, session } = window.attnscope;
    const info = engine.info;
    const dk = info.dModel / info.nhead;
    let n = 0;
    let seed = 1;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.8;
    for (const stack of ["encoder", "decoder_self", "decoder_cross"]) {
      const layers = stack === "encoder" ? info.encoderLayers : info.decoderLayers;
      for (let l = 0; l < layers; l++)
        for (let h = 0; h < info.nhead; h++)
          for (const m of ["q", "k"]) {
            engine.setBlock(stack, l, h, m, Float32Array.from({ length: dk * info.dModel }, rand));
            n += 1;
          }
    }
    await session.retranslate({ keepStep: true });
    return n;
  });
  await expect(page.getByText(`Edited blocks in force: ${blocks}`)).toBeVisible();
  await expect.poll(() => (urlState(page.url()).get("qk") ?? "").length, { timeout: 10_000 }).toBeGreaterThan(100_000);
  const url = page.url();
  const translation = await page.locator("#translation").textContent();
  expect(new URL(url).search).toBe("?debug=1"); // the view is all in the fragment
  expect(url.length).toBeLessThan(2_000_000); // what a browser keeps of a URL
  test.info().annotations.push({ type: "link length", description: `${url.length} characters, ${blocks} blocks` });

  // the same state as a query string is refused by the server before the page loads
  const asQuery = new URL(url);
  asQuery.search = `?${new URL(url).hash.slice(1)}`;
  asQuery.hash = "";
  expect((await page.request.get(asQuery.href)).status()).toBe(414);

  // as a fragment it opens, in a fresh page, with every edit in force
  const fresh = await browser.newPage();
  await openApp(fresh, viewOf(url));
  await expect(fresh.getByText(`Edited blocks in force: ${blocks}`)).toBeVisible();
  await expect(fresh.locator("#translation")).toHaveText(translation);
  await expect(fresh.locator("#notice-link")).toBeHidden();
  await fresh.close();
});

test("an old ?-form link opens the same view, and the address bar moves it to the fragment", async ({ page }) => {
  await openApp(page, "?s=my+friend+lives+in+seoul&stack=decoder_cross&layer=2&head=3");
  await expect(page.getByRole("table", { name: "cross-attention weights, layer 2, head 3", exact: true })).toHaveCount(1);
  await expect.poll(() => new URL(page.url()).hash).toContain("stack=decoder_cross");
  expect(new URL(page.url()).search).toBe("");
  expect(urlState(page.url()).get("s")).toBe("my friend lives in seoul");
});
