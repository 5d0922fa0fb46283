// The lab's sharing tools: "Copy link" (the URL holds the whole view, W_Q/W_K edits included)
// and "Embed this" (a dialog with the snippets for an <iframe> and for <attnscope-panel>).
//
// Copying uses navigator.clipboard; where the browser refuses (permissions, an insecure or
// sandboxed context) the text is put in a read-only box, selected, for Ctrl+C.

import * as S from "./state.js";
import { pageHref } from "./runtime.js";
import { PANELS, CONTROLS, parseControls, mountPanel } from "./panel.js";
import { el } from "./dom.js";

/** The parent page's listener that sizes attnscope iframes to their content (six lines). */
export const RESIZE_SNIPPET = `addEventListener("message", (e) => {
  const h = e.data?.type === "attnscope:size" && Number(e.data.height);
  for (const f of document.querySelectorAll("iframe"))
    if (h > 0 && h < 20000 && f.contentWindow === e.source) Object.assign(f.style, { boxSizing: "content-box", height: \`\${Math.ceil(h)}px\` });
});
for (const f of document.querySelectorAll("iframe")) f.contentWindow?.postMessage({ type: "attnscope:size?" }, "*");`;

// a first height for the iframe, until the dialog's preview has measured the panel
const FRAME_HEIGHT = { heatmap: 640, weighted: 620, decoding: 680, qk: 980, order: 720 };
// the width at which the dialog's preview measures a panel (a course-notes column)
const PREVIEW_WIDTH = 720;

/** The site root: the folder above js/ (the single-file build is one page: its own URL). */
function siteBase() {
  return globalThis.ATTNSCOPE_INLINE ? location.href : new URL("../", import.meta.url).href;
}

function attr(s) {
  return String(s).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The lab's URL for a state. */
export function linkFor(state) {
  return new URL(pageHref("lab", null, S.toQuery(state)), siteBase()).href;
}

/** The view's parameters for an embedded panel: the state in the reader's language, no pair. */
function viewParams(state, lang) {
  return new URLSearchParams(S.toQuery(S.update(state, { lang, pair: false })));
}

/** The embed-mode URL of the view (index.html?embed=1&panel=...#the state). */
function iframeSrc(state, { panel, controls, lang }) {
  const src = new URL(pageHref("lab"), siteBase());
  src.search = `?embed=1&panel=${panel}&controls=${controls.join(",")}`;
  const rest = viewParams(state, lang).toString();
  src.hash = rest ? `#${rest}` : "";
  return src.href;
}

/**
 * `<iframe sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox" src=".../index.html?embed=1&panel=...">`
 * for the view, `height` px tall (measured by the dialog's preview; a first guess per panel
 * otherwise). The panel's "Open in the attnscope lab" link opens in a new tab (allow-popups),
 * where the lab runs unsandboxed (allow-popups-to-escape-sandbox).
 */
export function iframeSnippet(state, { panel, controls, lang, title, height }) {
  return `<iframe sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox" src="${attr(iframeSrc(state, { panel, controls, lang }))}" title="${attr(title)}" width="100%" height="${Math.ceil(height || FRAME_HEIGHT[panel])}" loading="lazy"></iframe>`;
}

/** The script tag and the <attnscope-panel> element for the view. */
export function elementSnippet(state, { panel, controls, lang }) {
  const script = new URL("./attnscope-panel.js", import.meta.url).href;
  const params = viewParams(state, lang);
  const byParam = Object.fromEntries(Object.entries(S.ATTRIBUTES).map(([a, p]) => [p, a]));
  const attrs = [`panel="${panel}"`, `controls="${controls.join(",")}"`, `sentence="${attr(state.sentence)}"`];
  for (const [p, v] of params) {
    if (p === "s" || !byParam[p]) continue;
    attrs.push(`${byParam[p]}="${attr(v)}"`);
  }
  return `<script type="module" src="${attr(script)}"></script>\n<attnscope-panel ${attrs.join(" ")}></attnscope-panel>`;
}

/**
 * Copy `text` to the clipboard; when that is refused, select it in `box` (a read-only field,
 * shown) so that Ctrl+C copies it. Resolves to true when the clipboard took it.
 */
export async function copyText(text, box) {
  try {
    if (!navigator.clipboard?.writeText) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (box) {
      box.value = text;
      box.hidden = false;
      box.closest("[hidden]")?.removeAttribute("hidden");
      box.focus();
      box.select();
    }
    return false;
  }
}

/**
 * Wire the lab's "Copy link" and "Embed this" buttons. `getState()` is the lab's state,
 * `getLang()` its language, `t` its translator.
 */
export function setupShare({ getState, getLang, t }) {
  const $ = (id) => document.getElementById(id);
  const status = $("share-status");
  const fallback = $("share-fallback");
  const linkBox = $("share-link");
  let statusTimer = 0;
  $("btn-copy-link").addEventListener("click", async () => {
    const link = linkFor(getState());
    fallback.hidden = true;
    const ok = await copyText(link, linkBox);
    status.textContent = t(ok ? "share.copied" : "share.copyManual");
    status.hidden = false;
    clearTimeout(statusTimer);
    if (ok) {
      statusTimer = setTimeout(() => {
        status.hidden = true;
      }, 6000);
    }
  });
  // the manual-copy box goes away once the reader is done with it
  linkBox.addEventListener("blur", () => {
    setTimeout(() => {
      if (document.activeElement !== linkBox) {
        fallback.hidden = true;
        status.hidden = true;
      }
    }, 200);
  });
  $("btn-embed").addEventListener("click", () => openEmbedDialog({ state: getState(), lang: getLang(), t }));
}

let dialog = null;
let choice = { panel: "heatmap", controls: null };


/** The "Embed this" dialog: panel and controls to choose, the snippets to copy. */
export function openEmbedDialog({ state, lang, t }) {
  if (!dialog) {
    dialog = el("dialog", "embed-dialog", { id: "embed-dialog", "aria-labelledby": "embed-title" });
    document.body.append(dialog);
  }
  const title = el("h2", "", { id: "embed-title" }, t("embed.title"));
  const lead = el("p", "hint", {}, t("embed.lead"));
  const panelSel = el("select", "", { id: "embed-panel" });
  for (const p of PANELS) panelSel.append(el("option", "", { value: p }, t(`panel.${p}`)));
  panelSel.value = choice.panel;
  const panelRow = el("div", "embed-field");
  panelRow.append(el("label", "field-label", { for: "embed-panel" }, t("embed.panel")), panelSel);

  const ctlBox = el("fieldset", "embed-controls");
  const controlName = {
    sentence: "control.sentence",
    stack: "attn.which",
    layer: "attn.layer",
    head: "attn.head",
    show: "attn.show",
    mask: "opt.mask",
    encmask: "opt.encmask",
    scale: "opt.scale",
    pe: "opt.pe",
    heads: "opt.heads",
    tables: "opt.tables",
    export: "control.export",
  };
  const checks = {};
  const fillControls = () => {
    const allowed = parseControls(CONTROLS.join(","), panelSel.value);
    const chosen = new Set(choice.controls ?? parseControls(null, panelSel.value));
    ctlBox.replaceChildren(el("legend", "field-label", {}, t("embed.controls")));
    for (const c of allowed) {
      const id = `embed-ctl-${c}`;
      const box = el("input", "", { type: "checkbox", id, value: c });
      box.checked = chosen.has(c);
      box.addEventListener("change", () => {
        choice.controls = allowed.filter((x) => checks[x].checked);
        update();
      });
      checks[c] = box;
      const row = el("div", "control-row");
      row.append(box, el("label", "", { for: id }, t(controlName[c])));
      ctlBox.append(row);
    }
  };

  const snippet = (id, name, lines) => {
    const wrap = el("div", "embed-snippet");
    const label = el("label", "field-label", { for: id }, name);
    const area = el("textarea", "code", { id, readonly: true, rows: lines, spellcheck: "false" });
    const btn = el("button", "btn btn-small", { type: "button" }, t("embed.copy"));
    const done = el("span", "embed-copied", { role: "status" });
    btn.addEventListener("click", async () => {
      const ok = await copyText(area.value, area);
      done.textContent = t(ok ? "embed.copied" : "embed.copyManual");
    });
    const bar = el("div", "embed-bar");
    bar.append(btn, done);
    wrap.append(label, area, bar);
    return { wrap, area, btn };
  };
  const frame = snippet("embed-iframe", t("embed.iframe"), 4);
  const elem = snippet("embed-element", t("embed.element"), 4);
  const resize = snippet("embed-resize", t("embed.resize"), 6);
  frame.btn.setAttribute("aria-label", t("embed.copyNamed", { what: t("embed.snippetIframe") }));
  elem.btn.setAttribute("aria-label", t("embed.copyNamed", { what: t("embed.snippetElement") }));
  resize.btn.setAttribute("aria-label", t("embed.copyNamed", { what: t("embed.snippetResize") }));
  resize.area.value = RESIZE_SNIPPET;

  // A live preview: the chosen panel itself, mounted here at the width of a course-notes column
  // (it shares this page's model, nothing is fetched again). Its height goes into the iframe
  // snippet, so that it fits without the resize script (many course platforms strip scripts).
  const previewBox = el("div", "embed-root embed-preview");
  previewBox.style.width = `${PREVIEW_WIDTH}px`;
  const previewNote = el("p", "hint", { role: "status" });
  const previewWrap = el("div", "embed-snippet embed-preview-wrap");
  previewWrap.append(el("h3", "field-label", {}, t("embed.preview")), previewNote, previewBox);
  let measured = null;
  let previewKey = "";
  const measure = () => {
    if (previewBox.querySelector(".ap")?.dataset.ready !== "1") return;
    // what the embed page adds around the panel: the body's margins and padding
    const b = getComputedStyle(document.body);
    const around = ["marginTop", "marginBottom", "paddingTop", "paddingBottom"].reduce((a, k) => a + parseFloat(b[k] || 0), 0);
    const h = Math.ceil(previewBox.getBoundingClientRect().height + around + 8);
    if (h === measured) return;
    measured = h;
    update(false);
  };
  new ResizeObserver(measure).observe(previewBox);

  function update(reload = true) {
    const panel = panelSel.value;
    const controls = choice.controls ?? parseControls(null, panel);
    const opts = { panel, controls, lang, title: t("panel.frameTitle", { what: t(`panel.${panel}`) }) };
    const key = JSON.stringify([panel, controls]);
    if (reload && key !== previewKey) {
      previewKey = key;
      measured = null;
      previewBox.replaceChildren();
      // as the iframe and the element show it: with its "Open in the attnscope lab" link
      mountPanel(previewBox, { state: S.update(state, { lang, pair: false }), panel, controls: controls.join(","), onReady: measure });
    }
    frame.area.value = iframeSnippet(state, { ...opts, height: measured });
    elem.area.value = elementSnippet(state, opts);
    previewNote.textContent = measured ? t("embed.measured", { h: Math.ceil(measured), w: PREVIEW_WIDTH }) : t("embed.measuring");
  }
  panelSel.addEventListener("change", () => {
    choice = { panel: panelSel.value, controls: null };
    fillControls();
    update();
  });

  const close = el("button", "btn", { type: "button", id: "embed-close" }, t("embed.close"));
  close.addEventListener("click", () => dialog.close());
  const head = el("div", "embed-head");
  head.append(title, close);
  const choose = el("div", "embed-choose");
  choose.append(panelRow, ctlBox);
  dialog.replaceChildren(head, lead, choose, frame.wrap, previewWrap, elem.wrap, resize.wrap);
  dialog.lang = lang;
  fillControls();
  update();
  if (!dialog.open) dialog.showModal();
  return dialog;
}
