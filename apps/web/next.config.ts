import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages export TypeScript source; Next compiles them like app code.
  transpilePackages: ["@phoneloop/client", "@phoneloop/api", "@phoneloop/state", "@phoneloop/agent", "@phoneloop/device"],
  reactStrictMode: true,
  poweredByHeader: false,
};

export default config;
