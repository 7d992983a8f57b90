// Errors are values with a code and a message a user can act on. The API maps codes to tRPC codes.
export const StateErrorCode = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  ILLEGAL_TRANSITION: "ILLEGAL_TRANSITION",
  FORBIDDEN: "FORBIDDEN",
  INVALID_INPUT: "INVALID_INPUT",
  QUOTA_EXCEEDED: "QUOTA_EXCEEDED",
  PRECONDITION_FAILED: "PRECONDITION_FAILED",
} as const;
export type StateErrorCode = (typeof StateErrorCode)[keyof typeof StateErrorCode];

export class StateError extends Error {
  override readonly name = "StateError";
  constructor(
    readonly code: StateErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function isStateError(e: unknown): e is StateError {
  return e instanceof StateError;
}
