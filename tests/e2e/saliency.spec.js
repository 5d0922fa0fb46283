// "Colour by: gradient × input" (the engine's Lab.saliency, Shrikumar et al. 2016): offered where
// a map's rows are outputs (cross-attention, decoder self-attention, an encoder-only model's
// encoder), not on a translator's encoder; the map holds the engine's signed numbers on a
// diverging scale, is of the whole model (no layer or head), says how it differs from the weights,
// round-trips through a permalink, exports its numbers, speaks Korean.
import fs from "node:fs";
import path from "node:path";
import { test, expect, openApp, shot, expectClean, readTable, urlState, viewOf, watchRetranslations, editsSettled } from "./fixtures.js";

const CROSS = "cross-attention map: gradient × input (whole model)";
const SELF = "decoder self-attention map: gradient × input (whole model)";

/** Rows of a `{rows, cols, data}` matrix as plain arrays. */
const rowsOf = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols)));

/**
 * Gradient × input of `text` from a fresh engine in the page (not the page's own: its answer
 * cannot be the page's memo of another run), with the options of the page's state.
 */
function freshSaliency(page, text) {
  return page.evaluate(async (text) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    e.lab.setSource(text);
    e.lab.setOptions(e.fullOptions({}));
    const tr = e.lab.translate();
    const s = e.lab.saliency();
    const rows = (m) => Array.from({ length: m.rows }, (_, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols)));
    return { source: rows(s.source), target: rows(s.target), tokens: s.tokens, decoder: tr.decoder_tokens };
  }, text);
}

/**
 * The cells where the table and the engine differ by more than the table's rounding (7
 * significant digits; 6 decimals below a millionth): `[]` when they agree.
 */
function mismatches(got, want) {
  expect(got.length).toBe(want.length);
  const out = [];
  want.forEach((r, i) => {
    expect(got[i].length).toBe(r.length);
    r.forEach((v, j) => Math.abs(v - got[i][j]) > 1e-6 * Math.abs(v) + 5e-7 && out.push({ row: i, col: j, table: got[i][j], engine: v }));
  });
  return out;
}

/** The colour of a legend canvas at a fraction of its width: [r, g, b]. */
const legendColour = (page, f) =>
  page.locator("#legend-main").evaluate((c, f) => {
    const g = c.getContext("2d");
    const x = Math.min(c.width - 2, Math.max(1, Math.round(f * (c.width - 1))));
    return Array.from(g.getImageData(x, Math.floor(c.height / 2), 1, 1).data.slice(0, 3));
  }, f);

test("gradient × input on cross-attention: the engine's signed numbers, a diverging legend, no layer or head", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1#stack=decoder_cross&show=saliency&tables=1");
  const colour = page.getByRole("combobox", { name: "Colour by" });
  await expect(colour).toHaveValue("saliency");
  await expect(page.locator("#heatmap-title")).toHaveText(CROSS);
  const table = await readTable(page, CROSS);
  // the table is on screen (tables on), not only for screen readers
  await expect(page.getByRole("table", { name: CROSS, exact: true })).toBeVisible();

  const sentence = await page.evaluate(() => window.attnscope.session.state.sentence);
  const truth = await freshSaliency(page, sentence);
  // rows: the decoder's positions; columns: the source tokens; the numbers: the engine's `source`
  expect(table.rows).toEqual(truth.decoder);
  expect(table.cols).toEqual(await page.evaluate(() => window.attnscope.session.cur.src.tokens));
  expect(mismatches(table.values, truth.source)).toEqual([]);
  // signed: both signs occur (the table is not made of magnitudes or shares)
  const flat = table.values.flat();
  expect(flat.some((v) => v < 0)).toBe(true);
  expect(flat.some((v) => v > 0)).toBe(true);
  expect(table.text.flat().some((s) => s.startsWith("-"))).toBe(true);

  // the legend: diverging from −r to +r, r the map's largest magnitude (3 decimals, as written)
  const r = Math.max(...truth.source.flat().map(Math.abs));
  const legend = page.locator("#legend-text");
  await expect(legend).toContainText("Gradient × input, signed");
  await expect(legend).toContainText(`from −${r.toFixed(3)} to +${r.toFixed(3)}, the largest magnitude on this map`);
  const [left, mid, right] = [await legendColour(page, 0), await legendColour(page, 0.5), await legendColour(page, 1)];
  expect(mid.every((c) => c >= 245), `the middle is white: ${mid}`).toBe(true);
  expect(left[0] > left[2], `negative end olive: ${left}`).toBe(true);
  expect(right[2] > right[1], `positive end purple: ${right}`).toBe(true);

  // the note under the map: weights vs gradient × input, and the formula for the selected row
  // (the last), naming its output token, the engine's most probable token there
  const last = truth.decoder.length - 1;
  const stats = page.locator("#attn-stats");
  await expect(stats).toContainText("Weights show where one head looks; gradient × input shows how much each input word's vector changes the chosen output's log-probability, through every layer.");
  await expect(stats).toContainText(`Row “${truth.decoder[last]}” puts out “${truth.tokens[last]}”`);
  await expect(stats).toContainText(`(∂ log p(“${truth.tokens[last]}”) / ∂e_s) · e_s`);
  await expect(page.locator("#formula-show")).toContainText("value_rs = (∂ log p(y_r) / ∂e_s) · e_s");
  await expect(page.locator("#sec-attention .lead")).toContainText("they are gradient × input");
  // another row: the note follows it
  await page.locator("#heatmap-main canvas").focus();
  await page.keyboard.press("ArrowUp");
  await expect(stats).toContainText(`Row “${truth.decoder[last - 1]}” puts out “${truth.tokens[last - 1]}”`);
  await expect(page.locator("#heatmap-main .heatmap-readout")).toContainText(`output “${truth.tokens[last - 1]}”`);

  // the whole model: layer and head are off and say why; the grid presses no head
  for (const name of ["Layer", "Head"]) {
    const sel = page.getByRole("combobox", { name, exact: true });
    await expect(sel).toBeDisabled();
    await expect(sel).toHaveAccessibleDescription(/^Gradient × input is of the whole model, every layer and head at once/);
  }
  await expect(page.locator("#head-note")).toBeVisible();
  await expect(page.locator('#headgrid button[aria-pressed="true"]')).toHaveCount(0);
  await expect(page.locator('#headgrid [data-test="grid-rollout"]')).toHaveText(/^The map above is gradient × input: it goes through every head of every layer at once/);
  await page.locator("#attention-map").scrollIntoViewIfNeeded();
  await shot(page, testInfo, "saliency-cross");

  // back to the weights: the selectors come back
  await colour.selectOption("weights");
  await expect(page.getByRole("combobox", { name: "Head", exact: true })).toBeEnabled();
  await expect(page.getByRole("combobox", { name: "Layer", exact: true })).toBeEnabled();
  await expect(page.locator("#head-note")).toBeHidden();
  await expect(legend).not.toContainText("Gradient × input");
  expectClean(watch);
});

test("not offered on the translator's encoder: the option is disabled and says why; a link there shows the weights", async ({ page, watch }) => {
  await openApp(page);
  const colour = page.getByRole("combobox", { name: "Colour by" });
  const option = colour.locator('option[value="saliency"]');
  await expect(option).toBeDisabled();
  await expect(option).toHaveText("Gradient × input (decoder only)");
  await expect(option).toHaveAttribute("title", "Not for the encoder: its rows are source words, not outputs. Choose cross-attention or decoder self-attention.");
  // on the decoder's two attentions it is offered
  for (const radio of ["Cross-attention", "Decoder self-attention (masked)"]) {
    await page.getByRole("radio", { name: radio }).check();
    await expect(option).toBeEnabled();
    await expect(option).toHaveText("Gradient × input");
  }
  await colour.selectOption("saliency");
  await expect(page.locator("#heatmap-title")).toHaveText(SELF);
  // to the encoder: the weights, and the option is off again
  await page.getByRole("radio", { name: "Encoder self-attention" }).check();
  await expect(colour).toHaveValue("weights");
  await expect(option).toBeDisabled();
  await expect(page.locator("#heatmap-title")).toHaveText("encoder self-attention weights, layer 1, head 1");
  await expect.poll(() => urlState(page.url()).get("show")).toBe(null);

  // a link asking for it on the encoder: the weights
  await page.goto("about:blank");
  await openApp(page, "#stack=encoder&show=saliency");
  await expect(page.getByRole("combobox", { name: "Colour by" })).toHaveValue("weights");
  await expect(page.locator("#heatmap-title")).toHaveText("encoder self-attention weights, layer 1, head 1");
  expectClean(watch);
});

test("decoder self-attention: the engine's `target`, zero where the mask hides a word; the permalink round-trips", async ({ page, browser, watch }) => {
  await openApp(page, "?debug=1#stack=decoder_self&show=saliency&q=3");
  const table = await readTable(page, SELF);
  const sentence = await page.evaluate(() => window.attnscope.session.state.sentence);
  const truth = await freshSaliency(page, sentence);
  expect(table.rows).toEqual(truth.decoder);
  expect(table.cols).toEqual(truth.decoder);
  expect(mismatches(table.values, truth.target)).toEqual([]);
  // causal: output r cannot depend on the words after position r
  table.values.forEach((row, i) => row.forEach((v, j) => j > i && expect(v, `row ${i}, column ${j}`).toBe(0)));
  expect(table.values.flat().some((v) => v !== 0)).toBe(true);
  await expect(page.locator("#attn-stats")).toContainText(`Row “${truth.decoder[2]}” puts out “${truth.tokens[2]}”`);

  // the address bar holds the view; a new page opened on it shows the same map
  await expect.poll(() => urlState(page.url()).get("show")).toBe("saliency");
  const link = viewOf(page.url());
  expect(urlState(page.url()).get("stack")).toBe("decoder_self");
  const other = await browser.newPage({ baseURL: new URL(page.url()).origin });
  await openApp(other, link);
  await expect(other.getByRole("combobox", { name: "Colour by" })).toHaveValue("saliency");
  expect((await readTable(other, SELF)).text).toEqual(table.text);
  await expect(other.locator("#attn-stats")).toHaveText(await page.locator("#attn-stats").textContent());
  await other.close();
  expectClean(watch);
});

test("after a W_Q edit, the map is the edited model's gradient × input", async ({ page, watch }) => {
  await openApp(page, "?debug=1#stack=decoder_cross&show=saliency&layer=2");
  await watchRetranslations(page);
  const before = await readTable(page, CROSS);
  // the W_Q/W_K editor edits the state's head (layer 2, head 1) although the map has no head
  const wq = page.getByRole("slider", { name: /^W_Q cells of cross-attention, layer 2, head 1/ });
  await wq.focus();
  for (let i = 0; i < 12; i++) await page.keyboard.press("ArrowUp");
  await editsSettled(page);
  await expect.poll(async () => (await readTable(page, CROSS)).text).not.toEqual(before.text);
  const after = await readTable(page, CROSS);
  // the engine holds the edit: its gradient × input now is what the table shows
  const truth = await page.evaluate(() => {
    const m = window.attnscope.engine.saliency().source;
    return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols)));
  });
  expect(mismatches(after.values, truth)).toEqual([]);
  expectClean(watch);
});

test("CSV and JSON downloads hold the signed numbers and the outputs they explain", async ({ page, watch }) => {
  await openApp(page, "?debug=1#stack=decoder_cross&show=saliency");
  const table = await readTable(page, CROSS);
  const tokens = await page.evaluate(() => window.attnscope.engine.saliency().tokens);
  const download = async (format) => {
    const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: `Download the map as ${format.toUpperCase()}`, exact: true }).click()]);
    return { name: dl.suggestedFilename(), text: fs.readFileSync(await dl.path(), "utf8") };
  };
  const csv = await download("csv");
  expect(csv.name).toBe("attnscope-cross-saliency.csv");
  const lines = csv.text.replace(/^\uFEFF/, "").trim().split("\r\n");
  expect(lines[0].split(",")[0]).toBe("row (output) \\ input word");
  const csvValues = lines.slice(1).map((l) => l.split(",").slice(-table.cols.length).map(Number));
  expect(mismatches(csvValues, table.values)).toEqual([]);
  const json = JSON.parse((await download("json")).text);
  expect(json.show).toBe("saliency");
  expect(json.output_tokens).toEqual(tokens);
  expect(json.query_tokens).toEqual(table.rows);
  expect(mismatches(json.saliency, table.values)).toEqual([]);
  expect("weights" in json).toBe(false);
  const svg = await download("svg");
  expect(svg.name).toBe("attnscope-cross-saliency.svg");
  // diverging: olive cells for the negative values, purple for the positive
  expect(svg.text).toMatch(/fill="rgb\((\d+),(\d+),(\d+)\)"/);
  const fills = [...svg.text.matchAll(/<rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"><title>[^<]*: (-?[\d.e-]+)<\/title>/g)].map((m) => ({ rgb: m.slice(1, 4).map(Number), v: Number(m[4]) }));
  expect(fills.length).toBe(table.rows.length * table.cols.length);
  const strongest = (sign) => fills.filter((f) => Math.sign(f.v) === sign).sort((a, b) => Math.abs(b.v) - Math.abs(a.v))[0];
  expect(strongest(-1).rgb[0]).toBeGreaterThan(strongest(-1).rgb[2]);
  expect(strongest(1).rgb[2]).toBeGreaterThan(strongest(1).rgb[1]);
  expectClean(watch);
});

test("in Korean: the option, the map's name, the legend, the note and the selectors' reason", async ({ page, watch }, testInfo) => {
  await openApp(page, "?debug=1#lang=ko&stack=decoder_cross&show=saliency");
  const name = "교차 어텐션 지도: 기울기×입력 (모델 전체)";
  await expect(page.getByRole("combobox", { name: "색으로 나타낼 값" })).toHaveValue("saliency");
  await expect(page.locator("#heatmap-title")).toHaveText(name);
  const table = await readTable(page, name);
  const tokens = await page.evaluate(() => window.attnscope.engine.saliency().tokens);
  const last = table.rows.length - 1;
  await expect(page.locator("#legend-text")).toContainText("부호가 있는 기울기×입력");
  await expect(page.locator("#attn-stats")).toContainText(`행 “${table.rows[last]}”의 출력은 가장 확률이 높은 토큰 “${tokens[last]}”입니다`);
  await expect(page.getByRole("combobox", { name: "헤드", exact: true })).toHaveAccessibleDescription(/^기울기×입력은 모든 층과 헤드를 한꺼번에 거친/);
  await expect(page.locator("#sec-attention .lead")).toContainText("색깔은 어텐션 가중치가 아닙니다. 기울기×입력으로");
  await page.getByRole("radio", { name: "인코더 셀프 어텐션" }).check();
  await expect(page.locator('#sel-show option[value="saliency"]')).toHaveText("기울기×입력 (디코더에서만)");
  await expect(page.locator('#sel-show option[value="saliency"]')).toHaveAttribute("title", /^인코더에는 없습니다\. 인코더의 행은 원문 단어이지 출력이 아닙니다\./);
  await shot(page, testInfo, "saliency-ko");
  expectClean(watch);
});

const FAMILIES = path.join(path.dirname(new URL(import.meta.url).pathname), "../fixtures/families");

/** Open a model file with the lab's "Open a model…" picker; resolves once it is shown. */
async function pick(page, name) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Open a model…" }).first().click();
  await (await chooser).setFiles({ name, mimeType: "application/octet-stream", buffer: fs.readFileSync(path.join(FAMILIES, name)) });
  await expect(page.locator("#open-status")).toContainText(`Showing “${name}”`);
}

test("other families: a GPT's self-attention and a masked-LM's encoder have it, an encoder without an output head does not", async ({ page, watch }) => {
  await openApp(page, "?debug=1");
  const colour = page.getByRole("combobox", { name: "Colour by" });
  const option = colour.locator('option[value="saliency"]');
  const engineMap = (side) => page.evaluate((side) => {
    const m = window.attnscope.engine.saliency()[side];
    return Array.from({ length: m.rows }, (_, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols)));
  }, side);

  await pick(page, "gpt2_bpe.safetensors");
  await expect(option).toBeEnabled();
  await colour.selectOption("saliency");
  const gpt = await readTable(page, SELF);
  expect(mismatches(gpt.values, await engineMap("target"))).toEqual([]);

  await pick(page, "bert_mlm_gelu.safetensors");
  await expect(option).toBeEnabled();
  await colour.selectOption("saliency");
  const bert = await readTable(page, "encoder self-attention map: gradient × input (whole model)");
  expect(mismatches(bert.values, await engineMap("source"))).toEqual([]);
  expect(bert.rows).toEqual(bert.cols);

  await pick(page, "bert_none_relu_1head.safetensors");
  await expect(option).toBeDisabled();
  await expect(option).toHaveText("Gradient × input (no output head)");
  await expect(colour).toHaveValue("weights");
  expectClean(watch);
});
