//! The subword tokenizers (`src/subword/`) against Hugging Face, hand-checked cases, and hostile
//! data. Fixtures: `train/tokenizer_fixtures.py` (HF ids and decodes of every line of
//! `tests/data/tokenizer-corpus.txt` for BERT uncased/cased, GPT-2 BPE, Marian source/target).
#![cfg(all(feature = "subword", not(target_arch = "wasm32")))]

#[path = "../fuzz/checks/subword.rs"]
mod fuzz_check;

use attnscope::subword::{Subword, SubwordConfig};
use serde_json::Value;
use std::path::Path;

fn corpus() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokenizer-corpus.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.strip_suffix('\n').unwrap();
    text.split('\n').map(String::from).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// A fixture; a metadata field given as a file name ("gpt2.json") is that fixture's field.
fn read_fixture(dir: &Path, name: &str) -> Value {
    let read =
        |name: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap() };
    let mut doc = read(&format!("{name}.json"));
    if let Some(other) = doc["metadata"]["vocab"].as_str().map(String::from) {
        doc["metadata"]["vocab"] = read(&other)["metadata"]["vocab"].clone();
    }
    if let Some(other) = doc["metadata"]["subword"]["merges"].as_str().map(String::from) {
        doc["metadata"]["subword"]["merges"] = read(&other)["metadata"]["subword"]["merges"].clone();
    }
    doc
}

/// Check one fixture side; returns (lines, failures as messages).
fn agree(name: &str, meta: &Value, side: &str, cases: &Value, lines: &[String]) -> (usize, Vec<String>) {
    let cfg: SubwordConfig = serde_json::from_value(meta[side].clone()).unwrap();
    let vocab = strings(&meta["vocab"]);
    let unk = meta["specials"]["unk"].as_str().unwrap();
    let sw = Subword::new(&cfg, &vocab, Some(unk)).unwrap();
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), lines.len(), "{name}: fixture and corpus differ in length: regenerate the fixtures");
    let mut failures = Vec::new();
    for (n, (case, line)) in cases.iter().zip(lines).enumerate() {
        let want: Vec<u32> = case["ids"].as_array().unwrap().iter().map(|i| i.as_u64().unwrap() as u32).collect();
        let got = sw.encode(line);
        let got_ids: Vec<u32> = got.iter().map(|p| p.id).collect();
        if got_ids != want {
            let k = got_ids.iter().zip(&want).take_while(|(a, b)| a == b).count();
            let show =
                |ids: &[u32]| ids.get(k).map_or("(end)".to_string(), |&i| format!("{i} {:?}", vocab[i as usize]));
            failures.push(format!(
                "{name} {side} line {}: {line:?}\n  first difference at piece {k}: ours {} (text {:?}), HF {}\n  ours {:?}\n  HF   {:?}",
                n + 1,
                show(&got_ids),
                got.get(k).map(|p| p.text.as_str()),
                show(&want),
                got_ids,
                want
            ));
            continue;
        }
        let want_text = case["decoded"].as_str().unwrap();
        let decoded = sw.decode(&want);
        if decoded != want_text {
            failures.push(format!("{name} {side} line {}: decode {decoded:?}, HF {want_text:?}", n + 1));
        }
    }
    (cases.len(), failures)
}

#[test]
fn agrees_with_hugging_face_on_the_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
    agree_all(&dir, &corpus());
}

/// `ATTNSCOPE_SUBWORD_DIFF=DIR`: the same check on the random lines that
/// `train/tokenizer_fixtures.py --random N DIR` wrote (not committed; skipped without the variable).
#[test]
fn agrees_with_hugging_face_on_random_text() {
    let Some(dir) = std::env::var_os("ATTNSCOPE_SUBWORD_DIFF") else { return };
    let dir = Path::new(&dir);
    let lines: Vec<String> = serde_json::from_str(&std::fs::read_to_string(dir.join("lines.json")).unwrap()).unwrap();
    agree_all(dir, &lines);
}

fn agree_all(dir: &Path, lines: &[String]) {
    let mut total = 0;
    let mut failures = Vec::new();
    for name in ["bert-uncased", "bert-cased", "gpt2", "gpt2-prefix", "marian"] {
        let doc = read_fixture(dir, name);
        for side in ["subword", "target_subword"] {
            if let Some(cases) = doc["cases"].get(side) {
                let (n, f) = agree(name, &doc["metadata"], side, cases, lines);
                eprintln!("{name} {side}: {} of {n} lines agree", n - f.len());
                total += n;
                failures.extend(f);
            }
        }
    }
    assert!(total >= 6 * lines.len(), "only {total} lines checked");
    assert!(failures.is_empty(), "{} of {total} lines differ:\n{}", failures.len(), failures.join("\n"));
}

// ---------- hand-checked cases ----------

fn vocab(tokens: &[&str]) -> Vec<String> {
    tokens.iter().map(|s| s.to_string()).collect()
}

fn texts(sw: &Subword, text: &str) -> Vec<String> {
    sw.encode(text).into_iter().map(|p| if p.known { p.text } else { format!("?{}", p.text) }).collect()
}

fn wordpiece(lowercase: bool) -> SubwordConfig {
    serde_json::from_value(serde_json::json!({"kind": "word_piece", "lowercase": lowercase})).unwrap()
}

#[test]
fn wordpiece_by_hand() {
    let v =
        vocab(&["[UNK]", "un", "##aff", "##able", "hello", "cafe", "!", "'", "s", "中", "##s", "Hello", "a", "##b"]);
    let sw = Subword::new(&wordpiece(true), &v, Some("[UNK]")).unwrap();
    let cases: &[(&str, &[&str])] = &[
        // greedy longest match: "unaffable" = un + ##aff + ##able
        ("unaffable", &["un", "##aff", "##able"]),
        // lowercased, accent stripped (NFD, Mn dropped), "!" split off as punctuation
        ("HELLO Café!", &["hello", "cafe", "!"]),
        // "'" is punctuation; "s" is a word of its own
        ("hello's", &["hello", "'", "s"]),
        // CJK ideographs are words of their own: 中 then 中 (not "中中"), "s" alone
        ("中中s", &["中", "中", "s"]),
        // no way to finish "unx": the whole word is one [UNK] (not un + [UNK])
        ("unx", &["?unx"]),
        // control characters vanish, tabs and newlines separate
        ("\u{7}hello\tcafe\n", &["hello", "cafe"]),
        ("", &[]),
        ("  \t ", &[]),
        // 101 chars > max_chars_per_word (100): [UNK]; 100 chars of "a" + "##b"... is unknown too
        (
            &"a".repeat(101),
            &["?aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
        ),
        ("ab", &["a", "##b"]),
    ];
    for (text, want) in cases {
        assert_eq!(texts(&sw, text), *want, "{text:?}");
    }
    // cased: "Hello" is kept, accents too (strip_accents follows lowercase = false)
    let cased = Subword::new(&wordpiece(false), &v, Some("[UNK]")).unwrap();
    assert_eq!(texts(&cased, "Hello hello"), ["Hello", "hello"]);
    assert_eq!(texts(&cased, "Café"), ["?Café"]);
    // decode: "##" glues, "!" glues (decoder cleanup), other tokens are spaced
    let ids: Vec<u32> = sw.encode("unaffable hello's cafe!").iter().map(|p| p.id).collect();
    assert_eq!(sw.decode(&ids), "unaffable hello ' s cafe!");
}

#[test]
fn bpe_by_hand() {
    // byte-level symbols: ASCII letters stand for themselves, a space is "Ġ"
    let v = vocab(&[
        "l", "o", "w", "e", "r", "Ġ", "n", "s", "t", "lo", "low", "er", "Ġn", "Ġne", "Ġnew", "'", "'s", "!", "Ġl",
    ]);
    let merges = ["l o", "lo w", "e r", "Ġ n", "Ġn e", "Ġne w", "Ġ l", "' s"];
    let cfg = serde_json::from_value(serde_json::json!({"kind": "bpe", "merges": merges})).unwrap();
    let sw = Subword::new(&cfg, &v, None).unwrap();
    let cases: &[(&str, &[&str])] = &[
        // "lower": l o w e r -> (rank 0) lo w e r -> (rank 1) low e r -> (rank 2) low er
        ("lower", &["low", "er"]),
        // " new" is one pre-token (space + letters): Ġ n e w -> Ġn e w -> Ġne w -> Ġnew
        ("lower new", &["low", "er", "Ġnew"]),
        // "'s" is its own pre-token; "!" another (punctuation run)
        ("low's!", &["low", "'s", "!"]),
        // two spaces before a word: the first is whitespace alone ("Ġ"), the second goes with
        // the word (\s+(?!\S) gives back the last space): pre-tokens " " and " low";
        // Ġ l o w: "l o" (rank 0) comes before "Ġ l" (rank 6): Ġ lo w -> Ġ low; no "Ġ low" merge
        ("  low", &["Ġ", "Ġ", "low"]),
        ("", &[]),
    ];
    for (text, want) in cases {
        assert_eq!(texts(&sw, text), *want, "{text:?}");
    }
    // a byte without a symbol is dropped without an unknown token ("z" is not in the vocab)
    assert_eq!(texts(&sw, "z"), Vec::<String>::new());
    let with_unk = Subword::new(&cfg, &v, Some("!")).unwrap();
    assert_eq!(texts(&with_unk, "z"), ["?z"]);
    // decode: symbols back to bytes
    let ids: Vec<u32> = sw.encode("lower new").iter().map(|p| p.id).collect();
    assert_eq!(sw.decode(&ids), "lower new");
    // pre-tokenizer regex, by hand
    use attnscope::subword::bpe::pre_tokenize;
    assert_eq!(
        pre_tokenize("Hello  world's 3.14 !!?\t\n x"),
        ["Hello", " ", " world", "'s", " 3", ".", "14", " !!?", "\t\n", " x"]
    );
    assert_eq!(pre_tokenize("a   "), ["a", "   "]);
    assert_eq!(pre_tokenize("'S 'll"), ["'", "S", " '", "ll"]);
}

#[test]
fn unigram_by_hand() {
    // pieces with log-probability scores; no character map (identity normaliser)
    let cfg = serde_json::from_value(serde_json::json!({"kind": "unigram", "unk_piece": "<unk>",
        "special_tokens": ["</s>", "<unk>"],
        "pieces": [["▁", -2.0], ["▁a", -1.0], ["b", -3.0], ["▁ab", -3.5], ["a", -2.5], ["c", -4.0], ["▁c", -4.5]]}))
    .unwrap();
    let v = vocab(&["</s>", "<unk>", "▁", "▁a", "b", "▁ab", "a", "c", "▁c"]);
    let sw = Subword::new(&cfg, &v, Some("<unk>")).unwrap();
    let cases: &[(&str, &[&str])] = &[
        // "▁ab": ▁ab (-3.5) beats ▁a + b (-4.0) and ▁ + a + b (-7.5)
        ("ab", &["▁ab"]),
        // "▁a▁c": ▁a + ▁c = -5.5 beats ▁a + ▁ + c = -7.0; extra spaces collapse
        ("  a   c ", &["▁a", "▁c"]),
        // "x" and "y" start no piece: unknown, score min (-4.5) - 10; consecutive unknowns
        // are one piece: ▁ + "xy" + b
        ("xyb", &["▁", "?xy", "b"]),
        ("", &[]),
        (" \t ", &["▁", "?\t"]),
    ];
    for (text, want) in cases {
        assert_eq!(texts(&sw, text), *want, "{text:?}");
    }
    // decode: <unk> is written as it is with a space after it; ▁ is a space; trimmed
    let ids: Vec<u32> = sw.encode("xyb ab").iter().map(|p| p.id).collect();
    assert_eq!(ids, [2, 1, 4, 5]);
    assert_eq!(sw.decode(&ids), "<unk> b ab");
}

// ---------- hostile data: errors, never panics ----------

#[test]
fn hostile_data_is_an_error() {
    let v = vocab(&["[UNK]", "a", "b"]);
    let err = |cfg: &SubwordConfig, v: &[String], unk: Option<&str>| {
        let e = Subword::new(cfg, v, unk).expect_err("accepted bad data");
        assert!(matches!(e, attnscope::Error::Format(_)), "{e:?}");
        e.to_string()
    };
    // empty vocabulary
    assert!(err(&wordpiece(true), &[], Some("[UNK]")).contains("empty"));
    // the unknown token is not in the vocabulary / not given
    assert!(err(&wordpiece(true), &v, Some("<unk>")).contains("<unk>"));
    err(&wordpiece(true), &v, None);
    // a repeated token
    assert!(err(&wordpiece(true), &vocab(&["[UNK]", "a", "a"]), Some("[UNK]")).contains("repeats"));
    // merges naming tokens outside the vocabulary, or not a pair
    let bpe = |m: &[&str]| serde_json::from_value(serde_json::json!({"kind": "bpe", "merges": m})).unwrap();
    assert!(err(&bpe(&["a z"]), &v, None).contains("\"z\""));
    assert!(err(&bpe(&["a b"]), &v, None).contains("\"ab\""));
    err(&bpe(&["ab"]), &v, None);
    err(&bpe(&["a b c"]), &v, None);
    err(&bpe(&["a  b"]), &v, None);
    // NaN / infinite scores, no pieces, an empty piece, a repeated piece, a bad character map
    let uni = |pieces: Vec<(String, f32)>, map: Option<&str>| SubwordConfig::Unigram {
        pieces,
        unk_piece: "<unk>".into(),
        charsmap: map.map(String::from),
        add_dummy_prefix: true,
        remove_extra_whitespaces: true,
        escape_whitespaces: true,
        special_tokens: vec![],
        clean_up_spaces: false,
        language_code: false,
    };
    let uv = vocab(&["<unk>", "a"]);
    assert!(err(&uni(vec![("a".into(), f32::NAN)], None), &uv, Some("<unk>")).contains("NaN"));
    err(&uni(vec![("a".into(), f32::NEG_INFINITY)], None), &uv, Some("<unk>"));
    err(&uni(vec![], None), &uv, Some("<unk>"));
    err(&uni(vec![("".into(), -1.0)], None), &uv, Some("<unk>"));
    err(&uni(vec![("a".into(), -1.0), ("a".into(), -2.0)], None), &uv, Some("<unk>"));
    err(&uni(vec![("a".into(), -1.0)], Some("not base64!")), &uv, Some("<unk>"));
    err(&uni(vec![("a".into(), -1.0)], Some("AQ==")), &uv, Some("<unk>")); // 1 byte: no size
    err(&uni(vec![("a".into(), -1.0)], Some("/////w==")), &uv, Some("<unk>")); // size past the end
    err(&uni(vec![("a".into(), -1.0)], None), &uv, None);
    // zero max_chars_per_word
    let wp0 = serde_json::from_value(serde_json::json!({"kind": "word_piece", "max_chars_per_word": 0})).unwrap();
    err(&wp0, &v, Some("[UNK]"));
    // JSON that is not a config
    for bad in
        [r#"{"kind": "sentencepiece"}"#, r#"{"kind": "bpe"}"#, r#"{"kind": "unigram", "pieces": [["a", "x"]]}"#, "[]"]
    {
        assert!(serde_json::from_str::<SubwordConfig>(bad).is_err(), "{bad}");
    }
}

#[test]
fn hostile_text_never_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
    let long = "x".repeat(100_000);
    let mixed = "👩‍💻한국어\u{0}\u{7}\u{FFFD}\u{E000}\u{10FFFF} ́ \t\n".repeat(500);
    let texts = ["", " ", "\u{0}", "\u{301}", "▁", "▁▁ ▁", "'", "'s'", "\u{2028}", &long, &mixed];
    for name in ["bert-uncased", "gpt2", "marian"] {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap()).unwrap();
        let meta = &doc["metadata"];
        let cfg: SubwordConfig = serde_json::from_value(meta["subword"].clone()).unwrap();
        let sw = Subword::new(&cfg, &strings(&meta["vocab"]), meta["specials"]["unk"].as_str()).unwrap();
        for t in texts {
            let pieces = sw.encode(t);
            let ids: Vec<u32> = pieces.iter().map(|p| p.id).collect();
            let _ = sw.decode(&ids);
        }
        // ids past the vocabulary are skipped
        assert_eq!(sw.decode(&[u32::MAX]), "");
    }
    // the fuzz target's check, on its seeds and a few inputs
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/subword");
    let mut inputs: Vec<Vec<u8>> =
        std::fs::read_dir(seeds).unwrap().map(|e| std::fs::read(e.unwrap().path()).unwrap()).collect();
    assert!(inputs.len() >= 3);
    for data in &inputs {
        // each seed builds its tokenizer (so the fuzzer starts from inputs that get past `new`)
        let json = &data[..data.iter().position(|&b| b == 0xFF).unwrap()];
        let v: Value = serde_json::from_slice(json).unwrap();
        let cfg: SubwordConfig = serde_json::from_value(v["subword"].clone()).unwrap();
        let sw = Subword::new(&cfg, &strings(&v["vocab"]), v["unk"].as_str()).unwrap();
        assert!(!sw.encode(&String::from_utf8_lossy(&data[json.len() + 1..])).is_empty());
    }
    for data in [&b""[..], b"\x00", b"{\"kind\":\"bpe\",\"merges\":[\"a b\"]}\xffab ab", b"\x02\xff\xff\xff"] {
        inputs.push(data.to_vec());
    }
    for data in &inputs {
        fuzz_check::check(data);
    }
}

#[test]
fn nfd_equals_unicode_normalization() {
    use attnscope::subword::wordpiece::nfd;
    use unicode_normalization::UnicodeNormalization;
    // every scalar value alone, then each after "a" and before two marks of different classes
    // (U+0301 class 230, U+0323 class 220: canonical ordering swaps them)
    for u in 0..=0x10FFFFu32 {
        let Some(c) = char::from_u32(u) else { continue };
        for s in [c.to_string(), format!("a{c}\u{301}\u{323}")] {
            let want: Vec<char> = s.nfd().collect();
            assert_eq!(nfd(&s), want, "U+{u:04X} in {s:?}");
        }
    }
}

#[test]
fn huge_words_take_linear_time() {
    // a 1 MB word with max_chars_per_word past its length: the search starts at the longest
    // token, so this is quick (the naive search would try a million candidates per piece)
    let cfg =
        serde_json::from_value(serde_json::json!({"kind": "word_piece", "max_chars_per_word": 10_000_000})).unwrap();
    let sw = Subword::new(&cfg, &vocab(&["[UNK]", "a", "##a", "##aa"]), Some("[UNK]")).unwrap();
    let start = std::time::Instant::now();
    let pieces = sw.encode(&"a".repeat(1_000_001));
    assert_eq!(pieces.len(), 1 + 500_000); // a, then ##aa x 500,000
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    // BPE and unigram on a megabyte without spaces
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
    for name in ["gpt2", "marian"] {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap()).unwrap();
        let meta = &doc["metadata"];
        let cfg: SubwordConfig = serde_json::from_value(meta["subword"].clone()).unwrap();
        let sw = Subword::new(&cfg, &strings(&meta["vocab"]), meta["specials"]["unk"].as_str()).unwrap();
        let start = std::time::Instant::now();
        assert!(!sw.encode(&"abcé한".repeat(100_000)).is_empty());
        assert!(start.elapsed().as_secs() < 10, "{name}: {:?}", start.elapsed());
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn fixture_tokenizers() -> Vec<(String, Subword)> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
        let mut out = Vec::new();
        for name in ["bert-uncased", "bert-cased", "gpt2", "gpt2-prefix", "marian"] {
            let doc = read_fixture(&dir, name);
            let meta = &doc["metadata"];
            for side in ["subword", "target_subword"] {
                if meta.get(side).is_some() {
                    let cfg: SubwordConfig = serde_json::from_value(meta[side].clone()).unwrap();
                    let sw = Subword::new(&cfg, &strings(&meta["vocab"]), meta["specials"]["unk"].as_str()).unwrap();
                    out.push((format!("{name} {side}"), sw));
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Any text: ids inside the vocabulary, known pieces are their tokens, decode returns.
        #[test]
        fn any_text(text in "\\PC{0,40}|[ \\t\\n'a-zA-Z0-9\u{300}-\u{36f}\u{ac00}-\u{ac10}\u{1f44d}\u{200d}]{0,40}") {
            thread_local!(static TOKS: Vec<(String, Subword)> = fixture_tokenizers());
            TOKS.with(|toks| {
                for (name, sw) in toks {
                    let pieces = sw.encode(&text);
                    for p in &pieces {
                        let token = &sw.vocab()[p.id as usize];
                        assert!(!p.known || &p.text == token, "{name}: {p:?} is not {token:?}");
                    }
                    let ids: Vec<u32> = pieces.iter().map(|p| p.id).collect();
                    let _ = sw.decode(&ids);
                }
            });
        }

        /// The fuzz check on mutated seeds (configs that build, then corrupted bytes).
        #[test]
        fn mutated_seeds(seed in 0usize..3, edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..6)) {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/subword");
            let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            let mut data = std::fs::read(&files[seed % files.len()]).unwrap();
            for (at, b) in edits {
                let n = data.len();
                data[at % n] = b;
            }
            fuzz_check::check(&data);
        }
    }
}
