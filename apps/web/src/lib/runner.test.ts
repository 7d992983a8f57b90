// The tab's models speak the adapter the model settings name per role: the runtime's ask-model seam reads the
// executor's from its model port (ports.models.executor.adapter).
import { describe, expect, it } from "vitest";
import { proxiedModels } from "./runner.ts";

describe("the tab's models", () => {
  it("carry each role's adapter from the model settings, and none where the settings name none", () => {
    const models = proxiedModels("http://127.0.0.1:1", "token", () => null, { executor: { id: "ui-tars", version: "1.5" } });
    expect(models.executor.adapter).toEqual({ id: "ui-tars", version: "1.5" });
    expect(models.planner.adapter).toBeUndefined();
    expect(proxiedModels("http://127.0.0.1:1", "token", () => null, {}).executor.adapter).toBeUndefined();
  });
});
