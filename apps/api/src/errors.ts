// State errors are values with a code; here they become tRPC errors with the matching HTTP status and the
// state's own message, which already says what to do.
import { TRPCError } from "@trpc/server";
import { isStateError, type StateErrorCode } from "@phoneloop/state";

type TRPCCode = TRPCError["code"];

export const STATE_TO_TRPC_CODE = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  ILLEGAL_TRANSITION: "PRECONDITION_FAILED",
  FORBIDDEN: "FORBIDDEN",
  INVALID_INPUT: "BAD_REQUEST",
  QUOTA_EXCEEDED: "TOO_MANY_REQUESTS",
  PRECONDITION_FAILED: "PRECONDITION_FAILED",
} as const satisfies Record<StateErrorCode, TRPCCode>;

/** The tRPC error for a failure the caller can act on, or undefined for a bug (left as a 500). */
export function toTRPCError(cause: unknown): TRPCError | undefined {
  if (cause instanceof TRPCError) return cause;
  if (isStateError(cause)) {
    return new TRPCError({ code: STATE_TO_TRPC_CODE[cause.code], message: cause.message, cause });
  }
  const prisma = prismaKnownError(cause);
  if (prisma) {
    // Operators check their own preconditions; these are the races that slip between a check and a write.
    switch (prisma.code) {
      case "P2002":
        return new TRPCError({ code: "CONFLICT", message: "That record was just created by another request; read it again and retry.", cause });
      case "P2003":
        return new TRPCError({ code: "NOT_FOUND", message: "The input refers to a record that does not exist; check the ids.", cause });
      case "P2025":
        return new TRPCError({ code: "NOT_FOUND", message: "The record was not found; it may have been removed. Check the id.", cause });
      case "P2034":
        return new TRPCError({ code: "CONFLICT", message: "Another change to the same record won the race; read it again and retry.", cause });
    }
  }
  return undefined;
}

function prismaKnownError(e: unknown): { code: string } | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const { name, code } = e as { name?: unknown; code?: unknown };
  return name === "PrismaClientKnownRequestError" && typeof code === "string" ? { code } : undefined;
}

export interface InputIssue {
  path: string;
  message: string;
}

/** Issues of a failed input validation (zod or any Standard Schema), with dotted paths. */
export function inputIssues(cause: unknown): InputIssue[] | undefined {
  if (typeof cause !== "object" || cause === null || !("issues" in cause)) return undefined;
  const issues = (cause as { issues: unknown }).issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((issue: { message?: unknown; path?: unknown }) => ({
    path: formatPath(issue.path),
    message: typeof issue.message === "string" ? issue.message : "invalid",
  }));
}

// Zod gives a path as an array (Standard Schema as keys or {key}); operators' own issues give a string.
function formatPath(path: unknown): string {
  if (typeof path === "string") return path || "(input)";
  if (!Array.isArray(path)) return "(input)";
  const parts = path.map((p) => (typeof p === "object" && p !== null && "key" in p ? (p as { key: unknown }).key : p));
  return parts.length === 0 ? "(input)" : parts.map(String).join(".");
}

export function describeIssues(issues: InputIssue[]): string {
  const shown = issues.slice(0, 5).map((i) => `${i.path}: ${i.message}`);
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : "";
  return `Invalid input — ${shown.join("; ")}${more}`;
}
