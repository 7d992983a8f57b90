import { describe, expect, it } from "vitest";
import { decidePermission, needsGate, recordApproval, parsePolicyRules, LANGUAGES, isCardNumber, identityNumberKind, askUserDecision, type SessionApprovals } from "./index.ts";
import type { UiNode } from "../ports.ts";
import type { Action } from "../actions/schema.ts";

const node = (over: Partial<UiNode>): UiNode => ({
  index: 0, text: "", resourceId: "", className: "android.widget.Button", packageName: "com.x", contentDesc: "",
  checkable: false, checked: false, clickable: true, enabled: true, focusable: false, focused: false, scrollable: false,
  longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 100, bottom: 100 }, children: [], ...over,
});
const text = (t: string) => node({ text: t, className: "android.widget.TextView", clickable: false });
const click: Action = { type: "click", x: 10, y: 10 };
/** A screen: root with children; returns the tree and the target (the node passed as `target`). */
const screen = (children: UiNode[], pkg = "com.x") => node({ className: "android.widget.FrameLayout", clickable: false, packageName: pkg, children });
const dialog = (children: UiNode[]) => node({ className: "android.widget.FrameLayout", clickable: false, resourceId: "android:id/parentPanel", children });

describe("a tap is judged by its label, normalised", () => {
  it.each([
    ["Pay now", "money"], ["Ｐａｙ ｎｏｗ", "money"], ["De\u200Blete", "destructive"], ["Kontolöschung", "destructive"], ["Abo-Kündigung", "money"],
    ["Start free trial", "money"], ["Book now", "money"], ["Tip $5", "money"], ["Upgrade to Premium – $9.99/mo", "money"],
    ["Zahlungspflichtig bestellen", "money"], ["取消订阅", "money"], ["定期購入を解約", "money"], ["Cancelar suscripción", "money"], ["Résilier l'abonnement", "money"],
    ["Reset phone", "destructive"], ["Install", "install"], ["Share location", "communication"], ["Send", "communication"],
  ])("%s → %s, high-risk", (label, kind) => {
    const d = decidePermission(click, { target: node({ text: label }) });
    expect(d).toMatchObject({ tier: "high_risk", kind, ruleId: expect.stringMatching(/^target\./) });
    expect(d.evidence[0]).toContain(label.slice(0, 3));
  });

  it.each(["Payment history", "How to pay", "Forgot password?", "Buy again", "Remove filter", "Sender", "Posts", "Subscriptions", "Comment payer ?", "Zahlungsverlauf", "Anzahl Artikel: 24", "Continue shopping"])(
    "%s is normal (a look-alike)",
    (label) => expect(decidePermission(click, { target: node({ text: label }) }).tier).toBe("normal"),
  );

  it.each(["Bluetooth, pairing", "Hotspot & tethering", "Ordering", "Monitoring", "Filtering", "Offering"])(
    "%s is normal: an English -ing word is no compound ending in a short word of another language (Swedish 'ring')",
    (label) => expect(decidePermission(click, { packageName: "com.android.settings", target: node({ text: label, packageName: "com.android.settings" }) }).tier).toBe("normal"),
  );

  it("Swedish 'Ring' (call) as a whole word still places a call", () => {
    expect(decidePermission(click, { target: node({ text: "Ring" }) })).toMatchObject({ tier: "high_risk", kind: "communication" });
  });

  it("long labels are content, a tap on a text field only focuses it, scroll is never gated", () => {
    expect(decidePermission(click, { target: node({ text: "Kate: the hard part is reliability, and you should never pay for a popup-ridden agent" }) }).ruleId).toBe("target.content");
    expect(decidePermission(click, { target: node({ className: "android.widget.EditText", text: "Post your reply" }) }).tier).toBe("normal");
    expect(decidePermission({ type: "scroll", direction: "down" }, { target: node({ text: "Pay" }) }).tier).toBe("normal");
  });

  it("keeps word lists for at least nine languages", () => {
    expect(LANGUAGES).toEqual(expect.arrayContaining(["en", "zh", "ja", "ko", "de", "es", "fr", "pt", "ru"]));
  });
});

describe("the surroundings decide what a confirming control does", () => {
  it("OK on 'Delete 3 photos?' is destructive; Cancel on it is normal; OK on 'Note saved' is normal", () => {
    const ok = node({ text: "OK" });
    const cancel = node({ text: "Cancel" });
    const tree = screen([dialog([text("Delete 3 photos?"), cancel, ok])]);
    expect(decidePermission(click, { target: ok, tree })).toMatchObject({ tier: "high_risk", kind: "destructive", ruleId: "pane.inherit" });
    expect(decidePermission(click, { target: cancel, tree }).tier).toBe("normal");
    const ok2 = node({ text: "OK" });
    expect(decidePermission(click, { target: ok2, tree: screen([dialog([text("Note saved"), ok2])]) }).tier).toBe("normal");
  });

  it("Continue on a '$20 to Anna' screen is money by the amount", () => {
    const go = node({ text: "Continue" });
    expect(decidePermission(click, { target: go, tree: screen([text("$20 to Anna"), go]) })).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "pane.amount" });
  });

  it("fails closed: OK in a dialog with no readable text is confirm-tier; a node-less WebView on a checkout is money", () => {
    const ok = node({ text: "OK" });
    expect(decidePermission(click, { target: ok, tree: screen([dialog([node({ className: "android.widget.ImageView", clickable: false }), ok])]) })).toMatchObject({ tier: "confirm", ruleId: "pane.unreadable" });
    const web = node({ className: "android.webkit.WebView" });
    expect(decidePermission(click, { target: web, tree: screen([text("Checkout"), web]) })).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "webview.checkout" });
    // A web page the tree cannot see into, with no reading of the screenshot: asked, confirm-tier.
    const web2 = node({ className: "android.webkit.WebView" });
    expect(decidePermission(click, { target: web2, tree: screen([text("Top stories"), web2]) })).toMatchObject({ tier: "confirm", ruleId: "blind.unread", unsure: true });
  });

  it("icon-only controls: a send arrow beside a filled message field is communication; an unknown icon is confirm-tier and unsure", () => {
    const arrow = node({ className: "android.widget.ImageButton", resourceId: "com.chat:id/fab" });
    const row = node({ className: "android.widget.LinearLayout", clickable: false, children: [node({ className: "android.widget.EditText", text: "Deploy is done" }), arrow] });
    expect(decidePermission(click, { target: arrow, tree: screen([row]) })).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "icon.beside-compose" });
    const icon = node({ className: "android.widget.ImageButton", resourceId: "com.g:id/action_2" });
    expect(decidePermission(click, { target: icon, tree: screen([text("IMG_2041.jpg"), icon]) })).toMatchObject({ tier: "confirm", kind: "unknown_control", unsure: true });
  });

  it("the keyboard's own keys are normal; Enter in a chat sends, Enter in a search searches", () => {
    const key = node({ contentDesc: "Delete", packageName: "com.google.android.inputmethod.latin", className: "android.widget.FrameLayout" });
    expect(decidePermission(click, { target: key, tree: screen([key]), packageName: "com.example.chat" })).toMatchObject({ tier: "normal", ruleId: "keyboard.key" });
    const chat = node({ className: "android.widget.EditText", resourceId: "com.example.chat:id/message_input", text: "I quit", focused: true });
    expect(decidePermission({ type: "keyboard_enter" }, { target: chat, tree: screen([chat]) })).toMatchObject({ tier: "high_risk", kind: "communication" });
    const search = node({ className: "android.widget.EditText", resourceId: "com.shop:id/search_box", text: "shoes", focused: true });
    expect(decidePermission({ type: "keyboard_enter" }, { target: search, tree: screen([search]) }).tier).toBe("normal");
  });
});

describe("typed text and links", () => {
  it("card numbers by checksum, codes where the screen asks for one, passwords, identity numbers", () => {
    const field = node({ className: "android.widget.EditText", focused: true });
    const typing = (t: string, f = field, tree?: UiNode) => decidePermission({ type: "input_text", text: t }, { target: f, ...(tree ? { tree } : {}) });
    expect(typing("4111 1111 1111 1111")).toMatchObject({ tier: "high_risk", kind: "credentials", ruleId: "typed.card" });
    expect(typing("4111 1111 1111 1112").tier).toBe("normal");
    expect(typing("hunter2", node({ className: "android.widget.EditText", password: true }))).toMatchObject({ ruleId: "typed.password" });
    const code = node({ className: "android.widget.EditText", focused: true });
    expect(typing("482913", code, screen([text("Enter the code we sent to you"), code]))).toMatchObject({ tier: "high_risk", kind: "credentials", ruleId: "typed.otp" });
    expect(typing("482913", field).tier).toBe("normal");
    expect(typing("11010519491231002X")).toMatchObject({ kind: "credentials", ruleId: "typed.national_id" });
    expect(typing("running shoes").tier).toBe("normal");
    expect(isCardNumber("3782 822463 10005")).toBe(true);
    expect(identityNumberKind("529.982.247-25")).toBe("Brazilian CPF");
    expect(identityNumberKind("12345678Z")).toBe("Spanish DNI");
  });

  it("personal data, calendar writes and app links nobody can read are confirm-tier", () => {
    const field = (t: string) => node({ className: "android.widget.EditText", text: t, focused: true });
    expect(decidePermission({ type: "input_text", text: "1 Market St" }, { target: field("Street address") })).toMatchObject({ tier: "confirm", kind: "personal_data", ruleId: "field.personal" });
    expect(decidePermission({ type: "input_text", text: "anna@example.com" }, { target: field("") })).toMatchObject({ tier: "confirm", kind: "personal_data", ruleId: "typed.personal" });
    expect(decidePermission({ type: "input_text", text: "+49 30 1234567" }, { target: field("") })).toMatchObject({ tier: "confirm", kind: "personal_data" });
    expect(decidePermission(click, { target: node({ text: "Add to calendar" }) })).toMatchObject({ tier: "confirm", kind: "calendar" });
    expect(decidePermission({ type: "open_deeplink", uri: "myapp://x/7f3a" }, {})).toMatchObject({ tier: "confirm", kind: "deeplink", unsure: true });
    // A store listing is an install away (deeplinks.ts): asked, confirm-tier.
    expect(decidePermission({ type: "open_deeplink", uri: "market://details?id=com.example" }, {})).toMatchObject({ tier: "confirm", kind: "install" });
  });

  it("payment deeplinks are money; a web page about payments is not", () => {
    expect(decidePermission({ type: "open_deeplink", uri: "upi://pay?pa=m@bank&am=499" }, {})).toMatchObject({ tier: "high_risk", kind: "money" });
    expect(decidePermission({ type: "open_deeplink", uri: "shop://checkout/pay" }, {})).toMatchObject({ tier: "high_risk", kind: "money" });
    expect(decidePermission({ type: "open_deeplink", uri: "https://example.org/news/payments-explained" }, {}).tier).toBe("normal");
  });
});

describe("the model's declared intent may raise, never lower", () => {
  it("raises where a verb goes, and is labelled as the model's words", () => {
    const d = decidePermission({ ...click, intent: "forward all contacts" } as Action, {});
    expect(d).toMatchObject({ tier: "high_risk", kind: "communication", ruleId: "intent.words" });
    expect(d.evidence[0]).toMatch(/model's own stated intent/);
    expect(decidePermission({ ...click, intent: "open a post to read it" } as Action, {}).tier).toBe("normal");
    expect(decidePermission({ ...click, intent: "然后转账给他" } as Action, {}).tier).toBe("high_risk");
  });

  it("the control's own label quoted in the intent adds nothing: a negated Allow still backs out, words besides it still raise", () => {
    const deny = node({ text: "허용 안함", resourceId: "com.android.permissioncontroller:id/permission_deny_button" });
    const tree = screen([text("쿠팡이츠에서 알림을 보내도록 허용하시겠습니까?"), node({ text: "허용", resourceId: "com.android.permissioncontroller:id/permission_allow_button" }), deny]);
    expect(decidePermission({ ...click, intent: 'tap "허용 안함"' } as Action, { target: deny, tree }).tier).toBe("normal");
    const ok = node({ text: "OK" });
    expect(decidePermission({ ...click, intent: 'tap "OK" to delete the account' } as Action, { target: ok, tree: screen([text("Settings"), ok]) }).kind).toBe("destructive");
  });

  it("a harmless intent does not lower a risky screen", () => {
    expect(decidePermission({ ...click, intent: "just look at it" } as Action, { target: node({ text: "Pay now" }) }).tier).toBe("high_risk");
  });
});

describe("approvals", () => {
  const follow = (id: string, app = "com.social") => decidePermission(click, { target: node({ text: "Follow", resourceId: id }), packageName: app });
  it("three approvals allow only the same kind on the same target in the same app", () => {
    let a: SessionApprovals = { streak: {} };
    const d = follow("com.social:id/follow_anna");
    for (let i = 0; i < 3; i++) {
      expect(needsGate(d, a)).toBe(true);
      a = recordApproval(a, d.approvalKey, true);
    }
    expect(needsGate(d, a)).toBe(false);
    expect(needsGate(follow("com.social:id/follow_bob"), a)).toBe(true);
    expect(needsGate(follow("com.social:id/follow_anna", "com.other"), a)).toBe(true);
    a = recordApproval(a, d.approvalKey, false);
    expect(needsGate(d, a)).toBe(true);
  });
  it("money, credentials, destructive and permission grants are never auto-allowed, even when confirm-tier", () => {
    const pay = decidePermission(click, { target: node({ text: "Pay" }) });
    expect(needsGate(pay, { streak: { [pay.approvalKey]: 99, pay: 99, money: 99 } })).toBe(true);
    for (const kind of ["money", "credentials", "destructive", "permission"])
      expect(needsGate({ tier: "confirm", kind, approvalKey: `${kind}|a|b` }, { streak: { [`${kind}|a|b`]: 9, [kind]: 9 } })).toBe(true);
    expect(needsGate(askUserDecision(), { streak: {} })).toBe(true);
  });
});

describe("policy as data", () => {
  it("validates, merges over the defaults, and every decision records rule, evidence and version", () => {
    const r = parsePolicyRules({ version: "acme-7", words: { money: ["Kaufen mit Karte", "spendieren"] }, appCategories: [{ app: "com.acme.*", category: "money" }], alwaysAsk: [{ app: "com.acme.hr", label: "Approve leave" }], neverAsk: [{ label: "Follow" }, { label: "Pay" }] });
    if (!r.ok) throw new Error(r.message);
    const rules = r.rules;
    expect(rules.version).toBe("builtin-2026.11+acme-7");
    const d = decidePermission(click, { target: node({ text: "Spendieren" }), rules });
    expect(d).toMatchObject({ tier: "high_risk", kind: "money", ruleId: "target.label", policyVersion: "builtin-2026.11+acme-7" });
    expect(d.evidence.join(" ")).toContain("spendieren");
    const ok = node({ text: "Next" });
    expect(decidePermission(click, { target: ok, tree: screen([ok], "com.acme.payroll"), packageName: "com.acme.payroll", rules })).toMatchObject({ kind: "money", ruleId: "app.money-confirm" });
    expect(decidePermission(click, { target: node({ text: "Approve leave" }), packageName: "com.acme.hr", rules })).toMatchObject({ tier: "confirm", ruleId: "rules.always_ask" });
    // never-ask lowers a confirm-tier kind, never money
    expect(decidePermission(click, { target: node({ text: "Follow" }), rules }).ruleId).toBe("rules.never_ask");
    expect(decidePermission(click, { target: node({ text: "Pay" }), rules }).tier).toBe("high_risk");
  });
  it("rejects malformed rules with a message that says what to fix", () => {
    const r = parsePolicyRules({ version: "", words: { cash: ["x"] } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe("INVALID_POLICY_RULES");
      expect(r.message).toMatch(/version/);
      expect(r.message).toMatch(/Fix the listed fields/);
    }
  });
});

describe("a search field's hint that names what it finds", () => {
  it("takes a query, not personal data ('장소, 버스, 지하철, 주소 검색'); an address field still asks", () => {
    const field = (t: string) => node({ className: "android.widget.EditText", text: t, focused: true });
    for (const hint of ["장소, 버스, 지하철, 주소 검색", "Adresse oder Ort suchen", "場所や住所を検索"])
      expect(decidePermission({ type: "input_text", text: "강남역 근처 약국" }, { target: field(hint) }).tier, hint).toBe("normal");
    expect(decidePermission({ type: "input_text", text: "Hauptstraße 5" }, { target: field("Adresse") })).toMatchObject({ tier: "confirm", ruleId: "field.personal" });
  });
});
