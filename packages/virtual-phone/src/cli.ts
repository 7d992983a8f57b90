// `npm run phone -- [--scenario <name|file>] [--seed N] [--adb-port 15555] [--ws-port N] [--control-port N] [--adb-keys F] [--state-dir D] [--allow-origin O] [--host H] [--latency realistic]`
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ADB_TRUST, type AdbTrust } from "./adb/auth.ts";
import { startVirtualPhone } from "./phone.ts";
import { builtinScenarios } from "./scenario/load.ts";
import { DEFAULT_PORTS } from "./default-ports.ts";
import { LATENCY_PROFILES, type LatencyProfile } from "./latency.ts";
import { PERTURBATIONS, parsePerturbations, type Perturbation } from "./scenario/perturb.ts";

const USAGE = `Usage: npm run phone -- [options]

  --scenario <name|file>   built-in scenario or a scenario JSON file (default: social)
  --seed <n>               random seed for popups (default: 1)
  --adb-port <port>        ADB over TCP (default: 15555; 0 = any free port)
  --ws-port <port>         ADB over WebSocket (default: 15556; 0 = any free port)
  --control-port <port>    HTTP control API (default: 15557; 0 = any free port)
  --adb-keys <file>        public keys this phone already trusts (an adbkey.pub, or adb_keys: one key a line),
                           as if its /data/misc/adb/adb_keys listed them; repeatable. Any other key gets no shell
                           until "Allow USB debugging?" is allowed on the phone's screen or with POST /auth/accept
  --state-dir <dir>        keep adb_keys (keys allowed with "Always allow from this computer") in <dir>/adb_keys
  --allow-origin <origin>  a web page origin (e.g. http://127.0.0.1:3000) that may open the ADB WebSocket and call
                           the control API; repeatable (default: none; programs sending no Origin are not pages)
  --trust <ask|any-key>    ask (default, as a real phone) or any-key: allow every key at once, for tests of
                           something else — never for a phone a browser can reach
  --host <addr>            listen address (default: 127.0.0.1)
  --serial <serial>        device serial (default: random)
  --latency <profile>      none (default) or realistic: screencap -p, uiautomator dump, input and app
                           launches take a mid-range phone's time, with jitter drawn from the seed
  --perturb <list>         perturbations drawn from the seed, comma-separated: ${PERTURBATIONS.join(", ")}
                           (e.g. --perturb popup,zh: a surprise dialog in each app, the phone in Chinese)
  --verbose                log protocol problems
  --list                   list built-in scenarios and exit
`;

function port(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`error: --${name} must be a port number between 0 and 65535, got "${v}"`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        scenario: { type: "string" },
        seed: { type: "string" },
        "adb-port": { type: "string" },
        "ws-port": { type: "string" },
        "control-port": { type: "string" },
        "adb-keys": { type: "string", multiple: true },
        "state-dir": { type: "string" },
        "allow-origin": { type: "string", multiple: true },
        trust: { type: "string" },
        host: { type: "string" },
        serial: { type: "string" },
        latency: { type: "string" },
        perturb: { type: "string" },
        verbose: { type: "boolean" },
        list: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    console.error(`error: ${(e as Error).message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.list) {
    for (const s of builtinScenarios()) console.log(`${s.name.padEnd(10)} ${s.description}`);
    return;
  }
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isInteger(seed)) {
    console.error(`error: --seed must be an integer, got "${values.seed}"`);
    process.exit(2);
  }
  const latency = values.latency ?? "none";
  if (!(LATENCY_PROFILES as readonly string[]).includes(latency)) {
    console.error(`error: --latency must be one of ${LATENCY_PROFILES.join(", ")}, got "${latency}"`);
    process.exit(2);
  }
  let perturb: Perturbation[] = [];
  try {
    perturb = parsePerturbations(values.perturb ?? "");
  } catch (e) {
    console.error(`error: --perturb: ${(e as Error).message}`);
    process.exit(2);
  }
  const trust = values.trust ?? "ask";
  if (!(ADB_TRUST as readonly string[]).includes(trust)) {
    console.error(`error: --trust must be one of ${ADB_TRUST.join(", ")}, got "${trust}"`);
    process.exit(2);
  }
  const adbKeys: string[] = [];
  for (const file of values["adb-keys"] ?? []) {
    try {
      adbKeys.push(readFileSync(file, "utf8"));
    } catch (e) {
      console.error(`error: --adb-keys ${file}: ${(e as Error).message}; give an adbkey.pub file (adb makes ~/.android/adbkey.pub)`);
      process.exit(2);
    }
  }
  for (const origin of values["allow-origin"] ?? []) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      console.error(`error: --allow-origin must be an origin like http://127.0.0.1:3000 (scheme, host, port; no path), got "${origin}"`);
      process.exit(2);
    }
  }
  const phone = await startVirtualPhone({
    scenario: values.scenario,
    seed,
    adbPort: port(values["adb-port"], "adb-port", DEFAULT_PORTS.adb),
    wsPort: port(values["ws-port"], "ws-port", DEFAULT_PORTS.ws),
    controlPort: port(values["control-port"], "control-port", DEFAULT_PORTS.control),
    trust: trust as AdbTrust,
    adbKeys,
    stateDir: values["state-dir"],
    allowOrigins: values["allow-origin"],
    host: values.host,
    serial: values.serial,
    latency: latency as LatencyProfile,
    perturb,
    log: values.verbose ? (l) => console.error(l) : undefined,
  });
  const host = values.host && values.host !== "0.0.0.0" ? values.host : "127.0.0.1";
  console.log(`PhoneLoop virtual phone ${phone.serial} — scenario "${phone.engine.scenario.name}", seed ${seed}${latency === "none" ? "" : `, ${latency} latency`}${perturb.length ? `, perturbed: ${perturb.join(", ")}` : ""}`);
  console.log(`  ADB (TCP)        adb connect ${host}:${phone.adbPort}`);
  console.log(`  ADB (WebSocket)  ${phone.wsUrl}`);
  console.log(`  Control API      ${phone.controlUrl}   (GET / lists the routes; send the token below)`);
  console.log(`  Control token    ${phone.controlToken}`);
  const trusted = phone.keyStore.listAccepted();
  console.log(
    trust === "any-key"
      ? "  ADB keys         --trust any-key: EVERY key is allowed at once (tests only)"
      : `  ADB keys         ${trusted.length} trusted${trusted.length ? ` (${trusted.map((k) => k.name || k.fingerprint).join(", ")})` : ""}; a new key waits for "Allow USB debugging?" — tap Allow on the phone, or:\n` +
          `                   curl -X POST -H "Authorization: Bearer ${phone.controlToken}" ${phone.controlUrl}/auth/accept`,
  );
  if (values["allow-origin"]?.length) console.log(`  Allowed origins  ${values["allow-origin"].join(" ")}`);
  console.log("Press Ctrl-C to stop.");
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    await phone.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

main().catch((e: unknown) => {
  console.error(`error: ${(e as Error).message}`);
  process.exit(1);
});
