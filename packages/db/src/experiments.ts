/**
 * Queries for the portal's microbenchmark and resilience views: the latest
 * completed run whose stored document carries a `micro` part (per system and
 * environment), and a system's latest completed run with resilience results
 * (run-level `resilience`, or a cell with `fault` / `scaleUp`). Failed and
 * interrupted runs never appear. The parts are returned as stored JSON (the
 * document was validated by importResult when it was written).
 */
import type { Db } from "./client.ts";
import { Prisma, type EnvironmentKind } from "./generated/client.ts";

type Queryable = Pick<Db, "$queryRaw">;

export interface LatestMicroRun {
  runId: string;
  systemId: string;
  slug: string;
  name: string;
  version: string;
  environmentKind: EnvironmentKind;
  nodes: number;
  finishedAt: Date;
  profile: string;
  /** the document's `micro` part as stored (MicroResult of @sfbench/core) */
  micro: unknown;
  /** the version's target.json `implementation` as stored (idiomatic when absent; the portal hides tuned rows unless asked) */
  implementation: unknown;
}

export interface LatestMicroRunsFilter {
  environmentKind?: EnvironmentKind;
  nodes?: number;
  systemId?: string;
}

/** One row per (environment kind, nodes, system): its latest completed run whose document has a `micro` part. */
export function latestMicroRuns(db: Queryable, filter: LatestMicroRunsFilter = {}): Promise<LatestMicroRun[]> {
  const where = [Prisma.sql`r.status = 'completed'`, Prisma.sql`d.document ? 'micro'`];
  if (filter.environmentKind) where.push(Prisma.sql`r."environmentKind" = ${filter.environmentKind}::"EnvironmentKind"`);
  if (filter.nodes !== undefined) where.push(Prisma.sql`r.nodes = ${filter.nodes}`);
  if (filter.systemId) where.push(Prisma.sql`r."systemId" = ${filter.systemId}::uuid`);
  return db.$queryRaw<LatestMicroRun[]>`
    SELECT DISTINCT ON (r."environmentKind", r.nodes, r."systemId")
      r.id AS "runId", r."systemId", s.slug, s.name, v.version, r."environmentKind", r.nodes, r."finishedAt",
      r.profile::text AS profile, d.document -> 'micro' AS micro, v.manifest -> 'implementation' AS implementation
    FROM "Run" r
      JOIN "RunDocument" d ON d."runId" = r.id
      JOIN "System" s ON s.id = r."systemId"
      JOIN "TargetVersion" v ON v.id = r."targetVersionId"
    WHERE ${Prisma.join(where, " AND ")}
    ORDER BY r."environmentKind", r.nodes, r."systemId", r."finishedAt" DESC`;
}

export interface LatestResilienceRun {
  runId: string;
  finishedAt: Date;
  environmentKind: EnvironmentKind;
  nodes: number;
  /** the whole stored result document */
  document: unknown;
}

/** SQL condition: the stored document has resilience results (run-level, or a cell's fault or scale-up phase). */
const HAS_RESILIENCE = Prisma.sql`(d.document ? 'resilience' OR jsonb_path_exists(d.document, '$.cells[*] ? (exists(@.fault) || exists(@.scaleUp))'))`;

/** The system's latest completed run (any environment) whose document has resilience results; null when none has. */
export async function latestResilienceRun(db: Queryable, systemId: string): Promise<LatestResilienceRun | null> {
  const rows = await db.$queryRaw<LatestResilienceRun[]>`
    SELECT r.id AS "runId", r."finishedAt", r."environmentKind", r.nodes, d.document
    FROM "Run" r JOIN "RunDocument" d ON d."runId" = r.id
    WHERE r.status = 'completed' AND r."systemId" = ${systemId}::uuid AND ${HAS_RESILIENCE}
    ORDER BY r."finishedAt" DESC
    LIMIT 1`;
  return rows[0] ?? null;
}
