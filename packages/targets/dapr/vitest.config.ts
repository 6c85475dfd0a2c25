import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // the first build downloads Go modules and compiles daprd and placement; a start waits for the sidecar and placement
    testTimeout: 300_000,
    hookTimeout: 1_000_000,
    fileParallelism: false,
  },
});
