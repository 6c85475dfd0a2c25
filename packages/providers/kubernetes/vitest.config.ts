import { defineConfig } from "vitest/config";

// podman builds and plays, k6 against played pods: generous timeouts, one file at a time (they share the project's podman storage)
export default defineConfig({
  test: { globalSetup: ["../../../scripts/vitest-tmpdir.ts"], testTimeout: 240_000, hookTimeout: 600_000, fileParallelism: false },
});
