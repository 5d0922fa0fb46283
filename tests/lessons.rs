//! The engine pieces the lessons use before the trained model: kernel smoothing, raw
//! self-attention on vectors, and the 2-D projection of word vectors.
#![cfg(not(target_arch = "wasm32"))]

use attnscope::attention::self_attention;
use attnscope::vectors::pca2;
use attnscope::weighted_average::kernel_smooth;
use nalgebra::DMatrix;

#[test]
fn kernel_weights_are_a_softmax_of_negative_squared_distance() {
    // width 1, x0 = 0: logits -x^2/2 = [-2, -0.5, 0]; weights e^-2, e^-0.5, 1 over their sum.
    let s = kernel_smooth(&[-2.0, -1.0, 0.0], &[10.0, 20.0, 30.0], 0.0, 1.0);
    let z = (-2.0f32).exp() + (-0.5f32).exp() + 1.0;
    let want = [(-2.0f32).exp() / z, (-0.5f32).exp() / z, 1.0 / z];
    for (g, w) in s.weights.iter().zip(want) {
        assert!((g - w).abs() < 1e-6, "{:?} vs {want:?}", s.weights);
    }
    let value: f32 = want.iter().zip([10.0, 20.0, 30.0]).map(|(w, y)| w * y).sum();
    assert!((s.value - value).abs() < 1e-4);
}

#[test]
fn a_narrow_kernel_picks_the_nearest_point_and_a_wide_one_averages_everything() {
    let xs = [0.0, 1.0, 2.0, 3.0];
    let ys = [4.0, 8.0, 0.0, 4.0];
    assert!((kernel_smooth(&xs, &ys, 1.0, 0.05).value - 8.0).abs() < 1e-3);
    assert!((kernel_smooth(&xs, &ys, 1.5, 1e4).value - 4.0).abs() < 1e-3); // plain mean
}

#[test]
fn self_attention_with_identity_projections_is_softmax_of_dot_products() {
    // x rows (2, 0) and (0, 1): scores x x^T = [[4, 0], [0, 1]]; scaled by 1/sqrt(2).
    let x = DMatrix::from_row_slice(2, 2, &[2.0, 0.0, 0.0, 1.0]);
    let eye = DMatrix::identity(2, 2);
    let h = self_attention(&x, &eye, &eye, true, false);
    let a = 4.0 / 2f32.sqrt();
    let w00 = a.exp() / (a.exp() + 1.0);
    assert!((h.weights[(0, 0)] - w00).abs() < 1e-6);
    // output row 0 = w00 * (2, 0) + (1 - w00) * (0, 1)
    assert!((h.output[(0, 0)] - 2.0 * w00).abs() < 1e-6 && (h.output[(0, 1)] - (1.0 - w00)).abs() < 1e-6);
    let masked = self_attention(&x, &eye, &eye, true, true);
    assert_eq!(masked.weights[(0, 1)], 0.0);
    assert_eq!(masked.weights[(0, 0)], 1.0);
}

#[test]
fn pca_finds_the_direction_of_largest_spread() {
    // Points along (1, 1, 0) with a little spread along (0, 0, 1), uncorrelated with it.
    let rows = DMatrix::from_row_slice(4, 3, &[-3.0, -3.0, 0.1, -1.0, -1.0, -0.1, 1.0, 1.0, -0.1, 3.0, 3.0, 0.1]);
    let (points, axes) = pca2(&rows);
    let s = 1.0 / 2f32.sqrt();
    assert!((axes[(0, 0)] - s).abs() < 1e-4 && (axes[(0, 1)] - s).abs() < 1e-4 && axes[(0, 2)].abs() < 1e-4, "{axes}");
    // first coordinate = projection on (1, 1, 0)/sqrt 2 of the centred point
    assert!((points[(3, 0)] - 6.0 * s).abs() < 1e-4, "{points}");
    assert!(points[(3, 1)].abs() < 0.2);
}

#[test]
fn pca_of_a_single_row_is_zero() {
    let (points, _) = pca2(&DMatrix::from_row_slice(1, 3, &[1.0, 2.0, 3.0]));
    assert_eq!(points.as_slice(), &[0.0, 0.0]);
}

/// The committed GloVe table (www/models/glove-50d.safetensors).
fn glove() -> attnscope::WordVectors {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/www/models/glove-50d.safetensors");
    attnscope::WordVectors::from_safetensors(&std::fs::read(path).unwrap()).expect("the GloVe table loads")
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

#[test]
fn nearest_neighbours_among_candidates_by_cosine() {
    use attnscope::vectors::cosine;
    let v = glove();
    let candidates = strings(&["dog", "sofa", "couch", "chair", "zorblat", "<unk>", "run", "couch", "table"]);
    let near = v.nearest("sofa", &candidates, 3);
    let words: Vec<&str> = near.iter().map(|n| n.word.as_str()).collect();
    println!("sofa: {near:?}");
    assert_eq!(words[0], "couch", "the nearest to sofa: {near:?}");
    assert_eq!(near.len(), 3);
    assert!(!words.contains(&"sofa"), "never the word itself");
    assert_eq!(words.iter().filter(|w| **w == "couch").count(), 1, "a repeated candidate counts once");
    for n in &near {
        let want = cosine(&v.get("sofa").unwrap(), &v.get(&n.word).unwrap());
        assert!((n.cosine - want).abs() < 1e-6, "{}: {} vs {want}", n.word, n.cosine);
    }
    assert!(near.windows(2).all(|p| p[0].cosine >= p[1].cosine), "best first");
    // every candidate with a vector, when k is large: not "zorblat" nor "<unk>"
    let all = v.nearest("sofa", &candidates, 100);
    assert_eq!(all.len(), 5, "dog couch chair run table and nothing else: {all:?}");
    // no vector: nothing
    assert!(v.nearest("zorblat", &candidates, 3).is_empty());
    assert!(v.nearest("sofa", &[], 3).is_empty());
    assert!(v.nearest("sofa", &candidates, 0).is_empty());
}

#[test]
fn in_vocabulary_neighbours_of_words_the_demo_model_does_not_know() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/www/models/en-ko.safetensors")).unwrap();
    let model = attnscope::Model::from_safetensors(&bytes).unwrap();
    let vocab = &model.config.src_vocab;
    let v = glove();
    // words of news English that the everyday model does not know, but GloVe does
    let unknown: Vec<&str> = ["referendum", "mortgage", "legislature", "turbine", "diplomat"]
        .into_iter()
        .filter(|word| !vocab.iter().any(|w| w == word))
        .collect();
    assert!(unknown.len() >= 3, "the model knows too many of these to test with: {unknown:?} left");
    for word in unknown {
        let near = v.nearest(word, vocab, 3);
        println!("{word}: {near:?}");
        assert_eq!(near.len(), 3, "{word}: three in-vocabulary neighbours");
        assert!(near.iter().all(|n| vocab.contains(&n.word) && n.word != word));
    }
}
