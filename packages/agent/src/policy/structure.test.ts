// The committing control found by structure, dismissal recognised positively in every language, each language's
// commit words, Enter that sends, the blind-screen rule and when the guard model is asked.
import { describe, expect, it } from "vitest";
import type { Action } from "../actions/schema.ts";
import type { UiNode } from "../ports.ts";
import { decidePermission, needsGate, type PermissionContext } from "./index.ts";
import { LEXICON } from "./lexicon.ts";
import { prepare, splitList, WordSet } from "./match.ts";
import { PLATFORM_WORDS } from "./platform-words.ts";

const node = (over: Partial<UiNode>): UiNode => ({
  index: 0, text: "", resourceId: "", className: "android.widget.Button", packageName: "com.x", contentDesc: "",
  checkable: false, checked: false, clickable: true, enabled: true, focusable: false, focused: false, scrollable: false,
  longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 100, bottom: 100 }, children: [], ...over,
});
const text = (t: string, id = "") => node({ text: t, resourceId: id, className: "android.widget.TextView", clickable: false });
const button = (t: string, id = "") => node({ text: t, resourceId: id });
const screen = (children: UiNode[], pkg = "com.x") => node({ className: "android.widget.FrameLayout", clickable: false, packageName: pkg, bounds: { left: 0, top: 0, right: 1080, bottom: 2400 }, children });
const dialog = (children: UiNode[]) => node({ className: "android.widget.FrameLayout", clickable: false, resourceId: "android:id/parentPanel", children });
const click: Action = { type: "click", x: 500, y: 500 };
const gated = (ctx: PermissionContext, action: Action = click) => {
  const d = decidePermission(action, ctx);
  return d.tier === "high_risk" || needsGate(d, { streak: {} });
};

const LANGS = ["en", "zh", "ja", "ko", "de", "fr", "es", "pt", "ru", "it", "tr", "vi", "id", "th", "pl", "nl", "sv", "ar", "hi", "bn", "fa", "he", "uk", "ms"];

describe("the committing control is found without reading its words", () => {
  it("a platform dialog's positive button inherits what the message says; its negative button backs out, whatever they are called", () => {
    const yes = button("Zorp", "android:id/button1");
    const no = button("Blip", "android:id/button2");
    const tree = screen([dialog([text("Delete 3 photos?", "android:id/alertTitle"), no, yes])]);
    expect(decidePermission(click, { target: yes, tree })).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "pane.inherit", commitShaped: true });
    expect(decidePermission(click, { target: no, tree })).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });

  it("the permission prompt's allow button grants, by its id", () => {
    const allow = button("Qwerty", "com.android.permissioncontroller:id/permission_allow_button");
    const tree = screen([dialog([text("Let Foo see your contacts?"), allow])], "com.example.foo");
    expect(decidePermission(click, { target: allow, tree, packageName: "com.example.foo" })).toMatchObject({ tier: "high_risk", commitShaped: true });
  });

  it("the last button of a flow screen inherits an amount shown anywhere on it; a button another one follows does not", () => {
    const foot = button("Weiter zum Glück");
    const early = button("Glorp");
    const tree = screen([text("Summe"), text("20,00 €"), early, foot]);
    expect(decidePermission(click, { target: foot, tree })).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "pane.amount", commitShaped: true });
    expect(decidePermission(click, { target: early, tree })).toMatchObject({ tier: "normal", commitShaped: false });
  });

  it("a dialog's message commits in any script: Arabic-Indic amounts, Hindi verbs", () => {
    const ok = button("حسنًا", "android:id/button1");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("سيتم خصم ٥٠٠ ر.س من حسابك"), ok])]) })).toMatchObject({ tier: "high_risk", kind: "money" });
    const go = button("जारी रखें");
    expect(decidePermission(click, { target: go, tree: screen([dialog([text("क्या आप यह खाता हटाएं?"), button("रद्द करें"), go])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
  });

  it("a slide or hold control commits the amount on its screen", () => {
    const slide = node({ className: "android.widget.SeekBar", contentDesc: "Giữ để xác nhận", longClickable: true });
    expect(decidePermission({ type: "long_press", x: 500, y: 500 }, { target: slide, tree: screen([text("Số tiền 2.000.000₫"), slide]) })).toMatchObject({ tier: "high_risk", kind: "money", commitShaped: true });
  });

  it("Enter in a field whose keyboard Enter key says Send sends it, whatever the field is called", () => {
    const field = node({ className: "android.widget.EditText", text: "see you at 8", focused: true });
    const send = node({ className: "android.widget.FrameLayout", contentDesc: "Send", packageName: "com.google.android.inputmethod.latin" });
    const ime = node({ className: "android.widget.FrameLayout", packageName: "com.google.android.inputmethod.latin", children: [send] });
    expect(decidePermission({ type: "keyboard_enter" }, { target: field, tree: screen([field, ime]) })).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "enter.ime-send" });
    const plain = node({ className: "android.widget.EditText", text: "see you at 8", focused: true });
    expect(decidePermission({ type: "keyboard_enter" }, { target: plain, tree: screen([plain]) }).ruleId).toBe("enter.field");
    // Enter in any other field submits its form: it commits what the form's screen shows.
    const amount = node({ className: "android.widget.EditText", text: "250", focused: true });
    expect(decidePermission({ type: "keyboard_enter" }, { target: amount, tree: screen([text("Überweisung an Anna"), text("Betrag 250,00 €"), amount]) })).toMatchObject({ tier: "high_risk", kind: "money" });
  });

  it("the button that closes a receipt stays normal; the same button under a question commits", () => {
    const done = button("Done");
    expect(decidePermission(click, { target: done, tree: screen([text("Payment successful"), text("₹500 paid to Ravi"), done]) })).toMatchObject({ tier: "normal", ruleId: "pane.completed" });
    const ok = button("تم");
    expect(decidePermission(click, { target: ok, tree: screen([text("تم الدفع بنجاح"), text("٥٠٠ ر.س"), ok]) }).tier).toBe("normal");
    const go = button("Done");
    expect(decidePermission(click, { target: go, tree: screen([text("Pay ₹500 to Ravi?"), go]) }).tier).toBe("high_risk");
  });

  it("a price on a button commits; a price tag alone on a tapped text only opens what it describes", () => {
    const buy = button("US$4.99");
    expect(decidePermission(click, { target: buy, tree: screen([text("500 gems"), buy, button("Later")]) })).toMatchObject({ tier: "high_risk", ruleId: "target.amount" });
    const tag = node({ text: "$59.99", className: "android.widget.TextView" });
    expect(decidePermission(click, { target: tag, tree: screen([text("Wireless earbuds"), tag, button("Add to cart")]) }).tier).toBe("normal");
  });

  it("staging and read-only navigation at the foot of a priced screen stay normal", () => {
    for (const label of ["Add to cart", "In den Warenkorb", "加入购物车", "Order history", "Zahlungsverlauf"]) {
      const foot = button(label);
      expect(decidePermission(click, { target: foot, tree: screen([text("Kopfhörer 59,99 €"), foot]) }).tier, label).toBe("normal");
    }
  });
});

describe("dismissal is recognised positively, in every language", () => {
  const riskyDialog = (label: string) => {
    const target = button(label);
    return { target, tree: screen([dialog([text("Pay $20.00 to Anna?"), target, button("Pay")])]) };
  };

  it("covers the 24 languages in Android's own strings and the team's words", () => {
    for (const l of LANGS) {
      expect(PLATFORM_WORDS[l], l).toBeDefined();
      expect(LEXICON[l], l).toBeDefined();
    }
  });

  it.each(LANGS)("%s: each dismissal in the riskiest dialog is normal", (lang) => {
    const words = [...splitList(PLATFORM_WORDS[lang]!.dismiss), ...splitList(LEXICON[lang]!.dismiss)];
    expect(words.length).toBeGreaterThan(3);
    for (const w of words) expect(decidePermission(click, riskyDialog(w)), `${lang} ${w}`).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });

  it("a label that keeps what the dialog would end, a verb-last dismissal and a close glyph back out too", () => {
    for (const label of ["Behåll Premium", "Keep subscription", "Sepete geri dön", "カートに戻る", "プランを維持", "구독 유지", "×"])
      expect(decidePermission(click, riskyDialog(label)).tier, label).toBe("normal");
    // …but a keeping word before a committing verb is no way out ("Keep and delete the rest").
    expect(decidePermission(click, riskyDialog("Keep and delete the rest")).tier).toBe("high_risk");
  });
});

describe("each language's commit words", () => {
  it.each(LANGS)("%s: Android's permission, install, destructive and sending words and the team's money words gate", (lang) => {
    const p = PLATFORM_WORDS[lang]!;
    const cases: [string, string][] = [
      ...splitList(p.permission).map((w) => [w, "permission"] as [string, string]),
      ...splitList(p.install).map((w) => [w, "install"] as [string, string]),
      ...splitList(p.destructive).map((w) => [w, "destructive"] as [string, string]),
      ...splitList(p.communication).map((w) => [w, "communication"] as [string, string]),
      ...splitList(LEXICON[lang]!.verbs.money).slice(0, 3).map((w) => [w.replace(/^\^/, ""), "money"] as [string, string]),
    ];
    for (const [w, kind] of cases) {
      // Install words are read in an app store ("Cài đặt" is also Vietnamese for Settings).
      const pkg = kind === "install" ? "com.android.vending" : "com.x";
      const target = button(w);
      const d = decidePermission(click, { target, tree: screen([text("·"), target], pkg), packageName: pkg });
      expect(d.tier, `${lang} ${w}`).toBe("high_risk");
      expect(d.kind, `${lang} ${w}`).toBe(kind);
    }
  });
});

describe("revealing a secret, in every language", () => {
  it.each(LANGS)("%s: its first credentials verb gates as credentials", (lang) => {
    const word = splitList(LEXICON[lang]!.verbs.credentials)[0];
    expect(word, lang).toBeDefined();
    const target = button(word!);
    expect(decidePermission(click, { target, tree: screen([text("·"), target]) }), `${lang} ${word}`).toMatchObject({ tier: "high_risk", kind: "credentials" });
  });

  it("a swap of coins commits by their amounts; showing a wallet's address does not", () => {
    const swap = button("Tausch bestätigen");
    expect(decidePermission(click, { target: swap, tree: screen([text("Tauschen"), text("0,05 ETH → 142,30 USDC"), swap]) })).toMatchObject({ tier: "high_risk", kind: "money" });
    const show = button("Adresse anzeigen");
    expect(decidePermission(click, { target: show, tree: screen([text("Wallet"), text("0,05 ETH"), show]) }).tier).toBe("normal");
  });
});

describe("blind screens", () => {
  const web = () => node({ className: "android.webkit.WebView", bounds: { left: 0, top: 200, right: 1080, bottom: 2400 } });
  const item = (t: string, top: number) => ({ text: t, bounds: { left: 100, top, right: 980, bottom: top + 80 } });
  const page = { items: [item("Bestellung prüfen", 300), item("Gesamt 49,90 €", 400), item("Bestellhistorie", 500), item("Abbrechen", 600), item("Weiter", 700)] };

  it("without a reading, any tap where the tree is blind is asked (confirm at least), also on a secure black screen", () => {
    const w = web();
    expect(decidePermission(click, { target: w, tree: screen([w]), ocr: null })).toMatchObject({ tier: "confirm", ruleId: "blind.unread" });
    expect(gated({ target: w, tree: screen([w]), ocr: null })).toBe(true);
    expect(gated({ tree: null, ocr: null })).toBe(true);
  });

  it("with a reading, the item under the tap point is the target and the rest is read like tree text", () => {
    const at = (y: number): PermissionContext => {
      const w = web();
      return { target: w, tree: screen([w]), ocr: page, point: { x: 500, y } };
    };
    expect(decidePermission(click, at(740))).toMatchObject({ tier: "high_risk", kind: "money", targetLabel: "Weiter" });
    expect(decidePermission(click, at(640))).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
    expect(decidePermission(click, at(540))).toMatchObject({ tier: "normal", ruleId: "target.navigation" });
    // No point given: the action's 0–1000 point on the screen's root (740 of 2400 px is 308 of 1000).
    const w = web();
    expect(decidePermission({ type: "click", x: 500, y: 308 }, { target: w, tree: screen([w]), ocr: page })).toMatchObject({ tier: "high_risk", kind: "money" });
  });

  it("a drawn 'next time' or 'continue on the website' beside a price backs out; the drawn price button commits", () => {
    const offer = { items: [item("와우 멤버십 월 7,890원", 300), item("가입하기", 400), item("다음에 할게요", 500)] };
    const at = (y: number, ocr: typeof offer): PermissionContext => {
      const w = web();
      return { target: w, tree: screen([w]), ocr, point: { x: 500, y } };
    };
    expect(decidePermission(click, at(540, offer))).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
    expect(decidePermission(click, at(440, offer)).tier).toBe("high_risk");
    const app = { items: [item("Scarica l'app", 300), item("Installa", 400), item("Continua sul sito", 500)] };
    expect(decidePermission(click, at(540, app))).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });

  it("a tree with words is read as it is, whatever OCR says", () => {
    const ok = button("Later");
    expect(decidePermission(click, { target: ok, tree: screen([text("Pay $5?"), ok]), ocr: { items: [item("Pay now", 0)] } }).tier).toBe("normal");
  });
});

describe("the guard model is asked about commit-shaped actions the rules leave normal", () => {
  it("a positive button on a harmless dialog is normal, commit-shaped, and asks the guard; a plain tile does not", () => {
    const ok = button("OK", "android:id/button1");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("Note saved"), ok])]) })).toMatchObject({ tier: "normal", commitShaped: true, unsure: true });
    const tile = node({ text: "Summer photos", className: "android.widget.TextView" });
    expect(decidePermission(click, { target: tile, tree: screen([tile, button("Share")]) })).toMatchObject({ tier: "normal", commitShaped: false, unsure: false });
  });

  it("a commit-shaped action the rules already gate is not sent to the guard for that reason", () => {
    const pay = button("Pay", "android:id/button1");
    expect(decidePermission(click, { target: pay, tree: screen([dialog([text("Pay $5?"), pay])]) })).toMatchObject({ tier: "high_risk", commitShaped: true, unsure: false });
  });
});

describe("what a committing control commits, read from beyond its own words", () => {
  it("a dialog that only asks is a step of what the screen behind it is titled", () => {
    const without = button("Sans médias");
    const over = (title: string) => screen([text(title), dialog([text("Inclure les médias ?"), without, button("Inclure les médias")]), text("Partager vers : Gmail")]);
    expect(decidePermission(click, { target: without, tree: over("Exporter la discussion") })).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "pane.behind" });
    expect(decidePermission(click, { target: without, tree: over("Photos de vacances") }).tier).toBe("normal");
  });

  it("a screen that reports money received is closed by its OK; the same OK under a question commits", () => {
    for (const [line, ok] of [["बधाई हो! आपको ₹10 का कैशबैक मिला", "ठीक है"], ["You received $25.00 from Anna", "Done"], ["Вам зачислено 500 ₽", "OK"]] as const) {
      const target = button(ok);
      expect(decidePermission(click, { target, tree: screen([text(line), target]) }), line).toMatchObject({ tier: "normal", ruleId: "pane.completed" });
    }
    const go = button("ठीक है");
    expect(decidePermission(click, { target: go, tree: screen([text("₹10 का भुगतान करें?"), go]) }).tier).toBe("high_risk");
  });

  it("a price beside a money word commits; a price beside a merchant's name on a row of past payments does not", () => {
    const row = node({ text: "Bij: Albert Heijn 1234 · € 23,45", className: "android.widget.TextView" });
    expect(decidePermission(click, { target: row, tree: screen([text("Betaalrekening"), text("€ 1.845,12"), button("Overmaken"), row]) }).tier).toBe("normal");
    const tip = node({ text: "Tip $5", className: "android.widget.TextView" });
    expect(decidePermission(click, { target: tip, tree: screen([text("Your driver"), tip, button("Done")]) })).toMatchObject({ tier: "high_risk", kind: "money" });
    const fare = node({ text: "Donation € 5", className: "android.widget.TextView" });
    expect(decidePermission(click, { target: fare, tree: screen([text("Your driver"), fare]) })).toMatchObject({ tier: "high_risk", ruleId: "target.amount" });
  });

  it("making an app the default one grants it a role, in the languages' own wording", () => {
    for (const label of ["डिफ़ॉल्ट के रूप में सेट करें", "设为默认", "Als Standard festlegen", "Đặt làm mặc định", "Ustaw jako domyślną", "הגדר כברירת מחדל"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([dialog([text("Truecaller?"), button("Cancel"), target])]) }), label).toMatchObject({ tier: "high_risk", kind: "permission" });
    }
  });

  it("Share beside a filled post sends it; beside an empty field it only opens a sheet", () => {
    for (const label of ["Partager", "Share", "Condividi", "Paylaş", "שתף"]) {
      const target = button(label);
      const filled = node({ className: "android.widget.EditText", text: "Trop bien ce week-end à Lyon 🎉" });
      expect(decidePermission(click, { target, tree: screen([text("Nouvelle publication"), filled, target]) }), label).toMatchObject({ tier: "high_risk", kind: "communication" });
      const empty = node({ className: "android.widget.EditText", text: "" });
      expect(decidePermission(click, { target, tree: screen([text("Photo"), empty, target]) }).tier, label).toBe("normal");
    }
  });

  it("turning a protection off, a Hebrew infinitive and a message that says what will be installed gate", () => {
    const off = button("Tắt", "android:id/button1");
    expect(decidePermission(click, { target: off, tree: screen([text("Google Play Protect"), dialog([text("Tắt tính năng quét ứng dụng?"), button("Hủy", "android:id/button2"), off])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const remove = button("כן, להסיר", "android:id/button1");
    expect(decidePermission(click, { target: remove, tree: screen([dialog([text("להסיר את הגנת המכשיר?"), button("ביטול", "android:id/button2"), remove])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const join = button("Partecipa");
    expect(decidePermission(click, { target: join, tree: screen([text("Programma beta"), text("Verrà installata la versione beta."), join]) })).toMatchObject({ tier: "high_risk", kind: "install" });
  });

  it("places to look at stay normal at the foot of a priced screen, inflected as the apps write them", () => {
    for (const label of ["Kontoauszüge", "領収書を表示", "היסטוריית פעולות", "Movimientos", "Reçu", "Маршрут посилки", "PDF herunterladen", "تراجع"]) {
      const foot = button(label);
      expect(decidePermission(click, { target: foot, tree: screen([text("Konto"), text("2.318,44 €"), button("Senden"), foot]) }).tier, label).toBe("normal");
    }
  });
});

describe("Hebrew and Arabic words with their joined prefixes", () => {
  it("are found without 'and', 'the', 'to', 'from', 'that' (at most two), and a word that only starts like one is not", () => {
    const set = new WordSet([{ text: "הזמנה" }, { text: "למחוק" }, { text: "دفع" }]);
    for (const t of ["ההזמנה", "ולמחוק", "والدفع", "بالدفع"]) expect(set.find(prepare(t)), t).toBe(t);
    for (const t of ["משחק", "לא", "دفتر"]) expect(set.find(prepare(t)), t).toBeNull();
    for (const label of ["ומחק", "והסר את החשבון", "والحذف"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("·"), target]) }), label).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
  });
});

describe("a dialog's title that names an act on a place still commits it", () => {
  it("a heading whose act comes first commits ('Reset to factory settings?'); one that names a place does not", () => {
    for (const [title, ok] of [["Reset to factory settings?", "OK"], ["بازنشانی به تنظیمات کارخانه؟", "باشه"]] as const) {
      const target = button(ok, "android:id/button1");
      expect(decidePermission(click, { target, tree: screen([dialog([text(title, "android:id/alertTitle"), button("Cancel", "android:id/button2"), target])]) }), title).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
    const ok = button("OK", "android:id/button1");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("Payment history settings", "android:id/alertTitle"), ok])]) }).tier).toBe("normal");
  });

  it("Persian words joined by the zero-width non-joiner match the lists' spaced forms; Bengali and Hindi leaving verbs in any ending", () => {
    const ok = button("باشه", "android:id/button1");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("همه داده‌ها پاک می‌شود", "android:id/message"), ok])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    for (const title of ["গ্রুপ ছেড়ে যাবেন?", "ग्रुप छोड़ना है?"]) {
      const yes = button("OK", "android:id/button1");
      expect(decidePermission(click, { target: yes, tree: screen([dialog([text(title, "android:id/alertTitle"), yes])]) }), title).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
  });
});

describe("a switch changes what it names", () => {
  it("a security switch whose label starts like a place ('My …') is judged as a switch, not opened as a page", () => {
    const sw = (label: string) => node({ className: "android.widget.LinearLayout", children: [text(label), node({ className: "android.widget.Switch", checkable: true })] });
    const fmd = sw("„Mein Gerät finden“ verwenden");
    expect(decidePermission(click, { target: fmd, tree: screen([text("Mein Gerät finden"), fmd]) })).toMatchObject({ tier: "high_risk", ruleId: "switch.security" });
    const plain = sw("My favourites first");
    expect(decidePermission(click, { target: plain, tree: screen([text("Display"), plain]) }).tier).toBe("normal");
  });
});

describe("what a message says will be lost, in the forms its language inflects", () => {
  it("gender, number and verb forms of the consequence gate the neutral button under it", () => {
    for (const [line, ok] of [
      ["Questa playlist verrà eliminata definitivamente.", "Procedi"], ["La conversation sera supprimée.", "OK"], ["Запись будет удалена", "ОК"],
      ["Os arquivos serão apagados", "OK"], ["Rozłączyć i zapomnieć urządzenie?", "Tak"], ["অ্যাকাউন্ট মুছে ফেলবেন?", "হ্যাঁ"], ["सारा डेटा हटा दिया जाएगा", "ठीक"],
    ] as const) {
      const target = button(ok);
      expect(decidePermission(click, { target, tree: screen([text(line), target]) }), line).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
  });
});

describe("grants, installs and posts in the wording of each market", () => {
  it("special access, a family group, a VPN, an extension, a beta build and a story gate; tracking a parcel does not", () => {
    const sw = node({ className: "android.widget.LinearLayout", children: [text("Messenger"), node({ className: "android.widget.Switch", checkable: true })] });
    expect(decidePermission(click, { target: sw, tree: screen([text("Diğer uygulamaların üzerinde göster"), sw]) })).toMatchObject({ tier: "high_risk", kind: "permission" });
    const cases: [string[], string, string][] = [
      [["가족 그룹에 초대", "지수님을 가족 그룹에 추가합니다"], "추가", "permission"],
      [["Verbindungsanfrage", "Proton VPN möchte eine VPN-Verbindung einrichten."], "OK", "permission"],
      [["إضافة إلى Chrome", "يمكن للإضافة قراءة بياناتك"], "إضافة الإضافة", "install"],
      [["Program beta", "Zainstalujemy wersję testową aplikacji."], "Dołącz", "install"],
      [["La tua storia", "Visibile a tutti i follower"], "Condividi storia", "communication"],
    ];
    for (const [lines, label, kind] of cases) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([...lines.map((l) => text(l)), target]) }), label).toMatchObject({ tier: "high_risk", kind });
    }
    const track = button("Sendung verfolgen");
    expect(decidePermission(click, { target: track, tree: screen([text("Bestellung #123"), text("49,90 €"), track]) }).tier).toBe("normal");
    const vpnPage = node({ text: "VPN", className: "android.widget.TextView" });
    expect(decidePermission(click, { target: vpnPage, tree: screen([text("Netzwerk"), vpnPage, text("Hotspot")]) }).tier).toBe("normal");
  });
});

describe("a label that both backs out and commits", () => {
  it("is the act beside a plain way out ('बंद करें' next to 'रद्द करें'), and a way out when it is the only one", () => {
    const off = button("बंद करें");
    expect(decidePermission(click, { target: off, tree: screen([dialog([text("बैकअप बंद करें?"), button("रद्द करें"), off])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const close = button("बंद करें");
    expect(decidePermission(click, { target: close, tree: screen([dialog([text("₹500 का भुगतान करें?"), close, button("भुगतान करें")])]) })).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });

  it("closing an account, unpairing and deactivating in the forms those languages ask them", () => {
    for (const [title, label] of [["Stänga ditt konto?", "Ja, stäng"], ["إلغاء إقران الجهاز؟", "نعم"], ["حساب غیرفعال شود؟", "بله"], ["ব্যাকআপ বন্ধ করবেন?", "হ্যাঁ"], ["Disconnettere tutti i dispositivi?", "Disconnetti"]] as const) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([dialog([text(title), button("·"), target])]) }), title).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
  });
});

describe("the keyboard's Enter key says what Enter does", () => {
  it("a Search key searches in a messaging app's field; a Send key still sends; Turkish 'Ara' (search, and call) searches", () => {
    const kb = "com.google.android.inputmethod.latin";
    const enter = (value: string, ...keys: string[]) => {
      const field = node({ className: "android.widget.EditText", text: value, focused: true });
      const ime = node({ className: "android.widget.FrameLayout", packageName: kb, children: keys.map((key) => node({ className: "android.widget.FrameLayout", text: key, packageName: kb })) });
      return decidePermission({ type: "keyboard_enter" }, { target: field, tree: screen([text("Chats"), field, ime], "com.whatsapp"), packageName: "com.whatsapp" });
    };
    for (const [value, key] of [["billete tren", "Buscar"], ["Pizza", "Suchen"], ["annem", "Ara"], ["کانال", "جستجو"], ["แม่", "ค้นหา"], ["мама", "Поиск"], ["אמא", "חיפוש"]] as const)
      expect(enter(value, key), key).toMatchObject({ tier: "normal", ruleId: "enter.search" });
    expect(enter("Bin gleich da", "Senden")).toMatchObject({ tier: "high_risk", kind: "communication" });
    // A search word on the keyboard's toolbar is no Enter key when a Send key is there too.
    expect(enter("Bin gleich da", "Suchen", "Senden")).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "enter.ime-send" });
  });
});

describe("a cancelling label beside the ending its screen names", () => {
  it("carries the ending out ('Annuler quand même' under 'Annuler la réservation'); a bare Cancel, or cancelling under a plain heading, backs out", () => {
    const anyway = button("Annuler quand même");
    expect(decidePermission(click, { target: anyway, tree: screen([text("Annuler la réservation"), text("Hôtel · 2 nuits"), anyway]) })).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "target.screen-ending" });
    const request = button("रद्द करने का अनुरोध करें");
    expect(decidePermission(click, { target: request, tree: screen([text("बुकिंग रद्द करें"), text("होटल · 2 रातें"), request]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const bare = button("Annuler");
    expect(decidePermission(click, { target: bare, tree: screen([dialog([text("Annuler la réservation ?"), bare, button("Confirmer")])]) }).ruleId).toBe("target.dismiss");
    const download = button("Annuler le téléchargement");
    expect(decidePermission(click, { target: download, tree: screen([text("Téléchargement en cours"), download]) }).tier).toBe("normal");
  });
});

describe("acts of every market that no earlier word family named", () => {
  const inDialog = (title: string, label: string, extra: string[] = []) => {
    const target = button(label);
    return decidePermission(click, { target, tree: screen([dialog([text(title), ...extra.map((t) => text(t)), button("·"), target])]) });
  };
  it("forfeiting a game, replacing a file and discarding a draft are destructive", () => {
    for (const [title, label] of [["Aufgeben?", "Ja"], ["Сдаться?", "Да"], ["Pes etmek istiyor musun?", "Evet"], ["ยอมแพ้หรือไม่", "ตกลง"], ["להיכנע?", "כן"], ["Ya existe un archivo llamado informe.pdf", "Reemplazar archivo"], ["Filen finns redan", "Ersätt fil"], ["Buang draf?", "Buang"], ["ডিভাইসটি সরিয়ে দিন?", "ঠিক আছে"]] as const)
      expect(inDialog(title, label), title).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const draft = button("ड्राफ़्ट रद्द करें");
    expect(decidePermission(click, { target: draft, tree: screen([text("लिखें"), node({ className: "android.widget.FrameLayout", clickable: false, resourceId: "com.google.android.material:id/design_bottom_sheet", children: [button("शेड्यूल करें"), draft] })]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const email = button("E-mailadres opgeven");
    expect(decidePermission(click, { target: email, tree: screen([text("Profiel"), email]) }).tier).toBe("normal");
  });
  it("joining a beta programme installs; joining a family group or an app asking for the Google account grants", () => {
    for (const [title, label, kind] of [["Betaprogramm", "Beitreten", "install"], ["ベータ版プログラムに参加しますか？", "参加", "install"], ["Rejoindre le groupe familial de Marc ?", "Rejoindre", "permission"], ["Dołączyć do grupy rodzinnej?", "Dołącz", "permission"], ["Glovo quiere acceder a tu cuenta de Google", "Continuar", "permission"], ["배달의민족에서 Google 계정에 대한 액세스를 요청합니다", "계속", "permission"]] as const)
      expect(inDialog(title, label), title).toMatchObject({ tier: "high_risk", kind });
    expect(inDialog("Programma beta", "Ulteriori informazioni", ["Il programma beta di questa app è pieno."]).tier).toBe("normal");
  });
  it("an entry fee is money", () => {
    for (const [line, label] of [["Entry fee: 500 coins", "Play"], ["Startgebühr: 10.000 Chips", "Spielen"], ["Yuran masuk: 100K syiling", "Main"]] as const) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("Turnier"), text(line), target]) }), line).toMatchObject({ tier: "high_risk", kind: "money" });
    }
  });
  it("'no thanks' backs out of a price; a list of transactions or more details is a place to look at", () => {
    for (const [lines, label] of [[["Premium", "10,99 € par mois"], "Non merci"], [["Super", "6,99 € al mes"], "No, gracias"], [["Bol Select", "€ 12,99 per jaar"], "Nee, bedankt"], [["Solde : 1 240,50 €"], "Transactions"], [["יתרה: ‏12,400 ₪"], "עסקאות"], [["ব্যালেন্স: ৳৩,৮২০.৫০"], "লেনদেনসমূহ"], [["Курс USD 41,25"], "Детальніше про курс"]] as const) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([...lines.map((l) => text(l)), button("·"), target]) }).tier, label).toBe("normal");
    }
  });
  it("a switch on the pages Android names 'Find My Device' and 'Install unknown apps' in each language is a security switch", () => {
    const sw = (label: string) => node({ className: "android.widget.LinearLayout", children: [text(label), node({ className: "android.widget.Switch", checkable: true })] });
    for (const [page, label] of [["Zoek mijn apparaat", "Zoek mijn apparaat gebruiken"], ["Installieren unbekannter Apps", "Dieser Quelle vertrauen"], ["Znajdź moje urządzenie", "Używaj usługi Znajdź moje urządzenie"], ["نصب برنامه های ناشناس", "Chrome"]] as const) {
      const target = sw(label);
      expect(decidePermission(click, { target, tree: screen([text(page), target]) }), page).toMatchObject({ tier: "high_risk", ruleId: "switch.security" });
    }
    const dark = sw("Mörkt tema");
    expect(decidePermission(click, { target: dark, tree: screen([text("Skärm"), dark]) }).tier).toBe("normal");
  });
});

describe("where the words of a screen or a link stand", () => {
  it("an app's listing with its star rating outside a store installs ('Cài đặt' is also Settings); the settings row of a profile opens a page", () => {
    const install = button("Cài đặt");
    expect(decidePermission(click, { target: install, tree: screen([text("Được tài trợ"), text("Shopee"), text("4,8 ★ · 100 Tr+ lượt tải"), install], "com.zing.zalo"), packageName: "com.zing.zalo" })).toMatchObject({ tier: "high_risk", kind: "install" });
    const settings = button("Cài đặt");
    expect(decidePermission(click, { target: settings, tree: screen([text("Cá nhân"), text("Nguyễn Văn A"), settings], "com.zing.zalo"), packageName: "com.zing.zalo" }).tier).toBe("normal");
  });
  it("Arabic's one-word 'turn off' is the act; its pause is not", () => {
    const off = button("إيقاف");
    expect(decidePermission(click, { target: off, tree: screen([dialog([text("هل تريد إيقاف النسخ الاحتياطي؟"), button("إلغاء"), off])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const pause = button("إيقاف مؤقت");
    expect(decidePermission(click, { target: pause, tree: screen([text("الحلقة ٣"), pause]) }).tier).toBe("normal");
  });
  it("a web page's article slug is its title, not an action; a shop's path still is", () => {
    const open = (uri: string) => decidePermission({ type: "open_deeplink", uri } as Action, { tree: screen([text("Papa")], "com.whatsapp"), packageName: "com.whatsapp" });
    for (const uri of ["https://www.bhaskar.com/national/news/monsoon-update-imd-alert-134567890.html", "https://www.amarujala.com/india-news/delete-your-old-account-warns-cyber-cell-2026"])
      expect(open(uri).ruleId, uri).not.toBe("deeplink.words");
    expect(open("https://shop.example-store.com/checkout/pay?order=123")).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "deeplink.words" });
  });
});

describe("holding an icon of a chat's compose bar", () => {
  it("records a note and sends it on release; holding a message's text, or an icon where no message field is, does not", () => {
    const hold = { type: "long_press", x: 500, y: 500 } as Action;
    const field = (hint: string) => node({ className: "android.widget.EditText", text: hint });
    const icon = (desc: string) => node({ className: "android.widget.ImageButton", contentDesc: desc });
    for (const [hint, desc] of [["Bericht", "Spraakbericht"], ["メッセージを入力", "音声メッセージ"], ["Mensaje", "Grabar video"]] as const) {
      const target = icon(desc);
      expect(decidePermission(hold, { target, tree: screen([text("Chat"), field(hint), target]) }), desc).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "hold.compose-bar" });
    }
    const bubble = text("Bis morgen!");
    expect(decidePermission(hold, { target: bubble, tree: screen([text("Anna"), bubble, field("Nachricht")]) }).tier).toBe("normal");
    const layers = icon("Calques");
    expect(decidePermission(hold, { target: layers, tree: screen([field("Rechercher ici"), layers]) }).tier).toBe("normal");
  });
});

describe("the round of the sealed set of 2026-12-02b", () => {
  it("in Japanese and Korean the last of a place and an act says what a text is", () => {
    const yes = button("はい");
    expect(decidePermission(click, { target: yes, tree: screen([dialog([text("トーク履歴をすべて削除"), button("キャンセル"), yes])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    const ok = button("확인");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("대화 기록 삭제"), button("취소"), ok])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    for (const place of ["削除履歴", "送信済み", "송금 기록", "付款记录"]) {
      const target = button(place);
      expect(decidePermission(click, { target, tree: screen([text("·"), target]) }), place).toMatchObject({ tier: "normal", ruleId: "target.navigation" });
    }
  });

  it("a flow screen's act is the button that names it; a later button that names none only opens something", () => {
    const product = (buy: string, label: string, price: string) => {
      const target = button(label);
      return decidePermission(click, { target, tree: screen([text("Item"), text(price), button(buy), target]) });
    };
    for (const [buy, label, price] of [
      ["أضف إلى العربة", "التقييمات", "4,599.00 ر.س"],
      ["In winkelwagen", "Specificaties", "€ 199,-"],
      ["এখনই কিনুন", "রেটিং ও রিভিউ", "৳ ৩,৪৫০"],
      ["Sepete Ekle", "Ürün Özellikleri", "2.499 TL"],
    ] as const)
      expect(product(buy, label, price).tier, label).toBe("normal");
    // A plain confirmation at the foot still commits the screen's amount, and a label with its own act still says it.
    expect(product("Agregar tarjeta", "Continuar", "Total $ 12.499")).toMatchObject({ tier: "high_risk", kind: "money" });
    expect(product("Add to Cart", "Buy Now", "$49.99")).toMatchObject({ tier: "high_risk", kind: "money" });
  });

  it("a bare money noun opens its list unless it is the screen's committing control", () => {
    const transaksi = button("Transaksi");
    expect(decidePermission(click, { target: transaksi, tree: screen([text("Baki RM 84.20"), button("Tambah Nilai"), transaksi]) }).tier).toBe("normal");
  });

  it("joining a beta test installs its builds, in the languages' own compounds and phrases", () => {
    for (const [line, join] of [["Delta i betatestet", "Gå med"], ["Am Betatest teilnehmen", "Teilnehmen"], ["Beta testine katılın", "Katıl"], ["बीटा टेस्ट में शामिल हों", "शामिल हों"], ["Únete a la prueba beta", "Unirme"]] as const) {
      const target = button(join);
      expect(decidePermission(click, { target, tree: screen([text("Mercado Pago"), text(line), target]) }), line).toMatchObject({ tier: "high_risk", kind: "install" });
    }
  });

  it("a device admin app's message that it may erase all data is destructive in Russian and Ukrainian", () => {
    for (const [message, label] of [["Включение администратора позволит приложению стирать все данные", "Активировать"], ["Якщо активувати цей додаток, він зможе стирати всі дані", "Активувати"]] as const) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("Антивирус"), text(message), button("Отмена"), target]) }), label).toMatchObject({ tier: "high_risk" });
    }
  });

  it("'see all' opens a list in the languages that lacked it", () => {
    for (const label of ["すべて見る", "모두 보기", "Смотреть все", "Tümünü gör", "ดูทั้งหมด"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("取引履歴"), text("チャージ +¥10,000"), target]) }), label).toMatchObject({ tier: "normal" });
    }
  });
});

describe("viewing words, and a place joined to an act", () => {
  it("'consult' and 'view' open a place to look at in French, Spanish, Portuguese and Italian", () => {
    for (const label of ["Consulter", "Consultar", "Visualizar fatura", "Consultare"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("Compte courant"), text("Solde 1 204,33 €"), target]) }), label).toMatchObject({ tier: "normal", ruleId: "target.navigation" });
    }
  });

  it("a place joined to an act by its language's 'and' (CLDR's list patterns) still does the act", () => {
    for (const label of ["Consultar y enviar", "View and pay", "Details und bezahlen", "Подробности и оплатить"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("·"), target]) }), label).toMatchObject({ tier: "high_risk" });
    }
  });
});

describe("a blind screen's other drawn act", () => {
  const web = () => node({ className: "android.webkit.WebView", bounds: { left: 0, top: 200, right: 1080, bottom: 2400 } });
  const read = (lines: string[], tapped: number): PermissionContext => {
    const w = web();
    const items = lines.map((t, i) => ({ text: t, bounds: { left: 100, top: 300 + i * 100, right: 980, bottom: 380 + i * 100 } }));
    return { target: w, tree: screen([w]), ocr: { items }, point: { x: 500, y: 340 + tapped * 100 } };
  };

  it("a drawn label that names no act, below a short drawn label that does, only opens something", () => {
    expect(decidePermission(click, read(["Idealista: pisos y casas", "Instalar", "Capturas de pantalla", "Acerca de esta aplicación →"], 3)).tier).toBe("normal");
    expect(decidePermission(click, read(["Лотерея «Русское лото»", "Билет 150 ₽", "Купить билет", "Правила и архив тиражей"], 3)).tier).toBe("normal");
    expect(decidePermission(click, read(["Sepatu Lari", "Rp 459.000", "Beli", "Ulasan"], 3)).tier).toBe("normal");
  });

  it("the screen's first words are its title, so a neutral button under it still commits what it names", () => {
    expect(decidePermission(click, read(["Betatest", "Du får testversioner av appen.", "Gå med"], 2))).toMatchObject({ tier: "high_risk", kind: "install" });
    expect(decidePermission(click, read(["Comprar", "Oro x50 · 4,99 €", "¡Vamos!"], 2))).toMatchObject({ tier: "high_risk", kind: "money" });
  });
});

describe("Japanese 'やめる' (quit) as a whole label", () => {
  it("backs out of a dialog, so the button before it is the one that commits", () => {
    const quit = button("やめる");
    expect(decidePermission(click, { target: quit, tree: screen([dialog([text("購入手続きを中断しますか？"), quit, button("続ける")])]) })).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
    const exchange = button("交換する");
    expect(decidePermission(click, { target: exchange, tree: screen([text("ショップ"), text("ふくびき券 10枚 · 300 ジェム"), text("所持ジェム 1,250"), exchange, button("やめる")]) })).toMatchObject({ tier: "high_risk", kind: "money" });
  });
});

describe("holding a message's row", () => {
  it("only selects it, though its text sits in a child; the compose bar's microphone beside it still sends", () => {
    const hold = { type: "long_press", x: 500, y: 500 } as Action;
    const row = node({ className: "android.widget.LinearLayout", children: [text("Mai họp lúc 9h nhé")] });
    const mic = node({ className: "android.widget.ImageButton", contentDesc: "Ghi âm" });
    const tree = () => screen([text("Anh Tuấn"), row, node({ className: "android.widget.EditText", text: "Tin nhắn" }), mic]);
    expect(decidePermission(hold, { target: row, tree: tree() }).ruleId).not.toBe("hold.compose-bar");
    expect(decidePermission(hold, { target: mic, tree: tree() })).toMatchObject({ tier: "high_risk", ruleId: "hold.compose-bar" });
  });
});

describe("a web page whose path names a place before the act", () => {
  it("is a page about it ('/bn/help/send-money'); a path whose act comes first is still the act", () => {
    const open = (uri: string) => decidePermission({ type: "open_deeplink", uri } as Action, { tree: screen([text("New tab")], "com.android.chrome"), packageName: "com.android.chrome" });
    for (const uri of ["https://www.bkash.com/bn/help/send-money", "https://www.mercadopago.com.ar/ayuda/enviar-dinero", "https://wise.com/help/topics/pay-bills"])
      expect(open(uri), uri).toMatchObject({ tier: "normal", ruleId: "deeplink.page" });
    expect(open("https://shop.example-store.com/pay/help?order=123")).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "deeplink.words" });
  });
});

describe("a dialog with one button that asks nothing", () => {
  it("only tells, even in a payments app ('SBI never asks for your OTP'); a question there still commits", () => {
    const ok = (lines: string[], label: string) => {
      const target = button(label);
      return decidePermission(click, { target, tree: screen([dialog([...lines.map((l) => text(l)), target])], "com.sbi.lotusintouch"), packageName: "com.sbi.lotusintouch" });
    };
    expect(ok(["सावधान!", "SBI कभी भी आपका OTP, PIN या पासवर्ड नहीं मांगता।"], "समझ गया").tier).toBe("normal");
    expect(ok(["Waspada!", "BCA tidak pernah meminta PIN Anda."], "Mengerti").tier).toBe("normal");
    expect(ok(["क्या आप आगे बढ़ना चाहते हैं?"], "हाँ")).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "app.money-confirm" });
  });
});

describe("a drawn scroll arrow on a priced blind screen", () => {
  const web = () => node({ className: "android.webkit.WebView", bounds: { left: 0, top: 200, right: 1080, bottom: 2400 } });
  const at = (lines: string[], i: number): PermissionContext => {
    const w = web();
    const items = lines.map((t, n) => ({ text: t, bounds: { left: 100, top: 300 + n * 100, right: 980, bottom: 380 + n * 100 } }));
    return { target: w, tree: screen([w]), ocr: { items }, point: { x: 500, y: 340 + i * 100 } };
  };
  it.each(["Scrolla nedåt", "Faire défiler vers le bas", "Scroll down", "下にスクロール", "Прокрутить вниз"])("%s only moves the view; a drawn buy button there still buys", (arrow) => {
    expect(decidePermission(click, at(["Butik", "500 ädelstenar", "54,00 kr", "Dagliga erbjudanden", arrow], 4)).tier).toBe("normal");
    expect(decidePermission(click, at(["Butik", "500 ädelstenar", "54,00 kr", "Köp"], 3))).toMatchObject({ tier: "high_risk", kind: "money" });
  });
});

describe("a switch whose label or screen names a protection", () => {
  it("turns it off or on, so it is asked: an app's PIN or fingerprint lock, Find My Device's own switch, an encrypted backup", () => {
    const sw = (label: string) => node({ className: "android.widget.LinearLayout", children: [text(label), node({ className: "android.widget.Switch", checkable: true })] });
    for (const [lines, label] of [[["Sicherheit"], "App-Sperre mit PIN"], [["מצא את המכשיר שלי"], "פועל"], [["セキュリティ"], "アプリロック"], [["Seguridad"], "Acceso con huella digital"], [["Security"], "Fingerprint unlock"], [["Bezpieczeństwo"], "Logowanie odciskiem palca"]] as const) {
      const target = sw(label);
      expect(decidePermission(click, { target, tree: screen([...lines.map((l) => text(l)), target]) }), label).toMatchObject({ tier: "high_risk", ruleId: "switch.security" });
    }
    const dark = sw("Modo oscuro");
    expect(decidePermission(click, { target: dark, tree: screen([text("Apariencia"), dark]) }).tier).toBe("normal");
  });
});

describe("Post under a filled post", () => {
  it("publishes it in Bengali and Hindi too; the same word beside an empty field is no send", () => {
    for (const [title, post] of [["পোস্ট তৈরি করুন", "পোস্ট"], ["पोस्ट बनाएं", "पोस्ट"]] as const) {
      const target = button(post);
      expect(decidePermission(click, { target, tree: screen([text(title), node({ className: "android.widget.EditText", text: "আজ রাতে বিদ্যুৎ থাকবে না" }), target]) }), post).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "target.compose-submit" });
      const bare = button(post);
      expect(decidePermission(click, { target: bare, tree: screen([text(title), node({ className: "android.widget.EditText", text: "" }), bare]) }).ruleId, post).not.toBe("target.compose-submit");
    }
  });
});

describe("a share sheet's row under a screen titled with the act", () => {
  it("carries out what the screen is titled ('Exporter la discussion'); under a photo it only shares the photo", () => {
    const sheet = (children: UiNode[]) => node({ className: "android.widget.FrameLayout", clickable: false, resourceId: "com.whatsapp:id/design_bottom_sheet", children });
    for (const [title, heading] of [["Exporter la discussion", "Partager via"], ["Exportar chat", "Compartir con"], ["Chat exportieren", "Teilen über"]] as const) {
      const gmail = button("Gmail");
      expect(decidePermission(click, { target: gmail, tree: screen([text(title), sheet([text(heading), gmail, button("Drive")])]) }), title).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "pane.behind" });
    }
    const gmail = button("Gmail");
    expect(decidePermission(click, { target: gmail, tree: screen([text("IMG_2031.jpg"), sheet([text("Partager via"), gmail, button("Drive")])]) }).tier).toBe("normal");
  });
});

describe("revoking access", () => {
  it.each([["לבטל את מפתח הגישה?", "שלילת גישה"], ["¿Quitar el acceso de Spotify?", "Quitar acceso"], ["Toegang intrekken?", "Toegang intrekken"], ["Zugriff entfernen?", "Zugriff entziehen"], ["アクセス権を取り消しますか？", "アクセス権を取り消す"]])("%s %s is destructive", (title, label) => {
    const target = button(label);
    expect(decidePermission(click, { target, tree: screen([dialog([text(title), button("·"), target])]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
  });
});

describe("showing a secret", () => {
  it("reveals it in any word order ('Показать номер и CVC', 'Şifreyi göster'); showing a balance or a history opens a place", () => {
    for (const label of ["Показать номер и CVC", "Pokaż numer karty", "Kartendaten anzeigen", "Şifreyi göster", "Show CVV", "显示卡号"]) {
      const target = node({ className: "android.widget.ImageButton", contentDesc: label });
      expect(decidePermission(click, { target, tree: screen([text("Реквизиты карты"), text("2200 •••• •••• 5710"), target]) }), label).toMatchObject({ tier: "high_risk", kind: "credentials" });
    }
    for (const label of ["Kontostand anzeigen", "Pokaż historię", "Показать все"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("Konto"), target]) }).tier, label).toBe("normal");
    }
  });

  it("a warning never to show a secret is no reveal", () => {
    const ok = button("Tamam");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("Şifrenizi asla kimseye göstermeyin."), ok])]) }).tier).toBe("normal");
  });
});

describe("a place to look at that is all a dialog naming an act offers", () => {
  it("carries the act out ('Visa QR-kod' under 'Exportera konton'); beside another way on, or under a report, it opens a place", () => {
    const only = (lines: string[], label: string, others: string[] = []) => {
      const target = button(label);
      return decidePermission(click, { target, tree: screen([dialog([...lines.map((l) => text(l)), ...others.map((o) => button(o)), target])]) });
    };
    expect(only(["Exportera konton", "Alla med koden kan få tillgång till dina konton."], "Visa QR-kod")).toMatchObject({ tier: "high_risk", kind: "destructive" });
    expect(only(["Konten exportieren"], "QR-Code anzeigen")).toMatchObject({ tier: "high_risk", kind: "destructive" });
    expect(only(["Zahlung erhalten"], "Details anzeigen").tier).toBe("normal");
    expect(only(["Konten exportieren"], "Details anzeigen", ["Exportieren"]).tier).toBe("normal");
  });
});

describe("Bengali and Hindi put the verb after the place it acts on", () => {
  it("so a dialog's 'delete all chat history?' commits; a history, and a page asking how to pay, stay places", () => {
    for (const title of ["সকল চ্যাট ইতিহাস মুছে ফেলবেন?", "सभी चैट इतिहास हटाएं?"]) {
      const ok = button("ঠিক আছে");
      expect(decidePermission(click, { target: ok, tree: screen([dialog([text(title), button("বাতিল"), ok])]) }), title).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
    for (const label of ["লেনদেনের ইতিহাস", "भुगतान कैसे करें", "কীভাবে সেন্ড মানি করবেন"]) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text("সাহায্য"), target]) }).tier, label).toBe("normal");
    }
  });
});

describe("what a message says will be lost, in the languages that lacked it", () => {
  it("gates the neutral button under it; Turkish 'At' (discard) is the act, the way out beside it is not", () => {
    for (const line of ["Düzenlemelerin kaybolacak.", "Le modifiche andranno perse.", "Deine Änderungen gehen verloren.", "Các thay đổi sẽ bị mất.", "Perubahan akan hilang.", "השינויים יאבדו."]) {
      const ok = button("OK");
      expect(decidePermission(click, { target: ok, tree: screen([dialog([text(line), button("·"), ok])]) }), line).toMatchObject({ tier: "high_risk", kind: "destructive" });
    }
    const at = button("At");
    const cancel = button("İptal");
    const tree = screen([dialog([text("Videodan vazgeçilsin mi?"), text("Düzenlemelerin kaybolacak."), at, button("Taslak olarak kaydet"), cancel])]);
    expect(decidePermission(click, { target: at, tree })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    expect(decidePermission(click, { target: cancel, tree }).tier).toBe("normal");
  });
});

describe("activating a device admin app", () => {
  it.each(["Aktywuj tę aplikację do administrowania urządzeniem", "Activate this device admin app", "Activer cette application d'administration de l'appareil", "Bu cihaz yöneticisi uygulamasını etkinleştir", "이 기기 관리자 앱 활성화"])("%s grants", (label) => {
    const target = button(label);
    expect(decidePermission(click, { target, tree: screen([text("·"), target, button("Anuluj")]) })).toMatchObject({ tier: "high_risk", kind: "permission" });
  });
});

describe("an app asking another account for what it will receive", () => {
  it("grants it ('다음 정보 제공에 동의합니다', 'recevra les informations suivantes'); its way out backs out", () => {
    for (const [title, line, label] of [["카카오계정으로 로그인", "'쿠키런: 킹덤'에서 다음 정보 제공에 동의합니다", "동의하고 계속하기"], ["Facebook", "Spotify recevra les informations suivantes", "Continuer en tant que Marie"], ["Facebook", "Spotify will receive the following info", "Continue"], ["LINE", "「ツムツム」への以下の情報の提供に同意します", "同意する"]] as const) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([text(title), text(line), button("·"), target]) }), line).toMatchObject({ tier: "high_risk", kind: "permission" });
    }
    const cancel = button("취소");
    expect(decidePermission(click, { target: cancel, tree: screen([text("카카오계정으로 로그인"), text("다음 정보 제공에 동의합니다"), cancel, button("동의하고 계속하기")]) }).tier).toBe("normal");
  });
});

describe("a story's share step", () => {
  it("posts it when the screen offers the story to an audience ('Seu story' beside 'Amigos próximos'); the home tray's 'Your story' only opens it", () => {
    for (const [lines, label, other] of [[["Foto do story"], "Seu story", "Amigos próximos"], [["Dela"], "Din berättelse", "Nära vänner"], [["Votre story", "Amis proches"], "Partager", "·"], [["Your story"], "Close friends", "·"]] as const) {
      const target = button(label);
      expect(decidePermission(click, { target, tree: screen([...lines.map((l) => text(l)), node({ className: "android.widget.LinearLayout", clickable: false, children: [target, button(other)] })]) }), label).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "target.story-share" });
    }
    const tray = button("Seu story");
    expect(decidePermission(click, { target: tray, tree: screen([text("Instagram"), node({ className: "android.widget.LinearLayout", clickable: false, children: [tray, button("maria.s")] })]) }).tier).toBe("normal");
    const list = button("Amigos próximos");
    expect(decidePermission(click, { target: list, tree: screen([text("Configurações"), list, button("Bloqueados")]) }).tier).toBe("normal");
  });
});

describe("making an app the SMS app, in the platform dialog's wording", () => {
  it.each(["SMS ऐप बदलें?", "Use QuickLoan instead of Messages as your SMS app?", "QuickLoan anstelle von Messages als SMS-App verwenden?", "Utiliser QuickLoan au lieu de Messages comme application SMS ?", "Использовать QuickLoan в качестве приложения для SMS?"])("%s: its yes grants", (title) => {
    const yes = button("OK");
    expect(decidePermission(click, { target: yes, tree: screen([dialog([text(title), button("·"), yes])]) })).toMatchObject({ tier: "high_risk", kind: "permission" });
  });
});

describe("the fifth round's classes", () => {
  const keyboard = (label: string) => node({ className: "android.widget.FrameLayout", packageName: "com.google.android.inputmethod.latin", clickable: false, children: [node({ className: "android.widget.FrameLayout", contentDesc: label, packageName: "com.google.android.inputmethod.latin" })] });
  it.each(["改行", "换行", "줄바꿈", "Neue Zeile", "New line", "Новая строка", "ขึ้นบรรทัดใหม่", "سطر جديد"])("Enter on a keyboard whose Enter key says %s types a line break in a chat, it sends nothing", (key) => {
    const field = node({ className: "android.widget.EditText", text: "on my way", focused: true, resourceId: "com.x:id/message_input" });
    const tree = screen([text("Mom"), field, keyboard(key)], "jp.naver.line.android");
    expect(decidePermission({ type: "keyboard_enter" }, { target: field, tree, packageName: "jp.naver.line.android" })).toMatchObject({ tier: "normal", ruleId: "enter.newline" });
  });
  it("the same chat's Enter with a Send key, or with no key read, still sends", () => {
    const field = node({ className: "android.widget.EditText", text: "on my way", focused: true, resourceId: "com.x:id/message_input" });
    expect(decidePermission({ type: "keyboard_enter" }, { target: field, tree: screen([field, keyboard("送信")], "jp.naver.line.android"), packageName: "jp.naver.line.android" })).toMatchObject({ tier: "high_risk", kind: "communication" });
    expect(decidePermission({ type: "keyboard_enter" }, { target: field, tree: screen([field], "jp.naver.line.android"), packageName: "jp.naver.line.android" })).toMatchObject({ tier: "high_risk", kind: "communication" });
  });

  const row = (...texts: string[]) => node({ className: "android.widget.LinearLayout", children: texts.map((t) => text(t)) });
  it.each([
    ["Addebito SDD Enel Energia", "-84,37 €", "Bonifico a favore di Marco", "-150,00 €"],
    ["转账-张*明", "-2,000.00", "余额宝-收益发放", "+3.21"],
    ["Transfer to Sam Lee", "-$20.00", "Top up via Apple Pay", "+$100.00"],
    ["शर्मा किराना स्टोर को भुगतान किया", "₹1,499", "अमित कुमार से प्राप्त", "₹1,25,000"],
  ])("a row of %s %s among other rows of amounts opens that entry", (a, x, b, y) => {
    const entry = row(a, x);
    const tree = screen([text("History"), entry, row(b, y), button("Transfer")]);
    expect(decidePermission(click, { target: entry, tree })).toMatchObject({ tier: "normal", ruleId: "target.ledger-row" });
  });
  it("a row alone, or a row that holds its own pay button, is no entry of a list", () => {
    const alone = row("Transfer to Sam Lee", "-$20.00");
    expect(decidePermission(click, { target: alone, tree: screen([text("Transfer"), alone]) }).ruleId).not.toBe("target.ledger-row");
    const pay = node({ className: "android.widget.LinearLayout", children: [text("Pay $45.00"), node({ className: "android.widget.ImageButton", contentDesc: "Pay" })] });
    const tree = screen([text("Pay or request"), pay, node({ className: "android.widget.LinearLayout", children: [text("Request $45.00"), node({ className: "android.widget.ImageButton", contentDesc: "Request" })] })]);
    expect(gated({ target: pay, tree })).toBe(true);
  });

  it.each([
    ["Media toevoegen?", "Als je media toevoegt, wordt een grotere chatexport gegenereerd.", "Annuleren", "Zonder media", "Media toevoegen"],
    ["मीडिया शामिल करें?", "मीडिया शामिल करने से चैट एक्सपोर्ट फ़ाइल बड़ी हो जाएगी।", "रद्द करें", "मीडिया के बिना", "मीडिया शामिल करें"],
    ["Inclure les médias ?", "Inclure les médias générera une exportation de discussion plus volumineuse.", "Annuler", "Sans médias", "Inclure les médias"],
    ["Medya eklensin mi?", "Medya eklemek daha büyük bir sohbet dışa aktarımı oluşturur.", "İptal", "Medya olmadan", "Medya ekle"],
  ])("%s: beside the dialog's own way out, the negative button's other choice goes forward and carries out the export", (title, message, cancel, without, withMedia) => {
    const target = button(without, "android:id/button2");
    const tree = screen([text("Chat"), dialog([text(title, "android:id/alertTitle"), text(message, "android:id/message"), button(cancel, "android:id/button3"), target, button(withMedia, "android:id/button1")])]);
    expect(decidePermission(click, { target, tree })).toMatchObject({ tier: "high_risk", kind: "destructive" });
    // The way out itself still backs out.
    const out = tree.children[1]!.children[2]!;
    expect(decidePermission(click, { target: out, tree })).toMatchObject({ tier: "normal", ruleId: "target.dismiss" });
  });
  it("a choice that keeps things beside a named act and a way out still keeps", () => {
    const keep = button("Weiter bearbeiten");
    const tree = screen([dialog([text("Entwurf verwerfen?"), button("Abbrechen"), keep, button("Verwerfen")])]);
    expect(decidePermission(click, { target: keep, tree }).tier).toBe("normal");
  });

  it.each([
    ["ปิด Play Protect ไหม", "ยกเลิก", "ตกลง"],
    ["2 Adımlı Doğrulama kapatılsın mı?", "İptal", "Tamam"],
    ["화면 잠금을 사용하지 않을까요?", "취소", "확인"],
    ["ปิดการล็อกหน้าจอใช่ไหม", "ยกเลิก", "ตกลง"],
  ])("%s: a plain OK of a choice about a protection changes it", (title, cancel, ok) => {
    const yes = button(ok, "android:id/button1");
    const tree = screen([dialog([text(title, "android:id/alertTitle"), button(cancel, "android:id/button2"), yes])]);
    expect(decidePermission(click, { target: yes, tree })).toMatchObject({ tier: "high_risk", ruleId: "pane.security" });
  });
  it("a dialog that only tells about a protection, or a named choice about it, is no change of it", () => {
    const ok = button("OK", "android:id/button1");
    expect(decidePermission(click, { target: ok, tree: screen([dialog([text("Backup complete", "android:id/alertTitle"), ok])]) }).ruleId).not.toBe("pane.security");
    const save = button("Speicherplatz sparen", "android:id/button2");
    expect(decidePermission(click, { target: save, tree: screen([dialog([text("Qualität der Sicherung"), button("Abbrechen", "android:id/button3"), save, button("Originalqualität", "android:id/button1")])]) }).ruleId).not.toBe("pane.security");
  });

  it.each([
    ["วลีลับของคุณ", "คัดลอก"],
    ["Frase secreta de recuperación", "Copiar al portapapeles"],
    ["Passwort", "Kopieren"],
    ["비밀 복구 구문", "복사"],
  ])("copying on a screen headed %s takes the secret out", (heading, copy) => {
    const target = button(copy);
    expect(decidePermission(click, { target, tree: screen([text(heading), text("•••• •••• ••••"), target]) })).toMatchObject({ tier: "high_risk", kind: "credentials", ruleId: "target.copy-secret" });
  });
  it("copying a referral code, or under a warning or a page's name, copies no secret", () => {
    for (const tree of [screen([text("Mã giới thiệu của bạn"), text("SHOPEE8KQ2"), button("Sao chép")]), screen([text("Forgot your password?"), text("We sent a link to a***@gmail.com"), button("Copy email")]), screen([text("Never share your PIN with anyone"), button("Copy")])])
      expect(decidePermission(click, { target: tree.children[tree.children.length - 1]!, tree }).ruleId).not.toBe("target.copy-secret");
  });

  it.each([["Odrzuć", "Zaplanuj wysłanie", "Ustawienia"], ["Ignora", "Pianifica invio", "Impostazioni"], ["Negeren", "Verzenden plannen", "Instellingen"]])("%s in a menu over a written draft discards it", (item, first, last) => {
    const target = button(item);
    const tree = screen([text("Compose"), node({ className: "android.widget.EditText", text: "Dear Jan, the quote is attached." }), dialog([button(first), target, button(last)])]);
    expect(decidePermission(click, { target, tree })).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "menu.discard-draft" });
  });
  it("a menu's last item, a cancel, or a menu over no draft still backs out", () => {
    const cancel = button("Cancelar");
    expect(decidePermission(click, { target: cancel, tree: screen([node({ className: "android.widget.EditText", text: "Feliz viernes" }), dialog([button("Cámara"), button("Galería"), cancel])]) }).tier).toBe("normal");
    const dismiss = button("Dismiss");
    expect(decidePermission(click, { target: dismiss, tree: screen([text("New tab"), dialog([button("New tab"), dismiss, button("Settings")])]) }).tier).toBe("normal");
  });

  it.each(["محو جميع البيانات", "מחיקת כל הנתונים", "Wymaż wszystkie notatki", "Tüm verileri temizle", "Удаление данных", "Effacement des données", "Borrado de datos", "데이터 지우기", "Видалення даних", "Penghapusan data"])("%s, erasing or its noun, at a screen's foot destroys", (label) => {
    const target = button(label);
    expect(decidePermission(click, { target, tree: screen([text("Settings"), target]) })).toMatchObject({ tier: "high_risk", kind: "destructive" });
  });
  it("clearing a search is no erasing", () => {
    const target = button("محو البحث");
    expect(decidePermission(click, { target, tree: screen([node({ className: "android.widget.EditText", text: "وصفات" }), target]) }).tier).toBe("normal");
  });
});
