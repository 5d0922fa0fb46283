// Property tests of the page's parsers (issue 12), with fast-check: whatever arrives in a URL,
// an element's attributes or a message, the page reads it without throwing, keeps only what it
// understands, and writes back what it read. 10,000 cases each.
import fc from "fast-check";
import { test, expect } from "./fixtures.js";
import * as S from "../../www/js/state.js";
import { f32String, encodeEdits, applyEdits } from "../../www/js/edits.js";

const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS || 10_000) };
// properties return booleans (fast); a failure is reported by fast-check with its shrunk case
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const PARAMS = S.FIELDS.map((f) => f.param);

// hostile and odd values for every field: numbers at the edges, markup, right-to-left overrides
const oddValue = fc.oneof(
  fc.string(),
  fc.constantFrom("NaN", "Infinity", "-Infinity", "1e308", "-0", "0", "1", "2", "99999999999", "-1", "1.5", "0x10", " 3", "true", "false", ""),
  fc.constantFrom("<script>alert(1)</script>", "\u202eevil", "한국어", "\u0000", "%00%FF", "e.1.1.q.I", "e.9.9.q.I", "c.2.2.k.d" + "A".repeat(40)),
  fc.integer().map(String),
  fc.double().map(String),
);
const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMS), fc.string()), oddValue), { maxLength: 12 }).map((pairs) => new URLSearchParams(pairs).toString());

/** A state whose every field holds a value of its type (what the page itself produces). */
const validState = fc.record(
  Object.fromEntries(
    S.FIELDS.map((f) => {
      switch (f.type) {
        case "string":
          return [f.key, fc.string({ maxLength: 200 })];
        case "enum":
          return [f.key, fc.constantFrom(...f.values)];
        case "index":
          return [f.key, fc.nat(1000)];
        case "index?":
          return [f.key, fc.option(fc.nat(1000), { nil: null })];
        case "count?":
          return [f.key, fc.option(fc.integer({ min: 1, max: 64 }), { nil: null })];
        case "bool":
          return [f.key, fc.boolean()];
        case "heads":
          return [f.key, fc.subarray(["c1h4", "e1h1", "e2h3", "s1h2", "c2h1"]).map((a) => [...a].sort().join(","))];
        default:
          return [f.key, fc.constantFrom("", "e.1.1.q.I", "c.2.3.k.I*e.1.1.q.5.-.25")];
      }
    }),
  ),
);

/** Every field has a value of its declared type. */
function wellTyped(s) {
  for (const f of S.FIELDS) {
    const v = s[f.key];
    const ok = {
      string: () => typeof v === "string",
      edits: () => typeof v === "string",
      enum: () => f.values.includes(v),
      bool: () => typeof v === "boolean",
      index: () => Number.isInteger(v) && v >= 0,
      "index?": () => v === null || (Number.isInteger(v) && v >= 0),
      "count?": () => v === null || (Number.isInteger(v) && v >= 1),
      heads: () => typeof v === "string" && (v === "" || v.split(",").every((n) => S.HEAD_NAME.test(n))),
    }[f.type]();
    if (!ok) return false;
  }
  return Object.keys(s).length === S.FIELDS.length;
}

test("URL state: any query string parses to a well-typed state, and writing it back is stable", () => {
  fc.assert(
    fc.property(query, (q) => {
      const s = S.fromQuery(q);
      const again = S.fromQuery(S.toQuery(s));
      return wellTyped(s) && same(again, s) && S.toQuery(again) === S.toQuery(s);
    }),
    RUNS,
  );
});

test("URL state: every valid state survives the round trip, in the query string and in the fragment", () => {
  fc.assert(
    fc.property(validState, (s) => same(S.fromQuery(S.toQuery(s)), s) && same(S.fromLocation({ search: "", hash: S.toFragment(s) }), s)),
    RUNS,
  );
});

test("URL state: the fragment wins over the query string, key by key; parameters it does not own are kept", () => {
  fc.assert(
    fc.property(validState, validState, fc.stringMatching(/^[\w .~-]*$/), (a, b, other) => {
      const search = new URLSearchParams(S.toQuery(a));
      search.set("bench", other);
      const loc = { search: `?${search}`, hash: S.toFragment(b) };
      const merged = S.fromLocation(loc);
      const fromHash = new URLSearchParams(S.toFragment(b).slice(1));
      return S.FIELDS.every((f) => same(merged[f.key], fromHash.has(f.param) ? b[f.key] : a[f.key])) && S.locationParams(loc).get("bench") === other;
    }),
    RUNS,
  );
});

test("element attributes: any values give a well-typed state; unknown attributes are ignored", () => {
  const names = [...Object.keys(S.ATTRIBUTES), "panel", "controls", "onclick", "style"];
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom(...names), oddValue), (attrs) => {
      const s = S.fromAttributes((n) => (n in attrs ? attrs[n] : null));
      return wellTyped(s) && same(s, S.fromAttributes((n) => (n in attrs && n in S.ATTRIBUTES ? attrs[n] : null)));
    }),
    RUNS,
  );
});

// A stand-in for engine.js with the demo model's shapes: trained blocks are a fixed pattern.
const INFO = { dModel: 64, nhead: 4, encoderLayers: 2, decoderLayers: 2, headChoices: [1, 2, 4, 8, 16, 32, 64] };
const DK = INFO.dModel / INFO.nhead;
function fakeEngine() {
  return {
    options: {},
    edits: new Map(),
    trained: (stack, layer, head, m) => Float32Array.from({ length: DK * INFO.dModel }, (_, i) => Math.fround(((i * 7 + layer * 3 + head + (m === "q" ? 1 : 2)) % 13) / 50 - 0.12)),
    bad: 0, // blocks that reached the engine with a wrong shape or value
    setBlock(stack, layer, head, m, values) {
      if (values.length !== DK * INFO.dModel || !Array.prototype.every.call(values, (v) => Number.isFinite(v) && Math.abs(v) <= 64)) this.bad += 1;
      this.edits.set(`${stack}/${layer}/${head}/${m}`, Float32Array.from(values));
    },
  };
}
const blockKey = fc.tuple(fc.constantFrom("encoder", "decoder_self", "decoder_cross"), fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 3 }), fc.constantFrom("q", "k"));
const f32 = fc.float({ min: -8, max: 8, noNaN: true }).map(Math.fround);

test("W_Q/W_K edits: any set of edited cells travels exactly (float32 bit for bit) and comes back the same", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(blockKey, fc.array(fc.tuple(fc.nat(DK * INFO.dModel - 1), f32), { minLength: 1, maxLength: 20 })), { maxLength: 4 }), (edits) => {
      const a = fakeEngine();
      for (const [[stack, layer, head, m], cells] of edits) {
        const key = `${stack}/${layer}/${head}/${m}`;
        const values = a.edits.get(key) ?? a.trained(stack, layer, head, m).slice();
        for (const [i, v] of cells) values[i] = v;
        a.edits.set(key, values);
      }
      const text = encodeEdits(a, INFO);
      const b = fakeEngine();
      const done = applyEdits(b, text, INFO);
      const zero = (x) => (Object.is(x, -0) ? 0 : x);
      return (
        done.rejected === 0 &&
        b.bad === 0 &&
        [...a.edits].every(([key, values]) => {
          // a block edited back to its trained values may be left out: then it is the trained one
          const want = b.edits.get(key) ?? a.trained(...key.split("/").map((x, i) => (i === 1 || i === 2 ? Number(x) : x)));
          return want.every((x, i) => zero(x) === zero(values[i]));
        })
      );
    }),
    RUNS,
  );
});

test("W_Q/W_K edits: the shortest decimal of a float32 reads back as the same float32", () => {
  fc.assert(
    fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (x) => {
      const v = Math.fround(x);
      return Math.fround(Number(f32String(v).replace(/^(-?)\./, "$10."))) === v;
    }),
    RUNS,
  );
});

test("W_Q/W_K edits: hostile text never throws, never writes a bad value, and is rejected block by block", () => {
  const part = fc.oneof(
    fc.string(),
    fc.constantFrom("e.1.1.q.I", "s.2.4.k.I", "c.3.1.q.I", "x.1.1.q.I", "e.1.1.q.5.1e308", "e.1.1.q.5.NaN", "e.1.1.q.99999.1", "e.1.1.q.d", "e.0.1.q.I", "e.1.1.q.1.-0"),
    fc.tuple(fc.constantFrom("e", "s", "c", "z"), fc.integer({ min: -2, max: 5 }), fc.integer({ min: -2, max: 9 }), fc.constantFrom("q", "k", "v"), fc.string()).map((p) => p.join(".")),
  );
  fc.assert(
    fc.property(fc.array(part, { maxLength: 6 }), (parts) => {
      const e = fakeEngine();
      const text = parts.join("*");
      const done = applyEdits(e, text, INFO);
      // every block is either applied or counted as rejected; nothing bad reaches the engine
      const blocks = text === "" ? 0 : text.split("*").length;
      return e.bad === 0 && e.edits.size === done.applied && done.applied + done.rejected === blocks;
    }),
    RUNS,
  );
});

test("messages: a host page's resize listener and an embed ignore messages of any other shape or source", async ({ page }) => {
  await page.goto("/examples/course-notes.html");
  const iframe = page.locator("iframe").first();
  await expect.poll(() => iframe.evaluate((f) => f.style.height), { timeout: 30_000 }).toMatch(/^\d+px$/);
  const frame = await (await iframe.elementHandle()).contentFrame();
  await expect(frame.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await frame.evaluate(() => document.fonts.ready.then(() => true));
  const data = fc.oneof(
    fc.anything(),
    fc.record({
      type: fc.constantFrom("attnscope:size", "attnscope:size?", "other"),
      height: fc.oneof(fc.double(), fc.string(), fc.constant(1e9), fc.integer({ min: -10, max: 25_000 }), fc.double({ min: -1, max: 21_000, noNaN: true }).map(String)),
    }),
  );
  // each message with where it comes from: the iframe's window (the only one that counts), the
  // host page itself, or no window at all
  const messages = fc.sample(fc.record({ data, from: fc.constantFrom("frame", "frame", "self", "none") }), 10_000).map(({ data, from }) => ({ data: JSON.parse(JSON.stringify(data ?? null) ?? "null"), from }));

  // 1. the embed (www/js/embed.js) answers {type: "attnscope:size?"} from its parent, and nothing
  // else: counted on the host as size messages from the iframe, up to a marker the iframe posts
  // after the last one (messages from one window to another arrive in order)
  await page.evaluate(() => {
    const f = document.querySelector("iframe");
    window.__sizes = 0;
    window.__sizesAtDone = null;
    addEventListener("message", (e) => {
      if (e.source !== f.contentWindow) return;
      if (e.data?.type === "attnscope:size") window.__sizes += 1;
      if (e.data?.type === "probe-done") window.__sizesAtDone = window.__sizes;
    });
  });
  // the iframe's own size is settled: two reads of the host's sizing agree
  let last = null;
  await expect.poll(async () => { const h = await iframe.evaluate((f) => f.style.height); const still = h === last; last = h; return still; }).toBe(true);
  await frame.evaluate((list) => {
    for (const { data, from } of list) {
      const source = from === "frame" ? window.parent : from === "self" ? window : null;
      window.dispatchEvent(new MessageEvent("message", { data, source }));
    }
    window.parent.postMessage({ type: "probe-done" }, "*");
  }, messages);
  const asks = messages.filter((m) => m.from === "frame" && m.data?.type === "attnscope:size?").length;
  expect(asks).toBeGreaterThan(100);
  await expect.poll(() => page.evaluate(() => window.__sizesAtDone)).not.toBeNull();
  expect(await page.evaluate(() => window.__sizesAtDone), "size messages, one per ask from the parent").toBe(asks);

  // 2. the host's listener (examples/course-notes.js) sizes the iframe that sent a size message
  // with a height in (0, 20000), to that height rounded up, and leaves it alone otherwise.
  // (Synchronous: the frame's real messages cannot land in between.)
  const heights = await page.evaluate((list) => {
    const f = document.querySelector("iframe");
    return list.map(({ data, from }) => {
      f.style.height = "123px";
      const source = from === "frame" ? f.contentWindow : from === "self" ? window : null;
      window.dispatchEvent(new MessageEvent("message", { data, source }));
      return f.style.height;
    });
  }, messages);
  const want = messages.map(({ data, from }) => {
    const h = data?.type === "attnscope:size" && Number(data.height);
    return from === "frame" && h > 0 && h < 20000 ? `${Math.ceil(h)}px` : "123px";
  });
  const resized = want.filter((h) => h !== "123px").length;
  expect(resized, "messages that resize").toBeGreaterThan(100);
  const wrong = messages.flatMap((m, i) => (heights[i] === want[i] ? [] : [`${JSON.stringify(m)}: ${heights[i]}, expected ${want[i]}`]));
  expect(wrong.slice(0, 5), `${wrong.length} messages handled wrongly`).toEqual([]);
});
