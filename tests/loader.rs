//! Hostile and broken model files: each must give a clear `Err(Error::Format)` naming the
//! problem, never a panic and never an absurd allocation. Valid files are built in code by
//! `tests/support/random_model.rs` and then broken one way at a time.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/random_model.rs"]
mod random_model;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use attnscope::{Error, Model, RunOptions, WordVectors};
use random_model::{serialize, serialize_with, Raw, Spec, Weights};
use safetensors::Dtype;
use serde_json::{json, Value};

/// Load `bytes`, turning a panic into a test failure that names the case.
fn try_load(what: &str, bytes: &[u8]) -> Result<Model, Error> {
    catch_unwind(AssertUnwindSafe(|| Model::from_safetensors(bytes)))
        .unwrap_or_else(|_| panic!("{what}: Model::from_safetensors panicked"))
}

/// Expect a format error whose message contains every one of `needles` (case-insensitive).
fn expect_format_err(what: &str, bytes: &[u8], needles: &[&str]) {
    match try_load(what, bytes) {
        Ok(_) => panic!("{what}: loaded, expected an error"),
        Err(e @ (Error::Input(_) | Error::Numeric(_))) => panic!("{what}: {e}, expected a format error"),
        Err(e @ Error::Format(_)) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "{what}: the message should be one line: {msg:?}");
            for needle in needles {
                assert!(
                    msg.to_lowercase().contains(&needle.to_lowercase()),
                    "{what}: the message should mention {needle:?}: {msg}"
                );
            }
        }
    }
}

/// `[n as u64 LE][header][data]`: a safetensors file written by hand, lengths as given.
fn raw_file(n: u64, header: &str, data: &[u8]) -> Vec<u8> {
    let mut b = n.to_le_bytes().to_vec();
    b.extend_from_slice(header.as_bytes());
    b.extend_from_slice(data);
    b
}

fn small() -> (Spec, Weights) {
    let s = Spec::small();
    let w = s.weights(11);
    (s, w)
}

fn raws(w: &Weights) -> BTreeMap<String, Raw> {
    w.0.iter().map(|(k, t)| (k.clone(), Raw::f32(t))).collect()
}

/// The small model's file with its config JSON edited by `edit`.
fn with_config(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let (s, w) = small();
    let mut cfg = s.config();
    edit(&mut cfg);
    serialize(&raws(&w), Some(&cfg.to_string()))
}

#[test]
fn the_unbroken_file_loads_and_runs() {
    // The baseline every other case breaks: it must load, or the errors below prove nothing.
    let (s, w) = small();
    let model = try_load("baseline", &s.file(&w)).expect("the baseline model loads");
    model.forward(&[4, 5], &[1, 6], &RunOptions::default()).expect("and runs");
}

#[test]
fn a_word_listed_twice_in_a_vocabulary_takes_its_first_id() {
    // the small model's vocabularies are <pad> <bos> <eos> <unk> w4 w5 ...: w5 again at 7 and 9
    let file = with_config(|cfg| {
        for side in ["src_vocab", "tgt_vocab"] {
            cfg[side][7] = json!("w5");
            cfg[side][9] = json!("w5");
        }
    });
    let model = try_load("a repeated word", &file).expect("loads");
    assert_eq!(
        model.tokenizer.encode_src("w5 w7 w9 w8").unwrap().ids,
        [5, 3, 3, 8],
        "source: w5 is 5, w7 and w9 unknown"
    );
    assert_eq!(model.tokenizer.encode_tgt("w5 w8").unwrap().ids, [5, 8], "target");
}

#[test]
fn files_too_short_or_with_a_bad_header_length() {
    let big = (1u64 << 63).to_le_bytes();
    #[rustfmt::skip]
    let cases: &[(&str, Vec<u8>, &[&str])] = &[
        ("empty file", vec![], &["0 bytes"]),
        ("7 bytes", vec![1, 2, 3, 4, 5, 6, 7], &["7 bytes"]),
        ("8 zero bytes (header length 0)", vec![0; 8], &[]),
        ("header length 100 in an 18-byte file", raw_file(100, "{}", &[0; 8]), &["header length 100"]),
        ("header length 2^63", [&big[..], b"{}"].concat(), &["header length 9223372036854775808"]),
        ("header length u64::MAX", [&u64::MAX.to_le_bytes()[..], b"{}"].concat(), &["header length"]),
        ("header length 17 MiB", raw_file(17 << 20, "{}", &[]), &["header length"]),
        ("header is not JSON", raw_file(8, "not json", &[]), &[]),
        ("header is not UTF-8", raw_file(4, "", &[0xff, 0xfe, 0xfd, 0xfc]), &[]),
        ("header is a JSON array", raw_file(2, "[]", &[]), &[]),
        ("empty header object, no metadata", raw_file(2, "{}", &[]), &["__metadata__"]),
    ];
    for (what, bytes, needles) in cases {
        expect_format_err(what, bytes, needles);
    }
}

#[test]
fn every_prefix_of_a_model_file_is_rejected() {
    let (s, w) = small();
    let file = s.file(&w);
    for len in 0..file.len() {
        let what = format!("prefix of {len} of {} bytes", file.len());
        assert!(try_load(&what, &file[..len]).is_err(), "{what} loaded");
    }
    // And a committed PyTorch fixture, at a stride.
    let fixture =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/parity/tiny_post_relu.safetensors"))
            .expect("fixture");
    assert!(try_load("whole fixture", &fixture).is_ok(), "the fixture itself loads");
    for len in (0..fixture.len()).step_by(7) {
        let what = format!("fixture prefix of {len} of {} bytes", fixture.len());
        assert!(try_load(&what, &fixture[..len]).is_err(), "{what} loaded");
    }
    // A file with trailing garbage is not a valid safetensors file either.
    let longer = [&file[..], &[0u8; 3]].concat();
    expect_format_err("3 bytes appended", &longer, &[]);
}

#[test]
fn flipped_header_bytes_never_panic() {
    // Flip each byte of the header (every bit pattern of a few kinds). A flip inside a vocabulary
    // word may still give a valid model; then it must run. Everything else must be an error.
    let (s, w) = small();
    let file = s.file(&w);
    let n = u64::from_le_bytes(file[..8].try_into().unwrap()) as usize;
    let mut rejected = 0;
    let mut total = 0;
    for pos in 0..8 + n {
        for mask in [0x01u8, 0x20, 0x80, 0xff] {
            let mut bytes = file.clone();
            bytes[pos] ^= mask;
            let what = format!("byte {pos} ^ {mask:#04x}");
            total += 1;
            match try_load(&what, &bytes) {
                Err(_) => rejected += 1,
                Ok(model) => {
                    let run =
                        catch_unwind(AssertUnwindSafe(|| model.forward(&[4, 5, 6], &[1, 4], &RunOptions::default())));
                    assert!(run.is_ok(), "{what}: loaded, then forward panicked");
                }
            }
        }
    }
    assert!(rejected * 2 > total, "only {rejected} of {total} flipped headers were rejected");
    // The opening brace of the JSON, flipped, is always fatal.
    let mut bytes = file.clone();
    bytes[8] ^= 0x01;
    expect_format_err("'{' flipped", &bytes, &[]);
}

#[test]
fn tensor_problems_name_the_tensor() {
    let victim = "transformer.encoder.layers.0.self_attn.in_proj_weight";
    let (s, w) = small();
    let meta = s.config().to_string();
    let file = |edit: &dyn Fn(&mut BTreeMap<String, Raw>)| {
        let mut r = raws(&w);
        edit(&mut r);
        serialize(&r, Some(&meta))
    };
    let set = |value: f32, at: usize| {
        move |r: &mut BTreeMap<String, Raw>| {
            let t = r.get_mut(victim).unwrap();
            t.bytes[4 * at..4 * at + 4].copy_from_slice(&value.to_le_bytes());
        }
    };
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("missing tensor", file(&|r| { r.remove(victim); }), vec![victim, "missing"]),
        ("missing norm bias", file(&|r| { r.remove("transformer.decoder.norm.bias"); }), vec!["transformer.decoder.norm.bias", "missing"]),
        ("missing generator", file(&|r| { r.remove("generator.weight"); }), vec!["generator.weight"]),
        ("wrong shape (transposed)", file(&|r| { r.get_mut(victim).unwrap().shape = vec![8, 24]; }), vec![victim, "shape", "[8, 24]", "[24, 8]"]),
        ("wrong shape (flattened)", file(&|r| { r.get_mut(victim).unwrap().shape = vec![192]; }), vec![victim, "shape"]),
        ("wrong shape (extra axis)", file(&|r| { r.get_mut(victim).unwrap().shape = vec![1, 24, 8]; }), vec![victim, "shape"]),
        ("wrong dtype I32", file(&|r| { r.get_mut(victim).unwrap().dtype = Dtype::I32; }), vec![victim, "I32"]),
        ("wrong dtype F64", file(&|r| {
            let t = r.get_mut(victim).unwrap();
            t.dtype = Dtype::F64;
            t.shape = vec![12, 8]; // same byte count, 8-byte elements
        }), vec![victim]),
        ("NaN weight", file(&set(f32::NAN, 5)), vec![victim, "non-finite", "index 5"]),
        ("+inf weight", file(&set(f32::INFINITY, 0)), vec![victim, "non-finite"]),
        ("-inf weight", file(&set(f32::NEG_INFINITY, 191)), vec![victim, "non-finite", "index 191"]),
        ("unexpected extra tensor", file(&|r| {
            r.insert("extra.weight".into(), Raw { dtype: Dtype::F32, shape: vec![2], bytes: vec![0; 8] });
        }), vec!["extra.weight", "unexpected"]),
        ("learned table in a sinusoidal model", file(&|r| {
            r.insert("src_pos.weight".into(), Raw { dtype: Dtype::F32, shape: vec![16, 8], bytes: vec![0; 512] });
        }), vec!["src_pos.weight", "unexpected"]),
        ("a third layer nobody asked for", file(&|r| {
            let t = r["transformer.encoder.layers.0.norm1.bias"].clone();
            r.insert("transformer.encoder.layers.2.norm1.bias".into(), t);
        }), vec!["transformer.encoder.layers.2.norm1.bias"]),
        ("bytes shorter than the shape", file(&|r| { r.get_mut(victim).unwrap().bytes.truncate(100); }), vec![]),
    ];
    for (what, bytes, needles) in &cases {
        expect_format_err(what, bytes, needles);
    }
}

#[test]
fn half_precision_non_finite_values_are_caught_after_widening() {
    // F16 0x7C00 = +inf, 0x7E00 = NaN; BF16 0x7F80 = +inf, 0xFFC0 = NaN.
    let (s, w) = small();
    let meta = s.config().to_string();
    let name = "generator.bias"; // (11)
    let half = |dtype: Dtype, bits: u16| {
        let mut r = raws(&w);
        let mut bytes: Vec<u8> = (0..11).flat_map(|_| 0u16.to_le_bytes()).collect(); // 11 zeros
        bytes[6..8].copy_from_slice(&bits.to_le_bytes()); // element 3
        r.insert(name.into(), Raw { dtype, shape: vec![11], bytes });
        serialize(&r, Some(&meta))
    };
    let cases = [
        ("F16 inf", Dtype::F16, 0x7C00),
        ("F16 NaN", Dtype::F16, 0x7E00),
        ("BF16 inf", Dtype::BF16, 0x7F80),
        ("BF16 NaN", Dtype::BF16, 0xFFC0),
    ];
    for (what, dtype, bits) in cases {
        expect_format_err(what, &half(dtype, bits), &[name, "index 3"]);
    }
    // The same tensor with finite half values loads: 0x3C00 is 1.0 in F16, 0x3F80 in BF16.
    for (what, dtype, bits) in [("F16 1.0", Dtype::F16, 0x3C00u16), ("BF16 1.0", Dtype::BF16, 0x3F80)] {
        let model = try_load(what, &half(dtype, bits)).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(model.decoder_stack().unwrap().generator.as_ref().unwrap().b()[3], 1.0, "{what}: element 3 widened");
    }
}

#[test]
fn every_half_precision_value_widens_exactly() {
    // all 65,536 bit patterns against the `half` crate: finite values and infinities to the
    // same f32 bits (signed zeros and subnormals included), NaNs to NaNs
    for bits in 0..=u16::MAX {
        let ours = attnscope::format::f16_to_f32(bits);
        let reference = half::f16::from_bits(bits).to_f32();
        if reference.is_nan() {
            assert!(ours.is_nan(), "{bits:#06x}: {ours} is not NaN");
        } else {
            assert_eq!(ours.to_bits(), reference.to_bits(), "{bits:#06x}: {ours:e} != {reference:e}");
        }
    }
}

#[test]
fn metadata_problems() {
    let (s, w) = small();
    let r = raws(&w);
    let cases: &[(&str, Vec<u8>, &[&str])] = &[
        ("no __metadata__", serialize(&r, None), &["__metadata__", "attnscope"]),
        ("metadata under another key", serialize_with(&r, Some(("other", "{}"))), &["attnscope"]),
        ("metadata not JSON", serialize(&r, Some("{not json")), &["not a valid config"]),
        ("metadata is a JSON string", serialize(&r, Some("\"hello\"")), &["not a valid config"]),
        ("metadata empty object", serialize(&r, Some("{}")), &["not a valid config"]),
    ];
    for (what, bytes, needles) in cases {
        expect_format_err(what, bytes, needles);
    }
    // The tensors are fine: the same file with the right metadata loads.
    assert!(try_load("control", &s.file(&w)).is_ok());
}

#[test]
fn config_problems_name_the_field() {
    let vocab_without = |tok: &str| -> Value { Spec::vocab(11).into_iter().filter(|w| w != tok).collect() };
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("nhead 3 with d_model 8", with_config(|c| c["nhead"] = json!(3)), vec!["nhead = 3", "d_model = 8"]),
        ("nhead 0", with_config(|c| c["nhead"] = json!(0)), vec!["nhead = 0"]),
        ("nhead 16 > d_model", with_config(|c| c["nhead"] = json!(16)), vec!["nhead = 16"]),
        ("d_model 0", with_config(|c| { c["d_model"] = json!(0); }), vec!["d_model = 0"]),
        ("d_model 5000", with_config(|c| c["d_model"] = json!(5000)), vec!["d_model = 5000"]),
        ("d_model negative", with_config(|c| c["d_model"] = json!(-8)), vec!["not a valid config"]),
        ("d_model 8.5", with_config(|c| c["d_model"] = json!(8.5)), vec!["not a valid config"]),
        ("max_len 1e9", with_config(|c| c["max_len"] = json!(1_000_000_000u64)), vec!["max_len = 1000000000"]),
        ("max_len 0", with_config(|c| c["max_len"] = json!(0)), vec!["max_len = 0"]),
        ("max_len within limits but out of proportion", with_config(|c| c["max_len"] = json!(60000)), vec!["max_len", "60000"]),
        ("encoder layers 10^6", with_config(|c| c["num_encoder_layers"] = json!(1_000_000)), vec!["num_encoder_layers = 1000000"]),
        ("decoder layers 10^6", with_config(|c| c["num_decoder_layers"] = json!(1_000_000)), vec!["num_decoder_layers = 1000000"]),
        ("encoder layers 0", with_config(|c| c["num_encoder_layers"] = json!(0)), vec!["num_encoder_layers = 0"]),
        ("dim_feedforward 10^9", with_config(|c| c["dim_feedforward"] = json!(1_000_000_000u64)), vec!["dim_feedforward"]),
        ("layers 2 but tensors for 1", with_config(|c| c["num_decoder_layers"] = json!(2)), vec!["transformer.decoder.layers.1", "missing"]),
        ("d_model 16 but tensors for 8", with_config(|c| { c["d_model"] = json!(16); }), vec!["shape"]),
        ("layer_norm_eps 0", with_config(|c| c["layer_norm_eps"] = json!(0.0)), vec!["layer_norm_eps"]),
        ("layer_norm_eps negative", with_config(|c| c["layer_norm_eps"] = json!(-1e-5)), vec!["layer_norm_eps"]),
        ("format 2", with_config(|c| c["format"] = json!(2)), vec!["format 2"]),
        ("unknown activation", with_config(|c| c["activation"] = json!("swish")), vec!["not a valid config"]),
        ("unknown positional", with_config(|c| c["positional"] = json!("rotary")), vec!["not a valid config"]),
        ("unknown field", with_config(|c| c["dropout"] = json!(0.1)), vec!["dropout"]),
        ("missing field", with_config(|c| { c.as_object_mut().unwrap().remove("nhead"); }), vec!["nhead"]),
        ("tgt vocab without <bos>", with_config(|c| c["tgt_vocab"] = vocab_without("<bos>")), vec!["<bos>", "tgt_vocab"]),
        ("tgt vocab without <eos>", with_config(|c| c["tgt_vocab"] = vocab_without("<eos>")), vec!["<eos>", "tgt_vocab"]),
        ("src vocab without <unk>", with_config(|c| c["src_vocab"] = vocab_without("<unk>")), vec!["<unk>", "src_vocab"]),
        ("empty src vocab", with_config(|c| c["src_vocab"] = json!([])), vec!["src_vocab size = 0"]),
        ("specials renamed away", with_config(|c| c["specials"] = json!({"pad": "<p>", "bos": "<s>", "eos": "</s>", "unk": "<u>"})), vec!["<s>"]),
    ];
    for (what, bytes, needles) in &cases {
        expect_format_err(what, bytes, needles);
    }
}

#[test]
fn a_huge_vocabulary_in_a_tiny_file() {
    // 200 000 source words but an embedding table of 10 rows: the shape check must fail before
    // anything of size (200000, d_model) is allocated.
    let big: Vec<String> = Spec::vocab(200_000);
    let bytes = with_config(|c| c["src_vocab"] = json!(big));
    expect_format_err("200k-word vocabulary", &bytes, &["src_embed.weight", "shape"]);
    // One word over the limit (2^20) is refused by the config check itself.
    let over: Vec<String> = Spec::vocab((1 << 20) + 1);
    let bytes = with_config(|c| c["tgt_vocab"] = json!(over));
    expect_format_err("2^20 + 1 target words", &bytes, &["tgt_vocab size = 1048577"]);
}

#[test]
fn hand_written_headers_with_inconsistent_offsets() {
    let meta = r#""__metadata__":{"attnscope":"{}"}"#;
    #[rustfmt::skip]
    let cases: &[(&str, String, Vec<u8>)] = &[
        ("offsets past the data", format!(r#"{{{meta},"a":{{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}}}"#), vec![0; 4]),
        ("overlapping tensors", format!(r#"{{{meta},"a":{{"dtype":"F32","shape":[2],"data_offsets":[0,8]}},"b":{{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}}}"#), vec![0; 12]),
        ("end before start", format!(r#"{{{meta},"a":{{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}}}"#), vec![0; 8]),
        ("shape overflowing usize", format!(r#"{{{meta},"a":{{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}}}"#), vec![0; 8]),
        ("unknown dtype", format!(r#"{{{meta},"a":{{"dtype":"Q4","shape":[2],"data_offsets":[0,8]}}}}"#), vec![0; 8]),
    ];
    for (what, header, data) in cases {
        expect_format_err(what, &raw_file(header.len() as u64, header, data), &[]);
    }
}

/// A word-vector file: `values` as `(values.len() / dim, dim)` I8 rows (however many words
/// there are), `scales` F32; `vectors[i] * scales[i]` is the vector of word `i`.
fn vectors_file(words: &[&str], dim: usize, values: &[i8], scales: &[f32]) -> Vec<u8> {
    let mut r = BTreeMap::new();
    r.insert(
        "vectors".to_string(),
        Raw {
            dtype: Dtype::I8,
            shape: vec![values.len() / dim.max(1), dim],
            bytes: values.iter().map(|&v| v as u8).collect(),
        },
    );
    r.insert(
        "scales".to_string(),
        Raw {
            dtype: Dtype::F32,
            shape: vec![scales.len()],
            bytes: scales.iter().flat_map(|v| v.to_le_bytes()).collect(),
        },
    );
    let meta = json!({"format": 1, "dim": dim, "words": words, "source": "test", "license": "CC0"}).to_string();
    serialize_with(&r, Some(("attnscope_vectors", &meta)))
}

#[test]
fn word_vectors_load_and_reject_broken_files() {
    // "king" = [10, -20] * 0.5 = [5, -10]; "queen" = [1, 2] * 0.25 = [0.25, 0.5]; "the" = [0, 127] * 1 = [0, 127]
    let good = vectors_file(&["king", "queen", "the"], 2, &[10, -20, 1, 2, 0, 127], &[0.5, 0.25, 1.0]);
    let v = WordVectors::from_safetensors(&good).expect("valid vectors load");
    assert_eq!(v.get("king"), Some(vec![5.0, -10.0]), "king");
    assert_eq!(v.get("queen"), Some(vec![0.25, 0.5]), "queen");
    assert_eq!(v.get("the"), Some(vec![0.0, 127.0]), "the");
    assert_eq!(v.get("prince"), None, "unknown word");

    let load = |what: &str, bytes: &[u8]| {
        catch_unwind(AssertUnwindSafe(|| WordVectors::from_safetensors(bytes)))
            .unwrap_or_else(|_| panic!("{what}: WordVectors::from_safetensors panicked"))
    };
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("NaN scale", vectors_file(&["a", "b"], 2, &[1, 2, 3, 4], &[1.0, f32::NAN]), "scales"),
        ("scales too short", vectors_file(&["a", "b"], 2, &[1, 2, 3, 4], &[1.0]), "scales"),
        ("more words than rows", vectors_file(&["a", "b", "c"], 2, &[1, 2, 3, 4], &[1.0, 1.0, 1.0]), "vectors"),
        ("dim 0", vectors_file(&["a"], 0, &[], &[1.0]), "dim 0"),
        ("no words", vectors_file(&[], 2, &[], &[]), "0 words"),
        ("model metadata instead", serialize(&BTreeMap::new(), Some("{}")), "attnscope_vectors"),
    ];
    for (what, bytes, needle) in &cases {
        match load(what, bytes) {
            Ok(_) => panic!("{what}: loaded"),
            Err(e) => assert!(e.to_string().contains(needle), "{what}: message should mention {needle:?}: {e}"),
        }
    }
    for len in 0..good.len() {
        assert!(load(&format!("vectors prefix {len}"), &good[..len]).is_err(), "vectors prefix of {len} bytes loaded");
    }
}

#[test]
fn word_vectors_accept_space_separated_words_and_f16_scales() {
    // The compact form of the committed table: words as one spaced string, scales as F16.
    // "cat" = [2, 4] * 0.5 = [1, 2]; "dog" = [-8, 0] * 0.25 = [-2, 0]
    let mut r = BTreeMap::new();
    r.insert(
        "vectors".to_string(),
        Raw { dtype: Dtype::I8, shape: vec![2, 2], bytes: [2i8, 4, -8, 0].iter().map(|&v| v as u8).collect() },
    );
    r.insert(
        "scales".to_string(),
        Raw {
            dtype: Dtype::F16,
            shape: vec![2],
            bytes: [0.5f32, 0.25].iter().flat_map(|&v| half::f16::from_f32(v).to_le_bytes()).collect(),
        },
    );
    let meta = json!({"format": 1, "dim": 2, "words": "cat dog"}).to_string();
    let v = WordVectors::from_safetensors(&serialize_with(&r, Some(("attnscope_vectors", &meta)))).expect("loads");
    assert_eq!((v.get("cat"), v.get("dog"), v.len()), (Some(vec![1.0, 2.0]), Some(vec![-2.0, 0.0]), 2));
}

/// Every weight is finite, so the file loads, but at ~1e30 the scores overflow: `forward`
/// must return `Error::Numeric`, not `Ok` with NaN logits and attention rows of all zeros
/// (see `softmax_of_a_nan_row_is_not_a_masked_row` in tests/hand.rs) from which greedy
/// decoding would emit token 0 forever.
#[test]
fn overflowing_weights_are_reported() {
    let s = Spec::small();
    let mut w = s.weights(3);
    for t in w.0.values_mut() {
        t.data.iter_mut().for_each(|v| *v *= 1e30);
    }
    let model = try_load("weights x 1e30", &s.file(&w)).expect("finite weights load");
    match model.forward(&[4, 5], &[1, 4], &RunOptions::default()) {
        Err(Error::Numeric(m)) => assert!(m.contains("NaN or infinity"), "{m}"),
        Err(e) => panic!("expected a numeric overflow error, got {e}"),
        Ok(trace) => panic!("forward returned Ok with logits {:?}", trace.decoder().unwrap().logits.row_vec(0)),
    }
}

// ---------------------------------------------------------------------------------------------
// Int8 weights with per-row scales: a 2-D tensor `NAME` stored as I8 next to `NAME_scale`.

/// `w` `(rows, cols)` quantised per row as `export(int8=...)` does: `scale = max|row| / 127`
/// rounded to F16 first (when `f16`), 0 -> 1, `q = round(w / scale)` clipped to [-127, 127].
/// Returns the I8 tensor, its scale tensor, and the dequantised values `q * scale` (f32).
fn quantise(t: &random_model::Tensor, f16: bool) -> (Raw, Raw, Vec<f32>) {
    let (rows, cols) = (t.shape[0], t.shape[1]);
    let mut q = Vec::with_capacity(rows * cols);
    let mut scales = Vec::with_capacity(rows);
    let mut deq = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let row = &t.data[r * cols..(r + 1) * cols];
        let mut s = row.iter().fold(0.0f32, |m, v| m.max(v.abs())) / 127.0;
        if f16 {
            s = half::f16::from_f32(s).to_f32();
        }
        if s == 0.0 {
            s = 1.0;
        }
        scales.push(s);
        for v in row {
            let k = (v / s).round().clamp(-127.0, 127.0) as i8;
            q.push(k);
            deq.push(k as f32 * s);
        }
    }
    let q = Raw { dtype: Dtype::I8, shape: vec![rows, cols], bytes: q.iter().map(|&k| k as u8).collect() };
    let scale = if f16 {
        Raw {
            dtype: Dtype::F16,
            shape: vec![rows],
            bytes: scales.iter().flat_map(|&s| half::f16::from_f32(s).to_le_bytes()).collect(),
        }
    } else {
        Raw { dtype: Dtype::F32, shape: vec![rows], bytes: scales.iter().flat_map(|s| s.to_le_bytes()).collect() }
    };
    (q, scale, deq)
}

/// The small model with `names` stored as I8 + scales (`f16` scales or F32), and the same
/// model with those tensors stored as their dequantised F32 values.
fn int8_and_f32_files(names: &[(&str, bool)]) -> (Vec<u8>, Vec<u8>) {
    let (s, w) = small();
    let meta = s.config().to_string();
    let mut int8 = raws(&w);
    let mut f32s = raws(&w);
    for &(name, f16) in names {
        let (q, scale, deq) = quantise(w.get(name), f16);
        int8.insert(name.to_string(), q);
        int8.insert(format!("{name}_scale"), scale);
        let t = random_model::Tensor { shape: w.get(name).shape.clone(), data: deq };
        f32s.insert(name.to_string(), Raw::f32(&t));
    }
    (serialize(&int8, Some(&meta)), serialize(&f32s, Some(&meta)))
}

const INT8_TENSORS: &[(&str, bool)] = &[
    ("src_embed.weight", true),
    ("tgt_embed.weight", false),
    ("generator.weight", true),
    // any 2-D tensor may be stored this way, not only the three the demo model uses
    ("transformer.encoder.layers.0.self_attn.in_proj_weight", false),
];

#[test]
fn int8_weights_are_dequantised_row_by_row() {
    // By hand: one row [-0.5, 0, 0.25, 1.27, ...] has max |w| = 1.27 -> scale 0.01 (F32);
    // q = round(w / 0.01) = [-50, 0, 25, 127, ...]; the loader must give back q * 0.01.
    let (s, mut w) = small();
    let name = "src_embed.weight"; // (10, 8)
    w.get_mut(name).data[..4].copy_from_slice(&[-0.5, 0.0, 0.25, 1.27]);
    w.get_mut(name).data[4..8].copy_from_slice(&[0.1, -0.1, 0.0, 0.0]);
    let (q, scale, _) = quantise(w.get(name), false);
    assert_eq!(&q.bytes[..4], &[-50i8 as u8, 0, 25, 127], "q of row 0");
    assert_eq!(f32::from_le_bytes(scale.bytes[..4].try_into().unwrap()), 1.27 / 127.0, "scale of row 0");
    let mut r = raws(&w);
    r.insert(name.into(), q);
    r.insert(format!("{name}_scale"), scale);
    let model = try_load("int8 embedding", &serialize(&r, Some(&s.config().to_string()))).expect("loads");
    let s0 = 1.27f32 / 127.0;
    let table_t = &model.encoder_stack().unwrap().embed.table_t; // (d_model, vocab)
    for (c, q) in [(0, -50.0f32), (1, 0.0), (2, 25.0), (3, 127.0), (4, 10.0), (5, -10.0)] {
        assert_eq!(table_t[(c, 0)], q * s0, "row 0, column {c}: {q} * scale");
    }
}

#[test]
fn an_int8_file_runs_exactly_like_its_dequantised_f32_file() {
    let (int8, f32s) = int8_and_f32_files(INT8_TENSORS);
    assert!(int8.len() < f32s.len(), "int8 file ({} bytes) is smaller than F32 ({})", int8.len(), f32s.len());
    let a = try_load("int8", &int8).expect("the int8 file loads");
    let b = try_load("dequantised f32", &f32s).expect("the F32 file loads");
    let opts = RunOptions::default();
    let (ta, tb) =
        (a.forward(&[4, 5, 6, 3], &[1, 4, 7], &opts).unwrap(), b.forward(&[4, 5, 6, 3], &[1, 4, 7], &opts).unwrap());
    assert_eq!(ta.encoder().unwrap().memory.row_major(), tb.encoder().unwrap().memory.row_major(), "encoder memory");
    assert_eq!(ta.decoder().unwrap().logits.row_major(), tb.decoder().unwrap().logits.row_major(), "logits");
    let (ga, gb) =
        (attnscope::greedy(&a, &[4, 5, 6], &opts, 8).unwrap(), attnscope::greedy(&b, &[4, 5, 6], &opts, 8).unwrap());
    assert_eq!(ga.tokens, gb.tokens, "greedy tokens");
    // And quantisation is a small change: the dequantised file is close to the original.
    let (s, w) = small();
    let orig = try_load("original", &s.file(&w)).unwrap().forward(&[4, 5, 6, 3], &[1, 4, 7], &opts).unwrap();
    let diff = orig
        .decoder()
        .unwrap()
        .logits
        .iter()
        .zip(tb.decoder().unwrap().logits.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) });
    assert!(diff < 0.05, "int8 moved a logit by {diff}");
}

#[test]
fn int8_problems_name_the_tensor() {
    let name = "generator.weight"; // (11, 8)
    let scale = "generator.weight_scale";
    let (s, w) = small();
    let meta = s.config().to_string();
    let (q, sc, _) = quantise(w.get(name), true);
    let file = |edit: &dyn Fn(&mut BTreeMap<String, Raw>)| {
        let mut r = raws(&w);
        r.insert(name.into(), q.clone());
        r.insert(scale.into(), sc.clone());
        edit(&mut r);
        serialize(&r, Some(&meta))
    };
    let f32_scales = |values: &[f32]| Raw {
        dtype: Dtype::F32,
        shape: vec![values.len()],
        bytes: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    let mut nan = vec![1.0f32; 11];
    nan[2] = f32::NAN;
    let mut inf16 = sc.clone();
    inf16.bytes[4..6].copy_from_slice(&0x7C00u16.to_le_bytes()); // F16 +inf for row 2
    let bias_q = Raw { dtype: Dtype::I8, shape: vec![11], bytes: vec![1; 11] };
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("I8 without its scale", file(&|r| { r.remove(scale); }), vec![name, scale, "missing"]),
        ("a scale without its I8 tensor", file(&|r| { r.insert(name.into(), Raw::f32(w.get(name))); }), vec![scale, name, "not stored as I8"]),
        ("a scale of a tensor that does not exist", file(&|r| { r.insert("nothing.weight_scale".into(), f32_scales(&[1.0])); }), vec!["nothing.weight_scale", "no I8 tensor"]),
        ("scale shape too long", file(&|r| { r.insert(scale.into(), f32_scales(&[1.0; 12])); }), vec![scale, "shape", "[12]", "[11]"]),
        ("scale shape 2-D", file(&|r| { r.get_mut(scale).unwrap().shape = vec![11, 1]; }), vec![scale, "shape"]),
        ("scale dtype I32", file(&|r| { r.insert(scale.into(), Raw { dtype: Dtype::I32, shape: vec![11], bytes: vec![0; 44] }); }), vec![scale, "I32", "F32 or F16"]),
        ("scale dtype BF16", file(&|r| { r.get_mut(scale).unwrap().dtype = Dtype::BF16; }), vec![scale, "BF16"]),
        ("NaN scale", file(&|r| { r.insert(scale.into(), f32_scales(&nan)); }), vec![scale, "non-finite", "row 2"]),
        ("F16 infinite scale", file(&|r| { r.insert(scale.into(), inf16.clone()); }), vec![scale, "non-finite", "row 2"]),
        ("a scale so large the weights overflow", file(&|r| { r.insert(scale.into(), f32_scales(&[3e38; 11])); }), vec![name, "non-finite"]),
        ("I8 with the wrong shape", file(&|r| { r.get_mut(name).unwrap().shape = vec![8, 11]; }), vec![name, "shape", "[8, 11]"]),
        ("a 1-D tensor as I8", file(&|r| {
            r.insert("generator.bias".into(), bias_q.clone());
            r.insert("generator.bias_scale".into(), f32_scales(&[1.0; 11]));
        }), vec!["generator.bias", "I8", "2-D"]),
        ("I8 bytes truncated", file(&|r| { r.get_mut(name).unwrap().bytes.truncate(80); }), vec![]),
    ];
    for (what, bytes, needles) in &cases {
        expect_format_err(what, bytes, needles);
    }
    // the unbroken int8 file loads
    try_load("int8 control", &file(&|_| {})).expect("the int8 control loads");
}

#[test]
fn every_prefix_of_an_int8_file_is_rejected() {
    let (int8, _) = int8_and_f32_files(INT8_TENSORS);
    for len in (0..int8.len()).step_by(3) {
        let what = format!("int8 prefix of {len} of {} bytes", int8.len());
        assert!(try_load(&what, &int8[..len]).is_err(), "{what} loaded");
    }
}

/// A family fixture (`tests/fixtures/families/NAME.safetensors`) as tensors and config, to
/// break one way at a time.
fn family(name: &str) -> (BTreeMap<String, Raw>, Value) {
    let path = format!("{}/tests/fixtures/families/{name}.safetensors", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(path).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let tensors = st
        .tensors()
        .into_iter()
        .map(|(n, v)| (n, Raw { dtype: v.dtype(), shape: v.shape().to_vec(), bytes: v.data().to_vec() }))
        .collect();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let cfg = serde_json::from_str(&meta.metadata().as_ref().unwrap()["attnscope"]).unwrap();
    (tensors, cfg)
}

/// `name`'s file with its config edited by `edit` and its tensors by `tensors`.
fn family_file(name: &str, edit: impl FnOnce(&mut Value), tensors: impl FnOnce(&mut BTreeMap<String, Raw>)) -> Vec<u8> {
    let (mut t, mut cfg) = family(name);
    edit(&mut cfg);
    tensors(&mut t);
    serialize(&t, Some(&cfg.to_string()))
}

#[test]
fn family_files_load_unbroken() {
    for name in ["bert_mlm_gelu", "gpt2_lm", "marian_swish_scaled", "bert_none_relu_1head", "gpt2_model_relu_len1"] {
        let bytes = family_file(name, |_| {}, |_| {});
        let model = try_load(name, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(model.config.sites().len(), if name.starts_with("marian") { 3 } else { 1 }, "{name}");
    }
}

#[test]
fn family_config_problems_name_the_field() {
    let none = |_: &mut BTreeMap<String, Raw>| {};
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        (
            "unknown architecture",
            family_file("gpt2_lm", |c| c["architecture"] = json!("encoder_only_2"), none),
            vec!["encoder_only_2", "encoder_decoder"],
        ),
        (
            "decoder-only with encoder layers",
            family_file("gpt2_lm", |c| c["num_encoder_layers"] = json!(2), none),
            vec!["num_encoder_layers", "DecoderOnly"],
        ),
        (
            "decoder-only with a source vocabulary",
            family_file("gpt2_lm", |c| c["src_vocab"] = json!(["a"]), none),
            vec!["src_vocab", "DecoderOnly"],
        ),
        (
            "encoder-only without layers",
            family_file("bert_mlm_gelu", |c| c["num_encoder_layers"] = json!(0), none),
            vec!["num_encoder_layers"],
        ),
        (
            "encoder-only with decoder layers",
            family_file("bert_mlm_gelu", |c| c["num_decoder_layers"] = json!(1), none),
            vec!["num_decoder_layers", "EncoderOnly"],
        ),
        (
            "an MLM head on a decoder-only model",
            family_file("gpt2_lm", |c| c["head"] = json!("mlm"), none),
            vec!["head", "Mlm"],
        ),
        (
            "no head on an encoder-decoder",
            family_file("marian_swish_scaled", |c| c["head"] = json!("none"), none),
            vec!["head"],
        ),
        ("unknown head", family_file("gpt2_lm", |c| c["head"] = json!("classifier"), none), vec!["classifier"]),
        (
            "unknown activation",
            family_file("gpt2_lm", |c| c["activation"] = json!("gelu_fast"), none),
            vec!["gelu_fast", "gelu_tanh"],
        ),
        (
            "a mask outside the vocabulary",
            family_file("bert_mlm_gelu", |c| c["specials"]["mask"] = json!("[NOPE]"), none),
            vec!["[NOPE]", "missing"],
        ),
        (
            "a source prefix outside the vocabulary",
            family_file("bert_mlm_gelu", |c| c["tokenizer"]["source_prefix"] = json!(["[NOPE]"]), none),
            vec!["[NOPE]", "source_prefix"],
        ),
        (
            "token types on a decoder-only model",
            family_file("gpt2_lm", |c| c["type_vocab_size"] = json!(2), none),
            vec!["type_vocab_size"],
        ),
        (
            "absurd token types",
            family_file("bert_mlm_gelu", |c| c["type_vocab_size"] = json!(1u64 << 40), none),
            vec!["type_vocab_size"],
        ),
        (
            "a string for a flag",
            family_file("bert_mlm_gelu", |c| c["embed_norm"] = json!("yes"), none),
            vec!["\"yes\"", "boolean"],
        ),
    ];
    for (what, bytes, needles) in cases {
        expect_format_err(what, &bytes, &needles);
    }
}

#[test]
fn family_tensor_problems_name_the_tensor() {
    let same = |_: &mut Value| {};
    let cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        (
            "no token-type table",
            family_file("bert_mlm_gelu", same, |t| {
                t.remove("src_type.weight");
            }),
            vec!["src_type.weight", "missing"],
        ),
        (
            "no embedding norm",
            family_file("bert_mlm_gelu", same, |t| {
                t.remove("src_embed_norm.bias");
            }),
            vec!["src_embed_norm.bias", "missing"],
        ),
        (
            "no MLM transform",
            family_file("bert_mlm_gelu", same, |t| {
                t.remove("mlm.dense.weight");
            }),
            vec!["mlm.dense.weight", "missing"],
        ),
        (
            "a generator weight beside tied embeddings",
            family_file("gpt2_lm", same, |t| {
                let w = t["tgt_embed.weight"].clone();
                t.insert(
                    "generator.weight".into(),
                    Raw { dtype: w.dtype, shape: w.shape.clone(), bytes: w.bytes.clone() },
                );
            }),
            vec!["generator.weight", "unexpected"],
        ),
        (
            "untied but no generator weight",
            family_file("gpt2_lm", |c| c["tie_embeddings"] = json!(false), |_| {}),
            vec!["generator.weight", "missing"],
        ),
        (
            "a bias the config does not ask for",
            family_file("gpt2_lm", same, |t| {
                t.insert("generator.bias".into(), Raw { dtype: Dtype::F32, shape: vec![50], bytes: vec![0; 200] });
            }),
            vec!["generator.bias", "unexpected"],
        ),
        (
            "cross-attention in a decoder-only model",
            family_file("gpt2_lm", same, |t| {
                let w = t["transformer.decoder.layers.0.norm1.weight"].clone();
                t.insert(
                    "transformer.decoder.layers.0.norm2.weight".into(),
                    Raw { dtype: w.dtype, shape: w.shape.clone(), bytes: w.bytes.clone() },
                );
            }),
            vec!["norm2", "unexpected"],
        ),
        (
            "a final norm the config leaves out",
            family_file("gpt2_lm", |c| c["final_norm"] = json!(false), |_| {}),
            vec!["transformer.decoder.norm", "unexpected"],
        ),
        (
            "a learned position table of the wrong length",
            family_file("bert_mlm_gelu", |c| c["max_len"] = json!(8), |_| {}),
            vec!["src_pos.weight", "shape"],
        ),
    ];
    for (what, bytes, needles) in cases {
        expect_format_err(what, &bytes, &needles);
    }
}

#[test]
fn every_prefix_of_a_family_file_is_rejected() {
    for name in ["bert_mlm_gelu", "gpt2_lm", "marian_relu_odd_d"] {
        let bytes = family_file(name, |_| {}, |_| {});
        for cut in (0..bytes.len()).step_by(97) {
            assert!(try_load(name, &bytes[..cut]).is_err(), "{name}: a prefix of {cut} bytes loaded");
        }
    }
}
