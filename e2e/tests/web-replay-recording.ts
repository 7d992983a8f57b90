// A real run to replay: the headless agent (packages/cli's composition root) on the virtual phone's social app over
// ADB/TCP, its state written through packages/client to the API, the models a scripted OpenAI-compatible server.
// Two scripts: "login" (profile → log in, typing the password into the password field; the policy's gate on the
// credential is approved by a person through the state core) and "browse" (a given number of feed steps). Used by
// the replay spec and by `npm run bench -- web`.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fencedRegions, type RunOutcome } from "@phoneloop/agent";
import { planOf, startScriptedModelServer, type RecordedRequest, type ScriptedReply } from "@phoneloop/agent/testing";
import { runHeadless } from "@phoneloop/cli";
import { AdbDevice, MemoryCredentialStore } from "@phoneloop/device";
import { adbPublicKeyLine, connectTcp } from "@phoneloop/device/node";
import { resolveGate, type Db } from "@phoneloop/state";

const root = fileURLToPath(new URL("../../", import.meta.url));
export const LOGIN = { user: "agent_tester", password: "hunter22" } as const;

const reply = (a: Record<string, unknown>): ScriptedReply => ({ text: JSON.stringify(a) });

/** The element index the screen listing gives the line with `id=<id>` (the id quoted or not). */
function indexOfId(req: RecordedRequest, id: string): string | undefined {
  const screen = fencedRegions(req.lastUserText).at(-1) ?? "";
  for (const line of screen.split("\n")) if (new RegExp(`id="?${id}"?(\\s|$)`).test(line)) return /^\[(\d+)\]/.exec(line)?.[1];
  return undefined;
}

const POPUPS = ["update_later", "login_wall_not_now", "follow_not_now"];

function dismissPopup(req: RecordedRequest): ScriptedReply | null {
  for (const id of POPUPS) {
    const i = indexOfId(req, id);
    if (i) return reply({ type: "click", element: i, intent: "dismiss the popup", thought: "A popup is in the way; close it first." });
  }
  return null;
}

/** Profile → Log in → username → password → (hide the keyboard) → Log in → done. */
function loginModel() {
  const typed = { user: false, password: false, submitted: false };
  return (req: RecordedRequest): ScriptedReply => {
    const popup = dismissPopup(req);
    if (popup) return popup;
    if (typed.submitted) return reply({ type: "status", status: "complete", summary: `Logged in as ${LOGIN.user}.`, thought: "The login went through." });
    if (indexOfId(req, "username")) {
      if (!typed.user) {
        typed.user = true;
        return reply({ type: "click_then_type", element: indexOfId(req, "username"), text: LOGIN.user, intent: "enter the username", thought: "The login form is open; the username goes first." });
      }
      if (!typed.password) {
        typed.password = true;
        return reply({ type: "click_then_type", element: indexOfId(req, "password"), text: LOGIN.password, intent: "enter the password", thought: `Now the password ${LOGIN.password}.` });
      }
      const login = indexOfId(req, "login_button");
      if (login) {
        typed.submitted = true;
        return reply({ type: "click", element: login, intent: "log in", thought: "Both fields are filled; submit." });
      }
      return reply({ type: "navigate_back", intent: "hide the keyboard", thought: "The keyboard hides the Log in button." });
    }
    const profileLogin = indexOfId(req, "profile_login");
    if (profileLogin) return reply({ type: "click", element: profileLogin, intent: "open the login form", thought: "The profile offers a login button." });
    const profile = indexOfId(req, "nav_profile");
    if (profile) return reply({ type: "click", element: profile, intent: "open the profile", thought: "Login lives on the profile tab." });
    return reply({ type: "navigate_back", intent: "find the app's main screen" });
  };
}

/** Browses the feed for `steps` steps: opens posts, goes back, scrolls; then reports done. */
function browsingModel(steps: number) {
  let n = 0;
  return (req: RecordedRequest): ScriptedReply => {
    n++;
    if (n > steps) return reply({ type: "status", status: "complete", summary: "Browsed the feed." });
    const popup = dismissPopup(req);
    if (popup) return popup;
    if (indexOfId(req, "body")) return reply({ type: "navigate_back", intent: "back to the list", thought: "Read the post; back to the feed." });
    if (n % 4 === 0) return reply({ type: "scroll", direction: n % 8 === 0 ? "up" : "down", intent: "browse", thought: "More posts below." });
    const posts: string[] = [];
    for (const line of (fencedRegions(req.lastUserText).at(-1) ?? "").split("\n")) if (/^\[\d+\] "?LinearLayout/.test(line)) posts.push(/^\[(\d+)\]/.exec(line)![1]!);
    if (posts.length) return reply({ type: "click", element: posts[n % posts.length]!, intent: "open a post", thought: "This post looks relevant." });
    return reply({ type: "navigate_back", intent: "back" });
  };
}

function startPhone(adbKeysPath: string): Promise<{ proc: ChildProcess; port: number }> {
  const proc = spawn(process.execPath, ["--import", "tsx", "packages/virtual-phone/src/cli.ts", "--scenario", "social", "--seed", "3", "--adb-port", "0", "--ws-port", "0", "--control-port", "0", "--adb-keys", adbKeysPath], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /adb connect [^:\s]+:(\d+)/.exec(out);
      if (m) resolve({ proc, port: Number(m[1]) });
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`the virtual phone exited (${code}) before it was ready: ${out}`)));
  });
}

export interface RecordOptions {
  apiUrl: string;
  agentToken: string;
  db: Db;
  /** Who answers the run's gates (a person with the right role; through the state core, as the gate page would). */
  approverUserId: string;
  script: { kind: "login" } | { kind: "browse"; steps: number };
}

/** Records one run end to end and answers with its outcome once the run has finished. */
export async function recordRun(opts: RecordOptions): Promise<RunOutcome> {
  const dir = mkdtempSync(join(tmpdir(), "phoneloop-replay-run-"));
  const credentialStore = new MemoryCredentialStore("replay@phoneloop");
  const key = await credentialStore.generateKey();
  writeFileSync(join(dir, "adbkey.pub"), adbPublicKeyLine(key.buffer, key.name ?? credentialStore.name));
  const phone = await startPhone(join(dir, "adbkey.pub"));
  const device = new AdbDevice(await connectTcp({ host: "127.0.0.1", port: phone.port, credentialStore }));
  const executor = opts.script.kind === "login" ? loginModel() : browsingModel(opts.script.steps);
  const task = opts.script.kind === "login" ? { id: "login", title: "Log in to Loop" } : { id: "browse", title: "Browse the Loop feed" };
  const server = await startScriptedModelServer({
    rules: [
      { match: (r) => r.model === "planner", replies: [planOf([task])] },
      { match: (r) => r.model === "summarizer", replies: [{ text: JSON.stringify({ findings: [`${task.title}: done`], conclusion: "The run did what the goal asked." }) }], repeatLast: true },
      { match: (r) => r.model === "executor", replies: [executor], repeatLast: true },
    ],
  });
  const price = { inputPerMTok: 2.5, outputPerMTok: 10 };
  try {
    const steps = opts.script.kind === "browse" ? opts.script.steps + 10 : 30;
    return await runHeadless({
      apiUrl: opts.apiUrl,
      agentToken: opts.agentToken,
      device,
      models: {
        executor: { baseURL: server.baseURL, model: "executor", price },
        planner: { baseURL: server.baseURL, model: "planner", price },
        summarizer: { baseURL: server.baseURL, model: "summarizer", price },
      },
      goal: opts.script.kind === "login" ? `Log in to Loop with username ${LOGIN.user} and password ${LOGIN.password}.` : "Browse the Loop feed and open a few posts.",
      agentName: "Pixel worker",
      config: { maxStepsPerTodo: steps, maxStepsPerRun: steps },
      onEvent: (e) => {
        if (e.type === "gate") void resolveGate(opts.db, { gateId: e.gateId, userId: opts.approverUserId, decision: "approve", rationale: "The goal names this login." }).catch(() => undefined);
      },
    });
  } finally {
    await server.stop();
    await device.close().catch(() => undefined);
    const exited = new Promise((r) => phone.proc.once("exit", r));
    phone.proc.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}
