import { entropyToMnemonic } from "@scure/bip39";
import { wordlist as czech } from "@scure/bip39/wordlists/czech.js";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { wordlist as french } from "@scure/bip39/wordlists/french.js";
import { wordlist as italian } from "@scure/bip39/wordlists/italian.js";
import { wordlist as japanese } from "@scure/bip39/wordlists/japanese.js";
import { wordlist as korean } from "@scure/bip39/wordlists/korean.js";
import { wordlist as portuguese } from "@scure/bip39/wordlists/portuguese.js";
import { wordlist as chineseSimplified } from "@scure/bip39/wordlists/simplified-chinese.js";
import { wordlist as spanish } from "@scure/bip39/wordlists/spanish.js";
import { describe, expect, it } from "vitest";
import { cardBrand, classifySecret, fieldAsks, identityNumber, isSeedPhrase } from "./secrets.ts";
import { identityNumberKind, isCardNumber, looksLikeCode } from "./sensitive.ts";

describe("payment cards", () => {
  it.each([
    ["4111 1111 1111 1111", "visa"],
    ["5555 5555 5555 4444", "mastercard"],
    ["3782 822463 10005", "american-express"],
    ["6011111111111117", "discover"],
    ["3530111333300000", "jcb"],
    ["6200000000000005", "unionpay"],
    ["2200 0000 0000 0004", "mir"],
    ["４１１１ １１１１ １１１１ １１１１", "visa"],
  ])("%s is a %s card", (text, brand) => {
    expect(cardBrand(text)).toBe(brand);
    expect(classifySecret(text)).toMatchObject({ kind: "card", scheme: brand });
    expect(isCardNumber(text)).toBe(true);
  });

  it("a network the library does not know counts by a card field or the 4-4-4-4 grouping with Luhn", () => {
    // 8172…: a RuPay-range number the card library has no network for.
    expect(cardBrand("8172000000000005")).toBeNull();
    expect(classifySecret("8172000000000005", { hint: "Card number" })).toMatchObject({ kind: "card", scheme: "luhn" });
    expect(classifySecret("8172 0000 0000 0005")).toMatchObject({ kind: "card", scheme: "luhn" });
    expect(classifySecret("8172000000000005")).toBeNull();
  });

  it("an order number of card length without the checksum is no card", () => {
    expect(classifySecret("4111 1111 1111 1112")).toBeNull();
    expect(isCardNumber("1234567890123456")).toBe(false);
  });
});

describe("IBANs", () => {
  it.each([
    ["DE89 3704 0044 0532 0130 00", "DE"],
    ["GB82 WEST 1234 5698 7654 32", "GB"],
    ["FR14 2004 1010 0505 0001 3M02 606", "FR"],
    ["NL91 ABNA 0417 1643 00", "NL"],
    ["ES91 2100 0418 4502 0005 1332", "ES"],
    ["TR33 0006 1005 1978 6457 8413 26", "TR"],
    ["SA03 8000 0000 6080 1016 7519", "SA"],
  ])("%s", (text, country) => {
    expect(classifySecret(text)).toMatchObject({ kind: "iban", scheme: country });
  });

  it("a wrong check digit is no IBAN; an account number counts by its field", () => {
    expect(classifySecret("DE88 3704 0044 0532 0130 00")).toBeNull();
    expect(classifySecret("0532013000", { label: "Kontonummer" })).toMatchObject({ kind: "iban", scheme: "field" });
  });
});

describe("national identity numbers, each scheme with its check digits", () => {
  // Numbers that count by their own shape.
  it.each([
    ["536-90-4399", "US.ssn"],
    ["529.982.247-25", "BR.cpf"],
    ["11.222.333/0001-81", "BR.cnpj"],
    ["2341 2341 2346", "IN.aadhaar"],
    ["ABCPE1234F", "IN.pan"],
    ["11010519491231002X", "CN.ric"],
    ["971013-9019902", "KR.rrn"],
    ["RSSMRA85T10A562S", "IT.codicefiscale"],
    ["12345678Z", "ES.dni"],
    ["X1234567L", "ES.nie"],
    ["44051401359", "PL.pesel"],
    ["10000000146", "TR.tckimlik"],
    ["811228-9874", "SE.personnummer"],
    ["770305-02-1234", "MY.nric"],
    ["1101700230708", "TH.idnr"],
    ["295109912611193", "FR.nir"],
    ["AB123456C", "GB.nino"],
    ["BOXW310820HNERXN09", "MX.curp"],
    ["7503305044089", "ZA.idnr"],
    ["34201-0891231-8", "PK.cnic"],
    ["A123456789", "TW.natid"],
    ["S1234567D", "SG.nric"],
  ])("%s is %s", (text, scheme) => {
    expect(identityNumber(text)?.scheme).toBe(scheme);
    expect(classifySecret(text)).toMatchObject({ kind: "national_id", scheme });
  });

  // Short numbers with one check digit: only where the field or the screen speaks of identity.
  it.each([
    ["111222333", "NL.bsn", "BSN"],
    ["039337423", "IL.idnr", "מספר זהות"],
    ["36574261809", "DE.idnr", "Steuer-ID"],
    ["500100732259", "RU.inn", "ИНН"],
    ["1759013776", "UA.rntrc", "РНОКПП"],
    ["123456789018", "JP.mynumber", "マイナンバー"],
    ["1000000008", "SA.nid", "رقم الهوية"],
    ["0499370899", "IR.melli", "کد ملی"],
    ["079203000123", "VN.cccd", "Số CCCD"],
    ["536904399", "US.ssn", "SSN"],
    ["046 454 286", "CA.sin", "Social Insurance Number"],
    ["3175091203900001", "ID.nik", "NIK (sesuai KTP)"],
  ])("%s is %s beside %s", (text, scheme, hint) => {
    expect(classifySecret(text, { hint })).toMatchObject({ kind: "national_id", scheme });
    expect(identityNumber(text)).toBeNull();
  });

  it("a check digit off is no identity number; phone numbers are none", () => {
    expect(identityNumber("529.982.247-26")).toBeNull();
    expect(identityNumber("11010519491231002Y")).toBeNull();
    expect(identityNumber("44051401358")).toBeNull();
    for (const phone of ["13812345678", "11987654321", "+905321234567", "+91 98765 43210", "0612345678"]) expect(classifySecret(phone), phone).toBeNull();
  });

  it("keeps sensitive.ts's names working", () => {
    expect(identityNumberKind("529.982.247-25")).toBe("Brazilian CPF");
    expect(identityNumberKind("12345678Z")).toBe("Spanish DNI");
    expect(identityNumberKind("11010519491231002X")).toBe("Chinese resident identity number");
    expect(identityNumberKind("123-45-678")).toBeNull();
    expect(looksLikeCode("٤٨٢٩١٣")).toBe(true);
    expect(looksLikeCode("12")).toBe(false);
  });
});

describe("recovery phrases", () => {
  const entropy = Uint8Array.from({ length: 16 }, (_, i) => (i * 37 + 11) % 256);
  it.each([
    ["english", english], ["japanese", japanese], ["korean", korean], ["french", french], ["italian", italian],
    ["spanish", spanish], ["czech", czech], ["portuguese", portuguese], ["chinese-simplified", chineseSimplified],
  ] as const)("a %s phrase", (name, list) => {
    const phrase = entropyToMnemonic(entropy, list as string[]);
    expect(isSeedPhrase(phrase)).toBe(name);
    expect(classifySecret(phrase)).toMatchObject({ kind: "seed_phrase", scheme: `bip39-${name}` });
  });

  it("the 24-word English test phrase; words of a phrase in a word field; ordinary prose is none", () => {
    expect(isSeedPhrase(Array(23).fill("abandon").concat("art").join(" "))).toBe("english");
    expect(classifySecret("zoo", { hint: "Word #3 of your recovery phrase" })).toMatchObject({ kind: "seed_phrase" });
    expect(classifySecret("the quick brown fox jumps over the lazy dog and then runs far away")).toBeNull();
    expect(classifySecret("zoo")).toBeNull();
  });
});

describe("one-time codes, PINs, CVVs, passports, passwords by field and screen", () => {
  // A field label each language's apps use for a one-time code.
  it.each([
    ["en", "Verification code"], ["zh", "短信验证码"], ["ja", "認証コード"], ["ko", "인증번호 6자리"], ["de", "Bestätigungscode"], ["fr", "Code de vérification"],
    ["es", "Código de verificación"], ["pt", "Código de verificação"], ["ru", "Код из СМС"], ["it", "Codice di verifica"], ["tr", "Doğrulama kodu"], ["vi", "Mã xác thực"],
    ["id", "Kode verifikasi"], ["th", "รหัส OTP"], ["pl", "Kod weryfikacyjny"], ["nl", "Verificatiecode"], ["sv", "Verifieringskod"], ["ar", "رمز التحقق"],
    ["hi", "सत्यापन कोड"], ["bn", "যাচাইকরণ কোড"], ["fa", "کد تأیید"], ["he", "קוד אימות"], ["uk", "Код підтвердження"], ["ms", "Kod pengesahan"],
    ["autofill", "smsOTPCode"],
  ])("%s: %s", (_lang, hint) => {
    expect(classifySecret("482913", { hint })).toMatchObject({ kind: "otp" });
    expect(fieldAsks(hint)).toBe("otp");
  });

  it.each([
    ["en", "We sent a 6-digit code to +1 ••• 4412"],
    ["zh", "验证码已发送至 138****5678"],
    ["ja", "SMSで認証コードを送信しました"],
    ["ru", "Мы отправили код на номер +7 ••• 12-34"],
    ["ar", "تم إرسال رمز إلى رقم هاتفك"],
    ["hi", "आपके नंबर पर कोड भेजा गया है"],
    ["th", "ได้ส่งรหัสไปยัง 08x-xxx-1234"],
  ])("%s: a field without words on a screen saying a code was sent", (_lang, screenText) => {
    expect(classifySecret("٤٨٢٩١٣", { screenText })).toMatchObject({ kind: "otp", scheme: "screen" });
  });

  it("digits in a postal, promo or quantity field are no code, whatever the screen says", () => {
    expect(classifySecret("94105", { hint: "ZIP code", screenText: "We sent a code to your phone" })).toBeNull();
    expect(classifySecret("560001", { hint: "Pincode" })).toBeNull();
    expect(classifySecret("2024", { hint: "Promo code" })).toBeNull();
    expect(classifySecret("3", { hint: "Quantity" })).toBeNull();
    expect(classifySecret("12345", { hint: "Quantity", screenText: "Verification code" })).toBeNull();
    expect(classifySecret("hello")).toBeNull();
  });

  it("PIN, CVV, passport and password", () => {
    expect(classifySecret("1234", { hint: "UPI PIN", password: true })).toMatchObject({ kind: "pin" });
    expect(classifySecret("1234", { hint: "暗証番号" })).toMatchObject({ kind: "pin" });
    expect(classifySecret("123", { hint: "CVV" })).toMatchObject({ kind: "cvv" });
    expect(classifySecret("123", { label: "Código de seguridad", screenText: "Número de tarjeta" })).toMatchObject({ kind: "cvv" });
    expect(classifySecret("X1234567", { label: "Passport number" })).toMatchObject({ kind: "passport" });
    expect(classifySecret("E12345678", { label: "护照号码" })).toMatchObject({ kind: "passport" });
    expect(classifySecret("hunter2", { password: true })).toMatchObject({ kind: "password" });
    expect(classifySecret("hunter2", { hint: "Mot de passe" })).toMatchObject({ kind: "password" });
  });
});
