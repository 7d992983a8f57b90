import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./src/security-headers.ts";

const config: NextConfig = {
  // Workspace packages export TypeScript source; Next compiles them like app code.
  transpilePackages: ["@phoneloop/client", "@phoneloop/api", "@phoneloop/state", "@phoneloop/agent", "@phoneloop/device"],
  reactStrictMode: true,
  poweredByHeader: false,
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default config;
