import { describe, expect, it } from "vitest";
import { decidePermission, needsGate, recordApproval, matchWords, HIGH_RISK_WORDS } from "./index.ts";
import type { UiNode } from "../ports.ts";
import type { Action } from "../actions/schema.ts";

const node = (over: Partial<UiNode>): UiNode => ({
  index: 0, text: "", resourceId: "", className: "android.widget.Button", packageName: "com.x", contentDesc: "",
  checkable: false, checked: false, clickable: true, enabled: true, focusable: false, focused: false, scrollable: false,
  longClickable: false, password: false, selected: false, bounds: { left: 0, top: 0, right: 100, bottom: 100 }, children: [], ...over,
});
const click: Action = { type: "click", x: 10, y: 10 };

describe("permission tiers", () => {
  it.each([
    ["Send", "send"], ["Pay now", "pay"], ["Buy now", "buy"], ["Delete", "delete"], ["Publish", "publish"], ["Install", "install"], ["Transfer", "transfer"],
    ["发送", "send"], ["立即支付", "pay"], ["删除", "delete"], ["购买", "buy"], ["发布", "publish"], ["转账", "transfer"],
    ["送信", "send"], ["購入", "buy"], ["Enviar", "send"], ["Bezahlen", "pay"], ["Supprimer", "delete"],
  ])("a tap on %s is high-risk (%s)", (text, kind) => {
    const d = decidePermission(click, { target: node({ text }) });
    expect(d.tier).toBe("high_risk");
    expect(d.kind).toBe(kind);
  });

  it("reads a button's label from its child and its description", () => {
    expect(decidePermission(click, { target: node({ children: [node({ text: "Send message", clickable: false })] }) }).tier).toBe("high_risk");
    expect(decidePermission(click, { target: node({ contentDesc: "Delete conversation" }) }).tier).toBe("high_risk");
    expect(decidePermission(click, { target: node({ resourceId: "com.x:id/btn_pay" }) }).tier).toBe("high_risk");
  });

  it("does not fire on look-alikes or on content", () => {
    expect(decidePermission(click, { target: node({ text: "Sender" }) }).tier).toBe("normal");
    expect(decidePermission(click, { target: node({ text: "Posts" }) }).tier).toBe("normal");
    expect(decidePermission(click, { target: node({ text: "Kate: the hard part is reliability, and you should never pay for a popup-ridden agent" }) }).tier).toBe("normal");
    expect(decidePermission(click, { target: node({ className: "android.widget.EditText", text: "Post your reply" }) }).tier).toBe("normal");
    expect(decidePermission({ type: "scroll", direction: "down" }, { target: node({ text: "Pay" }) }).tier).toBe("normal");
  });

  it("uses the declared intent, where a verb goes", () => {
    expect(decidePermission({ ...click, intent: "forward all contacts" } as Action, {}).tier).toBe("high_risk");
    expect(decidePermission({ ...click, intent: "open a post to read it" } as Action, {}).tier).toBe("normal");
    expect(decidePermission({ ...click, intent: "然后转账给他" } as Action, {}).tier).toBe("high_risk");
  });

  it("by action type and by app", () => {
    expect(decidePermission({ type: "input_text", text: "hi" }, {}).tier).toBe("confirm");
    expect(decidePermission({ type: "open_deeplink", uri: "shop://checkout/pay" }, {}).tier).toBe("high_risk");
    expect(decidePermission(click, { packageName: "com.example.bank" }).tier).toBe("confirm");
    expect(decidePermission({ type: "navigate_back" }, { packageName: "com.example.bank" }).tier).toBe("normal");
    expect(decidePermission(click, { target: node({ text: "Follow" }) })).toMatchObject({ tier: "confirm", kind: "follow" });
  });

  it("confirm tier: auto-allowed after 3 consecutive approvals of the same kind; a denial resets; high-risk never", () => {
    const typing = decidePermission({ type: "input_text", text: "x" }, {});
    let a = { streak: {} as Record<string, number> };
    for (let i = 0; i < 3; i++) {
      expect(needsGate(typing, a)).toBe(true);
      a = recordApproval(a, typing.kind, true);
    }
    expect(needsGate(typing, a)).toBe(false);
    expect(needsGate(decidePermission(click, { target: node({ text: "Follow" }) }), a)).toBe(true);
    a = recordApproval(a, typing.kind, false);
    expect(needsGate(typing, a)).toBe(true);
    const pay = decidePermission(click, { target: node({ text: "Pay" }) });
    expect(needsGate(pay, { streak: { pay: 99 } })).toBe(true);
  });

  it("keeps a word list per language", () => {
    expect(Object.keys(HIGH_RISK_WORDS)).toEqual(expect.arrayContaining(["en", "zh", "ja", "es", "de", "fr"]));
    expect(matchWords("确认支付", HIGH_RISK_WORDS)?.category).toBe("pay");
  });
});
