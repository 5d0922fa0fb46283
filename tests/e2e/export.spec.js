// Downloads of the main heatmap: CSV and JSON hold the accessible table's weights, the CSV
// defuses formula-like tokens, the SVG is well-formed XML with its labels escaped, the PNG is
// a PNG. Also "Copy link" (clipboard, and the read-only box when the clipboard is refused).
import fs from "node:fs";
import { test, expect, openApp, shot, expectClean, readTable, heatmapName, typeSentence, urlState } from "./fixtures.js";

/** Click a download button of the main heatmap; returns {name, text, bytes}. */
async function download(page, format) {
  const [dl] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: `Download the map as ${format.toUpperCase()}`, exact: true }).click(),
  ]);
  const bytes = fs.readFileSync(await dl.path());
  return { name: dl.suggestedFilename(), bytes, text: bytes.toString("utf8") };
}

/** A small RFC 4180 reader (quoted cells, doubled quotes, CRLF). */
function parseCSV(text) {
  const rows = [];
  let row = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r") continue;
    else if (ch === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

/** The table's text for a float32 (what the page's tables show: 7 significant digits, and 6
 * decimals below a millionth). */
const asTable = (x) => {
  const v = Math.fround(Number(x));
  if (v === 0) return "0";
  return Math.abs(v) < 1e-6 ? v.toFixed(6) : String(Number(v.toPrecision(7)));
};

test("CSV and JSON downloads hold the same weights as the accessible table", async ({ page, watch }, testInfo) => {
  await openApp(page, "?stack=decoder_cross&layer=2&head=1");
  const table = await readTable(page, heatmapName("decoder_cross", 2, 1));
  await expect(page.getByText("Download this map:")).toBeVisible();

  const csv = await download(page, "csv");
  expect(csv.name).toBe("attnscope-cross-l2-h1.csv");
  expect(csv.text.startsWith("\uFEFF")).toBe(true); // UTF-8 mark for spreadsheets (Korean tokens)
  const rows = parseCSV(csv.text.slice(1));
  expect(rows[0]).toEqual(["query \\ key", ...table.cols]);
  // a label that a spreadsheet would read as a formula (the Korean suffix tokens start with "+")
  // is written with a leading apostrophe
  const guarded = (label) => (/^[=+\-@\t\r]/.test(label) ? `'${label}` : label);
  expect(table.rows.some((r) => r.startsWith("+"))).toBe(true);
  expect(rows.slice(1).map((r) => r[0])).toEqual(table.rows.map(guarded));
  expect(rows.slice(1).map((r) => r.slice(1).map(asTable))).toEqual(table.text);
  await expect(page.getByRole("status").filter({ hasText: "Saved attnscope-cross-l2-h1.csv." })).toBeVisible();

  const json = await download(page, "json");
  expect(json.name).toBe("attnscope-cross-l2-h1.json");
  const data = JSON.parse(json.text);
  expect(data).toMatchObject({ stack: "decoder_cross", layer: 2, head: 1, query_tokens: table.rows, key_tokens: table.cols });
  expect(data.weights.map((r) => r.map(asTable))).toEqual(table.text);
  expect(data.weights.every((r) => Math.abs(r.reduce((a, b) => a + b, 0) - 1) < 1e-5)).toBe(true);
  expect(data.link).toContain("stack=decoder_cross");
  await shot(page, testInfo, "export-row");
  expectClean(watch);
});

test("the CSV defuses tokens a spreadsheet would run as formulas, and quotes commas", async ({ page, watch }) => {
  await openApp(page);
  // the tokenizer splits symbols off: "=1+1, -2 @home" -> "=", "1", "+", "1", ",", "-", "2", "@", "home"
  await typeSentence(page, "=1+1, -2 @home");
  const name = heatmapName("encoder");
  await expect.poll(async () => (await readTable(page, name)).cols).toEqual(["=", "1", "+", "1", ",", "-", "2", "@", "home"]);
  const table = await readTable(page, name);
  const csv = await download(page, "csv");
  const lines = csv.text.slice(1).split("\r\n");
  expect(lines[0]).toBe(`query \\ key,'=,1,'+,1,",",'-,2,'@,home`);
  expect(lines[1].startsWith("'=,")).toBe(true);
  expect(lines[5].startsWith('",",')).toBe(true);
  // no cell starts with a formula character
  const rows = parseCSV(csv.text.slice(1));
  for (const r of rows) for (const c of r) expect(c).not.toMatch(/^[=+\-@]/);
  // the weights are still the table's
  expect(rows.slice(1).map((r) => r.slice(1).map(asTable))).toEqual(table.text);
  // JSON keeps the tokens as they are (no spreadsheet involved)
  const json = JSON.parse((await download(page, "json")).text);
  expect(json.key_tokens[0]).toBe("=");
  expectClean(watch);
});

test("the SVG is well-formed XML with the token labels escaped; the PNG is a PNG", async ({ page, watch }, testInfo) => {
  await openApp(page);
  await typeSentence(page, 'she said <b> & "hi"');
  const name = heatmapName("encoder");
  await expect.poll(async () => (await readTable(page, name)).cols).toEqual(["she", "said", "<", "b", ">", "&", '"', "hi", '"']);
  const table = await readTable(page, name);

  const svg = await download(page, "svg");
  expect(svg.name).toBe("attnscope-encoder-l1-h1.svg");
  expect(svg.text).toContain("&lt;");
  expect(svg.text).toContain("&amp;");
  expect(svg.text).toContain("&quot;");
  expect(svg.text).not.toMatch(/>[^<]*<b>/); // the token never becomes markup
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const err = doc.querySelector("parsererror");
    return {
      error: err ? err.textContent : null,
      root: doc.documentElement.localName,
      keys: [...doc.querySelectorAll("g.keys text")].map((e) => e.textContent),
      queries: [...doc.querySelectorAll("g.queries text")].map((e) => e.textContent),
      cells: doc.querySelectorAll("g.cells rect").length,
      title: doc.querySelector("svg > title")?.textContent,
      legend: doc.querySelector("linearGradient") !== null,
    };
  }, svg.text);
  expect(parsed.error).toBe(null);
  expect(parsed.root).toBe("svg");
  expect(parsed.keys).toEqual(table.cols);
  expect(parsed.queries).toEqual(table.rows);
  expect(parsed.cells).toBe(table.rows.length * table.cols.length);
  expect(parsed.title).toBe(name);
  expect(parsed.legend).toBe(true);

  const png = await download(page, "png");
  expect(png.name).toBe("attnscope-encoder-l1-h1.png");
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.bytes.subarray(12, 16).toString("ascii")).toBe("IHDR");
  expect(png.bytes.readUInt32BE(16)).toBeGreaterThan(200); // width
  expect(png.bytes.readUInt32BE(20)).toBeGreaterThan(200); // height
  fs.writeFileSync(testInfo.outputPath("exported.png"), png.bytes);
  fs.writeFileSync(testInfo.outputPath("exported.svg"), svg.bytes);
  expectClean(watch);
});

test("Copy link puts the view's URL on the clipboard; when refused, a selected read-only box holds it", async ({ page, context, watch }, testInfo) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await openApp(page, "?stack=decoder_self&layer=2&head=4&scale=0");
  await page.getByRole("button", { name: "Copy link" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Link copied" })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  const url = urlState(copied);
  expect(url.get("stack")).toBe("decoder_self");
  expect(url.get("layer")).toBe("2");
  expect(url.get("head")).toBe("4");
  expect(url.get("scale")).toBe("0");
  expect(new URL(copied).search, "the view travels in the fragment, never sent to the host").toBe("");
  await shot(page, testInfo, "link-copied");

  // a browser that refuses the clipboard: the link waits in a selected box
  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
  });
  await page.getByRole("button", { name: "Copy link" }).click();
  const box = page.getByRole("textbox", { name: "Link to this view" });
  await expect(box).toBeVisible();
  await expect(box).toHaveValue(copied);
  await expect(box).toBeFocused();
  expect(await box.evaluate((e) => [e.selectionStart, e.selectionEnd])).toEqual([0, copied.length]);
  await expect(page.getByRole("status").filter({ hasText: "Ctrl+C" })).toBeVisible();
  await shot(page, testInfo, "link-manual");
  expectClean(watch);
});
