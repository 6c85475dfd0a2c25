import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // one target at a time: provider-local runs one instance per target name, and two targets at once overload a 2-core machine
    fileParallelism: false,
    // a JVM target's start, its conformance suite and its restart each take minutes on a loaded machine
    testTimeout: 900_000,
    hookTimeout: 900_000,
  },
});
