// PhoneEngine: the virtual phone's in-process API — scenario, state, input, screenshots, UI dumps, tasks, faults.
import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";
import { VirtualFs } from "./device/filesystem.ts";
import { systemProperties } from "./device/properties.ts";
import { canvasMeasure, encodePng, encodePngAsync, renderRgba } from "./render/draw.ts";
import { dumpHierarchy } from "./render/uidump.ts";
import { Latency, type LatencyProfile } from "./latency.ts";
import { evaluateTask, taskGoal, taskParams, TaskVariantError, type TaskEvaluation } from "./scenario/evaluator.ts";
import { loadScenario, parseScenario } from "./scenario/load.ts";
import { ScenarioError, ScenarioRuntime, systemClock, type Clock, type DeviceSpec, type SystemUi } from "./scenario/runtime.ts";
import type { Scenario, Task } from "./scenario/schema.ts";
import { perturbScenario, type Perturbation } from "./scenario/perturb.ts";

export const DEFAULT_SCENARIO = "social";
export const DEFAULT_DEVICE: DeviceSpec = { width: 1080, height: 2400, density: 420 };

export interface PhoneEngineInit {
  /** Built-in name, file path, or a scenario object. Default "social". */
  scenario?: string | Scenario | object;
  seed?: number;
  clock?: Clock;
  serial?: string;
  /** "realistic": screencap, uiautomator dump, input and app launches take a mid-range phone's time (default "none"). */
  latency?: LatencyProfile;
  /** Perturbations added to every scenario this phone loads, drawn from the load's seed (scenario/perturb.ts). */
  perturb?: readonly Perturbation[];
}

export interface Faults {
  /** Every shell command waits this long first. */
  slowMs: number;
  /** The next command fails ("exit": exit status 1 with an error; "close": the stream is closed without output). */
  failNext: null | "exit" | "close";
  /** Screenshots and UI dumps keep returning the frame from when the screen froze. */
  frozen: null | { png: Buffer; xml: string };
  /**
   * The foreground app's window is secure (FLAG_SECURE, as a banking app's or a password screen's): screenshots are
   * black, as Android's screencap returns them, and `dumpsys window` lists SECURE among the window's flags; the UI
   * tree is still read (the accessibility tree is not protected).
   */
  secure: boolean;
}

export class TaskNotFoundError extends Error {
  readonly code = "TASK_NOT_FOUND";
}

/** Thrown by a command when the "fail next command" fault fires. */
export class InjectedFault extends Error {
  readonly code = "INJECTED_FAULT";
}

export interface EncodeStats {
  cached: number[];
  uncached: number[];
  lastSize: number;
}

export class PhoneEngine extends EventEmitter {
  scenario!: Scenario;
  runtime!: ScenarioRuntime;
  readonly fs = new VirtualFs();
  readonly clock: Clock;
  readonly serial: string;
  props: Record<string, string>;
  readonly faults: Faults = { slowMs: 0, failNext: null, frozen: null, secure: false };
  readonly encodeStats: EncodeStats = { cached: [], uncached: [], lastSize: 0 };
  /** System UI that outlives scenario loads (the USB debugging prompt). */
  readonly systemUi: SystemUi = { usbPrompt: null, onUsbPrompt: null };
  #pngCache = new Map<string, Buffer>();
  #scenarioSource = DEFAULT_SCENARIO;
  #activeTask: Task | null = null;
  readonly latency: Latency;
  readonly perturb: readonly Perturbation[];

  constructor(init: PhoneEngineInit = {}) {
    super();
    this.perturb = init.perturb ?? [];
    this.clock = init.clock ?? systemClock;
    this.serial = init.serial ?? "vphone-0001";
    this.props = {};
    this.latency = new Latency(init.latency ?? "none", init.seed ?? 1);
    this.load(init.scenario ?? DEFAULT_SCENARIO, init.seed ?? 1);
  }

  /** The locale the runtime picked (per scenario or per seed) becomes the phone's locale properties. */
  #syncLocale(): void {
    this.props["persist.sys.locale"] = this.runtime.state.locale;
    this.props["ro.product.locale"] = this.runtime.state.locale;
  }

  get device(): DeviceSpec {
    return { ...DEFAULT_DEVICE, ...(this.scenario.device ?? {}) };
  }

  // ---------- scenarios & tasks ----------
  /** Loads a scenario (name, file or object) and resets the phone to it. */
  load(source: string | Scenario | object, seed = 1): Scenario {
    const scenario = perturbScenario(typeof source === "string" ? loadScenario(source) : parseScenario(source, "(object)"), this.perturb, seed);
    this.scenario = scenario;
    this.#scenarioSource = typeof source === "string" ? source : scenario.name;
    this.props = systemProperties({ serial: this.serial, model: scenario.device?.model, density: this.device.density });
    this.runtime = new ScenarioRuntime(scenario, this.device, this.clock, canvasMeasure, seed, this.systemUi);
    this.#syncLocale();
    this.runtime.onLog = (entry) => this.emit("log", entry);
    this.#pngCache.clear();
    this.#activeTask = null;
    this.emit("change");
    return scenario;
  }

  get scenarioSource(): string {
    return this.#scenarioSource;
  }

  reset(seed = this.runtime.state.seed): void {
    this.runtime.reset(seed);
    this.#syncLocale();
    this.#activeTask = null;
    this.emit("change");
  }

  tasks(): Task[] {
    return this.scenario.tasks;
  }

  task(id: string): Task {
    const t = this.scenario.tasks.find((x) => x.id === id);
    if (!t) throw new TaskNotFoundError(`no task "${id}" in scenario "${this.scenario.name}"; GET /tasks lists them`);
    return t;
  }

  /**
   * Resets with a seed and runs the task's setup with the params of a variant (0, the default, is the task's own;
   * n is its variants[n - 1]); returns the goal to give the agent. Evaluating the task then uses the same params.
   * A number as the second argument is the seed. `params` gives values of the task's own keys in place of a
   * variant's (values written elsewhere, such as a benchmark's sealed set); a key the task does not have is refused.
   */
  startTask(id: string, opts: number | { seed?: number; variant?: number; params?: Task["params"] } = {}): { task: Task; goal: string; variant: number; params: Task["params"] } {
    const { seed = this.runtime.state.seed, variant = 0, params: given } = typeof opts === "number" ? { seed: opts } : opts;
    const t = this.task(id);
    const unknown = given ? Object.keys(given).filter((k) => !(k in t.params)) : [];
    if (unknown.length) throw new TaskVariantError(`task "${t.id}" has no param ${unknown.map((k) => `"${k}"`).join(", ")}: its params are ${Object.keys(t.params).join(", ") || "none"}`);
    const params = given ? { ...t.params, ...given } : taskParams(t, variant);
    this.runtime.reset(seed);
    this.#syncLocale();
    if (t.setup.length) this.runtime.run(t.setup, t.apps[0]!, undefined, params as Record<string, unknown>);
    this.#activeTask = t;
    this.#activeParams = params;
    this.emit("change");
    return { task: t, goal: taskGoal(t, params), variant, params };
  }

  #activeParams: Task["params"] | null = null;

  get activeTask(): Task | null {
    return this.#activeTask;
  }

  /**
   * Records that the agent asked its user a question (the agent's runtime calls this, or POST /events, on ask_user):
   * evaluators see it as an "ask_user" event, e.g. with {asked: {}}.
   */
  recordAskUser(question: string, answer?: string): void {
    this.runtime.log(this.runtime.state.foreground, "ask_user", answer === undefined ? { question } : { question, answer });
    this.emit("change");
  }

  evaluate(id: string, opts: { answer?: string } = {}): TaskEvaluation {
    const t = this.task(id);
    return evaluateTask(t, this.runtime.scope(null, { answer: opts.answer }), this.#activeTask === t && this.#activeParams ? this.#activeParams : t.params);
  }

  /** A JSON snapshot of everything the evaluators see. */
  state(): Record<string, unknown> {
    const s = this.runtime.state;
    const fw = this.runtime.focusedWindow();
    return {
      scenario: this.scenario.name,
      seed: s.seed,
      foreground: s.foreground ?? "launcher",
      focusedWindow: `${fw.package}/${fw.activity}`,
      screen: this.runtime.current()?.frame.screen ?? null,
      loading: this.runtime.isLoading(),
      popup: this.runtime.deviceInfo().popup,
      focus: s.focus ? { app: s.focus.app, field: s.focus.field, bind: s.focus.bind } : null,
      keyboardShown: s.focus !== null,
      ime: s.settings.secure.default_input_method,
      screenOn: s.screenOn,
      actionCount: s.actionCount,
      activeTask: this.#activeTask?.id ?? null,
      apps: Object.fromEntries(Object.entries(s.apps).map(([id, a]) => [id, { vars: a.vars, stack: a.stack.map((f) => f.screen), popup: a.popup, actions: a.actions }])),
      settings: s.settings,
      locale: s.locale,
      rotation: this.runtime.screen.rotation,
      log: s.log,
    };
  }

  // ---------- screen ----------
  /** The PNG of the current screen; identical frames are encoded once. */
  async screenshot(): Promise<Buffer> {
    if (this.faults.frozen) return this.faults.frozen.png;
    if (this.faults.secure) return this.#black();
    const t0 = performance.now();
    const { key, hit, layout } = this.#lookup();
    if (hit) return this.#served(key, hit, t0);
    // Identical frames requested while one is being encoded share that encode.
    let pending = this.#encoding.get(key);
    if (!pending) {
      const { width, height, rgba } = renderRgba(layout);
      pending = encodePngAsync(width, height, rgba).finally(() => this.#encoding.delete(key));
      this.#encoding.set(key, pending);
    }
    const png = await pending;
    this.#store(key, png, t0);
    return png;
  }

  #encoding = new Map<string, Promise<Buffer>>();
  #blackPng: { size: string; png: Buffer } | null = null;

  /** An all-black frame of the screen's size: what screencap returns over a secure window. */
  #black(): Buffer {
    const { width, height } = this.runtime.layout();
    const size = `${width}x${height}`;
    if (this.#blackPng?.size !== size) {
      const rgba = Buffer.alloc(width * height * 4);
      for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
      this.#blackPng = { size, png: encodePng(width, height, rgba) };
    }
    return this.#blackPng.png;
  }

  /** Shows the foreground app's window as secure (FLAG_SECURE): black screenshots, SECURE in `dumpsys window`. */
  secureWindow(on: boolean): void {
    this.faults.secure = on;
  }

  #lookup() {
    const layout = this.runtime.layout();
    const key = createHash("sha1").update(JSON.stringify(layout.ops)).update(`${layout.width}x${layout.height}`).digest("hex");
    return { key, hit: this.#pngCache.get(key), layout };
  }

  #served(key: string, png: Buffer, t0: number): Buffer {
    this.#pngCache.delete(key);
    this.#pngCache.set(key, png);
    this.#record(this.encodeStats.cached, performance.now() - t0);
    return png;
  }

  #store(key: string, png: Buffer, t0: number): void {
    if (this.#pngCache.has(key)) return;
    this.#pngCache.set(key, png);
    if (this.#pngCache.size > 24) this.#pngCache.delete(this.#pngCache.keys().next().value!);
    this.encodeStats.lastSize = png.length;
    this.#record(this.encodeStats.uncached, performance.now() - t0);
  }

  /** Synchronous render for freezing the screen. */
  #renderPng(): Buffer {
    const t0 = performance.now();
    const { key, hit, layout } = this.#lookup();
    if (hit) return this.#served(key, hit, t0);
    const { width, height, rgba } = renderRgba(layout);
    const png = encodePng(width, height, rgba);
    this.#store(key, png, t0);
    return png;
  }

  #record(arr: number[], ms: number): void {
    arr.push(ms);
    if (arr.length > 500) arr.shift();
  }

  uiDump(): string {
    if (this.faults.frozen) return this.faults.frozen.xml;
    return dumpHierarchy(this.runtime.layout().dumpRoot, this.runtime.screen.rotation);
  }

  /** Shows (or clears) the "Allow USB debugging?" prompt for a key fingerprint; its checkbox starts unticked. */
  setUsbPrompt(fingerprint: string | null): void {
    const prev = this.systemUi.usbPrompt;
    this.systemUi.usbPrompt = fingerprint ? { fingerprint, alwaysAllow: prev?.fingerprint === fingerprint ? prev.alwaysAllow : false } : null;
    this.runtime.touch();
  }

  freeze(on: boolean): void {
    this.faults.frozen = on ? { png: this.#renderPng(), xml: dumpHierarchy(this.runtime.layout().dumpRoot, this.runtime.screen.rotation) } : null;
  }

  /** Closes every ADB connection (TCP and WebSocket), like a cable pulled out. */
  dropConnections(): void {
    this.emit("drop-connections");
  }

  /** Applies "slow" and "fail next" faults; called before each shell command. */
  async beforeCommand(argv: string[]): Promise<void> {
    const wait = this.faults.slowMs + this.latency.delayFor(argv);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (this.faults.failNext === "exit") {
      this.faults.failNext = null;
      throw new InjectedFault(`${argv[0]}: injected failure (control API fault "fail next command")`);
    }
  }

  // ---------- input ----------
  tap(x: number, y: number): void {
    this.runtime.tap(x, y);
  }
  longPress(x: number, y: number): void {
    this.runtime.tap(x, y, true);
  }
  swipe(x1: number, y1: number, x2: number, y2: number, ms?: number): void {
    this.runtime.swipe(x1, y1, x2, y2, ms);
  }
  key(code: number): void {
    this.runtime.key(code);
  }
  typeText(text: string): void {
    this.runtime.typeText(text);
  }
  launch(appIdOrPackage: string, screen?: string): void {
    const app = this.runtime.apps.get(appIdOrPackage) ?? this.runtime.appByPackage(appIdOrPackage);
    if (!app) throw new ScenarioError(`no app "${appIdOrPackage}" is installed`);
    this.runtime.launch(app.id, screen);
  }
}
