// The names callers used before secrets.ts, kept working: each delegates to the detector there.
import { classifySecret, identityNumber } from "./secrets.ts";
import { normaliseDigits } from "./amounts.ts";

/** A payment card number: a known network's prefix, length and Luhn checksum, or Luhn over a card's 4-4-4-4 grouping. */
export function isCardNumber(text: string): boolean {
  return classifySecret(text)?.kind === "card";
}

/** The national identity scheme recognisable by the number's own shape and check digits ("Brazilian CPF"), or null. */
export function identityNumberKind(text: string): string | null {
  return identityNumber(text)?.name ?? null;
}

/** A one-time code's shape: 4–8 digits, in any script's digits. */
export const looksLikeCode = (text: string): boolean => /^\d{4,8}$/.test(normaliseDigits(text).replace(/[\s-]/g, ""));
