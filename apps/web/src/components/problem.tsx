"use client";
import type { LoadProblem } from "../lib/api.tsx";
import styles from "./problem.module.css";

/** What went wrong and what to do about it. */
export function Problem({ problem, apiUrl, what }: { problem: LoadProblem; apiUrl: string; what: string }) {
  if (problem.kind === "unreachable") {
    return (
      <section className={styles.problem} role="alert">
        <h2>Cannot reach the PhoneLoop API</h2>
        <p>
          Tried <code>{apiUrl}</code> to load {what} and got no answer ({problem.message}). Start the API, and this page
          reconnects by itself:
        </p>
        <pre>DATABASE_URL=postgresql://… npm run start --workspace @phoneloop/api</pre>
        <p className={styles.hint}>
          Or start everything with <code>npm start</code>. If the API runs elsewhere, start the web app with{" "}
          <code>NEXT_PUBLIC_API_URL</code> set to its address.
        </p>
      </section>
    );
  }
  return (
    <section className={styles.problem} role="alert">
      <h2>{problem.kind === "not_found" ? "Nothing here" : `Could not load ${what}`}</h2>
      <p>{problem.message}</p>
      <p className={styles.hint}>
        {problem.kind === "not_found"
          ? "Check the link, or pick a goal from the attention queue."
          : "The API refused the request; the message above says why. This page retries on the next change."}
      </p>
    </section>
  );
}
