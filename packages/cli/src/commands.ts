// The commands: each names its words, flags and positionals, calls one procedure, and says what happened.
import { readAllPages, type ApiClient, type RouterOutputs } from "@phoneloop/client";
import { GATE_ANSWER_ROLES, PAGE_LIMIT } from "@phoneloop/state/domain";
import { UsageError, type Options } from "./args.ts";
import type { CommandArgs } from "./run.ts";
import { duration, relative, table } from "./format.ts";

export interface CommandResult {
  text: string;
  json: unknown;
  /** Non-zero when the operator answered but refused (e.g. nothing to claim). */
  exitCode?: number;
}

export interface Command {
  path: string[];
  usage: string;
  summary: string;
  help?: string;
  args?: string[];
  options: Options;
  run(ctx: { client: ApiClient; args: CommandArgs }): Promise<CommandResult>;
}

type AttentionItem = RouterOutputs["board"]["attention"]["items"][number];

/** The whole attention queue (every page): who must act next is never cut short. */
function attentionOf(client: ApiClient, goalId: string | undefined): Promise<AttentionItem[]> {
  return readAllPages((cursor) => client.board.attention.query({ ...(goalId ? { goalId } : {}), cursor, limit: PAGE_LIMIT.max }));
}
type Board = RouterOutputs["board"]["get"];

const TODO_UPDATES = ["start", "validate", "writeback", "renew", "release", "block", "fail", "retry"] as const;

export const COMMANDS: Command[] = [
  {
    path: ["status"],
    usage: "status [--goal-id <goalId>]",
    summary: "Who must act next; with --goal-id, that goal's board.",
    options: { "goal-id": { type: "string" } },
    async run({ client, args }) {
      const goalId = args.flags.string("goal-id");
      const attention = await attentionOf(client, goalId);
      if (!goalId) {
        const goals = await client.board.goals.query({});
        // JSON keeps `goals` a list (the newest page); goalsNextCursor says whether older ones exist.
        return { json: { attention, goals: goals.items, goalsNextCursor: goals.nextCursor }, text: `${renderAttention(attention)}\n\n${renderGoals(goals)}` };
      }
      const board = await client.board.get.query({ goalId });
      return { json: { attention, board }, text: `${renderBoard(board)}\n\n${renderAttention(attention)}` };
    },
  },
  {
    path: ["todo", "claim"],
    usage: "todo claim [<todoId>] --agent-id <id> [--goal-id <goalId>] [--ttl 60s] [--key <lease key>]",
    summary: "Claim a todo (or the next eligible one) under a lease.",
    help: "Prints the lease key; pass it as --lease-key to `todo update` and `todo complete`. Exits 1 when nothing was claimed.",
    args: ["todoId"],
    options: { "goal-id": { type: "string" }, ttl: { type: "string" }, key: { type: "string" } },
    async run({ client, args }) {
      const todoId = args.optionalArg("todoId");
      const ttlMs = args.flags.durationMs("ttl");
      const common = {
        agentId: args.agentId(),
        ...(ttlMs !== undefined ? { ttlMs } : {}),
        ...(args.flags.string("key") ? { idempotencyKey: args.flags.string("key") } : {}),
      };
      const result = todoId
        ? await client.todo.claim.mutate({ ...common, todoId })
        : await client.todo.claimNext.mutate({ ...common, ...(args.flags.string("goal-id") ? { goalId: args.flags.string("goal-id") } : {}) });
      if (!result.claimed) return { json: result, text: `Nothing claimed: ${result.reason}`, exitCode: 1 };
      const { todo, lease } = result;
      return {
        json: result,
        text: [
          `${result.duplicate ? "Already claimed (same key)" : "Claimed"} ${todo.id} — ${todo.title}`,
          `  lease key  ${lease.leaseKey}`,
          `  expires    ${relative(lease.expiresAt)} (ttl ${duration(lease.ttlMs)})`,
          ...(result.reclaimedFrom ? [`  reclaimed from ${result.reclaimedFrom}, whose lease had expired`] : []),
        ].join("\n"),
      };
    },
  },
  {
    path: ["todo", "update"],
    usage: `todo update <todoId> --agent-id <id> --lease-key <key> --action <${TODO_UPDATES.join("|")}> [--summary …] [--reason …] [--values <json>] [--ttl 60s]`,
    summary: "Move a todo you hold one step: start, validate, write back progress, renew or release the lease, block, fail, retry.",
    help: "--summary is the validate summary or the writeback/retry result; --reason is required for block and fail.",
    args: ["todoId"],
    options: {
      action: { type: "string" },
      "lease-key": { type: "string" },
      summary: { type: "string" },
      reason: { type: "string" },
      values: { type: "string" },
      ttl: { type: "string" },
    },
    async run({ client, args }) {
      const action = args.flags.oneOf("action", TODO_UPDATES);
      if (!action) throw new UsageError(`Missing --action (one of ${TODO_UPDATES.join(", ")}).`);
      const ref = { todoId: args.arg("todoId"), agentId: args.agentId(), leaseKey: args.flags.requiredString("lease-key") };
      const summary = args.flags.string("summary");
      const reason = args.flags.string("reason");
      let result: unknown;
      switch (action) {
        case "renew": {
          const ttlMs = args.flags.durationMs("ttl");
          const lease = await client.lease.renew.mutate({ ...ref, ...(ttlMs !== undefined ? { ttlMs } : {}) });
          return { json: lease, text: `Renewed the lease on ${ref.todoId}; it expires ${relative(lease.expiresAt)}.` };
        }
        case "release": {
          const r = await client.lease.release.mutate({ ...ref, ...(reason ? { reason } : {}) });
          return { json: r, text: `Released ${ref.todoId}; it is ${r.todo.state} again.` };
        }
        case "start":
          result = await client.todo.start.mutate(ref);
          break;
        case "validate":
          result = await client.todo.validate.mutate({ ...ref, ...(summary ? { summary } : {}) });
          break;
        case "writeback":
          result = await client.todo.writeback.mutate({ ...ref, ...values(args.flags.jsonObject("values")), ...(summary ? { result: summary } : {}) });
          break;
        case "retry":
          if (!summary) throw new UsageError("retry needs --summary saying what went wrong.");
          result = await client.todo.retry.mutate({ ...ref, result: summary });
          break;
        case "block":
          if (!reason) throw new UsageError("block needs --reason saying who must act and why.");
          result = await client.todo.block.mutate({ ...ref, reason });
          break;
        case "fail":
          if (!reason) throw new UsageError("fail needs --reason.");
          result = await client.todo.fail.mutate({ ...ref, reason });
          break;
      }
      const moved = result as { todo: { id: string; title: string }; from: string; to: string };
      return { json: result, text: `${moved.todo.id}: ${moved.from} → ${moved.to} (${action})` };
    },
  },
  {
    path: ["todo", "complete"],
    usage: "todo complete <todoId> --agent-id <id> --lease-key <key> [--result …] [--values <json>]",
    summary: "Complete a todo you hold (after its result was validated); the lease ends.",
    args: ["todoId"],
    options: { "lease-key": { type: "string" }, result: { type: "string" }, values: { type: "string" } },
    async run({ client, args }) {
      const ref = { todoId: args.arg("todoId"), agentId: args.agentId(), leaseKey: args.flags.requiredString("lease-key") };
      const r = await client.todo.complete.mutate({ ...ref, ...values(args.flags.jsonObject("values")), ...(args.flags.string("result") ? { result: args.flags.string("result") } : {}) });
      return { json: r, text: `${r.todo.id}: ${r.from} → ${r.to}. Done: ${r.todo.title}` };
    },
  },
  {
    path: ["quota", "should-run"],
    usage: "quota should-run --goal-id <goalId> --agent-id <id> [--todo-id <todoId>] [--steps N] [--tokens N]",
    summary: "Ask before a turn whether it may run; spends nothing. Exits 1 on skip.",
    options: { "goal-id": { type: "string" }, "todo-id": { type: "string" }, steps: { type: "string" }, tokens: { type: "string" }, "micro-usd": { type: "string" } },
    async run({ client, args }) {
      const steps = args.flags.int("steps");
      const tokens = args.flags.int("tokens");
      const microUsd = args.flags.int("micro-usd");
      const estimate = steps !== undefined || tokens !== undefined || microUsd !== undefined ? { steps: steps ?? 1, tokens: tokens ?? 0, microUsd: microUsd ?? 0 } : undefined;
      const r = await client.quota.shouldRun.query({
        goalId: args.flags.requiredString("goal-id"),
        agentId: args.agentId(),
        ...(args.flags.string("todo-id") ? { todoId: args.flags.string("todo-id") } : {}),
        ...(estimate ? { estimate } : {}),
      });
      const usage = renderUsage(r.usage);
      if (r.decision === "run") return { json: r, text: `run${usage ? `\n${usage}` : ""}` };
      return {
        json: r,
        text: `skip (${r.reason}): ${r.message}${r.retryAfterMs !== null ? ` Retry in ${duration(r.retryAfterMs)}.` : ""}${usage ? `\n${usage}` : ""}`,
        exitCode: 1,
      };
    },
  },
  {
    path: ["quota", "spend"],
    usage: "quota spend --goal-id <goalId> --agent-id <id> --key <key> [--todo-id <todoId>] [--steps N] [--tokens N] [--micro-usd N]",
    summary: "Record what a validated turn spent; the same --key spends once.",
    options: { "goal-id": { type: "string" }, key: { type: "string" }, "todo-id": { type: "string" }, steps: { type: "string" }, tokens: { type: "string" }, "micro-usd": { type: "string" } },
    async run({ client, args }) {
      const r = await client.quota.spend.mutate({
        goalId: args.flags.requiredString("goal-id"),
        agentId: args.agentId(),
        key: args.flags.requiredString("key"),
        ...(args.flags.string("todo-id") ? { todoId: args.flags.string("todo-id") } : {}),
        steps: args.flags.int("steps") ?? 0,
        tokens: args.flags.int("tokens") ?? 0,
        microUsd: args.flags.int("micro-usd") ?? 0,
      });
      const s = r.spend;
      const what = `${s.steps} steps, ${s.tokens} tokens, $${(s.microUsd / 1e6).toFixed(4)}`;
      const usage = renderUsage(r.usage);
      return { json: r, text: `${r.duplicate ? "Already spent under this key (nothing new): " : "Spent "}${what}${usage ? `\n${usage}` : ""}` };
    },
  },
  {
    path: ["gate", "list"],
    usage: "gate list [--goal-id <goalId>]",
    summary: "Open gates: questions waiting for a team member.",
    options: { "goal-id": { type: "string" } },
    async run({ client, args }) {
      const goalId = args.flags.string("goal-id");
      const items = await attentionOf(client, goalId);
      const gates = items.filter((i): i is Extract<AttentionItem, { kind: "gate_waiting" }> => i.kind === "gate_waiting");
      if (gates.length === 0) return { json: gates, text: `No open gates${goalId ? ` on ${goalId}` : ""}. Nothing waits for a person.` };
      const text = gates
        .map((g) =>
          [
            `${g.gateId}  (goal ${g.goalId}${g.todoId ? `, todo ${g.todoId}` : ""}, open since ${relative(g.since).replace(/^in /, "")})`,
            `  ${g.question}`,
            ...(g.options.length ? [`  options: ${g.options.join(" | ")}`] : []),
            `  may answer: ${g.who.kind === "members" ? g.who.roles.join(", ") : g.who.kind}`,
          ].join("\n"),
        )
        .join("\n\n");
      return { json: gates, text };
    },
  },
  {
    path: ["gate", "resolve"],
    usage: "gate resolve <gateId> --decision <approve|deny|answer> --rationale … [--answer …]",
    summary: `Answer a gate (an ${GATE_ANSWER_ROLES.join(" or ")}; agent tokens may not: answer in the web app).`,
    args: ["gateId"],
    options: { decision: { type: "string" }, answer: { type: "string" }, rationale: { type: "string" } },
    async run({ client, args }) {
      const decision = args.flags.oneOf("decision", ["approve", "deny", "answer"] as const);
      if (!decision) throw new UsageError("Missing --decision (approve, deny or answer).");
      const answer = args.flags.string("answer");
      const gate = await client.gate.resolve.mutate({
        gateId: args.arg("gateId"),
        decision,
        rationale: args.flags.requiredString("rationale"),
        ...(answer ? { answer } : {}),
      });
      return { json: gate, text: `Gate ${gate.id} ${gate.status}${gate.answer ? `: ${gate.answer}` : ""}.` };
    },
  },
];

function values(v: Record<string, unknown> | undefined): { values?: Record<string, unknown> } {
  return v ? { values: v } : {};
}

function renderUsage(usage: { scope: string; subjectId: string; used: { steps: number; tokens: number }; limits: { steps: number | null; tokens: number | null } }[]): string {
  return usage
    .map((u) => `  ${u.scope} ${u.subjectId}: ${u.used.steps}${u.limits.steps !== null ? `/${u.limits.steps}` : ""} steps, ${u.used.tokens}${u.limits.tokens !== null ? `/${u.limits.tokens}` : ""} tokens`)
    .join("\n");
}

function renderAttention(items: AttentionItem[]): string {
  if (items.length === 0) return "Attention: nobody needs to act — no open gates, expired leases, blocked todos or exhausted quotas.";
  const rows = items.map((i) => {
    switch (i.kind) {
      case "gate_waiting":
        return ["gate", i.who.kind === "members" ? i.who.roles.join("/") : i.who.kind, `${i.gateId}: ${i.question}`];
      case "lease_expired":
        return ["lease expired", "any agent", `${i.todoId} ${i.title} (was ${i.previousOwner})`];
      case "todo_blocked":
        return ["blocked", "planner", `${i.todoId} ${i.title}${i.reason ? ` — ${i.reason}` : ""}`];
      case "quota_exhausted":
        return ["quota", "admin", i.message];
      case "run_interrupted":
        return ["run interrupted", "any agent", `${i.runId} (was ${i.agentId}): ${i.action.command}`];
      case "goal_done":
        return ["goal done", "admin/operator", `${i.goalId} ${i.title}: complete it`];
    }
  });
  return `Attention (${items.length}):\n${indent(table([["WHAT", "WHO", "DETAIL"], ...rows]))}`;
}

/** The first page of goals (the newest); the web app's goal list scrolls through the rest. */
function renderGoals(page: RouterOutputs["board"]["goals"]): string {
  const goals = page.items;
  if (goals.length === 0) return "Goals: none yet. Create one through the API (goal.create) or the web app.";
  const rows = goals.map((g) => [g.id, g.status, Object.entries(g.todos).map(([s, n]) => `${n} ${s}`).join(", ") || "no todos", g.title]);
  const title = page.nextCursor ? `Goals (the newest ${goals.length}; older ones on the web app's board)` : `Goals (${goals.length})`;
  return `${title}:\n${indent(table([["ID", "STATUS", "TODOS", "TITLE"], ...rows]))}`;
}

function renderBoard(board: Board): string {
  const lines = [`${board.goal.title} (${board.goal.id}, ${board.goal.status})`];
  for (const lane of board.lanes) {
    if (lane.cards.length === 0) continue;
    lines.push(`  ${lane.state} (${lane.cards.length})`);
    const width = Math.max(...lane.cards.map((c) => c.id.length));
    for (const c of lane.cards) {
      const owner = c.owner ? ` — ${c.owner.agentId}${c.leaseMsLeft !== null ? (c.leaseMsLeft > 0 ? `, ${duration(c.leaseMsLeft)} left` : ", lease expired") : ""}` : "";
      lines.push(`    ${c.id.padEnd(width)}  ${c.title}${owner}`);
      if (c.openGate) lines.push(`    ${"".padEnd(width)}  waiting on gate ${c.openGate.id}: ${c.openGate.question}`);
    }
  }
  if (board.lanes.every((l) => l.cards.length === 0)) lines.push("  No todos yet: the planner adds them with todo.add.");
  return lines.join("\n");
}

function indent(s: string): string {
  return s
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
