// Node side of the WebUSB stand-in: builds the init script that installs the fake `navigator.usb` in a page,
// for Playwright (`page.addInitScript`) or any browser automation. The page code is webusb-stand-in.browser.ts.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { WebUsbStandInConfig } from "./webusb-stand-in.browser.ts";

export type { WebUsbStandInConfig, WebUsbStandInHandle, WebUsbStandInStats, WebUsbStandInVariant } from "./webusb-stand-in.browser.ts";

let bundled: Promise<string> | undefined;

function bundleStandIn(): Promise<string> {
  bundled ??= build({
    entryPoints: [fileURLToPath(new URL("./webusb-stand-in.browser.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "__phoneloopWebUsbStandIn",
    platform: "browser",
    target: "chrome120",
  }).then((r) => r.outputFiles[0]!.text);
  return bundled;
}

/** JavaScript that, run before any page script, replaces navigator.usb with the stand-in. */
export async function webUsbStandInInitScript(config: WebUsbStandInConfig): Promise<string> {
  return `${await bundleStandIn()}\n__phoneloopWebUsbStandIn.installWebUsbStandIn(${JSON.stringify(config)});\n`;
}

/** Installs the stand-in on a Playwright Page or BrowserContext (anything with addInitScript). */
export async function installWebUsbStandIn(target: { addInitScript(script: { content: string }): Promise<unknown> }, config: WebUsbStandInConfig): Promise<void> {
  await target.addInitScript({ content: await webUsbStandInInitScript(config) });
}
