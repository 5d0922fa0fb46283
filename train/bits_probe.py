#!/usr/bin/env python3
"""What storing the embedding tables in fewer than 8 bits would cost, before the engine stores one.

A model file keeps `src_embed.weight` and `tgt_embed.weight` as int8 rows with per-row scales
(`{name}_scale`). This probe re-quantises them to BITS bits a value (symmetric, per-row scale),
optionally after removing each column's mean (`--center`: kept exactly, added back) and dividing
each column by its spread (`--column-scale`), and writes a file whose tables are the float16
values that storage would give back, which the engine reads as it is: so `eval_reference.py`
measures the cost in translations. It prints what the stored file would weigh (the row scales,
and a float16 offset and column scale per table when used, with the codes packed BITS bits a
value or one a byte as the int8 tables are now), raw and gzip -9, beside the file as it is:
gzip finds the unused levels of codes kept one a byte, but not the codes of a bit-packed table.

Why the options: the tied target table of the version-3 runs is one shared vector plus small
row differences (its column 3 is about 2.5 in every row, the other columns vary by about 0.04
between rows), so a per-row scale spends its levels on the shared part (MODEL.md, "Decoding and
storage probes").

Usage (with the training environment, `scripts/setup.sh python`):
    target/venv/bin/python train/bits_probe.py --model FILE --out target/tmp/t.safetensors \
        --bits 6 --center --column-scale
    python3 train/eval_reference.py --model target/tmp/t.safetensors
"""
import argparse
import gzip

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save, save_file

TABLES = ("src_embed.weight", "tgt_embed.weight")


def table(tensors, name):
    """The (rows, cols) float32 values of an int8 table with per-row scales, or a float one."""
    t = tensors[name]
    if t.dtype == np.int8:
        return t.astype(np.float32) * tensors[name + "_scale"].astype(np.float32)[:, None]
    return t.astype(np.float32)


def f16(x):
    return np.asarray(x, dtype=np.float16).astype(np.float32)


def requantise(w, bits, center, column_scale):
    """-> (values the storage gives back (rows, cols), codes (rows, cols) in [0, 2^bits - 2],
    [the float16 offset and column scale, those used])."""
    offset = f16(w.mean(0)) if center else np.zeros(w.shape[1], np.float32)
    r = w - offset
    cs = f16(np.maximum(r.std(0), 1e-8)) if column_scale else np.ones(w.shape[1], np.float32)
    r = r / cs
    qmax = 2 ** (bits - 1) - 1
    rs = f16(np.where(np.abs(r).max(1) > 0, np.abs(r).max(1) / qmax, 1.0))
    q = np.clip(np.round(r / rs[:, None]), -qmax, qmax)
    extra = [x.astype(np.float16) for x, used in ((offset, center), (cs, column_scale)) if used]
    return q * rs[:, None] * cs + offset, (q + qmax).astype(np.uint8), extra


def pack(codes, bits):
    """Codes of `bits` bits each, packed end to end (the bytes a packed table would take)."""
    planes = np.unpackbits(codes.reshape(-1, 1), axis=1)[:, 8 - bits:]
    return np.packbits(planes.reshape(-1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True, help="the file with the re-quantised tables as float16")
    ap.add_argument("--bits", type=int, required=True, choices=range(2, 9))
    ap.add_argument("--tables", default=",".join(TABLES), help="which tables (comma-separated)")
    ap.add_argument("--center", action="store_true", help="remove each column's mean first (stored as an offset)")
    ap.add_argument("--column-scale", action="store_true", help="divide each column by its spread first")
    a = ap.parse_args()
    with safe_open(a.model, framework="np") as f:
        meta = f.metadata()
    tensors = load_file(a.model)
    chosen = a.tables.split(",")
    packed, bytewise = dict(tensors), dict(tensors)
    for name in TABLES:
        w = table(tensors, name)
        if name in chosen:
            w, codes, extra = requantise(w, a.bits, a.center, a.column_scale)
            for store, data in ((packed, pack(codes, a.bits)), (bytewise, codes.reshape(-1))):
                store[name] = data
                for k, x in enumerate(extra):
                    store[f"{name}_extra{k}"] = x
        tensors[name] = w.astype(np.float16)
        tensors.pop(name + "_scale", None)
    save_file(tensors, a.out, metadata=meta)
    est, est8 = save(packed, metadata=meta), save(bytewise, metadata=meta)
    original = open(a.model, "rb").read()
    print(f"{a.out}: tables {chosen} at {a.bits} bits (center {a.center}, column scale {a.column_scale}); "
          f"packed file about {len(est):,} bytes, {len(gzip.compress(est, 9)):,} gzip -9; "
          f"one code a byte {len(est8):,}, {len(gzip.compress(est8, 9)):,} gzip -9 "
          f"(as it is: {len(original):,}, {len(gzip.compress(original, 9)):,})")

if __name__ == "__main__":
    main()
