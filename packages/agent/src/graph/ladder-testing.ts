// For the runtime's resilience tests (a worker killed or cut off from the state core, model endpoint faults): the
// ladder phone, on which every tap shows in the device log as its row.
import type { Device } from "../ports.ts";
import { FakePhone, box, type FakeScreen } from "../testing/fake-phone.ts";
import { act, type ScriptedReply } from "../testing/scripted-model-server.ts";

/** Eight screens of eight rows ("Item 0" … "Item 7") on distinct backgrounds; a tap on a row moves one screen on. */
export function ladderPhone(): FakePhone {
  const screens: Record<string, FakeScreen> = {};
  for (let i = 0; i < 8; i++)
    screens[`p${i}`] = {
      app: "com.example.notes",
      background: ["#101", "#a11", "#1a1", "#11a", "#aa1", "#1aa", "#a1a", "#999"][i]!,
      elements: Array.from({ length: 8 }, (_, j) => ({ id: `b${j}`, text: `Item ${j}`, bounds: box(50, 100 * j + 50, 950, 100 * j + 120), clickable: true, onTap: `p${Math.min(7, i + 1)}` })),
    };
  return new FakePhone(screens, "p0");
}

/** The executor's reply that taps row `j` of a ladder screen. */
export const tapRow = (j: number): ScriptedReply => act({ type: "click", x: 500, y: 100 * j + 85 });

/** The rows tapped on the ladder phone, in order. */
export const tappedRows = (phone: FakePhone): number[] =>
  phone.actions().filter((c) => c.op === "tap").map((c) => Math.floor(((c.args[0] as { y: number }).y / 2400) * 10));

/** The phone, calling `afterTap` with the tap's number (1, 2, …) once each tap has reached it. */
export function onEachTap(phone: FakePhone, afterTap: (n: number) => void): Device {
  let taps = 0;
  return Object.assign(Object.create(phone) as FakePhone, {
    tap: async (p: { x: number; y: number }) => {
      await phone.tap(p);
      afterTap(++taps);
    },
  });
}
