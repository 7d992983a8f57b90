import { describe, expect, it } from "vitest";
import { applyMigrations } from "./migrate.ts";
import { useTestDatabase } from "../testing/index.ts";

const t = useTestDatabase();

describe("migrations", () => {
  it("are recorded in Prisma's own table and re-running applies nothing", async () => {
    const rows = await t.db.$queryRaw<{ migration_name: string }[]>`SELECT migration_name FROM "_prisma_migrations"`;
    expect(rows.map((r) => r.migration_name)).toContain("20261129180000_state_core");
    const again = await applyMigrations(t.url);
    expect(again.applied).toEqual([]);
  });

  it("draw each Event's id at insert and write the row once: no trigger but the workspace's (before insert)", async () => {
    const triggers = await t.db.$queryRaw<{ tgname: string }[]>`
      SELECT tgname FROM pg_trigger WHERE tgrelid = '"Event"'::regclass AND NOT tgisinternal ORDER BY tgname`;
    expect(triggers.map((r) => r.tgname)).toEqual(["Event_workspace"]);
    const row = await t.db.event.create({ data: { operator: "test.touch", actor: "test", subjectId: "once" } });
    expect(row.id > 0n).toBe(true);
    expect((await t.db.event.findUniqueOrThrow({ where: { id: row.id } })).subjectId).toBe("once");
  });
});
