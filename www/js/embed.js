// Embed mode (index.html?embed=1): one panel for an <iframe>, none of the rest of the lab.
//
//   <iframe sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox" src="https://HOST/index.html?embed=1&panel=qk&controls=layer,head&s=...">
//
// `panel` = heatmap | weighted | dot | decoding | qk | order; `controls` = a comma-separated list
// (panel.js CONTROLS; none named = the panel's defaults, `controls=` = none). Every other
// parameter is the lab's own (state.js, edits.js), so a lab link plus embed=1 embeds that view.
//
// A sandboxed iframe without allow-same-origin has an opaque origin: no storage, clipboard or
// service worker, and history may refuse to change the URL; every such call is guarded. The
// panel's "Open in the attnscope lab" link opens a new tab: the snippet's allow-popups lets it,
// and allow-popups-to-escape-sandbox gives the lab there an origin of its own (a frame embedded
// with allow-scripts alone still shows the link; the browser then refuses the new tab). The page
// posts its height to the parent whenever it changes, and when the parent asks with
// {type: "attnscope:size?"}: {type: "attnscope:size", height} (the parent's listener is in
// share.js RESIZE_SNIPPET and examples/course-notes.js).

import * as S from "./state.js";
import { mountPanel } from "./panel.js";
import { translate } from "./i18n.js";
import { el } from "./dom.js";

/** Post the document's height to the parent frame whenever it changes. */
function postSize() {
  if (window.parent === window) return;
  let last = -1;
  const send = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    try {
      window.parent.postMessage({ type: "attnscope:size", height }, "*");
    } catch {
      /* no parent to tell */
    }
  };
  new ResizeObserver(send).observe(document.documentElement);
  // The parent may ask (its listener can start after our first message): answer every time.
  addEventListener("message", (e) => {
    if (e.source === window.parent && e.data?.type === "attnscope:size?") {
      last = -1;
      send();
    }
  });
  send();
}

export function startEmbed(params) {
  document.documentElement.classList.add("embed");
  const root = el("main", "embed-root");
  document.body.replaceChildren(root);
  const state = S.fromLocation();
  const panel = mountPanel(root, {
    state,
    panel: params.get("panel"),
    controls: params.get("controls"),
    heading: "h1", // the page's own title
    onState: S.mirror,
    onReady: () => {
      document.body.dataset.ready = "1";
    },
  });
  root.setAttribute("aria-labelledby", panel.titleEl.id); // one main landmark per page, named
  document.documentElement.lang = panel.lang;
  document.title = `${translate(panel.lang, `panel.${panel.panel}`)} · attnscope`;
  postSize();
  return panel;
}
