//! Cases small enough to check with pencil and paper; the arithmetic is in the comments.
#![cfg(not(target_arch = "wasm32"))]

use attnscope::attention::{fast_exp, scaled_dot_product, softmax_rows, Edits, MultiHeadAttention};
use attnscope::feed_forward::{activate, fast_erf, fast_tanh};
use attnscope::linear::Linear;
use attnscope::norm::LayerNorm;
use attnscope::positional::sinusoidal;
use attnscope::tokenizer::split_words;
use attnscope::{Activation, Tokenizer};
use nalgebra::{DMatrix, RowDVector};
use serde_json::json;

#[path = "support/tiny_tokenizer.rs"]
mod tiny_tokenizer;

const LN3: f32 = 1.098_612_3; // ln 3
const INF: f32 = f32::INFINITY;

fn close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{what}: element {i} is {g}, expected {w} (all: {got:?}, expected {want:?})");
    }
}

fn row(values: &[f32]) -> DMatrix<f32> {
    DMatrix::from_row_slice(1, values.len(), values)
}

fn rm(m: &DMatrix<f32>) -> Vec<f32> {
    m.transpose().as_slice().to_vec()
}

#[test]
fn softmax_by_hand() {
    #[rustfmt::skip]
    let cases: &[(&str, &[f32], &[f32])] = &[
        // e^0 = 1, e^ln3 = 3, sum 4
        ("[0, ln 3]", &[0.0, LN3], &[0.25, 0.75]),
        // equal logits share equally, at any offset (the max is subtracted first: no overflow)
        ("[1000, 1000]", &[1000.0, 1000.0], &[0.5, 0.5]),
        ("[-1000, -1000, -1000, -1000]", &[-1000.0; 4], &[0.25; 4]),
        // e^0 : e^-inf = 1 : 0
        ("[0, -inf]", &[0.0, -INF], &[1.0, 0.0]),
        // e^2 / (e^2 + e^0) = 1 / (1 + e^-2) = 0.880797
        ("[2, 0]", &[2.0, 0.0], &[0.880_797, 0.119_203]),
        // a single key gets everything
        ("[-7]", &[-7.0], &[1.0]),
        // every key masked: defined as all zeros (src/attention.rs, "A row with every key masked")
        ("[-inf, -inf, -inf]", &[-INF, -INF, -INF], &[0.0, 0.0, 0.0]),
    ];
    for (what, input, want) in cases {
        let got = softmax_rows(&row(input));
        close(&format!("softmax {what}"), got.as_slice(), want, 1e-6);
    }
}

/// The softmax's `exp`: within 2.5e-7 relative of f64 `exp` on a dense sweep of [-87, 88]
/// (every 1e-4, plus the edges), and the documented values outside.
#[test]
fn fast_exp_error_bound() {
    let mut worst = (0.0f64, 0.0f32);
    let n = 1_750_000;
    for i in 0..=n {
        let x = -87.0 + 175.0 * (i as f32) / (n as f32);
        let want = (x as f64).exp();
        let rel = ((fast_exp(x) as f64 - want) / want).abs();
        if rel > worst.0 {
            worst = (rel, x);
        }
    }
    assert!(worst.0 <= 2.5e-7, "fast_exp: relative error {:e} at x = {}", worst.0, worst.1);
    for (x, want) in [(0.0, 1.0), (-INF, 0.0), (-88.0, 0.0), (-1e30, 0.0), (89.0, INF), (INF, INF)] {
        assert_eq!(fast_exp(x), want, "fast_exp({x})");
    }
    assert!(fast_exp(f32::NAN).is_nan());
}

/// GELU's `erf` and the tanh form's `tanh`: within 5e-7 and 3e-7 absolute of the `f64` functions on a
/// dense sweep of [-10, 10] (every 1e-5), exact at the ends, NaN through.
#[test]
fn fast_erf_and_tanh_error_bounds() {
    let n = 2_000_000;
    let (mut erf_worst, mut tanh_worst) = ((0.0f64, 0.0f32), (0.0f64, 0.0f32));
    for i in 0..=n {
        let x = -10.0 + 20.0 * (i as f32) / (n as f32);
        let e = (fast_erf(x) as f64 - libm::erf(x as f64)).abs();
        let t = (fast_tanh(x) as f64 - libm::tanh(x as f64)).abs();
        if e > erf_worst.0 {
            erf_worst = (e, x);
        }
        if t > tanh_worst.0 {
            tanh_worst = (t, x);
        }
    }
    assert!(erf_worst.0 <= 5e-7, "fast_erf: error {:e} at x = {}", erf_worst.0, erf_worst.1);
    assert!(tanh_worst.0 <= 3e-7, "fast_tanh: error {:e} at x = {}", tanh_worst.0, tanh_worst.1);
    for f in [fast_erf, fast_tanh] {
        assert_eq!(f(INF), 1.0);
        assert_eq!(f(-INF), -1.0);
        assert_eq!(f(0.0), 0.0);
        assert!(f(f32::NAN).is_nan());
    }
}

#[test]
fn softmax_treats_rows_independently() {
    // row 0: [0, ln 3] -> [1/4, 3/4]; row 1 fully masked -> [0, 0]; row 2: [5, 5] -> [1/2, 1/2]
    let x = DMatrix::from_row_slice(3, 2, &[0.0, LN3, -INF, -INF, 5.0, 5.0]);
    close("3 rows", &rm(&softmax_rows(&x)), &[0.25, 0.75, 0.0, 0.0, 0.5, 0.5], 1e-6);
}

#[test]
fn scaled_dot_product_on_2x2_matrices() {
    // Q = I, so scores = Q K^T = K^T: row i of the scores is column i of K.
    // K = [[0, 0], [sqrt2 ln3, 0]]  ->  scores = [[0, sqrt2 ln3], [0, 0]]
    // d_k = 2: logits = scores / sqrt2 = [[0, ln3], [0, 0]]
    // weights = [[1/4, 3/4], [1/2, 1/2]]
    // V = [[1, 2], [3, 4]]: output row 0 = 1/4 [1, 2] + 3/4 [3, 4] = [2.5, 3.5]
    //                       output row 1 = 1/2 [1, 2] + 1/2 [3, 4] = [2, 3]
    let s2 = 2f32.sqrt();
    let q = DMatrix::identity(2, 2);
    let k = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, s2 * LN3, 0.0]);
    let v = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
    let t = scaled_dot_product(q.clone(), k.clone(), v.clone(), true, false);
    close("scores", &t.scores.row_major(), &[0.0, s2 * LN3, 0.0, 0.0], 1e-6);
    close("logits", &t.logits.row_major(), &[0.0, LN3, 0.0, 0.0], 1e-6);
    close("weights", &t.weights.row_major(), &[0.25, 0.75, 0.5, 0.5], 1e-6);
    close("output", &t.output.row_major(), &[2.5, 3.5, 2.0, 3.0], 1e-5);

    // Causal: query 0 sees only key 0 -> weights row 0 = [1, 0], output row 0 = V row 0 = [1, 2];
    // the logit above the diagonal is -inf; row 1 is unchanged.
    let t = scaled_dot_product(q.clone(), k.clone(), v.clone(), true, true);
    assert_eq!(t.logits[(0, 1)], -INF, "masked logit");
    close("causal weights", &t.weights.row_major(), &[1.0, 0.0, 0.5, 0.5], 1e-6);
    close("causal output", &t.output.row_major(), &[1.0, 2.0, 2.0, 3.0], 1e-5);

    // Unscaled: logits = scores = [[0, sqrt2 ln3], [0, 0]]; e^(sqrt2 ln3) = 3^sqrt2 = 4.728804
    // row 0 = [1, 3^sqrt2] / (1 + 3^sqrt2) = [0.174556, 0.825444]
    let t = scaled_dot_product(q, k, v, false, false);
    close("unscaled weights", &t.weights.row_major(), &[0.174_556, 0.825_444, 0.5, 0.5], 1e-5);
}

#[test]
fn raw_scores_are_q_times_k_transposed() {
    // Q = [[1, 2], [3, 4]], K = [[1, 0], [0, 1], [1, 1]]
    // Q K^T = [[1, 2, 3], [3, 4, 7]]   (q_i . k_j)
    let q = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
    let k = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    let v = DMatrix::zeros(3, 2);
    let t = scaled_dot_product(q, k, v, true, false);
    assert_eq!(t.scores.shape(), (2, 3), "(T_q, d_k) x (d_k, T_k) -> (T_q, T_k)");
    close("scores", &t.scores.row_major(), &[1.0, 2.0, 3.0, 3.0, 4.0, 7.0], 0.0);
    let r2 = 1.0 / 2f32.sqrt();
    close("logits", &t.logits.row_major(), &[r2, 2.0 * r2, 3.0 * r2, 3.0 * r2, 4.0 * r2, 7.0 * r2], 1e-6);
}

#[test]
fn two_heads_with_identity_projections() {
    // d_model = 2, h = 2, d_k = 1, W_Q = W_K = W_V = W_O = I, no biases; X = I.
    // Head 0 reads column 0: q = k = v = [1, 0]^T; scores = [[1, 0], [0, 0]]; sqrt(d_k) = 1.
    //   weights row 0 = softmax[1, 0] = [e/(e+1), 1/(e+1)] = [0.7310586, 0.2689414]; row 1 = [1/2, 1/2]
    //   output = weights v = [0.7310586, 0.5]
    // Head 1 reads column 1: q = k = v = [0, 1]^T; scores = [[0, 0], [0, 1]]
    //   weights row 0 = [1/2, 1/2]; row 1 = [0.2689414, 0.7310586]; output = [0.5, 0.7310586]
    // concat = [[0.7310586, 0.5], [0.5, 0.7310586]] = output (W_O = I)
    let id = || Linear::from_torch(DMatrix::identity(2, 2), RowDVector::zeros(2));
    let mha = MultiHeadAttention { w_q: id(), w_k: id(), w_v: id(), w_o: id() };
    let x = DMatrix::identity(2, 2);
    let (trace, out) = mha.forward(&x, &x, 2, true, false, &Edits::default());
    let (a, b) = (0.731_058_6, 0.268_941_4);
    close("head 0 weights", &trace.heads[0].weights.row_major(), &[a, b, 0.5, 0.5], 1e-6);
    close("head 1 weights", &trace.heads[1].weights.row_major(), &[0.5, 0.5, b, a], 1e-6);
    close("concat", &trace.concat.row_major(), &[a, 0.5, 0.5, a], 1e-6);
    close("output", &rm(&out), &[a, 0.5, 0.5, a], 1e-6);

    // One head over both columns: scores = X X^T = I, d_k = 2 -> logits = I / sqrt2;
    // softmax[1/sqrt2, 0] = 1 / (1 + e^-0.7071068) = 0.6697615
    let (trace, _) = mha.forward(&x, &x, 1, true, false, &Edits::default());
    let c = 0.669_761_5;
    close("1 head weights", &trace.heads[0].weights.row_major(), &[c, 1.0 - c, 1.0 - c, c], 1e-6);
}

#[test]
fn linear_is_x_w_transposed_plus_b() {
    // torch weight (out = 3, in = 2) = [[1, 0], [0, 1], [1, 1]], bias [0.5, 0, -1]
    // x = [1, 2]: [1 + 0.5, 2 + 0, 1 + 2 - 1] = [1.5, 2, 2]
    let lin = Linear::from_torch(
        DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
        RowDVector::from_row_slice(&[0.5, 0.0, -1.0]),
    );
    close("linear", &rm(&lin.forward(&row(&[1.0, 2.0]))), &[1.5, 2.0, 2.0], 0.0);
}

#[test]
fn layer_norm_by_hand() {
    // [1, 2, 3]: mean 2, biased variance (1 + 0 + 1) / 3 = 2/3, std sqrt(2/3) = 0.8164966
    // -> [-1, 0, 1] / 0.8164966 = [-1.2247449, 0, 1.2247449]  (= -+sqrt(3/2))
    let s32 = 1.224_744_9;
    let ln = |g: f32, b: f32, eps: f32| LayerNorm {
        gamma: RowDVector::from_element(3, g),
        beta: RowDVector::from_element(3, b),
        eps,
    };
    #[rustfmt::skip]
    let cases: &[(&str, LayerNorm, &[f32], &[f32])] = &[
        ("[1,2,3] eps 0", ln(1.0, 0.0, 0.0), &[1.0, 2.0, 3.0], &[-s32, 0.0, s32]),
        // eps inside the root: 1 / sqrt(2/3 + 1e-5) = 1.2247357
        ("[1,2,3] eps 1e-5", ln(1.0, 0.0, 1e-5), &[1.0, 2.0, 3.0], &[-1.224_735_7, 0.0, 1.224_735_7]),
        // gamma 2, beta 1: 1 + 2 * [-1.2247449, 0, 1.2247449]
        ("[1,2,3] gamma 2 beta 1", ln(2.0, 1.0, 0.0), &[1.0, 2.0, 3.0], &[1.0 - 2.0 * s32, 1.0, 1.0 + 2.0 * s32]),
        // shift-invariant: [101, 102, 103] normalises like [1, 2, 3]
        ("[101,102,103]", ln(1.0, 0.0, 0.0), &[101.0, 102.0, 103.0], &[-s32, 0.0, s32]),
        // a constant row has variance 0: (x - mean) = 0, so the output is beta (eps keeps it finite)
        ("[5,5,5]", ln(1.0, 0.25, 1e-5), &[5.0, 5.0, 5.0], &[0.25, 0.25, 0.25]),
    ];
    for (what, norm, x, want) in cases {
        close(&format!("LayerNorm {what}"), &rm(&norm.forward(&row(x))), want, 1e-5);
    }
}

#[test]
fn sinusoidal_encoding_by_hand() {
    // PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)), d = 4:
    // i = 0: 10000^0 = 1; i = 1: 10000^(2/4) = 100.
    // pos 0 -> [sin 0, cos 0, sin 0, cos 0] = [0, 1, 0, 1]
    // pos 1 -> [sin 1, cos 1, sin 0.01, cos 0.01]
    // pos 2 -> [sin 2, cos 2, sin 0.02, cos 0.02]
    let pe = sinusoidal(3, 4);
    assert_eq!(pe.shape(), (3, 4), "(max_len, d_model)");
    let cases: [(usize, [f64; 4]); 3] = [
        (0, [0.0, 1.0, 0.0, 1.0]),
        (1, [1f64.sin(), 1f64.cos(), 0.01f64.sin(), 0.01f64.cos()]),
        (2, [2f64.sin(), 2f64.cos(), 0.02f64.sin(), 0.02f64.cos()]),
    ];
    for (pos, want) in cases {
        let want: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        let got: Vec<f32> = pe.row(pos).iter().copied().collect();
        close(&format!("PE(pos={pos}), d=4"), &got, &want, 1e-7);
    }
    // Odd width d = 3: the last column is a sine with 2i = 2: sin(pos / 10000^(2/3)) = sin(pos / 464.15888)
    let pe = sinusoidal(2, 3);
    close("PE(pos=1), d=3", &[pe[(1, 2)]], &[(1.0f64 / 464.158_883_4).sin() as f32], 1e-7);
}

#[test]
fn activations_by_hand() {
    // GELU(x) = x Phi(x) = 0.5 x (1 + erf(x / sqrt2)); erf(1/sqrt2) = 0.6826895 (the 1-sigma mass)
    #[rustfmt::skip]
    let cases: &[(Activation, f32, f32)] = &[
        (Activation::Gelu, 1.0, 0.841_344_7),    // 0.5 (1 + 0.6826895)
        (Activation::Gelu, 0.0, 0.0),
        (Activation::Gelu, -1.0, -0.158_655_3),  // -0.5 (1 - 0.6826895)
        (Activation::Gelu, 2.0, 1.954_499_7),    // 2 Phi(2) = 2 * 0.9772499
        (Activation::Relu, -2.0, 0.0),
        (Activation::Relu, 3.0, 3.0),
        (Activation::Relu, 0.0, 0.0),
    ];
    for &(act, x, want) in cases {
        let got = activate(act, x);
        assert!((got - want).abs() <= 1e-6, "{act:?}({x}) = {got}, expected {want}");
    }
}

fn words(text: &str) -> Vec<String> {
    split_words(text, true, true)
}

#[test]
fn english_tokenization() {
    #[rustfmt::skip]
    let cases: &[(&str, &[&str])] = &[
        ("Emma hates games, but she's a great friend",
            &["emma", "hates", "games", ",", "but", "she", "'s", "a", "great", "friend"]),
        ("don't", &["do", "n't"]),
        ("I can't, you won't.", &["i", "ca", "n't", ",", "you", "wo", "n't", "."]),
        // the curly apostrophe U+2019 is read as '
        ("I\u{2019}m", &["i", "'m"]),
        ("she\u{2019}s here", &["she", "'s", "here"]),
        ("THEY'RE", &["they", "'re"]),
        // quotes around a word are not apostrophes inside it
        ("'hello'", &["'", "hello", "'"]),
        ("rock 'n' roll", &["rock", "'", "n", "'", "roll"]),
        // digits are word characters; other symbols stand alone
        ("3.14 is pi", &["3", ".", "14", "is", "pi"]),
        ("a--b", &["a", "-", "-", "b"]),
        // every kind of whitespace separates
        ("  tabs\tand\nnewlines  ", &["tabs", "and", "newlines"]),
        ("", &[]),
        ("   ", &[]),
        // an emoji is one character, hence one token; a letter next to it is split off
        ("I love you\u{1F60D}", &["i", "love", "you", "\u{1F60D}"]),
        ("\u{1F389}\u{1F389}", &["\u{1F389}", "\u{1F389}"]),
        // Hangul syllables are letters: Korean words stay whole, punctuation splits off
        ("안녕하세요 세계", &["안녕하세요", "세계"]),
        ("사랑해요!", &["사랑해요", "!"]),
        // accented Latin letters lowercase and stay in the word
        ("Café ÉTÉ", &["café", "été"]),
    ];
    for (text, want) in cases {
        assert_eq!(words(text), *want, "tokens of {text:?}");
    }
}

#[test]
fn tokenization_settings() {
    // lowercase off keeps case; contractions off keeps the apostrophe inside the word
    let cases: &[(&str, bool, bool, &[&str])] = &[
        ("Don't", false, true, &["Do", "n't"]),
        ("Don't", true, false, &["don't"]),
        ("She\u{2019}s", false, false, &["She's"]),
    ];
    for &(text, lowercase, contractions, want) in cases {
        assert_eq!(
            split_words(text, lowercase, contractions),
            want,
            "{text:?} lowercase={lowercase} contractions={contractions}"
        );
    }
}

/// A tokenizer with a tiny Korean target vocabulary and glue tokens.
fn korean_tokenizer() -> Tokenizer {
    tiny_tokenizer::tokenizer(
        &["i", "go", "to", "school", "."],
        &["나는", "학교", "에", "간다", "."],
        json!({"glue": ["에", "."]}),
    )
}

#[test]
fn detokenize_attaches_glue_tokens() {
    let tok = korean_tokenizer();
    assert_eq!((tok.bos, tok.eos), (1, 2), "<bos>, <eos> ids");
    #[rustfmt::skip]
    let cases: &[(&[u32], &str)] = &[
        // <bos> 나는 학교 에 간다 . <eos>: "에" and "." attach to the token before them
        (&[1, 4, 5, 6, 7, 8, 2], "나는 학교에 간다."),
        (&[4, 5, 6, 7, 8], "나는 학교에 간다."),
        // a glue token first has nothing to attach to
        (&[6, 4], "에 나는"),
        // <bos> and <eos> never print; an id outside the vocabulary prints as "?"
        (&[1, 2], ""),
        (&[4, 99, 7], "나는 ? 간다"),
        (&[4, 3, 7], "나는 <unk> 간다"),
    ];
    for (ids, want) in cases {
        assert_eq!(tok.detokenize(ids), *want, "detokenize {ids:?}");
    }
}

#[test]
fn encode_maps_unknown_words_to_unk() {
    let tok = korean_tokenizer();
    // "I go to Seoul." -> i go to seoul . ; "seoul" (position 3) is unknown -> <unk> = 3
    let enc = tok.encode_src("I go to Seoul.").unwrap();
    assert_eq!(enc.tokens, ["i", "go", "to", "seoul", "."]);
    assert_eq!(enc.ids, [4, 5, 6, 3, 8]);
    assert_eq!(enc.unknown, [3]);
    // target text is split on whitespace only, no lowercasing
    let enc = tok.encode_tgt("나는 학교 에").unwrap();
    assert_eq!(enc.ids, [4, 5, 6]);
    let enc = tok.encode_tgt("나는 서울").unwrap();
    assert_eq!((enc.ids, enc.unknown), (vec![4, 3], vec![1]), "unknown target token -> <unk>");
    assert!(tok.encode_src(" \n ").is_err(), "empty source text");
    assert!(tok.encode_tgt("").is_err(), "empty target text");
}

/// A row of NaNs (what overflowing scores give, e.g. a model file whose finite weights are
/// ~1e30) must not come out as all zeros like a fully masked row: a maximum folded with
/// `f32::max` skips NaN and once made exactly that mistake. NaN in, NaN out, as
/// src/attention.rs promises.
#[test]
fn softmax_of_a_nan_row_is_not_a_masked_row() {
    let cases: &[(&str, &[f32])] = &[("[NaN, NaN]", &[f32::NAN, f32::NAN]), ("[NaN, -inf]", &[f32::NAN, -INF])];
    for (what, input) in cases {
        let got = softmax_rows(&row(input));
        assert!(got.iter().any(|v| v.is_nan()), "softmax {what} = {:?}: the NaN vanished", got.as_slice());
    }
}

/// A tokenizer whose glue endings start with a jamo consonant, `compose_jamo` as given.
fn jamo_tokenizer(compose: bool) -> Tokenizer {
    let tgt = ["가", "크", "먹어", "하", "먹", "집", "ㅆ다", "ㄴ다", "ㄴ", "ㄹ", "ㄸ다", "다", "ㅆ다-free", "."];
    let glue = json!({"glue": ["ㅆ다", "ㄴ다", "ㄴ", "ㄹ", "ㄸ다", "다", "."], "compose_jamo": compose});
    tiny_tokenizer::tokenizer(&[], &tgt, glue)
}

#[test]
fn compose_jamo_puts_a_glued_consonant_under_the_syllable_before_it() {
    // ids: 4 가, 5 크, 6 먹어, 7 하, 8 먹, 9 집, 10 ㅆ다, 11 ㄴ다, 12 ㄴ, 13 ㄹ, 14 ㄸ다, 15 다,
    // 16 ㅆ다-free (not glue), 17 .
    // A syllable is U+AC00 + (L * 21 + V) * 28 + T; T = 0 means no final consonant.
    // Finals: ㄴ = 4, ㄹ = 8, ㅆ = 20.
    let tok = jamo_tokenizer(true);
    #[rustfmt::skip]
    let cases: &[(&[u32], &str, &str)] = &[
        // 가 = U+AC00 (T = 0); + ㅆ (20) = U+AC14 갔
        (&[4, 10], "갔다", "가 + ㅆ다"),
        // + ㄴ (4) = U+AC04 간
        (&[4, 11], "간다", "가 + ㄴ다"),
        // 크 = U+D06C = U+AC00 + (15 * 21 + 18) * 28; + 4 = U+D070 큰
        (&[5, 12], "큰", "크 + ㄴ"),
        // 어 = U+C5B4 = U+AC00 + (11 * 21 + 4) * 28; + 20 = U+C5C8 었
        (&[6, 10], "먹었다", "먹어 + ㅆ다"),
        // 하 = U+D558 = U+AC00 + 18 * 21 * 28; + 8 = U+D560 할
        (&[7, 13], "할", "하 + ㄹ"),
        // 먹 = U+BA39 already has a final (ㄱ): (0xBA39 - 0xAC00) % 28 = 1, so no composition
        (&[8, 12], "먹ㄴ", "먹 + ㄴ"),
        // 집 has a final (ㅂ, 17): printed as is, glued
        (&[9, 10], "집ㅆ다", "집 + ㅆ다"),
        // ㄸ is never a final consonant
        (&[4, 14], "가ㄸ다", "가 + ㄸ다"),
        // a glue token that does not start with a jamo glues as usual
        (&[4, 15, 17], "가다.", "가 + 다 + ."),
        // a jamo token that is not in the glue list gets its space and no composition
        (&[4, 16], "가 ㅆ다-free", "가 + ㅆ다-free (not glue)"),
        // nothing before it: printed as is
        (&[10, 4], "ㅆ다 가", "ㅆ다 first"),
        // after a full sentence with <bos>/<eos>
        (&[1, 9, 4, 10, 17, 2], "집 갔다.", "<bos> 집 가 ㅆ다 . <eos>"),
        // after an English word (a copied <unk>, here the token itself): no Hangul syllable
        (&[3, 12], "<unk>ㄴ", "<unk> + ㄴ"),
    ];
    for (ids, want, what) in cases {
        assert_eq!(tok.detokenize(ids), *want, "{what}: detokenize {ids:?}");
    }
    // Setting off (the default): every token printed as is.
    let off = jamo_tokenizer(false);
    for (ids, want) in [(&[4u32, 10][..], "가ㅆ다"), (&[6, 10], "먹어ㅆ다"), (&[5, 12], "크ㄴ")] {
        assert_eq!(off.detokenize(ids), want, "compose_jamo off: {ids:?}");
    }
}

#[test]
fn a_glue_prefix_marks_suffixes_written_like_words() {
    // The determiner 이 ("this") and the particle +이 (subject, after a consonant) are written
    // alike; the marker keeps them apart, and prints as nothing.
    let tgt = ["이", "+이", "책", "가", "+ㅆ", "+다", "+", ".", "+는"];
    let tok = tiny_tokenizer::tokenizer(&[], &tgt, json!({"glue": ["."], "compose_jamo": true, "glue_prefix": "+"}));
    #[rustfmt::skip]
    let cases: &[(&[u32], &str, &str)] = &[
        // ids: 4 이, 5 +이, 6 책, 7 가, 8 +ㅆ, 9 +다, 10 + (the marker alone is a word), 11 ., 12 +는
        (&[4, 6, 5], "이 책이", "이 책 +이: the determiner gets a space, the particle none"),
        (&[7, 8, 9, 11], "갔다.", "가 +ㅆ +다 .: a marked jamo composes"),
        (&[6, 12, 10], "책는 +", "a lone marker is an ordinary token"),
        (&[5, 6], "이 책", "a marked token first in the sentence prints without its marker"),
    ];
    for (ids, want, what) in cases {
        assert_eq!(tok.detokenize(ids), *want, "{what}: detokenize {ids:?}");
    }
}

#[test]
fn final_consonant_index_of_every_compatibility_jamo() {
    use attnscope::tokenizer::final_index;
    // the 27 finals in order; ㄸ ㅃ ㅉ cannot be finals
    let finals = "ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ";
    // U+AC00 가 + T is 가 with that final: U+AC01 각 .. U+AC1B 갛
    let syllables = "각갂갃간갅갆갇갈갉갊갋갌갍갎갏감갑값갓갔강갖갗갘같갚갛";
    for (i, (j, s)) in finals.chars().zip(syllables.chars()).enumerate() {
        assert_eq!(final_index(j), Some(i as u32 + 1), "{j}");
        assert_eq!(char::from_u32(0xAC00 + i as u32 + 1), Some(s), "가 + {j}");
    }
    assert_eq!((finals.chars().count(), syllables.chars().count()), (27, 27));
    for j in ['ㄸ', 'ㅃ', 'ㅉ', 'ㅏ', 'a', '가', '\u{3130}', '\u{314F}'] {
        assert_eq!(final_index(j), None, "{j:?}");
    }
}

#[test]
fn detokenize_spans_say_where_each_token_printed() {
    // 나는 (6 bytes) + space + "Seoul" in place of <unk> (5) + 에 glued (3): "나는 Seoul에"
    let tok = korean_tokenizer();
    let (text, spans) = tok.detokenize_spans(&[1, 4, 3, 6, 2], |i| (i == 2).then_some("Seoul"));
    assert_eq!(text, "나는 Seoul에");
    assert_eq!(spans, [None, Some(0..6), Some(7..12), Some(12..15), None]);
    // a composed jamo covers the syllable it went into: 가 + ㅆ다 -> 갔다 (bytes 0..6), "." 6..7
    let jamo = jamo_tokenizer(true);
    let (text, spans) = jamo.detokenize_spans(&[4, 10, 17], |_| None);
    assert_eq!(text, "갔다.");
    assert_eq!(spans, [Some(0..3), Some(0..6), Some(6..7)]);
}

#[test]
fn a_token_or_a_pair_three_times_in_a_row_repeats() {
    use attnscope::decode::repeats;
    #[rustfmt::skip]
    let cases: &[(&[u32], u32, bool, &str)] = &[
        (&[], 5, false, "nothing before"),
        (&[5], 5, false, "twice is allowed"),
        (&[5, 5], 5, true, "a a + a"),
        (&[4, 5, 5], 5, true, "x a a + a"),
        (&[5, 4, 5], 5, false, "a x a + a"),
        (&[1, 2, 1, 2], 1, false, "a b a b + a: the pair comes twice, then a third a"),
        (&[1, 2, 1, 2, 1], 2, true, "a b a b a + b: the pair three times"),
        (&[3, 2, 1, 2, 1], 2, false, "c b a b a + b: b a twice, then a b: not three pairs"),
        (&[1, 2, 1, 2, 1], 3, false, "a b a b a + c"),
    ];
    for (prefix, next, want, what) in cases {
        assert_eq!(repeats(prefix, *next), *want, "{what}: repeats({prefix:?}, {next})");
    }
}

/// `Mat::row_major` undoes `Mat::from_rows` for shapes with and without a multiple of four
/// columns (its four-column groups and the rest).
#[test]
fn row_major_round_trip() {
    for (rows, cols) in [(1, 1), (1, 4), (3, 5), (5, 8), (7, 3), (2, 13), (33, 32)] {
        let data: Vec<f32> = (0..rows * cols).map(|v| v as f32 * 0.5 - 3.0).collect();
        let m = attnscope::trace::Mat::from_rows(rows, cols, &data);
        assert_eq!(m.row_major(), data, "({rows}, {cols})");
        assert_eq!(m[(rows - 1, 0)], data[(rows - 1) * cols], "({rows}, {cols})");
    }
}

/// An edited `W_Q`/`W_K` block gives exactly what a model holding those weights gives: every
/// traced value of the attention bit for bit equal, for heads whose columns do and do not start
/// on a kernel panel (d_k 12 and 8), with an edit of each matrix in another head.
#[test]
fn edited_blocks_match_a_model_holding_them() {
    use attnscope::config::{Matrix, Override, Stack};
    let (d, t) = (24, 7);
    let value = |i: usize, j: usize, seed: usize| (((i * 31 + j * 17 + seed * 7) % 23) as f32 - 11.0) / 13.0;
    let lin = |seed: usize| {
        Linear::from_torch(
            DMatrix::from_fn(d, d, |i, j| value(i, j, seed)),
            RowDVector::from_fn(d, |_, j| value(0, j, seed + 1)),
        )
    };
    let x = DMatrix::from_fn(t, d, |i, j| value(i, j, 9));
    for h in [2, 3] {
        let d_k = d / h;
        let block = |m: Matrix| DMatrix::from_fn(d_k, d, |i, j| value(i + 5, j, if m == Matrix::Q { 40 } else { 50 }));
        let edits = [(Matrix::Q, 1), (Matrix::K, h - 1)].map(|(matrix, head)| Override {
            stack: Stack::Encoder,
            layer: 0,
            head,
            matrix,
            block: attnscope::trace::Mat(block(matrix)),
        });
        let mha = MultiHeadAttention { w_q: lin(1), w_k: lin(2), w_v: lin(3), w_o: lin(4) };
        // the same attention with the blocks written into its weights (rows of W = columns of W^T)
        let holding = |l: &Linear, m: Matrix| {
            let mut w_t = l.w_t().clone();
            for o in edits.iter().filter(|o| o.matrix == m) {
                w_t.columns_mut(o.head * d_k, d_k).copy_from(&o.block.transpose());
            }
            Linear::new(w_t, l.b().clone())
        };
        let held = MultiHeadAttention {
            w_q: holding(&mha.w_q, Matrix::Q),
            w_k: holding(&mha.w_k, Matrix::K),
            w_v: lin(3),
            w_o: lin(4),
        };
        let e = Edits { overrides: edits.iter().collect(), knock_out: Vec::new() };
        let (edited, out) = mha.forward(&x, &x, h, true, false, &e);
        let (want, want_out) = held.forward(&x, &x, h, true, false, &Edits::default());
        assert_eq!(edited, want, "h = {h}: the trace");
        assert_eq!(out, want_out, "h = {h}: the output");
        assert_eq!(mha.output(&x, &x, h, true, false, &e), want_out, "h = {h}: the untraced output");
    }
}
