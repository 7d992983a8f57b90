#!/usr/bin/env -S npx tsx
// `npm run phoneloop -- <command>`: the process entry. Everything testable lives in run.ts.
import { EnvError, readEnv, type Env } from "./env.ts";
import { EXIT, run } from "./run.ts";

let env: Env | undefined;
try {
  env = readEnv(process.env);
} catch (e) {
  if (!(e instanceof EnvError)) throw e;
  process.stderr.write(`phoneloop: ${e.message}\n`);
  process.exitCode = EXIT.usage;
}
if (env) {
  process.exitCode = await run(process.argv.slice(2), { env, stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) });
}
