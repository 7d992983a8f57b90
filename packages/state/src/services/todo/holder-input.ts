// Input fields shared by the holder's operators on a todo.
import { z } from "zod";
import { Id, IdempotencyKey, JsonObject, Text } from "../../domain/schemas.ts";

/** Names the todo and, while it is held, the lease that fences the write. */
export const HolderFields = {
  todoId: Id,
  agentId: Id.optional(),
  /** The lease's idempotency key from claim (or transfer); required while the todo is claimed, running or validating. */
  leaseKey: IdempotencyKey.optional(),
};

export const WritebackFields = {
  ...HolderFields,
  agentId: Id,
  leaseKey: IdempotencyKey,
  /** Merged into the todo's values (the todo's declared outputs usually land here). */
  values: JsonObject.optional(),
  outputs: z.array(Text.max(200)).optional(),
  result: Text.max(2000).optional(),
};

