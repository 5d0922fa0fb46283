//! The engine on the real pretrained all-MiniLM-L6-v2 (sentence-transformers), against Hugging Face
//! `transformers`: a committed slice of it (its first two layers as published, the layer matrices
//! rounded to F16, the vocabulary cut to the tokens of five sentences plus the specials), made by
//! `train/make_minilm_slice.py` through `train/convert.py` (train/FIXTURES.md, "MiniLM slice").
//! Every sentence goes through the file's own WordPiece tokenizer, then the engine; the embedding
//! output, each layer's output and every head's attention weights must agree with `BertModel`'s
//! float64 run (eager attention, the same F16-rounded weights) within 1e-4.
#![cfg(all(feature = "subword", not(target_arch = "wasm32")))]

mod common;
use attnscope::subword::{Subword, SubwordConfig};
use attnscope::{Model, Stack};
use common::*;
use std::path::PathBuf;

const TOL: f32 = 1e-4;
const NAME: &str = "minilm_slice";

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minilm")
}

/// The sentences the expected file was made from (`__metadata__["sentences"]`, a JSON list).
fn sentences(exp: &Expected) -> Vec<String> {
    let (_, meta) = safetensors::SafeTensors::read_metadata(&exp.bytes).expect("the expected file's header");
    let json = meta.metadata().as_ref().and_then(|m| m.get("sentences")).expect("metadata \"sentences\"").clone();
    serde_json::from_str(&json).expect("\"sentences\" is a JSON list of strings")
}

/// Largest difference of the engine from `transformers` on sentence `n`, per tensor:
/// (embedding output, layer outputs, attention weights).
fn differences(model: &Model, exp: &Expected, n: usize, src: &[u32]) -> [f32; 3] {
    let trace = model.forward(src, &[], &exp.options()).unwrap_or_else(|e| panic!("sentence {n}: {e}"));
    let enc = trace.encoder.as_ref().expect("an encoder-only model has an encoder trace");
    // (S, d); (L, S, d); (L, H, S, S), row-major as transformers returns them
    let embed = enc.embed.input.row_major();
    let hidden: Vec<f32> = enc.layers.iter().flat_map(|l| l.ffn.output().row_major()).collect();
    let attn: Vec<f32> =
        trace.site(Stack::Encoder).iter().flat_map(|a| a.heads.iter().flat_map(|h| h.weights.row_major())).collect();
    let t = |what: &str| exp.tensor(&format!("s{n}.{what}")).data;
    [
        max_diff(&format!("s{n} embed.encoder"), &embed, &t("embed.encoder")),
        max_diff(&format!("s{n} hidden.encoder"), &hidden, &t("hidden.encoder")),
        max_diff(&format!("s{n} attn.encoder"), &attn, &t("attn.encoder")),
    ]
}

#[test]
fn the_slice_matches_transformers_on_every_sentence() {
    let model = load_model_in(&dir(), NAME);
    let exp = Expected::load_in(&dir(), NAME);
    assert_eq!(
        (model.config.num_encoder_layers, model.config.nhead, model.config.d_model),
        (2, 12, 384),
        "the slice should be two layers of MiniLM (12 heads, d_model 384)"
    );
    let texts = sentences(&exp);
    assert!(texts.len() >= 4, "only {} sentences in the fixture", texts.len());
    let mut worst = [0.0f32; 3];
    for (n, text) in texts.iter().enumerate() {
        // the file's own WordPiece gives transformers' ids
        let enc = model.tokenizer.encode_src(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let want = exp.ids(&format!("s{n}.src_ids"));
        assert_eq!(
            enc.ids, want,
            "{text:?}: the slice's tokenizer gives other ids than transformers' ({:?})",
            enc.tokens
        );
        assert!(enc.unknown.is_empty(), "{text:?}: unknown pieces at {:?}", enc.unknown);
        let d = differences(&model, &exp, n, &enc.ids);
        for (what, v) in ["embedding output", "layer outputs", "attention weights"].iter().zip(d) {
            assert!(v <= TOL, "{text:?}: {what} differ from transformers by {v:e} (> {TOL:e})");
        }
        println!(
            "s{n} ({} tokens) max |diff|: embed {:.1e}, hidden {:.1e}, attention {:.1e}",
            enc.ids.len(),
            d[0],
            d[1],
            d[2]
        );
        for (w, v) in worst.iter_mut().zip(d) {
            *w = w.max(v);
        }
    }
    println!(
        "{} sentences; worst: embed {:.1e}, hidden {:.1e}, attention {:.1e}",
        texts.len(),
        worst[0],
        worst[1],
        worst[2]
    );
}

/// The slice's vocabulary (token by id), from the model file's `attnscope` metadata.
fn slice_vocab() -> Vec<String> {
    let bytes = std::fs::read(dir().join(format!("{NAME}.safetensors"))).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).expect("the model file's header");
    let json = meta.metadata().as_ref().and_then(|m| m.get("attnscope")).expect("metadata \"attnscope\"").clone();
    let v: serde_json::Value = serde_json::from_str(&json).expect("the attnscope metadata is JSON");
    serde_json::from_value(v["src_vocab"].clone()).expect("src_vocab is a list of strings")
}

#[test]
fn the_full_wordpiece_gives_the_real_ids_and_the_slice_keeps_their_pieces() {
    // The vocabulary was cut, so the slice's ids are renumbered: the real tokenizer's ids
    // (`real_ids`, 30,522 tokens) come from the full uncased WordPiece of all-MiniLM-L6-v2
    // (tests/fixtures/tokenizers/bert-uncased.json), and name the same pieces as the slice's ids.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers/bert-uncased.json");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let meta = &doc["metadata"];
    let cfg: SubwordConfig = serde_json::from_value(meta["subword"].clone()).unwrap();
    let vocab: Vec<String> = serde_json::from_value(meta["vocab"].clone()).unwrap();
    assert_eq!(vocab.len(), 30522);
    let full = Subword::new(&cfg, &vocab, Some("[UNK]")).unwrap();
    let id = |t: &str| vocab.iter().position(|v| v == t).unwrap() as u32;
    let exp = Expected::load_in(&dir(), NAME);
    let slice_vocab = slice_vocab();
    for (n, text) in sentences(&exp).iter().enumerate() {
        let mut ids = vec![id("[CLS]")];
        ids.extend(full.encode_ids(text));
        ids.push(id("[SEP]"));
        let real = exp.ids(&format!("s{n}.real_ids"));
        assert_eq!(ids, real, "{text:?}: the full WordPiece differs from transformers' tokenizer");
        let pieces = |v: &[String], ids: &[u32]| ids.iter().map(|&i| v[i as usize].clone()).collect::<Vec<_>>();
        assert_eq!(
            pieces(&slice_vocab, &exp.ids(&format!("s{n}.src_ids"))),
            pieces(&vocab, &real),
            "{text:?}: the slice's ids name other pieces"
        );
    }
}

#[test]
fn one_changed_weight_breaks_the_agreement() {
    // The comparison can fail: one query weight of layer 0 (row 0, so head 0) moved by 0.5 in
    // the file must move head 0's attention and the layer outputs by more than the tolerance.
    let path = dir().join(format!("{NAME}.safetensors"));
    let mut bytes = std::fs::read(&path).unwrap();
    let name = "transformer.encoder.layers.0.self_attn.in_proj_weight";
    let offset = {
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let view = st.tensor(name).unwrap();
        assert_eq!(view.dtype(), safetensors::Dtype::F16, "{name} is stored F16");
        view.data().as_ptr() as usize - bytes.as_ptr() as usize
    };
    let w = half::f16::from_le_bytes([bytes[offset], bytes[offset + 1]]);
    bytes[offset..offset + 2].copy_from_slice(&half::f16::from_f32(w.to_f32() + 0.5).to_le_bytes());
    let model = Model::from_safetensors(&bytes).unwrap();
    let exp = Expected::load_in(&dir(), NAME);
    let src = exp.ids("s0.src_ids");
    let [embed, hidden, attn] = differences(&model, &exp, 0, &src);
    assert!(embed <= TOL, "the embeddings do not use {name}, yet differ by {embed:e}");
    assert!(hidden > TOL && attn > TOL, "a changed weight still agrees: hidden {hidden:e}, attention {attn:e}");
    println!("one weight + 0.5: hidden {hidden:.1e}, attention {attn:.1e}");
}
