/**
 * The PostgreSQL pool and the two helpers every repository uses.
 */
import pg from "pg";

const INT8_OID = 20;

/**
 * bigint columns (stock, credits, totals, counts) come back as JS numbers:
 * the API speaks JSON numbers, and every value we store stays far below 2^53.
 */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary" ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface PoolOptions {
  databaseUrl: string;
  /** connections, default 20 */
  size?: number;
  /** what PostgreSQL shows for these connections (pg_stat_activity), e.g. "sfbench-node-postgres" */
  applicationName: string;
  onError: (err: Error) => void;
}

export function createPool({ databaseUrl, size = 20, applicationName, onError }: PoolOptions): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: size, types, application_name: applicationName });
  // An idle client losing its connection must not crash the process.
  pool.on("error", onError);
  return pool;
}

export type Db = pg.Pool;
export type Tx = pg.PoolClient;

/** Runs `work` in one transaction: COMMIT if it returns, ROLLBACK if it throws. */
export async function transaction<T>(pool: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  const tx = await pool.connect();
  let broken: Error | undefined;
  try {
    await tx.query("BEGIN");
    const result = await work(tx);
    await tx.query("COMMIT");
    return result;
  } catch (err) {
    await tx.query("ROLLBACK").catch((rollbackErr: Error) => {
      broken = rollbackErr;
    });
    throw err;
  } finally {
    // A connection whose ROLLBACK failed is in an unknown state: drop it.
    tx.release(broken);
  }
}

/** SQLSTATEs after which the same transaction may simply be retried. */
export function isRetryable(err: unknown): boolean {
  const code = err instanceof Error && "code" in err ? err.code : undefined;
  return code === "40001" || code === "40P01";
}
