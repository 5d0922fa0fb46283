#!/usr/bin/env python3
"""Can a tied model (`train.py --tie`) start from an untied file? Teacher-forced loss and
next-token accuracy of FILE on generated dev sentences, as it is and with one table in both
places, started four ways (MODEL.md, "Capacity, the size budget and the next run").

    target/venv/bin/python train/tie_probe.py --model UNTIED_FILE --dev DIR/dev.tsv

(an untied file: run 12's, `git show 71f36e8:train/warm/en-ko-v3-run12.safetensors > FILE`)
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train as T  # noqa: E402
from attnscope_model import Seq2Seq  # noqa: E402
from export_onnx import load  # noqa: E402  (an attnscope file -> Seq2Seq, cfg)


@torch.no_grad()
def score(model, encoded, batch=100):
    """-> (mean cross-entropy per target token, share of target tokens predicted right)"""
    model.eval()
    loss = right = n = 0
    for i in range(0, len(encoded), batch):
        b = encoded[i: i + batch]
        src = T.pad([e[0] for e in b])
        tgt = T.pad([[T.BOS] + e[1] + [T.EOS] for e in b])
        logits, gold = T.forward(model, src, tgt[:, :-1]), tgt[:, 1:]
        keep = gold != T.PAD
        loss += F.cross_entropy(logits[keep], gold[keep], reduction="sum").item()
        right += (logits.argmax(-1)[keep] == gold[keep]).sum().item()
        n += keep.sum().item()
    return loss / n, right / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="an untied model file")
    ap.add_argument("--dev", required=True, help="a corpus.py dev.tsv")
    ap.add_argument("-n", type=int, default=1000)
    a = ap.parse_args()
    torch.set_num_threads(1)
    untied, cfg = load(a.model)
    index = {side: {t: i for i, t in enumerate(cfg[side])} for side in ("src_vocab", "tgt_vocab")}
    encoded = T.encode(T.load(a.dev)[: a.n], index["src_vocab"], index["tgt_vocab"])

    def row(name, result):
        print(f"{name:<48} loss {result[0]:7.3f}  next token {100 * result[1]:5.1f}%")

    row("untied, as the file is", score(untied, encoded))
    E, G = untied.tgt_embed.weight.detach(), untied.generator.weight.detach()
    for name, table in (("the old target embedding", E), ("the old generator", G),
                        ("the generator at the embedding's norm", G * E.norm(dim=1).mean() / G.norm(dim=1).mean()),
                        ("their mean", (E + G) / 2)):
        tied = Seq2Seq(dict(cfg, tie_embeddings=True)).eval()
        tied.load_state_dict(untied.state_dict())
        with torch.no_grad():
            tied.tgt_embed.weight.copy_(table)  # the generator's weight is this same tensor
        row("tied, from " + name, score(tied, encoded))


if __name__ == "__main__":
    main()
