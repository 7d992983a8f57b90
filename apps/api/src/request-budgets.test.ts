// One request cannot stall the API for others: a tRPC batch holds at most MAX_BATCH_CALLS calls, the inputs of one
// request at most MAX_REQUEST_ITEMS items, and every request has a time budget, after which it is answered 503
// with what happened and what to do — over HTTP, as any client calls.
import { beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { createApiClient } from "@phoneloop/client";
import { createGoal, registerAgent } from "@phoneloop/state";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { signUpMember, type SignedUpMember } from "./auth/testing.ts";
import { MAX_BATCH_CALLS, MAX_REQUEST_ITEMS } from "./input-guard.ts";

const t = useTestDatabase();

type Item = { result?: unknown; error?: { json: { message: string; data: { httpStatus: number; code: string } } } };

describe("work budgets", () => {
  const api = useApiServer(t);
  let admin: SignedUpMember;
  let agentId: string;
  let goalId: string;
  beforeAll(async () => {
    admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    agentId = (await registerAgent(t.db, { id: `agent_budget_${admin.workspaceId}`, name: "Budget", kind: "headless", workspaceId: admin.workspaceId })).id;
    goalId = (await createGoal(t.db, { title: "Budgets", objective: "Take big batches", workspaceId: admin.workspaceId })).id;
  });

  const batch = async (path: string, inputs: unknown[]): Promise<{ status: number; items: Item[] }> => {
    const body = Object.fromEntries(inputs.map((input, i) => [i, superjson.serialize(input)]));
    const res = await fetch(`${api.url}/trpc/${inputs.map(() => path).join(",")}?batch=1`, {
      method: "POST",
      headers: { ...admin.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, items: (await res.json()) as Item[] };
  };

  it(`a batch of ${MAX_BATCH_CALLS} heartbeats is answered; one of ${MAX_BATCH_CALLS + 1} is a 413 for every call, before any runs`, async () => {
    const within = await batch("agent.heartbeat", Array.from({ length: MAX_BATCH_CALLS }, () => ({ agentId })));
    expect(within.items.map((i) => i.error?.json.data.httpStatus ?? 200)).toEqual(Array(MAX_BATCH_CALLS).fill(200));

    const before = (await t.db.agent.findUniqueOrThrow({ where: { id: agentId } })).heartbeatAt;
    const over = await batch("agent.heartbeat", Array.from({ length: MAX_BATCH_CALLS + 1 }, () => ({ agentId })));
    expect(over.status).toBe(413);
    expect(over.items).toHaveLength(MAX_BATCH_CALLS + 1);
    for (const item of over.items) {
      expect(item.error?.json.data).toMatchObject({ httpStatus: 413, code: "PAYLOAD_TOO_LARGE" });
      expect(item.error?.json.message).toMatch(new RegExp(`at most ${MAX_BATCH_CALLS} calls; this one has ${MAX_BATCH_CALLS + 1}.*several requests`));
    }
    expect((await t.db.agent.findUniqueOrThrow({ where: { id: agentId } })).heartbeatAt).toEqual(before);
  });

  it(`the PhoneLoop client sends ${MAX_BATCH_CALLS} calls a request at most: 120 calls made at once are all answered`, async () => {
    const client = createApiClient({ apiUrl: api.url, auth: { kind: "cookie", cookie: admin.headers.cookie! } });
    const answers = await Promise.all(Array.from({ length: 120 }, () => client.agent.heartbeat.mutate({ agentId })));
    expect(answers.map((a) => a.agentId)).toEqual(Array(120).fill(agentId));
  });

  it(`inputs holding more than ${MAX_REQUEST_ITEMS} items in one request are a 413 naming the budget; nothing of the call is stored`, async () => {
    // 1,000 todos (the schema's cap) with 5 capabilities each: 6,001 items in one call.
    const todos = Array.from({ length: 1000 }, (_, n) => ({ title: `todo ${n}`, requiredCapabilities: ["a", "b", "c", "d", "e"] }));
    const one = await batch("todo.add", [{ goalId, todos }]);
    expect(one.items[0]!.error?.json.data).toMatchObject({ httpStatus: 413, code: "PAYLOAD_TOO_LARGE" });
    expect(one.items[0]!.error?.json.message).toMatch(/at most 2,000 items in all.*several requests/);
    expect(await t.db.todo.count({ where: { goalId } })).toBe(0);

    // Several calls share the request's budget: three adds of 700 plain todos are 2,103 items, and one is refused.
    const three = await batch("todo.add", Array.from({ length: 3 }, (_, k) => ({ goalId, todos: todos.slice(0, 700).map((d) => ({ title: `${d.title} of ${k}` })) })));
    const statuses = three.items.map((i) => i.error?.json.data.httpStatus ?? 200);
    expect(statuses.filter((s) => s === 413)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(await t.db.todo.count({ where: { goalId } })).toBe(2 * 700);
  });
});

describe("time budget", () => {
  const BUDGET_MS = 400;
  const api = useApiServer(t, { requestTimeoutMs: BUDGET_MS });
  let admin: SignedUpMember;
  beforeAll(async () => {
    admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
  });

  /** A request whose body never finishes: its handler waits for good, so only the budget answers it. */
  const stalled = (path: string, type: string) => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const res = fetch(`${api.url}${path}`, {
      method: "POST",
      headers: { ...admin.headers, "content-type": type },
      body: new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) }),
      duplex: "half",
    } as RequestInit);
    controller.enqueue(new TextEncoder().encode(type === "application/json" ? '{"0":{"json":' : "\x89PNG"));
    return { res, end: () => controller.close() };
  };

  it("a tRPC request still unanswered after the budget is a 503 in tRPC's shape, saying what happened and what to do", async () => {
    const call = stalled("/trpc/goal.create?batch=1", "application/json");
    const res = await call.res;
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    const [item] = (await res.json()) as Item[];
    expect(item!.error?.json.data).toMatchObject({ httpStatus: 503, code: "SERVICE_UNAVAILABLE" });
    expect(item!.error?.json.message).toMatch(new RegExp(`within ${BUDGET_MS / 1000} s.*check before repeating`));
    call.end();
  });

  it("a blob upload still unanswered after its budget is a 503 too, and the API goes on answering", async () => {
    const call = stalled("/blobs", "image/png");
    const res = await call.res;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "TIMEOUT", message: expect.stringMatching(/did not finish this request/) });
    call.end();
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
  });
});
