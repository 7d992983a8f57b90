// The reference policy behind an OpenAI-compatible endpoint: `POST <base>/chat/completions` answers with the
// policy's reply and a usage count, so the runtime's `openai` client (directly or through the API's model proxy)
// talks to it exactly as to a provider. Node's http module: one route, no framework needed.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerRequest, REFERENCE_POLICY_MODEL } from "./policy.ts";

const MAX_BODY_BYTES = 24 * 1024 * 1024;

/** Tokens as a provider would roughly count them: characters / 4, and a fixed cost per image. */
function countPromptTokens(body: Record<string, unknown>): number {
  let chars = 0;
  let images = 0;
  for (const m of (Array.isArray(body.messages) ? body.messages : []) as { content?: unknown }[]) {
    if (typeof m.content === "string") chars += m.content.length;
    else if (Array.isArray(m.content))
      for (const p of m.content as { type?: string; text?: string }[]) {
        if (p.type === "text") chars += p.text?.length ?? 0;
        else images++;
      }
  }
  return Math.ceil(chars / 4) + images * 85;
}

/** A chat completion response (OpenAI's shape) for a request body. */
export function referenceCompletion(body: Record<string, unknown>): Record<string, unknown> {
  const text = answerRequest(body);
  const promptTokens = countPromptTokens(body);
  const completionTokens = Math.ceil(text.length / 4);
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: REFERENCE_POLICY_MODEL,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`the request is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("the body is not a JSON object");
  return parsed as Record<string, unknown>;
}

/** Answers one HTTP request for a path that ends in `/chat/completions` (or `/models`); false when the path is another. */
export async function handleReferencePolicyRequest(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  if (path.endsWith("/models") && req.method === "GET") {
    send(res, 200, { object: "list", data: [{ id: REFERENCE_POLICY_MODEL, object: "model", owned_by: "phoneloop" }] });
    return true;
  }
  if (!path.endsWith("/chat/completions")) return false;
  if (req.method !== "POST") {
    send(res, 405, { error: { message: "Chat completions take POST.", code: "METHOD_NOT_ALLOWED" } });
    return true;
  }
  let body: Record<string, unknown>;
  try {
    body = await readJson(req);
  } catch (e) {
    send(res, 400, { error: { message: `The request is not a JSON chat completion request (${(e as Error).message}).`, code: "INVALID_INPUT" } });
    return true;
  }
  if (body.stream) {
    send(res, 400, { error: { message: "The reference policy does not stream; send stream: false.", code: "INVALID_INPUT" } });
    return true;
  }
  send(res, 200, referenceCompletion(body));
  return true;
}

export interface ReferencePolicyServer {
  /** The OpenAI-compatible base URL (`http://127.0.0.1:<port>/v1`). */
  baseURL: string;
  server: Server;
  stop(): Promise<void>;
}

/** Starts the reference policy as its own HTTP server on loopback (port 0: any free port). */
export async function startReferencePolicyServer(opts: { port?: number; host?: string } = {}): Promise<ReferencePolicyServer> {
  const host = opts.host ?? "127.0.0.1";
  const server = createServer((req, res) => {
    handleReferencePolicyRequest(req, res)
      .then((handled) => {
        if (!handled) send(res, 404, { error: { message: "Use POST /v1/chat/completions.", code: "NOT_FOUND" } });
      })
      .catch((e: unknown) => send(res, 500, { error: { message: `The reference policy failed: ${(e as Error).message}`, code: "INTERNAL" } }));
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(opts.port ?? 0, host, () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://${host}:${port}/v1`,
    server,
    stop: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
