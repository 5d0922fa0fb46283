"""train/korean.py: predicates conjugated as the corpus needs them. Standard library only."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "train"))

import korean  # noqa: E402
from korean import Predicate  # noqa: E402


class Descriptive(unittest.TestCase):
    def tearDown(self):
        korean.NATURAL = False

    def test_need_is_descriptive_in_version_3_only(self):
        need = Predicate("필요하다")
        korean.NATURAL = False  # version 2's files stay as they were
        self.assertEqual(need.present(), ["필요하", "ㄴ다"])
        korean.NATURAL = True  # 나는 물이 필요하다; 지수가 필요한 책
        self.assertEqual(need.present(), ["필요하", "다"])
        self.assertEqual(need.attributive_present(), ["필요하", "ㄴ"])
        # an action verb is not touched
        self.assertEqual(Predicate("가다").present(), ["가", "ㄴ다"])
        self.assertEqual(Predicate("먹다").attributive_present(), ["먹", "는"])


if __name__ == "__main__":
    unittest.main()
