import { describe, expect, it } from "vitest";
import { UsageError } from "../args.ts";
import { readEnv } from "../env.ts";
import { parseDeviceSpec } from "./device.ts";
import { parseAgentArgs } from "./options.ts";

const TOKEN = "plt_test-token-0123456789abcdef";
const env = readEnv({ PHONELOOP_AGENT_TOKEN: TOKEN });

describe("--device", () => {
  it("parses tcp, ws and adb-server specs", () => {
    expect(parseDeviceSpec("tcp:10.0.0.5:5555")).toEqual({ kind: "tcp", host: "10.0.0.5", port: 5555 });
    expect(parseDeviceSpec("tcp:5555")).toEqual({ kind: "tcp", host: "127.0.0.1", port: 5555 });
    expect(parseDeviceSpec("ws:ws://127.0.0.1:8080/")).toEqual({ kind: "ws", url: "ws://127.0.0.1:8080/" });
    expect(parseDeviceSpec("ws://127.0.0.1:8080/")).toEqual({ kind: "ws", url: "ws://127.0.0.1:8080/" });
    expect(parseDeviceSpec("adb-server")).toEqual({ kind: "adb-server" });
    expect(parseDeviceSpec("adb-server:emulator-5554")).toEqual({ kind: "adb-server", serial: "emulator-5554" });
  });

  it("rejects what it cannot connect to, with an example in the message", () => {
    expect(() => parseDeviceSpec("usb")).toThrow(UsageError);
    expect(() => parseDeviceSpec("usb")).toThrow(/tcp:host:port, ws:url or adb-server/);
    expect(() => parseDeviceSpec("tcp:host:notaport")).toThrow(/port must be a number, e.g. tcp:127.0.0.1:5555/);
    expect(() => parseDeviceSpec("ws:not a url")).toThrow(/not a WebSocket URL/);
  });
});

describe("the headless agent's flags", () => {
  it("--lease-ttl-ms and --api-timeout-ms, within their bounds", () => {
    const base = ["--goal", "g", "--device", "tcp:5555"];
    expect(parseAgentArgs([...base, "--lease-ttl-ms", "3000", "--api-timeout-ms", "1500"], env)).toMatchObject({ leaseTtlMs: 3000, apiTimeoutMs: 1500 });
    expect(parseAgentArgs(base, env)).not.toHaveProperty("leaseTtlMs");
    expect(() => parseAgentArgs([...base, "--lease-ttl-ms", "10"], env)).toThrow(/--lease-ttl-ms must be from 1000/);
    expect(() => parseAgentArgs([...base, "--api-timeout-ms", "0"], env)).toThrow(/--api-timeout-ms must be from 100/);
  });

  it("parses the run, the ids in the core's words and the models per role", () => {
    const a = parseAgentArgs(
      ["--goal", "search for cats", "--device", "tcp:127.0.0.1:5555", "--planner-model", "small", "--executor-model=vision", "--base-url", "http://127.0.0.1:9/v1", "--allow", "input_text, follow", "--max-steps", "30", "--agent-id", "worker-1", "--run-id", "run_1", "--goal-id", "goal_1"],
      readEnv({ OPENAI_API_KEY: "k", PHONELOOP_API_URL: "http://api:4000", PHONELOOP_AGENT_TOKEN: TOKEN }),
    );
    expect(a).toEqual({
      agentToken: TOKEN,
      goal: "search for cats",
      goalId: "goal_1",
      runId: "run_1",
      agentId: "worker-1",
      device: { kind: "tcp", host: "127.0.0.1", port: 5555 },
      apiUrl: "http://api:4000",
      models: {
        executor: { baseURL: "http://127.0.0.1:9/v1", model: "vision", apiKey: "k" },
        planner: { baseURL: "http://127.0.0.1:9/v1", model: "small", apiKey: "k" },
        summarizer: { baseURL: "http://127.0.0.1:9/v1", model: "small", apiKey: "k" },
      },
      maxSteps: 30,
      allow: ["input_text", "follow"],
      json: false,
    });
  });

  it("takes defaults from the environment: the API, the agent token, the agent id, the model endpoint", () => {
    const a = parseAgentArgs(["--goal", "x", "--device", "adb-server"], readEnv({ PHONELOOP_AGENT_TOKEN: TOKEN, PHONELOOP_AGENT_ID: "a1", OPENAI_BASE_URL: "http://models:1/v1" }))!;
    expect(a).toMatchObject({ apiUrl: "http://127.0.0.1:4000", agentToken: TOKEN, agentId: "a1" });
    expect(a.models.executor).toEqual({ baseURL: "http://models:1/v1", model: "gpt-4o" });
    expect(a.models.planner).toEqual({ baseURL: "http://models:1/v1", model: "gpt-4o-mini" });
  });

  it("reads the model key from --api-key-file (never from a flag); an empty or missing file is a usage error", () => {
    const files: Record<string, string> = { "/keys/openai": "sk-from-file\n", "/keys/empty": "  \n" };
    const read = (p: string) => {
      if (!(p in files)) throw new Error(`ENOENT: no such file, open '${p}'`);
      return files[p]!;
    };
    const a = parseAgentArgs(["--goal", "x", "--device", "adb-server", "--api-key-file", "/keys/openai"], readEnv({ OPENAI_API_KEY: "from-env", PHONELOOP_AGENT_TOKEN: TOKEN }), read)!;
    expect(a.models.executor.apiKey).toBe("sk-from-file");
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--api-key-file", "/keys/empty"], env, read)).toThrow(/is empty/);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--api-key-file", "/keys/none"], env, read)).toThrow(/cannot read it \(ENOENT/);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--api-key", "sk-secret"], env)).toThrow(/Unknown option '--api-key'/);
  });

  it("reads the agent token from PHONELOOP_AGENT_TOKEN or --agent-token-file, never from a flag's value", () => {
    const files: Record<string, string> = { "/run/agent.token": `${TOKEN}-file\n`, "/run/other": "hello\n" };
    const read = (p: string) => {
      if (!(p in files)) throw new Error(`ENOENT: no such file, open '${p}'`);
      return files[p]!;
    };
    const fromFile = parseAgentArgs(["--goal", "x", "--device", "adb-server", "--agent-token-file", "/run/agent.token"], env, read)!;
    expect(fromFile.agentToken).toBe(`${TOKEN}-file`);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--agent-token-file", "/run/other"], env, read)).toThrow(/does not hold an agent token/);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server"], readEnv({}))).toThrow(/No agent token: .*PHONELOOP_AGENT_TOKEN.*--agent-token-file/);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--agent-token", TOKEN], env)).toThrow(/Unknown option '--agent-token'/);
    expect(() => readEnv({ PHONELOOP_AGENT_TOKEN: "sk-not-an-agent-token" })).toThrow(/must be an agent token/);
  });

  it("--executor-adapter picks the language of the executor's model, by id and published version; one the runtime lacks is named with the list", () => {
    const base = ["--goal", "x", "--device", "adb-server"];
    expect(parseAgentArgs(base, env)!.models.executor.adapter).toBeUndefined();
    expect(parseAgentArgs([...base, "--executor-adapter", "ui-tars@1.5"], env)!.models.executor.adapter).toEqual({ id: "ui-tars", version: "1.5" });
    expect(parseAgentArgs([...base, "--executor-adapter", "autoglm-phone@9B (2025-12)"], env)!.models.executor.adapter).toEqual({ id: "autoglm-phone", version: "9B (2025-12)" });
    expect(parseAgentArgs([...base, "--executor-adapter=qwen-vl"], env)!.models.executor.adapter).toEqual({ id: "qwen-vl" });
    // Only the executor speaks another language: the planner and summarizer keep the product's.
    expect(parseAgentArgs([...base, "--executor-adapter", "gui-owl"], env)!.models.planner!.adapter).toBeUndefined();
    expect(() => parseAgentArgs([...base, "--executor-adapter", "ui-tars@9"], env)).toThrow(/--executor-adapter ui-tars@9: the adapter ui-tars has no published version "9"; the adapters and versions are .*ui-tars 1\.5/);
    expect(() => parseAgentArgs([...base, "--executor-adapter", "gpt"], env)).toThrow(/there is no model adapter "gpt"; the adapters and versions are phoneloop 1, /);
  });

  it("rejects what it cannot run, saying what to pass; --help gives null", () => {
    expect(() => parseAgentArgs(["--device", "tcp:1:2"], env)).toThrow(/--goal is required \(or --goal-id .*--run-id/);
    expect(() => parseAgentArgs(["--goal", "x"], env)).toThrow(/--device is required/);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--bogus"], env)).toThrow(/Unknown option '--bogus'/);
    expect(() => parseAgentArgs(["--goal"], env)).toThrow(UsageError);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--max-steps", "many"], env)).toThrow(/--max-steps must be a whole number/);
    expect(() => parseAgentArgs(["--goal", "x", "--device", "adb-server", "--max-steps", "0"], env)).toThrow(/at least 1/);
    expect(parseAgentArgs(["--help"], env)).toBeNull();
  });
});

describe("the environment", () => {
  it("treats empty variables as unset and names a malformed one", () => {
    expect(readEnv({ PHONELOOP_API_URL: "", PHONELOOP_AGENT_TOKEN: "" })).toEqual({ PHONELOOP_API_URL: "http://127.0.0.1:4000" });
    expect(() => readEnv({ PHONELOOP_API_URL: "not a url" })).toThrow(/PHONELOOP_API_URL: PHONELOOP_API_URL must be a URL like http:\/\/127\.0\.0\.1:4000.*Fix or unset/);
  });
});
