"""train/eval_reference.py's phrasebook overlap: which reference sentences lie within one word of
a phrasebook sentence (the held-out figure is also reported without them)."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "train"))

import eval_reference  # noqa: E402
import phrasebook  # noqa: E402


class NearPhrasebook(unittest.TestCase):
    def test_one_word_apart_counts_two_words_apart_does_not(self):
        en = "Emma was very proud of her son."
        self.assertIn(en, [r[1] for r in phrasebook.read_rows()])
        cases = [
            ("same", "Emma was very proud of her son.", True),
            ("another name", "Jisu was very proud of her son.", True),
            ("one word more", "Emma was very very proud of her son.", True),
            ("one word fewer", "Emma was proud of her son.", True),
            ("one word other", "Emma was very proud of her daughter.", True),
            ("two words fewer", "Emma was proud of son.", False),
            ("two words other", "Emma is very proud of her daughter.", False),
            ("two words swapped", "Emma very was proud of her son.", False),
        ]
        rows = [{"id": name, "en": text} for name, text, _ in cases]
        near = eval_reference.near_phrasebook(rows)
        for name, text, want in cases:
            self.assertEqual(near[name], want, f"{name}: {text}")


class ReadAlso(unittest.TestCase):
    def test_more_translations_by_id_and_refusals(self):
        import tempfile
        rows = [{"id": "home-01"}, {"id": "home-02"}]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "also.tsv")
            with open(path, "w", encoding="utf-8") as f:
                f.write("home-02\t개가 짖는다. | 개는 짖는다.\n\nhome-01\t나는 간다.\n")
            self.assertEqual(eval_reference.read_also(path, rows),
                             {"home-02": ["개가 짖는다.", "개는 짖는다."], "home-01": ["나는 간다."]})
            for bad in ("home-03\t간다.\n", "home-01\t간다.\nhome-01\t온다.\n", "home-01 간다.\n"):
                with open(path, "w", encoding="utf-8") as f:
                    f.write(bad)
                with self.assertRaises(SystemExit):
                    eval_reference.read_also(path, rows)


if __name__ == "__main__":
    unittest.main()
