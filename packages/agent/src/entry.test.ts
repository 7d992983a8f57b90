// The main entry runs in the browser tab: nothing it imports (transitively, within this package) may be Node-only.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const NODE_ONLY = [/^node:/, /^@napi-rs\//, /^@phoneloop\/device\/node$/, /^ws$/, /^sharp$/];

function importsOf(file: string): string[] {
  const src = readFileSync(file, "utf8");
  return [...src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]!).concat([...src.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]!));
}

describe("browser entry", () => {
  it("src/index.ts reaches no Node-only module", () => {
    const seen = new Set<string>();
    const offenders: string[] = [];
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of importsOf(file)) {
        if (spec.startsWith(".")) walk(resolve(dirname(file), spec));
        else if (NODE_ONLY.some((re) => re.test(spec))) offenders.push(`${file.replace(here, "src")} → ${spec}`);
      }
    };
    walk(resolve(here, "index.ts"));
    expect(seen.size).toBeGreaterThan(20);
    expect([...seen].some((f) => f.includes("/testing/") || f.includes("/cli/") || f.endsWith("images/node.ts"))).toBe(false);
    expect(offenders).toEqual([]);
  });
});
