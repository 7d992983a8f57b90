// Node entry: the Images implementation over @napi-rs/canvas and the headless runner.
export { nodeImages } from "./images/node.ts";
export { runHeadless, connectDevice, modelsFromArgs, parseCliArgs, parseDeviceSpec, USAGE, CliError, type HeadlessOptions, type CliArgs, type DeviceSpec } from "./cli/run-headless.ts";
export { main as agentCliMain, setControlPlaneFactory, type ControlPlaneFactory } from "./cli/main.ts";
