"""train/judge.py: the blind sheets keep a sentence's output and its reference apart, and the
scores count what the labels say."""
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "train"))

import judge  # noqa: E402


def rows_and_outputs():
    """Six sentences: two exact matches (one per split) and four misses."""
    rows, outs = [], []
    for k, (split, right) in enumerate([("dev", True), ("dev", False), ("dev", False),
                                        ("heldout", True), ("heldout", False), ("heldout", False)]):
        rows.append({"id": f"t-{k:02d}", "split": split, "en": f"Sentence {k}.",
                     "refs": [f"문장 {k}이다.", f"문장{k}이다."]})
        outs.append(f"문장 {k}이다 ." if right else f"틀린 문장 {k}.")
    return rows, outs


class Build(unittest.TestCase):
    def test_each_miss_is_split_between_the_two_sheets(self):
        rows, outs = rows_and_outputs()
        sheets, key, summary = judge.build(rows, outs)
        self.assertEqual(summary, {"n": {"dev": 3, "heldout": 3}, "exact": {"dev": 1, "heldout": 1}})
        by_sheet = {s: {en: ko for _, en, ko in items} for s, items in sheets.items()}
        misses = [(r, o) for r, o in zip(rows, outs) if o.startswith("틀린")]
        for r, o in misses:
            # on one sheet the model's output, on the other the first reference; never both on one
            model_side = [s for s in (1, 2) if by_sheet[s].get(r["en"]) == o]
            ref_side = [s for s in (1, 2) if by_sheet[s].get(r["en"]) == r["refs"][0]]
            self.assertEqual(len(model_side), 1, r["id"])
            self.assertEqual(len(ref_side), 1, r["id"])
            self.assertNotEqual(model_side, ref_side, r["id"])
        # exact matches are not judged
        for k in (0, 3):
            self.assertNotIn(f"Sentence {k}.", by_sheet[1])
            self.assertNotIn(f"Sentence {k}.", by_sheet[2])
        # the key names each item's sentence, split and source; the sheet names none of them
        self.assertEqual(len(key), 2 * len(misses))
        for s, items in sheets.items():
            for item, en, ko in items:
                rid, split, kind = key[item]
                row = next(r for r in rows if r["id"] == rid)
                self.assertEqual(en, row["en"])
                self.assertEqual(ko, row["refs"][0] if kind == "control" else outs[rows.index(row)])
                self.assertTrue(item.startswith(f"s{s}-"))
        self.assertEqual(judge.build(rows, outs)[0], sheets, "seeded: the same sheets again")


    def test_against_another_model_every_sentence_is_judged(self):
        rows, outs = rows_and_outputs()
        other = [f"다른 {k}." for k in range(len(rows))]
        sheets, key, summary = judge.build(rows, outs, controls=other)
        self.assertEqual(summary["exact"], {"dev": 0, "heldout": 0})
        self.assertEqual(len(key), 2 * len(rows))
        for k, r in enumerate(rows):
            where = {kind: s for s, items in sheets.items() for item, en, ko in items
                     if en == r["en"] for kind in [key[item][2]]}
            texts = {key[item][2]: ko for items in sheets.values() for item, en, ko in items if en == r["en"]}
            self.assertEqual(texts, {"model": outs[k], "control": other[k]})
            self.assertNotEqual(where["model"], where["control"])

class Score(unittest.TestCase):
    def test_tally_counts_the_labels(self):
        rows, outs = rows_and_outputs()
        _, key, summary = judge.build(rows, outs)
        # accept every control, and the model's misses of the dev split only
        labels = {i: kind == "control" or split == "dev" for i, (_, split, kind) in key.items()}
        t = judge.tally(key, labels, summary)
        self.assertEqual(t["dev"], {"controls": (2, 2), "misses": (2, 2), "judged": (3, 3)})
        self.assertEqual(t["heldout"], {"controls": (2, 2), "misses": (0, 2), "judged": (1, 3)})

    def test_read_labels_refuses_a_missing_or_unclear_verdict(self):
        items = ["s1-001", "s1-002"]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "labels-1-a.tsv")
            for text in ("s1-001\tyes\n", "s1-001\tyes\ns1-002\tmaybe\n", "s1-001\tyes\ns1-001\tno\ns1-002\tno\n"):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                with self.assertRaises(SystemExit):
                    judge.read_labels(path, items)
            with open(path, "w", encoding="utf-8") as f:
                f.write("s1-002\tNo\tword missing\ns1-001\tyes\t\n")
            self.assertEqual(judge.read_labels(path, items), {"s1-001": True, "s1-002": False})


if __name__ == "__main__":
    unittest.main()
