// The Models page's grounding check: do the executor model's taps land where it means? One real screenshot of the
// demo phone (the virtual phone's Settings, rendered here by its engine: knownTarget) with a known target, sent to the
// executor's endpoint as a run would ask (the agent's grounding ask, in the executor's adapter's format: its prompt
// with no UI tree, and its tools for a tool-calls adapter), and the reply read back by that adapter as a tap in
// device pixels with its distance from the target. The answer carries the
// screenshot so the page can draw the tap on it; never the key or the endpoint's URL (the proxy's `scrub`).
import { adapterFor, groundingAsk, groundingScore, groundingTap, replyTextOf, type GroundingTarget } from "@phoneloop/agent";
import { knownTarget } from "@phoneloop/virtual-phone";
import OpenAI from "openai";
import type { ModelUpstream } from "./model-settings.ts";
import { scrub } from "./model-proxy.ts";

export interface GroundingCheck {
  /** True when no endpoint is saved: the demo model reads the UI tree, not pixels, so there is nothing to check. */
  demo: boolean;
  model: string | null;
  /** The executor's adapter the check asked and read with (null: the product's own language). */
  adapter: { id: string; version: string } | null;
  /** The screenshot the model was shown (PNG, base64) and its size in device pixels. */
  screenshot: { base64: string; width: number; height: number } | null;
  target: GroundingTarget | null;
  /** Where the model's tap lands, in device pixels; null when its reply was no tap. */
  tap: { x: number; y: number } | null;
  distancePx: number | null;
  inside: boolean | null;
  latencyMs: number | null;
  /** The model's reply as it came (scrubbed, at most 500 characters). */
  reply: string | null;
  /** What happened, in words a person can act on. */
  message: string;
}

const CHECK_TIMEOUT_MS = 60_000;

/** The demo phone's Settings screen and its Display row: the screenshot and the row's box. */
async function knownScreen(): Promise<{ png: Buffer; width: number; height: number; target: GroundingTarget; app: string; label: string }> {
  const k = await knownTarget("settings", "Display");
  return { png: k.png, width: k.width, height: k.height, app: k.app, label: k.label, target: { instruction: `Tap the "${k.label}" row.`, box: k.box } };
}

export async function checkGrounding(upstream: ModelUpstream | null): Promise<GroundingCheck> {
  const none = { model: null, adapter: null, screenshot: null, target: null, tap: null, distancePx: null, inside: null, latencyMs: null, reply: null };
  if (!upstream) {
    return { demo: true, ...none, message: "No endpoint is saved: runs use the demo model (the reference policy), which reads the UI tree, not pixels. Save a vision model's endpoint to check where its taps land." };
  }
  const role = upstream.roles.executor;
  if (!role.model) return { demo: false, ...none, message: "No model is set for the executor role: enter one and save, then check again." };
  const adapter = role.adapter ? adapterFor(role.adapter.id, role.adapter.version) : null;
  if (role.adapter && !adapter) return { demo: false, ...none, model: role.model, message: `The executor's adapter "${role.adapter.id} ${role.adapter.version}" is not one this server has: pick a preset for the executor and save, then check again.` };
  const screen = await knownScreen();
  const shown = { base64: screen.png.toString("base64"), width: screen.width, height: screen.height };
  const image = { bytes: new Uint8Array(screen.png), mime: "image/png" as const, width: screen.width, height: screen.height };
  const { messages, tools } = groundingAsk(image, screen.target, screen.app, adapter);
  const client = new OpenAI({ baseURL: role.baseUrl, apiKey: role.apiKey || "none", maxRetries: 0, timeout: Math.min(role.timeoutMs, CHECK_TIMEOUT_MS) });
  const started = performance.now();
  let reply: string;
  try {
    const res = await client.chat.completions.create({
      model: role.model,
      temperature: 0,
      max_tokens: 512,
      ...(tools?.length ? { tools, tool_choice: "required" as const } : {}),
      messages: messages.map((m) =>
        typeof m.content === "string"
          ? { role: m.role, content: m.content }
          : {
              role: "user" as const,
              content: m.content.map((p) => (p.type === "text" ? { type: "text" as const, text: p.text } : { type: "image_url" as const, image_url: { url: `data:${p.mime};base64,${p.base64}`, detail: "high" as const } })),
            },
      ) as OpenAI.Chat.ChatCompletionMessageParam[],
    });
    reply = replyTextOf(res.choices[0]?.message);
  } catch (e) {
    const what = e instanceof OpenAI.APIError ? `the endpoint answered ${e.status ?? "an error"}: ${e.message}` : e instanceof Error ? e.message : String(e);
    return { demo: false, ...none, model: role.model, adapter: role.adapter, screenshot: shown, target: screen.target, message: `The check could not ask ${role.model} (${scrub(what, role)}): run "Test connection" first, then check again.` };
  }
  const latencyMs = Math.round(performance.now() - started);
  const shownReply = scrub(reply, role).slice(0, 500);
  const tap = groundingTap(reply, screen, adapter);
  if (!tap.ok) return { demo: false, ...none, model: role.model, adapter: role.adapter, screenshot: shown, target: screen.target, latencyMs, reply: shownReply, message: `${role.model} answered, but not with a tap: ${tap.message}` };
  const score = groundingScore(tap, screen.target.box);
  const verdict = score.inside ? "inside the target" : "outside the target: its taps may land in the wrong place (check the model's coordinate frame and image resizing)";
  return {
    demo: false,
    model: role.model,
    adapter: role.adapter,
    screenshot: shown,
    target: screen.target,
    tap: { x: tap.x, y: tap.y },
    distancePx: score.distancePx,
    inside: score.inside,
    latencyMs,
    reply: shownReply,
    message: `${role.model} tapped ${score.distancePx} px from the centre of the "${screen.label}" row, ${verdict}.`,
  };
}
