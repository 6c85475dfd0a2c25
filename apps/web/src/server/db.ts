/**
 * The portal's database: the process-wide client of @sfbench/db (the one Prisma
 * client of the repo). Server-only.
 */
import { getDb as getSharedDb, type Db } from "@sfbench/db";
import "../env.ts";

export type { Db };

export function getDb(): Promise<Db> {
  return getSharedDb();
}
