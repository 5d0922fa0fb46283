"""train/phrasebook.py: the hand-written sentences reach the training file as the tokens the
generated corpus uses, spelling exactly the text that was written, and none of them is a sentence
of the everyday reference set. Standard library only: `python3 -m unittest discover -s tests/python`."""
import os
import sys
import unittest
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "train"))

import phrasebook  # noqa: E402
from korean import detokenize  # noqa: E402

TEST_TSV = os.path.join(ROOT, "tests", "data", "en-ko-test.tsv")


def generated_rows():
    with open(TEST_TSV, encoding="utf-8") as f:
        return [line.split("\t")[1].split(" ") for line in f.read().splitlines()[1:]]


def spell(tokens):
    return detokenize(tokens, phrasebook.GLUE_PREFIX, phrasebook.PUNCT)


class Segmenter(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = generated_rows()
        cls.seg = phrasebook.Segmenter(Counter(t for r in cls.rows for t in r))

    def test_the_generators_sentences_come_back_as_its_tokens(self):
        # Written out as text and segmented again, the generator's own sentences give its tokens
        # (a few homographs aside: 쓸 is 쓰 +ㄹ or the token 쓸), and always spell the same text.
        same = 0
        for toks in self.rows:
            out = self.seg.sentence(spell(toks))
            self.assertEqual(spell(out), spell(toks))
            same += out == toks
        self.assertGreaterEqual(same / len(self.rows), 0.98, f"{same} of {len(self.rows)}")

    def test_composed_finals_and_new_stems(self):
        inv = Counter({"먹어": 5, "+ㅆ": 9, "+다": 9, "+니": 9, "가": 4, "+ㄴ다": 9, "나": 3, "+는": 9, "+을": 9, "+이": 9})
        seg = phrasebook.Segmenter(inv)
        self.assertEqual(seg.word("먹었다"), ["먹어", "+ㅆ", "+다"])
        self.assertEqual(seg.word("간다"), ["가", "+ㄴ다"])
        # a stem the inventory lacks keeps the known endings apart
        self.assertEqual(seg.word("태어났니"), ["태어나", "+ㅆ", "+니"])
        self.assertEqual(seg.word("아이들을"), ["아이들", "+을"])
        self.assertEqual(seg.sentence("나는 먹었다."), ["나", "+는", "먹어", "+ㅆ", "+다", "."])


class Names(unittest.TestCase):
    def test_a_swapped_name_takes_the_particle_its_final_consonant_needs(self):
        names = {"Jisu": ("지수", "f"), "Mina": ("미나", "f"), "Minho": ("민호", "m"), "Jihoon": ("지훈", "m")}
        import random
        en, ko = phrasebook._swap_names("Jihoon ate with Mina.", ["지훈", "+은", "미나", "+와", "먹어", "+ㅆ", "+다", "."], names, random.Random(1))
        self.assertEqual(en, "Minho ate with Jisu.")
        self.assertEqual(ko, ["민호", "+는", "지수", "+와", "먹어", "+ㅆ", "+다", "."])


class Units(unittest.TestCase):
    # the words train.py may make <unk> on both sides (with_unknowns): without them no phrasebook
    # line teaches the model to write <unk> where a word it does not know belongs
    @classmethod
    def setUpClass(cls):
        cls.words = phrasebook._unit_words(phrasebook._names())

    def units(self, en, ko):
        from corpus import tokenize_en
        return phrasebook.units(tokenize_en(en), ko.split(" "), self.words)

    def test_nouns_plurals_and_names_are_units(self):
        self.assertEqual(self.units("Tom gave Emma three books.", "톰 +은 엠마 +에게 책 세 권 +을 주어 +ㅆ +다 ."),
                         "0:0 2:2 4:4")

    def test_a_name_korean_repeats_is_one_unit_with_every_position(self):
        self.assertEqual(self.units("Jisu was late because she missed the bus.",
                                    "지수 +는 버스 +를 놓쳐 +ㅆ +기 때문에 지수 +는 늦어 +ㅆ +다 ."), "0:0,8 7:2")

    def test_a_noun_twice_on_either_side_is_not_a_unit(self):
        self.assertEqual(self.units("The dog saw another dog.", "개 +는 다른 개 +를 봐 +ㅆ +다 ."), "")
        self.assertEqual(self.units("My bag is in the car.", "가방 +은 차 +에 있 +다 . 차 !"), "1:0")


class Files(unittest.TestCase):
    def test_every_line_is_a_pair_and_none_is_a_reference_sentence(self):
        rows = phrasebook.read_rows()
        self.assertGreater(len(rows), 1000)
        held = phrasebook.held_out_keys()
        self.assertGreater(len(held), 600)  # both halves of the reference set and everyday-en.txt
        inv = Counter(t for r in generated_rows() for t in r)
        lines = phrasebook.lines(inv, copies=1, log=lambda *_: None)
        kept = {phrasebook.key(l.split("\t")[0]) for l in lines}
        self.assertFalse(kept & held)
        self.assertGreater(len(lines), 0.9 * len(rows))
        for l in lines:
            en, ko, align, units = l.rstrip("\n").split("\t")
            self.assertEqual(len(ko.split(" ")), len(align.split(" ")))

    def test_each_english_sentence_once(self):
        # one sentence, one translation: a sentence in two files could teach two Korean versions
        count = Counter(phrasebook.key(en) for _, en, _ in phrasebook.read_rows())
        self.assertEqual([k for k, n in count.items() if n > 1], [])

    def test_no_copy_with_swapped_names_spells_a_held_out_sentence(self):
        # "Why did Tom leave early?" with Tom swapped for each male name in turn would, once,
        # spell the held-out "Why did Minho leave early?": that copy is left out, the others kept.
        rows = [("test", "Why did Tom leave early?", "톰은 왜 일찍 떠났니?")]
        inv = Counter(t for r in generated_rows() for t in r)
        held = {phrasebook.key("Why did Minho leave early?")}
        lines = phrasebook.lines(inv, copies=200, rows=rows, exclude=held, log=lambda *_: None)
        kept = {phrasebook.key(l.split("\t")[0]) for l in lines}
        self.assertNotIn(phrasebook.key("Why did Minho leave early?"), kept)
        self.assertGreater(len(kept), 5)  # other names still come through
        self.assertLess(len(lines), 200)  # and the copies naming Minho were dropped


if __name__ == "__main__":
    unittest.main()
