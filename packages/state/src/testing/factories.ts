// Seed functions with random ids that double as test factories: tests share no fixtures and run in parallel.
// They go through the operators, so seeded state is state the product could have reached.
import { randomBytes } from "node:crypto";
import type { Db } from "../db/client.ts";
import type { Agent, Gate, Goal, Membership, Todo, Workspace } from "../generated/prisma/client.ts";
import type { OperatorContext } from "../services/operator.ts";
import { createGoal, type CreateGoalInput } from "../services/goal/create-goal.ts";
import { addTodos, type TodoDraft } from "../services/todo/add-todos.ts";
import { registerAgent, type RegisterAgentInput } from "../services/agent/register-agent.ts";
import { openGate, type OpenGateInput } from "../services/gate/open-gate.ts";
import { claimTodo } from "../services/todo/claim-todo.ts";
import type { ClaimResult } from "../services/todo/claim-result.ts";
import type { Role } from "../domain/roles.ts";
import { createWorkspace } from "../services/workspace/create-workspace.ts";
import { addMember } from "../services/workspace/members.ts";

export function rid(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** A person as the accounts tables hold them (the "user" row a sign-up creates). */
export async function seedUser(db: Db, name = "Sam"): Promise<{ id: string; name: string; email: string }> {
  const id = rid("user");
  const email = `${id}@example.test`;
  await db.$executeRaw`INSERT INTO "user" ("id", "name", "email", "emailVerified", "createdAt", "updatedAt") VALUES (${id}, ${name}, ${email}, true, now(), now())`;
  return { id, name, email };
}

/** A workspace with its first admin. */
export async function seedWorkspace(db: Db, name = "Team"): Promise<{ workspace: Workspace; admin: { id: string; name: string; email: string } }> {
  const admin = await seedUser(db, "Admin");
  const { workspace } = await createWorkspace(db, { id: rid("ws"), name, adminUserId: admin.id });
  return { workspace, admin };
}

/** The workspace the seeders use when a test names none (one per test file run, created on first use). */
const defaultWorkspaces = new WeakMap<Db, Promise<string>>();
export function seedWorkspaceId(db: Db): Promise<string> {
  let ws = defaultWorkspaces.get(db);
  if (!ws) {
    ws = seedWorkspace(db).then((w) => w.workspace.id);
    defaultWorkspaces.set(db, ws);
  }
  return ws;
}

export async function seedGoal(db: Db, over: Partial<CreateGoalInput> = {}, ctx?: OperatorContext): Promise<Goal> {
  const workspaceId = over.workspaceId ?? (await seedWorkspaceId(db));
  return createGoal(db, { id: rid("goal"), title: "Book a table for two", objective: "Reserve a table on Friday at 19:00 in the booking app.", ...over, workspaceId }, ctx);
}

export async function seedTodos(db: Db, goalId: string, n: number, over: Partial<TodoDraft> = {}, ctx?: OperatorContext): Promise<Todo[]> {
  const drafts = Array.from({ length: n }, (_, k) => ({ id: rid("todo"), title: `Step ${k + 1}`, ...over }));
  const out: Todo[] = [];
  for (let k = 0; k < drafts.length; k += 500) out.push(...(await addTodos(db, { goalId, todos: drafts.slice(k, k + 500) }, ctx)));
  return out;
}

export async function seedAgent(db: Db, over: Partial<RegisterAgentInput> = {}, ctx?: OperatorContext): Promise<Agent> {
  const workspaceId = over.workspaceId ?? (await seedWorkspaceId(db));
  return registerAgent(db, { id: rid("agent"), name: "Pixel tab", kind: "browser", capabilities: ["android"], ...over, workspaceId }, ctx);
}

/** A person who is a member of the workspace (the seeders' own when none is named) with the role. */
export async function seedMember(db: Db, role: Role = "admin", workspaceId?: string, name = `Member ${role}`): Promise<Membership & { name: string; email: string }> {
  const user = await seedUser(db, name);
  const membership = await addMember(db, { workspaceId: workspaceId ?? (await seedWorkspaceId(db)), userId: user.id, role });
  return { ...membership, name: user.name, email: user.email };
}

export async function seedGate(db: Db, goalId: string, over: Partial<OpenGateInput> = {}, ctx?: OperatorContext): Promise<Gate> {
  return (await openGate(db, { goalId, question: "Pay the 5 EUR deposit to hold the table?", options: ["pay", "skip"], ...over }, ctx)).gate;
}

/** A goal with one todo, an agent, and that agent's claim on it. */
export async function seedClaimed(db: Db, ctx?: OperatorContext, ttlMs = 60_000): Promise<{ goal: Goal; todo: Todo; agent: Agent; claim: Extract<ClaimResult, { claimed: true }> }> {
  const goal = await seedGoal(db, {}, ctx);
  const [todo] = await seedTodos(db, goal.id, 1, {}, ctx);
  const agent = await seedAgent(db, {}, ctx);
  const claim = await claimTodo(db, { agentId: agent.id, todoId: todo!.id, ttlMs }, ctx);
  if (!claim.claimed) throw new Error(`seedClaimed: ${claim.reason}`);
  return { goal, todo: claim.todo, agent, claim };
}
