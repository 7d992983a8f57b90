// Node entry: the Images implementation over @napi-rs/canvas. The headless agent's composition root is packages/cli.
export { nodeImages } from "./images/node.ts";
