import { describe, expect, it } from "vitest";
import { findAmounts, hasAmount, normaliseDigits, parseLocaleNumber } from "./amounts.ts";

const one = (text: string, lang?: string) => {
  const found = findAmounts(text, lang ? { lang } : {});
  expect(found, text).toHaveLength(1);
  return found[0]!;
};

describe("amounts as each locale writes them", () => {
  // [locale's own app text, value, currency]
  const cases: [string, string, number, string][] = [
    ["en-US", "Total $1,234.56", 1234.56, "USD"],
    ["en-IN lakh", "Pay ₹1,00,000 now", 100000, "INR"],
    ["en-IN Rs.", "Rs. 2,49,999", 249999, "INR"],
    ["de-DE", "Gesamt: 1.234,56 €", 1234.56, "EUR"],
    ["fr-FR narrow nbsp", "Total : 1\u202F234,56\u00A0€", 1234.56, "EUR"],
    ["pt-BR", "Pagar R$ 1.250,90", 1250.9, "BRL"],
    ["es-MX", "Total $1,299.00", 1299, "MXN"],
    ["ja-JP ￥ full-width", "合計 ￥１２,８００", 12800, "JPY"],
    ["ja-JP 円", "お支払い金額 12,800円（税込）", 12800, "JPY"],
    ["zh-CN ¥", "实付 ¥99.00", 99, "CNY"],
    ["zh-CN 元", "支付99元", 99, "CNY"],
    ["ko-KR ₩", "결제 금액 ₩39,800", 39800, "KRW"],
    ["ko-KR 원", "39,800원 결제하기", 39800, "KRW"],
    ["ru-RU ₽", "К оплате 1 500 ₽", 1500, "RUB"],
    ["ru-RU руб.", "Итого 2 300 руб.", 2300, "RUB"],
    ["tr-TR ₺", "Toplam ₺1.250,00", 1250, "TRY"],
    ["tr-TR TL", "Ödenecek tutar 250,00 TL", 250, "TRY"],
    ["vi-VN ₫", "Tổng cộng 150.000 ₫", 150000, "VND"],
    ["vi-VN đ", "Thanh toán 89.000đ", 89000, "VND"],
    ["id-ID Rp", "Bayar Rp 25.000", 25000, "IDR"],
    ["th-TH ฿", "ชำระ ฿1,250.00", 1250, "THB"],
    ["th-TH บาท", "ยอดรวม 1,250 บาท", 1250, "THB"],
    ["pl-PL zł", "Do zapłaty 49,99 zł", 49.99, "PLN"],
    ["nl-NL", "Totaal € 12,50", 12.5, "EUR"],
    ["sv-SE kr", "Att betala 199 kr", 199, "SEK"],
    ["ar-SA Arabic-Indic", "المبلغ ‏١٬٢٣٤٫٥٠ ر.س.‏", 1234.5, "SAR"],
    ["hi-IN ₹", "कुल ₹499", 499, "INR"],
    ["hi-IN रुपये", "500 रुपये का भुगतान करें", 500, "INR"],
    ["bn-BD ৳ Bengali digits", "মোট ৳১,২৫০", 1250, "BDT"],
    ["bn-BD টাকা", "১,২৫০ টাকা পাঠান", 1250, "BDT"],
    ["fa-IR ریال Persian digits", "مبلغ ریال ۱٬۲۳۴٬۵۶۸", 1234568, "IRR"],
    ["fa-IR تومان", "پرداخت ۱۲۰٬۰۰۰ تومان", 120000, "IRR"],
    ["he-IL ₪", "לתשלום ‏120.00 ‏₪", 120, "ILS"],
    ["uk-UA ₴", "До сплати 1 250,00 ₴", 1250, "UAH"],
    ["uk-UA грн", "Сума 350 грн", 350, "UAH"],
    ["ms-MY RM", "Jumlah RM 25.90", 25.9, "MYR"],
    ["en-GB £", "Buy for £4.99", 4.99, "GBP"],
    ["de-CH CHF", "Total CHF 1'234.50", 1234.5, "CHF"],
    ["it-IT", "Totale 19,99 €", 19.99, "EUR"],
    ["kk-KZ ₸", "Төлеу 5 000 ₸", 5000, "KZT"],
    ["code after", "Pay 20.00 USD now", 20, "USD"],
    ["US$", "US$4.99/month", 4.99, "USD"],
  ];
  it.each(cases)("%s: %s", (locale, text, value, currency) => {
    const lang = locale.slice(0, 2);
    const a = one(text, lang);
    expect(a.value).toBeCloseTo(value, 2);
    expect(a.currency).toBe(currency);
    expect(text).toContain(a.raw);
  });

  it("reads back what Intl itself formats in 24 locales (symbol, narrow symbol, code)", () => {
    const markets: [string, string][] = [
      ["en-US", "USD"], ["zh-CN", "CNY"], ["ja-JP", "JPY"], ["ko-KR", "KRW"], ["de-DE", "EUR"], ["fr-FR", "EUR"], ["es-ES", "EUR"], ["pt-BR", "BRL"],
      ["ru-RU", "RUB"], ["it-IT", "EUR"], ["tr-TR", "TRY"], ["vi-VN", "VND"], ["id-ID", "IDR"], ["th-TH", "THB"], ["pl-PL", "PLN"], ["nl-NL", "EUR"],
      ["sv-SE", "SEK"], ["ar-EG", "EGP"], ["hi-IN", "INR"], ["bn-BD", "BDT"], ["fa-IR", "IRR"], ["he-IL", "ILS"], ["uk-UA", "UAH"], ["ms-MY", "MYR"],
      ["en-IN", "INR"], ["de-CH", "CHF"], ["ar-AE", "AED"], ["zh-TW", "TWD"],
    ];
    for (const [locale, currency] of markets)
      for (const currencyDisplay of ["symbol", "narrowSymbol", "code"] as const) {
        const text = new Intl.NumberFormat(locale, { style: "currency", currency, currencyDisplay }).format(1234567);
        const a = one(text, locale.slice(0, 2));
        expect(a.value, `${locale} ${text}`).toBe(1234567);
        if (currencyDisplay !== "narrowSymbol") expect(a.currency, `${locale} ${text}`).toBe(currency);
      }
  });

  it.each([
    ["1万円", 10000, "JPY"],
    ["1.5万元", 15000, "CNY"],
    ["3천원", 3000, "KRW"],
    ["₹1.5 lakh", 150000, "INR"],
    ["২ লাখ টাকা", 200000, "BDT"],
    ["۱۲۰ هزار تومان", 120000, "IRR"],
    ["Rp 50rb", 50000, "IDR"],
    ["Rp 1,5 juta", 1500000, "IDR"],
    ["50k đ", 50000, "VND"],
    ["2 млн ₽", 2000000, "RUB"],
  ] as const)("a multiplier word: %s", (text, value, currency) => {
    const a = one(text);
    expect(a.value).toBeCloseTo(value, 0);
    expect(a.currency).toBe(currency);
    expect(a.raw).toBe(text);
  });

  it("learns the written names from CLDR", () => {
    expect(one("3 российских рубля").currency).toBe("RUB");
    expect(one("2 대한민국 원").currency).toBe("KRW");
  });

  it("reads coins and tokens by their tickers, which have no ISO code", () => {
    expect(findAmounts("0,05 ETH → 142,30 USDC").map((a) => [a.value, a.currency])).toEqual([[0.05, "ETH"], [142.3, "USDC"]]);
    expect(one("Send ₿0.0125")).toMatchObject({ value: 0.0125, currency: "BTC" });
    expect(one("Swap 0,0125 ETH")).toMatchObject({ value: 0.0125, currency: "ETH" });
    expect(hasAmount("ETH address 0x52908400098527886E0F7030069857D2E4169EE7")).toBe(false);
  });

  it("finds several amounts and negative ones", () => {
    const found = findAmounts("Subtotal $20.00 · Tip $3.50 · Discount -$5");
    expect(found.map((a) => a.value)).toEqual([20, 3.5, -5]);
  });
});

describe("numbers that are not amounts", () => {
  it.each([
    "Call +1 (555) 123-4567",
    "+49 30 1234567",
    "12.03.2026",
    "2026-12-01 10:30",
    "Version 2.3.1",
    "v1.2.3",
    "20% off",
    "3 items",
    "4.5 ★ (12,345 reviews)",
    "2 new messages",
    "Rated 4.8",
    "Order #123456789",
    "5 rm",
    "Size L 42",
    "ETA 15 min",
  ])("%s", (text) => {
    expect(findAmounts(text)).toEqual([]);
    expect(hasAmount(text)).toBe(false);
  });

  it("a date with a currency sign after it is not grouped like any locale's number", () => {
    expect(findAmounts("12.03.2026 €")).toEqual([]);
  });
});

describe("numbers as locales write them", () => {
  it.each([
    ["1.234,56", 1234.56],
    ["1,234.56", 1234.56],
    ["12,34,567.50", 1234567.5],
    ["1 234 567,5", 1234567.5],
    ["1'234.50", 1234.5],
    ["١٬٢٣٤٫٥٠", 1234.5],
    ["۱۲۰٬۰۰۰", 120000],
    ["1.234", 1234],
    ["0.125", 0.125],
    ["12,5", 12.5],
  ] as const)("%s", (written, value) => {
    expect(parseLocaleNumber(written)).toBeCloseTo(value, 3);
  });

  it.each(["12.03.2026", "1.2.3", "1,23,4", "12,345.678.9"])("%s is no locale's number", (written) => {
    expect(parseLocaleNumber(written)).toBeNull();
  });

  it("folds every script's digits", () => {
    expect(normaliseDigits("٠١٢٣ ۴۵۶ ७८९ ৫ ๙ １２")).toBe("0123 456 789 5 9 12");
  });
});
