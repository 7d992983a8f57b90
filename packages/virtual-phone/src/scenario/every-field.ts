// Scenarios that use every field of the format, in variants (screen size, density, rotation, locale, font scale,
// text lengths and scripts), for the test that renders and dumps them all. pack/examples/every-field.json is variant 0.
import type { ScenarioInput } from "./schema.ts";

export interface Variant {
  width: number;
  height: number;
  density: number;
  rotation: 0 | 1 | 2 | 3;
  locale: string | string[];
  fontScale: string;
  /** Repeats words in labels: 1 short, 3 long enough to wrap and stack. */
  wordiness: number;
  /** Latin, German compounds or CJK labels. */
  script: "latin" | "german" | "cjk";
  extendsPack: boolean;
}

export const VARIANTS: Variant[] = [
  { width: 1080, height: 2400, density: 420, rotation: 0, locale: "en-US", fontScale: "1.0", wordiness: 1, script: "latin", extendsPack: false },
  { width: 1080, height: 2400, density: 420, rotation: 1, locale: "de-DE", fontScale: "1.0", wordiness: 3, script: "german", extendsPack: false },
  { width: 720, height: 1280, density: 320, rotation: 0, locale: "zh-CN", fontScale: "1.3", wordiness: 2, script: "cjk", extendsPack: false },
  { width: 1440, height: 3200, density: 560, rotation: 3, locale: ["ja-JP", "zh-CN", "de-DE"], fontScale: "1.15", wordiness: 2, script: "cjk", extendsPack: true },
  { width: 480, height: 854, density: 240, rotation: 0, locale: "de-DE", fontScale: "2.0", wordiness: 3, script: "german", extendsPack: false },
];

const WORDS: Record<Variant["script"], string[]> = {
  latin: ["Save", "changes", "to", "your", "account", "now"],
  german: ["Änderungen", "Datenschutzeinstellungen", "übernehmen", "Benachrichtigungen", "jetzt"],
  cjk: ["保存", "更改", "到您的", "账户", "立即", "设置"],
};

export function everyFieldScenario(v: Variant): ScenarioInput {
  const words = WORDS[v.script];
  const say = (i: number, n = v.wordiness) => Array.from({ length: n }, (_, k) => words[(i + k) % words.length]).join(v.script === "cjk" ? "" : " ");
  const tiny = (i: number) => ({ type: "text" as const, id: `close_${i}`, text: "×", desc: `Close ${i}`, onTap: [{ do: "set" as const, var: "last", value: `close_${i}` }] });
  return {
    $schema: "../scenario.schema.json",
    name: `every-field-${v.width}x${v.height}-r${v.rotation}`,
    description: "Uses every field of the scenario format",
    ...(v.extendsPack ? { extends: "pack" as const } : {}),
    device: { width: v.width, height: v.height, density: v.density, model: "Every Field Phone" },
    start: { app: "gen", screen: "home" },
    settings: { system: { font_scale: v.fontScale, user_rotation: String(v.rotation) }, secure: {}, global: { wifi_on: "1" } },
    locale: v.locale,
    apps: [
      {
        id: "gen",
        package: "com.example.everyfield",
        label: say(0, 1),
        activity: ".MainActivity",
        color: "#00695c",
        icon: "★",
        start: "home",
        state: {
          name: "",
          secret: "",
          note: "",
          notify: true,
          agree: false,
          size: "M",
          last: "",
          query: "",
          count: 3,
          rows: [
            { title: say(1), done: false, qty: 1, price: 2.5 },
            { title: say(2), done: true, qty: 2, price: 10 },
            { title: say(3), done: false, qty: 0, price: 4.25 },
          ],
          empty: [],
        },
        computed: {
          total: { round: [{ sum: { in: { var: "rows" }, value: { mul: [{ item: "price" }, { item: "qty" }] }, where: { truthy: { item: "qty" } } } }, 2] },
          open: { count: { in: { var: "rows" }, where: { not: { truthy: { item: "done" } } } } },
          spread: { sub: [{ add: [{ var: "count" }, 10] }, { len: { var: "rows" } }] },
          shout: { lower: { var: "name" } },
        },
        screens: [
          {
            id: "home",
            activity: ".HomeActivity",
            appBar: { title: `${say(4)} {{count}}`, actions: [{ id: "act_search", icon: "search", desc: "Search", onTap: [{ do: "navigate", screen: "search", params: { query: "{{name}}" } }] }] },
            bottomNav: [
              { id: "nav_home", text: say(0, 1), icon: "home", screen: "home" },
              { id: "nav_search", text: say(1, 1), icon: "search", screen: "search" },
              { id: "nav_detail", text: say(2, 1), icon: "list", screen: "detail" },
            ],
            fab: { id: "fab_add", icon: "add", desc: "Add", onTap: [{ do: "append", var: "rows", value: { title: "{{name}}", done: false, qty: 1, price: 1 } }] },
            onOpen: [{ do: "log", event: "home_open", data: { count: "{{count}}" } }],
            background: "#fafafa",
            body: [
              { type: "text", id: "headline", text: say(5), style: "headline", class: "android.widget.TextView" },
              { type: "text", id: "title", text: `${say(0)} {{total | number:2}} · {{open}} · {{spread}}`, style: "title" },
              { type: "text", id: "body_text", text: `${say(1, 6)} {{total | currency:EUR}}`, style: "body", selected: { eq: [{ var: "size" }, "M"] } },
              { type: "text", id: "caption", text: "{{shout}} {{count | percent}}", style: "caption", visibleIf: { gte: [{ var: "count" }, 0] } },
              { type: "text", id: "link", text: say(2), style: "link", color: "#1565c0", height: 40, onTap: [{ do: "openUrl", url: "gen://detail/42" }], onLongPress: [{ do: "toast", text: "{{last}}" }] },
              { type: "row", id: "tiny_row", height: 48, children: Array.from({ length: 12 }, (_, i) => tiny(i)) },
              { type: "button", id: "btn_filled", text: say(3), style: "filled", onTap: [{ do: "increment", var: "count", by: 2 }] },
              { type: "button", id: "btn_outlined", text: say(4), style: "outlined", enabled: { lt: [{ var: "count" }, 100] }, onTap: [{ do: "showPopup", popup: "confirm" }] },
              { type: "button", id: "btn_text", text: say(5), style: "text", height: 56, onTap: [{ do: "loading", ms: 500 }] },
              { type: "button", id: "btn_danger", text: say(0), style: "danger", enabled: false, onTap: [{ do: "remove", var: "rows", at: 0 }] },
              { type: "input", id: "name", label: say(1, 1), hint: say(2), bind: "name", color: "#00695c", onSubmit: [{ do: "focus", field: "secret" }] },
              { type: "input", id: "secret", label: say(3, 1), hint: "••••", bind: "secret", password: true },
              { type: "input", id: "note", hint: say(4), bind: "note", multiline: true, height: 120 },
              { type: "switch", id: "notify", text: say(5), subtitle: say(0, 4), bind: "notify", color: "#00695c", onTap: [{ do: "log", event: "notify" }] },
              { type: "checkbox", id: "agree", text: say(1), bind: "agree", height: 64 },
              { type: "item", id: "item_bold", text: say(2), subtitle: say(3), trailing: "{{count}}", icon: "A", color: "#ef6c00", style: "bold", onTap: [{ do: "navigate", screen: "detail", replace: false }] },
              { type: "item", id: "item_plain", text: say(4), style: "plain", onTap: [{ do: "toggle", var: "agree" }] },
              { type: "post", id: "post", text: say(5, 12), author: say(0, 1), handle: "@every", stats: "3 ♥", color: "#5e35b1", onTap: [{ do: "set", var: "last", value: { from: { device: "screen" } } }] },
              {
                type: "list",
                id: "rows",
                itemsFrom: "rows",
                where: { ne: [{ item: "title" }, ""] },
                empty: say(1),
                template: {
                  type: "row",
                  children: [
                    { type: "checkbox", text: "{{item.title}}", bind: "item.done" },
                    { type: "text", text: "×{{item.qty}}" },
                    { type: "button", id: "row_more", text: "+", style: "outlined", onTap: [{ do: "increment", var: "item.qty" }] },
                  ],
                },
              },
              { type: "list", id: "nothing", itemsFrom: "empty", template: { type: "text", text: "{{item}}" }, empty: say(2) },
              {
                type: "list",
                id: "fixed",
                items: [
                  { type: "item", text: say(3), onTap: [{ do: "openApp", app: "other", screen: "main" }] },
                  { type: "item", text: say(4), visibleIf: { truthy: { var: "notify" } }, onTap: [{ do: "if", cond: { truthy: { var: "agree" } }, then: [{ do: "home" }], else: [{ do: "back" }] }] },
                ],
              },
              { type: "wheel", id: "size", label: say(5, 1), values: ["S", "M", "L", "XL"], bind: "size", color: "#00695c" },
              { type: "row", id: "chips", children: [0, 1, 2, 3, 4].map((i) => ({ type: "chip" as const, id: `chip_${i}`, text: say(i), selected: { eq: [{ var: "size" }, "M"] }, onTap: [{ do: "set" as const, var: "last", value: `chip_${i}` }] })) },
              { type: "image", id: "picture", icon: "☀", color: "#90caf9", height: 120, onTap: [{ do: "dismiss" }] },
              { type: "divider", id: "line", height: 2 },
              { type: "spacer", id: "gap", height: 24 },
              { type: "web", id: "page", height: 96, items: [{ type: "text", text: say(3) }, { type: "button", id: "page_button", text: say(4), style: "outlined", onTap: [{ do: "set", var: "last", value: "page_button" }] }] },
              { type: "text", id: "pinned", text: "⌖", bounds: [8, 120, 56, 168], flags: { clickable: true, focusable: true, longClickable: false, checkable: false, checked: false, scrollable: false, selected: false, password: false }, onTap: [{ do: "set", var: "last", value: "pinned" }] },
            ],
          },
          {
            id: "search",
            appBar: { back: true, search: { id: "search_input", hint: say(1), bind: "query", onSubmit: [{ do: "loading", ms: 300 }] } },
            loadingMs: 200,
            onBack: [{ do: "navigate", screen: "home", replace: true }],
            body: [{ type: "text", text: "{{query}}" }],
          },
          { id: "detail", appBar: { title: say(2), back: true }, body: [{ type: "post", text: say(3, 20), author: say(4, 1) }] },
        ],
        popups: [
          {
            id: "confirm",
            kind: "custom",
            style: "dialog",
            title: say(0, 4),
            message: say(1, 30),
            items: [{ type: "item", text: say(2), icon: "B" }],
            buttons: [
              { id: "confirm_keep", text: say(3), style: "text", onTap: [{ do: "dismiss" }] },
              { id: "confirm_drop", text: say(4), style: "danger", onTap: [{ do: "dismiss" }] },
              { id: "confirm_save", text: say(5), style: "filled" },
            ],
            dismissOnBack: true,
          },
          {
            id: "update",
            kind: "update",
            style: "sheet",
            title: say(1, 3),
            message: say(2, 10),
            buttons: [
              { id: "update_now", text: say(3) },
              { id: "update_later", text: say(4), style: "outlined" },
            ],
            trigger: { on: "appOpen", probability: 1, once: true, unless: { truthy: { var: "agree" } }, delayMs: 1000 },
          },
          {
            id: "login",
            kind: "login",
            style: "fullscreen",
            title: say(2, 3),
            message: say(3, 8),
            buttons: [
              { id: "login_go", text: say(4) },
              { id: "login_skip", text: say(5), style: "text" },
            ],
            trigger: { on: "actions", after: 50 },
            dismissOnBack: false,
          },
          {
            id: "follow",
            kind: "follow",
            title: say(3, 2),
            buttons: [{ id: "follow_ok", text: "OK" }],
            trigger: { on: "screen", screen: "detail", once: false },
          },
          {
            id: "permission",
            kind: "permission",
            style: "dialog",
            package: "com.android.permissioncontroller",
            title: say(4, 5),
            buttons: [
              { id: "permission_allow_button", text: say(5) },
              { id: "permission_deny_button", text: say(0) },
            ],
          },
          { id: "rating", kind: "rating", title: say(5, 2), buttons: [{ id: "rating_ok", text: say(0, 1) }] },
          {
            id: "headsup",
            kind: "custom",
            style: "notification",
            title: say(1, 2),
            message: say(2),
            dismissOnBack: false,
            buttons: [
              { id: "headsup_read", text: say(3, 1) },
              { id: "headsup_mute", text: say(4, 1) },
            ],
          },
        ],
        deeplinks: [{ pattern: "gen://detail/{id}", screen: "detail", set: { last: "{{id}}" } }],
      },
      { id: "other", package: "com.example.other", label: say(1, 1), start: "main", screens: [{ id: "main", body: [{ type: "text", text: say(2) }] }] },
    ],
    tasks: [
      {
        id: "every_predicate",
        goal: "Do it for {who}",
        apps: ["gen"],
        params: { who: "Ada", min: 1 },
        variants: [{ who: "Grace", min: 2 }],
        maxSteps: 20,
        tags: ["generated"],
        setup: [{ do: "set", var: "name", value: { from: { param: "who" } } }],
        evaluator: {
          checks: [
            { name: "eq", weight: 2, when: { eq: [{ var: "gen:name" }, { param: "who" }] } },
            { name: "ne lt lte gt gte", when: { all: [{ ne: [{ var: "gen:count" }, 0] }, { lt: [{ var: "gen:count" }, 100] }, { lte: [{ var: "gen:count" }, 100] }, { gt: [{ var: "gen:count" }, { param: "min" }] }, { gte: [{ var: "gen:count" }, 1] }] } },
            { name: "contains icontains matches", when: { any: [{ contains: [{ var: "gen:name" }, "Ad"] }, { icontains: [{ answer: true }, "ada"] }, { matches: [{ var: "gen:name" }, "^a"] }] } },
            { name: "lists", when: { all: [{ some: { in: { var: "gen:rows" }, where: { truthy: { item: "done" } } } }, { none: { in: { var: "gen:rows" }, where: { gt: [{ item: "qty" }, 99] } } }, { count: { in: { var: "gen:rows" }, gte: 1, lte: 10, eq: 3 } }] } },
            {
              name: "device",
              when: {
                all: [
                  { eq: [{ device: "foreground" }, "gen"] },
                  { eq: [{ device: "screen" }, "home"] },
                  { truthy: { device: "ime" } },
                  { not: { truthy: { device: "keyboard" } } },
                  { not: { truthy: { device: "focused" } } },
                  { gte: [{ device: "actions" }, 0] },
                  { truthy: { device: "locale" } },
                  { gte: [{ device: "rotation" }, 0] },
                  { none: { in: { device: "log" }, where: { eq: [{ item: "event" }, "never"] } } },
                  { eq: [{ len: { var: "gen:rows" } }, 3] },
                ],
              },
            },
            { name: "order", when: { sequence: [{ eq: [{ item: "event" }, "home_open"] }] } },
          ],
          failIf: [{ reason: "asked about nothing", when: { all: [{ asked: { matches: "nothing" } }, { eq: [{ device: "popup" }, "nothing"] }] } }],
        },
      },
    ],
  };
}
