// The presets name adapters the runtime has, ids are unique, and a GUI model's own grammar is offered to the executor only.
import { describe, expect, it } from "vitest";
import { adapterFor, MODEL_PRESETS, presetDescriptor, presetFor, presetOf } from "./index.ts";

describe("model presets", () => {
  it("each names a published version of an adapter the runtime has, and its descriptor is that adapter's", () => {
    for (const p of MODEL_PRESETS) {
      const a = adapterFor(p.adapter.id, p.adapter.version);
      expect(a, p.id).not.toBeNull();
      expect(presetDescriptor(p)).toBe(a!.descriptor);
    }
    expect(new Set(MODEL_PRESETS.map((p) => p.id)).size).toBe(MODEL_PRESETS.length);
  });

  it("only presets speaking the product's language suit the planner and summarizer; self-hosted open models cost 0, hosted ones have no guessed price", () => {
    for (const p of MODEL_PRESETS) {
      if (p.adapter.id !== "phoneloop") expect(p.roles, p.id).toEqual(["executor"]);
      if (p.model === "") expect(p.prices, p.id).toBeNull();
    }
    expect(presetFor("ui-tars-1.5-7b")).toMatchObject({ adapter: { id: "ui-tars", version: "1.5" }, prices: { input: 0, output: 0 } });
    expect(presetFor("no-such")).toBeNull();
  });

  it("presetOf finds the preset a stored adapter and model came from", () => {
    expect(presetOf({ id: "qwen-vl", version: "2.5" }, "Qwen/Qwen2.5-VL-72B-Instruct")?.id).toBe("qwen2.5-vl-72b");
    expect(presetOf({ id: "qwen-vl", version: "2.5" }, "my-served-name")?.id).toBe("qwen2.5-vl-7b");
    expect(presetOf(null)?.id).toBe("phoneloop-json");
  });
});
