"""Gradient fixtures for the Rust engine's backward pass: tests/fixtures/grads/.

Run:  target/venv/bin/python train/make_grad_fixtures.py

For every case below it reads an existing committed model file (tests/fixtures/parity/ or
tests/fixtures/families/), runs a FUNCTIONAL float64 re-implementation of the engine's forward
pass in torch (written here from the model file's tensors and its attnscope config, with every
run option, including the two training switches PyTorch has no flag for), and lets torch's
autograd take the gradient of

    loss = mean over the labelled positions t of cross_entropy(logits[t], labels[t])

(labels -100 are ignored, as torch's ignore_index). It writes tests/fixtures/grads/NAME.safetensors:

  __metadata__  {"model": "parity/X.safetensors", "options": JSON run options}
                options: heads, scale, causal_decoder, causal_encoder, positional, knock_out
                [{stack, layer, head}], residual, layer_norm
  src_ids (S,) I64 / tgt_ids (T,) I64   the sides the model has
  labels (R,) I64                        one per output row (decoder T, or encoder-only S)
  loss (1,) F32
  grad.NAME                              d loss / d every float parameter, named and shaped as in the
                                         model file (a tied generator's gradient is in the table's)
  dweights.STACK (L, H, Tq, Tk)          d loss / d each head's attention weights
  dscores.STACK (L, H, Tq, Tk)           d loss / d each head's raw scores Q K^T (before scaling, mask)
  dembedding.src (S, d) / .tgt (T, d)    d loss / d the token embeddings (scaled, plus the token
                                         type), before positions are added
  STACK in encoder, decoder_self, cross.

The functional forward is proved against the committed expected files first: for each case its
float64 logits with the expected file's own options must match the expected logits within 1e-5
(else the script stops), and a few gradients are checked by central finite differences (float64,
relative error below 1e-6), also for residual and layer_norm off. Running it twice writes
byte-identical files.
"""
import json
import math
import os
import sys

import torch
from safetensors import safe_open
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures")
OUT = os.path.join(FIXTURES, "grads")
torch.set_num_threads(1)
D = torch.float64

# (name, model file under tests/fixtures/, options beyond the defaults, labels to ignore)
CASES = [
    ("post_relu", "parity/tiny_post_relu", {}, []),
    ("pre_gelu_learned", "parity/pre_gelu_learned", {}, [1]),
    ("no_scale", "parity/no_scale", {"scale": False}, []),
    ("heads_resplit_masks", "parity/heads_resplit", {"heads": 1, "causal_encoder": True, "causal_decoder": False}, []),
    ("positions_off", "parity/nopos_sinusoidal", {"positional": False}, []),
    ("knock_out", "parity/knock_out_post", {"knock_out": [{"stack": "decoder_cross", "layer": 0, "head": 1}, {"stack": "encoder", "layer": 0, "head": 0}]}, []),
    ("residual_off_post", "parity/tiny_post_relu", {"residual": False}, []),
    ("residual_off_pre", "parity/pre_gelu_learned", {"residual": False}, []),
    ("layer_norm_off_post", "parity/tiny_post_relu", {"layer_norm": False}, []),
    ("gpt2_tied", "families/gpt2_bpe", {}, [2]),
    ("bert_mlm", "families/bert_mlm_gelu", {}, [0, 3, 5]),
]

STACKS = {"encoder": "encoder", "decoder_self": "decoder_self", "decoder_cross": "cross"}


def read(path):
    """The model file's tensors (float64) and config."""
    with safe_open(path, "pt") as f:
        cfg = json.loads(f.metadata()["attnscope"])
        t = {}
        for k in f.keys():
            if k.endswith("_scale"):
                continue
            v = f.get_tensor(k)
            if v.dtype == torch.int8:
                v = v.to(D) * f.get_tensor(k + "_scale").to(D)[:, None]
            t[k] = v.to(D)
    defaults = {"architecture": "encoder_decoder", "embed_norm": False, "type_vocab_size": 0, "final_norm": True,
                "head": "lm", "tie_embeddings": False, "logits_bias": True, "num_encoder_layers": 0, "num_decoder_layers": 0}
    for k, v in defaults.items():
        cfg.setdefault(k, v)
    return t, cfg


def sinusoidal(n, d):
    pe = torch.zeros(n, d, dtype=D)
    for pos in range(n):
        for j in range(d):
            angle = pos / 10000 ** ((j - j % 2) / d)
            pe[pos, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


def activate(act, x):
    if act == "relu":
        return torch.relu(x)
    if act == "gelu":
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    if act == "gelu_tanh":
        return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    if act == "silu":
        return x * torch.sigmoid(x)
    raise ValueError(act)


class Forward:
    """The engine's forward pass, functional, in float64; keeps the tensors whose gradients
    the fixture records (their .retain_grad() is set)."""

    def __init__(self, t, cfg, opts):
        self.t, self.c, self.o = t, cfg, opts
        self.kept = {"weights": {}, "scores": {}, "embedding": {}}

    def ln(self, name, x, switchable=True):
        if switchable and not self.o["layer_norm"]:
            return x
        eps = self.c["layer_norm_eps"]
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + eps) * self.t[name + ".weight"] + self.t[name + ".bias"]

    def lin(self, name, x):
        return x @ self.t[name + ".weight"].T + self.t[name + ".bias"]

    def embed(self, side, ids):
        t, c, d = self.t, self.c, self.c["d_model"]
        e = t[f"{side}_embed.weight"][ids] * (math.sqrt(d) if c["scale_embedding"] else 1.0)
        if side == "src" and c["type_vocab_size"] > 0:
            e = e + t["src_type.weight"][0]
        if e.requires_grad:
            e.retain_grad()
        self.kept["embedding"][side] = e
        x = e
        if self.o["positional"] and c["positional"] != "none":
            table = sinusoidal(c["max_len"], d) if c["positional"] == "sinusoidal" else t[f"{side}_pos.weight"]
            x = x + table[: len(ids)]
        if c["embed_norm"]:
            x = self.ln(f"{side}_embed_norm", x, switchable=False)
        return x

    def mha(self, name, stack, layer, xq, xkv, causal):
        t, d = self.t, self.c["d_model"]
        h = self.o["heads"]
        dk = d // h
        w, b = t[name + ".in_proj_weight"], t[name + ".in_proj_bias"]
        q = xq @ w[:d].T + b[:d]
        k = xkv @ w[d:2 * d].T + b[d:2 * d]
        v = xkv @ w[2 * d:].T + b[2 * d:]
        off = {(STACKS[kk["stack"]], kk["layer"], kk["head"]) for kk in self.o["knock_out"]}
        outs = []
        for i in range(h):
            sl = slice(i * dk, (i + 1) * dk)
            scores = q[:, sl] @ k[:, sl].T
            if scores.requires_grad:
                scores.retain_grad()
            logits = scores / math.sqrt(dk) if self.o["scale"] else scores
            if causal:
                mask = torch.triu(torch.ones_like(logits, dtype=torch.bool), 1)
                logits = logits.masked_fill(mask, float("-inf"))
            weights = torch.softmax(logits, -1)
            if weights.requires_grad:
                weights.retain_grad()
            self.kept["scores"].setdefault(stack, {})[(layer, i)] = scores
            self.kept["weights"].setdefault(stack, {})[(layer, i)] = weights
            out = weights @ v[:, sl]
            outs.append(torch.zeros_like(out) if (stack, layer, i) in off else out)
        return self.lin(name + ".out_proj", torch.cat(outs, -1))

    def block(self, x, norm, sub):
        o = self.o
        if self.c["norm_first"]:
            y = sub(self.ln(norm, x))
            return x + y if o["residual"] else y
        y = sub(x)
        return self.ln(norm, x + y if o["residual"] else y)

    def ffn(self, p, x):
        return self.lin(p + ".linear2", activate(self.c["activation"], self.lin(p + ".linear1", x)))

    def final(self, name, x):
        return self.ln(name, x) if self.c["final_norm"] else x

    def run(self, src, tgt):
        c, o = self.c, self.o
        memory = None
        if c["architecture"] != "decoder_only":
            x = self.embed("src", src)
            for l in range(c["num_encoder_layers"]):
                p = f"transformer.encoder.layers.{l}"
                x = self.block(x, p + ".norm1", lambda y: self.mha(p + ".self_attn", "encoder", l, y, y, o["causal_encoder"]))
                x = self.block(x, p + ".norm2", lambda y: self.ffn(p, y))
            memory = self.final("transformer.encoder.norm", x)
        if c["architecture"] == "encoder_only":
            t = self.t
            hdn = activate(c["activation"], self.lin("mlm.dense", memory))
            hdn = self.ln("mlm.norm", hdn, switchable=False)
            w = t["src_embed.weight"] if c["tie_embeddings"] else t["generator.weight"]
            return hdn @ w.T + (t["generator.bias"] if c["logits_bias"] else 0)
        y = self.embed("tgt", tgt)
        for l in range(c["num_decoder_layers"]):
            p = f"transformer.decoder.layers.{l}"
            y = self.block(y, p + ".norm1", lambda z: self.mha(p + ".self_attn", "decoder_self", l, z, z, o["causal_decoder"]))
            if memory is not None:
                y = self.block(y, p + ".norm2", lambda z: self.mha(p + ".multihead_attn", "cross", l, z, memory, False))
            y = self.block(y, p + ".norm3", lambda z: self.ffn(p, z))
        y = self.final("transformer.decoder.norm", y)
        t = self.t
        w = t["tgt_embed.weight"] if c["tie_embeddings"] else t["generator.weight"]
        return y @ w.T + (t["generator.bias"] if c["logits_bias"] else 0)


def options(opts, cfg):
    o = {"heads": cfg["nhead"], "scale": True, "causal_decoder": True, "causal_encoder": False, "positional": True,
         "knock_out": [], "residual": True, "layer_norm": True}
    o.update(opts)
    return o


def loss_of(model_path, cfg_t, opts, src, tgt, labels):
    t, cfg = cfg_t
    params = {k: v.clone().requires_grad_(True) for k, v in t.items()}
    f = Forward(params, cfg, opts)
    logits = f.run(src, tgt)
    loss = torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100)
    return loss, logits, params, f


def check_reference(model, t_cfg):
    """Our float64 forward with the expected file's own options against its logits."""
    with safe_open(os.path.join(FIXTURES, model + ".expected.safetensors"), "pt") as f:
        meta = json.loads(f.metadata()["options"])
        want = f.get_tensor("logits").to(D)
        src = f.get_tensor("src_ids") if "src_ids" in f.keys() else torch.zeros(0, dtype=torch.long)
        tgt = f.get_tensor("tgt_ids") if "tgt_ids" in f.keys() else torch.zeros(0, dtype=torch.long)
    if meta.get("overrides"):
        return None
    t, cfg = t_cfg
    opts = options({k: meta[k] for k in ("heads", "scale", "causal_decoder", "causal_encoder", "positional") if k in meta}
                   | {"knock_out": meta.get("knock_out", [])}, cfg)
    with torch.no_grad():
        got = Forward(t, cfg, opts).run(src, tgt)
    diff = (got - want).abs().max().item()
    if diff > 1e-5:
        sys.exit(f"{model}: the functional forward differs from the expected logits by {diff:.2e}")
    return diff, src, tgt


def finite_difference(model, t_cfg, opts, src, tgt, labels, grads, g):
    """Central differences on three entries of three tensors, float64."""
    t, cfg = t_cfg
    names = sorted(grads)
    picks = [names[int(g.integers(len(names)))] for _ in range(3)]
    worst = 0.0
    for name in picks:
        flat = grads[name].reshape(-1)
        for i in [int(flat.abs().argmax()), int(g.integers(flat.numel()))]:
            def at(delta):
                tt = {k: v.clone() for k, v in t.items()}
                tt[name].view(-1)[i] += delta
                with torch.no_grad():
                    logits = Forward(tt, cfg, opts).run(src, tgt)
                    return torch.nn.functional.cross_entropy(logits, labels, ignore_index=-100).item()
            eps = 1e-6
            fd = (at(eps) - at(-eps)) / (2 * eps)
            worst = max(worst, abs(fd - flat[i].item()) / max(abs(flat[i].item()), 1e-3))
    if worst > 1e-6:
        sys.exit(f"{model}: finite differences disagree with autograd (relative {worst:.2e})")
    return worst


def grad_or_zero(x):
    """x's gradient; zeros for a tensor the loss does not reach (a knocked-out head)."""
    return x.grad if x.grad is not None else torch.zeros_like(x)


def main():
    import numpy as np
    os.makedirs(OUT, exist_ok=True)
    rows = []
    for name, model, extra, ignored in CASES:
        path = os.path.join(FIXTURES, model + ".safetensors")
        t_cfg = read(path)
        t, cfg = t_cfg
        ref = check_reference(model, t_cfg)
        _, src, tgt = ref
        opts = options(extra, cfg)
        out_rows = len(src) if cfg["architecture"] == "encoder_only" else len(tgt)
        vocab = t["src_embed.weight"].shape[0] if cfg["architecture"] == "encoder_only" else (
            t["tgt_embed.weight"].shape[0])
        gen = torch.Generator().manual_seed(27 + len(rows))
        labels = torch.randint(0, vocab, (out_rows,), generator=gen)
        for i in ignored:
            if i < out_rows:
                labels[i] = -100
        loss, logits, params, f = loss_of(path, t_cfg, opts, src, tgt, labels)
        loss.backward()
        grads = {k: v.grad if v.grad is not None else torch.zeros_like(v) for k, v in params.items()}
        fd = finite_difference(model, t_cfg, opts, src, tgt, labels, grads, np.random.default_rng(len(rows)))
        tensors = {"labels": labels.to(torch.int64), "loss": loss.detach().reshape(1).float()}
        if cfg["architecture"] != "decoder_only":
            tensors["src_ids"] = src.to(torch.int64)
        if cfg["architecture"] != "encoder_only":
            tensors["tgt_ids"] = tgt.to(torch.int64)
        for k, v in grads.items():
            tensors["grad." + k] = v.float().contiguous()
        for kind in ("weights", "scores"):
            for stack, heads in f.kept[kind].items():
                L = 1 + max(l for l, _ in heads)
                H = opts["heads"]
                tensors[f"d{kind}.{stack}"] = torch.stack(
                    [torch.stack([grad_or_zero(heads[(l, i)]) for i in range(H)]) for l in range(L)]).float().contiguous()
        for side, e in f.kept["embedding"].items():
            tensors[f"dembedding.{side}"] = grad_or_zero(e).float().contiguous()
        meta = {"model": model + ".safetensors", "options": json.dumps(opts, sort_keys=True)}
        save_file(dict(sorted(tensors.items())), os.path.join(OUT, name + ".safetensors"), metadata=meta)
        size = os.path.getsize(os.path.join(OUT, name + ".safetensors"))
        rows.append((name, model, json.dumps(extra), ref[0], fd, size))
        print(f"{name:22s} {model:28s} forward vs expected {ref[0]:.1e}  fd rel {fd:.1e}  loss {loss.item():.4f}  {size} B")
    print(f"total {sum(r[5] for r in rows)} bytes")


if __name__ == "__main__":
    main()
