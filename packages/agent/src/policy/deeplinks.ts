// A URI judged by what it opens, not by its words: a scheme and host policy as data. The agent's `open_deeplink`
// action hands the URI to Android, which opens whatever app claims it; what matters is what that app is asked to do.
//
// API (stable; decide.ts calls it):
//   judgeUri(uri) → { tier, category?, evidence, scheme }
//     tier      normal | confirm | high_risk
//     category  money | communication | install | permission | destructive | unknown_app (absent when normal)
//     evidence  one sentence saying what the link opens
//   parseIntentUri(uri) → the parts of an `intent:` URI (scheme, host and path, package, action, type, extras) or null
//
// What is judged:
//   tel: / telprompt: / callto:  USSD and MMI codes (* and #), premium-rate and emergency numbers: high_risk;
//                                 any other number: confirm (communication: the dialer opens with it)
//   sms: smsto: mms: mmsto:      with a body: high_risk; without: confirm (communication)
//   mailto:                      with a body: high_risk; without: confirm (communication)
//   messaging app links          with text to send (whatsapp://send?text=, tg://msg?text=, line://msg/…): high_risk
//   store listings               market:, itms-apps:, store hosts: confirm (install); a direct .apk: high_risk
//   intent:                      its inner scheme, action, package, MIME type and extras, and its browser
//                                 fallback URL, each judged; the highest counts
//   payment and wallet schemes   upi:, alipays:, wxp:, weixin://wxpay, bitcoin:, wc:, swish:, … : high_risk money
//   payment hosts                paypal.me, cash.app, buy.stripe.com, qr.alipay.com, tikkie.me, …: high_risk money
//   settings actions             special access (overlay, accessibility, unknown sources, notification listener,
//                                 device admin, usage access, battery exemption, VPN, default apps…): high_risk
//                                 permission; settings pages that only show information: normal
//   an app scheme the policy does not know: confirm (unknown_app); web pages, geo:, maps, app pages: normal.
// Hand-written: the schemes, hosts and number ranges below are the team's own curation from each platform's and
// network's public documentation; no package classifies links by what they do.
import { catalogKind, MONEY_KINDS } from "./app-catalog.ts";

export type LinkTier = "normal" | "confirm" | "high_risk";
export type LinkCategory = "money" | "communication" | "install" | "permission" | "destructive" | "unknown_app";

export interface LinkJudgement {
  tier: LinkTier;
  category?: LinkCategory;
  evidence: string;
  /** The URI's scheme, lower case ("" for a bare settings action). */
  scheme: string;
}

const RANK: Record<LinkTier, number> = { normal: 0, confirm: 1, high_risk: 2 };

// ---- data ---------------------------------------------------------------------------------------------------------

/** Schemes that start a payment or a transfer of money or crypto in the app that claims them. */
const PAYMENT_SCHEMES = new Set([
  "upi", "paytmmp", "paytm", "phonepe", "gpay", "tez", "bhim", "credpay", "mobikwik", "amazonpay",
  "alipay", "alipays", "alipayqr", "alipayhk", "wxp", "wxpay", "unionpay", "upwallet", "cmbmobilebank",
  "paypal", "venmo", "cashme", "cashapp", "zelle", "applepay", "googlepay", "samsungpay", "klarna", "afterpay",
  "bitcoin", "bitcoincash", "litecoin", "dogecoin", "ethereum", "lightning", "lnurl", "solana", "tron", "ton", "monero", "ripple", "xrpl", "stellar", "cardano",
  "wc", "metamask", "trust", "tonkeeper", "phantom", "rainbow", "okx", "bnc", "binance", "cbwallet", "exodus", "bitkeep",
  "promptpay", "truemoney", "ascendmoney", "scbeasy", "kplus", "krungthai-next", "bualuang",
  "dana", "ovo", "gopay", "shopeepay", "linkaja", "jenius", "bcamobile",
  "momo", "zalopay", "vnpay", "viettelpay", "moca",
  "linepay", "kakaopay", "supertoss", "toss", "payco", "naverpay", "paypay", "merpay", "rakutenpay", "aupay", "dbarai",
  "swish", "vipps", "mobilepay", "blik", "ideal", "bizum", "mbway", "pix", "picpay", "mercadopago", "nubank", "pagseguro",
  "sberpay", "sbp", "sberbankonline", "tinkoffbank", "tinkoff", "yoomoney", "qiwi", "privat24", "monobank",
  "sadad", "bkash", "nagad", "jazzcash", "easypaisa", "mpesa", "revolut", "monzo", "wise", "n26", "lydia", "paylib", "satispay", "twint", "payconiq",
  "stcpay", "urpay", "tabby", "tamara", "mada", "grabpay", "boost", "touchngo", "tng", "mae", "maybank2u",
]);

/** Schemes of apps whose links pay only on a payment path (the same app also opens chats and pages). */
const PAYMENT_PATHS: Record<string, RegExp> = {
  weixin: /^\/\/(?:wxpay|pay|dl\/business\/\?t=|app\/\w+\/pay)/i,
  kakaotalk: /^\/\/(?:kakaopay|pay)/i,
  line: /^\/\/(?:pay|msg\/text\/.*pay)/i,
  gojek: /^\/\/(?:gopay|pay)/i,
  grab: /^\/\/(?:open\?screenType=(?:PAYMENT|GRABPAY)|pay)/i,
  shopeeid: /^\/\/(?:.*shopeepay|.*pay)/i,
  tmall: /^\/\/.*pay/i,
  taobao: /^\/\/.*pay/i,
};

/** Hosts whose pages take a payment, a transfer or a checkout (https links; "*." covers subdomains). */
const PAYMENT_HOSTS = [
  "paypal.me", "www.paypal.me", "paypal.com/paypalme", "paypal.com/checkoutnow", "paypal.com/donate", "paypal.com/pay", "paypal.com/send",
  "venmo.com/code", "account.venmo.com/pay", "cash.app", "cash.me", "buy.stripe.com", "checkout.stripe.com", "donate.stripe.com",
  "qr.alipay.com", "render.alipay.com", "mclient.alipay.com", "wx.tenpay.com", "pay.weixin.qq.com", "payapp.weixin.qq.com",
  "rzp.io", "pages.razorpay.com", "razorpay.me", "paytm.me", "p.paytm.me", "phon.pe", "upi.link",
  "link.dana.id", "app.midtrans.com", "checkout.xendit.co", "pay.line.me", "qr.kakaopay.com", "toss.me", "qr.nspk.ru", "pay.mironline.ru",
  "tikkie.me", "bunq.me", "revolut.me", "wise.com/pay", "monzo.me", "lydia-app.com/collect", "paylib.fr", "pay.sumup.com", "square.link", "checkout.square.site",
  "mpago.la", "mpago.li", "mercadopago.com/checkout", "mercadopago.com.br/checkout", "mercadopago.com.mx/checkout", "picpay.me", "nubank.com.br/pagar", "pag.ae",
  "app.swish.nu", "qr.swish.nu", "mobilepay.dk/box", "qr.vipps.no", "betaalverzoek.rabobank.nl", "ideal.nl/betalen", "bizum.es/pagar", "blik.com/p",
  "me.momo.vn", "nhantien.momo.vn", "qr.zalopay.vn", "social.zalopay.vn", "pay.vnpay.vn", "promptpay.io", "gopay.co.id/app", "gopay.link", "ovo.id/pay",
  "commerce.coinbase.com", "pay.coinbase.com", "pay.binance.com", "app.binance.com/payment", "link.trustwallet.com/send", "metamask.app.link/send",
  "pay.google.com/gp/v/send", "gpay.app.goo.gl", "checkout.shopify.com", "pay.shop.app", "buy.itunes.apple.com",
];

/** Hosts and paths that open a store listing (an install away). */
const STORE_HOSTS = [
  "play.google.com/store/apps", "market.android.com/details", "apps.apple.com", "itunes.apple.com", "appgallery.huawei.com", "appgallery.cloud.huawei.com",
  "galaxystore.samsung.com", "apps.samsung.com", "app.mi.com", "global.app.mi.com", "apps.rustore.ru", "f-droid.org/packages", "apkpure.com", "apkmirror.com", "uptodown.com",
  "appstore.vivo.com.cn", "app.cdo.oppomobile.com", "sj.qq.com/appdetail", "apps.microsoft.com",
];
const STORE_SCHEMES = new Set(["market", "itms-apps", "itms-appss", "itms-services", "samsungapps", "appmarket", "mimarket", "hiapplink", "oppomarket", "vivomarket", "amzn", "rustore", "fdroid", "tmast"]);

/** Android settings and system actions that grant an app special access or power over the phone. */
const GRANTING_ACTIONS: Record<string, string> = {
  "android.settings.action.manage_overlay_permission": "drawing over other apps",
  "android.settings.accessibility_settings": "accessibility services (control of the screen)",
  "android.settings.accessibility_details_settings": "an accessibility service (control of the screen)",
  "android.settings.manage_unknown_app_sources": "installing unknown apps",
  "android.settings.action_notification_listener_settings": "notification access (reading every notification)",
  "android.settings.action.notification_listener_settings": "notification access (reading every notification)",
  "android.settings.notification_listener_detail_settings": "notification access (reading every notification)",
  "android.settings.notification_policy_access_settings": "Do Not Disturb access",
  "android.settings.action_condition_provider_settings": "Do Not Disturb access",
  "android.app.action.add_device_admin": "device administrator",
  "android.app.action.provision_managed_profile": "a managed work profile",
  "android.app.action.provision_managed_device": "device management",
  "android.app.action.set_new_password": "the screen lock",
  "android.settings.usage_access_settings": "usage access (which apps are used)",
  "android.settings.request_ignore_battery_optimizations": "running unrestricted in the background",
  "android.settings.ignore_battery_optimization_settings": "running unrestricted in the background",
  "android.net.vpn.settings": "VPN (all traffic)",
  "android.settings.vpn_settings": "VPN (all traffic)",
  "android.net.vpnservice": "VPN (all traffic)",
  "android.settings.manage_default_apps_settings": "default apps",
  "android.settings.home_settings": "the default home app",
  "android.app.role.action.request_role": "a default app role (SMS, phone, browser, home…)",
  "android.provider.telephony.action_change_default": "the default SMS app",
  "android.telecom.action.change_default_dialer": "the default phone app",
  "android.settings.action.manage_write_settings": "modifying system settings",
  "android.settings.manage_all_files_access_permission": "access to all files",
  "android.settings.manage_app_all_files_access_permission": "access to all files",
  "android.settings.request_manage_media": "managing media files",
  "android.settings.request_set_autofill_service": "the autofill service (sees typed passwords)",
  "android.settings.credential_provider": "the passwords and passkeys provider",
  "android.settings.input_method_settings": "enabling a keyboard (sees everything typed)",
  "android.settings.nfc_payment_settings": "the default contactless payment app",
  "android.settings.application_development_settings": "developer options",
  "android.intent.action.install_package": "installing an app",
  "android.settings.request_schedule_exact_alarm": "exact alarms",
  "android.settings.manage_app_use_full_screen_intent": "full-screen notifications",
  "android.settings.picture_in_picture_settings": "picture-in-picture",
};
const INSTALL_ACTIONS = new Set(["android.intent.action.install_package", "android.content.pm.action.request_install"]);
const DESTRUCTIVE_ACTIONS: Record<string, string> = {
  "android.intent.action.delete": "uninstalling an app",
  "android.intent.action.uninstall_package": "uninstalling an app",
  "android.settings.action.factory_reset": "a factory reset",
  "android.intent.action.factory_reset": "a factory reset",
  "android.intent.action.master_clear": "a factory reset",
};
const CALL_ACTIONS = new Set(["android.intent.action.call", "android.intent.action.call_privileged", "android.intent.action.call_emergency"]);
const SEND_ACTIONS = new Set(["android.intent.action.send", "android.intent.action.sendto", "android.intent.action.send_multiple"]);

/** Messaging apps' links with the parameter or path that carries text to send. */
const MESSAGE_TEXT: Record<string, RegExp> = {
  whatsapp: /[?&]text=./i, "whatsapp-business": /[?&]text=./i, tg: /^\/\/(?:msg|share)\b.*[?&](?:text|url)=./i, telegram: /[?&]text=./i,
  viber: /^\/\/forward\b.*[?&]text=./i, line: /^\/\/msg\/text\/./i, kakaotalk: /^\/\/send\b.*[?&]text=./i, skype: /[?&]chat\b.*[?&]topic=./i,
  fb: /^\/\/(?:messaging|share)\b.*[?&](?:text|body)=./i, "fb-messenger": /[?&](?:text|body)=./i, twitter: /^\/\/post\b.*[?&]message=./i, x: /^\/\/post\b.*[?&]message=./i,
  zalo: /[?&](?:text|msg)=./i, imo: /[?&]text=./i, signal: /[?&]text=./i, weixin: /^\/\/dl\/(?:msg|share)\b/i, snapchat: /[?&]text=./i,
};
const MESSAGE_HOSTS: [RegExp, RegExp][] = [
  [/^(?:api\.|web\.)?whatsapp\.com$|^wa\.me$/i, /[?&]text=./i],
  [/^t\.me$|^telegram\.me$/i, /^\/share\/url\b.*[?&](?:text|url)=./i],
  [/^(?:twitter|x)\.com$/i, /^\/intent\/(?:tweet|post)\b.*[?&]text=./i],
  [/^(?:www\.)?facebook\.com$/i, /^\/dialog\/(?:send|feed)\b/i],
  [/^line\.me$/i, /^\/R\/(?:msg|share)\/text\/./i],
];

/** Apps and places whose links only open something to look at. */
const VIEW_SCHEMES = new Set([
  "http", "https", "geo", "maps", "comgooglemaps", "google.navigation", "google.streetview", "waze", "yandexmaps", "yandexnavi", "baidumap", "iosamap", "androidamap", "kakaomap", "nmap", "here-route",
  "content", "file", "about", "package",
  "youtube", "vnd.youtube", "spotify", "fb", "instagram", "twitter", "x", "tiktok", "snssdk1128", "snssdk1233", "reddit", "linkedin", "pinterest", "threads", "bilibili", "weibo", "sinaweibo", "xhsdiscover", "zhihu", "douyin",
  "whatsapp", "whatsapp-business", "tg", "telegram", "line", "kakaotalk", "weixin", "zalo", "viber", "skype", "fb-messenger", "signal", "imo", "snapchat", "discord", "slack",
  "googlechrome", "googlechromes", "firefox", "opera", "microsoft-edge", "shopee", "shopeeid", "lazada", "tokopedia", "taobao", "tmall", "openapp.jdmobile", "amazon", "ebay", "aliexpress", "coupang", "zalando", "mercadolibre", "ozon", "wildberries",
  "grab", "gojek", "uber", "lyft", "bolt", "didi", "booking", "airbnb", "agoda", "netflix", "primevideo", "disneyplus", "hotstar", "zoomus", "msteams", "googlemeet", "duolingo", "notion", "evernote",
]);

/** Settings pages that only show information or harmless switches. */
const INFO_ACTIONS = /^android\.settings\.(?:settings|wifi_settings|wireless_settings|bluetooth_settings|display_settings|sound_settings|date_settings|locale_settings|device_info_settings|about|storage_settings|internal_storage_settings|memory_card_settings|battery_saver_settings|application_settings|manage_applications_settings|manage_all_applications_settings|application_details_settings|app_notification_settings|channel_notification_settings|location_source_settings|airplane_mode_settings|data_roaming_settings|network_operator_settings|apn_settings|nfc_settings|cast_settings|privacy_settings|search_settings|sync_settings|captioning_settings|hard_keyboard_settings|user_dictionary_settings|webview_settings|night_display_settings|dream_settings|zen_mode_priority_settings|wifi_ip_settings|data_usage_settings|app_locale_settings|app_open_by_default_settings|security_settings|biometric_enroll|fingerprint_enroll|show_regulatory_info)$/;

// ---- numbers ------------------------------------------------------------------------------------------------------

/** Premium-rate and revenue-share ranges, by E.164 digits (after "+") and by national dialling (with its 0). */
const PREMIUM_E164 = /^(?:1(?:900|976)\d{7}|44(?:9\d{9}|87\d{8}|70\d{8}|118\d{3})|49(?:900|137|138|118)\d{3,8}|33(?:8[1-9]\d{7}|3\d{3})|34(?:80[3-7]|90[5-7])\d{6}|39(?:89[2-9]|144|166)\d{4,7}|31(?:900|906|909)\d{4,7}|32(?:90\d)\d{5}|41(?:90[0-6])\d{6}|43(?:9[0-3]\d)\d{4,9}|48(?:70\d)\d{6}|46(?:939|944|99\d)\d{4,7}|7809\d{7}|90(?:900|888)\d{7}|55(?:0?900)\d{7}|911900\d{6,7}|61(?:19\d{2})\d{4,6}|81(?:990|570)\d{6}|8260\d{7,8}|52900\d{7}|62809\d{5,8}|661900\d{6}|631900\d{6,7}|60(?:600)\d{5,6}|972(?:19\d{2})\d{3,6}|380(?:900)\d{6}|40(?:90\d)\d{6}|351(?:60[78])\d{6}|353(?:15\d{2})\d{5,6}|27(?:86[2-9])\d{6}|966(?:700)\d{6}|971(?:900)\d{5,7}|20(?:900|909)\d{5,7})$/;
const PREMIUM_NATIONAL = /^(?:1?(?:900|976)\d{7}|0(?:900|906|909)\d{4,8}|01(?:37|38)\d{4,8}|0118\d{2,3}|118\d{2,3}|089\d{7}|0?89[2-9]\d{4,7}|80[3-7]\d{6}|90[5-7]\d{6}|0(?:990|570)\d{6}|060\d{7,8}|8809\d{7}|1900\d{6,7}|0809\d{5,8}|70\d{7})$/;
/** Emergency numbers of the 24 markets and the common ones (a call is not undone). */
const EMERGENCY = new Set(["112", "911", "999", "000", "110", "119", "120", "122", "100", "101", "102", "103", "104", "108", "15", "17", "18", "190", "191", "192", "193", "197", "199", "995", "997", "998", "1669", "113", "114", "115", "116", "155", "156", "158", "901", "902", "911"]);

function judgeNumber(raw: string, via: string): { tier: LinkTier; evidence: string } {
  const number = decode(raw).split(/[;?]/)[0]!.trim();
  if (/[*#]/.test(number)) return { tier: "high_risk", evidence: `${via} dials the USSD/MMI code ${JSON.stringify(number)} (codes can move money, forward calls or change settings)` };
  const plus = number.startsWith("+") || number.startsWith("00");
  const digits = number.replace(/[^\d]/g, "").replace(/^00/, "");
  if (!digits) return { tier: "confirm", evidence: `${via} opens the dialer` };
  if (plus ? PREMIUM_E164.test(digits) : PREMIUM_NATIONAL.test(digits)) return { tier: "high_risk", evidence: `${via} calls ${JSON.stringify(number)}, a premium-rate number` };
  if (!plus && EMERGENCY.has(digits)) return { tier: "high_risk", evidence: `${via} calls the emergency number ${digits}` };
  if (!plus && digits.length >= 3 && digits.length <= 6) return { tier: "high_risk", evidence: `${via} reaches the short code ${digits} (short codes are often charged)` };
  return { tier: "confirm", evidence: `${via} prepares a call to ${JSON.stringify(number)}` };
}

// ---- parsing ------------------------------------------------------------------------------------------------------

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, "%2B"));
  } catch {
    return s;
  }
}

export interface IntentUri {
  /** The scheme the intent carries (`scheme=`), or "" */
  scheme: string;
  /** The part before `#Intent` (after `intent:`), e.g. "//pay?pa=…" or "". */
  rest: string;
  package?: string;
  action?: string;
  component?: string;
  type?: string;
  /** Extras by their key without the type prefix ("browser_fallback_url", "sms_body"). */
  extras: Record<string, string>;
}

/** The parts of an `intent:` URI (Android's Intent.toUri format), or null when it is none. */
export function parseIntentUri(uri: string): IntentUri | null {
  const m = /^intent:(.*?)#Intent;(.*?)(?:;end;?)?$/is.exec(uri.trim());
  if (!m) return null;
  const out: IntentUri = { scheme: "", rest: m[1]!, extras: {} };
  for (const part of m[2]!.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq);
    const value = decode(part.slice(eq + 1));
    if (key === "scheme") out.scheme = value.toLowerCase();
    else if (key === "package") out.package = value;
    else if (key === "action") out.action = value;
    else if (key === "component") out.component = value;
    else if (key === "type") out.type = value;
    else if (/^[SBbcdfilsz]\./.test(key)) out.extras[key.slice(2)] = value;
  }
  return out;
}

function hostAndPath(uri: string): { host: string; path: string } {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([^#]*)/i.exec(uri);
  if (!m) return { host: "", path: "" };
  return { host: m[1]!.replace(/^[^@]*@/, "").replace(/:\d+$/, "").toLowerCase(), path: m[2]! };
}

function hostListed(list: readonly string[], host: string, path: string): string | null {
  const bare = host.replace(/^www\./, "");
  for (const entry of list) {
    const slash = entry.indexOf("/");
    const h = slash < 0 ? entry : entry.slice(0, slash);
    const p = slash < 0 ? "" : entry.slice(slash);
    const hostOk = bare === h.replace(/^www\./, "") || bare.endsWith(`.${h.replace(/^www\./, "")}`);
    if (hostOk && (!p || path.toLowerCase().startsWith(p.toLowerCase()))) return entry;
  }
  return null;
}

const q = (s: string, n = 80) => JSON.stringify(s.length > n ? `${s.slice(0, n - 1)}…` : s);
const PACKAGE_FILE = "\\.(?:apk|xapk|apks|apkm|aab)";
const APK = new RegExp(`${PACKAGE_FILE}(?:$|[?#])`, "i");
const APK_IN_TEXT = new RegExp(`${PACKAGE_FILE}(?![\\p{L}\\p{N}])`, "iu");

/** A text naming an Android package file ("Undangan Pernikahan.apk" sent in a chat): opening it offers to install
 * what it holds, whatever the words around it say. */
export const namesPackageFile = (text: string): boolean => APK_IN_TEXT.test(text);

/** Android writes some actions' values with "ACTION_" and some without; agents write the constant's name too. */
function actionKeys(action: string): string[] {
  const a = action.toLowerCase();
  return [...new Set([a, a.replace(".action_", ".action."), a.replace(".action.", "."), a.replace(".action_", "."), a.replace(/^android\.settings\.(?!action)/, "android.settings.action.")])];
}

function judgeAction(action: string, via: string): LinkJudgement | null {
  const keys = actionKeys(action);
  const a = keys.find((k) => GRANTING_ACTIONS[k] || INSTALL_ACTIONS.has(k) || DESTRUCTIVE_ACTIONS[k] || CALL_ACTIONS.has(k) || SEND_ACTIONS.has(k) || INFO_ACTIONS.test(k)) ?? keys[0]!;
  const grant = GRANTING_ACTIONS[a];
  if (INSTALL_ACTIONS.has(a)) return { tier: "high_risk", category: "install", evidence: `${via} asks to install an app (${action})`, scheme: "" };
  if (grant) return { tier: "high_risk", category: "permission", evidence: `${via} opens the special-access setting for ${grant} (${action})`, scheme: "" };
  const destroy = DESTRUCTIVE_ACTIONS[a];
  if (destroy) return { tier: "high_risk", category: "destructive", evidence: `${via} asks for ${destroy} (${action})`, scheme: "" };
  if (CALL_ACTIONS.has(a)) return { tier: "high_risk", category: "communication", evidence: `${via} places a call straight away (${action})`, scheme: "" };
  if (SEND_ACTIONS.has(a)) return { tier: "confirm", category: "communication", evidence: `${via} shares or sends content (${action})`, scheme: "" };
  if (INFO_ACTIONS.test(a)) return { tier: "normal", evidence: `${via} opens a settings page that shows information (${action})`, scheme: "" };
  if (/^android\.settings\./.test(a)) return { tier: "confirm", category: "permission", evidence: `${via} opens the settings page ${action}`, scheme: "" };
  if (/^android\.intent\.action\.(?:view|main|dial|pick|get_content|web_search|search)$/.test(a)) return null;
  return null;
}

const max = (a: LinkJudgement, b: LinkJudgement | null): LinkJudgement => (b && RANK[b.tier] > RANK[a.tier] ? b : a);

// ---- the judgement ------------------------------------------------------------------------------------------------

/** What opening the URI does, as a tier with its evidence. */
export function judgeUri(uri: string): LinkJudgement {
  return judge(uri, 0);
}

function judge(uri: string, depth: number): LinkJudgement {
  const u = uri.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(u)?.[1]?.toLowerCase() ?? "";

  // A bare action ("android.settings.ACCESSIBILITY_SETTINGS"), as an agent may write a settings intent.
  if (!scheme || /^android\.|^com\.android\./i.test(u)) {
    if (/^[a-z][\w]*(?:\.[\w]+){2,}$/i.test(u)) {
      const a = judgeAction(u, "the intent");
      if (a) return a;
      return { tier: "confirm", category: "unknown_app", evidence: `the intent action ${q(u)} is one the policy does not know`, scheme: "" };
    }
    return { tier: "confirm", category: "unknown_app", evidence: `${q(u)} is no URI the policy can read`, scheme: "" };
  }
  const rest = u.slice(scheme.length + 1);

  if (scheme === "intent") {
    const intent = parseIntentUri(u);
    if (!intent) return { tier: "confirm", category: "unknown_app", evidence: `the intent link ${q(u)} cannot be read`, scheme };
    let verdict: LinkJudgement = { tier: "normal", evidence: `the intent opens ${intent.package ?? (intent.scheme || "an app")}`, scheme };
    if (intent.scheme && depth < 3) verdict = max(verdict, tagged(judge(`${intent.scheme}:${intent.rest}`, depth + 1), "the intent's inner link"));
    if (intent.action) verdict = max(verdict, judgeAction(intent.action, "the intent"));
    if (intent.type && /vnd\.android\.package-archive/i.test(intent.type)) verdict = max(verdict, { tier: "high_risk", category: "install", evidence: "the intent opens an APK (application/vnd.android.package-archive)", scheme });
    const pkg = intent.package ?? intent.component?.split("/")[0];
    if (pkg) {
      const kind = catalogKind(pkg);
      if (kind && MONEY_KINDS.has(kind)) verdict = max(verdict, { tier: "confirm", category: "money", evidence: `the intent opens a link inside the ${kind} app ${pkg}`, scheme });
    }
    const fallback = intent.extras["browser_fallback_url"];
    if (fallback && depth < 3) verdict = max(verdict, tagged(judge(fallback, depth + 1), "the intent's browser fallback"));
    const text = intent.extras["sms_body"] ?? intent.extras["android.intent.extra.TEXT"] ?? intent.extras["android.intent.extra.text"];
    if (text) verdict = max(verdict, { tier: "high_risk", category: "communication", evidence: `the intent carries text to send (${q(text, 40)})`, scheme });
    if (verdict.tier === "normal" && !intent.scheme && !intent.action && !pkg) return { tier: "confirm", category: "unknown_app", evidence: `the intent ${q(u)} names no app or action the policy knows`, scheme };
    return verdict;
  }

  if (scheme === "tel" || scheme === "telprompt" || scheme === "callto" || scheme === "voicemail") {
    const n = judgeNumber(rest.replace(/^\/\//, ""), `the link ${q(u)}`);
    return { ...n, category: "communication", scheme };
  }
  if (scheme === "sms" || scheme === "smsto" || scheme === "mms" || scheme === "mmsto") {
    const body = /[?&;]body=([^&]+)/i.exec(rest)?.[1];
    const to = rest.replace(/^\/\//, "").split(/[?;]/)[0]!;
    const n = judgeNumber(to, `the link ${q(u)}`);
    if (body && decode(body).trim()) return { tier: "high_risk", category: "communication", evidence: `the link ${q(u)} prepares a message with the text ${q(decode(body), 40)}`, scheme };
    return { tier: n.tier === "high_risk" ? "high_risk" : "confirm", category: "communication", evidence: n.tier === "high_risk" ? n.evidence : `the link ${q(u)} opens a message to ${q(decode(to) || "someone")}`, scheme };
  }
  if (scheme === "mailto") {
    const body = /[?&]body=([^&]+)/i.exec(rest)?.[1];
    if (body && decode(body).trim()) return { tier: "high_risk", category: "communication", evidence: `the link ${q(u)} prepares an e-mail with a body (${q(decode(body), 40)})`, scheme };
    return { tier: "confirm", category: "communication", evidence: `the link ${q(u)} opens an e-mail to ${q(decode(rest.split("?")[0]!))}`, scheme };
  }

  if (PAYMENT_SCHEMES.has(scheme)) return { tier: "high_risk", category: "money", evidence: `the link ${q(u)} opens a payment or transfer (${scheme}:)`, scheme };
  const payPath = PAYMENT_PATHS[scheme];
  if (payPath?.test(rest)) return { tier: "high_risk", category: "money", evidence: `the link ${q(u)} opens ${scheme}'s payment`, scheme };
  const messageText = MESSAGE_TEXT[scheme];
  if (messageText?.test(rest)) return { tier: "high_risk", category: "communication", evidence: `the link ${q(u)} prepares a message with text to send`, scheme };

  if (STORE_SCHEMES.has(scheme)) {
    if (scheme === "itms-services") return { tier: "high_risk", category: "install", evidence: `the link ${q(u)} installs an app directly`, scheme };
    if (/^\/\/(?:search|collection|dev)\b/i.test(rest)) return { tier: "normal", evidence: `the link ${q(u)} opens a search in the store`, scheme };
    return { tier: "confirm", category: "install", evidence: `the link ${q(u)} opens an app's store listing, an install away`, scheme };
  }

  const { host, path } = hostAndPath(u);
  if (APK.test(path) || (scheme !== "http" && scheme !== "https" && APK.test(rest))) return { tier: "high_risk", category: "install", evidence: `the link ${q(u)} downloads an APK to install`, scheme };

  if (scheme === "http" || scheme === "https") {
    const pay = hostListed(PAYMENT_HOSTS, host, path);
    if (pay) return { tier: "high_risk", category: "money", evidence: `the link ${q(u)} opens a payment page (${pay})`, scheme };
    const store = hostListed(STORE_HOSTS, host, path);
    if (store) {
      if (/\/(?:search|store\/search)\b/i.test(path)) return { tier: "normal", evidence: `the link ${q(u)} opens a search in the store`, scheme };
      return { tier: "confirm", category: "install", evidence: `the link ${q(u)} opens an app's store listing (${store}), an install away`, scheme };
    }
    for (const [h, p] of MESSAGE_HOSTS) if (h.test(host) && p.test(path)) return { tier: "high_risk", category: "communication", evidence: `the link ${q(u)} prepares a message or post with text to send`, scheme };
    // A checkout step or a payment by its id on a site the policy does not list; a page about payments is none.
    if (/\/checkouts?(?:[/?#]|$)/i.test(path) || /\/pay\/[^/?#]+/i.test(path) || /^(?:checkout|pay|payment)\./i.test(host))
      return { tier: "confirm", category: "money", evidence: `the link ${q(u)} opens a checkout or payment page`, scheme };
    return { tier: "normal", evidence: `the link opens the web page ${host}`, scheme };
  }
  if (VIEW_SCHEMES.has(scheme)) return { tier: "normal", evidence: `the link opens ${scheme === "geo" || scheme.includes("map") ? "a place on a map" : `a page in ${scheme}`}`, scheme };
  // An app link shaped like a payment: its first step is pay/checkout/transfer, or it carries an amount.
  if (/^\/\/(?:[\w.-]*\/)?(?:pay|payment|payments|checkout|transfer|remit)\b/i.test(rest) || /[?&](?:amount|am|amt|value|sum)=\d/i.test(rest))
    return { tier: "high_risk", category: "money", evidence: `the link ${q(u)} opens a payment in the app behind ${scheme}: (a pay step or an amount)`, scheme };
  if (scheme === "javascript" || scheme === "data") return { tier: "confirm", category: "unknown_app", evidence: `the link ${q(u)} runs or opens inline content`, scheme };
  return { tier: "confirm", category: "unknown_app", evidence: `the link ${q(u)} opens an app by its scheme ${scheme}: the policy does not know what it does there`, scheme };
}

function tagged(j: LinkJudgement, via: string): LinkJudgement {
  return j.tier === "normal" ? j : { ...j, evidence: `${via}: ${j.evidence}` };
}
