// <attnscope-panel>: one lab panel anywhere, with one script tag.
//
//   <script type="module" src="https://HOST/js/attnscope-panel.js"></script>
//   <attnscope-panel panel="qk" sentence="she is a great friend" lang="ko" layer="1" head="2"></attnscope-panel>
//
// Attributes (all optional; the same values as the lab's URL, layer/head/query/step 1-based):
//   panel     heatmap | weighted | dot | decoding | qk | order      (default heatmap)
//   controls  comma-separated: sentence, stack, layer, head, show, mask, encmask, scale, pe,
//             heads, tables, export                                  (default: per panel)
//   sentence, lang (en|ko), stack (encoder|decoder_self|decoder_cross), layer, head, query,
//   show (weights|scores|logits|value|rollout|saliency), step, heads, mask, encmask, scale,
//   pe, tables (0|1),
//   qk (W_Q/W_K edits, as in the lab's URL: see edits.js)
// Changing an attribute updates the panel. Each element has its own engine and state (they
// share the compiled module and the model file) and renders in its own shadow DOM with the
// site's stylesheets, linked from the same place as this script. The element fires
// `attnscope-change` (detail: {state}) when a reader changes something in it.

import * as S from "./state.js";
import { mountPanel } from "./panel.js";
import { registerServiceWorker } from "./offline.js";

// settles when the first <attnscope-panel> of the page is ready (then the service worker may download)
let panelReady;
const firstReady = new Promise((r) => (panelReady = r));

const STYLES = ["../css/style.css", "../css/views.css", "../css/panel.css"].map((p) => new URL(p, import.meta.url).href);

// A font declared inside a shadow root is not used: the Korean font's @font-face goes into the
// host page, once.
function addFontFaces() {
  const href = new URL("../css/fonts.css", import.meta.url).href;
  if ([.../** @type {NodeListOf<HTMLLinkElement>} */ (document.querySelectorAll('link[rel="stylesheet"]'))].some((l) => l.href === href)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.append(link);
}

export class AttnscopePanel extends HTMLElement {
  static get observedAttributes() {
    return ["panel", "controls", ...Object.keys(S.ATTRIBUTES)];
  }

  constructor() {
    super();
    this.panel = null;
    this.attrState = null;
    this.queued = false;
  }

  /** The state the attributes describe (the lab's defaults for the rest). */
  stateFromAttributes() {
    return S.fromAttributes((name) => this.getAttribute(name));
  }

  connectedCallback() {
    if (this.panel) return;
    addFontFaces();
    const shadow = this.shadowRoot || this.attachShadow({ mode: "open" });
    for (const href of STYLES) {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      shadow.append(link);
    }
    this.attrState = this.stateFromAttributes();
    this.kind = { panel: this.getAttribute("panel"), controls: this.getAttribute("controls") };
    this.panel = mountPanel(shadow, {
      state: this.attrState,
      panel: this.kind.panel,
      controls: this.kind.controls,
      onState: (state) => this.dispatchEvent(new CustomEvent("attnscope-change", { detail: { state }, bubbles: true, composed: true })),
      onReady: () => {
        this.setAttribute("data-ready", "");
        panelReady();
      },
    });
  }

  attributeChangedCallback() {
    if (!this.panel || this.queued) return;
    // several attributes set in a row make one update
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.sync();
    });
  }

  sync() {
    const kind = { panel: this.getAttribute("panel"), controls: this.getAttribute("controls") };
    if (kind.panel !== this.kind.panel || kind.controls !== this.kind.controls) {
      this.kind = kind;
      this.panel.configure(kind);
    }
    const next = this.stateFromAttributes();
    const patch = {};
    for (const k of Object.keys(next)) if (next[k] !== this.attrState[k]) patch[k] = next[k];
    this.attrState = next;
    if (Object.keys(patch).length) this.panel.update(patch);
  }

  /** The panel's current state (after the reader's changes too). */
  get state() {
    return this.panel ? { ...this.panel.state } : null;
  }
}

if (!customElements.get("attnscope-panel")) customElements.define("attnscope-panel", AttnscopePanel);

// On the site's own built pages (they carry <meta name="attnscope-sw">, e.g. the course notes in
// dist/) this makes repeat visits work offline, once the first panel is ready; on anyone else's
// page it does nothing.
registerServiceWorker(firstReady);
