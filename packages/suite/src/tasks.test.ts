import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { availableTasks, PACK_SCENARIO, selectTasks } from "./tasks.ts";

const TIPS = fileURLToPath(new URL("../../virtual-phone/src/pack/examples/tip-calculator.json", import.meta.url));

describe("task selection", () => {
  it("the pack's tasks by glob (several comma-separated), in the pack's order, on the launcher's scenario", () => {
    const all = availableTasks();
    expect(all.length).toBe(30);
    // A task that needs a person on the phone (a takeover) is not the suite's: it answers gates, it has no hands.
    expect(all.map((t) => t.id)).not.toContain("social_sign_in_profile");
    expect(new Set(all.map((t) => t.scenario))).toEqual(new Set([PACK_SCENARIO]));
    expect(selectTasks("settings_*").map((t) => t.id)).toEqual(["settings_wifi_off", "settings_bluetooth_on", "settings_font_largest", "settings_connect_cafe", "settings_bluetooth_from_home"]);
    expect(selectTasks("{mail,notes}_chinese*, social_login").map((t) => t.id)).toEqual(["notes_chinese", "mail_chinese_reply_calendar", "social_login"]);
    expect(selectTasks("*").length).toBe(30);
    const shop = selectTasks("shop_checkout")[0]!;
    expect(shop.goal).toBe("Buy one 'Coffee beans 1kg' and have it shipped to '1 Market St, San Francisco', paying with the saved card.");
  });

  it("a task's variant by reference (task@n), every variant of a glob's tasks (@*), each named so in the report", () => {
    const one = selectTasks("notes_create@1")[0]!;
    expect(one).toMatchObject({ id: "notes_create@1", task: "notes_create", variant: 1, variants: 2, goal: "Create a note titled 'Weekend plans' containing 'hike, laundry, call mom'." });
    expect(selectTasks("notes_create")[0]).toMatchObject({ id: "notes_create", task: "notes_create", variant: 0, goal: "Create a note titled 'Groceries' containing 'milk, eggs, bread'." });
    expect(selectTasks("notes_*@*, contacts_add").map((t) => t.id)).toEqual(["contacts_add", "notes_create@1", "notes_create@2", "notes_chinese@1"]);
    // a glob's tasks without that variant are skipped; a task named exactly with a variant it lacks is refused
    expect(selectTasks("calendar_*@2").map((t) => t.id)).toEqual(["calendar_add_event@2"]);
    expect(() => selectTasks("notes_create@3")).toThrow(/task "notes_create" has no variant 3: its variants are 1 to 2/);
    expect(() => selectTasks("settings_wifi_off@1")).toThrow(/task "settings_wifi_off" has no variant 1: its variants are none/);
  });

  it("a folder's scenario files: each task on its own file; a task named twice is refused, naming both files", () => {
    const dir = mkdtempSync(join(tmpdir(), "suite-scenarios-"));
    copyFileSync(TIPS, join(dir, "a-tips.json"));
    writeFileSync(join(dir, "notes.txt"), "not a scenario");
    const tasks = availableTasks(dir);
    expect(tasks.map((t) => [t.id, t.scenario])).toEqual([["tips_save_20", join(dir, "a-tips.json")]]);
    expect(() => selectTasks("settings_*", dir)).toThrow(/no task matches --tasks settings_\*; the tasks are: tips_save_20/);
    const again = JSON.parse(readFileSync(TIPS, "utf8")) as { name: string };
    writeFileSync(join(dir, "b-tips.json"), JSON.stringify({ ...again, name: "tips again" }));
    expect(() => availableTasks(dir)).toThrow(/task "tips_save_20" is in both a-tips\.json and b-tips\.json/);
    expect(() => availableTasks(join(dir, "missing"))).toThrow(/--scenarios .*missing: .*give a folder of scenario JSON files/);
  });
});
