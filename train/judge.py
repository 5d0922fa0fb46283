#!/usr/bin/env python3
"""A blind reading of the translations exact match calls wrong (issue 23).

Exact match (`eval_reference.py`) counts an output right only when it equals one of the one to
three translations the reference set lists, so a correct translation worded another way
(개는 for 개가, 주문하자 for 시키자) is a miss. This script measures how many of the misses a
reader would still call correct, without the judge knowing which sentences are the model's:

`make` translates every reference sentence with the engine and keeps the misses (both halves).
Each miss goes to one of two groups (sha256 of "judge:" + id, ascending, alternating). Sheet 1
holds the model's outputs for group A and, as controls, the first accepted translation of the
sentences of group B; sheet 2 the other way round. So no sheet shows one English sentence twice,
every sheet mixes model outputs with reference translations in a seeded random order under
opaque item names, and neither the split nor the source of an item is on it. The key
(item -> sentence id, split, model or control) and the exact-match counts go beside the
sheets, with what the judges are told (`INSTRUCTIONS`: a teacher-like and a strict version). The sheets hold held-out outputs: they are for the judges only; the maintainer reads
the scores, not the sheets (the held-out half is measured, never looked at for decisions).

`make --against OTHER` compares two models instead: every sentence is judged, its output from
one model on one sheet and from OTHER on the other (the controls), none counted exact; with
`--sentences FILE` (plain English, one a line) it runs on sentences that have no reference
translation, such as `tests/data/everyday-en.txt`.

A judge labels every item of one sheet `yes` (a correct translation a native speaker would
accept in the set's register: plain -다 statements, -니? questions, -세요 requests, -자 for
*let's*) or `no` (meaning lost, added or changed, a wrong word sense, ungrammatical Korean, the
wrong register), one line `item<TAB>yes|no<TAB>reason`, in `labels-<sheet>-<judge>.tsv`.

`score` prints, per judge (a judge reads one sheet; the judges of sheet 1 and sheet 2 are taken
in pairs by name) and per split: the controls accepted (how often the judge says yes to a
translation the set's writer wrote: how often the judge turns down a right one), the model's misses accepted,
and the judged figure, (exact matches + misses accepted) / sentences; with two judges per sheet,
also the figure when both must say yes, and how often they agree.

Usage:
    cargo build --release
    python3 train/judge.py make --model train/warm/en-ko-v3-run18.safetensors --out target/judge18
    # judges write target/judge18/labels-1-a.tsv, labels-1-b.tsv, labels-2-a.tsv, labels-2-b.tsv
    python3 train/judge.py score --dir target/judge18
    python3 train/judge.py make --model A --against B --sentences tests/data/everyday-en.txt --out DIR
"""
import argparse
import collections
import glob
import hashlib
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval_reference  # noqa: E402

SALT = "judge:"

# What each judge is given (`make` writes both beside the sheets; {dir} is the folder).
INSTRUCTIONS = """# Judging English -> Korean translations

You judge one sheet of translations: `{dir}/sheetN.tsv` (N is given to you), lines
`item<TAB>English<TAB>Korean`, after a header line. Read only that file. Do not open any other
file in {dir}/, nor tests/data/, train/, www/, MODEL.md, or anything else in the
repository: the judgement must rest on the sheet alone.

For every item decide whether the Korean is a correct translation of the English that a native
Korean speaker would accept. The translations are written in one register, which is correct
and must not be held against them:
- plain statements in 해라체 (-다: 먹었다, 간다, 춥다), questions in -니? (or -(으)냐, -(이)니),
- requests and imperatives in -(으)세요 or -아/어 주세요, *let's* in -자, *don't* in -지 마라/마세요,
- no -요 politeness otherwise.

{rules}Write your labels to `{dir}/labels-N-J.tsv` (N the sheet, J the judge letter you are
given): one line per item, `item<TAB>yes|no<TAB>short reason in English` (the reason may be
empty for yes), every item of the sheet exactly once, no header. Judge every item on its own;
do not try to guess where a translation came from.
"""
RULES = {
    "teacher": """Say **yes** when the Korean says what the English says, in grammatical, natural-enough Korean:
a dropped or kept subject pronoun (나는), 너의 / 네, 우리 엄마 / 엄마, a different but right
synonym, another acceptable word order, numbers in digits or in words, a comma or spacing
difference, 은/는 where 이/가 would also do, are all fine.
Say **no** when meaning is lost, added or changed (a word or phrase of the English missing, a
wrong tense or person, a wrong word sense: 무료 for a *free* seat meaning unoccupied), when the
Korean is ungrammatical or a form Korean does not use, or when a native speaker would find it
clearly wrong. Be as strict as a careful Korean teacher marking a learner's translation: not
pedantic about style, strict about meaning and grammar.

""",
    "strict": """Say **yes** only when the Korean is a translation you would hand in yourself: it says exactly
what the English says (nothing missing, nothing added, the same tense, person, number where
Korean marks it, and every word in the right sense) and reads as natural Korean a native
speaker would write, with the right particles. Variation that a native speaker would write just
as readily is fine (a dropped subject pronoun, another natural word order, digits or number
words, a synonym equally natural in this context).
Say **no** for anything a native speaker would change: a missing or added word or phrase, a
wrong or weaker word sense, an awkward or unidiomatic phrasing
even when understandable, a particle that sounds off, an ungrammatical form. When in doubt,
say no.

""",
}


def build(rows, outs, seed=23, controls=None):
    """-> (sheets, key, summary) for reference rows and the engine's outputs in the same order.

    The control of a miss is the row's first accepted translation; with `controls` (another
    model's outputs, in the same order) every row is judged, none counted exact, and its control
    is the other model's output.
    sheets: {1: [(item, en, ko)], 2: [...]}; key: {item: (id, split, 'model' | 'control')};
    summary: {'n': {split: count}, 'exact': {split: count}}."""
    n = collections.Counter(r["split"] for r in rows)
    exact = collections.Counter()
    misses = []
    for k, (r, o) in enumerate(zip(rows, outs)):
        if controls is None and eval_reference.matches(o, r["refs"]):
            exact[r["split"]] += 1
        else:
            misses.append((r, o, r["refs"][0] if controls is None else controls[k]))
    misses.sort(key=lambda m: hashlib.sha256((SALT + m[0]["id"]).encode()).hexdigest())
    entries = {1: [], 2: []}
    for i, (r, o, control) in enumerate(misses):
        own, other = (1, 2) if i % 2 == 0 else (2, 1)
        entries[own].append((r["id"], r["split"], "model", r["en"], o))
        entries[other].append((r["id"], r["split"], "control", r["en"], control))
    rng = random.Random(seed)
    sheets, key = {}, {}
    for s in (1, 2):
        rng.shuffle(entries[s])
        sheets[s] = []
        for k, (rid, split, kind, en, ko) in enumerate(entries[s], 1):
            item = f"s{s}-{k:03d}"
            sheets[s].append((item, en, ko))
            key[item] = (rid, split, kind)
    return sheets, key, {"n": dict(n), "exact": {s: exact[s] for s in n}}


def read_labels(path, items):
    """{item: True | False} from a judge's file; every item of the sheet exactly once."""
    labels = {}
    for k, cols in eval_reference.tab_lines(path):
        item, verdict = cols[0].strip(), (cols[1].strip().lower() if len(cols) > 1 else "")
        if item not in items:
            raise SystemExit(f"{path}:{k}: unknown item {item!r}")
        if verdict not in ("yes", "no"):
            raise SystemExit(f"{path}:{k}: verdict {verdict!r}, expected yes or no")
        if item in labels:
            raise SystemExit(f"{path}:{k}: {item} labelled twice")
        labels[item] = verdict == "yes"
    missing = sorted(set(items) - set(labels))
    if missing:
        raise SystemExit(f"{path}: {len(missing)} items not labelled, first {missing[0]}")
    return labels


def tally(key, labels, summary):
    """-> {split: {'controls': (yes, n), 'misses': (yes, n), 'judged': (right, n)}} for labels
    covering both sheets (one judge of sheet 1 with one of sheet 2, or their agreement)."""
    out = {}
    for split, n in summary["n"].items():
        c = [labels[i] for i, (_, s, kind) in key.items() if s == split and kind == "control"]
        m = [labels[i] for i, (_, s, kind) in key.items() if s == split and kind == "model"]
        out[split] = {"controls": (sum(c), len(c)), "misses": (sum(m), len(m)),
                      "judged": (summary["exact"][split] + sum(m), n)}
    return out


def pct(a, b):
    return f"{100.0 * a / b:.2f}% ({a}/{b})" if b else "n/a"


def make(args):
    if args.sentences:
        if not args.against:
            raise SystemExit("--sentences needs --against: plain sentences have no reference translations")
        with open(args.sentences, encoding="utf-8") as f:
            lines = [l.strip() for l in f if l.strip()]
        rows = [{"id": f"line-{k:03d}", "split": "all", "en": en, "refs": []} for k, en in enumerate(lines, 1)]
    else:
        rows = eval_reference.load(args.set)
    outs = eval_reference.translate([r["en"] for r in rows], args.model, args.cli)
    controls = eval_reference.translate([r["en"] for r in rows], args.against, args.cli) if args.against else None
    sheets, key, summary = build(rows, outs, args.seed, controls)
    summary["against"] = args.against  # None: the controls are the set's first translations
    os.makedirs(args.out, exist_ok=True)
    for s, items in sheets.items():
        with open(os.path.join(args.out, f"sheet{s}.tsv"), "w", encoding="utf-8") as f:
            f.write("item\ten\tko\n")
            for item, en, ko in items:
                f.write(f"{item}\t{en}\t{ko}\n")
    with open(os.path.join(args.out, "key.tsv"), "w", encoding="utf-8") as f:
        f.write("item\tid\tsplit\tkind\n")
        for item, (rid, split, kind) in key.items():
            f.write(f"{item}\t{rid}\t{split}\t{kind}\n")
    for name, rules in RULES.items():
        with open(os.path.join(args.out, f"INSTRUCTIONS-{name}.md"), "w", encoding="utf-8") as f:
            f.write(INSTRUCTIONS.replace("{rules}", rules).replace("{dir}", args.out))
    summary["model"] = args.model
    with open(os.path.join(args.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    exact = ", ".join(f"{s} {pct(summary['exact'][s], n)}" for s, n in summary["n"].items())
    print(f"sheets of {len(sheets[1])} and {len(sheets[2])} items in {args.out} "
          + (f"(controls: the outputs of {args.against})" if args.against else f"(exact match: {exact})"))


def score(args):
    with open(os.path.join(args.dir, "key.tsv"), encoding="utf-8") as f:
        key = {c[0]: (c[1], c[2], c[3]) for c in (l.rstrip("\n").split("\t") for l in f.readlines()[1:] if l.strip())}
    with open(os.path.join(args.dir, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    judges = collections.defaultdict(dict)  # judge name -> {sheet: labels}
    for path in sorted(glob.glob(os.path.join(args.dir, "labels-*-*.tsv"))):
        m = re.fullmatch(r"labels-([12])-(\w+)\.tsv", os.path.basename(path))
        if not m:
            raise SystemExit(f"{path}: expected labels-<1|2>-<judge>.tsv")
        sheet = m[1]
        items = [i for i in key if i.startswith(f"s{sheet}-")]
        judges[m[2]][sheet] = read_labels(path, items)
    complete = {j: {**s["1"], **s["2"]} for j, s in judges.items()
                if set(s) == {"1", "2"} and (not args.judges or j in args.judges.split(","))}
    if not complete:
        raise SystemExit(f"{args.dir}: no judge name has labels for both sheets")
    print(f"model: {summary['model']}; controls: " + (f"the outputs of {summary['against']}" if summary["against"]
                                                       else "the first reference translation"))
    for name, labels in sorted(complete.items()):
        print(f"judges '{name}':")
        report(key, labels, summary)
    if len(complete) >= 2:
        names = sorted(complete)
        both = {i: all(complete[j][i] for j in names) for i in key}
        agree = sum(len({complete[j][i] for j in names}) == 1 for i in key)
        print(f"all of {', '.join(names)} must say yes (agreement on {pct(agree, len(key))} of items):")
        report(key, both, summary)


def report(key, labels, summary):
    """Print `tally` per split: for a comparison (`make --against`) both models' judged figures."""
    for split, t in tally(key, labels, summary).items():
        if summary["against"]:
            print(f"  {split:8s} model judged right {pct(*t['judged'])}; the other model (controls) {pct(*t['controls'])}")
        else:
            print(f"  {split:8s} controls accepted {pct(*t['controls'])}; misses accepted {pct(*t['misses'])}; "
                  f"judged right {pct(*t['judged'])} (exact {pct(summary['exact'][split], summary['n'][split])})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="translate the reference set and write the two blind sheets")
    mk.add_argument("--set", default=eval_reference.DEFAULT_SET)
    mk.add_argument("--model", default=eval_reference.DEFAULT_MODEL)
    mk.add_argument("--cli", default=eval_reference.DEFAULT_CLI)
    mk.add_argument("--against", metavar="MODEL",
                    help="controls are this model's outputs (every sentence judged, none exact) instead of references")
    mk.add_argument("--sentences", metavar="FILE",
                    help="plain English sentences, one a line, instead of the reference set (needs --against)")
    mk.add_argument("--out", required=True)
    mk.add_argument("--seed", type=int, default=23)
    sc = sub.add_parser("score", help="score the judges' labels against the key")
    sc.add_argument("--dir", required=True)
    sc.add_argument("--judges", metavar="A,B", help="only these judge names (default: every judge with both sheets)")
    args = ap.parse_args()
    make(args) if args.cmd == "make" else score(args)


if __name__ == "__main__":
    main()
