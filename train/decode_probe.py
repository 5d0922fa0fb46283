"""Would another decoding or int8 linears change the figures? Measured on the everyday reference
set's DEV half (and optionally the first N generator-test sentences) with the Python reference
model, before anything is built into the engine (MODEL.md, "Decoding and storage probes").

    target/venv/bin/python train/decode_probe.py --model FILE [--generator-test TSV --n 600]
    target/venv/bin/python train/decode_probe.py --model FILE --int8-linears OUT.safetensors

The first prints dev exact match for beam search (beam 4 and 8), greedy, and greedy that blocks
repeated 3-, 4- and 5-grams; the second writes FILE with every 2-D layer weight int8 as well
(per-row scales, as convert.py --int8-linears), for `eval_reference.py --model OUT`.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attnscope_model  # noqa: E402
import eval_reference  # noqa: E402
import export_onnx  # noqa: E402
import train  # noqa: E402
from corpus import detokenize_ko, tokenize_en  # noqa: E402


@torch.no_grad()
def beam(model, src_ids, k, alpha, max_len=60):
    """Beam search with the GNMT length penalty ((5 + length) / 6) ** alpha (Wu et al. 2016)."""
    def score(h, s):
        return s / (((5 + len(h) - 1) / 6) ** alpha)

    mem, src_pad = train.encode_src(model, torch.tensor([src_ids]))
    live, done = [([train.BOS], 0.0)], []
    for _ in range(max_len):
        ys = torch.tensor([h for h, _ in live])
        logp = train.decode_step(model, mem.expand(len(live), -1, -1), src_pad.expand(len(live), -1), ys)
        logp = logp[:, -1].log_softmax(-1)                                  # (beams, V)
        cand = sorted(((h + [int(t)], s + float(v)) for (h, s), row in zip(live, logp)
                       for v, t in zip(*row.topk(k))), key=lambda c: -c[1])
        live = []
        for h, s in cand:
            (done if h[-1] == train.EOS else live).append((h, s))
            if len(live) == k:
                break
        if not live or (len(done) >= k and max(score(h, s) for h, s in done) > score(*live[0])):
            break
    best = max(done or live, key=lambda d: score(*d))[0]
    return [t for t in best[1:] if t != train.EOS]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--generator-test", metavar="TSV")
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--int8-linears", metavar="OUT")
    a = ap.parse_args()
    torch.set_num_threads(1)
    model, cfg = export_onnx.load(a.model)
    if a.int8_linears:
        names = list(train.INT8) + [k for k, v in model.state_dict().items()
                                    if k.startswith("transformer.") and v.dim() == 2]
        attnscope_model.export(model, a.int8_linears, dtype=torch.float16, int8=tuple(names))
        print(f"wrote {a.int8_linears}: {os.path.getsize(a.int8_linears)} bytes, {len(names)} int8 tensors")
        return
    src_index = {w: i for i, w in enumerate(cfg["src_vocab"])}
    tgt = cfg["tgt_vocab"]
    dev = train.everyday_dev(src_index)

    def dev_ok(outs):
        return sum(eval_reference.matches(detokenize_ko([tgt[i] for i in p]), refs)
                   for p, (_, refs) in zip(outs, dev))

    srcs = [s for s, _ in dev]
    for k, alpha in ((4, 0.6), (4, 1.0), (8, 0.6)):
        print(f"beam {k}, alpha {alpha}: dev {dev_ok([beam(model, s, k, alpha) for s in srcs])}/{len(dev)}", flush=True)
    gen = []
    if a.generator_test:
        rows = [line.rstrip("\n").split("\t") for line in open(a.generator_test, encoding="utf-8")][1:a.n + 1]
        gen = [([src_index.get(t, train.UNK) for t in tokenize_en(r[0])], r[1].split()) for r in rows]
    for n in (0, 3, 4, 5):
        line = f"no repeated {n}-gram: dev {dev_ok(train.greedy(model, srcs, no_repeat=n))}/{len(dev)}"
        if gen:
            outs = train.greedy(model, [s for s, _ in gen], no_repeat=n)
            line += f", generator test {sum([tgt[i] for i in p] == g for p, (_, g) in zip(outs, gen))}/{len(gen)}"
        print(line if n else line.replace("no repeated 0-gram", "greedy"), flush=True)


if __name__ == "__main__":
    main()
