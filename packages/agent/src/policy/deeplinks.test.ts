import { describe, expect, it } from "vitest";
import { judgeUri, namesPackageFile, parseIntentUri } from "./deeplinks.ts";

const judged = (uri: string) => judgeUri(uri);

describe("tel: links", () => {
  it.each([
    "tel:*123%23",
    "tel:*#06#",
    "tel:**21*5551234%23",
    "tel:+1-900-555-0199",
    "tel:+44 909 876 5432",
    "tel:09001234567",
    "tel:+49 900 1234567",
    "tel:0899 123 456",
    "tel:+33 8 99 12 34 56",
    "tel:+34 806 123 456",
    "tel:899123456",
    "tel:+81 990 123 456",
    "tel:0570-064-555",
    "tel:112",
    "tel:7726",
  ])("%s is high risk", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "high_risk", category: "communication" });
  });

  it.each(["tel:+1 650 253 0000", "tel:+49 30 1234567", "tel:02-123-4567", "tel:+91 98765 43210"])("%s: an ordinary number asks first", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "confirm", category: "communication" });
  });
});

describe("messages and e-mail", () => {
  it.each([
    "sms:+15551234567?body=Hello%20there",
    "smsto:5551234567?body=STOP",
    "sms:+447700900123;body=Call me",
    "mms:+15551234567?body=pic",
    "mailto:someone@example.org?subject=Hi&body=Please%20find%20attached",
    "whatsapp://send?phone=15551234567&text=Hi",
    "https://wa.me/15551234567?text=I%27m%20interested",
    "tg://msg?text=hello",
    "line://msg/text/hello",
    "https://twitter.com/intent/tweet?text=Look",
  ])("%s with text to send is high risk", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "high_risk", category: "communication" });
  });

  it.each(["sms:+15551234567", "smsto:+4915112345678", "mailto:someone@example.org", "mailto:someone@example.org?subject=Hi"])("%s without a body asks first", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "confirm", category: "communication" });
  });

  it("a message to a short code is high risk even without a body", () => {
    expect(judged("sms:88000")).toMatchObject({ tier: "high_risk" });
  });
});

describe("installs", () => {
  it.each(["https://example.org/downloads/app-release.apk", "http://cdn.example.net/x.apk?v=2", "file:///sdcard/Download/game.xapk", "content://downloads/public/app.apk", "itms-services://?action=download-manifest&url=https://x/y.plist"])("%s installs (high risk)", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "high_risk", category: "install" });
  });

  it.each(["market://details?id=com.whatsapp", "https://play.google.com/store/apps/details?id=com.whatsapp", "itms-apps://itunes.apple.com/app/id310633997", "https://appgallery.huawei.com/app/C100", "samsungapps://ProductDetail/com.x"])("%s opens a store listing (confirm)", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "confirm", category: "install" });
  });

  it("a store search only looks", () => {
    expect(judged("market://search?q=calculator").tier).toBe("normal");
  });
});

describe("payments", () => {
  it.each([
    "upi://pay?pa=merchant@okaxis&pn=Shop&am=499.00&cu=INR",
    "paytmmp://pay?pa=x@paytm&am=10",
    "phonepe://pay?pa=x@ybl",
    "alipays://platformapi/startapp?saId=10000007&qrcode=https%3A%2F%2Fqr.alipay.com%2Fx",
    "weixin://wxpay/bizpayurl?pr=abc",
    "wxp://f2f0abcdef",
    "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.01",
    "ethereum:0x89205A3A3b2A69De6Dbf7f01ED13B2108B2c43e7@1?value=1e18",
    "wc:8a5e5bdc-a0e4-4702-ba63-8f1a5655744f@1?bridge=https%3A%2F%2Fbridge.walletconnect.org&key=41791102",
    "swish://payment?data=%7B%22amount%22%3A100%7D",
    "momo://app?action=payWithApp",
    "zalopay://pay?order=1",
    "supertoss://send?amount=10000",
    "kakaotalk://kakaopay/money/to/qr?qr_code=abc",
    "dana://pay?x=1",
    "venmo://paycharge?txn=pay&recipients=alice&amount=20",
    "cashme://$alice/20",
    "https://paypal.me/alice/25EUR",
    "https://www.paypal.com/checkoutnow?token=EC-1",
    "https://cash.app/$alice/20",
    "https://buy.stripe.com/test_123",
    "https://qr.alipay.com/fkx123",
    "https://tikkie.me/pay/abc",
    "https://qr.nspk.ru/AS1000",
    "https://me.momo.vn/alice",
    "sadad://pay?billId=1234567890123&payId=45000123",
    "someshopapp://checkout?order=1",
    "unknownwallet://send?to=x&amount=20",
  ])("%s is money (high risk)", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "high_risk", category: "money" });
  });

  it("WeChat's chat links and LINE's profile links are no payment", () => {
    expect(judged("weixin://dl/chat").tier).toBe("normal");
    expect(judged("line://ti/p/@shop").tier).toBe("normal");
  });
});

describe("intent: links", () => {
  it("are judged by their inner scheme", () => {
    expect(judged("intent://pay?pa=x@upi&am=10#Intent;scheme=upi;package=com.phonepe.app;end")).toMatchObject({ tier: "high_risk", category: "money" });
    expect(judged("intent://details?id=com.x#Intent;scheme=market;package=com.android.vending;end")).toMatchObject({ tier: "confirm", category: "install" });
  });

  it("by their browser fallback URL", () => {
    expect(judged("intent://open#Intent;scheme=someapp;package=com.some.app;S.browser_fallback_url=https%3A%2F%2Fevil.example%2Fapp.apk;end")).toMatchObject({ tier: "high_risk", category: "install" });
  });

  it("by their action, MIME type and extras", () => {
    expect(judged("intent:#Intent;action=android.settings.ACTION_MANAGE_OVERLAY_PERMISSION;end")).toMatchObject({ tier: "high_risk", category: "permission" });
    expect(judged("intent:#Intent;action=android.intent.action.CALL;end")).toMatchObject({ tier: "high_risk", category: "communication" });
    expect(judged("intent:#Intent;action=android.intent.action.VIEW;type=application/vnd.android.package-archive;end")).toMatchObject({ tier: "high_risk", category: "install" });
    expect(judged("intent:#Intent;action=android.intent.action.SENDTO;S.sms_body=hello;end")).toMatchObject({ tier: "high_risk", category: "communication" });
  });

  it("a plain page in an app stays normal; an unreadable one asks", () => {
    expect(judged("intent://maps.google.com/maps?q=cafe#Intent;scheme=https;package=com.google.android.apps.maps;end").tier).toBe("normal");
    expect(judged("intent:#Intent;end").tier).toBe("confirm");
  });

  it("parses Android's Intent.toUri format", () => {
    expect(parseIntentUri("intent://scan/#Intent;scheme=zxing;package=com.google.zxing.client.android;S.browser_fallback_url=http%3A%2F%2Fzxing.org;end")).toEqual({
      scheme: "zxing",
      rest: "//scan/",
      package: "com.google.zxing.client.android",
      extras: { browser_fallback_url: "http://zxing.org" },
    });
    expect(parseIntentUri("https://example.org")).toBeNull();
  });
});

describe("settings actions", () => {
  it.each([
    "android.settings.ACTION_MANAGE_OVERLAY_PERMISSION",
    "android.settings.action.MANAGE_OVERLAY_PERMISSION",
    "android.settings.ACCESSIBILITY_SETTINGS",
    "android.settings.MANAGE_UNKNOWN_APP_SOURCES",
    "android.settings.ACTION_NOTIFICATION_LISTENER_SETTINGS",
    "android.app.action.ADD_DEVICE_ADMIN",
    "android.settings.USAGE_ACCESS_SETTINGS",
    "android.settings.REQUEST_IGNORE_BATTERY_OPTIMIZATIONS",
    "android.net.vpn.SETTINGS",
    "android.settings.MANAGE_DEFAULT_APPS_SETTINGS",
    "android.app.role.action.REQUEST_ROLE",
    "android.settings.REQUEST_SET_AUTOFILL_SERVICE",
  ])("%s grants special access (high risk)", (uri) => {
    expect(judged(uri)).toMatchObject({ tier: "high_risk", category: "permission" });
  });

  it.each(["android.settings.WIFI_SETTINGS", "android.settings.DEVICE_INFO_SETTINGS", "android.settings.APPLICATION_DETAILS_SETTINGS", "android.settings.BLUETOOTH_SETTINGS"])("%s only shows information", (uri) => {
    expect(judged(uri).tier).toBe("normal");
  });

  it("uninstalling or a factory reset is destructive", () => {
    expect(judged("intent:#Intent;action=android.intent.action.DELETE;end")).toMatchObject({ tier: "high_risk", category: "destructive" });
  });
});

describe("what only opens a page", () => {
  it.each(["https://en.wikipedia.org/wiki/Phone", "http://example.org/help", "geo:37.422,-122.084?q=cafe", "google.navigation:q=Berlin", "https://maps.google.com/?q=Tokyo", "youtube://watch?v=x", "package:com.whatsapp", "https://github.com/pay-attention/docs", "https://en.wikipedia.org/wiki/Payment", "https://help.example.org/payment/methods"])("%s is normal", (uri) => {
    expect(judged(uri).tier).toBe("normal");
  });

  it("an app scheme the policy does not know asks first", () => {
    expect(judged("someunknownapp://do/thing")).toMatchObject({ tier: "confirm", category: "unknown_app" });
    expect(judged("javascript:alert(1)").tier).toBe("confirm");
  });

  it("a checkout path on an unknown site asks first", () => {
    expect(judged("https://shop.example.org/checkout?cart=1")).toMatchObject({ tier: "confirm", category: "money" });
    expect(judged("https://shop.example.org/pay/ord_8812")).toMatchObject({ tier: "confirm", category: "money" });
    expect(judged("https://pay.example.org/i/123")).toMatchObject({ tier: "confirm", category: "money" });
  });
});

describe("a package file named in a text", () => {
  it("is an install wherever the name sits; a file that only mentions apk in its name is not", () => {
    for (const t of ["Undangan Pernikahan Digital.apk", "Фото_с_праздника.APK 4,1 МБ", "game.xapk", "بطاقة.apk"]) expect(namesPackageFile(t), t).toBe(true);
    for (const t of ["apk_guide.pdf", "Фото.jpg", "the .apkg deck", "APK"]) expect(namesPackageFile(t), t).toBe(false);
  });
});
