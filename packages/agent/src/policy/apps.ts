// App categories from the package name: known packages first, then the words a package name is made of
// ("com.example.bank" is a bank). A workspace adds its own in the policy rules.

export const APP_CATEGORIES = ["money", "shopping", "messaging", "email", "social", "store", "permission", "settings", "keyboard", "dialer", "browser"] as const;
export type AppCategory = (typeof APP_CATEGORIES)[number];

const KNOWN: Record<string, AppCategory> = {
  "com.eg.android.AlipayGphone": "money",
  "com.paypal.android.p2pmobile": "money",
  "com.venmo": "money",
  "com.squareup.cash": "money",
  "com.google.android.apps.walletnfcrel": "money",
  "com.samsung.android.spay": "money",
  "jp.ne.paypay.android.app": "money",
  "com.kakaopay.app": "money",
  "viva.republica.toss": "money",
  "net.one97.paytm": "money",
  "com.phonepe.app": "money",
  "com.revolut.revolut": "money",
  "com.transferwise.android": "money",
  "de.number26.android": "money",
  "com.nu.production": "money",
  "br.com.intermedium": "money",
  "com.mercadopago.wallet": "money",
  "com.lydia": "money",
  "ru.sberbankmobile": "money",
  "com.idamob.tinkoff.android": "money",
  "es.bancosantander.apps": "money",
  "fr.creditagricole.androidapp": "money",
  "com.coinbase.android": "money",
  "com.binance.dev": "money",
  "com.klarna.android": "money",
  "com.chase.sig.android": "money",
  "com.wf.wellsfargomobile": "money",
  "com.infonow.bofa": "money",
  "com.unionpay": "money",
  "com.icbc": "money",
  "com.chinamworld.main": "money",
  "cmb.pb": "money",
  "com.taobao.taobao": "shopping",
  "com.jingdong.app.mall": "shopping",
  "com.amazon.mShop.android.shopping": "shopping",
  "com.coupang.mobile": "shopping",
  "jp.co.rakuten.android": "shopping",
  "de.zalando.mobile": "shopping",
  "com.mercadolibre": "shopping",
  "ru.ozon.app.android": "shopping",
  "com.einnovation.temu": "shopping",
  "com.whatsapp": "messaging",
  "org.telegram.messenger": "messaging",
  "jp.naver.line.android": "messaging",
  "com.kakao.talk": "messaging",
  "com.tencent.mm": "messaging",
  "com.tencent.mobileqq": "messaging",
  "com.facebook.orca": "messaging",
  "com.viber.voip": "messaging",
  "org.thoughtcrime.securesms": "messaging",
  "com.discord": "messaging",
  "com.Slack": "messaging",
  "com.skype.raider": "messaging",
  "com.google.android.apps.messaging": "messaging",
  "com.samsung.android.messaging": "messaging",
  "com.google.android.gm": "email",
  "com.microsoft.office.outlook": "email",
  "com.twitter.android": "social",
  "com.sina.weibo": "social",
  "com.vkontakte.android": "social",
  "com.instagram.android": "social",
  "com.facebook.katana": "social",
  "com.zhiliaoapp.musically": "social",
  "com.ss.android.ugc.aweme": "social",
  "com.android.vending": "store",
  "com.xiaomi.market": "store",
  "com.huawei.appmarket": "store",
  "com.sec.android.app.samsungapps": "store",
  "com.google.android.permissioncontroller": "permission",
  "com.android.permissioncontroller": "permission",
  "com.android.packageinstaller": "permission",
  "com.google.android.packageinstaller": "permission",
  "com.android.settings": "settings",
  "com.google.android.inputmethod.latin": "keyboard",
  "com.touchtype.swiftkey": "keyboard",
  "com.samsung.android.honeyboard": "keyboard",
  "com.sohu.inputmethod.sogou": "keyboard",
  "com.baidu.input": "keyboard",
  "com.iflytek.inputmethod": "keyboard",
  "jp.co.omronsoft.openwnn": "keyboard",
  "com.adamrocker.android.input.simeji": "keyboard",
  "com.google.android.dialer": "dialer",
  "com.android.dialer": "dialer",
  "com.android.chrome": "browser",
  "org.mozilla.firefox": "browser",
};

/** Words inside package names, in order of precedence. */
const PARTS: [AppCategory, RegExp][] = [
  ["keyboard", /^(inputmethod|keyboard|ime|honeyboard|swiftkey|gboard)$/],
  ["permission", /^(permissioncontroller|packageinstaller)$/],
  ["money", /^(bank|banking|\w*bank|wallet\w*|\w*pay|alipay\w*|paypal|venmo|finance|financial|broker|brokerage|trading|trade|invest\w*|crypto|cash|money|sber\w*|tinkoff|revolut|kakaopay|paypay|toss|nubank|pix|upi|coinbase|binance|klarna)$/],
  ["store", /^(vending|appmarket|appstore|market|galaxystore)$/],
  ["messaging", /^(chat|messenger|messaging|messages|talk|sms|mms|im|whatsapp|telegram|signal)$/],
  ["email", /^(mail|email|gmail|outlook)$/],
  ["shopping", /^(shop|shopping|store|mall|cart|commerce|ecommerce)$/],
  ["social", /^(social|twitter|weibo|instagram|facebook|vk|tiktok)$/],
  ["settings", /^settings$/],
  ["dialer", /^(dialer|phone|contacts)$/],
  ["browser", /^(browser|chrome|firefox)$/],
];

export interface AppCategoryRule {
  /** A package name, or a prefix ending in "*" ("com.mybank.*"). */
  app: string;
  category: AppCategory;
}

function matches(pattern: string, pkg: string): boolean {
  return pattern.endsWith("*") ? pkg.startsWith(pattern.slice(0, -1)) : pattern === pkg;
}

export function appCategory(pkg: string | undefined, extra: AppCategoryRule[] = []): AppCategory | null {
  if (!pkg) return null;
  for (const r of extra) if (matches(r.app, pkg)) return r.category;
  const known = KNOWN[pkg];
  if (known) return known;
  const segments = pkg.toLowerCase().split(/[.:_-]+/);
  for (const [category, re] of PARTS) if (segments.some((s) => re.test(s))) return category;
  return null;
}

export const isKeyboardPackage = (pkg: string | undefined): boolean => appCategory(pkg) === "keyboard";
