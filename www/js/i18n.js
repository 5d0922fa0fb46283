// Every piece of interface text, in English and Korean.
//
// `t(key, params)` looks a key up in the current language (falling back to English) and fills
// `{name}` placeholders. Static elements carry `data-i18n="key"` (text) or
// `data-i18n-aria-label="key"`; `applyI18n(root)` fills them. Views call `t` when they render,
// so switching language is: setLang(), applyI18n(document), render again.
// Strings are plain text (never parsed as HTML).

import { particle } from "./korean.js";
import { TERMS as G } from "./glossary.js";

const en = {
  "app.title": "attnscope",
  "app.tagline": "Watch attention at work inside a small English → Korean Transformer, running entirely in your browser.",
  "nav.skip": "Skip to the attention maps",
  "lang.label": "Language",
  "nav.lesson": "Guided lesson: from a weighted average to the Transformer",
  "lang.en": "English",
  "lang.ko": "한국어",
  "banner.close": "Dismiss",

  "status.loading": "Loading the model…",
  "status.restart": "Restarting the engine…",

  "sentence.title": "Sentence in, translation out",
  "sentence.label": "English sentence",
  "sentence.hint": "Type any English sentence: the translation follows as you type (Enter translates at once).",
  "sentence.knows": "The model knows about {n} words of everyday English; unknown words are underlined and copied through unchanged.",
  "examples.title": "Try these",
  "examples.button": "{label}: {sentence}",
  "unknown.summary": "unknown word: {words}",
  "unknown.summaryMany": "unknown words: {words}",
  "unknown.word": "unknown word:",
  "unknown.try": "try",
  "unknown.group": "Suggestions for “{word}”",
  "unknown.replace": "Replace '{word}' with '{with}'",
  "unknown.cosine": "cosine similarity of the GloVe word vectors: {c}",
  "unknown.none": "no suggestion",
  "unknown.loading": "looking for similar words…",
  "copy.tip": "copied from '{word}' by cross-attention, weight {w}",
  "translation.copied": "Copied from the source through cross-attention: {words}.",
  "sentence.seed": "Back to the example sentence",
  "sentence.tokens": "Tokens the model reads",
  "sentence.output": "Korean translation (greedy decoding)",

  "notice.unknown": "Not in the model's vocabulary, so read as <unk> (unknown word): {words}. Try a simpler everyday word.",
  "notice.unknownChip": "unknown word",
  "notice.droppedChip": "+{n} not read",
  "notice.trunc": "This sentence is longer than the model's limit of {max} tokens: the last {n} tokens were left out.",
  "translation.nothing": "(the model wrote no words)",
  "translation.meta": "{n} tokens generated.",
  "translation.unfinished": "It stopped at the length limit before writing <eos>.",
  "translation.edited": "Your W_Q/W_K edits are in force.",
  "input.empty": "Type an English sentence to translate.",
  "input.emptyKeep": "The box is empty: type an English sentence. The panels still show the last one.",

  "error.engine": "The engine could not do that: {message}",
  "error.broken": "The engine stopped after an internal error. It restarts on your next change.",
  "error.panic": "The engine hit an internal error ({message}). It restarts on your next change; your sentence and settings are kept.",
  "error.load": "Could not load the model ({url}): {message}",

  "controls.title": "Live controls",
  "controls.lead": "Each switch changes how attention is computed. The engine runs again at once and every panel updates.",
  "opt.mask": "Causal mask in the decoder",
  "opt.mask.hint": "The decoder writes Korean from left to right, so word i may only look at words 1 to i. Turn the mask off, then look at decoder self-attention: weight appears above the diagonal.",
  "opt.mask.peek": "Mask off: the decoder is peeking at the future. Each position now also sees the words after it. In training it could copy the very word it is meant to predict, so it would learn nothing. The translation is still written one word at a time, but earlier positions now see each new word, so it may change.",
  "opt.encmask": "Causal mask in the encoder too",
  "opt.encmask.hint": "The encoder normally reads the whole English sentence in both directions. With a mask, each English word sees only the words before it: the encoder map becomes a lower triangle.",
  "opt.scale": "Divide scores by √d_k",
  "opt.scale.hint": "Each head compares queries and keys in d_k = {dk} dimensions. Dot products grow with d_k, so they are divided by √{dk} = {root}. Switch this off: scores become {root}× larger, softmax hands almost all the weight to the top key, and the rows turn sharp (see the peak value under the heatmap).",
  "opt.pe": "Positional encoding",
  "opt.pe.hint": "Adds a position signal to every word vector. Without it, attention knows which words are present but not their order: to the encoder, “the brother carried the sister” and “the sister carried the brother” look the same.",
  "order.jump": "Compare the brother/sister pair ↓",
  "opt.heads": "Number of heads",
  "opt.heads.hint": "The model was trained with {trained} heads. The same weights can be cut into more, thinner heads or fewer, wider ones (d_k = {d} / heads). Each head's softmax then compares another group of dimensions, so every map changes; whether the translation changes depends on the sentence (compare it with the trained setting). Changing this clears your W_Q/W_K edits.",
  "opt.heads.option": "{h} (d_k = {dk})",
  "opt.heads.trained": "— as trained",
  "opt.tables": "Show heatmaps as tables",

  "attn.title": "Attention: who looks at whom",
  "attn.lead": "Each row is a word asking a question (its query); each column is a word that may answer (its key). A row's colours are that word's attention weights: never negative, and they add up to 1. Hover over a cell, or focus the map and use the arrow keys, to read its numbers. Click a row to follow that word in the panels below.",
  "attn.formulaName": "weights",
  "attn.which": "Which attention",
  "attn.layer": "Layer",
  "attn.head": "Head",
  "attn.show": "Colour by",
  "attn.coloured": "colour: {what}",
  "attn.rows": "rows: queries",
  "attn.cols": "columns: keys",
  "attn.peak": "Peak: on average, the strongest key in a row takes {p} of the weight (1 would mean every word looks at a single word).",
  "stack.encoder": "Encoder self-attention",
  "stack.decoder_self": "Decoder self-attention (masked)",
  "stack.decoder_self.open": "Decoder self-attention (no mask)",
  "stack.decoder_self.open.about": "Korean words attend to the Korean words of the translation. The mask is off, so each word also sees the ones after it: weight appears above the diagonal.",
  "stack.decoder_cross": "Cross-attention",
  "stack.encoder.about": "English words attend to English words: each word's new vector is a blend of the words it looks at, so a word can pick up meaning from the rest of the sentence.",
  "stack.decoder_self.about": "Korean words attend to the Korean words already written (<bos> starts the sentence). The mask stops each word from seeing the ones after it.",
  "stack.decoder_cross.about": "Each Korean position (query) looks at the English sentence; keys and values come from the encoder's output. This is where the translation finds its source words.",
  "try.pronoun": "Try this: in layer {layer}, head {head}, the pronoun “{pron}” puts {p}% of its attention on “{word}”, a word it could refer to. A head like this one carries what a pronoun stands for into its vector; a weight shows where the head looks, not proof of what the model understood.",
  "try.pronounHere": "In this head, the pronoun “{pron}” puts {p}% of its attention on “{word}”, a word it could refer to. A weight shows where the head looks, not proof of what the model understood.",
  "try.pronounOther": "In this head (layer {layer}, head {head}), “{pron}” looks mostly at “{word}” ({p}%), which is not a word “{pron}” could refer to. None of the encoder's heads looks mostly from it to a word it could stand for. A weight shows where a head looks, not what the model understood.",
  "try.show": "Show me",
  "stackName.encoder": "encoder self-attention",
  "stackName.decoder_self": "decoder self-attention",
  "stackName.decoder_cross": "cross-attention",
  "show.weights": "Weights (after softmax)",
  "show.scores": "Raw scores QKᵀ",
  "show.logits": "Scaled and masked scores",
  "show.value": "Value-weighted contributions",
  "show.rollout": "Rollout through the layers",
  "label.value": "{stack} value-weighted contributions, layer {layer}, head {head}",
  "label.rollout": "{stack} rollout through layer {layer} (all heads)",
  "legend.value": "Each query's contributions ‖w_ij · v_j W_O‖ as shares of its row, from 0 (white) to 1 (dark purple): a big weight on a short value vector is a small contribution (Kobayashi et al. 2020).",
  "legend.rollout": "How much of each word's vector, through every layer up to this one and the residual path, comes from each input word (Abnar & Zuidema 2020): 0 (white) to 1 (dark purple); rows sum to 1.",
  "cell.value": "share of the contributions",
  "cell.rollout": "rollout",
  "formula.value": "contribution_ij = ‖ w_ij · v_j W_O^(h) ‖, shown as a share of row i",
  "formula.rollout": "Ã_l = rownorm(½ · mean over heads of A_l + ½ · I);  rollout = Ã_l ⋯ Ã_1",
  "wavg.norms": "Weight × length of the value vector after W_O = contribution:",
  "wavg.normTerm": "“{word}” {w} × {n} = {c}",
  "grid.knock": "Switch heads off (knock-out): the translation, every map and the decoding steps follow.",
  "grid.knockLayer": "Layer {n}",
  "grid.knockOne": "H{head}: knock out {stack} layer {layer} head {head}",
  "grid.restore": "Restore all heads",
  "grid.off": "{n} heads off",
  "imp.title": "Which heads matter?",
  "imp.lead": "For each head: how much the log-probability of this translation drops when that head alone is switched off (teacher-forced, one run per head). Big weights and big importance are not the same thing.",
  "imp.run": "Rank the heads",
  "imp.running": "Running the model once per head…",
  "imp.done": "Log-probability of this translation: {base}. Most important: {top}.",
  "imp.cell": "{head}: {d}",
  "imp.knock": "Knock out {head}",
  "imp.cost": "{n} heads, one run each: {ms} ms",
  "legend.weights": "Attention weight from 0 (white) to 1 (dark purple). Hatched cells are masked.",
  "legend.scores": "{what}: olive = negative, white = 0, purple = positive (up to ±{r}). Hatched cells are masked.",
  "legend.qk": "Matrix cells: olive = negative, white = 0, purple = positive (up to ±{r}).",
  "label.heatmap": "{stack} weights, layer {layer}, head {head}",
  "label.pair": "{stack} weights, layer {layer}, head {head}: {sentence}",
  "heatmap.keys": "Arrow keys move between cells and choose the query row; the numbers are read out under the map.",
  "cell.raw": "raw score q·k",
  "cell.scaled": "scaled/masked",
  "cell.masked": "masked (−∞)",
  "cell.weight": "weight",
  "table.queryKey": "query \\ key",
  "table.headKey": "head \\ source word",

  "grid.title": "All heads at a glance",
  "grid.hint": "One small map per head; each row is a layer. Heads in the same layer look for different things. Click one to open it above.",
  "grid.layer": "Layer {n}",
  "grid.head": "Head {n}",
  "grid.thumb": "Layer {layer}, head {head}",

  "wavg.title": "Self-attention is a weighted average",
  "wavg.lead": "Attention does not pick one word: it blends them. For the chosen query word, each word's value vector v_j (green strip) is multiplied by its weight w_ij, and the results are added up. The last row is the head's output for that word: its new, context-aware vector. Click a row in the heatmap or choose a word here, then drag a W_Q cell above and watch the blend shift.",
  "wavg.note": "Weights, value vectors and the output come straight from the engine; the page only multiplies each weight by its value vector to draw the terms. The value column has its own scale; the terms and their sum share one, so the sum row is the column above it added up.",
  "wavg.query": "Query word",
  "wavg.more": "({n} more terms)",
  "wavg.canvas": "Weighted average for the query “{query}”: weights, value vectors, weighted terms and their sum",
  "wavg.colKey": "key j",
  "wavg.colWeight": "weight w",
  "wavg.colValue": "value v_j",
  "wavg.colTerm": "w · v_j",
  "wavg.sumRow": "sum = output",
  "wavg.table": "Weighted average for “{query}”, {label}: weights, terms w·v_j and the head output",
  "wavg.dim": "dim",

  "qk.title": "Query and key matrices: drag to rewire attention",
  "qk.lead": "A score is the dot product of a query q_i = W_Q x_i and a key k_j = W_K x_j. Each cell below is one number of this head's W_Q or W_K. Drag a cell up or down (or focus a grid and press ↑ / ↓): the map just above the grids (it stays in view while you edit), the maps of section 2 and the weighted average below change while you move. Try “Identity”: with W_Q = W_K = I the head compares the words' own vectors, so similar words attend to each other.",
  "qk.score": "score",
  "qk.titleQ": "W_Q (query): {dk} × {d}",
  "qk.titleK": "W_K (key): {dk} × {d}",
  "qk.sliderLabel": "{name} cells of {stackName}, layer {layer}, head {head}",
  "qk.keys": "Up and Down arrows change the selected cell (hold Shift for finer steps). Left, Right, Home and End move along the row; Page Up and Page Down move between rows.",
  "qk.cell": "row {r} of {rows}, column {c} of {cols}: {v}",
  "qk.context": "Editing {stackName}, layer {layer}, head {head}. Rows are the head's d_k dimensions; columns are the d_model input dimensions.",
  "qk.identity": "Identity (W_Q = W_K = I)",
  "qk.reset": "Reset all edits",
  "qk.edits": "Edited blocks in force: {n}",
  "qk.noEdits": "No edits: trained weights",
  "qk.touchGroup": "Edit {name}",
  "qk.touchSlider": "Value of {name}",
  "qk.touchMinus": "Decrease {name}",
  "qk.touchPlus": "Increase {name}",
  "qk.touchDone": "Done",

  "dec.title": "Decoding step by step",
  "dec.lead": "The decoder writes the translation one token at a time. At each step it reads <bos> and the tokens chosen so far, scores every Korean token and keeps the most probable one (greedy decoding). Step through and see which English words cross-attention looked at for each choice.",
  "dec.prev": "◀ Previous step",
  "dec.next": "Next step ▶",
  "dec.slider": "Decoding step",
  "dec.position": "step {k} of {n}: {token}",
  "dec.prefix": "What the decoder has written so far",
  "dec.top": "Top 5 next tokens",
  "dec.chosen": "Chosen: “{token}” ({p}%)",
  "dec.blocked": "The most probable token, “{token}”, was passed over: it would have made a word, or a pair of words, come three times in a row, and the decoder never does that.",
  "dec.cross": "Cross-attention at this step (layer {layer}, every head)",
  "dec.crossLabel": "cross-attention weights, layer {layer}, step {k} ({token}): heads × source words",
  "dec.copy": "The model wrote <unk> here, and the page prints the source word it copies:",
  "dec.copyLayer": "the weight is the mean over the heads of layer {layer}, the last",

  "order.title": "Word order needs positional encoding",
  "order.lead": "These two sentences use the same words in a different order. Attention compares words only through their vectors, so without positional encoding the encoder sees two shuffled copies of the same thing: once the words are lined up, the weights are identical. Switch positional encoding off and compare.",
  "order.pe": "Positional encoding (the same switch as in Live controls)",
  "order.button": "Compare the two sentences",
  "order.same": "{pe}: identical up to the word order (largest difference once the words are lined up: {d}).",
  "order.differ": "{pe}: the two maps differ (largest difference once the words are lined up: {d}).",
  "order.sameHere": "{pe}, but this head (layer {layer}, head {head}) does not use word order: once the words are lined up its two maps are the same (largest difference {d}). Other heads do: see below.",
  "order.most": "Word order matters most in layer {layer}, head {head} (largest difference {d}).",
  "order.mostShow": "Show layer {layer}, head {head}",
  "order.peOn": "Positional encoding on",
  "order.peOff": "Positional encoding off",

  "foot.model": "Model: d_model = {d}, {h} heads, {enc} encoder + {dec} decoder layers, feed-forward width {ff}, up to {max} tokens, {vocab} English words.",
  "foot.offline": "Everything runs in your browser with WebAssembly; nothing you type leaves this page.",

  "share.group": "Share this view",
  "share.copyLink": "Copy link",
  "share.copied": "Link copied: whoever opens it sees this exact view, edits included.",
  "share.copyManual": "Your browser did not let the page copy. The link is selected in the box below: press Ctrl+C (⌘C on a Mac).",
  "share.linkLabel": "Link to this view",
  "share.embed": "Embed this",
  "link.badEdits": "Some W_Q/W_K edits in this link could not be read and were ignored (blocks ignored: {n}); the trained weights are used there. The rest of the link applies.",

  "export.label": "Download this map:",
  "export.as": "Download the map as {fmt}",
  "export.done": "Saved {name}.",
  "export.legend": "attention weight",
  "export.failed": "Could not make the file: {message}",

  "embed.title": "Embed this view",
  "embed.lead": "Put this view on your own page: course notes, slides, a blog. It runs in your readers' browsers, like this lab. Choose the panel and the controls your readers get; the snippets follow your choice and keep the sentence, settings and edits you have now.",
  "embed.panel": "Panel",
  "embed.controls": "Controls your readers get",
  "embed.iframe": "As an iframe: paste it anywhere that accepts HTML. The sandbox keeps it apart from your page.",
  "embed.element": "As an element: the script tag once per page, then the element wherever the panel should appear (several on one page are fine).",
  "embed.resize": "Optional: let iframes grow with their content (once per page, in a script file of yours).",
  "embed.copy": "Copy",
  "embed.copyNamed": "Copy the {what}",
  "embed.copied": "Copied.",
  "embed.copyManual": "Selected: press Ctrl+C (⌘C on a Mac).",
  "embed.close": "Close",
  "embed.snippetIframe": "iframe snippet",
  "embed.snippetElement": "element snippet",
  "embed.snippetResize": "resize script",
  "embed.preview": "Preview",
  "embed.measuring": "Measuring the panel's height…",
  "embed.measured": "The iframe snippet is {h} px tall: the height of this preview at {w} px wide, so it fits without any script. In a narrower column, add the resize script below or raise the height.",

  "panel.heatmap": "Attention heatmap",
  "panel.weighted": "Weighted average",
  "panel.decoding": "Decoding step by step",
  "panel.qk": "W_Q/W_K editor and heatmap",
  "panel.order": "Word order and positional encoding",
  "panel.heads": "All heads: switch them off, rank them",
  "panel.open": "Open in the attnscope lab ↗",
  "panel.frameTitle": "attnscope: {what}",
  "control.sentence": "Sentence box",
  "control.export": "Download buttons",
};

const ko = {
  "app.title": "attnscope",
  "app.tagline": "작은 영어→한국어 트랜스포머 안에서 어텐션이 어떻게 움직이는지 직접 확인해 보세요. 모든 계산은 브라우저 안에서 이루어집니다.",
  "nav.skip": "어텐션 지도로 건너뛰기",
  "lang.label": "언어",
  "nav.lesson": "차근차근 배우기: 가중평균에서 트랜스포머까지",
  "lang.en": "English",
  "lang.ko": "한국어",
  "banner.close": "닫기",

  "status.loading": "모델을 불러오는 중…",
  "status.restart": "엔진을 다시 시작하는 중…",

  "sentence.title": "문장을 넣으면 번역이 나옵니다",
  "sentence.label": "영어 문장",
  "sentence.hint": "영어 문장을 입력하면 치는 대로 번역이 바뀝니다(Enter를 누르면 바로 번역).",
  "sentence.knows": "이 모델은 일상 영어 단어를 약 {n}개 압니다. 모르는 단어에는 밑줄이 그어지고, 번역에는 바뀌지 않고 그대로 옮겨집니다.",
  "examples.title": `이런 문장으로 ${G.tryThis}`,
  "examples.button": "{label}: {sentence}",
  "unknown.summary": "모르는 단어: {words}",
  "unknown.summaryMany": "모르는 단어: {words}",
  "unknown.word": "모르는 단어:",
  "unknown.try": "바꿔 보기",
  "unknown.group": "“{word}” 대신 쓸 단어",
  "unknown.replace": "'{word}' 대신 '{with}' 넣기",
  "unknown.cosine": "GloVe 단어 벡터의 코사인 유사도: {c}",
  "unknown.none": "추천 없음",
  "unknown.loading": "비슷한 단어를 찾는 중…",
  "copy.tip": `${G.crossAttention}으로 '{word}'에서 그대로 옮김, 가중치 {w}`,
  "translation.copied": `${G.crossAttention}으로 원문에서 그대로 옮긴 단어: {words}.`,
  "sentence.seed": "예문으로 돌아가기",
  "sentence.tokens": "모델이 읽는 토큰",
  "sentence.output": "한국어 번역 (그리디 디코딩)",

  "notice.unknown": "모델의 어휘에 없어서 <unk>(모르는 단어)로 읽은 단어: {words}. 더 쉬운 일상 단어로 바꿔 보세요.",
  "notice.unknownChip": "모르는 단어",
  "notice.droppedChip": "+{n}개 읽지 않음",
  "notice.trunc": "문장이 모델의 한도인 {max}토큰보다 깁니다. 뒤쪽 {n}개 토큰은 빼고 읽었습니다.",
  "translation.nothing": "(모델이 아무 단어도 쓰지 않았습니다)",
  "translation.meta": "토큰 {n}개를 생성했습니다.",
  "translation.unfinished": "<eos>를 쓰기 전에 길이 한도에 걸려 멈췄습니다.",
  "translation.edited": "W_Q/W_K 편집이 반영된 결과입니다.",
  "input.empty": "번역할 영어 문장을 입력하세요.",
  "input.emptyKeep": "입력란이 비어 있습니다. 영어 문장을 입력하세요. 패널에는 직전 문장의 결과가 그대로 있습니다.",

  "error.engine": "엔진이 이 작업을 하지 못했습니다: {message}",
  "error.broken": "엔진이 내부 오류로 멈췄습니다. 다음에 무언가를 바꾸면 다시 시작합니다.",
  "error.panic": "엔진에서 내부 오류가 났습니다({message}). 다음에 무언가를 바꾸면 다시 시작하며, 문장과 설정은 그대로 유지됩니다.",
  "error.load": "모델을 불러오지 못했습니다({url}): {message}",

  "controls.title": "실시간 조작",
  "controls.lead": "스위치마다 어텐션을 계산하는 방식이 달라집니다. 바꾸는 즉시 엔진이 다시 계산하고 모든 패널이 갱신됩니다.",
  "opt.mask": "디코더 인과 마스크",
  "opt.mask.hint": "디코더는 한국어를 왼쪽에서 오른쪽으로 씁니다. 그래서 i번째 단어는 1번부터 i번까지만 볼 수 있습니다. 마스크를 끄고 디코더 셀프 어텐션을 보세요. 대각선 위쪽에도 가중치가 나타납니다.",
  "opt.mask.peek": "마스크를 껐습니다. 이제 디코더가 미래를 훔쳐봅니다. 각 위치가 자기 뒤에 오는 단어까지 보게 되죠. 학습 중이라면 맞혀야 할 단어를 미리 보고 베끼는 셈이라 아무것도 배우지 못합니다. 번역은 여전히 한 단어씩 만들어지지만, 앞쪽 위치들이 새로 생긴 단어를 보게 되므로 결과가 달라질 수 있습니다.",
  "opt.encmask": "인코더에도 인과 마스크",
  "opt.encmask.hint": "인코더는 원래 영어 문장 전체를 앞뒤로 모두 봅니다. 마스크를 켜면 각 영어 단어가 자기 앞의 단어만 보게 되어, 인코더 지도가 아래쪽 삼각형으로 바뀝니다.",
  "opt.scale": "점수를 √d_k로 나누기",
  "opt.scale.hint": "헤드는 쿼리와 키를 d_k = {dk}차원에서 비교합니다. 내적은 차원이 클수록 커지므로 √{dk} = {root|로} 나눕니다. 이 스위치를 끄면 점수가 {root}배 커지고, 소프트맥스가 가장 높은 키 하나에 가중치를 거의 몰아주어 행이 날카로워집니다. 히트맵 아래의 최댓값 수치로도 확인해 보세요.",
  "opt.pe": "위치 인코딩",
  "opt.pe.hint": "단어 벡터마다 ‘몇 번째 자리인지’를 나타내는 값을 더합니다. 이것이 없으면 어텐션은 어떤 단어가 있는지만 알 뿐 순서는 모릅니다. 인코더에게 “the brother carried the sister”와 “the sister carried the brother”가 똑같아 보이죠.",
  "order.jump": "brother/sister 문장 쌍 비교하기 ↓",
  "opt.heads": "헤드 수",
  "opt.heads.hint": "이 모델은 헤드 {trained}개로 학습했습니다. 같은 가중치를 더 많고 좁은 헤드로, 또는 더 적고 넓은 헤드로 나눌 수 있습니다(d_k = {d} / 헤드 수). 그러면 헤드마다 softmax가 다른 차원 묶음을 비교하므로 모든 지도가 바뀝니다. 번역이 바뀌는지는 문장에 따라 다릅니다(학습된 설정과 비교해 보세요). 헤드 수를 바꾸면 W_Q/W_K 편집은 지워집니다.",
  "opt.heads.option": "{h}개 (d_k = {dk})",
  "opt.heads.trained": "— 학습 당시 설정",
  "opt.tables": "히트맵을 표로 보기",

  "attn.title": "어텐션: 누가 누구를 보는가",
  "attn.lead": "각 행은 질문을 던지는 단어(쿼리), 각 열은 답을 줄 수 있는 단어(키)입니다. 한 행의 색깔이 그 단어의 어텐션 가중치로, 음수가 없고 합하면 1입니다. 칸 위에 마우스를 올리거나 지도에 포커스를 두고 화살표 키를 누르면 숫자가 보입니다. 행을 클릭하면 아래 패널에서 그 단어를 따라갑니다.",
  "attn.formulaName": "가중치",
  "attn.which": "어떤 어텐션을 볼까요",
  "attn.layer": G.layer,
  "attn.head": "헤드",
  "attn.show": "색으로 나타낼 값",
  "attn.coloured": "색: {what}",
  "attn.rows": "행: 쿼리",
  "attn.cols": "열: 키",
  "attn.peak": "최댓값: 한 행에서 가장 강한 키가 평균 {p}의 가중치를 가져갑니다(1이면 모든 단어가 단어 하나만 본다는 뜻).",
  "stack.encoder": "인코더 셀프 어텐션",
  "stack.decoder_self": "디코더 셀프 어텐션 (마스크)",
  "stack.decoder_self.open": "디코더 셀프 어텐션 (마스크 없음)",
  "stack.decoder_self.open.about": "한국어 단어가 번역의 한국어 단어를 봅니다. 마스크가 꺼져 있어서 각 단어가 자기 뒤의 단어도 봅니다. 대각선 위에도 가중치가 생깁니다.",
  "stack.decoder_cross": G.crossAttention,
  "stack.encoder.about": "영어 단어가 영어 단어를 봅니다. 각 단어의 새 벡터는 그 단어가 바라보는 단어들을 섞은 것이어서, 단어가 문장의 나머지에서 의미를 얻어 올 수 있습니다.",
  "stack.decoder_self.about": "한국어 단어가 이미 쓴 한국어 단어를 봅니다(<bos>는 문장의 시작). 마스크 때문에 자기 뒤에 올 단어는 보지 못합니다.",
  "stack.decoder_cross.about": "한국어의 각 위치(쿼리)가 영어 문장을 봅니다. 키와 값은 인코더의 출력에서 옵니다. 번역이 원문 단어를 찾아가는 곳입니다.",
  "try.pronoun": `${G.tryThis}: {layer}${G.layer} {head}번 ${G.head}에서 대명사 “{pron}”{|은} 어텐션의 {p}%{|를} “{word}”에 둡니다. “{word}”{|은} 이 대명사가 가리킬 수 있는 단어입니다. 이런 헤드는 대명사가 가리키는 것을 그 벡터로 옮겨 옵니다. 다만 가중치는 헤드가 어디를 보는지 보여 줄 뿐, 모델이 무엇을 이해했는지 증명하지는 않습니다.`,
  "try.pronounHere": "이 헤드에서 대명사 “{pron}”{|은} 어텐션의 {p}%{|를} “{word}”에 둡니다. “{word}”{|은} 이 대명사가 가리킬 수 있는 단어입니다. 가중치는 헤드가 어디를 보는지 보여 줄 뿐, 모델이 무엇을 이해했는지 증명하지는 않습니다.",
  "try.pronounOther": `이 헤드({layer}${G.layer} {head}번 ${G.head})에서 “{pron}”{|은} 주로 “{word}”{|를} 봅니다({p}%). “{word}”{|은} “{pron}”{|이} 가리킬 수 있는 단어가 아닙니다. 인코더의 어느 헤드도 이 대명사에서 가리킬 수 있는 단어를 가장 많이 보지는 않습니다. 가중치는 헤드가 어디를 보는지 보여 줄 뿐입니다.`,
  "try.show": "보여 주세요",
  "stackName.encoder": "인코더 셀프 어텐션",
  "stackName.decoder_self": "디코더 셀프 어텐션",
  "stackName.decoder_cross": G.crossAttention,
  "show.weights": "가중치 (소프트맥스 후)",
  "show.scores": "원점수 QKᵀ",
  "show.logits": "스케일·마스크 적용 점수",
  "show.value": "값 벡터로 가중한 기여",
  "show.rollout": "층을 거친 롤아웃",
  "label.value": `{stack} 값 가중 기여, {layer}${G.layer} {head}번 ${G.head}`,
  "label.rollout": `{stack} 롤아웃, {layer}${G.layer}까지 (모든 헤드)`,
  "legend.value": "각 쿼리 행의 기여 ‖w_ij · v_j W_O‖를 행 안의 비율로 나타냅니다. 0(흰색)부터 1(진한 보라)까지. 짧은 값 벡터에 붙은 큰 가중치는 작은 기여입니다(Kobayashi 외 2020).",
  "legend.rollout": "이 층까지 모든 층과 잔차 경로를 거쳐, 각 단어의 벡터가 입력 단어 각각에서 얼마나 왔는지(Abnar & Zuidema 2020): 0(흰색)부터 1(진한 보라)까지, 행의 합은 1입니다.",
  "cell.value": "기여 비율",
  "cell.rollout": "롤아웃",
  "formula.value": "기여_ij = ‖ w_ij · v_j W_O^(h) ‖, 행 i 안의 비율로 표시",
  "formula.rollout": "Ã_l = 행정규화(½ · 헤드 평균 A_l + ½ · I);  롤아웃 = Ã_l ⋯ Ã_1",
  "wavg.norms": "가중치 × W_O를 거친 값 벡터의 길이 = 기여:",
  "wavg.normTerm": "“{word}” {w} × {n} = {c}",
  "grid.knock": "헤드 끄기(녹아웃): 번역, 모든 지도, 디코딩 단계가 따라 바뀝니다.",
  "grid.knockLayer": `{n}${G.layer}`,
  "grid.knockOne": `H{head}: {stack} {layer}${G.layer} {head}번 ${G.head} 끄기`,
  "grid.restore": "모든 헤드 되살리기",
  "grid.off": "꺼진 헤드 {n}개",
  "imp.title": "어떤 헤드가 중요할까?",
  "imp.lead": "헤드마다: 그 헤드 하나만 껐을 때 이 번역의 로그 확률이 얼마나 떨어지는지(정답 토큰을 넣어 계산, 헤드마다 한 번씩 실행). 큰 가중치와 큰 중요도는 같은 것이 아닙니다.",
  "imp.run": "헤드 순위 매기기",
  "imp.running": "헤드마다 모델을 한 번씩 돌리는 중…",
  "imp.done": "이 번역의 로그 확률: {base}. 가장 중요한 헤드: {top}.",
  "imp.cell": "{head}: {d}",
  "imp.knock": "{head} 끄기",
  "imp.cost": "헤드 {n}개, 하나씩 실행: {ms}ms",
  "legend.weights": "어텐션 가중치: 0(흰색)부터 1(진한 보라)까지. 빗금 친 칸은 마스크된 칸입니다.",
  "legend.scores": "{what}: 올리브색 = 음수, 흰색 = 0, 보라색 = 양수(최대 ±{r}). 빗금 친 칸은 마스크된 칸입니다.",
  "legend.qk": "행렬 칸: 올리브색 = 음수, 흰색 = 0, 보라색 = 양수(최대 ±{r}).",
  "label.heatmap": `{stack} 가중치, {layer}${G.layer} {head}번 ${G.head}`,
  "label.pair": `{stack} 가중치, {layer}${G.layer} {head}번 ${G.head}: {sentence}`,
  "heatmap.keys": "화살표 키로 칸을 옮기며 쿼리 행을 고릅니다. 숫자는 지도 아래에 표시됩니다.",
  "cell.raw": "원점수 q·k",
  "cell.scaled": "스케일·마스크 후",
  "cell.masked": "마스크됨 (−∞)",
  "cell.weight": "가중치",
  "table.queryKey": "쿼리 \\ 키",
  "table.headKey": "헤드 \\ 원문 단어",

  "grid.title": "모든 헤드 한눈에 보기",
  "grid.hint": `헤드마다 작은 지도가 하나씩 있고, 한 줄이 한 ${G.layer}입니다. 같은 ${G.layer}의 헤드들도 서로 다른 것을 찾습니다. 하나를 클릭하면 위에서 크게 볼 수 있어요.`,
  "grid.layer": `{n}${G.layer}`,
  "grid.head": "헤드 {n}",
  "grid.thumb": `{layer}${G.layer} {head}번 ${G.head}`,

  "wavg.title": "셀프 어텐션은 가중평균이다",
  "wavg.lead": "어텐션은 단어 하나를 고르는 게 아니라 여러 단어를 섞습니다. 고른 쿼리 단어에 대해 각 단어의 값 벡터 v_j(초록 막대)에 가중치 w_ij를 곱하고, 그 결과를 모두 더합니다. 맨 아래 줄이 그 단어에 대한 헤드의 출력, 곧 문맥을 담은 새 벡터입니다. 히트맵에서 행을 클릭하거나 여기서 단어를 고른 뒤, 위에서 W_Q 칸을 끌어 섞이는 비율이 바뀌는 모습을 보세요.",
  "wavg.note": "가중치, 값 벡터, 출력은 엔진이 계산한 값 그대로입니다. 이 페이지는 항을 그리려고 가중치와 값 벡터를 곱하는 일만 합니다. 값 열은 따로 눈금을 쓰고, 항과 그 합은 같은 눈금을 씁니다. 그래서 합 줄은 바로 위 열을 모두 더한 모양입니다.",
  "wavg.query": "쿼리 단어",
  "wavg.more": "(나머지 항 {n}개)",
  "wavg.canvas": "쿼리 “{query}”의 가중평균: 가중치, 값 벡터, 가중치를 곱한 항과 그 합",
  "wavg.colKey": "키 j",
  "wavg.colWeight": "가중치 w",
  "wavg.colValue": "값 v_j",
  "wavg.colTerm": "w · v_j",
  "wavg.sumRow": "합 = 출력",
  "wavg.table": "“{query}”의 가중평균, {label}: 가중치, 항 w·v_j, 헤드 출력",
  "wavg.dim": "차원",

  "qk.title": "쿼리·키 행렬: 끌어서 어텐션 바꿔 보기",
  "qk.lead": "점수는 쿼리 q_i = W_Q x_i와 키 k_j = W_K x_j의 내적입니다. 아래의 칸 하나하나가 이 헤드의 W_Q나 W_K에 들어 있는 숫자 하나입니다. 칸을 위아래로 끌어 보세요(격자에 포커스를 두고 ↑/↓ 키를 눌러도 됩니다). 움직이는 동안 격자 바로 위의 지도(편집하는 동안 계속 화면에 남습니다), 2번 구역의 지도, 아래의 가중평균이 바로 바뀝니다. ‘항등행렬’도 눌러 보세요. W_Q = W_K = I이면 헤드가 단어 벡터 자체를 비교하므로 비슷한 단어끼리 서로를 봅니다.",
  "qk.score": "점수",
  "qk.titleQ": "W_Q (쿼리): {dk} × {d}",
  "qk.titleK": "W_K (키): {dk} × {d}",
  "qk.sliderLabel": `{stackName} {layer}${G.layer} {head}번 ${G.head}의 {name} 칸`,
  "qk.keys": "위/아래 화살표로 고른 칸의 값을 바꿉니다(Shift를 누르면 더 잘게). 왼쪽/오른쪽 화살표와 Home, End로 행 안에서 움직이고, Page Up/Page Down으로 다른 행으로 옮깁니다.",
  "qk.cell": "{rows}행 중 {r}행, {cols}열 중 {c}열: {v}",
  "qk.context": `{stackName}, {layer}${G.layer} {head}번 ${G.head}를 편집합니다. 행은 헤드의 d_k 차원, 열은 입력의 d_model 차원입니다.`,
  "qk.identity": "항등행렬 (W_Q = W_K = I)",
  "qk.reset": "편집 모두 되돌리기",
  "qk.edits": "적용 중인 편집 블록: {n}개",
  "qk.noEdits": "편집 없음: 학습된 가중치",
  "qk.touchGroup": "{name} 편집",
  "qk.touchSlider": "{name}의 값",
  "qk.touchMinus": "{name} 줄이기",
  "qk.touchPlus": "{name} 늘리기",
  "qk.touchDone": "닫기",

  "dec.title": "한 단계씩 디코딩하기",
  "dec.lead": `디코더는 번역을 한 토큰씩 씁니다. 단계마다 <bos>와 지금까지 고른 토큰을 읽고, 모든 한국어 토큰에 점수를 매겨 가장 확률이 높은 것을 고릅니다(그리디 디코딩). 단계를 넘겨 가며 선택할 때마다 ${G.crossAttention}이 어떤 영어 단어를 봤는지 확인해 보세요.`,
  "dec.prev": "◀ 이전 단계",
  "dec.next": "다음 단계 ▶",
  "dec.slider": "디코딩 단계",
  "dec.position": "{n}단계 중 {k}단계: {token}",
  "dec.prefix": "디코더가 지금까지 쓴 것",
  "dec.top": "다음 토큰 후보 상위 5개",
  "dec.chosen": "선택: “{token}” ({p}%)",
  "dec.blocked": "가장 확률이 높은 토큰 “{token}”{|은} 건너뛰었습니다. 고르면 같은 단어나 같은 두 단어가 세 번 잇따라 나오게 되는데, 디코더는 그렇게 하지 않습니다.",
  "dec.cross": `이 단계의 ${G.crossAttention} ({layer}${G.layer}, 모든 헤드)`,
  "dec.crossLabel": `${G.crossAttention} 가중치, {layer}${G.layer}, {k}단계({token}): 헤드 × 원문 단어`,
  "dec.copy": "모델은 여기서 <unk>를 썼고, 화면에는 그 자리에 옮겨 온 원문 단어를 보여 줍니다:",
  "dec.copyLayer": `가중치는 마지막 ${G.layer}인 {layer}${G.layer}의 헤드 평균`,

  "order.title": "단어 순서를 알려면 위치 인코딩이 필요하다",
  "order.lead": "두 문장은 같은 단어를 순서만 바꿔 쓴 것입니다. 어텐션은 단어를 벡터로만 비교하므로, 위치 인코딩이 없으면 인코더에게는 같은 것을 뒤섞어 놓은 두 벌로 보입니다. 단어를 맞춰 세우면 가중치가 똑같아지죠. 위치 인코딩을 끄고 비교해 보세요.",
  "order.pe": "위치 인코딩 (실시간 조작의 스위치와 같음)",
  "order.button": "두 문장 비교하기",
  "order.same": "{pe}: 단어 순서만 다를 뿐 똑같습니다(단어를 맞춰 세운 뒤 가장 큰 차이: {d}).",
  "order.differ": "{pe}: 두 지도가 다릅니다(단어를 맞춰 세운 뒤 가장 큰 차이: {d}).",
  "order.sameHere": `{pe}. 하지만 이 헤드({layer}${G.layer} {head}번 ${G.head})는 단어 순서를 쓰지 않습니다. 단어를 맞춰 놓으면 두 지도가 같습니다(가장 큰 차이 {d}). 순서를 쓰는 헤드는 아래에 있습니다.`,
  "order.most": `단어 순서가 가장 크게 영향을 주는 곳은 {layer}${G.layer} {head}번 ${G.head}입니다(가장 큰 차이 {d}).`,
  "order.mostShow": `{layer}${G.layer} {head}번 ${G.head} 보기`,
  "order.peOn": "위치 인코딩 켬",
  "order.peOff": "위치 인코딩 끔",

  "foot.model": "모델: d_model = {d}, 헤드 {h}개, 인코더 {enc}층 + 디코더 {dec}층, 피드포워드 폭 {ff}, 최대 {max}토큰, 영어 단어 {vocab}개.",
  "foot.offline": "모든 계산은 WebAssembly로 브라우저 안에서 이루어지며, 입력한 내용은 이 페이지 밖으로 나가지 않습니다.",

  "share.group": "이 화면 공유하기",
  "share.copyLink": "링크 복사",
  "share.copied": "링크를 복사했습니다. 이 링크를 열면 편집한 내용까지 지금 화면이 그대로 보입니다.",
  "share.copyManual": "브라우저가 복사를 허용하지 않았습니다. 아래 상자에 링크를 선택해 두었으니 Ctrl+C(Mac에서는 ⌘C)를 누르세요.",
  "share.linkLabel": "이 화면의 링크",
  "share.embed": "퍼가기",
  "link.badEdits": "이 링크에 담긴 W_Q/W_K 편집 중 읽을 수 없는 부분은 무시했습니다(무시한 블록: {n}개). 그 자리에는 학습된 가중치를 씁니다. 링크의 나머지 설정은 그대로 적용됩니다.",

  "export.label": "이 지도 내려받기:",
  "export.as": "지도를 {fmt} 파일로 내려받기",
  "export.done": "{name} 파일을 저장했습니다.",
  "export.legend": "어텐션 가중치",
  "export.failed": "파일을 만들지 못했습니다: {message}",

  "embed.title": "이 화면 퍼가기",
  "embed.lead": "강의 노트, 슬라이드, 블로그 등 여러분의 페이지에 이 화면을 넣을 수 있습니다. 이 실험실처럼 읽는 사람의 브라우저 안에서 돌아갑니다. 보여 줄 패널과 독자가 쓸 조작을 고르세요. 아래 코드는 고른 대로 바뀌며, 지금의 문장과 설정, 편집 내용을 그대로 담습니다.",
  "embed.panel": "패널",
  "embed.controls": "독자가 쓸 수 있는 조작",
  "embed.iframe": "iframe으로 넣기: HTML을 넣을 수 있는 곳이면 어디든 붙여 넣으세요. sandbox가 여러분의 페이지와 분리해 줍니다.",
  "embed.element": "요소로 넣기: 페이지마다 script 태그를 한 번 넣고, 패널이 보일 자리마다 요소를 넣으세요(한 페이지에 여러 개도 괜찮습니다).",
  "embed.resize": "선택: iframe 높이를 내용에 맞추기 (페이지마다 한 번, 여러분의 스크립트 파일에 넣으세요).",
  "embed.copy": "복사",
  "embed.copyNamed": "{what} 복사",
  "embed.copied": "복사했습니다.",
  "embed.copyManual": "선택해 두었습니다. Ctrl+C(Mac에서는 ⌘C)를 누르세요.",
  "embed.close": "닫기",
  "embed.snippetIframe": "iframe 코드",
  "embed.snippetElement": "요소 코드",
  "embed.snippetResize": "높이 맞춤 스크립트",
  "embed.preview": "미리 보기",
  "embed.measuring": "패널 높이를 재는 중…",
  "embed.measured": "iframe 코드의 높이는 {h}px입니다. 이 미리 보기를 {w}px 너비에서 잰 높이라서 스크립트 없이도 잘리지 않습니다. 더 좁은 칸에 넣을 때는 아래의 높이 맞춤 스크립트를 더하거나 높이를 늘리세요.",

  "panel.heatmap": "어텐션 히트맵",
  "panel.weighted": "가중평균",
  "panel.decoding": "한 단계씩 디코딩하기",
  "panel.qk": "W_Q/W_K 편집기와 히트맵",
  "panel.order": "단어 순서와 위치 인코딩",
  "panel.heads": "모든 헤드: 끄고, 순위 매기기",
  "panel.open": "attnscope 실험실에서 열기 ↗",
  "panel.frameTitle": "attnscope: {what}",
  "control.sentence": "문장 입력란",
  "control.export": "내려받기 버튼",
};

export const TABLES = { en, ko };
export const LANGS = ["en", "ko"];

let current = "en";

/** The language for a browser locale such as "ko-KR" or "en-US". */
export function detectLang(locale) {
  return typeof locale === "string" && locale.toLowerCase().startsWith("ko") ? "ko" : "en";
}

/** The language a page starts in: ?lang=ko|en, else the browser's, else English. */
export function startLang(search, locale) {
  const q = new URLSearchParams(search).get("lang");
  return LANGS.includes(q) ? q : detectLang(locale);
}

export function setLang(lang) {
  current = LANGS.includes(lang) ? lang : "en";
}

export function getLang() {
  return current;
}

/**
 * `template` with its `{name}` placeholders filled from `params` (unknown names stay). A Korean
 * particle after a value follows how the value is read (korean.js): `{head|을}` gives "1을" or
 * "2를"; `{|와}` alone fits the text just before it (`“{word}”{|와}`).
 */
export function fill(template, params) {
  if (!params) return template;
  let out = "";
  let at = 0;
  for (const m of template.matchAll(/\{(\w*)(?:\|([^{}]+))?\}/g)) {
    const [all, k, p] = m;
    out += template.slice(at, m.index);
    at = m.index + all.length;
    if ((k && !(k in params)) || (!k && !p)) {
      out += all;
      continue;
    }
    if (k) out += String(params[k]);
    if (p) out += particle(out, p);
  }
  return out + template.slice(at);
}

// Namespaces: the lab's table (this file) and the lesson's (lesson/strings.js, registered by the
// lesson page so that the lab never downloads it). One language for both, one `fill`.
const NAMESPACES = { lab: TABLES };
const warned = new Set();

/** Add a namespace of strings: `{en: {...}, ko: {...}}`. */
export function addStrings(name, tables) {
  NAMESPACES[name] = tables;
}

function lookup(ns, lang, key, params) {
  const tables = NAMESPACES[ns] || {};
  const s = (tables[lang] || tables.en || {})[key] ?? tables.en?.[key];
  if (s === undefined) {
    // a missing key shows itself (a gap is visible, never silently blank) and warns once
    if (ns !== "lab" && !warned.has(key)) {
      warned.add(key);
      console.warn(`${ns}: no string for ${key}`);
    }
    return key;
  }
  return fill(s, params);
}

/** The text of `key` in `lang` (falling back to English) with `{name}` placeholders filled. */
export function translate(lang, key, params) {
  return lookup("lab", lang, key, params);
}

/** The text of `key` in the current language with `{name}` placeholders filled. */
export function t(key, params) {
  return translate(current, key, params);
}

/** The lesson's `t`: its namespace, in the current language. */
export function lessonT(key, params) {
  return lookup("lesson", current, key, params);
}

/** Fill `data-i18n` (text) and `data-i18n-aria-label` attributes under `root`. */
export function applyI18n(root) {
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll("[data-i18n-aria-label]")) e.setAttribute("aria-label", t(e.dataset.i18nAriaLabel));
}
