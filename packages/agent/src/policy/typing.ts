// Typing judged by what is typed (a secret or an identity by its shape and check digits — secrets.ts), by the field
// it goes into (its hint and id in every language) and by what the screen asks for (a code that was sent).
import type { UiNode } from "../ports.ts";
import { prepare } from "./match.ts";
import { idWords, paneOf, pathTo } from "./screen.ts";
import { classifySecret } from "./secrets.ts";
import { looksLikeCode } from "./sensitive.ts";
import { q, type Scene, type Verdict } from "./verdict.ts";

export function judgeTyping(s: Scene, v: Verdict, text: string, field: UiNode | undefined): string {
  const { w } = s;
  const label = field ? (field.text || field.contentDesc || idWords(field.resourceId)) : "";
  const fp = field ? prepare(`${field.text} ${field.contentDesc} ${idWords(field.resourceId)}`) : prepare("");
  const pane = field ? paneOf(pathTo(s.tree, field)) : s.tree ? paneOf([s.tree]) : null;
  const paneWords = prepare((pane?.texts ?? []).map((t) => t.text).join(" | "));
  const secret = classifySecret(text, {
    hint: `${field?.contentDesc ?? ""} ${field ? idWords(field.resourceId) : ""} ${field?.text ?? ""}`.trim(),
    ...(field?.password ? { password: true } : {}),
    screenText: (pane?.texts ?? []).map((t) => t.text).join(" | "),
  });
  if (secret) v.raise("high_risk", "credentials", `typed.${secret.kind}`, `the typed text is a ${secret.name ?? secret.kind}${secret.scheme && secret.scheme !== "field" && secret.scheme !== "screen" ? ` (${secret.scheme})` : ""}`);
  if (field?.password) v.raise("high_risk", "credentials", "typed.password", "text typed into a password field");
  const idField = w.lists.identityField.find(fp);
  if (idField && /[\p{L}\p{N}]{5,}/u.test(text)) v.raise("high_risk", "credentials", "field.identity", `an identity number typed into the ${q(idField)} field`);
  const cardField = w.lists.cardField.find(fp);
  if (cardField && text.replace(/\D/g, "").length >= 12) v.raise("high_risk", "credentials", "field.card", `digits typed into the ${q(cardField)} field`);
  // A code field (CVV, PIN, one-time code) takes 3–8 digits; a code asked for elsewhere on the screen, 4–8.
  const fieldCode = /^\d{3,8}$/.test(text.replace(/[\s-]/g, "")) ? w.lists.otpField.find(fp) : null;
  const paneCode = !fieldCode && looksLikeCode(text) ? w.lists.otpField.find(paneWords) : null;
  if (fieldCode ?? paneCode) v.raise("high_risk", "credentials", "typed.code", `a secret code typed where the screen asks for ${q((fieldCode ?? paneCode)!)}`);
  // A search field's hint may name what it finds ("장소, 버스, 지하철, 주소 검색": places, buses, addresses): what is
  // typed there is a query, not one's own data.
  const personal = w.lists.searchField.find(fp) ? null : w.lists.personalField.find(fp);
  if (personal) v.raise("confirm", "personal_data", "field.personal", `personal data typed into the ${q(personal)} field`);
  else if (EMAIL.test(text) || PHONE.test(text)) v.raise("confirm", "personal_data", "typed.personal", `the typed text is ${EMAIL.test(text) ? "an email address" : "a phone number"}`);
  v.normal("typed.text", "typing only fills a field; sending or saving it is judged on its own");
  return label;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/;
const PHONE = /^\+\d[\d\s().-]{6,18}$/;
