#!/usr/bin/env python3
"""Train the attnscope demo model (English -> Korean) and export it as www/models/en-ko.safetensors.

Data: train/out/{train,dev}.tsv and tests/data/en-ko-test.tsv, written by train/corpus.py.
Model: attnscope_model.Seq2Seq (nn.Transformer, post-LN, d_model 64, 4 heads, 2 + 2 layers,
FFN 256, sinusoidal positions, embeddings scaled by sqrt(d_model)).
Training: Adam with linear warmup, a hold and a linear decay, label smoothing 0.05, teacher
forcing with the causal mask, batches of 96 sentences of similar length, dropout 0.1 (none on
the attention weights when the saturation penalty is on), embeddings started at std
d_model^-1/2, one random noun, name or adjective made <unk> in 12% of the sentences; CPU, one
thread, seeded, a resumable checkpoint every --ckpt-every steps. Every --eval-every steps the
weights are rounded to float16 and part of the dev set is decoded greedily; training stops when
the dev exact match reaches --target or after --minutes. With --average N the final weights are
averaged with those of the N - 1 checkpoints before them (Vaswani et al. 2017, section 6.1,
averaged the last 5 checkpoints), and the average is kept if its dev exact match is higher. The export holds the embedding and
generator tables as int8 with per-row scales and the rest as float16; the accuracies printed
here are measured on float16-rounded weights (the engine's figures, on the file, are in MODEL.md).

Usage:
    python train/train.py                 # train, evaluate, export (the committed model's run)
    python train/train.py --resume        # continue from train/out/ckpt.pt after a stop
    python train/train.py --init-from www/models/en-ko.safetensors   # start from a model file
                                          # (version 3 starts from version 2's committed file)
    python train/train.py --analyze-only  # reload train/out/model.pt, evaluate and export again
                                          # (with --average N: average it with the kept
                                          # checkpoints first, as the end of training does)
"""
import argparse
import copy
import json
import os
import random
import re
import sys
import time

import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import attnscope_model  # noqa: E402
import eval_reference  # noqa: E402
from attnscope_model import Seq2Seq  # noqa: E402
from corpus import GLUE, GLUE_PREFIX, SEED_EN, SEED_KO, detokenize_ko, read_tsv, tokenize_en  # noqa: E402

SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
PAD, BOS, EOS, UNK = 0, 1, 2, 3
# The big tables are stored as int8 with a per-row scale (the rest as float16).
INT8 = ("src_embed.weight", "tgt_embed.weight", "generator.weight")


def log(*a):
    print(*a, flush=True)


def build_vocab(seqs, min_count=1):
    """Specials first, then every token seen at least `min_count` times, most frequent first (a
    word seen once or twice would keep an untrained embedding: better unknown, and copied)."""
    count = {}
    for s in seqs:
        for t in s:
            count[t] = count.get(t, 0) + 1
    kept = [t for t in count if count[t] >= min_count and t not in SPECIALS]
    return SPECIALS + sorted(kept, key=lambda t: (-count[t], t))


def load(path):
    rows = read_tsv(path)
    return [(tokenize_en(en), ko, al, en, units) for en, ko, al, units in rows]


def encode(data, src_index, tgt_index):
    """-> (source ids, target ids, units): units are (source position, [target positions]) of
    the nouns, names and adjectives that training may replace by <unk> on both sides."""
    out = []
    for src, ko, al, en, units in data:
        s = [src_index.get(t, UNK) for t in src]
        t = [tgt_index.get(t, UNK) for t in ko]
        out.append((s, t, units))
    return out


def with_unknowns(example, rng, p):
    """With probability p, one replaceable word becomes <unk> in the source and every Korean
    token that translates it becomes <unk> too: the model learns to write <unk> where an unknown
    word belongs, and the engine copies the source word there (attention-based copy)."""
    s, t, units = example
    if not units or rng.random() >= p:
        return s, t
    e, ks = units[rng.randrange(len(units))]
    s, t = list(s), list(t)
    s[e] = UNK
    for k in ks:
        t[k] = UNK
    return s, t


def batches(encoded, batch_size, rng):
    """Length-bucketed batches (list of index lists), shuffled."""
    order = sorted(range(len(encoded)), key=lambda i: (len(encoded[i][0]) + rng.random() * 2, len(encoded[i][1])))
    bs = [order[i: i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(bs)
    return bs


def pad(seqs, value=PAD):
    n = max(len(s) for s in seqs)
    return torch.tensor([s + [value] * (n - len(s)) for s in seqs], dtype=torch.long)


def causal_mask(t):
    return torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)


def encode_src(model, src):
    src_pad = src == PAD
    mem = model.transformer.encoder(model.embed(src, "src"), src_key_padding_mask=src_pad)
    return mem, src_pad


def decode_step(model, mem, src_pad, tgt_in):
    out = model.transformer.decoder(
        model.embed(tgt_in, "tgt"), mem, tgt_mask=causal_mask(tgt_in.shape[1]),
        memory_key_padding_mask=src_pad, tgt_is_causal=True,
    )
    return model.generator(out)


def forward(model, src, tgt_in):
    """Teacher-forced logits with source padding masked (Seq2Seq.forward has no padding masks;
    this is the same computation as nn.Transformer.forward with key-padding masks)."""
    mem, src_pad = encode_src(model, src)
    return decode_step(model, mem, src_pad, tgt_in)


def banned_by_ngram(seq, n):
    """The tokens that would make the last n - 1 tokens of `seq` plus one of them an n-gram
    `seq` already holds (the "no repeated n-gram" rule of generation libraries; <unk> exempt)."""
    if n < 2 or len(seq) < n - 1:
        return set()
    last = seq[len(seq) - (n - 1):]
    return {seq[j + n - 1] for j in range(len(seq) - (n - 1)) if seq[j:j + n - 1] == last} - {UNK}


@torch.no_grad()
def greedy(model, srcs, max_len=60, batch_size=250, no_repeat=0):
    """Greedy decoding of a list of source id lists -> list of target id lists (without eos).
    no_repeat=N > 1 never takes a token that repeats an N-gram (`banned_by_ngram`)."""
    model.eval()
    outs = [None] * len(srcs)
    order = sorted(range(len(srcs)), key=lambda i: len(srcs[i]))
    for b in range(0, len(order), batch_size):
        idx = order[b: b + batch_size]
        src = pad([srcs[i] for i in idx])
        mem, src_pad = encode_src(model, src)
        ys = torch.full((len(idx), 1), BOS, dtype=torch.long)
        done = torch.zeros(len(idx), dtype=torch.bool)
        for _ in range(max_len):
            logits = decode_step(model, mem, src_pad, ys)[:, -1]
            for r in range(len(idx)) if no_repeat else ():
                logits[r, list(banned_by_ngram(ys[r, 1:].tolist(), no_repeat))] = float("-inf")
            nxt = logits.argmax(-1)
            nxt = torch.where(done, torch.full_like(nxt, PAD), nxt)
            ys = torch.cat([ys, nxt[:, None]], 1)
            done |= nxt == EOS
            if done.all():
                break
        for k, i in enumerate(idx):
            seq = []
            for t in ys[k, 1:].tolist():
                if t in (EOS, PAD):
                    break
                seq.append(t)
            outs[i] = seq
    return outs


def f16_copy(model):
    m = copy.deepcopy(model)
    m.load_state_dict({k: v.half().float() for k, v in model.state_dict().items()})
    m.eval()
    return m


def exact_match(model, encoded):
    preds = greedy(model, [e[0] for e in encoded])
    ok = sum(p == e[1] for p, e in zip(preds, encoded))
    return ok / len(encoded), preds


def teacher_forced_loss(model, encoded, n=960, batch_size=96, seed=0):
    """Mean cross-entropy of `model` (eval mode, no label smoothing) on n training examples drawn
    with `seed`, given the right previous tokens: logged after --init-from, where it should be
    about what the file itself scores, not that of a fresh model."""
    pick = random.Random(seed).sample(range(len(encoded)), min(n, len(encoded)))
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    was_training, total = model.training, 0.0
    model.eval()
    with torch.no_grad():
        for b in range(0, len(pick), batch_size):
            ex = [encoded[i] for i in pick[b: b + batch_size]]
            src = pad([e[0] for e in ex])
            tgt = pad([[BOS] + e[1] + [EOS] for e in ex])
            logits = forward(model, src, tgt[:, :-1])
            total += float(loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[:, 1:].reshape(-1))) * len(ex)
    model.train(was_training)
    return total / len(pick)


def everyday_dev(src_index):
    """The dev half of the everyday reference set (`tests/data/everyday-en-ko.tsv`, issue 23) as
    [(source ids, accepted translations)]; the held-out half is never read here."""
    rows = [r for r in eval_reference.load(eval_reference.DEFAULT_SET) if r["split"] == "dev"]
    return [([src_index.get(t, UNK) for t in tokenize_en(r["en"])], r["refs"]) for r in rows]


def everyday_match(model, everyday, tgt_vocab):
    """Exact match on `everyday_dev`, by eval_reference's rule. A proxy for the engine's figure:
    plain greedy decoding here (the engine also copies unknown words and stops loops)."""
    preds = greedy(model, [s for s, _ in everyday])
    ok = sum(eval_reference.matches(detokenize_ko([tgt_vocab[i] for i in p]), refs)
             for p, (_, refs) in zip(preds, everyday))
    return ok / len(everyday)


def lr_at(step, progress, peak, warmup, hold=0.6, floor=0.05):
    """Linear warmup over `warmup` steps, constant until `hold` of the run, then linear decay to
    `floor` * peak.  progress = max(step / total steps, elapsed / time budget), so on a machine fast
    enough to finish the steps in time the schedule depends on the step count only."""
    warm = min(1.0, max(step, 1) / warmup)
    decay = 1.0 if progress < hold else max(floor, (1.0 - progress) / (1.0 - hold))
    return peak * warm * decay


class CrossAttnCapture:
    """Make a decoder layer's cross-attention return per-head weights and keep them."""

    def __init__(self, mha):
        self.mha, self.weights = mha, None
        self.orig = mha.forward

        def fwd(*args, **kw):
            kw["need_weights"] = True
            kw["average_attn_weights"] = False
            out, w = self.orig(*args, **kw)
            self.weights = w.detach()
            return out, w

        mha.forward = fwd

    def close(self):
        del self.mha.forward  # back to the class method


@torch.no_grad()
def cross_attention(model, src_ids, tgt_ids):
    """Per-layer cross-attention weights (heads, T, S) for teacher-forced [bos] + tgt_ids."""
    caps = [CrossAttnCapture(layer.multihead_attn) for layer in model.transformer.decoder.layers]
    try:
        src = torch.tensor([src_ids])
        tgt = torch.tensor([[BOS] + tgt_ids])
        forward(model, src, tgt)
        return [c.weights[0] for c in caps]
    finally:
        for c in caps:
            c.close()


def alignment_agreement(model, data, encoded, n=400):
    """How often the most-attended source token (last decoder layer, at the step that produces a
    Korean token) is the gold-aligned English token: per head and for the head average."""
    heads = model.cfg["nhead"]
    hits = [0] * (heads + 1)
    total = 0
    for (src, ko, al, en, _u), (s, t, _) in list(zip(data, encoded))[:n]:
        w = cross_attention(model, s, t)[-1]  # (heads, T+1, S); query k predicts t[k]
        for k, a in enumerate(al):
            if a < 0:
                continue
            total += 1
            for h in range(heads):
                hits[h] += int(w[h, k].argmax().item() == a)
            hits[heads] += int(w[:, k].mean(0).argmax().item() == a)
    return [h / max(total, 1) for h in hits], total


class AttentionCapture:
    """Make every nn.MultiheadAttention of the model return its per-head weights (with their
    gradients) so that training can penalise saturated rows."""

    def __init__(self, model):
        self.weights = {}
        self.mods = []
        torch.backends.mha.set_fastpath_enabled(False)  # the fused encoder path never calls forward
        for name, mod in model.named_modules():
            if isinstance(mod, nn.MultiheadAttention):
                self.mods.append(mod)
                mod.forward = self._wrap(name, mod.forward)

    def _wrap(self, name, orig):
        def fwd(*args, **kw):
            kw["need_weights"] = True
            kw["average_attn_weights"] = False
            out, w = orig(*args, **kw)
            self.weights[name] = w
            return out, w

        return fwd

    def close(self):
        for mod in self.mods:
            del mod.forward


def saturation_penalty(weights, src_valid, tgt_valid, cap):
    """Mean over real query rows of relu(max_j w_ij - cap): attention may still prefer one word
    clearly, but a row that puts nearly everything on one key costs something. The decoder's first
    row (it sees only <bos>) is left out."""
    total, count = 0.0, 0
    for name, w in weights.items():  # (B, H, T_q, T_k)
        q = src_valid if name.startswith("transformer.encoder") else tgt_valid
        if ".self_attn" in name and name.startswith("transformer.decoder"):
            q = q.clone()
            q[:, 0] = False
        excess = torch.relu(w.max(-1).values - cap)  # (B, H, T_q)
        m = q[:, None, :].expand_as(excess)
        total = total + excess[m].sum()
        count += int(m.sum())
    return total / max(count, 1)


@torch.no_grad()
def saturation_report(model, encoded, n=300):
    """Share of attention rows with a weight above 0.99, per stack and layer (teacher forcing)."""
    cap = AttentionCapture(model)
    try:
        counts = {}
        for s, t, _ in encoded[:n]:
            src = torch.tensor([s])
            tgt = torch.tensor([[BOS] + t])
            forward(model, src, tgt)
            for name, w in cap.weights.items():
                rows = w[0].max(-1).values  # (H, T_q)
                if ".self_attn" in name and name.startswith("transformer.decoder"):
                    rows = rows[:, 1:]
                c = counts.setdefault(name, [0, 0])
                c[0] += int((rows > 0.99).sum())
                c[1] += rows.numel()
        return {k: v[0] / max(v[1], 1) for k, v in counts.items()}
    finally:
        cap.close()


def warm_start(model, path, grow=False):
    """Start `model` from the attnscope file at `path` (int8 rows dequantised, F16 widened).

    Tensors of equal shape are copied; the embedding tables and the generator are copied row by
    row for the tokens both vocabularies hold (looked up by token text), so a model whose corpus
    added words keeps what the old one knew and starts the new words' rows as a fresh model
    would. With `grow`, a model with more encoder or decoder layers than the file computes, at
    the start, exactly what the file computes: each layer the file lacks reads as the file's top
    layer of that stack does (its query/key/value and first feed-forward weights copied) but
    writes nothing (its attention output and second feed-forward projections zero), so it maps
    x to LayerNorm(LayerNorm(x)), a per-token shift and scale of x that the stack's final
    LayerNorm removes (post-LN). Training then gives it something to write. With `grow` and a
    wider feed-forward layer than the file's (`--ff`), the file's hidden units come first and the
    new ones write nothing at first, so the wider model too starts as the file. A tied model
    (`--tie`) started from an untied file takes the file's generator rows, rescaled, as its one
    table, and has to relearn the decoder's input side (its logged start loss says how far off).
    Returns (tensors copied, source rows copied, target rows copied)."""
    meta, old = attnscope_model.read(path)  # F32, int8 tables dequantised
    by_rows = {"src_embed.weight": "src_vocab", "tgt_embed.weight": "tgt_vocab",
               "generator.weight": "tgt_vocab", "generator.bias": "tgt_vocab"}
    tied = model.cfg.get("tie_embeddings")
    if tied and not meta.get("tie_embeddings"):
        # One table from an untied file: its generator rows at the embedding's mean row norm, the
        # least bad of the four starts train/tie_probe.py measured (run 8's file: a loss of 8.0,
        # against 35.6 from the old target embedding); the decoder then relearns to read it.
        E, G = old["tgt_embed.weight"], old["generator.weight"]
        old["tgt_embed.weight"] = G * (E.norm(dim=1).mean() / G.norm(dim=1).mean())
    state = model.state_dict()
    copied, rows = 0, {}
    with torch.no_grad():
        for name, t in state.items():
            if tied and name == "generator.weight":  # the same tensor as tgt_embed.weight
                continue
            if name in by_rows:
                side = by_rows[name]
                index = {w: i for i, w in enumerate(meta[side])}
                pairs = [(j, index[w]) for j, w in enumerate(model.cfg[side]) if w in index]
                new_rows, old_rows = (torch.tensor(x) for x in zip(*pairs))
                t[new_rows] = old[name][old_rows]
                if name.startswith("generator.") or (tied and name == "tgt_embed.weight"):
                    # A trained generator's logits may all lie far below zero (softmax ignores a
                    # common shift: run 9's are near -38 but for the right token), so a fresh row,
                    # whose logit is near zero, would outbid every trained one and be written in
                    # place of every word (a loss of 17.9 on sentences the file translates at
                    # 0.07). A new token starts instead as the mean trained row with the lowest
                    # trained bias: below most words, never the first choice, until trained.
                    fresh = torch.ones(len(t), dtype=torch.bool)
                    fresh[new_rows] = False
                    rows_old = old[name][old_rows]
                    t[fresh] = rows_old.mean(0) if name.endswith("weight") else rows_old.min()
                rows[side] = len(pairs)
            elif name in old and old[name].shape == t.shape:
                t.copy_(old[name])
            elif grow and name in old and wider(t, old[name]):
                # A wider feed-forward layer (--ff above the file's): the file's hidden units
                # come first; the new ones read as initialised but write nothing yet (linear2's
                # new columns zero), so the layer computes what the file's did.
                if name.endswith("linear2.weight"):
                    t.zero_()
                leading(t, old[name])[...] = old[name]
            elif grow and (top := top_layer(name, meta)) in old and (old[top].shape == t.shape or wider(t, old[top])):
                if re.search(r"(out_proj|linear2)\.(weight|bias)$", name):
                    t.zero_()  # writes nothing yet
                elif re.search(r"norm\d\.weight$", name):
                    t.fill_(1.0)  # plain LayerNorm: a per-token shift and scale
                elif re.search(r"norm\d\.bias$", name):
                    t.zero_()
                else:
                    leading(t, old[top])[...] = old[top]
            else:
                raise ValueError(f"--init-from: {path} has no tensor {name} of shape {tuple(t.shape)}")
            copied += 1
    if tied:
        state["generator.weight"] = state["tgt_embed.weight"]
    model.load_state_dict(state)
    return copied, rows["src_vocab"], rows["tgt_vocab"]


def leading(t, old):
    """The block of `t` at its start that has `old`'s shape (a view: assigning to it writes `t`)."""
    return t[tuple(slice(0, n) for n in old.shape)]


def wider(t, old):
    """True when tensor `t` is `old` with some dimension larger (a wider feed-forward layer):
    `old` fits in its leading block."""
    return t.dim() == old.dim() and t.shape != old.shape and all(a >= b for a, b in zip(t.shape, old.shape))


def top_layer(name, meta):
    """'transformer.decoder.layers.3.linear1.weight' -> the same tensor of the top decoder layer
    an attnscope file with `meta` holds ('...layers.1.linear1.weight' for 2 layers); other names
    unchanged."""
    m = re.fullmatch(r"transformer\.(encoder|decoder)\.layers\.(\d+)\.(.+)", name)
    if not m:
        return name
    n = meta[f"num_{m[1]}_layers"]
    return f"transformer.{m[1]}.layers.{min(int(m[2]), n - 1)}.{m[3]}"


def export_file(model, path):
    """Write the model file (embedding and generator tables int8 with per-row scales, the rest
    float16); returns its size in bytes."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    attnscope_model.export(model, path, dtype=torch.float16, int8=INT8)
    os.chmod(path, 0o644)
    size = os.path.getsize(path)
    log(f"exported {path}: {size} bytes")
    return size


def kept_for_average(data):
    """The checkpoint weights kept for averaging, as [(step, path)], oldest first."""
    found = []
    for name in os.listdir(data):
        if name.startswith("avg-") and name.endswith(".pt") and name[4:-3].isdigit():
            found.append((int(name[4:-3]), os.path.join(data, name)))
    return sorted(found)


def keep_for_average(model, data, step, n):
    """Keep this checkpoint's weights as avg-STEP.pt, and only the `n` most recent."""
    torch.save(model.state_dict(), os.path.join(data, f"avg-{step}.pt"))
    for _, path in kept_for_average(data)[:-n]:
        os.remove(path)


def average_if_better(model, data, n, dev_e):
    """Average the model's weights with the `n` most recent kept checkpoints other than the model
    itself (a plain mean of each tensor); keep the average if its dev exact match (float16
    weights) beats the model's."""
    final = model.state_dict()
    same = lambda st: all(torch.equal(st[k], v) for k, v in final.items())  # noqa: E731
    kept = [(step, st) for step, st in ((step, torch.load(path)) for step, path in kept_for_average(data)) if not same(st)][-n:]
    if not kept:
        log("average: no checkpoints kept, nothing to average")
        return
    states = [st for _, st in kept] + [final]
    mean = {k: sum(st[k].float() for st in states) / len(states) for k in states[-1]}
    averaged = copy.deepcopy(model)
    averaged.load_state_dict(mean)
    em_model, _ = exact_match(f16_copy(model), dev_e)
    em_avg, _ = exact_match(f16_copy(averaged), dev_e)
    steps = ", ".join(str(s) for s, _ in kept)
    log(f"average of the weights at steps {steps} and the final ones: dev exact match {em_avg:.4f} "
        f"(final {em_model:.4f}, {len(dev_e)} sentences); keeping the {'average' if em_avg > em_model else 'final weights'}")
    if em_avg > em_model:
        model.load_state_dict(mean)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=140.0, help="wall-clock budget for the training loop")
    ap.add_argument("--batch", type=int, default=96)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=800)
    ap.add_argument("--steps", type=int, default=25000, help="planned number of steps (schedule length)")
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--ff", type=int, default=256)
    ap.add_argument("--tie", action="store_true",
                    help="the generator's weight is the target embedding table (paper section 3.4): "
                         "one table of target-vocabulary rows in the file instead of two")
    ap.add_argument("--min-count", type=int, default=3, help="a token seen fewer times in training stays unknown")
    ap.add_argument("--p-unk", type=float, default=0.12, help="share of training sentences with one word made <unk>")
    ap.add_argument("--sat-cap", type=float, default=0.9, help="attention weight above which a row is penalised")
    ap.add_argument("--sat-weight", type=float, default=0.5, help="weight of the saturation penalty")
    ap.add_argument("--label-smoothing", type=float, default=0.05)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--eval-every", type=int, default=2500)
    ap.add_argument("--eval-from", type=int, default=19000, help="first step with a dev evaluation")
    ap.add_argument("--eval-n", type=int, default=500, help="dev sentences decoded at each evaluation")
    ap.add_argument("--target", type=float, default=0.995, help="stop when dev exact match (f16 weights) reaches this")
    ap.add_argument("--ckpt-every", type=int, default=1000, help="steps between resumable checkpoints")
    ap.add_argument("--resume", action="store_true", help="continue from train/out/ckpt.pt")
    ap.add_argument("--average", type=int, default=5,
                    help="average the final weights with the N - 1 checkpoints before them (kept as avg-STEP.pt)")
    ap.add_argument("--init-from", metavar="FILE",
                    help="start from this attnscope model file instead of random weights (same sizes; "
                         "vocabulary rows matched by token)")
    ap.add_argument("--grow", action="store_true",
                    help="with --init-from and more --layers or a wider --ff than the file: new top layers and hidden units that start by changing nothing (warm_start)")
    ap.add_argument("--torch-embedding-init", action="store_true",
                    help="keep PyTorch's N(0, 1) embeddings (to measure the saturation they cause)")
    ap.add_argument("--data", default=os.path.join(HERE, "out"))
    ap.add_argument("--test", default=os.path.join(ROOT, "tests", "data", "en-ko-test.tsv"))
    ap.add_argument("--export", default=os.path.join(ROOT, "www", "models", "en-ko.safetensors"))
    ap.add_argument("--threads", type=int, default=1,
                    help="PyTorch's CPU threads (1: the runs of MODEL.md before run 9; 2 on a machine left to the run)")
    ap.add_argument("--analyze-only", action="store_true")
    ap.add_argument("--export-only", action="store_true",
                    help="with --analyze-only: reload (and with --average, average) the model and export it, without the evaluation")
    a = ap.parse_args(argv)

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    random.seed(a.seed)
    rng = random.Random(a.seed)
    t_start = time.time()

    train = load(os.path.join(a.data, "train.tsv"))
    dev = load(os.path.join(a.data, "dev.tsv"))
    test = load(a.test)
    src_vocab = build_vocab((s for s, *_ in train), a.min_count)
    tgt_vocab = build_vocab((t for _, t, *_ in train), a.min_count)
    src_index = {t: i for i, t in enumerate(src_vocab)}
    tgt_index = {t: i for i, t in enumerate(tgt_vocab)}
    train_e, dev_e, test_e = (encode(d, src_index, tgt_index) for d in (train, dev, test))
    everyday = everyday_dev(src_index)
    log(f"data: train {len(train)}, dev {len(dev)}, test {len(test)}; "
        f"src vocab {len(src_vocab)}, tgt vocab {len(tgt_vocab)}")

    cfg = {
        "d_model": a.d_model, "nhead": a.heads, "num_encoder_layers": a.layers, "num_decoder_layers": a.layers,
        "dim_feedforward": a.ff, "activation": "relu", "norm_first": False, "layer_norm_eps": 1e-5,
        "positional": "sinusoidal", "max_len": 64, "scale_embedding": True, "dropout": a.dropout,
        "src_vocab": src_vocab, "tgt_vocab": tgt_vocab,
        "specials": {"pad": "<pad>", "bos": "<bos>", "eos": "<eos>", "unk": "<unk>"},
        "tokenizer": {"lowercase": True, "contractions": True, "glue": GLUE, "glue_prefix": GLUE_PREFIX, "compose_jamo": True},
        "languages": {"source": "en", "target": "ko"},  # the file's description fields (describe.py)
        "tie_embeddings": a.tie,
    }
    model = Seq2Seq(cfg)
    # Embeddings are multiplied by sqrt(d_model): start them at std d_model^-1/2 so that the
    # scaled vectors have unit-size entries, like the positional encoding. With PyTorch's default
    # N(0, 1) they start 8x larger, every first-layer softmax saturates at once (one-hot rows),
    # and its gradient w(1 - w) is too small for training ever to soften it.
    if not a.torch_embedding_init:
        for emb in (model.src_embed, model.tgt_embed):
            nn.init.normal_(emb.weight, 0.0, a.d_model ** -0.5)
    if a.init_from and not a.resume and not a.analyze_only:
        n, src_rows, tgt_rows = warm_start(model, a.init_from, grow=a.grow)
        log(f"started from {a.init_from}: {n} tensors, {src_rows} of {len(src_vocab)} source rows, "
            f"{tgt_rows} of {len(tgt_vocab)} target rows; teacher-forced loss on 960 training lines "
            f"{teacher_forced_loss(model, train_e):.3f}")
    n_params = sum(p.numel() for p in model.parameters())
    log(f"model: {n_params} parameters")
    final = os.path.join(a.data, "model.pt")
    ckpt = os.path.join(a.data, "ckpt.pt")

    train_seconds = None
    if not a.analyze_only:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr, betas=(0.9, 0.98), eps=1e-9)
        loss_fn = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=a.label_smoothing)
        step, epoch, stop, elapsed0 = 0, 0, False, 0.0
        best = (-1.0, None)
        order = None
        if a.resume and os.path.exists(ckpt):
            st = torch.load(ckpt, weights_only=False)
            model.load_state_dict(st["model"])
            opt.load_state_dict(st["opt"])
            step, epoch, elapsed0, best = st["step"], st["epoch"] - 1, st["elapsed"], st["best"]
            rng.setstate(st["rng"])
            torch.set_rng_state(st["torch_rng"])
            order = st["order"]
            log(f"resumed from {ckpt}: step {step}, epoch {epoch + 1}, {elapsed0:.0f}s already trained")
        else:
            # A new run must not average in an earlier run's kept weights: theirs have higher
            # step numbers than this run's first ones, so they would win the "most recent" places.
            for _, path in kept_for_average(a.data):
                os.remove(path)
                log(f"removed {path}, kept by an earlier run")
        budget = a.minutes * 60
        t0 = time.time() - elapsed0
        capture = None
        if a.sat_weight > 0:
            # The penalty must see the softmax itself, not its dropped-out copy: no dropout on the
            # attention weights (dropout stays on every other sublayer output).
            for mod in model.modules():
                if isinstance(mod, nn.MultiheadAttention):
                    mod.dropout = 0.0
            capture = AttentionCapture(model)
        while not stop:
            epoch += 1
            model.train()
            tot_loss = tot_tok = tot_ok = tot_sat = 0
            n_b = 0
            if order is None:
                order = batches(train_e, a.batch, rng)
            start_b = step % len(order) if elapsed0 and n_b == 0 else 0
            elapsed0 = 0
            for bi in order[start_b:]:
                pairs = [with_unknowns(train_e[i], rng, a.p_unk) for i in bi]
                src = pad([p[0] for p in pairs])
                tgt = pad([[BOS] + p[1] + [EOS] for p in pairs])
                tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
                progress = max((step + 1) / a.steps, (time.time() - t0) / budget)
                lr = lr_at(step + 1, progress, a.lr, a.warmup)
                for g in opt.param_groups:
                    g["lr"] = lr
                logits = forward(model, src, tgt_in)
                loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
                total = loss
                if capture is not None:
                    sat = saturation_penalty(capture.weights, src != PAD, tgt_in != PAD, a.sat_cap)
                    total = loss + a.sat_weight * sat
                    tot_sat += float(sat.detach())
                opt.zero_grad(set_to_none=True)
                total.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                step += 1
                n_b += 1
                with torch.no_grad():
                    mask = tgt_out != PAD
                    n = int(mask.sum())
                    tot_loss += loss.item() * n
                    tot_tok += n
                    tot_ok += int(((logits.argmax(-1) == tgt_out) & mask).sum())
                if step % 200 == 0:
                    log(f"  step {step:6d}  lr {lr:.2e}  loss {tot_loss / tot_tok:.4f}  "
                        f"token acc {tot_ok / tot_tok:.4f}  saturation penalty {tot_sat / n_b:.4f}  {time.time() - t0:6.0f}s")
                if step % a.ckpt_every == 0:
                    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch,
                                "elapsed": time.time() - t0, "best": best, "rng": rng.getstate(),
                                "torch_rng": torch.get_rng_state(), "order": order}, ckpt + ".tmp")
                    os.replace(ckpt + ".tmp", ckpt)
                    if a.average > 1:
                        keep_for_average(model, a.data, step, a.average)  # the last may be the final one
                if step >= a.eval_from and (step - a.eval_from) % a.eval_every == 0 or step == a.steps:
                    m16 = f16_copy(model)
                    em, _ = exact_match(m16, dev_e[: a.eval_n])
                    ev = everyday_match(m16, everyday, tgt_vocab)
                    model.train()
                    log(f"  step {step:6d}  dev exact match (f16 weights, greedy, {a.eval_n}) {em:.4f}, "
                        f"everyday dev {ev:.4f}  {time.time() - t0:6.0f}s")
                    if em > best[0]:
                        best = (em, copy.deepcopy(model.state_dict()))
                    if em >= a.target:
                        stop = True
                        break
                if step >= a.steps or time.time() - t0 > budget:
                    log("  end of schedule" if step >= a.steps else "  time budget reached")
                    stop = True
                    break
            order = None
            log(f"epoch {epoch}: steps {step}, train loss {tot_loss / max(tot_tok, 1):.4f}, "
                f"token acc {tot_ok / max(tot_tok, 1):.4f}, {time.time() - t0:.0f}s")
        if capture is not None:
            capture.close()
        em, _ = exact_match(f16_copy(model), dev_e[: a.eval_n])
        if best[1] is not None and best[0] > em:
            log(f"restoring the best checkpoint (dev {best[0]:.4f} > final {em:.4f})")
            model.load_state_dict(best[1])
        train_seconds = time.time() - t0
        log(f"training loop: {step} steps, {train_seconds:.0f}s")
        if a.average > 1:
            average_if_better(model, a.data, a.average - 1, dev_e[: a.eval_n])
        torch.save(model.state_dict(), final)
    else:
        model.load_state_dict(torch.load(final))
        if a.average > 1:
            average_if_better(model, a.data, a.average - 1, dev_e[: a.eval_n])
            torch.save(model.state_dict(), final)
        try:  # keep the training time of the run that produced the checkpoint
            with open(os.path.join(a.data, "summary.json"), encoding="utf-8") as f:
                train_seconds = json.load(f).get("train_seconds")
        except (OSError, ValueError):
            pass
        if a.export_only:
            export_file(model, a.export)
            return 0

    sat = saturation_report(f16_copy(model), dev_e)
    for k, v in sat.items():
        log(f"  rows with a weight > 0.99: {v:.3f}  {k}")

    # ---- evaluation on float16-rounded weights -----------------------------------------------
    m16 = f16_copy(model)
    dev_em, _ = exact_match(m16, dev_e)
    test_em, test_pred = exact_match(m16, test_e)
    log(f"dev exact match (f16): {dev_em:.4f}")
    everyday_em = everyday_match(m16, everyday, tgt_vocab)
    log(f"everyday dev exact match (f16, plain greedy, {len(everyday)} sentences): {everyday_em:.4f}")
    log(f"TEST exact match (f16, greedy, {len(test_e)} held-out sentences): {test_em:.4f}")
    errors = [(d, p) for d, p, e in zip(test, test_pred, test_e) if p != e[1]]
    for (src, ko, al, en, _u), p in errors[:15]:
        log(f"  ERR {en}\n      gold {' '.join(ko)}\n      got  {' '.join(tgt_vocab[i] for i in p)}")
    with open(os.path.join(a.data, "test_errors.txt"), "w", encoding="utf-8") as f:
        for (src, ko, al, en, _u), p in errors:
            f.write(f"{en}\n  gold {' '.join(ko)}\n  got  {' '.join(tgt_vocab[i] for i in p)}\n")

    # ---- the seed sentence and its cross-attention -------------------------------------------
    seed_src_tokens = tokenize_en(SEED_EN)
    seed_src = [src_index.get(t, UNK) for t in seed_src_tokens]
    seed_out = greedy(m16, [seed_src])[0]
    seed_ko = [tgt_vocab[i] for i in seed_out]
    log(f"seed: {SEED_EN}\n  tokens {seed_src_tokens}\n  -> {' '.join(seed_ko)}\n  -> {detokenize_ko(seed_ko)}")
    expected = SEED_KO.split()
    seed_ok = seed_ko == expected
    log(f"  seed translation correct: {seed_ok}")
    ws = cross_attention(m16, seed_src, seed_out)
    emma_pos = [k for k, t in enumerate(seed_ko) if t == "엠마"]
    attn_report = {}
    if len(emma_pos) >= 2:
        k = emma_pos[1]
        for label, q in (("producing step (query = token before it)", k), ("as decoder input", k + 1)):
            log(f"  cross-attention of the second 엠마, last decoder layer, {label}:")
            log("    head  " + "  ".join(f"{t:>6s}" for t in seed_src_tokens))
            rows = []
            for h in range(cfg["nhead"]):
                row = ws[-1][h, q].tolist()
                rows.append(row)
                log(f"    {h:4d}  " + "  ".join(f"{x:6.3f}" for x in row))
            attn_report[label] = rows
        she, emma = seed_src_tokens.index("she"), seed_src_tokens.index("emma")
        best_head = max(range(cfg["nhead"]), key=lambda h: max(attn_report[
            "producing step (query = token before it)"][h][she], attn_report["producing step (query = token before it)"][h][emma]))
        row = attn_report["producing step (query = token before it)"][best_head]
        log(f"  strongest head at the producing step: {best_head} (she {row[she]:.3f}, emma {row[emma]:.3f}); "
            f">= 0.5: {max(row[she], row[emma]) >= 0.5}")

    agree, n_al = alignment_agreement(m16, test, test_e)
    log(f"alignment agreement (last layer argmax == gold, {n_al} aligned test tokens): "
        + ", ".join(f"head {h} {x:.3f}" for h, x in enumerate(agree[:-1])) + f", mean of heads {agree[-1]:.3f}")

    size = export_file(model, a.export)
    summary = {
        "params": n_params, "train_seconds": train_seconds, "dev_exact_match_f16": dev_em,
        "test_exact_match_f16": test_em, "everyday_dev_exact_match_f16": everyday_em, "seed_output": " ".join(seed_ko), "seed_correct": seed_ok,
        "seed_cross_attention_last_layer": attn_report, "alignment_agreement": agree,
        "export_bytes": size, "total_seconds": time.time() - t_start,
    }
    with open(os.path.join(a.data, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, ensure_ascii=False, indent=1)
    assert size <= 3_000_000


if __name__ == "__main__":
    sys.exit(main())
