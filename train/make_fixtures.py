"""Generate the PyTorch parity fixtures for the Rust engine: tests/fixtures/parity/.

Run:  /work/venv/bin/python train/make_fixtures.py

For every config NAME below it writes
  NAME.safetensors           the model, via attnscope_model.export() (F32, one F16, one BF16)
  NAME.expected.safetensors  inputs + expected outputs (F32; ids I64) and
                             __metadata__ {"options": JSON} with the run options.

Expected tensors:
  src_ids (S,) I64, tgt_ids (T,) I64
  encoder_output (S, d)   memory after transformer.encoder.norm
  decoder_output (T, d)   after transformer.decoder.norm
  logits (T, V_tgt)
  attn.encoder (L_enc, H, S, S), attn.decoder_self (L_dec, H, T, T), attn.cross (L_dec, H, T, S)
      per-head softmax weights, H = the heads used in this run ("heads" option)
  override.K (d_k, d)     replacement W_Q / W_K head blocks listed in options["overrides"]
  only for the configs with analysis=True (train/analysis_reference.py, numpy, from the float64
  run's per-head weights and values; STACK = encoder | decoder_self | cross):
  vw.value_norms.STACK (L, H, T_k)         ||v_j W_O^(h)||            (Kobayashi et al. 2020)
  vw.norms.STACK (L, H, T_q, T_k)          ||w_ij v_j W_O^(h)||
  vw.normalized.STACK (L, H, T_q, T_k)     the same, rows divided by their sums
  rollout.encoder (L_enc, S, S), rollout.decoder_self (L_dec, T, T), rollout.cross (L_dec, T, S)
                                           attention rollout per layer (Abnar & Zuidema 2020)

Options (JSON): {"heads": H, "scale": bool, "causal_decoder": bool, "causal_encoder": bool,
                 "positional": bool, "overrides": [{"stack", "layer", "head", "matrix", "tensor"}],
                 "knock_out": [{"stack", "layer", "head"}] (only when some head is knocked out)}
  heads           run with H heads (may differ from the exported nhead; same weights)
  scale           false: attention scores are NOT divided by sqrt(d_k)
  causal_decoder  false: decoder self-attention without the causal mask
  causal_encoder  true: encoder self-attention with a causal mask
  positional      false: no positional encoding is added (sinusoidal or learned)
  overrides       for this run, in_proj_weight rows of one head's W_Q ("q") or W_K ("k") block
                  in stack "encoder" | "decoder_self" | "decoder_cross" are replaced by the
                  tensor; biases untouched. The exported model file keeps the original weights.
  knock_out       heads whose output is replaced by zeros before out_proj (the head mask): in
                  PyTorch, the head's d_k input columns of out_proj.weight are set to zero.

PyTorch has no "no scaling" switch, so scale=false is emulated in a private copy of the model by
multiplying the query rows of every in_proj_weight / in_proj_bias by sqrt(d_k).

Every fixture is re-checked against an independent float64 re-implementation that reads the
written files back (so the files, not the in-memory models, are what is verified).
"""
import copy
import json
import math
import os
import sys
import warnings

import numpy as np
import torch
from torch import nn
from safetensors.torch import load_file, save_file
from safetensors import safe_open

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from attnscope_model import Seq2Seq, export  # noqa: E402
import analysis_reference  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "tests", "fixtures", "parity")
MAX_BYTES = 3 * 1024 * 1024

torch.set_num_threads(1)
warnings.filterwarnings("ignore", message=r".*enable_nested_tensor.*")

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def vocab(n):
    return ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"w{i}" for i in range(4, n)]


def C(name, seed, d, nhead, enc, dec, ff, act, norm_first, pos, scale_emb, eps, S, T,
      src_v, tgt_v, max_len=48, dtype="F32", analysis=False, tie=False, **run):
    """A fixture config; `run` holds the run options that differ from the defaults; `analysis`
    adds the value-weighted and rollout reference tensors; `tie` makes the generator's weight the
    target embedding table (the file then has no generator.weight)."""
    opts = {"heads": nhead, "scale": True, "causal_decoder": True, "causal_encoder": False,
            "positional": True, "overrides": [], "knock_out": []}
    for k, v in run.items():
        assert k in opts, k
        opts[k] = v
    assert d % nhead == 0 and d % opts["heads"] == 0
    assert max(S, T) <= max_len
    cfg = {
        "d_model": d, "nhead": nhead, "num_encoder_layers": enc, "num_decoder_layers": dec,
        "dim_feedforward": ff, "activation": act, "norm_first": norm_first,
        "layer_norm_eps": eps, "positional": pos, "max_len": max_len,
        "scale_embedding": scale_emb, "src_vocab": vocab(src_v), "tgt_vocab": vocab(tgt_v),
        "dropout": 0.0,
    }
    if tie:
        cfg["tie_embeddings"] = True
    return {"name": name, "seed": seed, "cfg": cfg, "S": S, "T": T, "dtype": dtype, "opts": opts,
            "analysis": analysis}


# overrides are given as (stack, layer, head, matrix); the tensors are drawn by the script
CONFIGS = [
    C("tiny_post_relu", 101, d=8, nhead=2, enc=1, dec=1, ff=16, act="relu", norm_first=False,
      pos="sinusoidal", scale_emb=True, eps=1e-5, S=5, T=4, src_v=10, tgt_v=12),
    C("pre_gelu_learned", 102, d=16, nhead=4, enc=2, dec=3, ff=24, act="gelu", norm_first=True,
      pos="learned", scale_emb=False, eps=1e-5, S=7, T=6, src_v=23, tgt_v=17, max_len=16),
    C("src_len1_nopos", 103, d=12, nhead=3, enc=2, dec=1, ff=20, act="relu", norm_first=False,
      pos="none", scale_emb=True, eps=1e-5, S=1, T=5, src_v=11, tgt_v=14),
    C("tgt_len1_odd_d", 104, d=21, nhead=3, enc=1, dec=2, ff=30, act="gelu", norm_first=True,
      pos="sinusoidal", scale_emb=True, eps=1e-3, S=6, T=1, src_v=15, tgt_v=13),
    C("long40", 105, d=32, nhead=8, enc=2, dec=2, ff=48, act="gelu", norm_first=False,
      pos="sinusoidal", scale_emb=False, eps=1e-5, S=40, T=40, src_v=60, tgt_v=50),
    C("heads_resplit", 106, d=24, nhead=2, enc=2, dec=2, ff=40, act="relu", norm_first=True,
      pos="learned", scale_emb=True, eps=1e-5, S=9, T=7, src_v=20, tgt_v=20, max_len=12,
      heads=6),
    C("no_scale", 107, d=16, nhead=2, enc=1, dec=2, ff=32, act="gelu", norm_first=False,
      pos="sinusoidal", scale_emb=False, eps=1e-5, S=8, T=6, src_v=18, tgt_v=16, scale=False),
    C("mask_flip", 108, d=16, nhead=4, enc=3, dec=1, ff=28, act="relu", norm_first=True,
      pos="sinusoidal", scale_emb=True, eps=1e-5, S=10, T=8, src_v=25, tgt_v=22,
      causal_decoder=False, causal_encoder=True),
    C("nopos_sinusoidal", 109, d=24, nhead=4, enc=1, dec=1, ff=36, act="gelu", norm_first=False,
      pos="sinusoidal", scale_emb=True, eps=1e-5, S=6, T=5, src_v=14, tgt_v=19,
      positional=False),
    C("nopos_learned_1head", 110, d=8, nhead=1, enc=2, dec=2, ff=12, act="relu",
      norm_first=True, pos="learned", scale_emb=False, eps=1e-6, S=9, T=9, src_v=12, tgt_v=10,
      max_len=10, positional=False),
    C("qk_overrides", 111, d=32, nhead=4, enc=2, dec=2, ff=40, act="gelu", norm_first=False,
      pos="sinusoidal", scale_emb=False, eps=1e-5, S=7, T=6, src_v=30, tgt_v=28,
      overrides=[("encoder", 0, 1, "q"), ("decoder_cross", 1, 0, "k")]),
    C("d96_f16", 112, d=96, nhead=8, enc=1, dec=1, ff=64, act="relu", norm_first=False,
      pos="sinusoidal", scale_emb=True, eps=1e-5, S=12, T=10, src_v=40, tgt_v=36, dtype="F16"),
    C("bf16_pre", 113, d=40, nhead=5, enc=2, dec=1, ff=56, act="gelu", norm_first=True,
      pos="learned", scale_emb=False, eps=1e-6, S=11, T=9, src_v=33, tgt_v=27, max_len=16,
      dtype="BF16"),
    C("combo_all_options", 114, d=24, nhead=4, enc=2, dec=3, ff=20, act="relu", norm_first=False,
      pos="learned", scale_emb=True, eps=1e-3, S=8, T=7, src_v=26, tgt_v=24, max_len=12,
      heads=3, scale=False, causal_decoder=False, causal_encoder=True, positional=False,
      overrides=[("decoder_self", 2, 2, "q"), ("encoder", 1, 0, "k"), ("decoder_cross", 0, 1, "q")]),
    # knock-outs (stack, layer, head), with the value-weighted and rollout references
    C("knock_out_post", 115, d=16, nhead=4, enc=2, dec=2, ff=24, act="relu", norm_first=False,
      pos="sinusoidal", scale_emb=True, eps=1e-5, S=6, T=5, src_v=14, tgt_v=15, analysis=True,
      knock_out=[("encoder", 0, 1), ("decoder_self", 1, 0), ("decoder_cross", 0, 2),
                 ("decoder_cross", 0, 3)]),
    # every head of encoder layer 1 and of cross-attention layer 0: only the residual path
    C("knock_out_layers_pre", 116, d=24, nhead=2, enc=2, dec=2, ff=32, act="gelu",
      norm_first=True, pos="learned", scale_emb=False, eps=1e-5, S=7, T=6, src_v=16, tgt_v=13,
      max_len=12, analysis=True, heads=3, causal_encoder=True,
      knock_out=[("encoder", 1, 0), ("encoder", 1, 1), ("encoder", 1, 2), ("decoder_cross", 0, 0),
                 ("decoder_cross", 0, 1), ("decoder_cross", 0, 2), ("decoder_self", 1, 2)]),
    # the translator's shape with its generator tied to the target embedding (train.py --tie)
    C("tied_generator", 117, d=16, nhead=4, enc=2, dec=2, ff=32, act="relu", norm_first=False,
      pos="sinusoidal", scale_emb=True, eps=1e-5, S=7, T=6, src_v=21, tgt_v=19, tie=True),
]

STACKS = {"encoder": ("encoder", "self_attn"), "decoder_self": ("decoder", "self_attn"),
          "decoder_cross": ("decoder", "multihead_attn")}


def mha_of(model, stack, layer):
    side, attr = STACKS[stack]
    return getattr(getattr(model.transformer, side).layers[layer], attr)


# ---------------------------------------------------------------------------------------------
# random weights with a spread that makes the attention non-uniform (but not one-hot)

def init_weights(model, cfg, g):
    d = cfg["d_model"]

    def randn(shape, std, mean=0.0):
        return torch.randn(shape, generator=g) * std + mean

    with torch.no_grad():
        for name, p in model.named_parameters():
            fan_in = p.shape[-1] if p.dim() == 2 else d
            if name.endswith("_embed.weight"):
                # with scale_embedding the sqrt(d) factor brings the embeddings to ~unit scale
                v = randn(p.shape, 1.0 / math.sqrt(d) if cfg["scale_embedding"] else 1.0)
            elif name.endswith("_pos.weight"):
                v = randn(p.shape, 0.5)
            elif name.endswith("in_proj_weight"):
                v = randn(p.shape, 1.6 / math.sqrt(d))
            elif name.endswith("in_proj_bias"):
                v = randn(p.shape, 0.3)
            elif ".norm" in name and name.endswith("weight"):
                v = randn(p.shape, 0.25, 1.0)
            elif ".norm" in name and name.endswith("bias"):
                v = randn(p.shape, 0.2)
            elif name.endswith("weight"):  # out_proj, linear1, linear2, generator
                v = randn(p.shape, 1.3 / math.sqrt(fan_in))
            elif name.endswith("bias"):
                v = randn(p.shape, 0.2)
            else:
                raise AssertionError(name)
            p.copy_(v)


# ---------------------------------------------------------------------------------------------
# running PyTorch with per-head attention capture

class Capture:
    """Wraps every MultiheadAttention.forward to ask for per-head weights and record them."""

    def __init__(self, model):
        self.model = model
        self.records = {}
        self.values = {}  # (stack, layer) -> the values of every head side by side, (T_k, d)
        self.originals = []
        for stack in STACKS:
            side, _ = STACKS[stack]
            for i in range(len(getattr(model.transformer, side).layers)):
                m = mha_of(model, stack, i)
                self.originals.append((m, m.forward))
                m.forward = self._wrap(m, m.forward, (stack, i))

    def _wrap(self, m, orig, key):
        def forward(*args, **kwargs):
            d = m.embed_dim
            value = args[2]  # forward(query, key, value, ...)
            self.values[key] = (value @ m.in_proj_weight[2 * d:].T + m.in_proj_bias[2 * d:])[0].detach()
            kwargs["need_weights"] = True
            kwargs["average_attn_weights"] = False
            out, w = orig(*args, **kwargs)
            assert w is not None and w.dim() == 4, (key, None if w is None else w.shape)
            assert key not in self.records, f"{key} called twice"
            self.records[key] = w.detach().clone()
            return out, w
        return forward

    def remove(self):
        for m, f in self.originals:
            del m.forward  # the instance attribute; the class method shows through again
            assert m.forward.__func__ is nn.MultiheadAttention.forward


def run_model(model, src, tgt, opts):
    """One forward pass (grad enabled, so no fused fast path) -> dict of expected tensors."""
    model.use_positional = opts["positional"]
    outs = {}
    hooks = [
        model.transformer.encoder.register_forward_hook(
            lambda m, a, o: outs.__setitem__("encoder_output", o.detach().clone())),
        model.transformer.decoder.register_forward_hook(
            lambda m, a, o: outs.__setitem__("decoder_output", o.detach().clone())),
    ]
    cap = Capture(model)
    try:
        assert torch.is_grad_enabled()
        logits = model(src[None], tgt[None], causal_decoder=opts["causal_decoder"],
                       causal_encoder=opts["causal_encoder"]).detach()
    finally:
        cap.remove()
        for h in hooks:
            h.remove()

    kw = dict(causal_decoder=opts["causal_decoder"], causal_encoder=opts["causal_encoder"])
    # The wrappers must not change the computation. In float32 the wrapped path (bmm + softmax)
    # and the plain one (need_weights=False -> scaled_dot_product_attention) round differently
    # (~1e-6 on logits), so the exact check is done in float64, the float32 one loosely.
    plain = model(src[None], tgt[None], **kw).detach()
    plain_diff = (plain - logits).abs().max().item()
    assert plain_diff < 1e-5, plain_diff
    m64 = copy.deepcopy(model).double()  # (converts the `pe` buffer too)
    torch.set_default_dtype(torch.float64)  # Seq2Seq.forward builds its masks in the default
    try:
        want = m64(src[None], tgt[None], **kw).detach()
        cap64 = Capture(m64)
        got = m64(src[None], tgt[None], **kw).detach()
        cap64.remove()
        cap64.out_proj = {k: mha_of(m64, *k).out_proj.weight.detach().clone() for k in cap64.records}
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.allclose(got, want, rtol=0, atol=1e-6), (got - want).abs().max()
    assert (got - want).abs().max().item() < 1e-12
    # PyTorch's inference path (no_grad: fused encoder-layer fast path where eligible)
    with torch.no_grad():
        fast = model(src[None], tgt[None], **kw)
    fast_diff = max((fast - logits).abs().max().item(), plain_diff)

    ec, dc = model.cfg["num_encoder_layers"], model.cfg["num_decoder_layers"]
    attn = {
        "attn.encoder": torch.stack([cap.records[("encoder", i)][0] for i in range(ec)]),
        "attn.decoder_self": torch.stack([cap.records[("decoder_self", i)][0] for i in range(dc)]),
        "attn.cross": torch.stack([cap.records[("decoder_cross", i)][0] for i in range(dc)]),
    }
    assert len(cap.records) == ec + 2 * dc
    for k, w in attn.items():
        assert torch.allclose(w.sum(-1), torch.ones(()), rtol=0, atol=1e-5), k
    res = {
        "encoder_output": outs["encoder_output"][0],
        "decoder_output": outs["decoder_output"][0],
        "logits": logits[0],
        **attn,
    }
    assert torch.allclose(model.generator(res["decoder_output"]).detach(), res["logits"],
                          rtol=0, atol=1e-6)
    return res, fast_diff, cap64


def analysis_tensors(cap, opts):
    """The value-weighted and rollout references (numpy, float64) from a float64 run's capture."""
    out = {}
    ec = 1 + max(i for s, i in cap.records if s == "encoder")
    dc = 1 + max(i for s, i in cap.records if s == "decoder_self")
    names = {"encoder": ("encoder", ec), "decoder_self": ("decoder_self", dc), "cross": ("decoder_cross", dc)}
    weights = {}
    for name, (stack, layers) in names.items():
        per_layer = []
        for i in range(layers):
            w = cap.records[(stack, i)][0].numpy()                       # (H, T_q, T_k)
            v, w_o = cap.values[(stack, i)].numpy(), cap.out_proj[(stack, i)].numpy()
            per_layer.append(analysis_reference.value_weighted(w, v, w_o))
        weights[name] = [cap.records[(stack, i)][0].numpy() for i in range(layers)]
        for j, part in enumerate(["value_norms", "norms", "normalized"]):
            out[f"vw.{part}.{name}"] = torch.from_numpy(np.stack([p[j] for p in per_layer]))
    knocked = {tuple(k) for k in opts["knock_out"]}
    enc, dself, cross = analysis_reference.rollout(weights["encoder"], weights["decoder_self"],
                                                   weights["cross"], knocked)
    out["rollout.encoder"] = torch.from_numpy(np.stack(enc))
    out["rollout.decoder_self"] = torch.from_numpy(np.stack(dself))
    out["rollout.cross"] = torch.from_numpy(np.stack(cross))
    return out


# ---------------------------------------------------------------------------------------------
# independent float64 reference, reading the written files back

def reference(model_path, expected_path):
    sd = {k: v.double() for k, v in load_file(model_path).items()}
    exp = load_file(expected_path)
    with safe_open(model_path, "pt") as f:
        cfg = json.loads(f.metadata()["attnscope"])
    if cfg.get("tie_embeddings"):  # the file stores the table once: the generator reads it
        sd["generator.weight"] = sd["tgt_embed.weight"]
    with safe_open(expected_path, "pt") as f:
        opts = json.loads(f.metadata()["options"])
    d, H, eps = cfg["d_model"], opts["heads"], cfg["layer_norm_eps"]
    dk = d // H
    act = {"relu": torch.relu, "gelu": torch.nn.functional.gelu}[cfg["activation"]]

    def lin(x, p):
        return x @ sd[p + ".weight"].T + sd[p + ".bias"]

    def ln(x, p):
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) ** 2).mean(-1, keepdim=True)
        return (x - mu) / torch.sqrt(var + eps) * sd[p + ".weight"] + sd[p + ".bias"]

    def embed(ids, side):
        x = sd[f"{side}_embed.weight"][ids]
        if cfg["scale_embedding"]:
            x = x * math.sqrt(d)
        if opts["positional"] and cfg["positional"] != "none":
            n = len(ids)
            if cfg["positional"] == "learned":
                x = x + sd[f"{side}_pos.weight"][:n]
            else:
                pe = torch.zeros(n, d, dtype=torch.float64)
                for pos in range(n):
                    for i in range(0, d, 2):
                        a = pos / 10000 ** (i / d)
                        pe[pos, i] = math.sin(a)
                        if i + 1 < d:
                            pe[pos, i + 1] = math.cos(a)
                x = x + pe
        return x

    knocked = {(k["stack"], k["layer"], k["head"]) for k in opts.get("knock_out", [])}
    overrides = {}
    for o in opts["overrides"]:
        overrides[(o["stack"], o["layer"], o["head"], o["matrix"])] = exp[o["tensor"]].double()

    attn = {"encoder": [], "decoder_self": [], "decoder_cross": []}

    def mha(prefix, stack, layer, xq, xkv, causal):
        W = sd[prefix + ".in_proj_weight"].clone()
        b = sd[prefix + ".in_proj_bias"]
        for (s, l, h, m), t in overrides.items():
            if s == stack and l == layer:
                r0 = (0 if m == "q" else d) + h * dk
                W[r0:r0 + dk] = t
        q = xq @ W[:d].T + b[:d]
        k = xkv @ W[d:2 * d].T + b[d:2 * d]
        v = xkv @ W[2 * d:].T + b[2 * d:]
        heads_out, probs = [], []
        for h in range(H):
            sl = slice(h * dk, (h + 1) * dk)
            s = q[:, sl] @ k[:, sl].T
            if opts["scale"]:
                s = s / math.sqrt(dk)
            if causal:
                s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
            p = torch.softmax(s, -1)
            probs.append(p)
            heads_out.append(torch.zeros_like(q[:, sl]) if (stack, layer, h) in knocked else p @ v[:, sl])
        attn[stack].append(torch.stack(probs))
        return lin(torch.cat(heads_out, -1), prefix + ".out_proj")

    pre = cfg["norm_first"]
    x = embed(exp["src_ids"], "src")
    for i in range(cfg["num_encoder_layers"]):
        p = f"transformer.encoder.layers.{i}"
        sa = lambda y: mha(p + ".self_attn", "encoder", i, y, y, opts["causal_encoder"])  # noqa
        ff = lambda y: lin(act(lin(y, p + ".linear1")), p + ".linear2")  # noqa
        if pre:
            x = x + sa(ln(x, p + ".norm1"))
            x = x + ff(ln(x, p + ".norm2"))
        else:
            x = ln(x + sa(x), p + ".norm1")
            x = ln(x + ff(x), p + ".norm2")
    mem = ln(x, "transformer.encoder.norm")

    y = embed(exp["tgt_ids"], "tgt")
    for i in range(cfg["num_decoder_layers"]):
        p = f"transformer.decoder.layers.{i}"
        sa = lambda z: mha(p + ".self_attn", "decoder_self", i, z, z, opts["causal_decoder"])  # noqa
        ca = lambda z: mha(p + ".multihead_attn", "decoder_cross", i, z, mem, False)  # noqa
        ff = lambda z: lin(act(lin(z, p + ".linear1")), p + ".linear2")  # noqa
        if pre:
            y = y + sa(ln(y, p + ".norm1"))
            y = y + ca(ln(y, p + ".norm2"))
            y = y + ff(ln(y, p + ".norm3"))
        else:
            y = ln(y + sa(y), p + ".norm1")
            y = ln(y + ca(y), p + ".norm2")
            y = ln(y + ff(y), p + ".norm3")
    dec = ln(y, "transformer.decoder.norm")
    got = {
        "encoder_output": mem, "decoder_output": dec, "logits": lin(dec, "generator"),
        "attn.encoder": torch.stack(attn["encoder"]),
        "attn.decoder_self": torch.stack(attn["decoder_self"]),
        "attn.cross": torch.stack(attn["decoder_cross"]),
    }
    diffs = {}
    for k, v in got.items():
        assert exp[k].shape == v.shape, (k, exp[k].shape, v.shape)
        diffs[k] = (exp[k].double() - v).abs().max().item()
    return diffs


# ---------------------------------------------------------------------------------------------

def build(spec):
    cfg, opts, dtype = spec["cfg"], spec["opts"], DTYPES[spec["dtype"]]
    d, H = cfg["d_model"], opts["heads"]
    dk = d // H
    g = torch.Generator().manual_seed(spec["seed"])
    torch.manual_seed(spec["seed"])  # nn.Transformer's own init (overwritten below)

    model = Seq2Seq(cfg).eval()
    init_weights(model, cfg, g)
    if dtype != torch.float32:  # round to the file dtype, so expectations use what is stored
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(p.to(dtype).float())

    src = torch.randint(0, len(cfg["src_vocab"]), (spec["S"],), generator=g)
    tgt = torch.randint(0, len(cfg["tgt_vocab"]), (spec["T"],), generator=g)
    tgt[0] = 1  # <bos>

    # the model actually run: H heads, overrides, emulated "no scaling"
    run = Seq2Seq({**cfg, "nhead": H}).eval()
    run.load_state_dict(model.state_dict())
    extra, records = {}, []
    with torch.no_grad():
        for n, (stack, layer, head, matrix) in enumerate(opts["overrides"]):
            t = torch.randn(dk, d, generator=g) * (1.6 / math.sqrt(d))
            name = f"override.{n}"
            extra[name] = t
            records.append({"stack": stack, "layer": layer, "head": head, "matrix": matrix,
                            "tensor": name})
            r0 = (0 if matrix == "q" else d) + head * dk
            mha_of(run, stack, layer).in_proj_weight[r0:r0 + dk] = t
        if not opts["scale"]:
            f = math.sqrt(dk)
            for stack in STACKS:
                side, _ = STACKS[stack]
                for i in range(len(getattr(run.transformer, side).layers)):
                    m = mha_of(run, stack, i)
                    m.in_proj_weight[:d] *= f
                    m.in_proj_bias[:d] *= f
        for stack, layer, head in opts["knock_out"]:  # the head mask: out_proj reads zeros
            mha_of(run, stack, layer).out_proj.weight[:, head * dk:(head + 1) * dk] = 0.0
    for stack, layer, head, matrix in opts["overrides"]:
        assert mha_of(run, stack, layer).num_heads == H

    res, fast_diff, cap64 = run_model(run, src, tgt, opts)
    if spec["analysis"]:
        extra.update(analysis_tensors(cap64, opts))
    options = {**opts, "overrides": records}
    if opts["knock_out"]:
        options["knock_out"] = [{"stack": s, "layer": l, "head": h} for s, l, h in opts["knock_out"]]
    else:
        del options["knock_out"]  # (the fixtures from before knock-outs keep their bytes)
    return model, src, tgt, res, extra, options, fast_diff


def table_rows():
    rows = []
    for s in CONFIGS:
        c, o = s["cfg"], s["opts"]
        flags = []
        if o["heads"] != c["nhead"]:
            flags.append(f"heads={o['heads']}")
        if not o["scale"]:
            flags.append("no-scale")
        if not o["causal_decoder"]:
            flags.append("dec-not-causal")
        if o["causal_encoder"]:
            flags.append("enc-causal")
        if not o["positional"]:
            flags.append("positional-off")
        for st, l, h, m in o["overrides"]:
            flags.append(f"override {m.upper()} {st}[{l}] head {h}")
        for st, l, h in o["knock_out"]:
            flags.append(f"knock out {st}[{l}] head {h}")
        if s["analysis"]:
            flags.append("value-weighted + rollout refs")
        if c.get("tie_embeddings"):
            flags.append("generator tied to the target embedding")
        rows.append([
            s["name"], s["dtype"], str(c["d_model"]), f"{c['nhead']}/{o['heads']}",
            f"{c['num_encoder_layers']}/{c['num_decoder_layers']}", str(c["dim_feedforward"]),
            str(c["norm_first"]), c["activation"], c["positional"], str(c["scale_embedding"]),
            f"{c['layer_norm_eps']:g}", str(s["S"]), str(s["T"]),
            f"{len(c['src_vocab'])}/{len(c['tgt_vocab'])}", "; ".join(flags) or "-",
        ])
    head = ["name", "dtype", "d_model", "heads exp/run", "layers enc/dec", "ff", "norm_first",
            "activation", "positional", "scale_emb", "eps", "S", "T", "vocab src/tgt", "options"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def main(argv=None):
    """`make_fixtures.py [NAME ...]`: every fixture, or only the named ones (the others' files are
    left as they are)."""
    only = set(sys.argv[1:] if argv is None else argv)
    os.makedirs(OUT_DIR, exist_ok=True)
    names = [s["name"] for s in CONFIGS]
    assert only <= set(names), only - set(names)
    assert len(set(names)) == len(names)
    stale = [f for f in os.listdir(OUT_DIR)
             if f.endswith(".safetensors") and f.split(".")[0] not in names]
    for f in stale:
        os.remove(os.path.join(OUT_DIR, f))

    print(f"torch {torch.__version__}")
    for spec in CONFIGS:
        name = spec["name"]
        if only and name not in only:
            continue
        model, src, tgt, res, extra, options, fast_diff = build(spec)
        mpath = os.path.join(OUT_DIR, name + ".safetensors")
        epath = os.path.join(OUT_DIR, name + ".expected.safetensors")
        export(model, mpath, dtype=DTYPES[spec["dtype"]])
        tensors = {"src_ids": src.to(torch.int64), "tgt_ids": tgt.to(torch.int64)}
        tensors.update({k: v.float().contiguous() for k, v in res.items()})
        tensors.update({k: v.float().contiguous() for k, v in extra.items()})
        save_file(tensors, epath, metadata={"options": json.dumps(options)})
        for p in (mpath, epath):
            os.chmod(p, 0o644)  # safetensors creates 0600 files

        diffs = reference(mpath, epath)
        worst = max(diffs.values())
        assert worst < 1e-5, (name, diffs)
        peak = {k: res[k].max(-1).values.mean().item()
                for k in ("attn.encoder", "attn.decoder_self", "attn.cross")}
        print(f"{name:20s} ok  vs f64 ref {worst:.1e}, vs torch w/o wrappers "
              f"{fast_diff:.1e}, mean max-prob enc {peak['attn.encoder']:.2f} "
              f"dself {peak['attn.decoder_self']:.2f} cross {peak['attn.cross']:.2f}  "
              f"max|logit| {res['logits'].abs().max().item():.1f}")

    total = sum(os.path.getsize(os.path.join(OUT_DIR, f)) for f in os.listdir(OUT_DIR))
    print(f"\n{len(CONFIGS)} configs, {total} bytes in {os.path.relpath(OUT_DIR)}")
    assert total < MAX_BYTES, total
    print()
    print(table_rows())


if __name__ == "__main__":
    main()
