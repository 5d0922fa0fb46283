#!/usr/bin/env python3
"""Seeded, deterministic English -> Korean toy corpus with gold word alignments.

The language: English SVO clauses and their Korean SOV translations, one or two clauses per
sentence ("and" / "but" / "because" / "so"), with adjectives, negation, present/past tense,
location / company / recipient phrases, time and frequency adverbs, and pronouns that must be
resolved: in a second clause "he" / "she" / "they" / "it" (and "him" / "her" / "them") are
translated as the Korean word of their antecedent in the first clause, and a pronoun is only used
when exactly one antecedent agrees with it (names and person nouns carry a gender), so the model
has to look back at the right word.  The seed sentence of the demo,

    Emma hates games, but she's a great friend
    -> 엠마 는 게임 을 싫어하 지만 , 엠마 는 훌륭한 친구 이다 .

is in the language (and forced into the training set).

Korean token design (the target side is split on single spaces; see GLUE for printing):
  * nouns, names, attributive adjectives (좋은 친구) and adverbs are tokens of their own;
  * particles are separate tokens chosen by the batchim of the noun before them:
    은/는 (topic), 이/가 (subject), 을/를 (object), 과/와 (+ 함께, "with"), 에서 ("in/at" a place),
    에 (destination / place of being), 에게 ("to" a person), 도 ("also", replaces 은/는);
  * rule for topic vs subject: the subject of a main clause (a single clause, both clauses of
    "and"/"but", the result clause of "because"/"so") takes 은/는; the subject of the cause
    clause (the one that gets 기 때문에) takes 이/가; the object of "have"/"need" takes 이/가;
  * predicates: a clause-final verb/adjective is one fully conjugated token (먹는다, 먹었다,
    행복하다, 행복했다); a non-final one is its stem (먹 / 먹었, present / past) followed by a
    connective ending token: 고 ("and"), 지만 ("but"), 기 + 때문에 ("because" / "so": the cause
    clause comes first in Korean, so "A because B" is reordered to "B 기 때문에 A");
  * negation is the long form: stem + 지 + 않는다 / 않았다 (verbs), 않다 / 않았다 (adjectives),
    or 않 / 않았 before a connective ending; "know" negates as 모른다, "have" and "be in" as 없다,
    and "X is not a N" is "N 이/가 아니다";
  * the copula is 이다 (present), 였다 / 이었다 (past, after a vowel / consonant), 이 / 였 / 이었
    before an ending;
  * a verb stem that is itself a glue token (only 가 of 가다 "go") is fused with the ending that
    follows it (가지만, 가고, 가기, 가지) so that printing stays correct.

English tokens are produced by `tokenize_en` (the exact rules of the engine's tokenizer) from
the English surface string; every generated sentence is checked against it.

Gold alignment: for every Korean token the index of the English token it translates, or -1
(particles, endings 고/지만/기/지, punctuation).  Names produced from a pronoun align to the
pronoun; the negation auxiliaries 않는다 / 않다 / 않았다 (they carry tense and negation together,
"did" + "n't") are function words and align to nothing; 모른다 / 없다 / 아니다 (negation fused
into the predicate) and the copula align to the verb ("know", "have", "is", "was", "'s" ...);
때문에 aligns to "because" / "so"; 함께 to "with".

Held-out test set: sentences never produced for training (compared after removing "," and "."),
half of them containing a combination reserved for the test set: (adjective, noun),
(verb, object) or (name, verb) pairs that never co-occur in the training sentences.

Usage:
    python train/corpus.py                       # defaults: seed 1, 200000 training sentences
    python train/corpus.py --seed 1 --n-train 200000 --out train/out --test tests/data/en-ko-test.tsv
"""
import argparse
import os
import random
import sys

# ----------------------------------------------------------------------------------------------
# Tokenisation (must match src/tokenizer.rs `split_words` with lowercase + contractions)
# ----------------------------------------------------------------------------------------------


def _push_word(word, out):
    if len(word.encode("utf-8")) > 3 and word.endswith("n't"):
        out.append(word[:-3])
        out.append("n't")
        return
    pos = word.find("'")
    if pos >= 0:
        out.append(word[:pos])
        out.append(word[pos:])
        return
    out.append(word)


def tokenize_en(text):
    """English text -> tokens: lowercase; split on whitespace; inside a chunk, runs of
    alphanumeric characters (with apostrophes between two alphanumerics) are words and every
    other character is a token of its own; then "xn't" -> ["x", "n't"] and any other word with an
    apostrophe -> [before, "'" + after].  ("’" is read as "'".)"""
    text = text.replace("\u2019", "'").lower()
    out = []
    for chunk in text.split():
        n = len(chunk)
        i = 0
        while i < n:
            if chunk[i].isalnum():
                start = i
                while i < n and (
                    chunk[i].isalnum()
                    or (chunk[i] == "'" and 0 < i < n - 1 and chunk[i - 1].isalnum() and chunk[i + 1].isalnum())
                ):
                    i += 1
                _push_word(chunk[start:i], out)
            else:
                out.append(chunk[i])
                i += 1
    return out


def tokenize_ko(text):
    return text.split()


def has_batchim(word):
    """True if the last Hangul syllable of `word` ends in a final consonant."""
    c = word[-1]
    if "\uac00" <= c <= "\ud7a3":
        return (ord(c) - 0xAC00) % 28 != 0
    return False


PARTICLES = {  # (after a consonant, after a vowel)
    "topic": ("은", "는"),
    "subj": ("이", "가"),
    "obj": ("을", "를"),
    "with": ("과", "와"),
}


SUBJ_FORMS = {"나": "내", "너": "네"}  # 나 + 가 -> 내가, 너 + 가 -> 네가


def with_particle(pairs, head, kind):
    """Korean noun-phrase pairs followed by the particle `kind` chosen for `head`."""
    p = particle(kind, head)
    if p == "가" and pairs and pairs[-1][0] in SUBJ_FORMS:
        pairs = pairs[:-1] + [(SUBJ_FORMS[pairs[-1][0]], pairs[-1][1])]
    return list(pairs) + [(p, None)]


def particle(kind, head):
    if kind in PARTICLES:
        c, v = PARTICLES[kind]
        return c if has_batchim(head) else v
    return kind  # fixed particles: 에서, 에, 에게, 도


# Tokens printed without a space before them (the "glue" setting of the model file).
GLUE = ["은", "는", "이", "가", "을", "를", "과", "와", "에서", "에게", "에", "도",
        "고", "지만", "기", "지", "이다", "였다", "이었다", "였", "이었", ",", "."]
GLUE_SET = set(GLUE)


def detokenize_ko(tokens):
    out = ""
    for t in tokens:
        if out and t not in GLUE_SET:
            out += " "
        out += t
    return out


# ----------------------------------------------------------------------------------------------
# Lexicon
# ----------------------------------------------------------------------------------------------

NAMES = """
Emma 엠마 f | Mary 메리 f | Sarah 사라 f | Anna 안나 f | Lily 릴리 f | Sophia 소피아 f
Olivia 올리비아 f | Grace 그레이스 f | Alice 앨리스 f | Kate 케이트 f | Jisu 지수 f | Minji 민지 f
Yuna 유나 f | Sora 소라 f | Jane 제인 f | Rachel 레이첼 f | Susan 수잔 f
John 존 m | Tom 톰 m | David 데이비드 m | James 제임스 m | Mike 마이크 m | Paul 폴 m
Daniel 다니엘 m | Sam 샘 m | Ben 벤 m | Jake 제이크 m | Chris 크리스 m | Minsu 민수 m
Junho 준호 m | Jiho 지호 m | Peter 피터 m | Jack 잭 m | Hyun 현 m
"""

# english singular, english plural ("-" = none), korean singular, korean plural, gender, roles
# (role "R" = can be the complement of the copula: "she's a great friend")
PEOPLE = """
boy boys 소년 소년들 m
girl girls 소녀 소녀들 f
man men 남자 남자들 m
woman women 여자 여자들 f
child children 아이 아이들 n
baby babies 아기 아기들 n
teacher teachers 선생님 선생님들 n R
student students 학생 학생들 n R
doctor doctors 의사 의사들 n R
friend friends 친구 친구들 n R
brother brothers 형 형들 m
sister sisters 누나 누나들 f
mother - 어머니 - f
father - 아버지 - m
king kings 왕 왕들 m
queen queens 여왕 여왕들 f
farmer farmers 농부 농부들 n R
chef chefs 요리사 요리사들 n R
singer singers 가수 가수들 n R
nurse nurses 간호사 간호사들 n R
driver drivers 운전사 운전사들 n R
neighbor neighbors 이웃 이웃들 n R
grandmother - 할머니 - f
grandfather - 할아버지 - m
son sons 아들 아들들 m
daughter daughters 딸 딸들 f
prince - 왕자 - m
princess - 공주 - f
uncle - 삼촌 - m
aunt - 이모 - f
"""

ANIMALS = """
dog dogs 개 | cat cats 고양이 | bird birds 새 | horse horses 말 | rabbit rabbits 토끼
fish fish 물고기 | cow cows 소 | pig pigs 돼지 | tiger tigers 호랑이 | lion lions 사자
bear bears 곰 | monkey monkeys 원숭이 | duck ducks 오리 | mouse mice 쥐 | elephant elephants 코끼리
frog frogs 개구리 | chicken chickens 닭 | sheep sheep 양 | wolf wolves 늑대 | fox foxes 여우
puppy puppies 강아지
"""

# english singular ("-" = plural only), plural ("-" = mass noun), korean, tags
#   F food, D drink, K can be made, CK can be cooked, C small carryable thing, V vehicle,
#   E device, R readable, G entertainment, S sport/game you play, SUB school subject,
#   H homework, B ball, OP can be opened/closed, FX can be fixed/broken, SD can be sent,
#   DR can be drawn, COL has a colour, PR proper noun (no article), FL plant
THINGS = """
bread - 빵 F K
apple apples 사과 F COL
rice - 밥 F CK
cake cakes 케이크 F K
pizza - 피자 F K
soup - 수프 F K CK
kimchi - 김치 F K
- noodles 국수 F K CK
candy - 사탕 F
cookie cookies 쿠키 F K
banana bananas 바나나 F
egg eggs 달걀 F CK
meat - 고기 F CK
sandwich sandwiches 샌드위치 F K
cheese - 치즈 F
orange oranges 오렌지 F
chocolate - 초콜릿 F
salad - 샐러드 F K
grape grapes 포도 F
strawberry strawberries 딸기 F
carrot carrots 당근 F CK
potato potatoes 감자 F CK
tomato tomatoes 토마토 F COL
hamburger hamburgers 햄버거 F K
fruit - 과일 F
milk - 우유 D
water - 물 D
coffee - 커피 D
tea - 차 D
juice - 주스 D
book books 책 R C OP SD
ball balls 공 B C COL
game games 게임 G S
movie movies 영화 G
music - 음악 G
song songs 노래 G SG
letter letters 편지 R SD C
car cars 자동차 V FX COL
bike bikes 자전거 V FX COL
phone phones 전화기 E C FX
computer computers 컴퓨터 E FX
bag bags 가방 C OP COL
hat hats 모자 C K COL
shoe shoes 신발 C COL
flower flowers 꽃 FL DR SD COL
tree trees 나무 FL DR
picture pictures 그림 C DR SD
toy toys 장난감 C K FX COL
key keys 열쇠 C
cup cups 컵 C FX COL
box boxes 상자 C K OP COL
chair chairs 의자 K FX COL
table tables 탁자 K FX
door doors 문 OP FX COL
window windows 창문 OP FX
pencil pencils 연필 C COL
pen pens 펜 C COL
gift gifts 선물 C SD
shirt shirts 셔츠 C COL
umbrella umbrellas 우산 C COL
clock clocks 시계 C FX
doll dolls 인형 C K COL
map maps 지도 C DR
camera cameras 카메라 E C FX
newspaper newspapers 신문 R C
story stories 이야기 R G
card cards 카드 C SD K
ring rings 반지 C SD
coat coats 코트 C COL
boat boats 배 V K COL
train trains 기차 V
bus buses 버스 V COL
soccer - 축구 S
baseball - 야구 S
basketball - 농구 S
tennis - 테니스 S
chess - 체스 S
homework - 숙제 H
math - 수학 SUB
history - 역사 SUB
science - 과학 SUB
art - 미술 SUB
English - 영어 SUB PR
Korean - 한국어 SUB PR
"""

# english, korean, tags (IN indoor, PR proper noun)
PLACES = """
park 공원 | school 학교 IN | house 집 IN | library 도서관 IN | store 가게 IN | market 시장
restaurant 식당 IN | kitchen 부엌 IN | garden 정원 | beach 해변 | city 도시 | office 사무실 IN
hospital 병원 IN | zoo 동물원 | river 강 | forest 숲 | mountain 산 | room 방 IN | cafe 카페 IN
station 역 | street 거리 | classroom 교실 IN | farm 농장 | church 교회 IN | bakery 빵집 IN
museum 박물관 IN | village 마을 | playground 놀이터 | lake 호수
Seoul 서울 PR | Busan 부산 PR | London 런던 PR | Tokyo 도쿄 PR | Paris 파리 PR | Korea 한국 PR
Japan 일본 PR | China 중국 PR | America 미국 PR
"""

# Transitive verbs: base 3sg past | dictionary present past | subject tags | object tags
#   [| options: prep=to/at/for (phrasal verb), objp=subj (object takes 이/가),
#    neg=PRESENT/PAST (fused negation), desc (descriptive: negated with 않다)]
TRANSITIVE = """
hate hates hated | 싫어하다 싫어한다 싫어했다 | P A | P A F D G S SUB C
like likes liked | 좋아하다 좋아한다 좋아했다 | P A | P A F D G S SUB C V
love loves loved | 사랑하다 사랑한다 사랑했다 | P | P A F G S
eat eats ate | 먹다 먹는다 먹었다 | P A | F
drink drinks drank | 마시다 마신다 마셨다 | P A | D
buy buys bought | 사다 산다 샀다 | P | F D C V E R
sell sells sold | 팔다 판다 팔았다 | P | F D C V E
read reads read | 읽다 읽는다 읽었다 | P | R
write writes wrote | 쓰다 쓴다 썼다 | P | R
see sees saw | 보다 본다 봤다 | P A | P A V C G
watch watches watched | 보다 본다 봤다 | P | G S A
look looks looked | 보다 본다 봤다 | P A | P A C FL | prep=at
make makes made | 만들다 만든다 만들었다 | P | K
cook cooks cooked | 요리하다 요리한다 요리했다 | P | CK
find finds found | 찾다 찾는다 찾았다 | P A | A C P
lose loses lost | 잃어버리다 잃어버린다 잃어버렸다 | P | C
carry carries carried | 업다 업는다 업었다 | P | P
meet meets met | 만나다 만난다 만났다 | P | P
help helps helped | 돕다 돕는다 도왔다 | P | P A
visit visits visited | 방문하다 방문한다 방문했다 | P | P L
miss misses missed | 그리워하다 그리워한다 그리워했다 | P A | P A L
know knows knew | 알다 안다 알았다 | P | P | neg=모른다/몰랐다
want wants wanted | 원하다 원한다 원했다 | P A | F D C V E A
teach teaches taught | 가르치다 가르친다 가르쳤다 | P | P SUB
wash washes washed | 씻다 씻는다 씻었다 | P | A C V
clean cleans cleaned | 청소하다 청소한다 청소했다 | P | IN
draw draws drew | 그리다 그린다 그렸다 | P | P A DR
chase chases chased | 쫓다 쫓는다 쫓았다 | P A | P A B
catch catches caught | 잡다 잡는다 잡았다 | P A | A B
throw throws threw | 던지다 던진다 던졌다 | P | B C
kick kicks kicked | 차다 찬다 찼다 | P | B
open opens opened | 열다 연다 열었다 | P | OP
close closes closed | 닫다 닫는다 닫았다 | P | OP
bring brings brought | 가져오다 가져온다 가져왔다 | P | F D C
study studies studied | 공부하다 공부한다 공부했다 | P | SUB
forget forgets forgot | 잊다 잊는다 잊었다 | P | P C H
remember remembers remembered | 기억하다 기억한다 기억했다 | P | P G
fix fixes fixed | 고치다 고친다 고쳤다 | P | FX
break breaks broke | 부수다 부순다 부쉈다 | P | FX
use uses used | 사용하다 사용한다 사용했다 | P | E C V
borrow borrows borrowed | 빌리다 빌린다 빌렸다 | P | R C V E
order orders ordered | 주문하다 주문한다 주문했다 | P | F D
enjoy enjoys enjoyed | 즐기다 즐긴다 즐겼다 | P | G S
play plays played | 하다 한다 했다 | P | S
sing sings sang | 부르다 부른다 불렀다 | P A | SG
hug hugs hugged | 안다 안는다 안았다 | P | P A
invite invites invited | 초대하다 초대한다 초대했다 | P | P
follow follows followed | 따라가다 따라간다 따라갔다 | P A | P A
listen listens listened | 듣다 듣는다 들었다 | P A | G | prep=to
wait waits waited | 기다리다 기다린다 기다렸다 | P A | P A V | prep=for
have has had | 있다 있다 있었다 | P A | A C V E R | objp=subj neg=없다/없었다
need needs needed | 필요하다 필요하다 필요했다 | P A | F D C V E | objp=subj desc
"""

INTRANSITIVE = """
sleep sleeps slept | 자다 잔다 잤다 | P A
run runs ran | 달리다 달린다 달렸다 | P A
walk walks walked | 걷다 걷는다 걸었다 | P A
swim swims swam | 수영하다 수영한다 수영했다 | P A
dance dances danced | 춤추다 춤춘다 춤췄다 | P
sing sings sang | 노래하다 노래한다 노래했다 | P A
cry cries cried | 울다 운다 울었다 | P A
laugh laughs laughed | 웃다 웃는다 웃었다 | P
smile smiles smiled | 웃다 웃는다 웃었다 | P
work works worked | 일하다 일한다 일했다 | P
play plays played | 놀다 논다 놀았다 | P A
study studies studied | 공부하다 공부한다 공부했다 | P
rest rests rested | 쉬다 쉰다 쉬었다 | P A
wait waits waited | 기다리다 기다린다 기다렸다 | P A
win wins won | 이기다 이긴다 이겼다 | P
arrive arrives arrived | 도착하다 도착한다 도착했다 | P
leave leaves left | 떠나다 떠난다 떠났다 | P
cook cooks cooked | 요리하다 요리한다 요리했다 | P
eat eats ate | 먹다 먹는다 먹었다 | P A
jump jumps jumped | 뛰다 뛴다 뛰었다 | P A
shout shouts shouted | 소리치다 소리친다 소리쳤다 | P
fall falls fell | 넘어지다 넘어진다 넘어졌다 | P A
sit sits sat | 앉다 앉는다 앉았다 | P A
exercise exercises exercised | 운동하다 운동한다 운동했다 | P
travel travels traveled | 여행하다 여행한다 여행했다 | P
talk talks talked | 이야기하다 이야기한다 이야기했다 | P
fight fights fought | 싸우다 싸운다 싸웠다 | P A
"""

MOTION = """
go goes went | 가다 간다 갔다 | P A
come comes came | 오다 온다 왔다 | P A
"""

# Ditransitive: recipient tags | object tags
DITRANSITIVE = """
give gives gave | 주다 준다 주었다 | P | P A | F D C
send sends sent | 보내다 보낸다 보냈다 | P | P | SD
show shows showed | 보여주다 보여준다 보여주었다 | P | P | C V E R DR
lend lends lent | 빌려주다 빌려준다 빌려주었다 | P | P | C V E R
sell sells sold | 팔다 판다 팔았다 | P | P | C V E
"""

# english | present past attributive | noun tags it can describe
ADJECTIVES = """
happy | 행복하다 행복했다 행복한 | P A
sad | 슬프다 슬펐다 슬픈 | P A
tired | 피곤하다 피곤했다 피곤한 | P A
hungry | 배고프다 배고팠다 배고픈 | P A
busy | 바쁘다 바빴다 바쁜 | P
kind | 친절하다 친절했다 친절한 | P
smart | 똑똑하다 똑똑했다 똑똑한 | P A
cute | 귀엽다 귀여웠다 귀여운 | P A K
big | 크다 컸다 큰 | A C V E L F FL
small | 작다 작았다 작은 | A C V E L F FL
good | 좋다 좋았다 좋은 | P A F D G C V E R L S
bad | 나쁘다 나빴다 나쁜 | P A F G R
great | 훌륭하다 훌륭했다 훌륭한 | P G R L
beautiful | 아름답다 아름다웠다 아름다운 | P A L FL
pretty | 예쁘다 예뻤다 예쁜 | P A C L FL
fun | 재미있다 재미있었다 재미있는 | P G S R SUB
delicious | 맛있다 맛있었다 맛있는 | F D
cold | 차갑다 차가웠다 차가운 | D F
hot | 뜨겁다 뜨거웠다 뜨거운 | D CK
quiet | 조용하다 조용했다 조용한 | P A L
strong | 강하다 강했다 강한 | P A
brave | 용감하다 용감했다 용감한 | P A
lazy | 게으르다 게을렀다 게으른 | P A
sick | 아프다 아팠다 아픈 | P A
young | 어리다 어렸다 어린 | P A
honest | 정직하다 정직했다 정직한 | P
clean | 깨끗하다 깨끗했다 깨끗한 | A C V L
dirty | 더럽다 더러웠다 더러운 | A C V L
expensive | 비싸다 비쌌다 비싼 | F D C V E
cheap | 싸다 쌌다 싼 | F D C V E
red | 빨갛다 빨갰다 빨간 | COL
blue | 파랗다 파랬다 파란 | COL
white | 하얗다 하얬다 하얀 | COL A
black | 까맣다 까맸다 까만 | COL A
yellow | 노랗다 노랬다 노란 | COL
heavy | 무겁다 무거웠다 무거운 | C V E
fast | 빠르다 빨랐다 빠른 | P A V
slow | 느리다 느렸다 느린 | P A V
warm | 따뜻하다 따뜻했다 따뜻한 | D CK L
famous | 유명하다 유명했다 유명한 | P L G R
friendly | 다정하다 다정했다 다정한 | P A
nice | 착하다 착했다 착한 | P A
funny | 웃기다 웃겼다 웃긴 | P A G R
sweet | 달다 달았다 단 | F D
boring | 지루하다 지루했다 지루한 | P G R SUB S
lonely | 외롭다 외로웠다 외로운 | P A
scary | 무섭다 무서웠다 무서운 | A G R
difficult | 어렵다 어려웠다 어려운 | SUB H
easy | 쉽다 쉬웠다 쉬운 | SUB H
loud | 시끄럽다 시끄러웠다 시끄러운 | P A L
"""

INTENSIFIERS = [("very", "아주"), ("really", "정말")]
FREQUENCY = [("always", "항상"), ("often", "자주"), ("sometimes", "가끔")]
TIMES = [("yesterday", "어제", "past"), ("today", "오늘", None)]
DETERMINERS_KO = {"my": "내"}
PRONOUNS = {  # key -> (subject form, object form, korean, person for agreement, ref class)
    "I": ("I", "me", "나", "1s", None),
    "you": ("you", "you", "너", "2", None),
    "we": ("we", "us", "우리", "1p", None),
    "he": ("he", "him", "그", "3s", "m"),
    "she": ("she", "her", "그녀", "3s", "f"),
    "they": ("they", "them", "그들", "3p", "pl"),
    "it": ("it", "it", "그것", "3s", "it"),
}
PRONOUN_MATCH = {"he": {"m", "n"}, "she": {"f", "n"}, "they": {"pl"}, "it": {"it"}}


class Noun:
    __slots__ = ("lemma", "en_sg", "en_pl", "ko_sg", "ko_pl", "tags", "gender", "kind", "role")

    def __init__(self, lemma, en_sg, en_pl, ko_sg, ko_pl, tags, gender=None, kind="noun", role=False):
        self.lemma, self.en_sg, self.en_pl, self.ko_sg, self.ko_pl = lemma, en_sg, en_pl, ko_sg, ko_pl
        self.tags, self.gender, self.kind, self.role = set(tags), gender, kind, role

    @property
    def mass(self):
        return self.en_pl is None and self.en_sg is not None

    @property
    def proper(self):
        return "PR" in self.tags or self.kind == "name"


class Verb:
    __slots__ = ("base", "s3", "past", "ko_pres", "ko_past", "stem", "pstem", "subj", "obj", "rec",
                 "prep", "objp", "neg", "desc", "kind")

    def __init__(self, kind, en, ko, subj, obj=(), rec=(), opts=""):
        self.kind = kind
        self.base, self.s3, self.past = en
        dic, self.ko_pres, self.ko_past = ko
        assert dic.endswith("다") and self.ko_past.endswith("다"), ko
        self.stem, self.pstem = dic[:-1], self.ko_past[:-1]
        self.subj, self.obj, self.rec = set(subj), set(obj), set(rec)
        self.prep, self.objp, self.neg, self.desc = None, "obj", None, False
        for o in opts.split():
            if o.startswith("prep="):
                self.prep = o[5:]
            elif o == "objp=subj":
                self.objp = "subj"
            elif o.startswith("neg="):
                pres, past = o[4:].split("/")
                self.neg = (pres, past, pres[:-1], past[:-1])
            elif o == "desc":
                self.desc = True


class Adj:
    __slots__ = ("en", "ko_pres", "ko_past", "stem", "pstem", "attr", "tags", "desc", "neg", "base")

    def __init__(self, en, ko_pres, ko_past, attr, tags):
        self.en = self.base = en
        self.ko_pres, self.ko_past, self.attr = ko_pres, ko_past, attr
        self.stem, self.pstem = ko_pres[:-1], ko_past[:-1]
        self.tags = set(tags)
        self.desc, self.neg = True, None


def _entries(block, sep="|"):
    for line in block.strip().splitlines():
        for e in line.split(sep):
            if e.strip():
                yield e.split()


def _rows(block):
    for line in block.strip().splitlines():
        yield [part.split() for part in line.split("|")]


def build_lexicon():
    lex = {}
    names = [Noun(en.lower(), en, None, ko, None, {"P"}, g, kind="name") for en, ko, g in _entries(NAMES)]
    people = []
    for row in _rows(PEOPLE):
        f = row[0]
        sg, pl, ksg, kpl, g = f[:5]
        people.append(Noun(sg, sg, None if pl == "-" else pl, ksg, None if kpl == "-" else kpl,
                           {"P"}, g, role="R" in f[5:]))
        # persons always countable (en_pl None means "no plural" here, not mass)
    animals = [Noun(sg, sg, pl, ko, None, {"A"}) for sg, pl, ko in _entries(ANIMALS)]
    things = []
    for row in _rows(THINGS):
        f = row[0]
        sg, pl, ko = f[:3]
        things.append(Noun(pl if sg == "-" else sg.lower(), None if sg == "-" else sg,
                           None if pl == "-" else pl, ko, None, f[3:]))
    places = [Noun(e[0].lower(), e[0], None, e[1], None, {"L"} | set(e[2:])) for e in _entries(PLACES)]
    lex["names"], lex["people"], lex["animals"], lex["things"], lex["places"] = names, people, animals, things, places
    lex["tv"] = [Verb("tv", r[0], r[1], r[2], r[3], (), " ".join(r[4]) if len(r) > 4 else "") for r in _rows(TRANSITIVE)]
    lex["iv"] = [Verb("iv", r[0], r[1], r[2]) for r in _rows(INTRANSITIVE)]
    lex["go"] = [Verb("go", r[0], r[1], r[2]) for r in _rows(MOTION)]
    lex["dtv"] = [Verb("dtv", r[0], r[1], r[2], r[4], r[3]) for r in _rows(DITRANSITIVE)]
    lex["adj"] = [Adj(r[0][0], *r[1], r[2]) for r in _rows(ADJECTIVES)]
    # object pools
    lex["objects"] = people + animals + things + [p for p in places if "PR" not in p.tags]
    return lex


LEX = build_lexicon()
# verb stems that collide with a glue token: fuse them with the ending that follows
FUSE = {s for kind in ("tv", "iv", "go", "dtv") for v in LEX[kind] for s in (v.stem, v.pstem) if s in GLUE_SET}
HOME = Noun("home", "home", None, "집", None, {"L", "IN"})

# ----------------------------------------------------------------------------------------------
# Sentence construction
# ----------------------------------------------------------------------------------------------


class W:
    """One English token (surface form); `attach` = no space before it."""
    __slots__ = ("w", "attach")

    def __init__(self, w, attach=False):
        self.w, self.attach = w, attach


class Entity:
    """A discourse referent: a name, a noun phrase or a pronoun."""
    __slots__ = ("noun", "number", "det", "adj", "intens", "pron")

    def __init__(self, noun=None, number="sg", det=None, adj=None, intens=None, pron=None):
        self.noun, self.number, self.det, self.adj, self.intens, self.pron = noun, number, det, adj, intens, pron

    @property
    def person(self):
        if self.pron:
            return PRONOUNS[self.pron][3]
        return "3s" if self.number == "sg" else "3p"

    @property
    def ref(self):
        """Class a 3rd-person pronoun must match: m, f, n (person of either gender), pl, it."""
        if self.pron:
            return PRONOUNS[self.pron][4]
        if self.number == "pl":
            return "pl"
        if "P" in self.noun.tags:
            return self.noun.gender
        return "it"

    @property
    def tags(self):
        if self.pron:
            return {"P"} if self.pron != "it" else {"C"}
        return self.noun.tags

    @property
    def lemma(self):
        return self.pron.lower() if self.pron else self.noun.lemma

    @property
    def ko(self):
        if self.pron:
            return PRONOUNS[self.pron][2]
        if self.number == "pl" and self.noun.ko_pl:
            return self.noun.ko_pl
        return self.noun.ko_sg


class Mention:
    """An entity as it appears in a clause: "full" phrase, "pron" (3rd-person pronoun resolved to
    its antecedent) or "repeat" (the bare noun again, when a pronoun would be ambiguous)."""
    __slots__ = ("e", "form", "pron")

    def __init__(self, e, form="full", pron=None):
        self.e, self.form, self.pron = e, form, pron


def article(next_word):
    return "an" if next_word[0].lower() in "aeiou" or next_word.lower() == "honest" else "a"


def render_np(m, case):
    """-> (english tokens, korean [(token, english W or None)], korean head)"""
    e = m.e
    if m.form == "pron":
        w = W(PRONOUNS[m.pron][0 if case == "subj" else 1])
        return [w], [(e.ko, w)], e.ko
    if e.pron:
        w = W(PRONOUNS[e.pron][0 if case == "subj" else 1])
        return [w], [(e.ko, w)], e.ko
    n = e.noun
    if n is HOME:
        w = W("home")
        return [w], [(n.ko_sg, w)], n.ko_sg
    head = W(n.en_sg if e.number == "sg" else n.en_pl)
    if m.form == "repeat":
        en = [head] if n.proper else [W("the"), head]
        return en, [(e.ko, head)], e.ko
    en, ko = [], []
    mods = []
    if e.intens:
        wi = W(e.intens[0])
        mods.append(wi)
        ko.append((e.intens[1], wi))
    if e.adj:
        wa = W(e.adj.en)
        mods.append(wa)
        ko.append((e.adj.attr, wa))
    if e.det:
        d = e.det if e.det != "a" else article((mods + [head])[0].w)
        wd = W(d)
        en.append(wd)
        if d in DETERMINERS_KO:
            ko.insert(0, (DETERMINERS_KO[d], wd))
    en += mods + [head]
    ko.append((e.ko, head))
    return en, ko, e.ko


class Clause:
    __slots__ = ("subj", "ptype", "pred", "obj", "rec", "dt_order", "place", "prep", "comp", "with_",
                 "loc", "loc_prep", "time", "freq", "also", "tense", "neg", "intens", "contract", "neg_style")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


def be_form(person, tense):
    if tense == "past":
        return "was" if person in ("1s", "3s") else "were"
    return {"1s": "am", "3s": "is"}.get(person, "are")


def realize_clause(c, mode, subj_kind):
    """Render one clause.  mode: "final" (clause-final predicate) or "conn" (stem, an ending
    follows).  subj_kind: particle for the subject ("topic" / "subj"; "also" forces 도).
    Returns (english tokens, korean pairs, combos)."""
    en, combos = [], set()
    s_en, s_ko, s_head = render_np(c.subj, "subj")
    en += s_en
    person = c.subj.e.person
    be_like = c.ptype in ("adj", "cop", "bein")
    vw = None  # the English token of the main verb / adjective / copula
    nw = None  # the English negation token
    pre_adv = []  # also / frequency adverb tokens (English), placed after be or before the verb
    also_w = W("also") if c.also else None
    freq_w = W(c.freq[0]) if c.freq else None
    for a in (also_w, freq_w):
        if a:
            pre_adv.append(a)
    if be_like:
        bf = be_form(person, c.tense)
        if c.contract:
            bw = W({"am": "'m", "is": "'s", "are": "'re"}[bf], attach=True)
        else:
            bw = W(bf)
        en.append(bw)
        if c.neg:
            if c.contract or bf == "am" or c.neg_style == "not":
                nw = W("not")
            else:
                nw = W("n't", attach=True)
            en.append(nw)
        en += pre_adv
        vw = bw
    else:
        v = c.pred
        if c.neg:
            do = "did" if c.tense == "past" else ("does" if person == "3s" else "do")
            en.append(W(do))
            nw = W("not") if c.neg_style == "not" else W("n't", attach=True)
            en.append(nw)
            vw = W(v.base)
        else:
            en += pre_adv
            if c.tense == "past":
                vw = W(v.past)
            else:
                vw = W(v.s3 if person == "3s" else v.base)
        en.append(vw)
        if v.prep:
            en.append(W(v.prep))
    # complements
    ko_mid = []  # korean between subject and predicate (besides adverbs)
    if c.ptype == "tv":
        o_en, o_ko, o_head = render_np(c.obj, "obj")
        en += o_en
        ko_obj = with_particle(o_ko, o_head, c.pred.objp)
        combos.add(("vo", c.pred.base, c.obj.e.lemma))
        if c.obj.e.adj:
            combos.add(("an", c.obj.e.adj.en, c.obj.e.lemma))
    elif c.ptype == "dtv":
        o_en, o_ko, o_head = render_np(c.obj, "obj")
        r_en, r_ko, r_head = render_np(c.rec, "obj")
        if c.dt_order == "to":
            en += o_en + [W("to")] + r_en
        else:
            en += r_en + o_en
        ko_obj = r_ko + [(particle("에게", r_head), None)] + o_ko + [(particle("obj", o_head), None)]
        combos.add(("vo", c.pred.base, c.obj.e.lemma))
        for x in (c.obj, c.rec):
            if x.e.adj:
                combos.add(("an", x.e.adj.en, x.e.lemma))
    elif c.ptype in ("go", "bein"):
        if c.place.e.noun is HOME and c.ptype == "go":
            p_en, p_ko, p_head = render_np(c.place, "obj")
            en += p_en
        else:
            p_en, p_ko, p_head = render_np(c.place, "obj")
            en += [W(c.prep)] + p_en
        ko_obj = p_ko + [("에", None)]
        if c.place.e.adj:
            combos.add(("an", c.place.e.adj.en, c.place.e.lemma))
    elif c.ptype == "adj":
        ko_obj = []
        if c.intens:
            wi = W(c.intens[0])
            en.append(wi)
            ko_obj.append((c.intens[1], wi))
        aw = W(c.pred.en)
        en.append(aw)
        vw_adj = aw
        combos.add(("an", c.pred.en, c.subj.e.lemma))
    elif c.ptype == "cop":
        comp = c.comp
        cm = Mention(comp)
        k_en, k_ko, k_head = render_np(cm, "obj")
        en += k_en
        ko_obj = k_ko
        if comp.adj:
            combos.add(("an", comp.adj.en, comp.lemma))
    else:  # iv
        ko_obj = []
    if c.ptype in ("tv", "iv") and c.subj.e.noun is not None and c.subj.e.noun.kind == "name":
        combos.add(("sv", c.subj.e.lemma, c.pred.base))
    if c.subj.e.adj:
        combos.add(("an", c.subj.e.adj.en, c.subj.e.lemma))
    # adjuncts
    ko_with, ko_loc = [], []
    if c.with_:
        ww = W("with")
        w_en, w_ko, w_head = render_np(c.with_, "obj")
        en += [ww] + w_en
        ko_with = w_ko + [(particle("with", w_head), None), ("함께", ww)]
        if c.with_.e.adj:
            combos.add(("an", c.with_.e.adj.en, c.with_.e.lemma))
    if c.loc:
        l_en, l_ko, l_head = render_np(c.loc, "obj")
        if c.loc.e.noun is HOME:
            en += [W("at")] + l_en
        else:
            en += [W(c.loc_prep)] + l_en
        ko_loc = l_ko + [("에서", None)]
        if c.loc.e.adj:
            combos.add(("an", c.loc.e.adj.en, c.loc.e.lemma))
    ko_time = []
    if c.time:
        tw = W(c.time[0])
        en.append(tw)
        ko_time = [(c.time[1], tw)]
    # korean clause
    ko = with_particle(s_ko, s_head, "도" if c.also else subj_kind)
    ko += ko_time
    if freq_w:
        ko.append((c.freq[1], freq_w))
    ko += ko_loc + ko_with
    if c.ptype == "adj":
        ko += ko_obj
        ko += ko_predicate(c.pred, vw_adj, nw, c.tense, c.neg, mode)
    elif c.ptype == "cop":
        ko += ko_obj
        ko += ko_copula(c.comp.ko, vw, c.tense, c.neg, mode)
    elif c.ptype == "bein":
        ko += ko_obj
        forms = {(False, "final"): ("있다", "있었다"), (False, "conn"): ("있", "있었"),
                 (True, "final"): ("없다", "없었다"), (True, "conn"): ("없", "없었")}[(bool(c.neg), mode)]
        ko.append((forms[0] if c.tense == "pres" else forms[1], vw))
    else:
        ko += ko_obj
        ko += ko_predicate(c.pred, vw, nw, c.tense, c.neg, mode)
    return en, ko, combos


def join_ending(ko, ending):
    """Append a glue ending token, fusing it with a verb stem that is itself a glue token."""
    last, w = ko[-1]
    if last in FUSE:
        return ko[:-1] + [(last + ending, w)]
    return ko + [(ending, None)]


def ko_predicate(p, vw, nw, tense, neg, mode):
    past = tense == "past"
    if not neg:
        if mode == "final":
            return [(p.ko_past if past else p.ko_pres, vw)]
        return [(p.pstem if past else p.stem, vw)]
    if p.neg:
        pres_f, past_f, pres_s, past_s = p.neg
        if mode == "final":
            return [(past_f if past else pres_f, vw)]
        return [(past_s if past else pres_s, vw)]
    out = join_ending([(p.stem, vw)], "지")
    if mode == "final":
        aux = "않았다" if past else ("않다" if p.desc else "않는다")
    else:
        aux = "않았" if past else "않"
    return out + [(aux, None)]  # an auxiliary (tense + negation), not a content word


def ko_copula(head, bw, tense, neg, mode):
    past = tense == "past"
    if not neg:
        if not past:
            return [("이다" if mode == "final" else "이", bw)]
        f = "이었" if has_batchim(head) else "였"
        return [(f + "다" if mode == "final" else f, bw)]
    out = [(particle("subj", head), None)]
    form = ("아니었" if past else "아니") + ("다" if mode == "final" else "")
    return out + [(form, bw)]


class Sentence:
    __slots__ = ("en_tokens", "en", "ko", "align", "combos")


def assemble(parts_en, ko_pairs, combos):
    """parts_en: list of W; ko_pairs: [(token, W or None)] -> Sentence (checks the tokenizer)."""
    idx = {id(w): i for i, w in enumerate(parts_en)}
    words = []
    for i, w in enumerate(parts_en):
        s = w.w
        if i == 0:
            s = s[0].upper() + s[1:]
        words.append(s)
    text = ""
    for i, (w, s) in enumerate(zip(parts_en, words)):
        if i and not w.attach and s not in (",", "."):
            text += " "
        text += s
    toks = tokenize_en(text)
    expected = [w.w.lower() for w in parts_en]
    if toks != expected:
        raise AssertionError(f"tokenizer mismatch: {text!r}: {toks} != {expected}")
    s = Sentence()
    s.en, s.en_tokens = text, toks
    s.ko = [t for t, _ in ko_pairs]
    s.align = [idx[id(w)] if w is not None else -1 for _, w in ko_pairs]
    s.combos = combos
    return s


# ----------------------------------------------------------------------------------------------
# Random generation
# ----------------------------------------------------------------------------------------------


class Gen:
    def __init__(self, rng):
        self.rng = rng
        L = LEX
        self.names, self.people, self.animals = L["names"], L["people"], L["animals"]
        self.things, self.places = L["things"], L["places"]
        self.objects = L["objects"]
        self.adjs = L["adj"]
        self.roles = [p for p in self.people if p.role]
        self.second_clause = False

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def chance(self, p):
        return self.rng.random() < p

    # --- noun phrases -------------------------------------------------------------------------
    def adj_for(self, tags):
        cands = [a for a in self.adjs if a.tags & tags]
        return self.pick(cands) if cands else None

    def noun_entity(self, noun, adj_p=0.2, allow_det=True):
        r = self.rng.random
        if noun.kind == "name" or noun.proper:
            return Entity(noun)
        if "P" in noun.tags:
            number = "pl" if (noun.en_pl and r() < 0.25) else "sg"
        elif noun.en_sg is None:
            number = "pl"
        elif noun.en_sg == noun.en_pl:
            number = "sg"  # "the sheep" / "the fish": keep the number recoverable
        elif noun.en_pl is None:
            number = "sg"  # mass
        else:
            number = "pl" if r() < 0.3 else "sg"
        mass = "P" not in noun.tags and noun.en_pl is None
        if "L" in noun.tags:
            det = self.rng.choices(["the", "my"], [88, 12])[0]
        elif number == "sg" and not mass:
            det = self.rng.choices(["the", "a", "my"], [52, 33, 15])[0]
        else:
            det = self.rng.choices([None, "the", "my"], [42, 43, 15])[0]
        if noun.lemma in ("mother", "father", "grandmother", "grandfather", "uncle", "aunt") and det == "a":
            det = "my"
        adj = intens = None
        if "L" in noun.tags:
            adj_p = adj_p / 3
        if r() < adj_p:
            adj = self.adj_for(noun.tags)
            if adj and r() < 0.1:
                intens = self.pick(INTENSIFIERS)
        return Entity(noun, number, det, adj, intens)

    def person(self, pron_p=0.12):
        r = self.rng.random()
        if r < pron_p:
            if self.second_clause:  # he / she / they in clause 2 always refer back (see refer())
                return Entity(pron=self.rng.choices(["I", "you", "we"], [30, 20, 15])[0])
            return Entity(pron=self.rng.choices(["I", "you", "we", "he", "she", "they"], [30, 20, 15, 10, 10, 8])[0])
        if r < pron_p + 0.5:
            return Entity(self.pick(self.names))
        return self.noun_entity(self.pick(self.people))

    def entity_with_tags(self, tags, pron_p=0.08):
        """A fresh entity whose noun has one of `tags` (P = person, A = animal, ...)."""
        if "P" in tags and self.rng.random() < 0.45:
            return self.person(pron_p)
        cands = [n for n in self.objects if n.tags & tags and "P" not in n.tags]
        if "L" in tags or "IN" in tags:
            cands += [p for p in self.places if p.tags & tags and "PR" in p.tags]
        if "P" in tags:
            cands += self.people
        if not cands:
            return self.person(pron_p)
        return self.noun_entity(self.pick(cands))

    def place(self):
        if self.rng.random() < 0.08:
            return Entity(HOME)
        return self.noun_entity(self.pick(self.places), adj_p=0.15)

    # --- clauses ------------------------------------------------------------------------------
    def clause(self, subj_m, first, want_person_obj=False, avoid=()):
        """Build a clause for the subject mention subj_m."""
        g, r = self.rng, self.rng.random
        e = subj_m.e
        tags = e.tags
        tense = "past" if r() < 0.5 else "pres"
        neg = r() < 0.18
        c = Clause(subj=subj_m, tense=tense, neg=neg)
        c.neg_style = "not" if r() < 0.35 else "nt"
        if "P" in tags:
            ptype = g.choices(["tv", "iv", "adj", "cop", "go", "dtv", "bein"], [40, 13, 15, 9, 7, 8, 5])[0]
        elif "A" in tags:
            ptype = g.choices(["tv", "iv", "adj", "go", "bein"], [35, 30, 25, 5, 5])[0]
        else:
            ptype = g.choices(["adj", "bein"], [80, 20])[0]
        if "L" in tags:
            ptype = "adj"
        if want_person_obj and "P" in tags:
            ptype = g.choices(["tv", "dtv"], [85, 15])[0]
        c.ptype = ptype
        if ptype == "tv":
            verbs = [v for v in LEX["tv"] if v.subj & tags]
            if want_person_obj:
                verbs = [v for v in verbs if "P" in v.obj]
            v = self.pick(verbs)
            if v.base == "read" and e.person != "3s" and not neg:
                c.tense = "past"  # "I read" is ambiguous; keep the mapping deterministic
            c.pred = v
            if want_person_obj:
                oe = self.person(pron_p=0.0)
                while oe.pron is None and oe.noun.kind != "name" and r() < 0.4:
                    oe = self.person(pron_p=0.0)
            else:
                oe = self.entity_with_tags(v.obj)
            if oe.pron in ("I", "we") and e.pron in ("I", "we"):
                oe = Entity(self.pick(self.names))
            c.obj = Mention(oe)
        elif ptype == "dtv":
            v = self.pick([v for v in LEX["dtv"] if v.subj & tags])
            c.pred = v
            c.rec = Mention(self.person(pron_p=0.06) if not ("A" in v.rec and r() < 0.2) else self.entity_with_tags({"A"}))
            if c.rec.e.pron in ("I", "we") and e.pron in ("I", "we"):
                c.rec = Mention(Entity(self.pick(self.names)))
            c.obj = Mention(self.entity_with_tags(v.obj - {"P", "A"}))
            c.dt_order = "to" if r() < 0.6 else "double"
        elif ptype == "iv":
            c.pred = self.pick([v for v in LEX["iv"] if v.subj & tags])
        elif ptype == "go":
            c.pred = self.pick(LEX["go"])
            c.place = Mention(self.place())
            c.prep = "to"
        elif ptype == "bein":
            c.place = Mention(self.place())
            c.prep = "in" if r() < 0.6 or c.place.e.noun.proper else "at"
            if c.place.e.noun is HOME:
                c.prep = "at"
        elif ptype == "adj":
            c.pred = self.adj_for(tags)
            if c.pred is None:
                c.pred = self.pick(self.adjs)
            if not neg and r() < 0.15:
                c.intens = self.pick(INTENSIFIERS)
        elif ptype == "cop":
            role = self.pick(self.roles)
            number = "sg" if e.person in ("1s", "3s") else "pl"
            if e.pron == "you":
                number = "sg" if r() < 0.7 else "pl"
            adj = self.adj_for({"P"}) if r() < 0.35 else None
            intens = self.pick(INTENSIFIERS) if adj and r() < 0.15 else None
            det = ("a" if r() < 0.85 else "the") if number == "sg" else (None if r() < 0.85 else "the")
            c.comp = Entity(role, number, det, adj, intens)
        # adjuncts
        action = ptype in ("tv", "iv", "dtv")
        if action and r() < 0.15:
            c.loc = Mention(self.place())
            c.loc_prep = "in" if r() < 0.6 or c.loc.e.noun.proper else "at"
        if ptype in ("tv", "iv", "go") and "P" in tags and r() < 0.08:
            c.with_ = Mention(self.person(pron_p=0.05) if r() < 0.85 else self.entity_with_tags({"A"}))
            if c.with_.e.pron in ("I", "we") and e.pron in ("I", "we"):
                c.with_ = Mention(Entity(self.pick(self.names)))
        if r() < 0.08:
            t = self.pick(TIMES)
            if t[2] == "past" and c.tense != "past":
                c.tense = "past"
            c.time = t
        elif c.tense == "pres" and not c.neg and ptype != "cop" and r() < 0.06:
            c.freq = self.pick(FREQUENCY)
        if not c.neg and r() < 0.04:
            c.also = True
        # contraction of "be" after a pronoun subject
        if ptype in ("adj", "cop", "bein") and c.tense == "pres":
            is_pron = subj_m.form == "pron" or (subj_m.e.pron is not None)
            c.contract = is_pron and r() < 0.5
        if c.ptype == "tv" and c.pred.base == "read" and e.person != "3s" and not c.neg:
            c.tense = "past"
        return c

    def participants(self, c):
        out = [c.subj]
        for m in (c.obj, c.rec, c.with_, c.place, c.loc):
            if m is not None:
                out.append(m)
        return [m.e for m in out if m.e.noun is not HOME and m.e.person.startswith("3")]

    def refer(self, target, cands, case):
        """Mention of `target` (an entity of clause 1) in clause 2: a pronoun if exactly one
        candidate agrees with it, else the bare noun again."""
        ref = target.ref
        prons = [p for p, ok in PRONOUN_MATCH.items() if ref in ok]
        self.rng.shuffle(prons)
        for p in prons:
            matching = [x for x in cands if x.ref in PRONOUN_MATCH[p]]
            if len(matching) == 1 and matching[0] is target:
                if self.rng.random() < 0.9:
                    return Mention(target, "pron", p)
                break
        if target.pron:  # a generic pronoun can only be referred to by a pronoun
            return None
        return Mention(target, "repeat")

    def sentence(self):
        g, r = self.rng, self.rng.random
        self.second_clause = False
        conj = g.choices([None, "and", "but", "because", "so"], [34, 19, 21, 15, 11])[0]
        # clause 1
        rr = r()
        if rr < 0.72:
            s1 = self.person()
        elif rr < 0.86:
            s1 = self.noun_entity(self.pick(self.animals))
        elif rr < 0.95:
            s1 = self.noun_entity(self.pick(self.things))
        else:
            s1 = self.noun_entity(self.pick(self.places), adj_p=0.1)
        want_pobj = conj is not None and "P" in s1.tags and r() < 0.5
        c1 = self.clause(Mention(s1), True, want_person_obj=want_pobj)
        if conj is None:
            en, ko, combos = realize_clause(c1, "final", "topic")
            period = r() < 0.7
            parts = en + ([W(".")] if period else [])
            return assemble(parts, ko + [(".", None)], combos)
        # clause 2
        self.second_clause = True
        cands = self.participants(c1)
        subj2 = None
        if cands and r() < 0.65:
            weights = [3 if "P" in x.tags else 1 for x in cands]
            target = g.choices(cands, weights)[0]
            subj2 = self.refer(target, cands, "subj")
        if subj2 is None:
            rr = r()
            if rr < 0.75:
                e2 = self.person()
            elif rr < 0.9:
                e2 = self.noun_entity(self.pick(self.animals))
            else:
                e2 = self.noun_entity(self.pick(self.things))
            subj2 = Mention(e2)
        c2 = self.clause(subj2, False)
        # clause-2 object / company referring back to clause 1
        others = [x for x in cands if x is not subj2.e]
        if c2.ptype == "tv" and others and r() < 0.45:
            ok = [x for x in others if x.tags & c2.pred.obj]
            if ok:
                m = self.refer(self.pick(ok), cands, "obj")
                if m is not None:
                    c2.obj = m
        comma = r() < 0.5
        period = r() < 0.7
        if conj in ("and", "but"):
            en1, ko1, cb1 = realize_clause(c1, "conn", "topic")
            en2, ko2, cb2 = realize_clause(c2, "final", "topic")
            ko = join_ending(ko1, "고" if conj == "and" else "지만")
            if comma:
                ko.append((",", None))
            parts = en1 + ([W(",")] if comma else []) + [W(conj)] + en2
            ko = ko + ko2
        elif conj == "because":
            en1, ko1, cb1 = realize_clause(c1, "final", "topic")
            en2, ko2, cb2 = realize_clause(c2, "conn", "subj")
            cw = W("because")
            parts = en1 + [cw] + en2
            ko = join_ending(ko2, "기") + [("때문에", cw)] + ko1
        else:  # so
            en1, ko1, cb1 = realize_clause(c1, "conn", "subj")
            en2, ko2, cb2 = realize_clause(c2, "final", "topic")
            cw = W("so")
            parts = en1 + ([W(",")] if comma else []) + [cw] + en2
            ko = join_ending(ko1, "기") + [("때문에", cw)] + ko2
        if period:
            parts = parts + [W(".")]
        return assemble(parts, ko + [(".", None)], cb1 | cb2)


# ----------------------------------------------------------------------------------------------
# Fixed sentences and data set assembly
# ----------------------------------------------------------------------------------------------


def _name(en):
    return next(n for n in LEX["names"] if n.en_sg == en)


def _noun(lemma):
    return next(n for n in LEX["people"] + LEX["things"] if n.lemma == lemma)


def _verb(kind, base, ko_pres=None):
    return next(v for v in LEX[kind] if v.base == base and (ko_pres is None or v.ko_pres == ko_pres))


def seed_sentence(period=False):
    """Emma hates games, but she's a great friend -> 엠마 는 게임 을 싫어하 지만 , 엠마 는 훌륭한 친구 이다 ."""
    emma = Entity(_name("Emma"))
    games = Entity(_noun("game"), "pl", None)
    c1 = Clause(subj=Mention(emma), ptype="tv", pred=_verb("tv", "hate"), obj=Mention(games), tense="pres", neg=False)
    great = next(a for a in LEX["adj"] if a.en == "great")
    c2 = Clause(subj=Mention(emma, "pron", "she"), ptype="cop", comp=Entity(_noun("friend"), "sg", "a", great),
                tense="pres", neg=False, contract=True)
    en1, ko1, cb1 = realize_clause(c1, "conn", "topic")
    en2, ko2, cb2 = realize_clause(c2, "final", "topic")
    ko = join_ending(ko1, "지만") + [(",", None)] + ko2 + [(".", None)]
    parts = en1 + [W(","), W("but")] + en2 + ([W(".")] if period else [])
    return assemble(parts, ko, cb1 | cb2)


def carry_sentence(a, b, period=True):
    """The brother carried the sister -> 형 은 누나 를 업었다 ."""
    c = Clause(subj=Mention(Entity(_noun(a), "sg", "the")), ptype="tv", pred=_verb("tv", "carry", "업는다"),
               obj=Mention(Entity(_noun(b), "sg", "the")), tense="past", neg=False)
    en, ko, cb = realize_clause(c, "final", "topic")
    return assemble(en + ([W(".")] if period else []), ko + [(".", None)], cb)


def fixed_sentences():
    out = [seed_sentence(False), seed_sentence(True)]
    for a, b in (("brother", "sister"), ("sister", "brother")):
        out += [carry_sentence(a, b, True), carry_sentence(a, b, False)]
    return out


def key(s):
    """Identity of a sentence for train/test disjointness: its tokens without , and ."""
    return " ".join(t for t in s.en_tokens if t not in (",", "."))


def reserved_combos(seed):
    """Combinations that only the test set may contain."""
    rng = random.Random(seed * 7919 + 17)
    adj_noun, verb_obj, name_verb = [], [], []
    nouns = [n for n in LEX["people"] + LEX["animals"] + LEX["things"] if not n.proper]
    for a in LEX["adj"]:
        for n in nouns:
            if a.tags & n.tags and (a.en, n.lemma) != ("great", "friend"):
                adj_noun.append(("an", a.en, n.lemma))
    for v in LEX["tv"]:
        for n in LEX["objects"]:
            if v.obj & n.tags and "P" not in n.tags:
                verb_obj.append(("vo", v.base, n.lemma))
    for nm in LEX["names"]:
        for v in LEX["tv"] + LEX["iv"]:
            name_verb.append(("sv", nm.lemma, v.base))
    keep = {("vo", "hate", "game"), ("vo", "carry", "sister"), ("vo", "carry", "brother"), ("sv", "emma", "hate")}
    verb_obj = sorted(set(verb_obj) - keep)
    name_verb = sorted(set(name_verb) - keep)
    adj_noun = sorted(set(adj_noun))
    res = set(rng.sample(adj_noun, 40)) | set(rng.sample(verb_obj, 40)) | set(rng.sample(name_verb, 30))
    return res


def to_tsv_line(s):
    return f"{s.en}\t{' '.join(s.ko)}\t{' '.join(map(str, s.align))}\n"


def write_tsv(path, sents):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("en\tko\talign\n")
        for s in sents:
            f.write(to_tsv_line(s))


def read_tsv(path):
    """-> list of (english text, korean tokens, alignment)"""
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        assert header == ["en", "ko", "align"], header
        for line in f:
            en, ko, al = line.rstrip("\n").split("\t")
            rows.append((en, ko.split(" "), [int(x) for x in al.split(" ")]))
    return rows


def build(seed=1, n_train=200000, n_test=1300, n_dev=1000, novel_frac=0.5, log=print):
    rng = random.Random(seed)
    gen = Gen(rng)
    reserved = reserved_combos(seed)
    fixed = fixed_sentences()
    fixed_keys = {key(s) for s in fixed}
    train, seen = list(fixed), set(fixed_keys)
    novel, plain, held_keys = [], [], set()
    n_novel_total = int((n_test + n_dev) * novel_frac)
    n_plain_total = (n_test + n_dev) - n_novel_total
    attempts = 0
    # held-out sentences first (their keys are then excluded from training)
    while len(novel) < n_novel_total or len(plain) < n_plain_total:
        attempts += 1
        s = gen.sentence()
        k = key(s)
        if k in held_keys or k in fixed_keys:
            continue
        if s.combos & reserved:
            if len(novel) < n_novel_total:
                novel.append(s)
                held_keys.add(k)
        elif len(plain) < n_plain_total and rng.random() < 0.05:
            plain.append(s)
            held_keys.add(k)
    while len(train) < n_train:
        s = gen.sentence()
        k = key(s)
        if k in seen or k in held_keys or s.combos & reserved:
            continue
        seen.add(k)
        train.append(s)
    rng.shuffle(train)
    n_novel_test = int(n_test * novel_frac)
    test = novel[:n_novel_test] + plain[: n_test - n_novel_test]
    dev = novel[n_novel_test:] + plain[n_test - n_novel_test:]
    rng.shuffle(test)
    rng.shuffle(dev)
    log(f"held-out sampling: {attempts} attempts; train {len(train)}, dev {len(dev)}, test {len(test)}")
    return train, dev, test, reserved


def check(train, dev, test):
    """Sanity checks on the generated data."""
    tk = {key(s) for s in train}
    for s in dev + test:
        assert key(s) not in tk
    assert not ({s.en for s in train} & {s.en for s in test})
    src_vocab = {t for s in train for t in s.en_tokens}
    tgt_vocab = {t for s in train for t in s.ko}
    for s in dev + test:
        miss = [t for t in s.en_tokens if t not in src_vocab] + [t for t in s.ko if t not in tgt_vocab]
        assert not miss, (s.en, miss)
    for s in train + dev + test:
        assert len(s.ko) == len(s.align)
        for t, a in zip(s.ko, s.align):
            if a >= 0:
                assert t not in GLUE_SET or t in ("이다", "였다", "이었다", "였", "이었", "이"), (s.en, t)
        assert len(s.en_tokens) < 63 and len(s.ko) < 63
    words = {t for t in src_vocab if t[0].isalpha()}
    return len(words), len(src_vocab), len(tgt_vocab)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n-train", type=int, default=200000)
    ap.add_argument("--n-test", type=int, default=1300)
    ap.add_argument("--n-dev", type=int, default=1000)
    ap.add_argument("--out", default=os.path.join(here, "out"))
    ap.add_argument("--test", default=os.path.join(here, "..", "tests", "data", "en-ko-test.tsv"))
    ap.add_argument("--show", type=int, default=0, help="print N random training sentences")
    a = ap.parse_args(argv)
    train, dev, test, reserved = build(a.seed, a.n_train, a.n_test, a.n_dev)
    n_words, n_src, n_tgt = check(train, dev, test)
    write_tsv(os.path.join(a.out, "train.tsv"), train)
    write_tsv(os.path.join(a.out, "dev.tsv"), dev)
    write_tsv(a.test, test)
    with open(os.path.join(a.out, "reserved.txt"), "w", encoding="utf-8") as f:
        for r in sorted(reserved):
            f.write(" ".join(r) + "\n")
    print(f"english words {n_words}, source vocab {n_src}, target vocab {n_tgt}, names {len(LEX['names'])}")
    print(f"wrote {a.out}/train.tsv, {a.out}/dev.tsv, {a.test} ({os.path.getsize(a.test)} bytes)")
    for s in train[: a.show]:
        print(s.en, "|", detokenize_ko(s.ko))


if __name__ == "__main__":
    sys.exit(main())
