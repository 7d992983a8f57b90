// @phoneloop/cli: `phoneloop …` as a function (for scripts and tests) and the API client it uses.
export { run, EXIT, DEFAULT_API_URL, usage, type RunIo } from "./run.ts";
export { createCliClient, type CliClient, type Caller } from "./client.ts";
