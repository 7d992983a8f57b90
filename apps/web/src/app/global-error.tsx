"use client";
// What the browser shows when the shell itself (the root layout) throws: it replaces the whole document, so it
// brings its own <html>; the app's global stylesheet (fonts, colours) is not loaded there, so it sets its own.
import { useEffect } from "react";
import { PageFailure } from "../components/page-failure.tsx";

export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  useEffect(() => console.error(error), [error]);
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: 0, padding: 32 }}>
        <main>
          <PageFailure error={error} />
        </main>
      </body>
    </html>
  );
}
