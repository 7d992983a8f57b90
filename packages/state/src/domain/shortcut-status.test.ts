// A shortcut's status in words: the known `am start` failures and the wrong screen are said in words with what to
// do, and the raw text never reaches the words.
import { describe, expect, it } from "vitest";
import { shortcutStatusText } from "./shortcut-status.ts";

const sc = { uri: "loop://search", activity: "com.loop/.Search" };
const retired = (reason: string) => shortcutStatusText({ ...sc, status: "retired", reason });

describe("shortcutStatusText", () => {
  it("says what each known failure of a try means and what to do, never the phone's raw text", () => {
    const cases: [string, RegExp][] = [
      ["the phone could not open loop://search: Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=loop://search flg=0x10000000 }", /No app on the phone opens this link/],
      ["the phone could not open loop://search: Error type 3\nError: Activity class {com.loop/com.loop.Search} does not exist.", /is not in the installed app/],
      ["the phone could not open loop://search: java.lang.SecurityException: Permission Denial: starting Intent { act=android.intent.action.VIEW } from null (pid=4242, uid=2000) not exported from uid 10123", /does not let other apps open this screen/],
      ["the phone could not open loop://search: adb: device offline", /stopped answering/],
      ["loop://search opened com.loop .Login instead of com.loop/.Search", /opened another screen \(com\.loop \.Login\) instead of com\.loop\/\.Search/],
      ["loop://search opened no known screen instead of com.loop/.Search", /Nothing the app declares appeared/],
      ["something nobody has seen before", /did not open com\.loop\/\.Search/],
    ];
    for (const [reason, summary] of cases) {
      const text = retired(reason);
      expect(text.summary, reason).toMatch(summary);
      expect(text.summary).toMatch(/Runs are no longer offered it\.$/);
      expect(text.whatToDo).toBeTruthy();
      for (const raw of ["Error:", "Intent {", "java.lang", "uid=", "adb:"]) expect(`${text.summary} ${text.whatToDo}`).not.toContain(raw);
    }
  });
  it("a shortcut not tried yet or that works needs nothing", () => {
    expect(shortcutStatusText({ ...sc, status: "discovered", reason: null })).toEqual({ summary: expect.stringMatching(/^Not tried yet/), whatToDo: null });
    expect(shortcutStatusText({ ...sc, status: "validated", reason: null })).toEqual({ summary: "Works: it opens com.loop/.Search. The planner is offered it.", whatToDo: null });
  });
});
