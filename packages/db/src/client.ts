/**
 * The one Prisma client of sfbench. `createDb(url)` for an explicit database
 * (tests, tools); `getDb()` for the process-wide client of DATABASE_URL, which
 * creates the local database when DATABASE_URL is unset and applies pending
 * migrations before the first query.
 */
import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "./env.ts";
import { PrismaClient } from "./generated/client.ts";
import { migrate } from "./migrate.ts";

export type Db = PrismaClient;

export interface CreateDbOptions {
  /** pool size (default 10) */
  max?: number;
}

/** A client for `url`; the caller ends it with `await db.$disconnect()`. */
export function createDb(url: string, opts: CreateDbOptions = {}): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: opts.max ?? 10 }) });
}

export interface EnsureDatabaseOptions {
  /** progress while the local PostgreSQL starts (only without DATABASE_URL) */
  onProgress?: (message: string) => void;
}

/**
 * The URL of the sfbench database: DATABASE_URL, or else database `sfbench` on the
 * local PostgreSQL of @sfbench/services (fsync on, this database's commits
 * synchronous), which is started and the database created when needed.
 */
export async function ensureDatabase(opts: EnsureDatabaseOptions = {}): Promise<string> {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  // loaded only here: a deployment with DATABASE_URL never touches the local services
  const services = await import("@sfbench/services");
  await services.up(["postgres"], { onProgress: (_service, message) => opts.onProgress?.(`postgres: ${message}`) });
  // the board, accounts and ratings: a commit the portal acknowledged is on disk
  return services.createDatabase("sfbench", { fresh: false, durable: true });
}

// On globalThis so that module reloads (Next.js dev, vitest) share one pool per process.
const holder = globalThis as typeof globalThis & { __sfbenchDb?: Promise<Db> };

/** The process-wide client: database ensured and migrated on the first call. */
export function getDb(opts: EnsureDatabaseOptions = {}): Promise<Db> {
  holder.__sfbenchDb ??= (async () => {
    const url = await ensureDatabase(opts);
    await migrate(url);
    return createDb(url);
  })().catch((error: unknown) => {
    holder.__sfbenchDb = undefined; // let the next call try again
    throw error;
  });
  return holder.__sfbenchDb;
}

/** Ends the process-wide client's pool (CLI commands, scripts, tests). */
export async function closeDb(): Promise<void> {
  const pending = holder.__sfbenchDb;
  holder.__sfbenchDb = undefined;
  if (pending) await (await pending.catch(() => undefined))?.$disconnect();
}
