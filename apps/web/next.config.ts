import type { NextConfig } from "next";

// Here, not imported: on Node 20 Next loads this config through require(), which cannot load another .ts file.
/** Headers on every response; the CSP with its per-response nonce is set in src/proxy.ts. */
const SECURITY_HEADERS: { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // A setup or invite link's token must not leave in a Referer header.
  { key: "Referrer-Policy", value: "no-referrer" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
  // WebUSB is how the tab reaches a phone; nothing else powerful is used.
  { key: "Permissions-Policy", value: "usb=(self), camera=(), microphone=(), geolocation=(), payment=()" },
];

const config: NextConfig = {
  // Workspace packages export TypeScript source; Next compiles them like app code.
  transpilePackages: ["@phoneloop/client", "@phoneloop/api", "@phoneloop/state", "@phoneloop/agent", "@phoneloop/device"],
  reactStrictMode: true,
  poweredByHeader: false,
  // A check builds into its own folder (PHONELOOP_WEB_DIST_DIR) so it never touches the build `npm start` serves.
  distDir: process.env.PHONELOOP_WEB_DIST_DIR || ".next",
  // That check's build skips the type check: npm test type-checks apps/web on its own.
  typescript: { ignoreBuildErrors: Boolean(process.env.PHONELOOP_WEB_DIST_DIR) },
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default config;
