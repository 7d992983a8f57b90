// An OpenAI-compatible HTTP server on loopback for tests: answers /v1/chat/completions from a script of
// replies (by turn, or by matching the request), reports usage, and can delay, fail (429/500) or return
// malformed output. The product's `openai` client talks to it exactly as it talks to a provider.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  index: number;
  model: string;
  body: Record<string, unknown>;
  messages: { role: string; content: unknown }[];
  /** All text parts of all messages, joined. */
  text: string;
  /** Text of the system message. */
  system: string;
  /** Text of the last user message. */
  lastUserText: string;
  imageCount: number;
  responseFormat?: unknown;
  /** The Authorization header as received (what a proxy in front of the endpoint sent). */
  authorization?: string;
}

export type ScriptedReply =
  /** `noUsage`: the answer carries no usage (an endpoint that does not report it). */
  /** `toolCalls`: the answer is these function calls (content null), as an endpoint answering with tools does. */
  | { text: string; promptTokens?: number; completionTokens?: number; delayMs?: number; noUsage?: true; toolCalls?: Array<{ name: string; arguments: string }> }
  | { status: number; message?: string; delayMs?: number }
  /** Accept the connection and never answer (until the server stops or the client aborts). */
  | { hang: true };

export type ScriptEntry = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);

export interface ScriptRule {
  /** Which requests this rule answers (e.g. by model name or a phrase in the prompt). */
  match: (req: RecordedRequest) => boolean;
  /** Replies in order; the last one repeats when `repeatLast`. */
  replies: ScriptEntry[];
  repeatLast?: boolean;
}

export interface ScriptedModelServerInit {
  /** Replies by turn, for requests no rule matched. */
  script?: ScriptEntry[];
  rules?: ScriptRule[];
  /** Answer once the script ran out (default: a 500 saying so, which fails the test visibly). */
  fallback?: ScriptEntry;
  /** Reply 400 to any request carrying response_format (an endpoint without structured output). */
  rejectResponseFormat?: boolean;
  /** Counts prompt tokens when a reply does not fix them (default: characters / 4 + 85 per image). */
  countPromptTokens?: (req: RecordedRequest) => number;
}

export interface ScriptedModelServer {
  baseURL: string;
  requests: RecordedRequest[];
  /** Appends replies to the by-turn script. */
  push(...entries: ScriptEntry[]): void;
  stop(): Promise<void>;
}

function textOf(content: unknown): { text: string; images: number } {
  if (typeof content === "string") return { text: content, images: 0 };
  let text = "";
  let images = 0;
  if (Array.isArray(content))
    for (const p of content as { type?: string; text?: string }[]) {
      if (p.type === "text" && typeof p.text === "string") text += (text ? "\n" : "") + p.text;
      else if (p.type === "image_url") images++;
    }
  return { text, images };
}

function record(index: number, body: Record<string, unknown>): RecordedRequest {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as { role: string; content: unknown }[];
  let text = "";
  let imageCount = 0;
  let system = "";
  let lastUserText = "";
  for (const m of messages) {
    const t = textOf(m.content);
    text += (text ? "\n" : "") + t.text;
    imageCount += t.images;
    if (m.role === "system") system += t.text;
    if (m.role === "user") lastUserText = t.text;
  }
  return { index, model: String(body.model ?? ""), body, messages, text, system, lastUserText, imageCount, ...(body.response_format ? { responseFormat: body.response_format } : {}) };
}

export async function startScriptedModelServer(init: ScriptedModelServerInit = {}): Promise<ScriptedModelServer> {
  const script = [...(init.script ?? [])];
  let turn = 0;
  const ruleCursor = new Map<ScriptRule, number>();
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();

  const pick = (req: RecordedRequest): ScriptedReply => {
    for (const rule of init.rules ?? []) {
      if (!rule.match(req)) continue;
      const i = ruleCursor.get(rule) ?? 0;
      const entry = rule.replies[i] ?? (rule.repeatLast ? rule.replies.at(-1) : undefined);
      if (entry === undefined) continue;
      ruleCursor.set(rule, i + 1);
      return typeof entry === "function" ? entry(req) : entry;
    }
    const entry = script[turn] ?? init.fallback;
    if (script[turn] !== undefined) turn++;
    if (entry === undefined) return { status: 500, message: `scripted model server: script exhausted at request ${req.index}` };
    return typeof entry === "function" ? entry(req) : entry;
  };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) return send(res, 404, { error: { message: "not found" } });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(res, 400, { error: { message: "invalid JSON body" } });
    }
    const rec = record(requests.length, body);
    if (req.headers.authorization) rec.authorization = req.headers.authorization;
    requests.push(rec);
    if (init.rejectResponseFormat && body.response_format)
      return send(res, 400, { error: { message: "response_format is not supported by this endpoint", type: "invalid_request_error" } });
    const reply = pick(rec);
    if ("hang" in reply) return void open.add(res);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if ("status" in reply) return send(res, reply.status, { error: { message: reply.message ?? `scripted ${reply.status}`, type: "scripted" } });
    const promptTokens = reply.promptTokens ?? init.countPromptTokens?.(rec) ?? Math.ceil(rec.text.length / 4) + 85 * rec.imageCount;
    const completionTokens = reply.completionTokens ?? Math.ceil(reply.text.length / 4);
    send(res, 200, {
      id: `chatcmpl-scripted-${rec.index}`,
      object: "chat.completion",
      created: 0,
      model: rec.model,
      choices: [
        reply.toolCalls
          ? { index: 0, message: { role: "assistant", content: null, refusal: null, tool_calls: reply.toolCalls.map((c, i) => ({ id: `call_${rec.index}_${i}`, type: "function", function: c })) }, finish_reason: "tool_calls", logprobs: null }
          : { index: 0, message: { role: "assistant", content: reply.text, refusal: null }, finish_reason: "stop", logprobs: null },
      ],
      ...(reply.noUsage ? {} : { usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } }),
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e) => send(res, 500, { error: { message: String(e) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    push: (...entries) => void script.push(...entries),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const r of open) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON action reply, the usual scripted turn. */
export const act = (action: Record<string, unknown>, extra: Partial<{ promptTokens: number; completionTokens: number; delayMs: number }> = {}): ScriptedReply => ({
  text: JSON.stringify(action),
  ...extra,
});
