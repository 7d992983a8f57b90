#!/usr/bin/env -S npx tsx
// `npm run phoneloop -- <command>`: the process entry. Everything testable lives in run.ts.
import { run } from "./run.ts";

const code = await run(process.argv.slice(2), {
  apiUrl: process.env.PHONELOOP_API_URL,
  agent: process.env.PHONELOOP_AGENT,
  member: process.env.PHONELOOP_MEMBER,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});
process.exitCode = code;
