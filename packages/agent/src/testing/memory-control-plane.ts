// TEST DOUBLE of the ControlPlane port (src/ports.ts): an in-memory state core for the agent's own tests and
// for other packages' tests. It honours the port's semantics — idempotent evidence, spends and turn results,
// leases with epochs (a stale epoch is an explicit conflict), gates resolved by the test, quota, pause,
// checkpoints — but it is not the product's state core (packages/state + apps/api) and must not be used as one.
import {
  ControlPlaneConflict,
  systemClock,
  type AgentRegistration,
  type Clock,
  type ControlPlane,
  type EvidenceInput,
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
  type TurnRecord,
} from "../ports.ts";

export interface QuotaLimit {
  steps?: number;
  tokens?: number;
  microUsd?: number;
}

export interface GateRecord {
  gateId: string;
  request: GateRequest;
  openedAt: number;
  decision?: GateDecision;
}

export interface RunRecord {
  runId: string;
  goalId: string;
  agentId: string;
  goal: string;
  status: RunStatus | "running";
  summary?: string;
  startedBy: string[];
}

export interface MemoryControlPlaneInit {
  clock?: Clock;
  /** Called when a gate opens; return a decision to resolve it at once, or undefined to leave it open. */
  onGate?: (gate: GateRecord) => GateDecision | undefined | Promise<GateDecision | undefined>;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class MemoryControlPlane implements ControlPlane {
  readonly clock: Clock;
  onGate: MemoryControlPlaneInit["onGate"];
  readonly agents = new Map<string, AgentRegistration & { agentId: string; lastSeen: number }>();
  readonly objectives = new Map<string, Goal>();
  readonly todos = new Map<string, Todo>();
  readonly leases = new Map<string, Lease & { released: boolean }>(); // by todoId: the current lease
  private readonly epochs = new Map<string, number>();
  readonly evidence = new Map<string, EvidenceRecord>(); // by idempotency key
  readonly blobs = new Map<string, { bytes: Uint8Array; mime: string }>();
  readonly gates = new Map<string, GateRecord>();
  private readonly gateWaiters = new Map<string, ((d: GateDecision) => void)[]>();
  private readonly gateKeys = new Map<string, string>();
  readonly quota = new Map<string, QuotaLimit>();
  readonly spent = new Map<string, SpendAmount>();
  readonly spends = new Map<string, SpendAmount & { goalId: string }>();
  readonly turns = new Map<string, TurnRecord>();
  private readonly replans = new Map<string, Todo[]>();
  readonly checkpoints = new Map<string, { state: unknown; savedAt: number; version: number }>();
  readonly runs = new Map<string, RunRecord>();
  readonly steps = new Map<string, StepRecord>();
  readonly paused = new Set<string>();
  readonly cancelled = new Set<string>();
  /** Every conflict raised, for assertions. */
  readonly conflicts: string[] = [];
  private seq = 0;

  constructor(init: MemoryControlPlaneInit = {}) {
    this.clock = init.clock ?? systemClock;
    this.onGate = init.onGate;
  }

  private id(prefix: string): string {
    return `${prefix}_${(++this.seq).toString(36)}`;
  }

  // ── test controls ──
  setQuota(goalId: string, limit: QuotaLimit): void {
    this.quota.set(goalId, limit);
  }
  pause(goalId: string, paused = true): void {
    if (paused) this.paused.add(goalId);
    else this.paused.delete(goalId);
  }
  resolveGate(gateId: string, decision: GateDecision): void {
    const g = this.gates.get(gateId);
    if (!g) throw new Error(`no gate ${gateId}`);
    if (g.decision) return;
    g.decision = decision;
    for (const w of this.gateWaiters.get(gateId) ?? []) w(decision);
    this.gateWaiters.delete(gateId);
  }
  openGates(): GateRecord[] {
    return [...this.gates.values()].filter((g) => !g.decision);
  }
  evidenceList(filter: Partial<Pick<EvidenceRecord, "kind" | "runId" | "todoId">> = {}): EvidenceRecord[] {
    return [...this.evidence.values()].filter(
      (e) => (!filter.kind || e.kind === filter.kind) && (!filter.runId || e.runId === filter.runId) && (!filter.todoId || e.todoId === filter.todoId),
    );
  }
  stepsOf(runId: string): StepRecord[] {
    return [...this.steps.values()].filter((s) => s.runId === runId).sort((a, b) => a.index - b.index);
  }

  private checkLease(todoId: string | undefined, lease: LeaseRef | undefined, what: string): void {
    if (!todoId || !lease) return;
    const cur = this.leases.get(todoId);
    if (!cur || cur.leaseId !== lease.leaseId || cur.epoch !== lease.epoch || cur.released) {
      const msg = `${what}: lease ${lease.leaseId}@${lease.epoch} is not the current lease of ${todoId} (now ${cur ? `${cur.leaseId}@${cur.epoch}` : "none"})`;
      this.conflicts.push(msg);
      throw new ControlPlaneConflict(msg);
    }
  }

  // ── agents, objectives ──
  async registerAgent(reg: AgentRegistration) {
    const agentId = reg.agentId ?? this.id("agent");
    this.agents.set(agentId, { ...reg, agentId, lastSeen: this.clock.now() });
    return { agentId };
  }
  async heartbeat(agentId: string) {
    const a = this.agents.get(agentId);
    if (a) a.lastSeen = this.clock.now();
  }
  async createGoal(input: { goal: string; bounds?: string[]; nonGoals?: string[] }) {
    const o: Goal = { goalId: this.id("obj"), ...input };
    this.objectives.set(o.goalId, o);
    return o;
  }
  async getGoal(goalId: string) {
    return this.objectives.get(goalId) ?? null;
  }

  // ── todos, leases ──
  private ordered(goalId: string): Todo[] {
    return [...this.todos.values()].filter((t) => t.goalId === goalId).sort((a, b) => a.order - b.order);
  }
  async readTodos(goalId: string) {
    return this.ordered(goalId).map((t) => structuredClone(t));
  }
  private draft(goalId: string, d: TodoDraft, order: number): Todo {
    const todoId = d.todoId && !this.todos.has(d.todoId) ? d.todoId : this.id("todo");
    return {
      todoId,
      goalId,
      order,
      title: d.title,
      status: "todo",
      kind: d.kind,
      inputs: d.inputs ?? [],
      outputs: d.outputs ?? [],
      capabilities: d.capabilities ?? (d.kind === "executor" ? ["phone"] : []),
      ...(d.appHint ? { appHint: d.appHint } : {}),
    };
  }
  async replanTodos(input: { goalId: string; idempotencyKey: string; ops: ReplanOp[]; reason: string }) {
    const done = this.replans.get(input.idempotencyKey);
    if (done) return done.map((t) => structuredClone(t));
    for (const op of input.ops) {
      const list = this.ordered(input.goalId);
      if (op.op === "insert") {
        const after = op.after ? list.findIndex((t) => t.todoId === op.after) : list.length - 1;
        const t = this.draft(input.goalId, op.todo, 0);
        list.splice(after + 1, 0, t);
        this.todos.set(t.todoId, t);
        list.forEach((x, i) => (x.order = i));
      } else if (op.op === "reorder") {
        const rank = new Map(op.todoIds.map((id, i) => [id, i]));
        list.sort((a, b) => (rank.get(a.todoId) ?? 1e9 + a.order) - (rank.get(b.todoId) ?? 1e9 + b.order)).forEach((x, i) => (x.order = i));
      } else {
        const t = this.todos.get(op.todoId);
        if (!t || t.goalId !== input.goalId) throw new Error(`supersede: unknown todo ${op.todoId}`);
        if (t.status === "done") throw new Error(`supersede: ${op.todoId} is done; done todos are history`);
        const at = list.indexOf(t);
        const repl = (op.replacements ?? []).map((d) => this.draft(input.goalId, d, 0));
        list.splice(at + 1, 0, ...repl);
        for (const r of repl) this.todos.set(r.todoId, r);
        t.status = "superseded";
        t.supersedeReason = op.reason;
        t.supersededBy = repl.map((r) => r.todoId);
        const l = this.leases.get(t.todoId);
        if (l) l.released = true;
        list.forEach((x, i) => (x.order = i));
      }
    }
    const result = this.ordered(input.goalId);
    this.replans.set(input.idempotencyKey, result.map((t) => structuredClone(t)));
    return result.map((t) => structuredClone(t));
  }
  async claim(input: { agentId: string; goalId: string; capabilities: string[]; todoId?: string; ttlMs: number }): Promise<Lease | null> {
    const now = this.clock.now();
    const free = (t: Todo) => {
      const l = this.leases.get(t.todoId);
      return !l || l.released || l.expiresAt <= now || l.agentId === input.agentId;
    };
    const eligible = (t: Todo) =>
      t.kind === "executor" &&
      ["todo", "claimed", "in_progress", "waiting"].includes(t.status) &&
      t.capabilities.every((c) => input.capabilities.includes(c)) &&
      free(t);
    let todo: Todo | undefined;
    if (input.todoId) {
      todo = this.todos.get(input.todoId);
      if (!todo || !eligible(todo)) return null;
    } else {
      // Todos run in order: the first one not finished is the only candidate.
      const first = this.ordered(input.goalId).find((t) => !["done", "superseded", "blocked"].includes(t.status));
      if (!first || !eligible(first) || (first.status === "waiting" && this.shouldRunSync(input.goalId, first.todoId).run === false)) return null;
      todo = first;
    }
    const epoch = (this.epochs.get(todo.todoId) ?? 0) + 1;
    this.epochs.set(todo.todoId, epoch);
    const lease: Lease = { leaseId: this.id("lease"), todoId: todo.todoId, agentId: input.agentId, idempotencyKey: `${todo.todoId}:${epoch}`, epoch, expiresAt: now + input.ttlMs };
    this.leases.set(todo.todoId, { ...lease, released: false });
    if (todo.status === "todo" || todo.status === "waiting") todo.status = "claimed";
    delete todo.waitReason;
    return lease;
  }
  async renewLease(ref: LeaseRef, ttlMs: number): Promise<Lease> {
    const cur = [...this.leases.values()].find((l) => l.leaseId === ref.leaseId);
    if (!cur || cur.released || cur.epoch !== ref.epoch || cur.expiresAt <= this.clock.now()) {
      const msg = `renewLease: lease ${ref.leaseId}@${ref.epoch} is expired, released or superseded`;
      this.conflicts.push(msg);
      throw new ControlPlaneConflict(msg);
    }
    this.checkLease(cur.todoId, ref, "renewLease");
    cur.expiresAt = this.clock.now() + ttlMs;
    const { released: _r, ...lease } = cur;
    return lease;
  }
  async releaseLease(ref: LeaseRef) {
    const cur = [...this.leases.values()].find((l) => l.leaseId === ref.leaseId && l.epoch === ref.epoch);
    if (cur) cur.released = true;
  }
  async startTodo(todoId: string, lease: LeaseRef) {
    this.checkLease(todoId, lease, "startTodo");
    const t = this.todos.get(todoId);
    if (t && (t.status === "claimed" || t.status === "todo" || t.status === "waiting")) t.status = "in_progress";
  }

  // ── evidence ──
  async appendEvidence(e: EvidenceInput) {
    const dup = this.evidence.get(e.idempotencyKey);
    if (dup) return { evidenceId: dup.evidenceId, duplicate: true };
    this.checkLease(e.todoId, e.lease, "appendEvidence");
    const { blob, ...rest } = e;
    const rec: EvidenceRecord = { ...structuredClone(rest), evidenceId: this.id("ev"), createdAt: this.clock.now() };
    if (blob) {
      const sha = await sha256Hex(blob.bytes);
      if (!this.blobs.has(sha)) this.blobs.set(sha, { bytes: blob.bytes.slice(), mime: blob.mime });
      rec.blobSha256 = sha;
      rec.blobMime = blob.mime;
    }
    // Re-check after the await: a duplicate may have landed meanwhile.
    const raced = this.evidence.get(e.idempotencyKey);
    if (raced) return { evidenceId: raced.evidenceId, duplicate: true };
    this.evidence.set(e.idempotencyKey, rec);
    return { evidenceId: rec.evidenceId, duplicate: false };
  }
  async listEvidence(filter: { goalId: string; runId?: string; kind?: EvidenceRecord["kind"] }) {
    return this.evidenceList(filter).filter((e) => e.goalId === filter.goalId);
  }

  // ── gates ──
  async openGate(req: GateRequest) {
    const existing = this.gateKeys.get(req.idempotencyKey);
    if (existing) return { gateId: existing };
    this.checkLease(req.todoId, req.lease, "openGate");
    const gateId = this.id("gate");
    const g: GateRecord = { gateId, request: structuredClone(req), openedAt: this.clock.now() };
    this.gates.set(gateId, g);
    this.gateKeys.set(req.idempotencyKey, gateId);
    const t = this.todos.get(req.todoId);
    if (t) {
      t.status = "waiting";
      t.waitReason = `gate ${gateId}: ${req.question}`;
    }
    const auto = await this.onGate?.(g);
    if (auto) this.resolveGate(gateId, auto);
    return { gateId };
  }
  waitForGate(gateId: string, signal?: AbortSignal): Promise<GateDecision> {
    const g = this.gates.get(gateId);
    if (!g) return Promise.reject(new Error(`no gate ${gateId}`));
    const settle = (d: GateDecision) => {
      const t = this.todos.get(g.request.todoId);
      if (t && t.status === "waiting" && t.waitReason?.startsWith(`gate ${gateId}`)) {
        t.status = "in_progress";
        delete t.waitReason;
      }
      return d;
    };
    if (g.decision) return Promise.resolve(settle(g.decision));
    return new Promise((resolve, reject) => {
      const list = this.gateWaiters.get(gateId) ?? [];
      list.push((d) => resolve(settle(d)));
      this.gateWaiters.set(gateId, list);
      signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("aborted")), { once: true });
    });
  }

  // ── quota ──
  private shouldRunSync(goalId: string, todoId?: string): ShouldRun {
    if (this.cancelled.has(goalId)) return { run: false, reason: "cancelled" };
    if (this.paused.has(goalId)) return { run: false, reason: "paused" };
    if (todoId && this.openGates().some((g) => g.request.todoId === todoId)) return { run: false, reason: "gate_waiting" };
    const limit = this.quota.get(goalId);
    const spent = this.spent.get(goalId) ?? { steps: 0, tokens: 0, microUsd: 0 };
    if (limit) {
      for (const k of ["steps", "tokens", "microUsd"] as const) {
        const max = limit[k];
        if (max !== undefined && spent[k] >= max) return { run: false, reason: "exhausted", detail: `quota ${k}: spent ${spent[k]} of ${max}` };
      }
    }
    return { run: true };
  }
  async shouldRun(input: { agentId: string; goalId: string; todoId?: string }) {
    return this.shouldRunSync(input.goalId, input.todoId);
  }
  async spend(key: string, input: { agentId: string; goalId: string } & SpendAmount) {
    if (this.spends.has(key)) return { spent: false, duplicate: true };
    this.spends.set(key, { goalId: input.goalId, steps: input.steps, tokens: input.tokens, microUsd: input.microUsd });
    const cur = this.spent.get(input.goalId) ?? { steps: 0, tokens: 0, microUsd: 0 };
    this.spent.set(input.goalId, { steps: cur.steps + input.steps, tokens: cur.tokens + input.tokens, microUsd: cur.microUsd + input.microUsd });
    return { spent: true, duplicate: false };
  }

  // ── turns ──
  async recordTurnResult(turn: TurnRecord) {
    if (this.turns.has(turn.idempotencyKey)) return { duplicate: true };
    this.checkLease(turn.todoId, turn.lease, "recordTurnResult");
    this.turns.set(turn.idempotencyKey, structuredClone(turn));
    const t = this.todos.get(turn.todoId);
    if (t) {
      switch (turn.result) {
        case "validated_completion":
          t.status = "done";
          t.result = turn.summary;
          delete t.waitReason;
          break;
        case "validated_progress":
          if (t.status !== "done") t.status = "in_progress";
          break;
        case "wait":
        case "user_action_required":
          t.status = "waiting";
          t.waitReason = turn.reason ?? turn.summary;
          break;
        case "host_failure":
          t.status = "blocked";
          t.waitReason = turn.reason ?? turn.summary;
          break;
        default:
          break;
      }
    }
    return { duplicate: false };
  }

  // ── checkpoints, runs ──
  async saveCheckpoint(runId: string, state: unknown) {
    const prev = this.checkpoints.get(runId);
    this.checkpoints.set(runId, { state: structuredClone(state), savedAt: this.clock.now(), version: (prev?.version ?? 0) + 1 });
  }
  async loadCheckpoint(runId: string) {
    const c = this.checkpoints.get(runId);
    return c ? structuredClone(c.state) : null;
  }
  async startRun(input: { runId?: string; goalId: string; agentId: string; goal: string }) {
    if (input.runId && this.runs.has(input.runId)) {
      const r = this.runs.get(input.runId)!;
      r.startedBy.push(input.agentId);
      r.status = "running";
      return { runId: r.runId, resumed: true };
    }
    const runId = input.runId ?? this.id("run");
    this.runs.set(runId, { runId, goalId: input.goalId, agentId: input.agentId, goal: input.goal, status: "running", startedBy: [input.agentId] });
    return { runId, resumed: false };
  }
  async finishRun(runId: string, input: { status: RunStatus; summary: string }) {
    const r = this.runs.get(runId);
    if (r) {
      r.status = input.status;
      r.summary = input.summary;
    }
  }
  async appendStep(step: StepRecord) {
    const key = `${step.runId}:${step.index}`;
    if (this.steps.has(key)) return { duplicate: true };
    this.steps.set(key, structuredClone(step));
    return { duplicate: false };
  }
}
