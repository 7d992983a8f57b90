// `npm run db:diff -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql from the difference
// between the schema the migrations already produce (prisma/migrations/applied-schema.prisma.txt) and
// prisma/schema.prisma. Prisma 7's native schema engine cannot be downloaded offline; Prisma 6.19's JS engine
// diffs two schema files without one (it needs a reachable Postgres only to load its driver adapter).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmbeddedPostgres } from "../packages/state/src/db/embedded-postgres.ts";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("Usage: npm run db:diff -- <snake_case_name>");
  process.exit(2);
}
const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "phoneloop-diff-"));
console.log(`Installing prisma@6.19 (diff engine) in ${work}…`);
execFileSync("npm", ["init", "-y"], { cwd: work, stdio: "ignore" });
execFileSync("npm", ["i", "--no-audit", "--no-fund", "prisma@6.19.3", "@prisma/adapter-pg@6.19.3", "pg"], { cwd: work, stdio: "inherit" });
const pg = await startEmbeddedPostgres({ dataDir: join(work, "pg"), ephemeral: true, fast: true });
try {
  const forDiff = (schema: string) =>
    schema
      .replace(/generator client \{[^}]*\}\n/, "")
      .replace(/provider = "postgresql"/, `provider = "postgresql"\n  url      = "${pg.adminUrl}"`);
  mkdirSync(join(work, "s"));
  writeFileSync(join(work, "s/old.prisma"), forDiff(readFileSync(join(root, "prisma/migrations/applied-schema.prisma.txt"), "utf8")));
  writeFileSync(join(work, "s/new.prisma"), forDiff(readFileSync(join(root, "prisma/schema.prisma"), "utf8")));
  writeFileSync(
    join(work, "prisma.config.ts"),
    `import { defineConfig } from "prisma/config";\nimport { PrismaPg } from "@prisma/adapter-pg";\n` +
      `export default defineConfig({ experimental: { adapter: true }, engine: "js", schema: "s/new.prisma",\n` +
      `  adapter: async () => new PrismaPg({ connectionString: ${JSON.stringify(pg.adminUrl)} }) });\n`,
  );
  const sql = execFileSync(
    "npx",
    ["prisma", "migrate", "diff", "--from-schema-datamodel", "s/old.prisma", "--to-schema-datamodel", "s/new.prisma", "--script"],
    { cwd: work, env: { ...process.env, PRISMA_QUERY_ENGINE_LIBRARY: process.execPath, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath } },
  ).toString();
  if (!sql.trim() || sql.includes("This is an empty migration")) {
    console.log("No difference between the applied schema and prisma/schema.prisma.");
  } else {
    const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
    const dir = join(root, "prisma/migrations", `${stamp}_${name}`);
    if (existsSync(dir)) throw new Error(`${dir} exists already`);
    mkdirSync(dir);
    writeFileSync(join(dir, "migration.sql"), sql);
    copyFileSync(join(root, "prisma/schema.prisma"), join(root, "prisma/migrations/applied-schema.prisma.txt"));
    console.log(`Wrote ${dir}/migration.sql — review it, append hand-written SQL if needed, commit it.`);
  }
} finally {
  await pg.stop();
}
