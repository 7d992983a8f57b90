import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "agent", include: ["src/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 120_000 },
});
