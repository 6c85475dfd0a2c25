import { defineConfig } from "vitest/config";

// k6 runs against real targets: generous timeouts. One file at a time: two real benchmarks at once on
// a 2-core machine starve each other's load generator, and its trials come out invalid.
export default defineConfig({ test: { globalSetup: ["../../scripts/vitest-tmpdir.ts"], testTimeout: 120_000, hookTimeout: 120_000, fileParallelism: false } });
