//! The JavaScript API of `src/wasm.rs`, exercised from wasm itself: run in Node by
//! `tests/wasm_node.rs` and in headless Chromium by `tests/wasm_browser.rs`.

use attnscope::wasm::{Lab, Words};
use js_sys::{Array, Float32Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

/// A small model of the PyTorch parity fixtures: d_model 8, 2 heads, 1+1 layers,
/// source vocabulary <pad> <bos> <eos> <unk> w4..w9.
const MODEL: &[u8] = include_bytes!("../fixtures/parity/tiny_post_relu.safetensors");

fn get(v: &JsValue, path: &str) -> JsValue {
    if path.is_empty() {
        return v.clone();
    }
    path.split('.').fold(v.clone(), |acc, key| match key.parse::<u32>() {
        Ok(i) => Reflect::get_u32(&acc, i).unwrap(),
        Err(_) => Reflect::get(&acc, &key.into()).unwrap(),
    })
}

fn num(v: &JsValue, path: &str) -> f64 {
    get(v, path).as_f64().unwrap_or_else(|| panic!("{path} is not a number"))
}

/// A trace matrix: its shape and values, checked to be a real Float32Array.
fn mat(v: &JsValue, path: &str) -> (usize, usize, Vec<f32>) {
    let m = get(v, path);
    let data =
        get(&m, "data").dyn_into::<Float32Array>().unwrap_or_else(|_| panic!("{path}.data is not a Float32Array"));
    (num(&m, "rows") as usize, num(&m, "cols") as usize, data.to_vec())
}

fn lab() -> Lab {
    let mut lab = Lab::new(MODEL).unwrap();
    lab.set_source("w4 w5 w6 w7 w8").unwrap();
    lab
}

#[wasm_bindgen_test]
fn garbage_bytes_give_an_error_not_a_panic() {
    assert!(Lab::new(&[1, 2, 3]).is_err());
    assert!(Lab::new(&MODEL[..MODEL.len() - 1]).is_err());
    assert!(Words::new(MODEL).is_err(), "a model file is not a vectors file");
}

#[wasm_bindgen_test]
fn info_lists_divisors_of_d_model_as_head_choices() {
    let info = Lab::new(MODEL).unwrap().info().unwrap();
    assert_eq!(num(&info, "dModel"), 8.0);
    let choices: Vec<f64> = Array::from(&get(&info, "headChoices")).iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(choices, vec![1.0, 2.0, 4.0, 8.0]);
    // the fixture's config says 1e-05; the lesson's LayerNorm panel standardises with it
    assert_eq!(num(&info, "layerNormEps") as f32, 1e-5);
    let vocab: Vec<String> = Array::from(&get(&info, "srcVocab")).iter().map(|v| v.as_string().unwrap()).collect();
    let expected: Vec<String> =
        ["<pad>", "<bos>", "<eos>", "<unk>", "w4", "w5", "w6", "w7", "w8", "w9"].map(String::from).into();
    assert_eq!(vocab, expected, "the source vocabulary, in id order");
}

#[wasm_bindgen_test]
fn source_reports_unknown_words_and_truncation() {
    let mut lab = Lab::new(MODEL).unwrap();
    assert!(lab.set_source("   ").is_err(), "empty text must be an error");
    let src = lab.set_source("w4 zebra w5").unwrap();
    let unknown: Vec<f64> = Array::from(&get(&src, "unknown")).iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(unknown, vec![1.0]);
    let max_len = num(&lab.info().unwrap(), "maxLen") as usize;
    let long = vec!["w4"; max_len + 6].join(" ");
    let src = lab.set_source(&long).unwrap();
    assert_eq!(num(&src, "dropped"), 6.0);
    assert_eq!(Array::from(&get(&src, "tokens")).length() as usize, max_len);
}

#[wasm_bindgen_test]
fn run_before_a_sentence_is_an_error() {
    assert!(Lab::new(MODEL).unwrap().run(None).is_err());
}

#[wasm_bindgen_test]
fn translate_returns_steps_and_a_trace_of_float32_arrays() {
    let mut lab = lab();
    let out = lab.translate().unwrap();
    let steps = Array::from(&get(&out, "steps"));
    assert!(steps.length() >= 1);
    let top = Array::from(&get(&steps.get(0), "top"));
    assert_eq!(top.length(), 5);
    let (p0, p1) = (num(&top.get(0), "prob"), num(&top.get(1), "prob"));
    assert!(p0 >= p1, "top-k sorted: {p0} < {p1}");
    let (rows, cols, data) = mat(&out, "trace.encoder.memory");
    assert_eq!((rows, cols, data.len()), (5, 8, 40));
    let (h, s, _) = mat(&steps.get(0), "cross.0");
    assert_eq!((h, s), (2, 5), "one cross-attention row per head over the 5 source tokens");
}

#[wasm_bindgen_test]
fn decoder_mask_zeroes_the_upper_triangle_and_turning_it_off_does_not() {
    let mut lab = lab();
    lab.set_source("w4 w5 w6 w7 w8 w9 w4 w5").unwrap();
    lab.translate().unwrap();
    let upper = |lab: &Lab| {
        let out = lab.run(None).unwrap();
        let (t, _, w) = mat(&out, "trace.decoder.layers.0.self_attn.sublayer.heads.0.weights");
        (0..t).flat_map(|i| ((i + 1)..t).map(move |j| (i, j))).map(|(i, j)| w[i * t + j]).collect::<Vec<f32>>()
    };
    let masked = upper(&lab);
    assert!(!masked.is_empty(), "the translation needs two or more decoder positions");
    assert!(masked.iter().all(|&w| w == 0.0), "masked weights {masked:?}");
    lab.set_options(js_options(&[("causalDecoder", false)])).unwrap();
    assert!(upper(&lab).iter().any(|&w| w > 0.0));
}

fn js_options(pairs: &[(&str, bool)]) -> JsValue {
    let o = js_sys::Object::new();
    for (k, v) in pairs {
        Reflect::set(&o, &(*k).into(), &(*v).into()).unwrap();
    }
    o.into()
}

#[wasm_bindgen_test]
fn heads_must_divide_d_model_and_change_the_head_count() {
    let mut lab = lab();
    let heads = |n: u32| {
        let o = js_sys::Object::new();
        Reflect::set(&o, &"heads".into(), &n.into()).unwrap();
        JsValue::from(o)
    };
    assert!(lab.set_options(heads(3)).is_err(), "3 does not divide 8");
    lab.set_options(heads(4)).unwrap();
    let out = lab.run(None).unwrap();
    assert_eq!(Array::from(&get(&out, "trace.encoder.layers.0.self_attn.sublayer.heads")).length(), 4);
}

#[wasm_bindgen_test]
fn editing_a_query_block_changes_the_weights_and_reset_restores_them() {
    let mut lab = lab();
    lab.translate().unwrap();
    let weights =
        |lab: &Lab| mat(&lab.run(None).unwrap(), "trace.encoder.layers.0.self_attn.sublayer.heads.1.weights").2;
    let before = weights(&lab);
    let (rows, cols, mut block) = mat(&lab.block("encoder", 0, 1, "q").unwrap(), "");
    assert_eq!((rows, cols), (4, 8), "(d_k, d_model) with 2 heads of 4");
    assert!(lab.set_block("encoder", 0, 1, "q", &block[..5]).is_err(), "wrong length");
    assert!(lab.set_block("nowhere", 0, 1, "q", &block).is_err(), "unknown stack");
    block[0] += 3.0;
    lab.set_block("encoder", 0, 1, "q", &block).unwrap();
    assert_eq!(mat(&lab.block("encoder", 0, 1, "q").unwrap(), "").2, block, "block() returns the edit");
    assert_ne!(weights(&lab), before);
    lab.reset_blocks().unwrap();
    assert_eq!(weights(&lab), before);
}

#[wasm_bindgen_test]
fn a_nan_in_an_edit_is_refused() {
    let mut lab = lab();
    let mut block = mat(&lab.block("decoder_cross", 0, 0, "k").unwrap(), "").2;
    block[3] = f32::NAN;
    assert!(lab.set_block("decoder_cross", 0, 0, "k", &block).is_err());
    assert_eq!(lab.edit_count().unwrap(), 0);
}

#[wasm_bindgen_test]
fn attend_on_raw_vectors_is_a_weighted_average_of_them() {
    use attnscope::wasm::attend;
    // x = [[1, 0], [0, 1]], W_Q = W_K = I, no scaling: scores = x x^T = I,
    // weights row 0 = softmax([1, 0]) = [e/(e+1), 1/(e+1)] = [0.7311, 0.2689].
    let x = [1.0, 0.0, 0.0, 1.0];
    let eye = [1.0, 0.0, 0.0, 1.0];
    let out = attend(&x, 2, 2, &eye, &eye, 2, false, false).unwrap();
    let w = mat(&out, "weights").2;
    assert!((w[0] - 0.731_058_6).abs() < 1e-6 && (w[1] - 0.268_941_4).abs() < 1e-6, "{w:?}");
    // output row 0 = 0.7311 * [1, 0] + 0.2689 * [0, 1]
    let o = mat(&out, "output").2;
    assert!((o[0] - w[0]).abs() < 1e-6 && (o[1] - w[1]).abs() < 1e-6);
    assert!(attend(&x, 3, 2, &eye, &eye, 2, true, false).is_err(), "shape mismatch");
    assert!(attend(&[f32::NAN, 0.0, 0.0, 1.0], 2, 2, &eye, &eye, 2, true, false).is_err(), "NaN");
}

#[wasm_bindgen_test]
fn kernel_smoothing_weights_sum_to_one() {
    use attnscope::wasm::kernel_smooth;
    // Symmetric points around x0 = 0 with ys = xs: the weighted average is 0.
    let out = kernel_smooth(&[-1.0, 0.0, 1.0], &[-1.0, 0.0, 1.0], 0.0, 1.0).unwrap();
    let w: Vec<f64> = Array::from(&get(&out, "weights")).iter().map(|v| v.as_f64().unwrap()).collect();
    assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    assert!(w[0] == w[2] && w[1] > w[0]);
    assert!(num(&out, "value").abs() < 1e-6);
    assert!(kernel_smooth(&[0.0], &[0.0], 0.0, 0.0).is_err(), "zero width");
    assert!(kernel_smooth(&[0.0, 1.0], &[0.0], 0.0, 1.0).is_err(), "length mismatch");
}

#[path = "../support/random_model.rs"]
mod random_model;

/// A random model (2 decoder layers) whose generator always picks `<unk>` (id 3).
fn always_unk_model() -> Vec<u8> {
    let spec = random_model::Spec { dec_layers: 2, ..random_model::Spec::small() };
    let mut w = spec.weights(1);
    w.get_mut("generator.weight").data.iter_mut().for_each(|v| *v = 0.0);
    let bias = &mut w.get_mut("generator.bias").data;
    bias.iter_mut().for_each(|v| *v = 0.0);
    bias[3] = 10.0;
    spec.file(&w)
}

#[wasm_bindgen_test]
fn each_unknown_word_is_copied_once_in_steps_and_text() {
    let mut lab = Lab::new(&always_unk_model()).unwrap();
    lab.set_source("Sofa w5 zorblat").unwrap();
    let out = lab.translate().unwrap();
    let steps = Array::from(&get(&out, "steps"));
    let source = ["sofa", "w5", "zorblat"];
    let mut words = Vec::new();
    for s in steps.iter() {
        if !get(&s, "blocked").is_null() {
            // both unknown words are printed: <unk> has nothing left to copy, the decoder passes it over
            assert_eq!(get(&s, "blocked").as_string().unwrap(), "<unk>");
            assert_eq!(get(&s, "blockedWhy").as_string().unwrap(), "copied");
            assert!(get(&s, "copy").is_null());
            let token = get(&s, "token").as_string().unwrap();
            assert_ne!(token, "<unk>");
            if token != "<eos>" {
                words.push(token);
            }
            continue;
        }
        assert_eq!(get(&s, "token").as_string().unwrap(), "<unk>", "the step's token stays <unk>");
        let i = num(&s, "copy.source") as usize;
        let weight = num(&s, "copy.weight");
        assert!((i == 0 || i == 2) && weight > 0.0 && weight <= 1.0, "copy {i} {weight}: an unknown word");
        assert_eq!(get(&s, "copy.word").as_string().unwrap(), source[i]);
        words.push(source[i].to_string());
    }
    assert_eq!(get(&out, "text").as_string().unwrap(), words.join(" "), "the text prints the copied words");
    let tokens = Array::from(&get(&out, "tokens"));
    let unks = tokens.iter().filter(|t| t.as_string().unwrap() == "<unk>").count();
    let copies = steps.iter().filter(|s| !get(s, "copy").is_null()).count();
    assert!(unks == 2 && unks == copies, "tokens keep <unk>, one per copy, each unknown word once: {unks} vs {copies}");
    // a model that does not produce <unk>: copy is null (not undefined) on every step
    let out = lab_translate_plain();
    let steps = Array::from(&get(&out, "steps"));
    assert!(steps.iter().all(|s| get(&s, "copy").is_null()), "copy: null");
}

fn lab_translate_plain() -> JsValue {
    let mut lab = lab();
    lab.translate().unwrap()
}

const GLOVE: &[u8] = include_bytes!("../../www/models/glove-50d.safetensors");

#[wasm_bindgen_test]
fn words_suggest_the_nearest_candidates() {
    let mut words = Words::new(GLOVE).unwrap();
    let list: Array =
        ["dog", "couch", "chair", "zorblat", "sofa", "table"].iter().map(|w| JsValue::from_str(w)).collect();
    assert_eq!(words.set_candidates(list.into()).unwrap(), 5, "five candidates have a vector");
    let near = Array::from(&words.nearest("sofa", 2).unwrap());
    assert_eq!(near.length(), 2);
    assert_eq!(get(&near.get(0), "word").as_string().unwrap(), "couch");
    assert!(num(&near.get(0), "cosine") >= num(&near.get(1), "cosine"));
    assert_eq!(Array::from(&words.nearest("zorblat", 3).unwrap()).length(), 0, "no vector, no suggestion");
    assert!(words.has("sofa").unwrap() && !words.has("zorblat").unwrap());
    assert!(words.set_candidates(JsValue::from_f64(3.0)).is_err(), "not an array of strings");
}

#[wasm_bindgen_test]
fn tokenize_reports_unknown_words_without_changing_the_sentence() {
    let mut lab = lab();
    let before = lab.translate().unwrap();
    let out = lab.tokenize("W4 zebra w5").unwrap();
    let unknown: Vec<f64> = Array::from(&get(&out, "unknown")).iter().map(|v| v.as_f64().unwrap()).collect();
    assert_eq!(unknown, vec![1.0]);
    assert_eq!(Array::from(&get(&out, "tokens")).length(), 3);
    assert_eq!(Array::from(&get(&lab.tokenize("   ").unwrap(), "tokens")).length(), 0, "empty text: no tokens");
    // the lab still holds "w4 w5 w6 w7 w8"
    let after = lab.translate().unwrap();
    assert_eq!(get(&after, "text").as_string(), get(&before, "text").as_string());
    assert_eq!(mat(&lab.run(None).unwrap(), "trace.encoder.memory").0, 5);
}

#[wasm_bindgen_test]
fn a_copied_word_says_where_the_text_prints_it() {
    let mut lab = Lab::new(&always_unk_model()).unwrap();
    lab.set_source("Sofa w5 zorblat").unwrap();
    let out = lab.translate().unwrap();
    let text: Vec<u16> = get(&out, "text").as_string().unwrap().encode_utf16().collect();
    for s in Array::from(&get(&out, "steps")).iter().filter(|s| !get(s, "copy").is_null()) {
        let (start, end) = (num(&s, "copy.start") as usize, num(&s, "copy.end") as usize);
        let word = get(&s, "copy.word").as_string().unwrap();
        assert_eq!(String::from_utf16(&text[start..end]).unwrap(), word, "text.slice(start, end)");
    }
}

/// `JSON.stringify(v)` (getters included, as a page's export would read them).
fn json(v: &JsValue) -> String {
    js_sys::JSON::stringify(v).unwrap().as_string().unwrap()
}

#[wasm_bindgen_test]
fn an_incremental_run_equals_a_fresh_lab_after_any_changes() {
    // a lab that keeps its stages between runs, and after every change a fresh lab given the
    // same sentence, decoder input, options and edits: their results must be identical
    let mut lab = lab();
    lab.translate().unwrap();
    let mut seed = 12345u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((seed >> 33) % n) as usize
    };
    let mut options: Vec<(&str, bool)> =
        vec![("scale", true), ("causalDecoder", true), ("causalEncoder", false), ("positional", true)];
    let mut edits: Vec<(&str, usize, &str, Vec<f32>)> = Vec::new(); // (stack, head, matrix, block); layer 0
    let mut heads = 2u32;
    let mut knocked: Vec<String> = Vec::new(); // knockOut names, layer 0 and 1
    let heads_js = |n: u32| {
        let o = js_sys::Object::new();
        Reflect::set(&o, &"heads".into(), &n.into()).unwrap();
        JsValue::from(o)
    };
    for step in 0..40 {
        match next(9) {
            0..=3 => {
                let stack = ["encoder", "decoder_self", "decoder_cross"][next(3)];
                let (head, m) = (next(heads as u64), ["q", "k"][next(2)]);
                let mut block = mat(&lab.block(stack, 0, head, m).unwrap(), "").2;
                let i = next(block.len() as u64);
                block[i] += 0.5 - next(100) as f32 / 50.0;
                lab.set_block(stack, 0, head, m, &block).unwrap();
                edits.retain(|e| !(e.0 == stack && e.1 == head && e.2 == m));
                edits.push((stack, head, m, block));
            }
            4 => {
                let k = next(4);
                options[k].1 = !options[k].1;
                lab.set_options(js_options(&options[k..k + 1])).unwrap();
            }
            5 => {
                let h = [1u32, 2, 4][next(3)];
                if h != heads {
                    edits.clear();
                    knocked.clear();
                }
                heads = h;
                lab.set_options(heads_js(h)).unwrap();
            }
            6 => {
                lab.reset_blocks().unwrap();
                edits.clear();
            }
            7 => {
                let name = format!("{}1h{}", ["e", "s", "c"][next(3)], 1 + next(heads as u64));
                match knocked.iter().position(|k| *k == name) {
                    Some(i) => {
                        knocked.remove(i);
                    }
                    None => knocked.push(name),
                }
                lab.set_options(knock_out_js(&knocked)).unwrap();
            }
            _ => {
                let words = ["w4 w5 w6 w7 w8", "w9 w8 w7", "w5 w5 w6 w4 w9 w8"];
                lab.set_source(words[next(3)]).unwrap();
                lab.translate().unwrap();
            }
        }
        if step % 4 == 3 {
            // the encoder alone, as the page asks while an encoder cell is dragged
            let encoder = lab.run_encoder(None, None).unwrap();
            assert_eq!(num(&encoder, "heads") as u32, heads);
        }
        let out = lab.run(None).unwrap();
        let src: Vec<u32> = js_sys::Uint32Array::new(&get(&out, "trace.encoder.embed.ids")).to_vec();
        let tgt: Vec<u32> = js_sys::Uint32Array::new(&get(&out, "trace.decoder.embed.ids")).to_vec();
        let mut fresh = Lab::new(MODEL).unwrap();
        fresh.set_options(heads_js(heads)).unwrap();
        fresh.set_options(js_options(&options)).unwrap();
        fresh.set_options(knock_out_js(&knocked)).unwrap();
        for (stack, head, m, block) in &edits {
            fresh.set_block(stack, 0, *head, m, block).unwrap();
        }
        fresh.set_ids(&src, &tgt).unwrap();
        let reference = fresh.run(None).unwrap();
        assert_eq!(json(&get(&out, "trace")), json(&get(&reference, "trace")), "after step {step}");
        assert_eq!(mat(&out, "trace.decoder.probs").0, tgt.len(), "probs is read on demand");
    }
}

#[wasm_bindgen_test]
fn a_decoder_edit_returns_the_same_encoder_object_and_the_logits_on_demand() {
    let mut lab = lab();
    lab.translate().unwrap();
    let a = lab.run(None).unwrap();
    let mut block = mat(&lab.block("decoder_cross", 0, 1, "q").unwrap(), "").2;
    block[0] += 1.0;
    lab.set_block("decoder_cross", 0, 1, "q", &block).unwrap();
    let b = lab.run(None).unwrap();
    assert!(js_sys::Object::is(&get(&a, "trace.encoder"), &get(&b, "trace.encoder")), "the encoder is reused");
    let self_attn = "trace.decoder.layers.0.self_attn";
    assert!(js_sys::Object::is(&get(&a, self_attn), &get(&b, self_attn)), "so is the self-attention before the edit");
    assert_ne!(mat(&a, "trace.decoder.logits").2, mat(&b, "trace.decoder.logits").2);
    let (t, v, probs) = mat(&b, "trace.decoder.probs");
    for row in probs.chunks(v) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
    assert_eq!(t, js_sys::Uint32Array::new(&get(&b, "trace.decoder.embed.ids")).length() as usize);
    assert!(js_sys::Object::is(&get(&b, "trace.decoder.probs"), &get(&b, "trace.decoder.probs")), "made once");
}

#[wasm_bindgen_test]
fn a_translation_makes_its_logits_and_probabilities_when_first_read() {
    let mut lab = lab();
    let tr = lab.translate().unwrap();
    let decoder = get(&tr, "trace.decoder");
    let descriptor =
        js_sys::Object::get_own_property_descriptor(decoder.unchecked_ref::<js_sys::Object>(), &"probs".into());
    assert!(get(&descriptor, "get").is_function(), "trace.decoder.probs is a getter");
    let (t, v, probs) = mat(&tr, "trace.decoder.probs");
    let (_, _, logits) = mat(&tr, "trace.decoder.logits");
    assert_eq!(t, js_sys::Uint32Array::new(&get(&tr, "trace.decoder.embed.ids")).length() as usize);
    assert!(js_sys::Object::is(&get(&tr, "trace.decoder.probs"), &get(&tr, "trace.decoder.probs")), "made once");
    // the same numbers as a run over the same decoder input
    let run = lab.run(None).unwrap();
    assert_eq!(mat(&run, "trace.decoder.logits").2, logits);
    assert_eq!(mat(&run, "trace.decoder.probs").2, probs);
    // and each step's most probable candidate has the largest probability of its row
    let steps: Array = get(&tr, "steps").into();
    assert_eq!(steps.length() as usize, t);
    for (i, step) in steps.iter().enumerate() {
        let best = probs[i * v..(i + 1) * v].iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let top = num(&step, "top.0.prob") as f32;
        assert!((top - best).abs() < 1e-5, "step {i}: {top} vs {best}");
    }
}

/// `{knockOut: [names]}`.
fn knock_out_js(names: &[impl AsRef<str>]) -> JsValue {
    let o = js_sys::Object::new();
    let list: Array = names.iter().map(|n| JsValue::from_str(n.as_ref())).collect();
    Reflect::set(&o, &"knockOut".into(), &list).unwrap();
    o.into()
}

fn strings(v: &JsValue) -> Vec<String> {
    Array::from(v).iter().map(|s| s.as_string().unwrap()).collect()
}

#[wasm_bindgen_test]
fn knocking_out_heads_changes_the_run_and_restoring_brings_back_the_same_numbers() {
    let mut lab = lab();
    lab.translate().unwrap();
    let before = json(&get(&lab.run(None).unwrap(), "trace"));
    lab.set_options(knock_out_js(&["c1h2", "e1h1"])).unwrap();
    assert_eq!(strings(&lab.knocked_out().unwrap()), ["e1h1", "c1h2"], "sorted, 1-based names");
    let out = lab.run(None).unwrap();
    assert_eq!(get(&out, "trace.encoder.layers.0.self_attn.sublayer.heads.0.knocked_out"), JsValue::TRUE);
    assert_eq!(get(&out, "trace.encoder.layers.0.self_attn.sublayer.heads.1.knocked_out"), JsValue::FALSE);
    assert_eq!(get(&out, "trace.decoder.layers.0.cross_attn.sublayer.heads.1.knocked_out"), JsValue::TRUE);
    let (_, _, concat) = mat(&out, "trace.encoder.layers.0.self_attn.sublayer.concat");
    assert!(concat.chunks(8).all(|row| row[..4].iter().all(|&v| v == 0.0)), "head 1's columns of concat are 0");
    assert_ne!(json(&get(&out, "trace")), before);
    // translate() honours it too: the steps' distributions change
    let knocked = lab.translate().unwrap();
    // errors leave the set as it was
    for bad in [&["e2h1"][..], &["e1h3"], &["x1h1"], &["e0h1"]] {
        assert!(lab.set_options(knock_out_js(bad)).is_err(), "{bad:?}");
    }
    assert_eq!(strings(&lab.knocked_out().unwrap()).len(), 2);
    lab.set_options(knock_out_js(&[] as &[&str])).unwrap();
    let plain = lab.translate().unwrap();
    assert_ne!(json(&get(&knocked, "steps")), json(&get(&plain, "steps")));
    assert_eq!(json(&get(&lab.run(None).unwrap(), "trace")), before, "restored: the very numbers");
    // a new head count clears the knock-outs, unless given with it; the count in force does not
    lab.set_options(knock_out_js(&["s1h2"])).unwrap();
    let o = js_sys::Object::new();
    Reflect::set(&o, &"heads".into(), &2.into()).unwrap();
    lab.set_options(o.into()).unwrap();
    assert_eq!(strings(&lab.knocked_out().unwrap()), ["s1h2"]);
    let o = js_sys::Object::new();
    Reflect::set(&o, &"heads".into(), &4.into()).unwrap();
    lab.set_options(o.into()).unwrap();
    assert_eq!(strings(&lab.knocked_out().unwrap()).len(), 0);
}

#[wasm_bindgen_test]
fn head_importance_ranks_every_head_with_typed_arrays() {
    let mut lab = lab();
    assert!(lab.head_importance().is_err(), "translate first");
    lab.translate().unwrap();
    let imp = lab.head_importance().unwrap();
    let heads = strings(&get(&imp, "heads"));
    assert_eq!(heads, ["e1h1", "e1h2", "s1h1", "s1h2", "c1h1", "c1h2"]);
    let delta = get(&imp, "delta").dyn_into::<Float32Array>().expect("delta is a Float32Array").to_vec();
    let log_prob = get(&imp, "log_prob").dyn_into::<Float32Array>().unwrap().to_vec();
    let ranking = get(&imp, "ranking").dyn_into::<js_sys::Uint32Array>().expect("a Uint32Array").to_vec();
    let base = num(&imp, "base") as f32;
    assert!(base < 0.0);
    for i in 0..6 {
        assert!((delta[i] - (log_prob[i] - base)).abs() < 1e-5);
    }
    let mut sorted = ranking.clone();
    sorted.sort();
    assert_eq!(sorted, [0, 1, 2, 3, 4, 5]);
    assert!(ranking.windows(2).all(|w| delta[w[0] as usize] <= delta[w[1] as usize]));
    // a head already knocked out scores 0
    lab.set_options(knock_out_js(&["s1h1"])).unwrap();
    let imp = lab.head_importance().unwrap();
    assert_eq!(get(&imp, "delta").dyn_into::<Float32Array>().unwrap().to_vec()[2], 0.0);
}

#[wasm_bindgen_test]
fn value_weighted_and_rollout_come_as_matrices_of_the_run() {
    let mut lab = lab();
    lab.translate().unwrap();
    let run = lab.run(None).unwrap();
    let t = js_sys::Uint32Array::new(&get(&run, "trace.decoder.embed.ids")).length() as usize;
    let vw = lab.value_weighted("decoder_cross", 0).unwrap();
    assert_eq!(Array::from(&vw).length(), 2, "one per head");
    let (r, c, norms) = mat(&vw, "0.norms");
    assert_eq!((r, c), (t, 5), "(T, S) like the cross-attention weights");
    let (_, _, w) = mat(&run, "trace.decoder.layers.0.cross_attn.sublayer.heads.0.weights");
    let (_, _, value_norms) = mat(&vw, "0.value_norms");
    for i in 0..t {
        for j in 0..5 {
            assert!((norms[i * 5 + j] - w[i * 5 + j] * value_norms[j]).abs() < 1e-5);
        }
    }
    let (_, _, normalized) = mat(&vw, "1.normalized");
    assert!(normalized.chunks(5).all(|row| (row.iter().sum::<f32>() - 1.0).abs() < 1e-5));
    assert!(lab.value_weighted("encoder", 1).is_err(), "one encoder layer");
    assert!(lab.value_weighted("nowhere", 0).is_err());
    let roll = lab.rollout().unwrap();
    let (s1, s2, enc) = mat(&roll, "encoder.0");
    assert_eq!((s1, s2), (5, 5));
    assert!(enc.chunks(5).all(|row| (row.iter().sum::<f32>() - 1.0).abs() < 1e-5));
    let (_, _, tt) = mat(&roll, "decoder_self.0");
    let (_, cols, ts) = mat(&roll, "cross.0");
    assert_eq!(cols, 5);
    for i in 0..t {
        let sum: f32 = tt[i * t..(i + 1) * t].iter().sum::<f32>() + ts[i * 5..(i + 1) * 5].iter().sum::<f32>();
        assert!((sum - 1.0).abs() < 1e-5, "row {i} sums to {sum}");
    }
}

/// A matrix maker for a frame (`Lab::run(Some(..))`): `(rows, cols, key) => ({rows, cols, key})`.
fn frame_maker() -> js_sys::Function {
    js_sys::Function::new_with_args("rows, cols, key", "return { rows, cols, key };")
}

/// Every `{rows, cols, key}` under `v`, by path (`decoder.logits` and `.probs` left out: made
/// on demand, not by the frame).
fn frame_matrices(v: &JsValue, path: &str, out: &mut Vec<(String, JsValue)>) {
    if Reflect::has(v, &"key".into()).unwrap_or(false) {
        out.push((path.to_string(), v.clone()));
        return;
    }
    if Array::is_array(v) {
        for (i, x) in Array::from(v).iter().enumerate() {
            frame_matrices(&x, &format!("{path}.{i}"), out);
        }
    } else if v.is_object() && !v.is_instance_of::<js_sys::Uint32Array>() {
        for k in js_sys::Object::keys(v.unchecked_ref::<js_sys::Object>()).iter() {
            let k = k.as_string().unwrap();
            if !(path == "decoder" && (k == "logits" || k == "probs")) {
                frame_matrices(&get(v, &k), format!("{path}.{k}").trim_start_matches('.'), out);
            }
        }
    }
}

fn read_frame(lab: &Lab, v: &JsValue) -> Result<Vec<f32>, String> {
    lab.matrix(num(v, "key")).map(|a| a.to_vec()).map_err(|e| get(&JsValue::from(e), "message").as_string().unwrap())
}

#[wasm_bindgen_test]
fn a_frame_leaves_every_matrix_in_wasm_until_read_and_only_while_its_stage_is_current() {
    let mut lab = lab();
    lab.translate().unwrap();
    let mut copies = translated_lab();
    let reference = copies.run(None).unwrap();
    let frame = lab.run(Some(frame_maker())).unwrap();
    let mut mats = Vec::new();
    frame_matrices(&get(&frame, "trace"), "", &mut mats);
    // two embeddings of 3; one encoder layer: attention (2 heads x 7, concat, output, sum,
    // norm) and FFN (hidden, output, sum, norm); the memory; one decoder layer: two attentions
    // and the FFN; the decoder output
    assert_eq!(mats.len(), 3 + 22 + 1 + 3 + 40 + 1, "{:?}", mats.iter().map(|m| &m.0).collect::<Vec<_>>());
    for (path, m) in &mats {
        assert!(!Reflect::has(m, &"data".into()).unwrap(), "{path}: no copy made");
        let (rows, cols, data) = mat(&get(&reference, "trace"), path);
        assert_eq!((num(m, "rows") as usize, num(m, "cols") as usize), (rows, cols), "{path}");
        assert_eq!(read_frame(&lab, m).unwrap(), data, "{path}: the values a copying run gives");
    }
    // an edit in the decoder's cross-attention: the stages before it stay readable, the
    // recomputed ones' old keys do not, and the new frame reads the new values
    let mut block = mat(&lab.block("decoder_cross", 0, 1, "q").unwrap(), "").2;
    block[0] += 1.0;
    lab.set_block("decoder_cross", 0, 1, "q", &block).unwrap();
    copies.set_block("decoder_cross", 0, 1, "q", &block).unwrap();
    let next = lab.run(Some(frame_maker())).unwrap();
    let kept = "trace.decoder.layers.0.self_attn.sublayer.heads.0.weights";
    let redone = "trace.decoder.layers.0.cross_attn.sublayer.heads.1.weights";
    assert!(js_sys::Object::is(&get(&frame, kept), &get(&next, kept)), "the same object");
    assert!(read_frame(&lab, &get(&frame, "trace.encoder.memory")).is_ok());
    assert!(read_frame(&lab, &get(&frame, kept)).is_ok());
    let stale = read_frame(&lab, &get(&frame, redone)).unwrap_err();
    assert!(stale.contains("earlier run"), "{stale}");
    let reference = copies.run(None).unwrap();
    assert_eq!(read_frame(&lab, &get(&next, redone)).unwrap(), mat(&reference, redone).2);
    assert_ne!(num(&get(&next, redone), "key"), num(&get(&frame, redone), "key"), "keys are never reused");
    // a copying run after a frame copies, even where nothing changed
    assert_eq!(mat(&lab.run(None).unwrap(), kept).2, mat(&reference, kept).2);
    // and when it recomputes a stage, that stage's frame keys go with it
    block[1] += 1.0;
    lab.set_block("decoder_cross", 0, 1, "q", &block).unwrap();
    lab.run(None).unwrap();
    assert!(read_frame(&lab, &get(&next, redone)).is_err(), "a copying run made the frame key stale");
    assert!(read_frame(&lab, &get(&next, kept)).is_ok());
    // a new sentence: every old key is stale, and no new key repeats one
    let old: Vec<f64> = mats.iter().map(|(_, m)| num(m, "key")).collect();
    lab.set_source("w9 w8 w7").unwrap();
    lab.translate().unwrap();
    let third = lab.run(Some(frame_maker())).unwrap();
    let mut now = Vec::new();
    frame_matrices(&get(&third, "trace"), "", &mut now);
    assert!(now.iter().all(|(_, m)| !old.contains(&num(m, "key"))));
    assert!(mats.iter().filter(|(p, _)| p.starts_with("encoder")).all(|(_, m)| read_frame(&lab, m).is_err()));
    for bogus in [-1.0, 0.5, f64::NAN, f64::INFINITY, 1e300] {
        assert!(lab.matrix(bogus).is_err(), "key {bogus}");
    }
}

/// A second lab on the sentence of `lab()`, translated.
fn translated_lab() -> Lab {
    let mut lab = lab();
    lab.translate().unwrap();
    lab
}

/// A BERT-style model (encoder-only, MLM head; `tests/fixtures/families/`, from transformers).
const BERT: &[u8] = include_bytes!("../fixtures/families/bert_mlm_gelu.safetensors");
/// A GPT-2-style model (decoder-only, tied LM head).
const GPT2: &[u8] = include_bytes!("../fixtures/families/gpt2_lm.safetensors");

/// The weights of every head of `site`'s layers in a `run()` trace, against the engine's own
/// `Model::forward` on the same ids: the Lab's incremental path gives the very numbers.
fn same_weights_as_forward(out: &JsValue, part: &str, site: attnscope::Stack, trace: &attnscope::Trace) {
    let layers = trace.site(site);
    assert!(!layers.is_empty());
    for (l, attn) in layers.iter().enumerate() {
        for (h, head) in attn.heads.iter().enumerate() {
            let path = format!("trace.{part}.layers.{l}.self_attn.sublayer.heads.{h}.weights");
            let (_, _, data) = mat(out, &path);
            assert_eq!(data, head.weights.row_major(), "{path}");
        }
    }
}

#[wasm_bindgen_test]
fn a_bert_lab_describes_its_one_site_and_runs_the_encoder_alone() {
    let mut lab = Lab::new(BERT).unwrap();
    let info = lab.info().unwrap();
    assert_eq!(get(&info, "architecture").as_string().unwrap(), "encoder_only");
    assert_eq!(get(&info, "output").as_string().unwrap(), "masked_token");
    assert_eq!(get(&info, "text").as_string().unwrap(), "source");
    let sites = Array::from(&get(&info, "sites"));
    assert_eq!(sites.length(), 1);
    assert_eq!(get(&sites.get(0), "id").as_string().unwrap(), "encoder");
    assert_eq!(get(&sites.get(0), "causal").as_bool(), Some(false));

    let ids = [2u32, 10, 4, 12, 3]; // [CLS] w [MASK] w [SEP] (the fixture's placeholder specials)
    lab.set_ids(&ids, &[]).unwrap();
    assert!(lab.set_ids(&ids, &[1]).is_err(), "an encoder-only model reads no target");
    let out = lab.run(None).unwrap();
    assert!(get(&out, "trace.decoder").is_undefined(), "no decoder in the trace");
    let model = attnscope::Model::from_safetensors(BERT).unwrap();
    let trace = model.forward(&ids, &[], &attnscope::RunOptions::default()).unwrap();
    same_weights_as_forward(&out, "encoder", attnscope::Stack::Encoder, &trace);
    let (rows, cols, logits) = mat(&out, "trace.encoder.logits");
    assert_eq!((rows, cols), (5, 40));
    assert_eq!(logits, trace.encoder().unwrap().logits.as_ref().unwrap().row_major());

    // the mask's candidates: the top of its row's softmax, most probable first
    let masks = Array::from(&lab.fill(3).unwrap());
    assert_eq!(masks.length(), 1);
    assert_eq!(num(&masks.get(0), "position"), 2.0);
    let probs: Vec<f64> = Array::from(&get(&masks.get(0), "candidates")).iter().map(|c| num(&c, "prob")).collect();
    assert_eq!(probs.len(), 3);
    assert!(probs.windows(2).all(|w| w[0] >= w[1]), "{probs:?}");
    let (_, _, p) = mat(&out, "trace.encoder.probs");
    let row = &p[2 * 40..3 * 40];
    let best = row.iter().cloned().fold(f32::MIN, f32::max);
    assert!((probs[0] as f32 - best).abs() < 1e-6, "the first candidate has the row's largest probability");
    assert!(lab.translate().is_err(), "an encoder-only model does not translate");
}

#[wasm_bindgen_test]
fn a_gpt2_lab_runs_the_decoder_alone_and_continues_a_text() {
    let mut lab = Lab::new(GPT2).unwrap();
    let info = lab.info().unwrap();
    assert_eq!(get(&info, "architecture").as_string().unwrap(), "decoder_only");
    assert_eq!(get(&info, "output").as_string().unwrap(), "next_token");
    assert_eq!(get(&info, "text").as_string().unwrap(), "target");
    let sites = Array::from(&get(&info, "sites"));
    assert_eq!(sites.length(), 1);
    assert_eq!(get(&sites.get(0), "id").as_string().unwrap(), "decoder_self");
    assert_eq!(get(&sites.get(0), "causal").as_bool(), Some(true));

    let ids = [5u32, 7, 9];
    lab.set_ids(&[], &ids).unwrap();
    let out = lab.run(None).unwrap();
    assert!(get(&out, "trace.encoder").is_undefined(), "no encoder in the trace");
    assert!(get(&out, "trace.decoder.layers.0.cross_attn").is_undefined(), "no cross-attention");
    let model = attnscope::Model::from_safetensors(GPT2).unwrap();
    let trace = model.forward(&[], &ids, &attnscope::RunOptions::default()).unwrap();
    same_weights_as_forward(&out, "decoder", attnscope::Stack::DecoderSelf, &trace);
    let (_, _, w) = mat(&out, "trace.decoder.layers.0.self_attn.sublayer.heads.0.weights");
    assert_eq!(w[1], 0.0, "causal: the first token does not see the second");

    // generate: four more tokens, as the library's decode::generate gives them
    let gen = lab.generate(4).unwrap();
    let want = attnscope::decode::generate(&model, &ids, &attnscope::RunOptions::default(), 4).unwrap();
    let tokens: Vec<String> = Array::from(&get(&gen, "tokens")).iter().map(|t| t.as_string().unwrap()).collect();
    let want_tokens: Vec<String> = want.tokens.iter().map(|&t| model.tokenizer.tgt_token(t).to_string()).collect();
    assert_eq!(tokens, want_tokens);
    // and the next run reads the prompt and the continuation (but its last token)
    let out = lab.run(None).unwrap();
    assert_eq!(Array::from(&get(&out, "decoder_tokens")).length(), 3 + 4 - 1);
}

/// The playground's trainer from JavaScript: a seeded run gives the same loss curve each time
/// and the library's; showing an example leaves the run alone; the file opens in a Lab.
#[wasm_bindgen_test]
fn a_seeded_training_run_repeats_and_matches_the_library() {
    use attnscope::wasm::Trainer;
    let setup = || {
        let o = js_sys::Object::new();
        for (k, v) in [("task", JsValue::from("reverse")), ("length", 6.into()), ("seed", 3.into())] {
            Reflect::set(&o, &k.into(), &v).unwrap();
        }
        JsValue::from(o)
    };
    let losses = |reports: &JsValue| -> Vec<f64> { Array::from(reports).iter().map(|r| num(&r, "loss")).collect() };
    let mut a = Trainer::new(setup()).unwrap();
    let mut b = Trainer::new(setup()).unwrap();
    let first = losses(&a.train(6).unwrap());
    b.example(9).unwrap(); // an example drawn between steps
    let second = losses(&b.train(3).unwrap());
    let second: Vec<f64> = second.into_iter().chain(losses(&b.train(3).unwrap())).collect();
    assert_eq!(first, second, "the same seed, in chunks, with an example shown between");
    assert!(first[5] < first[0], "the loss falls: {first:?}");

    let spec = attnscope::tasks::TaskSpec::new(attnscope::tasks::Task::Reverse, 6, 8).unwrap();
    let mut lib = attnscope::training::Trainer::new(attnscope::training::Setup {
        task: spec,
        layers: 1,
        heads: 2,
        d_model: 32,
        optimizer: attnscope::training::Optimizer::Adam { lr: 3e-3 },
        batch: 16,
        seed: 3,
        opts: attnscope::RunOptions::default(),
    })
    .unwrap();
    let want: Vec<f64> = (0..6).map(|_| lib.step().unwrap().loss as f64).collect();
    assert_eq!(first, want, "the library's run");

    let ex = a.example(9).unwrap();
    let source = get(&ex, "source").as_string().unwrap();
    let target = get(&ex, "target").as_string().unwrap();
    let rev: Vec<&str> = source.split(' ').rev().collect();
    assert_eq!(target, rev.join(" "), "the reverse task's target is its source backwards");
    let mut opened = Lab::new(&a.file().unwrap()).unwrap();
    opened.set_source(&source).unwrap();
    assert!(opened.translate().is_ok());
    assert!(Trainer::new(JsValue::from_str("not a setup")).is_err());
}

/// `Mat::row_major` undoes `Mat::from_rows` in wasm too, where blocks of 4 x 4 turn in SIMD
/// registers: shapes with and without multiples of four rows and columns.
#[wasm_bindgen_test]
fn row_major_round_trip_in_simd_blocks() {
    for (rows, cols) in [(1, 1), (4, 4), (3, 5), (5, 8), (8, 3), (9, 13), (33, 32), (128, 64)] {
        let data: Vec<f32> = (0..rows * cols).map(|v| v as f32 * 0.5 - 3.0).collect();
        let m = attnscope::trace::Mat::from_rows(rows, cols, &data);
        assert_eq!(m.row_major(), data, "({rows}, {cols})");
    }
}

#[wasm_bindgen_test]
fn a_recycled_trace_lends_its_memory_to_the_next_run_which_equals_a_fresh_labs() {
    let paths = [
        "trace.encoder.embed.input",
        "trace.encoder.layers.0.self_attn.sublayer.heads.1.weights",
        "trace.encoder.memory",
        "trace.decoder.layers.0.cross_attn.sublayer.heads.0.weights",
        "trace.decoder.output",
    ];
    let buffer = |v: &JsValue, path: &str| get(&get(v, path), "data").dyn_into::<Float32Array>().unwrap().buffer();
    let edit = |lab: &mut Lab, by: f32| {
        let mut block = mat(&lab.block("encoder", 0, 1, "q").unwrap(), "").2;
        block[0] += by;
        lab.set_block("encoder", 0, 1, "q", &block).unwrap();
    };
    let mut lab = lab();
    lab.translate().unwrap();
    let a = lab.run(None).unwrap();
    let old: Vec<_> = paths.iter().map(|p| buffer(&a, p)).collect();
    let weights = paths[1];
    let before = mat(&a, weights).2;

    edit(&mut lab, 1.0);
    lab.recycle_trace();
    let b = lab.run(None).unwrap();
    for p in paths {
        assert!(old.iter().any(|o| js_sys::Object::is(o, &buffer(&b, p))), "{p}: in the old trace's memory");
    }
    assert_ne!(mat(&b, weights).2, before, "the edit changed the weights");
    assert_eq!(mat(&a, weights).2, mat(&b, weights).2, "the old trace now reads the new values");
    let mut fresh = self::lab();
    fresh.translate().unwrap();
    edit(&mut fresh, 1.0);
    assert_eq!(json(&get(&b, "trace")), json(&get(&fresh.run(None).unwrap(), "trace")));

    // without recycling, a recomputed stage gets new memory and the last trace keeps its values
    let kept = mat(&b, weights).2;
    edit(&mut lab, 1.0);
    let c = lab.run(None).unwrap();
    assert!(!old.iter().any(|o| js_sys::Object::is(o, &buffer(&c, weights))));
    assert_eq!(mat(&b, weights).2, kept);
    assert_ne!(mat(&c, weights).2, kept);
}

#[wasm_bindgen_test]
fn an_encoder_run_through_one_layer_leaves_the_later_ones_as_they_were_and_says_so() {
    let ids = [2u32, 10, 4, 12, 3];
    let edited = |by: f32| {
        let mut lab = Lab::new(BERT).unwrap();
        lab.set_ids(&ids, &[]).unwrap();
        let mut block = mat(&lab.block("encoder", 0, 0, "q").unwrap(), "").2;
        block[1] += by;
        lab.set_block("encoder", 0, 0, "q", &block).unwrap();
        lab
    };
    let layers = num(&Lab::new(BERT).unwrap().info().unwrap(), "encoderLayers") as usize;
    assert!(layers >= 2, "the fixture needs a layer after the edited one");
    let reference = json(&get(&edited(2.0).run(None).unwrap(), "trace.encoder"));

    let mut lab = Lab::new(BERT).unwrap();
    lab.set_ids(&ids, &[]).unwrap();
    let a = lab.run_encoder(None, None).unwrap();
    assert!(get(&a, "staleFrom").is_null());
    let mut block = mat(&lab.block("encoder", 0, 0, "q").unwrap(), "").2;
    block[1] += 2.0;
    lab.set_block("encoder", 0, 0, "q", &block).unwrap();
    let b = lab.run_encoder(None, Some(0)).unwrap();
    assert_eq!(num(&b, "staleFrom"), 1.0);
    let fresh = edited(2.0).run(None).unwrap();
    assert_eq!(json(&get(&b, "encoder.layers.0")), json(&get(&fresh, "trace.encoder.layers.0")), "layer 1 is current");
    for l in 1..layers {
        let path = format!("encoder.layers.{l}");
        assert!(js_sys::Object::is(&get(&a, &path), &get(&b, &path)), "{path} is the last run's object");
    }
    assert!(js_sys::Object::is(&get(&a, "encoder.memory"), &get(&b, "encoder.memory")));
    // a run through the last layer catches up: every stage as a fresh lab with the edit has it
    let c = lab.run_encoder(None, Some(layers as u32 - 1)).unwrap();
    assert!(get(&c, "staleFrom").is_null());
    assert!(js_sys::Object::is(&get(&b, "encoder.layers.0"), &get(&c, "encoder.layers.0")), "not converted again");
    assert_eq!(json(&get(&c, "encoder")), reference);
}
