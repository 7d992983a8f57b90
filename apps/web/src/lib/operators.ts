"use client";
// The operators a person calls from the board, the attention queue and the gate page: each one a tRPC mutation
// whose outcome is a toast in words (what happened, or what went wrong and what to do).
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { describeProblem, useApi } from "./api.tsx";
import { useTRPC } from "./trpc.ts";

export function useOperators() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { apiUrl } = useApi();
  // Our own change shows at once; the event stream brings everyone else's.
  const settled = {
    onSuccess: () => void queryClient.invalidateQueries({ predicate: (q) => Array.isArray(q.queryKey[0]) }),
    onError: (e: unknown) => {
      toast.error(describeProblem(e, apiUrl).message);
    },
  };
  return {
    block: useMutation({ ...trpc.todo.block.mutationOptions(), ...settled }),
    reopen: useMutation({ ...trpc.todo.reopen.mutationOptions(), ...settled }),
    add: useMutation({ ...trpc.todo.add.mutationOptions(), ...settled }),
    replan: useMutation({ ...trpc.todo.replan.mutationOptions(), ...settled }),
    completeGoal: useMutation({ ...trpc.goal.complete.mutationOptions(), ...settled }),
    resolveGate: useMutation({ ...trpc.gate.resolve.mutationOptions(), ...settled }),
  };
}

/** A fresh idempotency key for a replan this person asks for once. */
export function replanKey(what: string): string {
  return `web:${what}:${crypto.randomUUID()}`;
}
