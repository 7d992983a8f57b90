// Access ends when membership or role says so, over real HTTP: an agent token's power is its issuer's current role
// at most (a demoted issuer's tokens are bounded at once), and ends with the issuer's membership (removal revokes
// their tokens, listed as revoked with the reason) unless an admin re-owned the token first (agentToken.reassign).
// An open event stream ends as soon as its caller's access does: its member removed, its token revoked, or its
// token's issuer removed.
import { beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "@phoneloop/client";
import { useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { callOverHttp, signUpMember, type SignedUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let admin: SignedUpMember;

beforeAll(async () => {
  admin = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
});

const person = (role: "operator" | "viewer") => signUpMember({ db: t.db, auth: api.auth }, { role, workspaceId: admin.workspaceId });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const call = (path: string, input: unknown, headers: Record<string, string>) => callOverHttp(api.url, path, input, headers);

async function issued(by: SignedUpMember, path: "agentToken.issue" | "agentToken.mintForTab") {
  const r = await call(path, { name: "Lab worker" }, by.headers);
  expect(r.status, r.message).toBe(200);
  return r.data as { token: string; tokenId: string };
}

async function tokenRow(tokenId: string) {
  const r = await call("agentToken.listAll", { limit: 500 }, admin.headers);
  expect(r.status, r.message).toBe(200);
  return (r.data as { items: { id: string; issuedBy: string; revokedAt: string | null; revokedReason: string | null }[] }).items.find((x) => x.id === tokenId);
}

const newGoal = { title: "Book a table", objective: "Friday 19:00" };
/** A 1×1 PNG. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("an agent token ends with its issuer's membership", () => {
  it("after member.remove, the member's worker and tab tokens are 401 everywhere and listed as revoked, issuer removed", async () => {
    const operator = await person("operator");
    const worker = await issued(operator, "agentToken.issue");
    const tab = await issued(operator, "agentToken.mintForTab");
    const goal = (await call("goal.create", newGoal, bearer(worker.token))).data as { id: string };
    expect(goal.id).toBeTruthy();
    expect((await call("goal.create", newGoal, bearer(tab.token))).status).toBe(200);

    const removed = await call("member.remove", { userId: operator.userId }, admin.headers);
    expect(removed.status, removed.message).toBe(200);

    for (const token of [worker.token, tab.token]) {
      expect((await call("goal.create", newGoal, bearer(token))).status).toBe(401);
      expect((await call("evidence.list", { goalId: goal.id }, bearer(token))).status).toBe(401);
      expect((await call("member.list", {}, bearer(token))).status).toBe(401);
    }
    expect((await call("goal.create", newGoal, operator.headers)).status).toBe(401);
    for (const id of [worker.tokenId, tab.tokenId]) {
      const row = await tokenRow(id);
      expect(row?.revokedAt).not.toBeNull();
      expect(row?.revokedReason).toBe("issuer_removed");
    }
  });

  it("a token an admin re-owned (agentToken.reassign) outlives its first issuer's removal; only an admin re-owns", async () => {
    const operator = await person("operator");
    const worker = await issued(operator, "agentToken.issue");
    const other = await person("operator");
    expect((await call("agentToken.reassign", { tokenId: worker.tokenId, userId: other.userId }, other.headers)).status).toBe(403);
    const reassigned = await call("agentToken.reassign", { tokenId: worker.tokenId, userId: admin.userId }, admin.headers);
    expect(reassigned.status, reassigned.message).toBe(200);
    expect((await call("member.remove", { userId: operator.userId }, admin.headers)).status).toBe(200);
    expect((await call("goal.create", newGoal, bearer(worker.token))).status).toBe(200);
    expect(await tokenRow(worker.tokenId)).toMatchObject({ issuedBy: admin.userId, revokedAt: null, revokedReason: null });
    // Re-owning to someone who is not a member of this workspace is refused: nobody's token outlives them so.
    const outsider = await signUpMember({ db: t.db, auth: api.auth }, { role: "admin" });
    expect((await call("agentToken.reassign", { tokenId: worker.tokenId, userId: outsider.userId }, admin.headers)).status).toBe(404);
  });
});

describe("an agent token is bounded by its issuer's current role", () => {
  it("demoting the issuer to viewer bounds their tokens at once: writes 403, reads 200; promoted again, writes work", async () => {
    const operator = await person("operator");
    const worker = await issued(operator, "agentToken.issue");
    const tab = await issued(operator, "agentToken.mintForTab");
    expect((await call("goal.create", newGoal, bearer(worker.token))).status).toBe(200);

    expect((await call("member.setRole", { userId: operator.userId, role: "viewer" }, admin.headers)).status).toBe(200);
    expect((await call("goal.create", newGoal, operator.headers)).status).toBe(403);
    for (const token of [worker.token, tab.token]) {
      const refused = await call("goal.create", newGoal, bearer(token));
      expect(refused.status).toBe(403);
      expect(refused.message).toContain("viewer");
      expect((await call("board.goals", {}, bearer(token))).status).toBe(200);
      // The routes beside tRPC decide the same way: no screenshot upload, no model call.
      const upload = await fetch(`${api.url}/blobs`, { method: "POST", headers: { ...bearer(token), "content-type": "image/png" }, body: Buffer.from(PNG_1X1, "base64") });
      expect(upload.status).toBe(403);
      expect(((await upload.json()) as { error: { message: string } }).error.message).toContain("viewer");
      const model = await fetch(`${api.url}/model/executor/v1/chat/completions`, { method: "POST", headers: { ...bearer(token), "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });
      expect(model.status).toBe(403);
      expect(await model.text()).toContain("viewer");
    }

    expect((await call("member.setRole", { userId: operator.userId, role: "operator" }, admin.headers)).status).toBe(200);
    expect((await call("goal.create", newGoal, bearer(worker.token))).status).toBe(200);
  });
});

/** An open stream as the given credentials; `ended` settles with the error that ended it. */
function openStream(auth: { kind: "token"; token: string } | { kind: "cookie"; cookie: string }) {
  const client = createApiClient({ apiUrl: api.url, auth });
  const operators: string[] = [];
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  let ended!: (e: unknown) => void;
  const end = new Promise<unknown>((r) => (ended = r));
  const sub = client.event.stream.subscribe(
    {},
    {
      onStarted: () => started(),
      onData: ({ data }) => operators.push(data.operator),
      onError: (e) => ended(e),
    },
  );
  return { ready, end, operators, stop: () => sub.unsubscribe() };
}

/** The stream ends with 401 and delivers nothing after the change that ended its access. */
async function expectEndsWithAccess(stream: ReturnType<typeof openStream>, change: () => Promise<void>) {
  await stream.ready;
  await change();
  // An event committed after the change: a stream that still delivers would see it.
  const after = await call("goal.create", { title: "After access ended", objective: "nobody removed sees this" }, admin.headers);
  expect(after.status).toBe(200);
  // Whichever comes first: the stream's end, or the event it must not deliver.
  const delivered = (async () => {
    await expect.poll(() => stream.operators.includes("goal.create"), { timeout: 30_000 }).toBe(true);
    return "delivered after access ended" as const;
  })();
  const error = (await Promise.race([stream.end, delivered])) as { data?: { code?: string; httpStatus?: number }; message: string } | string;
  stream.stop();
  expect(typeof error, String(error)).toBe("object");
  if (typeof error !== "object") return;
  expect(error.data?.code).toBe("UNAUTHORIZED");
  expect(error.message).toMatch(/sign in|token/i);
  expect(stream.operators).not.toContain("goal.create");
}

describe("an open event stream ends with its caller's access", () => {
  it("a removed member's stream ends", async () => {
    const viewer = await person("viewer");
    const stream = openStream({ kind: "cookie", cookie: viewer.headers.cookie! });
    await expectEndsWithAccess(stream, async () => {
      expect((await call("member.remove", { userId: viewer.userId }, admin.headers)).status).toBe(200);
    });
  });

  it("a revoked token's stream ends", async () => {
    const operator = await person("operator");
    const worker = await issued(operator, "agentToken.issue");
    const stream = openStream({ kind: "token", token: worker.token });
    await expectEndsWithAccess(stream, async () => {
      expect((await call("agentToken.revoke", { tokenId: worker.tokenId }, operator.headers)).status).toBe(200);
    });
  });

  it("the stream of a token whose issuer was removed ends", async () => {
    const operator = await person("operator");
    const tab = await issued(operator, "agentToken.mintForTab");
    const stream = openStream({ kind: "token", token: tab.token });
    await expectEndsWithAccess(stream, async () => {
      expect((await call("member.remove", { userId: operator.userId }, admin.headers)).status).toBe(200);
    });
  });

  it("a demoted member's stream is decided again under the new role: a viewer still reads, so it keeps delivering", async () => {
    const operator = await person("operator");
    const stream = openStream({ kind: "cookie", cookie: operator.headers.cookie! });
    await stream.ready;
    expect((await call("member.setRole", { userId: operator.userId, role: "viewer" }, admin.headers)).status).toBe(200);
    expect((await call("goal.create", { title: "After the demotion", objective: "a viewer reads this" }, admin.headers)).status).toBe(200);
    await expect.poll(() => stream.operators.includes("goal.create")).toBe(true);
    stream.stop();
    expect(stream.operators).toContain("member.setRole");
  });
});
