#!/usr/bin/env python3
"""Does `train.py --grow` start as the file it grows from? The largest logit difference between
FILE and FILE grown by `train.warm_start` (more layers, a wider feed-forward layer, or both), on
random token ids, dropout off (train/README.md, "--grow").

    target/venv/bin/python train/grow_probe.py --model FILE --ff 512 --layers 2 3
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train as T  # noqa: E402
from attnscope_model import Seq2Seq  # noqa: E402
from export_onnx import load  # noqa: E402  (an attnscope file -> Seq2Seq, cfg)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--ff", type=int, nargs="+", help="feed-forward widths to try (default: the file's)")
    ap.add_argument("--layers", type=int, nargs="+", help="layer counts to try (default: the file's)")
    a = ap.parse_args()
    torch.set_num_threads(1)
    base, cfg = load(a.model)
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, len(cfg["src_vocab"]), (8, 12), generator=g)  # (batch, source tokens)
    tgt = torch.randint(4, len(cfg["tgt_vocab"]), (8, 10), generator=g)  # (batch, target tokens)
    with torch.no_grad():
        want = T.forward(base, src, tgt)  # (batch, target tokens, target vocabulary)
    for ff in a.ff or [cfg["dim_feedforward"]]:
        for layers in a.layers or [cfg["num_encoder_layers"]]:
            grown = Seq2Seq(dict(cfg, dim_feedforward=ff, num_encoder_layers=layers,
                                 num_decoder_layers=layers, dropout=0.0))
            T.warm_start(grown, a.model, grow=True)
            with torch.no_grad():
                got = T.forward(grown.eval(), src, tgt)
            print(f"ff {ff:4d}, {layers} layers: largest |logit difference| {(got - want).abs().max().item():.2e} "
                  f"(largest |logit| {want.abs().max().item():.1f})")


if __name__ == "__main__":
    main()
