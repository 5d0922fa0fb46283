"""Train the Tiny GPT: a decoder-only (GPT-style) language model on the English side of our corpus.

The lab's third model (www/js/models.js): one causal stack that reads a text left to right and
predicts the next word, so a reader can watch next-word prediction and what the causal mask hides
beside the translator (encoder-decoder) and MiniLM (encoder only). Small on purpose (d_model 64,
4 heads, 2 layers; the embedding table stored as int8, and measured so), seeded, a few minutes of
one CPU core:

    python3 train/corpus.py                  # writes train/out/train.tsv, dev.tsv (the translator's corpus)
    target/venv/bin/python train/train_gpt.py --out www/models/tiny-gpt.safetensors

Architecture (GPT-2's shape, pre-norm): x_0 = E[w] + P[t]; per layer x += SelfAttn(LN1(x)) with
the causal mask, x += FFN(LN3(x)) (GELU, tanh form); then a final LayerNorm and logits = x E^T
(the embedding table, tied). The tokenizer is WordPiece, uncased, over the corpus's words (every
word seen twice or more is one token; a word outside it splits into letters, `##` marking a piece
inside a word), so it reads any English text; the engine runs the same tokenizer (src/subword/).
Data: the English sentences of train.tsv (the generator's grammar: readers' own sentences that
leave it get less sure predictions, which is also something to see). Each sentence is followed by
`[SEP]`, the end of text: after a full sentence the model predicts it.
"""
import argparse
import math
import os
import random
import sys
import tempfile
import time

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from convert_tokenizer import tokenizer_metadata  # noqa: E402
from corpus import read_tsv  # noqa: E402
from attnscope_model import quantize_rows  # noqa: E402
from describe import describe  # noqa: E402

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]  # the WordPiece reader wants all five


def log(*a):
    print(*a, flush=True)


def words_of(texts):
    """BERT's basic tokenisation (lowercase, punctuation split), as the engine's WordPiece does."""
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer

    norm, pre = BertNormalizer(lowercase=True), BertPreTokenizer()
    return [[w for w, _ in pre.pre_tokenize_str(norm.normalize_str(t))] for t in texts]


def build_vocab(texts, min_count):
    """Specials, then every word seen `min_count` times or more, then single characters (bare and
    `##`) so that any other word splits into letters instead of becoming [UNK]."""
    counts = {}
    for ws in words_of(texts):
        for w in ws:
            counts[w] = counts.get(w, 0) + 1
    words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    chars = sorted({ch for w in counts for ch in w})
    vocab = list(SPECIALS)
    seen = set(vocab)
    for t in words + chars + [f"##{c}" for c in chars]:
        if t not in seen:
            vocab.append(t)
            seen.add(t)
    return vocab


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, d_model, nhead, layers, ff, max_len, dropout):
        super().__init__()
        self.max_len = max_len
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(max_len, d_model)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(d_model, nhead, ff, dropout, activation=lambda x: F.gelu(x, approximate="tanh"),
                                       batch_first=True, norm_first=True)
            for _ in range(layers))
        self.norm = nn.LayerNorm(d_model)
        nn.init.normal_(self.embed.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, ids):  # ids (B, T) -> logits (B, T, V)
        T = ids.shape[1]
        x = self.embed(ids) + self.pos(torch.arange(T))[None]                    # (B, T, d)
        mask = torch.triu(torch.full((T, T), float("-inf")), diagonal=1)          # (T, T) causal
        for layer in self.layers:
            x = layer(x, src_mask=mask, is_causal=True)
        return self.norm(x) @ self.embed.weight.T                                # (B, T, V)


def batches(seqs, size, rng):
    order = list(range(len(seqs)))
    while True:
        rng.shuffle(order)
        for i in range(0, len(order) - size + 1, size):
            yield [seqs[j] for j in order[i:i + size]]


def pad(batch):
    T = max(len(s) for s in batch)
    return torch.tensor([s + [0] * (T - len(s)) for s in batch])  # [PAD] is id 0


def loss_of(model, ids):
    logits = model(ids[:, :-1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1), ignore_index=0)


@torch.no_grad()
def evaluate(model, seqs):
    """Next-token accuracy and perplexity over `seqs` (every position that has a next token)."""
    model.eval()
    right = total = 0
    nll = 0.0
    for i in range(0, len(seqs), 256):
        ids = pad(seqs[i:i + 256])
        logits = model(ids[:, :-1])
        want = ids[:, 1:]
        keep = want != 0
        nll += F.cross_entropy(logits[keep], want[keep], reduction="sum").item()
        right += (logits.argmax(-1)[keep] == want[keep]).sum().item()
        total += keep.sum().item()
    model.train()
    return right / total, math.exp(nll / total)


def export(model, vocab, tok, a, path, figures):
    """Write the attnscope file (README, "Three families": the decoder-only tensor names)."""
    import json

    from safetensors.torch import save_file

    t = {"tgt_embed.weight": model.embed.weight, "tgt_pos.weight": model.pos.weight,
         "transformer.decoder.norm.weight": model.norm.weight, "transformer.decoder.norm.bias": model.norm.bias}
    for n, layer in enumerate(model.layers):
        p = f"transformer.decoder.layers.{n}."
        sa = layer.self_attn
        t.update({p + "self_attn.in_proj_weight": sa.in_proj_weight, p + "self_attn.in_proj_bias": sa.in_proj_bias,
                  p + "self_attn.out_proj.weight": sa.out_proj.weight, p + "self_attn.out_proj.bias": sa.out_proj.bias,
                  p + "linear1.weight": layer.linear1.weight, p + "linear1.bias": layer.linear1.bias,
                  p + "linear2.weight": layer.linear2.weight, p + "linear2.bias": layer.linear2.bias,
                  p + "norm1.weight": layer.norm1.weight, p + "norm1.bias": layer.norm1.bias,
                  # the feed-forward's LayerNorm is a decoder layer's third (norm2 belongs to cross-attention)
                  p + "norm3.weight": layer.norm2.weight, p + "norm3.bias": layer.norm2.bias})
    tensors = {k: v.detach().float().contiguous().clone() for k, v in t.items()}
    # the embedding table (also the output layer, tied) as int8 with per-row scales: a quarter of F32
    tensors["tgt_embed.weight"], tensors["tgt_embed.weight_scale"] = quantize_rows(tensors["tgt_embed.weight"])
    meta = {"format": 1, "architecture": "decoder_only", "d_model": a.d_model, "nhead": a.heads,
            "num_encoder_layers": 0, "num_decoder_layers": a.layers, "dim_feedforward": a.ff,
            "activation": "gelu_tanh", "norm_first": True, "layer_norm_eps": 1e-5, "positional": "learned",
            "max_len": a.max_len, "scale_embedding": False, "embed_norm": False, "type_vocab_size": 0,
            "final_norm": True, "head": "lm", "tie_embeddings": True, "logits_bias": False,
            "src_vocab": [], "tgt_vocab": vocab,
            "specials": {"pad": "[PAD]", "bos": "[CLS]", "eos": "[SEP]", "unk": "[UNK]"},
            "tokenizer": {"lowercase": False, "contractions": False, "subword": tok["subword"],
                          "source_prefix": [], "source_suffix": []}}
    save_file(tensors, path, metadata={"attnscope": json.dumps(meta, ensure_ascii=False)})
    describe(path, {"source_language": "en", "target_language": "en",
                    "description": f"Tiny GPT, trained here by train/train_gpt.py (seed {a.seed}, {figures['steps']} steps) on the "
                                   f"English of the translator's corpus: next-token accuracy {figures['acc']:.1%}, "
                                   f"perplexity {figures['ppl']:.2f} on {figures['dev']} held-out sentences"})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "out", "train.tsv"))
    ap.add_argument("--dev", default=os.path.join(HERE, "out", "dev.tsv"))
    ap.add_argument("--out", default=os.path.join(HERE, "out", "tiny-gpt.safetensors"))
    ap.add_argument("--sentences", type=int, default=200000, help="training sentences used (from --data)")
    ap.add_argument("--min-count", type=int, default=2)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--ff", type=int, default=256)
    ap.add_argument("--max-len", type=int, default=32)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--minutes", type=float, default=30.0, help="a cap: the run is --steps long unless the machine is very slow")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)

    texts = [r[0] for r in read_tsv(a.data)]
    rng.shuffle(texts)
    texts = texts[: a.sentences]
    dev_texts = [r[0] for r in read_tsv(a.dev)][:1000]
    vocab = build_vocab(texts, a.min_count)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(vocab) + "\n")
        with open(os.path.join(d, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            f.write('{"do_lower_case": true}')
        tok = tokenizer_metadata(d)
        from tokenizers import BertWordPieceTokenizer
        wp = BertWordPieceTokenizer(os.path.join(d, "vocab.txt"), lowercase=True)
    sep = vocab.index("[SEP]")
    encode = lambda ts: [e.ids[: a.max_len - 1] + [sep] for e in wp.encode_batch(ts, add_special_tokens=False)]  # noqa: E731
    seqs, dev = encode(texts), encode(dev_texts)
    log(f"data: {len(seqs)} sentences, {sum(map(len, seqs))} tokens; vocab {len(vocab)}; dev {len(dev)}")

    model = TinyGPT(len(vocab), a.d_model, a.heads, a.layers, a.ff, a.max_len, a.dropout)
    log(f"model: {sum(p.numel() for p in model.parameters())} parameters")
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    warm = 200
    start = time.time()
    step = 0
    for step, batch in enumerate(batches(seqs, a.batch, rng), 1):
        progress = min(1.0, max(step / a.steps, (time.time() - start) / (a.minutes * 60)))
        lr = a.lr * min(1.0, step / warm) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))
        for g in opt.param_groups:
            g["lr"] = lr
        loss = loss_of(model, pad(batch))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 200 == 0:
            log(f"  step {step:5d}  lr {lr:.2e}  loss {loss.item():.4f}  {time.time() - start:5.0f}s")
        if progress >= 1.0:
            break
    # measured as the file holds it: the int8 embedding table, dequantised
    q, scale = quantize_rows(model.embed.weight)
    with torch.no_grad():
        model.embed.weight.copy_(q.float() * scale.float()[:, None])
    acc, ppl = evaluate(model, dev)
    log(f"dev: next-token accuracy {acc:.2%}, perplexity {ppl:.2f} ({len(dev)} sentences)")
    export(model.eval(), vocab, tok, a, a.out, {"steps": step, "acc": acc, "ppl": ppl, "dev": len(dev)})
    log(f"wrote {a.out} ({os.path.getsize(a.out)} bytes)")


if __name__ == "__main__":
    sys.exit(main())
