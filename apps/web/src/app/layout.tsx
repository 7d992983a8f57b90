import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { AccountBadge } from "../components/account/account-badge.tsx";
import { PhoneProvider } from "../components/device/phone-store.tsx";
import { RunnerProvider } from "../components/runner/runner-store.tsx";
import { SiteMenu } from "../components/ui/site-menu.tsx";
import { readEnv } from "../env.ts";
import { ApiProvider } from "../lib/api.tsx";
import { DataProvider } from "../lib/data-provider.tsx";
import "./globals.css";
import styles from "./layout.module.css";

export const metadata: Metadata = {
  title: "PhoneLoop",
  description: "Build, review and replay AI agents that operate Android phones.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The API address is read per request, so one build can point at any API.
  await connection();
  const { NEXT_PUBLIC_API_URL: apiUrl, DEMO_PHONE_URL: demoPhoneUrl } = readEnv();
  return (
    <html lang="en">
      <body>
        <ApiProvider apiUrl={apiUrl}>
          <DataProvider>
            {/* The tab's connected phone and its runner live as long as the tab, across pages. */}
            <PhoneProvider demoPhoneUrl={demoPhoneUrl}>
              <RunnerProvider>
                <header className={styles.header}>
                  <Link href="/" className={styles.brand}>
                    PhoneLoop
                  </Link>
                  <SiteMenu account={<AccountBadge />} />
                </header>
                <main className={styles.main}>{children}</main>
              </RunnerProvider>
            </PhoneProvider>
          </DataProvider>
        </ApiProvider>
      </body>
    </html>
  );
}
