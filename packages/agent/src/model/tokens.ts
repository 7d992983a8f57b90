// Token accounting for a request as sent: text with a real tokenizer (o200k_base, bundled ranks, no download),
// images with the provider's formula. gpt-tokenizer ships the ranks ready to use: its encoder is up in a few hundred
// ms, where building js-tiktoken's from its compressed ranks took seconds on a loaded machine — paid by every
// worker's first model call, so by every resumed run.
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { ChatMessage } from "../ports.ts";

/** Special tokens' text counts as ordinary text (a screen may show "<|endoftext|>"): none allowed, none refused. */
const AS_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

// The system prompt and other repeated parts are counted once: tokenizing is the costliest part of accounting.
const cache = new Map<string, number>();
const CACHE_MAX = 256;

export function countTextTokens(text: string): number {
  if (!text) return 0;
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const n = encode(text, AS_TEXT).length;
  if (text.length >= 64) {
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(text, n);
  }
  return n;
}

export type ImageTokenFormula = "openai-high" | "openai-low" | "qwen-vl" | "qwen3-vl";

/**
 * openai-high: fit in 2048², shortest side to 768, 512-px tiles → 85 + 170 per tile.
 * openai-low: a flat 85. qwen-vl: one token per 28×28 patch, plus the two vision delimiters; qwen3-vl the same per
 * 32×32 patch (patch 16, merged 2×2).
 */
export function countImageTokens(width: number, height: number, formula: ImageTokenFormula = "openai-high"): number {
  if (formula === "openai-low") return 85;
  if (formula === "qwen-vl") return Math.ceil(width / 28) * Math.ceil(height / 28) + 2;
  if (formula === "qwen3-vl") return Math.ceil(width / 32) * Math.ceil(height / 32) + 2;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(w, h);
  if (short > 768) {
    w *= 768 / short;
    h *= 768 / short;
  }
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

export interface RequestTokens {
  text: number;
  image: number;
  total: number;
}

/** Chat-format overhead: 3 tokens per message plus 3 to prime the reply (OpenAI's published accounting). */
export function countRequestTokens(messages: ChatMessage[], formula: ImageTokenFormula = "openai-high"): RequestTokens {
  let text = 3;
  let image = 0;
  for (const m of messages) {
    text += 3 + countTextTokens(m.role);
    if (typeof m.content === "string") text += countTextTokens(m.content);
    else
      for (const p of m.content) {
        if (p.type === "text") text += countTextTokens(p.text);
        else image += countImageTokens(p.width, p.height, formula);
      }
  }
  return { text, image, total: text + image };
}
