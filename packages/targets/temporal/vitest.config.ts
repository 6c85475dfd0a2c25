import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // the first build downloads Go modules and compiles the temporal CLI (the Temporal server); a start waits for the server
    testTimeout: 300_000,
    hookTimeout: 1_000_000,
    fileParallelism: false,
  },
});
