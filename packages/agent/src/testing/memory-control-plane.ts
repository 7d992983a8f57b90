// TEST DOUBLE of the ControlPlane port (src/ports.ts): an in-memory state core for the runtime's tests. It holds
// rows in maps and asks the core's own pure tables for every rule they state — todo transitions
// (TODO_TRANSITIONS via nextTodoState), the transition a turn result causes (TURN_RESULT_TRANSITION), which results
// spend (SPENDING_RESULTS) and the turn router (decideTurnRoute) — so it cannot disagree with the core on them. What
// it adds is storage: order, leases with epochs and lease keys, idempotency keys, gates, quota sums, runs. It is not
// the product's state core (packages/state + apps/api, reached through packages/client) and must not be used as one.
import {
  HELD_STATES,
  MAX_LESSONS_PER_RUN,
  SPENDING_RESULTS,
  StateError,
  TERMINAL_STATES,
  TURN_RESULT_TRANSITION,
  canTransitionTodo,
  decideTurnRoute,
  nextTodoState,
  parseEvidenceData,
  StepAction,
  StepOutcome,
  type TodoEvent,
} from "@phoneloop/state/domain";
import {
  ControlPlaneConflict,
  systemClock,
  type AgentRegistration,
  type ClaimResult,
  type Clock,
  type ControlPlane,
  type CreateGoalInput,
  type Evidence,
  type EvidenceInput,
  type EvidenceKind,
  type GateResolution,
  type GateStatus,
  type Goal,
  type Lease,
  type LeaseRef,
  type OpenGateInput,
  type ReplanOp,
  type Run,
  type RunEndReason,
  type RunEndStatus,
  type ShouldRunResult,
  type SpendAmount,
  type StepInput,
  type StepRecord,
  type StepRecordOutcome,
  type Todo,
  type TodoDraft,
  type TurnResultInput,
  type TurnResultOutcome,
  type LessonKind,
  type LessonRecord,
  type ShortcutRecord,
  type ShortcutStatus,
  type SkillRecord,
  type SkillStatus,
} from "../ports.ts";

export interface QuotaLimit {
  steps?: number;
  tokens?: number;
  microUsd?: number;
}

export interface GateRecord {
  id: string;
  input: OpenGateInput;
  status: GateStatus;
  answer: string | null;
  rationale: string | null;
  openedAt: number;
}

/** How a test (standing in for a person) ends a gate. */
export interface GateAnswer {
  status: Exclude<GateStatus, "open">;
  answer?: string;
  rationale?: string;
}

export interface RunRecord extends Run {
  checkpoint: Record<string, unknown> | null;
  summary: string | null;
  /** Every agent that started or took over the run, in order. */
  startedBy: string[];
}

export interface MemoryControlPlaneInit {
  clock?: Clock;
  /** Called when a gate opens; return an answer to end it at once, or undefined to leave it open. */
  onGate?: (gate: GateRecord) => GateAnswer | undefined | Promise<GateAnswer | undefined>;
  /** The attempt limit each todo carries (the core's default is 5): its router asks for a replan at it. */
  maxAttempts?: number;
}

type LeaseRow = Lease & { active: boolean };
type EvidenceRow = Evidence & { idempotencyKey: string; blobMime: string | null };
type StoredTodo = Omit<Todo, "openGate">;

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class MemoryControlPlane implements ControlPlane {
  readonly clock: Clock;
  onGate: MemoryControlPlaneInit["onGate"];
  readonly maxAttempts: number;
  readonly agents = new Map<string, AgentRegistration & { id: string; lastSeen: number }>();
  readonly goals = new Map<string, Goal>();
  readonly todos = new Map<string, StoredTodo>();
  /** By todo id: the todo's latest lease. */
  readonly leases = new Map<string, LeaseRow>();
  /** By idempotency key. */
  readonly evidence = new Map<string, EvidenceRow>();
  readonly blobs = new Map<string, { bytes: Uint8Array; mime: string }>();
  readonly gates = new Map<string, GateRecord>();
  readonly quota = new Map<string, QuotaLimit>();
  /** By goal: what was spent. */
  readonly spent = new Map<string, SpendAmount>();
  readonly runs = new Map<string, RunRecord>();
  /** By `${runId}:${index}`. */
  readonly steps = new Map<string, StepInput>();
  /** Every conflict raised, for assertions. */
  readonly conflicts: string[] = [];
  private readonly spends = new Set<string>();
  private readonly turns = new Map<string, TurnResultOutcome>();
  private readonly replans = new Map<string, Todo[]>();
  private readonly claims = new Map<string, ClaimResult>();
  private readonly gateKeys = new Map<string, string>();
  private readonly gateWaiters = new Map<string, (() => void)[]>();
  private readonly epochs = new Map<string, number>();
  private seq = 0;
  /** The workspace's saved policy rules; version n is index n - 1. */
  private readonly policyVersions: Record<string, unknown>[] = [];

  constructor(init: MemoryControlPlaneInit = {}) {
    this.clock = init.clock ?? systemClock;
    this.onGate = init.onGate;
    this.maxAttempts = init.maxAttempts ?? 5;
  }

  private id(prefix: string): string {
    return `${prefix}_${(++this.seq).toString(36)}`;
  }

  // ── test controls ──
  /** Saves the workspace's policy rules as the next version, as an admin does through the API. */
  savePolicyRules(rules: Record<string, unknown>): number {
    this.policyVersions.push(structuredClone(rules));
    return this.policyVersions.length;
  }
  setQuota(goalId: string, limit: QuotaLimit): void {
    this.quota.set(goalId, limit);
  }
  pause(goalId: string, paused = true): void {
    this.goal(goalId).status = paused ? "paused" : "active";
  }
  cancel(goalId: string): void {
    this.goal(goalId).status = "cancelled";
  }
  /** A person's decision, or the gate's expiry: as the core, whatever the answer, the todo its opening blocked goes back to the pool once no other gate holds it. */
  resolveGate(gateId: string, a: GateAnswer): void {
    const g = this.gates.get(gateId);
    if (!g) throw new StateError("NOT_FOUND", `Gate ${gateId} does not exist.`, { gateId });
    if (g.status !== "open") throw new ControlPlaneConflict(`Gate ${gateId} was already ${g.status}; the decision was not recorded.`);
    Object.assign(g, { status: a.status, answer: a.answer ?? null, rationale: a.rationale ?? null });
    const todo = g.input.todoId ? this.todos.get(g.input.todoId) : undefined;
    if (todo && todo.state === "blocked" && !this.openGatesOn(todo.id).length) {
      todo.state = nextTodoState(todo.state, "reopen", todo.id);
      todo.reason = null;
    }
    for (const wake of this.gateWaiters.get(gateId) ?? []) wake();
    this.gateWaiters.delete(gateId);
  }
  openGates(): GateRecord[] {
    return [...this.gates.values()].filter((g) => g.status === "open");
  }
  evidenceList(filter: { kind?: EvidenceKind; runId?: string; todoId?: string } = {}): EvidenceRow[] {
    return [...this.evidence.values()].filter((e) => (!filter.kind || e.kind === filter.kind) && (!filter.runId || e.runId === filter.runId) && (!filter.todoId || e.todoId === filter.todoId));
  }
  stepsOf(runId: string): StepInput[] {
    return [...this.steps.values()].filter((s) => s.runId === runId).sort((a, b) => a.index - b.index);
  }

  // ── rows ──
  private goal(goalId: string): Goal {
    const g = this.goals.get(goalId);
    if (!g) throw new StateError("NOT_FOUND", `Goal ${goalId} does not exist.`, { goalId });
    return g;
  }
  private todo(todoId: string): StoredTodo {
    const t = this.todos.get(todoId);
    if (!t) throw new StateError("NOT_FOUND", `Todo ${todoId} does not exist.`, { todoId });
    return t;
  }
  private openGatesOn(todoId: string): GateRecord[] {
    const goalId = this.todos.get(todoId)?.goalId;
    return this.openGates().filter((g) => g.input.todoId === todoId || (!g.input.todoId && g.input.goalId === goalId));
  }
  private view(t: StoredTodo): Todo {
    const gate = this.openGates().find((g) => g.input.todoId === t.id);
    return structuredClone({ ...t, openGate: gate ? { id: gate.id, question: gate.input.question } : null });
  }
  private ordered(goalId: string): StoredTodo[] {
    return [...this.todos.values()].filter((t) => t.goalId === goalId).sort((a, b) => a.position - b.position);
  }
  private expired(l: LeaseRow): boolean {
    return l.expiresAt <= this.clock.now();
  }
  private conflict(msg: string): never {
    this.conflicts.push(msg);
    throw new ControlPlaneConflict(msg);
  }
  /** Fencing: a holder's write names the todo's current, unexpired lease by its key. */
  private checkLease(ref: LeaseRef, what: string): LeaseRow {
    const cur = this.leases.get(ref.todoId);
    if (!cur || !cur.active || cur.leaseKey !== ref.leaseKey || cur.ownerId !== ref.agentId || this.expired(cur)) {
      this.conflict(`${what}: lease ${ref.leaseKey} of ${ref.agentId} is not the current lease of ${ref.todoId} (now ${cur?.active ? `${cur.leaseKey} of ${cur.ownerId}${this.expired(cur) ? ", expired" : ""}` : "none"}); claim the todo again.`);
    }
    return cur;
  }
  /** Moves a todo by one event of the core's table; a lease ends when the todo leaves the held states. */
  private move(t: StoredTodo, event: TodoEvent): void {
    t.state = nextTodoState(t.state, event, t.id);
    const l = this.leases.get(t.id);
    if (l && event !== "reclaim" && !HELD_STATES.includes(t.state)) l.active = false;
  }

  // ── agents, goals ──
  async registerAgent(reg: AgentRegistration) {
    const id = reg.id ?? this.id("agent");
    this.agents.set(id, { ...structuredClone(reg), id, lastSeen: this.clock.now() });
    return { agentId: id };
  }
  async heartbeatAgent(agentId: string) {
    const a = this.agents.get(agentId);
    if (a) a.lastSeen = this.clock.now();
  }
  async createGoal(input: CreateGoalInput) {
    const g: Goal = { id: this.id("goal"), title: input.title ?? input.objective.split("\n")[0]!.slice(0, 120), objective: input.objective, bounds: input.bounds ?? [], nonGoals: input.nonGoals ?? [], acceptance: input.acceptance ?? [], status: "active" };
    this.goals.set(g.id, g);
    return structuredClone(g);
  }
  async getGoal(goalId: string) {
    const g = this.goals.get(goalId);
    return g ? structuredClone(g) : null;
  }
  async getPolicyRules() {
    const n = this.policyVersions.length;
    return n ? { version: n, rules: structuredClone(this.policyVersions[n - 1]) as unknown } : null;
  }

  // ── learning (the state core's rules: repair in place, one failed validation retires, lessons deduplicated per app) ──
  readonly skills = new Map<string, SkillRecord>();
  readonly shortcuts = new Map<string, ShortcutRecord>();
  readonly lessons = new Map<string, LessonRecord>();
  async listSkills(f: { app?: string; appVersion?: string; status?: SkillStatus }) {
    return [...this.skills.values()].filter((s) => (!f.app || s.app === f.app) && (!f.appVersion || s.appVersion === f.appVersion) && (!f.status || s.status === f.status)).map((s) => structuredClone(s));
  }
  async saveSkill(i: { app: string; appVersion: string; name: string; goal: string; body: Record<string, unknown>; runId: string }) {
    const same = [...this.skills.values()].find((s) => s.app === i.app && s.appVersion === i.appVersion && s.name === i.name);
    const row: SkillRecord = same
      ? { ...same, goal: i.goal, body: structuredClone(i.body), runId: i.runId, version: same.version + 1, status: same.status === "disabled" ? "disabled" : "candidate" }
      : { id: `skill_${++this.seq}`, app: i.app, appVersion: i.appVersion, name: i.name, goal: i.goal, body: structuredClone(i.body), status: "candidate", version: 1, runId: i.runId, successes: 0, failures: 0 };
    this.skills.set(row.id, row);
    return structuredClone(row);
  }
  /** Each use as the core keeps it (its skill.recordUse Events): the run's end validates from them. */
  readonly skillUses: { key: string; skillId: string; runId: string; todoId: string; ok: boolean; version: number; params?: Record<string, string> }[] = [];
  async recordSkillUse(i: { idempotencyKey: string; skillId: string; runId: string; todoId: string; ok: boolean; failedAt?: number; reason?: string; params?: Record<string, string> }) {
    const s = this.skills.get(i.skillId);
    if (!s) throw Object.assign(new Error(`Skill ${i.skillId} does not exist in this workspace.`), { code: "NOT_FOUND" });
    if (this.skillUses.some((u) => u.skillId === s.id && u.key === i.idempotencyKey)) return;
    if (i.ok) s.successes++;
    else s.failures++;
    const last = [...this.skillUses].reverse().find((u) => u.skillId === s.id);
    if (!i.ok && (s.status === "candidate" || s.status === "validated") && last && !last.ok && last.version === s.version) s.status = "retired";
    this.skillUses.push({ key: i.idempotencyKey, skillId: s.id, runId: i.runId, todoId: i.todoId, ok: i.ok, version: s.version, ...(i.params ? { params: { ...i.params } } : {}) });
  }
  async listShortcuts(f: { app: string; appVersion: string; status?: ShortcutStatus }) {
    return [...this.shortcuts.values()].filter((s) => s.app === f.app && s.appVersion === f.appVersion && (!f.status || s.status === f.status)).sort((a, b) => a.uri.localeCompare(b.uri)).map((s) => structuredClone(s));
  }
  async saveShortcuts(i: { app: string; appVersion: string; shortcuts: { uri: string; activity: string }[] }) {
    for (const sc of i.shortcuts) {
      if ([...this.shortcuts.values()].some((s) => s.app === i.app && s.appVersion === i.appVersion && s.uri === sc.uri)) continue;
      const id = `shortcut_${++this.seq}`;
      this.shortcuts.set(id, { id, app: i.app, appVersion: i.appVersion, uri: sc.uri, activity: sc.activity, status: "discovered", reason: null });
    }
    return this.listShortcuts({ app: i.app, appVersion: i.appVersion });
  }
  async recordShortcutValidation(i: { shortcutId: string; ok: boolean; reason?: string }) {
    const s = this.shortcuts.get(i.shortcutId);
    if (!s) throw Object.assign(new Error(`Shortcut ${i.shortcutId} does not exist in this workspace.`), { code: "NOT_FOUND" });
    if (s.status !== "retired") Object.assign(s, i.ok ? { status: "validated", reason: null } : { status: "retired", reason: i.reason ?? "the expected screen did not appear" });
    return structuredClone(s);
  }
  async listLessons(f: { app: string }) {
    return [...this.lessons.values()].filter((l) => l.app === f.app).reverse().map((l) => structuredClone(l));
  }
  async addLessons(i: { app: string; goal: string; runId: string; lessons: { kind: LessonKind; text: string }[] }) {
    if (i.lessons.length > MAX_LESSONS_PER_RUN) throw Object.assign(new Error(`lesson.add: lessons: at most ${MAX_LESSONS_PER_RUN} per run`), { code: "INVALID_INPUT" });
    const out: LessonRecord[] = [];
    for (const l of i.lessons) {
      const text = l.text.replace(/\s+/g, " ").trim();
      const same = [...this.lessons.values()].find((k) => k.app === i.app && k.text.toLocaleLowerCase() === text.toLocaleLowerCase());
      if (same) this.lessons.delete(same.id);
      const row: LessonRecord = same ? { ...same, goal: i.goal, kind: l.kind, runId: i.runId } : { id: `lesson_${++this.seq}`, app: i.app, goal: i.goal, kind: l.kind, text, runId: i.runId };
      this.lessons.set(row.id, row);
      if (!out.some((o) => o.id === row.id)) out.push(structuredClone(row));
    }
    return out;
  }

  // ── todos ──
  async listTodos(goalId: string) {
    return this.ordered(goalId).map((t) => this.view(t));
  }
  private draft(goalId: string, d: TodoDraft): StoredTodo {
    return {
      id: d.id ?? this.id("todo"),
      goalId,
      position: 0,
      title: d.title,
      detail: d.detail ?? "",
      kind: d.kind,
      appHint: d.appHint ?? null,
      requiredCapabilities: d.requiredCapabilities ?? [],
      inputs: d.inputs ?? [],
      outputs: d.outputs ?? [],
      values: {},
      state: "pending",
      attempts: 0,
      maxAttempts: this.maxAttempts,
      lastResult: null,
      reason: null,
      supersededById: null,
    };
  }
  async replanTodos(input: { goalId: string; idempotencyKey: string; reason: string; ops: ReplanOp[] }) {
    const done = this.replans.get(input.idempotencyKey);
    if (done) return structuredClone(done);
    this.goal(input.goalId);
    // All operations or none: they run on copies, stored only when every one applied.
    const list = this.ordered(input.goalId).map((t) => structuredClone(t));
    const byId = (id: string) => list.find((t) => t.id === id) ?? (() => { throw new StateError("NOT_FOUND", `Todo ${id} is not in goal ${input.goalId}.`, { todoId: id }); })();
    const taken = new Set(this.todos.keys());
    const fresh = ({ id, ...rest }: TodoDraft) => {
      const t = this.draft(input.goalId, id && !taken.has(id) ? { id, ...rest } : rest);
      taken.add(t.id);
      return t;
    };
    for (const op of input.ops) {
      if (op.op === "add") {
        const at = op.after ? list.indexOf(byId(op.after)) + 1 : list.length;
        list.splice(at, 0, fresh(op.todo));
      } else if (op.op === "reorder") {
        const moved = op.todoIds.map(byId);
        const slots = moved.map((t) => list.indexOf(t)).sort((a, b) => a - b);
        slots.forEach((slot, i) => (list[slot] = moved[i]!));
      } else {
        const t = byId(op.todoId);
        t.state = nextTodoState(t.state, "supersede", t.id);
        t.reason = op.reason;
        const repl = (op.replacements ?? []).map(fresh);
        t.supersededById = repl[0]?.id ?? null;
        list.splice(list.indexOf(t) + 1, 0, ...repl);
      }
    }
    list.forEach((t, i) => {
      t.position = i;
      if (t.state === "superseded") {
        const l = this.leases.get(t.id);
        if (l) l.active = false;
      }
      this.todos.set(t.id, t);
    });
    const result = list.map((t) => this.view(t));
    this.replans.set(input.idempotencyKey, result);
    return structuredClone(result);
  }
  async reopenTodo(input: { todoId: string; reason: string }) {
    const t = this.todo(input.todoId);
    this.move(t, "reopen");
    t.reason = null;
    return this.view(t);
  }

  // ── leases ──
  async claimNext(input: { agentId: string; goalId: string; ttlMs: number; idempotencyKey?: string }): Promise<ClaimResult> {
    const seen = input.idempotencyKey ? this.claims.get(input.idempotencyKey) : undefined;
    if (seen) return structuredClone(seen);
    const result = this.claimNextNow(input);
    if (input.idempotencyKey) this.claims.set(input.idempotencyKey, structuredClone(result));
    return result;
  }
  private claimNextNow(input: { agentId: string; goalId: string; ttlMs: number }): ClaimResult {
    const goal = this.goal(input.goalId);
    const no = (reason: string): ClaimResult => ({ claimed: false, reason });
    if (goal.status !== "active") return no(`The goal is ${goal.status}.`);
    // Todos run in order: the first one not done or superseded is the only candidate.
    const t = this.ordered(input.goalId).find((x) => !TERMINAL_STATES.includes(x.state));
    if (!t) return no("No todo is left: every todo of the goal is done or superseded.");
    if (this.openGatesOn(t.id).length) return no(`"${t.title}" waits for an open gate.`);
    const caps = this.agents.get(input.agentId)?.capabilities ?? [];
    const missing = t.requiredCapabilities.filter((c) => !caps.includes(c));
    if (missing.length) return no(`"${t.title}" needs ${missing.join(", ")}, which agent ${input.agentId} does not offer.`);
    const held = this.leases.get(t.id);
    let event: TodoEvent;
    if (t.state === "pending") event = "claim";
    else if (HELD_STATES.includes(t.state) && (!held?.active || this.expired(held))) event = "reclaim";
    else return no(`"${t.title}" is ${t.state}${HELD_STATES.includes(t.state) ? ` under ${held!.ownerId}'s lease` : ""}${t.reason ? `: ${t.reason}` : ""}.`);
    t.state = nextTodoState(t.state, event, t.id);
    const epoch = (this.epochs.get(t.id) ?? 0) + 1;
    this.epochs.set(t.id, epoch);
    const lease: LeaseRow = { id: this.id("lease"), todoId: t.id, ownerId: input.agentId, leaseKey: `${t.id}:${epoch}:${this.id("k")}`, epoch, ttlMs: input.ttlMs, expiresAt: this.clock.now() + input.ttlMs, active: true };
    this.leases.set(t.id, lease);
    const { active: _a, ...view } = lease;
    return { claimed: true, todo: this.view(t), lease: view, reclaimedFrom: event === "reclaim" ? (held?.ownerId ?? null) : null };
  }
  async startTodo(ref: LeaseRef) {
    this.checkLease(ref, "startTodo");
    this.move(this.todo(ref.todoId), "start");
  }
  async renewLease(ref: LeaseRef, ttlMs: number): Promise<Lease> {
    const cur = this.checkLease(ref, "renewLease");
    cur.expiresAt = this.clock.now() + ttlMs;
    cur.ttlMs = ttlMs;
    const { active: _a, ...lease } = cur;
    return { ...lease };
  }
  async releaseLease(ref: LeaseRef, _reason: string) {
    this.checkLease(ref, "releaseLease");
    this.move(this.todo(ref.todoId), "release");
  }

  // ── turns ──
  async routeTurn(input: { todoId: string; agentId: string }) {
    const t = this.todo(input.todoId);
    const lease = this.leases.get(t.id);
    const quota = this.exhausted(t.goalId);
    return decideTurnRoute({
      goalStatus: this.goal(t.goalId).status,
      todo: { state: t.state, attempts: t.attempts, lastResult: t.lastResult, inputs: t.inputs, values: t.values },
      doneValues: Object.assign({}, ...this.ordered(t.goalId).filter((d) => d.state === "done").map((d) => d.values)),
      lease: lease?.active ? { ownerId: lease.ownerId, expired: this.expired(lease) } : null,
      agentId: input.agentId,
      openGates: this.openGatesOn(t.id).length,
      quota: quota ? { decision: "skip", reason: "exhausted" } : { decision: "run" },
      maxAttempts: t.maxAttempts,
    });
  }
  async recordTurnResult(input: TurnResultInput): Promise<TurnResultOutcome> {
    const first = this.turns.get(input.idempotencyKey);
    if (first) return { ...structuredClone(first), duplicate: true };
    this.checkLease(input.lease, "recordTurnResult");
    const t = this.todo(input.lease.todoId);
    const event = TURN_RESULT_TRANSITION[input.kind];
    this.move(t, event);
    t.lastResult = input.kind;
    if (event === "retry") t.attempts++;
    if (event === "block") t.reason = input.summary;
    if (event === "complete") t.reason = null;
    let kind = input.kind;
    if (SPENDING_RESULTS.includes(input.kind)) {
      if (input.values) Object.assign(t.values, structuredClone(input.values));
      const refused = input.spend ? this.spendNow({ ...input.spend, goalId: t.goalId }) : null;
      if (refused) {
        kind = "quota_spend_failed";
        // A completed todo stays done: its validated work stands; the failed spend is recorded, not undone.
        if (canTransitionTodo(t.state, TURN_RESULT_TRANSITION.quota_spend_failed)) {
          this.move(t, TURN_RESULT_TRANSITION.quota_spend_failed);
          t.lastResult = kind;
          t.reason = refused;
        }
      }
    }
    const outcome: TurnResultOutcome = { kind, todo: this.view(t), duplicate: false };
    this.turns.set(input.idempotencyKey, structuredClone(outcome));
    return outcome;
  }

  // ── quota ──
  private exhausted(goalId: string): string | null {
    const limit = this.quota.get(goalId);
    const spent = this.spent.get(goalId) ?? { steps: 0, tokens: 0, microUsd: 0 };
    for (const k of ["steps", "tokens", "microUsd"] as const) {
      const max = limit?.[k];
      if (max !== undefined && spent[k] >= max) return `quota ${k}: spent ${spent[k]} of ${max}`;
    }
    return null;
  }
  /** Spends once per key; a spend that would go over a limit is refused (the reason), nothing spent. */
  private spendNow(input: { key: string; goalId: string } & Partial<SpendAmount>): string | null {
    if (this.spends.has(input.key)) return null;
    const limit = this.quota.get(input.goalId);
    const cur = this.spent.get(input.goalId) ?? { steps: 0, tokens: 0, microUsd: 0 };
    const next = { steps: cur.steps + (input.steps ?? 0), tokens: cur.tokens + (input.tokens ?? 0), microUsd: cur.microUsd + (input.microUsd ?? 0) };
    for (const k of ["steps", "tokens", "microUsd"] as const) {
      const max = limit?.[k];
      if (max !== undefined && next[k] > max) return `Spending would exceed the goal's quota of ${max} ${k} (spent ${cur[k]}).`;
    }
    this.spends.add(input.key);
    this.spent.set(input.goalId, next);
    return null;
  }
  async shouldRun(input: { agentId: string; goalId: string; todoId?: string }): Promise<ShouldRunResult> {
    const goal = this.goal(input.goalId);
    const skip = (reason: Extract<ShouldRunResult, { decision: "skip" }>["reason"], message: string): ShouldRunResult => ({ decision: "skip", reason, message, retryAfterMs: null });
    if (goal.status !== "active") return skip(`goal_${goal.status}`, `The goal is ${goal.status}.`);
    const gate = this.openGates().find((g) => g.input.goalId === input.goalId && (!g.input.todoId || g.input.todoId === input.todoId));
    if (gate) return skip("gate_waiting", `Gate ${gate.id} waits for an answer: ${gate.input.question}`);
    if (input.todoId) {
      const t = this.todo(input.todoId);
      if (t.state === "blocked" && t.lastResult === "quota_spend_failed") return skip("exhausted", `The quota refused the last step's spend: ${t.reason ?? "no room left"}`);
      if (t.state === "blocked") return skip("todo_blocked", `The todo is blocked${t.reason ? `: ${t.reason}` : ""}.`);
      if (t.state === "done" || t.state === "superseded" || t.state === "failed") return skip("todo_finished", `The todo is ${t.state}.`);
    }
    const exhausted = this.exhausted(input.goalId);
    if (exhausted) return skip("exhausted", `Quota exhausted: ${exhausted}.`);
    return { decision: "run" };
  }
  async spendQuota(input: { key: string; agentId: string; goalId: string; todoId?: string; runId?: string } & SpendAmount) {
    if (this.spends.has(input.key)) return { spent: false, duplicate: true };
    return { spent: this.spendNow(input) === null, duplicate: false };
  }

  // ── evidence ──
  async appendEvidence(e: EvidenceInput) {
    // The core's schema of the kind's data (a malformed row is INVALID_INPUT naming the field, as the core says it).
    invalidUnless("evidence.append", "data", parseEvidenceData(e.kind, e.data ?? {}));
    const dup = this.evidence.get(e.idempotencyKey);
    if (dup) return { evidenceId: dup.id, created: false };
    if (e.lease) this.checkLease(e.lease, "appendEvidence");
    let blobSha256: string | null = null;
    if (e.blob) {
      blobSha256 = await sha256Hex(e.blob.bytes);
      if (!this.blobs.has(blobSha256)) this.blobs.set(blobSha256, { bytes: e.blob.bytes.slice(), mime: e.blob.mime });
    }
    // Checked again after the await: a duplicate may have landed meanwhile.
    const raced = this.evidence.get(e.idempotencyKey);
    if (raced) return { evidenceId: raced.id, created: false };
    const row: EvidenceRow = {
      id: this.id("ev"),
      idempotencyKey: e.idempotencyKey,
      goalId: e.goalId,
      runId: e.runId ?? null,
      todoId: e.todoId ?? null,
      stepIndex: e.stepIndex ?? null,
      kind: e.kind,
      summary: e.summary,
      data: structuredClone(e.data ?? {}),
      blobSha256,
      blobMime: e.blob?.mime ?? null,
      createdAt: this.clock.now(),
    };
    this.evidence.set(e.idempotencyKey, row);
    // A model call the runtime metered is spent with its row, never refused (the call was made), as the core does.
    const call = e.kind === "model_call" ? (e.data as { via?: string; inputTokens?: number; outputTokens?: number; microUsd?: number }) : null;
    if (call?.via === "runtime") {
      const cur = this.spent.get(e.goalId) ?? { steps: 0, tokens: 0, microUsd: 0 };
      this.spends.add(`model_call:${e.idempotencyKey}`);
      this.spent.set(e.goalId, { steps: cur.steps, tokens: cur.tokens + (call.inputTokens ?? 0) + (call.outputTokens ?? 0), microUsd: cur.microUsd + (call.microUsd ?? 0) });
    }
    return { evidenceId: row.id, created: true };
  }
  async listEvidence(filter: { goalId: string; runId?: string; kind?: EvidenceKind }): Promise<Evidence[]> {
    return this.evidenceList(filter)
      .filter((e) => e.goalId === filter.goalId)
      .map(({ idempotencyKey: _k, blobMime: _m, ...e }) => structuredClone(e));
  }

  // ── gates ──
  async openGate(input: OpenGateInput) {
    const existing = this.gateKeys.get(input.idempotencyKey);
    if (existing) {
      const g = this.gates.get(existing)!;
      if (g.input.goalId !== input.goalId || g.input.todoId !== input.todoId || g.input.question !== input.question)
        this.conflict(`openGate: key ${input.idempotencyKey} already opened gate ${existing} for another question; use a new key.`);
      return { gateId: existing, created: false };
    }
    // As the core: an agent's takeover ask says why, and only a takeover has a reason.
    if ((input.kind === "takeover") !== (input.takeoverReason !== undefined)) {
      const message = input.kind === "takeover" ? "an agent's takeover ask says why (login, captcha, one_time_code, blind_screen, other)" : 'only a takeover gate (kind "takeover") has a takeover reason';
      throw new StateError("INVALID_INPUT", `gate.open: takeoverReason: ${message}.`, { issues: [{ path: "takeoverReason" }] });
    }
    this.goal(input.goalId);
    const t = this.todo(input.todoId);
    // As the core: the holder's lease is checked, and the todo is blocked (its lease ended) with the gate's opening.
    if (HELD_STATES.includes(t.state) && input.lease) this.checkLease(input.lease, "openGate");
    const g: GateRecord = { id: this.id("gate"), input: structuredClone(input), status: "open", answer: null, rationale: null, openedAt: this.clock.now() };
    if (t.state !== "blocked") {
      this.move(t, "block");
      t.reason = `waits for gate ${g.id}: ${input.question}`;
    }
    this.gates.set(g.id, g);
    this.gateKeys.set(input.idempotencyKey, g.id);
    const auto = await this.onGate?.(g);
    if (auto) this.resolveGate(g.id, auto);
    return { gateId: g.id, created: true };
  }
  waitForGate(gateId: string, signal?: AbortSignal): Promise<GateResolution> {
    const g = this.gates.get(gateId);
    if (!g) return Promise.reject(new StateError("NOT_FOUND", `Gate ${gateId} does not exist.`, { gateId }));
    const resolution = (): GateResolution => ({ status: g.status, answer: g.answer, rationale: g.rationale });
    if (g.status !== "open") return Promise.resolve(resolution());
    return new Promise((resolve, reject) => {
      const list = this.gateWaiters.get(gateId) ?? [];
      list.push(() => resolve(resolution()));
      this.gateWaiters.set(gateId, list);
      signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("The wait for the gate was aborted.")), { once: true });
    });
  }

  // ── runs ──
  private run(runId: string): RunRecord {
    const r = this.runs.get(runId);
    if (!r) throw new StateError("NOT_FOUND", `Run ${runId} does not exist.`, { runId });
    return r;
  }
  /** A finished run only reads; a running one is written by the agent that drives it. */
  private running(runId: string, agentId: string | undefined, what: string): RunRecord {
    const r = this.run(runId);
    if (r.status !== "running") throw new StateError("ILLEGAL_TRANSITION", `Cannot ${what} run ${r.id}: it is ${r.status}. A finished run only reads; start a new run.`, { runId: r.id, status: r.status, legal: [] });
    if (agentId && r.agentId !== agentId) this.conflict(`Run ${r.id} is driven by ${r.agentId}, not ${agentId}; resume it first to take it over.`);
    return r;
  }
  private runOf(r: RunRecord): Run {
    return { id: r.id, goalId: r.goalId, agentId: r.agentId, status: r.status, endReason: r.endReason };
  }
  async startRun(input: { id?: string; goalId: string; agentId: string }) {
    this.goal(input.goalId);
    if (input.id && this.runs.has(input.id)) return this.runOf(this.runs.get(input.id)!);
    const r: RunRecord = { id: input.id ?? this.id("run"), goalId: input.goalId, agentId: input.agentId, status: "running", endReason: null, checkpoint: null, summary: null, startedBy: [input.agentId] };
    this.runs.set(r.id, r);
    return this.runOf(r);
  }
  async resumeRun(input: { runId: string; agentId: string }) {
    const r = this.running(input.runId, undefined, "resume");
    if (!this.agents.has(input.agentId)) throw new StateError("NOT_FOUND", `Agent ${input.agentId} is not registered.`, { agentId: input.agentId });
    r.agentId = input.agentId;
    r.startedBy.push(input.agentId);
    return this.runOf(r);
  }
  async getRun(runId: string) {
    const r = this.runs.get(runId);
    return r ? { ...this.runOf(r), checkpoint: structuredClone(r.checkpoint) } : null;
  }
  async saveCheckpoint(input: { runId: string; agentId: string; checkpoint: Record<string, unknown> }) {
    const r = this.running(input.runId, input.agentId, "checkpoint");
    r.checkpoint = structuredClone(input.checkpoint);
  }
  async appendStep(step: StepInput) {
    invalidUnless("run.appendStep", "action", StepAction.safeParse(step.action));
    invalidUnless("run.appendStep", "outcome", StepOutcome.safeParse(step.outcome));
    const key = `${step.runId}:${step.index}`;
    if (this.steps.has(key)) return { created: false };
    this.running(step.runId, step.agentId, "append a step to");
    this.steps.set(key, structuredClone(step));
    return { created: true };
  }
  async putBlob(blob: { bytes: Uint8Array; mime: string }) {
    const sha256 = await sha256Hex(blob.bytes);
    if (!this.blobs.has(sha256)) this.blobs.set(sha256, { bytes: blob.bytes.slice(), mime: blob.mime });
    return { sha256 };
  }
  /** All or nothing, as the core's one transaction: every rule a part could break is checked before anything is written. */
  async recordStep(r: StepRecord): Promise<StepRecordOutcome> {
    for (const [k, e] of (r.evidence ?? []).entries()) invalidUnless("run.recordStep", `evidence.${k}.data`, parseEvidenceData(e.kind, e.data ?? {}));
    if (r.step) {
      invalidUnless("run.recordStep", "step.action", StepAction.safeParse(r.step.action));
      invalidUnless("run.recordStep", "step.outcome", StepOutcome.safeParse(r.step.outcome));
    }
    const fresh = (r.evidence ?? []).some((e) => !this.evidence.has(e.idempotencyKey)) || (r.turnResult ? !this.turns.has(r.turnResult.idempotencyKey) : false);
    if (r.lease && (r.lease.agentId !== r.agentId || r.lease.todoId !== r.todoId)) this.conflict(`recordStep: lease ${r.lease.leaseKey} is ${r.lease.agentId}'s on ${r.lease.todoId}, not this record's.`);
    if (r.turnResult && !r.lease) throw new StateError("INVALID_INPUT", "run.recordStep: leaseKey: a turn result is the holder's: give the lease key of the claim.", { issues: [{ path: "leaseKey" }] });
    if (r.route && !r.todoId) throw new StateError("INVALID_INPUT", "run.recordStep: todoId: a route is asked for a todo.", { issues: [{ path: "todoId" }] });
    if ((r.step && !this.steps.has(`${r.runId}:${r.step.index}`)) || r.checkpoint) this.running(r.runId, r.agentId, "record a step of");
    else this.run(r.runId);
    if (r.lease && fresh) this.checkLease(r.lease, "recordStep");
    for (const e of r.evidence ?? [])
      if (e.blobSha256 && !this.blobs.has(e.blobSha256)) throw new StateError("NOT_FOUND", `Blob ${e.blobSha256} was never put; put it first.`, { sha256: e.blobSha256 });
    const run = this.run(r.runId);
    const evidenceIds: string[] = [];
    for (const e of r.evidence ?? []) {
      const { blobSha256, ...rest } = e;
      const out = await this.appendEvidence({ ...rest, goalId: run.goalId, runId: run.id, ...(r.todoId ? { todoId: r.todoId } : {}), ...(r.lease ? { lease: r.lease } : {}) });
      const row = [...this.evidence.values()].find((x) => x.id === out.evidenceId)!;
      if (out.created && blobSha256) Object.assign(row, { blobSha256, blobMime: this.blobs.get(blobSha256)!.mime });
      evidenceIds.push(out.evidenceId);
    }
    const stepCreated = r.step ? (await this.appendStep({ ...r.step, runId: r.runId, agentId: r.agentId })).created : null;
    const turnResult = r.turnResult ? await this.recordTurnResult({ ...r.turnResult, lease: r.lease! }) : null;
    if (r.checkpoint) await this.saveCheckpoint({ runId: r.runId, agentId: r.agentId, checkpoint: r.checkpoint });
    const route = r.route ? await this.routeTurn({ todoId: r.todoId!, agentId: r.agentId }) : null;
    return { evidenceIds, stepCreated, turnResult, route };
  }
  async finishRun(input: { runId: string; agentId: string; status: RunEndStatus; endReason: RunEndReason; summary: string }) {
    const r = this.running(input.runId, input.agentId, "finish");
    Object.assign(r, { status: input.status, endReason: input.endReason, summary: input.summary });
    // Validation by use, as the core's run.finish decides it.
    for (const u of this.skillUses) {
      const s = this.skills.get(u.skillId);
      const t = this.todos.get(u.todoId);
      if (u.runId === input.runId && u.ok && s?.status === "candidate" && s.version === u.version && t?.state === "done" && t.lastResult === "validated_completion") s.status = "validated";
    }
  }
}

/** The core's refusal of a field its schema does not hold: `operator: path: message`. */
function invalidUnless(operator: string, field: string, r: { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } }): void {
  if (r.success) return;
  const issue = r.error.issues[0]!;
  const path = [field, ...issue.path.map(String)].join(".");
  throw new StateError("INVALID_INPUT", `${operator}: ${path}: ${issue.message}`, { operator, issues: [{ path, message: issue.message }] });
}
