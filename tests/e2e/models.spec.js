// The page for any model (issue 24): a model file opened by the picker or dropped on the page
// shows what that model has (its tokens, its attention sites, its prediction) and nothing that
// assumes a translator; a bad file gets a message and the model shown stays; the demo model
// comes back; a permalink says which model it was made with.
// Fixtures: tests/fixtures/families (train/make_family_fixtures.py; random weights, real shapes).
import fs from "node:fs";
import path from "node:path";
import { test, expect, recordProgress, openApp, urlState, expectClean, filled, splitHeader, joinHeader } from "./fixtures.js";

const FAMILIES = path.join(path.dirname(new URL(import.meta.url).pathname), "../fixtures/families");
const fixture = (name) => fs.readFileSync(path.join(FAMILIES, name));
const SEED_TR = "엠마는 게임을 싫어하지만, 엠마는 훌륭한 친구이다.";

/** Open a file with the lab's "Open a model…" picker. */
async function pick(page, name, buffer) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Open a model…" }).first().click();
  await (await chooser).setFiles({ name, mimeType: "application/octet-stream", buffer });
}

/** Drop a file on the page the way a browser does (dragenter, dragover, drop with a DataTransfer). */
async function drop(page, name, buffer) {
  await page.evaluate(
    ({ name, bytes }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(bytes)], name, { type: "application/octet-stream" }));
      for (const type of ["dragenter", "dragover", "drop"]) document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    },
    { name, bytes: [...buffer] },
  );
}

const status = (page) => page.locator("#open-status");
/** The stack selector's radios (one per attention site of the model). */
const stackRadios = (page) => page.locator(".stack-tabs").getByRole("radio");

test("a GPT-style model opened by the picker: its tokens, its one attention site, next-token prediction with the engine's numbers, no translator", async ({ page, watch }) => {
  await openApp(page, "?debug=1");
  await pick(page, "gpt2_bpe.safetensors", fixture("gpt2_bpe.safetensors"));
  await expect(status(page)).toContainText("Showing “gpt2_bpe.safetensors”");
  await expect(page.getByRole("heading", { name: "Text in, next token out" })).toBeVisible();
  const box = page.getByRole("textbox", { name: "Text" });
  await box.fill("hello world");
  await box.press("Enter");

  // one site: decoder self-attention; the translator's panels are gone, not broken
  await expect(stackRadios(page)).toHaveCount(1);
  await expect(page.getByRole("radio", { name: /^Decoder self-attention/ })).toBeChecked();
  for (const id of ["#sec-decoding", "#sec-order", "#translation-panel", "#importance"]) await expect(page.locator(id)).toBeHidden();
  await expect(page.getByRole("checkbox", { name: /encoder/i })).toHaveCount(0);
  // the texts speak of this family: a causal stack that predicts the next token, not a translator
  await expect(page.locator("#stack-about")).toContainText("Each token attends to itself and the tokens before it");
  await expect(page.locator("#hint-mask")).toContainText("the ones it is trained to predict");
  await expect(page.locator(".tagline")).toContainText("inside the model you opened");

  // the map's rows are the text's tokens (byte-level BPE, as the engine tokenises)
  const tokens = await page.evaluate(() => window.attnscope.engine.tokenize("hello world").tokens);
  expect(tokens.length).toBeGreaterThan(1);
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  const table = await filled(page.getByRole("table", { name: /decoder self-attention weights, layer 1, head 1/ }).first());
  await expect(table.locator("tbody tr")).toHaveCount(tokens.length);
  // causal: nothing above the diagonal
  const firstRow = await table.locator("tbody tr").first().locator("td").allTextContents();
  expect(firstRow.slice(1).every((v) => Number(v) === 0)).toBe(true);

  // next-token prediction: the engine's probabilities, renormalised over the top 10 (T = 1)
  await expect(page.locator("#sec-predict")).toBeVisible();
  const bars = page.locator('[data-test="prediction"] .bar-row');
  await expect(bars).toHaveCount(10);
  const engineTop = await page.evaluate(() => {
    const { trace } = window.attnscope.session.cur;
    const P = trace.decoder.probs;
    const row = Array.from(P.data.subarray((P.rows - 1) * P.cols));
    const top = row.map((p, i) => [p, i]).sort((a, b) => b[0] - a[0]).slice(0, 10);
    const sum = top.reduce((s, [p]) => s + p, 0);
    return top.map(([p]) => ((p / sum) * 100).toFixed(1) + "%");
  });
  expect(await bars.locator(".bar-prob").allTextContents()).toEqual(engineTop);
  // temperature moves the numbers; top-k 3 keeps three
  await page.getByRole("combobox", { name: "Temperature T" }).selectOption("0.2");
  await expect.poll(() => bars.first().locator(".bar-prob").textContent()).not.toBe(engineTop[0]);
  await page.getByRole("combobox", { name: "Top-k" }).selectOption("3");
  await expect(bars).toHaveCount(3);
  const before = await box.inputValue();
  await page.getByRole("button", { name: "Append the most probable" }).click();
  await expect.poll(() => box.inputValue()).not.toBe(before);
  expect((await box.inputValue()).startsWith(before)).toBe(true);

  // the model card: family, sites, vocabulary search
  const card = page.locator("#model-card");
  await expect(card).toContainText("decoder-only (GPT-style)");
  await expect(card.locator('[data-test="sites"] li')).toHaveCount(1);
  await card.getByRole("searchbox", { name: "Search the vocabulary" }).fill("he");
  await expect(card.locator('[data-test="vocab"] .chip').first()).toContainText("he");
  expectClean(watch);
});

test("a BERT-style model dropped on the page: encoder only, masked-word guesses from the engine", async ({ page, watch }) => {
  await openApp(page, "?debug=1");
  await drop(page, "bert_mlm_gelu.safetensors", fixture("bert_mlm_gelu.safetensors"));
  await expect(status(page)).toContainText("Showing “bert_mlm_gelu.safetensors”");
  await expect(page.getByRole("heading", { name: "Text in, hidden words guessed" })).toBeVisible();
  await expect(stackRadios(page)).toHaveCount(1);
  await expect(page.getByRole("radio", { name: "Encoder self-attention" })).toBeChecked();
  for (const id of ["#sec-decoding", "#translation-panel"]) await expect(page.locator(id)).toBeHidden();
  await expect(page.getByRole("checkbox", { name: /decoder/i })).toHaveCount(0);

  const box = page.getByRole("textbox", { name: "Text" });
  await box.fill("<id:7> <id:4> <id:9>");
  await box.press("Enter");
  const guesses = page.locator('[data-test="prediction"] .pred-mask');
  await expect(guesses).toHaveCount(1);
  const engine = await page.evaluate(() => window.attnscope.engine.fill(10)[0].candidates.map((c) => `${c.token} ${(c.prob * 100).toFixed(1)}%`));
  const shown = await guesses.locator(".bar-row").evaluateAll((rows) => rows.map((r) => `${r.querySelector(".bar-token").textContent} ${r.querySelector(".bar-prob").textContent}`));
  expect(shown).toEqual(engine);
  await expect(page.locator("#model-card")).toContainText("encoder-only (BERT-style)");
  // with no mask token in the text, the panel says how to get a guess
  await box.fill("<id:7> <id:9>");
  await box.press("Enter");
  await expect(page.locator('[data-test="prediction"] .pred-mask')).toHaveCount(0);
  await expect(page.locator("#sec-predict")).toContainText("No <id:4> in the text");
  expectClean(watch);
});

test("a file that is not a model, one without attnscope metadata, a cut-short one and one with a wrong shape get messages; the model shown stays", async ({ page, watch }) => {
  await openApp(page);
  await expect(page.locator("#translation")).toHaveText(SEED_TR);
  const cases = [
    ["notes.txt", Buffer.from("just some text, not a model"), "notes.txt is not a model file"],
    ["plain.safetensors", joinHeader({ x: { dtype: "F32", shape: [1], data_offsets: [0, 4] } }, Buffer.alloc(4)), "has no attnscope metadata: convert it with train/convert.py"],
    ["cut.safetensors", fixture("gpt2_lm.safetensors").subarray(0, 9000), "cut.safetensors is cut short"],
  ];
  // a tensor of the wrong shape (same bytes): the engine names it
  const { header, body } = splitHeader(fixture("gpt2_lm.safetensors"));
  const name = Object.keys(header).find((k) => k !== "__metadata__" && header[k].shape.length === 2 && header[k].shape[0] !== header[k].shape[1]);
  header[name] = { ...header[name], shape: [...header[name].shape].reverse() };
  cases.push(["shape.safetensors", joinHeader(header, body), name]);
  for (const [file, bytes, message] of cases) {
    await pick(page, file, bytes);
    await expect(status(page)).toContainText(message);
    await expect(page.locator("#translation")).toHaveText(SEED_TR);
    await expect(stackRadios(page)).toHaveCount(3);
  }
  await expect(page.getByRole("heading", { name: "Sentence in, translation out" })).toBeVisible();
  expectClean(watch);
});

test("the demo model comes back with one click; a permalink made with another model says so", async ({ page, watch }) => {
  await openApp(page);
  await pick(page, "gpt2_lm.safetensors", fixture("gpt2_lm.safetensors"));
  await expect(status(page)).toContainText("Showing “gpt2_lm.safetensors”");
  await expect.poll(() => urlState(page.url()).get("model")).toBe("gpt2_lm.safetensors");
  const link = page.url();

  await page.getByRole("button", { name: "Back to the demo model" }).click();
  await expect(stackRadios(page)).toHaveCount(3);
  await expect(page.locator("#sec-decoding")).toBeVisible();
  await expect(page.locator("#sec-predict")).toBeHidden();
  await expect(page.getByRole("button", { name: "Back to the demo model" })).toBeHidden();
  await expect.poll(() => urlState(page.url()).get("model")).toBe(null);

  // the permalink opens on the demo model (the file is the reader's) and says so
  await page.goto("about:blank");
  await page.goto(link);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.locator("#notice-model")).toContainText("This link was made with the model “gpt2_lm.safetensors”");
  // opening that file makes the note go
  await pick(page, "gpt2_lm.safetensors", fixture("gpt2_lm.safetensors"));
  await expect(status(page)).toContainText("Showing “gpt2_lm.safetensors”");
  await expect(page.locator("#notice-model")).toBeHidden();
  expectClean(watch);
});

test("the languages come from the model file: the demo model's Korean output is marked ko; an opened file's description fields set its text's language and direction and show on its card", async ({ page, watch }) => {
  await openApp(page);
  // the demo model says it reads en and writes ko (train/describe.py)
  await expect(page.locator("#translation")).toHaveAttribute("lang", "ko");
  await expect(page.locator("#translation")).toHaveAttribute("dir", "ltr");
  await expect(page.locator("#tokens")).toHaveAttribute("lang", "en");
  await expect(page.locator("#model-card")).toContainText("target_language");

  // a BERT whose file says its text is Arabic: the box and the guesses are marked ar, right to left
  const { header, body } = splitHeader(fixture("bert_mlm_gelu.safetensors"));
  header.__metadata__ = { ...header.__metadata__, source_language: "ar", description: "a test model with an Arabic tag" };
  await pick(page, "bert_ar.safetensors", joinHeader(header, body));
  await expect(status(page)).toContainText("Showing “bert_ar.safetensors”");
  const box = page.getByRole("textbox", { name: "Text" });
  await expect(box).toHaveAttribute("lang", "ar");
  await box.fill("<id:7> <id:4> <id:9>");
  await box.press("Enter");
  const list = page.locator('[data-test="prediction"]');
  await expect(list).toHaveAttribute("lang", "ar");
  await expect(list).toHaveAttribute("dir", "rtl");
  await expect(page.locator("#model-card")).toContainText("a test model with an Arabic tag");
  // a file that says nothing: no language claimed
  await pick(page, "gpt2_lm.safetensors", fixture("gpt2_lm.safetensors"));
  await expect(status(page)).toContainText("Showing “gpt2_lm.safetensors”");
  await expect(page.getByRole("textbox", { name: "Text" })).not.toHaveAttribute("lang", /./);
  expectClean(watch);
});


test("MiniLM, the pretrained model, downloads only when chosen: its size first, a progress bar, then 6 × 12 heads on any English sentence, where a head links “she” to “emma”", async ({ page, watch }) => {
  // every value the progress bar is given, as the download goes
  await recordProgress(page);
  const gets = [];
  page.on("request", (r) => r.method() === "GET" && gets.push(r.url()));
  await openApp(page, "?debug=1");
  const file = "models/minilm-l6.safetensors";
  expect(gets.some((u) => u.endsWith(file))).toBe(false); // not before it is chosen (its size is a HEAD)
  const size = fs.statSync(path.join(FAMILIES, "../../../www", file)).size;
  const radio = page.getByRole("radio", { name: "MiniLM (pretrained, any English)" });
  await expect(page.locator(".model-option", { has: radio })).toContainText(`${(size / 1e6).toFixed(1)} MB, downloads when chosen`);
  await radio.check();
  await expect(status(page)).toContainText("Showing MiniLM", { timeout: 60_000 });
  const progress = await page.evaluate(() => window.__progress);
  expect(progress.filter((v) => v > 0 && v < 1).length, "the bar moved between 0 and 1").toBeGreaterThan(0);
  expect(progress[progress.length - 1]).toBe(1);
  await expect(page.getByRole("radio", { name: "Encoder self-attention" })).toBeChecked();
  await expect(page.getByRole("combobox", { name: "Layer", exact: true }).locator("option")).toHaveCount(6);
  await expect(page.getByRole("combobox", { name: "Head", exact: true }).locator("option")).toHaveCount(12);
  await expect(page.locator("#model-card")).toContainText("Apache-2.0");
  // its 32 x 384 W_Q grid scrolls in its own box: the page does not widen
  await page.locator("#sec-qk").scrollIntoViewIfNeeded();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(await page.evaluate(() => innerWidth));

  // any English sentence, WordPiece tokens with [CLS] and [SEP]
  const box = page.getByRole("textbox", { name: "Text" });
  await box.fill("Emma hates games, but she's a great friend");
  await box.press("Enter");
  const tokens = await page.evaluate(() => window.attnscope.session.cur.src.tokens);
  expect(tokens[0]).toBe("[CLS]");
  expect(tokens).toContain("she");
  // the head where "she" looks most at "emma", found in the engine's trace; shown on the page
  const best = await page.evaluate(() => {
    const { cur } = window.attnscope.session;
    const toks = cur.src.tokens;
    const [i, j] = [toks.indexOf("she"), toks.indexOf("emma")];
    let top = null;
    cur.trace.encoder.layers.forEach((l, li) =>
      l.self_attn.sublayer.heads.forEach((h, hi) => {
        const row = Array.from(h.weights.data.subarray(i * h.weights.cols, (i + 1) * h.weights.cols));
        const w = row[j];
        if (w === Math.max(...row) && (!top || w > top.w)) top = { layer: li, head: hi, w };
      }),
    );
    return top;
  });
  expect(best, "some head sends most of “she” to “emma”").not.toBe(null);
  expect(best.w).toBeGreaterThan(0.5);
  await page.getByRole("combobox", { name: "Layer", exact: true }).selectOption({ value: String(best.layer) });
  await page.getByRole("combobox", { name: "Head", exact: true }).selectOption({ value: String(best.head) });
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  const table = await filled(page.getByRole("table", { name: `encoder self-attention weights, layer ${best.layer + 1}, head ${best.head + 1}`, exact: true }).first());
  const she = table.locator("tbody tr").nth(tokens.indexOf("she"));
  await expect(she.locator("td").nth(tokens.indexOf("emma"))).toHaveText(best.w.toFixed(7).replace(/0+$/, ""));

  // the guide to heads worth finding (scripts/find-heads.mjs): "Show me" selects the stated head,
  // and on this sentence that head does what the guide says, more than the guide's average head
  const guide = JSON.parse(fs.readFileSync(path.join(FAMILIES, "../../../www/models/minilm-heads.json"), "utf8"));
  const items = page.locator('[data-test="heads-guide"] li');
  await expect(items).toHaveCount(guide.patterns.length);
  const prev = guide.patterns.find((g) => g.pattern === "previous");
  const item = page.locator('[data-test="heads-guide"] li[data-pattern="previous"]');
  await expect(item).toContainText(`layer ${prev.layer + 1}, head ${prev.head + 1}`);
  await item.getByRole("button", { name: /^Show The word before/ }).click();
  await expect(page.getByRole("combobox", { name: "Layer", exact: true })).toHaveValue(String(prev.layer));
  await expect(page.getByRole("combobox", { name: "Head", exact: true })).toHaveValue(String(prev.head));
  const shown = await filled(page.getByRole("table", { name: `encoder self-attention weights, layer ${prev.layer + 1}, head ${prev.head + 1}`, exact: true }).first());
  const cells = await shown.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.textContent))));
  const onPrevious = cells.slice(1).reduce((sum, row, i) => sum + row[i], 0) / (cells.length - 1);
  expect(onPrevious).toBeGreaterThan(prev.average);
  expectClean(watch);
});

test("Tiny GPT, trained here: it predicts the next word of a sentence start, and its causal mask hides the future (switched off, weight appears above the diagonal)", async ({ page, watch }) => {
  await openApp(page, "?debug=1");
  await page.getByRole("radio", { name: "Tiny GPT (trained here, next word)" }).check();
  await expect(status(page)).toContainText("Showing Tiny GPT", { timeout: 30_000 });
  const box = page.getByRole("textbox", { name: "Text" });
  await box.fill("the teacher gave the students");
  await box.press("Enter");
  const bars = page.locator('[data-test="prediction"] .bar-row');
  await expect(bars).toHaveCount(10);
  // the most probable next token is a word (not punctuation or the end), with the engine's probability
  const top = await bars.first().locator(".bar-token").textContent();
  expect(top).toMatch(/^\p{L}+$/u);
  const engineTop = await page.evaluate(() => {
    const P = window.attnscope.session.cur.trace.decoder.probs;
    const row = Array.from(P.data.subarray((P.rows - 1) * P.cols));
    const i = row.indexOf(Math.max(...row));
    return window.attnscope.session.info.srcVocab[i];
  });
  expect(top).toBe(engineTop);
  await expect(page.locator("#model-card")).toContainText("next-token accuracy");

  // the mask: nothing above the diagonal; off, the same map has weight there
  await page.getByRole("checkbox", { name: "Show heatmaps as tables" }).check();
  const name = "decoder self-attention weights, layer 1, head 1";
  const above = async () => {
    const table = await filled(page.getByRole("table", { name, exact: true }).first());
    const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => Number(td.textContent))));
    return rows.reduce((m, r, i) => Math.max(m, ...r.slice(i + 1), 0), 0);
  };
  expect(await above()).toBe(0);
  await page.getByRole("checkbox", { name: "Causal mask in the decoder" }).uncheck();
  await expect.poll(above).toBeGreaterThan(0.01);
  expectClean(watch);
});
