// A virtual phone in its own process (as a real phone is) showing the counter scenario, for drills that kill the
// agent at exact moments: it reports every shell command as it starts, with the count on the screen then, and can
// hold the next input command (or the command after it) until the drill has killed the agent and says go on — the
// moment a tap is in flight, or has landed and nothing has been recorded yet, is then not left to chance.
// The count it answers is the phone's own (the counter app's state), never what the agent recorded.
import { fileURLToPath } from "node:url";
import { startVirtualPhone, type VirtualPhoneOptions } from "@phoneloop/virtual-phone";

/** "input": hold the next `input` command before it runs; "after-input": hold the first command after one ran. */
export type HoldAt = "input" | "after-input";
export type CounterRequest =
  | { id: number; op: "reset" }
  | { id: number; op: "count" }
  | { id: number; op: "hold"; at: HoldAt }
  | { id: number; op: "release" }
  | { id: number; op: "stop" };
export type CounterReply = { id: number; op: CounterRequest["op"]; count: number };
export type CounterEvent =
  /** A shell command started (before any hold or lag); `count` is the counter as it read then. */
  | { op: "command"; argv: string[]; count: number }
  /** A hold took effect: this command waits until "release". */
  | { op: "held"; argv: string[]; count: number };
export type CounterReady = { op: "ready"; serial: string; adbPort: number };

const COUNTER_SCENARIO = fileURLToPath(new URL("../../packages/virtual-phone/src/pack/examples/counter.json", import.meta.url));

const send = (m: CounterReply | CounterEvent | CounterReady) => process.send!(m);
// argv[2]: the public keys (JSON array of adbkey.pub lines) the phone already lists in adb_keys; argv[3]: its
// latency profile (none, realistic, lagging)
const adbKeys = JSON.parse(process.argv[2] ?? "[]") as string[];
const latency = (process.argv[3] ?? "none") as VirtualPhoneOptions["latency"];
const phone = await startVirtualPhone({ scenario: COUNTER_SCENARIO, seed: 1, adbPort: 0, wsPort: 0, controlPort: 0, adbKeys, latency });
const engine = phone.engine;
const count = () => Number((engine.runtime.state.apps.counter?.vars as { count?: unknown } | undefined)?.count ?? NaN);

let holdAt: HoldAt | "next" | null = null;
let release: (() => void) | null = null;
// The phone runs each shell command after beforeCommand (its faults and latency); the drill's hold sits in front of it.
const beforeCommand = engine.beforeCommand.bind(engine);
engine.beforeCommand = async (argv: string[]) => {
  send({ op: "command", argv, count: count() });
  const isInput = argv[0] === "input";
  // The agent waits for a tap's command to end before its next one: the command after it finds the tap landed.
  if (holdAt === "after-input" && isInput) holdAt = "next";
  else if (holdAt === "next" || (holdAt === "input" && isInput)) {
    holdAt = null;
    await new Promise<void>((r) => {
      release = r;
      send({ op: "held", argv, count: count() });
    });
  }
  await beforeCommand(argv);
};

process.on("message", (m: CounterRequest) => {
  void (async () => {
    switch (m.op) {
      case "reset":
        engine.reset();
        holdAt = null;
        break;
      case "count":
        break;
      case "hold":
        holdAt = m.at;
        break;
      case "release":
        release?.();
        release = null;
        break;
      case "stop":
        release?.();
        await phone.stop();
        send({ id: m.id, op: m.op, count: count() });
        return process.disconnect();
    }
    send({ id: m.id, op: m.op, count: count() });
  })();
});
// The drill went away without saying stop (killed, crashed): a phone nobody drives must not linger.
process.on("disconnect", () => void phone.stop().finally(() => process.exit(0)));
send({ op: "ready", serial: phone.serial, adbPort: phone.adbPort });
