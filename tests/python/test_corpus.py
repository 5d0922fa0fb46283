"""train/corpus.py: version 3's Korean follows the English's word order where Korean allows it.
Standard library only: `python3 -m unittest discover -s tests/python`."""
import os
import random
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "train"))

import corpus  # noqa: E402
import korean  # noqa: E402


class TimePhrase(unittest.TestCase):
    def setUp(self):
        corpus.NATURAL = korean.NATURAL = True  # what build(v3 > 0) sets

    def tearDown(self):
        corpus.NATURAL = korean.NATURAL = False

    def test_a_question_puts_its_time_phrase_after_the_subject(self):
        # "Did Kate not go up to the campus yesterday?": the English puts every time phrase last
        # in a question, so the Korean must not start with it (케이트는 어제 ..., not 어제 케이트는 ...);
        # otherwise the same English would be taught two word orders at random.
        gen = corpus.Gen(random.Random(5))
        timed = 0
        for _ in range(600):
            gen.combos, gen.units = set(), []
            c = gen.clause()
            if c.kind == "there" or c.tense in ("must", "should", "want", "could", "pastprog"):
                c.tense = "pres"
            if not c.adjuncts_pre or c.subj is None or not c.subj.ko:  # weather: no Korean subject
                continue
            timed += 1
            en = corpus.english(c, gen.rng, question=True)
            ko = corpus.korean(c, "question", topic=True)
            self.assertIn(ko[0].src, c.subj.en, (corpus.surface(en), [k.text for k in ko]))
        self.assertGreater(timed, 50)


if __name__ == "__main__":
    unittest.main()
