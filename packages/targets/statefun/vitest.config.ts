import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // every file starts the one bundled "statefun" target: one file at a time
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
