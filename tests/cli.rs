//! The `attnscope` binary, run as a user would: its JSON against the PyTorch fixtures, the
//! option flags, the text path, and every kind of bad input (one stderr line, the documented
//! exit code, never a panic).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const TOL: f32 = 1e-4;
const BIN: &str = env!("CARGO_BIN_EXE_attnscope");

fn model_path(name: &str) -> String {
    fixture_dir().join(format!("{name}.safetensors")).to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the attnscope binary runs")
}

fn ids_arg(ids: &[u32]) -> String {
    ids.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// The command-line flags that express a fixture's run options (`None` when it has overrides,
/// which the CLI cannot express).
fn flags_for(exp: &Expected) -> Option<Vec<String>> {
    let o = exp.options();
    if !o.overrides.is_empty() {
        return None;
    }
    let mut flags = vec!["--heads".to_string(), o.heads.unwrap().to_string()];
    let mut flag = |on: bool, name: &str| {
        if on {
            flags.push(name.to_string())
        }
    };
    flag(!o.scale, "--no-scale");
    flag(!o.causal_decoder, "--no-causal-mask");
    flag(o.causal_encoder, "--causal-encoder");
    flag(!o.positional, "--no-positional");
    if !o.knock_out.is_empty() {
        let heads: Vec<String> = o.knock_out.iter().map(|k| k.to_string()).collect();
        flags.extend(["--knock-out".to_string(), heads.join(",")]);
    }
    Some(flags)
}

/// Parse stdout as the one JSON object `forward` prints (and check it is one line).
fn json_of(out: &Output, what: &str) -> Value {
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(
        out.status.success(),
        "{what}: exit {:?}, stderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.lines().count(), 1, "{what}: forward must print one line of JSON");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{what}: stdout is not JSON: {e}"))
}

/// Flatten nested JSON arrays of numbers, row-major, and record the nesting shape.
fn flatten(v: &Value, shape: &mut Vec<usize>, depth: usize, out: &mut Vec<f32>) {
    match v {
        Value::Array(items) => {
            if shape.len() <= depth {
                shape.push(items.len());
            }
            for item in items {
                flatten(item, shape, depth + 1, out);
            }
        }
        Value::Number(n) => out.push(n.as_f64().unwrap() as f32),
        other => panic!("expected a number, got {other}"),
    }
}

fn tensor_of(v: &Value) -> Tensor {
    let (mut shape, mut data) = (Vec::new(), Vec::new());
    flatten(v, &mut shape, 0, &mut data);
    Tensor { shape, data }
}

/// `forward`'s tensors by the names of the fixtures' expected files (`Null` where it has none).
fn tensors_of(json: &Value) -> [(&'static str, &Value); 6] {
    [
        ("encoder_output", &json["encoder_output"]),
        ("decoder_output", &json["decoder_output"]),
        ("logits", &json["logits"]),
        ("attn.encoder", &json["attention"]["encoder"]),
        ("attn.decoder_self", &json["attention"]["decoder_self"]),
        ("attn.cross", &json["attention"]["cross"]),
    ]
}

/// Largest difference between the CLI's tensors and the fixture's, over every compared tensor.
fn worst_diff(name: &str, json: &Value, exp: &Expected) -> f32 {
    let pairs = tensors_of(json);
    let mut worst: f32 = 0.0;
    for (what, got) in pairs {
        let got = tensor_of(got);
        let want = exp.tensor(what);
        assert_eq!(got.shape, want.shape, "{name}: {what} has shape {:?}, expected {:?}", got.shape, want.shape);
        worst = worst.max(max_diff(&format!("{name} {what}"), &got.data, &want.data));
    }
    worst
}

fn forward_ids(name: &str, src: &[u32], tgt: &[u32], flags: &[String]) -> Value {
    let model = model_path(name);
    let (src, tgt) = (ids_arg(src), ids_arg(tgt));
    let mut args = vec!["forward", "--model", &model, "--src-ids", &src, "--tgt-ids", &tgt];
    args.extend(flags.iter().map(String::as_str));
    json_of(&run(&args), &format!("{name} {args:?}"))
}

#[test]
fn forward_with_ids_matches_every_expressible_fixture() {
    let mut checked = 0;
    for name in fixture_names() {
        let exp = Expected::load(&name);
        let Some(flags) = flags_for(&exp) else { continue };
        let (src, tgt) = (exp.ids("src_ids"), exp.ids("tgt_ids"));
        let json = forward_ids(&name, &src, &tgt, &flags);
        let d = worst_diff(&name, &json, &exp);
        assert!(d <= TOL, "{name} with {flags:?}: the CLI differs from PyTorch by {d:e}");
        let ids = |k: &str| -> Vec<u32> { serde_json::from_value(json[k].clone()).unwrap() };
        assert_eq!(ids("src_ids"), src, "{name}: src_ids echoed");
        assert_eq!(ids("tgt_ids"), tgt, "{name}: tgt_ids echoed (verbatim, no <bos> added)");
        assert_eq!(json["unknown"], Value::Array(vec![]), "{name}: ids have no unknown words");
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures could be run through the CLI");
}

/// Each option flag really reaches the engine: the fixture that needs a flag matches with it
/// and clearly does not match without it.
#[test]
fn each_flag_is_needed_by_its_fixture() {
    let cases: &[(&str, &[&str])] = &[
        ("mask_flip", &["--no-causal-mask", "--causal-encoder"]),
        ("mask_flip", &["--no-causal-mask"]),
        ("mask_flip", &["--causal-encoder"]),
        ("no_scale", &["--no-scale"]),
        ("nopos_sinusoidal", &["--no-positional"]),
        ("heads_resplit", &["--heads", "6"]),
        ("knock_out_post", &["--knock-out"]),
        ("knock_out_layers_pre", &["--knock-out"]),
    ];
    for &(name, needed) in cases {
        let exp = Expected::load(name);
        let all = flags_for(&exp).unwrap();
        let (src, tgt) = (exp.ids("src_ids"), exp.ids("tgt_ids"));
        let with = forward_ids(name, &src, &tgt, &all);
        let d = worst_diff(name, &with, &exp);
        assert!(d <= TOL, "{name} with {all:?} differs by {d:e}");
        // Drop the flags under test (and "--heads N", "--knock-out HEADS" as pairs) and expect a
        // mismatch.
        let mut without = Vec::new();
        let mut i = 0;
        while i < all.len() {
            let skip = if all[i] == "--heads" || all[i] == "--knock-out" { 2 } else { 1 };
            if !needed.contains(&all[i].as_str()) {
                without.extend_from_slice(&all[i..i + skip]);
            }
            i += skip;
        }
        let json = forward_ids(name, &src, &tgt, &without);
        let shapes_differ = tensor_of(&json["attention"]["encoder"]).shape != exp.tensor("attn.encoder").shape;
        let d = if shapes_differ { f32::INFINITY } else { worst_diff(name, &json, &exp) };
        assert!(d > 1e-3, "{name}: dropping {needed:?} (running {without:?}) still matches (diff {d:e})");
    }
}

/// `--src TEXT` and `--tgt TEXT` go through the tokenizer: the fixture's ids written as words
/// (id 3 is `<unk>`, so an unknown word stands for it) give the fixture's tensors.
#[test]
fn forward_with_text_matches_the_fixture() {
    let name = "nopos_sinusoidal"; // src ids [4, 5, 3, 7, 10, 6], tgt ids [1, 7, 7, 14, 18]
    let exp = Expected::load(name);
    let (src, tgt) = (exp.ids("src_ids"), exp.ids("tgt_ids"));
    assert_eq!(tgt[0], 1, "tgt_ids start with <bos>");
    let word = |id: u32| if id == 3 { "Zebra".to_string() } else { format!("W{id}") }; // lowercased by the tokenizer
    let src_text = src.iter().map(|&i| word(i)).collect::<Vec<_>>().join("  ");
    let tgt_text = tgt[1..].iter().map(|&i| format!("w{i}")).collect::<Vec<_>>().join(" ");
    let model = model_path(name);
    let out = run(&["forward", "--model", &model, "--src", &src_text, "--tgt", &tgt_text, "--no-positional"]);
    let json = json_of(&out, &format!("{name} --src {src_text:?} --tgt {tgt_text:?}"));
    let d = worst_diff(name, &json, &exp);
    assert!(d <= TOL, "{name} via text differs by {d:e}");

    let strings = |k: &str| -> Vec<String> { serde_json::from_value(json[k].clone()).unwrap() };
    let src_ids: Vec<u32> = serde_json::from_value(json["src_ids"].clone()).unwrap();
    let tgt_ids: Vec<u32> = serde_json::from_value(json["tgt_ids"].clone()).unwrap();
    assert_eq!(src_ids, src, "src_ids of {src_text:?}");
    assert_eq!(tgt_ids, tgt, "tgt_ids of {tgt_text:?} must be <bos> + the tokens");
    assert_eq!(strings("src_tokens"), ["w4", "w5", "zebra", "w7", "w10", "w6"], "src_tokens of {src_text:?}");
    assert_eq!(strings("tgt_tokens"), ["<bos>", "w7", "w7", "w14", "w18"], "tgt_tokens of {tgt_text:?}");
    assert_eq!(strings("unknown"), ["zebra"], "unknown words of {src_text:?}");
}

#[test]
fn forward_output_has_the_documented_shapes() {
    // tiny_post_relu: d_model 8, 2 heads, 1 + 1 layers, tgt vocab 12 (FIXTURES.md).
    let json = forward_ids("tiny_post_relu", &[4, 5, 6], &[1, 7], &[]);
    let shape = |v: &Value| tensor_of(v).shape;
    let cases: &[(&str, &Value, &[usize])] = &[
        ("encoder_output", &json["encoder_output"], &[3, 8]),
        ("decoder_output", &json["decoder_output"], &[2, 8]),
        ("logits", &json["logits"], &[2, 12]),
        ("attention.encoder", &json["attention"]["encoder"], &[1, 2, 3, 3]),
        ("attention.decoder_self", &json["attention"]["decoder_self"], &[1, 2, 2, 2]),
        ("attention.cross", &json["attention"]["cross"], &[1, 2, 2, 3]),
    ];
    for (what, v, want) in cases {
        assert_eq!(shape(v), *want, "shape of {what}");
    }
    let tokens: Vec<String> = serde_json::from_value(json["tgt_tokens"].clone()).unwrap();
    assert_eq!(tokens, ["<bos>", "w7"], "tgt_tokens of ids 1,7");
}

#[test]
fn translate_prints_the_greedy_translation_per_text() {
    let name = "tiny_post_relu";
    let model = load_model(name);
    let texts = ["w4 w5 w6", "W7  w8", "w9 unknownword"];
    let mut args = vec!["translate", "--model"];
    let path = model_path(name);
    args.push(&path);
    args.extend(texts);
    let out = run(&args);
    assert!(out.status.success(), "translate {texts:?}: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), texts.len(), "one line per text, got {stdout:?}");
    for (text, line) in texts.iter().zip(&lines) {
        let enc = model.tokenizer.encode_src(text).unwrap();
        let opts = attnscope::RunOptions::default();
        let dec = attnscope::greedy(&model, &enc.ids, &opts, model.config.max_len).unwrap();
        // (a generated <unk> prints as the copied source word: tests/copy.rs)
        assert_eq!(*line, dec.text(&model.tokenizer, &enc.tokens), "translation of {text:?}");
    }
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warnings = stderr.lines().filter(|l| l.starts_with("attnscope: warning: ")).count();
    assert_eq!(warnings, 1, "one warning line (for the third text), got {stderr:?}");
    assert!(stderr.contains("unknownword"), "the warning names the unknown word: {stderr:?}");
}

#[test]
fn translate_flags_reach_the_engine() {
    // Each flag gives the library's greedy translation under the same options, and each changes
    // the translation of this text (so a flag the CLI dropped would show).
    let name = "pre_gelu_learned"; // d_model 16, learned positions
    let model = load_model(name);
    let path = model_path(name);
    let text = "w4 w5 w6 w7";
    let enc = model.tokenizer.encode_src(text).unwrap();
    let library = |opts: &attnscope::RunOptions| {
        let dec = attnscope::greedy(&model, &enc.ids, opts, model.config.max_len).unwrap();
        dec.text(&model.tokenizer, &enc.tokens)
    };
    let default = library(&attnscope::RunOptions::default());
    let with = |f: fn(&mut attnscope::RunOptions)| {
        let mut o = attnscope::RunOptions::default();
        f(&mut o);
        o
    };
    let cases: [(&[&str], attnscope::RunOptions); 4] = [
        (&["--no-scale"], with(|o| o.scale = false)),
        (&["--no-positional"], with(|o| o.positional = false)),
        (&["--heads", "8"], with(|o| o.heads = Some(8))),
        (
            &["--heads", "8", "--no-scale", "--no-positional"],
            with(|o| {
                o.heads = Some(8);
                o.scale = false;
                o.positional = false;
            }),
        ),
    ];
    for (flags, opts) in cases {
        let want = library(&opts);
        assert_ne!(want, default, "{flags:?} leaves the translation of {text:?} as it is: the check could not fail");
        let mut args = vec!["translate", "--model", &path];
        args.extend(flags);
        args.push(text);
        let out = run(&args);
        assert!(out.status.success(), "{flags:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{want}\n"), "translate {flags:?}");
    }
    // With a non-divisor head count translate must fail.
    let bad = run(&["translate", "--model", &path, "--heads", "3", "w4 w5"]);
    assert_eq!(bad.status.code(), Some(2), "--heads 3 on d_model 16");
}

#[test]
fn importance_ranks_every_head_as_the_library_does() {
    let name = "pre_gelu_learned"; // 4 heads, 2 encoder and 3 decoder layers: 4 * (2 + 3 + 3) heads
    let model = load_model(name);
    let path = model_path(name);
    let out = run(&["importance", "--model", &path, "--knock-out", "c3h1", "w4 w5 w6"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2 + 32, "translation, header, one line per head: {stdout}");
    assert_eq!(lines[1], "rank\thead\tdelta\tlog_prob");
    let enc = model.tokenizer.encode_src("w4 w5 w6").unwrap();
    let opts =
        attnscope::RunOptions { knock_out: attnscope::HeadRef::parse_list("c3h1").unwrap(), ..Default::default() };
    let dec = attnscope::greedy(&model, &enc.ids, &opts, model.config.max_len).unwrap();
    let imp = attnscope::analysis::head_importance(&model, &enc.ids, &dec.tokens, &opts).unwrap();
    assert_eq!(lines[0], format!("{}\tlog p = {:.4}", dec.text(&model.tokenizer, &enc.tokens), imp.base));
    for (rank, (line, &i)) in lines[2..].iter().zip(&imp.ranking).enumerate() {
        let h = &imp.heads[i];
        assert_eq!(*line, format!("{}\t{}\t{:.4}\t{:.4}", rank + 1, h.head, h.delta, h.log_prob));
    }
    assert!(stdout.contains("\tc3h1\t0.0000\t"), "the head already knocked out scores 0");
    // --json: the same ranking
    let out = run(&["importance", "--model", &path, "--json", "--knock-out", "c3h1", "w4 w5 w6"]);
    let json = json_of(&out, "importance --json");
    let heads = json["heads"].as_array().unwrap();
    assert_eq!(heads.len(), 32);
    assert_eq!(heads[0]["head"], imp.heads[imp.ranking[0]].head.to_string());
    assert_eq!(json["base"].as_f64().unwrap() as f32, imp.base);
}

#[test]
fn info_prints_the_config_without_vocabularies() {
    // Values from the FIXTURES.md table for pre_gelu_learned.
    let path = model_path("pre_gelu_learned");
    let out = run(&["info", "--model", &path]);
    assert!(out.status.success(), "info: {}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("info prints JSON");
    let cases: &[(&str, Value)] = &[
        ("d_model", 16.into()),
        ("nhead", 4.into()),
        ("num_encoder_layers", 2.into()),
        ("num_decoder_layers", 3.into()),
        ("dim_feedforward", 24.into()),
        ("norm_first", true.into()),
        ("activation", "gelu".into()),
        ("positional", "learned".into()),
        ("scale_embedding", false.into()),
        ("src_vocab_size", 23.into()),
        ("tgt_vocab_size", 17.into()),
    ];
    for (key, want) in cases {
        assert_eq!(&json[key], want, "info field {key}");
    }
    for key in ["src_vocab", "tgt_vocab"] {
        assert!(json.get(key).is_none(), "info must not print {key}");
    }
}

/// A scratch file under the target directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, bytes: &[u8]) -> Scratch {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        Scratch(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn assert_clean_failure(args: &[&str], code: i32, needle: &str) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: exit code (stderr {stderr:?})");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: stderr must be one line, got {stderr:?}");
    assert!(stderr.starts_with("attnscope: error: "), "{args:?}: stderr {stderr:?}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr:?}");
    assert!(
        stderr.to_lowercase().contains(&needle.to_lowercase()),
        "{args:?}: the message should mention {needle:?}: {stderr:?}"
    );
    assert!(
        out.stdout.is_empty(),
        "{args:?}: nothing on stdout on error, got {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_input_gives_one_line_and_an_exit_code() {
    let m = model_path("tiny_post_relu"); // d_model 8, src vocab 10, tgt vocab 12
    let good = std::fs::read(&m).unwrap();
    let truncated = Scratch::new("truncated.safetensors", &good[..good.len() / 2]);
    let not_model = Scratch::new("text.safetensors", b"this is not a model file at all");
    let empty = Scratch::new("empty.safetensors", b"");
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-model.safetensors");
    let missing = missing.to_str().unwrap();
    let dir = fixture_dir();
    let dir = dir.to_str().unwrap();
    let t = truncated.path();
    #[rustfmt::skip]
    let cases: &[(&[&str], i32, &str)] = &[
        // usage errors (2)
        (&[], 2, "command"),
        (&["forward"], 2, "--model"),
        (&["frobnicate"], 2, "frobnicate"),
        (&["forward", "--model", &m, "--tgt-ids", "1"], 2, "--src"),
        (&["forward", "--model", &m, "--src-ids", "3"], 2, "--tgt"),
        (&["forward", "--model", &m, "--src-ids", "3,x", "--tgt-ids", "1"], 2, "\"x\""),
        (&["forward", "--model", &m, "--src-ids", "3,,4", "--tgt-ids", "1"], 2, "token id"),
        (&["forward", "--model", &m, "--src-ids", "-1", "--tgt-ids", "1"], 2, "-1"),
        (&["forward", "--model", &m, "--src-ids", "", "--tgt-ids", "1"], 2, "no ids"),
        (&["forward", "--model", &m, "--src-ids", "4294967296", "--tgt-ids", "1"], 2, "4294967296"),
        (&["forward", "--model", &m, "--src-ids", "3", "--src", "w4", "--tgt-ids", "1"], 2, "cannot be used"),
        (&["forward", "--model", &m, "--src-ids", "10", "--tgt-ids", "1"], 2, "source id 10"),
        (&["forward", "--model", &m, "--src-ids", "3", "--tgt-ids", "1,12"], 2, "target id 12"),
        (&["forward", "--model", &m, "--src-ids", "3", "--tgt-ids", "1", "--heads", "3"], 2, "3 heads"),
        (&["forward", "--model", &m, "--src-ids", "3", "--tgt-ids", "1", "--heads", "0"], 2, "0 heads"),
        (&["forward", "--model", &m, "--src-ids", "3", "--tgt-ids", "1", "--heads", "x"], 2, "--heads"),
        (&["forward", "--model", &m, "--src", "", "--tgt-ids", "1"], 2, "empty"),
        (&["forward", "--model", &m, "--src", " \t ", "--tgt-ids", "1"], 2, "empty"),
        (&["forward", "--model", &m, "--src-ids", "3", "--tgt", "  "], 2, "empty"),
        (&["forward", "--model", &m, "--src-ids", "3", "--tgt-ids", "1", "--bogus"], 2, "--bogus"),
        (&["translate", "--model", &m], 2, "TEXT"),
        (&["translate", "--model", &m, "w4", ""], 2, "empty"),
        (&["translate", "--model", &m, "--heads", "5", "w4"], 2, "5 heads"),
        (&["translate", "--model", &m, "--knock-out", "x1h1", "w4"], 2, "\"x1h1\" is not a head"),
        (&["translate", "--model", &m, "--knock-out", "e1h0", "w4"], 2, "e1h2"),
        (&["translate", "--model", &m, "--knock-out", "e2h1", "w4"], 2, "knock-out e2h1"),
        (&["translate", "--model", &m, "--knock-out", "c1h3", "w4"], 2, "2 heads"),
        (&["importance", "--model", &m], 2, "TEXT"),
        (&["importance", "--model", &m, "--knock-out", "s1h9", "w4"], 2, "knock-out s1h9"),
        (&["info"], 2, "--model"),
        // runtime errors (1): the model file
        (&["forward", "--model", missing, "--src-ids", "3", "--tgt-ids", "1"], 1, "no-such-model"),
        (&["info", "--model", dir], 1, "cannot read"),
        (&["forward", "--model", t, "--src-ids", "3", "--tgt-ids", "1"], 1, "invalid file"),
        (&["translate", "--model", not_model.path(), "w4"], 1, "invalid file"),
        (&["info", "--model", empty.path()], 1, "too short"),
    ];
    for (args, code, needle) in cases {
        assert_clean_failure(args, *code, needle);
    }
}

#[test]
fn help_and_version_succeed() {
    let help = run(&["forward", "--help"]);
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(text.contains("<bos>"), "forward --help documents that --tgt gets <bos> prepended: {text}");
    let version = run(&["--version"]);
    assert!(version.status.success());
    assert!(String::from_utf8(version.stdout).unwrap().contains(env!("CARGO_PKG_VERSION")));
}

/// Close the reading end of stdout (after reading the first line when `read_first`, else at
/// once, before the program has written anything) and expect a quiet, successful end.
fn closed_pipe_case(args: &[&str], read_first: bool) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the attnscope binary runs");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    if read_first {
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "{args:?}: some output before the pipe closes");
    }
    drop(stdout); // the reader goes away, like `| head -1`
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(!stderr.contains("error"), "{args:?}: a closed pipe is not an error: {stderr}");
    assert!(status.success(), "{args:?}: exit {:?} after the reader left", status.code());
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // long40's forward JSON (8 heads x 2 layers x 40 x 40 x 3 attentions) is far larger than a
    // pipe buffer, so the writes after the first line fail with EPIPE.
    let m = model_path("long40");
    let src: Vec<u32> = (4..44).collect();
    let src = ids_arg(&src);
    closed_pipe_case(&["forward", "--model", &m, "--src-ids", &src, "--tgt-ids", &src, "--pretty"], true);
    // Closed before the first write: every command's first write fails.
    let tiny = model_path("tiny_post_relu");
    closed_pipe_case(&["forward", "--model", &tiny, "--src-ids", "4", "--tgt-ids", "1"], false);
    closed_pipe_case(&["translate", "--model", &tiny, "--max-steps", "2", "w4", "w5 w6"], false);
    closed_pipe_case(&["info", "--model", &tiny], false);
}

/// `forward` on a family fixture, ids given for the sides the model has, with its flags.
fn forward_family(name: &str, exp: &Expected) -> Value {
    let model = families_dir().join(format!("{name}.safetensors")).to_string_lossy().into_owned();
    let mut args: Vec<String> = vec!["forward".into(), "--model".into(), model];
    for (side, flag) in [("src_ids", "--src-ids"), ("tgt_ids", "--tgt-ids")] {
        if exp.has(side) {
            args.extend([flag.to_string(), ids_arg(&exp.ids(side))]);
        }
    }
    args.extend(flags_for(exp).expect("family fixtures have no overrides"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json_of(&run(&args), &format!("{name} {args:?}"))
}

#[test]
fn forward_prints_what_each_family_has_and_matches_transformers() {
    let dir = families_dir();
    for name in names_in(&dir) {
        let exp = Expected::load_in(&dir, &name);
        let json = forward_family(&name, &exp);
        let pairs = tensors_of(&json);
        for (what, got) in pairs {
            // present in the JSON exactly when the reference has it (nothing a model lacks)
            assert_eq!(!got.is_null(), exp.has(what), "{name}: {what} present in the JSON vs the reference");
            if got.is_null() {
                continue;
            }
            let got = tensor_of(got);
            let want = exp.tensor(what);
            assert_eq!(got.shape, want.shape, "{name}: {what} shape");
            let d = max_diff(&format!("{name} {what}"), &got.data, &want.data);
            assert!(d <= TOL, "{name}: {what} differs by {d:e}");
        }
    }
}

#[test]
fn info_lists_each_familys_attention_sites() {
    let cases = [
        ("bert_mlm_gelu", vec![("encoder", "e", false)]),
        ("gpt2_lm", vec![("decoder_self", "s", true)]),
        ("marian_relu_odd_d", vec![("encoder", "e", false), ("decoder_self", "s", true), ("cross", "c", false)]),
    ];
    for (name, want) in cases {
        let model = families_dir().join(format!("{name}.safetensors")).to_string_lossy().into_owned();
        let out = run(&["info", "--model", &model]);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let sites = v["sites"].as_array().unwrap();
        let got: Vec<(&str, &str, bool)> = sites
            .iter()
            .map(|s| (s["id"].as_str().unwrap(), s["letter"].as_str().unwrap(), s["causal"].as_bool().unwrap()))
            .collect();
        assert_eq!(got, want, "{name}: sites");
        for s in sites {
            assert_eq!(s["heads"], v["nhead"], "{name}: heads per site");
        }
    }
}

#[test]
fn generate_continues_as_the_library_does() {
    let path = families_dir().join("gpt2_lm.safetensors");
    let model = attnscope::Model::from_safetensors(&std::fs::read(&path).unwrap()).unwrap();
    let prompt_tokens = [&model.config.tgt_vocab[5], &model.config.tgt_vocab[7], &model.config.tgt_vocab[9]];
    let prompt = prompt_tokens.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ");
    let want = attnscope::decode::generate(&model, &[5, 7, 9], &attnscope::RunOptions::default(), 6).unwrap();
    assert_eq!(want.tokens.len(), 6, "six steps (this random model has no reason to stop)");
    let out = run(&["generate", "--model", &path.to_string_lossy(), "--max-steps", "6", &prompt]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(printed.trim_end(), model.tokenizer.detokenize(&want.tokens));
    // the continuation is the arg-max of each step's distribution (no repeat rule fired here)
    for s in &want.steps {
        if s.blocked.is_none() {
            assert_eq!(s.token, attnscope::decode::argmax(&s.probs));
        }
    }
}

/// `name`'s family fixture with its vocabulary renamed to plain words (`w0`, `w1`, ...; the
/// specials keep theirs) so that text finds them, written to a temporary file.
fn with_word_vocab(name: &str) -> PathBuf {
    let bytes = std::fs::read(families_dir().join(format!("{name}.safetensors"))).unwrap();
    let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let (_, meta) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    let mut cfg: Value = serde_json::from_str(&meta.metadata().as_ref().unwrap()["attnscope"]).unwrap();
    let specials: Vec<Value> = cfg["specials"].as_object().unwrap().values().cloned().collect();
    for side in ["src_vocab", "tgt_vocab"] {
        for (i, t) in cfg[side].as_array_mut().unwrap().iter_mut().enumerate() {
            if !specials.contains(t) {
                *t = Value::from(format!("w{i}"));
            }
        }
    }
    let meta: hashbrown::HashMap<String, String> = [("attnscope".to_string(), cfg.to_string())].into_iter().collect();
    let out = safetensors::serialize(st.tensors(), &Some(meta)).unwrap();
    let path = std::env::temp_dir().join(format!("attnscope-cli-{name}-{}.safetensors", std::process::id()));
    std::fs::write(&path, out).unwrap();
    path
}

#[test]
fn fill_predicts_the_masks_from_the_mlm_logits() {
    let path = with_word_vocab("bert_mlm_gelu");
    let model = attnscope::Model::from_safetensors(&std::fs::read(&path).unwrap()).unwrap();
    let v = &model.config.src_vocab;
    let mask = model.config.specials.mask.clone().unwrap();
    let text = format!("{} {mask} {} {mask}", v[10], v[12]);
    let out = run(&["fill", "--model", &path.to_string_lossy(), "--json", "--top-k", "3", &text]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    // the tokens: prefix, the words and the masks in place, suffix
    let tokens: Vec<&str> = json["tokens"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let p = &model.config.tokenizer.source_prefix[0];
    let s = &model.config.tokenizer.source_suffix[0];
    assert_eq!(tokens, vec![p.as_str(), &v[10], &mask, &v[12], &mask, s.as_str()]);
    // each mask's candidates are the top of the softmax of its row of the traced MLM logits
    let ids: Vec<u32> = tokens.iter().map(|t| v.iter().position(|w| w == t).unwrap() as u32).collect();
    let trace = model.forward(&ids, &[], &attnscope::RunOptions::default()).unwrap();
    let logits = trace.encoder().unwrap().logits.as_ref().unwrap();
    let masks = json["masks"].as_array().unwrap();
    assert_eq!(masks.len(), 2);
    for m in masks {
        let pos = m["position"].as_u64().unwrap() as usize;
        assert_eq!(tokens[pos], mask);
        let row: Vec<f64> = logits.row_vec(pos).iter().map(|&x| x as f64).collect();
        let max = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = row.iter().map(|x| (x - max).exp()).sum();
        let mut order: Vec<usize> = (0..row.len()).collect();
        order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
        let cands = m["candidates"].as_array().unwrap();
        assert_eq!(cands.len(), 3);
        for (c, &want) in cands.iter().zip(&order) {
            assert_eq!(c["id"].as_u64().unwrap() as usize, want, "mask at {pos}");
            let p = (row[want] - max).exp() / z;
            assert!((c["prob"].as_f64().unwrap() - p).abs() < 1e-5, "mask at {pos}: probability");
        }
    }
}

#[test]
fn family_commands_refuse_what_a_model_cannot_do() {
    let f = |n: &str| families_dir().join(format!("{n}.safetensors")).to_string_lossy().into_owned();
    let (bert, gpt, bare_gpt) = (f("bert_mlm_gelu"), f("gpt2_lm"), f("gpt2_model_relu_len1"));
    assert_clean_failure(&["translate", "--model", &bert, "a b"], 2, "encoder-decoder");
    assert_clean_failure(&["translate", "--model", &gpt, "a b"], 2, "generate");
    assert_clean_failure(&["generate", "--model", &bert, "a"], 2, "decoder");
    assert_clean_failure(&["fill", "--model", &gpt, "a [MASK]"], 2, "masked-LM");
    assert_clean_failure(&["fill", "--model", &bert, "<id:5>"], 2, "no <id:4>");
    assert_clean_failure(&["forward", "--model", &gpt, "--src-ids", "1", "--tgt-ids", "1"], 2, "reads no source");
    assert_clean_failure(&["forward", "--model", &bert, "--tgt-ids", "1"], 2, "needs --src");
    assert_clean_failure(&["forward", "--model", &bert, "--src-ids", "1", "--knock-out", "c1h1"], 2, "no cross");
    assert_clean_failure(&["generate", "--model", &bare_gpt, "<id:3>"], 2, "no output head");
}

#[test]
fn translate_runs_a_converted_marian_model() {
    // A Marian encoder-decoder from transformers: translate gives the library's greedy
    // decoding of the tokenised text (source suffix </s> included), printed by the tokenizer.
    let path = with_word_vocab("marian_swish_scaled");
    let model = attnscope::Model::from_safetensors(&std::fs::read(&path).unwrap()).unwrap();
    let enc = model.tokenizer.encode_src("w5 w7 w9").unwrap();
    assert_eq!(enc.tokens.last(), model.config.tokenizer.source_suffix.last(), "the source ends with </s>");
    let want = attnscope::greedy(&model, &enc.ids, &attnscope::RunOptions::default(), 8).unwrap();
    let out = run(&["translate", "--model", &path.to_string_lossy(), "--max-steps", "8", "w5 w7 w9"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim_end(), want.text(&model.tokenizer, &enc.tokens));
    assert_eq!(want.trace.decoder().unwrap().embed.ids[0], model.tokenizer.bos, "Marian starts from its <pad>");
}

#[test]
fn confidence_prints_the_measured_threshold_and_both_halves() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let model = root.join("www/models/en-ko.safetensors");
    let set = root.join("tests/data/everyday-en-ko.tsv");
    let (model, set) = (model.to_str().unwrap(), set.to_str().unwrap());
    let out = run(&["confidence", "--model", model, "--set", set]);
    assert!(out.status.success(), "confidence: {}", String::from_utf8_lossy(&out.stderr));
    let json: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    // the same figures as the library's measurement
    let bytes = std::fs::read(model).unwrap();
    let m = attnscope::Model::from_safetensors(&bytes).unwrap();
    let sentences = attnscope::reference::parse(&std::fs::read_to_string(set).unwrap()).unwrap();
    let (c, _) = attnscope::reference::measure_confidence(&m, &sentences).unwrap();
    assert_eq!(json["unsure_below"], c.unsure_below.as_str());
    let stored = attnscope::reference::description_field(&bytes, "unsure_below").unwrap();
    assert_eq!(json["stored"], serde_json::to_value(&stored).unwrap());
    for (half, f) in [("dev", &c.dev), ("heldout", &c.heldout)] {
        let h = &json[half];
        assert_eq!(h["wrong_flagged"], f.wrong_flagged as u64, "{half}");
        assert_eq!(h["right_flagged"], f.right_flagged as u64, "{half}");
        assert_eq!(h["right"].as_u64().unwrap() + h["wrong"].as_u64().unwrap(), h["sentences"].as_u64().unwrap());
        let share = h["wrong_flagged"].as_f64().unwrap() / h["wrong"].as_f64().unwrap();
        assert!((h["wrong_flagged_share"].as_f64().unwrap() - share).abs() < 1e-12, "{half}");
    }
    assert_eq!(json["dev"]["sentences"].as_u64().unwrap() + json["heldout"]["sentences"].as_u64().unwrap(), 431);
    // a file that is not a reference set: one line, exit 1
    let bad = Scratch::new("bad-set.tsv", b"en\tko\nhello\t\xec\x95\x88\xeb\x85\x95\n");
    assert_clean_failure(&["confidence", "--model", model, "--set", bad.path()], 1, "header");
}
