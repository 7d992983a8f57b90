// The executor's writes (evidence, step row, turn result, checkpoint) wait in a queue and go out as one step record —
// one request, one transaction — when the runner flushes them: before an action or a gate (write-ahead), and after
// the action together with the route of the next turn. A screenshot's upload starts as soon as it is encoded and only
// the record that names it waits for it; a screenshot already named by recorded evidence is not uploaded again.
import type { EvidenceInput, LeaseRef, StepEvidence, StepInput, StepRecord, StepRecordOutcome } from "../../ports.ts";
import type { Effect } from "../executor.ts";
import { checkpointOf, guard, type ExecutorRunState, type RunContext } from "../state.ts";
import type { StepTimings } from "./timings.ts";

export type StepWriteEffect = Extract<Effect, { type: "evidence" | "turn_result" | "step" }>;
export const isStepWrite = (e: Effect): e is StepWriteEffect => e.type === "evidence" || e.type === "turn_result" || e.type === "step";

/** A write waiting for the next step record: evidence (with the upload of its blob, when it has one), a step row, a turn result. */
type PendingWrite =
  | { type: "evidence"; input: EvidenceInput; blob?: Promise<PutScreenshot> }
  | { type: "step"; step: Omit<StepInput, "runId" | "agentId"> }
  | { type: "turn_result"; lease: LeaseRef; turnResult: NonNullable<StepRecord["turnResult"]> };

/** A screenshot put for an observation: the store's sha256, and the digest of the bytes sent. */
interface PutScreenshot {
  sha256: string;
  digest: string | null;
}

/** The bytes' SHA-256, or null where WebCrypto is missing (a page outside a secure context): then every screenshot is put. */
async function digestOf(bytes: Uint8Array): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const d = new Uint8Array(await subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class StepRecords {
  /** Writes not yet recorded, in order: they go out with the next step record. */
  #pending: PendingWrite[] = [];
  /** Evidence ids by idempotency key, of what this executor recorded (a gate names its screenshot by id). */
  readonly #evidenceIds = new Map<string, string>();
  /**
   * Screenshots already named by recorded evidence, by the digest of their bytes: the same screen seen again is not
   * uploaded again (evidence keeps a blob it names, so it stays stored).
   */
  readonly #recordedBlobs = new Map<string, string>();

  constructor(
    private readonly ctx: RunContext,
    private readonly timings: StepTimings,
  ) {}

  /** Starts putting a screenshot: the store's sha256 (or the one already recorded for the same bytes). */
  async putScreenshot(image: { bytes: Uint8Array; mime: string }): Promise<PutScreenshot> {
    const digest = await digestOf(image.bytes);
    const known = digest === null ? undefined : this.#recordedBlobs.get(digest);
    return { sha256: known ?? (await this.ctx.ports.controlPlane.putBlob({ bytes: image.bytes, mime: image.mime })).sha256, digest };
  }

  /** Evidence for the next record; `blob`: the upload of the screenshot it names. */
  evidence(input: EvidenceInput, blob?: Promise<PutScreenshot>): void {
    this.#pending.push({ type: "evidence", input, ...(blob ? { blob } : {}) });
  }

  /** The ids of recorded evidence, by idempotency key. */
  evidenceIds(keys: string[]): string[] {
    return keys.flatMap((k) => this.#evidenceIds.get(k) ?? []);
  }

  /** Queues a batch's write for the next step record. */
  queue(e: StepWriteEffect): void {
    const t = this.timings;
    switch (e.type) {
      case "evidence":
        this.#pending.push({ type: "evidence", input: e.input });
        return;
      case "turn_result":
        this.#pending.push({ type: "turn_result", lease: e.lease, turnResult: { idempotencyKey: e.idempotencyKey, kind: e.kind, summary: e.summary, ...(e.spend ? { spend: e.spend } : {}) } });
        return;
      case "step":
        this.#pending.push({
          type: "step",
          step: {
            index: e.stepIndex,
            node: "executor",
            todoId: e.todoId,
            action: e.action,
            // Timings (ms) of this step's phases so far and the model's raw replies: what a replay shows per step.
            outcome: { outcome: e.outcome, app: e.app, phash: e.phash, timings: { ...t.phases, model: t.modelMs }, replies: t.replies, ...(e.modelSkipped ? { modelSkipped: e.modelSkipped } : {}) },
            anomalies: e.anomalies,
            tokens: e.tokens,
          },
        });
    }
  }

  /**
   * Records what is queued (and the checkpoint of `state`, and the route, when asked) as step records: one, unless
   * the queue holds writes under different leases or two steps. Blobs are uploaded before the record that names them.
   */
  async flush(state: ExecutorRunState, opts: { checkpoint: boolean; route?: string }): Promise<StepRecordOutcome | null> {
    const ctx = this.ctx;
    guard(ctx);
    const writes = this.#pending;
    this.#pending = [];
    if (!writes.length && !opts.checkpoint && !opts.route) return null;
    const shas = await Promise.all(writes.map((w) => (w.type === "evidence" ? w.blob : undefined)));
    const records: StepRecord[] = [];
    const keys: string[][] = [];
    const open = (lease: LeaseRef | undefined, todoId: string | undefined): StepRecord => {
      const r: StepRecord = { runId: state.runId, agentId: state.agentId, ...(todoId ? { todoId } : {}), ...(lease ? { lease } : {}), evidence: [] };
      records.push(r);
      keys.push([]);
      return r;
    };
    for (const [i, w] of writes.entries()) {
      const cur = records.at(-1) ?? null;
      if (w.type === "step") {
        const r: StepRecord = cur && !cur.step ? cur : open(cur?.lease, w.step.todoId);
        r.step = w.step;
        continue;
      }
      const lease = w.type === "evidence" ? w.input.lease : w.lease;
      const todoId = w.type === "evidence" ? w.input.todoId : w.lease.todoId;
      const fits = (r: StepRecord | null): r is StepRecord => r !== null && r.lease?.leaseKey === lease?.leaseKey && (r.todoId ?? todoId) === todoId && !(w.type === "turn_result" && r.turnResult);
      const r: StepRecord = fits(cur) ? cur : open(lease, todoId);
      r.todoId ??= todoId;
      if (w.type === "turn_result") r.turnResult = w.turnResult;
      else {
        // The row's own fields; its goal, run, todo and lease are the record's.
        const { goalId: _goal, runId: _run, todoId: _todo, lease: _lease, blob: _blob, ...row } = w.input;
        r.evidence!.push({ ...(row as StepEvidence), ...(shas[i] ? { blobSha256: shas[i].sha256 } : {}) });
        keys[keys.length - 1]!.push(row.idempotencyKey);
      }
    }
    const last: StepRecord = records.at(-1) ?? open(undefined, opts.route);
    if (opts.checkpoint) last.checkpoint = checkpointOf(state) as unknown as Record<string, unknown>;
    if (opts.route) {
      if (last.todoId && last.todoId !== opts.route) open(undefined, opts.route).route = true;
      else Object.assign(last, { todoId: opts.route, route: true });
    }
    let out: StepRecordOutcome | null = null;
    for (const [n, r] of records.entries()) {
      guard(ctx);
      out = await ctx.ports.controlPlane.recordStep(r);
      out.evidenceIds.forEach((id, k) => this.#evidenceIds.set(keys[n]![k]!, id));
    }
    for (const [k, w] of writes.entries()) if (w.type === "evidence" && shas[k]?.digest) this.#recordedBlobs.set(shas[k].digest, shas[k].sha256);
    return out;
  }
}
