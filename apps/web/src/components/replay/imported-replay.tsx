"use client";
// An exported run opened from its file, in this browser only: read-only, nothing is sent to the API. The
// screenshots come from the file (object URLs), checked against their sha256 first.
import { useEffect, useMemo, useState } from "react";
import uiStyles from "../ui/ui.module.css";
import type { ReplaySource } from "./replay-data.ts";
import { importReplay, ReplayFileError, type ImportedReplay } from "./replay-file.ts";
import { ReplayView } from "./replay-view.tsx";
import styles from "./replay.module.css";

export function ImportedReplayView() {
  const [replay, setReplay] = useState<(ImportedReplay & { fileName: string }) | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The picker takes a file only once the page runs its scripts (a file chosen before would be ignored).
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  useEffect(() => () => replay?.urls.forEach((u) => URL.revokeObjectURL(u)), [replay]);
  const source = useMemo(
    (): ReplaySource | null => (replay ? { header: replay.header, steps: replay.steps, screenUrl: (sha) => replay.urls.get(sha) ?? "", loading: false } : null),
    [replay],
  );
  const open = async (file: File) => {
    setBusy(true);
    setError(null);
    try {
      const imported = await importReplay(new Uint8Array(await file.arrayBuffer()));
      setReplay({ ...imported, fileName: file.name });
    } catch (e) {
      setError(e instanceof ReplayFileError ? e.message : `The file could not be read: ${e instanceof Error ? e.message : String(e)}. Choose the file again.`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className={uiStyles.page}>
      <section className={styles.section} aria-labelledby="import-title">
        <h1 id="import-title" style={{ fontSize: 20, marginBottom: 6 }}>
          Open an exported run
        </h1>
        <p className={styles.small}>
          A run exported from any PhoneLoop (“Export” on its page, a <code>run-….zip</code>) opens here read-only. The file stays in this browser.
        </p>
        <label className={uiStyles.field}>
          Exported run (.zip)
          <input type="file" accept=".zip,application/zip" disabled={!ready || busy} onChange={(e) => e.target.files?.[0] && void open(e.target.files[0])} data-testid="import-file" />
        </label>
        {busy ? <p>Reading the file…</p> : null}
        {error ? (
          <p role="alert" data-testid="import-error">
            {error}
          </p>
        ) : null}
      </section>
      {source && replay ? <ReplayView source={source} origin={`Imported from ${replay.fileName} · exported ${new Date(replay.exportedAt).toLocaleString("en-GB")} · read-only`} /> : null}
    </div>
  );
}
