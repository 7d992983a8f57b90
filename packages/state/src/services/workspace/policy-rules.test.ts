import { describe, expect, it } from "vitest";
import { useTestDatabase, seedWorkspace } from "../../testing/index.ts";
import type { StateError } from "../../domain/errors.ts";
import { currentPolicyRules, savePolicyRules } from "./policy-rules.ts";

const t = useTestDatabase();

const err = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as StateError);

describe("policy rules per workspace", () => {
  it("each save is the next version; the newest is in force; the save is an Event", async () => {
    const { workspace, admin } = await seedWorkspace(t.db, "Policy");
    expect(await currentPolicyRules(t.db, { workspaceId: workspace.id })).toBeNull();
    const v1 = await savePolicyRules(t.db, { workspaceId: workspace.id, rules: { words: { money: ["zahlen"] } } }, { actor: admin.id });
    const v2 = await savePolicyRules(t.db, { workspaceId: workspace.id, rules: { words: { money: ["zahlen", "spenden"] } } }, { actor: admin.id });
    expect([v1.version, v2.version]).toEqual([1, 2]);
    expect(v2.createdBy).toBe(admin.id);
    expect(await currentPolicyRules(t.db, { workspaceId: workspace.id })).toMatchObject({ version: 2, rules: { words: { money: ["zahlen", "spenden"] } } });
    const rows = await t.db.policyRules.findMany({ where: { workspaceId: workspace.id }, orderBy: { version: "asc" } });
    expect(rows.map((r) => r.rules)).toEqual([{ words: { money: ["zahlen"] } }, { words: { money: ["zahlen", "spenden"] } }]);
    const events = await t.db.event.findMany({ where: { workspaceId: workspace.id, operator: "policy.save" }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.payload)).toEqual([{ version: 1 }, { version: 2 }]);
  });

  it("concurrent saves get distinct versions", async () => {
    const { workspace } = await seedWorkspace(t.db, "Busy");
    const saved = await Promise.all([1, 2, 3, 4].map((n) => savePolicyRules(t.db, { workspaceId: workspace.id, rules: { alwaysAsk: [{ label: `w${n}` }] } })));
    expect(saved.map((s) => s.version).sort()).toEqual([1, 2, 3, 4]);
  });

  it("versions are per workspace and another workspace's rules are not seen", async () => {
    const a = await seedWorkspace(t.db, "A");
    const b = await seedWorkspace(t.db, "B");
    await savePolicyRules(t.db, { workspaceId: a.workspace.id, rules: { words: { destructive: ["ausradieren"] } } });
    await savePolicyRules(t.db, { workspaceId: a.workspace.id, rules: {} });
    expect(await currentPolicyRules(t.db, { workspaceId: b.workspace.id })).toBeNull();
    expect((await savePolicyRules(t.db, { workspaceId: b.workspace.id, rules: {} })).version).toBe(1);
    expect((await currentPolicyRules(t.db, { workspaceId: a.workspace.id }))?.version).toBe(2);
  });

  it("refuses a non-object, rules over the JSON caps, an unknown workspace, and rewriting a version", async () => {
    const { workspace } = await seedWorkspace(t.db, "Caps");
    expect((await err(savePolicyRules(t.db, { workspaceId: workspace.id, rules: ["money"] as unknown as Record<string, unknown> })))?.code).toBe("INVALID_INPUT");
    expect((await err(savePolicyRules(t.db, { workspaceId: workspace.id, rules: { words: { money: ["x".repeat(300 * 1024)] } } })))?.code).toBe("INVALID_INPUT");
    expect((await err(savePolicyRules(t.db, { workspaceId: "ws_missing", rules: {} })))?.code).toBe("NOT_FOUND");
    const saved = await savePolicyRules(t.db, { workspaceId: workspace.id, rules: {} });
    await expect(t.db.policyRules.updateMany({ where: { workspaceId: workspace.id, version: saved.version }, data: { rules: { words: {} } } })).rejects.toThrow(/append-only/);
  });
});
