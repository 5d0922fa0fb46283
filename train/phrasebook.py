#!/usr/bin/env python3
"""The phrasebook: hand-written everyday sentence pairs added to the generated training set.

The generator (`corpus.py`) composes sentences from a lexicon and a grammar; however far the
grammar goes, its sentences read like a grammar's ("Everybody applies for a safe truth."). The
phrasebook, `train/phrasebook/*.tsv` (one file per topic, lines `English<TAB>Korean`), holds
sentences of the kind people type about their day, each with one translation in the model's
style (MODEL.md, "The phrasebook"). They were written without looking at the everyday reference
set; any whose English equals a reference sentence, or a sentence of the other held-out files, is
dropped here all the same, so that no figure measured on those files counts a sentence the model
was taught.

Korean is written by hand as text; the model's targets are morpheme-like tokens (`korean.py`:
a stem, then glue endings, a leading lone consonant composed onto the syllable before it). So
each word is *segmented* into the tokens the generated corpus already uses (`Segmenter`: the
fewest tokens whose composition spells the word, more frequent tokens first; a stem the corpus
lacks becomes a token of its own, endings still split off where known). Each sentence then comes
`copies` times, each copy after the first with its names replaced by others of the same gender
from `lexicon/names.tsv` (the particle after a name follows its final consonant), so that the
model learns the sentence, not the name.

Usage (normally through `corpus.py --phrasebook COPIES`, which calls `append`):
    python3 train/phrasebook.py --append target/run/train.tsv [--copies 4]
    python3 train/phrasebook.py --show 20          # segmentations, with the inventory of train/out
"""
import argparse
import glob
import heapq
import math
import os
import random
import re
import sys
import unicodedata
from collections import Counter

from korean import JONG, detokenize, has_batchim, is_syllable, join_syllable, particle, split_syllable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GLUE_PREFIX = "+"
PUNCT = (",", ".", "?", "!")
# Files whose sentences the model must not be taught (their English, compared by `key`).
HELD_OUT_FILES = ("tests/data/everyday-en-ko.tsv", "tests/data/everyday-en.txt")
_JAMO_OF_JONG = {v: k for k, v in JONG.items()}
# the particles whose form follows the noun's final consonant (`korean.particle`)
_PARTICLES = {"topic": ("은", "는"), "subj": ("이", "가"), "obj": ("을", "를"), "with": ("과", "와"), "by": ("으로", "로")}


def key(en):
    """A sentence's identity: its English tokens without , . ? ! (as `corpus.key`)."""
    from corpus import tokenize_en
    return " ".join(t for t in tokenize_en(en) if t not in PUNCT)


def read_rows(folder=os.path.join(HERE, "phrasebook")):
    """-> [(topic, English, Korean text)] from every `*.tsv` of the folder, sorted by file."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.tsv"))):
        topic = os.path.splitext(os.path.basename(path))[0]
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip():
                    continue
                cols = line.split("\t")
                if len(cols) != 2 or not cols[0].strip() or not cols[1].strip():
                    raise ValueError(f"{path}:{n}: expected 'English<TAB>Korean'")
                rows.append((topic, cols[0].strip(), unicodedata.normalize("NFC", cols[1].strip())))
    return rows


def held_out_keys(root=ROOT):
    """Keys of every sentence the phrasebook must not teach (both halves of the reference set)."""
    keys = set()
    for rel in HELD_OUT_FILES:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if rel.endswith(".tsv"):
            header = lines[0].split("\t")
            col = header.index("en")
            keys |= {key(l.split("\t")[col]) for l in lines[1:] if l.strip()}
        else:
            keys |= {key(l) for l in lines if l.strip() and not l.startswith("#")}
    return keys


class Segmenter:
    """Korean words -> the corpus's tokens. `inventory`: token -> count in the generated corpus."""

    # The cost of a stem the corpus lacks: more than any known token, and growing with its length,
    # so that known endings are split off it (태어났니 -> 태어나 +ㅆ +니, not one new token;
    # the syllable that takes a composed final counts as one character less).
    NEW_STEM, NEW_PER_CHAR = 8.0, 3.0

    def __init__(self, inventory):
        self.count = inventory
        self.stems, self.glue = {}, {}
        for t, c in inventory.items():
            if t in PUNCT or t.startswith("<"):
                continue
            if t.startswith(GLUE_PREFIX) and len(t) > 1:
                self.glue.setdefault(t[1], []).append(t)
            elif not t.startswith(GLUE_PREFIX):
                self.stems.setdefault(t[0], []).append(t)
        self.cache = {}

    @staticmethod
    def _firsts(c):
        """The first syllables a token may start with to spell a word starting with `c`: `c`, and
        `c` without its final consonant (가 +ㄴ다 spells 간다)."""
        if is_syllable(c) and split_syllable(c)[2]:
            cho, jung, _ = split_syllable(c)
            return (c, join_syllable(cho, jung))
        return (c,)

    def _cost(self, token):
        return 1.0 + 1.0 / (1.0 + math.log1p(self.count.get(token, 0)))

    @staticmethod
    def _match(word, i, piece):
        """Where `piece` spelled from word[i] leads: [(next index, jamo the next token starts with)]."""
        out = []
        end = i + len(piece)
        if end > len(word) or not piece:
            return out
        if word[i:end] == piece:
            out.append((end, None))
        last, got = piece[-1], word[end - 1]
        if word[i:end - 1] == piece[:-1] and is_syllable(last) and is_syllable(got) and not has_batchim(last):
            cho, jung, jong = split_syllable(got)
            if jong and join_syllable(cho, jung) == last:
                out.append((end, _JAMO_OF_JONG[jong]))
        return out

    def word(self, word):
        """One space-free Korean word -> tokens (the first a stem, the rest glue)."""
        if word in self.cache:
            return self.cache[word]
        # Dijkstra over (index, pending jamo, started): the cheapest token sequence spelling it.
        start = (0, None)
        best = {start: 0.0}
        prev = {}
        heap = [(0.0, 0, start)]
        tick = 0
        while heap:
            cost, _, state = heapq.heappop(heap)
            if cost > best.get(state, math.inf):
                continue
            i, pend = state
            if i == len(word) and pend is None:
                break
            moves = []
            if i == 0:
                for t in (t for c in self._firsts(word[0]) for t in self.stems.get(c, ())):
                    moves += [(t, nxt, self._cost(t)) for nxt in self._match(word, 0, t)]
                for k in range(1, len(word) + 1):  # a stem the corpus lacks
                    t = word[:k]
                    moves += [(t, nxt, self.NEW_STEM + k * self.NEW_PER_CHAR) for nxt in self._match(word, 0, t) if t not in self.count]
                    if is_syllable(word[k - 1]) and split_syllable(word[k - 1])[2]:
                        cho, jung, jong = split_syllable(word[k - 1])
                        bare = word[:k - 1] + join_syllable(cho, jung)
                        if bare not in self.count:
                            moves.append((bare, (k, _JAMO_OF_JONG[jong]), self.NEW_STEM + (k - 1) * self.NEW_PER_CHAR))
            elif pend is not None:
                for g in self.glue.get(pend, ()):
                    rest = g[2:]
                    if not rest:
                        moves.append((g, (i, None), self._cost(g)))
                    else:
                        moves += [(g, nxt, self._cost(g)) for nxt in self._match(word, i, rest)]
            else:
                for g in (g for c in self._firsts(word[i]) for g in self.glue.get(c, ())):
                    moves += [(g, nxt, self._cost(g)) for nxt in self._match(word, i, g[1:])]
            for tok, nxt, c in moves:
                if cost + c < best.get(nxt, math.inf):
                    best[nxt] = cost + c
                    prev[nxt] = (state, tok)
                    tick += 1
                    heapq.heappush(heap, (cost + c, tick, nxt))
        end = (len(word), None)
        if end not in prev:
            out = [word]
        else:
            out, s = [], end
            while s != start:
                s, tok = prev[s]
                out.append(tok)
            out.reverse()
        self.cache[word] = out
        return out

    def sentence(self, text):
        """Korean text -> tokens; punctuation at a word's end becomes its own token."""
        out = []
        for w in text.split():
            tail = []
            while w and w[-1] in PUNCT:
                tail.insert(0, w[-1])
                w = w[:-1]
            if w:
                out += self.word(w)
            out += tail
        return out


def _names(root=HERE):
    """English name -> (Korean, gender), from the lexicon."""
    out = {}
    with open(os.path.join(root, "lexicon", "names.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            en, ko, g = line.rstrip("\n").split("\t")[:3]
            out[en] = (ko, g)
    return out


def _swap_names(en, ko, names, rng):
    """Replace every lexicon name of the sentence by another of the same gender, on both sides."""
    words = en.replace("'s", " 's").split()
    found = [w.strip(",.?!") for w in words if w.strip(",.?!") in names]
    if not found:
        return en, ko
    by_gender = {}
    for n, (_, g) in sorted(names.items()):
        by_gender.setdefault(g, []).append(n)
    sub = {}
    for n in dict.fromkeys(found):
        choices = [m for m in by_gender[names[n][1]] if m != n and m not in sub.values() and m not in found]
        sub[n] = rng.choice(choices)
    for n, m in sub.items():
        en = re.sub(rf"\b{n}\b", m, en)
    ko = list(ko)
    for i, t in enumerate(ko):
        for n, m in sub.items():
            if t == names[n][0]:
                ko[i] = names[m][0]
                if i + 1 < len(ko):
                    for kind, forms in _PARTICLES.items():
                        if ko[i + 1] in (GLUE_PREFIX + f for f in forms):
                            ko[i + 1] = GLUE_PREFIX + particle(kind, ko[i])
    return en, ko


def _unit_words(names):
    """English word (lowercase) -> (Korean token, is a name): the lexicon's nouns (singular and
    plural), places and names, the words `train.py` may make <unk> on both sides."""
    from corpus import _tsv
    out = {}
    for r in _tsv("nouns-*.tsv"):
        for en in (r["en"], r["plural"]):
            if en != "-" and " " not in en and " " not in r["ko"]:
                out.setdefault(en.lower(), (r["ko"], False))
    for r in _tsv("places.tsv"):
        if " " not in r["en"] and " " not in r["ko"]:
            out.setdefault(r["en"].lower(), (r["ko"], False))
    for en, (ko, _) in names.items():
        out[en.lower()] = (ko, True)
    return out


def units(en_tokens, ko, words):
    """The `units` column of a pair: `i:j,...` for each English token i that the lexicon knows
    (`_unit_words`), said once in the English, whose Korean token stands once in `ko` (a name: at
    least once, since Korean repeats a name where English says *she*). Without it a phrasebook
    line never teaches the model to write <unk> for a word it does not know (`train.with_unknowns`)."""
    out = []
    for i, t in enumerate(en_tokens):
        if t not in words or en_tokens.count(t) != 1:
            continue
        k, is_name = words[t]
        js = [j for j, tok in enumerate(ko) if tok == k]
        if len(js) == 1 or (is_name and js):
            out.append(f"{i}:{','.join(map(str, js))}")
    return " ".join(out)


def lines(inventory, copies=4, seed=1, rows=None, exclude=None, log=print):
    """The phrasebook as training lines (`en<TAB>ko tokens<TAB>align<TAB>units`, align -1)."""
    from corpus import MAX_EN, tokenize_en
    rows = read_rows() if rows is None else rows
    exclude = held_out_keys() if exclude is None else exclude
    seg = Segmenter(inventory)
    names = _names()
    words = _unit_words(names)
    rng = random.Random(seed * 7919 + 41)
    out, dropped, unspelt, swapped_out, new = [], 0, 0, 0, Counter()
    for _, en, ko_text in rows:
        if key(en) in exclude or len(tokenize_en(en)) > MAX_EN:
            dropped += 1
            continue
        ko = seg.sentence(ko_text)
        if detokenize(ko, GLUE_PREFIX, PUNCT) != ko_text:  # odd spacing or punctuation: left out
            unspelt += 1
            continue
        new.update(t for t in ko if t not in inventory)
        for c in range(copies):
            e, k = (en, ko) if c == 0 else _swap_names(en, ko, names, rng)
            if key(e) in exclude:  # a swapped name can spell a held-out sentence: that copy is left out
                swapped_out += 1
                continue
            out.append(f"{e}\t{' '.join(k)}\t{' '.join(['-1'] * len(k))}\t{units(tokenize_en(e), k, words)}\n")
    log(f"phrasebook: {len(rows) - dropped - unspelt} of {len(rows)} sentences ({dropped} held out or too long, "
        f"{unspelt} whose tokens do not spell the text), "
        f"x{copies}: {len(out)} training lines ({swapped_out} copies whose swapped names spelt a held-out sentence left out); "
        f"{len(new)} tokens the corpus lacks")
    return out


def inventory_of(path):
    """Token counts of a training file's Korean column."""
    count = Counter()
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            count.update(line.split("\t")[1].split(" "))
    return count


def append(path, copies=4, seed=1, log=print):
    """Append the phrasebook to the training file `path`, segmented with that file's tokens."""
    extra = lines(inventory_of(path), copies, seed, log=log)
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(extra)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--append", metavar="TRAIN_TSV", help="append the phrasebook to this training file")
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=0, help="print N segmentations (inventory: --inventory)")
    ap.add_argument("--inventory", default=os.path.join(HERE, "out", "train.tsv"))
    a = ap.parse_args(argv)
    if a.show:
        seg = Segmenter(inventory_of(a.inventory))
        rows = read_rows()
        for _, en, ko in random.Random(a.seed).sample(rows, min(a.show, len(rows))):
            print(en, "|", ko, "|", " ".join(seg.sentence(ko)))
        return 0
    if not a.append:
        ap.error("give --append TRAIN_TSV or --show N")
    append(a.append, a.copies, a.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
