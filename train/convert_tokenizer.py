"""Hugging Face tokenizer directory -> the `tokenizer` metadata of an attnscope model file.

`tokenizer_metadata(hf_dir)` reads a directory as `save_pretrained` writes it and returns what a
converted model file carries (README, "Model file format", "Three families"):

    {"vocab": [token by id], "subword": {SubwordConfig JSON}, "specials": {...},
     "source_prefix": [...], "source_suffix": [...]}          (+ "target_subword" for Marian)

The engine's `src/subword/` runs the tokenizer from `subword` alone; `tests/subword.rs` checks it
against Hugging Face on `tests/data/tokenizer-corpus.txt` (fixtures: `train/tokenizer_fixtures.py`).

Understood layouts:
- WordPiece (BERT): `tokenizer.json` (model WordPiece, BertNormalizer, BertPreTokenizer) or the
  older `vocab.txt` + `tokenizer_config.json`;
- byte-level BPE (GPT-2): `tokenizer.json` (model BPE, ByteLevel pre-tokenizer) or `vocab.json` +
  `merges.txt`;
- SentencePiece unigram (Marian): `source.spm` + `target.spm` + `vocab.json`
  (`target_vocab.json` too with separate vocabularies).
Anything else raises ValueError naming what is unsupported; a directory with no tokenizer file at
all gives None (the caller warns).
"""

from __future__ import annotations

import base64
import json
import os

__all__ = ["tokenizer_metadata"]


def _read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _token_str(tok):
    """A special token as tokenizer_config.json stores it: a string or an AddedToken dict."""
    if tok is None:
        return None
    if isinstance(tok, dict):
        return tok.get("content")
    return str(tok)


def _configs(hf_dir):
    """tokenizer_config.json overlaid with special_tokens_map.json (both optional)."""
    cfg = {}
    p = os.path.join(hf_dir, "tokenizer_config.json")
    if os.path.exists(p):
        cfg.update(_read_json(p))
    p = os.path.join(hf_dir, "special_tokens_map.json")
    if os.path.exists(p):
        for k, v in _read_json(p).items():
            if isinstance(v, (str, dict)):
                cfg[k] = v
    return cfg


def _dense(vocab_map, added=()):
    """{token: id} (+ added tokens (id, content)) -> [token by id]; ids must be 0..N-1, no gap."""
    by_id = {}
    for tok, i in vocab_map.items():
        by_id[int(i)] = tok
    for i, tok in added:
        if int(i) in by_id and by_id[int(i)] != tok:
            raise ValueError(f"added token {tok!r} reuses id {i} of {by_id[int(i)]!r}")
        by_id[int(i)] = tok
    n = len(by_id)
    if n == 0:
        raise ValueError("the vocabulary is empty")
    if sorted(by_id) != list(range(n)):
        raise ValueError("the vocabulary's ids are not 0..N-1 without a gap")
    return [by_id[i] for i in range(n)]


def _wordpiece_from_flags(cfg, lowercase, strip_accents, split_chinese, prefix, max_chars, cleanup):
    return {
        "kind": "word_piece",
        "lowercase": bool(lowercase),
        "strip_accents": strip_accents if strip_accents is None else bool(strip_accents),
        "split_chinese": bool(split_chinese),
        "continuing_prefix": prefix,
        "max_chars_per_word": int(max_chars),
        "decoder_cleanup": bool(cleanup),
        "clean_up_spaces": bool(cfg.get("clean_up_tokenization_spaces", False)),
    }


def _bert_specials(cfg):
    sp = {
        "pad": _token_str(cfg.get("pad_token")) or "[PAD]",
        "unk": _token_str(cfg.get("unk_token")) or "[UNK]",
        "bos": _token_str(cfg.get("cls_token")) or "[CLS]",
        "eos": _token_str(cfg.get("sep_token")) or "[SEP]",
        "mask": _token_str(cfg.get("mask_token")) or "[MASK]",
    }
    return sp, [sp["bos"]], [sp["eos"]]


def _gpt2_specials(cfg):
    eot = "<|endoftext|>"
    bos = _token_str(cfg.get("bos_token")) or eot
    eos = _token_str(cfg.get("eos_token")) or eot
    unk = _token_str(cfg.get("unk_token")) or eot
    pad = _token_str(cfg.get("pad_token")) or eos
    return {"pad": pad, "bos": bos, "eos": eos, "unk": unk}, [], []


def _from_tokenizer_json(hf_dir, cfg):
    tj = _read_json(os.path.join(hf_dir, "tokenizer.json"))
    model = tj.get("model") or {}
    added = [(t["id"], t["content"]) for t in tj.get("added_tokens") or []]
    kind = model.get("type")
    if kind == "WordPiece":
        norm = tj.get("normalizer") or {}
        if norm.get("type") != "BertNormalizer":
            raise ValueError(f"WordPiece with normalizer {norm.get('type')!r}: only BertNormalizer is supported")
        pre = tj.get("pre_tokenizer") or {}
        if pre.get("type") != "BertPreTokenizer":
            raise ValueError(f"WordPiece with pre-tokenizer {pre.get('type')!r}: only BertPreTokenizer is supported")
        if not norm.get("clean_text", True):
            raise ValueError("BertNormalizer with clean_text=false is not supported")
        dec = tj.get("decoder") or {}
        sub = _wordpiece_from_flags(
            cfg,
            norm.get("lowercase", True),
            norm.get("strip_accents"),
            norm.get("handle_chinese_chars", True),
            model.get("continuing_subword_prefix", "##"),
            model.get("max_input_chars_per_word", 100),
            dec.get("cleanup", True) if dec.get("type") == "WordPiece" else False,
        )
        specials, prefix, suffix = _bert_specials(cfg)
        if model.get("unk_token"):
            specials["unk"] = model["unk_token"]
        return _dense(model["vocab"], added), sub, specials, prefix, suffix
    if kind == "BPE":
        pre = tj.get("pre_tokenizer") or {}
        if pre.get("type") != "ByteLevel" or not pre.get("use_regex", True):
            raise ValueError(f"BPE with pre-tokenizer {pre.get('type')!r}: only GPT-2's byte-level one is supported")
        if tj.get("normalizer") is not None:
            raise ValueError("byte-level BPE with a normalizer is not supported")
        if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix") or model.get("dropout"):
            raise ValueError("BPE with a subword prefix/suffix or dropout is not supported")
        merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
        sub = {"kind": "bpe", "merges": merges, "add_prefix_space": bool(pre.get("add_prefix_space", False))}
        specials, prefix, suffix = _gpt2_specials(cfg)
        return _dense(model["vocab"], added), sub, specials, prefix, suffix
    raise ValueError(f"tokenizer.json with model type {kind!r} is not supported (WordPiece, BPE)")


def _spm_config(path):
    """A SentencePiece model file -> the `unigram` SubwordConfig (normal pieces, normaliser)."""
    from sentencepiece import sentencepiece_model_pb2 as pb

    m = pb.ModelProto()
    with open(path, "rb") as f:
        m.ParseFromString(f.read())
    if m.trainer_spec.model_type != pb.TrainerSpec.UNIGRAM:
        raise ValueError(f"{path}: SentencePiece model type {m.trainer_spec.model_type}: only unigram is supported")
    if m.trainer_spec.byte_fallback:
        raise ValueError(f"{path}: byte fallback is not supported")
    pieces, unk = [], None
    for p in m.pieces:
        t = p.type
        if t == pb.ModelProto.SentencePiece.NORMAL:
            pieces.append([p.piece, float(p.score)])
        elif t == pb.ModelProto.SentencePiece.UNKNOWN:
            unk = p.piece
        elif t in (pb.ModelProto.SentencePiece.CONTROL, pb.ModelProto.SentencePiece.UNUSED):
            pass  # never produced by encoding
        else:
            raise ValueError(f"{path}: piece {p.piece!r} of type {t} (user-defined or byte) is not supported")
    if m.normalizer_spec.name not in ("nmt_nfkc", "nfkc", "identity", "nmt_nfkc_cf", "nfkc_cf", "user_defined") and not m.normalizer_spec.precompiled_charsmap:
        raise ValueError(f"{path}: normaliser {m.normalizer_spec.name!r} without a precompiled charsmap")
    ns = m.normalizer_spec
    charsmap = bytes(ns.precompiled_charsmap)
    return {
        "kind": "unigram",
        "pieces": pieces,
        "unk_piece": unk or "<unk>",
        "charsmap": base64.b64encode(charsmap).decode("ascii") if charsmap else None,
        "add_dummy_prefix": bool(ns.add_dummy_prefix),
        "remove_extra_whitespaces": bool(ns.remove_extra_whitespaces),
        "escape_whitespaces": bool(ns.escape_whitespaces),
    }


def _marian(hf_dir, cfg):
    vocab = _dense(_read_json(os.path.join(hf_dir, "vocab.json")))
    if cfg.get("separate_vocabs") and os.path.exists(os.path.join(hf_dir, "target_vocab.json")):
        raise ValueError("Marian with separate source and target vocabularies is not supported")
    unk = _token_str(cfg.get("unk_token")) or "<unk>"
    eos = _token_str(cfg.get("eos_token")) or "</s>"
    pad = _token_str(cfg.get("pad_token")) or "<pad>"
    # MarianTokenizer.decode writes its special tokens as they are, each followed by a space
    extra = {"special_tokens": [eos, unk, pad], "clean_up_spaces": bool(cfg.get("clean_up_tokenization_spaces", False))}
    # MarianTokenizer reads a leading ">>xx<<" target-language code (on either side)
    sub = dict(_spm_config(os.path.join(hf_dir, "source.spm")), language_code=True, **extra)
    tgt = dict(_spm_config(os.path.join(hf_dir, "target.spm")), language_code=True, **extra)
    specials = {"pad": pad, "bos": pad, "eos": eos, "unk": unk}
    return vocab, sub, specials, [], [eos], tgt


def tokenizer_metadata(hf_dir):
    """Read a Hugging Face tokenizer directory; return the model file's tokenizer data, or None.

    Raises ValueError when tokenizer files are there but describe something unsupported.
    """
    has = lambda name: os.path.exists(os.path.join(hf_dir, name))  # noqa: E731
    cfg = _configs(hf_dir)
    target = None
    if has("source.spm") and has("target.spm") and has("vocab.json"):
        vocab, sub, specials, prefix, suffix, target = _marian(hf_dir, cfg)
    elif has("tokenizer.json"):
        vocab, sub, specials, prefix, suffix = _from_tokenizer_json(hf_dir, cfg)
    elif has("vocab.txt"):
        with open(os.path.join(hf_dir, "vocab.txt"), encoding="utf-8") as f:
            toks = [line.rstrip("\n") for line in f]
        if toks and toks[-1] == "":
            toks.pop()
        lower = cfg.get("do_lower_case", True)
        sub = _wordpiece_from_flags(cfg, lower, cfg.get("strip_accents"), cfg.get("tokenize_chinese_chars", True), "##", 100, True)
        vocab = _dense({t: i for i, t in enumerate(toks)})
        if len(set(toks)) != len(toks):
            raise ValueError("vocab.txt repeats a token")
        specials, prefix, suffix = _bert_specials(cfg)
    elif has("vocab.json") and has("merges.txt"):
        with open(os.path.join(hf_dir, "merges.txt"), encoding="utf-8") as f:
            merges = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#version")]
        vocab = _dense(_read_json(os.path.join(hf_dir, "vocab.json")))
        sub = {"kind": "bpe", "merges": merges, "add_prefix_space": bool(cfg.get("add_prefix_space", False))}
        specials, prefix, suffix = _gpt2_specials(cfg)
    else:
        return None
    tokens = set(vocab)
    for k, v in specials.items():
        if v not in tokens:
            raise ValueError(f"special token {k} = {v!r} is not in the vocabulary")
    out = {"vocab": vocab, "subword": sub, "specials": specials, "source_prefix": prefix, "source_suffix": suffix}
    if target is not None:
        out["target_subword"] = target
    return out


if __name__ == "__main__":
    import sys

    meta = tokenizer_metadata(sys.argv[1])
    if meta is None:
        print(f"warning: {sys.argv[1]} has no tokenizer files", file=sys.stderr)
        sys.exit(1)
    summary = {k: (v if k != "vocab" else f"{len(v)} tokens") for k, v in meta.items()}
    for k in ("subword", "target_subword"):
        if k in summary:
            s = dict(summary[k])
            for big in ("merges", "pieces", "charsmap"):
                if s.get(big):
                    s[big] = f"{len(s[big])} entries/chars"
            summary[k] = s
    print(json.dumps(summary, indent=1, ensure_ascii=False))
