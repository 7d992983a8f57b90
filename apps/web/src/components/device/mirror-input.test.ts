import type { UiNode } from "@phoneloop/device";
import { describe, expect, it } from "vitest";
import { focusedIsPassword, gestureOf, LONG_PRESS_MS, tapTargets, toDevicePoint, type Press } from "./mirror-input.ts";

const frame = { width: 1080, height: 2400 };

describe("a pointer on the mirror in device pixels", () => {
  it("maps the same spot of the screen to the same device pixel at any zoom", () => {
    for (const scale of [0.25, 0.3, 0.5, 1, 1.75]) {
      const box = { left: 40, top: 100, width: frame.width * scale, height: frame.height * scale };
      // The centre of a button at (540, 1800) on the phone, wherever the page shows it.
      expect(toDevicePoint(40 + 540 * scale, 100 + 1800 * scale, box, frame)).toEqual({ x: 540, y: 1800 });
      expect(toDevicePoint(40, 100, box, frame)).toEqual({ x: 0, y: 0 });
    }
  });

  it("leaves out the empty band of a box wider than the picture (object-fit: contain)", () => {
    // A 600 × 800 box: the picture is 360 × 800, centred, 120 px of band on each side.
    const box = { left: 0, top: 0, width: 600, height: 800 };
    expect(toDevicePoint(120 + 180, 400, box, frame)).toEqual({ x: 540, y: 1200 });
    expect(toDevicePoint(60, 400, box, frame)).toBeNull();
    expect(toDevicePoint(599, 400, box, frame)).toBeNull();
  });

  it("keeps the far edge on the screen", () => {
    const box = { left: 0, top: 0, width: 540, height: 1200 };
    expect(toDevicePoint(540, 1200, box, frame)).toEqual({ x: 1079, y: 2399 });
  });
});

const press = (dx: number, heldMs: number): Press => ({
  down: { client: { x: 100, y: 300 }, device: { x: 200, y: 600 }, at: 1000 },
  up: { client: { x: 100 + dx, y: 300 }, device: { x: 200 + dx * 2, y: 600 }, at: 1000 + heldMs },
});

describe("which gesture a press was", () => {
  it("a short press in place is a tap where it went down", () => {
    expect(gestureOf(press(3, 120))).toEqual({ type: "tap", x: 200, y: 600 });
  });
  it("held in place is a long press for as long as it was held", () => {
    expect(gestureOf(press(2, LONG_PRESS_MS + 300))).toEqual({ type: "long_press", x: 200, y: 600, durationMs: LONG_PRESS_MS + 300 });
    expect(gestureOf(press(2, LONG_PRESS_MS - 1)).type).toBe("tap");
  });
  it("moved is a swipe from where it went down to where it came up", () => {
    expect(gestureOf(press(150, 250))).toEqual({ type: "swipe", from: { x: 200, y: 600 }, to: { x: 500, y: 600 }, durationMs: 250 });
    expect(gestureOf(press(150, 10)).type === "swipe" && gestureOf(press(150, 10))).toMatchObject({ durationMs: 100 });
  });
});

const node = (over: Partial<UiNode>): UiNode => ({
  index: 0,
  text: "",
  resourceId: "",
  className: "android.widget.FrameLayout",
  packageName: "demo",
  contentDesc: "",
  checkable: false,
  checked: false,
  clickable: false,
  enabled: true,
  focusable: false,
  focused: false,
  scrollable: false,
  longClickable: false,
  password: false,
  selected: false,
  bounds: { left: 0, top: 0, right: 1080, bottom: 2400 },
  children: [],
  ...over,
});

describe("the screen's fields", () => {
  const user = node({ resourceId: "demo:id/user", className: "android.widget.EditText", clickable: true, focusable: true, bounds: { left: 100, top: 500, right: 980, bottom: 620 } });
  const pass = node({ resourceId: "demo:id/password", className: "android.widget.EditText", clickable: true, focusable: true, password: true, bounds: { left: 100, top: 700, right: 980, bottom: 820 } });
  const button = node({ clickable: true, bounds: { left: 100, top: 900, right: 500, bottom: 1000 }, children: [node({ text: "Sign in", bounds: { left: 120, top: 920, right: 480, bottom: 980 } })] });

  it("typing is secret when the focused field is a password field", () => {
    expect(focusedIsPassword(node({ children: [user, { ...pass, focused: true }] }))).toBe(true);
    expect(focusedIsPassword(node({ children: [{ ...user, focused: true }, pass] }))).toBe(false);
    expect(focusedIsPassword(null)).toBe(false);
  });

  it("lists the clickable elements with a name and the centre of their box", () => {
    expect(tapTargets(node({ children: [user, pass, button] }))).toEqual([
      { label: "user", x: 540, y: 560, password: false },
      { label: "password (password field)", x: 540, y: 760, password: true },
      { label: "Sign in", x: 300, y: 950, password: false },
    ]);
  });
});
