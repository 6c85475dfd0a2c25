import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["../../scripts/vitest-tmpdir.ts"],
    include: ["test/**/*.test.ts"],
    // Real services: a cold Kafka takes ~10 s, building k6 with Go 2-4 minutes on a fresh machine.
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
