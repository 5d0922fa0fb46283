"""Convert a Hugging Face model directory into an attnscope model file.

    python train/convert.py HF_MODEL_DIR OUT.safetensors [--int8] [--int8-linears]

HF_MODEL_DIR is what `save_pretrained` writes: config.json, model.safetensors (or a sharded
model.safetensors.index.json, or pytorch_model.bin) and, optionally, tokenizer files.

Supported (README, "Model file format" / "Three families"):
  * BERT (BertModel, BertForMaskedLM; MiniLM is a BertModel) -> architecture "encoder_only"
  * GPT-2 (GPT2Model, GPT2LMHeadModel)                        -> architecture "decoder_only"
  * Marian (MarianMTModel)                                     -> architecture "encoder_decoder"

Weights are renamed into our names (`torch.nn.Transformer`'s state_dict plus the wrapper's
embeddings / positional tables / generator), stored F32 (F16/BF16 checkpoints are widened).
`--int8` stores the token embeddings and an untied generator as I8 with per-row F16 scales
(attnscope_model.quantize_rows, the same as attnscope_model.export); `--int8-linears` also the
layers' 2-D weights (attention in/out projections, feed-forward, BERT's MLM dense).

The vocabulary and subword tokenizer come from train/convert_tokenizer.py
(`tokenizer_metadata(hf_dir)`) when it is importable and recognises the directory; otherwise the
vocabularies are placeholders "<id:N>" (the model then runs on token ids only; one warning).

Nothing here needs `transformers`: the directory is read with safetensors / torch only.
"""
import argparse
import json
import math
import os
import re
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from attnscope_model import quantize_rows  # noqa: E402

SUPPORTED = ("BERT (BertModel, BertForMaskedLM), GPT-2 (GPT2Model, GPT2LMHeadModel), "
             "Marian (MarianMTModel)")

ARCHITECTURES = {
    "BertModel": ("bert", "none"),
    "BertForMaskedLM": ("bert", "mlm"),
    "GPT2Model": ("gpt2", "none"),
    "GPT2LMHeadModel": ("gpt2", "lm"),
    "MarianMTModel": ("marian", "lm"),
}

ACTIVATIONS = {
    "relu": "relu",
    "gelu": "gelu",                 # exact erf form
    "gelu_new": "gelu_tanh",        # GPT-2's tanh approximation
    "gelu_pytorch_tanh": "gelu_tanh",
    "swish": "silu",                # Marian
    "silu": "silu",
}


class ConvertError(Exception):
    """A problem with the input, reported as one line (no traceback)."""


# ---------------------------------------------------------------------------------------------
# reading the directory

def read_config(hf_dir):
    if not os.path.isdir(hf_dir):
        raise ConvertError(f"{hf_dir}: not a directory (expected a Hugging Face model directory "
                           "with config.json and model.safetensors or pytorch_model.bin)")
    path = os.path.join(hf_dir, "config.json")
    if not os.path.isfile(path):
        raise ConvertError(f"{hf_dir}: no config.json (not a Hugging Face model directory?)")
    try:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ConvertError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(cfg, dict):
        raise ConvertError(f"{path}: not a JSON object")
    return cfg


def read_weights(hf_dir):
    """name -> float32 tensor, from model.safetensors (single or sharded) or pytorch_model.bin."""
    from safetensors.torch import load_file

    st = os.path.join(hf_dir, "model.safetensors")
    index = os.path.join(hf_dir, "model.safetensors.index.json")
    binf = os.path.join(hf_dir, "pytorch_model.bin")
    try:
        if os.path.isfile(st):
            sd = load_file(st)
        elif os.path.isfile(index):
            with open(index, encoding="utf-8") as f:
                shards = sorted(set(json.load(f)["weight_map"].values()))
            sd = {}
            for s in shards:
                sd.update(load_file(os.path.join(hf_dir, s)))
        elif os.path.isfile(binf):
            sd = torch.load(binf, map_location="cpu", weights_only=True)
            if not isinstance(sd, dict):
                raise ConvertError(f"{binf}: not a state dict")
        else:
            raise ConvertError(f"{hf_dir}: no model.safetensors, model.safetensors.index.json or "
                               "pytorch_model.bin")
    except ConvertError:
        raise
    except Exception as e:  # a garbled file (SafetensorsError, OSError, pickle...): one line
        raise ConvertError(f"{hf_dir}: cannot read the weights ({type(e).__name__}: "
                           f"{str(e).splitlines()[0] if str(e) else ''})") from None
    out = {}
    for k, v in sd.items():
        if not isinstance(v, torch.Tensor):
            continue
        if v.is_floating_point():
            v = v.float()
        out[k] = v
    return out


def detect(cfg, sd):
    """-> (family, head) or ConvertError naming what is supported."""
    archs = cfg.get("architectures") or []
    if not isinstance(archs, list):
        archs = [archs]
    for a in archs:
        if a in ARCHITECTURES:
            return ARCHITECTURES[a]
    if archs:
        raise ConvertError(f"unsupported architecture {', '.join(map(str, archs))} "
                           f"(model_type {cfg.get('model_type')!r}); supported: {SUPPORTED}")
    mt = cfg.get("model_type")
    if mt == "bert":
        return "bert", ("mlm" if any(k.startswith("cls.predictions.") for k in sd) else "none")
    if mt == "gpt2":
        return "gpt2", ("lm" if "lm_head.weight" in sd else "none")
    if mt == "marian":
        return "marian", "lm"
    raise ConvertError(f"unsupported model_type {mt!r} (no known `architectures`); "
                       f"supported: {SUPPORTED}")


class Weights:
    """The checkpoint's tensors with a prefix stripped; records which ones were used."""

    def __init__(self, sd, prefixes):
        self.sd = sd
        self.prefixes = prefixes
        self.used = set()

    def key(self, name):
        for p in self.prefixes:
            k = p + name
            if k in self.sd:
                return k
            # old checkpoints: LayerNorm gamma / beta
            for new, old in ((".weight", ".gamma"), (".bias", ".beta")):
                if name.endswith(new):
                    k2 = p + name[: -len(new)] + old
                    if k2 in self.sd:
                        return k2
        return None

    def has(self, name):
        return self.key(name) is not None

    def __getitem__(self, name):
        k = self.key(name)
        if k is None:
            raise ConvertError(f"missing tensor {name!r} (tried prefixes {self.prefixes})")
        self.used.add(k)
        return self.sd[k]


def need(cfg, key, kind=int):
    if key not in cfg or cfg[key] is None:
        raise ConvertError(f"config.json has no {key!r}")
    v = cfg[key]
    if kind is int and not (isinstance(v, int) and not isinstance(v, bool) and v > 0):
        raise ConvertError(f"config.json: {key} = {v!r} is not a positive integer")
    return v


def activation(name):
    if name not in ACTIVATIONS:
        raise ConvertError(f"unsupported activation {name!r} (supported: "
                           f"{', '.join(sorted(ACTIVATIONS))})")
    return ACTIVATIONS[name]


def check_shape(name, t, shape):
    if tuple(t.shape) != tuple(shape):
        raise ConvertError(f"tensor {name}: shape {tuple(t.shape)}, expected {tuple(shape)}")


def same(a, b):
    return a.shape == b.shape and torch.equal(a, b)


# ---------------------------------------------------------------------------------------------
# families

def marian_sinusoidal(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding.create_weight: [sin | cos] halves (not interleaved);
    with an odd dim the sin half has one more column. Computed in float64, returned F32."""
    j = np.arange(dim)
    enc = np.arange(n_pos, dtype=np.float64)[:, None] / np.power(10000.0, 2 * (j // 2) / dim)[None, :]
    out = np.empty((n_pos, dim), dtype=np.float64)
    sentinel = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :sentinel] = np.sin(enc[:, 0::2])
    out[:, sentinel:] = np.cos(enc[:, 1::2])
    return torch.from_numpy(out).float()


def convert_bert(cfg, w, head, log):
    d = need(cfg, "hidden_size")
    H = need(cfg, "num_attention_heads")
    L = need(cfg, "num_hidden_layers")
    ff = need(cfg, "intermediate_size")
    V = need(cfg, "vocab_size")
    P = need(cfg, "max_position_embeddings")
    types = cfg.get("type_vocab_size", 2) or 0
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ConvertError(f"BERT with position_embedding_type {cfg['position_embedding_type']!r} "
                           "is not supported (only absolute positions)")
    if cfg.get("is_decoder") or cfg.get("add_cross_attention"):
        raise ConvertError("BERT as a decoder (is_decoder / add_cross_attention) is not supported")
    if d % H:
        raise ConvertError(f"num_attention_heads {H} does not divide hidden_size {d}")
    act = activation(cfg.get("hidden_act", "gelu"))
    t = {}
    t["src_embed.weight"] = w["embeddings.word_embeddings.weight"]
    t["src_pos.weight"] = w["embeddings.position_embeddings.weight"]
    if types > 0:
        t["src_type.weight"] = w["embeddings.token_type_embeddings.weight"]
        check_shape("src_type.weight", t["src_type.weight"], (types, d))
    t["src_embed_norm.weight"] = w["embeddings.LayerNorm.weight"]
    t["src_embed_norm.bias"] = w["embeddings.LayerNorm.bias"]
    check_shape("src_embed.weight", t["src_embed.weight"], (V, d))
    check_shape("src_pos.weight", t["src_pos.weight"], (P, d))
    for i in range(L):
        p, o = f"encoder.layer.{i}.", f"transformer.encoder.layers.{i}."
        a = p + "attention.self."
        t[o + "self_attn.in_proj_weight"] = torch.cat(
            [w[a + "query.weight"], w[a + "key.weight"], w[a + "value.weight"]], 0)
        t[o + "self_attn.in_proj_bias"] = torch.cat(
            [w[a + "query.bias"], w[a + "key.bias"], w[a + "value.bias"]], 0)
        for ours, theirs in (("self_attn.out_proj", "attention.output.dense"),
                             ("norm1", "attention.output.LayerNorm"),
                             ("linear1", "intermediate.dense"),
                             ("linear2", "output.dense"),
                             ("norm2", "output.LayerNorm")):
            t[o + ours + ".weight"] = w[p + theirs + ".weight"]
            t[o + ours + ".bias"] = w[p + theirs + ".bias"]
        check_shape(o + "self_attn.in_proj_weight", t[o + "self_attn.in_proj_weight"], (3 * d, d))
        check_shape(o + "linear1.weight", t[o + "linear1.weight"], (ff, d))
    tie, logits_bias = False, False
    if head == "mlm":
        c = "cls.predictions."
        t["mlm.dense.weight"] = w[c + "transform.dense.weight"]
        t["mlm.dense.bias"] = w[c + "transform.dense.bias"]
        t["mlm.norm.weight"] = w[c + "transform.LayerNorm.weight"]
        t["mlm.norm.bias"] = w[c + "transform.LayerNorm.bias"]
        if w.has(c + "decoder.weight") and not same(w[c + "decoder.weight"], t["src_embed.weight"]):
            t["generator.weight"] = w[c + "decoder.weight"]
            check_shape("generator.weight", t["generator.weight"], (V, d))
        elif w.has(c + "decoder.weight") or cfg.get("tie_word_embeddings", True):
            tie = True
        else:
            raise ConvertError("BERT MLM: no cls.predictions.decoder.weight and "
                               "tie_word_embeddings is false")
        # HF's logits use decoder.bias; `predictions.bias` is tied to it only with
        # tie_word_embeddings (both are saved, equal, in real checkpoints)
        bias = w[c + "decoder.bias"] if w.has(c + "decoder.bias") else w[c + "bias"]
        t["generator.bias"] = bias
        check_shape("generator.bias", bias, (V,))
        logits_bias = True
    if any(k.startswith("pooler.") or ".pooler." in k or k.startswith("cls.seq_relationship")
           for k in w.sd):
        log("note: the BERT pooler (and any NSP head) is dropped: attnscope shows the hidden "
            "states and the MLM head only")
    meta = {
        "architecture": "encoder_only", "d_model": d, "nhead": H,
        "num_encoder_layers": L, "num_decoder_layers": 0, "dim_feedforward": ff,
        "activation": act, "norm_first": False,
        "layer_norm_eps": float(cfg.get("layer_norm_eps", 1e-12)),
        "positional": "learned", "max_len": P, "scale_embedding": False,
        "embed_norm": True, "type_vocab_size": types, "final_norm": False, "head": head,
        "tie_embeddings": tie, "logits_bias": logits_bias,
    }
    return t, meta, V, None


def convert_gpt2(cfg, w, head, log):
    d = need(cfg, "n_embd")
    H = need(cfg, "n_head")
    L = need(cfg, "n_layer")
    V = need(cfg, "vocab_size")
    P = need(cfg, "n_positions")
    ff = cfg.get("n_inner") or 4 * d
    if d % H:
        raise ConvertError(f"n_head {H} does not divide n_embd {d}")
    if cfg.get("add_cross_attention"):
        raise ConvertError("GPT-2 with cross-attention (add_cross_attention) is not supported")
    if not cfg.get("scale_attn_weights", True):
        raise ConvertError("GPT-2 with scale_attn_weights = false is not supported (attnscope "
                           "always scales by 1/sqrt(d_k) unless a run turns scaling off)")
    if cfg.get("scale_attn_by_inverse_layer_idx"):
        raise ConvertError("GPT-2 with scale_attn_by_inverse_layer_idx is not supported")
    act = activation(cfg.get("activation_function", "gelu_new"))
    t = {"tgt_embed.weight": w["wte.weight"], "tgt_pos.weight": w["wpe.weight"]}
    check_shape("tgt_embed.weight", t["tgt_embed.weight"], (V, d))
    check_shape("tgt_pos.weight", t["tgt_pos.weight"], (P, d))
    for i in range(L):
        p, o = f"h.{i}.", f"transformer.decoder.layers.{i}."
        # Conv1D stores (in, out): y = x W + b; a PyTorch Linear is (out, in)
        for ours, theirs, shape in (("self_attn.in_proj", "attn.c_attn", (3 * d, d)),
                                    ("self_attn.out_proj", "attn.c_proj", (d, d)),
                                    ("linear1", "mlp.c_fc", (ff, d)),
                                    ("linear2", "mlp.c_proj", (d, ff))):
            wt = w[p + theirs + ".weight"].t().contiguous()
            check_shape(p + theirs + ".weight (transposed)", wt, shape)
            sfx = "_" if ours.endswith("in_proj") else "."
            t[o + ours + sfx + "weight"] = wt
            t[o + ours + sfx + "bias"] = w[p + theirs + ".bias"]
        for ours, theirs in (("norm1", "ln_1"), ("norm3", "ln_2")):
            t[o + ours + ".weight"] = w[p + theirs + ".weight"]
            t[o + ours + ".bias"] = w[p + theirs + ".bias"]
    t["transformer.decoder.norm.weight"] = w["ln_f.weight"]
    t["transformer.decoder.norm.bias"] = w["ln_f.bias"]
    tie = False
    if head == "lm":
        lm = w.sd.get("lm_head.weight")
        if lm is not None and not same(lm, t["tgt_embed.weight"]):
            check_shape("lm_head.weight", lm, (V, d))
            t["generator.weight"] = lm
            w.used.add("lm_head.weight")
        elif lm is not None or cfg.get("tie_word_embeddings", True):
            tie = True
            if lm is not None:
                w.used.add("lm_head.weight")
        else:
            raise ConvertError("GPT-2: no lm_head.weight and tie_word_embeddings is false")
    meta = {
        "architecture": "decoder_only", "d_model": d, "nhead": H,
        "num_encoder_layers": 0, "num_decoder_layers": L, "dim_feedforward": ff,
        "activation": act, "norm_first": True,
        "layer_norm_eps": float(cfg.get("layer_norm_epsilon", 1e-5)),
        "positional": "learned", "max_len": P, "scale_embedding": False,
        "embed_norm": False, "type_vocab_size": 0, "final_norm": True, "head": head,
        "tie_embeddings": tie, "logits_bias": False,
    }
    return t, meta, V, None


def convert_marian(cfg, w, head, log):
    d = need(cfg, "d_model")
    H = need(cfg, "encoder_attention_heads")
    Le = need(cfg, "encoder_layers")
    Ld = need(cfg, "decoder_layers")
    ff = need(cfg, "encoder_ffn_dim")
    V = need(cfg, "vocab_size")
    P = need(cfg, "max_position_embeddings")
    if cfg.get("decoder_attention_heads", H) != H:
        raise ConvertError("Marian with different encoder / decoder head counts is not supported")
    if cfg.get("decoder_ffn_dim", ff) != ff:
        raise ConvertError("Marian with different encoder / decoder ffn dims is not supported")
    if d % H:
        raise ConvertError(f"encoder_attention_heads {H} does not divide d_model {d}")
    # HF's Marian layers are post-norm in code (MarianEncoderLayer / MarianDecoderLayer);
    # a config asking for anything else is not what that code runs
    if cfg.get("normalize_before") or cfg.get("add_final_layer_norm") or \
            cfg.get("normalize_embedding") or cfg.get("layernorm_embedding"):
        raise ConvertError("Marian with normalize_before / add_final_layer_norm / "
                           "normalize_embedding is not supported (HF's Marian is post-norm)")
    act = activation(cfg.get("activation_function", "gelu"))
    shared = cfg.get("share_encoder_decoder_embeddings", True)
    Vd = V if shared else (cfg.get("decoder_vocab_size") or V)
    t = {}
    if w.has("shared.weight"):
        emb = w["shared.weight"]
    else:
        emb = w["encoder.embed_tokens.weight"]
    src_emb = w["encoder.embed_tokens.weight"] if w.has("encoder.embed_tokens.weight") else emb
    tgt_emb = w["decoder.embed_tokens.weight"] if w.has("decoder.embed_tokens.weight") else emb
    t["src_embed.weight"] = src_emb
    t["tgt_embed.weight"] = tgt_emb
    check_shape("src_embed.weight", src_emb, (V, d))
    check_shape("tgt_embed.weight", tgt_emb, (Vd, d))
    # the positional tables are not in the checkpoint (HF recomputes them on load)
    pe = marian_sinusoidal(P, d)
    for side, name in (("src", "encoder"), ("tgt", "decoder")):
        k = f"{name}.embed_positions.weight"
        if w.has(k):
            got = w[k]
            check_shape(k, got, (P, d))
            if (got - pe).abs().max().item() > 1e-5:
                log(f"note: {k} in the checkpoint differs from the sinusoidal table; stored as is")
            t[f"{side}_pos.weight"] = got
        else:
            t[f"{side}_pos.weight"] = pe.clone()

    def attn(o, p):
        t[o + ".in_proj_weight"] = torch.cat(
            [w[p + ".q_proj.weight"], w[p + ".k_proj.weight"], w[p + ".v_proj.weight"]], 0)
        t[o + ".in_proj_bias"] = torch.cat(
            [w[p + ".q_proj.bias"], w[p + ".k_proj.bias"], w[p + ".v_proj.bias"]], 0)
        t[o + ".out_proj.weight"] = w[p + ".out_proj.weight"]
        t[o + ".out_proj.bias"] = w[p + ".out_proj.bias"]
        check_shape(o + ".in_proj_weight", t[o + ".in_proj_weight"], (3 * d, d))

    def copy(o, p):
        t[o + ".weight"] = w[p + ".weight"]
        t[o + ".bias"] = w[p + ".bias"]

    for i in range(Le):
        p, o = f"encoder.layers.{i}", f"transformer.encoder.layers.{i}"
        attn(o + ".self_attn", p + ".self_attn")
        copy(o + ".norm1", p + ".self_attn_layer_norm")
        copy(o + ".linear1", p + ".fc1")
        copy(o + ".linear2", p + ".fc2")
        copy(o + ".norm2", p + ".final_layer_norm")
    for i in range(Ld):
        p, o = f"decoder.layers.{i}", f"transformer.decoder.layers.{i}"
        attn(o + ".self_attn", p + ".self_attn")
        copy(o + ".norm1", p + ".self_attn_layer_norm")
        attn(o + ".multihead_attn", p + ".encoder_attn")
        copy(o + ".norm2", p + ".encoder_attn_layer_norm")
        copy(o + ".linear1", p + ".fc1")
        copy(o + ".linear2", p + ".fc2")
        copy(o + ".norm3", p + ".final_layer_norm")
    lm = w.sd.get("lm_head.weight")
    if lm is not None:
        w.used.add("lm_head.weight")
    if lm is not None and not same(lm, tgt_emb):
        check_shape("lm_head.weight", lm, (Vd, d))
        t["generator.weight"] = lm
        tie = False
    elif lm is not None or cfg.get("tie_word_embeddings", True):
        tie = True
    else:
        raise ConvertError("Marian: no lm_head.weight and tie_word_embeddings is false")
    flb = w.sd.get("final_logits_bias")
    if flb is not None:
        w.used.add("final_logits_bias")
        t["generator.bias"] = flb.reshape(-1)
    else:
        t["generator.bias"] = torch.zeros(Vd)
    check_shape("generator.bias", t["generator.bias"], (Vd,))
    meta = {
        "architecture": "encoder_decoder", "d_model": d, "nhead": H,
        "num_encoder_layers": Le, "num_decoder_layers": Ld, "dim_feedforward": ff,
        "activation": act, "norm_first": False,
        "layer_norm_eps": 1e-5,  # nn.LayerNorm's default: HF's Marian passes no eps
        "positional": "learned", "max_len": P,
        "scale_embedding": bool(cfg.get("scale_embedding", False)),
        "embed_norm": False, "type_vocab_size": 0, "final_norm": False, "head": "lm",
        "tie_embeddings": tie, "logits_bias": True,
    }
    return t, meta, V, Vd


FAMILIES = {"bert": (convert_bert, ["bert.", ""]),
            "gpt2": (convert_gpt2, ["transformer.", ""]),
            "marian": (convert_marian, ["model.", ""])}


# ---------------------------------------------------------------------------------------------
# vocabulary and tokenizer

def placeholder_tokens(family, head, cfg, n):
    """(vocab, specials, prefix, suffix, missing) with "<id:N>" strings, specials from config ids."""
    vocab = [f"<id:{i}>" for i in range(n)]

    def tok(*keys):
        for k in keys:
            v = cfg.get(k)
            if isinstance(v, list):
                v = v[0] if v else None
            if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n:
                return vocab[v]
        return None

    missing = []

    def pick(name, *keys, default_keys=("pad_token_id",)):
        v = tok(*keys)
        if v is None:
            missing.append(name)
            v = tok(*default_keys) or vocab[0]
        return v

    if family == "bert":
        specials = {"pad": pick("pad", "pad_token_id"),
                    "bos": pick("bos", "cls_token_id", "bos_token_id"),
                    "eos": pick("eos", "sep_token_id", "eos_token_id"),
                    "unk": pick("unk", "unk_token_id")}
        if head == "mlm":
            specials["mask"] = pick("mask", "mask_token_id")
        prefix, suffix = [specials["bos"]], [specials["eos"]]
    elif family == "gpt2":
        eos = pick("eos", "eos_token_id", default_keys=("bos_token_id",))
        specials = {"pad": tok("pad_token_id") or eos, "bos": tok("bos_token_id") or eos,
                    "eos": eos, "unk": tok("unk_token_id") or eos}
        prefix, suffix = [], []
    else:
        specials = {"pad": pick("pad", "pad_token_id"),
                    "bos": pick("bos", "decoder_start_token_id", "pad_token_id"),
                    "eos": pick("eos", "eos_token_id"),
                    "unk": pick("unk", "unk_token_id")}
        prefix, suffix = [], [specials["eos"]]
    return vocab, specials, prefix, suffix, missing


def tokenizer_part(hf_dir, family, head, cfg, n_src, n_tgt, log):
    """-> (src_vocab, tgt_vocab, specials, tokenizer dict) as the architecture needs."""
    n = n_src if n_src is not None else n_tgt
    tm = None
    try:
        from convert_tokenizer import tokenizer_metadata  # train/convert_tokenizer.py
    except ImportError:
        tokenizer_metadata = None
    why = "train/convert_tokenizer.py is missing" if tokenizer_metadata is None else \
        "the directory has no tokenizer files"
    if tokenizer_metadata is not None:
        try:
            tm = tokenizer_metadata(hf_dir)
        except (ValueError, KeyError, OSError) as e:  # tokenizer files we cannot carry
            why = f"its tokenizer is not supported ({e})"
    if tm is not None:
        vocab = list(tm["vocab"])
        if len(vocab) > n:
            raise ConvertError(f"the tokenizer has {len(vocab)} tokens, the embeddings {n} rows")
        vocab += [f"<id:{i}>" for i in range(len(vocab), n)]  # rows the tokenizer never makes
        specials = dict(tm["specials"])
        tok = {"lowercase": False, "contractions": False}
        if tm.get("subword") is not None:
            tok["subword"] = tm["subword"]
        if tm.get("target_subword") is not None:
            tok["target_subword"] = tm["target_subword"]
        tok["source_prefix"] = list(tm.get("source_prefix", []))
        tok["source_suffix"] = list(tm.get("source_suffix", []))
        tgt_vocab = vocab
        if n_tgt is not None and n_src is not None and n_tgt != n_src:
            tv = tm.get("target_vocab")
            tgt_vocab = list(tv) if tv is not None else []
            tgt_vocab += [f"<id:{i}>" for i in range(len(tgt_vocab), n_tgt)]
    else:
        vocab, specials, prefix, suffix, missing = placeholder_tokens(family, head, cfg, n)
        extra = (f"; config.json gives no usable {', '.join(missing)} id, so "
                 f"{'it is' if len(missing) == 1 else 'they are'} {specials['pad']}"
                 if missing else "")
        log(f"warning: no tokenizer ({why}): the vocabulary is placeholders \"<id:N>\", so the "
            f"model will run on token ids only{extra}")
        tok = {"lowercase": False, "contractions": False,
               "source_prefix": prefix, "source_suffix": suffix}
        tgt_vocab = vocab
        if n_tgt is not None and n_src is not None and n_tgt != n_src:
            tgt_vocab = [f"<id:{i}>" for i in range(n_tgt)]
    if family == "bert":
        return vocab, [], specials, tok
    if family == "gpt2":
        return [], tgt_vocab, specials, tok
    return vocab, tgt_vocab, specials, tok


# ---------------------------------------------------------------------------------------------

# checkpoint tensors that are dropped on purpose: BERT's pooler and NSP head (logged), the MLM
# bias twin, GPT-2's causal-mask buffers of old checkpoints, position-id buffers, Marian's
# sinusoidal tables (recomputed or copied), the shared embedding when per-side copies are used
IGNORABLE = re.compile(r"(^|\.)(pooler\.|cls\.seq_relationship|cls\.predictions\.(bias|decoder\.)|"
                       r"h\.\d+\.attn\.(bias|masked_bias)$|.*position_ids$|.*embed_positions|"
                       r"shared\.weight$|.*embed_tokens\.weight$|lm_head\.weight$)")

META_ORDER = ["format", "architecture", "d_model", "nhead", "num_encoder_layers",
              "num_decoder_layers", "dim_feedforward", "activation", "norm_first",
              "layer_norm_eps", "positional", "max_len", "scale_embedding", "embed_norm",
              "type_vocab_size", "final_norm", "head", "tie_embeddings", "logits_bias",
              "src_vocab", "tgt_vocab", "specials", "tokenizer"]


def convert_dir(hf_dir, log=None):
    """Read a Hugging Face directory -> (tensors {our name: F32 tensor}, metadata dict)."""
    if log is None:
        def log(msg):
            print(msg, file=sys.stderr)
    cfg = read_config(hf_dir)
    detect(cfg, {})  # an unsupported architecture is reported before the weights are read
    sd = read_weights(hf_dir)
    family, head = detect(cfg, sd)
    fn, prefixes = FAMILIES[family]
    w = Weights(sd, prefixes)
    tensors, meta, n_src, n_tgt = fn(cfg, w, head, log)
    if family == "gpt2":
        n_src, n_tgt = None, n_src
    src_vocab, tgt_vocab, specials, tok = tokenizer_part(hf_dir, family, head, cfg, n_src,
                                                         n_tgt, log)
    ignored = sorted(k for k in sd if k not in w.used and not IGNORABLE.search(k))
    if ignored:
        log(f"note: {len(ignored)} checkpoint tensors not converted: "
            f"{', '.join(ignored[:6])}{' ...' if len(ignored) > 6 else ''}")
    for k, v in tensors.items():
        if v.is_floating_point() and not torch.isfinite(v).all():
            raise ConvertError(f"tensor {k} has non-finite values")
    meta.update(format=1, src_vocab=src_vocab, tgt_vocab=tgt_vocab, specials=specials,
                tokenizer=tok)
    meta = {k: meta[k] for k in META_ORDER}
    tensors = {k: v.detach().float().contiguous().clone() for k, v in tensors.items()}
    return tensors, meta


def int8_names(tensors, linears=False):
    """The tensors `--int8` stores as I8: token embeddings and an untied generator; with
    `linears` also every layer's 2-D weight and BERT's MLM dense."""
    names = [n for n in ("src_embed.weight", "tgt_embed.weight", "generator.weight")
             if n in tensors]
    if linears:
        names += [n for n, v in tensors.items()
                  if v.dim() == 2 and (n.startswith("transformer.") or n.startswith("mlm."))]
    return names


def save(tensors, meta, out_path, int8=(), f16=()):
    """Write the attnscope file; `int8` names are stored I8 + F16 `NAME_scale` (quantize_rows),
    `f16` names F16 (rounded to nearest; the engine widens them back to F32), the rest F32."""
    from safetensors.torch import save_file

    out = {}
    for k, v in tensors.items():
        if k in int8:
            out[k], out[k + "_scale"] = quantize_rows(v)
        elif k in f16:
            out[k] = v.half().contiguous()
        else:
            out[k] = v.float().contiguous()
    save_file(out, out_path, metadata={"attnscope": json.dumps(meta, ensure_ascii=False)})
    os.chmod(out_path, 0o644)  # safetensors creates 0600 files


def convert(hf_dir, out_path, int8=False, int8_linears=False, log=None):
    """Convert HF_DIR into OUT_PATH; returns the metadata dict."""
    tensors, meta = convert_dir(hf_dir, log=log)
    names = int8_names(tensors, linears=int8_linears) if (int8 or int8_linears) else []
    save(tensors, meta, out_path, int8=names)
    return meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hf_dir", help="Hugging Face model directory (save_pretrained output)")
    ap.add_argument("out", help="output .safetensors")
    ap.add_argument("--int8", action="store_true",
                    help="token embeddings and an untied generator as int8 with per-row scales")
    ap.add_argument("--int8-linears", action="store_true",
                    help="also the layers' 2-D weights as int8 (implies --int8)")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    try:
        meta = convert(args.hf_dir, args.out, int8=args.int8, int8_linears=args.int8_linears)
    except ConvertError as e:
        print(f"convert.py: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"convert.py: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    size = os.path.getsize(args.out)
    print(f"{args.out}: {meta['architecture']}, d_model {meta['d_model']}, {meta['nhead']} heads, "
          f"layers {meta['num_encoder_layers']}/{meta['num_decoder_layers']}, head "
          f"{meta['head']}, {size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
