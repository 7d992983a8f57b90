// Endings: cancelling or leaving a thing a person holds (an order, a booking, a ride, a subscription, a group) is
// destructive in every language, whether the label says it or the dialog it confirms asks it; "Cancel" alone, or
// cancelling what is not held (a pending code, a download), still backs out.
import { describe, expect, it } from "vitest";
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { decidePermission } from "./index.ts";
import { LEXICON } from "./lexicon.ts";
import { prepare, splitList } from "./match.ts";
import { compiledWords, findEnding } from "./wordsets.ts";

const node = (over: Partial<UiNode>): UiNode => ({
  index: 0, text: "", resourceId: "", className: "android.widget.Button", packageName: "com.x", contentDesc: "",
  checkable: false, checked: false, clickable: true, enabled: true, focusable: false, focused: false, scrollable: false,
  longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 100, bottom: 100 }, children: [], ...over,
});
const text = (t: string) => node({ text: t, className: "android.widget.TextView", clickable: false });
const button = (t: string, id = "") => node({ text: t, resourceId: id });
const screen = (children: UiNode[]) => node({ className: "android.widget.FrameLayout", clickable: false, bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children });
const dialog = (children: UiNode[]) => node({ className: "android.widget.FrameLayout", clickable: false, resourceId: "android:id/parentPanel", children });
const click: Action = { type: "click", x: 500, y: 500 };
const LANGS = ["en", "zh", "ja", "ko", "de", "fr", "es", "pt", "ru", "it", "tr", "vi", "id", "th", "pl", "nl", "sv", "ar", "hi", "bn", "fa", "he", "uk", "ms"];
const first = (list: string | undefined) => splitList(list)[0]!.replace(/[*^]/g, "");

describe("an ending is destructive", () => {
  it.each(LANGS)("%s: the language has cancelling and leaving verbs, things held, and a yes; together they end", (lang) => {
    const l = LEXICON[lang]!;
    for (const list of [l.cancelling, l.leaving, l.held, l.affirmative]) expect(splitList(list).length, lang).toBeGreaterThan(0);
    const w = compiledWords({});
    // A stem ("storn*", "заказ*") is matched by the words it begins, so an inflected form is written out.
    const thing = first(l.held) + (splitList(l.held)[0]!.endsWith("*") ? "a" : "");
    for (const verb of [first(l.cancelling), first(l.leaving)]) {
      const v = splitList(l.cancelling)[0]!.endsWith("*") && verb === first(l.cancelling) ? `${verb}ar` : verb;
      expect(findEnding(w, prepare(`${v} ${thing}`)), `${lang} ${v} ${thing}`).not.toBeNull();
    }
    expect(findEnding(w, prepare(thing)), `${lang} ${thing} alone`).toBeNull();
  });

  it("a label that ends what it names gates, in any word order", () => {
    for (const label of ["Annuler le rendez-vous", "Exit group", "Gruptan çık", "注文をキャンセル", "예약 취소", "Salir del grupo", "Termin absagen", "Anuluj rezerwację"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("·"), target]) }), label).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
  });

  it("a neutral or yes-prefixed button confirms the ending its dialog asks", () => {
    const da = button("Да");
    expect(decidePermission(click, { target: da, tree: screen([dialog([text("Отменить заказ?"), text("Отменённый заказ нельзя восстановить"), button("Нет"), da])]) })).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "pane.inherit" });
    const yes = button("हाँ, रद्द करें");
    expect(decidePermission(click, { target: yes, tree: screen([dialog([text("राइड रद्द करें?"), button("नहीं"), yes])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    // Bengali puts the confirming verb after the cancelling word: it confirms the cancelling the screen names.
    const confirm = button("বাতিল নিশ্চিত করুন");
    expect(decidePermission(click, { target: confirm, tree: screen([text("অর্ডার #৬০১২৩৪৫৬৭৮"), text("অর্ডার বাতিলের কারণ: মত পরিবর্তন"), confirm]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
  });

  it("Cancel alone, a negated ending, keeping, and cancelling what is not held still back out", () => {
    const dlg = (label: string) => {
      const target = button(label);
      return { target, tree: screen([dialog([text("Cancel order?"), target, button("Yes")])]) };
    };
    for (const label of ["Cancel", "Не отменять заказ", "Keep order", "Abbrechen", "キャンセル", "Cancel download", "Anuluj kod"])
      expect(decidePermission(click, dlg(label)), label).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });

  it("ending a membership or plan is an ending too; keeping it, verb last in German and Dutch, backs out", () => {
    const dlg = (title: string, label: string, other: string) => {
      const target = button(label);
      return { target, tree: screen([dialog([text(title), button(other), target])]) };
    };
    expect(decidePermission(click, dlg("End your membership?", "End membership", "Keep membership"))).toMatchObject({ tier: "high_risk", kind: "destructive" });
    expect(decidePermission(click, dlg("Lidmaatschap stopzetten?", "Ja", "Nee"))).toMatchObject({ tier: "high_risk", kind: "destructive" });
    for (const [title, label] of [["Lidmaatschap stopzetten?", "Lid blijven"], ["Mitgliedschaft beenden?", "Mitglied bleiben"]] as const)
      expect(decidePermission(click, dlg(title, label, "Beenden")), label).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });

  it("a dialog that asks to cancel without naming what ends the thing held its other lines or the screen behind name", () => {
    const ask = (title: string, question: string, yes: string, no: string) => {
      const target = button(yes);
      return decidePermission(click, { target, tree: screen([text(title), dialog([text(question), button(no), target])]) });
    };
    for (const [title, question, yes, no] of [
      ["Pedido #4821 · Em preparo", "Quer mesmo cancelar?", "Sim", "Voltar"],
      ["Bestellung #88123", "Wirklich stornieren?", "Ja", "Zurück"],
      ["Siparişim", "İptal etmek istediğine emin misin?", "Evet", "Vazgeç"],
      ["Chuyến đi của bạn", "Bạn có chắc muốn hủy không?", "Có", "Không"],
      ["অর্ডার #১৭৩৮২৯৪০", "আপনি কি অর্ডারটি বাতিল করতে চান?", "হ্যাঁ", "না"],
    ] as const)
      expect(ask(title, question, yes, no), question).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "pane.ending" });
    // Cancelling what is not held, or with nothing held around it, ends nothing.
    expect(ask("Mis pedidos", "¿Cancelar la búsqueda?", "Sí", "No").tier).toBe("normal");
    expect(ask("Downloads", "Cancel?", "Yes", "No").tier).toBe("normal");
  });

  it("a button naming the thing another button of its sheet ends, without ending it, keeps it", () => {
    const sheet = (end: string, keep: string, title: string) => {
      const target = button(keep);
      return decidePermission(click, { target, tree: screen([dialog([text(title), button(end), target])]) });
    };
    expect(sheet("ऑर्डर रद्द करें", "ऑर्डर रखें", "ऑर्डर रद्द करें?")).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
    expect(sheet("রাইড বাতিল করুন", "রাইড চালিয়ে যান", "রাইড বাতিল করবেন?")).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
    const end = button("ऑर्डर रद्द करें");
    expect(decidePermission(click, { target: end, tree: screen([dialog([text("ऑर्डर रद्द करें?"), button("ऑर्डर रखें"), end])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
  });

  it("a screen that reports an ending as done is closed by its OK", () => {
    for (const [title, ok] of [["Identifiering avbruten", "OK"], ["Order cancelled", "Done"], ["Заказ отменён", "Хорошо"]] as const) {
      const target = button(ok);
      expect(decidePermission(click, { target, tree: screen([text(title), target]) }), title).toMatchObject({ tier: "normal", ruleId: "pane.completed" });
    }
  });
});

describe("a package file sent in a chat", () => {
  it("installs when its row is tapped; a photo's row only opens it", () => {
    const row = (name: string) => node({ className: "android.widget.LinearLayout", children: [text(name), text("4,1 MB")] });
    const apk = row("Undangan Pernikahan Digital.apk");
    expect(decidePermission(click, { target: apk, tree: screen([text("+62 857"), apk]) })).toMatchObject({ tier: "high_risk", kind: "install", ruleId: "target.package-file" });
    const jpg = row("Undangan Pernikahan Digital.jpg");
    expect(decidePermission(click, { target: jpg, tree: screen([text("+62 857"), jpg]) }).tier).toBe("normal");
  });
});

describe("a dialog's button that names no act beside one that does", () => {
  it("keeps things as they are ('Weiter bearbeiten' beside 'Verwerfen'), whatever word the language continues with", () => {
    const pick = (title: string, keep: string, act: string, tapped: "keep" | "act") => {
      const k = button(keep);
      const a = button(act);
      return decidePermission(click, { target: tapped === "keep" ? k : a, tree: screen([dialog([text(title), text("·"), k, a])]) });
    };
    for (const [title, keep, act] of [["Entwurf verwerfen?", "Weiter bearbeiten", "Verwerfen"], ["¿Descartar borrador?", "Seguir editando", "Descartar"], ["ทิ้งฉบับร่างหรือไม่", "แก้ไขต่อ", "ทิ้ง"], ["Supprimer le brouillon ?", "Continuer la modification", "Supprimer"], ["Удалить черновик?", "Продолжить редактирование", "Удалить"]] as const) {
      expect(pick(title, keep, act, "keep"), keep).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
      expect(pick(title, keep, act, "act"), act).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
  });

  it("a plain confirmation beside a way out still confirms what the dialog asks", () => {
    const ok = button("OK");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("Löschen?"), button("Abbrechen"), ok])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
  });
});

describe("a parcel is a thing held", () => {
  it("refusing or cancelling it is an ending ('Відмовитися від посилки?', 'Anulować przesyłkę?'); tracking it is not", () => {
    for (const [title, yes, no] of [["Відмовитися від посилки?", "Так, відмовитися", "Ні"], ["Отказаться от посылки?", "Да", "Нет"], ["Anulować przesyłkę?", "Tak", "Nie"], ["Sendung stornieren?", "Ja", "Nein"]] as const) {
      const target = button(yes);
      expect(decidePermission(click, { target, tree: screen([dialog([text(title), button(no), target])]) }), title).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
    const track = button("Śledź przesyłkę");
    expect(decidePermission(click, { target: track, tree: screen([text("Moje przesyłki"), track]) }).tier).toBe("normal");
  });
});
