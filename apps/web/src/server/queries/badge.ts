/** The badge's number: the checkout sustainable rate of the system's latest completed run that has a ranked checkout cell (core rankable(): valid, knee known to 10%, audited without an anomaly). */
import type { Db } from "@sfbench/db";
import { HEADLINE } from "../../shared/headline.ts";

export interface Headline {
  name: string;
  /** null when the system has no such run; rate null when no step was sustainable */
  result: { rate: number | null; distribution: string; environmentKind: string; nodes: number } | null;
}

export async function getHeadline(db: Db, slug: string): Promise<Headline | null> {
  const system = await db.system.findUnique({ where: { slug }, select: { id: true, name: true } });
  if (!system) return null;
  const rows = await db.$queryRaw<{ rate: number | null; distribution: string; environmentKind: string; nodes: number }[]>`
    SELECT c."sustainableRate" AS rate, c.distribution::text AS distribution, r."environmentKind"::text AS "environmentKind", r.nodes
    FROM "Run" r JOIN "CellResult" c ON c."runId" = r.id
    WHERE r."systemId" = ${system.id}::uuid AND r.status = 'completed' AND c.workload = ${HEADLINE.workload}::"Workload" AND c.ranked
    ORDER BY r."finishedAt" DESC, array_position(${[...HEADLINE.distributions]}::text[], c.distribution::text)
    LIMIT 1`;
  return { name: system.name, result: rows[0] ?? null };
}
