import { defineConfig } from "vitest/config";

// The CLI tests start real services and targets: generous timeouts.
export default defineConfig({ test: { globalSetup: ["../../scripts/vitest-tmpdir.ts"], testTimeout: 300_000, hookTimeout: 300_000 } });
