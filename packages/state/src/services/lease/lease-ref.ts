// The holder names its lease by todo, agent and the lease key from claim (or transfer).
import { Id, IdempotencyKey } from "../../domain/schemas.ts";

export const LeaseRef = { todoId: Id, agentId: Id, leaseKey: IdempotencyKey };
