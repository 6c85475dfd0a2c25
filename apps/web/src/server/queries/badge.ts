/**
 * The badge's number: the checkout sustainable rate the board shows for the
 * system: the median of its latest campaign's trials (each trial once, by its
 * last completed attempt, on the same environment, profile and machine class),
 * else its latest completed run that has a ranked checkout cell (core
 * rankable(): valid, knee known to 10%, audited without an anomaly).
 */
import { median } from "@sfbench/core/stats";
import type { Db } from "@sfbench/db";
import { HEADLINE } from "../../shared/headline.ts";

export interface Headline {
  name: string;
  /** null when the system has no such run; rate null when no step was sustainable; n: the trials the median is of (1: a single run) */
  result: { rate: number | null; distribution: string; environmentKind: string; nodes: number; n: number } | null;
}

interface Latest {
  rate: number | null;
  distribution: string;
  environmentKind: string;
  nodes: number;
  campaignId: string | null;
  profile: string;
  machineClass: string | null;
}

export async function getHeadline(db: Db, slug: string): Promise<Headline | null> {
  const system = await db.system.findUnique({ where: { slug }, select: { id: true, name: true } });
  if (!system) return null;
  // a campaign is preferred to a newer single run, as on the board
  const [latest] = await db.$queryRaw<Latest[]>`
    SELECT c."sustainableRate" AS rate, c.distribution::text AS distribution, r."environmentKind"::text AS "environmentKind", r.nodes,
           r."campaignId", r.profile::text AS profile, r."machineClass"
    FROM "Run" r JOIN "CellResult" c ON c."runId" = r.id
    WHERE r."systemId" = ${system.id}::uuid AND r.status = 'completed' AND c.workload = ${HEADLINE.workload}::"Workload" AND c.ranked
    ORDER BY (r."campaignId" IS NULL), r."finishedAt" DESC, array_position(${[...HEADLINE.distributions]}::text[], c.distribution::text)
    LIMIT 1`;
  if (!latest) return { name: system.name, result: null };
  const { campaignId, profile, machineClass, ...shown } = latest;
  if (!campaignId) return { name: system.name, result: { ...shown, n: 1 } };
  const trials = await db.$queryRaw<{ rate: number | null }[]>`
    SELECT c."sustainableRate" AS rate
    FROM (
      SELECT DISTINCT ON (r.trial) r.id FROM "Run" r
      WHERE r."systemId" = ${system.id}::uuid AND r.status = 'completed' AND r."campaignId" = ${campaignId}::uuid
        AND r."environmentKind"::text = ${shown.environmentKind} AND r.nodes = ${shown.nodes} AND r.profile::text = ${profile}
        AND r."machineClass" IS NOT DISTINCT FROM ${machineClass}
      ORDER BY r.trial, r.attempt DESC NULLS LAST
    ) t JOIN "CellResult" c ON c."runId" = t.id
    WHERE c.workload = ${HEADLINE.workload}::"Workload" AND c.distribution::text = ${shown.distribution} AND c.ranked AND c."sustainableRate" IS NOT NULL`;
  const rates = trials.map((t) => t.rate!);
  return { name: system.name, result: rates.length ? { ...shown, rate: median(rates), n: rates.length } : { ...shown, n: 1 } };
}
