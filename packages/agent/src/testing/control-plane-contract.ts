// The ControlPlane contract: what every implementation of the port must do, as the state core's rules say
// (docs/concepts.md, "The state core" and "Turns"). Each expectation is written out here, never read back from the
// core's tables, so an implementation (or a table) that disagrees fails. Run it from any package's vitest:
//   describeControlPlaneContract("memory double", async () => ({ controlPlane, resolveGate, expireGate, elapse }));
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneConflict, leaseRefOf, type ControlPlane, type Lease, type LeaseRef, type Todo, type TodoDraft, type TurnResultKind } from "../ports.ts";

export interface ContractSubject {
  controlPlane: ControlPlane;
  /** A team member's decision on an open gate (what the port itself never does). */
  resolveGate(gateId: string, decision: { decision: "approve" | "deny"; rationale: string } | { decision: "answer"; answer: string; rationale: string }): Promise<void>;
  /** Expires an open gate whose ttlMs has passed (the core's gate.expire). */
  expireGate(gateId: string): Promise<void>;
  /** An admin saves the workspace's policy rules as its next version (what the port itself never does). */
  savePolicyRules(rules: Record<string, unknown>): Promise<void>;
  /** Lets `ms` pass on the implementation's clock: a manual clock is moved; the real core's time is waited for. */
  elapse(ms: number): Promise<void>;
  close?(): Promise<void>;
}

/** A failure's code: CONFLICT for the port's conflict, else the error's own `code`. */
async function failureOf(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ControlPlaneConflict) return { code: "CONFLICT", message: e.message };
    return { code: String((e as { code?: unknown }).code ?? "NO_CODE"), message: (e as Error).message };
  }
  throw new Error("expected the call to fail, but it succeeded");
}

export function describeControlPlaneContract(name: string, makeSubject: () => Promise<ContractSubject>): void {
  describe(`ControlPlane contract: ${name}`, () => {
    let subject: ContractSubject;
    let cp: ControlPlane;
    let n = 0;
    const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(n++).toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

    beforeAll(async () => {
      subject = await makeSubject();
      cp = subject.controlPlane;
    });
    afterAll(async () => {
      await subject?.close?.();
    });

    const agent = async (capabilities: string[] = ["phone"]) => (await cp.registerAgent({ id: unique("agent"), name: "contract worker", kind: "headless", capabilities })).agentId;

    /** A new goal with `drafts` added in order (through one replan), and the todos as listed after it. */
    async function goalWith(drafts: Omit<TodoDraft, "id">[]): Promise<{ goalId: string; todos: Todo[] }> {
      const goal = await cp.createGoal({ objective: "Contract goal\nwritten by the contract suite" });
      const todos = await cp.replanTodos({
        goalId: goal.id,
        idempotencyKey: unique("plan"),
        reason: "first plan",
        ops: drafts.map((d) => ({ op: "add" as const, todo: { ...d, id: unique("todo") } })),
      });
      return { goalId: goal.id, todos };
    }
    const executor = (title: string, extra: Partial<TodoDraft> = {}): Omit<TodoDraft, "id"> => ({ title, kind: "executor", requiredCapabilities: ["phone"], ...extra });

    async function claimed(goalId: string, agentId: string, ttlMs = 60_000): Promise<{ todo: Todo; lease: Lease; ref: LeaseRef }> {
      const r = await cp.claimNext({ agentId, goalId, ttlMs });
      if (!r.claimed) throw new Error(`expected a claim, got: ${r.reason}`);
      return { todo: r.todo, lease: r.lease, ref: leaseRefOf(r.lease) };
    }

    async function todoOf(goalId: string, todoId: string): Promise<Todo> {
      const t = (await cp.listTodos(goalId)).find((x) => x.id === todoId);
      if (!t) throw new Error(`todo ${todoId} is not in goal ${goalId}`);
      return t;
    }

    /** A running todo held by a fresh agent: claimNext, then startTodo. */
    async function running(extra: Partial<TodoDraft> = {}) {
      const { goalId } = await goalWith([executor("Open the booking app", extra)]);
      const agentId = await agent();
      const c = await claimed(goalId, agentId);
      await cp.startTodo(c.ref);
      return { goalId, agentId, ...c };
    }

    describe("agents and goals", () => {
      it("creates a goal that reads back active, titled by its first line; an unknown goal is null", async () => {
        await agent();
        const goal = await cp.createGoal({ objective: "Book a table for two\nat 19:00 near the station", bounds: ["under 60 EUR"], acceptance: ["a confirmation screen"] });
        expect(goal).toMatchObject({ objective: "Book a table for two\nat 19:00 near the station", bounds: ["under 60 EUR"], nonGoals: [], acceptance: ["a confirmation screen"], status: "active" });
        expect(await cp.getGoal(goal.id)).toEqual(goal);
        expect(await cp.getGoal(unique("goal_missing"))).toBeNull();
      });

      it("re-registering under the same id keeps the id; heartbeats are accepted", async () => {
        const id = unique("agent");
        expect(await cp.registerAgent({ id, name: "first", kind: "browser", capabilities: ["phone"] })).toEqual({ agentId: id });
        expect(await cp.registerAgent({ id, name: "again", kind: "browser", capabilities: ["phone", "camera"] })).toEqual({ agentId: id });
        await cp.heartbeatAgent(id);
      });
    });

    describe("replanTodos", () => {
      it("add appends in order, or after a named todo; every field of the draft is kept and the todo is pending", async () => {
        const { goalId, todos } = await goalWith([
          executor("Open the app", { appHint: "com.example.booking", inputs: [], outputs: ["restaurant"], detail: "the booking app" }),
          { title: "Compare the prices", kind: "host", requiredCapabilities: [], inputs: ["restaurant"], outputs: ["choice"] },
        ]);
        expect(todos.map((t) => [t.title, t.kind, t.state])).toEqual([
          ["Open the app", "executor", "pending"],
          ["Compare the prices", "host", "pending"],
        ]);
        expect(todos[0]).toMatchObject({ goalId, detail: "the booking app", appHint: "com.example.booking", requiredCapabilities: ["phone"], inputs: [], outputs: ["restaurant"], values: {}, attempts: 0, maxAttempts: 5, lastResult: null, reason: null, supersededById: null, openGate: null });
        expect(todos[1]).toMatchObject({ requiredCapabilities: [], inputs: ["restaurant"], outputs: ["choice"] });

        const middleId = unique("todo");
        const after = await cp.replanTodos({ goalId, idempotencyKey: unique("replan"), reason: "a step was missing", ops: [{ op: "add", todo: { id: middleId, ...executor("Pick the date") }, after: todos[0]!.id }] });
        expect(after.map((t) => t.title)).toEqual(["Open the app", "Pick the date", "Compare the prices"]);
        expect(after.find((t) => t.id === middleId)).toMatchObject({ state: "pending", kind: "executor" });
        const positions = after.map((t) => t.position);
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
        expect(new Set(positions).size).toBe(3);
      });

      it("reorder gives the named todos those relative positions", async () => {
        const { goalId, todos } = await goalWith([executor("A"), executor("B"), executor("C")]);
        const [a, b, c] = todos.map((t) => t.id);
        const after = await cp.replanTodos({ goalId, idempotencyKey: unique("replan"), reason: "C first", ops: [{ op: "reorder", todoIds: [c!, a!, b!] }] });
        expect(after.map((t) => t.title)).toEqual(["C", "A", "B"]);
      });

      it("supersede keeps the todo with its reason, points it at the first replacement, and puts the replacements where it was", async () => {
        const { goalId, todos } = await goalWith([executor("A"), executor("B"), executor("C")]);
        const b = todos[1]!.id;
        const [r1, r2] = [unique("todo"), unique("todo")];
        const after = await cp.replanTodos({
          goalId,
          idempotencyKey: unique("replan"),
          reason: "B was two steps",
          ops: [{ op: "supersede", todoId: b, reason: "split in two", replacements: [{ id: r1, ...executor("B1") }, { id: r2, ...executor("B2") }] }],
        });
        const live = after.filter((t) => t.state !== "superseded").map((t) => t.title);
        expect(live).toEqual(["A", "B1", "B2", "C"]);
        expect(after.find((t) => t.id === b)).toMatchObject({ state: "superseded", reason: "split in two", supersededById: r1 });
      });

      it("superseding a done todo is ILLEGAL_TRANSITION and changes nothing", async () => {
        const r = await running();
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "validated_completion", summary: "opened" });
        const f = await failureOf(cp.replanTodos({ goalId: r.goalId, idempotencyKey: unique("replan"), reason: "too late", ops: [{ op: "supersede", todoId: r.todo.id, reason: "not needed" }] }));
        expect(f.code).toBe("ILLEGAL_TRANSITION");
        expect(f.message).toContain("done");
        expect(await todoOf(r.goalId, r.todo.id)).toMatchObject({ state: "done", supersededById: null });
      });

      it("a repeated idempotencyKey applies the replan once and returns the same todos", async () => {
        const { goalId } = await goalWith([executor("A")]);
        const key = unique("replan");
        const input = { goalId, idempotencyKey: key, reason: "one more", ops: [{ op: "add" as const, todo: executor("B") }] };
        const first = await cp.replanTodos(input);
        const again = await cp.replanTodos(input);
        expect(first.map((t) => t.title)).toEqual(["A", "B"]);
        expect(again).toEqual(first);
      });
    });

    describe("claimNext", () => {
      it("takes todos in strict order: while the first is held, nothing else is claimable", async () => {
        const { goalId, todos } = await goalWith([executor("First"), executor("Second")]);
        const [a, b] = [await agent(), await agent()];
        const first = await claimed(goalId, a);
        expect(first.todo).toMatchObject({ id: todos[0]!.id, state: "claimed" });
        expect(first.lease).toMatchObject({ todoId: todos[0]!.id, ownerId: a, epoch: 1, ttlMs: 60_000 });
        expect(first.lease.leaseKey.length).toBeGreaterThan(0);
        expect(first.lease.expiresAt).toBeGreaterThan(0);
        const none = await cp.claimNext({ agentId: b, goalId, ttlMs: 60_000 });
        expect(none.claimed).toBe(false);
        if (!none.claimed) expect(none.reason.length).toBeGreaterThan(0);

        await cp.startTodo(first.ref);
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: first.ref, kind: "validated_completion", summary: "done" });
        const second = await claimed(goalId, b);
        expect(second.todo).toMatchObject({ id: todos[1]!.id, state: "claimed" });
        expect(second.lease.ownerId).toBe(b);
      });

      it("claims only a todo whose required capabilities the agent has", async () => {
        const { goalId, todos } = await goalWith([executor("Take a photo", { requiredCapabilities: ["phone", "camera"] })]);
        const phoneOnly = await agent(["phone"]);
        expect((await cp.claimNext({ agentId: phoneOnly, goalId, ttlMs: 60_000 })).claimed).toBe(false);
        const withCamera = await agent(["phone", "camera"]);
        expect((await claimed(goalId, withCamera)).todo.id).toBe(todos[0]!.id);
      });

      it("reclaims an expired lease with a new epoch; the old holder's writes are then CONFLICT", async () => {
        const { goalId } = await goalWith([executor("Open the app")]);
        const [a, b] = [await agent(), await agent()];
        const old = await claimed(goalId, a, 1);
        await subject.elapse(20);
        const next = await cp.claimNext({ agentId: b, goalId, ttlMs: 60_000 });
        expect(next).toMatchObject({ claimed: true, reclaimedFrom: a, todo: { id: old.todo.id, state: "claimed" }, lease: { ownerId: b, epoch: old.lease.epoch + 1 } });
        if (!next.claimed) return;
        expect(next.lease.leaseKey).not.toBe(old.lease.leaseKey);

        expect((await failureOf(cp.startTodo(old.ref))).code).toBe("CONFLICT");
        expect((await failureOf(cp.renewLease(old.ref, 60_000))).code).toBe("CONFLICT");
        expect((await failureOf(cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: old.ref, kind: "validated_completion", summary: "late" }))).code).toBe("CONFLICT");
        expect((await failureOf(cp.appendEvidence({ idempotencyKey: unique("ev"), kind: "observation", goalId, todoId: old.todo.id, lease: old.ref, summary: "late screenshot", data: {} }))).code).toBe("CONFLICT");
        // The new holder's writes go through.
        await cp.startTodo(leaseRefOf(next.lease));
        expect((await todoOf(goalId, old.todo.id)).state).toBe("running");
      });

      it("renewLease extends the holder's lease; releaseLease gives the todo back to the pool", async () => {
        const r = await running();
        const renewed = await cp.renewLease(r.ref, 120_000);
        expect(renewed).toMatchObject({ id: r.lease.id, todoId: r.todo.id, ownerId: r.agentId, leaseKey: r.lease.leaseKey, epoch: r.lease.epoch, ttlMs: 120_000 });
        expect(renewed.expiresAt).toBeGreaterThanOrEqual(r.lease.expiresAt);
        await cp.releaseLease(r.ref, "handing over");
        expect((await todoOf(r.goalId, r.todo.id)).state).toBe("pending");
        const other = await agent();
        expect(await cp.claimNext({ agentId: other, goalId: r.goalId, ttlMs: 60_000 })).toMatchObject({ claimed: true, reclaimedFrom: null, lease: { ownerId: other } });
      });
    });

    describe("recordTurnResult: each kind's one transition", () => {
      // kind → the todo's state after it, its attempts, and whether the holder keeps the lease (from docs/concepts.md, Turns).
      const EXPECTED: [TurnResultKind, { state: Todo["state"]; attempts: number; keepsLease: boolean }][] = [
        ["validated_progress", { state: "running", attempts: 0, keepsLease: true }],
        ["validated_completion", { state: "done", attempts: 0, keepsLease: false }],
        ["repair_required", { state: "running", attempts: 1, keepsLease: true }],
        ["replan_required", { state: "blocked", attempts: 0, keepsLease: false }],
        ["user_action_required", { state: "blocked", attempts: 0, keepsLease: false }],
        ["wait", { state: "pending", attempts: 0, keepsLease: false }],
        ["host_failure", { state: "pending", attempts: 0, keepsLease: false }],
        ["validation_failed", { state: "running", attempts: 1, keepsLease: true }],
        ["writeback_failed", { state: "running", attempts: 1, keepsLease: true }],
        ["quota_spend_failed", { state: "blocked", attempts: 0, keepsLease: false }],
      ];

      it.each(EXPECTED)("%s", async (kind, expected) => {
        const r = await running();
        const key = unique("turn");
        const out = await cp.recordTurnResult({ idempotencyKey: key, lease: r.ref, kind, summary: `the turn ended ${kind}`, values: { seen: kind } });
        expect(out).toMatchObject({ kind, duplicate: false, todo: { id: r.todo.id, state: expected.state, attempts: expected.attempts, lastResult: kind } });
        expect(await todoOf(r.goalId, r.todo.id)).toMatchObject({ state: expected.state, attempts: expected.attempts, lastResult: kind });

        // The holder keeps its lease exactly when the todo is still held; an ended lease's renewal is a conflict.
        const renew = cp.renewLease(r.ref, 60_000);
        if (expected.keepsLease) expect((await renew).leaseKey).toBe(r.lease.leaseKey);
        else expect((await failureOf(renew)).code).toBe("CONFLICT");

        // A repeat of the same key changes nothing and answers with the first outcome.
        const again = await cp.recordTurnResult({ idempotencyKey: key, lease: r.ref, kind, summary: `the turn ended ${kind}`, values: { seen: kind } });
        expect(again).toMatchObject({ kind, duplicate: true, todo: { state: expected.state, attempts: expected.attempts } });
        expect(await todoOf(r.goalId, r.todo.id)).toMatchObject({ state: expected.state, attempts: expected.attempts });
      });

      it("validated results write their values back into the todo", async () => {
        const r = await running({ outputs: ["price"] });
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "validated_progress", summary: "found it", values: { price: "12.50" } });
        expect((await todoOf(r.goalId, r.todo.id)).values).toEqual({ price: "12.50" });
      });

      it("after host_failure the lease is released: another agent claims the todo fresh", async () => {
        const r = await running();
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "host_failure", summary: "the host could not answer" });
        const other = await agent();
        expect(await cp.claimNext({ agentId: other, goalId: r.goalId, ttlMs: 60_000 })).toMatchObject({ claimed: true, reclaimedFrom: null, todo: { id: r.todo.id }, lease: { ownerId: other } });
      });

      it("a blocked todo goes back to the pool with reopenTodo", async () => {
        const r = await running();
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "replan_required", summary: "the app changed" });
        const reopened = await cp.reopenTodo({ todoId: r.todo.id, reason: "the supervisor retries it" });
        expect(reopened).toMatchObject({ id: r.todo.id, state: "pending" });
        expect((await claimed(r.goalId, r.agentId)).todo.id).toBe(r.todo.id);
      });
    });

    describe("routeTurn", () => {
      it("a held, started todo is ready_for_host; after a repair result, repair_required; a pending one waits", async () => {
        const r = await running();
        expect((await cp.routeTurn({ todoId: r.todo.id, agentId: r.agentId })).route).toBe("ready_for_host");
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "repair_required", summary: "tapped the wrong row" });
        expect((await cp.routeTurn({ todoId: r.todo.id, agentId: r.agentId })).route).toBe("repair_required");
        const { todos } = await goalWith([executor("Not claimed yet")]);
        const route = await cp.routeTurn({ todoId: todos[0]!.id, agentId: r.agentId });
        expect(route.route).toBe("wait");
        expect(route.reason.length).toBeGreaterThan(0);
      });

      it("a todo's inputs are the values of its goal's done todos: until one gives them the route is contract_error", async () => {
        const { goalId } = await goalWith([executor("Pick a date", { outputs: ["date"] }), executor("Book the table", { inputs: ["date"] })]);
        const agentId = await agent();
        const pick = await claimed(goalId, agentId);
        await cp.startTodo(pick.ref);
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: pick.ref, kind: "validated_completion", summary: "picked Friday", values: { date: "Friday" } });
        const book = await claimed(goalId, agentId);
        await cp.startTodo(book.ref);
        expect(book.todo.values).toEqual({});
        expect((await cp.routeTurn({ todoId: book.todo.id, agentId })).route).toBe("ready_for_host");

        const { goalId: other } = await goalWith([executor("Book without a date", { inputs: ["date"] })]);
        const lonely = await claimed(other, agentId);
        await cp.startTodo(lonely.ref);
        expect((await cp.routeTurn({ todoId: lonely.todo.id, agentId })).route).toBe("contract_error");
      });
    });

    describe("gates", () => {
      async function gateOn(r: Awaited<ReturnType<typeof running>>, extra: { ttlMs?: number; options?: string[] } = {}) {
        const input = {
          idempotencyKey: unique("gate"),
          goalId: r.goalId,
          todoId: r.todo.id,
          question: "Pay the 5 EUR deposit to hold the table?",
          options: extra.options ?? ["pay", "skip"],
          evidenceIds: [],
          kind: "question" as const,
          tier: "question" as const,
          lease: r.ref,
          ...(extra.ttlMs ? { ttlMs: extra.ttlMs } : {}),
        };
        const opened = await cp.openGate(input);
        expect(opened.created).toBe(true);
        return { ...opened, input };
      }

      it("openGate is idempotent on its key: a repeat returns the same gate, never a second", async () => {
        const r = await running();
        const g = await gateOn(r);
        expect(await cp.openGate(g.input)).toEqual({ gateId: g.gateId, created: false });
        expect((await todoOf(r.goalId, r.todo.id)).openGate).toEqual({ id: g.gateId, question: "Pay the 5 EUR deposit to hold the table?" });
      });

      it("a takeover gate says why the agent asks (takeoverReason), and only a takeover has a reason", async () => {
        const r = await running();
        const base = { goalId: r.goalId, todoId: r.todo.id, question: "Please sign in on the phone: the agent was not given the password.", options: [], evidenceIds: [], tier: "question" as const, lease: r.ref };
        const noReason = await failureOf(cp.openGate({ ...base, idempotencyKey: unique("gate"), kind: "takeover" }));
        expect(noReason).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("takeoverReason") });
        expect((await failureOf(cp.openGate({ ...base, idempotencyKey: unique("gate"), kind: "question", takeoverReason: "login" }))).code).toBe("INVALID_INPUT");
        const g = await cp.openGate({ ...base, idempotencyKey: unique("gate"), kind: "takeover", takeoverReason: "login" });
        expect(g.created).toBe(true);
        expect(await todoOf(r.goalId, r.todo.id)).toMatchObject({ state: "blocked", openGate: { id: g.gateId } });
      });

      it("opening a gate blocks its todo and ends the opener's lease in the same call: nobody can claim it while the gate is open", async () => {
        const r = await running();
        await gateOn(r);
        expect(await todoOf(r.goalId, r.todo.id)).toMatchObject({ state: "blocked" });
        const other = await agent();
        expect((await cp.claimNext({ agentId: other, goalId: r.goalId, ttlMs: 60_000 })).claimed).toBe(false);
        expect((await cp.claimNext({ agentId: r.agentId, goalId: r.goalId, ttlMs: 60_000 })).claimed).toBe(false);
        expect((await failureOf(cp.renewLease(r.ref, 60_000))).code).toBe("CONFLICT");
      });

      it.each(["approve", "deny", "answer"] as const)("a gate's answer (%s) gives its todo back: the agent that waited claims it again", async (decision) => {
        const r = await running();
        const g = await gateOn(r);
        await subject.resolveGate(g.gateId, decision === "answer" ? { decision, answer: "pay", rationale: "worth it" } : { decision, rationale: "decided" });
        expect(await todoOf(r.goalId, r.todo.id)).toMatchObject({ state: "pending" });
        const again = await cp.claimNext({ agentId: r.agentId, goalId: r.goalId, ttlMs: 60_000 });
        expect(again).toMatchObject({ claimed: true, todo: { id: r.todo.id } });
      });

      it("an open gate stops the todo's turn: the route is user_action_required and shouldRun skips with gate_waiting", async () => {
        const r = await running();
        await gateOn(r);
        expect((await cp.routeTurn({ todoId: r.todo.id, agentId: r.agentId })).route).toBe("user_action_required");
        expect(await cp.shouldRun({ agentId: r.agentId, goalId: r.goalId, todoId: r.todo.id })).toMatchObject({ decision: "skip", reason: "gate_waiting" });
      });

      const OUTCOMES = [
        ["approve", { decision: "approve", rationale: "go ahead" }, { status: "approved", answer: null, rationale: "go ahead" }],
        ["deny", { decision: "deny", rationale: "too expensive" }, { status: "denied", answer: null, rationale: "too expensive" }],
        ["answer", { decision: "answer", answer: "pay", rationale: "worth it" }, { status: "answered", answer: "pay", rationale: "worth it" }],
      ] as const;

      it.each(OUTCOMES)("waitForGate sees %s", async (_label, decision, expected) => {
        const r = await running();
        const g = await gateOn(r);
        const waiting = cp.waitForGate(g.gateId);
        await subject.resolveGate(g.gateId, decision);
        expect(await waiting).toEqual(expected);
        // A decided gate answers at once.
        expect(await cp.waitForGate(g.gateId)).toEqual(expected);
      });

      it("waitForGate sees expired when nobody answered within the gate's ttl", async () => {
        const r = await running();
        const g = await gateOn(r, { ttlMs: 1 });
        const waiting = cp.waitForGate(g.gateId);
        await subject.elapse(20);
        await subject.expireGate(g.gateId);
        expect(await waiting).toEqual({ status: "expired", answer: null, rationale: null });
      });

      it("waitForGate stops when its signal aborts", async () => {
        const r = await running();
        const g = await gateOn(r);
        const ac = new AbortController();
        const waiting = cp.waitForGate(g.gateId, ac.signal);
        ac.abort(new Error("the run was cancelled"));
        await expect(waiting).rejects.toThrow("the run was cancelled");
      });
    });

    describe("quota", () => {
      it("spends once per key; shouldRun says run on an active goal without gates", async () => {
        const r = await running();
        expect(await cp.shouldRun({ agentId: r.agentId, goalId: r.goalId })).toEqual({ decision: "run" });
        const key = unique("spend");
        const spend = { key, agentId: r.agentId, goalId: r.goalId, steps: 0, tokens: 900, microUsd: 120 };
        expect(await cp.spendQuota(spend)).toEqual({ spent: true, duplicate: false });
        expect(await cp.spendQuota(spend)).toEqual({ spent: false, duplicate: true });
      });

      it("a model call the runtime metered is spent with its evidence row, once, under model_call:<the row's key>", async () => {
        const r = await running();
        const key = unique("call");
        const data = { via: "runtime" as const, role: "executor" as const, model: "m", inputTokens: 900, outputTokens: 30, microUsd: 120, latencyMs: 5, estimated: true as const };
        const row = { idempotencyKey: key, kind: "model_call" as const, goalId: r.goalId, todoId: r.todo.id, lease: r.ref, summary: "executor call", data };
        await cp.appendEvidence(row);
        await cp.appendEvidence(row);
        // Its spend is there already: spending the same key again is a duplicate, in the core as in the double.
        expect(await cp.spendQuota({ key: `model_call:${key}`, agentId: r.agentId, goalId: r.goalId, steps: 0, tokens: 930, microUsd: 120 })).toEqual({ spent: false, duplicate: true });
      });
    });

    describe("evidence", () => {
      it("appends once per key; a blob is stored by its sha256; the list filters by run and kind", async () => {
        const r = await running();
        const run = await cp.startRun({ goalId: r.goalId, agentId: r.agentId });
        // A real image (a 2×2 WebP): the API stores only images, and a WebP as sent.
        const bytes = Uint8Array.from(atob("UklGRjwAAABXRUJQVlA4IDAAAAAwAgCdASoCAAIAAUAmJaACdLoB+AH4AAToAAD+Ex/7B0P6rvvef/a0Bwar/RuAAAA="), (c) => c.charCodeAt(0));
        const sha = [...new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
        const input = { idempotencyKey: unique("ev"), kind: "observation" as const, goalId: r.goalId, runId: run.id, todoId: r.todo.id, lease: r.ref, stepIndex: 0, summary: "the home screen", data: { app: "launcher" }, blob: { bytes, mime: "image/webp" } };
        const first = await cp.appendEvidence(input);
        expect(first.created).toBe(true);
        expect(await cp.appendEvidence(input)).toEqual({ evidenceId: first.evidenceId, created: false });
        await cp.appendEvidence({ idempotencyKey: unique("ev"), kind: "anomaly", goalId: r.goalId, runId: run.id, summary: "the screen did not change", data: { kind: "no_change" } });

        const observations = await cp.listEvidence({ goalId: r.goalId, runId: run.id, kind: "observation" });
        expect(observations).toHaveLength(1);
        expect(observations[0]).toMatchObject({ id: first.evidenceId, goalId: r.goalId, runId: run.id, todoId: r.todo.id, stepIndex: 0, kind: "observation", summary: "the home screen", data: { app: "launcher" }, blobSha256: sha });
        expect(typeof observations[0]!.createdAt).toBe("number");
        expect((await cp.listEvidence({ goalId: r.goalId, runId: run.id })).map((e) => e.kind)).toEqual(["observation", "anomaly"]);
      });
    });

    describe("recordStep: one step's writes in one call", () => {
      // A real image (a 2×2 WebP): the API stores only images.
      const webp = () => Uint8Array.from(atob("UklGRjwAAABXRUJQVlA4IDAAAAAwAgCdASoCAAIAAUAmJaACdLoB+AH4AAToAAD+Ex/7B0P6rvvef/a0Bwar/RuAAAA="), (c) => c.charCodeAt(0));

      it("writes the evidence (a put blob by its sha256), the step row, the turn result and the checkpoint, then answers the route; a repeat changes nothing", async () => {
        const r = await running();
        const run = await cp.startRun({ goalId: r.goalId, agentId: r.agentId });
        const { sha256 } = await cp.putBlob({ bytes: webp(), mime: "image/webp" });
        expect(sha256).toMatch(/^[0-9a-f]{64}$/);
        const record = {
          runId: run.id,
          agentId: r.agentId,
          todoId: r.todo.id,
          lease: r.ref,
          evidence: [
            { idempotencyKey: unique("obs"), kind: "observation" as const, stepIndex: 0, summary: "the booking app, 12 elements", data: { app: "com.book" }, blobSha256: sha256 },
            { idempotencyKey: unique("act"), kind: "action" as const, stepIndex: 0, summary: "click [3]", data: { action: { type: "click", element: "3" } } },
          ],
          step: { index: 0, node: "executor" as const, todoId: r.todo.id, action: { type: "click", element: "3" }, outcome: { outcome: "ok" }, anomalies: [], tokens: 812 },
          turnResult: { idempotencyKey: unique("turn"), kind: "repair_required" as const, summary: "click [3] → the tap missed" },
          checkpoint: { node: "executor", step: 1 },
          route: true,
        };
        const first = await cp.recordStep(record);
        expect(first.evidenceIds).toHaveLength(2);
        expect(first).toMatchObject({ stepCreated: true, turnResult: { kind: "repair_required", duplicate: false, todo: { id: r.todo.id, state: "running", attempts: 1, lastResult: "repair_required" } } });
        // The route is read after the writes: the turn result just asked for a repair.
        expect(first.route?.route).toBe("repair_required");
        const written = await cp.listEvidence({ goalId: r.goalId, runId: run.id });
        expect(written.map((e) => [e.id, e.kind, e.todoId, e.stepIndex, e.blobSha256])).toEqual([
          [first.evidenceIds[0], "observation", r.todo.id, 0, sha256],
          [first.evidenceIds[1], "action", r.todo.id, 0, null],
        ]);
        expect((await cp.getRun(run.id))!.checkpoint).toEqual({ node: "executor", step: 1 });

        // A retry (its answer was lost): the same rows, the first outcome, nothing written twice.
        const again = await cp.recordStep(record);
        expect(again).toMatchObject({ evidenceIds: first.evidenceIds, stepCreated: false, turnResult: { kind: "repair_required", duplicate: true }, route: { route: "repair_required" } });
        expect(await cp.listEvidence({ goalId: r.goalId, runId: run.id })).toHaveLength(2);
        expect((await todoOf(r.goalId, r.todo.id)).attempts).toBe(1);
      });

      it("a record under a lease that was reclaimed is CONFLICT and writes nothing of it", async () => {
        const { goalId } = await goalWith([executor("Open the app")]);
        const [a, b] = [await agent(), await agent()];
        const old = await claimed(goalId, a, 1);
        const run = await cp.startRun({ goalId, agentId: a });
        await subject.elapse(20);
        expect(await cp.claimNext({ agentId: b, goalId, ttlMs: 60_000 })).toMatchObject({ claimed: true, reclaimedFrom: a });
        const late = cp.recordStep({
          runId: run.id,
          agentId: a,
          todoId: old.todo.id,
          lease: old.ref,
          evidence: [{ idempotencyKey: unique("obs"), kind: "observation", stepIndex: 0, summary: "a late screenshot", data: {} }],
          step: { index: 0, node: "executor", action: { type: "navigate_back" }, outcome: { outcome: "ok" }, anomalies: [], tokens: 0 },
          checkpoint: { node: "executor", late: true },
        });
        expect((await failureOf(late)).code).toBe("CONFLICT");
        expect(await cp.listEvidence({ goalId, runId: run.id })).toEqual([]);
        expect((await cp.getRun(run.id))!.checkpoint).toBeNull();
      });

      it("a blob that was never put is NOT_FOUND, and nothing is written", async () => {
        const r = await running();
        const run = await cp.startRun({ goalId: r.goalId, agentId: r.agentId });
        const missing = "0".repeat(64);
        const e = await failureOf(
          cp.recordStep({ runId: run.id, agentId: r.agentId, todoId: r.todo.id, lease: r.ref, evidence: [{ idempotencyKey: unique("obs"), kind: "observation", summary: "screen", data: {}, blobSha256: missing }], checkpoint: { step: 1 } }),
        );
        expect(e.code).toBe("NOT_FOUND");
        expect(await cp.listEvidence({ goalId: r.goalId, runId: run.id })).toEqual([]);
        expect((await cp.getRun(run.id))!.checkpoint).toBeNull();
      });
    });

    describe("runs, checkpoints, steps", () => {
      it("start → checkpoint → steps (once per index) → resume on another agent → finish with its end reason", async () => {
        const { goalId } = await goalWith([executor("Open the app")]);
        const [a, b] = [await agent(), await agent()];
        const runId = unique("run");
        const run = await cp.startRun({ id: runId, goalId, agentId: a });
        expect(run).toEqual({ id: runId, goalId, agentId: a, status: "running", endReason: null });
        expect(await cp.getRun(runId)).toEqual({ ...run, checkpoint: null });

        await cp.saveCheckpoint({ runId, agentId: a, checkpoint: { node: "executor", step: 1 } });
        const step = { runId, agentId: a, index: 0, node: "executor" as const, action: { type: "click", element: "3" }, outcome: { outcome: "ok", app: "launcher" }, anomalies: [], tokens: 812 };
        expect(await cp.appendStep(step)).toEqual({ created: true });
        expect(await cp.appendStep(step)).toEqual({ created: false });
        expect((await cp.getRun(runId))!.checkpoint).toEqual({ node: "executor", step: 1 });

        expect(await cp.resumeRun({ runId, agentId: b })).toMatchObject({ id: runId, agentId: b, status: "running" });
        // The run is b's now: a's writes to it are a conflict.
        expect((await failureOf(cp.saveCheckpoint({ runId, agentId: a, checkpoint: { late: true } }))).code).toBe("CONFLICT");
        await cp.appendStep({ ...step, agentId: b, index: 1 });
        await cp.finishRun({ runId, agentId: b, status: "completed", endReason: "all_done", summary: "Opened the app." });
        expect(await cp.getRun(runId)).toMatchObject({ id: runId, agentId: b, status: "completed", endReason: "all_done", checkpoint: { node: "executor", step: 1 } });
        // A finished run only reads.
        expect((await failureOf(cp.saveCheckpoint({ runId, agentId: b, checkpoint: { node: "end" } }))).code).toBe("ILLEGAL_TRANSITION");
        expect((await failureOf(cp.finishRun({ runId, agentId: b, status: "failed", endReason: "model_failed", summary: "again" }))).code).toBe("ILLEGAL_TRANSITION");
        expect(await cp.getRun(unique("run_missing"))).toBeNull();
      });
    });

    describe("policy rules", () => {
      it("reads the workspace's newest saved version", async () => {
        const before = (await cp.getPolicyRules())?.version ?? 0;
        await subject.savePolicyRules({ words: { money: ["zahlen"] } });
        await subject.savePolicyRules({ words: { money: ["zahlen", "spenden"] } });
        expect(await cp.getPolicyRules()).toEqual({ version: before + 2, rules: { words: { money: ["zahlen", "spenden"] } } });
      });
    });

    describe("learning", () => {
      it("a skill saved again is repaired in place: the next version, from the new run, a candidate until a run's use validates it; uses are counted", async () => {
        const app = unique("com.app");
        const first = await cp.saveSkill({ app, appVersion: "1.0", name: "search", goal: "Search", body: { steps: [1] }, runId: "run_a" });
        expect(first).toMatchObject({ app, version: 1, status: "candidate", runId: "run_a" });
        // Used by a run whose todo is accepted: validated when the run finishes, not before.
        const r = await running();
        const run = await cp.startRun({ goalId: r.goalId, agentId: r.agentId });
        await cp.recordSkillUse({ idempotencyKey: unique("use"), skillId: first.id, runId: run.id, todoId: r.todo.id, ok: true });
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "validated_completion", summary: "searched" });
        expect((await cp.listSkills({ app, status: "validated" }))).toEqual([]);
        await cp.finishRun({ runId: run.id, agentId: r.agentId, status: "completed", endReason: "all_done", summary: "Searched." });
        expect((await cp.listSkills({ app, status: "validated" })).map((s) => [s.id, s.successes])).toEqual([[first.id, 1]]);
        const repaired = await cp.saveSkill({ app, appVersion: "1.0", name: "search", goal: "Search", body: { steps: [1, 2] }, runId: "run_b" });
        expect(repaired).toMatchObject({ id: first.id, version: 2, status: "candidate", runId: "run_b", body: { steps: [1, 2] } });
        expect(await cp.listSkills({ app, status: "validated" })).toEqual([]);
        expect(await cp.listSkills({ app: unique("com.other") })).toEqual([]);
      });

      it("a skill's use that handed back validates nothing, and the second failure in a row of a version retires it", async () => {
        const app = unique("com.app");
        const skill = await cp.saveSkill({ app, appVersion: "1.0", name: "search", goal: "Search", body: { steps: [1] }, runId: "run_a" });
        const r = await running();
        const run = await cp.startRun({ goalId: r.goalId, agentId: r.agentId });
        await cp.recordSkillUse({ idempotencyKey: unique("use"), skillId: skill.id, runId: run.id, todoId: r.todo.id, ok: false, failedAt: 1, reason: "the element #go is not on the screen" });
        await cp.recordTurnResult({ idempotencyKey: unique("turn"), lease: r.ref, kind: "validated_completion", summary: "searched by hand" });
        await cp.finishRun({ runId: run.id, agentId: r.agentId, status: "completed", endReason: "all_done", summary: "Searched." });
        expect((await cp.listSkills({ app }))[0]).toMatchObject({ status: "candidate", failures: 1 });
        // The second failure sent twice (a retry with its key): counted once.
        const second = unique("use");
        await cp.recordSkillUse({ idempotencyKey: second, skillId: skill.id, runId: run.id, todoId: r.todo.id, ok: false, failedAt: 0, reason: "expected the screen .Search" });
        await cp.recordSkillUse({ idempotencyKey: second, skillId: skill.id, runId: run.id, todoId: r.todo.id, ok: false, failedAt: 0, reason: "expected the screen .Search" });
        expect((await cp.listSkills({ app }))[0]).toMatchObject({ status: "retired", failures: 2 });
      });

      it("shortcuts: discovered once per app version; one failed validation retires one for good", async () => {
        const app = unique("com.app");
        const found = await cp.saveShortcuts({ app, appVersion: "1.0", shortcuts: [{ uri: "app://home", activity: `${app}/.Home` }, { uri: "app://cart", activity: `${app}/.Cart` }] });
        expect(found.map((s) => [s.uri, s.status])).toEqual([["app://cart", "discovered"], ["app://home", "discovered"]]);
        const home = found.find((s) => s.uri === "app://home")!;
        expect((await cp.recordShortcutValidation({ shortcutId: home.id, ok: true })).status).toBe("validated");
        const cart = found.find((s) => s.uri === "app://cart")!;
        expect(await cp.recordShortcutValidation({ shortcutId: cart.id, ok: false, reason: "the cart did not appear" })).toMatchObject({ status: "retired", reason: "the cart did not appear" });
        expect((await cp.recordShortcutValidation({ shortcutId: cart.id, ok: true })).status).toBe("retired");
        await cp.saveShortcuts({ app, appVersion: "1.0", shortcuts: [{ uri: "app://cart", activity: `${app}/.Cart` }] });
        expect((await cp.listShortcuts({ app, appVersion: "1.0", status: "validated" })).map((s) => s.uri)).toEqual(["app://home"]);
        expect(await cp.listShortcuts({ app, appVersion: "2.0" })).toEqual([]);
      });

      it("lessons: the same text for an app is one lesson (from the newest run); another app's are not listed", async () => {
        const app = unique("com.app");
        await cp.addLessons({ app, goal: "Search", runId: "run_a", lessons: [{ kind: "failed", text: "The update dialog hides the search field." }, { kind: "worked", text: "Dismiss it with Later." }] });
        await cp.addLessons({ app, goal: "Search again", runId: "run_b", lessons: [{ kind: "failed", text: "the update dialog hides the search field." }] });
        const lessons = await cp.listLessons({ app });
        expect(lessons).toHaveLength(2);
        expect(lessons.find((l) => /update dialog/i.test(l.text))?.runId).toBe("run_b");
        expect(await cp.listLessons({ app: unique("com.other") })).toEqual([]);
      });
    });
  });
}
