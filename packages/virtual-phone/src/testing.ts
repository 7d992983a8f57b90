// Test helpers: a manual clock and small queries over the UI dump, so tests read like an agent would act.
import type { Clock } from "./scenario/runtime.ts";
import type { PhoneEngine } from "./engine.ts";

export class ManualClock implements Clock {
  constructor(public t = Date.UTC(2026, 10, 29, 9, 41)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export interface DumpNode {
  text: string;
  resourceId: string;
  cls: string;
  desc: string;
  bounds: [number, number, number, number];
  attrs: Record<string, string>;
}

export function parseDump(xml: string): DumpNode[] {
  const out: DumpNode[] = [];
  for (const m of xml.matchAll(/<node ([^>]*?)\/?>/g)) {
    const attrs: Record<string, string> = {};
    for (const a of m[1]!.matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1]!] = a[2]!.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#10;/g, "\n").replace(/&amp;/g, "&");
    const b = /\[(\d+),(\d+)\]\[(\d+),(\d+)\]/.exec(attrs.bounds ?? "")!;
    out.push({ text: attrs.text ?? "", resourceId: attrs["resource-id"] ?? "", cls: attrs.class ?? "", desc: attrs["content-desc"] ?? "", bounds: [Number(b[1]), Number(b[2]), Number(b[3]), Number(b[4])], attrs });
  }
  return out;
}

/** Finds a node by text, content-desc or resource-id suffix; throws with what is on screen when missing. */
export function find(engine: PhoneEngine, what: string): DumpNode {
  const nodes = parseDump(engine.uiDump());
  const hit = nodes.find((n) => n.text === what) ?? nodes.find((n) => n.desc === what) ?? nodes.find((n) => n.resourceId.endsWith(`/${what}`));
  if (!hit) throw new Error(`"${what}" is not on screen; visible texts: ${nodes.map((n) => n.text || n.desc).filter(Boolean).join(" | ")}`);
  return hit;
}

export function has(engine: PhoneEngine, what: string): boolean {
  try {
    find(engine, what);
    return true;
  } catch {
    return false;
  }
}

export function center(n: DumpNode): [number, number] {
  return [Math.round((n.bounds[0] + n.bounds[2]) / 2), Math.round((n.bounds[1] + n.bounds[3]) / 2)];
}

export function tapOn(engine: PhoneEngine, what: string): void {
  const [x, y] = center(find(engine, what));
  engine.tap(x, y);
}
