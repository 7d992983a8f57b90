// The pure word lists of domain/ and the enums Prisma generates from prisma/schema.prisma are one vocabulary:
// equal as types (tsc fails otherwise) and as values (in order). domain/ itself never imports the generated client.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as Prisma from "../generated/prisma/enums.ts";
import * as Domain from "./index.ts";

describe("one vocabulary: domain lists = Prisma enums", () => {
  const pairs: [string, readonly string[], Record<string, string>][] = [
    ["GoalStatus", Domain.GOAL_STATUSES, Prisma.GoalStatus],
    ["TodoState", Domain.TODO_STATES, Prisma.TodoState],
    ["TodoKind", Domain.TODO_KINDS, Prisma.TodoKind],
    ["AgentKind", Domain.AGENT_KINDS, Prisma.AgentKind],
    ["TurnResultKind", Domain.TURN_RESULT_KINDS, Prisma.TurnResultKind],
    ["LeaseStatus", Domain.LEASE_STATUSES, Prisma.LeaseStatus],
    ["GateStatus", Domain.GATE_STATUSES, Prisma.GateStatus],
    ["EvidenceKind", Domain.EVIDENCE_KINDS, Prisma.EvidenceKind],
    ["RunStatus", Domain.RUN_STATUSES, Prisma.RunStatus],
    ["Role", Domain.ROLES, Prisma.Role],
  ];
  for (const [name, list, generated] of pairs) {
    it(`${name}`, () => expect([...list]).toEqual(Object.values(generated)));
  }

  it("as types", () => {
    expectTypeOf<Domain.GoalStatus>().toEqualTypeOf<Prisma.GoalStatus>();
    expectTypeOf<Domain.TodoState>().toEqualTypeOf<Prisma.TodoState>();
    expectTypeOf<Domain.TodoKind>().toEqualTypeOf<Prisma.TodoKind>();
    expectTypeOf<Domain.AgentKind>().toEqualTypeOf<Prisma.AgentKind>();
    expectTypeOf<Domain.TurnResultKind>().toEqualTypeOf<Prisma.TurnResultKind>();
    expectTypeOf<Domain.LeaseStatus>().toEqualTypeOf<Prisma.LeaseStatus>();
    expectTypeOf<Domain.GateStatus>().toEqualTypeOf<Prisma.GateStatus>();
    expectTypeOf<Domain.EvidenceKind>().toEqualTypeOf<Prisma.EvidenceKind>();
    expectTypeOf<Domain.RunStatus>().toEqualTypeOf<Prisma.RunStatus>();
    expectTypeOf<Domain.Role>().toEqualTypeOf<Prisma.Role>();
  });

  it("run end reasons are the runtime's words, each once", () => {
    expect([...Domain.RUN_END_REASONS]).toEqual([
      "completed",
      "all_done",
      "device_lost",
      "gate_waiting",
      "goal_paused",
      "goal_cancelled",
      "exhausted",
      "throttled",
      "cancelled",
      "step_cap",
      "scroll_streak",
      "run_step_cap",
      "model_failed",
      "lease_lost",
      "todo_blocked",
      "infeasible",
      "writeback_failed",
      "wip_limit",
    ]);
    expect(Domain.RunEndReasonSchema.safeParse("stuck").success).toBe(false);
  });

  it("domain/ imports nothing but itself and zod (browser-safe)", () => {
    const dir = new URL(".", import.meta.url);
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))) {
      const source = readFileSync(new URL(file, dir), "utf8");
      const imports = [...source.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!);
      for (const spec of imports) expect(spec === "zod" || spec.startsWith("./"), `${file} imports ${spec}`).toBe(true);
    }
  });
});
