// Node entry: the Images implementation over @napi-rs/canvas and the headless runner.
export { nodeImages } from "./images/node.ts";
