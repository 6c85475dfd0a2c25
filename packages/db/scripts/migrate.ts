/**
 * npm run db:migrate -w @sfbench/db: applies pending migrations to DATABASE_URL
 * (default: the local sfbench database, started and created when needed), e.g.
 * as a deploy step; getDb() does the same on its first call.
 */
import { closeDb, ensureDatabase } from "../src/client.ts";
import { migrate } from "../src/migrate.ts";

try {
  const url = await ensureDatabase({ onProgress: (m) => process.stderr.write(`${m}\n`) });
  const { applied, alreadyApplied } = await migrate(url);
  const where = url.replace(/\/\/[^@/]*@/, "//"); // no credentials in the log
  process.stderr.write(
    applied.length
      ? `applied ${applied.join(", ")} to ${where} (${alreadyApplied} applied before)\n`
      : `${where} is up to date (${alreadyApplied} migrations)\n`,
  );
} catch (e) {
  process.stderr.write(`error: ${(e as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await closeDb();
}
