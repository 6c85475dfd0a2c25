import { defineConfig } from "vitest/config";

/**
 * `npx vitest run packages/<pkg>/test/<file>` from the repository's root runs
 * that file as `npm test` does: under its package's own config (timeouts,
 * global setup, one file at a time). Without this, vitest's defaults applied
 * and its file filter also matched the copies of the repository that image
 * builds leave under .sfbench/, which then started the same targets at once.
 */
export default defineConfig({
  test: {
    projects: ["apps/*/vitest.config.ts", "packages/*/vitest.config.ts", "packages/providers/*/vitest.config.ts", "packages/targets/*/vitest.config.ts"],
  },
});
