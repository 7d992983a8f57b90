import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "reference-policy",
    include: ["src/**/*.test.ts"],
    globalSetup: ["../../packages/state/src/testing/global-setup.ts"],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
