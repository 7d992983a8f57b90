// Every adapter's fixtures (fixtures/*.json): each documented reply becomes the expected actions and device pixels,
// or the expected typed rejection; no reply — fixture or a seeded fuzz of random text — makes a parser throw; and
// replies that mean the same point on the same screen land on the same device pixel through every adapter.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { seededRandom } from "@phoneloop/virtual-phone";
import { checkFixture, fixtureAdapter, type FixtureFile } from "./fixture-check.ts";
import { frameStep, imageSizeFor } from "./frame.ts";
import { ADAPTER_DESCRIPTORS, ADAPTER_IDS, MODEL_ADAPTERS, adapterFor, parseReply } from "./index.ts";

const dir = join(import.meta.dirname, "fixtures");
const files: FixtureFile[] = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as FixtureFile);

describe("model adapter fixtures", () => {
  it("cover every adapter and version", () => {
    const covered = new Set(files.map((f) => `${f.adapter} ${f.version}`));
    for (const d of ADAPTER_DESCRIPTORS) expect(covered, `${d.id} ${d.version}`).toContain(`${d.id} ${d.version}`);
  });

  for (const file of files) {
    describe(`${file.adapter} ${file.version}`, () => {
      for (const f of file.fixtures) {
        it(f.name, () => {
          const r = checkFixture(file, f);
          expect(r.problem ?? null).toBeNull();
          expect(r.ok).toBe(true);
        });
      }
      it("has the documented edge cases: a rejection, several actions in one reply, the common target", () => {
        expect(file.fixtures.some((f) => f.reject === "COORDINATE_OUT_OF_RANGE")).toBe(true);
        expect(file.fixtures.some((f) => (f.actions?.length ?? 0) > 1)).toBe(file.adapter !== "phoneloop");
        expect(file.fixtures.filter((f) => f.target)).toHaveLength(1);
      });
    });
  }

  it("the same point through every adapter lands on the same device pixel, within the frame's rounding", () => {
    for (const file of files) {
      const f = file.fixtures.find((x) => x.target)!;
      const r = checkFixture(file, f);
      expect(r.reply.ok).toBe(true);
      if (!r.reply.ok) continue;
      const p = r.reply.actions[0]!.point!;
      const adapter = fixtureAdapter(file);
      const step = frameStep(adapter.descriptor.frame, imageSizeFor(adapter.descriptor.image, file.screen), file.screen);
      // Half a frame step, rounded: the coarsest frame here (0–999 on 2400 px) can miss by at most 1 px.
      expect(Math.abs(p.x - file.target.point[0]), `${file.adapter} ${file.version} x`).toBeLessThanOrEqual(Math.round(step.width / 2));
      expect(Math.abs(p.y - file.target.point[1]), `${file.adapter} ${file.version} y`).toBeLessThanOrEqual(Math.round(step.height / 2));
    }
  });

  it("no parser throws on a seeded fuzz of random and mutated replies (each is an action list or a typed rejection)", () => {
    let n = 0;
    const rnd = () => seededRandom(25, "model-adapters", n++);
    const pieces = ["<tool_call>", "</tool_call>", "Action:", "Thought:", "click(", ")", "point='<point>", "</point>'", "do(action=\"Tap\", element=[", "]", "{", "}", "\"", "'", ",", "\\", "<think>", "</think>", "<answer>", "finish(message=", "1e309", "-5", "NaN", "12", "999", "\n", "中文", "<|box_start|>(", "<|box_end|>", "{\"tool_calls\":[", "{\"name\":\"mobile_use\",\"arguments\":{\"action\":\"click\",\"coordinate\":["];
    const samples = files.flatMap((f) => f.fixtures.map((x) => x.reply));
    const screen = { device: { width: 1080, height: 2400 }, image: { width: 1092, height: 2408 } };
    for (let i = 0; i < 1500; i++) {
      let s = "";
      const mode = i % 3;
      if (mode === 0) for (let k = Math.floor(rnd() * 12); k >= 0; k--) s += pieces[Math.floor(rnd() * pieces.length)];
      else if (mode === 1) {
        const base = samples[Math.floor(rnd() * samples.length)]!;
        const cut = Math.floor(rnd() * base.length);
        s = base.slice(0, cut) + pieces[Math.floor(rnd() * pieces.length)] + base.slice(cut + Math.floor(rnd() * 5));
      } else for (let k = Math.floor(rnd() * 80); k >= 0; k--) s += String.fromCharCode(Math.floor(rnd() * 0x3000));
      for (const a of MODEL_ADAPTERS) {
        const r = parseReply(a, s, screen);
        expect(typeof r.ok).toBe("boolean");
        if (r.ok) {
          expect(r.actions.length).toBeGreaterThan(0);
          for (const d of r.actions) for (const p of [d.point, d.from, d.to]) if (p) expect(p.x >= 0 && p.x <= 1079 && p.y >= 0 && p.y <= 2399).toBe(true);
        } else expect(typeof r.error.code).toBe("string");
      }
    }
    for (const a of MODEL_ADAPTERS) {
      expect(parseReply(a, undefined, screen)).toMatchObject({ ok: false, error: { code: "EMPTY_OUTPUT" } });
      expect(parseReply(a, "x".repeat(70_000), screen)).toMatchObject({ ok: false, error: { code: "OUTPUT_TOO_LONG" } });
    }
  });

  it("lists one descriptor per published version, found by id and version", () => {
    expect(ADAPTER_IDS).toEqual(["phoneloop", "ui-tars", "qwen-vl", "autoglm-phone", "gui-owl", "tool-calls"]);
    expect(adapterFor("ui-tars", "1.5")!.descriptor.frame).toEqual({ kind: "image-pixels" });
    expect(adapterFor("qwen-vl", "3")!.descriptor.frame).toEqual({ kind: "normalised", max: 1000 });
    expect(adapterFor("autoglm-phone")!.descriptor.frame).toEqual({ kind: "normalised", max: 999 });
    expect(adapterFor("ui-tars", "9")).toBeNull();
    expect(adapterFor("nope")).toBeNull();
  });
});
