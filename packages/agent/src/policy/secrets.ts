// Typed text that is a secret or an identity, by its own shape and by the field and screen it is typed into.
// The shapes are checked by maintained libraries with each scheme's check digits, so an order or tracking number of
// the same length is not taken for a card or an identity number:
//   card-validator   payment cards (brand prefixes and lengths, Luhn; UnionPay's exceptions)
//   ibantools        IBANs of every IBAN country (mod-97 and each country's BBAN layout)
//   stdnum           national identity numbers of many countries with their check digits
//   @scure/bip39     the BIP-39 word lists (en, ja, ko, zh-Hans, zh-Hant, fr, it, es, cs, pt) and their checksum
// Hand-written here, because none of those packages has them: a few identity schemes (Indonesian NIK, Japanese
// My Number, Saudi national ID, Iranian national code, Vietnamese CCCD, Singapore NRIC), and the field words.
//
// API (stable; decide.ts calls it, sensitive.ts delegates to it):
//   classifySecret(text, field?)  → { kind, scheme?, name? } | null — what secret the typed text is, or null.
//       kind: card | cvv | iban | seed_phrase | national_id | passport | otp | password | pin
//       field: { hint, label, password, screenText } — hint: the field's hint, id words or autofill hints; label:
//       the words beside it; screenText: the other texts of the screen (a screen saying a code was sent).
//   cardBrand(text)               the card network of a valid card number ("visa", "mir", …) or null
//   identityNumber(text, context?) the national identity scheme the text is a valid number of, or null
//   isSeedPhrase(text)            the BIP-39 list a 12–24-word phrase comes from (checksum checked), or null
//   fieldAsks(text)               which secret a field's hint or label asks for ("otp", "passport"…), or null
// Schemes that are only a short run of digits with one check digit (NL BSN, IL Teudat Zehut, …) match any number of
// that length one time in ten or eleven: they count only where the field or screen speaks of identity.
import { wordlist as czech } from "@scure/bip39/wordlists/czech.js";
import { wordlist as english } from "@scure/bip39/wordlists/english.js";
import { wordlist as french } from "@scure/bip39/wordlists/french.js";
import { wordlist as italian } from "@scure/bip39/wordlists/italian.js";
import { wordlist as japanese } from "@scure/bip39/wordlists/japanese.js";
import { wordlist as korean } from "@scure/bip39/wordlists/korean.js";
import { wordlist as portuguese } from "@scure/bip39/wordlists/portuguese.js";
import { wordlist as chineseSimplified } from "@scure/bip39/wordlists/simplified-chinese.js";
import { wordlist as spanish } from "@scure/bip39/wordlists/spanish.js";
import { wordlist as chineseTraditional } from "@scure/bip39/wordlists/traditional-chinese.js";
import { validateMnemonic } from "@scure/bip39";
import cardValidator from "card-validator";
import { electronicFormatIBAN, isValidIBAN } from "ibantools";
import * as arDni from "stdnum/lib/cjs/ar/dni.js";
import * as brCnpj from "stdnum/lib/cjs/br/cnpj.js";
import * as brCpf from "stdnum/lib/cjs/br/cpf.js";
import * as caSin from "stdnum/lib/cjs/ca/sin.js";
import * as cnRic from "stdnum/lib/cjs/cn/ric.js";
import * as deIdnr from "stdnum/lib/cjs/de/idnr.js";
import * as esDni from "stdnum/lib/cjs/es/dni.js";
import * as esNie from "stdnum/lib/cjs/es/nie.js";
import * as frNir from "stdnum/lib/cjs/fr/nir.js";
import * as gbNino from "stdnum/lib/cjs/gb/nino.js";
import * as hkHkid from "stdnum/lib/cjs/hk/hkid.js";
import * as ilIdnr from "stdnum/lib/cjs/il/idnr.js";
import * as inAadhaar from "stdnum/lib/cjs/in/aadhaar.js";
import * as inPan from "stdnum/lib/cjs/in/pan.js";
import * as itCodicefiscale from "stdnum/lib/cjs/it/codicefiscale.js";
import * as krRrn from "stdnum/lib/cjs/kr/rrn.js";
import * as mxCurp from "stdnum/lib/cjs/mx/curp.js";
import * as myNric from "stdnum/lib/cjs/my/nric.js";
import * as nlBsn from "stdnum/lib/cjs/nl/bsn.js";
import * as pkCnic from "stdnum/lib/cjs/pk/cnic.js";
import * as plPesel from "stdnum/lib/cjs/pl/pesel.js";
import * as ruInn from "stdnum/lib/cjs/ru/inn.js";
import * as sePersonnummer from "stdnum/lib/cjs/se/personnummer.js";
import * as thIdnr from "stdnum/lib/cjs/th/idnr.js";
import * as trTckimlik from "stdnum/lib/cjs/tr/tckimlik.js";
import * as twNatid from "stdnum/lib/cjs/tw/natid.js";
import * as uaRntrc from "stdnum/lib/cjs/ua/rntrc.js";
import * as usSsn from "stdnum/lib/cjs/us/ssn.js";
import * as zaIdnr from "stdnum/lib/cjs/za/idnr.js";
import type { Validator } from "stdnum";
import { normaliseDigits } from "./amounts.ts";
import { normalise } from "./normalise.ts";

export type SecretKind = "card" | "cvv" | "iban" | "seed_phrase" | "national_id" | "passport" | "otp" | "password" | "pin";

export interface Secret {
  kind: SecretKind;
  /** Stable id of the scheme: "visa", "BR.cpf", "DE", "bip39-japanese", "field". */
  scheme?: string;
  /** The scheme in words, for evidence: "Brazilian CPF", "German IBAN", "BIP-39 recovery phrase (Japanese)". */
  name?: string;
}

export interface SecretField {
  /** The field's hint text, id words or autofill hints ("smsOTPCode", "Enter the 6-digit code"). */
  hint?: string;
  /** The words labelling the field. */
  label?: string;
  /** The field masks its text. */
  password?: boolean;
  /** The rest of the screen's words (what the screen says about the field: "We sent a code to +1…"). */
  screenText?: string;
}

// ---- field words ------------------------------------------------------------------------------------------------
// The team's own lists of how apps label these fields in the 24 languages (en zh ja ko de fr es pt ru it tr vi id th
// pl nl sv ar hi bn fa he uk ms), plus Android's autofill hint names (smsOTPCode, creditCardSecurityCode, …).
// Entries in spaced scripts match as whole words; in CJK, Thai and the like, anywhere.

const FIELD_WORDS = {
  otp:
    "smsotpcode|emailotpcode|2faappotpcode|otpcode|one time code|one-time code|onetimecode|one-time password|one time password|otp|2fa code|verification code|confirmation code|authentication code|auth code|login code|sign-in code|sign in code|sms code|enter the code|enter code|6-digit code|passcode|" +
    "验证码|校验码|动态码|动态密码|短信验证码|一次性密码|驗證碼|認證碼|簡訊驗證碼|確認碼|" +
    "認証コード|確認コード|ワンタイムパスワード|ワンタイムコード|認証番号|確認番号|" +
    "인증번호|인증 번호|인증코드|인증 코드|확인 코드|확인코드|일회용 비밀번호|" +
    "bestätigungscode|verifizierungscode|einmalcode|einmalpasswort|sms-code|tan|mtan|prüfcode|anmeldecode|authentifizierungscode|" +
    "code de vérification|code de confirmation|code à usage unique|mot de passe à usage unique|code sms|code reçu|code d'authentification|" +
    "código de verificación|código de confirmación|código de un solo uso|clave de un solo uso|código sms|clave dinámica|token|" +
    "código de verificação|código de confirmação|senha de uso único|código de acesso|" +
    "код подтверждения|код из смс|код из sms|одноразовый пароль|одноразовый код|проверочный код|код верификации|" +
    "codice di verifica|codice di conferma|codice otp|codice monouso|password monouso|codice sms|" +
    "doğrulama kodu|onay kodu|tek kullanımlık şifre|tek seferlik şifre|sms kodu|" +
    "mã xác thực|mã xác minh|mã otp|mã xác nhận|mật khẩu dùng một lần|" +
    "kode verifikasi|kode otp|kode konfirmasi|kode sekali pakai|" +
    "รหัสยืนยัน|รหัส otp|รหัสผ่านแบบใช้ครั้งเดียว|รหัสตรวจสอบ|" +
    "kod weryfikacyjny|kod potwierdzający|kod sms|kod jednorazowy|hasło jednorazowe|kod autoryzacyjny|" +
    "verificatiecode|bevestigingscode|eenmalige code|sms-code|inlogcode|" +
    "verifieringskod|bekräftelsekod|engångskod|engångslösenord|sms-kod|" +
    "رمز التحقق|رمز التأكيد|كلمة المرور لمرة واحدة|رمز لمرة واحدة|الرمز المرسل|كود التفعيل|رمز التفعيل|" +
    "सत्यापन कोड|ओटीपी|वन टाइम पासवर्ड|पुष्टिकरण कोड|" +
    "যাচাইকরণ কোড|ওটিপি|ভেরিফিকেশন কোড|নিশ্চিতকরণ কোড|এককালীন পাসওয়ার্ড|" +
    "کد تأیید|کد تایید|رمز یکبار مصرف|کد یکبار مصرف|رمز پویا|کد فعال‌سازی|کد فعالسازی|" +
    "קוד אימות|קוד חד פעמי|קוד חד-פעמי|סיסמה חד פעמית|קוד האימות|" +
    "код підтвердження|код з смс|одноразовий пароль|одноразовий код|код перевірки|" +
    "kod pengesahan|kod otp|kata laluan sekali guna|tac|kod tac",
  /** A field called only "code" (in a field's own hint, not anywhere on the screen). */
  code: "code|código|codigo|codice|kod|kode|mã|код|コード|코드|代码|码|碼|รหัส|كود|رمز|कोड|কোড|کد|קוד",
  /** Security code words: a card's CVV when 3–4 digits beside card words, else a one-time code. */
  security: "security code|sicherheitscode|code de sécurité|código de seguridad|código de segurança|codice di sicurezza|güvenlik kodu|mã bảo mật|kode keamanan|รหัสความปลอดภัย|kod bezpieczeństwa|beveiligingscode|säkerhetskod|رمز الأمان|सुरक्षा कोड|নিরাপত্তা কোড|کد امنیتی|קוד אבטחה|код безопасности|код безпеки|kod keselamatan|安全码|安全碼|セキュリティコード|보안코드|보안 코드",
  cvv: "cvv|cvc|cvn|csc|cid|cvv2|cvc2|creditcardsecuritycode|card security code|卡验证码|cvv码|prüfnummer|kartenprüfnummer|cryptogramme|cryptogramme visuel|código cvv|код cvv|cvv-код|kod cvv|رمز cvv",
  pin:
    "pin|mpin|upi pin|atm pin|pin-code|pin-kod|pinkod|pincode|支付密码|交易密码|pin码|暗証番号|간편비밀번호|결제 비밀번호|geheimzahl|code pin|code secret|nip|código pin|senha do cartão|пин|пин-код|пин код|codice pin|pin kodu|mã pin|รหัส pin|kod pin|الرقم السري|رمز pin|पिन|পিন|رمز دوم|رمز کارت|پین|קוד סודי|пін|пін-код|nombor pin",
  password:
    "password|newpassword|passwort|kennwort|mot de passe|contraseña|senha|пароль|şifre|parola|mật khẩu|kata sandi|รหัสผ่าน|hasło|wachtwoord|lösenord|كلمة المرور|كلمة السر|पासवर्ड|পাসওয়ার্ড|رمز عبور|گذرواژه|סיסמה|סיסמא|kata laluan|密码|密碼|パスワード|비밀번호|패스워드",
  passport: "passport|passport number|护照|護照|パスポート|여권|reisepass|passnummer|passeport|pasaporte|passaporte|заграничный паспорт|загранпаспорт|passaporto|pasaport|hộ chiếu|paspor|หนังสือเดินทาง|paszport|paspoort|jvm|جواز السفر|جواز سفر|पासपोर्ट|পাসপোর্ট|گذرنامه|پاسپورت|דרכון|закордонний паспорт|pasport",
  identity:
    "ssn|social security|social insurance|numéro d'assurance sociale|national id|national identity|identity number|id number|id no|id card|nric|mykad|ic number|aadhaar|aadhar|pan|pan number|tax id|taxpayer id|nino|national insurance|" +
    "身份证|身份證|居民身份证|证件号码|證件號碼|マイナンバー|個人番号|주민등록번호|주민번호|외국인등록번호|" +
    "personalausweis|ausweisnummer|steuer-id|steueridentifikationsnummer|identifikationsnummer|" +
    "numéro de sécurité sociale|sécurité sociale|nir|carte d'identité|numéro fiscal|" +
    "dni|nie|nif|documento de identidad|cédula|curp|rfc|rut|run|cuil|cuit|" +
    "cpf|rg|cnpj|documento|" +
    "снилс|инн|паспорт|серия и номер|" +
    "codice fiscale|carta d'identità|" +
    "tc kimlik|t.c. kimlik|kimlik numarası|kimlik no|" +
    "cccd|cmnd|căn cước|số định danh|" +
    "nik|ktp|nomor induk kependudukan|" +
    "เลขบัตรประชาชน|เลขประจำตัวประชาชน|บัตรประชาชน|" +
    "pesel|numer dowodu|dowód osobisty|" +
    "bsn|burgerservicenummer|" +
    "personnummer|samordningsnummer|" +
    "الهوية الوطنية|رقم الهوية|السجل المدني|رقم الإقامة|الرقم القومي|الرقم الوطني|" +
    "आधार|पैन|पहचान संख्या|" +
    "জাতীয় পরিচয়পত্র|এনআইডি|পরিচয়পত্র নম্বর|" +
    "کد ملی|شماره ملی|کدملی|" +
    "תעודת זהות|ת.ז|ת\"ז|מספר זהות|" +
    "рнокпп|іпн|ідентифікаційний код|податковий номер|" +
    "kad pengenalan|nombor kad pengenalan|no. kp|no kp",
  card: "card number|creditcardnumber|credit card|debit card|卡号|卡號|银行卡号|カード番号|카드번호|카드 번호|kartennummer|numéro de carte|número de tarjeta|número do cartão|номер карты|numero della carta|numero carta|kart numarası|số thẻ|nomor kartu|หมายเลขบัตร|numer karty|kaartnummer|kortnummer|رقم البطاقة|कार्ड नंबर|কার্ড নম্বর|شماره کارت|מספר כרטיס|номер картки|nombor kad",
  account: "iban|account number|bank account|routing number|sort code|账号|银行账户|帳號|口座番号|계좌번호|kontonummer|numéro de compte|rib|número de cuenta|clabe|cbu|número da conta|номер счета|номер счёта|numero di conto|hesap numarası|số tài khoản|nomor rekening|เลขที่บัญชี|numer konta|numer rachunku|rekeningnummer|clearingnummer|رقم الحساب|खाता संख्या|অ্যাকাউন্ট নম্বর|شماره حساب|شماره شبا|شبا|מספר חשבון|номер рахунку|nombor akaun",
  seed:
    "recovery phrase|seed phrase|secret recovery phrase|mnemonic|backup phrase|secret phrase|recovery words|seed words|助记词|助記詞|恢复短语|シードフレーズ|リカバリーフレーズ|復元フレーズ|니모닉|복구 구문|시드 구문|wiederherstellungsphrase|seed-phrase|phrase de récupération|phrase secrète|frase de recuperación|frase semilla|frase de recuperação|frase secreta|сид-фраза|секретная фраза|фраза восстановления|мнемоническая фраза|frase di recupero|kurtarma ifadesi|cụm từ khôi phục|cụm từ bí mật|frasa pemulihan|frasa rahasia|วลีกู้คืน|fraza odzyskiwania|herstelzin|återställningsfras|عبارة الاسترداد|العبارة السرية|रिकवरी फ्रेज़|পুনরুদ্ধার বাক্যাংশ|عبارت بازیابی|کلمات بازیابی|ביטוי שחזור|фраза відновлення",
  /** Fields whose digits are no secret: postal codes, promotions, invitations, dialling codes. */
  notSecret:
    "zip|zip code|postal|postal code|postcode|post code|pin code|pincode|promo|promo code|coupon|voucher|referral|invite code|invitation code|gift card|area code|country code|" +
    "邮编|邮政编码|郵遞區號|郵便番号|우편번호|postleitzahl|plz|gutschein|code postal|code promo|código postal|cupón|cep|cupom|почтовый индекс|промокод|codice sconto|posta kodu|kupon|mã bưu chính|mã giảm giá|kode pos|kode promo|รหัสไปรษณีย์|โค้ดส่วนลด|kod pocztowy|kod rabatowy|kortingscode|postnummer|rabattkod|الرمز البريدي|رمز الخصم|कूपन|पिनकोड|পোস্ট কোড|کد پستی|کد تخفیف|מיקוד|קוד קופון|поштовий індекс|poskod|kod promosi",
  /** The screen says a code was sent (then digits typed on it are that code). */
  sent:
    "we sent|we've sent|we have sent|sent to|sent a code|code was sent|texted|已发送|发送至|已發送|發送至|送信しました|に送信|전송되었습니다|발송되었습니다|보냈습니다|gesendet|geschickt|envoyé|envoyée|enviado|enviamos|enviada|отправлен|отправили|выслан|inviato|abbiamo inviato|gönderildi|gönderdik|đã gửi|dikirim|telah dikirim|ได้ส่ง|ส่งไปยัง|ส่งรหัส|wysłaliśmy|wysłany|wysłano|verzonden|gestuurd|skickat|skickade|تم إرسال|أرسلنا|भेजा गया|भेजा है|পাঠানো হয়েছে|ارسال شد|ارسال شده|נשלח|שלחנו|надіслано|надіслали|відправлено|dihantar|telah dihantar",
} as const;

type FieldList = keyof typeof FIELD_WORDS;
const SPACED = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}\d\s.'"’#-]+$/u;
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
let compiled: Record<FieldList, RegExp> | null = null;

function lists(): Record<FieldList, RegExp> {
  if (compiled) return compiled;
  const out = {} as Record<FieldList, RegExp>;
  for (const [name, joined] of Object.entries(FIELD_WORDS) as [FieldList, string][]) {
    const spaced: string[] = [];
    const other: string[] = [];
    for (const raw of joined.split("|")) {
      const e = normalise(raw);
      if (e) (SPACED.test(e) ? spaced : other).push(escapeRe(e));
    }
    const byLength = (a: string, b: string) => b.length - a.length;
    const parts = [];
    if (spaced.length) parts.push(`(?<![\\p{L}\\p{N}])(?:${spaced.sort(byLength).join("|")})(?![\\p{L}])`);
    if (other.length) parts.push(`(?:${other.sort(byLength).join("|")})`);
    out[name] = new RegExp(parts.join("|"), "u");
  }
  return (compiled = out);
}

/** Splits camelCase autofill hints and ids ("smsOTPCode", "et_cardNumber") into words as well. */
function fieldText(...parts: (string | undefined)[]): string {
  const joined = parts.filter(Boolean).join(" | ");
  const spread = joined.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_]+/g, " ");
  return normalise(`${joined} | ${spread}`);
}

const says = (list: FieldList, text: string): boolean => text !== "" && lists()[list].test(text);

/** Which secret a field's hint or label asks for, or null. */
export function fieldAsks(hintOrLabel: string): SecretKind | null {
  const t = fieldText(hintOrLabel);
  if (!t || says("notSecret", t)) return null;
  if (says("seed", t)) return "seed_phrase";
  if (says("cvv", t)) return "cvv";
  if (says("otp", t)) return "otp";
  if (says("pin", t)) return "pin";
  if (says("card", t)) return "card";
  if (says("account", t)) return "iban";
  if (says("passport", t)) return "passport";
  if (says("identity", t)) return "national_id";
  if (says("password", t)) return "password";
  return null;
}

// ---- cards, IBANs -------------------------------------------------------------------------------------------------

const compactDigits = (text: string) => normaliseDigits(text).replace(/[\s\u00A0.-]/g, "");

/** The card network of a valid payment card number (brand prefix, length and checksum), or null. */
export function cardBrand(text: string): string | null {
  const d = compactDigits(text);
  if (!/^\d{12,19}$/.test(d)) return null;
  const v = cardValidator.number(d, { luhnValidateUnionPay: true });
  return v.isValid && v.card ? v.card.type : null;
}

/** Luhn (ISO/IEC 7812) over 13–19 digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

function iban(text: string): Secret | null {
  const e = electronicFormatIBAN(normaliseDigits(text));
  if (!e || !/^[A-Z]{2}\d{2}[A-Z0-9]{8,30}$/.test(e) || !isValidIBAN(e)) return null;
  return { kind: "iban", scheme: e.slice(0, 2), name: `IBAN (${e.slice(0, 2)})` };
}

// ---- national identity numbers ----------------------------------------------------------------------------------

interface Scheme {
  id: string;
  name: string;
  /** Counts by its shape alone; otherwise only where the field or screen speaks of identity. */
  byShape: boolean;
  valid(compact: string, written: string): boolean;
  /** The scheme's own names, which pick it among schemes of the same shape ("BSN" over "SSN" for nine digits). */
  words?: string;
}

// Each validator is imported on its own (not the package's index of every country), so a bundle carries only these.
const LIBRARY: Record<string, Pick<Validator, "validate">> = {
  "AR.dni": arDni, "BR.cnpj": brCnpj, "BR.cpf": brCpf, "CA.sin": caSin, "CN.ric": cnRic, "DE.idnr": deIdnr, "ES.dni": esDni, "ES.nie": esNie, "FR.nir": frNir, "GB.nino": gbNino, "HK.hkid": hkHkid, "IL.idnr": ilIdnr, "IN.aadhaar": inAadhaar, "IN.pan": inPan, "IT.codicefiscale": itCodicefiscale, "KR.rrn": krRrn, "MX.curp": mxCurp, "MY.nric": myNric, "NL.bsn": nlBsn, "PK.cnic": pkCnic, "PL.pesel": plPesel, "RU.inn": ruInn, "SE.personnummer": sePersonnummer, "TH.idnr": thIdnr, "TR.tckimlik": trTckimlik, "TW.natid": twNatid, "UA.rntrc": uaRntrc, "US.ssn": usSsn, "ZA.idnr": zaIdnr,
};
const lib = (country: string, key: string): Pick<Validator, "validate"> => {
  const m = LIBRARY[`${country}.${key}`] as (Pick<Validator, "validate"> & { default?: Pick<Validator, "validate"> }) | undefined;
  const v = m?.validate ? m : m?.default;
  if (!v?.validate) throw new Error(`stdnum has no ${country}.${key}`);
  return v;
};
/** Each library scheme's characters and length, checked first: the library builds an error (with its stack) for every
 * number it refuses, far slower than a regular expression refusing it. */
const COMPACT: Record<string, RegExp> = {
  "US.ssn": /^\d{9}$/, "BR.cpf": /^\d{11}$/, "BR.cnpj": /^\d{14}$/, "IN.aadhaar": /^[2-9]\d{11}$/, "IN.pan": /^[A-Z]{5}\d{4}[A-Z]$/, "CN.ric": /^\d{17}[\dX]$/,
  "KR.rrn": /^\d{13}$/, "IT.codicefiscale": /^[A-Z0-9]{16}$/, "ES.dni": /^\d{8}[A-Z]$/, "ES.nie": /^[XYZ]\d{7}[A-Z]$/, "PL.pesel": /^\d{11}$/, "TR.tckimlik": /^[1-9]\d{10}$/,
  "SE.personnummer": /^(?:\d{2})?\d{10}$/, "MY.nric": /^\d{12}$/, "TH.idnr": /^\d{13}$/, "FR.nir": /^[0-9AB]{13,15}$/, "DE.idnr": /^[1-9]\d{10}$/, "GB.nino": /^[A-Z]{2}\d{6}[A-D]?$/,
  "MX.curp": /^[A-Z]{4}\d{6}[A-Z]{6}[A-Z0-9]\d$/, "ZA.idnr": /^\d{13}$/, "PK.cnic": /^\d{13}$/, "TW.natid": /^[A-Z][12]\d{8}$/, "HK.hkid": /^[A-Z]{1,2}\d{6}[0-9A]$/,
  "RU.inn": /^\d{10}(?:\d{2})?$/, "CA.sin": /^\d{9}$/, "UA.rntrc": /^\d{10}$/, "NL.bsn": /^\d{8,9}$/, "IL.idnr": /^\d{5,9}$/, "AR.dni": /^\d{7,8}$/,
};
const viaLib = (country: string, key: string, name: string, byShape: boolean, shape?: RegExp, words?: string): Scheme => {
  const v = lib(country, key);
  const chars = COMPACT[`${country}.${key}`];
  return { id: `${country}.${key}`, name, byShape, valid: (c, w) => (!chars || chars.test(c)) && (!shape || shape.test(w.trim())) && v.validate(w).isValid, ...(words ? { words } : {}) };
};

/** Indonesian NIK: 16 digits, a province code, a birth date (day + 40 for women), a serial; no check digit. */
const NIK_PROVINCES = new Set([11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 31, 32, 33, 34, 35, 36, 51, 52, 53, 61, 62, 63, 64, 65, 71, 72, 73, 74, 75, 76, 81, 82, 91, 92, 93, 94, 95, 96]);
function nik(c: string): boolean {
  const m = /^(\d{2})\d{4}(\d{2})(\d{2})\d{2}(\d{4})$/.exec(c);
  if (!m) return false;
  const day = Number(m[2]) > 40 ? Number(m[2]) - 40 : Number(m[2]);
  const month = Number(m[3]);
  return NIK_PROVINCES.has(Number(m[1])) && day >= 1 && day <= 31 && month >= 1 && month <= 12 && m[4] !== "0000";
}

/** Japanese My Number (個人番号): 12 digits, the last a mod-11 check over weights 6,5,4,3,2,7,6,5,4,3,2. */
function myNumber(c: string): boolean {
  if (!/^\d{12}$/.test(c)) return false;
  const w = [6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  let sum = 0;
  for (let i = 0; i < 11; i++) sum += (c.charCodeAt(i) - 48) * w[i]!;
  const r = sum % 11;
  return (r <= 1 ? 0 : 11 - r) === c.charCodeAt(11) - 48;
}

/** Saudi national ID / iqama: 10 digits starting 1 (citizen) or 2 (resident), Luhn. */
const saudiId = (c: string): boolean => /^[12]\d{9}$/.test(c) && luhnValid(c);

/** Iranian national code (کد ملی): 10 digits, the last a mod-11 check over weights 10…2. */
function iranCode(c: string): boolean {
  if (!/^\d{10}$/.test(c) || /^(\d)\1{9}$/.test(c)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (c.charCodeAt(i) - 48) * (10 - i);
  const r = sum % 11;
  const check = c.charCodeAt(9) - 48;
  return r < 2 ? check === r : check === 11 - r;
}

/** Vietnamese citizen ID (CCCD): 12 digits, province code 001–096, century/sex digit 0–9, birth year. */
const cccd = (c: string): boolean => /^0(?:[0-8]\d|9[0-6])\d{9}$/.test(c) && c.slice(0, 3) !== "000";

/** Singapore NRIC/FIN: S, T, F, G or M, seven digits, a check letter. */
function nric(c: string): boolean {
  const m = /^([STFGM])(\d{7})([A-Z])$/.exec(c.toUpperCase());
  if (!m) return false;
  const w = [2, 7, 6, 5, 4, 3, 2];
  let sum = [...m[2]!].reduce((s, d, i) => s + Number(d) * w[i]!, 0);
  const p = m[1]!;
  if (p === "T" || p === "G") sum += 4;
  if (p === "M") sum += 3;
  const table = p === "S" || p === "T" ? "JZIHGFEDCBA" : p === "M" ? "KLJNPQRTUWX" : "XWUTRQPNMLK";
  return table[sum % 11] === m[3];
}

const handWritten = (id: string, name: string, byShape: boolean, valid: (c: string) => boolean, words?: string): Scheme => ({ id, name, byShape, valid: (c) => valid(c), ...(words ? { words } : {}) });

let schemes: Scheme[] | null = null;
function identitySchemes(): Scheme[] {
  return (schemes ??= [
    viaLib("US", "ssn", "US social security number", true, /^\d{3}-\d{2}-\d{4}$/),
    viaLib("US", "ssn", "US social security number", false, undefined, "ssn|social security"),
    viaLib("BR", "cpf", "Brazilian CPF", true),
    viaLib("BR", "cnpj", "Brazilian CNPJ", true),
    viaLib("IN", "aadhaar", "Indian Aadhaar number", true),
    viaLib("IN", "pan", "Indian PAN", true),
    viaLib("CN", "ric", "Chinese resident identity number", true),
    viaLib("KR", "rrn", "South Korean resident registration number", true),
    viaLib("IT", "codicefiscale", "Italian codice fiscale", true),
    viaLib("ES", "dni", "Spanish DNI", true),
    viaLib("ES", "nie", "Spanish NIE", true),
    viaLib("PL", "pesel", "Polish PESEL", true),
    viaLib("TR", "tckimlik", "Turkish TC Kimlik number", true),
    viaLib("SE", "personnummer", "Swedish personnummer", true),
    viaLib("MY", "nric", "Malaysian MyKad number", true, /^\d{6}-\d{2}-\d{4}$/),
    viaLib("MY", "nric", "Malaysian MyKad number", false, undefined, "mykad|nric|ic number|kad pengenalan|no kp|no. kp"),
    viaLib("TH", "idnr", "Thai national ID", true),
    viaLib("FR", "nir", "French NIR (social security number)", true),
    viaLib("DE", "idnr", "German tax ID (Steuer-ID)", false, undefined, "steuer-id|steueridentifikationsnummer|identifikationsnummer|steuer id"),
    viaLib("GB", "nino", "UK National Insurance number", true),
    viaLib("MX", "curp", "Mexican CURP", true),
    viaLib("ZA", "idnr", "South African ID number", true),
    viaLib("PK", "cnic", "Pakistani CNIC", true, /^\d{5}-\d{7}-\d$/),
    viaLib("TW", "natid", "Taiwanese national ID", true),
    viaLib("HK", "hkid", "Hong Kong identity card number", true, /^[A-Z]{1,2}\d{6}\s?\(?[\dA]\)?$/i),
    viaLib("RU", "inn", "Russian INN", false, undefined, "инн"),
    viaLib("UA", "rntrc", "Ukrainian taxpayer number (RNTRC)", false, undefined, "рнокпп|іпн|ідентифікаційний код|податковий номер"),
    viaLib("NL", "bsn", "Dutch BSN", false, undefined, "bsn|burgerservicenummer"),
    viaLib("IL", "idnr", "Israeli Teudat Zehut number", false, undefined, "תעודת זהות|ת.ז|מספר זהות|teudat zehut"),
    viaLib("AR", "dni", "Argentinian DNI", false, undefined, "dni"),
    viaLib("CA", "sin", "Canadian social insurance number", false, undefined, "social insurance|sin|nas|numéro d'assurance sociale"),
    handWritten("ID.nik", "Indonesian NIK", false, nik, "nik|ktp|nomor induk kependudukan"),
    handWritten("SG.nric", "Singapore NRIC/FIN", true, nric),
    handWritten("JP.mynumber", "Japanese My Number", false, myNumber, "マイナンバー|個人番号|my number"),
    handWritten("SA.nid", "Saudi national ID", false, saudiId, "الهوية|الإقامة|السجل المدني|iqama"),
    handWritten("IR.melli", "Iranian national code", false, iranCode, "کد ملی|کدملی|شماره ملی"),
    handWritten("VN.cccd", "Vietnamese citizen ID (CCCD)", false, cccd, "cccd|căn cước|cmnd|số định danh"),
  ]);
}

/** The national identity scheme the text is a valid number of; schemes valid by shape only when `context` (the
 * field's hint, label or screen) speaks of identity. */
export function identityNumber(text: string, context = ""): { scheme: string; name: string } | null {
  const written = normaliseDigits(text).trim();
  if (written.length < 8 || written.length > 24 || /^\+|^00/.test(written) || !/\d{3}/.test(written)) return null;
  const c = written.replace(/[\s.\-/()]/g, "").toUpperCase();
  if (!/^[A-Z0-9]+$/.test(c) || /^(\d)\1+$/.test(c)) return null;
  const ctx = fieldText(context);
  const all = identitySchemes();
  // The scheme the context names, then schemes valid by shape, then any scheme where the context speaks of identity.
  for (const s of all) if (s.words && ctx && nameRe(s).test(ctx) && s.valid(c, written)) return { scheme: s.id, name: s.name };
  for (const s of all) if (s.byShape && s.valid(c, written)) return { scheme: s.id, name: s.name };
  if (says("identity", ctx)) for (const s of all) if (!s.byShape && s.valid(c, written)) return { scheme: s.id, name: s.name };
  return null;
}

const nameRes = new Map<Scheme, RegExp>();
function nameRe(s: Scheme): RegExp {
  let re = nameRes.get(s);
  if (!re) {
    const alternatives = s.words!.split("|").map((w) => escapeRe(normalise(w)));
    nameRes.set(s, (re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join("|")})(?![\\p{L}])`, "u")));
  }
  return re;
}

// ---- recovery phrases ----------------------------------------------------------------------------------------------

const WORDLISTS: [string, readonly string[]][] = [
  ["english", english], ["japanese", japanese], ["korean", korean], ["chinese-simplified", chineseSimplified], ["chinese-traditional", chineseTraditional],
  ["french", french], ["italian", italian], ["spanish", spanish], ["czech", czech], ["portuguese", portuguese],
];
let wordIndex: Map<string, Set<string>> | null = null;
const bipWord = (w: string) => w.normalize("NFKD").toLowerCase();

function words(): Map<string, Set<string>> {
  if (wordIndex) return wordIndex;
  const m = new Map<string, Set<string>>();
  for (const [name, list] of WORDLISTS)
    for (const w of list) {
      const k = bipWord(w);
      const s = m.get(k) ?? new Set<string>();
      s.add(name);
      m.set(k, s);
    }
  return (wordIndex = m);
}

function tokens(text: string): string[] {
  const t = text.normalize("NFKD").toLowerCase().trim();
  const spaced = t.split(/[\s\u3000,、]+/).filter(Boolean);
  // Chinese phrases are often written without spaces: one character per word.
  if (spaced.length === 1 && /^[\p{Script=Han}]{12,24}$/u.test(t)) return [...t];
  return spaced.map((w) => w.replace(/^\d+[.)]/, "")).filter(Boolean);
}

/** The BIP-39 list a 12–24-word phrase comes from (all words in it, the checksum holds), or null. */
export function isSeedPhrase(text: string): string | null {
  const ws = tokens(text);
  if (ws.length < 12 || ws.length > 24 || ws.length % 3 !== 0) return null;
  const index = words();
  for (const [name, list] of WORDLISTS) {
    if (!ws.every((w) => index.get(w)?.has(name))) continue;
    const sep = name === "japanese" ? "\u3000" : " ";
    if (validateMnemonic(ws.join(sep), list as string[])) return name;
    return `${name}-unchecked`;
  }
  return null;
}

/** Some words of one BIP-39 list (a field taking one word of the phrase, or part of it). */
function bipWords(text: string): boolean {
  const ws = tokens(text);
  return ws.length > 0 && ws.length <= 24 && ws.every((w) => words().has(w));
}

// ---- the classification ----------------------------------------------------------------------------------------

const DIGITS = (min: number, max: number) => new RegExp(`^\\d{${min},${max}}$`);
const PASSPORT_SHAPE = /^(?=.*\d)[A-Z0-9]{6,9}$/;

/** What secret the typed text is, by its shape and the field it goes into, or null. */
export function classifySecret(text: string, field: SecretField = {}): Secret | null {
  const typed = normaliseDigits(text).trim();
  if (!typed) return null;
  const own = fieldText(field.hint, field.label);
  const screen = fieldText(field.screenText);
  const notSecret = says("notSecret", own);
  const digits = typed.replace(/[\s-]/g, "");

  const phrase = isSeedPhrase(typed);
  if (phrase) return { kind: "seed_phrase", scheme: `bip39-${phrase}`, name: `BIP-39 recovery phrase (${phrase})` };
  if ((says("seed", own) || says("seed", screen)) && bipWords(typed)) return { kind: "seed_phrase", scheme: "field", name: "words of a recovery phrase" };

  if (field.password) {
    if (DIGITS(3, 4).test(digits) && (says("cvv", own) || says("security", own))) return { kind: "cvv", scheme: "field", name: "card security code" };
    if (DIGITS(4, 8).test(digits) && says("otp", own)) return { kind: "otp", scheme: "field", name: "one-time code" };
    if (DIGITS(4, 6).test(digits) && says("pin", own)) return { kind: "pin", scheme: "field", name: "PIN" };
    return { kind: "password", scheme: "field", name: "masked field" };
  }

  const brand = cardBrand(typed);
  if (brand) return { kind: "card", scheme: brand, name: `payment card number (${brand})` };
  // Networks the card library does not know (RuPay, national schemes): a card field, or the card's 4-4-4-4 grouping.
  const cardDigits = compactDigits(typed);
  if ((says("card", own) || /^\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1?\d{1,3})?$/.test(typed)) && DIGITS(13, 19).test(cardDigits) && luhnValid(cardDigits))
    return { kind: "card", scheme: "luhn", name: "payment card number" };

  const account = iban(typed);
  if (account) return account;

  const id = identityNumber(typed, `${own} ${screen}`);
  if (id) return { kind: "national_id", scheme: id.scheme, name: id.name };

  if (!notSecret) {
    const cardScreen = says("card", screen) || says("card", own);
    if (DIGITS(3, 4).test(digits) && (says("cvv", own) || (says("security", own) && (digits.length === 3 || cardScreen)))) return { kind: "cvv", scheme: "field", name: "card security code" };
    const codeShape = DIGITS(4, 8).test(digits) || /^(?=.*\d)[A-Z0-9]{6,8}$/.test(digits);
    if (codeShape && (says("otp", own) || says("security", own) || (DIGITS(4, 8).test(digits) && says("code", own) && !says("card", own))))
      return { kind: "otp", scheme: "field", name: "one-time code" };
    if (DIGITS(4, 6).test(digits) && says("pin", own)) return { kind: "pin", scheme: "field", name: "PIN" };
    if (says("passport", own) && PASSPORT_SHAPE.test(typed.replace(/\s/g, "").toUpperCase())) return { kind: "passport", scheme: "field", name: "passport number" };
    if (says("account", own) && DIGITS(6, 34).test(digits)) return { kind: "iban", scheme: "field", name: "bank account number" };
    if (says("identity", own) && /^(?=.*\d)[A-Z0-9]{5,20}$/i.test(digits)) return { kind: "national_id", scheme: "field", name: "identity number" };
    if (says("password", own) && !says("pin", own)) return { kind: "password", scheme: "field", name: "password" };
    // The screen asked for a code (it says one was sent, or names a one-time code) and digits of its shape are typed.
    // The screen asked for a code (it names a one-time code, or says one was sent) and a field without words of its
    // own, or one called a code, takes digits of a code's shape.
    const plainField = !/\p{L}/u.test(own) || says("code", own);
    if (plainField && DIGITS(4, 8).test(digits) && (says("otp", screen) || (says("sent", screen) && (says("code", screen) || says("security", screen)))))
      return { kind: "otp", scheme: "screen", name: "one-time code the screen asked for" };
  }
  return null;
}
