// Issue 13 in the lesson: every formula and label follows the switches, instructions that name
// words hold on the reader's own sentence, panel 8 shows LayerNorm before and after its learned
// gamma and beta, panel 6 measures re-split translations by token edit distance, nothing is cut
// off (panel 6's head maps, panel 1's table on a phone), and one Korean glossary and one particle
// helper serve the lab and the lesson.
//   E2E_ROOT=dist npx playwright test tests/e2e/lesson-honest.spec.js
import { devices } from "@playwright/test";
import { test, expect, openApp, shot, expectClean } from "./fixtures.js";
import { particle, withParticle, finalSound } from "../../www/js/korean.js";
import { TABLES, fill, translate } from "../../www/js/i18n.js";
import { STRINGS } from "../../www/js/lesson/strings.js";
import { AVOID, TERMS } from "../../www/js/glossary.js";

const SEED = "Emma hates games, but she's a great friend";
const OWN = "the cat sat on the mat near my dog";

async function openLesson(page, query = "") {
  await page.goto(`/lesson.html${query}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
}

const panel = (page, n) => page.locator(`#p${n}`);
const formulaOf = (page, test) => page.locator(`[data-test="${test}"] .formula-body`);

async function readValue(page, test) {
  const v = await page.locator(`[data-test="${test}"]`).getAttribute("data-value");
  expect(v, test).not.toBeNull();
  return Number(v);
}

/** Words quoted “like this” in a text. */
const quoted = (text) => [...text.matchAll(/“([^”]+)”/g)].map((m) => m[1]);

/** The column names of a heat table. */
const colsOf = (table) => table.evaluate((t) => [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent));

test("item 3: the lesson's formulas and labels follow their switches (scaling, mask, positional encoding, heads)", async ({ page, watch }, testInfo) => {
  await openLesson(page);
  // panel 4 starts with scaling off: no "/√d_k" in its formula; ticking it brings it back
  const p4 = formulaOf(page, "p4-formula");
  await expect(p4).not.toContainText("/ √d_k");
  await expect(p4).toContainText("softmax(Q Kᵀ)");
  await panel(page, 4).getByRole("checkbox", { name: "Divide the scores by √d_k" }).check();
  await expect(p4).toContainText("softmax(Q Kᵀ / √d_k)");

  // panel 5: the mask term "−∞" is there with the mask and gone without it; so is the label
  // that says the first word can only look at itself
  const p5 = formulaOf(page, "p5-formula");
  await expect(p5).toContainText("−∞");
  const first = panel(page, 5).locator('[data-test="p5-first"]').locator("xpath=preceding-sibling::dt");
  await expect(first).toHaveText("the first word can only look at itself");
  await panel(page, 5).getByRole("checkbox", { name: /^Causal mask/ }).uncheck();
  await expect(p5).not.toContainText("−∞");
  await expect(p5).toContainText("for every j");
  await expect(first).not.toContainText("can only look at itself");
  await expect(panel(page, 5).getByRole("table", { name: /^Decoder self-attention with its mask lifted/ })).toHaveCount(1);

  // panel 3: the √2 leaves the formula and the score row when its box is unticked
  const p3 = formulaOf(page, "p3-formula");
  await expect(p3).toContainText("/ √2");
  await panel(page, 3).getByRole("checkbox", { name: "Divide the scores by √2" }).uncheck();
  await expect(p3).not.toContainText("√2");
  await expect(panel(page, 3).locator('[data-test="p3-scores"] th.row-label')).not.toContainText("√2");
  await expect(panel(page, 3).getByRole("table", { name: /\(not scaled\)$/ })).toHaveCount(1);

  // panel 2: ticking "divide by √50" puts √50 into the dot-product formula
  const p2 = formulaOf(page, "p2-formula-dot");
  await expect(p2).not.toContainText("√50");
  await panel(page, 2).getByRole("checkbox", { name: /Divide the scores by √50/ }).check();
  await expect(p2).toContainText("/ √50");

  // panel 7: no PE(p) in the input when positional encoding is off
  const p7 = formulaOf(page, "p7-formula");
  await expect(p7).toContainText("+ PE(p)");
  await panel(page, 7).getByRole("checkbox", { name: "Add positional encoding" }).uncheck();
  await expect(p7).not.toContainText("PE(p)");

  // panel 6: d_k in the formula is the one of the chosen split
  const p6 = formulaOf(page, "p6-formula");
  await expect(p6).toContainText("64 / 4 = 16");
  await panel(page, 6).getByRole("combobox", { name: "Split into heads" }).selectOption("8");
  await expect(p6).toContainText("64 / 8 = 8");
  await shot(page, testInfo, "formulas-follow-switches");
  expectClean(watch);
});

test("item 7: instructions that name words follow the reader's sentence, or offer the lecture's sentence right there", async ({ page, watch }, testInfo) => {
  await openLesson(page);
  const p2 = panel(page, 2);
  const p3 = panel(page, 3);
  const try3 = p3.locator(".try");
  // on the lecture's sentence, panel 3 says what the lecture says
  await expect(try3).toContainText("“friend”");
  await expect(try3).toContainText("“emma”");
  await expect(try3.getByRole("button", { name: "Back to the lecture's sentence" })).toBeHidden();

  // the reader types their own sentence in panel 2
  const box = p2.getByRole("textbox", { name: "Sentence (word vectors)" });
  await box.fill(OWN);
  await box.press("Enter");
  const tokens = OWN.split(" ");
  await expect(try3).not.toContainText("friend");
  await expect(try3).not.toContainText("emma");
  const named3 = quoted(await try3.textContent());
  expect(named3.length).toBeGreaterThan(0);
  for (const w of named3) expect(tokens, `panel 3 names “${w}”`).toContain(w.replace(/ \(\d+\)$/, ""));
  // panel 2's instruction names words of this sentence too, and they are the ones the distance
  // kernel weights most (the engine's row "by position")
  const try2 = await p2.locator(".try").textContent();
  const named2 = quoted(try2);
  expect(named2.length).toBeGreaterThan(0);
  for (const w of named2) expect(tokens, `panel 2 names “${w}”`).toContain(w.replace(/ \(\d+\)$/, ""));
  expect(try2).not.toContain("great");
  const pos = await p2.locator('[data-test="p2-weights"]').evaluate((t) => {
    const cols = [...t.tHead.rows[0].cells].slice(1).map((c) => c.textContent);
    const w = [...t.tBodies[0].rows[0].cells].slice(1).map((c) => Number(c.dataset.value));
    return { cols, w };
  });
  // “word” selected, besides “word” itself, the kernel favours “a” and “b”
  const [sel, self, a, b] = named2;
  expect(self).toBe(sel);
  const others = pos.cols.map((c, i) => [c, pos.w[i]]).filter(([c]) => c !== sel).sort((x, y) => y[1] - x[1]);
  expect([a, b].sort()).toEqual([others[0][0], others[1][0]].sort());

  // "Back to the lecture's sentence" sits in panel 3's instruction and restores it
  await shot(page, testInfo, "own-sentence-try");
  await try3.getByRole("button", { name: "Back to the lecture's sentence" }).click();
  await expect(box).toHaveValue(SEED);
  await expect(try3).toContainText("“emma”");
  await expect(try3.getByRole("button", { name: "Back to the lecture's sentence" })).toBeHidden();

  // panel 9 speaks of the lecture's sentence only when it is on screen, else offers it back
  const p9 = panel(page, 9);
  const try9 = p9.locator(".try");
  await expect(try9.getByRole("button", { name: "Back to the lecture's sentence" })).toBeHidden();
  const mbox = p9.getByRole("textbox", { name: "Sentence for the translator" });
  await mbox.fill("the brother carried the sister");
  await mbox.press("Enter");
  await expect(try9.getByRole("button", { name: "Back to the lecture's sentence" })).toBeVisible();
  await expect(try9).toContainText("go back to it");
  await try9.getByRole("button", { name: "Back to the lecture's sentence" }).click();
  await expect(mbox).toHaveValue(SEED);
  expectClean(watch);
});

test("item 7: panel 5's two sentence boxes say which part each one drives, and one copies the other", async ({ page, watch }, testInfo) => {
  await openLesson(page);
  const p5 = panel(page, 5);
  const wordsBox = p5.getByRole("textbox", { name: /^Sentence for the masking table below/ });
  const modelBox = p5.getByRole("textbox", { name: /^Sentence for the trained decoder below/ });
  await expect(wordsBox).toHaveCount(1);
  await expect(modelBox).toHaveCount(1);
  await expect(wordsBox).toHaveAccessibleDescription(/drives the table right below/);
  await expect(modelBox).toHaveAccessibleDescription(/drives only the decoder's map below/);
  const masking = p5.locator('[data-test="p5-weights"]');
  const decoder = p5.locator('[data-test="p5-decoder"]');
  const decBefore = await colsOf(decoder);
  // the first box drives the masking table and leaves the decoder alone
  await wordsBox.fill("the brother carried the sister");
  await wordsBox.press("Enter");
  await expect.poll(() => colsOf(masking)).toEqual(["the", "brother", "carried", "the (2)", "sister"]);
  expect(await colsOf(decoder)).toEqual(decBefore);
  // the button next to the second box gives the decoder the same sentence
  await p5.getByRole("button", { name: "Use the first box's sentence here" }).click();
  await expect(modelBox).toHaveValue("the brother carried the sister");
  await expect.poll(async () => (await colsOf(decoder)).join(" ")).not.toBe(decBefore.join(" "));
  await expect(p5.getByRole("button", { name: "Use the first box's sentence here" })).toBeHidden();
  await shot(page, testInfo, "panel5-two-boxes");
  expectClean(watch);
});

test("item 8: panel 8 shows LayerNorm's standardised vector (mean 0, variance 1) and the engine's output after γ and β", async ({ page, watch }, testInfo) => {
  await openLesson(page);
  const p8 = panel(page, 8);
  for (const k of ["norm1z", "norm2z"]) {
    expect(Math.abs(await readValue(page, `p8-${k}-mean`)), k).toBeLessThan(1e-5);
    expect(Math.abs((await readValue(page, `p8-${k}-var`)) - 1), k).toBeLessThan(1e-3);
  }
  await expect(p8.locator('[data-test="p8-stage-norm1z"] h3')).toHaveText("Norm, step 1: the sum standardised");
  await expect(p8.locator('[data-test="p8-stage-norm1"] h3')).toContainText("learned scale γ and shift β");
  // the standardised vector is the engine's sum standardised: same shape of numbers, computed here
  const sumVar = await readValue(page, "p8-sum1-var");
  expect(sumVar).toBeGreaterThan(0);
  // the engine's LayerNorm output is gamma * z + beta, with z the LayerNorm's input standardised
  // here (in f64) and gamma, beta read from the model file: every token, every encoder layer,
  // both norms
  const sentence = await p8.getByRole("textbox").first().inputValue();
  expect(sentence.length).toBeGreaterThan(0);
  const ln = await page.evaluate(async (text) => {
    const { Engine } = await import("/js/engine.js");
    const e = new Engine();
    await e.load();
    const bytes = new Uint8Array(await (await fetch("/models/en-ko.safetensors")).arrayBuffer());
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    const f16 = (b) => {
      const s = b & 0x8000 ? -1 : 1;
      const ex = (b >> 10) & 0x1f;
      const m = b & 0x3ff;
      return ex === 0 ? s * m * 2 ** -24 : ex === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (ex - 15);
    };
    const tensor = (name) => {
      const t = header[name];
      if (!t) throw new Error(`no tensor ${name}`);
      const [a, b] = t.data_offsets.map((o) => o + 8 + n);
      const dv = new DataView(bytes.buffer, a, b - a);
      if (t.dtype === "F32") return Array.from({ length: (b - a) / 4 }, (_, i) => dv.getFloat32(4 * i, true));
      if (t.dtype === "F16") return Array.from({ length: (b - a) / 2 }, (_, i) => f16(dv.getUint16(2 * i, true)));
      throw new Error(`${name}: dtype ${t.dtype}`);
    };
    const eps = e.info.layerNormEps;
    const lab = e.lab;
    lab.setSource(text);
    lab.setOptions(e.fullOptions({}));
    const enc = lab.translate().trace.encoder;
    const row = (m, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols));
    let worst = 0;
    let checked = 0;
    enc.layers.forEach((L, l) => {
      const prev = l === 0 ? enc.embed.input : enc.layers[l - 1].ffn.norm_first ? enc.layers[l - 1].ffn.sum : enc.layers[l - 1].ffn.norm;
      [
        [L.self_attn, "norm1", prev],
        [L.ffn, "norm2", L.self_attn.norm_first ? L.self_attn.sum : L.self_attn.norm],
      ].forEach(([part, name, before]) => {
        const gamma = tensor(`transformer.encoder.layers.${l}.${name}.weight`);
        const beta = tensor(`transformer.encoder.layers.${l}.${name}.bias`);
        for (let i = 0; i < part.norm.rows; i++) {
          const x = row(part.norm_first ? before : part.sum, i);
          const mean = x.reduce((a, v) => a + v, 0) / x.length;
          const variance = x.reduce((a, v) => a + (v - mean) ** 2, 0) / x.length;
          const got = row(part.norm, i);
          x.forEach((v, k) => {
            const want = gamma[k] * ((v - mean) / Math.sqrt(variance + eps)) + beta[k];
            worst = Math.max(worst, Number.isNaN(got[k]) ? Infinity : Math.abs(got[k] - want));
            checked += 1;
          });
        }
      });
    });
    return { worst, checked, eps };
  }, sentence);
  expect(ln.eps).toBeGreaterThan(0);
  expect(ln.checked).toBeGreaterThan(100);
  expect(ln.worst, "engine LayerNorm vs gamma * z + beta").toBeLessThanOrEqual(1e-5);
  // no claim that the variance "returns to about 1 after each Norm"
  await expect(p8).not.toContainText("returns to about 1");
  // the table of every word: standardised columns are 0 and 1; the text's range after γ, β is
  // the table's (the engine's LayerNorm output)
  const table = p8.locator('[data-test="p8-across"]');
  const cols = await colsOf(table);
  expect(cols).toEqual(["mean before", "variance before", "mean standardised", "variance standardised", "mean after γ, β", "variance after γ, β"]);
  const rows = await table.evaluate((t) => [...t.tBodies[0].rows].map((r) => [...r.cells].slice(1).map((c) => Number(c.dataset.value))));
  for (const r of rows) {
    expect(Math.abs(r[2])).toBeLessThan(1e-5);
    expect(Math.abs(r[3] - 1)).toBeLessThan(1e-3);
  }
  const after = rows.map((r) => r[5]);
  const text = await p8.locator('[data-test="p8-across-text"]').textContent();
  expect(text).toContain(`from ${Math.min(...after).toFixed(2)} to ${Math.max(...after).toFixed(2)}`);
  // the selected word's after-variance is the same number as its stage's
  const word = await p8.getByRole("combobox", { name: "Word to follow" }).inputValue();
  expect(after[Number(word)]).toBeCloseTo(await readValue(page, "p8-norm1-var"), 6);
  await p8.locator('[data-test="p8-stage-norm1z"]').scrollIntoViewIfNeeded();
  await p8.screenshot({ path: testInfo.outputPath("panel8.png") });
  expectClean(watch);
});

test("item 9 and 11: panel 6 measures re-split translations by token edit distance, and no head-map column label is cut", async ({ page, watch }, testInfo) => {
  await openLesson(page);
  const p6 = panel(page, 6);
  const table = p6.locator('[data-test="p6-splits"]');
  const head = await table.evaluate((t) => [...t.tHead.rows[0].cells].map((c) => c.textContent));
  expect(head[3]).toBe("token edit distance to the trained split");
  expect(head.join(" ")).not.toContain("same words");
  const rows = await table.evaluate((t) =>
    [...t.tBodies[0].rows].map((r) => ({ heads: r.cells[0].textContent, text: r.cells[1].textContent, d: Number(r.cells[3].dataset.value), diff: r.cells[4].textContent })),
  );
  const trained = rows.find((r) => r.heads.includes("as trained"));
  expect(trained.d).toBe(0);
  expect(trained.diff).toBe("none: the same translation");
  for (const r of rows) {
    expect(Number.isInteger(r.d)).toBe(true);
    // a translation is at distance 0 exactly when it is the trained split's translation
    expect(r.d === 0, `${r.heads}: ${r.text}`).toBe(r.text === trained.text);
    if (r.d > 0) expect(r.diff).toMatch(/[−+→]/);
  }
  // the distance is a true edit distance: the page's function on known token lists
  const ed = await page.evaluate(async () => {
    const m = await import("./js/lesson/p6_heads.js");
    return [
      m.tokenEdits(["a", "b", "c"], ["a", "b", "c"]).distance,
      m.tokenEdits(["a", "b", "c"], ["a", "c"]).distance, // one token dropped: 1, not 2 positions
      m.tokenEdits(["a", "b", "c"], ["x", "a", "b", "c"]).distance,
      m.tokenEdits(["엠마", "+는", "친구"], ["엠마", "+는", "좋은", "친구"]).distance,
      m.tokenEdits(["a", "b"], ["c", "d"]).distance,
    ];
  });
  expect(ed).toEqual([0, 1, 1, 1, 2]);

  // every head map's column labels are fully on screen (none cut to "frien")
  const cards = p6.locator("figure.head-card .heat-wrap");
  expect(await cards.count()).toBeGreaterThan(1);
  for (const wrap of await cards.all()) {
    const fit = await wrap.evaluate((w) => {
      const r = w.getBoundingClientRect();
      const labels = [...w.querySelectorAll("th.col-label")].map((th) => th.getBoundingClientRect());
      return { overflow: w.scrollWidth - w.clientWidth, outside: labels.filter((b) => b.right > r.right + 0.5 || b.left < r.left - 0.5).length };
    });
    expect(fit.overflow).toBeLessThanOrEqual(1);
    expect(fit.outside).toBe(0);
  }
  await expect(p6.locator("figure.head-card").first().getByRole("columnheader", { name: "friend", exact: true })).toBeVisible();
  await p6.screenshot({ path: testInfo.outputPath("panel6.png") });
  expectClean(watch);
});

test("item 11: on a phone, every column of panel 1's table (up to wᵢ·yᵢ) is on screen", async ({ browser }, testInfo) => {
  const { defaultBrowserType, ...iphone } = devices["iPhone 13"];
  const context = await browser.newContext(iphone);
  const page = await context.newPage();
  await openLesson(page);
  const table = page.locator('[data-test="p1-table"]');
  await table.scrollIntoViewIfNeeded();
  const fit = await table.evaluate((t) => {
    const wrap = t.parentElement;
    const last = t.tHead.rows[0].cells[t.tHead.rows[0].cells.length - 1];
    return { overflow: wrap.scrollWidth - wrap.clientWidth, right: last.getBoundingClientRect().right, wrapRight: wrap.getBoundingClientRect().right, vw: window.innerWidth, text: last.textContent };
  });
  expect(fit.text).toBe("wᵢ · yᵢ");
  expect(fit.overflow).toBeLessThanOrEqual(1);
  expect(fit.right).toBeLessThanOrEqual(fit.wrapRight + 0.5);
  expect(fit.right).toBeLessThanOrEqual(fit.vw);
  await page.screenshot({ path: testInfo.outputPath("phone-panel1.png") });
  await context.close();
});

test("item 10: one particle helper reads numbers in Sino-Korean and words by their last sound", () => {
  const cases = [
    // [value, particle as written, expected]
    [1, "를", "1을"], [2, "을", "2를"], [3, "를", "3을"], [4, "을", "4를"], [5, "을", "5를"], [6, "를", "6을"],
    [7, "를", "7을"], [8, "를", "8을"], [9, "을", "9를"], [10, "를", "10을"], [20, "를", "20을"], [100, "를", "100을"],
    [1000, "를", "1000을"], [10000, "를", "10000을"], [0, "를", "0을"], [12, "을", "12를"], [64, "을", "64를"],
    [1, "가", "1이"], [2, "이", "2가"], [1, "는", "1은"], [2, "은", "2는"], [3, "와", "3과"], [4, "과", "4와"],
    [1, "으로", "1로"], [7, "으로", "7로"], [3, "로", "3으로"], [6, "로", "6으로"], [10, "로", "10으로"], [2, "으로", "2로"],
    ["4.5", "을", "4.5를"], ["0.25", "이", "0.25가"], ["88%", "이", "88%가"], ["1,000", "를", "1,000을"],
    ["친구", "은", "친구는"], ["게임", "를", "게임을"], ["엠마", "과", "엠마와"], ["서울", "으로", "서울로"], ["집", "로", "집으로"],
    ["emma", "과", "emma와"], ["Tom", "를", "Tom을"], ["friend", "을", "friend를"], ["game", "를", "game을"],
    ["cat", "를", "cat을"], ["“emma”", "은", "“emma”는"], ["<eos>", "은", "<eos>는"], ["→", "을", "→을(를)"],
  ];
  for (const [v, p, want] of cases) expect(withParticle(v, p), `${v} + ${p}`).toBe(want);
  expect(finalSound(3)).toBe("ㅁ");
  expect(particle("헤드 1", "를")).toBe("을");
  // the i18n hook: {name|particle} and {|particle} after a closing quote or a unit
  expect(fill("헤드 {head|를}", { head: 1 })).toBe("헤드 1을");
  expect(fill("헤드 {head|를}", { head: 2 })).toBe("헤드 2를");
  expect(fill("“{word}”{|와} 비교", { word: "she" })).toBe("“she”와 비교");
  expect(fill("{p}%{|이}", { p: 40 })).toBe("40%가");
  expect(fill("{n}개 {missing}", { n: 3 })).toBe("3개 {missing}");
  // a value in Korean strings of both tables
  expect(translate("ko", "opt.scale.hint", { dk: 16, root: "4" })).toContain("√16 = 4로 나눕니다");
  expect(translate("ko", "opt.scale.hint", { dk: 9, root: "3" })).toContain("√9 = 3으로 나눕니다");
  expect(fill(STRINGS.ko["p6.how"], { d: 64, dk: 16, h: 4 })).toContain("d_model = 64를");
  expect(fill(STRINGS.ko["p2.scoreLabel"], { word: "friend" })).toBe("“friend”와 각 단어의 내적 (그대로)");
});

test("item 10: one Korean glossary for the lab and the lesson, no particle glued to a placeholder, no odd phrases", () => {
  const tables = { lab: TABLES.ko, lesson: STRINGS.ko };
  for (const [name, table] of Object.entries(tables)) {
    for (const [key, value] of Object.entries(table)) {
      for (const bad of AVOID) expect(value, `${name} ${key} uses “${bad}”`).not.toContain(bad);
      // a particle right after a placeholder must go through the helper ({x|을}, {|을})
      expect(value, `${name} ${key}`).not.toMatch(/\}[”’"']?(을|를|이|가|은|는|와|과|으로|로)(?=[\s,.)]|$)/u);
      for (const odd of ["새로 만들 단어", "맨 내적", "순서는 한국어로 쓰인 두 글을 따릅니다"]) expect(value, `${name} ${key}`).not.toContain(odd);
    }
  }
  expect(TABLES.ko["attn.layer"]).toBe(TERMS.layer);
  expect(STRINGS.ko["ui.layer"]).toBe(TERMS.layer);
  expect(TABLES.ko["stack.decoder_cross"]).toBe(TERMS.crossAttention);
  expect(STRINGS.ko["p9.cross"]).toBe(TERMS.crossAttention);
  expect(STRINGS.ko["ui.try"]).toBe(`${TERMS.tryThis}:`);
  expect(TABLES.ko["try.pronoun"].startsWith(`${TERMS.tryThis}:`)).toBe(true);
  // the page names its two sources
  expect(STRINGS.ko["page.sources"]).toContain("Attention Is All You Need");
  expect(STRINGS.ko["page.sources"]).toContain("강의");
});

test("item 10: the Korean lab and lesson show the same terms on screen", async ({ page, watch }) => {
  await openApp(page, "?lang=ko");
  await expect(page.getByRole("combobox", { name: "층" }).first()).toBeVisible();
  await expect(page.getByRole("table", { name: "인코더 셀프 어텐션 가중치, 1층 1번 헤드", exact: true })).toHaveCount(1);
  await expect(page.locator("body")).not.toContainText("레이어");
  await expect(page.locator("body")).not.toContainText("크로스 어텐션");
  await openLesson(page, "?lang=ko");
  await expect(page.locator("#lesson")).not.toContainText("레이어");
  await expect(page.locator("#lesson")).not.toContainText("새로 만들 단어");
  await expect(page.locator("#lesson")).not.toContainText("맨 내적");
  await expect(panel(page, 6).getByRole("combobox", { name: "층" })).toBeVisible();
  expectClean(watch);
});
