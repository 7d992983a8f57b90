"use client";
// THE place where the signed-in person and their role plug in: the API's GET /api/account/me answers who the
// session cookie belongs to, and every page asks `useSession()` what this person may do, showing only those
// operators. (The sign-in pages and the shell that shows the person build on this.)
import { useQuery } from "@tanstack/react-query";
import { ACCOUNT_PATH } from "@phoneloop/api/contract";
import { holds, type Permission, type Role } from "@phoneloop/state/domain";
import { createContext, useContext, type ReactNode } from "react";
import { useApi } from "./api.tsx";

export interface Person {
  userId: string;
  name: string;
  email: string;
  role: Role;
  workspaceId: string;
  workspaceName: string;
}

export type Session =
  /** Not known yet, or the API cannot be reached: operators stay visible and the API's answer says who may. */
  | { status: "unknown" }
  | { status: "signed-out" }
  | { status: "signed-in"; person: Person };

const SessionContext = createContext<Session>({ status: "unknown" });

export function SessionProvider({ children }: { children: ReactNode }) {
  const { apiUrl } = useApi();
  const me = useQuery({
    queryKey: ["session", apiUrl],
    queryFn: async (): Promise<Session> => {
      const res = await fetch(`${apiUrl}${ACCOUNT_PATH}/me`, { credentials: "include" });
      if (res.status === 401) return { status: "signed-out" };
      if (!res.ok) throw new Error(`GET ${ACCOUNT_PATH}/me answered ${res.status}`);
      return { status: "signed-in", person: (await res.json()) as Person };
    },
    staleTime: 60_000,
  });
  return <SessionContext.Provider value={me.data ?? { status: "unknown" }}>{children}</SessionContext.Provider>;
}

export function useSession(): Session & { may(permission: Permission): boolean } {
  const session = useContext(SessionContext);
  return {
    ...session,
    may: (permission) => (session.status === "signed-in" ? holds(session.person.role, permission) : session.status === "unknown"),
  };
}
