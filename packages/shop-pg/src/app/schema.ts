/**
 * Creates a target's tables (its schema.sql) if they are missing. Several
 * processes may start against one database at once, so the DDL runs under an
 * advisory lock; each target names its own lock.
 */
import type { Db } from "./db.ts";

export interface SchemaScript {
  /** idempotent DDL, run on every start */
  sql: string;
  /** the advisory lock key that names "this target's schema" */
  lock: number;
}

export async function createSchema(db: Db, { sql, lock }: SchemaScript): Promise<void> {
  await db.query(`BEGIN; SELECT pg_advisory_xact_lock(${lock}); ${sql}; COMMIT;`);
}

/**
 * Retries createSchema until it succeeds (PostgreSQL may still be starting)
 * or `stopped()` says the server is closing.
 */
export async function createSchemaWithRetry(
  db: Db,
  schema: SchemaScript,
  stopped: () => boolean,
  onRetry: (err: Error, attempt: number) => void,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await createSchema(db, schema);
      return;
    } catch (err) {
      if (stopped()) throw err;
      onRetry(err as Error, attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));
    }
  }
}
