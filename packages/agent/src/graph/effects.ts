// The effects the nodes share: model calls with retries (and usage evidence for direct endpoints), device calls
// with retries, and the one place where an Action becomes Device calls. Timeouts live in the device layer.
import type { Action } from "../actions/schema.ts";
import { sameBytes } from "@phoneloop/device";
import type { ChatMessage, Device, EvidenceInput, Foreground, LeaseRef, ModelError, ModelRequest, ModelResponse, ModelRole, Result, Screenshot, UiNode } from "../ports.ts";
import { countRequestTokens } from "../model/tokens.ts";
import { encodeFrame, hashFrame, type PreparedScreenshot } from "../images/index.ts";
import { guard, type RunCommon, type RunContext } from "./state.ts";

// ── device ──
/** The device layer's codes for a connection that is gone (packages/device/src/errors.ts). */
const LOST_CODES = new Set(["DEVICE_DISCONNECTED", "DEVICE_CLOSED"]);

export function isDeviceLost(e: unknown): boolean {
  return typeof e === "object" && e !== null && "code" in e && typeof e.code === "string" && LOST_CODES.has(e.code);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export type DeviceOutcome<T> = { ok: true; value: T; attempts: number } | { ok: false; lost: boolean; message: string; attempts: number };

/** A device call retried up to `tries` times with a short backoff; a lost connection is final at once. */
export async function retryDevice<T>(ctx: RunContext, what: string, tries: number, f: () => Promise<T>): Promise<DeviceOutcome<T>> {
  let last: unknown;
  for (let i = 1; i <= tries; i++) {
    guard(ctx);
    try {
      return { ok: true, value: await f(), attempts: i };
    } catch (e) {
      last = e;
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
  prepared: PreparedScreenshot;
}

/** What waitForStable settled on after the last action: its frame, and the UI tree it read for that frame. */
export interface Settled {
  screenshot: Screenshot;
  tree?: UiNode;
}

const lostOnly = (e: unknown): null => {
  if (isDeviceLost(e)) throw e;
  return null; // some screens (games, secure views) have no tree or no focused window: the screenshot still is
};

/**
 * The last few frames prepared for the model, by their PNG bytes: a screen seen again (back on a list, a tap that
 * changed nothing) gives byte-identical PNGs, and is not decoded, hashed and encoded again.
 */
export class PreparedFrames {
  readonly #frames: { png: Uint8Array; prepared: PreparedScreenshot }[] = [];
  constructor(readonly size = 4) {}

  get(png: Uint8Array): PreparedScreenshot | undefined {
    const i = this.#frames.findIndex((f) => sameBytes(f.png, png));
    if (i < 0) return undefined;
    const [hit] = this.#frames.splice(i, 1);
    this.#frames.push(hit!);
    return hit!.prepared;
  }

  put(png: Uint8Array, prepared: PreparedScreenshot): void {
    this.#frames.push({ png, prepared });
    if (this.#frames.length > this.size) this.#frames.shift();
  }
}

/**
 * Screenshot + UI tree + foreground app, each retried up to `senseRetries`. After an action the screenshot (and
 * the tree, when the device read one for its loading check) are what Device.waitForStable settled on, so neither
 * a second screenshot nor a second tree dump is spent on them.
 */
export async function sense(ctx: RunContext, device: Device, settled: Settled | null, frames?: PreparedFrames): Promise<DeviceOutcome<Sensed>> {
  const tries = ctx.config.senseRetries;
  const [shot, rest] = await Promise.all([
    settled ? Promise.resolve({ ok: true as const, value: settled.screenshot, attempts: 0 }) : retryDevice(ctx, "screenshot", tries, () => device.screenshot()),
    retryDevice(ctx, settled?.tree ? "foreground app" : "ui tree", tries, async () => {
      const [tree, foreground] = await Promise.all([settled?.tree ?? device.uiTree().catch(lostOnly), device.foreground().catch(lostOnly)]);
      return { tree, foreground };
    }),
  ]);
  if (!shot.ok) return shot;
  if (!rest.ok) return rest;
  let prepared = frames?.get(shot.value.png);
  if (!prepared) {
    const frame = await hashFrame(ctx.ports.images, shot.value.png, ctx.config.screenshotLongSide);
    prepared = await encodeFrame(ctx.ports.images, frame, { mime: ctx.config.imageMime });
    frames?.put(shot.value.png, prepared);
  }
  return { ok: true, value: { screenshot: shot.value, ...rest.value, prepared }, attempts: shot.attempts + rest.attempts };
}

/** The one place an Action becomes Device calls. `px` is the resolved point for point actions. */
export async function perform(device: Device, a: Action, px: { x: number; y: number } | undefined, screen: { width: number; height: number }): Promise<void> {
  const toPx = (p: { x: number; y: number }) => ({ x: Math.round((p.x / 1000) * (screen.width - 1)), y: Math.round((p.y / 1000) * (screen.height - 1)) });
  switch (a.type) {
    case "click":
      return device.tap(px!);
    case "double_tap":
      return device.doubleTap(px!);
    case "long_press":
      return device.longPress(px!, a.durationMs ?? 800);
    case "drag":
      return device.drag(toPx(a.from), toPx(a.to), 600);
    case "scroll":
      return device.scroll(a.direction);
    case "input_text":
      return device.typeText(a.text);
    case "click_then_type":
      await device.tap(px!);
      return device.typeText(a.text);
    case "keyboard_enter":
      return device.key("enter");
    case "navigate_back":
      return device.key("back");
    case "navigate_home":
      return device.key("home");
    case "open_app":
      return device.openApp(a.app);
    case "open_deeplink":
      return device.openDeeplink(a.uri);
    default:
      throw new Error(`${a.type} is not a device action`);
  }
}

// ── model ──
export interface ModelCallResult {
  response: ModelResponse;
  promptTokens: number;
  modelMs: number;
}

/**
 * One model call, retried on rate limits and server errors with backoff on the injected clock. A call is metered
 * once, where it is made: a direct endpoint's usage and cost become model_call evidence here (`via: "runtime"`),
 * which the core spends against the quota as it records the row (with the step, for the executor); the API's model
 * proxy meters and records the calls it relays itself. The caller spends no tokens of its own.
 */
export async function callModel(
  ctx: RunContext,
  run: { goalId: string; runId: string },
  input: ModelCallInput,
  /** Counted into: calls, tokens and cost. */
  totals: RunCommon["totals"],
  /** Writes the usage evidence; by default it is appended before the call returns. */
  recordUsage: (e: EvidenceInput) => Promise<unknown> = (e) => ctx.ports.controlPlane.appendEvidence(e),
): Promise<Result<ModelCallResult, ModelError>> {
  // Only the executor's call waits on the phone: its loss aborts the call (the summarizer still runs after a loss).
  const onDisconnect = input.role === "executor" ? ctx.ports.device.onDisconnect?.bind(ctx.ports.device) : undefined;
  if (!onDisconnect) return callModelRetrying(ctx, run, input, totals, recordUsage);
  const lost = new AbortController();
  const off = onDisconnect((e) => lost.abort(e));
  const deviceLost = (): Result<ModelCallResult, ModelError> => ({ ok: false, error: { code: "DEVICE_LOST", message: `The phone disconnected while the model was asked: ${errorText(lost.signal.reason)}` } });
  try {
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, lost.signal]) : lost.signal;
    const r = await callModelRetrying({ ...ctx, signal }, run, input, totals, recordUsage);
    return lost.signal.aborted ? deviceLost() : r;
  } catch (e) {
    if (lost.signal.aborted) return deviceLost();
    throw e;
  } finally {
    off();
  }
}

type ModelCallInput = { role: ModelRole; messages: ChatMessage[]; jsonSchema?: { name: string; schema: Record<string, unknown> }; tools?: ModelRequest["tools"]; key: string; todoId?: string; lease?: LeaseRef; stepIndex?: number };

async function callModelRetrying(
  ctx: RunContext,
  run: { goalId: string; runId: string },
  input: ModelCallInput,
  totals: RunCommon["totals"],
  recordUsage: (e: EvidenceInput) => Promise<unknown>,
): Promise<Result<ModelCallResult, ModelError>> {
  const model = ctx.ports.models[input.role];
  if (!model) return { ok: false, error: { code: "BAD_REQUEST", message: `No ${input.role} model is configured; add one to the models settings or run without it.` } };
  const counted = countRequestTokens(input.messages, ctx.config.imageTokenFormula);
  const retries = model.retries ?? ctx.config.modelRetries;
  let last: ModelError | undefined;
  let modelMs = 0;
  for (let attempt = 0; attempt <= retries; attempt++) {
    guard(ctx);
    if (ctx.signal?.aborted) return { ok: false, error: { code: "ABORTED", message: "The run was cancelled." } };
    const started = ctx.ports.clock.monotonic();
    // A long call says it is still waiting. Real timers: progress is for a person watching (a fake clock's sleep never waits).
    const progress =
      ctx.onEvent && ctx.config.modelProgressMs > 0
        ? setInterval(() => ctx.onEvent?.({ type: "model_progress", role: input.role, elapsedMs: Math.round(ctx.ports.clock.monotonic() - started), attempt }), ctx.config.modelProgressMs)
        : null;
    const r = await model
      .complete({
        role: input.role,
        messages: input.messages,
        ...(input.jsonSchema ? { jsonSchema: input.jsonSchema } : {}),
        ...(input.tools ? { tools: input.tools } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        temperature: 0,
      })
      .finally(() => {
        if (progress) clearInterval(progress);
      });
    modelMs += ctx.ports.clock.monotonic() - started;
    guard(ctx);
    totals.modelCalls++;
    if (r.ok) {
      const u = r.value.usage;
      totals.inputTokens += u.inputTokens;
      totals.outputTokens += u.outputTokens;
      totals.microUsd += u.microUsd;
      totals.promptTokensCounted += counted.total;
      if (!model.recordsUsage)
        await recordUsage({
          idempotencyKey: `${input.key}:model_call:${attempt}`,
          kind: "model_call",
          goalId: run.goalId,
          runId: run.runId,
          ...(input.todoId ? { todoId: input.todoId } : {}),
          ...(input.lease ? { lease: input.lease } : {}),
          ...(input.stepIndex !== undefined ? { stepIndex: input.stepIndex } : {}),
          summary: `${input.role} ${r.value.model}: ${u.inputTokens} in / ${u.outputTokens} out tokens, ${u.microUsd} µUSD${u.estimated ? " (estimated: the endpoint reported no usage)" : ""}`,
          data: {
            via: "runtime",
            role: input.role,
            model: r.value.model,
            inputTokens: u.inputTokens,
            outputTokens: u.outputTokens,
            microUsd: u.microUsd,
            ...(u.estimated ? { estimated: true } : {}),
            promptTokensCounted: { ...counted },
            latencyMs: Math.round(r.value.latencyMs),
            structured: r.value.structured,
            reply: r.value.text.slice(0, 4000),
            attempt,
          },
        });
      return { ok: true, value: { response: r.value, promptTokens: counted.total, modelMs } };
    }
    last = r.error;
    const willRetry = Boolean(r.error.retryable) && attempt < retries;
    // Each fault is a typed evidence row: what failed, how, and whether the call is tried again.
    if (r.error.code !== "ABORTED")
      await ctx.ports.controlPlane.appendEvidence({
        idempotencyKey: `${input.key}:model_fault:${attempt}`,
        kind: "anomaly",
        goalId: run.goalId,
        runId: run.runId,
        ...(input.todoId ? { todoId: input.todoId } : {}),
        ...(input.lease ? { lease: input.lease } : {}),
        ...(input.stepIndex !== undefined ? { stepIndex: input.stepIndex } : {}),
        summary: `${input.role} model call failed (${r.error.code}${r.error.status ? ` ${r.error.status}` : ""})${willRetry ? `; retry ${attempt + 1} of ${retries}` : "; no retry left"}`,
        data: { fault: "model_call_failed", role: input.role, code: r.error.code, ...(r.error.status ? { status: r.error.status } : {}), attempt, willRetry, message: r.error.message.slice(0, 500) },
      });
    if (!willRetry) break;
    await ctx.ports.clock.sleep(Math.min(30_000, 1000 * 2 ** attempt), ctx.signal);
  }
  return { ok: false, error: last! };
}
