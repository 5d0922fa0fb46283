"""The PyTorch wrapper whose `state_dict` *is* the attnscope model file format.

Anyone can train this module in PyTorch and open the result in attnscope: `export()` writes one
`.safetensors` file whose tensor names are exactly `Seq2Seq.state_dict()` and whose
`__metadata__["attnscope"]` holds the config and vocabularies (see README, "Model file format").

The wrapper adds to `torch.nn.Transformer` (Vaswani et al. 2017, "Attention Is All You Need") the
three pieces the paper describes but nn.Transformer leaves out:
  * token embeddings, optionally multiplied by sqrt(d_model)   (paper section 3.4)
  * positional encoding: sinusoidal (section 3.5), learned (a table), or none
  * the generator: a linear layer to target-vocabulary logits (softmax applied by the caller)
"""
import json
import math

import torch
from torch import nn

SPECIALS = {"pad": "<pad>", "bos": "<bos>", "eos": "<eos>", "unk": "<unk>"}


def sinusoidal_table(max_len: int, d_model: int) -> torch.Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(same).  (max_len, d_model)"""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]          # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)[None, :]  # (1, ceil(d/2))
    angle = pos / torch.pow(10000.0, two_i / d_model)                  # (max_len, ceil(d/2))
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.float()


class Seq2Seq(nn.Module):
    """Embeddings + positional encoding + nn.Transformer(batch_first=True) + generator."""

    def __init__(self, cfg: dict):
        super().__init__()
        self.cfg = dict(cfg)
        d = cfg["d_model"]
        self.src_embed = nn.Embedding(len(cfg["src_vocab"]), d)
        self.tgt_embed = nn.Embedding(len(cfg["tgt_vocab"]), d)
        if cfg["positional"] == "learned":
            self.src_pos = nn.Embedding(cfg["max_len"], d)
            self.tgt_pos = nn.Embedding(cfg["max_len"], d)
        self.register_buffer("pe", sinusoidal_table(cfg["max_len"], d), persistent=False)
        self.transformer = nn.Transformer(
            d_model=d,
            nhead=cfg["nhead"],
            num_encoder_layers=cfg["num_encoder_layers"],
            num_decoder_layers=cfg["num_decoder_layers"],
            dim_feedforward=cfg["dim_feedforward"],
            dropout=cfg.get("dropout", 0.0),
            activation=cfg["activation"],
            batch_first=True,
            norm_first=cfg["norm_first"],
            layer_norm_eps=cfg["layer_norm_eps"],
        )
        self.generator = nn.Linear(d, len(cfg["tgt_vocab"]))
        if cfg.get("tie_embeddings"):
            # The generator's weight is the target embedding table (Vaswani et al. 2017, section
            # 3.4; Press & Wolf 2017): (V, d_model) either way, one parameter, one copy in the file.
            self.generator.weight = self.tgt_embed.weight
        self.use_positional = True  # run option: False drops positional encoding

    def embed(self, ids: torch.Tensor, side: str) -> torch.Tensor:
        """ids (B, T) -> (B, T, d_model)"""
        table = self.src_embed if side == "src" else self.tgt_embed
        x = table(ids)
        if self.cfg["scale_embedding"]:
            x = x * math.sqrt(self.cfg["d_model"])
        if self.use_positional and self.cfg["positional"] != "none":
            t = ids.shape[1]
            if self.cfg["positional"] == "sinusoidal":
                x = x + self.pe[:t]
            else:
                pos = self.src_pos if side == "src" else self.tgt_pos
                x = x + pos(torch.arange(t, device=ids.device))
        return x

    def forward(self, src, tgt, causal_decoder=True, causal_encoder=False):
        """src (B, S), tgt (B, T) token ids -> logits (B, T, tgt_vocab)"""
        s, t = src.shape[1], tgt.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask
        out = self.transformer(
            self.embed(src, "src"),
            self.embed(tgt, "tgt"),
            src_mask=mask(s) if causal_encoder else None,
            tgt_mask=mask(t) if causal_decoder else None,
        )
        return self.generator(out)


def metadata(cfg: dict) -> dict:
    """The `__metadata__` of the model file: {"attnscope": JSON string}, and the description
    fields `source_language` / `target_language` from cfg["languages"] (train/describe.py)."""
    keys = [
        "d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward",
        "activation", "norm_first", "layer_norm_eps", "positional", "max_len", "scale_embedding",
        "src_vocab", "tgt_vocab",
    ]
    meta = {"format": 1, **{k: cfg[k] for k in keys}, "specials": cfg.get("specials", SPECIALS)}
    if cfg.get("tie_embeddings"):
        meta["tie_embeddings"] = True  # the file has no generator.weight: the engine reads tgt_embed
    if "tokenizer" in cfg:
        meta["tokenizer"] = cfg["tokenizer"]
    out = {"attnscope": json.dumps(meta, ensure_ascii=False)}
    for side, tag in cfg.get("languages", {}).items():
        out[f"{side}_language"] = tag
    return out


def quantize_rows(w: torch.Tensor):
    """Per-row symmetric int8 of a 2-D tensor, as the engine reads it (README, "Model file format").

    scale[r] = max|w[r]| / 127, rounded to F16 FIRST (the file stores it as F16, and q must be
    computed with the scale the engine will multiply by); a scale of 0 (an all-zero row, or one
    too small for F16) becomes 1. q = round(w / scale) clipped to [-127, 127].
    Returns (q int8 (rows, cols), scale float16 (rows,)); w[r][c] ~= q[r][c] * scale[r].
    """
    if w.dim() != 2:
        raise ValueError(f"int8 needs a 2-D tensor, got shape {tuple(w.shape)}")
    w = w.detach().float()
    scale = (w.abs().amax(dim=1) / 127.0).to(torch.float16)            # (rows,)
    if not torch.isfinite(scale).all():
        raise ValueError("a row is too large for an F16 scale (max|w| / 127 > 65504)")
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    q = torch.round(w / scale.float()[:, None]).clamp(-127, 127).to(torch.int8)  # (rows, cols)
    return q.contiguous(), scale.contiguous()


def read(path: str):
    """An attnscope model file -> (its config: the `__metadata__["attnscope"]` JSON; its tensors
    as F32 by state_dict name, each I8 tensor dequantised with its `NAME_scale`, w = q * scale
    row by row, and the scales themselves dropped; a tied file's one table, stored once as
    `tgt_embed.weight`, also under `generator.weight`, as a tied Seq2Seq's state_dict has it)."""
    from safetensors import safe_open

    with safe_open(str(path), "pt") as f:
        cfg = json.loads(f.metadata()["attnscope"])
        raw = {k: f.get_tensor(k) for k in f.keys()}
    state = {}
    for k, v in raw.items():
        if k.endswith("_scale") and k[: -len("_scale")] in raw:
            continue
        if v.dtype == torch.int8:
            v = v.float() * raw[k + "_scale"].float()[:, None]  # (rows, cols) * (rows, 1)
        state[k] = v.float()
    if cfg.get("tie_embeddings") and "tgt_embed.weight" in state:
        state.setdefault("generator.weight", state["tgt_embed.weight"])
    return cfg, state


def export(model: Seq2Seq, path: str, dtype=torch.float32, extra_tensors=None, int8=()) -> None:
    """Write `model` as an attnscope model file (F32, or F16/BF16 to halve the size).

    `int8` lists 2-D tensors (state_dict names, e.g. "src_embed.weight", "tgt_embed.weight",
    "generator.weight") to store as I8 with per-row F16 scales in `NAME_scale` (see
    `quantize_rows`): about a quarter of F32, for the big embedding and generator tables.
    """
    from safetensors.torch import save_file

    state = model.state_dict()
    if model.cfg.get("tie_embeddings"):  # the same tensor as tgt_embed.weight: stored once
        del state["generator.weight"]
        int8 = tuple(n for n in int8 if n != "generator.weight")
    missing = [n for n in int8 if n not in state]
    if missing:
        raise ValueError(f"int8: no such tensors: {missing}")
    tensors = {}
    for k, v in state.items():
        if k in int8:
            tensors[k], tensors[k + "_scale"] = quantize_rows(v)
        else:
            tensors[k] = v.detach().to(dtype).contiguous()
    tensors.update(extra_tensors or {})
    save_file(tensors, path, metadata=metadata(model.cfg))
