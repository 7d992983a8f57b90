// GUI-Owl (Tongyi Lab, X-PLUG/MobileAgent Mobile-Agent-v3): a Qwen2.5-VL-based model offered the same `mobile_use`
// function in <tools>, with `answer` (report text the task asked for) in its action space; it writes its reasoning
// first (a "Thought:" paragraph or a <thinking> block), a one-line "Action:" summary, then one <tool_call>.
// Coordinates are absolute pixels of the image as it saw it after Qwen2.5-VL's smart resize (factor 28). Follows
// X-PLUG/MobileAgent Mobile-Agent-v3 (GUI-Owl-7B/32B release, 2025-08, and its mobile code, 2025-09); re-written.
import { imageSizeFor, type CoordinateFrame } from "./frame.ts";
import { oneTurn, taskLines, type ModelAdapter } from "./port.ts";
import { mobileUseSystem, mobileUseTool, readToolCalls } from "./qwen-vl.ts";

const FRAME: CoordinateFrame = { kind: "image-pixels" };

const PREFACE = `You are a GUI agent operating an Android phone. Each turn you get the task, your earlier steps and the screenshot.
Answer in this order: "Thought:" your reasoning about the screen and the next step; "Action:" one sentence naming the action and its target; then one mobile_use call.`;

const system = (w: number | string, h: number | string) => mobileUseSystem(mobileUseTool(`The screen's resolution is ${w}x${h}; coordinates are pixels of it.`, true), PREFACE);

/** The reasoning: a <thinking> block, else the Thought paragraph (the Action line is the summary, kept if alone). */
function thoughtOf(reply: string): string | undefined {
  const thinking = /<thinking>([\s\S]*?)<\/thinking>/.exec(reply)?.[1]?.trim();
  if (thinking) return thinking.slice(0, 2000);
  const head = reply.split("<tool_call>")[0]!;
  const thought = /Thought\s*:\s*([\s\S]*?)(?=\n\s*Action\s*:|$)/.exec(head)?.[1]?.trim();
  const action = /Action\s*:\s*([^\n]*)/.exec(head)?.[1]?.trim();
  return (thought || action || "").slice(0, 2000) || undefined;
}

export const guiOwlAdapter: ModelAdapter = {
  descriptor: {
    id: "gui-owl",
    family: "GUI-Owl (Mobile-Agent-v3)",
    version: "GUI-Owl-7B/32B (2025-08)",
    source: "X-PLUG/MobileAgent, Mobile-Agent-v3 (2025-08, mobile code 2025-09)",
    image: { kind: "smart-resize", factor: 28, patchSize: 14, minPixels: 3136, maxPixels: 12845056 },
    frame: FRAME,
    tokenFormula: "qwen-vl",
    replyStyle: "text",
  },
  systemPrompt: system("{width}", "{height}"),
  messages: (input) => {
    // The size the model works in: its processor resizes whatever it is sent by the same rule.
    const seen = imageSizeFor(guiOwlAdapter.descriptor.image, input.image);
    return oneTurn(system(seen.width, seen.height), taskLines(input, { elements: false }).join("\n"), input.image);
  },
  read: (reply, screen) => readToolCalls(reply, screen, FRAME, thoughtOf(reply)),
};
