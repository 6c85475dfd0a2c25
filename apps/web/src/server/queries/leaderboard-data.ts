/**
 * What the leaderboard reads, in a few indexed queries: the latest completed run
 * per system and environment (latestRuns), then for exactly those runs their
 * system/version, their cells' scalar columns (never series or histograms) and
 * the systems' rating aggregates. Failed runs never appear (latestRuns reads
 * completed runs only) and invalid cells carry no numbers.
 */
import { latestRuns, type Db, type EnvironmentKind, type LocCounts } from "@sfbench/db";
import { ratingCountsSql } from "../ratings/counted.ts";

export interface CellNumbers {
  workload: string;
  distribution: string;
  valid: boolean;
  invalidReason: string | null;
  sustainableRate: number | null;
  p50: number | null;
  p99: number | null;
  errorRate: number | null;
  throughputPerCore: number | null;
  anomaliesTotal: number | null;
}

export interface RunMeta {
  runId: string;
  systemId: string;
  slug: string;
  name: string;
  version: string;
  loc: LocCounts | null;
  manifestKnown: boolean;
  environmentKind: EnvironmentKind;
  nodes: number;
  finishedAt: Date;
}

export interface RatingSummary {
  programmingModel: number;
  understandability: number;
  count: number;
}

export interface LeaderboardData {
  runs: RunMeta[];
  cells: Map<string, CellNumbers[]>;
  ratings: Map<string, RatingSummary>;
  environments: { kind: EnvironmentKind; nodes: number }[];
}

export async function readLeaderboardData(db: Db, filter: { kind?: EnvironmentKind; nodes?: number }): Promise<LeaderboardData> {
  const [latest, environments] = await Promise.all([
    latestRuns(db, { environmentKind: filter.kind, nodes: filter.nodes }),
    db.$queryRaw<{ kind: EnvironmentKind; nodes: number }[]>`
      SELECT DISTINCT "environmentKind" AS kind, nodes FROM "Run" WHERE status = 'completed' ORDER BY 1, 2`,
  ]);
  if (latest.length === 0) return { runs: [], cells: new Map(), ratings: new Map(), environments };
  const runIds = latest.map((r) => r.runId);
  const systemIds = [...new Set(latest.map((r) => r.systemId))];
  const [meta, cellRows, ratingRows] = await Promise.all([
    db.$queryRaw<Omit<RunMeta, "environmentKind" | "nodes" | "finishedAt">[]>`
      SELECT r.id AS "runId", s.id AS "systemId", s.slug, s.name, v.version, v.loc, (v.manifest IS NOT NULL) AS "manifestKnown"
      FROM "Run" r JOIN "System" s ON s.id = r."systemId" JOIN "TargetVersion" v ON v.id = r."targetVersionId"
      WHERE r.id = ANY(${runIds}::uuid[])`,
    db.$queryRaw<(CellNumbers & { runId: string })[]>`
      SELECT "runId", workload::text, distribution::text, valid, "invalidReason", "sustainableRate", p50, p99, "errorRate",
             "throughputPerCore", "anomaliesTotal"
      FROM "CellResult" WHERE "runId" = ANY(${runIds}::uuid[])`,
    db.$queryRaw<(RatingSummary & { systemId: string })[]>`
      SELECT "systemId", avg("programmingModel")::float8 AS "programmingModel", avg(understandability)::float8 AS understandability,
             count(*)::int AS count
      FROM "Rating" WHERE "systemId" = ANY(${systemIds}::uuid[]) AND ${ratingCountsSql()} GROUP BY "systemId"`,
  ]);
  const metaById = new Map(meta.map((m) => [m.runId, m]));
  const runs = latest.flatMap((l) => {
    const m = metaById.get(l.runId);
    return m ? [{ ...m, environmentKind: l.environmentKind, nodes: l.nodes, finishedAt: l.finishedAt }] : [];
  });
  const cells = new Map<string, CellNumbers[]>();
  for (const { runId, ...cell } of cellRows) (cells.get(runId) ?? cells.set(runId, []).get(runId)!).push(cell);
  const ratings = new Map(ratingRows.map(({ systemId, ...r }) => [systemId, r]));
  return { runs, cells, ratings, environments };
}

