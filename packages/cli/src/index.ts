// @phoneloop/cli: `phoneloop …` and the headless agent as functions (for scripts, tests and benchmarks).
export { run, EXIT, usage, type RunIo } from "./run.ts";
export { readEnv, DEFAULT_API_URL, EnvError, type Env } from "./env.ts";
export { runHeadless, type HeadlessInit } from "./agent/compose.ts";
export { parseDeviceSpec, connectDevice, type DeviceSpec } from "./agent/device.ts";
export { parseAgentArgs, AGENT_USAGE, type AgentArgs } from "./agent/options.ts";
