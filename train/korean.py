"""Korean morphology for the corpus generator: particles by batchim, predicate stems and endings.

The target side of the demo translator is written as morpheme-like tokens: a stem allomorph
(먹, 먹어, 들, 도우) followed by endings that are "glue" tokens (printed without a space). An
ending that starts with a lone consonant (ㄴ다, ㄹ, ㅆ) is written onto the syllable before it
(`compose`, the engine's `compose_jamo` setting):

    가 ㄴ다 -> 간다      먹어 ㅆ 다 -> 먹었다      크 ㄴ -> 큰      하 ㄹ -> 할

so the vocabulary holds a few stems per verb and a few dozen endings, not every conjugated form.

A predicate is given by its dictionary form (먹다) and its irregular class when the spelling does
not tell (ㄷ 듣다, ㅂ 돕다, ㅅ 낫다, ㅎ 빨갛다, 르 부르다). Its allomorphs:

* `a`  before consonant endings (고, 지, 지만, 기, 다 of adjectives, 는다): the stem (먹, 가, 듣, 살)
* `n`  before ㄴ/니/세요 (an ㄹ-final stem drops its ㄹ: 살 -> 사, so 산다, 사니, 사는)
* `b`  before endings with a linking 으 (으면, 은, 을, 으세요), with a flag saying whether the
       으 form is taken: 먹 (+으면), 가 (+면), 들 (듣다 +으면), 도우 (돕다 +면), 나 (낫다 +으면)
* `c`  the infinitive 아/어 form (먹어, 가, 봐, 해, 들어, 도와, 불러, 빨개), which takes ㅆ for the past
"""

HANGUL_BASE, HANGUL_LAST = 0xAC00, 0xD7A3

# Compatibility jamo (U+3131..) -> index as a final consonant (jongseong); 0 = cannot be final.
_FINALS = "ㄱㄲㄳㄴㄵㄶㄷ_ㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂ_ㅄㅅㅆㅇㅈ_ㅊㅋㅌㅍㅎ"
JONG = {}
_i = 1
for _ch in _FINALS:
    if _ch != "_":
        JONG[_ch] = _i
        _i += 1
# (ㄸ, ㅃ, ㅉ cannot be finals.)


def is_syllable(c):
    return HANGUL_BASE <= ord(c) <= HANGUL_LAST


def split_syllable(c):
    """'각' -> (choseong index, jungseong index, jongseong index)."""
    k = ord(c) - HANGUL_BASE
    return k // 588, (k % 588) // 28, k % 28


def join_syllable(cho, jung, jong=0):
    return chr(HANGUL_BASE + cho * 588 + jung * 28 + jong)


def has_batchim(word):
    """True if the last Hangul syllable of `word` ends in a final consonant."""
    c = word[-1]
    return is_syllable(c) and split_syllable(c)[2] != 0


def final_is(word, jong):
    c = word[-1]
    return is_syllable(c) and split_syllable(c)[2] == jong


def compose(prev, piece):
    """Glue `piece` onto `prev`; a leading lone consonant becomes prev's final consonant."""
    if piece and piece[0] in JONG and prev and is_syllable(prev[-1]) and not has_batchim(prev):
        cho, jung, _ = split_syllable(prev[-1])
        return prev[:-1] + join_syllable(cho, jung, JONG[piece[0]]) + piece[1:]
    return prev + piece


# Vowels (jungseong indices)
A, AE, YA, EO, E, YEO, O, WA, OE, WAE, U, WO, WI, EU, I = 0, 1, 2, 4, 5, 6, 8, 9, 11, 10, 13, 14, 16, 18, 20
L_JONG, D_JONG, B_JONG, S_JONG, H_JONG = 8, 7, 17, 19, 27


def _bright(syl):
    """Vowel harmony: stems whose last vowel is ㅏ/ㅗ (ㅑ) take 아, all others 어."""
    return split_syllable(syl)[1] in (A, O, YA)


# Version 3 (set by corpus.py with `--v3`): adjectives in 있다 / 없다 take 는 before a noun
# (맛있는); version 2's files wrote 맛있은, and stay as they were.
NATURAL = False
# English verbs whose Korean is descriptive (need: 필요하다); version 3 conjugates them as adjectives.
DESCRIPTIVE_VERBS = ("필요하다",)


class Predicate:
    """A verb or adjective by its dictionary form; see the module docs for the allomorphs."""

    def __init__(self, dictionary, irr="-", adjective=False):
        assert dictionary.endswith("다") and len(dictionary) >= 2, dictionary
        self.dictionary = dictionary
        self.stem = dictionary[:-1]
        self.irr = irr
        self.adjective = adjective
        s = self.stem
        last = s[-1]
        cho, jung, jong = split_syllable(last)
        self.a = s
        self.n = s[:-1] + join_syllable(cho, jung, 0) if jong == L_JONG else s
        if irr == "ㄷ":
            self.b, self.b_eu = s[:-1] + join_syllable(cho, jung, L_JONG), True
        elif irr == "ㅂ":
            self.b, self.b_eu = s[:-1] + join_syllable(cho, jung, 0) + "우", False
        elif irr == "ㅅ":
            self.b, self.b_eu = s[:-1] + join_syllable(cho, jung, 0), True
        elif irr == "ㅎ":
            self.b, self.b_eu = s[:-1] + join_syllable(cho, jung, 0), False
        else:
            self.b, self.b_eu = s, jong not in (0, L_JONG)
        self.c = self._infinitive() if dictionary != "아니다" else "아니어"  # 아니었다, not 아녔다

    def _infinitive(self):
        s, irr = self.stem, self.irr
        head, last = s[:-1], s[-1]
        cho, jung, jong = split_syllable(last)
        if last == "하":
            return head + "해"
        if irr == "ㄷ":
            return head + join_syllable(cho, jung, L_JONG) + ("아" if _bright(last) else "어")
        if irr == "ㅂ":
            return head + join_syllable(cho, jung, 0) + ("와" if s in ("도", "고") or self.stem in ("돕", "곱") else "워")
        if irr == "ㅅ":
            return head + join_syllable(cho, jung, 0) + ("아" if _bright(last) else "어")
        if irr == "ㅎ":
            new = {A: AE, EO: AE, YA: 3}.get(jung, AE)  # 빨갛 -> 빨개, 그렇 -> 그래, 하얗 -> 하얘
            return head + join_syllable(cho, new, 0)
        if irr == "르" and last == "르" and head:
            pc, pj, _ = split_syllable(head[-1])
            return head[:-1] + join_syllable(pc, pj, L_JONG) + ("라" if pj in (A, O) else "러")
        if jong:
            return s + ("아" if _bright(last) else "어")
        if jung in (A, EO, AE, E, YEO):
            return s
        if jung == O:
            return head + join_syllable(cho, WA)
        if jung == U:
            return head + join_syllable(cho, WO)
        if jung == I:
            return head + join_syllable(cho, YEO)
        if jung == OE:
            return head + join_syllable(cho, WAE)
        if jung == EU:
            bright = bool(head) and _bright(head[-1])
            return head + join_syllable(cho, A if bright else EO)
        return s + "어"

    # --- endings: each returns a list of tokens (stem allomorph + glue endings) -------------

    def consonant(self, ending):
        """Stem + an ending starting with a consonant other than ㄴ: 고, 지, 지만, 기, 자, 다."""
        return [self.a, ending]

    def eu(self, plain, with_eu):
        """Stem + an ending that takes a linking 으 after consonants (면/으면, 세요/으세요)."""
        if self.b_eu:
            return [self.b, with_eu]
        if final_is(self.b, L_JONG) and plain in ("ㄴ", "세요", "ㄹ"):
            return [self.n, plain] if plain != "ㄹ" else [self.b]
        return [self.b, plain]

    @property
    def descriptive(self):
        """Conjugated as an adjective: adjectives, and (version 3: NATURAL) the verbs of
        DESCRIPTIVE_VERBS, whose Korean describes a state (나는 물이 필요하다, not 필요한다)."""
        return self.adjective or (NATURAL and self.dictionary in DESCRIPTIVE_VERBS)

    def present(self):
        """Plain present statement: 먹는다, 간다, 산다 (verbs); 크다, 춥다 (adjectives)."""
        if self.descriptive:
            return [self.a, "다"]
        return [self.a, "는다"] if has_batchim(self.a) and not final_is(self.a, L_JONG) else [self.n, "ㄴ다"]

    def question(self):
        """Plain present question: 먹니, 가니, 사니, 크니."""
        return [self.n, "니"]

    def past_stem(self):
        """Past: the infinitive + ㅆ (먹어 ㅆ -> 먹었), followed by any consonant ending."""
        return [self.c, "ㅆ"]

    def attributive_present(self):
        """Before a noun: verbs 먹는, 가는, 사는; adjectives 큰, 작은, 추운."""
        if self.descriptive and not (NATURAL and self.stem.endswith(("있", "없"))):
            return self.eu("ㄴ", "은")
        return [self.n, "는"]  # and 맛있는, 재미없는 (version 3: NATURAL)

    def attributive_past(self):
        """Verbs before a noun, past: 먹은, 간, 만든."""
        return self.eu("ㄴ", "은")

    def attributive_future(self):
        """Before 것/수/때: 먹을, 갈, 살."""
        return self.eu("ㄹ", "을")

    def conditional(self):
        """If: 먹으면, 가면, 살면."""
        return self.eu("면", "으면")

    def polite_request(self):
        """Please ...: 닫으세요, 가세요, 만드세요."""
        return self.eu("세요", "으세요")

    def imperative(self):
        """Plain imperative: 먹어라, 가라, 해라."""
        return [self.c, "라"]

    def obligation(self):
        """Must / should: 먹어야 (+ 한다)."""
        return [self.c, "야"]


def particle(kind, head):
    """The particle `kind` after the word `head` (batchim decides the form)."""
    forms = {  # (after a consonant, after a vowel)
        "topic": ("은", "는"),
        "subj": ("이", "가"),
        "obj": ("을", "를"),
        "with": ("과", "와"),
        "by": ("으로", "로"),
    }
    if kind in forms:
        c, v = forms[kind]
        if kind == "by" and final_is(head, L_JONG):
            return v  # 지하철로, 버스로
        return c if has_batchim(head) else v
    return kind


def detokenize(tokens, prefix, glue=()):
    """Korean tokens -> text, as the engine prints them: a token starting with `prefix` (its
    marker removed) or listed in `glue` attaches to the token before it, composing a leading
    lone consonant (see `compose`)."""
    out = ""
    for t in tokens:
        if prefix and t.startswith(prefix) and len(t) > len(prefix):
            t = t[len(prefix):]
            out = compose(out, t) if out else t
        elif out and t in glue:
            out = compose(out, t)
        elif out:
            out += " " + t
        else:
            out = t
    return out


if __name__ == "__main__":
    checks = [
        ("먹다", "-", False, "먹어"), ("가다", "-", False, "가"), ("보다", "-", False, "봐"),
        ("주다", "-", False, "줘"), ("마시다", "-", False, "마셔"), ("하다", "-", False, "해"),
        ("공부하다", "-", False, "공부해"), ("듣다", "ㄷ", False, "들어"), ("돕다", "ㅂ", False, "도와"),
        ("춥다", "ㅂ", True, "추워"), ("낫다", "ㅅ", False, "나아"), ("부르다", "르", False, "불러"),
        ("모르다", "르", False, "몰라"), ("쓰다", "-", False, "써"), ("바쁘다", "-", True, "바빠"),
        ("빨갛다", "ㅎ", True, "빨개"), ("되다", "-", False, "돼"), ("살다", "-", False, "살아"),
        ("기다리다", "-", False, "기다려"), ("보내다", "-", False, "보내"), ("쉬다", "-", False, "쉬어"),
    ]
    glue = {"는다", "ㄴ다", "ㅆ", "다", "은", "ㄴ", "을", "ㄹ", "면", "으면", "세요", "으세요", "라", "야", "니", "는"}
    for d, irr, adj, c in checks:
        p = Predicate(d, irr, adj)
        assert p.c == c, (d, p.c, c)
    def show(toks):
        return detokenize(toks, "", glue)
    assert show(Predicate("가다").present()) == "간다"
    assert show(Predicate("먹다").present()) == "먹는다"
    assert show(Predicate("살다").present()) == "산다"
    assert show(Predicate("만들다").attributive_past()) == "만든"
    assert show(Predicate("살다").attributive_future()) == "살"
    assert show(Predicate("먹다").past_stem() + ["다"]) == "먹었다"
    assert show(Predicate("가다").past_stem() + ["다"]) == "갔다"
    assert show(Predicate("춥다", "ㅂ", True).attributive_present()) == "추운"
    assert show(Predicate("크다", "-", True).attributive_present()) == "큰"
    assert show(Predicate("작다", "-", True).attributive_present()) == "작은"
    assert show(Predicate("길다", "-", True).attributive_present()) == "긴"
    assert show(Predicate("빨갛다", "ㅎ", True).attributive_present()) == "빨간"
    assert show(Predicate("듣다", "ㄷ").conditional()) == "들으면"
    assert show(Predicate("닫다").polite_request()) == "닫으세요"
    assert show(Predicate("만들다").polite_request()) == "만드세요"
    assert show(Predicate("살다").question()) == "사니"
    assert show(Predicate("낫다", "ㅅ").conditional()) == "나으면"
    print("korean.py: all checks pass")
