-- claimNext reads each active goal's first live todo (not done, not superseded) in plan order. This partial index
-- holds only live todos, in that order, so the read skips every finished todo. (Hand-written: Prisma's schema
-- cannot express a partial index; db:diff leaves it alone, like "Lease_one_active_per_todo".)
CREATE INDEX "Todo_live_goalId_position" ON "Todo"("goalId", "position", "createdAt", "id")
  WHERE "state" NOT IN ('done', 'superseded');

-- Without a goal, claimNext walks active goals oldest first and stops at the first that has an eligible todo.
CREATE INDEX "Goal_active_createdAt" ON "Goal"("createdAt", "id") WHERE "status" = 'active';
