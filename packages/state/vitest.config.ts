import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "state",
    include: ["src/**/*.test.ts"],
    globalSetup: ["src/testing/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
