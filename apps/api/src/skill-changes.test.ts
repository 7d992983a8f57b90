// Who changes a skill, over real HTTP: an agent token may propose skills (save) and report its uses, but a skill's
// steps, status and existence are people's — an agent's update, delete, disable, enable or approve is 403 naming
// the permission of a person it lacks, and there is no procedure by which an agent marks a skill validated. A
// person's change works and is audited (an Event with the operator and who acted); enabling restores the status
// the skill had before it was disabled, so Disable then Enable validates nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { rid, useTestDatabase } from "@phoneloop/state/testing";
import { useApiServer } from "./use-api-server.ts";
import { agentTokenHeaders, callOverHttp, signUpMember, type SignedUpMember } from "./auth/testing.ts";

const t = useTestDatabase();
const api = useApiServer(t);
let person: SignedUpMember;
let agent: Record<string, string>;

beforeAll(async () => {
  person = await signUpMember({ db: t.db, auth: api.auth }, { role: "operator", name: "Olga Operator" });
  agent = (await agentTokenHeaders(t.db, { workspaceId: person.workspaceId, issuedBy: person.userId })).headers;
});

const call = (path: string, input: unknown, headers: Record<string, string>) => callOverHttp(api.url, path, input, headers);
async function proposed(): Promise<{ id: string; status: string; version: number }> {
  const r = await call("skill.save", { app: "com.loop", appVersion: "1.0", name: rid("search"), goal: "Search Loop", body: { steps: [] }, runId: rid("run") }, agent);
  expect(r.status, r.message).toBe(200);
  return r.data as { id: string; status: string; version: number };
}
const eventsOf = (skillId: string) => t.db.event.findMany({ where: { subjectId: skillId, operator: { startsWith: "skill." } }, orderBy: { id: "asc" } });

describe("changing a skill", () => {
  it("an agent token proposes a candidate, but its update, delete and every status change is 403 naming the permission it lacks", async () => {
    const skill = await proposed();
    expect(skill).toMatchObject({ status: "candidate", version: 1 });
    for (const [path, input] of [
      ["skill.update", { skillId: skill.id, body: { steps: ["other"] } }],
      ["skill.delete", { skillId: skill.id }],
      ["skill.disable", { skillId: skill.id }],
      ["skill.enable", { skillId: skill.id }],
      ["skill.approve", { skillId: skill.id }],
    ] as const) {
      const r = await call(path, input, agent);
      expect(r.status, path).toBe(403);
      expect(r.message).toBe(`This needs the "run" permission of a person (operator, admin), not an agent: an agent token cannot call ${path}. Do it in the web app, signed in.`);
    }
    // No procedure validates a skill on an agent's word (the core validates from a run's use).
    const old = await fetch(`${api.url}/trpc/skill.recordValidation`, { method: "POST", headers: { ...agent, "content-type": "application/json" }, body: JSON.stringify({ json: { skillId: skill.id } }) });
    expect(old.status).toBe(404);
    expect(await t.db.skill.findUniqueOrThrow({ where: { id: skill.id } })).toMatchObject({ status: "candidate", version: 1, body: { steps: [] } });
    expect((await eventsOf(skill.id)).map((e) => e.operator)).toEqual(["skill.save"]);
  });

  it("a person's disable, enable, approve and delete work and are audited; enabling restores the status before, so Disable then Enable validates nothing", async () => {
    const skill = await proposed();
    const disabled = await call("skill.disable", { skillId: skill.id }, person.headers);
    expect(disabled.data).toMatchObject({ status: "disabled" });
    const enabled = await call("skill.enable", { skillId: skill.id }, person.headers);
    expect(enabled.data).toMatchObject({ status: "candidate" });
    const again = await call("skill.enable", { skillId: skill.id }, person.headers);
    expect(again.status).toBe(409);
    expect(again.message).toMatch(/is candidate, not disabled/);

    const approved = await call("skill.approve", { skillId: skill.id }, person.headers);
    expect(approved.data).toMatchObject({ status: "validated", version: 1 });
    await call("skill.disable", { skillId: skill.id }, person.headers);
    expect((await call("skill.enable", { skillId: skill.id }, person.headers)).data).toMatchObject({ status: "validated" });

    // Steps edited while disabled are the next version, which nobody confirmed: enabled as a candidate.
    await call("skill.disable", { skillId: skill.id }, person.headers);
    expect((await call("skill.update", { skillId: skill.id, body: { steps: ["edited"] } }, person.headers)).data).toMatchObject({ status: "disabled", version: 2 });
    expect((await call("skill.enable", { skillId: skill.id }, person.headers)).data).toMatchObject({ status: "candidate", version: 2 });

    const events = await eventsOf(skill.id);
    expect(events.map((e) => [e.operator, e.actor, (e.payload as { status?: string }).status ?? null])).toEqual([
      ["skill.save", expect.stringMatching(/^(agent_|token:)/), null],
      ["skill.disable", person.userId, "disabled"],
      ["skill.enable", person.userId, "candidate"],
      ["skill.approve", person.userId, "validated"],
      ["skill.disable", person.userId, "disabled"],
      ["skill.enable", person.userId, "validated"],
      ["skill.disable", person.userId, "disabled"],
      ["skill.update", person.userId, "disabled"],
      ["skill.enable", person.userId, "candidate"],
    ]);
    expect(events.find((e) => e.operator === "skill.approve")?.payload).toMatchObject({ statusBefore: "candidate", version: 1, by: "person", replayed: false, note: "A person approved this version; no replay was made." });

    expect((await call("skill.delete", { skillId: skill.id }, person.headers)).status).toBe(200);
    expect(await t.db.skill.findUnique({ where: { id: skill.id } })).toBeNull();
    expect((await eventsOf(skill.id)).at(-1)).toMatchObject({ operator: "skill.delete", actor: person.userId });
  });
});
