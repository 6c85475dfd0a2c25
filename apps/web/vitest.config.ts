import { defineConfig } from "vitest/config";

// Real PostgreSQL (a fresh database per test file) and, for e2e, a real Next.js server and Chromium.
export default defineConfig({
  test: {
    globalSetup: ["../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.{ts,tsx}", "src/**/*.test.{ts,tsx}"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
