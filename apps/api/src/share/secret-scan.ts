// What a run would reveal if shared: keys, tokens, card numbers, phone numbers and e-mail addresses in what was
// typed, what the model wrote and what the evidence recorded, plus what was typed into password fields (which a
// share masks). Phone numbers are found by libphonenumber-js; the other patterns are short regular expressions
// (no maintained npm scanner covers these five kinds without a CLI or a rules engine around it), cards checked
// with Luhn so an order number is not reported as one.
import { findPhoneNumbersInText } from "libphonenumber-js";
import type { ReplayNote, ReplayStep, RunReplay } from "@phoneloop/state";
import { passwordTextsOf } from "./redact.ts";

export const SECRET_KINDS = ["key", "token", "card_number", "phone_number", "email", "password"] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface SecretFinding {
  kind: SecretKind;
  /** Where it was found, in words: "step 4 · typed text", "goal", "step 2 · model output". */
  where: string;
  /** The finding with its middle hidden, e.g. "sk-a…9Qz". */
  excerpt: string;
  /** Whether the share masks it (password-field text) or only reports it. */
  masked: boolean;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const CARD = /(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])/g;
const KEYS: { kind: SecretKind; re: RegExp }[] = [
  { kind: "key", re: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g }, // OpenAI / Anthropic style
  { kind: "key", re: /\bAKIA[0-9A-Z]{16}\b/g }, // AWS access key id
  { kind: "key", re: /\bAIza[0-9A-Za-z_-]{35}\b/g }, // Google API key
  { kind: "key", re: /-----BEGIN [A-Z ]*PRIVATE KEY-----/g },
  { kind: "token", re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})/g },
  { kind: "token", re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g }, // Slack
  { kind: "token", re: /\bpl[ts]_[A-Za-z0-9_-]{20,}/g }, // PhoneLoop agent tokens and share links
  { kind: "token", re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g }, // JWT
  { kind: "token", re: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g },
  { kind: "key", re: /\b(?:api[_-]?key|secret|access[_-]?token|password|passwd)\s*[:=]\s*["']?[^\s"',;]{8,}/gi },
];

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function excerptOf(secret: string): string {
  const s = secret.trim();
  if (s.length <= 6) return "•".repeat(Math.max(3, s.length));
  const keep = Math.min(4, Math.floor(s.length / 4));
  return `${s.slice(0, keep)}…${s.slice(-keep)}`;
}

/** The secrets in one piece of text; each span is reported once, under the first kind that matches it. */
export function scanText(text: string): { kind: SecretKind; value: string }[] {
  const found: { kind: SecretKind; value: string; start: number; end: number }[] = [];
  const add = (kind: SecretKind, value: string, start: number) => {
    const end = start + value.length;
    if (found.some((f) => start < f.end && end > f.start)) return;
    found.push({ kind, value, start, end });
  };
  for (const { kind, re } of KEYS) for (const m of text.matchAll(re)) add(kind, m[0], m.index);
  for (const m of text.matchAll(EMAIL)) add("email", m[0], m.index);
  for (const m of text.matchAll(CARD)) {
    const digits = m[0].replace(/\D/g, "");
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits)) add("card_number", m[0], m.index);
  }
  // International numbers anywhere, and national numbers in the North American plan (the test phone's region).
  for (const country of [undefined, "US"] as const) {
    for (const p of findPhoneNumbersInText(text, country ? { defaultCountry: country } : {})) {
      if (p.number.isPossible()) add("phone_number", text.slice(p.startsAt, p.endsAt), p.startsAt);
    }
  }
  return found.sort((a, b) => a.start - b.start).map(({ kind, value }) => ({ kind, value }));
}

/** Every string inside a JSON value (keys left out), for scanning evidence data. */
function stringsOf(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 12) return out;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out, depth + 1);
  else if (value && typeof value === "object" && !(value instanceof Date)) for (const v of Object.values(value)) stringsOf(v, out, depth + 1);
  return out;
}

function actionText(a: ReplayStep["action"]): { typed?: string; thought?: string } {
  if (!a || typeof a !== "object") return {};
  return {
    ...(typeof a.text === "string" && (a.type === "input_text" || a.type === "click_then_type") ? { typed: a.text } : {}),
    ...(typeof a.thought === "string" ? { thought: a.thought } : {}),
  };
}

/** The run's findings, in timeline order: what the person sees before a link is made. */
export function scanReplay(replay: RunReplay, steps: ReplayStep[]): SecretFinding[] {
  const passwords = passwordTextsOf(steps);
  const findings: SecretFinding[] = [];
  const seen = new Set<string>();
  const look = (where: string, text: string | null | undefined) => {
    if (!text) return;
    for (const f of scanText(text)) {
      const key = `${f.kind}:${f.value}:${where}`;
      if (seen.has(key)) continue;
      seen.add(key);
      findings.push({ kind: f.kind, where, excerpt: excerptOf(f.value), masked: [...passwords].some((p) => f.value.includes(p)) });
    }
  };
  const notes = (where: string, list: ReplayNote[]) => {
    for (const n of list) {
      look(`${where} · ${n.kind} evidence`, n.summary);
      for (const s of stringsOf(n.data)) look(`${where} · ${n.kind} evidence`, s);
    }
  };
  look("goal", `${replay.goal.title}\n${replay.goal.objective}`);
  notes("run", replay.timeline);
  for (const s of stringsOf(replay.report)) look("summary report", s);
  for (const c of replay.modelCalls) look(`${c.role} model output`, c.reply);
  for (const s of steps) {
    const at = `step ${s.index + 1}`;
    const { typed, thought } = actionText(s.action);
    if (typed !== undefined && passwords.has(typed)) {
      findings.push({ kind: "password", where: `${at} · typed into a password field`, excerpt: excerptOf(typed), masked: true });
    } else look(`${at} · typed text`, typed);
    look(`${at} · model's thought`, thought);
    for (const r of s.replies) look(`${at} · model output`, r);
    for (const c of s.modelCalls) look(`${at} · model output`, c.reply);
    for (const e of s.screen?.elements ?? []) look(`${at} · screen text`, e.text);
    notes(at, [...s.anomalies, ...s.gateDecisions, ...s.validations]);
    if (typeof s.action === "string") look(`${at} · action`, s.action);
  }
  return findings;
}
