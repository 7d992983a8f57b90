-- Hand-written. claimNext walked every active goal oldest first and looked up each one's first live todo, so a
-- workspace's finished goals (active, every todo done or superseded) cost every claim a lookup each. ClaimOrder
-- holds one row per goal that has had a todo: the goal's place in the claim order (workspace, createdAt, id)
-- and how many of its todos are live (not done or superseded). The claim walks only the rows of the partial index
-- below — goals with a live todo — and applies its rules (the goal active, its first live todo, …) as before.
--
-- The triggers keep it, so no writer of todos or goals can forget it. A todo is live when inserted unless it is
-- done or superseded, and those states are final, so the count moves by +1 per live todo inserted and -1 per todo
-- that becomes done or superseded (or is deleted live). Each move is an increment under the row's lock, never a
-- recount from a snapshot, so concurrent transactions on one goal add up exactly. Only a todo's insert, its end
-- or its delete takes the row's lock, after the todo's own (lock order: Goal, Todo, ClaimOrder); nothing here
-- locks the Goal row and a goal's status is not copied here (the claim reads it from Goal), so planners and goal
-- transitions, which lock the goal and then its todos, never wait in a cycle with a todo's holder.
CREATE TABLE "ClaimOrder" (
    "goalId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "goalCreatedAt" TIMESTAMPTZ(3) NOT NULL,
    "liveTodos" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ClaimOrder_pkey" PRIMARY KEY ("goalId")
);
ALTER TABLE "ClaimOrder" ADD CONSTRAINT "ClaimOrder_goalId_fkey" FOREIGN KEY ("goalId") REFERENCES "Goal"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Only goals with a live todo, in claim order within a workspace (Prisma's schema cannot express a partial
-- index; db:diff leaves it alone, like "Todo_live_goalId_position").
CREATE INDEX "ClaimOrder_ready" ON "ClaimOrder"("workspaceId", "goalCreatedAt", "goalId") WHERE "liveTodos" > 0;

INSERT INTO "ClaimOrder" ("goalId", "workspaceId", "goalCreatedAt", "liveTodos")
SELECT g."id", g."workspaceId", g."createdAt",
       (SELECT count(*) FROM "Todo" t WHERE t."goalId" = g."id" AND t."state" NOT IN ('done', 'superseded'))
FROM "Goal" g WHERE EXISTS (SELECT 1 FROM "Todo" t WHERE t."goalId" = g."id");

-- Todos inserted: per goal, its row (made from the goal when it has none) counts the live ones.
CREATE FUNCTION "phoneloop_claim_order_insert"() RETURNS trigger AS $$
BEGIN
  INSERT INTO "ClaimOrder" ("goalId", "workspaceId", "goalCreatedAt", "liveTodos")
  SELECT g."id", g."workspaceId", g."createdAt", n."live"
  FROM (SELECT "goalId", count(*) FILTER (WHERE "state" NOT IN ('done', 'superseded'))::int AS "live" FROM "new_todos" GROUP BY "goalId") n
    JOIN "Goal" g ON g."id" = n."goalId"
  ON CONFLICT ("goalId") DO UPDATE SET "liveTodos" = "ClaimOrder"."liveTodos" + EXCLUDED."liveTodos" WHERE EXCLUDED."liveTodos" <> 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "Todo_claim_order_insert" AFTER INSERT ON "Todo" REFERENCING NEW TABLE AS "new_todos"
  FOR EACH STATEMENT EXECUTE FUNCTION "phoneloop_claim_order_insert"();

-- A todo that becomes done or superseded (the WHEN clause: only a change of liveness runs it; a claim or a start
-- does not touch the row).
CREATE FUNCTION "phoneloop_claim_order_update"() RETURNS trigger AS $$
BEGIN
  UPDATE "ClaimOrder" SET "liveTodos" = "liveTodos" + CASE WHEN NEW."state" IN ('done', 'superseded') THEN -1 ELSE 1 END
  WHERE "goalId" = NEW."goalId";
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "Todo_claim_order_update" AFTER UPDATE OF "state" ON "Todo" FOR EACH ROW
  WHEN ((OLD."state" IN ('done', 'superseded')) IS DISTINCT FROM (NEW."state" IN ('done', 'superseded')))
  EXECUTE FUNCTION "phoneloop_claim_order_update"();

-- Todos are never deleted, except with their goal (whose row goes with it); a live one deleted otherwise leaves.
CREATE FUNCTION "phoneloop_claim_order_delete"() RETURNS trigger AS $$
BEGIN
  UPDATE "ClaimOrder" c SET "liveTodos" = c."liveTodos" - n."live"
  FROM (SELECT "goalId", count(*)::int AS "live" FROM "old_todos" WHERE "state" NOT IN ('done', 'superseded') GROUP BY "goalId") n
  WHERE c."goalId" = n."goalId";
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER "Todo_claim_order_delete" AFTER DELETE ON "Todo" REFERENCING OLD TABLE AS "old_todos"
  FOR EACH STATEMENT EXECUTE FUNCTION "phoneloop_claim_order_delete"();
