import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { readEnv } from "../env.ts";
import { ApiProvider } from "../lib/api.tsx";
import "./globals.css";
import styles from "./layout.module.css";

export const metadata: Metadata = {
  title: "PhoneLoop",
  description: "Build, review and replay AI agents that operate Android phones.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The API address is read per request, so one build can point at any API.
  await connection();
  const { NEXT_PUBLIC_API_URL: apiUrl } = readEnv();
  return (
    <html lang="en">
      <body>
        <header className={styles.header}>
          <Link href="/" className={styles.brand}>
            PhoneLoop
          </Link>
          <nav className={styles.nav}>
            <Link href="/">Attention</Link>
          </nav>
        </header>
        <main className={styles.main}>
          <ApiProvider apiUrl={apiUrl}>{children}</ApiProvider>
        </main>
      </body>
    </html>
  );
}
