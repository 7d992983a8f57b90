"use client";
// "Resume run here": takes a run up again on the phone connected in this tab — one left by another tab or worker,
// or one stopped for a cause that can go away. The core's run.resume decides whether it may (checked by role) and
// says what still stands in the way; that answer is shown as it is.
import { RotateCcw } from "lucide-react";
import { toast } from "sonner";
import { useConnectedPhone } from "../device/phone-store.tsx";
import ui from "../ui/ui.module.css";
import { useRunner } from "./runner-store.tsx";

export function ResumeRunButton({ runId }: { runId: string }) {
  const phone = useConnectedPhone();
  const runner = useRunner();
  return (
    <button
      type="button"
      className={ui.button}
      disabled={!phone || runner.busy}
      title={!phone ? "Connect the phone to run it on first." : runner.busy ? "This tab is running another goal; one run at a time per phone." : undefined}
      onClick={() => void runner.resumeRun(runId).catch((e: unknown) => toast.error(e instanceof Error ? e.message : String(e)))}
    >
      <RotateCcw size={14} aria-hidden /> Resume run here
    </button>
  );
}
