import { afterEach, describe, expect, it } from "vitest";
import { CliError, parseCliArgs, parseDeviceSpec } from "./args.ts";
import { modelsFromArgs, runHeadless } from "./run-headless.ts";
import { FakePhone, box } from "../testing/fake-phone.ts";
import { MemoryControlPlane } from "../testing/memory-control-plane.ts";
import { act, planOf, startScriptedModelServer, type ScriptedModelServer } from "../testing/index.ts";

describe("CLI arguments", () => {
  it("parses the device specs", () => {
    expect(parseDeviceSpec("tcp:10.0.0.5:5555")).toEqual({ kind: "tcp", host: "10.0.0.5", port: 5555 });
    expect(parseDeviceSpec("tcp:5555")).toEqual({ kind: "tcp", host: "127.0.0.1", port: 5555 });
    expect(parseDeviceSpec("ws:ws://127.0.0.1:8080/")).toEqual({ kind: "ws", url: "ws://127.0.0.1:8080/" });
    expect(parseDeviceSpec("ws://127.0.0.1:8080/")).toEqual({ kind: "ws", url: "ws://127.0.0.1:8080/" });
    expect(parseDeviceSpec("adb-server")).toEqual({ kind: "adb-server" });
    expect(parseDeviceSpec("adb-server:emulator-5554")).toEqual({ kind: "adb-server", serial: "emulator-5554" });
    expect(() => parseDeviceSpec("usb")).toThrow(CliError);
    expect(() => parseDeviceSpec("tcp:host:notaport")).toThrow(/port must be a number/);
  });

  it("parses the run options and per-role models", () => {
    const a = parseCliArgs(["--goal", "search for cats", "--device", "tcp:127.0.0.1:5555", "--planner-model", "small", "--executor-model=vision", "--base-url", "http://127.0.0.1:9/v1", "--allow", "input_text,follow", "--max-steps", "30"], { OPENAI_API_KEY: "k" });
    expect(a).toMatchObject({ goal: "search for cats", plannerModel: "small", executorModel: "vision", baseURL: "http://127.0.0.1:9/v1", apiKey: "k", allow: ["input_text", "follow"], maxSteps: 30 });
    const m = modelsFromArgs(a);
    expect(m.executor.model).toBe("vision");
    expect(m.planner!.model).toBe("small");
    expect(m.summarizer!.model).toBe("small");
  });

  it("rejects what it cannot run, with the fix in the message", () => {
    expect(() => parseCliArgs(["--device", "tcp:1:2"])).toThrow(/--goal is required/);
    expect(() => parseCliArgs(["--goal", "x"])).toThrow(/--device is required/);
    expect(() => parseCliArgs(["--goal", "x", "--device", "adb-server", "--bogus"])).toThrow(/Unknown option --bogus/);
    expect(() => parseCliArgs(["--goal", "--device", "adb-server"])).toThrow(/--goal needs a value/);
  });
});

describe("runHeadless", () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => server?.stop());

  it("registers a headless peer agent, claims, runs and leaves evidence and a finished run", async () => {
    server = await startScriptedModelServer({
      rules: [
        { match: (r) => r.model === "p", replies: [planOf([{ id: "t1", title: "Open the item" }])] },
        { match: (r) => r.model === "s", replies: [{ text: JSON.stringify({ findings: ["opened"], conclusion: "Opened the item." }) }] },
        { match: (r) => r.model === "e", replies: [act({ type: "click", element: "1" }), act({ type: "status", status: "complete" })] },
      ],
    });
    const phone = new FakePhone(
      { a: { app: "com.example.notes", background: "#fff", elements: [{ id: "item", text: "Item", bounds: box(0, 0, 1000, 200), clickable: true, onTap: "b" }] }, b: { app: "com.example.notes", background: "#000", elements: [] } },
      "a",
    );
    const cp = new MemoryControlPlane();
    const out = await runHeadless({
      goal: "Open the item",
      device: phone,
      models: { executor: { baseURL: server.baseURL, model: "e" }, planner: { baseURL: server.baseURL, model: "p" }, summarizer: { baseURL: server.baseURL, model: "s" } },
      controlPlane: cp,
      agentName: "ci-runner",
    });
    expect(out.status).toBe("completed");
    expect(out.report.conclusion).toBe("Opened the item.");
    const reg = cp.agents.get(out.agentId)!;
    expect(reg).toMatchObject({ name: "ci-runner", kind: "headless", capabilities: ["phone"], device: { serial: "fake-1", model: "FakePhone" } });
    expect(cp.runs.get(out.runId)!.status).toBe("completed");
    expect(cp.stepsOf(out.runId)).toHaveLength(2);
    expect(phone.current).toBe("b");
  });
});
