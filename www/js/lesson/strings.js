// Every word of the lesson, in English and Korean. Panels ask for keys through t() (i18n.js).
// Placeholders in braces ({word}, {n}) are filled with live values. Formulas are text too; the
// ones without words are shared by both languages (FORMULAS below).

const FORMULAS = {
  "p1.formula": "wᵢ = exp(−(xᵢ − x₀)² / 2σ²) / Σⱼ exp(−(xⱼ − x₀)² / 2σ²)     ŷ(x₀) = Σᵢ wᵢ yᵢ",
  "p1.formulaSoftmax": "w = softmax(ℓ),   ℓᵢ = −(xᵢ − x₀)² / 2σ²,   softmax(ℓ)ᵢ = exp(ℓᵢ) / Σⱼ exp(ℓⱼ)",
  "p1.colX": "xᵢ",
  "p1.colY": "yᵢ",
  "p1.colWY": "wᵢ · yᵢ",
  "p3.formula": "qᵢ = W_Q xᵢ,   kⱼ = W_K xⱼ,   wᵢⱼ = softmaxⱼ(qᵢ · kⱼ / √2),   outᵢ = Σⱼ wᵢⱼ xⱼ",
  "p6.formula": "headₕ = softmax(Qₕ Kₕᵀ / √d_k) Vₕ,   d_k = d_model / h,   output = [head₁ … head_h] W_O",
  "p7.formulaPE": "PE(p, 2k) = sin(p / 10000^(2k/d)),   PE(p, 2k+1) = cos(p / 10000^(2k/d))",
  "p8.formulaFfn": "FFN(x) = W₂ · ReLU(W₁ x + b₁) + b₂,   {d} → {dff} → {d}",
  "lang.en": "English",
  "lang.ko": "한국어",
};

const en = {
  ...FORMULAS,
  "lang.label": "Language",
  "page.kicker": "attnscope · guided lesson",
  "page.title": "Attention from the ground up",
  "page.docTitle": "attnscope — Attention from the ground up",
  "page.introTitle": "About this lesson",
  "page.lede":
    "Self-attention sounds exotic, but at its heart it is a weighted average. These nine panels start from that average and add one idea at a time, until a complete English-to-Korean Transformer is on the table.",
  "page.how":
    "None of the numbers here is a picture. Every value on the page is computed while you watch by the same Rust engine that runs the full model, compiled to WebAssembly and running inside your browser. Move a slider and the engine computes again.",
  "page.sources":
    "The order follows two Korean texts: a lecture that builds self-attention out of a weighted average (panels 1–3), and an article that walks through the whole Transformer (panels 4–9).",
  "page.toc": "Contents",
  "page.toLab": "Open the full attention lab",
  "page.footer":
    "Every number on this page came from the attnscope engine (Rust compiled to WebAssembly) in this browser tab. The translator is a small model trained on a toy English–Korean corpus; it knows a few hundred words.",
  "status.loading": "Loading the engine and the models…",
  "status.restart": "The engine stopped on an internal error and is restarting…",
  "err.wasm": "The engine could not start ({msg}). This lesson needs WebAssembly; try reloading the page.",
  "err.panel": "This panel could not be built: {msg}",
  "err.words":
    "The word vectors (models/glove-50d.safetensors) could not be loaded ({msg}). This panel needs them; the others keep working.",
  "err.lab":
    "The trained translator (models/en-ko.safetensors) is not available ({msg}). This part needs it; the rest of the page keeps working.",
  "err.empty": "Type at least one word.",
  "err.panic": "The engine hit an internal error; it is restarting.",
  "err.engine": "The engine said: {msg}",
  "err.allUnknown": "None of these is in the word-vector vocabulary: {words}. Try ordinary English words.",
  "warn.long": "Only the first {n} words are used, to keep the pictures readable.",
  "warn.unknown": "Not in the vocabulary: {words}. These words get a vector of zeros, so here they carry no meaning.",
  "warn.unk": "The translator never saw: {words}. It reads each of them as <unk> (unknown word).",
  "warn.dropped": "The sentence was too long: the last {n} words were cut.",
  "ui.formula": "Formula",
  "ui.try": "Try this:",
  "ui.sentenceWords": "Sentence (word vectors)",
  "ui.sentenceWordsHint": "Shared by panels 2–5: change it in any of them and the others follow.",
  "ui.sentenceModel": "Sentence for the translator",
  "ui.sentenceModelHint":
    "Shared by panels 5, 6, 8 and 9. The translator knows the words of everyday English (home, school, food, weather, time, travel, feelings); a word it does not know comes through unchanged.",
  "ui.seed": "Back to the lecture's sentence",
  "ui.showNumbers": "Show the numbers as a table",
  "ui.layer": "Layer",
  "ui.head": "Head",

  // 1
  "p1.title": "A weighted average in one dimension",
  "p1.intro":
    "Start with something that has nothing to do with language: a cloud of noisy measurements. To estimate the underlying curve at one spot x₀, average the measurements, but let the ones close to x₀ count for more than the far ones.",
  "p1.kernel":
    "“Count for more” is decided by a bell-shaped kernel centred on x₀. Each point takes a weight from the bell, the weights are rescaled so that they add up to exactly 1, and the estimate is the weighted sum of the y values. Sweep x₀ from left to right and the estimates trace out the smooth curve.",
  "p1.try":
    "drag the orange marker (or focus it and use the arrow keys) and watch which points swell. Then narrow the width: fewer points share the weight, and the largest weight grows.",
  "p1.x0Label": "Point of interest x₀",
  "p1.widthLabel": "Kernel width σ",
  "p1.plotLabel": "Noisy data points, the smoothed curve, the point of interest x₀, and the kernel weights drawn underneath.",
  "p1.weightAxis": "weight",
  "p1.handleLabel": "Point of interest x₀ (drag, or use the arrow keys)",
  "p1.handleText": "x₀ = {x}, smoothed value {y}",
  "p1.legendDots": "data (size = weight)",
  "p1.legendCurve": "smoothed curve",
  "p1.legendBell": "kernel and weights",
  "p1.rX0": "x₀",
  "p1.rValue": "smoothed value ŷ(x₀) = Σ wᵢ yᵢ",
  "p1.rSum": "sum of the weights Σ wᵢ",
  "p1.rMax": "largest weight",
  "p1.rCount": "points holding 90% of the weight",
  "p1.countText": "{k} of {n}",
  "p1.colPoint": "point",
  "p1.colLogit": "logit −(xᵢ−x₀)²/2σ²",
  "p1.colW": "weight wᵢ",
  "p1.tableLabel": "The {k} points with the largest weights (the engine's kernelSmooth)",
  "p1.softmaxTitle": "This is already a softmax",
  "p1.softmax":
    "Look at how the weights are made. Each point gets a score (the logit column: its squared distance, negated and divided by 2σ²); the score is exponentiated so that nothing is negative; and the results are divided by their total so that they sum to 1. That recipe is exactly the softmax function. The engine computes these weights with the same softmax routine it uses inside the Transformer.",
  "p1.bridge":
    "Attention keeps this recipe as it is and changes only where the scores come from. Here a score says “how close is this point”; in a sentence it will say “how relevant is this word”.",

  // 2
  "p2.title": "Words as vectors",
  "p2.intro":
    "To average words, words first have to be numbers. A word embedding gives every word a list of numbers, a vector, and words that appear in similar contexts end up with similar vectors. Below are real GloVe vectors (50 numbers per word, learned from billions of words of text) for the sentence in the box.",
  "p2.vectors":
    "Each row is one word and each small square one of its 50 numbers (purple positive, olive negative). These vectors are general-purpose: “friend” has the same vector in every sentence. What we want is a version of “friend” fitted to this sentence: a weighted average of the sentence's word vectors, where the weights say which words matter for it.",
  "p2.vecLabel": "The {n} word vectors, {d} numbers each, as coloured squares",
  "p2.vecTable": "Word vectors: {n} words × {d} numbers",
  "p2.vecRange": "Colour scale: ±{r} (the largest magnitude among these vectors).",
  "p2.problemTitle": "Where should the weights come from?",
  "p2.problem":
    "A first idea, borrowed from panel 1: weight each word by how close it stands in the sentence. But position says little about meaning. In the lecture's sentence, the words that tell us who the friend is are “emma” and “she”, and both sit far from “friend”. A second idea: let the vectors decide, scoring each word by its dot product with the chosen word and passing the scores through a softmax.",
  "p2.try":
    "keep “friend” selected and compare the rows: the distance kernel spends its weight on “great” and “a”. Mark the words you think matter with the buttons below, pick another word, or type your own sentence.",
  "p2.wordLabel": "Word to rebuild",
  "p2.kwLabel": "Width of the distance kernel",
  "p2.kwText": "σ = {w} words",
  "p2.scaleLabel": "Divide the scores by √50 (panel 4 explains why)",
  "p2.marksLabel": "Words that should matter for the chosen word (press to mark or unmark):",
  "p2.rowHeader": "rule",
  "p2.cmpLabel": "Weights over the sentence for “{word}” under three rules",
  "p2.rowPos": "by position (σ = {w})",
  "p2.rowDot": "dot product → softmax",
  "p2.rowDotScaled": "dot product ÷ √50 → softmax",
  "p2.rowWant": "what we want (your marks)",
  "p2.scoreLabel": "Raw dot products of “{word}” with every word",
  "p2.rowScore": "{word} · word",
  "p2.rPos": "weight on your marked words, by position",
  "p2.rDot": "weight on your marked words, by dot product",
  "p2.rSelf": "weight the chosen word gives itself (dot product)",
  "p2.rParams": "numbers that training could adjust in the dot-product rule",
  "p2.paramsText": "0: nothing to learn",
  "p2.formulaPos": "by position: wⱼ = softmax(−(j − i)² / 2σ²)",
  "p2.formulaDot": "by dot product: wⱼ = softmax(xᵢ · xⱼ),   new xᵢ = Σⱼ wⱼ xⱼ",
  "p2.verdict":
    "The dot product works automatically and is sometimes useful, but notice what it rewards: resemblance. Every word resembles itself most, so much of the weight lands on the chosen word. Worse, nothing in this rule can be trained. The vectors are fixed and the dot product is fixed, so if the weights are wrong they stay wrong. The next panel adds the missing knobs.",

  // 3
  "p3.title": "Query and key matrices",
  "p3.intro":
    "Self-attention keeps the dot product and the softmax but first sends the vectors through two matrices. The chosen word's vector times W_Q is its query; every word's vector times W_K is that word's key; each score is a query–key dot product. The entries of W_Q and W_K are numbers that training can adjust, which is exactly what the raw dot product was missing.",
  "p3.plane":
    "Fifty dimensions are hard to draw, so the sentence's GloVe vectors are projected onto the plane that spreads them out best (their two principal axes), and W_Q and W_K are 2 × 2. The weights and the output below are the engine's attention on these 2-D points.",
  "p3.try":
    "select “friend” and drag the orange tip of its query toward “emma” (or press “Turn the query toward the marked words”): emma's weight climbs in the table. Then pick another word. It uses the same two matrices but has its own query, so it gets its own row of weights.",
  "p3.wordLabel": "Selected word (its query is drawn)",
  "p3.scaleLabel": "Divide the scores by √2",
  "p3.wqGroup": "Entries of the query matrix W_Q",
  "p3.wkGroup": "Entries of the key matrix W_K",
  "p3.presets": "Presets",
  "p3.presetIdentity": "Identity: Q = K = I",
  "p3.presetToward": "Turn the query toward the marked words",
  "p3.presetZero": "Zero query (equal weights)",
  "p3.presetSharp": "Double the query",
  "p3.noMarks": "First mark at least one other word in panel 2.",
  "p3.zeroVector": "This word's vector is zero (an unknown word), so no rotation can move it.",
  "p3.towardDone": "W_K = I, and W_Q now turns the selected word toward: {words}.",
  "p3.planeLabel": "The words as points on a plane, their keys, and the query and output of the selected word.",
  "p3.handleRole": "2-D handle",
  "p3.handleLabel": "Tip of the query vector: drag it, or press left/right to turn it and up/down to stretch it",
  "p3.handleText": "query = ({x}, {y})",
  "p3.axis1": "axis 1",
  "p3.axis2": "axis 2",
  "p3.outLabel": "output of {word}",
  "p3.qLabel": "query of {word}",
  "p3.legend":
    "Grey: the word vectors, which are also the values being averaged (dot size = weight). Blue rings: the keys W_K x. Orange arrow: the query W_Q x of the selected word. Black diamond: its output, the weighted average of the grey points.",
  "p3.matricesTitle": "The two matrices",
  "p3.rowHeader": "query word",
  "p3.heatLabel": "Attention weights: one row per query word, one column per key word",
  "p3.scoreLabel": "Scores of the query of “{word}” against every key (after scaling)",
  "p3.scoreRow": "q({word}) · k / √2",
  "p3.rX": "vector x of the selected word",
  "p3.rQ": "its query q = W_Q x",
  "p3.rOut": "its output Σ wⱼ xⱼ",
  "p3.rTop": "largest weights",
  "p3.rParams": "numbers that training can adjust here",
  "p3.paramsText": "8 (W_Q and W_K, 2 × 2 each)",
  "p3.allTitle": "Every word gets its own row",
  "p3.all":
    "The same W_Q and W_K serve every word in the sentence, but each word's query is built from its own vector, so every row of weights is different, and so is every output. Press a row's name to select that word.",
  "p3.caveat":
    "Compared with the raw dot product, the matrices buy flexibility and cost clarity: once W_Q and W_K can be anything, it is hard to say in words why a weight came out the way it did. That is why the identity is a good place to build intuition. In a real model these matrices are learned, usually d_k × d with d_k smaller than d, and the values come from a third matrix, W_V (here the values are the vectors themselves).",

  // 4
  "p4.title": "Scaling the scores",
  "p4.intro":
    "A dot product adds up one product per dimension. The longer the vectors and the more dimensions they have, the larger the scores grow, and softmax answers large differences by handing nearly everything to the winner.",
  "p4.why":
    "Here the sentence's 50-dimensional GloVe vectors go through attention with W_Q = W_K = I, so the scores are plain dot products. The slider stretches every vector, and the scores grow with the square of the stretch. The Transformer's remedy is to divide every score by √d_k, the square root of the query/key length, which keeps the scores in a range where softmax still spreads its weight.",
  "p4.try":
    "with scaling off, stretch the vectors to ×2 and watch one bar swallow the row; then tick the box and see the weight spread out again.",
  "p4.wordLabel": "Row to show",
  "p4.lenLabel": "Stretch every vector by",
  "p4.scaleLabel": "Divide the scores by √d_k",
  "p4.formula": "weights = softmax(Q Kᵀ / √d_k),   here Q = K = c·X and d_k = 50",
  "p4.rowLabel": "Scores, softmax inputs and weights in the row of “{word}”",
  "p4.rowScores": "score q·k",
  "p4.rowLogits": "softmax input",
  "p4.rowWeights": "weight",
  "p4.rMax": "largest weight in this row",
  "p4.rScore": "largest score in this row",
  "p4.rSqrt": "scores divided by",
  "p4.rSat": "rows with a weight above 0.99",
  "p4.rSlope": "largest w(1 − w) in this row",
  "p4.sqrtOn": "√{d} = {s}",
  "p4.sqrtOff": "nothing (scaling off)",
  "p4.satText": "{k} of {n}",
  "p4.slope":
    "Why a saturated softmax hurts learning: when one weight is close to 1 and the rest close to 0, nudging a score hardly moves the weights (a weight's sensitivity to its own score is w(1 − w), at most 0.25 and near 0 at either extreme). Training works through exactly such nudges, so a saturated row learns almost nothing.",
  "p4.allTitle": "All rows",
  "p4.rowHeader": "query word",
  "p4.heatLabel": "Attention weights of every row with the current stretch and scaling",
  "p4.outro":
    "Dividing by √d_k is a small change, but it is what keeps attention trainable as d_k grows: a sum of d_k random products spreads out in proportion to √d_k, and the division cancels that growth.",

  // 5
  "p5.title": "Masking: no peeking ahead",
  "p5.intro":
    "A translator writes its output one word at a time, from left to right. In training, however, the whole target sentence is fed in at once, and plain self-attention would let each position look at every other, including the very words it is meant to predict. That is like practising for a test with the answer key open.",
  "p5.how":
    "The cure is a mask. Before the softmax, every score that points at a later position is replaced by −∞. Since exp(−∞) = 0, those weights become exactly zero and only the lower-left triangle remains.",
  "p5.try":
    "untick the mask and watch the upper triangle fill in; tick it again and check that the sum above the diagonal is back to exactly 0.",
  "p5.causalLabel": "Causal mask (each word sees only itself and earlier words)",
  "p5.rowHeader": "query word",
  "p5.heatLabelCausal": "Attention weights with the causal mask (masked cells are hatched)",
  "p5.heatLabelOpen": "Attention weights without a mask",
  "p5.formula": "logitᵢⱼ = qᵢ · kⱼ / √d_k if j ≤ i, −∞ if j > i;   weights = softmax(logits)",
  "p5.rAbove": "sum of all weights above the diagonal",
  "p5.rFirst": "the first word can only look at itself",
  "p5.rRows": "rows summing to 1",
  "p5.rowsText": "{k} of {n}",
  "p5.modelTitle": "The same mask in the trained decoder",
  "p5.model":
    "The translator's decoder was trained with this mask. Below is one head of its self-attention over the Korean it wrote itself (<bos> marks the start). Turning the mask off here runs the same decoder input again without it: weight leaks into the upper triangle, toward words the decoder would not yet have had while it was generating.",
  "p5.decLabel": "Decoder self-attention, layer {layer}, head {head}",
  "p5.rTranslation": "translation",
  "p5.rAboveModel": "weight above the diagonal (decoder)",
  "p5.outro":
    "The encoder has no such mask: it reads a source sentence that is already complete, so it may look both ways. Only the part that generates needs its eyes covered.",

  // 6
  "p6.title": "Multi-head attention",
  "p6.intro":
    "One word can matter to another for several reasons at once: grammar, what a pronoun refers to, tense. A softmax yields one set of weights, so a single head can express only one way of looking. Multi-head attention runs several heads side by side, each with its own slice of W_Q, W_K and W_V, and joins their outputs.",
  "p6.how":
    "Below are the trained translator's heads on the sentence, one small heatmap each, every one with its own pattern. The translator splits d_model = {d} into {h} heads of {dk} numbers each.",
  "p6.try":
    "switch between cross-attention and encoder self-attention, and between layers, and compare the heads: do they look at the same words? Then change the number of heads and see what happens to the translation.",
  "p6.kindLabel": "Attention to show",
  "p6.kind.cross": "decoder → source (cross-attention)",
  "p6.kind.enc": "encoder self-attention",
  "p6.headsLabel": "Split into heads",
  "p6.headsTrained": "{h} (as trained)",
  "p6.translation": "Translation:",
  "p6.headTitle": "Head {head}",
  "p6.headLabelEnc": "Encoder self-attention, layer {layer}, head {head}",
  "p6.headLabelCross": "Cross-attention, layer {layer}, head {head}: rows are the Korean tokens being written, columns the English words",
  "p6.headSummary": "looks most at: {words}",
  "p6.moreHeads": "Showing {shown} of {all} heads.",
  "p6.overlapTitle": "Do the heads look at different things?",
  "p6.overlap":
    "For each pair of heads, how much their weights overlap (in every row, the sum of the smaller of the two weights, averaged over the rows). 1 means the two heads attend identically; 0 means they never look at the same place. High values away from the diagonal are heads doing the same job twice.",
  "p6.overlapHeader": "head",
  "p6.overlapLabel": "Overlap between the heads' weights, layer {layer}",
  "p6.splitTitle": "More heads is not automatically better",
  "p6.split":
    "The same trained weights can be cut into a different number of heads (any divisor of {d}). Nothing is retrained: each head simply gets a narrower or wider slice and its own softmax. Here is what the translator then writes, its average confidence in the words it chose, and how many of those words match the trained split.",
  "p6.colHeads": "heads",
  "p6.colTranslation": "translation",
  "p6.colConf": "mean probability of the chosen words",
  "p6.colAgree": "same words as the trained split",
  "p6.splitLabel": "The sentence translated with the trained weights split into each possible number of heads",
  "p6.outro":
    "Cutting the weights differently is not the same as training with more heads, but it makes the point concrete: the number of heads is a design choice the weights are fitted to. Even in models trained with many heads, past some number the extra heads tend to repeat one another, so the usual setting is a starting point for tuning rather than a rule.",

  // 7
  "p7.title": "Word order and positional encoding",
  "p7.intro":
    "Attention compares words by their vectors and by nothing else. Shuffle the words and each one still meets the same partners with the same scores; the results come out shuffled, but otherwise unchanged. So without extra help, “the brother carried the sister” and “the sister carried the brother” look the same to it.",
  "p7.how":
    "The fix is to add to each word vector a second vector that depends only on the position: a positional encoding. The same word then enters the model with different numbers in slot 2 than in slot 5.",
  "p7.aLabel": "Sentence A",
  "p7.bLabel": "Sentence B (same words, another order)",
  "p7.try":
    "untick positional encoding. The largest difference after matching the words drops to 0, and both sentences get the same translation: the model cannot tell who carried whom. Tick it again and they come apart.",
  "p7.peLabel": "Add positional encoding",
  "p7.formula": "input of the word at position p = embedding(word) + PE(p)",
  "p7.rowHeader": "query",
  "p7.rDiff": "largest difference between A and B after matching the words",
  "p7.rTa": "translation of A",
  "p7.rTb": "translation of B",
  "p7.notSameWords": "The two sentences do not contain the same words, so they cannot be matched one to one.",
  "p7.on": "with positional encoding",
  "p7.off": "without positional encoding",
  "p7.heatA": "Sentence A, encoder self-attention {pe}, layer {layer}, head {head}",
  "p7.heatB": "Sentence B, encoder self-attention {pe}, layer {layer}, head {head}",
  "p7.heatBA": "Sentence B's weights moved into A's word order ({pe})",
  "p7.explain":
    "The third table moves B's rows and columns into A's order. Without positional encoding it matches A exactly: the same attention, only shuffled. With it, the two differ, because “brother” in slot 2 is no longer the same input as “brother” in slot 5.",
  "p7.grid":
    "The same measurement for every layer and head of the encoder: the largest difference between A and B once the words are matched. Without positional encoding every cell is 0; with it, some heads care about order far more than others (the panel opens on the one that cares most).",
  "p7.gridLabel": "Largest difference between A and B after matching the words, every layer and head ({pe})",
  "p7.layerN": "layer {n}",
  "p7.headN": "head {n}",
  "p7.peTitle": "What the sinusoidal encoding looks like",
  "p7.pe":
    "The original Transformer uses waves. Dimension pair k of the encoding is a sine and a cosine of the position, with a wavelength that grows from 2π to about 10000·2π across the dimensions. The first columns flicker from one position to the next while the later ones change slowly, so every position gets its own pattern, rather like the digits of a counter.",
  "p7.peAxes": "Rows: positions 1–{n}, top to bottom. Columns: the {d} dimensions, left to right. Purple = +1, olive = −1.",
  "p7.peCanvas": "Sinusoidal positional encoding, {n} positions × {d} dimensions",
  "p7.peTable": "Sinusoidal positional encoding: {n} positions × {d} dimensions",
  "p7.pos": "position {i}",
  "p7.learned":
    "The alternative is to learn the position vectors the way word embeddings are learned: one trainable vector per slot. In practice they work about as well, but they cannot reach beyond the longest position seen in training, whereas the waves are defined for any position. This translator uses the sinusoidal table above.",

  // 8
  "p8.title": "Inside the block: feed-forward, Add & Norm",
  "p8.intro":
    "Attention only mixes: each output is a weighted average of value vectors. Pile averages on averages and the result stays close to linear, unable to bend into complicated shapes. So every Transformer block follows attention with a small two-layer network applied to each word on its own.",
  "p8.ffn":
    "This feed-forward network widens the vector (here from {d} to {dff} numbers), bends it with ReLU (every negative number becomes 0), and narrows it back to {d}. In the attention step the words pull in information from one another; in the feed-forward step each word reworks what it pulled in, without looking at its neighbours, so all the words can be processed at the same time.",
  "p8.addnorm":
    "Around each of the two sublayers sit two safety devices. Add: the sublayer's input is added back to its output (a residual connection), so the layer only has to learn a correction, and in training the gradient gets a direct route through the sum. Norm: LayerNorm re-centres each word's vector to mean 0 and rescales it to variance 1 (then applies a learned scale and shift), so values cannot drift to ever larger sizes from layer to layer.",
  "p8.try":
    "pick a word and follow it down the block: check that the hidden layer is full of exact zeros after ReLU, that the sum really is input + sublayer, and that the variance returns to about 1 after each Norm.",
  "p8.tokLabel": "Word to follow",
  "p8.layerLabel": "Encoder layer",
  "p8.formulaAdd": "Add: s = x + Sublayer(x)",
  "p8.formulaNorm": "Norm: LN(s) = γ ⊙ (s − mean(s)) / √(var(s) + ε) + β",
  "p8.stripLabel": "{title}: {n} numbers as coloured cells",
  "p8.dims": "{n} numbers",
  "p8.mean": "mean",
  "p8.variance": "variance",
  "p8.range": "range",
  "p8.addCheck": "|engine's sum − (input + sublayer)| ≤ {e}",
  "p8.zeros": "{k} of {n} units exactly 0 after ReLU ({p}%)",
  "p8.sX": "Input to layer {layer}",
  "p8.nX0": "The word embedding (scaled by √{d}) plus the positional encoding.",
  "p8.nX": "The output of the previous layer.",
  "p8.sAttn": "Self-attention output",
  "p8.nAttn": "All heads joined and mixed by W_O: what this word gathered from the others.",
  "p8.sSum1": "Add: input + attention",
  "p8.nSum": "The residual sum: the input passes through untouched and the sublayer's result is added on top.",
  "p8.sNorm1": "Norm: LayerNorm of the sum",
  "p8.nNorm": "Each word's vector brought back to mean ≈ 0 and variance ≈ 1.",
  "p8.sHidden": "Feed-forward, widened to {dff} and passed through ReLU",
  "p8.nHidden": "W₁ maps {d} numbers to {dff}; ReLU turns every negative one into exactly 0.",
  "p8.sFfn": "Feed-forward output, back to {d}",
  "p8.nFfn": "W₂ narrows it back to the model's width.",
  "p8.sSum2": "Add: normalised vector + feed-forward",
  "p8.sNorm2": "Norm: the layer's output",
  "p8.nNorm2": "This vector moves on to the next layer (after the last one, to the decoder).",
  "p8.tableLabel": "The vectors of “{word}” through the block ({d} numbers each)",
  "p8.hiddenTable": "Hidden layer of “{word}” after ReLU ({dff} numbers)",
  "p8.tokHeader": "word",
  "p8.acrossTitle": "Norm puts every word on the same scale",
  "p8.across":
    "The mean and variance of every word's vector just before and just after this layer's first Norm, computed from the engine's vectors. Before, the spread differs from word to word and can be large; after, every word sits close to mean 0 and variance 1 (not exactly, because the learned scale γ and shift β nudge it).",
  "p8.acrossLabel": "Mean and variance of each word's vector before and after LayerNorm, layer {layer}",
  "p8.cMeanBefore": "mean before",
  "p8.cVarBefore": "variance before",
  "p8.cMeanAfter": "mean after",
  "p8.cVarAfter": "variance after",
  "p8.outro":
    "Neither Add nor Norm makes the model cleverer by itself. Their job is to make depth trainable: without them, a tall stack of blocks learns badly or not at all. Note also that most of a Transformer's parameters live in the feed-forward layers (here 2 × {d} × {dff} weights per block, against 4 × {d} × {d} for attention).",

  // 9
  "p9.title": "Encoder, decoder and cross-attention",
  "p9.intro":
    "Stack these blocks in two columns and you have the translator. The encoder reads the English sentence. The decoder writes Korean one token at a time, and before every token it consults two things: the Korean written so far (masked self-attention) and the encoder's output (cross-attention).",
  "p9.rolesLabel": "The translator's three attentions, with their sizes for this sentence",
  "p9.cAttention": "attention",
  "p9.cSees": "queries from → keys and values from",
  "p9.cShape": "weights (rows × columns)",
  "p9.cMask": "mask",
  "p9.encSelf": "Encoder self-attention",
  "p9.encSees": "English words → English words",
  "p9.noMask": "none: sees the whole sentence",
  "p9.decSelf": "Decoder self-attention",
  "p9.decSees": "Korean so far → Korean so far",
  "p9.causal": "causal: earlier positions only",
  "p9.cross": "Cross-attention",
  "p9.crossSees": "Korean so far → English words (encoder output)",
  "p9.roles":
    "Self-attention looks within one sentence; cross-attention looks across at the other one, and that is where the translator finds out which English word to render next. Encoder-only models (such as BERT) and decoder-only models (such as GPT) each keep one half of this design.",
  "p9.genTitle": "Generation, one token at a time",
  "p9.gen":
    "The decoder starts from <bos>, picks the most probable next token, appends it, and repeats until it produces <eos>. Each step below shows the chosen token and the probability the model gave it.",
  "p9.stepsLabel": "Generated tokens with their probabilities",
  "p9.unfinished": "(stopped at the length limit without <eos>)",
  "p9.try":
    "step through the layers and heads: in one of them, each row lights up on the English word that its Korean token translates. In the lecture's sentence the translator writes 엠마 a second time for “she”: find which English word that row looks at.",
  "p9.formula":
    "cross-attention: Q = decoder states · W_Q,   K = encoder output · W_K,   V = encoder output · W_V,   weights = softmax(Q Kᵀ / √d_k)",
  "p9.rowHeader": "producing",
  "p9.crossLabel": "Cross-attention, layer {layer}, head {head}: each row is the step that produced the token, each column an English word",
  "p9.openLab": "Open this sentence in the full lab",
  "p9.rnnTitle": "Why not an RNN?",
  "p9.rnn":
    "Before Transformers, translators read a sentence with a recurrent network: one word after another, passing a running summary along. That has two costs. For the first word to influence the last, its signal must survive n − 1 hand-offs. And word t cannot be computed until word t − 1 is finished, so the work cannot be spread over the thousands of parallel units in a GPU. Attention connects any two words in a single step and computes every position at the same time.",
  "p9.tLabel": "Time step",
  "p9.play": "Play",
  "p9.stop": "Stop",
  "p9.rnnRow": "RNN",
  "p9.attRow": "attention",
  "p9.rnnNow": "RNN: {k} of {n} states computed",
  "p9.attNow": "attention: all {n} positions in step 1",
  "p9.rnnLabel": "Diagram for {n} words at time step {k}: the RNN has computed {k} states; attention computed all {n} at once.",
  "p9.rN": "words in the sentence",
  "p9.rPath": "steps from word 1 to word n",
  "p9.rSeq": "sequential steps per layer",
  "p9.rNow": "states ready at this time step",
  "p9.pathText": "RNN {r}, attention {a}",
  "p9.seqText": "RNN {r}, attention {a}",
  "p9.nowText": "RNN {r} of {n}, attention {a} of {n}",
  "p9.outro":
    "That last difference changed the field. Because every position is computed at once, Transformers could be trained on far more data in the same time, and that is what opened the way to today's large pretrained models.",
};

const ko = {
  ...FORMULAS,
  "lang.label": "언어",
  "page.kicker": "attnscope · 따라 하는 강의",
  "page.title": "바닥부터 이해하는 어텐션",
  "page.docTitle": "attnscope — 바닥부터 이해하는 어텐션",
  "page.introTitle": "이 강의에 대하여",
  "page.lede":
    "셀프 어텐션은 이름만 들으면 낯설지만, 속을 들여다보면 가중평균입니다. 아홉 개의 패널은 그 평균에서 출발해 아이디어를 하나씩 보태며, 마지막에는 영어를 한국어로 옮기는 트랜스포머 하나를 통째로 펼쳐 놓습니다.",
  "page.how":
    "여기 나오는 숫자는 그림으로 박아 둔 값이 아닙니다. 전체 모델을 돌리는 Rust 엔진이 WebAssembly로 컴파일되어 이 브라우저 안에서 돌고 있고, 페이지의 모든 값은 그 엔진이 지금 계산한 것입니다. 슬라이더를 움직이면 엔진이 다시 계산합니다.",
  "page.sources":
    "순서는 한국어로 쓰인 두 글을 따릅니다. 가중평균에서 출발해 셀프 어텐션을 쌓아 올리는 강의(1–3번 패널)와 트랜스포머 전체 구조를 차례로 짚는 글(4–9번 패널)입니다.",
  "page.toc": "차례",
  "page.toLab": "어텐션 실험실 전체 보기",
  "page.footer":
    "이 페이지의 숫자는 모두 지금 이 탭에서 돌아가는 attnscope 엔진(Rust를 WebAssembly로 컴파일한 것)이 계산했습니다. 번역기는 연습용 영어–한국어 말뭉치로 학습한 작은 모델이라 아는 단어가 수백 개 정도입니다.",
  "status.loading": "엔진과 모델을 불러오는 중…",
  "status.restart": "엔진이 내부 오류로 멈춰서 다시 시작하는 중…",
  "err.wasm": "엔진을 시작하지 못했습니다({msg}). 이 강의에는 WebAssembly가 필요합니다. 페이지를 새로 고쳐 보세요.",
  "err.panel": "이 패널을 만들지 못했습니다: {msg}",
  "err.words":
    "단어 벡터 파일(models/glove-50d.safetensors)을 불러오지 못했습니다({msg}). 이 패널에는 꼭 필요하지만, 다른 패널은 그대로 쓸 수 있습니다.",
  "err.lab":
    "학습된 번역기(models/en-ko.safetensors)를 쓸 수 없습니다({msg}). 이 부분에는 꼭 필요하지만, 나머지는 그대로 쓸 수 있습니다.",
  "err.empty": "단어를 하나 이상 입력하세요.",
  "err.panic": "엔진에 내부 오류가 생겨 다시 시작합니다.",
  "err.engine": "엔진 메시지: {msg}",
  "err.allUnknown": "단어 벡터 사전에 있는 단어가 하나도 없습니다: {words}. 흔히 쓰는 영어 단어로 바꿔 보세요.",
  "warn.long": "그림이 너무 빽빽해지지 않도록 앞의 {n}개 단어만 씁니다.",
  "warn.unknown": "사전에 없는 단어: {words}. 이 단어들은 0으로만 채운 벡터를 받으므로 여기서는 아무 의미도 담지 못합니다.",
  "warn.unk": "번역기가 학습 중에 본 적 없는 단어: {words}. 모두 <unk>(모르는 단어)로 읽습니다.",
  "warn.dropped": "문장이 너무 길어서 마지막 {n}개 단어는 잘렸습니다.",
  "ui.formula": "수식",
  "ui.try": "해 보기:",
  "ui.sentenceWords": "문장 (단어 벡터용)",
  "ui.sentenceWordsHint": "2–5번 패널이 함께 씁니다. 어느 패널에서 고치든 나머지도 따라 바뀝니다.",
  "ui.sentenceModel": "번역기에 넣을 문장",
  "ui.sentenceModelHint": "5, 6, 8, 9번 패널이 함께 씁니다. 번역기는 일상 영어 단어(집, 학교, 음식, 날씨, 시간, 여행, 감정)를 압니다. 모르는 단어는 번역에 그대로 옮겨집니다.",
  "ui.seed": "강의 예문으로 되돌리기",
  "ui.showNumbers": "숫자를 표로 보기",
  "ui.layer": "층",
  "ui.head": "헤드",

  // 1
  "p1.title": "1차원에서의 가중평균",
  "p1.intro":
    "언어와는 상관없는 데서 시작해 봅시다. 잡음이 섞인 측정값이 흩어져 있습니다. 어느 한 지점 x₀에서 본래 곡선이 어디쯤 있는지 짐작하려면 측정값을 평균 내면 되는데, 이때 x₀ 가까이 있는 점은 무겁게, 멀리 있는 점은 가볍게 치면 됩니다.",
  "p1.kernel":
    "얼마나 무겁게 칠지는 x₀를 중심으로 한 종 모양 커널이 정합니다. 점마다 종 곡선에서 가중치를 받고, 가중치의 합이 정확히 1이 되도록 나눈 다음, y값에 가중치를 곱해 모두 더하면 추정값이 나옵니다. x₀를 왼쪽 끝에서 오른쪽 끝까지 옮겨 가며 이 값을 이으면 매끈한 곡선이 그려집니다.",
  "p1.try":
    "주황색 표식을 끌어 보세요(표식을 선택한 뒤 화살표 키를 써도 됩니다). 어떤 점들이 커지는지 살펴보세요. 이어서 폭을 줄이면 가중치를 나눠 갖는 점이 줄고, 가장 큰 가중치는 커집니다.",
  "p1.x0Label": "관심 지점 x₀",
  "p1.widthLabel": "커널 폭 σ",
  "p1.plotLabel": "잡음 섞인 데이터 점, 평활 곡선, 관심 지점 x₀, 그리고 그 아래에 그린 커널 가중치.",
  "p1.weightAxis": "가중치",
  "p1.handleLabel": "관심 지점 x₀ (끌거나 화살표 키로 이동)",
  "p1.handleText": "x₀ = {x}, 평활값 {y}",
  "p1.legendDots": "데이터 (크기 = 가중치)",
  "p1.legendCurve": "평활 곡선",
  "p1.legendBell": "커널과 가중치",
  "p1.rX0": "x₀",
  "p1.rValue": "평활값 ŷ(x₀) = Σ wᵢ yᵢ",
  "p1.rSum": "가중치의 합 Σ wᵢ",
  "p1.rMax": "가장 큰 가중치",
  "p1.rCount": "가중치의 90%를 차지하는 점",
  "p1.countText": "{n}개 중 {k}개",
  "p1.colPoint": "점",
  "p1.colLogit": "로짓 −(xᵢ−x₀)²/2σ²",
  "p1.colW": "가중치 wᵢ",
  "p1.tableLabel": "가중치가 가장 큰 점 {k}개 (엔진의 kernelSmooth 결과)",
  "p1.softmaxTitle": "사실 이것이 이미 소프트맥스입니다",
  "p1.softmax":
    "가중치가 만들어지는 과정을 들여다봅시다. 점마다 점수를 하나 매기고(로짓 열: 거리의 제곱에 음수를 붙여 2σ²로 나눈 값), 그 점수에 지수 함수를 씌워 음수가 없게 만든 뒤, 전체 합으로 나눠 합계를 1로 맞춥니다. 이 절차가 곧 소프트맥스 함수입니다. 엔진도 이 가중치를 구할 때 트랜스포머 안에서 쓰는 것과 똑같은 소프트맥스 루틴을 호출합니다.",
  "p1.bridge":
    "어텐션은 이 절차를 그대로 두고, 점수를 어디서 얻느냐만 바꿉니다. 여기서는 ‘이 점이 얼마나 가까운가’가 점수였다면, 문장에서는 ‘이 단어가 얼마나 관련 있는가’가 점수가 됩니다.",

  // 2
  "p2.title": "벡터가 된 단어",
  "p2.intro":
    "단어를 평균 내려면 먼저 단어가 숫자여야 합니다. 단어 임베딩은 단어마다 숫자 목록, 곧 벡터를 하나씩 붙여 주는데, 비슷한 맥락에서 쓰이는 단어일수록 벡터도 비슷해집니다. 아래는 입력한 문장에 대한 실제 GloVe 벡터입니다. 단어마다 숫자가 50개이고, 수십억 단어 분량의 글에서 학습된 값입니다.",
  "p2.vectors":
    "한 줄이 한 단어, 작은 칸 하나가 50개 숫자 중 하나입니다(보라색은 양수, 올리브색은 음수). 이런 벡터는 범용이라서 ‘friend’는 어느 문장에 들어가든 같은 벡터를 씁니다. 우리가 원하는 것은 이 문장에 맞게 다듬어진 ‘friend’입니다. 문장 속 단어 벡터들을 가중평균하되, 이 단어에 어떤 단어가 중요한지를 가중치가 알려 주면 됩니다.",
  "p2.vecLabel": "단어 벡터 {n}개, 각각 숫자 {d}개를 색칸으로 표시",
  "p2.vecTable": "단어 벡터: 단어 {n}개 × 숫자 {d}개",
  "p2.vecRange": "색 범위: ±{r} (이 벡터들에서 절댓값이 가장 큰 값).",
  "p2.problemTitle": "가중치는 어디서 얻을까?",
  "p2.problem":
    "첫 번째 방법은 1번 패널에서 빌려 옵니다. 문장 안에서 가까이 붙어 있는 단어일수록 가중치를 크게 주는 것이죠. 하지만 문장 속 위치는 의미에 대해 알려 주는 것이 별로 없습니다. 강의 예문에서 그 친구가 누구인지 알려 주는 단어는 ‘emma’와 ‘she’인데, 둘 다 ‘friend’에서 멀찍이 떨어져 있습니다. 두 번째 방법은 벡터에게 맡기는 것입니다. 고른 단어와 각 단어의 내적을 점수로 삼아 소프트맥스에 통과시킵니다.",
  "p2.try":
    "‘friend’를 고른 채로 줄들을 비교해 보세요. 거리 커널은 가중치를 ‘great’와 ‘a’에 씁니다. 아래 버튼으로 중요하다고 생각하는 단어를 표시하거나, 다른 단어를 고르거나, 직접 문장을 입력해 보세요.",
  "p2.wordLabel": "새로 만들 단어",
  "p2.kwLabel": "거리 커널의 폭",
  "p2.kwText": "σ = 단어 {w}개",
  "p2.scaleLabel": "점수를 √50으로 나누기 (이유는 4번 패널에서)",
  "p2.marksLabel": "고른 단어에 중요한 단어 (눌러서 표시하거나 해제):",
  "p2.rowHeader": "방식",
  "p2.cmpLabel": "“{word}”에 대한 문장 전체의 가중치, 세 가지 방식",
  "p2.rowPos": "위치 기준 (σ = {w})",
  "p2.rowDot": "내적 → 소프트맥스",
  "p2.rowDotScaled": "내적 ÷ √50 → 소프트맥스",
  "p2.rowWant": "바라는 모양 (내가 표시한 단어)",
  "p2.scoreLabel": "“{word}”와 각 단어의 내적 (그대로)",
  "p2.rowScore": "{word} · 단어",
  "p2.rPos": "표시한 단어에 돌아간 가중치, 위치 기준",
  "p2.rDot": "표시한 단어에 돌아간 가중치, 내적 기준",
  "p2.rSelf": "고른 단어가 자기 자신에게 준 가중치 (내적)",
  "p2.rParams": "내적 방식에서 학습으로 조정할 수 있는 숫자",
  "p2.paramsText": "0개: 배울 것이 없음",
  "p2.formulaPos": "위치 기준: wⱼ = softmax(−(j − i)² / 2σ²)",
  "p2.formulaDot": "내적 기준: wⱼ = softmax(xᵢ · xⱼ),   새 xᵢ = Σⱼ wⱼ xⱼ",
  "p2.verdict":
    "내적은 손댈 것 없이 저절로 계산되고 쓸모 있을 때도 있지만, 무엇에 점수를 주는지 보세요. 바로 ‘닮음’입니다. 어떤 단어든 자기 자신을 가장 닮았으니 가중치가 고른 단어 자신에게 많이 쏠립니다. 더 큰 문제는 이 방식에는 학습할 거리가 전혀 없다는 점입니다. 벡터도 고정, 내적도 고정이니 가중치가 틀려도 바로잡을 방법이 없습니다. 다음 패널에서 빠진 손잡이를 달아 줍니다.",

  // 3
  "p3.title": "쿼리 행렬과 키 행렬",
  "p3.intro":
    "셀프 어텐션은 내적과 소프트맥스를 그대로 쓰되, 그 전에 벡터를 행렬 두 개에 통과시킵니다. 고른 단어의 벡터에 W_Q를 곱한 것이 쿼리, 각 단어의 벡터에 W_K를 곱한 것이 그 단어의 키이고, 점수는 쿼리와 키의 내적입니다. W_Q와 W_K의 칸 하나하나가 학습으로 조정할 수 있는 숫자이며, 맨 내적에 없던 것이 바로 이것입니다.",
  "p3.plane":
    "50차원은 그림으로 그리기 어려우니, 문장의 GloVe 벡터를 가장 넓게 펼쳐 보이는 평면(두 주성분 축)에 투영하고 W_Q와 W_K도 2 × 2로 줄였습니다. 아래의 가중치와 출력은 이 2차원 점들에 엔진이 직접 어텐션을 계산한 결과입니다.",
  "p3.try":
    "‘friend’를 고르고 주황색 쿼리 화살표의 끝을 ‘emma’ 쪽으로 끌어 보세요(‘쿼리를 표시한 단어 쪽으로 돌리기’ 버튼을 눌러도 됩니다). 표에서 emma의 가중치가 올라갑니다. 그다음 다른 단어를 골라 보세요. 두 행렬은 같지만 쿼리가 달라서 가중치 줄도 따로 생깁니다.",
  "p3.wordLabel": "고른 단어 (쿼리가 화살표로 표시됨)",
  "p3.scaleLabel": "점수를 √2로 나누기",
  "p3.wqGroup": "쿼리 행렬 W_Q의 성분",
  "p3.wkGroup": "키 행렬 W_K의 성분",
  "p3.presets": "미리 정해 둔 값",
  "p3.presetIdentity": "항등행렬: Q = K = I",
  "p3.presetToward": "쿼리를 표시한 단어 쪽으로 돌리기",
  "p3.presetZero": "쿼리를 0으로 (가중치가 모두 같아짐)",
  "p3.presetSharp": "쿼리를 두 배로",
  "p3.noMarks": "먼저 2번 패널에서 다른 단어를 하나 이상 표시하세요.",
  "p3.zeroVector": "이 단어는 사전에 없어 벡터가 0이므로 회전해도 움직이지 않습니다.",
  "p3.towardDone": "W_K = I로 두고, W_Q가 고른 단어를 다음 단어 쪽으로 돌립니다: {words}.",
  "p3.planeLabel": "평면 위에 놓인 단어 점, 각 단어의 키, 고른 단어의 쿼리와 출력.",
  "p3.handleRole": "2차원 손잡이",
  "p3.handleLabel": "쿼리 벡터의 끝: 끌어서 옮기거나, 왼쪽·오른쪽 키로 돌리고 위·아래 키로 늘이거나 줄이기",
  "p3.handleText": "쿼리 = ({x}, {y})",
  "p3.axis1": "축 1",
  "p3.axis2": "축 2",
  "p3.outLabel": "{word}의 출력",
  "p3.qLabel": "{word}의 쿼리",
  "p3.legend":
    "회색: 단어 벡터이자 평균 낼 값(점 크기 = 가중치). 파란 고리: 키 W_K x. 주황 화살표: 고른 단어의 쿼리 W_Q x. 검은 마름모: 그 단어의 출력, 즉 회색 점들의 가중평균.",
  "p3.matricesTitle": "두 행렬",
  "p3.rowHeader": "쿼리 단어",
  "p3.heatLabel": "어텐션 가중치: 행은 쿼리 단어, 열은 키 단어",
  "p3.scoreLabel": "“{word}”의 쿼리와 모든 키 사이의 점수 (스케일 적용 후)",
  "p3.scoreRow": "q({word}) · k / √2",
  "p3.rX": "고른 단어의 벡터 x",
  "p3.rQ": "쿼리 q = W_Q x",
  "p3.rOut": "출력 Σ wⱼ xⱼ",
  "p3.rTop": "가장 큰 가중치",
  "p3.rParams": "여기서 학습으로 조정할 수 있는 숫자",
  "p3.paramsText": "8개 (W_Q와 W_K, 각각 2 × 2)",
  "p3.allTitle": "단어마다 자기 줄이 생긴다",
  "p3.all":
    "W_Q와 W_K는 문장 속 모든 단어가 함께 쓰지만, 쿼리는 단어마다 자기 벡터로 만들기 때문에 가중치 줄도 출력도 단어마다 달라집니다. 행 이름을 누르면 그 단어가 선택됩니다.",
  "p3.caveat":
    "맨 내적과 비교하면, 행렬을 넣어 유연함을 얻는 대신 해석하기는 어려워집니다. W_Q와 W_K가 아무 값이나 될 수 있으면 어떤 가중치가 왜 그렇게 나왔는지 말로 풀기 힘들죠. 그래서 직관을 세울 때는 항등행렬에서 출발하는 편이 좋습니다. 실제 모델에서는 이 행렬들을 학습하며, 보통 d_k × d 모양에 d_k가 d보다 작습니다. 값도 세 번째 행렬 W_V로 따로 만듭니다(여기서는 벡터 자체를 값으로 씁니다).",

  // 4
  "p4.title": "점수의 크기 조절",
  "p4.intro":
    "내적은 차원마다 곱을 하나씩 구해 더한 값입니다. 벡터가 길수록, 차원이 많을수록 점수가 커지고, 소프트맥스는 점수 차이가 벌어지면 거의 모든 몫을 1등에게 몰아줍니다.",
  "p4.why":
    "여기서는 문장의 50차원 GloVe 벡터를 W_Q = W_K = I인 어텐션에 넣으므로 점수가 곧 맨 내적입니다. 슬라이더는 모든 벡터를 늘이는데, 점수는 늘인 배율의 제곱으로 커집니다. 트랜스포머는 모든 점수를 √d_k(쿼리·키 길이의 제곱근)로 나눠 이 문제를 풉니다. 그러면 점수가 소프트맥스가 가중치를 고루 나눌 수 있는 범위 안에 머뭅니다.",
  "p4.try":
    "스케일링을 끈 채로 벡터를 ×2까지 늘려 보세요. 막대 하나가 줄 전체를 집어삼킵니다. 그다음 상자에 체크하면 가중치가 다시 퍼집니다.",
  "p4.wordLabel": "보여 줄 줄",
  "p4.lenLabel": "모든 벡터를 늘이는 배율",
  "p4.scaleLabel": "점수를 √d_k로 나누기",
  "p4.formula": "가중치 = softmax(Q Kᵀ / √d_k),   여기서 Q = K = c·X, d_k = 50",
  "p4.rowLabel": "“{word}” 줄의 점수, 소프트맥스 입력, 가중치",
  "p4.rowScores": "점수 q·k",
  "p4.rowLogits": "소프트맥스 입력",
  "p4.rowWeights": "가중치",
  "p4.rMax": "이 줄에서 가장 큰 가중치",
  "p4.rScore": "이 줄에서 가장 큰 점수",
  "p4.rSqrt": "점수를 나누는 값",
  "p4.rSat": "0.99를 넘는 가중치가 있는 줄",
  "p4.rSlope": "이 줄에서 가장 큰 w(1 − w)",
  "p4.sqrtOn": "√{d} = {s}",
  "p4.sqrtOff": "없음 (스케일링 꺼짐)",
  "p4.satText": "{n}줄 중 {k}줄",
  "p4.slope":
    "소프트맥스 출력이 한 칸에 몰리면 왜 학습에 나쁠까요? 가중치 하나가 1 가까이, 나머지가 0 가까이 있으면 점수를 조금 바꿔도 가중치가 거의 움직이지 않습니다. 가중치가 자기 점수에 반응하는 정도는 w(1 − w)인데, 많아야 0.25이고 양 끝에서는 0에 가깝습니다. 학습은 바로 이런 작은 조정으로 이루어지므로, 쏠린 줄은 거의 아무것도 배우지 못합니다.",
  "p4.allTitle": "모든 줄",
  "p4.rowHeader": "쿼리 단어",
  "p4.heatLabel": "현재 배율과 스케일링 설정에서 모든 줄의 어텐션 가중치",
  "p4.outro":
    "√d_k로 나누는 것은 사소해 보이지만, d_k가 커져도 어텐션을 학습할 수 있게 붙잡아 주는 장치입니다. 무작위 곱 d_k개를 더한 값은 흩어지는 폭이 √d_k에 비례해 커지는데, 이 나눗셈이 그만큼을 되돌려 놓습니다.",

  // 5
  "p5.title": "마스킹: 앞질러 보지 않기",
  "p5.intro":
    "번역기는 결과를 앞에서부터 한 단어씩 차례로 써 나갑니다. 그런데 학습할 때는 정답 문장 전체를 한꺼번에 넣기 때문에, 평범한 셀프 어텐션이라면 각 위치가 자기가 맞혀야 할 뒤쪽 단어까지 들여다볼 수 있습니다. 정답지를 펴 놓고 모의고사를 푸는 셈이죠.",
  "p5.how":
    "처방은 마스크입니다. 소프트맥스에 넣기 전에 뒤쪽 위치를 향한 점수를 모두 −∞로 바꿉니다. exp(−∞) = 0이므로 그 칸의 가중치는 정확히 0이 되고, 왼쪽 아래 삼각형만 남습니다.",
  "p5.try": "마스크를 해제해 위쪽 삼각형이 채워지는 것을 보고, 다시 체크해 대각선 위 가중치의 합이 정확히 0으로 돌아오는지 확인해 보세요.",
  "p5.causalLabel": "인과 마스크 (각 단어는 자기 자신과 앞 단어만 봄)",
  "p5.rowHeader": "쿼리 단어",
  "p5.heatLabelCausal": "인과 마스크를 씌운 어텐션 가중치 (가려진 칸은 빗금)",
  "p5.heatLabelOpen": "마스크 없는 어텐션 가중치",
  "p5.formula": "로짓ᵢⱼ = qᵢ · kⱼ / √d_k (j ≤ i일 때), −∞ (j > i일 때);   가중치 = softmax(로짓)",
  "p5.rAbove": "대각선 위 가중치의 합",
  "p5.rFirst": "첫 단어는 자기 자신만 볼 수 있음",
  "p5.rRows": "합이 1인 줄",
  "p5.rowsText": "{n}줄 중 {k}줄",
  "p5.modelTitle": "학습된 디코더 속의 같은 마스크",
  "p5.model":
    "번역기의 디코더는 이 마스크를 씌운 채 학습했습니다. 아래는 디코더가 직접 써 낸 한국어를 두고 계산한 셀프 어텐션의 헤드 하나입니다(<bos>는 시작 표시). 여기서 마스크를 끄면 같은 디코더 입력을 마스크 없이 다시 돌립니다. 그러면 가중치가 위쪽 삼각형으로, 즉 생성하는 동안에는 아직 있지도 않았을 단어들로 새어 나갑니다.",
  "p5.decLabel": "디코더 셀프 어텐션, {layer}층 {head}번 헤드",
  "p5.rTranslation": "번역",
  "p5.rAboveModel": "대각선 위 가중치 (디코더)",
  "p5.outro":
    "인코더에는 이런 마스크가 없습니다. 이미 완성된 원문을 읽으니 앞뒤를 모두 봐도 됩니다. 눈을 가려야 하는 것은 문장을 지어내는 쪽뿐입니다.",

  // 6
  "p6.title": "멀티 헤드 어텐션",
  "p6.intro":
    "한 단어가 다른 단어에 중요한 이유는 여러 가지일 수 있습니다. 문법적인 연결, 대명사가 가리키는 대상, 시제 같은 것들이죠. 소프트맥스 하나는 가중치 한 벌만 내놓으니, 헤드 하나로는 한 가지 관점밖에 담지 못합니다. 멀티 헤드 어텐션은 헤드 여러 개를 나란히 돌립니다. 헤드마다 W_Q, W_K, W_V에서 자기 몫을 떼어 쓰고, 마지막에 출력들을 이어 붙입니다.",
  "p6.how":
    "아래는 학습된 번역기의 헤드들이 이 문장을 어떻게 보는지입니다. 헤드마다 작은 히트맵이 하나씩 있고, 무늬가 저마다 다릅니다. 이 번역기는 d_model = {d}를 {dk}개씩, 헤드 {h}개로 나눠 씁니다.",
  "p6.try":
    "교차 어텐션과 인코더 셀프 어텐션, 그리고 층을 바꿔 가며 헤드들을 비교해 보세요. 같은 단어를 보고 있나요? 그다음 헤드 수를 바꿔 번역이 어떻게 되는지 확인해 보세요.",
  "p6.kindLabel": "보여 줄 어텐션",
  "p6.kind.cross": "디코더 → 원문 (교차 어텐션)",
  "p6.kind.enc": "인코더 셀프 어텐션",
  "p6.headsLabel": "헤드 수",
  "p6.headsTrained": "{h} (학습 때 설정)",
  "p6.translation": "번역:",
  "p6.headTitle": "{head}번 헤드",
  "p6.headLabelEnc": "인코더 셀프 어텐션, {layer}층 {head}번 헤드",
  "p6.headLabelCross": "교차 어텐션, {layer}층 {head}번 헤드: 행은 지금 쓰는 한국어 토큰, 열은 영어 단어",
  "p6.headSummary": "가장 많이 보는 단어: {words}",
  "p6.moreHeads": "헤드 {all}개 중 {shown}개만 보여 줍니다.",
  "p6.overlapTitle": "헤드들은 정말 서로 다른 것을 볼까?",
  "p6.overlap":
    "헤드를 두 개씩 짝지어 가중치가 얼마나 겹치는지 잽니다. 줄마다 두 가중치 중 작은 쪽을 모두 더하고, 그 값을 줄들에 대해 평균 냅니다. 1이면 두 헤드가 똑같은 곳을 보고, 0이면 한 번도 같은 곳을 보지 않는다는 뜻입니다. 대각선 밖에서 값이 높다면 같은 일을 두 번 하는 헤드가 있다는 뜻입니다.",
  "p6.overlapHeader": "헤드",
  "p6.overlapLabel": "헤드 사이 가중치 겹침, {layer}층",
  "p6.splitTitle": "헤드가 많다고 늘 좋은 것은 아니다",
  "p6.split":
    "학습된 가중치는 그대로 두고 헤드 수만 바꿔 자를 수도 있습니다({d}의 약수라면 무엇이든). 다시 학습하는 것은 없습니다. 헤드마다 더 좁거나 넓은 조각을 맡아 소프트맥스를 따로 계산할 뿐입니다. 그렇게 했을 때 번역기가 써 내는 문장, 고른 단어들에 대한 평균 확률, 그리고 학습 때 설정과 같은 단어가 얼마나 되는지를 보여 줍니다.",
  "p6.colHeads": "헤드 수",
  "p6.colTranslation": "번역",
  "p6.colConf": "고른 단어의 평균 확률",
  "p6.colAgree": "학습 설정과 같은 단어",
  "p6.splitLabel": "학습된 가중치를 가능한 헤드 수마다 나눠 번역한 결과",
  "p6.outro":
    "학습 때와 다르게 자르는 것은 헤드를 늘려 새로 학습하는 것과 같지 않습니다. 그래도 요점은 또렷해집니다. 헤드 수는 가중치가 거기에 맞춰 학습되는 설계상의 선택입니다. 헤드를 많이 두고 학습한 모델에서도 어느 수준을 넘으면 남는 헤드들이 서로 비슷한 것을 보는 경향이 있어서, 흔히 쓰는 값은 정답이라기보다 조정을 시작할 출발점입니다.",

  // 7
  "p7.title": "단어 순서와 위치 인코딩",
  "p7.intro":
    "어텐션은 단어를 오직 벡터로만 비교합니다. 단어 순서를 뒤섞어도 각 단어는 같은 상대를 같은 점수로 만나고, 결과는 순서만 섞일 뿐 값은 그대로입니다. 그러니 따로 도와주지 않으면 ‘the brother carried the sister’(형이 누나를 업었다)와 ‘the sister carried the brother’(누나가 형을 업었다)가 어텐션 눈에는 똑같아 보입니다.",
  "p7.how":
    "해법은 단어 벡터에 위치로만 정해지는 벡터를 하나 더 더해 주는 것, 곧 위치 인코딩입니다. 그러면 같은 단어라도 두 번째 자리에 놓였을 때와 다섯 번째 자리에 놓였을 때 모델에 들어가는 숫자가 달라집니다.",
  "p7.aLabel": "문장 A",
  "p7.bLabel": "문장 B (같은 단어, 다른 순서)",
  "p7.try":
    "위치 인코딩을 꺼 보세요. 단어를 맞춘 뒤의 가장 큰 차이가 0으로 떨어지고, 두 문장의 번역도 같아집니다. 누가 누구를 업었는지 모델이 가려내지 못하는 것이죠. 다시 켜면 둘이 갈라집니다.",
  "p7.peLabel": "위치 인코딩 더하기",
  "p7.formula": "p번째 자리에 있는 단어의 입력 = 임베딩(단어) + PE(p)",
  "p7.rowHeader": "쿼리",
  "p7.rDiff": "단어를 맞춘 뒤 A와 B의 가장 큰 차이",
  "p7.rTa": "A의 번역",
  "p7.rTb": "B의 번역",
  "p7.notSameWords": "두 문장을 이루는 단어가 달라서 하나씩 맞춰 볼 수 없습니다.",
  "p7.on": "위치 인코딩 있음",
  "p7.off": "위치 인코딩 없음",
  "p7.heatA": "문장 A, 인코더 셀프 어텐션({pe}), {layer}층 {head}번 헤드",
  "p7.heatB": "문장 B, 인코더 셀프 어텐션({pe}), {layer}층 {head}번 헤드",
  "p7.heatBA": "문장 B의 가중치를 A의 단어 순서로 다시 배열({pe})",
  "p7.explain":
    "세 번째 표는 B의 행과 열을 A의 순서로 옮겨 놓은 것입니다. 위치 인코딩이 없으면 A와 정확히 같습니다. 같은 어텐션이 순서만 바뀌어 있던 것이죠. 위치 인코딩이 있으면 두 표가 달라지는데, 두 번째 자리의 ‘brother’와 다섯 번째 자리의 ‘brother’가 더는 같은 입력이 아니기 때문입니다.",
  "p7.grid":
    "같은 측정을 인코더의 모든 층과 헤드에 대해 해 본 결과입니다. 단어를 맞춘 뒤 A와 B 사이의 가장 큰 차이이죠. 위치 인코딩이 없으면 모든 칸이 0이고, 있으면 어떤 헤드는 다른 헤드보다 순서에 훨씬 민감합니다(이 패널은 가장 민감한 헤드를 골라 보여 주며 시작합니다).",
  "p7.gridLabel": "단어를 맞춘 뒤 A와 B의 가장 큰 차이, 모든 층과 헤드 ({pe})",
  "p7.layerN": "{n}층",
  "p7.headN": "{n}번 헤드",
  "p7.peTitle": "사인파 위치 인코딩의 생김새",
  "p7.pe":
    "원래 트랜스포머는 파동을 씁니다. 인코딩의 k번째 차원 쌍은 위치에 대한 사인과 코사인이고, 파장은 차원을 따라가며 2π에서 약 10000·2π까지 길어집니다. 앞쪽 열은 자리가 바뀔 때마다 빠르게 깜빡이고 뒤쪽 열은 천천히 변하므로, 자리마다 저만의 무늬가 생깁니다. 계수기의 자릿수가 돌아가는 모습과 비슷합니다.",
  "p7.peAxes": "행: 1–{n}번 위치(위에서 아래로). 열: {d}개 차원(왼쪽에서 오른쪽으로). 보라 = +1, 올리브 = −1.",
  "p7.peCanvas": "사인파 위치 인코딩, 위치 {n}개 × 차원 {d}개",
  "p7.peTable": "사인파 위치 인코딩: 위치 {n}개 × 차원 {d}개",
  "p7.pos": "{i}번 위치",
  "p7.learned":
    "다른 방법은 위치 벡터도 단어 임베딩처럼 학습하는 것입니다. 자리마다 학습 가능한 벡터를 하나씩 두는 방식이죠. 실제 성능은 비슷하지만, 학습 때 본 가장 긴 위치를 넘어서지 못합니다. 반면 파동은 어느 위치에서나 값이 정해져 있습니다. 이 번역기는 위의 사인파 표를 씁니다.",

  // 8
  "p8.title": "블록 안쪽: 피드포워드, Add & Norm",
  "p8.intro":
    "어텐션은 섞기만 합니다. 출력은 모두 값 벡터들의 가중평균이죠. 평균에 평균을 거듭해도 결과는 선형에 가까워서 복잡한 모양으로 휘어지지 못합니다. 그래서 트랜스포머 블록은 어텐션 뒤에 단어마다 따로 적용되는 작은 2층 신경망을 붙입니다.",
  "p8.ffn":
    "이 피드포워드 신경망은 벡터를 넓히고(여기서는 숫자 {d}개에서 {dff}개로), ReLU로 꺾은 뒤(음수는 모두 0이 됨), 다시 {d}개로 좁힙니다. 어텐션 단계에서 단어들은 서로에게서 정보를 끌어오고, 피드포워드 단계에서는 각 단어가 끌어온 정보를 이웃을 보지 않은 채 제 안에서 다시 가공합니다. 그래서 모든 단어를 한꺼번에 처리할 수 있습니다.",
  "p8.addnorm":
    "두 하위 층 둘레에는 안전장치가 두 개 붙어 있습니다. Add는 하위 층의 입력을 출력에 도로 더하는 잔차 연결입니다. 덕분에 층은 바로잡을 부분만 배우면 되고, 학습할 때 기울기가 덧셈을 타고 곧장 지나갈 길이 생깁니다. Norm은 층 정규화(LayerNorm)로, 단어 벡터마다 평균을 0, 분산을 1로 다시 맞춘 다음 학습된 배율과 이동을 적용합니다. 그래서 층을 거듭해도 값이 한없이 불어나거나 한쪽으로 쏠리지 않습니다.",
  "p8.try":
    "단어 하나를 골라 블록을 따라 내려가 보세요. ReLU를 지난 은닉층에 정확한 0이 가득한지, 합이 정말 입력 + 하위 층인지, Norm을 지날 때마다 분산이 1 근처로 돌아오는지 확인해 보세요.",
  "p8.tokLabel": "따라갈 단어",
  "p8.layerLabel": "인코더 층",
  "p8.formulaAdd": "Add: s = x + 하위층(x)",
  "p8.formulaNorm": "Norm: LN(s) = γ ⊙ (s − 평균(s)) / √(분산(s) + ε) + β",
  "p8.stripLabel": "{title}: 숫자 {n}개를 색칸으로 표시",
  "p8.dims": "숫자 {n}개",
  "p8.mean": "평균",
  "p8.variance": "분산",
  "p8.range": "범위",
  "p8.addCheck": "|엔진의 합 − (입력 + 하위 층)| ≤ {e}",
  "p8.zeros": "ReLU 뒤 {n}개 중 {k}개가 정확히 0 ({p}%)",
  "p8.sX": "{layer}층의 입력",
  "p8.nX0": "단어 임베딩(√{d}배)에 위치 인코딩을 더한 값.",
  "p8.nX": "앞 층의 출력.",
  "p8.sAttn": "셀프 어텐션 출력",
  "p8.nAttn": "모든 헤드의 결과를 이어 붙여 W_O로 섞은 것. 이 단어가 다른 단어들에게서 모아 온 정보입니다.",
  "p8.sSum1": "Add: 입력 + 어텐션",
  "p8.nSum": "잔차 합: 입력은 손대지 않고 지나가고, 하위 층의 결과가 그 위에 더해집니다.",
  "p8.sNorm1": "Norm: 합의 층 정규화",
  "p8.nNorm": "단어 벡터마다 평균 ≈ 0, 분산 ≈ 1로 되돌립니다.",
  "p8.sHidden": "피드포워드: {dff}개로 넓혀 ReLU 통과",
  "p8.nHidden": "W₁이 숫자 {d}개를 {dff}개로 옮기고, ReLU가 음수를 모두 정확히 0으로 만듭니다.",
  "p8.sFfn": "피드포워드 출력: 다시 {d}개로",
  "p8.nFfn": "W₂가 모델 폭으로 다시 좁힙니다.",
  "p8.sSum2": "Add: 정규화된 벡터 + 피드포워드",
  "p8.sNorm2": "Norm: 이 층의 출력",
  "p8.nNorm2": "이 벡터가 다음 층으로 넘어갑니다(마지막 층이면 디코더로).",
  "p8.tableLabel": "블록을 지나는 “{word}”의 벡터들 (각각 숫자 {d}개)",
  "p8.hiddenTable": "ReLU를 지난 “{word}”의 은닉층 (숫자 {dff}개)",
  "p8.tokHeader": "단어",
  "p8.acrossTitle": "Norm은 모든 단어를 같은 눈금 위에 올린다",
  "p8.across":
    "이 층의 첫 번째 Norm 바로 앞과 바로 뒤에서, 단어 벡터마다 평균과 분산을 엔진의 벡터로 계산했습니다. 앞에서는 퍼진 정도가 단어마다 제각각이고 값도 클 수 있지만, 뒤에서는 모든 단어가 평균 0, 분산 1 가까이에 모입니다(학습된 배율 γ와 이동 β 때문에 정확히 그 값은 아닙니다).",
  "p8.acrossLabel": "층 정규화 앞뒤 단어 벡터의 평균과 분산, {layer}층",
  "p8.cMeanBefore": "평균 (전)",
  "p8.cVarBefore": "분산 (전)",
  "p8.cMeanAfter": "평균 (후)",
  "p8.cVarAfter": "분산 (후)",
  "p8.outro":
    "Add도 Norm도 그 자체로 모델을 영리하게 만들지는 않습니다. 둘의 역할은 깊이 쌓아도 학습이 되게 하는 것입니다. 이 장치들이 없으면 블록을 높이 쌓은 모델은 잘 배우지 못하거나 아예 배우지 못합니다. 덧붙이면, 트랜스포머 파라미터의 상당 부분은 피드포워드 층에 들어 있습니다(여기서는 블록마다 2 × {d} × {dff}개로, 어텐션의 4 × {d} × {d}개보다 많습니다).",

  // 9
  "p9.title": "인코더, 디코더, 교차 어텐션",
  "p9.intro":
    "이 블록들을 두 줄로 쌓으면 번역기가 됩니다. 인코더는 영어 문장을 읽고, 디코더는 한국어를 토큰 하나씩 써 나갑니다. 디코더는 토큰을 하나 쓸 때마다 두 가지를 참고합니다. 지금까지 쓴 한국어(마스크를 씌운 셀프 어텐션)와 인코더의 출력(교차 어텐션)입니다.",
  "p9.rolesLabel": "번역기 속 세 가지 어텐션과 이 문장에서의 크기",
  "p9.cAttention": "어텐션",
  "p9.cSees": "쿼리 출처 → 키·값 출처",
  "p9.cShape": "가중치 (행 × 열)",
  "p9.cMask": "마스크",
  "p9.encSelf": "인코더 셀프 어텐션",
  "p9.encSees": "영어 단어 → 영어 단어",
  "p9.noMask": "없음: 문장 전체를 봄",
  "p9.decSelf": "디코더 셀프 어텐션",
  "p9.decSees": "지금까지 쓴 한국어 → 지금까지 쓴 한국어",
  "p9.causal": "인과: 앞 위치만",
  "p9.cross": "교차 어텐션",
  "p9.crossSees": "지금까지 쓴 한국어 → 영어 단어 (인코더 출력)",
  "p9.roles":
    "셀프 어텐션은 한 문장 안을 들여다보고, 교차 어텐션은 건너편 문장을 바라봅니다. 다음에 어떤 영어 단어를 옮길지 번역기가 알아내는 곳이 바로 교차 어텐션입니다. 인코더만 쓰는 모델(BERT 등)과 디코더만 쓰는 모델(GPT 등)은 이 설계에서 각각 한쪽만 가져간 것입니다.",
  "p9.genTitle": "생성: 한 번에 토큰 하나씩",
  "p9.gen":
    "디코더는 <bos>에서 출발해 다음에 올 확률이 가장 높은 토큰을 골라 덧붙이고, <eos>가 나올 때까지 이를 되풀이합니다. 아래에는 단계마다 고른 토큰과 모델이 그 토큰에 매긴 확률이 나옵니다.",
  "p9.stepsLabel": "생성된 토큰과 그 확률",
  "p9.unfinished": "(<eos> 없이 길이 한도에서 멈춤)",
  "p9.try":
    "층과 헤드를 바꿔 가며 살펴보세요. 어느 헤드에서는 줄마다 그 한국어 토큰이 옮긴 영어 단어에 불이 들어옵니다. 강의 예문에서 번역기는 ‘she’를 옮기며 ‘엠마’를 한 번 더 씁니다. 그 줄이 어떤 영어 단어를 보는지 찾아보세요.",
  "p9.formula":
    "교차 어텐션: Q = 디코더 상태 · W_Q,   K = 인코더 출력 · W_K,   V = 인코더 출력 · W_V,   가중치 = softmax(Q Kᵀ / √d_k)",
  "p9.rowHeader": "만드는 토큰",
  "p9.crossLabel": "교차 어텐션, {layer}층 {head}번 헤드: 행은 그 토큰을 만든 단계, 열은 영어 단어",
  "p9.openLab": "이 문장을 어텐션 실험실에서 열기",
  "p9.rnnTitle": "왜 RNN이 아닌가?",
  "p9.rnn":
    "트랜스포머 이전의 번역기는 순환 신경망(RNN)으로 문장을 읽었습니다. 단어를 하나씩 읽으며 지금까지의 요약을 다음 칸으로 넘기는 방식입니다. 여기에는 대가가 두 가지 따릅니다. 첫 단어가 마지막 단어에 영향을 주려면 신호가 n − 1번의 전달을 견뎌야 합니다. 또 t번째 단어는 t − 1번째 계산이 끝나야 시작할 수 있으니, GPU의 수많은 병렬 연산 장치에 일을 나눠 맡길 수 없습니다. 어텐션은 어떤 두 단어든 한 단계 만에 잇고, 모든 위치를 동시에 계산합니다.",
  "p9.tLabel": "시간 단계",
  "p9.play": "재생",
  "p9.stop": "정지",
  "p9.rnnRow": "RNN",
  "p9.attRow": "어텐션",
  "p9.rnnNow": "RNN: 상태 {n}개 중 {k}개 계산됨",
  "p9.attNow": "어텐션: {n}개 위치 모두 1단계에 계산",
  "p9.rnnLabel": "단어 {n}개, 시간 단계 {k}의 그림: RNN은 상태를 {k}개 계산했고, 어텐션은 {n}개를 한꺼번에 계산했습니다.",
  "p9.rN": "문장의 단어 수",
  "p9.rPath": "1번 단어에서 n번 단어까지 걸리는 단계",
  "p9.rSeq": "층 하나에 필요한 순차 단계",
  "p9.rNow": "이 시간 단계에 준비된 상태",
  "p9.pathText": "RNN {r}, 어텐션 {a}",
  "p9.seqText": "RNN {r}, 어텐션 {a}",
  "p9.nowText": "RNN {n}개 중 {r}개, 어텐션 {n}개 중 {a}개",
  "p9.outro":
    "바로 이 마지막 차이가 판도를 바꿨습니다. 모든 위치를 한꺼번에 계산할 수 있게 되자 같은 시간 안에 몇 배나 많은 데이터를 학습시킬 수 있었고, 그 길이 오늘날의 대규모 사전학습 모델로 이어졌습니다.",
};

export const STRINGS = { en, ko };
