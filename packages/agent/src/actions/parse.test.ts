import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parseAction } from "./parse.ts";

interface Fixture {
  input: string;
  expect?: Record<string, unknown>;
  error?: string;
}
const corpus = JSON.parse(readFileSync(new URL("./fixtures/malformed-model-outputs.json", import.meta.url), "utf8")) as Fixture[];

describe("parseAction over the malformed-output corpus", () => {
  it("holds at least 100 fixtures", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(100);
  });
  it.each(corpus.map((f, i) => [i, f] as const))("fixture %i", (_i, f) => {
    const r = parseAction(f.input);
    if (f.expect) {
      if (!r.ok) throw new Error(`expected ${JSON.stringify(f.expect)}, got ${r.error.code}: ${r.error.message}`);
      expect(r.action).toMatchObject(f.expect);
    } else {
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe(f.error);
        expect(r.error.message.length).toBeGreaterThan(10);
      }
    }
  });
  it("never throws on random garbage", () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
    const alphabet = '{}[]":,\'`xyz0123456789 clicktype\n（｛：，」';
    for (let n = 0; n < 2000; n++) {
      let s = "";
      const len = Math.floor(rand() * 60);
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
      const r = parseAction(s);
      expect(typeof r.ok).toBe("boolean");
    }
  });
});
