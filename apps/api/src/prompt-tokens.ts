// The prompt tokens of an OpenAI chat completion request as the model proxy receives it, counted before the call
// so its worst case can be reserved against the quota: text with the agent's tokenizer (countTextTokens, o200k), the
// chat format's overhead as countRequestTokens counts it, images by OpenAI's rule (countImageTokens: tiles after
// fitting, or a flat 85 at detail "low") from the size their header declares — read by sharp without decoding any
// pixel. An image whose size cannot be read (a remote URL, a header sharp does not know) counts as the largest the
// rule allows; tools and the response format count as their JSON text. A long text (a body may be 24 MiB) is
// counted in slices cut at whitespace, the event loop free between them, so one large prompt does not hold up the
// API's other requests while it is counted. An answer that reports no usage has its reply counted the same way
// (countReplyTokens), its prompt being the count made before the call.
import { setImmediate as yieldToOthers } from "node:timers/promises";
import sharp from "sharp";
import { countImageTokens, countRequestTokens, countTextTokens, type ChatMessage } from "@phoneloop/agent";

/** The most tokens one image costs by the rule (a 768×2048 image after fitting: 2×4 tiles). */
const LARGEST_IMAGE_TOKENS = countImageTokens(768, 2048, "openai-high");

interface Part {
  type?: unknown;
  text?: unknown;
  image_url?: { url?: unknown; detail?: unknown } | string;
}

/** Texts longer than this are counted a slice at a time. */
const SLICE_CHARS = 16_384;

export async function countPromptTokens(body: Record<string, unknown>): Promise<number> {
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const textOnly: ChatMessage[] = [];
  let images = 0;
  let extra = 0;
  for (const m of messages) {
    const role = typeof m?.role === "string" ? m.role : "user";
    const texts: string[] = [];
    const content = m?.content;
    if (typeof content === "string") texts.push(content);
    else if (Array.isArray(content))
      for (const p of content as Part[]) {
        if (typeof p?.text === "string") texts.push(p.text);
        else if (p?.type === "image_url" || p?.image_url !== undefined) images += await imageTokens(p.image_url);
      }
    for (const k of ["name", "tool_calls", "function_call", "tool_call_id"] as const) if (m?.[k] !== undefined) texts.push(typeof m[k] === "string" ? m[k] : JSON.stringify(m[k]));
    const text = texts.join("\n");
    // The chat format's overhead is counted with the message; a long text's own tokens slice by slice.
    if (text.length <= SLICE_CHARS) textOnly.push({ role: role as ChatMessage["role"], content: text });
    else {
      textOnly.push({ role: role as ChatMessage["role"], content: "" });
      extra += await countLongText(text);
    }
  }
  for (const k of ["tools", "functions", "response_format"] as const) if (body[k] !== undefined) extra += await countLongText(JSON.stringify(body[k]) ?? "");
  return countRequestTokens(textOnly).total + images + extra;
}

/**
 * The reply tokens of a chat completion answer that reports no usage: its choices' text, tool calls and refusals as
 * the tokenizer counts them (0 for an answer that is not JSON: nothing readable came back).
 */
export async function countReplyTokens(answer: string): Promise<number> {
  let choices: unknown;
  try {
    choices = (JSON.parse(answer) as { choices?: unknown }).choices;
  } catch {
    return 0;
  }
  const texts: string[] = [];
  for (const c of Array.isArray(choices) ? (choices as { message?: Record<string, unknown> }[]) : []) {
    const m = c?.message ?? {};
    for (const k of ["content", "refusal", "reasoning_content"] as const) if (typeof m[k] === "string") texts.push(m[k]);
    for (const k of ["tool_calls", "function_call"] as const) if (m[k] !== undefined && m[k] !== null) texts.push(JSON.stringify(m[k]));
  }
  return countLongText(texts.join("\n"));
}

async function countLongText(text: string): Promise<number> {
  if (text.length <= SLICE_CHARS) return countTextTokens(text);
  let n = 0;
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + SLICE_CHARS);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > at) end = space;
    }
    n += countTextTokens(text.slice(at, end));
    at = end;
    await yieldToOthers();
  }
  return n;
}

async function imageTokens(ref: Part["image_url"]): Promise<number> {
  const url = typeof ref === "string" ? ref : ref?.url;
  const detail = typeof ref === "object" && ref ? ref.detail : undefined;
  if (detail === "low") return countImageTokens(0, 0, "openai-low");
  const data = typeof url === "string" ? /^data:image\/[a-z0-9.+-]+;base64,(.*)$/is.exec(url)?.[1] : undefined;
  if (!data) return LARGEST_IMAGE_TOKENS;
  try {
    const { width, height } = await sharp(Buffer.from(data, "base64")).metadata();
    return width && height ? countImageTokens(width, height, "openai-high") : LARGEST_IMAGE_TOKENS;
  } catch {
    return LARGEST_IMAGE_TOKENS;
  }
}
