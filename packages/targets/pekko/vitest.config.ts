import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // the first build downloads the Maven dependencies; a start waits for every cluster member
    testTimeout: 300_000,
    hookTimeout: 1_000_000,
    // every file starts the one bundled "pekko" target: one file at a time
    fileParallelism: false,
  },
});
