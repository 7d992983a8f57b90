// Typed text that is a secret or an identity by its own shape, checked by checksum where the number has one, so
// an order or tracking number of the same length is not taken for a card. Hand-written: each check is a few lines
// of arithmetic, and no maintained package covers cards and these national formats together in the browser too.

/** Luhn (ISO/IEC 7812) over 13–19 digits: payment card numbers. */
export function isCardNumber(text: string): boolean {
  const digits = text.replace(/[\s-]/g, "");
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Chinese resident identity number: 17 digits and an ISO 7064 MOD 11-2 check character. */
function isChineseId(s: string): boolean {
  if (!/^\d{17}[\dX]$/i.test(s)) return false;
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (s.charCodeAt(i) - 48) * w[i]!;
  return "10X98765432"[sum % 11] === s[17]!.toUpperCase();
}

/** Spanish DNI: 8 digits and the letter of their remainder mod 23. */
function isSpanishDni(s: string): boolean {
  const m = /^(\d{8})([A-Z])$/i.exec(s);
  return Boolean(m && "TRWAGMYFPDXBNJZSQVHLCKE"[Number(m[1]) % 23] === m[2]!.toUpperCase());
}

/** Brazilian CPF: 11 digits with two mod-11 check digits. */
function isCpf(s: string): boolean {
  if (!/^\d{11}$/.test(s) || /^(\d)\1{10}$/.test(s)) return false;
  const check = (len: number) => {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += (s.charCodeAt(i) - 48) * (len + 1 - i);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return check(9) === s.charCodeAt(9) - 48 && check(10) === s.charCodeAt(10) - 48;
}

/** A national identity number recognisable by its shape and checksum (US SSN by its dashed shape). */
export function identityNumberKind(text: string): string | null {
  const t = text.trim();
  if (/^\d{3}-\d{2}-\d{4}$/.test(t)) return "US social security number";
  const plain = t.replace(/[\s.-]/g, "");
  if (isChineseId(plain)) return "Chinese resident identity number";
  if (isSpanishDni(plain)) return "Spanish DNI";
  if (isCpf(plain)) return "Brazilian CPF";
  return null;
}

/** A one-time code's shape: 4–8 digits. */
export const looksLikeCode = (text: string): boolean => /^\d{4,8}$/.test(text.replace(/[\s-]/g, ""));
