// The lesson merge's one similarity function on paraphrases in several languages, and the merge plan it drives.
import { describe, expect, it } from "vitest";
import { LESSON_SAME_SIMILARITY, lessonSimilarity, planLessonMerge, type MergeableLesson } from "./lesson-merge.ts";

const PARAPHRASES: [string, string, string][] = [
  ["en", "The update dialog hides the search field.", "the search field is hidden by the Update dialog"],
  ["en", "Open the results page from the search bar.", "From the search bar, open the results page"],
  ["de", "Der Update-Dialog verdeckt das Suchfeld.", "Das Suchfeld wird vom Update-Dialog verdeckt"],
  ["fr", "La boîte de mise à jour cache le champ de recherche.", "Le champ de recherche est caché par la boîte de mise à jour"],
  ["es", "El diálogo de actualización oculta el campo de búsqueda.", "El campo de búsqueda se oculta por el diálogo de actualización"],
  ["zh", "更新对话框挡住了搜索框。", "搜索框被更新对话框挡住了"],
  ["zh", "点击搜索按钮打开结果页", "打开结果页：点击搜索按钮"],
];
const UNRELATED: [string, string][] = [
  ["The update dialog hides the search field.", "Set the alarm time before saving."],
  ["Der Update-Dialog verdeckt das Suchfeld.", "Der Warenkorb zeigt den Preis erst nach dem Laden."],
  ["更新对话框挡住了搜索框。", "闹钟的时间要在保存前设置"],
  ["Tap Buy now on the product page.", "Scroll the feed to find older posts."],
];

describe("lessonSimilarity", () => {
  it.each(PARAPHRASES)("%s: a paraphrase is alike (%s / %s)", (_lang, a, b) => {
    expect(lessonSimilarity(a, b)).toBeGreaterThanOrEqual(LESSON_SAME_SIMILARITY);
  });
  it.each(UNRELATED)("different lessons are not (%s / %s)", (a, b) => {
    expect(lessonSimilarity(a, b)).toBeLessThan(LESSON_SAME_SIMILARITY / 2);
  });
  it("ignores case, spacing and punctuation; an empty text is like nothing", () => {
    expect(lessonSimilarity("Search  from the RESULTS page!", "search from the results page")).toBe(1);
    expect(lessonSimilarity("", "search")).toBe(0);
  });
});

const at = (m: number) => new Date(Date.UTC(2026, 11, 2, 12, m));
const lesson = (id: string, kind: MergeableLesson["kind"], text: string, m: number): MergeableLesson => ({ id, kind, text, runId: `run_${id}`, runIds: [`run_${id}`], at: at(m) });

describe("planLessonMerge", () => {
  it("folds paraphrases into the oldest, naming every run; keeps different lessons apart", () => {
    const plan = planLessonMerge([
      lesson("b", "failed", "the search field is hidden by the Update dialog", 2),
      lesson("a", "failed", "The update dialog hides the search field.", 1),
      lesson("c", "worked", "Set the alarm time before saving.", 3),
      lesson("d", "failed", "搜索框被更新对话框挡住了", 4),
      lesson("e", "failed", "更新对话框挡住了搜索框。", 5),
    ]);
    expect(plan.folded).toEqual([{ id: "b", into: "a" }, { id: "e", into: "d" }]);
    expect(plan.contradicted).toEqual([]);
    expect(plan.kept).toEqual([
      { id: "a", runIds: ["run_a", "run_b"], runId: "run_b", at: at(2), changed: true },
      { id: "c", runIds: ["run_c"], runId: "run_c", at: at(3), changed: false },
      { id: "d", runIds: ["run_d", "run_e"], runId: "run_e", at: at(5), changed: true },
    ]);
  });

  it("a contradiction is resolved by the later evidence, in any language, by kind or by negation", () => {
    const plan = planLessonMerge([
      lesson("old", "worked", "Tapping Buy now opens the cart.", 1),
      lesson("new", "worked", "Tapping Buy now does not open the cart.", 2),
      lesson("zh1", "worked", "点击搜索按钮会打开结果页", 3),
      lesson("zh2", "worked", "点击搜索按钮不会打开结果页", 4),
      lesson("de1", "failed", "Die Suche öffnet sich vom Feed aus.", 6),
      lesson("de2", "worked", "Die Suche öffnet sich vom Feed aus.", 5),
    ]);
    expect(plan.contradicted).toEqual([{ id: "old", by: "new" }, { id: "zh1", by: "zh2" }, { id: "de2", by: "de1" }]);
    expect(plan.kept.map((k) => k.id)).toEqual(["new", "zh2", "de1"]);
    // The same statement made again by a later run is folded, not contradicted, also when both are negated.
    expect(planLessonMerge([lesson("x", "failed", "Search from the feed does not open the results.", 1), lesson("y", "failed", "Search from the feed doesn't open the results", 2)]).folded).toEqual([{ id: "y", into: "x" }]);
  });
});
