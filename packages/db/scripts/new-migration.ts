/**
 * npm run db:migration -w @sfbench/db -- <name>
 *
 * Writes prisma/migrations/<UTC timestamp>_<name>/migration.sql with the SQL that
 * takes the existing migrations to prisma/schema.prisma (Prisma's schema engine,
 * wasm build, against a shadow database on the sfbench PostgreSQL). Prints the
 * SQL; review it, add what Prisma cannot express (CHECK constraints), commit it.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { closeDb, ensureDatabase } from "../src/client.ts";
import { migrationsDir } from "../src/paths.ts";
import { diffMigrationsToSchema } from "./schema-diff.ts";

const usage = "usage: npm run db:migration -w @sfbench/db -- <name>   (name: snake_case, e.g. add_run_notes)";

async function main(argv: string[]): Promise<number> {
  const [name, ...extra] = argv;
  if (!name || extra.length || !/^[a-z][a-z0-9_]{0,60}$/.test(name)) {
    process.stderr.write(`${name ? `invalid migration name "${[name, ...extra].join(" ")}"\n` : ""}${usage}\n`);
    return 2;
  }
  const url = await ensureDatabase({ onProgress: (m) => process.stderr.write(`${m}\n`) });
  const sql = await diffMigrationsToSchema({ url });
  if (!sql) {
    process.stderr.write("prisma/schema.prisma matches the migrations: nothing to write\n");
    return 0;
  }
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const dir = path.join(migrationsDir, `${stamp}_${name}`);
  await mkdir(dir, { recursive: false });
  await writeFile(path.join(dir, "migration.sql"), sql);
  process.stdout.write(sql);
  process.stderr.write(`wrote ${path.relative(process.cwd(), path.join(dir, "migration.sql"))}\n`);
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await closeDb();
}
