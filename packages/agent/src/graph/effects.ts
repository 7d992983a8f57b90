// The effects the nodes share: model calls with retries and usage evidence, device calls with retries and
// timeouts, and the one place where an Action becomes Device calls.
import type { Action } from "../actions/schema.ts";
import type { ChatMessage, Device, LeaseRef, ModelError, ModelResponse, ModelRole, Result, Screenshot, UiNode, Foreground } from "../ports.ts";
import { countRequestTokens } from "../model/tokens.ts";
import { encodeFrame, hashFrame, type HashedFrame, type PreparedScreenshot } from "../images/index.ts";
import { DETECTOR_LIMITS, hammingDistance } from "../detectors/index.ts";
import { hasLoadingIndicator } from "@phoneloop/device";
import { guard, type RunContext, type RunState } from "./state.ts";

// ── device ──
const LOST_CODES = new Set(["device_disconnected", "device_closed"]);

export function isDeviceLost(e: unknown): boolean {
  if (typeof e === "object" && e !== null && "code" in e && typeof e.code === "string") return LOST_CODES.has(e.code);
  const msg = e instanceof Error ? e.message : String(e);
  return /disconnected|connection (lost|closed|reset)|ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|closed by PhoneLoop/i.test(msg);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Every device command has a timeout; a timeout is a result, not a hang. */
export async function withTimeout<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let t: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(Object.assign(new Error(`${what} timed out after ${ms} ms`), { code: "device_timeout" })), ms);
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}

export type DeviceOutcome<T> = { ok: true; value: T; attempts: number } | { ok: false; lost: boolean; message: string; attempts: number };

export async function retryDevice<T>(ctx: RunContext, what: string, tries: number, f: () => Promise<T>): Promise<DeviceOutcome<T>> {
  let last: unknown;
  for (let i = 1; i <= tries; i++) {
    guard(ctx);
    try {
      return { ok: true, value: await withTimeout(what, ctx.config.deviceTimeoutMs, f()), attempts: i };
    } catch (e) {
      last = e;
      // A lost connection is final: no retries after it (CONCEPTS §2).
      if (isDeviceLost(e)) return { ok: false, lost: true, message: errorText(e), attempts: i };
      if (i < tries) await ctx.ports.clock.sleep(200 * i, ctx.signal);
    }
  }
  return { ok: false, lost: false, message: `${what} failed ${tries} times: ${errorText(last)}`, attempts: tries };
}

export interface Sensed {
  screenshot: Screenshot;
  tree: UiNode | null;
  foreground: Foreground | null;
  frame: HashedFrame;
  prepared: PreparedScreenshot;
  /** Frames taken to see a settled screen, and whether it settled before the timeout. */
  frames: number;
  stable: boolean;
}

async function treeAndApp(device: Device, t: number): Promise<{ tree: UiNode | null; foreground: Foreground | null }> {
  const [tree, foreground] = await Promise.all([
    device.uiTree({ timeoutMs: t }).catch((e: unknown) => {
      if (isDeviceLost(e)) throw e;
      return null; // some screens (games, secure views) have no tree: the screenshot still is
    }),
    device.foreground({ timeoutMs: t }).catch((e: unknown) => {
      if (isDeviceLost(e)) throw e;
      return null;
    }),
  ]);
  return { tree, foreground };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Screenshot + UI tree + foreground app, each device call retried up to `senseRetries`. After an action, frames
 * are taken until two in a row have the same pHash and the tree shows no loading indicator (the runtime's
 * waitForStable): the settled frame is the observation, so no extra screenshot is spent on it. A frame
 * byte-identical to the previous one is not decoded again; the tree is fetched alongside every frame after the
 * first, and the model's image is encoded while the next frame is taken.
 */
export async function sense(ctx: RunContext, device: Device, afterAction: boolean): Promise<DeviceOutcome<Sensed>> {
  const { clock, images } = ctx.ports;
  const t = ctx.config.deviceTimeoutMs;
  const settle = afterAction && ctx.config.settle === "runtime";
  const started = clock.monotonic();
  const encodeOpts = { mime: ctx.config.imageMime };
  let prev: { screenshot: Screenshot; frame: HashedFrame; encoded: Promise<PreparedScreenshot>; at: number } | undefined;
  let frames = 0;
  let attempts = 0;
  for (;;) {
    const at = clock.monotonic();
    const withTree = !settle || prev !== undefined;
    const [shot, rest] = await Promise.all([
      retryDevice(ctx, "screenshot", ctx.config.senseRetries, () => device.screenshot({ timeoutMs: t })),
      withTree ? retryDevice(ctx, "ui tree", ctx.config.senseRetries, () => treeAndApp(device, t)) : Promise.resolve(null),
    ]);
    attempts += shot.attempts + (rest?.attempts ?? 0);
    if (!shot.ok) return shot;
    if (rest && !rest.ok) return rest;
    frames++;
    const screenshot = shot.value;
    const reuse = prev !== undefined && sameBytes(prev.screenshot.png, screenshot.png);
    const frame = reuse ? prev!.frame : await hashFrame(images, screenshot.png, ctx.config.screenshotLongSide);
    const encoded = reuse ? prev!.encoded : encodeFrame(images, frame, encodeOpts);
    encoded.catch(() => undefined); // awaited below when this frame is the one returned
    const still = prev !== undefined && hammingDistance(prev.frame.phash, frame.phash) <= DETECTOR_LIMITS.sameScreenBits;
    const timedOut = clock.monotonic() - started + ctx.config.stable.intervalMs >= ctx.config.stable.timeoutMs;
    if (rest) {
      const loading = rest.value.tree !== null && hasLoadingIndicator(rest.value.tree);
      if (!settle || timedOut || (still && !loading))
        return { ok: true, value: { screenshot, frame, prepared: await encoded, ...rest.value, frames, stable: !settle || (still && !loading) }, attempts };
    }
    prev = { screenshot, frame, encoded, at };
    // Frames are at least intervalMs apart; decoding usually took longer already.
    const wait = ctx.config.stable.intervalMs - (clock.monotonic() - at);
    if (wait > 0) await clock.sleep(wait, ctx.signal);
  }
}

/** The one place an Action becomes Device calls. `px` is the resolved point for point actions. */
export async function perform(device: Device, a: Action, px: { x: number; y: number } | undefined, screen: { width: number; height: number }, timeoutMs: number): Promise<void> {
  const o = { timeoutMs };
  const toPx = (p: { x: number; y: number }) => ({ x: Math.round((p.x / 1000) * (screen.width - 1)), y: Math.round((p.y / 1000) * (screen.height - 1)) });
  switch (a.type) {
    case "click":
      return device.tap(px!, o);
    case "double_tap":
      return device.doubleTap(px!, o);
    case "long_press":
      return device.longPress(px!, a.durationMs ?? 800, o);
    case "drag":
      return device.drag(toPx(a.from), toPx(a.to), 600, o);
    case "scroll":
      return device.scroll(a.direction, o);
    case "input_text":
      return device.typeText(a.text, o);
    case "click_then_type":
      await device.tap(px!, o);
      return device.typeText(a.text, o);
    case "keyboard_enter":
      return device.key("enter", o);
    case "navigate_back":
      return device.key("back", o);
    case "navigate_home":
      return device.key("home", o);
    case "open_app":
      return device.openApp(a.app, o);
    case "open_deeplink":
      return device.openDeeplink(a.uri, o);
    case "wait":
      return new Promise((r) => setTimeout(r, a.ms ?? 1000));
    default:
      throw new Error(`${a.type} is not a device action`);
  }
}

// ── model ──
export interface ModelCallResult {
  response: ModelResponse;
  promptTokens: number;
  evidenceId: string;
  modelMs: number;
}

/**
 * One model call, retried on rate limits and server errors with backoff on the injected clock; usage and
 * cost recorded as model_call evidence. The caller spends quota after its own validated writeback.
 */
export async function callModel(
  ctx: RunContext,
  state: RunState,
  input: { role: ModelRole; messages: ChatMessage[]; jsonSchema?: { name: string; schema: Record<string, unknown> }; key: string; todoId?: string; lease?: LeaseRef; stepIndex?: number },
): Promise<Result<ModelCallResult, ModelError>> {
  const model = ctx.ports.models[input.role];
  const counted = countRequestTokens(input.messages, ctx.config.imageTokenFormula);
  let last: ModelError | undefined;
  let modelMs = 0;
  for (let attempt = 0; attempt <= ctx.config.modelRetries; attempt++) {
    guard(ctx);
    if (ctx.signal?.aborted) return { ok: false, error: { code: "aborted", message: "The run was cancelled." } };
    const started = ctx.ports.clock.monotonic();
    const r = await model.complete({
      role: input.role,
      messages: input.messages,
      ...(input.jsonSchema ? { jsonSchema: input.jsonSchema } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      temperature: 0,
    });
    modelMs += ctx.ports.clock.monotonic() - started;
    guard(ctx);
    state.totals.modelCalls++;
    if (r.ok) {
      const u = r.value.usage;
      state.totals.inputTokens += u.inputTokens;
      state.totals.outputTokens += u.outputTokens;
      state.totals.microUsd += u.microUsd;
      state.totals.promptTokensCounted += counted.total;
      const ev = await ctx.ports.controlPlane.appendEvidence({
        idempotencyKey: `${input.key}:model_call:${attempt}`,
        kind: "model_call",
        goalId: state.goalId,
        runId: state.runId,
        ...(input.todoId ? { todoId: input.todoId } : {}),
        ...(input.lease ? { lease: input.lease } : {}),
        ...(input.stepIndex !== undefined ? { stepIndex: input.stepIndex } : {}),
        summary: `${input.role} ${r.value.model}: ${u.inputTokens} in / ${u.outputTokens} out tokens, ${u.microUsd} µUSD`,
        data: {
          role: input.role,
          model: r.value.model,
          usage: u,
          promptTokensCounted: counted,
          latencyMs: Math.round(r.value.latencyMs),
          structured: r.value.structured,
          reply: r.value.text.slice(0, 4000),
          attempt,
        },
      });
      return { ok: true, value: { response: r.value, promptTokens: counted.total, evidenceId: ev.evidenceId, modelMs } };
    }
    last = r.error;
    if (!r.error.retryable || attempt === ctx.config.modelRetries) break;
    await ctx.ports.clock.sleep(Math.min(30_000, 1000 * 2 ** attempt), ctx.signal);
  }
  return { ok: false, error: last! };
}
