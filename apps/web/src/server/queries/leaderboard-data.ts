/**
 * What the leaderboard reads, in a few indexed queries: per system and
 * environment, the latest completed run that has at least one ranked cell
 * (core rankable() as the import judged it: valid, its knee known to
 * PUBLISHABLE_RESOLUTION or better, audited without an anomaly), then
 * for exactly those runs their system/version, their cells' scalar columns
 * (never series or histograms) and the systems' rating aggregates. Failed and
 * interrupted runs never appear, smoke tests (quick-profile runs, knees not
 * bracketed) stay on their run pages, and invalid cells carry no numbers.
 *
 * A system that ran a campaign shows its latest campaign (preferred to a
 * newer single run: a median with an interval says more than one run): the
 * campaign's trials on the same environment, profile and machine class are
 * read too, each trial once by its last completed attempt (a busy trial is
 * repeated), with the reference target's trials of the same campaign.
 */
import { Prisma, type Db, type EnvironmentKind, type LocCounts } from "@sfbench/db";
import { implementationClass, type ImplementationClass } from "../../shared/implementation.ts";
import { REFERENCE_TARGET } from "../../shared/trial-figures.ts";
import { ratingCountsSql } from "../ratings/counted.ts";
import { HAS_RANKED_CELL } from "./populations.ts";

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
  /** the campaign the run was a trial of; null for a single run */
  campaignId: string | null;
  machineClass: string | null;
}

/** A counted trial of a shown campaign: the last completed attempt of its trial index. */
export interface TrialRun {
  runId: string;
  campaignId: string;
  systemId: string;
  slug: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  profile: string;
  machineClass: string | null;
  trial: number;
  round: number | null;
  attempt: number | null;
  busy: boolean | null;
}

/** A cell of a trial, as the board counts it: its sustainable rate when ranked. */
export interface TrialCell {
  workload: string;
  distribution: string;
  ranked: boolean;
  sustainableRate: number | null;
  /** the stable phase at 80% of the trial's own knee */
  p50: number | null;
  p99: number | null;
  throughputPerCore: number | null;
}

export interface BoardFilter {
  kind?: EnvironmentKind;
  nodes?: number;
  profile?: string;
  /** null: runs that recorded no machine class */
  machineClass?: string | null;
}

/** The trials a row's campaign counts: same campaign, environment, profile and machine class (the row's own system, or the reference). */
export function sameTrialsAs(run: Pick<RunMeta, "campaignId" | "environmentKind" | "nodes" | "profile" | "machineClass">, t: TrialRun): boolean {
  return (
    t.campaignId === run.campaignId &&
    t.environmentKind === run.environmentKind &&
    t.nodes === run.nodes &&
    t.profile === run.profile &&
    t.machineClass === run.machineClass
  );
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
  campaignId: string | null;
  machineClass: string | null;
}

function boardWhere(filter: BoardFilter): Prisma.Sql[] {
  const where = [Prisma.sql`r.status = 'completed'`];
  if (filter.kind) where.push(Prisma.sql`r."environmentKind" = ${filter.kind}::"EnvironmentKind"`);
  if (filter.nodes !== undefined) where.push(Prisma.sql`r.nodes = ${filter.nodes}`);
  if (filter.profile) where.push(Prisma.sql`r.profile::text = ${filter.profile}`);
  if (filter.machineClass === null) where.push(Prisma.sql`r."machineClass" IS NULL`);
  else if (filter.machineClass !== undefined) where.push(Prisma.sql`r."machineClass" = ${filter.machineClass}`);
  return where;
}

/** One row per (environment kind, nodes, system): its latest campaign's latest trial with a ranked cell, else its latest completed run with one. */
function latestRankedRuns(db: Db, filter: BoardFilter): Promise<LatestRanked[]> {
  return db.$queryRaw<LatestRanked[]>`
    SELECT DISTINCT ON (r."environmentKind", r.nodes, r."systemId")
      r.id AS "runId", r."systemId", r."environmentKind", r.nodes, r."finishedAt", r.profile::text AS profile, r."campaignId", r."machineClass"
    FROM "Run" r
    WHERE ${Prisma.join([...boardWhere(filter), HAS_RANKED_CELL], " AND ")}
    ORDER BY r."environmentKind", r.nodes, r."systemId", (r."campaignId" IS NULL), r."finishedAt" DESC`;
}

/** Every counted trial of these campaigns (each trial index once: its last completed attempt), with the systems' slugs. */
function campaignTrials(db: Db, campaignIds: string[]): Promise<TrialRun[]> {
  if (!campaignIds.length) return Promise.resolve([]);
  return db.$queryRaw<TrialRun[]>`
    SELECT DISTINCT ON (r."campaignId", r."systemId", r."environmentKind", r.nodes, r.profile, r."machineClass", r.trial)
      r.id AS "runId", r."campaignId", r."systemId", s.slug, r."environmentKind", r.nodes, r.profile::text AS profile, r."machineClass",
      r.trial, r.round, r.attempt, r.busy
    FROM "Run" r JOIN "System" s ON s.id = r."systemId"
    WHERE r.status = 'completed' AND r."campaignId" = ANY(${campaignIds}::uuid[]) AND r.trial IS NOT NULL
    ORDER BY r."campaignId", r."systemId", r."environmentKind", r.nodes, r.profile, r."machineClass", r.trial, r.attempt DESC NULLS LAST`;
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

/**
 * A system's latest attempt in the population when it is not a ranked run:
 * a failed run, or a completed one without a ranked cell (an invalid cell, a
 * coarse knee, anomalies found by the audit). Shown below the ranked rows
 * with why, or on the system's row when the row's ranked run is older: a
 * failed audit never hides behind an earlier ranked number.
 */
export interface UnrankedAttempt {
  runId: string;
  systemId: string;
  slug: string;
  name: string;
  version: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  finishedAt: Date;
  status: "completed" | "failed";
  /** why it is not ranked, in the words of the run page: the failed stage and its message, or each cell's reason */
  reasons: string[];
}

/** Per (environment, nodes, system) of the population, the latest run that ended (completed or failed), when it has no ranked cell. */
async function latestUnranked(db: Db, filter: BoardFilter): Promise<UnrankedAttempt[]> {
  // a run that failed before the machine was described has no machine class: it belongs to every machine of its kind and profile
  const machine =
    filter.machineClass === undefined
      ? Prisma.empty
      : filter.machineClass === null
        ? Prisma.sql`AND r."machineClass" IS NULL`
        : Prisma.sql`AND (r."machineClass" = ${filter.machineClass} OR (r.status = 'failed' AND r."machineClass" IS NULL))`;
  const where = [Prisma.sql`r.status IN ('completed', 'failed')`, Prisma.sql`r."finishedAt" IS NOT NULL`];
  if (filter.kind) where.push(Prisma.sql`r."environmentKind" = ${filter.kind}::"EnvironmentKind"`);
  if (filter.nodes !== undefined) where.push(Prisma.sql`r.nodes = ${filter.nodes}`);
  if (filter.profile) where.push(Prisma.sql`r.profile::text = ${filter.profile}`);
  const latest = await db.$queryRaw<(Omit<UnrankedAttempt, "reasons"> & { ranked: boolean; errorStage: string | null; errorMessage: string | null })[]>`
    SELECT * FROM (
      SELECT DISTINCT ON (r."environmentKind", r.nodes, r."systemId")
        r.id AS "runId", r."systemId", s.slug, s.name, v.version, r."environmentKind", r.nodes, r."finishedAt", r.status::text AS status,
        r."errorStage", r."errorMessage", (r.status = 'completed' AND ${HAS_RANKED_CELL}) AS ranked
      FROM "Run" r JOIN "System" s ON s.id = r."systemId" JOIN "TargetVersion" v ON v.id = r."targetVersionId"
      WHERE ${Prisma.join(where, " AND ")} ${machine}
      ORDER BY r."environmentKind", r.nodes, r."systemId", r."finishedAt" DESC
    ) latest WHERE NOT ranked`;
  if (!latest.length) return [];
  const completed = latest.filter((l) => l.status === "completed").map((l) => l.runId);
  const cells = completed.length
    ? await db.$queryRaw<{ runId: string; workload: string; distribution: string; invalidReason: string | null; unrankedBecause: string | null }[]>`
        SELECT "runId", workload::text, distribution::text, "invalidReason", "unrankedBecause" FROM "CellResult"
        WHERE "runId" = ANY(${completed}::uuid[]) ORDER BY workload, distribution`
    : [];
  return latest.map(({ ranked: _ranked, errorStage, errorMessage, ...run }) => {
    const reasons =
      run.status === "failed"
        ? [`failed at ${errorStage ?? "an unknown stage"}: ${(errorMessage ?? "no message").slice(0, 300)}`]
        : cells
            .filter((c) => c.runId === run.runId)
            .map((c) => `${c.workload} ${c.distribution}: ${c.invalidReason ? `invalid, ${c.invalidReason}` : (c.unrankedBecause ?? "not ranked")}`);
    return { ...run, reasons: reasons.length ? reasons : ["completed without a measured cell"] };
  });
}

/** A campaign a shown version ran in the population: its checkout uniform median (the board's headline cell), for "every attempt counts". */
export interface VersionCampaign {
  systemId: string;
  version: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  campaignId: string;
  finishedAt: Date;
  median: number;
}

export interface LeaderboardData {
  /** every campaign of the shown versions in the population, oldest first */
  versionCampaigns: VersionCampaign[];
  /** the latest completed runs that have no ranked cell (smoke tests), newest first */
  smoke: SmokeRun[];
  /** each system's latest attempt in the population when it is not ranked (failed, or no ranked cell) */
  unranked: UnrankedAttempt[];
  runs: RunMeta[];
  cells: Map<string, CellNumbers[]>;
  ratings: Map<string, RatingSummary>;
  environments: { kind: EnvironmentKind; nodes: number }[];
  /** the counted trials of the campaigns shown (the rows' systems and the reference) */
  trials: TrialRun[];
  /** the cells of those trials, by run */
  trialCells: Map<string, TrialCell[]>;
}

export async function readLeaderboardData(db: Db, filter: BoardFilter): Promise<LeaderboardData> {
  const [latest, environments, smoke, unranked] = await Promise.all([
    latestRankedRuns(db, filter),
    db.$queryRaw<{ kind: EnvironmentKind; nodes: number }[]>`
      SELECT DISTINCT r."environmentKind" AS kind, r.nodes FROM "Run" r WHERE r.status = 'completed' AND ${HAS_RANKED_CELL} ORDER BY 1, 2`,
    db.$queryRaw<SmokeRun[]>`
      SELECT r.id AS "runId", s.slug, s.name, v.version, r.profile::text AS profile, r."finishedAt"
      FROM "Run" r JOIN "System" s ON s.id = r."systemId" JOIN "TargetVersion" v ON v.id = r."targetVersionId"
      WHERE r.status = 'completed' AND NOT ${HAS_RANKED_CELL}
      ORDER BY r."finishedAt" DESC LIMIT ${SMOKE_LIMIT}`,
    latestUnranked(db, filter),
  ]);
  const empty = { smoke, unranked, environments, trials: [], trialCells: new Map(), versionCampaigns: [] };
  if (latest.length === 0) return { ...empty, runs: [], cells: new Map(), ratings: new Map() };
  const runIds = latest.map((r) => r.runId);
  const systemIds = [...new Set(latest.map((r) => r.systemId))];
  const campaignIds = [...new Set(latest.flatMap((l) => (l.campaignId ? [l.campaignId] : [])))];
  const shownSystems = new Set(systemIds);
  const trials = (await campaignTrials(db, campaignIds)).filter((t) => shownSystems.has(t.systemId) || t.slug === REFERENCE_TARGET);
  const trialIds = trials.map((t) => t.runId);
  const [meta, cellRows, ratingRows, trialCellRows, versionCampaigns] = await Promise.all([
    db.$queryRaw<
      (Omit<RunMeta, "environmentKind" | "nodes" | "finishedAt" | keyof ImplementationClass> & {
        declared: { implementation?: unknown; guarantees?: unknown } | null;
      })[]
    >`
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
    db.$queryRaw<(TrialCell & { runId: string })[]>`
      SELECT "runId", workload::text, distribution::text, ranked, "sustainableRate", p50, p99, "throughputPerCore"
      FROM "CellResult" WHERE "runId" = ANY(${trialIds}::uuid[])`,
    db.$queryRaw<VersionCampaign[]>`
      SELECT r."systemId", v.version, r."environmentKind", r.nodes, r."campaignId", max(r."finishedAt") AS "finishedAt",
             percentile_cont(0.5) WITHIN GROUP (ORDER BY c."sustainableRate") AS median
      FROM "Run" r JOIN "TargetVersion" v ON v.id = r."targetVersionId" JOIN "CellResult" c ON c."runId" = r.id
      WHERE ${Prisma.join(boardWhere(filter), " AND ")} AND r."systemId" = ANY(${systemIds}::uuid[]) AND r."campaignId" IS NOT NULL
        AND c.workload = 'checkout' AND c.distribution = 'uniform' AND c.ranked AND c."sustainableRate" IS NOT NULL
      GROUP BY r."systemId", v.version, r."environmentKind", r.nodes, r."campaignId"
      ORDER BY "finishedAt"`,
  ]);
  const metaById = new Map(meta.map((m) => [m.runId, m]));
  const runs = latest.flatMap((l): RunMeta[] => {
    const found = metaById.get(l.runId);
    if (!found) return [];
    const { declared, ...m } = found;
    return [
      {
        ...m,
        ...implementationClass(declared),
        environmentKind: l.environmentKind,
        nodes: l.nodes,
        finishedAt: l.finishedAt,
        profile: l.profile,
        campaignId: l.campaignId,
        machineClass: l.machineClass,
      },
    ];
  });
  const cells = new Map<string, CellNumbers[]>();
  for (const { runId, ...cell } of cellRows) (cells.get(runId) ?? cells.set(runId, []).get(runId)!).push(cell);
  const ratings = new Map(ratingRows.map(({ systemId, ...r }) => [systemId, r]));
  const trialCells = new Map<string, TrialCell[]>();
  for (const { runId, ...cell } of trialCellRows) (trialCells.get(runId) ?? trialCells.set(runId, []).get(runId)!).push(cell);
  return { ...empty, runs, cells, ratings, trials, trialCells, versionCampaigns };
}
