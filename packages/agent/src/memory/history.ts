// The step history the executor sees: the last K steps verbatim, older ones folded into one summary line.
export interface StepSummary {
  index: number;
  action: string;
  outcome: string;
  anomalies?: string[];
}

export const DEFAULT_VERBATIM_STEPS = 4;

export function summariseOlder(steps: StepSummary[]): string {
  if (!steps.length) return "";
  const counts = new Map<string, number>();
  for (const s of steps) {
    const kind = s.action.split(" ")[0]!;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const notable = steps.filter((s) => s.outcome !== "ok" && s.outcome !== "screen changed").slice(-4);
  const anomalies = [...new Set(steps.flatMap((s) => s.anomalies ?? []))];
  const parts = [`steps ${steps[0]!.index + 1}-${steps.at(-1)!.index + 1}: ${[...counts].map(([k, n]) => `${n}x ${k}`).join(", ")}`];
  const typed = steps.filter((s) => s.action.startsWith("input_text") || s.action.startsWith("click_then_type")).map((s) => s.action.replace(/^\S+\s*/, ""));
  if (typed.length) parts.push(`typed ${typed.slice(-3).join(", ")}`);
  if (notable.length) parts.push(`notable: ${notable.map((s) => `#${s.index + 1} ${s.action} → ${s.outcome}`).join("; ")}`);
  if (anomalies.length) parts.push(`anomalies seen: ${anomalies.join(", ")}`);
  return parts.join("; ");
}

export function formatHistory(steps: StepSummary[], verbatim = DEFAULT_VERBATIM_STEPS): string {
  const older = steps.slice(0, Math.max(0, steps.length - verbatim));
  const recent = steps.slice(-verbatim);
  const lines: string[] = [];
  if (older.length) lines.push(`(earlier) ${summariseOlder(older)}`);
  for (const s of recent) lines.push(`#${s.index + 1} ${s.action} → ${s.outcome}${s.anomalies?.length ? ` [${s.anomalies.join(", ")}]` : ""}`);
  return lines.join("\n");
}
