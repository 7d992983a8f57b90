// Maintained word lists for the permission checkpoint, per language. A match on the target element's text,
// description or id, or on the model's declared intent, raises the tier. Add words here, nowhere else.
// Each entry maps to a risk category (the "kind" used for approvals and in gate questions).

export type RiskCategory =
  | "send"
  | "pay"
  | "buy"
  | "delete"
  | "publish"
  | "install"
  | "transfer"
  | "share_personal_data"
  | "account"
  | "follow"
  | "calendar"
  | "clipboard";

type WordList = Partial<Record<RiskCategory, string[]>>;

/** High-risk: stop before the side effect and open a gate, every time. */
export const HIGH_RISK_WORDS: Record<string, WordList> = {
  en: {
    send: ["send", "send message", "reply all", "forward", "submit order", "submit payment"],
    pay: ["pay", "pay now", "payment", "checkout", "check out", "confirm payment", "place order", "subscribe", "donate", "top up"],
    buy: ["buy", "buy now", "purchase", "order now", "add to cart and pay"],
    delete: ["delete", "remove", "erase", "discard", "wipe", "factory reset", "uninstall", "clear all", "empty trash"],
    publish: ["publish", "post", "tweet", "retweet", "repost", "upload", "go live", "reply", "comment", "send reply"],
    install: ["install", "update now", "allow installs", "get app"],
    transfer: ["transfer", "send money", "withdraw", "wire"],
    share_personal_data: ["share contacts", "export contacts", "share location", "all contacts", "password", "credit card", "share"],
  },
  zh: {
    send: ["发送", "回复全部", "转发"],
    pay: ["支付", "付款", "立即支付", "确认支付", "结算", "下单", "提交订单", "订阅", "充值"],
    buy: ["购买", "立即购买", "买入"],
    delete: ["删除", "移除", "清空", "卸载", "恢复出厂"],
    publish: ["发布", "发表", "发帖", "上传", "转发微博", "回复", "评论"],
    install: ["安装", "立即更新"],
    transfer: ["转账", "汇款", "提现"],
    share_personal_data: ["分享", "共享位置", "通讯录", "导出联系人", "密码", "银行卡"],
  },
  ja: {
    send: ["送信", "転送"],
    pay: ["支払", "決済", "注文を確定"],
    buy: ["購入"],
    delete: ["削除", "消去"],
    publish: ["公開", "投稿"],
    install: ["インストール"],
    transfer: ["送金", "振込"],
  },
  es: { send: ["enviar", "reenviar"], pay: ["pagar"], buy: ["comprar"], delete: ["eliminar", "borrar"], publish: ["publicar"], install: ["instalar"], transfer: ["transferir"] },
  de: { send: ["senden", "weiterleiten"], pay: ["bezahlen", "zahlen"], buy: ["kaufen"], delete: ["löschen", "entfernen"], publish: ["veröffentlichen", "posten"], install: ["installieren"], transfer: ["überweisen"] },
  fr: { send: ["envoyer", "transférer"], pay: ["payer"], buy: ["acheter"], delete: ["supprimer", "effacer"], publish: ["publier"], install: ["installer"], transfer: ["virement"] },
};

/** Confirm: asked until 3 consecutive approvals of the same kind in one session. */
export const CONFIRM_WORDS: Record<string, WordList> = {
  en: { account: ["log in", "login", "sign in", "sign up", "register", "allow", "grant"], follow: ["follow", "like", "accept", "join"], calendar: ["add to calendar", "save event"], clipboard: ["paste"] },
  zh: { account: ["登录", "注册", "允许", "授权"], follow: ["关注", "点赞", "接受", "加入"], calendar: ["添加到日历"], clipboard: ["粘贴"] },
  ja: { account: ["ログイン", "許可"], follow: ["フォロー"] },
};

const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Splits ids like "btn_payNow" or "com.shop:id/pay_button" into words. */
export function idWords(id: string): string {
  return id
    .replace(/^.*[:/]/, "")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .toLowerCase();
}

export interface WordMatch {
  category: RiskCategory;
  word: string;
  language: string;
}

/**
 * `verbPosition`: only count a Latin word where a verb goes (start of a clause, or after "to", "and", "then",
 * "will"…), so a declared intent "open a post to read it" is not "post", while "forward all contacts" is.
 */
export function matchWords(text: string, lists: Record<string, WordList>, opts: { verbPosition?: boolean } = {}): WordMatch | null {
  const lower = text.toLowerCase();
  if (!lower.trim()) return null;
  let best: WordMatch | null = null;
  for (const [language, list] of Object.entries(lists))
    for (const [category, words] of Object.entries(list) as [RiskCategory, string[]][])
      for (const word of words) {
        // CJK has no spaces: substring; Latin scripts: whole words, so "sender" is not "send".
        const lead = opts.verbPosition ? "(^|[.;,:!?]\\s*|\\b(?:to|and|then|will|now|i'll|i will|please|must|should)\\s+)" : "(^|[^\\p{L}])";
        const hit = CJK.test(word) ? lower.includes(word) : new RegExp(`${lead}${escapeRe(word)}($|[^\\p{L}])`, "u").test(lower);
        if (hit && (!best || word.length > best.word.length)) best = { category, word, language };
      }
  return best;
}
