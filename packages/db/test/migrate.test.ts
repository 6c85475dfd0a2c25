import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_TABLE, MigrationError, migrate, migrationsDir, readMigrations } from "../src/index.ts";
import { sql, testDatabase, type TestDatabase } from "./helpers.ts";

let db: TestDatabase;
let dir: string;
beforeAll(async () => {
  db = await testDatabase();
  dir = await mkdtemp(path.join(tmpdir(), "sfbench-migrations-"));
});
afterAll(async () => {
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fresh database of its own for one test. */
async function scratch<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const own = await testDatabase();
  try {
    return await fn(own.url);
  } finally {
    await own.drop();
  }
}

describe("migrate", () => {
  it("applies every migration once, and a second call changes nothing", async () => {
    const all = (await readMigrations()).map((m) => m.name);
    expect(all.length).toBeGreaterThan(0);
    expect(await migrate(db.url)).toEqual({ applied: all, alreadyApplied: 0 });
    expect(await migrate(db.url)).toEqual({ applied: [], alreadyApplied: all.length });
    const rows = await sql<{ name: string }>(db.url, `SELECT name FROM "${MIGRATIONS_TABLE}" ORDER BY name`);
    expect(rows.map((r) => r.name)).toEqual(all);
  });

  it("applies each migration exactly once when several processes start at the same time", async () => {
    await scratch(async (url) => {
      const results = await Promise.all(Array.from({ length: 6 }, () => migrate(url)));
      const all = (await readMigrations()).map((m) => m.name);
      expect(results.flatMap((r) => r.applied)).toEqual(all);
      expect(results.filter((r) => r.applied.length === 0)).toHaveLength(5);
      const [count] = await sql<{ n: number }>(url, `SELECT count(*)::int AS n FROM "${MIGRATIONS_TABLE}"`);
      expect(count?.n).toBe(all.length);
    });
  });

  it("rolls back a failing migration and leaves it pending", async () => {
    const own = path.join(dir, "failing");
    await cp(migrationsDir, own, { recursive: true });
    await mkdir(path.join(own, "20990101000000_broken"));
    await writeFile(path.join(own, "20990101000000_broken", "migration.sql"), 'CREATE TABLE "Half" (id int);\nSELECT 1 / 0;\n');
    await scratch(async (url) => {
      await expect(migrate(url, { dir: own })).rejects.toThrow(/migration 20990101000000_broken failed and was rolled back: division by zero/);
      expect(await sql(url, `SELECT to_regclass('"Half"') AS t`)).toEqual([{ t: null }]);
      const names = await sql<{ name: string }>(url, `SELECT name FROM "${MIGRATIONS_TABLE}"`);
      expect(names.map((r) => r.name)).not.toContain("20990101000000_broken");
    });
  });

  it("refuses to run when an applied migration was edited", async () => {
    const own = path.join(dir, "edited");
    await cp(migrationsDir, own, { recursive: true });
    await scratch(async (url) => {
      await migrate(url, { dir: own });
      const [first] = await readMigrations(own);
      await writeFile(path.join(own, first!.name, "migration.sql"), `${first!.sql}\n-- an edit\n`);
      const error = await migrate(url, { dir: own }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toMatch(/was changed after it was applied/);
    });
  });
});
