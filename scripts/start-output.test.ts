// npm start's output: the demo phone's own startup lines (the real CLI, as start.ts runs it) pass through without its
// control token, and the closing note shows a setup link only while it still opens setup.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { demoPhoneArgs } from "./demo-phone.ts";
import { accountsNote, maskControlToken, TOKEN_HELD_BY_API } from "./start-output.ts";

const root = new URL("..", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "phoneloop-start-output-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The demo phone's stdout up to its "Press Ctrl-C" line, with the args start.ts gives it (in a scratch folder). */
async function demoPhoneBanner(): Promise<string> {
  process.env.ANDROID_USER_HOME = join(scratch, "android");
  const args = demoPhoneArgs({ root: scratch, ports: { adb: 0, ws: 0, control: 0 }, webPort: 3000 });
  const child = spawn("npx", ["tsx", ...args], { cwd: root, env: { ...process.env }, stdio: ["ignore", "pipe", "inherit"], detached: true });
  let out = "";
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("Press Ctrl-C")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`the phone exited with ${code} before its banner: ${out}`)));
    });
  } finally {
    // Its own process group: npx and the tsx process under it.
    process.kill(-child.pid!, "SIGTERM");
  }
  return out;
}

describe("npm start's output", () => {
  it("shows the demo phone's lines without its control token", async () => {
    const banner = await demoPhoneBanner();
    const token = /Control token\s+(\S+)/.exec(banner)?.[1];
    expect(token?.length).toBeGreaterThanOrEqual(22);
    const shown = maskControlToken(banner, token);
    expect(shown).not.toContain(token);
    expect(shown).toContain(`Control token    ${TOKEN_HELD_BY_API}`);
    expect(shown).toContain("ADB (TCP)");
    // Split across chunks (the token not read yet), the line is masked all the same.
    const line = banner.split("\n").find((l) => l.includes("Control token"))!;
    expect(maskControlToken(line, undefined)).not.toContain(token);
  }, 120_000);

  it("ends with the setup link only while it opens setup; otherwise where to sign in and how others join", () => {
    const setupLink = "http://127.0.0.1:3000/setup?token=abc123";
    expect(accountsNote({ setupLink, linkOpens: true, webUrl: "http://127.0.0.1:3000" })).toContain(setupLink);
    const spent = accountsNote({ setupLink, linkOpens: false, webUrl: "http://127.0.0.1:3000" });
    expect(spent).not.toContain("token=");
    expect(spent).toMatch(/Sign in at http:\/\/127\.0\.0\.1:3000\/sign-in.*invite links/);
    expect(accountsNote({ setupLink: undefined, linkOpens: false, webUrl: "http://127.0.0.1:3000" })).toMatch(/Sign in at/);
  });
});
