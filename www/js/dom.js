// Tiny DOM helpers shared by the views. Text always goes in through textContent.

/** Create an element with a class name, attributes and text (never parsed as HTML). */
export function el(tag, cls, attrs = {}, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Set text only when it changed (a write of the same text still costs a layout). */
export function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

const liveStamp = new WeakMap();
/**
 * Text that changes on every frame of a drag: written at most every 150 ms while `live`
 * (each text change costs a layout), always when not live (the drag's final render).
 */
export function setLiveText(e, text, live) {
  if (live) {
    const now = performance.now();
    if (now - (liveStamp.get(e) || 0) < 150) return;
    liveStamp.set(e, now);
  }
  setText(e, text);
}

/** Set an attribute only when it changed. */
export function setAttr(e, name, value) {
  if (e.getAttribute(name) !== value) e.setAttribute(name, value);
}

/**
 * Mark `e` as text in the language `tag` (BCP 47: "ko", "ar"), with its direction, so that
 * screen readers speak it in that language and the browser picks its font and writing
 * direction; an unknown language ("") leaves both unset (the page's).
 * @param {HTMLElement} e @param {string} tag
 */
export function setLanguage(e, tag) {
  if (!tag) {
    e.removeAttribute("lang");
    e.removeAttribute("dir");
    return;
  }
  setAttr(e, "lang", tag);
  let dir = "ltr";
  try {
    const loc = /** @type {any} */ (new Intl.Locale(tag));
    dir = (loc.getTextInfo?.() ?? loc.textInfo)?.direction ?? "ltr";
  } catch {
    /* not a language tag: left to right */
  }
  setAttr(e, "dir", dir);
}

/**
 * A table's scroll box. Shown: a group named `label` that the keyboard can focus, so that it
 * can scroll it (a group, not a region: a map shown twice, as in the Embed dialog's preview,
 * adds no landmark of the same name). Hidden but for screen readers (sr-only): a plain box, no
 * tab stop.
 */
export function tableBox(box, shown, label = "") {
  box.classList.toggle("sr-only", !shown);
  if (shown) {
    box.setAttribute("role", "group");
    box.tabIndex = 0;
    setAttr(box, "aria-label", label);
  } else {
    for (const a of ["role", "tabindex", "aria-label"]) box.removeAttribute(a);
  }
}

/** Cells of a screen-reader table written per idle callback: each then costs one frame of
 * 10 - 30 ms of the browser's style and layout on the machine of the README's benchmarks
 * (a table lays out whole, so a chunk costs more the more rows are already there). */
export const TABLE_CHUNK = 500;

/**
 * Fill a view's screen-reader table (`view.renderTable()`, into `view.table`) once the page is
 * idle, after the maps have been painted, a few rows per idle callback. Laying out a table costs
 * the browser per cell, and a new 64-token sentence brings a 64 x 64 one: built at once, the
 * tables were three quarters of a re-translation (about 190 of 250 ms), and once moved after
 * the paint they still held the page for 100 - 160 ms, a key pressed meanwhile waiting. Until
 * the last row is written the table says it is busy (`aria-busy`), for screen readers and for
 * the tests that read it. `renderTable` is a generator that yields the number of cells each row
 * wrote; a newer fill (new data) abandons an older one. `delay` (ms): wait that long first (a
 * drag refreshes its tables in its pauses).
 */
export function fillTableLater(view, delay = 0) {
  if (view.table.getAttribute("aria-busy") !== "true") view.table.setAttribute("aria-busy", "true");
  const idle = globalThis.requestIdleCallback ?? ((f) => setTimeout(f, 0));
  const fill = (view.tableFill = { rows: null });
  const next = () => {
    if (view.tableFill !== fill) return; // a newer fill took over
    fill.rows ??= view.renderTable(); // the view's latest data
    for (let cells = 0; cells < TABLE_CHUNK; ) {
      const step = fill.rows.next();
      if (step.done) {
        view.table.removeAttribute("aria-busy");
        view.tableFill = null;
        return;
      }
      cells += step.value;
    }
    idle(next, { timeout: 250 });
  };
  clearTimeout(view.tableTimer);
  view.tableTimer = setTimeout(() => idle(next, { timeout: 250 }), delay);
}

/**
 * Call `onShow()` whenever `element` comes into view; `isVisible()` tells whether it is now.
 * Views skip drawing canvases nobody can see and catch up when they scroll into view.
 */
export function watchVisibility(element, onShow) {
  const state = { visible: true };
  new IntersectionObserver(
    (entries) => {
      const v = entries[entries.length - 1].isIntersecting;
      const was = state.visible;
      state.visible = v;
      if (v && !was) onShow();
    },
    { rootMargin: "0px" },
  ).observe(element);
  return () => state.visible;
}

/**
 * A view's canvas painted only when someone can see it: during a drag, `now(true)` says no
 * while `element` is out of view, and the view catches up (`redraw()`) when it scrolls into
 * view; any other paint (`now(false)`) goes ahead.
 * @param {Element} element
 * @param {() => void} redraw
 */
export function paintGate(element, redraw) {
  let stale = false;
  const isVisible = watchVisibility(element, () => stale && redraw());
  return {
    /** Whether to paint now. @param {boolean} live */
    now(live) {
      stale = live && !isVisible();
      return !stale;
    },
  };
}

/**
 * Call `onWidth(width)` whenever `element`'s content width changes to a new non-zero value
 * (whole pixels): views redraw their canvases at the new size.
 */
export function watchWidth(element, onWidth, initial = 0) {
  let last = initial;
  new ResizeObserver((entries) => {
    const w = Math.floor(entries[0].contentRect.width);
    if (w > 0 && w !== last) {
      last = w;
      onWidth(w);
    }
  }).observe(element);
}

/** A fixed-precision number for people: 0.412, −1.05, 12.3 (a real minus sign, no "−0.000"). */
export function fmt(v, digits = 3) {
  if (v === -Infinity) return "−∞";
  if (v === Infinity) return "∞";
  if (Number.isNaN(v)) return "NaN";
  let s = v.toFixed(digits);
  if (/^-0\.?0*$/.test(s)) s = s.slice(1);
  return s.startsWith("-") ? `−${s.slice(1)}` : s;
}

/**
 * A signed value in a map cell's few characters: "−.12", "1.3", "−24"; "" when it rounds to 0
 * (the cell stays quiet; tables and tooltips have every digit). @param {number} v
 */
export function fmtCell(v) {
  const a = Math.abs(v);
  const s = a >= 10 ? a.toFixed(0) : a >= 1 ? a.toFixed(1) : a.toFixed(2).replace(/^0/, "");
  if (Number(s) === 0) return "";
  return v < 0 ? `−${s}` : s;
}

/**
 * A whole count with its thousands grouped by commas (7,797), as both English and Korean write
 * it. Not `toLocaleString`: its first call loads the browser's locale data, 30 - 190 ms on a
 * fresh page in headless Chromium.
 */
export function fmtCount(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ",");
}

/**
 * The float to 7 significant digits, for the tables that screen readers (and tests) read. Values
 * below a millionth print with 6 decimals (0.000001, 0.000000), never in exponent notation
 * (5.535148e-27).
 */
export function fmtExact(v) {
  if (v === 0) return "0";
  if (!Number.isFinite(v)) return v > 0 ? "Infinity" : v < 0 ? "-Infinity" : "NaN";
  if (Math.abs(v) < 1e-6) return v.toFixed(6); // "0.000001", "0.000000": where 7 digits would need an exponent
  return String(Number(v.toPrecision(7)));
}

/** Size a canvas for CSS pixels `w` x `h` at the device pixel ratio; returns the 2D context. */
export function sizeCanvas(canvas, w, h) {
  const dpr = window.devicePixelRatio || 1;
  const bw = Math.max(1, Math.round(w * dpr));
  const bh = Math.max(1, Math.round(h * dpr));
  if (canvas.width !== bw || canvas.height !== bh) {
    canvas.width = bw;
    canvas.height = bh;
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  return g;
}

/** Shorten a label to fit `maxW` CSS pixels with the context's current font. */
export function fitText(g, text, maxW) {
  if (g.measureText(text).width <= maxW) return text;
  let s = text;
  while (s.length > 1 && g.measureText(`${s}…`).width > maxW) s = s.slice(0, -1);
  return `${s}…`;
}

// system-ui is the platform's interface font everywhere (San Francisco, Segoe UI, Roboto, ...):
// naming those as well cost a font lookup each for every script drawn (about 50 - 100 ms of a
// cold start on Linux, where none of them exists). The Korean families come before the page's
// own Korean font (css/fonts.css), so that a system that has one uses it.
/** The family of the page's own Korean font (css/fonts.css). */
const KOREAN_FAMILY = "attnscope Korean";
export const FONT = `12px system-ui, "Noto Sans KR", "NanumGothic", "Apple SD Gothic Neo", "Malgun Gothic", "${KOREAN_FAMILY}", sans-serif`;
export const FONT_SMALL = FONT.replace("12px", "10px");
export const FONT_BOLD = `bold ${FONT}`;

/**
 * Call `redraw` once the page's Korean web font (css/fonts.css) has arrived, if the canvases
 * asked for it and drew before it came (with a fallback, the font downloading meanwhile). The
 * browser asks for it only when no system font named before it in FONT has Hangul, so where one
 * does there is nothing to wait for; and where it was in before the canvases drew, nothing to
 * redraw. (`document.fonts.load` would download it everywhere: it does not look at system
 * fonts.) HTML text needs nothing.
 */
export function whenKoreanFont(redraw) {
  const face = [...(globalThis.document?.fonts ?? [])].find((f) => f.family.replace(/["']/g, "") === KOREAN_FAMILY);
  if (face && face.status !== "loaded") face.loaded.then(redraw, () => {});
}

/**
 * Canvas text looks its fonts up on first use, and on some systems that takes a system font
 * query per family of FONT and per script (about 0.1 s in the lab's first maps on Linux):
 * called while the model downloads, the first maps draw without the wait.
 */
export function warmCanvasFonts() {
  const g = document.createElement("canvas").getContext("2d");
  if (!g) return;
  for (const font of [FONT, FONT_BOLD, FONT_SMALL]) {
    g.font = font;
    g.measureText("Emma 엠마 0.5");
  }
}

// One scratch canvas: matrices are written one pixel per cell, then scaled up with drawImage
// (no smoothing). One putImageData + one drawImage instead of a fillRect per cell.
const scratch = document.createElement("canvas");
/** Paint a Mat into the rectangle (x, y, w, h); `colour(value, px, offset, i)` writes RGBA. */
export function paintCells(g, mat, x, y, w, h, colour) {
  if (scratch.width !== mat.cols || scratch.height !== mat.rows) {
    scratch.width = mat.cols;
    scratch.height = mat.rows;
  }
  const sg = scratch.getContext("2d");
  const img = sg.createImageData(mat.cols, mat.rows);
  const px = img.data;
  const d = mat.data;
  for (let i = 0; i < d.length; i++) colour(d[i], px, i * 4, i);
  sg.putImageData(img, 0, 0);
  // crisp cells when enlarging; averaged when a thumbnail has fewer pixels than cells
  g.imageSmoothingEnabled = w < mat.cols || h < mat.rows;
  g.drawImage(scratch, 0, 0, mat.cols, mat.rows, x, y, w, h);
}

/** Row `i` of a Mat {rows, cols, data} as a Float32Array view (no copy). */
export function row(mat, i) {
  return mat.data.subarray(i * mat.cols, (i + 1) * mat.cols);
}
