/**
 * Prisma CLI configuration. sfbench uses the CLI only for `prisma generate`
 * (packages/db `npm run generate`); migrations are written by
 * `npm run db:migration -w @sfbench/db -- <name>` and applied by @sfbench/db
 * `migrate()`, both without Prisma's native schema engine. The connection URL
 * lives in packages/db/src/env.ts, not here.
 */
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
