// Generates the Prisma client into packages/state/src/generated. Prisma only needs *a* schema-engine path to
// exist for `generate` (it never runs it), and the native engine cannot be downloaded offline.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
if (!existsSync(`${root}/node_modules/prisma`)) process.exit(0);
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}
const result = spawnSync(process.execPath, [`${root}/node_modules/prisma/build/index.js`, "generate"], {
  cwd: root,
  env,
  stdio: ["ignore", "inherit", "inherit"],
});
if (result.status !== 0) {
  console.error("prisma generate failed: see the lines above. The schema is prisma/schema.prisma.");
  process.exit(result.status ?? 1);
}
