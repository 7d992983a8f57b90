// Node entry: the Images implementation over @napi-rs/canvas, and the prompts' fingerprint (node:crypto). The
// headless agent's composition root is packages/cli.
export { nodeImages } from "./images/node.ts";
export { promptFingerprint } from "./prompts/fingerprint.ts";
