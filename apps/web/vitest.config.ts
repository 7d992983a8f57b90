import { defineProject } from "vitest/config";

// The web app's pure modules (no DOM, no React rendering); pages are tested in the browser by e2e/.
export default defineProject({
  test: {
    name: "web",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
