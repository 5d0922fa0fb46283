// The Korean terms the lab (js/i18n.js) and the lesson (js/lesson/strings.js) share: one word
// per concept, so a reader who moves between the two pages meets the same vocabulary.
// Both string tables build their Korean text from TERMS; AVOID lists the variants that were
// used before and must not come back (tests/e2e/lesson-honest.spec.js checks both tables).
//
// | concept          | Korean       | not               |
// |------------------|--------------|-------------------|
// | layer            | 층           | 레이어            |
// | cross-attention  | 교차 어텐션  | 크로스 어텐션     |
// | "Try this:" label| 해 보기      | 해 보세요 (label) |
// | self-attention   | 셀프 어텐션  | 자기 어텐션       |
// | head             | 헤드         |                   |
// | (attention) map  | 지도         | 히트맵            |
//
// Numbered layers and heads read "{n}층" and "{n}번 헤드" ("2층 3번 헤드").

export const TERMS = {
  layer: "층",
  crossAttention: "교차 어텐션",
  tryThis: "해 보기",
  selfAttention: "셀프 어텐션",
  head: "헤드",
  map: "지도",
};

/** Variants that must not appear in any Korean string of either table. */
export const AVOID = ["레이어", "크로스 어텐션", "해 보세요:", "자기 어텐션"];

/**
 * Variants the lab's table (js/i18n.js) must not use (tests/e2e/i18n.spec.js). The lesson's
 * strings still say 히트맵 once (strings.js "p6.how"); once they say 지도 too, this joins AVOID.
 */
export const AVOID_IN_LAB = ["히트맵"];
