// The policy's reading of requests and its plans, without a phone: every pack task has a plan whose steps name a
// move, a goal is recognised with other values than the pack's, and replies are JSON a model could send.
import { describe, expect, it } from "vitest";
import { taskGoal } from "@phoneloop/virtual-phone";
import { answerRequest, asciiJson } from "./policy.ts";
import { parseElementLine, readRequest } from "./request.ts";
import { planFor, PLANNED_TASKS } from "./plans.ts";
import { matchTask, packTasks } from "./tasks.ts";

const executorBody = (goal: string, todo: string, screen: string, history = "") => ({
  model: "reference-policy",
  response_format: { type: "json_schema", json_schema: { name: "phone_action", schema: {} } },
  messages: [
    { role: "system", content: "You operate an Android phone." },
    {
      role: "user",
      content: [
        {
          type: "text",
          text: [`GOAL: ${goal}`, `TODO: ${todo}`, ...(history ? [`HISTORY (earlier steps):\n<untrusted-data source="history">\n${history}\n</untrusted-data>`] : []), `SCREEN: app "com.phoneloop.settings/.Settings", 1080x2400. Elements:`, `<untrusted-data source="screen">\n${screen}\n</untrusted-data>`, "Your action (one JSON object):"].join("\n"),
        },
      ],
    },
  ],
});

describe("reference policy", () => {
  it("has a plan for every task of the pack, each step with a move or a computation", () => {
    const tasks = packTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(30);
    expect([...PLANNED_TASKS].sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const task of tasks) {
      const goal = taskGoal(task);
      const matched = matchTask(goal);
      expect(matched?.task.id, goal).toBe(task.id);
      const plan = planFor(matched!, goal);
      expect(plan.length, task.id).toBeGreaterThan(0);
      for (const [i, todo] of plan.entries()) {
        expect(todo.title).toMatch(new RegExp(`^Step ${i + 1} of ${plan.length}: `));
        expect(todo.move ?? todo.compute, todo.title).toBeDefined();
      }
    }
  });

  it("asks a person to take over at a login form whose password the goal does not give, and goes on once the screen shows the account signed in", () => {
    const goal = "Sign in to Loop as agent_tester and open your profile.";
    const todo = "Step 5 of 5: In Loop, have a person type the password and sign in (the goal does not give it)";
    const form = [`[1] "TextView"(text) "Log in to Loop" @[0,60,1000,120]`, `[2] "EditText"(editable) "agent_tester" id="username" @[40,200,960,260]`, `[3] "EditText"(editable,password) "" id="password" @[40,300,960,360]`, `[4] "Button" "Log in" id="login_button" @[40,400,960,460]`].join("\n");
    const ask = JSON.parse(answerRequest(executorBody(goal, todo, form))) as Record<string, unknown>;
    expect(ask).toMatchObject({ type: "ask_takeover", reason: "login" });
    const handedBack = `#9 ask_takeover login "Please type the password" → a person took over and handed the phone back`;
    const profile = [`[1] "TextView"(text) "Profile" @[0,60,1000,120]`, `[2] "TextView"(text) "Logged in as @agent_tester" @[0,200,1000,260]`].join("\n");
    expect(JSON.parse(answerRequest(executorBody(goal, todo, profile, handedBack)))).toMatchObject({ type: "status", status: "complete" });
    // Handed back on the form, not signed in: the policy does not ask again.
    expect(JSON.parse(answerRequest(executorBody(goal, todo, form, handedBack)))).toMatchObject({ type: "status", status: "infeasible" });
  });

  it("reads a goal written from a template with other values", () => {
    const m = matchTask("Connect to the Wi-Fi network 'Library 5G'.");
    expect(m).toMatchObject({ task: { id: "settings_connect_cafe" }, params: { ssid: "Library 5G" } });
    expect(matchTask("Water the plants")).toBeNull();
  });

  it("parses the executor's element lines", () => {
    expect(parseElementLine(`[3] "Switch" "Wi-Fi" id="wifi_switch" @[10,40,120,80]`)).toEqual({ index: 3, className: "Switch", flags: [], text: "Wi-Fi", id: "wifi_switch", box: [10, 40, 120, 80] });
    expect(parseElementLine(`[4] "TextView"(text) "say \\"hi\\"" @[0,0,1,1]`)).toMatchObject({ flags: ["text"], text: 'say "hi"', id: "" });
    expect(parseElementLine("not an element")).toBeNull();
  });

  it("taps the element its todo names, then reports the todo complete once its history shows the tap", () => {
    const screen = [`[1] "TextView"(text) "Settings" @[0,0,100,30]`, `[2] "LinearLayout" "Network & internet" @[0,100,1000,160]`].join("\n");
    const todo = 'Step 2 of 3: In Settings, tap "Network & internet"';
    const first = JSON.parse(answerRequest(executorBody("Turn off Wi-Fi.", todo, screen))) as Record<string, unknown>;
    expect(first).toMatchObject({ type: "click", element: "2" });
    const then = JSON.parse(answerRequest(executorBody("Turn off Wi-Fi.", todo, screen, `#4 click element "2" → ok`))) as Record<string, unknown>;
    expect(then).toMatchObject({ type: "status", status: "complete" });
  });

  it("taps the row that holds the words, not the list around it whose text holds every row's (a screen in landscape)", () => {
    const screen = [
      `[3] "ScrollView"(scrollable) "Use Bluetooth OFF Saved devices Pair new device" id=paired_list @[0,214,1000,883]`,
      `[4] "LinearLayout" "Use Bluetooth OFF" @[0,214,1000,350]`,
      `[5] "Switch" "OFF" id=bluetooth_switch @[925,244,983,321]`,
    ].join("\n");
    const todo = 'Step 3 of 4: In Connected devices, tap "Use Bluetooth"';
    const r = JSON.parse(answerRequest(executorBody("Turn on Bluetooth.", todo, screen))) as Record<string, unknown>;
    expect(r).toMatchObject({ type: "click", element: "4" });
  });

  it("dismisses a popup in the way before its move", () => {
    const screen = [`[1] "TextView"(text) "Update available" @[0,0,100,30]`, `[2] "Button" "Later" id="update_later" @[500,500,600,550]`].join("\n");
    const r = JSON.parse(answerRequest(executorBody("Turn off Wi-Fi.", "Step 1 of 3: Open Settings", screen))) as Record<string, unknown>;
    expect(r).toMatchObject({ type: "click", element: "Later" });
  });

  it("puts away a heads-up notification, a network error page and prompts in Chinese before its move, and does not count them as its move", () => {
    const todo = 'Step 2 of 3: In Settings, tap "Network & internet"';
    const under = `[9] "LinearLayout" "Network & internet" @[0,100,1000,160]`;
    const cases: [string, string][] = [
      [`[1] "TextView"(text) "Ana Lima" @[0,0,1000,40]\n[2] "Button" "Mark as read" @[0,60,300,90]\n[3] "Button" "Mute" @[300,60,600,90]`, "Mark as read"],
      [`[1] "TextView"(text) "No connection" @[0,300,1000,340]\n[2] "Button" "Retry" @[300,500,700,560]`, "Retry"],
      [`[1] "TextView"(text) "要允许“Settings”向您发送通知吗？" @[0,300,1000,340]\n[2] "Button" "允许" @[0,500,400,560]\n[3] "Button" "不允许" @[500,500,900,560]`, "不允许"],
      [`[1] "Button" "标为已读" @[0,60,300,90]`, "标为已读"],
      [`[1] "Button" "重试" @[300,500,700,560]`, "重试"],
      [`[1] "Button" "以后再说" @[300,500,700,560]\n[2] "Button" "知道了" @[700,500,900,560]`, "以后再说"],
    ];
    for (const [over, label] of cases) {
      const r = JSON.parse(answerRequest(executorBody("Turn off Wi-Fi.", todo, `${over}\n${under}`))) as Record<string, unknown>;
      expect(r, label).toMatchObject({ type: "click", element: label });
      // once put away, the move is still to be made
      const next = JSON.parse(answerRequest(executorBody("Turn off Wi-Fi.", todo, under, `#4 click element ${JSON.stringify(label)} → ok`))) as Record<string, unknown>;
      expect(next, label).toMatchObject({ type: "click", element: "9" });
    }
  });

  it("closes the keyboard the todo before typed with when it may cover the next target, even when the keyboard shows no elements", () => {
    const goal = taskGoal(packTasks().find((t) => t.id === "messages_send")!);
    const plan = planFor(matchTask(goal)!, goal);
    const n = plan.findIndex((t) => t.move?.do === "hide_keyboard");
    expect(plan[n - 1]!.move?.do).toBe("type");
    // the keyboard covers Send (a landscape screen): back closes it
    const compose = `[4] "EditText"(editable) "Yes" id="compose_message_text" @[0,500,800,560]`;
    const hide = JSON.parse(answerRequest(executorBody(goal, plan[n]!.title, compose))) as Record<string, unknown>;
    expect(hide).toMatchObject({ type: "navigate_back" });
    // Send in sight: no back (the keyboard may be gone already, and back would leave the screen)
    const withSend = `${compose}\n[5] "Button" "Send" id="send" @[820,500,1000,560]`;
    expect(JSON.parse(answerRequest(executorBody(goal, plan[n]!.title, withSend)))).toMatchObject({ type: "status", status: "complete" });
    expect(JSON.parse(answerRequest(executorBody(goal, plan[n]!.title, compose, "#9 navigate_back → ok")))).toMatchObject({ type: "status", status: "complete" });
    // a todo that is not after a typing one does not press back
    const first = JSON.parse(answerRequest(executorBody(goal, plan[0]!.title, compose))) as Record<string, unknown>;
    expect(first).not.toMatchObject({ type: "navigate_back" });
  });

  it("types again, once, when a network error page's Retry reloaded the screen after the typing and the text is gone", () => {
    const goal = taskGoal(packTasks().find((t) => t.id === "notes_create")!);
    const plan = planFor(matchTask(goal)!, goal);
    const todo = plan.find((t) => t.move?.do === "type")!;
    const empty = `[3] "EditText"(editable) "" id="note_title" @[0,100,1000,160]`;
    const typedThenRetry = `#5 click_then_type element "3" "Groceries" → ok\n#6 click element "Retry" → ok`;
    expect(JSON.parse(answerRequest(executorBody(goal, todo.title, empty, typedThenRetry)))).toMatchObject({ type: "click_then_type", element: "3", text: "Groceries" });
    const kept = `[3] "EditText"(editable) "Groceries" id="note_title" @[0,100,1000,160]`;
    expect(JSON.parse(answerRequest(executorBody(goal, todo.title, kept, typedThenRetry)))).toMatchObject({ type: "status", status: "complete" });
    // nothing was put away after the typing: done, whatever the field shows
    expect(JSON.parse(answerRequest(executorBody(goal, todo.title, empty, `#5 click_then_type element "3" "Groceries" → ok`)))).toMatchObject({ type: "status", status: "complete" });
  });

  it("a todo that is not its own is reported infeasible, not guessed", () => {
    const r = JSON.parse(answerRequest(executorBody("Water the plants", "Water them", ""))) as Record<string, unknown>;
    expect(r).toMatchObject({ type: "status", status: "infeasible" });
  });

  it("writes JSON with non-ASCII escaped, which parses back to the same text", () => {
    const text = "明天中午十二点见，不见不散";
    const json = asciiJson({ text });
    expect(json).toMatch(/^[\x20-\x7e]*$/);
    expect(JSON.parse(json)).toEqual({ text });
  });

  it("knows which call a request is by the schema name the runtime asks for", () => {
    expect(readRequest({ response_format: { json_schema: { name: "plan" } }, messages: [] }).kind).toBe("plan");
    expect(readRequest({ messages: [{ role: "user", content: "GOAL: x\nHOST TODO (no screen needed): y\n" }] }).kind).toBe("host");
  });
});
