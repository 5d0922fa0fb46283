"""Set a model file's description fields: the `__metadata__` entries beside `attnscope`.

The engine reads only `attnscope` (the configuration); the page's model card lists the others
as the file's own description, and reads two of them: `source_language` and `target_language`,
BCP 47 tags ("en", "ko", "de") of the text the model reads and writes, which set the language
and the writing direction of the page's source tokens and output (www/js/engine.js
`languages`). train/train.py writes them for the demo model; a converted model gets them here:

    python3 train/describe.py model.safetensors source_language=de target_language=en
    python3 train/describe.py model.safetensors "description=Marian de-en, converted 2026-12"
    python3 train/describe.py model.safetensors description=       # an empty value removes it

Tensors are copied unchanged (same dtypes, same bytes); the file is rewritten in place. It
needs `safetensors` and `numpy` only (not torch): `pip install safetensors numpy`.

The demo model's `unsure_below` (the probability below which the page marks a generated token
as unsure) is measured by the engine, not set by hand:

    target/release/attnscope confidence --model www/models/en-ko.safetensors \
        --set tests/data/everyday-en-ko.tsv                  # prints {"unsure_below": "0.84", ...}
    python3 train/describe.py www/models/en-ko.safetensors unsure_below=0.84
"""
import argparse
import os
import sys


def describe(path, fields):
    """Rewrite `path` with its description fields updated by `fields` ({key: value}, "" removes)."""
    from safetensors import safe_open
    from safetensors.numpy import save_file

    with safe_open(path, framework="np") as f:
        meta = dict(f.metadata() or {})
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    if "attnscope" not in meta:
        raise ValueError(f"{path} has no attnscope metadata (convert it with train/convert.py first)")
    for k, v in fields.items():
        if k == "attnscope":
            raise ValueError("attnscope is the configuration, not a description field")
        if v:
            meta[k] = v
        else:
            meta.pop(k, None)
    tmp = path + ".tmp"
    save_file(tensors, tmp, metadata=meta)
    os.chmod(tmp, 0o644)  # safetensors creates 0600 files
    os.replace(tmp, path)
    return meta


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="an attnscope model file (.safetensors)")
    ap.add_argument("fields", nargs="+", metavar="KEY=VALUE", help="a description field; an empty VALUE removes it")
    a = ap.parse_args(argv)
    fields = {}
    for item in a.fields:
        key, eq, value = item.partition("=")
        if not eq or not key:
            print(f"describe.py: {item!r} is not KEY=VALUE", file=sys.stderr)
            return 2
        fields[key] = value
    try:
        meta = describe(a.model, fields)
    except (OSError, ValueError) as e:
        print(f"describe.py: {e}", file=sys.stderr)
        return 1
    shown = {k: v for k, v in meta.items() if k != "attnscope"}
    print(f"{a.model}: {shown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
