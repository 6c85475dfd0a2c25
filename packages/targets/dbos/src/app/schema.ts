/**
 * Creates the tables of schema.sql if they are missing. Several processes may
 * start against one database at once, so the DDL runs under an advisory lock.
 */
import { readFileSync } from "node:fs";
import type { Db } from "./db.ts";

const SCHEMA_SQL = readFileSync(new URL("./schema.sql", import.meta.url), "utf8");
/** Arbitrary constant that names "the sfbench dbos application schema" lock. */
const SCHEMA_LOCK = 5_319_004_218;

export async function createSchema(db: Db): Promise<void> {
  await db.query(`BEGIN; SELECT pg_advisory_xact_lock(${SCHEMA_LOCK}); ${SCHEMA_SQL}; COMMIT;`);
}

/**
 * Retries createSchema until it succeeds (PostgreSQL may still be starting)
 * or `stopped()` says the server is closing.
 */
export async function createSchemaWithRetry(db: Db, stopped: () => boolean, onRetry: (err: Error, attempt: number) => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await createSchema(db);
      return;
    } catch (err) {
      if (stopped()) throw err;
      onRetry(err as Error, attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 2000)));
    }
  }
}
