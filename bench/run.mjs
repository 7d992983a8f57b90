// `npm run bench -- <name>` runs bench/<name>.ts with tsx. Each benchmark prints its figures, last line last.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const names = readdirSync(dir).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !existsSync(`${dir}/${name}.ts`)) {
  console.error(`Usage: npm run bench -- <${names.join("|")}>`);
  process.exit(2);
}
const r = spawnSync("npx", ["tsx", `${dir}/${name}.ts`, ...process.argv.slice(3)], { stdio: "inherit" });
process.exit(r.status ?? 1);
