#!/usr/bin/env node
// `npm run agent`: the headless worker's launcher. The worker (src/agent/main.ts and the workspace packages it
// imports) runs from one ESM bundle made by esbuild, its npm dependencies loaded as they are. A worker started this
// way is up in about half the time tsx takes to load its few hundred TypeScript modules through loader hooks, and a
// restarted worker's first step comes that much sooner (bench recover). The bundle is made again when a file it was
// made from changed: the size and mtime of each (esbuild's metafile lists them) are kept beside it and checked on
// every start, which costs milliseconds. Hand-written because it is that check: esbuild builds, nothing watches.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const outDir = join(root, "node_modules/.cache/phoneloop-agent");
const bundle = join(outDir, "main.mjs");
const inputsFile = join(outDir, "inputs.json");

/** Whether the bundle was made from the files as they are now. */
function current() {
  try {
    const inputs = JSON.parse(readFileSync(inputsFile, "utf8"));
    statSync(bundle);
    return Object.entries(inputs).every(([path, [size, mtimeMs]]) => {
      const s = statSync(join(root, path));
      return s.size === size && s.mtimeMs === mtimeMs;
    });
  } catch {
    return false;
  }
}

async function build() {
  const { build: esbuild } = await import("esbuild");
  mkdirSync(outDir, { recursive: true });
  // Written under this process's own names, then renamed: two workers starting at once never read half a bundle.
  const tmp = `${bundle}.${process.pid}.tmp`;
  let result;
  try {
    result = await esbuild({
      absWorkingDir: root,
      stdin: { contents: 'import { runProcess } from "./main.ts";\nrunProcess();\n', resolveDir: join(root, "packages/cli/src/agent"), sourcefile: "agent-entry.ts", loader: "ts" },
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: tmp,
      metafile: true,
      logLevel: "warning",
      plugins: [
        {
          // The workspace's TypeScript is bundled; npm packages (native ones among them) load from node_modules.
          name: "npm-packages-external",
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith("@phoneloop/") ? undefined : { path: a.path, external: true }));
          },
        },
      ],
    });
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  // The files it was made from (not the entry above, which is no file; not npm packages, which load as they are).
  const files = new Set(Object.keys(result.metafile.inputs).filter((p) => !p.endsWith("agent-entry.ts") && !p.includes("node_modules/")));
  // A workspace package's package.json maps its imports (exports): a change there changes what is bundled.
  for (const p of [...files]) {
    const pkg = /^((?:packages|apps)\/[^/]+)\//.exec(p);
    if (pkg) files.add(`${pkg[1]}/package.json`);
  }
  const inputs = {};
  for (const p of files) {
    const s = statSync(join(root, p));
    inputs[relative(root, join(root, p))] = [s.size, s.mtimeMs];
  }
  renameSync(tmp, bundle);
  writeFileSync(`${inputsFile}.${process.pid}.tmp`, JSON.stringify(inputs));
  renameSync(`${inputsFile}.${process.pid}.tmp`, inputsFile);
}

if (!current()) await build();
await import(pathToFileURL(bundle).href);
