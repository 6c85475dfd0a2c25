import { defineConfig } from "vitest/config";

// real podman on a shared 2-core machine: image builds and container starts take minutes, not seconds
export default defineConfig({
  test: { globalSetup: ["../../../scripts/vitest-tmpdir.ts"], testTimeout: 900_000, hookTimeout: 900_000, fileParallelism: false },
});
