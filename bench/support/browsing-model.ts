// The scripted executor the step and fleet benchmarks drive the social app with: it browses the feed — dismisses
// popups, opens posts, goes back, scrolls — a realistic mix of steps, then says the todo is complete after `steps`.
import { fencedRegions } from "@phoneloop/agent";
import type { RecordedRequest, ScriptedReply } from "@phoneloop/agent/testing";

const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });

/** The id (`[n]`) of the first line of the request's screen that passes `test`. */
function indexOf(req: RecordedRequest, test: (line: string) => boolean): string | undefined {
  const screen = fencedRegions(req.lastUserText).at(-1) ?? "";
  for (const line of screen.split("\n")) if (test(line)) return /^\[(\d+)\]/.exec(line)?.[1];
  return undefined;
}

export function browsingModel(steps: number) {
  let n = 0;
  return (req: RecordedRequest): ScriptedReply => {
    n++;
    if (n > steps) return reply({ type: "status", status: "complete", summary: "benchmark done" });
    for (const id of ["update_later", "login_wall_not_now", "follow_not_now"]) {
      const i = indexOf(req, (l) => l.includes(`id=${id}`));
      if (i) return reply({ type: "click", element: i, intent: "dismiss the popup" });
    }
    if (indexOf(req, (l) => l.includes("id=body"))) return reply({ type: "navigate_back", intent: "back to the list" });
    if (n % 4 === 0) return reply({ type: "scroll", direction: n % 8 === 0 ? "up" : "down", intent: "browse" });
    const posts: string[] = [];
    for (const line of (fencedRegions(req.lastUserText).at(-1) ?? "").split("\n")) if (/^\[\d+\] LinearLayout/.test(line)) posts.push(/^\[(\d+)\]/.exec(line)![1]!);
    if (posts.length) return reply({ type: "click", element: posts[n % posts.length]!, intent: "open a post" });
    return reply({ type: "navigate_back", intent: "back" });
  };
}
