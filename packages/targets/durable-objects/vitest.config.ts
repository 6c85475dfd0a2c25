import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // provider-local runs one instance per target name: one test file at a time
    fileParallelism: false,
  },
});
