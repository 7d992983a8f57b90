import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "suite",
    include: ["src/**/*.test.ts"],
    globalSetup: ["../../packages/state/src/testing/global-setup.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
