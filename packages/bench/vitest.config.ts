import { defineConfig } from "vitest/config";

// k6 runs against real targets: generous timeouts.
export default defineConfig({ test: { globalSetup: ["../../scripts/vitest-tmpdir.ts"], testTimeout: 120_000, hookTimeout: 120_000 } });
