/**
 * What the leaderboard reads, in a few indexed queries: per system and
 * environment, the latest completed run that has at least one ranked cell
 * (core rankable() as the import judged it: valid, its knee known to
 * PUBLISHABLE_RESOLUTION or better, audited without an anomaly), then
 * for exactly those runs their system/version, their cells' scalar columns
 * (never series or histograms) and the systems' rating aggregates. Failed and
 * interrupted runs never appear, smoke tests (quick-profile runs, knees not
 * bracketed) stay on their run pages, and invalid cells carry no numbers.
 */
import { Prisma, type Db, type EnvironmentKind, type LocCounts } from "@sfbench/db";
import { implementationClass, type ImplementationClass } from "../../shared/implementation.ts";
import { ratingCountsSql } from "../ratings/counted.ts";

export interface CellNumbers {
  workload: string;
  distribution: string;
  valid: boolean;
  invalidReason: string | null;
  /** core rankable() of the cell, computed when it was imported */
  ranked: boolean;
  /** why not, when not ranked */
  unrankedBecause: string | null;
  sustainableRate: number | null;
  /** the knee's resolution (first unsustainable - sustainable) / sustainable; null when not bracketed or not recorded */
  kneeResolution: number | null;
  kneeStoppedBecause: string | null;
  p50: number | null;
  p99: number | null;
  errorRate: number | null;
  throughputPerCore: number | null;
  anomaliesTotal: number | null;
}

/** implementation and guarantees: from the run's target.json (shared/implementation.ts) */
export interface RunMeta extends ImplementationClass {
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
  /** the run's profile (quick, standard, thesis), shown next to its numbers */
  profile: string;
}

/** Whether a cell's sustainable rate is ranked: the one rule, core rankable(), applied when the cell was imported. */
export function ranked(cell: Pick<CellNumbers, "ranked">): boolean {
  return cell.ranked;
}

interface LatestRanked {
  runId: string;
  systemId: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  finishedAt: Date;
  profile: string;
}

/** SQL condition: the run has a cell the leaderboard ranks (the same rule as ranked()). */
const HAS_RANKED_CELL = Prisma.sql`EXISTS (SELECT 1 FROM "CellResult" c WHERE c."runId" = r.id AND c.ranked)`;

/** One row per (environment kind, nodes, system): its latest completed run with a ranked cell. */
function latestRankedRuns(db: Db, filter: { kind?: EnvironmentKind; nodes?: number }): Promise<LatestRanked[]> {
  const where = [Prisma.sql`r.status = 'completed'`, HAS_RANKED_CELL];
  if (filter.kind) where.push(Prisma.sql`r."environmentKind" = ${filter.kind}::"EnvironmentKind"`);
  if (filter.nodes !== undefined) where.push(Prisma.sql`r.nodes = ${filter.nodes}`);
  return db.$queryRaw<LatestRanked[]>`
    SELECT DISTINCT ON (r."environmentKind", r.nodes, r."systemId")
      r.id AS "runId", r."systemId", r."environmentKind", r.nodes, r."finishedAt", r.profile::text AS profile
    FROM "Run" r
    WHERE ${Prisma.join(where, " AND ")}
    ORDER BY r."environmentKind", r.nodes, r."systemId", r."finishedAt" DESC`;
}

export interface RatingSummary {
  programmingModel: number;
  understandability: number;
  count: number;
}

/** A recent completed run without a ranked cell (quick profile, coarse knee): listed under the table, linked to its run page. */
export interface SmokeRun {
  runId: string;
  slug: string;
  name: string;
  version: string;
  profile: string;
  finishedAt: Date;
}

export const SMOKE_LIMIT = 10;

export interface LeaderboardData {
  /** the latest completed runs that have no ranked cell (smoke tests), newest first */
  smoke: SmokeRun[];
  runs: RunMeta[];
  cells: Map<string, CellNumbers[]>;
  ratings: Map<string, RatingSummary>;
  environments: { kind: EnvironmentKind; nodes: number }[];
}

export async function readLeaderboardData(db: Db, filter: { kind?: EnvironmentKind; nodes?: number }): Promise<LeaderboardData> {
  const [latest, environments, smoke] = await Promise.all([
    latestRankedRuns(db, filter),
    db.$queryRaw<{ kind: EnvironmentKind; nodes: number }[]>`
      SELECT DISTINCT r."environmentKind" AS kind, r.nodes FROM "Run" r WHERE r.status = 'completed' AND ${HAS_RANKED_CELL} ORDER BY 1, 2`,
    db.$queryRaw<SmokeRun[]>`
      SELECT r.id AS "runId", s.slug, s.name, v.version, r.profile::text AS profile, r."finishedAt"
      FROM "Run" r JOIN "System" s ON s.id = r."systemId" JOIN "TargetVersion" v ON v.id = r."targetVersionId"
      WHERE r.status = 'completed' AND NOT ${HAS_RANKED_CELL}
      ORDER BY r."finishedAt" DESC LIMIT ${SMOKE_LIMIT}`,
  ]);
  if (latest.length === 0) return { smoke, runs: [], cells: new Map(), ratings: new Map(), environments };
  const runIds = latest.map((r) => r.runId);
  const systemIds = [...new Set(latest.map((r) => r.systemId))];
  const [meta, cellRows, ratingRows] = await Promise.all([
    db.$queryRaw<(Omit<RunMeta, "environmentKind" | "nodes" | "finishedAt" | keyof ImplementationClass> & { declared: { implementation?: unknown; guarantees?: unknown } | null })[]>`
      SELECT r.id AS "runId", s.id AS "systemId", s.slug, s.name, v.version, v.loc, (v.manifest IS NOT NULL) AS "manifestKnown",
             jsonb_build_object('implementation', v.manifest->'implementation', 'guarantees', v.manifest->'guarantees') AS declared
      FROM "Run" r JOIN "System" s ON s.id = r."systemId" JOIN "TargetVersion" v ON v.id = r."targetVersionId"
      WHERE r.id = ANY(${runIds}::uuid[])`,
    db.$queryRaw<(CellNumbers & { runId: string })[]>`
      SELECT "runId", workload::text, distribution::text, valid, "invalidReason", ranked, "unrankedBecause", "sustainableRate", "kneeResolution", "kneeStoppedBecause", p50, p99, "errorRate",
             "throughputPerCore", "anomaliesTotal"
      FROM "CellResult" WHERE "runId" = ANY(${runIds}::uuid[])`,
    db.$queryRaw<(RatingSummary & { systemId: string })[]>`
      SELECT "systemId", avg("programmingModel")::float8 AS "programmingModel", avg(understandability)::float8 AS understandability,
             count(*)::int AS count
      FROM "Rating" WHERE "systemId" = ANY(${systemIds}::uuid[]) AND ${ratingCountsSql()} GROUP BY "systemId"`,
  ]);
  const metaById = new Map(meta.map((m) => [m.runId, m]));
  const runs = latest.flatMap((l): RunMeta[] => {
    const found = metaById.get(l.runId);
    if (!found) return [];
    const { declared, ...m } = found;
    return [{ ...m, ...implementationClass(declared), environmentKind: l.environmentKind, nodes: l.nodes, finishedAt: l.finishedAt, profile: l.profile }];
  });
  const cells = new Map<string, CellNumbers[]>();
  for (const { runId, ...cell } of cellRows) (cells.get(runId) ?? cells.set(runId, []).get(runId)!).push(cell);
  const ratings = new Map(ratingRows.map(({ systemId, ...r }) => [systemId, r]));
  return { smoke, runs, cells, ratings, environments };
}

