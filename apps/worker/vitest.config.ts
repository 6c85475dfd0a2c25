import { defineConfig } from "vitest/config";

// Real runs (k6 against real targets) and worker processes: generous timeouts, one file at a time.
export default defineConfig({ test: { globalSetup: ["../../scripts/vitest-tmpdir.ts"], testTimeout: 240_000, hookTimeout: 120_000, fileParallelism: false } });
