import { describe, expect, it } from "vitest";
import { APP_CATALOG, APP_KINDS, appCategoryFrom, catalogKind } from "./app-catalog.ts";
import { appCategory, isKeyboardPackage } from "./apps.ts";

describe("the catalog", () => {
  it("holds a few hundred distinct real-shaped package names, each under one kind", () => {
    const all = Object.values(APP_CATALOG).flat();
    expect(all.length).toBeGreaterThanOrEqual(300);
    expect(new Set(all).size).toBe(all.length);
    for (const p of all) expect(p, p).toMatch(/^[A-Za-z][\w]*(\.[A-Za-z0-9_]+)+$/);
    expect(all.some((p) => p.startsWith("com.example."))).toBe(false);
    expect(Object.keys(APP_CATALOG).sort()).toEqual([...APP_KINDS].sort());
  });

  it.each([
    ["ru.sberbankmobile", "bank", "money"],
    ["com.kasikorn.retail.mbanking.wap", "bank", "money"],
    ["com.bca", "bank", "money"],
    ["com.phonepe.app", "wallet", "money"],
    ["se.bankgirot.swish", "payment", "money"],
    ["com.binance.dev", "crypto", "money"],
    ["com.fanduel.sportsbook", "betting", "money"],
    ["com.shopee.id", "shopping", "shopping"],
    ["com.grabtaxi.passenger", "rides", "shopping"],
    ["jp.naver.line.android", "messaging", "messaging"],
    ["com.instagram.android", "social", "social"],
    ["com.google.android.gm", "email", "email"],
    ["com.android.settings", "settings", "settings"],
    ["com.google.android.permissioncontroller", "permission", "permission"],
  ])("%s is a %s app", (pkg, kind, category) => {
    expect(catalogKind(pkg)).toBe(kind);
    expect(appCategoryFrom({ packageName: pkg })).toMatchObject({ kind, category, source: "catalog" });
    expect(appCategory(pkg)).toBe(category);
  });
});

describe("evidence beyond the catalog", () => {
  it("the app's label names what it is, in many languages", () => {
    const cases: [string, string][] = [
      ["Mi Banco Móvil", "bank"],
      ["토스뱅크", "bank"],
      ["招商银行", "bank"],
      ["ธนาคารกรุงไทย", "bank"],
      ["بنك الرياض", "bank"],
      ["Crypto Wallet", "crypto"],
      ["Sportwetten 24", "betting"],
      ["کیف پول من", "wallet"],
      ["DANA Dompet Digital", "wallet"],
      ["Mega Shop", "shopping"],
    ];
    for (const [appLabel, kind] of cases) expect(appCategoryFrom({ packageName: "org.unlisted.app", appLabel }), appLabel).toMatchObject({ kind, source: "label", category: kind === "shopping" ? "shopping" : "money" });
  });

  it("the screen's words, two of one kind", () => {
    expect(appCategoryFrom({ packageName: "org.unlisted.app", screenText: "Available balance 1.234,00 € · Transfer · IBAN DE89…" })).toMatchObject({ category: "money", kind: "bank", source: "screen" });
    expect(appCategoryFrom({ packageName: "org.unlisted.app", screenText: "Bet slip · Odds 2.50 · Stake" })).toMatchObject({ category: "money", kind: "betting" });
    expect(appCategoryFrom({ packageName: "org.unlisted.app", screenText: "Welcome back" })).toBeNull();
    expect(appCategoryFrom({ packageName: "org.unlisted.app", screenText: "Transfer" })).toBeNull();
  });

  it("package-name words count when nothing better is known, and the catalog wins over them", () => {
    expect(appCategoryFrom({ packageName: "com.mybank.mobile" })).toMatchObject({ category: "money", source: "package" });
    expect(appCategory("com.acme.shop")).toBe("shopping");
    expect(appCategoryFrom({ packageName: "com.android.vending", appLabel: "Bank" })).toMatchObject({ category: "store", source: "catalog" });
  });

  it("a workspace's own categories come first (apps.ts's appCategory keeps them)", () => {
    const extra = [{ app: "com.whatsapp", category: "money" as const }, { app: "org.inhouse.*", category: "messaging" as const }];
    expect(appCategory("com.whatsapp", extra)).toBe("money");
    expect(appCategory("org.inhouse.chatter", extra)).toBe("messaging");
    expect(appCategoryFrom({ packageName: "org.inhouse.x" }, extra)).toMatchObject({ source: "workspace" });
    expect(isKeyboardPackage("com.google.android.inputmethod.latin")).toBe(true);
    expect(isKeyboardPackage("com.whatsapp")).toBe(false);
    expect(appCategory(undefined)).toBeNull();
  });
});
