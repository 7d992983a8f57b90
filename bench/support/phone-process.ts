// A virtual phone in its own process (as a real phone is), driven over IPC by a benchmark: it reports its ports,
// sets the social feed up for scrolling, and answers with its own render timings and the current frame's hash.
import { createHash } from "node:crypto";
import { startVirtualPhone } from "@phoneloop/virtual-phone";

export type PhoneRequest = { id: number; op: "feed" } | { id: number; op: "frame" } | { id: number; op: "stop" };
export type PhoneReply =
  | { id: number; op: "feed" }
  /** `renders`: new frames rendered so far; `lastRenderMs`: the phone's layout+paint+PNG time of the newest one. */
  | { id: number; op: "frame"; sha1: string; renders: number; lastRenderMs: number }
  | { id: number; op: "stop" };
export type PhoneReady = { op: "ready"; serial: string; adbPort: number; controlUrl: string; controlToken: string };

const send = (m: PhoneReply | PhoneReady) => process.send!(m);
// argv[2]: the public keys (JSON array of adbkey.pub lines) the phone already lists in adb_keys
const adbKeys = JSON.parse(process.argv[2] ?? "[]") as string[];
const phone = await startVirtualPhone({ scenario: "social", seed: 1, adbPort: 0, wsPort: 0, controlPort: 0, adbKeys });
const engine = phone.engine;

process.on("message", (m: PhoneRequest) => {
  void (async () => {
    switch (m.op) {
      case "feed":
        engine.runtime.dismissPopup();
        engine.runtime.writeRef("social:loggedIn", null, true); // no login wall: every swipe scrolls the feed
        return send({ id: m.id, op: "feed" });
      case "frame": {
        // Asked after a client's screenshot: the frame is cached by then, so this adds no render.
        const png = await engine.screenshot();
        const renders = engine.encodeStats.uncached;
        return send({ id: m.id, op: "frame", sha1: createHash("sha1").update(png).digest("hex"), renders: renders.length, lastRenderMs: renders.at(-1) ?? NaN });
      }
      case "stop":
        await phone.stop();
        send({ id: m.id, op: "stop" });
        return process.disconnect();
    }
  })();
});
// The benchmark went away without saying stop (killed, crashed): a phone nobody drives must not linger.
process.on("disconnect", () => void phone.stop().finally(() => process.exit(0)));
send({ op: "ready", serial: phone.serial, adbPort: phone.adbPort, controlUrl: phone.controlUrl, controlToken: phone.controlToken });
