// The agent's ControlPlane port over the API's tRPC client: the product's real state core (packages/state behind
// apps/api) in the runtime's words. Both speak of goals and todos; the port's
// todo statuses, turn results and run statuses are mapped in the tables below, each in one place.
// No Node-only APIs here (web crypto, btoa, fetch-based EventSource), so a browser tab's runner can use it too.
import { createTRPCClient, httpSubscriptionLink, TRPCClientError } from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";
import type { AppRouter, RouterOutputs } from "@phoneloop/api";
import {
  ControlPlaneConflict,
  systemClock,
  type AgentRegistration,
  type Clock,
  type ControlPlane,
  type EvidenceInput,
  type EvidenceKind,
  type EvidenceRecord,
  type GateDecision,
  type GateRequest,
  type Lease,
  type LeaseRef,
  type Goal,
  type ReplanOp,
  type RunStatus,
  type ShouldRun,
  type SpendAmount,
  type StepRecord,
  type Todo,
  type TodoDraft,
  type TodoStatus,
  type TurnRecord,
  type TurnResult,
} from "@phoneloop/agent";
import { createCliClient, type Caller, type CliClient } from "../client.ts";

export interface TrpcControlPlaneInit {
  /** Base URL of the API, e.g. http://127.0.0.1:4000 (tRPC is at /trpc). */
  apiUrl: string;
  /** Stable agent id (a restarted worker re-registers under it); minted at registration otherwise. */
  agentId?: string;
  /** A team member on whose behalf goals are created (recorded as their creator). */
  memberId?: string;
  /** For waitForGate's polling pauses; tests may inject one. */
  clock?: Clock;
  /** Longest pause between two gate polls (ms). Default 1000. */
  gatePollMaxMs?: number;
}

/** Any failure the API reported that is not a lease conflict: its code and the API's own message, which says what to do. */
export class ControlPlaneError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ControlPlaneError";
  }
}

/** The API could not be reached at all. */
export class ApiUnreachable extends ControlPlaneError {
  constructor(apiUrl: string, cause: string) {
    super(
      "api_unreachable",
      `Cannot reach the PhoneLoop API at ${apiUrl} (${cause}). Start it with \`npm start\` (or DATABASE_URL=… npm run start --workspace @phoneloop/api), ` +
        `or point --api-url / PHONELOOP_API_URL at a running one.`,
    );
    this.name = "ApiUnreachable";
  }
}

// ─── the mapping tables ───────────────────────────────────────────────────────────────────────────────
type StateTodo = RouterOutputs["todo"]["list"][number];
type StateTodoState = StateTodo["state"];

/** The state's TodoState → the port's TodoStatus. `blocked` and `pending` are refined by lastResult below. */
export const TODO_STATUS_OF: Record<StateTodoState, TodoStatus> = {
  pending: "todo",
  claimed: "claimed",
  running: "in_progress",
  validating: "in_progress",
  done: "done",
  // A failed todo cannot be worked on until someone reopens or supersedes it: to the runtime it is blocked.
  failed: "blocked",
  blocked: "blocked",
  superseded: "superseded",
};

/**
 * The port's turn results → what the state core records. `state`: passed to turn.recordResult as that kind (one
 * transition of the state's TURN_RESULT_TRANSITION); `marker`: no transition, the turn is recorded as evidence only.
 * - user_action_required: the runtime keeps its lease and waits on the gate it opened; the state's "block" would end
 *   the lease under it. The open gate is the state's record of who must act (attention queue, shouldRun).
 * - replan_required blocks the todo in the state (its lease ends); read back it is "waiting" for the supervisor, and
 *   the supervisor's retry (a claim) reopens it first. wait releases it: read back "waiting", claimable.
 * - a turn without a lease (host todos, input checks) on an unheld todo: only a completion moves it (claimed for
 *   the moment of the write); other results leave it as it is, like the port's own double.
 * - idempotency: the state's turn.result has no key, so each turn is also an evidence row (kind validation) under
 *   `<key>#turn`, checked first; likewise a replan under `<key>#replan`, and a gate's id is derived from its key.
 */
export const TURN_MAPPING: Record<TurnResult, "state" | "marker"> = {
  validated_progress: "state",
  validated_completion: "state",
  repair_required: "state",
  replan_required: "state",
  user_action_required: "marker",
  wait: "state",
  host_failure: "state",
  validation_failed: "state",
  writeback_failed: "state",
  quota_spend_failed: "state",
};

/** The port's RunStatus → the state's. The state has no "waiting"/"device_lost": a run that waits is blocked on someone else. */
export const RUN_STATUS_OF: Record<RunStatus, "completed" | "partial" | "blocked" | "failed" | "cancelled"> = {
  completed: "completed",
  partial: "partial",
  blocked: "blocked",
  waiting: "blocked",
  cancelled: "cancelled",
  failed: "failed",
  device_lost: "failed",
};

/** The state's should-run skip reasons → the port's. A todo someone else blocked or finished is no longer ours to run. */
export const SKIP_REASON_OF: Record<string, Extract<ShouldRun, { run: false }>["reason"]> = {
  goal_paused: "paused",
  goal_cancelled: "cancelled",
  goal_completed: "cancelled",
  gate_waiting: "gate_waiting",
  todo_blocked: "lease_lost",
  todo_finished: "lease_lost",
  exhausted: "exhausted",
  throttled: "throttled",
};

const GATE_STATUS_DECISION = { approved: "approve", denied: "deny", answered: "answer" } as const;

/**
 * The runtime marks a free-text question with the single option "answer"; the state core would then accept only
 * the literal word "answer", so such a gate is opened without options (any answer goes).
 */
export function gateOptions(options: string[]): string[] {
  const clean = options.map((o) => o.trim()).filter(Boolean).map((o) => clip(o, 500)).slice(0, 20);
  return clean.length === 1 && clean[0] === "answer" ? [] : clean;
}

/** The port's todo kind lives in the todo's values under this key (the state core has no kind column). */
export const KIND_KEY = "@kind";

/** State codes that mean "this todo is not (or no longer) yours to write": held elsewhere, finished, not allowed, goal not active. */
const HOLDER_LOST_CODES = new Set(["CONFLICT", "ILLEGAL_TRANSITION", "PRECONDITION_FAILED", "FORBIDDEN"]);

interface HeldLease {
  goalId: string;
  leaseId: string;
  todoId: string;
  agentId: string;
  leaseKey: string;
  epoch: number;
  ttlMs: number;
  expiresAt: number;
}

export type TrpcControlPlane = ControlPlane & {
  readonly client: CliClient;
  /** The agent id this adapter acts as (after registerAgent). */
  readonly agentId: string | undefined;
};

export function createTrpcControlPlane(init: TrpcControlPlaneInit): TrpcControlPlane {
  return new TrpcControlPlaneImpl(init);
}

class TrpcControlPlaneImpl implements ControlPlane {
  readonly client: CliClient;
  private readonly who: Caller;
  private readonly apiUrl: string;
  private readonly clock: Clock;
  private readonly gatePollMaxMs: number;
  /** Fencing tokens never leave this process: a lease is usable only by the adapter that claimed it. */
  private readonly leases = new Map<string, HeldLease>();
  private readonly gateLeases = new Map<string, string>();
  private readonly runDrivers = new Map<string, string>();
  private readonly finishedRuns = new Set<string>();
  /** The API lets an agent write only as itself (x-phoneloop-agent must match an input's agentId): one client per agent. */
  private readonly clients = new Map<string, CliClient>();

  constructor(private readonly init: TrpcControlPlaneInit) {
    this.apiUrl = init.apiUrl.replace(/\/+$/, "");
    this.who = { agent: init.agentId, member: init.memberId };
    // The CLI's own client factory; its headers read `who` on every call, so registering sets the acting agent.
    this.client = createCliClient(this.apiUrl, this.who);
    this.clock = init.clock ?? systemClock;
    this.gatePollMaxMs = init.gatePollMaxMs ?? 1000;
  }

  /** The client that calls as this agent (or as the registered one). */
  private as(agentId: string | undefined): CliClient {
    if (!agentId || agentId === this.who.agent) return this.client;
    let c = this.clients.get(agentId);
    if (!c) this.clients.set(agentId, (c = createCliClient(this.apiUrl, { agent: agentId, member: this.init.memberId })));
    return c;
  }

  get agentId(): string | undefined {
    return this.who.agent;
  }

  /** One API call; failures become the port's errors with a message that says what happened and what to do. */
  private async call<T>(what: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw this.translate(what, e);
    }
  }

  private translate(what: string, e: unknown): Error {
    if (e instanceof ControlPlaneConflict || e instanceof ControlPlaneError) return e;
    if (e instanceof TRPCClientError) {
      const data = e.data as { code?: string; stateCode?: string | null } | undefined | null;
      if (!data?.code) return new ApiUnreachable(this.apiUrl, networkReason(e));
      const code = data.stateCode ?? data.code;
      if (code === "CONFLICT") return new ControlPlaneConflict(`${what}: ${e.message}`);
      return new ControlPlaneError(code, `${what}: ${e.message}`);
    }
    return e instanceof Error ? e : new Error(String(e));
  }

  private static codeOf(e: unknown): string | undefined {
    if (e instanceof ControlPlaneConflict) return "CONFLICT";
    if (e instanceof ControlPlaneError) return e.code;
    return undefined;
  }

  /** The lease's fencing fields, or a conflict if this adapter did not take it or its epoch is not the one given. */
  private fence(ref: LeaseRef, todoId: string | undefined, what: string): HeldLease {
    const held = this.leases.get(ref.leaseId);
    if (!held || held.epoch !== ref.epoch || (todoId && held.todoId !== todoId)) {
      throw new ControlPlaneConflict(
        `${what}: lease ${ref.leaseId}@${ref.epoch} is not a current lease of this worker${todoId ? ` on ${todoId}` : ""}` +
          (held ? ` (it holds epoch ${held.epoch} on ${held.todoId})` : "") +
          `; claim the todo again.`,
      );
    }
    return held;
  }

  private remember(goalId: string, l: { id: string; todoId: string; ownerId: string; idempotencyKey: string; epoch: number; ttlMs: number; expiresAt: Date }): Lease {
    const held: HeldLease = { goalId, leaseId: l.id, todoId: l.todoId, agentId: l.ownerId, leaseKey: l.idempotencyKey, epoch: l.epoch, ttlMs: l.ttlMs, expiresAt: l.expiresAt.getTime() };
    this.leases.set(held.leaseId, held);
    return { leaseId: held.leaseId, todoId: held.todoId, agentId: held.agentId, idempotencyKey: held.leaseKey, epoch: held.epoch, expiresAt: held.expiresAt };
  }

  private actingId(): string {
    const id = this.who.agent ?? this.init.agentId;
    if (!id) throw new ControlPlaneError("not_registered", "This worker has not registered as an agent yet; call registerAgent first.");
    return id;
  }

  // ── agents, objectives ──
  async registerAgent(reg: AgentRegistration): Promise<{ agentId: string }> {
    const id = reg.agentId ?? this.init.agentId ?? `agent_${newId()}`;
    await this.call("agent.register", () =>
      this.client.agent.register.mutate({
        id,
        name: reg.name.trim().slice(0, 500) || id,
        kind: reg.kind,
        capabilities: reg.capabilities,
        meta: reg.device ? { device: reg.device } : {},
      }),
    );
    this.who.agent = id;
    return { agentId: id };
  }

  async heartbeat(agentId: string): Promise<void> {
    await this.call("agent.heartbeat", () => this.as(agentId).agent.heartbeat.mutate({ agentId }));
  }

  async createGoal(input: { goal: string; bounds?: string[]; nonGoals?: string[] }): Promise<Goal> {
    const short = (xs: string[] | undefined) => (xs ?? []).map((x) => x.trim().slice(0, 500)).filter(Boolean);
    const firstLine = input.goal.trim().split("\n")[0]!.trim();
    const goal = await this.call("goal.create", () =>
      this.client.goal.create.mutate({
        title: firstLine.length > 120 ? `${firstLine.slice(0, 117)}…` : firstLine || "Untitled goal",
        objective: input.goal,
        bounds: short(input.bounds),
        nonGoals: short(input.nonGoals),
        createdBy: this.init.memberId ?? this.who.agent ?? "headless-agent",
      }),
    );
    return goalOf(goal);
  }

  async getGoal(goalId: string): Promise<Goal | null> {
    try {
      return goalOf(await this.call("goal.get", () => this.client.goal.get.query({ goalId: goalId })));
    } catch (e) {
      if (TrpcControlPlaneImpl.codeOf(e) === "NOT_FOUND") return null;
      throw e;
    }
  }

  // ── todos, leases ──
  private async stateTodos(goalId: string): Promise<StateTodo[]> {
    return this.call("todo.list", () => this.client.todo.list.query({ goalId: goalId }));
  }

  async readTodos(goalId: string): Promise<Todo[]> {
    return (await this.stateTodos(goalId)).map(todoOf);
  }

  async claim(input: { agentId: string; goalId: string; capabilities: string[]; todoId?: string; ttlMs: number }): Promise<Lease | null> {
    const todos = await this.stateTodos(input.goalId);
    // Todos run in order: without a given todo, the first one not finished is the only candidate.
    const target = input.todoId
      ? todos.find((t) => t.id === input.todoId)
      : todos.find((t) => !["done", "superseded", "failed"].includes(t.state) && !(t.state === "blocked" && t.lastResult !== "replan_required"));
    if (!target) return null;
    const port = todoOf(target);
    if (port.kind !== "executor" || !["todo", "claimed", "in_progress", "waiting"].includes(port.status)) return null;
    if (!port.capabilities.every((c) => input.capabilities.includes(c))) return null;
    try {
      // The supervisor retries a todo whose last turn asked for a replan: back to the pool first.
      if (target.state === "blocked") {
        await this.call("todo.reopen", () => this.client.todo.reopen.mutate({ todoId: target.id, reason: "the supervisor retries it" }));
      }
      const r = await this.call("todo.claim", () =>
        this.as(input.agentId).todo.claim.mutate({ agentId: input.agentId, todoId: target.id, goalId: input.goalId, ttlMs: Math.round(input.ttlMs) }),
      );
      return r.claimed ? this.remember(input.goalId, r.lease) : null;
    } catch (e) {
      // Held by another worker, finished meanwhile, not ours to take, goal paused: nothing is claimable now.
      if (HOLDER_LOST_CODES.has(TrpcControlPlaneImpl.codeOf(e) ?? "")) return null;
      throw e;
    }
  }

  async renewLease(ref: LeaseRef, ttlMs: number): Promise<Lease> {
    const held = this.fence(ref, undefined, "renewLease");
    const l = await this.call("lease.renew", () =>
      this.as(held.agentId).lease.renew.mutate({ todoId: held.todoId, agentId: held.agentId, leaseKey: held.leaseKey, ttlMs: Math.round(ttlMs) }),
    );
    return this.remember(held.goalId, l);
  }

  async releaseLease(ref: LeaseRef): Promise<void> {
    const held = this.leases.get(ref.leaseId);
    if (!held || held.epoch !== ref.epoch) return;
    try {
      await this.call("lease.release", () => this.as(held.agentId).lease.release.mutate({ todoId: held.todoId, agentId: held.agentId, leaseKey: held.leaseKey }));
    } catch (e) {
      // The lease already ended (the todo completed, was released by a turn, or was taken over): nothing to give back.
      if (!HOLDER_LOST_CODES.has(TrpcControlPlaneImpl.codeOf(e) ?? "")) throw e;
    }
  }

  async startTodo(todoId: string, ref: LeaseRef): Promise<void> {
    const held = this.fence(ref, todoId, "startTodo");
    try {
      await this.call("todo.start", () => this.as(held.agentId).todo.start.mutate({ todoId, agentId: held.agentId, leaseKey: held.leaseKey }));
    } catch (e) {
      // Already running under this lease (a resumed worker): starting is a no-op, as in the port's contract.
      if (TrpcControlPlaneImpl.codeOf(e) !== "ILLEGAL_TRANSITION") throw e;
      const t = (await this.stateTodos(held.goalId)).find((x) => x.id === todoId);
      if (!t || !(t.state === "running" || t.state === "validating") || t.holder?.leaseId !== held.leaseId) throw e;
    }
  }

  async replanTodos(input: { goalId: string; idempotencyKey: string; ops: ReplanOp[]; reason: string }): Promise<Todo[]> {
    const marker = `${input.idempotencyKey}#replan`;
    if (await this.evidenceByKey(marker)) return this.readTodos(input.goalId);
    const current = await this.stateTodos(input.goalId);
    const existing = new Set(current.map((t) => t.id));
    const drafts = input.ops.flatMap((op) => (op.op === "insert" ? [op.todo] : op.op === "supersede" ? (op.replacements ?? []) : []));
    // A replan that landed before its marker (a crash in between): its planner-chosen ids are all there already.
    const landed = drafts.length > 0 && drafts.every((d) => d.todoId && existing.has(d.todoId));
    if (!landed) {
      type Entry = { keep: string } | { draft: ReturnType<typeof draftOf> };
      const idOf = (e: Entry) => ("keep" in e ? e.keep : e.draft.id);
      // The whole ordered plan, as the port's double orders it; then the superseded ones leave it with their reason.
      let list: Entry[] = current.map((t) => ({ keep: t.id }));
      const supersede: { todoId: string; reason: string; replacedBy?: string }[] = [];
      const taken = new Set(existing);
      const mint = (d: TodoDraft) => {
        const id = d.todoId && !taken.has(d.todoId) ? d.todoId : `todo_${newId()}`;
        taken.add(id);
        return { draft: draftOf(d, id) };
      };
      for (const op of input.ops) {
        if (op.op === "insert") {
          const at = op.after ? list.findIndex((e) => idOf(e) === op.after) : list.length - 1;
          list.splice(at + 1, 0, mint(op.todo));
        } else if (op.op === "reorder") {
          const rank = new Map(op.todoIds.map((id, i) => [id, i]));
          list = list.map((e, i) => ({ e, i })).sort((a, b) => (rank.get(idOf(a.e)) ?? 1e9 + a.i) - (rank.get(idOf(b.e)) ?? 1e9 + b.i)).map((x) => x.e);
        } else {
          const at = list.findIndex((e) => idOf(e) === op.todoId);
          if (at < 0) throw new ControlPlaneError("NOT_FOUND", `replanTodos: supersede: todo ${op.todoId} is not in objective ${input.goalId}.`);
          const repl = (op.replacements ?? []).map(mint);
          list.splice(at + 1, 0, ...repl);
          supersede.push({ todoId: op.todoId, reason: op.reason.trim() || input.reason || "superseded by a replan", ...(repl[0] ? { replacedBy: repl[0].draft.id } : {}) });
        }
      }
      const dropped = new Set(supersede.map((s) => s.todoId));
      const plan = list.filter((e) => !dropped.has(idOf(e))).map((e) => ("keep" in e ? { keep: e.keep } : e.draft));
      await this.call("todo.replan", () => this.client.todo.replan.mutate({ goalId: input.goalId, plan, supersede }));
    }
    await this.call("evidence.append", () =>
      this.client.evidence.append.mutate({
        goalId: input.goalId,
        kind: "validation",
        summary: clip(`replan: ${input.reason || "plan written"}`, 2000),
        data: { replan: { reason: input.reason, ops: input.ops } },
        ...(this.who.agent ? { agentId: this.who.agent } : {}),
        idempotencyKey: marker,
      }),
    );
    return this.readTodos(input.goalId);
  }

  // ── evidence ──
  private async evidenceByKey(key: string): Promise<RouterOutputs["evidence"]["byKey"]> {
    return this.call("evidence.byKey", () => this.client.evidence.byKey.query({ idempotencyKey: key }));
  }

  async appendEvidence(e: EvidenceInput): Promise<{ evidenceId: string; duplicate: boolean }> {
    let held: HeldLease | undefined;
    if (e.lease) {
      try {
        held = this.fence(e.lease, e.todoId, "appendEvidence");
      } catch (conflict) {
        // A repeat of a write that already landed is a duplicate, whoever holds the todo now.
        const first = await this.evidenceByKey(e.idempotencyKey);
        if (first) return { evidenceId: first.id, duplicate: true };
        throw conflict;
      }
    }
    let blobSha256: string | undefined;
    if (e.blob) {
      const bytes = e.blob.bytes;
      const put = await this.call("evidence.putBlob", () =>
        this.client.evidence.putBlob.mutate({ bytes: toBase64(bytes), mime: e.blob!.mime }),
      );
      blobSha256 = put.sha256;
    }
    const agentId = held?.agentId ?? this.who.agent;
    const r = await this.call("evidence.append", () =>
      this.as(agentId).evidence.append.mutate({
        goalId: e.goalId,
        ...(e.todoId ? { todoId: e.todoId } : {}),
        ...(e.runId ? { runId: e.runId } : {}),
        ...(e.stepIndex !== undefined ? { stepIndex: e.stepIndex } : {}),
        kind: e.kind,
        summary: clip(e.summary.trim() || `(${e.kind})`, 2000),
        data: e.data ?? {},
        ...(blobSha256 ? { blobSha256 } : {}),
        ...(agentId ? { agentId } : {}),
        ...(held ? { leaseKey: held.leaseKey } : {}),
        idempotencyKey: e.idempotencyKey,
      }),
    );
    return { evidenceId: r.evidence.id, duplicate: !r.created };
  }

  async listEvidence(filter: { goalId: string; runId?: string; kind?: EvidenceKind }): Promise<EvidenceRecord[]> {
    const rows = await this.call("evidence.list", () =>
      this.client.evidence.list.query({ goalId: filter.goalId, ...(filter.runId ? { runId: filter.runId } : {}), ...(filter.kind ? { kind: filter.kind } : {}), limit: 5000 }),
    );
    return rows.map(
      (r): EvidenceRecord => ({
        evidenceId: r.id,
        idempotencyKey: r.idempotencyKey,
        kind: r.kind as EvidenceKind,
        goalId: r.goalId,
        ...(r.runId ? { runId: r.runId } : {}),
        ...(r.todoId ? { todoId: r.todoId } : {}),
        ...(r.stepIndex !== null ? { stepIndex: r.stepIndex } : {}),
        summary: r.summary,
        data: (r.data ?? {}) as Record<string, unknown>,
        createdAt: new Date(r.createdAt).getTime(),
        ...(r.blobSha256 ? { blobSha256: r.blobSha256 } : {}),
        ...(r.blobMime ? { blobMime: r.blobMime } : {}),
      }),
    );
  }

  // ── gates ──
  async openGate(req: GateRequest): Promise<{ gateId: string }> {
    // The state's gate.open has no idempotency key: the gate's id is derived from it, so a repeat finds the first.
    const gateId = `gate_${(await sha256Hex(req.idempotencyKey)).slice(0, 24)}`;
    if (await this.gateExists(gateId)) return { gateId };
    if (req.lease) {
      // Fences the gate like the port's other writes (a renewal fails unless this is the todo's current lease),
      // and gives the person who answers a full lease term.
      const held = this.fence(req.lease, req.todoId, "openGate");
      await this.renewLease(req.lease, held.ttlMs);
      this.gateLeases.set(gateId, held.leaseId);
    }
    const question = req.question.trim().length >= 8 ? req.question.trim().slice(0, 2000) : `Question from the agent: ${req.question.trim() || "(empty)"}`;
    try {
      await this.call("gate.open", () =>
        this.client.gate.open.mutate({
          id: gateId,
          goalId: req.goalId,
          todoId: req.todoId,
          question,
          options: gateOptions(req.options),
          evidenceIds: req.evidenceIds,
          answerRoles: req.answerRoles.length ? req.answerRoles : ["owner"],
          ...(this.who.agent ? { openedBy: this.who.agent } : {}),
        }),
      );
    } catch (e) {
      if (await this.gateExists(gateId)) return { gateId }; // a concurrent repeat won the insert
      throw e;
    }
    return { gateId };
  }

  private async gateExists(gateId: string): Promise<boolean> {
    try {
      await this.call("gate.get", () => this.client.gate.get.query({ gateId }));
      return true;
    } catch (e) {
      if (TrpcControlPlaneImpl.codeOf(e) === "NOT_FOUND") return false;
      throw e;
    }
  }

  /**
   * Reads gate.get until the gate is decided: woken at once by the API's event stream (SSE) when something happens
   * to the gate, and polling with backoff up to gatePollMaxMs in any case (the stream is a hint, gate.get the truth).
   * Keeps the gate's lease alive while a person decides.
   */
  async waitForGate(gateId: string, signal?: AbortSignal): Promise<GateDecision> {
    let pause = 50;
    let wake = new AbortController();
    let sub: { unsubscribe(): void } | undefined;
    try {
      for (;;) {
        if (signal?.aborted) throw signal.reason ?? new Error("aborted");
        const g = await this.call("gate.get", () => this.client.gate.get.query({ gateId }));
        if (g.status === "expired") return { decision: "deny", rationale: "The gate expired before anyone answered it." };
        if (g.status !== "open") {
          return {
            decision: GATE_STATUS_DECISION[g.status],
            ...(g.answer ? { answer: g.answer } : {}),
            ...(g.rationale ? { rationale: g.rationale } : {}),
          };
        }
        sub ??= this.events().event.stream.subscribe(
          { goalId: g.goalId },
          // Once the stream is live, one more read catches a decision made before it started.
          { onStarted: () => wake.abort(), onData: ({ data }) => data.subjectId === gateId && wake.abort(), onError: () => undefined },
        );
        await this.keepGateLease(gateId);
        const both = signal ? AbortSignal.any([signal, wake.signal]) : wake.signal;
        await this.clock.sleep(pause, both);
        if (wake.signal.aborted) wake = new AbortController();
        pause = Math.min(this.gatePollMaxMs, pause * 2);
      }
    } finally {
      sub?.unsubscribe();
    }
  }

  private eventClient: ReturnType<typeof createTRPCClient<AppRouter>> | undefined;
  /** A subscription-only client for the API's event stream (SSE), made on first use. */
  private events() {
    return (this.eventClient ??= createTRPCClient<AppRouter>({
      links: [httpSubscriptionLink({ url: `${this.apiUrl}/trpc`, transformer: superjson, EventSource })],
    }));
  }

  private async keepGateLease(gateId: string): Promise<void> {
    const held = this.leases.get(this.gateLeases.get(gateId) ?? "");
    if (!held || held.expiresAt - this.clock.now() > held.ttlMs / 2) return;
    // A lost lease surfaces at the runtime's next fenced write, as a conflict; waiting goes on.
    await this.renewLease({ leaseId: held.leaseId, epoch: held.epoch }, held.ttlMs).catch(() => undefined);
  }

  // ── quota ──
  async shouldRun(input: { agentId: string; goalId: string; todoId?: string }): Promise<ShouldRun> {
    const r = await this.call("quota.shouldRun", () =>
      this.as(input.agentId).quota.shouldRun.query({ goalId: input.goalId, agentId: input.agentId, ...(input.todoId ? { todoId: input.todoId } : {}) }),
    );
    if (r.decision === "run") return { run: true };
    return { run: false, reason: SKIP_REASON_OF[r.reason] ?? "lease_lost", detail: r.message };
  }

  async spend(key: string, input: { agentId: string; goalId: string } & SpendAmount): Promise<{ spent: boolean; duplicate: boolean }> {
    try {
      const r = await this.call("quota.spend", () =>
        this.as(input.agentId).quota.spend.mutate({
          key,
          goalId: input.goalId,
          agentId: input.agentId,
          steps: Math.max(0, Math.round(input.steps)),
          tokens: Math.max(0, Math.round(input.tokens)),
          microUsd: Math.max(0, Math.round(input.microUsd)),
        }),
      );
      return { spent: !r.replay, duplicate: r.replay };
    } catch (e) {
      // Quota is a hard limit: the state refused the spend. Nothing was spent; shouldRun stops the next turn.
      if (TrpcControlPlaneImpl.codeOf(e) === "QUOTA_EXCEEDED") return { spent: false, duplicate: false };
      throw e;
    }
  }

  // ── turns ──
  async recordTurnResult(turn: TurnRecord): Promise<{ duplicate: boolean }> {
    // The state's turn.result has no idempotency key: the turn is also written as evidence under the key, first
    // checked here. A repeat whose transition landed but whose record did not is caught by the state's own table
    // (the same transition is illegal twice) and answered as a duplicate.
    const marker = `${turn.idempotencyKey}#turn`;
    if (await this.evidenceByKey(marker)) return { duplicate: true };
    const held = turn.lease ? this.fence(turn.lease, turn.todoId, "recordTurnResult") : undefined;
    if (TURN_MAPPING[turn.result] === "state") {
      try {
        await this.applyTurn(turn, held);
      } catch (e) {
        if (TrpcControlPlaneImpl.codeOf(e) === "ILLEGAL_TRANSITION") {
          if (await this.evidenceByKey(marker)) return { duplicate: true };
          const t = (await this.stateTodos(turn.goalId)).find((x) => x.id === turn.todoId);
          if (t?.lastResult !== turn.result) throw e;
        } else throw e;
      }
    }
    const writer = held?.agentId ?? this.who.agent;
    const r = await this.call("evidence.append", () =>
      this.as(writer).evidence.append.mutate({
        goalId: turn.goalId,
        todoId: turn.todoId,
        kind: "validation",
        summary: clip(`turn ${turn.result}: ${turn.summary.trim() || turn.result}`, 2000),
        data: { turn: { result: turn.result, reason: turn.reason ?? null, outputs: turn.outputs ?? {}, evidenceIds: turn.evidenceIds } },
        ...(writer ? { agentId: writer } : {}),
        idempotencyKey: marker,
      }),
    );
    return { duplicate: !r.created };
  }

  private async applyTurn(turn: TurnRecord, held: HeldLease | undefined): Promise<void> {
    const record = (h: { agentId: string; leaseKey: string }) =>
      this.call("turn.recordResult", () =>
        this.as(h.agentId).turn.recordResult.mutate({
          todoId: turn.todoId,
          agentId: h.agentId,
          leaseKey: h.leaseKey,
          kind: turn.result,
          summary: clip(turn.summary.trim() || turn.result, 2000),
          ...(turn.outputs && Object.keys(turn.outputs).length ? { values: turn.outputs } : {}),
        }),
      );
    if (held) {
      await record(held);
      return;
    }
    // No lease (a host todo answered without the phone): a completion claims the todo for the moment of the write.
    if (turn.result !== "validated_completion") return;
    const agentId = this.actingId();
    const r = await this.call("todo.claim", () => this.as(agentId).todo.claim.mutate({ agentId, todoId: turn.todoId, goalId: turn.goalId, ttlMs: 60_000 }));
    if (!r.claimed) throw new ControlPlaneConflict(`recordTurnResult: todo ${turn.todoId} could not be claimed to record its completion: ${r.reason}`);
    await record({ agentId, leaseKey: r.lease.idempotencyKey });
  }

  // ── runs, steps, checkpoints ──
  async startRun(input: { runId?: string; goalId: string; agentId: string; goal: string }): Promise<{ runId: string; resumed: boolean }> {
    if (input.runId) {
      const existing = await this.runOrNull(input.runId);
      if (existing) {
        if (existing.status !== "running") {
          throw new ControlPlaneError(
            "run_finished",
            `Run ${existing.id} is ${existing.status}; a finished run cannot be resumed. Start a new run on its goal (--goal-id ${existing.goalId}).`,
          );
        }
        await this.call("run.resume", () => this.as(input.agentId).run.resume.mutate({ runId: existing.id, agentId: input.agentId }));
        this.track(existing.id, input.agentId);
        return { runId: existing.id, resumed: true };
      }
    }
    const run = await this.call("run.start", () =>
      this.as(input.agentId).run.start.mutate({ ...(input.runId ? { id: input.runId } : {}), goalId: input.goalId, agentId: input.agentId }),
    );
    this.track(run.id, input.agentId);
    return { runId: run.id, resumed: false };
  }

  private track(runId: string, agentId: string): void {
    this.runDrivers.set(runId, agentId);
    this.finishedRuns.delete(runId);
  }

  private async runOrNull(runId: string): Promise<RouterOutputs["run"]["get"] | null> {
    try {
      return await this.call("run.get", () => this.client.run.get.query({ runId }));
    } catch (e) {
      if (TrpcControlPlaneImpl.codeOf(e) === "NOT_FOUND") return null;
      throw e;
    }
  }

  async saveCheckpoint(runId: string, state: unknown): Promise<void> {
    // A finished run only reads (the state core refuses to change it); its last word is the summary evidence.
    if (this.finishedRuns.has(runId)) return;
    const checkpoint = isPlainObject(state) ? state : { value: state };
    const agentId = this.runDrivers.get(runId);
    await this.call("run.checkpoint", () => this.as(agentId).run.checkpoint.mutate({ runId, ...(agentId ? { agentId } : {}), checkpoint }));
  }

  async loadCheckpoint(runId: string): Promise<unknown | null> {
    const run = await this.runOrNull(runId);
    const cp = run?.checkpoint as Record<string, unknown> | null | undefined;
    if (!cp || Object.keys(cp).length === 0) return null;
    return Object.keys(cp).length === 1 && "value" in cp ? cp.value : cp;
  }

  async finishRun(runId: string, input: { status: RunStatus; summary: string }): Promise<void> {
    const agentId = this.runDrivers.get(runId);
    const prefix = input.status === "waiting" || input.status === "device_lost" ? `${input.status}: ` : "";
    try {
      await this.call("run.finish", () =>
        this.as(agentId).run.finish.mutate({ runId, ...(agentId ? { agentId } : {}), status: RUN_STATUS_OF[input.status], summary: clip(`${prefix}${input.summary}`, 5000) }),
      );
    } catch (e) {
      if (TrpcControlPlaneImpl.codeOf(e) !== "ILLEGAL_TRANSITION") throw e; // already finished: its first outcome stands
    }
    this.finishedRuns.add(runId);
  }

  async appendStep(step: StepRecord): Promise<{ duplicate: boolean }> {
    const agentId = this.runDrivers.get(step.runId);
    const r = await this.call("run.appendStep", () =>
      this.as(agentId).run.appendStep.mutate({
        runId: step.runId,
        ...(agentId ? { agentId } : {}),
        index: step.index,
        node: "executor",
        action: step.action,
        observation: { todoId: step.todoId, outcome: step.outcome, evidenceIds: step.evidenceIds, at: step.at },
      }),
    );
    return { duplicate: !r.created };
  }
}

// ─── shapes ───────────────────────────────────────────────────────────────────────────────────────────
function goalOf(g: { id: string; objective: string; bounds: string[]; nonGoals: string[] }): Goal {
  return { goalId: g.id, goal: g.objective, ...(g.bounds.length ? { bounds: g.bounds } : {}), ...(g.nonGoals.length ? { nonGoals: g.nonGoals } : {}) };
}

function draftOf(d: TodoDraft, id: string) {
  return {
    id,
    title: clip(d.title.trim() || "Untitled todo", 500),
    ...(d.appHint ? { appHint: d.appHint.slice(0, 200) } : {}),
    requiredCapabilities: d.capabilities ?? (d.kind === "executor" ? ["phone"] : []),
    inputs: d.inputs ?? [],
    outputs: d.outputs ?? [],
    values: d.kind === "host" ? { [KIND_KEY]: "host" } : {},
  };
}

/** The state's todo → the port's, with the status table above refined by what the state recorded last. */
export function todoOf(t: StateTodo): Todo {
  const values = (t.values ?? {}) as Record<string, unknown>;
  let status = TODO_STATUS_OF[t.state];
  let waitReason: string | undefined;
  if (t.openGate && (t.state === "claimed" || t.state === "running" || t.state === "validating")) {
    status = "waiting";
    waitReason = `gate ${t.openGate.id}: ${t.openGate.question}`;
  } else if (t.state === "pending" && t.lastResult === "wait") {
    // Released with a "wait" turn: claimable, but waiting for something (quota, pause, the model endpoint).
    status = "waiting";
    waitReason = t.reason ?? "waiting (its last turn asked to wait)";
  } else if (t.state === "blocked" && t.lastResult === "replan_required") {
    // The supervisor decides next (retry or replan); a retry reopens it.
    status = "waiting";
    waitReason = `replan required${t.reason ? `: ${t.reason}` : ""}`;
  } else if (t.state === "blocked" || t.state === "failed") {
    waitReason = t.reason ?? t.state;
  }
  return {
    todoId: t.id,
    goalId: t.goalId,
    order: t.position,
    title: t.title,
    status,
    kind: values[KIND_KEY] === "host" ? "host" : "executor",
    ...(t.appHint ? { appHint: t.appHint } : {}),
    inputs: t.inputs,
    outputs: t.outputs,
    capabilities: t.requiredCapabilities,
    ...(waitReason ? { waitReason } : {}),
    ...(t.state === "superseded" ? { supersededBy: t.supersededById ? [t.supersededById] : [], ...(t.reason ? { supersedeReason: t.reason } : {}) } : {}),
    ...(t.state === "done" && t.lastResult ? { result: t.lastResult } : {}),
  };
}

/** The most specific reason a request never got an answer (ECONNREFUSED, ENOTFOUND, …), digging through causes. */
export function networkReason(e: unknown): string {
  const seen: string[] = [];
  for (let c: unknown = e, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return code;
    const errors = (c as { errors?: unknown[] }).errors;
    const inner = Array.isArray(errors) ? (errors[0] as { code?: unknown } | undefined)?.code : undefined;
    if (typeof inner === "string") return inner;
    if (c instanceof Error) seen.push(c.message);
  }
  return seen.at(-1) ?? String(e);
}

function newId(): string {
  return globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 16);
}

async function sha256Hex(text: string): Promise<string> {
  const d = await globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x) && Object.getPrototypeOf(x) === Object.prototype;
}
