"use client";
// What a page shows when its code throws while it renders (inside the shell, so the header and navigation stay).
// The most common cause is PhoneLoop being rebuilt or restarted while the tab was open: the tab then asks for
// scripts the new build no longer has, and only a reload fetches the new ones.
import { useEffect } from "react";
import { PageFailure } from "../components/page-failure.tsx";

export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  useEffect(() => console.error(error), [error]);
  return <PageFailure error={error} retry={reset} />;
}
