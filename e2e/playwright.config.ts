import { defineConfig } from "@playwright/test";
import { fileURLToPath } from "node:url";

// A port per run, so concurrent runs (CI, a developer, another checkout) never collide. Set here in the runner
// process, inherited by the workers that load this config again.
process.env.DEVICE_E2E_PORT ??= String(20_000 + Math.floor(Math.random() * 40_000));
const port = Number(process.env.DEVICE_E2E_PORT);

export default defineConfig({
  testDir: "./tests",
  reporter: "list",
  timeout: 90_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  use: {
    // An action or a navigation waits for its element at most a minute, so a test that waits on something gone
    // fails there, naming it, instead of hanging until its whole timeout.
    actionTimeout: 60_000,
    navigationTimeout: 60_000,
    baseURL: `http://127.0.0.1:${port}`,
    browserName: "chromium",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: {
    command: "npx tsx support/server.ts",
    cwd: fileURLToPath(new URL(".", import.meta.url)),
    url: `http://127.0.0.1:${port}/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: "pipe",
    stderr: "pipe",
    env: { DEVICE_E2E_PORT: String(port) },
  },
});
