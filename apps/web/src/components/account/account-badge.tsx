"use client";
// The signed-in shell's corner: who is signed in, their role in this workspace, and sign-out. A signed-out
// person on any other page is sent to sign in (the API would refuse their calls anyway).
import { usePathname, useRouter } from "next/navigation";
import { useEffect } from "react";
import { AUTH_PATH } from "@phoneloop/api/contract";
import { useApi } from "../../lib/api.tsx";
import { useSession } from "../../lib/session.tsx";
import styles from "./account.module.css";

/** Pages a signed-out person may open (an exported run opens in any browser: the file never leaves it). */
const OPEN_PAGES = ["/sign-in", "/setup", "/invite", "/share", "/runs/import"];

export function AccountBadge() {
  const session = useSession();
  const { apiUrl } = useApi();
  const router = useRouter();
  const pathname = usePathname();
  const open = OPEN_PAGES.some((p) => pathname === p || pathname.startsWith(`${p}/`));

  useEffect(() => {
    if (session.status === "signed-out" && !open) router.replace(`/sign-in?next=${encodeURIComponent(pathname)}`);
  }, [session.status, open, pathname, router]);

  if (session.status !== "signed-in") return null;
  const signOut = async () => {
    await fetch(`${apiUrl}${AUTH_PATH}/sign-out`, { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: "{}" });
    // A full load: nothing of the signed-out person's data stays in memory, and the event stream closes.
    window.location.assign("/sign-in");
  };
  const { person } = session;
  return (
    <div className={styles.badge} aria-label="Signed in">
      <span>
        <strong>{person.name}</strong> · {person.workspaceName}
      </span>
      <span className={styles.role} title="Your role in this workspace">
        {person.role}
      </span>
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
    </div>
  );
}
