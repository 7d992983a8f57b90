// One Vitest run over every package: `npx vitest run` from the root, or `--project <name>` for one.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/api", "apps/web", { test: { name: "scripts", include: ["scripts/**/*.test.ts"] } }],
  },
});
