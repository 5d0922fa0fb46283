// Every view a page can mount (session.js): the lab lays several out, an embed mounts one.
// A new view is one file here plus one line below; the lab, the embeds and the lesson can then
// all mount it.

export { heatmapPanel } from "./heatmap.js";
export { gridPanel } from "./grid.js";
export { importancePanel } from "./importance.js";
export { weightedPanel } from "./weighted.js";
export { dotPanel } from "./dot.js";
export { qkPanel } from "./qk.js";
export { decodingPanel } from "./decoding.js";
export { orderPanel } from "./order.js";
export { translationPanel } from "./translation.js";
export { nowPanel } from "./now.js";
export { predictionPanel } from "./prediction.js";
export { cardPanel } from "./card.js";
export { headsGuidePanel } from "./heads_guide.js";
export { controlsPanel } from "../controls.js";
