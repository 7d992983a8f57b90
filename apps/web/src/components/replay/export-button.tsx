"use client";
// "Export": the whole run as one zip (replay-file.ts) saved by the browser, to open on any PhoneLoop at /runs/import.
import { Download } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import uiStyles from "../ui/ui.module.css";
import type { ReplaySource } from "./replay-data.ts";
import { exportReplay } from "./replay-file.ts";

export function ExportButton({ source, complete }: { source: ReplaySource; complete: boolean }) {
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    try {
      const zip = await exportReplay(source.header, source.steps, async (sha) => {
        const res = await fetch(source.screenUrl(sha), { credentials: "include" });
        if (!res.ok) throw new Error(`screenshot ${sha.slice(0, 12)}… answered ${res.status}: ${await res.text()}`);
        return { bytes: new Uint8Array(await res.arrayBuffer()), mime: res.headers.get("content-type") ?? "image/jpeg" };
      });
      const url = URL.createObjectURL(new Blob([zip as Uint8Array<ArrayBuffer>], { type: "application/zip" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `run-${source.header.run.id}.zip`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      toast.success(`Exported ${source.steps.length} steps. Open the file on any PhoneLoop under Runs → Import.`);
    } catch (e) {
      toast.error(`The export failed: ${e instanceof Error ? e.message : String(e)}. Try again; if the API is down, start it first.`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className={uiStyles.button} onClick={() => void run()} disabled={busy || !complete} title={complete ? undefined : "Waiting for every step to load"}>
      <Download size={14} aria-hidden /> {busy ? "Exporting…" : "Export"}
    </button>
  );
}
