// The controls of a page or a panel: switches, selectors and the labels that follow them.
//
// One binder for both kinds of page. The lab writes its controls in index.html; an embed asks for
// some by name and they are generated here. Either way each control carries
// `data-control="<name>"` and is wired the same way: a checkbox of an engine option runs the
// model again (session.setOption), a selector changes the view (session.select).
//
//   session.mount(controlsPanel, sectionElement, { bind: true })         // the lab's markup
//   session.mount(controlsPanel, div, { names: ["layer", "head"], stack }) // generated
//
// Texts that depend on the switches (elements with `data-follow`: the hints with d_k, the
// formula's /√d_k and +M, the decoder self-attention's name and what it does, the "peeking"
// note, the lead's sentence on what the colours are, the note under a head selector that rollout
// and gradient × input disable) are set here too, so a label never contradicts the state.
// Gradient × input is offered only where a map's rows are outputs (state.saliencySide): elsewhere
// its option is disabled and says why.

import * as S from "./state.js";
import * as C from "./core.js";
import { el, fmt, setText } from "./dom.js";
import { modelKey } from "./i18n.js";

/** Controls an embed can ask for (`controls=` in its URL, the element's `controls` attribute). */
export const CONTROLS = ["sentence", "stack", "layer", "head", "show", "mask", "encmask", "scale", "pe", "heads", "tables", "export"];

/** Engine options behind the checkboxes. */
const OPTIONS = { mask: "causalDecoder", encmask: "causalEncoder", scale: "scale", pe: "positional" };
const LABELS = {
  sentence: "sentence.label",
  stack: "attn.which",
  layer: "attn.layer",
  head: "attn.head",
  show: "attn.show",
  heads: "opt.heads",
  mask: "opt.mask",
  encmask: "opt.encmask",
  scale: "opt.scale",
  pe: "opt.pe",
  tables: "opt.tables",
};

/** Build the named controls (an embed's) into `container`, each labelled. */
function generate(container, names, uid) {
  container.hidden = names.length === 0;
  for (const name of names) {
    const id = `${uid}-${name}`;
    const label = el("label", "", { for: id, "data-label": LABELS[name] });
    let wrap;
    if (name === "sentence") {
      const ta = el("textarea", "ap-sentence-box", { id, rows: 2, spellcheck: "false", autocomplete: "off", autocapitalize: "off", "data-control": name });
      wrap = el("div", "ap-field ap-field-wide");
      wrap.append(label, ta);
    } else if (OPTIONS[name] || name === "tables") {
      wrap = el("div", "ap-check control-row");
      wrap.append(el("input", "", { type: "checkbox", id, "data-control": name }), label);
    } else if (LABELS[name]) {
      wrap = el("div", "ap-field");
      wrap.append(label, el("select", "", { id, "data-control": name }));
    } else continue; // "export" is the heatmap's download row
    container.append(wrap);
    // why the head selector is off in the rollout view (render)
    if (name === "head") container.append(el("p", "hint ap-head-note", { id: `${id}-note`, "data-follow": "head-note", hidden: true }));
  }
}

/** @satisfies {import("./session.js").PanelDef} */
export const controlsPanel = {
  name: "controls",
  uses: ["stack", "layer", "head", "show", "heads", "causalDecoder", "causalEncoder", "scale", "positional", "tables", "sentence", "lang", "knockOut"],
  mount(container, session, opts = {}) {
    if (opts.names) generate(container, opts.names, session.uid);
    // the controls named `name`: inputs (checkbox, radio), selects or the sentence's textarea,
    // each used by its name's kind (hence `any`)
    /** @type {(name: string) => any[]} */
    const all = (name) => [...container.querySelectorAll(`[data-control="${name}"]`)];
    const one = (name) => all(name)[0] || null;
    const t = session.t;

    for (const [name, key] of Object.entries(OPTIONS)) {
      for (const box of all(name)) {
        box.addEventListener("change", async () => {
          const ok = await session.setOption({ [key]: box.checked });
          // the decoder mask changes nothing the encoder's map shows: toggled there (the lab's
          // default view), it brings decoder self-attention on screen, where the triangle opens
          if (ok && name === "mask" && opts.followMask && session.state.stack === "encoder") session.select({ stack: "decoder_self" });
        });
      }
    }
    for (const box of all("tables")) box.addEventListener("change", () => session.setTables(box.checked));
    for (const sel of all("stack")) {
      sel.addEventListener("change", () => (sel.type !== "radio" || sel.checked) && session.select({ stack: sel.value }));
    }
    for (const name of ["layer", "head"]) for (const sel of all(name)) sel.addEventListener("change", () => session.select({ [name]: Number(sel.value) }));
    for (const sel of all("show")) sel.addEventListener("change", () => session.select({ show: sel.value }));
    for (const sel of all("heads")) {
      sel.addEventListener("change", () => {
        const h = Number(sel.value);
        session.setOption({ heads: h === session.info?.nhead ? null : h });
      });
    }
    const ta = one("sentence");
    if (ta) {
      let typing = 0;
      ta.addEventListener("input", () => {
        session.setState({ sentence: ta.value });
        clearTimeout(typing);
        typing = setTimeout(() => session.retranslate(), 350);
      });
      ta.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
          e.preventDefault();
          clearTimeout(typing);
          session.setState({ sentence: ta.value });
          session.retranslate();
        }
      });
    }

    /** Fill a selector with `items` ([value, text, why?]: `why`, a disabled option's reason, its title) unless it already holds them. */
    const fill = (sel, items, value) => {
      const same = sel.options.length === items.length && items.every(([v, text, why], i) => sel.options[i].value === String(v) && sel.options[i].textContent === text && sel.options[i].title === (why ?? ""));
      if (!same) sel.replaceChildren(...items.map(([v, text, why]) => el("option", "", why ? { value: v, disabled: "", title: why } : { value: v }, text)));
      sel.value = String(value);
    };
    /** @param {string} name */
    const follow = (name) => [.../** @type {NodeListOf<HTMLElement>} */ (container.querySelectorAll(`[data-follow="${name}"]`))];

    const view = {
      render() {
        const s = session.state;
        const info = session.info;
        for (const label of /** @type {NodeListOf<HTMLLabelElement>} */ (container.querySelectorAll("label[data-label]"))) setText(label, t(label.dataset.label));
        for (const [name, key] of Object.entries(OPTIONS)) for (const box of all(name)) box.checked = !!s[key];
        for (const box of all("tables")) box.checked = s.tables;
        if (ta && ta.getRootNode().activeElement !== ta && ta.value !== s.sentence) ta.value = s.sentence;
        // the decoder self-attention's name says whether its mask is on
        const open = s.causalDecoder ? "" : ".open";
        const stackName = (x) => t(`stack.${x}${x === "decoder_self" ? open : ""}`);
        for (const sel of all("stack")) {
          if (sel.type === "radio") {
            sel.checked = sel.value === s.stack;
            const span = sel.nextElementSibling;
            if (span) setText(span, stackName(sel.value));
          } else fill(sel, (info ? info.sites.map((x) => x.stack) : S.STACKS).map((x) => [x, stackName(x)]), s.stack);
        }
        for (const e of follow("stack-about")) setText(e, t(modelKey(`stack.${s.stack}${s.stack === "decoder_self" ? open : ""}.about`, info)));
        for (const e of follow("peek")) e.hidden = s.causalDecoder;
        for (const e of follow("attn-lead")) setText(e, t("attn.lead", { colours: t(`attn.colours.${s.show}`) }));
        for (const e of follow("formula-scale")) e.classList.toggle("off", !s.scale);
        const masked = s.stack === "decoder_self" ? s.causalDecoder : s.stack === "encoder" ? s.causalEncoder : false;
        for (const e of follow("formula-mask")) e.hidden = !masked;
        // gradient × input only where the map's rows are outputs; elsewhere its option says why not
        const sal = S.saliencySide(info, opts.stack || s.stack);
        const showItem = (x) => (x === "saliency" && !sal.side ? [x, `${t("show.saliency")} (${t(`show.saliency.no.${sal.reason}`)})`, t(`show.saliency.why.${sal.reason}`)] : [x, t(`show.${x}`)]);
        for (const sel of all("show")) fill(sel, S.SHOWS.map(showItem), s.show);
        // beyond the weights, the formula of what the map shows
        for (const e of follow("formula-show")) {
          e.hidden = s.show !== "value" && s.show !== "rollout" && s.show !== "saliency";
          if (!e.hidden) setText(e, t(`formula.${s.show}`));
        }
        if (!info) return;
        const heads = session.heads();
        const stack = opts.stack || s.stack;
        const count = (n) => Array.from({ length: n }, (_, i) => [i, String(i + 1)]);
        const layers = C.layersOf(info, stack);
        // rollout averages the heads: its map has no head, and the selector says why it is off;
        // gradient × input is of the whole model: no layer either
        const noHead = s.show === "rollout" || s.show === "saliency";
        const noLayer = s.show === "saliency";
        const note = follow("head-note")[0];
        if (note) {
          note.hidden = !noHead;
          if (noHead) setText(note, t(noLayer ? "attn.headSaliency" : "attn.headRollout"));
        }
        /** @param {HTMLSelectElement} sel @param {boolean} off */
        const describe = (sel, off) => {
          sel.disabled = off;
          if (off && note?.id) sel.setAttribute("aria-describedby", note.id);
          else sel.removeAttribute("aria-describedby");
        };
        for (const sel of all("layer")) {
          fill(sel, count(layers), Math.min(s.layer, layers - 1));
          describe(sel, noLayer);
        }
        for (const sel of all("head")) {
          fill(sel, count(heads), s.head);
          describe(sel, noHead);
        }
        const choice = (n) => [n, t("opt.heads.option", { h: n, dk: info.dModel / n }) + (n === info.nhead ? ` ${t("opt.heads.trained")}` : "")];
        for (const sel of all("heads")) fill(sel, info.headChoices.map(choice), heads);
        const dk = info.dModel / heads;
        for (const e of follow("hint-scale")) setText(e, t("opt.scale.hint", { dk, root: fmt(Math.sqrt(dk), 2).replace(/\.?0+$/, "") }));
        for (const e of follow("hint-heads")) setText(e, t("opt.heads.hint", { trained: info.nhead, d: info.dModel }));
      },
    };
    return view;
  },
};
