import { defineConfig } from "vitest/config";

export default defineConfig({ test: { globalSetup: ["../../scripts/vitest-tmpdir.ts"], testTimeout: 60_000, hookTimeout: 60_000 } });
