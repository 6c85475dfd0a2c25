/**
 * @sfbench/db: the one Prisma client of sfbench and what writes through it.
 * Server-side only (Node): never import it from client components.
 */
export { closeDb, createDb, ensureDatabase, getDb, type CreateDbOptions, type Db, type EnsureDatabaseOptions } from "./client.ts";
export { env as dbEnv } from "./env.ts";
export { MIGRATIONS_TABLE, MigrationError, migrate, readMigrations, type MigrateResult, type Migration } from "./migrate.ts";
export { migrationsDir, schemaPath } from "./paths.ts";
export {
  ImportError,
  importPath,
  importResult,
  ResultConflictError,
  resultFiles,
  type FileOutcome,
  type ImportOptions,
  type ImportOutcome,
  type ImportPathOptions,
  type ImportSummary,
} from "./import.ts";
export * from "./json.ts";
export { machineClass } from "./machine-class.ts";
export { CampaignRefusal, queueCampaignRuns, registeredSystems, type CampaignRunsInput, type QueuedCampaignRun } from "./campaigns.ts";
export { latestMicroRuns, latestResilienceRun, type LatestMicroRun, type LatestMicroRunsFilter, type LatestResilienceRun } from "./experiments.ts";
// the generated client: model types (User, Run, CellResult, ...), enums (RunStatus, ...) and the Prisma namespace
export { Prisma, PrismaClient } from "./generated/client.ts";
export type * from "./generated/client.ts";
export * from "./generated/enums.ts";
