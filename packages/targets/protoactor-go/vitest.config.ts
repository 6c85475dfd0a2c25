import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // the first build downloads Go modules; a start waits for every cluster member
    testTimeout: 300_000,
    hookTimeout: 1_000_000,
    fileParallelism: false,
  },
});
