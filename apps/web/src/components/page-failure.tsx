"use client";
import styles from "./problem.module.css";
import ui from "./ui/ui.module.css";

/** A script of this page could not be fetched: the build that served the page has been replaced since. */
function isStaleBuild(error: Error): boolean {
  return error.name === "ChunkLoadError" || /Loading (CSS )?chunk|Failed to (load|fetch dynamically imported) (chunk|module)/i.test(error.message);
}

/** What went wrong while the page rendered, and what to do: nothing is lost by reloading (the data lives in the core). */
export function PageFailure({ error, retry }: { error: Error & { digest?: string }; retry?: () => void }) {
  const stale = isStaleBuild(error);
  return (
    <section className={styles.problem} role="alert">
      <h2>{stale ? "PhoneLoop was updated while this page was open" : "This page stopped working"}</h2>
      <p>
        {stale
          ? "The page asked for a part of the app the new version no longer has. Reload to load the new version."
          : error.digest
            ? `The web server failed to render it (reference ${error.digest}; the server's log has the details).`
            : `Its code failed in this browser: ${error.message || error.name}.`}
      </p>
      <p className={styles.hint}>
        Goals, todos, gates and runs live in PhoneLoop&apos;s database, so reloading loses none of them. Reloading stops a run
        this tab drives; it can be resumed from the attention queue.
      </p>
      <p>
        <button type="button" className={`${ui.button} ${ui.primary}`} onClick={() => window.location.reload()}>
          Reload
        </button>{" "}
        {retry && !stale ? (
          <button type="button" className={ui.button} onClick={retry}>
            Try again without reloading
          </button>
        ) : null}
      </p>
    </section>
  );
}
