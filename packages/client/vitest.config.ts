import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "client",
    include: ["src/**/*.test.ts"],
    globalSetup: ["../../packages/state/src/testing/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
