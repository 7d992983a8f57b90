// Every model adapter drives a pack task to an evaluator score of 1, end to end: the headless composition (the real
// runtime, packages/client's ControlPlane over the real API on a throwaway database), the virtual phone over real
// ADB, the planner and summarizer on the reference policy's endpoint, and the executor role set to the adapter by
// the headless agent's --executor-adapter flag, with a scripted endpoint that answers IN THAT ADAPTER'S FORMAT.
//
// The scripted executor is a model with perfect eyes: it sees the screen the screenshot draws (the phone's own UI
// tree at the moment it is asked — most of these families are sent no tree) and the image it was sent (its size,
// read from the request's image bytes). The reference policy decides the move from the todo, the history and that
// tree; the scripted model aims at the centre of the chosen element in device pixels and writes the point in its
// family's frame by the family's published rule, written here from the families' documentation and not from the
// runtime's frame code: normalised 0–1000 (the product's language, tool calls, UI-TARS 1.0 and 2, Qwen3-VL),
// 0–999 (AutoGLM-Phone), or absolute pixels of the image as the model saw it after Qwen2.5-VL's smart resize of
// the image it was sent (Qwen2.5-VL, UI-TARS-1.5, GUI-Owl). A model writes integers. Back on the device, a value v
// of a frame spanning [0, S] (S = max, or the seen image's side − 1) is pixel round(v / S · (D − 1)) — the far edge
// is the device's last pixel. Each tap the run recorded must be that pixel, exactly, and inside the element aimed
// at: a mistake in the runtime's frame mapping or image rule moves it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FENCE_TAG, MODEL_ADAPTERS, type ModelAdapter } from "@phoneloop/agent";
import type { RecordedRequest, ScriptedReply } from "@phoneloop/agent/testing";
import { REFERENCE_POLICY_MODEL, answerRequest, startReferencePolicyServer, type ReferencePolicyServer } from "@phoneloop/reference-policy";
import { readEvidenceData } from "@phoneloop/state/domain";
import { parseDump, type DumpNode, type PhoneEngine } from "@phoneloop/virtual-phone";
import { readEnv } from "../env.ts";
import { useHeadlessE2e } from "../testing/headless-e2e.ts";
import { runHeadless } from "./compose.ts";
import { parseAgentArgs } from "./options.ts";

/** A form task of the pack: open Notes, tap "New note", type a title and a body, close the keyboard, tap Save. */
const TASK = "notes_create";

const { t, api, ...e2e } = useHeadlessE2e("adapters-e2e");
let policy: ReferencePolicyServer;
beforeAll(async () => {
  policy = await startReferencePolicyServer();
});
afterAll(async () => {
  await policy?.stop();
});

async function phone(seed: number) {
  const p = await e2e.phone({ scenario: "social", seed, task: TASK });
  return { engine: p.engine, device: p.device, goal: p.goal };
}

// ---------- what the model saw ----------

interface Size {
  width: number;
  height: number;
}

/** The size of a PNG or JPEG from its header. */
function imageSize(bytes: Buffer): Size {
  if (bytes.subarray(1, 4).toString("latin1") === "PNG") return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    for (let i = 2; i + 9 < bytes.length; ) {
      const marker = bytes[i + 1]!;
      const length = bytes.readUInt16BE(i + 2);
      // SOF0–SOF15 (not DHT C4, JPG C8, DAC CC) carry the frame's height and width.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { width: bytes.readUInt16BE(i + 7), height: bytes.readUInt16BE(i + 5) };
      i += 2 + length;
    }
  }
  throw new Error("the request's image is neither a PNG nor a JPEG");
}

/** The one image of the request's last user turn, as sent. */
function sentImage(req: RecordedRequest): Size {
  const user = [...req.messages].reverse().find((m) => m.role === "user");
  const part = (Array.isArray(user?.content) ? (user.content as { type?: string; image_url?: { url?: string } }[]) : []).find((p) => p.type === "image_url");
  const url = part?.image_url?.url ?? "";
  const base64 = /^data:image\/[a-z]+;base64,(.*)$/s.exec(url)?.[1];
  if (!base64) throw new Error("the executor request carries no inline screenshot");
  return imageSize(Buffer.from(base64, "base64"));
}

/**
 * Qwen2.5-VL's processor resize (qwen-vl-utils smart_resize): each side to the nearest multiple of the factor, then,
 * if the pixel count leaves [min, max], both sides scaled by one factor (floored to multiples when shrinking,
 * ceiled when growing) keeping the aspect ratio.
 */
function qwenSmartResize(s: Size, factor: number, minPixels: number, maxPixels: number): Size {
  let h = Math.max(factor, Math.round(s.height / factor) * factor);
  let w = Math.max(factor, Math.round(s.width / factor) * factor);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((s.height * s.width) / maxPixels);
    h = Math.max(factor, Math.floor(s.height / beta / factor) * factor);
    w = Math.max(factor, Math.floor(s.width / beta / factor) * factor);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (s.height * s.width));
    h = Math.ceil((s.height * beta) / factor) * factor;
    w = Math.ceil((s.width * beta) / factor) * factor;
  }
  return { width: w, height: h };
}

/** Each adapter's frame as its family documents it: the extent of a point's numbers for the image the model saw. */
function frameSpan(adapter: ModelAdapter, sent: Size): { span: Size; seen?: Size } {
  const key = `${adapter.descriptor.id} ${adapter.descriptor.version}`;
  const normalised = (max: number) => ({ span: { width: max, height: max } });
  const pixelsAfterResize = (minPixels: number, maxPixels: number) => {
    const seen = qwenSmartResize(sent, 28, minPixels, maxPixels);
    return { span: { width: seen.width - 1, height: seen.height - 1 }, seen };
  };
  if (key.startsWith("phoneloop ") || key.startsWith("tool-calls ") || key === "ui-tars 1.0" || key === "ui-tars 2" || key === "qwen-vl 3") return normalised(1000);
  if (key.startsWith("autoglm-phone ")) return normalised(999);
  if (key === "ui-tars 1.5") return pixelsAfterResize(100 * 28 * 28, 16384 * 28 * 28);
  if (key === "qwen-vl 2.5" || key.startsWith("gui-owl ")) return pixelsAfterResize(4 * 28 * 28, 16384 * 28 * 28);
  throw new Error(`no documented frame for the adapter ${key}: add it to this test`);
}

// ---------- the reference policy's move, from the tree the screenshot draws ----------

/** The screen's elements a model can see and aim at: those with text, a description, an id, or a tap. */
function elementsOf(engine: PhoneEngine): DumpNode[] {
  return parseDump(engine.uiDump()).filter((n) => n.text || n.desc || n.attrs.clickable === "true" || n.attrs.scrollable === "true" || n.resourceId);
}

const fenced = (source: string, text: string) => `<${FENCE_TAG} source="${source}">\n${text}\n</${FENCE_TAG}>`;
const region = (text: string, source: string) => new RegExp(`<${FENCE_TAG} source="${source}">\\n([\\s\\S]*?)\\n</${FENCE_TAG}>`).exec(text)?.[1] ?? "";

/** The todo, goal, inputs and history as the adapter's prompt states them (the product's own, or the shared task lines). */
function promptOf(req: RecordedRequest) {
  const text = req.lastUserText;
  const line = (label: string) => new RegExp(`^${label}: (.*)$`, "m").exec(text)?.[1] ?? "";
  return { goal: line("GOAL") || line("Task"), todo: line("TODO") || line("Current step"), inputs: region(text, "blackboard"), history: region(text, "history") };
}

/**
 * The reference policy's answer for this screen, asked in the product's language with the tree the screenshot
 * draws. The history is the runtime's (what was performed, and how it went), each step told the way the policy
 * tells its own moves: the element it meant (a tap in any frame is a point to the runtime's history), and a typing
 * into the field tapped before it (a family without a tap-and-type action) as the policy's tap-and-type.
 */
function policyMove(req: RecordedRequest, els: DumpNode[], device: Size, told: string[]): Record<string, unknown> {
  const p = promptOf(req);
  const norm = (n: DumpNode) => [Math.round((n.bounds[0] / device.width) * 1000), Math.round((n.bounds[1] / device.height) * 1000), Math.round((n.bounds[2] / device.width) * 1000), Math.round((n.bounds[3] / device.height) * 1000)];
  const lines = els.map((n, i) => {
    const flags = [n.cls.endsWith("EditText") ? "editable" : "", n.attrs.scrollable === "true" ? "scrollable" : "", n.attrs.clickable !== "true" && !n.cls.endsWith("EditText") && n.attrs.scrollable !== "true" ? "text" : ""].filter(Boolean).join(",");
    const id = n.resourceId ? ` id=${JSON.stringify(n.resourceId.replace(/^.*:id\//, ""))}` : "";
    return `[${i}] ${JSON.stringify(n.cls)}${flags ? `(${flags})` : ""} ${JSON.stringify(n.text || n.desc)}${id} @[${norm(n).join(",")}]`;
  });
  const performed = p.history.split("\n").filter((l) => l.trim() !== "");
  if (performed.length > told.length) throw new Error(`the runtime's history has ${performed.length} steps for this todo, the scripted model wrote ${told.length}`);
  const history = performed.map((l, k) => l.replace(/^(#\d+ ).*?( → .*)$/, `$1${told[k]}$2`)).join("\n");
  const text = [
    `GOAL: ${p.goal}`,
    `TODO: ${p.todo}`,
    ...(p.inputs ? [`INPUTS:\n${fenced("blackboard", p.inputs)}`] : []),
    ...(history ? [`HISTORY:\n${fenced("history", history)}`] : []),
    `SCREEN: app "", ${device.width}x${device.height}. Elements:`,
    fenced("screen", lines.join("\n")),
    "Your action (one JSON object):",
  ].join("\n");
  return JSON.parse(answerRequest({ model: REFERENCE_POLICY_MODEL, messages: [{ role: "user", content: text }], response_format: { type: "json_schema", json_schema: { name: "phone_action" } } })) as Record<string, unknown>;
}

// ---------- the move in each family's grammar ----------

type Move = { do: "tap"; at: [number, number] } | { do: "type"; text: string } | { do: "tap_type"; at: [number, number]; text: string } | { do: "open"; app: string } | { do: "back" } | { do: "done"; summary: string };

const q1 = (s: string) => s.replace(/\\/g, "\\\\").replace(/'/g, "\\'");
const q2 = (s: string) => JSON.stringify(s);
const mobileUse = (args: Record<string, unknown>) => `<tool_call>\n${JSON.stringify({ name: "mobile_use", arguments: args })}\n</tool_call>`;

function uiTars(version: string, m: Move): string {
  const point = ([x, y]: [number, number]) => (version === "1.0" ? `start_box='<|box_start|>(${x},${y})<|box_end|>'` : `point='<point>${x} ${y}</point>'`);
  switch (m.do) {
    case "tap":
      return `Thought: 点击目标元素。\nAction: click(${point(m.at)})`;
    case "type":
      return `Thought: Type the text into the focused field.\nAction: type(content='${q1(m.text)}')`;
    case "open":
      return `Thought: Open the app.\nAction: open_app(app_name='${q1(m.app)}')`;
    case "back":
      return "Thought: Close the keyboard.\nAction: press_back()";
    case "done":
      return `Thought: This step is done.\nAction: finished(content='${q1(m.summary)}')`;
    case "tap_type":
      throw new Error("UI-TARS has no tap-and-type action");
  }
}

function qwen(m: Move, prefix: string): string {
  switch (m.do) {
    case "tap":
      return `${prefix}${mobileUse({ action: "click", coordinate: m.at })}`;
    case "type":
      return `${prefix}${mobileUse({ action: "type", text: m.text })}`;
    case "open":
      return `${prefix}${mobileUse({ action: "open", text: m.app })}`;
    case "back":
      return `${prefix}${mobileUse({ action: "system_button", button: "Back" })}`;
    case "done":
      return `${prefix}${mobileUse({ action: "terminate", status: "success" })}`;
    case "tap_type":
      throw new Error("mobile_use has no tap-and-type action");
  }
}

function autoglm(m: Move): string {
  const answer = (think: string, call: string) => `<think>${think}</think><answer>${call}</answer>`;
  switch (m.do) {
    case "tap":
      return answer("点击目标元素。", `do(action="Tap", element=[${m.at[0]},${m.at[1]}])`);
    case "type":
      return answer("在输入框中输入文字。", `do(action="Type", text=${q2(m.text)})`);
    case "open":
      return answer("打开应用。", `do(action="Launch", app=${q2(m.app)})`);
    case "back":
      return answer("收起键盘。", 'do(action="Back")');
    case "done":
      return answer("这一步完成了。", `finish(message=${q2(m.summary)})`);
    case "tap_type":
      throw new Error("AutoGLM-Phone has no tap-and-type action");
  }
}

function phoneloop(m: Move): Record<string, unknown> {
  switch (m.do) {
    case "tap":
      return { type: "click", x: m.at[0], y: m.at[1], intent: "tap the element" };
    case "tap_type":
      return { type: "click_then_type", x: m.at[0], y: m.at[1], text: m.text, intent: "type into the field" };
    case "type":
      return { type: "input_text", text: m.text, intent: "type into the field" };
    case "open":
      return { type: "open_app", app: m.app, intent: "open the app" };
    case "back":
      return { type: "navigate_back", intent: "close the keyboard" };
    case "done":
      return { type: "status", status: "complete", summary: m.summary };
  }
}

function replyIn(adapter: ModelAdapter, m: Move): ScriptedReply {
  const d = adapter.descriptor;
  switch (d.id) {
    case "phoneloop":
      return { text: JSON.stringify(phoneloop(m)) };
    case "tool-calls": {
      const { type, ...args } = phoneloop(m);
      return { text: "", toolCalls: [{ name: String(type), arguments: JSON.stringify(args) }] };
    }
    case "ui-tars":
      return { text: uiTars(d.version, m) };
    case "qwen-vl":
      return { text: qwen(m, "") };
    case "gui-owl":
      return { text: qwen(m, `Thought: The screen shows what the step needs; I act on it.\nAction: ${m.do} on the screen.\n`) };
    case "autoglm-phone":
      return { text: autoglm(m) };
  }
}

/** A tap the scripted model meant: the element aimed at (device px) and the pixel its numbers stand for. */
interface Aim {
  todo: string;
  bounds: [number, number, number, number];
  expected: { x: number; y: number };
  wrote: [number, number];
}

/** The executor as a model of this family would answer: the policy's move, aimed and written in the family's frame. */
function executorOf(adapter: ModelAdapter, engine: PhoneEngine, device: Size, aims: Aim[]) {
  const nativeTapType = adapter.descriptor.id === "phoneloop" || adapter.descriptor.id === "tool-calls";
  /** Per todo, each reply as the policy tells its moves. */
  const told = new Map<string, string[]>();
  return (req: RecordedRequest): ScriptedReply => {
    const els = elementsOf(engine);
    const todo = promptOf(req).todo;
    if (!told.has(todo)) told.set(todo, []);
    const said = told.get(todo)!;
    const move = policyMove(req, els, device, said);
    const { span, seen } = frameSpan(adapter, sentImage(req));
    if (seen && adapter.descriptor.id !== "ui-tars") expect(req.system).toContain(`${seen.width}x${seen.height}`);
    const aim = (el: DumpNode): [number, number] => {
      const [l, top, r, b] = el.bounds;
      const centre = { x: (l + r) / 2, y: (top + b) / 2 };
      const wrote: [number, number] = [Math.round((centre.x / (device.width - 1)) * span.width), Math.round((centre.y / (device.height - 1)) * span.height)];
      aims.push({ todo, bounds: el.bounds, wrote, expected: { x: Math.round((wrote[0] / span.width) * (device.width - 1)), y: Math.round((wrote[1] / span.height) * (device.height - 1)) } });
      return wrote;
    };
    const target = (): DumpNode => {
      const e = String(move.element ?? "");
      const el = /^\d+$/.test(e) ? els[Number(e)] : els.find((n) => (n.text || n.desc) === e);
      if (!el) throw new Error(`the policy chose element ${e}, which is not on the screen`);
      return el;
    };
    let m: Move;
    switch (move.type) {
      case "click":
        m = { do: "tap", at: aim(target()) };
        said.push(`click element ${JSON.stringify(String(move.element))}`);
        break;
      case "click_then_type": {
        const el = target();
        const text = String(move.text);
        // A family without a tap-and-type action taps the field first, then types once it has the focus.
        m = nativeTapType ? { do: "tap_type", at: aim(el), text } : el.attrs.focused === "true" ? { do: "type", text } : { do: "tap", at: aim(el) };
        said.push(m.do === "tap" ? `click element "${String(move.element)}"` : `click_then_type element "${String(move.element)}" ${JSON.stringify(text)}`);
        break;
      }
      case "open_app":
        m = { do: "open", app: String(move.app) };
        said.push(`open_app ${String(move.app)}`);
        break;
      case "navigate_back":
        m = { do: "back" };
        said.push("navigate_back");
        break;
      case "status":
        if (move.status !== "complete") return { status: 500, message: `the reference policy gave up on this step: ${String(move.summary)}` };
        m = { do: "done", summary: String(move.summary ?? "done") };
        said.push("status complete");
        break;
      default:
        return { status: 500, message: `this test's scripted model does not write the move ${JSON.stringify(move)} in the adapter's grammar` };
    }
    return replyIn(adapter, m);
  };
}

/** The device points of the run's taps, in order, as its action evidence recorded where they landed. */
async function tapsOf(runId: string): Promise<{ x: number; y: number }[]> {
  const rows = await t.db.evidence.findMany({ where: { runId, kind: "action" }, orderBy: { createdAt: "asc" } });
  return rows.flatMap((r) => {
    const a = readEvidenceData("action", r.data);
    return (a.action?.type === "click" || a.action?.type === "click_then_type") && a.px ? [{ x: a.px.x, y: a.px.y }] : [];
  });
}

/** Every tap the phone itself received (its `input tap`), in order. */
function receivedTaps(engine: PhoneEngine): { x: number; y: number }[] {
  const taps: { x: number; y: number }[] = [];
  const tap = engine.tap.bind(engine);
  engine.tap = (x, y) => {
    taps.push({ x, y });
    tap(x, y);
  };
  return taps;
}

describe("each model adapter drives a pack task to an evaluator score of 1", () => {
  MODEL_ADAPTERS.forEach((adapter, i) => {
    const d = adapter.descriptor;
    it(`${d.id} ${d.version}: ${TASK} scores 1, every tap on the pixel its frame means`, { timeout: 180_000 }, async () => {
      const { token, agentId } = await e2e.worker(`Adapter ${d.id} ${d.version}`, "adapters");
      const p = await phone(i + 1);
      const received = receivedTaps(p.engine);
      const aims: Aim[] = [];
      const server = await e2e.modelServer({ rules: [{ match: () => true, replies: [executorOf(adapter, p.engine, p.engine.device, aims)], repeatLast: true }] });
      // The models as the headless agent's flags set them: the executor speaks the adapter's language.
      const flags = ["--goal", p.goal, "--device", "adb-server", "--executor-base-url", server.baseURL, "--executor-model", `${d.id}-model`, "--executor-adapter", `${d.id}@${d.version}`, "--planner-base-url", policy.baseURL, "--planner-model", REFERENCE_POLICY_MODEL];
      const { models } = parseAgentArgs(flags, readEnv({ PHONELOOP_AGENT_TOKEN: token }))!;
      expect(models.executor.adapter).toEqual({ id: d.id, version: d.version });
      const out = await runHeadless({ apiUrl: api.url, agentToken: token, agentId, device: p.device, models, goal: p.goal, agentName: "adapters", ocr: null, config: { learn: false, maxStepsPerTodo: 10, maxStepsPerRun: 40 } });

      const evaluation = p.engine.evaluate(TASK);
      expect(evaluation.reason).toBe(`all ${evaluation.checks.length} checks passed`);
      expect(evaluation.score).toBe(1);
      expect(out.status).toBe("completed");
      // The executor was asked in the family's own prompt, and answered in its grammar.
      expect(server.requests.length).toBeGreaterThan(0);
      if (!adapter.systemPrompt.includes("{width}")) expect(server.requests[0]!.system).toBe(adapter.systemPrompt);
      if (adapter.tools) expect((server.requests[0]!.body.tools as unknown[]).length).toBe(adapter.tools.length);
      // Each tap landed on the pixel the model's numbers mean, inside the element it aimed at.
      const taps = await tapsOf(out.runId);
      expect(aims.length).toBeGreaterThanOrEqual(2);
      expect(taps).toEqual(aims.map((a) => a.expected));
      expect(received).toEqual(taps);
      for (const [k, a] of aims.entries()) {
        const [l, top, r, b] = a.bounds;
        expect(taps[k]!.x, `${a.todo}: x`).toBeGreaterThanOrEqual(l);
        expect(taps[k]!.x, `${a.todo}: x`).toBeLessThan(r);
        expect(taps[k]!.y, `${a.todo}: y`).toBeGreaterThanOrEqual(top);
        expect(taps[k]!.y, `${a.todo}: y`).toBeLessThan(b);
      }
    });
  });
});
