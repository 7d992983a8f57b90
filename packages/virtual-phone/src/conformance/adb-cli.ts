// Test-only: runs Debian's real `adb` client against a private ADB server (own port, own HOME for keys).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface AdbResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

export function adbClient(serverPort: number) {
  const home = mkdtempSync(join(tmpdir(), "vphone-adb-home-"));
  const env = { ...process.env, HOME: home, ANDROID_ADB_SERVER_PORT: String(serverPort), ANDROID_SDK_HOME: home, ANDROID_USER_HOME: join(home, ".android") };
  const run = (args: string[], input?: Buffer): Promise<AdbResult> =>
    new Promise((resolve) => {
      const child = execFile("adb", ["-P", String(serverPort), ...args], { env, encoding: "buffer", maxBuffer: 64 * 1024 * 1024, timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1) : 0;
        resolve({ stdout: stdout as Buffer, stderr: (stderr as Buffer).toString("utf8"), code });
      });
      if (input) child.stdin?.end(input);
      else child.stdin?.end();
    });
  /** The public key this adb client presents (adb makes it on first start, in the private HOME). */
  const publicKey = async (): Promise<string> => {
    const started = await run(["start-server"]);
    if (started.code !== 0) throw new Error(`adb start-server failed: ${started.stderr}`);
    return readFileSync(join(home, ".android", "adbkey.pub"), "utf8");
  };
  return { run, home, publicKey, killServer: () => run(["kill-server"]) };
}

/** A port range per test file and process so parallel runs never share an ADB server. */
export function privatePort(offset: number): number {
  return 20_000 + ((process.pid * 7 + offset * 101) % 20_000);
}
