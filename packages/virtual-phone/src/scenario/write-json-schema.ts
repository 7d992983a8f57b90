// Writes pack/scenario.schema.json from the zod schema: `npx tsx packages/virtual-phone/src/scenario/write-json-schema.ts`
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scenarioJsonSchema } from "./json-schema.ts";

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "pack", "scenario.schema.json");

export function schemaFileText(): string {
  return JSON.stringify(scenarioJsonSchema(), null, 2) + "\n";
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, schemaFileText());
  console.log(`wrote ${SCHEMA_FILE}`);
}
