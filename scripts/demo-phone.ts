// The demo phone `npm start` runs: a phone that already lists the product's own ADB key in its adb_keys (as a phone
// that once allowed this computer does), remembers keys allowed later in .data/phone, and lets the web app's pages in.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adbPublicKeyLine, defaultAdbKeyPath, NodeCredentialStore } from "../packages/device/src/credentials/node.ts";

export interface DemoPhoneInit {
  root: string;
  ports: { adb: number; ws: number; control: number };
  webPort: number;
}

/** Arguments for packages/virtual-phone/src/cli.ts. Makes the headless agent's adbkey first if it has none yet. */
export function demoPhoneArgs(init: DemoPhoneInit): string[] {
  const stateDir = join(init.root, ".data", "phone");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // the key the headless agent (`npm run agent`) and `adb` on this computer present: ~/.android/adbkey
  const agentKeys = new NodeCredentialStore();
  if (!existsSync(defaultAdbKeyPath())) agentKeys.generateKey();
  const productKeys = [...agentKeys.iterateKeys()].map((k) => adbPublicKeyLine(k.buffer, k.name ?? agentKeys.name));
  const keysFile = join(stateDir, "product-adb-keys");
  writeFileSync(keysFile, productKeys.join(""), { mode: 0o600 });
  const web = [`http://127.0.0.1:${init.webPort}`, `http://localhost:${init.webPort}`];
  return [
    "packages/virtual-phone/src/cli.ts",
    ...["--adb-port", String(init.ports.adb), "--ws-port", String(init.ports.ws), "--control-port", String(init.ports.control)],
    ...["--adb-keys", keysFile, "--state-dir", stateDir],
    ...web.flatMap((o) => ["--allow-origin", o]),
  ];
}
