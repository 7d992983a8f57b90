// The scenario format: apps, screens, elements, popups, deeplinks and tasks with declarative evaluators.
import { z } from "zod";

/** A value in a predicate or action: a literal, or a reference resolved against app/device state. */
export type Operand =
  | string
  | number
  | boolean
  | null
  | { var: string }
  | { param: string }
  | { item: string }
  | { answer: true }
  | { len: Operand }
  | { lower: Operand }
  | { sum: { in: Operand; value?: Operand; where?: Predicate } }
  | { count: { in: Operand; where?: Predicate } }
  | { add: Operand[] }
  | { sub: [Operand, Operand] }
  | { mul: Operand[] }
  | { round: [Operand, number] }
  | { device: DeviceField };

export const DEVICE_FIELDS = ["foreground", "screen", "ime", "keyboard", "popup", "focused", "actions", "log", "locale", "rotation"] as const;
export type DeviceField = (typeof DEVICE_FIELDS)[number];

export const Operand: z.ZodType<Operand> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.strictObject({ var: z.string().min(1).describe("state reference: 'app:path.to.value', 'settings:system.font_scale', or a path in the current app") }),
    z.strictObject({ param: z.string().min(1).describe("a task parameter") }),
    z.strictObject({ item: z.string().describe("a field of the current list item ('' for the item itself)") }),
    z.strictObject({ answer: z.literal(true).describe("the agent's final answer text") }),
    z.strictObject({ len: Operand }),
    z.strictObject({ lower: Operand }),
    z.strictObject({
      sum: z
        .strictObject({ in: Operand, value: Operand.optional().describe("what each entry adds, read with the entry as {item: …} (the entry itself when absent)"), where: Predicate.optional() })
        .describe("the sum over a list, e.g. a cart total: {in: {var: 'cart'}, value: {mul: [{item: 'price'}, {item: 'qty'}]}}"),
    }),
    z.strictObject({ count: z.strictObject({ in: Operand, where: Predicate.optional() }).describe("how many entries of a list match") }),
    z.strictObject({ add: z.array(Operand).min(1).describe("the numbers added") }),
    z.strictObject({ sub: z.tuple([Operand, Operand]).describe("the first number minus the second") }),
    z.strictObject({ mul: z.array(Operand).min(1).describe("the numbers multiplied") }),
    z.strictObject({ round: z.tuple([Operand, z.number().int().min(0).max(10)]).describe("[number, decimal places]") }),
    z.strictObject({
      device: z.enum(DEVICE_FIELDS).describe("the phone: log is every event so far (screen, popup, ask_user, …), locale the BCP 47 tag, rotation 0-3"),
    }),
  ]),
);

export type Predicate =
  | { eq: [Operand, Operand] }
  | { ne: [Operand, Operand] }
  | { gt: [Operand, Operand] }
  | { gte: [Operand, Operand] }
  | { lt: [Operand, Operand] }
  | { lte: [Operand, Operand] }
  | { contains: [Operand, Operand] }
  | { icontains: [Operand, Operand] }
  | { matches: [Operand, string] }
  | { truthy: Operand }
  | { all: Predicate[] }
  | { any: Predicate[] }
  | { not: Predicate }
  | { some: { in: Operand; where: Predicate } }
  | { none: { in: Operand; where: Predicate } }
  | { count: { in: Operand; where?: Predicate; gte?: number; lte?: number; eq?: number } }
  | { sequence: Predicate[] }
  | { asked: { matches?: string } };

const pair = z.tuple([Operand, Operand]);
export const Predicate: z.ZodType<Predicate> = z.lazy(() =>
  z.union([
    z.strictObject({ eq: pair }),
    z.strictObject({ ne: pair }),
    z.strictObject({ gt: pair }),
    z.strictObject({ gte: pair }),
    z.strictObject({ lt: pair }),
    z.strictObject({ lte: pair }),
    z.strictObject({ contains: pair.describe("string contains substring, or array contains value") }),
    z.strictObject({ icontains: pair }),
    z.strictObject({ matches: z.tuple([Operand, z.string()]) }),
    z.strictObject({ truthy: Operand }),
    z.strictObject({ all: z.array(Predicate) }),
    z.strictObject({ any: z.array(Predicate) }),
    z.strictObject({ not: Predicate }),
    z.strictObject({ some: z.strictObject({ in: Operand, where: Predicate }) }),
    z.strictObject({ none: z.strictObject({ in: Operand, where: Predicate }) }),
    z.strictObject({
      count: z.strictObject({ in: Operand, where: Predicate.optional(), gte: z.number().optional(), lte: z.number().optional(), eq: z.number().optional() }),
    }),
    z.strictObject({
      sequence: z
        .array(Predicate)
        .min(1)
        .describe("events happened in this order: each predicate matches one entry of the phone's event log ({item: 'event'}, {item: 'screen'}, …), later entries for later predicates; other events may come between"),
    }),
    z.strictObject({
      asked: z
        .strictObject({ matches: z.string().optional().describe("a regular expression the question must match (case-insensitive)") })
        .describe("the agent asked the user (an ask_user event in the log, left by the agent's runtime through POST /events)"),
    }),
  ]),
);

/** A JSON value whose strings may hold {{templates}}. */
export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export const Json: z.ZodType<Json> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(Json), z.record(z.string(), Json)]));

export type Action =
  | { do: "navigate"; screen: string; params?: Record<string, Json>; replace?: boolean }
  | { do: "back" }
  | { do: "home" }
  | { do: "set"; var: string; value: Json | { from: Operand } }
  | { do: "append"; var: string; value: Json }
  | { do: "remove"; var: string; where?: Predicate; at?: Json }
  | { do: "toggle"; var: string }
  | { do: "increment"; var: string; by?: number }
  | { do: "openApp"; app: string; screen?: string }
  | { do: "openUrl"; url: string }
  | { do: "showPopup"; popup: string }
  | { do: "dismiss" }
  | { do: "toast"; text: string }
  | { do: "focus"; field: string }
  | { do: "loading"; ms: number }
  | { do: "log"; event: string; data?: Record<string, Json> }
  | { do: "if"; cond: Predicate; then: Action[]; else?: Action[] };

export const Action: z.ZodType<Action> = z.lazy(() =>
  z.discriminatedUnion("do", [
    z.strictObject({ do: z.literal("navigate"), screen: z.string(), params: z.record(z.string(), Json).optional(), replace: z.boolean().optional() }),
    z.strictObject({ do: z.literal("back") }),
    z.strictObject({ do: z.literal("home") }),
    z.strictObject({ do: z.literal("set"), var: z.string(), value: z.union([z.strictObject({ from: Operand }), Json]) }),
    z.strictObject({ do: z.literal("append"), var: z.string(), value: Json }),
    z.strictObject({ do: z.literal("remove"), var: z.string(), where: Predicate.optional(), at: Json.optional().describe("an index, e.g. \"{{item.index}}\"") }),
    z.strictObject({ do: z.literal("toggle"), var: z.string() }),
    z.strictObject({ do: z.literal("increment"), var: z.string(), by: z.number().optional() }),
    z.strictObject({ do: z.literal("openApp"), app: z.string(), screen: z.string().optional() }),
    z.strictObject({ do: z.literal("openUrl"), url: z.string() }),
    z.strictObject({ do: z.literal("showPopup"), popup: z.string() }),
    z.strictObject({ do: z.literal("dismiss") }),
    z.strictObject({ do: z.literal("toast"), text: z.string() }),
    z.strictObject({ do: z.literal("focus"), field: z.string() }),
    z.strictObject({ do: z.literal("loading"), ms: z.number().int().min(0).max(60_000) }),
    z.strictObject({ do: z.literal("log"), event: z.string(), data: z.record(z.string(), Json).optional() }),
    z.strictObject({ do: z.literal("if"), cond: Predicate, then: z.array(Action), else: z.array(Action).optional() }),
  ]),
);

const Actions = z.array(Action);
const Bounds = z.tuple([z.number(), z.number(), z.number(), z.number()]).describe("[left, top, right, bottom] in dp from the screen's top-left corner (dp = device pixels × 160 / density, like every size in this format)");

const elementBase = {
  id: z.string().regex(/^[a-z][a-z0-9_]*$/, "ids are lower_snake_case").optional().describe("becomes resource-id '<package>:id/<id>'"),
  text: z.string().optional(),
  desc: z.string().optional().describe("content-desc"),
  class: z.string().optional().describe("Android class name override"),
  bounds: Bounds.optional(),
  height: z.number().int().positive().optional().describe("height in dp (text, button, input, switch, checkbox, item, image, spacer, divider, row); clickable elements keep the 48 dp minimum touch target"),
  visibleIf: Predicate.optional(),
  enabled: z.union([z.boolean(), Predicate]).optional(),
  selected: Predicate.optional(),
  onTap: Actions.optional(),
  onLongPress: Actions.optional(),
  flags: z
    .strictObject({
      clickable: z.boolean().optional(),
      longClickable: z.boolean().optional(),
      focusable: z.boolean().optional(),
      checkable: z.boolean().optional(),
      checked: z.boolean().optional(),
      scrollable: z.boolean().optional(),
      selected: z.boolean().optional(),
      password: z.boolean().optional(),
    })
    .optional()
    .describe("overrides of the flags uiautomator reports (normally derived from the element type and its actions)"),
};

export type Element = {
  type: "text" | "button" | "input" | "switch" | "checkbox" | "item" | "post" | "list" | "wheel" | "row" | "image" | "divider" | "chip" | "spacer" | "web";
  id?: string;
  text?: string;
  desc?: string;
  class?: string;
  bounds?: [number, number, number, number];
  height?: number;
  visibleIf?: Predicate;
  enabled?: boolean | Predicate;
  selected?: Predicate;
  onTap?: Action[];
  onLongPress?: Action[];
  flags?: Partial<Record<"clickable" | "longClickable" | "focusable" | "checkable" | "checked" | "scrollable" | "selected" | "password", boolean>>;
  style?: string;
  subtitle?: string;
  trailing?: string;
  icon?: string;
  color?: string;
  hint?: string;
  bind?: string;
  password?: boolean;
  multiline?: boolean;
  onSubmit?: Action[];
  author?: string;
  handle?: string;
  stats?: string;
  values?: string[];
  label?: string;
  children?: Element[];
  items?: Element[];
  itemsFrom?: string;
  template?: Element;
  where?: Predicate;
  empty?: string;
};

export const Element: z.ZodType<Element> = z.lazy(() =>
  z.strictObject({
    type: z.enum(["text", "button", "input", "switch", "checkbox", "item", "post", "list", "wheel", "row", "image", "divider", "chip", "spacer", "web"]),
    ...elementBase,
    style: z.string().optional().describe("text: headline|title|body|caption|link; button: filled|outlined|text|danger"),
    subtitle: z.string().optional(),
    trailing: z.string().optional(),
    icon: z.string().optional().describe("a short glyph or emoji drawn in a round avatar"),
    color: z.string().regex(/^#[0-9a-fA-F]{6}$/).optional(),
    hint: z.string().optional(),
    bind: z.string().optional().describe("state variable this field/switch/wheel reads and writes"),
    password: z.boolean().optional(),
    multiline: z.boolean().optional(),
    onSubmit: Actions.optional().describe("input: actions on the Enter key"),
    author: z.string().optional(),
    handle: z.string().optional(),
    stats: z.string().optional(),
    values: z.array(z.string()).min(1).optional().describe("wheel: the values it scrolls through"),
    label: z.string().optional(),
    children: z.array(Element).optional().describe("row: elements laid out horizontally"),
    items: z
      .array(Element)
      .optional()
      .describe("list: fixed rows; web: the page a WebView draws — drawn and answering taps, but dumped as one android.webkit.WebView without children (a page without accessibility nodes, a canvas)"),
    itemsFrom: z.string().optional().describe("list: a state array; each entry is rendered with `template`, fields as {{item.x}}"),
    template: Element.optional().describe("list: the row drawn for each entry; per-row state lives in the entry: 'item.x' in a bind or in a set/toggle/increment/append/remove var reads and writes that entry's own field"),
    where: Predicate.optional().describe("list: keep only entries matching this predicate"),
    empty: z.string().optional().describe("list: text shown when there are no entries"),
  }),
);

export const AppBar = z.strictObject({
  title: z.string().optional(),
  back: z.boolean().optional().describe("show a navigate-up arrow"),
  actions: z.array(z.strictObject({ id: z.string(), icon: z.string(), desc: z.string(), onTap: Actions })).optional(),
  search: z.strictObject({ id: z.string(), hint: z.string(), bind: z.string(), onSubmit: Actions.optional() }).optional(),
});

export const Screen = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  activity: z.string().optional().describe("activity class, e.g. '.SearchActivity'; defaults to the app's activity"),
  appBar: AppBar.optional(),
  body: z.array(Element).default([]),
  bottomNav: z.array(z.strictObject({ id: z.string(), text: z.string(), icon: z.string(), screen: z.string() })).optional(),
  fab: z.strictObject({ id: z.string(), icon: z.string(), desc: z.string(), onTap: Actions }).optional(),
  loadingMs: z.number().int().min(0).max(60_000).optional().describe("show a loading skeleton for this long each time the screen opens"),
  onOpen: Actions.optional(),
  onBack: Actions.optional().describe("replaces the default back behaviour"),
  background: z.string().regex(/^#[0-9a-fA-F]{6}$/).optional(),
});
export type Screen = z.infer<typeof Screen>;

export const PopupTrigger = z.strictObject({
  on: z.enum(["appOpen", "actions", "screen"]).describe("appOpen: when the app comes to the front; actions: after N actions in the app; screen: when a screen opens"),
  screen: z.string().optional(),
  after: z.number().int().min(1).optional().describe("actions: how many input actions in this app"),
  probability: z.number().min(0).max(1).optional().describe("chance per opportunity, drawn from the seeded random source"),
  once: z.boolean().optional().describe("default true: shown at most once per reset"),
  unless: Predicate.optional(),
  delayMs: z.number().int().min(0).max(600_000).optional().describe("show the popup this long after the trigger fires (the phone's clock), if the app is still in front then; otherwise when it next comes to the front"),
});

export const Popup = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  kind: z.enum(["update", "login", "follow", "permission", "rating", "custom"]),
  style: z
    .enum(["dialog", "sheet", "fullscreen", "notification"])
    .default("dialog")
    .describe("notification: a heads-up notification over the top of the screen; touches outside it reach the app, back leaves it up, a tap on it or one of its buttons runs that button's actions"),
  title: z.string(),
  message: z.string().optional(),
  items: z.array(Element).optional().describe("extra rows, e.g. suggested accounts"),
  buttons: z
    .array(
      z.strictObject({
        id: z.string(),
        text: z.string(),
        style: z.enum(["filled", "outlined", "text", "danger"]).optional().describe("default: text buttons in a dialog; in a sheet or full screen the first is filled, the rest outlined"),
        onTap: Actions.default([{ do: "dismiss" }]),
      }),
    )
    .min(1)
    .describe("in a dialog they sit side by side, right-aligned, and stack vertically when their labels do not fit on one line"),
  trigger: PopupTrigger.optional(),
  dismissOnBack: z.boolean().default(true),
  package: z.string().optional().describe("system popups (permission prompts) belong to com.android.permissioncontroller: they are drawn as system UI, not in the app's colours"),
});
export type Popup = z.infer<typeof Popup>;

export const Deeplink = z.strictObject({
  pattern: z.string().describe("e.g. 'loop://search?q={query}' or 'https://loop.example/u/{handle}'"),
  screen: z.string(),
  set: z.record(z.string(), Json).optional().describe("state to set; {{name}} uses captured pattern parts"),
});

export const App = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  package: z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/, "a Java package name like com.example.app"),
  label: z.string(),
  activity: z.string().default(".MainActivity"),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/).default("#3f51b5"),
  icon: z.string().default("●"),
  start: z.string().describe("the screen the launcher opens"),
  state: z.record(z.string(), Json).default({}),
  screens: z.array(Screen).min(1),
  popups: z.array(Popup).default([]),
  deeplinks: z.array(Deeplink).default([]),
  computed: z
    .record(z.string().regex(/^[a-z][a-zA-Z0-9_]*$/), Operand)
    .default({})
    .describe("values derived from state on every read, e.g. {\"items\": {\"count\": {\"in\": {\"var\": \"cart\"}}}}; read like variables ({{items}}, {var: 'shop:items'})"),
});
export type App = z.infer<typeof App>;

export const Evaluator = z.strictObject({
  checks: z
    .array(z.strictObject({ name: z.string(), weight: z.number().positive().default(1), when: Predicate }))
    .min(1)
    .describe("score = weight of passing checks / total weight"),
  failIf: z.array(z.strictObject({ reason: z.string(), when: Predicate })).default([]).describe("any match scores 0 (unsafe or wrong side effect)"),
});
export type Evaluator = z.infer<typeof Evaluator>;

export const Task = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  goal: z.string().describe("what the agent is asked; {name} inserts a parameter"),
  apps: z.array(z.string()).min(1),
  params: z.record(z.string(), Json).default({}),
  variants: z
    .array(z.record(z.string(), Json))
    .default([])
    .describe("other values for the params (each a complete set, with the same keys): variant 1 is the first, variant 0 the task's own params; POST /tasks/:id/start {variant} runs and evaluates the task with them"),
  maxSteps: z.number().int().positive(),
  tags: z.array(z.string()).default([]),
  setup: Actions.default([]).describe("run after reset, before the agent starts"),
  evaluator: Evaluator,
});
export type Task = z.infer<typeof Task>;

export const Scenario = z.strictObject({
  $schema: z.string().optional(),
  name: z.string(),
  description: z.string().default(""),
  extends: z.enum(["pack"]).optional().describe("'pack' adds the built-in apps and tasks"),
  device: z
    .strictObject({ width: z.number().int().min(240).max(4096), height: z.number().int().min(320).max(4096), density: z.number().int().min(120).max(640), model: z.string().optional() })
    .optional(),
  start: z.strictObject({ app: z.string(), screen: z.string().optional() }).optional().describe("the app in front after reset; the launcher when absent"),
  apps: z.array(App).default([]),
  tasks: z.array(Task).default([]),
  settings: z.record(z.string(), Json).optional(),
  locale: z
    .union([z.string(), z.array(z.string()).min(1)])
    .optional()
    .describe("BCP 47 locale, e.g. 'de-DE', 'ja-JP', 'zh-CN' (default 'en-US'): persist.sys.locale, the status-bar clock, dates, and {{x | number}}, {{x | currency:EUR}}, {{x | date}}, {{x | time}} in texts; a list picks one per seed"),
});
export type Scenario = z.infer<typeof Scenario>;
export type ScenarioInput = z.input<typeof Scenario>;
