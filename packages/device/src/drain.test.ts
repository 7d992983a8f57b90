// Which lines of `ps -A -o PID,ARGS` are input commands, in the forms Android versions start them.
import { describe, expect, it } from "vitest";
import { inputCommandsIn } from "./drain.ts";

describe("inputCommandsIn", () => {
  it("finds input, cmd input and the Input class, and not the keyboard app or a grep for them", () => {
    const ps = [
      "  PID ARGS",
      "    1 /system/bin/init second_stage",
      " 1874 com.android.inputmethod.latin",
      "21004 input tap 540 1200",
      "21005 /system/bin/cmd input keyevent 4",
      "21006 app_process /system/bin com.android.commands.input.Input swipe 1 2 3 4 300",
      "21007 ps -A -o PID,ARGS",
      "21008 grep input",
      "",
    ].join("\n");
    expect(inputCommandsIn(ps)).toEqual(["input tap 540 1200", "/system/bin/cmd input keyevent 4", "app_process /system/bin com.android.commands.input.Input swipe 1 2 3 4 300"]);
    expect(inputCommandsIn("  PID ARGS\n    1 /system/bin/init\n")).toEqual([]);
  });
});
