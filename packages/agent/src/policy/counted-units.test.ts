// An app's own currency is found by the screen's structure (a word a number counts on two lines), in any script,
// while measurement units and small counts are not; a committing control on such a screen inherits the money.
import { describe, expect, it } from "vitest";
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { countedUnit } from "./counted-units.ts";
import { decidePermission } from "./index.ts";

const node = (over: Partial<UiNode>): UiNode => ({
  index: 0, text: "", resourceId: "", className: "android.widget.Button", packageName: "com.x", contentDesc: "",
  checkable: false, checked: false, clickable: true, enabled: true, focusable: false, focused: false, scrollable: false,
  longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 100, bottom: 100 }, children: [], ...over,
});
const text = (t: string) => node({ text: t, className: "android.widget.TextView", clickable: false });
const screen = (children: UiNode[]) => node({ className: "android.widget.FrameLayout", clickable: false, bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children });
const click: Action = { type: "click", x: 500, y: 500 };

describe("a unit counted on two lines is the screen's currency", () => {
  it.each([
    [["Pacote Elite · 1.299 diamantes", "Saldo: 1.520 diamantes"], "diamantes"],
    [["বাজি: ৫,০০০ কয়েন", "জিতলে পাবেন ১০,০০০ কয়েন"], "কয়েন"],
    [["สกิน Valhein · 899 คูปอง", "คูปองของคุณ 1,020"], "คูปอง"],
    [["بدلة الصحراء · ٦٠٠ شدة", "رصيدك: ٨٤٠ شدة"], "شدة"],
    [["성장 패키지 1,200 다이아", "보유 다이아 3,400"], "다이아"],
    [["Giriş: 500 jeton", "Ödül: 2.000 jeton"], "jeton"],
  ])("%j counts %s", (texts, unit) => {
    expect(countedUnit(texts)?.unit).toBe(unit);
  });

  it("measurement units (CLDR's words, any language), a single line and small counts are no currency", () => {
    expect(countedUnit(["12 Min. (5,3 km)", "18 Min. (7,1 km)"])).toBeNull();
    expect(countedUnit(["Использовано 12,4 ГБ", "из 150 ГБ"])).toBeNull();
    expect(countedUnit(["15 minutes", "120 minutes"])).toBeNull();
    expect(countedUnit(["Akku 80 %", "Ladung 100 %"])).toBeNull();
    expect(countedUnit(["1.299 diamantes"])).toBeNull();
    expect(countedUnit(["3 photos", "12 photos"])).toBeNull();
    expect(countedUnit(["Confirm UberX", "Visa •••• 6467"])).toBeNull();
  });

  it("a committing control on such a screen commits money; the same screen without the second count does not", () => {
    const confirm = node({ text: "Confirmar" });
    const decided = (lines: string[]) => decidePermission(click, { target: confirm, tree: screen([...lines.map(text), confirm]) });
    expect(decided(["Loja", "Pacote Elite · 1.299 diamantes", "Saldo: 1.520 diamantes"])).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "pane.counted-unit" });
    expect(decided(["Loja", "Pacote Elite · 1.299 diamantes"]).tier).toBe("normal");
  });
});

describe("a Chinese or Japanese counter after two numbers in the hundreds counts the screen's currency", () => {
  it.each([
    [["ジュエルを1500個使用して10回ガチャを引きますか？", "所持ジュエル　有償 3,200個 / 無償 0個"], "個"],
    [["消耗1600颗原石进行十连祈愿？", "当前拥有原石：3,280颗"], "颗"],
    [["スタージュエルを2500個消費します。", "所持数 4,100個"], "個"],
  ])("%j counts %s", (texts, unit) => {
    expect(countedUnit(texts)?.unit).toBe(unit);
  });
  it.each([[["共 128 个笔记", "已选 0 个"]], [["ティッシュ 5箱 × 2", "お届け予定 12月4日"]]])("%j counts nothing", (texts) => {
    expect(countedUnit(texts)).toBeNull();
  });
});
