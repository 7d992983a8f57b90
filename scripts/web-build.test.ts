import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { webSourceHash } from "./web-build.ts";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "phoneloop-web-hash-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  return root;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

const SOURCES = {
  "apps/web/src/app/page.tsx": "export default function Page() { return null; }\n",
  "apps/api/src/contract.ts": "export const ACCOUNT_PATH = '/api/account';\n",
  "packages/state/src/index.ts": "export {};\n",
  "package-lock.json": "{}\n",
  "tsconfig.base.json": "{}\n",
};

describe("the web app's source hash", () => {
  it("does not change when a build, a check's build or a test writes what it writes", () => {
    const root = tree(SOURCES);
    const before = webSourceHash(root);
    // What `next build` leaves, with either output folder named in next-env.d.ts (the key check builds into its own).
    write(root, "apps/web/next-env.d.ts", '/// <reference types="next" />\nimport "./.next-keycheck/types/routes.d.ts";\n');
    write(root, "apps/web/.next/BUILD_ID", "abc\n");
    write(root, "apps/web/.next-keycheck/cache/webpack/x.pack", "binary");
    write(root, "apps/web/.next-build-lock/owner", "1\n");
    write(root, "packages/state/.turbo/turbo-typecheck.log", "ok\n");
    write(root, "packages/state/src/generated/prisma/client.ts", "export {};\n");
    write(root, "packages/state/tsconfig.tsbuildinfo", "{}\n");
    write(root, "packages/virtual-phone/scratch/shot.png", "png");
    write(root, "packages/agent/src/parse.test.ts", "it('x', () => {});\n");
    expect(webSourceHash(root)).toBe(before);
    write(root, "apps/web/next-env.d.ts", '/// <reference types="next" />\nimport "./.next/types/routes.d.ts";\n');
    expect(webSourceHash(root)).toBe(before);
  });

  it("changes when a source of the bundle changes, is added or is removed", () => {
    const root = tree(SOURCES);
    const before = webSourceHash(root);
    write(root, "packages/state/src/index.ts", "export const x = 1;\n");
    const edited = webSourceHash(root);
    expect(edited).not.toBe(before);
    write(root, "apps/web/src/app/board/page.tsx", "export default function Board() { return null; }\n");
    const added = webSourceHash(root);
    expect(added).not.toBe(edited);
    rmSync(join(root, "apps/web/src/app/board/page.tsx"));
    expect(webSourceHash(root)).toBe(edited);
    write(root, "package-lock.json", '{"lockfileVersion":3}\n');
    expect(webSourceHash(root)).not.toBe(edited);
  });
});
