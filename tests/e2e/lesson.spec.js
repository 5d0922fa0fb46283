// End-to-end tests of the guided lesson (www/lesson.html): eleven live panels whose numbers come
// from the engine. Run: npx playwright test tests/e2e/lesson.spec.js
// ATTNSCOPE_MODEL=/path/model.safetensors serves that file as models/en-ko.safetensors
// (development only, as in the other specs).
import fs from "node:fs";
import { test as base, expect, urlState } from "./fixtures.js";

const MODEL_OVERRIDE = process.env.ATTNSCOPE_MODEL;

const test = base.extend({
  watch: async ({ page }, use) => {
    const w = { requests: [], failed: [], consoleErrors: [], pageErrors: [] };
    page.on("request", (r) => w.requests.push(r.url()));
    page.on("requestfailed", (r) => w.failed.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => {
      if (r.status() >= 400) w.failed.push(`${r.url()} HTTP ${r.status()}`);
    });
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") w.consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => w.pageErrors.push(e.message));
    if (MODEL_OVERRIDE) {
      const body = fs.readFileSync(MODEL_OVERRIDE);
      await page.route("**/models/en-ko.safetensors", (r) => r.fulfill({ body, contentType: "application/octet-stream" }));
    }
    await use(w);
  },
});

async function openLesson(page, query = "") {
  await page.goto(`/lesson.html${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
}

function expectClean(w) {
  expect(w.pageErrors, "uncaught exceptions").toEqual([]);
  expect(w.consoleErrors, "console errors and warnings").toEqual([]);
  expect(w.failed, "failed requests").toEqual([]);
}

/** A heat table: row names, column names and the exact values (data-value). */
async function readHeat(locator) {
  await expect(locator).toHaveCount(1);
  return locator.evaluate((t) => ({
    name: t.getAttribute("aria-label"),
    role: t.getAttribute("role"),
    cols: [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent),
    rows: [...t.tBodies[0].rows].map((r) => r.cells[0].textContent),
    values: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.dataset.value))),
    masked: [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => c.classList.contains("masked"))),
  }));
}

async function readValue(page, test) {
  const v = await page.locator(`[data-test="${test}"]`).getAttribute("data-value");
  expect(v, test).not.toBeNull();
  return Number(v);
}

const panel = (page, n) => page.locator(`#p${n}`);

test("the lesson loads with no console error and nothing from another origin, and every panel shows engine numbers", async ({ page, watch }, testInfo) => {
  await openLesson(page);
  const origin = new URL(page.url()).origin;
  await expect(page.locator("h1")).toHaveText("Attention from the ground up");
  // eleven panels, each a section with a heading, all listed in the contents
  await expect(page.locator("section.panel")).toHaveCount(11);
  await expect(page.getByRole("navigation", { name: "Contents" }).getByRole("link")).toHaveCount(11);
  for (let i = 1; i <= 9; i++) {
    const sec = panel(page, i);
    await expect(sec.getByRole("heading", { level: 2 })).toBeVisible();
    await expect(sec.locator(".msg-error")).toHaveCount(0);
    // numbers: at least one heat table or readout holding a finite engine value
    const values = await sec.locator("[data-value]").evaluateAll((els) => els.map((e) => Number(e.dataset.value)).filter(Number.isFinite));
    expect(values.length, `panel ${i} shows numbers`).toBeGreaterThan(3);
  }
  // specific numbers per panel
  expect(await readValue(page, "p1-sum")).toBeCloseTo(1, 5);
  const p2 = await readHeat(page.locator('[data-test="p2-weights"]'));
  expect(p2.cols).toEqual(["emma", "hates", "games", ",", "but", "she", "'s", "a", "great", "friend"]);
  await expect(page.locator('[data-test="p6-translation"]')).not.toHaveText("");
  await expect(page.locator('[data-test="p6-splits"] tbody tr')).not.toHaveCount(0);
  await expect(page.locator('[data-test="p7-ta"]')).not.toHaveText("");
  expect(await readValue(page, "p8-zeros")).toBeGreaterThan(0);
  await expect(page.locator('[data-test="p9-translation"]')).not.toHaveText("");
  expect(await readValue(page, "p9-path")).toBe(9);

  for (const url of watch.requests) {
    if (url.startsWith("data:")) continue;
    expect(new URL(url).origin, url).toBe(origin);
  }
  expect(watch.requests.some((u) => u.endsWith("/models/glove-50d.safetensors"))).toBe(true);
  expect(watch.requests.some((u) => u.endsWith("/models/en-ko.safetensors"))).toBe(true);
  // Chromium runs relaxed SIMD, so the page loads that build of the engine (and only that one)
  expect(watch.requests.filter((u) => /\/pkg\/attnscope\w*\.wasm$/.test(u)).map((u) => new URL(u).pathname)).toEqual(["/pkg/attnscope_relaxed_bg.wasm"]);
  await page.screenshot({ path: testInfo.outputPath("lesson-en-top.png") });
  expectClean(watch);
});

test("panel 1: the weights sum to 1 and a narrower kernel makes the largest weight larger", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 1);
  const width = p.getByRole("slider", { name: "Kernel width σ" });
  await width.fill("1.5");
  await expect.poll(() => readValue(page, "p1-sum")).toBeCloseTo(1, 5);
  const wide = await readValue(page, "p1-max");
  await width.fill("0.3");
  await expect.poll(() => readValue(page, "p1-max")).toBeGreaterThan(wide);
  expect(await readValue(page, "p1-sum")).toBeCloseTo(1, 5);
  // the same check on every row of the top-weights table: each weight is in (0, 1]
  const top = await readHeat(p.getByRole("table", { name: /largest weights/ }));
  expect(top.values.length).toBeGreaterThan(0);
  for (const r of top.values) {
    expect(r[3]).toBeGreaterThan(0);
    expect(r[3]).toBeLessThanOrEqual(1);
  }

  // the point of interest is a slider that works from the keyboard and lands in the URL
  const handle = p.getByRole("slider", { name: /Point of interest x₀ \(drag/ });
  const before = await readValue(page, "p1-value");
  await handle.focus();
  for (let k = 0; k < 10; k++) await page.keyboard.press("ArrowLeft");
  await expect(handle).toHaveAttribute("aria-valuenow", "5.2");
  await expect.poll(() => readValue(page, "p1-value")).not.toBe(before);
  await expect.poll(() => new URL(page.url()).searchParams.get("p1.x0")).toBe("5.2");
  // and the pointer: press on the plot near x = 2
  const box = await p.locator("svg.p1-plot").boundingBox();
  await page.mouse.click(box.x + box.width * (44 + 0.2 * (680 - 60)) / 680, box.y + box.height * 0.3);
  const x0 = await readValue(page, "p1-x0-value");
  expect(Math.abs(x0 - 2)).toBeLessThan(0.3);
  expectClean(watch);
});

test("panel 2: GloVe vectors of the sentence, distance weights versus dot-product weights, no parameters", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 2);
  await expect(p.getByRole("combobox", { name: "Word to rebuild" }).locator("option:checked")).toHaveText("10. friend");
  const t = await readHeat(p.getByRole("table", { name: "Weights over the sentence for “friend” under three rules" }));
  expect(t.role).toBe("table");
  for (const r of t.values) expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
  // marked words: emma and she; the dot product puts more weight on them than position does
  await expect(p.getByRole("button", { name: "emma" })).toHaveAttribute("aria-pressed", "true");
  await expect(p.getByRole("button", { name: "she", exact: true })).toHaveAttribute("aria-pressed", "true");
  expect(await readValue(page, "p2-on-marked-dot")).toBeGreaterThan(await readValue(page, "p2-on-marked-pos"));
  expect(await readValue(page, "p2-params")).toBe(0);
  // the vector table holds 10 x 50 real numbers
  await p.getByText("Show the numbers as a table").click();
  const vec = p.getByRole("table", { name: "Word vectors: 10 words × 50 numbers" });
  await expect(vec.locator("tbody tr")).toHaveCount(10);
  await expect(vec.locator("tbody tr").first().locator("td")).toHaveCount(50);
  expectClean(watch);
});

test("panel 3: dragging a W_Q slider changes the weights row of the selected word, and each word has its own row", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 3);
  const heat = p.getByRole("table", { name: "Attention weights: one row per query word, one column per key word" });
  const before = await readHeat(heat);
  const row = before.rows.indexOf("friend");
  expect(row).toBe(9);
  // every word's row is different (its own query)
  const distinct = new Set(before.values.map((r) => r.map((v) => v.toFixed(4)).join(",")));
  expect(distinct.size).toBeGreaterThan(5);
  const slider = p.getByRole("slider", { name: "W_Q[1,2]" });
  await slider.focus();
  for (let k = 0; k < 12; k++) await page.keyboard.press("ArrowRight");
  await expect(slider).toHaveValue("0.6");
  const after = await readHeat(heat);
  const diff = Math.max(...after.values[row].map((v, j) => Math.abs(v - before.values[row][j])));
  expect(diff).toBeGreaterThan(0.01);
  for (const r of after.values) expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
  await expect.poll(() => new URL(page.url()).searchParams.get("p3.wq")).toBe("1,0.6,0,1");

  // the preset from the lecture: K = I, Q turns "friend" toward the marked words (emma, she)
  await p.getByRole("button", { name: "Identity: Q = K = I" }).click();
  const id = await readHeat(heat);
  await p.getByRole("button", { name: "Turn the query toward the marked words" }).click();
  await expect(p.getByRole("slider", { name: "W_K[1,2]" })).toHaveValue("0");
  const turned = await readHeat(heat);
  const emma = turned.cols.indexOf("emma");
  const she = turned.cols.indexOf("she");
  expect(turned.values[row][emma] + turned.values[row][she]).toBeGreaterThan(id.values[row][emma] + id.values[row][she]);

  // choosing another row selects that word (same matrices, its own query)
  await p.getByRole("button", { name: "emma", exact: true }).click();
  await expect(p.getByRole("combobox", { name: "Selected word (its query is drawn)" }).locator("option:checked")).toHaveText("1. emma");
  await expect.poll(() => new URL(page.url()).searchParams.get("p3.word")).toBe("1");
  expectClean(watch);
});

test("panel 3: the query tip can be dragged with the pointer", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 3);
  const handle = p.getByRole("slider", { name: /Tip of the query vector/ });
  const wq = p.getByRole("slider", { name: "W_Q[1,1]" });
  await expect(wq).toHaveValue("1");
  await handle.scrollIntoViewIfNeeded();
  const b = await handle.boundingBox();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2 - 40, b.y + b.height / 2 - 60, { steps: 5 });
  await page.mouse.up();
  await expect(wq).not.toHaveValue("1");
  // and from the keyboard: right arrow turns the query
  const q0 = await p.locator('[data-test="p3-q"]').textContent();
  await handle.focus();
  await page.keyboard.press("ArrowRight");
  await expect(p.locator('[data-test="p3-q"]')).not.toHaveText(q0);
  expectClean(watch);
});

test("panel 4: turning scaling off raises the largest weight; stretching the vectors saturates the softmax", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 4);
  const box = p.getByRole("checkbox", { name: "Divide the scores by √d_k" });
  await box.check();
  const on = await readValue(page, "p4-max");
  await box.uncheck();
  await expect.poll(() => readValue(page, "p4-max")).toBeGreaterThan(on);
  await expect.poll(() => new URL(page.url()).searchParams.get("p4.scale")).toBe(null);
  const off = await readValue(page, "p4-max");
  await p.getByRole("slider", { name: "Stretch every vector by" }).fill("2");
  await expect.poll(() => readValue(page, "p4-max")).toBeGreaterThan(Math.max(off, 0.99));
  expect(await readValue(page, "p4-sat")).toBeGreaterThan(5);
  expectClean(watch);
});

test("panel 4: the engine's backward pass measures the learning signal: without scaling it collapses as the vectors stretch", async ({ page, watch }) => {
  await openLesson(page);
  const { values, rows } = await readHeat(page.locator('[data-test="p4-sweep"]'));
  expect(rows).toEqual(["scaling off", "divided by √d_k"]);
  const [off, on] = values; // percentages at stretches 0.5, 1, 1.5, 2, 3
  for (const v of [...off, ...on]) expect(v).toBeGreaterThanOrEqual(0);
  expect(off.at(-1)).toBeLessThan(off[0] / 10); // saturated: a tenth of the signal or less
  expect(off.at(-1)).toBeLessThan(on.at(-1) / 10);
  expect(on[3]).toBeGreaterThan(5 * off[3]); // scaled, it falls far more slowly
  // the readout is the engine's number for the current setting: at stretch 3, scaling off, the table's last cell
  const p = panel(page, 4);
  await p.getByRole("checkbox", { name: "Divide the scores by √d_k" }).uncheck();
  await p.getByRole("slider", { name: "Stretch every vector by" }).fill("3");
  await expect.poll(async () => Math.abs(100 * (await readValue(page, "p4-signal")) - off.at(-1))).toBeLessThan(0.01);
  expectClean(watch);
});

test("panel 5: the causal mask gives exactly 0 above the diagonal, in attend and in the trained decoder", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 5);
  const causal = await readHeat(p.getByRole("table", { name: "Attention weights with the causal mask (masked cells are hatched)" }));
  const n = causal.rows.length;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (j > i) {
        expect(causal.values[i][j], `row ${i} col ${j}`).toBe(0);
        expect(causal.masked[i][j]).toBe(true);
      }
    }
    expect(causal.values[i].reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
  }
  expect(causal.values[0][0]).toBe(1);
  expect(await readValue(page, "p5-above")).toBe(0);
  const dec = await readHeat(p.locator('[data-test="p5-decoder"]'));
  for (let i = 0; i < dec.rows.length; i++) for (let j = i + 1; j < dec.cols.length; j++) expect(dec.values[i][j]).toBe(0);

  await p.getByRole("checkbox", { name: "Causal mask (each word sees only itself and earlier words)" }).uncheck();
  const open = await readHeat(p.getByRole("table", { name: "Attention weights without a mask" }));
  let above = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) above += open.values[i][j];
  expect(above).toBeGreaterThan(0.1);
  expect(await readValue(page, "p5-decoder-above")).toBeGreaterThan(0);
  await expect.poll(() => new URL(page.url()).searchParams.get("p5.causal")).toBe("0");
  expectClean(watch);
});

test("panel 6: the trained heads side by side, and the same weights re-split into other head counts", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 6);
  const cards = p.locator("figure.head-card");
  const trained = await cards.count();
  expect(trained).toBeGreaterThan(1);
  // the heads differ from one another
  const h1 = await readHeat(cards.nth(0).getByRole("table"));
  const h2 = await readHeat(cards.nth(1).getByRole("table"));
  expect(h1.values.flat().some((v, i) => Math.abs(v - h2.values.flat()[i]) > 1e-3)).toBe(true);
  // one table row per head count, each with a translation and a measured confidence
  const rows = p.locator('[data-test="p6-splits"] tbody tr');
  expect(await rows.count()).toBeGreaterThan(2);
  const conf = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.cells[2].dataset.value)));
  // each is the mean probability of the words a fresh engine chooses with that many heads
  const text = await p.getByRole("textbox").first().inputValue();
  const want = await page.evaluate(async (text) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    return e.info.headChoices.map((heads) => {
      const { steps } = e.translateText(text, { heads }).tr;
      return steps.reduce((a, st) => a + st.prob, 0) / steps.length;
    });
  }, text);
  expect(conf.length).toBe(want.length);
  conf.forEach((c, i) => {
    expect(c).toBeGreaterThan(0);
    expect(c).toBeLessThanOrEqual(1);
    expect(c).toBeCloseTo(want[i], 6);
  });
  // choosing one head changes the heatmaps to a single head
  await p.getByRole("combobox", { name: "Split into heads" }).selectOption("1");
  await expect(cards).toHaveCount(1);
  await expect.poll(() => new URL(page.url()).searchParams.get("p6.heads")).toBe("1");
  expectClean(watch);
});

test("panel 7: without positional encoding the two sentences get identical attention (up to the word permutation)", async ({ page, watch }) => {
  await openLesson(page);
  const p = panel(page, 7);
  await p.getByRole("checkbox", { name: "Add positional encoding" }).uncheck();
  const a = await readHeat(p.getByRole("table", { name: /^Sentence A, encoder self-attention without positional encoding/ }));
  const b = await readHeat(p.getByRole("table", { name: /^Sentence B, encoder self-attention without positional encoding/ }));
  expect(a.cols).toEqual(["the", "brother", "carried", "the (2)", "sister"]);
  expect(b.cols).toEqual(["the", "sister", "carried", "the (2)", "brother"]);
  const perm = [0, 4, 2, 3, 1]; // A's word i sits at B's position perm[i]
  for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) expect(Math.abs(a.values[i][j] - b.values[perm[i]][perm[j]])).toBeLessThan(1e-5);
  expect(await readValue(page, "p7-diff")).toBeLessThan(1e-5);
  await expect(p.locator('[data-test="p7-ta"]')).toHaveText(await p.locator('[data-test="p7-tb"]').textContent());
  // with it, they come apart
  await p.getByRole("checkbox", { name: "Add positional encoding" }).check();
  await expect(p.getByRole("table", { name: /^Sentence A, encoder self-attention with positional encoding/ })).toHaveCount(1);
  // the sinusoidal table is there as numbers too
  await p.getByText("Show the numbers as a table").click();
  const pe = p.getByRole("table", { name: /^Sinusoidal positional encoding: 32 positions/ });
  await expect(pe.locator("tbody tr")).toHaveCount(32);
  const first = await pe.locator("tbody tr").first().locator("td").evaluateAll((tds) => tds.slice(0, 4).map((td) => Number(td.dataset.value)));
  expect(first).toEqual([0, 1, 0, 1]); // position 0: sin 0, cos 0
  expectClean(watch);
});

test("panel 8: feed-forward sparsity, Add is addition, LayerNorm gives mean 0 and variance 1", async ({ page, watch }) => {
  await openLesson(page);
  const zeros = await readValue(page, "p8-zeros");
  expect(zeros).toBeGreaterThan(0);
  expect(zeros).toBeLessThan(256);
  expect(await readValue(page, "p8-sum1-check")).toBeLessThan(1e-4);
  expect(await readValue(page, "p8-sum2-check")).toBeLessThan(1e-4);
  // (the trained LayerNorm has a learned scale and shift, so "about", not exactly)
  expect(Math.abs(await readValue(page, "p8-norm1-mean"))).toBeLessThan(0.2);
  expect(Math.abs((await readValue(page, "p8-norm1-var")) - 1)).toBeLessThan(0.5);
  // the residual path carries the gradient: measured on a fresh 6 + 6-layer model's first step
  const grads = await readHeat(page.locator('[data-test="p8-grads"]'));
  expect(grads.rows).toEqual(["with residuals", "without residuals"]);
  const dec1 = grads.cols.indexOf("dec 1");
  expect(dec1).toBeGreaterThan(0);
  expect(grads.values[0][dec1]).toBeGreaterThan(0.1);
  expect(grads.values[1][dec1]).toBeLessThan(grads.values[0][dec1] / 1000);
  await panel(page, 8).getByRole("combobox", { name: "Encoder layer" }).selectOption({ label: "2" });
  await expect.poll(() => new URL(page.url()).searchParams.get("p8.layer")).toBe("2");
  expectClean(watch);
});

test("panel 9: translation, cross-attention, a link to the lab carrying the sentence, RNN vs attention", async ({ page, watch }) => {
  await openLesson(page, "?p6.s=the+brother+carried+the+sister");
  const p = panel(page, 9);
  await expect(p.getByRole("textbox", { name: "Sentence for the translator" })).toHaveValue("the brother carried the sister");
  const cross = await readHeat(p.locator('[data-test="p9-cross"]'));
  expect(cross.cols).toEqual(["the", "brother", "carried", "the (2)", "sister"]);
  for (const r of cross.values) expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
  const href = await p.getByRole("link", { name: "Open this sentence in the full lab" }).getAttribute("href");
  expect(new URL(href, page.url()).pathname).toBe("/index.html");
  expect(urlState(new URL(href, page.url()).href).get("s")).toBe("the brother carried the sister");
  expect(await readValue(page, "p9-n")).toBe(5);
  expect(await readValue(page, "p9-path")).toBe(4);
  // the lab's decoding panel, mounted in the lesson: it steps through the same translation
  const dec = p.locator('[data-test="p9-decoding"]');
  await expect(dec.getByText("Top 5 next tokens")).toBeVisible({ timeout: 30_000 });
  const written = (await p.locator('[data-test="p9-translation"]').textContent()).trim();
  await expect(dec.getByText(/^step 1 of \d+:/)).toBeVisible();
  await dec.getByRole("button", { name: /Next step/ }).click();
  await expect(dec.getByText(/^step 2 of \d+:/)).toBeVisible();
  expect(written.length).toBeGreaterThan(0);
  const t = p.getByRole("slider", { name: "Time step" });
  await t.fill("2");
  expect(await readValue(page, "p9-now")).toBe(2);
  await expect(p.locator("svg.p9-rnn circle.node.on")).toHaveCount(2 + 5);
  expectClean(watch);
});

test("?lang=ko shows the lesson in Korean; the switch changes language and keeps the state", async ({ page, watch }) => {
  await openLesson(page, "?lang=ko&p1.w=0.5");
  await expect(page.locator("html")).toHaveAttribute("lang", "ko");
  await expect(page.locator("h1")).toHaveText("바닥부터 이해하는 어텐션");
  const titles = ["1차원에서의 가중평균", "벡터가 된 단어", "쿼리 행렬과 키 행렬", "점수의 크기 조절", "마스킹: 앞질러 보지 않기", "멀티 헤드 어텐션", "단어 순서와 위치 인코딩", "블록 안쪽: 피드포워드, Add & Norm", "인코더, 디코더, 교차 어텐션"];
  for (let i = 1; i <= 9; i++) await expect(panel(page, i).getByRole("heading", { level: 2 })).toHaveText(`${i}${titles[i - 1]}`);
  await expect(page.getByRole("navigation", { name: "차례" })).toBeVisible();
  await expect(panel(page, 1).getByRole("slider", { name: "커널 폭 σ" })).toHaveValue("0.5");
  await page.getByRole("button", { name: "English" }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(panel(page, 1).getByRole("heading", { level: 2 })).toHaveText("1A weighted average in one dimension");
  await expect(panel(page, 1).getByRole("slider", { name: "Kernel width σ" })).toHaveValue("0.5");
  await expect.poll(() => new URL(page.url()).searchParams.get("lang")).toBe("en");
  await expect(page.getByRole("button", { name: "English" })).toHaveAttribute("aria-pressed", "true");
  expectClean(watch);
});

test("the state of every panel lives in the URL and survives a reload", async ({ page, watch }) => {
  await openLesson(page, "?p1.x0=3&p1.w=1.2&p2.s=the+cat+sat+on+the+mat&p3.wq=0.5,0,0,2&p4.len=1.5&p4.scale=1&p5.causal=0&p6.kind=enc&p7.pe=0&p8.layer=2&p9.t=3");
  await expect(panel(page, 1).getByRole("slider", { name: "Point of interest x₀", exact: true })).toHaveValue("3");
  await expect(panel(page, 2).getByRole("textbox", { name: "Sentence (word vectors)" })).toHaveValue("the cat sat on the mat");
  await expect(panel(page, 3).getByRole("slider", { name: "W_Q[2,2]" })).toHaveValue("2");
  await expect(panel(page, 4).getByRole("checkbox", { name: "Divide the scores by √d_k" })).toBeChecked();
  await expect(panel(page, 5).getByRole("checkbox", { name: /^Causal mask/ })).not.toBeChecked();
  await expect(panel(page, 6).getByRole("combobox", { name: "Attention to show" })).toHaveValue("enc");
  await expect(panel(page, 7).getByRole("checkbox", { name: "Add positional encoding" })).not.toBeChecked();
  await expect(panel(page, 8).getByRole("combobox", { name: "Encoder layer" }).locator("option:checked")).toHaveText("2");
  await expect(panel(page, 9).getByRole("slider", { name: "Time step" })).toHaveValue("3");
  // the tokens of the new sentence reach panels 2-5
  const t3 = await readHeat(panel(page, 3).getByRole("table", { name: /one row per query word/ }));
  expect(t3.cols).toEqual(["the", "cat", "sat", "on", "the (2)", "mat"]);
  expectClean(watch);
});

test("every control is labelled, has a role and the heatmaps are tables", async ({ page, watch }) => {
  await openLesson(page);
  const unlabelled = await page.locator("#lesson input, #lesson select, #lesson button, #lesson [tabindex='0']").evaluateAll((els) =>
    els.filter((e) => {
      if (e.getAttribute("aria-label")) return false;
      if (e.labels && e.labels.length) return false;
      if (e.getAttribute("aria-labelledby")) return false;
      return !(e.textContent || "").trim();
    }).map((e) => e.outerHTML.slice(0, 80)),
  );
  expect(unlabelled).toEqual([]);
  for (const t of await page.locator("table.heat").all()) {
    await expect(t).toHaveAttribute("role", "table");
    expect((await t.getAttribute("aria-label")).length).toBeGreaterThan(5);
  }
  expect(await page.getByRole("slider").count()).toBeGreaterThan(10);
  expect(await page.getByRole("checkbox").count()).toBeGreaterThan(4);
  expect(await page.getByRole("combobox").count()).toBeGreaterThan(8);
  expect(await page.getByRole("textbox").count()).toBeGreaterThan(6);
  // keyboard: the contents link moves focus to the panel
  await page.getByRole("navigation", { name: "Contents" }).getByRole("link", { name: "Scaling the scores" }).click();
  await expect(page).toHaveURL(/#p4$/);
  expectClean(watch);
});

test("empty, unknown and emoji input show a visible message and the page keeps working", async ({ page, watch }) => {
  await openLesson(page);
  const p2 = panel(page, 2);
  const box = p2.getByRole("textbox", { name: "Sentence (word vectors)" });
  await box.fill("");
  await box.press("Enter");
  await expect(p2.getByText("Type at least one word.")).toBeVisible();
  await box.fill("😀 🎉");
  await box.press("Enter");
  await expect(p2.getByText(/None of these is in the word-vector vocabulary/)).toBeVisible();
  await box.fill("Zzyzxq friend <b>bold</b>");
  await box.press("Enter");
  await expect(p2.getByText(/Not in the vocabulary: zzyzxq/)).toBeVisible();
  await expect(page.locator("#lesson b")).toHaveCount(0); // user text never becomes markup
  // panel 3 follows the shared sentence
  await expect(panel(page, 3).getByRole("table", { name: /one row per query word/ }).locator("thead th")).not.toHaveCount(0);
  // the translator: an emoji is an unknown word, said so, and still translated
  const p6 = panel(page, 6);
  const mbox = p6.getByRole("textbox", { name: "Sentence for the translator" });
  await mbox.fill("😀");
  await mbox.press("Enter");
  await expect(p6.getByText(/The translator never saw: 😀/)).toBeVisible();
  await mbox.fill("");
  await mbox.press("Enter");
  await expect(p6.getByText("Type at least one word.")).toBeVisible();
  // panel 1 still answers
  await panel(page, 1).getByRole("slider", { name: "Kernel width σ" }).fill("2");
  await expect.poll(() => readValue(page, "p1-sum")).toBeCloseTo(1, 5);
  expectClean(watch);
});

for (const lang of ["en", "ko"]) {
  test(`screenshots of every panel, saved for review (asserts only a clean console) (${lang})`, async ({ page, watch }, testInfo) => {
    await openLesson(page, `?lang=${lang}`);
    for (let i = 1; i <= 9; i++) {
      const sec = panel(page, i);
      await sec.scrollIntoViewIfNeeded();
      await sec.screenshot({ path: testInfo.outputPath(`lesson-${lang}-p${i}.png`) });
    }
    expectClean(watch);
  });
}

test("without the translator, every panel that needs it says so, and the rest keeps working", async ({ page }) => {
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.route("**/models/en-ko.safetensors", (r) => r.fulfill({ status: 404, body: "" }));
  await openLesson(page, "?p6.s=the+brother+carried+the+sister");
  // every load has failed by now (panel 9's decoding panel loads the model on its own too)
  await page.waitForLoadState("networkidle");
  const notice = /The trained translator \(models\/en-ko\.safetensors\) is not available/;
  for (const n of [5, 6, 7, 8, 9, 10]) await expect(panel(page, n).getByText(notice).first(), `panel ${n}`).toBeVisible();
  // panel 9's RNN comparison needs only the word vectors' tokenizer
  expect(await readValue(page, "p9-n")).toBe(5);
  expect(await readValue(page, "p9-path")).toBe(4);
  // the word-vector panels still compute
  await expect(panel(page, 1).locator("table").first()).toBeVisible();
  expect(errors).toEqual([]);
});
