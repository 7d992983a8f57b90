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

  it("announce every appended event on the phoneloop_events channel", async () => {
    const fns = await t.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_trigger WHERE tgname = 'Event_id_at_commit'`; // it announces each id at commit
    expect(Number(fns[0]?.n)).toBe(1);
  });
});
