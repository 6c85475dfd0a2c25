/** A fresh, migrated database per test file on the local PostgreSQL (@sfbench/services); drop() removes it. */
import { randomBytes } from "node:crypto";
import { createDb, migrate, type Db } from "@sfbench/db";
import { createDatabase, postgresUrl, up } from "@sfbench/services";

export interface TestDatabase {
  name: string;
  url: string;
  db: Db;
  drop(): Promise<void>;
}

export async function testDatabase(): Promise<TestDatabase> {
  await up(["postgres"]);
  const name = `test_web_${randomBytes(5).toString("hex")}`;
  const url = await createDatabase(name);
  await migrate(url);
  const db = createDb(url);
  return {
    name,
    url,
    db,
    drop: async () => {
      await db.$disconnect();
      const admin = createDb(postgresUrl(), { max: 1 });
      try {
        await admin.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.$disconnect();
      }
    },
  };
}
