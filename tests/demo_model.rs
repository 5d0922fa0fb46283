//! The committed demo translator (`www/models/en-ko.safetensors`) and word vectors
//! (`www/models/glove-50d.safetensors`), evaluated by this engine, not by Python: the figures
//! in MODEL.md come from here (`cargo test --release --test demo_model -- --nocapture`).
#![cfg(not(target_arch = "wasm32"))]

use attnscope::vectors::cosine;
use attnscope::{greedy, Model, RunOptions, WordVectors};
use std::path::PathBuf;

const SEED: &str = "Emma hates games, but she's a great friend";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn model() -> Model {
    let bytes = std::fs::read(root().join("www/models/en-ko.safetensors")).expect("the demo model is committed");
    Model::from_safetensors(&bytes).expect("the demo model loads")
}

/// The held-out test set: (English, Korean tokens, gold source index per Korean token or -1).
fn test_set() -> Vec<(String, Vec<String>, Vec<i64>)> {
    let text = std::fs::read_to_string(root().join("tests/data/en-ko-test.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 3, "bad test line {line:?}");
            let ko: Vec<String> = cols[1].split(' ').map(String::from).collect();
            let align: Vec<i64> = cols[2].split(' ').map(|a| a.parse().unwrap()).collect();
            assert_eq!(ko.len(), align.len(), "alignment length for {line:?}");
            (cols[0].to_string(), ko, align)
        })
        .collect()
}

fn translate(model: &Model, text: &str) -> Vec<String> {
    let src = model.tokenizer.encode_src(text).unwrap();
    let out = greedy(model, &src.ids, &RunOptions::default(), model.config.max_len).unwrap();
    out.tokens
        .iter()
        .filter(|&&t| t != model.tokenizer.eos)
        .map(|&t| model.tokenizer.tgt_token(t).to_string())
        .collect()
}

#[test]
fn files_are_small_enough_for_a_web_page() {
    for (file, max) in [("www/models/en-ko.safetensors", 1_500_000), ("www/models/glove-50d.safetensors", 1_200_000)] {
        let len = std::fs::metadata(root().join(file)).unwrap().len();
        println!("{file}: {len} bytes");
        assert!(len <= max, "{file} is {len} bytes, over {max}");
    }
}

#[test]
fn held_out_greedy_exact_match_is_at_least_98_percent() {
    let model = model();
    let set = test_set();
    assert!(set.len() >= 1000, "only {} held-out sentences", set.len());
    let mut wrong = Vec::new();
    for (en, ko, _) in &set {
        let src = model.tokenizer.encode_src(en).unwrap();
        assert!(src.unknown.is_empty(), "test sentence {en:?} has words outside the vocabulary");
        let got = translate(&model, en);
        if &got != ko {
            wrong.push(format!("{en}\n  want {}\n  got  {}", ko.join(" "), got.join(" ")));
        }
    }
    let acc = 1.0 - wrong.len() as f64 / set.len() as f64;
    println!("held-out exact match: {:.2}% of {} sentences", 100.0 * acc, set.len());
    for w in wrong.iter().take(5) {
        println!("{w}");
    }
    assert!(acc >= 0.98, "exact match {:.2}% < 98%", 100.0 * acc);
}

#[test]
fn cross_attention_points_at_the_gold_aligned_source_word() {
    // Teacher forcing on the gold translation: decoder row t (input <bos> + ko[..t]) is the one
    // that produces ko[t]; its last-layer cross-attention, averaged over heads, should peak on
    // the source word that ko[t] translates.
    let model = model();
    let tok = &model.tokenizer;
    let (mut hits, mut total) = (0usize, 0usize);
    for (en, ko, align) in test_set() {
        let src = tok.encode_src(&en).unwrap();
        let mut tgt = vec![tok.bos];
        tgt.extend(tok.encode_tgt(&ko.join(" ")).unwrap().ids);
        tgt.pop(); // the input stops before the last token
        let trace = model.forward(&src.ids, &tgt, &RunOptions::default()).unwrap();
        let heads = &trace.decoder.layers.last().unwrap().cross_attn.sublayer.heads;
        for (t, &gold) in align.iter().enumerate() {
            if gold < 0 {
                continue;
            }
            let mean: Vec<f32> = (0..src.ids.len())
                .map(|j| heads.iter().map(|h| h.weights[(t, j)]).sum::<f32>() / heads.len() as f32)
                .collect();
            let best = attnscope::decode::argmax(&mean) as i64;
            total += 1;
            hits += usize::from(best == gold);
        }
    }
    let rate = hits as f64 / total as f64;
    println!(
        "cross-attention alignment (last decoder layer, mean over heads): {:.2}% of {total} content words",
        100.0 * rate
    );
    assert!(rate >= 0.90, "alignment {:.2}% < 90%", 100.0 * rate);
}

#[test]
fn the_seed_sentence_translates_with_emma_in_both_clauses() {
    let model = model();
    let got = translate(&model, SEED).join(" ");
    println!("{SEED} -> {got}");
    // The reference translation written for the corpus (train/corpus.py), not model output.
    assert_eq!(got, "엠마 는 게임 을 싫어하 지만 , 엠마 는 훌륭한 친구 이다 .");
}

#[test]
fn producing_the_second_emma_attends_to_she_or_emma() {
    let model = model();
    let tok = &model.tokenizer;
    let src = tok.encode_src(SEED).unwrap();
    let out = greedy(&model, &src.ids, &RunOptions::default(), 64).unwrap();
    let emma = tok.encode_tgt("엠마").unwrap().ids[0];
    let second =
        out.tokens.iter().enumerate().filter(|(_, &t)| t == emma).nth(1).map(|(i, _)| i).expect("a second 엠마");
    let targets: Vec<usize> =
        src.tokens.iter().enumerate().filter(|(_, w)| *w == "she" || *w == "emma").map(|(i, _)| i).collect();
    let mut best = (0.0f32, 0, 0);
    for (l, layer) in out.steps[second].cross.iter().enumerate() {
        for h in 0..layer.nrows() {
            let w: f32 = targets.iter().map(|&j| layer[(h, j)]).sum();
            println!(
                "step {second} (second 엠마), cross-attention layer {} head {}: {:.3} on she/emma",
                l + 1,
                h + 1,
                w
            );
            if w > best.0 {
                best = (w, l, h);
            }
        }
    }
    // What "she" itself attends to in the encoder (reported in MODEL.md).
    let she = src.tokens.iter().position(|w| w == "she").unwrap();
    let trace = &out.trace;
    for (l, layer) in trace.encoder.layers.iter().enumerate() {
        for (h, head) in layer.self_attn.sublayer.heads.iter().enumerate() {
            let row = head.weights.row_vec(she);
            let top = attnscope::decode::argmax(&row) as usize;
            println!(
                "encoder layer {} head {}: \"she\" attends most to {:?} ({:.3}), to \"emma\" {:.3}",
                l + 1,
                h + 1,
                src.tokens[top],
                row[top],
                row[0]
            );
        }
    }
    assert!(best.0 >= 0.5, "no head puts half its weight on she/emma (best {:.3})", best.0);
}

#[test]
fn quantised_word_vectors_keep_the_float_cosines() {
    let bytes = std::fs::read(root().join("www/models/glove-50d.safetensors")).unwrap();
    let table = WordVectors::from_safetensors(&bytes).unwrap();
    assert!(table.len() >= 20_000, "only {} words", table.len());
    let reference: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("tests/data/glove-reference.json")).unwrap())
            .unwrap();
    for pair in reference.as_array().unwrap() {
        let (a, b) = (pair["a"].as_str().unwrap(), pair["b"].as_str().unwrap());
        let want = pair["cosine"].as_f64().unwrap() as f32;
        let got = cosine(&table.get(a).unwrap(), &table.get(b).unwrap());
        println!("cosine({a}, {b}): int8 {got:.4}, float {want:.4}");
        assert!((got - want).abs() <= 0.02, "cosine({a}, {b}) = {got}, float original {want}");
    }
    assert!(table.get("qwxzv").is_none(), "unknown words are reported as None");
    let model = model();
    let missing: Vec<&String> = model
        .config
        .src_vocab
        .iter()
        .filter(|w| w.chars().all(char::is_alphabetic) && table.get(w).is_none())
        .collect();
    println!("demo source words without a GloVe vector: {missing:?}");
}
