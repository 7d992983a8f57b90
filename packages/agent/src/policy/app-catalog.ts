// What kind of app is in front, from evidence: a workspace's own list first, then the catalog of known packages
// (app-catalog-data.ts), then the app's label (the name under its icon, "Mi Banco", "토스뱅크", "Crypto Wallet"),
// then the words its package name is made of, then what the screen shows (a balance and a transfer, odds and a bet
// slip). Package-name words alone decide only when nothing better is known.
//
// API (stable; apps.ts's appCategory and decide.ts call it):
//   appCategoryFrom({ packageName, appLabel?, screenText? }, extra?) → { category, kind?, source, evidence } | null
//     category  the coarse AppCategory the policy reads (money, shopping, messaging, …)
//     kind      the finer kind when known (bank, wallet, payment, crypto, betting, delivery, rides, travel, …)
//     source    workspace | catalog | label | package | screen
//   catalogKind(packageName)  the catalog's kind for a package, or null
//   MONEY_KINDS               the kinds whose apps move money (bank, wallet, payment, crypto, betting)
// Label and screen words: the team's own lists of how these apps name themselves and what their screens show, in
// the 24 languages; they match as whole words in spaced scripts and anywhere in CJK and Thai.
import type { AppCategory, AppCategoryRule } from "./apps.ts";
import { APP_CATALOG, type AppKind } from "./app-catalog-data.ts";
import { normalise } from "./normalise.ts";

export { APP_CATALOG, APP_KINDS, type AppKind } from "./app-catalog-data.ts";

export const MONEY_KINDS: ReadonlySet<AppKind> = new Set(["bank", "wallet", "payment", "crypto", "betting"]);

/** The category the policy reads for each kind. */
export const KIND_CATEGORY: Record<AppKind, AppCategory> = {
  bank: "money", wallet: "money", payment: "money", crypto: "money", betting: "money",
  shopping: "shopping", delivery: "shopping", rides: "shopping", travel: "shopping",
  messaging: "messaging", social: "social", email: "email", store: "store", settings: "settings", permission: "permission", keyboard: "keyboard", dialer: "dialer", browser: "browser",
};

export interface AppEvidence {
  packageName?: string;
  /** The app's name as the launcher or the recent-apps list shows it. */
  appLabel?: string;
  /** Words on the screen. */
  screenText?: string;
}

export interface AppCategoryResult {
  category: AppCategory;
  kind?: AppKind;
  source: "workspace" | "catalog" | "label" | "package" | "screen";
  evidence: string;
}

let byPackage: Map<string, AppKind> | null = null;

/** The catalog's kind for a package, or null. */
export function catalogKind(packageName: string | undefined): AppKind | null {
  if (!packageName) return null;
  if (!byPackage) {
    byPackage = new Map();
    for (const [kind, list] of Object.entries(APP_CATALOG) as [AppKind, readonly string[]][]) for (const p of list) if (!byPackage.has(p)) byPackage.set(p, kind);
  }
  return byPackage.get(packageName) ?? null;
}

/** Words an app's own name carries, by kind (the first kind that matches wins: a "Bank Wallet" is a bank). */
const LABEL_WORDS: [AppKind, string][] = [
  ["crypto", "crypto|bitcoin|btc|ethereum|web3|defi|加密货币|数字货币|币安|暗号資産|仮想通貨|코인|가상자산|krypto|cripto|криптовалюта|крипто|kripto|tiền điện tử|tiền số|คริปโต|عملات رقمية|क्रिप्टो|ক্রিপ্টো|ارز دیجیتال|קריפטו"],
  ["betting", "bet|bets|betting|casino|poker|sportsbook|slots|lotto|博彩|投注|彩票|赌场|カジノ|競馬|베팅|카지노|토토|wetten|sportwetten|paris sportifs|apuestas|apostas|ставки|букмекер|scommesse|bahis|iddaa|cá cược|taruhan|พนัน|แทงบอล|zakłady|bukmacher|wedden|casino|spel|رهان|مراهنات|सट्टा|বেটিং|شرط بندی|הימורים|ставки"],
  ["bank", "bank|banking|banca|banco|banque|bankası|ngân hàng|ธนาคาร|بنك|مصرف|बैंक|ব্যাংক|بانک|בנק|банк|банкинг|银行|銀行|은행|뱅킹|뱅크|バンク|netbank|sparkasse|volksbank|caixa|sber|сбер"],
  ["wallet", "wallet|e-wallet|ewallet|钱包|錢包|ウォレット|월렛|지갑|portefeuille|billetera|cartera|carteira|кошелек|portafoglio|cüzdan|ví|ví điện tử|dompet|กระเป๋าเงิน|วอลเล็ท|portfel|portemonnee|plånbok|محفظة|वॉलेट|ওয়ালেট|کیف پول|ארנק|гаманець"],
  ["payment", "pay|payment|payments|支付|付款|決済|ペイ|페이|결제|zahlung|paiement|pago|pagos|pagamento|pagamentos|платежи|оплата|ödeme|thanh toán|pembayaran|ชำระเงิน|płatności|betalen|betala|دفع|भुगतान|পেমেন্ট|پرداخت|תשלום|remit|remittance|money transfer"],
  ["shopping", "shop|shopping|store|mall|商城|购物|ショッピング|쇼핑|boutique|tienda|loja|магазин|negozio|alışveriş|mua sắm|belanja|ช้อปปิ้ง|sklep|winkel|butik|تسوق|शॉपिंग|শপিং|فروشگاه|קניות|beli-belah"],
  ["messaging", "messenger|messages|messaging|chat|聊天|メッセンジャー|메신저|메시지|nachrichten|mensajes|mensagens|сообщения|мессенджер|messaggi|mesajlar|tin nhắn|pesan|ข้อความ|wiadomości|berichten|meddelanden|رسائل|संदेश|বার্তা|پیام رسان|הודעות|повідомлення|mesej"],
  ["email", "mail|email|e-mail|gmail|邮箱|邮件|郵件|メール|메일|courriel|correo|почта|posta|thư điện tử|surel|อีเมล|poczta|e-post|بريد|ईमेल|ইমেইল|ایمیل|דואר|пошта|e-mel"],
];

/** What a screen of each kind shows; two different hits make the evidence. */
const SCREEN_WORDS: [AppKind, string][] = [
  ["crypto", "btc|eth|usdt|usdc|bnb|sol|wallet address|gas fee|network fee|seed phrase|recovery phrase|swap|staking|助记词|钱包地址|ガス代|入金アドレス|지갑 주소|스테이킹|wallet-adresse|adresse du portefeuille|dirección de billetera|endereço da carteira|адрес кошелька|cüzdan adresi|địa chỉ ví|alamat dompet|ที่อยู่กระเป๋า|adres portfela|عنوان المحفظة|آدرس کیف پول|כתובת ארנק|адреса гаманця"],
  ["betting", "odds|bet slip|betslip|stake|place bet|cash out|accumulator|赔率|投注单|下注|オッズ|배당률|베팅슬립|quoten|wettschein|einsatz|cotes|mise|cuotas|apuesta|boleto|odds|aposta|коэффициент|купон|ставка|quote|schedina|oran|kupon|tỷ lệ cược|đặt cược|taruhan|อัตราต่อรอง|kursy|kupon|inzet|insats|الاحتمالات|الرهان|ऑड्स|दांव|অডস|ضریب|יחס|ставка"],
  ["bank", "iban|account number|available balance|account balance|sort code|transfer|余额|账户余额|转账|残高|振込|잔액|이체|계좌|kontostand|überweisung|solde|virement|saldo|transferencia|transferência|баланс|перевод|счет|bonifico|bakiye|havale|eft|số dư|chuyển khoản|saldo|transfer|ยอดเงิน|โอนเงิน|przelew|saldo|overboeking|överföring|الرصيد|تحويل|शेष राशि|स्थानांतरण|ব্যালেন্স|ট্রান্সফার|موجودی|انتقال وجه|יתרה|העברה|переказ|baki|pemindahan"],
  ["shopping", "add to cart|cart|buy now|checkout|购物车|加入购物车|立即购买|カート|カートに入れる|장바구니|바로구매|warenkorb|in den warenkorb|panier|ajouter au panier|carrito|añadir al carrito|carrinho|adicionar ao carrinho|корзина|в корзину|carrello|sepet|sepete ekle|giỏ hàng|thêm vào giỏ|keranjang|ตะกร้า|koszyk|do koszyka|winkelwagen|varukorg|سلة|أضف إلى السلة|कार्ट|কার্ট|سبد خرید|עגלה|кошик|troli"],
];

const SPACED = /^[\p{Script=Latin}\p{Script=Cyrillic}\d\s.'’-]+$/u;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function compile(list: [AppKind, string][]): [AppKind, RegExp][] {
  return list.map(([kind, joined]) => {
    const spaced: string[] = [];
    const other: string[] = [];
    for (const raw of joined.split("|")) {
      const e = normalise(raw);
      if (e) (SPACED.test(e) ? spaced : other).push(escapeRe(e));
    }
    const parts: string[] = [];
    if (spaced.length) parts.push(`(?<![\\p{L}\\p{N}])(?:${spaced.join("|")})(?![\\p{L}])`);
    if (other.length) parts.push(`(?:${other.join("|")})`);
    return [kind, new RegExp(parts.join("|"), "gu")];
  });
}

let labelRes: [AppKind, RegExp][] | null = null;
let screenRes: [AppKind, RegExp][] | null = null;

/** Words inside package names ("com.mybank.app" is a bank), in order of precedence. */
const PACKAGE_PARTS: [AppCategory, RegExp][] = [
  ["keyboard", /^(inputmethod|keyboard|ime|honeyboard|swiftkey|gboard)$/],
  ["permission", /^(permissioncontroller|packageinstaller)$/],
  ["money", /^(bank|banking|\w*bank|wallet\w*|\w*pay|alipay\w*|paypal|venmo|finance|financial|broker|brokerage|trading|trade|invest\w*|crypto|cash|money|sber\w*|tinkoff|revolut|kakaopay|paypay|toss|nubank|pix|upi|coinbase|binance|klarna|bet|betting|casino|poker|sportsbook)$/],
  ["store", /^(vending|appmarket|appstore|market|galaxystore)$/],
  ["messaging", /^(chat|messenger|messaging|messages|talk|sms|mms|im|whatsapp|telegram|signal)$/],
  ["email", /^(mail|email|gmail|outlook)$/],
  ["shopping", /^(shop|shopping|store|mall|cart|commerce|ecommerce)$/],
  ["social", /^(social|twitter|weibo|instagram|facebook|vk|tiktok)$/],
  ["settings", /^settings$/],
  ["dialer", /^(dialer|phone|contacts)$/],
  ["browser", /^(browser|chrome|firefox)$/],
];

function matches(pattern: string, pkg: string): boolean {
  return pattern.endsWith("*") ? pkg.startsWith(pattern.slice(0, -1)) : pattern === pkg;
}

/** The app's category from the best evidence there is, or null. */
export function appCategoryFrom(app: AppEvidence, extra: readonly AppCategoryRule[] = []): AppCategoryResult | null {
  const pkg = app.packageName ?? "";
  if (pkg) {
    for (const r of extra) if (matches(r.app, pkg)) return { category: r.category, source: "workspace", evidence: `the workspace lists ${pkg} as ${r.category}` };
    const kind = catalogKind(pkg);
    if (kind) return { category: KIND_CATEGORY[kind], kind, source: "catalog", evidence: `${pkg} is a known ${kind} app` };
  }
  if (app.appLabel) {
    const label = normalise(app.appLabel);
    for (const [kind, re] of (labelRes ??= compile(LABEL_WORDS))) {
      re.lastIndex = 0;
      const m = re.exec(label);
      if (m) return { category: KIND_CATEGORY[kind], kind, source: "label", evidence: `the app is called ${JSON.stringify(app.appLabel)} (${kind}: ${JSON.stringify(m[0])})` };
    }
  }
  if (pkg) {
    const segments = pkg.toLowerCase().split(/[.:_-]+/);
    for (const [category, re] of PACKAGE_PARTS) {
      const part = segments.find((s) => re.test(s));
      if (part) return { category, source: "package", evidence: `the package name ${pkg} says ${JSON.stringify(part)}` };
    }
  }
  if (app.screenText) {
    const screen = normalise(app.screenText);
    for (const [kind, re] of (screenRes ??= compile(SCREEN_WORDS))) {
      const hits = new Set<string>();
      re.lastIndex = 0;
      for (let m = re.exec(screen); m && hits.size < 2; m = re.exec(screen)) hits.add(m[0]);
      if (hits.size >= 2) return { category: KIND_CATEGORY[kind], kind, source: "screen", evidence: `the screen shows ${[...hits].map((h) => JSON.stringify(h)).join(" and ")} (${kind})` };
    }
  }
  return null;
}
