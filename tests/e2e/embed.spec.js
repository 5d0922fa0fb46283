// Embedding: the course-notes example (a sandboxed iframe and two <attnscope-panel> elements),
// embed mode in a sandboxed iframe, permalinks that carry W_Q/W_K edits, and the lab's
// "Embed this" snippets pasted into a page of their own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, cellPoint, urlState, viewOf, filled, watchRetranslations, editsSettled } from "./fixtures.js";

// The pages made up below are served by page.route, which a service worker (the built site
// registers one, see offline.spec.js) would bypass: none here.
test.use({ serviceWorkers: "block" });

// the server's policy (scripts/serve.py), for the pages the tests make up
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; frame-ancestors * file:";

/** Serve `files` ({"/examples/x.html": body}) from the site's origin, under its CSP. */
async function serveFiles(page, files) {
  for (const [path, body] of Object.entries(files)) {
    const contentType = path.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8";
    await page.route(`**${path}`, (r) => r.fulfill({ status: 200, contentType, headers: { "Content-Security-Policy": CSP }, body }));
  }
}

// a host page's script: records what embedded panels post
const RECORDER = `window.__posts = [];
addEventListener("message", (e) => window.__posts.push({ data: e.data, fromFrame: e.source === document.querySelector("iframe")?.contentWindow }));`;

const numbers = (t) => t.values.flat();

test("the course-notes page: three live panels, no console error, the two elements independent", async ({ page, watch }, testInfo) => {
  await page.goto("/examples/course-notes.html");
  // 1. the sandboxed iframe (embed mode): the heatmap's accessible table has numbers
  const frame = page.frameLocator("iframe.panel-frame");
  await expect(frame.getByRole("table", { name: heatmapName("encoder", 2, 1), exact: true })).toHaveCount(1, { timeout: 30_000 });
  const framed = await readTable(frame, heatmapName("encoder", 2, 1));
  expect(framed.cols).toEqual(["emma", "hates", "games", ",", "but", "she", "'s", "a", "great", "friend"]);
  expect(numbers(framed).every(Number.isFinite)).toBe(true);
  expect(numbers(framed).some((v) => v > 0)).toBe(true);
  // it really is sandboxed: an opaque origin
  const inner = page.frames().find((f) => f.url().includes("embed=1"));
  expect(await inner.evaluate(() => self.origin)).toBe("null");
  // and it grew to its content (course-notes.js listens to attnscope:size)
  await expect.poll(() => page.locator("iframe.panel-frame").evaluate((f) => f.style.height)).toMatch(/^\d+px$/);
  const contentH = await inner.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  await expect.poll(() => page.locator("iframe.panel-frame").evaluate((f) => Math.round(f.getBoundingClientRect().height))).toBe(contentH);

  // 2. the English element (W_Q/W_K editor), through its shadow DOM
  const qk = page.locator("#panel-qk");
  await expect(qk.getByRole("table", { name: heatmapName("encoder", 1, 2), exact: true })).toHaveCount(1, { timeout: 30_000 });
  const qkTable = await readTable(qk, heatmapName("encoder", 1, 2));
  expect(qkTable.cols).toEqual(["she", "is", "a", "great", "friend"]);
  expect(numbers(qkTable).every(Number.isFinite)).toBe(true);
  await expect(qk.getByRole("slider", { name: /^W_Q cells of encoder self-attention, layer 1, head 2/ })).toBeVisible();
  expect(await qk.evaluate((e) => e.shadowRoot !== null)).toBe(true);

  // 3. the Korean element (decoding), through its shadow DOM
  const dec = page.locator("#panel-decoding");
  await expect(dec.getByRole("slider", { name: "디코딩 단계" })).toBeVisible({ timeout: 30_000 });
  await expect(dec.getByRole("combobox", { name: "헤드", exact: true })).toHaveValue("0");
  const decTable = await (await filled(dec.getByRole("table"))).evaluate((t) => ({
    cols: [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent),
    rows: [...t.tBodies[0].rows].map((r) => r.cells[0].textContent),
    values: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.textContent))),
  }));
  expect(decTable.cols).toEqual(["the", "sister", "carried", "the", "brother"]);
  expect(decTable.rows[0]).toBe("헤드 1");
  expect(decTable.values.flat().every(Number.isFinite)).toBe(true);
  await expect(dec.getByText("다음 토큰 후보 상위 5개")).toBeVisible();
  await shot(page, testInfo, "course-notes");

  // the two elements do not interfere: the English one's head changes, the Korean one's stays
  const decBefore = await (await filled(dec.getByRole("table"))).evaluate((t) => t.outerHTML);
  await qk.getByRole("combobox", { name: "Head", exact: true }).selectOption({ label: "3" });
  await expect(qk.getByRole("table", { name: heatmapName("encoder", 1, 3), exact: true })).toHaveCount(1);
  await expect(qk.getByRole("slider", { name: /^W_Q cells of encoder self-attention, layer 1, head 3/ })).toBeVisible();
  await expect(dec.getByRole("combobox", { name: "헤드", exact: true })).toHaveValue("0");
  expect(await (await filled(dec.getByRole("table"))).evaluate((t) => t.outerHTML)).toBe(decBefore);
  // an edit in one element's engine (keyboard, inside its shadow root) leaves the other alone
  const head3 = await readTable(qk, heatmapName("encoder", 1, 3));
  const wk = qk.getByRole("slider", { name: /^W_K cells of encoder self-attention, layer 1, head 3/ });
  await wk.focus();
  for (let i = 0; i < 8; i++) await page.keyboard.press("ArrowUp");
  await expect(wk).toHaveAttribute("aria-valuetext", /^row 1 of \d+, column 1 of \d+/);
  await expect.poll(async () => (await readTable(qk, heatmapName("encoder", 1, 3))).text).not.toEqual(head3.text);
  await expect(qk.getByRole("status").filter({ hasText: "Edited blocks in force: 1" })).toBeVisible();
  expect(await (await filled(dec.getByRole("table"))).evaluate((t) => t.outerHTML)).toBe(decBefore);
  await qk.getByRole("button", { name: "Identity (W_Q = W_K = I)" }).click();
  await expect(qk.getByRole("status").filter({ hasText: "Edited blocks in force: 2" })).toBeVisible();
  expect(await (await filled(dec.getByRole("table"))).evaluate((t) => t.outerHTML)).toBe(decBefore);
  // and the other way round, through an attribute: the Korean one follows, the English one stays
  const qkBefore = await readTable(qk, heatmapName("encoder", 1, 3));
  await dec.evaluate((e) => e.setAttribute("head", "3"));
  await expect(dec.getByRole("combobox", { name: "헤드", exact: true })).toHaveValue("2");
  await expect(qk.getByRole("combobox", { name: "Head", exact: true })).toHaveValue("2"); // still head 3 (0-based 2)
  expect(await readTable(qk, heatmapName("encoder", 1, 3))).toEqual(qkBefore);
  // an attribute that changes the sentence re-runs that element only
  await qk.evaluate((e) => e.setAttribute("sentence", "the brother is a great friend"));
  await expect.poll(async () => (await readTable(qk, heatmapName("encoder", 1, 3))).cols).toEqual(["the", "brother", "is", "a", "great", "friend"]);
  await expect(dec.getByRole("table")).toContainText("sister");
  // the Korean element speaks Korean, the English one English (one page, two languages)
  await expect(dec.getByText("한 단계씩 디코딩하기")).toBeVisible();
  await expect(qk.getByText("Reset all edits")).toBeVisible();
  expectClean(watch);
});

test("embed mode in a sandboxed iframe shows only the chosen panel and controls, and posts its size", async ({ page, watch }, testInfo) => {
  await serveFiles(page, {
    "/examples/__embed-host.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><script src="__recorder.js"></script></head>
<body><h1>Host page</h1><iframe sandbox="allow-scripts" width="900" height="500" title="attnscope"
 src="../index.html?embed=1&amp;panel=weighted&amp;controls=mask,scale,heads&amp;stack=decoder_cross&amp;layer=2&amp;head=3&amp;qk=not-an-edit"></iframe></body></html>`,
    "/examples/__recorder.js": RECORDER,
  });
  await page.goto("/examples/__embed-host.html");
  const frame = page.frameLocator("iframe");
  const avg = frame.getByRole("table", { name: /^Weighted average for/ });
  await expect(avg).toHaveCount(1, { timeout: 30_000 });
  await expect(frame.locator("body")).toHaveAttribute("data-ready", "1");
  await expect(frame.getByRole("heading", { name: "cross-attention weights, layer 2, head 3" })).toBeVisible();
  // the chosen controls, and only those
  for (const name of ["Causal mask in the decoder", "Divide scores by √d_k"]) await expect(frame.getByRole("checkbox", { name, exact: true })).toBeVisible();
  await expect(frame.getByRole("combobox", { name: "Number of heads" })).toBeVisible();
  await expect(frame.getByRole("checkbox")).toHaveCount(2);
  for (const name of ["Layer", "Head", "Colour by", "Which attention"]) await expect(frame.getByRole("combobox", { name, exact: true })).toHaveCount(0);
  await expect(frame.getByRole("textbox")).toHaveCount(0);
  // the weighted-average panel alone: no heatmap, no editor, no decoding, none of the lab's chrome
  await expect(frame.getByRole("slider")).toHaveCount(0);
  await expect(frame.locator(".heatmap-canvas")).toHaveCount(0);
  await expect(frame.getByRole("button", { name: "Copy link" })).toHaveCount(0);
  await expect(frame.getByText("Sentence in, translation out")).toHaveCount(0);
  await expect(frame.getByRole("combobox", { name: "Query word" })).toBeVisible();
  // the malformed edit parameter: a notice, and the panel works
  await expect(frame.getByText(/Some W_Q\/W_K edits in this link could not be read and were ignored \(blocks ignored: 1\)/)).toBeVisible();
  // it is sandboxed (opaque origin), and a control still works there
  const inner = page.frames().find((f) => f.url().includes("embed=1"));
  expect(await inner.evaluate(() => self.origin)).toBe("null");
  const before = await (await filled(avg)).evaluate((t) => t.tBodies[0].textContent);
  await frame.getByRole("checkbox", { name: "Divide scores by √d_k" }).uncheck();
  await expect.poll(() => avg.evaluate((t) => t.tBodies[0].textContent)).not.toBe(before);
  // size messages: from the iframe, matching its document's height
  const contentH = await inner.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
  await expect.poll(() => page.evaluate(() => window.__posts.filter((p) => p.fromFrame && p.data?.type === "attnscope:size").at(-1)?.data.height)).toBe(contentH);
  expect(contentH).toBeGreaterThan(200);
  // the posted height, applied by the host, fits the panel exactly
  await page.locator("iframe").evaluate((f, h) => {
    f.style.height = `${h}px`;
  }, contentH);
  // (the iframe's layout follows the new height on its next frame: poll, don't race it)
  await expect.poll(() => inner.evaluate(() => document.documentElement.scrollHeight <= innerHeight)).toBe(true);
  await shot(page, testInfo, "embed-weighted");
  expectClean(watch);
});

test("embed mode screenshot: the Korean Q/K panel shows its map's table, the sentence box and the W_Q grid, with a clean console", async ({ page, watch }, testInfo) => {
  await page.goto("/index.html?embed=1&panel=qk&controls=sentence,layer,head,scale,export&layer=2&head=2&lang=ko");
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.getByRole("table", { name: "인코더 셀프 어텐션 가중치, 2층 2번 헤드", exact: true })).toHaveCount(1);
  await expect(page.getByRole("textbox", { name: "영어 문장" })).toBeVisible();
  await expect(page.getByRole("slider", { name: /W_Q 칸$/ })).toBeVisible();
  await shot(page, testInfo, "embed-qk-ko");
  expectClean(watch);
});

test("a permalink with W_Q/W_K edits reproduces the same weights after reload", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1&stack=decoder_cross&layer=2&head=2");
  await watchRetranslations(page);
  const name = heatmapName("decoder_cross", 2, 2);
  const original = await readTable(page, name);
  // a mouse drag (arbitrary float values) on W_Q ...
  const wq = page.getByRole("slider", { name: /^W_Q cells of cross-attention, layer 2, head 2/ });
  await wq.scrollIntoViewIfNeeded();
  const [, rows, cols] = (await page.locator(".qk-q .qk-title").textContent()).match(/(\d+) × (\d+)/).map(Number);
  const p = await cellPoint(wq, 3, 7, rows, cols);
  await page.mouse.move(p.x, p.y);
  await page.mouse.down();
  for (let i = 1; i <= 15; i++) await page.mouse.move(p.x, p.y - i * 7);
  await page.mouse.up();
  // ... and the keyboard on W_K
  const wk = page.getByRole("slider", { name: /^W_K cells of cross-attention, layer 2, head 2/ });
  await wk.focus();
  await page.keyboard.press("PageDown");
  for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowDown");
  await expect.poll(() => urlState(page.url()).get("qk") ?? "").toMatch(/^c\.2\.2\.k\..+\*c\.2\.2\.q\..+$/);
  await expect.poll(async () => (await readTable(page, name)).text).not.toEqual(original.text);
  await editsSettled(page); // the last key's end re-translates: wait for it
  const edited = await readTable(page, name);
  const translation = await page.locator("#translation").textContent();
  const url = page.url();
  expect(url.length).toBeLessThan(600); // only the changed cells travel
  // a fresh load of the link: the same weights, the same edits
  await page.goto("about:blank");
  await openApp(page, viewOf(url));
  expect((await readTable(page, name)).text).toEqual(edited.text);
  await expect(page.getByRole("status").filter({ hasText: "Edited blocks in force: 2" })).toBeVisible();
  await expect(page.locator("#translation")).toHaveText(translation);
  await expect(page.locator("#notice-link")).toBeHidden();

  // the identity preset travels as "I", next to the cross-attention edits
  await page.getByRole("radio", { name: "Encoder self-attention" }).check();
  await page.getByRole("button", { name: "Identity (W_Q = W_K = I)" }).click();
  // (the preset re-translates at once, and the URL is written in the same task as the maps)
  await expect.poll(() => urlState(page.url()).get("qk") ?? "").toMatch(/^c\.2\.2\.k\..+\*c\.2\.2\.q\..+\*e\.2\.2\.k\.I\*e\.2\.2\.q\.I$/);
  const encName = heatmapName("encoder", 2, 2);
  const identity = await readTable(page, encName);
  const url2 = page.url();
  await page.goto("about:blank");
  await openApp(page, viewOf(url2));
  expect((await readTable(page, encName)).text).toEqual(identity.text);
  await expect(page.getByRole("status").filter({ hasText: "Edited blocks in force: 4" })).toBeVisible();
  await shot(page, testInfo, "permalink-edits");
  expectClean(watch);
});

test("a malformed or hostile edit parameter is ignored with a notice; the rest of the link applies", async ({ page, watch }, testInfo) => {
  const hostile = encodeURIComponent('<img src=x onerror="window.__pwned=1">*e.1.1.q.99999.5*e.9.1.q.I*e.1.1.q.d!!!*e.1.1.k.0.1e999');
  await openApp(page, `?layer=2&head=3&qk=${hostile}*e.1.1.q.I`);
  const note = page.locator("#notice-link");
  await expect(note).toBeVisible();
  await expect(note).toHaveText("Some W_Q/W_K edits in this link could not be read and were ignored (blocks ignored: 5); the trained weights are used there. The rest of the link applies.");
  // the one good block is in force, the rest of the link too
  await expect(page.getByRole("status").filter({ hasText: "Edited blocks in force: 1" })).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Layer", exact: true })).toHaveValue("1");
  await expect(page.getByRole("combobox", { name: "Head", exact: true })).toHaveValue("2");
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  await expect(page.locator("img")).toHaveCount(0);
  // the page works: a new sentence translates, and the URL now holds only what is in force
  const box = page.getByRole("textbox", { name: "English sentence" });
  await box.fill("she is a great friend");
  await box.press("Enter");
  await expect.poll(async () => (await readTable(page, heatmapName("encoder", 2, 3))).cols).toEqual(["she", "is", "a", "great", "friend"]);
  await expect.poll(() => urlState(page.url()).get("qk")).toBe("e.1.1.q.I");
  await shot(page, testInfo, "bad-edits-notice");

  // nothing but garbage: the trained weights, a notice, no edits
  await page.goto("about:blank");
  await openApp(page, "?qk=%00%FF%3Cscript%3E");
  await expect(page.locator("#notice-link")).toBeVisible();
  await expect(page.getByText("No edits: trained weights")).toBeVisible();
  expect(watch.pageErrors).toEqual([]);
  expect(watch.dialogs).toEqual([]);
  expectClean(watch);
});

test("the Embed this dialog's snippets, pasted into a page of their own, render the same view", async ({ page, context, watch }, testInfo) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openApp(page, "?s=she+is+a+great+friend&layer=2&head=3&qk=e.2.3.q.I");
  const name = heatmapName("encoder", 2, 3);
  const lab = await readTable(page, name);
  await page.getByRole("button", { name: "Embed this" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("combobox", { name: "Panel" }).selectOption({ label: "W_Q/W_K editor and heatmap" });
  await dialog.getByRole("checkbox", { name: "Colour by" }).check();
  const iframeCode = await dialog.getByRole("textbox", { name: /^As an iframe/ }).inputValue();
  const elementCode = await dialog.getByRole("textbox", { name: /^As an element/ }).inputValue();
  expect(iframeCode).toMatch(/^<iframe sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox" src="[^"]+\/index\.html\?embed=1&amp;panel=qk&amp;controls=stack,layer,head,show#/);
  expect(iframeCode).toContain("qk=e.2.3.q.I");
  expect(elementCode).toContain('<attnscope-panel panel="qk" controls="stack,layer,head,show" sentence="she is a great friend"');
  expect(elementCode).toContain('layer="2" head="3"');
  // the copy buttons
  await dialog.getByRole("button", { name: "Copy the element snippet" }).click();
  await expect(dialog.getByRole("status").filter({ hasText: "Copied." })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(elementCode);
  await shot(page, testInfo, "embed-dialog");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();

  // a fresh page made of the two snippets (and the resize script, as a file of its own)
  const resize = await page.evaluate(() => document.getElementById("embed-resize").value);
  await serveFiles(page, {
    "/examples/__snippet.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>snippets</title><script src="__resize.js"></script></head><body>
<h1>Pasted</h1>
${iframeCode}
${elementCode}
</body></html>`,
    "/examples/__resize.js": resize,
  });
  await page.goto("/examples/__snippet.html");
  const frame = page.frameLocator("iframe");
  await expect(frame.getByRole("table", { name, exact: true })).toHaveCount(1, { timeout: 30_000 });
  expect((await readTable(frame, name)).text).toEqual(lab.text);
  const el = page.locator("attnscope-panel");
  await expect(el.getByRole("table", { name, exact: true })).toHaveCount(1, { timeout: 30_000 });
  expect((await readTable(el, name)).text).toEqual(lab.text);
  await expect(el.getByRole("combobox", { name: "Colour by" })).toBeVisible();
  await expect(frame.getByRole("combobox", { name: "Colour by" })).toBeVisible();
  // the resize script sized the iframe to its content
  await expect.poll(() => page.locator("iframe").evaluate((f) => f.style.height)).toMatch(/^\d+px$/);
  await shot(page, testInfo, "snippets-pasted");
  expectClean(watch);
});

test("item 10: an iframe embed has the element's “Open in the attnscope lab” link, which opens the lab on the same view in a new, unsandboxed tab", async ({ page, context, watch }) => {
  await openApp(page, "?s=she+is+a+great+friend&layer=2&head=3");
  const name = heatmapName("encoder", 2, 3);
  const lab = await readTable(page, name);
  await page.getByRole("button", { name: "Embed this" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  const iframeCode = await dialog.getByRole("textbox", { name: /^As an iframe/ }).inputValue();
  // the snippet lets the link open a tab, and the lab there run outside the sandbox
  expect(iframeCode).toContain('sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"');
  // the dialog's preview shows the link, as the iframe and the element do
  await expect(dialog.locator(".embed-preview").getByRole("link", { name: "Open in the attnscope lab ↗" })).toBeVisible({ timeout: 30_000 });
  await dialog.getByRole("button", { name: "Close" }).click();
  // pasted into a page, with a Korean iframe beside it
  const ko = iframeCode.replace("lang=en", "lang=ko").replace(/title="[^"]*"/, 'title="attnscope ko"');
  expect(ko).toContain("lang=ko");
  await serveFiles(page, { "/examples/__link.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>link</title></head><body><h1>Notes</h1>${iframeCode}${ko}</body></html>` });
  await page.goto("/examples/__link.html");
  const frame = page.frameLocator("iframe").first();
  await expect(frame.getByRole("table", { name, exact: true })).toHaveCount(1, { timeout: 30_000 });
  const link = frame.getByRole("link", { name: "Open in the attnscope lab ↗" });
  await expect(link).toBeVisible();
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", "noopener");
  await expect(page.frameLocator("iframe").nth(1).getByRole("link", { name: "attnscope 실험실에서 열기 ↗" })).toBeVisible({ timeout: 30_000 });
  const inner = page.frames().find((f) => f.url().includes("embed=1"));
  expect(await inner.evaluate(() => self.origin)).toBe("null"); // the embed is sandboxed
  // a click opens the lab in a new tab, on the embed's view, with an origin of its own
  const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
  await expect(tab.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  expect(await tab.evaluate(() => self.origin)).not.toBe("null");
  expect(await tab.evaluate(() => window.opener)).toBeNull();
  expect(new URL(tab.url()).searchParams.get("embed")).toBeNull();
  expect((await readTable(tab, name)).text).toEqual(lab.text);
  await tab.close();
  expectClean(watch);
});

test("the iframe snippet works in course notes opened from disk (file://): the server's CSP lets a file: page frame it", async ({ page }, testInfo) => {
  await openApp(page, "?s=she+is+a+great+friend&layer=2&head=3");
  const name = heatmapName("encoder", 2, 3);
  const lab = await readTable(page, name);
  await page.getByRole("button", { name: "Embed this" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  // the dialog says so
  await expect(dialog.getByText(/Both work in a page opened from your own disk \(file:\/\/\) too/)).toBeVisible();
  const code = await dialog.getByRole("textbox", { name: /^As an iframe/ }).inputValue();
  const origin = new URL(page.url()).origin;
  expect(code).toContain(` src="${origin}/index.html?embed=1`); // the test server's embed URL
  // a teacher's notes.html on disk, the snippet pasted as is
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "attnscope-notes-"));
  try {
    const file = path.join(dir, "notes.html");
    fs.writeFileSync(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>My notes</title></head><body><h1>Attention, week 3</h1>\n${code}\n</body></html>`);
    const blocked = [];
    page.on("console", (m) => m.type() === "error" && blocked.push(m.text()));
    await page.goto(pathToFileURL(file).href);
    expect(new URL(page.url()).protocol).toBe("file:");
    const frame = page.frameLocator("iframe");
    // the panel renders inside: its title, its map, and the same numbers as the lab
    await expect(frame.getByRole("heading", { name: "encoder self-attention weights, layer 2, head 3" })).toBeVisible({ timeout: 30_000 });
    await expect(frame.locator(".heatmap-canvas").first()).toBeVisible();
    await expect(frame.getByRole("table", { name, exact: true })).toHaveCount(1);
    expect((await readTable(frame, name)).text).toEqual(lab.text);
    const inner = page.frames().find((f) => f.url().includes("embed=1"));
    await expect.poll(() => inner.evaluate(() => document.body.dataset.ready)).toBe("1");
    expect(blocked.filter((m) => /frame-ancestors|refused to (connect|frame)/i.test(m)), "framing refused").toEqual([]);
    await shot(page, testInfo, "snippet-from-disk");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.describe("the built site (E2E_ROOT=dist)", () => {
  test.use({ serviceWorkers: "allow" });
  test.skip(process.env.E2E_ROOT !== "dist", "needs the built site and its service worker (make dist)");

  test("the course notes' elements work on a second visit with no network", async ({ page, context }) => {
    await page.goto("/examples/course-notes.html");
    await expect(page.locator("#panel-qk").getByRole("table", { name: heatmapName("encoder", 1, 2), exact: true })).toHaveCount(1, { timeout: 30_000 });
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.reload(); // now controlled by the service worker
    await expect.poll(() => page.evaluate(() => !!navigator.serviceWorker.controller)).toBe(true);
    await context.setOffline(true);
    await page.reload();
    await expect(page.locator("#panel-qk").getByRole("table", { name: heatmapName("encoder", 1, 2), exact: true })).toHaveCount(1, { timeout: 30_000 });
    await expect(page.locator("#panel-decoding").getByRole("slider", { name: "디코딩 단계" })).toBeVisible();
    await context.setOffline(false);
  });
});

test("the Embed this dialog measures the panel in a live preview: its iframe snippet fits without the resize script", async ({ page }, testInfo) => {
  await openApp(page, "?s=my+friend+lives+in+seoul");
  await page.getByRole("button", { name: "Embed this" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  await dialog.getByRole("combobox", { name: "Panel" }).selectOption({ label: "Decoding step by step" });
  await expect(dialog.getByText(/^The iframe snippet is \d+ px tall/)).toBeVisible({ timeout: 30_000 });
  const code = await dialog.getByRole("textbox", { name: /^As an iframe/ }).inputValue();
  const height = Number(code.match(/ height="(\d+)"/)[1]);
  await expect(dialog.locator(".embed-preview .ap")).toHaveAttribute("data-ready", "1");
  await shot(page, testInfo, "embed-dialog-preview");
  // pasted as is into a page whose column is 720 px wide, with no script of its own: nothing is cut off
  await serveFiles(page, {
    "/examples/__bare.html": `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bare</title></head><body>${code}</body></html>`,
  });
  await page.setViewportSize({ width: 736, height: 900 }); // body margins 8 px: the iframe is 720 px wide
  await page.goto("/examples/__bare.html");
  const frameOf = () => page.frames().find((f) => f.url().includes("embed=1"));
  await expect.poll(() => !!frameOf(), { timeout: 30_000 }).toBe(true);
  const frame = frameOf();
  await expect.poll(() => frame.evaluate(() => document.body.dataset.ready), { timeout: 30_000 }).toBe("1");
  // the snippet sizes the iframe when the panel's height message arrives: wait for that
  const fits = async () => {
    const content = await frame.evaluate(() => document.documentElement.scrollHeight);
    const box = await page.locator("iframe").evaluate((f) => f.clientHeight);
    return content <= box ? true : `the panel's height inside the frame ${content} > the iframe's ${box}`;
  };
  await expect.poll(fits).toBe(true);
});
