/**
 * The query the leaderboard starts from: the latest completed run of every
 * system in every environment (kind x node count), answered from the index
 * Run(status, environmentKind, nodes, systemId, finishedAt DESC).
 */
import type { Db } from "./client.ts";
import { Prisma, type EnvironmentKind } from "./generated/client.ts";

/** the client or a transaction */
type Queryable = Pick<Db, "$queryRaw">;

export interface LatestRun {
  runId: string;
  systemId: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  finishedAt: Date;
}

export interface LatestRunsFilter {
  environmentKind?: EnvironmentKind;
  nodes?: number;
}

function latestRunsSql(filter: LatestRunsFilter): Prisma.Sql {
  const where = [Prisma.sql`status = 'completed'`];
  if (filter.environmentKind) where.push(Prisma.sql`"environmentKind" = ${filter.environmentKind}::"EnvironmentKind"`);
  if (filter.nodes !== undefined) where.push(Prisma.sql`nodes = ${filter.nodes}`);
  return Prisma.sql`
    SELECT DISTINCT ON ("environmentKind", nodes, "systemId")
      id AS "runId", "systemId", "environmentKind", nodes, "finishedAt"
    FROM "Run"
    WHERE ${Prisma.join(where, " AND ")}
    ORDER BY "environmentKind", nodes, "systemId", "finishedAt" DESC`;
}

/** One row per (environment kind, nodes, system): its latest completed run. Failed runs never appear. */
export function latestRuns(db: Queryable, filter: LatestRunsFilter = {}): Promise<LatestRun[]> {
  return db.$queryRaw<LatestRun[]>(latestRunsSql(filter));
}

/** The query plan of latestRuns (tests check that it reads the leaderboard index). */
export async function explainLatestRuns(db: Queryable, filter: LatestRunsFilter = {}): Promise<string> {
  const rows = await db.$queryRaw<{ "QUERY PLAN": string }[]>(Prisma.sql`EXPLAIN ${latestRunsSql(filter)}`);
  return rows.map((r) => r["QUERY PLAN"]).join("\n");
}
