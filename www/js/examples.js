// The "Try these" sentences under the lab's sentence box: one click sets the sentence and
// translates. Each has a short label, in English and Korean, of what it shows off. Every one is
// in the demo model's grammar (train/corpus.py); e2e checks that each translates cleanly.

export const EXAMPLES = [
  { text: "Emma hates games, but she's a great friend.", label: { en: "pronoun", ko: "대명사" } },
  { text: "The animal didn't cross the street because it was too tired.", label: { en: "it: animal or street?", ko: "it: 동물일까, 길일까?" } },
  { text: "The animal didn't cross the street because it was too wide.", label: { en: "it: now the street", ko: "it: 이번에는 길" } },
  { text: "Where is the library?", label: { en: "question", ko: "의문문" } },
  { text: "Please close the door.", label: { en: "request", ko: "부탁" } },
  { text: "My friend lives in Seoul.", label: { en: "place", ko: "장소" } },
  { text: "The cat is sleeping on the sofa.", label: { en: "-ing now", ko: "진행형" } },
  { text: "Tom called Mary because he missed her.", label: { en: "two people, two pronouns", ko: "두 사람, 대명사 둘" } },
  { text: "I will visit my grandmother tomorrow.", label: { en: "future", ko: "미래" } },
  { text: "She said that her brother was taller than her.", label: { en: "reported speech", ko: "간접 화법" } },
  { text: "If it rains tomorrow, we will stay at home.", label: { en: "two clauses, reordered", ko: "두 절, 어순 바꾸기" } },
  { text: "Zorblat ate my sandwich.", label: { en: "unknown word copied", ko: "모르는 단어 옮기기" } },
];

/** The label of an example in `lang` (English when there is none). */
export function exampleLabel(example, lang) {
  return example.label[lang] || example.label.en;
}
