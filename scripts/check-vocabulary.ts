// Fails when a retired word (docs/glossary.md, last column) or a citation of a document outside the repository
// appears in the repository's code or docs. Run by `npm test` next to lint.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const glossary = readFileSync(join(root, "docs", "glossary.md"), "utf8");

const retired: string[] = [];
for (const line of glossary.split("\n")) {
  const cells = line.split("|").map((c) => c.trim());
  // | word | meaning | retired |  → cells: ["", word, meaning, retired, ""]
  if (cells.length < 5 || cells[1] === "word" || /^-+$/.test(cells[1] ?? "")) continue;
  for (const m of (cells[3] ?? "").matchAll(/`([^`]+)`/g)) retired.push(m[1]!);
}
// Code explains itself: no citations of the steering documents that live outside this repository.
const outside = ["CONCEPTS §", "CONCEPTS.md", "shared/STYLE", "shared/CONCEPTS"];

const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => /\.(ts|tsx|mts|mjs|js|md|json|prisma|sql|sh)$/.test(f))
  .filter((f) => f !== "docs/glossary.md" && f !== "scripts/check-vocabulary.ts" && !f.includes("/generated/") && f !== "package-lock.json")
  // Applied migrations are history (never edited), and the tests that migrate old rows must name the old words.
  .filter((f) => !f.startsWith("prisma/migrations/") && !f.endsWith("-migration.test.ts"));

const problems: string[] = [];
for (const f of files) {
  let text: string;
  try {
    text = readFileSync(join(root, f), "utf8");
  } catch {
    continue; // listed but deleted in the work tree
  }
  const lines = text.split("\n");
  lines.forEach((line, n) => {
    for (const w of retired) if (line.includes(w)) problems.push(`${f}:${n + 1}: retired word "${w}" — see docs/glossary.md`);
    for (const w of outside) if (line.includes(w)) problems.push(`${f}:${n + 1}: cites "${w}", a document outside the repository — explain it here or in docs/concepts.md`);
  });
}
if (problems.length) {
  console.error(problems.join("\n"));
  console.error(`\n${problems.length} vocabulary problem(s).`);
  process.exit(1);
}
console.log(`vocabulary: ${retired.length} retired words, ${files.length} files, clean`);
