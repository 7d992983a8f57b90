// Lint rules that keep the architecture honest: imports point inward (web/api → agent/state; agent knows no
// Prisma or state; state knows no React), and type-only imports are marked as such.
import tseslint from "typescript-eslint";
import globals from "globals";

const ours = (...names) => names.map((n) => `@phoneloop/${n}`);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
// `allow` lists subpaths that stay importable although their package is forbidden; `typesOnly` lists packages
// (with their `allow`ed subpaths) or module paths (`regex`) whose types may be imported but not their code.
const forbid = (files, names, message, ignores = [], allow = [], typesOnly = []) => {
  const pattern = (group, rest) => {
    const kept = allow.filter((a) => a.startsWith(`${group}/`)).map((a) => `(?!${escape(a.slice(group.length))}$)`);
    return { regex: `^${escape(group)}${kept.join("")}(/.*)?$`, ...rest };
  };
  return {
    files,
    ignores,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          // A regex, not gitignore-style groups: a negated subpath cannot re-include what its excluded parent covers.
          patterns: [
            ...names.map((group) => pattern(group, { message })),
            ...typesOnly.map(({ name, regex, why }) => (regex ? { regex, message: why, allowTypeImports: true } : pattern(name, { message: why, allowTypeImports: true }))),
          ],
        },
      ],
    },
  };
};
// The state core's pure vocabulary and rules (no Prisma, no pg): shared by the runtime and the browser.
const STATE_DOMAIN = "@phoneloop/state/domain";
// What a page needs of the device package before a phone connects: the errors it shows, whether WebUSB exists.
const DEVICE_ERRORS = "@phoneloop/device/errors";
const DEVICE_BEFORE_CONNECT = "@phoneloop/device/webusb-support";
// Header names and the router's type: all a client may know of the API.
const API_CONTRACT = "@phoneloop/api/contract";
// What no file of the web app imports (the names and the message of its rule).
const WEB_SERVER_CODE = [
  [...ours("state", "api", "cli", "virtual-phone"), "@prisma", "pg"],
  "apps/web talks to the API through packages/client; it never imports the state core, Prisma or server code.",
];

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/.next/**",
      "**/dist/**",
      "**/generated/**",
      ".data/**",
      "**/test-results/**",
      "**/playwright-report/**",
      "**/*.d.ts",
    ],
  },
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "warn",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
    },
  },
  forbid(
    ["packages/state/**"],
    [...ours("web", "api", "agent", "device", "virtual-phone", "cli"), "react", "next"],
    "packages/state is the core: it imports no app, runtime or UI code.",
  ),
  forbid(
    ["packages/agent/**"],
    [...ours("web", "api", "state", "cli", "client", "ocr"), "@prisma", "pg", "react", "next"],
    "packages/agent talks to the state core only through its ControlPlane port (and the core's pure domain), reads pixels only through its Ocr port, and knows no Prisma.",
    [],
    [STATE_DOMAIN],
  ),
  // The runtime drives phones only through the Device port; its tests may start a virtual phone.
  // (A later entry replaces the rule for the files it matches, so it repeats the list above.)
  forbid(
    ["packages/agent/src/**"],
    [...ours("web", "api", "state", "cli", "client", "virtual-phone", "ocr"), "@prisma", "pg", "react", "next"],
    "The agent runtime reaches the state core only through ControlPlane, phones only through Device and OCR only through Ocr.",
    ["**/*.test.ts", "**/testing/**"],
    [STATE_DOMAIN],
  ),
  forbid(
    ["packages/client/**"],
    [...ours("web", "state", "cli", "device", "virtual-phone", "api"), "@prisma", "pg", "react", "next", "node:*"],
    "packages/client runs in a browser tab: it knows the API's contract and the agent's port, nothing server-side.",
    ["**/*.test.ts", "**/testing/**"],
    [API_CONTRACT, STATE_DOMAIN],
  ),
  forbid(
    ["packages/cli/**"],
    [...ours("web", "state", "api", "virtual-phone"), "@prisma", "pg", "react", "next"],
    "packages/cli composes client, agent and device; it reaches the state core only through the API.",
    ["**/*.test.ts", "**/testing/**"],
    [API_CONTRACT, STATE_DOMAIN],
  ),
  // The reference policy is a model: it reads the agent's requests (through the agent's public entry) and the
  // virtual phone's task pack; its end-to-end tests drive the product.
  forbid(
    ["packages/reference-policy/**"],
    [...ours("web", "api", "state", "cli", "client", "device"), "@prisma", "pg", "react", "next"],
    "packages/reference-policy answers the agent's model requests; it knows only the agent's public entry and the virtual phone's pack.",
    ["**/*.test.ts"],
  ),
  forbid(
    ["apps/web/**"],
    ...WEB_SERVER_CODE,
    ["apps/web/src/lib/runner.ts"],
    [API_CONTRACT, STATE_DOMAIN, DEVICE_BEFORE_CONNECT, DEVICE_ERRORS],
    [
      // The phone and runtime code is the largest part of the app's scripts: every page would load it.
      { name: "@phoneloop/device", why: "Pages load the ADB stack only when a phone connects: `await import(\"@phoneloop/device\")` (its errors and the WebUSB check have their own subpaths)." },
      { name: "@phoneloop/agent", why: "Pages load the agent runtime only when the tab runs: through lib/runner.ts, imported with `await import()`." },
      { name: "@phoneloop/ocr", why: "Pages load the OCR reader only when a run meets a blind screen: lib/runner.ts imports it with `await import()`." },
      { regex: "/lib/runner(\\.ts)?$", why: "lib/runner.ts carries the agent runtime: import it with `await import()` where the tab runs, so other pages do not load it." },
    ],
  ),
  // lib/runner.ts is the tab's composition root for runs (itself loaded on demand): it may import the runtime.
  forbid(["apps/web/src/lib/runner.ts"], ...WEB_SERVER_CODE, [], [API_CONTRACT, STATE_DOMAIN]),
  forbid(
    ["packages/device/src/**"],
    [...ours("web", "api", "state", "agent", "cli"), "@prisma", "react", "next"],
    "packages/device knows phones, not the product around them.",
  ),
  // The OCR reader knows pixels and Tesseract; the agent's Ocr port matches it by shape. Its bench screens are drawn
  // by the virtual phone's renderer.
  forbid(
    ["packages/ocr/**"],
    [...ours("web", "api", "state", "agent", "device", "cli", "client"), "@prisma", "pg", "react", "next"],
    "packages/ocr reads text from screenshots: it imports nothing of the product.",
  ),
  forbid(
    ["packages/virtual-phone/**"],
    [...ours("web", "api", "state", "agent", "device", "cli"), "@prisma", "react", "next"],
    "The virtual phone is a stand-alone device: it imports nothing of the product.",
  ),
  forbid(["apps/api/**"], [...ours("web", "device"), "react", "next"], "apps/api serves the web app; it never imports it."),
);
