import { defineConfig } from "vitest/config";

// Real PostgreSQL (started on demand by @sfbench/services); the CLI test spawns node.
export default defineConfig({
  test: { globalSetup: ["../../scripts/vitest-tmpdir.ts"], include: ["test/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 300_000 },
});
