// Loading, the network, the URL state and accessibility basics.
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, urlState } from "./fixtures.js";

test("loads with no console error, no failed request and nothing from another origin", async ({ page, watch }, testInfo) => {
  const warnings = [];
  page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
  await openApp(page);
  const origin = new URL(page.url()).origin;
  // the seed sentence gives a non-empty translation
  await expect(page.getByRole("textbox", { name: "English sentence" })).toHaveValue("Emma hates games, but she's a great friend");
  await expect(page.locator("#translation")).not.toHaveText("");
  expect((await page.locator("#translation").textContent()).trim().length).toBeGreaterThan(0);
  // every panel has content
  const enc = await readTable(page, heatmapName("encoder"));
  expect(enc.cols).toEqual(["emma", "hates", "games", ",", "but", "she", "'s", "a", "great", "friend"]);
  await expect(page.getByRole("button", { name: /^Layer \d+, head \d+$/ }).first()).toBeVisible();
  await expect(page.getByRole("slider", { name: /W_Q cells/ })).toBeVisible();
  await expect(page.getByRole("slider", { name: "Decoding step" })).toBeVisible();
  await expect(page.getByRole("alert")).toBeHidden();
  // the screenshot once the fonts are in and the maps have painted a frame with them
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))));
  await shot(page, testInfo, "loaded");

  expect(watch.requests.length).toBeGreaterThan(3);
  for (const url of watch.requests) {
    if (url.startsWith("data:")) continue;
    expect(new URL(url).origin, url).toBe(origin);
  }
  expect(watch.requests.some((u) => u.endsWith("/models/en-ko.safetensors"))).toBe(true);
  // the model starts downloading from the HTML's preload link, before the page's script runs,
  // and the script takes that download (as it takes the glue's module preload): no second
  // request, no warning about an unused preload
  const initiators = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType("resource").map((e) => [new URL(e.name).pathname, e.initiatorType])));
  expect(initiators["/models/en-ko.safetensors"]).toBe("link");
  for (const file of ["/models/en-ko.safetensors", "/pkg/attnscope.js"]) expect(watch.requests.filter((u) => u.endsWith(file)), file).toHaveLength(1);
  expect(warnings.filter((w) => /preload/i.test(w))).toEqual([]);
  // Chromium runs relaxed SIMD, so the page loads that build of the engine (and only that one)
  expect(watch.requests.filter((u) => /\/pkg\/attnscope\w*\.wasm$/.test(u)).map((u) => new URL(u).pathname)).toEqual(["/pkg/attnscope_relaxed_bg.wasm"]);
  expectClean(watch);
});

test("a browser without relaxed SIMD loads the simd128 build, and both builds show the same translation and weights", async ({ page, watch }) => {
  const view = async () => ({
    translation: (await page.locator("#translation").textContent()).trim(),
    encoder: (await readTable(page, heatmapName("encoder"))).values,
  });
  await openApp(page, "?stack=encoder");
  const relaxed = await view();
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  relaxed.cross = (await readTable(page, heatmapName("decoder_cross"))).values;
  // what a browser without relaxed SIMD answers (www/js/runtime.js asks WebAssembly.validate)
  await page.addInitScript(() => {
    WebAssembly.validate = () => false;
  });
  const before = watch.requests.length;
  await openApp(page, "?stack=encoder");
  const wasm = watch.requests.slice(before).filter((u) => /\.wasm$/.test(u)).map((u) => new URL(u).pathname);
  expect(wasm).toEqual(["/pkg/attnscope_bg.wasm"]);
  const plain = await view();
  await page.getByRole("radio", { name: "Cross-attention" }).check();
  plain.cross = (await readTable(page, heatmapName("decoder_cross"))).values;
  // each file is the build it is named for (scripts/build-wasm.sh): the engine says which SIMD it was built with
  const simd = await page.evaluate(async () => {
    const model = new Uint8Array(await (await fetch("/models/en-ko.safetensors")).arrayBuffer());
    const out = {};
    for (const [name, file] of [["relaxed", "attnscope_relaxed_bg.wasm"], ["plain", "attnscope_bg.wasm"]]) {
      const glue = await import(`/pkg/attnscope.js?probe=${name}`); // a fresh copy of the glue
      await glue.default({ module_or_path: `/pkg/${file}` });
      out[name] = new glue.Lab(model).info().simd;
    }
    return out;
  });
  expect(simd).toEqual({ relaxed: "relaxed-simd", plain: "simd128" });
  expect(plain.translation).toEqual(relaxed.translation);
  expect(plain.translation.length).toBeGreaterThan(0);
  for (const k of ["encoder", "cross"]) {
    const a = plain[k].flat();
    const b = relaxed[k].flat();
    expect(a.length).toBeGreaterThan(0);
    expect(a.length).toEqual(b.length);
    // the tables print 7 significant digits; fused multiply-adds move the weights by far less
    expect(Math.max(...a.map((v, i) => Math.abs(v - b[i])))).toBeLessThanOrEqual(1e-5);
  }
  expectClean(watch);
});

test("every control has a visible label and a role, and the page state lives in the URL", async ({ page, watch }, testInfo) => {
  await openApp(page, "?stack=decoder_cross&layer=2&head=3&scale=0&show=scores");
  await expect(page.getByRole("radio", { name: "Cross-attention" })).toBeChecked();
  await expect(page.getByRole("combobox", { name: "Layer", exact: true })).toHaveValue("1"); // 0-based value, shown as 2
  await expect(page.getByRole("combobox", { name: "Layer", exact: true }).locator("option:checked")).toHaveText("2");
  await expect(page.getByRole("combobox", { name: "Head", exact: true }).locator("option:checked")).toHaveText("3");
  await expect(page.getByRole("checkbox", { name: "Divide scores by √d_k" })).not.toBeChecked();
  await expect(page.getByRole("table", { name: heatmapName("decoder_cross", 2, 3), exact: true })).toHaveCount(1);

  for (const name of ["Causal mask in the decoder", "Causal mask in the encoder too", "Divide scores by √d_k", "Positional encoding", "Show heatmaps as tables"]) {
    await expect(page.getByRole("checkbox", { name, exact: true })).toBeVisible();
  }
  for (const name of ["Number of heads", "Layer", "Head", "Colour by", "Query word"]) {
    await expect(page.getByRole("combobox", { name, exact: true })).toBeVisible();
  }
  await expect(page.getByRole("textbox", { name: "English sentence" })).toBeVisible();
  await expect(page.getByRole("slider", { name: "Decoding step" })).toBeVisible();
  await expect(page.getByRole("slider", { name: /^W_K cells/ })).toBeVisible();

  // a change is written back to the query string (1-based)
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ label: "2" });
  await expect.poll(() => urlState(page.url()).get("head")).toBe("2");
  await page.getByRole("checkbox", { name: "Divide scores by √d_k" }).check();
  await expect.poll(() => urlState(page.url()).get("scale")).toBe(null);
  await page.getByRole("checkbox", { name: "Causal mask in the decoder" }).uncheck();
  await expect.poll(() => urlState(page.url()).get("mask")).toBe("0");

  // keyboard: the heatmap takes focus and arrow keys move the query row
  await page.locator("#heatmap-main canvas").focus();
  await page.keyboard.press("ArrowUp");
  await expect(page.locator("#heatmap-main .heatmap-readout")).toContainText("weight");
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  await expect(page.getByRole("table", { name: heatmapName("decoder_cross", 2, 2), exact: true })).toBeVisible();
  await shot(page, testInfo, "url-state-tables");
  expectClean(watch);
});

test("a panic inside the engine shows a banner and the next input restarts it", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug");
  // make the next engine call fail the way a wasm panic does
  await page.evaluate(() => {
    const lab = window.attnscope.engine.lab;
    lab.translate = () => {
      throw new WebAssembly.RuntimeError("unreachable");
    };
  });
  const box = page.getByRole("textbox", { name: "English sentence" });
  await box.fill("Emma hates games");
  await box.press("Enter");
  await expect(page.getByRole("alert")).toBeVisible();
  await expect(page.getByRole("alert")).toContainText("internal error (unreachable)");
  await shot(page, testInfo, "panic-banner");
  expect(await page.evaluate(() => window.attnscope.engine.broken)).toBe(true);
  // the page still works: the next input brings up a fresh instance
  await box.fill("she is a great friend");
  await box.press("Enter");
  await expect(page.locator("#tokens")).toContainText("friend");
  await expect.poll(() => page.evaluate(() => window.attnscope.engine.broken)).toBe(false);
  await expect(page.getByRole("alert")).toBeHidden();
  const enc = await readTable(page, heatmapName("encoder"));
  expect(enc.cols).toEqual(["she", "is", "a", "great", "friend"]);
  expect(watch.pageErrors).toEqual([]);
});
