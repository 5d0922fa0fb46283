// The model card: what the model shown is, read from the engine (Lab.info) and the file's header
// (model_file.js), never written by hand: its family, sizes, attention sites, what the page's
// views mean for this family, the file's own description fields, and its vocabulary (searchable).

import { el, fmtCount, setText } from "../dom.js";
import { siteModel } from "../models.js";

/** How many vocabulary entries the search shows at most. */
const SHOWN = 300;

/** @satisfies {import("../session.js").PanelDef} */
export const cardPanel = {
  name: "card",
  uses: ["lang"],
  mount(container, session, opts = {}) {
    const t = session.t;
    const uid = session.uid;
    const title = el(opts.heading || "h3", "sub");
    const name = el("p", "card-name", { "data-test": "model-name" });
    const facts = el("dl", "card-facts");
    const sitesTitle = el("h4", "card-sub");
    const sites = el("ul", "card-sites", { "data-test": "sites" });
    const viewsTitle = el("h4", "card-sub");
    const views = el("p", "hint");
    const aboutTitle = el("h4", "card-sub");
    const about = el("dl", "card-facts");
    const vocabTitle = el("h4", "card-sub", { id: `${uid}-vocab-title` });
    const searchLabel = el("label", "field-label", { for: `${uid}-vocab-search` });
    const search = el("input", "", { type: "search", id: `${uid}-vocab-search`, autocomplete: "off", spellcheck: "false" });
    const count = el("p", "hint", { role: "status" });
    // scrolls: focusable, so that a keyboard can scroll it too
    const vocab = el("p", "tokens card-vocab", { "data-test": "vocab", tabindex: 0, role: "group", "aria-labelledby": `${uid}-vocab-title` });
    container.append(title, name, facts, sitesTitle, sites, viewsTitle, views, aboutTitle, about, vocabTitle, searchLabel, search, count, vocab);

    /** @param {HTMLElement} dl @param {[string, string][]} pairs */
    const fill = (dl, pairs) => dl.replaceChildren(...pairs.flatMap(([k, v]) => [el("dt", "", {}, k), el("dd", "", {}, v)]));

    function renderVocab() {
      const words = session.info?.srcVocab ?? [];
      const q = search.value.trim().toLowerCase();
      const hits = q ? words.filter((w) => w.toLowerCase().includes(q)) : words;
      setText(count, t(q ? "card.vocab.hits" : "card.vocab.all", { n: fmtCount(hits.length), shown: Math.min(SHOWN, hits.length) }));
      vocab.replaceChildren(...hits.slice(0, SHOWN).map((w) => el("span", "chip", {}, w)));
    }
    search.addEventListener("input", renderVocab);
    // the model and language drawn: a new run of the same model changes nothing here
    let drawn = { info: null, lang: "" };

    return {
      render() {
        const { info, engine } = session;
        if (!info || !engine) return;
        if (drawn.info === info && drawn.lang === session.lang) return;
        drawn = { info, lang: session.lang };
        const file = engine.file;
        setText(title, t("card.title"));
        const site = siteModel(engine.name);
        setText(name, site ? t(`${site.label}.card`) : t("card.opened", { name: engine.name }));
        const layers = info.sites.map((s) => t("card.siteLayers", { site: t(`stackName.${s.stack}`), layers: s.layers })).join(", ");
        /** @type {[string, string][]} */
        const rows = [
          [t("card.family"), t(`card.arch.${info.architecture}`)],
          [t("card.output"), t(`card.out.${info.output}`)],
          [t("card.width"), t("card.widthValue", { d: info.dModel, h: info.nhead, dk: info.dModel / info.nhead, ff: info.dimFeedforward })],
          [t("card.layers"), layers],
          [t("card.norm"), t(info.normFirst ? "card.preNorm" : "card.postNorm", { eps: info.layerNormEps.toExponential(0) })],
          [t("card.positional"), `${info.positional}, ${t("card.maxLen", { n: info.maxLen })}`],
          [t("card.vocab"), fmtCount(info.srcVocab.length)],
        ];
        if (file) rows.push([t("card.size"), t("card.sizeValue", { params: fmtCount(file.params), tensors: file.tensors, kb: fmtCount(Math.round(file.bytes / 1024)) })]);
        fill(facts, rows);
        setText(sitesTitle, t("card.sites"));
        sites.replaceChildren(
          ...info.sites.map((s) =>
            el("li", "", {}, t("card.site", { label: t(`stackName.${s.stack}`), letter: s.letter, layers: s.layers, heads: s.heads, rows: t(`card.seq.${s.rows}`), cols: t(`card.seq.${s.cols}`), mask: t(s.causal ? "card.causal" : "card.full") })),
          ),
        );
        setText(viewsTitle, t("card.views"));
        setText(views, t(`card.meaning.${info.architecture}`));
        const own = Object.entries(file?.about ?? {});
        aboutTitle.hidden = about.hidden = !own.length;
        setText(aboutTitle, t("card.about"));
        fill(about, own.map(([k, v]) => [k, v.length > 500 ? `${v.slice(0, 500)}…` : v]));
        setText(vocabTitle, t("card.vocabTitle"));
        setText(searchLabel, t("card.search"));
        renderVocab();
      },
    };
  },
};
