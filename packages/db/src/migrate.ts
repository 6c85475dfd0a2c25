/**
 * Applies the SQL migrations in prisma/migrations, in name (= timestamp) order,
 * each in its own transaction, under a PostgreSQL advisory lock so that several
 * processes starting at once apply each migration exactly once. Applied
 * migrations are recorded with a checksum in _sfbench_migrations; editing one
 * after it was applied is an error (write a new migration instead).
 */
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { migrationsDir } from "./paths.ts";

export const MIGRATIONS_TABLE = "_sfbench_migrations";
/** pg_advisory_lock key: "sfbench migrate" (any constant; only our migrator takes it) */
const LOCK_KEY = "7305510573817352300";
const NAME_RE = /^\d{14}_[a-z0-9_]+$/;

export interface Migration {
  /** the directory name, e.g. 20261122000000_init */
  name: string;
  sql: string;
  /** sha256 of the SQL with \n line ends */
  checksum: string;
}

export class MigrationError extends Error {}

/** The migrations on disk, oldest first. */
export async function readMigrations(dir = migrationsDir): Promise<Migration[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw new MigrationError(`cannot read the migrations directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      if (!NAME_RE.test(name)) throw new MigrationError(`${path.join(dir, name)}: a migration directory is named <14-digit UTC timestamp>_<snake_case name>`);
      const file = path.join(dir, name, "migration.sql");
      const sql = (
        await readFile(file, "utf8").catch(() => {
          throw new MigrationError(`${file} is missing`);
        })
      ).replace(/\r\n/g, "\n");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export interface MigrateResult {
  /** names of the migrations this call applied, in order */
  applied: string[];
  /** how many were applied before */
  alreadyApplied: number;
}

/** Brings the database at `url` up to date. Idempotent; safe to call from several processes at once. */
export async function migrate(url: string, opts: { dir?: string } = {}): Promise<MigrateResult> {
  const migrations = await readMigrations(opts.dir);
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined); // a dropped connection surfaces as the failing query's error
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      return await applyPending(client, migrations);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(client: pg.Client, migrations: Migration[]): Promise<MigrateResult> {
  await client.query(`CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" (
    name text PRIMARY KEY,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${MIGRATIONS_TABLE}"`);
  const done = new Map(rows.map((r) => [r.name, r.checksum]));
  const known = new Set(migrations.map((m) => m.name));
  const unknown = [...done.keys()].filter((name) => !known.has(name));
  if (unknown.length) {
    throw new MigrationError(`the database has migrations that are not in prisma/migrations: ${unknown.join(", ")} (is this code older than the database?)`);
  }
  const applied: string[] = [];
  for (const m of migrations) {
    const checksum = done.get(m.name);
    if (checksum !== undefined) {
      if (checksum !== m.checksum) {
        throw new MigrationError(`migration ${m.name} was changed after it was applied; undo the edit and write a new migration instead`);
      }
      continue;
    }
    try {
      await client.query("BEGIN");
      await client.query(m.sql);
      await client.query(`INSERT INTO "${MIGRATIONS_TABLE}" (name, checksum) VALUES ($1, $2)`, [m.name, m.checksum]);
      await client.query("COMMIT");
    } catch (e) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw new MigrationError(`migration ${m.name} failed and was rolled back: ${(e as Error).message}`);
    }
    applied.push(m.name);
  }
  return { applied, alreadyApplied: done.size };
}
