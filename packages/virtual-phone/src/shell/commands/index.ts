// Every command the virtual phone's shell knows.
import type { CommandRegistry } from "../types.ts";
import { registerActivity } from "./activity.ts";
import { registerBasics } from "./basics.ts";
import { registerInput } from "./input.ts";
import { registerScreen } from "./screen.ts";
import { registerProcesses } from "./processes.ts";
import { registerTestPrintf } from "./test-printf.ts";
import { registerToybox } from "./toybox.ts";

export function createCommandRegistry(): CommandRegistry {
  const r: CommandRegistry = new Map();
  registerBasics(r);
  registerInput(r);
  registerScreen(r);
  registerActivity(r);
  registerProcesses(r);
  registerTestPrintf(r);
  registerToybox(r);
  return r;
}
