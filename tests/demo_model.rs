//! The committed demo translator (`www/models/en-ko.safetensors`) and word vectors
//! (`www/models/glove-50d.safetensors`), evaluated by this engine, not by Python: the figures
//! in MODEL.md come from here (`cargo test --release --test demo_model -- --nocapture`).
#![cfg(not(target_arch = "wasm32"))]

use attnscope::reference;
use attnscope::vectors::cosine;
use attnscope::{greedy, Model, RunOptions, WordVectors};
use std::path::PathBuf;

const SEED: &str = "Emma hates games, but she's a great friend";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The committed model, or the file named by `ATTNSCOPE_MODEL` (to measure a candidate model
/// before committing it; the e2e tests read the same variable).
fn model() -> Model {
    Model::from_safetensors(&model_bytes()).expect("the demo model loads")
}

/// The bytes of [`model`]'s file.
fn model_bytes() -> Vec<u8> {
    let path =
        std::env::var_os("ATTNSCOPE_MODEL").map_or_else(|| root().join("www/models/en-ko.safetensors"), PathBuf::from);
    std::fs::read(path).expect("the demo model is committed")
}

/// A held-out set written by `train/corpus.py`: (English, Korean tokens, gold source index per
/// Korean token or -1). From `tests/data/`, or from the folder named by `ATTNSCOPE_HELD_OUT`
/// (a candidate model's own sets: a version-3 corpus writes its test and *it* files elsewhere).
fn held_out(file: &str) -> Vec<(String, Vec<String>, Vec<i64>)> {
    let dir = std::env::var_os("ATTNSCOPE_HELD_OUT").map_or_else(|| root().join("tests/data"), PathBuf::from);
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
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

fn test_set() -> Vec<(String, Vec<String>, Vec<i64>)> {
    held_out("en-ko-test.tsv")
}

/// The tokens a reader sees: each generated token, a copied `<unk>` as the word it copies.
fn printed(model: &Model, text: &str) -> Vec<String> {
    let src = model.tokenizer.encode_src(text).unwrap();
    let out = greedy(model, &src.ids, &RunOptions::default(), model.config.max_len).unwrap();
    out.steps
        .iter()
        .filter(|s| s.token != model.tokenizer.eos)
        .map(|s| match s.copy {
            Some(c) => src.tokens[c.source].clone(),
            None => model.tokenizer.tgt_token(s.token).to_string(),
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

/// `Some(description)` if a token, or a pair of tokens, comes three times in a row.
fn repetition(tokens: &[String]) -> Option<String> {
    for w in tokens.windows(3) {
        if w[0] == w[1] && w[1] == w[2] && !w[0].is_empty() {
            return Some(format!("{:?} three times", w[0]));
        }
    }
    for w in tokens.windows(6) {
        if w[0] == w[2] && w[2] == w[4] && w[1] == w[3] && w[3] == w[5] {
            return Some(format!("{:?} {:?} three times", w[0], w[1]));
        }
    }
    None
}

#[test]
fn repetition_finds_words_and_pairs() {
    let t = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert!(repetition(&t("a b a b a b")).is_some());
    assert!(repetition(&t("x y y y")).is_some());
    assert!(repetition(&t("a b a b c")).is_none());
    assert!(repetition(&t("엠마 +는 엠마 +는 .")).is_none());
}

#[test]
fn files_are_small_enough_for_a_web_page() {
    for (file, max) in [("www/models/en-ko.safetensors", 3_000_000), ("www/models/glove-50d.safetensors", 1_300_000)] {
        let len = std::fs::metadata(root().join(file)).unwrap().len();
        println!("{file}: {len} bytes");
        assert!(len <= max, "{file} is {len} bytes, over {max}");
    }
}

#[test]
fn held_out_greedy_exact_match_is_at_least_97_percent() {
    let model = model();
    let set = test_set();
    assert!(set.len() >= 2000, "only {} held-out sentences", set.len());
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
    for w in wrong.iter().take(8) {
        println!("{w}");
    }
    // issue 8's bar; the committed model: 97.85% (MODEL.md)
    assert!(acc >= 0.97, "exact match {:.2}% < 97%", 100.0 * acc);
}

#[test]
fn cross_attention_points_at_the_gold_aligned_source_word() {
    // Teacher forcing on the gold translation: decoder row t (input <bos> + ko[..t]) is the one
    // that produces ko[t]; its last-layer cross-attention, averaged over heads, should peak on
    // the source word that ko[t] translates (content words only: particles and endings are -1).
    let model = model();
    let tok = &model.tokenizer;
    let (mut hits, mut total) = (0usize, 0usize);
    for (en, ko, align) in test_set() {
        let src = tok.encode_src(&en).unwrap();
        let mut tgt = vec![tok.bos];
        tgt.extend(tok.encode_tgt(&ko.join(" ")).unwrap().ids);
        tgt.pop(); // the input stops before the last token
        let trace = model.forward(&src.ids, &tgt, &RunOptions::default()).unwrap();
        let heads = &trace.decoder().unwrap().layers.last().unwrap().cross_attn.as_ref().unwrap().sublayer.heads;
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
    let src = model.tokenizer.encode_src(SEED).unwrap();
    let out = greedy(&model, &src.ids, &RunOptions::default(), 64).unwrap();
    let text = out.text(&model.tokenizer, &src.tokens);
    println!("{SEED} -> {text}");
    // The reference translation written for the corpus (train/corpus.py SEED_KO), not model output.
    assert_eq!(
        translate(&model, SEED).join(" "),
        "엠마 +는 게임 +을 싫어하 +지만 , 엠마 +는 훌륭하 +ㄴ 친구 +이 +다 ."
    );
    assert_eq!(text, "엠마는 게임을 싫어하지만, 엠마는 훌륭한 친구이다.");
}

/// The page marks a generated token as unsure below the file's `unsure_below`: that figure is
/// what `attnscope confidence --model FILE --set tests/data/everyday-en-ko.tsv` measures now
/// (chosen on the dev half), not a number typed in.
#[test]
fn the_files_unsure_below_is_the_measured_threshold() {
    let bytes = model_bytes();
    let model = Model::from_safetensors(&bytes).unwrap();
    let text = std::fs::read_to_string(root().join("tests/data/everyday-en-ko.tsv")).unwrap();
    let set = reference::parse(&text).unwrap();
    let (c, _) = reference::measure_confidence(&model, &set).unwrap();
    println!("unsure_below {}: dev {:?}, held out {:?}", c.unsure_below, c.dev, c.heldout);
    let stored = reference::description_field(&bytes, "unsure_below").unwrap();
    assert_eq!(
        stored.as_deref(),
        Some(c.unsure_below.as_str()),
        "the file's unsure_below is not the measured threshold: run \
         python3 train/describe.py www/models/en-ko.safetensors unsure_below={}",
        c.unsure_below
    );
}

/// The seed sentence, the page's first view, is translated right: no token of it is marked.
#[test]
fn the_seed_sentence_has_no_unsure_token() {
    let bytes = model_bytes();
    let model = Model::from_safetensors(&bytes).unwrap();
    let below: f64 = reference::description_field(&bytes, "unsure_below")
        .unwrap()
        .expect("the demo model has unsure_below")
        .parse()
        .expect("unsure_below is a number");
    let src = model.tokenizer.encode_src(SEED).unwrap();
    let out = greedy(&model, &src.ids, &RunOptions::default(), model.config.max_len).unwrap();
    let probs = reference::printed_probabilities(&model, &out);
    println!("{SEED}: printed-token probabilities {probs:.3?}, unsure below {below}");
    assert_eq!(probs.len(), out.steps.len() - 1, "every step but <eos> is a printed token");
    let unsure: Vec<f32> = probs.iter().copied().filter(|&p| reference::is_unsure(p, below)).collect();
    assert!(unsure.is_empty(), "the seed sentence has tokens below {below}: {unsure:?}");
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
    for (l, layer) in out.trace.encoder().unwrap().layers.iter().enumerate() {
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
fn it_is_resolved_by_meaning_on_held_out_noun_adjective_pairs() {
    // "The X didn't V the Y because it was too ADJ": the Korean cause clause comes first and
    // names the antecedent of "it" (its first token). The (adjective, noun) pairs of this set
    // never occur together in training, so the model must use what kind of noun fits.
    let model = model();
    let set = held_out("en-ko-it.tsv");
    assert!(set.len() >= 200, "only {} sentences", set.len());
    let (mut resolved, mut exact) = (0, 0);
    let mut wrong = Vec::new();
    for (en, ko, _) in &set {
        let got = translate(&model, en);
        exact += usize::from(&got == ko);
        if got.first() == ko.first() {
            resolved += 1;
        } else {
            wrong.push(format!("{en}: want {} got {}", ko[0], got.first().map_or("", String::as_str)));
        }
    }
    let rate = resolved as f64 / set.len() as f64;
    println!(
        "\"it\" resolved to the right noun: {:.2}% of {} held-out sentences (exact match {:.2}%)",
        100.0 * rate,
        set.len(),
        100.0 * exact as f64 / set.len() as f64
    );
    for w in wrong.iter().take(8) {
        println!("  {w}");
    }
    assert!(rate >= 0.95, "\"it\" resolution {:.2}% < 95%", 100.0 * rate);
}

#[test]
fn the_animal_and_the_street() {
    let model = model();
    for (adj, first) in [("tired", "동물"), ("wide", "거리")] {
        let en = format!("The animal didn't cross the street because it was too {adj}.");
        let got = translate(&model, &en);
        println!("{en} -> {}", got.join(" "));
        assert_eq!(got.first().map(String::as_str), Some(first), "{en}: 'it' should become {first}");
    }
}

/// A small seeded generator (xorshift) for reproducible random inputs.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn greedy_decoding_never_loops() {
    let model = model();
    let words: Vec<&String> = model.config.src_vocab.iter().filter(|w| w.chars().all(char::is_alphabetic)).collect();
    let mut inputs: Vec<String> = test_set().into_iter().map(|(en, _, _)| en).collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // 1,000 random word sequences from the vocabulary
    for _ in 0..1000 {
        let n = 3 + rng.below(12);
        inputs.push((0..n).map(|_| words[rng.below(words.len())].as_str()).collect::<Vec<_>>().join(" "));
    }
    // 300 held-out sentences with one word replaced by a made-up one
    for (en, _, _) in test_set().into_iter().take(300) {
        let mut ws: Vec<String> = en.split(' ').map(String::from).collect();
        let i = rng.below(ws.len());
        ws[i] = ["zorblat", "quimble", "flarn", "snorkety"][rng.below(4)].to_string();
        inputs.push(ws.join(" "));
    }
    let mut bad = Vec::new();
    for en in &inputs {
        let got = printed(&model, en);
        if let Some(what) = repetition(&got) {
            bad.push(format!("{en} -> {} ({what})", got.join(" ")));
        }
    }
    println!("{} inputs decoded, {} with a repeated word or pair", inputs.len(), bad.len());
    for b in bad.iter().take(8) {
        println!("  {b}");
    }
    assert!(bad.is_empty(), "{} of {} inputs loop", bad.len(), inputs.len());
}

#[test]
fn attention_is_soft_enough_to_teach() {
    // Over held-out sentences (teacher forcing on the gold translation), the share of attention
    // rows that put more than 0.99 on one key, per stack and layer, all heads together. The
    // decoder's first self-attention row sees only <bos> and is left out.
    let model = model();
    let tok = &model.tokenizer;
    let layers = model.config.num_encoder_layers.max(model.config.num_decoder_layers);
    let mut counts = vec![[(0usize, 0usize); 3]; layers];
    for (en, ko, _) in test_set().into_iter().take(400) {
        let src = tok.encode_src(&en).unwrap();
        let mut tgt = vec![tok.bos];
        tgt.extend(tok.encode_tgt(&ko.join(" ")).unwrap().ids);
        let trace = model.forward(&src.ids, &tgt, &RunOptions::default()).unwrap();
        let mut count = |l: usize, s: usize, w: &attnscope::trace::Mat, skip_first: bool| {
            for i in usize::from(skip_first)..w.nrows() {
                let row = w.row_vec(i);
                let max = row.iter().cloned().fold(0.0f32, f32::max);
                counts[l][s].0 += usize::from(max > 0.99);
                counts[l][s].1 += 1;
            }
        };
        for (l, layer) in trace.encoder().unwrap().layers.iter().enumerate() {
            for head in &layer.self_attn.sublayer.heads {
                count(l, 0, &head.weights, false);
            }
        }
        for (l, layer) in trace.decoder().unwrap().layers.iter().enumerate() {
            for head in &layer.self_attn.sublayer.heads {
                count(l, 1, &head.weights, true);
            }
            for head in &layer.cross_attn.as_ref().unwrap().sublayer.heads {
                count(l, 2, &head.weights, false);
            }
        }
    }
    let mut worst = 0.0f64;
    for (l, c) in counts.iter().enumerate() {
        for (s, name) in ["encoder self", "decoder self", "cross"].iter().enumerate() {
            if c[s].1 == 0 {
                continue;
            }
            let share = c[s].0 as f64 / c[s].1 as f64;
            println!("layer {} {name}: {:.1}% of {} rows have a weight > 0.99", l + 1, 100.0 * share, c[s].1);
            worst = worst.max(share);
        }
    }
    assert!(worst <= 1.0 / 3.0, "a layer has {:.1}% saturated rows (bar: a third)", 100.0 * worst);
}

#[test]
fn unknown_words_come_through_in_place() {
    let model = model();
    let tok = &model.tokenizer;
    // (sentence, the unknown word, a Korean token that must follow it: its particle)
    for (en, word, after) in [
        ("Zorblat ate my sandwich.", "zorblat", ["+는", "+은"]),
        ("My friend bought a flibber yesterday.", "flibber", ["+를", "+을"]),
    ] {
        let src = tok.encode_src(en).unwrap();
        assert!(src.unknown.iter().any(|&i| src.tokens[i] == word), "{word} should be unknown");
        let out = greedy(&model, &src.ids, &RunOptions::default(), 64).unwrap();
        let text = out.text(tok, &src.tokens);
        println!("{en} -> {text}");
        let copies: Vec<_> = out.copies().collect();
        assert!(
            copies.iter().any(|(_, c)| src.tokens[c.source] == word),
            "{en}: no step copies {word:?} (copies: {copies:?})"
        );
        let (step, _) = copies.iter().find(|(_, c)| src.tokens[c.source] == word).unwrap();
        let next = out.tokens.get(step + 1).map(|&t| tok.tgt_token(t)).unwrap_or("");
        assert!(after.contains(&next), "{en}: the copied {word:?} is followed by {next:?}, not a particle {after:?}");
        assert!(text.contains(word), "{en} -> {text}: {word:?} missing");
    }
}

#[test]
fn everyday_sentences_are_mostly_known_words() {
    // tests/data/everyday-en.txt: 200 ordinary sentences written independently of the lexicon.
    let model = model();
    let text = std::fs::read_to_string(root().join("tests/data/everyday-en.txt")).unwrap();
    let (mut total, mut unknown) = (0, 0);
    let mut missing = std::collections::BTreeMap::new();
    for line in text.lines() {
        let src = model.tokenizer.encode_src(line).unwrap();
        total += src.tokens.len();
        unknown += src.unknown.len();
        for &i in &src.unknown {
            *missing.entry(src.tokens[i].clone()).or_insert(0) += 1;
        }
    }
    let rate = unknown as f64 / total as f64;
    println!("everyday English: {unknown} of {total} tokens unknown ({:.1}%): {missing:?}", 100.0 * rate);
    assert!(rate <= 0.05, "{:.1}% of everyday tokens are unknown", 100.0 * rate);
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
    println!("{} demo source words without a GloVe vector: {:?}", missing.len(), &missing[..missing.len().min(40)]);
}
